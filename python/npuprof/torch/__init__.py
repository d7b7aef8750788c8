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
``<dir>/<worker>_<pid>_<YYYYmmddHHMMSSfff>_ascend_pt/`` (worker: the
handler's worker_name, default the hostname), starts a CANN profiling session
in it (aclprofInit/aclprofCreateConfig/aclprofStart: the PROF_* directory),
records every torch op (PYTORCH_API rows), the steps (STEP_TIME), allocator
events with profile_memory (MEMORY_RECORD, OP_MEMORY), Python stacks with
with_stack (PYTORCH_CALLCHAINS) and, with the experimental config's
gc_detect_threshold, garbage collections (GC_RECORD); at its
end it stops the session, writes profiler_info_<rank>.json and
profiler_metadata.json and calls on_trace_ready (an exception it raises is
written to stderr with its traceback and kept in ``prof.trace_ready_errors``;
the loop and the next cycles go on). tensorboard_trace_handler's
handler runs ``npuprof export --pytorch`` on the directory, which writes
``ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_<rank>.db``.

The public names are torch_npu.profiler's (its __all__, plus
_KinetoProfile, analyse and the dynamic_profile module), with its
signatures and defaults. As torch_npu's, a bad argument does not raise:
a line "[date] [WARNING] [pid] profiler.py: ..." on stdout says it and
the value is reset (TORCH_NPU_WARNING_DISABLE=1 or a RANK other than 0
silences them); an exception inside start/stop/step is an [ERROR] line.
npuprof's own configuration errors (NPUPROF_TORCH_MIRROR, RANK, a missing
npuprof build) do raise.

experimental_config (_ExperimentalConfig; default Level0, export_type
text): profiler_info.json's config.experimental_config holds its
attributes, as torch_npu writes them, and profiler_metadata.json (the
database's META_DATA) its npuprof.experimental_config with the aclprof
switches chosen. On npusim:

  profiler_level  honoured: the switches of torch_npu's level table
                  (Level_none: none, framework and mstx rows only;
                  Level0 TASK_TIME_L0|ACL_API: device tasks and CANN
                  APIs; Level1 + TASK_TIME, HCCL_TRACE, AICORE_METRICS:
                  HCCL small tasks; Level2 + RUNTIME_API, AICPU)
  mstx/msprof_tx  honoured: off, npuprof.torch.mstx records nothing
                  inside a profile and MSTX rows are not exported
  gc_detect_threshold honoured: GC_RECORD only with it, for collections
                  of at least that many ms (0: all)
  export_type     Db and Text both get the database (no text exporter)
  aic_metrics, l2_cache, op_attr, record_op_args, data_simplification,
  host_sys, sys_io, sys_interconnection, mstx_domain_include/exclude:
                  checked, recorded and their switches set; not applicable
                  (npusim has no PMU, L2 model, host or interconnect
                  samplers to fill them)

A host-only collection (no NPU activity, or no device to profile) also
carries ACL_PROF_MSPROFTX: aclprof allows a session without devices only
for it, and its host stream holds the framework records.

export_chrome_trace(path): the collection's PyTorch database as a
Chrome/Perfetto trace (npuprof export --json). export_stacks(path,
metric): flame-graph lines of each Python stack's ops' self CPU time, in
us. export_memory_timeline: torch_npu's checks, then says it is not
available (MEMORY_RECORD/OP_MEMORY hold the events). A profile without
on_trace_ready writes under ./export_only_prof_dir (or
$ASCEND_WORK_PATH/profiling_data) and, as torch_npu, deletes that
collection with the object. Directory names are torch_npu's:
<worker or hostname>_<pid>_<YYYYmmddHHMMSSfff>_ascend_pt.

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
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import uuid

import torch  # noqa: F401  (loads libtorch before the extension)

from .. import _C, npuprof_binary
from .experimental_config import (ACL_PROF_MSPROFTX, AiCMetrics, ExportType, HostSystem,
                                  ProfilerLevel, _ExperimentalConfig, print_error_msg,
                                  print_warn_msg, supported_ai_core_metrics, supported_export_type,
                                  supported_profiler_level)

# torch_npu/profiler/__init__.py's __all__
__all__ = [
    "profile", "ProfilerActivity", "supported_activities", "tensorboard_trace_handler", "schedule",
    "ProfilerAction", "_ExperimentalConfig", "supported_profiler_level", "supported_ai_core_metrics",
    "supported_export_type", "ProfilerLevel", "AiCMetrics", "ExportType", "HostSystem",
]

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


def _no_exception(default=None):
    """torch_npu's profiler entry points do not raise: an exception is an
    [ERROR] line ("Call <name> failed. Exception: ...") and a default
    result. Our own configuration errors (NPUPROF_* variables, a missing
    npuprof build) are _NpuprofError and do raise."""
    def wrap(fn):
        def inner(*a, **kw):
            try:
                return fn(*a, **kw)
            except _NpuprofError:
                raise
            except Exception as e:
                print_error_msg("Call %s failed. Exception: %s" % (fn.__name__, e))
                return default
        inner.__name__ = fn.__name__
        inner.__doc__ = fn.__doc__
        inner.__wrapped__ = fn
        return inner
    return wrap


class _NpuprofError(ValueError, RuntimeError):
    """npuprof's own set-up failed (not a torch_npu argument error)."""


class Schedule:
    """torch_npu.profiler.schedule: skip the first skip_first steps, then
    cycles of wait steps (NONE), warmup steps (WARMUP) and active steps
    (RECORD; the last one RECORD_AND_SAVE); repeat cycles (0: for ever);
    skip_first_wait != 0 leaves out the first cycle's wait. A bad argument
    is reset with torch_npu's warning."""

    def __init__(self, wait, active, warmup=0, repeat=0, skip_first=0, skip_first_wait=0):
        self.wait = wait
        self.active = active
        self.warmup = warmup
        self.repeat = repeat
        self.skip_first = skip_first
        self.skip_first_wait = skip_first_wait
        self._check_params()

    def __call__(self, step):
        if step < 0:
            raise ValueError("Invalid parameter step, which must be not less than 0.")
        if step < self.skip_first:
            return ProfilerAction.NONE
        step -= self.skip_first
        if self.skip_first_wait != 0:
            step += self.wait
        num_steps = self.wait + self.warmup + self.active
        if self.repeat > 0 and step // num_steps >= self.repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < self.wait:
            return ProfilerAction.NONE
        if mod_step < self.wait + self.warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    def _check_params(self):
        for name, low, reset in (("wait", 0, 0), ("warmup", 0, 0), ("active", 1, 1), ("repeat", 0, 0),
                                 ("skip_first", 0, 0)):
            v = getattr(self, name)
            if not isinstance(v, int) or v < low:
                print_warn_msg("Invalid parameter %s, reset it to %d." % (name, reset))
                setattr(self, name, reset)
        if not isinstance(self.skip_first_wait, int):
            print_warn_msg("Invalid parameter skip_first_wait, reset it to 0.")
            self.skip_first_wait = 0
        if self.warmup == 0:
            print_warn_msg("Profiler won't be using warmup, this can skew profiler results")


schedule = Schedule


def _default_schedule_fn(_step):
    return ProfilerAction.RECORD


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)

