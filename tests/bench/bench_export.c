/*
 * bench_export — the export benchmark (issue: record/export, `make bench`).
 *
 *  1. Export speed: a synthetic session of N tasks with host API, task-track
 *     and compute records (written through the real recorder) is exported;
 *     its rows/s is compared with a bare SQLite loop inserting the same
 *     number of rows into tables of the same shape, in the same run.
 *  2. The correlation step alone, on the same kernel records, made a
 *     window of them at a time and fed from it as the export feeds its
 *     reorder window: events per second (median of 9 passes).
 *  3. Peak memory (max RSS of a child doing the export) for kernel-only
 *     sessions of 1M and 10M tasks, and for sessions with the host records
 *     too: it must not grow with the task count.
 *
 * The export's phases (load: reading the host streams; correlate: the
 * kernel stream through the correlator, task rows handed to the writer;
 * write: host-only and session rows; finish: indexes, STRING_IDS, commit)
 * are printed with the speed, and where the work went (export.h): read
 * (time in the streams' reads), decode (indexing the host streams, the
 * kernel stream's first pass), correlate (the merge, the correlator, the
 * rows built), SQLite (its CPU time on the writer thread and at finish),
 * fsync (publishing the file), so a regression says where it is. Every measure with a target is also printed as
 * a RESULT line (scripts/bench-table.sh).
 *
 * The export and the reference run in interleaved rounds
 * (BENCH_EXPORT_ROUNDS, default 3): the ratio is the best export round's
 * rate over the best reference round's (a loaded host only adds time), the
 * breakdown the best export round's; RESULT lines end with the spread of
 * the rounds' own ratios (the correlation's: of its passes), so
 * scripts/bench-table.sh can say when a verdict is within noise.
 *
 * Sizes: BENCH_EXPORT_TASKS (default 1000000), BENCH_EXPORT_BIG (default
 * 10000000, 0 skips the 10M memory runs), BENCH_EXPORT_BIG_HOST (default
 * BENCH_EXPORT_BIG: the size of the memory run with host records, 0 skips
 * it). Scratch space under $TMPDIR (default /tmp). BENCH_EXPORT_CORR_ONLY=1
 * runs measure 2 alone (for profiling the correlator).
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "correlate.h"
#include "npuprof/export.h"
#include "hostrec.h"
#include "npuprof/rawkern.h"
#include "npuprof/session.h"

#define HZ 50000000ULL
#define T0 1000000000ULL

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t cnt_at(uint64_t mono)
{
	return (mono - T0) / 20 + 1000; /* 50 MHz */
}

static uint32_t my_pid;

static void rec(struct npuprof_record *r, int type, uint64_t ts)
{
	memset(r, 0, sizeof(*r));
	r->hdr.type = (uint16_t)type;
	r->hdr.size = NPUPROF_RECORD_SIZE;
	r->hdr.ts = ts;
	r->hdr.pid = my_pid;
	r->hdr.tid = my_pid;
}

/* Kernel records of task i: a submit and its device task time. */
static void task_records(uint64_t i, struct npuprof_record *sub, struct npuprof_record *tt)
{
	uint64_t t = T0 + i * 2000;
	uint32_t stream = (uint32_t)(i % 8);

	rec(sub, NPUPROF_REC_SUBMIT, t);
	sub->submit.stream_id = stream;
	sub->submit.task_id = (uint32_t)(i / 8) & 0xffff;
	rec(tt, NPUPROF_REC_TASK_TIME, t + 1500);
	tt->task_time.stream_id = stream;
	tt->task_time.task_id = (uint32_t)(i / 8) & 0xffff;
	tt->task_time.start_cnt = cnt_at(t + 200);
	tt->task_time.end_cnt = cnt_at(t + 1200);
}

