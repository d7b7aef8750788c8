/*
 * test_aclprof.c - every aclprof* function of acl/acl_prof.h, in correct use
 * and misuse, with the records it writes decoded back from the stream.
 *
 * Every test starts with the library's global state fresh (setup resets
 * it), so the cases pass in one process too (CK_FORK=no, as the sanitizer
 * build runs them) and one failing case does not spoil the next.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "aclprof_internal.h"
#include "hostrec_testutil.h"
#include "hostrec.h"
#include "fake_runtime.h"
#include "profiling/aprof_pub.h"
#include "rtplugin.h"

#define MSPROFTX_ONLY ACL_PROF_MSPROFTX

static char *g_dir;

static void reset_fakes(void);

static void setup(void)
{
	npuprof_aclprof_reset();
	reset_fakes();
	unsetenv("NPUPROF_OUTPUT_DIR");
	unsetenv("NPUPROF_SWITCHES");
	unsetenv("NPUPROF_DEVICES");
	unsetenv("NPUPROF_FLUSH_INTERVAL_MS");
	g_dir = tu_tmpdir();
}

static void teardown(void)
{
	tu_free_all();
	npuprof_aclprof_reset();
	tu_rm_rf(g_dir);
	free(g_dir);
}

/* aclprofInit(g_dir) + host-only msproftx config + Start. */
static aclprofConfig *start_tx(uint64_t switches)
{
	aclprofConfig *c;

	ck_assert_int_eq(aclprofInit(g_dir, strlen(g_dir)), ACL_SUCCESS);
	c = aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL, switches);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(aclprofStart(c), ACL_SUCCESS);
	return c;
}

static struct decoded *stop_and_decode(aclprofConfig *c)
{
	struct decoded *d;

	ck_assert_int_eq(aclprofStop(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofDestroyConfig(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofFinalize(), ACL_SUCCESS);
	d = tu_decode(tu_find_stream(g_dir));
	ck_assert_msg(d->ret == 0, "decode: %d %s", d->ret, d->err);
	ck_assert_int_eq(d->st.closed, 1);
	return d;
}

static void *stamp_with(const char *msg)
{
	void *s = aclprofCreateStamp();

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(aclprofSetStampTraceMessage(s, msg, (uint32_t)strlen(msg)), 0);
	return s;
}

static uint32_t my_tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

/* ---- the runtime (tests/unit/fake_runtime.h) ----------------------------------- */

static void reset_fakes(void)
{
	fake_rt_reset();
}

/* A runtime with live streams and 4 devices. */
static void register_fake_runtime(void)
{
	fake_rt.refuse = 0;
	fake_rt.devcount = 4;
}

/* A runtime whose streams are gone (after aclFinalize). */
static void unregister_fake_runtime(void)
{
	fake_rt.refuse = 1;
}

/* ---- collection control --------------------------------------------------------- */

START_TEST(test_init_arguments)
{
	char file[4200], longpath[5000];

	ck_assert_int_eq(aclprofInit(NULL, 3), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclprofInit(g_dir, 0), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclprofInit(g_dir, strlen(g_dir) - 1), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclprofInit(g_dir, strlen(g_dir) + 1), ACL_ERROR_INVALID_PARAM);
	memset(longpath, 'a', 4096);
	longpath[4096] = '\0';
	ck_assert_int_eq(aclprofInit(longpath, 4096), ACL_ERROR_INVALID_PARAM);
	/* a regular file is not a result directory */
	snprintf(file, sizeof(file), "%s/file", g_dir);
	fclose(fopen(file, "w"));
	ck_assert_int_eq(aclprofInit(file, strlen(file)), ACL_ERROR_INVALID_FILE);

	ck_assert_int_eq(aclprofFinalize(), ACL_SUCCESS); /* not inited: no-op */
	ck_assert_int_eq(aclprofInit(g_dir, strlen(g_dir)), ACL_SUCCESS);
	ck_assert_int_eq(aclprofInit(g_dir, strlen(g_dir)), ACL_ERROR_REPEAT_INITIALIZE);
	ck_assert_int_eq(aclprofFinalize(), ACL_SUCCESS);
	ck_assert_int_eq(aclprofFinalize(), ACL_SUCCESS);
	/* the result directory is created if missing */
	snprintf(file, sizeof(file), "%s/a/b/c", g_dir);
	ck_assert_int_eq(aclprofInit(file, strlen(file)), ACL_SUCCESS);
	ck_assert_int_eq(access(file, W_OK), 0);
	ck_assert_int_eq(aclprofFinalize(), ACL_SUCCESS);
}
END_TEST

START_TEST(test_create_config_edges)
{
	uint32_t ids[70] = { 0, 1 };
	aclprofConfig *c;

	/* no runtime: zero devices */
	ck_assert_ptr_null(aclprofCreateConfig(NULL, 1, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API));
	ck_assert_ptr_null(aclprofCreateConfig(ids, 1, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API));
	ck_assert_ptr_null(aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API));
	ck_assert_ptr_null(aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE,
					       (const aclprofAicoreEvents *)ids,
					       ACL_PROF_MSPROFTX));
	c = aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL, ACL_PROF_MSPROFTX);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(aclprofDestroyConfig(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofDestroyConfig(c), ACL_ERROR_INVALID_PARAM); /* double destroy */
	ck_assert_int_eq(aclprofDestroyConfig(NULL), ACL_ERROR_INVALID_PARAM);

	register_fake_runtime();
	c = aclprofCreateConfig(ids, 2, ACL_AICORE_PIPE_UTILIZATION, NULL, ACL_PROF_TASK_TIME);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(aclprofDestroyConfig(c), ACL_SUCCESS);
	ck_assert_ptr_null(
		aclprofCreateConfig(ids, 5, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API)); /* > count */
	ck_assert_ptr_null(
		aclprofCreateConfig(ids, 65, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API)); /* > 64 */
	ids[1] = 0;
	ck_assert_ptr_null(aclprofCreateConfig(ids, 2, ACL_AICORE_NONE, NULL,
					       ACL_PROF_ACL_API)); /* duplicate */
	ids[1] = 4;
	ck_assert_ptr_null(aclprofCreateConfig(ids, 2, ACL_AICORE_NONE, NULL,
					       ACL_PROF_ACL_API)); /* id >= count */
	fake_rt.devcount_fail = 1;
	ids[1] = 1;
	ck_assert_ptr_null(aclprofCreateConfig(ids, 2, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API));
	unregister_fake_runtime();
}
END_TEST