# torch_npu's limits (profiler.py, _constant.py)
_MAX_WORKER_NAME_LENGTH = 226
_MAX_META_SIZE = 50 * 1024
_MAX_META_STR = 4096
_MAX_TRACE_ID_LEN = 1024
_METRIC_CPU_TIME = "self_cpu_time_total"
_METRIC_NPU_TIME = "self_npu_time_total"
# torch_npu's collect_env_vars(): the ENV_VARIABLES metadata
_ENV_VARIABLES = ("ASCEND_GLOBAL_LOG_LEVEL", "HCCL_RDMA_TC", "HCCL_RDMA_SL", "ACLNN_CACHE_LIMIT",
                  "HOST_CACHE_CAPACITY", "ASCEND_ENHANCE_ENABLE", "PYTORCH_NPU_ALLOC_CONF",
                  "ASCEND_LAUNCH_BLOCKING", "HCCL_ALGO")


def _export(d, extra=()):
    exe = npuprof_binary()
    if not exe:
        raise _NpuprofError("npuprof.torch: no npuprof command (build/bin or PATH) to export %s" % d)
    p = subprocess.run([exe, "export", "--pytorch", "--quiet"] + list(extra) + [d],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise RuntimeError("npuprof export --pytorch %s failed (exit %d):\n%s"
                           % (d, p.returncode, p.stdout))


class _TensorboardTraceHandler:
    """on_trace_ready handler: exports the finished collection with
    ``npuprof export --pytorch`` (analyse_flag=False: leaves it raw)."""

    def __init__(self, dir_name=None, worker_name=None, analyse_flag=True, async_mode=False):
        if worker_name is not None and not (isinstance(worker_name, str) and worker_name
                                            and len(worker_name) < _MAX_WORKER_NAME_LENGTH
                                            and "/" not in worker_name):
            print_warn_msg("Invalid parameter worker_name, reset it to default.")
            worker_name = None
        if dir_name is not None and not (isinstance(dir_name, str) and dir_name):
            print_warn_msg("Invalid parameter dir_name, reset it to default.")
            dir_name = None
        if not isinstance(analyse_flag, bool):
            print_warn_msg("analyse_flag is not bool, set by default.")
            analyse_flag = True
        if not isinstance(async_mode, bool):
            print_warn_msg("async_mode is not bool, set by default.")
            async_mode = False
        self.dir_name = os.path.realpath(dir_name) if dir_name else None
        self.worker_name = worker_name
        self.analyse_flag = analyse_flag
        self.async_mode = async_mode  # recorded; the export runs in the step that ends the cycle

    def __call__(self, prof):
        d = prof.ascend_pt_dir
        if not self.analyse_flag or d is None:
            return
        _export(d)


def tensorboard_trace_handler(dir_name=None, worker_name=None, analyse_flag=True, async_mode=False):
    return _TensorboardTraceHandler(dir_name, worker_name, analyse_flag, async_mode)


def analyse(profiler_path, max_process_number=max(1, (os.cpu_count() or 2) // 2), export_type=None):
    """torch_npu.profiler.profiler.analyse: export a collection written
    with analyse_flag=False (npuprof export --pytorch; one process)."""
    if isinstance(max_process_number, bool) or not isinstance(max_process_number, int) or \
            max_process_number <= 0:
        print_warn_msg("Invalid max_process_number, reset it to default!")
    if export_type is not None:
        if isinstance(export_type, str):
            export_type = [export_type]
        if not isinstance(export_type, list) or not export_type or \
                not all(t in (ExportType.Text, ExportType.Db) for t in export_type):
            print_warn_msg("Invalid parameter export_type: %s, reset it to None." % (export_type,))
    for d in ([profiler_path] if str(profiler_path).endswith("_ascend_pt") else
              sorted(os.path.join(profiler_path, x) for x in os.listdir(profiler_path)
                     if x.endswith("_ascend_pt"))):
        _export(d)


def _atomic_json(path, obj, indent=4):
    d = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(prefix=".tmp.", dir=d)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(obj, f, indent=indent)
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
            raise _NpuprofError("RANK=%r: not an integer" % r)
    return -1


def _device_id():
    for var in ("ASCEND_DEVICE_ID", "LOCAL_RANK"):
        v = os.environ.get(var)
        if v is not None:
            try:
                d = int(v)
            except ValueError:
                raise _NpuprofError("%s=%r: not a device id" % (var, v))
            if d < 0:
                raise _NpuprofError("%s=%r: not a device id" % (var, v))
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
        self._dist_enabled = False  # this profile set up npuprof.torch._dist
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
                from npuprof.torch import _dist
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


def _write_stacks(db, out, metric):
    import sqlite3
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        tables = {t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        lines = {}
        if {"PYTORCH_API", "PYTORCH_CALLCHAINS", "STRING_IDS"} <= tables:
            s = dict(con.execute("SELECT id, value FROM STRING_IDS"))
            chains = {}
            for cid, frame, depth in con.execute("SELECT id, stack, stackDepth FROM PYTORCH_CALLCHAINS"):
                chains.setdefault(cid, {})[depth] = s.get(frame, "?")
            ops = con.execute("SELECT startNs, endNs, globalTid, callchainId FROM PYTORCH_API "
                              "ORDER BY globalTid, startNs, endNs DESC").fetchall()
            # self time: an op's span minus its direct children's
            stack = []  # (end, index) per thread
            self_ns = [e - b for b, e, _, _ in ops]
            tid = None
            for i, (b, e, t, _) in enumerate(ops):
                if t != tid:
                    stack, tid = [], t
                while stack and stack[-1][0] <= b:
                    stack.pop()
                if stack:
                    self_ns[stack[-1][1]] -= e - b
                stack.append((e, i))
            for (b, e, t, cid), ns in zip(ops, self_ns):
                if cid is None or cid not in chains:
                    continue
                frames = chains[cid]
                key = ";".join(frames[d] for d in sorted(frames, reverse=True))  # outermost first
                lines[key] = lines.get(key, 0) + max(ns, 0)
        tmp = out + ".tmp"
        with open(tmp, "w") as f:
            for key in sorted(lines):
                f.write("%s %d\n" % (key, lines[key] // 1000))
        os.rename(tmp, out)
    finally:
        con.close()


def stats():
    """What the extension recorded in this process: ops, mem, lost (rings
    full), mirror_ops, mirror_errors, too_deep (nesting beyond 128)."""
    return _C.stats()


from . import mstx  # noqa: E402,F401
from . import dynamic_profile  # noqa: E402,F401
