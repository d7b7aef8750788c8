/*
 * cann_app.c - a program that reports host profiling data to libprofapi.so
 * the way CANN's libruntime, libascendcl and HCCL do, compiled only against
 * the reporter ABI headers (include/profiling: -Iinclude/profiling, nothing
 * of npuprof's own) and linked to libprofapi.so. tests/unit/test_cannrec_e2e.c
 * runs it under an environment-started session and checks the database
 * row by row.
 *
 * What it does, as the components do:
 *  - at load (the runtime), in aclInit (ascendcl) and at communicator init
 *    (HCCL): MsprofRegisterCallback(7 / 48 / 3) and the type names
 *    (MsprofRegTypeInfo); strings hashed (MsprofGetHashId) long before
 *    anything is reported;
 *  - MsprofNotifySetDevice(0, 0, true), then nothing is reported until the
 *    callbacks got START (PROF_CTRL_SWITCH, type START);
 *  - on the main thread: aclnnMatMul > node launch (node basic info, tensor
 *    info over two records) > KernelLaunch > a task track (entry + 1) with
 *    npuprof's task extension; aclrtMemcpyAsync > MemcpyAsync > a v2 task
 *    track and memcpy info; a model execute as an event pair around a task
 *    track;
 *  - on an HCCL thread: HcclAllReduce > node launch (basic info, HCCL op
 *    info) > an HCCL master API > two task tracks, an MsprofHcclInfo each;
 *  - MsprofNotifySetDevice(0, 0, false) and exit (the session ends with
 *    the process).
 * It prints "threads <main tid> <hccl tid>" for the checks.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "npuprof_ext.h"
#include "prof_api.h"

#define TT_KERNEL_AICORE 0
#define TT_MEMCPY_ASYNC 7
#define TT_NOTIFY_WAIT 9

static volatile int g_started[3];

static int32_t on_cmd(int who, uint32_t type, void *data, uint32_t len)
{
	const struct MsprofCommandHandle *c = data;

	if (type == PROF_CTRL_SWITCH && len >= sizeof(*c) &&
	    c->type == PROF_COMMANDHANDLE_TYPE_START)
		g_started[who] = 1;
	return 0;
}
static int32_t cb_runtime(uint32_t t, void *d, uint32_t l)
{
	return on_cmd(0, t, d, l);
}
static int32_t cb_acl(uint32_t t, void *d, uint32_t l)
{
	return on_cmd(1, t, d, l);
}
static int32_t cb_hccl(uint32_t t, void *d, uint32_t l)
{
	return on_cmd(2, t, d, l);
}

static uint32_t tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static uint64_t hash(const char *s)
{
	return MsprofGetHashId(s, strlen(s));
}

static void fail(const char *what)
{
	fprintf(stderr, "cann_app: %s\n", what);
	exit(1);
}

static void api(uint16_t level, uint32_t type, uint64_t begin, uint64_t end, uint64_t item)
{
	struct MsprofApi a;

	memset(&a, 0, sizeof(a));
	a.magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM;
	a.level = level;
	a.type = type;
	a.threadId = tid();
	a.beginTime = begin;
	a.endTime = end;
	a.itemId = item;
	if (MsprofReportApi(1, &a))
		fail("MsprofReportApi");
}

static void event(uint16_t level, uint32_t type, uint32_t req, uint64_t item)
{
	struct MsprofEvent e;

	memset(&e, 0, sizeof(e));
	e.magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM;
	e.level = level;
	e.type = type;
	e.threadId = tid();
	e.requestId = req;
	e.timeStamp = MsprofSysCycleTime();
	e.eventFlag = MSPROF_EVENT_FLAG;
	e.itemId = item;
	if (MsprofReportEvent(1, &e))
		fail("MsprofReportEvent");
}

static void compact(uint16_t level, uint32_t type, uint64_t ts, const void *data, uint32_t len)
{
	struct MsprofCompactInfo c;

	memset(&c, 0, sizeof(c));
	c.magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM;
	c.level = level;
	c.type = type;
	c.threadId = tid();
	c.dataLen = len;
	c.timeStamp = ts;
	memcpy(c.data.info, data, len);
	if (MsprofReportCompactInfo(1, &c, sizeof(c)))
		fail("MsprofReportCompactInfo");
}

static void additional(uint16_t level, uint32_t type, uint64_t ts, const void *data, uint32_t len)
{
	struct MsprofAdditionalInfo a;

	memset(&a, 0, sizeof(a));
	a.magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM;
	a.level = level;
	a.type = type;
	a.threadId = tid();
	a.dataLen = len;
	a.timeStamp = ts;
	memcpy(a.data, data, len);
	if (MsprofReportAdditionalInfo(1, &a, sizeof(a)))
		fail("MsprofReportAdditionalInfo");
}

static void spin(void)
{
	/* a little time inside an API, so that ranges nest strictly */
	uint64_t t = MsprofSysCycleTime();

	while (MsprofSysCycleTime() - t < 2000)
		;
}

