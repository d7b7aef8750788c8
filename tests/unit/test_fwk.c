/*
 * test_fwk.c - the framework tables of `npuprof export --pytorch`
 * (user/export/fwk.c) end to end: the real recorder (linked statically)
 * writes a host stream with CANN API calls, task tracks, compute ops and
 * the framework records of a training step (nested torch ops on two
 * threads, backward ops on a third thread with their forward thread,
 * allocations and frees, a GC, ProfilerStep ops) inside a torch_npu
 * <worker>_ascend_pt directory; the export writes
 * ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db there, and every row
 * of PYTORCH_API, CONNECTION_IDS, PYTORCH_CALLCHAINS, STEP_TIME,
 * MEMORY_RECORD, OP_MEMORY, GC_RECORD, META_DATA (profiler_metadata.json)
 * and the framework STRING_IDS is checked. Damaged framework records and a
 * profiler_metadata.json that is not JSON cost only themselves and make
 * the export report damage. The consumer queries (tests/sql/check.sh) pass
 * on the database. And the strict JSON splitter on its own.
 */
#include <check.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "hostrec.h"
#include "jsontop.h"
#include "npuprof/export.h"
#include "npuprof/msprof_ids.h"
#include "npuprof/rank.h"
#include "npuprof/session.h"
#include "testutil.h"

#define U 1000ULL /* record times in µs steps (ns) */
#define SEP NPUPROF_EXT_FWK_SEP
/* a time column back in the µs steps of the records */
#define T(col) "(" col " - 1699999999999999000) / 1000"

static uint64_t S(const char *s)
{
	return s ? aclprofStr2Id(s) : NPUPROF_HOSTFMT_NO_STRING;
}

static void api(uint32_t level, uint32_t tid, uint64_t t0, uint64_t t1, uint64_t conn,
		const char *name)
{
	struct npuprof_hostfmt_api *r = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_API, sizeof(*r));

	ck_assert_ptr_nonnull(r);
	r->level = level;
	r->tid = tid;
	r->start_ns = t0 * U;
	r->end_ns = t1 * U;
	r->connection_id = conn;
	r->name_id = S(name);
	r->item_id = NPUPROF_HOSTFMT_NO_STRING;
	r->device_id = 0;
	r->result = 0;
	npuprof_hostrec_commit(r);
}

/* A kernel (op != NULL: with its COMPUTE_TASK_INFO) or a copy launched at t. */
static void task(uint32_t tid, uint64_t t, uint64_t conn, uint16_t task_id, const char *op)
{
	struct npuprof_hostfmt_task_track *r = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_TASK_TRACK,
								       sizeof(*r));

	ck_assert_ptr_nonnull(r);
	memset((char *)r + sizeof(r->h), 0, sizeof(*r) - sizeof(r->h));
	r->tid = tid;
	r->time_ns = t * U;
	r->connection_id = conn;
	r->task_type_id = S(op ? "KERNEL_AIVEC" : "MEMCPY_ASYNC");
	r->stream_id = 3;
	r->task_id = task_id;
	r->model_id = NPUPROF_NO_ID32;
	r->duration_ns = 2 * U;
	r->bytes = op ? 0 : 4096;
	r->memcpy_op = op ? NPUPROF_ENUM_INVALID : 1;
	npuprof_hostrec_commit(r);
	if (!op)
		return;
	struct npuprof_hostfmt_compute_op *c = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_COMPUTE_OP,
								       sizeof(*c));
	ck_assert_ptr_nonnull(c);
	memset((char *)c + sizeof(c->h), 0, sizeof(*c) - sizeof(c->h));
	c->tid = tid;
	c->time_ns = t * U;
	c->connection_id = conn;
	c->stream_id = 3;
	c->task_id = task_id;
	c->context_id = NPUPROF_NO_ID32;
	c->name_id = S(op);
	c->op_type_id = S(op);
	c->task_type_id = S("AI_VECTOR_CORE");
	c->input_formats_id = c->input_dtypes_id = c->input_shapes_id = NPUPROF_HOSTFMT_NO_STRING;
	c->output_formats_id = c->output_dtypes_id = c->output_shapes_id = NPUPROF_HOSTFMT_NO_STRING;
	c->attr_id = c->op_state_id = c->hf32_id = NPUPROF_HOSTFMT_NO_STRING;
	c->block_dim = 8;
	npuprof_hostrec_commit(c);
}

