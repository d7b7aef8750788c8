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
	mods && newdir || return 1
	build/bin/npuprof record --quiet --engine $engine -o "$OUTX" -- \
		build/bin/npuwork --scenario $scenario --manifest "$OUTX/manifest.tsv" --quiet "$@" || return 1
	python3 tests/vm/export_check.py "$(dbof)" "$OUTX/manifest.tsv" $MSTX
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

# the trace JSON of the demo workload (make demo's): parsed, names for
# every pid/tid, flows paired and bound, every TASK row once with its
# operator name, slices nested per thread (tests/trace_check.py); and the
# demo's shape: 2 devices, both levels of host API, collectives, msproftx
t_trace_json() {
	mods && newdir || return 1
	build/bin/npuprof record --quiet -o "$OUTX" -- \
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
MSTX=""
run export.stress_threads t_manifest kmod stress --devices 2 --threads 8 --tasks 4000
run export.infer_4dev t_manifest kmod infer --devices 2 --steps 5
run export.wrap t_wrap
run export.kernel_only t_kernel_only
run export.overflow t_overflow
run export.killed_program t_killed_program
run export.killed_tracer t_killed_tracer
run export.variants t_variants
run export.trace_json t_trace_json
cleanup_modules
