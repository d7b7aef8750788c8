/*
 * report.c - `npuprof report`: a text summary of an msprof database.
 *
 * Everything is computed with read-only SQL over the tables of
 * docs/ascend-reference.md section 3, joined the way the consumers of section 5
 * join them (COMPUTE_TASK_INFO and TASK on globalTaskId, CANN_API and TASK on
 * connectionId, COMMUNICATION_TASK_INFO and COMMUNICATION_OP on opId), so the
 * same code reads our exports, real msprof files and torch_npu's variant.
 *
 * The producer creates a data table only when it has rows, so every section
 * first probes sqlite_master and says "none" rather than failing. The lookup
 * tables the joins need (STRING_IDS and the ENUM_* tables) get empty TEMP
 * stand-ins when absent, as MindStudio Insight does; unresolved ids then print
 * as "#<id>". TEMP tables live in a separate database, so the file itself is
 * never written.
 *
 * Our exporter records capture statistics in META_DATA rows named npuprof.*;
 * the ones that mean the data is incomplete or estimated become warnings, and
 * npuprof.sample_n (the sampling weight) scales task counts and totals.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <npuprof/hostfmt.h>
#include <npuprof/msprof_ids.h>
#include <npuprof/report.h>

#include "dbread.h"
#include "numparse.h"

#define DEFAULT_TOP 20
#define MAX_STREAMS_SHOWN 64

struct rep {
	sqlite3 *db;
	FILE *out;
	const char *path;
	char *err;
	size_t errlen;
	unsigned top;
	int64_t weight; /* npuprof.sample_n; 1 when not sampled */
	int64_t span_start, span_end;
	const char *span_src;
	const char *blk_col; /* blockNum (1.2.0) or blockDim (1.1.1), or NULL */
};

static int fail(struct rep *r, int e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct rep *r, int e, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (r->err && r->errlen) {
		n = snprintf(r->err, r->errlen, "%s: ", r->path);
		if (n < 0 || (size_t)n >= r->errlen)
			n = 0;
		va_start(ap, fmt);
		vsnprintf(r->err + n, r->errlen - n, fmt, ap);
		va_end(ap);
	}
	return e;
}

/* An SQLite failure in section `what`, mapped to an errno the caller can act on. */
static int sql_fail(struct rep *r, const char *what)
{
	int code = sqlite3_errcode(r->db) & 0xff;

	if (code == SQLITE_NOTADB)
		return fail(r, -EINVAL, "not an SQLite database (%s)", sqlite3_errmsg(r->db));
	if (code == SQLITE_NOMEM)
		return fail(r, -ENOMEM, "out of memory reading %s", what);
	return fail(r, -EIO, "reading %s failed: %s", what, sqlite3_errmsg(r->db));
}

static int prep(struct rep *r, sqlite3_stmt **st, const char *sql, const char *what)
{
	if (sqlite3_prepare_v2(r->db, sql, -1, st, NULL) != SQLITE_OK) {
		*st = NULL;
		return sql_fail(r, what);
	}
	return 0;
}

/* Finish a stepping loop: SQLITE_DONE is success, anything else an error. */
static int done(struct rep *r, sqlite3_stmt *st, int rc, const char *what)
{
	int e = rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : sql_fail(r, what);

	sqlite3_finalize(st);
	return e;
}

/* Whether main (or temp) has a table of this name: 1, 0, or a negative errno. */
static int has_table(struct rep *r, const char *name)
{
	int e = npuprof_db_has_table(r->db, name);

	return e < 0 ? sql_fail(r, "sqlite_master") : e;
}

/* Whether table has column col: 1, 0, or a negative errno. */
static int has_column(struct rep *r, const char *table, const char *col)
{
	int e = npuprof_db_has_column(r->db, table, col);

	return e < 0 ? sql_fail(r, table) : e;
}

/* One integer from a query (0 when it returns no row or NULL). */
static int query_i64(struct rep *r, const char *sql, const char *what, int64_t *v)
{
	sqlite3_stmt *st;
	int rc, e = prep(r, &st, sql, what);

	if (e)
		return e;
	*v = 0;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int64(st, 0);
	return done(r, st, rc, what);
}

/* Rows of table, or -1 when it does not exist. */
static int table_rows(struct rep *r, const char *table, int64_t *n)
{
	char sql[128];
	int e = has_table(r, table);

	*n = -1;
	if (e <= 0)
		return e;
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM \"%s\"", table);
	return query_i64(r, sql, table, n);
}

