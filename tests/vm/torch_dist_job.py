#!/usr/bin/python3
"""One rank of a 2-process torch.distributed (gloo) training job whose
collectives the device mirror runs on HCCL on npusim (npuprof.sim.dist).

usage: torch_dist_job.py OUT RANK WORLD INIT_FILE STEPS

Each rank profiles itself into OUT/rank<RANK> as npuprof.torch.profile does
(aclprofInit on its own directory, aclprofStart with its device), trains a
small MLP by hand-written data parallelism (parameters broadcast from rank
0, gradients all-reduced every step), gathers the losses, meets at a
barrier and runs the mirror of a reduce_scatter (which gloo lacks). It prints its manifest on stdout, one line per collective:
    coll <TAB> record name <TAB> tid <TAB> monotonic ns before <TAB> after <TAB> elements
and checks that the real collectives computed what they should (the
mirror must not change them).
"""
import ctypes
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "build", "python"))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from npuprof.sim import dist as _dist  # noqa: E402

ACL_PROF_ACL_API, ACL_PROF_TASK_TIME, ACL_PROF_HCCL_TRACE = 0x1, 0x2, 0x20


def main():
    out, rank, world, init, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
        sys.argv[4], int(sys.argv[5])
    dist.init_process_group("gloo", init_method="file://" + init, rank=rank,
                            world_size=world)
    mirror = _dist._library()
    err = ctypes.create_string_buffer(256)
    if mirror.npuprof_mirror_open(rank, err, len(err)) < 0:
        sys.exit("rank %d: mirror open: %s" % (rank, err.value.decode()))
    # the session, as npuprof.torch.profile starts it
    prof = ctypes.CDLL("libmsprofiler.so")
    prof.aclprofCreateConfig.restype = ctypes.c_void_p
    prof.aclprofCreateConfig.argtypes = (ctypes.POINTER(ctypes.c_uint32), ctypes.c_uint32,
                                         ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64)
    prof.aclprofStart.argtypes = prof.aclprofStop.argtypes = \
        prof.aclprofDestroyConfig.argtypes = (ctypes.c_void_p,)
    d = os.path.join(out, "rank%d" % rank).encode()
    os.makedirs(d, exist_ok=True)
    if prof.aclprofInit(d, len(d)) != 0:
        sys.exit("rank %d: aclprofInit failed" % rank)
    devs = (ctypes.c_uint32 * 1)(rank)
    cfg = prof.aclprofCreateConfig(devs, 1, 0, None,
                                   ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_HCCL_TRACE)
    if not cfg or prof.aclprofStart(cfg) != 0:
        sys.exit("rank %d: aclprofStart failed" % rank)
    orig_all_reduce = dist.all_reduce
    if not _dist.enable(timeout_s=300):
        sys.exit("rank %d: the mirror's communicator was not set up" % rank)
    if mirror.npuprof_mirror_comm_rank() != rank:
        sys.exit("rank %d: communicator rank %d" % (rank, mirror.npuprof_mirror_comm_rank()))
    tid = threading.get_native_id()

    def coll(record, fn, *args, n=0, **kw):
        t0 = time.monotonic_ns()
        fn(*args, **kw)
        t1 = time.monotonic_ns()
        print("coll\t%s\t%d\t%d\t%d\t%d" % (record, tid, t0, t1, n), flush=True)

    torch.manual_seed(1 + rank)  # ranks start apart; the broadcast aligns them
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    params = list(model.parameters())
    for p in params:
        coll("HcclBroadcast", dist.broadcast, p.data, 0, n=p.numel())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.manual_seed(100 + rank)  # each rank its own data
    losses = []
    for _ in range(steps):
        x, y = torch.randn(32, 8), torch.randn(32, 4)
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        for p in params:
            coll("HcclAllreduce", dist.all_reduce, p.grad, n=p.numel())
            p.grad /= world
        opt.step()
        losses.append(loss.detach().reshape(1))
    mine = torch.cat(losses)
    gathered = [torch.empty_like(mine) for _ in range(world)]
    coll("HcclAllgather", dist.all_gather, gathered, mine, n=mine.numel())
    coll("HcclBarrier", dist.barrier, n=1)
    # gloo has no reduce_scatter: its mirror alone, as the wrapper runs it
    part = torch.zeros(6)
    coll("HcclReduceScatter", _dist._mirror, _dist.REDUCE_SCATTER, part, n=part.numel())
    if mirror.npuprof_mirror_sync() < 0:
        sys.exit("rank %d: sync: %s" % (rank, mirror.npuprof_mirror_strerror().decode()))
    if prof.aclprofStop(cfg) != 0:
        sys.exit("rank %d: aclprofStop failed" % rank)
    prof.aclprofDestroyConfig(cfg)
    prof.aclprofFinalize()
    _dist.disable()
    if dist.all_reduce is not orig_all_reduce or _dist.enabled():
        sys.exit("rank %d: disable() left the wrappers" % rank)
    mirror.npuprof_mirror_close()
    # the real collectives did their work: the same parameters on every rank
    flat = torch.cat([p.data.reshape(-1) for p in params])
    check = [torch.empty_like(flat) for _ in range(world)]
    dist.all_gather(check, flat)
    if not all(torch.equal(check[0], c) for c in check) or not torch.equal(gathered[rank], mine):
        sys.exit("rank %d: the real collectives went wrong" % rank)
    dist.destroy_process_group()
    print("done\t%d\t%s" % (rank, " ".join("%.4f" % v for v in mine.tolist())), flush=True)


if __name__ == "__main__":
    main()
