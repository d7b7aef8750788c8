/*
 * dbgen.c - synthetic msprof rows for benchmarks and checks (see dbgen.h).
 *
 * The shapes follow what real 910B files show (docs/ascend-reference.md 5): on one
 * thread an acl API encloses a node-level `launch`, which encloses a runtime
 * API, and the device task carries the `launch` row's connectionId; HCCL
 * collectives own many small FFTS+ tasks sharing that connectionId plus an
 * enclosing AI_CORE task; memcpy tasks hang off their acl API directly;
 * MarkEx markers pair an MSTX_EVENTS row with a MsTx task through
 * 4000000001 + markId. globalTaskId is dense in emission order and taskId
 * wraps at 16 bits per stream, as on hardware.
 */
#include "dbgen.h"

#include <npuprof/msprof_ids.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define U32_INVALID NPUPROF_DB_U32_INVALID
#define MSTX_BASE ((int64_t)NPUPROF_MSTX_CONNECTION_BASE)

#define N_OPS 6

struct gen {
	const struct npuprof_dbgen_params *p;
	const struct npuprof_dbgen_sink *sink;
	int64_t now; /* host clock, ns */
	int64_t dev; /* device clock, ns (same epoch) */
	int64_t conn; /* next CANN_API connectionId */
	int64_t gtid; /* next globalTaskId */
	int64_t op_id; /* next COMMUNICATION_OP opId */
	int64_t mark; /* next markId */
	uint32_t task_id[8]; /* per-stream 16-bit task ids */
	int64_t main_tid, comm_tid;
	struct {
		npuprof_db_str launch, kernel_launch, memcpy_api, memcpy_rt, hcom_api, launch_ffts,
			hcom_type, group, alg, t_aicore, t_aivec, t_memcpy, t_mstx, t_parent,
			t_notify_wait, t_write_value, t_sdma, h_notify_wait, h_notify_record,
			h_memcpy, empty, fmt, dtype, shape;
		npuprof_db_str api[N_OPS], name[N_OPS], type[N_OPS], ge_type[N_OPS];
	} s;
};

static const struct {
	const char *api, *name, *type;
	int vector;
} ops[N_OPS] = {
	{ "aclnnAdd", "aclnnAdd_AddAiCore_Add", "Add", 1 },
	{ "aclnnMatmul", "aclnnMatmul_MatMulCommon_MatMulV2", "MatMulV2", 0 },
	{ "aclnnRelu", "aclnnRelu_ReluAiCore_Relu", "Relu", 1 },
	{ "aclnnConvolution", "aclnnConvolution_Conv2D_Conv2D", "Conv2D", 0 },
	{ "aclnnMul", "aclnnMul_MulAiCore_Mul", "Mul", 1 },
	{ "aclnnSoftmax", "aclnnSoftmax_SoftmaxV2_SoftmaxV2", "SoftmaxV2", 1 },
};

static int intern(struct gen *g, npuprof_db_str *id, const char *s)
{
	npuprof_db_str r = g->sink->intern(g->sink->ctx, s);

	if (r < 0)
		return (int)r;
	*id = r;
	return 0;
}

