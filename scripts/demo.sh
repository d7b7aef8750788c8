#!/bin/sh
# The demo, run inside the test VM by `make demo`: load the simulated Ascend
# driver, switch on its trace points, run a two-device training workload and
# show what the driver did. Output is kept in build/demo/.
set -eu
cd "$(dirname "$0")/.."
out=${NPUPROF_RESULTS:-build/demo}
T=/sys/kernel/tracing

insmod kmod/npusim/npusim.ko
for d in 0 1; do printf '1\n' > /proc/trs_chan/dev$d-ts0/trace_enable; done
echo 65536 > $T/buffer_size_kb
echo > $T/trace
echo 1 > $T/events/trs_chan/enable
echo 1 > $T/events/npusim/enable

build/bin/npuwork --scenario driver --devices 2 --steps 5

echo 0 > $T/events/trs_chan/enable
echo 0 > $T/events/npusim/enable
cp $T/trace "$out/driver-trace.txt"
for d in 0 1; do cat /proc/trs_chan/dev$d-ts0/summary; done

echo
echo "Driver events captured by ftrace (trs_chan ABI + npusim task time):"
for ev in "sqe: Task Send" "cqe: Cqe Dispatch" "cqe: Task Recv" "recv: Recv start" "task_time:"; do
	printf '  %-20s %s\n' "$ev" "$(grep -c "$ev" "$out/driver-trace.txt" || true)"
done
echo
echo "First submissions and completions:"
grep -m 4 'Task Send' "$out/driver-trace.txt" | sed 's/^ *//'
grep -m 4 'Cqe Dispatch' "$out/driver-trace.txt" | sed 's/^ *//'
rmmod npusim
