/*
 * test_hostdata.c — the host side's indexes (user/export/hostdata.c): a task
 * key's tracks are matched in time order whatever order the streams hold
 * them in (equal times: the one recorded first first), each used once; a
 * detail record is found by (key, batch), the first one recorded when there
 * are several. The streaming reader (hostdata_open, export's) answers the
 * same from its merge, but a detail record is the latest one of its (key,
 * batch) merged so far: task ids wrap every 65536 tasks of a stream. The
 * two engines (hostdata_load.c, hostdata_stream.c) give the same records
 * for the same session.
 */
#include <check.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "mstx/ms_tools_ext.h"
#include "hostdata.h"
#include "hostrec.h"
#include "hostrec_testutil.h"
#include "testutil.h"

#define MS 1000000ULL

static void track(uint32_t stream, uint32_t task, uint64_t t, uint64_t conn)
{
	struct npuprof_hostfmt_task_track *r = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_TASK_TRACK,
								       sizeof(*r));

	ck_assert_ptr_nonnull(r);
	memset((char *)r + sizeof(r->h), 0, sizeof(*r) - sizeof(r->h));
	r->tid = 7;
	r->time_ns = t;
	r->connection_id = conn;
	r->stream_id = stream;
	r->task_id = (uint16_t)task;
	r->model_id = NPUPROF_NO_ID32;
	r->memcpy_op = NPUPROF_ENUM_INVALID;
	npuprof_hostrec_commit(r);
}

static void compute(uint32_t stream, uint32_t task, uint32_t batch, uint64_t conn)
{
	struct npuprof_hostfmt_compute_op *c = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_COMPUTE_OP,
								       sizeof(*c));

	ck_assert_ptr_nonnull(c);
	memset((char *)c + sizeof(c->h), 0xff, sizeof(*c) - sizeof(c->h));
	c->tid = 7;
	c->device_id = 0;
	c->time_ns = 1;
	c->connection_id = conn;
	c->name_id = conn; /* what the lookups below tell apart */
	c->stream_id = stream;
	c->task_id = (uint16_t)task;
	c->reserved0 = 0;
	c->batch_id = batch;
	npuprof_hostrec_commit(c);
}

static void api(uint32_t level, uint64_t start, uint64_t end, uint64_t conn)
{
	struct npuprof_hostfmt_api *a = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_API, sizeof(*a));

	ck_assert_ptr_nonnull(a);
	memset((char *)a + sizeof(a->h), 0, sizeof(*a) - sizeof(a->h));
	a->level = level;
	a->tid = 7;
	a->start_ns = start;
	a->end_ns = end;
	a->connection_id = conn;
	a->name_id = NPUPROF_HOSTFMT_NO_STRING;
	a->item_id = NPUPROF_HOSTFMT_NO_STRING;
	npuprof_hostrec_commit(a);
}

/* tu_rm_rf, and the directory is gone. */
static void rm_dir(const char *dir)
{
	tu_rm_rf(dir);
	ck_assert_int_ne(access(dir, F_OK), 0);
}

/* A collection of this process into a new directory dir (a mkdtemp
 * template); buffer_size 0: the recorder's default. */
static void start_in(char *dir, size_t buffer_size)
{
	struct npuprof_hostrec_config cfg;
	char err[512];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	memset(&cfg, 0, sizeof(cfg));
	cfg.dir = dir;
	cfg.buffer_size = buffer_size;
	ck_assert_msg(npuprof_hostrec_start(&cfg, err, sizeof(err)) == 0, "%s", err);
}

/* The tracks of test_tracks' session, matched as the rule says (both
 * readers: hostdata_load and the streaming hostdata_open). */
