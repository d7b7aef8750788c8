/*
 * dbwriter.c - builds msprof_<YYYYmmddHHMMSS>.db from typed rows (db.h).
 *
 * The file is built as a hidden temporary in the target directory inside a
 * single transaction, then committed, synced and renamed, so no reader ever
 * opens a partial database. Because the temporary is private until the
 * rename, durability during the build buys nothing: the rollback journal is
 * off, SQLite never syncs, the connection holds its lock exclusively, and one
 * fsync of the finished file plus one of the directory make the rename safe.
 *
 * Every table's DDL and INSERT come from dbschema.c; a table is created just
 * before its first row (the producer never creates an empty data table), one
 * prepared statement per table is kept for the life of the writer, and every
 * value travels as a bound parameter.
 */
#include <npuprof/db.h>

#include "atomicfile.h"
#include "dbschema.h"
#include "strtab.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TMP_PREFIX NPUPROF_TMP_PREFIX
/* A temporary younger than this may belong to a writer that has not locked
 * it yet (mkstemp and flock are two steps), so it is never removed. */
#define STALE_AGE_S 60
/* The page cache SQLite may use, in KiB (it also bounds the index sorter's
 * memory). It bounds memory at any row count; larger caches bought no speed
 * in bench_db because rows are appended in key order. */
#define CACHE_KIB 8192

struct bindcol {
	size_t off;
	enum npuprof_db_kind kind;
	const char *name;
};

/* What a statement's parameter holds (bind_row). */
enum {
	BV_NONE,
	BV_NULL,
	BV_INT,
	BV_REAL
};
struct bval {
	int64_t v; /* the integer, or the double's bits */
	unsigned char tag; /* BV_*: BV_NONE, unknown */
};

struct tstate {
	sqlite3_stmt *ins;
	struct bval *sh, *sh_batch; /* what ins's and ins_batch's parameters hold */
	sqlite3_stmt *ins_batch; /* BATCH_ROWS rows a step (the writer thread's) */
	int no_batch; /* ins_batch could not be made */
	uint64_t rows;
	unsigned nbind;
	struct bindcol *bind;
	int has_txt; /* a TXT column: its pointers are the caller's */
};

/* NPUPROF_DB_THREADED: rows travel to the writer thread in chunks; a chunk
 * is the caller's while it fills, then the thread's until written. */
#define Q_CHUNKS 4
#define Q_ROWS 4096
/* Rows of one table a step of a batched INSERT on the writer thread. */
#define BATCH_ROWS 32
struct qchunk {
	unsigned n;
	unsigned char *tab; /* table of each row */
	unsigned char *rows; /* Q_ROWS slots of rowmax bytes */
};
struct wqueue {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct qchunk c[Q_CHUNKS];
	unsigned head, tail; /* chunks [head, tail) are the thread's, in order */
	unsigned fill; /* the caller's chunk: index tail, rows so far */
	size_t rowmax;
	int stop;
	int err; /* the thread's first failure */
	char msg[1024];
	double cpu_seconds; /* the thread's CPU time, when it ends */
};

struct npuprof_db {
	sqlite3 *db;
	struct npuprof_strtab *st; /* NPUPROF_DB_SPACE_CANN, ids from 0 */
	/* the framework spaces (npuprof_db_intern_space), made on first use */
	struct npuprof_strtab *space[NPUPROF_DB_SPACE_COUNT];
	enum npuprof_db_schema schema;
	enum npuprof_db_variant variant;
	unsigned flags;
	char *final_path, *tmp_path;
	char *dir;
	int lock_fd;
	unsigned rows_unflushed; /* rows since the last flush_behind */
	int err; /* sticky: the writer is poisoned */
	int finished;
	char msg[1024];
	struct tstate t[NPUPROF_DB_TABLE_COUNT];
	int64_t *npu_ids; /* NPU_INFO ids, for RANK_DEVICE_MAP */
	size_t n_npu, cap_npu;
	struct wqueue *q; /* NPUPROF_DB_THREADED, while the thread runs */
	double sql_seconds, fsync_seconds; /* npuprof_db_timings */
};

static int set_msg(struct npuprof_db *w, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int on_writer_thread(const struct npuprof_db *w);
static char *msg_buf(struct npuprof_db *w);

/* Record a message for rc (negative errno) without poisoning the writer. */
static int set_msg(struct npuprof_db *w, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg_buf(w), sizeof(w->msg), fmt, ap);
	va_end(ap);
	return rc;
}

/* Map a SQLite failure to an errno; prefer the OS errno behind it. */
static int sqlite_errno(sqlite3 *db, int rc)
{
	int sys = db ? sqlite3_system_errno(db) : 0;

	switch (rc & 0xff) {
	case SQLITE_FULL: return -ENOSPC;
	case SQLITE_NOMEM: return -ENOMEM;
	case SQLITE_READONLY: return -EROFS;
	case SQLITE_PERM:
	case SQLITE_AUTH: return -EPERM;
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_RANGE:
	case SQLITE_TOOBIG: return -EINVAL;
	case SQLITE_IOERR:
	case SQLITE_CANTOPEN: return sys > 0 ? -sys : -EIO;
	default: return -EIO;
	}
}

/* A SQLite failure poisons the writer: the file will not be published. */
static int fail_sql(struct npuprof_db *w, int rc, const char *what)
{
	int e = sqlite_errno(w->db, rc);

	set_msg(w, e, "%s: %s: %s", w->tmp_path ? w->tmp_path : w->final_path, what,
		w->db ? sqlite3_errmsg(w->db) : sqlite3_errstr(rc));
	if (!on_writer_thread(w))
		w->err = e; /* the thread's failure reaches w->err through q_drain */
	return e;
}

