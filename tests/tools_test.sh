#!/bin/sh
# tests/tools_test.sh - the npuprof command line on bad input (issue 18):
# numeric options that do not fit are refused with the option and its range
# and exit 2; a record that captured nothing leaves no PROF_* directory; an
# export from damaged or unreadable raw files exits 1, names the file and
# offsets, and keeps a more complete database unless --force; report says
# why it cannot read a file. Works on a copy of the committed recording
# tests/fixtures/replay/flood_stall. Run by scripts/run-unit.sh as one test,
# also from the sanitizer build (BUILD=build/asan).
TEST=tools_test
. "$(dirname "$0")/testlib.sh"
B=${BUILD:-build}
P=$B/bin/npuprof
G=$B/tests/bin/dbgen
[ -x $P ] || fail "no $P (make first)"

# ---- numeric options: refused, never wrapped -------------------------------
refuse() { # refuse "expected message" command...
	want=$1
	shift
	"$@" >"$tmp/out" 2>&1
	rc=$?
	[ $rc = 2 ] || { cat "$tmp/out"; fail "$* exits $rc, not 2"; }
	grep -qF -- "$want" "$tmp/out" || { cat "$tmp/out"; fail "$*: no '$want'"; }
}
mkdir "$tmp/rec"
for a in "--sample -1|--sample: '-1' is not a whole number from 1 to 4294967295" \
	"--sample 99999999999|--sample: '99999999999' is out of range (1 to 4294967295)" \
	"--sample 4294967297|--sample: '4294967297' is out of range" \
	"--pid 4294967297|--pid: '4294967297' is out of range (1 to 4194304)" \
	"--devices 4294967296|--devices: '4294967296' is out of range (0 to 31)" \
	"--devices 0,|--devices: the list ends with a comma" \
	"--duration nan|--duration: 'nan' is not a number" \
	"--rate-limit 4294967296|--rate-limit: '4294967296' is out of range" \
	"--ring-kb 18014398509481984|--ring-kb: '18014398509481984' is out of range (4 to 1048576)" \
	"--window 5/0|--window PERIOD_MS: '0' is out of range" \
	"--devices -1|--devices: '-1' is not an id or a range A-B of ids from 0 to 31" \
	"--devices 2-|--devices: '2-' is not an id or a range A-B of ids from 0 to 31" \
	"--duration 0x10|--duration: '0x10' is not a number"; do
	opts=${a%%|*}
	refuse "npuprof record: ${a#*|}" $P record -o "$tmp/rec" --no-export $opts -- true
done
[ -z "$(ls "$tmp/rec")" ] || fail "a refused option left $(ls "$tmp/rec")"
# integer-ms options take whole ms: 0.5 is refused, never truncated to 0
# (issue 31 #10), and hex is refused by the real-valued options too
refuse "npuprof watch: --threshold: '0.5' is not a whole number from 1 to 86400000" $P watch --threshold 0.5 -- true
refuse "npuprof watch: --threshold: '0' is out of range (1 to 86400000)" $P watch --threshold 0 -- true
refuse "npuprof flight: --hang-ms: '0.5' is not a whole number from 0 to 86400000" $P flight --hang-ms 0.5 -o "$tmp/rec"
refuse "npuprof flight: --seconds: '0x10' is not a number" $P flight --seconds 0x10 -o "$tmp/rec"
refuse "npuprof record: -o: the path is empty" $P record -o '' -- true
refuse "npuprof flight: -o: the path is empty" $P flight -o ''
refuse "npuprof export: -o: the path is empty" $P export --json x.db -o ''

refuse "npuprof top: -d: '0.01' is out of range (0.1 to 86400)" $P top -b -d 0.01
refuse "npuprof top: -n: '-1' is not a whole number" $P top -b -n -1
refuse "npuprof report: --top: '0' is out of range (1 to 1000000)" $P report --top 0 x.db
refuse "npuprof dump: --pid: 'x' is not a whole number" $P dump --pid x
refuse "dbgen: --tasks: '99999999999999' is out of range (1 to 100000000)" $G --tasks 99999999999999 -o "$tmp/x.db"

