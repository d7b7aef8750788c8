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
# (the driver's trs_chan events into the ftrace ring buffer, no reader); kmod
# (npuprof.ko with the minimal reader tests/vm/drain.c); stat (npuprof.ko
# with `npuprof stat` as the reader, i.e. plus the tool's own work); sample
# (`npuprof record --sample 100`, system-wide, to a session directory);
# flight (`npuprof flight`, the in-memory flight recorder); kmodlayout
# (npuprof.ko built again behind 1.5 KiB of code that is never called,
# Makefile: kmod-layout, with the drain reader: the same probes at other
# offsets in their pages; under TCG the difference from kmod is the code
# layout's share of every probe measure, shown as info rows). Extra
# engines add configurations through tests/vm/bench_*.sh, which define
# bench_config_<name>_start/stop and append <name> to CONFIGS.
#
# The floors (measurement modes, not captures; configurations of their
# own): kmodempty / bpfempty, the same tracepoints with probes that return
# at once (npuprof.ko's probe_mode=empty; the BPF programs with
# NPUPROF_BPF_PROBE_MODE=empty), and kmodnowrite / bpfnowrite, the probes'
# decision and encoding without the ring write (probe_mode=nowrite), and
# kmodnostamp / bpfnostamp, the write without its clock read
# (probe_mode=nostamp), each with the drain
# reader. Their added CPU per task and its ratio to
# ftrace's are printed as RESULT lines with op "info" (no target). The
# reader's share: the reader process's own CPU (the sum of its threads'
# /proc/<pid>/task/*/schedstat run times over the flood), per task and as
# a share of the configuration's added CPU.
#
# BENCH_CONFIGS (a list) runs only those configurations (off and ftrace are
# always run: the ratios need them); BENCH_SKIP (a list of bench_*.sh
# names without prefix and suffix, e.g. "production apisession") leaves
# those files out.
#
# Then the probes alone: each engine runs one more flood with its probes
# timed by the kernel (BPF: kernel.bpf_stats_enabled=1 and bpftool's
# run_time_ns/run_cnt per program; npuprof.ko: its probe_stats parameter,
# the same local_clock() accounting) and ns per probe hit is printed for
# each tracepoint. The ratios with a target are printed as RESULT lines
# (scripts/bench-table.sh). Last, info rows that add the two measures made
# without the guest's noise: a configuration's probes (bracket) plus its
# reader's CPU, per task, over ftrace's probes.
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/vm/lib.sh
TASKS=${BENCH_TASKS:-200000}
REPS=${BENCH_REPS:-5}
T=/sys/kernel/tracing
OUT=${NPUPROF_RESULTS:-/tmp}

busy() { awk '/^cpu[0-9]/{s += $8} END{printf "%.0f\n", s}' /proc/schedstat; }

