"""Checks what npuprof.torch recorded for tests/vm/torch_train.py against
what torch itself reported (the JSON torch_train.py wrote), first in the
raw host streams (through build/tests/vm/fwk_dump), then in the PyTorch
database of the export (docs/ascend-reference.md section 4).

    torch_check.py EXPECT.json                 package mode: each loop's
                                                <worker>_*_ascend_pt dirs
    torch_check.py EXPECT.json --record PROF    under `npuprof record`: the
                                                loops' records in PROF_*
    [--no-db]     only the raw records (the database is checked by default)

Raw checks, per loop: the torch ops (name, input shapes, sequence number)
equal torch's profiler's, as multisets; every backward op's sequence number
and forward thread name a forward op of that thread; one ProfilerStep#<n>
per active step and every op, mstx range and GC inside one; allocator
events equal torch's in count and sizes, their running totals consistent
with the sizes, the known 1 MiB allocation once per step; GC records after
gc.collect(); Python stacks innermost first, reaching the loop's source.
Database checks: the framework tables hold the same rows (PYTORCH_API,
STEP_TIME, MEMORY_RECORD, OP_MEMORY, GC_RECORD, PYTORCH_CALLCHAINS,
ENUM_API_TYPE, RANK_DEVICE_MAP, META_DATA), forward/backward ops share a
CONNECTION_IDS link, and with the device mirror every device task is
reachable from its torch op through CONNECTION_IDS -> CANN_API -> TASK.
Prints the tables' row counts and one framework-to-device join. Exit 1 on
any failure.
"""
import collections
import glob
import json
import os
import sqlite3
import subprocess
import sys

SEP = ";\r\n"
API_OP, API_MSTX = 50001, 50004
FWK_LINK = 5 << 28
MIB = 1 << 20
DUMP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "tests",
                    "vm", "fwk_dump")

failures = []


def check(cond, what):
    print("%s %s" % ("ok  " if cond else "FAIL", what))
    if not cond:
        failures.append(what)
    return cond


def fmt_shapes(shapes):
    if not shapes:
        return None
    return SEP.join("[" + ", ".join(str(d) for d in s) + "]" for s in shapes)


