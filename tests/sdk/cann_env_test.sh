#!/bin/bash
# tests/sdk/cann_env_test.sh SDK: the rules by which CANN's example scripts
# (hicann/runtime example/set_sample_env.sh and example/common/
# resolve_cann_env.sh) accept a CANN install, checked on the SDK that
# `make install-sdk` laid out. Our own script from their facts:
# - a root is a CANN install if it has set_env.sh (or bin/setenv.bash) and
#   one of the pairs include/acl/acl.h + libacl_rt.so of
#   {.,<arch>}/{include|lib64}, <arch>/include|<arch>/devlib[/linux/<machine>];
# - set_env.sh is sourced by bash under `set -euo pipefail`;
# - SOC_VERSION comes from a helper built with
#   g++ -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=0 -O2 -I<include> -L<lib>
#   -lacl_rt -Wl,-rpath,<lib>, which prints aclrtGetSocName() without
#   aclInit (a device is needed to answer: the VM suite 40_runtime runs it
#   on npusim; here it must build and say there is no device);
# - ASCENDC_CMAKE_DIR is the first of <arch>/tikcpp/ascendc_kernel_cmake,
#   {aarch64,x86_64}-linux/tikcpp/ascendc_kernel_cmake,
#   tikcpp/ascendc_kernel_cmake holding ascendc.cmake.
set -euo pipefail
sdk=$1
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "cann_env: $*"; exit 1; }
machine=$(uname -m)
case $machine in x86_64 | amd64) arch=x86_64-linux ;; aarch64 | arm64) arch=aarch64-linux ;; *) arch= ;; esac

[ -f "$sdk/set_env.sh" ] || [ -f "$sdk/bin/setenv.bash" ] || fail "no set_env.sh nor bin/setenv.bash in $sdk"
inc= lib=
for pair in "include|lib64" "$arch/include|$arch/lib64" "$arch/include|$arch/devlib" \
	"$arch/include|$arch/devlib/linux/$machine"; do
	if [ -f "$sdk/${pair%%|*}/acl/acl.h" ] && [ -f "$sdk/${pair#*|}/libacl_rt.so" ]; then
		inc=$sdk/${pair%%|*} lib=$sdk/${pair#*|}
		break
	fi
done
[ -n "$inc" ] || fail "no include/acl/acl.h beside a libacl_rt.so in $sdk"
# the first pair is the generic one: what the examples' CMake files use
[ "$inc" = "$sdk/include" ] && [ "$lib" = "$sdk/lib64" ] || fail "the layout found is $inc|$lib, not include|lib64"

# sourced under the scripts' shell options, from an environment without
# the variables it extends
(
	unset LD_LIBRARY_PATH CMAKE_PREFIX_PATH ASCEND_HOME_PATH ASCEND_INSTALL_PATH
	# shellcheck source=/dev/null
	source "$sdk/set_env.sh"
	[ "$ASCEND_HOME_PATH" = "$(cd "$sdk" && pwd)" ] || fail "set_env.sh set ASCEND_HOME_PATH=$ASCEND_HOME_PATH"
	case ":$LD_LIBRARY_PATH:" in *":$(cd "$sdk" && pwd)/lib64:"*) ;; *) fail "set_env.sh: LD_LIBRARY_PATH=$LD_LIBRARY_PATH" ;; esac
) || exit 1

# the helper, compiled as the script compiles it
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g++ -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=0 -O2 -I"$inc" "$here/layout/soc_name.cpp" -L"$lib" -lacl_rt \
	"-Wl,-rpath,$lib" -o "$tmp/get_soc_version" || fail "the SoC helper does not build against $inc and $lib"
if out=$("$tmp/get_soc_version" 2>&1); then
	# a device answered (npusim loaded): a SoC name as the script takes it
	[[ $out =~ ^[A-Za-z0-9_-]+$ ]] || fail "aclrtGetSocName gave \"$out\""
else
	grep -q 'no device' <<<"$out" || fail "the SoC helper said: $out"
fi

cmake_dir=
for d in "$arch/tikcpp/ascendc_kernel_cmake" aarch64-linux/tikcpp/ascendc_kernel_cmake \
	x86_64-linux/tikcpp/ascendc_kernel_cmake tikcpp/ascendc_kernel_cmake; do
	if [ -f "$sdk/$d/ascendc.cmake" ]; then cmake_dir=$sdk/$d; break; fi
done
[ "$cmake_dir" = "$sdk/$arch/tikcpp/ascendc_kernel_cmake" ] || fail "ascendc.cmake is not in $sdk/$arch/tikcpp/ascendc_kernel_cmake"
echo "cann_env: ok"
