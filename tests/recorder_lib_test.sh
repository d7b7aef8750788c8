#!/bin/sh
# tests/recorder_lib_test.sh - the libraries as an installed system meets
# them, from `make install DESTDIR=$tmp PREFIX=/usr`:
#   libprofapi.so (the in-app library: CANN's reporter ABI and the
#       recorder): its NEEDED entries are glibc's (libc, and the dynamic
#       loader that provides __tls_get_addr; libpthread where it is
#       separate) and nothing else; `nm -D --defined-only` shows exactly the
#       documented symbols below (CANN's Msprof*/prof*/ProfAcl* set of
#       profiling/*.h, the aclprof* API of acl/acl_prof.h, the mstx* API of
#       mstx/ms_tools_ext.h, plus the runtime's private record calls, the list of
#       user/recorder/libprofapi.map); its size and symbol count are printed;
#   libmsprofiler.so (CANN's aclprof* library): an ELF filter over
#       libprofapi.so (DT_FILTER) exporting exactly the aclprof*, mstx* and
#       record-call names (user/recorder/libmsprofiler.map), needing glibc only; a
#       program linked to it with NPUPROF_OUTPUT_DIR set records from its
#       first instruction (libprofapi's constructor).
#   libnpuprof_attach.so (the recorder attached to CANN's libprofapi.so):
#       glibc only, and no symbol exported at all (preloaded, it must never
#       take the place of CANN's functions).
#   libnpuprof.so (the tool library): no aclprof* symbol, only npuprof_*
#       ones, and a program linked to it with NPUPROF_OUTPUT_DIR set writes
#       nothing there.
# Run by scripts/run-unit.sh as one test; prints "recorder_lib_test: ok|FAIL".
TEST=recorder_lib_test
. "$(dirname "$0")/testlib.sh"
CC=${CC:-cc}

# The documented exports, sorted (the version script's list, spelled out).
cat >"$tmp/want" <<'LIST'
aclprofCreateConfig
aclprofCreateStamp
aclprofCreateStepInfo
aclprofCreateSubscribeConfig
aclprofDestroyConfig
aclprofDestroyStamp
aclprofDestroyStepInfo
aclprofDestroySubscribeConfig
aclprofFinalize
aclprofGetModelId
aclprofGetOpAttriValue
aclprofGetOpDescSize
aclprofGetOpDuration
aclprofGetOpEnd
aclprofGetOpFlag
aclprofGetOpName
aclprofGetOpNameLen
aclprofGetOpNum
aclprofGetOpStart
aclprofGetOpType
aclprofGetOpTypeLen
aclprofGetStepTimestamp
aclprofInit
aclprofMark
aclprofMarkEx
aclprofModelSubscribe
aclprofModelUnSubscribe
aclprofPop
aclprofPush
aclprofRangePop
aclprofRangePushEx
aclprofRangeStart
aclprofRangeStop
aclprofSetConfig
aclprofSetStampCategory
aclprofSetStampPayload
aclprofSetStampTraceMessage
aclprofStart
aclprofStop
aclprofStr2Id
mstxDomainCreateA
mstxDomainDestroy
mstxDomainMarkA
mstxDomainRangeEnd
mstxDomainRangeStartA
mstxMarkA
mstxRangeEnd
mstxRangeStartA
npuprof_str2id_hash
LIST
# libprofapi.so: the same and CANN's reporter ABI
{ cat "$tmp/want"; cat <<'LIST'; } >"$tmp/want_api"
MsprofCheckOpSwitch
MsprofFinalize
MsprofGetBatchReportMaxSize
MsprofGetHashId
MsprofGetPath
MsprofHostFreqIsEnable
MsprofId2Str
MsprofInit
MsprofNotifySetDevice
MsprofRegDataFormat
MsprofRegTypeInfo
MsprofRegisterCallback
MsprofRegisterProfileCallback
MsprofReportAdditionalInfo
MsprofReportApi
MsprofReportBatchAdditionalInfo
MsprofReportCompactInfo
MsprofReportData
MsprofReportEvent
MsprofSetConfig
MsprofSetDeviceIdByGeModelIdx
MsprofStart
MsprofStop
MsprofStr2Id
MsprofSysCycleTime
MsprofUnsetDeviceIdByGeModelIdx
ProfAclCreateStamp
ProfAclDestroyStamp
ProfAclFinalize
ProfAclInit
ProfAclMark
ProfAclMarkEx
ProfAclPop
ProfAclPush
ProfAclRangePop
ProfAclRangePushEx
ProfAclRangeStart
ProfAclRangeStop
ProfAclSetConfig
ProfAclSetStampCategory
ProfAclSetStampPayload
ProfAclSetStampTraceMessage
ProfAclStart
ProfAclStop
ProfStr2Id
profSetProfCommand
profSetStepInfo
LIST

