#!/bin/sh
# In-VM benchmarks (run by `make bench` through scripts/vm.sh): the CPU cost
# each tracing method adds per NPU task, as ratios measured in one run.
#
# Workload: npuwork's flood scenario on npusim (two devices, batches of 64).
# Cost = busy CPU time of the whole guest (/proc/stat: user+nice+system+irq
# +softirq) during the run, so in-kernel probe work, interrupt-time
# completions and the tracer's reader all count. The configurations run
# interleaved, REPS rounds; medians are compared. TCG timings only mean
# something as ratios.
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

busy() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }

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
		echo "$((b1 - b0))" >> $OUT/bench-$c.ticks
	done
	r=$((r + 1))
done
bench_config_kmod_start
build/bin/npuwork --scenario flood --tasks $TASKS --devices 2 --quiet
drops=$(bench_config_kmod_stop)
cleanup_modules

median() { sort -n "$OUT/bench-$1.ticks" | sed -n "$(((REPS + 1) / 2))p"; }
hz=$(getconf CLK_TCK)
off=$(median off)
echo
echo "Added CPU cost per NPU task (npuwork flood, $TASKS tasks, median of $REPS interleaved rounds):"
printf '  %-34s %6s ticks\n' "off (baseline)" "$off"
for c in $CONFIGS; do
	[ $c = off ] && continue
	v=$(median $c)
	awk -v c="$c" -v v="$v" -v b="$off" -v n=$TASKS -v hz=$hz 'BEGIN{
		printf "  %-34s %6s ticks  %7.0f ns/task added\n", c, v, (v-b)*1e9/hz/n }'
done
f=$(median ftrace)
for c in $CONFIGS; do
	case $c in off|ftrace) continue ;; esac
	awk -v c="$c" -v k="$(median $c)" -v f="$f" -v b="$off" 'BEGIN{
		if (f > b) printf "  ratio %s / ftrace added cost: %.2f\n", c, (k-b)/(f-b);
		else print "  ftrace added no measurable cost" }'
done
echo "  kmod at the highest submit rate the VM reaches (default ring): $drops"
rm -f $OUT/bench-*.ticks
