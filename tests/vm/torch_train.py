"""The workload of the npuprof.torch VM tests (tests/vm/suite_48_torch.sh):
a training loop (an MLP, Adam, cross-entropy, loss.backward) and an
inference loop (a small transformer encoder under no_grad), each under its
own npuprof.torch.profile with a wait/warmup/active schedule, with torch's
own (legacy) profiler recording the same active steps alongside, shapes
and memory on. Writes what torch reported to --expect (JSON) for
tests/vm/torch_check.py.

    torch_train.py --out DIR --expect FILE [--train-steps N] [--infer-steps N]
                   [--loops train,infer] [--no-stack]
"""
import argparse
import gc
import json
import os
import sys
import threading
import time

t_import = time.monotonic()
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from torch.autograd import (ProfilerConfig, ProfilerState, _disable_profiler_legacy,  # noqa: E402
                            _enable_profiler_legacy)

import npuprof.torch as nprof  # noqa: E402
from npuprof.torch import mstx  # noqa: E402

t_import = time.monotonic() - t_import


class TorchRef:
    """torch's legacy profiler over exactly our active steps: every
    RecordFunction push and every memory event it saw."""

    def __init__(self):
        self.on = False
        self.ops = []
        self.mem = []

    def start(self):
        cfg = ProfilerConfig(ProfilerState.CPU, True, True, False, False, False,
                             torch._C._profiler._ExperimentalConfig())
        _enable_profiler_legacy(cfg)
        self.on = True

    def stop(self):
        records = _disable_profiler_legacy()
        self.on = False
        for th in records:
            for r in th:
                k = r.kind()
                if k == "push":
                    self.ops.append({"name": r.name(), "shapes": r.shapes(),
                                     "seq": r.sequence_nr(), "fwd_thread": r.fwd_thread_id(),
                                     "thread": r.thread_id()})
                elif k == "memory_alloc":
                    self.mem.append(r.cpu_memory_usage())


def recording(sched, step):
    return sched(step) in (nprof.ProfilerAction.RECORD, nprof.ProfilerAction.RECORD_AND_SAVE)


def run_loop(name, sched, nsteps, body, out, with_stack, memory, use_ref, skip_first=0):
    """One profiled loop. With use_ref, torch's legacy profiler records the
    same active steps (ops, shapes and memory); ours then records no memory
    (c10's allocator reports to one profiler state, the innermost), so
    memory is compared on another loop of the same steps."""
    ref = TorchRef()
    active = [s for s in range(nsteps) if recording(sched, s)]
    handler = nprof.tensorboard_trace_handler(out, worker_name=name)
    t0 = time.monotonic()
    t_start = time.monotonic_ns()  # CLOCK_MONOTONIC, the records' clock
    # as torch_npu's documentation writes it: Level1 into a database, mstx
    # on, every garbage collection (threshold 0)
    cfg = nprof._ExperimentalConfig(export_type=[nprof.ExportType.Db],
                                    profiler_level=nprof.ProfilerLevel.Level1,
                                    aic_metrics=nprof.AiCMetrics.PipeUtilization, l2_cache=False,
                                    data_simplification=False, mstx=True, gc_detect_threshold=0)
    prof = nprof.profile(activities=[nprof.ProfilerActivity.CPU, nprof.ProfilerActivity.NPU],
                         schedule=sched, on_trace_ready=handler, record_shapes=True,
                         profile_memory=memory, with_stack=with_stack, experimental_config=cfg)
    prof.add_metadata("loop", name)
    prof.add_metadata_json("distributed_args", json.dumps({"tensor_model_parallel_size": 1}))
    if use_ref and recording(sched, 0):
        ref.start()
    prof.start()
    for s in range(nsteps):
        if s >= skip_first:  # steps the schedule skips do nothing here
            body(s)
        # torch's profiler brackets ours: on before our first active step
        # begins, off after our last one ended
        nxt = s + 1
        if use_ref and not ref.on and nxt < nsteps and recording(sched, nxt):
            ref.start()
        prof.step()
        if ref.on and not recording(sched, nxt):
            ref.stop()
    prof.stop()
    if ref.on:
        ref.stop()
    t_end = time.monotonic_ns()
    return {"t_start": t_start, "t_end": t_end, "loop": name, "dirs": prof.ascend_pt_dirs, "active_steps": active,
            "torch_ops": ref.ops, "torch_mem": ref.mem, "seconds": time.monotonic() - t0,
            "steps": nsteps, "mirror": prof.mirror, "memory": memory, "ref": use_ref,
            "config": cfg.to_json(), "switches": prof.switches}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--expect", required=True)
    ap.add_argument("--train-steps", type=int, default=5)
    ap.add_argument("--infer-steps", type=int, default=3)
    ap.add_argument("--loops", default="train,infer")
    ap.add_argument("--no-stack", action="store_true")
    a = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(1)
    os.makedirs(a.out, exist_ok=True)
    res = {"import_seconds": t_import, "main_tid": threading.get_native_id(),
           "pid": os.getpid(), "loops": [], "under_record": bool(os.environ.get("NPUPROF_OUTPUT_DIR"))}
    loops = a.loops.split(",")

    if "train" in loops:
        model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        lossf = nn.CrossEntropyLoss()
        x = torch.randn(16, 32)
        y = torch.randint(0, 10, (16,))

        def train_step(s):
            with mstx.range("train_step"):
                opt.zero_grad()
                loss = lossf(model(x), y)
                loss.backward()
                opt.step()
            # a known allocation: 1 MiB allocated and released
            big = torch.empty(256, 1024)
            del big
            gc.collect()

        sched = nprof.schedule(wait=1, warmup=1, active=3, repeat=1)
        res["loops"].append(run_loop("train", sched, a.train_steps, train_step, a.out,
                                     not a.no_stack, False, True))
        # the same steps again, memory recorded by ours (compared with what
        # torch's profiler reported for the steps above). Step numbers
        # differ from every other loop's (skip_first), so that the loops'
        # STEP_TIME ids stay apart in one `npuprof record` session.
        sched = nprof.schedule(wait=1, warmup=1, active=3, repeat=1, skip_first=10)
        res["loops"].append(run_loop("train_mem", sched, 10 + a.train_steps, train_step, a.out,
                                     False, True, False, 10))

    if "infer" in loops:
        enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model=32, nhead=2,
                                                               dim_feedforward=64, dropout=0.0),
                                    num_layers=1)
        enc.eval()
        src = torch.randn(6, 2, 32)

        def infer_step(s):
            with torch.no_grad():
                enc(src)
            gc.collect()

        sched = nprof.schedule(wait=0, warmup=1, active=2, repeat=1, skip_first=20)
        res["loops"].append(run_loop("infer", sched, 20 + a.infer_steps, infer_step, a.out,
                                     not a.no_stack, False, True, 20))
    res["stats"] = nprof.stats()
    with open(a.expect + ".tmp", "w") as f:
        json.dump(res, f)
    os.rename(a.expect + ".tmp", a.expect)
    print("torch_train: import %.1f s; %s" % (t_import, ", ".join(
        "%s %d steps %.1f s" % (l["loop"], l["steps"], l["seconds"]) for l in res["loops"])))


if __name__ == "__main__":
    sys.exit(main())