CONFIGS="off ftrace kmod kmodempty kmodnowrite kmodnostamp stat sample flight"
LAYOUT_KO=build/bench/kmod-layout/npuprof.ko
[ -f $LAYOUT_KO ] && CONFIGS="$CONFIGS kmodlayout"
P=/sys/module/npuprof/parameters
bench_config_off_start() { reader=; }
bench_config_off_stop() { :; }
bench_config_ftrace_start() {
	reader=
	echo 1 > $T/events/trs_chan/enable
}
bench_config_ftrace_stop() {
	echo 0 > $T/events/trs_chan/enable
	echo > $T/trace
}
bench_config_kmod_start() {
	$TB/drain kmod > $OUT/drain-kmod.out 2>&1 &
	reader=$!
	sleep 1
}
bench_config_kmod_stop() { kill -INT $reader; wait $reader; cat $OUT/drain-kmod.out; }
# the floors: npuprof.ko in probe_mode MODE with the drain reader, full after
kmod_mode_start() { echo $1 > $P/probe_mode && bench_config_kmod_start; }
kmod_mode_stop() { bench_config_kmod_stop; echo full > $P/probe_mode; }
bench_config_kmodempty_start() { kmod_mode_start empty; }
bench_config_kmodempty_stop() { kmod_mode_stop; }
bench_config_kmodnowrite_start() { kmod_mode_start nowrite; }
bench_config_kmodnowrite_stop() { kmod_mode_stop; }
bench_config_kmodnostamp_start() { kmod_mode_start nostamp; }
bench_config_kmodnostamp_stop() { kmod_mode_stop; }
# swap_npuprof KO: npuprof.ko unloaded and KO loaded in its place
swap_npuprof() { rmmod npuprof && insmod "$1" || echo "bench: cannot load $1" >&2; }
bench_config_kmodlayout_start() { swap_npuprof $LAYOUT_KO; bench_config_kmod_start; }
bench_config_kmodlayout_stop() { bench_config_kmod_stop; swap_npuprof $NPUPROF_KO; }
bench_config_stat_start() {
	build/bin/npuprof stat --engine kmod > $OUT/stat-kmod.out 2>&1 &
	reader=$!
	sleep 1
}
bench_config_stat_stop() { kill -INT $reader; wait $reader; grep -E ' (submit|dropped) ' $OUT/stat-kmod.out; }
bench_config_sample_start() {
	rm -rf /tmp/bench-sample && mkdir -p /tmp/bench-sample
	build/bin/npuprof record --quiet --no-export --engine kmod --sample 100 -o /tmp/bench-sample > $OUT/sample.out 2>&1 &
	reader=$!
	sleep 1
}
bench_config_sample_stop() { kill -INT $reader; wait $reader; rm -rf /tmp/bench-sample; }
bench_config_flight_start() {
	rm -rf /tmp/bench-flight && mkdir -p /tmp/bench-flight
	build/bin/npuprof flight --engine kmod -o /tmp/bench-flight --seconds 10 --size 64 > $OUT/flight.out 2>&1 &
	reader=$!
	sleep 1
}
bench_config_flight_stop() { kill -INT $reader; wait $reader; rm -rf /tmp/bench-flight; }

for f in tests/vm/bench_*.sh; do
	n=${f#tests/vm/bench_}
	case " ${BENCH_SKIP:-} " in *" ${n%.sh} "*) continue ;; esac
	[ -f "$f" ] && . "./$f"
done
[ -z "${BENCH_CONFIGS:-}" ] || CONFIGS="off ftrace $(echo " $BENCH_CONFIGS " | sed 's/ off / /; s/ ftrace / /')"

# flood N: npuwork's flood of N tasks; one that has not ended after
# BENCH_FLOOD_TIMEOUT seconds (default 900) is killed and said so, so a
# stalled round cannot hold the VM for the whole run's timeout
flood() {
	timeout ${BENCH_FLOOD_TIMEOUT:-900} build/bin/npuwork --scenario flood --tasks $1 --devices 2 --quiet ||
		echo "bench: a flood of $1 tasks failed or was stopped (status $?)" >&2
}