/* The switches after aclprofCreateConfig's post-processing, as recorded. */
static uint64_t recorded_switches(uint64_t in)
{
	char *outer = g_dir;
	aclprofConfig *c;
	struct decoded *d;

	g_dir = tu_tmpdir(); /* one stream per call */
	c = start_tx(in);
	d = stop_and_decode(c);
	tu_rm_rf(g_dir);
	free(g_dir);
	g_dir = outer;
	const struct npuprof_hostfmt_session *s = tu_nth_kind(d, NPUPROF_HOSTFMT_SESSION, 0);
	uint64_t v;

	ck_assert_ptr_nonnull(s);
	v = s->switches;
	ck_assert_uint_eq(d->info.header.switches, v);
	ck_assert_uint_eq(s->dev_count, 0);
	tu_free(d);
	return v;
}

START_TEST(test_config_postprocessing)
{
	const uint64_t model = 0x4000000000000000ULL;

	ck_assert_uint_eq(recorded_switches(ACL_PROF_MSPROFTX), ACL_PROF_MSPROFTX | model);
	ck_assert_uint_eq(recorded_switches(ACL_PROF_MSPROFTX | ACL_PROF_TASK_TIME),
			  ACL_PROF_MSPROFTX | ACL_PROF_TASK_TIME | ACL_PROF_TASK_TIME_L0 |
				  ACL_PROF_TRAINING_TRACE | model);
	ck_assert_uint_eq(recorded_switches(ACL_PROF_MSPROFTX | ACL_PROF_OP_ATTR),
			  ACL_PROF_MSPROFTX | ACL_PROF_OP_ATTR | ACL_PROF_TASK_TIME |
				  ACL_PROF_TASK_TIME_L0 | ACL_PROF_TRAINING_TRACE | model);
	ck_assert_uint_eq(recorded_switches(ACL_PROF_MSPROFTX | ACL_PROF_TASK_TIME_L3),
			  ACL_PROF_MSPROFTX | ACL_PROF_TASK_TIME_L3 | ACL_PROF_TASK_TIME_L2 |
				  ACL_PROF_TASK_TIME | ACL_PROF_TASK_TIME_L0 |
				  ACL_PROF_TRAINING_TRACE | model);
	ck_assert_uint_eq(recorded_switches(ACL_PROF_MSPROFTX | ACL_PROF_API_STATS),
			  ACL_PROF_ACL_API | ACL_PROF_API_STATS);
}
END_TEST

START_TEST(test_start_stop_rules)
{
	aclprofConfig *c, *other, *bad;
	char path[4200];

	/* not inited: Stop and Finalize are no-ops */
	ck_assert_int_eq(aclprofStop(NULL), ACL_SUCCESS);
	c = aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL, ACL_PROF_MSPROFTX);
	ck_assert_int_eq(aclprofStop(c), ACL_SUCCESS);

	/* unsupported bits (0x400 is CANN's internal TSFW) */
	bad = aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL, ACL_PROF_MSPROFTX | 0x400);
	ck_assert_ptr_nonnull(bad);
	ck_assert_int_eq(aclprofStart(bad), ACL_ERROR_PROF_MODULES_UNSUPPORTED);

	/* Start without Init initialises itself with the remembered path */
	snprintf(path, sizeof(path), "%s/auto", g_dir);
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_PATH, path, strlen(path)), ACL_SUCCESS);
	ck_assert_int_eq(aclprofStart(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofInit(g_dir, strlen(g_dir)), ACL_ERROR_REPEAT_INITIALIZE);
	ck_assert_int_eq(aclprofStart(c), ACL_SUCCESS); /* same config again: consistent */
	other = aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL,
				    ACL_PROF_MSPROFTX | ACL_PROF_ACL_API);
	ck_assert_int_eq(aclprofStart(other), ACL_ERROR_PROF_API_CONFLICT);
	ck_assert_int_eq(aclprofStop(bad), ACL_ERROR_PROF_MODULES_UNSUPPORTED);
	ck_assert_int_eq(aclprofStop(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofStop(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofStop(NULL), ACL_SUCCESS);
	ck_assert_int_eq(tu_count_streams(path), 1);

	/* a destroyed config is refused, not dereferenced */
	ck_assert_int_eq(aclprofDestroyConfig(other), ACL_SUCCESS);
	ck_assert_int_eq(aclprofStart(other), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclprofStop(other), ACL_ERROR_INVALID_PARAM);

	/* each Start writes a new PROF_ directory; Stop(NULL) stops the running one */
	ck_assert_int_eq(aclprofStart(NULL), ACL_SUCCESS);
	ck_assert_int_eq(aclprofStop(NULL), ACL_SUCCESS);
	ck_assert_int_eq(tu_count_streams(path), 2);
	ck_assert_int_eq(aclprofStart(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofFinalize(), ACL_SUCCESS); /* stops too */
	ck_assert_int_eq(tu_count_streams(path), 3);
	ck_assert_int_eq(aclprofDestroyConfig(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofDestroyConfig(bad), ACL_SUCCESS);
}
END_TEST

START_TEST(test_set_config)
{
	struct decoded *d;
	aclprofConfig *c;
	char big[300];
	const struct npuprof_hostfmt_option *o;

	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_ARGS_MIN, "1", 1), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_ARGS_MAX, "1", 1), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclprofSetConfig((aclprofConfigType)2, "1", 1), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, NULL, 1),
			 ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "15", 1),
			 ACL_ERROR_INVALID_PARAM);
	memset(big, '1', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_OPTYPE, big, 257), ACL_ERROR_INVALID_PARAM);
	big[256] = '\0';
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_OPTYPE, big, 256), ACL_SUCCESS);

	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "0", 1),
			 ACL_ERROR_INVALID_PROFILING_CONFIG);
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "101", 3),
			 ACL_ERROR_INVALID_PROFILING_CONFIG);
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "1x", 2),
			 ACL_ERROR_INVALID_PROFILING_CONFIG);
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "15", 2), ACL_SUCCESS);
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "199MB", 5),
			 ACL_ERROR_INVALID_PROFILING_CONFIG);
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "200MB", 5), ACL_SUCCESS);
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_LLC_MODE, "read", 4), ACL_SUCCESS);
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_LLC_MODE, "both", 4),
			 ACL_ERROR_INVALID_PROFILING_CONFIG);
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_HOST_SYS, "cpu,mem", 7), ACL_SUCCESS);
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_HOST_SYS, "cpu,gpu", 7),
			 ACL_ERROR_INVALID_PROFILING_CONFIG);
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_HOST_SYS_USAGE, "disk", 4),
			 ACL_ERROR_INVALID_PROFILING_CONFIG);
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_SYS_CPU_FREQ, "51", 2),
			 ACL_ERROR_INVALID_PROFILING_CONFIG);
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_NTS_METRICS, "", 0), ACL_ERROR_INVALID_PARAM);

	/* options in effect are recorded at the start of the stream */
	c = start_tx(MSPROFTX_ONLY);
	d = stop_and_decode(c);
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_OPTION), 5);
	o = tu_nth_kind(d, NPUPROF_HOSTFMT_OPTION, 1); /* in type order: 1, 3, 4, 8, 14 */
	ck_assert_uint_eq(o->type, ACL_PROF_SYS_HARDWARE_MEM_FREQ);
	ck_assert_str_eq(o->value, "15");
	tu_free(d);
}
END_TEST

