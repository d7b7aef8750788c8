/*
 * test_db_writer.c - the msprof database writer end to end: what a finished
 * file contains (META_DATA, ENUM rows, which tables exist, file name and
 * pragmas), the 1.2.0 and PyTorch options, interning and byte-exact
 * round-trips, every error path with its message, and atomicity (a killed
 * writer, an existing file, a full disk, an abandoned writer).
 */
#include <npuprof/db.h>
#include "dbgen.h"

#include "db_testutil.h"

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <utime.h>

/* 2026-11-30 12:34:56 local time. */
static time_t fixed_time(void)
{
	struct tm tm = { .tm_year = 126,
			 .tm_mon = 10,
			 .tm_mday = 30,
			 .tm_hour = 12,
			 .tm_min = 34,
			 .tm_sec = 56,
			 .tm_isdst = -1 };

	return mktime(&tm);
}

static struct npuprof_db *open_writer(const char *dir, enum npuprof_db_schema s,
				      enum npuprof_db_variant v)
{
	struct npuprof_db_options o = { .schema = s, .variant = v, .timestamp = fixed_time() };
	struct npuprof_db *w;
	char err[1024];

	ck_assert_msg(npuprof_db_open(&w, dir, &o, err, sizeof(err)) == 0, "%s", err);
	return w;
}

START_TEST(empty_database_contents)
{
	char dir[64], got[256];
	struct npuprof_db *w;
	const char *path;
	regex_t re;
	sqlite3 *db;

	scratch_dir(dir, sizeof(dir));
	w = open_writer(dir, NPUPROF_DB_SCHEMA_1_1_1, NPUPROF_DB_MSPROF);
	path = npuprof_db_path(w);
	ck_assert_str_eq(strrchr(path, '/') + 1, "msprof_20261130123456.db");
	ck_assert_int_eq(regcomp(&re, "^msprof_[0-9]{14}\\.db$", REG_EXTENDED | REG_NOSUB), 0);
	ck_assert_int_eq(regexec(&re, strrchr(path, '/') + 1, 0, NULL, 0), 0);
	regfree(&re);
	ck_assert_int_eq(access(path, F_OK), -1); /* not before finish */
	ck_assert_int_eq(count_entries(dir, ".npuprof-tmp-"), 1);
	ck_assert_int_eq(npuprof_db_finish(w), 0);
	ck_assert_int_eq(count_entries(dir, ".npuprof-tmp-"), 0);
	ck_assert_int_eq(count_entries(dir, "msprof_"), 1);

	db = open_ro(path);
	ck_assert_str_eq(q_text(db, "PRAGMA integrity_check", got, sizeof(got)), "ok");
	ck_assert_int_eq(q_int(db, "PRAGMA page_size"), 4096);
	ck_assert_str_eq(q_text(db, "PRAGMA journal_mode", got, sizeof(got)), "delete");
	ck_assert_str_eq(q_text(db, "PRAGMA encoding", got, sizeof(got)), "UTF-8");
	/* Always present: 8 ENUM tables, META_DATA, STRING_IDS and
	 * RANK_DEVICE_MAP (its default row); nothing else. */
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM sqlite_master WHERE type='table'"), 11);
	ck_assert(table_exists(db, "RANK_DEVICE_MAP"));
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM sqlite_master WHERE type='table' AND "
				   "name LIKE 'ENUM_%'"),
			 8);
	ck_assert(!table_exists(db, "TASK"));
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM sqlite_master WHERE type='index'"), 0);
	ck_assert_str_eq(q_text(db,
				"SELECT group_concat(name || '=' || value, ' ') FROM "
				"(SELECT * FROM META_DATA ORDER BY name)",
				got, sizeof(got)),
			 "SCHEMA_VERSION=1.1.1 SCHEMA_VERSION_MAJOR=1 SCHEMA_VERSION_MICRO=1 "
			 "SCHEMA_VERSION_MINOR=1");
	/* msprof's five levels only: torch_npu inserts 50001-50004 itself. */
	ck_assert_str_eq(q_text(db,
				"SELECT group_concat(id || '=' || name, ' ') FROM "
				"(SELECT * FROM ENUM_API_TYPE ORDER BY id)",
				got, sizeof(got)),
			 "5000=runtime 5500=communication 10000=node 15000=model 20000=acl");
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM ENUM_MODULE"), 78);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM ENUM_HCCL_DATA_TYPE"), 16);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM ENUM_HCCL_LINK_TYPE"), 10);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM ENUM_HCCL_TRANSPORT_TYPE"), 6);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM ENUM_HCCL_RDMA_TYPE"), 5);
	ck_assert_str_eq(q_text(db, "SELECT group_concat(name, ',') FROM ENUM_MSTX_EVENT_TYPE", got,
				sizeof(got)),
			 "marker,push/pop,start/end,marker_ex");
	ck_assert_str_eq(q_text(db, "SELECT name FROM ENUM_MEMCPY_OPERATION WHERE id=65535", got,
				sizeof(got)),
			 "other");
	ck_assert_str_eq(q_text(db, "SELECT typeof(name) FROM ENUM_MSTX_EVENT_TYPE", got,
				sizeof(got)),
			 "text");
	ck_assert_str_eq(q_text(db, "SELECT value FROM STRING_IDS WHERE id=0", got, sizeof(got)),
			 "N/A");
	sqlite3_close(db);
	npuprof_db_close(w);
	tu_rm_rf(dir);
}
END_TEST

