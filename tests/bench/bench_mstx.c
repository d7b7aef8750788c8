/*
 * bench_mstx.c - cost of the stamp hot paths as an application meets them:
 * linked to libmsprofiler.so (its PLT entries, its TLS), host only.
 *   aclprofMark, aclprofPush + aclprofPop, aclprofRangeStart + aclprofRangeStop,
 *   mstxMarkA (no stream), mstxRangeStartA + mstxRangeEnd (no stream),
 * and the reporter ABI's report calls as CANN's runtime and ACL make them,
 * linked to libprofapi.so: MsprofReportApi, MsprofReportCompactInfo (a
 * runtime task track), MsprofReportAdditionalInfo (a tensor info record),
 * each as ns per call and as a ratio to clock_gettime(CLOCK_MONOTONIC) timed
 * by the same thread in the same round, on 1 and on 2 threads.
 *
 * Method: persistent threads; ROUNDS rounds, each a fresh collection
 * (aclprofStart .. aclprofStop, whose drain empties the rings between
 * rounds) in which every operation runs ITERS times on 1 thread, then on 2
 * threads at once, interleaved, so that a slow moment of a shared machine
 * hits all operations alike. A ratio is the median over the rounds of
 * (op ns / clock ns of that thread and round); the spread is the min..max.
 * The rings (64 MiB) hold a whole round and the periodic flush is off, so
 * the background writer does not run during a timed loop: what is measured
 * is the calling thread's cost. Afterwards every stream is decoded and the
 * records are counted against the calls (nothing lost), and the heap growth
 * during the timed loops is reported (expected 0).
 *
 * Prints RESULT lines (measure, value, op, target) for the targets of the
 * performance issue: <= 1.3 for a mark, <= 2.2 for a pair (two clock reads
 * are the floor), <= 1.5 for an API or compact report and <= 3 for an
 * additional report (256 bytes copied). Never fails on timing.
 */
#include <glob.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "mstx/ms_tools_ext.h"
#include "profiling/aprof_pub.h"
#include "profiling/npuprof_ext.h"
#include "npuprof/hostread.h"

#define MAX_ITERS 10000
#define ROUNDS 15
#define MAXT 2

enum op {
	OP_CLOCK,
	OP_MARK,
	OP_PUSHPOP,
	OP_RANGE,
	OP_MSTX_MARK,
	OP_MSTX_RANGE,
	OP_REPORT_API,
	OP_REPORT_COMPACT,
	OP_REPORT_ADDITIONAL,
	NOPS
};

static const char *const op_name[NOPS] = { "clock_gettime(MONOTONIC)",
					   "aclprofMark",
					   "aclprofPush+Pop",
					   "aclprofRangeStart+Stop",
					   "mstxMarkA",
					   "mstxRangeStartA+End",
					   "MsprofReportApi",
					   "MsprofReportCompactInfo",
					   "MsprofReportAdditionalInfo" };
static const double op_target[NOPS] = { 1.0, 1.3, 2.2, 2.2, 1.3, 2.2, 1.5, 1.5, 3.0 };
static const int op_records[NOPS] = { 0, 1, 1, 1, 1, 2, 1, 1, 1 };

struct worker {
	int idx;
	void *stamp;
	pthread_t th;
	struct MsprofApi api;
	struct MsprofCompactInfo compact;
	struct MsprofAdditionalInfo additional;
	double ns[MAXT][ROUNDS][NOPS]; /* [threads-1][round][op] */
	long failures;
	long heap;
};

static struct worker g_w[MAXT];
static pthread_barrier_t g_start, g_end;
static int g_round, g_nthreads, g_quit;
static int ITERS = MAX_ITERS; /* BENCH_ITERS=N (<= MAX_ITERS) for experiments */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double run_op(struct worker *w, enum op op)
{
	struct timespec ts;
	uint64_t sink = 0, t0, t1;
	long fails = 0;
	uint32_t id;

	t0 = now_ns();
	switch (op) {
	case OP_CLOCK:
		for (int i = 0; i < ITERS; i++) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			sink += (uint64_t)ts.tv_nsec;
		}
		break;
	case OP_MARK:
		for (int i = 0; i < ITERS; i++)
			fails += aclprofMark(w->stamp) != 0;
		break;
	case OP_PUSHPOP:
		for (int i = 0; i < ITERS; i++)
			fails += (aclprofPush(w->stamp) | aclprofPop()) != 0;
		break;
	case OP_RANGE:
		for (int i = 0; i < ITERS; i++)
			fails += (aclprofRangeStart(w->stamp, &id) | aclprofRangeStop(id)) != 0;
		break;
	case OP_MSTX_MARK:
		for (int i = 0; i < ITERS; i++)
			mstxMarkA("bench mstx message", NULL);
		break;
	case OP_MSTX_RANGE:
		for (int i = 0; i < ITERS; i++) {
			mstxRangeId r = mstxRangeStartA("bench mstx message", NULL);

			fails += r == MSTX_INVALID_ID;
			mstxRangeEnd(r);
		}
		break;
	case OP_REPORT_API:
		for (int i = 0; i < ITERS; i++) {
			w->api.itemId = (uint64_t)i;
			fails += MsprofReportApi(0, &w->api) != MSPROF_ERROR_NONE;
		}
		break;
	case OP_REPORT_COMPACT:
		for (int i = 0; i < ITERS; i++) {
			w->compact.data.runtimeTrack.taskId = (uint16_t)i;
			fails += MsprofReportCompactInfo(0, &w->compact, sizeof(w->compact)) !=
				 MSPROF_ERROR_NONE;
		}
		break;
	case OP_REPORT_ADDITIONAL:
		for (int i = 0; i < ITERS; i++) {
			w->additional.data[0] = (uint8_t)i;
			fails += MsprofReportAdditionalInfo(0, &w->additional,
							    sizeof(w->additional)) !=
				 MSPROF_ERROR_NONE;
		}
		break;
	case NOPS: break;
	}
	t1 = now_ns();
	w->failures += fails + (sink == 1);
	return (double)(t1 - t0) / ITERS;
}

