# Production sampling, the flight recorder and hang detection (sourced by
# tests/vm/run.sh): sampling ratios and estimated totals, duty-cycle windows
# and rate limits that keep tasks whole, flight memory bounds and dumps,
# npusim's fault knob, hangs caught (and not imagined), live and top.

P=build/bin/npuprof
W=build/bin/npuwork
PR=/tmp/prod
prod_up() { load_sim "$@" && { loaded npuprof || insmod $NPUPROF_KO; } && rm -rf $PR && mkdir -p $PR; }
# q DB SQL: one value from a database
q() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$1" "$2"; }
meta() { q "$1" "SELECT value FROM META_DATA WHERE name='$2'"; }
db_of() { ls "$1"/PROF_*/msprof_*.db | head -1; }
# whole tasks: every kept submit has its completion and the other way round
whole() {
	wh_f=$(meta "$1" npuprof.tasks_in_flight_at_stop)
	wh_o=$(meta "$1" npuprof.completions_without_submit)
	[ "$wh_f" = 0 ] && [ "$wh_o" = 0 ] || {
		echo "$1: tasks split by sampling: $wh_f in flight at stop, $wh_o completions without submit, $(meta "$1" npuprof.late_records) late records, $(meta "$1" npuprof.drops) dropped"
		return 1
	}
}
# stars_kept DB N: a throttled capture's tasks all have the STARS log's
# times, and the log's N others were left out and counted
stars_kept() {
	sk_s=$(meta "$1" npuprof.task_time_source) sk_o=$(meta "$1" npuprof.stars_throttled_out_tasks)
	echo "task times: $sk_s; log tasks left out: $sk_o, want $2"
	[ "$sk_s" = stars ] && [ "$sk_o" = "$2" ]
}
# within A B TOL: |A - B| <= TOL * B
# kill_children PID: the programs a tracer left behind (it crashed)
kill_children() {
	for p in /proc/[0-9]*; do
		[ "$(awk '{print $4}' $p/stat 2>/dev/null)" = "$1" ] && kill -9 ${p#/proc/} 2>/dev/null
	done
	return 0
}
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN{d=a-b; if(d<0)d=-d; exit !(d <= t*b)}'; }

t_fault_knob() {
	prod_up || return 1
	f=/proc/trs_chan/dev0-ts0/fault
	grep -qx 'dropped 0' $f || return 1
	echo "stall 3 0" > $f && grep -q 'stall stream 3 remaining_ms forever' $f || return 1
	echo "drop 2" > $f && grep -q 'drop stream 2' $f || return 1
	echo clear > $f && ! grep -q 'stall\|drop stream' $f || return 1
	# bad commands are refused
	! echo "stall 99999 1" > $f 2>/dev/null && ! echo "wobble" > $f 2>/dev/null || return 1
	# a timed stall holds stream 0 of the flood, then lets it go
	$W --scenario flood --tasks 1000000000 --devices 1 --quiet &
	w=$!
	sleep 1
	# (5 s, and a poll for the release: a loaded host may sleep late)
	st0=$(date +%s%N)
	echo "stall 0 5000" > $f
	sleep 0.3
	grep 'stall stream 0' $f | grep -q ' task ' || { cat $f; kill $w; wait $w; return 1; }
	i=0
	while grep -q 'stall' $f && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
	held=$((($(date +%s%N) - st0) / 1000000))
	echo "timed stall of 5000 ms released after $held ms"
	grep -q 'stall' $f || [ $held -lt 4900 ] && { cat $f; kill $w; wait $w; return 1; }
	kill $w; wait $w
	# a lost completion: the first task's STARS END record (and CQE, had it
	# asked for one: as a 910B, of the flood's one batch only the last task
	# writes one) never reaches the host
	echo "drop 0" > $f
	out=$($P stat --engine kmod -- $W --scenario flood --tasks 64 --devices 1 --quiet) || return 1
	echo "$out" | grep -E ' submit |complete |latency'
	echo "$out" | grep -q ' 64  submit ' &&
		echo "$out" | grep -q 'submit -> complete latency (us, tasks with a CQE): n=1 ' &&
		grep -qx 'dropped 1' $f
}

# 1-in-10 sampling keeps ~10% of tasks, whole, and weighted totals match
t_sample_ratio() {
	prod_up || return 1
	$P record --quiet -o $PR/full --engine kmod -- $W --scenario train --steps 40 --seed 7 --quiet >/dev/null || return 1
	$P record --quiet -o $PR/s10 --engine kmod --sample 10 -- $W --scenario train --steps 40 --seed 7 --quiet >/dev/null || return 1
	full=$(db_of $PR/full) s=$(db_of $PR/s10)
	# the work, without the MsTx markers: a range's two markers are one row
	# spanning its phase in the full run, but are sampled one by one
	work="FROM TASK t JOIN STRING_IDS n ON n.id = t.taskType WHERE n.value <> 'MsTx'"
	# and the time estimate without the waits: a wait lasts until the other
	# stream records its event, a few long ones carry most of the total, so
	# 1 in 10 of them estimates it poorly
	busy="$work AND n.value NOT IN ('EVENT_WAIT', 'NOTIFY_WAIT')"
	nf=$(q $full "SELECT COUNT(*) $work") ns=$(q $s "SELECT COUNT(*) $work")
	df=$(q $full "SELECT SUM(endNs-startNs) $busy") ds=$(q $s "SELECT SUM(endNs-startNs) $busy")
	wgt=$(meta $s npuprof.sample_n)
	echo "full: $nf tasks, $df ns; 1-in-$wgt: $ns tasks, $ds ns"
	[ "$wgt" = 10 ] || return 1
	# binomial: sd of the kept count is sqrt(n p (1-p)); allow 4 sd
	awk -v n="$nf" -v k="$ns" 'BEGIN{m=n/10; sd=sqrt(n*0.09); exit !(k > m-4*sd && k < m+4*sd)}' || { echo "ratio off"; return 1; }
	within $((ns * 10)) $nf 0.15 && within "$(awk -v d=$ds 'BEGIN{printf "%d", d*10}')" $df 0.15 || { echo "estimate off"; return 1; }
	whole $s
}

# flood_tasks SECS: a flood task count (2 devices, at least 60000) that
# lasts about SECS s on this guest, timed here: KVM runs ~10x faster than
# TCG, and a test of time windows must span many of them under either
flood_tasks() {
	ft0=$(date +%s%N)
	$W --scenario flood --tasks 20000 --devices 2 --quiet || return 1
	awk -v s="$1" -v dt=$(($(date +%s%N) - ft0)) 'BEGIN{
		n = 20000 * s * 1e9 / dt; if (n < 60000) n = 60000; printf "%d\n", n }'
}