# ---- a record that captured nothing leaves nothing ------------------------
if ! [ -e /dev/npuprof ] && ! grep -qs trs_chan /sys/kernel/tracing/available_events; then
	$P record -o "$tmp/rec" --quiet -- true >"$tmp/out" 2>&1 && fail "record without a driver exits 0"
	grep -q "nothing was captured" "$tmp/out" || { cat "$tmp/out"; fail "record: no 'nothing was captured'"; }
	[ -z "$(ls "$tmp/rec")" ] || fail "a failed record left $(ls "$tmp/rec")"
fi

# ---- export: damaged input costs the damaged records, never the database --
S=$tmp/s
cp -r tests/fixtures/replay/flood_stall "$S"
RAW=$S/kernel/npuprof.kernel.raw
$P export --quiet --json "$S" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "export of the recording fails"; }
good=$(ls "$S"/msprof_*.db)
[ -s "$S/npuprof_trace.json" ] || fail "no trace JSON"
# one corrupt record (type 0) at offset 3264: skipped and named, the rest kept
printf '\000\000\000\000' | dd of="$RAW" bs=1 seek=3264 conv=notrunc 2>/dev/null
sleep 1
$P export "$S" >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] || { cat "$tmp/out"; fail "export of a damaged stream exits $rc, not 1"; }
grep -q "npuprof.kernel.raw: 1 corrupt record of 64 bytes skipped at offset 3264" "$tmp/out" ||
	{ cat "$tmp/out"; fail "the corrupt record is not named by file and offset"; }
# the database of the undamaged recording is kept: damaged input never
# replaces it, even with as many rows (issue 31 #1), and the message says why
grep -q "was exported from undamaged input and this export's input is damaged: kept" "$tmp/out" ||
	{ cat "$tmp/out"; fail "no 'exported from undamaged input ... kept'"; }
[ "$(ls "$S"/msprof_*.db)" = "$good" ] || fail "the good database was replaced: $(ls "$S")"
# garbage: the complete database is kept, nothing is written
head -c 8192 /dev/urandom >"$RAW"
cp "$S/npuprof_trace.json" "$tmp/json.before"
$P export --json "$S" >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] || { cat "$tmp/out"; fail "export of a garbage stream exits $rc, not 1"; }
grep -q "kept, nothing written" "$tmp/out" && grep -q -- "--force" "$tmp/out" ||
	{ cat "$tmp/out"; fail "no 'kept, nothing written ... --force'"; }
[ "$(ls "$S"/msprof_*.db | wc -l)" = 1 ] || fail "not one database: $(ls "$S")"
cmp -s "$S/npuprof_trace.json" "$tmp/json.before" || fail "the trace JSON was replaced"
[ -z "$(find "$S" -name '.npuprof-tmp-*')" ] || fail "temporaries left: $(find "$S" -name '.npuprof-tmp-*')"
# asked for: replaced, still exit 1 (the input is damaged)
$P export --force "$S" >"$tmp/out" 2>&1
[ $? = 1 ] || { cat "$tmp/out"; fail "export --force of garbage does not exit 1"; }
grep -q " 0 tasks" "$tmp/out" || { cat "$tmp/out"; fail "export --force: not 0 tasks"; }
new=$(ls "$S"/msprof_*.db)
[ "$(sqlite3 "$new" "SELECT count(*) FROM sqlite_master WHERE name = 'TASK'")" = 0 ] ||
	fail "export --force did not replace $good"

# a damaged npuprof.session: refused by file, line and why, exit 1, the good
# database kept (issue 31 #1: it was replaced by one ending before its start)
D=$tmp/sess
cp -r tests/fixtures/replay/flood_stall "$D"
$P export --quiet "$D" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "export of a copy of the recording"; }
dgood=$(ls "$D"/msprof_*.db)
truncate -s 408 "$D/npuprof.session"
sleep 1
$P export "$D" >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -qF "$D/npuprof.session: damaged: line 7: truncated (the last line has no end); nothing exported, $D unchanged" "$tmp/out" &&
	[ "$(ls "$D"/msprof_*.db)" = "$dgood" ] ||
	{ cat "$tmp/out"; ls "$D"; fail "export of a truncated npuprof.session: exit $rc"; }

