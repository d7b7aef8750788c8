# Faults beyond stalls (sourced by tests/vm/run.sh): npusim's fault file
# injects a lost completion, a device reset mid-stream, a completion for a
# task never submitted and a CQ the host stops receiving; the tracer's
# reader is paused until its rings overflow. Each is checked where it shows:
# the driver's own interface (fault_test), the counts of `npuprof stat`, the
# database `npuprof export` writes, and the hang detector's verdict.
#
# Workloads are fault_test's `work`: tasks of a fixed device time, so a run
# lasts as long on a fast KVM guest as on a loaded TCG one, and the faults
# land while it runs (each test waits for the stream to have work first).
# npusim completes as a 910B (its default): these AI Core tasks write no
# CQE, only an aborted task's error CQE and an injected unknown one come;
# `work ... cqe` sets wr_cqe on every task where a test is about CQEs.

FT=$TB/fault_test
FP=build/bin/npuprof
FX=/tmp/faults
FF=/proc/trs_chan/dev0-ts0/fault
fup() { load_sim "$@" && { loaded npuprof || insmod $NPUPROF_KO; } && rm -rf $FX && mkdir -p $FX; }
# facts DB: what a database says, as shell assignments: its TASK rows,
# tasks with derived times, in flight at stop, completions without a
# submit, drops, rows with an id above 40000, and `bad`, which is "0 0 0"
# when every task appears once and none ends before it starts (the
# workloads here stay below 65536 tasks a stream, so the key is unique)
facts() {
	python3 - "$1" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
one = lambda sql: db.execute(sql).fetchone()[0]
meta = lambda n: one("SELECT value FROM META_DATA WHERE name = 'npuprof.%s'" % n)
print("tasks=%s derived=%s inflight=%s orphans=%s drops=%s high=%s" % (
    one("SELECT count(*) FROM TASK"), meta("derived_tasks"),
    meta("tasks_in_flight_at_stop"), meta("completions_without_submit"),
    meta("drops"), one("SELECT count(*) FROM TASK WHERE taskId > 40000")))
print("bad='%s %s %s'" % (one("SELECT count(*) FROM TASK WHERE endNs < startNs"),
    one("SELECT count(*) - count(DISTINCT globalTaskId) FROM TASK"),
    one("SELECT count(*) FROM (SELECT 1 FROM TASK GROUP BY deviceId, streamId, taskId HAVING count(*) > 1)")))
EOF
}
# dbfacts DIR: the facts of the session's database under DIR, echoed
dbfacts() {
	f=$(facts "$(ls "$1"/PROF_*/msprof_*.db | head -1)") || return 1
	eval "$f"
	echo "$1:" $f
}
# fcount NAME: a counter of device 0's fault file
fcount() { sed -n "s/^$1 //p" $FF; }
# busy DEV STREAM: wait (up to 60 s) until the stream has tasks queued
busy() {
	i=0
	while [ $i -lt 600 ]; do
		awk -v s="$2" '$1 == "stream" && $2 == s && $8 > 0 { f = 1 } END { exit !f }' \
			/proc/trs_chan/dev$1-ts0/summary 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "stream $2 of device $1 never got busy"
	return 1
}
# work_pid FILE: the pid fault_test work printed into FILE
work_pid() {
	i=0
	while [ $i -lt 300 ] && ! grep -q '^work: pid' "$1" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
	sed -n 's/^work: pid \([0-9]*\) .*/\1/p' "$1"
}

# no_hang CMD N [cqe]: the hang detector watches N one-millisecond tasks
# (with cqe: each asking for a CQE) on device 0 stream 0 and fault CMD
# injected once the stream is busy: the program ends well and no hang is
# reported
no_hang() {
	$FP watch --engine kmod --threshold 1000 -- $FT work 0 $2 1000 ${3:-} > $FX/w.out 2>&1 &
	wp=$!
	busy 0 0 || { kill $wp; wait $wp; return 1; }
	echo "$1" > $FF
	wait $wp
	rc=$?
	cat $FX/w.out
	[ $rc = 0 ] && ! grep -q HANG $FX/w.out
}

# the commands, their counters, and what is refused
t_fault_cmds() {
	fup || return 1
	for c in dropped resets aborted unknown cq_overflow; do
		[ "$(fcount $c)" = 0 ] || { cat $FF; return 1; }
	done
	echo "cqfull 3" > $FF && grep -qx 'cqfull stream 3' $FF || return 1
	echo reset > $FF && [ "$(fcount resets)" = 1 ] && [ "$(fcount aborted)" = 0 ] || return 1
	echo clear > $FF && ! grep -q cqfull $FF || return 1
	for c in "cqfull 99999" "unknown 0" "unknown 0 70000" "unknown" "resets" "reset 1x"; do
		! echo "$c" > $FF 2>/dev/null || { echo "accepted: $c"; return 1; }
	done
	cat $FF
}

