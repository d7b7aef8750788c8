# npusim: the simulated Ascend driver (sourced by tests/vm/run.sh).

# the ioctl ABI cases run in the driver's KIO mode (the SQEs go in with
# NPUSIM_IOC_SQ_SEND); uio_case below runs them on the 910B's UIO_T. Both
# check the device model task by task through its CQEs, so they load it
# writing one for every task (cqe_mode=0; a 910B's, cqe_mode=1 and the
# default, writes them for few: npusim.cqe_realistic, on the defaults, and
# the ftrace ABI test check that)
sim_case() { load_sim sq_send_mode=0 cqe_mode=0 && $TB/npusim_test "$1"; }

t_load_unload() {
	i=0
	while [ $i -lt 20 ]; do
		case $((i % 4)) in
		0) insmod $NPUSIM_KO || return 1 ;;
		1) insmod $NPUSIM_KO devices=4 sq_depth=64 || return 1 ;;
		2) insmod $NPUSIM_KO cqe_mode=1 trace_enable=1 || return 1 ;;
		3) insmod $NPUSIM_KO devices=1 aicores=2 max_streams=8 || return 1 ;;
		esac
		[ -c /dev/npusim0 ] || { echo "no /dev/npusim0"; return 1; }
		rmmod npusim || return 1
		i=$((i + 1))
	done
	# bad parameters are refused, and nothing is left behind
	insmod $NPUSIM_KO devices=9 2>/dev/null && { echo "devices=9 accepted"; return 1; }
	insmod $NPUSIM_KO sq_depth=1000 2>/dev/null && { echo "sq_depth=1000 accepted"; return 1; }
	# unload while a device is open is refused, then succeeds
	insmod $NPUSIM_KO || return 1
	exec 3</dev/npusim1
	rmmod npusim 2>/dev/null && { echo "rmmod with an open device succeeded"; return 1; }
	exec 3<&-
	rmmod npusim
}

t_trace_switch() {
	load_sim || return 1
	f=/proc/trs_chan/dev0-ts0/trace_enable
	[ "$(cat $f)" = 0 ] || { echo "default is not 0"; return 1; }
	printf '1\n' > $f || return 1
	[ "$(cat $f)" = 1 ] || return 1
	printf '0\n' > $f || return 1
	[ "$(cat $f)" = 0 ] || return 1
	out=$(printf '1' 2>&1 > $f) && { echo "1-byte write accepted"; return 1; }
	out=$(printf '10\n' 2>&1 > $f) && { echo "3-byte write accepted"; return 1; }
	out=$(printf 'x\n' 2>&1 > $f) && { echo "non-number accepted"; return 1; }
	printf '7\n' > $f && [ "$(cat $f)" = 1 ]
}

