/*
 * test_ranks.c - rank identity (npuprof/rank.h): parsing the launchers'
 * environment, the order HCCL > environment > none, and end to end through
 * the real recorder and export: the NPUPROF_HOSTFMT_RANK records of a stream
 * become RANK_DEVICE_MAP (in the default schema 1.1.1 too) and the rank_id
 * of host/info.json and device_<N>/info.json.<N>.
 */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "hostrec.h"
#include "npuprof/export.h"
#include "npuprof/rank.h"
#include "npuprof/session.h"
#include "testutil.h"

static const char *g_env[8][2];

static const char *fake_get(const char *name)
{
	for (int i = 0; i < 8 && g_env[i][0]; i++)
		if (!strcmp(g_env[i][0], name))
			return g_env[i][1];
	return NULL;
}

START_TEST(test_parse_and_env)
{
	ck_assert_int_eq(npuprof_rank_parse("0"), 0);
	ck_assert_int_eq(npuprof_rank_parse("17"), 17);
	ck_assert_int_eq(npuprof_rank_parse("2147483647"), 2147483647);
	ck_assert_int_eq(npuprof_rank_parse("2147483648"),
			 NPUPROF_RANK_NONE); /* refused, not wrapped */
	ck_assert_int_eq(npuprof_rank_parse("-1"), NPUPROF_RANK_NONE);
	ck_assert_int_eq(npuprof_rank_parse(" 1"), NPUPROF_RANK_NONE);
	ck_assert_int_eq(npuprof_rank_parse("1x"), NPUPROF_RANK_NONE);
	ck_assert_int_eq(npuprof_rank_parse(""), NPUPROF_RANK_NONE);
	ck_assert_int_eq(npuprof_rank_parse(NULL), NPUPROF_RANK_NONE);

	memset(g_env, 0, sizeof(g_env));
	ck_assert_int_eq(npuprof_rank_from_env(fake_get), NPUPROF_RANK_NONE);
	g_env[0][0] = "PMI_RANK", g_env[0][1] = "5";
	ck_assert_int_eq(npuprof_rank_from_env(fake_get), 5);
	g_env[1][0] = "OMPI_COMM_WORLD_RANK", g_env[1][1] = "4";
	ck_assert_int_eq(npuprof_rank_from_env(fake_get), 4);
	g_env[2][0] = "RANK", g_env[2][1] = "3"; /* torchrun */
	ck_assert_int_eq(npuprof_rank_from_env(fake_get), 3);
	g_env[3][0] = "RANK_ID", g_env[3][1] = "bad"; /* malformed: the next one */
	ck_assert_int_eq(npuprof_rank_from_env(fake_get), 3);
	g_env[3][1] = "2";
	ck_assert_int_eq(npuprof_rank_from_env(fake_get), 2);
}
END_TEST

START_TEST(test_resolve)
{
	const struct npuprof_rank_info v[] = {
		{ 7, 0, NPUPROF_RANK_ANY_DEVICE, NPUPROF_RANK_SRC_ENV },
		{ 1, 4, 3, NPUPROF_RANK_SRC_HCCL },
		{ 2, 8, 3, NPUPROF_RANK_SRC_HCCL }, /* a later group: does not renumber */
		{ 0, 4, 5, NPUPROF_RANK_SRC_HCCL },
	};

	ck_assert_int_eq(npuprof_rank_resolve(v, 4, 3), 1);
	ck_assert_int_eq(npuprof_rank_resolve(v, 4, 5), 0);
	ck_assert_int_eq(npuprof_rank_resolve(v, 4, 6), 7); /* the environment's */
	ck_assert_int_eq(npuprof_rank_resolve(v, 4, NPUPROF_RANK_ANY_DEVICE), 7);
	ck_assert_int_eq(npuprof_rank_resolve(v + 1, 3, 6), NPUPROF_RANK_NONE);
	ck_assert_int_eq(npuprof_rank_resolve(NULL, 0, 0), NPUPROF_RANK_NONE);
}
END_TEST

static char g_parent[256], g_db[4352];

/* A session on devices 0 and 1 whose stream the real recorder writes; with
 * hccl, the runtime reported rank 1 of 2 on device 1 before the start. */