/* Nanoseconds as microseconds with three decimals (exact). */
static const char *us(char *buf, size_t len, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	snprintf(buf, len, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", a / 1000, a % 1000);
	return buf;
}

static const char *pct(char *buf, size_t len, double part, double whole)
{
	if (whole <= 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f%%", 100.0 * part / whole);
	return buf;
}

/* A text column as it may go to a terminal: control characters (C0, DEL,
 * and C1 as UTF-8 encodes them) shown as \xNN, so a hostile STRING_IDS
 * cannot clear the screen or set the title. NULL stays NULL. The result
 * lives until eight more calls on this thread. */
static const char *shown_text(sqlite3_stmt *st, int col)
{
	static __thread char bufs[8][2048];
	static __thread unsigned next;
	const unsigned char *s = sqlite3_column_text(st, col);
	char *out;
	size_t n = 0;

	if (!s)
		return NULL;
	out = bufs[next++ % 8];
	for (; *s && n + 9 < sizeof(bufs[0]); s++) {
		if (*s < 0x20 || *s == 0x7f) {
			n += (size_t)snprintf(out + n, sizeof(bufs[0]) - n, "\\x%02x", *s);
		} else if (*s == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f) {
			n += (size_t)snprintf(out + n, sizeof(bufs[0]) - n, "\\xc2\\x%02x", s[1]);
			s++;
		} else {
			out[n++] = (char)*s;
		}
	}
	out[n] = '\0';
	return out;
}

static const char *text_or(sqlite3_stmt *st, int col, const char *dflt)
{
	const char *s = shown_text(st, col);

	return s ? s : dflt;
}

/* Empty TEMP stand-ins for the lookup tables the joins need. */
static int lookup_standins(struct rep *r)
{
	static const char *const tabs[] = {
		"STRING_IDS",
		"ENUM_API_TYPE",
		"ENUM_HCCL_DATA_TYPE",
		"ENUM_MSTX_EVENT_TYPE",
	};

	for (size_t i = 0; i < sizeof(tabs) / sizeof(tabs[0]); i++) {
		char sql[160];
		int e = has_table(r, tabs[i]);

		if (e < 0)
			return e;
		if (e)
			continue;
		snprintf(sql, sizeof(sql),
			 "CREATE TEMP TABLE \"%s\" (id INTEGER PRIMARY KEY, %s TEXT)", tabs[i],
			 strcmp(tabs[i], "STRING_IDS") ? "name" : "value");
		if (sqlite3_exec(r->db, sql, NULL, NULL, NULL) != SQLITE_OK)
			return sql_fail(r, tabs[i]);
	}
	return 0;
}

/* ---- header ------------------------------------------------------------ */

static int section_header(struct rep *r, const char *found_in, unsigned others)
{
	static const char *const counted[] = {
		"TASK", "COMPUTE_TASK_INFO", "CANN_API", "COMMUNICATION_OP", "MSTX_EVENTS",
	};
	char schema[64] = "unknown (no META_DATA)", b1[32];
	sqlite3_stmt *st;
	int64_t n, pytorch;
	int rc, e;

	fprintf(r->out, "npuprof report: %s\n", r->path);
	if (found_in)
		fprintf(r->out, "  found in     %s%s\n", found_in,
			others ? " (more databases there; pass a file to choose)" : "");
	if ((e = has_table(r, "META_DATA")) < 0)
		return e;
	if (e) {
		if ((e = prep(r, &st, "SELECT value FROM META_DATA WHERE name = 'SCHEMA_VERSION'",
			      "META_DATA")))
			return e;
		rc = sqlite3_step(st);
		snprintf(schema, sizeof(schema), "%s",
			 rc == SQLITE_ROW ? text_or(st, 0, "?") : "unknown (no SCHEMA_VERSION)");
		if ((e = done(r, st, rc, "META_DATA")))
			return e;
	}
	if ((e = has_table(r, "PYTORCH_API")) < 0)
		return e;
	pytorch = e;
	fprintf(r->out, "  schema       %s, %s database\n", schema,
		pytorch ? "PyTorch profiler (torch_npu)" : "msprof");

	if ((e = has_table(r, "HOST_INFO")) < 0)
		return e;
	if (e) {
		if ((e = prep(r, &st, "SELECT hostName, hostUid FROM HOST_INFO LIMIT 1",
			      "HOST_INFO")))
			return e;
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			fprintf(r->out, "  host         %s (uid %s)\n", text_or(st, 0, "?"),
				text_or(st, 1, "?"));
		if ((e = done(r, st, rc, "HOST_INFO")))
			return e;
	}
	if ((e = has_table(r, "NPU_INFO")) < 0)
		return e;
	if (e) {
		if ((e = prep(r, &st, "SELECT id, name FROM NPU_INFO ORDER BY id", "NPU_INFO")))
			return e;
		fprintf(r->out, "  devices     ");
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			fprintf(r->out, " %lld %s", (long long)sqlite3_column_int64(st, 0),
				text_or(st, 1, "?"));
		fputc('\n', r->out);
		if ((e = done(r, st, rc, "NPU_INFO")))
			return e;
	}
	fprintf(r->out, "  session      %s us (%s)\n",
		us(b1, sizeof(b1), span_ns(r->span_start, r->span_end)), r->span_src);
	fprintf(r->out, "  rows        ");
	for (size_t i = 0; i < sizeof(counted) / sizeof(counted[0]); i++) {
		if ((e = table_rows(r, counted[i], &n)))
			return e;
		fprintf(r->out, " %s %lld%s", counted[i], (long long)(n < 0 ? 0 : n),
			i + 1 < sizeof(counted) / sizeof(counted[0]) ? "," : "\n");
	}
	return 0;
}

/* The session span: SESSION_TIME_INFO, widened to the tasks if they stray out. */
static int session_span(struct rep *r)
{
	sqlite3_stmt *st;
	int64_t s = 0, t = 0, tmin = 0, tmax = 0;
	int rc, e, have_sess = 0, have_task = 0;

	if ((e = has_table(r, "SESSION_TIME_INFO")) < 0)
		return e;
	if (e) {
		if ((e = prep(r, &st,
			      "SELECT startTimeNs, endTimeNs FROM SESSION_TIME_INFO LIMIT 1",
			      "SESSION_TIME_INFO")))
			return e;
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			s = sqlite3_column_int64(st, 0);
			t = sqlite3_column_int64(st, 1);
			have_sess = t > s;
		}
		if ((e = done(r, st, rc, "SESSION_TIME_INFO")))
			return e;
	}
	if ((e = has_table(r, "TASK")) < 0)
		return e;
	if (e) {
		if ((e = prep(r, &st, "SELECT MIN(startNs), MAX(endNs) FROM TASK", "TASK")))
			return e;
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			tmin = sqlite3_column_int64(st, 0);
			tmax = sqlite3_column_int64(st, 1);
			have_task = 1;
		}
		if ((e = done(r, st, rc, "TASK")))
			return e;
	}
	if (have_sess) {
		r->span_start = s;
		r->span_end = t;
		r->span_src = "SESSION_TIME_INFO";
		if (have_task && (tmin < s || tmax > t)) {
			r->span_start = tmin < s ? tmin : s;
			r->span_end = tmax > t ? tmax : t;
			r->span_src = "SESSION_TIME_INFO widened to the tasks";
		}
	} else if (have_task) {
		r->span_start = tmin;
		r->span_end = tmax;
		r->span_src = "first task start to last task end";
	} else {
		r->span_src = "unknown: no SESSION_TIME_INFO and no tasks";
	}
	return 0;
}

/* ---- warnings from our META_DATA rows ---------------------------------- */

static int parse_i64(const char *s, int64_t *v)
{
	char *end;

	if (!s || !*s)
		return -1;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static void warn_count(struct rep *r, const char *name, const char *value, int *nwarn)
{
	static const struct {
		const char *name, *text;
	} counters[] = {
		{ "npuprof.drops",
		  "capture records were dropped (ring overflow): tasks may be missing, so counts, "
		  "times and busy shares are lower bounds; record again with a larger ring or "
		  "with sampling" },
		{ "npuprof.tasks_in_flight_at_stop",
		  "tasks were still in flight when capture stopped: their completion was not "
		  "seen" },
		{ "npuprof.completions_without_submit",
		  "completions had no matching submit (dropped, or submitted before capture "
		  "started)" },
		{ "npuprof.host_records_lost",
		  "host records were lost: some CANN_API/MSTX_EVENTS rows and task-to-API links "
		  "may be missing" },
	};
	int64_t v;

	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		if (strcmp(name, counters[i].name))
			continue;
		if (parse_i64(value, &v)) {
			fprintf(r->out, "  ! %s has a non-numeric value '%s'\n", name, value);
			++*nwarn;
		} else if (v != 0) {
			fprintf(r->out, "  ! %lld %s (%s)\n", (long long)v, counters[i].text, name);
			++*nwarn;
		}
		return;
	}
	if (!strcmp(name, "npuprof.task_time_source") && !strcmp(value, "derived")) {
		fprintf(r->out,
			"  ! task times were derived from submit/complete, not measured on the device "
			"(%s = derived): a start is the later of the submit and the previous "
			"completion on its stream, so durations may include queueing\n",
			name);
		++*nwarn;
	} else if (!strcmp(name, "npuprof.sample_n")) {
		if (parse_i64(value, &v) || v < 1) {
			fprintf(r->out, "  ! %s has an invalid value '%s'; counts are not scaled\n",
				name, value);
			++*nwarn;
		} else if (v > 1) {
			fprintf(r->out,
				"  ! sampled 1 task in %lld (%s): task counts and total times are "
				"scaled up by %lld; averages, maxima and percentiles come from the "
				"sample; busy shares count sampled tasks only (lower bounds)\n",
				(long long)v, name, (long long)v);
			++*nwarn;
		}
	}
}

