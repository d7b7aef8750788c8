# npuprof's ACL runtime (libascendcl over npusim), npuwork's ACL scenarios,
# fixture replay and the installed SDK (sourced by tests/vm/run.sh).

RT_OUT=${NPUPROF_RESULTS:-/tmp}/runtime
mkdir -p "$RT_OUT"

rt_case() { load_sim devices=4 && $TB/rt_test "$@"; }

# npuwork's manifest matches what the device was sent (trs_chan:sqe events)
t_manifest() {
	load_sim devices=2 || return 1
	trace_on 0 1 || return 1
	ev=$TRACEFS/events/trs_chan/sqe/enable
	echo > $TRACEFS/trace
	echo 1 > $ev || return 1
	build/bin/npuwork --scenario train --devices 2 --steps 2 --layers 2 --seed 7 \
		--manifest "$RT_OUT/train.manifest" || { echo 0 > $ev; return 1; }
	echo 0 > $ev
	cat $TRACEFS/trace > "$RT_OUT/train.trace"
	python3 tests/vm/rt_manifest_check.py "$RT_OUT/train.manifest" "$RT_OUT/train.trace"
}

# the same seed gives the same tasks
t_seed() {
	load_sim devices=2 || return 1
	for i in 1 2; do
		build/bin/npuwork --scenario train --devices 2 --steps 2 --layers 2 --seed 42 --quiet \
			--manifest "$RT_OUT/seed$i.manifest" || return 1
	done
	# threads interleave differently: compare per-device sorted lists
	sort "$RT_OUT/seed1.manifest" > "$RT_OUT/seed1.sorted" &&
		sort "$RT_OUT/seed2.manifest" > "$RT_OUT/seed2.sorted" &&
		cmp "$RT_OUT/seed1.sorted" "$RT_OUT/seed2.sorted"
}

t_scenarios() {
	load_sim devices=4 || return 1
	build/bin/npuwork --scenario train --devices 4 --steps 2 --layers 2 &&
		build/bin/npuwork --scenario infer --devices 2 --steps 5 &&
		build/bin/npuwork --scenario stress --devices 2 --threads 8 --tasks 4000 &&
		build/bin/npuwork --scenario driver --devices 2 --steps 1 &&
		build/bin/npuwork --scenario flood --devices 2 --tasks 1000
}

# replaying a real fixture issues as many tasks per type as the db holds
t_replay() {
	db=$1
	load_sim devices=2 || return 1
	sqlite3 "$db" "SELECT s.value, COUNT(*) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType GROUP BY 1 ORDER BY 1" \
		| LC_ALL=C sort > "$RT_OUT/replay.expected" || return 1
	build/bin/npuwork --scenario replay --db "$db" --devices 2 > "$RT_OUT/replay.out" || return 1
	cat "$RT_OUT/replay.out"
	awk '/^replayed tasks by type on device 0:/ { on = 1; next } /^npuwork:/ { on = 0 } on' "$RT_OUT/replay.out" |
		LC_ALL=C sort > "$RT_OUT/replay.got"
	diff "$RT_OUT/replay.expected" "$RT_OUT/replay.got"
}

# the SDK sample (built against `make install-sdk` by tests/sdk/run.sh on
# the host) runs on npusim
t_sdk() {
	[ -x build/sdk/build/acl_sample ] || { echo "build/sdk/build/acl_sample missing: run tests/sdk/run.sh (make check does)"; return 1; }
	load_sim devices=1 || return 1
	LD_LIBRARY_PATH=build/sdk/prefix/lib64 build/sdk/build/acl_sample "$RT_OUT/sdk_prof"
}

# the SoC version CANN's sample scripts take for SOC_VERSION: device 0's,
# through libacl_rt.so of the SDK, without aclInit; none without a device
t_soc_name() {
	[ -x build/sdk/layout/soc_name ] || { echo "build/sdk/layout/soc_name missing: run tests/sdk/run.sh (make check does)"; return 1; }
	unload_sim || return 1
	if build/sdk/layout/soc_name; then echo "a SoC name without npusim"; return 1; fi
	load_sim devices=2 || return 1
	soc=$(build/sdk/layout/soc_name) || return 1
	echo "aclrtGetSocName: $soc"
	[ "$soc" = Ascend910B1 ] || return 1
	# CANN's example scripts' rules, their SoC helper answering on npusim
	TMPDIR=$RT_OUT tests/sdk/cann_env_test.sh build/sdk/prefix
}