static int exec(struct npuprof_db *w, const char *sql)
{
	int rc = sqlite3_exec(w->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : fail_sql(w, rc, sql);
}

static char *path_join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);

	if (!p)
		return NULL;
	memcpy(p, dir, a);
	p[a] = '/';
	memcpy(p + a + 1, name, b + 1);
	return p;
}

/*
 * Remove temporaries left by writers that died: old enough to be past the
 * mkstemp/flock window and not locked by a live writer. Best effort; a
 * failure here never stops a new export.
 */
static void remove_stale_temps(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	time_t now = time(NULL);

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat sb;
		char *p;
		int fd;

		if (strncmp(de->d_name, TMP_PREFIX, sizeof(TMP_PREFIX) - 1) != 0)
			continue;
		p = path_join(dir, de->d_name);
		if (!p)
			break;
		fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0) {
			if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
			    now - sb.st_mtime > STALE_AGE_S && flock(fd, LOCK_EX | LOCK_NB) == 0)
				unlink(p);
			close(fd);
		}
		free(p);
	}
	closedir(d);
}

/* The locked temporary <dir>/.npuprof-tmp-<name>.<unique> (atomicfile.c).
 * Returns the fd or a negative errno. */
static int create_temp(struct npuprof_db *w, const char *dir, const char *name)
{
	return atomic_tmp_create(dir, name, &w->tmp_path);
}

/* "INSERT INTO T (cols) VALUES (?, ...)" with nrows rows of parameters
 * into sql; the bind plan too when plan is set. 0, or -EOVERFLOW. */
static int insert_sql(struct npuprof_db *w, const struct npuprof_db_table_def *def, unsigned nrows,
		      char *sql, size_t len, int plan)
{
	struct tstate *ts = &w->t[def->id];
	size_t pos;
	unsigned n = 0;

	pos = (size_t)snprintf(sql, len, "INSERT INTO %s (", def->name);
	for (unsigned i = 0; i < def->ncols && pos < len; i++) {
		const struct npuprof_db_column *c = &def->cols[i];

		if (!c->sql[w->schema])
			continue;
		pos += (size_t)snprintf(sql + pos, len - pos, "%s%s", n ? ", " : "",
					c->sql[w->schema]);
		if (plan) {
			ts->bind[n] = (struct bindcol){ c->offset, c->kind, c->sql[w->schema] };
			ts->has_txt |= c->kind == NPUPROF_DBK_TXT;
		}
		n++;
	}
	if (pos < len)
		pos += (size_t)snprintf(sql + pos, len - pos, ") VALUES ");
	for (unsigned r = 0; r < nrows && pos < len; r++)
		for (unsigned i = 0; i < n && pos < len; i++)
			pos += (size_t)snprintf(sql + pos, len - pos, "%s%s%s",
						i ? "" :
						r ? ",(" :
						    "(",
						i ? ",?" : "?", i + 1 == n ? ")" : "");
	if (plan)
		ts->nbind = n;
	return pos < len ? 0 : -EOVERFLOW;
}

/* Prepare "INSERT INTO T (cols) VALUES (?, ...)" and the bind plan. */
static int prepare_insert(struct npuprof_db *w, const struct npuprof_db_table_def *def)
{
	struct tstate *ts = &w->t[def->id];
	char sql[4096];
	int rc;

	ts->bind = calloc(def->ncols, sizeof(*ts->bind));
	ts->sh = calloc(def->ncols, sizeof(*ts->sh));
	if (!ts->bind || !ts->sh)
		return set_msg(w, w->err = -ENOMEM, "%s: out of memory", def->name);
	if (insert_sql(w, def, 1, sql, sizeof(sql), 1) < 0)
		return set_msg(w, w->err = -EOVERFLOW, "%s: INSERT longer than %zu bytes",
			       def->name, sizeof(sql));
	rc = sqlite3_prepare_v3(w->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &ts->ins, NULL);
	return rc == SQLITE_OK ? 0 : fail_sql(w, rc, sql);
}

/* CREATE TABLE and prepare its INSERT: done once, before the first row. */
static int create_table(struct npuprof_db *w, const struct npuprof_db_table_def *def)
{
	char ddl[4096];
	int r;

	if (npuprof_dbschema_ddl(def, w->schema, ddl, sizeof(ddl)) < 0)
		return set_msg(w, w->err = -EOVERFLOW, "%s: DDL longer than %zu bytes", def->name,
			       sizeof(ddl));
	r = exec(w, ddl);
	return r < 0 ? r : prepare_insert(w, def);
}

/* Is v an interned string id? nstr is the CANN space's count (UINT32_MAX:
 * checked by the caller already). */
static int str_id_ok(const struct npuprof_db *w, int64_t v, uint32_t nstr)
{
	if (v < 0)
		return 0;
	if (nstr == UINT32_MAX)
		return 1;
	if (v < (int64_t)nstr && v < NPUPROF_DB_SPACE_BASE(1))
		return 1;
	for (unsigned i = 1; i < NPUPROF_DB_SPACE_COUNT; i++)
		if (w->space[i] && v >= NPUPROF_DB_SPACE_BASE(i) &&
		    v < NPUPROF_DB_SPACE_BASE(i) + (int64_t)npuprof_strtab_count(w->space[i]))
			return 1;
	return 0;
}

/* Every FLUSH_ROWS rows, the file's dirty pages start going to the disk
 * (SYNC_FILE_RANGE_WRITE waits for nothing), so that the one fsync before
 * the rename (publish) finds little left to write instead of the whole
 * file: at 1M tasks it was half of finishing. */
