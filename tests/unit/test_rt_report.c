/*
 * test_rt_report.c - the runtime's CANN backend (user/runtime/rt_prof_cann.c)
 * reports what CANN's components report, through CANN's reporter ABI
 * (include/profiling/, docs/ascend-reference.md §11): the registration, the
 * switch per module and profSwitch bit, and every struct byte for byte.
 *
 * The backend and the layer above it (rt_prof.c) are linked in directly;
 * this file is the other side of the ABI: it defines the libprofapi.so
 * functions the backend calls and keeps what they are handed, so that each
 * report can be checked field by field. (That npuprof's own libprofapi.so
 * stores and exports such reports is that library's and the export's test;
 * the VM suites run the runtime over it.) HCCL's reports go through its
 * own dlopen("libprofapi.so"), which this test does not provide: they are
 * checked to be off.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "profiling/aprof_pub.h"
#include "profiling/npuprof_ext.h"
#include "profiling/prof_api.h"
#include "profiling/prof_common.h"
#include "rt_prof.h"

/* ---- the other side of the ABI --------------------------------------------- */

#define MAX_REP 64

static struct {
	ProfCommandHandle cb[64];
	uint32_t cb_module[64];
	int ncb;
	struct {
		uint16_t level;
		uint32_t type;
		char name[64];
	} types[256];
	int ntypes;
	struct MsprofApi api[MAX_REP];
	int napi;
	struct MsprofCompactInfo compact[MAX_REP];
	int ncompact;
	struct MsprofAdditionalInfo add[MAX_REP];
	int nadd;
	int inits, finals, reporter_init, reporter_uninit;
	uint32_t notify_dev[8];
	int notify_open[8];
	int nnotify;
	uint64_t clock;
} P;

int32_t MsprofRegisterCallback(uint32_t moduleId, ProfCommandHandle handle)
{
	P.cb_module[P.ncb] = moduleId;
	P.cb[P.ncb++] = handle;
	return 0;
}

int32_t MsprofRegTypeInfo(uint16_t level, uint32_t typeId, const char *typeName)
{
	P.types[P.ntypes].level = level;
	P.types[P.ntypes].type = typeId;
	snprintf(P.types[P.ntypes].name, sizeof(P.types[0].name), "%s", typeName);
	P.ntypes++;
	return 0;
}

int32_t MsprofReportApi(uint32_t flag, const struct MsprofApi *api)
{
	ck_assert_uint_eq(flag, 1);
	ck_assert_int_lt(P.napi, MAX_REP);
	P.api[P.napi++] = *api;
	return 0;
}

int32_t MsprofReportCompactInfo(uint32_t flag, const VOID_PTR data, uint32_t length)
{
	ck_assert_uint_eq(flag, 1);
	ck_assert_uint_eq(length, sizeof(struct MsprofCompactInfo));
	ck_assert_int_lt(P.ncompact, MAX_REP);
	memcpy(&P.compact[P.ncompact++], data, length);
	return 0;
}

int32_t MsprofReportAdditionalInfo(uint32_t flag, const VOID_PTR data, uint32_t length)
{
	ck_assert_uint_eq(flag, 1);
	ck_assert_uint_eq(length, sizeof(struct MsprofAdditionalInfo));
	ck_assert_int_lt(P.nadd, MAX_REP);
	memcpy(&P.add[P.nadd++], data, length);
	return 0;
}