static void check_track_matches(struct hostdata *h, uint32_t pid)
{
	const struct hostdata_track *t;

	/* nothing before 8 ms (+ 2 ms slack) */
	ck_assert_ptr_null(hostdata_match_track(h, pid, 0, 1, 5, 7 * MS));
	t = hostdata_match_track(h, pid, 0, 1, 5, 17 * MS);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->r.connection_id, 1);
	/* both 20 ms tracks are due: the later recorded one is the latest */
	t = hostdata_match_track(h, pid, 0, 1, 5, 19 * MS);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->r.connection_id, 4);
	/* used ones are not matched again */
	ck_assert_ptr_null(hostdata_match_track(h, pid, 0, 1, 5, 25 * MS));
	t = hostdata_match_track(h, pid, 0, 1, 5, 40 * MS);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->r.connection_id, 2);
	ck_assert_ptr_null(hostdata_match_track(h, pid, 0, 1, 5, 100 * MS));
	/* the other key has its own cursor */
	t = hostdata_match_track(h, pid, 0, 2, 5, 100 * MS);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->r.connection_id, 12);
	ck_assert_ptr_null(hostdata_match_track(h, pid, 0, 3, 5, 100 * MS));
}

START_TEST(test_track_order_and_details)
{
	char dir[] = "/tmp/npuprof-test-hostdata-XXXXXX", err[512];
	struct hostdata h;
	const struct hostdata_track *t;
	const struct hostdata_compute *c;
	uint32_t pid = (uint32_t)getpid();

	start_in(dir, 0);
	/* key (stream 1, task 5): recorded out of time order */
	track(1, 5, 10 * MS, 1);
	track(1, 5, 30 * MS, 2);
	track(1, 5, 20 * MS, 3);
	track(1, 5, 20 * MS, 4);
	/* key (stream 2, task 5): in order */
	track(2, 5, 10 * MS, 11);
	track(2, 5, 50 * MS, 12);
	compute(1, 5, 0, 21);
	compute(1, 5, 1, 22);
	compute(1, 5, 0, 23); /* a second (key, batch 0): the first wins */
	compute(2, 5, 0, 24);
	compute(3, 5, 0, 21); /* the strings of the first: one set for both */
	ck_assert_int_eq(npuprof_hostrec_stop(), 0);

	ck_assert_int_eq(hostdata_load(&h, dir, stderr, err, sizeof(err)), 0);
	ck_assert_uint_eq(hostdata_whole(&h)->ntrack, 6);
	check_track_matches(&h, pid);
	ck_assert_ptr_null(hostdata_match_track(&h, pid + 1, 0, 1, 5, 100 * MS));

	c = hostdata_compute(&h, pid, 0, 1, 5, 0);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(hostdata_op_strings(&h, c)->name_id, 21);
	c = hostdata_compute(&h, pid, 0, 1, 5, 1);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(hostdata_op_strings(&h, c)->name_id, 22);
	c = hostdata_compute(&h, pid, 0, 2, 5, 0);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(hostdata_op_strings(&h, c)->name_id, 24);
	c = hostdata_compute(&h, pid, 0, 3, 5, 0);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(hostdata_op_strings(&h, c)->name_id, 21);
	ck_assert_uint_eq(c->strings, hostdata_compute(&h, pid, 0, 1, 5, 0)->strings);
	ck_assert_uint_eq(h.nopstr, 4); /* 21, 22, 23, 24 */
	ck_assert_ptr_null(hostdata_compute(&h, pid, 0, 1, 5, 2));
	ck_assert_ptr_null(hostdata_compute(&h, pid, 0, 1, 6, 0));
	ck_assert_ptr_null(hostdata_hccl_task(&h, pid, 0, 1, 5, 0));
	hostdata_free(&h);

	/* the same from the streaming reader */
	ck_assert_int_eq(hostdata_open(&h, dir, 0, stderr, err, sizeof(err)), 0);
	ck_assert_ptr_null(hostdata_whole(&h)); /* nothing per task loaded */
	check_track_matches(&h, pid);
	ck_assert_int_eq(hostdata_drain(&h), 0);
	c = hostdata_compute(&h, pid, 0, 1, 5, 0);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(hostdata_op_strings(&h, c)->name_id, 23); /* the latest */
	c = hostdata_compute(&h, pid, 0, 1, 5, 1);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(hostdata_op_strings(&h, c)->name_id, 22);
	c = hostdata_compute(&h, pid, 0, 2, 5, 0);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(hostdata_op_strings(&h, c)->name_id, 24);
	ck_assert_ptr_null(hostdata_compute(&h, pid, 0, 1, 5, 2));
	ck_assert_ptr_null(hostdata_compute(&h, pid, 0, 1, 6, 0));
	/* a second pass over it (export --pytorch) starts from the beginning */
	ck_assert_int_eq(hostdata_rewind(&h, NULL, NULL, NULL), 0);
	ck_assert_ptr_null(hostdata_compute(&h, pid, 0, 1, 5, 0));
	t = hostdata_match_track(&h, pid, 0, 1, 5, 17 * MS);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->r.connection_id, 1);
	hostdata_free(&h);
	rm_dir(dir);
}
END_TEST

