/*
 * test_cannrec.c - host streams of pure CANN reports (hostfmt.h
 * NPUPROF_HOSTFMT_MSPROF_*, as libprofapi.so stores them), hand-crafted, into
 * the database by msprof's parser rules (user/export/cannrec.c): CANN_API
 * names and connectionIds, TASK connectionIds by containment (the NODE
 * launch wins over its ACL API, runtime-level APIs are no tree nodes, a
 * track outside every API gets none), COMPUTE_TASK_INFO with tensors
 * concatenated over several records, COMMUNICATION_OP / TASK_INFO,
 * MEMCPY_INFO, the npuprof_task_ext extension, CLOCK_MONOTONIC_RAW times
 * converted, bad reports counted and named; both host readers
 * (hostdata_load, hostdata_open) giving the same records; and the CANN
 * APIs' connectionIds after every runtime-written one of the session.
 */
#include <check.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostdata.h"
#include "hostrec_testutil.h"
#include "npuprof/export.h"
#include "npuprof/session.h"
#include "profiling/npuprof_ext.h"
#include "profiling/prof_common.h"
#include "db_testutil.h"

#define T1 100u /* threads */
#define T2 200u
#define RAW_OFF 5000u /* CLOCK_MONOTONIC = CLOCK_MONOTONIC_RAW + this */
#define MONO0 1000000ULL /* session start (monotonic) */

/* hash ids of the process's strings (HASH records) */
enum {
	S_MATMUL_0 = 0x1001,
	S_MATMUL,
	S_HCOM_OP,
	S_HCOM_TYPE,
	S_GROUP,
	S_ALG,
	S_NOTIFY_WAIT,
	S_MEMCPY,
	S_HCCL_API,
};

/* ---- building records ---- */
struct rb {
	uint8_t buf[8192] __attribute__((aligned(8)));
	uint32_t len;
};

static void *rb_rec(struct rb *b, uint16_t kind, uint32_t size)
{
	struct npuprof_hostfmt_header *h = (void *)(b->buf + b->len);

	size = npuprof_hostfmt_size(size, 0);
	ck_assert_uint_le(b->len + size, sizeof(b->buf));
	memset(h, 0, size);
	h->size = size;
	h->kind = kind;
	b->len += size;
	return h;
}

static void rb_msprof(struct rb *b, uint16_t kind, const void *data, uint32_t len)
{
	struct npuprof_hostfmt_msprof *m = rb_rec(b, kind, sizeof(*m) + len);

	m->flag = 1;
	m->len = len;
	memcpy(m->data, data, len);
}

static void rb_api(struct rb *b, uint16_t level, uint32_t type, uint32_t tid, uint64_t begin,
		   uint64_t end, uint64_t item)
{
	struct MsprofApi a = { .magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM,
			       .level = level,
			       .type = type,
			       .threadId = tid,
			       .beginTime = begin,
			       .endTime = end,
			       .itemId = item };

	rb_msprof(b, NPUPROF_HOSTFMT_MSPROF_API, &a, sizeof(a));
}

static void rb_event(struct rb *b, uint16_t level, uint32_t type, uint32_t tid, uint32_t req,
		     uint64_t ts, uint64_t item)
{
	struct MsprofEvent e = { .magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM,
				 .level = level,
				 .type = type,
				 .threadId = tid,
				 .requestId = req,
				 .timeStamp = ts,
				 .eventFlag = MSPROF_EVENT_FLAG,
				 .itemId = item };

	rb_msprof(b, NPUPROF_HOSTFMT_MSPROF_EVENT, &e, sizeof(e));
}

static void rb_compact(struct rb *b, uint16_t level, uint32_t type, uint32_t tid, uint64_t ts,
		       const void *data, uint32_t len)
{
	struct MsprofCompactInfo c;

	memset(&c, 0, sizeof(c));
	c.magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM;
	c.level = level;
	c.type = type;
	c.threadId = tid;
	c.dataLen = len;
	c.timeStamp = ts;
	memcpy(c.data.info, data, len);
	rb_msprof(b, NPUPROF_HOSTFMT_MSPROF_COMPACT, &c, sizeof(c));
}

static void rb_additional(struct rb *b, uint16_t level, uint32_t type, uint32_t tid, uint64_t ts,
			  const void *data, uint32_t len)
{
	struct MsprofAdditionalInfo a;

	memset(&a, 0, sizeof(a));
	a.magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM;
	a.level = level;
	a.type = type;
	a.threadId = tid;
	a.dataLen = len;
	a.timeStamp = ts;
	memcpy(a.data, data, len);
	rb_msprof(b, NPUPROF_HOSTFMT_MSPROF_ADDITIONAL, &a, sizeof(a));
}

static void rb_type(struct rb *b, uint16_t level, uint32_t type, const char *name)
{
	size_t l = strlen(name);
	struct npuprof_hostfmt_msprof_type *t =
		rb_rec(b, NPUPROF_HOSTFMT_MSPROF_TYPE,
		       (uint32_t)(offsetof(struct npuprof_hostfmt_msprof_type, name) + l + 1));

	t->level = level;
	t->type_id = type;
	t->len = (uint32_t)l;
	memcpy(t->name, name, l);
}

static void rb_hash(struct rb *b, uint64_t id, const char *s)
{
	size_t l = strlen(s);
	struct npuprof_hostfmt_hash *h =
		rb_rec(b, NPUPROF_HOSTFMT_HASH,
		       (uint32_t)(offsetof(struct npuprof_hostfmt_hash, str) + l + 1));

	h->id = id;
	h->len = (uint32_t)l;
	memcpy(h->str, s, l);
}

static void rb_clock_raw(struct rb *b, uint64_t raw, uint64_t mono)
{
	struct npuprof_hostfmt_clock_raw *c = rb_rec(b, NPUPROF_HOSTFMT_CLOCK_RAW, sizeof(*c));

	c->raw_ns = raw;
	c->monotonic_ns = mono;
}

static void track(struct rb *b, uint32_t tid, uint64_t ts, uint16_t stream, uint32_t task,
		  uint64_t type)
{
	struct MsprofRuntimeTrack t = {
		.deviceId = 0, .streamId = stream, .taskId = task, .taskType = type
	};

	rb_compact(b, MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_TASK_TRACK, tid, ts, &t,
		   sizeof(t));
}

static void tensor(struct MsrofTensorData *d, uint32_t io, uint32_t fmt, uint32_t dt, uint32_t s0,
		   uint32_t s1, uint32_t s2)
{
	memset(d, 0, sizeof(*d));
	d->tensorType = io;
	d->format = fmt;
	d->dataType = dt;
	d->shape[0] = s0;
	d->shape[1] = s1;
	d->shape[2] = s2;
}

