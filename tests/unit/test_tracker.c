/*
 * test_tracker.c - the stream tracker of `npuprof top`, `watch` and
 * `flight` (user/tools/npuprof/tracker.c) follows a stream from the
 * driver's records alone: a CQE retires its task and everything before it,
 * the SQ head of every submit and CQE retires what the device consumed (a
 * 910B writes CQEs for few tasks), the newest queued lap of a wrapped ring
 * counts, a head naming no queued position changes nothing, occupancy
 * accumulates only with work in flight, and completions without submits
 * (a direct-doorbell SQ) are counted, not followed. A random walk (lost
 * records, wraps, SQ changes, heads anywhere) checks the head lookup's
 * shortcut against the plain newest-first scan it replaces.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tracker.h"

#define MS 1000000ULL

static struct npuprof_record sub(uint64_t ts, uint32_t task, uint32_t head, uint32_t tail)
{
	struct npuprof_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = NPUPROF_REC_SUBMIT;
	r.hdr.ts = ts;
	r.hdr.pid = 4242;
	r.submit.devid = 0;
	r.submit.stream_id = 3;
	r.submit.sq_id = 3;
	r.submit.task_id = task;
	r.submit.sq_head = head;
	r.submit.sq_tail = tail;
	return r;
}

static struct npuprof_record cqe(uint64_t ts, uint32_t task, uint32_t head)
{
	struct npuprof_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = NPUPROF_REC_COMPLETE;
	r.hdr.ts = ts;
	r.complete.devid = 0;
	r.complete.stream_id = 3 | 0x8000; /* the match flag is no part of the id */
	r.complete.sq_id = 3;
	r.complete.task_id = task;
	r.complete.sq_head = head;
	return r;
}

static void feed(struct tracker *t, struct npuprof_record r)
{
	tracker_feed(t, &r);
}

static struct trk_stream *only(struct tracker *t)
{
	ck_assert_ptr_nonnull(t->all);
	ck_assert_ptr_null(t->all->next);
	return t->all;
}

static void open_tracker(struct tracker *t)
{
	ck_assert_int_eq(tracker_init(t), 0);
	t->offline = 1; /* no /proc lookups */
}

/* wr_cqe only: one CQE, of the last task, retires all ten */
START_TEST(test_one_cqe_retires_all)
{
	struct tracker t;

	open_tracker(&t);
	for (uint32_t i = 0; i < 10; i++)
		feed(&t, sub(i * MS, i, 0, i + 1));
	ck_assert_uint_eq(only(&t)->len, 10);
	feed(&t, cqe(20 * MS, 9, 10));
	ck_assert_uint_eq(only(&t)->len, 0);
	ck_assert_uint_eq(only(&t)->completes, 10);
	/* stat's CQE column: the CQE written, not its receive */
	struct npuprof_record rv = cqe(21 * MS, 9, 10);

	rv.hdr.flags |= NPUPROF_F_CQE_RECV;
	feed(&t, rv);
	ck_assert_uint_eq(only(&t)->cqes, 1);
	ck_assert_uint_eq(only(&t)->completes, 10);
	/* stat's lookup: the stream by (device, id), the match flag ignored */
	ck_assert_ptr_eq(tracker_stream(&t, 0, 3), only(&t));
	ck_assert_ptr_eq(tracker_stream(&t, 0, 3 | 0x8000), only(&t));
	ck_assert_ptr_null(tracker_stream(&t, 1, 3));
	ck_assert_ptr_null(tracker_stream(&t, 0, 4));
	ck_assert_ptr_null(tracker_stream(&t, NPUPROF_MAX_DEVICES, 3));
	tracker_free(&t);
}
END_TEST

/* no CQE at all: a later submit's SQ head retires what the device took;
 * the first task not consumed is the head a hang names */
START_TEST(test_submit_head_progress)
{
	struct tracker t;
	struct trk_hang h;

	open_tracker(&t);
	for (uint32_t i = 0; i < 6; i++)
		feed(&t, sub(i * MS, i, 0, i + 1));
	/* the device has consumed positions 0..3 when task 6 is sent */
	feed(&t, sub(10 * MS, 6, 4, 7));
	ck_assert_uint_eq(only(&t)->len, 3);
	ck_assert_uint_eq(only(&t)->q[only(&t)->first].task, 4);
	ck_assert_int_eq(tracker_find_hang(&t, 11 * MS, 500 * MS, &h), 0);
	ck_assert_int_eq(tracker_find_hang(&t, 700 * MS, 500 * MS, &h), 1);
	ck_assert_uint_eq(h.task.task, 4);
	ck_assert_uint_eq(h.s->len, 3);
	tracker_free(&t);
}
END_TEST

