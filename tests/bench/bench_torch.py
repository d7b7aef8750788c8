#!/usr/bin/python3
"""bench_torch: what npuprof.torch costs a PyTorch program (`make bench`;
python.mk copies it to build/tests/bench/bench_torch).

  dispatch   ns per at::add_out of two 1-element tensors, called from C++
             (_C.bench_ops, no Python in the loop): with no callback; with
             an empty global RecordFunction callback (torch's own cost of
             observing an op); with npuprof.torch recording (a host-only
             collection). The recording's added ns/op and its ratio to the
             empty callback's added cost, with and without record_shapes.
  step       a small training step (MLP 64-256-10, batch 32, SGD) with
             profiling on (every step active, record_shapes) / off.

Each value is the minimum of REPS runs (BENCH_TORCH_REPS, default 7): on
a loaded host other processes only add time.
Prints RESULT lines (scripts/bench-measures.tsv).
"""
import os
import sys
import tempfile
import time

import torch
import torch.nn as nn

import npuprof.torch as P

REPS = int(os.environ.get("BENCH_TORCH_REPS", "7"))
N_OPS = int(os.environ.get("BENCH_TORCH_OPS", "200000"))
N_STEPS = int(os.environ.get("BENCH_TORCH_STEPS", "40"))


def result(name, value, op, target):
    print("RESULT\t%s\t%.3f\t%s\t%s" % (name, value, op, target))


def dispatch(tmp, shapes):
    """REPS rounds, each measuring the three back to back; the minimum of
    each (a loaded host only adds time)."""
    base, empty, rec = [], [], []
    for _ in range(REPS):
        base.append(P._C.bench_ops(N_OPS, 0, False))
        empty.append(P._C.bench_ops(N_OPS, 1, shapes))
        prof = P.profile(activities=[P.ProfilerActivity.CPU], record_shapes=shapes,
                         on_trace_ready=P.tensorboard_trace_handler(tmp, analyse_flag=False))
        prof.start()
        rec.append(P._C.bench_ops(N_OPS, 0, False))
        prof.stop()
    # the least disturbed run of each (other processes only add time)
    b, e, r = min(base), min(empty), min(rec)
    return b, e, r, r - b, e - b


def step_loop(prof):
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = torch.optim.SGD(m.parameters(), lr=0.01)
    x, y = torch.randn(32, 64), torch.randint(0, 10, (32,))
    lossf = nn.CrossEntropyLoss()

    def one():
        opt.zero_grad()
        lossf(m(x), y).backward()
        opt.step()

    for _ in range(5):
        one()
    if prof:
        prof.start()
    t0 = time.perf_counter()
    for _ in range(N_STEPS):
        one()
        if prof:
            prof.step()
    t = (time.perf_counter() - t0) / N_STEPS
    if prof:
        prof.stop()
    return t


def main():
    torch.set_num_threads(1)
    tmp = tempfile.mkdtemp(prefix="bench_torch.")
    try:
        for shapes in (False, True):
            base, empty, rec, added, cb = dispatch(tmp, shapes)
            tag = "with shapes" if shapes else "no shapes"
            print("dispatch (%s): %.1f ns/op bare, %.1f with an empty callback (+%.1f), "
                  "%.1f recording (+%.1f)" % (tag, base, empty, cb, rec, added))
            if not shapes:
                result("torch op recording added ns/op", added, "<=", 500)
                result("torch op recording added / empty RecordFunction callback",
                       added / cb if cb > 0 else float("inf"), "<=", 4)
            else:
                result("torch op recording with shapes added ns/op", added, "<=", 1000)
        off = min(step_loop(None) for _ in range(REPS))
        on = min(
            step_loop(P.profile(activities=[P.ProfilerActivity.CPU], record_shapes=True,
                                schedule=P.schedule(wait=0, warmup=0, active=N_STEPS + 1, repeat=1),
                                on_trace_ready=P.tensorboard_trace_handler(tmp, analyse_flag=False)))
            for _ in range(REPS))
        print("training step: %.1f us off, %.1f us profiling on" % (off * 1e6, on * 1e6))
        result("torch training step profiling on / off", on / off, "<=", 1.3)
    finally:
        os.system("rm -rf '%s'" % tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
