/*
 * test_report.c - `npuprof report` (user/report/report.c) against numbers
 * computed independently.
 *
 * The expected figures for the two real 910B fixtures were computed with the
 * sqlite3 shell while writing this test (plain aggregates, and a window-
 * function gaps-and-islands query for the busy unions; see each test) and are
 * hard-coded here, so a change in the report's SQL or arithmetic shows up as
 * a mismatch. Databases made by the synthetic generator check the warnings
 * from our npuprof.* META_DATA rows, the sampling weight, the 1.2.0 column
 * set and the errors.
 *
 * Reports are compared line by line after collapsing runs of blanks, so the
 * column widths may change without breaking the tests.
 */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <npuprof/db.h>
#include "dbgen.h"
#include <npuprof/report.h>

#include "testutil.h"

/* CI clones only the repository: use its copies of the fixtures. */
#define FIX_L2R0 "tests/fixtures/real/910b-level2-rank0.db"
#define FIX_L0R1 "tests/fixtures/real/910b-level0-rank1.db"

static char scratch[64];

static void setup(void)
{
	snprintf(scratch, sizeof(scratch), "/tmp/npuprof-report-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(scratch));
}

static void teardown(void)
{
	tu_rm_rf(scratch);
}

/* The report of path with every line's blanks collapsed, framed by '\n'. */
static char *report(const char *path, unsigned top, int *rc, char *err, size_t errlen)
{
	struct npuprof_report_options opt = { .top = top };
	char *buf = NULL, *out, *o;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	*rc = npuprof_report_write(f, path, &opt, err, errlen);
	fclose(f);
	out = malloc(len + 3);
	ck_assert_ptr_nonnull(out);
	o = out;
	*o++ = '\n';
	for (const char *p = buf; *p; p++) {
		if (*p == ' ' || *p == '\t') {
			if (o[-1] != '\n' && o[-1] != ' ')
				*o++ = ' ';
			continue;
		}
		if (*p == '\n' && o[-1] == ' ')
			o--;
		*o++ = *p;
	}
	if (o[-1] != '\n')
		*o++ = '\n';
	*o = '\0';
	free(buf);
	return out;
}

/* The normalised report has the consecutive lines of `lines` ("a\nb"). */
#define ck_has(rep, lines)                                                                      \
	do {                                                                                    \
		char want_[1024];                                                               \
		snprintf(want_, sizeof(want_), "\n%s\n", lines);                                \
		ck_assert_msg(strstr(rep, want_), "report lacks the lines:\n%s\n--- report:%s", \
			      lines, rep);                                                      \
	} while (0)

#define ck_contains(s, sub) ck_assert_msg(strstr(s, sub), "'%s' not in:\n%s", sub, s)

static void make_db(const char *dir, const char *name, uint64_t tasks,
		    enum npuprof_db_schema schema, const struct npuprof_db_meta_data *meta,
		    size_t nmeta)
{
	struct npuprof_db_options opt = { .schema = schema, .file_name = name };
	struct npuprof_dbgen_params p = { .tasks = tasks };
	struct npuprof_db *w;
	char err[512];

	ck_assert_int_eq(npuprof_db_open(&w, dir, &opt, err, sizeof(err)), 0);
	if (tasks)
		ck_assert_int_eq(npuprof_dbgen_to_db(w, &p), 0);
	for (size_t i = 0; i < nmeta; i++)
		ck_assert_msg(npuprof_db_add_meta_data(w, &meta[i]) == 0, "%s",
			      npuprof_db_errmsg(w));
	ck_assert_msg(npuprof_db_finish(w) == 0, "%s", npuprof_db_errmsg(w));
	npuprof_db_close(w);
}

static int64_t q1(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t v = -1;

	ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK, "%s",
		      sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static void touch(const char *path)
{
	char d[512], *s;
	FILE *f;

	snprintf(d, sizeof(d), "%s", path);
	for (s = strchr(d + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(d, 0755);
		*s = '/';
	}
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	size_t n;
	FILE *in = fopen(from, "rb"), *out;

	touch(to);
	out = fopen(to, "wb");
	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(out);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
	fclose(in);
	ck_assert_int_eq(fclose(out), 0);
}

/*
 * level2-rank0, computed with sqlite3:
 *   SELECT COUNT(*) FROM TASK                                    -> 552
 *   top operator: SUM/MAX(endNs-startNs) of COMPUTE_TASK_INFO ⋈ TASK
 *     grouped by name -> aclnnForeachAddListV2_..., 3, 1950778, 697994;
 *     all compute tasks 187, 78 names, 8900456 ns (share 21.9%)
 *   Notify Wait: 112 tasks, 118128141 ns of 330704571 (35.7%)
 *   busy (gaps-and-islands over TASK ORDER BY startNs): device 0 100123879,
 *     stream 4 94371526, stream 2 89139959; span 406415000 (SESSION_TIME_INFO)
 *   latency: MIN(TASK.startNs) - CANN_API.startNs per connectionId, nearest
 *     rank (ROW_NUMBER = ceil(n p / 100)): node 191 -> 507781, 2883048,
 *     81636200, max 82176384; acl 45 -> 67861308, 81686640, 83323592
 *   COMMUNICATION_OP: 4 rows, SUM(endNs-startNs) 94107521, MAX 80450247,
 *     SUM(count)*4 (FP32) 244403360, SUM(COMMUNICATION_TASK_INFO.size) 488806752
 */
START_TEST(fixture_level2_rank0)
{
	char err[512];
	int rc;
	char *r = report(FIX_L2R0, 0, &rc, err, sizeof(err));

	ck_assert_msg(rc == 0, "%s", err);
	ck_has(r, "schema 1.0.0, PyTorch profiler (torch_npu) database");
	ck_has(r, "devices 0 Ascend910B");
	ck_has(r, "session 406415.000 us (SESSION_TIME_INFO)");
	ck_has(r, "rows TASK 552, COMPUTE_TASK_INFO 187, CANN_API 1133, COMMUNICATION_OP 4, "
		  "MSTX_EVENTS 0");
	ck_has(r, "Warnings\nnone (no npuprof capture statistics in META_DATA)");
	ck_has(r,
	       "187 tasks, 78 operators, 8900.456 us\n"
	       "count total(us) avg(us) max(us) share blocks operator\n"
	       "3 1950.778 650.259 697.994 21.9% 48 aclnnForeachAddListV2_ForeachAddListV2_ForeachAddList\n"
	       "11 579.051 52.641 254.385 6.5% 48 aclnnInplaceCopy_TensorMoveAiCore_TensorMove");
	ck_has(r, "... 58 more operators (--top N lists more)");
	ck_has(r,
	       "count total(us) avg(us) share taskType\n112 118128.141 1054.715 35.7% Notify Wait");
	ck_has(r, "1 0.000 0.000 0.0% PROFILING_ENABLE");
	ck_has(r, "device tasks busy(us) share\n0 552 100123.879 24.6%");
	ck_has(r, "device stream tasks busy(us) share\n0 0 2 0.020 0.0%\n0 2 232 89139.959 21.9%\n"
		  "0 3 6 10.141 0.0%\n0 4 312 94371.526 23.2%");
	ck_has(r, "level apis p50(us) p90(us) p99(us) max(us)\n"
		  "node 191 507.781 2883.048 81636.200 82176.384\n"
		  "acl 45 67861.308 81686.640 83323.592 83323.592");
	ck_has(r, "4 94107.521 23526.880 80450.247 244403360 488806752 FP32 hcom_allReduce_");
	ck_has(r, "msproftx ranges and marks (MSTX_EVENTS)\nnone (no MSTX_EVENTS table)");
	/*
	 * Framework ops (issue 29 item 4), with sqlite3:
	 *   SELECT type, COUNT(*) FROM PYTORCH_API GROUP BY type
	 *     -> 50001 860, 50002 318, 50003 1282 (ENUM_API_TYPE op/queue/trace)
	 *   op rows reaching TASK through CONNECTION_IDS: 115, 500 tasks;
	 *   'HcclAllreduce' op rows: 8, SUM(CAST(endNs)-CAST(startNs)) 98460,
	 *     MAX 24780; its tasks (CONNECTION_IDS -> TASK.connectionId) 300,
	 *     SUM(endNs-startNs) 241165968; ProfilerStep#50: 143741870
	 */
	ck_has(r, "Framework ops (PYTORCH_API; device tasks through CONNECTION_IDS)\n"
		  "2460 rows: 860 op, 318 queue, 1282 trace\n"
		  "860 torch ops of 134 names; 115 of them reach 500 device tasks, 250333.308 us\n"
		  "by host time (inclusive: torch ops nest):\n"
		  "count host(us) avg(us) max(us) tasks device(us) torch op\n"
		  "1 143741.870 143741.870 143741.870 0 0.000 ProfilerStep#50");
	ck_has(r, "by device time (the tasks their launches made):\n"
		  "count host(us) avg(us) max(us) tasks device(us) torch op\n"
		  "8 98.460 12.307 24.780 300 241165.968 HcclAllreduce");
	ck_has(r, "... 114 more torch ops (--top N lists more)");
	free(r);
}
END_TEST

/*
 * level0-rank1 (no runtime-level CANN_API rows, opType N/A, sizes -1):
 *   TASK 550; top operator 3, 1952539, max 696274, of 8831637 (22.1%);
 *   Notify Wait 112, 198676310 of 412475203 (48.2%); device 1 busy 99944480
 *   of 342237000 (29.2%); node latency 549628, 3487064, 85030796, max
 *   85111388; collectives 4, 93993858, max 79189402, payload 244403360,
 *   every COMMUNICATION_TASK_INFO.size -1 (unknown).
 */
START_TEST(fixture_level0_rank1)
{
	char err[512];
	int rc;
	char *r = report(FIX_L0R1, 5, &rc, err, sizeof(err));

	ck_assert_msg(rc == 0, "%s", err);
	ck_has(r, "rows TASK 550, COMPUTE_TASK_INFO 187, CANN_API 712, COMMUNICATION_OP 4, "
		  "MSTX_EVENTS 0");
	ck_has(r, "devices 1 Ascend910B");
	ck_has(r,
	       "count total(us) avg(us) max(us) share blocks operator\n"
	       "3 1952.539 650.846 696.274 22.1% 0 aclnnForeachAddListV2_ForeachAddListV2_ForeachAddList");
	ck_has(r, "... 73 more operators (--top N lists more)");
	ck_has(r,
	       "count total(us) avg(us) share taskType\n112 198676.310 1773.895 48.2% Notify Wait");
	ck_has(r, "device tasks busy(us) share\n1 550 99944.480 29.2%");
	ck_has(r, "node 191 549.628 3487.064 85030.796 85111.388");
	ck_has(r, "acl 45 70171.936 85041.836 85195.410 85195.410");
	ck_has(r, "4 93993.858 23498.464 79189.402 244403360 - FP32 hcom_allReduce_\n"
		  "(opType is N/A in this database: types taken from opName)");
	free(r);
}
END_TEST

START_TEST(warnings_from_meta_data)
{
	static const struct npuprof_db_meta_data meta[] = {
		{ "npuprof.engine", "kmod" },
		{ "npuprof.drops", "17" },
		{ "npuprof.tasks_in_flight_at_stop", "3" },
		{ "npuprof.completions_without_submit", "2" },
		{ "npuprof.task_time_source", "derived" },
		{ "npuprof.sample_n", "4" },
		{ "npuprof.host_records_lost", "5" },
	};
	char path[256], err[512], want[512];
	int rc;

	make_db(scratch, "msprof_20260101000000.db", 2000, NPUPROF_DB_SCHEMA_1_1_1, meta, 7);
	snprintf(path, sizeof(path), "%s/msprof_20260101000000.db", scratch);
	char *r = report(path, 0, &rc, err, sizeof(err));

	ck_assert_msg(rc == 0, "%s", err);
	ck_has(r, "Capture (META_DATA npuprof.*)");
	ck_has(r, "npuprof.engine kmod");
	ck_contains(r, "\n! 17 capture records were dropped (ring overflow)");
	ck_contains(r, "(npuprof.drops)\n");
	ck_contains(r, "\n! 3 tasks were still in flight when capture stopped");
	ck_contains(r, "\n! 2 completions had no matching submit");
	ck_contains(r, "\n! 5 host records were lost");
	ck_contains(r, "\n! task times were derived from submit/complete");
	ck_contains(r, "(npuprof.task_time_source = derived)");
	ck_contains(r, "\n! sampled 1 task in 4 (npuprof.sample_n): task counts and total times "
		       "are scaled up by 4");

	/* Counts and totals scaled by the weight; averages and maxima not. */
	int64_t n = q1(path, "SELECT COUNT(*) FROM COMPUTE_TASK_INFO");
	int64_t tot = q1(path, "SELECT SUM(t.endNs - t.startNs) FROM COMPUTE_TASK_INFO c "
			       "JOIN TASK t USING (globalTaskId)");
	snprintf(want, sizeof(want),
		 "%lld tasks, 6 operators, %lld.%03lld us (scaled by the sampling weight)",
		 (long long)(4 * n), (long long)(4 * tot / 1000), (long long)(4 * tot % 1000));
	ck_has(r, want);
	int64_t k = q1(path, "SELECT COUNT(*) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType "
			     "WHERE s.value = 'KERNEL_AIVEC'");
	int64_t kt = q1(path, "SELECT SUM(endNs - startNs) FROM TASK t JOIN STRING_IDS s "
			      "ON s.id = t.taskType WHERE s.value = 'KERNEL_AIVEC'");
	snprintf(want, sizeof(want), "\n%lld %lld.%03lld %lld.%03lld ", (long long)(4 * k),
		 (long long)(4 * kt / 1000), (long long)(4 * kt % 1000), (long long)(kt / k / 1000),
		 (long long)(kt / k % 1000));
	ck_contains(r, want);
	free(r);
}
END_TEST

START_TEST(no_warnings_when_clean)
{
	static const struct npuprof_db_meta_data meta[] = {
		{ "npuprof.drops", "0" },
		{ "npuprof.tasks_in_flight_at_stop", "0" },
		{ "npuprof.completions_without_submit", "0" },
		{ "npuprof.task_time_source", "device" },
		{ "npuprof.sample_n", "1" },
		{ "npuprof.host_records_lost", "0" },
	};
	char path[256], err[512];
	int rc;

	make_db(scratch, "msprof_20260101000000.db", 300, NPUPROF_DB_SCHEMA_1_1_1, meta, 6);
	snprintf(path, sizeof(path), "%s/msprof_20260101000000.db", scratch);
	char *r = report(path, 0, &rc, err, sizeof(err));

	ck_assert_msg(rc == 0, "%s", err);
	ck_has(r, "npuprof.task_time_source device");
	ck_has(r, "Warnings\nnone");
	ck_assert_ptr_null(strstr(r, "\n!"));
	ck_assert_ptr_null(strstr(r, "scaled"));
	free(r);
}
END_TEST

START_TEST(bad_meta_values)
{
	static const struct npuprof_db_meta_data meta[] = {
		{ "npuprof.drops", "lots" },
		{ "npuprof.sample_n", "0" },
	};
	char path[256], err[512];
	int rc;

	make_db(scratch, "msprof_20260101000000.db", 100, NPUPROF_DB_SCHEMA_1_1_1, meta, 2);
	snprintf(path, sizeof(path), "%s/msprof_20260101000000.db", scratch);
	char *r = report(path, 0, &rc, err, sizeof(err));

	ck_assert_msg(rc == 0, "%s", err);
	ck_has(r, "! npuprof.drops has a non-numeric value 'lots'");
	ck_has(r, "! npuprof.sample_n has an invalid value '0'; counts are not scaled");
	free(r);
}
END_TEST

/* 1.2.0: the numeric column is blockNum; blockDim there is a STRING_IDS id. */
START_TEST(schema_120_block_num)
{
	char path[256], err[512], want[256];
	int rc;

	make_db(scratch, "msprof_20260101000000.db", 1000, NPUPROF_DB_SCHEMA_1_2_0, NULL, 0);
	snprintf(path, sizeof(path), "%s/msprof_20260101000000.db", scratch);
	char *r = report(path, 1, &rc, err, sizeof(err));

	ck_assert_msg(rc == 0, "%s", err);
	ck_has(r, "schema 1.2.0, msprof database");
	int64_t blk = q1(path, "SELECT MAX(c.blockNum) FROM COMPUTE_TASK_INFO c JOIN TASK t "
			       "USING (globalTaskId) GROUP BY c.name "
			       "ORDER BY SUM(t.endNs - t.startNs) DESC LIMIT 1");
	ck_assert_int_gt(blk, 0);
	snprintf(want, sizeof(want), "%% %lld aclnn", (long long)blk);
	ck_contains(r, want);
	free(r);
}
END_TEST

/* A database of our writer without any data rows: every section says none. */
START_TEST(empty_msprof_database)
{
	char path[256], err[512];
	int rc;

	make_db(scratch, "msprof_20260101000000.db", 0, NPUPROF_DB_SCHEMA_1_1_1, NULL, 0);
	snprintf(path, sizeof(path), "%s/msprof_20260101000000.db", scratch);
	char *r = report(path, 0, &rc, err, sizeof(err));

	ck_assert_msg(rc == 0, "%s", err);
	ck_has(r,
	       "rows TASK 0, COMPUTE_TASK_INFO 0, CANN_API 0, COMMUNICATION_OP 0, MSTX_EVENTS 0");
	ck_has(r, "session 0.000 us (unknown: no SESSION_TIME_INFO and no tasks)");
	ck_has(r, "none (no COMPUTE_TASK_INFO or TASK table)");
	ck_has(r, "Task types (TASK)\nnone (no TASK table)");
	ck_has(r, "none (no CANN_API or TASK table)");
	ck_has(r, "none (no COMMUNICATION_OP table)");
	ck_has(r, "Framework ops (PYTORCH_API; device tasks through CONNECTION_IDS)\n"
		  "none (no PYTORCH_API table: not a PyTorch database)");
	free(r);
}
END_TEST

/* Issue 18 #6: a damaged database whose timestamps span more than int64
 * (SESSION_TIME_INFO from INT64_MIN, tasks to INT64_MAX, a task ending
 * before it starts) overflows nothing (UBSan in the sanitizer build) and
 * never prints a negative session length. */
/* Runs sql on the database at path. */
static void exec_sql(const char *path, const char *sql)
{
	sqlite3 *db;

	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK, "%s: %s", sql,
		      sqlite3_errmsg(db));
	sqlite3_close(db);
}

START_TEST(damaged_timestamps)
{
	char path[256], err[512];
	int rc;

	make_db(scratch, "msprof_20260101000000.db", 50, NPUPROF_DB_SCHEMA_1_1_1, NULL, 0);
	snprintf(path, sizeof(path), "%s/msprof_20260101000000.db", scratch);
	exec_sql(
		path,
		"CREATE TABLE IF NOT EXISTS SESSION_TIME_INFO (startTimeNs INTEGER, endTimeNs INTEGER);"
		"DELETE FROM SESSION_TIME_INFO;"
		"INSERT INTO SESSION_TIME_INFO VALUES (-9223372036854775807, -9223372036854775806);"
		"UPDATE TASK SET endNs = 9223372036854775807 WHERE rowid = 1;"
		"UPDATE TASK SET startNs = 100, endNs = 50 WHERE rowid = 2;");
	char *r = report(path, 0, &rc, err, sizeof(err));
	/* an end before its start: refused, named (issue 31 #7: it gave
	 * negative totals and a -34.7% share, exit 0) */
	ck_assert_int_eq(rc, -EBADMSG);
	ck_assert_msg(strstr(err, "TASK: 1 row with impossible times") &&
			      strstr(err, "rowid 2, startNs 100, endNs 50"),
		      "%s", err);
	ck_assert_msg(!strstr(r, " -"), "a negative figure:%s", r);
	free(r);
	/* every task ends before it starts */
	exec_sql(path, "DELETE FROM SESSION_TIME_INFO; DELETE FROM TASK WHERE rowid > 2;"
		       "UPDATE TASK SET startNs = 1000, endNs = 10;");
	r = report(path, 0, &rc, err, sizeof(err));
	ck_assert_int_eq(rc, -EBADMSG);
	ck_assert_msg(strstr(err, "TASK: 2 rows with impossible times"), "%s", err);
	free(r);
	/* a time that is not an integer (1.5e300 stored as REAL): no wrapped total */
	exec_sql(path, "UPDATE TASK SET startNs = 1000, endNs = 2000;"
		       "UPDATE TASK SET startNs = 1.5e300 WHERE rowid = 1;");
	r = report(path, 0, &rc, err, sizeof(err));
	ck_assert_int_eq(rc, -EBADMSG);
	ck_assert_msg(strstr(err, "TASK: 1 row with impossible times") &&
			      strstr(err, "rowid 1, startNs 1.5e+300"),
		      "%s", err);
	free(r);
	/* the same rows made whole again: reported */
	exec_sql(path, "UPDATE TASK SET startNs = 1000, endNs = 1000;");
	r = report(path, 0, &rc, err, sizeof(err));
	ck_assert_msg(rc == 0, "%s", err);
	ck_has(r, "session 0.000 us (first task start to last task end)");
	free(r);
	/* framework rows: TEXT times as torch_npu writes them; an end before
	 * its start or a time that is no integer is refused */
	exec_sql(path, "CREATE TABLE PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER,"
		       " connectionId INTEGER, name INTEGER, sequenceNumber INTEGER,"
		       " fwdThreadId INTEGER, inputDtypes INTEGER, inputShapes INTEGER,"
		       " callchainId INTEGER, type INTEGER);"
		       "INSERT INTO PYTORCH_API VALUES ('1000', '2000', 1, NULL, 1, -1, 0, NULL,"
		       " NULL, NULL, 50001), ('3000', '2500', 1, NULL, 1, -1, 0, NULL, NULL, NULL,"
		       " 50001);");
	r = report(path, 0, &rc, err, sizeof(err));
	ck_assert_int_eq(rc, -EBADMSG);
	ck_assert_msg(strstr(err, "PYTORCH_API: 1 row with impossible times") &&
			      strstr(err, "rowid 2, startNs 3000, endNs 2500"),
		      "%s", err);
	free(r);
	exec_sql(path, "UPDATE PYTORCH_API SET startNs = '2100x' WHERE rowid = 2;");
	r = report(path, 0, &rc, err, sizeof(err));
	ck_assert_int_eq(rc, -EBADMSG);
	free(r);
	exec_sql(path, "UPDATE PYTORCH_API SET startNs = '2100' WHERE rowid = 2;");
	r = report(path, 0, &rc, err, sizeof(err));
	ck_assert_msg(rc == 0, "%s", err);
	ck_has(r, "2 rows: 2 #50001\n2 torch ops of 1 names; 0 of them reach 0 device tasks, "
		  "0.000 us (no CONNECTION_IDS or TASK table: no links)\n"
		  "by host time (inclusive: torch ops nest):\n"
		  "count host(us) avg(us) max(us) tasks device(us) torch op\n"
		  "2 1.400 0.700 1.000 0 0.000 launch");
	free(r);
}
END_TEST

/* Issue 31 #6: control characters in STRING_IDS (clear the screen, set the
 * title, a C1 CSI) reach the terminal as \xNN, never raw. */
START_TEST(control_characters_escaped)
{
	char path[256], err[512];
	int rc;

	make_db(scratch, "msprof_20260101000000.db", 50, NPUPROF_DB_SCHEMA_1_1_1, NULL, 0);
	snprintf(path, sizeof(path), "%s/msprof_20260101000000.db", scratch);
	exec_sql(path, "UPDATE STRING_IDS SET value = value || char(27) || ']0;pwned' ||"
		       " char(7) || char(27) || '[2J' || char(155) || char(10) || 'x';"
		       "UPDATE META_DATA SET value = value || char(27) || '[2J';");

	struct npuprof_report_options opt = { .top = 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	rc = npuprof_report_write(f, path, &opt, err, sizeof(err));
	fclose(f);
	ck_assert_msg(rc == 0, "%s", err);
	for (size_t i = 0; i < len; i++)
		ck_assert_msg((unsigned char)buf[i] >= 0x20 && (unsigned char)buf[i] != 0x7f ?
				      !((unsigned char)buf[i] == 0xc2 && i + 1 < len &&
					(unsigned char)buf[i + 1] >= 0x80 &&
					(unsigned char)buf[i + 1] <= 0x9f) :
				      buf[i] == '\n',
			      "raw control character 0x%02x at %zu:\n%s", (unsigned char)buf[i], i,
			      buf);
	ck_assert_msg(strstr(buf, "\\x1b]0;pwned\\x07\\x1b[2J\\xc2\\x9b\\x0ax"), "%s", buf);
	free(buf);
}
END_TEST

START_TEST(errors)
{
	char path[256], err[512];
	sqlite3 *db;
	FILE *f;
	int rc;
	char *r;

	r = report("/nonexistent/npuprof/msprof_20260101000000.db", 0, &rc, err, sizeof(err));
	ck_assert_int_eq(rc, -ENOENT);
	ck_contains(err,
		    "/nonexistent/npuprof/msprof_20260101000000.db: No such file or directory");
	free(r);

	snprintf(path, sizeof(path), "%s/text.db", scratch);
	f = fopen(path, "w");
	for (int i = 0; i < 200; i++)
		fputs("this is not an SQLite database, just text\n", f);
	fclose(f);
	r = report(path, 0, &rc, err, sizeof(err));
	ck_assert_int_eq(rc, -EINVAL);
	ck_contains(err, path);
	ck_contains(err, "not an SQLite database");
	free(r);

	snprintf(path, sizeof(path), "%s/empty.db", scratch);
	touch(path);
	r = report(path, 0, &rc, err, sizeof(err));
	ck_assert_int_eq(rc, -EINVAL);
	ck_contains(err, "empty.db: empty file, not an msprof database");
	free(r);

	snprintf(path, sizeof(path), "%s/other.db", scratch);
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "CREATE TABLE t (x); INSERT INTO t VALUES (1)", NULL,
				      NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	r = report(path, 0, &rc, err, sizeof(err));
	ck_assert_int_eq(rc, -EINVAL);
	ck_contains(err, "other.db: an SQLite database without msprof tables");
	free(r);

	snprintf(path, sizeof(path), "%s/nodb", scratch);
	mkdir(path, 0755);
	r = report(path, 0, &rc, err, sizeof(err));
	ck_assert_int_eq(rc, -ENOENT);
	ck_contains(err, "nodb: no msprof_<14 digits>.db or ascend_pytorch_profiler*.db");
	free(r);

	/* NULL err is allowed */
	f = fopen("/dev/null", "w");
	ck_assert_int_eq(npuprof_report_write(f, "/nonexistent", NULL, NULL, 0), -ENOENT);
	fclose(f);
}
END_TEST

START_TEST(find_in_directories)
{
	char d[256], p[512], out[512], err[512], want[512];
	unsigned others;

	/* msprof-analyze's layout: the lexicographically last 14-digit name wins. */
	snprintf(d, sizeof(d), "%s/a", scratch);
	snprintf(p, sizeof(p), "%s/PROF_000001_20260101000000000_AAAA/msprof_20260101000000.db", d);
	touch(p);
	snprintf(p, sizeof(p), "%s/PROF_000001_20260101000000000_AAAA/msprof_20260102000000.db", d);
	touch(p);
	snprintf(p, sizeof(p), "%s/PROF_000001_20260101000000000_AAAA/msprof_2026.db", d);
	touch(p);
	snprintf(p, sizeof(p),
		 "%s/PROF_000002_2027/mindstudio_profiler_output/msprof_20270101000000.db", d);
	touch(p);
	snprintf(p, sizeof(p), "%s/x/y/z/msprof_20990101000000.db",
		 d); /* three levels: not searched */
	touch(p);
	ck_assert_int_eq(npuprof_report_find_db(d, out, sizeof(out), &others, err, sizeof(err)), 0);
	snprintf(want, sizeof(want),
		 "%s/PROF_000001_20260101000000000_AAAA/msprof_20260102000000.db", d);
	ck_assert_str_eq(out, want);
	ck_assert_uint_eq(others, 2);

	/* PROF directory itself, and two levels down. */
	snprintf(p, sizeof(p), "%s/PROF_000002_2027", d);
	ck_assert_int_eq(npuprof_report_find_db(p, out, sizeof(out), &others, err, sizeof(err)), 0);
	ck_contains(out, "PROF_000002_2027/mindstudio_profiler_output/msprof_20270101000000.db");
	ck_assert_uint_eq(others, 0);

	/* torch_npu's layout; an msprof DB at the same depth is preferred. */
	snprintf(d, sizeof(d), "%s/host_123_20260101_ascend_pt", scratch);
	snprintf(p, sizeof(p), "%s/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db", d);
	touch(p);
	ck_assert_int_eq(npuprof_report_find_db(d, out, sizeof(out), &others, err, sizeof(err)), 0);
	ck_assert_str_eq(out, p);
	snprintf(p, sizeof(p), "%s/PROF_000001_x/msprof_20260101000000.db", d);
	touch(p);
	ck_assert_int_eq(npuprof_report_find_db(d, out, sizeof(out), &others, err, sizeof(err)), 0);
	ck_assert_str_eq(out, p);
	ck_assert_uint_eq(others, 1);

	/* A file is taken as it is, whatever its name. */
	ck_assert_int_eq(npuprof_report_find_db(FIX_L2R0, out, sizeof(out), NULL, err, sizeof(err)),
			 0);
	ck_assert_str_eq(out, FIX_L2R0);
}
END_TEST

START_TEST(report_of_directory)
{
	char d[256], p[512], err[512], want[600];
	int rc;

	snprintf(d, sizeof(d), "%s/rank0_ascend_pt", scratch);
	snprintf(p, sizeof(p), "%s/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db", d);
	copy_file(FIX_L2R0, p);
	char *r = report(d, 0, &rc, err, sizeof(err));

	ck_assert_msg(rc == 0, "%s", err);
	snprintf(want, sizeof(want), "npuprof report: %s", p);
	ck_has(r, want);
	snprintf(want, sizeof(want), "found in %s", d);
	ck_has(r, want);
	ck_has(r, "device tasks busy(us) share\n0 552 100123.879 24.6%");
	/* read-only: the copy is byte-for-byte what it was */
	snprintf(want, sizeof(want), "cmp -s %s '%s'", FIX_L2R0, p);
	ck_assert_int_eq(system(want), 0);
	free(r);
}
END_TEST

static int run(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(command_line)
{
	if (access("build/bin/npuprof", X_OK))
		return; /* the tool is built by `make user`, before the tests run */
	ck_assert_int_eq(run("build/bin/npuprof report --help | grep -q '^examples:'"), 0);
	ck_assert_int_eq(run("build/bin/npuprof report " FIX_L2R0 " | grep -q 'hcom_allReduce_'"),
			 0);
	ck_assert_int_eq(run("build/bin/npuprof report --top 3 " FIX_L2R0
			     " | grep -q '75 more operators'"),
			 0);
	ck_assert_int_eq(run("build/bin/npuprof report /nonexistent.db 2>/dev/null"), 1);
	ck_assert_int_eq(run("build/bin/npuprof report 2>/dev/null"), 2);
	ck_assert_int_eq(run("build/bin/npuprof report --top x a.db 2>/dev/null"), 2);
	ck_assert_int_eq(run("build/bin/npuprof report /nonexistent.db 2>&1 | "
			     "grep -q '^npuprof report: /nonexistent.db: No such file'"),
			 0);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("report");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, fixture_level2_rank0);
	tcase_add_test(tc, fixture_level0_rank1);
	tcase_add_test(tc, warnings_from_meta_data);
	tcase_add_test(tc, no_warnings_when_clean);
	tcase_add_test(tc, bad_meta_values);
	tcase_add_test(tc, schema_120_block_num);
	tcase_add_test(tc, empty_msprof_database);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, damaged_timestamps);
	tcase_add_test(tc, control_characters_escaped);
	tcase_add_test(tc, find_in_directories);
	tcase_add_test(tc, report_of_directory);
	tcase_add_test(tc, command_line);
	suite_add_tcase(s, tc);
	return s;
}
