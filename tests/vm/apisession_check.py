#!/usr/bin/python3
"""apisession_check.py - the database of a CANN-style profiling sample
(tests/sdk/prof_sample) against what the sample says it did.

  apisession_check.py DB EXPECTED SOURCE [OTHER_DB]

EXPECTED is the sample's stdout (key=value lines). SOURCE is the task time
source META_DATA must name: "stars" (captured by npuprof.ko, times from the STARS log) or "host"
(a host-only session). Checks:
  - TASK rows are exactly the launched tasks: per taskType the launched
    count, no other type; captured tasks have positive device durations;
    every copy and event task joins its CANN_API call by connectionId;
  - MSTX_EVENTS rows are the stamps (count, messages);
  - CANN_API rows are the calls (aclrtMemcpyAsync / aclrtRecordEvent counts,
    every name an acl call);
  - with OTHER_DB (the same program under `npuprof record`): the same TASK
    rows by type, the same MSTX_EVENTS, and for every CANN_API name of DB
    the same count (record also sees the calls before aclprofStart).
Prints one line per table; exits 1 on the first mismatch.
"""
import collections
import sqlite3
import sys


def fail(msg):
    print("apisession_check: FAIL: " + msg)
    sys.exit(1)


def rows(db, sql):
    try:
        return db.execute(sql).fetchall()
    except sqlite3.OperationalError as e:
        if "no such table" in str(e):
            return []
        raise


def summary(path):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    s = {}
    s["tasks"] = collections.Counter(
        r[0] for r in rows(db, "SELECT s.value FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType"))
    s["mstx"] = collections.Counter(
        r[0] for r in rows(db, "SELECT s.value FROM MSTX_EVENTS m JOIN STRING_IDS s ON s.id = m.message"))
    s["api"] = collections.Counter(
        r[0] for r in rows(db, "SELECT s.value FROM CANN_API a JOIN STRING_IDS s ON s.id = a.name"))
    s["meta"] = dict(rows(db, "SELECT name, value FROM META_DATA"))
    s["bad_dur"] = rows(db, "SELECT count(*) FROM TASK WHERE endNs <= startNs")[0][0] if s["tasks"] else 0
    s["unjoined"] = rows(db, """SELECT count(*) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType
        WHERE s.value IN ('MEMCPY_ASYNC', 'EVENT_RECORD')
        AND t.connectionId NOT IN (SELECT connectionId FROM CANN_API)""")[0][0] if s["tasks"] else 0
    tables = [r[0] for r in rows(db, "SELECT name FROM sqlite_master WHERE type = 'table'")]
    s["counts"] = {t: rows(db, "SELECT count(*) FROM %s" % t)[0][0] for t in sorted(tables)}
    return s


def main():
    if len(sys.argv) not in (4, 5):
        fail("usage: apisession_check.py DB EXPECTED stars|host [OTHER_DB]")
    want = {}
    for line in open(sys.argv[2]):
        if "=" in line:
            k, v = line.strip().split("=", 1)
            want[k] = int(v)
    s = summary(sys.argv[1])
    print("apisession_check: rows per table: " +
          ", ".join("%s %d" % kv for kv in s["counts"].items()))
    wt = {k[6:]: v for k, v in want.items() if k.startswith("tasks.") and v}
    if dict(s["tasks"]) != wt:
        fail("TASK rows by type %s, launched %s" % (dict(s["tasks"]), wt))
    if s["bad_dur"]:
        fail("%d TASK rows end before they start" % s["bad_dur"])
    if s["unjoined"]:
        fail("%d copy/event TASK rows join no CANN_API row" % s["unjoined"])
    print("apisession_check: TASK %s" % dict(s["tasks"]))
    if sum(s["mstx"].values()) != want["stamps"]:
        fail("MSTX_EVENTS %d rows, %d stamps" % (sum(s["mstx"].values()), want["stamps"]))
    if set(s["mstx"]) - {"round", "all rounds", "sample done"}:
        fail("MSTX_EVENTS messages %s" % dict(s["mstx"]))
    print("apisession_check: MSTX_EVENTS %s" % dict(s["mstx"]))
    # every acl call inside the collection, and the runtime-level row the
    # runtime records under it; nothing else
    runtime_level = {"aclrtMemcpyAsync": "MemcpyAsync", "aclrtRecordEvent": "EventRecord",
                     "aclrtSynchronizeStream": "StreamSynchronize"}
    wa = collections.Counter()
    for k, v in want.items():
        if k.startswith("api."):
            wa[k[4:]] = v
            wa[runtime_level[k[4:]]] = v
    if s["api"] != wa:
        fail("CANN_API rows %s, calls %s" % (dict(s["api"]), dict(wa)))
    print("apisession_check: CANN_API %s" % dict(s["api"]))
    src = s["meta"].get("npuprof.task_time_source")
    if src != sys.argv[3]:
        fail("META_DATA npuprof.task_time_source=%s, want %s" % (src, sys.argv[3]))
    if len(sys.argv) == 5:
        o = summary(sys.argv[4])
        if o["tasks"] != s["tasks"]:
            fail("under record TASK %s, API-driven %s" % (dict(o["tasks"]), dict(s["tasks"])))
        if o["mstx"] != s["mstx"]:
            fail("under record MSTX_EVENTS %s, API-driven %s" % (dict(o["mstx"]), dict(s["mstx"])))
        for n, c in s["api"].items():
            if o["api"][n] != c:
                fail("CANN_API %s: %d under record, %d API-driven" % (n, o["api"][n], c))
        print("apisession_check: under npuprof record: the same TASK, MSTX_EVENTS and CANN_API rows")
    print("apisession_check: ok")


main()