# a lost completion (no STARS END record; a 910B writes no CQE for these
# tasks anyway): the task is still there, its times derived
t_drop() {
	fup || return 1
	echo "drop 0" > $FF
	$FP record --quiet -o $FX/d --engine kmod -- $FT work 0 200 200 > $FX/d.out || return 1
	cat $FX/d.out
	dbfacts $FX/d || return 1
	[ "$(fcount dropped)" = 1 ] && grep -q 'work: 200 tasks, 0 CQEs, 0 errors' $FX/d.out &&
		[ $tasks = 200 ] && [ $derived = 1 ] && [ $inflight = 0 ] && [ $orphans = 0 ] &&
		[ "$bad" = "0 0 0" ]
}

# resets mid-stream: every task submitted ends (completed, or aborted with an
# error CQE, the only CQEs) and appears once; the aborted ones, without task
# times, derived
t_reset() {
	fup || return 1
	$FP record --quiet -o $FX/r --engine kmod -- $FT work 0 3000 1000 > $FX/r.out &
	rp=$!
	for k in 1 2 3; do
		busy 0 0 || { kill $rp; wait $rp; return 1; }
		echo reset > $FF
		sleep 0.3
	done
	wait $rp || { cat $FX/r.out; return 1; }
	cat $FX/r.out
	ab=$(fcount aborted)
	echo "resets $(fcount resets), aborted $ab"
	dbfacts $FX/r || return 1
	[ "$(fcount resets)" = 3 ] && [ "$ab" -gt 0 ] &&
		grep -q "work: 3000 tasks, $ab CQEs, $ab errors, 0 unknown" $FX/r.out &&
		[ $tasks = 3000 ] && [ "$derived" = "$ab" ] && [ $inflight = 0 ] &&
		[ $orphans = 0 ] && [ "$bad" = "0 0 0" ]
}

# a reset frees a stalled stream: the aborted tasks completed (with an
# error CQE each, the only CQEs), so the hang detector sees no hang; the
# stall is gone with it
t_reset_watch() {
	fup || return 1
	$FP watch --engine kmod --threshold 3000 -- $FT work 0 4000 1000 > $FX/rw.out 2>&1 &
	wp=$!
	busy 0 0 || { kill $wp; wait $wp; return 1; }
	echo "stall 0 0" > $FF
	i=0
	while [ $i -lt 100 ] && ! grep 'stall stream 0' $FF | grep -q ' task '; do sleep 0.02; i=$((i + 1)); done
	echo reset > $FF
	grep -q stall $FF && { cat $FF; return 1; }
	wait $wp
	rc=$?
	cat $FX/rw.out
	ab=$(fcount aborted)
	[ $rc = 0 ] && ! grep -q HANG $FX/rw.out && [ "$ab" -gt 0 ] &&
		grep -q "work: 4000 tasks, $ab CQEs, $ab errors" $FX/rw.out
}

# completions for tasks never submitted: counted as such, each its own row,
# and no hang for the watcher
t_unknown() {
	fup || return 1
	$FP record --quiet -o $FX/u --engine kmod -- $FT work 0 2000 1000 > $FX/u.out &
	rp=$!
	busy 0 0 || { kill $rp; wait $rp; return 1; }
	for t in 40001 40002 40003; do echo "unknown 0 $t" > $FF; sleep 0.1; done
	wait $rp || return 1
	cat $FX/u.out
	dbfacts $FX/u || return 1
	grep -q 'work: 2000 tasks, 3 CQEs, 0 errors, 3 unknown' $FX/u.out &&
		[ $orphans = 3 ] && [ $high = 3 ] && [ $tasks = 2003 ] &&
		[ $inflight = 0 ] && [ "$bad" = "0 0 0" ] || return 1
	no_hang "unknown 0" 2000
}

# the host stops receiving: the device completes every task (each asks for
# a CQE), the CQEs that find the CQ full are lost and counted (the driver
# says so once); the tracer sees every completion, and no hang
t_cqfull() {
	fup || return 1
	dmesg -c > /dev/null
	$FP record --quiet -o $FX/c --engine kmod -- $FT work 0 3000 1000 cqe > $FX/c.out &
	rp=$!
	busy 0 0 || { kill $rp; wait $rp; return 1; }
	echo "cqfull 0" > $FF
	wait $rp || return 1
	echo clear > $FF
	cat $FX/c.out
	ovf=$(fcount cq_overflow)
	echo "cq_overflow $ovf"
	dmesg | grep 'CQ full'
	dbfacts $FX/c || return 1
	[ "$ovf" -gt 0 ] && dmesg | grep -q 'npusim: dev 0 stream 0: CQ full' &&
		[ $tasks = 3000 ] && [ $inflight = 0 ] && [ $orphans = 0 ] &&
		[ "$bad" = "0 0 0" ] || return 1
	no_hang "cqfull 0" 3000 cqe
	rc=$?
	echo clear > $FF
	return $rc
}