# The ABI proof: ftrace shows trs_chan:sqe/cqe with the right fields
# (every task writing a CQE), and as a 910B completes, a kernel and a copy
# without wr_cqe fire no cqe event.
t_ftrace_abi() {
	load_sim cqe_mode=0 || return 1
	fmt=$TRACEFS/events/trs_chan/sqe/format
	grep -q 'field:struct trs_id_inst inst;	offset:12;	size:8;' $fmt &&
		grep -q 'field:struct trs_chan_sq_trace sq_trace;	offset:20;	size:40;' $fmt &&
		grep -q 'field:struct timespec64 timestamp;	offset:64;	size:16;' $fmt &&
		grep -q 'field:struct trs_chan_cq_trace cq_trace;	offset:20;	size:40;' $TRACEFS/events/trs_chan/cqe/format &&
		grep -q 'field:struct trs_chan_recv_trace recv_trace;	offset:20;	size:32;' $TRACEFS/events/trs_chan/recv/format ||
		{ echo "tracepoint layout differs"; cat $fmt; return 1; }
	echo > $TRACEFS/trace
	echo 1 > $TRACEFS/events/trs_chan/enable
	# the real driver's tracepoints only: no simulator-only event system
	[ ! -e $TRACEFS/events/npusim ] || { echo "npusim has tracepoints of its own:"; ls $TRACEFS/events/npusim; return 1; }
	# switch off: nothing is emitted
	$TB/npusim_test known > /dev/null || return 1
	n=$(grep -c 'Task Send' $TRACEFS/trace)
	[ "$n" -eq 0 ] || { echo "events with trace_enable=0"; return 1; }
	trace_on 0 1 || return 1
	sid=$($TB/npusim_test known | sed -n 's/^stream //p')
	echo 0 > $TRACEFS/events/trs_chan/enable
	t=$TRACEFS/trace
	ok=0
	grep -q "sqe: Task Send: devid=1 tsid=0 sqid=$sid sq_head=[0-9]* sq_tail=1 chan_id=$sid type=0 task_id=7 stream_id=$sid " $t &&
	grep -q "sqe: Task Send: devid=1 tsid=0 sqid=$sid .* sq_tail=2 .*type=11 task_id=8 stream_id=$sid " $t &&
	grep -q "sqe: Task Send: devid=1 tsid=0 sqid=$sid .* sq_tail=3 .*type=3 task_id=9 stream_id=$sid " $t &&
	grep -q "cqe: Cqe Dispatch: devid=1 tsid=0 cqid=$sid cq_head=0 round=0 task_id=7 sq_id=$sid sq_head=1 stream_id=$sid " $t &&
	grep -q "cqe: Cqe Dispatch: devid=1 .* task_id=9 sq_id=$sid sq_head=3 stream_id=$sid " $t &&
	grep -q "cqe: Task Recv: devid=1 .* task_id=8 sq_id=$sid sq_head=2 stream_id=$sid " $t &&
	grep -q "recv: Recv start: devid=1 " $t &&
	grep -q "recv: Recv finish: devid=1 .* recv_cqe_num=3 " $t && ok=1
	[ $ok = 1 ] || { echo "expected events missing (stream $sid):"; head -40 $t; return 1; }
	# sqe strictly before its cqe
	a=$(grep -n "Task Send.*task_id=7 stream_id=$sid " $t | head -1 | cut -d: -f1)
	b=$(grep -n "Cqe Dispatch.*task_id=7 .*stream_id=$sid " $t | head -1 | cut -d: -f1)
	[ "$a" -lt "$b" ] || { echo "cqe before sqe"; return 1; }
	# a 910B's completions: only the place holder writes a CQE, which
	# carries the SQ consumed past all three
	load_sim cqe_mode=1 || return 1
	echo > $t
	echo 1 > $TRACEFS/events/trs_chan/enable
	trace_on 0 1 || return 1
	sid=$($TB/npusim_test known | sed -n 's/^stream //p')
	echo 0 > $TRACEFS/events/trs_chan/enable
	[ "$(grep -c "sqe: Task Send: devid=1 .*stream_id=$sid " $t)" = 3 ] || { echo "want 3 sends"; head -20 $t; return 1; }
	grep "cqe: .*devid=1 " $t
	[ "$(grep -c "cqe: .*devid=1 " $t)" = 2 ] &&
		grep -q "cqe: Cqe Dispatch: devid=1 .* task_id=9 sq_id=$sid sq_head=3 stream_id=$sid " $t &&
		grep -q "cqe: Task Recv: devid=1 .* task_id=9 sq_id=$sid sq_head=3 stream_id=$sid " $t ||
		{ echo "cqe_mode=1: want the place holder's Dispatch and Recv only"; return 1; }
	echo > $TRACEFS/trace
}

# ---- user-mode send modes (sq_send_mode=1 UIO_T, 2 UIO_D) ----------------

uio_case() { load_sim cqe_mode=0 && $TB/npusim_test "$1"; }

# load and unload in every mode with the workers running; bad modes refused
t_uio_load_unload() {
	unload_sim
	i=0
	while [ $i -lt 12 ]; do
		case $((i % 4)) in
		0) insmod $NPUSIM_KO sq_send_mode=1 || return 1 ;;
		1) insmod $NPUSIM_KO devices=3 sq_send_mode=1,0,2 || return 1 ;;
		2) insmod $NPUSIM_KO sq_send_mode=2 sq_depth=64 || return 1 ;;
		3) insmod $NPUSIM_KO sq_send_mode=1 sq_depth=16 max_streams=8 || return 1 ;;
		esac
		$TB/npusim_test known > /dev/null || { echo "cycle $i: known failed"; return 1; }
		rmmod npusim || return 1
		i=$((i + 1))
	done
	insmod $NPUSIM_KO sq_send_mode=3 2>/dev/null && { echo "sq_send_mode=3 accepted"; return 1; }
	# the per-device mode as DEV_INFO and the summary report it
	insmod $NPUSIM_KO devices=3 sq_send_mode=1,0,2 || return 1
	$TB/npusim_test known | grep -q '^pid [0-9]* mode 0$' || { echo "device 1 is not KIO"; return 1; }
	ps -eo comm | grep -qx dev0_sq_task && ps -eo comm | grep -qx dev2_sq_task &&
		! ps -eo comm | grep -qx dev1_sq_task || { echo "pollers:"; ps -eo comm | grep sq_task; return 1; }
	rmmod npusim || return 1
	! ps -eo comm | grep -q '_sq_task$' || { echo "a poller outlived the module"; return 1; }
}

