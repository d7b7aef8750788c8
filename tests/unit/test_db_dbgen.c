/*
 * test_db_dbgen.c - a database from `npuprof dbgen` obeys the join rules of
 * docs/ascend-reference.md 5 and answers the queries real consumers run on it
 * (5.8: torch_npu, msprof-analyze, MindStudio Insight), read back both
 * through the SQLite library and through the real sqlite3 shell.
 */
#include <npuprof/db.h>
#include "dbgen.h"

#include "db_testutil.h"
#include "dbschema.h"

#include <errno.h>
#include <sys/wait.h>

static char dir[64], path[512];

static void make_db(enum npuprof_db_schema schema, uint64_t tasks)
{
	struct npuprof_db_options o = { .schema = schema };
	struct npuprof_dbgen_params p = { .tasks = tasks };
	struct npuprof_db *w;
	char err[1024];

	scratch_dir(dir, sizeof(dir));
	ck_assert_msg(npuprof_db_open(&w, dir, &o, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(npuprof_dbgen_to_db(w, &p), 0);
	ck_assert_int_eq(npuprof_db_finish(w), 0);
	ck_assert_uint_eq(npuprof_db_row_count(w, NPUPROF_DB_TASK), tasks);
	snprintf(path, sizeof(path), "%s", npuprof_db_path(w));
	npuprof_db_close(w);
}

#define ZERO(db, sql) \
	ck_assert_msg(q_int(db, sql) == 0, "expected 0 rows: %s (got %lld)", sql, q_int(db, sql))

START_TEST(join_rules_hold)
{
	sqlite3 *db;
	int checked = 0;

	make_db(NPUPROF_DB_SCHEMA_1_1_1, 20000);
	db = open_ro(path);
	/* Every COMPUTE_TASK_INFO row joins TASK. */
	ZERO(db, "SELECT count(*) FROM COMPUTE_TASK_INFO C LEFT JOIN TASK T USING (globalTaskId) "
		 "WHERE T.globalTaskId IS NULL");
	ck_assert_int_gt(q_int(db, "SELECT count(*) FROM COMPUTE_TASK_INFO"), 15000);
	/* Every TASK.connectionId in the host range joins CANN_API ... */
	ZERO(db, "SELECT count(*) FROM TASK T LEFT JOIN CANN_API A USING (connectionId) WHERE "
		 "T.connectionId BETWEEN 0 AND 3999999999 AND A.connectionId IS NULL");
	/* ... and the others are MsTx markers that join MSTX_EVENTS. */
	ZERO(db, "SELECT count(*) FROM TASK WHERE connectionId >= 4000000000 AND connectionId NOT "
		 "IN (SELECT connectionId FROM MSTX_EVENTS)");
	ZERO(db, "SELECT count(*) FROM TASK T JOIN STRING_IDS S ON T.taskType=S.id WHERE "
		 "T.connectionId >= 4000000000 AND S.value <> 'MsTx'");
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM MSTX_EVENTS WHERE eventType=3"),
			 q_int(db, "SELECT count(*) FROM TASK WHERE connectionId >= 4000000001"));
	/* a start/end range without a device task says so with 4294967295 */
	ZERO(db, "SELECT count(*) FROM MSTX_EVENTS WHERE eventType=2 AND connectionId <> "
		 "4294967295 AND connectionId NOT IN (SELECT connectionId FROM TASK)");
	ck_assert_int_gt(q_int(db, "SELECT count(*) FROM MSTX_EVENTS WHERE eventType=2"), 0);
	ZERO(db, "SELECT count(*) FROM MSTX_EVENTS WHERE rangeId <> 4294967295 OR "
		 "endGlobalTid <> globalTid");
	/* COMMUNICATION_TASK_INFO joins COMMUNICATION_OP; tasks share the op's link. */
	ZERO(db, "SELECT count(*) FROM COMMUNICATION_TASK_INFO C LEFT JOIN COMMUNICATION_OP O "
		 "USING (opId) WHERE O.opId IS NULL");
	ZERO(db,
	     "SELECT count(*) FROM COMMUNICATION_TASK_INFO C JOIN COMMUNICATION_OP O USING "
	     "(opId) JOIN TASK T USING (globalTaskId) WHERE T.connectionId <> O.connectionId OR "
	     "C.name <> O.opName OR C.groupName <> O.groupName");
	ZERO(db, "SELECT count(*) FROM COMMUNICATION_OP O WHERE startNs <> (SELECT min(T.startNs) "
		 "FROM COMMUNICATION_TASK_INFO C JOIN TASK T USING (globalTaskId) WHERE "
		 "C.opId=O.opId) OR endNs <> (SELECT max(T.endNs) FROM COMMUNICATION_TASK_INFO C "
		 "JOIN TASK T USING (globalTaskId) WHERE C.opId=O.opId)");
	ck_assert_int_gt(q_int(db, "SELECT count(*) FROM COMMUNICATION_OP"), 100);
	/* globalTaskId dense from 0 and unique. */
	ck_assert_int_eq(q_int(db, "SELECT count(DISTINCT globalTaskId) FROM TASK"), 20000);
	ck_assert_int_eq(q_int(db, "SELECT min(globalTaskId) FROM TASK"), 0);
	ck_assert_int_eq(q_int(db, "SELECT max(globalTaskId) FROM TASK"), 19999);
	/* Time and identity invariants of 5.9. */
	ZERO(db, "SELECT count(*) FROM TASK WHERE endNs < startNs");
	ZERO(db, "SELECT count(*) FROM CANN_API WHERE endNs < startNs");
	ZERO(db, "SELECT count(*) FROM CANN_API WHERE (globalTid >> 32) NOT IN "
		 "(SELECT globalPid FROM TASK)");
	ZERO(db, "SELECT count(*) FROM TASK, SESSION_TIME_INFO WHERE startNs < startTimeNs OR "
		 "endNs > endTimeNs");
	ZERO(db, "SELECT count(*) FROM TASK WHERE taskId > 65535");
	/* Every node `launch` lies inside an acl range on the same thread. */
	ZERO(db,
	     "SELECT count(*) FROM CANN_API L WHERE L.type=10000 AND NOT EXISTS (SELECT 1 FROM "
	     "CANN_API A WHERE A.type=20000 AND A.globalTid=L.globalTid AND A.startNs<=L.startNs "
	     "AND A.endNs>=L.endNs)");
	/* Memcpy tasks hang off their acl API and have MEMCPY_INFO. */
	ZERO(db, "SELECT count(*) FROM MEMCPY_INFO M LEFT JOIN TASK T USING (globalTaskId) "
		 "LEFT JOIN STRING_IDS S ON T.taskType=S.id WHERE S.value IS NOT 'MEMCPY_ASYNC'");
	/* Every name-like column of every table resolves in STRING_IDS. */
	for (unsigned t = 0; t < NPUPROF_DB_TABLE_COUNT; t++) {
		const struct npuprof_db_table_def *d = &npuprof_db_tables[t];

		if (!table_exists(db, d->name))
			continue;
		for (unsigned c = 0; c < d->ncols; c++) {
			char sql[512];

			if (d->cols[c].kind != NPUPROF_DBK_STR || !d->cols[c].sql[0])
				continue;
			snprintf(sql, sizeof(sql),
				 "SELECT count(*) FROM %s WHERE %s IS NOT NULL AND "
				 "%s NOT IN (SELECT id FROM STRING_IDS)",
				 d->name, d->cols[c].sql[0], d->cols[c].sql[0]);
			ZERO(db, sql);
			checked++;
		}
	}
	ck_assert_int_ge(checked, 20);
	sqlite3_close(db);
	tu_rm_rf(dir);
}
END_TEST

/* The queries consumers run (docs/ascend-reference.md 5.8). */
START_TEST(consumer_queries)
{
	sqlite3 *db;
	char got[256];
	long long launch;

	make_db(NPUPROF_DB_SCHEMA_1_1_1, 5000);
	db = open_ro(path);
	/* torch_npu: the launch id is truthy, node-level launches by start. */
	launch = q_int(db, "SELECT id FROM STRING_IDS WHERE value = 'launch'");
	ck_assert_int_gt(launch, 0);
	ck_assert_int_gt(q_int(db,
			       "SELECT count(*) FROM (SELECT startNs, endNs, globalTid, "
			       "connectionId FROM CANN_API WHERE name = (SELECT id FROM STRING_IDS "
			       "WHERE value='launch') AND type = 10000 ORDER BY startNs)"),
			 4000);
	ck_assert_int_gt(q_int(db,
			       "SELECT count(*) FROM COMPUTE_TASK_INFO C JOIN TASK T ON "
			       "C.globalTaskId=T.globalTaskId JOIN STRING_IDS S ON C.name=S.id"),
			 3500);
	/* One deviceId per connectionId of communication ops. */
	ZERO(db, "SELECT count(*) FROM (SELECT T.connectionId FROM COMMUNICATION_OP O JOIN TASK T "
		 "ON O.connectionId=T.connectionId GROUP BY T.connectionId HAVING "
		 "count(DISTINCT T.deviceId) <> 1 OR count(DISTINCT T.modelId) <> 1)");
	/* msprof-analyze: enum names, blockNum probe, TASK-CANN_API join. */
	ck_assert_int_gt(q_int(db,
			       "SELECT count(*) FROM TASK T JOIN CANN_API A ON "
			       "T.connectionId=A.connectionId JOIN ENUM_API_TYPE E ON A.type=E.id "
			       "WHERE E.name='node'"),
			 4000);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM pragma_table_info('COMPUTE_TASK_INFO') "
				   "WHERE name='blockNum'"),
			 0);
	ck_assert_int_gt(q_int(db, "SELECT sum(blockDim) FROM COMPUTE_TASK_INFO"), 0);
	ck_assert_int_gt(q_int(db, "SELECT count(*) FROM COMMUNICATION_TASK_INFO C JOIN "
				   "ENUM_HCCL_DATA_TYPE D ON C.dataType=D.id WHERE D.name='FP32'"),
			 0);
	ck_assert_int_gt(
		q_int(db, "SELECT count(*) FROM TASK T JOIN STRING_IDS S ON "
			  "T.taskType=S.id WHERE S.value IN ('KERNEL_AICORE','KERNEL_MIX_AIC')"),
		0);
	/* mstx_sum: MarkEx marks, device time by connectionId. */
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM MSTX_EVENTS M JOIN TASK T ON "
				   "M.connectionId=T.connectionId WHERE M.eventType=3"),
			 5);
	/* msproftx summary: the ranges it joins to TASK (connectionId not
	 * 4294967295) all have a device task; these host-only ones have none */
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM MSTX_EVENTS WHERE eventType=2 AND "
				   "connectionId <> 4294967295"),
			 0);
	/* Insight: unified schema, version not 1.0.x, host rows of the task's PID. */
	ck_assert_str_eq(q_text(db, "SELECT value FROM META_DATA WHERE name='SCHEMA_VERSION'", got,
				sizeof(got)),
			 "1.1.1");
	ck_assert_int_gt(q_int(db, "SELECT count(*) FROM CANN_API WHERE (globalTid >> 32) IN "
				   "(SELECT DISTINCT globalPid FROM TASK)"),
			 10000);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM NPU_INFO WHERE id=0"), 1);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM HOST_INFO"), 1);
	/* The planner uses TaskIndex for the time-range queries of the viewers. */
	{
		sqlite3_stmt *s;

		ck_assert_int_eq(sqlite3_prepare_v2(db,
						    "EXPLAIN QUERY PLAN SELECT * FROM TASK WHERE "
						    "startNs > 5",
						    -1, &s, NULL),
				 SQLITE_OK);
		ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
		ck_assert_ptr_nonnull(strstr((const char *)sqlite3_column_text(s, 3), "TaskIndex"));
		sqlite3_finalize(s);
	}
	sqlite3_close(db);
	tu_rm_rf(dir);
}
END_TEST

