/*
 * db.h - libnpuprof's writer of the msprof database.
 *
 * The exporter hands rows to this writer through typed structs; the writer
 * owns every piece of SQL. It produces the file `msprof --type=db` writes:
 * the seed schema (1.1.1 by default, 1.2.0 on request), the ENUM_* tables,
 * META_DATA with the schema version, STRING_IDS, the TaskIndex and
 * CommunicationTaskIndex indexes, and only those data tables that got rows.
 * The PyTorch variant adds the torch_npu tables (PYTORCH_API, ...).
 *
 * Life cycle:
 *   npuprof_db_open()     creates a hidden temporary database in the target
 *                         directory and starts one transaction;
 *   npuprof_db_intern()   returns the STRING_IDS id of a string;
 *   npuprof_db_add_*()    inserts one row (one struct per table);
 *   npuprof_db_finish()   writes the managed tables and indexes, commits,
 *                         syncs and renames the file to its final name;
 *   npuprof_db_close()    frees the writer; without a successful finish it
 *                         deletes the temporary file.
 * A reader therefore sees either no msprof_*.db or a complete one, and a
 * crash leaves at most a hidden ".npuprof-tmp-*" file, which the next writer
 * opening the same directory removes once no live writer holds it.
 *
 * Errors: every function returns 0 (or an id) on success and a negative errno
 * on failure; npuprof_db_errmsg() then names the path, the table or the value
 * at fault. An invalid argument (bad table id, wrong struct, unknown string
 * id) is refused before SQLite sees it and the writer stays usable; any
 * SQLite or I/O failure poisons it: later calls return the same error and
 * finish removes the temporary file, so a damaged database is never published.
 *
 * A writer is not thread-safe; use one per thread (exports are sequential).
 */
#ifndef NPUPROF_DB_H
#define NPUPROF_DB_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <npuprof/db_tables.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A STRING_IDS id, as returned by npuprof_db_intern(). */
typedef int64_t npuprof_db_str;

/* Stored as SQL NULL when found in an I64 or STR field. */
#define NPUPROF_DB_NULL INT64_MIN

/*
 * Id 0 always holds "N/A", the producer's text for an absent value, so a
 * zero-initialised string field reads back as "N/A". It also keeps `launch`
 * away from id 0, which torch_npu treats as "not found".
 */
#define NPUPROF_DB_STR_NA ((npuprof_db_str)0)

/* Sentinels of the msprof DB (docs/ascend-reference.md 1.4). */
#define NPUPROF_DB_U32_INVALID 4294967295LL

/* Table ids: NPUPROF_DB_TASK, NPUPROF_DB_CANN_API, ... */
enum npuprof_db_table {
#define NPUPROF_DB_T_ENUM(ID, sfx, COLS, FLAGS) NPUPROF_DB_##ID,
	NPUPROF_DB_TABLE_LIST(NPUPROF_DB_T_ENUM)
#undef NPUPROF_DB_T_ENUM
	NPUPROF_DB_TABLE_COUNT
};

/* Row structs: struct npuprof_db_task, struct npuprof_db_cann_api, ... */
#define NPUPROF_DB_CTYPE_I64 int64_t
#define NPUPROF_DB_CTYPE_F64 double
#define NPUPROF_DB_CTYPE_STR npuprof_db_str
#define NPUPROF_DB_CTYPE_TXT const char *
#define NPUPROF_DB_F_C(S, field, DECL, KIND, FLAGS) NPUPROF_DB_CTYPE_##KIND field;
#define NPUPROF_DB_F_V(S, field, n111, n120, DECL, KIND, FLAGS) NPUPROF_DB_CTYPE_##KIND field;
#define NPUPROF_DB_T_STRUCT(ID, sfx, COLS, FLAGS)                           \
	struct npuprof_db_##sfx {                                           \
		NPUPROF_DB_COLS_##COLS(NPUPROF_DB_F_C, NPUPROF_DB_F_V, sfx) \
	};
NPUPROF_DB_TABLE_LIST(NPUPROF_DB_T_STRUCT)
#undef NPUPROF_DB_T_STRUCT
#undef NPUPROF_DB_F_C
#undef NPUPROF_DB_F_V

enum npuprof_db_schema {
	NPUPROF_DB_SCHEMA_1_1_1 = 0, /* the seed's column set (default) */
	NPUPROF_DB_SCHEMA_1_2_0 = 1, /* the current producer's column set */
};

enum npuprof_db_variant {
	NPUPROF_DB_MSPROF = 0, /* msprof_<ts>.db */
	NPUPROF_DB_PYTORCH = 1, /* plus the torch_npu tables */
	/* torch_npu's analysis.db: only the NPUPROF_DBT_ANALYSIS tables (no
	 * ENUM, META_DATA or STRING_IDS) */
	NPUPROF_DB_ANALYSIS = 2,
};

/* Replace an existing file of the final name (atomically); default: fail. */
#define NPUPROF_DB_REPLACE 0x1u
/* Write rows on a second thread: npuprof_db_insert() copies the row into a
 * queue and returns; SQLite's work overlaps the caller's. The file is the
 * same as without it. Rows with text columns (TXT, not interned strings),
 * a table's first row, npuprof_db_row_count() and npuprof_db_finish() wait
 * for the queue to drain. A SQLite failure on the writer thread is returned
 * by a later call (insert, finish) and poisons the writer as usual. The
 * interned-string table is the caller's alone, so every call on one writer
 * must still come from one thread at a time. */
