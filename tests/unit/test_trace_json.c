/*
 * test_trace_json.c - the trace JSON writer (trace.h) on small databases
 * built with the db writer: escaping of names (quotes, backslashes,
 * control characters, bytes that are not UTF-8), exact µs with three
 * decimals from the session's start, an empty session, names, flows and
 * concurrent tasks of one stream checked by tests/trace_check.py, and the
 * errors (not a database, missing file, cancelled: no output file).
 */
#include <npuprof/db.h>
#include <npuprof/trace.h>

#include "db_testutil.h"

#include <errno.h>
#include <sqlite3.h>

#define T0 1796115318734478271LL /* a session start, Unix ns */

struct fx {
	char dir[64], db[4352], out[4352];
	struct npuprof_db *w;
};

static void fx_open(struct fx *x)
{
	struct npuprof_db_options o = { .timestamp = 1796115318 };
	char err[1024];

	scratch_dir(x->dir, sizeof(x->dir));
	ck_assert_msg(npuprof_db_open(&x->w, x->dir, &o, err, sizeof(err)) == 0, "%s", err);
	snprintf(x->out, sizeof(x->out), "%s/trace.json", x->dir);
}

static void fx_finish(struct fx *x)
{
	ck_assert_int_eq(npuprof_db_finish(x->w), 0);
	snprintf(x->db, sizeof(x->db), "%s", npuprof_db_path(x->w));
	npuprof_db_close(x->w);
	x->w = NULL;
}

static void session_row(struct fx *x)
{
	struct npuprof_db_session_time_info st = { .startTimeNs = T0, .endTimeNs = T0 + 1000000 };
	struct npuprof_db_npu_info ni = { .id = 0, .name = "Ascend910B" };

	ck_assert_int_eq(npuprof_db_add_session_time_info(x->w, &st), 0);
	ck_assert_int_eq(npuprof_db_add_npu_info(x->w, &ni), 0);
}

static void api(struct fx *x, int64_t start, int64_t end, int64_t type, uint32_t pid, uint32_t tid,
		int64_t conn, const char *name)
{
	struct npuprof_db_cann_api a = {
		.startNs = start,
		.endNs = end,
		.type = type,
		.globalTid = ((int64_t)pid << 32) | tid,
		.connectionId = conn,
		.name = npuprof_db_intern(x->w, name),
	};

	ck_assert_int_eq(npuprof_db_add_cann_api(x->w, &a), 0);
}

static void task(struct fx *x, int64_t start, int64_t end, int64_t stream, int64_t gtid,
		 int64_t conn, const char *type, const char *op)
{
	struct npuprof_db_task t = {
		.startNs = start,
		.endNs = end,
		.deviceId = 0,
		.connectionId = conn,
		.globalTaskId = gtid,
		.globalPid = 77,
		.taskType = npuprof_db_intern(x->w, type),
		.contextId = 4294967295LL,
		.streamId = stream,
		.taskId = gtid,
		.modelId = 4294967295LL,
	};

	ck_assert_int_eq(npuprof_db_add_task(x->w, &t), 0);
	if (op) {
		struct npuprof_db_compute_task_info c;

		memset(&c, 0, sizeof(c));
		c.name = npuprof_db_intern(x->w, op);
		c.globalTaskId = gtid;
		c.blockDim = 24;
		c.taskType = npuprof_db_intern(x->w, "AI_CORE");
		c.opType = npuprof_db_intern(x->w, "MatMul");
		c.inputFormats = c.inputDataTypes = c.inputShapes = NPUPROF_DB_STR_NA;
		c.outputFormats = c.outputDataTypes = c.outputShapes = NPUPROF_DB_STR_NA;
		c.attrInfo = c.opState = c.hf32Eligible = c.gridDim = c.blockDimStr =
			NPUPROF_DB_STR_NA;
		ck_assert_int_eq(npuprof_db_add_compute_task_info(x->w, &c), 0);
	}
}

static int trace(struct fx *x, const struct npuprof_trace_opts *o, struct npuprof_trace_result *r,
		 char *err, size_t errlen)
{
	return npuprof_trace_json(x->db, x->out, o, r, err, errlen);
}

