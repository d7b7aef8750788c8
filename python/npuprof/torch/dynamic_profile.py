"""npuprof.torch.dynamic_profile: torch_npu.profiler.dynamic_profile,
profiling started from a JSON file while the job runs::

    from npuprof.torch import dynamic_profile as dp
    dp.init("./prof_cfg")       # creates ./prof_cfg/profiler_config.json
    for batch in data:
        train_step(batch)
        dp.step()

Editing <path>/profiler_config.json (its modification time changes)
arms a collection with its keys, torch_npu's: activities (["CPU",
"NPU"]), prof_dir ("./"), analyse (false: leave the collection raw; true:
npuprof export --pytorch), async_mode, record_shapes, profile_memory,
with_stack, with_flops, with_modules, active (1), warmup (0), start_step
(0; -1: at the next step; a step already passed: not effective, said),
is_rank and rank_list (only those ranks profile), metadata (each key an
add_metadata_json) and experimental_config (profiler_level, aic_metrics,
l2_cache, op_attr, gc_detect_threshold, data_simplification,
record_op_args, export_type, msprof_tx, mstx, host_sys,
mstx_domain_include, mstx_domain_exclude, sys_io, sys_interconnection;
names of ProfilerLevel/AiCMetrics members). The collection covers warmup
+ active steps from start_step. start(config_path) starts one at once;
set_state({"cur_step": n}) sets the step counter.

torch_npu polls the file from a monitor process over shared memory; here
step() looks at the file's modification time itself (one stat per step),
which is the same contract for the job. The dynolog mode
(NPU_MONITOR_START) is not available.
"""
import atexit
import json
import os

from .analysis import tensorboard_trace_handler
from .profiler import ProfilerActivity, profile
from .scheduler import schedule
from .experimental_config import (AiCMetrics, ProfilerLevel, _ExperimentalConfig, print_error_msg,
                                  print_info_msg, print_warn_msg)

__all__ = ["init", "step", "start", "set_state"]

CONFIG_FILE = "profiler_config.json"

# the file init() creates (torch_npu's defaults)
DEFAULT_CONFIG = {
    "activities": ["CPU", "NPU"],
    "prof_dir": "./",
    "analyse": False,
    "async_mode": False,
    "record_shapes": False,
    "profile_memory": False,
    "with_stack": False,
    "with_flops": False,
    "with_modules": False,
    "active": 1,
    "warmup": 0,
    "start_step": 0,
    "is_rank": False,
    "rank_list": [],
    "experimental_config": {
        "profiler_level": "Level0",
        "aic_metrics": "AiCoreNone",
        "l2_cache": False,
        "op_attr": False,
        "gc_detect_threshold": None,
        "data_simplification": True,
        "record_op_args": False,
        "export_type": ["text"],
        "msprof_tx": False,
        "mstx": False,
        "host_sys": [],
        "mstx_domain_include": [],
        "mstx_domain_exclude": [],
        "sys_io": False,
        "sys_interconnection": False,
    },
}


def _rank():
    try:
        import torch.distributed as dist
        if dist.is_available() and dist.is_initialized():
            return dist.get_rank()
    except Exception:
        pass
    r = os.environ.get("RANK")
    return int(r) if r is not None and r.lstrip("-").isdigit() else -1


