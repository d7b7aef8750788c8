#!/bin/sh
# The npuprof.torch package on the host (tests/torch_pkg_test.py: schedule,
# collection cycles and layout, API errors, coexistence with torch's
# profiler, the export handler, the environment session). Needs Debian's
# python3-torch (scripts/deps.sh) and `make` (build/python, fwk_dump).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=${BUILD:-build}
[ -f "$build/python/npuprof/_C.so" ] || { echo "torch_pkg_test: $build/python/npuprof/_C.so missing: make"; exit 1; }
# torch's glog warnings (an allocation from before profiling freed during it) are noise
out=$(PYTHONPATH=$build/python BUILD=$build /usr/bin/python3 tests/torch_pkg_test.py 2>&1)
st=$?
printf '%s\n' "$out" | grep -v '^W[0-9]\{8\} \|^WARNING: Logging before'
exit $st
