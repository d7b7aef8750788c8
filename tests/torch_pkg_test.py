#!/usr/bin/python3
"""Host test of the npuprof.torch package (no VM, no device): run by
tests/torch_pkg_test.sh with PYTHONPATH=build/python.

  schedule       the step -> action function equals torch.profiler.schedule's
                 for every small (wait, warmup, active, repeat, skip_first);
                 bad arguments are refused
  cycles         repeat=2: two <worker>_<time>_ascend_pt directories, each
                 with one PROF_*, profiler_info.json, profiler_metadata.json,
                 on_trace_ready called once each, only the active steps'
                 ops and one ProfilerStep#<n> per active step recorded
  api            bad activities, metadata, NPUPROF_TORCH_MIRROR refused;
                 step() before start() refused; stop() twice harmless
  torch-profiler profile_memory while torch's profiler runs: refused with
                 a warning, torch's profiler unharmed; torch's profiler
                 does not start while ours records memory, and ours goes on
  handler-raises an on_trace_ready that raises: said, the loop goes on
  export         tensorboard_trace_handler runs `npuprof export --pytorch`
  env-session    (--env-session) under NPUPROF_OUTPUT_DIR (as `npuprof
                 record` runs a program): no directory of the profiler's
                 own; the records are in that session's host stream
Prints one line per check; exit status 1 on a failure.
"""
import contextlib
import glob
import io
import json
import os
import subprocess
import sys
import tempfile

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
                        ours = P.schedule(wait=wait, warmup=warmup, active=active, repeat=repeat,
                                          skip_first=skip)
                        theirs = tp.schedule(wait=wait, warmup=warmup, active=active,
                                             repeat=repeat, skip_first=skip)
                        for s in range(40):
                            if ours(s).name != theirs(s).name:
                                same = False
                                print("   differs at %s step %d: %s vs %s" % (
                                    (wait, warmup, active, repeat, skip), s, ours(s), theirs(s)))
    check(same, "schedule: every action as torch.profiler.schedule's (1080 schedules x 40 steps)")
    check(raises(ValueError, P.schedule, wait=0, warmup=0, active=0), "schedule: active=0 refused")
    check(raises(ValueError, P.schedule, wait=-1, warmup=0, active=1), "schedule: wait<0 refused")
    check(raises(ValueError, P.schedule, wait=0, warmup=0, active=1, repeat=1.5),
          "schedule: a non-integer refused")
    check(raises(TypeError, P.schedule, 1, 1, 1), "schedule: keyword-only, as torch's")


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
    for d, steps in zip(sorted(calls), active):
        b = os.path.basename(d)
        check(len(glob.glob(os.path.join(d, "PROF_*"))) == 1, "%s: one PROF_*" % b)
        info = json.load(open(os.path.join(d, "profiler_info.json")))
        check(info["rank_id"] == -1 and info["config"]["common_config"]["record_shapes"] is True,
              "%s: profiler_info.json" % b)
        check(json.load(open(os.path.join(d, "profiler_metadata.json"))) == {"k": "v", "j": {"a": [1, 2]}},
              "%s: profiler_metadata.json" % b)
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
    check(raises(ValueError, P.profile, activities=["CPU"]), "api: a string activity refused")
    p = P.profile()
    check(raises(TypeError, p.add_metadata, "k", 1), "api: add_metadata value must be str")
    check(raises(ValueError, p.add_metadata_json, "k", "{bad"), "api: add_metadata_json needs JSON")
    check(raises(RuntimeError, p.step), "api: step() before start()")
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
    check(raises(ValueError, P.tensorboard_trace_handler, out, worker_name="a/b"),
          "api: a worker_name with / refused")
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


def main():
    if "--env-session" in sys.argv:
        env_session(sys.argv[sys.argv.index("--env-session") + 1])
        return 1 if fails else 0
    tmp = tempfile.mkdtemp(prefix="torch_pkg_test.")
    try:
        t_schedule()
        t_cycles(os.path.join(tmp, "cycles"))
        t_handler_raises(os.path.join(tmp, "raises"))
        t_api(os.path.join(tmp, "api"))
        t_torch_profiler(os.path.join(tmp, "tp"))
        t_export(os.path.join(tmp, "export"))
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