static void op(uint32_t tid, uint64_t t0, uint64_t t1, const char *name, int64_t seq,
	       uint32_t fwd_tid, const char *dtypes, const char *shapes, const char *stack,
	       uint32_t type)
{
	struct npuprof_hostfmt_fwk_op *r = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_FWK_OP,
								   sizeof(*r));

	ck_assert_ptr_nonnull(r);
	r->tid = tid;
	r->fwd_tid = fwd_tid;
	r->start_ns = t0 * U;
	r->end_ns = t1 * U;
	r->seq = seq;
	r->name_id = S(name);
	r->dtypes_id = S(dtypes);
	r->shapes_id = S(shapes);
	r->stack_id = S(stack);
	r->type = type;
	r->reserved = 0;
	npuprof_hostrec_commit(r);
}

static void mem(uint32_t tid, uint64_t t, uint64_t ptr, int64_t size, uint64_t alloc,
		uint64_t reserved, const char *comp)
{
	struct npuprof_hostfmt_fwk_mem *r = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_FWK_MEM,
								    sizeof(*r));

	ck_assert_ptr_nonnull(r);
	r->tid = tid;
	r->device_id = 0;
	r->time_ns = t * U;
	r->ptr = ptr;
	r->size = size;
	r->total_allocated = alloc;
	r->total_reserved = reserved;
	r->total_active = alloc;
	r->stream = 0x55;
	r->component_id = S(comp);
	npuprof_hostrec_commit(r);
}

static void gc(uint32_t tid, uint64_t t0, uint64_t t1, uint32_t gen)
{
	struct npuprof_hostfmt_fwk_gc *r = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_FWK_GC,
								   sizeof(*r));

	ck_assert_ptr_nonnull(r);
	r->tid = tid;
	r->generation = gen;
	r->start_ns = t0 * U;
	r->end_ns = t1 * U;
	npuprof_hostrec_commit(r);
}

static char g_top[256], g_pt[512];

/* A host-engine session on device 0 inside <top>/w_1_..._ascend_pt with
 * the HCCL rank 0; fill() writes its records. */
