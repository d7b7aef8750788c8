# A 2-process torch.distributed (gloo) job with the device mirror on
# (sourced by tests/vm/run.sh): tests/vm/torch_dist_job.py, two ranks on
# npusim devices 0 and 1, each profiling itself into its own session
# directory (aclprofInit/Start, as npuprof.torch.profile does); its
# broadcasts, all-reduces, all-gather and barrier run for real over gloo
# and, through npuprof.sim.dist, on HCCL on npusim. dist_check.py: per
# rank its RANK_DEVICE_MAP row, every collective a framework op record
# containing the launch of its COMMUNICATION_OP (and, once the export writes
# the framework tables, PYTORCH_API -> CONNECTION_IDS -> CANN_API ->
# COMMUNICATION_OP), both ranks on one communicator.

TD_OUT=${NPUPROF_RESULTS:-/tmp}/torch_dist

# td_ready DIR: npusim with 2 devices, npuprof.ko, an empty DIR, and the
# loopback interface gloo's TCP transport needs (down in the guest)
td_ready() {
	load_sim devices=2 || return 1
	loaded npuprof || insmod $NPUPROF_KO || return 1
	rm -rf "$1" && mkdir -p "$1" || return 1
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
}

# td_log FILE: a launcher's output without glog's and torchrun's banners
td_log() {
	grep -v '^W[0-9]\{8\} \|WARNING: Logging before\|^\*\|OMP_NUM_THREADS\|^WARNING:torch.distributed.run:$' "$1" |
		sed 's/WARNING/warning/'
}

t_torch_dist() {
	/usr/bin/python3 -c 'import torch.distributed' 2>/dev/null ||
		{ echo "python3-torch missing (scripts/deps.sh)"; return 1; }
	load_sim devices=2 || return 1
	loaded npuprof || insmod $NPUPROF_KO || return 1
	rm -rf "$TD_OUT" && mkdir -p "$TD_OUT" || return 1
	# gloo's TCP transport needs the loopback interface, down in the guest
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up || return 1
	init=$TD_OUT/init.store
	for r in 0 1; do
		GLOO_SOCKET_IFNAME=lo timeout 900 /usr/bin/python3 tests/vm/torch_dist_job.py "$TD_OUT" $r 2 "$init" 3 \
			> "$TD_OUT/manifest$r" 2> "$TD_OUT/stderr$r" &
		eval pid$r=$!
	done
	st=0
	wait $pid0 || st=1
	wait $pid1 || st=1
	# (glog's "WARNING: Logging before InitGoogleLogging" is no kernel warning)
	[ $st -eq 0 ] || {
		echo "a rank failed"
		sed 's/WARNING/warning/' "$TD_OUT/stderr0" "$TD_OUT/stderr1"
		return 1
	}
	grep -h '^done' "$TD_OUT/manifest0" "$TD_OUT/manifest1"
	args=""
	for r in 0 1; do
		p=$(ls -d "$TD_OUT"/rank$r/PROF_* | tail -n 1)
		[ -d "$p" ] || { echo "rank $r: no session"; return 1; }
		$TB/mirror_dump "$p"/host/data/npuprof.host.*.raw > "$TD_OUT/fwk$r" || return 1
		build/bin/npuprof export --quiet --pytorch "$p" || return 1
		db=$(find "$TD_OUT/rank$r" -name 'ascend_pytorch_profiler*.db' | head -n 1)
		[ -n "$db" ] || { echo "rank $r: no PyTorch database"; return 1; }
		args="$args $TD_OUT/manifest$r $TD_OUT/fwk$r $db"
	done
	# shellcheck disable=SC2086
	python3 tests/vm/dist_check.py $args
}

# The same job as a user writes it (launched as torchrun would: RANK,
# LOCAL_RANK, WORLD_SIZE): npuprof.torch.profile with
# tensorboard_trace_handler on each rank and nothing else (the profile sets
# up the device and collective mirrors and exports ascend_pytorch_profiler_<rank>.db).
t_torch_dist_profile() {
	d=$TD_OUT/profile
	td_ready "$d" || return 1
	for r in 0 1; do
		PATH=$PWD/build/bin:$PATH RANK=$r LOCAL_RANK=$r WORLD_SIZE=2 GLOO_SOCKET_IFNAME=lo timeout 900 \
			/usr/bin/python3 tests/vm/torch_dist_profile.py "$d" $r 2 "$d/init.store" 3 \
			> "$d/out$r" 2> "$d/err$r" &
		eval pid$r=$!
	done
	st=0
	wait $pid0 || st=1
	wait $pid1 || st=1
	cat "$d/out0" "$d/out1"
	[ $st -eq 0 ] || { sed 's/WARNING/warning/' "$d/err0" "$d/err1" | tail -n 40; return 1; }
}

