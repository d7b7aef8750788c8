"""torch_npu.profiler's experimental configuration: _ExperimentalConfig
and its value sets (ProfilerLevel, AiCMetrics, ExportType, HostSystem),
with torch_npu's names, string values, defaults and checks. A bad value is
not an exception: as torch_npu does, a ``[WARNING]`` line is printed and
the value reset (see _check).

What each option does here (npusim and our CANN runtime; the module help
of npuprof.torch says it in full):

  profiler_level   honoured: chooses the aclprof switches of the
                   collection (aclprof_switches) as torch_npu's
                   ProfilerMgr does; Level_none records no CANN data
                   (framework rows and mstx only)
  export_type      honoured: Db writes ascend_pytorch_profiler_<rank>.db;
                   Text alone is recorded, and the handler still writes
                   the database (npuprof has no text exporter)
  mstx, msprof_tx  honoured (ACL_PROF_MSPROFTX)
  gc_detect_threshold honoured (GC_RECORD only for collections >= it, in
                   ms; None: GC recorded as before)
  aic_metrics, l2_cache, op_attr, record_op_args, data_simplification,
  host_sys, sys_io, sys_interconnection, mstx_domain_include/exclude:
                   checked and recorded (profiler_info_<rank>.json); the
                   aclprof bits are set, but npusim has no PMU counters, L2
                   model, host or interconnect samplers to fill them
"""
import os
import time
import warnings

__all__ = [
    "_ExperimentalConfig", "supported_profiler_level", "supported_ai_core_metrics",
    "supported_export_type", "ProfilerLevel", "AiCMetrics", "ExportType", "HostSystem",
]


def _should_warn():
    # torch_npu (_init/common/warning_utils.py): off with
    # TORCH_NPU_WARNING_DISABLE=1 (or the older TORCH_NPU_DISABLED_WARNING),
    # and on ranks other than 0
    off = os.environ.get("TORCH_NPU_WARNING_DISABLE")
    if off is None:
        off = os.environ.get("TORCH_NPU_DISABLED_WARNING")
    if off == "1":
        return False
    rank = os.environ.get("RANK")
    return rank is None or rank == "0"


def _msg(level, message):
    # torch_npu's profiler messages: stdout, "[date time] [LEVEL] [pid] profiler.py: ..."
    print("%s [%s] [%d] profiler.py: %s" % (time.strftime("[%Y-%m-%d %H:%M:%S]"), level,
                                            os.getpid(), message), flush=True)


def print_warn_msg(message):
    if _should_warn():
        _msg("WARNING", message)


def print_info_msg(message):
    _msg("INFO", message)


def print_error_msg(message):
    _msg("ERROR", message)


class ProfilerLevel:
    Level0 = "Level0"
    Level1 = "Level1"
    Level2 = "Level2"
    Level_none = "Level_none"


class AiCMetrics:
    PipeUtilization = "ACL_AICORE_PIPE_UTILIZATION"
    ArithmeticUtilization = "ACL_AICORE_ARITHMETIC_UTILIZATION"
    Memory = "ACL_AICORE_MEMORY_BANDWIDTH"
    MemoryL0 = "ACL_AICORE_L0B_AND_WIDTH"
    MemoryUB = "ACL_AICORE_MEMORY_UB"
    ResourceConflictRatio = "ACL_AICORE_RESOURCE_CONFLICT_RATIO"
    L2Cache = "ACL_AICORE_L2_CACHE"
    MemoryAccess = "ACL_AICORE_MEMORY_ACCESS"
    AiCoreNone = "ACL_AICORE_NONE"


class ExportType:
    Db = "db"
    Text = "text"


class HostSystem:
    CPU = "cpu"
    MEM = "mem"
    DISK = "disk"
    NETWORK = "network"
    OSRT = "osrt"
    NUMA = "numa"


_LEVELS = (ProfilerLevel.Level0, ProfilerLevel.Level1, ProfilerLevel.Level2, ProfilerLevel.Level_none)
_METRICS = (AiCMetrics.L2Cache, AiCMetrics.MemoryL0, AiCMetrics.Memory, AiCMetrics.MemoryUB,
            AiCMetrics.PipeUtilization, AiCMetrics.ArithmeticUtilization,
            AiCMetrics.ResourceConflictRatio, AiCMetrics.MemoryAccess, AiCMetrics.AiCoreNone)
_HOST_SYS = (HostSystem.CPU, HostSystem.MEM, HostSystem.DISK, HostSystem.NETWORK, HostSystem.OSRT,
             HostSystem.NUMA)


def supported_profiler_level():
    return set(_LEVELS)


def supported_ai_core_metrics():
    return set(_METRICS)


def supported_export_type():
    return {ExportType.Db, ExportType.Text}