/* ---- msproftx -------------------------------------------------------------------- */

START_TEST(test_stamp_calls_before_start)
{
	static char junk[64];
	uint32_t id = 7;

	ck_assert_ptr_null(aclprofCreateStamp());
	aclprofDestroyStamp(NULL);
	aclprofDestroyStamp(junk);
	ck_assert_int_eq(aclprofMark(NULL), -1);
	ck_assert_int_eq(aclprofMark(junk), -1);
	ck_assert_int_eq(aclprofPush(NULL), ACL_ERROR_INVALID_PARAM); /* checked before init */
	ck_assert_int_eq(aclprofPush(junk), -1);
	ck_assert_int_eq(aclprofPop(), -1);
	ck_assert_int_eq(aclprofRangeStart(NULL, &id), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclprofRangeStart(junk, NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclprofRangeStart(junk, &id), -1);
	ck_assert_uint_eq(id, 7);
	ck_assert_int_eq(aclprofRangeStop(0), -1);
	ck_assert_int_eq(aclprofMarkEx("m", 1, junk), -1);
	ck_assert_int_eq(aclprofSetStampTraceMessage(NULL, "m", 1), -1);
	ck_assert_int_eq(aclprofSetStampTraceMessage(junk, "m", 1), -1);
	ck_assert_int_eq(aclprofSetStampCategory(NULL, 1), -1);
	ck_assert_int_eq(aclprofSetStampPayload(NULL, 1, junk), -1);

	/* Init alone does not initialise msproftx, nor does a Start without it */
	ck_assert_int_eq(aclprofInit(g_dir, strlen(g_dir)), ACL_SUCCESS);
	ck_assert_ptr_null(aclprofCreateStamp());
	ck_assert_int_eq(aclprofStart(NULL), ACL_SUCCESS);
	ck_assert_ptr_null(aclprofCreateStamp());
	ck_assert_int_eq(aclprofMark(junk), -1);
	ck_assert_int_eq(aclprofFinalize(), ACL_SUCCESS);
}
END_TEST

START_TEST(test_stamp_pool)
{
	aclprofConfig *c = start_tx(MSPROFTX_ONLY);
	void *s[101];
	int value = 5;

	for (int i = 0; i < 100; i++) {
		s[i] = aclprofCreateStamp();
		ck_assert_ptr_nonnull(s[i]);
		for (int j = 0; j < i; j++)
			ck_assert_ptr_ne(s[i], s[j]);
	}
	ck_assert_ptr_null(aclprofCreateStamp()); /* pool of 100 */
	aclprofDestroyStamp(s[42]);
	aclprofDestroyStamp(s[42]); /* double destroy: no-op */
	ck_assert_int_eq(aclprofMark(s[42]), -1); /* destroyed stamp */
	ck_assert_int_eq(aclprofPush(s[42]), ACL_ERROR_INVALID_PARAM);
	s[100] = aclprofCreateStamp();
	ck_assert_ptr_eq(s[100], s[42]);
	ck_assert_ptr_null(aclprofCreateStamp());
	for (int i = 0; i < 100; i++)
		aclprofDestroyStamp(s[i]);
	aclprofDestroyStamp(s[0]);
	for (int i = 0; i < 100; i++)
		ck_assert_ptr_nonnull(s[i] = aclprofCreateStamp());
	ck_assert_ptr_null(aclprofCreateStamp());
	ck_assert_int_eq(aclprofSetStampCategory(s[1], 9), 0);
	ck_assert_int_eq(aclprofSetStampPayload(s[1], 3, &value), 0);
	ck_assert_int_eq(aclprofSetStampPayload(s[1], 3, NULL), -1);
	for (int i = 0; i < 100; i++)
		aclprofDestroyStamp(s[i]);
	tu_free(stop_and_decode(c));
}
END_TEST

START_TEST(test_messages)
{
	aclprofConfig *c = start_tx(MSPROFTX_ONLY);
	void *s = aclprofCreateStamp();
	char m127[128], m128[129];
	struct decoded *d;
	const struct npuprof_hostfmt_tx *t;

	memset(m127, 'x', 127);
	m127[127] = '\0';
	memset(m128, 'y', 128);
	m128[128] = '\0';
	ck_assert_int_eq(aclprofSetStampTraceMessage(s, m128, 128), -1);
	ck_assert_int_eq(aclprofSetStampTraceMessage(s, "abc", 128), -1);
	ck_assert_int_eq(aclprofSetStampTraceMessage(s, NULL, 3), -1);
	ck_assert_int_eq(aclprofSetStampTraceMessage(s, m127, 127), 0); /* documented maximum */
	ck_assert_int_eq(aclprofMark(s), 0);
	ck_assert_int_eq(aclprofSetStampTraceMessage(s, "truncated", 5), 0); /* msgLen < strlen */
	ck_assert_int_eq(aclprofMark(s), 0);
	ck_assert_int_eq(aclprofSetStampTraceMessage(s, "ab", 100), 0); /* msgLen > strlen */
	ck_assert_int_eq(aclprofMark(s), 0);
	ck_assert_int_eq(aclprofSetStampTraceMessage(s, "", 0), 0);
	ck_assert_int_eq(aclprofMark(s), 0);
	aclprofDestroyStamp(s);
	d = stop_and_decode(c);
	ck_assert_uint_eq(tu_count_tx(d), 4);
	t = tu_nth_tx(d, 0);
	ck_assert_uint_eq(t->msg_len, 127);
	ck_assert_str_eq(t->message, m127);
	ck_assert_str_eq(((const struct npuprof_hostfmt_tx *)tu_nth_tx(d, 1))->message, "trunc");
	ck_assert_str_eq(((const struct npuprof_hostfmt_tx *)tu_nth_tx(d, 2))->message, "ab");
	ck_assert_str_eq(((const struct npuprof_hostfmt_tx *)tu_nth_tx(d, 3))->message, "");
	tu_free(d);
}
END_TEST

START_TEST(test_mark_push_pop_range_records)
{
	aclprofConfig *c = start_tx(MSPROFTX_ONLY);
	void *mark = stamp_with("mark"), *outer = stamp_with("outer"), *inner = stamp_with("inner");
	void *range = stamp_with("range");
	uint32_t rid = 999, never;
	struct decoded *d;
	const struct npuprof_hostfmt_tx *t;
	uint32_t tid = my_tid();
	int value = 1;

	ck_assert_int_eq(aclprofSetStampCategory(mark, 12), 0);
	ck_assert_int_eq(aclprofSetStampPayload(mark, 2, &value), 0);
	ck_assert_int_eq(aclprofMark(mark), 0);
	ck_assert_int_eq(aclprofPop(), -1); /* empty stack */
	ck_assert_int_eq(aclprofPush(outer), 0);
	ck_assert_int_eq(aclprofPush(inner), 0);
	ck_assert_int_eq(aclprofPop(), 0);
	ck_assert_int_eq(aclprofPop(), 0);
	ck_assert_int_eq(aclprofPop(), -1);
	ck_assert_int_eq(aclprofRangeStart(range, &rid), 0);
	ck_assert_uint_lt(rid, 100);
	ck_assert_int_eq(aclprofRangeStop(rid), 0);
	ck_assert_int_eq(aclprofRangeStop(rid), 0); /* CANN never disarms: records again */
	ck_assert_int_eq(aclprofRangeStop(100), -1);
	ck_assert_int_eq(aclprofRangeStop(UINT32_MAX), -1);
	never = (rid + 1) % 100; /* a pool slot no range was started on */
	ck_assert_int_eq(aclprofRangeStop(never), -1);
	d = stop_and_decode(c);
	ck_assert_uint_eq(tu_count_tx(d), 5);
	/* in the compact records (hostfmt.h), the messages by id */
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_TX), 0);
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_STAMP_MARK), 1);
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_STAMP_POP), 2);
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_STAMP_STOP), 2);
	ck_assert_uint_eq(((const struct npuprof_hostfmt_header *)
				   tu_nth_kind(d, NPUPROF_HOSTFMT_STAMP_MARK, 0))
				  ->size,
			  32);
	ck_assert_uint_eq(((const struct npuprof_hostfmt_header *)
				   tu_nth_kind(d, NPUPROF_HOSTFMT_STAMP_POP, 0))
				  ->size,
			  40);
	ck_assert_uint_eq(((const struct npuprof_hostfmt_header *)
				   tu_nth_kind(d, NPUPROF_HOSTFMT_STAMP_STOP, 0))
				  ->size,
			  48);
	ck_assert_uint_eq(((const struct npuprof_hostfmt_stamp_mark *)
				   tu_nth_kind(d, NPUPROF_HOSTFMT_STAMP_MARK, 0))
				  ->msg_id,
			  npuprof_str2id_hash("mark", 4));

	t = tu_nth_tx(d, 0);
	ck_assert_uint_eq(t->event_type, NPUPROF_TX_MARK);
	ck_assert_uint_eq(t->info_type, 0);
	ck_assert_str_eq(t->message, "mark");
	ck_assert_uint_eq(t->start_ns, t->end_ns);
	ck_assert_uint_eq(t->category, 12);
	ck_assert_int_eq(t->payload_type, 2);
	ck_assert_uint_eq(t->tid, tid);
	ck_assert_uint_eq(t->range_id, NPUPROF_TX_NO_RANGE);
	ck_assert_uint_eq(t->mark_id, 0);

	{
		const struct npuprof_hostfmt_tx *in = tu_nth_tx(d, 1);
		const struct npuprof_hostfmt_tx *out = tu_nth_tx(d, 2);

		ck_assert_str_eq(in->message, "inner");
		ck_assert_str_eq(out->message, "outer");
		ck_assert_uint_eq(in->event_type, NPUPROF_TX_PUSH_POP);
		ck_assert_uint_eq(out->event_type, NPUPROF_TX_PUSH_POP);
		ck_assert_uint_le(out->start_ns, in->start_ns);
		ck_assert_uint_le(in->start_ns, in->end_ns);
		ck_assert_uint_le(in->end_ns, out->end_ns);
		ck_assert_uint_eq(in->tid, tid);
		ck_assert_uint_eq(in->start_tid, tid);
	}
	for (int i = 3; i < 5; i++) {
		t = tu_nth_tx(d, i);
		ck_assert_uint_eq(t->event_type, NPUPROF_TX_START_STOP);
		ck_assert_uint_eq(t->range_id, rid);
		ck_assert_str_eq(t->message, "range");
		ck_assert_uint_le(t->start_ns, t->end_ns);
	}
	ck_assert_uint_eq(((const struct npuprof_hostfmt_tx *)tu_nth_tx(d, 3))->start_ns,
			  ((const struct npuprof_hostfmt_tx *)tu_nth_tx(d, 4))->start_ns);
	tu_free(d);
}
END_TEST

