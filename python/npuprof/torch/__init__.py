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

torch.distributed: importing this package registers the "hccl" backend
(npuprof.sim.hccl; not where torch_npu registered its own), so
dist.init_process_group(backend="hccl") works: data moves over gloo and,
on npusim, every collective - DDP's bucket all-reduces and initial
broadcast included - also runs on HCCL inside its framework op record. A
job on another backend has its Python-level world-group collectives
mirrored while a profile runs (npuprof.sim.dist). profiler_metadata.json
(META_DATA) then has torch_npu's parallel_group_info: the communicator by
its name (COMMUNICATION_OP's groupName), group_name "default_group", this
rank's group_rank and the global_ranks, which msprof-analyze joins on.
Launch ranks with `python3 -m npuprof.torchrun` (torchrun, mended for
Python 3.11).
"""
import torch  # noqa: F401  (loads libtorch before the extension)

from ..sim import dist as _sim_dist  # noqa: F401  (registers the "hccl" backend)

from .. import _C  # noqa: F401  (the extension: npuprof.torch._C, as before the split)
from .analysis import analyse, tensorboard_trace_handler
from .experimental_config import (AiCMetrics, ExportType, HostSystem, ProfilerLevel,
                                  _ExperimentalConfig, supported_ai_core_metrics,
                                  supported_export_type, supported_profiler_level)
from .profiler import (ProfilerActivity, _KinetoProfile, current_profile, profile, stats,
                       supported_activities)
from .scheduler import ProfilerAction, Schedule, _default_schedule_fn, schedule

# torch_npu/profiler/__init__.py's __all__
__all__ = [
    "profile", "ProfilerActivity", "supported_activities", "tensorboard_trace_handler", "schedule",
    "ProfilerAction", "_ExperimentalConfig", "supported_profiler_level", "supported_ai_core_metrics",
    "supported_export_type", "ProfilerLevel", "AiCMetrics", "ExportType", "HostSystem",
]

from . import mstx  # noqa: E402,F401
from . import dynamic_profile  # noqa: E402,F401