class _Config:
    """One profiler_config.json, parsed as torch_npu's ConfigContext does."""

    def __init__(self, data):
        self.activities = []
        for a in data.get("activities") or []:
            act = getattr(ProfilerActivity, str(a).upper(), None)
            if act is None:
                print_warn_msg("Set activity failed, activity must be CPU OR NPU!")
            elif act not in self.activities:
                self.activities.append(act)
        self.prof_dir = data.get("prof_dir", "./")
        self.meta_data = data.get("metadata", {})
        if not isinstance(self.meta_data, dict):
            self.meta_data = {}
        self.analyse = data.get("analyse", False) is True
        self.async_mode = data.get("async_mode", False) is True
        if not self.analyse and self.async_mode:
            print_warn_msg("When analyse is False, async_mode will not take effect!")
        self.record_shapes = data.get("record_shapes", False)
        self.profile_memory = data.get("profile_memory", False)
        self.with_stack = data.get("with_stack", False)
        self.with_flops = data.get("with_flops", False)
        self.with_modules = data.get("with_modules", False)
        self.active = data.get("active", 1)
        if isinstance(self.active, bool) or not isinstance(self.active, int) or self.active <= 0:
            print_warn_msg("Invalid parameter active, reset it to 1.")
            self.active = 1
        self.warmup = data.get("warmup", 0)
        if isinstance(self.warmup, bool) or not isinstance(self.warmup, int) or self.warmup < 0:
            print_warn_msg("Invalid parameter warmup, reset it to 0.")
            self.warmup = 0
        self.start_step = data.get("start_step", 0)
        if isinstance(self.start_step, bool) or not isinstance(self.start_step, int) or \
                self.start_step < -1:
            print_info_msg("Start step is not valid, will be reset to 0.")
            self.start_step = 0
        self.experimental_config = self._exp(data.get("experimental_config"))
        self.is_rank = data.get("is_rank", False)
        self.ranks = set()
        if not isinstance(self.is_rank, bool):
            print_warn_msg("Set is_rank failed, is_rank must be bool!")
            self.is_rank = False
        if self.is_rank:
            ranks = data.get("rank_list", [])
            if not isinstance(ranks, list):
                print_warn_msg("Set rank_list failed, rank_list must be list!")
            else:
                self.ranks = {r for r in ranks if isinstance(r, int) and not isinstance(r, bool)
                              and r >= 0}

    @staticmethod
    def _exp(e):
        if not e:
            return None
        return _ExperimentalConfig(
            profiler_level=getattr(ProfilerLevel, str(e.get("profiler_level", "Level0")),
                                   e.get("profiler_level", "Level0")),
            aic_metrics=getattr(AiCMetrics, str(e.get("aic_metrics", "AiCoreNone")),
                                e.get("aic_metrics", "AiCoreNone")),
            l2_cache=e.get("l2_cache", False), op_attr=e.get("op_attr", False),
            gc_detect_threshold=e.get("gc_detect_threshold", None),
            data_simplification=e.get("data_simplification", True),
            record_op_args=e.get("record_op_args", False), export_type=e.get("export_type", "text"),
            msprof_tx=e.get("msprof_tx", False), mstx=e.get("mstx", False),
            mstx_domain_include=e.get("mstx_domain_include", None),
            mstx_domain_exclude=e.get("mstx_domain_exclude", None), host_sys=e.get("host_sys", None),
            sys_io=e.get("sys_io", False), sys_interconnection=e.get("sys_interconnection", False))

    def valid(self):
        if not self.is_rank:
            return True
        r = _rank()
        if r in self.ranks:
            if not self.async_mode:
                self.analyse = False
            return True
        print_warn_msg("Rank %d not in valid rank_list %s!" % (r, sorted(self.ranks)))
        return False


