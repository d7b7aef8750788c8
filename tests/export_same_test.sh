#!/bin/sh
# tests/export_same_test.sh - the export's fast paths write the same
# database as the plain one, row for row: every session below is exported
# twice, once with NPUPROF_EXPORT_SYNC=1 (every row written on the
# exporting thread, the export as it was before the writer thread) and once
# as `npuprof export` runs by default, and the two files must hold the same
# schema and the same rows. Row order is not part of the output contract
# (no consumer query reads a table without ORDER BY or a join: issue 17),
# so each table is compared as a multiset: its rows as SQL literals, ordered
# by every column. Sessions: the
# committed recording (kernel + host streams of a 200-task flood), a
# synthetic session with an API, a task track and a compute op per task
# (bench_export's), the same exported as 1.2.0 with --pytorch, and a
# kernel-only copy of it. OLD_NPUPROF=BINARY compares with another build's
# `npuprof export` instead (e.g. main's, from before a change to the export:
# OLD_NPUPROF=/work/main/build/bin/npuprof tests/export_same_test.sh); then
# a globalTaskId is compared as the task it names (its TASK row's start,
# device, stream and task id), because a host-only session's tasks are
# numbered in launch order since issue 17 (in task-key order before), and
# the ids are checked to be dense from 0 on their own.
# Run by scripts/run-unit.sh as one test.
TEST=export_same_test
. "$(dirname "$0")/testlib.sh"
B=${BUILD:-build}
P=$B/bin/npuprof
[ -x $P ] || fail "no $P (make first)"
[ -x $B/tests/bench/bench_export ] || fail "no $B/tests/bench/bench_export (make first)"
command -v sqlite3 > /dev/null || fail "no sqlite3 (scripts/deps.sh)"

# The columns that hold STRING_IDS ids (kind STR in db_tables.h): compared
# as their strings under OLD_NPUPROF (ids follow the order of interning,
# which the streamed host side changed).
# (a name that some schema version gives a column of another kind in the
# same table is left out: 1.2.0's blockDim is 1.1.1's blockNum)
strcols=" $(awk '
	/#define NPUPROF_DB_COLS_/ { t = $2; sub(/NPUPROF_DB_COLS_/, "", t); sub(/\(.*/, "", t) }
	/^[[:space:]]*[CV]\(S, / {
		line = $0; sub(/^[[:space:]]*/, "", line); split(line, f, /, */)
		str = line ~ /, STR, /
		if (f[1] == "C(S") names = f[2]; else names = f[3] " " f[4]
		gsub(/"/, "", names)
		m = split(names, nm, " ")
		for (k = 1; k <= m; k++) if (nm[k] != "NULL") { if (str) s[t "." nm[k]] = 1; else o[t "." nm[k]] = 1 }
	}
	END { for (c in s) if (!(c in o)) print c }' include/npuprof/db_tables.h | tr '\n' ' ') "
[ "$strcols" != "  " ] || fail "no STR columns found in include/npuprof/db_tables.h"
# The schema (sorted: tables are created as their first rows come), then
# every table's rows ordered by all its columns.
dump() {
	sqlite3 "$1" .schema | sort
	for t in $(sqlite3 "$1" "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"); do
		# OLD_NPUPROF: a globalTaskId as its task (start:device:stream:task)
		join=
		if [ -n "${OLD_NPUPROF:-}" ] && sqlite3 "$1" "SELECT 1 FROM pragma_table_info('$t') WHERE name = 'globalTaskId'" | grep -q 1; then
			join="LEFT JOIN TASK k ON k.globalTaskId = x.globalTaskId"
		fi
		cols=
		for c in $(sqlite3 "$1" "SELECT name FROM pragma_table_info('$t') ORDER BY cid"); do
			e="x.\"$c\""
			if [ -n "$join" ] && [ "$c" = globalTaskId ]; then
				e="k.startNs || ':' || k.deviceId || ':' || k.streamId || ':' || k.taskId"
			elif [ -n "${OLD_NPUPROF:-}" ] && [ "$t" = STRING_IDS ] && [ "$c" = id ]; then
				e="0"
			elif [ -n "${OLD_NPUPROF:-}" ] && [ "$t" != STRING_IDS ] && case "$strcols" in *" $t.$c "*) true ;; *) false ;; esac; then
				e="(SELECT value FROM STRING_IDS s WHERE s.id = x.\"$c\")"
			fi
			cols="${cols:+$cols, }$e"
		done
		n=$(sqlite3 "$1" "SELECT count(*) FROM pragma_table_info('$t')")
		sqlite3 -cmd '.mode quote' "$1" "SELECT $cols FROM \"$t\" x $join ORDER BY $(seq -s, 1 "$n")" |
			sed "s/^/INSERT INTO $t VALUES(/; s/\$/);/"
	done
	if sqlite3 "$1" "SELECT 1 FROM sqlite_master WHERE name = 'TASK'" | grep -q 1; then
		sqlite3 "$1" "SELECT count(*) = coalesce(max(globalTaskId) + 1, 0) AND count(DISTINCT globalTaskId) = count(*) FROM TASK" |
			grep -qx 1 || fail "$1: TASK.globalTaskId not dense from 0"
	fi
}
# same SESSION_DIR LABEL [export options]
same() {
	d=$1
	label=$2
	shift 2
	rm -rf "$d"/msprof_*.db "$d/ASCEND_PROFILER_OUTPUT"
	NPUPROF_EXPORT_SYNC=1 ${OLD_NPUPROF:-$P} export --quiet "$@" "$d" > "$tmp/sync.out" 2>&1
	rs=$?
	db=$(ls "$d"/msprof_*.db 2>/dev/null | head -n 1)
	[ -n "$db" ] || { cat "$tmp/sync.out"; fail "$label: the plain export wrote no database"; }
	dump "$db" > "$tmp/sync.sql"
	[ ! -f "$d/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler.db" ] ||
		dump "$d/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler.db" > "$tmp/sync-pt.sql"
	rm -rf "$d"/msprof_*.db "$d/ASCEND_PROFILER_OUTPUT"
	$P export --quiet "$@" "$d" > "$tmp/fast.out" 2>&1
	rf=$?
	[ $rs = $rf ] || fail "$label: exit status $rf, the plain export's $rs"
	db=$(ls "$d"/msprof_*.db 2>/dev/null | head -n 1)
	[ -n "$db" ] || { cat "$tmp/fast.out"; fail "$label: the default export wrote no database"; }
	dump "$db" > "$tmp/fast.sql"
	cmp -s "$tmp/sync.sql" "$tmp/fast.sql" ||
		{ diff "$tmp/sync.sql" "$tmp/fast.sql" | head; fail "$label: databases differ"; }
	if [ -f "$tmp/sync-pt.sql" ]; then
		dump "$d/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler.db" > "$tmp/fast-pt.sql"
		cmp -s "$tmp/sync-pt.sql" "$tmp/fast-pt.sql" ||
			{ diff "$tmp/sync-pt.sql" "$tmp/fast-pt.sql" | head; fail "$label: PyTorch databases differ"; }
		rm -f "$tmp/sync-pt.sql"
	fi
	rows=$(grep -c '^INSERT INTO' "$tmp/fast.sql")
	note "$label: $rows rows identical"
	n=$rows
}

