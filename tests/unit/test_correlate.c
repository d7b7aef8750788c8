/*
 * test_correlate.c - the correlator (user/export/correlate.h) on its own:
 * the paths the export takes without a lookup (a task-time record of its
 * stream's oldest task, streams found in the stream cache) give the same
 * tasks as the lookups they replace, in the cases that leave the fast path:
 * completions out of order, lost task-time records, a key submitted again
 * while in flight, orphans, 16-bit id wraps, and more streams than the
 * cache has slots, colliding in it.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "correlate.h"

#define MAXT 4096

struct got {
	struct corr_task t[MAXT];
	int n;
};

static int on_done(void *ctx, const struct corr_task *t)
{
	struct got *g = ctx;

	ck_assert_int_lt(g->n, MAXT);
	g->t[g->n++] = *t;
	return 0;
}

static void start(struct correlator *c, struct got *g, int task_time)
{
	memset(c, 0, sizeof(*c));
	memset(g, 0, sizeof(*g));
	/* device 0 counts 1 tick per ns from host 1000 */
	corr_clock_add(&c->clock[0], 1000, 0, 1000000000ULL);
	corr_clock_add(&c->clock[0], 1001000, 1000000, 1000000000ULL);
	corr_clock_fit(&c->clock[0]);
	c->task_time[0] = task_time;
	corr_init(c, NULL, on_done, g);
}

static void submit(struct correlator *c, uint32_t stream, uint32_t task, uint64_t ts)
{
	struct npuprof_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = NPUPROF_REC_SUBMIT;
	r.hdr.ts = ts;
	r.hdr.pid = 7;
	r.hdr.tid = 8;
	r.submit.stream_id = stream;
	r.submit.task_id = task;
	ck_assert_int_eq(corr_feed(c, &r), 0);
}

/* device times start..end in ticks (host ns - 1000) */
static void task_time(struct correlator *c, uint32_t stream, uint32_t task, uint64_t start,
		      uint64_t end)
{
	struct npuprof_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = NPUPROF_REC_TASK_TIME;
	r.hdr.ts = end + 1000;
	r.task_time.stream_id = stream;
	r.task_time.task_id = task;
	r.task_time.start_cnt = start;
	r.task_time.end_cnt = end;
	ck_assert_int_eq(corr_feed(c, &r), 0);
}

static void complete(struct correlator *c, uint32_t stream, uint32_t task, uint64_t ts)
{
	struct npuprof_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = NPUPROF_REC_COMPLETE;
	r.hdr.ts = ts;
	r.complete.stream_id = stream;
	r.complete.task_id = task;
	ck_assert_int_eq(corr_feed(c, &r), 0);
}

/* A submit or CQE of SQ 3 of stream 0 that says the SQ's head and, for a
 * submit, its tail after the SQE. */
static void sq_rec(struct correlator *c, int type, uint32_t task, uint64_t ts, uint32_t head,
		   uint32_t tail)
{
	struct npuprof_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = (uint16_t)type;
	r.hdr.ts = ts;
	if (type == NPUPROF_REC_SUBMIT) {
		r.submit.sq_id = 3;
		r.submit.task_id = task;
		r.submit.sq_head = head;
		r.submit.sq_tail = tail;
	} else {
		r.complete.sq_id = 3;
		r.complete.task_id = task;
		r.complete.sq_head = head;
	}
	ck_assert_int_eq(corr_feed(c, &r), 0);
}

/* As a 910B completes, most tasks write no CQE: on a device without task
 * times the SQ head of later submits and CQEs retires them (the task whose
 * submit left the tail there and every earlier one), with derived times
 * ending at that record; a head that names no task in flight retires
 * nothing; a device with task times leaves retiring to them. */
