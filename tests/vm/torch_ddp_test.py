#!/usr/bin/python3
"""One rank of a 2-rank DDP job on backend="hccl" as a torch_npu user
writes it, launched by `python3 -m npuprof.torchrun --nproc_per_node 2`
(RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR/PORT from the launcher).

usage: torch_ddp_test.py OUT STEPS            (profiles, checks its database)
       torch_ddp_test.py --record OUT STEPS   (under `npuprof record`: no
                                               profile of its own; writes
                                               the all-reduces its backend
                                               got to OUT/allreduces<RANK>)

The script is torch_npu's profiling example with the import changed:
_ExperimentalConfig(export_type=Db, Level1, PipeUtilization, l2_cache
False, data_simplification False), tensorboard_trace_handler, the CPU and
NPU activities, a schedule with every step active. The profile starts before DDP wraps the model, so DDP's
parameter check (an all-gather) and its broadcast of the initial state
are in it; each step runs forward, backward (DDP's reducer all-reduces
each gradient bucket from C++), the optimiser and one explicit
dist.all_reduce of the loss (a Python-level collective).

Checks on its own ascend_pytorch_profiler_<rank>.db:
  - the backend is npuprof's ProcessGroupHCCL, every collective it got
    was mirrored (unmirrored 0);
  - per collective kind, the PYTORCH_API rows (HcclAllreduce,
    HcclBroadcast, HcclAllgather) equal the calls the backend received
    while the profile ran, and the all-reduces equal DDP's own count:
    the first step's buckets (logging data bucket_sizes), the rebuilt
    buckets (rebuilt_bucket_sizes) on every later step, plus one loss
    all-reduce per step;
  - each of those rows is linked framework -> CANN -> device: PYTORCH_API
    -> CONNECTION_IDS -> CANN_API -> COMMUNICATION_OP with TASK rows of the
    same connectionId on this rank's device;
  - RANK_DEVICE_MAP (rank, rank); the config's level in META_DATA;
  - META_DATA's parallel_group_info names the communicator every
    COMMUNICATION_OP row has as its groupName, with this rank and ranks
    0, 1, joined as msprof-analyze's recipes join it (json_each);
  - analysis.db beside it (check_analysis).
Prints one line per failure and exits 1 if any.
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

import npuprof.torch as torch_npu_profiler  # noqa: E402  (torch_npu.profiler)
from npuprof.sim.hccl import ProcessGroupHCCL  # noqa: E402

def say(line):
    """One line in one write(): the ranks share the launcher's stdout."""
    os.write(1, (line + "\n").encode())


NAMES = {"allreduce": "HcclAllreduce", "broadcast": "HcclBroadcast",
         "allgather": "HcclAllgather"}


def model():
    torch.manual_seed(7)
    return torch.nn.Sequential(torch.nn.Linear(32, 128), torch.nn.ReLU(),
                               torch.nn.Linear(128, 128), torch.nn.ReLU(),
                               torch.nn.Linear(128, 8))