/* Reads the sampling weight first: every later section depends on it. */
static int read_weight(struct rep *r)
{
	sqlite3_stmt *st;
	int64_t v;
	int rc, e;

	r->weight = 1;
	if ((e = has_table(r, "META_DATA")) <= 0)
		return e;
	if ((e = prep(r, &st, "SELECT value FROM META_DATA WHERE name = 'npuprof.sample_n'",
		      "META_DATA")))
		return e;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && !parse_i64(text_or(st, 0, ""), &v) && v > 1)
		r->weight = v;
	return done(r, st, rc, "META_DATA");
}

static int section_capture(struct rep *r)
{
	sqlite3_stmt *st;
	int rc, e, nwarn = 0, nrows = 0;

	if ((e = has_table(r, "META_DATA")) < 0)
		return e;
	if (e) {
		if ((e = prep(r, &st,
			      "SELECT name, value FROM META_DATA "
			      "WHERE substr(name, 1, 8) = 'npuprof.' ORDER BY name",
			      "META_DATA")))
			return e;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (!nrows++)
				fprintf(r->out, "\nCapture (META_DATA npuprof.*)\n");
			fprintf(r->out, "  %-36s %s\n", text_or(st, 0, ""), text_or(st, 1, ""));
		}
		if ((e = done(r, st, rc, "META_DATA")))
			return e;
	}
	fprintf(r->out, "\nWarnings\n");
	if (nrows) {
		if ((e = prep(r, &st,
			      "SELECT name, value FROM META_DATA "
			      "WHERE substr(name, 1, 8) = 'npuprof.' ORDER BY name",
			      "META_DATA")))
			return e;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			warn_count(r, text_or(st, 0, ""), text_or(st, 1, ""), &nwarn);
		if ((e = done(r, st, rc, "META_DATA")))
			return e;
	}
	if (!nwarn)
		fprintf(r->out, "  none%s\n",
			nrows ? "" : " (no npuprof capture statistics in META_DATA)");
	return 0;
}

/* ---- operators and task types ------------------------------------------ */

static int section_operators(struct rep *r)
{
	char sql[1024], b1[32], b2[32], b3[32], b5[16];
	sqlite3_stmt *st;
	int64_t n_tasks = 0, n_ops = 0, total = 0, w = r->weight;
	int rc, e;

	fprintf(r->out, "\nTop operators by device time (COMPUTE_TASK_INFO joined to TASK)\n");
	if ((e = has_table(r, "COMPUTE_TASK_INFO")) < 0 || (e && (e = has_table(r, "TASK")) < 0))
		return e;
	if (!e) {
		fprintf(r->out, "  none (no COMPUTE_TASK_INFO or TASK table)\n");
		return 0;
	}
	if ((e = prep(r, &st,
		      "SELECT COUNT(*), COUNT(DISTINCT c.name), SUM(t.endNs - t.startNs) "
		      "FROM COMPUTE_TASK_INFO c JOIN TASK t ON t.globalTaskId = c.globalTaskId",
		      "COMPUTE_TASK_INFO")))
		return e;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		n_tasks = sqlite3_column_int64(st, 0);
		n_ops = sqlite3_column_int64(st, 1);
		total = sqlite3_column_int64(st, 2);
	}
	if ((e = done(r, st, rc, "COMPUTE_TASK_INFO")))
		return e;
	fprintf(r->out, "  %lld tasks, %lld operators, %s us%s\n", (long long)(n_tasks * w),
		(long long)n_ops, us(b1, sizeof(b1), total * w),
		w > 1 ? " (scaled by the sampling weight)" : "");
	if (!n_tasks)
		return 0;
	snprintf(sql, sizeof(sql),
		 "SELECT COALESCE(s.value, '#' || c.name), COUNT(*), SUM(t.endNs - t.startNs), "
		 "MAX(t.endNs - t.startNs), %s%s%s "
		 "FROM COMPUTE_TASK_INFO c JOIN TASK t ON t.globalTaskId = c.globalTaskId "
		 "LEFT JOIN STRING_IDS s ON s.id = c.name "
		 "GROUP BY c.name ORDER BY 3 DESC, 1 LIMIT %u",
		 r->blk_col ? "MAX(c.\"" : "NULL", r->blk_col ? r->blk_col : "",
		 r->blk_col ? "\")" : "", r->top);
	if ((e = prep(r, &st, sql, "COMPUTE_TASK_INFO")))
		return e;
	/* blocks: the largest blockDim (1.1.1) / blockNum (1.2.0) of the operator */
	fprintf(r->out, "  %10s %14s %12s %12s %7s %6s  %s\n", "count", "total(us)", "avg(us)",
		"max(us)", "share", "blocks", "operator");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t cnt = sqlite3_column_int64(st, 1), tot = sqlite3_column_int64(st, 2);
		char blk[24] = "-";

		if (sqlite3_column_type(st, 4) != SQLITE_NULL)
			snprintf(blk, sizeof(blk), "%lld", (long long)sqlite3_column_int64(st, 4));
		fprintf(r->out, "  %10lld %14s %12s %12s %7s %6s  %s\n", (long long)(cnt * w),
			us(b1, sizeof(b1), tot * w), us(b2, sizeof(b2), tot / cnt),
			us(b3, sizeof(b3), sqlite3_column_int64(st, 3)),
			pct(b5, sizeof(b5), (double)tot, (double)total), blk, text_or(st, 0, "?"));
	}
	if ((e = done(r, st, rc, "COMPUTE_TASK_INFO")))
		return e;
	if ((unsigned long long)n_ops > r->top)
		fprintf(r->out, "  ... %lld more operators (--top N lists more)\n",
			(long long)n_ops - r->top);
	return 0;
}

static int section_task_types(struct rep *r)
{
	char b1[32], b2[32], b3[16];
	sqlite3_stmt *st;
	int64_t total = 0, w = r->weight;
	int rc, e;

	fprintf(r->out, "\nTask types (TASK)\n");
	if ((e = has_table(r, "TASK")) <= 0) {
		if (!e)
			fprintf(r->out, "  none (no TASK table)\n");
		return e;
	}
	if ((e = query_i64(r, "SELECT SUM(endNs - startNs) FROM TASK", "TASK", &total)))
		return e;
	if ((e = prep(r, &st,
		      "SELECT COALESCE(s.value, '#' || t.taskType), COUNT(*), SUM(t.endNs - t.startNs) "
		      "FROM TASK t LEFT JOIN STRING_IDS s ON s.id = t.taskType "
		      "GROUP BY t.taskType ORDER BY 3 DESC, 2 DESC, 1",
		      "TASK")))
		return e;
	fprintf(r->out, "  %10s %14s %12s %7s  %s\n", "count", "total(us)", "avg(us)", "share",
		"taskType");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t cnt = sqlite3_column_int64(st, 1), tot = sqlite3_column_int64(st, 2);

		fprintf(r->out, "  %10lld %14s %12s %7s  %s\n", (long long)(cnt * w),
			us(b1, sizeof(b1), tot * w), us(b2, sizeof(b2), tot / cnt),
			pct(b3, sizeof(b3), (double)tot, (double)total), text_or(st, 0, "?"));
	}
	return done(r, st, rc, "TASK");
}

