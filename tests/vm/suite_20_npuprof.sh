# npuprof.ko: capture engine 1 (sourced by tests/vm/run.sh).

both() { load_sim "$@" && { loaded npuprof || insmod $NPUPROF_KO; }; }
cap_case() { both && $TB/capture_test -e kmod "$1"; }

# a 910B's send mode (UIO_T): submits fire in the driver's kernel thread and
# are attributed to the process that created the SQ's channel
t_filter_pid_kio() { both sq_send_mode=0 && $TB/capture_test -e kmod filter_pid; }
t_filter_pid_uio() { both sq_send_mode=1 && $TB/capture_test -e kmod filter_pid_uio; }

# npuprof stat on a real workload: counts agree with what npuwork submitted;
# with a CQE for every task (cqe_mode=0), each task's latency is measured
t_stat() {
	both cqe_mode=0 || return 1
	out=$(build/bin/npuprof stat --engine kmod -- build/bin/npuwork --scenario driver --steps 4 --devices 2) || { echo "$out"; return 1; }
	echo "$out"
	echo "$out" | grep -q ' 272  submit ' &&
		! echo "$out" | grep -q 'task_time' &&
		echo "$out" | grep -Eq '^ +0  dropped' &&
		echo "$out" | grep -q 'submit -> complete latency (us, tasks with a CQE): n=272 ' &&
		echo "$out" | grep -q 'tasks in flight at stop: 0; per-CPU order violations: 0'
}

# the same as a 910B completes (npusim's default, cqe_mode=1): few CQEs,
# and every stream's tasks counted completed all the same, from the SQ head
# the CQEs and submits carry; none left in flight
t_stat_910b() {
	both || return 1
	out=$(build/bin/npuprof stat --engine kmod -- build/bin/npuwork --scenario driver --steps 4 --devices 2) || { echo "$out"; return 1; }
	echo "$out"
	echo "$out" | grep -q ' 272  submit ' &&
		echo "$out" | grep -q 'tasks in flight at stop: 0; per-CPU order violations: 0' || return 1
	# device stream submitted completed CQEs: all done, fewer CQEs
	echo "$out" | awk 'NF == 5 && $0 ~ /^ *[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$/ { n++; if ($3 != $4 || $5 >= $3) bad = 1 }
		END { exit !(n == 4 && !bad) }'
}

# attach in every load order; npusim unloads in the middle of a capture
t_load_orders() {
	cleanup_modules
	i=0
	while [ $i -lt 20 ]; do
		case $((i % 4)) in
		0) insmod $NPUSIM_KO && insmod $NPUPROF_KO || return 1 ;;
		1) insmod $NPUPROF_KO && insmod $NPUSIM_KO || return 1 ;;
		2) insmod $NPUPROF_KO && insmod $NPUSIM_KO || return 1 ;;
		3) insmod $NPUSIM_KO && insmod $NPUPROF_KO || return 1 ;;
		esac
		# a short capture proves the probes are attached
		n=$(build/bin/npuprof stat --engine kmod -- build/bin/npuwork --scenario driver --steps 1 --quiet | sed -n 's/^ *\([0-9]*\)  submit .*/\1/p')
		[ "$n" = 68 ] || { echo "cycle $i: $n submits captured"; return 1; }
		if [ $((i % 2)) = 0 ]; then
			rmmod npusim && rmmod npuprof || return 1
		else
			rmmod npuprof && rmmod npusim || return 1
		fi
		i=$((i + 1))
	done
	# unload the driver while a capture is running, then bring it back
	insmod $NPUSIM_KO && insmod $NPUPROF_KO || return 1
	build/bin/npuprof stat --engine kmod > /tmp/stat.out 2>&1 &
	sp=$!
	wait_for 60 traced 0 || { kill -INT $sp; wait $sp; cat /tmp/stat.out; return 1; }
	build/bin/npuwork --scenario flood --tasks 20000 --quiet || return 1
	rmmod npusim || return 1
	insmod $NPUSIM_KO || return 1
	# the tracer re-arms the new driver's trace switches twice a second
	wait_for 60 traced 0 && wait_for 60 traced 1 || { kill -INT $sp; wait $sp; cat /tmp/stat.out; return 1; }
	build/bin/npuwork --scenario driver --steps 1 --quiet || return 1
	kill -INT $sp
	wait $sp || { cat /tmp/stat.out; return 1; }
	cat /tmp/stat.out
	# 20000 flood tasks before the unload, 68 after the reload
	grep -q ' 20068  submit ' /tmp/stat.out || return 1
	dmesg | grep -q 'npuprof: detached from npusim' || return 1
	rmmod npuprof && rmmod npusim
}

