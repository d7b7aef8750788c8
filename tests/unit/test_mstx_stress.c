/*
 * test_mstx_stress.c - 8 threads x 100,000 iterations of nested
 * aclprofPush/aclprofPop plus ranges started on one thread and stopped on the
 * next, all decoded back from the raw host stream and checked record by
 * record: messages, thread ids, per-thread order and nesting, start <= end,
 * and nothing lost. Every fourth iteration each thread also writes an mstx
 * mark and two nested host-only mstx ranges (the outer in the default
 * domain, the inner in a created one), checked the same way: program order,
 * nesting, domains, and mark ids unique across all threads.
 *
 * STRESS_ITERS overrides the iteration count (for slow runs under valgrind).
 */
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "hostrec_testutil.h"
#include "hostrec.h"
#include "mstx/ms_tools_ext.h"
#include "npuprof/hostread.h"
#include "u64map.h"

#define NTHREADS 8
#define RANGE_SLOTS 8 /* ranges in flight per thread; 8 x (8 + 2) stamps <= 100 */

static long g_iters = 100000;

struct worker {
	int idx;
	uint32_t tid;
	void *outer, *inner;
	void *range_stamp[RANGE_SLOTS];
	uint32_t range_id[RANGE_SLOTS];
	_Atomic int slot_busy[RANGE_SLOTS];
	/* SPSC mailbox of slot numbers to the next thread, which stops them */
	_Atomic uint32_t mb_head, mb_tail;
	int mb[RANGE_SLOTS];
	long ranges_started;
	long mstx_iters;
	char mstx_msg[3][32]; /* mark, outer range, inner range */
	long failures;
};

static mstxDomainHandle_t g_dom;

static struct worker g_w[NTHREADS];
static _Atomic long g_inflight;
static _Atomic int g_done;
static pthread_barrier_t g_barrier;