def train(ddp, opt, steps, prof=None):
    torch.manual_seed(100 + dist.get_rank())
    for _ in range(steps):
        x, y = torch.randn(16, 32), torch.randn(16, 8)
        loss = torch.nn.functional.mse_loss(ddp(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        dist.all_reduce(loss.detach())
        if prof is not None:
            prof.step()


def buckets(ddp):
    """DDP's own bucket counts: (first step's, later steps')."""
    ld = ddp._get_ddp_logging_data()
    first = len(str(ld["bucket_sizes"]).split(","))
    later = len(str(ld["rebuilt_bucket_sizes"]).split(",")) if ld.get("has_rebuilt_buckets") \
        else first
    return first, later


def check_db(out, rank, steps, got, ddp_allreduces, fails):
    pts = glob.glob(os.path.join(out, "rank%d" % rank, "*_ascend_pt"))
    if len(pts) != 1:
        fails.append("%d *_ascend_pt directories" % len(pts))
        return
    dbp = os.path.join(pts[0], "ASCEND_PROFILER_OUTPUT", "ascend_pytorch_profiler_%d.db" % rank)
    if not os.path.isfile(dbp):
        fails.append("no %s" % dbp)
        return
    db = sqlite3.connect("file:%s?mode=ro" % dbp, uri=True)
    rdm = db.execute("SELECT rankId, deviceId FROM RANK_DEVICE_MAP").fetchall()
    if rdm != [(rank, rank)]:
        fails.append("RANK_DEVICE_MAP %s" % rdm)
    md = dict(db.execute("SELECT name, value FROM META_DATA"))
    ec = json.loads(md.get("npuprof.experimental_config", "{}"))
    if ec.get("_profiler_level") != "Level1":
        fails.append("experimental config in META_DATA: %s" % ec)
    pgi = json.loads(md.get("parallel_group_info", "{}"))
    want = {"group_name": "default_group", "group_rank": rank, "global_ranks": [0, 1]}
    if len(pgi) != 1 or list(pgi.values()) != [want]:
        fails.append("parallel_group_info in META_DATA: %s" % pgi)
    # msprof-analyze's CommunicationOpWithExport join
    ops, joined = db.execute(
        "SELECT COUNT(*), COUNT(D.group_name) FROM COMMUNICATION_OP o "
        "JOIN STRING_IDS s ON o.groupName = s.id "
        "LEFT JOIN (SELECT j.key, json_extract(j.value, '$.group_name') AS group_name "
        "FROM META_DATA, json_each(META_DATA.value) AS j "
        "WHERE META_DATA.name = 'parallel_group_info') AS D ON s.value = D.key").fetchone()
    if not ops or joined != ops:
        fails.append("COMMUNICATION_OP rows joined to parallel_group_info: %d of %d"
                     % (joined, ops))
    for kind, name in sorted(NAMES.items()):
        rows = db.execute("SELECT p.rowid, p.connectionId FROM PYTORCH_API p "
                          "JOIN STRING_IDS s ON s.id = p.name WHERE s.value = ?",
                          (name,)).fetchall()
        linked = 0
        for _rowid, cid in rows:
            ops = db.execute(
                "SELECT DISTINCT o.connectionId FROM CONNECTION_IDS c "
                "JOIN CANN_API a ON a.connectionId = c.connectionId "
                "JOIN COMMUNICATION_OP o ON o.connectionId = a.connectionId "
                "WHERE c.id = ?", (cid,)).fetchall()
            if len(ops) != 1:
                continue
            devs = {d for (d,) in db.execute("SELECT DISTINCT deviceId FROM TASK "
                                              "WHERE connectionId = ?", ops[0])}
            if devs == {rank}:
                linked += 1
        say("rank %d: %s: %d PYTORCH_API rows, %d linked to CANN_API, COMMUNICATION_OP and "
            "device tasks; the backend got %d" % (rank, name, len(rows), linked, got[kind]))
        if len(rows) != got[kind] or linked != len(rows):
            fails.append("%s: %d rows, %d linked, the backend got %d"
                         % (name, len(rows), linked, got[kind]))
    if got["allreduce"] != ddp_allreduces:
        fails.append("the backend got %d all-reduces, DDP's buckets and the loss make %d"
                     % (got["allreduce"], ddp_allreduces))
    n_ops = db.execute("SELECT count(*) FROM COMMUNICATION_OP").fetchone()[0]
    want = sum(got[k] for k in NAMES)
    if n_ops != want:
        fails.append("%d COMMUNICATION_OP rows, expected %d" % (n_ops, want))
    check_analysis(db, os.path.join(os.path.dirname(dbp), "analysis.db"), rank, fails)


def group_hash(name):
    """msprof-analyze's double_hash: analysis.db's group_name of a communicator."""
    a = b = 0
    for ch in name:
        a = (a * 29 + ord(ch)) & 0xFFFFFFFF
        b = (b * 131 + ord(ch)) & 0xFFFFFFFF
    return str(a << 32 | b)


def check_analysis(db, path, rank, fails):
    """torch_npu's analysis.db beside the PyTorch database (Level1: with
    the HCCL small tasks): each all-reduce's CommAnalyzerTime row (ms, and
    no longer than the op), its SDMA bandwidth row carrying the bytes of
    its copies in MB and size/time in GB/s, matrix links naming both
    ranks, one StepTraceTime row per step."""
    if not os.path.isfile(path):
        fails.append("no %s" % path)
        return
    an = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    tables = {t for (t,) in an.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    want = {"CommAnalyzerTime", "CommAnalyzerBandwidth", "CommAnalyzerMatrix", "StepTraceTime"}
    if tables != want:
        fails.append("analysis.db tables %s" % sorted(tables))
        return
    ops = db.execute(
        "SELECT n.value, g.value, o.startNs, o.endNs, o.opId FROM COMMUNICATION_OP o "
        "JOIN STRING_IDS n ON n.id = o.opName JOIN STRING_IDS g ON g.id = o.groupName "
        "JOIN STRING_IDS t ON t.id = o.opType WHERE t.value = 'hcom_allReduce_'").fetchall()
    timed = bw_ok = 0
    for name, group, start, end, opid in ops:
        row = an.execute("SELECT elapse_time, transit_time, wait_time, idle_time, step, type "
                         "FROM CommAnalyzerTime WHERE hccl_op_name = ? AND group_name = ?",
                         (name, group_hash(group))).fetchall()
        if len(row) != 1:
            fails.append("all-reduce %s: %d CommAnalyzerTime rows" % (name, len(row)))
            continue
        el, tr, wa, idle, step, kind = row[0]
        if not (0 < el <= (end - start) / 1e6 + 1e-9) or kind != "collective" or \
                not step.startswith("step") or abs(el - tr - wa - idle) > 1e-9:
            fails.append("all-reduce %s: CommAnalyzerTime %s, op %d ns" % (name, row[0], end - start))
            continue
        timed += 1
        # the bytes of its SDMA copies (not on chip), in MB
        mb = db.execute(
            "SELECT coalesce(sum(c.size), 0) / 1e6 FROM COMMUNICATION_TASK_INFO c "
            "JOIN STRING_IDS s ON s.id = c.taskType "
            "JOIN ENUM_HCCL_TRANSPORT_TYPE e ON e.id = c.transportType "
            "JOIN ENUM_HCCL_LINK_TYPE l ON l.id = c.linkType "
            "WHERE c.opId = ? AND s.value IN ('Memcpy', 'Reduce_Inline') AND e.name = 'SDMA' "
            "AND l.name != 'ON_CHIP'", (opid,)).fetchone()[0]
        bw = an.execute("SELECT DISTINCT transit_size, transit_time, bandwidth FROM "
                        "CommAnalyzerBandwidth WHERE hccl_op_name = ? AND transport_type = 'SDMA'",
                        (name,)).fetchall()
        if mb > 0 and (len(bw) != 1 or abs(bw[0][0] - mb) > 1e-9 or bw[0][1] <= 0 or
                       abs(bw[0][2] - round(bw[0][0] / bw[0][1], 4)) > 1e-3):
            fails.append("all-reduce %s: %s MB of SDMA copies, bandwidth rows %s" % (name, mb, bw))
            continue
        bw_ok += 1
    say("rank %d: analysis.db: %d of %d all-reduces with their CommAnalyzerTime row, %d with "
        "their SDMA bandwidth (MB, ms, GB/s)" % (rank, timed, len(ops), bw_ok))
    ranks = {r for (r,) in an.execute("SELECT src_rank FROM CommAnalyzerMatrix WHERE "
                                      "hccl_op_name LIKE 'allreduce-%' UNION SELECT dst_rank "
                                      "FROM CommAnalyzerMatrix WHERE hccl_op_name LIKE "
                                      "'allreduce-%'")}
    if not {"0", "1"} <= ranks:
        fails.append("CommAnalyzerMatrix names ranks %s" % sorted(ranks))
    has_steps = db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'STEP_TIME'").fetchone()[0]
    steps = sorted(str(i) for (i,) in db.execute("SELECT id FROM STEP_TIME")) if has_steps else [None]
    if has_steps != 1:
        fails.append("no STEP_TIME: the job's schedule made no steps")
    rows = sorted((s for (s,) in an.execute("SELECT step FROM StepTraceTime")),
                  key=lambda x: (x is not None, x))
    devs = [d for (d,) in an.execute("SELECT DISTINCT deviceId FROM StepTraceTime")]
    say("rank %d: analysis.db: StepTraceTime steps %s on devices %s (STEP_TIME %s), matrix "
        "ranks %s" % (rank, rows, devs, steps, sorted(ranks)))
    if not steps or rows != steps or devs != [rank]:
        fails.append("StepTraceTime steps %s devices %s, STEP_TIME %s" % (rows, devs, steps))


def main():
    record = sys.argv[1] == "--record"
    args = sys.argv[2:] if record else sys.argv[1:]
    out, steps = args[0], int(args[1])
    dist.init_process_group(backend="hccl")
    rank = dist.get_rank()
    pg = dist.distributed_c10d._get_default_group()
    fails = []
    if not isinstance(pg, ProcessGroupHCCL) or not pg.mirrored:
        sys.exit("rank %d: default group %r, mirrored %s" % (rank, pg,
                                                             getattr(pg, "mirrored", None)))
    net = model()
    prof = None
    if not record:
        experimental_config = torch_npu_profiler._ExperimentalConfig(
            export_type=torch_npu_profiler.ExportType.Db,
            profiler_level=torch_npu_profiler.ProfilerLevel.Level1,
            aic_metrics=torch_npu_profiler.AiCMetrics.PipeUtilization,
            l2_cache=False, data_simplification=False)
        prof = torch_npu_profiler.profile(
            activities=[torch_npu_profiler.ProfilerActivity.CPU,
                        torch_npu_profiler.ProfilerActivity.NPU],
            # every step active: the steps are STEP_TIME rows and
            # analysis.db's StepTraceTime rows
            schedule=torch_npu_profiler.schedule(wait=0, warmup=0, active=steps, repeat=1),
            on_trace_ready=torch_npu_profiler.tensorboard_trace_handler(
                os.path.join(out, "rank%d" % rank)),
            experimental_config=experimental_config)
        prof.start()
    before = dict(pg.counts)
    # DDP's documented knob: its first bucket (1 MiB by default) small too
    dist._DEFAULT_FIRST_BUCKET_BYTES = 16384
    ddp = torch.nn.parallel.DistributedDataParallel(net, bucket_cap_mb=0.02)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05)
    train(ddp, opt, steps, prof)
    got = {k: pg.counts.get(k, 0) - before.get(k, 0) for k in NAMES}
    if prof is not None:
        prof.stop()
    first, later = buckets(ddp)
    ddp_allreduces = first + later * (steps - 1) + steps
    say("rank %d: DDP: %d buckets on the first step, %d after; the backend got %s, "
        "%d unmirrored" % (rank, first, later, got, pg.unmirrored))
    if pg.unmirrored:
        fails.append("%d collectives not mirrored" % pg.unmirrored)
    if later < 2:
        fails.append("DDP made %d buckets: the test wants several" % later)
    if not record:
        check_db(out, rank, steps, got, ddp_allreduces, fails)
    else:
        # for the suite to compare with record's database of this rank
        with open(os.path.join(out, "allreduces%d" % rank), "w") as f:
            f.write("%d\n" % got["allreduce"])
    if record and got["allreduce"] != ddp_allreduces:
        fails.append("the backend got %d all-reduces, expected %d" % (got["allreduce"],
                                                                        ddp_allreduces))
    # the data moved: the same parameters on every rank
    flat = torch.cat([p.detach().reshape(-1) for p in ddp.parameters()])
    every = [torch.empty_like(flat) for _ in range(dist.get_world_size())]
    dist.all_gather(every, flat)
    if not all(torch.equal(every[0], e) for e in every):
        fails.append("the ranks' parameters differ after DDP")
    dist.destroy_process_group()
    for f in fails:
        say("FAIL rank %d: %s" % (rank, f))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
