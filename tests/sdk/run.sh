#!/bin/sh
# make install-sdk into build/sdk/prefix, then build tests/sdk (a CANN-style
# CMake sample) against it with ASCEND_HOME_PATH, and run it (on the host:
# no devices; the VM suite 40_runtime runs the same binary on npusim), and
# build tests/sdk/prof_sample (CANN's profiling sample: an aclprofStart
# session; the VM suite 45_apisession runs it) and tests/sdk/aclnn (a
# CANN-style aclnn operator sample, run on the host too; the VM suite
# 46_aclnn records it) the same way; then checks the SDK by the rules of
# CANN's example scripts (cann_env_test.sh) and builds tests/sdk/layout and
# tests/sdk/rtapi (npuprof's programs for the runtime API of CANN's
# examples: contexts ... random numbers, tdt channels and queues, dump; the
# VM suite 40_runtime runs them on npusim), running what needs no device.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=build/sdk
rm -rf "$out"
make -s install-sdk PREFIX="$out/prefix" >/dev/null
for f in profiling/aprof_pub.h profiling/prof_common.h profiling/prof_api.h mstx/ms_tools_ext.h acl/acl.h acl/acl_prof.h acl/acl_base.h acl/acl_rt.h acl/acl_tdt.h acl/acl_tdt_queue.h acl/acl_dump.h acl/error_codes/rt_error_codes.h; do
	[ -f "$out/prefix/include/$f" ] || { echo "sdk: $f not installed"; exit 1; }
done
for f in aclnn/acl_meta.h aclnn/aclnn_base.h aclnnop/aclnn_util.h aclnnop/aclnn_add.h \
	aclnnop/aclnn_mul.h aclnnop/aclnn_cast.h aclnnop/aclnn_matmul.h aclnnop/aclnn_softmax.h \
	aclnnop/aclnn_layer_norm.h securec.h securectype.h; do
	[ -f "$out/prefix/include/$f" ] || { echo "sdk: $f not installed"; exit 1; }
done
# the package headers where CANN puts them, usable on their own
arch=$(uname -m)-linux
for f in driver/ascend_hal.h profiling/prof_api.h profiling/aprof_pub.h; do
	[ -f "$out/prefix/$arch/pkg_inc/$f" ] || { echo "sdk: $arch/pkg_inc/$f not installed"; exit 1; }
done
[ ! -e "$out/prefix/$arch/pkg_inc/driver/npusim_hal.h" ] || { echo "sdk: npusim_hal.h installed"; exit 1; }
printf '#include "driver/ascend_hal.h"\n#include "profiling/prof_api.h"\nint main(void) { uint32_t n; return drvGetDevNum(&n) == DRV_ERROR_NONE ? 0 : (int)MSPROF_REPORT_ACL_LEVEL; }\n' |
	cc -fsyntax-only -I"$out/prefix/$arch/pkg_inc" -x c - || { echo "sdk: pkg_inc headers do not compile on their own"; exit 1; }
for l in libascendcl.so libacl_rt.so libacl_rt_impl.so libacl_tdt_channel.so libacl_tdt_queue.so libascend_dump.so libruntime.so libmsprofiler.so libprofapi.so libnnopbase.so libopapi.so libc_sec.so libms_tools_ext.so; do
	[ -f "$out/prefix/lib64/$l" ] || { echo "sdk: $l not installed"; exit 1; }
done
# the aclnn libraries live in the application: glibc (libc; libm for the
# results npusim computes, user/aclnn/nn_compute.c) and the runtime only
for l in libnnopbase.so libopapi.so libc_sec.so; do
	needed=$(readelf -d "$out/prefix/lib64/$l" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	for n in $needed; do
		case $n in
		libc.so.6 | libm.so.6 | libascendcl.so | libnnopbase.so) ;;
		*) echo "sdk: $l needs $n (glibc and the runtime only)"; exit 1 ;;
		esac
	done
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
ASCEND_HOME_PATH="$root/$out/prefix" cmake -S tests/sdk/aclnn -B "$out/build-aclnn" >/dev/null
cmake --build "$out/build-aclnn" >/dev/null
. "$out/prefix/bin/setenv.bash"
"$out/build/acl_sample" "$out/prof"
# both mstx builds record host-only events into a collection started from
# the environment (as under `npuprof record`): the four messages and the
# domain's name are in the host stream
for t in mstx_sample mstx_sample_ext; do
	NPUPROF_OUTPUT_DIR="$out/$t.prof" "$out/build/$t"
	raw=$(ls "$out/$t.prof"/host/data/npuprof.host.*.raw)
	for m in TestMstxWithDomain "DoAclAdd Start" "Create alpha aclScalar" "After aclnnAdd" DoAclAdd_Inner; do
		grep -q -a "$m" "$raw" || { echo "sdk: $t: \"$m\" not recorded"; exit 1; }
	done