#define FLUSH_ROWS 32768
static void flush_behind(struct npuprof_db *w, unsigned nrows)
{
	w->rows_unflushed += nrows;
	if (w->rows_unflushed < FLUSH_ROWS)
		return;
	w->rows_unflushed = 0;
	if (w->lock_fd >= 0)
		(void)sync_file_range(w->lock_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
}

/* Bind one row's values from parameter first + 1 on; SQLITE_OK, a SQLite
 * failure, or -EINVAL (a bad string id: its message said). sh holds what
 * those parameters hold (a statement keeps its bindings over a reset): a
 * value bound already is not bound again, and consecutive rows repeat most
 * of theirs (a device, a process, a type, a name). */
static int bind_row(struct npuprof_db *w, const struct npuprof_db_table_def *def, sqlite3_stmt *s,
		    int first, const void *row, uint32_t nstr, struct bval *sh)
{
	const struct tstate *ts = &w->t[def->id];
	const char *base = row;
	int rc = SQLITE_OK;

	for (unsigned i = 0; i < ts->nbind && rc == SQLITE_OK; i++) {
		const struct bindcol *b = &ts->bind[i];
		const void *f = base + b->off;
		int col = first + (int)i + 1;
		int64_t v;
		unsigned char tag;

		memcpy(&v, f, sizeof(v));
		switch (b->kind) {
		case NPUPROF_DBK_STR:
			if (v != NPUPROF_DB_NULL && !str_id_ok(w, v, nstr))
				return set_msg(w, -EINVAL,
					       "%s.%s: string id %lld was not returned by "
					       "npuprof_db_intern (%u strings interned)",
					       def->name, b->name, (long long)v, nstr);
			/* fall through */
		case NPUPROF_DBK_I64: tag = v == NPUPROF_DB_NULL ? BV_NULL : BV_INT; break;
		case NPUPROF_DBK_F64: {
			double d;

			memcpy(&d, f, sizeof(d));
			tag = isnan(d) ? BV_NULL : BV_REAL; /* v: its bits */
			break;
		}
		default:
			tag = BV_NONE; /* TXT: a pointer, bound every time */
			break;
		}
		if (tag == BV_NULL)
			v = 0;
		if (tag != BV_NONE && sh[i].tag == tag && sh[i].v == v)
			continue;
		switch (tag) {
		case BV_NULL: rc = sqlite3_bind_null(s, col); break;
		case BV_INT: rc = sqlite3_bind_int64(s, col, v); break;
		case BV_REAL: {
			double d;

			memcpy(&d, &v, sizeof(d));
			rc = sqlite3_bind_double(s, col, d);
			break;
		}
		default: {
			const char *t;

			memcpy(&t, f, sizeof(t));
			rc = t ? sqlite3_bind_text(s, col, t, -1, SQLITE_STATIC) :
				 sqlite3_bind_null(s, col);
			break;
		}
		}
		sh[i].tag = rc == SQLITE_OK ? tag : BV_NONE;
		sh[i].v = v;
	}
	return rc;
}

/* Step s, which holds nrows rows of def bound; counts them. */
static int step_rows(struct npuprof_db *w, const struct npuprof_db_table_def *def, sqlite3_stmt *s,
		     int rc, unsigned nrows)
{
	struct tstate *ts = &w->t[def->id];

	if (rc < 0) {
		sqlite3_reset(s);
		return rc;
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		char what[128];

		if (nrows == 1)
			snprintf(what, sizeof(what), "inserting row %llu of %s",
				 (unsigned long long)ts->rows + 1, def->name);
		else
			snprintf(what, sizeof(what), "inserting rows %llu to %llu of %s",
				 (unsigned long long)ts->rows + 1,
				 (unsigned long long)ts->rows + nrows, def->name);
		return fail_sql(w, rc, what);
	}
	ts->rows += nrows;
	flush_behind(w, nrows);
	return 0;
}

/* Bind and step one row; the caller has validated table and size. */
static int write_row_n(struct npuprof_db *w, const struct npuprof_db_table_def *def,
		       const void *row, uint32_t nstr)
{
	sqlite3_stmt *s = w->t[def->id].ins;

	return step_rows(w, def, s, bind_row(w, def, s, 0, row, nstr, w->t[def->id].sh), 1);
}

static int write_row(struct npuprof_db *w, const struct npuprof_db_table_def *def, const void *row)
{
	return write_row_n(w, def, row, npuprof_strtab_count(w->st));
}

/* ---- the writer thread (NPUPROF_DB_THREADED) ------------------------------ */

static int on_writer_thread(const struct npuprof_db *w)
{
	return w->q && pthread_equal(pthread_self(), w->q->thread);
}

/* Where a message goes: the thread's own until q_drain hands it over. */
static char *msg_buf(struct npuprof_db *w)
{
	return on_writer_thread(w) ? w->q->msg : w->msg;
}

/* The batched INSERT of a table (BATCH_ROWS rows a step), prepared on
 * first use; NULL where SQLite cannot take that many parameters (rows then
 * go one a step). */
static sqlite3_stmt *batch_stmt(struct npuprof_db *w, const struct npuprof_db_table_def *def)
{
	struct tstate *ts = &w->t[def->id];
	char sql[16384];

	if (ts->ins_batch || ts->no_batch)
		return ts->ins_batch;
	ts->no_batch = 1;
	if ((int64_t)ts->nbind * BATCH_ROWS >
		    sqlite3_limit(w->db, SQLITE_LIMIT_VARIABLE_NUMBER, -1) ||
	    !(ts->sh_batch = calloc((size_t)ts->nbind * BATCH_ROWS, sizeof(*ts->sh_batch))) ||
	    insert_sql(w, def, BATCH_ROWS, sql, sizeof(sql), 0) < 0 ||
	    sqlite3_prepare_v3(w->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &ts->ins_batch, NULL) !=
		    SQLITE_OK) {
		sqlite3_finalize(ts->ins_batch);
		ts->ins_batch = NULL;
		return NULL;
	}
	ts->no_batch = 0;
	return ts->ins_batch;
}

/* A chunk's rows, each table's in the order they came (so a table's rows
 * and rowids are those of one row a step), BATCH_ROWS rows of a table a
 * step where there are that many: one step a row was a third of SQLite's
 * work (opening and closing the table's cursor, halting the statement).
 * String ids were checked by the caller: no bound here. */
static int write_chunk(struct npuprof_db *w, const struct qchunk *c)
{
	const struct wqueue *q = w->q;
	unsigned start[NPUPROF_DB_TABLE_COUNT + 1], at[NPUPROF_DB_TABLE_COUNT];
	uint16_t order[Q_ROWS];
	int r = 0;

	memset(start, 0, sizeof(start));
	for (unsigned i = 0; i < c->n; i++)
		start[c->tab[i] + 1]++;
	for (unsigned t = 0; t < NPUPROF_DB_TABLE_COUNT; t++)
		start[t + 1] += start[t];
	memcpy(at, start, sizeof(at));
	for (unsigned i = 0; i < c->n; i++)
		order[at[c->tab[i]]++] = (uint16_t)i;
	for (unsigned t = 0; t < NPUPROF_DB_TABLE_COUNT && !r; t++) {
		const struct npuprof_db_table_def *def = &npuprof_db_tables[t];
		unsigned k = start[t], end = start[t + 1];
		sqlite3_stmt *s = end - k >= BATCH_ROWS ? batch_stmt(w, def) : NULL;

		for (; s && end - k >= BATCH_ROWS && !r; k += BATCH_ROWS) {
			int rc = SQLITE_OK;

			for (unsigned j = 0; j < BATCH_ROWS && rc == SQLITE_OK; j++)
				rc = bind_row(w, def, s, (int)(j * w->t[t].nbind),
					      c->rows + order[k + j] * q->rowmax, UINT32_MAX,
					      w->t[t].sh_batch + j * w->t[t].nbind);
			r = step_rows(w, def, s, rc, BATCH_ROWS);
		}
		for (; k < end && !r; k++)
			r = write_row_n(w, def, c->rows + order[k] * q->rowmax, UINT32_MAX);
	}
	return r;
}

static double thread_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *writer_main(void *arg)
{
	struct npuprof_db *w = arg;
	struct wqueue *q = w->q;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (q->head == q->tail && !q->stop)
			pthread_cond_wait(&q->cv, &q->mu);
		if (q->head == q->tail)
			break;
		struct qchunk *c = &q->c[q->head % Q_CHUNKS];
		int failed = q->err;

		pthread_mutex_unlock(&q->mu);
		if (!failed)
			failed = write_chunk(w, c);
		c->n = 0;
		pthread_mutex_lock(&q->mu);
		if (failed && !q->err)
			__atomic_store_n(&q->err, failed,
					 __ATOMIC_RELAXED); /* q->msg has its words */
		q->head++;
		pthread_cond_broadcast(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
	q->cpu_seconds = thread_cpu_seconds();
	return NULL;
}

/* The caller's chunk to the thread; waits for a free one. */
static void q_publish(struct wqueue *q)
{
	pthread_mutex_lock(&q->mu);
	if (q->fill) {
		q->c[q->tail % Q_CHUNKS].n = q->fill;
		q->tail++;
		q->fill = 0;
		pthread_cond_broadcast(&q->cv);
	}
	while (q->tail - q->head >= Q_CHUNKS)
		pthread_cond_wait(&q->cv, &q->mu);
	pthread_mutex_unlock(&q->mu);
}

/* Everything queued written (the thread idle); its failure becomes the
 * writer's. After this the caller may use the connection. */
static int q_drain(struct npuprof_db *w)
{
	struct wqueue *q = w->q;

	if (!q)
		return w->err;
	q_publish(q);
	pthread_mutex_lock(&q->mu);
	while (q->head != q->tail)
		pthread_cond_wait(&q->cv, &q->mu);
	if (q->err && !w->err) {
		w->err = q->err;
		memcpy(w->msg, q->msg, sizeof(w->msg));
	}
	pthread_mutex_unlock(&q->mu);
	return w->err;
}

static void q_stop(struct npuprof_db *w)
{
	struct wqueue *q = w->q;

	if (!q)
		return;
	q_drain(w);
	pthread_mutex_lock(&q->mu);
	q->stop = 1;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->thread, NULL);
	w->sql_seconds += q->cpu_seconds;
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	for (unsigned i = 0; i < Q_CHUNKS; i++) {
		free(q->c[i].tab);
		free(q->c[i].rows);
	}
	free(q);
	w->q = NULL;
}

static int q_start(struct npuprof_db *w)
{
	struct wqueue *q = calloc(1, sizeof(*q));

	if (!q)
		return -ENOMEM;
	for (unsigned i = 0; i < NPUPROF_DB_TABLE_COUNT; i++)
		if (npuprof_db_tables[i].row_size > q->rowmax)
			q->rowmax = npuprof_db_tables[i].row_size;
	q->rowmax = (q->rowmax + 7) & ~(size_t)7;
	for (unsigned i = 0; i < Q_CHUNKS; i++) {
		q->c[i].tab = malloc(Q_ROWS);
		q->c[i].rows = malloc(Q_ROWS * q->rowmax);
		if (!q->c[i].tab || !q->c[i].rows)
			goto fail;
	}
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	w->q = q;
	if (pthread_create(&q->thread, NULL, writer_main, w) != 0) {
		pthread_mutex_destroy(&q->mu);
		pthread_cond_destroy(&q->cv);
		w->q = NULL;
		goto fail;
	}
	return 0;
fail:
	for (unsigned i = 0; i < Q_CHUNKS; i++) {
		free(q->c[i].tab);
		free(q->c[i].rows);
	}
	free(q);
	return -ENOMEM;
}

/* Queue one row (validated, its table created, no TXT column). */
static int q_row(struct npuprof_db *w, const struct npuprof_db_table_def *def, const void *row)
{
	struct wqueue *q = w->q;
	struct tstate *ts = &w->t[def->id];
	uint32_t nstr = npuprof_strtab_count(w->st);
	struct qchunk *c;

	/* the string-id check write_row makes, here where the table lives */
	for (unsigned i = 0; i < ts->nbind; i++) {
		int64_t v;

		if (ts->bind[i].kind != NPUPROF_DBK_STR)
			continue;
		memcpy(&v, (const char *)row + ts->bind[i].off, sizeof(v));
		if (v != NPUPROF_DB_NULL && !str_id_ok(w, v, nstr))
			return set_msg(w, -EINVAL,
				       "%s.%s: string id %lld was not returned by "
				       "npuprof_db_intern (%u strings interned)",
				       def->name, ts->bind[i].name, (long long)v, nstr);
	}
	if (__atomic_load_n(&q->err, __ATOMIC_RELAXED))
		return q_drain(w);
	c = &q->c[q->tail % Q_CHUNKS];
	c->tab[q->fill] = (unsigned char)def->id;
	memcpy(c->rows + q->fill * q->rowmax, row, def->row_size);
	if (++q->fill == Q_ROWS)
		q_publish(q);
	return 0;
}

/* Create an ENUM table and fill it with the seed's rows for this variant. */
static int write_enum(struct npuprof_db *w, const struct npuprof_db_table_def *def)
{
	unsigned want = w->variant == NPUPROF_DB_PYTORCH ? NPUPROF_DBE_PYTORCH : NPUPROF_DBE_MSPROF;
	int r = create_table(w, def);

	for (unsigned i = 0; r == 0 && i < def->n_enum_rows; i++) {
		const struct npuprof_db_enum_row *e = &def->enum_rows[i];
		struct npuprof_db_enum_api_type row = { e->id, e->name };

		if (e->writers & want)
			r = write_row(w, def, &row);
	}
	return r;
}

static int write_meta(struct npuprof_db *w)
{
	const struct npuprof_db_table_def *def = &npuprof_db_tables[NPUPROF_DB_META_DATA];
	const struct npuprof_db_version *v = npuprof_dbschema_version(w->schema);
	const struct npuprof_db_meta_data rows[] = {
		{ "SCHEMA_VERSION", v->full },
		{ "SCHEMA_VERSION_MAJOR", v->major },
		{ "SCHEMA_VERSION_MINOR", v->minor },
		{ "SCHEMA_VERSION_MICRO", v->micro },
	};
	int r = create_table(w, def);

	for (unsigned i = 0; r == 0 && i < sizeof(rows) / sizeof(rows[0]); i++)
		r = write_row(w, def, &rows[i]);
	return r;
}

static int check_options(const struct npuprof_db_options *o, char *err, size_t errlen)
{
	if ((unsigned)o->schema > NPUPROF_DB_SCHEMA_1_2_0) {
		snprintf(err, errlen, "invalid schema version option %d", (int)o->schema);
		return -EINVAL;
	}
	if ((unsigned)o->variant > NPUPROF_DB_ANALYSIS) {
		snprintf(err, errlen, "invalid database variant option %d", (int)o->variant);
		return -EINVAL;
	}
	if (o->flags & ~(NPUPROF_DB_REPLACE | NPUPROF_DB_THREADED)) {
		snprintf(err, errlen, "invalid flags 0x%x", o->flags);
		return -EINVAL;
	}
	if (o->file_name && (!o->file_name[0] || strchr(o->file_name, '/') ||
			     !strcmp(o->file_name, ".") || !strcmp(o->file_name, "..") ||
			     !strncmp(o->file_name, TMP_PREFIX, sizeof(TMP_PREFIX) - 1))) {
		snprintf(err, errlen, "invalid database file name \"%s\"", o->file_name);
		return -EINVAL;
	}
	return 0;
}

static void discard(struct npuprof_db *w)
{
	q_stop(w);
	for (unsigned i = 0; i < NPUPROF_DB_TABLE_COUNT; i++) {
		sqlite3_finalize(w->t[i].ins);
		sqlite3_finalize(w->t[i].ins_batch);
		w->t[i].ins = w->t[i].ins_batch = NULL;
	}
	if (w->db) {
		sqlite3_close(w->db);
		w->db = NULL;
	}
	if (w->tmp_path) {
		unlink(w->tmp_path);
		free(w->tmp_path);
		w->tmp_path = NULL;
	}
	if (w->lock_fd >= 0) {
		close(w->lock_fd);
		w->lock_fd = -1;
	}
}

static void destroy(struct npuprof_db *w)
{
	discard(w);
	for (unsigned i = 0; i < NPUPROF_DB_TABLE_COUNT; i++) {
		free(w->t[i].bind);
		free(w->t[i].sh);
		free(w->t[i].sh_batch);
	}
	npuprof_strtab_free(w->st);
	for (unsigned i = 1; i < NPUPROF_DB_SPACE_COUNT; i++)
		npuprof_strtab_free(w->space[i]);
	free(w->npu_ids);
	free(w->final_path);
	free(w->dir);
	free(w);
}

int npuprof_db_open(struct npuprof_db **out, const char *dir, const struct npuprof_db_options *opt,
		    char *err, size_t errlen)
{
	static const struct npuprof_db_options defaults;
	struct npuprof_db *w;
	char name[PATH_MAX], errbuf[1024];
	struct stat sb;
	int r, fd;

	if (!err) {
		err = errbuf;
		errlen = sizeof(errbuf);
	}
	if (errlen)
		err[0] = '\0';
	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!opt)
		opt = &defaults;
	if (!dir || !dir[0]) {
		snprintf(err, errlen, "no output directory given");
		return -EINVAL;
	}
	r = check_options(opt, err, errlen);
	if (r < 0)
		return r;
	if (stat(dir, &sb) < 0) {
		r = -errno;
		snprintf(err, errlen, "output directory %s: %s", dir, strerror(-r));
		return r;
	}
	if (!S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "output directory %s: %s", dir, strerror(ENOTDIR));
		return -ENOTDIR;
	}

	if (opt->file_name) {
		snprintf(name, sizeof(name), "%s", opt->file_name);
	} else {
		/* msprof_ + exactly 14 digits: the only form every reader accepts. */
		time_t t = opt->timestamp ? opt->timestamp : time(NULL);
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(name, sizeof(name), "msprof_%Y%m%d%H%M%S.db", &tm);
	}

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->lock_fd = -1;
	w->schema = opt->schema;
	w->variant = opt->variant;
	w->flags = opt->flags;
	w->dir = strdup(dir);
	w->final_path = path_join(dir, name);
	w->st = npuprof_strtab_new();
	if (!w->dir || !w->final_path || !w->st) {
		destroy(w);
		return -ENOMEM;
	}

	remove_stale_temps(dir);
	fd = create_temp(w, dir, name);
	if (fd < 0) {
		r = fd;
		snprintf(err, errlen, "cannot create a temporary database in %s: %s", dir,
			 strerror(-r));
		destroy(w);
		return r;
	}
	w->lock_fd = fd;
	/* create_temp locked it: live for remove_stale_temps() elsewhere. */

	/*
	 * The temporary is private (flock above marks it live), so SQLite's
	 * own POSIX locks add nothing; "unix-none" also keeps the writer
	 * working on file systems whose lock calls fail (9p, some NFS).
	 */
	r = sqlite3_open_v2(w->tmp_path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    "unix-none");
	if (r != SQLITE_OK) {
		r = fail_sql(w, r, "opening");
		goto fail;
	}
	sqlite3_extended_result_codes(w->db, 1);
	/*
	 * page_size 4096 as observed in real files; no journal and no syncs
	 * while the private temporary is built (see the file comment).
	 */
	r = exec(w, "PRAGMA page_size=4096");
	if (!r)
		r = exec(w, "PRAGMA journal_mode=OFF");
	if (!r)
		r = exec(w, "PRAGMA synchronous=OFF");
	if (!r)
		r = exec(w, "PRAGMA locking_mode=EXCLUSIVE");
	if (!r) {
		char sql[64];

		snprintf(sql, sizeof(sql), "PRAGMA cache_size=-%d", CACHE_KIB);
		r = exec(w, sql);
	}
	if (!r)
		r = exec(w, "BEGIN");
	/* analysis.db holds its own tables only */
	for (unsigned i = 0; !r && w->variant != NPUPROF_DB_ANALYSIS && i < NPUPROF_DB_TABLE_COUNT;
	     i++)
		if (npuprof_db_tables[i].enum_rows)
			r = write_enum(w, &npuprof_db_tables[i]);
	if (!r && w->variant != NPUPROF_DB_ANALYSIS)
		r = write_meta(w);
	/* "N/A" takes id 0: the producer's absent value, and never `launch`. */
	if (!r && npuprof_strtab_intern(w->st, "N/A", 3) != NPUPROF_DB_STR_NA)
		r = set_msg(w, w->err = -ENOMEM, "out of memory");
	if (!r && (w->flags & NPUPROF_DB_THREADED) && q_start(w) < 0)
		r = set_msg(w, w->err = -ENOMEM, "cannot start the writer thread");
	if (r)
		goto fail;
	*out = w;
	return 0;
