# npuprof.torch, the framework layer (sourced by tests/vm/run.sh): real
# PyTorch (Debian's python3-torch 1.13) training and inference loops
# (tests/vm/torch_train.py) profiled with the package's torch_npu-style
# API, checked against torch's own profiler by tests/vm/torch_check.py.
# `import torch` takes 80-120 s here under TCG (torch_train.py prints it),
# so each test is one Python process running all its loops.
#   torch.package  schedule wait/warmup/active, tensorboard_trace_handler:
#                  one <worker>_<time>_ascend_pt directory per loop with
#                  PROF_*, profiler_info.json, profiler_metadata.json and
#                  the PyTorch database; raw records and database checked
#   torch.record   the same program under `npuprof record`: record's
#                  session holds the records; `npuprof export --pytorch`
# With libnpuprof_mirror.so built, the device mirror is required on and
# every mirrored task must join back to its torch op.

TORCH_OUT=${NPUPROF_RESULTS:-/tmp}/torch

# The consumer queries of tests/sql (framework-to-device join included) on
# every PyTorch database under $1.
torch_sql() {
	n=0
	for db in $(find "$1" -name 'ascend_pytorch_profiler*.db' | sort); do
		echo "-- consumer queries: $db"
		tests/sql/check.sh --counts "$db" || return 1
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || { echo "no ascend_pytorch_profiler*.db under $1"; return 1; }
}
TORCH_PY="env HOME=/tmp PYTHONPATH=build/python /usr/bin/python3"
mkdir -p "$TORCH_OUT"

torch_env() {
	if [ -f build/python/npuprof/libnpuprof_mirror.so ]; then
		export NPUPROF_TORCH_MIRROR=1 TORCH_CHECK_MIRROR=1
	else
		echo "note: no libnpuprof_mirror.so: the device mirror is off"
		unset NPUPROF_TORCH_MIRROR TORCH_CHECK_MIRROR
	fi
}

t_torch_package() {
	[ -f build/python/npuprof/_C.so ] || { echo "build/python/npuprof/_C.so missing: make"; return 1; }
	load_sim devices=1 || return 1
	loaded npuprof || insmod $NPUPROF_KO || return 1
	torch_env
	d=$TORCH_OUT/pkg
	rm -rf "$d" "$d.json" && mkdir -p "$d" || return 1
	$TORCH_PY tests/vm/torch_train.py --out "$d" --expect "$d.json" > "$d.log" 2>&1 ||
		{ grep -v '^W[0-9]' "$d.log" | tail -n 30; return 1; }
	grep -v '^W[0-9]' "$d.log" | tail -n 5
	/usr/bin/python3 tests/vm/torch_check.py "$d.json" || return 1
	torch_sql "$d"
}

t_torch_record() {
	load_sim devices=1 || return 1
	loaded npuprof || insmod $NPUPROF_KO || return 1
	torch_env
	d=$TORCH_OUT/rec
	rm -rf "$d" "$d.prof" "$d.json" && mkdir -p "$d" || return 1
	build/bin/npuprof record --quiet -o "$d.prof" -- $TORCH_PY tests/vm/torch_train.py \
		--out "$d" --expect "$d.json" > "$d.log" 2>&1 ||
		{ grep -v '^W[0-9]' "$d.log" | tail -n 30; return 1; }
	grep -v '^W[0-9]' "$d.log" | tail -n 5
	p=$(ls -d "$d.prof"/PROF_* | head -n 1)
	[ -n "$p" ] && [ "$(ls -d "$d.prof"/PROF_* | wc -l)" -eq 1 ] || { echo "PROF_* dirs: $(ls "$d.prof")"; return 1; }
	build/bin/npuprof export --pytorch --quiet "$p" || return 1
	/usr/bin/python3 tests/vm/torch_check.py "$d.json" --record "$p" || return 1
	torch_sql "$p"
}

run torch.package t_torch_package
run torch.record t_torch_record
unset NPUPROF_TORCH_MIRROR TORCH_CHECK_MIRROR
unload_sim