/* The type names every stream registers, and its strings and clock. */
static void session_records(struct rb *s)
{
	rb_clock_raw(s, 1000, 1000 + RAW_OFF);
	rb_clock_raw(s, 100000000000ULL, 100000000000ULL + RAW_OFF);
	rb_type(s, MSPROF_REPORT_ACL_LEVEL, MSPROF_REPORT_ACL_NN_BASE_TYPE + 1, "aclnnMatMul");
	rb_type(s, MSPROF_REPORT_ACL_LEVEL, MSPROF_REPORT_ACL_RUNTIME_BASE_TYPE + 5,
		"aclrtMemcpyAsync");
	rb_type(s, MSPROF_REPORT_ACL_LEVEL, MSPROF_REPORT_ACL_HOST_HCCL_BASE_TYPE + 1,
		"HcclAllReduce");
	rb_type(s, MSPROF_REPORT_MODEL_LEVEL, MSPROF_REPORT_MODEL_EXECUTE_TYPE, "ModelExecute");
	rb_type(s, MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_LAUNCH_TYPE, "launch");
	rb_type(s, MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_BASIC_INFO_TYPE, "node_basic_info");
	rb_type(s, MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_TENSOR_INFO_TYPE, "tensor_info");
	rb_type(s, MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_CONTEXT_ID_INFO_TYPE,
		"context_id_info");
	rb_type(s, MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_HCCL_OP_INFO_TYPE, "hccl_op_info");
	rb_type(s, MSPROF_REPORT_HCCL_NODE_LEVEL, MSPROF_REPORT_HCCL_MASTER_TYPE, "master");
	rb_type(s, MSPROF_REPORT_HCCL_NODE_LEVEL, NPUPROF_CANN_HCCL_INFO_TYPE, "hccl_info");
	rb_type(s, MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_API_BASE + 1, "KernelLaunch");
	rb_type(s, MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_API_BASE + 2, "MemcpyAsync");
	rb_type(s, MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_API_BASE + 3, "EventRecord");
	rb_type(s, MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_TASK_TRACK, "task_track");
	rb_type(s, MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_TASK_TRACK_V2, "task_track_v2");
	rb_type(s, MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_MEMCPY_INFO, "memcpy_info");
	rb_type(s, MSPROF_REPORT_RUNTIME_LEVEL, 0, "KERNEL_AICORE");
	rb_type(s, MSPROF_REPORT_RUNTIME_LEVEL, 3, "EVENT_RECORD");
	rb_type(s, MSPROF_REPORT_RUNTIME_LEVEL, 7, "MEMCPY_ASYNC");
	rb_type(s, MSPROF_REPORT_RUNTIME_LEVEL, 9, "NOTIFY_WAIT");
	rb_type(s, NPUPROF_EXT_LEVEL, NPUPROF_EXT_TASK_TYPE, NPUPROF_EXT_TASK_NAME);
	rb_hash(s, S_MATMUL_0, "MatMul_0");
	rb_hash(s, S_MATMUL, "MatMul");
	rb_hash(s, S_HCOM_OP, "hcom_allReduce__1_0_1");
	rb_hash(s, S_HCOM_TYPE, "hcom_allReduce_");
	rb_hash(s, S_GROUP, "group0");
	rb_hash(s, S_ALG, "MESH-RING");
	rb_hash(s, S_NOTIFY_WAIT, "Notify_Wait");
	rb_hash(s, S_MEMCPY, "Memcpy");
	rb_hash(s, S_HCCL_API, "Launch_Ffts");
}

/*
 * Thread T1, in raw ns:
 *  A  acl aclnnMatMul [2.0, 3.0] ms > node launch [2.1, 2.9] (MatMul_0,
 *     basic info, tensors in two records) > runtime KernelLaunch [2.2,
 *     2.3] > track 802 at 2.2 ms + 1 (stream 5, task 7, flip 1), ext
 *  B  acl aclrtMemcpyAsync [4.0, 4.5] > runtime MemcpyAsync [4.1, 4.4] >
 *     track 808 (stream 6, task 1) + memcpy_info 4096 B H2D
 *  C  runtime EventRecord [4.9, 5.1] > track (stream 6, task 2): no tree API;
 *     a track at 5.5 ms (stream 6, task 3) outside every API
 *  D  model ModelExecute by an event pair [6, 7] > track (stream 7, task 3);
 *     one more event start, never ended
 * Thread T2:
 *  E  acl HcclAllReduce [8, 10] > node launch [8.1, 9.9] (hcom op, basic
 *     info, HCCL op info) > HCCL master [8.2, 8.8] > two tracks with an
 *     MsprofHcclInfo each
 */