START_TEST(test_sq_head_retires)
{
	struct correlator c;
	static struct got g;

	start(&c, &g, 0);
	sq_rec(&c, NPUPROF_REC_SUBMIT, 1, 2000, 0, 1); /* positions 0, 1, 2 */
	sq_rec(&c, NPUPROF_REC_SUBMIT, 2, 2100, 0, 2);
	sq_rec(&c, NPUPROF_REC_SUBMIT, 3, 2200, 0, 3);
	ck_assert_int_eq(g.n, 0);
	sq_rec(&c, NPUPROF_REC_SUBMIT, 4, 2300, 2, 4); /* 1 and 2 consumed */
	ck_assert_int_eq(g.n, 2);
	ck_assert_uint_eq(g.t[0].task, 1);
	ck_assert_uint_eq(g.t[1].task, 2);
	ck_assert_int_eq(g.t[1].derived, 1);
	ck_assert_uint_eq(g.t[0].start_ns, 2000);
	ck_assert_uint_eq(g.t[1].start_ns, 2300);
	ck_assert_uint_eq(g.t[1].end_ns, 2300);
	sq_rec(&c, NPUPROF_REC_SUBMIT, 5, 2400, 9, 5); /* names nothing in flight */
	ck_assert_int_eq(g.n, 2);
	/* task 5's CQE (a place holder): it and everything before it */
	sq_rec(&c, NPUPROF_REC_COMPLETE, 5, 2600, 5, 0);
	ck_assert_int_eq(g.n, 5);
	ck_assert_uint_eq(g.t[4].task, 5);
	ck_assert_uint_eq(g.t[4].end_ns, 2600);
	sq_rec(&c, NPUPROF_REC_SUBMIT, 6, 2700, 5, 6);
	sq_rec(&c, NPUPROF_REC_SUBMIT, 7, 2800, 5, 0); /* the ring's last slot */
	sq_rec(&c, NPUPROF_REC_SUBMIT, 8, 2900, 0, 1); /* consumed both */
	ck_assert_int_eq(g.n, 7);
	ck_assert_uint_eq(g.t[6].task, 7);
	corr_finish(&c);
	ck_assert_uint_eq(c.stats.in_flight, 1);
	ck_assert_uint_eq(c.stats.orphans, 0);

	start(&c, &g, 1); /* the device's log times its tasks */
	sq_rec(&c, NPUPROF_REC_SUBMIT, 1, 2000, 0, 1);
	sq_rec(&c, NPUPROF_REC_SUBMIT, 2, 2100, 1, 2);
	ck_assert_int_eq(g.n, 0);
	corr_finish(&c);
	ck_assert_uint_eq(c.stats.in_flight, 2);
}
END_TEST

START_TEST(test_in_order_times)
{
	struct correlator c;
	static struct got g;

	start(&c, &g, 1);
	for (uint32_t i = 0; i < 100; i++) {
		submit(&c, i % 3, i, 2000 + 10 * i);
		task_time(&c, i % 3, i, 5000 + 10 * i, 5005 + 10 * i);
	}
	ck_assert_int_eq(g.n, 100);
	for (int i = 0; i < 100; i++) {
		ck_assert_uint_eq(g.t[i].task, i);
		ck_assert_uint_eq(g.t[i].stream, i % 3);
		ck_assert_uint_eq(g.t[i].gtid, i);
		ck_assert_uint_eq(g.t[i].submit_ns, 2000 + 10 * i);
		ck_assert_uint_eq(g.t[i].start_ns, 6000 + 10 * i);
		ck_assert_uint_eq(g.t[i].end_ns, 6005 + 10 * i);
		ck_assert_int_eq(g.t[i].derived, 0);
		ck_assert_int_eq(g.t[i].orphan, 0);
		ck_assert_uint_eq(g.t[i].pid, 7);
	}
	corr_finish(&c);
	ck_assert_uint_eq(c.stats.in_flight, 0);
}
END_TEST

/* A task-time record of a task that is not its stream's oldest: the
 * older ones lost theirs and are derived, in order, before it. */
START_TEST(test_lost_task_time_derives_older)
{
	struct correlator c;
	static struct got g;

	start(&c, &g, 1);
	submit(&c, 1, 10, 2000);
	submit(&c, 1, 11, 2100);
	submit(&c, 1, 12, 2200);
	task_time(&c, 1, 12, 4000, 4500);
	ck_assert_int_eq(g.n, 3);
	ck_assert_uint_eq(g.t[0].task, 10);
	ck_assert_int_eq(g.t[0].derived, 1);
	ck_assert_uint_eq(g.t[1].task, 11);
	ck_assert_int_eq(g.t[1].derived, 1);
	ck_assert_uint_eq(g.t[2].task, 12);
	ck_assert_int_eq(g.t[2].derived, 0);
	ck_assert_uint_eq(g.t[2].start_ns, 5000);
	/* the derived ones end where the known one starts */
	ck_assert_uint_eq(g.t[1].end_ns, 5000);
	corr_finish(&c);
	ck_assert_uint_eq(c.stats.in_flight, 0);
}
END_TEST

/* The same key submitted again while in flight: the first submit's entry
 * is still its stream's oldest but no longer the key's, so the task-time
 * record is the second one's (the first is derived before it). */