/* Two 64-byte Thue-Morse strings over '!' and 'a' (which differ by 64):
 * both of aclprofStr2Id's 32-bit polynomial hashes (x29, x131) collide. */
static void thue_morse(char *a, char *b)
{
	for (int i = 0; i < 64; i++) {
		int bit = __builtin_popcount((unsigned)i) & 1;

		a[i] = bit ? 'a' : '!';
		b[i] = bit ? '!' : 'a';
	}
	a[64] = b[64] = '\0';
}

/* A stamp message whose id the dictionary holds for another string cannot
 * be named by id: its events are TX records with the message inline. */
START_TEST(test_stamp_message_collision)
{
	aclprofConfig *c = start_tx(MSPROFTX_ONLY);
	char a[65], b[65];
	void *sa, *sb;
	uint32_t rid;
	struct decoded *d;

	thue_morse(a, b);
	ck_assert_str_ne(a, b);
	ck_assert_uint_eq(npuprof_str2id_hash(a, 64), npuprof_str2id_hash(b, 64));
	sa = stamp_with(a); /* a is in the dictionary first */
	sb = stamp_with(b);
	ck_assert_int_eq(aclprofMark(sa), 0);
	ck_assert_int_eq(aclprofMark(sb), 0);
	ck_assert_int_eq(aclprofPush(sb), 0);
	ck_assert_int_eq(aclprofPop(), 0);
	ck_assert_int_eq(aclprofRangeStart(sb, &rid), 0);
	ck_assert_int_eq(aclprofRangeStop(rid), 0);
	/* a message without collision: by id again */
	ck_assert_int_eq(aclprofSetStampTraceMessage(sb, "plain", 5), 0);
	ck_assert_int_eq(aclprofMark(sb), 0);
	aclprofDestroyStamp(sa);
	aclprofDestroyStamp(sb);
	d = stop_and_decode(c);
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_STAMP_MARK), 2);
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_TX), 3);
	ck_assert_uint_eq(tu_count_tx(d), 5);
	ck_assert_str_eq(tu_nth_tx(d, 0)->message, a);
	ck_assert_uint_eq(tu_nth_tx(d, 0)->h.kind, NPUPROF_HOSTFMT_STAMP_MARK);
	for (int i = 1; i < 4; i++) {
		ck_assert_str_eq(tu_nth_tx(d, (size_t)i)->message, b);
		ck_assert_uint_eq(tu_nth_tx(d, (size_t)i)->h.kind, NPUPROF_HOSTFMT_TX);
	}
	ck_assert_uint_eq(tu_nth_tx(d, 1)->event_type, NPUPROF_TX_MARK);
	ck_assert_uint_eq(tu_nth_tx(d, 2)->event_type, NPUPROF_TX_PUSH_POP);
	ck_assert_uint_eq(tu_nth_tx(d, 3)->event_type, NPUPROF_TX_START_STOP);
	ck_assert_uint_eq(tu_nth_tx(d, 3)->range_id, rid);
	ck_assert_str_eq(tu_nth_tx(d, 4)->message, "plain");
	ck_assert_uint_eq(tu_nth_tx(d, 4)->h.kind, NPUPROF_HOSTFMT_STAMP_MARK);
	tu_free(d);
}
END_TEST

