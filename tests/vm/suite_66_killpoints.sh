# Crash consistency of a session (sourced by tests/vm/run.sh): SIGKILL of
# `npuprof record`, of the profiled program, of the flight recorder and of
# `npuprof export` itself at pseudo-random moments (a fixed seed, so a
# failure repeats), then `npuprof export`: every session either exports
# (exit 0) or exports what it could and says what is missing (exit 1 with a
# message naming it); none crashes or hangs the export, and a database an
# earlier export wrote is never lost or damaged by a killed one.
# KP_POINTS kill points per target: 3 here, 50 on the debug kernel
# (`make check-debug`); KP_SEED picks the moments.

KP=$NPUPROF_RESULTS/killpoints
KP_P=build/bin/npuprof
KP_W=build/bin/npuwork
if [ "$SLOW" -gt 1 ]; then KP_POINTS=${KP_POINTS:-50}; else KP_POINTS=${KP_POINTS:-3}; fi
KP_SEED=${KP_SEED:-66}

kp_up() { load_sim && { loaded npuprof || insmod $NPUPROF_KO; } && rm -rf "$KP" && mkdir -p "$KP"; }
# kp_delay I MAX_MS: the I-th kill moment in [0, MAX_MS) ms, as seconds
kp_delay() { awk -v s="$KP_SEED" -v i="$1" -v m="$2" 'BEGIN { srand(s * 1000 + i); printf "%.3f", int(rand() * m) / 1000 }'; }
kp_q() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$1" "$2"; }
# kp_intact DB: SQLite finds nothing wrong; prints its TASK count (0 for a
# session killed before its first task: such a database has no TASK table)
kp_intact() {
	[ "$(kp_q "$1" 'PRAGMA integrity_check')" = ok ] || { echo "$1: damaged" >&2; return 1; }
	if [ "$(kp_q "$1" "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'TASK'")" = 1 ]; then
		kp_q "$1" 'SELECT count(*) FROM TASK'
	else
		echo 0
	fi
}
kp_stop_programs() { pkill -9 -x npuwork 2>/dev/null; wait_for 30 sh -c '! pgrep -x npuwork' > /dev/null; }

# kp_export DIR: export a session that may have been cut short. Exit 0, or
# 1 with a message on stderr; never a crash (> 1), never a hang.
kp_export() {
	timeout -s KILL 300 $KP_P export --quiet "$1" 2> "$KP/export.err"
	ke_st=$?
	case $ke_st in
	0) ;;
	1) [ -s "$KP/export.err" ] || { echo "$1: export failed without saying why"; return 1; }
	   sed 's/^/    /' "$KP/export.err" | head -3 ;;
	*) echo "$1: export exit status $ke_st"; cat "$KP/export.err"; return 1 ;;
	esac
}

# kp_export_killed DIR I: a database exported from DIR survives a second
# export killed at a random moment: still there, intact, as many tasks
kp_export_killed() {
	ek_db=$(ls "$1"/msprof_*.db 2>/dev/null | head -1)
	[ -n "$ek_db" ] || return 0
	ek_n=$(kp_intact "$ek_db") || return 1
	$KP_P export --quiet --force --json "$1" 2> /dev/null &
	ek_p=$!
	sleep "$(kp_delay "$2" 1500)"
	kill -9 $ek_p 2> /dev/null
	wait $ek_p 2> /dev/null
	ek_db2=$(ls "$1"/msprof_*.db 2>/dev/null | head -1)
	[ -n "$ek_db2" ] || { echo "$1: a killed export lost the database"; return 1; }
	ek_n2=$(kp_intact "$ek_db2") || return 1
	[ "$ek_n2" = "$ek_n" ] || { echo "$1: $ek_n tasks before a killed export, $ek_n2 after"; return 1; }
}

# kp_record DIR: `npuprof record` of a long training run into DIR, in the
# background (its pid in rp), returning once the program runs
kp_record() {
	mkdir -p "$1"
	$KP_P record --quiet -o "$1" -- $KP_W --scenario train --devices 2 --steps 100000 --quiet &
	rp=$!
	wait_for 120 pgrep -x npuwork > /dev/null
}

