/*
 * test_apisession.c - an aclprofStart collection leaves a complete session
 * directory that export turns into a database (user/recorder/apisession.c):
 * the session files, the config's switches in npuprof.session and in what
 * export writes, the host-only session (this host has no /dev/npuprof) with
 * its one warning and host-derived task times, and the program's own
 * aclprof* calls under `npuprof record` (the environment session).
 *
 * The records the ACL runtime would write (an API call, a task track) are
 * written here through the same reserve/commit calls. The capture through
 * npuprof.ko itself is tested in the VM (suite 45_apisession).
 */
#include <check.h>
#include <fcntl.h>
#include <glob.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "aclprof_internal.h"
#include "hostrec.h"
#include "hostrec_testutil.h"
#include "npuprof/export.h"
#include "npuprof/session.h"
#include "fake_runtime.h"

static char *g_dir;

static void setup(void)
{
	npuprof_aclprof_reset();
	unsetenv("NPUPROF_OUTPUT_DIR");
	unsetenv("NPUPROF_SWITCHES");
	unsetenv("NPUPROF_DEVICES");
	g_dir = tu_tmpdir();
	fake_rt_reset(); /* a runtime with live streams, 2 devices */
	fake_rt.refuse = 0;
	fake_rt.devcount = 2;
}

static void teardown(void)
{
	npuprof_aclprof_reset();
	tu_rm_rf(g_dir);
	free(g_dir);
}

/* What the runtime writes for one aclrtMemcpyAsync: its CANN_API row and
 * the task track of its SQE. */
static void runtime_records(uint64_t t0)
{
	struct npuprof_hostfmt_api *a = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_API, sizeof(*a));
	struct npuprof_hostfmt_task_track *t;

	ck_assert_ptr_nonnull(a);
	a->level = 20000; /* acl */
	a->tid = npuprof_hostrec_tid();
	a->start_ns = t0;
	a->end_ns = t0 + 5000;
	a->connection_id = 7;
	a->name_id = aclprofStr2Id("aclrtMemcpyAsync");
	a->item_id = NPUPROF_HOSTFMT_NO_STRING;
	a->device_id = 0;
	a->result = 0;
	npuprof_hostrec_commit(a);
	t = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_TASK_TRACK, sizeof(*t));
	ck_assert_ptr_nonnull(t);
	memset((char *)t + sizeof(t->h), 0, sizeof(*t) - sizeof(t->h));
	t->tid = npuprof_hostrec_tid();
	t->device_id = 0;
	t->time_ns = t0 + 1000;
	t->connection_id = 7;
	t->task_type_id = aclprofStr2Id("MEMCPY_ASYNC");
	t->stream_id = 3;
	t->task_id = 1;
	t->sqe_type = 11; /* SDMA */
	t->model_id = NPUPROF_NO_ID32;
	t->bytes = 4096;
	t->memcpy_op = 1;
	npuprof_hostrec_commit(t);
}

/* Runs a collection of `switches` on device 0 with one API call, one task
 * track and one Mark; stderr goes to `errpath`. Returns the session dir. */
static char *run_session(uint64_t switches, const char *errpath)
{
	uint32_t dev[1] = { 0 };
	aclprofConfig *c;
	void *stamp;
	int saved = dup(2), fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	glob_t g;
	char pat[4200], *dir;

	ck_assert_int_ge(fd, 0);
	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	ck_assert_int_eq(aclprofInit(g_dir, strlen(g_dir)), ACL_SUCCESS);
	c = aclprofCreateConfig(dev, 1, ACL_AICORE_ARITHMETIC_UTILIZATION, NULL, switches);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "15", 2), ACL_SUCCESS);
	ck_assert_int_eq(aclprofStart(c), ACL_SUCCESS);
	runtime_records(npuprof_hostrec_now());
	stamp = aclprofCreateStamp();
	if (switches & ACL_PROF_MSPROFTX) {
		ck_assert_int_eq(aclprofSetStampTraceMessage(stamp, "mark", 4), 0);
		ck_assert_int_eq(aclprofMark(stamp), 0);
	}
	aclprofDestroyStamp(stamp);
	ck_assert_int_eq(aclprofStop(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofDestroyConfig(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofFinalize(), ACL_SUCCESS);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);

	snprintf(pat, sizeof(pat), "%s/PROF_*", g_dir);
	ck_assert_int_eq(glob(pat, 0, NULL, &g), 0);
	ck_assert_uint_eq(g.gl_pathc, 1);
	dir = strdup(g.gl_pathv[0]);
	globfree(&g);
	return dir;
}