static void session(struct npuprof_session *s, const char *metadata, void (*fill)(void))
{
	struct npuprof_hostrec_config cfg;
	char err[512], path[700];
	FILE *f;

	snprintf(g_top, sizeof(g_top), "/tmp/npuprof-test-fwk-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(g_top));
	snprintf(g_pt, sizeof(g_pt), "%s/worker_42_20261201120000123_ascend_pt", g_top);
	ck_assert_int_eq(mkdir(g_pt, 0755), 0);
	if (metadata) {
		snprintf(path, sizeof(path), "%s/profiler_metadata.json", g_pt);
		f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fputs(metadata, f);
		fclose(f);
	}
	memset(s, 0, sizeof(*s));
	snprintf(s->hostname, sizeof(s->hostname), "testhost");
	snprintf(s->host_uid, sizeof(s->host_uid), "12345");
	snprintf(s->engine, sizeof(s->engine), NPUPROF_ENGINE_HOST);
	s->start_realtime_ns = 1700000000000000000ULL;
	s->start_monotonic_ns = 1000;
	s->end_realtime_ns = 1700000000000000000ULL + 10000 * U;
	s->pid = (uint32_t)getpid();
	s->rank = NPUPROF_RANK_NONE;
	s->ndev = 1;
	s->dev[0].id = 0;
	snprintf(s->dev[0].chip, sizeof(s->dev[0].chip), "Ascend910B");
	s->dev[0].counter_hz = 50000000;
	s->dev[0].rank = NPUPROF_RANK_NONE;
	s->dev[0].aicore_mhz = 1800;
	ck_assert_int_eq(npuprof_session_create(s, g_pt, err, sizeof(err)), 0);
	npuprof_hostrec_set_rank(0, 0, 2, aclprofStr2Id("group0"));
	memset(&cfg, 0, sizeof(cfg));
	cfg.dir = s->dir;
	ck_assert_int_eq(npuprof_hostrec_start(&cfg, err, sizeof(err)), 0);
	fill();
	ck_assert_int_eq(npuprof_hostrec_stop(), 0);
}

/*
 * The step. Thread 101: ProfilerStep#1 [100,1000] around aten::linear
 * [110,400] (seq 5, with inputs and a stack) around aten::addmm [120,390]
 * (seq 5) around aclnnAddmm (acl 0) around launch (node 1, a kernel); then
 * aten::relu [450,600] (seq 6) with aclnnRelu/launch (2/3, a kernel) and
 * aclrtMemcpyAsync (acl 4, a copy, no launch in it); aclnnAdd/launch
 * (11/5) in the step outside any other op; after the step aclnnAdd/launch
 * (12/6) outside every op, and
 * ProfilerStep#2 [1300,2000]. Thread 102: aten::mm [200,500] around
 * aten::mul [210,300] around aclnnMul/launch (8/7). Thread 103 (autograd):
 * AddmmBackward0 [1400,1600] (seq 5 of thread 101) around aclnnMm/launch
 * (10/9), ReluBackward0 [1650,1700] (seq 6 of 101).
 */
static void fill_step(void)
{
	const uint32_t L = NPUPROF_EXT_FWK_API_OP;

	op(101, 100, 1000, "ProfilerStep#1", -1, 0, NULL, NULL, NULL, L);
	op(101, 110, 400, "aten::linear", 5, 0, "float" SEP "float" SEP "float",
	   "[4, 8]" SEP "[16, 8]" SEP "[16]",
	   "train.py(10): forward" SEP "train.py(20): main" SEP "<string>(1): <module>", L);
	op(101, 120, 390, "aten::addmm", 5, 0, "float" SEP "float" SEP "float",
	   "[16]" SEP "[4, 8]" SEP "[8, 16]", NULL, L);
	api(NPUPROF_API_ACL, 101, 130, 380, 0, "aclnnAddmm");
	api(NPUPROF_API_NODE, 101, 140, 370, 1, "launch");
	task(101, 150, 1, 1, "aclnnAddmm_AddmmAiv_0");
	mem(101, 125, 0x1000, 512, 512, 2048, "PTA");
	op(101, 450, 600, "aten::relu", 6, 0, NULL, NULL, NULL, L);
	api(NPUPROF_API_ACL, 101, 455, 490, 2, "aclnnRelu");
	api(NPUPROF_API_NODE, 101, 460, 480, 3, "launch");
	task(101, 465, 3, 2, "aclnnRelu_ReluAiv_0");
	mem(101, 460, 0x2000, 1024, 3584, 4096, "PTA");
	api(NPUPROF_API_ACL, 101, 500, 550, 4, "aclrtMemcpyAsync");
	task(101, 510, 4, 3, NULL);
	api(NPUPROF_API_ACL, 101, 615, 645, 11, "aclnnAdd");
	api(NPUPROF_API_NODE, 101, 620, 640, 5, "launch");
	task(101, 625, 5, 4, "aclnnAdd_AddAiv_0");
	mem(101, 700, 0x1000, -512, 3072, 4096, "PTA");
	gc(101, 800, 900, 2);
	api(NPUPROF_API_ACL, 101, 1090, 1210, 12, "aclnnAdd");
	api(NPUPROF_API_NODE, 101, 1100, 1200, 6, "launch");
	task(101, 1110, 6, 5, "aclnnAdd_AddAiv_0");
	op(101, 1300, 2000, "ProfilerStep#2", -1, 0, NULL, NULL, NULL, L);

	op(102, 200, 500, "aten::mm", -1, 0, "float" SEP "float", "[4, 8]" SEP "[8, 4]", NULL, L);
	op(102, 210, 300, "aten::mul", -1, 0, "float" SEP "Scalar", "[4, 4]" SEP "[]", NULL, L);
	api(NPUPROF_API_ACL, 102, 215, 295, 8, "aclnnMul");
	api(NPUPROF_API_NODE, 102, 220, 290, 7, "launch");
	task(102, 230, 7, 6, "aclnnMul_MulAiv_0");
	mem(102, 250, 0x3000, 2048, 2560, 4096, "PTA");

	/* empty entries are no frames; a stack of none is no callchain */
	op(103, 1400, 1600, "AddmmBackward0", 5, 101, NULL, NULL,
	   SEP "engine.py(5): run_backward" SEP, L);
	api(NPUPROF_API_ACL, 103, 1405, 1595, 10, "aclnnMm");
	api(NPUPROF_API_NODE, 103, 1410, 1590, 9, "launch");
	task(103, 1420, 9, 7, "aclnnMm_MatMulAiv_0");
	mem(103, 1500, 0x2000, -1024, 2048, 4096, "PTA+GE");
	op(103, 1650, 1700, "ReluBackward0", 6, 101, NULL, NULL, SEP SEP, L);
}

/* Rows of a query: columns joined by '|', rows by '\n', NULL as NULL. */
static void rows(const char *db, const char *sql, char *out, size_t len)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	size_t n = 0;
	int rc;

	out[0] = 0;
	ck_assert_int_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_msg(sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK, "%s: %s", sql,
		      sqlite3_errmsg(h));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int c = 0; c < sqlite3_column_count(st); c++) {
			const char *v = (const char *)sqlite3_column_text(st, c);

			n += (size_t)snprintf(out + n, len - n, "%s%s", c ? "|" : (n ? "\n" : ""),
					      v ? v : "NULL");
			ck_assert_uint_lt(n, len);
		}
	}
	ck_assert_int_eq(rc, SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(h);
}

#define ROWS_EQ(db, sql, want)                                                                   \
	do {                                                                                     \
		char got_[8192];                                                                 \
		rows(db, sql, got_, sizeof(got_));                                               \
		ck_assert_msg(!strcmp(got_, want), "%s\n got:\n%s\nwant:\n%s", sql, got_, want); \
	} while (0)

