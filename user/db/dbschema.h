/*
 * dbschema.h - the msprof database schema as data, for the writer
 * (dbwriter.c) and the conformance tests.
 *
 * dbschema.c expands include/npuprof/db_tables.h into one descriptor per
 * table and adds what a column list cannot say: the ENUM rows of the seed,
 * the two indexes of the real producer and the META_DATA version rows.
 * Everything that turns into SQL text is derived from here.
 */
#ifndef NPUPROF_DBSCHEMA_H
#define NPUPROF_DBSCHEMA_H

#include <stddef.h>

#include <npuprof/db.h>

enum npuprof_db_kind {
	NPUPROF_DBK_I64,
	NPUPROF_DBK_F64,
	NPUPROF_DBK_STR,
	NPUPROF_DBK_TXT
};

#define NPUPROF_DBC_PK 0x1u

struct npuprof_db_column {
	const char *field; /* member of the row struct */
	const char *sql[2]; /* name per schema version; NULL = absent */
	const char *decl; /* declared type */
	enum npuprof_db_kind kind;
	unsigned flags; /* NPUPROF_DBC_* */
	size_t offset; /* of the member in the row struct */
};

/* Which writers put an ENUM row in the file (ENUM_API_TYPE only differs). */
#define NPUPROF_DBE_MSPROF 0x1u
#define NPUPROF_DBE_PYTORCH 0x2u

struct npuprof_db_enum_row {
	long long id;
	const char *name;
	unsigned writers; /* NPUPROF_DBE_* */
};

struct npuprof_db_table_def {
	enum npuprof_db_table id;
	const char *name;
	const struct npuprof_db_column *cols;
	unsigned ncols;
	size_t row_size;
	unsigned flags; /* NPUPROF_DBT_* */
	const struct npuprof_db_enum_row *enum_rows; /* ENUM tables only */
	unsigned n_enum_rows;
};

struct npuprof_db_index {
	const char *name;
	enum npuprof_db_table table;
	const char *columns; /* comma-separated, no spaces */
};

extern const struct npuprof_db_table_def npuprof_db_tables[NPUPROF_DB_TABLE_COUNT];
extern const struct npuprof_db_index npuprof_db_indexes[];
extern const unsigned npuprof_db_n_indexes;

/* "1.1.1" / "1.2.0" and its three parts, as written to META_DATA. */
struct npuprof_db_version {
	const char *full, *major, *minor, *micro;
};
const struct npuprof_db_version *npuprof_dbschema_version(enum npuprof_db_schema s);

/* Descriptor of table t, or NULL for an invalid id. */
const struct npuprof_db_table_def *npuprof_dbschema_table(enum npuprof_db_table t);
/* Descriptor by SQL name (exact), or NULL. */
const struct npuprof_db_table_def *npuprof_dbschema_find(const char *name);

/* Does table t exist in a database of this schema and variant? */
int npuprof_dbschema_table_exists(const struct npuprof_db_table_def *t, enum npuprof_db_schema s,
				  enum npuprof_db_variant v);

/*
 * Write "CREATE TABLE IF NOT EXISTS T (c TYPE[ PRIMARY KEY], ...)" for schema s
 * into buf. Returns the length, or -1 if buf is too small.
 */
int npuprof_dbschema_ddl(const struct npuprof_db_table_def *t, enum npuprof_db_schema s, char *buf,
			 size_t len);
/* "CREATE INDEX IF NOT EXISTS name ON T (cols)" likewise. */
int npuprof_dbschema_index_ddl(const struct npuprof_db_index *ix, char *buf, size_t len);

#endif /* NPUPROF_DBSCHEMA_H */
