#!/bin/sh
# In-VM benchmarks (run by `make bench` through scripts/vm.sh): the CPU cost
# each tracing method adds per NPU task, as ratios measured in one run.
#
# Workload: npuwork's flood scenario on npusim (two devices, batches of 64).
# Cost = CPU time of the whole guest in nanoseconds during the run: the sum
# over CPUs of the time tasks ran (/proc/schedstat, field 7 of each cpuN
# line: the scheduler's own ns clock, which also covers the interrupts that
# arrive while a task runs), so in-kernel probe work, completions and the
# tracer's reader all count; only interrupt work on an idle CPU does not.
# The configurations run interleaved, REPS rounds; medians are compared and
# the spread (min..max) is shown. TCG timings only mean something as ratios.
#
# Configurations: off (driver trace switches on, nothing attached); ftrace
# (trs_chan + npusim events into the ftrace ring buffer, no reader); kmod
# (npuprof.ko with the minimal reader tests/vm/drain.c); stat (npuprof.ko
# with `npuprof stat` as the reader, i.e. plus the tool's own work). Extra
# engines add configurations through tests/vm/bench_*.sh, which define
# bench_config_<name>_start/stop and append <name> to CONFIGS.
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/vm/lib.sh
TASKS=${BENCH_TASKS:-200000}
REPS=${BENCH_REPS:-5}
T=/sys/kernel/tracing
OUT=${NPUPROF_RESULTS:-/tmp}

busy() { awk '/^cpu[0-9]/{s += $8} END{printf "%.0f\n", s}' /proc/schedstat; }

CONFIGS="off ftrace kmod stat"
bench_config_off_start() { :; }
bench_config_off_stop() { :; }
bench_config_ftrace_start() {
	echo 1 > $T/events/trs_chan/enable
	echo 1 > $T/events/npusim/enable
}
bench_config_ftrace_stop() {
	echo 0 > $T/events/trs_chan/enable
	echo 0 > $T/events/npusim/enable
	echo > $T/trace
}
bench_config_kmod_start() {
	$TB/drain kmod > $OUT/drain-kmod.out 2>&1 &
	reader=$!
	sleep 1
}
bench_config_kmod_stop() { kill -INT $reader; wait $reader; cat $OUT/drain-kmod.out; }
bench_config_stat_start() {
	build/bin/npuprof stat --engine kmod > $OUT/stat-kmod.out 2>&1 &
	reader=$!
	sleep 1
}
bench_config_stat_stop() { kill -INT $reader; wait $reader; grep -E ' (submit|dropped) ' $OUT/stat-kmod.out; }

for f in tests/vm/bench_*.sh; do
	[ -f "$f" ] && . "./$f"
done

cleanup_modules
insmod $NPUSIM_KO || exit 1
insmod $NPUPROF_KO || exit 1
trace_on 0 1
echo 65536 > $T/buffer_size_kb
build/bin/npuwork --scenario flood --tasks 20000 --devices 2 --quiet # warm up

r=0
while [ $r -lt $REPS ]; do
	for c in $CONFIGS; do
		bench_config_${c}_start
		b0=$(busy)
		build/bin/npuwork --scenario flood --tasks $TASKS --devices 2 --quiet
		b1=$(busy)
		bench_config_${c}_stop > /dev/null
		echo "$((b1 - b0))" >> $OUT/bench-$c.ns
	done
	r=$((r + 1))
done
# the default ring at the highest submit rate the VM reaches: what the
# reader got and what the module dropped (drain.c prints both at exit)
bench_config_kmod_start
build/bin/npuwork --scenario flood --tasks $TASKS --devices 2 --quiet
bench_config_kmod_stop > /dev/null
drops=$(sed -n 's/^drain: \([0-9]* records, [0-9]* dropped\).*/\1/p' $OUT/drain-kmod.out)
cleanup_modules

median() { sort -n "$OUT/bench-$1.ns" | sed -n "$(((REPS + 1) / 2))p"; }
spread() { sort -n "$OUT/bench-$1.ns" | awk -v n=$TASKS 'NR==1{lo=$1} {hi=$1} END{printf "%.0f..%.0f", lo/n, hi/n}'; }
off=$(median off)
echo
echo "Added CPU cost per NPU task (npuwork flood, $TASKS tasks, CPU time in ns from /proc/schedstat, median of $REPS interleaved rounds; spread min..max ns/task):"
printf '  %-12s %8.0f ns/task busy  (%s)\n' "off (baseline)" "$(echo "$off $TASKS" | awk '{print $1/$2}')" "$(spread off)"
for c in $CONFIGS; do
	[ $c = off ] && continue
	awk -v c="$c" -v v="$(median $c)" -v b="$off" -v n=$TASKS -v sp="$(spread $c)" 'BEGIN{
		printf "  %-12s %8.0f ns/task busy  %7.1f ns/task added  (%s)\n", c, v/n, (v-b)/n, sp }'
done
f=$(median ftrace)
for c in $CONFIGS; do
	case $c in off|ftrace) continue ;; esac
	awk -v c="$c" -v k="$(median $c)" -v f="$f" -v b="$off" 'BEGIN{
		if (f > b) printf "  ratio %s / ftrace added cost: %.3f\n", c, (k-b)/(f-b);
		else print "  ftrace added no measurable cost" }'
done
echo "  kmod at the highest submit rate the VM reaches (default ring): ${drops:-no summary from drain (see $OUT/drain-kmod.out)}"
rm -f $OUT/bench-*.ns