START_TEST(test_resubmitted_key)
{
	struct correlator c;
	static struct got g;

	start(&c, &g, 1);
	submit(&c, 2, 5, 2000);
	submit(&c, 2, 5, 3000); /* the id again: the first's record was lost */
	ck_assert_uint_eq(c.stats.dup_submits, 1);
	task_time(&c, 2, 5, 4000, 4100);
	ck_assert_int_eq(g.n, 2);
	ck_assert_uint_eq(g.t[0].submit_ns, 2000);
	ck_assert_int_eq(g.t[0].derived, 1);
	ck_assert_uint_eq(g.t[1].submit_ns, 3000);
	ck_assert_int_eq(g.t[1].derived, 0);
	ck_assert_uint_eq(g.t[1].start_ns, 5000);
	ck_assert_uint_eq(g.t[1].end_ns, 5100);
	corr_finish(&c);
}
END_TEST

/* On a device with task times a completion can arrive before its task's
 * time (the device log's times pass through the clock fit): it waits
 * CORR_HOLD_NS of record time for it, then retires its task as derived;
 * corr_drain retires what still waits at the end. */
START_TEST(test_cqe_waits_for_task_time)
{
	struct correlator c;
	static struct got g;

	start(&c, &g, 1);
	submit(&c, 1, 5, 2000);
	complete(&c, 1, 5, 5990); /* before the task time at 6000 */
	ck_assert_int_eq(g.n, 0);
	task_time(&c, 1, 5, 4000, 5000);
	ck_assert_int_eq(g.n, 1);
	ck_assert_int_eq(g.t[0].derived, 0);
	ck_assert_uint_eq(g.t[0].start_ns, 5000);
	ck_assert_uint_eq(g.t[0].end_ns, 6000);
	/* a completion whose task time never comes */
	submit(&c, 2, 1, 7000);
	complete(&c, 2, 1, 8000);
	submit(&c, 2, 2, 8000 + CORR_HOLD_NS - 1);
	ck_assert_int_eq(g.n, 1);
	submit(&c, 2, 3, 8000 + CORR_HOLD_NS); /* the held one's time is up */
	ck_assert_int_eq(g.n, 2);
	ck_assert_uint_eq(g.t[1].task, 1);
	ck_assert_int_eq(g.t[1].derived, 1);
	ck_assert_uint_eq(g.t[1].end_ns, 8000);
	/* task 3's completion waits; at the end it retires task 2 and 3 */
	complete(&c, 2, 3, 9000 + CORR_HOLD_NS);
	ck_assert_int_eq(corr_drain(&c), 0);
	ck_assert_int_eq(g.n, 4); /* tasks 2 and 3, derived */
	ck_assert_uint_eq(g.t[3].task, 3);
	ck_assert_uint_eq(g.t[3].end_ns, 9000 + CORR_HOLD_NS);
	corr_finish(&c);
	ck_assert_uint_eq(c.stats.orphans, 0);
	ck_assert_uint_eq(c.stats.in_flight, 0);
}
END_TEST

/* A task's time can come before its submit (the log's times pass the
 * clock fit; the submit is the host's stamp; a replay's timeline runs
 * ahead): it waits for the submit, CORR_TT_HOLD_NS of record time at most,
 * and the submit takes it. */
START_TEST(test_task_time_before_submit)
{
	struct correlator c;
	static struct got g;

	start(&c, &g, 1);
	task_time(&c, 5, 1, 900, 1000); /* at 2000 */
	submit(&c, 5, 1, 2100);
	ck_assert_int_eq(g.n, 1);
	ck_assert_int_eq(g.t[0].orphan, 0);
	ck_assert_int_eq(g.t[0].derived, 0);
	ck_assert_uint_eq(g.t[0].submit_ns, 2100);
	ck_assert_uint_eq(g.t[0].start_ns, 1900);
	complete(&c, 5, 1, 2200); /* the retired task's CQE */
	/* one whose submit never comes: a task without one, when its time
	 * is up */
	task_time(&c, 5, 2, 3000, 3100);
	submit(&c, 6, 1, 4100 + CORR_TT_HOLD_NS - 1);
	ck_assert_int_eq(g.n, 1);
	submit(&c, 6, 2, 4100 + CORR_TT_HOLD_NS);
	ck_assert_int_eq(g.n, 2);
	ck_assert_int_eq(g.t[1].orphan, 1);
	ck_assert_uint_eq(g.t[1].task, 2);
	ck_assert_uint_eq(g.t[1].end_ns, 4100);
	ck_assert_int_eq(corr_drain(&c), 0);
	corr_finish(&c);
	ck_assert_uint_eq(c.stats.orphans, 1);
	ck_assert_uint_eq(c.stats.task_times, 2);
	ck_assert_uint_eq(c.stats.in_flight, 2); /* 6/1, 6/2 */
}
END_TEST