START_TEST(pytorch_variant)
{
	char dir[64], err[1024];
	struct npuprof_db_options o = { .variant = NPUPROF_DB_PYTORCH,
					.file_name = "ascend_pytorch_profiler_0.db" };
	struct npuprof_db *w;
	sqlite3 *db;
	npuprof_db_str name;

	scratch_dir(dir, sizeof(dir));
	ck_assert_int_eq(npuprof_db_open(&w, dir, &o, err, sizeof(err)), 0);
	name = npuprof_db_intern(w, "aten::add");
	ck_assert_int_eq(npuprof_db_add_pytorch_api(w,
						    &(struct npuprof_db_pytorch_api){
							    .startNs = 10,
							    .endNs = 20,
							    .globalTid = (7LL << 32) | 8,
							    .connectionId = NPUPROF_DB_NULL,
							    .name = name,
							    .sequenceNumber = -1,
							    .inputDtypes = NPUPROF_DB_NULL,
							    .inputShapes = NPUPROF_DB_NULL,
							    .callchainId = NPUPROF_DB_NULL,
							    .type = 50001 }),
			 0);
	ck_assert_int_eq(npuprof_db_add_step_time(w, &(struct npuprof_db_step_time){ 50, 1, 2 }),
			 0);
	ck_assert_int_eq(npuprof_db_finish(w), 0);
	db = open_ro(npuprof_db_path(w));
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM ENUM_API_TYPE"), 9);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM PYTORCH_API WHERE connectionId IS NULL "
				   "AND inputDtypes IS NULL AND type=50001"),
			 1);
	ck_assert_int_eq(q_int(db, "SELECT P.endNs FROM PYTORCH_API P JOIN STRING_IDS S ON "
				   "P.name=S.id WHERE S.value='aten::add'"),
			 20);
	ck_assert_int_eq(q_int(db, "SELECT id FROM STEP_TIME"), 50);
	sqlite3_close(db);
	npuprof_db_close(w);

	/* The same table is refused in an msprof database. */
	w = open_writer(dir, NPUPROF_DB_SCHEMA_1_1_1, NPUPROF_DB_MSPROF);
	ck_assert_int_eq(npuprof_db_add_gc_record(w, &(struct npuprof_db_gc_record){ 1, 2, 3 }),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(npuprof_db_errmsg(w), "GC_RECORD does not exist in a msprof"));
	npuprof_db_close(w);
	tu_rm_rf(dir);
}
END_TEST

START_TEST(schema_120_option)
{
	char dir[64], got[512];
	struct npuprof_db *w;
	sqlite3 *db;
	npuprof_db_str dim;

	scratch_dir(dir, sizeof(dir));
	w = open_writer(dir, NPUPROF_DB_SCHEMA_1_2_0, NPUPROF_DB_MSPROF);
	dim = npuprof_db_intern(w, "(16,1,1)");
	ck_assert_int_eq(npuprof_db_add_npu_info(w,
						 &(struct npuprof_db_npu_info){ 0, "Ascend910B" }),
			 0);
	ck_assert_int_eq(npuprof_db_add_npu_info(w,
						 &(struct npuprof_db_npu_info){ 3, "Ascend910B" }),
			 0);
	ck_assert_int_eq(npuprof_db_add_compute_task_info(
				 w, &(struct npuprof_db_compute_task_info){ .globalTaskId = 0,
									    .blockDim = 24,
									    .mixBlockDim = 0,
									    .gridDim = dim,
									    .blockDimStr = dim }),
			 0);
	ck_assert_int_eq(npuprof_db_add_communication_op(
				 w,
				 &(struct npuprof_db_communication_op){
					 .opId = 1, .count = 10, .deviceId = 3, .rankSize = 2 }),
			 0);
	ck_assert_int_eq(npuprof_db_finish(w), 0);
	db = open_ro(npuprof_db_path(w));
	ck_assert_str_eq(q_text(db, "SELECT value FROM META_DATA WHERE name='SCHEMA_VERSION'", got,
				sizeof(got)),
			 "1.2.0");
	ck_assert_str_eq(q_text(db, "SELECT value FROM META_DATA WHERE name='SCHEMA_VERSION_MINOR'",
				got, sizeof(got)),
			 "2");
	ck_assert_int_eq(q_int(db, "SELECT blockNum FROM COMPUTE_TASK_INFO"), 24);
	ck_assert_str_eq(q_text(db,
				"SELECT S.value FROM COMPUTE_TASK_INFO C JOIN STRING_IDS S ON "
				"C.blockDim=S.id",
				got, sizeof(got)),
			 "(16,1,1)");
	ck_assert_str_eq(q_text(db,
				"SELECT S.value FROM COMPUTE_TASK_INFO C JOIN STRING_IDS S ON "
				"C.opState=S.id",
				got, sizeof(got)),
			 "N/A");
	ck_assert_int_eq(q_int(db, "SELECT rankSize * 10 + deviceId FROM COMMUNICATION_OP"), 23);
	/* Default RANK_DEVICE_MAP: rank -1 for each NPU_INFO device. */
	ck_assert_str_eq(q_text(db,
				"SELECT group_concat(rankId || ':' || deviceId, ' ') FROM "
				"RANK_DEVICE_MAP",
				got, sizeof(got)),
			 "-1:0 -1:3");
	sqlite3_close(db);
	npuprof_db_close(w);
	tu_rm_rf(dir);

	/* No devices: (-1, -1). */
	scratch_dir(dir, sizeof(dir));
	w = open_writer(dir, NPUPROF_DB_SCHEMA_1_2_0, NPUPROF_DB_MSPROF);
	ck_assert_int_eq(npuprof_db_finish(w), 0);
	db = open_ro(npuprof_db_path(w));
	ck_assert_str_eq(q_text(db, "SELECT rankId || ':' || deviceId FROM RANK_DEVICE_MAP", got,
				sizeof(got)),
			 "-1:-1");
	sqlite3_close(db);
	npuprof_db_close(w);
	tu_rm_rf(dir);
	/* Every schema has it (the default 1.1.1 too), and a caller's rows win
	 * over the default. */
	scratch_dir(dir, sizeof(dir));
	w = open_writer(dir, NPUPROF_DB_SCHEMA_1_1_1, NPUPROF_DB_MSPROF);
	ck_assert_int_eq(npuprof_db_add_npu_info(w,
						 &(struct npuprof_db_npu_info){ 2, "Ascend910B" }),
			 0);
	ck_assert_int_eq(
		npuprof_db_add_rank_device_map(w, &(struct npuprof_db_rank_device_map){ 3, 2 }), 0);
	ck_assert_int_eq(npuprof_db_finish(w), 0);
	db = open_ro(npuprof_db_path(w));
	ck_assert_str_eq(q_text(db,
				"SELECT group_concat(rankId || ':' || deviceId, ' ') FROM "
				"RANK_DEVICE_MAP",
				got, sizeof(got)),
			 "3:2");
	sqlite3_close(db);
	npuprof_db_close(w);
	tu_rm_rf(dir);
	scratch_dir(dir, sizeof(dir));
	w = open_writer(dir, NPUPROF_DB_SCHEMA_1_1_1, NPUPROF_DB_MSPROF);
	ck_assert_int_eq(npuprof_db_finish(w), 0);
	db = open_ro(npuprof_db_path(w));
	ck_assert_str_eq(q_text(db, "SELECT rankId || ':' || deviceId FROM RANK_DEVICE_MAP", got,
				sizeof(got)),
			 "-1:-1");
	sqlite3_close(db);
	npuprof_db_close(w);
	tu_rm_rf(dir);
}
END_TEST

