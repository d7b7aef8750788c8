/*
 * test_analysis.c - torch_npu's analysis.db (user/export/analysis.c) from a
 * small PyTorch database written here with known answers: two steps, one
 * compute task, two all-reduces with their HCCL small tasks (notify waits,
 * an HCCS copy on the main stream and one on a second stream, an on-chip
 * reduce). Every value below is worked out by hand from the rules of
 * docs/ascend-reference.md 2.4.
 */
#include <check.h>
#include <math.h>

#include "analysis.h"
#include "db_testutil.h"
#include "npuprof/db.h"
#include "npuprof/msprof_ids.h"

/* "g1"'s hash id (msprof-analyze's double_hash) */
#define G1 "13039520724198"

static char dir[256], dbpath[512], anpath[512];

#define LINK_ON_CHIP 0
#define LINK_HCCS 1
#define LINK_INVALID 65535
#define TRANSPORT_SDMA 0
#define RDMA_INVALID 65535

struct ttask {
	int64_t start, end, size, src, dst, plane, master, link;
	const char *type;
	int64_t conn, op;
	int64_t transport, rdma; /* 0: SDMA, no RDMA type */
};

#define TRANSPORT_RDMA 1
#define LINK_ROCE 3
#define RDMA_SEND_NOTIFY 0
#define RDMA_SEND_PAYLOAD 1

static void put_task(struct npuprof_db *w, int64_t gid, const struct ttask *t, const char *op,
		     const char *group)
{
	struct npuprof_db_task task = { .startNs = t->start,
					.endNs = t->end,
					.deviceId = 0,
					.connectionId = t->conn,
					.globalTaskId = gid,
					.globalPid = 1,
					.taskType = npuprof_db_intern(w, "COMMUNICATION"),
					.streamId = 5 + t->plane };
	struct npuprof_db_communication_task_info c = {
		.name = npuprof_db_intern(w, op),
		.globalTaskId = gid,
		.taskType = npuprof_db_intern(w, t->type),
		.planeId = t->plane,
		.groupName = npuprof_db_intern(w, group),
		.notifyId = 1,
		.rdmaType = t->transport == TRANSPORT_RDMA ? t->rdma : RDMA_INVALID,
		.srcRank = t->src,
		.dstRank = t->dst,
		.transportType = t->transport,
		.size = t->size,
		.dataType = 65535,
		.linkType = t->link,
		.opId = t->op,
		.isMaster = t->master,
	};

	ck_assert_int_eq(npuprof_db_add_task(w, &task), 0);
	ck_assert_int_eq(npuprof_db_add_communication_task_info(w, &c), 0);
}

static void put_api(struct npuprof_db *w, int64_t conn, int64_t s, int64_t e)
{
	struct npuprof_db_cann_api a = { .startNs = s,
					 .endNs = e,
					 .type = NPUPROF_API_NODE,
					 .globalTid = 1,
					 .connectionId = conn,
					 .name = npuprof_db_intern(w, "launch") };

	ck_assert_int_eq(npuprof_db_add_cann_api(w, &a), 0);
}

static void put_op(struct npuprof_db *w, int64_t id, const char *name, int64_t s, int64_t e,
		   int64_t conn)
{
	struct npuprof_db_communication_op o = { .opName = npuprof_db_intern(w, name),
						 .startNs = s,
						 .endNs = e,
						 .connectionId = conn,
						 .groupName = npuprof_db_intern(w, "g1"),
						 .opId = id,
						 .dataType = 4,
						 .algType = npuprof_db_intern(w, "MESH"),
						 .count = 1,
						 .opType = npuprof_db_intern(w,
									     "hcom_allReduce_") };

	ck_assert_int_eq(npuprof_db_add_communication_op(w, &o), 0);
}