# A DDP job of 2 ranks on backend="hccl" (npuprof.sim.hccl), launched by
# npuprof.torchrun and profiled as torch_npu's example does
# (_ExperimentalConfig Level1, export Db): tests/vm/torch_ddp_test.py checks
# on each rank that every collective the backend got - DDP's parameter
# check, its broadcast of the initial state, each bucket all-reduce of its
# C++ reducer (as many as DDP's own bucket counts say), the loss
# all-reduces - is a PYTORCH_API row linked to CANN_API, COMMUNICATION_OP
# and device tasks on its device; and torch_npu's analysis.db beside each
# rank's database: every all-reduce's CommAnalyzerTime row, its bandwidth
# in MB, ms and GB/s, matrix links naming both ranks, one StepTraceTime
# row per step (tests/sql/18, 19 on it).
t_torch_ddp_hccl() {
	d=$TD_OUT/ddp
	td_ready "$d" || return 1
	PATH=$PWD/build/bin:$PATH PYTHONPATH=build/python GLOO_SOCKET_IFNAME=lo timeout 900 \
		/usr/bin/python3 -m npuprof.torchrun --nproc_per_node 2 --master_addr 127.0.0.1 \
		--master_port 29511 tests/vm/torch_ddp_test.py "$d" 3 > "$d/out" 2>&1
	st=$?
	td_log "$d/out" | tail -n 40
	[ $st -eq 0 ] && [ "$(grep -c 'linked to CANN_API' "$d/out")" -eq 6 ] || return 1
	# torch_npu's analysis.db of each rank (checked by the job too) as
	# msprof-analyze's communication and step trace analyses read it
	set -- "$d"/rank*/*_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db
	[ $# = 2 ] && [ -f "$1" ] || { echo "analysis.db: $*"; return 1; }
	tests/sql/check.sh --counts "$@" || return 1
	# and each rank's database as the recipes that pass on the real 910B
	# run read it (freq_analysis's AICORE_FREQ included)
	set -- "$d"/rank*/*_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_*.db
	[ $# = 2 ] && [ -f "$1" ] || { echo "ascend_pytorch_profiler_*.db: $*"; return 1; }
	tests/sql/check.sh --counts "$@"
}

# The same job recorded through its launcher: npuprof record -o DIR --
# python3 -m npuprof.torchrun ...: one PROF_* per rank (not the
# launcher's), each with its rank on its own device and as many HCCL
# all-reduces (DDP's buckets and the loss) as the rank's backend got.
t_torch_ddp_record() {
	d=$TD_OUT/ddp_rec
	td_ready "$d" || return 1
	PYTHONPATH=build/python GLOO_SOCKET_IFNAME=lo timeout 900 build/bin/npuprof record --quiet \
		-o "$d/job" -- /usr/bin/python3 -m npuprof.torchrun --nproc_per_node 2 \
		--master_port 29512 tests/vm/torch_ddp_test.py --record "$d" 3 > "$d/out" 2>&1
	st=$?
	td_log "$d/out" | tail -n 20
	[ $st -eq 0 ] || return 1
	set -- "$d"/job/PROF_*
	echo "$# PROF directories"
	[ $# = 2 ] || return 1
	seen=""
	for p in "$@"; do
		db=$(ls "$p"/msprof_*.db) || return 1
		q() { sqlite3 "$db" "$1" </dev/null; }
		r=$(q 'SELECT rankId FROM RANK_DEVICE_MAP')
		dev=$(q 'SELECT deviceId FROM RANK_DEVICE_MAP')
		n=$(q "SELECT count(*) FROM COMMUNICATION_OP o JOIN STRING_IDS s ON s.id = o.opType
			WHERE s.value LIKE 'hcom_allReduce_%'")
		echo "$p: rank $r device $dev, $n all-reduces, $(q 'SELECT count(*) FROM TASK') tasks"
		# as many as the rank's backend got
		want=$(cat "$d/allreduces$r" 2>/dev/null)
		[ "$r" = "$dev" ] && [ "$(q 'SELECT DISTINCT deviceId FROM TASK')" = "$dev" ] &&
			[ -n "$want" ] && [ "$n" = "$want" ] || return 1
		seen="$seen $r"
	done
	[ "$(echo $seen | tr ' ' '\n' | sort -n | tr '\n' ' ')" = "0 1 " ]
}

run torch_dist.two_ranks t_torch_dist
run torch_dist.profile t_torch_dist_profile
run torch_dist.ddp_hccl t_torch_ddp_hccl
run torch_dist.ddp_record t_torch_ddp_record
unload_sim
