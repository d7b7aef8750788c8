/*
 * test_profapi.c - libprofapi's reporter ABI (user/recorder) driven as CANN's
 * components drive it, with the real recorder (linked statically):
 *  - the control plane: callbacks of RUNTIME (7), ASCENDCL (48) and HCCL (3)
 *    get INIT then START per device announced by MsprofNotifySetDevice
 *    (devNums 1, the profSwitch the aclprof config implies, the runtime-trace
 *    bit with task time), in CANN's order; a late registrant gets them
 *    replayed; STOP per device and one FINALIZE in CANN's stop order; the
 *    environment-started session of `npuprof record` drives the same;
 *  - reports stored as reported: the API, event, compact, additional and
 *    batch records hold the structs byte for byte, with the type names (also
 *    those registered before the collection) and hashed strings in the same
 *    stream, and CLOCK_RAW pairs;
 *  - refused reports (NULL, wrong magic, wrong length, dataLen past the data
 *    area, unregistered type, after MsprofFinalize, outside a collection,
 *    from a forked child) return CANN's codes, never crash, and their counts
 *    are in the stream (MSPROF_BAD).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "profiling/prof_api.h"

#include "aclprof_internal.h"
#include "hostrec.h"
#include "hostrec_testutil.h"
#include "profapi_internal.h"
#include "fake_runtime.h"

struct cmd {
	uint32_t module, ctrl, type, devNums, dev, len;
	uint64_t sw;
};
static struct cmd g_log[256];
static int g_n;

static void log_cmd(uint32_t module, uint32_t ctrl, void *data, uint32_t len)
{
	const struct MsprofCommandHandle *c = data;

	ck_assert_int_lt(g_n, 256);
	g_log[g_n++] = (struct cmd){ .module = module,
				     .ctrl = ctrl,
				     .type = c->type,
				     .devNums = c->devNums,
				     .dev = c->devNums ? c->devIdList[0] : UINT32_MAX,
				     .len = len,
				     .sw = c->profSwitch };
}

static int32_t cb_runtime(uint32_t t, void *d, uint32_t l)
{
	log_cmd(7, t, d, l);
	return 0;
}
static int32_t cb_acl(uint32_t t, void *d, uint32_t l)
{
	log_cmd(48, t, d, l);
	return 0;
}
static int32_t cb_hccl(uint32_t t, void *d, uint32_t l)
{
	log_cmd(3, t, d, l);
	return 0;
}
static int32_t cb_cce(uint32_t t, void *d, uint32_t l)
{
	log_cmd(8, t, d, l);
	return 0;
}

static char *g_dir;

static void setup(void)
{
	g_dir = tu_tmpdir();
	g_n = 0;
	fake_rt_reset(); /* a runtime with live streams, 8 devices */
	fake_rt.refuse = 0;
	fake_rt.devcount = 8;
}

static void teardown(void)
{
	npuprof_aclprof_reset();
	tu_free_all();
	tu_rm_rf(g_dir);
	free(g_dir);
}

/* g_log[from..] is `type` for `dev` to modules m[0..n-1], in that order */
static int expect(int from, uint32_t type, uint32_t dev, const uint32_t *m, int n)
{
	for (int i = 0; i < n; i++) {
		const struct cmd *c = &g_log[from + i];

		ck_assert_int_lt(from + i, g_n);
		ck_assert_msg(c->module == m[i] && c->type == type && c->dev == dev,
			      "command %d: module %u type %u dev %u, expected module %u type %u "
			      "dev %u",
			      from + i, c->module, c->type, c->dev, m[i], type, dev);
		ck_assert_uint_eq(c->ctrl, PROF_CTRL_SWITCH);
		ck_assert_uint_eq(c->len, sizeof(struct MsprofCommandHandle));
		ck_assert_uint_eq(c->devNums, dev == UINT32_MAX ? 0 : 1);
	}
	return from + n;
}