static const char *g_metadata =
	"{\n  \"distributed_args\": {\"tensor_model_parallel_size\": 1, \"world_size\": 2},\n"
	"  \"parallel_group_info\": {\"group0\": {\"group_name\": \"dp\", \"group_rank\": 0,"
	" \"global_ranks\": [0, 1]}},\n  \"note\": \"caf\\u00e9 \\\"x\\\"\",\n"
	"  \"n\": -1.5e3, \"note\": \"last wins\"\n}\n";

START_TEST(test_tables)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	struct npuprof_export_opts o;
	char err[1024], db[700], cmd[2048];

	session(&s, g_metadata, fill_step);
	if (getenv("FWK_KEEP"))
		fprintf(stderr, "session %s\n", s.dir);
	memset(&o, 0, sizeof(o));
	o.pytorch = 1;
	ck_assert_msg(npuprof_export(s.dir, &o, &res, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(res.damaged, 0);
	snprintf(db, sizeof(db), "%s/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db", g_pt);
	ck_assert_str_eq(res.pytorch_path, db);
	ck_assert_uint_eq(res.fwk_ops, 9);
	ck_assert_uint_eq(res.fwk_skipped, 0);

	/* PYTORCH_API: time order; links and callchains dense from 0 in it;
	 * sequence numbers and forward threads as recorded */
	ROWS_EQ(db,
		"SELECT " T("p.startNs") ", " T(
			"p.endNs") ", p.globalTid >> 32 = (SELECT"
				   " globalPid FROM TASK LIMIT 1), p.globalTid & 4294967295, p.connectionId,"
				   " n.value, p.sequenceNumber, p.fwdThreadId, replace(d.value, char(13, 10), '~'),"
				   " replace(sh.value, char(13, 10), '~'), p.callchainId, p.type FROM PYTORCH_API p"
				   " JOIN STRING_IDS n ON n.id = p.name LEFT JOIN STRING_IDS d ON d.id = p.inputDtypes"
				   " LEFT JOIN STRING_IDS sh ON sh.id = p.inputShapes ORDER BY p.rowid",
		"100|1000|1|101|0|ProfilerStep#1|-1|0|NULL|NULL|NULL|50001\n"
		"110|400|1|101|1|aten::linear|5|0|float;~float;~float|[4, 8];~[16, 8];~[16]|0|50001\n"
		"120|390|1|101|2|aten::addmm|5|0|float;~float;~float|[16];~[4, 8];~[8, 16]|NULL|50001\n"
		"200|500|1|102|NULL|aten::mm|-1|0|float;~float|[4, 8];~[8, 4]|NULL|50001\n"
		"210|300|1|102|3|aten::mul|-1|0|float;~Scalar|[4, 4];~[]|NULL|50001\n"
		"450|600|1|101|4|aten::relu|6|0|NULL|NULL|NULL|50001\n"
		"1300|2000|1|101|NULL|ProfilerStep#2|-1|0|NULL|NULL|NULL|50001\n"
		"1400|1600|1|103|5|AddmmBackward0|5|101|NULL|NULL|1|50001\n"
		"1650|1700|1|103|6|ReluBackward0|6|101|NULL|NULL|NULL|50001");
	/* CONNECTION_IDS: each op's launches (innermost op; an acl call only
	 * without a launch inside), then its fwd/bwd link (5 << 28 + k) */
	ROWS_EQ(db, "SELECT id, connectionId FROM CONNECTION_IDS ORDER BY rowid",
		"0|5\n1|1342177280\n2|1\n3|7\n4|3\n4|4\n4|1342177281\n5|9\n5|1342177280\n"
		"6|1342177281");
	/* the framework-to-device join: torch op -> CANN API -> task -> op info */
	ROWS_EQ(db,
		"SELECT n.value, a.connectionId, an.value, tt.value, coalesce(cn.value, '-')"
		" FROM PYTORCH_API p JOIN STRING_IDS n ON n.id = p.name"
		" JOIN CONNECTION_IDS c ON c.id = p.connectionId"
		" JOIN CANN_API a ON a.connectionId = c.connectionId"
		" JOIN STRING_IDS an ON an.id = a.name JOIN TASK t ON t.connectionId ="
		" a.connectionId JOIN STRING_IDS tt ON tt.id = t.taskType"
		" LEFT JOIN COMPUTE_TASK_INFO ci ON ci.globalTaskId = t.globalTaskId"
		" LEFT JOIN STRING_IDS cn ON cn.id = ci.name ORDER BY a.connectionId",
		"aten::addmm|1|launch|KERNEL_AIVEC|aclnnAddmm_AddmmAiv_0\n"
		"aten::relu|3|launch|KERNEL_AIVEC|aclnnRelu_ReluAiv_0\n"
		"aten::relu|4|aclrtMemcpyAsync|MEMCPY_ASYNC|-\n"
		"ProfilerStep#1|5|launch|KERNEL_AIVEC|aclnnAdd_AddAiv_0\n"
		"aten::mul|7|launch|KERNEL_AIVEC|aclnnMul_MulAiv_0\n"
		"AddmmBackward0|9|launch|KERNEL_AIVEC|aclnnMm_MatMulAiv_0");
	/* the launch outside every op reaches no op */
	ROWS_EQ(db, "SELECT count(*) FROM CONNECTION_IDS WHERE connectionId = 6", "0");
	/* PYTORCH_CALLCHAINS: split on ;\r\n, depth 0 innermost */
	ROWS_EQ(db,
		"SELECT c.id, c.stackDepth, s.value FROM PYTORCH_CALLCHAINS c JOIN STRING_IDS s"
		" ON s.id = c.stack ORDER BY c.rowid",
		"0|0|train.py(10): forward\n0|1|train.py(20): main\n0|2|<string>(1): <module>\n"
		"1|0|engine.py(5): run_backward");
	/* STEP_TIME from the ProfilerStep ops */
	ROWS_EQ(db, "SELECT id, " T("startNs") ", " T("endNs") " FROM STEP_TIME ORDER BY rowid",
		"1|100|1000\n2|1300|2000");
	/* MEMORY_RECORD: every event in time order */
	ROWS_EQ(db,
		"SELECT s.value, " T(
			"m.timestamp") ", m.totalAllocated, m.totalReserved,"
				       " m.totalActive, m.streamPtr, m.deviceId FROM MEMORY_RECORD m JOIN STRING_IDS s"
				       " ON s.id = m.component ORDER BY m.rowid",
		"PTA|125|512|2048|512|85|0\nPTA|250|2560|4096|2560|85|0\n"
		"PTA|460|3584|4096|3584|85|0\nPTA|700|3072|4096|3072|85|0\n"
		"PTA+GE|1500|2048|4096|2048|85|0");
	/* OP_MEMORY: allocations paired with the release of their address,
	 * named after the innermost op of the allocating thread */
	ROWS_EQ(db,
		"SELECT s.value, o.size, " T("o.allocationTime") ", " T(
			"o.releaseTime") ","
					 " " T("o.activeReleaseTime") ", o.duration / 1000, o.activeDuration / 1000,"
								      " o.allocationTotalAllocated, o.allocationTotalReserved, o.allocationTotalActive,"
								      " o.releaseTotalAllocated, o.releaseTotalReserved, o.releaseTotalActive,"
								      " o.streamPtr, o.deviceId FROM OP_MEMORY o JOIN STRING_IDS s ON s.id = o.name"
								      " ORDER BY o.rowid",
		"aten::addmm|512|125|700|700|575|575|512|2048|512|3072|4096|3072|85|0\n"
		"aten::mul|2048|250|NULL|NULL|NULL|NULL|2560|4096|2560|NULL|NULL|NULL|85|0\n"
		"aten::relu|1024|460|1500|1500|1040|1040|3584|4096|3584|2048|4096|2048|85|0");
	ROWS_EQ(db,
		"SELECT " T("startNs") ", " T("endNs") ", globalTid & 4294967295 FROM GC_RECORD",
		"800|900|101");
	ROWS_EQ(db, "SELECT id, name FROM ENUM_API_TYPE WHERE id > 50000 ORDER BY id",
		"50001|op\n50002|queue\n50003|trace\n50004|mstx");
	ROWS_EQ(db, "SELECT rankId, deviceId FROM RANK_DEVICE_MAP", "0|0");
	/* AICORE_FREQ (issue 29 item 3): the device's frequency at the
	 * session's start and end, as freq_analysis reads it (tests/sql/17) */
	ROWS_EQ(db,
		"SELECT f.deviceId, f.freq, f.timestampNs = s.startTimeNs, f.timestampNs = s.endTimeNs"
		" FROM AICORE_FREQ f, SESSION_TIME_INFO s ORDER BY f.timestampNs",
		"0|1800|1|0\n0|1800|0|1");
	/* profiler_metadata.json: one row per top-level key, the value's JSON */
	ROWS_EQ(db,
		"SELECT name, value FROM META_DATA WHERE name NOT LIKE 'npuprof.%' AND name NOT"
		" LIKE 'SCHEMA%' ORDER BY rowid",
		"distributed_args|{\"tensor_model_parallel_size\": 1, \"world_size\": 2}\n"
		"parallel_group_info|{\"group0\": {\"group_name\": \"dp\", \"group_rank\": 0,"
		" \"global_ranks\": [0, 1]}}\n"
		"note|\"last wins\"\n"
		"n|-1.5e3");
	ROWS_EQ(db, "SELECT value FROM META_DATA WHERE name = 'npuprof.framework_records_skipped'",
		"0");
	/* strings: framework ones from 1 << 28, memory ones from 2 << 28, CANN
	 * ones below; each space dense from its base */
	ROWS_EQ(db,
		"SELECT (SELECT count(*) FROM STRING_IDS s JOIN PYTORCH_API p ON s.id = p.name"
		" WHERE s.id < 268435456 OR s.id >= 536870912),"
		" (SELECT count(*) FROM STRING_IDS s JOIN PYTORCH_CALLCHAINS c ON s.id = c.stack"
		" WHERE s.id < 268435456 OR s.id >= 536870912),"
		" (SELECT count(*) FROM OP_MEMORY o WHERE o.name < 536870912),"
		" (SELECT count(*) FROM MEMORY_RECORD m WHERE m.component < 536870912),"
		" (SELECT max(id) - 268435456 + 1 = count(*) FROM STRING_IDS WHERE id >= 268435456"
		" AND id < 536870912),"
		" (SELECT max(id) - 536870912 + 1 = count(*) FROM STRING_IDS WHERE id >= 536870912),"
		" (SELECT max(id) < 268435456 FROM STRING_IDS s WHERE id < 268435456)",
		"0|0|0|0|1|1|1");
	/* the msprof database of the session stays as it was: no framework tables */
	ROWS_EQ(res.db_path,
		"SELECT count(*) FROM sqlite_master WHERE name IN ('PYTORCH_API', 'STEP_TIME',"
		" 'CONNECTION_IDS')",
		"0");
	/* the consumer queries pass on it */
	snprintf(cmd, sizeof(cmd),
		 "tests/sql/check.sh '%s' >'%s/check.out' 2>&1 || { cat '%s/check.out'; exit 1; }",
		 db, g_top, g_top);
	ck_assert_msg(system(cmd) == 0, "tests/sql/check.sh fails on %s", db);

	/* never less complete: a PyTorch database with more framework ops is
	 * kept (unless forced) */
	{
		sqlite3 *h;

		ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
		ck_assert_int_eq(sqlite3_exec(h,
					      "INSERT INTO PYTORCH_API SELECT * FROM PYTORCH_API",
					      NULL, NULL, NULL),
				 SQLITE_OK);
		sqlite3_close(h);
		ck_assert_int_eq(npuprof_export(s.dir, &o, &res, err, sizeof(err)), -EEXIST);
		ck_assert_msg(strstr(err, "PYTORCH_API 18 rows, now 9"), "%s", err);
		ROWS_EQ(db, "SELECT count(*) FROM PYTORCH_API", "18");
	}
	/* the _ascend_pt directory as `npuprof export`'s argument: its PROF_*
	 * directory, the same database */
	ck_assert_int_eq(unlink(db), 0);
	snprintf(cmd, sizeof(cmd), "%s/bin/npuprof export --pytorch --quiet '%s'",
		 getenv("BUILD") ? getenv("BUILD") : "build", g_pt);
	ck_assert_int_eq(system(cmd), 0);
	ROWS_EQ(db, "SELECT count(*), count(connectionId) FROM PYTORCH_API", "9|7");
	if (!getenv("FWK_KEEP"))
		tu_rm_rf(g_top);
}
END_TEST

static void fill_damaged(void)
{
	const uint32_t L = NPUPROF_EXT_FWK_API_OP;

	op(101, 100, 1000, "ProfilerStep#7", -1, 0, NULL, NULL, NULL, L);
	op(101, 300, 200, "aten::bad_times", -1, 0, NULL, NULL, NULL, L);
	op(101, 300, 400, "aten::bad_type", -1, 0, NULL, NULL, NULL, 49999);
	op(101, 300, 400, NULL, -1, 0, NULL, NULL, NULL, L);
	op(101, 300, 400, "aten::bad_seq", -7, 0, NULL, NULL, NULL, L);
	op(101, 410, 420, "aten::ok", 3, 0, NULL, NULL, NULL, L);
	/* a name whose string never came (no HASH record): kept, as N/A */
	struct npuprof_hostfmt_fwk_op *o = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_FWK_OP,
								   sizeof(*o));
	ck_assert_ptr_nonnull(o);
	memset((char *)o + sizeof(o->h), 0, sizeof(*o) - sizeof(o->h));
	o->tid = 101;
	o->start_ns = 405 * U;
	o->end_ns = 406 * U;
	o->seq = -1;
	o->name_id = 0x1234567;
	o->dtypes_id = o->shapes_id = o->stack_id = NPUPROF_HOSTFMT_NO_STRING;
	o->type = L;
	npuprof_hostrec_commit(o);
	mem(101, 500, 0x10, 0, 0, 0, "PTA");
	mem(101, 510, 0x10, 64, 64, 64, "PTA");
	struct npuprof_hostfmt_fwk_mem *m = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_FWK_MEM,
								    sizeof(*m));
	memset((char *)m + sizeof(m->h), 0, sizeof(*m) - sizeof(m->h));
	m->time_ns = 520 * U;
	m->ptr = 0x20;
	m->size = 8;
	m->total_allocated = 1ULL << 63; /* does not fit: refused, not wrapped */
	m->component_id = S("PTA");
	npuprof_hostrec_commit(m);
	gc(101, 600, 700, 3);
	gc(101, 800, 700, 0);
	gc(101, 800, 900, 1);
}