# libascend_hal.so on npusim through CANN's calls (tests/vm/hal_test.c),
# with the logic CQ's trs_core events on: their layout is the real
# driver's (docs/ascend-reference.md §8.2), each report that enters the
# logic CQ fires "Logic Cq Enque" and each one a receive copies "Logic Cq
# Recv Match", a receive is bracketed by "Recv start" / "Recv finish"
t_hal() {
	load_sim devices=2 counter_mhz=50 || return 1
	ev=$TRACEFS/events/trs_core
	grep -q 'field:struct trs_logic_cqe_trace cq_trace;	offset:24;	size:56;' $ev/logic_cqe/format &&
		grep -q 'field:struct timespec64 timestamp;	offset:80;	size:16;' $ev/logic_cqe/format &&
		grep -q 'field:struct trs_logic_cq_recv_trace_t recv_trace;	offset:20;	size:12;' $ev/logic_cq_recv/format &&
		grep -q 'field:struct timespec64 timestamp;	offset:32;	size:16;' $ev/logic_cq_recv/format ||
		{ echo "trs_core layout differs"; cat $ev/logic_cqe/format $ev/logic_cq_recv/format; return 1; }
	[ "$(cat /proc/trs_core/ts_inst/dev0-ts0/trace_enable)" = 0 ] || return 1
	printf '1\n' > /proc/trs_core/ts_inst/dev0-ts0/trace_enable || return 1
	echo > $TRACEFS/trace
	echo 1 > $ev/enable
	$TB/hal_test 2 50000000
	rc=$?
	echo 0 > $ev/enable
	t=$TRACEFS/trace
	# 3 + 10 + 1 reports entered (3 of the 10 lost: no event), 2 + 1 + 1 +
	# 7 copied
	enq=$(grep -c 'logic_cqe: Logic Cq Enque:	devid=0;' $t)
	cp=$(grep -c 'logic_cqe: Logic Cq Recv Match:	devid=0;' $t)
	echo "trs_core: $enq enqueued, $cp copied"
	[ $rc = 0 ] && [ "$enq" = 10 ] && [ "$cp" = 10 ] &&
		grep -q 'logic_cqe: Logic Cq Recv Match:	devid=0;tsid=0;logic_cqid=[0-9]*;head=[0-9]*;tail=[0-9]*;task_id=0;stream_id=[0-9]*;sqid=[0-9]*;sq_head=1;sqe_type=4;match_flag=1;' $t &&
		grep -q 'logic_cq_recv: Recv start:	devid=0;tsid=0;logic_cqid=[0-9]*;report_cqe_num=0;timeout=50;' $t &&
		grep -q 'logic_cq_recv: Recv finish:	devid=0;tsid=0;logic_cqid=[0-9]*;report_cqe_num=5;timeout=0;' $t ||
		{ grep trs_core -m 40 $t; grep 'logic_cq' $t | head -40; return 1; }
}