static void make_session(struct npuprof_session *s, const char *parent, uint64_t n, int host)
{
	struct npuprof_rawk_writer *w;
	struct npuprof_record a, b;
	char path[4400], err[512];

	memset(s, 0, sizeof(*s));
	snprintf(s->hostname, sizeof(s->hostname), "bench");
	snprintf(s->host_uid, sizeof(s->host_uid), "1");
	snprintf(s->engine, sizeof(s->engine), "kmod");
	s->start_realtime_ns = 1700000000000000000ULL;
	s->start_monotonic_ns = T0 - 1000;
	s->end_realtime_ns = s->start_realtime_ns + n * 2000 + 1000000;
	s->ndev = 1;
	snprintf(s->dev[0].chip, sizeof(s->dev[0].chip), "Ascend910B");
	s->dev[0].counter_hz = HZ;
	if (npuprof_session_create(s, parent, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench_export: %s\n", err);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s", s->dir, NPUPROF_KERNEL_RAW);
	if (npuprof_rawk_create(&w, path, "kmod", 0, 0, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench_export: %s\n", err);
		exit(1);
	}
	for (int k = 0; k < 2; k++) {
		uint64_t h = T0 + (uint64_t)k * n * 2000;

		rec(&a, NPUPROF_REC_CLOCK_SYNC, h);
		a.clock.host_ns = h;
		a.clock.dev_cnt = cnt_at(h);
		a.clock.counter_hz = HZ;
		npuprof_rawk_append(w, &a);
	}
	for (uint64_t i = 0; i < n; i++) {
		task_records(i, &a, &b);
		npuprof_rawk_append(w, &a);
		npuprof_rawk_append(w, &b);
	}
	npuprof_rawk_close(w);
	if (!host)
		return;

	struct npuprof_hostrec_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	cfg.dir = s->dir;
	cfg.buffer_size = 64u << 20;
	if (npuprof_hostrec_start(&cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench_export: %s\n", err);
		exit(1);
	}
	uint64_t launch = aclprofStr2Id("launch"), kt = aclprofStr2Id("KERNEL_AICORE");
	uint64_t names[64], ge = aclprofStr2Id("AI_CORE"), type = aclprofStr2Id("MatMul");
	for (int k = 0; k < 64; k++) {
		char nm[32];

		snprintf(nm, sizeof(nm), "op_%d", k);
		names[k] = aclprofStr2Id(nm);
	}
	for (uint64_t i = 0; i < n; i++) {
		uint64_t t = T0 + i * 2000;
		struct npuprof_hostfmt_api *ap;
		struct npuprof_hostfmt_task_track *tr;
		struct npuprof_hostfmt_compute_op *c;

		while (!(ap = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_API, sizeof(*ap))))
			npuprof_hostrec_flush();
		ap->level = NPUPROF_API_NODE;
		ap->tid = my_pid;
		ap->start_ns = t - 500;
		ap->end_ns = t + 100;
		ap->connection_id = i;
		ap->name_id = launch;
		ap->item_id = names[i % 64];
		npuprof_hostrec_commit(ap);
		while (!(tr = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_TASK_TRACK, sizeof(*tr))))
			npuprof_hostrec_flush();
		memset((char *)tr + sizeof(tr->h), 0, sizeof(*tr) - sizeof(tr->h));
		tr->tid = my_pid;
		tr->time_ns = t - 100;
		tr->connection_id = i;
		tr->task_type_id = kt;
		tr->stream_id = (uint32_t)(i % 8);
		tr->task_id = (uint16_t)(i / 8);
		tr->batch_id = (uint32_t)(i / 8 / 65536);
		tr->model_id = NPUPROF_NO_ID32;
		tr->memcpy_op = NPUPROF_ENUM_INVALID;
		npuprof_hostrec_commit(tr);
		while (!(c = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_COMPUTE_OP, sizeof(*c))))
			npuprof_hostrec_flush();
		memset((char *)c + sizeof(c->h), 0xff, sizeof(*c) - sizeof(c->h));
		c->tid = my_pid;
		c->device_id = 0;
		c->time_ns = t - 100;
		c->connection_id = i;
		c->stream_id = (uint32_t)(i % 8);
		c->task_id = (uint16_t)(i / 8);
		c->reserved0 = 0;
		c->batch_id = (uint32_t)(i / 8 / 65536);
		c->context_id = NPUPROF_NO_ID32;
		c->name_id = names[i % 64];
		c->op_type_id = type;
		c->task_type_id = ge;
		c->block_dim = 24;
		c->mix_block_dim = 0;
		c->op_flag = 0;
		c->input_count = c->output_count = 1;
		npuprof_hostrec_commit(c);
	}
	npuprof_hostrec_stop();
}