fail:
	snprintf(err, errlen, "%s", w->msg);
	destroy(w);
	return r;
}

npuprof_db_str npuprof_db_intern_n(struct npuprof_db *w, const char *s, size_t len)
{
	int64_t id;

	if (!w)
		return -EINVAL;
	if (w->err)
		return w->err;
	if (!s)
		return set_msg(w, -EINVAL, "npuprof_db_intern: NULL string");
	if (w->finished)
		return set_msg(w, -EINVAL, "%s: already finished", w->final_path);
	id = npuprof_strtab_intern(w->st, s, len);
	if (id < 0)
		set_msg(w, (int)id, "STRING_IDS: cannot intern a %zu-byte string: %s", len,
			id == -ENOSPC ? "more than 2^28 distinct strings" : strerror((int)-id));
	return id;
}

npuprof_db_str npuprof_db_intern_space(struct npuprof_db *w, enum npuprof_db_space sp,
				       const char *s, size_t len)
{
	int64_t id;

	if (!w)
		return -EINVAL;
	if ((unsigned)sp >= NPUPROF_DB_SPACE_COUNT)
		return set_msg(w, -EINVAL, "npuprof_db_intern_space: no string space %u",
			       (unsigned)sp);
	if (sp == NPUPROF_DB_SPACE_CANN)
		return npuprof_db_intern_n(w, s, len);
	if (w->err)
		return w->err;
	if (!s)
		return set_msg(w, -EINVAL, "npuprof_db_intern_space: NULL string");
	if (w->finished)
		return set_msg(w, -EINVAL, "%s: already finished", w->final_path);
	if (!w->space[sp] && !(w->space[sp] = npuprof_strtab_new()))
		return set_msg(w, -ENOMEM, "out of memory");
	id = npuprof_strtab_intern(w->space[sp], s, len);
	if (id < 0)
		return set_msg(w, (int)id, "STRING_IDS: cannot intern a %zu-byte string: %s", len,
			       id == -ENOSPC ? "more than 2^28 distinct strings in one space" :
					       strerror((int)-id));
	return NPUPROF_DB_SPACE_BASE(sp) + id;
}