/* More than 65536 tasks on one stream: the task ids wrap, and each task
 * gets its own track and compute op, not those of the task 65536 earlier
 * (hostdata_load's lookups return the first record of a (key, batch)). */
START_TEST(test_stream_wrap)
{
	char dir[] = "/tmp/npuprof-test-hostdata-XXXXXX", err[512];
	struct hostdata h;
	uint32_t pid = (uint32_t)getpid();
	const uint64_t n = 70000;

	start_in(dir, 16u << 20);
	for (uint64_t i = 0; i < n; i++) {
		track(1, (uint32_t)(i & 0xffff), MS + i * 1000, i);
		compute(1, (uint32_t)(i & 0xffff), 0, 1000 + i);
	}
	ck_assert_int_eq(npuprof_hostrec_stop(), 0);

	ck_assert_int_eq(hostdata_open(&h, dir, 0, stderr, err, sizeof(err)), 0);
	for (uint64_t i = 0; i < n; i++) {
		const struct hostdata_launch *l = hostdata_launch(&h, pid, 0, 1,
								  (uint32_t)(i & 0xffff), 7,
								  MS + i * 1000 + 50);
		const struct hostdata_compute *c;

		ck_assert_ptr_nonnull(l);
		ck_assert(l->tracked);
		ck_assert_uint_eq(l->tr.r.connection_id, i);
		c = hostdata_compute(&h, pid, 0, 1, (uint32_t)(i & 0xffff), 0);
		ck_assert_ptr_nonnull(c);
		ck_assert_uint_eq(hostdata_op_strings(&h, c)->name_id, 1000 + i);
		hostdata_release(&h, l);
	}
	hostdata_free(&h);

	/* what hostdata_load gives after the wrap: the first ones */
	ck_assert_int_eq(hostdata_load(&h, dir, stderr, err, sizeof(err)), 0);
	ck_assert_uint_eq(hostdata_op_strings(&h, hostdata_compute(&h, pid, 0, 1, 5, 0))->name_id,
			  1005);
	hostdata_free(&h);
	rm_dir(dir);
}
END_TEST

static uint64_t g_api_calls, g_api_conn_sum;

static void count_api(void *ctx, const struct hostdata_api *a)
{
	(void)ctx;
	g_api_calls++;
	g_api_conn_sum += a->r.connection_id;
}

/* An uninstrumented launch (no track): the innermost node/acl-level call
 * open on its thread, whether the merge has reached its end or not; every
 * API call reaches the callback once. */