static aclprofConfig *start(uint32_t *devs, uint32_t n, uint64_t sw)
{
	aclprofConfig *c;

	ck_assert_int_eq(aclprofInit(g_dir, strlen(g_dir)), ACL_SUCCESS);
	c = aclprofCreateConfig(devs, n, ACL_AICORE_NONE, NULL, sw);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(aclprofStart(c), ACL_SUCCESS);
	return c;
}

static void stop(aclprofConfig *c)
{
	ck_assert_int_eq(aclprofStop(c), ACL_SUCCESS);
	aclprofDestroyConfig(c);
	ck_assert_int_eq(aclprofFinalize(), ACL_SUCCESS);
}

START_TEST(test_control_plane)
{
	static const uint32_t start3[] = { 7, 48, 3 }, start4[] = { 7, 48, 3, 8 };
	static const uint32_t stop4[] = { 48, 7, 3, 8 };
	uint32_t devs[] = { 1, 2 };
	aclprofConfig *c;
	int at;

	ck_assert_int_eq(MsprofRegisterCallback(3, cb_hccl), 0);
	ck_assert_int_eq(MsprofRegisterCallback(7, cb_runtime), 0);
	ck_assert_int_eq(MsprofRegisterCallback(48, cb_acl), 0);
	ck_assert_int_eq(MsprofRegisterCallback(48, cb_acl), 0); /* again: once */
	ck_assert_int_eq(MsprofRegisterCallback(9, NULL), -1);
	ck_assert_int_eq(MsprofNotifySetDevice(0, 1, true), 0);
	ck_assert_int_eq(g_n, 0); /* nothing before a collection */

	c = start(devs, 2, ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_RUNTIME_API);
	at = expect(0, PROF_COMMANDHANDLE_TYPE_INIT, 1, start3, 3);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_START, 1, start3, 3);
	ck_assert_int_eq(g_n, at);
	/* the switches: aclprof's bits, task time level 0 (0x800) that
	 * aclprofCreateConfig adds, the runtime trace CANN adds with it */
	ck_assert_uint_eq(g_log[0].sw & 0x1, 0x1);
	ck_assert_uint_eq(g_log[0].sw & 0x100, 0x100);
	ck_assert_uint_eq(g_log[0].sw & 0x800, 0x800);
	ck_assert_uint_eq(g_log[0].sw & PROF_RUNTIME_TRACE_MASK, PROF_RUNTIME_TRACE_MASK);
	ck_assert_uint_eq(npuprof_profapi_switch(ACL_PROF_ACL_API), ACL_PROF_ACL_API);
	ck_assert_uint_eq(npuprof_profapi_switch(ACL_PROF_AICORE_SHAPE | 0x800), 0x4000800);

	/* a device set during the collection starts then; one outside the
	 * config never */
	ck_assert_int_eq(MsprofNotifySetDevice(0, 2, true), 0);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_INIT, 2, start3, 3);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_START, 2, start3, 3);
	ck_assert_int_eq(MsprofNotifySetDevice(0, 3, true), 0);
	ck_assert_int_eq(g_n, at);
	ck_assert_int_eq(MsprofNotifySetDevice(0, 64, true), -1);

	/* a late registrant: INIT + START for every started device */
	ck_assert_int_eq(MsprofRegisterCallback(8, cb_cce), 0);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_INIT, 1, start4 + 3, 1);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_START, 1, start4 + 3, 1);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_INIT, 2, start4 + 3, 1);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_START, 2, start4 + 3, 1);
	ck_assert_int_eq(g_n, at);

	/* the runtime's legacy reporter INIT/UNINIT */
	ck_assert_int_eq(MsprofReportData(7, MSPROF_REPORTER_INIT, NULL, 0), 0);
	ck_assert_int_eq(MsprofReportData(7, MSPROF_REPORTER_UNINIT, NULL, 0), 0);

	/* stop: per device (last started first), then one FINALIZE, in CANN's
	 * stop order: GE, ASCENDCL, RUNTIME, then the others by id */
	stop(c);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_STOP, 2, stop4, 4);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_STOP, 1, stop4, 4);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_FINALIZE, UINT32_MAX, stop4, 4);
	ck_assert_int_eq(g_n, at);

	/* a device reset during a collection stops it */
	c = start(devs, 2, ACL_PROF_ACL_API);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_INIT, 1, start4, 4);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_START, 1, start4, 4);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_INIT, 2, start4, 4);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_START, 2, start4, 4);
	ck_assert_uint_eq(g_log[at - 1].sw & PROF_RUNTIME_TRACE_MASK, 0);
	ck_assert_int_eq(MsprofNotifySetDevice(0, 1, false), 0);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_STOP, 1, stop4, 4);
	stop(c);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_STOP, 2, stop4, 4);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_FINALIZE, UINT32_MAX, stop4, 4);
	ck_assert_int_eq(g_n, at);
}
END_TEST