npuprof_db_str npuprof_db_intern(struct npuprof_db *w, const char *s)
{
	if (!s)
		return w ? set_msg(w, -EINVAL, "npuprof_db_intern: NULL string") : -EINVAL;
	return npuprof_db_intern_n(w, s, strlen(s));
}

/* First row of a table: check that it exists in this file, then create it. */
static int first_row(struct npuprof_db *w, const struct npuprof_db_table_def *def)
{
	if (!npuprof_dbschema_table_exists(def, w->schema, w->variant))
		return set_msg(w, -EINVAL, "%s does not exist in a %s database of schema %s",
			       def->name,
			       w->variant == NPUPROF_DB_PYTORCH	 ? "PyTorch" :
			       w->variant == NPUPROF_DB_ANALYSIS ? "torch_npu analysis" :
								   "msprof",
			       npuprof_dbschema_version(w->schema)->full);
	return create_table(w, def);
}

/* Table t of a usable, unfinished writer into *def; 0 or a negative errno. */
static int table_for_write(struct npuprof_db *w, enum npuprof_db_table t,
			   const struct npuprof_db_table_def **def)
{
	if (!w)
		return -EINVAL;
	if (w->err)
		return w->err;
	if (w->finished)
		return set_msg(w, -EINVAL, "%s: already finished", w->final_path);
	*def = npuprof_dbschema_table(t);
	if (!*def)
		return set_msg(w, -EINVAL, "invalid table id %d (valid: 0..%d)", (int)t,
			       NPUPROF_DB_TABLE_COUNT - 1);
	return 0;
}