def dump(paths):
    p = subprocess.run([DUMP] + paths, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(p.returncode == 0, "fwk_dump %s: clean streams, every string resolved %s"
          % (" ".join(os.path.basename(x) for x in paths), p.stderr.strip()))
    recs = [json.loads(x) for x in p.stdout.splitlines()]
    for s in (r for r in recs if r["k"] == "stats"):
        check(s["lost"] == 0 and s["problems"] == 0,
              "%s: no record lost (%d), no damage (%d)" % (os.path.basename(s["file"]), s["lost"],
                                                          s["problems"]))
    return [r for r in recs if r["k"] != "stats"]


def is_step(r):
    return r["k"] == "op" and r["type"] == API_OP and r["name"].startswith("ProfilerStep#")


def torch_ops(recs):
    return [r for r in recs if r["k"] == "op" and r["type"] == API_OP and not is_step(r)]


def check_raw(loop, recs, exp, ref_mem):
    name = loop["loop"]
    ops = torch_ops(recs)
    steps = sorted((r for r in recs if is_step(r)), key=lambda r: r["start"])
    main_tid = exp["main_tid"]
    print("-- %s: %d torch ops, %d steps, %d mem, %d gc" % (
        name, len(ops), len(steps), sum(r["k"] == "mem" for r in recs),
        sum(r["k"] == "gc" for r in recs)))
    if loop["ref"]:
        ours = collections.Counter((r["name"], r["shapes"], r["seq"]) for r in ops)
        theirs = collections.Counter((o["name"], fmt_shapes(o["shapes"]), o["seq"])
                                     for o in loop["torch_ops"])
        check(ours == theirs and len(ops) > 0,
              "%s: ops equal torch's profiler's (name, shapes, seq): %d vs %d; ours-torch %s; "
              "torch-ours %s" % (name, len(ops), len(loop["torch_ops"]),
                                 list((ours - theirs).items())[:3],
                                 list((theirs - ours).items())[:3]))
        tf = collections.Counter((o["seq"] >= 0, o["fwd_thread"] != 0) for o in loop["torch_ops"])
        of = collections.Counter((r["seq"] >= 0, r["fwd_tid"] != 0) for r in ops)
        check(tf == of, "%s: ops with sequence numbers and forward threads as torch's: %s vs %s"
              % (name, dict(of), dict(tf)))
    check(all(r["tid"] == main_tid for r in ops), "%s: every op on the main thread %d"
          % (name, main_tid))
    # backward -> forward
    fwd = collections.defaultdict(list)
    for r in ops:
        if r["seq"] >= 0 and r["fwd_tid"] == 0:
            fwd[(r["tid"], r["seq"])].append(r)
    bwd = [r for r in ops if r["fwd_tid"] != 0]
    if name.startswith("train"):
        check(sum(r["name"].endswith("Backward0") and r["seq"] >= 0 for r in bwd) >= 6,
              "%s: backward ops with sequence numbers recorded (%d backward)" % (name, len(bwd)))
        # AccumulateGrad (a leaf's) has no sequence number, in torch too
        unlinked = [r for r in bwd if r["seq"] >= 0 and (r["fwd_tid"], r["seq"]) not in fwd]
        check(not unlinked, "%s: every backward op's (fwdThreadId, seq) names a forward op; "
              "unlinked: %s" % (name, [(r["name"], r["seq"], r["fwd_tid"]) for r in unlinked[:3]]))
        check(all(r["fwd_tid"] == main_tid for r in bwd),
              "%s: fwdThreadId is the forward thread's tid %d" % (name, main_tid))
        mm = [r for r in ops if r["name"] == "aten::addmm"]
        check(mm and all(r["dtypes"] and r["dtypes"].split(SEP)[0] == "float" for r in mm),
              "%s: aten::addmm input dtypes start with float" % name)
    else:
        check(not bwd, "%s: no backward op under no_grad" % name)
    # steps
    want = ["ProfilerStep#%d" % s for s in loop["active_steps"]]
    check([s["name"] for s in steps] == want, "%s: steps %s == active steps %s"
          % (name, [s["name"] for s in steps], want))

    def in_step(t0, t1):
        return any(s["start"] <= t0 and t1 <= s["end"] for s in steps)

    outside = [r for r in ops if not in_step(r["start"], r["end"])]
    check(not outside, "%s: every op inside a ProfilerStep (outside: %d)" % (name, len(outside)))
    # mstx
    mstx = [r for r in recs if r["k"] == "op" and r["type"] == API_MSTX]
    if name.startswith("train"):
        check(len(mstx) == len(steps) and all(r["name"] == "train_step" and in_step(r["start"], r["end"])
                                              for r in mstx),
              "%s: one mstx range per step, inside it (%d)" % (name, len(mstx)))
    # gc
    gcs = [r for r in recs if r["k"] == "gc"]
    check(len(gcs) >= len(steps) and sum(r["gen"] == 2 for r in gcs) >= len(steps)
          and all(in_step(r["start"], r["end"]) and r["start"] <= r["end"] for r in gcs),
          "%s: >= 1 full GC per step, inside it (%d)" % (name, len(gcs)))
    # stacks
    if name in ("train", "infer"):
        tops = [r for r in ops if r["stack"] is None]
        check(not tops, "%s: every op has a Python stack (%d without)" % (name, len(tops)))
        fr = ops[0]["stack"].split(SEP) if ops and ops[0]["stack"] else []
        check(len(fr) >= 2 and fr[-1].endswith(": <module>") and "torch_train.py(" in fr[-1]
              and any(f.endswith(": %s_step" % name) for f in fr)
              and all("(" in f and "): " in f for f in fr),
              "%s: stack frames file(line): func, innermost first, reaching %s_step: %s"
              % (name, name, fr[:2]))
    # memory
    mem = sorted((r for r in recs if r["k"] == "mem"), key=lambda r: r["t"])
    if loop["memory"]:
        sizes = collections.Counter(r["size"] for r in mem)
        check(ref_mem is not None and sizes == collections.Counter(ref_mem),
              "%s: allocator events equal torch's for the same steps: %d vs %s"
              % (name, len(mem), len(ref_mem) if ref_mem is not None else None))
        bad = [(a["alloc"], b["size"], b["alloc"]) for a, b in zip(mem, mem[1:])
               if b["alloc"] != a["alloc"] + b["size"]]
        check(mem and not bad, "%s: totalAllocated moves by each event's size (%d breaks %s)"
              % (name, len(bad), bad[:3]))
        check(sizes[MIB] == len(steps) and sizes[-MIB] == len(steps),
              "%s: the 1 MiB allocation and release once per step (%d, %d)"
              % (name, sizes[MIB], sizes[-MIB]))
        check(all(r["component"] == "PTA" and r["tid"] == main_tid for r in mem),
              "%s: memory events PTA, on the main thread" % name)
    else:
        check(not mem, "%s: no memory records without profile_memory (%d)" % (name, len(mem)))
    return ops


# ---- database ----

def q(db, sql, *a):
    return db.execute(sql, a).fetchall()


def tables(db):
    return {r[0] for r in q(db, "SELECT name FROM sqlite_master WHERE type='table'")}


def check_db(path, loops, recs, exp, mirror):
    label = os.path.basename(path)
    print("-- database %s" % path)
    db = sqlite3.connect(path)
    have = tables(db)
    need = {"PYTORCH_API", "STEP_TIME", "GC_RECORD", "ENUM_API_TYPE", "STRING_IDS", "META_DATA"}
    if mirror or any(l["loop"].startswith("train") for l in loops):
        need |= {"CONNECTION_IDS"}  # fwd_bwd links, launches
    if mirror:
        need |= {"RANK_DEVICE_MAP"}  # one row per device
    if any(l["memory"] for l in loops):
        need |= {"MEMORY_RECORD", "OP_MEMORY"}
    if any(l["loop"] in ("train", "infer") for l in loops):
        need |= {"PYTORCH_CALLCHAINS"}
    if not check(need <= have, "%s: framework tables present (missing %s)"
                 % (label, sorted(need - have))):
        return
    counts = {t: q(db, "SELECT COUNT(*) FROM %s" % t)[0][0] for t in sorted(have)}
    print("   row counts: " + ", ".join("%s %d" % kv for kv in counts.items()))
    s = dict(q(db, "SELECT id, value FROM STRING_IDS"))
    rows = q(db, "SELECT CAST(startNs AS INTEGER), CAST(endNs AS INTEGER), globalTid, connectionId, "
                 "name, sequenceNumber, fwdThreadId, inputDtypes, inputShapes, callchainId, type "
                 "FROM PYTORCH_API")
    api = [dict(zip(("start", "end", "gtid", "conn", "name", "seq", "fwd", "dtypes", "shapes",
                     "chain", "type"), r)) for r in rows]
    for r in api:
        r["name_s"] = s.get(r["name"])
        r["shapes_s"] = s.get(r["shapes"]) if r["shapes"] is not None else None
    raw_ops = [r for r in recs if r["k"] == "op"]
    check(len(api) == len(raw_ops), "%s: PYTORCH_API rows = recorded ops (%d, %d)"
          % (label, len(api), len(raw_ops)))
    check(collections.Counter((r["name_s"], r["shapes_s"], r["seq"] if r["type"] == API_OP and
                               not r["name_s"].startswith("ProfilerStep#") else None)
                              for r in api if r["type"] == API_OP) ==
          collections.Counter((r["name"], r["shapes"], r["seq"] if not is_step(r) else None)
                              for r in raw_ops if r["type"] == API_OP),
          "%s: PYTORCH_API (name, inputShapes, sequenceNumber) as recorded" % label)
    check(all(r["gtid"] == (exp["pid"] << 32) | exp["main_tid"] for r in api),
          "%s: globalTid = pid<<32|tid" % label)
    check(all(r["start"] <= r["end"] for r in api), "%s: startNs <= endNs" % label)
    enum = dict(q(db, "SELECT id, name FROM ENUM_API_TYPE"))
    check(all(i in enum for i in (50001, 50002, 50003, 50004)), "%s: ENUM_API_TYPE 50001-50004"
          % label)
    if mirror:
        check(counts["RANK_DEVICE_MAP"] >= 1, "%s: RANK_DEVICE_MAP has a row" % label)
    # fwd/bwd links
    links = collections.defaultdict(set)
    for i, c in q(db, "SELECT id, connectionId FROM CONNECTION_IDS") if "CONNECTION_IDS" in have else []:
        links[i].add(c)
    main_tid = exp["main_tid"]
    fw = {}
    for r in api:
        if r["type"] == API_OP and r["seq"] is not None and r["seq"] >= 0 and not r["fwd"]:
            fw.setdefault(r["seq"], []).append(r)
    bw = [r for r in api if r["fwd"]]
    if any(l["loop"].startswith("train") for l in loops):
        unl = []
        for r in bw:
            if r["seq"] is None or r["seq"] < 0:
                continue
            mine = {c for c in links.get(r["conn"], ()) if c >= FWK_LINK}
            theirs = set()
            for f in fw.get(r["seq"], []):
                theirs |= {c for c in links.get(f["conn"], ()) if c >= FWK_LINK}
            if not mine & theirs:
                unl.append((r["name_s"], r["seq"]))
        check(bw and not unl, "%s: every backward op shares a fwd_bwd CONNECTION_IDS link "
              "(>= 5<<28) with its forward op (%d backward, unlinked %s)" % (label, len(bw), unl[:3]))
        check(all(r["fwd"] == main_tid for r in bw), "%s: fwdThreadId = forward tid" % label)
    # steps
    st = q(db, "SELECT id, startNs, endNs FROM STEP_TIME ORDER BY startNs")
    want = sorted(n for l in loops for n in l["active_steps"])
    check(sorted(r[0] for r in st) == want, "%s: STEP_TIME ids %s == active steps %s"
          % (label, [r[0] for r in st], want))
    outside = [r for r in api if r["type"] == API_OP and not r["name_s"].startswith("ProfilerStep#")
               and not any(a <= r["start"] and r["end"] <= b for _, a, b in st)]
    check(not outside, "%s: every op inside a STEP_TIME range (%d outside)" % (label, len(outside)))
    # memory
    raw_mem = [r for r in recs if r["k"] == "mem"]
    if raw_mem:
        mr = q(db, "SELECT totalAllocated, component, deviceId FROM MEMORY_RECORD")
        check(sorted(r[0] for r in mr) == sorted(r["alloc"] for r in raw_mem),
              "%s: MEMORY_RECORD totalAllocated as recorded (%d rows)" % (label, len(mr)))
        om = q(db, "SELECT size, allocationTime, releaseTime FROM OP_MEMORY")
        pos = [r["size"] for r in raw_mem if r["size"] > 0]
        check(len(om) == len(pos) and sum(r[0] for r in om) == sum(pos),
              "%s: OP_MEMORY one row per allocation, sizes sum %d == %d"
              % (label, sum(r[0] for r in om), sum(pos)))
    gcr = q(db, "SELECT startNs, endNs, globalTid FROM GC_RECORD")
    check(len(gcr) == sum(r["k"] == "gc" for r in recs), "%s: GC_RECORD rows = recorded (%d)"
          % (label, len(gcr)))
    # callchains
    chains = collections.defaultdict(dict)
    if "PYTORCH_CALLCHAINS" in have:
        for i, frame, depth in q(db, "SELECT id, stack, stackDepth FROM PYTORCH_CALLCHAINS"):
            chains[i][depth] = s.get(frame)
    raw_st = collections.Counter(r["stack"] for r in raw_ops if r.get("stack"))
    db_st = collections.Counter(SEP.join(chains[r["chain"]][d] for d in sorted(chains[r["chain"]]))
                                for r in api if r["chain"] is not None)
    check(raw_st == db_st, "%s: PYTORCH_CALLCHAINS frames (depth 0 innermost) as recorded (%d)"
          % (label, sum(db_st.values())))
    if any(l["loop"] in ("train", "infer") for l in loops) and "META_DATA" in have and \
            not exp["under_record"]:
        md = dict(q(db, "SELECT name, value FROM META_DATA"))
        check("distributed_args" in md and json.loads(md["distributed_args"]) ==
              {"tensor_model_parallel_size": 1}, "%s: META_DATA distributed_args from "
              "profiler_metadata.json" % label)
    # framework -> device
    if mirror:
        cann = {r[0]: r for r in q(db, "SELECT connectionId, name, globalTid, startNs, endNs FROM CANN_API")}
        op_of = {}
        for r in api:
            for c in links.get(r["conn"], ()):
                if c < FWK_LINK:
                    op_of[c] = r
        tasks = q(db, "SELECT globalTaskId, connectionId, taskType, startNs FROM TASK")
        dev = [t for t in tasks if t[1] is not None and t[1] >= 0 and t[1] in cann]
        unreach = [t for t in dev if t[1] not in op_of]
        check(dev and not unreach, "%s: every device task (%d) reachable from its torch op "
              "through CONNECTION_IDS -> CANN_API -> TASK (%d not)" % (label, len(dev), len(unreach)))
        check(all(op_of[t[1]]["name_s"].startswith("aten::") for t in dev if t[1] in op_of),
              "%s: the ops owning device tasks are aten ops" % label)
        j = q(db, """SELECT ps.value, cs.value, t.globalTaskId, ts.value, ct.blockDim, ct.inputShapes
            FROM PYTORCH_API p JOIN CONNECTION_IDS ci ON ci.id = p.connectionId
            JOIN CANN_API c ON c.connectionId = ci.connectionId
            JOIN TASK t ON t.connectionId = c.connectionId
            JOIN COMPUTE_TASK_INFO ct ON ct.globalTaskId = t.globalTaskId
            JOIN STRING_IDS ps ON ps.id = p.name JOIN STRING_IDS cs ON cs.id = c.name
            LEFT JOIN STRING_IDS ts ON ts.id = ct.opType
            WHERE ps.value LIKE 'aten::%' ORDER BY ps.value = 'aten::linear' DESC, p.startNs
            LIMIT 1""") if "COMPUTE_TASK_INFO" in have else []
        if check(bool(j), "%s: a torch op joins to CANN API, device task and compute info" % label):
            print("   join: torch op %s -> CANN API %s -> task %s -> compute op type %s, "
                  "blockDim %s, input shapes %s" % j[0])
    db.close()


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    exp = json.load(open(args[0]))
    rec_dir = args[args.index("--record") + 1] if "--record" in args else None
    want_db = "--no-db" not in args
    loops = exp["loops"]
    ref_mem = next((l["torch_mem"] for l in loops if l["loop"] == "train" and l["ref"]), None)
    print("torch import took %.1f s; ops recorded %s" % (exp["import_seconds"], exp["stats"]))
    check(exp["stats"]["lost"] == 0, "no record lost in the rings")
    mirror = any(l["mirror"] for l in loops)
    if os.environ.get("TORCH_CHECK_MIRROR") == "1":
        check(mirror, "the device mirror was on")
    if mirror:
        check(exp["stats"]["mirror_ops"] > 0 and exp["stats"]["mirror_errors"] == 0,
              "mirror launched %d ops, %d errors" % (exp["stats"]["mirror_ops"],
                                                    exp["stats"]["mirror_errors"]))
    if rec_dir is None:
        for l in loops:
            check(len(l["dirs"]) == 1 and l["dirs"][0].endswith("_ascend_pt")
                  and os.path.basename(l["dirs"][0]).startswith(l["loop"] + "_"),
                  "%s: one <worker>_<time>_ascend_pt directory" % l["loop"])
            if not l["dirs"]:
                continue
            d = l["dirs"][0]
            info = glob.glob(os.path.join(d, "profiler_info*.json"))
            check(len(info) == 1 and json.load(open(info[0]))["rank_id"] == -1 and
                  os.path.basename(info[0]) == "profiler_info.json",
                  "%s: profiler_info.json (no rank)" % l["loop"])
            md = json.load(open(os.path.join(d, "profiler_metadata.json")))
            check({k: md.get(k) for k in ("loop", "distributed_args")} ==
                  {"loop": l["loop"], "distributed_args": {"tensor_model_parallel_size": 1}},
                  "%s: profiler_metadata.json holds add_metadata/add_metadata_json" % l["loop"])
            # the _ExperimentalConfig: in profiler_info.json as torch_npu
            # writes it, in the metadata with the switches it chose
            # (Level1: TASK_TIME|ACL_API|HCCL_TRACE|AICORE_METRICS, mstx on;
            # with profile_memory TASK_MEMORY)
            ec = md.get("npuprof.experimental_config", {})
            want_sw = 0x27 | 0x80 | (0x1000 if l["memory"] else 0)
            check(l["switches"] == want_sw and ec.get("aclprof_switches") == "0x%x" % want_sw and
                  ec.get("_profiler_level") == "Level1" and
                  json.load(open(info[0]))["config"]["experimental_config"] == l["config"],
                  "%s: the experimental config (Level1, switches 0x%x) in profiler_info.json and "
                  "the metadata" % (l["loop"], l["switches"] or 0))
            check(len(glob.glob(os.path.join(d, "PROF_*"))) == 1, "%s: one PROF_* inside" % l["loop"])
            recs = dump([d])
            check_raw(l, recs, exp, ref_mem)
            if want_db:
                dbs = glob.glob(os.path.join(d, "ASCEND_PROFILER_OUTPUT", "ascend_pytorch_profiler*.db"))
                if check(len(dbs) == 1 and os.path.basename(dbs[0]) == "ascend_pytorch_profiler.db",
                         "%s: ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler.db (rank -1)" % l["loop"]):
                    check_db(dbs[0], [l], recs, exp, l["mirror"])
    else:
        check(all(not l["dirs"] for l in loops), "under record: no directory of the profiler's own")
        allrecs = dump([rec_dir])
        for l in loops:
            part = [r for r in allrecs if l["t_start"] <= r.get("start", r.get("t", 0)) <= l["t_end"]]
            check_raw(l, part, exp, ref_mem)
        if want_db:
            dbs = glob.glob(os.path.join(rec_dir, "**", "ascend_pytorch_profiler*.db"), recursive=True)
            if check(len(dbs) == 1, "record: one PyTorch database (%s)" % dbs):
                check_db(dbs[0], loops, allrecs, exp, mirror)
    print("torch_check: %d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
