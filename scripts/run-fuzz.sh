#!/bin/sh
# Run every libFuzzer harness of tests/fuzz for a fixed time each:
#   scripts/run-fuzz.sh BUILD_DIR SECONDS
# BUILD_DIR holds tests/fuzz/fuzz_* (make fuzz-build). Each harness starts
# from its committed corpus (tests/fuzz/corpus/<name>, read only) plus what
# earlier runs found (BUILD_DIR/fuzz-corpus/<name>, where new inputs go); a
# crash leaves BUILD_DIR/fuzz-crash/<name>-crash-<sha1> and fails the run
# (commit it to the corpus and add a unit test once fixed). Prints one line
# per harness: executions, coverage (libFuzzer's cov: edges) and corpus size,
# then "fuzz: N passed, N failed".
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${1:?usage: run-fuzz.sh BUILD_DIR SECONDS}
secs=${2:?usage: run-fuzz.sh BUILD_DIR SECONDS}
passed=0
failed=0
mkdir -p "$build/fuzz-crash" "$build/fuzz-log"
for bin in "$build"/tests/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	seeds=tests/fuzz/corpus/$name
	found=$build/fuzz-corpus/$name
	log=$build/fuzz-log/$name.log
	mkdir -p "$found" "$seeds"
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		"$bin" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$build/fuzz-crash/$name-" \
		"$found" "$seeds" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | sed 's/cov: //')
	corp=$(grep -o 'corp: [0-9]*' "$log" | tail -n 1 | sed 's/corp: //')
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1))
		echo "$name: ok, ${execs:-?} executions in ${secs} s, cov ${cov:-?}, corpus ${corp:-?}"
	else
		failed=$((failed + 1))
		echo "$name: FAIL (exit $rc) after ${execs:-?} executions; see $log:"
		grep -E 'ERROR|runtime error|SUMMARY|Test unit written|#[0-9]+ +in ' "$log" | head -n 20
	fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
