#!/usr/bin/python3
"""Host test of the npuprof.torch package (no VM, no device): run by
tests/torch_pkg_test.sh with PYTHONPATH=build/python.

  surface        every public name of torch_npu.profiler (its __init__.py
                 __all__) with torch_npu's signature, constants and
                 value sets (facts hard-coded here, from torch_npu's
                 profiler.py, experimental_config.py, scheduler.py,
                 dynamic_profile.py, analysis/prof_common_func/_constant.py)
  config         _ExperimentalConfig: each bad argument gives torch_npu's
                 [WARNING] line and its reset value; the aclprof switches
                 of each level are torch_npu's (profiler_mgr.h)
  level          a profiled loop with _ExperimentalConfig(export_type=[Db],
                 Level1, ...): profiler_info.json and the database's
                 META_DATA carry the config, the session the level's
                 switches; mstx and gc_detect_threshold decide the MSTX and
                 GC rows; Level_none forces mstx on
  exports        export_chrome_trace, export_stacks, export_memory_timeline
                 and _KinetoProfile's export-only directory
  dynamic        dynamic_profile: init creates profiler_config.json,
                 editing it starts warmup+active steps at start_step
  schedule       the step -> action function equals torch.profiler.schedule's
                 for every small (wait, warmup, active, repeat, skip_first);
                 bad arguments are reset with torch_npu's warnings
  cycles         repeat=2: two <worker>_<time>_ascend_pt directories, each
                 with one PROF_*, profiler_info.json, profiler_metadata.json,
                 on_trace_ready called once each, only the active steps'
                 ops and one ProfilerStep#<n> per active step recorded
  api            bad activities and metadata: torch_npu's warnings;
                 NPUPROF_TORCH_MIRROR refused; step() before start() said;
                 stop() twice harmless
  torch-profiler profile_memory while torch's profiler runs: refused with
                 a warning, torch's profiler unharmed; torch's profiler
                 does not start while ours records memory, and ours goes on
  handler-raises an on_trace_ready that raises: said, the loop goes on
  export         tensorboard_trace_handler runs `npuprof export --pytorch`
  hccl           the "hccl" backend (npuprof.sim.hccl) in a 2-rank DDP job
                 launched by `python3 -m npuprof.torchrun` (its Std.from_str
                 mended): RANK/LOCAL_RANK/WORLD_SIZE/MASTER_* set, every
                 collective of DDP's C++ reducer, initial broadcast and
                 parameter check reaches the backend (the all-reduces as
                 many as DDP's buckets say), the data moved over gloo
                 (reduce_scatter, _allgather_base, equal parameters); no
                 npusim here, so nothing is mirrored
  env-session    (--env-session) under NPUPROF_OUTPUT_DIR (as `npuprof
                 record` runs a program): no directory of the profiler's
                 own; the records are in that session's host stream
Prints one line per check; exit status 1 on a failure.
"""
import contextlib
import glob
import inspect
import io
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import warnings

import torch
import torch.profiler as tp

import npuprof.torch as P

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BUILD = os.environ.get("BUILD", "build")
DUMP = os.path.join(ROOT, BUILD, "tests", "vm", "fwk_dump")
fails = []


def check(cond, what):
    print("%s %s" % ("ok  " if cond else "FAIL", what))
    if not cond:
        fails.append(what)


def raises(exc, fn, *a, **kw):
    try:
        fn(*a, **kw)
    except exc:
        return True
    except Exception as e:  # the wrong kind
        print("   raised %r" % e)
        return False
    return False


def warned(fn, *a, **kw):
    """fn's result and what it printed (torch_npu's profiler messages go
    to stdout)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        r = fn(*a, **kw)
    return r, out.getvalue()


def said(text, level, message):
    """text has torch_npu's line "[date] [LEVEL] [pid] profiler.py: message"."""
    tail = "[%s] [%d] profiler.py: %s" % (level, os.getpid(), message)
    return any(line.endswith(tail) and line.startswith("[") for line in text.splitlines())


