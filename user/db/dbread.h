/*
 * dbread.h — asking a database what it holds, the one way every reader of
 * a finished database asks it (`npuprof report`, export's analysis.db and
 * trace JSON, npuwork's replay): a producer creates a data table only when
 * it has rows, and older schemas lack newer columns.
 */
#ifndef NPUPROF_DBREAD_H
#define NPUPROF_DBREAD_H

#include <sqlite3.h>

/* Whether the database has a table of this name (main or temp: report's
 * stand-ins are temp tables): 1, 0, or -1 when SQLite fails
 * (sqlite3_errmsg(db) says why). */
int npuprof_db_has_table(sqlite3 *db, const char *name);

/* Whether table has column col, as msprof-analyze probes (its table_info):
 * 1, 0 (no such column or table), or -1 when SQLite fails. */
int npuprof_db_has_column(sqlite3 *db, const char *table, const char *col);

#endif