# reader_ns: the CPU time (ns) the running configuration's reader process
# has had, all its threads (0 without a reader)
reader_ns() {
	[ -n "$reader" ] || { echo 0; return; }
	cat /proc/$reader/task/*/schedstat 2> /dev/null | awk '{s += $1} END{printf "%.0f\n", s}'
}

cleanup_modules
insmod $NPUSIM_KO || exit 1
insmod $NPUPROF_KO || exit 1
trace_on 0 1
echo 65536 > $T/buffer_size_kb
flood 20000 # warm up

r=0
while [ $r -lt $REPS ]; do
	for c in $CONFIGS; do
		bench_config_${c}_start
		b0=$(busy)
		r0=$(reader_ns)
		flood $TASKS
		b1=$(busy)
		r1=$(reader_ns)
		bench_config_${c}_stop > /dev/null
		echo "$((b1 - b0))" >> $OUT/bench-$c.ns
		echo "$((r1 - r0))" >> $OUT/bench-$c.rd
	done
	r=$((r + 1))
done
# The probes alone, every configuration measured the same way: npuprof.ko's
# tracepoint bracket (tp_bracket) times everything the tracepoints call
# (ftrace's event, BPF programs and their trampoline, npuprof.ko's probe),
# BK_REPS interleaved rounds of one flood each; the CPU in the tracepoints
# per task, less off's, is each configuration's probe cost without the
# guest's noise (the reader and wake-ups are not in it).
BK_REPS=${BENCH_BK_REPS:-3}
if [ -w $P/tp_bracket ]; then
	r=0
	while [ $r -lt $BK_REPS ]; do
		for c in $CONFIGS; do
			bench_config_${c}_start
			echo 1 > $P/tp_bracket
			flood $TASKS
			cat $P/tp_time > $OUT/bk.txt
			echo 0 > $P/tp_bracket
			bench_config_${c}_stop > /dev/null
			awk '{ s += $3 } END { printf "%.0f\n", s }' $OUT/bk.txt >> $OUT/bench-$c.bk
			awk -v c=$c '{ h[$1] += $2; t[$1] += $3 } END { for (k in h) print c, k, h[k], t[k] }' $OUT/bk.txt >> $OUT/bk-all.txt
		done
		r=$((r + 1))
	done
fi

# the default ring at the highest submit rate the VM reaches: what the
# reader got and what the module dropped (drain.c prints both at exit)
bench_config_kmod_start
flood $TASKS
bench_config_kmod_stop > /dev/null
drops=$(sed -n 's/^drain: \([0-9]* records, [0-9]* dropped\).*/\1/p' $OUT/drain-kmod.out)

# the probes alone, timed by the kernel: ns per hit per tracepoint
probe_times=
if [ -w $P/probe_stats ]; then
	for mode in full nowrite nostamp empty; do
		echo $mode > $P/probe_mode
		echo 1 > $P/probe_stats
		bench_config_kmod_start
		flood $TASKS
		cat $P/probe_time > $OUT/probe-kmod-$mode.txt
		bench_config_kmod_stop > /dev/null
		echo 0 > $P/probe_stats
		probe_times="$probe_times$(awk -v m=$mode '$2 > 0 { printf "  npuprof.ko %-7s %-6s %8.0f ns/hit  (%d hits)\n", m, $1, $3 / $2, $2 }' $OUT/probe-kmod-$mode.txt)
"
	done
	echo full > $P/probe_mode
fi
case " $CONFIGS " in
*" bpf "*)
	if command -v bpftool > /dev/null && sysctl -qw kernel.bpf_stats_enabled=1; then
		for mode in full nowrite empty; do
			export NPUPROF_BPF_PROBE_MODE=$mode; bench_config_bpf_start; unset NPUPROF_BPF_PROBE_MODE
			flood $TASKS
			bpftool -j prog show > $OUT/probe-bpf-$mode.json 2> $OUT/probe-bpf.err
			bench_config_bpf_stop > /dev/null
			probe_times="$probe_times$(python3 -c '
import json, sys
for p in json.load(open(sys.argv[1])):
    n, c, t = p.get("name", "?"), p.get("run_cnt", 0), p.get("run_time_ns", 0)
    if c and n.startswith("on_"):
        print("  BPF        %-7s %-6s %8.0f ns/hit  (%d hits)" % (sys.argv[2], n[3:], t / c, c))
' $OUT/probe-bpf-$mode.json $mode)
"
		done
		sysctl -qw kernel.bpf_stats_enabled=0
	else
		probe_times="$probe_times  BPF: no bpftool or kernel.bpf_stats_enabled
"
	fi
	;;