/* ---- busy shares: union of task intervals ------------------------------ */

struct busy {
	int64_t key[2];
	int64_t tasks, busy, cur_s, cur_e;
	int open;
};

static void busy_flush(struct busy *b)
{
	if (b->open && __builtin_add_overflow(b->busy, span_ns(b->cur_s, b->cur_e), &b->busy))
		b->busy = INT64_MAX; /* damaged timestamps: saturate */
	b->open = 0;
}

static void busy_add(struct busy *b, int64_t s, int64_t e)
{
	if (e < s)
		e = s;
	b->tasks++;
	if (b->open && s <= b->cur_e) {
		if (e > b->cur_e)
			b->cur_e = e;
		return;
	}
	busy_flush(b);
	b->cur_s = s;
	b->cur_e = e;
	b->open = 1;
}

/*
 * Stream the tasks ordered by (key columns, startNs) and print one line per
 * key. nkey is 1 (device) or 2 (device, stream). MsTx markers are host stamps
 * echoed on the device, not device work, so they are left out.
 */
static int busy_pass(struct rep *r, int nkey)
{
	char sql[512], b1[32], b2[16];
	const char *keys = nkey == 1 ? "deviceId" : "deviceId, streamId";
	double span = (double)(span_ns(r->span_start, r->span_end));
	struct busy b = { { 0 } };
	sqlite3_stmt *st;
	int rc, e, first = 1;
	unsigned shown = 0, hidden = 0;

	snprintf(sql, sizeof(sql),
		 "SELECT %s%s, startNs, endNs FROM TASK "
		 "WHERE taskType NOT IN (SELECT id FROM STRING_IDS WHERE value = 'MsTx') "
		 "ORDER BY %s, startNs",
		 keys, nkey == 1 ? ", 0" : "", keys);
	if ((e = prep(r, &st, sql, "TASK")))
		return e;
	fprintf(r->out, "  %6s %8s %10s %14s %7s\n", "device", nkey == 1 ? "" : "stream", "tasks",
		"busy(us)", "share");
	for (;;) {
		int64_t k0 = 0, k1 = 0;

		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			k0 = sqlite3_column_int64(st, 0);
			k1 = sqlite3_column_int64(st, 1);
		}
		if (!first && (rc != SQLITE_ROW || k0 != b.key[0] || k1 != b.key[1])) {
			busy_flush(&b);
			if (shown < MAX_STREAMS_SHOWN) {
				char kb[24] = "";

				if (nkey == 2)
					snprintf(kb, sizeof(kb), "%lld", (long long)b.key[1]);
				fprintf(r->out, "  %6lld %8s %10lld %14s %7s\n",
					(long long)b.key[0], kb, (long long)(b.tasks * r->weight),
					us(b1, sizeof(b1), b.busy),
					pct(b2, sizeof(b2), (double)b.busy, span));
				shown++;
			} else {
				hidden++;
			}
			memset(&b, 0, sizeof(b));
		}
		if (rc != SQLITE_ROW)
			break;
		if (first || k0 != b.key[0] || k1 != b.key[1]) {
			b.key[0] = k0;
			b.key[1] = k1;
			first = 0;
		}
		busy_add(&b, sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3));
	}
	if (hidden)
		fprintf(r->out, "  ... %u more\n", hidden);
	if (first)
		fprintf(r->out, "  none (no device tasks)\n");
	return done(r, st, rc, "TASK");
}

static int section_busy(struct rep *r)
{
	char b1[32];
	int e;

	fprintf(r->out,
		"\nBusy share (union of task intervals / session span of %s us; "
		"MsTx markers excluded)\n",
		us(b1, sizeof(b1), span_ns(r->span_start, r->span_end)));
	if ((e = has_table(r, "TASK")) <= 0) {
		if (!e)
			fprintf(r->out, "  none (no TASK table)\n");
		return e;
	}
	if ((e = busy_pass(r, 1)))
		return e;
	fputc('\n', r->out);
	return busy_pass(r, 2);
}

/* ---- launch latency ----------------------------------------------------- */

struct i64vec {
	int64_t *v;
	size_t n, cap;
};

static int vec_push(struct i64vec *a, int64_t x)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 1024;
		int64_t *p = realloc(a->v, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		a->v = p;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted vector: the ceil(p/100 * n)-th value. */
static int64_t percentile(const struct i64vec *a, unsigned p)
{
	size_t k = (size_t)((a->n * (uint64_t)p + 99) / 100);

	return a->v[k ? k - 1 : 0];
}

static void latency_line(struct rep *r, const char *label, struct i64vec *a)
{
	char b1[32], b2[32], b3[32], b4[32];

	if (!a->n) {
		fprintf(r->out, "  %-8s %8d %12s %12s %12s %12s\n", label, 0, "-", "-", "-", "-");
		return;
	}
	qsort(a->v, a->n, sizeof(a->v[0]), cmp_i64);
	fprintf(r->out, "  %-8s %8zu %12s %12s %12s %12s\n", label, a->n,
		us(b1, sizeof(b1), percentile(a, 50)), us(b2, sizeof(b2), percentile(a, 90)),
		us(b3, sizeof(b3), percentile(a, 99)), us(b4, sizeof(b4), a->v[a->n - 1]));
}

static int section_latency(struct rep *r)
{
	struct i64vec node = { 0 }, acl = { 0 }, all = { 0 };
	char lnode[32] = "node", lacl[32] = "acl";
	sqlite3_stmt *st;
	int rc, e;

	fprintf(r->out, "\nLaunch latency (host API start to the start of its first device task;"
			" per API, nearest-rank)\n");
	if ((e = has_table(r, "CANN_API")) < 0 || (e && (e = has_table(r, "TASK")) < 0))
		return e;
	if (!e) {
		fprintf(r->out, "  none (no CANN_API or TASK table)\n");
		return 0;
	}
	/* Level labels as ENUM_API_TYPE names them (consumers filter on 'node'/'acl'). */
	if ((e = prep(r, &st, "SELECT id, name FROM ENUM_API_TYPE WHERE id IN (?1, ?2)",
		      "ENUM_API_TYPE")))
		return e;
	sqlite3_bind_int(st, 1, NPUPROF_API_NODE);
	sqlite3_bind_int(st, 2, NPUPROF_API_ACL);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		snprintf(sqlite3_column_int64(st, 0) == NPUPROF_API_NODE ? lnode : lacl,
			 sizeof(lnode), "%s", text_or(st, 1, "?"));
	if ((e = done(r, st, rc, "ENUM_API_TYPE")))
		return e;

	if ((e = prep(r, &st,
		      "SELECT a.type, MIN(t.startNs) - a.startNs "
		      "FROM TASK t JOIN CANN_API a ON a.connectionId = t.connectionId "
		      "WHERE a.type IN (?1, ?2) GROUP BY t.connectionId",
		      "CANN_API")))
		return e;
	sqlite3_bind_int(st, 1, NPUPROF_API_NODE);
	sqlite3_bind_int(st, 2, NPUPROF_API_ACL);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t lat = sqlite3_column_int64(st, 1);
		struct i64vec *a = sqlite3_column_int64(st, 0) == NPUPROF_API_NODE ? &node : &acl;

		if (vec_push(a, lat) || vec_push(&all, lat)) {
			sqlite3_finalize(st);
			e = fail(r, -ENOMEM, "out of memory collecting launch latencies");
			goto out;
		}
	}
	if ((e = done(r, st, rc, "CANN_API")))
		goto out;
	fprintf(r->out, "  %-8s %8s %12s %12s %12s %12s\n", "level", "apis", "p50(us)", "p90(us)",
		"p99(us)", "max(us)");
	latency_line(r, lnode, &node);
	latency_line(r, lacl, &acl);
	latency_line(r, "all", &all);
out:
	free(node.v);
	free(acl.v);
	free(all.v);
	return e;
}

