#!/bin/sh
# In-VM benchmarks (run by `make bench` through scripts/vm.sh): the CPU cost
# each tracing method adds per NPU task, as ratios measured in one run.
#
# Workload: npuwork's flood scenario on npusim (two devices, batches of 64).
# Cost = busy CPU time of the whole guest (/proc/stat: user+nice+system+irq
# +softirq) during the run, so in-kernel probe work, interrupt-time
# completions and the tracer's own reader all count. Each configuration runs
# REPS times; the median is used. TCG timings only mean something as ratios.
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/vm/lib.sh
TASKS=${BENCH_TASKS:-200000}
REPS=${BENCH_REPS:-3}
T=/sys/kernel/tracing

busy() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }

# measure NAME: run the workload REPS times, print the median busy ticks
measure() {
	vals=""
	r=0
	while [ $r -lt $REPS ]; do
		b0=$(busy)
		build/bin/npuwork --scenario flood --tasks $TASKS --devices 2 --quiet
		b1=$(busy)
		vals="$vals $((b1 - b0))"
		r=$((r + 1))
	done
	echo $vals | tr ' ' '\n' | sort -n | sed -n "$(((REPS + 1) / 2))p"
}

cleanup_modules
insmod $NPUSIM_KO || exit 1
trace_on 0 1
# warm up
build/bin/npuwork --scenario flood --tasks 20000 --devices 2 --quiet

off=$(measure)

echo 65536 > $T/buffer_size_kb
echo 1 > $T/events/trs_chan/enable
echo 1 > $T/events/npusim/enable
ftrace=$(measure)
echo 0 > $T/events/trs_chan/enable
echo 0 > $T/events/npusim/enable
echo > $T/trace

insmod $NPUPROF_KO || exit 1
build/bin/npuprof stat --engine kmod > /tmp/bench-kmod.out 2>&1 &
sp=$!
sleep 1
kmod=$(measure)
kill -INT $sp
wait $sp
drops=$(sed -n 's/^ *\([0-9]*\)  dropped.*/\1/p' /tmp/bench-kmod.out)
submits=$(sed -n 's/^ *\([0-9]*\)  submit .*/\1/p' /tmp/bench-kmod.out)

# extra engines append their measurements through this hook
extra=""
for f in tests/vm/bench_*.sh; do
	[ -f "$f" ] && . "./$f"
done
cleanup_modules

hz=$(getconf CLK_TCK)
per_task() { awk -v d="$1" -v b="$off" -v n=$TASKS -v hz=$hz 'BEGIN{printf "%.0f", (d-b)*1e9/hz/n}'; }
echo
echo "Added CPU cost per NPU task (npuwork flood, $TASKS tasks, median of $REPS, guest busy time):"
printf '  %-28s %8s ticks\n' "tracing off (baseline)" "$off"
printf '  %-28s %8s ticks  %6s ns/task added\n' "ftrace (trs_chan to buffer)" "$ftrace" "$(per_task $ftrace)"
printf '  %-28s %8s ticks  %6s ns/task added\n' "npuprof.ko (kmod engine)" "$kmod" "$(per_task $kmod)"
printf '%b' "$extra"
awk -v k="$kmod" -v f="$ftrace" -v b="$off" 'BEGIN{ if (f > b) printf "  ratio npuprof.ko / ftrace added cost: %.2f (target <= 0.5)\n", (k-b)/(f-b); else print "  ftrace added no measurable cost"}'
echo "  npuprof.ko at the highest submit rate: $submits submits captured, $drops dropped (default ring)"