/* `npuprof record`'s session (NPUPROF_OUTPUT_DIR) drives the same plane */
START_TEST(test_env_session)
{
	static const uint32_t m[] = { 7, 48 }, rm[] = { 48, 7 };
	char err[256];
	int at;

	ck_assert_int_eq(MsprofRegisterCallback(48, cb_acl), 0);
	ck_assert_int_eq(MsprofNotifySetDevice(0, 0, true), 0);
	setenv("NPUPROF_OUTPUT_DIR", g_dir, 1);
	unsetenv("NPUPROF_DEVICES");
	unsetenv("NPUPROF_SWITCHES");
	ck_assert_int_eq(npuprof_session_from_env(err, sizeof(err)), 0);
	unsetenv("NPUPROF_OUTPUT_DIR");
	at = expect(0, PROF_COMMANDHANDLE_TYPE_INIT, 0, m + 1, 1);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_START, 0, m + 1, 1);
	/* the runtime registers after the session began (its constructor
	 * runs after libprofapi's) */
	ck_assert_int_eq(MsprofRegisterCallback(7, cb_runtime), 0);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_INIT, 0, m, 1);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_START, 0, m, 1);
	ck_assert_int_eq(MsprofNotifySetDevice(0, 5, true), 0);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_INIT, 5, m, 2);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_START, 5, m, 2);
	npuprof_aclprof_reset(); /* the end of the session */
	at = expect(at, PROF_COMMANDHANDLE_TYPE_STOP, 5, rm, 2);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_STOP, 0, rm, 2);
	at = expect(at, PROF_COMMANDHANDLE_TYPE_FINALIZE, UINT32_MAX, rm, 2);
	ck_assert_int_eq(g_n, at);
}
END_TEST

static struct MsprofApi api(uint16_t level, uint32_t type, uint64_t t)
{
	return (struct MsprofApi){ .magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM,
				   .level = level,
				   .type = type,
				   .threadId = 4242,
				   .reserve = 0x55,
				   .beginTime = t,
				   .endTime = t + 7,
				   .itemId = 0xABCDEF };
}

static const struct npuprof_hostfmt_msprof *nth_msprof(const struct decoded *d, uint16_t kind,
						       size_t i)
{
	const struct npuprof_hostfmt_msprof *r = tu_nth_kind(d, kind, i);

	ck_assert_ptr_nonnull(r);
	return r;
}

static const char *type_name(const struct decoded *d, uint16_t level, uint32_t type)
{
	size_t n = tu_count_kind(d, NPUPROF_HOSTFMT_MSPROF_TYPE);
	const char *name = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct npuprof_hostfmt_msprof_type *t =
			tu_nth_kind(d, NPUPROF_HOSTFMT_MSPROF_TYPE, i);

		if (t->level == level && t->type_id == type) {
			ck_assert_uint_eq(strlen(t->name), t->len);
			name = t->name; /* the last one counts */
		}
	}
	return name;
}

/* A stored report as reported but for its times, which the decoder hands
 * on converted to CLOCK_MONOTONIC (hostread.h): each is the reported one
 * moved by the stream's CLOCK_RAW offset `shift` (within a microsecond). */
