#!/bin/sh
# Run every host unit-test binary (one Check runner per tests/unit/test_*.c)
# and the shell tests of the host tools, and end with one summary line:
# "unit: N passed, N failed" (or "asan: ..." for the sanitizer build).
#
# BUILD=DIR (default build) runs the binaries of another build directory.
# With BUILD=build/asan (make asan-check) the test binaries run in one
# process each (CK_FORK=no, so LeakSanitizer sees every case), any
# sanitizer report fails its test, and the packaging tests, which check
# the installed libraries' dependencies, are skipped (sanitized objects
# need libasan).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${BUILD:-build}
label=unit
fork=yes
shell_tests="tests/install_test.sh tests/recorder_lib_test.sh tests/replay_test.sh tests/tools_test.sh tests/trace_test.sh tests/layering_test.sh tests/format_test.sh tests/tree_test.sh tests/sql_consumer_test.sh tests/bench_table_test.sh tests/export_same_test.sh tests/torch_pkg_test.sh"
if [ "$build" != build ]; then
	label=$(basename "$build")
	fork=no
	shell_tests="tests/replay_test.sh tests/tools_test.sh tests/trace_test.sh"
fi
# a sanitizer's report, in any output: the test failed
sanitized() {
	printf '%s\n' "$1" | grep -Eq 'ERROR: (Address|Leak|Undefined)Sanitizer|runtime error: |SUMMARY: (Address|Leak|Undefined)Sanitizer'
}
passed=0
failed=0
status=0
# what failed, repeated above the summary so a log's tail names it
failures=
note() {
	failures="$failures$1
"
}
for t in "$build"/tests/unit/test_*; do
	[ -x "$t" ] || continue
	out=$(CK_FORK=$fork "$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	line=$(printf '%s\n' "$out" | sed -n 's/.*Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p' | tail -n 1)
	if [ -z "$line" ]; then
		echo "$t: no Check summary (exit $rc)"
		note "$t: no Check summary (exit $rc)"
		failed=$((failed + 1))
		status=1
		continue
	fi
	set -- $line
	# each failed case's whole line: the place and Check's message
	fl=$(printf '%s\n' "$out" | grep -E '^[^ ]+:[0-9]+:[FE]:[^:]*:[^:]*:')
	[ -z "$fl" ] || note "$fl"
	if sanitized "$out"; then
		echo "$t: sanitizer report (exit $rc)"
		note "$t: sanitizer report (exit $rc)"
		failed=$((failed + 1))
		status=1
		continue
	fi
	passed=$((passed + $1 - $2 - $3))
	failed=$((failed + $2 + $3))
	[ "$rc" -eq 0 ] || status=1
done
# Scripts that count as one test each: packaging (make install into a
# scratch DESTDIR), the installed libraries' shape (recorder_lib_test),
# replaying the committed recording (replay_test), the command line on bad
# input (tools_test) and the layering of the driver, runtime and tool files.
for t in $shell_tests; do
	[ -x "$t" ] || continue
	if out=$(BUILD=$build "$t" 2>&1) && ! sanitized "$out"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		status=1
		note "$t"
	fi
	printf '%s\n' "$out"
done
[ -z "$failures" ] || printf 'failed:\n%s' "$failures"
echo "$label: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]