static void init_reports(struct worker *w);

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (;;) {
		pthread_barrier_wait(&g_start);
		if (g_quit)
			return NULL;
		if (w->idx < g_nthreads) {
			struct mallinfo2 m0, m1;

			/* warm-up: the thread's ring and stack exist and are hot */
			for (int i = 0; i < 200; i++) {
				aclprofMark(w->stamp);
				aclprofPush(w->stamp);
				aclprofPop();
				mstxRangeEnd(mstxRangeStartA("warm", NULL));
			}
			init_reports(w); /* stamped inside this round's collection */
			m0 = mallinfo2();
			for (int op = 0; op < NOPS; op++)
				w->ns[g_nthreads - 1][g_round][op] = run_op(w, (enum op)op);
			m1 = mallinfo2();
			if ((long)m1.uordblks - (long)m0.uordblks > w->heap)
				w->heap = (long)m1.uordblks - (long)m0.uordblks;
		}
		pthread_barrier_wait(&g_end);
	}
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct count {
	uint64_t tx, lost, bad;
};

static int count_cb(void *ctx, const struct npuprof_hostfmt_block_header *b,
		    const struct npuprof_hostfmt_header *r)
{
	struct count *c = ctx;
	struct npuprof_hostread_tx ev;

	/* TX records and their compact forms alike, and the reports */
	c->tx += npuprof_hostread_tx_event(b, r, &ev) || r->kind == NPUPROF_HOSTFMT_MSPROF_API ||
		 r->kind == NPUPROF_HOSTFMT_MSPROF_COMPACT ||
		 r->kind == NPUPROF_HOSTFMT_MSPROF_ADDITIONAL;
	return 0;
}

/* The reports as CANN's runtime and ACL fill them: an ACL API, a task
 * track, a node's tensor info; their (level, type) registered as theirs. */
static void init_reports(struct worker *w)
{
	uint64_t t = MsprofSysCycleTime();

	w->api = (struct MsprofApi){ .magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM,
				     .level = MSPROF_REPORT_ACL_LEVEL,
				     .type = 0x1000u,
				     .threadId = (uint32_t)gettid(),
				     .beginTime = t,
				     .endTime = t + 1000 };
	w->compact = (struct MsprofCompactInfo){ .magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM,
						 .level = MSPROF_REPORT_RUNTIME_LEVEL,
						 .type = NPUPROF_CANN_RT_TASK_TRACK,
						 .threadId = (uint32_t)gettid(),
						 .dataLen = sizeof(struct MsprofRuntimeTrack),
						 .timeStamp = t };
	w->additional = (struct MsprofAdditionalInfo){ .magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM,
						       .level = MSPROF_REPORT_NODE_LEVEL,
						       .type = MSPROF_REPORT_NODE_TENSOR_INFO_TYPE,
						       .threadId = (uint32_t)gettid(),
						       .dataLen = 200,
						       .timeStamp = t };
}