# ACL_PROF_* switches (include/acl/acl_prof.h)
ACL_PROF_ACL_API = 0x0001
ACL_PROF_TASK_TIME = 0x0002
ACL_PROF_AICORE_METRICS = 0x0004
ACL_PROF_AICPU = 0x0008
ACL_PROF_L2CACHE = 0x0010
ACL_PROF_HCCL_TRACE = 0x0020
ACL_PROF_MSPROFTX = 0x0080
ACL_PROF_RUNTIME_API = 0x0100
ACL_PROF_TASK_TIME_L0 = 0x0800
ACL_PROF_TASK_MEMORY = 0x1000
ACL_PROF_OP_ATTR = 0x4000
ACL_PROF_AICORE_SHAPE = 0x800000000

# the switches of each level, as torch_npu's profiler_mgr.h sets them
_LEVEL_SWITCHES = {
    ProfilerLevel.Level_none: 0,
    ProfilerLevel.Level0: ACL_PROF_TASK_TIME_L0 | ACL_PROF_ACL_API,
    ProfilerLevel.Level1: (ACL_PROF_TASK_TIME | ACL_PROF_ACL_API | ACL_PROF_HCCL_TRACE
                           | ACL_PROF_AICORE_METRICS),
}
_LEVEL_SWITCHES[ProfilerLevel.Level2] = (_LEVEL_SWITCHES[ProfilerLevel.Level1] | ACL_PROF_RUNTIME_API
                                         | ACL_PROF_AICPU)


