#!/bin/sh
# Run every benchmark binary (tests/bench/bench_*.c) on the host, then the
# in-VM benchmarks (tests/vm/bench.sh) when present. Benchmarks print ratios
# against a reference measured in the same run; they never pass or fail on time.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
status=0
for b in build/tests/bench/bench_*; do
	[ -x "$b" ] || continue
	echo "== $b"
	"$b" || status=1
done
if [ -x tests/vm/bench.sh ]; then
	./scripts/vm.sh tests/vm/bench.sh || status=1
fi
exit $status
