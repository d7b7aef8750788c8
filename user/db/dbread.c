/*
 * dbread.c — asking a database what it holds (dbread.h).
 */
#include <stddef.h>

#include "dbread.h"

/* The first step of a bound query: 1 a row, 0 none, -1 an error. */
static int one_row(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int npuprof_db_has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(
		    db,
		    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1 "
		    "UNION ALL SELECT 1 FROM sqlite_temp_master WHERE type = 'table' AND name = ?1",
		    -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	return one_row(st);
}

int npuprof_db_has_column(sqlite3 *db, const char *table, const char *col)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st,
			       NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
	return one_row(st);
}