class _ExperimentalConfig:
    """torch_npu.profiler._ExperimentalConfig: the keyword arguments,
    defaults and checks of torch_npu's; the attributes as torch_npu names
    them (they are what profiler_info.json's experimental_config holds)."""

    def __init__(self, profiler_level=ProfilerLevel.Level0, aic_metrics=AiCMetrics.PipeUtilization,
                 l2_cache=False, msprof_tx=False, mstx=False, data_simplification=True,
                 record_op_args=False, op_attr=False, gc_detect_threshold=None,
                 export_type=ExportType.Text, host_sys=None, mstx_domain_include=None,
                 mstx_domain_exclude=None, sys_io=False, sys_interconnection=False):
        self._profiler_level = profiler_level
        self._aic_metrics = aic_metrics
        self._l2_cache = l2_cache
        self._msprof_tx = msprof_tx
        self._mstx = mstx
        self._data_simplification = data_simplification
        self.record_op_args = record_op_args
        self._export_type = self._export_type_list(export_type)
        self._host_sys = host_sys if host_sys else []
        self._op_attr = op_attr
        self._gc_detect_threshold = gc_detect_threshold
        self._mstx_domain_include = mstx_domain_include if mstx_domain_include else []
        self._mstx_domain_exclude = mstx_domain_exclude if mstx_domain_exclude else []
        self._sys_io = sys_io
        self._sys_interconnection = sys_interconnection
        self._check()
        self._check_mstx_domains()
        self._check_host_sys()

    # ---- torch_npu's properties ----
    @property
    def export_type(self):
        return self._export_type

    @property
    def with_gc(self):
        return self._gc_detect_threshold is not None

    @property
    def gc_detect_threshold(self):
        return self._gc_detect_threshold

    @property
    def tx_enabled(self):
        return self._msprof_tx or self._mstx

    def aclprof_switches(self, record_shapes=False, profile_memory=False):
        """The ACL_PROF_* bits of aclprofCreateConfig for this config, as
        torch_npu's ProfilerMgr::PrepareProfilerConfig composes them."""
        sw = _LEVEL_SWITCHES[self._profiler_level]
        if self._aic_metrics != AiCMetrics.AiCoreNone:
            sw |= ACL_PROF_AICORE_METRICS
        if self._l2_cache:
            sw |= ACL_PROF_L2CACHE
        if self.tx_enabled:
            sw |= ACL_PROF_MSPROFTX
        if profile_memory:
            sw |= ACL_PROF_TASK_MEMORY
        if self._op_attr:
            sw |= ACL_PROF_OP_ATTR
        if self._profiler_level == ProfilerLevel.Level0 and record_shapes:
            sw |= ACL_PROF_AICORE_SHAPE
        return sw

    def to_json(self):
        """What torch_npu writes for it in profiler_info.json (its attributes)."""
        return dict(vars(self))

    # ---- checks (torch_npu's order and messages) ----
    @staticmethod
    def _export_type_list(export_type):
        if not export_type:
            print_warn_msg("Invalid parameter export_type: %s, reset it to text." % (export_type,))
            return [ExportType.Text]
        if isinstance(export_type, str):
            return [export_type]
        if isinstance(export_type, list):
            try:
                return sorted(set(export_type))
            except Exception as e:  # unhashable or unorderable members
                print_warn_msg("Invalid parameter export_type: %s, reset it to text. Error is %s"
                               % (export_type, e))
                return [ExportType.Text]
        print_warn_msg("Invalid parameter export_type: %s, reset it to text." % (export_type,))
        return [ExportType.Text]

    def _bool_or(self, attr, name, default, suffix="reset it to False."):
        if not isinstance(getattr(self, attr), bool):
            print_warn_msg("Invalid parameter %s, which must be of bool type, %s" % (name, suffix))
            setattr(self, attr, default)

    def _check(self):
        if (self._profiler_level in (ProfilerLevel.Level0, ProfilerLevel.Level_none)
                and self._aic_metrics != AiCMetrics.AiCoreNone):
            print_warn_msg("Please use level1 or level2 if you want to collect aic metrics, "
                           "reset aic metrics to None!")
            self._aic_metrics = AiCMetrics.AiCoreNone
        self._bool_or("_l2_cache", "l2_cache", False)
        self._bool_or("_msprof_tx", "msprof_tx", False)
        if self._msprof_tx:
            warnings.warn("The parameter msprof_tx will be deprecated. "
                          "Please use the new parameter mstx instead.")
        self._bool_or("_mstx", "mstx", False)
        if self._profiler_level == ProfilerLevel.Level_none and not self._mstx and not self._msprof_tx:
            self._mstx = True
            print_warn_msg("Parameter mstx or msprof_tx must be True if profiler_level is set to "
                           "Level_none.")
        if self._data_simplification is not None and not isinstance(self._data_simplification, bool):
            print_warn_msg("Invalid parameter data_simplification, which must be of bool type, "
                           "reset it to default.")
            self._data_simplification = True
        self._bool_or("record_op_args", "record_op_args", False)
        if self._profiler_level not in _LEVELS:
            print_warn_msg("Invalid parameter profiler_level, reset it to ProfilerLevel.Level0.")
            self._profiler_level = ProfilerLevel.Level0
        if self._aic_metrics not in _METRICS:
            print_warn_msg("Invalid parameter aic_metrics, reset it to default.")
            self._aic_metrics = (AiCMetrics.AiCoreNone if self._profiler_level == ProfilerLevel.Level0
                                 else AiCMetrics.PipeUtilization)
        self._bool_or("_op_attr", "op_attr", False)
        if not all(t in (ExportType.Text, ExportType.Db) for t in self._export_type):
            print_warn_msg("Invalid parameter export_type, reset it to text.")
            self._export_type = [ExportType.Text]
        if self._op_attr and ExportType.Db not in self._export_type:
            print_warn_msg("op_attr switch is invalid with export type set as text.")
            self._op_attr = False
        g = self._gc_detect_threshold
        if g is not None:
            if isinstance(g, bool) or not isinstance(g, (int, float)):
                print_warn_msg("Parameter gc_detect_threshold is not int or float type, "
                               "reset it to default.")
                self._gc_detect_threshold = None
            elif g < 0.0:
                print_warn_msg("Parameter gc_detect_threshold can not be negative, reset it to default.")
                self._gc_detect_threshold = None
            elif g == 0.0:
                print_info_msg("Parameter gc_detect_threshold is set to 0, it will collect all gc events.")
        self._bool_or("_sys_io", "sys_io", False)
        self._bool_or("_sys_interconnection", "sys_interconnection", False)

    def _check_domain_list(self, attr, name):
        v = getattr(self, attr)
        if not v:
            return
        if not isinstance(v, list) or any(not isinstance(d, str) for d in v):
            what = "which must be of list type" if not isinstance(v, list) else \
                "which contents must be of str type"
            print_warn_msg("Invalid parameter %s, %s, reset it to default." % (name, what))
            setattr(self, attr, [])
        else:
            setattr(self, attr, sorted(set(v)))

    def _check_mstx_domains(self):
        if not self.tx_enabled:
            if self._mstx_domain_include or self._mstx_domain_exclude:
                print_warn_msg("mstx_domain_include and mstx_domain_exclude are valid when msprof_tx "
                               "or mstx is True.")
            self._mstx_domain_include = []
            self._mstx_domain_exclude = []
            return
        self._check_domain_list("_mstx_domain_include", "mstx_domain_include")
        self._check_domain_list("_mstx_domain_exclude", "mstx_domain_exclude")
        if self._mstx_domain_include and self._mstx_domain_exclude:
            print_warn_msg("Parameter mstx_domain_include and mstx_domain_exclude can not be both "
                           "set, only mstx_domain_include will work.")
            self._mstx_domain_exclude = []

    def _check_host_sys(self):
        if not isinstance(self._host_sys, list):
            print_warn_msg("Invalid parameter host_sys, which must be of list type, reset it to empty.")
            self._host_sys = []
        if not all(h in _HOST_SYS for h in self._host_sys):
            print_warn_msg("Invalid parameter host_sys, reset it to empty.")
            self._host_sys = []
        self._host_sys = sorted({str(h) for h in self._host_sys})
