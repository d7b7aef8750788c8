/*
 * test_hostdata.c — the host side's indexes (user/export/hostdata.c): a task
 * key's tracks are matched in time order whatever order the streams hold
 * them in (equal times: the one recorded first first), each used once; a
 * detail record is found by (key, batch), the first one recorded when there
 * are several.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "hostdata.h"
#include "hostrec.h"
#include "testutil.h"

#define MS 1000000ULL

static void track(uint32_t stream, uint32_t task, uint64_t t, uint64_t conn)
{
	struct npuprof_hrec_task_track *r = npuprof_hostrec_reserve(NPUPROF_HREC_TASK_TRACK,
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
	struct npuprof_hrec_compute_op *c = npuprof_hostrec_reserve(NPUPROF_HREC_COMPUTE_OP,
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

START_TEST(test_track_order_and_details)
{
	char dir[] = "/tmp/npuprof-test-hostdata-XXXXXX", err[512];
	struct npuprof_hostrec_config cfg;
	struct hostdata h;
	const struct hd_track *t;
	const struct hd_compute *c;
	uint32_t pid = (uint32_t)getpid();

	ck_assert_ptr_nonnull(mkdtemp(dir));
	memset(&cfg, 0, sizeof(cfg));
	cfg.dir = dir;
	ck_assert_int_eq(npuprof_hostrec_start(&cfg, err, sizeof(err)), 0);
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
	ck_assert_uint_eq(h.ntrack, 6);
	/* nothing before 8 ms (+ 2 ms slack) */
	ck_assert_ptr_null(hostdata_match_track(&h, pid, 0, 1, 5, 7 * MS));
	t = hostdata_match_track(&h, pid, 0, 1, 5, 17 * MS);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->r.connection_id, 1);
	/* both 20 ms tracks are due: the later recorded one is the latest */
	t = hostdata_match_track(&h, pid, 0, 1, 5, 19 * MS);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->r.connection_id, 4);
	/* used ones are not matched again */
	ck_assert_ptr_null(hostdata_match_track(&h, pid, 0, 1, 5, 25 * MS));
	t = hostdata_match_track(&h, pid, 0, 1, 5, 40 * MS);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->r.connection_id, 2);
	ck_assert_ptr_null(hostdata_match_track(&h, pid, 0, 1, 5, 100 * MS));
	/* the other key has its own cursor */
	t = hostdata_match_track(&h, pid, 0, 2, 5, 100 * MS);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->r.connection_id, 12);
	ck_assert_ptr_null(hostdata_match_track(&h, pid, 0, 3, 5, 100 * MS));
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
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("hostdata");
	TCase *tc = tcase_create("indexes");

	tcase_add_test(tc, test_track_order_and_details);
	suite_add_tcase(s, tc);
	return s;
}