# the tracer killed: record gets SIGKILL at a random moment of a run
t_kill_record() {
	kp_up || return 1
	kr_bad=0 kr_db=0 kr_none=0
	i=0
	while [ $i -lt "$KP_POINTS" ]; do
		d=$KP/r$i
		kp_record "$d"
		sleep "$(kp_delay $i 3000)"
		kill -9 $rp
		wait $rp 2> /dev/null
		kp_stop_programs
		for s in "$d"/PROF_*; do
			[ -d "$s" ] || { kr_none=$((kr_none + 1)); continue; }
			kp_export "$s" || { kr_bad=$((kr_bad + 1)); continue; }
			ls "$s"/msprof_*.db > /dev/null 2>&1 && kr_db=$((kr_db + 1))
			kp_export_killed "$s" $i || kr_bad=$((kr_bad + 1))
		done
		i=$((i + 1))
	done
	echo "record killed at $KP_POINTS points: $kr_db databases, $kr_none before a session existed, $kr_bad bad"
	[ $kr_bad = 0 ] && [ $kr_db -gt 0 ]
}

# the program killed: record reports its status and the session exports
t_kill_program() {
	kp_up || return 1
	kp_bad=0
	i=0
	while [ $i -lt "$KP_POINTS" ]; do
		d=$KP/p$i
		kp_record "$d"
		sleep "$(kp_delay $((i + 1000)) 3000)"
		pkill -9 -x npuwork
		wait $rp
		st=$?
		[ $st = 137 ] || { echo "point $i: record exit status $st, not the program's 137"; kp_bad=$((kp_bad + 1)); }
		s=$(ls -d "$d"/PROF_* | head -1)
		db=$(ls "$s"/msprof_*.db 2> /dev/null | head -1)
		if [ -z "$db" ]; then
			echo "point $i: no database"
			kp_bad=$((kp_bad + 1))
		elif ! kp_intact "$db" > /dev/null || ! kp_export "$s"; then
			kp_bad=$((kp_bad + 1))
		fi
		i=$((i + 1))
	done
	echo "program killed at $KP_POINTS points: $kp_bad bad"
	[ $kp_bad = 0 ]
}

# the flight recorder killed: every dump it finished exports (one whole dump
# per point before the kill), none it was writing poses as finished
t_kill_flight() {
	kp_up || return 1
	kf_bad=0 kf_dumps=0
	$KP_W --scenario train --devices 2 --steps 1000000 --quiet &
	w=$!
	i=0
	while [ $i -lt "$KP_POINTS" ]; do
		d=$KP/f$i
		mkdir -p "$d"
		$KP_P flight --engine kmod -o "$d" --seconds 2 --size 16 --hang-ms 0 \
			--pidfile "$KP/f.pid" 2> "$KP/f.err" &
		f=$!
		wait_for 60 traced 0
		sleep 1
		# one whole dump (dump waits for it), then a second on the way and
		# the kill at a random moment during or after it
		$KP_P dump --pidfile "$KP/f.pid" > "$KP/f.first" 2>&1 ||
			{ echo "point $i: the first dump failed: $(cat "$KP/f.first")"; kf_bad=$((kf_bad + 1)); }
		$KP_P dump --pidfile "$KP/f.pid" > "$KP/f.dump" 2>&1 &
		dp=$!
		sleep "$(kp_delay $((i + 2000)) 1500)"
		kill -9 $f
		wait $f 2> /dev/null
		wait $dp 2> /dev/null
		for s in "$d"/PROF_*; do
			[ -d "$s" ] || continue
			kf_dumps=$((kf_dumps + 1))
			# a dump in its final place is whole (it is renamed there last)
			[ -f "$s/npuprof.session" ] && [ -f "$s/host/end_info" ] ||
				{ echo "$s: an unfinished dump poses as finished"; kf_bad=$((kf_bad + 1)); continue; }
			kp_export "$s" || kf_bad=$((kf_bad + 1))
		done
		i=$((i + 1))
	done
	kill -9 $w 2> /dev/null
	wait $w 2> /dev/null
	echo "flight recorder killed at $KP_POINTS points: $kf_dumps dumps, $kf_bad bad"
	[ $kf_bad = 0 ] && [ $kf_dumps -ge "$KP_POINTS" ]
}

run killpoints.record t_kill_record
run killpoints.program t_kill_program
run killpoints.flight t_kill_flight
