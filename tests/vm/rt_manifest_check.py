#!/usr/bin/env python3
"""Compare an npuwork manifest with what npusim executed.

usage: rt_manifest_check.py MANIFEST TRACE

TRACE is the tracefs text of the npusim:task_time event (one line per task
that ran). Every task in the manifest must have run exactly once, with the
same device, stream, task id and SQE type, and nothing else may have run.
"""
import collections
import re
import sys

man = collections.Counter()
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    dev, stream, task, batch, sqe, typ, dur, nbytes, conn = line.rstrip("\n").split("\t")
    man[(int(dev), int(stream), int(task), int(sqe))] += 1

ran = collections.Counter()
pat = re.compile(r"task_time: devid=(\d+) tsid=\d+ sq_id=\d+ stream_id=(\d+) task_id=(\d+) type=(\d+)")
for line in open(sys.argv[2]):
    m = pat.search(line)
    if m:
        ran[tuple(int(x) for x in m.groups())] += 1

missing = man - ran
extra = ran - man
print("manifest: %d tasks; npusim ran: %d tasks; missing %d, extra %d"
      % (sum(man.values()), sum(ran.values()), sum(missing.values()), sum(extra.values())))
for k, v in list(missing.items())[:5]:
    print("  not run:", k, v)
for k, v in list(extra.items())[:5]:
    print("  not in manifest:", k, v)
sys.exit(0 if not missing and not extra and man else 1)
