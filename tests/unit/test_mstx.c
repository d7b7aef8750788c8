/*
 * test_mstx.c - the mstx API (mstx/ms_tools_ext.h) against the recorder
 * with a fake runtime: what each call records (decoded back from the host
 * stream), which device markers it asks the runtime for (tag 11 for a
 * mark, tag 12 at a range's start and end on the start's stream, the
 * record's mark id as index), domains, ranges ended on another thread,
 * nesting, and the calls that must record nothing.
 */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "aclprof_internal.h"
#include "hostrec_testutil.h"
#include "hostrec.h"
#include "mstx/ms_tools_ext.h"
#include "fake_runtime.h"
#include "rtplugin.h"

static char *g_dir;
static aclprofConfig *g_cfg;

static void start(void)
{
	npuprof_aclprof_reset();
	fake_rt_reset();
	fake_rt.refuse = 0;
	g_dir = tu_tmpdir();
	ck_assert_int_eq(aclprofInit(g_dir, strlen(g_dir)), ACL_SUCCESS);
	g_cfg = aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL, ACL_PROF_MSPROFTX);
	ck_assert_ptr_nonnull(g_cfg);
	ck_assert_int_eq(aclprofStart(g_cfg), ACL_SUCCESS);
}

/* Stops the collection and decodes its stream: the TX records, in order. */
static struct decoded *stop(void)
{
	struct decoded *d;

	ck_assert_int_eq(aclprofStop(g_cfg), ACL_SUCCESS);
	ck_assert_int_eq(aclprofDestroyConfig(g_cfg), ACL_SUCCESS);
	ck_assert_int_eq(aclprofFinalize(), ACL_SUCCESS);
	d = tu_decode(tu_find_stream(g_dir));
	ck_assert_int_eq(d->ret, 0);
	ck_assert_uint_eq(d->st.lost, 0);
	return d;
}

static void finish(struct decoded *d)
{
	tu_free(d);
	tu_rm_rf(g_dir);
	free(g_dir);
	npuprof_aclprof_reset();
}

/* The i-th msproftx / mstx event of d, as a TX record (tu_nth_tx). */
static const struct npuprof_hostfmt_tx *tx(struct decoded *d, size_t i)
{
	const struct npuprof_hostfmt_tx *t = tu_nth_tx(d, i);

	ck_assert_msg(t != NULL, "no TX event %zu", i);
	return t;
}

static size_t ntx(struct decoded *d)
{
	return tu_count_tx(d);
}

START_TEST(test_host_marks_and_ranges)
{
	uint64_t def = npuprof_str2id_hash("default", 7);
	uint32_t me = (uint32_t)syscall(SYS_gettid);
	mstxRangeId o, in;
	struct decoded *d;

	start();
	mstxMarkA("a mark", NULL);
	o = mstxRangeStartA("outer", NULL);
	in = mstxRangeStartA("inner", NULL);
	ck_assert_uint_ne(o, MSTX_INVALID_ID);
	ck_assert_uint_ne(in, MSTX_INVALID_ID);
	ck_assert_uint_ne(o, in);
	mstxRangeEnd(in);
	mstxRangeEnd(o);
	/* nothing: NULL and empty messages, the invalid id */
	mstxMarkA(NULL, NULL);
	mstxMarkA("", NULL);
	ck_assert_uint_eq(mstxRangeStartA(NULL, NULL), MSTX_INVALID_ID);
	ck_assert_uint_eq(mstxRangeStartA("", NULL), MSTX_INVALID_ID);
	mstxRangeEnd(MSTX_INVALID_ID);
	ck_assert_int_eq(fake_rt.nlaunch, 0); /* host only: no device marker */
	d = stop();

	ck_assert_uint_eq(ntx(d), 5);
	/* the compact records (hostfmt.h): a mark, two starts, two ends */
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_TX), 0);
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_MSTX_MARK), 1);
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_MSTX_START), 2);
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_MSTX_END), 2);
	ck_assert_uint_eq(((const struct npuprof_hostfmt_header *)
				   tu_nth_kind(d, NPUPROF_HOSTFMT_MSTX_MARK, 0))
				  ->size,
			  48); /* 36 + "a mark" + NUL, rounded to 8 */
	ck_assert_uint_eq(
		((const struct npuprof_hostfmt_header *)tu_nth_kind(d, NPUPROF_HOSTFMT_MSTX_END, 0))
			->size,
		24);
	const struct npuprof_hostfmt_tx *m = tx(d, 0), *os = tx(d, 1), *is = tx(d, 2),
					*ie = tx(d, 3), *oe = tx(d, 4);
	ck_assert_uint_eq(m->info_type, 1);
	ck_assert_uint_eq(m->event_type, NPUPROF_TX_MARK);
	ck_assert_str_eq(m->message, "a mark");
	ck_assert_uint_eq(m->start_ns, m->end_ns);
	ck_assert_uint_eq(m->domain, def);
	ck_assert_uint_eq(m->category, UINT32_MAX);
	ck_assert_uint_eq(m->tid, me);
	/* range halves (hostfmt.h): start with end 0, end with start 0 */
	ck_assert_uint_eq(os->event_type, NPUPROF_TX_START_STOP);
	ck_assert_str_eq(os->message, "outer");
	ck_assert_uint_eq(os->mark_id, o);
	ck_assert_uint_eq(os->end_ns, 0);
	ck_assert_uint_gt(os->start_ns, 0);
	ck_assert_uint_eq(is->mark_id, in);
	ck_assert_uint_ge(is->start_ns, os->start_ns);
	ck_assert_uint_eq(ie->mark_id, in);
	ck_assert_uint_eq(ie->start_ns, 0);
	ck_assert_uint_eq(ie->msg_len, 0);
	ck_assert_uint_ge(ie->end_ns, is->start_ns);
	ck_assert_uint_eq(oe->mark_id, o);
	ck_assert_uint_ge(oe->end_ns, ie->end_ns);
	ck_assert_uint_ne(m->mark_id, o);
	ck_assert_uint_ne(m->mark_id, in);
	finish(d);
}
END_TEST