/* The reference: the same rows through a bare prepared-statement loop. */
static double reference(const char *dir, uint64_t n)
{
	char path[4400];
	sqlite3 *db;
	sqlite3_stmt *t, *a, *c;
	double t0 = now();

	snprintf(path, sizeof(path), "%s/reference.db", dir);
	unlink(path);
	sqlite3_open(path, &db);
	sqlite3_exec(
		db,
		"PRAGMA page_size=4096; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
		"PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-8192; BEGIN;"
		"CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER, globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, taskId INTEGER, modelId INTEGER);"
		"CREATE TABLE CANN_API (startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER, connectionId INTEGER PRIMARY KEY, name INTEGER);"
		"CREATE TABLE COMPUTE_TASK_INFO (name INTEGER, globalTaskId INTEGER PRIMARY KEY, blockDim INTEGER, mixBlockDim INTEGER, taskType INTEGER, opType INTEGER, inputFormats INTEGER, inputDataTypes INTEGER, inputShapes INTEGER, outputFormats INTEGER, outputDataTypes INTEGER, outputShapes INTEGER, attrInfo INTEGER);",
		NULL, NULL, NULL);
	sqlite3_prepare_v2(db, "INSERT INTO TASK VALUES (?,?,?,?,?,?,?,?,?,?,?)", -1, &t, NULL);
	sqlite3_prepare_v2(db, "INSERT INTO CANN_API VALUES (?,?,?,?,?,?)", -1, &a, NULL);
	sqlite3_prepare_v2(db, "INSERT INTO COMPUTE_TASK_INFO VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
			   -1, &c, NULL);
	for (uint64_t i = 0; i < n; i++) {
		for (int k = 1; k <= 11; k++)
			sqlite3_bind_int64(t, k, (int64_t)(i * 7 + k));
		sqlite3_step(t);
		sqlite3_reset(t);
		for (int k = 1; k <= 6; k++)
			sqlite3_bind_int64(a, k, k == 5 ? (int64_t)i : (int64_t)(i + k));
		sqlite3_step(a);
		sqlite3_reset(a);
		for (int k = 1; k <= 13; k++)
			sqlite3_bind_int64(c, k, k == 2 ? (int64_t)i : k);
		sqlite3_step(c);
		sqlite3_reset(c);
	}
	sqlite3_exec(db, "CREATE INDEX TaskIndex ON TASK (startNs, globalTaskId); COMMIT", NULL,
		     NULL, NULL);
	sqlite3_finalize(t);
	sqlite3_finalize(a);
	sqlite3_finalize(c);
	sqlite3_close(db);
	unlink(path);
	return now() - t0;
}

