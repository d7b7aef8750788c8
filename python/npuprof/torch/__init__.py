"""npuprof.torch: profile a PyTorch program into the Ascend PyTorch
profiler's database, with the API of torch_npu.profiler::

    import npuprof.torch as prof_api
    with prof_api.profile(
            activities=[prof_api.ProfilerActivity.CPU, prof_api.ProfilerActivity.NPU],
            schedule=prof_api.schedule(wait=1, warmup=1, active=3, repeat=1),
            on_trace_ready=prof_api.tensorboard_trace_handler("./result"),
            record_shapes=True, profile_memory=True, with_stack=True) as prof:
        for batch in data:
            train_step(batch)
            prof.step()

Only the active steps of the schedule are recorded. Each active range
(one per repeat) is one collection: at its first step the profiler creates
``<dir>/<worker>_<YYYYmmddHHMMSSfff>_ascend_pt/`` (worker: the handler's
worker_name, default ``<hostname>_<pid>``), starts a CANN profiling session
in it (aclprofInit/aclprofCreateConfig/aclprofStart: the PROF_* directory),
records every torch op (PYTORCH_API rows), the steps (STEP_TIME), allocator
events with profile_memory (MEMORY_RECORD, OP_MEMORY), Python stacks with
with_stack (PYTORCH_CALLCHAINS) and garbage collections (GC_RECORD); at its
end it stops the session, writes profiler_info_<rank>.json and
profiler_metadata.json and calls on_trace_ready (an exception it raises is
written to stderr with its traceback and kept in ``prof.trace_ready_errors``;
the loop and the next cycles go on). tensorboard_trace_handler's
handler runs ``npuprof export --pytorch`` on the directory, which writes
``ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_<rank>.db``.

Under ``npuprof record -- python3 train.py`` record's session governs: no
directory or session of the profiler's own is made, the records go into
record's stream, and ``npuprof export --pytorch PROF_...`` gives the
framework tables.

Device mirror: real PyTorch on a CPU host launches no NPU work. When the
NPU activity is on and the host's device is npusim (the ACL runtime finds
/dev/npusim<N>), every top-level aten op also launches its modelled aclnn
operator on npusim (libnpuprof_mirror.so) inside the op's range, so the
database links torch ops to device tasks. NPUPROF_TORCH_MIRROR=0 or 1
overrides the default; the device is ASCEND_DEVICE_ID, else LOCAL_RANK,
else 0.
"""
import enum
import gc as _gc
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import traceback

import torch  # noqa: F401  (loads libtorch before the extension)

from .. import _C, npuprof_binary

__all__ = [
    "ProfilerActivity", "ProfilerAction", "schedule", "profile",
    "tensorboard_trace_handler", "supported_activities",
]

# ACL_PROF_* switches of a collection (include/acl/acl_prof.h)
_ACL_PROF_ACL_API = 0x0001
_ACL_PROF_TASK_TIME = 0x0002
_ACL_PROF_HCCL_TRACE = 0x0020
_ACL_PROF_MSPROFTX = 0x0080
# PYTORCH_API.type (npuprof/hostfmt.h enum npuprof_fwk_api_type)
API_OP = 50001
API_QUEUE = 50002
API_TRACE = 50003
API_MSTX = 50004


class ProfilerActivity(enum.Enum):
    CPU = 0
    NPU = 1


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities():
    return {ProfilerActivity.CPU, ProfilerActivity.NPU}


def _check_count(name, v, minimum):
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise ValueError("schedule: %s must be an integer >= %d, not %r" % (name, minimum, v))


def schedule(*, wait, warmup, active, repeat=0, skip_first=0):
    """The step -> ProfilerAction function of torch(_npu).profiler.schedule:
    skip the first skip_first steps, then cycles of wait steps (NONE),
    warmup steps (WARMUP) and active steps (RECORD; the last one
    RECORD_AND_SAVE); repeat cycles (0: for ever)."""
    _check_count("wait", wait, 0)
    _check_count("warmup", warmup, 0)
    _check_count("active", active, 1)
    _check_count("repeat", repeat, 0)
    _check_count("skip_first", skip_first, 0)

    def schedule_fn(step):
        if step < 0:
            raise ValueError("schedule: step %d < 0" % step)
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        num_steps = wait + warmup + active
        if repeat > 0 and step // num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        if mod_step < num_steps - 1:
            return ProfilerAction.RECORD
        return ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _default_schedule_fn(_step):
    return ProfilerAction.RECORD


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