START_TEST(test_stream_markers)
{
	int s1, s2; /* any non-NULL handle: the fake runtime only records it */
	mstxRangeId r;
	struct decoded *d;

	start();
	mstxMarkA("dev mark", &s1);
	r = mstxRangeStartA("dev range", &s2);
	ck_assert_uint_ne(r, MSTX_INVALID_ID);
	mstxRangeEnd(r);
	mstxRangeEnd(r); /* a second end: no second closing marker */
	/* the runtime refuses: no record, no range */
	fake_rt.launch_fail = 1;
	mstxMarkA("refused", &s1);
	ck_assert_uint_eq(mstxRangeStartA("refused", &s1), MSTX_INVALID_ID);
	fake_rt.launch_fail = 0;
	d = stop();

	ck_assert_int_eq(fake_rt.nlaunch, 3);
	ck_assert_ptr_eq(fake_rt.launch[0].stream, &s1);
	ck_assert_uint_eq(fake_rt.launch[0].tag, NPUPROF_EXT_TRACE_MARK);
	ck_assert_uint_eq(fake_rt.launch[0].model, NPUPROF_TRACE_MODEL_ID);
	ck_assert_ptr_eq(fake_rt.launch[1].stream, &s2);
	ck_assert_uint_eq(fake_rt.launch[1].tag, NPUPROF_EXT_TRACE_RANGE);
	ck_assert_uint_eq(fake_rt.launch[1].index, r);
	ck_assert_ptr_eq(fake_rt.launch[2].stream, &s2); /* the end: on the start's stream */
	ck_assert_uint_eq(fake_rt.launch[2].tag, NPUPROF_EXT_TRACE_RANGE);
	ck_assert_uint_eq(fake_rt.launch[2].index, r);

	/* mark, range start, range end, and the stray second end half */
	ck_assert_uint_eq(ntx(d), 4);
	ck_assert_uint_eq(tx(d, 0)->mark_id, fake_rt.launch[0].index);
	ck_assert_str_eq(tx(d, 0)->message, "dev mark");
	ck_assert_uint_eq(tx(d, 1)->mark_id, r);
	ck_assert_uint_eq(tx(d, 2)->mark_id, r);
	ck_assert_uint_eq(tx(d, 2)->start_ns, 0);
	finish(d);
}
END_TEST

