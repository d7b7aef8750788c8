"""npuprof.torch.profiler: torch_npu.profiler's profile and
_KinetoProfile (the package's docstring says what they record), its
activities, and the recording now."""
import enum
import gc as _gc
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import traceback
import uuid

import torch

from .. import _C, npuprof_binary
from ._util import (_NpuprofError, _atomic_json, _device_id, _no_exception, _npusim_device, _rank,
                    _under_record)
from .analysis import _export, _write_stacks
from .experimental_config import ACL_PROF_MSPROFTX, _ExperimentalConfig, print_warn_msg
from .scheduler import _RECORDING, ProfilerAction, _default_schedule_fn

# PYTORCH_API.type (profiling/npuprof_ext.h NPUPROF_EXT_FWK_API_*)
API_OP = 50001
API_QUEUE = 50002
API_TRACE = 50003
API_MSTX = 50004


def _parallel_group_info():
    """torch_npu's parallel_group_info of a torch.distributed job whose
    collectives run on HCCL on npusim: the communicator, by its name (what
    COMMUNICATION_OP's groupName holds: msprof-analyze joins the two), with
    its group name, this rank in it and the global ranks. The mirror's one
    communicator spans the default (world) group. None otherwise."""
    import torch.distributed as dist
    from ..sim import dist as sim_dist

    if not (dist.is_available() and dist.is_initialized()):
        return None
    name = sim_dist.comm_name()
    if not name:
        return None
    return {name: {"group_name": "default_group", "group_rank": dist.get_rank(),
                   "global_ranks": list(range(dist.get_world_size()))}}


class ProfilerActivity(enum.Enum):
    CPU = 0
    NPU = 1


def supported_activities():
    return {ProfilerActivity.CPU, ProfilerActivity.NPU}


# torch_npu's limits (profiler.py, _constant.py)
_MAX_META_SIZE = 50 * 1024
_MAX_META_STR = 4096
_MAX_TRACE_ID_LEN = 1024
_METRIC_CPU_TIME = "self_cpu_time_total"
_METRIC_NPU_TIME = "self_npu_time_total"
# torch_npu's collect_env_vars(): the ENV_VARIABLES metadata
_ENV_VARIABLES = ("ASCEND_GLOBAL_LOG_LEVEL", "HCCL_RDMA_TC", "HCCL_RDMA_SL", "ACLNN_CACHE_LIMIT",
                  "HOST_CACHE_CAPACITY", "ASCEND_ENHANCE_ENABLE", "PYTORCH_NPU_ALLOC_CONF",
                  "ASCEND_LAUNCH_BLOCKING", "HCCL_ALGO")


_state = {"recording": None}  # the profile recording now (one at a time)


def current_profile():
    """The profile whose active steps are being recorded, or None."""
    return _state["recording"]