/* A process names at most 4096 distinct stamp messages by id (one HASH
 * record each); a message per call beyond that stays inline (TX records),
 * while the messages already named keep their ids. */
START_TEST(test_stamp_message_budget)
{
	aclprofConfig *c = start_tx(MSPROFTX_ONLY);
	void *s = aclprofCreateStamp(), *first = stamp_with("msg 0");
	char m[32];
	struct decoded *d;

	for (int i = 1; i <= 4100; i++) {
		snprintf(m, sizeof(m), "msg %d", i);
		ck_assert_int_eq(aclprofSetStampTraceMessage(s, m, (uint32_t)strlen(m)), 0);
		if (i == 4095 || i == 4096)
			ck_assert_int_eq(aclprofMark(s), 0);
	}
	ck_assert_int_eq(aclprofMark(s), 0);
	ck_assert_int_eq(aclprofMark(first), 0);
	aclprofDestroyStamp(s);
	aclprofDestroyStamp(first);
	d = stop_and_decode(c);
	ck_assert_uint_eq(tu_count_tx(d), 4);
	/* "msg 0" .. "msg 4095" by id; "msg 4096" and later inline */
	ck_assert_uint_eq(tu_nth_tx(d, 0)->h.kind, NPUPROF_HOSTFMT_STAMP_MARK);
	ck_assert_str_eq(tu_nth_tx(d, 0)->message, "msg 4095");
	ck_assert_uint_eq(tu_nth_tx(d, 1)->h.kind, NPUPROF_HOSTFMT_TX);
	ck_assert_str_eq(tu_nth_tx(d, 1)->message, "msg 4096");
	ck_assert_uint_eq(tu_nth_tx(d, 2)->h.kind, NPUPROF_HOSTFMT_TX);
	ck_assert_str_eq(tu_nth_tx(d, 2)->message, "msg 4100");
	ck_assert_uint_eq(tu_nth_tx(d, 3)->h.kind, NPUPROF_HOSTFMT_STAMP_MARK);
	ck_assert_str_eq(tu_nth_tx(d, 3)->message, "msg 0");
	tu_free(d);
}
END_TEST

static void *pop_on_other_thread(void *arg)
{
	int *ret = arg;

	*ret = aclprofPop();
	return NULL;
}

START_TEST(test_push_pop_is_per_thread)
{
	aclprofConfig *c = start_tx(MSPROFTX_ONLY);
	void *s = stamp_with("mine");
	pthread_t th;
	int other = 0;
	struct decoded *d;

	ck_assert_int_eq(aclprofPush(s), 0);
	pthread_create(&th, NULL, pop_on_other_thread, &other);
	pthread_join(th, NULL);
	ck_assert_int_eq(other, -1); /* the other thread's stack is empty */
	ck_assert_int_eq(aclprofPop(), 0);
	d = stop_and_decode(c);
	ck_assert_uint_eq(tu_count_tx(d), 1);
	tu_free(d);
}
END_TEST