/* ---- collectives -------------------------------------------------------- */

struct coll {
	char name[128];
	int64_t count, total, max, payload, moved;
	int have_payload, have_moved;
	char dtype[32];
};

static int cmp_coll(const void *a, const void *b)
{
	const struct coll *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->name, y->name);
}

/*
 * The op type of one COMMUNICATION_OP row. Some real files hold `N/A` in
 * opType; the name is then the op name without its `_<n>_<seq>_<k>` suffix
 * (docs/ascend-reference.md 5.5): hcom_allReduce__576_0_1 gives hcom_allReduce_.
 */
static int coll_type(char *buf, size_t len, const char *type, const char *name)
{
	if (type && *type && strcmp(type, "N/A")) {
		snprintf(buf, len, "%s", type);
		return 0;
	}
	snprintf(buf, len, "%s", name ? name : "?");
	for (int i = 0; i < 3; i++) {
		char *u = strrchr(buf, '_');

		if (!u || u == buf)
			break;
		*u = '\0';
	}
	return 1;
}

static int section_collectives(struct rep *r)
{
	char sql[1600], b1[32], b2[32], b3[32];
	struct coll *c = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st;
	int rc, e, have_ti, derived = 0;

	fprintf(r->out,
		"\nCollective operations (COMMUNICATION_OP; payload = count x element size, "
		"moved = sum of COMMUNICATION_TASK_INFO.size)\n");
	if ((e = has_table(r, "COMMUNICATION_OP")) <= 0) {
		if (!e)
			fprintf(r->out, "  none (no COMMUNICATION_OP table)\n");
		return e;
	}
	if ((have_ti = has_table(r, "COMMUNICATION_TASK_INFO")) < 0)
		return have_ti;
	/*
	 * Element sizes by ENUM_HCCL_DATA_TYPE name, as msprof-analyze maps them.
	 * A task size of uint64 max reads back as -1 (some real files hold it on
	 * every row): unknown, not a negative byte count.
	 */
	snprintf(sql, sizeof(sql),
		 "SELECT s.value, n.value, o.endNs - o.startNs, "
		 "o.count * CASE d.name WHEN 'INT8' THEN 1 WHEN 'UINT8' THEN 1 "
		 "WHEN 'INT16' THEN 2 WHEN 'UINT16' THEN 2 WHEN 'FP16' THEN 2 WHEN 'BFP16' THEN 2 "
		 "WHEN 'INT32' THEN 4 WHEN 'UINT32' THEN 4 WHEN 'FP32' THEN 4 "
		 "WHEN 'INT64' THEN 8 WHEN 'UINT64' THEN 8 WHEN 'FP64' THEN 8 "
		 "WHEN 'INT128' THEN 16 END, "
		 "%s, COALESCE(d.name, '#' || o.dataType) "
		 "FROM COMMUNICATION_OP o LEFT JOIN STRING_IDS s ON s.id = o.opType "
		 "LEFT JOIN STRING_IDS n ON n.id = o.opName "
		 "LEFT JOIN ENUM_HCCL_DATA_TYPE d ON d.id = o.dataType %s",
		 have_ti ? "m.moved" : "NULL",
		 have_ti ?
			 "LEFT JOIN (SELECT opId, SUM(CASE WHEN size >= 0 THEN size END) AS moved "
			 "FROM COMMUNICATION_TASK_INFO GROUP BY opId) m ON m.opId = o.opId" :
			 "");
	if ((e = prep(r, &st, sql, "COMMUNICATION_OP")))
		return e;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		char name[128];
		int64_t dur = sqlite3_column_int64(st, 2);
		const char *dt = text_or(st, 5, "?");
		size_t i;

		derived |= coll_type(name, sizeof(name), shown_text(st, 0), shown_text(st, 1));
		for (i = 0; i < n && strcmp(c[i].name, name); i++)
			;
		if (i == n) {
			if (n == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				struct coll *p = realloc(c, ncap * sizeof(*p));

				if (!p) {
					sqlite3_finalize(st);
					free(c);
					return fail(r, -ENOMEM,
						    "out of memory reading COMMUNICATION_OP");
				}
				c = p;
				cap = ncap;
			}
			memset(&c[n], 0, sizeof(c[n]));
			snprintf(c[i].name, sizeof(c[i].name), "%s", name);
			snprintf(c[i].dtype, sizeof(c[i].dtype), "%s", dt);
			n++;
		} else if (strcmp(c[i].dtype, dt)) {
			snprintf(c[i].dtype, sizeof(c[i].dtype), "mixed");
		}
		c[i].count++;
		c[i].total += dur;
		if (dur > c[i].max)
			c[i].max = dur;
		if (sqlite3_column_type(st, 3) != SQLITE_NULL) {
			c[i].payload += sqlite3_column_int64(st, 3);
			c[i].have_payload = 1;
		}
		if (sqlite3_column_type(st, 4) != SQLITE_NULL) {
			c[i].moved += sqlite3_column_int64(st, 4);
			c[i].have_moved = 1;
		}
	}
	if ((e = done(r, st, rc, "COMMUNICATION_OP"))) {
		free(c);
		return e;
	}
	if (n)
		qsort(c, n, sizeof(c[0]), cmp_coll);
	fprintf(r->out, "  %10s %14s %12s %12s %14s %14s  %-10s %s\n", "count", "total(us)",
		"avg(us)", "max(us)", "payload(B)", "moved(B)", "dataType", "opType");
	for (size_t i = 0; i < n; i++) {
		char pay[32] = "-", mov[32] = "-";

		if (c[i].have_payload)
			snprintf(pay, sizeof(pay), "%lld", (long long)c[i].payload);
		if (c[i].have_moved)
			snprintf(mov, sizeof(mov), "%lld", (long long)(c[i].moved * r->weight));
		fprintf(r->out, "  %10lld %14s %12s %12s %14s %14s  %-10s %s\n",
			(long long)c[i].count, us(b1, sizeof(b1), c[i].total),
			us(b2, sizeof(b2), c[i].total / c[i].count), us(b3, sizeof(b3), c[i].max),
			pay, mov, c[i].dtype, c[i].name);
	}
	if (!n)
		fprintf(r->out, "  none (COMMUNICATION_OP is empty)\n");
	if (derived)
		fprintf(r->out, "  (opType is N/A in this database: types taken from opName)\n");
	free(c);
	return 0;
}

