# The BPF capture engine against npuprof.ko (sourced by tests/vm/run.sh).
#
# bpf_test dual captures ONE run with both engines at once, so the records
# must match byte for byte except the timestamp; the CLI tests capture
# separate runs with `npuprof stat --engine X --raw FILE` and compare what
# does not depend on timing.

bpf_both() { load_sim "$@" && { loaded npuprof || insmod $NPUPROF_KO; }; }
R=${NPUPROF_RESULTS:-/tmp}
TRAIN="build/bin/npuwork --scenario driver --steps 4 --devices 2 --quiet"

# one run, both engines: identical multisets of records (as a 910B
# completes, npusim's default: CQEs only on demand)
t_bpf_identical() {
	bpf_both || return 1
	$TB/bpf_test dual -- $TRAIN
}

# the same with a CQE for every task (cqe_mode=0)
t_bpf_identical_every_cqe() {
	bpf_both cqe_mode=0 || return 1
	$TB/bpf_test dual -- $TRAIN
}

# system-wide (no pid filter): the submitting process is not checked
t_bpf_identical_all() {
	bpf_both || return 1
	$TB/bpf_test dual --all -- $TRAIN
}

# the pid filter with another process submitting at the same time on the
# same devices: both engines keep the same records of the captured process
# only
dual_with_noise() {
	build/bin/npuwork --scenario flood --tasks 100000000 --devices 2 --quiet &
	noise=$!
	sleep 1
	$TB/bpf_test dual --expect-filtered --other-load -- $TRAIN
	rc=$?
	kill $noise
	wait $noise
	return $rc
}
t_bpf_filter_pid() {
	bpf_both && dual_with_noise
}

# the same on a 910B's send mode (UIO_T): every submit fires in the
# driver's forwarding kernel thread; both engines attribute it to the SQ's
# owner (the process that created its channel) identically
t_bpf_filter_pid_uio() {
	bpf_both sq_send_mode=1 || return 1
	$TB/capture_test -e bpf filter_pid_uio && dual_with_noise
}

t_bpf_filter_devices() {
	bpf_both || return 1
	$TB/bpf_test dual --devices 1 --expect-filtered -- $TRAIN
}

t_bpf_filter_streams() {
	bpf_both || return 1
	$TB/bpf_test dual --streams 0,2,5-7 --expect-filtered -- $TRAIN
}

t_bpf_no_recv() {
	bpf_both || return 1
	out=$($TB/bpf_test dual --no-recv -- $TRAIN) || { echo "$out"; return 1; }
	echo "$out"
	echo "$out" | grep -q '^bpf: .* recv 0 '
}

t_bpf_sampling() {
	bpf_both || return 1
	$TB/bpf_test dual --sample 3 --expect-sampled -- $TRAIN &&
		$TB/bpf_test dual --sample 7 --devices 0 --streams 0-3 \
			--expect-sampled --expect-filtered -- $TRAIN
}

# a 4 KiB BPF ring read rarely: records kept + lost (DROP markers) are
# exactly what the kmod captured of the same run
t_bpf_drops_exact() {
	bpf_both || return 1
	$TB/bpf_test dual --bpf-ring-kb 4 --expect-drops -- \
		build/bin/npuwork --scenario flood --tasks 20000 --devices 2 --quiet
}

# npuprof stat --engine bpf: the CLI works, its raw file holds what it
# reports (as a 910B, a latency for the 16 tasks with a CQE), and a
# separate kmod run of the same deterministic workload has the same task
# records
t_bpf_stat_cli() {
	bpf_both || return 1
	out=$(build/bin/npuprof stat --engine bpf --raw $R/bpf.raw -- $TRAIN) ||
		{ echo "$out"; return 1; }
	echo "$out"
	echo "$out" | grep -q ' 272  submit ' &&
		! echo "$out" | grep -q 'task_time' &&
		echo "$out" | grep -Eq '^ +0  dropped' &&
		echo "$out" | grep -q 'submit -> complete latency (us, tasks with a CQE): n=16 ' &&
		echo "$out" | grep -q 'tasks in flight at stop: 0; per-CPU order violations: 0' ||
		return 1
	bpf_both || return 1
	build/bin/npuprof stat --engine kmod --raw $R/kmod.raw -- $TRAIN > /dev/null || return 1
	$TB/bpf_test same $R/kmod.raw $R/bpf.raw
}

# npuprof stat --engine bpf under overflow: the drop markers add up to the
# dropped count, and the file holds exactly the records written
t_bpf_stat_drops() {
	bpf_both || return 1
	out=$(build/bin/npuprof stat --engine bpf --ring-kb 4 --raw $R/bpf-drop.raw -- \
		build/bin/npuwork --scenario flood --tasks 20000 --devices 2 --quiet) ||
		{ echo "$out"; return 1; }
	echo "$out" | tail -3
	w=$(echo "$out" | sed -n 's/.*records: written \([0-9]*\), dropped \([0-9]*\).*/\1/p')
	d=$(echo "$out" | sed -n 's/.*records: written \([0-9]*\), dropped \([0-9]*\).*/\2/p')
	l=$(echo "$out" | sed -n 's/.*lost per drop markers: \([0-9]*\).*/\1/p')
	c=$($TB/bpf_test count $R/bpf-drop.raw) || return 1
	echo "$c"
	[ "$d" -gt 0 ] && [ "$l" = "$d" ] &&
		echo "$c" | grep -q "data $w .* lost $d disorder 0"
}

# auto picks bpf when /dev/npuprof is absent, kmod when present
t_bpf_auto() {
	cleanup_modules
	load_sim || return 1
	out=$(build/bin/npuprof stat --engine auto -- $TRAIN) || { echo "$out"; return 1; }
	echo "$out" | grep -q '(engine bpf)' || { echo "$out"; return 1; }
	insmod $NPUPROF_KO || return 1
	out=$(build/bin/npuprof stat --engine auto -- $TRAIN) || return 1
	echo "$out" | grep -q '(engine kmod)'
}

# clear errors: no driver loaded; no privileges
t_bpf_errors() {
	cleanup_modules
	out=$(build/bin/npuprof stat --engine bpf -- true 2>&1) && { echo "$out"; return 1; }
	echo "$out"
	echo "$out" | grep -q 'driver' || return 1
	load_sim || return 1
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		build/bin/npuprof stat --engine bpf -- true 2>&1) && { echo "$out"; return 1; }
	echo "$out"
	echo "$out" | grep -q 'CAP_BPF and CAP_PERFMON'
}

run bpf.identical t_bpf_identical
run bpf.identical_every_cqe t_bpf_identical_every_cqe
run bpf.identical_all t_bpf_identical_all
run bpf.filter_pid t_bpf_filter_pid
run bpf.filter_pid_uio t_bpf_filter_pid_uio
run bpf.filter_devices t_bpf_filter_devices
run bpf.filter_streams t_bpf_filter_streams
run bpf.no_recv t_bpf_no_recv
run bpf.sampling t_bpf_sampling
run bpf.drops_exact t_bpf_drops_exact
run bpf.stat_cli t_bpf_stat_cli
run bpf.stat_drops t_bpf_stat_drops
run bpf.auto t_bpf_auto
run bpf.errors t_bpf_errors