/* The 1.2.0 option through dbgen: renamed and added columns, readable. */
START_TEST(dbgen_120)
{
	sqlite3 *db;

	make_db(NPUPROF_DB_SCHEMA_1_2_0, 2000);
	db = open_ro(path);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM pragma_table_info('COMPUTE_TASK_INFO') "
				   "WHERE name='blockNum'"),
			 1);
	ZERO(db,
	     "SELECT count(*) FROM COMPUTE_TASK_INFO C LEFT JOIN STRING_IDS S ON C.gridDim=S.id "
	     "WHERE S.value IS NOT 'N/A'");
	ZERO(db, "SELECT count(*) FROM COMMUNICATION_OP WHERE rankSize <> 2 OR deviceId <> 0");
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM RANK_DEVICE_MAP WHERE rankId=-1 AND "
				   "deviceId=0"),
			 1);
	sqlite3_close(db);
	tu_rm_rf(dir);
}
END_TEST

/* Output of a shell command, trimmed; -1 if it could not run. */
static int run(const char *cmd, char *out, size_t len)
{
	FILE *f = popen(cmd, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = '\0';
	return WEXITSTATUS(pclose(f));
}

/* The tool itself, read back with the real sqlite3 shell. */
START_TEST(tool_and_sqlite3_shell)
{
	char cmd[1024], out[4096];

	if (access("build/tests/bin/dbgen", X_OK) != 0 ||
	    system("command -v sqlite3 >/dev/null") != 0) {
		printf("tool_and_sqlite3_shell: skipped (build/tests/bin/dbgen or sqlite3 missing)\n");
		return;
	}
	scratch_dir(dir, sizeof(dir));
	snprintf(cmd, sizeof(cmd),
		 "build/tests/bin/dbgen --tasks 3000 -o %s/msprof_20260101000000.db", dir);
	ck_assert_int_eq(run(cmd, out, sizeof(out)), 0);
	ck_assert_ptr_nonnull(strstr(out, "3000 tasks"));
	snprintf(
		cmd, sizeof(cmd),
		"sqlite3 %s/msprof_20260101000000.db 'PRAGMA integrity_check; "
		"SELECT count(*) FROM TASK; SELECT value FROM META_DATA WHERE name=\"SCHEMA_VERSION\";'",
		dir);
	ck_assert_int_eq(run(cmd, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "ok\n3000\n1.1.1");
	/* The same name again: refused without --force, replaced with it. */
	snprintf(cmd, sizeof(cmd),
		 "build/tests/bin/dbgen --tasks 10 -o %s/msprof_20260101000000.db 2>&1", dir);
	ck_assert_int_eq(run(cmd, out, sizeof(out)), 1);
	ck_assert_ptr_nonnull(strstr(out, "already exists"));
	snprintf(
		cmd, sizeof(cmd),
		"build/tests/bin/dbgen --tasks 10 --schema 1.2.0 --force -o "
		"%s/msprof_20260101000000.db >/dev/null && sqlite3 %s/msprof_20260101000000.db "
		"'SELECT count(*) FROM TASK; SELECT value FROM META_DATA WHERE name=\"SCHEMA_VERSION\"'",
		dir, dir);
	ck_assert_int_eq(run(cmd, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "10\n1.2.0");
	ck_assert_int_eq(run("build/tests/bin/dbgen --tasks x 2>&1", out, sizeof(out)), 2);
	ck_assert_int_eq(run("build/tests/bin/dbgen --tasks 1 -o /nonexistent/x.db 2>&1", out,
			     sizeof(out)),
			 1);
	ck_assert_ptr_nonnull(strstr(out, "/nonexistent"));
	tu_rm_rf(dir);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("db_dbgen");
	TCase *tc = tcase_create("dbgen");

	/* a hang guard, not a speed test: ~25 s of CPU, far longer on a loaded host */
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, join_rules_hold);
	tcase_add_test(tc, consumer_queries);
	tcase_add_test(tc, dbgen_120);
	tcase_add_test(tc, tool_and_sqlite3_shell);
	suite_add_tcase(s, tc);
	return s;
}
