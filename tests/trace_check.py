#!/usr/bin/python3
"""trace_check.py TRACE.json [DB] [--min KIND=N ...] - checks an npuprof trace JSON.

Against the Chrome trace-event format (JSON Object Format): the file parses;
every event has a known ph, a name, integer pid/tid and a numeric ts; X has
dur >= 0; flows ("s"/"f") pair by (cat, name, id), each once, "f" with bp
"e", and each end lies inside an X slice of its own thread (the slice the
viewer binds it to); async ranges ("b"/"e") pair by (cat, id); every pid
used has a process_name and every (pid, tid) a thread_name; on each thread
the X slices come in time order and nest (a slice that starts inside
another ends inside it); counters are non-negative and each series ends
at 0.

With DB (the msprof database the trace was written from): every TASK row
appears exactly once as a task slice, named by its COMPUTE_TASK_INFO
operator name (else its task type), at exactly (startNs - origin)/1000
µs for (endNs-startNs)/1000 (origin: otherData.startTimeUnixNs, not after
SESSION_TIME_INFO.startTimeNs); every TASK with a CANN_API row of its connectionId
has a flow from that API slice; the CANN_API, COMMUNICATION_OP and
MSTX_EVENTS rows are all there; in a PyTorch database every PYTORCH_API
row is a framework slice (cat torch_*) at its time, every task a torch
op's CANN links reach has an "async_npu" flow from that op, and every
Enqueue/Dequeue pair its "async_task_queue" flow.

--min KIND=N: at least N of X (all slices), task, api, fwk (framework slices), fwk_linked
(tasks with a torch flow), fwk_queue, flow, hccl (collective ops), mark,
range, counter, process, thread. Prints a summary; exit 1 with the reasons
on failure.
"""
import bisect
import collections
import decimal
import json
import sqlite3
import sys

D = decimal.Decimal
PHASES = set("XBEisSftCMbne")
errors = []


def err(msg):
    if len(errors) < 30:
        errors.append(msg)
    elif len(errors) == 30:
        errors.append("... (more)")


ORIGIN = 0  # Unix ns of ts 0 (otherData.startTimeUnixNs)