/* The report of a hang says when a record last showed the device at the
 * head task, and that it may since hold a task behind it (those without a
 * CQE end unseen); nothing of the kind when nothing is queued behind. */
static char *report_of(struct tracker *t, uint64_t now)
{
	struct trk_hang h;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(tracker_find_hang(t, now, 500 * MS, &h), 1);
	tracker_report(t, &h, NULL, f);
	fclose(f);
	return buf;
}

START_TEST(test_hang_report_seen)
{
	struct tracker t;
	char *rep;

	open_tracker(&t);
	/* tasks 0..5 at positions 10..15, sent while the device was still
	 * at position 9: none of them was seen at the head */
	for (uint32_t i = 0; i < 6; i++)
		feed(&t, sub(i * MS, i, 9, 11 + i));
	rep = report_of(&t, 800 * MS);
	ck_assert_ptr_nonnull(strstr(rep, "HANG on device 0 stream 3: task 0 "));
	ck_assert_ptr_nonnull(strstr(rep, "  not seen at it: "));
	ck_assert_ptr_null(strstr(rep, "last seen at it"));
	free(rep);
	/* task 6's submit shows the device at position 14 (task 4) */
	feed(&t, sub(810 * MS, 6, 14, 17));
	rep = report_of(&t, 1400 * MS);
	ck_assert_ptr_nonnull(strstr(rep, "HANG on device 0 stream 3: task 4 "));
	ck_assert_ptr_nonnull(strstr(rep, "  last seen at it: 590 ms ago (an SQ head); "));
	ck_assert_ptr_nonnull(strstr(rep, "queued behind it: 2 task(s): 5 "));
	free(rep);
	/* a CQE of task 5 with the head at 16: only task 6 is left */
	feed(&t, cqe(1500 * MS, 5, 16));
	ck_assert_uint_eq(only(&t)->len, 1);
	ck_assert_uint_eq(only(&t)->head_seen, 1500 * MS);
	rep = report_of(&t, 2100 * MS);
	ck_assert_ptr_nonnull(strstr(rep, "HANG on device 0 stream 3: task 6 "));
	ck_assert_ptr_null(strstr(rep, "seen at it"));
	free(rep);
	tracker_free(&t);
}
END_TEST

/* an 8-deep ring, 20 tasks: positions wrap (a tail of 0 is position 7);
 * progress reported only now and then never retires a task in flight */
START_TEST(test_ring_wrap)
{
	struct tracker t;
	uint32_t done = 0; /* tasks the device has consumed */

	open_tracker(&t);
	for (uint32_t i = 0; i < 20; i++) {
		/* the device runs 3 behind; it reports its head with each submit */
		done = i > 3 ? i - 3 : 0;
		feed(&t, sub(i * MS, i, done % 8, (i + 1) % 8));
		ck_assert_uint_eq(only(&t)->len, i + 1 - done);
		ck_assert_uint_eq(only(&t)->q[only(&t)->first].task, done);
	}
	/* a CQE of task 18 with its head: 19 is left */
	feed(&t, cqe(30 * MS, 18, 19 % 8));
	ck_assert_uint_eq(only(&t)->len, 1);
	ck_assert_uint_eq(only(&t)->q[only(&t)->first].task, 19);
	tracker_free(&t);
}
END_TEST

/* the queue holds an older lap (progress reports lost): the newest task
 * at the head's position is the one the device takes next */
START_TEST(test_newest_lap)
{
	struct tracker t;
	struct npuprof_record r;

	open_tracker(&t);
	/* 10 tasks on a 4-deep ring (positions 0 1 2 3 0 1 2 3 0 1), every
	 * head report naming no position */
	for (uint32_t i = 0; i < 10; i++)
		feed(&t, sub(i * MS, i, 99, (i + 1) % 4));
	ck_assert_uint_eq(only(&t)->len, 10);
	/* head 3: task 7 is next (not task 3, of an older lap) */
	feed(&t, cqe(20 * MS, 77, 3));
	ck_assert_uint_eq(only(&t)->len, 3);
	ck_assert_uint_eq(only(&t)->q[only(&t)->first].task, 7);
	/* a receive's head is stale: it moves nothing */
	r = cqe(21 * MS, 78, 1);
	r.hdr.flags = NPUPROF_F_CQE_RECV;
	feed(&t, r);
	ck_assert_uint_eq(only(&t)->len, 3);
	tracker_free(&t);
}
END_TEST

