#!/usr/bin/python3
"""Check what the device mirror launched (tests/vm/mirror_test under
`npuprof record`) against the exported database.

usage: mirror_check.py MANIFEST HOST_DUMP DB

MANIFEST is mirror_test's stdout: per op its result, tid, host range and
plan (npuprof_mirror_describe), per task its modelled duration. HOST_DUMP is
tests/vm/mirror_dump's output for the session's host streams: the framework op
records and the CANN API records with their host times and connectionIds.

Checked for every op, in order:
- its framework op record is in the stream, on the op's thread;
- the acl-level API records inside its range are exactly the plan's aclnn
  operators, each as <op>GetWorkspaceSize then <op> (none for an op without
  device work);
- the node-level `launch` records inside it (what the export's
  CONNECTION_IDS links to the op) are CANN_API rows of the db, and the TASK
  rows with their connectionIds are the op's tasks (as many as the runtime
  submitted), each with a COMPUTE_TASK_INFO row named after one of the op's
  operators and a device time no shorter than the modelled duration;
- once the export writes the framework tables (PYTORCH_API present): the
  op's PYTORCH_API row and its CONNECTION_IDS are the same launches.
Prints one line per failed check and exits non-zero if any failed.
"""
import re
import sys

from mirror_lib import open_db, read_dump

SLACK_NS = 40  # the device counter ticks at 50 MHz: two ticks


def main():
    manifest, dump, dbpath = sys.argv[1:4]
    ops, tasks = [], {}
    for line in open(manifest):
        f = line.rstrip("\n").split("\t")
        if f[0] == "op":
            ops.append(dict(i=int(f[1]), name=f[2], r=int(f[3]), tid=int(f[4]),
                            start=int(f[5]), end=int(f[6]), ntasks=int(f[7]),
                            plan=f[8] if len(f) > 8 else ""))
        elif f[0] == "task":
            tasks.setdefault(int(f[1]), []).append(int(f[4]))
        elif f[0] == "bench":
            print("mirror cost: %s: %s ns per op (%s calls, recorded)" % (f[1], f[3], f[2]))
    fwk, api = read_dump(dump)
    db, s, tables = open_db(dbpath)
    cann = {}
    for st, en, typ, conn, name in db.execute(
            "SELECT startNs, endNs, type, connectionId, name FROM CANN_API"):
        cann.setdefault(conn, []).append((typ, s.get(name)))
    task_rows = {}
    for conn, st, en, cname in db.execute(
            "SELECT t.connectionId, t.startNs, t.endNs, c.name FROM TASK t "
            "LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId"):
        task_rows.setdefault(conn, []).append((en - st, s.get(cname)))
    fails = []
    if not ops:
        fails.append("no ops in the manifest")
    mirrored = sum(1 for o in ops if o["r"] == 1)
    print("ops: %d, mirrored: %d, tasks: %d" % (len(ops), mirrored,
                                               sum(len(v) for v in tasks.values())))
    links = {}
    for o in ops:
        name = o["name"]
        # the op's record: reported inside the manifest's bounds (the
        # database's clock; the record came in the reporter ABI's)
        rec = [r for r in fwk if r[4] == name and r[0] == o["tid"] and o["start"] <= r[1]
               and r[2] <= o["end"]]
        if len(rec) != 1 or rec[0][3] != 50001:
            fails.append("%s: %d framework op records for it (%s)" % (name, len(rec), rec))
            continue
        o["start"], o["end"] = rec[0][1], rec[0][2]
        want = [] if o["r"] != 1 else [a for n in re.findall(r"(aclnn\w+)\(", o["plan"])
                                       for a in (n + "GetWorkspaceSize", n)]
        inside = sorted((a for a in api if a[0] == o["tid"] and o["start"] < a[1]
                         and a[2] < o["end"]), key=lambda a: a[1])
        acl = [a[5] for a in inside if a[3] == 20000]
        if acl != want:
            fails.append("%s: acl-level APIs %s, expected %s (plan %s)"
                         % (name, acl, want, o["plan"]))
        launch = [a[4] for a in inside if a[3] == 10000 and a[5] == "launch"]
        links[o["i"]] = set(launch)
        if o["r"] != 1:
            if inside:
                fails.append("%s: no device work, but APIs inside: %s" % (name, inside))
            continue
        if not launch:
            fails.append("%s: no launch inside" % name)
        rows = []
        for c in launch:
            if (10000, "launch") not in cann.get(c, []):
                fails.append("%s: launch connectionId %d is no CANN_API launch row" % (name, c))
            rows += task_rows.get(c, [])
        if len(rows) != o["ntasks"] or len(rows) != len(tasks.get(o["i"], [])):
            fails.append("%s: %d TASK rows off its launches, the runtime submitted %d"
                         % (name, len(rows), o["ntasks"]))
            continue
        apis = set(re.findall(r"(aclnn\w+)\(", o["plan"]))
        for dur, cname in rows:
            if cname is None or cname.split("_")[0] not in apis:
                fails.append("%s: task with COMPUTE_TASK_INFO %r, not one of %s"
                             % (name, cname, sorted(apis)))
        for got, model in zip(sorted(d for d, _ in rows), sorted(tasks[o["i"]])):
            if got + SLACK_NS < model:
                fails.append("%s: device time %d ns, modelled %d" % (name, got, model))
        print("  %-34s %s: device ns %s, modelled %s" % (
            name, "+".join(sorted({c.split("_")[0] for _, c in rows if c})),
            sorted(d for d, _ in rows), sorted(tasks[o["i"]])))
    if "PYTORCH_API" in tables:
        check_framework(db, s, ops, links, fails)
    else:
        print("framework tables: not in this export (PYTORCH_API/CONNECTION_IDS come with "
              "the export's framework pass): the PYTORCH_API join is not checked")
    for f in fails:
        print("FAIL: " + f)
    return 1 if fails else 0


def check_framework(db, s, ops, links, fails):
    """The PYTORCH_API row of each op and its CONNECTION_IDS: the same
    launches as derived from the streams."""
    rows = {}
    for name, st, en, cid in db.execute(
            "SELECT name, startNs, endNs, connectionId FROM PYTORCH_API ORDER BY startNs"):
        rows.setdefault(s.get(name), []).append(cid)
    conns = {}
    for i, c in db.execute("SELECT id, connectionId FROM CONNECTION_IDS"):
        conns.setdefault(i, set()).add(c)
    launch = {c for (c,) in db.execute(
        "SELECT a.connectionId FROM CANN_API a JOIN STRING_IDS n ON n.id = a.name "
        "WHERE a.type = 10000 AND n.value = 'launch'")}
    seen = {}
    for o in ops:
        k = seen.get(o["name"], 0)
        seen[o["name"]] = k + 1
        got = rows.get(o["name"], [])
        if k >= len(got):
            fails.append("PYTORCH_API: no row %d named %s" % (k, o["name"]))
            continue
        cid = got[k]
        linked = conns.get(cid, set()) & launch if cid is not None else set()
        if linked != links.get(o["i"], set()):
            fails.append("PYTORCH_API %s #%d: CONNECTION_IDS launches %s, expected %s"
                         % (o["name"], k, sorted(linked), sorted(links.get(o["i"], set()))))
    print("framework join: %d PYTORCH_API rows checked" % sum(seen.values()))


if __name__ == "__main__":
    sys.exit(main())
