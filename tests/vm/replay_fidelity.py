#!/usr/bin/env python3
"""How faithfully a replay reproduces a real msprof database.

usage: replay_fidelity.py FIXTURE.db REPLAY.db [--table]

Compares the database npuprof exported from `npuwork --scenario replay
--db FIXTURE.db` with the fixture itself (issue 19):
  - the task-type histogram is identical
  - total device time (sum of task durations) within 1%, per type within 2%
    (types whose fixture total is below 10 us: within 1 us per task, since
    the device counter of a short task is itself a few tens of ns)
  - TASK rows whose connectionId joins CANN_API: within one of the fixture's
  - COMPUTE_TASK_INFO equal as a multiset of (opName, opType, blockDim)
  - COMMUNICATION_OP and COMMUNICATION_TASK_INFO counts equal, every op's
    duration (matched by opName) within 5%
  - the multiset of per-stream task counts equal
  - CANN_API equal as a multiset of (level, name)
  - TASK.contextId: the same multiset of values
  - the average dispatch gap (idle time before a task on its stream) within
    5% (+ 1 us)
With --table it prints the issue's measurements as "name<TAB>real<TAB>now"
lines. Exit status 0 when every check holds.
"""
import collections
import sqlite3
import sys

NONE32 = 4294967295


def q(db, sql):
    return db.execute(sql).fetchall()


