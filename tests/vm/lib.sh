# Helpers for in-guest test suites (sourced by tests/vm/run.sh).
PASSED=0
FAILED=0
TB=build/tests/vm
NPUSIM_KO=kmod/npusim/npusim.ko
NPUPROF_KO=kmod/npuprof/npuprof.ko
TRACEFS=/sys/kernel/tracing
# A debug kernel (KASAN, lockdep, kmemleak: `make check-debug`) runs the
# guest several times slower; the time limits of timing tests scale by SLOW
# (their thresholds, what they test, do not).
if [ -e /sys/kernel/debug/kmemleak ]; then SLOW=4; else SLOW=1; fi

# run NAME CMD...: one test; PASS if CMD exits 0.
run() {
	name=$1
	shift
	echo "== $name"
	t0=$(date +%s%N)
	if "$@"; then
		PASSED=$((PASSED + 1))
		echo "PASS $name ($((($(date +%s%N) - t0) / 1000000)) ms)"
	else
		FAILED=$((FAILED + 1))
		echo "FAIL $name"
	fi
}

loaded() { grep -q "^$1 " /proc/modules; }

# load_sim [PARAMS...]: (re)load npusim with the given module parameters.
load_sim() {
	if loaded npusim; then rmmod npusim || return 1; fi
	insmod "$NPUSIM_KO" "$@"
}

unload_sim() { ! loaded npusim || rmmod npusim; }

# trace_on DEV...: turn on the driver's per-device trace switch.
trace_on() {
	for d in "$@"; do printf '1\n' > /proc/trs_chan/dev$d-ts0/trace_enable || return 1; done
}

# wait_for SECS CMD...: poll (every 0.1 s) until CMD succeeds; 1 on timeout.
# For what a loaded guest does late: a tracer arming, a program starting.
wait_for() {
	wf_n=$(($1 * 10))
	shift
	while ! "$@" 2>/dev/null; do
		wf_n=$((wf_n - 1))
		[ $wf_n -gt 0 ] || return 1
		sleep 0.1
	done
}

# traced DEV: the driver's trace switch of DEV is on (a tracer armed it)
traced() { [ "$(cat /proc/trs_chan/dev$1-ts0/trace_enable 2>/dev/null)" = 1 ]; }

cleanup_modules() {
	loaded npuprof && rmmod npuprof
	loaded npusim && rmmod npusim
	return 0
}
