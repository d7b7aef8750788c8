# Production overhead (sourced by tests/vm/bench.sh before its own rounds;
# also runs alone: scripts/vm.sh tests/vm/bench_production.sh).
#
# Wall time of npuwork's train scenario (2 devices) with no tracing, with
# full capture (`npuprof record`, system-wide, to a session directory),
# with 1-in-100 sampling (`record --sample 100`) and in flight mode
# (`npuprof flight`), interleaved over PROD_REPS rounds in one run; the
# medians are compared as ratios against no tracing. Targets: sampling and
# flight within 1%, full capture within 5%.
if [ -z "${TB:-}" ]; then
	cd "$(dirname "$0")/../.." || exit 2
	. tests/vm/lib.sh
fi
PROD_STEPS=${PROD_STEPS:-300}
PROD_REPS=${PROD_REPS:-5}
PROD_OUT=/tmp/prodbench
PROD_CONFIGS="off full sample100 flight"

prod_start() {
	rm -rf $PROD_OUT/s && mkdir -p $PROD_OUT/s
	case $1 in
	off) prod_tracer= ; return 0 ;;
	full) build/bin/npuprof record --quiet --no-export --engine kmod -o $PROD_OUT/s > /dev/null 2>&1 & ;;
	sample100) build/bin/npuprof record --quiet --no-export --engine kmod --sample 100 -o $PROD_OUT/s > /dev/null 2>&1 & ;;
	flight) build/bin/npuprof flight --engine kmod -o $PROD_OUT/s --seconds 10 --size 64 --pidfile $PROD_OUT/fl.pid > /dev/null 2>&1 & ;;
	esac
	prod_tracer=$!
	sleep 1
}
prod_stop() { [ -z "$prod_tracer" ] || { kill -INT $prod_tracer; wait $prod_tracer; }; }

prod_bench() {
	cleanup_modules
	insmod $NPUSIM_KO && insmod $NPUPROF_KO || return 1
	mkdir -p $PROD_OUT
	rm -f $PROD_OUT/*.ms
	build/bin/npuwork --scenario train --steps 20 --devices 2 --quiet # warm up
	r=0
	while [ $r -lt $PROD_REPS ]; do
		for c in $PROD_CONFIGS; do
			prod_start $c
			t0=$(date +%s%N)
			build/bin/npuwork --scenario train --steps $PROD_STEPS --devices 2 --quiet
			t1=$(date +%s%N)
			prod_stop
			echo $(((t1 - t0) / 1000)) >> $PROD_OUT/$c.ms
		done
		r=$((r + 1))
	done
	med() { sort -n $PROD_OUT/$1.ms | sed -n "$(((PROD_REPS + 1) / 2))p"; }
	off=$(med off)
	echo
	echo "Production overhead: wall time of npuwork train ($PROD_STEPS steps, 2 devices), median of $PROD_REPS interleaved rounds:"
	for c in $PROD_CONFIGS; do
		awk -v c="$c" -v v="$(med $c)" -v b="$off" 'BEGIN{
			printf "  %-12s %9.1f ms  ratio %.3f\n", c, v/1000, v/b }'
	done
	cleanup_modules
	rm -rf $PROD_OUT
}
prod_bench
