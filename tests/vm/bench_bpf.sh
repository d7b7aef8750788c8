# BPF engine configurations for tests/vm/bench.sh (sourced by it):
#   bpf      the BPF programs with the minimal reader tests/vm/drain.c,
#            next to "kmod" (npuprof.ko with the same reader);
#   bpfstat  the BPF engine with `npuprof stat` as the reader, next to "stat";
#   bpfempty, bpfnowrite, bpfnostamp  the floors (bench.sh): the programs
#            in NPUPROF_BPF_PROBE_MODE=empty / nowrite / nostamp (the
#            write without the clock read), with drain.
# The target is bpf's added cost <= 0.6 of ftrace's (scripts/bench-measures.tsv).
CONFIGS="$CONFIGS bpf bpfempty bpfnowrite bpfnostamp bpfstat"
bench_config_bpf_start() {
	$TB/drain bpf > $OUT/drain-bpf.out 2>&1 &
	reader=$!
	sleep 1
}
bench_config_bpf_stop() { kill -INT $reader; wait $reader; cat $OUT/drain-bpf.out; }
bench_config_bpfempty_start() { export NPUPROF_BPF_PROBE_MODE=empty; bench_config_bpf_start; unset NPUPROF_BPF_PROBE_MODE; }
bench_config_bpfempty_stop() { bench_config_bpf_stop; }
bench_config_bpfnowrite_start() { export NPUPROF_BPF_PROBE_MODE=nowrite; bench_config_bpf_start; unset NPUPROF_BPF_PROBE_MODE; }
bench_config_bpfnowrite_stop() { bench_config_bpf_stop; }
bench_config_bpfnostamp_start() { export NPUPROF_BPF_PROBE_MODE=nostamp; bench_config_bpf_start; unset NPUPROF_BPF_PROBE_MODE; }
bench_config_bpfnostamp_stop() { bench_config_bpf_stop; }
bench_config_bpfstat_start() {
	build/bin/npuprof stat --engine bpf > $OUT/stat-bpf.out 2>&1 &
	reader=$!
	sleep 1
}
bench_config_bpfstat_stop() { kill -INT $reader; wait $reader; grep -E ' (submit|dropped) ' $OUT/stat-bpf.out; }
