/*
 * rt_test.c - in-guest tests of npuprof's ACL runtime on npusim
 * (run by tests/vm/suite_40_runtime.sh; npusim must be loaded).
 *
 *   rt_test order        stream order, events, synchronisation, each
 *                        stream's logic CQ and its reports received
 *   rt_test errors       error codes: uninitialised use, bad handles
 *   rt_test hccl N       every collective on N devices completes with the
 *                        documented sub-task counts (hccl/hccl.h)
 *   rt_test profile DIR  runtime records under aclprofStart: API ranges,
 *                        task track, compute op, HCCL op/task, MarkEx
 *                        device marker, connectionId rules, string ids
 *   rt_test midway DIR   a launch that profiling caught midway (started
 *                        from inside it) leaves no half record behind
 *   rt_test announce DIR a thread setting a device that another thread
 *                        opened and is announcing to the profiler waits
 *                        until the announcement is over
 * Exit 0 on success; every failed check prints its line.
 */
#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "hccl/hccl.h"
#include "cannrec.h"
#include "profiling/aprof_pub.h"
#include "npuprof/hostread.h"
#include "uapi/npusim.h"

static int failures;
#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                                              \
		}                                                                                \
	} while (0)
#define EQ(a, b)                                                                                 \
	do {                                                                                     \
		long long a_ = (long long)(a), b_ = (long long)(b);                              \
		if (a_ != b_) {                                                                  \
			fprintf(stderr, "%s:%d: %s = %lld, expected %lld\n", __FILE__, __LINE__, \
				#a, a_, b_);                                                     \
			failures++;                                                              \
		}                                                                                \
	} while (0)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- task observer: counts per device and type ------------------------- */

struct seen {
	int dev;
	char type[32];
	uint32_t sqe;
	int n;
};
static struct seen g_seen[64];
static int g_nseen, g_total;
static aclnpuTaskRecord g_last;

static void observer(void *ctx, const aclnpuTaskRecord *t)
{
	int i;

	(void)ctx;
	g_total++;
	g_last = *t;
	for (i = 0; i < g_nseen; i++)
		if (g_seen[i].dev == t->deviceId && !strcmp(g_seen[i].type, t->taskTypeName))
			break;
	if (i == g_nseen && g_nseen < 64) {
		g_seen[i].dev = t->deviceId;
		snprintf(g_seen[i].type, sizeof(g_seen[i].type), "%s", t->taskTypeName);
		g_seen[i].sqe = t->sqeType;
		g_seen[i].n = 0;
		g_nseen++;
	}
	g_seen[i].n++;
}

static int seen(int dev, const char *type)
{
	for (int i = 0; i < g_nseen; i++)
		if (g_seen[i].dev == dev && !strcmp(g_seen[i].type, type))
			return g_seen[i].n;
	return 0;
}

static void reset_seen(void)
{
	g_nseen = 0;
	g_total = 0;
}

static void kernel(aclrtStream s, const char *name, aclnpuTaskKind kind, uint64_t ns)
{
	aclnpuTensorDesc t = { ACL_FLOAT16, ACL_FORMAT_ND, 2, { 32, 1024 } };
	aclnpuOpDesc d;

	memset(&d, 0, sizeof(d));
	d.size = sizeof(d);
	d.opName = name;
	d.opType = "Add";
	d.taskKind = kind;
	d.blockDim = 8;
	d.durationNs = ns;
	d.numInputs = 1;
	d.inputs = &t;
	d.numOutputs = 1;
	d.outputs = &t;
	EQ(aclnpuLaunchOp(&d, s), ACL_SUCCESS);
}

/* ---- order ----------------------------------------------------------------- */

/* The logic CQs of device 0 (this process is its only user): how many,
 * and the sums of their enque, pending and full_drop counts. */
struct lcq_sums {
	long long n, enque, pending, full_drop;
};

static struct lcq_sums logic_cqs(void)
{
	struct lcq_sums t = { 0, 0, 0, 0 };
	char line[512];
	FILE *f = fopen("/proc/trs_chan/dev0-ts0/summary", "r");
	unsigned int id, depth, head, tail, pending;
	unsigned long long enque, drop;

	if (!f) {
		t.n = -1;
		return t;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line,
			   "logic_cq %u depth %u head %u tail %u pending %u enque %llu full_drop %llu",
			   &id, &depth, &head, &tail, &pending, &enque, &drop) == 7) {
			t.n++;
			t.enque += (long long)enque;
			t.pending += pending;
			t.full_drop += (long long)drop;
		}
	fclose(f);
	return t;
}