cp -r tests/fixtures/replay/flood_stall "$tmp/replay"
same "$tmp/replay" "recording"
[ "$n" -gt 300 ] || fail "recording: only $n rows"

out=$(BENCH_EXPORT_TASKS=30000 BENCH_EXPORT_KEEP=1 TMPDIR="$tmp" $B/tests/bench/bench_export 2>&1)
s=$(printf '%s\n' "$out" | sed -n 's/^session kept: //p')
[ -n "$s" ] && [ -d "$s" ] || { printf '%s\n' "$out"; fail "no synthetic session"; }
same "$s" "synthetic"
[ "$n" -gt 90000 ] || fail "synthetic: only $n rows (want tasks, API and compute rows)"
same "$s" "synthetic 1.2.0 --pytorch" --schema 1.2.0 --pytorch
[ "$n" -gt 90000 ] || fail "synthetic 1.2.0: only $n rows"
# host-only: the same session as the host engine records it (no kernel
# stream; task rows from the host task tracks, in launch order)
h="$tmp/hostonly"
mkdir -p "$h"
cp -r "$s/host" "$s/device_0" "$h/" 2>/dev/null || cp -r "$s/host" "$h/"
# (edited by hand: without the crc line, as a version 1 file, session.h)
sed -e 's/^engine=.*/engine=host/' -e 's/^version=.*/version=1/' -e '/^crc=/d' \
	"$s/npuprof.session" > "$h/npuprof.session"
same "$h" "host-only"
[ "$n" -gt 90000 ] || fail "host-only: only $n rows"
rm -rf "$s/host"
same "$s" "kernel-only"
[ "$n" -gt 30000 ] || fail "kernel-only: only $n rows"
rm -rf "$(dirname "$s")"
note ok