#define EMIT(g, ID, sfx, ...)                                                                  \
	do {                                                                                   \
		const struct npuprof_db_##sfx row_ = { __VA_ARGS__ };                          \
		int r_ = (g)->sink->row((g)->sink->ctx, NPUPROF_DB_##ID, &row_, sizeof(row_)); \
		if (r_ < 0)                                                                    \
			return r_;                                                             \
	} while (0)

static int intern_all(struct gen *g)
{
	int r = 0;

	r = r ? r : intern(g, &g->s.launch, "launch");
	r = r ? r : intern(g, &g->s.kernel_launch, "KernelLaunch");
	r = r ? r : intern(g, &g->s.memcpy_api, "aclrtMemcpyAsync");
	r = r ? r : intern(g, &g->s.memcpy_rt, "MemcpyAsync");
	r = r ? r : intern(g, &g->s.hcom_api, "HcclAllReduce");
	r = r ? r : intern(g, &g->s.launch_ffts, "Launch_Ffts");
	r = r ? r : intern(g, &g->s.hcom_type, "hcom_allReduce_");
	r = r ? r : intern(g, &g->s.group, "90.91.105.46%enp189s0f0_60000_0_1736414082311975");
	r = r ? r : intern(g, &g->s.alg, "MESH-RING");
	r = r ? r : intern(g, &g->s.t_aicore, "KERNEL_AICORE");
	r = r ? r : intern(g, &g->s.t_aivec, "KERNEL_AIVEC");
	r = r ? r : intern(g, &g->s.t_memcpy, "MEMCPY_ASYNC");
	r = r ? r : intern(g, &g->s.t_mstx, "MsTx");
	r = r ? r : intern(g, &g->s.t_parent, "AI_CORE");
	r = r ? r : intern(g, &g->s.t_notify_wait, "Notify Wait");
	r = r ? r : intern(g, &g->s.t_write_value, "Write Value");
	r = r ? r : intern(g, &g->s.t_sdma, "SDMA");
	r = r ? r : intern(g, &g->s.h_notify_wait, "Notify_Wait");
	r = r ? r : intern(g, &g->s.h_notify_record, "Notify_Record");
	r = r ? r : intern(g, &g->s.h_memcpy, "Memcpy");
	r = r ? r : intern(g, &g->s.empty, "");
	r = r ? r : intern(g, &g->s.fmt, "FORMAT_ND;FORMAT_ND");
	r = r ? r : intern(g, &g->s.dtype, "FLOAT;FLOAT");
	r = r ? r : intern(g, &g->s.shape, "\"32,1024;32,1024\"");
	for (int i = 0; !r && i < N_OPS; i++) {
		r = r ? r : intern(g, &g->s.api[i], ops[i].api);
		r = r ? r : intern(g, &g->s.name[i], ops[i].name);
		r = r ? r : intern(g, &g->s.type[i], ops[i].type);
		r = r ? r :
			intern(g, &g->s.ge_type[i], ops[i].vector ? "AI_VECTOR_CORE" : "AI_CORE");
	}
	return r;
}

static int64_t next_task_id(struct gen *g, unsigned stream)
{
	uint32_t id = g->task_id[stream];

	g->task_id[stream] = (id + 1) & 0xffff;
	return id;
}

static int emit_api(struct gen *g, int64_t start, int64_t end, int64_t type, int64_t tid,
		    int64_t conn, npuprof_db_str name)
{
	EMIT(g, CANN_API, cann_api, start, end, type, tid, conn, name);
	return 0;
}

/* acl ⊃ launch ⊃ KernelLaunch on the main thread, one kernel on stream 2. */
static int gen_compute(struct gen *g, uint64_t i)
{
	unsigned k = (unsigned)(i % N_OPS);
	int64_t t0 = g->now, acl = g->conn++, launch = g->conn++, rt = g->conn++;
	int64_t gtid = g->gtid++;
	int r;

	g->now += 9000;
	if ((r = emit_api(g, t0, t0 + 8000, NPUPROF_API_ACL, g->main_tid, acl, g->s.api[k])) ||
	    (r = emit_api(g, t0 + 1000, t0 + 7000, NPUPROF_API_NODE, g->main_tid, launch,
			  g->s.launch)) ||
	    (r = emit_api(g, t0 + 2000, t0 + 6000, NPUPROF_API_RUNTIME, g->main_tid, rt,
			  g->s.kernel_launch)))
		return r;
	if (g->dev < t0 + 6000)
		g->dev = t0 + 6000;
	EMIT(g, TASK, task, g->dev, g->dev + 5000 + (int64_t)(i % 7) * 1000, 0, launch, gtid,
	     g->p->pid, ops[k].vector ? g->s.t_aivec : g->s.t_aicore, U32_INVALID, 2,
	     next_task_id(g, 2), U32_INVALID);
	EMIT(g, COMPUTE_TASK_INFO, compute_task_info, .name = g->s.name[k], .globalTaskId = gtid,
	     .blockDim = ops[k].vector ? 40 : 20, .mixBlockDim = 0, .taskType = g->s.ge_type[k],
	     .opType = g->s.type[k], .inputFormats = g->s.fmt, .inputDataTypes = g->s.dtype,
	     .inputShapes = g->s.shape, .outputFormats = g->s.fmt, .outputDataTypes = g->s.dtype,
	     .outputShapes = g->s.shape, .attrInfo = NPUPROF_DB_STR_NA,
	     .opState = NPUPROF_DB_STR_NA, .hf32Eligible = NPUPROF_DB_STR_NA,
	     .gridDim = NPUPROF_DB_STR_NA, .blockDimStr = NPUPROF_DB_STR_NA);
	g->dev += 6000;
	return 0;
}

/* aclrtMemcpyAsync ⊃ MemcpyAsync; the task hangs off the acl row. */
static int gen_memcpy(struct gen *g)
{
	int64_t t0 = g->now, acl = g->conn++, rt = g->conn++, gtid = g->gtid++;
	int r;

	g->now += 5000;
	if ((r = emit_api(g, t0, t0 + 4000, NPUPROF_API_ACL, g->main_tid, acl, g->s.memcpy_api)) ||
	    (r = emit_api(g, t0 + 500, t0 + 3500, NPUPROF_API_RUNTIME, g->main_tid, rt,
			  g->s.memcpy_rt)))
		return r;
	if (g->dev < t0 + 3500)
		g->dev = t0 + 3500;
	EMIT(g, TASK, task, g->dev, g->dev + 3000, 0, acl, gtid, g->p->pid, g->s.t_memcpy,
	     U32_INVALID, 2, next_task_id(g, 2), U32_INVALID);
	EMIT(g, MEMCPY_INFO, memcpy_info, gtid, 1 << 20, 1);
	g->dev += 3500;
	return 0;
}

/*
 * One allReduce: acl ⊃ launch on the main thread, a Launch_Ffts row, the
 * FFTS+ parent task and n small tasks on stream 3, all with the launch's
 * connectionId; the op spans its small tasks.
 */
static int gen_hccl(struct gen *g, unsigned n)
{
	static const int kinds[3] = { 0, 1, 2 }; /* wait, record, memcpy */
	int64_t t0 = g->now, acl = g->conn++, launch = g->conn++, ffts = g->conn++;
	int64_t op = g->op_id++, start, end;
	npuprof_db_str op_name = 0;
	char buf[96];
	int r;

	snprintf(buf, sizeof(buf), "hcom_allReduce__865_%lld_1", (long long)op);
	if ((r = intern(g, &op_name, buf)))
		return r;
	g->now += 30000;
	if ((r = emit_api(g, t0, t0 + 25000, NPUPROF_API_ACL, g->main_tid, acl, g->s.hcom_api)) ||
	    (r = emit_api(g, t0 + 1000, t0 + 24000, NPUPROF_API_NODE, g->main_tid, launch,
			  g->s.launch)) ||
	    (r = emit_api(g, t0 + 2000, t0 + 3000, NPUPROF_API_HCCL, g->comm_tid, ffts,
			  g->s.launch_ffts)))
		return r;
	if (g->dev < t0 + 24000)
		g->dev = t0 + 24000;
	EMIT(g, TASK, task, g->dev, g->dev + 2000 + (int64_t)n * 2000, 0, launch, g->gtid++,
	     g->p->pid, g->s.t_parent, U32_INVALID, 3, next_task_id(g, 3), U32_INVALID);
	start = g->dev + 1000;
	end = start;
	for (unsigned c = 0; c < n; c++) {
		int kind = kinds[c % 3];
		int64_t ts = start + (int64_t)c * 2000, gtid = g->gtid++;
		npuprof_db_str dev_type = kind == 0 ? g->s.t_notify_wait :
					  kind == 1 ? g->s.t_write_value :
						      g->s.t_sdma;
		npuprof_db_str hccl_type = kind == 0 ? g->s.h_notify_wait :
					   kind == 1 ? g->s.h_notify_record :
						       g->s.h_memcpy;

		end = ts + 1500;
		EMIT(g, TASK, task, ts, end, 0, launch, gtid, g->p->pid, dev_type, c, 3,
		     next_task_id(g, 3), U32_INVALID);
		EMIT(g, COMMUNICATION_TASK_INFO, communication_task_info, .name = op_name,
		     .globalTaskId = gtid, .taskType = hccl_type, .planeId = c % 2,
		     .groupName = g->s.group, .notifyId = kind == 2 ? -1 : (int64_t)c,
		     .rdmaType = 65535, .srcRank = 0, .dstRank = kind == 2 ? 1 : U32_INVALID,
		     .transportType = kind == 2 ? 0 : 2, .size = kind == 2 ? 1 << 20 : 4,
		     .dataType = kind == 2 ? 4 : 65535, .linkType = kind == 2 ? 1 : 65535,
		     .opId = op, .isMaster = 1, .bandwidth = kind == 2 ? 2.5e10 : 0.0);
	}
	EMIT(g, COMMUNICATION_OP, communication_op, .opName = op_name, .startNs = start,
	     .endNs = end, .connectionId = launch, .groupName = g->s.group, .opId = op, .relay = 0,
	     .retry = 0, .dataType = 4, .algType = g->s.alg, .count = 262144,
	     .opType = g->s.hcom_type, .deviceId = 0, .rankSize = 2);
	g->dev = end + 2000;
	return 0;
}

/* aclprofMarkEx: a host MSTX_EVENTS row and a MsTx device task, one link. */
static int gen_mark(struct gen *g)
{
	int64_t mark = g->mark++, conn = MSTX_BASE + mark, gtid = g->gtid++;
	npuprof_db_str msg = 0;
	char buf[64];
	int r;

	snprintf(buf, sizeof(buf), "step %lld", (long long)mark);
	if ((r = intern(g, &msg, buf)))
		return r;
	EMIT(g, MSTX_EVENTS, mstx_events, g->now, g->now, 3, U32_INVALID, U32_INVALID, msg,
	     g->main_tid, g->main_tid, g->s.empty, conn);
	/* A host-only range around it: no task, so the "no connection" value. */
	EMIT(g, MSTX_EVENTS, mstx_events, g->now, g->now + 1000, 2, U32_INVALID, 0, msg,
	     g->main_tid, g->main_tid, g->s.empty, (int64_t)NPUPROF_MSTX_NO_CONNECTION);
	if (g->dev < g->now)
		g->dev = g->now;
	EMIT(g, TASK, task, g->dev, g->dev, 0, conn, gtid, g->p->pid, g->s.t_mstx, U32_INVALID, 2,
	     next_task_id(g, 2), U32_INVALID);
	g->now += 1000;
	return 0;
}

int npuprof_dbgen_run(const struct npuprof_dbgen_params *in, const struct npuprof_dbgen_sink *sink)
{
	struct npuprof_dbgen_params p = *in;
	struct gen g;
	uint64_t i = 0;
	int r;

	if (!p.pid)
		p.pid = 4242;
	if (!p.start_ns)
		p.start_ns = 1736414119518476000LL;
	if (!p.hccl_every)
		p.hccl_every = 50;
	if (!p.hccl_tasks)
		p.hccl_tasks = 8;
	if (!p.memcpy_every)
		p.memcpy_every = 20;
	if (!p.mstx_every)
		p.mstx_every = 1000;
	memset(&g, 0, sizeof(g));
	g.p = &p;
	g.sink = sink;
	g.now = p.start_ns + 1000000;
	g.conn = 1;
	g.op_id = 1;
	g.main_tid = ((int64_t)p.pid << 32) | p.pid;
	g.comm_tid = ((int64_t)p.pid << 32) | (p.pid + 1);
	if ((r = intern_all(&g)))
		return r;

	EMIT(&g, HOST_INFO, host_info, "3538958389648580163", "npuprof-dbgen");
	EMIT(&g, NPU_INFO, npu_info, 0, "Ascend910B");
	while (i < p.tasks) {
		uint64_t left = p.tasks - i;

		if (i % p.mstx_every == p.mstx_every - 1) {
			r = gen_mark(&g);
			i += 1;
		} else if (i % p.hccl_every == p.hccl_every - 1 && left >= 1 + p.hccl_tasks) {
			r = gen_hccl(&g, p.hccl_tasks);
			i += 1 + p.hccl_tasks;
		} else if (i % p.memcpy_every == p.memcpy_every - 1) {
			r = gen_memcpy(&g);
			i += 1;
		} else {
			r = gen_compute(&g, i);
			i += 1;
		}
		if (r)
			return r;
	}
	EMIT(&g, SESSION_TIME_INFO, session_time_info, p.start_ns,
	     (g.dev > g.now ? g.dev : g.now) + 1000000);
	return 0;
}

static npuprof_db_str db_intern(void *ctx, const char *s)
{
	return npuprof_db_intern(ctx, s);
}

static int db_row(void *ctx, enum npuprof_db_table t, const void *row, size_t size)
{
	return npuprof_db_insert(ctx, t, row, size);
}

int npuprof_dbgen_to_db(struct npuprof_db *w, const struct npuprof_dbgen_params *p)
{
	const struct npuprof_dbgen_sink sink = { w, db_intern, db_row };

	return npuprof_dbgen_run(p, &sink);
}