static int t_order(void)
{
	aclrtStream a, b;
	aclrtEvent e, done;
	aclrtEventRecordedStatus st;
	uint64_t t0;

	EQ(aclInit(NULL), ACL_SUCCESS);
	EQ(aclrtSetDevice(0), ACL_SUCCESS);
	EQ(aclrtCreateStream(&a), ACL_SUCCESS);
	EQ(aclrtCreateStream(&b), ACL_SUCCESS);
	EQ(aclrtCreateEvent(&e), ACL_SUCCESS);
	EQ(aclrtCreateEvent(&done), ACL_SUCCESS);
	aclnpuSetTaskObserver(observer, NULL);

	/* task ids run 0, 1, 2 ... per stream, in submission order */
	for (int i = 0; i < 100; i++) {
		kernel(a, "k", ACLNPU_TASK_AI_VECTOR_CORE, 1000);
		EQ(g_last.taskId, i);
	}
	EQ(aclrtSynchronizeStream(a), ACL_SUCCESS);

	/* b waits for a's event behind a 30 ms kernel: b's sync cannot return
	 * before it, and the event is not complete until then */
	t0 = now_ns();
	kernel(a, "long", ACLNPU_TASK_AI_CORE, 30000000);
	EQ(aclrtRecordEvent(e, a), ACL_SUCCESS);
	EQ(aclrtStreamWaitEvent(b, e), ACL_SUCCESS);
	kernel(b, "after", ACLNPU_TASK_AI_VECTOR_CORE, 1000);
	EQ(aclrtRecordEvent(done, b), ACL_SUCCESS);
	EQ(aclrtQueryEventStatus(done, &st), ACL_SUCCESS);
	EQ(st, ACL_EVENT_RECORDED_STATUS_NOT_READY);
	EQ(aclrtSynchronizeStream(b), ACL_SUCCESS);
	CHECK(now_ns() - t0 >= 30000000);
	EQ(aclrtQueryEventStatus(done, &st), ACL_SUCCESS);
	EQ(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);
	EQ(aclrtQueryEventStatus(e, &st), ACL_SUCCESS);
	EQ(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);

	/* aclrtSynchronizeEvent waits for exactly the record */
	t0 = now_ns();
	kernel(a, "long2", ACLNPU_TASK_AI_CORE, 20000000);
	EQ(aclrtRecordEvent(e, a), ACL_SUCCESS);
	EQ(aclrtSynchronizeEvent(e), ACL_SUCCESS);
	CHECK(now_ns() - t0 >= 20000000);

	/* device sync covers every stream, the default one included */
	kernel(NULL, "dflt", ACLNPU_TASK_AI_CORE, 10000000);
	kernel(b, "b", ACLNPU_TASK_AI_CORE, 10000000);
	EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);

	/* copies move data and run an SDMA task */
	{
		char src[256], dst[256];
		void *dev;

		memset(src, 7, sizeof(src));
		EQ(aclrtMalloc(&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
		EQ(aclrtMemcpyAsync(dev, 256, src, 256, ACL_MEMCPY_HOST_TO_DEVICE, a), ACL_SUCCESS);
		EQ(g_last.sqeType, NPUSIM_SQE_SDMA);
		EQ(aclrtMemcpy(dst, 256, dev, 256, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
		CHECK(memcmp(src, dst, 256) == 0);
		EQ(aclrtSynchronizeStream(a), ACL_SUCCESS);
		EQ(aclrtFree(dev), ACL_SUCCESS);
	}
	EQ(seen(0, "KERNEL_AIVEC"), 101);
	EQ(seen(0, "EVENT_RECORD"), 3);
	EQ(seen(0, "EVENT_WAIT"), 1);
	EQ(seen(0, "MEMCPY_ASYNC"), 1);
	/* a logic CQ per stream (a, b, the default one): the three event
	 * records' reports went there, and the synchronisations took them */
	{
		struct lcq_sums l = logic_cqs();

		EQ(l.n, 3);
		EQ(l.enque, 3);
		EQ(l.pending, 0);
		EQ(l.full_drop, 0);
	}
	EQ(aclrtDestroyEvent(e), ACL_SUCCESS);
	EQ(aclrtDestroyEvent(done), ACL_SUCCESS);
	EQ(aclrtDestroyStream(a), ACL_SUCCESS);
	EQ(logic_cqs().n, 2);
	EQ(aclrtDestroyStream(b), ACL_SUCCESS);
	EQ(aclrtResetDevice(0), ACL_SUCCESS);
	EQ(logic_cqs().n, 0);
	EQ(aclFinalize(), ACL_SUCCESS);
	return failures;
}

/* ---- errors ------------------------------------------------------------------ */

static int t_errors(void)
{
	static char _Alignas(64) fake[256];
	aclrtStream s, dead;
	aclrtEvent e;
	uint32_t n;
	int32_t d;
	void *p;
	char buf[8];

	/* before aclInit */
	EQ(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
	EQ(aclrtCreateStream(&s), ACL_ERROR_UNINITIALIZE);
	EQ(aclrtGetDeviceCount(&n), ACL_ERROR_UNINITIALIZE);
	EQ(aclrtSynchronizeStream(NULL), ACL_ERROR_UNINITIALIZE);
	EQ(aclFinalize(), ACL_ERROR_UNINITIALIZE);
	EQ(aclInit("/nonexistent/acl.json"), ACL_ERROR_INVALID_FILE);

	EQ(aclInit(NULL), ACL_SUCCESS);
	EQ(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
	EQ(aclrtGetDeviceCount(&n), ACL_SUCCESS);
	CHECK(n >= 1);
	/* no device set on this thread */
	EQ(aclrtCreateStream(&s), ACL_ERROR_RT_CONTEXT_NULL);
	EQ(aclrtGetDevice(&d), ACL_ERROR_RT_CONTEXT_NULL);
	EQ(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
	EQ(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
	EQ(aclrtSetDevice((int32_t)n), ACL_ERROR_RT_INVALID_DEVICEID);
	EQ(aclrtSetDevice(0), ACL_SUCCESS);
	EQ(aclrtGetDevice(&d), ACL_SUCCESS);
	EQ(d, 0);
	/* NULL and stale handles */
	EQ(aclrtCreateStream(NULL), ACL_ERROR_INVALID_PARAM);
	EQ(aclrtDestroyStream(NULL), ACL_ERROR_INVALID_PARAM);
	EQ(aclrtCreateStream(&dead), ACL_SUCCESS);
	EQ(aclrtDestroyStream(dead), ACL_SUCCESS);
	EQ(aclrtDestroyStream(dead), ACL_ERROR_RT_PARAM_INVALID);
	EQ(aclrtSynchronizeStream(dead), ACL_ERROR_RT_PARAM_INVALID);
	EQ(aclrtCreateEvent(&e), ACL_SUCCESS);
	EQ(aclrtRecordEvent(e, dead), ACL_ERROR_RT_PARAM_INVALID);
	EQ(aclrtDestroyEvent(e), ACL_SUCCESS);
	EQ(aclrtDestroyEvent(e), ACL_ERROR_RT_PARAM_INVALID);
	EQ(aclrtRecordEvent(e, NULL), ACL_ERROR_RT_PARAM_INVALID);
	EQ(aclrtRecordEvent(NULL, NULL), ACL_ERROR_INVALID_PARAM);
	EQ(aclrtSynchronizeEvent(NULL), ACL_ERROR_INVALID_PARAM);
	EQ(aclrtFree(NULL), ACL_ERROR_INVALID_PARAM);
	EQ(aclrtFree(fake + 64), ACL_ERROR_RT_PARAM_INVALID);
	EQ(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
	EQ(aclrtMemcpy(buf, 4, "abcdefg", 8, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
	EQ(aclrtMemcpy(buf, 8, "abcdefg", 8, (aclrtMemcpyKind)9), ACL_ERROR_INVALID_PARAM);
	EQ(aclrtMemcpyAsync(buf, 8, "abcdefg", 8, ACL_MEMCPY_HOST_TO_HOST, dead),
	   ACL_ERROR_RT_PARAM_INVALID);
	EQ(aclnpuLaunchOp(NULL, NULL), ACL_ERROR_INVALID_PARAM);
	{
		aclnpuOpDesc od;

		memset(&od, 0, sizeof(od));
		od.size = sizeof(od);
		od.opName = "x";
		od.opType = "Add";
		od.taskKind = ACLNPU_TASK_AI_CORE;
		EQ(aclnpuLaunchOp(&od, NULL), ACL_ERROR_INVALID_PARAM); /* blockDim 0 */
		od.blockDim = 1;
		EQ(aclnpuLaunchOp(&od, dead), ACL_ERROR_RT_PARAM_INVALID);
		od.taskKind = (aclnpuTaskKind)3;
		EQ(aclnpuLaunchOp(&od, NULL), ACL_ERROR_INVALID_PARAM);
	}
	/* HCCL: bad comm, stream of another device */
	EQ(HcclAllReduce(buf, buf, 1, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, NULL, NULL),
	   HCCL_E_PARA);
	if (n >= 2) {
		HcclComm c[2];
		int32_t devs[2] = { 0, 1 };

		EQ(aclrtSetDevice(1), ACL_SUCCESS);
		EQ(HcclCommInitAll(2, devs, c), HCCL_SUCCESS);
		/* the current device is 1: the default stream is device 1's */
		EQ(HcclAllReduce(buf, buf, 1, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, c[0], NULL),
		   HCCL_E_PARA);
		EQ(HcclSend(buf, 1, HCCL_DATA_TYPE_FP32, 0, c[0], NULL), HCCL_E_PARA);
		EQ(HcclAllReduce(buf, buf, 1, (HcclDataType)99, HCCL_REDUCE_SUM, c[1], NULL),
		   HCCL_E_PARA);
		EQ(HcclCommDestroy(c[0]), HCCL_SUCCESS);
		EQ(HcclCommDestroy(c[0]), HCCL_E_PARA);
		EQ(HcclCommDestroy(c[1]), HCCL_SUCCESS);
	}
	EQ(aclrtResetDeviceForce(0), ACL_SUCCESS);
	if (n >= 2)
		EQ(aclrtResetDeviceForce(1), ACL_SUCCESS);
	EQ(aclrtCreateStream(&s), ACL_ERROR_RT_CONTEXT_NULL);
	EQ(aclFinalize(), ACL_SUCCESS);
	EQ(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
	EQ(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
	return failures;
}

/* ---- hccl ---------------------------------------------------------------------- */

static int hccl_all(int nd, aclrtStream *s, HcclComm *c, int which)
{
	static float buf[4096];

	for (int r = 0; r < nd; r++) {
		HcclResult h = HCCL_E_INTERNAL;

		switch (which) {
		case 0:
			h = HcclAllReduce(buf, buf, 4096, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM,
					  c[r], s[r]);
			break;
		case 1:
			h = HcclBroadcast(buf, 4096, HCCL_DATA_TYPE_FP32, 1 % nd, c[r], s[r]);
			break;
		case 2: h = HcclAllGather(buf, buf, 1024, HCCL_DATA_TYPE_FP32, c[r], s[r]); break;
		case 3:
			h = HcclReduceScatter(buf, buf, 1024, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_MAX,
					      c[r], s[r]);
			break;
		case 4:
			/* pairs (0,1), (2,3) ...: even ranks send first, odd ranks
			 * receive first (nd is even) */
			if (r % 2 == 0) {
				h = HcclSend(buf, 1024, HCCL_DATA_TYPE_FP16, (uint32_t)r + 1, c[r],
					     s[r]);
				if (h == HCCL_SUCCESS)
					h = HcclRecv(buf, 1024, HCCL_DATA_TYPE_FP16,
						     (uint32_t)r + 1, c[r], s[r]);
			} else {
				h = HcclRecv(buf, 1024, HCCL_DATA_TYPE_FP16, (uint32_t)r - 1, c[r],
					     s[r]);
				if (h == HCCL_SUCCESS)
					h = HcclSend(buf, 1024, HCCL_DATA_TYPE_FP16,
						     (uint32_t)r - 1, c[r], s[r]);
			}
			break;
		}
		EQ(h, HCCL_SUCCESS);
	}
	for (int r = 0; r < nd; r++) {
		EQ(aclrtSetDevice(r), ACL_SUCCESS);
		EQ(aclrtSynchronizeStream(s[r]), ACL_SUCCESS);
	}
	return 0;
}

static int t_hccl(int nd)
{
	aclrtStream s[8];
	HcclComm c[8];
	int32_t devs[8];
	uint32_t sz, rk;
	char name[256];

	alarm(60); /* a deadlock fails the test instead of hanging the VM */
	EQ(aclInit(NULL), ACL_SUCCESS);
	for (int r = 0; r < nd; r++) {
		EQ(aclrtSetDevice(r), ACL_SUCCESS);
		EQ(aclrtCreateStream(&s[r]), ACL_SUCCESS);
		devs[r] = r;
	}
	EQ(HcclCommInitAll((uint32_t)nd, devs, c), HCCL_SUCCESS);
	EQ(HcclGetRankSize(c[nd - 1], &sz), HCCL_SUCCESS);
	EQ(sz, nd);
	EQ(HcclGetRankId(c[nd - 1], &rk), HCCL_SUCCESS);
	EQ(rk, nd - 1);
	EQ(HcclGetCommName(c[0], name), HCCL_SUCCESS);
	CHECK(strstr(name, "%lo_60000_") != NULL);
	aclnpuSetTaskObserver(observer, NULL);
	for (int op = 0; op < 5; op++) {
		/* expected per rank: Notify_Record, Notify_Wait, SDMA (Memcpy +
		 * Reduce_Inline) */
		int p = nd - 1;
		int exp_rec[5] = { 4 * p, 0, 2 * p, 2 * p, 4 };
		int exp_sdma[5] = { 1 + 2 * p, 0, 1 + p, 1 + p, 1 };

		reset_seen();
		hccl_all(nd, s, c, op);
		for (int r = 0; r < nd; r++) {
			int rec = exp_rec[op], sdma = exp_sdma[op];

			if (op == 1) { /* broadcast from root 1 % nd */
				rec = r == 1 % nd ? 2 * p : 2;
				sdma = r == 1 % nd ? 0 : 1;
			}
			EQ(seen(r, "NOTIFY_RECORD"), rec);
			EQ(seen(r, "NOTIFY_WAIT"), rec);
			EQ(seen(r, "MEMCPY_ASYNC"), sdma);
		}
		printf("hccl %d devices, op %d: %d tasks\n", nd, op, g_total);
	}
	/* the documented totals: all-reduce 1 + 10 (n-1) per rank */
	reset_seen();
	hccl_all(nd, s, c, 0);
	EQ(g_total, nd * (1 + 10 * (nd - 1)));
	for (int r = 0; r < nd; r++)
		EQ(HcclCommDestroy(c[r]), HCCL_SUCCESS);
	for (int r = 0; r < nd; r++)
		EQ(aclrtResetDeviceForce(r), ACL_SUCCESS);
	EQ(aclFinalize(), ACL_SUCCESS);
	return failures;
}

/* ---- profile ---------------------------------------------------------------------- */

#define MAXREC 4096
struct decoded {
	int api, track, cop, hop, htask, hash;
	uint64_t orphan_detail; /* CANN details the export could place nowhere */
	struct npuprof_hostfmt_api apis[MAXREC];
	struct npuprof_hostfmt_task_track tracks[MAXREC];
	uint64_t hash_ids[MAXREC];
	char *hash_str[MAXREC];
	struct npuprof_hostfmt_compute_op cops[64];
	struct npuprof_hostfmt_hccl_task htasks[256];
};
static struct decoded D;

static int on_rec(void *ctx, const struct npuprof_hostfmt_block_header *b,
		  const struct npuprof_hostfmt_header *r)
{
	(void)ctx;
	(void)b;
	switch (r->kind) {
	case NPUPROF_HOSTFMT_API:
		if (D.api < MAXREC)
			memcpy(&D.apis[D.api], r, sizeof(D.apis[0]));
		D.api++;
		break;
	case NPUPROF_HOSTFMT_TASK_TRACK:
		if (D.track < MAXREC)
			memcpy(&D.tracks[D.track], r, sizeof(D.tracks[0]));
		D.track++;
		break;
	case NPUPROF_HOSTFMT_COMPUTE_OP:
		if (D.cop < 64)
			memcpy(&D.cops[D.cop], r, sizeof(D.cops[0]));
		D.cop++;
		break;
	case NPUPROF_HOSTFMT_HCCL_OP: D.hop++; break;
	case NPUPROF_HOSTFMT_HCCL_TASK:
		if (D.htask < 256)
			memcpy(&D.htasks[D.htask], r, sizeof(D.htasks[0]));
		D.htask++;
		break;
	case NPUPROF_HOSTFMT_HASH:
		if (D.hash < MAXREC) {
			const struct npuprof_hostfmt_hash *h = (const void *)r;

			D.hash_ids[D.hash] = h->id;
			D.hash_str[D.hash] = strdup(h->str);
			D.hash++;
		}
		break;
	}
	return 0;
}

static const char *str(uint64_t id)
{
	if (id == NPUPROF_HOSTFMT_NO_STRING)
		return "N/A";
	for (int i = 0; i < D.hash; i++)
		if (D.hash_ids[i] == id)
			return D.hash_str[i];
	return NULL;
}

static const struct npuprof_hostfmt_api *api_by_conn(uint64_t conn)
{
	for (int i = 0; i < D.api && i < MAXREC; i++)
		if (D.apis[i].connection_id == conn)
			return &D.apis[i];
	return NULL;
}

/* Decodes the stream at path into D. With the CANN backend the runtime
 * reports through CANN's ABI: its stream holds the reports, which the
 * export's rules (cann_decode) turn into the records checked here, as
 * `npuprof export` does; the stream's other records go straight on. */
static int decode(const char *path, char *err, size_t errlen)
{
	struct cann_stats cs;
	int r = cann_decode(path, on_rec, NULL, NULL, NULL, &cs, err, errlen);

	D.orphan_detail = cs.orphan_detail;
	if (!r)
		printf("profile: %llu CANN reports; unregistered %llu, bad payload %llu, orphan ext %llu, orphan detail %llu\n",
		       (unsigned long long)cs.reports, (unsigned long long)cs.unregistered,
		       (unsigned long long)cs.bad_payload, (unsigned long long)cs.orphan_ext,
		       (unsigned long long)cs.orphan_detail);
	return r;
}

/* The host stream this process wrote under dir (aclprofInit's path):
 * dir/PROF_* /host/data/npuprof.host.<pid>.raw; "" if there is none. */
static const char *host_stream(const char *dir)
{
	static char path[4096];
	char pat[4096];
	glob_t g;

	path[0] = '\0';
	snprintf(pat, sizeof(pat),
		 "%s/PROF_*/host/data/" NPUPROF_HOSTFMT_FILE_PREFIX
		 "%d" NPUPROF_HOSTFMT_FILE_SUFFIX,
		 dir, (int)getpid());
	if (glob(pat, 0, NULL, &g) == 0) {
		if (g.gl_pathc == 1)
			snprintf(path, sizeof(path), "%s", g.gl_pathv[0]);
		globfree(&g);
	}
	return path;
}

static int t_profile(const char *dir)
{
	uint32_t devs[2] = { 0, 1 };
	aclprofConfig *cfg;
	aclrtStream s[2];
	HcclComm c[2];
	int32_t dv[2] = { 0, 1 };
	static char host[1 << 16];
	void *devp;
	char err[256];
	int observed, markex = 0;

	alarm(60);
	EQ(aclInit(NULL), ACL_SUCCESS);
	for (int r = 0; r < 2; r++) {
		EQ(aclrtSetDevice(r), ACL_SUCCESS);
		EQ(aclrtCreateStream(&s[r]), ACL_SUCCESS);
	}
	EQ(HcclCommInitAll(2, dv, c), HCCL_SUCCESS);
	EQ(aclprofInit(dir, strlen(dir)), ACL_SUCCESS);
	cfg = aclprofCreateConfig(devs, 2, ACL_AICORE_NONE, NULL,
				  ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX);
	CHECK(cfg != NULL);
	EQ(aclprofStart(cfg), ACL_SUCCESS);
	aclnpuSetTaskObserver(observer, NULL);
	reset_seen();

	EQ(aclrtSetDevice(0), ACL_SUCCESS);
	EQ(aclrtMalloc(&devp, sizeof(host), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	EQ(aclrtMemcpyAsync(devp, sizeof(host), host, sizeof(host), ACL_MEMCPY_HOST_TO_DEVICE,
			    s[0]),
	   ACL_SUCCESS);
	kernel(s[0], "layer0/MatMul", ACLNPU_TASK_AI_CORE, 50000);
	kernel(s[0], "layer0/Add", ACLNPU_TASK_AI_VECTOR_CORE, 5000);
	EQ(aclprofMarkEx("hello", 5, s[0]), ACL_SUCCESS);
	EQ(g_last.sqeType, NPUSIM_SQE_PLACE_HOLDER);
	CHECK(!strcmp(g_last.taskTypeName, "PROFILER_TRACE_EX"));
	hccl_all(2, s, c, 0);
	observed = g_total;
	EQ(aclrtSetDevice(0), ACL_SUCCESS);
	EQ(aclrtFree(devp), ACL_SUCCESS);

	EQ(aclprofStop(cfg), ACL_SUCCESS);
	aclprofDestroyConfig(cfg);
	EQ(aclprofFinalize(), ACL_SUCCESS);
	aclnpuSetTaskObserver(NULL, NULL);

	EQ(decode(host_stream(dir), err, sizeof(err)), 0);
	printf("profile: %d API, %d TASK_TRACK, %d COMPUTE_OP, %d HCCL_OP, %d HCCL_TASK, %d HASH records\n",
	       D.api, D.track, D.cop, D.hop, D.htask, D.hash);
	EQ(D.track, observed);
	EQ(D.cop, 2);
	EQ(D.hop, 2);
	EQ(D.htask, 2 * 11);
	/* every task's connectionId is a node `launch` or an acl range, except
	 * the MarkEx marker, which carries 4000000001 + its index */
	for (int i = 0; i < D.track && i < MAXREC; i++) {
		const struct npuprof_hostfmt_task_track *t = &D.tracks[i];
		const char *type = str(t->task_type_id);
		const struct npuprof_hostfmt_api *a;

		CHECK(type != NULL);
		if (type && !strcmp(type, "PROFILER_TRACE_EX")) {
			markex++;
			EQ(t->connection_id, NPUPROF_MSTX_CONNECTION_BASE + t->index_id);
			EQ(t->trace_tag, 11);
			continue;
		}
		a = api_by_conn(t->connection_id);
		CHECK(a != NULL);
		if (!a || !type)
			continue;
		if (!strncmp(type, "KERNEL_", 7) || !strncmp(type, "NOTIFY_", 7) ||
		    (!strcmp(type, "MEMCPY_ASYNC") && t->memcpy_op == 3)) {
			EQ(a->level, NPUPROF_API_NODE);
			CHECK(!strcmp(str(a->name_id), "launch"));
		} else {
			EQ(a->level, NPUPROF_API_ACL);
			CHECK(!strcmp(str(a->name_id), "aclrtMemcpyAsync"));
			EQ(t->memcpy_op, 1);
			EQ(t->bytes, sizeof(host));
		}
	}
	EQ(markex, 1);
	/* compute op strings as the db stores them */
	if (D.cop >= 1) {
		const struct npuprof_hostfmt_compute_op *o = &D.cops[0];

		CHECK(str(o->name_id) && !strcmp(str(o->name_id), "layer0/MatMul"));
		CHECK(str(o->task_type_id) && !strcmp(str(o->task_type_id), "AI_CORE"));
		CHECK(str(o->input_shapes_id) && !strcmp(str(o->input_shapes_id), "\"32,1024\""));
		CHECK(str(o->input_formats_id) && !strcmp(str(o->input_formats_id), "FORMAT_ND"));
		CHECK(str(o->input_dtypes_id) && !strcmp(str(o->input_dtypes_id), "FLOAT16"));
		CHECK(str(o->attr_id) && !strcmp(str(o->attr_id), "N/A"));
		EQ(o->block_dim, 8);
	}
	/* HCCL tasks: op name, types, ranks */
	for (int i = 0; i < D.htask && i < 256; i++) {
		const struct npuprof_hostfmt_hccl_task *h = &D.htasks[i];

		CHECK(str(h->op_name_id) && !strncmp(str(h->op_name_id), "hcom_allReduce__", 16));
		CHECK(str(h->task_type_id) != NULL);
		CHECK(str(h->group_name_id) != NULL);
	}
	for (int r = 0; r < 2; r++)
		EQ(HcclCommDestroy(c[r]), HCCL_SUCCESS);
	for (int r = 0; r < 2; r++)
		EQ(aclrtResetDeviceForce(r), ACL_SUCCESS);
	EQ(aclFinalize(), ACL_SUCCESS);
	return failures;
}

/* ---- profiling switched on midway --------------------------------------------- */

static aclprofConfig *g_mid_cfg;
static int g_mid_started;

/* The observer runs inside a launch, after its task was sent: starting the
 * collection there catches that launch midway (no `launch` range, no task
 * track, but the op info comes after the switch). */
static void start_midway(void *ctx, const aclnpuTaskRecord *t)
{
	(void)ctx;
	(void)t;
	if (!g_mid_started++)
		EQ(aclprofStart(g_mid_cfg), ACL_SUCCESS);
}

static int t_midway(const char *dir)
{
	uint32_t devs[1] = { 0 };
	aclrtStream s;
	char err[256];

	alarm(60);
	memset(&D, 0, sizeof(D));
	EQ(aclInit(NULL), ACL_SUCCESS);
	EQ(aclrtSetDevice(0), ACL_SUCCESS);
	EQ(aclrtCreateStream(&s), ACL_SUCCESS);
	EQ(aclprofInit(dir, strlen(dir)), ACL_SUCCESS);
	g_mid_cfg = aclprofCreateConfig(devs, 1, ACL_AICORE_NONE, NULL,
					ACL_PROF_ACL_API | ACL_PROF_TASK_TIME);
	CHECK(g_mid_cfg != NULL);
	aclnpuSetTaskObserver(start_midway, NULL);
	kernel(s, "early/MatMul", ACLNPU_TASK_AI_CORE, 5000);
	aclnpuSetTaskObserver(NULL, NULL);
	EQ(g_mid_started, 1);
	kernel(s, "late/Add", ACLNPU_TASK_AI_VECTOR_CORE, 5000);
	EQ(aclrtSynchronizeStream(s), ACL_SUCCESS);
	EQ(aclprofStop(g_mid_cfg), ACL_SUCCESS);
	aclprofDestroyConfig(g_mid_cfg);
	EQ(aclprofFinalize(), ACL_SUCCESS);
	EQ(decode(host_stream(dir), err, sizeof(err)), 0);
	printf("midway: %d TASK_TRACK, %d COMPUTE_OP, %llu orphan details\n", D.track, D.cop,
	       (unsigned long long)D.orphan_detail);
	/* the late launch whole; of the early one nothing */
	EQ(D.track, 1);
	EQ(D.cop, 1);
	if (D.cop >= 1)
		CHECK(str(D.cops[0].name_id) && !strcmp(str(D.cops[0].name_id), "late/Add"));
	EQ(D.orphan_detail, 0);
	EQ(aclrtDestroyStream(s), ACL_SUCCESS);
	EQ(aclrtResetDeviceForce(0), ACL_SUCCESS);
	EQ(aclFinalize(), ACL_SUCCESS);
	return failures;
}

/* ---- one device set by two threads at once ---------------------------------- */

#define ANN_DEV 3
static atomic_int g_ann_in, g_ann_done;

/* A component that takes its time to start on the device (registered
 * after the runtime's modules, so it is told last). */
static int32_t slow_component(uint32_t type, void *data, uint32_t len)
{
	const struct MsprofCommandHandle *c = data;

	if (type == PROF_CTRL_SWITCH && c && len >= sizeof(*c) &&
	    c->type == PROF_COMMANDHANDLE_TYPE_START && c->devNums == 1 &&
	    c->devIdList[0] == ANN_DEV && !atomic_exchange(&g_ann_in, 1)) {
		usleep(300000);
		atomic_store(&g_ann_done, 1);
	}
	return 0;
}

struct second {
	aclError ret;
	int announced; /* the announcement was over when SetDevice returned */
	int timed_out;
};

static void *second_setter(void *p)
{
	struct second *b = p;
	uint64_t t0 = now_ns();

	while (!atomic_load(&g_ann_in)) {
		if (now_ns() - t0 > 10000000000ULL) {
			b->timed_out = 1;
			return NULL;
		}
		usleep(1000);
	}
	b->ret = aclrtSetDevice(ANN_DEV);
	b->announced = atomic_load(&g_ann_done);
	return NULL;
}

static int t_announce(const char *dir)
{
	uint32_t devs[1] = { ANN_DEV };
	int32_t (*reg)(uint32_t, ProfCommandHandle) = (int32_t(*)(uint32_t, ProfCommandHandle))
		dlsym(RTLD_DEFAULT, "MsprofRegisterCallback");
	aclprofConfig *cfg;
	struct second b = { 0 };
	pthread_t th;

	alarm(60);
	CHECK(reg != NULL);
	if (!reg)
		return failures;
	EQ(aclInit(NULL), ACL_SUCCESS);
	EQ(reg(60, slow_component), 0);
	EQ(aclprofInit(dir, strlen(dir)), ACL_SUCCESS);
	cfg = aclprofCreateConfig(devs, 1, ACL_AICORE_NONE, NULL,
				  ACL_PROF_ACL_API | ACL_PROF_TASK_TIME);
	CHECK(cfg != NULL);
	EQ(aclprofStart(cfg), ACL_SUCCESS);
	EQ(pthread_create(&th, NULL, second_setter, &b), 0);
	/* opens the device and announces it: the slow component holds that
	 * for 0.3 s, while the second thread sets the same device */
	EQ(aclrtSetDevice(ANN_DEV), ACL_SUCCESS);
	EQ(pthread_join(th, NULL), 0);
	printf("announce: second SetDevice %d, returned %s the announcement ended\n", b.ret,
	       b.announced ? "after" : "before");
	EQ(b.timed_out, 0);
	EQ(b.ret, ACL_SUCCESS);
	EQ(b.announced, 1);
	EQ(aclprofStop(cfg), ACL_SUCCESS);
	aclprofDestroyConfig(cfg);
	EQ(aclprofFinalize(), ACL_SUCCESS);
	EQ(aclrtResetDeviceForce(ANN_DEV), ACL_SUCCESS);
	EQ(aclFinalize(), ACL_SUCCESS);
	return failures;
}

int main(int argc, char **argv)
{
	int r;

	if (argc < 2)
		goto usage;
	if (!strcmp(argv[1], "order"))
		r = t_order();
	else if (!strcmp(argv[1], "errors"))
		r = t_errors();
	else if (!strcmp(argv[1], "hccl") && argc == 3)
		r = t_hccl(atoi(argv[2]));
	else if (!strcmp(argv[1], "profile") && argc == 3)
		r = t_profile(argv[2]);
	else if (!strcmp(argv[1], "midway") && argc == 3)
		r = t_midway(argv[2]);
	else if (!strcmp(argv[1], "announce") && argc == 3)
		r = t_announce(argv[2]);
	else
		goto usage;
	printf("rt_test %s: %s (%d failed checks)\n", argv[1], r ? "FAIL" : "ok", r);
	return r ? 1 : 0;
usage:
	fprintf(stderr, "usage: rt_test order|errors|hccl N|profile DIR|midway DIR|announce DIR\n");
	return 2;
}