def records(path):
    p = subprocess.run([DUMP, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(p.returncode == 0, "fwk_dump %s %s" % (os.path.basename(path), p.stderr.strip()))
    return [json.loads(x) for x in p.stdout.splitlines() if '"k":"stats"' not in x]


def t_schedule():
    same = True
    for wait in range(3):
        for warmup in range(3):
            for active in range(1, 4):
                for repeat in range(3):
                    for skip in (0, 2):
                        ours, _ = warned(P.schedule, wait=wait, warmup=warmup, active=active,
                                         repeat=repeat, skip_first=skip)
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            theirs = tp.schedule(wait=wait, warmup=warmup, active=active,
                                                 repeat=repeat, skip_first=skip)
                        for s in range(40):
                            if ours(s).name != theirs(s).name:
                                same = False
                                print("   differs at %s step %d: %s vs %s" % (
                                    (wait, warmup, active, repeat, skip), s, ours(s), theirs(s)))
    check(same, "schedule: every action as torch.profiler.schedule's (1080 schedules x 40 steps)")
    # torch_npu's Schedule: a bad value is reset with a warning (scheduler.py)
    sc, text = warned(P.schedule, wait=0, warmup=0, active=0)
    check(sc.active == 1 and said(text, "WARNING", "Invalid parameter active, reset it to 1.") and
          said(text, "WARNING", "Profiler won't be using warmup, this can skew profiler results"),
          "schedule: active=0 reset to 1 with torch_npu's warnings")
    sc, text = warned(P.schedule, wait=-1, warmup=1, active=1)
    check(sc.wait == 0 and said(text, "WARNING", "Invalid parameter wait, reset it to 0."),
          "schedule: wait<0 reset to 0")
    sc, text = warned(P.schedule, wait=0, warmup=1, active=1, repeat=1.5)
    check(sc.repeat == 0 and said(text, "WARNING", "Invalid parameter repeat, reset it to 0."),
          "schedule: a non-integer repeat reset to 0")
    sc, _ = warned(P.schedule, 1, 2, 3)  # positional: wait, active, warmup
    check((sc.wait, sc.active, sc.warmup) == (1, 2, 3), "schedule: positional (wait, active, warmup)")
    sc, _ = warned(P.schedule, wait=2, active=1, warmup=1, skip_first=1, skip_first_wait=1)
    check([sc(i).name for i in range(5)] == ["NONE", "WARMUP", "RECORD_AND_SAVE", "NONE", "NONE"],
          "schedule: skip_first_wait leaves out the first wait")
    check(raises(ValueError, sc, -1), "schedule: a negative step refused")


def loop_ops(x, w):
    return torch.relu(x @ w).sum()


def t_handler_raises(out):
    """Issue 31 #11: an on_trace_ready that raises is said on stderr and the
    loop goes on: both cycles of repeat=2 run, the handler is called twice."""
    calls = []

    def ready(prof):
        calls.append(prof.ascend_pt_dir)
        raise ValueError("handler broke on purpose")
    ready.dir_name = out
    ready.worker_name = "r"
    x, w = torch.randn(4, 8), torch.randn(8, 3)
    err = io.StringIO()
    steps = 0
    with contextlib.redirect_stderr(err):
        with P.profile(schedule=P.schedule(wait=0, warmup=0, active=1, repeat=2),
                       on_trace_ready=ready) as prof:
            for _ in range(4):
                loop_ops(x, w)
                prof.step()
                steps += 1
    check(steps == 4 and len(calls) == 2 and len(prof.trace_ready_errors) == 2,
          "handler-raises: the loop went on, both cycles ran (%d steps, %d calls)" % (steps, len(calls)))
    check("on_trace_ready raised" in err.getvalue() and "handler broke on purpose" in err.getvalue(),
          "handler-raises: said on stderr with its traceback")


def t_cycles(out):
    calls = []
    handler = P.tensorboard_trace_handler(out, worker_name="w", analyse_flag=False)

    def ready(prof):
        calls.append(prof.ascend_pt_dir)
        handler(prof)
    ready.dir_name = handler.dir_name
    ready.worker_name = handler.worker_name
    x, w = torch.randn(4, 8), torch.randn(8, 3)
    sched = P.schedule(wait=1, warmup=1, active=2, repeat=2)
    with P.profile(schedule=sched, on_trace_ready=ready, record_shapes=True) as prof:
        prof.add_metadata("k", "v")
        prof.add_metadata_json("j", '{"a": [1, 2]}')
        for _ in range(10):
            loop_ops(x, w)
            prof.step()
    dirs = sorted(glob.glob(os.path.join(out, "w_*_ascend_pt")))
    check(len(dirs) == 2 and calls == prof.ascend_pt_dirs and sorted(calls) == dirs,
          "cycles: two ascend_pt dirs, on_trace_ready once each: %s" % [os.path.basename(d) for d in dirs])
    active = [[2, 3], [6, 7]]
    for n, (d, steps) in enumerate(zip(sorted(calls), active)):
        b = os.path.basename(d)
        check(len(glob.glob(os.path.join(d, "PROF_*"))) == 1, "%s: one PROF_*" % b)
        info = json.load(open(os.path.join(d, "profiler_info.json")))
        check(info["rank_id"] == -1 and info["config"]["common_config"]["record_shapes"] is True,
              "%s: profiler_info.json" % b)
        # torch_npu clears the metadata once written: the first collection has it
        md = json.load(open(os.path.join(d, "profiler_metadata.json")))
        user = {k: v for k, v in md.items() if k in ("k", "j")}
        check(user == ({"k": "v", "j": {"a": [1, 2]}} if n == 0 else {}) and
              len(md["trace_id"]) == 32 and set(md["ENV_VARIABLES"]) >= {"HCCL_ALGO", "ACLNN_CACHE_LIMIT"}
              and md["npuprof.experimental_config"]["_profiler_level"] == "Level0",
              "%s: profiler_metadata.json (user metadata only in the first, trace_id, ENV_VARIABLES)" % b)
        check(not glob.glob(os.path.join(d, ".tmp.*")), "%s: no temporary left" % b)
        recs = records(d)
        st = sorted((r for r in recs if r["name"].startswith("ProfilerStep#")), key=lambda r: r["start"])
        check([r["name"] for r in st] == ["ProfilerStep#%d" % s for s in steps],
              "%s: steps %s" % (b, [r["name"] for r in st]))
        ops = [r for r in recs if r["k"] == "op" and not r["name"].startswith("ProfilerStep#")]
        mm = [r for r in ops if r["name"] == "aten::matmul"]
        check(len(mm) == 2 and all(r["shapes"] == "[4, 8];\r\n[8, 3]" for r in mm),
              "%s: one aten::matmul per active step with its shapes (%d)" % (b, len(mm)))
        check(all(any(s["start"] <= r["start"] and r["end"] <= s["end"] for s in st) for r in ops),
              "%s: every op inside its step" % b)
    # the default schedule: everything between start and stop, one step
    before = set(glob.glob(os.path.join(out, "*_ascend_pt")))
    prof = P.profile(on_trace_ready=P.tensorboard_trace_handler(out, analyse_flag=False))
    prof.start()
    loop_ops(x, w)
    prof.stop()
    prof.stop()
    new = set(glob.glob(os.path.join(out, "*_ascend_pt"))) - before
    check(len(new) == 1 and os.path.basename(new.pop()).startswith(os.uname().nodename + "_%d_" % os.getpid()),
          "default: one collection, worker <hostname>_<pid>")


def t_api(out):
    p, text = warned(P.profile, activities=["CPU"])
    check(p.activities == P.supported_activities() and
          said(text, "WARNING", "Invalid activities, only CPU and NPU are supported, reset it to default."),
          "api: a string activity reset to the default with torch_npu's warning")
    p, text = warned(P.profile, record_shapes=1, schedule=5, on_trace_ready=7, use_cuda=True)
    check(p.record_shapes is False and p.schedule is P._default_schedule_fn and p.on_trace_ready is None
          and said(text, "WARNING", "Parameter record_shapes is of boolean type, reset it to False.")
          and said(text, "WARNING", "schedule is not Callable, set by default.")
          and said(text, "WARNING", "on_trace_ready is not Callable, set by default.")
          and said(text, "WARNING", "This is npu environment, use_cuda is invalid"),
          "api: non-bool, non-callable and use_cuda arguments: torch_npu's warnings")
    p, text = warned(P.profile, experimental_config={"profiler_level": "Level1"})
    check(isinstance(p.experimental_config, P._ExperimentalConfig) and
          said(text, "WARNING", "Parameter experimental_config is an instance of _ExperimentalConfig, "
               "reset it to default."), "api: a dict experimental_config reset to the default")
    check(raises(TypeError, P.profile, [P.ProfilerActivity.CPU]), "api: profile is keyword-only")
    p = P.profile()
    _, text = warned(p.add_metadata, "k", 1)
    check("k" not in p.metadata and
          said(text, "WARNING", "The key and value of metadata must be string. Skip this metadata."),
          "api: add_metadata value must be str (skipped, said)")
    _, text = warned(p.add_metadata_json, "k", "{bad")
    check("k" not in p.metadata and
          said(text, "WARNING", "The metadata value must be json format string. Skip this metadata"),
          "api: add_metadata_json needs JSON")
    _, text = warned(p.add_metadata, "k", "x" * 5000)
    check("k" not in p.metadata and said(text, "WARNING", "Invalid input key or value. Skip this metadata."),
          "api: add_metadata value over 4096 characters skipped")
    warned(p.add_metadata, "k", "1")
    _, text = warned(p.add_metadata, "k", "2")
    check(p.metadata["k"] == "2" and said(text, "WARNING", "k is already saved as metadata, override it."),
          "api: add_metadata overrides, said")
    _, text = warned(p.step)
    check(said(text, "WARNING", "Profiler is stopped, step takes no effect!"), "api: step() before start()")
    os.environ["NPUPROF_TORCH_MIRROR"] = "yes"
    check(raises(ValueError, P.profile(on_trace_ready=P.tensorboard_trace_handler(out, analyse_flag=False)).start),
          "api: NPUPROF_TORCH_MIRROR=yes refused")
    os.environ["NPUPROF_TORCH_MIRROR"] = "1"
    if not P._C.mirror_available():
        check(raises(RuntimeError, P.profile(on_trace_ready=P.tensorboard_trace_handler(out, analyse_flag=False)).start),
              "api: NPUPROF_TORCH_MIRROR=1 without the mirror refused")
    else:
        print("skip mirror-missing case: libnpuprof_mirror.so is built")
    del os.environ["NPUPROF_TORCH_MIRROR"]
    h, text = warned(P.tensorboard_trace_handler, out, worker_name="a/b")
    check(h.worker_name is None and said(text, "WARNING", "Invalid parameter worker_name, reset it to default."),
          "api: a worker_name with / reset to the default, said")
    P.mstx.mark("outside any profile")
    rid = P.mstx.range_start("outside")
    P.mstx.range_end(rid)
    check(True, "api: mstx outside a collection is harmless")


def t_torch_profiler(out):
    x, w = torch.randn(4, 8), torch.randn(8, 3)
    h = P.tensorboard_trace_handler(out, worker_name="tp", analyse_flag=False)
    # torch's profiler first, ours with memory: ours must not shadow it
    err = io.StringIO()
    with torch.autograd.profiler.profile(use_kineto=False, profile_memory=True) as tprof:
        with contextlib.redirect_stderr(err):
            p = P.profile(on_trace_ready=h, profile_memory=True)
            p.start()
        loop_ops(x, w)
        p.stop()
    names = [e.name for e in tprof.function_events]
    check("aten::matmul" in names and any(e.cpu_memory_usage for e in tprof.function_events),
          "torch-profiler: torch's profiler under ours still records ops and memory")
    check("memory is not recorded" in err.getvalue(), "torch-profiler: ours warns it records no memory")
    recs = records(p.ascend_pt_dir)
    check(not [r for r in recs if r["k"] == "mem"] and [r for r in recs if r.get("name") == "aten::matmul"],
          "torch-profiler: ours recorded ops, no memory")
    # ours first (memory on): torch's profiler refuses to start on this
    # thread (its own check: a profiler state is there), ours goes on
    p = P.profile(on_trace_ready=h, profile_memory=True)
    p.start()
    loop_ops(x, w)
    try:
        with torch.autograd.profiler.profile(use_kineto=False, profile_memory=True):
            pass
        refused = False
    except RuntimeError as e:
        refused = "already enabled" in str(e)
    check(refused, "torch-profiler: torch's profiler refuses to start above ours (memory on)")
    loop_ops(x, w)
    p.stop()
    recs = records(p.ascend_pt_dir)
    mem = [r for r in recs if r["k"] == "mem"]
    mm = [r for r in recs if r.get("name") == "aten::matmul"]
    check(len(mm) == 2 and len(mem) > 0, "torch-profiler: ours recorded both matmuls and memory (%d events)"
          % len(mem))
    with torch.autograd.profiler.profile(use_kineto=False) as tprof:
        loop_ops(x, w)
    check(any(e.name == "aten::matmul" for e in tprof.function_events),
          "torch-profiler: torch's profiler starts again after ours stopped")


# ---- torch_npu.profiler's public surface (facts of Ascend/pytorch master,
# 9e73e70: torch_npu/profiler/__init__.py __all__, profiler.py,
# experimental_config.py, scheduler.py, dynamic_profile.py,
# analysis/prof_common_func/_constant.py, csrc/profiler/profiler_mgr.h) ----
TORCH_NPU_ALL = ["profile", "ProfilerActivity", "supported_activities", "tensorboard_trace_handler",
                 "schedule", "ProfilerAction", "_ExperimentalConfig", "supported_profiler_level",
                 "supported_ai_core_metrics", "supported_export_type", "ProfilerLevel", "AiCMetrics",
                 "ExportType", "HostSystem"]
E = inspect.Parameter.empty
KW, PK = inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD
KINETO = [("activities", KW, None), ("record_shapes", KW, False), ("profile_memory", KW, False),
          ("with_stack", KW, False), ("with_flops", KW, False), ("with_modules", KW, False),
          ("experimental_config", KW, None)]
SIGNATURES = {
    "profile": [("activities", KW, None), ("schedule", KW, None), ("on_trace_ready", KW, None)]
    + KINETO[1:] + [("execution_trace_observer", KW, None), ("custom_trace_id_callback", KW, None),
                    ("use_cuda", KW, None)],
    "_KinetoProfile": KINETO + [("custom_trace_id_callback", KW, None)],
    "_ExperimentalConfig": [("profiler_level", PK, "Level0"),
                            ("aic_metrics", PK, "ACL_AICORE_PIPE_UTILIZATION"), ("l2_cache", PK, False),
                            ("msprof_tx", PK, False), ("mstx", PK, False),
                            ("data_simplification", PK, True), ("record_op_args", PK, False),
                            ("op_attr", PK, False), ("gc_detect_threshold", PK, None),
                            ("export_type", PK, "text"), ("host_sys", PK, None),
                            ("mstx_domain_include", PK, None), ("mstx_domain_exclude", PK, None),
                            ("sys_io", PK, False), ("sys_interconnection", PK, False)],
    "schedule": [("wait", PK, E), ("active", PK, E), ("warmup", PK, 0), ("repeat", PK, 0),
                 ("skip_first", PK, 0), ("skip_first_wait", PK, 0)],
    "tensorboard_trace_handler": [("dir_name", PK, None), ("worker_name", PK, None),
                                  ("analyse_flag", PK, True), ("async_mode", PK, False)],
    "supported_activities": [], "supported_profiler_level": [], "supported_ai_core_metrics": [],
    "supported_export_type": [],
}
METHODS = {
    "start": [], "stop": [], "export_chrome_trace": [("output_path", PK, E)],
    "add_metadata": [("key", PK, E), ("value", PK, E)],
    "add_metadata_json": [("key", PK, E), ("value", PK, E)],
    "export_stacks": [("output_path", PK, E), ("metric", PK, "self_cpu_time_total")],
    "export_memory_timeline": [("output_path", PK, E), ("device", PK, None)],
}
PROFILE_METHODS = {
    "step": [], "get_trace_id": [], "set_custom_trace_id_callback": [("callback", PK, E)],
    "enable_profiler_in_child_thread": [(n, PK, False) for n in ("record_shapes", "profile_memory",
                                                                  "with_stack", "with_flops",
                                                                  "with_modules")],
    "disable_profiler_in_child_thread": [],
}
DYNAMIC = {"init": [("path", PK, E)], "step": [], "start": [("config_path", PK, None)],
           "set_state": [("state_step", PK, E)]}
CONSTANTS = {
    "ProfilerLevel": {"Level0": "Level0", "Level1": "Level1", "Level2": "Level2",
                      "Level_none": "Level_none"},
    "AiCMetrics": {"PipeUtilization": "ACL_AICORE_PIPE_UTILIZATION",
                   "ArithmeticUtilization": "ACL_AICORE_ARITHMETIC_UTILIZATION",
                   "Memory": "ACL_AICORE_MEMORY_BANDWIDTH", "MemoryL0": "ACL_AICORE_L0B_AND_WIDTH",
                   "MemoryUB": "ACL_AICORE_MEMORY_UB",
                   "ResourceConflictRatio": "ACL_AICORE_RESOURCE_CONFLICT_RATIO",
                   "L2Cache": "ACL_AICORE_L2_CACHE", "MemoryAccess": "ACL_AICORE_MEMORY_ACCESS",
                   "AiCoreNone": "ACL_AICORE_NONE"},
    "ExportType": {"Db": "db", "Text": "text"},
    "HostSystem": {"CPU": "cpu", "MEM": "mem", "DISK": "disk", "NETWORK": "network", "OSRT": "osrt",
                   "NUMA": "numa"},
}
# profiler_mgr.h: Level_none 0; Level0 TASK_TIME_L0|ACL_API; Level1
# TASK_TIME|ACL_API|HCCL_TRACE|AICORE_METRICS; Level2 Level1|RUNTIME_API|AICPU
LEVEL_SWITCHES = {"Level_none": 0x0, "Level0": 0x0801, "Level1": 0x0027, "Level2": 0x012f}


def params(fn):
    return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()
            if p.name not in ("self", "cls")]


def t_surface():
    check(P.__all__ == TORCH_NPU_ALL and all(hasattr(P, n) for n in TORCH_NPU_ALL),
          "surface: __all__ is torch_npu.profiler's and every name exists")
    check(hasattr(P, "_KinetoProfile") and issubclass(P.profile, P._KinetoProfile),
          "surface: _KinetoProfile, profile's base")
    for name, want in SIGNATURES.items():
        got = params(getattr(P, name))
        check(got == want, "surface: %s%s" % (name, "" if got == want else " %s != %s" % (got, want)))
    for cls, table in ((P._KinetoProfile, METHODS), (P.profile, dict(METHODS, **PROFILE_METHODS))):
        for name, want in table.items():
            got = params(getattr(cls, name))
            check(got == want, "surface: %s.%s%s" % (cls.__name__, name,
                                                     "" if got == want else " %s != %s" % (got, want)))
    from npuprof.torch import dynamic_profile as dp
    check(dp.__all__ == ["init", "step", "start", "set_state"], "surface: dynamic_profile.__all__")
    for name, want in DYNAMIC.items():
        got = params(getattr(dp, name))
        check(got == want, "surface: dynamic_profile.%s%s" % (name, "" if got == want else " %s" % got))
    for cls, members in CONSTANTS.items():
        got = {k: v for k, v in vars(getattr(P, cls)).items() if not k.startswith("_")}
        check(got == members, "surface: %s values %s" % (cls, "" if got == members else got))
    check(P.supported_profiler_level() == set(CONSTANTS["ProfilerLevel"].values()) and
          P.supported_ai_core_metrics() == set(CONSTANTS["AiCMetrics"].values()) and
          P.supported_export_type() == {"db", "text"} and
          P.supported_activities() == {P.ProfilerActivity.CPU, P.ProfilerActivity.NPU},
          "surface: supported_* sets")
    check([a.name for a in P.ProfilerAction] == ["NONE", "WARMUP", "RECORD", "RECORD_AND_SAVE"] and
          str(P.ProfilerActivity.NPU) == "ProfilerActivity.NPU", "surface: ProfilerAction, ProfilerActivity")


def t_config():
    # the defaults: Level0 resets the default aic metrics (torch_npu warns too)
    c, text = warned(P._ExperimentalConfig)
    check(c.to_json() == {"_profiler_level": "Level0", "_aic_metrics": "ACL_AICORE_NONE",
                          "_l2_cache": False, "_msprof_tx": False, "_mstx": False,
                          "_data_simplification": True, "record_op_args": False,
                          "_export_type": ["text"], "_host_sys": [], "_op_attr": False,
                          "_gc_detect_threshold": None, "_mstx_domain_include": [],
                          "_mstx_domain_exclude": [], "_sys_io": False, "_sys_interconnection": False}
          and said(text, "WARNING", "Please use level1 or level2 if you want to collect aic metrics, "
                   "reset aic metrics to None!"), "config: defaults and attributes as torch_npu's")
    cases = [  # (kwargs, attribute, value after, message)
        (dict(profiler_level="Level9", aic_metrics=P.AiCMetrics.AiCoreNone), "_profiler_level", "Level0",
         "Invalid parameter profiler_level, reset it to ProfilerLevel.Level0."),
        (dict(profiler_level="Level1", aic_metrics="bogus"), "_aic_metrics", "ACL_AICORE_PIPE_UTILIZATION",
         "Invalid parameter aic_metrics, reset it to default."),
        (dict(l2_cache="yes"), "_l2_cache", False,
         "Invalid parameter l2_cache, which must be of bool type, reset it to False."),
        (dict(mstx=1), "_mstx", False, "Invalid parameter mstx, which must be of bool type, reset it to False."),
        (dict(data_simplification="no"), "_data_simplification", True,
         "Invalid parameter data_simplification, which must be of bool type, reset it to default."),
        (dict(record_op_args=None), "record_op_args", False,
         "Invalid parameter record_op_args, which must be of bool type, reset it to False."),
        (dict(export_type="csv"), "_export_type", ["text"], "Invalid parameter export_type, reset it to text."),
        (dict(export_type=[]), "_export_type", ["text"], "Invalid parameter export_type: [], reset it to text."),
        (dict(export_type=5), "_export_type", ["text"], "Invalid parameter export_type: 5, reset it to text."),
        (dict(op_attr=True), "_op_attr", False, "op_attr switch is invalid with export type set as text."),
        (dict(gc_detect_threshold="1"), "_gc_detect_threshold", None,
         "Parameter gc_detect_threshold is not int or float type, reset it to default."),
        (dict(gc_detect_threshold=-1), "_gc_detect_threshold", None,
         "Parameter gc_detect_threshold can not be negative, reset it to default."),
        (dict(profiler_level="Level_none"), "_mstx", True,
         "Parameter mstx or msprof_tx must be True if profiler_level is set to Level_none."),
        (dict(mstx_domain_include=["a"]), "_mstx_domain_include", [],
         "mstx_domain_include and mstx_domain_exclude are valid when msprof_tx or mstx is True."),
        (dict(mstx=True, mstx_domain_include=["a"], mstx_domain_exclude=["b"]), "_mstx_domain_exclude", [],
         "Parameter mstx_domain_include and mstx_domain_exclude can not be both set, only "
         "mstx_domain_include will work."),
        (dict(mstx=True, mstx_domain_include=[1]), "_mstx_domain_include", [],
         "Invalid parameter mstx_domain_include, which contents must be of str type, reset it to default."),
        (dict(host_sys="cpu"), "_host_sys", [],
         "Invalid parameter host_sys, which must be of list type, reset it to empty."),
        (dict(host_sys=["gpu"]), "_host_sys", [], "Invalid parameter host_sys, reset it to empty."),
        (dict(sys_io=0), "_sys_io", False, "Invalid parameter sys_io, which must be of bool type, reset it to False."),
        (dict(sys_interconnection="1"), "_sys_interconnection", False,
         "Invalid parameter sys_interconnection, which must be of bool type, reset it to False."),
    ]
    for kw, attr, after, msg in cases:
        c, text = warned(P._ExperimentalConfig, **kw)
        check(getattr(c, attr) == after and said(text, "WARNING", msg),
              "config: %s -> %s=%r, warned" % (kw, attr, after))
    c, text = warned(P._ExperimentalConfig, gc_detect_threshold=0)
    check(c.with_gc and said(text, "INFO", "Parameter gc_detect_threshold is set to 0, it will collect all "
                             "gc events."), "config: gc_detect_threshold=0 said (INFO)")
    c, _ = warned(P._ExperimentalConfig, export_type=["db", "text", "db"], host_sys=["cpu", "mem", "cpu"])
    check(sorted(c.export_type) == ["db", "text"] and sorted(c._host_sys) == ["cpu", "mem"],
          "config: export_type and host_sys lists deduplicated")
    os.environ["TORCH_NPU_WARNING_DISABLE"] = "1"
    _, text = warned(P._ExperimentalConfig, l2_cache="x")
    del os.environ["TORCH_NPU_WARNING_DISABLE"]
    check(text == "", "config: TORCH_NPU_WARNING_DISABLE=1 silences the warnings")
    for level, sw in LEVEL_SWITCHES.items():
        c, _ = warned(P._ExperimentalConfig, profiler_level=level, aic_metrics=P.AiCMetrics.AiCoreNone)
        tx = 0x80 if level == "Level_none" else 0  # Level_none turns mstx on
        check(c.aclprof_switches() == sw | tx, "config: %s switches 0x%x (torch_npu's)" % (level, sw | tx))
    c, _ = warned(P._ExperimentalConfig, profiler_level="Level1", l2_cache=True, mstx=True, op_attr=True,
                  export_type="db")
    check(c.aclprof_switches(profile_memory=True) == 0x0027 | 0x10 | 0x80 | 0x1000 | 0x4000,
          "config: l2_cache, mstx, profile_memory, op_attr add their switches")
    c, _ = warned(P._ExperimentalConfig, aic_metrics=P.AiCMetrics.AiCoreNone)
    check(c.aclprof_switches(record_shapes=True) == 0x0801 | 0x800000000,
          "config: Level0 with record_shapes adds ACL_PROF_AICORE_SHAPE")


def session_switches(d):
    f = glob.glob(os.path.join(d, "PROF_*", "npuprof.session"))
    for line in open(f[0]) if f else ():
        if line.startswith("switches="):
            return int(line.split("=", 1)[1], 16)
    return None


def t_level(out):
    """A loop profiled with _ExperimentalConfig(export_type=[Db], Level1, ...)."""
    import gc
    from npuprof.torch import mstx
    x, w = torch.randn(4, 8), torch.randn(8, 3)

    def loop(cfg, name):
        with P.profile(activities=[P.ProfilerActivity.CPU, P.ProfilerActivity.NPU],
                       schedule=P.schedule(wait=0, warmup=1, active=2, repeat=1),
                       on_trace_ready=P.tensorboard_trace_handler(out, worker_name=name),
                       experimental_config=cfg) as p:
            for _ in range(3):
                with mstx.range("fwd"):
                    loop_ops(x, w)
                gc.collect()
                p.step()
        d = p.ascend_pt_dir
        db = glob.glob(os.path.join(d, "ASCEND_PROFILER_OUTPUT", "ascend_pytorch_profiler*.db"))
        return p, d, (sqlite3.connect("file:%s?mode=ro" % db[0], uri=True) if db else None)

    cfg, _ = warned(P._ExperimentalConfig, export_type=[P.ExportType.Db], profiler_level=P.ProfilerLevel.Level1,
                    aic_metrics=P.AiCMetrics.PipeUtilization, l2_cache=False, data_simplification=False)
    p, d, db = loop(cfg, "l1")
    check(db is not None, "level: Level1 loop exported its database")
    if db is None:
        return
    info = json.load(open(os.path.join(d, "profiler_info.json")))
    check(info["config"]["experimental_config"] == cfg.to_json() and
          info["config"]["experimental_config"]["_profiler_level"] == "Level1" and
          info["config"]["experimental_config"]["_export_type"] == ["db"],
          "level: profiler_info.json experimental_config is the config's attributes")
    md = dict(db.execute("SELECT name, value FROM META_DATA"))
    ec = json.loads(md.get("npuprof.experimental_config", "{}"))
    check(ec.get("_profiler_level") == "Level1" and ec.get("_aic_metrics") == "ACL_AICORE_PIPE_UTILIZATION"
          and ec.get("_data_simplification") is False and ec.get("aclprof_switches") == "0x%x" % p.switches,
          "level: META_DATA npuprof.experimental_config carries the config (%s)" % ec.get("_profiler_level"))
    check(json.loads(md.get("trace_id", "null")) == p.get_trace_id() and "ENV_VARIABLES" in md,
          "level: META_DATA trace_id and ENV_VARIABLES, as torch_npu's")
    # host-only here (no npusim): Level1's switches plus msproftx for the host session
    sw = session_switches(d)
    check(p.switches == 0x27 | 0x80 and sw is not None and sw & 0xffff == (0x27 | 0x80 | 0x800 | 0x40),
          "level: the session's switches are Level1's (0x%x, session 0x%x)" % (p.switches, sw or 0))
    api = db.execute("SELECT count(*) FROM PYTORCH_API WHERE type = 50004").fetchone()[0]
    gcs = db.execute("SELECT count(*) FROM GC_RECORD").fetchone()[0] if \
        db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'GC_RECORD'").fetchone()[0] else 0
    ops = db.execute("SELECT count(*) FROM PYTORCH_API WHERE type = 50001").fetchone()[0]
    check(ops > 0 and api == 0 and gcs == 0,
          "level: mstx off, no gc_detect_threshold: ops %d, no mstx rows (%d), no GC_RECORD (%d)" % (ops, api, gcs))
    cfg, text = warned(P._ExperimentalConfig, export_type="db", profiler_level="Level_none",
                       gc_detect_threshold=0)
    p, d, db = loop(cfg, "none")
    check(db is not None, "level: Level_none loop exported")
    if db is None:
        return
    api = db.execute("SELECT count(*) FROM PYTORCH_API WHERE type = 50004").fetchone()[0]
    gcs = db.execute("SELECT count(*) FROM GC_RECORD").fetchone()[0]
    cann = db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'CANN_API'").fetchone()[0] and \
        db.execute("SELECT count(*) FROM CANN_API").fetchone()[0]
    check(p.switches == 0x80 and api == 2 and gcs >= 2 and not cann,
          "level: Level_none: only msproftx (0x%x), mstx rows %d, GC_RECORD %d (threshold 0), no CANN_API"
          % (p.switches, api, gcs))


def t_exports(out):
    x, w = torch.randn(4, 8), torch.randn(8, 3)
    with P.profile(on_trace_ready=P.tensorboard_trace_handler(out, worker_name="ex2", analyse_flag=False),
                   with_stack=True, record_shapes=True) as p:
        loop_ops(x, w)
    st = os.path.join(out, "stacks.txt")
    p.export_stacks(st)
    lines = open(st).read().splitlines() if os.path.exists(st) else []
    check(lines and all(l.rsplit(" ", 1)[1].isdigit() for l in lines) and
          any("t_exports" in l for l in lines), "exports: export_stacks writes 'frames value' lines (%d)" % len(lines))
    tr = os.path.join(out, "trace.json")
    p.export_chrome_trace(tr)
    check(os.path.exists(tr) and isinstance(json.load(open(tr)), (dict, list)),
          "exports: export_chrome_trace writes a JSON trace")
    _, text = warned(p.export_memory_timeline, os.path.join(out, "mem.json"))
    check(said(text, "WARNING", "profile_memory=True required for memory profiling."),
          "exports: export_memory_timeline says what it needs")
    p2 = P.profile(with_stack=False)
    _, text = warned(p2.export_stacks, st)
    check(said(text, "WARNING", "Function export_stacks() requires with_stack=True."),
          "exports: export_stacks without with_stack said")
    cwd = os.getcwd()
    os.chdir(out)
    try:
        k, _ = warned(P._KinetoProfile, activities=[P.ProfilerActivity.CPU])
        k.start()
        loop_ops(x, w)
        k.stop()
        d = k.ascend_pt_dir
        check(d is not None and os.path.dirname(d) == os.path.join(out, "export_only_prof_dir"),
              "exports: _KinetoProfile without a handler writes under export_only_prof_dir")
        del k
        check(d is not None and not os.path.exists(d), "exports: the export-only collection goes with the object")
    finally:
        os.chdir(cwd)


def t_dynamic(out):
    from npuprof.torch import dynamic_profile as dp
    _, text = warned(dp.init, os.path.join(out, "missing"))
    check(said(text, "ERROR", "The path '%s' is invalid, and profiler will not be enabled."
               % os.path.join(out, "missing")), "dynamic: init of a missing directory said")
    os.makedirs(out)
    _, text = warned(dp.init, out)
    cfgp = os.path.join(out, "profiler_config.json")
    cfg = json.load(open(cfgp)) if os.path.exists(cfgp) else {}
    check(cfg.get("active") == 1 and cfg.get("start_step") == 0 and
          cfg.get("experimental_config", {}).get("profiler_level") == "Level0",
          "dynamic: init created profiler_config.json with torch_npu's defaults")
    x, w = torch.randn(4, 8), torch.randn(8, 3)
    for _ in range(3):  # nothing armed: no collection
        loop_ops(x, w)
        dp.step()
    prof_dir = os.path.join(out, "prof")
    cfg.update(prof_dir=prof_dir, start_step=5, warmup=1, active=2, analyse=True,
               metadata={"job": "dyn"},
               experimental_config=dict(cfg["experimental_config"], profiler_level="Level1",
                                        export_type=["db"], mstx=True))
    time.sleep(0.01)
    with open(cfgp + ".tmp", "w") as f:
        json.dump(cfg, f)
    os.rename(cfgp + ".tmp", cfgp)
    text = ""
    for _ in range(10):
        loop_ops(x, w)
        _, t = warned(dp.step)
        text += t
    pts = glob.glob(os.path.join(prof_dir, "*_ascend_pt"))
    check(len(pts) == 1 and "Start Dynamic Profiler at 5 step." in text and
          "Stop Dynamic Profiler at 8 step." in text,
          "dynamic: the edited file started steps 5..8 (warmup 1 + active 2): %s" % [os.path.basename(p) for p in pts])
    if len(pts) != 1:
        return
    recs = records(pts[0])
    st = sorted(r["name"] for r in recs if r.get("name", "").startswith("ProfilerStep#"))
    check(st == ["ProfilerStep#6", "ProfilerStep#7"], "dynamic: the active steps recorded %s" % st)
    md = json.load(open(os.path.join(pts[0], "profiler_metadata.json")))
    info = json.load(open(os.path.join(pts[0], "profiler_info.json")))
    check(md.get("job") == "dyn" and info["config"]["experimental_config"]["_profiler_level"] == "Level1",
          "dynamic: the file's metadata and experimental_config")
    check(glob.glob(os.path.join(pts[0], "ASCEND_PROFILER_OUTPUT", "ascend_pytorch_profiler*.db")),
          "dynamic: analyse=true exported the database")
    # a start_step already passed: not effective, said
    cfg["start_step"] = 2
    time.sleep(0.01)
    with open(cfgp + ".tmp", "w") as f:
        json.dump(cfg, f)
    os.rename(cfgp + ".tmp", cfgp)
    _, text = warned(dp.step)
    check(said(text, "WARNING", "Dynamic Profiler config is not effective. The start_step=2, current_step=14"),
          "dynamic: a start_step already passed is not effective, said")


def t_export(out):
    x, w = torch.randn(4, 8), torch.randn(8, 3)
    with P.profile(on_trace_ready=P.tensorboard_trace_handler(out, worker_name="ex")) as p:
        loop_ops(x, w)
    dbs = glob.glob(os.path.join(p.ascend_pt_dir, "**", "ascend_pytorch_profiler*.db"), recursive=True)
    check(len(dbs) == 1, "export: the handler ran npuprof export --pytorch: %s" % dbs)


def env_session(out):
    """Run in a child whose NPUPROF_OUTPUT_DIR was set before libmsprofiler
    loaded."""
    x, w = torch.randn(4, 8), torch.randn(8, 3)
    with P.profile(schedule=P.schedule(wait=0, warmup=0, active=2, repeat=1),
                   on_trace_ready=P.tensorboard_trace_handler(out)) as p:
        for _ in range(3):
            loop_ops(x, w)
            p.step()
    check(p.ascend_pt_dirs == [] and not glob.glob(os.path.join(out, "*_ascend_pt")),
          "env-session: no directory of the profiler's own")


def hccl_rank():
    """One rank of t_hccl (under npuprof.torchrun)."""
    import torch.distributed as dist
    from npuprof.sim.hccl import ProcessGroupHCCL
    env = {k: os.environ.get(k) for k in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR",
                                          "MASTER_PORT")}
    check(None not in env.values() and env["WORLD_SIZE"] == "2",
          "hccl: the launcher's environment %s" % env)
    dist.init_process_group(backend="hccl")
    rank = dist.get_rank()
    pg = dist.distributed_c10d._get_default_group()
    check(isinstance(pg, ProcessGroupHCCL) and dist.get_backend() == "hccl" and not pg.mirrored,
          "hccl: init_process_group(backend='hccl') gives npuprof's process group (%r, %s)"
          % (pg, dist.get_backend()))
    torch.manual_seed(3)
    net = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64),
                              torch.nn.Linear(64, 4))
    before = dict(pg.counts)
    # DDP's documented knob: its first bucket (1 MiB by default) small too
    dist._DEFAULT_FIRST_BUCKET_BYTES = 8192
    ddp = torch.nn.parallel.DistributedDataParallel(net, bucket_cap_mb=0.01)
    init = {k: pg.counts.get(k, 0) - before.get(k, 0) for k in ("allgather", "broadcast")}
    check(init["allgather"] >= 1 and init["broadcast"] >= 1,
          "hccl: DDP's parameter check and initial broadcast (from C++) reach the backend %s"
          % init)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    torch.manual_seed(10 + rank)
    n0 = pg.counts.get("allreduce", 0)
    steps = 3
    for _ in range(steps):
        loss = torch.nn.functional.mse_loss(ddp(torch.randn(8, 16)), torch.randn(8, 4))
        opt.zero_grad()
        loss.backward()
        opt.step()
    ld = ddp._get_ddp_logging_data()
    first = len(str(ld["bucket_sizes"]).split(","))
    later = len(str(ld["rebuilt_bucket_sizes"]).split(","))
    got = pg.counts.get("allreduce", 0) - n0
    check(later >= 2 and got == first + later * (steps - 1),
          "hccl: DDP's reducer's bucket all-reduces reach the backend: %d, DDP's buckets "
          "%d + %d x %d" % (got, first, later, steps - 1))
    flat = torch.cat([p.detach().reshape(-1) for p in ddp.parameters()])
    every = [torch.empty_like(flat) for _ in range(2)]
    dist.all_gather(every, flat)
    check(torch.equal(every[0], every[1]), "hccl: the ranks' parameters are equal after DDP")
    out = torch.zeros(2)
    dist.reduce_scatter(out, [torch.arange(2.0) + rank, torch.arange(2.0) + 2 + rank])
    want = torch.tensor([1.0, 3.0]) if rank == 0 else torch.tensor([5.0, 7.0])
    check(torch.equal(out, want), "hccl: reduce_scatter (gloo has none) %s" % out.tolist())
    out = torch.zeros(4)
    dist._all_gather_base(out, torch.full((2,), float(rank)))
    check(out.tolist() == [0.0, 0.0, 1.0, 1.0], "hccl: _allgather_base %s" % out.tolist())
    dist.barrier()
    check(pg.counts.get("barrier") == 1 and pg.unmirrored == sum(pg.counts.values()),
          "hccl: without npusim every collective ran on gloo only (%s, %d unmirrored)"
          % (pg.counts, pg.unmirrored))
    dist.destroy_process_group()