def us(ns):
    return D(ns - ORIGIN) / 1000


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--min")]
    mins = {}
    it = iter(argv[1:])
    for a in it:
        if a == "--min":
            k, v = next(it).split("=")
            mins[k] = int(v)
            args.remove(k + "=" + v)
    path = args[0]
    db = args[1] if len(args) > 1 else None
    with open(path, encoding="utf-8") as f:
        doc = json.load(f, parse_float=D)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        print("FAIL: not a JSON Object Format trace (no traceEvents list)")
        return 1
    evs = doc["traceEvents"]
    global ORIGIN
    try:
        ORIGIN = int(doc["otherData"]["startTimeUnixNs"])
    except (KeyError, TypeError, ValueError):
        print("FAIL: no otherData.startTimeUnixNs")
        return 1
    count = collections.Counter()
    pnames, tnames = {}, {}
    used = set()
    slices = collections.defaultdict(list)  # (pid, tid) -> [(ts, end, name)] in file order
    flows = collections.defaultdict(lambda: {"s": [], "f": []})
    asyncs = collections.defaultdict(lambda: {"b": [], "e": []})
    counters = collections.defaultdict(list)
    tasks = collections.defaultdict(list)  # globalTaskId -> [event]
    fwk = []  # framework slices
    for i, e in enumerate(evs):
        ph = e.get("ph")
        if ph not in PHASES:
            err(f"event {i}: ph {ph!r}")
            continue
        if not isinstance(e.get("name"), str):
            err(f"event {i}: no name")
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            err(f"event {i}: pid/tid not integers")
            continue
        ts = e.get("ts")
        if not isinstance(ts, (int, D)):
            err(f"event {i}: ts {ts!r}")
            continue
        key = (e["pid"], e["tid"])
        if ph == "M":
            name = e.get("args", {}).get("name")
            if e["name"] == "process_name":
                pnames[e["pid"]] = name
            elif e["name"] == "thread_name":
                tnames[key] = name
            continue
        used.add(key)
        if ph == "X":
            dur = e.get("dur")
            if not isinstance(dur, (int, D)) or dur < 0:
                err(f"event {i}: X dur {dur!r}")
                continue
            slices[key].append((D(ts), D(ts) + D(dur), e["name"]))
            count["X"] += 1
            cat = e.get("cat")
            if cat == "task":
                count["task"] += 1
                tasks[e["args"]["globalTaskId"]].append(e)
            elif cat == "collective":
                count["hccl"] += 1
            elif isinstance(cat, str) and cat.startswith("torch_"):
                count["fwk"] += 1
                fwk.append(e)
            else:
                count["api"] += 1
        elif ph in "sf":
            flows[(e.get("cat"), e["name"], e.get("id"))][ph].append(e)
            if ph == "f":
                count["flow"] += 1
                if e.get("bp") != "e":
                    err(f"event {i}: flow end without bp 'e'")
        elif ph in "be":
            asyncs[(e.get("cat"), e.get("id"))][ph].append(e)
            count["range"] += ph == "b"
        elif ph == "i":
            count["mark"] += 1
            if e.get("s") not in ("t", "p", "g"):
                err(f"event {i}: instant scope {e.get('s')!r}")
        elif ph == "C":
            count["counter"] += 1
            counters[(e["pid"], e["name"])].append(e)
    count["process"] = len(pnames)
    count["thread"] = len(tnames)

    # names for every pid and (pid, tid) used
    for pid, tid in sorted(used):
        if not pnames.get(pid):
            err(f"pid {pid} has no process_name")
        if not tnames.get((pid, tid)):
            err(f"pid {pid} tid {tid} has no thread_name")

    # per thread: time order and nesting
    for key, sl in slices.items():
        last = None
        stack = []
        for ts, end, name in sl:
            if last is not None and ts < last:
                err(f"thread {key}: {name!r} at {ts} before the previous slice at {last}")
            last = ts
            while stack and stack[-1][0] <= ts:
                stack.pop()
            if stack and end > stack[-1][0]:
                err(f"thread {key}: {name!r} [{ts}, {end}] overlaps {stack[-1][1]!r} ending {stack[-1][0]}")
            stack.append((end, name))

    # per thread: slice starts, and the latest end among the slices so far
    # (slices nest, so a time is inside some slice iff the last slice
    # starting at or before it, or one enclosing it, ends at or after it)
    reach = {}
    for key, sl in slices.items():
        starts, ends, m = [], [], None
        for ts, end, _ in sorted(sl):
            m = end if m is None or end > m else m
            starts.append(ts)
            ends.append(m)
        reach[key] = (starts, ends)

    def bound(e):
        """is e's ts inside an X slice of its thread"""
        starts, ends = reach.get((e["pid"], e["tid"]), ([], []))
        i = bisect.bisect_right(starts, D(e["ts"])) - 1
        return i >= 0 and ends[i] >= D(e["ts"])

    for fid, p in flows.items():
        if len(p["s"]) != 1 or len(p["f"]) != 1:
            err(f"flow {fid}: {len(p['s'])} starts, {len(p['f'])} ends")
            continue
        s, f = p["s"][0], p["f"][0]
        if not bound(s):
            err(f"flow {fid}: start at {s['ts']} on {s['pid']}/{s['tid']} is in no slice")
        if not bound(f):
            err(f"flow {fid}: end at {f['ts']} on {f['pid']}/{f['tid']} is in no slice")
    for aid, p in asyncs.items():
        if len(p["b"]) != 1 or len(p["e"]) != 1:
            err(f"range {aid}: {len(p['b'])} begins, {len(p['e'])} ends")
        elif D(p["e"][0]["ts"]) < D(p["b"][0]["ts"]):
            err(f"range {aid}: ends before it begins")
    for cid, cs in counters.items():
        vals = [c["args"]["depth"] for c in cs]
        if min(vals) < 0:
            err(f"counter {cid}: negative value")
        if vals[-1] != 0:
            err(f"counter {cid}: ends at {vals[-1]}, not 0")
        tss = [D(c["ts"]) for c in cs]
        if tss != sorted(tss) or len(set(tss)) != len(tss):
            err(f"counter {cid}: samples not in strictly increasing time")

    if db:
        check_db(db, tasks, flows, count, fwk)

    for k, n in mins.items():
        if count[k] < n:
            err(f"{count[k]} {k}, expected at least {n}")
    print(f"{path}: {len(evs)} events; " + ", ".join(f"{k} {v}" for k, v in sorted(count.items())))
    if errors:
        print("FAIL:\n  " + "\n  ".join(errors))
        return 1
    print("ok")
    return 0


