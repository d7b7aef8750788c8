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
  ddp step   the same step under DistributedDataParallel, 2 ranks on the
             "hccl" backend (npuprof.sim.hccl; on this host without npusim
             its collectives run on gloo only), rank 1 a child process of
             this one (--ddp-rank), both profiling the same steps.

Each value is the minimum of REPS runs (BENCH_TORCH_REPS, default 7): on
a loaded host other processes only add time. The runs are interleaved (a
round measures off, then on), and each RESULT line ends with the spread of
the measure over the rounds (min..max of each round's own value), so
scripts/bench-table.sh can say when a verdict is within noise.
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


def result(name, value, op, target, rounds):
    """A RESULT line with the spread of the per-round values."""
    if rounds:
        print("RESULT\t%s\t%.3f\t%s\t%s\t%.3f\t%.3f"
              % (name, value, op, target, min(rounds), max(rounds)))
    else:
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
    added = [y - x for x, y in zip(base, rec)]
    # a round whose empty callback cost nothing says nothing of the ratio
    ratio = [(y - x) / (z - x) for x, y, z in zip(base, rec, empty) if z > x]
    return b, e, r, r - b, e - b, added, ratio


def step_loop(prof, wrap=None):
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10))
    if wrap:
        m = wrap(m)
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


def profiled(tmp):
    return P.profile(activities=[P.ProfilerActivity.CPU], record_shapes=True,
                     schedule=P.schedule(wait=0, warmup=0, active=N_STEPS + 1, repeat=1),
                     on_trace_ready=P.tensorboard_trace_handler(tmp, analyse_flag=False))


def ddp_steps(rank, port, tmp):
    """(off, on) seconds per DDP step on this rank; both ranks run it."""
    import torch.distributed as dist
    dist.init_process_group("hccl", init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                            world_size=2)

    def wrap(m):
        return nn.parallel.DistributedDataParallel(m)
    off, on = [], []
    for _ in range(REPS):
        off.append(step_loop(None, wrap))
        on.append(step_loop(profiled(tmp), wrap))
    dist.destroy_process_group()
    return off, on


def ddp_measure(tmp):
    import socket
    import subprocess
    with socket.socket() as sk:
        sk.bind(("127.0.0.1", 0))
        port = sk.getsockname()[1]
    peer = subprocess.Popen([sys.executable, __file__, "--ddp-rank", str(port), tmp],
                            env=dict(os.environ, GLOO_SOCKET_IFNAME="lo"))
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    try:
        offs, ons = ddp_steps(0, port, tmp)
    finally:
        if peer.wait() != 0:
            print("ddp step: rank 1 failed (exit %d)" % peer.returncode)
    off, on = min(offs), min(ons)
    print("DDP step (2 ranks, hccl backend over gloo): %.1f us off, %.1f us profiling on"
          % (off * 1e6, on * 1e6))
    result("torch DDP step profiling on / off", on / off, "<=", 1.3,
           [y / x for x, y in zip(offs, ons)])


def main():
    torch.set_num_threads(1)
    if sys.argv[1:2] == ["--ddp-rank"]:
        ddp_steps(1, int(sys.argv[2]), sys.argv[3])
        return 0
    tmp = tempfile.mkdtemp(prefix="bench_torch.")
    try:
        for shapes in (False, True):
            base, empty, rec, added, cb, r_added, r_ratio = dispatch(tmp, shapes)
            tag = "with shapes" if shapes else "no shapes"
            print("dispatch (%s): %.1f ns/op bare, %.1f with an empty callback (+%.1f), "
                  "%.1f recording (+%.1f)" % (tag, base, empty, cb, rec, added))
            if not shapes:
                result("torch op recording added ns/op", added, "<=", 500, r_added)
                result("torch op recording added / empty RecordFunction callback",
                       added / cb if cb > 0 else float("inf"), "<=", 4, r_ratio)
            else:
                result("torch op recording with shapes added ns/op", added, "<=", 1000,
                       r_added)
        offs, ons = [], []
        for _ in range(REPS):
            offs.append(step_loop(None))
            ons.append(step_loop(profiled(tmp)))
        off, on = min(offs), min(ons)
        print("training step: %.1f us off, %.1f us profiling on" % (off * 1e6, on * 1e6))
        result("torch training step profiling on / off", on / off, "<=", 1.3,
               [y / x for x, y in zip(offs, ons)])
        ddp_measure(tmp)
    finally:
        os.system("rm -rf '%s'" % tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