/* torch_npu treats STRING_IDS id 0 as "not found" when it looks up launch. */
START_TEST(launch_never_id_zero)
{
	char dir[64];
	struct npuprof_db *w;
	npuprof_db_str launch;
	sqlite3 *db;

	scratch_dir(dir, sizeof(dir));
	w = open_writer(dir, NPUPROF_DB_SCHEMA_1_1_1, NPUPROF_DB_MSPROF);
	launch = npuprof_db_intern(w, "launch");
	ck_assert_int_gt(launch, 0);
	ck_assert_int_eq(npuprof_db_intern(w, "launch"), launch);
	ck_assert_int_eq(npuprof_db_intern(w, "N/A"), NPUPROF_DB_STR_NA);
	ck_assert_int_eq(npuprof_db_intern(w, "KernelLaunch"), launch + 1);
	ck_assert_int_eq(npuprof_db_add_cann_api(w, &(struct npuprof_db_cann_api){ 1, 2, 10000,
										   (5LL << 32) | 6,
										   77, launch }),
			 0);
	ck_assert_int_eq(npuprof_db_finish(w), 0);
	db = open_ro(npuprof_db_path(w));
	ck_assert_int_eq(q_int(db, "SELECT id FROM STRING_IDS WHERE value='launch'"), launch);
	ck_assert_int_eq(q_int(db,
			       "SELECT connectionId FROM CANN_API WHERE type=10000 AND name="
			       "(SELECT id FROM STRING_IDS WHERE value='launch') ORDER BY startNs"),
			 77);
	/* Dense ids from 0. */
	ck_assert_int_eq(q_int(db, "SELECT max(id) + 1 - count(*) FROM STRING_IDS"), 0);
	sqlite3_close(db);
	npuprof_db_close(w);
	tu_rm_rf(dir);
}
END_TEST