/* A windowed or rate-limited capture (submitted_only): the kernel stream
 * holds the tasks the throttle kept, each with its submit. A log task
 * without one is left out and counted: at once when its stream's submits
 * are past it, else when its wait is up; a kept task's time that comes
 * before its submit still waits for it. */
START_TEST(test_submitted_only)
{
	struct correlator c;
	static struct got g;

	start(&c, &g, 1);
	c.submitted_only = 1;
	submit(&c, 5, 1, 2000);
	task_time(&c, 5, 1, 1100, 1200); /* at 2200 */
	ck_assert_int_eq(g.n, 1);
	submit(&c, 5, 3, 2250); /* task 2's submit was not kept */
	task_time(&c, 5, 2, 1260, 1270); /* the stream is past it */
	ck_assert_uint_eq(c.stats.unkept, 1);
	ck_assert_uint_eq(c.held_n, 0);
	task_time(&c, 5, 3, 1300, 1400);
	ck_assert_int_eq(g.n, 2);
	task_time(&c, 5, 4, 1500, 1600); /* ahead of its submit: it waits */
	ck_assert_uint_eq(c.held_n, 1);
	submit(&c, 5, 4, 2700);
	ck_assert_int_eq(g.n, 3);
	ck_assert_int_eq(g.t[2].orphan, 0);
	ck_assert_int_eq(g.t[2].derived, 0);
	ck_assert_uint_eq(g.t[2].start_ns, 2500);
	task_time(&c, 5, 5, 1800, 1900); /* its submit never comes */
	submit(&c, 6, 1, 2900 + CORR_TT_HOLD_NS - 1);
	ck_assert_uint_eq(c.stats.unkept, 1);
	submit(&c, 6, 2, 2900 + CORR_TT_HOLD_NS);
	ck_assert_uint_eq(c.stats.unkept, 2);
	task_time(&c, 7, 1, CORR_TT_HOLD_NS + 3000, CORR_TT_HOLD_NS + 3100);
	ck_assert_int_eq(corr_drain(&c), 0); /* the end: left out too */
	ck_assert_uint_eq(c.stats.unkept, 3);
	ck_assert_int_eq(g.n, 3);
	corr_finish(&c);
	ck_assert_uint_eq(c.stats.orphans, 0);
	ck_assert_uint_eq(c.stats.derived, 0);
	ck_assert_uint_eq(c.stats.task_times, 3);
	ck_assert_uint_eq(c.stats.in_flight, 2); /* 6/1, 6/2 */
}
END_TEST

START_TEST(test_orphans_and_cqe)
{
	struct correlator c;
	static struct got g;

	start(&c, &g, 1);
	task_time(&c, 3, 9, 100, 200); /* no submit captured: it waits */
	ck_assert_int_eq(g.n, 0);
	complete(&c, 3, 9, 1300); /* its CQE: the waiting task time makes it */
	ck_assert_int_eq(g.n, 0);
	ck_assert_int_eq(corr_drain(&c), 0); /* no submit came */
	ck_assert_int_eq(g.n, 1);
	ck_assert_int_eq(g.t[0].orphan, 1);
	ck_assert_uint_eq(g.t[0].start_ns, 1100);
	submit(&c, 3, 10, 2000);
	task_time(&c, 3, 10, 3000, 3100);
	complete(&c, 3, 10, 4200); /* the CQE of a retired task */
	ck_assert_int_eq(g.n, 2);
	/* tasks retire in order: a CQE coming after a later task's time is
	 * of a retired task too */
	submit(&c, 3, 11, 4300);
	submit(&c, 3, 12, 4400);
	task_time(&c, 3, 11, 4000, 4100);
	task_time(&c, 3, 12, 4150, 4200);
	complete(&c, 3, 11, 5250);
	ck_assert_int_eq(g.n, 4);
	ck_assert_uint_eq(c.stats.orphans, 1);
	complete(&c, 4, 1, 5000); /* neither: an orphan completion */
	ck_assert_int_eq(g.n, 5);
	ck_assert_int_eq(g.t[4].orphan, 1);
	corr_finish(&c);
}
END_TEST

/* Without task times, a CQE retires its task and every older one. */
START_TEST(test_cqe_only)
{
	struct correlator c;
	static struct got g;

	start(&c, &g, 0);
	submit(&c, 0, 1, 2000);
	submit(&c, 0, 2, 2100);
	submit(&c, 1, 1, 2200);
	complete(&c, 0, 2, 3000);
	ck_assert_int_eq(g.n, 2);
	ck_assert_uint_eq(g.t[0].task, 1);
	ck_assert_uint_eq(g.t[1].task, 2);
	ck_assert_int_eq(g.t[1].derived, 1);
	ck_assert_uint_eq(g.t[1].end_ns, 3000);
	corr_finish(&c);
	ck_assert_uint_eq(c.stats.in_flight, 1);
}
END_TEST