START_TEST(test_damaged_records)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	struct npuprof_export_opts o;
	char err[1024], db[700], *buf = NULL;
	size_t blen = 0;
	FILE *warn = open_memstream(&buf, &blen);

	ck_assert_ptr_nonnull(warn);
	session(&s, "{\"a\": 1, \"b\": [1, 2,]}", fill_damaged);
	memset(&o, 0, sizeof(o));
	o.pytorch = 1;
	o.warn = warn;
	ck_assert_msg(npuprof_export(s.dir, &o, &res, err, sizeof(err)) == 0, "%s", err);
	fclose(warn);
	/* the rest is exported; the export says it was damaged */
	ck_assert_int_eq(res.damaged, 1);
	ck_assert_uint_eq(res.fwk_skipped, 8);
	snprintf(db, sizeof(db), "%s/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db", g_pt);
	ROWS_EQ(db,
		"SELECT n.value FROM PYTORCH_API p JOIN STRING_IDS n ON n.id = p.name ORDER BY"
		" p.rowid",
		"ProfilerStep#7\nN/A\naten::ok");
	ROWS_EQ(db, "SELECT count(*) FROM PYTORCH_API WHERE name < 268435456", "0");
	ROWS_EQ(db, "SELECT id FROM STEP_TIME", "7");
	ROWS_EQ(db, "SELECT totalAllocated FROM MEMORY_RECORD", "64");
	ROWS_EQ(db, "SELECT " T("startNs") " FROM GC_RECORD", "800");
	ROWS_EQ(db, "SELECT value FROM META_DATA WHERE name = 'npuprof.framework_records_skipped'",
		"8");
	/* the metadata file: not JSON, named with the offset; no rows from it */
	ROWS_EQ(db, "SELECT count(*) FROM META_DATA WHERE name IN ('a', 'b')", "0");
	ck_assert_msg(strstr(buf, "profiler_metadata.json: offset 20: value expected"), "%s", buf);
	ck_assert_msg(strstr(buf, "framework op record (thread 101, time 300000): ends before it"
				  " starts; skipped"),
		      "%s", buf);
	ck_assert_msg(strstr(buf, "unknown type"), "%s", buf);
	ck_assert_msg(strstr(buf, "no name"), "%s", buf);
	ck_assert_msg(strstr(buf, "sequence number below -1"), "%s", buf);
	ck_assert_msg(strstr(buf, "does not fit"), "%s", buf);
	ck_assert_msg(strstr(buf, "generation above 2"), "%s", buf);
	ck_assert_msg(strstr(buf, "npuprof.host."), "%s", buf);
	free(buf);
	/* and `npuprof export` says so in its status (the database is written) */
	{
		char cmd[1024];
		int st;

		snprintf(cmd, sizeof(cmd),
			 "%s/bin/npuprof export --pytorch --quiet '%s' 2>/dev/null",
			 getenv("BUILD") ? getenv("BUILD") : "build", g_pt);
		st = system(cmd);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d", st);
		ROWS_EQ(db, "SELECT count(*) FROM PYTORCH_API", "3");
	}
	tu_rm_rf(g_top);
}
END_TEST