class _KinetoProfile:
    """torch_npu.profiler._KinetoProfile: one collection from start() to
    stop(), no schedule, no handler (torch_npu's "export only" mode: the
    collection is written under ./export_only_prof_dir, or under
    $ASCEND_WORK_PATH/profiling_data, and the export-only directory is
    deleted with the object); export_chrome_trace, export_stacks and
    export_memory_timeline read it."""

    def __init__(self, *, activities=None, record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None,
                 custom_trace_id_callback=None):
        self.metadata = {}
        self.activities = set(activities) if activities else supported_activities()
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.experimental_config = experimental_config
        self.custom_trace_id_callback = custom_trace_id_callback
        self._check_params()
        self.on_trace_ready = None
        self.schedule = None
        self.record_steps = False
        self.trace_id = ""
        self.ascend_pt_dir = None  # the collection being (or last) written
        self.ascend_pt_dirs = []  # every collection of this profile
        self.trace_ready_errors = []  # what on_trace_ready raised, per failed call
        self.mirror = False  # the device mirror was on (stays set after stop())
        self.switches = None  # the aclprof switches of the last collection
        self.step_num = 0
        self._step_num_offset = 0
        self._export_only = False
        self._mirror_opened = False
        self._dist_enabled = False  # this profile set up npuprof.sim.dist
        self._recording = False
        self._started = False
        self._step_t0 = None
        self._gc_t0 = None
        self._cycle = None

    def _check_params(self):
        # torch_npu's _ProfInterface._check_params: warn and reset
        if any(a not in supported_activities() for a in self.activities):
            print_warn_msg("Invalid activities, only CPU and NPU are supported, reset it to default.")
            self.activities = supported_activities()
        for name in ("record_shapes", "profile_memory", "with_stack", "with_flops", "with_modules"):
            if not isinstance(getattr(self, name), bool):
                print_warn_msg("Parameter %s is of boolean type, reset it to False." % name)
                setattr(self, name, False)
        if self.experimental_config is None:
            self.experimental_config = _ExperimentalConfig()
        elif not isinstance(self.experimental_config, _ExperimentalConfig):
            print_warn_msg("Parameter experimental_config is an instance of _ExperimentalConfig, "
                           "reset it to default.")
            self.experimental_config = _ExperimentalConfig()
        if ProfilerActivity.NPU not in self.activities:
            print_warn_msg("Experimental config will not be used while ProfilerActivity.NPU is not set.")
        if ProfilerActivity.CPU not in self.activities and self.experimental_config.with_gc:
            print_warn_msg("GC detect will not take effect while ProfilerActivity.CPU is not set.")

    def __del__(self):
        try:
            if self._started:
                self.stop()
            if self._export_only:
                for d in self.ascend_pt_dirs:
                    shutil.rmtree(d, ignore_errors=True)
        except Exception:
            pass

    # ---- metadata (profiler_metadata.json) ----
    def _meta_ok(self, key, value):
        if not isinstance(key, str) or not isinstance(value, str):
            print_warn_msg("The key and value of metadata must be string. Skip this metadata.")
            return False
        if len(key) > _MAX_META_STR or len(value) > _MAX_META_STR:
            print_warn_msg("Invalid input key or value. Skip this metadata.")
            return False
        if sys.getsizeof(self.metadata) + sys.getsizeof(key) + sys.getsizeof(value) >= _MAX_META_SIZE:
            print_warn_msg("Too many metadata added. Skip this metadata")
            return False
        return True

    @_no_exception()
    def add_metadata(self, key, value):
        """A string in profiler_metadata.json (and the database's META_DATA)."""
        if not self._meta_ok(key, value):
            return
        if key in self.metadata:
            print_warn_msg("%s is already saved as metadata, override it." % key)
        self.metadata[key] = value

    @_no_exception()
    def add_metadata_json(self, key, value):
        """A JSON value (given as its text) in profiler_metadata.json."""
        if not self._meta_ok(key, value):
            return
        try:
            v = json.loads(value)
        except ValueError:
            print_warn_msg("The metadata value must be json format string. Skip this metadata")
            return
        if key in self.metadata:
            print_warn_msg("%s is already saved as metadata, override it." % key)
        self.metadata[key] = v

    # ---- control ----
    @_no_exception()
    def start(self):
        if self._started:
            print_warn_msg("Profiler is already started.")
            return
        self._export_only = self.on_trace_ready is None and not os.environ.get("ASCEND_WORK_PATH")
        self._started = True
        self._open_mirror()
        if self.schedule is None:
            self._start_cycle()
        else:
            self._transit(ProfilerAction.NONE, self.current_action)
            self._begin_step()

    @_no_exception()
    def stop(self):
        if not self._started:
            return
        try:
            if self.schedule is None:
                if self._recording:
                    self._stop_cycle()
            else:
                self._end_step()
                self._transit(self.current_action, None)
        finally:
            self._started = False
            if self._dist_enabled:
                from ..sim import dist as _dist
                _dist.disable()
                self._dist_enabled = False
            if self._mirror_opened:
                _C.mirror_close()
                self._mirror_opened = False

    # ---- what torch_npu exports from a collection ----
    def _database(self):
        """The collection's PyTorch database (exported now if it is not yet)."""
        d = self.ascend_pt_dir
        if d is None:
            print_warn_msg("Invalid profiling path.")
            return None
        out = os.path.join(d, "ASCEND_PROFILER_OUTPUT")
        dbs = [f for f in (os.listdir(out) if os.path.isdir(out) else ())
               if f.startswith("ascend_pytorch_profiler") and f.endswith(".db")]
        if not dbs:
            _export(d)
            dbs = [f for f in os.listdir(out) if f.startswith("ascend_pytorch_profiler")
                   and f.endswith(".db")]
        return os.path.join(out, sorted(dbs)[0]) if dbs else None

    @_no_exception()
    def export_chrome_trace(self, output_path):
        """The Chrome/Perfetto trace of the last collection to output_path
        (npuprof export --json of its PyTorch database)."""
        if not isinstance(output_path, str) or not output_path:
            raise ValueError("output_path must be a file path")
        db = self._database()
        if db is None:
            return
        exe = npuprof_binary()
        p = subprocess.run([exe, "export", "--json", db, "-o", os.path.realpath(output_path)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            raise RuntimeError("npuprof export --json %s failed (exit %d):\n%s"
                               % (db, p.returncode, p.stdout))

    @_no_exception()
    def export_stacks(self, output_path, metric=_METRIC_CPU_TIME):
        """The last collection's Python stacks as flame-graph lines
        ("outer;...;inner <us>"), each stack's ops' self time (CPU time of
        the framework op minus the ops inside it). self_npu_time_total has
        no per-stack device time here: refused, as torch_npu presumes CPU."""
        if not isinstance(output_path, str) or not output_path:
            raise ValueError("output_path must be a file path")
        if not self.with_stack:
            print_warn_msg("Function export_stacks() requires with_stack=True.")
            return
        if metric not in (_METRIC_CPU_TIME, _METRIC_NPU_TIME):
            print_warn_msg("Metric should be self_cpu_time_total or self_npu_time_total."
                           "Here it is presumed to be self_cpu_time_total.")
            metric = _METRIC_CPU_TIME
        db = self._database()
        if db is None:
            return
        _write_stacks(db, os.path.realpath(output_path), metric)

    @_no_exception()
    def export_memory_timeline(self, output_path, device=None):
        """torch_npu's checks; npuprof has no memory-timeline exporter
        (MEMORY_RECORD and OP_MEMORY are in the database): said, nothing
        written."""
        missing = []
        if not self.record_shapes:
            missing.append("record_shapes=True")
        if not self.profile_memory:
            missing.append("profile_memory=True")
        if not (self.with_stack or self.with_modules):
            missing.append("with_stack=True or with_modules=True")
        if missing:
            print_warn_msg("%s required for memory profiling." % ", ".join(missing))
            return
        if self.ascend_pt_dir is None:
            print_warn_msg("Invalid profiling path.")
            return
        print_warn_msg("export_memory_timeline: not available in npuprof.torch; the collection's "
                       "MEMORY_RECORD and OP_MEMORY tables hold the allocator events.")

    # ---- internals ----
    def _open_mirror(self):
        self.mirror = False
        env = os.environ.get("NPUPROF_TORCH_MIRROR")
        if env not in (None, "", "0", "1"):
            raise _NpuprofError("NPUPROF_TORCH_MIRROR=%r: use 0 or 1" % env)
        if ProfilerActivity.NPU not in self.activities or ProfilerActivity.CPU not in self.activities:
            want = env == "1"
            if want:
                raise _NpuprofError("NPUPROF_TORCH_MIRROR=1 needs the CPU and NPU activities")
        elif env:
            want = env == "1"
        else:
            want = _npusim_device(_device_id())
        if not want:
            return
        if not _C.mirror_available():
            if env == "1":
                raise _NpuprofError("NPUPROF_TORCH_MIRROR=1: npuprof.torch was built without "
                                    "the device mirror (libnpuprof_mirror.so)")
            sys.stderr.write("npuprof.torch: npusim found but the device mirror is not built; "
                             "recording without it\n")
            return
        if _C.mirror_is_open():
            # opened by someone else (npuprof.sim.dist): use it, leave it open
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
        from ..sim import dist as _dist
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
        _C.range("ProfilerStep#%d" % (self.step_num + self._step_num_offset), self._step_t0, _C.now(),
                 API_OP)
        self._step_t0 = None

    def _worker_dir(self):
        # torch_npu's ProfPathCreator: <dir>/<worker or hostname>_<pid>_<YYYYmmddHHMMSSfff>_ascend_pt;
        # <dir>: the handler's, else $ASCEND_WORK_PATH/profiling_data, else
        # ./export_only_prof_dir without a handler, else .
        h = self.on_trace_ready
        base = getattr(h, "dir_name", None)
        if not base:
            work = os.environ.get("ASCEND_WORK_PATH")
            if work:
                base = os.path.join(os.path.abspath(work), "profiling_data")
            elif self._export_only:
                base = os.path.join(os.getcwd(), "export_only_prof_dir")
            else:
                base = os.getcwd()
        worker = "%s_%d" % (getattr(h, "worker_name", None) or socket.gethostname(), os.getpid())
        t = time.time()
        stamp = time.strftime("%Y%m%d%H%M%S", time.localtime(t)) + "%03d" % (int(t * 1000) % 1000)
        d = os.path.join(base, "%s_%s_ascend_pt" % (worker, stamp))
        n = 1
        while os.path.exists(d):  # two collections in one millisecond
            d = os.path.join(base, "%s_%s_%d_ascend_pt" % (worker, stamp, n))
            n += 1
        return d

    def _trace_id(self):
        cb = self.custom_trace_id_callback
        if cb:
            if not callable(cb):
                print_warn_msg("Parameter custom_trace_id_callback is not callable, reset it to default.")
            else:
                try:
                    tid = cb()
                    if isinstance(tid, str) and len(tid) <= _MAX_TRACE_ID_LEN:
                        return tid
                    print_warn_msg("Parameter custom_trace_id_callback should return str(max length: "
                                   "%d), reset it to default." % _MAX_TRACE_ID_LEN)
                except Exception as e:
                    print_warn_msg("Parameter custom_trace_id_callback raised an exception: %s, "
                                   "reset it to default." % e)
        return "%032X" % uuid.uuid4().int

    def _switches(self, devices):
        """The aclprof switches of a collection: the experimental config's
        (torch_npu's level table) with the NPU activity; with the CPU
        activity alone, or no device to profile, the host-only session
        aclprof allows (ACL_PROF_MSPROFTX: its host stream carries the
        framework records)."""
        if ProfilerActivity.NPU not in self.activities:
            return ACL_PROF_MSPROFTX
        sw = self.experimental_config.aclprof_switches(self.record_shapes, self.profile_memory)
        if not devices:
            sw |= ACL_PROF_MSPROFTX
        return sw

    def _start_cycle(self):
        if _state["recording"] is not None:
            raise _NpuprofError("npuprof.torch: another profile is recording")
        cycle = {"start_ns": _C.now(), "start_time": time.time(), "under_record": _under_record()}
        self.ascend_pt_dir = None
        self.trace_id = self._trace_id()
        cfg = self.experimental_config
        if not cycle["under_record"]:
            d = self._worker_dir()
            os.makedirs(d)
            devices = [_device_id()] if ProfilerActivity.NPU in self.activities and self.mirror else []
            self.switches = self._switches(devices)
            _C.session_start(d, devices, self.switches)
            self.ascend_pt_dir = d
            self.ascend_pt_dirs.append(d)
        if ProfilerActivity.CPU in self.activities:
            mem_ok = _C.enable(self.record_shapes, self.with_stack, self.profile_memory,
                               self.mirror)
            if self.profile_memory and not mem_ok:
                sys.stderr.write("npuprof.torch: profile_memory: another profiler (torch's) is "
                                 "active on this thread; memory is not recorded\n")
            if cfg.with_gc:
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
        # torch_npu's GC detector: collections of at least
        # gc_detect_threshold ms
        if phase == "start":
            self._gc_t0 = _C.now()
        elif phase == "stop" and self._gc_t0 is not None:
            t1 = _C.now()
            if t1 - self._gc_t0 >= self.experimental_config.gc_detect_threshold * 1e6:
                _C.gc(self._gc_t0, t1, int(info.get("generation", 0)))
            self._gc_t0 = None

    def _write_info(self, cycle):
        rank = _rank()
        cfg = self.experimental_config
        sched = self.schedule
        info = {
            "config": {
                "common_config": {
                    "activities": sorted("ProfilerActivity.%s" % a.name for a in self.activities),
                    # torch_npu writes the schedule object's attributes
                    "schedule": (dict(getattr(sched, "__dict__", {})) or None) if sched else None,
                    "record_shapes": self.record_shapes,
                    "profile_memory": self.profile_memory,
                    "with_stack": self.with_stack,
                    "with_flops": self.with_flops,
                    "with_modules": self.with_modules,
                },
                "experimental_config": cfg.to_json(),
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
        # torch_npu's _dump_metadata: the user's metadata, the trace id and
        # (its database always has them) ENV_VARIABLES; then cleared. Ours
        # adds npuprof.experimental_config: the config and the aclprof
        # switches it chose.
        md = self.metadata
        md["ENV_VARIABLES"] = {k: os.environ.get(k, "") for k in _ENV_VARIABLES}
        md["trace_id"] = self.trace_id
        md["npuprof.experimental_config"] = dict(cfg.to_json(), aclprof_switches="0x%x" % self.switches)
        groups = _parallel_group_info()
        if groups:
            md["parallel_group_info"] = groups
        # unindented, as torch_npu writes it: META_DATA's values are then
        # json.dumps(value), as in torch_npu's databases
        _atomic_json(os.path.join(self.ascend_pt_dir, "profiler_metadata.json"), md, None)
        self.metadata = {}


class profile(_KinetoProfile):
    """torch_npu.profiler.profile: see the module's help."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None,
                 custom_trace_id_callback=None, use_cuda=None):
        super().__init__(activities=activities, record_shapes=record_shapes,
                         profile_memory=profile_memory, with_stack=with_stack, with_flops=with_flops,
                         with_modules=with_modules, experimental_config=experimental_config,
                         custom_trace_id_callback=custom_trace_id_callback)
        if schedule and callable(schedule):
            self.schedule = schedule
            self.record_steps = True
        else:
            if schedule:
                print_warn_msg("schedule is not Callable, set by default.")
            self.schedule = _default_schedule_fn
            self.record_steps = False
        if on_trace_ready and not callable(on_trace_ready):
            print_warn_msg("on_trace_ready is not Callable, set by default.")
            on_trace_ready = None
        self.on_trace_ready = on_trace_ready
        self.execution_trace_observer = execution_trace_observer
        if use_cuda is not None:
            print_warn_msg("This is npu environment, use_cuda is invalid")
        self.step_num = 0
        self._step_num_offset = 0
        self.current_action = self.schedule(self.step_num)
        self.stopped = False

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        self.stop()
        return False

    def start(self):
        self.stopped = False
        super().start()
        if self.execution_trace_observer:
            self.execution_trace_observer.start()

    def stop(self):
        super().stop()
        self.stopped = True
        if self.execution_trace_observer:
            self.execution_trace_observer.stop()

    @_no_exception()
    def step(self):
        if self.stopped or not self._started:
            print_warn_msg("Profiler is stopped, step takes no effect!")
            return
        self._end_step()
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)
        self._begin_step()

    def _set_step_num_offset_for_dynamic_prof(self, step):
        self._step_num_offset = step

    @_no_exception()
    def set_custom_trace_id_callback(self, callback):
        self.custom_trace_id_callback = callback

    @_no_exception()
    def get_trace_id(self):
        return self.trace_id

    @classmethod
    def enable_profiler_in_child_thread(cls, record_shapes=False, profile_memory=False,
                                        with_stack=False, with_flops=False, with_modules=False):
        """torch_npu records threads the profiler did not start on only
        after this call; npuprof.torch's RecordFunction callback records
        every thread of the process already: nothing to do."""
        for name, v in (("record_shapes", record_shapes), ("profile_memory", profile_memory),
                        ("with_stack", with_stack), ("with_flops", with_flops),
                        ("with_modules", with_modules)):
            if not isinstance(v, bool):
                print_warn_msg("%s in enable_profiler_in_child_thread is not bool, reset it to False."
                               % name)

    @classmethod
    def disable_profiler_in_child_thread(cls):
        """See enable_profiler_in_child_thread."""


def stats():
    """What the extension recorded in this process: ops, mem, lost (rings
    full), mirror_ops, mirror_errors, too_deep (nesting beyond 128)."""
    return _C.stats()
