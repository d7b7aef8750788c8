/*
 * test_cannrec_e2e.c - the whole path of issue 25's "done when": a program
 * compiled only against the reporter ABI headers (tests/profapi/cann_app.c,
 * -Iinclude/profiling) and linked to our libprofapi.so reports as libruntime,
 * libascendcl and HCCL do, under the environment-started session of
 * `npuprof record` (NPUPROF_OUTPUT_DIR); the host-only session's database
 * is checked row by row: CANN_API, TASK with connectionIds, COMPUTE_TASK_INFO,
 * MEMCPY_INFO, COMMUNICATION_OP and COMMUNICATION_TASK_INFO.
 *
 * Three times: linked to npuprof's libprofapi.so (the native route);
 * attached (`npuprof record --attach`): the program keeps a libprofapi.so
 * that is not npuprof's (tests/profapi/cann_profapi.c, CANN's collector
 * route) and libnpuprof_attach.so is preloaded; and natively with the
 * attach library preloaded all the same, which must then stay off (one
 * host stream). The same database must come out each time.
 */
#include <check.h>
#include <dlfcn.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "npuprof/export.h"
#include "npuprof/session.h"
#include "db_testutil.h"

static char g_parent[256];
static struct npuprof_session g_s;
static sqlite3 *g_db;
static unsigned g_tid[2];

/* one value of a query on g_db */
#define q(...) q_intf(g_db, __VA_ARGS__)
static char g_txt[1024];
#define qs(...) q_textf(g_db, g_txt, sizeof(g_txt), __VA_ARGS__)

/* LD_PRELOAD=lib, after the sanitizer runtime when this test has one (the
 * asan build: its runtime must come first in the program's libraries). */
static void preload(const char *lib)
{
	char v[2 * PATH_MAX + 2];
	void *asan = dlsym(RTLD_DEFAULT, "__asan_init");
	Dl_info di;

	if (asan && dladdr(asan, &di) && di.dli_fname && strchr(di.dli_fname, '/'))
		snprintf(v, sizeof(v), "%s:%s", di.dli_fname, lib);
	else
		snprintf(v, sizeof(v), "%s", lib);
	setenv("LD_PRELOAD", v, 1);
}

/* Runs cann_app (next to this binary: ../profapi/cann_app) recording into
 * the session directory; mode 1: over ../cannlib/libprofapi.so, and
 * mode 1 or 2: with ../../lib/libnpuprof_attach.so preloaded. */
