#!/bin/sh
# make install-sdk into build/sdk/prefix, then build tests/sdk (a CANN-style
# CMake sample) and tests/sdk/aclnn (a CANN-style aclnn operator sample)
# against it with ASCEND_HOME_PATH, and run them (on the host: no devices;
# the VM suites 40_runtime and 45_aclnn run the same binaries on npusim).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=build/sdk
rm -rf "$out"
make -s install-sdk PREFIX="$out/prefix" >/dev/null
for f in acl/acl.h acl/acl_prof.h acl/acl_base.h acl/acl_rt.h acl/error_codes/rt_error_codes.h; do
	[ -f "$out/prefix/include/$f" ] || { echo "sdk: $f not installed"; exit 1; }
done
for f in aclnn/acl_meta.h aclnn/aclnn_base.h aclnnop/aclnn_util.h aclnnop/aclnn_add.h \
	aclnnop/aclnn_mul.h aclnnop/aclnn_cast.h aclnnop/aclnn_matmul.h aclnnop/aclnn_softmax.h \
	aclnnop/aclnn_layer_norm.h securec.h securectype.h; do
	[ -f "$out/prefix/include/$f" ] || { echo "sdk: $f not installed"; exit 1; }
done
for l in libascendcl.so libmsprofiler.so libprofapi.so libnnopbase.so libopapi.so libc_sec.so; do
	[ -f "$out/prefix/lib64/$l" ] || { echo "sdk: $l not installed"; exit 1; }
done
# the aclnn libraries live in the application: libc and the runtime only
for l in libnnopbase.so libopapi.so libc_sec.so; do
	needed=$(readelf -d "$out/prefix/lib64/$l" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	for n in $needed; do
		case $n in
		libc.so.6 | libascendcl.so | libnnopbase.so) ;;
		*) echo "sdk: $l needs $n (libc and the runtime only)"; exit 1 ;;
		esac
	done
done
ASCEND_HOME_PATH="$root/$out/prefix" cmake -S tests/sdk -B "$out/build" >/dev/null
cmake --build "$out/build" >/dev/null
ASCEND_HOME_PATH="$root/$out/prefix" cmake -S tests/sdk/aclnn -B "$out/build-aclnn" >/dev/null
cmake --build "$out/build-aclnn" >/dev/null
. "$out/prefix/bin/setenv.bash"
"$out/build/acl_sample" "$out/prof"
"$out/build-aclnn/aclnn_sample"
echo "sdk: ok"