# the duty cycle keeps about ON/PERIOD of the tasks, whole, and says so;
# their times are the STARS log's (a 910B writes no CQE for them), the
# log's other tasks left out and counted
# (rings of 8 MiB per CPU: the default 1 MiB dropped records once in ~8
# runs under TCG, and a drop splits tasks the window kept whole)
t_window() {
	prod_up || return 1
	tasks=$(flood_tasks 2) || return 1
	$P record --quiet -o $PR/w --engine kmod --ring-kb 8192 --window 50/100 -- $W --scenario flood --tasks $tasks --devices 2 --quiet >/dev/null || return 1
	d=$(db_of $PR/w)
	n=$(q $d "SELECT COUNT(*) FROM TASK")
	sk=$(meta $d npuprof.window_skipped)
	echo "window 50/100: $n of $tasks tasks kept, $sk records skipped"
	[ "$(meta $d npuprof.window)" = 50/100 ] && [ "$sk" -gt 0 ] || return 1
	[ "$n" -gt $((tasks / 4)) ] && [ "$n" -lt $((tasks * 3 / 4)) ] || return 1
	stars_kept $d $((tasks - n)) && whole $d
}

# the per-CPU rate limit bounds kept tasks per second, whole, timed by the
# STARS log
t_rate_limit() {
	prod_up || return 1
	pt0=$(date +%s%N)
	$P record --quiet -o $PR/r --engine kmod --rate-limit 2000 -- $W --scenario flood --tasks 60000 --devices 2 --quiet >/dev/null || return 1
	secs=$(( ($(date +%s%N) - pt0) / 1000000000 + 2 ))
	d=$(db_of $PR/r)
	n=$(q $d "SELECT COUNT(*) FROM TASK")
	sk=$(meta $d npuprof.rate_skipped)
	ncpu=$(nproc)
	echo "rate 2000/s/CPU: $n tasks kept in <= $secs s on $ncpu CPUs, $sk records skipped"
	[ "$sk" -gt 0 ] && [ "$n" -le $((2000 * (secs + 1) * ncpu)) ] && [ "$n" -gt 1000 ] || return 1
	stars_kept $d $((60000 - n)) && whole $d
}