/* The PyTorch database; hccl 0: no small tasks; level: the profile's. */
static void make_db(int hccl, const char *level)
{
	struct npuprof_db_options opt = { .variant = NPUPROF_DB_PYTORCH,
					  .file_name = "ascend_pytorch_profiler_0.db" };
	struct npuprof_db *w;
	char err[512], md[128];
	static const struct ttask op1[] = {
		{ 10000, 14000, 0, 0, 4294967295LL, 0, 1, LINK_INVALID, "Notify_Wait", 2, 1 },
		{ 14000, 18000, 2000000, 0, 1, 0, 1, LINK_HCCS, "Memcpy", 2, 1 },
		{ 18000, 20000, 0, 0, 4294967295LL, 0, 1, LINK_INVALID, "Notify_Wait", 2, 1 },
		{ 20000, 22000, 1000000, 0, 4294967295LL, 0, 1, LINK_ON_CHIP, "Reduce_Inline", 2,
		  1 },
		{ 22000, 30000, 2000000, 0, 1, 1, 0, LINK_HCCS, "Memcpy", 2, 1 },
	};
	static const struct ttask op2 = { 100300, 100400,    1000000,  0, 1, 0,
					  1,	  LINK_HCCS, "Memcpy", 3, 2 };
	/* a send over RDMA: two payloads closed by an RDMASend and a wait */
	static const struct ttask op3[] = {
		{ 150000, 151000, 1000000, 0, 1, 0, 1, LINK_ROCE, "RDMASend", 4, 3, TRANSPORT_RDMA,
		  RDMA_SEND_PAYLOAD },
		{ 151000, 152000, 1000000, 0, 1, 0, 1, LINK_ROCE, "RDMASend", 4, 3, TRANSPORT_RDMA,
		  RDMA_SEND_PAYLOAD },
		{ 152000, 153000, 0, 0, 1, 0, 1, LINK_ROCE, "RDMASend", 4, 3, TRANSPORT_RDMA,
		  RDMA_SEND_NOTIFY },
		{ 153000, 156000, 0, 0, 1, 0, 1, LINK_INVALID, "Notify_Wait", 4, 3, TRANSPORT_RDMA,
		  65535 },
	};
	struct npuprof_db_task comp = { .startNs = 2000,
					.endNs = 12000,
					.connectionId = 1,
					.globalTaskId = 0,
					.globalPid = 1,
					.streamId = 2 };
	struct npuprof_db_compute_task_info ci = { .globalTaskId = 0 };
	struct npuprof_db_step_time s1 = { 1, 1000, 100000 }, s2 = { 2, 100000, 200000 };
	struct npuprof_db_meta_data m = { "npuprof.experimental_config", md };

	scratch_dir(dir, sizeof(dir));
	snprintf(dbpath, sizeof(dbpath), "%s/ascend_pytorch_profiler_0.db", dir);
	snprintf(anpath, sizeof(anpath), "%s/analysis.db", dir);
	ck_assert_int_eq(npuprof_db_open(&w, dir, &opt, err, sizeof(err)), 0);
	snprintf(md, sizeof(md), "{\"_profiler_level\": \"%s\", \"_export_type\": [\"db\"]}",
		 level);
	ck_assert_int_eq(npuprof_db_add_meta_data(w, &m), 0);
	comp.taskType = npuprof_db_intern(w, "AI_CORE");
	ci.name = npuprof_db_intern(w, "MatMul");
	ck_assert_int_eq(npuprof_db_add_task(w, &comp), 0);
	ck_assert_int_eq(npuprof_db_add_compute_task_info(w, &ci), 0);
	put_api(w, 1, 1100, 1200);
	put_api(w, 2, 1300, 1400);
	put_api(w, 3, 100100, 100200);
	put_api(w, 4, 100500, 100600);
	put_op(w, 1, "hcom_allReduce__1_0_1", 10000, 30000, 2);
	put_op(w, 2, "hcom_allReduce__1_1_1", 100300, 100400, 3);
	put_op(w, 3, "hcom_send__1_0_1", 150000, 156000, 4);
	if (hccl) {
		for (size_t i = 0; i < sizeof(op1) / sizeof(op1[0]); i++)
			put_task(w, 1 + (int64_t)i, &op1[i], "hcom_allReduce__1_0_1", "g1");
		put_task(w, 10, &op2, "hcom_allReduce__1_1_1", "g1");
		for (size_t i = 0; i < sizeof(op3) / sizeof(op3[0]); i++)
			put_task(w, 20 + (int64_t)i, &op3[i], "hcom_send__1_0_1", "g1");
	} else {
		struct npuprof_db_task t = { .startNs = 10000,
					     .endNs = 30000,
					     .connectionId = 2,
					     .globalTaskId = 1,
					     .globalPid = 1 };
		struct npuprof_db_task t2 = { .startNs = 100300,
					      .endNs = 100400,
					      .connectionId = 3,
					      .globalTaskId = 2,
					      .globalPid = 1 };

		struct npuprof_db_task t3 = { .startNs = 150000,
					      .endNs = 156000,
					      .connectionId = 4,
					      .globalTaskId = 3,
					      .globalPid = 1 };

		ck_assert_int_eq(npuprof_db_add_task(w, &t), 0);
		ck_assert_int_eq(npuprof_db_add_task(w, &t2), 0);
		ck_assert_int_eq(npuprof_db_add_task(w, &t3), 0);
	}
	ck_assert_int_eq(npuprof_db_add_step_time(w, &s1), 0);
	ck_assert_int_eq(npuprof_db_add_step_time(w, &s2), 0);
	ck_assert_int_eq(npuprof_db_finish(w), 0);
	npuprof_db_close(w);
}

