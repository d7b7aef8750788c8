# Replaying a recording (sourced by tests/vm/run.sh): a kernel stream
# recorded while npusim holds a stream back (the fault knob's timed stall),
# then `npuprof live`, `top` and `watch --from` run on it in the guest. Their
# outputs and the recording go to $NPUPROF_RESULTS/replay: the host test
# (tests/replay_test.sh) replays the committed copy, tests/fixtures/replay/,
# and must print the same. Then the real fixtures replayed (below).

RP=${NPUPROF_RESULTS:-/tmp}/replay
rp_session() { ls -d "$RP"/rec/PROF_* | tail -n 1; }

t_replay_record() {
	f=/proc/trs_chan/dev0-ts0/fault
	load_sim && { loaded npuprof || insmod $NPUPROF_KO; } || return 1
	rm -rf "$RP" && mkdir -p "$RP/rec" || return 1
	# stream 0 of the flood completes nothing until its tasks have been
	# held for a second, then everything: the recorded command sets the
	# stall, starts the releaser and becomes the flood (exec: the recorded
	# pid is the flood's), so a slow start of the program does not matter
	rel="i=0; while ! grep -q ' task ' $f && [ \$i -lt 300 ]; do sleep 0.05; i=\$((i + 1)); done; sleep 1; echo clear > $f"
	build/bin/npuprof record --quiet --engine kmod -o "$RP/rec" -- sh -c \
		"echo 'stall 0 0' > $f || exit 1; ($rel) & exec build/bin/npuwork --scenario flood --tasks 200 --devices 1 --batch 8 --quiet"
	rc=$?
	echo clear > $f
	[ $rc = 0 ] || return 1
	s=$(rp_session)
	ls -l "$s/kernel"
	[ -s "$s/kernel/npuprof.kernel.raw" ] && [ -s "$s/npuprof.session" ] || return 1
	# the devices came through the npusim device backend, and so did the
	# clock-sync samples in the stream (record type 5, 4 per device and sync)
	grep -qx 'device_backend=npusim' "$s/npuprof.session" || return 1
	n=$(python3 -c 'import sys, struct
d = open(sys.argv[1], "rb").read()[64:]
print(sum(1 for i in range(0, len(d) - 63, 64) if struct.unpack_from("<H", d, i)[0] == 5))' "$s/kernel/npuprof.kernel.raw")
	echo "clock-sync records: $n"
	[ "$n" -ge 8 ]
}

t_replay_tools() {
	s=$(rp_session)
	[ -d "$s" ] || return 1
	P=build/bin/npuprof
	$P live --from "$s" >"$RP/live.out" 2>"$RP/live.err" || return 1
	$P top -b --interval 0.1 --from "$s" >"$RP/top.out" 2>"$RP/top.err" || return 1
	$P watch --threshold 500 --from "$s" >"$RP/watch.out" 2>&1
	rc=$?
	# the raw stream alone replays the same (no session beside it)
	cp "$s/kernel/npuprof.kernel.raw" "$RP/alone.raw" || return 1
	$P live --from "$RP/alone.raw" >"$RP/live_alone.out" 2>/dev/null || return 1
	head -n 3 "$RP/live.out"
	tail -n 2 "$RP/top.out"
	cat "$RP/watch.out"
	[ $rc = 3 ] || { echo "watch --from exit $rc, not 3"; return 1; }
	grep -q 'HANG on device 0 stream 0: task 0 ' "$RP/watch.out" &&
		[ "$(grep -c ' submit ' "$RP/live.out")" = 200 ] &&
		# a 910B (cqe_mode=1) writes a CQE only where a task asks: the
		# flood asks on each batch's last task, 200 / 8
		[ "$(grep -c ' complete ' "$RP/live.out")" = 25 ] &&
		grep -q '^npuprof top' "$RP/top.out" &&
		cmp "$RP/live.out" "$RP/live_alone.out" &&
		# filters apply to a replay: only the odd task ids of 1-in-2 sampling,
		# nothing of another device
		[ "$($P live --from "$s" --devices 1 2>/dev/null | wc -l)" = 0 ] &&
		[ "$($P live --from "$s" --sample 2 2>/dev/null | grep -c ' submit ')" -lt 200 ]
}

# the committed recording replays in the guest exactly as on the host
t_replay_fixture() {
	F=tests/fixtures/replay
	build/bin/npuprof live --from $F/flood_stall 2>/dev/null | cmp - $F/live.out &&
		build/bin/npuprof top -b --interval 0.1 --from $F/flood_stall 2>/dev/null | cmp - $F/top.out &&
		{ build/bin/npuprof watch --threshold 500 --from $F/flood_stall 2>&1; true; } | cmp - $F/watch.out
}

run replay_record t_replay_record
run replay_tools t_replay_tools
run replay_fixture t_replay_fixture

# Replaying the real 910B fixtures (issue 19): each db replayed by
# `npuwork --scenario replay` under `npuprof record` gives back what it holds
# (tests/vm/replay_fidelity.py: task types, device time, links, compute and
# HCCL rows, streams, CANN_API, contextIds); the level2 pair replays as two
# ranks, one process and one PROF directory each.
RF=${NPUPROF_RESULTS:-/tmp}/replay_fidelity
t_fidelity() {
	f=$1
	o=$RF/$(basename "$f" .db)
	load_sim devices=2 && { loaded npuprof || insmod $NPUPROF_KO; } || return 1
	rm -rf "$o" && mkdir -p "$o" || return 1
	build/bin/npuprof record --quiet --schema 1.2.0 -o "$o" -- \
		build/bin/npuwork --scenario replay --db "$f" --devices 1 --quiet || return 1
	db=$(ls "$o"/PROF_*/msprof_*.db | head -n 1)
	[ -f "$db" ] || return 1
	python3 tests/vm/replay_fidelity.py "$f" "$db" --table
}

for f in tests/fixtures/real/*.db; do
	run "replay.fidelity.$(basename "$f" .db)" t_fidelity "$f"
done

# the level2 pair as a job of two ranks: one process per rank, each on its
# own device, one PROF directory each, ranks 0 and 1, each as faithful to
# its own fixture as a single replay
t_fidelity_ranks() {
	o=$RF/ranks
	F=tests/fixtures/real
	load_sim devices=2 && { loaded npuprof || insmod $NPUPROF_KO; } || return 1
	rm -rf "$o" && mkdir -p "$o" || return 1
	build/bin/npuprof record --quiet --schema 1.2.0 -o "$o" -- \
		build/bin/npuwork --scenario replay --devices 2 --quiet \
		--db $F/910b-level2-rank0.db,$F/910b-level2-rank1.db || return 1
	set -- "$o"/PROF_*
	echo "$# PROF directories"
	[ $# = 2 ] || return 1
	seen=""
	for d in "$@"; do
		db=$(ls "$d"/msprof_*.db) || return 1
		r=$(sqlite3 "$db" 'SELECT rankId FROM RANK_DEVICE_MAP' </dev/null)
		dev=$(sqlite3 "$db" 'SELECT DISTINCT deviceId FROM TASK' </dev/null)
		echo "$d: rank $r, device $dev"
		[ "$r" = "$dev" ] && [ -f "$F/910b-level2-rank$r.db" ] || return 1
		python3 tests/vm/replay_fidelity.py "$F/910b-level2-rank$r.db" "$db" || return 1
		seen="$seen $r"
	done
	[ "$(echo $seen | tr ' ' '\n' | sort -n | tr '\n' ' ')" = "0 1 " ]
}
run replay.fidelity.ranks t_fidelity_ranks