static int lines_with(const char *path, const char *word, int *total)
{
	char line[4096];
	FILE *f = fopen(path, "r");
	int n = 0;

	ck_assert_ptr_nonnull(f);
	*total = 0;
	while (fgets(line, sizeof(line), f)) {
		(*total)++;
		n += strstr(line, word) != NULL;
	}
	fclose(f);
	return n;
}

static int64_t q(const char *dbpath, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t v = -1;

	ck_assert_int_eq(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return 0; /* the writer creates a data table only when it has rows */
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static void file_exists(const char *dir, const char *name)
{
	char p[4400];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	ck_assert_msg(access(p, F_OK) == 0, "%s missing", p);
}

START_TEST(test_host_only_session)
{
	const uint64_t sw = ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX;
	char errpath[4200], err[1024];
	struct npuprof_session s;
	struct npuprof_export_result res;
	char *dir;
	int total, warn;

	if (access("/dev/npuprof", F_OK) == 0)
		return; /* a host with npuprof.ko captures; the VM tests that */
	snprintf(errpath, sizeof(errpath), "%s/stderr", g_dir);
	dir = run_session(sw, errpath);
	warn = lines_with(errpath, "warning", &total);
	ck_assert_int_eq(warn, 1);
	ck_assert_int_eq(total, 1);
	ck_assert_int_eq(lines_with(errpath, "/dev/npuprof", &total), 1);

	/* the layout `npuprof record` writes */
	file_exists(dir, NPUPROF_SESSION_FILE);
	file_exists(dir, "host/info.json");
	file_exists(dir, "host/start_info");
	file_exists(dir, "host/end_info");
	file_exists(dir, "host/host_start.log");
	ck_assert_int_eq(npuprof_session_load(&s, dir, err, sizeof(err)), 0);
	ck_assert_str_eq(s.engine, NPUPROF_ENGINE_HOST);
	ck_assert_uint_eq(s.pid, (uint32_t)getpid());
	ck_assert_uint_eq(s.switches & sw, sw);
	ck_assert_uint_ne(s.end_realtime_ns, 0);
	ck_assert_uint_ge(s.end_monotonic_ns, s.start_monotonic_ns);

	ck_assert_int_eq(npuprof_export(dir, NULL, &res, err, sizeof(err)), 0);
	ck_assert_msg(!res.damaged, "host-only export damaged");
	ck_assert_uint_eq(res.tasks, 1);
	ck_assert_uint_eq(res.api, 1);
	ck_assert_uint_eq(res.mstx, 1);
	ck_assert_int_eq(q(res.db_path, "SELECT count(*) FROM META_DATA WHERE name = "
					"'npuprof.task_time_source' AND value = 'host'"),
			 1);
	/* the task joins its API call; 4096 bytes at 20 GB/s */
	ck_assert_int_eq(q(res.db_path, "SELECT count(*) FROM TASK t JOIN CANN_API a ON "
					"a.connectionId = t.connectionId"),
			 1);
	ck_assert_int_eq(q(res.db_path, "SELECT endNs - startNs FROM TASK"), 204);
	ck_assert_int_eq(q(res.db_path, "SELECT count(*) FROM MEMCPY_INFO"), 1);
	free(dir);
}
END_TEST

/* what the config did not enable is not written */
START_TEST(test_switches_honoured)
{
	char errpath[4200], err[1024];
	struct npuprof_export_result res;
	char *dir;
	int total;

	snprintf(errpath, sizeof(errpath), "%s/stderr", g_dir);
	dir = run_session(ACL_PROF_ACL_API | ACL_PROF_MSPROFTX, errpath);
	/* no task times: nothing to capture on the device, nothing to warn */
	ck_assert_int_eq(lines_with(errpath, "warning", &total), 0);
	ck_assert_int_eq(npuprof_export(dir, NULL, &res, err, sizeof(err)), 0);
	ck_assert_uint_eq(res.tasks, 0);
	ck_assert_uint_eq(res.api, 1);
	ck_assert_uint_eq(res.mstx, 1);
	ck_assert_int_eq(q(res.db_path, "SELECT count(*) FROM TASK"), 0);
	tu_rm_rf(dir);
	free(dir);

	dir = run_session(ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX, errpath);
	ck_assert_int_eq(npuprof_export(dir, NULL, &res, err, sizeof(err)), 0);
	ck_assert_uint_eq(res.api, 0);
	ck_assert_uint_eq(res.mstx, 1);
	ck_assert_int_eq(q(res.db_path, "SELECT count(*) FROM CANN_API"), 0);
	tu_rm_rf(dir);
	free(dir);

	dir = run_session(ACL_PROF_ACL_API | ACL_PROF_TASK_TIME, errpath);
	ck_assert_int_eq(npuprof_export(dir, NULL, &res, err, sizeof(err)), 0);
	ck_assert_uint_eq(res.api, 1);
	ck_assert_uint_eq(res.mstx, 0);
	free(dir);
}
END_TEST

/* Under `npuprof record` (the environment session) the program's own calls
 * succeed, record's session governs, and the result path gets the note. */
START_TEST(test_under_record)
{
	char err[256], note[4400], line[8192], recdir[4200], app[4200];
	uint32_t dev[1] = { 0 };
	aclprofConfig *c;
	void *stamp;
	FILE *f;
	glob_t g;

	snprintf(recdir, sizeof(recdir), "%s/rec", g_dir);
	snprintf(app, sizeof(app), "%s/app", g_dir);
	ck_assert_int_eq(mkdir(app, 0755), 0);
	setenv("NPUPROF_OUTPUT_DIR", recdir, 1);
	ck_assert_int_eq(npuprof_session_from_env(err, sizeof(err)), 0);

	ck_assert_int_eq(aclprofInit(app, strlen(app)), ACL_SUCCESS);
	ck_assert_int_eq(aclprofInit(app, strlen(app)), ACL_ERROR_REPEAT_INITIALIZE);
	c = aclprofCreateConfig(dev, 1, ACL_AICORE_ARITHMETIC_UTILIZATION, NULL,
				ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "15", 2), ACL_SUCCESS);
	ck_assert_int_eq(aclprofStart(c), ACL_SUCCESS);
	stamp = aclprofCreateStamp();
	ck_assert_int_eq(aclprofSetStampTraceMessage(stamp, "app", 3), 0);
	ck_assert_int_eq(aclprofMark(stamp), 0);
	aclprofDestroyStamp(stamp);
	ck_assert_int_eq(aclprofStop(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofDestroyConfig(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofFinalize(), ACL_SUCCESS);
	/* record's collection runs on after the program's Finalize */
	ck_assert_int_eq(npuprof_hostrec_active(), 1);

	/* nothing of the program's own: no PROF_* in its result path */
	snprintf(line, sizeof(line), "%s/PROF_*", app);
	ck_assert_int_eq(glob(line, 0, NULL, &g), GLOB_NOMATCH);
	globfree(&g);
	snprintf(note, sizeof(note), "%s/%s", app, NPUPROF_PROFILE_NOTE);
	f = fopen(note, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	ck_assert_ptr_nonnull(strstr(line, recdir));
	ck_assert_ptr_null(fgets(line, sizeof(line), f)); /* one line */
	fclose(f);

	ck_assert_int_eq(npuprof_hostrec_stop(), 0);
	{
		struct decoded *d = tu_decode(tu_find_stream(recdir));

		ck_assert_int_eq(d->ret, 0);
		ck_assert_uint_eq(tu_count_tx(d), 1);
		tu_free(d);
	}
}
END_TEST

/* a program that exits without aclprofStop still leaves a complete session */
START_TEST(test_exit_without_stop)
{
	char err[1024], pat[4200];
	struct npuprof_session s;
	int status;
	glob_t g;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		uint32_t dev[1] = { 0 };
		aclprofConfig *c;
		void *stamp;

		freopen("/dev/null", "w", stderr);
		if (aclprofInit(g_dir, strlen(g_dir)))
			_exit(2);
		c = aclprofCreateConfig(dev, 1, ACL_AICORE_NONE, NULL,
					ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX);
		if (!c || aclprofStart(c))
			_exit(3);
		stamp = aclprofCreateStamp();
		aclprofSetStampTraceMessage(stamp, "bye", 3);
		if (aclprofMark(stamp))
			_exit(4);
		exit(0);
	}
	waitpid(pid, &status, 0);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	snprintf(pat, sizeof(pat), "%s/PROF_*", g_dir);
	ck_assert_int_eq(glob(pat, 0, NULL, &g), 0);
	ck_assert_uint_eq(g.gl_pathc, 1);
	ck_assert_int_eq(npuprof_session_load(&s, g.gl_pathv[0], err, sizeof(err)), 0);
	ck_assert_uint_ne(s.end_realtime_ns, 0);
	ck_assert_uint_eq(s.pid, (uint32_t)pid);
	file_exists(g.gl_pathv[0], "host/end_info");
	globfree(&g);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("apisession");
	TCase *tc = tcase_create("apisession");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_host_only_session);
	tcase_add_test(tc, test_switches_honoured);
	tcase_add_test(tc, test_under_record);
	tcase_add_test(tc, test_exit_without_stop);
	suite_add_tcase(s, tc);
	return s;
}