d=$tmp/root
make -s install DESTDIR="$d" PREFIX=/usr >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "make install"; }
msp=$d/usr/lib/libmsprofiler.so
api=$d/usr/lib/libprofapi.so
npl=$d/usr/lib/libnpuprof.so
[ -f "$msp" ] || fail "libmsprofiler.so not installed"
[ -f "$api" ] || fail "libprofapi.so not installed"
readelf -d "$msp" | grep -q '(FILTER).*\[libprofapi\.so\]' || fail "libmsprofiler.so is not a filter over libprofapi.so"
[ -f "$npl" ] || fail "libnpuprof.so not installed"

# ---- libprofapi.so, libmsprofiler.so: NEEDED ---------------------------------
for lib in "$api" "$msp"; do
	name=${lib##*/}
	readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' >"$tmp/needed"
	# (the filter calls nothing: it may need nothing)
	[ -s "$tmp/needed" ] || [ "$lib" = "$msp" ] || fail "readelf -d shows no NEEDED entry in $name"
	while read -r n; do
		case $n in
		libc.so.* | libpthread.so.* | ld-linux*.so.*) ;;
		*) fail "$name needs $n (only glibc is allowed)" ;;
		esac
	done <"$tmp/needed"
	[ "$lib" = "$api" ] && cp "$tmp/needed" "$tmp/needed_api"
	# ldd agrees (resolves the whole closure, not just the direct entries).
	# Not on the filter: glibc's ld.so, run on a filter over a library with
	# TLS, asserts in init_tls (a program that loads the filter is fine:
	# below)
	[ "$lib" = "$msp" ] && continue
	LD_LIBRARY_PATH=$d/usr/lib ldd "$lib" >"$tmp/ldd" 2>&1 || { cat "$tmp/ldd"; fail "ldd $name"; }
	if grep -v -e 'linux-vdso' -e 'libc\.so\.' -e 'libpthread\.so\.' -e 'ld-linux' "$tmp/ldd" | grep -q .; then
		cat "$tmp/ldd"
		fail "ldd $name lists more than glibc"
	fi
done

# ---- libprofapi.so, libmsprofiler.so: exported symbols --------------------------
nm -D --defined-only "$api" | awk '{print $NF}' | sed 's/@.*//' | LC_ALL=C sort -u >"$tmp/have_api"
LC_ALL=C sort -u "$tmp/want_api" >"$tmp/want_api.s"
if ! cmp -s "$tmp/want_api.s" "$tmp/have_api"; then
	diff "$tmp/want_api.s" "$tmp/have_api"
	fail "libprofapi.so exports other symbols than the documented ones (< documented, > exported)"