START_TEST(test_calls_after_stop)
{
	aclprofConfig *c = start_tx(MSPROFTX_ONLY);
	void *s = stamp_with("late");
	uint32_t rid;
	struct decoded *d;

	ck_assert_int_eq(aclprofPush(s), 0);
	ck_assert_int_eq(aclprofRangeStart(s, &rid), 0);
	ck_assert_int_eq(aclprofStop(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofMark(s), -1);
	ck_assert_int_eq(aclprofPop(), -1); /* popped, but not recorded */
	ck_assert_int_eq(aclprofPop(), -1); /* now empty */
	ck_assert_int_eq(aclprofPush(s), -1);
	ck_assert_int_eq(aclprofRangeStop(rid), -1);
	/* stamp management lasts until Finalize, as in CANN */
	ck_assert_int_eq(aclprofSetStampTraceMessage(s, "x", 1), 0);
	{
		void *s2 = aclprofCreateStamp();

		ck_assert_ptr_nonnull(s2);
		aclprofDestroyStamp(s2);
	}
	aclprofDestroyStamp(s);
	ck_assert_int_eq(aclprofDestroyConfig(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofFinalize(), ACL_SUCCESS);
	ck_assert_ptr_null(aclprofCreateStamp());
	d = tu_decode(tu_find_stream(g_dir));
	ck_assert_int_eq(d->ret, 0);
	ck_assert_uint_eq(tu_count_tx(d), 0);
	tu_free(d);
}
END_TEST

START_TEST(test_mark_ex)
{
	aclprofConfig *c = start_tx(MSPROFTX_ONLY);
	char m155[156], m156[157];
	int stream_obj;
	void *stream = &stream_obj;
	struct decoded *d;
	const struct npuprof_hostfmt_tx *t;

	memset(m155, 'a', 155);
	m155[155] = '\0';
	memset(m156, 'b', 156);
	m156[156] = '\0';
	/* a runtime that refuses the device marker fails the call */
	ck_assert_int_eq(aclprofMarkEx("m", 1, stream), -1);
	register_fake_runtime();
	ck_assert_int_eq(aclprofMarkEx("", 0, stream), -1);
	ck_assert_int_eq(aclprofMarkEx("m", 1, stream), 0);
	ck_assert_int_eq(aclprofMarkEx(m155, 155, stream), 0);
	ck_assert_int_eq(aclprofMarkEx(m156, 156, stream), -1);
	ck_assert_int_eq(aclprofMarkEx("abc", 2, stream), -1); /* strlen mismatch */
	ck_assert_int_eq(aclprofMarkEx("abc", 4, stream), -1);
	ck_assert_int_eq(aclprofMarkEx(NULL, 1, stream), -1);
	ck_assert_int_eq(aclprofMarkEx("m", 1, NULL), -1);
	fake_rt.launch_fail = 1;
	ck_assert_int_eq(aclprofMarkEx("fails", 5, stream), -1);
	fake_rt.launch_fail = 0;
	ck_assert_int_eq(aclprofMarkEx("last", 4, stream), 0);
	ck_assert_int_eq(fake_rt.nlaunch, 3);
	for (int i = 0; i < 3; i++) {
		ck_assert_ptr_eq(fake_rt.launch[i].stream, stream);
		ck_assert_uint_eq(fake_rt.launch[i].model, 0xFFFFFFFFu);
		ck_assert_uint_eq(fake_rt.launch[i].tag, 11);
	}
	unregister_fake_runtime();
	ck_assert_int_eq(aclprofMarkEx("m", 1, stream), -1);

	d = stop_and_decode(c);
	ck_assert_uint_eq(tu_count_tx(d), 3);
	for (int i = 0; i < 3; i++) {
		t = tu_nth_tx(d, i);
		ck_assert_uint_eq(t->info_type, 1);
		ck_assert_uint_eq(t->event_type, NPUPROF_TX_MARK_EX);
		ck_assert_uint_eq(t->category, UINT32_MAX);
		ck_assert_uint_eq(t->mark_id, fake_rt.launch[i].index);
		ck_assert_uint_eq(t->start_ns, t->end_ns);
	}
	/* a failed launch consumes its id, as in CANN: 1 (no runtime) and 4 */
	ck_assert_uint_eq(fake_rt.launch[0].index, 2);
	ck_assert_uint_eq(fake_rt.launch[1].index, 3);
	ck_assert_uint_eq(fake_rt.launch[2].index, 5);
	ck_assert_str_eq(((const struct npuprof_hostfmt_tx *)tu_nth_tx(d, 1))->message, m155);
	tu_free(d);
}
END_TEST

START_TEST(test_step_info)
{
	aclprofConfig *c = start_tx(MSPROFTX_ONLY);
	aclprofStepInfo *a = aclprofCreateStepInfo(), *b = aclprofCreateStepInfo();
	int stream_obj;
	struct decoded *d;
	const struct npuprof_hostfmt_step *st;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(aclprofGetStepTimestamp(NULL, ACL_STEP_START, &stream_obj),
			 ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclprofGetStepTimestamp(a, (aclprofStepTag)7, &stream_obj),
			 ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclprofGetStepTimestamp(a, ACL_STEP_START, &stream_obj),
			 ACL_ERROR_GE_FAILURE); /* no runtime */
	ck_assert_int_eq(aclprofGetStepTimestamp(a, ACL_STEP_START, &stream_obj),
			 ACL_ERROR_INVALID_PARAM); /* twice */
	register_fake_runtime();
	ck_assert_int_eq(aclprofGetStepTimestamp(b, ACL_STEP_START, &stream_obj), ACL_SUCCESS);
	ck_assert_int_eq(aclprofGetStepTimestamp(b, ACL_STEP_END, &stream_obj), ACL_SUCCESS);
	ck_assert_int_eq(aclprofGetStepTimestamp(b, ACL_STEP_END, &stream_obj),
			 ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(fake_rt.nlaunch, 2);
	ck_assert_uint_eq(fake_rt.launch[0].index, 2); /* b is the second step info */
	ck_assert_uint_eq(fake_rt.launch[0].tag, ACL_STEP_START);
	ck_assert_uint_eq(fake_rt.launch[1].tag, ACL_STEP_END);
	ck_assert_uint_eq(fake_rt.launch[1].model, 0xFFFFFFFFu);
	aclprofDestroyStepInfo(a);
	aclprofDestroyStepInfo(a); /* double destroy: no-op */
	aclprofDestroyStepInfo(NULL);
	ck_assert_int_eq(aclprofGetStepTimestamp(a, ACL_STEP_END, &stream_obj),
			 ACL_ERROR_INVALID_PARAM);
	aclprofDestroyStepInfo(b);
	unregister_fake_runtime();
	d = stop_and_decode(c);
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_STEP), 2);
	st = tu_nth_kind(d, NPUPROF_HOSTFMT_STEP, 1);
	ck_assert_uint_eq(st->index_id, 2);
	ck_assert_uint_eq(st->tag, ACL_STEP_END);
	ck_assert_uint_eq(st->stream, (uint64_t)(uintptr_t)&stream_obj);
	ck_assert_uint_eq(st->tid, my_tid());
	tu_free(d);
}
END_TEST

START_TEST(test_range_push_ex)
{
	aclprofConfig *c = start_tx(MSPROFTX_ONLY);
	aclprofTensor tensors[70];
	aclprofTensorInfo ti = { 0 };
	aclprofEventAttributes attr = { ACL_PROF_EVENT_ATTR_VERSION,
					sizeof(attr),
					ACL_PROF_MESSAGE_TYPE_TENSOR_INFO,
					{ &ti } };
	aclprofEventAttributes wrong = attr;
	struct decoded *d;
	const struct npuprof_hostfmt_tensor_info *r;
	int stream_obj;

	memset(tensors, 0, sizeof(tensors));
	for (int i = 0; i < 70; i++) {
		tensors[i].type = i & 1;
		tensors[i].format = 2;
		tensors[i].dataType = 3;
		tensors[i].shapeDim = i == 1 ? 9 : 3; /* 9: clamped to 8 */
		for (int k = 0; k < 8; k++)
			tensors[i].shape[k] = 100 + (uint32_t)k;
	}
	ti.opNameId = aclprofStr2Id("MatMul");
	ti.opTypeId = aclprofStr2Id("MatMulV2");
	ti.tensorNum = 2;
	ti.kernelType = 5;
	ti.blockNums = 8;
	ti.stream = &stream_obj;
	ti.tensors = tensors;

	ck_assert_int_eq(aclprofRangePop(), ACL_ERROR_INVALID_PARAM); /* no PushEx */
	ck_assert_int_eq(aclprofRangePushEx(NULL), ACL_ERROR_INVALID_PARAM);
	wrong.messageType = 1;
	ck_assert_int_eq(aclprofRangePushEx(&wrong), -1);
	ck_assert_int_eq(aclprofRangePushEx(&attr), 0);
	ck_assert_int_eq(aclprofRangePop(), 0);
	ck_assert_int_eq(aclprofRangePop(), 0); /* slot not cleared: reported again */
	ti.tensorNum = 70;
	ck_assert_int_eq(aclprofRangePushEx(&attr), 0);
	ck_assert_int_eq(aclprofRangePop(), 0); /* 64 + 6 tensors */
	ti.tensors = NULL;
	ck_assert_int_eq(aclprofRangePop(), -1);
	ti.tensors = tensors;

	/* a stream that caches op info takes it (CANN's CacheOpInfoBasic, then
	 * the tensors); a failed cache or query fails the call */
	register_fake_runtime();
	ti.tensorNum = 2;
	fake_rt.cache_switch = 1;
	ck_assert_int_eq(aclprofRangePop(), 0);
	ck_assert_int_eq(fake_rt.ncache, 1);
	ck_assert_uint_eq(fake_rt.cache_size, sizeof(struct npuprof_cache_op_info) +
						      2 * sizeof(struct MsrofTensorData));
	{
		const struct npuprof_cache_op_info *ci = (const void *)fake_rt.cache;
		const struct MsrofTensorData *td = (const void *)(ci + 1);

		ck_assert_uint_eq(ci->task_type, 5);
		ck_assert_uint_eq(ci->block_dim, 8);
		ck_assert_uint_eq(ci->node_id, ti.opNameId);
		ck_assert_uint_eq(ci->op_type, ti.opTypeId);
		ck_assert_uint_eq(ci->tensor_num, 2);
		ck_assert_uint_eq(ci->attr_id, 0);
		ck_assert_uint_eq(td[1].tensorType, 1);
		ck_assert_uint_eq(td[1].format, 2);
		ck_assert_uint_eq(td[1].dataType, 3);
		ck_assert_uint_eq(td[0].shape[2], 102);
		ck_assert_uint_eq(td[0].shape[3], 0);
		ck_assert_uint_eq(td[1].shape[7], 107); /* shapeDim 9: 8 kept */
	}
	fake_rt.cache_fail = 1;
	ck_assert_int_eq(aclprofRangePop(), -1);
	fake_rt.cache_fail = 0;
	fake_rt.cache_switch = -1;
	ck_assert_int_eq(aclprofRangePop(), -1);
	ck_assert_int_eq(fake_rt.ncache, 2);
	fake_rt.cache_switch = 0;
	unregister_fake_runtime();

	d = stop_and_decode(c);
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_TENSOR_INFO), 4);
	r = tu_nth_kind(d, NPUPROF_HOSTFMT_TENSOR_INFO, 0);
	ck_assert_uint_eq(r->op_name_id, 0x626628205D1C5684ULL);
	ck_assert_uint_eq(r->tensor_count, 2);
	ck_assert_uint_eq(r->total_tensors, 2);
	ck_assert_uint_eq(r->kernel_type, 5);
	ck_assert_uint_eq(r->block_nums, 8);
	ck_assert_uint_eq(r->stream, (uint64_t)(uintptr_t)&stream_obj);
	ck_assert_uint_le(r->start_ns, r->end_ns);
	ck_assert_uint_eq(r->tensors[0].shape_dim, 3);
	ck_assert_uint_eq(r->tensors[0].shape[2], 102);
	ck_assert_uint_eq(r->tensors[0].shape[3], 0); /* zero beyond shapeDim */
	ck_assert_uint_eq(r->tensors[1].shape_dim, 8);
	ck_assert_uint_eq(r->tensors[1].type, 1);
	ck_assert_uint_eq(r->tensors[1].format, 2);
	ck_assert_uint_eq(r->tensors[1].data_type, 3);
	r = tu_nth_kind(d, NPUPROF_HOSTFMT_TENSOR_INFO, 2);
	ck_assert_uint_eq(r->tensor_count, 64);
	ck_assert_uint_eq(r->total_tensors, 70);
	r = tu_nth_kind(d, NPUPROF_HOSTFMT_TENSOR_INFO, 3);
	ck_assert_uint_eq(r->tensor_count, 6);
	ck_assert_uint_eq(r->first_tensor, 64);
	/* the op names are in the dictionary */
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_HASH), 2);
	tu_free(d);
}
END_TEST

