#!/bin/sh
# In-guest test runner (started by `scripts/vm.sh tests/vm/run.sh`).
# Sources tests/vm/lib.sh, then every tests/vm/suite_*.sh in name order; each
# suite registers its tests with `run NAME CMD...`. Ends with one line:
# "vm: N passed, N failed". Pass suite names as arguments to run only those.
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/vm/lib.sh

suites=$(ls tests/vm/suite_*.sh | sort)
if [ $# -gt 0 ]; then
	suites=""
	for s in "$@"; do suites="$suites tests/vm/suite_$s.sh"; done
fi
for s in $suites; do
	echo "### $s"
	. "./$s"
done
cleanup_modules
echo "vm: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
