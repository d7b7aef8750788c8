#!/bin/sh
# Run every benchmark binary (tests/bench/bench_*.c) on the host, then the
# in-VM benchmarks (tests/vm/bench.sh) when present. Benchmarks print ratios
# against a reference measured in the same run; they never pass or fail on
# time. Every measure with a target is also printed as a RESULT line; the run
# ends with scripts/bench-table.sh's table of them (HIT/MISS), whose rows are
# appended to build/bench/history.tsv with the date and git revision.
# The exit status is non-zero if a benchmark failed (not on a MISS).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mkdir -p build/bench
log=build/bench/last.log
: > "$log"
status=0
run() {
	echo "== $*" | tee -a "$log"
	{ "$@" 2>&1 || echo "BENCH-FAILED $*"; } | tee -a "$log"
}
for b in build/tests/bench/bench_*; do
	[ -x "$b" ] || continue
	run "$b"
done
if [ -x tests/vm/bench.sh ]; then
	# the guest gets no environment: the VM benchmarks' sizes go on its
	# command line (BENCH_TASKS, BENCH_REPS, PROD_STEPS, PROD_REPS)
	set --
	for v in BENCH_TASKS BENCH_REPS BENCH_CONFIGS BENCH_SKIP PROD_STEPS PROD_REPS; do
		eval "val=\${$v:-}"
		[ -z "$val" ] || set -- "$@" "$v=$val"
	done
	# one host thread per vCPU: a guest task's CPU time is its own
	export VM_TCG_THREADS="${VM_TCG_THREADS:-multi}"
	run ./scripts/vm.sh env "$@" tests/vm/bench.sh
fi
grep -q '^BENCH-FAILED' "$log" && status=1
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || rev="$rev+dirty"
./scripts/bench-table.sh "$log" build/bench/history.tsv "$rev" scripts/bench-measures.tsv
exit $status