static double q_real(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	double v = NAN;

	ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK, "%s: %s", sql,
		      sqlite3_errmsg(db));
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
		v = sqlite3_column_double(s, 0);
	sqlite3_finalize(s);
	return v;
}

#define NEAR(db, sql, want)                                                                   \
	do {                                                                                  \
		double got_ = q_real(db, sql);                                                \
		ck_assert_msg(fabs(got_ - (want)) < 1e-9, "%s: %.10g, want %.10g", sql, got_, \
			      (double)(want));                                                \
	} while (0)

/* tests/sql/check.sh on db (or on a copy damaged by sql, whose FAIL must be
 * query's): its exit status. */
static int run_check(const char *db, const char *sql, const char *query)
{
	char cmd[2048], copy[600];
	int st;

	snprintf(copy, sizeof(copy), "%s.check", db);
	snprintf(cmd, sizeof(cmd), "cp %s %s && chmod u+w %s", db, copy, copy);
	ck_assert_int_eq(system(cmd), 0);
	if (sql) {
		snprintf(cmd, sizeof(cmd), "sqlite3 %s \"%s\"", copy, sql);
		ck_assert_int_eq(system(cmd), 0);
	}
	snprintf(cmd, sizeof(cmd), "tests/sql/check.sh %s > %s.out 2>&1", copy, copy);
	st = system(cmd);
	if (query) {
		snprintf(cmd, sizeof(cmd), "grep -q '%s *FAIL' %s.out", query, copy);
		ck_assert_msg(system(cmd) == 0, "%s does not say FAIL after %s", query, sql);
	} else if (st) {
		snprintf(cmd, sizeof(cmd), "cat %s.out", copy);
		ck_assert_int_eq(system(cmd), 0);
	}
	return st;
}