/* the SQ head equal to the tail: all consumed */
START_TEST(test_head_at_tail)
{
	struct tracker t;

	open_tracker(&t);
	for (uint32_t i = 0; i < 5; i++)
		feed(&t, sub(i * MS, i, 0, i + 1));
	feed(&t, cqe(9 * MS, 0, 5)); /* a CQE of the first, the head past all */
	ck_assert_uint_eq(only(&t)->len, 0);
	tracker_free(&t);
}
END_TEST

/* a head naming no queued position (records lost) retires nothing, nor
 * does a CQE of a task not queued, nor a head of another SQ */
START_TEST(test_unknown_head)
{
	struct tracker t;
	struct npuprof_record r;

	open_tracker(&t);
	for (uint32_t i = 0; i < 5; i++)
		feed(&t, sub(i * MS, i, 0, i + 1));
	feed(&t, cqe(9 * MS, 77, 40));
	ck_assert_uint_eq(only(&t)->len, 5);
	r = cqe(9 * MS, 77, 3);
	r.complete.sq_id = 9;
	feed(&t, r);
	ck_assert_uint_eq(only(&t)->len, 5);
	tracker_free(&t);
}
END_TEST

/* occupancy: only while something is in flight */
START_TEST(test_occupancy)
{
	struct tracker t;

	open_tracker(&t);
	feed(&t, sub(10 * MS, 0, 0, 1));
	feed(&t, cqe(30 * MS, 0, 1)); /* 20 ms in flight */
	ck_assert_uint_eq(tracker_occupied_ns(only(&t), 100 * MS), 20 * MS);
	feed(&t, sub(100 * MS, 1, 1, 2)); /* in flight again from 100 ms */
	ck_assert_uint_eq(tracker_occupied_ns(only(&t), 105 * MS), 25 * MS);
	feed(&t, sub(110 * MS, 2, 2, 3)); /* the head says task 1 is done */
	ck_assert_uint_eq(only(&t)->len, 1);
	ck_assert_uint_eq(tracker_occupied_ns(only(&t), 120 * MS), 40 * MS);
	tracker_free(&t);
}
END_TEST

/* a direct-doorbell SQ: completions, no submits; counted, not followed */
START_TEST(test_no_submits)
{
	struct tracker t;
	struct trk_hang h;

	open_tracker(&t);
	for (uint32_t i = 0; i < 4; i++)
		feed(&t, cqe(i * MS, i, i + 1));
	ck_assert_uint_eq(only(&t)->unsubmitted, 4);
	ck_assert_uint_eq(only(&t)->cqes, 4);
	ck_assert_uint_eq(only(&t)->submits, 0);
	ck_assert_uint_eq(only(&t)->len, 0);
	ck_assert_uint_eq(only(&t)->completes, 0);
	ck_assert_int_eq(tracker_find_hang(&t, 9000 * MS, 500 * MS, &h), 0);
	tracker_free(&t);
}
END_TEST

/* stream ids past NPUPROF_MAX_STREAMS (they run to 0x7fff): stream 3 and
 * stream 3 + 4096 share a slot but keep their own queues */
/* The reference: the queue as (sq, pos) pairs, a head retiring everything
 * before the newest queued task at that position (newest-first scan). */
struct ref_q {
	uint32_t sq[4096], pos[4096];
	uint32_t n, last_sq, last_tail;
	uint64_t submits;
};

static void ref_head(struct ref_q *q, uint32_t sq, uint32_t head)
{
	uint32_t i;

	if (!q->n || sq != q->last_sq)
		return;
	if (head == q->last_tail) {
		q->n = 0;
		return;
	}
	for (i = q->n; i-- > 0;)
		if (q->sq[i] == sq && q->pos[i] == head) {
			memmove(q->sq, q->sq + i, (q->n - i) * sizeof(q->sq[0]));
			memmove(q->pos, q->pos + i, (q->n - i) * sizeof(q->pos[0]));
			q->n -= i;
			return;
		}
}