START_TEST(test_stream_enclosing)
{
	char dir[] = "/tmp/npuprof-test-hostdata-XXXXXX", err[512];
	struct hostdata h;
	const struct hostdata_launch *l;
	uint32_t pid = (uint32_t)getpid();

	start_in(dir, 0);
	/* written at their ends: inner ones first */
	api(NPUPROF_API_NODE, 10 * MS, 11 * MS, 1);
	api(NPUPROF_API_RUNTIME, 12 * MS, 13 * MS, 2); /* not node/acl */
	api(NPUPROF_API_NODE, 12 * MS, 14 * MS, 3);
	api(NPUPROF_API_ACL, 9 * MS, 15 * MS, 4);
	/* a long one: ends far beyond what a match merges */
	for (uint64_t i = 0; i < 1000; i++)
		track(2, (uint32_t)i, 100 * MS + i * MS, 100 + i);
	api(NPUPROF_API_ACL, 90 * MS, 5000 * MS, 5);
	ck_assert_int_eq(npuprof_hostrec_stop(), 0);

	g_api_calls = g_api_conn_sum = 0;
	ck_assert_int_eq(hostdata_open(&h, dir, 0, stderr, err, sizeof(err)), 0);
	ck_assert_int_eq(hostdata_rewind(&h, count_api, NULL, NULL), 0);
	l = hostdata_launch(&h, pid, 0, 1, 1, 7, 10 * MS + 500000);
	ck_assert(!l->tracked && l->has_api);
	ck_assert_uint_eq(l->api_conn, 1);
	hostdata_release(&h, l);
	l = hostdata_launch(&h, pid, 0, 1, 2, 7, 12 * MS + 500000);
	ck_assert(!l->tracked && l->has_api);
	ck_assert_uint_eq(l->api_conn, 3);
	hostdata_release(&h, l);
	l = hostdata_launch(&h, pid, 0, 1, 3, 7, 14 * MS + 500000);
	ck_assert(!l->tracked && l->has_api);
	ck_assert_uint_eq(l->api_conn, 4);
	hostdata_release(&h, l);
	l = hostdata_launch(&h, pid, 0, 1, 4, 8, 14 * MS + 500000); /* another thread */
	ck_assert(!l->tracked && !l->has_api);
	hostdata_release(&h, l);
	l = hostdata_launch(&h, pid, 0, 1, 5, 7, 95 * MS); /* read ahead */
	ck_assert(!l->tracked && l->has_api);
	ck_assert_uint_eq(l->api_conn, 5);
	hostdata_release(&h, l);
	l = hostdata_launch(&h, pid, 0, 2, 3, 7, 103 * MS);
	ck_assert(l->tracked);
	ck_assert_uint_eq(l->tr.r.connection_id, 103);
	hostdata_release(&h, l);
	ck_assert_int_eq(hostdata_drain(&h), 0);
	ck_assert_uint_eq(g_api_calls, 5);
	ck_assert_uint_eq(g_api_conn_sum, 15);
	hostdata_free(&h);
	rm_dir(dir);
}
END_TEST

/* Records out of time order on one thread: a launch's compute op written
 * after its (long) runtime-level API ended, and API calls recorded ahead of
 * their time (npuwork's replay): neither holds the track, the compute op
 * or the thread's other records back. */
START_TEST(test_stream_api_out_of_order)
{
	char dir[] = "/tmp/npuprof-test-hostdata-XXXXXX", err[512];
	struct hostdata h;
	const struct hostdata_launch *l;
	const struct hostdata_compute *c;
	uint32_t pid = (uint32_t)getpid();

	start_in(dir, 0);
	/* replayed: the calls first, with their (future) times */
	api(NPUPROF_API_ACL, 10 * MS, 900 * MS, 1);
	api(NPUPROF_API_NODE, 20 * MS, 30 * MS, 2);
	api(NPUPROF_API_NODE, 40 * MS, 800 * MS, 3);
	/* launch at 25 ms: track, its runtime call ending 500 ms later, then
	 * its compute op */
	track(1, 1, 25 * MS, 11);
	api(NPUPROF_API_RUNTIME, 24 * MS, 525 * MS, 4);
	compute(1, 1, 0, 21);
	ck_assert_int_eq(npuprof_hostrec_stop(), 0);

	ck_assert_int_eq(hostdata_open(&h, dir, 0, stderr, err, sizeof(err)), 0);
	l = hostdata_launch(&h, pid, 0, 1, 1, 7, 25 * MS + 100000);
	ck_assert(l->tracked);
	ck_assert_uint_eq(l->tr.r.connection_id, 11);
	c = hostdata_compute(&h, pid, 0, 1, 1, 0);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(hostdata_op_strings(&h, c)->name_id, 21);
	hostdata_release(&h, l);
	/* uninstrumented: the innermost call open, in whatever order recorded */
	l = hostdata_launch(&h, pid, 0, 2, 1, 7, 26 * MS);
	ck_assert(!l->tracked && l->has_api);
	ck_assert_uint_eq(l->api_conn, 2);
	hostdata_release(&h, l);
	l = hostdata_launch(&h, pid, 0, 2, 2, 7, 35 * MS);
	ck_assert(!l->tracked && l->has_api);
	ck_assert_uint_eq(l->api_conn, 1);
	hostdata_release(&h, l);
	l = hostdata_launch(&h, pid, 0, 2, 3, 7, 45 * MS);
	ck_assert(!l->tracked && l->has_api);
	ck_assert_uint_eq(l->api_conn, 3);
	hostdata_release(&h, l);
	hostdata_free(&h);
	rm_dir(dir);
}
END_TEST