static void as_reported(const struct npuprof_hostfmt_msprof *r, const void *want, size_t len,
			const size_t *toff, int nt, int64_t shift)
{
	uint8_t got[256];

	ck_assert_uint_le(len, sizeof(got));
	memcpy(got, r->data, len);
	for (int i = 0; i < nt; i++) {
		uint64_t g, w;

		memcpy(&g, got + toff[i], sizeof(g));
		memcpy(&w, (const uint8_t *)want + toff[i], sizeof(w));
		ck_assert_int_le(llabs((long long)(g - w) - shift), 1000);
		memcpy(got + toff[i], &w, sizeof(w));
	}
	ck_assert_int_eq(memcmp(got, want, len), 0);
}

START_TEST(test_records_as_reported)
{
	struct MsprofApi a = api(MSPROF_REPORT_ACL_LEVEL, MSPROF_REPORT_ACL_RUNTIME_BASE_TYPE + 1,
				 0);
	struct MsprofEvent ev = { .magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM,
				  .level = MSPROF_REPORT_MODEL_LEVEL,
				  .type = MSPROF_REPORT_MODEL_EXECUTE_TYPE,
				  .threadId = 77,
				  .requestId = 3,
				  .timeStamp = 123456,
				  .eventFlag = MSPROF_EVENT_FLAG,
				  .itemId = 9 };
	struct MsprofCompactInfo ci;
	struct MsprofAdditionalInfo ai[3];
	struct MsprofTensorInfo ti;
	uint64_t op = MsprofGetHashId("MatMul_1", 8); /* before the collection */
	uint64_t ker;
	aclprofConfig *c;
	struct decoded *d;
	const struct npuprof_hostfmt_msprof *r;
	const struct npuprof_hostfmt_msprof_bad *bad;
	struct npuprof_profapi_bad b;

	ck_assert_int_eq(MsprofRegTypeInfo(MSPROF_REPORT_ACL_LEVEL,
					   MSPROF_REPORT_ACL_RUNTIME_BASE_TYPE + 1, "aclrtMalloc"),
			 0);
	ck_assert_int_eq(MsprofRegTypeInfo(MSPROF_REPORT_RUNTIME_LEVEL, 802, "task_track"), 0);
	ck_assert_int_eq(MsprofRegTypeInfo(MSPROF_REPORT_NODE_LEVEL, 1, "tensor_info"), 0);
	ck_assert_int_eq(MsprofRegTypeInfo(MSPROF_REPORT_NODE_LEVEL, 1, "tensor_info"), 0);
	ck_assert_int_eq(MsprofRegTypeInfo(MSPROF_REPORT_NODE_LEVEL, 1, NULL), -1);
	/* outside a collection: not stored, CANN's "uninitialised" */
	ck_assert_int_eq(MsprofReportApi(0, &a), MSPROF_ERROR_UNINITIALIZE);

	c = start(NULL, 0, ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX);
	/* named during the collection */
	ck_assert_int_eq(MsprofRegTypeInfo(MSPROF_REPORT_MODEL_LEVEL,
					   MSPROF_REPORT_MODEL_EXECUTE_TYPE, "execute"),
			 0);
	a.beginTime = MsprofSysCycleTime();
	a.endTime = a.beginTime + 7;
	ker = MsprofStr2Id("matmul_kernel", 13);
	ck_assert_uint_eq(ker, MsprofGetHashId("matmul_kernel", 13));
	ck_assert_str_eq(MsprofId2Str(ker), "matmul_kernel");

	ck_assert_int_eq(MsprofReportApi(1, &a), 0);
	ev.timeStamp = a.beginTime + 3; /* MsprofSysCycleTime values, as reported */
	ck_assert_int_eq(MsprofReportEvent(0, &ev), 0);
	memset(&ci, 0xEE, sizeof(ci)); /* padding bytes travel too */
	ci.magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM;
	ci.level = MSPROF_REPORT_RUNTIME_LEVEL;
	ci.type = 802;
	ci.threadId = 4242;
	ci.dataLen = sizeof(struct MsprofRuntimeTrack);
	ci.timeStamp = a.beginTime + 1;
	ci.data.runtimeTrack.deviceId = 1;
	ci.data.runtimeTrack.streamId = 5;
	ci.data.runtimeTrack.taskId = (2u << 16) | 17;
	ci.data.runtimeTrack.taskType = 0;
	ci.data.runtimeTrack.kernelName = ker;
	ck_assert_int_eq(MsprofReportCompactInfo(0, &ci, sizeof(ci)), 0);
	memset(ai, 0, sizeof(ai));
	memset(&ti, 0, sizeof(ti));
	ti.opName = op;
	ti.tensorNum = 2;
	ti.tensorData[1].shape[0] = 16;
	for (int i = 0; i < 3; i++) {
		ai[i].magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM;
		ai[i].level = MSPROF_REPORT_NODE_LEVEL;
		ai[i].type = MSPROF_REPORT_NODE_TENSOR_INFO_TYPE;
		ai[i].threadId = 4242;
		ai[i].dataLen = sizeof(ti);
		ai[i].timeStamp = a.beginTime + 4 + (uint64_t)i;
		memcpy(ai[i].data, &ti, sizeof(ti));
	}
	ck_assert_int_eq(MsprofReportAdditionalInfo(0, &ai[0], sizeof(ai[0])), 0);
	ck_assert_int_eq(MsprofReportBatchAdditionalInfo(0, &ai[1], 2 * sizeof(ai[0])), 0);
	ck_assert_uint_eq(MsprofGetBatchReportMaxSize(MSPROF_BATCH_ADDITIONAL_INFO),
			  512 * sizeof(struct MsprofAdditionalInfo));

	/* refused, with CANN's codes */
	{
		struct MsprofApi m = a, u = a;
		struct MsprofCompactInfo big = ci;
		struct MsprofAdditionalInfo x = ai[0];

		m.magicNumber = 0x5A5B;
		u.type = 0x03FFFF; /* never registered */
		big.dataLen = MSPROF_COMPACT_INFO_DATA_LENGTH + 1;
		x.dataLen = MSPROF_ADDTIONAL_INFO_DATA_LENGTH + 1;
		ck_assert_int_eq(MsprofReportApi(0, NULL), -1);
		ck_assert_int_eq(MsprofReportCompactInfo(0, NULL, 64), -1);
		ck_assert_int_eq(MsprofReportApi(0, &m), MSPROF_ERROR);
		ck_assert_int_eq(MsprofReportApi(0, &u), MSPROF_ERROR);
		ck_assert_int_eq(MsprofReportCompactInfo(0, &ci, sizeof(ci) - 1), MSPROF_ERROR);
		ck_assert_int_eq(MsprofReportCompactInfo(0, &big, sizeof(big)), MSPROF_ERROR);
		ck_assert_int_eq(MsprofReportAdditionalInfo(0, &x, sizeof(x)), MSPROF_ERROR);
		ck_assert_int_eq(MsprofReportBatchAdditionalInfo(0, ai, sizeof(ai[0]) + 8), -1);
		ck_assert_int_eq(MsprofFinalize(), 0);
		ck_assert_int_eq(MsprofReportApi(0, &a), MSPROF_ERROR_UNINITIALIZE);
		ck_assert_int_eq(MsprofInit(MSPROF_CTRL_INIT_ACL_ENV, NULL, 0), 0);
	}
	npuprof_profapi_get_bad(&b);
	ck_assert_uint_eq(b.null_data, 2);
	ck_assert_uint_eq(b.bad_magic, 1);
	ck_assert_uint_eq(b.unregistered, 1);
	ck_assert_uint_eq(b.bad_length, 4);
	ck_assert_uint_eq(b.after_finalize, 1);
	ck_assert_uint_eq(b.ring_full, 0);
	stop(c);

	d = tu_decode(tu_find_stream(g_dir));
	ck_assert_msg(d->ret == 0, "%s", d->err);
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_MSPROF_API), 1);
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_MSPROF_EVENT), 1);
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_MSPROF_COMPACT), 1);
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_MSPROF_ADDITIONAL), 3);
	const struct npuprof_hostfmt_clock_raw *p0 = tu_nth_kind(d, NPUPROF_HOSTFMT_CLOCK_RAW, 0);
	ck_assert_ptr_nonnull(p0);
	int64_t shift = (int64_t)(p0->monotonic_ns - p0->raw_ns);
	static const size_t api_t[] = { offsetof(struct MsprofApi, beginTime),
					offsetof(struct MsprofApi, endTime) },
			    ev_t[] = { offsetof(struct MsprofEvent, timeStamp) },
			    ci_t[] = { offsetof(struct MsprofCompactInfo, timeStamp) },
			    ai_t[] = { offsetof(struct MsprofAdditionalInfo, timeStamp) };
	r = nth_msprof(d, NPUPROF_HOSTFMT_MSPROF_API, 0);
	ck_assert_uint_eq(r->flag, 1);
	ck_assert_uint_eq(r->len, sizeof(a));
	ck_assert_uint_eq(r->h.size, sizeof(*r) + sizeof(a));
	as_reported(r, &a, sizeof(a), api_t, 2, shift);
	r = nth_msprof(d, NPUPROF_HOSTFMT_MSPROF_EVENT, 0);
	ck_assert_uint_eq(r->flag, 0);
	ck_assert_uint_eq(r->len, sizeof(ev));
	as_reported(r, &ev, sizeof(ev), ev_t, 1, shift);
	r = nth_msprof(d, NPUPROF_HOSTFMT_MSPROF_COMPACT, 0);
	ck_assert_uint_eq(r->len, sizeof(ci));
	as_reported(r, &ci, sizeof(ci), ci_t, 1, shift);
	for (size_t i = 0; i < 3; i++) {
		r = nth_msprof(d, NPUPROF_HOSTFMT_MSPROF_ADDITIONAL, i);
		ck_assert_uint_eq(r->len, sizeof(ai[i]));
		as_reported(r, &ai[i], sizeof(ai[i]), ai_t, 1, shift);
	}
	/* the names: registered before and during the collection */
	ck_assert_str_eq(type_name(d, MSPROF_REPORT_ACL_LEVEL,
				   MSPROF_REPORT_ACL_RUNTIME_BASE_TYPE + 1),
			 "aclrtMalloc");
	ck_assert_str_eq(type_name(d, MSPROF_REPORT_RUNTIME_LEVEL, 802), "task_track");
	ck_assert_str_eq(type_name(d, MSPROF_REPORT_NODE_LEVEL, 1), "tensor_info");
	ck_assert_str_eq(type_name(d, MSPROF_REPORT_MODEL_LEVEL, 1), "execute");
	ck_assert_ptr_null(type_name(d, MSPROF_REPORT_ACL_LEVEL, 0x03FFFF));
	ck_assert_str_eq(tu_hash_str(d, op), "MatMul_1");
	ck_assert_str_eq(tu_hash_str(d, ker), "matmul_kernel");
	/* the time base: CLOCK_RAW pairs at start and stop at least */
	ck_assert_uint_ge(tu_count_kind(d, NPUPROF_HOSTFMT_CLOCK_RAW), 2);
	{
		const struct npuprof_hostfmt_clock_raw *p0 = tu_nth_kind(d,
									 NPUPROF_HOSTFMT_CLOCK_RAW,
									 0);
		const struct npuprof_hostfmt_clock_raw *p1 =
			tu_nth_kind(d, NPUPROF_HOSTFMT_CLOCK_RAW,
				    tu_count_kind(d, NPUPROF_HOSTFMT_CLOCK_RAW) - 1);

		ck_assert_uint_le(p0->raw_ns, a.beginTime);
		ck_assert_uint_ge(p1->raw_ns, a.beginTime);
		ck_assert_uint_gt(p1->monotonic_ns, p0->monotonic_ns);
	}
	/* the refused reports, counted in the stream */
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_MSPROF_BAD), 1);
	bad = tu_nth_kind(d, NPUPROF_HOSTFMT_MSPROF_BAD, 0);
	ck_assert_uint_eq(bad->null_data, 2);
	ck_assert_uint_eq(bad->bad_magic, 1);
	ck_assert_uint_eq(bad->bad_length, 4);
	ck_assert_uint_eq(bad->unregistered, 1);
	ck_assert_uint_eq(bad->after_finalize, 1);
	ck_assert_uint_eq(bad->ring_full, 0);
	tu_free(d);

	/* after the collection: the names stay (a second stream starts with them) */
	c = start(NULL, 0, ACL_PROF_ACL_API | ACL_PROF_MSPROFTX);
	stop(c);
	npuprof_profapi_get_bad(&b);
	ck_assert_uint_eq(b.bad_magic, 0); /* counted per collection */
}
END_TEST