static void task_track(uint64_t ts, uint16_t stream, uint32_t task, uint64_t type)
{
	struct MsprofRuntimeTrack r;

	memset(&r, 0, sizeof(r));
	r.deviceId = 0;
	r.streamId = stream;
	r.taskId = task;
	r.taskType = type;
	compact(MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_TASK_TRACK, ts, &r, sizeof(r));
}

static void tensor(struct MsrofTensorData *d, uint32_t io, uint32_t fmt, uint32_t dt, uint32_t s0,
		   uint32_t s1)
{
	memset(d, 0, sizeof(*d));
	d->tensorType = io;
	d->format = fmt;
	d->dataType = dt;
	d->shape[0] = s0;
	d->shape[1] = s1;
}

/* aclnnMatMul > launch > KernelLaunch > one AI core task */
static void matmul(void)
{
	uint64_t acl0 = MsprofSysCycleTime(), node0, rt0, rt1, node1;

	spin();
	node0 = MsprofSysCycleTime();
	spin();
	struct MsprofNodeBasicInfo bi = { .opName = hash("MatMul_0"),
					  .taskType = 0,
					  .opType = hash("MatMul"),
					  .blockDim = 24 | (2u << 16),
					  .opFlag = 0 };
	compact(MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_BASIC_INFO_TYPE, node0 + 1, &bi,
		sizeof(bi));
	struct MsprofTensorInfo ti;

	memset(&ti, 0, sizeof(ti));
	ti.opName = hash("MatMul_0");
	ti.tensorNum = 5;
	for (int i = 0; i < 5; i++)
		tensor(&ti.tensorData[i], 0, 2, 1, 16u << i, 8);
	additional(MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_TENSOR_INFO_TYPE, node0 + 1, &ti,
		   sizeof(ti));
	memset(&ti, 0, sizeof(ti));
	ti.opName = hash("MatMul_0");
	ti.tensorNum = 1;
	tensor(&ti.tensorData[0], 1, 29, 0, 16, 8);
	additional(MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_TENSOR_INFO_TYPE, node0 + 1, &ti,
		   sizeof(ti));
	rt0 = MsprofSysCycleTime();
	task_track(rt0 + 1, 3, (2u << 16) | 5, TT_KERNEL_AICORE);
	struct NpuprofTaskExt x = { .deviceId = 0,
				    .sqeType = 0,
				    .streamId = 3,
				    .taskId = (2u << 16) | 5,
				    .memcpyOp = NPUPROF_EXT_NO_MEMCPY,
				    .durationNs = 7000 };
	compact(NPUPROF_EXT_LEVEL, NPUPROF_EXT_TASK_TYPE, rt0 + 1, &x, sizeof(x));
	spin();
	rt1 = MsprofSysCycleTime();
	api(MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_API_BASE + 1, rt0, rt1, hash("MatMul_0"));
	spin();
	node1 = MsprofSysCycleTime();
	api(MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_LAUNCH_TYPE, node0, node1,
	    hash("MatMul_0"));
	spin();
	api(MSPROF_REPORT_ACL_LEVEL, MSPROF_REPORT_ACL_NN_BASE_TYPE + 1, acl0, MsprofSysCycleTime(),
	    0);
}

