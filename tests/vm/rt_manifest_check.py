#!/usr/bin/env python3
"""Compare an npuwork manifest with what npusim was sent.

usage: rt_manifest_check.py MANIFEST TRACE

TRACE is the tracefs text of the trs_chan:sqe event ("Task Send", one line
per SQE the driver forwarded to the device). Every task in the manifest must
have been sent exactly once, with the same device, stream, task id and SQE
type, and nothing else may have been.
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
pat = re.compile(r"sqe: Task Send: devid=(\d+) .* type=(\d+) task_id=(\d+) stream_id=(\d+)")
for line in open(sys.argv[2]):
    m = pat.search(line)
    if m:
        dev, typ, task, stream = (int(x) for x in m.groups())
        ran[(dev, stream, task, typ)] += 1

missing = man - ran
extra = ran - man
print("manifest: %d tasks; npusim was sent: %d tasks; missing %d, extra %d"
      % (sum(man.values()), sum(ran.values()), sum(missing.values()), sum(extra.values())))
for k, v in list(missing.items())[:5]:
    print("  not sent:", k, v)
for k, v in list(extra.items())[:5]:
    print("  not in manifest:", k, v)
sys.exit(0 if not missing and not extra and man else 1)