static void run_app(int mode)
{
	char self[PATH_MAX], app[PATH_MAX + 32], out[256] = "", lib[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int fd[2], st;
	pid_t pid;

	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(app, sizeof(app), "%s/../profapi/cann_app", self);
	ck_assert_int_eq(pipe(fd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		setenv("NPUPROF_OUTPUT_DIR", g_s.dir, 1);
		unsetenv("NPUPROF_SWITCHES");
		unsetenv("NPUPROF_DEVICES");
		if (mode == 1) {
			snprintf(lib, sizeof(lib), "%s/../cannlib", self);
			setenv("LD_LIBRARY_PATH", lib, 1);
		}
		if (mode) {
			snprintf(lib, sizeof(lib), "%s/../../lib/libnpuprof_attach.so", self);
			preload(lib);
		}
		execl(app, app, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	n = read(fd[0], out, sizeof(out) - 1);
	close(fd[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s exited %d", app, st);
	ck_assert_int_gt(n, 0);
	out[n] = '\0';
	ck_assert_int_eq(sscanf(out, "threads %u %u", &g_tid[0], &g_tid[1]), 2);
	g_s.pid = (uint32_t)pid;
}

#define API(name, level)                                                            \
	"FROM CANN_API a JOIN STRING_IDS s ON s.id = a.name WHERE s.value = '" name \
	"' AND a.type = " #level
#define TASK_SEL(stream, task) "FROM TASK WHERE streamId = " #stream " AND taskId = " #task
#define STR(tab, col, where)                                                                    \
	qs("SELECT s.value FROM " tab " x JOIN TASK t ON t.globalTaskId = x.globalTaskId JOIN " \
	   "STRING_IDS s ON s.id = x." col " WHERE " where)

START_TEST(test_cann_app_database)
{
	struct npuprof_export_result res;
	struct npuprof_export_opts o;
	char err[1024];
	long long gt0, gt1;

	snprintf(g_parent, sizeof(g_parent), "/tmp/npuprof-test-cann-e2e-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(g_parent));
	memset(&g_s, 0, sizeof(g_s));
	snprintf(g_s.hostname, sizeof(g_s.hostname), "testhost");
	snprintf(g_s.host_uid, sizeof(g_s.host_uid), "1");
	snprintf(g_s.engine, sizeof(g_s.engine), NPUPROF_ENGINE_HOST);
	{
		struct timespec r, m;

		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &m);
		g_s.start_realtime_ns = (uint64_t)r.tv_sec * 1000000000ULL + (uint64_t)r.tv_nsec;
		g_s.start_monotonic_ns = (uint64_t)m.tv_sec * 1000000000ULL + (uint64_t)m.tv_nsec;
	}
	g_s.pid = (uint32_t)getpid();
	g_s.ndev = 1;
	snprintf(g_s.dev[0].chip, sizeof(g_s.dev[0].chip), "Ascend910B");
	g_s.dev[0].counter_hz = 50000000;
	g_s.end_realtime_ns = g_s.start_realtime_ns + 60000000000ULL;
	ck_assert_int_eq(npuprof_session_create(&g_s, g_parent, err, sizeof(err)), 0);
	run_app(_i);
	{
		char data[sizeof(g_s.dir) + 16];

		snprintf(data, sizeof(data), "%s/host/data", g_s.dir);
		ck_assert_int_eq(count_entries(data, "npuprof.host."), 1);
	}

	memset(&o, 0, sizeof(o));
	ck_assert_msg(npuprof_export(g_s.dir, &o, &res, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(res.damaged, 0);
	ck_assert_int_eq(sqlite3_open_v2(res.db_path, &g_db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	gt0 = (long long)npuprof_global_tid(g_s.pid, g_tid[0]);
	gt1 = (long long)npuprof_global_tid(g_s.pid, g_tid[1]);

	if (getenv("CANN_E2E_KEEP"))
		fprintf(stderr, "db: %s\n", res.db_path);
	/* CANN_API: 9 calls, names as msprof gives them, on their threads */
	ck_assert_int_eq(q("SELECT COUNT(*) FROM CANN_API"), 9);
	ck_assert_int_eq(q("SELECT COUNT(DISTINCT connectionId) FROM CANN_API"), 9);
	ck_assert_int_eq(q("SELECT a.globalTid " API("aclnnMatMul", 20000)), gt0);
	ck_assert_int_eq(q("SELECT a.globalTid " API("aclrtMemcpyAsync", 20000)), gt0);
	ck_assert_int_eq(q("SELECT a.globalTid " API("HcclAllReduce", 20000)), gt1);
	ck_assert_int_eq(q("SELECT COUNT(*) " API("launch", 10000)), 2);
	ck_assert_int_eq(q("SELECT COUNT(*) " API("KernelLaunch", 5000)), 1);
	ck_assert_int_eq(q("SELECT COUNT(*) " API("MemcpyAsync", 5000)), 1);
	ck_assert_int_eq(q("SELECT a.globalTid " API("ModelExecute", 15000)), gt0);
	ck_assert_int_eq(q("SELECT a.globalTid " API("Launch_Ffts", 5500)), gt1);
	/* nesting on a thread, in Unix ns inside the session */
	ck_assert_int_eq(q("SELECT COUNT(*) FROM CANN_API a, CANN_API b JOIN STRING_IDS sa ON "
			   "sa.id = a.name JOIN STRING_IDS sb ON sb.id = b.name WHERE "
			   "sa.value = 'aclnnMatMul' AND sb.value = 'launch' AND b.globalTid = "
			   "a.globalTid AND a.startNs < b.startNs AND b.endNs < a.endNs"),
			 1);
	ck_assert_int_eq(q("SELECT COUNT(*) FROM CANN_API WHERE startNs < %lld OR endNs > %lld OR "
			   "endNs < startNs",
			   (long long)g_s.start_realtime_ns,
			   (long long)g_s.start_realtime_ns + 60000000000LL),
			 0);

	/* TASK: 5 tracks, each with its API's connectionId */
	ck_assert_int_eq(q("SELECT COUNT(*) FROM TASK"), 5);
	ck_assert_int_eq(q("SELECT connectionId " TASK_SEL(3, 5)),
			 q("SELECT a.connectionId " API("launch", 10000) " AND a.globalTid = %lld",
			   gt0));
	ck_assert_int_eq(q("SELECT endNs - startNs " TASK_SEL(3, 5)), 7000); /* the extension */
	ck_assert_int_eq(q("SELECT connectionId " TASK_SEL(4, 1)),
			 q("SELECT a.connectionId " API("aclrtMemcpyAsync", 20000)));
	ck_assert_int_eq(q("SELECT connectionId " TASK_SEL(4, 2)),
			 q("SELECT a.connectionId " API("ModelExecute", 15000)));
	long long hl = q("SELECT a.connectionId " API("launch", 10000) " AND a.globalTid = %lld",
			 gt1);
	ck_assert_int_eq(q("SELECT COUNT(*) FROM TASK WHERE streamId = 9 AND connectionId = %lld",
			   hl),
			 2);
	ck_assert_str_eq(qs("SELECT s.value FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType "
			    "WHERE streamId = 9 AND taskId = 20"),
			 "NOTIFY_WAIT");

	/* COMPUTE_TASK_INFO */
	ck_assert_str_eq(STR("COMPUTE_TASK_INFO", "name", "t.streamId = 3"), "MatMul_0");
	ck_assert_str_eq(STR("COMPUTE_TASK_INFO", "opType", "t.streamId = 3"), "MatMul");
	ck_assert_str_eq(STR("COMPUTE_TASK_INFO", "taskType", "t.streamId = 3"), "AI_CORE");
	ck_assert_str_eq(STR("COMPUTE_TASK_INFO", "inputShapes", "t.streamId = 3"),
			 "\"16,8;32,8;64,8;128,8;256,8\"");
	ck_assert_str_eq(STR("COMPUTE_TASK_INFO", "inputFormats", "t.streamId = 3"),
			 "FORMAT_ND;FORMAT_ND;FORMAT_ND;FORMAT_ND;FORMAT_ND");
	ck_assert_str_eq(STR("COMPUTE_TASK_INFO", "outputFormats", "t.streamId = 3"), "FRACTAL_NZ");
	ck_assert_str_eq(STR("COMPUTE_TASK_INFO", "outputDataTypes", "t.streamId = 3"), "FLOAT");
	ck_assert_int_eq(q("SELECT x.mixBlockDim FROM COMPUTE_TASK_INFO x JOIN TASK t ON "
			   "t.globalTaskId = x.globalTaskId WHERE t.streamId = 3"),
			 48);

	/* MEMCPY_INFO */
	ck_assert_int_eq(q("SELECT x.size FROM MEMCPY_INFO x JOIN TASK t ON t.globalTaskId = "
			   "x.globalTaskId WHERE t.streamId = 4 AND t.taskId = 1"),
			 65536);
	ck_assert_int_eq(q("SELECT memcpyOperation FROM MEMCPY_INFO"), 2);

	/* COMMUNICATION_OP and its tasks */
	ck_assert_int_eq(q("SELECT COUNT(*) FROM COMMUNICATION_OP"), 1);
	ck_assert_str_eq(qs("SELECT s.value FROM COMMUNICATION_OP o JOIN STRING_IDS s ON s.id = "
			    "o.opName"),
			 "hcom_allReduce__7_0_1");
	ck_assert_str_eq(qs("SELECT s.value FROM COMMUNICATION_OP o JOIN STRING_IDS s ON s.id = "
			    "o.opType"),
			 "hcom_allReduce_");
	ck_assert_str_eq(qs("SELECT s.value FROM COMMUNICATION_OP o JOIN STRING_IDS s ON s.id = "
			    "o.algType"),
			 "HD-MESH");
	ck_assert_int_eq(q("SELECT connectionId FROM COMMUNICATION_OP"), hl);
	ck_assert_int_eq(q("SELECT count FROM COMMUNICATION_OP"), 262144);
	ck_assert_int_eq(q("SELECT relay FROM COMMUNICATION_OP"), 1);
	ck_assert_int_eq(q("SELECT COUNT(*) FROM COMMUNICATION_TASK_INFO c JOIN COMMUNICATION_OP o "
			   "ON o.opId = c.opId AND o.opName = c.name AND o.groupName = c.groupName"),
			 2);
	ck_assert_str_eq(STR("COMMUNICATION_TASK_INFO", "taskType", "t.taskId = 20"),
			 "Notify_Wait");
	ck_assert_str_eq(STR("COMMUNICATION_TASK_INFO", "taskType", "t.taskId = 21"), "Memcpy");
	ck_assert_str_eq(STR("COMMUNICATION_TASK_INFO", "groupName", "t.taskId = 21"),
			 "hccl_world_group");
	ck_assert_int_eq(q("SELECT c.size FROM COMMUNICATION_TASK_INFO c JOIN TASK t ON "
			   "t.globalTaskId = c.globalTaskId WHERE t.taskId = 21"),
			 1048576);
	ck_assert_int_eq(q("SELECT c.transportType FROM COMMUNICATION_TASK_INFO c JOIN TASK t ON "
			   "t.globalTaskId = c.globalTaskId WHERE t.taskId = 20"),
			 2);
	ck_assert_int_eq(q("SELECT o.startNs = MIN(t.startNs) FROM COMMUNICATION_OP o JOIN "
			   "COMMUNICATION_TASK_INFO c ON c.opId = o.opId JOIN TASK t ON "
			   "t.globalTaskId = c.globalTaskId"),
			 1);
	sqlite3_close(g_db);
	if (!getenv("CANN_E2E_KEEP"))
		tu_rm_rf(g_parent);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("cannrec_e2e");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_cann_app_database, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}