int main(void)
{
	char dir[] = "/tmp/npuprof-bench-XXXXXX", pat[64], err[512];
	aclprofConfig *c;
	struct count cnt = { 0, 0, 0 };
	uint64_t expect = 0;
	long fails = 0, heap = 0;
	glob_t g;

	if (!mkdtemp(dir))
		return 1;
	if (getenv("BENCH_ITERS") && atoi(getenv("BENCH_ITERS")) > 0 &&
	    atoi(getenv("BENCH_ITERS")) <= MAX_ITERS)
		ITERS = atoi(getenv("BENCH_ITERS"));
	/* BENCH_RING=BYTES: another ring size (the writer then runs during
	 * the loops once a quarter of it fills) */
	setenv("NPUPROF_BUFFER_SIZE", getenv("BENCH_RING") ? getenv("BENCH_RING") : "67108864", 1);
	setenv("NPUPROF_FLUSH_INTERVAL_MS", "60000", 1);
	if (aclprofInit(dir, strlen(dir)) != ACL_SUCCESS)
		return 1;
	c = aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL, ACL_PROF_MSPROFTX);
	if (!c || aclprofStart(c) != ACL_SUCCESS)
		return 1;
	mstxMarkA("first call", NULL); /* registers the default domain (once, allocates) */
	MsprofRegTypeInfo(MSPROF_REPORT_ACL_LEVEL, 0x1000u, "aclrtBenchApi");
	MsprofRegTypeInfo(MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_TASK_TRACK,
			  NPUPROF_CANN_TASK_TRACK_NAME);
	MsprofRegTypeInfo(MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_TENSOR_INFO_TYPE,
			  "tensor_info");
	expect++;
	pthread_barrier_init(&g_start, NULL, MAXT + 1);
	pthread_barrier_init(&g_end, NULL, MAXT + 1);
	for (int t = 0; t < MAXT; t++) {
		g_w[t].idx = t;
		g_w[t].stamp = aclprofCreateStamp();
		aclprofSetStampTraceMessage(g_w[t].stamp, "bench stamp message", 19);
		pthread_create(&g_w[t].th, NULL, worker_main, &g_w[t]);
	}
	for (g_round = 0; g_round < ROUNDS; g_round++) {
		if (g_round && aclprofStart(c) != ACL_SUCCESS)
			return 1;
		for (g_nthreads = 1; g_nthreads <= MAXT; g_nthreads++) {
			pthread_barrier_wait(&g_start);
			pthread_barrier_wait(&g_end);
		}
		if (aclprofStop(c) != ACL_SUCCESS) /* drains the rings */
			return 1;
	}
	g_quit = 1;
	pthread_barrier_wait(&g_start);
	for (int t = 0; t < MAXT; t++) {
		pthread_join(g_w[t].th, NULL);
		fails += g_w[t].failures;
		if (g_w[t].heap > heap)
			heap = g_w[t].heap;
	}

	printf("stamp and report hot paths through libmsprofiler.so and libprofapi.so, host only: %d calls x %d interleaved "
	       "rounds, %ld CPUs\n",
	       ITERS, ROUNDS, sysconf(_SC_NPROCESSORS_ONLN));
	printf("%-26s %7s %9s %9s %16s %7s\n", "operation", "threads", "ns/call", "x clock",
	       "spread (x clock)", "target");
	for (int op = 0; op < NOPS; op++)
		for (int nt = 1; nt <= MAXT; nt++) {
			double ns[ROUNDS * MAXT], ratio[ROUNDS * MAXT], lo, hi, med;
			int n = 0;

			for (int r = 0; r < ROUNDS; r++)
				for (int t = 0; t < nt; t++) {
					ns[n] = g_w[t].ns[nt - 1][r][op];
					ratio[n] = ns[n] / g_w[t].ns[nt - 1][r][OP_CLOCK];
					n++;
				}
			med = median(ratio, n);
			lo = ratio[0];
			hi = ratio[n - 1];
			printf("%-26s %7d %9.1f %9.2f %7.2f..%-7.2f ", op_name[op], nt,
			       median(ns, n), med, lo, hi);
			if (op == OP_CLOCK)
				printf("%7s\n", "-");
			else
				printf("%7.1f\n", op_target[op]);
			if (op != OP_CLOCK)
				printf("RESULT\t%s / clock_gettime, %d thread%s\t%.2f\t<=\t%.1f\t%.2f\t%.2f\n",
				       op_name[op], nt, nt > 1 ? "s" : "", med, op_target[op], lo,
				       hi);
			expect += (uint64_t)op_records[op] * ITERS * ROUNDS * (uint64_t)nt;
		}
	/* warm-up: 4 records per iteration, 3 thread-phases per round */
	expect += (uint64_t)ROUNDS * (1 + MAXT) * 200 * 4;

	snprintf(pat, sizeof(pat), "%s/PROF_*/host/data/npuprof.host.*.raw", dir);
	if (glob(pat, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			struct npuprof_hostread_decode_stats st;
			struct npuprof_hostread_file_info info;

			memset(&st, 0, sizeof(st));
			if (npuprof_hostread_decode(g.gl_pathv[i], count_cb, &cnt, &info, &st, err,
						    sizeof(err)))
				fprintf(stderr, "bench_mstx: %s\n", err);
			cnt.lost += st.lost;
			cnt.bad += st.bad_records + st.bad_blocks;
		}
		globfree(&g);
	}
	printf("failed calls %ld; heap growth during timed loops %ld bytes (max per "
	       "thread-round)\n",
	       fails, heap);
	printf("TX and report records decoded %llu of %llu issued, lost to full rings %llu, "
	       "refused by the decoder %llu\n",
	       (unsigned long long)cnt.tx, (unsigned long long)expect, (unsigned long long)cnt.lost,
	       (unsigned long long)cnt.bad);
	aclprofDestroyStamp(g_w[0].stamp);
	aclprofDestroyStamp(g_w[1].stamp);
	aclprofDestroyConfig(c);
	aclprofFinalize();
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
	return cnt.tx == expect && cnt.lost == 0 && fails == 0 ? 0 : 1;
}