START_TEST(comm_tables)
{
	struct analysis_result res;
	char err[512], buf[256];
	sqlite3 *db;

	make_db(1, "Level1");
	ck_assert_int_eq(analysis_write(dbpath, dir, &res, stderr, err, sizeof(err)), 1);
	ck_assert_str_eq(res.path, anpath);
	db = open_ro(anpath);
	/* the four tables, and only them, with torch_npu's columns and types */
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM sqlite_master WHERE type='table'"), 4);
	ck_assert_str_eq(q_text(db,
				"SELECT group_concat(name || ' ' || type, ',') FROM "
				"pragma_table_info('CommAnalyzerTime')",
				buf, sizeof(buf)),
			 "hccl_op_name TEXT,group_name TEXT,start_timestamp NUMERIC,"
			 "elapse_time NUMERIC,transit_time NUMERIC,wait_time NUMERIC,"
			 "synchronization_time NUMERIC,idle_time NUMERIC,step TEXT,type TEXT");
	ck_assert_str_eq(q_text(db,
				"SELECT group_concat(name, ',') FROM "
				"pragma_table_info('CommAnalyzerMatrix')",
				buf, sizeof(buf)),
			 "hccl_op_name,group_name,src_rank,dst_rank,transport_type,transit_size,"
			 "transit_time,bandwidth,step,type,op_name");

	/* op 1: main stream plane 0; wait 4 us before the first copy (sync)
	 * and 2 us after; transit the one HCCS copy of plane 0 */
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM CommAnalyzerTime"), 3);
	ck_assert_str_eq(q_text(db,
				"SELECT step || ' ' || type || ' ' || group_name FROM "
				"CommAnalyzerTime WHERE hccl_op_name = 'hcom_allReduce__1_0_1'",
				buf, sizeof(buf)),
			 "step1 collective " G1);
	NEAR(db,
	     "SELECT start_timestamp FROM CommAnalyzerTime WHERE hccl_op_name = "
	     "'hcom_allReduce__1_0_1'",
	     10.0);
	NEAR(db, "SELECT elapse_time FROM CommAnalyzerTime WHERE start_timestamp = 10", 0.012);
	NEAR(db, "SELECT transit_time FROM CommAnalyzerTime WHERE start_timestamp = 10", 0.004);
	NEAR(db, "SELECT wait_time FROM CommAnalyzerTime WHERE start_timestamp = 10", 0.006);
	NEAR(db, "SELECT synchronization_time FROM CommAnalyzerTime WHERE start_timestamp = 10",
	     0.004);
	NEAR(db, "SELECT idle_time FROM CommAnalyzerTime WHERE start_timestamp = 10", 0.002);
	ck_assert_str_eq(q_text(db,
				"SELECT step FROM CommAnalyzerTime WHERE hccl_op_name = "
				"'hcom_allReduce__1_1_1'",
				buf, sizeof(buf)),
			 "step2");

	/* bandwidth of op 1: both HCCS copies (4 MB in 12 us, two 2 MB
	 * packets), SDMA their sum with no packets of its own */
	ck_assert_int_eq(q_int(db,
			       "SELECT count(*) FROM CommAnalyzerBandwidth WHERE hccl_op_name = "
			       "'hcom_allReduce__1_0_1'"),
			 2);
	NEAR(db,
	     "SELECT transit_size FROM CommAnalyzerBandwidth WHERE transport_type='HCCS' "
	     "AND step='step1'",
	     4.0);
	NEAR(db,
	     "SELECT transit_time FROM CommAnalyzerBandwidth WHERE transport_type='HCCS' "
	     "AND step='step1'",
	     0.012);
	NEAR(db,
	     "SELECT bandwidth FROM CommAnalyzerBandwidth WHERE transport_type='HCCS' "
	     "AND step='step1'",
	     333.3333);
	NEAR(db,
	     "SELECT package_size FROM CommAnalyzerBandwidth WHERE transport_type='HCCS' "
	     "AND step='step1'",
	     2.0);
	NEAR(db,
	     "SELECT count FROM CommAnalyzerBandwidth WHERE transport_type='HCCS' "
	     "AND step='step1'",
	     2);
	NEAR(db,
	     "SELECT large_packet_ratio FROM CommAnalyzerBandwidth WHERE "
	     "transport_type='HCCS' AND step='step1'",
	     0);
	NEAR(db,
	     "SELECT package_size + count + total_duration FROM CommAnalyzerBandwidth "
	     "WHERE transport_type='SDMA' AND step='step1'",
	     0);
	NEAR(db,
	     "SELECT bandwidth FROM CommAnalyzerBandwidth WHERE transport_type='SDMA' "
	     "AND step='step1'",
	     333.3333);

	/* matrix: per step and link top1, middle, bottom1, total */
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM CommAnalyzerMatrix"), 16);

	/* the send: one RDMA run of 2 MB from the first payload's start to the
	 * end of the wait closing it (3 tasks after a p2p op's payloads: the
	 * wait is part of the run, no wait time), all packets large (> 0.5 MB) */
	ck_assert_str_eq(q_text(db,
				"SELECT step || ' ' || type FROM CommAnalyzerTime WHERE "
				"hccl_op_name = 'hcom_send__1_0_1'",
				buf, sizeof(buf)),
			 "step2 p2p");
	NEAR(db,
	     "SELECT transit_time FROM CommAnalyzerTime WHERE hccl_op_name = 'hcom_send__1_0_1'",
	     0.006);
	NEAR(db,
	     "SELECT wait_time + idle_time FROM CommAnalyzerTime WHERE hccl_op_name = "
	     "'hcom_send__1_0_1'",
	     0);
	NEAR(db, "SELECT bandwidth FROM CommAnalyzerBandwidth WHERE transport_type = 'RDMA'",
	     333.3333);
	NEAR(db,
	     "SELECT large_packet_ratio FROM CommAnalyzerBandwidth WHERE transport_type = 'RDMA'",
	     1);
	NEAR(db, "SELECT package_size FROM CommAnalyzerBandwidth WHERE transport_type = 'RDMA'", 2);
	ck_assert_str_eq(q_text(db,
				"SELECT transport_type || ' ' || type FROM CommAnalyzerMatrix WHERE "
				"hccl_op_name = 'send-total'",
				buf, sizeof(buf)),
			 "RDMA p2p");
	ck_assert_str_eq(q_text(db,
				"SELECT group_concat(hccl_op_name, ',') FROM (SELECT hccl_op_name "
				"FROM CommAnalyzerMatrix WHERE step='step1' AND src_rank='0' AND "
				"dst_rank='1' ORDER BY hccl_op_name)",
				buf, sizeof(buf)),
			 "allreduce-bottom1,allreduce-middle,allreduce-top1,allreduce-total");
	NEAR(db,
	     "SELECT bandwidth FROM CommAnalyzerMatrix WHERE step='step1' AND "
	     "hccl_op_name='allreduce-total' AND dst_rank='1'",
	     333.3333);
	ck_assert_str_eq(q_text(db,
				"SELECT transport_type || ' ' || op_name FROM CommAnalyzerMatrix "
				"WHERE step='step1' AND hccl_op_name='allreduce-top1' AND "
				"dst_rank='0'",
				buf, sizeof(buf)),
			 "LOCAL hcom_allReduce__1_0_1");
	NEAR(db,
	     "SELECT bandwidth FROM CommAnalyzerMatrix WHERE step='step1' AND "
	     "hccl_op_name='allreduce-top1' AND dst_rank='0'",
	     500);
	ck_assert_str_eq(q_text(db,
				"SELECT type || '/' || op_name || '/' FROM CommAnalyzerMatrix "
				"WHERE step='step1' AND hccl_op_name='allreduce-total' AND "
				"dst_rank='0'",
				buf, sizeof(buf)),
			 "collective//");

	/* StepTraceTime, us: step 1 computes 2-12 us, communicates 10-30 us */
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM StepTraceTime"), 2);
	NEAR(db, "SELECT computing FROM StepTraceTime WHERE step='1'", 10);
	NEAR(db, "SELECT communication FROM StepTraceTime WHERE step='1'", 20);
	NEAR(db, "SELECT communication_not_overlapped FROM StepTraceTime WHERE step='1'", 18);
	NEAR(db, "SELECT overlapped FROM StepTraceTime WHERE step='1'", 2);
	NEAR(db, "SELECT free FROM StepTraceTime WHERE step='1'", 0);
	NEAR(db, "SELECT stage FROM StepTraceTime WHERE step='1'", 28);
	NEAR(db, "SELECT bubble FROM StepTraceTime WHERE step='1'", 0);
	NEAR(db,
	     "SELECT communication_not_overlapped_and_exclude_receive FROM StepTraceTime "
	     "WHERE step='1'",
	     18);
	NEAR(db, "SELECT preparing FROM StepTraceTime WHERE step='1'", 1);
	NEAR(db, "SELECT communication FROM StepTraceTime WHERE step='2'", 6.1);
	NEAR(db, "SELECT preparing + computing FROM StepTraceTime WHERE step='2'", 0);
	ck_assert_int_eq(q_int(db, "SELECT deviceId FROM StepTraceTime WHERE step='2'"), 0);
	sqlite3_close(db);

	/* the consumer queries (tests/sql/18, 19) pass on it, and fail on
	 * copies damaged the way they guard against */
	ck_assert_int_eq(run_check(anpath, NULL, NULL), 0);
	ck_assert_int_ne(run_check(anpath,
				   "UPDATE CommAnalyzerBandwidth SET bandwidth = 2 * bandwidth",
				   "18_comm_analyzer"),
			 0);
	ck_assert_int_ne(run_check(anpath, "UPDATE CommAnalyzerTime SET idle_time = idle_time + 1",
				   "18_comm_analyzer"),
			 0);
	ck_assert_int_ne(
		run_check(anpath,
			  "DELETE FROM CommAnalyzerMatrix WHERE hccl_op_name GLOB '*-total'",
			  "18_comm_analyzer"),
		0);
	ck_assert_int_ne(run_check(anpath, "UPDATE StepTraceTime SET overlapped = overlapped + 1",
				   "19_step_trace_time"),
			 0);
	tu_rm_rf(dir);
}
END_TEST