class _TensorboardTraceHandler:
    """on_trace_ready handler: exports the finished collection with
    ``npuprof export --pytorch`` (analyse_flag=False: leaves it raw)."""

    def __init__(self, dir_name=None, worker_name=None, analyse_flag=True):
        if dir_name is None:
            dir_name = os.environ.get("ASCEND_WORK_PATH") or "."
        if not isinstance(dir_name, str) or not dir_name:
            raise ValueError("tensorboard_trace_handler: dir_name must be a path")
        if worker_name is not None and (not isinstance(worker_name, str) or "/" in worker_name
                                        or not worker_name):
            raise ValueError("tensorboard_trace_handler: bad worker_name %r" % (worker_name,))
        self.dir_name = os.path.abspath(dir_name)
        self.worker_name = worker_name
        self.analyse_flag = bool(analyse_flag)

    def __call__(self, prof):
        d = prof.ascend_pt_dir
        if not self.analyse_flag or d is None:
            return
        exe = npuprof_binary()
        if not exe:
            raise RuntimeError("npuprof.torch: no npuprof command (build/bin or PATH) to export %s" % d)
        p = subprocess.run([exe, "export", "--pytorch", "--quiet", d],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            raise RuntimeError("npuprof export --pytorch %s failed (exit %d):\n%s"
                               % (d, p.returncode, p.stdout))


def tensorboard_trace_handler(dir_name=None, worker_name=None, analyse_flag=True):
    return _TensorboardTraceHandler(dir_name, worker_name, analyse_flag)


def _atomic_json(path, obj):
    d = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(prefix=".tmp.", dir=d)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(obj, f, indent=4)
            f.write("\n")
        os.rename(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _rank():
    """The torch.distributed rank, else $RANK, else -1."""
    try:
        import torch.distributed as dist
        if dist.is_available() and dist.is_initialized():
            return dist.get_rank()
    except Exception:
        pass
    r = os.environ.get("RANK")
    if r is not None:
        try:
            return int(r)
        except ValueError:
            raise ValueError("RANK=%r: not an integer" % r)
    return -1


def _device_id():
    for var in ("ASCEND_DEVICE_ID", "LOCAL_RANK"):
        v = os.environ.get(var)
        if v is not None:
            try:
                d = int(v)
            except ValueError:
                raise ValueError("%s=%r: not a device id" % (var, v))
            if d < 0:
                raise ValueError("%s=%r: not a device id" % (var, v))
            return d
    return 0


def _npusim_device(dev):
    """True if the ACL runtime would find npusim device dev (it counts
    /dev/npusim0, 1, ...)."""
    return all(os.path.exists("/dev/npusim%d" % i) for i in range(dev + 1))


def _under_record():
    return bool(os.environ.get("NPUPROF_OUTPUT_DIR"))


_state = {"recording": None}  # the profile recording now (one at a time)


def current_profile():
    """The profile whose active steps are being recorded, or None."""
    return _state["recording"]


class profile:
    """torch_npu.profiler.profile: see the module's help."""

    def __init__(self, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, use_cuda=None):
        acts = list(activities) if activities is not None else list(supported_activities())
        for a in acts:
            if not isinstance(a, ProfilerActivity):
                raise ValueError("activities: %r is not a ProfilerActivity" % (a,))
        self.activities = set(acts)
        if schedule is not None and not callable(schedule):
            raise ValueError("schedule must be callable (npuprof.torch.schedule(...))")
        self.schedule = schedule if schedule is not None else _default_schedule_fn
        if on_trace_ready is not None and not callable(on_trace_ready):
            raise ValueError("on_trace_ready must be callable")
        self.on_trace_ready = on_trace_ready
        self.record_shapes = bool(record_shapes)
        self.profile_memory = bool(profile_memory)
        self.with_stack = bool(with_stack)
        self.with_flops = bool(with_flops)
        self.with_modules = bool(with_modules)
        self.experimental_config = experimental_config
        self.record_steps = True
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.ascend_pt_dir = None  # the collection being (or last) written
        self.ascend_pt_dirs = []  # every collection of this profile
        self.trace_ready_errors = []  # what on_trace_ready raised, per failed call
        self.mirror = False  # the device mirror was on (stays set after stop())
        self._mirror_opened = False
        self._dist_enabled = False  # this profile set up npuprof.torch._dist
        self._metadata = {}
        self._recording = False
        self._started = False
        self._step_t0 = None
        self._gc_t0 = None
        self._cycle = None

    # ---- metadata (profiler_metadata.json) ----
    def add_metadata(self, key, value):
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError("add_metadata(key, value): both must be str")
        self._metadata[key] = value

    def add_metadata_json(self, key, value):
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError("add_metadata_json(key, value): both must be str")
        try:
            self._metadata[key] = json.loads(value)
        except ValueError as e:
            raise ValueError("add_metadata_json(%r): not JSON: %s" % (key, e))

    # ---- control ----
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        self.stop()
        return False

    def start(self):
        if self._started:
            raise RuntimeError("npuprof.torch.profile: already started")
        self._started = True
        self._open_mirror()
        self._transit(ProfilerAction.NONE, self.current_action)
        self._begin_step()

    def stop(self):
        if not self._started:
            return
        try:
            self._end_step()
            self._transit(self.current_action, None)
        finally:
            self._started = False
            if self._dist_enabled:
                from npuprof.torch import _dist
                _dist.disable()
                self._dist_enabled = False
            if self._mirror_opened:
                _C.mirror_close()
                self._mirror_opened = False

    def step(self):
        if not self._started:
            raise RuntimeError("npuprof.torch.profile.step(): call start() first")
        self._end_step()
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)
        self._begin_step()

    # ---- internals ----
    def _open_mirror(self):
        self.mirror = False
        env = os.environ.get("NPUPROF_TORCH_MIRROR")
        if env not in (None, "", "0", "1"):
            raise ValueError("NPUPROF_TORCH_MIRROR=%r: use 0 or 1" % env)
        if ProfilerActivity.NPU not in self.activities or ProfilerActivity.CPU not in self.activities:
            want = env == "1"
            if want:
                raise ValueError("NPUPROF_TORCH_MIRROR=1 needs the CPU and NPU activities")
        elif env:
            want = env == "1"
        else:
            want = _npusim_device(_device_id())
        if not want:
            return
        if not _C.mirror_available():
            if env == "1":
                raise RuntimeError("NPUPROF_TORCH_MIRROR=1: npuprof.torch was built without "
                                   "the device mirror (libnpuprof_mirror.so)")
            sys.stderr.write("npuprof.torch: npusim found but the device mirror is not built; "
                             "recording without it\n")
            return
        if _C.mirror_is_open():
            # opened by someone else (npuprof.torch._dist): use it, leave it open
            self.mirror = True
        else:
            _C.mirror_open(_device_id())
            self.mirror = True
            self._mirror_opened = True
        self._enable_dist()

    def _enable_dist(self):
        # A torch.distributed job: its collectives mirror onto HCCL too. The
        # set-up is itself a collective, so every rank starts its profile at
        # the same step (as a schedule shared by the ranks does).
        try:
            import torch.distributed as dist
        except ImportError:
            return
        if not (dist.is_available() and dist.is_initialized()):
            return
        from npuprof.torch import _dist
        if not _dist.enabled():
            self._dist_enabled = bool(_dist.enable())

    def _transit(self, prev, cur):
        was = prev in _RECORDING and self._recording
        now = cur in _RECORDING
        if was and (not now or prev == ProfilerAction.RECORD_AND_SAVE):
            self._stop_cycle()
        if now and not self._recording:
            self._start_cycle()

    def _begin_step(self):
        self._step_t0 = _C.now() if self._recording and self.record_steps else None

    def _end_step(self):
        if self._step_t0 is None or not self._recording:
            return
        if self.mirror:
            _C.mirror_sync()
        _C.range("ProfilerStep#%d" % self.step_num, self._step_t0, _C.now(), API_OP)
        self._step_t0 = None

    def _worker_dir(self):
        h = self.on_trace_ready
        base = getattr(h, "dir_name", None) or os.path.abspath(".")
        worker = getattr(h, "worker_name", None) or "%s_%d" % (socket.gethostname(), os.getpid())
        t = time.time()
        stamp = time.strftime("%Y%m%d%H%M%S", time.localtime(t)) + "%03d" % (int(t * 1000) % 1000)
        d = os.path.join(base, "%s_%s_ascend_pt" % (worker, stamp))
        n = 1
        while os.path.exists(d):  # two collections in one millisecond
            d = os.path.join(base, "%s_%s_%d_ascend_pt" % (worker, stamp, n))
            n += 1
        return d

    def _start_cycle(self):
        if _state["recording"] is not None:
            raise RuntimeError("npuprof.torch: another profile is recording")
        cycle = {"start_ns": _C.now(), "start_time": time.time(), "under_record": _under_record()}
        self.ascend_pt_dir = None
        if not cycle["under_record"]:
            d = self._worker_dir()
            os.makedirs(d)
            switches = _ACL_PROF_ACL_API | _ACL_PROF_MSPROFTX
            devices = []
            if ProfilerActivity.NPU in self.activities:
                switches |= _ACL_PROF_TASK_TIME | _ACL_PROF_HCCL_TRACE
                if self.mirror:
                    devices = [_device_id()]
            _C.session_start(d, devices, switches)
            self.ascend_pt_dir = d
            self.ascend_pt_dirs.append(d)
        if ProfilerActivity.CPU in self.activities:
            mem_ok = _C.enable(self.record_shapes, self.with_stack, self.profile_memory,
                               self.mirror)
            if self.profile_memory and not mem_ok:
                sys.stderr.write("npuprof.torch: profile_memory: another profiler (torch's) is "
                                 "active on this thread; memory is not recorded\n")
        _gc.callbacks.append(self._gc_callback)
        self._cycle = cycle
        self._recording = True
        _state["recording"] = self

    def _stop_cycle(self):
        self._recording = False
        _state["recording"] = None
        try:
            _gc.callbacks.remove(self._gc_callback)
        except ValueError:
            pass
        _C.disable()
        cycle = self._cycle
        cycle["end_ns"] = _C.now()
        cycle["end_time"] = time.time()
        if self.ascend_pt_dir is not None:
            _C.session_stop()
            self._write_info(cycle)
        if self.on_trace_ready is not None:
            # a handler that raises is the handler's problem, not the
            # training loop's: said (with its traceback), and profiling goes
            # on with the next cycle. KeyboardInterrupt/SystemExit still stop.
            try:
                self.on_trace_ready(self)
            except Exception as e:
                self.trace_ready_errors.append(e)
                sys.stderr.write("npuprof.torch: on_trace_ready raised for %s (profiling goes on):\n%s"
                                 % (self.ascend_pt_dir or "this collection",
                                    traceback.format_exc()))

    def _gc_callback(self, phase, info):
        if phase == "start":
            self._gc_t0 = _C.now()
        elif phase == "stop" and self._gc_t0 is not None:
            _C.gc(self._gc_t0, _C.now(), int(info.get("generation", 0)))
            self._gc_t0 = None

    def _write_info(self, cycle):
        rank = _rank()
        info = {
            "config": {
                "common_config": {
                    "activities": sorted("ProfilerActivity.%s" % a.name for a in self.activities),
                    "schedule": getattr(self.schedule, "__name__", "schedule"),
                    "record_shapes": self.record_shapes,
                    "profile_memory": self.profile_memory,
                    "with_stack": self.with_stack,
                    "with_flops": self.with_flops,
                    "with_modules": self.with_modules,
                },
                "experimental_config": {},
            },
            "start_info": {
                "syscnt_enable": False,
                "freq": 1000,
                "start_cnt": cycle["start_ns"],
                "start_monotonic": cycle["start_ns"],
                "collectionTimeBegin": int(cycle["start_time"] * 1e6),
            },
            "end_info": {
                "collectionTimeEnd": int(cycle["end_time"] * 1e6),
                "MonotonicTimeEnd": cycle["end_ns"],
            },
            "torch_version": torch.__version__,
            "profiler": "npuprof.torch",
            "device_mirror": self.mirror,
            "rank_id": rank,
        }
        name = "profiler_info.json" if rank < 0 else "profiler_info_%d.json" % rank
        _atomic_json(os.path.join(self.ascend_pt_dir, name), info)
        _atomic_json(os.path.join(self.ascend_pt_dir, "profiler_metadata.json"), self._metadata)


def stats():
    """What the extension recorded in this process: ops, mem, lost (rings
    full), mirror_ops, mirror_errors, too_deep (nesting beyond 128)."""
    return _C.stats()


from . import mstx  # noqa: E402,F401