/* A forked child reports nothing into its parent's stream, and is told so. */
START_TEST(test_forked_child)
{
	struct MsprofApi a = api(MSPROF_REPORT_ACL_LEVEL, 0x030002, 1);
	aclprofConfig *c;
	pid_t pid;
	int st;

	ck_assert_int_eq(MsprofRegTypeInfo(MSPROF_REPORT_ACL_LEVEL, 0x030002, "aclrtFree"), 0);
	c = start(NULL, 0, ACL_PROF_ACL_API | ACL_PROF_MSPROFTX);
	/* a time as CANN reports it: a time of 1 lies a whole uptime before
	 * the session's clock pairs, and extrapolated that far their jitter
	 * on a loaded machine can put it before 0 (3 of 40 runs under load) */
	a.beginTime = MsprofSysCycleTime();
	a.endTime = a.beginTime + 7;
	ck_assert_int_eq(MsprofReportApi(0, &a), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct npuprof_profapi_bad b;
		int r = MsprofReportApi(0, &a);

		npuprof_profapi_get_bad(&b);
		_exit(r == MSPROF_ERROR_UNINITIALIZE && b.forked == 1 ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_int_eq(MsprofReportApi(0, &a), 0);
	stop(c);
	{
		struct decoded *d = tu_decode(tu_find_stream(g_dir));

		ck_assert_msg(d->ret == 0, "%s", d->err);
		ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_MSPROF_API), 2);
		tu_free(d);
	}
}
END_TEST