/* Level0 (no HCCL small tasks): StepTraceTime only; Level_none: nothing. */
START_TEST(no_small_tasks_and_level_none)
{
	struct analysis_result res;
	char err[512];
	sqlite3 *db;

	make_db(0, "Level0");
	ck_assert_int_eq(analysis_write(dbpath, dir, &res, stderr, err, sizeof(err)), 1);
	db = open_ro(anpath);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM sqlite_master WHERE type='table'"), 1);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM StepTraceTime"), 2);
	NEAR(db, "SELECT communication FROM StepTraceTime WHERE step='1'", 20);
	sqlite3_close(db);
	tu_rm_rf(dir);

	make_db(1, "Level_none");
	ck_assert_int_eq(analysis_write(dbpath, dir, &res, stderr, err, sizeof(err)), 0);
	ck_assert_int_ne(access(anpath, F_OK), 0);
	ck_assert_str_eq(res.path, "");
	tu_rm_rf(dir);
}
END_TEST

/* A PyTorch database that cannot be read is an error naming it, and no
 * analysis.db (not even a temporary) is left. */
START_TEST(bad_input)
{
	struct analysis_result res;
	char err[512], path[600];
	FILE *f;

	scratch_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/ascend_pytorch_profiler_0.db", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("not a database, not at all; just text long enough to be read as a header....\n", f);
	fclose(f);
	ck_assert_int_lt(analysis_write(path, dir, &res, stderr, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, path) != NULL, "%s", err);
	ck_assert_int_eq(count_entries(dir, "analysis"), 0);
	ck_assert_int_eq(count_entries(dir, ".npuprof-tmp"), 0);
	tu_rm_rf(dir);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("analysis");
	TCase *tc = tcase_create("analysis");

	tcase_set_timeout(tc, 60); /* the consumer queries run in sqlite3 shells */
	tcase_add_test(tc, comm_tables);
	tcase_add_test(tc, no_small_tasks_and_level_none);
	tcase_add_test(tc, bad_input);
	suite_add_tcase(s, tc);
	return s;
}
