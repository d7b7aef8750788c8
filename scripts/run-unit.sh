#!/bin/sh
# Run every host unit-test binary (one Check runner per tests/unit/test_*.c)
# and end with one summary line: "unit: N passed, N failed".
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
passed=0
failed=0
status=0
for t in build/tests/unit/test_*; do
	[ -x "$t" ] || continue
	out=$(CK_FORK=yes "$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	line=$(printf '%s\n' "$out" | sed -n 's/.*Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p' | tail -n 1)
	if [ -z "$line" ]; then
		echo "$t: no Check summary (exit $rc)"
		failed=$((failed + 1))
		status=1
		continue
	fi
	set -- $line
	passed=$((passed + $1 - $2 - $3))
	failed=$((failed + $2 + $3))
	[ "$rc" -eq 0 ] || status=1
done
# Packaging (make install into a scratch DESTDIR), the installed libraries'
# shape (recorder_lib_test) and replaying the committed recording
# (replay_test) count as one test each.
for t in tests/install_test.sh tests/recorder_lib_test.sh tests/replay_test.sh; do
	[ -x "$t" ] || continue
	if out=$("$t" 2>&1); then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		status=1
	fi
	printf '%s\n' "$out"
done
echo "unit: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$status" -eq 0 ]