/* ---- msproftx ----------------------------------------------------------- */

static int section_mstx(struct rep *r)
{
	char sql[640], b1[32];
	sqlite3_stmt *st;
	int64_t groups = 0;
	int rc, e;

	fprintf(r->out, "\nmsproftx ranges and marks (MSTX_EVENTS)\n");
	if ((e = has_table(r, "MSTX_EVENTS")) <= 0) {
		if (!e)
			fprintf(r->out, "  none (no MSTX_EVENTS table)\n");
		return e;
	}
	if ((e = query_i64(
		     r,
		     "SELECT COUNT(*) FROM (SELECT 1 FROM MSTX_EVENTS GROUP BY message, eventType)",
		     "MSTX_EVENTS", &groups)))
		return e;
	snprintf(sql, sizeof(sql),
		 "SELECT COALESCE(s.value, '#' || x.message), COALESCE(k.name, '#' || x.eventType), "
		 "COUNT(*), SUM(x.endNs - x.startNs) "
		 "FROM MSTX_EVENTS x LEFT JOIN STRING_IDS s ON s.id = x.message "
		 "LEFT JOIN ENUM_MSTX_EVENT_TYPE k ON k.id = x.eventType "
		 "GROUP BY x.message, x.eventType ORDER BY 4 DESC, 3 DESC, 1 LIMIT %u",
		 r->top);
	if ((e = prep(r, &st, sql, "MSTX_EVENTS")))
		return e;
	fprintf(r->out, "  %10s %14s  %-10s %s\n", "count", "total(us)", "kind", "message");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		fprintf(r->out, "  %10lld %14s  %-10s %s\n", (long long)sqlite3_column_int64(st, 2),
			us(b1, sizeof(b1), sqlite3_column_int64(st, 3)), text_or(st, 1, "?"),
			text_or(st, 0, "?"));
	if ((e = done(r, st, rc, "MSTX_EVENTS")))
		return e;
	if (groups > (int64_t)r->top)
		fprintf(r->out, "  ... %lld more messages (--top N lists more)\n",
			(long long)(groups - r->top));
	return 0;
}

/* ---- framework ops (PyTorch databases) ---------------------------------- */

/*
 * A PyTorch database's PYTORCH_API rows (§4.1): how many of each type, and
 * the torch ops grouped by name with the device tasks they caused. An op's
 * tasks are reached the way torch_npu and msprof-analyze reach them:
 * PYTORCH_API.connectionId -> CONNECTION_IDS.id, CONNECTION_IDS.connectionId
 * -> TASK.connectionId (the launch's id; the Enqueue/Dequeue and fwd/bwd
 * link ids match no TASK). Torch ops nest (aten::linear holds aten::addmm),
 * so host totals are inclusive and are not shares of anything. startNs and
 * endNs are TEXT in torch_npu's files: cast. Device figures scale by the
 * sampling weight as the other sections' do; framework rows are not sampled.
 */
/* Device tasks of each framework row (id = PYTORCH_API.connectionId). */
#define FWK_DEVICE_CTE                                                     \
	"SELECT c.id AS id, COUNT(*) AS n, SUM(t.endNs - t.startNs) AS d " \
	"FROM CONNECTION_IDS c JOIN TASK t ON t.connectionId = c.connectionId GROUP BY c.id"
#define FWK_NO_DEVICE_CTE "SELECT NULL AS id, 0 AS n, 0 AS d WHERE 0"

/* The torch ops grouped by name, the top by host time (by_device 0) or,
 * of those that reach device tasks, by device time (1). */
static int framework_table(struct rep *r, int links, int64_t names, int by_device)
{
	char sql[1536], b1[32], b2[32], b3[32], b4[32];
	sqlite3_stmt *st;
	int64_t w = r->weight, shown = names;
	int rc, e;

	snprintf(sql, sizeof(sql),
		 "SELECT COUNT(DISTINCT p.name) FROM PYTORCH_API p JOIN CONNECTION_IDS c ON "
		 "c.id = p.connectionId JOIN TASK t ON t.connectionId = c.connectionId "
		 "WHERE p.type = %d",
		 NPUPROF_EXT_FWK_API_OP);
	if (by_device && (e = query_i64(r, sql, "PYTORCH_API", &shown)))
		return e;
	if (by_device && !shown)
		return 0;
	fprintf(r->out, "  %s\n",
		by_device ? "by device time (the tasks their launches made):" :
			    "by host time (inclusive: torch ops nest):");
	snprintf(sql, sizeof(sql),
		 "WITH fd AS (%s) "
		 "SELECT COALESCE(s.value, '#' || p.name), COUNT(*), "
		 "SUM(CAST(p.endNs AS INTEGER) - CAST(p.startNs AS INTEGER)), "
		 "MAX(CAST(p.endNs AS INTEGER) - CAST(p.startNs AS INTEGER)), "
		 "COALESCE(SUM(fd.n), 0), COALESCE(SUM(fd.d), 0) "
		 "FROM PYTORCH_API p LEFT JOIN fd ON fd.id = p.connectionId "
		 "LEFT JOIN STRING_IDS s ON s.id = p.name WHERE p.type = %d "
		 "GROUP BY p.name %s ORDER BY %s, 2 DESC, 1 LIMIT %u",
		 links ? FWK_DEVICE_CTE : FWK_NO_DEVICE_CTE, NPUPROF_EXT_FWK_API_OP,
		 by_device ? "HAVING SUM(fd.n) > 0" : "", by_device ? "6 DESC, 3 DESC" : "3 DESC",
		 r->top);
	if ((e = prep(r, &st, sql, "PYTORCH_API")))
		return e;
	fprintf(r->out, "  %10s %14s %12s %12s %8s %14s  %s\n", "count", "host(us)", "avg(us)",
		"max(us)", "tasks", "device(us)", "torch op");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t cnt = sqlite3_column_int64(st, 1), tot = sqlite3_column_int64(st, 2);

		fprintf(r->out, "  %10lld %14s %12s %12s %8lld %14s  %s\n", (long long)cnt,
			us(b1, sizeof(b1), tot), us(b2, sizeof(b2), tot / cnt),
			us(b3, sizeof(b3), sqlite3_column_int64(st, 3)),
			(long long)(sqlite3_column_int64(st, 4) * w),
			us(b4, sizeof(b4), sqlite3_column_int64(st, 5) * w), text_or(st, 0, "?"));
	}
	if ((e = done(r, st, rc, "PYTORCH_API")))
		return e;
	if (shown > (int64_t)r->top)
		fprintf(r->out, "  ... %lld more torch ops (--top N lists more)\n",
			(long long)(shown - r->top));
	return 0;
}

