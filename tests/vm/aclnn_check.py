#!/usr/bin/python3
"""Check the database of tests/sdk/aclnn's sample recorded on npusim.

usage: aclnn_check.py DB

The sample runs Add, Mul, Cast, Matmul, Softmax and LayerNorm once each.
Expected: per operator one acl-level CANN_API row for each phase, one node
`launch` inside the launch phase's row on the same thread, one TASK row off
that `launch` and its COMPUTE_TASK_INFO row with the operator's names,
tensors and a device time no shorter than the modelled duration.
Prints the row count of every table, one line per failed check, and exits
non-zero if any failed.
"""
import sqlite3
import sys

# name, opType, GE task type, runtime task type, in formats, in dtypes,
# in shapes, out formats, out dtypes, out shapes, block dim, modelled ns
OPS = {
    "aclnnAdd": ("aclnnAdd_AddAiCore_Add", "Add", "AI_VECTOR_CORE", "KERNEL_AIVEC",
                 "FORMAT_ND;FORMAT_ND", "FLOAT;FLOAT", '"4,2;4,2"', "FORMAT_ND", "FLOAT",
                 '"4,2"', 1, 2000),
    "aclnnMul": ("aclnnMul_MulAiCore_Mul", "Mul", "AI_VECTOR_CORE", "KERNEL_AIVEC",
                 "FORMAT_ND;FORMAT_ND", "FLOAT;FLOAT", '"4,2;2"', "FORMAT_ND", "FLOAT",
                 '"4,2"', 1, 2000),
    "aclnnCast": ("aclnnCast_CastAiCore_Cast", "Cast", "AI_VECTOR_CORE", "KERNEL_AIVEC",
                  "FORMAT_ND", "FLOAT", '"4,2"', "FORMAT_ND", "FLOAT16", '"4,2"', 1, 2000),
    # 2*1024^3 FLOP at 280 TFLOPS + 4 us
    "aclnnMatmul": ("aclnnMatmul_MatMulCommon_MatMulV2", "MatMulV2", "AI_CORE",
                    "KERNEL_AICORE", "FORMAT_ND;FORMAT_ND", "FLOAT16;FLOAT16",
                    '"1024,1024;1024,1024"', "FORMAT_ND", "FLOAT16", '"1024,1024"', 24, 11670),
    "aclnnSoftmax": ("aclnnSoftmax_SoftmaxV2AiCore_SoftmaxV2", "SoftmaxV2", "AI_VECTOR_CORE",
                     "KERNEL_AIVEC", "FORMAT_ND", "FLOAT", '"8,1024"', "FORMAT_ND", "FLOAT",
                     '"8,1024"', 2, 2061),
    "aclnnLayerNorm": ("aclnnLayerNorm_LayerNormV4_LayerNormV4", "LayerNormV4",
                       "AI_VECTOR_CORE", "KERNEL_AIVEC", "FORMAT_ND;FORMAT_ND;FORMAT_ND",
                       "FLOAT;FLOAT;FLOAT", '"8,1024;1024;1024"',
                       "FORMAT_ND;FORMAT_ND;FORMAT_ND", "FLOAT;FLOAT;FLOAT",
                       '"8,1024;8,1;8,1"', 3, 2066),
}
# the device counter ticks at 50 MHz: allow two ticks
SLACK_NS = 40


def check_mstx(db, s, tasks, fails):
    """The sample's stream-anchored mstx stamps: each MSTX_EVENTS row joins
    its own MsTx TASK row, whose device times enclose the operators'."""
    ev = {}
    for msg, etype, conn, dom in db.execute(
            "SELECT message, eventType, connectionId, domainId FROM MSTX_EVENTS"):
        ev[s.get(msg)] = (etype, conn, s.get(dom))
    print("mstx events: %s" % sorted(ev))
    want = {"all operators": "default", "add done": "default", "matmul": "aclnn_sample"}
    dev = {}
    for name, domain in want.items():
        if name not in ev:
            fails.append("mstx: no MSTX_EVENTS row %r (have %s)" % (name, sorted(ev)))
            continue
        etype, conn, dom = ev[name]
        if dom != domain:
            fails.append("mstx %r: domain %r, expected %r" % (name, dom, domain))
        rows = db.execute("SELECT t.startNs, t.endNs, s.value FROM TASK t JOIN STRING_IDS s "
                          "ON s.id = t.taskType WHERE t.connectionId = ?", (conn,)).fetchall()
        if len(rows) != 1 or rows[0][2] != "MsTx":
            fails.append("mstx %r: connectionId %d joins %s, expected one MsTx task"
                         % (name, conn, rows))
            continue
        dev[name] = rows[0][:2]
    ops = [v[:2] for v in tasks.values()]
    if "all operators" in dev and ops:
        st, en = dev["all operators"]
        if not (st <= min(o[0] for o in ops) and en >= max(o[1] for o in ops)):
            fails.append("mstx 'all operators' %s does not enclose the operators %s"
                         % (dev["all operators"], ops))
    mm = tasks.get("aclnnMatmul_MatMulCommon_MatMulV2")
    if "matmul" in dev and mm:
        st, en = dev["matmul"]
        if not (st <= mm[0] and en >= mm[1]):
            fails.append("mstx 'matmul' %s does not enclose the Matmul task %s"
                         % (dev["matmul"], mm[:2]))