def t_hccl(out):
    import socket
    import torch.distributed as dist
    from npuprof.sim import hccl
    from torch.distributed.elastic.multiprocessing.api import Std
    check(hasattr(dist.Backend, "HCCL") and "HCCL" in dist.Backend._plugins and
          not hccl.register(), "hccl: importing npuprof.torch registered the backend once")
    with socket.socket() as sk:
        sk.bind(("127.0.0.1", 0))
        port = sk.getsockname()[1]
    args = ["--nproc_per_node", "2", "--master_addr", "127.0.0.1", "--master_port", str(port),
            __file__, "--hccl-rank"]
    env = dict(os.environ, GLOO_SOCKET_IFNAME="lo")
    if Std.from_str("0") is not Std.NONE:
        # the reason for npuprof.torchrun: torch's own stops before any worker
        p = subprocess.run([sys.executable, "-m", "torch.distributed.run"] + args,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=300, env=env)
        check(p.returncode != 0 and "to_map" in p.stdout and "hccl:" not in p.stdout,
              "hccl: python3 -m torch.distributed.run fails in to_map on this Python")
    p = subprocess.run([sys.executable, "-m", "npuprof.torchrun"] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=300, env=env)
    # the ranks' lines may interleave
    oks, bad = p.stdout.count("ok   hccl:"), p.stdout.count("FAIL hccl:")
    check(p.returncode == 0 and oks == 16 and not bad,
          "hccl: both ranks passed (exit %d; %d checks passed, %d failed)"
          % (p.returncode, oks, bad))
    if p.returncode or bad:
        sys.stdout.write(p.stdout[-3000:])