START_TEST(test_domains)
{
	mstxDomainHandle_t a, b;
	uint64_t ha = npuprof_str2id_hash("DoAclAdd_Inner", 14);
	mstxRangeId r;
	struct decoded *d;
	char longname[1100];
	int hashed = 0;

	start();
	a = mstxDomainCreateA("DoAclAdd_Inner");
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_eq(mstxDomainCreateA("DoAclAdd_Inner"), a);
	b = mstxDomainCreateA("other");
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_ne(a, b);
	ck_assert_ptr_null(mstxDomainCreateA(NULL));
	ck_assert_ptr_null(mstxDomainCreateA(""));
	memset(longname, 'x', 1024);
	longname[1024] = '\0';
	ck_assert_ptr_null(mstxDomainCreateA(longname)); /* > 1023 bytes */
	longname[1023] = '\0';
	ck_assert_ptr_nonnull(mstxDomainCreateA(longname));

	mstxDomainMarkA(a, "in a", NULL);
	r = mstxDomainRangeStartA(a, "range in a", NULL);
	ck_assert_uint_ne(r, MSTX_INVALID_ID);
	mstxDomainRangeEnd(a, r);
	/* NULL, foreign and destroyed handles record nothing */
	mstxDomainMarkA(NULL, "x", NULL);
	mstxDomainMarkA((mstxDomainHandle_t)&hashed, "x", NULL);
	mstxDomainDestroy(b);
	mstxDomainMarkA(b, "x", NULL);
	ck_assert_uint_eq(mstxDomainRangeStartA(b, "x", NULL), MSTX_INVALID_ID);
	/* a new domain after destroy: a new handle */
	ck_assert_ptr_nonnull(mstxDomainCreateA("other"));
	d = stop();

	ck_assert_uint_eq(ntx(d), 3);
	for (size_t i = 0; i < 3; i++)
		ck_assert_uint_eq(tx(d, i)->domain, i == 2 ? 0 : ha);
	ck_assert_str_eq(tx(d, 0)->message, "in a");
	ck_assert_str_eq(tx(d, 1)->message, "range in a");
	/* the domain's name is in the stream's hash dictionary */
	for (size_t k = 0; k < d->n; k++) {
		const struct npuprof_hostfmt_hash *h = (const void *)d->rec[k];

		if (d->rec[k]->kind == NPUPROF_HOSTFMT_HASH && h->id == ha)
			hashed = !strcmp(h->str, "DoAclAdd_Inner");
	}
	ck_assert_int_eq(hashed, 1);
	finish(d);
}
END_TEST

static void *end_elsewhere(void *p)
{
	mstxRangeEnd(*(mstxRangeId *)p);
	return (void *)(uintptr_t)syscall(SYS_gettid);
}

START_TEST(test_cross_thread_and_off)
{
	int s;
	mstxRangeId r, hr;
	pthread_t th;
	void *other;
	struct decoded *d;
	uint32_t me = (uint32_t)syscall(SYS_gettid);

	/* not collecting: nothing, and the invalid id */
	npuprof_aclprof_reset();
	ck_assert_uint_eq(mstxRangeStartA("off", NULL), MSTX_INVALID_ID);
	mstxMarkA("off", NULL);

	start();
	r = mstxRangeStartA("crossing", &s);
	hr = mstxRangeStartA("crossing host", NULL);
	pthread_create(&th, NULL, end_elsewhere, &r);
	pthread_join(th, &other);
	pthread_create(&th, NULL, end_elsewhere, &hr);
	pthread_join(th, NULL);
	d = stop();
	ck_assert_int_eq(fake_rt.nlaunch, 2);
	ck_assert_uint_eq(fake_rt.launch[1].index, r);
	ck_assert_ptr_eq(fake_rt.launch[1].stream, &s);
	ck_assert_uint_eq(ntx(d), 4);
	/* records are per thread: the start halves in this thread's block, the
	 * end halves in the ending threads' */
	for (size_t i = 0; i < 4; i++) {
		const struct npuprof_hostfmt_tx *t = tx(d, i);

		ck_assert(t->mark_id == r || t->mark_id == hr);
		if (t->end_ns == 0)
			ck_assert_uint_eq(t->tid, me);
		else if (t->mark_id == r)
			ck_assert_uint_eq(t->tid, (uint32_t)(uintptr_t)other);
		else
			ck_assert_uint_ne(t->tid, me);
	}
	finish(d);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("mstx");
	TCase *tc = tcase_create("api");

	tcase_add_test(tc, test_host_marks_and_ranges);
	tcase_add_test(tc, test_stream_markers);
	tcase_add_test(tc, test_domains);
	tcase_add_test(tc, test_cross_thread_and_off);
	suite_add_tcase(s, tc);
	return s;
}