static int section_framework(struct rep *r)
{
	char sql[1536], b1[32];
	sqlite3_stmt *st;
	int64_t nops = 0, names = 0, w = r->weight, n;
	int rc, e, links;

	fprintf(r->out, "\nFramework ops (PYTORCH_API; device tasks through CONNECTION_IDS)\n");
	if ((e = has_table(r, "PYTORCH_API")) <= 0) {
		if (!e)
			fprintf(r->out, "  none (no PYTORCH_API table: not a PyTorch database)\n");
		return e;
	}
	if ((e = table_rows(r, "PYTORCH_API", &n)))
		return e;
	fprintf(r->out, "  %lld rows:", (long long)n);
	if ((e = prep(r, &st,
		      "SELECT COALESCE(k.name, '#' || p.type), COUNT(*) FROM PYTORCH_API p "
		      "LEFT JOIN ENUM_API_TYPE k ON k.id = p.type GROUP BY p.type ORDER BY p.type",
		      "PYTORCH_API")))
		return e;
	for (int i = 0; (rc = sqlite3_step(st)) == SQLITE_ROW; i++)
		fprintf(r->out, "%s %lld %s", i ? "," : "", (long long)sqlite3_column_int64(st, 1),
			text_or(st, 0, "?"));
	fputc('\n', r->out);
	if ((e = done(r, st, rc, "PYTORCH_API")))
		return e;
	if ((e = has_table(r, "CONNECTION_IDS")) < 0 || (e && (e = has_table(r, "TASK")) < 0))
		return e;
	links = e;
	/* fd: each framework row's device tasks (count, time) */
	snprintf(sql, sizeof(sql),
		 "WITH fd AS (%s) "
		 "SELECT COUNT(*), COUNT(DISTINCT p.name), COUNT(fd.id), SUM(fd.n), SUM(fd.d) "
		 "FROM PYTORCH_API p LEFT JOIN fd ON fd.id = p.connectionId WHERE p.type = %d",
		 links ? FWK_DEVICE_CTE : FWK_NO_DEVICE_CTE, NPUPROF_EXT_FWK_API_OP);
	if ((e = prep(r, &st, sql, "PYTORCH_API")))
		return e;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		nops = sqlite3_column_int64(st, 0);
		names = sqlite3_column_int64(st, 1);
		fprintf(r->out,
			"  %lld torch ops of %lld names; %lld of them reach %lld device tasks, %s us%s\n",
			(long long)nops, (long long)names, (long long)sqlite3_column_int64(st, 2),
			(long long)(sqlite3_column_int64(st, 3) * w),
			us(b1, sizeof(b1), sqlite3_column_int64(st, 4) * w),
			links ? "" : " (no CONNECTION_IDS or TASK table: no links)");
	}
	if ((e = done(r, st, rc, "PYTORCH_API")))
		return e;
	if (!nops)
		return 0;
	if ((e = framework_table(r, links, names, 0)))
		return e;
	return links ? framework_table(r, links, names, 1) : 0;
}

/* ---- finding the database ----------------------------------------------- */

static int is_msprof_name(const char *n)
{
	size_t len = strlen(n);

	if (len != strlen("msprof_") + 14 + 3 || strncmp(n, "msprof_", 7) ||
	    strcmp(n + len - 3, ".db"))
		return 0;
	for (size_t i = 7; i < 21; i++)
		if (n[i] < '0' || n[i] > '9')
			return 0;
	return 1;
}

static int is_pytorch_name(const char *n)
{
	size_t len = strlen(n), plen = strlen("ascend_pytorch_profiler");

	return len >= plen + 3 && !strncmp(n, "ascend_pytorch_profiler", plen) &&
	       !strcmp(n + len - 3, ".db");
}

struct find {
	char best[PATH_MAX];
	int depth, kind; /* of best; kind 0 msprof, 1 PyTorch */
	unsigned n;
	int toolong;
};

static void consider(struct find *f, const char *path, int depth, int kind)
{
	f->n++;
	if (f->n == 1 || depth < f->depth || (depth == f->depth && kind < f->kind) ||
	    (depth == f->depth && kind == f->kind && strcmp(path, f->best) > 0)) {
		snprintf(f->best, sizeof(f->best), "%s", path);
		f->depth = depth;
		f->kind = kind;
	}
}

static void scan_dir(struct find *f, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char p[PATH_MAX];
		struct stat sb;
		int kind = is_msprof_name(de->d_name) ? 0 : is_pytorch_name(de->d_name) ? 1 : -1;

		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) >= sizeof(p)) {
			f->toolong = 1;
			continue;
		}
		if (stat(p, &sb))
			continue;
		if (S_ISREG(sb.st_mode) && kind >= 0)
			consider(f, p, depth, kind);
		else if (S_ISDIR(sb.st_mode) && depth < 2)
			scan_dir(f, p, depth + 1);
	}
	closedir(d);
}