int npuprof_db_insert(struct npuprof_db *w, enum npuprof_db_table t, const void *row,
		      size_t row_size)
{
	const struct npuprof_db_table_def *def;
	int r = table_for_write(w, t, &def);

	if (r)
		return r;
	if (!row)
		return set_msg(w, -EINVAL, "%s: NULL row", def->name);
	if (row_size != def->row_size)
		return set_msg(w, -EINVAL,
			       "%s: row of %zu bytes, expected %zu (struct npuprof_db_* of "
			       "another table?)",
			       def->name, row_size, def->row_size);
	if (def->flags & NPUPROF_DBT_MANAGED)
		return set_msg(w, -EPERM, "%s is written by the database writer itself", def->name);
	if (t == NPUPROF_DB_META_DATA) {
		const struct npuprof_db_meta_data *m = row;

		if (!m->name || !strncmp(m->name, "SCHEMA_VERSION", 14))
			return set_msg(w, -EPERM,
				       "META_DATA: %s is written by the database writer itself",
				       m->name ? m->name : "a NULL name");
	}
	if (w->q) {
		if (w->t[t].ins && !w->t[t].has_txt)
			return q_row(w, def, row);
		r = q_drain(w); /* the connection is the caller's from here */
		if (r < 0)
			return r;
	}
	if (!w->t[t].ins) {
		r = first_row(w, def);
		if (r < 0)
			return r;
	}
	r = w->q && !w->t[t].has_txt ? q_row(w, def, row) : write_row(w, def, row);
	if (r == 0 && t == NPUPROF_DB_NPU_INFO) {
		if (w->n_npu == w->cap_npu) {
			size_t n = w->cap_npu ? w->cap_npu * 2 : 8;
			int64_t *p = realloc(w->npu_ids, n * sizeof(*p));

			if (!p)
				return set_msg(w, w->err = -ENOMEM, "out of memory");
			w->npu_ids = p;
			w->cap_npu = n;
		}
		w->npu_ids[w->n_npu++] = ((const struct npuprof_db_npu_info *)row)->id;
	}
	return r;
}