# with cq_hold=1 a full CQ holds the stream, as the hardware does: a program
# that stopped receiving (its tasks ask for CQEs) really hangs, and the
# watcher says where; killing it tears the held stream down
t_cqhold_watch() {
	fup cq_hold=1 || return 1
	$FP watch --engine kmod --threshold 1000 -- $FT work 0 1000000 100 cqe > $FX/hw.out 2>&1 &
	wp=$!
	busy 0 0 || { kill $wp; wait $wp; return 1; }
	echo "cqfull 0" > $FF
	i=0
	pending=
	while [ $i -lt 300 ] && kill -0 $wp 2>/dev/null && ! grep -q HANG $FX/hw.out; do
		[ -n "$pending" ] || pending=$(awk '$1 == "stream" && $2 == 0 && $14 == 1024 { print $14 }' /proc/trs_chan/dev0-ts0/summary)
		sleep 0.1
		i=$((i + 1))
	done
	pid=$(work_pid $FX/hw.out)
	[ -n "$pid" ] && kill -9 $pid 2>/dev/null
	wait $wp
	rc=$?
	echo clear > $FF
	cat $FX/hw.out
	echo "watch exit $rc; CQ pending $pending; cq_overflow $(fcount cq_overflow)"
	[ $rc = 3 ] && grep -q 'HANG on device 0 stream 0' $FX/hw.out &&
		[ "$pending" = 1024 ] && [ "$(fcount cq_overflow)" = 0 ] &&
		! grep -q '^stream' /proc/trs_chan/dev0-ts0/summary
}

# paused CMD...: a flood under CMD (an npuprof capture of it), its reader
# stopped from when the flood starts until two seconds after it ended
paused() {
	rm -f $FX/go
	"$@" -- sh -c "echo \$\$ > $FX/go; exec build/bin/npuwork --scenario flood --tasks 40000 --devices 1 --quiet" > $FX/p.out 2>&1 &
	pp=$!
	i=0
	while [ $i -lt 300 ] && [ ! -s $FX/go ]; do sleep 0.05; i=$((i + 1)); done
	kill -STOP $pp
	child=$(cat $FX/go)
	i=0
	while [ $i -lt 1200 ] && [ "$(awk '{ print $3 }' /proc/$child/stat 2>/dev/null)" != Z ]; do sleep 0.1; i=$((i + 1)); done
	sleep 2
	kill -CONT $pp
	wait $pp || { cat $FX/p.out; return 1; }
}

# the reader paused for seconds: its rings overflow, the drops are counted
# by stat and in the session's META_DATA, and the database stays consistent
t_reader_paused() {
	fup || return 1
	paused $FP record --quiet -o $FX/p --engine kmod --ring-kb 64 || return 1
	dbfacts $FX/p || return 1
	[ "$drops" -gt 1000 ] && [ "$bad" = "0 0 0" ] || return 1
	for e in kmod bpf; do
		paused $FP stat --engine $e --ring-kb 64 || return 1
		d=$(sed -n 's/^ *\([0-9]*\)  dropped.*/\1/p' $FX/p.out)
		s=$(sed -n 's/^ *\([0-9]*\)  submit .*/\1/p' $FX/p.out)
		echo "stat $e: $s submits seen, $d dropped"
		[ "$d" -gt 1000 ] && [ "$s" -lt 40000 ] || { cat $FX/p.out; return 1; }
	done
}

run faults.cmds t_fault_cmds
run faults.reset_driver sh -c ". tests/vm/lib.sh; load_sim && $FT reset"
run faults.reset_driver_every_cqe sh -c ". tests/vm/lib.sh; load_sim cqe_mode=0 && $FT reset"
run faults.unknown_driver sh -c ". tests/vm/lib.sh; load_sim && $FT unknown"
run faults.cqfull_driver sh -c ". tests/vm/lib.sh; load_sim && $FT cqfull"
run faults.cqhold_driver sh -c ". tests/vm/lib.sh; load_sim cq_hold=1 && $FT cqhold"
run faults.drop t_drop
run faults.reset t_reset
run faults.reset_watch t_reset_watch
run faults.unknown t_unknown
run faults.cqfull t_cqfull
run faults.cqhold_watch t_cqhold_watch
run faults.reader_paused t_reader_paused
cleanup_modules