fi
# every function CANN's profiling headers declare is among them
for f in $(sed -n 's/^MSVP_PROF_API [^(]*[ *]\([A-Za-z0-9_]*\)($/\1/p; s/^MSVP_PROF_API [^(]*[ *]\([A-Za-z0-9_]*\)(.*/\1/p; s/^int32_t \(Msprof[A-Za-z]*\)(.*/\1/p' include/profiling/*.h | sort -u); do
	grep -qx "$f" "$tmp/have_api" || fail "include/profiling declares $f but libprofapi.so does not export it"
done
nm -D --defined-only "$msp" | awk '{print $NF}' | sed 's/@.*//' | LC_ALL=C sort -u >"$tmp/have"
LC_ALL=C sort -u "$tmp/want" >"$tmp/want.s"
if ! cmp -s "$tmp/want.s" "$tmp/have"; then
	diff "$tmp/want.s" "$tmp/have"
	fail "libmsprofiler.so exports other symbols than the documented ones (< documented, > exported)"
fi
# every aclprof* the public header declares is among them
for f in $(grep -o 'aclprof[A-Za-z0-9]*(' include/acl/acl_prof.h | tr -d '(' | sort -u); do
	grep -qx "$f" "$tmp/have" || fail "acl_prof.h declares $f but libmsprofiler.so does not export it"
done
size=$(stat -c %s "$api")
nsym=$(wc -l <"$tmp/have_api")
echo "recorder_lib_test: libprofapi.so: $size bytes, $nsym exported symbols, needs $(tr '\n' ' ' <"$tmp/needed_api"); libmsprofiler.so: $(wc -l <"$tmp/have") names, a filter"

# ---- the constructor lives in libmsprofiler.so --------------------------------
cat >"$tmp/app.c" <<'C'
/* An application using the profiling API: started under `npuprof record`
 * (NPUPROF_OUTPUT_DIR set), it is recorded without calling aclprofInit. */
#include <string.h>
#include <acl/acl_prof.h>

int main(void)
{
	void *s = aclprofCreateStamp();

	if (!s || aclprofSetStampTraceMessage(s, "hello", 5) || aclprofMark(s))
		return 1;
	aclprofDestroyStamp(s);
	return 0;
}
C
$CC -std=gnu11 -Wall -o "$tmp/app" "$tmp/app.c" -I"$d/usr/include" -L"$d/usr/lib" -lmsprofiler \
	2>"$tmp/log" || { cat "$tmp/log"; fail "linking a program against the installed libmsprofiler.so"; }
mkdir "$tmp/out_app"
NPUPROF_OUTPUT_DIR=$tmp/out_app LD_LIBRARY_PATH=$d/usr/lib "$tmp/app" >"$tmp/log" 2>&1 ||
	{ cat "$tmp/log"; fail "the libmsprofiler.so program failed"; }
n=$(find "$tmp/out_app" -name 'npuprof.host.*.raw' -size +0 | wc -l)
[ "$n" -eq 1 ] || fail "a libmsprofiler.so program with NPUPROF_OUTPUT_DIR wrote $n host streams, not 1"

# ---- libnpuprof.so: no recorder -----------------------------------------------
if nm -D --defined-only "$npl" | awk '{print $NF}' | grep -q '^aclprof'; then
	fail "libnpuprof.so exports aclprof* (the recorder belongs to libmsprofiler.so only)"
fi
# and only its public, npuprof_-prefixed API (user/export/libnpuprof.map)
other=$(nm -D --defined-only "$npl" | awk '{print $NF}' | sed 's/@.*//' | grep -v '^npuprof_' | tr '\n' ' ')
[ -z "$other" ] || fail "libnpuprof.so exports unprefixed internals: $other"
cat >"$tmp/tool.c" <<'C'
/* A tool built on libnpuprof: it must never start recording itself. */
#include <stdio.h>
#include <npuprof/session.h>

int main(void)
{
	struct npuprof_session s;

	npuprof_session_init(&s);
	printf("%s\n", s.hostname);
	return 0;
}
C
$CC -std=gnu11 -Wall -o "$tmp/tool" "$tmp/tool.c" -I"$d/usr/include" -L"$d/usr/lib" -Wl,--no-as-needed -lnpuprof \
	2>"$tmp/log" || { cat "$tmp/log"; fail "linking a program against the installed libnpuprof.so"; }
readelf -d "$tmp/tool" | grep -q 'libnpuprof\.so' || fail "the tool program does not load libnpuprof.so"
mkdir "$tmp/out_tool"
NPUPROF_OUTPUT_DIR=$tmp/out_tool LD_LIBRARY_PATH=$d/usr/lib "$tmp/tool" >"$tmp/log" 2>&1 ||
	{ cat "$tmp/log"; fail "the libnpuprof.so program failed"; }
grep -q 'npuprof: not recording' "$tmp/log" && fail "libnpuprof.so tried to start a recorder: $(cat "$tmp/log")"
[ -z "$(find "$tmp/out_tool" -mindepth 1 -print -quit)" ] ||
	fail "a libnpuprof.so program with NPUPROF_OUTPUT_DIR set wrote into it: $(find "$tmp/out_tool" -mindepth 1)"

# libnpuprof_attach.so: glibc only, nothing exported
al=$d/usr/lib/libnpuprof_attach.so
[ -f "$al" ] || fail "libnpuprof_attach.so not installed"
needed=$(readelf -d "$al" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
for n in $needed; do
	case $n in
	libc.so.6 | ld-linux*.so.* | libpthread.so.0) ;;
	*) fail "libnpuprof_attach.so needs $n (glibc only)" ;;
	esac
done
exported=$(nm -D --defined-only "$al" | awk '$2 ~ /^[TDBVWRi]$/ {print $3}')
[ -z "$exported" ] || fail "libnpuprof_attach.so exports: $(echo $exported)"

echo "recorder_lib_test: ok (libprofapi.so needs glibc only, exports the $nsym documented symbols; libmsprofiler.so is a filter over it; records from the constructor; libnpuprof_attach.so exports nothing; libnpuprof.so records nothing)"
exit 0