static void ref_submit(struct ref_q *q, uint32_t sq, uint32_t head, uint32_t tail)
{
	ref_head(q, sq, head);
	q->submits++;
	q->sq[q->n] = sq;
	q->pos[q->n] = tail				  ? tail - 1 :
		       q->submits > 1 && q->last_sq == sq ? q->last_tail :
							    UINT32_MAX;
	q->n++;
	q->last_sq = sq;
	q->last_tail = tail;
}

START_TEST(test_head_shortcut_random)
{
	struct tracker t;
	struct ref_q *q = calloc(1, sizeof(*q));
	uint32_t depth = 16, tail = 0, head = 0, sq = 3, task = 0;

	ck_assert_ptr_nonnull(q);
	ck_assert_int_eq(tracker_init(&t), 0);
	srand(7);
	for (int step = 0; step < 200000; step++) {
		int what = rand() % 100;
		struct npuprof_record r;

		if (what < 3) { /* another SQ on the stream */
			sq = 3 + (uint32_t)(rand() % 2);
			continue;
		}
		if (what < 50) { /* the device moves on, by up to the queue */
			uint32_t inflight = (tail + depth - head) % depth;

			if (inflight)
				head = (head + 1 + (uint32_t)rand() % inflight) % depth;
		}
		if (what < 8) /* a head anywhere (a lap the tracker never saw) */
			head = (uint32_t)rand() % depth;
		tail = (tail + 1) % depth;
		if (rand() % 100 < 5) /* lost: the tracker sees nothing */
			continue;
		ck_assert_uint_lt(q->n, 4000); /* the reference's bound */
		r = sub((uint64_t)step * MS, task++, head, tail);
		r.submit.sq_id = sq;
		feed(&t, r);
		ref_submit(q, sq, head, tail);
		ck_assert_msg(only(&t)->len == q->n, "step %d: tracker %u queued, reference %u",
			      step, only(&t)->len, q->n);
	}
	tracker_free(&t);
	free(q);
}
END_TEST

START_TEST(test_ids_sharing_a_slot)
{
	struct tracker t;
	struct npuprof_record r;
	const struct trk_stream *a, *b;

	open_tracker(&t);
	for (uint32_t i = 0; i < 3; i++)
		feed(&t, sub(i * MS, i, 0, i + 1));
	for (uint32_t i = 0; i < 5; i++) {
		r = sub((10 + i) * MS, 100 + i, 0, i + 1);
		r.submit.stream_id = 3 + NPUPROF_MAX_STREAMS;
		r.submit.sq_id = 7;
		feed(&t, r);
	}
	a = tracker_stream(&t, 0, 3);
	b = tracker_stream(&t, 0, 3 + NPUPROF_MAX_STREAMS);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_ne(a, b);
	ck_assert_uint_eq(a->len, 3);
	ck_assert_uint_eq(b->len, 5);
	ck_assert_uint_eq(b->id, 3 + NPUPROF_MAX_STREAMS);
	ck_assert_ptr_null(tracker_stream(&t, 0, 3 + 2 * NPUPROF_MAX_STREAMS));
	/* a CQE of the first retires its tasks only */
	feed(&t, cqe(20 * MS, 2, 3));
	ck_assert_uint_eq(a->len, 0);
	ck_assert_uint_eq(b->len, 5);
	r = cqe(21 * MS, 104, 5);
	r.complete.stream_id = (3 + NPUPROF_MAX_STREAMS) | 0x8000;
	r.complete.sq_id = 7;
	feed(&t, r);
	ck_assert_uint_eq(b->len, 0);
	ck_assert_uint_eq(b->completes, 5);
	ck_assert_uint_eq(a->completes, 3);
	tracker_free(&t);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("tracker");
	TCase *tc = tcase_create("progress");

	tcase_add_test(tc, test_one_cqe_retires_all);
	tcase_add_test(tc, test_submit_head_progress);
	tcase_add_test(tc, test_hang_report_seen);
	tcase_add_test(tc, test_ring_wrap);
	tcase_add_test(tc, test_newest_lap);
	tcase_add_test(tc, test_head_at_tail);
	tcase_add_test(tc, test_unknown_head);
	tcase_add_test(tc, test_occupancy);
	tcase_add_test(tc, test_no_submits);
	tcase_add_test(tc, test_ids_sharing_a_slot);
	tcase_add_test(tc, test_head_shortcut_random);
	suite_add_tcase(s, tc);
	return s;
}
