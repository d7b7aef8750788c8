#!/bin/sh
# make install-sdk into build/sdk/prefix, then build tests/sdk (a CANN-style
# CMake sample) against it with ASCEND_HOME_PATH, and run it (on the host:
# no devices; the VM suite 40_runtime runs the same binary on npusim), and
# build tests/sdk/prof_sample (CANN's profiling sample: an aclprofStart
# session; the VM suite 45_apisession runs it) the same way.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=build/sdk
rm -rf "$out"
make -s install-sdk PREFIX="$out/prefix" >/dev/null
for f in acl/acl.h acl/acl_prof.h acl/acl_base.h acl/acl_rt.h acl/error_codes/rt_error_codes.h; do
	[ -f "$out/prefix/include/$f" ] || { echo "sdk: $f not installed"; exit 1; }
done
for l in libascendcl.so libmsprofiler.so libprofapi.so; do
	[ -f "$out/prefix/lib64/$l" ] || { echo "sdk: $l not installed"; exit 1; }
done
ASCEND_HOME_PATH="$root/$out/prefix" cmake -S tests/sdk -B "$out/build" >/dev/null
cmake --build "$out/build" >/dev/null
ASCEND_HOME_PATH="$root/$out/prefix" cmake -S tests/sdk/prof_sample -B "$out/prof_sample" >/dev/null
cmake --build "$out/prof_sample" >/dev/null
[ -x "$out/prof_sample/prof_sample" ] || { echo "sdk: prof_sample not built"; exit 1; }
# it links the SDK's libraries, nothing of npuprof's own
if readelf -d "$out/prof_sample/prof_sample" | grep NEEDED | grep -v -e libascendcl -e libmsprofiler -e 'libc\.so'; then
	echo "sdk: prof_sample needs more than libascendcl, libmsprofiler and libc"; exit 1
fi
. "$out/prefix/bin/setenv.bash"
"$out/build/acl_sample" "$out/prof"
echo "sdk: ok"
