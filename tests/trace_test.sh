#!/bin/sh
# tests/trace_test.sh - the trace JSON (`npuprof export --json`) checked by
# tests/trace_check.py against the database it was written from: a session
# export (the committed recording tests/fixtures/replay/flood_stall), a
# synthetic dbgen database with API calls, collectives, memcpys and
# msproftx markers, and each real 910B database of the fixtures (HCCL
# streams with concurrent SDMA tasks); then the command line's refusals.
# Run by scripts/run-unit.sh as one test; prints "trace_test: ok|FAIL".
TEST=trace_test
. "$(dirname "$0")/testlib.sh"
B=${BUILD:-build}
P=$B/bin/npuprof
G=$B/tests/bin/dbgen
C="/usr/bin/python3 tests/trace_check.py"
[ -x $P ] && [ -x $G ] || fail "no $P or $G (make first)"

# a session: export --json writes DIR/npuprof_trace.json beside the database
S=$tmp/s
cp -r tests/fixtures/replay/flood_stall "$S"
$P export --quiet --json "$S" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "export --json of the recording"; }
$C "$S/npuprof_trace.json" "$S"/msprof_*.db --min task=200 --min counter=2 >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "the recording's trace"; }
ls -a "$S" | grep -q npuprof-tmp && fail "a temporary was left in $S"

# a synthetic database: every kind of event
$G --tasks 20000 -o "$tmp/msprof_20260101000000.db" >/dev/null || fail "dbgen"
$P export --json "$tmp/msprof_20260101000000.db" -o "$tmp/gen.json" >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "export --json FILE.db -o"; }
grep -q "20000 tasks" "$tmp/out" || { cat "$tmp/out"; fail "no '20000 tasks' in the summary"; }
$C "$tmp/gen.json" "$tmp/msprof_20260101000000.db" --min task=20000 --min flow=20000 \
	--min api=40000 --min hccl=300 --min mark=10 --min range=10 --min counter=1000 >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "the synthetic database's trace"; }
# without -o: beside the database
$P export --quiet --json "$tmp/msprof_20260101000000.db" || fail "export --json FILE.db"
cmp -s "$tmp/gen.json" "$tmp/npuprof_trace.json" || fail "the trace beside the database differs from -o's"

# the real msprof databases (read-only: -o elsewhere)
n=0
for d in tests/fixtures/real; do
	[ -d $d ] || continue
	for f in $d/*.db; do
		$P export --quiet --json "$f" -o "$tmp/real.json" >"$tmp/out" 2>&1 ||
			{ cat "$tmp/out"; fail "export --json $f"; }
		$C "$tmp/real.json" "$f" --min task=500 --min flow=500 --min hccl=1 \
			--min fwk=2460 --min fwk_linked=500 --min fwk_queue=150 >"$tmp/out" 2>&1 ||
			{ cat "$tmp/out"; fail "the trace of $f"; }
		n=$((n + 1))
	done
	break
done
[ $n -gt 0 ] || note "no real fixtures found: skipped them"

# the command line
$P export --json --pytorch "$tmp/msprof_20260101000000.db" >"$tmp/out" 2>&1
[ $? = 2 ] && grep -q "only --json" "$tmp/out" || { cat "$tmp/out"; fail "--pytorch with a database file is not refused"; }
$P export "$tmp/msprof_20260101000000.db" >"$tmp/out" 2>&1
[ $? = 2 ] || { cat "$tmp/out"; fail "a database file without --json is not refused"; }
$P export --json -o "$tmp/x.json" "$S" >"$tmp/out" 2>&1
[ $? = 2 ] && grep -q "\-o applies" "$tmp/out" || { cat "$tmp/out"; fail "-o with a session directory is not refused"; }
echo "not a database at all, only text, long enough to fill a header" >"$tmp/junk.db"
$P export --json "$tmp/junk.db" -o "$tmp/junk.json" >"$tmp/out" 2>&1
[ $? = 1 ] && grep -q "junk.db" "$tmp/out" || { cat "$tmp/out"; fail "a file that is no database: not exit 1 naming it"; }
[ -e "$tmp/junk.json" ] && fail "a failed trace left its output"
echo "$TEST: ok"