/* Stamps with TSC times (NPUPROF_HOST_CLOCK=tsc where the host can) reach
 * the index as converted copies outside the file's mapping, between the
 * per-task records of the same blocks: the blocks' ranges stay right. */
START_TEST(test_stream_tsc_stamps)
{
	char dir[] = "/tmp/npuprof-test-hostdata-XXXXXX", err[512], sess[4096];
	struct hostdata h;
	uint32_t pid = (uint32_t)getpid();
	const uint64_t n = 3000;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	pid_t child = fork();

	ck_assert_int_ge(child, 0);
	if (child == 0) {
		/* msproftx on through an ACL session (the process's one) */
		aclprofConfig *pc;

		setenv("NPUPROF_HOST_CLOCK", "tsc", 1);
		if (aclprofInit(dir, strlen(dir)) != ACL_SUCCESS)
			_exit(10);
		pc = aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL, ACL_PROF_MSPROFTX);
		if (!pc || aclprofStart(pc) != ACL_SUCCESS)
			_exit(11);
		for (uint64_t i = 0; i < n; i++) {
			track(1, (uint32_t)i, MS + i * 1000, i);
			mstxMarkA("m", NULL);
			compute(1, (uint32_t)i, 0, 1000 + i);
		}
		if (aclprofStop(pc) != ACL_SUCCESS || aclprofFinalize() != ACL_SUCCESS)
			_exit(12);
		_exit(0);
	}
	int status;

	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	pid = (uint32_t)child;
	/* the session: DIR/<session>/host/data/<stream> */
	snprintf(sess, sizeof(sess), "%s", tu_find_stream(dir));
	for (int k = 0; k < 3; k++)
		*strrchr(sess, '/') = '\0';

	ck_assert_int_eq(hostdata_open(&h, sess, 0, stderr, err, sizeof(err)), 0);
	ck_assert_uint_eq(h.damaged_files, 0);
	ck_assert_uint_eq(h.ntx, n);
	for (uint64_t i = 0; i < n; i++) {
		const struct hostdata_launch *l = hostdata_launch(&h, pid, 0, 1, (uint32_t)i, 7,
								  MS + i * 1000 + 50);
		const struct hostdata_compute *c;

		ck_assert(l && l->tracked);
		ck_assert_uint_eq(l->tr.r.connection_id, i);
		c = hostdata_compute(&h, pid, 0, 1, (uint32_t)i, 0);
		ck_assert_ptr_nonnull(c);
		ck_assert_uint_eq(hostdata_op_strings(&h, c)->name_id, 1000 + i);
		hostdata_release(&h, l);
	}
	hostdata_free(&h);
	rm_dir(dir);
}
END_TEST

/* ---- the two engines agree ------------------------------------------------
 * The same session read by both engines gives the same records: every API
 * call, every task track, and each track's compute op, as multisets (the
 * whole loader in file order, the merge in time order). */
struct seen {
	const struct hostdata *h;
	uint64_t v[512][5];
	size_t n;
};

static int cmp_seen(const void *a, const void *b)
{
	return memcmp(a, b, 5 * sizeof(uint64_t));
}