run runtime.hal t_hal
run runtime.order rt_case order
run runtime.errors rt_case errors
run runtime.hccl_2 rt_case hccl 2
run runtime.hccl_4 rt_case hccl 4
run runtime.profile_markex rt_case profile "$RT_OUT/prof"
run runtime.profile_midway rt_case midway "$RT_OUT/midway"
run runtime.set_device_announced rt_case announce "$RT_OUT/announce"
run runtime.manifest t_manifest
run runtime.seed t_seed
run runtime.scenarios t_scenarios
for f in tests/fixtures/real/*.db; do
	run "runtime.replay.$(basename "$f" .db)" t_replay "$f"
done
# npuprof's programs for the API of CANN's runtime examples (tests/sdk/
# rtapi, built against the SDK by tests/sdk/run.sh) run on npusim to their
# own success line; rt_stream_event also under `npuprof record`, whose
# database holds its calls (66 aclrtMemsetAsync, one refused: 65
# MEMSET_ASYNC tasks at most, the forced destroy drops some) and the three
# aclrtDestroyStreamForce
t_rtapi() {
	d=build/sdk/rtapi
	[ -x $d/rt_context ] || { echo "$d missing: run tests/sdk/run.sh (make check does)"; return 1; }
	load_sim devices=2 || return 1
	(
		. build/sdk/prefix/set_env.sh
		for t in "rt_basics device" rt_context rt_stream_event rt_p2p rt_reduce_overflow rt_allocator rt_random rt_tdt rt_tdt_queue rt_dump rt_model_ri rt_value rt_subscribe rt_ipc_event rt_label rt_model_events; do
			set -- $t
			$d/"$@" > "$RT_OUT/$1.out" 2>&1 || { cat "$RT_OUT/$1.out"; exit 1; }
			cat "$RT_OUT/$1.out"
			grep -q "^\[SUCCESS\] $1" "$RT_OUT/$1.out" || exit 1
		done
	) || return 1
	loaded npuprof || insmod $NPUPROF_KO || return 1
	p=$RT_OUT/rtapi.prof
	rm -rf "$p" && mkdir -p "$p" || return 1
	build/bin/npuprof record --quiet -o "$p" -- $d/rt_stream_event > "$p/out" 2>&1 ||
		{ cat "$p/out"; return 1; }
	db=$(ls "$p"/PROF_*/msprof_*.db | tail -n 1)
	[ -n "$db" ] || return 1
	q() { sqlite3 "$db" "$1"; }
	n=$(q "SELECT COUNT(*) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType WHERE s.value = 'MEMSET_ASYNC'")
	echo "MEMSET_ASYNC tasks: $n"
	[ "$n" -ge 1 ] && [ "$n" -le 65 ] || return 1
	for api in aclrtMemsetAsync:66 aclrtMemset:1 aclrtDestroyStreamForce:3; do
		n=$(q "SELECT COUNT(*) FROM CANN_API c JOIN STRING_IDS s ON s.id = c.name WHERE s.value = '${api%%:*}'")
		echo "${api%%:*} CANN_API rows: $n"
		[ "$n" -eq "${api#*:}" ] || return 1
	done
	# rt_model_ri: its models' executed tasks are the TASK rows (the
	# program's header counts them), each execution an aclmdlRI* API
	# holding a model-level ModelExecute
	p=$RT_OUT/model_ri.prof
	rm -rf "$p" && mkdir -p "$p" || return 1
	build/bin/npuprof record --quiet -o "$p" -- $d/rt_model_ri > "$p/out" 2>&1 ||
		{ cat "$p/out"; return 1; }
	grep -q '^\[SUCCESS\] rt_model_ri' "$p/out" || { cat "$p/out"; return 1; }
	db=$(ls "$p"/PROF_*/msprof_*.db | tail -n 1)
	[ -n "$db" ] || return 1
	for task in MEMCPY_ASYNC:16 MEMSET_ASYNC:3 MODEL_END_GRAPH:3; do
		n=$(q "SELECT COUNT(*) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType WHERE s.value = '${task%%:*}'")
		echo "rt_model_ri ${task%%:*} tasks: $n"
		[ "$n" -eq "${task#*:}" ] || return 1
	done
	for api in aclmdlRIExecuteAsync:8 aclmdlRIExecute:2 aclmdlRICaptureBegin:5 aclmdlRICaptureEnd:4 ModelExecute:7; do
		n=$(q "SELECT COUNT(*) FROM CANN_API c JOIN STRING_IDS s ON s.id = c.name WHERE s.value = '${api%%:*}'")
		echo "rt_model_ri ${api%%:*} CANN_API rows: $n"
		[ "$n" -eq "${api#*:}" ] || { q "SELECT s.value, COUNT(*) FROM CANN_API c JOIN STRING_IDS s ON s.id = c.name GROUP BY 1"; return 1; }
	done
	# rt_label and rt_model_events: the tasks their models' executions
	# ran (a label switch branches on its index at each execution; events
	# recorded, waited for and reset in models; a task group's update),
	# counted in each program's header (a switch is its COND task)
	for t in "rt_label STREAM_LABEL_SWITCH_BY_INDEX:6 LABEL_SET:7 MEMSET_ASYNC:5 MEMCPY_ASYNC:7 MODEL_END_GRAPH:4" \
		"rt_model_events EVENT_RESET:4 MODEL_TASK_UPDATE:2 EVENT_WAIT:6 EVENT_RECORD:6"; do
		set -- $t
		prog=$1
		shift
		p=$RT_OUT/$prog.prof
		rm -rf "$p" && mkdir -p "$p" || return 1
		build/bin/npuprof record --quiet -o "$p" -- $d/$prog > "$p/out" 2>&1 ||
			{ cat "$p/out"; return 1; }
		grep -q "^\[SUCCESS\] $prog" "$p/out" || { cat "$p/out"; return 1; }
		db=$(ls "$p"/PROF_*/msprof_*.db | tail -n 1)
		[ -n "$db" ] || return 1
		for c in "$@"; do
			n=$(q "SELECT COUNT(*) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType WHERE s.value = '${c%%:*}'")
			echo "$prog ${c%%:*}: $n"
			[ "$n" -eq "${c#*:}" ] || { q "SELECT s.value, COUNT(*) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType GROUP BY 1"; return 1; }
		done
	done
	# rt_value: its stream memory tasks (the program's header counts them),
	# each call an ACL API row, the refused ones too; a wait's task lasts
	# until its value came (case 1 holds a wait 100 ms at least)
	p=$RT_OUT/value.prof
	rm -rf "$p" && mkdir -p "$p" || return 1
	build/bin/npuprof record --quiet -o "$p" -- $d/rt_value > "$p/out" 2>&1 ||
		{ cat "$p/out"; return 1; }
	grep -q '^\[SUCCESS\] rt_value' "$p/out" || { cat "$p/out"; return 1; }
	db=$(ls "$p"/PROF_*/msprof_*.db | tail -n 1)
	[ -n "$db" ] || return 1
	for task in MEM_WRITE_VALUE:5 MEM_WAIT_VALUE:6; do
		n=$(q "SELECT COUNT(*) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType WHERE s.value = '${task%%:*}'")
		echo "rt_value ${task%%:*} tasks: $n"
		[ "$n" -eq "${task#*:}" ] || { q "SELECT s.value, COUNT(*) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType GROUP BY 1"; return 1; }
	done
	n=$(q "SELECT MAX(t.endNs - t.startNs) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType WHERE s.value = 'MEM_WAIT_VALUE'")
	echo "rt_value longest MEM_WAIT_VALUE: $n ns"
	[ "$n" -ge 100000000 ] || return 1
	for api in aclrtValueWrite:8 aclrtValueWait:9; do
		n=$(q "SELECT COUNT(*) FROM CANN_API c JOIN STRING_IDS s ON s.id = c.name WHERE s.value = '${api%%:*}'")
		echo "rt_value ${api%%:*} CANN_API rows: $n"
		[ "$n" -eq "${api#*:}" ] || return 1
	done
}