/* ---- the session from the environment ----------------------------------------- */

START_TEST(test_env_session)
{
	char err[256];
	void *s;
	struct decoded *d;
	aclprofConfig *c;

	unsetenv("NPUPROF_OUTPUT_DIR");
	ck_assert_int_eq(npuprof_session_from_env(err, sizeof(err)), 0); /* nothing to do */
	ck_assert_int_eq(npuprof_hostrec_active(), 0);

	setenv("NPUPROF_OUTPUT_DIR", g_dir, 1);
	setenv("NPUPROF_SWITCHES", "bogus", 1);
	ck_assert_int_eq(npuprof_session_from_env(err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "NPUPROF_SWITCHES"));
	setenv("NPUPROF_SWITCHES", "0x400", 1);
	ck_assert_int_eq(npuprof_session_from_env(err, sizeof(err)), -EINVAL);
	setenv("NPUPROF_SWITCHES", "0x81", 1);
	setenv("NPUPROF_DEVICES", "0,x", 1);
	ck_assert_int_eq(npuprof_session_from_env(err, sizeof(err)), -EINVAL);
	setenv("NPUPROF_DEVICES", "0,3", 1);
	ck_assert_int_eq(npuprof_session_from_env(err, sizeof(err)), 0);
	ck_assert_int_eq(npuprof_session_from_env(err, sizeof(err)), -EBUSY);

	/* record's session governs: the program's own calls succeed and change
	 * nothing (test_apisession.c checks the note they leave) */
	ck_assert_int_eq(aclprofInit(g_dir, strlen(g_dir)), ACL_SUCCESS);
	c = aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL, ACL_PROF_MSPROFTX);
	ck_assert_int_eq(aclprofStart(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofStop(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofFinalize(), ACL_SUCCESS);
	ck_assert_int_eq(npuprof_hostrec_active(), 1);
	aclprofDestroyConfig(c);

	s = stamp_with("from env");
	ck_assert_int_eq(aclprofMark(s), 0);
	ck_assert_int_eq(npuprof_hostrec_stop(), 0);
	d = tu_decode(tu_find_stream(g_dir));
	ck_assert_int_eq(d->ret, 0);
	ck_assert_uint_eq(tu_count_tx(d), 1);
	{
		const struct npuprof_hostfmt_session *ss = tu_nth_kind(d, NPUPROF_HOSTFMT_SESSION,
								       0);

		ck_assert_uint_eq(ss->dev_count, 2);
		ck_assert_uint_eq(ss->dev_ids[1], 3);
		ck_assert_uint_eq(ss->switches & 0xFF, 0x81);
	}
	ck_assert_uint_eq(d->info.header.pid, (uint32_t)getpid());
	tu_free(d);
}
END_TEST

START_TEST(test_env_session_flushed_at_exit)
{
	pid_t pid = fork();
	int status;
	struct decoded *d;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		void *s;

		setenv("NPUPROF_OUTPUT_DIR", g_dir, 1);
		setenv("NPUPROF_FLUSH_INTERVAL_MS", "60000", 1); /* only exit can flush */
		if (npuprof_session_from_env(NULL, 0))
			_exit(2);
		s = aclprofCreateStamp();
		aclprofSetStampTraceMessage(s, "bye", 3);
		for (int i = 0; i < 10; i++)
			if (aclprofMark(s))
				_exit(3);
		exit(0); /* no Stop: the exit handler flushes */
	}
	waitpid(pid, &status, 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	d = tu_decode(tu_find_stream(g_dir));
	ck_assert_msg(d->ret == 0, "%s", d->err);
	ck_assert_uint_eq(tu_count_tx(d), 10);
	ck_assert_uint_eq(d->info.header.pid, (uint32_t)pid);
	tu_free(d);
}
END_TEST

/* Issue 31 #12: a process forked during a collection records nothing, and
 * says so once, at the first record it tries (not at fork: a child that
 * execs or never records is quiet); the parent's stream holds only the
 * parent's records. */
static int forked_child(const char *errpath, int marks)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		void *s = stamp_with("child");

		if (!freopen(errpath, "w", stderr))
			_exit(2);
		for (int i = 0; i < marks; i++)
			aclprofMark(s);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return (int)pid;
}