def main():
    db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
    s = dict(db.execute("SELECT id, value FROM STRING_IDS"))
    fails = []
    for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY 1"):
        print("rows: %s %d" % (t, db.execute("SELECT count(*) FROM %s" % t).fetchone()[0]))
    for typ, n in db.execute("SELECT type, count(*) FROM CANN_API GROUP BY 1 ORDER BY 1 DESC"):
        print("rows: CANN_API type %d: %d" % (typ, n))
    api = [(s[n], typ, tid, st, en, c) for n, typ, tid, st, en, c in db.execute(
        "SELECT name, type, globalTid, startNs, endNs, connectionId FROM CANN_API")]
    acl = [a for a in api if a[1] == 20000 and a[0].startswith("aclnn")]
    names = sorted(a[0] for a in acl)
    want = sorted([op for op in OPS] + [op + "GetWorkspaceSize" for op in OPS])
    if names != want:
        fails.append("acl-level aclnn rows %s, expected %s" % (names, want))
    launches = [a for a in api if a[1] == 10000 and a[0] == "launch"]
    if len(launches) != len(OPS):
        fails.append("%d node-level launch rows, expected %d" % (len(launches), len(OPS)))
    tasks = {}
    for gid, st, en, conn, ttype, name, optype, getype, bd, ifm, idt, ish, ofm, odt, osh in db.execute(
            "SELECT t.globalTaskId, t.startNs, t.endNs, t.connectionId, t.taskType, c.name, "
            "c.opType, c.taskType, c.blockDim, c.inputFormats, c.inputDataTypes, "
            "c.inputShapes, c.outputFormats, c.outputDataTypes, c.outputShapes "
            "FROM TASK t JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId"):
        tasks[s[name]] = (st, en, conn, s[ttype], s[optype], s[getype], bd, s[ifm], s[idt],
                          s[ish], s[ofm], s[odt], s[osh])
    n_compute = db.execute("SELECT count(*) FROM COMPUTE_TASK_INFO").fetchone()[0]
    if n_compute != len(OPS):
        fails.append("%d COMPUTE_TASK_INFO rows, expected %d" % (n_compute, len(OPS)))
    spans = {}
    for op, (name, optype, getype, rttype, ifm, idt, ish, ofm, odt, osh, bd, ns) in OPS.items():
        if name not in tasks:
            fails.append("%s: no TASK/COMPUTE_TASK_INFO row named %s (have %s)"
                         % (op, name, sorted(tasks)))
            continue
        st, en, conn, *got = tasks[name]
        exp = [rttype, optype, getype, bd, ifm, idt, ish, ofm, odt, osh]
        if got != exp:
            fails.append("%s: task %s, expected %s" % (op, got, exp))
        spans[op] = en - st
        if en - st + SLACK_NS < ns:
            fails.append("%s: device time %d ns, modelled %d" % (op, en - st, ns))
        # the task hangs off a launch inside the operator's launch phase
        node = [l for l in launches if l[5] == conn]
        outer = [a for a in acl if a[0] == op]
        if len(node) != 1 or len(outer) != 1:
            fails.append("%s: TASK.connectionId %d: %d launch rows, %d %s rows"
                         % (op, conn, len(node), len(outer), op))
            continue
        l, a = node[0], outer[0]
        if not (l[2] == a[2] and a[3] <= l[3] and l[4] <= a[4]):
            fails.append("%s: launch %s not inside %s" % (op, l, a))
        ws = [w for w in acl if w[0] == op + "GetWorkspaceSize"]
        if ws and not ws[0][4] <= a[3]:
            fails.append("%s: GetWorkspaceSize does not end before the launch phase" % op)
    if spans.get("aclnnMatmul", 0) <= max(v for k, v in spans.items() if k != "aclnnMatmul"):
        fails.append("the matmul is not the longest task: %s" % spans)
    print("aclnn spans (ns): %s" % " ".join("%s=%d" % kv for kv in sorted(spans.items())))
    check_mstx(db, s, tasks, fails)
    for f in fails:
        print("FAIL: " + f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