/* The whole output file (malloc'd). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_int_eq(fread(buf, 1, (size_t)n, f), n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* tests/trace_check.py on the output (and the database): its exit status. */
static int check_py(struct fx *x, const char *extra)
{
	char cmd[9000];

	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 tests/trace_check.py '%s' '%s' %s", x->out,
		 x->db, extra ? extra : "");
	return system(cmd);
}

static void fx_done(struct fx *x)
{
	tu_rm_rf(x->dir);
}

START_TEST(names_are_escaped)
{
	struct fx x;
	struct npuprof_trace_result r;
	char err[1024], *s;

	fx_open(&x);
	session_row(&x);
	api(&x, T0 + 1000, T0 + 2000, 20000, 77, 77, 5,
	    "q\"b\\t\tc\x01 \xc3\xa9\xe4\xb8\xad bad\xff\xc3(\xed\xa0\x80!");
	fx_finish(&x);
	ck_assert_msg(trace(&x, NULL, &r, err, sizeof(err)) == 0, "%s", err);
	s = slurp(x.out);
	ck_assert_msg(strstr(s, "\"name\":\"q\\\"b\\\\t\\u0009c\\u0001 \xc3\xa9\xe4\xb8\xad "
				"bad\\ufffd\\ufffd(\\ufffd\\ufffd\\ufffd!\""),
		      "%s", s);
	free(s);
	/* and it parses as JSON (UTF-8 text) */
	ck_assert_int_eq(check_py(&x, NULL), 0);
	fx_done(&x);
}
END_TEST

START_TEST(exact_microseconds_from_the_session_start)
{
	struct fx x;
	struct npuprof_trace_result r;
	char err[1024], *s;

	fx_open(&x);
	session_row(&x);
	api(&x, T0 + 1234000, T0 + 1240001, 20000, 77, 77, 3, "aclopExecute");
	task(&x, T0 + 1234567, T0 + 1234568, 0, 0, -1, "KERNEL_AICORE", NULL);
	task(&x, T0 + 1234568, T0 + 2234569, 0, 1, -1, "KERNEL_AICORE", NULL);
	fx_finish(&x);
	ck_assert_msg(trace(&x, NULL, &r, err, sizeof(err)) == 0, "%s", err);
	s = slurp(x.out);
	ck_assert_msg(strstr(s, "\"startTimeUnixNs\":\"1796115318734478271\""), "%s", s);
	ck_assert_msg(strstr(s, "\"ts\":1234.567,\"dur\":0.001"), "%s", s);
	ck_assert_msg(strstr(s, "\"ts\":1234.568,\"dur\":1000.001"), "%s", s);
	ck_assert_msg(strstr(s, "\"ts\":1234.000,\"dur\":6.001"), "%s", s);
	free(s);
	ck_assert_int_eq(r.tasks, 2);
	ck_assert_int_eq(r.api, 1);
	ck_assert_int_eq(check_py(&x, NULL), 0);
	fx_done(&x);
}
END_TEST

/* Times at the ends of int64 (a damaged or foreign database): written
 * exactly, never wrapped. */
START_TEST(extreme_times_do_not_wrap)
{
	struct fx x;
	char err[1024], *s;

	fx_open(&x);
	task(&x, INT64_MIN + 10, INT64_MAX, 0, 0, -1, "KERNEL_AICORE", NULL);
	task(&x, INT64_MAX, INT64_MAX, 0, 1, -1, "KERNEL_AICORE", NULL);
	fx_finish(&x);
	ck_assert_msg(trace(&x, NULL, NULL, err, sizeof(err)) == 0, "%s", err);
	s = slurp(x.out);
	ck_assert_msg(strstr(s, "\"startTimeUnixNs\":\"-9223372036854775798\""), "%s", s);
	ck_assert_msg(strstr(s, "\"ts\":0.000,\"dur\":18446744073709551.605"), "%s", s);
	ck_assert_msg(strstr(s, "\"ts\":18446744073709551.605,\"dur\":0.000"), "%s", s);
	free(s);
	fx_done(&x);
}
END_TEST