done
# libms_tools_ext.so resolves the mstx calls to libprofapi.so's (the in-app library)
readelf -d "$out/build/mstx_sample_ext" | grep -q 'libms_tools_ext.so' ||
	{ echo "sdk: mstx_sample_ext does not need libms_tools_ext.so"; exit 1; }
readelf -d "$out/prefix/lib64/libms_tools_ext.so" | grep -q 'Filter library: \[libprofapi.so\]' ||
	{ echo "sdk: libms_tools_ext.so is not a filter of libprofapi.so"; exit 1; }
"$out/build-aclnn/aclnn_sample"
# CANN's example scripts' rules for a CANN install hold (tests/sdk/cann_env_test.sh)
tests/sdk/cann_env_test.sh "$root/$out/prefix"
# the SDK as CANN's sample scripts see it: set_env.sh at the root, the
# include/lib64 pair with libacl_rt.so, ascendc.cmake where they look for it
# (the VM suite 40_runtime runs soc_name on npusim: Ascend910B1)
(
	unset ASCEND_HOME_PATH
	. "$out/prefix/set_env.sh"
	[ "$ASCEND_HOME_PATH" = "$root/$out/prefix" ] || { echo "sdk: set_env.sh set ASCEND_HOME_PATH=$ASCEND_HOME_PATH"; exit 1; }
	arch=$(uname -m)-linux
	for f in include/acl/acl.h lib64/libacl_rt.so $arch/include/acl/acl.h $arch/lib64/libacl_rt.so \
		$arch/tikcpp/ascendc_kernel_cmake/ascendc.cmake; do
		[ -f "$ASCEND_HOME_PATH/$f" ] || { echo "sdk: $f missing"; exit 1; }
	done
	export ASCENDC_CMAKE_DIR="$ASCEND_HOME_PATH/$arch/tikcpp/ascendc_kernel_cmake" SOC_VERSION=Ascend910B1
	cmake -S tests/sdk/layout -B "$out/layout" -DASCEND_CANN_PACKAGE_PATH="$ASCEND_HOME_PATH" >/dev/null
	cmake --build "$out/layout" >/dev/null
	# no device here: no SoC name, said so
	if "$out/layout/soc_name" 2>"$out/soc_name.err"; then echo "sdk: soc_name answered without a device"; exit 1; fi
	grep -q 'no device' "$out/soc_name.err" || { echo "sdk: soc_name said: $(cat "$out/soc_name.err")"; exit 1; }
	# a kernel build is refused at configure time, naming the missing compiler
	if cmake -S tests/sdk/layout -B "$out/layout-kernel" -DTRY_KERNEL=ON \
		-DASCEND_CANN_PACKAGE_PATH="$ASCEND_HOME_PATH" >"$out/kernel.log" 2>&1; then
		echo "sdk: an AscendC kernel library configured"; exit 1
	fi
	grep -q 'no AscendC kernel compiler' "$out/kernel.log" || { cat "$out/kernel.log"; exit 1; }
	# npuprof's programs for the API of CANN's runtime examples (the VM
	# suite 40_runtime runs them on npusim); here, what needs no device
	cmake -S tests/sdk/rtapi -B "$out/rtapi" -DASCEND_CANN_PACKAGE_PATH="$ASCEND_HOME_PATH" >/dev/null
	cmake --build "$out/rtapi" >/dev/null
	"$out/rtapi/rt_basics" | grep -qx '\[SUCCESS\] rt_basics' || { echo "sdk: rt_basics failed"; exit 1; }
	"$out/rtapi/rt_dump" | grep -qx '\[SUCCESS\] rt_dump' || { echo "sdk: rt_dump failed"; exit 1; }
	"$out/rtapi/rt_subscribe" 2>/dev/null | grep -qx '\[SUCCESS\] rt_subscribe' || { echo "sdk: rt_subscribe failed"; exit 1; }
	# without a device a context is refused, not faked
	if "$out/rtapi/rt_context" 2>/dev/null; then echo "sdk: rt_context ran without a device"; exit 1; fi
)
echo "sdk: ok"