# the flight recorder's memory stays within its bound over a long run
t_flight_memory() {
	prod_up || return 1
	$P flight --engine kmod -o $PR/fl --seconds 60 --size 8 --pidfile $PR/fl.pid --hang-ms 0 --verbose 2> $PR/fl.err &
	f=$!
	wait_for 60 traced 0 || { kill $f; wait $f; return 1; }
	base=$(awk '/VmRSS/{print $2}' /proc/$f/status)
	file0=$(awk '/RssFile/{print $2}' /proc/$f/status)
	$W --scenario flood --tasks 400000 --devices 2 --quiet || return 1
	hwm=$(awk '/VmHWM/{print $2}' /proc/$f/status)
	file1=$(awk '/RssFile/{print $2}' /proc/$f/status)
	# where it is, if the bound is ever missed
	awk '/^Rss(Anon|File|Shmem)/{printf "%s %s KiB  ", $1, $2} END{print ""}' /proc/$f/status
	kill -INT $f; wait $f
	tail -2 $PR/fl.err
	echo "flight RSS: $base KiB at start, peak $hwm KiB, bound 8 MiB of history;" \
		"program and library pages touched since the start: $((file1 - file0)) KiB"
	grep -q 'evicted (full)' $PR/fl.err || return 1
	# evictions prove the buffer filled; the peak is the buffer plus the start
	# plus the engine's rings (1 MiB per CPU, mapped into the recorder) plus
	# the code pages the run first touched (file-backed, never freed: the
	# tool's own size, not its history), with 2 MiB of heap slack
	[ "$hwm" -le $((base + 8192 + $(nproc) * 1024 + (file1 - file0) + 2048)) ] || return 1
	[ "$(tail -1 $PR/fl.err | sed 's/.*, \([0-9]*\) evicted.*/\1/')" -gt 0 ]
}

# a dump holds the last S seconds and exports to a valid database
t_flight_dump() {
	prod_up || return 1
	$P flight --engine kmod -o $PR/fd --seconds 2 --size 64 --pidfile $PR/fd.pid 2> $PR/fd.err &
	f=$!
	wait_for 60 traced 0 || { kill $f; wait $f; return 1; }
	$W --scenario train --steps 100000 --devices 2 --quiet &
	w=$!
	sleep 5
	dir=$($P dump --pidfile $PR/fd.pid) || { cat $PR/fd.err; return 1; }
	kill $w 2>/dev/null; wait $w
	kill -INT $f; wait $f || return 1
	cat $PR/fd.err
	[ -d "$dir" ] || return 1
	$P export "$dir" > $PR/fd.export || { cat $PR/fd.export; return 1; }
	d=$(ls $dir/msprof_*.db)
	n=$(q $d "SELECT COUNT(*) FROM TASK")
	span=$(q $d "SELECT MAX(endNs) - MIN(startNs) FROM TASK")
	echo "dump: $n tasks spanning $span ns"
	[ "$n" -gt 100 ] && [ "$span" -le 2300000000 ] && [ "$span" -ge 1500000000 ] &&
		[ "$(q $d "SELECT COUNT(*) FROM NPU_INFO")" -ge 1 ]
}

# an injected stall is caught within the threshold and names the held task
# The task a stall fault holds, as the fault file says once the stall has
# taken hold of the stream (up to 10 s: a slow guest takes its time); "" if
# it never does.
held_task() {
	ht=""
	hi=0
	while [ $hi -lt $((100 * SLOW)) ]; do
		sleep 0.1
		ht=$(sed -n 's/.* task \([0-9]*\) queued.*/\1/p' "$1")
		[ -n "$ht" ] && break
		hi=$((hi + 1))
	done
	echo "$ht"
}

# The hang report in $1 names the task held on device $2 stream $3, $4:
# as the stream's head or, as tasks without a CQE (kernels, copies) end
# unseen, queued behind the head it names, with the report saying the
# device may have gone on past the head
names_held() {
	grep -q "HANG on device $2 stream $3: task $4 " "$1" && return 0
	grep -q "HANG on device $2 stream $3: task " "$1" &&
		grep -Eq "queued behind it: [0-9]+ task\(s\):( [0-9]+ [A-Z_]+,)* $4 [A-Z_]+" "$1" &&
		grep -Eq '  (last|not) seen at it: ' "$1" &&
		echo "held task $4 is queued behind the head the report names"
}