class _Dynamic:
    def __init__(self):
        self.path = None
        self.cfg_path = None
        self.mtime = None
        self.prof = None
        self.cfg = None
        self.cur_step = 0
        self.step_num = 0
        self.inited = False

    def init(self, path):
        if self.inited:
            print_warn_msg("Init dynamic profiling repeatedly")
            return
        if not isinstance(path, str) or not path or not os.path.isdir(path) or os.path.islink(path):
            print_error_msg("The path '%s' is invalid, and profiler will not be enabled." % (path,))
            return
        self.path = os.path.abspath(path)
        self.cfg_path = os.path.join(self.path, CONFIG_FILE)
        if not os.path.exists(self.cfg_path):
            tmp = self.cfg_path + ".tmp"
            with open(tmp, "w") as f:
                json.dump(DEFAULT_CONFIG, f, indent=4)
            os.rename(tmp, self.cfg_path)
            print_info_msg("Create profiler_config.json default.")
        self.mtime = self._mtime()
        self.inited = True
        atexit.register(self._at_exit)

    def _mtime(self):
        try:
            return os.stat(self.cfg_path).st_mtime_ns
        except OSError:
            return None

    def _at_exit(self):
        if self.prof is not None:
            self.prof.stop()
            self.prof = None
            print_warn_msg("Profiler stop when process exit, check cfg json active whether over all step!")

    def _poll(self):
        """A config when the file changed since it was last read."""
        if not self.inited:
            return None
        m = self._mtime()
        if m is None or m == self.mtime:
            return None
        self.mtime = m
        try:
            with open(self.cfg_path) as f:
                data = json.load(f)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError) as e:
            print_error_msg("Dynamic profiler process load json failed, %s has occur!" % e)
            return None
        print_info_msg("Dynamic profiler process load json success")
        c = _Config(data)
        return c if c.valid() else None

    def step(self):
        self.cur_step += 1
        c = self._poll()
        if c is not None:
            self.cfg = c
        if self.prof is not None:
            self.prof.step()
            self.step_num -= 1
            if self.step_num == 0:
                self.prof.stop()
                self.prof = None
                print_info_msg("Stop Dynamic Profiler at %d step." % self.cur_step)
        elif self.cfg is not None:
            c = self.cfg
            if self.cur_step > c.start_step and c.start_step != -1:
                print_warn_msg("Dynamic Profiler config is not effective. The start_step=%d, "
                               "current_step=%d" % (c.start_step, self.cur_step))
                self.cfg = None
            elif self.cur_step == c.start_step or c.start_step == -1:
                self._enable(c)
                self.cfg = None

    def start(self, config_path=None):
        if self.prof is not None:
            print_error_msg("Profiler already started. Cannot call start interface while the "
                            "profiler is active. ")
            return
        path = config_path if config_path else self.cfg_path
        if not path or not os.path.isfile(path):
            print_error_msg("The provided config_path is invalid: %s." % (path,))
            return
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, ValueError):
            print_error_msg("Failed to read config from : %s. Please check the config file. " % path)
            return
        if not data:
            print_error_msg("The config data is empty from: %s. Please check the config file. " % path)
            return
        self._enable(_Config(data))

    def set_state(self, state):
        if not isinstance(state, dict):
            print_error_msg("Dynamic profiler state_step must be dict.")
            return
        cur = state.get("cur_step", 0)
        if isinstance(cur, bool) or not isinstance(cur, int) or cur < 0:
            print_error_msg("Dynamic profiler cur_step must be a non-negative integer.")
            return
        self.cur_step = cur

    def _enable(self, c):
        self.step_num = c.active + c.warmup
        self.prof = profile(
            activities=c.activities,
            schedule=schedule(wait=0, warmup=c.warmup, active=c.active, repeat=1, skip_first=0),
            on_trace_ready=tensorboard_trace_handler(c.prof_dir, analyse_flag=c.analyse,
                                                     async_mode=c.async_mode),
            record_shapes=c.record_shapes, profile_memory=c.profile_memory,
            with_stack=c.with_stack, with_flops=c.with_flops, with_modules=c.with_modules,
            experimental_config=c.experimental_config)
        self.prof._set_step_num_offset_for_dynamic_prof(self.cur_step)
        self.prof.start()
        for k, v in c.meta_data.items():
            self.prof.add_metadata_json(str(k), json.dumps(v))
        print_info_msg("Start Dynamic Profiler at %d step." % self.cur_step)


_dyn = _Dynamic()


def _guard(fn):
    def inner(*a, **kw):
        try:
            return fn(*a, **kw)
        except Exception as e:  # torch_npu's no_exception_func
            print_error_msg("Call %s failed. Exception: %s" % (fn.__name__, e))
            return None
    inner.__name__ = fn.__name__
    inner.__doc__ = fn.__doc__
    inner.__wrapped__ = fn
    return inner


@_guard
def init(path):
    """Watch <path>/profiler_config.json (created with the defaults)."""
    _dyn.init(path)


@_guard
def step():
    """One training step ended: start or advance a collection."""
    _dyn.step()


@_guard
def start(config_path=None):
    """Start a collection now with config_path's (else the watched) config."""
    _dyn.start(config_path)


@_guard
def set_state(state_step):
    """{"cur_step": n}: the step counter."""
    _dyn.set_state(state_step)