/* The attach route's command: handed to every module in CANN's order. */
START_TEST(test_set_prof_command)
{
	static const uint32_t m[] = { 7, 48 };
	struct MsprofCommandHandle c;

	ck_assert_int_eq(MsprofRegisterCallback(48, cb_acl), 0);
	ck_assert_int_eq(MsprofRegisterCallback(7, cb_runtime), 0);
	memset(&c, 0, sizeof(c));
	c.type = PROF_COMMANDHANDLE_TYPE_START;
	c.devNums = 1;
	c.devIdList[0] = 3;
	c.profSwitch = PROF_ACL_API_MASK;
	ck_assert_int_eq(profSetProfCommand(&c, sizeof(c)), 0);
	expect(0, PROF_COMMANDHANDLE_TYPE_START, 3, m, 2);
	ck_assert_int_eq(profSetProfCommand(&c, sizeof(c) - 1), -1);
	ck_assert_int_eq(profSetProfCommand(NULL, sizeof(c)), -1);
	ck_assert_int_eq(g_n, 2);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("profapi");
	TCase *tc = tcase_create("profapi");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_control_plane);
	tcase_add_test(tc, test_env_session);
	tcase_add_test(tc, test_records_as_reported);
	tcase_add_test(tc, test_forked_child);
	tcase_add_test(tc, test_set_prof_command);
	suite_add_tcase(s, tc);
	return s;
}