t_hang_stall() {
	prod_up || return 1
	f=/proc/trs_chan/dev0-ts0/fault
	$P watch --engine kmod --threshold 1000 -- $W --scenario flood --tasks 1000000000 --devices 1 --quiet > $PR/h.out 2>&1 &
	w=$!
	sleep 2
	echo "stall 0 0" > $f
	pt0=$(date +%s%N)
	held=$(held_task $f)
	i=0
	while [ $i -lt $((50 * SLOW)) ] && kill -0 $w 2>/dev/null && ! grep -q HANG $PR/h.out; do sleep 0.1; i=$((i + 1)); done
	ms=$((($(date +%s%N) - pt0) / 1000000))
	kill_children $w
	wait $w
	rc=$?
	echo clear > $f
	cat $PR/h.out
	echo "watch exit $rc after $ms ms; npusim holds task $held"
	cp $PR/h.out "${NPUPROF_RESULTS:-/tmp}/hang_report.txt" 2>/dev/null
	# caught: the 1 s threshold plus the reader's lag on a loaded host
	[ $rc = 3 ] && [ -n "$held" ] && [ $ms -lt $((5000 * SLOW)) ] &&
		names_held $PR/h.out 0 0 "$held" &&
		grep -q 'submitted by: pid [0-9]* tid [0-9]* (npuwork)' $PR/h.out &&
		grep -q 'queued behind it: ' $PR/h.out
}

# a stall under the ACL runtime: the report names the host API, and watch
# ends even though the program's runtime retries its interrupted wait
t_hang_acl() {
	prod_up || return 1
	f=/proc/trs_chan/dev0-ts0/fault
	timeout $((60 * SLOW)) $P watch --engine kmod --threshold 1000 -- $W --scenario train --steps 100000 --devices 2 --quiet > $PR/ha.out 2>&1 &
	w=$!
	sleep 3
	echo "stall 1 0" > $f
	held=$(held_task $f)
	wait $w
	rc=$?
	echo clear > $f
	cat $PR/ha.out
	echo "watch exit $rc; npusim holds task $held"
	cp $PR/ha.out "${NPUPROF_RESULTS:-/tmp}/hang_report_acl.txt" 2>/dev/null
	# the held task is a kernel (inside acl > launch) or, now and then, the
	# MarkEx marker, which is launched outside any API range
	[ $rc = 3 ] && [ -n "$held" ] && names_held $PR/ha.out 0 1 "$held" &&
		grep -Eq '  (host API: (acl|launch)|host task: PROFILER_TRACE_EX)' $PR/ha.out
}

# no false alarm on a long but progressing workload (a deep queue included)
t_no_false_alarm() {
	prod_up || return 1
	pt0=$(date +%s)
	timeout $((120 * SLOW)) $P watch --engine kmod --threshold 500 -- $W --scenario train --steps 600 --devices 2 --quiet > $PR/nf.out 2>&1
	rc=$?
	timeout $((120 * SLOW)) $P watch --engine kmod --threshold 500 -- $W --scenario flood --tasks 1000000 --devices 2 --quiet >> $PR/nf.out 2>&1
	rc2=$?
	cat $PR/nf.out
	echo "exit $rc, $rc2 after $(($(date +%s) - pt0)) s"
	[ $rc = 0 ] && [ $rc2 = 0 ] && ! grep -q HANG $PR/nf.out
}

# a tracer that is itself held up (stopped for a second, three times, as a
# starved guest or a backlog holds it) calls no hang on a progressing flood
t_no_false_alarm_paused() {
	prod_up || return 1
	tasks=$(flood_tasks 10) || return 1
	timeout 300 $P watch --engine kmod --threshold 500 -- $W --scenario flood --tasks $tasks --devices 2 --quiet > $PR/np.out 2>&1 &
	w=$!
	wait_for 60 traced 0 || { kill $w; wait $w; return 1; }
	sleep 1
	wp=$(pgrep -f "npuprof watch --engine kmod --threshold 500" | head -n 1)
	for i in 1 2 3; do
		kill -STOP $wp; sleep 1; kill -CONT $wp; sleep 1
	done
	wait $w
	rc=$?
	cat $PR/np.out
	echo "watch exit $rc ($tasks flood tasks)"
	[ $rc = 0 ] && ! grep -q HANG $PR/np.out
}

