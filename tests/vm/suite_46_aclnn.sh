# The aclnn operator API on npusim (sourced by tests/vm/run.sh): the
# CANN-style aclnn sample (tests/sdk/aclnn, built against `make install-sdk`
# by tests/sdk/run.sh on the host) under `npuprof record`; its database has
# the operators' CANN_API rows, tasks and COMPUTE_TASK_INFO rows.

NN_OUT=${NPUPROF_RESULTS:-/tmp}/aclnn
NN_BIN=build/sdk/build-aclnn/aclnn_sample

t_nn_sample() {
	[ -x $NN_BIN ] || { echo "$NN_BIN missing: run tests/sdk/run.sh (make check does)"; return 1; }
	load_sim devices=1 || return 1
	loaded npuprof || insmod $NPUPROF_KO || return 1
	rm -rf "$NN_OUT" && mkdir -p "$NN_OUT" || return 1
	LD_LIBRARY_PATH=build/sdk/prefix/lib64 build/bin/npuprof record --quiet -o "$NN_OUT" -- \
		$NN_BIN > "$NN_OUT/sample.out" 2>&1 || { cat "$NN_OUT/sample.out"; return 1; }
	cat "$NN_OUT/sample.out"
	python3 tests/vm/aclnn_check.py "$(ls "$NN_OUT"/PROF_*/msprof_*.db | tail -n 1)"
}

run aclnn.sample_record t_nn_sample
unload_sim
