# The device mirror of npuprof.torch on npusim (sourced by tests/vm/run.sh):
# tests/vm/mirror_test drives libnpuprof_mirror.so as the torch extension
# does (a step's aten ops, each in its framework op record) under
# `npuprof record`; mirror_check.py compares its manifest and the session's
# host records (tests/vm/mirror_dump) with the exported database: per op the
# aclnn CANN_API rows and launches inside its range, TASK and
# COMPUTE_TASK_INFO rows with the modelled durations, and (once the export
# writes them) its PYTORCH_API row and CONNECTION_IDS.

MR_OUT=${NPUPROF_RESULTS:-/tmp}/mirror

t_mirror_ops() {
	load_sim devices=1 || return 1
	loaded npuprof || insmod $NPUPROF_KO || return 1
	rm -rf "$MR_OUT" && mkdir -p "$MR_OUT" || return 1
	build/bin/npuprof record --quiet -o "$MR_OUT" -- $TB/mirror_test 0 \
		> "$MR_OUT/manifest" 2> "$MR_OUT/stderr" || { cat "$MR_OUT/stderr"; return 1; }
	cat "$MR_OUT/stderr"
	p=$(ls -d "$MR_OUT"/PROF_* | tail -n 1)
	$TB/mirror_dump "$p"/host/data/npuprof.host.*.raw > "$MR_OUT/fwk" || return 1
	build/bin/npuprof export --quiet --pytorch "$p" || return 1
	db=$(find "$MR_OUT" -name 'ascend_pytorch_profiler*.db' | head -n 1)
	[ -n "$db" ] || { echo "no PyTorch database under $MR_OUT"; return 1; }
	echo "db: $db"
	python3 tests/vm/mirror_check.py "$MR_OUT/manifest" "$MR_OUT/fwk" "$db"
}

run mirror.ops t_mirror_ops
unload_sim
