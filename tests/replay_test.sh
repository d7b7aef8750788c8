#!/bin/sh
# tests/replay_test.sh - `npuprof live`, `top` and `watch --from` replay the
# committed recording tests/fixtures/replay/flood_stall (a 200-task flood on
# npusim whose stream 0 the fault knob held until its tasks had waited about
# a second, recorded by tests/vm/suite_70_replay.sh, which also saved the
# outputs the tools printed in the guest) and must print exactly those outputs here (the file engine
# runs on stream time, so a replay is the same on every host). Then the
# capture filters on a replay, and --from's errors.
# Run by scripts/run-unit.sh as one test; prints "replay_test: ok|FAIL".
TEST=replay_test
. "$(dirname "$0")/testlib.sh"
P=${BUILD:-build}/bin/npuprof
F=tests/fixtures/replay
S=$F/flood_stall
RAW=$S/kernel/npuprof.kernel.raw
[ -x $P ] || fail "no $P (make first)"
[ -s $RAW ] || fail "no fixture $RAW"

# ---- the guest's outputs, byte for byte ----------------------------------
before=$(find $S -type f | sort | xargs cksum)
$P live --from $S >"$tmp/live.out" 2>"$tmp/live.err" || { cat "$tmp/live.err"; fail "live --from exits non-zero"; }
cmp -s "$tmp/live.out" $F/live.out || { diff $F/live.out "$tmp/live.out" | head; fail "live --from differs from the guest's"; }
$P top -b --interval 0.1 --from $S >"$tmp/top.out" 2>"$tmp/top.err" || { cat "$tmp/top.err"; fail "top --from exits non-zero"; }
cmp -s "$tmp/top.out" $F/top.out || { diff $F/top.out "$tmp/top.out" | head; fail "top --from differs from the guest's"; }
$P watch --threshold 500 --from $S >"$tmp/watch.out" 2>&1
rc=$?
[ $rc = 3 ] || { cat "$tmp/watch.out"; fail "watch --from exit $rc, not 3 (hang)"; }
cmp -s "$tmp/watch.out" $F/watch.out || { diff $F/watch.out "$tmp/watch.out" | head; fail "watch --from differs from the guest's"; }
# what the outputs say
[ "$(grep -c ' submit ' "$tmp/live.out")" = 200 ] || fail "live: not 200 submits"
[ "$(grep -c ' complete ' "$tmp/live.out")" = 200 ] || fail "live: not 200 completions"
[ "$(grep -c ' devtime ' "$tmp/live.out")" = 0 ] || fail "live: device task times from the kernel stream"
grep -q 'HANG on device 0 stream 0: task 0 (AI_VECTOR_CORE)' "$tmp/watch.out" || fail "watch: no hang of task 0"
grep -q 'queued behind it: 199 task(s)' "$tmp/watch.out" || fail "watch: not 199 queued behind"
grep -q ' (?) at ' "$tmp/watch.out" || fail "watch: looked up a recorded pid on this host"
grep -Eq '^ +0 +0 +0 +200 .* 200 +0$' "$tmp/top.out" || fail "top: no interval with 200 queued"
grep -Eq '^ +0 +0 +[1-9][0-9]* +0 .* 200 +200$' "$tmp/top.out" || fail "top: no interval with the completions"
# a threshold above the stall finds none
$P watch --threshold 3000 --from $S >"$tmp/w3" 2>&1
[ $? = 0 ] || { cat "$tmp/w3"; fail "watch --threshold 3000 found a hang or failed"; }
grep -q 'no hang' "$tmp/w3" || fail "watch --threshold 3000: no 'no hang' line"
# the recording is unchanged: a replay only reads
[ "$(find $S -type f | sort | xargs cksum)" = "$before" ] || fail "the replay changed $S"

# ---- the raw stream alone: same records (no session: no end time) ---------
$P live --from $RAW >"$tmp/alone.out" 2>/dev/null || fail "live --from RAW"
cmp -s "$tmp/alone.out" $F/live.out || fail "live --from the raw stream differs from --from the session"
cp $RAW "$tmp/copy.raw" && $P live --from "$tmp/copy.raw" >"$tmp/copy.out" 2>/dev/null &&
	cmp -s "$tmp/copy.out" $F/live.out || fail "live --from a copy outside its session differs"

# ---- filters apply as on the driver ------------------------------------------
n() { $P live "$@" --from $S 2>/dev/null | wc -l; }
[ "$(n --devices 1)" = 0 ] || fail "--devices 1 kept records of device 0"
[ "$(n --streams 5)" = 0 ] || fail "--streams 5 kept records of stream 0"
[ "$(n --pid 999999)" = 0 ] || fail "--pid of another process kept its tasks"
pid=$(sed -n 's/^pid=//p' $S/npuprof.session)
[ "$(n --pid "$pid")" = 400 ] || fail "--pid $pid: not 400 lines (its submits and their completions)"
sub=$($P live --sample 2 --from $S 2>/dev/null | grep -c ' submit ')
com=$($P live --sample 2 --from $S 2>/dev/null | grep -c ' complete ')
[ "$sub" -gt 0 ] && [ "$sub" -lt 200 ] && [ "$sub" = "$com" ] ||
	fail "--sample 2: $sub submits, $com completions (want fewer than 200, whole tasks)"

# ---- errors -----------------------------------------------------------------
$P live --from /nonexistent >"$tmp/e" 2>&1
[ $? = 2 ] && grep -q '/nonexistent' "$tmp/e" || fail "--from /nonexistent: not exit 2 naming the path"
head -c 100 /dev/zero >"$tmp/bad.raw"
$P live --from "$tmp/bad.raw" >"$tmp/e" 2>&1
[ $? = 1 ] && grep -q 'not a raw kernel stream' "$tmp/e" || fail "--from a non-stream: $(cat "$tmp/e")"
$P live --from $S -- true >"$tmp/e" 2>&1 && fail "--from with a command accepted"
grep -q 'no command' "$tmp/e" || fail "--from with a command: $(cat "$tmp/e")"
$P live --engine bpf --from $S >"$tmp/e" 2>&1 && fail "--from with --engine bpf accepted"
$P flight -o "$tmp/fl" --from $S >"$tmp/e" 2>&1
[ $? = 2 ] || fail "flight --from accepted"
mkdir "$tmp/empty"
$P top -b --from "$tmp/empty" >"$tmp/e" 2>&1 && fail "--from a directory without a session accepted"

echo "replay_test: ok (live, top and watch --from print the guest's outputs; raw stream alone; filters; errors)"
exit 0
