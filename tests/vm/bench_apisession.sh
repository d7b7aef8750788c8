# API-driven self-capture against `npuprof record` (sourced by
# tests/vm/bench.sh before its own rounds; also runs alone:
# scripts/vm.sh tests/vm/bench_apisession.sh).
#
# Workload: CANN's profiling sample (tests/sdk/prof_sample, built by
# tests/sdk/run.sh) with AS_ROUNDS rounds of three tasks (two async copies,
# an event record) on npusim. Configurations, interleaved over AS_REPS
# rounds: off (the sample without its aclprof* calls), api (the sample's own
# aclprofStart session: the in-app reader thread captures its tasks through
# npuprof.ko) and record (the same program under `npuprof record --no-export
# --engine kmod`: record's session governs its aclprof* calls). Cost = CPU
# time (user + system, getrusage of the waited-for process tree) of the
# command: the app with its reader and writer threads, or record's process
# and the app; kernel work in their context (probes, ioctls, the ring
# copies) counts. The whole guest's busy time (bench.sh's measure) is too
# noisy here: a short workload on a loaded TCG host. Added CPU per task =
# (median - median of off) / tasks. Target: api adds no more than record,
# ratio api/record <= 1.1.
if [ -z "${TB:-}" ]; then
	cd "$(dirname "$0")/../.." || exit 2
	. tests/vm/lib.sh
fi
AS_ROUNDS=${AS_ROUNDS:-10000}
AS_REPS=${AS_REPS:-5}
AS_BOUT=/tmp/asbench
AS_PS=build/sdk/prof_sample/prof_sample
AS_LIB=build/sdk/prefix/lib64

# as_cpu CMD...: run CMD (stdout to /dev/null); print its process tree's
# user + system CPU in ns
as_cpu() {
	python3 -c '
import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open("/dev/null", os.O_WRONLY)
    os.dup2(fd, 1)
    os.execvp(sys.argv[1], sys.argv[1:])
_, st, ru = os.wait4(pid, 0)
if not os.WIFEXITED(st) or os.WEXITSTATUS(st):
    sys.exit(1)
print(int((ru.ru_utime + ru.ru_stime) * 1e9))
' "$@"
}

as_run() {
	rm -rf $AS_BOUT/r && mkdir -p $AS_BOUT/r
	case $1 in
	off) as_cpu env LD_LIBRARY_PATH=$AS_LIB $AS_PS $AS_BOUT/r $AS_ROUNDS --no-prof ;;
	api) as_cpu env LD_LIBRARY_PATH=$AS_LIB $AS_PS $AS_BOUT/r $AS_ROUNDS ;;
	record) as_cpu build/bin/npuprof record --quiet --no-export --engine kmod -o $AS_BOUT/r -- \
		env LD_LIBRARY_PATH=$AS_LIB $AS_PS $AS_BOUT/r $AS_ROUNDS ;;
	esac
}

as_bench() {
	[ -x $AS_PS ] || { echo "bench_apisession: $AS_PS missing: run tests/sdk/run.sh"; return 1; }
	cleanup_modules
	insmod $NPUSIM_KO devices=1 && insmod $NPUPROF_KO || return 1
	trace_on 0 || return 1
	mkdir -p $AS_BOUT
	rm -f $AS_BOUT/*.ns
	as_run api > /dev/null || { echo "bench_apisession: the sample failed"; return 1; } # warm up
	r=0
	while [ $r -lt $AS_REPS ]; do
		for c in off api record; do
			as_run $c >> $AS_BOUT/$c.ns || { echo "bench_apisession: $c failed"; return 1; }
		done
		r=$((r + 1))
	done
	tasks=$((AS_ROUNDS * 3))
	med() { sort -n $AS_BOUT/$1.ns | sed -n "$(((AS_REPS + 1) / 2))p"; }
	off=$(med off)
	echo
	echo "API-driven self-capture vs npuprof record: CPU time per task of the process tree ($tasks tasks of prof_sample, median of $AS_REPS interleaved rounds):"
	for c in off api record; do
		awk -v c="$c" -v v="$(med $c)" -v b="$off" -v n=$tasks 'BEGIN{
			printf "  %-8s %9.0f ns/task busy  %8.0f ns/task added\n", c, v/n, (v-b)/n }'
	done
	for c in off api record; do
		printf '  %-8s rounds:' $c
		awk -v n=$tasks '{ printf " %.0f", $1 / n }' $AS_BOUT/$c.ns
		echo " ns/task"
	done
	awk -v a="$(med api)" -v r="$(med record)" -v b="$off" 'BEGIN{
		if (r > b) printf "RESULT\tapisession_cpu_per_task_vs_record\t%.3f\t<=\t1.1\n", (a-b)/(r-b);
		else print "bench_apisession: record added no measurable cost" }'
	cleanup_modules
	rm -rf $AS_BOUT
}
as_bench
