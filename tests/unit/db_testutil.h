/*
 * db_testutil.h - helpers shared by the database tests (test_db_*.c):
 * locating fixtures, scratch directories, and one-value SQL queries.
 *
 * Tests run from the repository root (scripts/run-unit.sh); the fixtures
 * are the repository's copies under tests/fixtures.
 */
#ifndef NPUPROF_DB_TESTUTIL_H
#define NPUPROF_DB_TESTUTIL_H

#include <check.h>
#include <dirent.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

#define FIXTURE_REAL_DIR "tests/fixtures/real"
#define FIXTURE_SEED_DIR "tests/fixtures/seeds"

/* <dir>/<name> into buf if it is readable; NULL if not. */
static inline const char *find_fixture(const char *dir, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", dir, name);
	return access(buf, R_OK) == 0 ? buf : NULL;
}

/* A fresh empty directory under /tmp; the caller removes it with tu_rm_rf. */
static inline void scratch_dir(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/npuprof-dbtest-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(buf));
}

/* Number of directory entries whose name starts with prefix. */
static inline int count_entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

static inline sqlite3 *open_ro(const char *path)
{
	sqlite3 *db = NULL;

	ck_assert_msg(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK,
		      "cannot open %s", path);
	return db;
}

/* The first column of the first row of sql as an integer (fails the test
 * on an SQL error; -999999 when there is no row). */
static inline long long q_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	long long v = -999999;

	ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK, "%s: %s", sql,
		      sqlite3_errmsg(db));
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* Same, as text copied into buf ("" for NULL or no row). */
static inline const char *q_text(sqlite3 *db, const char *sql, char *buf, size_t len)
{
	sqlite3_stmt *s;

	buf[0] = '\0';
	ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK, "%s: %s", sql,
		      sqlite3_errmsg(db));
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return buf;
}

/* q_int and q_text with a printf-style query. */
static inline __attribute__((format(printf, 2, 3))) long long q_intf(sqlite3 *db, const char *fmt,
								     ...)
{
	char sql[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	return q_int(db, sql);
}

static inline __attribute__((format(printf, 4, 5))) const char *q_textf(sqlite3 *db, char *buf,
									size_t len, const char *fmt,
									...)
{
	char sql[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	return q_text(db, sql, buf, len);
}

static inline int table_exists(sqlite3 *db, const char *name)
{
	char sql[256];

	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='%s'", name);
	return q_int(db, sql) == 1;
}

#endif /* NPUPROF_DB_TESTUTIL_H */