static void seen_api(void *ctx, const struct hostdata_api *a)
{
	struct seen *s = ctx;

	ck_assert_uint_lt(s->n, 512);
	memcpy(s->v[s->n++],
	       (uint64_t[5]){ 1ULL << 62 | a->pid, a->r.tid << 8 | a->r.level, a->r.start_ns,
			      a->r.end_ns, a->r.connection_id },
	       sizeof(s->v[0]));
}

static void seen_task(void *ctx, const struct hostdata_track *t)
{
	struct seen *s = ctx;
	const struct hostdata_compute *c = hostdata_compute(s->h, t->pid, t->r.device_id,
							    t->r.stream_id, t->r.task_id,
							    t->r.batch_id);

	ck_assert_uint_lt(s->n, 512);
	memcpy(s->v[s->n++],
	       (uint64_t[5]){ (uint64_t)t->pid << 32 | t->r.tid,
			      (uint64_t)t->r.stream_id << 16 | t->r.task_id, t->r.time_ns,
			      t->r.connection_id, c ? hostdata_op_strings(s->h, c)->name_id : 0 },
	       sizeof(s->v[0]));
}

START_TEST(test_engines_agree)
{
	char dir[] = "/tmp/npuprof-test-hostdata-XXXXXX", err[512];
	static struct seen whole, merged;
	struct hostdata h;
	const struct hostdata_whole *w;
	size_t nc = 0;

	start_in(dir, 0);
	for (uint32_t i = 0; i < 60; i++) {
		uint64_t t0 = (10 + 3 * i) * MS, conn = 100 + i;

		track(1 + i % 3, i / 3, t0 + MS, conn);
		if (i % 4)
			compute(1 + i % 3, i / 3, 0, conn); /* one in four has none */
		api(NPUPROF_API_ACL, t0, t0 + 2 * MS, conn);
	}
	ck_assert_int_eq(npuprof_hostrec_stop(), 0);

	memset(&whole, 0, sizeof(whole));
	memset(&merged, 0, sizeof(merged));
	ck_assert_int_eq(hostdata_load(&h, dir, stderr, err, sizeof(err)), 0);
	w = hostdata_whole(&h);
	ck_assert_ptr_nonnull(w);
	whole.h = &h;
	for (size_t i = 0; i < h.napi; i++)
		seen_api(&whole, &h.api[i]);
	for (size_t i = 0; i < w->ntrack; i++)
		seen_task(&whole, &w->track[i]);
	for (size_t i = 0; i < whole.n; i++)
		nc += !(whole.v[i][0] >> 62) && whole.v[i][4]; /* a track with its op */
	hostdata_free(&h);
	ck_assert_uint_eq(whole.n, 120);
	ck_assert_uint_eq(nc, 45); /* the lookups found what was recorded */

	ck_assert_int_eq(hostdata_open(&h, dir, 0, stderr, err, sizeof(err)), 0);
	ck_assert_ptr_null(hostdata_whole(&h));
	merged.h = &h;
	ck_assert_int_eq(hostdata_rewind(&h, seen_api, seen_task, &merged), 0);
	ck_assert_int_eq(hostdata_drain(&h), 0);
	hostdata_free(&h);

	ck_assert_uint_eq(merged.n, whole.n);
	qsort(whole.v, whole.n, sizeof(whole.v[0]), cmp_seen);
	qsort(merged.v, merged.n, sizeof(merged.v[0]), cmp_seen);
	for (size_t i = 0; i < whole.n; i++)
		ck_assert_msg(!memcmp(whole.v[i], merged.v[i], sizeof(whole.v[0])),
			      "record %zu differs between the engines", i);
	rm_dir(dir);
}
END_TEST

/* Two threads' tracks, their blocks interleaved in one file: the merge
 * reads each thread's blocks a span at a time (several blocks and the
 * other thread's between them in one read) and hands every track over
 * once; after the file is cut short the merge is damaged, warned, and
 * hands over the tracks before the cut, each thread's from its first. */