# UIO_T: every "Task Send" of a submit fires in a kernel worker (the
# trigger's kworker or the dev<N>_sq_task poller), at forwarding time, never
# in the submitting process; UIO_D: no "Task Send" at all
t_uio_ftrace() {
	load_sim sq_send_mode=1 || return 1
	t=$TRACEFS/trace
	echo > $t
	echo 1 > $TRACEFS/events/trs_chan/sqe/enable
	trace_on 0 1 || return 1
	out=$($TB/npusim_test known) || { echo "$out"; return 1; }
	sid=$(echo "$out" | sed -n 's/^stream //p')
	pid=$(echo "$out" | sed -n 's/^pid \([0-9]*\) mode 1$/\1/p')
	[ -n "$pid" ] || { echo "the client did not use UIO_T: $out"; return 1; }
	echo 0 > $TRACEFS/events/trs_chan/sqe/enable
	sends=$(grep "sqe: Task Send: devid=1 .*stream_id=$sid " $t)
	echo "$sends"
	[ "$(echo "$sends" | grep -c .)" = 3 ] || { echo "want 3 sends"; head -20 $t; return 1; }
	# "comm-pid [cpu] ...": a kernel thread, never the submitter
	for p in $(echo "$sends" | awk '{ n = split($1, a, "-"); print a[n] }'); do
		c=$(cat /proc/$p/comm 2>/dev/null)
		echo "send in pid $p ($c), submitter $pid"
		[ "$p" != "$pid" ] && [ -z "$(cat /proc/$p/cmdline 2>/dev/null)" ] || return 1
		case "$c" in kworker/* | dev1_sq_task) ;; *) return 1 ;; esac
	done
	grep -q "sq_tail=3 .*task_id=9 stream_id=$sid " $t || return 1
	# UIO_D: the device runs the tasks (uio_direct checks each one's CQE),
	# the kernel sees no submission
	load_sim devices=2 sq_send_mode=2 cqe_mode=0 || return 1
	echo > $t
	echo 1 > $TRACEFS/events/trs_chan/sqe/enable
	echo 1 > $TRACEFS/events/trs_chan/cqe/enable
	trace_on 0 1 || return 1
	out=$($TB/npusim_test uio_direct) || { echo "$out"; return 1; }
	echo 0 > $TRACEFS/events/trs_chan/sqe/enable
	echo 0 > $TRACEFS/events/trs_chan/cqe/enable
	n=$(grep -c 'Task Send' $t)
	m=$(grep -c 'cqe: .*devid=1 ' $t)
	echo "UIO_D: $n sends, $m completion events"
	[ "$n" = 0 ] && [ "$m" -ge 3000 ] || return 1
	echo > $t
}

run npusim.load_unload t_load_unload
run npusim.trace_switch t_trace_switch
run npusim.order sim_case order
run npusim.durations sim_case durations
run npusim.payloads sim_case payloads
run npusim.uio_payloads uio_case payloads
run npusim.timed sim_case timed
run npusim.deps sim_case deps
run npusim.shared_events sim_case shared_events
run npusim.wrap sim_case wrap
run npusim.id_record sim_case id_record
run npusim.badioctl sim_case badioctl
run npusim.concurrent sim_case concurrent
run npusim.killed sim_case killed
run npusim.cqe_realistic sh -c ". tests/vm/lib.sh; load_sim && $TB/npusim_test cqe_realistic"
run npusim.ftrace_abi t_ftrace_abi
run npusim.uio_load_unload t_uio_load_unload
run npusim.uio uio_case uio
run npusim.uio_order uio_case order
run npusim.uio_deps uio_case deps
run npusim.uio_shared_events uio_case shared_events
run npusim.uio_wrap uio_case wrap
run npusim.uio_concurrent uio_case concurrent
run npusim.uio_killed uio_case killed
run npusim.uio_ftrace t_uio_ftrace
run npusim.stars sim_case stars
run npusim.lp sim_case lp
run npusim.uio_stars uio_case stars
run npusim.uio_d_stars sh -c ". tests/vm/lib.sh; load_sim sq_send_mode=2 && $TB/npusim_test stars"
unload_sim