START_TEST(awkward_values_round_trip)
{
	static const char nul[] = "a\0b\0c";
	const char *quoted = "\"32,1,224,224\";'x'\"\"; DROP TABLE TASK; --";
	const char *cjk = "算子 aclnnInplaceRelu_Relu_Relu – ü ✓";
	size_t big = 3 << 20;
	char *longs = malloc(big + 1), dir[64], got[256];
	struct npuprof_db *w;
	npuprof_db_str id_nul, id_q, id_cjk, id_long, id_empty;
	sqlite3 *db;
	sqlite3_stmt *s;

	for (size_t i = 0; i < big; i++)
		longs[i] = (char)('a' + i % 26);
	longs[big] = '\0';
	scratch_dir(dir, sizeof(dir));
	w = open_writer(dir, NPUPROF_DB_SCHEMA_1_1_1, NPUPROF_DB_MSPROF);
	id_nul = npuprof_db_intern_n(w, nul, sizeof(nul) - 1);
	id_q = npuprof_db_intern(w, quoted);
	id_cjk = npuprof_db_intern(w, cjk);
	id_long = npuprof_db_intern(w, longs);
	id_empty = npuprof_db_intern(w, "");
	ck_assert_int_ne(id_nul, npuprof_db_intern(w, "a"));
	ck_assert_int_eq(npuprof_db_add_host_info(w, &(struct npuprof_db_host_info){ quoted, cjk }),
			 0);
	ck_assert_int_eq(npuprof_db_add_communication_task_info(
				 w,
				 &(struct npuprof_db_communication_task_info){
					 .name = id_q,
					 .groupName = id_cjk,
					 .notifyId = -1 /* uint64 max as SQLite reads it */,
					 .dstRank = NPUPROF_DB_U32_INVALID,
					 .taskType = id_empty }),
			 0);
	ck_assert_int_eq(npuprof_db_add_llc(w, &(struct npuprof_db_llc){ .hitRate = NAN,
									 .throughput = 1.5,
									 .mode = id_long }),
			 0);
	ck_assert_int_eq(npuprof_db_finish(w), 0);

	db = open_ro(npuprof_db_path(w));
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT value FROM STRING_IDS WHERE id=?", -1, &s,
					    NULL),
			 SQLITE_OK);
	sqlite3_bind_int64(s, 1, id_nul);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_bytes(s, 0), (int)sizeof(nul) - 1);
	ck_assert_int_eq(memcmp(sqlite3_column_blob(s, 0), nul, sizeof(nul) - 1), 0);
	sqlite3_reset(s);
	sqlite3_bind_int64(s, 1, id_long);
	ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_bytes(s, 0), (int)big);
	ck_assert_int_eq(memcmp(sqlite3_column_text(s, 0), longs, big), 0);
	sqlite3_finalize(s);
	ck_assert_str_eq(q_text(db, "SELECT hostUid FROM HOST_INFO", got, sizeof(got)), quoted);
	ck_assert_str_eq(q_text(db, "SELECT hostName FROM HOST_INFO", got, sizeof(got)), cjk);
	ck_assert_str_eq(q_text(db,
				"SELECT S.value FROM COMMUNICATION_TASK_INFO C JOIN STRING_IDS S "
				"ON C.name=S.id",
				got, sizeof(got)),
			 quoted);
	ck_assert_str_eq(q_text(db,
				"SELECT S.value FROM COMMUNICATION_TASK_INFO C JOIN STRING_IDS S "
				"ON C.groupName=S.id",
				got, sizeof(got)),
			 cjk);
	ck_assert_int_eq(q_int(db, "SELECT length(S.value) FROM COMMUNICATION_TASK_INFO C JOIN "
				   "STRING_IDS S ON C.taskType=S.id"),
			 0);
	ck_assert_int_eq(q_int(db, "SELECT notifyId FROM COMMUNICATION_TASK_INFO"), -1);
	ck_assert_int_eq(q_int(db, "SELECT dstRank FROM COMMUNICATION_TASK_INFO"), 4294967295LL);
	ck_assert_int_eq(q_int(db, "SELECT hitRate IS NULL FROM LLC"), 1);
	ck_assert_str_eq(q_text(db, "SELECT typeof(throughput) || ':' || throughput FROM LLC", got,
				sizeof(got)),
			 "real:1.5");
	sqlite3_close(db);
	npuprof_db_close(w);
	free(longs);
	tu_rm_rf(dir);
}
END_TEST