/* No ProfilerStep ops: STEP_TIME from aclprofGetStepTimestamp as before;
 * no rank: the file has no _<rank>. Outside an _ascend_pt directory the
 * PyTorch database stays where it was. */
static void fill_plain(void)
{
	struct npuprof_hostfmt_step *st;

	op(101, 100, 200, "aten::add", -1, 0, NULL, NULL, NULL, NPUPROF_EXT_FWK_API_OP);
	for (int i = 0; i < 2; i++) {
		st = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_STEP, sizeof(*st));
		ck_assert_ptr_nonnull(st);
		st->tid = 101;
		st->tag = (uint32_t)i;
		st->index_id = 4;
		st->time_ns = (150 + 50 * (uint64_t)i) * U;
		st->stream = 0;
		npuprof_hostrec_commit(st);
	}
}

START_TEST(test_step_fallback_and_layout)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	struct npuprof_export_opts o;
	char err[1024], db[1500], moved[1400];

	session(&s, NULL, fill_plain);
	memset(&o, 0, sizeof(o));
	o.pytorch = 1;
	snprintf(moved, sizeof(moved), "%s/PROF_plain", g_top);
	ck_assert_int_eq(rename(s.dir, moved), 0);
	ck_assert_msg(npuprof_export(moved, &o, &res, err, sizeof(err)) == 0, "%s", err);
	snprintf(db, sizeof(db), "%s/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler.db", moved);
	ck_assert_str_eq(res.pytorch_path, db);
	ROWS_EQ(db, "SELECT id, " T("startNs") ", " T("endNs") " FROM STEP_TIME", "4|150|200");
	ROWS_EQ(db, "SELECT count(*) FROM PYTORCH_API", "1");
	tu_rm_rf(g_top);
}
END_TEST

