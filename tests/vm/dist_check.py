#!/usr/bin/python3
"""Check the two ranks of tests/vm/torch_dist_job.py: every mirrored
collective of torch.distributed is a framework op linked to its
COMMUNICATION_OP.

usage: dist_check.py MANIFEST0 HOST_DUMP0 DB0 MANIFEST1 HOST_DUMP1 DB1

Per rank: its RANK_DEVICE_MAP row (rank r on device r); one framework op
record per collective of the manifest (named HcclAllreduce ..., on the
calling thread, within the collective's call); inside it exactly one
node-level `launch` (the rule of the export's CONNECTION_IDS), whose
connectionId is that of a CANN_API launch row and of one COMMUNICATION_OP
of the right type and element count, with its tasks on the rank's device;
no COMMUNICATION_OP without such a record. Across ranks: the same
communicator (groupName) and the same collectives in the same order. Once
the export writes the framework tables (PYTORCH_API present): each
collective's PYTORCH_API row reaches its COMMUNICATION_OP through
CONNECTION_IDS -> CANN_API.connectionId = COMMUNICATION_OP.connectionId.
Prints one line per failed check; exits non-zero if any failed.
"""
import sys

from mirror_lib import open_db, read_dump

OP_TYPES = {"HcclAllreduce": "hcom_allReduce_", "HcclBroadcast": "hcom_broadcast_",
            "HcclAllgather": "hcom_allGather_", "HcclBarrier": "hcom_allReduce_",
            "HcclReduceScatter": "hcom_reduceScatter_"}


def check_rank(rank, manifest, dump, dbpath, fails):
    colls = []
    for line in open(manifest):
        f = line.rstrip("\n").split("\t")
        if f[0] == "coll":
            colls.append(dict(name=f[1], tid=int(f[2]), t0=int(f[3]), t1=int(f[4]),
                              n=int(f[5])))
    fwk, api = read_dump(dump)
    db, s, tables = open_db(dbpath)
    pfx = "rank %d: " % rank
    if not colls:
        fails.append(pfx + "no collectives in the manifest")
    rdm = db.execute("SELECT rankId, deviceId FROM RANK_DEVICE_MAP").fetchall() \
        if "RANK_DEVICE_MAP" in tables else []
    if rdm != [(rank, rank)]:
        fails.append(pfx + "RANK_DEVICE_MAP %s, expected [(%d, %d)]" % (rdm, rank, rank))
    comm = {}
    for conn, optype, count, group, opname in db.execute(
            "SELECT connectionId, opType, count, groupName, opName FROM COMMUNICATION_OP"):
        comm[conn] = (s.get(optype, optype), count, s.get(group, group), s.get(opname, opname))
    launches = {c for (c,) in db.execute(
        "SELECT a.connectionId FROM CANN_API a JOIN STRING_IDS n ON n.id = a.name "
        "WHERE a.type = 10000 AND n.value = 'launch'")}
    task_dev = {}
    for conn, dev in db.execute("SELECT connectionId, deviceId FROM TASK"):
        task_dev.setdefault(conn, set()).add(dev)
    seq, used, links = [], set(), []
    for c in colls:
        rec = [r for r in fwk if r[4] == c["name"] and r[0] == c["tid"] and c["t0"] <= r[1]
               and r[2] <= c["t1"]]
        if len(rec) != 1 or rec[0][3] != 50001:
            fails.append(pfx + "%s at %d: %d framework op records (%s)"
                         % (c["name"], c["t0"], len(rec), rec))
            continue
        tid, st, en = rec[0][:3]
        inner = [a for a in api if a[0] == tid and st < a[1] and a[2] < en and a[3] == 10000
                 and a[5] == "launch"]
        if len(inner) != 1:
            fails.append(pfx + "%s at %d: %d launches inside its record"
                         % (c["name"], st, len(inner)))
            continue
        conn = inner[0][4]
        links.append(conn)
        if conn not in launches:
            fails.append(pfx + "%s: launch %d is no CANN_API launch row" % (c["name"], conn))
        op = comm.get(conn)
        if op is None:
            fails.append(pfx + "%s: launch %d has no COMMUNICATION_OP" % (c["name"], conn))
            continue
        used.add(conn)
        if op[0] != OP_TYPES[c["name"]] or op[1] != c["n"]:
            fails.append(pfx + "%s of %d elements: COMMUNICATION_OP %s" % (c["name"], c["n"], op))
        if task_dev.get(conn) != {rank}:
            fails.append(pfx + "%s: its tasks on devices %s" % (c["name"], task_dev.get(conn)))
        seq.append((c["name"], op[0], op[1], op[2]))
    extra = set(comm) - used
    if extra:
        fails.append(pfx + "COMMUNICATION_OP without a framework op: %s"
                     % sorted(comm[c] for c in extra))
    print(pfx + "%d collectives, %d COMMUNICATION_OP, %d linked" % (len(colls), len(comm),
                                                                  len(used)))
    if "PYTORCH_API" in tables:
        check_framework(db, s, pfx, colls, links, comm, fails)
    else:
        print(pfx + "framework tables: not in this export (PYTORCH_API/CONNECTION_IDS come "
              "with the export's framework pass): the PYTORCH_API join is not checked")
    return seq


def check_framework(db, s, pfx, colls, links, comm, fails):
    """PYTORCH_API -> CONNECTION_IDS -> CANN_API.connectionId =
    COMMUNICATION_OP.connectionId, for each collective in order."""
    rows = {}
    for name, cid in db.execute("SELECT name, connectionId FROM PYTORCH_API ORDER BY startNs"):
        rows.setdefault(s.get(name), []).append(cid)
    joined = {}
    for pid, conn in db.execute(
            "SELECT c.id, o.connectionId FROM CONNECTION_IDS c "
            "JOIN CANN_API a ON a.connectionId = c.connectionId "
            "JOIN COMMUNICATION_OP o ON o.connectionId = a.connectionId"):
        joined.setdefault(pid, set()).add(conn)
    seen = {}
    for c, conn in zip(colls, links):
        k = seen.get(c["name"], 0)
        seen[c["name"]] = k + 1
        got = rows.get(c["name"], [])
        if k >= len(got):
            fails.append(pfx + "PYTORCH_API: no row %d named %s" % (k, c["name"]))
            continue
        if joined.get(got[k], set()) != {conn}:
            fails.append(pfx + "PYTORCH_API %s #%d joins COMMUNICATION_OP %s, expected %d"
                         % (c["name"], k, sorted(joined.get(got[k], set())), conn))
    print(pfx + "framework join: %d PYTORCH_API rows reach their COMMUNICATION_OP"
          % sum(seen.values()))


def main():
    a = sys.argv[1:]
    if len(a) != 6:
        sys.exit(__doc__)
    fails = []
    s0 = check_rank(0, a[0], a[1], a[2], fails)
    s1 = check_rank(1, a[3], a[4], a[5], fails)
    if [x[:3] for x in s0] != [x[:3] for x in s1]:
        fails.append("the ranks' collectives differ: %s / %s" % (s0, s1))
    groups = {x[3] for x in s0 + s1}
    if len(groups) != 1:
        fails.append("%d communicators (%s), expected one" % (len(groups), sorted(groups)))
    for f in fails:
        print("FAIL: " + f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