int npuprof_report_find_db(const char *path, char *out, size_t outlen, unsigned *others, char *err,
			   size_t errlen)
{
	struct find *f;
	struct stat sb;

	if (others)
		*others = 0;
	if (stat(path, &sb)) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	if (!S_ISDIR(sb.st_mode)) {
		if ((size_t)snprintf(out, outlen, "%s", path) >= outlen) {
			snprintf(err, errlen, "%s: path too long", path);
			return -ENAMETOOLONG;
		}
		return 0;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	scan_dir(f, path, 0);
	if (!f->n) {
		snprintf(err, errlen,
			 "%s: no msprof_<14 digits>.db or ascend_pytorch_profiler*.db here or up to "
			 "two directory levels below%s; run `npuprof export %s` first, or pass the "
			 "database file",
			 path, f->toolong ? " (some paths were too long to search)" : "", path);
		free(f);
		return -ENOENT;
	}
	if ((size_t)snprintf(out, outlen, "%s", f->best) >= outlen) {
		snprintf(err, errlen, "%s: path too long", f->best);
		free(f);
		return -ENAMETOOLONG;
	}
	if (others)
		*others = f->n - 1;
	free(f);
	return 0;
}

/* ---- entry point ---------------------------------------------------------- */

/* Open read-only and make sure this is an SQLite file with msprof tables. */
static int open_db(struct rep *r)
{
	struct stat sb;
	int64_t n;
	int e;

	if (stat(r->path, &sb))
		return fail(r, -errno, "%s", strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return fail(r, -EINVAL, "not a regular file");
	if (sb.st_size == 0)
		return fail(r, -EINVAL, "empty file, not an msprof database");
	if (access(r->path, R_OK) < 0)
		return fail(r, -errno, "cannot open: %s", strerror(errno));
	if (sqlite3_open_v2(r->path, &r->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		e = fail(r, -EIO, "cannot open: %s",
			 r->db ? sqlite3_errmsg(r->db) : "out of memory");
		return e;
	}
	sqlite3_busy_timeout(r->db, 2000);
	/* The first read of the schema is where a non-database file shows. */
	if ((e = query_i64(r,
			   "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN "
			   "('TASK', 'META_DATA', 'STRING_IDS', 'CANN_API')",
			   "the schema", &n)))
		return e;
	if (!n)
		return fail(r, -EINVAL,
			    "an SQLite database without msprof tables (no TASK, META_DATA, "
			    "STRING_IDS or CANN_API); is this an msprof_*.db?");
	return 0;
}

/* Rows whose times no producer writes (an end before the start, a
 * negative time, a time that is not an integer: 1.5e300 stored as REAL) would
 * give negative or wrapped totals: the report refuses them, naming the
 * table, the count and the first row. NULL times are left to the sections. */
static int check_times(struct rep *r)
{
	static const char *const tabs[] = { "TASK", "CANN_API", "COMMUNICATION_OP", "MSTX_EVENTS",
					    "PYTORCH_API" };

	for (size_t i = 0; i < sizeof(tabs) / sizeof(tabs[0]); i++) {
		char sql[640];
		sqlite3_stmt *st;
		int e, rc;

		if ((e = has_table(r, tabs[i])) <= 0) {
			if (e < 0)
				return e;
			continue;
		}
		if ((e = has_column(r, tabs[i], "startNs")) <= 0 ||
		    (e = has_column(r, tabs[i], "endNs")) <= 0) {
			if (e < 0)
				return e;
			continue;
		}
		if (!strcmp(tabs[i], "PYTORCH_API")) /* times are TEXT in torch_npu's files */
			snprintf(sql, sizeof(sql),
				 "SELECT count(*), min(rowid) FROM PYTORCH_API WHERE"
				 " (startNs IS NOT NULL AND (CAST(CAST(startNs AS INTEGER) AS TEXT)"
				 " != CAST(startNs AS TEXT) OR CAST(startNs AS INTEGER) < 0)) OR"
				 " (endNs IS NOT NULL AND (CAST(CAST(endNs AS INTEGER) AS TEXT)"
				 " != CAST(endNs AS TEXT) OR CAST(endNs AS INTEGER) < 0)) OR"
				 " CAST(endNs AS INTEGER) < CAST(startNs AS INTEGER)");
		else
			snprintf(
				sql, sizeof(sql),
				"SELECT count(*), min(rowid) FROM \"%s\" WHERE"
				" (startNs IS NOT NULL AND (typeof(startNs) != 'integer' OR startNs < 0)) OR"
				" (endNs IS NOT NULL AND (typeof(endNs) != 'integer' OR endNs < 0)) OR"
				" endNs < startNs",
				tabs[i]);
		if ((e = prep(r, &st, sql, tabs[i])))
			return e;
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0) {
			long long n = sqlite3_column_int64(st, 0),
				  row = sqlite3_column_int64(st, 1);
			char a[64], b[64];

			sqlite3_finalize(st);
			snprintf(
				sql, sizeof(sql),
				"SELECT CAST(startNs AS TEXT), CAST(endNs AS TEXT) FROM \"%s\" WHERE rowid = %lld",
				tabs[i], row);
			snprintf(a, sizeof(a), "?");
			snprintf(b, sizeof(b), "?");
			if (!prep(r, &st, sql, tabs[i])) {
				if (sqlite3_step(st) == SQLITE_ROW) {
					snprintf(a, sizeof(a), "%s", text_or(st, 0, "NULL"));
					snprintf(b, sizeof(b), "%s", text_or(st, 1, "NULL"));
				}
				sqlite3_finalize(st);
			}
			return fail(
				r, -EBADMSG,
				"%s: %lld row%s with impossible times (endNs before startNs, negative or not an integer; the first: rowid %lld, startNs %s, endNs %s): no report from damaged rows",
				tabs[i], n, n == 1 ? "" : "s", row, a, b);
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_ROW)
			return fail(r, -EIO, "%s: %s", tabs[i], sqlite3_errmsg(r->db));
	}
	return 0;
}

int npuprof_report_write(FILE *out, const char *path, const struct npuprof_report_options *opt,
			 char *err, size_t errlen)
{
	char file[PATH_MAX], dummy[1];
	struct rep r = { 0 };
	unsigned others = 0;
	int e, isdir;
	struct stat sb;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	if (!out || !path) {
		snprintf(err, errlen, "npuprof_report_write: NULL %s", out ? "path" : "output");
		return -EINVAL;
	}
	isdir = !stat(path, &sb) && S_ISDIR(sb.st_mode);
	if ((e = npuprof_report_find_db(path, file, sizeof(file), &others, err, errlen)))
		return e;
	r.out = out;
	r.path = file;
	r.err = err;
	r.errlen = errlen;
	r.top = opt && opt->top ? opt->top : DEFAULT_TOP;

	if ((e = open_db(&r)) || (e = check_times(&r)) || (e = lookup_standins(&r)) ||
	    (e = read_weight(&r)) || (e = session_span(&r)))
		goto out;
	if ((e = has_table(&r, "COMPUTE_TASK_INFO")) < 0)
		goto out;
	if (e) {
		/* 1.2.0 has blockNum (numeric) and a string blockDim; 1.1.1 numeric blockDim. */
		if ((e = has_column(&r, "COMPUTE_TASK_INFO", "blockNum")) < 0)
			goto out;
		if (e)
			r.blk_col = "blockNum";
		else if ((e = has_column(&r, "COMPUTE_TASK_INFO", "blockDim")) < 0)
			goto out;
		else if (e)
			r.blk_col = "blockDim";
	}
	if ((e = section_header(&r, isdir ? path : NULL, others)) || (e = section_capture(&r)) ||
	    (e = section_operators(&r)) || (e = section_task_types(&r)) || (e = section_busy(&r)) ||
	    (e = section_latency(&r)) || (e = section_collectives(&r)) || (e = section_mstx(&r)) ||
	    (e = section_framework(&r)))
		goto out;
	if (fflush(out) || ferror(out)) {
		e = fail(&r, -EIO, "writing the report: %s", strerror(errno ? errno : EIO));
		goto out;
	}
	e = 0;
out:
	sqlite3_close(r.db);
	return e;
}
