#!/usr/bin/python3
"""One rank of a 2-process torch.distributed (gloo) training job profiled
the way a user does it: npuprof.torch.profile with tensorboard_trace_handler,
nothing else. The profile opens the device mirror on this rank's device
(LOCAL_RANK), sets up the collective mirror itself (npuprof.sim.dist)
because torch.distributed is initialised, and exports each rank into its own
<worker>_<time>_ascend_pt directory. Then it checks its own database:
ascend_pytorch_profiler_<rank>.db, profiler_info_<rank>.json,
RANK_DEVICE_MAP (rank, device), and every all-reduce in PYTORCH_API linked
through CONNECTION_IDS -> CANN_API to its COMMUNICATION_OP; with no
experimental_config (torch_npu's default, Level0: TASK_TIME_L0|ACL_API)
the device tasks and CANN APIs are there.

usage: torch_dist_profile.py OUT RANK WORLD INIT_FILE STEPS
"""
import glob
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "build", "python"))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from npuprof.torch import ProfilerActivity, profile, tensorboard_trace_handler  # noqa: E402


def main():
    out, rank, world, init, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
        sys.argv[4], int(sys.argv[5])
    dist.init_process_group("gloo", init_method="file://" + init, rank=rank,
                            world_size=world)
    torch.manual_seed(7)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    params = list(model.parameters())
    opt = torch.optim.SGD(params, lr=0.1)
    mine = os.path.join(out, "rank%d" % rank)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.NPU],
                 on_trace_ready=tensorboard_trace_handler(mine)) as prof:
        for _ in range(steps):
            x, y = torch.randn(16, 8), torch.randn(16, 4)
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            for p in params:
                dist.all_reduce(p.grad)
            opt.step()
            prof.step()
    dist.barrier()

    fails = []
    pts = glob.glob(os.path.join(mine, "*_ascend_pt"))
    if len(pts) != 1:
        sys.exit("rank %d: %d *_ascend_pt directories in %s" % (rank, len(pts), mine))
    pt = pts[0]
    info = os.path.join(pt, "profiler_info_%d.json" % rank)
    if not os.path.isfile(info):
        fails.append("no %s" % info)
    else:
        json.load(open(info))
    dbp = os.path.join(pt, "ASCEND_PROFILER_OUTPUT", "ascend_pytorch_profiler_%d.db" % rank)
    if not os.path.isfile(dbp):
        sys.exit("rank %d: no %s (have %s)" % (rank, dbp, os.listdir(os.path.dirname(dbp))))
    db = sqlite3.connect("file:%s?mode=ro" % dbp, uri=True)
    tables = {t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    missing = {"RANK_DEVICE_MAP", "COMMUNICATION_OP", "PYTORCH_API", "CONNECTION_IDS"} - tables
    if missing:
        sys.exit("rank %d: %s lacks %s" % (rank, dbp, sorted(missing)))
    rdm = db.execute("SELECT rankId, deviceId FROM RANK_DEVICE_MAP").fetchall()
    if rdm != [(rank, rank)]:
        fails.append("RANK_DEVICE_MAP %s, expected [(%d, %d)]" % (rdm, rank, rank))
    want = steps * len(params)
    n_ops = db.execute("SELECT count(*) FROM COMMUNICATION_OP").fetchone()[0]
    n_ar = db.execute("SELECT count(*) FROM PYTORCH_API p JOIN STRING_IDS s ON s.id = p.name "
                      "WHERE s.value = 'HcclAllreduce'").fetchone()[0]
    linked = db.execute(
        "SELECT count(DISTINCT p.rowid) FROM PYTORCH_API p JOIN STRING_IDS s ON s.id = p.name "
        "JOIN CONNECTION_IDS c ON c.id = p.connectionId "
        "JOIN CANN_API a ON a.connectionId = c.connectionId "
        "JOIN COMMUNICATION_OP o ON o.connectionId = a.connectionId "
        "WHERE s.value = 'HcclAllreduce'").fetchone()[0]
    groups = db.execute("SELECT count(DISTINCT groupName) FROM COMMUNICATION_OP").fetchone()[0]
    print("rank %d: %s: %d COMMUNICATION_OP, %d HcclAllreduce in PYTORCH_API, %d linked, "
          "%d communicator" % (rank, os.path.relpath(dbp, out), n_ops, n_ar, linked, groups))
    if n_ar != want or linked != want:
        fails.append("all-reduces: %d in PYTORCH_API, %d linked, expected %d" % (n_ar, linked, want))
    if n_ops < want or groups != 1:
        fails.append("COMMUNICATION_OP: %d rows (want >= %d), %d groups" % (n_ops, want, groups))
    # no experimental_config: torch_npu's default, Level0 (TASK_TIME_L0 |
    # ACL_API): the device tasks are captured, CANN APIs recorded, no mstx
    md = dict(db.execute("SELECT name, value FROM META_DATA"))
    ec = json.loads(md.get("npuprof.experimental_config", "{}"))
    n_task = db.execute("SELECT count(*) FROM TASK").fetchone()[0] if "TASK" in tables else 0
    n_cann = db.execute("SELECT count(*) FROM CANN_API").fetchone()[0] if "CANN_API" in tables else 0
    print("rank %d: Level0 (switches %s): %d TASK, %d CANN_API" % (rank, ec.get("aclprof_switches"),
                                                                 n_task, n_cann))
    if ec.get("_profiler_level") != "Level0" or ec.get("aclprof_switches") != "0x801" or \
            n_task == 0 or n_cann == 0:
        fails.append("Level0: config %s, %d TASK, %d CANN_API" % (ec, n_task, n_cann))
    for f in fails:
        print("FAIL rank %d: %s" % (rank, f))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