#define MS 1000000ULL
static void thread_records(struct rb *a, struct rb *b)
{
	/* A: the APIs are reported when they return, innermost first */
	track(a, T1, 2200001, 5, (1u << 16) | 7, 0);
	struct NpuprofTaskExt x = { .deviceId = 0,
				    .sqeType = 0,
				    .streamId = 5,
				    .taskId = (1u << 16) | 7,
				    .memcpyOp = NPUPROF_EXT_NO_MEMCPY,
				    .durationNs = 4000 };
	rb_compact(a, NPUPROF_EXT_LEVEL, NPUPROF_EXT_TASK_TYPE, T1, 2200001, &x, sizeof(x));
	rb_api(a, MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_API_BASE + 1, T1, 2200000, 2300000,
	       S_MATMUL_0);
	struct MsprofNodeBasicInfo bi = {
		.opName = S_MATMUL_0, .taskType = 0, .opType = S_MATMUL, .blockDim = 24, .opFlag = 0
	};
	rb_compact(a, MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_BASIC_INFO_TYPE, T1, 2150000,
		   &bi, sizeof(bi));
	struct MsprofTensorInfo ti;

	memset(&ti, 0, sizeof(ti));
	ti.opName = S_MATMUL_0;
	ti.tensorNum = 5;
	tensor(&ti.tensorData[0], 0, 2, 1, 32, 1024, 0);
	tensor(&ti.tensorData[1], 0, 2, 1, 1024, 1024, 0);
	tensor(&ti.tensorData[2], 0, 29, 0, 1024, 0, 0);
	tensor(&ti.tensorData[3], 0, 0 | (3u << 8), 27, 2, 3, 4);
	tensor(&ti.tensorData[4], 0, 2, 3, 0, 0, 0);
	rb_additional(a, MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_TENSOR_INFO_TYPE, T1, 2150000,
		      &ti, sizeof(ti));
	memset(&ti, 0, sizeof(ti));
	ti.opName = S_MATMUL_0;
	ti.tensorNum = 1;
	tensor(&ti.tensorData[0], 1, 2, 1, 32, 1024, 0);
	rb_additional(a, MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_TENSOR_INFO_TYPE, T1, 2150000,
		      &ti, sizeof(ti));
	rb_api(a, MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_LAUNCH_TYPE, T1, 2100000, 2900000,
	       S_MATMUL_0);
	rb_api(a, MSPROF_REPORT_ACL_LEVEL, MSPROF_REPORT_ACL_NN_BASE_TYPE + 1, T1, 2000000, 3000000,
	       0);

	/* B */
	struct MsprofRuntimeTrackV2 t2 = {
		.deviceId = 0, .streamId = 6, .taskId = 1, .taskType = 7
	};
	rb_compact(a, MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_TASK_TRACK_V2, T1, 4100001, &t2,
		   sizeof(t2));
	struct MsprofMemcpyInfo mi = { .bytes = 4096, .copyKind = 1, .deviceId = 0, .streamId = 6 };
	rb_compact(a, MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_MEMCPY_INFO, T1, 4100001, &mi,
		   sizeof(mi));
	rb_api(a, MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_API_BASE + 2, T1, 4100000, 4400000,
	       0);
	rb_api(a, MSPROF_REPORT_ACL_LEVEL, MSPROF_REPORT_ACL_RUNTIME_BASE_TYPE + 5, T1, 4000000,
	       4500000, 0);

	/* C */
	track(a, T1, 4900001, 6, 2, 3);
	rb_api(a, MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_API_BASE + 3, T1, 4900000, 5100000,
	       0);

	/* a track outside every API */
	track(a, T1, 5500000, 6, 3, 3);

	/* D */
	rb_event(a, MSPROF_REPORT_MODEL_LEVEL, MSPROF_REPORT_MODEL_EXECUTE_TYPE, T1, 3, 6000000, 9);
	track(a, T1, 6500000, 7, 3, 0);
	rb_event(a, MSPROF_REPORT_MODEL_LEVEL, MSPROF_REPORT_MODEL_EXECUTE_TYPE, T1, 3, 7000000, 9);
	rb_event(a, MSPROF_REPORT_MODEL_LEVEL, MSPROF_REPORT_MODEL_EXECUTE_TYPE, T1, 4, 7500000, 9);

	/* E */
	struct MsprofNodeBasicInfo hb = { .opName = S_HCOM_OP,
					  .taskType = 9,
					  .opType = S_HCOM_TYPE };
	rb_compact(b, MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_BASIC_INFO_TYPE, T2, 8150000,
		   &hb, sizeof(hb));
	struct MsprofHCCLOPInfo ho;

	memset(&ho, 0, sizeof(ho));
	ho.relay = 0;
	ho.retry = 1;
	ho.dataType = 4;
	ho.algType = S_ALG;
	ho.count = 1024;
	ho.groupName = S_GROUP;
	rb_compact(b, MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_HCCL_OP_INFO_TYPE, T2, 8150000,
		   &ho, sizeof(ho));
	struct MsprofHcclInfo hi;

	track(b, T2, 8300001, 8, 10, 9);
	memset(&hi, 0, sizeof(hi));
	hi.itemId = S_NOTIFY_WAIT;
	hi.groupName = S_GROUP;
	hi.localRank = 0;
	hi.remoteRank = 1;
	hi.rankSize = 2;
	hi.planeID = 3;
	hi.ctxId = MSPROF_HCCL_INVALID_UINT;
	hi.notifyID = 77;
	hi.role = 1;
	hi.durationEstimated = 2.0;
	hi.dataType = MSPROF_HCCL_INVALID_UINT;
	hi.linkType = 1;
	hi.transportType = 0;
	hi.rdmaType = MSPROF_HCCL_INVALID_UINT;
	rb_additional(b, MSPROF_REPORT_HCCL_NODE_LEVEL, NPUPROF_CANN_HCCL_INFO_TYPE, T2, 8300100,
		      &hi, sizeof(hi));
	track(b, T2, 8400001, 8, 11, 7);
	hi.itemId = S_MEMCPY;
	hi.role = 0;
	hi.dataSize = 8192;
	hi.durationEstimated = 4.0;
	hi.dataType = 4;
	rb_additional(b, MSPROF_REPORT_HCCL_NODE_LEVEL, NPUPROF_CANN_HCCL_INFO_TYPE, T2, 8400100,
		      &hi, sizeof(hi));
	rb_api(b, MSPROF_REPORT_HCCL_NODE_LEVEL, MSPROF_REPORT_HCCL_MASTER_TYPE, T2, 8200000,
	       8800000, S_HCCL_API);
	rb_api(b, MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_LAUNCH_TYPE, T2, 8100000, 9900000,
	       S_HCOM_OP);
	rb_api(b, MSPROF_REPORT_ACL_LEVEL, MSPROF_REPORT_ACL_HOST_HCCL_BASE_TYPE + 1, T2, 8000000,
	       10000000, 0);
}

/* ---- a host-only session of one stream ---- */
static char g_parent[256];
static struct npuprof_session g_s;
static struct craft g_c;

static void write_stream(const struct craft *c)
{
	char path[4400];
	FILE *f;

	snprintf(path, sizeof(path), "%s/host", g_s.dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/host/data", g_s.dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/host/data/%s%u%s", g_s.dir, NPUPROF_HOSTFMT_FILE_PREFIX,
		 g_s.pid, NPUPROF_HOSTFMT_FILE_SUFFIX);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(c->buf, 1, c->len, f), c->len);
	ck_assert_int_eq(fclose(f), 0);
}