static int noop_done(void *ctx, const struct corr_task *t)
{
	(*(uint64_t *)ctx) += t->gtid != UINT64_MAX;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Events per second through the correlator: the median of CORR_ROUNDS
 * passes over the same records (one pass is ~50 ms, short enough for a
 * stray interrupt or a neighbour's burst to move it). The records are made
 * CORR_CHUNK tasks at a time and fed from that buffer, as the export feeds
 * them from its reorder window (of the same size: a record is fed 64K
 * records after it came in): what is timed is the correlator, not a stream
 * of 128 MB from memory (that is the read phase's, and its speed is the
 * host's memory's). */
#define CORR_ROUNDS 9
#define CORR_CHUNK 32768 /* tasks: 65536 records, the export's REORDER_WINDOW */
static double correlate_rate(uint64_t n, double *lo, double *hi)
{
	static struct npuprof_record r[2 * CORR_CHUNK];
	double rate[CORR_ROUNDS];

	for (int k = 0; k < CORR_ROUNDS; k++) {
		struct correlator c;
		uint64_t done = 0;
		double t = 0;

		memset(&c, 0, sizeof(c));
		corr_clock_add(&c.clock[0], T0, cnt_at(T0), HZ);
		corr_clock_add(&c.clock[0], T0 + n * 2000, cnt_at(T0 + n * 2000), HZ);
		corr_clock_fit(&c.clock[0]);
		c.task_time[0] = 1;
		corr_init(&c, NULL, noop_done, &done);
		for (uint64_t i = 0; i < n; i += CORR_CHUNK) {
			uint64_t m = n - i < CORR_CHUNK ? n - i : CORR_CHUNK;
			double t0;

			for (uint64_t j = 0; j < m; j++)
				task_records(i + j, &r[2 * j], &r[2 * j + 1]);
			t0 = now();
			for (uint64_t j = 0; j < 2 * m; j++)
				corr_feed(&c, &r[j]);
			t += now() - t0;
		}
		corr_finish(&c);
		rate[k] = done == n ? 2 * n / t : 0;
	}
	qsort(rate, CORR_ROUNDS, sizeof(rate[0]), cmp_double);
	*lo = rate[0];
	*hi = rate[CORR_ROUNDS - 1];
	return rate[CORR_ROUNDS / 2];
}

/* Export a session of n tasks (kernel-only, or with host records) in a
 * child; its peak RSS (KiB). */
static long export_peak_kib(const char *parent, uint64_t n, int host, double *secs)
{
	struct npuprof_session s;
	struct rusage ru;
	double t0;
	int st;
	pid_t pid;

	make_session(&s, parent, n, host);
	t0 = now();
	pid = fork();
	if (pid == 0) {
		struct npuprof_export_result res;
		char err[1024];

		_exit(npuprof_export(s.dir, NULL, &res, err, sizeof(err)) == 0 && res.tasks == n ?
			      0 :
			      1);
	}
	wait4(pid, &st, 0, &ru);
	*secs = now() - t0;
	char cmd[4500];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s.dir);
	if (system(cmd) != 0)
		return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? ru.ru_maxrss : -1;
}

int main(void)
{
	const char *e = getenv("BENCH_EXPORT_TASKS");
	uint64_t n = e ? strtoull(e, NULL, 10) : 1000000;
	e = getenv("BENCH_EXPORT_BIG");
	uint64_t big = e ? strtoull(e, NULL, 10) : 10000000;
	const char *tmpdir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char parent[4096];
	struct npuprof_session s;
	struct npuprof_export_result res;
	char err[1024];
	double t_exp, t_ref, secs1, secsb = 0;
	long m1, mb = 0, mh1 = 0, mhb = 0;
	double secsh1 = 0, secshb = 0;
	e = getenv("BENCH_EXPORT_BIG_HOST");
	uint64_t bigh = e ? strtoull(e, NULL, 10) : big;
	e = getenv("BENCH_EXPORT_ROUNDS");
	int rounds = e ? atoi(e) : 3;
	double qlo = 0, qhi = 0, clo = 0, chi = 0;

	if (rounds < 1 || rounds > 100) {
		fprintf(stderr, "bench_export: BENCH_EXPORT_ROUNDS=%s: give 1 to 100 rounds\n", e);
		return 2;
	}

	my_pid = (uint32_t)getpid();
	if (getenv("BENCH_EXPORT_CORR_ONLY")) {
		/* the correlation measure alone, for profiling the correlator */
		double corr = correlate_rate(n, &clo, &chi);

		printf("correlation step alone: %.1f M events/s (%.1f..%.1f)\n", corr / 1e6,
		       clo / 1e6, chi / 1e6);
		return 0;
	}
	snprintf(parent, sizeof(parent), "%s/npuprof-bench-export-XXXXXX", tmpdir);
	if (!mkdtemp(parent)) {
		perror("bench_export: mkdtemp");
		return 1;
	}
	printf("bench_export: building a session of %llu tasks (API + task track + compute op each)...\n",
	       (unsigned long long)n);
	fflush(stdout);
	make_session(&s, parent, n, 1);
	if (getenv("BENCH_EXPORT_KEEP")) {
		printf("session kept: %s\n", s.dir);
		return 0;
	}
	uint64_t rows = 0;

	t_exp = t_ref = 0;
	for (int k = 0; k < rounds; k++) {
		struct npuprof_export_result rr;
		double t0 = now(), te, tr, q;

		if (npuprof_export(s.dir, NULL, &rr, err, sizeof(err)) < 0) {
			fprintf(stderr, "bench_export: %s\n", err);
			return 1;
		}
		te = now() - t0;
		tr = reference(parent, n);
		rows = rr.tasks + rr.api + rr.compute;
		q = (rows / te) / (3.0 * n / tr);
		printf("round %d: export %.2f s, reference %.2f s, ratio %.3f\n", k + 1, te, tr, q);
		fflush(stdout);
		qlo = k == 0 || q < qlo ? q : qlo;
		qhi = k == 0 || q > qhi ? q : qhi;
		if (k == 0 || te < t_exp) {
			t_exp = te;
			res = rr;
		}
		if (k == 0 || tr < t_ref)
			t_ref = tr;
	}
	double corr = correlate_rate(n, &clo, &chi);
	m1 = export_peak_kib(parent, n, 0, &secs1);
	if (big)
		mb = export_peak_kib(parent, big, 0, &secsb);
	if (bigh) {
		mh1 = export_peak_kib(parent, n, 1, &secsh1);
		mhb = export_peak_kib(parent, bigh, 1, &secshb);
	}

	printf("\n%-44s %12s %12s\n", "", "rows/s", "ratio");
	printf("%-44s %12.0f %12.2f\n", "reference: bare SQLite inserts, same rows",
	       3.0 * n / t_ref, 1.0);
	double ratio = (rows / t_exp) / (3.0 * n / t_ref);
	printf("%-44s %12.0f %12.2f   (target >= 0.95)\n",
	       "npuprof export (read, correlate, write)", rows / t_exp, ratio);
	printf("export phases: load %.2f s, correlate %.2f s, write %.2f s, finish %.2f s "
	       "(total %.2f s; reference %.2f s)\n",
	       res.load_seconds, res.correlate_seconds, res.write_seconds, res.finish_seconds,
	       t_exp, t_ref);
	printf("export breakdown: read %.2f s, decode %.2f s, correlate %.2f s, SQLite %.2f s, "
	       "fsync %.2f s (fsync: wall time; the rest: CPU time, on up to three threads)\n",
	       res.read_seconds, res.decode_seconds, res.correlate_cpu_seconds, res.sqlite_seconds,
	       res.fsync_seconds);
	printf("\ncorrelation step alone: %.1f M events/s (target >= 50 M/s)\n", corr / 1e6);
	printf("peak memory, kernel-only export: %llu tasks %ld KiB (%.1f s)",
	       (unsigned long long)n, m1, secs1);
	if (big)
		printf(", %llu tasks %ld KiB (%.1f s): ratio %.2f\n", (unsigned long long)big, mb,
		       secsb, (double)mb / (double)m1);
	else
		printf("\n");
	if (bigh)
		printf("peak memory, export with host records: %llu tasks %ld KiB (%.1f s), %llu tasks "
		       "%ld KiB (%.1f s): ratio %.2f\n",
		       (unsigned long long)n, mh1, secsh1, (unsigned long long)bigh, mhb, secshb,
		       (double)mhb / (double)mh1);
	printf("RESULT\texport rows/s / bare SQLite (1M tasks, API+track+compute)\t%.3f\t>=\t0.95"
	       "\t%.3f\t%.3f\n",
	       ratio, qlo, qhi);
	printf("RESULT\tcorrelation alone, M events/s\t%.1f\t>=\t50\t%.1f\t%.1f\n", corr / 1e6,
	       clo / 1e6, chi / 1e6);
	if (big && m1 > 0 && mb > 0)
		printf("RESULT\texport peak memory 10M/1M tasks, kernel-only\t%.3f\t<=\t1.02\n",
		       (double)mb / (double)m1);
	if (bigh && mh1 > 0 && mhb > 0)
		printf("RESULT\texport peak memory 10M/1M tasks, with host records\t%.3f\t<=\t1.1\n",
		       (double)mhb / (double)mh1);
	char rm[sizeof(parent) + 16];

	snprintf(rm, sizeof(rm), "rm -rf '%s'", parent);
	return system(rm) == 0 ? 0 : 1;
}