/* any function of the string will do: the backend passes hashes through */
uint64_t MsprofGetHashId(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* CLOCK_MONOTONIC_RAW ns, as npuprof's libprofapi.so answers, made strictly
 * increasing (so that nesting shows in the times) */
uint64_t MsprofSysCycleTime(void)
{
	struct timespec ts;
	uint64_t t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	t = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	P.clock = t > P.clock ? t : P.clock + 1;
	return P.clock;
}

int32_t MsprofInit(uint32_t dataType, void *data, uint32_t dataLen)
{
	ck_assert_uint_eq(dataType, MSPROF_CTRL_INIT_DYNA);
	ck_assert_ptr_null(data);
	ck_assert_uint_eq(dataLen, 0);
	P.inits++;
	return 0;
}

int32_t MsprofFinalize(void)
{
	P.finals++;
	return 0;
}

int32_t MsprofNotifySetDevice(uint32_t chipId, uint32_t deviceId, bool isOpen)
{
	ck_assert_uint_eq(chipId, 0);
	P.notify_dev[P.nnotify] = deviceId;
	P.notify_open[P.nnotify++] = isOpen;
	return 0;
}

int32_t MsprofReportData(uint32_t moduleId, uint32_t type, VOID_PTR data, uint32_t len)
{
	ck_assert_uint_eq(moduleId, MSPROF_MODULE_RUNTIME);
	ck_assert_ptr_null(data);
	ck_assert_uint_eq(len, 0);
	if (type == MSPROF_REPORTER_INIT)
		P.reporter_init++;
	else if (type == MSPROF_REPORTER_UNINIT)
		P.reporter_uninit++;
	return 0;
}

/* what rt_prof.c needs of the rest of the runtime */
__thread int rt_cur_dev = -1;

/* ---- helpers -------------------------------------------------------------- */

static ProfCommandHandle handler(uint32_t module)
{
	for (int i = 0; i < P.ncb; i++)
		if (P.cb_module[i] == module)
			return P.cb[i];
	return NULL;
}

static int32_t send(uint32_t module, uint32_t type, uint64_t sw, uint32_t dev)
{
	struct MsprofCommandHandle c;
	ProfCommandHandle h = handler(module);

	ck_assert_ptr_nonnull(h);
	memset(&c, 0, sizeof(c));
	c.profSwitch = sw;
	c.type = type;
	c.devNums = 1;
	c.devIdList[0] = dev;
	return h(PROF_CTRL_SWITCH, &c, sizeof(c));
}

static void start(uint32_t module, uint64_t sw, uint32_t dev)
{
	ck_assert_int_eq(send(module, PROF_COMMANDHANDLE_TYPE_INIT, sw, dev), 0);
	ck_assert_int_eq(send(module, PROF_COMMANDHANDLE_TYPE_START, sw, dev), 0);
}

/* the registered name of (level, type), or NULL */
static const char *type_name(uint16_t level, uint32_t type)
{
	for (int i = 0; i < P.ntypes; i++)
		if (P.types[i].level == level && P.types[i].type == type)
			return P.types[i].name;
	return NULL;
}

static void head_ok(uint16_t magic, uint16_t level, uint32_t type, uint32_t tid, uint16_t lv,
		    uint32_t ty)
{
	ck_assert_uint_eq(magic, MSPROF_REPORT_DATA_MAGIC_NUM);
	ck_assert_uint_eq(level, lv);
	ck_assert_uint_eq(type, ty);
	ck_assert_uint_eq(tid, (uint32_t)syscall(SYS_gettid));
}

/* a task as rt_submit hands it to the reporting layer */
static void task(struct rt_task *t, unsigned sqe_type, const char *type_name)
{
	memset(t, 0, sizeof(*t));
	t->sqe.type = (uint8_t)sqe_type;
	t->type_name = type_name;
	t->memcpy_op = NPUPROF_ENUM_INVALID;
}

static void reset_reports(void)
{
	P.napi = P.ncompact = P.nadd = 0;
}

/* ---- tests ------------------------------------------------------------------ */

START_TEST(registered_at_load)
{
	/* the constructor ran before main: RUNTIME's handler and the fixed
	 * names, as CANN's runtime registers them */
	ck_assert_ptr_nonnull(handler(7));
	ck_assert_ptr_null(handler(48)); /* ASCENDCL: only in aclInit */
	ck_assert_str_eq(type_name(MSPROF_REPORT_RUNTIME_LEVEL, 802), NPUPROF_CANN_TASK_TRACK_NAME);
	ck_assert_str_eq(type_name(MSPROF_REPORT_RUNTIME_LEVEL, 801),
			 NPUPROF_CANN_MEMCPY_INFO_NAME);
	ck_assert_str_eq(type_name(MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_LAUNCH_TYPE),
			 "launch");
	ck_assert_str_eq(type_name(MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_BASIC_INFO_TYPE),
			 NPUPROF_CANN_NODE_BASIC_INFO_NAME);
	ck_assert_str_eq(type_name(NPUPROF_EXT_LEVEL, NPUPROF_EXT_TASK_TYPE),
			 NPUPROF_EXT_TASK_NAME);
	for (int d = RTPROF_ACL_API; d <= RTPROF_HCCL; d++)
		ck_assert_int_eq(rtprof_on(d), 0);
}
END_TEST

START_TEST(switch_bits)
{
	rtprof_acl_init();
	ck_assert_int_eq(P.inits, 1);
	ck_assert_ptr_nonnull(handler(48));
	/* task time only: node info and task tracks (CANN adds the runtime
	 * trace), no runtime APIs, no legacy reporter */
	start(7, PROF_TASK_TIME_MASK, 0);
	ck_assert_int_eq(rtprof_on(RTPROF_NODE), 1);
	ck_assert_int_eq(rtprof_on(RTPROF_TASK_TRACK), 1);
	ck_assert_int_eq(rtprof_on(RTPROF_RUNTIME_API), 0);
	ck_assert_int_eq(P.reporter_init, 0);
	/* ACL reports only when its START carries the ACL API bit */
	start(48, PROF_TASK_TIME_MASK, 0);
	ck_assert_int_eq(rtprof_on(RTPROF_ACL_API), 0);
	start(48, PROF_ACL_API_MASK, 0);
	ck_assert_int_eq(rtprof_on(RTPROF_ACL_API), 1);
	/* runtime APIs: the legacy reporter opens once */
	start(7, PROF_RUNTIME_API_MASK | PROF_TASK_TIME_MASK, 1);
	ck_assert_int_eq(rtprof_on(RTPROF_RUNTIME_API), 1);
	ck_assert_int_eq(P.reporter_init, 1);
	/* a device still started keeps reporting on; the last stop ends it */
	ck_assert_int_eq(send(7, PROF_COMMANDHANDLE_TYPE_STOP, 0, 0), 0);
	ck_assert_int_eq(rtprof_on(RTPROF_TASK_TRACK), 1);
	ck_assert_int_eq(send(7, PROF_COMMANDHANDLE_TYPE_STOP, 0, 1), 0);
	ck_assert_int_eq(rtprof_on(RTPROF_TASK_TRACK), 0);
	ck_assert_int_eq(rtprof_on(RTPROF_RUNTIME_API), 0);
	ck_assert_int_eq(P.reporter_uninit, 1);
	ck_assert_int_eq(send(48, PROF_COMMANDHANDLE_TYPE_STOP, PROF_ACL_API_MASK, 0), 0);
	ck_assert_int_eq(rtprof_on(RTPROF_ACL_API), 0);
	/* HCCL never registered here (no libprofapi.so to dlopen) */
	rtprof_hccl_init();
	ck_assert_ptr_null(handler(3));
	ck_assert_int_eq(rtprof_on(RTPROF_HCCL), 0);
	/* bad commands: refused, nothing changes */
	ck_assert_int_ne(handler(7)(PROF_CTRL_SWITCH, NULL, 0), 0);
	{
		struct MsprofCommandHandle c = { .profSwitch = PROF_TASK_TIME_MASK,
						 .type = PROF_COMMANDHANDLE_TYPE_START,
						 .devNums = 65 };

		ck_assert_int_ne(handler(7)(PROF_CTRL_SWITCH, &c, sizeof(c)), 0);
		ck_assert_int_ne(handler(7)(PROF_CTRL_SWITCH, &c, sizeof(c) - 1), 0);
	}
	ck_assert_int_eq(rtprof_on(RTPROF_TASK_TRACK), 0);
	rtprof_acl_finalize();
	ck_assert_int_eq(P.finals, 0); /* the collection ends profiling */
}
END_TEST

START_TEST(notify_set_device)
{
	rtprof_set_device(3, 1);
	rtprof_set_device(3, 0);
	ck_assert_int_eq(P.nnotify, 2);
	ck_assert_uint_eq(P.notify_dev[0], 3);
	ck_assert_int_eq(P.notify_open[0], 1);
	ck_assert_int_eq(P.notify_open[1], 0);
}
END_TEST

START_TEST(api_ranges)
{
	struct rt_api acl, node, rt, acl2, nn;
	uint32_t t_acl;

	rtprof_acl_init();
	start(48, PROF_ACL_API_MASK, 0);
	start(7, PROF_RUNTIME_API_MASK | PROF_TASK_TIME_MASK, 0);
	rt_api_begin(&acl, NPUPROF_API_ACL, "aclrtMemcpyAsync", NULL);
	rt_api_begin(&node, NPUPROF_API_NODE, "launch", "Add_0");
	rt_api_begin(&rt, NPUPROF_API_RUNTIME, "KernelLaunch", "Add_0");
	ck_assert_int_eq(rt_api_end(&rt, 0), 0);
	rt_api_end(&node, 0);
	rt_api_end(&acl, 0);
	rt_api_begin(&acl2, NPUPROF_API_ACL, "aclrtMemcpyAsync", NULL);
	rt_api_end(&acl2, 0);
	rt_api_begin(&nn, NPUPROF_API_ACL, "aclnnAdd", NULL);
	rt_api_end(&nn, 0);
	ck_assert_int_eq(P.napi, 5);
	/* innermost first, as each range ends */
	head_ok(P.api[0].magicNumber, P.api[0].level, P.api[0].type, P.api[0].threadId,
		MSPROF_REPORT_RUNTIME_LEVEL, P.api[0].type);
	ck_assert_uint_ge(P.api[0].type, 1000);
	ck_assert_str_eq(type_name(MSPROF_REPORT_RUNTIME_LEVEL, P.api[0].type), "KernelLaunch");
	ck_assert_uint_eq(P.api[0].itemId, MsprofGetHashId("Add_0", 5));
	head_ok(P.api[1].magicNumber, P.api[1].level, P.api[1].type, P.api[1].threadId,
		MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_LAUNCH_TYPE);
	ck_assert_uint_eq(P.api[1].itemId, MsprofGetHashId("Add_0", 5));
	t_acl = P.api[2].type;
	head_ok(P.api[2].magicNumber, P.api[2].level, P.api[2].type, P.api[2].threadId,
		MSPROF_REPORT_ACL_LEVEL, t_acl);
	ck_assert_uint_eq(t_acl >> 16, MSPROF_REPORT_ACL_RUNTIME_BASE_TYPE >> 16);
	ck_assert_str_eq(type_name(MSPROF_REPORT_ACL_LEVEL, t_acl), "aclrtMemcpyAsync");
	ck_assert_uint_eq(P.api[2].itemId, 0);
	/* nesting in time: every time from MsprofSysCycleTime */
	ck_assert_uint_lt(P.api[2].beginTime, P.api[1].beginTime);
	ck_assert_uint_lt(P.api[1].beginTime, P.api[0].beginTime);
	ck_assert_uint_lt(P.api[0].endTime, P.api[1].endTime);
	ck_assert_uint_lt(P.api[1].endTime, P.api[2].endTime);
	ck_assert_uint_le(P.api[2].endTime, P.clock);
	/* a name keeps its type, registered once */
	ck_assert_uint_eq(P.api[3].type, t_acl);
	{
		int n = 0;

		for (int i = 0; i < P.ntypes; i++)
			n += !strcmp(P.types[i].name, "aclrtMemcpyAsync");
		ck_assert_int_eq(n, 1);
	}
	ck_assert_uint_eq(P.api[4].type >> 16, MSPROF_REPORT_ACL_NN_BASE_TYPE >> 16);
	ck_assert_str_eq(type_name(MSPROF_REPORT_ACL_LEVEL, P.api[4].type), "aclnnAdd");
	/* switched off: nothing is built */
	ck_assert_int_eq(send(48, PROF_COMMANDHANDLE_TYPE_STOP, PROF_ACL_API_MASK, 0), 0);
	rt_api_begin(&acl, NPUPROF_API_ACL, "aclrtMemcpyAsync", NULL);
	ck_assert_int_eq(acl.on, 0);
	rt_api_end(&acl, 0);
	ck_assert_int_eq(P.napi, 5);
}
END_TEST

START_TEST(task_tracks)
{
	struct rt_stream s = { .dev = 1, .sid = 3 };
	struct rt_task t, m;
	const struct MsprofCompactInfo *c;
	struct NpuprofTaskExt ext;
	uint32_t ty;

	reset_reports();
	task(&t, NPUSIM_SQE_AI_CORE, "KERNEL_AICORE");
	t.kernel = "Add_0";
	t.sqe.block_dim = 8;
	t.model.duration_ns = 12345;
	t.task_id = 5;
	t.batch_id = 2;
	t.time_ns = 777;
	rtprof_task_track(1, &s, &t);
	ck_assert_int_eq(P.ncompact, 2); /* the track and its extension */
	c = &P.compact[0];
	head_ok(c->magicNumber, c->level, c->type, c->threadId, MSPROF_REPORT_RUNTIME_LEVEL, 802);
	ck_assert_uint_eq(c->dataLen, sizeof(struct MsprofRuntimeTrack));
	ck_assert_uint_eq(c->timeStamp, 777);
	ck_assert_uint_eq(c->data.runtimeTrack.deviceId, 1);
	ck_assert_uint_eq(c->data.runtimeTrack.streamId, 3);
	ck_assert_uint_eq(c->data.runtimeTrack.taskId, (2u << 16) | 5);
	ty = (uint32_t)c->data.runtimeTrack.taskType;
	ck_assert_uint_le(ty, 800);
	ck_assert_str_eq(type_name(MSPROF_REPORT_RUNTIME_LEVEL, ty), "KERNEL_AICORE");
	ck_assert_uint_eq(c->data.runtimeTrack.kernelName, MsprofGetHashId("Add_0", 5));
	ck_assert_uint_eq(c->data.runtimeTrack.extInfo.kernelInfo.numBlocks, 8);
	c = &P.compact[1];
	head_ok(c->magicNumber, c->level, c->type, c->threadId, NPUPROF_EXT_LEVEL,
		NPUPROF_EXT_TASK_TYPE);
	ck_assert_uint_eq(c->dataLen, sizeof(ext));
	ck_assert_uint_eq(c->timeStamp, 777);
	memcpy(&ext, c->data.info, sizeof(ext));
	ck_assert_uint_eq(ext.deviceId, 1);
	ck_assert_uint_eq(ext.sqeType, NPUSIM_SQE_AI_CORE);
	ck_assert_uint_eq(ext.streamId, 3);
	ck_assert_uint_eq(ext.taskId, (2u << 16) | 5);
	ck_assert_uint_eq(ext.memcpyOp, NPUPROF_EXT_NO_MEMCPY);
	ck_assert_uint_eq(ext.traceTag, 0);
	ck_assert_uint_eq(ext.durationNs, 12345);
	ck_assert_uint_eq(ext.bytes, 0);

	/* a copy adds its memcpy info (801); a task type keeps its id */
	task(&m, NPUSIM_SQE_SDMA, "MEMCPY_ASYNC");
	m.bytes = 4096;
	m.memcpy_op = 1;
	m.task_id = 6;
	m.time_ns = 800;
	rtprof_task_track(1, &s, &m);
	rtprof_task_track(1, &s, &t);
	ck_assert_int_eq(P.ncompact, 7);
	c = &P.compact[3];
	head_ok(c->magicNumber, c->level, c->type, c->threadId, MSPROF_REPORT_RUNTIME_LEVEL, 801);
	ck_assert_uint_eq(c->data.memcpyInfo.bytes, 4096);
	ck_assert_uint_eq(c->data.memcpyInfo.copyKind, 1);
	ck_assert_uint_eq(c->data.memcpyInfo.deviceId, 1);
	ck_assert_uint_eq(c->data.memcpyInfo.streamId, 3);
	memcpy(&ext, P.compact[4].data.info, sizeof(ext));
	ck_assert_uint_eq(ext.memcpyOp, 1);
	ck_assert_uint_eq(ext.bytes, 4096);
	ck_assert_uint_ne(P.compact[2].data.runtimeTrack.taskType, ty);
	ck_assert_uint_eq(P.compact[5].data.runtimeTrack.taskType, ty);
}
END_TEST

START_TEST(operator_info)
{
	aclnpuTensorDesc in[5], out[2];
	aclnpuOpDesc d;
	struct rt_stream s = { .dev = 0, .sid = 2 };
	struct rt_task t;
	struct MsprofTensorInfo ti;
	uint64_t op = MsprofGetHashId("MatMul_0", 8);

	reset_reports();
	memset(&d, 0, sizeof(d));
	for (int i = 0; i < 5; i++)
		in[i] = (aclnpuTensorDesc){ .dataType = ACL_FLOAT16,
					    .format = ACL_FORMAT_ND,
					    .numDims = 2,
					    .dims = { 32, i + 1 } };
	for (int i = 0; i < 2; i++)
		out[i] = (aclnpuTensorDesc){ .dataType = ACL_FLOAT,
					     .format = ACL_FORMAT_NCHW,
					     .numDims = 1,
					     .dims = { 64 } };
	d.size = sizeof(d);
	d.opName = "MatMul_0";
	d.opType = "MatMul";
	d.blockDim = 20;
	d.mixBlockDim = 40;
	d.opFlag = 1;
	d.numInputs = 5;
	d.inputs = in;
	d.numOutputs = 2;
	d.outputs = out;
	d.attrInfo = "transpose:0";
	d.replayFlags = ACLNPU_REPLAY_CONTEXT;
	d.contextId = 9;
	task(&t, NPUSIM_SQE_AI_CORE, "KERNEL_MIX_AIC");
	t.time_ns = 4242;
	rtprof_compute_op(&d, "MIX_AIC", 0, &s, &t);
	/* basic info + attr (compact), 2 tensor records + context ids */
	ck_assert_int_eq(P.ncompact, 2);
	ck_assert_int_eq(P.nadd, 3);
	head_ok(P.compact[0].magicNumber, P.compact[0].level, P.compact[0].type,
		P.compact[0].threadId, MSPROF_REPORT_NODE_LEVEL,
		MSPROF_REPORT_NODE_BASIC_INFO_TYPE);
	ck_assert_uint_eq(P.compact[0].timeStamp, 4242);
	ck_assert_uint_eq(P.compact[0].data.nodeBasicInfo.opName, op);
	ck_assert_uint_eq(P.compact[0].data.nodeBasicInfo.opType, MsprofGetHashId("MatMul", 6));
	ck_assert_uint_eq(P.compact[0].data.nodeBasicInfo.taskType, MSPROF_GE_TASK_TYPE_MIX_AIC);
	ck_assert_uint_eq(P.compact[0].data.nodeBasicInfo.blockDim, 20 | (2u << 16));
	ck_assert_uint_eq(P.compact[0].data.nodeBasicInfo.opFlag, 1);
	memcpy(&ti, P.add[0].data, sizeof(ti));
	head_ok(P.add[0].magicNumber, P.add[0].level, P.add[0].type, P.add[0].threadId,
		MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_TENSOR_INFO_TYPE);
	ck_assert_uint_eq(P.add[0].timeStamp, 4242);
	ck_assert_uint_eq(ti.opName, op);
	ck_assert_uint_eq(ti.tensorNum, 5);
	ck_assert_uint_eq(ti.tensorData[4].tensorType, MSPROF_GE_TENSOR_TYPE_INPUT);
	ck_assert_uint_eq(ti.tensorData[4].dataType, ACL_FLOAT16);
	ck_assert_uint_eq(ti.tensorData[4].format, ACL_FORMAT_ND);
	ck_assert_uint_eq(ti.tensorData[4].shape[0], 32);
	ck_assert_uint_eq(ti.tensorData[4].shape[1], 5);
	ck_assert_uint_eq(ti.tensorData[4].shape[2], 0);
	memcpy(&ti, P.add[1].data, sizeof(ti));
	ck_assert_uint_eq(ti.tensorNum, 2);
	ck_assert_uint_eq(ti.tensorData[1].tensorType, MSPROF_GE_TENSOR_TYPE_OUTPUT);
	ck_assert_uint_eq(ti.tensorData[1].dataType, ACL_FLOAT);
	ck_assert_uint_eq(ti.tensorData[1].shape[0], 64);
	{
		struct MsprofAttrInfo at;

		ck_assert_uint_eq(P.compact[1].type, MSPROF_REPORT_NODE_ATTR_INFO_TYPE);
		memcpy(&at, P.compact[1].data.info, sizeof(at));
		ck_assert_uint_eq(at.opName, op);
		ck_assert_uint_eq(at.hashId, MsprofGetHashId("transpose:0", 11));
	}
	{
		struct MsprofContextIdInfo ci;

		ck_assert_uint_eq(P.add[2].type, MSPROF_REPORT_NODE_CONTEXT_ID_INFO_TYPE);
		memcpy(&ci, P.add[2].data, sizeof(ci));
		ck_assert_uint_eq(ci.opName, op);
		ck_assert_uint_eq(ci.ctxIdNum, 1);
		ck_assert_uint_eq(ci.ctxIds[0], 9);
	}
}
END_TEST

/* a replay: its API ranges come with their own (CLOCK_MONOTONIC) times,
 * and each task with its range's connectionId is reported inside it */
START_TEST(replay_placement)
{
	struct timespec ts;
	uint64_t mono, conn, other;
	struct rt_task a, b, c, live;

	reset_reports();
	start(7, PROF_TASK_TIME_MASK, 0);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	mono = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	rtprof_api_range(NPUPROF_API_NODE, "launch", mono + 1000, mono + 1002, &conn);
	rtprof_api_range(NPUPROF_API_NODE, "launch", mono + 5000, mono + 6000, &other);
	ck_assert_int_eq(P.napi, 2);
	ck_assert_uint_eq(P.api[0].type, MSPROF_REPORT_NODE_LAUNCH_TYPE);
	ck_assert_uint_eq(P.api[0].endTime - P.api[0].beginTime, 2);
	/* the two clocks' offset, read at each call: within a few us */
	ck_assert_uint_ge(P.api[1].beginTime - P.api[0].beginTime, 4000 - 2000);
	ck_assert_uint_le(P.api[1].beginTime - P.api[0].beginTime, 4000 + 2000);
	task(&a, NPUSIM_SQE_AI_CORE, "KERNEL_AICORE");
	b = c = live = a;
	a.has_conn = b.has_conn = c.has_conn = 1;
	a.conn = b.conn = c.conn = conn;
	live.time_ns = 99;
	rtprof_place(&a);
	rtprof_place(&b);
	rtprof_place(&c);
	rtprof_place(&live);
	ck_assert_uint_eq(a.time_ns, P.api[0].beginTime);
	ck_assert_uint_eq(b.time_ns, P.api[0].beginTime + 1);
	ck_assert_uint_eq(c.time_ns, P.api[0].endTime); /* never past its end */
	ck_assert_uint_eq(live.time_ns, 99); /* no explicit connectionId: as submitted */
	a.conn = other;
	rtprof_place(&a);
	ck_assert_uint_eq(a.time_ns, P.api[1].beginTime);
	a.conn = other + 1000000; /* no such range (a MarkEx marker's id) */
	a.time_ns = 7;
	rtprof_place(&a);
	ck_assert_uint_eq(a.time_ns, 7);
}
END_TEST

START_TEST(strings)
{
	ck_assert_uint_eq(rtprof_str(NULL), NPUPROF_HOSTFMT_NO_STRING);
	ck_assert_uint_eq(rtprof_str(""), NPUPROF_HOSTFMT_NO_STRING);
	ck_assert_uint_eq(rtprof_str("abc"), MsprofGetHashId("abc", 3));
	/* every timestamp is MsprofSysCycleTime's */
	ck_assert_uint_eq(rtprof_now(), P.clock);
	ck_assert_uint_eq(rtprof_now(), P.clock);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("rt_report");
	TCase *tc = tcase_create("cann");

	tcase_add_test(tc, registered_at_load);
	tcase_add_test(tc, switch_bits);
	tcase_add_test(tc, notify_set_device);
	tcase_add_test(tc, api_ranges);
	tcase_add_test(tc, task_tracks);
	tcase_add_test(tc, operator_info);
	tcase_add_test(tc, replay_placement);
	tcase_add_test(tc, strings);
	suite_add_tcase(s, tc);
	return s;
}