esac
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
# result NAME CONFIG OP TARGET: CONFIG's added cost / ftrace's as a RESULT
# line, with the spread: the ratio of each interleaved round (its own off,
# ftrace and configuration), min..max (scripts/bench-table.sh marks a
# target inside it as noise)
result() {
	case " $CONFIGS " in *" $2 "*) ;; *) return ;; esac
	sp=$(paste "$OUT/bench-off.ns" "$OUT/bench-ftrace.ns" "$OUT/bench-$2.ns" | awk '
		$2 > $1 { r = ($3 - $1) / ($2 - $1); if (n++ == 0 || r < lo) lo = r; if (n == 1 || r > hi) hi = r }
		END { if (n) printf "\t%.3f\t%.3f", lo, hi }')
	awk -v name="$1" -v op="$3" -v t="$4" -v k="$(median $2)" -v f="$f" -v b="$off" -v sp="$sp" 'BEGIN{
		v = "unmeasurable"
		if (f > b) v = sprintf("%.3f", (k - b) / (f - b))
		printf "RESULT\t%s\t%s\t%s\t%s%s\n", name, v, op, t, (f > b ? sp : "") }'
}
# the measures with a target (issue 17)
result "npuprof.ko added CPU per task / ftrace" kmod "<=" 0.2
result "BPF added CPU per task / ftrace" bpf "<=" 0.6
result "--sample 100 added CPU per task / ftrace" sample "<=" 0.1
result "flight recorder added CPU per task / ftrace" flight "<=" 0.3
# the floors (issue 30): information, no target
result "npuprof.ko empty probe added CPU per task / ftrace" kmodempty info -
result "npuprof.ko no ring write added CPU per task / ftrace" kmodnowrite info -
result "npuprof.ko no time stamp added CPU per task / ftrace" kmodnostamp info -
result "npuprof.ko at another code layout added CPU per task / ftrace" kmodlayout info -
result "BPF empty probe added CPU per task / ftrace" bpfempty info -
result "BPF no ring write added CPU per task / ftrace" bpfnowrite info -
result "BPF no time stamp added CPU per task / ftrace" bpfnostamp info -
# the probes alone (tracepoint bracket): ns per task in the tracepoints
# over off's, its ratio to ftrace's, and ns per hit for each tracepoint
if [ -s $OUT/bench-off.bk ]; then
	bmed() { sort -n "$OUT/bench-$1.bk" | sed -n "$(((BK_REPS + 1) / 2))p"; }
	bo=$(bmed off)
	bf=$(bmed ftrace)
	echo "Probes alone (tracepoint bracket, median of $BK_REPS rounds): ns/task in the tracepoints' probes over off's, ratio to ftrace's; ns/hit per tracepoint (all rounds):"
	for c in $CONFIGS; do
		[ $c = off ] && continue
		awk -v c="$c" -v v="$(bmed $c)" -v b="$bo" -v f="$bf" -v n=$TASKS 'BEGIN{
			printf "  %-12s %8.1f ns/task", c, (v - b) / n
			if (f > b) printf "  ratio %.3f", (v - b) / (f - b)
			printf "\n" }'
		awk -v c="$c" '$1 == c { h[$2] += $3; t[$2] += $4 } END {
			for (k in h) if (h[k]) printf "      %-6s %8.0f ns/hit  (%d hits)\n", k, t[k] / h[k], h[k] }' $OUT/bk-all.txt
	done
	for m in "kmod:npuprof.ko" "kmodnowrite:npuprof.ko no ring write" "kmodnostamp:npuprof.ko no time stamp" "kmodempty:npuprof.ko empty probe" "kmodlayout:npuprof.ko at another code layout" \
		"flight:flight recorder" "bpf:BPF" "bpfnowrite:BPF no ring write" "bpfnostamp:BPF no time stamp" "bpfempty:BPF empty probe"; do
		c=${m%%:*}
		case " $CONFIGS " in *" $c "*) ;; *) continue ;; esac
		sp=$(paste $OUT/bench-off.bk $OUT/bench-ftrace.bk $OUT/bench-$c.bk | awk '
			$2 > $1 { r = ($3 - $1) / ($2 - $1); if (n++ == 0 || r < lo) lo = r; if (n == 1 || r > hi) hi = r }
			END { if (n) printf "\t%.3f\t%.3f", lo, hi }')
		awk -v name="${m#*:} probe CPU per task / ftrace (tracepoint bracket)" -v v="$(bmed $c)" -v b="$bo" -v f="$bf" -v sp="$sp" 'BEGIN{
			if (f > b) printf "RESULT\t%s\t%.3f\tinfo\t-%s\n", name, (v - b) / (f - b), sp }'
	done