#define NPUPROF_DB_THREADED 0x2u

struct npuprof_db_options {
	enum npuprof_db_schema schema;
	enum npuprof_db_variant variant;
	unsigned flags;
	/* Final file name inside the directory; NULL: msprof_<YYYYmmddHHMMSS>.db. */
	const char *file_name;
	/* Export time used for the default name (local time); 0: now. */
	time_t timestamp;
};

struct npuprof_db;

/*
 * Open a writer whose database will be <dir>/<final name>. opt may be NULL
 * (1.1.1, msprof variant, default name). On failure returns a negative errno,
 * sets *out to NULL and, if err is not NULL, writes a message naming the path.
 */
int npuprof_db_open(struct npuprof_db **out, const char *dir, const struct npuprof_db_options *opt,
		    char *err, size_t errlen);

/*
 * The STRING_IDS id of s (NUL-terminated) or of the len bytes at s (any
 * bytes, NUL included). Ids are dense from 0 in first-use order, one hash
 * lookup per call. Returns the id (>= 0) or a negative errno.
 */
npuprof_db_str npuprof_db_intern(struct npuprof_db *w, const char *s);
npuprof_db_str npuprof_db_intern_n(struct npuprof_db *w, const char *s, size_t len);

/*
 * String spaces. The CANN part of STRING_IDS is dense from 0 (the ids
 * above); torch_npu numbers its own strings from fixed bases (§4.2):
 * framework API strings (names, dtypes, shapes, stack frames) from 1 << 28,
 * memory strings (components, OP_MEMORY names) from 2 << 28. Each space
 * is dense from its base in first-use order, holds at most 2^28 strings,
 * and a string interned in two spaces has two ids. STRING_IDS holds them
 * all.
 */
enum npuprof_db_space {
	NPUPROF_DB_SPACE_CANN = 0, /* npuprof_db_intern's */
	NPUPROF_DB_SPACE_FWK = 1, /* from 268435456 */
	NPUPROF_DB_SPACE_MEMORY = 2, /* from 536870912 */
	NPUPROF_DB_SPACE_COUNT
};
#define NPUPROF_DB_SPACE_BASE(sp) ((int64_t)(sp) << 28)

/* The id of the len bytes at s in space sp (>= NPUPROF_DB_SPACE_BASE(sp)),
 * or a negative errno. */
npuprof_db_str npuprof_db_intern_space(struct npuprof_db *w, enum npuprof_db_space sp,
				       const char *s, size_t len);

/*
 * Insert one row into table t. row points to the table's struct and
 * row_size must be its size (it catches a struct of the wrong table).
 * Columns absent from the chosen schema version are ignored. Prefer the
 * typed npuprof_db_add_<table>() wrappers below.
 */
int npuprof_db_insert(struct npuprof_db *w, enum npuprof_db_table t, const void *row,
		      size_t row_size);

#define NPUPROF_DB_T_ADD(ID, sfx, COLS, FLAGS)                                     \
	static inline int npuprof_db_add_##sfx(struct npuprof_db *w,               \
					       const struct npuprof_db_##sfx *row) \
	{                                                                          \
		return npuprof_db_insert(w, NPUPROF_DB_##ID, row, sizeof(*row));   \
	}
NPUPROF_DB_TABLE_LIST(NPUPROF_DB_T_ADD)
#undef NPUPROF_DB_T_ADD

/*
 * Create table t now, whether or not rows follow (a table torch_npu creates
 * empty). 0, or a negative errno (t does not exist in this database).
 */
int npuprof_db_create_table(struct npuprof_db *w, enum npuprof_db_table t);

/*
 * Complete the database and move it to its final name. Returns 0, or a
 * negative errno (-EEXIST when the final file exists and NPUPROF_DB_REPLACE
 * is not set); on failure no file with the final name was created or changed.
 */
int npuprof_db_finish(struct npuprof_db *w);

/* Free the writer; removes the temporary file unless finish succeeded. */
void npuprof_db_close(struct npuprof_db *w);

/* The final path (<dir>/<name>), known from open on. */
const char *npuprof_db_path(const struct npuprof_db *w);
/* The path of the temporary file being built (empty after finish). */
const char *npuprof_db_temp_path(const struct npuprof_db *w);
/* The message of the last error ("" if none). */
const char *npuprof_db_errmsg(const struct npuprof_db *w);
/* Where finishing's time went, once finish has returned: SQLite's CPU
 * seconds (with NPUPROF_DB_THREADED the writer thread's, plus the indexes,
 * STRING_IDS and commit at finish) and the seconds publishing took (the
 * fsyncs of the file and its directory, and the rename). */
void npuprof_db_timings(const struct npuprof_db *w, double *sql_seconds, double *sync_seconds);
/* Rows inserted so far into table t (managed tables included after finish). */
uint64_t npuprof_db_row_count(const struct npuprof_db *w, enum npuprof_db_table t);
/* The SQL name of table t, or NULL for an invalid id. */
const char *npuprof_db_table_name(enum npuprof_db_table t);

#ifdef __cplusplus
}
#endif

#endif /* NPUPROF_DB_H */