def has(db, table):
    return bool(q(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name='%s'" % table))


def strs(db):
    return dict(q(db, "SELECT id, value FROM STRING_IDS"))


def measure(path):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    s = strs(db)
    m = {}
    tasks = q(db, "SELECT startNs, endNs, taskType, streamId, connectionId, contextId, "
                  "globalTaskId FROM TASK")
    m["hist"] = collections.Counter(s.get(t[2]) for t in tasks)
    m["total"] = sum(t[1] - t[0] for t in tasks)
    per = collections.Counter()
    for t in tasks:
        per[s.get(t[2])] += t[1] - t[0]
    m["per_type"] = per
    m["streams"] = sorted(collections.Counter(t[3] for t in tasks).values())
    bystream = collections.Counter()
    for t in tasks:
        bystream[t[3]] += t[1] - t[0]
    cnt = collections.Counter(t[3] for t in tasks)
    m["stream_time"] = sorted((cnt[k], v) for k, v in bystream.items())
    m["ctx"] = collections.Counter(t[5] for t in tasks if t[5] != NONE32)
    apis = {}
    m["apis"] = collections.Counter()
    if has(db, "CANN_API"):
        for c, typ, name in q(db, "SELECT connectionId, type, name FROM CANN_API"):
            apis[c] = 1
            m["apis"][(typ, s.get(name))] += 1
    m["linked"] = sum(1 for t in tasks if t[4] in apis)
    m["compute"] = collections.Counter()
    if has(db, "COMPUTE_TASK_INFO"):
        cols = [c[1] for c in q(db, "PRAGMA table_info(COMPUTE_TASK_INFO)")]
        bdcol = "blockNum" if "blockNum" in cols else "blockDim"  # 1.2.0 renamed it
        for name, optype, bd in q(db, "SELECT name, opType, %s FROM COMPUTE_TASK_INFO" % bdcol):
            m["compute"][(s.get(name), s.get(optype), bd)] += 1
    m["ops"] = {}
    if has(db, "COMMUNICATION_OP"):
        for name, st, en in q(db, "SELECT opName, startNs, endNs FROM COMMUNICATION_OP"):
            m["ops"][s.get(name)] = en - st
    m["comm_tasks"] = q(db, "SELECT count(*) FROM COMMUNICATION_TASK_INFO")[0][0] \
        if has(db, "COMMUNICATION_TASK_INFO") else 0
    # dispatch gaps: idle time before each task (not an FFTS+ subtask) on
    # its stream
    gaps, last = [], {}
    for st, en, typ, sid, conn, ctx, g in sorted(tasks):
        if ctx != NONE32:
            continue
        if sid in last and st > last[sid]:
            gaps.append(st - last[sid])
        last[sid] = max(en, last.get(sid, 0))
    m["gap"] = sum(gaps) / len(gaps) if gaps else 0
    m["span"] = (max(t[1] for t in tasks) - min(t[0] for t in tasks)) if tasks else 0
    m["ranks"] = q(db, "SELECT rankId FROM RANK_DEVICE_MAP") if has(db, "RANK_DEVICE_MAP") else []
    return m


def main():
    fx, rp = measure(sys.argv[1]), measure(sys.argv[2])
    fails = []

    def check(ok, what):
        print("%s %s" % ("ok  " if ok else "FAIL", what))
        if not ok:
            fails.append(what)

    check(fx["hist"] == rp["hist"], "task-type histogram: %d vs %d tasks%s" % (
        sum(fx["hist"].values()), sum(rp["hist"].values()),
        "" if fx["hist"] == rp["hist"] else " diff %s" % dict(
            (fx["hist"] - rp["hist"]) + (rp["hist"] - fx["hist"]))))
    r = rp["total"] / fx["total"] if fx["total"] else 1
    check(abs(r - 1) <= 0.01, "total device time %.3f ms vs %.3f ms (%.4f)" % (
        rp["total"] / 1e6, fx["total"] / 1e6, r))
    for typ in sorted(fx["per_type"], key=str):
        a, b = fx["per_type"][typ], rp["per_type"].get(typ, 0)
        if a < 10000:
            ok = abs(a - b) <= 1000 * fx["hist"][typ]
        else:
            ok = abs(b - a) <= 0.02 * a
        check(ok, "  %s: %d ns vs %d ns (%.4f)" % (typ, b, a, b / a if a else float(b == 0)))
    check(abs(rp["linked"] - fx["linked"]) <= 1, "TASK->CANN_API linked %d vs %d" % (
        rp["linked"], fx["linked"]))
    check(fx["compute"] == rp["compute"], "COMPUTE_TASK_INFO %d vs %d rows%s" % (
        sum(rp["compute"].values()), sum(fx["compute"].values()),
        "" if fx["compute"] == rp["compute"] else ": missing %d, extra %d" % (
            sum((fx["compute"] - rp["compute"]).values()),
            sum((rp["compute"] - fx["compute"]).values()))))
    check(len(fx["ops"]) == len(rp["ops"]) and fx["comm_tasks"] == rp["comm_tasks"],
          "COMMUNICATION_OP %d vs %d, COMMUNICATION_TASK_INFO %d vs %d" % (
              len(rp["ops"]), len(fx["ops"]), rp["comm_tasks"], fx["comm_tasks"]))
    for name, d in sorted(fx["ops"].items()):
        got = rp["ops"].get(name)
        check(got is not None and abs(got - d) <= 0.05 * d,
              "  op %s: %s ns vs %d ns" % (name, got, d))
    check(fx["streams"] == rp["streams"], "per-stream counts %s vs %s" % (
        rp["streams"], fx["streams"]))
    check(fx["apis"] == rp["apis"], "CANN_API %d vs %d rows%s" % (
        sum(rp["apis"].values()), sum(fx["apis"].values()),
        "" if fx["apis"] == rp["apis"] else ": missing %s, extra %s" % (
            dict(list((fx["apis"] - rp["apis"]).items())[:5]),
            dict(list((rp["apis"] - fx["apis"]).items())[:5]))))
    check(fx["ctx"] == rp["ctx"], "TASK.contextId: %d distinct (%d rows) vs %d (%d)" % (
        len(rp["ctx"]), sum(rp["ctx"].values()), len(fx["ctx"]), sum(fx["ctx"].values())))
    check(abs(rp["gap"] - fx["gap"]) <= 0.05 * fx["gap"] + 1000,
          "dispatch gap avg %.1f us vs %.1f us" % (rp["gap"] / 1e3, fx["gap"] / 1e3))
    if "--table" in sys.argv:
        ew = lambda m: m["per_type"].get("EVENT_WAIT", 0)
        big = lambda m: max(m["stream_time"]) if m["stream_time"] else (0, 0)
        rows = [
            ("tasks", sum(fx["hist"].values()), sum(rp["hist"].values())),
            ("total device time ms", fx["total"] / 1e6, rp["total"] / 1e6),
            ("total ratio", 1, rp["total"] / fx["total"]),
            ("EVENT_WAIT total ms", ew(fx) / 1e6, ew(rp) / 1e6),
            ("per-stream counts", fx["streams"], rp["streams"]),
            ("busiest stream time ms", big(fx)[1] / 1e6, big(rp)[1] / 1e6),
            ("stream tasks:ms", " ".join("%d:%.1f" % (c, t / 1e6) for c, t in fx["stream_time"]),
             " ".join("%d:%.1f" % (c, t / 1e6) for c, t in rp["stream_time"])),
            ("COMMUNICATION_OP / TASK_INFO", "%d / %d" % (len(fx["ops"]), fx["comm_tasks"]),
             "%d / %d" % (len(rp["ops"]), rp["comm_tasks"])),
            ("TASK linked to CANN_API", fx["linked"], rp["linked"]),
            ("COMPUTE_TASK_INFO rows", sum(fx["compute"].values()),
             sum(rp["compute"].values())),
            ("EVENT_RECORD avg ns", fx["per_type"]["EVENT_RECORD"] / max(1, fx["hist"]["EVENT_RECORD"]),
             rp["per_type"]["EVENT_RECORD"] / max(1, rp["hist"]["EVENT_RECORD"])),
            ("Write Value avg ns", fx["per_type"]["Write Value"] / max(1, fx["hist"]["Write Value"]),
             rp["per_type"]["Write Value"] / max(1, rp["hist"]["Write Value"])),
            ("contextId distinct", len(fx["ctx"]), len(rp["ctx"])),
            ("CANN_API rows", sum(fx["apis"].values()), sum(rp["apis"].values())),
            ("session span ms", fx["span"] / 1e6, rp["span"] / 1e6),
            ("dispatch gap avg us", fx["gap"] / 1e3, rp["gap"] / 1e3),
            ("ranks", fx["ranks"], rp["ranks"]),
        ]
        for name, a, b in rows:
            print("TABLE\t%s\t%s\t%s" % (name, a, b))
    print("fidelity: %d checks failed" % len(fails))
    sys.exit(1 if fails else 0)


main()