# rt_ipc_event under `npuprof record`: a job of two processes (A and the B
# it runs), one PROF_* directory each; A's database has its handle's
# aclrtIpcGetEventHandle calls and its records and waits of the IPC event,
# B's its opens (a bad handle and a stale one refused too) and its own
# (two rounds on 2 devices: A 2 and 2, B 3 and 3)
t_rtapi_ipc() {
	d=build/sdk/rtapi
	[ -x $d/rt_ipc_event ] || { echo "$d missing: run tests/sdk/run.sh (make check does)"; return 1; }
	load_sim devices=2 || return 1
	loaded npuprof || insmod $NPUPROF_KO || return 1
	p=$RT_OUT/ipc_event.prof
	rm -rf "$p" && mkdir -p "$p" || return 1
	(
		. build/sdk/prefix/set_env.sh
		build/bin/npuprof record --quiet -o "$p" -- $d/rt_ipc_event > "$p/out" 2>&1
	) || { cat "$p/out"; return 1; }
	cat "$p/out"
	grep -q '^\[SUCCESS\] rt_ipc_event' "$p/out" || return 1
	a= b=
	for db in "$p"/PROF_*/msprof_*.db; do
		c() { sqlite3 "$db" "SELECT COUNT(*) FROM CANN_API c JOIN STRING_IDS s ON s.id = c.name WHERE s.value = '$1'"; }
		[ "$(c aclrtIpcGetEventHandle)" -gt 0 ] && a=$db
		[ "$(c aclrtIpcOpenEventHandle)" -gt 0 ] && b=$db
	done
	[ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ] || { ls -R "$p"; return 1; }
	for x in "$a:aclrtIpcGetEventHandle:3:aclrtIpcOpenEventHandle:1:2" \
		"$b:aclrtIpcOpenEventHandle:4:aclrtIpcGetEventHandle:0:3"; do
		IFS=: read db api n api0 n0 k <<-EOF
			$x
		EOF
		q() { sqlite3 "$db" "$1"; }
		for v in "$api:$n" "$api0:$n0"; do
			m=$(q "SELECT COUNT(*) FROM CANN_API c JOIN STRING_IDS s ON s.id = c.name WHERE s.value = '${v%%:*}'")
			echo "$(basename "$(dirname "$db")") ${v%%:*} CANN_API rows: $m"
			[ "$m" -eq "${v#*:}" ] || return 1
		done
		for task in IPC_EVENT_RECORD IPC_EVENT_WAIT; do
			m=$(q "SELECT COUNT(*) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType WHERE s.value = '$task'")
			echo "$(basename "$(dirname "$db")") $task tasks: $m"
			[ "$m" -eq "$k" ] || return 1
		done
	done
}

run runtime.sdk t_sdk
run runtime.rtapi t_rtapi
run runtime.rtapi_ipc t_rtapi_ipc
run runtime.soc_name t_soc_name
unload_sim