int npuprof_db_create_table(struct npuprof_db *w, enum npuprof_db_table t)
{
	const struct npuprof_db_table_def *def;
	int r = table_for_write(w, t, &def);

	if (r)
		return r;
	if (w->t[t].ins)
		return 0;
	if (w->q) {
		r = q_drain(w); /* the connection is the caller's from here */
		if (r < 0)
			return r;
	}
	return first_row(w, def);
}

/*
 * Every msprof DB has RANK_DEVICE_MAP (1.2.0 msprof writes it by default, the
 * 1.0.0 files of real jobs carry it, and msprof-analyze's CROSS JOIN needs
 * it whatever the version): rank -1 (unknown) for each device of NPU_INFO,
 * or (-1, -1) without devices. A caller's rows win.
 */
static int write_default_rank_map(struct npuprof_db *w)
{
	const struct npuprof_db_table_def *def = &npuprof_db_tables[NPUPROF_DB_RANK_DEVICE_MAP];
	int r;

	if (w->variant != NPUPROF_DB_MSPROF || w->t[def->id].rows)
		return 0;
	r = w->t[def->id].ins ? 0 : create_table(w, def);
	for (size_t i = 0; !r && i < w->n_npu; i++) {
		struct npuprof_db_rank_device_map m = { -1, w->npu_ids[i] };

		r = write_row(w, def, &m);
	}
	if (!r && !w->n_npu) {
		struct npuprof_db_rank_device_map m = { -1, -1 };

		r = write_row(w, def, &m);
	}
	return r;
}

