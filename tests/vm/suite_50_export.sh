# npuprof record / export end to end (sourced by tests/vm/run.sh).

OUTX=$NPUPROF_RESULTS/export
mods() { load_sim "$@" && { loaded npuprof || insmod $NPUPROF_KO; }; }
newdir() { rm -rf "$OUTX" && mkdir -p "$OUTX"; }
session() { ls -d "$OUTX"/PROF_* | tail -n 1; }
dbof() { ls "$(session)"/msprof_*.db; }
sq() { sqlite3 "$(dbof)" "$1" </dev/null; }
meta() { sq "SELECT value FROM META_DATA WHERE name = '$1'"; }

# every launched task once, with device/stream/task/type/connectionId;
# durations; all joins; msproftx stamps (4 per device and step)
t_manifest() {
	engine=$1
	scenario=$2
	shift 2
	mods $SIM_ARGS && newdir || return 1
	build/bin/npuprof record --quiet --engine $engine -o "$OUTX" -- \
		build/bin/npuwork --scenario $scenario --manifest "$OUTX/manifest.tsv" --quiet "$@" || return 1
	python3 tests/vm/export_check.py "$(dbof)" "$OUTX/manifest.tsv" $MSTX || return 1
	# the consumer queries of docs/ascend-reference.md §5 on the default export
	tests/sql/check.sh --counts "$(dbof)"
}

# a test on devices loaded with npusim parameters PARAMS:
# with_sim "PARAMS" TEST ARGS...
SIM_ARGS=
with_sim() {
	SIM_ARGS=$1
	shift
	"$@"
	wm_rc=$?
	SIM_ARGS=
	return $wm_rc
}
# in send mode MODE (0 KIO, 1 UIO_T, 2 UIO_D): with_mode MODE TEST ARGS...
with_mode() {
	m=$1
	shift
	with_sim "sq_send_mode=$m" "$@"
}