START_TEST(empty_session)
{
	struct fx x;
	struct npuprof_trace_result r;
	char err[1024], *s;

	fx_open(&x);
	fx_finish(&x);
	ck_assert_msg(trace(&x, NULL, &r, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(r.events, 0);
	s = slurp(x.out);
	ck_assert_msg(strstr(s, "\"traceEvents\":[\n]}"), "%s", s);
	free(s);
	ck_assert_int_eq(check_py(&x, NULL), 0);
	fx_done(&x);
}
END_TEST

/* One acl call launching two tasks (one with an operator), a second
 * thread, an msproftx range and mark: names for all, a flow per task. */
START_TEST(names_flows_marks)
{
	struct fx x;
	struct npuprof_trace_result r;
	struct npuprof_trace_opts o = { .pid = 77, .process_name = "myapp" };
	struct npuprof_db_mstx_events m;
	char err[1024], *s;

	fx_open(&x);
	session_row(&x);
	api(&x, T0 + 1000, T0 + 9000, 20000, 77, 78, 10, "aclnnMatmul");
	api(&x, T0 + 2000, T0 + 3000, 10000, 77, 78, 11, "launch");
	api(&x, T0 + 2100, T0 + 2900, 5000, 77, 78, 12, "rtKernelLaunch");
	api(&x, T0 + 500, T0 + 600, 20000, 77, 77, 13, "aclInit");
	task(&x, T0 + 4000, T0 + 5000, 3, 0, 11, "KERNEL_AICORE", "layer0/MatMul");
	task(&x, T0 + 5000, T0 + 6000, 3, 1, 11, "KERNEL_AIVEC", NULL);
	task(&x, T0 + 7000, T0 + 7000, 4, 2, -1, "MsTx", NULL);
	memset(&m, 0, sizeof(m));
	m.startNs = T0 + 800;
	m.endNs = T0 + 9500;
	m.eventType = 2;
	m.rangeId = m.category = 4294967295LL;
	m.message = npuprof_db_intern(x.w, "forward");
	m.globalTid = m.endGlobalTid = (77LL << 32) | 78;
	m.domainId = npuprof_db_intern(x.w, "");
	m.connectionId = 4000000000LL;
	ck_assert_int_eq(npuprof_db_add_mstx_events(x.w, &m), 0);
	m.startNs = m.endNs = T0 + 9600;
	m.eventType = 3;
	m.message = npuprof_db_intern(x.w, "step 0");
	m.connectionId = 4000000001LL;
	ck_assert_int_eq(npuprof_db_add_mstx_events(x.w, &m), 0);
	fx_finish(&x);
	ck_assert_msg(trace(&x, &o, &r, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(r.tasks, 3);
	ck_assert_int_eq(r.flows, 2);
	ck_assert_int_eq(r.api, 4);
	ck_assert_int_eq(r.ranges, 1);
	ck_assert_int_eq(r.marks, 1);
	ck_assert_int_eq(r.processes, 2);
	s = slurp(x.out);
	ck_assert_msg(strstr(s, "\"args\":{\"name\":\"myapp\"}"), "%s", s);
	ck_assert_msg(strstr(s, "\"args\":{\"name\":\"NPU 0 (Ascend910B)\"}"), "%s", s);
	ck_assert_msg(strstr(s, "\"args\":{\"name\":\"stream 3\"}"), "%s", s);
	ck_assert_msg(strstr(s, "\"args\":{\"name\":\"main thread\"}"), "%s", s);
	ck_assert_msg(strstr(s, "\"args\":{\"name\":\"thread 78\"}"), "%s", s);
	ck_assert_msg(strstr(s, "\"ph\":\"X\",\"name\":\"layer0/MatMul\",\"cat\":\"task\""), "%s",
		      s);
	ck_assert_msg(strstr(s, "\"ph\":\"X\",\"name\":\"KERNEL_AIVEC\",\"cat\":\"task\""), "%s",
		      s);
	ck_assert_msg(strstr(s, "\"ph\":\"X\",\"name\":\"launch\",\"cat\":\"node\""), "%s", s);
	/* the flows start at the launch (node level), not at the acl call */
	ck_assert_msg(strstr(s, "\"ph\":\"s\",\"name\":\"launch\",\"cat\":\"launch\",\"pid\":77,"
				"\"tid\":78,\"ts\":2.000,\"id\":0}"),
		      "%s", s);
	ck_assert_msg(strstr(s,
			     "\"ph\":\"f\",\"name\":\"launch\",\"cat\":\"launch\",\"pid\":10000000,"
			     "\"tid\":20000000,\"ts\":5.000,\"id\":2,\"bp\":\"e\"}"),
		      "%s", s);
	/* queue depth of stream 3: both queued at the launch's end, then 1, 0 */
	ck_assert_msg(strstr(s,
			     "\"name\":\"queue depth stream 3\",\"pid\":10000000,\"tid\":20000000,"
			     "\"ts\":3.000,\"args\":{\"depth\":2}}"),
		      "%s", s);
	ck_assert_msg(strstr(s, "\"ts\":5.000,\"args\":{\"depth\":1}}"), "%s", s);
	ck_assert_msg(strstr(s, "\"ts\":6.000,\"args\":{\"depth\":0}}"), "%s", s);
	free(s);
	ck_assert_int_eq(check_py(&x, "--min flow=2 --min task=3 --min range=1 --min mark=1"), 0);
	fx_done(&x);
}
END_TEST

/* Tasks of one stream that run at the same time (HCCL SDMA) go to extra
 * threads of that stream, so every thread's slices nest. */
START_TEST(concurrent_tasks_of_a_stream)
{
	struct fx x;
	struct npuprof_trace_result r;
	char err[1024], *s;

	fx_open(&x);
	session_row(&x);
	task(&x, T0 + 1000, T0 + 5000, 5, 0, -1, "SDMA", NULL);
	task(&x, T0 + 2000, T0 + 6000, 5, 1, -1, "SDMA", NULL);
	task(&x, T0 + 3000, T0 + 7000, 5, 2, -1, "SDMA", NULL);
	task(&x, T0 + 5500, T0 + 8000, 5, 3, -1, "Notify Wait", NULL);
	fx_finish(&x);
	ck_assert_msg(trace(&x, NULL, &r, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(r.threads, 3);
	s = slurp(x.out);
	ck_assert_msg(strstr(s, "\"args\":{\"name\":\"stream 5 (concurrent 3)\"}"), "%s", s);
	ck_assert_ptr_null(strstr(s, "concurrent 4"));
	ck_assert_msg(strstr(s, "\"args\":{\"depth\":3}}"), "%s", s);
	free(s);
	ck_assert_int_eq(check_py(&x, NULL), 0);
	fx_done(&x);
}
END_TEST

START_TEST(errors_leave_no_output)
{
	struct fx x;
	char err[1024];
	volatile sig_atomic_t cancel = 1;
	struct npuprof_trace_opts o = { .cancel = &cancel };
	FILE *f;

	fx_open(&x);
	session_row(&x);
	for (int i = 0; i < 10000; i++)
		task(&x, T0 + i * 10, T0 + i * 10 + 5, 0, i, -1, "KERNEL_AICORE", NULL);
	fx_finish(&x);
	/* cancelled */
	ck_assert_int_eq(trace(&x, &o, NULL, err, sizeof(err)), -EINTR);
	ck_assert_msg(strstr(err, "interrupted"), "%s", err);
	ck_assert_int_eq(access(x.out, F_OK), -1);
	ck_assert_int_eq(count_entries(x.dir, ".npuprof-tmp-"), 0);
	/* not a database */
	snprintf(x.db, sizeof(x.db), "%s/junk.db", x.dir);
	f = fopen(x.db, "w");
	fputs("this is not sqlite, just text that is long enough to have a header...........\n", f);
	fclose(f);
	ck_assert_int_lt(trace(&x, NULL, NULL, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, x.db) && strstr(err, "not a database"), "%s", err);
	ck_assert_int_eq(access(x.out, F_OK), -1);
	/* missing */
	snprintf(x.db, sizeof(x.db), "%s/none.db", x.dir);
	ck_assert_int_lt(trace(&x, NULL, NULL, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, x.db), "%s", err);
	ck_assert_int_eq(access(x.out, F_OK), -1);
	ck_assert_int_eq(count_entries(x.dir, ".npuprof-tmp-"), 0);
	fx_done(&x);
}
END_TEST

/*
 * Issue 29 item 4: a real torch_npu database's framework rows. level2-rank0
 * (sqlite3): PYTORCH_API 2460 rows (860 op, 318 queue, 1282 python trace);
 * TASK rows reached from op rows through CONNECTION_IDS and CANN_API: 500
 * (each with an async_npu flow); Enqueue/Dequeue pairs sharing a link id
 * that is no CANN call's: 159 (each with an async_task_queue flow). Python
 * frames and torch ops overlap 5 times without nesting there, hence their
 * separate lanes; trace_check.py checks every row, time and flow.
 */
START_TEST(real_pytorch_framework_rows)
{
	struct fx x;
	struct npuprof_trace_result r;
	char err[1024], *s;

	scratch_dir(x.dir, sizeof(x.dir));
	snprintf(x.db, sizeof(x.db), "tests/fixtures/real/910b-level2-rank0.db");
	snprintf(x.out, sizeof(x.out), "%s/trace.json", x.dir);
	ck_assert_msg(trace(&x, NULL, &r, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(r.fwk, 2460);
	ck_assert_int_eq(r.tasks, 552);
	s = slurp(x.out);
	ck_assert_msg(strstr(s, "\"args\":{\"name\":\"PyTorch main thread\"}"), "no PyTorch lane");
	ck_assert_msg(strstr(s, "\"args\":{\"name\":\"Python main thread\"}"), "no Python lane");
	ck_assert_msg(strstr(s, "\"name\":\"ProfilerStep#50\",\"cat\":\"torch_op\""),
		      "no ProfilerStep slice");
	ck_assert_msg(strstr(s, "\"cat\":\"torch_queue\""), "no queue slice");
	ck_assert_msg(strstr(s, "\"cat\":\"torch_trace\""), "no python frame");
	free(s);
	ck_assert_int_eq(check_py(&x, "--min fwk=2460 --min fwk_linked=500 --min fwk_queue=159"),
			 0);
	fx_done(&x);
}
END_TEST

/* Framework rows that overlap without nesting go to a further lane, so
 * every lane nests; an op row links to a task's launch (async_npu flow);
 * an Enqueue and a Dequeue share a link id (async_task_queue flow); TEXT
 * times as torch_npu writes them; without framework rows in ENUM_API_TYPE
 * (this is our msprof writer's) the category is torch_<type>. */
START_TEST(framework_lanes_and_flows)
{
	struct fx x;
	struct npuprof_trace_result r;
	char err[1024], sql[2048], *s;
	sqlite3 *db;
	int64_t op, enq, deq;

	fx_open(&x);
	session_row(&x);
	api(&x, T0 + 2000, T0 + 3000, 10000, 77, 78, 11, "launch");
	task(&x, T0 + 4000, T0 + 5000, 3, 0, 11, "KERNEL_AICORE", "layer0/MatMul");
	op = npuprof_db_intern(x.w, "aten::mm");
	enq = npuprof_db_intern(x.w, "Enqueue");
	deq = npuprof_db_intern(x.w, "Dequeue@mm");
	fx_finish(&x);
	ck_assert_int_eq(sqlite3_open(x.db, &db), SQLITE_OK);
	snprintf(sql, sizeof(sql),
		 "CREATE TABLE PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER,"
		 " connectionId INTEGER, name INTEGER, sequenceNumber INTEGER, fwdThreadId INTEGER,"
		 " inputDtypes INTEGER, inputShapes INTEGER, callchainId INTEGER, type INTEGER);"
		 "CREATE TABLE CONNECTION_IDS (id INTEGER, connectionId INTEGER);"
		 /* on thread 77: an op [1000, 9000] holding an Enqueue [1500, 1600];
		  * an op [8000, 9500] overlapping the first without nesting */
		 "INSERT INTO PYTORCH_API VALUES ('%lld', '%lld', %lld, NULL, %lld, 5, 0, NULL, NULL,"
		 " NULL, 50001), ('%lld', '%lld', %lld, 0, %lld, -1, 0, NULL, NULL, NULL, 50002),"
		 " ('%lld', '%lld', %lld, NULL, %lld, 6, 0, NULL, NULL, NULL, 50001),"
		 /* on thread 78: the Dequeue [1900, 3500] holding the launch */
		 " ('%lld', '%lld', %lld, 1, %lld, -1, 0, NULL, NULL, NULL, 50002),"
		 " ('%lld', '%lld', %lld, 2, %lld, 7, 0, NULL, NULL, NULL, 50001);"
		 "INSERT INTO CONNECTION_IDS VALUES (0, 1342177290), (1, 1342177290), (2, 11);",
		 T0 + 1000, T0 + 9000, (77LL << 32) | 77, (long long)op, T0 + 1500, T0 + 1600,
		 (77LL << 32) | 77, (long long)enq, T0 + 8000, T0 + 9500, (77LL << 32) | 77,
		 (long long)op, T0 + 1900, T0 + 3500, (77LL << 32) | 78, (long long)deq, T0 + 1950,
		 T0 + 3100, (77LL << 32) | 78, (long long)op);
	ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK, "%s",
		      sqlite3_errmsg(db));
	sqlite3_close(db);
	ck_assert_msg(trace(&x, NULL, &r, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(r.fwk, 5);
	s = slurp(x.out);
	/* the overlapping op on lane 1 of kind 0: 30000000 + (2 << 22) + 77 */
	ck_assert_msg(strstr(s, "\"args\":{\"name\":\"PyTorch main thread (overlapping 2)\"}"),
		      "%s", s);
	ck_assert_msg(strstr(s, "\"ph\":\"X\",\"name\":\"aten::mm\",\"cat\":\"torch_50001\","
				"\"pid\":77,\"tid\":38388685,\"ts\":8.000"),
		      "%s", s);
	ck_assert_msg(strstr(s,
			     "\"ph\":\"s\",\"name\":\"async_npu\",\"cat\":\"async_npu\","
			     "\"pid\":77,\"tid\":30000078,\"ts\":1.950,\"id\":1125899906842624}"),
		      "%s", s);
	ck_assert_msg(strstr(s, "\"ph\":\"f\",\"name\":\"async_task_queue\",\"cat\":"
				"\"async_task_queue\",\"pid\":77,\"tid\":30000078,\"ts\":1.900,"
				"\"id\":1688851202441226,\"bp\":\"e\"}"),
		      "%s", s);
	free(s);
	ck_assert_int_eq(check_py(&x, "--min fwk=5 --min fwk_linked=1 --min fwk_queue=1"), 0);
	/* a thread id no Linux thread has: refused, no output */
	ck_assert_int_eq(sqlite3_open(x.db, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "UPDATE PYTORCH_API SET globalTid = (77 << 32) | 4194304",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	unlink(x.out);
	ck_assert_int_eq(trace(&x, NULL, &r, err, sizeof(err)), -ERANGE);
	ck_assert_msg(strstr(err, "PYTORCH_API has thread id 4194304"), "%s", err);
	ck_assert_int_eq(access(x.out, F_OK), -1);
	fx_done(&x);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("trace_json");
	TCase *tc = tcase_create("writer");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, names_are_escaped);
	tcase_add_test(tc, exact_microseconds_from_the_session_start);
	tcase_add_test(tc, extreme_times_do_not_wrap);
	tcase_add_test(tc, empty_session);
	tcase_add_test(tc, names_flows_marks);
	tcase_add_test(tc, concurrent_tasks_of_a_stream);
	tcase_add_test(tc, errors_leave_no_output);
	tcase_add_test(tc, real_pytorch_framework_rows);
	tcase_add_test(tc, framework_lanes_and_flows);
	suite_add_tcase(s, tc);
	return s;
}