START_TEST(open_errors_name_the_path)
{
	char err[1024], dir[64], file[128];
	struct npuprof_db *w = (void *)1;
	struct npuprof_db_options bad = { .schema = (enum npuprof_db_schema)7 };
	struct npuprof_db_options badname = { .file_name = "../escape.db" };
	FILE *f;

	ck_assert_int_eq(npuprof_db_open(&w, "/nonexistent/npuprof/out", NULL, err, sizeof(err)),
			 -ENOENT);
	ck_assert_ptr_null(w);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/npuprof/out"));
	ck_assert_ptr_nonnull(strstr(err, "No such file or directory"));

	scratch_dir(dir, sizeof(dir));
	snprintf(file, sizeof(file), "%s/plainfile", dir);
	f = fopen(file, "w");
	fclose(f);
	ck_assert_int_eq(npuprof_db_open(&w, file, NULL, err, sizeof(err)), -ENOTDIR);
	ck_assert_ptr_nonnull(strstr(err, file));

	/* Not writable even for root. */
	ck_assert_int_lt(npuprof_db_open(&w, "/proc/self", NULL, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "cannot create a temporary database in /proc/self"));

	ck_assert_int_eq(npuprof_db_open(&w, dir, &bad, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "schema"));
	ck_assert_int_eq(npuprof_db_open(&w, dir, &badname, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "../escape.db"));
	ck_assert_int_eq(npuprof_db_open(&w, NULL, NULL, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(npuprof_db_open(NULL, dir, NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(count_entries(dir, ".npuprof-tmp-"), 0);
	tu_rm_rf(dir);
}
END_TEST

START_TEST(insert_errors)
{
	char dir[64];
	struct npuprof_db *w;
	struct npuprof_db_task task = { 0 };
	struct npuprof_db_cann_api api = { .connectionId = 5 };

	scratch_dir(dir, sizeof(dir));
	w = open_writer(dir, NPUPROF_DB_SCHEMA_1_1_1, NPUPROF_DB_MSPROF);
	ck_assert_int_eq(npuprof_db_insert(w, (enum npuprof_db_table)999, &task, sizeof(task)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(npuprof_db_errmsg(w), "invalid table id 999"));
	ck_assert_int_eq(npuprof_db_insert(w, (enum npuprof_db_table) - 1, &task, sizeof(task)),
			 -EINVAL);
	/* A struct of another table: the size gives it away. */
	ck_assert_int_eq(npuprof_db_insert(w, NPUPROF_DB_TASK, &api, sizeof(api)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(npuprof_db_errmsg(w), "TASK: row of 48 bytes, expected 88"));
	ck_assert_int_eq(npuprof_db_insert(w, NPUPROF_DB_TASK, NULL, sizeof(task)), -EINVAL);
	task.taskType = 12345;
	ck_assert_int_eq(npuprof_db_add_task(w, &task), -EINVAL);
	ck_assert_ptr_nonnull(strstr(npuprof_db_errmsg(w), "TASK.taskType: string id 12345"));
	task.taskType = -3;
	ck_assert_int_eq(npuprof_db_add_task(w, &task), -EINVAL);
	ck_assert_int_eq(npuprof_db_add_string_ids(w, &(struct npuprof_db_string_ids){ 1, "x" }),
			 -EPERM);
	ck_assert_ptr_nonnull(
		strstr(npuprof_db_errmsg(w), "STRING_IDS is written by the database"));
	ck_assert_int_eq(npuprof_db_add_enum_api_type(w,
						      &(struct npuprof_db_enum_api_type){ 1, "x" }),
			 -EPERM);
	ck_assert_int_eq(npuprof_db_add_meta_data(w,
						  &(struct npuprof_db_meta_data){ "SCHEMA_VERSION",
										  "9" }),
			 -EPERM);
	ck_assert_int_eq(npuprof_db_add_meta_data(w,
						  &(struct npuprof_db_meta_data){ "ENV_VARIABLES",
										  "{}" }),
			 0);
	ck_assert_int_eq(npuprof_db_intern(w, NULL), -EINVAL);
	/* Argument errors leave the writer usable. */
	task.taskType = 0;
	ck_assert_int_eq(npuprof_db_add_task(w, &task), 0);
	ck_assert_int_eq(npuprof_db_add_cann_api(w, &api), 0);
	/* A duplicate primary key poisons it: the file is never published. */
	ck_assert_int_eq(npuprof_db_add_cann_api(w, &api), -EINVAL);
	ck_assert_ptr_nonnull(strstr(npuprof_db_errmsg(w), "UNIQUE constraint failed: "
							   "CANN_API.connectionId"));
	ck_assert_ptr_nonnull(strstr(npuprof_db_errmsg(w), dir));
	ck_assert_int_eq(npuprof_db_add_task(w, &task), -EINVAL);
	ck_assert_int_eq(npuprof_db_finish(w), -EINVAL);
	ck_assert_int_eq(count_entries(dir, "msprof_"), 0);
	ck_assert_int_eq(count_entries(dir, ".npuprof-tmp-"), 0);
	npuprof_db_close(w);
	ck_assert_int_eq(npuprof_db_insert(NULL, NPUPROF_DB_TASK, &task, sizeof(task)), -EINVAL);
	ck_assert_int_eq(npuprof_db_finish(NULL), -EINVAL);
	tu_rm_rf(dir);
}
END_TEST

/* A writer killed mid-build leaves no msprof_*.db; the next run succeeds and
 * removes the dead writer's temporary once it is old. */
START_TEST(killed_writer_leaves_no_database)
{
	char dir[64], tmp[512];
	int pfd[2];
	pid_t pid;
	char c;
	struct npuprof_db *w;
	struct utimbuf old = { 1000000000, 1000000000 };
	DIR *d;
	struct dirent *de;

	scratch_dir(dir, sizeof(dir));
	ck_assert_int_eq(pipe(pfd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct npuprof_db_task t = { 0 };
		struct npuprof_db *cw;

		if (npuprof_db_open(&cw, dir, NULL, NULL, 0))
			_exit(1);
		for (int i = 0; i < 200000; i++) {
			t.globalTaskId = i;
			if (npuprof_db_add_task(cw, &t))
				_exit(1);
			if (i == 100000 && write(pfd[1], "x", 1) != 1)
				_exit(1);
		}
		pause();
		_exit(0);
	}
	close(pfd[1]);
	ck_assert_int_eq(read(pfd[0], &c, 1), 1);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(pfd[0]);
	ck_assert_int_eq(count_entries(dir, "msprof_"), 0);
	ck_assert_int_eq(count_entries(dir, ".npuprof-tmp-"), 1);

	/* A second run succeeds next to the leftover (still young: kept). */
	w = open_writer(dir, NPUPROF_DB_SCHEMA_1_1_1, NPUPROF_DB_MSPROF);
	ck_assert_int_eq(npuprof_db_finish(w), 0);
	npuprof_db_close(w);
	ck_assert_int_eq(count_entries(dir, "msprof_"), 1);
	ck_assert_int_eq(count_entries(dir, ".npuprof-tmp-"), 1);

	/* Once old and unlocked, the next writer removes it. */
	d = opendir(dir);
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, ".npuprof-tmp-", 13)) {
			snprintf(tmp, sizeof(tmp), "%s/%s", dir, de->d_name);
			ck_assert_int_eq(utime(tmp, &old), 0);
		}
	closedir(d);
	w = open_writer(dir, NPUPROF_DB_SCHEMA_1_1_1, NPUPROF_DB_MSPROF);
	ck_assert_int_eq(count_entries(dir, ".npuprof-tmp-"), 1); /* its own */
	npuprof_db_close(w);
	ck_assert_int_eq(count_entries(dir, ".npuprof-tmp-"), 0);
	tu_rm_rf(dir);
}
END_TEST

/* An existing database is never clobbered unless asked, and then atomically. */
START_TEST(existing_file_not_clobbered)
{
	char dir[64], path[256], buf[16] = "";
	struct npuprof_db_options o = { .file_name = "msprof_20260101000000.db" };
	struct npuprof_db *w;
	FILE *f;
	sqlite3 *db;

	scratch_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/%s", dir, o.file_name);
	f = fopen(path, "w");
	fputs("previous", f);
	fclose(f);
	ck_assert_int_eq(npuprof_db_open(&w, dir, &o, NULL, 0), 0);
	ck_assert_int_eq(npuprof_db_finish(w), -EEXIST);
	ck_assert_ptr_nonnull(strstr(npuprof_db_errmsg(w), path));
	ck_assert_ptr_nonnull(strstr(npuprof_db_errmsg(w), "already exists"));
	npuprof_db_close(w);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	ck_assert_str_eq(buf, "previous");
	ck_assert_int_eq(count_entries(dir, ".npuprof-tmp-"), 0);

	o.flags = NPUPROF_DB_REPLACE;
	ck_assert_int_eq(npuprof_db_open(&w, dir, &o, NULL, 0), 0);
	ck_assert_int_eq(npuprof_db_finish(w), 0);
	ck_assert_int_eq(npuprof_db_finish(w), -EINVAL); /* only once */
	npuprof_db_close(w);
	db = open_ro(path);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM META_DATA"), 4);
	sqlite3_close(db);
	tu_rm_rf(dir);
}
END_TEST

/* Closing without finish: nothing left behind. */
START_TEST(abandoned_writer_cleans_up)
{
	char dir[64];
	struct npuprof_db *w;
	struct npuprof_dbgen_params p = { .tasks = 5000 };

	scratch_dir(dir, sizeof(dir));
	w = open_writer(dir, NPUPROF_DB_SCHEMA_1_1_1, NPUPROF_DB_MSPROF);
	ck_assert_int_eq(npuprof_dbgen_to_db(w, &p), 0);
	ck_assert_uint_eq(npuprof_db_row_count(w, NPUPROF_DB_TASK), 5000);
	npuprof_db_close(w);
	ck_assert_int_eq(count_entries(dir, ""), 2); /* "." and ".." */
	tu_rm_rf(dir);
}
END_TEST

/* A full disk (a file-size limit here) fails with the path and leaves nothing. */
START_TEST(disk_full)
{
	char dir[64];
	pid_t pid;
	int status;

	scratch_dir(dir, sizeof(dir));
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit rl = { 512 * 1024, 512 * 1024 };
		struct npuprof_dbgen_params p = { .tasks = 200000 };
		struct npuprof_db *w;
		int r;

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		if (npuprof_db_open(&w, dir, NULL, NULL, 0))
			_exit(10);
		r = npuprof_dbgen_to_db(w, &p);
		if (!r)
			r = npuprof_db_finish(w);
		if (r == 0)
			_exit(11);
		if (!strstr(npuprof_db_errmsg(w), dir) ||
		    !strstr(npuprof_db_errmsg(w), ".npuprof-tmp-"))
			_exit(12);
		fprintf(stderr, "disk full reported as: %s (%d)\n", npuprof_db_errmsg(w), r);
		npuprof_db_close(w);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_eq(count_entries(dir, "msprof_"), 0);
	ck_assert_int_eq(count_entries(dir, ".npuprof-tmp-"), 0);
	tu_rm_rf(dir);
}
END_TEST

/* NPUPROF_DB_THREADED: the same file as the plain writer (every table's
 * rows in order); a SQLite failure on the writer thread reaches the caller
 * by a later call and nothing is published; a full disk too. */
static char *dump_db(const char *path)
{
	char cmd[8600], *buf = NULL;
	size_t len = 0;
	FILE *f, *m = open_memstream(&buf, &len);
	int c;

	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' .dump", path);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	ck_assert_int_eq(pclose(f), 0);
	fclose(m);
	return buf;
}

/* A value of a column: runs of repeats, NULLs, and values coming back
 * (the writers bind a parameter only when its value changes). */
static int64_t pattern(int i, int col)
{
	int run = (i / (col + 2)) % 4;

	return run == 0 ? NPUPROF_DB_NULL : run == 3 ? 7 : (int64_t)(run * 1000 + (i % (col + 5)));
}

/* Every row as written, on the caller's thread and on the writer thread
 * (32 rows a step there), with values that repeat, turn NULL and come back. */
START_TEST(repeated_values)
{
	for (int k = 0; k < 2; k++) {
		struct npuprof_db_options o = { .timestamp = fixed_time(),
						.flags = k ? NPUPROF_DB_THREADED : 0 };
		struct npuprof_db *w;
		npuprof_db_str str[2];
		char dir[64];
		sqlite3 *db;
		sqlite3_stmt *s;
		int n = 0;

		scratch_dir(dir, sizeof(dir));
		ck_assert_int_eq(npuprof_db_open(&w, dir, &o, NULL, 0), 0);
		str[0] = npuprof_db_intern(w, "A");
		str[1] = npuprof_db_intern(w, "B");
		for (int i = 0; i < 3000; i++) {
			struct npuprof_db_task t = {
				.startNs = i,
				.endNs = pattern(i, 0),
				.deviceId = pattern(i, 1),
				.connectionId = pattern(i, 2),
				.globalTaskId = i,
				.globalPid = pattern(i, 3),
				.taskType = pattern(i, 4) == NPUPROF_DB_NULL ? NPUPROF_DB_NULL :
									       str[(i / 9) % 2],
				.contextId = pattern(i, 5),
				.streamId = pattern(i, 6),
				.taskId = pattern(i, 7),
				.modelId = pattern(i, 40),
			};

			ck_assert_int_eq(npuprof_db_insert(w, NPUPROF_DB_TASK, &t, sizeof(t)), 0);
		}
		ck_assert_int_eq(npuprof_db_finish(w), 0);
		db = open_ro(npuprof_db_path(w));
		ck_assert_int_eq(
			sqlite3_prepare_v2(db,
					   "SELECT startNs, endNs, deviceId, connectionId, "
					   "globalTaskId, globalPid, taskType, contextId, "
					   "streamId, taskId, modelId FROM TASK ORDER BY rowid",
					   -1, &s, NULL),
			SQLITE_OK);
		while (sqlite3_step(s) == SQLITE_ROW) {
			int i = n++;
			int64_t want[11] = { i,
					     pattern(i, 0),
					     pattern(i, 1),
					     pattern(i, 2),
					     i,
					     pattern(i, 3),
					     pattern(i, 4) == NPUPROF_DB_NULL ? NPUPROF_DB_NULL :
										str[(i / 9) % 2],
					     pattern(i, 5),
					     pattern(i, 6),
					     pattern(i, 7),
					     pattern(i, 40) };

			for (int c = 0; c < 11; c++) {
				if (want[c] == NPUPROF_DB_NULL)
					ck_assert_msg(sqlite3_column_type(s, c) == SQLITE_NULL,
						      "row %d column %d: not NULL", i, c);
				else
					ck_assert_msg(sqlite3_column_type(s, c) == SQLITE_INTEGER &&
							      sqlite3_column_int64(s, c) == want[c],
						      "row %d column %d: %lld, want %lld", i, c,
						      (long long)sqlite3_column_int64(s, c),
						      (long long)want[c]);
			}
		}
		ck_assert_int_eq(n, 3000);
		sqlite3_finalize(s);
		sqlite3_close(db);
		npuprof_db_close(w);
		tu_rm_rf(dir);
	}
}
END_TEST

START_TEST(threaded_writer)
{
	char dir[64], path[2][4200];
	struct npuprof_dbgen_params p = { .tasks = 20000 };
	struct npuprof_db_options o = { .timestamp = fixed_time() };
	struct npuprof_db_cann_api api = { 1, 2, 3, 4, 5, 0 };
	struct npuprof_db *w;
	char *d[2];
	int r = 0;

	for (int k = 0; k < 2; k++) {
		scratch_dir(dir, sizeof(dir));
		o.flags = k ? NPUPROF_DB_THREADED : 0;
		ck_assert_int_eq(npuprof_db_open(&w, dir, &o, NULL, 0), 0);
		ck_assert_int_eq(npuprof_dbgen_to_db(w, &p), 0);
		ck_assert_uint_eq(npuprof_db_row_count(w, NPUPROF_DB_TASK), 20000);
		ck_assert_int_eq(npuprof_db_finish(w), 0);
		snprintf(path[k], sizeof(path[k]), "%s", npuprof_db_path(w));
		npuprof_db_close(w);
		d[k] = dump_db(path[k]);
	}
	ck_assert_uint_gt(strlen(d[0]), 100000);
	ck_assert_str_eq(d[0], d[1]);
	free(d[0]);
	free(d[1]);

	/* a duplicate primary key, found on the thread */
	scratch_dir(dir, sizeof(dir));
	o.flags = NPUPROF_DB_THREADED;
	ck_assert_int_eq(npuprof_db_open(&w, dir, &o, NULL, 0), 0);
	ck_assert_int_eq(npuprof_db_add_cann_api(w, &api), 0);
	/* a bad string id is still refused at once, and leaves it usable */
	api.name = 12345;
	ck_assert_int_eq(npuprof_db_add_cann_api(w, &api), -EINVAL);
	ck_assert_ptr_nonnull(strstr(npuprof_db_errmsg(w), "CANN_API.name: string id 12345"));
	api.name = 0;
	for (int i = 0; i < 10000 && r == 0; i++)
		r = npuprof_db_add_cann_api(w, &api); /* the same key again */
	if (r == 0)
		r = npuprof_db_finish(w);
	ck_assert_int_eq(r, -EINVAL);
	ck_assert_ptr_nonnull(strstr(npuprof_db_errmsg(w), "UNIQUE constraint failed: "
							   "CANN_API.connectionId"));
	ck_assert_int_eq(npuprof_db_finish(w), -EINVAL);
	npuprof_db_close(w);
	ck_assert_int_eq(count_entries(dir, "msprof_"), 0);
	ck_assert_int_eq(count_entries(dir, ".npuprof-tmp-"), 0);
	tu_rm_rf(dir);

	/* a full disk on the thread */
	scratch_dir(dir, sizeof(dir));
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit rl = { 512 * 1024, 512 * 1024 };
		struct npuprof_dbgen_params big = { .tasks = 200000 };

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		if (npuprof_db_open(&w, dir, &o, NULL, 0))
			_exit(10);
		r = npuprof_dbgen_to_db(w, &big);
		if (!r)
			r = npuprof_db_finish(w);
		if (r == 0)
			_exit(11);
		if (!strstr(npuprof_db_errmsg(w), ".npuprof-tmp-"))
			_exit(12);
		npuprof_db_close(w);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	ck_assert_int_eq(count_entries(dir, "msprof_"), 0);
	ck_assert_int_eq(count_entries(dir, ".npuprof-tmp-"), 0);
	tu_rm_rf(dir);
}
END_TEST

/* torch_npu's string bases (§4.2): each space dense from its base, apart
 * from the CANN ids; an id not handed out in its space is refused, in the
 * threaded writer too; STRING_IDS holds every space. */
START_TEST(string_spaces)
{
	for (int threaded = 0; threaded < 2; threaded++) {
		char dir[64], err[1024];
		struct npuprof_db_options o = { .variant = NPUPROF_DB_PYTORCH,
						.file_name = "ascend_pytorch_profiler.db",
						.flags = threaded ? NPUPROF_DB_THREADED : 0 };
		struct npuprof_db *w;
		struct npuprof_db_pytorch_api row = { .startNs = 1,
						      .endNs = 2,
						      .connectionId = NPUPROF_DB_NULL,
						      .sequenceNumber = -1,
						      .inputDtypes = NPUPROF_DB_NULL,
						      .inputShapes = NPUPROF_DB_NULL,
						      .callchainId = NPUPROF_DB_NULL,
						      .type = 50001 };
		sqlite3 *db;

		scratch_dir(dir, sizeof(dir));
		ck_assert_int_eq(npuprof_db_open(&w, dir, &o, err, sizeof(err)), 0);
		ck_assert_int_eq(npuprof_db_intern_space(w, NPUPROF_DB_SPACE_FWK, "a", 1),
				 268435456);
		ck_assert_int_eq(npuprof_db_intern_space(w, NPUPROF_DB_SPACE_FWK, "b\0c", 3),
				 268435457);
		ck_assert_int_eq(npuprof_db_intern_space(w, NPUPROF_DB_SPACE_FWK, "a", 1),
				 268435456);
		ck_assert_int_eq(npuprof_db_intern_space(w, NPUPROF_DB_SPACE_MEMORY, "a", 1),
				 536870912);
		ck_assert_int_eq(npuprof_db_intern_space(w, NPUPROF_DB_SPACE_CANN, "a", 1), 1);
		ck_assert_int_eq(npuprof_db_intern(w, "a"), 1);
		ck_assert_int_eq(npuprof_db_intern_space(w, (enum npuprof_db_space)3, "a", 1),
				 -EINVAL);
		ck_assert_int_eq(npuprof_db_intern_space(w, NPUPROF_DB_SPACE_FWK, NULL, 0),
				 -EINVAL);
		row.name = 268435458; /* not handed out */
		ck_assert_int_eq(npuprof_db_add_pytorch_api(w, &row), -EINVAL);
		ck_assert_ptr_nonnull(strstr(npuprof_db_errmsg(w), "string id 268435458"));
		row.name = 536870913;
		ck_assert_int_eq(npuprof_db_add_pytorch_api(w, &row), -EINVAL);
		row.name = 2; /* past the CANN ids */
		ck_assert_int_eq(npuprof_db_add_pytorch_api(w, &row), -EINVAL);
		row.name = 268435457;
		ck_assert_int_eq(npuprof_db_add_pytorch_api(w, &row), 0);
		row.name = 536870912;
		ck_assert_int_eq(npuprof_db_add_pytorch_api(w, &row), 0);
		ck_assert_int_eq(npuprof_db_finish(w), 0);
		db = open_ro(npuprof_db_path(w));
		ck_assert_int_eq(q_int(db, "SELECT count(*) FROM STRING_IDS"), 5);
		ck_assert_int_eq(q_int(db, "SELECT count(*) FROM STRING_IDS WHERE id = 268435457"
					   " AND value = CAST(X'620063' AS TEXT)"),
				 1);
		ck_assert_int_eq(q_int(db, "SELECT count(*) FROM PYTORCH_API p JOIN STRING_IDS s"
					   " ON s.id = p.name WHERE s.value = 'a'"),
				 1);
		ck_assert_uint_eq(npuprof_db_row_count(w, NPUPROF_DB_STRING_IDS), 5);
		sqlite3_close(db);
		npuprof_db_close(w);
		tu_rm_rf(dir);
	}
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("db_writer");
	TCase *tc = tcase_create("writer");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, empty_database_contents);
	tcase_add_test(tc, pytorch_variant);
	tcase_add_test(tc, string_spaces);
	tcase_add_test(tc, schema_120_option);
	tcase_add_test(tc, launch_never_id_zero);
	tcase_add_test(tc, awkward_values_round_trip);
	tcase_add_test(tc, open_errors_name_the_path);
	tcase_add_test(tc, insert_errors);
	tcase_add_test(tc, killed_writer_leaves_no_database);
	tcase_add_test(tc, existing_file_not_clobbered);
	tcase_add_test(tc, abandoned_writer_cleans_up);
	tcase_add_test(tc, disk_full);
	tcase_add_test(tc, threaded_writer);
	tcase_add_test(tc, repeated_values);
	suite_add_tcase(s, tc);
	return s;
}