# a FIFO as the kernel stream is refused at once, as the host stream's is
# (issue 31 #4: open() waited for a writer forever)
F=$tmp/fifo
cp -r tests/fixtures/replay/flood_stall "$F"
rm "$F/kernel/npuprof.kernel.raw"
mkfifo "$F/kernel/npuprof.kernel.raw"
timeout 20 $P export "$F" >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] || { cat "$tmp/out"; fail "export with a FIFO kernel stream exits $rc, not 1 (124: hung)"; }
grep -q "npuprof.kernel.raw: cannot open: not a regular file" "$tmp/out" ||
	{ cat "$tmp/out"; fail "the FIFO kernel stream is not refused as not a regular file"; }
timeout 20 $P live --from "$F" >"$tmp/out" 2>&1
rc=$?
[ $rc != 0 ] && [ $rc != 124 ] && grep -q "not a regular file" "$tmp/out" ||
	{ cat "$tmp/out"; fail "live --from a FIFO kernel stream: exit $rc"; }

# export --json onto a full disk names the output and the errno, and keeps
# the previous file (issue 31 #5: it said only "<input>.db: writing the
# trace failed"): a 200 KB tmpfs in a user+mount namespace (skipped, and
# said, where none can be made: a file size limit would stop SQLite's
# temporary files first)
if unshare -rm true 2>/dev/null; then
	$G --tasks 20000 -o "$tmp/src.db" >/dev/null 2>&1 || fail "dbgen for the full-disk case"
	mkdir "$tmp/full"
	unshare -rm sh -c 'mount -t tmpfs -o size=200k tmpfs "$1" && echo old >"$1/t.json" &&
		"$2" export --json "$3" -o "$1/t.json"; echo "rc=$?"; cat "$1/t.json"' \
		sh "$tmp/full" "$P" "$tmp/src.db" >"$tmp/out" 2>&1
	want="$tmp/full/t.json: writing the trace failed: No space left on device; the previous file, if any, is kept"
	grep -qF "$want" "$tmp/out" && grep -qx "rc=1" "$tmp/out" && grep -qx "old" "$tmp/out" ||
		{ cat "$tmp/out"; fail "export --json onto a full disk: not '$want', exit 1, old file kept"; }
else
	echo "tools_test: note: no user+mount namespace here: the full-disk case of export --json is skipped"
fi

# watch --flight -o DIR without --pidfile: its pid file in DIR, said; the
# hang's dump is written (issue 31 #8: "cannot write pid file: : write failed")
timeout 60 $P watch --flight -o "$tmp/wf" --threshold 500 --from tests/fixtures/replay/flood_stall \
	>"$tmp/out" 2>&1
rc=$?
[ $rc = 3 ] && ! grep -q "cannot write pid file" "$tmp/out" &&
	grep -qF "pid file $tmp/wf/npuprof-watch.pid (npuprof dump --pidfile" "$tmp/out" &&
	ls -d "$tmp"/wf/PROF_* >/dev/null 2>&1 ||
	{ cat "$tmp/out"; ls "$tmp/wf"; fail "watch --flight -o DIR without --pidfile: exit $rc"; }

# dump with a stale pid file (issue 31 #9: SIGUSR1 went to whatever process
# had that pid by then, and killed it): refused, the process lives; a held
# pid file naming a process that is no recorder, and --pid of one, too
sleep 60 &
victim=$!
echo $victim >"$tmp/stale.pid"
$P dump --pidfile "$tmp/stale.pid" --timeout 1 >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -qF "$tmp/stale.pid is stale: no flight recorder holds it (pid $victim not signalled" "$tmp/out" ||
	{ cat "$tmp/out"; fail "dump with a stale pid file: exit $rc"; }
