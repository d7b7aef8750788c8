#!/usr/bin/python3
"""Check an exported msprof database against npuwork's ground-truth manifest.

usage: export_check.py DB MANIFEST [--mstx N] [--tolerance FRACTION]

The manifest has one tab-separated line per task the runtime sent:
device stream task_id batch_id sqe_type type duration_ns bytes connection_id.
Prints one line per failed check and exits non-zero if any failed.
"""
import collections
import sqlite3
import sys

NO_CONN = 18446744073709551615


def main():
    args = sys.argv[1:]
    db_path, manifest = args[0], args[1]
    tol = 0.15
    mstx = None
    if "--tolerance" in args:
        tol = float(args[args.index("--tolerance") + 1])
    if "--mstx" in args:
        mstx = int(args[args.index("--mstx") + 1])
    db = sqlite3.connect("file:%s?mode=ro" % db_path, uri=True)
    s = dict(db.execute("SELECT id, value FROM STRING_IDS"))
    fails = []

    want = collections.Counter()
    want_detail = collections.defaultdict(list)
    range_markers = set()  # (dev, connectionId) of an mstx range's first marker
    for line in open(manifest):
        if line.startswith("#") or not line.strip():
            continue
        dev, stream, task, batch, sqe, typ, dur, nbytes, conn = line.rstrip("\n").split("\t")
        key = (int(dev), int(stream), int(task))
        # an mstx range launches two markers with one connectionId; msprof
        # (and the export) writes one MsTx TASK row for both, at the first
        if typ == "PROFILER_TRACE_EX" and int(conn) != NO_CONN:
            if (int(dev), int(conn)) in range_markers:
                continue
            range_markers.add((int(dev), int(conn)))
        want[key] += 1
        conn = int(conn)
        want_detail[key].append((typ, int(dur), -1 if conn == NO_CONN else conn))

    got = collections.Counter()
    rows = collections.defaultdict(list)
    for start, end, dev, conn, typ, stream, task in db.execute(
            "SELECT startNs, endNs, deviceId, connectionId, taskType, streamId, taskId FROM TASK"):
        key = (dev, stream, task)
        got[key] += 1
        rows[key].append((start, end, s[typ], conn))

    missing = sum((want - got).values())
    extra = sum((got - want).values())
    if missing or extra:
        fails.append("TASK vs manifest: %d tasks missing, %d extra" % (missing, extra))
    bad = {"task type": [], "connectionId": [], "duration": []}
    for key, items in want_detail.items():
        trows = sorted(rows.get(key, []))
        for (typ, dur, conn), row in zip(items, trows):
            start, end, rtype, rconn = row
            exp_type = "MsTx" if typ == "PROFILER_TRACE_EX" else typ
            if rtype != exp_type:
                bad["task type"].append((key, exp_type, rtype))
            if rconn != conn:
                bad["connectionId"].append((key, conn, rconn))
            d = end - start
            if dur > 0 and abs(d - dur) > tol * dur + 5000:
                bad["duration"].append((key, dur, d))
    for name, items in bad.items():
        if items:
            # the first few, (device, stream, task): wanted, got
            fails.append("%d TASK rows with the wrong %s, e.g. %s" % (
                len(items), name, "; ".join("%s: %s, not %s" % (k, w, g)
                                            for k, w, g in sorted(items)[:4])))

    def one(sql):
        return db.execute(sql).fetchone()[0]

    checks = [
        ("TASK rows whose connectionId is not in CANN_API",
         "SELECT count(*) FROM TASK t LEFT JOIN CANN_API a ON a.connectionId = t.connectionId"
         " WHERE t.connectionId >= 0 AND t.connectionId < 4000000000 AND a.connectionId IS NULL"),
        ("COMPUTE_TASK_INFO rows without a TASK row",
         "SELECT count(*) FROM COMPUTE_TASK_INFO c LEFT JOIN TASK t ON t.globalTaskId = c.globalTaskId"
         " WHERE t.globalTaskId IS NULL"),
        ("kernel TASK rows without COMPUTE_TASK_INFO",
         "SELECT count(*) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType"
         " LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId"
         " WHERE s.value LIKE 'KERNEL_%' AND c.globalTaskId IS NULL"),
        ("COMMUNICATION_TASK_INFO rows without their COMMUNICATION_OP",
         "SELECT count(*) FROM COMMUNICATION_TASK_INFO c LEFT JOIN COMMUNICATION_OP o ON o.opId = c.opId"
         " WHERE o.opId IS NULL"),
        ("COMMUNICATION_TASK_INFO rows whose TASK has another connectionId than the op",
         "SELECT count(*) FROM COMMUNICATION_TASK_INFO c JOIN COMMUNICATION_OP o ON o.opId = c.opId"
         " JOIN TASK t ON t.globalTaskId = c.globalTaskId WHERE t.connectionId != o.connectionId"),
        ("MarkEx MSTX rows without their MsTx TASK",
         "SELECT count(*) FROM MSTX_EVENTS m LEFT JOIN TASK t ON t.connectionId = m.connectionId"
         " WHERE m.eventType = 3 AND t.connectionId IS NULL"),
        # msprof-analyze's msproftx summary: ranges not host-only joined to
        # TASK for their device start/end (NULL there breaks the recipe)
        ("MSTX ranges whose connectionId is neither host-only nor a TASK row",
         "SELECT count(*) FROM MSTX_EVENTS m LEFT JOIN TASK t ON t.connectionId = m.connectionId"
         " WHERE m.eventType = 2 AND m.connectionId != 4294967295 AND t.startNs IS NULL"),
        ("MSTX rows whose connectionId points at no TASK row",
         "SELECT count(*) FROM MSTX_EVENTS m LEFT JOIN TASK t ON t.connectionId = m.connectionId"
         " WHERE m.connectionId NOT IN (4294967295, 4000000000) AND t.connectionId IS NULL"),
        ("MsTx TASK rows sharing a connectionId",
         "SELECT count(*) - count(DISTINCT t.connectionId) FROM TASK t JOIN STRING_IDS s"
         " ON s.id = t.taskType WHERE s.value = 'MsTx'"),
        ("TASK rows with endNs < startNs", "SELECT count(*) FROM TASK WHERE endNs < startNs"),
        ("duplicate globalTaskId", "SELECT count(*) - count(DISTINCT globalTaskId) FROM TASK"),
        ("TASK rows outside SESSION_TIME_INFO",
         "SELECT count(*) FROM TASK, SESSION_TIME_INFO s WHERE startNs < s.startTimeNs OR endNs > s.endTimeNs"),
        ("CANN_API pids not matching TASK.globalPid",
         "SELECT count(*) FROM (SELECT DISTINCT globalTid >> 32 AS p FROM CANN_API)"
         " WHERE p NOT IN (SELECT globalPid FROM TASK)"),
        ("NPU_INFO devices without their RANK_DEVICE_MAP row (msprof-analyze CROSS JOIN)",
         "SELECT count(*) FROM NPU_INFO n LEFT JOIN RANK_DEVICE_MAP r ON r.deviceId = n.id"
         " WHERE r.deviceId IS NULL"),
        ("RANK_DEVICE_MAP rows for no NPU_INFO device",
         "SELECT count(*) FROM RANK_DEVICE_MAP r LEFT JOIN NPU_INFO n ON n.id = r.deviceId"
         " WHERE n.id IS NULL"),
        ("COMMUNICATION_OP rows whose TASK rows span devices or models (msprof-analyze drops them)",
         "SELECT count(*) FROM COMMUNICATION_OP o WHERE (SELECT count(DISTINCT deviceId) FROM TASK t"
         " WHERE t.connectionId = o.connectionId) != 1 OR (SELECT count(DISTINCT modelId) FROM TASK t"
         " WHERE t.connectionId = o.connectionId) != 1"),
        ("COMMUNICATION_OP rows whose connectionId is not a node launch",
         "SELECT count(*) FROM COMMUNICATION_OP o LEFT JOIN CANN_API a ON a.connectionId = o.connectionId"
         " AND a.type = 10000 WHERE a.connectionId IS NULL"),
    ]
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    for what, sql in checks:
        need = [t for t in ("COMPUTE_TASK_INFO", "COMMUNICATION_TASK_INFO", "COMMUNICATION_OP",
                            "MSTX_EVENTS", "CANN_API", "TASK") if t in sql]
        if any(t not in tables for t in need):
            continue
        n = one(sql)
        if n:
            fails.append("%d %s" % (n, what))
    if mstx is not None:
        n = one("SELECT count(*) FROM MSTX_EVENTS") if "MSTX_EVENTS" in tables else 0
        if n != mstx:
            fails.append("MSTX_EVENTS has %d rows, %d stamps were issued" % (n, mstx))
    for f in fails:
        print("FAIL: " + f)
    print("export_check: %d tasks checked, %d problems" % (sum(want.values()), len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