#define SPAN_TRACKS 20000
static void *span_thread(void *arg)
{
	uint32_t k = (uint32_t)(uintptr_t)arg;

	for (uint32_t i = 0; i < SPAN_TRACKS; i++)
		track(1 + k, i, 10 * MS + i * 1000ULL + k, (uint64_t)k << 32 | i);
	return NULL;
}

static char g_host_file[4200];
static int find_host_file(const char *path, const struct stat *sb, int type, struct FTW *f)
{
	(void)sb;
	if (type == FTW_F && strstr(path + f->base, "npuprof.host.") == path + f->base)
		snprintf(g_host_file, sizeof(g_host_file), "%s", path);
	return 0;
}

static uint32_t g_span_next[2];
static uint64_t g_span_seen;
static void span_task(void *ctx, const struct hostdata_track *t)
{
	uint32_t k = (uint32_t)(t->r.connection_id >> 32);

	(void)ctx;
	ck_assert_uint_lt(k, 2);
	/* each thread's tracks in order, none missing before the last seen */
	ck_assert_uint_eq((uint32_t)t->r.connection_id, g_span_next[k]);
	g_span_next[k]++;
	g_span_seen++;
}

START_TEST(test_stream_spans_and_shrink)
{
	char dir[] = "/tmp/npuprof-test-hostdata-XXXXXX", err[512];
	struct hostdata h;
	pthread_t th[2];
	struct stat sb;

	/* rings that hold every record: the test is about the reader, not
	 * about how fast the writer thread drains (a loaded machine let a
	 * 1 MiB ring fill and drop a record) */
	start_in(dir, 4u << 20);
	for (uintptr_t k = 0; k < 2; k++)
		ck_assert_int_eq(pthread_create(&th[k], NULL, span_thread, (void *)k), 0);
	for (int k = 0; k < 2; k++)
		pthread_join(th[k], NULL);
	ck_assert_int_eq(npuprof_hostrec_stop(), 0);
	g_host_file[0] = 0;
	ck_assert_int_eq(nftw(dir, find_host_file, 8, FTW_PHYS), 0);
	ck_assert_msg(g_host_file[0], "no host stream in %s", dir);

	ck_assert_int_eq(hostdata_open(&h, dir, 0, stderr, err, sizeof(err)), 0);
	g_span_next[0] = g_span_next[1] = 0;
	g_span_seen = 0;
	ck_assert_int_eq(hostdata_rewind(&h, NULL, span_task, NULL), 0);
	ck_assert_int_eq(hostdata_drain(&h), 0);
	ck_assert_uint_eq(g_span_seen, 2 * SPAN_TRACKS);
	ck_assert_uint_eq(h.damaged_files, 0);

	/* cut short after the index was made: read again, it is damaged */
	ck_assert_int_eq(stat(g_host_file, &sb), 0);
	ck_assert_int_eq(truncate(g_host_file, sb.st_size / 2), 0);
	g_span_next[0] = g_span_next[1] = 0;
	g_span_seen = 0;
	ck_assert_int_eq(hostdata_rewind(&h, NULL, span_task, NULL), 0);
	ck_assert_int_eq(hostdata_drain(&h), 0);
	ck_assert_uint_gt(h.damaged_files, 0);
	ck_assert_uint_gt(g_span_seen, SPAN_TRACKS / 2);
	ck_assert_uint_lt(g_span_seen, 2 * SPAN_TRACKS);
	hostdata_free(&h);
	rm_dir(dir);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("hostdata");
	TCase *tc = tcase_create("indexes");

	tcase_add_test(tc, test_track_order_and_details);
	tcase_add_test(tc, test_stream_wrap);
	tcase_add_test(tc, test_stream_enclosing);
	tcase_add_test(tc, test_stream_api_out_of_order);
	tcase_add_test(tc, test_stream_tsc_stamps);
	tcase_add_test(tc, test_engines_agree);
	tcase_add_test(tc, test_stream_spans_and_shrink);
	suite_add_tcase(s, tc);
	return s;
}