static void run_session(struct npuprof_session *s, int hccl)
{
	struct npuprof_hostrec_config cfg;
	struct npuprof_export_result res;
	char err[512];

	snprintf(g_parent, sizeof(g_parent), "/tmp/npuprof-test-ranks-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(g_parent));
	memset(s, 0, sizeof(*s));
	snprintf(s->hostname, sizeof(s->hostname), "testhost");
	snprintf(s->host_uid, sizeof(s->host_uid), "12345");
	snprintf(s->engine, sizeof(s->engine), "kmod");
	s->start_realtime_ns = 1700000000000000000ULL;
	s->start_monotonic_ns = 1000;
	s->end_realtime_ns = 1700000000000000000ULL + 1000000;
	s->pid = (uint32_t)getpid();
	s->rank = NPUPROF_RANK_NONE;
	s->ndev = 2;
	for (int d = 0; d < 2; d++) {
		s->dev[d].id = (uint32_t)d;
		snprintf(s->dev[d].chip, sizeof(s->dev[d].chip), "Ascend910B");
		s->dev[d].counter_hz = 50000000;
		s->dev[d].rank = NPUPROF_RANK_NONE;
	}
	ck_assert_int_eq(npuprof_session_create(s, g_parent, err, sizeof(err)), 0);
	if (hccl)
		npuprof_hostrec_set_rank(1, 1, 2, aclprofStr2Id("group0"));
	memset(&cfg, 0, sizeof(cfg));
	cfg.dir = s->dir;
	ck_assert_int_eq(npuprof_hostrec_start(&cfg, err, sizeof(err)), 0);
	ck_assert_int_eq(npuprof_hostrec_stop(), 0);
	ck_assert_msg(npuprof_export(s->dir, NULL, &res, err, sizeof(err)) == 0, "%s", err);
	snprintf(g_db, sizeof(g_db), "%s", res.db_path);
}

static void q_text(const char *db, const char *sql, char *out, size_t len)
{
	sqlite3 *h;
	sqlite3_stmt *st;

	ck_assert_int_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	snprintf(out, len, "%s",
		 sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "");
	sqlite3_finalize(st);
	sqlite3_close(h);
}

static int file_has(const char *dir, const char *name, const char *what)
{
	char path[4400], buf[4096];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return strstr(buf, what) != NULL;
}

/* The environment's rank alone: every device and the host say it. (The
 * recorder keeps HCCL ranks for the process's life, so this case runs
 * first: Check runs a file's tests in order.) */
START_TEST(test_env_rank_exported)
{
	struct npuprof_session s;
	char got[256];

	setenv("RANK", "3", 1);
	run_session(&s, 0);
	q_text(g_db, "SELECT group_concat(rankId || ':' || deviceId, ' ') FROM RANK_DEVICE_MAP",
	       got, sizeof(got));
	ck_assert_str_eq(got, "3:0 3:1");
	q_text(g_db, "SELECT value FROM META_DATA WHERE name = 'SCHEMA_VERSION'", got, sizeof(got));
	ck_assert_str_eq(got, "1.1.1");
	ck_assert(file_has(s.dir, "host/info.json", "\"rank_id\": 3}"));
	ck_assert(file_has(s.dir, "device_1/info.json.1", "\"rank_id\": 3,"));
	unsetenv("RANK");
	tu_rm_rf(g_parent);
}
END_TEST

/* HCCL's rank wins on its device; the other device has no rank. */
START_TEST(test_hccl_rank_exported)
{
	struct npuprof_session s, l;
	char got[256], err[512];

	unsetenv("RANK");
	run_session(&s, 1);
	q_text(g_db, "SELECT group_concat(rankId || ':' || deviceId, ' ') FROM RANK_DEVICE_MAP",
	       got, sizeof(got));
	ck_assert_str_eq(got, "-1:0 1:1");
	ck_assert(file_has(s.dir, "device_1/info.json.1", "\"rank_id\": 1,"));
	ck_assert(file_has(s.dir, "device_0/info.json.0", "\"rank_id\": -1,"));
	ck_assert(file_has(s.dir, "host/info.json", "\"rank_id\": -1}"));
	/* the session file keeps them */
	ck_assert_int_eq(npuprof_session_load(&l, s.dir, err, sizeof(err)), 0);
	ck_assert_int_eq(l.dev[1].rank, 1);
	ck_assert_int_eq(l.dev[0].rank, -1);
	tu_rm_rf(g_parent);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("ranks");
	TCase *tc = tcase_create("ranks");

	tcase_add_test(tc, test_parse_and_env);
	tcase_add_test(tc, test_resolve);
	tcase_add_test(tc, test_env_rank_exported);
	tcase_add_test(tc, test_hccl_rank_exported);
	suite_add_tcase(s, tc);
	return s;
}
