# Replaying a recording (sourced by tests/vm/run.sh): a kernel stream
# recorded while npusim holds a stream back (the fault knob's timed stall),
# then `npuprof live`, `top` and `watch --from` run on it in the guest. Their
# outputs and the recording go to $NPUPROF_RESULTS/replay: the host test
# (tests/replay_test.sh) replays the committed copy, tests/fixtures/replay/,
# and must print the same.

RP=${NPUPROF_RESULTS:-/tmp}/replay
rp_session() { ls -d "$RP"/rec/PROF_* | tail -n 1; }

t_replay_record() {
	f=/proc/trs_chan/dev0-ts0/fault
	load_sim && { loaded npuprof || insmod $NPUPROF_KO; } || return 1
	rm -rf "$RP" && mkdir -p "$RP/rec" || return 1
	# stream 0 of the flood completes nothing for 1.5 s, then everything;
	# the stall starts inside the recorded command, just before the flood
	build/bin/npuprof record --quiet --engine kmod -o "$RP/rec" -- sh -c \
		"echo 'stall 0 1500' > $f && exec build/bin/npuwork --scenario flood --tasks 200 --devices 1 --batch 8 --quiet"
	rc=$?
	echo clear > $f
	[ $rc = 0 ] || return 1
	s=$(rp_session)
	ls -l "$s/kernel"
	[ -s "$s/kernel/npuprof.kernel.raw" ] && [ -s "$s/npuprof.session" ]
}

t_replay_tools() {
	s=$(rp_session)
	[ -d "$s" ] || return 1
	P=build/bin/npuprof
	$P live --task-time --from "$s" >"$RP/live.out" 2>"$RP/live.err" || return 1
	$P top -b --interval 0.1 --from "$s" >"$RP/top.out" 2>"$RP/top.err" || return 1
	$P watch --threshold 500 --from "$s" >"$RP/watch.out" 2>&1
	rc=$?
	# the raw stream alone replays the same (no session beside it)
	cp "$s/kernel/npuprof.kernel.raw" "$RP/alone.raw" || return 1
	$P live --task-time --from "$RP/alone.raw" >"$RP/live_alone.out" 2>/dev/null || return 1
	head -n 3 "$RP/live.out"
	tail -n 2 "$RP/top.out"
	cat "$RP/watch.out"
	[ $rc = 3 ] || { echo "watch --from exit $rc, not 3"; return 1; }
	grep -q 'HANG on device 0 stream 0: task 0 ' "$RP/watch.out" &&
		[ "$(grep -c ' submit ' "$RP/live.out")" = 200 ] &&
		[ "$(grep -c ' complete ' "$RP/live.out")" = 200 ] &&
		grep -q '^npuprof top' "$RP/top.out" &&
		cmp "$RP/live.out" "$RP/live_alone.out" &&
		# filters apply to a replay: only the odd task ids of 1-in-2 sampling,
		# nothing of another device
		[ "$($P live --from "$s" --devices 1 2>/dev/null | wc -l)" = 0 ] &&
		[ "$($P live --from "$s" --sample 2 2>/dev/null | grep -c ' submit ')" -lt 200 ]
}

run replay_record t_replay_record
run replay_tools t_replay_tools