def check_db(db, tasks, flows, count, fwk):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def rows(t):
        return con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] if t in tables else 0

    if "SESSION_TIME_INFO" in tables:
        st = con.execute("SELECT startTimeNs FROM SESSION_TIME_INFO").fetchone()
        if st and st[0] is not None and ORIGIN > st[0]:
            err(f"origin {ORIGIN} after the session's start {st[0]}")
    if "TASK" in tables:
        comp = "COMPUTE_TASK_INFO" in tables
        q = ("SELECT t.globalTaskId, t.startNs, t.endNs, tt.value, "
             + ("cn.value " if comp else "NULL ")
             + "FROM TASK t LEFT JOIN STRING_IDS tt ON tt.id = t.taskType "
             + ("LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId "
                "LEFT JOIN STRING_IDS cn ON cn.id = c.name" if comp else ""))
        n = 0
        for gtid, start, end, ttype, op in con.execute(q):
            n += 1
            evs = tasks.get(gtid, [])
            if len(evs) != 1:
                err(f"TASK globalTaskId {gtid}: {len(evs)} task slices")
                continue
            e = evs[0]
            want = op if op and op != "N/A" else (ttype if ttype and ttype != "N/A" else "task")
            if e["name"] != want:
                err(f"TASK {gtid}: named {e['name']!r}, not {want!r}")
            if e["args"].get("taskType") != (ttype if ttype and ttype != "N/A" else "task"):
                err(f"TASK {gtid}: args.taskType {e['args'].get('taskType')!r}, not {ttype!r}")
            if D(e["ts"]) != us(start) or D(e["dur"]) != D(max(end - start, 0)) / 1000:
                err(f"TASK {gtid}: ts/dur {e['ts']}/{e['dur']}, not {us(start)}/{D(end - start) / 1000}")
        if n != count["task"]:
            err(f"{count['task']} task slices for {n} TASK rows")
        if "CANN_API" in tables:
            linked = con.execute("SELECT t.globalTaskId FROM TASK t JOIN CANN_API a "
                                 "ON a.connectionId = t.connectionId").fetchall()
            for (gtid,) in linked:
                if ("launch", "launch", 2 * gtid) not in flows:
                    err(f"TASK {gtid}: no flow from its launch")
            count["linked"] = len(linked)
    if "PYTORCH_API" in tables:
        check_fwk(con, tables, tasks, flows, count, fwk)
    if rows("CANN_API") != count["api"]:
        err(f"{count['api']} API slices for {rows('CANN_API')} CANN_API rows")
    if rows("COMMUNICATION_OP") != count["hccl"]:
        err(f"{count['hccl']} collective slices for {rows('COMMUNICATION_OP')} COMMUNICATION_OP rows")
    if rows("MSTX_EVENTS") != count["mark"] + count["range"]:
        err(f"{count['mark']} marks + {count['range']} ranges for {rows('MSTX_EVENTS')} MSTX_EVENTS rows")


def check_fwk(con, tables, tasks, flows, count, fwk):
    """every PYTORCH_API row is a framework slice at its time (a multiset
    of (name, ts, dur)); every task a torch op's CANN links reach has an
    async_npu flow from a framework slice starting where that op does;
    every Enqueue has its flow to its Dequeue"""
    q = ("SELECT CAST(p.startNs AS INTEGER), CAST(p.endNs AS INTEGER), n.value FROM PYTORCH_API p "
         "LEFT JOIN STRING_IDS n ON n.id = p.name")
    want = collections.Counter()
    for start, end, name in con.execute(q):
        want[(name, us(start), D(max(end - start, 0)) / 1000)] += 1
    got = collections.Counter((e["name"], D(e["ts"]), D(e["dur"])) for e in fwk)
    missing = want - got
    for k, v in list(missing.items())[:5]:
        err(f"PYTORCH_API row {k}: {v} not in the trace")
    if sum(want.values()) != count["fwk"]:
        err(f"{count['fwk']} framework slices for {sum(want.values())} PYTORCH_API rows")
    starts = {D(e["ts"]) for e in fwk}
    if "CONNECTION_IDS" in tables and "TASK" in tables and "CANN_API" in tables:
        reached = con.execute(
            "SELECT t.globalTaskId, MIN(CAST(p.startNs AS INTEGER)) FROM PYTORCH_API p "
            "JOIN CONNECTION_IDS c ON c.id = p.connectionId "
            "JOIN CANN_API a ON a.connectionId = c.connectionId "
            "JOIN TASK t ON t.connectionId = c.connectionId GROUP BY t.globalTaskId").fetchall()
        for gtid, start in reached:
            fid = ("async_npu", "async_npu", (2 << 49) + gtid)
            if fid not in flows:
                err(f"TASK {gtid}: no flow from the torch op that launched it")
            elif D(flows[fid]["s"][0]["ts"]) != us(start) or us(start) not in starts:
                err(f"TASK {gtid}: its torch flow starts at {flows[fid]['s'][0]['ts']}, not {us(start)}")
        count["fwk_linked"] = len(reached)
        pairs = con.execute(
            "SELECT c.connectionId FROM PYTORCH_API p JOIN CONNECTION_IDS c ON c.id = p.connectionId "
            "WHERE p.type = 50002 AND c.connectionId NOT IN (SELECT connectionId FROM CANN_API) "
            "GROUP BY c.connectionId HAVING COUNT(*) = 2").fetchall()
        for (conn,) in pairs:
            if ("async_task_queue", "async_task_queue", (3 << 49) + conn) not in flows:
                err(f"link {conn}: no flow from its Enqueue to its Dequeue")
        count["fwk_queue"] = len(pairs)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