/* aclrtMemcpyAsync > MemcpyAsync > one copy */
static void memcpy_async(void)
{
	uint64_t acl0 = MsprofSysCycleTime(), rt0;

	spin();
	rt0 = MsprofSysCycleTime();
	struct MsprofRuntimeTrackV2 t;

	memset(&t, 0, sizeof(t));
	t.deviceId = 0;
	t.streamId = 4;
	t.taskId = 1;
	t.taskType = TT_MEMCPY_ASYNC;
	compact(MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_TASK_TRACK_V2, rt0 + 1, &t, sizeof(t));
	struct MsprofMemcpyInfo m = { .bytes = 65536, .copyKind = 2, .deviceId = 0, .streamId = 4 };
	compact(MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_MEMCPY_INFO, rt0 + 1, &m, sizeof(m));
	spin();
	api(MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_API_BASE + 2, rt0, MsprofSysCycleTime(),
	    0);
	spin();
	api(MSPROF_REPORT_ACL_LEVEL, MSPROF_REPORT_ACL_RUNTIME_BASE_TYPE + 5, acl0,
	    MsprofSysCycleTime(), 0);
}

/* a model execute reported as an event pair around one task */
static void model(void)
{
	event(MSPROF_REPORT_MODEL_LEVEL, MSPROF_REPORT_MODEL_EXECUTE_TYPE, 1, 1);
	spin();
	task_track(MsprofSysCycleTime(), 4, 2, TT_KERNEL_AICORE);
	spin();
	event(MSPROF_REPORT_MODEL_LEVEL, MSPROF_REPORT_MODEL_EXECUTE_TYPE, 1, 1);
}

static uint32_t g_hccl_tid;

static void hccl_info(uint64_t item, uint32_t role, uint64_t bytes)
{
	struct MsprofHcclInfo h;

	memset(&h, 0, sizeof(h));
	h.itemId = item;
	h.groupName = hash("hccl_world_group");
	h.localRank = 0;
	h.remoteRank = 1;
	h.rankSize = 2;
	h.planeID = 0;
	h.ctxId = MSPROF_HCCL_INVALID_UINT;
	h.notifyID = bytes ? UINT64_MAX : 12;
	h.role = role;
	h.durationEstimated = 1.5;
	h.dataSize = bytes;
	h.opType = MSPROF_HCCL_INVALID_UINT;
	h.dataType = bytes ? 4 : MSPROF_HCCL_INVALID_UINT;
	h.linkType = 1;
	h.transportType = bytes ? 0 : 2;
	h.rdmaType = MSPROF_HCCL_INVALID_UINT;
	additional(MSPROF_REPORT_HCCL_NODE_LEVEL, NPUPROF_CANN_HCCL_INFO_TYPE, MsprofSysCycleTime(),
		   &h, sizeof(h));
}

/* HcclAllReduce > launch > an HCCL master API > two tasks */
static void *hccl_thread(void *arg)
{
	uint64_t acl0, node0, h0, node1;

	(void)arg;
	g_hccl_tid = tid();
	acl0 = MsprofSysCycleTime();
	spin();
	node0 = MsprofSysCycleTime();
	struct MsprofNodeBasicInfo bi = { .opName = hash("hcom_allReduce__7_0_1"),
					  .taskType = 9,
					  .opType = hash("hcom_allReduce_") };
	compact(MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_BASIC_INFO_TYPE, node0 + 1, &bi,
		sizeof(bi));
	struct MsprofHCCLOPInfo ho;

	memset(&ho, 0, sizeof(ho));
	ho.relay = 1;
	ho.dataType = 4;
	ho.algType = hash("HD-MESH");
	ho.count = 262144;
	ho.groupName = hash("hccl_world_group");
	compact(MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_HCCL_OP_INFO_TYPE, node0 + 1, &ho,
		sizeof(ho));
	spin();
	h0 = MsprofSysCycleTime();
	task_track(MsprofSysCycleTime(), 9, 20, TT_NOTIFY_WAIT);
	hccl_info(hash("Notify_Wait"), 0, 0);
	spin();
	task_track(MsprofSysCycleTime(), 9, 21, TT_MEMCPY_ASYNC);
	hccl_info(hash("Memcpy"), 1, 1048576);
	spin();
	api(MSPROF_REPORT_HCCL_NODE_LEVEL, MSPROF_REPORT_HCCL_MASTER_TYPE, h0, MsprofSysCycleTime(),
	    hash("Launch_Ffts"));
	spin();
	node1 = MsprofSysCycleTime();
	api(MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_LAUNCH_TYPE, node0, node1,
	    hash("hcom_allReduce__7_0_1"));
	spin();
	api(MSPROF_REPORT_ACL_LEVEL, MSPROF_REPORT_ACL_HOST_HCCL_BASE_TYPE + 1, acl0,
	    MsprofSysCycleTime(), 0);
	return NULL;
}