def main():
    if "--hccl-rank" in sys.argv:
        hccl_rank()
        return 1 if fails else 0
    if "--env-session" in sys.argv:
        env_session(sys.argv[sys.argv.index("--env-session") + 1])
        return 1 if fails else 0
    tmp = tempfile.mkdtemp(prefix="torch_pkg_test.")
    try:
        t_surface()
        t_config()
        t_schedule()
        t_level(os.path.join(tmp, "level"))
        t_exports(os.path.join(tmp, "exports"))
        t_dynamic(os.path.join(tmp, "dynamic"))
        t_cycles(os.path.join(tmp, "cycles"))
        t_handler_raises(os.path.join(tmp, "raises"))
        t_api(os.path.join(tmp, "api"))
        t_torch_profiler(os.path.join(tmp, "tp"))
        t_export(os.path.join(tmp, "export"))
        t_hccl(os.path.join(tmp, "hccl"))
        sess = os.path.join(tmp, "PROF_000001_env")
        env = dict(os.environ, NPUPROF_OUTPUT_DIR=sess)
        p = subprocess.run([sys.executable, __file__, "--env-session", os.path.join(tmp, "env")],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        sys.stdout.write(p.stdout)
        check(p.returncode == 0, "env-session: child passed")
        recs = records(sess)
        st = [r["name"] for r in recs if r.get("name", "").startswith("ProfilerStep#")]
        check(sorted(st) == ["ProfilerStep#0", "ProfilerStep#1"] and
              sum(r.get("name") == "aten::matmul" for r in recs) == 2,
              "env-session: the active steps' records in NPUPROF_OUTPUT_DIR's stream (%s)" % st)
    finally:
        subprocess.run(["rm", "-rf", tmp])
    print("torch_pkg_test: %d failures" % len(fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