static int split(const char *text, struct jsontop *t, char *err, size_t n)
{
	return jsontop_parse(text, strlen(text), t, err, n);
}

START_TEST(test_json_splitter)
{
	struct jsontop t;
	char err[128];
	static const char *const bad[][2] = {
		{ "", "offset 0: a JSON object expected" },
		{ "[1]", "offset 0: a JSON object expected" },
		{ "{\"a\":1", "offset 6: unterminated object" },
		{ "{\"a\":1,}", "offset 7: member name expected" },
		{ "{\"a\" 1}", "offset 5: ':' expected" },
		{ "{\"a\":01}", "offset 6: ',' or '}' expected" },
		{ "{\"a\":1.}", "offset 7: digit expected in a number" },
		{ "{\"a\":-}", "offset 6: digit expected in a number" },
		{ "{\"a\":tru}", "offset 5: unexpected character" },
		{ "{\"a\":\"\\x\"}", "offset 7: bad escape in a string" },
		{ "{\"a\":\"\\ud800\"}", "offset 12: unpaired high surrogate" },
		{ "{\"a\":\"\\udc00\"}", "offset 12: unpaired low surrogate" },
		{ "{\"a\":\"x\ty\"}", "offset 7: control character in a string" },
		{ "{\"a\":\"\xc3\"}", "offset 6: invalid UTF-8 in a string" },
		{ "{\"a\":1} x", "offset 8: text after the object" },
		{ "{\"a\":[1 2]}", "offset 8: ',' or ']' expected" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(split(bad[i][0], &t, err, sizeof(err)) == -EINVAL, "%s", bad[i][0]);
		ck_assert_msg(!strcmp(err, bad[i][1]), "%s: %s, want %s", bad[i][0], err,
			      bad[i][1]);
		ck_assert_uint_eq(t.n, 0);
	}
	/* nesting beyond the limit */
	{
		char deep[2 * JSONTOP_MAX_DEPTH + 16];
		size_t n = 0;

		n += (size_t)sprintf(deep, "{\"a\":");
		for (int i = 0; i < JSONTOP_MAX_DEPTH; i++)
			deep[n++] = '[';
		deep[n] = 0;
		ck_assert_int_eq(split(deep, &t, err, sizeof(err)), -EINVAL);
		ck_assert_msg(strstr(err, "nested too deep"), "%s", err);
	}
	ck_assert_int_eq(split(" {} ", &t, err, sizeof(err)), 0);
	ck_assert_uint_eq(t.n, 0);
	jsontop_free(&t);
	ck_assert_int_eq(split("{\"k\\u00e9\\ud83d\\ude00\\n\" : [ 1 , {\"x\":null} ] ,"
			       "\"t\":true,\"f\":false,\"e\":-0.5E+2,\"s\":\"\\\"\\/\"}",
			       &t, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(t.n, 5);
	ck_assert_str_eq(t.m[0].key, "k\xc3\xa9\xf0\x9f\x98\x80\n");
	ck_assert_int_eq((int)t.m[0].value_len, 18);
	ck_assert_int_eq(strncmp(t.m[0].value, "[ 1 , {\"x\":null} ]", 18), 0);
	ck_assert_str_eq(t.m[1].key, "t");
	ck_assert_int_eq(strncmp(t.m[3].value, "-0.5E+2", t.m[3].value_len), 0);
	ck_assert_int_eq(strncmp(t.m[4].value, "\"\\\"\\/\"", t.m[4].value_len), 0);
	jsontop_free(&t);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("fwk");
	TCase *tc = tcase_create("export");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_tables);
	tcase_add_test(tc, test_damaged_records);
	tcase_add_test(tc, test_step_fallback_and_layout);
	tcase_add_test(tc, test_json_splitter);
	suite_add_tcase(s, tc);
	return s;
}