/* 16-bit ids wrap: each wrap is a new batch of the stream. */
START_TEST(test_wrap_batches)
{
	struct correlator c;
	static struct got g;

	start(&c, &g, 1);
	for (uint32_t i = 0; i < 3; i++) {
		uint32_t id = (65534 + i) & 0xffff; /* 65534 65535 0 */

		submit(&c, 0, id, 2000 + i);
		task_time(&c, 0, id, 3000 + i, 3000 + i);
	}
	ck_assert_int_eq(g.n, 3);
	ck_assert_uint_eq(g.t[0].batch, 0);
	ck_assert_uint_eq(g.t[1].batch, 0);
	ck_assert_uint_eq(g.t[2].batch, 1);
	corr_finish(&c);
}
END_TEST

/* More streams than the stream cache has slots, many of them sharing a
 * slot, interleaved: every task still finds its own stream. */
START_TEST(test_many_streams)
{
	struct correlator c;
	static struct got g;
	const uint32_t ns = 3 * CORR_STREAM_CACHE + 5;
	int k = 0;

	start(&c, &g, 1);
	for (uint32_t round = 0; round < 4; round++) {
		for (uint32_t s = 0; s < ns; s++)
			submit(&c, s * CORR_STREAM_CACHE % 4000 + s, round,
			       2000 + round * 1000 + s);
		/* the same task id on every stream: only the stream tells them
		 * apart */
		for (uint32_t s = ns; s-- > 0;)
			task_time(&c, s * CORR_STREAM_CACHE % 4000 + s, round,
				  5000 + round * 1000 + s, 5001 + round * 1000 + s);
		for (uint32_t s = ns; s-- > 0; k++) {
			ck_assert_int_lt(k, g.n);
			ck_assert_uint_eq(g.t[k].stream, s * CORR_STREAM_CACHE % 4000 + s);
			ck_assert_uint_eq(g.t[k].task, round);
			ck_assert_uint_eq(g.t[k].submit_ns, 2000 + round * 1000 + s);
			ck_assert_uint_eq(g.t[k].start_ns, 6000 + round * 1000 + s);
			ck_assert_int_eq(g.t[k].derived, 0);
			ck_assert_int_eq(g.t[k].orphan, 0);
		}
	}
	ck_assert_int_eq(g.n, 4 * (int)ns);
	ck_assert_uint_eq(c.nst, ns);
	corr_finish(&c);
	ck_assert_uint_eq(c.stats.in_flight, 0);
}
END_TEST

/* A device time so far from the clock fit that it does not fit int64
 * (a damaged counter): llround's result, as before the inline rounding,
 * and no undefined cast (fuzz_export found it under UBSan). */
START_TEST(test_clock_out_of_range)
{
	struct corr_clock k;

	memset(&k, 0, sizeof(k));
	corr_clock_add(&k, 1000, 0, 1000000000ULL);
	corr_clock_add(&k, 2000, 1000, 1000000000ULL);
	corr_clock_fit(&k);
	ck_assert_uint_eq(corr_clock_mono(&k, 500), 1500);
	/* volatile: llround at run time, as the correlator calls it (the
	 * compiler folds a constant one its own way) */
	volatile double big = 1e30 * (1 << 20);

	k.slope = 1e30;
	ck_assert_uint_eq(corr_clock_mono(&k, 1u << 20), 1000 + (uint64_t)llround(big));
	k.slope = -1e30;
	ck_assert_uint_eq(corr_clock_mono(&k, 1u << 20), 1000 + (uint64_t)llround(-big));
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("correlate");
	TCase *tc = tcase_create("correlate");

	tcase_add_test(tc, test_in_order_times);
	tcase_add_test(tc, test_lost_task_time_derives_older);
	tcase_add_test(tc, test_resubmitted_key);
	tcase_add_test(tc, test_orphans_and_cqe);
	tcase_add_test(tc, test_cqe_waits_for_task_time);
	tcase_add_test(tc, test_task_time_before_submit);
	tcase_add_test(tc, test_submitted_only);
	tcase_add_test(tc, test_cqe_only);
	tcase_add_test(tc, test_sq_head_retires);
	tcase_add_test(tc, test_wrap_batches);
	tcase_add_test(tc, test_many_streams);
	tcase_add_test(tc, test_clock_out_of_range);
	suite_add_tcase(s, tc);
	return s;
}