holder=
if command -v flock >/dev/null; then
	flock "$tmp/stale.pid" sleep 5 &
	holder=$!
	sleep 0.3
	$P dump --pidfile "$tmp/stale.pid" --timeout 1 >"$tmp/out" 2>&1
	rc=$?
	[ $rc = 1 ] && grep -qF "names pid $victim, which is not an npuprof flight recorder (it is 'sleep 60')" "$tmp/out" ||
		{ cat "$tmp/out"; fail "dump with a held pid file of another process: exit $rc"; }
fi
$P dump --pid $victim >"$tmp/out" 2>&1
rc=$?
[ $rc = 1 ] && grep -qF "pid $victim is not an npuprof flight recorder" "$tmp/out" ||
	{ cat "$tmp/out"; fail "dump --pid of another process: exit $rc"; }
kill -0 $victim 2>/dev/null || fail "dump signalled (and killed) pid $victim"
kill $victim $holder 2>/dev/null
wait $victim $holder 2>/dev/null

# ---- an interrupted writer leaves no temporary ----------------------------
mkdir "$tmp/big"
$G --tasks 5000000 -o "$tmp/big/msprof_20260101000000.db" >/dev/null 2>&1 &
g=$!
sleep 1
kill -INT $g
wait $g
rc=$?
[ $rc = 130 ] || fail "dbgen interrupted exits $rc, not 130"
[ -z "$(ls -A "$tmp/big")" ] || fail "an interrupted dbgen left $(ls -A "$tmp/big")"

# ---- a parent of sessions (a job's ranks): exported in parallel, shown in order
J="$tmp/job"
mkdir "$J"
for k in 1 2 3; do cp -r tests/fixtures/replay/flood_stall "$J/PROF_00000${k}_rank"; done
truncate -s 100 "$J/PROF_000002_rank/npuprof.session" # the middle rank is damaged
refuse "npuprof export: --jobs: '0' is out of range (1 to 1024)" $P export --jobs 0 "$J"
$P export --jobs 3 "$J" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 1 ] || { cat "$tmp/out" "$tmp/err"; fail "export of a job with a damaged rank exits $rc, not 1"; }
for k in 1 3; do
	ls "$J/PROF_00000${k}_rank"/msprof_*.db >/dev/null 2>&1 || { cat "$tmp/out" "$tmp/err"; fail "rank $k not exported beside the damaged one"; }
done
! ls "$J/PROF_000002_rank"/msprof_*.db >/dev/null 2>&1 || fail "the damaged rank was exported"
grep -q 'PROF_000002_rank/npuprof.session' "$tmp/err" || { cat "$tmp/err"; fail "the damaged rank's error is not shown"; }
# the children's messages in session order, as a sequential run's
grep -o 'PROF_00000[13]_rank/msprof' "$tmp/out" | tr '\n' ' ' | grep -qx 'PROF_000001_rank/msprof PROF_000003_rank/msprof ' ||
	{ cat "$tmp/out"; fail "the sessions' summaries are not in session order"; }
grep -q 'npuprof export: 3 sessions in .*, 1 failed' "$tmp/err" || { cat "$tmp/err"; fail "no '3 sessions, 1 failed'"; }
# the same with --jobs 1 (sequential) gives the same databases' rows
$P export --jobs 1 --force "$J" >/dev/null 2>&1
[ "$(sqlite3 "$J"/PROF_000003_rank/msprof_*.db 'SELECT count(*) FROM TASK')" = "$(sqlite3 "$J"/PROF_000001_rank/msprof_*.db 'SELECT count(*) FROM TASK')" ] ||
	fail "ranks 1 and 3 (the same recording) differ in TASK rows"

# ---- report: why a file cannot be read ------------------------------------
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 600 "$new"
	chmod 755 "$tmp"
	setpriv --reuid=65534 --regid=65534 --clear-groups $P report "$new" >"$tmp/out" 2>&1
	grep -q "Permission denied" "$tmp/out" || { cat "$tmp/out"; fail "report of an unreadable file: no 'Permission denied'"; }
fi
note ok