static void make_session(void)
{
	char err[1024];

	snprintf(g_parent, sizeof(g_parent), "/tmp/npuprof-test-cann-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(g_parent));
	memset(&g_s, 0, sizeof(g_s));
	snprintf(g_s.hostname, sizeof(g_s.hostname), "testhost");
	snprintf(g_s.host_uid, sizeof(g_s.host_uid), "12345");
	snprintf(g_s.engine, sizeof(g_s.engine), NPUPROF_ENGINE_HOST);
	g_s.start_realtime_ns = 1700000000000000000ULL;
	g_s.start_monotonic_ns = MONO0;
	g_s.pid = 4242;
	g_s.ndev = 1;
	snprintf(g_s.dev[0].chip, sizeof(g_s.dev[0].chip), "Ascend910B");
	g_s.dev[0].counter_hz = 50000000;
	g_s.end_realtime_ns = g_s.start_realtime_ns + 2000000000ULL;
	ck_assert_int_eq(npuprof_session_create(&g_s, g_parent, err, sizeof(err)), 0);
}

/* The stream of session_records and thread_records, plus `extra` in a
 * block of thread T1 (NULL: none). */
static void make_stream(const struct rb *extra)
{
	static struct rb s, a, b;
	struct npuprof_hostfmt_file_header *fh = (void *)g_c.buf;

	memset(&s, 0, sizeof(s));
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	session_records(&s);
	thread_records(&a, &b);
	craft_init(&g_c, 0);
	fh->pid = g_s.pid;
	fh->realtime_ns = g_s.start_realtime_ns;
	fh->monotonic_ns = g_s.start_monotonic_ns;
	craft_block(&g_c, 0, s.buf, s.len);
	craft_block(&g_c, T1, a.buf, a.len);
	craft_block(&g_c, T2, b.buf, b.len);
	if (extra)
		craft_block(&g_c, T1, extra->buf, extra->len);
	craft_end(&g_c, 0);
	write_stream(&g_c);
}

static sqlite3 *g_db;

/* one value of a query on g_db */
#define q(...) q_intf(g_db, __VA_ARGS__)
static char g_txt[1024];
#define qs(...) q_textf(g_db, g_txt, sizeof(g_txt), __VA_ARGS__)

static char *g_warn;
static size_t g_warn_len;

static void export_session(struct npuprof_export_result *res)
{
	struct npuprof_export_opts o;
	char err[1024];
	FILE *w = open_memstream(&g_warn, &g_warn_len);

	ck_assert_ptr_nonnull(w);
	memset(&o, 0, sizeof(o));
	o.warn = w;
	memset(res, 0, sizeof(*res));
	ck_assert_msg(npuprof_export(g_s.dir, &o, res, err, sizeof(err)) == 0, "%s", err);
	fclose(w);
	ck_assert_int_eq(sqlite3_open_v2(res->db_path, &g_db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
}

static void finish(void)
{
	sqlite3_close(g_db);
	g_db = NULL;
	free(g_warn);
	g_warn = NULL;
	tu_rm_rf(g_parent);
}

/* unix ns of a raw time */
static int64_t U(uint64_t raw)
{
	return npuprof_session_unix_ns(&g_s, raw + RAW_OFF);
}

#define API(name, level)                                                            \
	"FROM CANN_API a JOIN STRING_IDS s ON s.id = a.name WHERE s.value = '" name \
	"' AND a.type = " #level

/* connectionId of the API named `name` at level `level` */
#define CONN(name, level) q("SELECT a.connectionId " API(name, level))

#define TASK_SEL(stream, task) "FROM TASK WHERE streamId = " #stream " AND taskId = " #task

START_TEST(test_cann_rows)
{
	struct npuprof_export_result res;

	make_session();
	make_stream(NULL);
	export_session(&res);
	ck_assert_msg(!res.damaged, "%s", g_warn);

	/* CANN_API: every API and event pair, named as msprof names them */
	ck_assert_int_eq(q("SELECT COUNT(*) FROM CANN_API"), 10);
	ck_assert_int_eq(q("SELECT COUNT(*) " API("aclnnMatMul", 20000)), 1);
	ck_assert_int_eq(q("SELECT COUNT(*) " API("launch", 10000)), 2);
	ck_assert_int_eq(q("SELECT COUNT(*) " API("KernelLaunch", 5000)), 1);
	ck_assert_int_eq(q("SELECT COUNT(*) " API("ModelExecute", 15000)), 1);
	ck_assert_int_eq(q("SELECT COUNT(*) " API("Launch_Ffts", 5500)), 1); /* its itemId */
	ck_assert_int_eq(q("SELECT COUNT(DISTINCT connectionId) FROM CANN_API"), 10);
	/* the export's own counter, in start order */
	ck_assert_int_eq(CONN("aclnnMatMul", 20000), 0);
	ck_assert_int_eq(q("SELECT a.connectionId " API("launch", 10000) " AND a.globalTid = %lld",
			   (long long)npuprof_global_tid(g_s.pid, T1)),
			 1);
	ck_assert_int_eq(q("SELECT MAX(connectionId) FROM CANN_API"), 9);
	/* times: CLOCK_MONOTONIC_RAW converted */
	ck_assert_int_eq(q("SELECT a.startNs " API("aclnnMatMul", 20000)), U(2000000));
	ck_assert_int_eq(q("SELECT a.endNs " API("aclnnMatMul", 20000)), U(3000000));
	ck_assert_int_eq(q("SELECT a.startNs " API("ModelExecute", 15000)), U(6000000));
	ck_assert_int_eq(q("SELECT a.endNs " API("ModelExecute", 15000)), U(7000000));
	ck_assert_int_eq(q("SELECT a.globalTid " API("HcclAllReduce", 20000)),
			 (int64_t)npuprof_global_tid(g_s.pid, T2));

	/* TASK: one per track, connectionId by containment */
	ck_assert_int_eq(q("SELECT COUNT(*) FROM TASK"), 7);
	int64_t launch1 = q("SELECT a.connectionId " API("launch", 10000) " AND a.globalTid = %lld",
			    (long long)npuprof_global_tid(g_s.pid, T1));
	int64_t launch2 = q("SELECT a.connectionId " API("launch", 10000) " AND a.globalTid = %lld",
			    (long long)npuprof_global_tid(g_s.pid, T2));
	ck_assert_int_eq(q("SELECT connectionId " TASK_SEL(5, 7)), launch1); /* not the acl's */
	ck_assert_int_eq(q("SELECT connectionId " TASK_SEL(6, 1)),
			 CONN("aclrtMemcpyAsync", 20000)); /* not MemcpyAsync's */
	ck_assert_int_eq(q("SELECT connectionId " TASK_SEL(6, 2)), -1); /* runtime API only */
	ck_assert_int_eq(q("SELECT connectionId " TASK_SEL(6, 3)), -1); /* no API */
	ck_assert_int_eq(q("SELECT connectionId " TASK_SEL(7, 3)), CONN("ModelExecute", 15000));
	ck_assert_int_eq(q("SELECT connectionId " TASK_SEL(8, 10)), launch2); /* not HCCL's */
	ck_assert_int_eq(q("SELECT connectionId " TASK_SEL(8, 11)), launch2);
	ck_assert_str_eq(qs("SELECT s.value FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType "
			    "WHERE streamId = 5 AND taskId = 7"),
			 "KERNEL_AICORE");
	ck_assert_str_eq(qs("SELECT s.value FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType "
			    "WHERE streamId = 6 AND taskId = 1"),
			 "MEMCPY_ASYNC");
	/* host-only: launch time (the track's) + the ext's modelled duration */
	ck_assert_int_eq(q("SELECT startNs " TASK_SEL(5, 7)), U(2200001));
	ck_assert_int_eq(q("SELECT endNs - startNs " TASK_SEL(5, 7)), 4000);

	/* COMPUTE_TASK_INFO: basic info + tensors of two records; the
	 * collective's node describes no operator (its basic info types its
	 * COMMUNICATION_OP, below), as in msprof's databases */
	ck_assert_int_eq(q("SELECT COUNT(*) FROM COMPUTE_TASK_INFO"), 1);
#define CT(col)                                                                             \
	qs("SELECT s.value FROM COMPUTE_TASK_INFO c JOIN TASK t ON t.globalTaskId = "       \
	   "c.globalTaskId JOIN STRING_IDS s ON s.id = c." col " WHERE t.streamId = 5 AND " \
	   "t.taskId = 7")
	ck_assert_str_eq(CT("name"), "MatMul_0");
	ck_assert_str_eq(CT("opType"), "MatMul");
	ck_assert_str_eq(CT("taskType"), "AI_CORE");
	ck_assert_str_eq(CT("inputFormats"), "FORMAT_ND;FORMAT_ND;FRACTAL_NZ;NCHW:3;FORMAT_ND");
	ck_assert_str_eq(CT("inputDataTypes"), "FLOAT16;FLOAT16;FLOAT;DT_BF16;INT32");
	ck_assert_str_eq(CT("inputShapes"), "\"32,1024;1024,1024;1024;2,3,4;\"");
	ck_assert_str_eq(CT("outputFormats"), "FORMAT_ND");
	ck_assert_str_eq(CT("outputDataTypes"), "FLOAT16");
	ck_assert_str_eq(CT("outputShapes"), "\"32,1024\"");
	ck_assert_int_eq(q("SELECT c.blockDim FROM COMPUTE_TASK_INFO c JOIN TASK t ON "
			   "t.globalTaskId = c.globalTaskId WHERE t.streamId = 5"),
			 24);
	ck_assert_int_eq(q("SELECT COUNT(*) FROM COMPUTE_TASK_INFO c JOIN TASK t ON "
			   "t.globalTaskId = c.globalTaskId WHERE t.streamId = 8"),
			 0);

	/* MEMCPY_INFO from memcpy_info */
	ck_assert_int_eq(q("SELECT COUNT(*) FROM MEMCPY_INFO"), 1);
	ck_assert_int_eq(q("SELECT m.size FROM MEMCPY_INFO m JOIN TASK t ON t.globalTaskId = "
			   "m.globalTaskId WHERE t.streamId = 6 AND t.taskId = 1"),
			 4096);
	ck_assert_int_eq(q("SELECT memcpyOperation FROM MEMCPY_INFO"), 1);

	/* COMMUNICATION_OP / TASK_INFO */
	ck_assert_int_eq(q("SELECT COUNT(*) FROM COMMUNICATION_OP"), 1);
	ck_assert_str_eq(qs("SELECT s.value FROM COMMUNICATION_OP o JOIN STRING_IDS s ON s.id = "
			    "o.opName"),
			 "hcom_allReduce__1_0_1");
	ck_assert_str_eq(qs("SELECT s.value FROM COMMUNICATION_OP o JOIN STRING_IDS s ON s.id = "
			    "o.opType"),
			 "hcom_allReduce_");
	ck_assert_str_eq(qs("SELECT s.value FROM COMMUNICATION_OP o JOIN STRING_IDS s ON s.id = "
			    "o.groupName"),
			 "group0");
	ck_assert_str_eq(qs("SELECT s.value FROM COMMUNICATION_OP o JOIN STRING_IDS s ON s.id = "
			    "o.algType"),
			 "MESH-RING");
	ck_assert_int_eq(q("SELECT connectionId FROM COMMUNICATION_OP"), launch2);
	ck_assert_int_eq(q("SELECT retry * 10 + relay FROM COMMUNICATION_OP"), 10);
	ck_assert_int_eq(q("SELECT dataType FROM COMMUNICATION_OP"), 4);
	ck_assert_int_eq(q("SELECT count FROM COMMUNICATION_OP"), 1024);
	ck_assert_int_eq(q("SELECT startNs FROM COMMUNICATION_OP"), U(8300001));
	ck_assert_int_eq(q("SELECT COUNT(*) FROM COMMUNICATION_TASK_INFO c JOIN COMMUNICATION_OP o "
			   "ON o.opId = c.opId AND o.opName = c.name AND o.groupName = c.groupName"),
			 2);
#define CTI(col, stask)                                                                      \
	q("SELECT c." col " FROM COMMUNICATION_TASK_INFO c JOIN TASK t ON t.globalTaskId = " \
	  "c.globalTaskId WHERE t.streamId = 8 AND t.taskId = " #stask)
	ck_assert_str_eq(qs("SELECT s.value FROM COMMUNICATION_TASK_INFO c JOIN TASK t ON "
			    "t.globalTaskId = c.globalTaskId JOIN STRING_IDS s ON s.id = c.taskType "
			    "WHERE t.taskId = 10"),
			 "Notify_Wait");
	ck_assert_int_eq(CTI("srcRank", 10), 0);
	ck_assert_int_eq(CTI("dstRank", 10), 1);
	ck_assert_int_eq(CTI("planeId", 10), 3);
	ck_assert_int_eq(CTI("notifyId", 10), 77);
	ck_assert_int_eq(CTI("linkType", 10), 1);
	ck_assert_int_eq(CTI("rdmaType", 10), 65535);
	ck_assert_int_eq(CTI("isMaster", 10), 1);
	ck_assert_int_eq(CTI("srcRank", 11), 1); /* role 0: this rank receives */
	ck_assert_int_eq(CTI("dstRank", 11), 0);
	ck_assert_int_eq(CTI("size", 11), 8192);
	ck_assert_int_eq(CTI("dataType", 11), 4);

	/* the rank the HCCL tasks name (their localRank) */
	ck_assert_int_eq(q("SELECT rankId FROM RANK_DEVICE_MAP WHERE deviceId = 0"), 0);

	/* what the rules left out is named */
	ck_assert_msg(strstr(g_warn, "1 event starts without an end"), "%s", g_warn);
	finish();
}
END_TEST

/* Bad reports cost only themselves and are named: the stream's good
 * records are all exported. */
START_TEST(test_cann_bad_reports)
{
	struct npuprof_export_result res;
	static struct rb x;
	struct MsprofApi a = { .magicNumber = 0x1234,
			       .level = MSPROF_REPORT_ACL_LEVEL,
			       .type = MSPROF_REPORT_ACL_NN_BASE_TYPE + 1,
			       .threadId = T1,
			       .beginTime = 11000000,
			       .endTime = 12000000 };
	struct MsprofCompactInfo c;

	memset(&x, 0, sizeof(x));
	rb_msprof(&x, NPUPROF_HOSTFMT_MSPROF_API, &a, sizeof(a)); /* wrong magic */
	memset(&c, 0, sizeof(c));
	c.magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM;
	c.level = MSPROF_REPORT_RUNTIME_LEVEL;
	c.type = NPUPROF_CANN_RT_TASK_TRACK;
	c.threadId = T1;
	c.dataLen = 100; /* beyond the 40-byte area */
	c.timeStamp = 11500000;
	rb_msprof(&x, NPUPROF_HOSTFMT_MSPROF_COMPACT, &c, sizeof(c));
	struct MsprofRuntimeTrack t = { .streamId = 9, .taskId = 1 };
	rb_compact(&x, 12345, 1, T1, 11600000, &t, sizeof(t)); /* no such level */
	rb_compact(&x, MSPROF_REPORT_NODE_LEVEL, 77, T1, 11700000, &t,
		   sizeof(t)); /* unregistered */
	rb_compact(&x, MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_TASK_TRACK, T1, 11800000, &t,
		   8); /* shorter than a track */
	rb_api(&x, MSPROF_REPORT_ACL_LEVEL, 0x0F0000, T1, 12000000, 13000000, 0); /* named 983040 */
	a.magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM;
	a.beginTime = 0;
	rb_msprof(&x, NPUPROF_HOSTFMT_MSPROF_API, &a, sizeof(a)); /* beginTime 0 */
	struct npuprof_hostfmt_msprof_bad *bad = rb_rec(&x, NPUPROF_HOSTFMT_MSPROF_BAD,
							sizeof(*bad));

	bad->bad_magic = 3;
	bad->ring_full = 2;
	make_session();
	make_stream(&x);
	export_session(&res);
	ck_assert_int_eq(res.damaged, 1);
	ck_assert_msg(strstr(g_warn,
			     "refused reports during the collection (not recorded): 0 NULL, "
			     "3 with a wrong magic"),
		      "%s", g_warn);
	ck_assert_msg(strstr(g_warn, "2 with the thread's buffer full"), "%s", g_warn);
	ck_assert_msg(strstr(g_warn, "magic 0x1234"), "%s", g_warn);
	ck_assert_msg(strstr(g_warn, "2 bad records"), "%s", g_warn);
	ck_assert_msg(strstr(g_warn, "1 of an unknown level"), "%s", g_warn);
	ck_assert_msg(strstr(g_warn, "2 of an unregistered (level, type)"), "%s", g_warn);
	ck_assert_msg(strstr(g_warn, "1 APIs with beginTime 0"), "%s", g_warn);
	ck_assert_msg(strstr(g_warn, "1 payloads shorter than their kind"), "%s", g_warn);
	/* the rest is there */
	ck_assert_int_eq(q("SELECT COUNT(*) FROM CANN_API"), 11);
	ck_assert_int_eq(q("SELECT COUNT(*) " API("983040", 20000)), 1);
	ck_assert_int_eq(q("SELECT COUNT(*) FROM TASK"), 7);
	ck_assert_int_eq(q("SELECT COUNT(*) FROM COMPUTE_TASK_INFO"), 1);
	ck_assert_int_eq(q("SELECT COUNT(*) FROM COMMUNICATION_TASK_INFO"), 2);
	finish();
}
END_TEST

/* The framework layer's reports (npuprof_ext.h) become the PyTorch
 * database's framework rows: an op around A's acl API on T1 (linked to its
 * launch), a step range, an allocation and a GC; a short op payload and an
 * unregistered framework type are counted and skipped. */
START_TEST(test_cann_framework)
{
	struct npuprof_export_result res;
	struct npuprof_export_opts o;
	static struct rb x;
	char err[1024], db[4400];
	struct NpuprofFwkOp op = { .fwdThreadId = 0,
				   .apiType = NPUPROF_EXT_FWK_API_OP,
				   .durationNs = 1100000, /* [1.95, 3.05] ms: around A */
				   .sequenceNumber = 7,
				   .nameId = 0x2001,
				   .dtypesId = 0x2002,
				   .shapesId = 0x2003,
				   .stackId = NPUPROF_EXT_NO_STRING };
	struct NpuprofFwkOp step = { .apiType = NPUPROF_EXT_FWK_API_OP,
				     .durationNs = 8 * MS,
				     .sequenceNumber = -1,
				     .nameId = 0x2004,
				     .dtypesId = NPUPROF_EXT_NO_STRING,
				     .shapesId = NPUPROF_EXT_NO_STRING,
				     .stackId = NPUPROF_EXT_NO_STRING };
	struct NpuprofFwkMem mem = { .deviceId = 0,
				     .ptr = 0x1000,
				     .size = 4096,
				     .totalAllocated = 4096,
				     .totalReserved = 8192,
				     .totalActive = 4096,
				     .componentId = 0x2005 };
	struct NpuprofFwkGc gc = { .generation = 2, .durationNs = 100000 };
	sqlite3 *pt;

	memset(&x, 0, sizeof(x));
	rb_type(&x, NPUPROF_EXT_LEVEL, NPUPROF_EXT_FWK_OP_TYPE, NPUPROF_EXT_FWK_OP_NAME);
	rb_type(&x, NPUPROF_EXT_LEVEL, NPUPROF_EXT_FWK_MEM_TYPE, NPUPROF_EXT_FWK_MEM_NAME);
	rb_type(&x, NPUPROF_EXT_LEVEL, NPUPROF_EXT_FWK_GC_TYPE, NPUPROF_EXT_FWK_GC_NAME);
	rb_hash(&x, 0x2001, "aten::matmul");
	rb_hash(&x, 0x2002, "float;\r\nfloat");
	rb_hash(&x, 0x2003, "[2, 3];\r\n[3, 4]");
	rb_hash(&x, 0x2004, "ProfilerStep#1");
	rb_hash(&x, 0x2005, "PTA");
	rb_additional(&x, NPUPROF_EXT_LEVEL, NPUPROF_EXT_FWK_OP_TYPE, T1, 1950000, &op, sizeof(op));
	rb_additional(&x, NPUPROF_EXT_LEVEL, NPUPROF_EXT_FWK_MEM_TYPE, T1, 2500000, &mem,
		      sizeof(mem));
	rb_additional(&x, NPUPROF_EXT_LEVEL, NPUPROF_EXT_FWK_GC_TYPE, T1, 3500000, &gc, sizeof(gc));
	rb_additional(&x, NPUPROF_EXT_LEVEL, NPUPROF_EXT_FWK_OP_TYPE, T1, 1 * MS, &step,
		      sizeof(step));
	rb_additional(&x, NPUPROF_EXT_LEVEL, NPUPROF_EXT_FWK_OP_TYPE, T1, 3600000, &op,
		      8); /* shorter than an op */
	rb_additional(&x, NPUPROF_EXT_LEVEL, 99, T1, 3700000, &op, sizeof(op)); /* no name */
	make_session();
	make_stream(&x);
	memset(&o, 0, sizeof(o));
	o.pytorch = 1;
	o.warn = open_memstream(&g_warn, &g_warn_len);
	memset(&res, 0, sizeof(res));
	ck_assert_msg(npuprof_export(g_s.dir, &o, &res, err, sizeof(err)) == 0, "%s", err);
	fclose(o.warn);
	ck_assert_msg(strstr(g_warn, "1 of an unregistered (level, type)"), "%s", g_warn);
	ck_assert_msg(strstr(g_warn, "1 payloads shorter than their kind"), "%s", g_warn);
	ck_assert_ptr_nonnull(res.pytorch_path);
	snprintf(db, sizeof(db), "%s", res.pytorch_path);
	ck_assert_int_eq(sqlite3_open_v2(db, &pt, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	g_db = pt;
	/* the op at its raw times (RAW_OFF later in CLOCK_MONOTONIC), with its
	 * strings, sequence number and type; the step around it */
	ck_assert_int_eq(q("SELECT count(*) FROM PYTORCH_API"), 2);
	ck_assert_str_eq(qs("SELECT (p.startNs - %lld) || '|' || (p.endNs - %lld) || '|' || "
			    "p.sequenceNumber || '|' || p.type || '|' || "
			    "replace(d.value, char(13, 10), '~') || '|' || "
			    "replace(sh.value, char(13, 10), '~') FROM PYTORCH_API p "
			    "JOIN STRING_IDS n ON n.id = p.name JOIN STRING_IDS d ON "
			    "d.id = p.inputDtypes JOIN STRING_IDS sh ON sh.id = p.inputShapes "
			    "WHERE n.value = 'aten::matmul'",
			    (long long)U(1950000), (long long)U(3050000)),
			 "0|0|7|50001|float;~float|[2, 3];~[3, 4]");
	ck_assert_int_eq(q("SELECT count(*) FROM PYTORCH_API p JOIN STRING_IDS n ON n.id = "
			   "p.name WHERE n.value = 'ProfilerStep#1' AND p.startNs = %lld",
			   (long long)U(1 * MS)),
			 1);
	/* the op contains A's node launch: its CONNECTION_IDS */
	ck_assert_int_eq(q("SELECT count(*) FROM CONNECTION_IDS c JOIN PYTORCH_API p ON "
			   "p.connectionId = c.id JOIN STRING_IDS n ON n.id = p.name WHERE "
			   "n.value = 'aten::matmul'"),
			 1);
	ck_assert_int_eq(q("SELECT count(*) FROM MEMORY_RECORD WHERE totalAllocated = 4096 AND "
			   "totalReserved = 8192 AND timestamp = %lld",
			   (long long)U(2500000)),
			 1);
	ck_assert_int_eq(q("SELECT count(*) FROM GC_RECORD WHERE startNs = %lld AND endNs = %lld",
			   (long long)U(3500000), (long long)U(3600000)),
			 1);
	finish();
}
END_TEST

/* A CANN report whose time does not convert (no CLOCK_RAW pairs) is bad. */
START_TEST(test_cann_no_clock)
{
	struct rb s, a;
	struct decoded *d;
	char dir[] = "/tmp/npuprof-test-cannclk-XXXXXX", path[4200];
	FILE *f;

	memset(&s, 0, sizeof(s));
	memset(&a, 0, sizeof(a));
	rb_type(&s, MSPROF_REPORT_ACL_LEVEL, 1, "aclA");
	rb_api(&a, MSPROF_REPORT_ACL_LEVEL, 1, T1, 1000, 2000, 0);
	craft_init(&g_c, 0);
	craft_block(&g_c, 0, s.buf, s.len);
	craft_block(&g_c, T1, a.buf, a.len);
	craft_end(&g_c, 0);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s.raw", dir);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	fwrite(g_c.buf, 1, g_c.len, f);
	fclose(f);
	d = tu_decode(path);
	ck_assert_int_eq(d->ret, NPUPROF_HOSTREAD_EDAMAGED);
	ck_assert_uint_eq(d->st.bad_records, 1);
	ck_assert_msg(strstr(d->err, "without CLOCK_RAW pairs"), "%s", d->err);
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_MSPROF_API), 0);
	tu_free(d);
	tu_rm_rf(dir);
}
END_TEST

/* A report flagged NPUPROF_HOSTFMT_F_TSC is converted through the CLOCK pairs
 * (here 2 ticks a ns), not the CLOCK_RAW ones. */
START_TEST(test_cann_tsc)
{
	struct rb s, a;
	struct decoded *d;
	char dir[] = "/tmp/npuprof-test-canntsc-XXXXXX", path[4200];
	struct npuprof_hostfmt_clock *c;
	struct npuprof_hostfmt_msprof *m;
	struct MsprofApi got;
	FILE *f;

	memset(&s, 0, sizeof(s));
	memset(&a, 0, sizeof(a));
	c = rb_rec(&s, NPUPROF_HOSTFMT_CLOCK, sizeof(*c));
	c->tsc = 2000000;
	c->monotonic_ns = 5000000;
	c->ref_tsc = 0;
	c = rb_rec(&s, NPUPROF_HOSTFMT_CLOCK, sizeof(*c));
	c->tsc = 42000000;
	c->monotonic_ns = 25000000;
	rb_clock_raw(&s, 1000, 1000 + RAW_OFF);
	rb_clock_raw(&s, 100000000000ULL, 100000000000ULL + RAW_OFF);
	rb_api(&a, MSPROF_REPORT_ACL_LEVEL, 1, T1, 4000000, 6000000, 0);
	((struct npuprof_hostfmt_header *)a.buf)->reserved = NPUPROF_HOSTFMT_F_TSC;
	rb_api(&a, MSPROF_REPORT_ACL_LEVEL, 1, T1, 4000000, 6000000, 0); /* raw ns */
	craft_init(&g_c, NPUPROF_HOSTFMT_F_TSC);
	craft_block(&g_c, 0, s.buf, s.len);
	craft_block(&g_c, T1, a.buf, a.len);
	craft_end(&g_c, 0);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s.raw", dir);
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	fwrite(g_c.buf, 1, g_c.len, f);
	fclose(f);
	d = tu_decode(path);
	ck_assert_msg(d->ret == 0, "%s", d->err);
	ck_assert_uint_eq(tu_count_kind(d, NPUPROF_HOSTFMT_MSPROF_API), 2);
	m = (void *)tu_nth_kind(d, NPUPROF_HOSTFMT_MSPROF_API, 0);
	ck_assert_uint_eq(m->h.reserved & NPUPROF_HOSTFMT_F_TSC, 0);
	memcpy(&got, m->data, sizeof(got));
	ck_assert_uint_eq(got.beginTime, 6000000); /* 5 ms + (4M - 2M) ticks / 2 */
	ck_assert_uint_eq(got.endTime, 7000000);
	m = (void *)tu_nth_kind(d, NPUPROF_HOSTFMT_MSPROF_API, 1);
	memcpy(&got, m->data, sizeof(got));
	ck_assert_uint_eq(got.beginTime, 4000000 + RAW_OFF);
	ck_assert_uint_eq(got.endTime, 6000000 + RAW_OFF);
	tu_free(d);
	tu_rm_rf(dir);
}
END_TEST

/* Two processes of one session: the export's connectionIds are unique
 * across them, and each process's tasks link to its own APIs. */
START_TEST(test_cann_two_processes)
{
	struct npuprof_export_result res;
	struct npuprof_hostfmt_file_header *fh = (void *)g_c.buf;
	uint32_t pid0;

	make_session();
	make_stream(NULL);
	pid0 = g_s.pid;
	g_s.pid = pid0 + 1;
	fh->pid = g_s.pid;
	write_stream(&g_c);
	g_s.pid = pid0;
	export_session(&res);
	ck_assert_msg(!res.damaged, "%s", g_warn);
	ck_assert_int_eq(q("SELECT COUNT(*) FROM CANN_API"), 20);
	ck_assert_int_eq(q("SELECT COUNT(DISTINCT connectionId) FROM CANN_API"), 20);
	ck_assert_int_eq(q("SELECT COUNT(*) FROM TASK"), 14);
	/* every linked task's API is of its own process */
	ck_assert_int_eq(q("SELECT COUNT(*) FROM TASK t JOIN CANN_API a ON a.connectionId = "
			   "t.connectionId WHERE a.globalTid >> 32 = t.globalPid"),
			 10);
	ck_assert_int_eq(q("SELECT COUNT(*) FROM COMMUNICATION_OP"), 2);
	finish();
}
END_TEST

/* ---- both readers give the same records ---- */
struct seen {
	char line[64][256];
	int n;
	struct hostdata *h;
};

static int cmp_line(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void add_api(void *ctx, const struct hostdata_api *a)
{
	struct seen *s = ctx;

	ck_assert_int_lt(s->n, 64);
	snprintf(s->line[s->n++], 256, "api %u %u %llu %llu %llu %s", a->r.level, a->r.tid,
		 (unsigned long long)a->r.start_ns, (unsigned long long)a->r.end_ns,
		 (unsigned long long)a->r.connection_id,
		 hostdata_str(s->h, hostdata_api_strings(s->h, a)->name_id));
}

static void add_task(void *ctx, const struct hostdata_track *t)
{
	struct seen *s = ctx;
	const struct hostdata_compute *c = hostdata_compute(s->h, t->pid, t->r.device_id,
							    t->r.stream_id, t->r.task_id,
							    t->r.batch_id);
	const struct hostdata_hccl_task *k = hostdata_hccl_task(s->h, t->pid, t->r.device_id,
								t->r.stream_id, t->r.task_id,
								t->r.batch_id);

	ck_assert_int_lt(s->n, 64);
	snprintf(s->line[s->n++], 256, "task %u %u %u %u %llu %llu %s %llu %llu %u %s %s", t->r.tid,
		 t->r.stream_id, t->r.task_id, t->r.batch_id, (unsigned long long)t->r.time_ns,
		 (unsigned long long)t->r.connection_id, hostdata_str(s->h, t->r.task_type_id),
		 (unsigned long long)t->r.duration_ns, (unsigned long long)t->r.bytes,
		 t->r.memcpy_op,
		 c ? hostdata_str(s->h, hostdata_op_strings(s->h, c)->input_shapes_id) : "-",
		 k ? hostdata_str(s->h, k->r.task_type_id) : "-");
}

START_TEST(test_cann_readers_agree)
{
	struct hostdata h;
	static struct seen load, opn;
	char err[512];

	make_session();
	make_stream(NULL);
	memset(&load, 0, sizeof(load));
	memset(&opn, 0, sizeof(opn));
	ck_assert_int_eq(hostdata_load(&h, g_s.dir, stderr, err, sizeof(err)), 0);
	ck_assert_uint_eq(h.damaged_files, 0);
	load.h = &h;
	for (size_t i = 0; i < h.napi; i++)
		add_api(&load, &h.api[i]);
	for (size_t i = 0; i < hostdata_whole(&h)->ntrack; i++)
		add_task(&load, &hostdata_whole(&h)->track[i]);
	ck_assert_uint_eq(h.nhop, 1);
	hostdata_free(&h);

	ck_assert_int_eq(hostdata_open(&h, g_s.dir, 0, stderr, err, sizeof(err)), 0);
	opn.h = &h;
	ck_assert_int_eq(hostdata_rewind(&h, add_api, add_task, &opn), 0);
	ck_assert_int_eq(hostdata_drain(&h), 0);
	ck_assert_uint_eq(h.nhop, 1);
	hostdata_free(&h);

	ck_assert_int_eq(load.n, 17);
	ck_assert_int_eq(opn.n, load.n);
	qsort(load.line, load.n, sizeof(load.line[0]), cmp_line);
	qsort(opn.line, opn.n, sizeof(opn.line[0]), cmp_line);
	for (int i = 0; i < load.n; i++)
		ck_assert_str_eq(opn.line[i], load.line[i]);
	finish();
}
END_TEST

/* ---- the CANN reports' connectionIds follow the runtime's ---- */
struct conns {
	uint64_t min, max;
	int n, runtime;
};

static void note_conn(void *ctx, const struct hostdata_api *a)
{
	struct conns *c = ctx;

	if (a->r.connection_id == 500) {
		c->runtime++;
		return;
	}
	if (!c->n || a->r.connection_id < c->min)
		c->min = a->r.connection_id;
	if (!c->n || a->r.connection_id > c->max)
		c->max = a->r.connection_id;
	c->n++;
}

/* A runtime-written API record (connectionId 500) in the same stream,
 * after the CANN reports in file order: both readers number the CANN
 * reports' APIs from 501 (hostdata_open's index pass notes the runtime's
 * ids without loading the record). */
START_TEST(test_cann_after_runtime_ids)
{
	static struct rb extra;
	struct npuprof_hostfmt_api *r;
	struct conns load = { 0 }, opn = { 0 };
	struct hostdata h;
	char err[512];

	make_session();
	memset(&extra, 0, sizeof(extra));
	r = rb_rec(&extra, NPUPROF_HOSTFMT_API, sizeof(*r));
	r->level = NPUPROF_API_ACL;
	r->tid = T1;
	r->start_ns = MONO0 + 100;
	r->end_ns = MONO0 + 200;
	r->connection_id = 500;
	r->name_id = r->item_id = NPUPROF_HOSTFMT_NO_STRING;
	r->device_id = 0;
	make_stream(&extra);

	ck_assert_int_eq(hostdata_load(&h, g_s.dir, stderr, err, sizeof(err)), 0);
	for (size_t i = 0; i < h.napi; i++)
		note_conn(&load, &h.api[i]);
	hostdata_free(&h);
	ck_assert_int_eq(hostdata_open(&h, g_s.dir, 0, stderr, err, sizeof(err)), 0);
	ck_assert_int_eq(hostdata_rewind(&h, note_conn, NULL, &opn), 0);
	ck_assert_int_eq(hostdata_drain(&h), 0);
	hostdata_free(&h);

	ck_assert_int_eq(load.runtime, 1);
	ck_assert_int_eq(opn.runtime, 1);
	ck_assert_int_gt(load.n, 0);
	ck_assert_int_eq(opn.n, load.n);
	ck_assert_uint_eq(load.min, 501);
	ck_assert_uint_eq(opn.min, 501);
	ck_assert_uint_eq(opn.max, load.max);
	finish();
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("cannrec");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, tu_free_all);
	tcase_add_test(tc, test_cann_rows);
	tcase_add_test(tc, test_cann_bad_reports);
	tcase_add_test(tc, test_cann_framework);
	tcase_add_test(tc, test_cann_no_clock);
	tcase_add_test(tc, test_cann_readers_agree);
	tcase_add_test(tc, test_cann_after_runtime_ids);
	tcase_add_test(tc, test_cann_tsc);
	tcase_add_test(tc, test_cann_two_processes);
	suite_add_tcase(s, tc);
	return s;
}