/* STRING_IDS last, as the producer does: it holds every interned string. */
static int write_strings(struct npuprof_db *w)
{
	const struct npuprof_db_table_def *def = &npuprof_db_tables[NPUPROF_DB_STRING_IDS];
	uint32_t n;
	sqlite3_stmt *s;
	int r = create_table(w, def);

	if (r)
		return r;
	s = w->t[def->id].ins;
	n = 0;
	/* the CANN strings (space 0, ids from 0), then each framework space */
	for (unsigned sp = 0; sp < NPUPROF_DB_SPACE_COUNT; sp++) {
		const struct npuprof_strtab *tab = sp ? w->space[sp] : w->st;
		uint32_t m = tab ? npuprof_strtab_count(tab) : 0;

		for (uint32_t i = 0; i < m; i++) {
			size_t len;
			const char *v = npuprof_strtab_get(tab, i, &len);
			int rc = sqlite3_bind_int64(s, 1, NPUPROF_DB_SPACE_BASE(sp) + i);

			/* Bound with its length: any bytes, NUL included, round-trip. */
			if (rc == SQLITE_OK)
				rc = sqlite3_bind_text64(s, 2, v, len, SQLITE_STATIC, SQLITE_UTF8);
			if (rc == SQLITE_OK)
				rc = sqlite3_step(s);
			sqlite3_reset(s);
			if (rc != SQLITE_DONE)
				return fail_sql(w, rc, "writing STRING_IDS");
		}
		n += m;
	}
	w->t[def->id].rows = n;
	/* bound here, not by bind_row: what it knows of them is not true */
	memset(w->t[def->id].sh, 0, w->t[def->id].nbind * sizeof(*w->t[def->id].sh));
	return 0;
}

static int publish(struct npuprof_db *w)
{
	int dfd;

	/* The one sync that matters: file contents before the name appears. */
	if (fsync(w->lock_fd) < 0)
		return set_msg(w, -errno, "%s: fsync: %s", w->tmp_path, strerror(errno));
	if (w->flags & NPUPROF_DB_REPLACE) {
		if (rename(w->tmp_path, w->final_path) < 0)
			return set_msg(w, -errno, "renaming %s to %s: %s", w->tmp_path,
				       w->final_path, strerror(errno));
	} else if (renameat2(AT_FDCWD, w->tmp_path, AT_FDCWD, w->final_path, RENAME_NOREPLACE) <
		   0) {
		int e = errno;

		/* Filesystems without RENAME_NOREPLACE: link() fails on EEXIST too. */
		if (e == EINVAL || e == ENOSYS) {
			if (link(w->tmp_path, w->final_path) == 0) {
				unlink(w->tmp_path);
				e = 0;
			} else {
				e = errno;
			}
		}
		if (e == EEXIST)
			return set_msg(w, -EEXIST,
				       "%s already exists; not replaced (a database from the same "
				       "second? set NPUPROF_DB_REPLACE to overwrite)",
				       w->final_path);
		if (e)
			return set_msg(w, -e, "renaming %s to %s: %s", w->tmp_path, w->final_path,
				       strerror(e));
	}
	dfd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}

int npuprof_db_finish(struct npuprof_db *w)
{
	double cpu0;
	int r;

	if (!w)
		return -EINVAL;
	if (w->finished)
		return set_msg(w, -EINVAL, "%s: already finished", w->final_path);
	q_stop(w);
	/* the rows' pages start going to the disk while the indexes are built
	 * (publish's fsync then waits for little more than those) */
	if (w->lock_fd >= 0)
		(void)sync_file_range(w->lock_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	cpu0 = thread_cpu_seconds();
	r = w->err;
	if (!r)
		r = write_default_rank_map(w);
	for (unsigned i = 0; !r && i < npuprof_db_n_indexes; i++) {
		const struct npuprof_db_index *ix = &npuprof_db_indexes[i];
		char sql[256];

		if (!w->t[ix->table].ins)
			continue;
		npuprof_dbschema_index_ddl(ix, sql, sizeof(sql));
		r = exec(w, sql);
	}
	if (!r && w->variant != NPUPROF_DB_ANALYSIS)
		r = write_strings(w);
	if (!r)
		r = exec(w, "COMMIT");
	for (unsigned i = 0; !r && i < NPUPROF_DB_TABLE_COUNT; i++) {
		sqlite3_finalize(w->t[i].ins);
		sqlite3_finalize(w->t[i].ins_batch);
		w->t[i].ins = w->t[i].ins_batch = NULL;
	}
	if (!r) {
		int rc = sqlite3_close(w->db);

		if (rc != SQLITE_OK)
			r = fail_sql(w, rc, "closing");
		else
			w->db = NULL;
	}
	w->sql_seconds += thread_cpu_seconds() - cpu0;
	if (!r) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		r = publish(w);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		w->fsync_seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	}
	if (r) {
		w->err = r;
		discard(w);
		return r;
	}
	free(w->tmp_path);
	w->tmp_path = NULL;
	close(w->lock_fd);
	w->lock_fd = -1;
	w->finished = 1;
	return 0;
}

void npuprof_db_close(struct npuprof_db *w)
{
	if (w)
		destroy(w);
}

const char *npuprof_db_path(const struct npuprof_db *w)
{
	return w ? w->final_path : "";
}

const char *npuprof_db_temp_path(const struct npuprof_db *w)
{
	return w && w->tmp_path ? w->tmp_path : "";
}

void npuprof_db_timings(const struct npuprof_db *w, double *sql_seconds, double *sync_seconds)
{
	*sql_seconds = w ? w->sql_seconds : 0;
	*sync_seconds = w ? w->fsync_seconds : 0;
}

const char *npuprof_db_errmsg(const struct npuprof_db *w)
{
	return w ? w->msg : "no writer";
}

uint64_t npuprof_db_row_count(const struct npuprof_db *w, enum npuprof_db_table t)
{
	if (!w || (unsigned)t >= NPUPROF_DB_TABLE_COUNT)
		return 0;
	if (w->q)
		q_drain((struct npuprof_db *)w); /* counted by the thread */
	return w->t[t].rows;
}

const char *npuprof_db_table_name(enum npuprof_db_table t)
{
	const struct npuprof_db_table_def *def = npuprof_dbschema_table(t);

	return def ? def->name : NULL;
}