# flight mode dumps on a hang, with the report, and the dump exports
t_flight_hang() {
	prod_up || return 1
	f=/proc/trs_chan/dev0-ts0/fault
	$P flight --engine kmod -o $PR/fh --seconds 5 --hang-ms 800 --pidfile $PR/fh.pid 2> $PR/fh.err &
	fp=$!
	wait_for 60 traced 0 || { kill $fp; wait $fp; return 1; }
	$W --scenario flood --tasks 1000000000 --devices 1 --quiet &
	w=$!
	sleep 1.5
	echo "stall 0 0" > $f
	i=0
	while [ $i -lt 150 ] && ! grep -q 'dump (hang)' $PR/fh.err; do sleep 0.1; i=$((i + 1)); done
	kill $w; wait $w
	echo clear > $f
	kill -INT $fp; wait $fp
	cat $PR/fh.err
	dir=$(ls -d $PR/fh/PROF_* | head -1)
	[ -f "$dir/hang_report.txt" ] && grep -q 'HANG on device 0 stream 0' "$dir/hang_report.txt" &&
		$P export "$dir" > /dev/null && [ "$(q $(ls $dir/msprof_*.db) "SELECT COUNT(*) FROM TASK")" -gt 0 ]
}

# a flight recorder that falls a whole ring behind (stopped while the device
# floods its 64 KiB per-CPU rings) skips what was overwritten and never reads
# a record torn by the writer: no task on a stream the program never made,
# so no false hang
t_flight_lapped() {
	prod_up || return 1
	$P flight --engine kmod --ring-kb 64 -o $PR/fl --seconds 1 --hang-ms 800 --dump-on-exit --pidfile $PR/fl.pid 2> $PR/fl.err &
	fp=$!
	wait_for 60 traced 0 || { kill $fp; wait $fp; return 1; }
	$W --scenario flood --tasks 1000000000 --devices 1 --quiet &
	w=$!
	sleep 0.5
	for i in 1 2 3 4 5 6 7 8; do
		kill -STOP $fp; sleep 0.2; kill -CONT $fp; sleep 0.2
	done
	sleep 1
	kill -INT $fp; wait $fp
	rc=$?
	kill $w; wait $w
	cat $PR/fl.err
	[ $rc = 0 ] && ! grep -q HANG $PR/fl.err || return 1
	dir=$(ls -d $PR/fl/PROF_* | head -1)
	$P export "$dir" > /dev/null || return 1
	db=$(ls $dir/msprof_*.db)
	echo "streams: $(q $db "SELECT group_concat(DISTINCT streamId) FROM TASK"), tasks $(q $db "SELECT COUNT(*) FROM TASK")"
	[ "$(q $db "SELECT COUNT(DISTINCT streamId) FROM TASK")" = 1 ] &&
		[ "$(q $db "SELECT COUNT(*) FROM TASK")" -gt 1000 ]
}

# live prints every submit and CQE (as a 910B: one each for the 2
# event-record and 2 place-holder tasks of the 68); top shows the streams
t_live_top() {
	prod_up || return 1
	timeout 60 $P live --engine kmod -- $W --scenario driver --steps 1 --quiet > $PR/live.out 2> $PR/live.err || { cat $PR/live.err; return 1; }
	head -3 $PR/live.out
	ns=$(grep -c ' submit ' $PR/live.out) nc=$(grep -c ' complete ' $PR/live.out)
	echo "live: $ns submits, $nc completions"
	[ "$ns" = 68 ] && [ "$nc" = 4 ] || return 1
	grep -q 'after submit' $PR/live.out || return 1
	timeout 120 $P top --engine kmod -b -d 0.5 -- $W --scenario train --steps 30 --devices 2 --quiet > $PR/top.out 2>&1 || { cat $PR/top.out; return 1; }
	tail -8 $PR/top.out
	grep -q 'TASKS/S' $PR/top.out && grep -Eq '^ +1 +all ' $PR/top.out && grep -Eq '^ +0 +[0-9]+ +[0-9]+ +[0-9]+ ' $PR/top.out
}

run prod.fault_knob t_fault_knob
run prod.sample_ratio t_sample_ratio
run prod.window t_window
run prod.rate_limit t_rate_limit
run prod.flight_memory t_flight_memory
run prod.flight_dump t_flight_dump
run prod.hang_stall t_hang_stall
run prod.hang_acl t_hang_acl
run prod.no_false_alarm t_no_false_alarm
run prod.no_false_alarm_paused t_no_false_alarm_paused
run prod.flight_hang t_flight_hang
run prod.flight_lapped t_flight_lapped
run prod.live_top t_live_top
cleanup_modules