fi
# the reader's share: its own CPU per task (median over the rounds) and
# that as a share of the configuration's added CPU
echo "Reader CPU (its threads' run time during the flood; median ns/task, share of the configuration's added CPU):"
for c in $CONFIGS; do
	case $c in off|ftrace) continue ;; esac
	[ -s $OUT/bench-$c.rd ] || continue
	rd=$(sort -n $OUT/bench-$c.rd | sed -n "$(((REPS + 1) / 2))p")
	awk -v c="$c" -v rd="$rd" -v k="$(median $c)" -v b="$off" -v n=$TASKS 'BEGIN{
		printf "  %-12s %8.1f ns/task reader", c, rd / n
		if (k > b) printf "  %5.1f%% of added", 100 * rd / (k - b)
		printf "\n" }'
done
for c in kmod bpf flight; do
	case " $CONFIGS " in *" $c "*) ;; *) continue ;; esac
	rd=$(sort -n $OUT/bench-$c.rd | sed -n "$(((REPS + 1) / 2))p")
	awk -v c="$c" -v rd="$rd" -v k="$(median $c)" -v b="$off" 'BEGIN{
		if (k > b) printf "RESULT\t%s reader share of added CPU\t%.3f\tinfo\t-\n", c, rd / (k - b) }'
done
# probes and reader together, both measured without the guest's noise:
# the bracket's probe CPU per task over off's plus the reader's median CPU
# per task, over ftrace's probes (ftrace has no reader here: a lower bound
# of its cost); the spread is the bracket rounds' with the reader's median
if [ -s $OUT/bench-off.bk ]; then
	for m in "kmod:npuprof.ko" "flight:flight recorder" "bpf:BPF" "sample:--sample 100"; do
		c=${m%%:*}
		case " $CONFIGS " in *" $c "*) ;; *) continue ;; esac
		rd=$(sort -n $OUT/bench-$c.rd | sed -n "$(((REPS + 1) / 2))p")
		sp=$(paste $OUT/bench-off.bk $OUT/bench-ftrace.bk $OUT/bench-$c.bk | awk -v rd="$rd" '
			$2 > $1 { r = ($3 - $1 + rd) / ($2 - $1); if (n++ == 0 || r < lo) lo = r; if (n == 1 || r > hi) hi = r }
			END { if (n) printf "\t%.3f\t%.3f", lo, hi }')
		awk -v name="${m#*:} probes + reader CPU per task / ftrace probes" -v v="$(bmed $c)" -v b="$bo" -v f="$bf" -v rd="$rd" -v sp="$sp" 'BEGIN{
			if (f > b) printf "RESULT\t%s\t%.3f\tinfo\t-%s\n", name, (v - b + rd) / (f - b), sp }'
	done
fi
echo "Probe run time per hit (the kernel's accounting: bpf_stats / npuprof.ko probe_stats; one flood of $TASKS tasks each):"
printf '%s' "$probe_times"
echo "  kmod at the highest submit rate the VM reaches (default ring): ${drops:-no summary from drain (see $OUT/drain-kmod.out)}"
rm -f $OUT/bench-*.ns $OUT/bench-*.rd $OUT/bench-*.bk $OUT/bk-all.txt