# a replayed real fixture, recorded: every consumer query holds, and its
# collective tasks (Notify Wait, SDMA, Write Value ...) join their host call
# as in the real data (only PROFILING_ENABLE/DISABLE stay unlinked)
t_replay_consumers() {
	db=$1
	mods devices=2 && newdir || return 1
	build/bin/npuprof record --quiet -o "$OUTX" -- \
		build/bin/npuwork --scenario replay --db "$db" --devices 2 --quiet || return 1
	tests/sql/check.sh --counts "$(dbof)" || return 1
	want=$(sqlite3 "$db" "SELECT count(*) FROM TASK t WHERE NOT EXISTS (SELECT 1 FROM CANN_API a
		WHERE a.connectionId = t.connectionId)" </dev/null)
	got=$(sq "SELECT count(*) FROM TASK t WHERE NOT EXISTS (SELECT 1 FROM CANN_API a
		WHERE a.connectionId = t.connectionId)")
	echo "TASK rows without a host call: $got (db: $want)"
	[ "$got" = "$want" ] || return 1
	# the collectives' small tasks hang off the db's hcom_* call
	n=$(sq "SELECT count(*) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType
		JOIN CANN_API a ON a.connectionId = t.connectionId AND a.type = 10000
		WHERE s.value IN ('Notify Wait', 'Write Value', 'SDMA')")
	w=$(sqlite3 "$db" "SELECT count(*) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType
		WHERE s.value IN ('Notify Wait', 'Write Value', 'SDMA')" </dev/null)
	echo "HCCL small tasks joined to a launch: $n of $w"
	[ "$n" -ge "$w" ]
}

# a job of 4 processes (one device each, all-reduces between processes)
# recorded through its launcher: 4 PROF directories, ranks 0-3, each with
# only its device; equal, linked COMMUNICATION_OP per rank; every task of a
# collective joined to its host call; the consumer queries hold
t_ranks() {
	mods devices=4 && newdir || return 1
	build/bin/npuprof record --quiet -o "$OUTX" -- \
		build/bin/npuwork --scenario ranks --devices 4 --steps 2 --layers 1 || return 1
	set -- "$OUTX"/PROF_*
	echo "$# PROF directories"
	[ $# = 4 ] || return 1
	seen=""
	ops=""
	groups=""
	for d in "$@"; do
		db=$(ls "$d"/msprof_*.db) || return 1
		q() { sqlite3 "$db" "$1" </dev/null; }
		r=$(q 'SELECT rankId FROM RANK_DEVICE_MAP')
		dev=$(q 'SELECT deviceId FROM RANK_DEVICE_MAP')
		echo "$d: rank $r device $dev: $(ls -d "$d"/device_* | wc -l) device dir(s)," \
			"$(q 'SELECT count(*) FROM COMMUNICATION_OP') ops, $(q 'SELECT count(*) FROM TASK') tasks"
		[ "$r" = "$dev" ] && [ "$(q 'SELECT count(*) FROM RANK_DEVICE_MAP')" = 1 ] || return 1
		[ "$(q 'SELECT id FROM NPU_INFO')" = "$dev" ] || return 1
		[ "$(ls -d "$d"/device_*)" = "$d/device_$dev" ] || return 1
		[ "$(ls "$d/device_$dev" | grep -c '^info\.json')" = 1 ] || return 1
		grep -q "\"rank_id\": $r," "$d/device_$dev/info.json.$dev" || return 1
		grep -q "\"rank_id\": $r}" "$d/host/info.json" || return 1
		[ "$(ls "$d"/host/data | wc -l)" = 1 ] || return 1
		[ "$(q 'SELECT count(DISTINCT deviceId) FROM TASK')" = 1 ] || return 1
		[ "$(q 'SELECT DISTINCT deviceId FROM TASK')" = "$dev" ] || return 1
		seen="$seen $r"
		ops="$ops $(q 'SELECT count(*) FROM COMMUNICATION_OP')"
		groups="$groups $(q 'SELECT DISTINCT s.value FROM COMMUNICATION_OP o JOIN STRING_IDS s ON s.id = o.groupName')"
		# every task of a collective carries its launch's connectionId
		[ "$(q "SELECT count(*) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType
			LEFT JOIN CANN_API a ON a.connectionId = t.connectionId AND a.type = 10000
			WHERE s.value IN ('NOTIFY_WAIT', 'NOTIFY_RECORD') AND a.connectionId IS NULL")" = 0 ] || return 1
		[ "$(q "SELECT count(*) FROM COMMUNICATION_TASK_INFO")" -gt 0 ] || return 1
		tests/sql/check.sh --counts "$db" || return 1
	done
	echo "ranks:$seen; ops per rank:$ops; groups: $(echo $groups | tr ' ' '\n' | sort -u | wc -l)"
	[ "$(echo $seen | tr ' ' '\n' | sort -n | tr '\n' ' ')" = "0 1 2 3 " ] || return 1
	[ "$(echo $ops | tr ' ' '\n' | sort -u)" = 2 ] || return 1
	[ "$(echo $groups | tr ' ' '\n' | sort -u | wc -l)" = 1 ] || return 1
	# rank 2 again in 1.2.0: rankSize and deviceId of its ops
	d=$(grep -l '"rank_id": 2}' "$OUTX"/PROF_*/host/info.json | sed 's|/host/info.json||')
	build/bin/npuprof export --quiet --schema 1.2.0 "$d" || return 1
	[ "$(sqlite3 "$d"/msprof_*.db 'SELECT DISTINCT rankSize || ":" || deviceId FROM COMMUNICATION_OP' </dev/null)" = "4:2" ]
}

t_wrap() {
	mods && newdir || return 1
	build/bin/npuprof record --quiet -o "$OUTX" -- \
		build/bin/npuwork --scenario flood --devices 1 --tasks 70000 --quiet || return 1
	[ "$(sq 'SELECT count(*), count(DISTINCT globalTaskId), max(globalTaskId) FROM TASK')" = "70000|70000|69999" ] &&
		[ "$(sq 'SELECT count(*) FROM (SELECT taskId FROM TASK GROUP BY taskId HAVING count(*) = 2)')" = 4464 ] &&
		[ "$(meta npuprof.tasks_in_flight_at_stop)" = 0 ]
}

# a program that never initialises the host library's API: tasks still
# appear, attributed to the submitting process
t_kernel_only() {
	mods && newdir || return 1
	build/bin/npuprof record --quiet -o "$OUTX" -- \
		build/bin/npuwork --scenario driver --steps 2 --quiet || return 1
	pid=$(sed -n 's/^pid=//p' "$(session)/npuprof.session")
	[ "$(sq "SELECT count(*) FROM TASK WHERE globalPid = $pid")" = 136 ] &&
		[ "$(sq 'SELECT count(*) FROM TASK')" = 136 ] &&
		[ "$(sq 'SELECT count(*) FROM TASK WHERE connectionId != -1')" = 0 ]
}

# device times from the STARS SoC log: each device's file holds whole
# records, a start and an end per task, none dropped; META_DATA says where
# the times came from (that they are the device model's times, export_check.py
# checks against npuwork's manifest in t_manifest). The same session exported
# without its STARS files has no device times at all (the kernel stream has
# none: no npusim-only tracepoint), so every task is derived from its submit
# and the CQE that retired it
t_stars_times() {
	mods $SIM_ARGS && newdir || return 1
	build/bin/npuprof record --quiet -o "$OUTX" -- \
		build/bin/npuwork --scenario train --devices 2 --steps 2 --quiet || return 1
	s=$(session)
	for d in 0 1; do
		f=$s/device_$d/data/stars_soc.data
		[ -s "$f" ] || { echo "no $f"; return 1; }
		[ $(($(stat -c %s "$f") % 64)) = 0 ] || { echo "$f: not whole records"; return 1; }
	done
	src=$(meta npuprof.task_time_source)
	[ "$src" = stars ] || { echo "task_time_source: $src"; return 1; }
	recs=$(sed -n 's/^stars_records=//p' "$s/npuprof.session")
	drops=$(sed -n 's/^stars_dropped=//p' "$s/npuprof.session")
	tasks=$(meta npuprof.stars_tasks)
	echo "STARS records $recs (dropped $drops), tasks $tasks; TASK rows $(sq 'SELECT count(*) FROM TASK')"
	[ "$drops" = 0 ] && [ "$recs" = $((2 * tasks)) ] || return 1
	# every task timed by the log: none derived, none without its submit
	[ "$(meta npuprof.derived_tasks)" = 0 ] && [ "$(meta npuprof.completions_without_submit)" = 0 ] ||
		{ echo "derived $(meta npuprof.derived_tasks), orphans $(meta npuprof.completions_without_submit)"; return 1; }
	q='SELECT deviceId, streamId, taskId, startNs, endNs FROM TASK ORDER BY 1, 2, 4, 3'
	sq "$q" > "$OUTX/stars.txt"
	mkdir "$OUTX/copy" && cp -r "$s" "$OUTX/copy/" || return 1
	c=$OUTX/copy/$(basename "$s")
	rm -f "$c"/device_*/data/stars_soc.data "$c"/msprof_*.db
	build/bin/npuprof export "$c" > /dev/null || return 1
	sqlite3 "$c"/msprof_*.db "$q" < /dev/null > "$OUTX/derived.txt"
	src=$(sqlite3 "$c"/msprof_*.db "SELECT value FROM META_DATA WHERE name = 'npuprof.task_time_source'" < /dev/null)
	[ "$src" = derived ] || { echo "task_time_source without STARS files: $src"; return 1; }
	# the same tasks, by (device, stream, task id), but those a 910B never
	# showed complete: no CQE of their own (only wr_cqe, event-record and
	# place-holder tasks write one) and none after them on their stream,
	# so in flight at the stop, and counted so
	cut -d'|' -f1-3 "$OUTX/stars.txt" | sort > "$OUTX/stars.keys"
	cut -d'|' -f1-3 "$OUTX/derived.txt" | sort > "$OUTX/derived.keys"
	inflight=$(sqlite3 "$c"/msprof_*.db "SELECT value FROM META_DATA WHERE name = 'npuprof.tasks_in_flight_at_stop'" < /dev/null)
	extra=$(comm -13 "$OUTX/stars.keys" "$OUTX/derived.keys" | wc -l)
	missing=$(comm -23 "$OUTX/stars.keys" "$OUTX/derived.keys" | wc -l)
	echo "without STARS files: $missing tasks in flight at the stop (META_DATA: $inflight), $extra not in the log"
	[ "$extra" = 0 ] && [ "$missing" = "$inflight" ] && [ "$missing" -le 4 ] ||
		{ diff "$OUTX/stars.keys" "$OUTX/derived.keys" | head; return 1; }
}

# The AI Core frequency changes (issue 29 item 3): the administrator lowers
# device 0's AI Core clock to 800 MHz (npusim's aicore_freq, as `npu-smi
# set` on a real host) while a training loop runs under `npuprof record`,
# which records AI Core metrics and so drains profiling channel 132 into
# device_0/data/lpmFreqConv.data. AICORE_FREQ: the start row at the rated
# 1800, the channel's first entry (1800), a row of 800 inside the session
# at the change, the end row of 800; the AI Core kernels that ran after
# the change took 1800/800 as long as the same kernels before it; the
# consumer queries (17_aicore_freq: freq_analysis) pass on the msprof and
# the PyTorch databases.
t_aicore_freq() {
	mods devices=1 && newdir || return 1
	fq=/proc/trs_chan/dev0-ts0/aicore_freq
	[ "$(cat $fq)" = 1800 ] || { echo "aicore_freq starts at $(cat $fq)"; return 1; }
	build/bin/npuprof record --quiet -o "$OUTX" -- \
		build/bin/npuwork --scenario train --devices 1 --steps 60 --quiet &
	pid=$!
	# the change once the device has run a good many tasks (its STARS
	# log, drained as it runs, holds them)
	i=0
	while [ $i -lt 1200 ]; do
		t=$(ls "$OUTX"/PROF_*/device_0/data/.stars_soc.data.tmp 2>/dev/null | head -n 1)
		[ -n "$t" ] && [ "$(stat -c %s "$t" 2>/dev/null || echo 0)" -gt 128000 ] && break
		sleep 0.05
		i=$((i + 1))
	done
	echo 800 > $fq
	wait $pid
	rc=$?
	echo 1800 > $fq
	[ $rc = 0 ] || { echo "npuprof record: $rc"; return 1; }
	s=$(session)
	f=$s/device_0/data/lpmFreqConv.data
	[ -s "$f" ] && [ $(($(stat -c %s "$f") % 888)) = 0 ] || { echo "$f: missing or not whole records"; return 1; }
	echo "AICORE_FREQ: $(sq "SELECT group_concat(freq, ' ') FROM (SELECT freq FROM AICORE_FREQ ORDER BY timestampNs)")"
	[ "$(sq "SELECT group_concat(freq, ' ') FROM (SELECT freq FROM AICORE_FREQ ORDER BY timestampNs)")" = "1800 1800 800 800" ] || return 1
	[ "$(sq "SELECT count(*) FROM AICORE_FREQ f, SESSION_TIME_INFO s WHERE f.freq = 800 AND
		f.timestampNs > s.startTimeNs AND f.timestampNs < s.endTimeNs")" = 1 ] ||
		{ echo "no change row inside the session"; return 1; }
	tc=$(sq "SELECT min(timestampNs) FROM AICORE_FREQ WHERE freq = 800")
	# the same kernels before and after the change, by name
	q="WITH k AS (SELECT coalesce(c.name, 0) n, t.startNs s, t.endNs e, t.endNs - t.startNs d
		FROM TASK t LEFT JOIN COMPUTE_TASK_INFO c USING (globalTaskId)
		WHERE t.taskType IN (SELECT id FROM STRING_IDS WHERE value IN
			('KERNEL_AICORE', 'KERNEL_AIVEC', 'KERNEL_MIX_AIC', 'KERNEL_MIX_AIV')))
	   SELECT n, count(*), avg(CASE WHEN e < $tc THEN d END), avg(CASE WHEN s > $tc THEN d END)
		FROM k GROUP BY n HAVING count(CASE WHEN e < $tc THEN 1 END) > 0 AND count(CASE WHEN s > $tc THEN 1 END) > 0"
	sq "$q" > "$OUTX/freq_kernels.txt"
	n=$(wc -l < "$OUTX/freq_kernels.txt")
	echo "kernels before and after the change: $n"
	[ "$n" -gt 0 ] || { echo "no kernel ran both before and after the change"; return 1; }
	# each kernel's mean x2.25 give or take npuwork's +-5% jitter, and the
	# mean of the ratios closer
	awk -F'|' '{ r = $4 / $3; sum += r; n++; if (r < 1.9 || r > 2.6) bad = 1 }
		END { printf "  mean ratio x%.3f over %d kernels\n", sum / n, n;
		      exit bad || sum / n < 2.15 || sum / n > 2.35 }' "$OUTX/freq_kernels.txt" ||
		{ cat "$OUTX/freq_kernels.txt"; echo "kernels not 1800/800 (x2.25) as long after the change"; return 1; }
	build/bin/npuprof export --pytorch "$s" > /dev/null || return 1
	tests/sql/check.sh "$(dbof)" "$s"/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler*.db || return 1
	[ "$(sqlite3 "$s"/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler*.db "SELECT group_concat(freq, ' ') FROM (SELECT freq FROM AICORE_FREQ ORDER BY timestampNs)" </dev/null)" = "1800 1800 800 800" ] ||
		{ echo "the PyTorch database's AICORE_FREQ differs"; return 1; }
}

# ring overflow: drops reported in META_DATA and by report, db consistent
t_overflow() {
	mods && newdir || return 1
	build/bin/npuprof record --quiet --ring-kb 64 -o "$OUTX" -- \
		build/bin/npuwork --scenario flood --devices 2 --tasks 200000 --batch 256 --quiet || return 1
	drops=$(meta npuprof.drops)
	echo "drops: $drops, tasks: $(sq 'SELECT count(*) FROM TASK')"
	[ "$drops" -gt 0 ] || return 1
	[ "$(sq 'SELECT count(*) - count(DISTINCT globalTaskId) FROM TASK')" = 0 ] || return 1
	[ "$(sq 'SELECT count(*) FROM TASK WHERE endNs < startNs')" = 0 ] || return 1
	build/bin/npuprof report "$(dbof)" | grep -i 'drop'
}

# the program killed mid-run: record reports its status, export succeeds
t_killed_program() {
	mods && newdir || return 1
	build/bin/npuprof record --quiet -o "$OUTX" -- \
		build/bin/npuwork --scenario train --devices 2 --steps 100000 --quiet &
	rp=$!
	# mid-run: the program has started (late on a loaded guest) and runs on
	wait_for 120 pgrep -x npuwork > /dev/null || { kill $rp; wait $rp; return 1; }
	sleep 2
	pkill -9 -x npuwork || { kill $rp; wait $rp; return 1; }
	wait $rp
	st=$?
	echo "record exit status $st"
	[ $st = 137 ] || return 1
	n=$(sq 'SELECT count(*) FROM TASK')
	echo "$n tasks exported"
	[ "$n" -gt 0 ] && [ "$(sq 'SELECT count(*) FROM CANN_API')" -gt 0 ]
}

# the tracer killed with SIGKILL: the module keeps working, the next session works
t_killed_tracer() {
	mods && newdir || return 1
	build/bin/npuprof record --quiet -o "$OUTX" --duration 60 &
	rp=$!
	wait_for 60 traced 0 || { kill $rp; wait $rp; return 1; }
	build/bin/npuwork --scenario flood --tasks 20000 --quiet || return 1
	kill -9 $rp
	wait $rp
	n=$(build/bin/npuprof stat --engine kmod -- build/bin/npuwork --scenario driver --steps 1 --quiet |
		sed -n 's/^ *\([0-9]*\)  submit .*/\1/p')
	[ "$n" = 68 ] || { echo "next session saw $n submits"; return 1; }
	# the killed session still exports what reached its raw file (exit 1
	# if its tail was cut: the input was not read completely)
	build/bin/npuprof export --quiet "$(session)"
	st=$?
	[ $st = 0 ] || { [ $st = 1 ] && [ -n "$(dbof)" ]; } || return 1
	echo "killed session: $(sq 'SELECT count(*) FROM TASK') tasks"
	rmmod npuprof && rmmod npusim
}

t_variants() {
	mods && newdir || return 1
	build/bin/npuprof record --quiet --no-export -o "$OUTX" -- \
		build/bin/npuwork --scenario train --devices 2 --steps 1 --quiet || return 1
	s=$(session)
	build/bin/npuprof export --quiet --schema 1.2.0 --pytorch --json "$s" || return 1
	py="$s/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler.db"
	[ -f "$py" ] || return 1
	[ "$(sqlite3 "$py" 'SELECT count(*) FROM TASK' </dev/null)" = "$(sq 'SELECT count(*) FROM TASK')" ] || return 1
	[ "$(meta SCHEMA_VERSION)" = 1.2.0 ] || return 1
	sq 'PRAGMA table_info(COMMUNICATION_OP)' | grep -q '|deviceId|' || return 1
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); n=len(d['traceEvents']); print(n, 'trace events'); sys.exit(n == 0)" "$s/npuprof_trace.json"
}

# stream-anchored mstx ranges (forward/backward/optimizer of the train
# scenario): msprof-analyze's msproftx summary as SQL through the sqlite3
# shell. It takes ranges (eventType 2) that are not host-only and subtracts
# the device start from the device end of the TASK row joined on
# connectionId: every one must have a MsTx row, spanning its phase's tasks.
t_mstx_ranges() {
	mods && newdir || return 1
	build/bin/npuprof record --quiet -o "$OUTX" -- \
		build/bin/npuwork --scenario train --devices 2 --steps 2 --quiet || return 1
	sum=$(sq "SELECT s.value, count(*), sum(t.endNs - t.startNs > 0), count(t.endNs - t.startNs)
		FROM MSTX_EVENTS m JOIN STRING_IDS s ON s.id = m.message
		LEFT JOIN TASK t ON t.connectionId = m.connectionId
		WHERE m.eventType = 2 AND m.connectionId != 4294967295 GROUP BY s.value ORDER BY s.value")
	echo "$sum"
	[ "$sum" = "backward|4|4|4
forward|4|4|4
optimizer|4|4|4" ] || return 1
	# each is one MsTx TASK row, its domain is default, its device span holds
	# the phase's kernels (the first forward MatMul starts inside it)
	[ "$(sq "SELECT count(*) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType
		WHERE s.value = 'MsTx' AND t.connectionId IN (SELECT connectionId FROM MSTX_EVENTS
		WHERE eventType = 2)")" = 12 ] || return 1
	[ "$(sq "SELECT count(*) FROM MSTX_EVENTS m JOIN STRING_IDS d ON d.id = m.domainId
		WHERE m.eventType = 2 AND d.value = 'default'")" = 12 ] || return 1
	[ "$(sq "SELECT count(*) FROM MSTX_EVENTS m JOIN STRING_IDS s ON s.id = m.message
		JOIN TASK r ON r.connectionId = m.connectionId
		WHERE s.value = 'forward' AND EXISTS (SELECT 1 FROM TASK k
		WHERE k.deviceId = r.deviceId AND k.streamId = r.streamId
		AND k.startNs >= r.startNs AND k.endNs <= r.endNs AND k.connectionId >= 0
		AND k.connectionId < 4000000000)")" = 4 ]
}

# CANN's mstx sample shape, built against `make install-sdk` (tests/sdk/run.sh),
# under npuprof record: each mark and range of both domains is one
# MSTX_EVENTS row joined to its MsTx TASK row; the same through libms_tools_ext.so
t_sdk_mstx() {
	for t in mstx_sample mstx_sample_ext; do
		[ -x build/sdk/build/$t ] || { echo "build/sdk/build/$t missing: run tests/sdk/run.sh"; return 1; }
		mods devices=1 && newdir || return 1
		LD_LIBRARY_PATH=build/sdk/prefix/lib64 build/bin/npuprof record --quiet -o "$OUTX" -- \
			build/sdk/build/$t || return 1
		got=$(sq "SELECT s.value, m.eventType, d.value, count(t.connectionId)
			FROM MSTX_EVENTS m JOIN STRING_IDS s ON s.id = m.message
			JOIN STRING_IDS d ON d.id = m.domainId
			LEFT JOIN TASK t ON t.connectionId = m.connectionId
			GROUP BY m.connectionId ORDER BY m.startNs")
		echo "$t: $got"
		[ "$got" = "TestMstxWithDomain|2|default|1
DoAclAdd Start|0|default|1
Create alpha aclScalar|0|DoAclAdd_Inner|1
After aclnnAdd|2|DoAclAdd_Inner|1" ] || return 1
		[ "$(sq "SELECT count(*) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType
			WHERE s.value = 'MsTx'")" = 4 ] || return 1
	done
}

# the trace JSON of the demo workload (make demo's): parsed, names for
# every pid/tid, flows paired and bound, every TASK row once with its
# operator name, slices nested per thread (tests/trace_check.py); and the
# demo's shape: 2 devices, both levels of host API (record's default
# switches plus ACL_PROF_RUNTIME_API, as make demo), collectives, msproftx
t_trace_json() {
	mods && newdir || return 1
	NPUPROF_SWITCHES=0x183 build/bin/npuprof record --quiet -o "$OUTX" -- \
		build/bin/npuwork --scenario train --devices 2 --steps 2 --quiet || return 1
	s=$(session)
	build/bin/npuprof export --quiet --json "$s" || return 1
	python3 tests/trace_check.py "$s/npuprof_trace.json" "$(dbof)" --min task=200 --min flow=200 \
		--min api=400 --min hccl=4 --min mark=4 --min range=8 --min counter=100 || return 1
	python3 - "$s/npuprof_trace.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = {e["args"]["name"] for e in d["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"}
cats = {e.get("cat") for e in d["traceEvents"] if e["ph"] == "X"}
print("processes:", sorted(names), "slice categories:", sorted(c for c in cats if c))
ok = {"npuwork", "NPU 0 (Ascend910B)", "NPU 1 (Ascend910B)"} <= names and {"acl", "node", "runtime", "task", "collective"} <= cats
sys.exit(0 if ok else 1)
PY
}

MSTX="--mstx 24"
run export.train_kmod t_manifest kmod train --devices 2 --steps 3
run export.train_bpf t_manifest bpf train --devices 2 --steps 3
# the default devices are a 910B's (send mode UIO_T: the submits fire in the
# driver's kernel thread, and the pid-filtered record above keeps every task
# with either engine); the same in the driver's fallback mode (KIO: the
# submits fire in the submitting thread), and on STARS v2 (UIO_D: no submit
# is visible at all)
run export.train_kio_kmod with_mode 0 t_manifest kmod train --devices 2 --steps 3
run export.train_kio_bpf with_mode 0 t_manifest bpf train --devices 2 --steps 3
run export.train_uio_d with_mode 2 t_manifest kmod train --devices 2 --steps 3
# all of these complete as a 910B (npusim's default): a CQE only for the
# tasks that ask for one (wr_cqe, event records, place holders), the rest
# seen through the SQ head and timed by the STARS log. The same with a CQE
# for every task (cqe_mode=0), on UIO_D too, where the host's task track
# names the streams
run export.train_every_cqe with_sim cqe_mode=0 t_manifest kmod train --devices 2 --steps 3
run export.train_every_cqe_bpf with_sim cqe_mode=0 t_manifest bpf train --devices 2 --steps 3
run export.train_every_cqe_uio_d with_sim "cqe_mode=0 sq_send_mode=2" t_manifest kmod train --devices 2 --steps 3
run export.stars_times t_stars_times
run export.aicore_freq t_aicore_freq
run export.stars_times_kio with_mode 0 t_stars_times
MSTX=""
run export.mstx_ranges t_mstx_ranges
run export.sdk_mstx t_sdk_mstx
run export.stress_threads t_manifest kmod stress --devices 2 --threads 8 --tasks 4000
run export.infer_4dev t_manifest kmod infer --devices 2 --steps 5
run export.wrap t_wrap
run export.kernel_only t_kernel_only
run export.overflow t_overflow
run export.killed_program t_killed_program
run export.killed_tracer t_killed_tracer
run export.variants t_variants
run export.trace_json t_trace_json
for f in tests/fixtures/real/*.db; do
	run "export.replay_consumers.$(basename "$f" .db)" t_replay_consumers "$f"
done
run export.ranks t_ranks
cleanup_modules