# probe_stats/probe_time: with a session running, every submit and CQE of a
# workload is timed (272 submits; as a 910B, a CQE only for its 16
# event-record and place-holder tasks, each dispatched once at least), the
# times are positive; the driver's three tracepoints only; off, nothing
# counts
t_probe_time() {
	both || return 1
	P=/sys/module/npuprof/parameters
	echo 1 > $P/probe_stats || return 1
	out=$(build/bin/npuprof stat --engine kmod -- build/bin/npuwork --scenario driver --steps 4 --devices 2) || { echo "$out"; return 1; }
	t=$(cat $P/probe_time)
	echo "$t"
	echo "$t" | awk '$1 == "sqe" && $2 == 272 && $3 > 0 { ok = 1 } END { exit !ok }' || return 1
	echo "$t" | awk '$1 == "cqe" && $2 >= 16 && $2 < 272 && $3 > 0 { ok = 1 } END { exit !ok }' || return 1
	[ "$(echo "$t" | awk '{ print $1 }' | tr '\n' ' ')" = "sqe cqe recv " ] || return 1
	echo 0 > $P/probe_stats
	build/bin/npuprof stat --engine kmod -- build/bin/npuwork --scenario driver --steps 4 --devices 2 > /dev/null || return 1
	[ "$(cat $P/probe_time)" = "$t" ] || { echo "counted while off:"; cat $P/probe_time; return 1; }
	echo 1 > $P/probe_stats # starts over
	cat $P/probe_time | awk '$2 != 0 { bad = 1 } END { exit bad }' || { echo "not reset:"; cat $P/probe_time; return 1; }
	echo 0 > $P/probe_stats
}

# the bench's probe modes (probe_mode): full writes every record with its
# time, nostamp the same records with time 0, nowrite and empty none; an
# unknown mode is refused and full stays
t_probe_mode() {
	both || return 1
	P=/sys/module/npuprof/parameters
	for m in full nostamp nowrite empty full; do
		echo $m > $P/probe_mode || return 1
		$TB/drain kmod > /tmp/drain.out 2>&1 &
		d=$!
		sleep 1
		build/bin/npuwork --scenario driver --steps 4 --devices 2 > /dev/null || { kill -INT $d; wait $d; return 1; }
		kill -INT $d
		wait $d
		out=$(grep '^drain:' /tmp/drain.out)
		echo "$m: $out"
		case $m in
		full) echo "$out" | awk '$2 >= 272 && $4 == "0" && $6 == 0 { ok = 1 } END { exit !ok }' ;;
		nostamp) echo "$out" | awk '$2 >= 272 && $4 == "0" && $6 == $2 { ok = 1 } END { exit !ok }' ;;
		*) echo "$out" | grep -q '^drain: 0 records' ;;
		esac || return 1
	done
	! echo bogus 2> /dev/null > $P/probe_mode && [ "$(cat $P/probe_mode)" = full ]
}

run npuprof.stat t_stat
run npuprof.stat_910b t_stat_910b
run npuprof.probe_time t_probe_time
run npuprof.probe_mode t_probe_mode
run npuprof.known sh -c ". tests/vm/lib.sh; load_sim cqe_mode=0 && { loaded npuprof || insmod $NPUPROF_KO; } && $TB/capture_test -e kmod known"
run npuprof.known_realistic cap_case known_realistic
run npuprof.overflow cap_case overflow
run npuprof.filter_pid t_filter_pid_kio
run npuprof.filter_pid_uio t_filter_pid_uio
run npuprof.filter_dev cap_case filter_dev
run npuprof.no_recv_shared cap_case no_recv_shared
run npuprof.filter_stream cap_case filter_stream
run npuprof.sample cap_case sample
run npuprof.unpriv sh -c ". tests/vm/lib.sh; load_sim && { loaded npuprof || insmod $NPUPROF_KO; } && chmod 0666 /dev/npusim0 && trace_on 0 1 && $TB/capture_test -e kmod unpriv"
run npuprof.badioctl cap_case badioctl
run npuprof.load_orders t_load_orders
cleanup_modules