static void stop_inbound(struct worker *self)
{
	struct worker *from = &g_w[(self->idx + NTHREADS - 1) % NTHREADS];
	uint32_t t = atomic_load_explicit(&from->mb_tail, memory_order_relaxed);

	while (t != atomic_load_explicit(&from->mb_head, memory_order_acquire)) {
		int slot = from->mb[t % RANGE_SLOTS];

		if (aclprofRangeStop(from->range_id[slot]) != 0)
			self->failures++;
		t++;
		atomic_store_explicit(&from->mb_tail, t, memory_order_release);
		atomic_store_explicit(&from->slot_busy[slot], 0, memory_order_release);
		atomic_fetch_sub(&g_inflight, 1);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	w->tid = (uint32_t)syscall(SYS_gettid);
	pthread_barrier_wait(&g_barrier);
	for (long i = 0; i < g_iters; i++) {
		int slot = (int)(i % RANGE_SLOTS);

		if (aclprofPush(w->outer) || aclprofPush(w->inner) || aclprofPop() || aclprofPop())
			w->failures++;
		if (!atomic_load_explicit(&w->slot_busy[slot], memory_order_acquire)) {
			uint32_t id, h = atomic_load_explicit(&w->mb_head, memory_order_relaxed);

			atomic_store_explicit(&w->slot_busy[slot], 1, memory_order_relaxed);
			if (aclprofRangeStart(w->range_stamp[slot], &id) || id != w->range_id[slot])
				w->failures++;
			atomic_fetch_add(&g_inflight, 1);
			w->mb[h % RANGE_SLOTS] = slot;
			atomic_store_explicit(&w->mb_head, h + 1, memory_order_release);
			w->ranges_started++;
		}
		stop_inbound(w);
		if ((i & 3) == 0) {
			mstxRangeId o, in;

			mstxMarkA(w->mstx_msg[0], NULL);
			o = mstxRangeStartA(w->mstx_msg[1], NULL);
			in = mstxDomainRangeStartA(g_dom, w->mstx_msg[2], NULL);
			if (o == MSTX_INVALID_ID || in == MSTX_INVALID_ID || o == in)
				w->failures++;
			mstxDomainRangeEnd(g_dom, in);
			mstxRangeEnd(o);
			w->mstx_iters++;
		}
	}
	/* Keep stopping until no thread can start another range. */
	atomic_fetch_add(&g_done, 1);
	while (atomic_load(&g_done) < NTHREADS || atomic_load(&g_inflight) > 0) {
		stop_inbound(w);
		sched_yield();
	}
	return NULL;
}

/* ---- checking the decoded stream --------------------------------------------- */

struct tcheck {
	/* mstx: position in mark, outer start, inner start, inner end, outer end */
	int mstx_state;
	long mstx_seq;
	uint64_t outer_id, inner_id, outer_start, inner_start_ns, inner_end_ns;
	long push_pop;
	long ranges_stopped;
	int have_inner;
	uint64_t inner_start, inner_end, last_outer_end;
};

struct verify {
	struct tcheck t[NTHREADS];
	char outer_msg[NTHREADS][32], inner_msg[NTHREADS][32];
	char range_msg[100][32];
	int range_owner[100];
	uint64_t default_hash, dom_hash;
	struct u64map ids; /* mstx mark ids seen */
	struct u64map hashes, used; /* HASH record ids; message ids the records used */
	long errors;
	char first_error[256];
};

static int tidx(uint32_t tid)
{
	for (int i = 0; i < NTHREADS; i++)
		if (g_w[i].tid == tid)
			return i;
	return -1;
}

static void note_bad(struct verify *v, const char *what, long a)
{
	if (v->errors++ == 0)
		snprintf(v->first_error, sizeof(v->first_error), "%s (%ld)", what, a);
}

static void mstx_new_id(struct verify *v, uint64_t id)
{
	if (id == 0 || u64map_get(&v->ids, id, NULL))
		note_bad(v, "mstx mark id reused", (long)id);
	else if (u64map_put(&v->ids, id, 1) < 0)
		note_bad(v, "out of memory", 0);
}

/* The event's message is `want`: inline, or named by its id (which a HASH
 * record of the stream must resolve: checked at the end). */
static const struct npuprof_hostread_tx *g_ev;
static int msg_differs(struct verify *v, const char *want)
{
	uint64_t id;

	if (g_ev->message)
		return strcmp(g_ev->message, want) != 0;
	id = npuprof_str2id_hash(want, strlen(want));
	if (u64map_put(&v->used, g_ev->msg_id, 1) < 0)
		note_bad(v, "out of memory", 0);
	return g_ev->msg_id != id;
}

/* One thread's mstx records, in program order (hostfmt.h: range halves). */
static int verify_mstx(struct verify *v, int i, const struct npuprof_hostfmt_tx *x)
{
	struct tcheck *t = &v->t[i];
	const struct worker *w = &g_w[i];
	int start_half = x->event_type == NPUPROF_TX_START_STOP && x->end_ns == 0 && x->start_ns;
	int end_half = x->event_type == NPUPROF_TX_START_STOP && x->start_ns == 0 && x->end_ns;

	if (x->start_tid != x->tid || x->category != UINT32_MAX)
		note_bad(v, "mstx record fields", i);
	switch (t->mstx_state) {
	case 0:
		if (x->event_type != NPUPROF_TX_MARK || x->start_ns != x->end_ns ||
		    msg_differs(v, w->mstx_msg[0]) || x->domain != v->default_hash)
			note_bad(v, "mstx mark", t->mstx_seq);
		mstx_new_id(v, x->mark_id);
		break;
	case 1:
		if (!start_half || msg_differs(v, w->mstx_msg[1]) || x->domain != v->default_hash)
			note_bad(v, "mstx outer start", t->mstx_seq);
		mstx_new_id(v, x->mark_id);
		t->outer_id = x->mark_id;
		t->outer_start = x->start_ns;
		break;
	case 2:
		if (!start_half || msg_differs(v, w->mstx_msg[2]) || x->domain != v->dom_hash ||
		    x->start_ns < t->outer_start)
			note_bad(v, "mstx inner start", t->mstx_seq);
		mstx_new_id(v, x->mark_id);
		t->inner_id = x->mark_id;
		t->inner_start_ns = x->start_ns;
		break;
	case 3:
		if (!end_half || x->mark_id != t->inner_id || x->msg_len != 0 ||
		    x->end_ns < t->inner_start_ns)
			note_bad(v, "mstx inner end", t->mstx_seq);
		t->inner_end_ns = x->end_ns;
		break;
	case 4:
		if (!end_half || x->mark_id != t->outer_id || x->end_ns < t->inner_end_ns)
			note_bad(v, "mstx outer end", t->mstx_seq);
		t->mstx_seq++;
		break;
	}
	t->mstx_state = (t->mstx_state + 1) % 5;
	return 0;
}

static int verify_cb(void *ctx, const struct npuprof_hostfmt_block_header *b,
		     const struct npuprof_hostfmt_header *r)
{
	struct verify *v = ctx;
	struct npuprof_hostread_tx ev;
	const struct npuprof_hostfmt_tx *x = &ev.r;
	int i;

	if (r->kind == NPUPROF_HOSTFMT_HASH &&
	    u64map_put(&v->hashes, ((const struct npuprof_hostfmt_hash *)r)->id, 1) < 0)
		note_bad(v, "out of memory", 0);
	/* TX records and their compact forms (hostfmt.h) */
	if (!npuprof_hostread_tx_event(b, r, &ev))
		return 0;
	g_ev = &ev;
	i = tidx(x->tid);
	if (i < 0) {
		note_bad(v, "unknown thread id", x->tid);
		return 0;
	}
	if (b->tid != x->tid)
		note_bad(v, "record in another thread's block", x->tid);
	if (x->info_type == 1)
		return verify_mstx(v, i, x);
	if (x->start_ns > x->end_ns)
		note_bad(v, "start after end", i);
	if (x->event_type == NPUPROF_TX_PUSH_POP) {
		struct tcheck *t = &v->t[i];

		if (x->start_tid != x->tid)
			note_bad(v, "push/pop across threads", i);
		if (!t->have_inner) {
			if (msg_differs(v, v->inner_msg[i]) || x->start_ns < t->last_outer_end)
				note_bad(v, "inner pop out of order", t->push_pop);
			t->inner_start = x->start_ns;
			t->inner_end = x->end_ns;
			t->have_inner = 1;
		} else {
			if (msg_differs(v, v->outer_msg[i]) || x->start_ns > t->inner_start ||
			    x->end_ns < t->inner_end)
				note_bad(v, "outer pop does not enclose inner", t->push_pop);
			t->last_outer_end = x->end_ns;
			t->have_inner = 0;
		}
		t->push_pop++;
	} else if (x->event_type == NPUPROF_TX_START_STOP) {
		int starter = tidx(x->start_tid);

		if (x->range_id >= 100 || v->range_owner[x->range_id] != starter) {
			note_bad(v, "range id of another thread", (long)x->range_id);
			return 0;
		}
		if (starter != (i + NTHREADS - 1) % NTHREADS)
			note_bad(v, "range stopped by the wrong thread", i);
		if (msg_differs(v, v->range_msg[x->range_id]))
			note_bad(v, "range message", (long)x->range_id);
		v->t[starter].ranges_stopped++;
	} else {
		note_bad(v, "unexpected event type", x->event_type);
	}
	return 0;
}

START_TEST(test_stress)
{
	char *dir = tu_tmpdir();
	aclprofConfig *c;
	pthread_t th[NTHREADS];
	struct verify *v = calloc(1, sizeof(*v));
	struct npuprof_hostread_decode_stats st;
	struct npuprof_hostread_file_info info;
	struct npuprof_hostrec_stats rs;
	char err[512];
	const char *it = getenv("STRESS_ITERS");
	long total_ranges = 0;
	char run_dir[4200];
	int r;

	if (it && atol(it) > 0)
		g_iters = atol(it);
	/* Rings big enough for a thread's whole output, so that the outcome
     * does not depend on scheduling; a short flush interval keeps the writer
     * draining while the producers run. */
	setenv("NPUPROF_BUFFER_SIZE", "67108864", 1);
	setenv("NPUPROF_FLUSH_INTERVAL_MS", "10", 1);
	snprintf(run_dir, sizeof(run_dir), "%s/run", dir);
	ck_assert_int_eq(aclprofInit(dir, strlen(dir)), ACL_SUCCESS);
	c = aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL, ACL_PROF_MSPROFTX);
	ck_assert_int_eq(aclprofStart(c), ACL_SUCCESS);

	for (int i = 0; i < 100; i++)
		v->range_owner[i] = -1;
	u64map_init(&v->ids);
	u64map_init(&v->used);
	u64map_init(&v->hashes);
	v->default_hash = npuprof_str2id_hash("default", 7);
	v->dom_hash = npuprof_str2id_hash("stress_domain", 13);
	g_dom = mstxDomainCreateA("stress_domain");
	ck_assert_ptr_nonnull(g_dom);
	ck_assert_ptr_eq(mstxDomainCreateA("stress_domain"), g_dom);
	for (int i = 0; i < NTHREADS; i++) {
		struct worker *w = &g_w[i];

		w->idx = i;
		snprintf(w->mstx_msg[0], 32, "t%d-mstx-mark", i);
		snprintf(w->mstx_msg[1], 32, "t%d-mstx-outer", i);
		snprintf(w->mstx_msg[2], 32, "t%d-mstx-inner", i);
		snprintf(v->outer_msg[i], 32, "t%d-outer", i);
		snprintf(v->inner_msg[i], 32, "t%d-inner", i);
		w->outer = aclprofCreateStamp();
		w->inner = aclprofCreateStamp();
		ck_assert_int_eq(aclprofSetStampTraceMessage(w->outer, v->outer_msg[i],
							     (uint32_t)strlen(v->outer_msg[i])),
				 0);
		ck_assert_int_eq(aclprofSetStampTraceMessage(w->inner, v->inner_msg[i],
							     (uint32_t)strlen(v->inner_msg[i])),
				 0);
		for (int j = 0; j < RANGE_SLOTS; j++) {
			char m[32];
			uint32_t id;

			w->range_stamp[j] = aclprofCreateStamp();
			ck_assert_ptr_nonnull(w->range_stamp[j]);
			snprintf(m, sizeof(m), "t%d-range%d", i, j);
			ck_assert_int_eq(aclprofSetStampTraceMessage(w->range_stamp[j], m,
								     (uint32_t)strlen(m)),
					 0);
			/* learn the stamp's range id (its pool index) up front */
			ck_assert_int_eq(aclprofRangeStart(w->range_stamp[j], &id), 0);
			w->range_id[j] = id;
			ck_assert_uint_lt(id, 100);
			v->range_owner[id] = i;
			snprintf(v->range_msg[id], 32, "%s", m);
		}
	}
	/* Those RangeStarts were never stopped: collect afresh into run_dir so
     * that only the threads' records are in the stream. The stamps stay
     * valid: a pool in use survives aclprofFinalize. */
	ck_assert_int_eq(aclprofStop(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofFinalize(), ACL_SUCCESS);
	ck_assert_int_eq(aclprofInit(run_dir, strlen(run_dir)), ACL_SUCCESS);
	ck_assert_int_eq(aclprofStart(c), ACL_SUCCESS);

	pthread_barrier_init(&g_barrier, NULL, NTHREADS);
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, worker_main, &g_w[i]);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&g_barrier);
	for (int i = 0; i < NTHREADS; i++) {
		ck_assert_int_eq(g_w[i].failures, 0);
		ck_assert_int_gt(g_w[i].ranges_started, 0);
		total_ranges += g_w[i].ranges_started;
		aclprofDestroyStamp(g_w[i].outer);
		aclprofDestroyStamp(g_w[i].inner);
		for (int j = 0; j < RANGE_SLOTS; j++)
			aclprofDestroyStamp(g_w[i].range_stamp[j]);
	}
	npuprof_hostrec_get_stats(&rs);
	ck_assert_uint_eq(rs.lost, 0);
	ck_assert_int_eq(aclprofStop(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofDestroyConfig(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofFinalize(), ACL_SUCCESS);

	r = npuprof_hostread_decode(tu_find_stream(run_dir), verify_cb, v, &info, &st, err,
				    sizeof(err));
	ck_assert_msg(r == 0, "decode: %d %s", r, err);
	ck_assert_msg(v->errors == 0, "%ld bad records, first: %s", v->errors, v->first_error);
	ck_assert_uint_eq(st.lost, 0);
	ck_assert_int_eq(st.closed, 1);
	ck_assert_uint_eq(info.header.pid, (uint32_t)getpid());
	for (int i = 0; i < NTHREADS; i++) {
		ck_assert_int_eq(v->t[i].push_pop, 2 * g_iters);
		ck_assert_int_eq(v->t[i].have_inner, 0);
		ck_assert_int_eq(v->t[i].ranges_stopped, g_w[i].ranges_started);
		ck_assert_int_eq(v->t[i].mstx_seq, g_w[i].mstx_iters);
		ck_assert_int_eq(v->t[i].mstx_state, 0);
		ck_assert_int_eq(g_w[i].mstx_iters, (g_iters + 3) / 4);
	}
	ck_assert_uint_eq(v->ids.len, (size_t)NTHREADS * 3 * (size_t)((g_iters + 3) / 4));
	/* the stamps name their messages by id, and the second collection's
	 * stream holds them all (its start re-writes the dictionary) */
	ck_assert_uint_gt(v->used.len, 0);
	{
		uint64_t id;

		for (size_t pos = 0; u64map_next(&v->used, &pos, &id, NULL);)
			ck_assert_msg(u64map_get(&v->hashes, id, NULL),
				      "message id %llx has no HASH record", (unsigned long long)id);
	}
	u64map_free(&v->ids);
	u64map_free(&v->used);
	u64map_free(&v->hashes);
	mstxDomainDestroy(g_dom);
	fprintf(stderr,
		"stress: %ld push/pop, %ld cross-thread ranges, %ld mstx marks+range pairs "
		"decoded, %llu blocks\n",
		2 * g_iters * NTHREADS, total_ranges, NTHREADS * ((g_iters + 3) / 4),
		(unsigned long long)st.blocks);
	tu_rm_rf(dir);
	free(dir);
	free(v);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("mstx_stress");
	TCase *tc = tcase_create("threads");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_stress);
	suite_add_tcase(s, tc);
	return s;
}