int main(void)
{
	static const struct {
		uint16_t level;
		uint32_t type;
		const char *name;
	} names[] = {
		{ MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_API_BASE + 1, "KernelLaunch" },
		{ MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_API_BASE + 2, "MemcpyAsync" },
		{ MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_TASK_TRACK, "task_track" },
		{ MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_TASK_TRACK_V2, "task_track_v2" },
		{ MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_MEMCPY_INFO, "memcpy_info" },
		{ MSPROF_REPORT_RUNTIME_LEVEL, TT_KERNEL_AICORE, "KERNEL_AICORE" },
		{ MSPROF_REPORT_RUNTIME_LEVEL, TT_MEMCPY_ASYNC, "MEMCPY_ASYNC" },
		{ MSPROF_REPORT_RUNTIME_LEVEL, TT_NOTIFY_WAIT, "NOTIFY_WAIT" },
		{ NPUPROF_EXT_LEVEL, NPUPROF_EXT_TASK_TYPE, NPUPROF_EXT_TASK_NAME },
	};
	static const struct {
		uint16_t level;
		uint32_t type;
		const char *name;
	} acl_names[] = {
		{ MSPROF_REPORT_ACL_LEVEL, MSPROF_REPORT_ACL_NN_BASE_TYPE + 1, "aclnnMatMul" },
		{ MSPROF_REPORT_ACL_LEVEL, MSPROF_REPORT_ACL_RUNTIME_BASE_TYPE + 5,
		  "aclrtMemcpyAsync" },
		{ MSPROF_REPORT_MODEL_LEVEL, MSPROF_REPORT_MODEL_EXECUTE_TYPE, "ModelExecute" },
		{ MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_LAUNCH_TYPE, "launch" },
		{ MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_BASIC_INFO_TYPE, "node_basic_info" },
		{ MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_TENSOR_INFO_TYPE, "tensor_info" },
		{ MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_HCCL_OP_INFO_TYPE, "hccl_op_info" },
	};
	pthread_t th;

	/* the runtime, at load */
	if (MsprofRegisterCallback(7, cb_runtime))
		fail("MsprofRegisterCallback(RUNTIME)");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (MsprofRegTypeInfo(names[i].level, names[i].type, names[i].name))
			fail("MsprofRegTypeInfo");
	/* strings hashed long before a collection reports them */
	(void)hash("MatMul_0");
	/* libascendcl, in aclInit */
	if (MsprofRegisterCallback(48, cb_acl))
		fail("MsprofRegisterCallback(ASCENDCL)");
	for (size_t i = 0; i < sizeof(acl_names) / sizeof(acl_names[0]); i++)
		if (MsprofRegTypeInfo(acl_names[i].level, acl_names[i].type, acl_names[i].name))
			fail("MsprofRegTypeInfo");
	/* HCCL, at communicator init */
	if (MsprofRegisterCallback(3, cb_hccl) ||
	    MsprofRegTypeInfo(MSPROF_REPORT_ACL_LEVEL, MSPROF_REPORT_ACL_HOST_HCCL_BASE_TYPE + 1,
			      "HcclAllReduce") ||
	    MsprofRegTypeInfo(MSPROF_REPORT_HCCL_NODE_LEVEL, MSPROF_REPORT_HCCL_MASTER_TYPE,
			      "master") ||
	    MsprofRegTypeInfo(MSPROF_REPORT_HCCL_NODE_LEVEL, NPUPROF_CANN_HCCL_INFO_TYPE,
			      "hccl_info"))
		fail("HCCL registration");
	/* aclrtSetDevice */
	if (MsprofNotifySetDevice(0, 0, true))
		fail("MsprofNotifySetDevice");
	for (int i = 0; i < 5000 && !(g_started[0] && g_started[1] && g_started[2]); i++)
		usleep(1000);
	if (!(g_started[0] && g_started[1] && g_started[2]))
		fail("no START for every component");

	matmul();
	memcpy_async();
	model();
	if (pthread_create(&th, NULL, hccl_thread, NULL) || pthread_join(th, NULL))
		fail("pthread");
	printf("threads %u %u\n", tid(), g_hccl_tid);
	MsprofNotifySetDevice(0, 0, false);
	return 0;
}