START_TEST(test_fork_child_says_not_recorded)
{
	aclprofConfig *c = start_tx(ACL_PROF_MSPROFTX);
	void *s = stamp_with("parent");
	char errpath[4352], want[256], *text = NULL;
	size_t len = 0;
	struct decoded *d;
	FILE *f;
	int child;

	ck_assert_int_eq(aclprofMark(s), 0);
	snprintf(errpath, sizeof(errpath), "%s/child.err", g_dir);
	child = forked_child(errpath, 10);
	f = fopen(errpath, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(getdelim(&text, &len, '\0', f), 0);
	fclose(f);
	snprintf(
		want, sizeof(want),
		"npuprof: warning: process %d, forked from %d during its collection, is not recorded",
		child, (int)getpid());
	ck_assert_msg(strstr(text, want), "child's stderr: '%s'", text);
	ck_assert_ptr_null(strstr(strstr(text, want) + 1, "npuprof: warning")); /* once */
	free(text);
	/* a child that records nothing says nothing */
	forked_child(errpath, 0);
	f = fopen(errpath, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fgetc(f), EOF);
	fclose(f);
	unlink(errpath);
	ck_assert_int_eq(aclprofMark(s), 0);
	d = stop_and_decode(c);
	ck_assert_uint_eq(tu_count_tx(d), 2); /* the parent's two */
	tu_free(d);
}
END_TEST

START_TEST(test_str2id_dictionary_in_stream)
{
	aclprofConfig *c;
	struct decoded *d;
	const struct npuprof_hostfmt_hash *h;

	ck_assert_uint_eq(aclprofStr2Id("before"),
			  aclprofStr2Id("before")); /* known before the start */
	c = start_tx(MSPROFTX_ONLY);
	aclprofStr2Id("during");
	aclprofStr2Id("during");
	d = stop_and_decode(c);
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_HASH), 2);
	h = tu_nth_kind(d, NPUPROF_HOSTFMT_HASH, 0);
	ck_assert_str_eq(h->str, "before");
	ck_assert_uint_eq(h->id, aclprofStr2Id("before"));
	h = tu_nth_kind(d, NPUPROF_HOSTFMT_HASH, 1);
	ck_assert_str_eq(h->str, "during");
	tu_free(d);
}
END_TEST

/* Reserves in a thread of its own: rings keep the size they were created
 * with, and this thread's ring is created in the 64 KiB collection. */
struct ring_probe {
	void *big, *odd, *ok;
};

static void *probe_fresh_ring(void *arg)
{
	struct ring_probe *p = arg;

	p->big = npuprof_hostrec_reserve(100, 32 << 10);
	p->odd = npuprof_hostrec_reserve(100, 12);
	p->ok = npuprof_hostrec_reserve(100, 16);
	if (p->ok)
		npuprof_hostrec_commit(p->ok);
	return NULL;
}

START_TEST(test_full_ring_counts_lost)
{
	struct ring_probe probe;
	pthread_t th;
	struct npuprof_hostrec_config rc = { .dir = g_dir,
					     .switches = ACL_PROF_MSPROFTX,
					     .buffer_size = 64 << 10 };
	struct npuprof_hostrec_stats st;
	struct decoded *d;
	char err[256];

	ck_assert_int_eq(npuprof_hostrec_start(&rc, err, sizeof(err)), 0);
	ck_assert_int_eq(npuprof_hostrec_start(&rc, err, sizeof(err)), -EBUSY);
	ck_assert_int_eq(pthread_create(&th, NULL, probe_fresh_ring, &probe), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	/* bigger than a quarter ring: never fits, always counted */
	ck_assert_ptr_null(probe.big);
	ck_assert_ptr_null(probe.odd); /* not a multiple of 8 */
	ck_assert_ptr_nonnull(probe.ok); /* an unknown kind is fine for the framing */
	npuprof_hostrec_get_stats(&st);
	ck_assert_uint_eq(st.lost, 2);
	ck_assert_int_eq(npuprof_hostrec_flush(), 0);
	ck_assert_int_eq(npuprof_hostrec_stop(), 0);
	ck_assert_int_eq(npuprof_hostrec_stop(), 0);
	d = tu_decode(npuprof_hostrec_path());
	ck_assert_int_eq(d->ret, 0);
	ck_assert_uint_eq(d->st.lost, 2);
	ck_assert_uint_eq(tu_count_kind(d, 100), 1);
	{
		const struct npuprof_hostfmt_end *e = tu_nth_kind(d, NPUPROF_HOSTFMT_END, 0);

		ck_assert_ptr_nonnull(e);
		ck_assert_uint_eq(e->lost, 2);
	}
	tu_free(d);
}
END_TEST

static Suite *aclprof_suite(void)
{
	Suite *s = suite_create("aclprof");
	TCase *tc = tcase_create("api");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_init_arguments);
	tcase_add_test(tc, test_create_config_edges);
	tcase_add_test(tc, test_config_postprocessing);
	tcase_add_test(tc, test_start_stop_rules);
	tcase_add_test(tc, test_set_config);
	tcase_add_test(tc, test_stamp_calls_before_start);
	tcase_add_test(tc, test_stamp_pool);
	tcase_add_test(tc, test_messages);
	tcase_add_test(tc, test_mark_push_pop_range_records);
	tcase_add_test(tc, test_stamp_message_collision);
	tcase_add_test(tc, test_stamp_message_budget);
	tcase_add_test(tc, test_push_pop_is_per_thread);
	tcase_add_test(tc, test_calls_after_stop);
	tcase_add_test(tc, test_mark_ex);
	tcase_add_test(tc, test_step_info);
	tcase_add_test(tc, test_range_push_ex);
	tcase_add_test(tc, test_env_session);
	tcase_add_test(tc, test_env_session_flushed_at_exit);
	tcase_add_test(tc, test_fork_child_says_not_recorded);
	tcase_add_test(tc, test_str2id_dictionary_in_stream);
	tcase_add_test(tc, test_full_ring_counts_lost);
	suite_add_tcase(s, tc);
	return s;
}

Suite *unit_suite(void)
{
	return aclprof_suite();
}
