/*
 * trace_json.c — an msprof database as Chrome trace-event JSON (trace.h).
 *
 * Everything comes from ordered queries over the database (which is ours
 * or a real msprof one: the tables a producer left out are skipped), and
 * each row becomes its events at once, so memory stays with SQLite's page
 * cache and sorter (which spills to temporary files), never with the
 * number of rows. What the writer keeps is per track: the device streams
 * and communication groups, to give them thread ids and names.
 *
 * Order of the file: header; process/thread names; host API slices (by
 * thread, then time); device tasks (by device, stream, time) each with the
 * flow from its launch; collective ops; msproftx marks and ranges; the
 * queue-depth counters. The format does not require any order; ours puts
 * a flow's "s" after the slice it starts on and its "f" after the task it
 * ends on, and keeps each thread's slices in time order.
 */
#include "atomicfile.h"
#include "dbread.h"
#include "errmsg.h"
#include "npuprof/hostfmt.h"
#include "npuprof/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_TS INT64_MIN
#define CANCEL_EVERY 4096 /* rows between looks at *cancel and the stream */
#define LANE_SORT 64 /* thread_sort_index steps between streams */

enum {
	TRACK_STREAM,
	TRACK_GROUP
};

struct track {
	int64_t dev;
	int kind;
	int64_t key; /* streamId, or the groupName string id */
	char *name; /* the group's name (TRACK_GROUP) */
};

struct tw {
	FILE *f;
	sqlite3 *db;
	const char *path;
	const char *out; /* the trace being written */
	const struct npuprof_trace_opts *o;
	struct npuprof_trace_result *res;
	char *err;
	size_t errlen;
	int rc; /* first error (negative errno) */
	int64_t origin; /* Unix ns of ts 0 */
	int first;
	uint64_t rows;
	/* which tables the producer wrote */
	int api, enum_api, task, compute, comm_task, comm_op, mstx, npu_info;
	int fwk, conn_ids; /* PYTORCH_API, CONNECTION_IDS (a PyTorch database) */
	int fwk_src; /* the TEMP table of framework link ends was made */
	/* the framework lanes of the thread being written (fwk_lane) */
	struct fwk_lane *fl;
	size_t nfl, fl_cap;
	const char *op_dev; /* SQL giving a COMMUNICATION_OP row's device; NULL: none */
	struct track *tr;
	size_t ntr, cap;
	/* the lanes of the stream being written: a task overlapping the one
	 * before it (HCCL streams run SDMA tasks concurrently) goes to the
	 * first lane free at its start, so each thread's slices nest */
	struct lane *lane;
	size_t nlane, lane_cap;
	int64_t next_tid; /* for the lanes past the first */
};

struct lane {
	int64_t end, tid;
};

/* A framework lane of a thread: the ends of the slices open on it (they
 * nest), its kind (FWK_TORCH, FWK_PYTHON) and its index among the thread's
 * lanes of that kind. */
struct fwk_lane {
	int64_t *open;
	size_t nopen, cap;
	int kind, idx;
};

enum {
	FWK_TORCH, /* op, queue and mstx rows */
	FWK_PYTHON, /* python trace frames: they overlap ops */
	FWK_KINDS
};

#define FWK_MAX_LANES 8 /* per thread and kind; then slices share the last */

/* ---- output --------------------------------------------------------------- */

/* Length of the well-formed UTF-8 sequence at p, 0 if it is not one. */
static size_t utf8_len(const unsigned char *p)
{
	unsigned c = p[0];

	if (c >= 0xc2 && c <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;

		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;

		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80 ?
			       4 :
			       0;
	}
	return 0;
}

/* A JSON string: quotes, backslashes and control characters escaped, bytes
 * that are not UTF-8 written as U+FFFD (a name from the application may be
 * any bytes; JSON text is UTF-8). */
static void put_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', f);
	while (*p) {
		size_t n;

		if (*p == '"' || *p == '\\') {
			fputc('\\', f);
			fputc(*p++, f);
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p++);
		} else if (*p < 0x80) {
			fputc(*p++, f);
		} else if ((n = utf8_len(p))) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			fputs("\\ufffd", f);
			p++;
		}
	}
	fputc('"', f);
}

/* A magnitude of ns as µs with three decimals, exactly. */
static void put_us_abs(FILE *f, int neg, uint64_t a)
{
	fprintf(f, "%s%" PRIu64 ".%03u", neg ? "-" : "", a / 1000, (unsigned)(a % 1000));
}

/* ns - origin as µs: the difference of two int64 always fits a uint64
 * magnitude, so no time of the database wraps. */
static void put_us(FILE *f, int64_t ns, int64_t origin)
{
	__int128 d = (__int128)ns - origin;

	put_us_abs(f, d < 0, (uint64_t)(d < 0 ? -d : d));
}

/* Opens an event object; the caller adds its fields and the closing '}'. */
static void ev(struct tw *w, char ph, const char *name, const char *cat, int64_t pid, int64_t tid,
	       int64_t ts)
{
	FILE *f = w->f;

	fputs(w->first ? "\n{" : ",\n{", f);
	w->first = 0;
	fprintf(f, "\"ph\":\"%c\",\"name\":", ph);
	put_str(f, name);
	if (cat) {
		fputs(",\"cat\":", f);
		put_str(f, cat);
	}
	fprintf(f, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":", pid, tid);
	put_us(f, ts == NO_TS ? 0 : ts, ts == NO_TS ? 0 : w->origin);
	w->res->events++;
}

static void meta_name(struct tw *w, const char *what, int64_t pid, int64_t tid, const char *name)
{
	ev(w, 'M', what, NULL, pid, tid, NO_TS);
	fputs(",\"args\":{\"name\":", w->f);
	put_str(w->f, name);
	fputs("}}", w->f);
}

static void meta_sort(struct tw *w, const char *what, int64_t pid, int64_t tid, int64_t idx)
{
	ev(w, 'M', what, NULL, pid, tid, NO_TS);
	fprintf(w->f, ",\"args\":{\"sort_index\":%" PRId64 "}}", idx);
}

static void slice(struct tw *w, const char *name, const char *cat, int64_t pid, int64_t tid,
		  int64_t start, int64_t end)
{
	ev(w, 'X', name, cat, pid, tid, start);
	fputs(",\"dur\":", w->f);
	put_us_abs(w->f, 0, end > start ? (uint64_t)end - (uint64_t)start : 0);
}

static void flow_named(struct tw *w, const char *name, char ph, uint64_t id, int64_t pid,
		       int64_t tid, int64_t ts)
{
	ev(w, ph, name, name, pid, tid, ts);
	fprintf(w->f, ",\"id\":%" PRIu64 "%s}", id, ph == 'f' ? ",\"bp\":\"e\"" : "");
	w->res->flows += ph == 'f';
}

static void flow(struct tw *w, char ph, uint64_t id, int64_t pid, int64_t tid, int64_t ts)
{
	flow_named(w, "launch", ph, id, pid, tid, ts);
}

/* ---- reading ---------------------------------------------------------------- */

static int fail(struct tw *w, int rc, const char *fmt, const char *what)
{
	if (!w->rc) {
		w->rc = rc;
		npuprof_seterr(w->err, w->errlen, fmt, w->path, what);
	}
	return w->rc;
}

/* The output failed (ferror): its path and the errno of the failing write,
 * which flushing again gives back (ENOSPC, EFBIG, EIO ...). */
static int out_failed(struct tw *w)
{
	int e;

	errno = 0;
	e = fflush(w->f) != 0 && errno ? errno : EIO;
	if (!w->rc) {
		w->rc = -e;
		npuprof_seterr(
			w->err, w->errlen,
			"%s: writing the trace failed: %s; the previous file, if any, is kept",
			w->out, strerror(e));
	}
	return w->rc;
}

static int prep(struct tw *w, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(w->db, sql, -1, st, NULL) == SQLITE_OK)
		return 0;
	return fail(w, -EIO, "%s: cannot be read: %s", sqlite3_errmsg(w->db));
}

/* Steps st: 1 for a row, 0 at the end, negative on an error (set). Also
 * watches for cancellation and a failing output. */
static int step(struct tw *w, sqlite3_stmt *st)
{
	int rc;

	if (w->rc)
		return w->rc;
	if ((++w->rows % CANCEL_EVERY) == 0) {
		if (w->o->cancel && *w->o->cancel)
			return fail(w, -EINTR, "%s: interrupted%s", "");
		if (ferror(w->f))
			return out_failed(w);
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return fail(w, -EIO, "%s: cannot be read: %s", sqlite3_errmsg(w->db));
}

static int64_t col_i64(sqlite3_stmt *st, int i, int64_t def)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? def : sqlite3_column_int64(st, i);
}

static const char *col_txt(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NULL :
							   (const char *)sqlite3_column_text(st, i);
}

/* A name worth showing: not absent, empty or the N/A placeholder. */
static int named(const char *s)
{
	return s && *s && strcmp(s, "N/A") != 0;
}

static int has_table(struct tw *w, const char *t)
{
	int e = npuprof_db_has_table(w->db, t);

	if (e < 0)
		fail(w, -EIO, "%s: cannot be read: %s", sqlite3_errmsg(w->db));
	return e > 0;
}

static int has_column(struct tw *w, const char *t, const char *c)
{
	int e = npuprof_db_has_column(w->db, t, c);

	if (e < 0)
		fail(w, -EIO, "%s: cannot be read: %s", sqlite3_errmsg(w->db));
	return e > 0;
}

/* ---- tracks: host processes and threads, devices, streams, groups -------- */

static int track_cmp(const void *a, const void *b)
{
	const struct track *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* The array a of *cap elements (n used) with room for one more: a itself,
 * or a doubled copy (from first) with the new room zeroed; NULL (set in w,
 * a kept) when out of memory. */
static void *grow(struct tw *w, void *a, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t c = *cap ? 2 * *cap : first;
	char *p;

	if (n < *cap)
		return a;
	p = realloc(a, c * size);
	if (!p) {
		fail(w, -ENOMEM, "%s: out of memory%s", "");
		return NULL;
	}
	memset(p + *cap * size, 0, (c - *cap) * size);
	*cap = c;
	return p;
}

static int track_add(struct tw *w, int64_t dev, int kind, int64_t key, const char *name)
{
	struct track *t = grow(w, w->tr, &w->cap, w->ntr, sizeof(*t), 64);

	if (!t)
		return w->rc;
	w->tr = t;
	w->tr[w->ntr] = (struct track){ dev, kind, key, name ? strdup(name) : NULL };
	if (name && !w->tr[w->ntr].name)
		return fail(w, -ENOMEM, "%s: out of memory%s", "");
	w->ntr++;
	return 0;
}

/* The tid of a device track (every one was added before the events). */
static int64_t track_tid(struct tw *w, int64_t dev, int kind, int64_t key)
{
	struct track k = { dev, kind, key, NULL };
	const struct track *t;

	if (!w->ntr)
		return -1;
	t = bsearch(&k, w->tr, w->ntr, sizeof(k), track_cmp);

	return t ? NPUPROF_TRACE_DEVICE_TID + (int64_t)(t - w->tr) : -1;
}

static int dev_pid(struct tw *w, int64_t dev, int64_t *pid)
{
	if (dev < 0 || dev > INT32_MAX - NPUPROF_TRACE_DEVICE_PID) {
		char what[64];

		snprintf(what, sizeof(what), "%" PRId64, dev);
		return fail(w, -ERANGE, "%s: deviceId %s is out of range for a trace process",
			    what);
	}
	*pid = NPUPROF_TRACE_DEVICE_PID + dev;
	return 0;
}

static void host_names(struct tw *w)
{
	char sql[512];
	sqlite3_stmt *st;
	int64_t last = -1, order = 0;

	if (!w->api && !w->mstx && !w->fwk)
		return;
	snprintf(sql, sizeof(sql),
		 "SELECT DISTINCT g FROM (SELECT NULL AS g%s%s%s) "
		 "WHERE g IS NOT NULL ORDER BY 1",
		 w->api ? " UNION ALL SELECT globalTid FROM CANN_API" : "",
		 w->mstx ? " UNION ALL SELECT globalTid FROM MSTX_EVENTS" : "",
		 w->fwk ? " UNION ALL SELECT globalTid FROM PYTORCH_API" : "");
	if (prep(w, sql, &st))
		return;
	while (step(w, st) == 1) {
		uint64_t g = (uint64_t)sqlite3_column_int64(st, 0);
		int64_t pid = (int64_t)(g >> 32), tid = (int64_t)(g & 0xffffffffu);
		char name[64];

		if (pid != last) {
			const char *pn = w->o->pid && pid == w->o->pid && w->o->process_name ?
						 w->o->process_name :
						 "host process";

			meta_name(w, "process_name", pid, pid, pn);
			meta_sort(w, "process_sort_index", pid, pid, order++);
			w->res->processes++;
			last = pid;
		}
		if (tid == pid)
			snprintf(name, sizeof(name), "main thread");
		else
			snprintf(name, sizeof(name), "thread %" PRId64, tid);
		meta_name(w, "thread_name", pid, tid, name);
		/* after the thread's framework lanes (fwk_lane_tid) */
		meta_sort(w, "thread_sort_index", pid, tid, tid == pid ? 50 : 150);
		w->res->threads++;
	}
	sqlite3_finalize(st);
}

/* The device of each COMMUNICATION_OP row: its deviceId column (1.2.0), or
 * else the device of its tasks (COMMUNICATION_TASK_INFO.opId). */
static void op_devices(struct tw *w)
{
	if (!w->comm_op)
		return;
	if (has_column(w, "COMMUNICATION_OP", "deviceId")) {
		w->op_dev = "o.deviceId";
		return;
	}
	if (!w->comm_task || !w->task)
		return;
	if (sqlite3_exec(w->db,
			 "CREATE TEMP TABLE npuprof_op_dev (opId INTEGER PRIMARY KEY, dev INTEGER);"
			 "INSERT INTO npuprof_op_dev SELECT k.opId, MIN(t.deviceId) FROM "
			 "COMMUNICATION_TASK_INFO k JOIN TASK t ON t.globalTaskId = k.globalTaskId "
			 "GROUP BY k.opId",
			 NULL, NULL, NULL) != SQLITE_OK) {
		fail(w, -EIO, "%s: cannot be read: %s", sqlite3_errmsg(w->db));
		return;
	}
	w->op_dev = "(SELECT d.dev FROM npuprof_op_dev d WHERE d.opId = o.opId)";
}

static void device_names(struct tw *w)
{
	sqlite3_stmt *st;
	char sql[1024];
	int64_t last = INT64_MIN;

	if (w->task) {
		if (prep(w, "SELECT DISTINCT deviceId, streamId FROM TASK ORDER BY 1, 2", &st))
			return;
		while (step(w, st) == 1)
			track_add(w, col_i64(st, 0, -1), TRACK_STREAM, col_i64(st, 1, -1), NULL);
		sqlite3_finalize(st);
	}
	if (w->op_dev) {
		snprintf(sql, sizeof(sql),
			 "SELECT DISTINCT x.dev, x.g, s.value FROM (SELECT %s AS dev, o.groupName AS g "
			 "FROM COMMUNICATION_OP o) x LEFT JOIN STRING_IDS s ON s.id = x.g "
			 "WHERE x.dev IS NOT NULL ORDER BY 1, 2",
			 w->op_dev);
		if (prep(w, sql, &st))
			return;
		while (step(w, st) == 1) {
			char name[300];
			const char *g = col_txt(st, 2);

			snprintf(name, sizeof(name), "HCCL %s", named(g) ? g : "(no group)");
			track_add(w, col_i64(st, 0, -1), TRACK_GROUP, col_i64(st, 1, -1), name);
		}
		sqlite3_finalize(st);
	}
	if (w->rc)
		return;
	if (w->ntr)
		qsort(w->tr, w->ntr, sizeof(*w->tr), track_cmp);
	for (size_t i = 0; i < w->ntr && !w->rc; i++) {
		const struct track *t = &w->tr[i];
		int64_t pid = 0, tid = NPUPROF_TRACE_DEVICE_TID + (int64_t)i;
		char name[320];

		if (dev_pid(w, t->dev, &pid))
			return;
		if (t->dev != last) {
			const char *chip = NULL;

			st = NULL;
			if (w->npu_info &&
			    !prep(w, "SELECT name FROM NPU_INFO WHERE id = ?1", &st)) {
				sqlite3_bind_int64(st, 1, t->dev);
				if (step(w, st) == 1)
					chip = col_txt(st, 0);
			}
			if (named(chip) && strcmp(chip, "UNKNOWN") != 0)
				snprintf(name, sizeof(name), "NPU %" PRId64 " (%s)", t->dev, chip);
			else
				snprintf(name, sizeof(name), "NPU %" PRId64, t->dev);
			sqlite3_finalize(st);
			meta_name(w, "process_name", pid, tid, name);
			meta_sort(w, "process_sort_index", pid, tid, 1000 + t->dev);
			w->res->processes++;
			last = t->dev;
		}
		if (t->kind == TRACK_STREAM)
			snprintf(name, sizeof(name), "stream %" PRId64, t->key);
		else
			snprintf(name, sizeof(name), "%s", t->name);
		meta_name(w, "thread_name", pid, tid, name);
		meta_sort(w, "thread_sort_index", pid, tid, (int64_t)i * LANE_SORT);
		w->res->threads++;
	}
	w->next_tid = NPUPROF_TRACE_DEVICE_TID + (int64_t)w->ntr;
}

/* The thread of a task [start, end] of the stream whose first lane is
 * tid0 (w->lane holds that stream's lanes). */
static int64_t lane_tid(struct tw *w, int64_t pid, int64_t tid0, int64_t stream, int64_t start,
			int64_t end)
{
	size_t i;

	if (end < start)
		end = start;
	for (i = 0; i < w->nlane; i++)
		if (w->lane[i].end <= start)
			break;
	if (i == w->nlane) {
		struct lane *l = grow(w, w->lane, &w->lane_cap, w->nlane, sizeof(*l), 8);
		char name[96];

		if (!l)
			return tid0;
		w->lane = l;
		w->lane[i].tid = i ? w->next_tid++ : tid0;
		w->nlane++;
		if (i) {
			snprintf(name, sizeof(name), "stream %" PRId64 " (concurrent %zu)", stream,
				 i + 1);
			meta_name(w, "thread_name", pid, w->lane[i].tid, name);
			meta_sort(w, "thread_sort_index", pid, w->lane[i].tid,
				  (tid0 - NPUPROF_TRACE_DEVICE_TID) * LANE_SORT +
					  (int64_t)(i < LANE_SORT ? i : LANE_SORT - 1));
			w->res->threads++;
		}
	}
	w->lane[i].end = end;
	return w->lane[i].tid;
}

/* ---- events ------------------------------------------------------------------ */

static void api_slices(struct tw *w)
{
	char sql[512];
	sqlite3_stmt *st;

	if (!w->api)
		return;
	snprintf(sql, sizeof(sql),
		 "SELECT a.startNs, a.endNs, a.type, a.globalTid, a.connectionId, s.value, %s "
		 "FROM CANN_API a LEFT JOIN STRING_IDS s ON s.id = a.name %s "
		 "ORDER BY a.globalTid, a.startNs, a.endNs DESC, a.connectionId",
		 w->enum_api ? "e.name" : "NULL",
		 w->enum_api ? "LEFT JOIN ENUM_API_TYPE e ON e.id = a.type" : "");
	if (prep(w, sql, &st))
		return;
	while (step(w, st) == 1) {
		uint64_t g = (uint64_t)sqlite3_column_int64(st, 3);
		const char *name = col_txt(st, 5), *level = col_txt(st, 6);

		slice(w, named(name) ? name : "api", named(level) ? level : "api",
		      (int64_t)(g >> 32), (int64_t)(g & 0xffffffffu), col_i64(st, 0, 0),
		      col_i64(st, 1, 0));
		fprintf(w->f, ",\"args\":{\"connectionId\":%" PRId64 ",\"type\":%" PRId64 "}}",
			col_i64(st, 4, -1), col_i64(st, 2, 0));
		w->res->api++;
	}
	sqlite3_finalize(st);
}

/* ---- framework rows (a PyTorch database) -------------------------------------- */

/* The tid of framework lane idx of kind on host thread tid (below 2^22, as
 * every Linux tid: checked by the caller). */
static int64_t fwk_tid(int kind, int idx, int64_t tid)
{
	return NPUPROF_TRACE_FRAMEWORK_TID + ((int64_t)(idx * FWK_KINDS + kind) << 22) + tid;
}

/* The lane of a framework slice [start, end] of kind on host thread
 * (pid, tid): the first of the thread's lanes of that kind where it nests
 * (the slices open there that end by its start are closed first), else a
 * new lane, named when made. */
static int64_t fwk_lane_tid(struct tw *w, int64_t pid, int64_t tid, int kind, int64_t start,
			    int64_t end)
{
	struct fwk_lane *l = NULL, *last = NULL;
	int n = 0;

	if (end < start)
		end = start;
	for (size_t i = 0; i < w->nfl; i++) {
		struct fwk_lane *c = &w->fl[i];

		if (c->kind != kind)
			continue;
		n++;
		last = c;
		while (c->nopen && c->open[c->nopen - 1] <= start)
			c->nopen--;
		if (!c->nopen || c->open[c->nopen - 1] >= end) {
			l = c;
			break;
		}
	}
	if (!l && n >= FWK_MAX_LANES)
		l = last; /* too many overlapping rows: they share the last lane */
	if (!l) {
		struct fwk_lane *a = grow(w, w->fl, &w->fl_cap, w->nfl, sizeof(*a), 8);
		char name[96];

		if (!a)
			return tid;
		w->fl = a;
		l = &w->fl[w->nfl++];
		l->nopen = 0;
		l->kind = kind;
		l->idx = n;
		n = snprintf(name, sizeof(name), "%s %s", kind == FWK_PYTHON ? "Python" : "PyTorch",
			     tid == pid ? "main thread" : "thread");
		if (tid != pid)
			n += snprintf(name + n, sizeof(name) - (size_t)n, " %" PRId64, tid);
		if (l->idx)
			snprintf(name + n, sizeof(name) - (size_t)n, " (overlapping %d)",
				 l->idx + 1);
		meta_name(w, "thread_name", pid, fwk_tid(kind, l->idx, tid), name);
		meta_sort(w, "thread_sort_index", pid, fwk_tid(kind, l->idx, tid),
			  (tid == pid ? 0 : 100) + l->idx * FWK_KINDS + kind);
		w->res->threads++;
	}
	int64_t *open = grow(w, l->open, &l->cap, l->nopen, sizeof(*open), 16);

	if (!open)
		return tid;
	l->open = open;
	l->open[l->nopen++] = end;
	return fwk_tid(kind, l->idx, tid);
}

/*
 * PYTORCH_API rows as slices on framework lanes of their thread: torch ops,
 * queue ranges and mstx ranges on "PyTorch <thread>", python frames on
 * "Python <thread>" (frames and ops do not nest with each other), a row
 * that overlaps without nesting on a further lane. Every link end of a row
 * (CONNECTION_IDS.connectionId of its connectionId) goes with the slice's
 * place into the TEMP table npuprof_fwk_end, from which task_slices draws
 * the flow to each task the row launched and fwk_links those between
 * framework rows. The times are TEXT in torch_npu's files: cast.
 */
static void fwk_slices(struct tw *w)
{
	char sql[1024];
	sqlite3_stmt *st, *ins = NULL;
	int64_t last_row = INT64_MIN, last_g = INT64_MIN, pid = 0, tid = 0, lane = 0, start = 0;

	if (!w->fwk)
		return;
	if (w->conn_ids) {
		if (sqlite3_exec(w->db,
				 "CREATE TEMP TABLE npuprof_fwk_end (conn INTEGER, pid INTEGER, "
				 "tid INTEGER, ts INTEGER, type INTEGER)",
				 NULL, NULL, NULL) != SQLITE_OK) {
			fail(w, -EIO, "%s: cannot be read: %s", sqlite3_errmsg(w->db));
			return;
		}
		w->fwk_src = 1;
		if (prep(w, "INSERT INTO npuprof_fwk_end VALUES (?1, ?2, ?3, ?4, ?5)", &ins))
			return;
	}
	/* 0 start 1 end 2 globalTid 3 type 4 name 5 type name 6 connectionId
	 * 7 sequenceNumber 8 rowid 9 link */
	snprintf(sql, sizeof(sql),
		 "SELECT CAST(p.startNs AS INTEGER) AS s, CAST(p.endNs AS INTEGER) AS e, "
		 "p.globalTid, p.type, n.value, %s, p.connectionId, p.sequenceNumber, p.rowid, %s "
		 "FROM PYTORCH_API p LEFT JOIN STRING_IDS n ON n.id = p.name %s %s "
		 "ORDER BY p.globalTid, s, e DESC, p.rowid",
		 w->enum_api ? "k.name" : "NULL", w->conn_ids ? "c.connectionId" : "NULL",
		 w->enum_api ? "LEFT JOIN ENUM_API_TYPE k ON k.id = p.type" : "",
		 w->conn_ids ? "LEFT JOIN CONNECTION_IDS c ON c.id = p.connectionId" : "");
	if (prep(w, sql, &st)) {
		sqlite3_finalize(ins);
		return;
	}
	while (step(w, st) == 1) {
		int64_t row = col_i64(st, 8, -1), type = col_i64(st, 3, 0);

		if (row != last_row) {
			uint64_t g = (uint64_t)col_i64(st, 2, 0);
			const char *name = col_txt(st, 4), *kname = col_txt(st, 5);
			char cat[64];

			last_row = row;
			if ((int64_t)g != last_g) {
				w->nfl = 0; /* a new thread */
				last_g = (int64_t)g;
			}
			pid = (int64_t)(g >> 32);
			tid = (int64_t)(g & 0xffffffffu);
			if (tid >= 1 << 22) {
				char what[32];

				snprintf(what, sizeof(what), "%" PRId64, tid);
				fail(w, -ERANGE,
				     "%s: PYTORCH_API has thread id %s, above any Linux tid: "
				     "a damaged globalTid",
				     what);
				break;
			}
			start = col_i64(st, 0, 0);
			lane = fwk_lane_tid(w, pid, tid,
					    type == NPUPROF_EXT_FWK_API_TRACE ? FWK_PYTHON :
										FWK_TORCH,
					    start, col_i64(st, 1, 0));
			if (named(kname)) /* op, queue, trace, mstx */
				snprintf(cat, sizeof(cat), "torch_%s", kname);
			else /* an msprof database's ENUM_API_TYPE has no framework types */
				snprintf(cat, sizeof(cat), "torch_%" PRId64, type);
			slice(w, named(name) ? name : cat, cat, pid, lane, start,
			      col_i64(st, 1, 0));
			fprintf(w->f, ",\"args\":{\"type\":%" PRId64, type);
			if (sqlite3_column_type(st, 6) != SQLITE_NULL)
				fprintf(w->f, ",\"connectionId\":%" PRId64, col_i64(st, 6, 0));
			if (sqlite3_column_type(st, 7) != SQLITE_NULL)
				fprintf(w->f, ",\"sequenceNumber\":%" PRId64, col_i64(st, 7, 0));
			fputs("}}", w->f);
			w->res->fwk++;
		}
		if (ins && sqlite3_column_type(st, 9) != SQLITE_NULL) {
			sqlite3_bind_int64(ins, 1, col_i64(st, 9, 0));
			sqlite3_bind_int64(ins, 2, pid);
			sqlite3_bind_int64(ins, 3, lane);
			sqlite3_bind_int64(ins, 4, start);
			sqlite3_bind_int64(ins, 5, type);
			if (sqlite3_step(ins) != SQLITE_DONE) {
				fail(w, -EIO, "%s: cannot be read: %s", sqlite3_errmsg(w->db));
				break;
			}
			sqlite3_reset(ins);
		}
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ins);
	if (!w->rc && w->fwk_src &&
	    sqlite3_exec(w->db, "CREATE INDEX temp.npuprof_fwk_end_conn ON npuprof_fwk_end(conn)",
			 NULL, NULL, NULL) != SQLITE_OK)
		fail(w, -EIO, "%s: cannot be read: %s", sqlite3_errmsg(w->db));
}

/*
 * The links between framework rows (CONNECTION_IDS link ids that are no
 * CANN call's: an Enqueue and its Dequeue, a forward op and its backward)
 * as flows from the earlier row to the later, as torch_npu's trace view
 * draws them; a link id held by other than two rows is left out.
 */
static void fwk_links(struct tw *w)
{
	char sql[1024];
	sqlite3_stmt *st;

	if (!w->fwk_src)
		return;
	snprintf(sql, sizeof(sql),
		 "SELECT a.conn, a.pid, a.tid, a.ts, b.pid, b.tid, b.ts, a.type "
		 "FROM npuprof_fwk_end a JOIN npuprof_fwk_end b ON b.conn = a.conn AND "
		 "(b.ts > a.ts OR (b.ts = a.ts AND b.rowid > a.rowid)) "
		 "WHERE a.conn IN (SELECT conn FROM npuprof_fwk_end GROUP BY conn "
		 "HAVING COUNT(*) = 2) %s ORDER BY a.conn",
		 w->api ? "AND a.conn NOT IN (SELECT connectionId FROM CANN_API "
			  "WHERE connectionId IS NOT NULL)" :
			  "");
	if (prep(w, sql, &st))
		return;
	while (step(w, st) == 1) {
		int64_t conn = col_i64(st, 0, -1);
		const char *name = col_i64(st, 7, 0) == NPUPROF_EXT_FWK_API_QUEUE ?
					   "async_task_queue" :
					   "fwdbwd";

		if (conn < 0 || (uint64_t)conn >= NPUPROF_TRACE_FLOW_SPAN)
			continue;
		flow_named(w, name, 's', NPUPROF_TRACE_FLOW_FWK_LINK + (uint64_t)conn,
			   col_i64(st, 1, 0), col_i64(st, 2, 0), col_i64(st, 3, 0));
		flow_named(w, name, 'f', NPUPROF_TRACE_FLOW_FWK_LINK + (uint64_t)conn,
			   col_i64(st, 4, 0), col_i64(st, 5, 0), col_i64(st, 6, 0));
	}
	sqlite3_finalize(st);
}

static void task_slices(struct tw *w)
{
	char sql[2048];
	sqlite3_stmt *st;
	int64_t last_gtid = INT64_MIN, last_dev = INT64_MIN, last_stream = INT64_MIN;

	if (!w->task)
		return;
	/* 0 start 1 end 2 dev 3 stream 4 task 5 conn 6 gtid 7 type 8 op name
	 * 9 opType 10 blockDim 11 api globalTid 12 api start 13 comm op name
	 * 14 comm group 15 framework row's pid 16 its lane 17 its start */
	snprintf(sql, sizeof(sql),
		 "SELECT t.startNs, t.endNs, t.deviceId, t.streamId, t.taskId, t.connectionId, "
		 "t.globalTaskId, tt.value, %s, %s, %s, %s, %s, %s, %s, %s FROM TASK t "
		 "LEFT JOIN STRING_IDS tt ON tt.id = t.taskType %s %s %s %s "
		 "ORDER BY t.deviceId, t.streamId, t.startNs, t.endNs DESC, t.globalTaskId",
		 w->compute ? "cn.value" : "NULL", w->compute ? "ot.value" : "NULL",
		 w->compute ? "c.blockDim" : "NULL", w->api ? "a.globalTid" : "NULL",
		 w->api ? "a.startNs" : "NULL", w->comm_task ? "kn.value" : "NULL",
		 w->comm_task ? "kg.value" : "NULL",
		 w->fwk_src ? "fs.pid, fs.tid, fs.ts" : "NULL, NULL, NULL",
		 w->compute ? "LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId "
			      "LEFT JOIN STRING_IDS cn ON cn.id = c.name "
			      "LEFT JOIN STRING_IDS ot ON ot.id = c.opType" :
			      "",
		 w->api ? "LEFT JOIN CANN_API a ON a.connectionId = t.connectionId" : "",
		 w->comm_task ?
			 "LEFT JOIN COMMUNICATION_TASK_INFO k ON k.globalTaskId = t.globalTaskId "
			 "LEFT JOIN STRING_IDS kn ON kn.id = k.name "
			 "LEFT JOIN STRING_IDS kg ON kg.id = k.groupName" :
			 "",
		 !w->fwk_src ? "" :
		 w->api ? "LEFT JOIN (SELECT conn, pid, tid, MIN(ts) AS ts FROM npuprof_fwk_end "
			  "WHERE conn IN (SELECT connectionId FROM CANN_API) GROUP BY conn) fs "
			  "ON fs.conn = t.connectionId" :
			  "LEFT JOIN (SELECT conn, pid, tid, MIN(ts) AS ts FROM npuprof_fwk_end "
			  "GROUP BY conn) fs ON fs.conn = t.connectionId");
	if (prep(w, sql, &st))
		return;
	while (step(w, st) == 1) {
		int64_t start = col_i64(st, 0, 0), dev = col_i64(st, 2, -1);
		int64_t stream = col_i64(st, 3, -1), gtid = col_i64(st, 6, -1), pid = 0, tid;
		const char *type = col_txt(st, 7), *op = col_txt(st, 8), *optype = col_txt(st, 9);
		const char *cop = col_txt(st, 13), *cgroup = col_txt(st, 14);
		FILE *f = w->f;

		if (gtid == last_gtid && dev == last_dev)
			continue; /* a second detail row of the same task */
		last_gtid = gtid;
		if (dev_pid(w, dev, &pid))
			break;
		if (dev != last_dev || stream != last_stream)
			w->nlane = 0; /* a new stream */
		last_dev = dev;
		last_stream = stream;
		tid = lane_tid(w, pid, track_tid(w, dev, TRACK_STREAM, stream), stream, start,
			       col_i64(st, 1, 0));
		if (!named(type))
			type = "task";
		slice(w, named(op) ? op : type, "task", pid, tid, start, col_i64(st, 1, 0));
		fputs(",\"args\":{\"taskType\":", f);
		put_str(f, type);
		fprintf(f,
			",\"streamId\":%" PRId64 ",\"taskId\":%" PRId64 ",\"connectionId\":%" PRId64
			",\"globalTaskId\":%" PRId64,
			stream, col_i64(st, 4, -1), col_i64(st, 5, -1), gtid);
		if (named(optype)) {
			fputs(",\"opType\":", f);
			put_str(f, optype);
		}
		if (sqlite3_column_type(st, 10) != SQLITE_NULL)
			fprintf(f, ",\"blockDim\":%" PRId64, col_i64(st, 10, 0));
		if (cop) {
			fputs(",\"opName\":", f);
			put_str(f, cop);
			fputs(",\"groupName\":", f);
			put_str(f, cgroup);
		}
		fputs("}}", f);
		w->res->tasks++;
		if (sqlite3_column_type(st, 11) != SQLITE_NULL && gtid >= 0) {
			uint64_t g = (uint64_t)sqlite3_column_int64(st, 11);

			flow(w, 's', 2 * (uint64_t)gtid, (int64_t)(g >> 32),
			     (int64_t)(g & 0xffffffffu), col_i64(st, 12, 0));
			flow(w, 'f', 2 * (uint64_t)gtid, pid, tid, start);
		}
		/* from the torch op that launched it, as torch_npu's trace view */
		if (sqlite3_column_type(st, 15) != SQLITE_NULL && gtid >= 0 &&
		    (uint64_t)gtid < NPUPROF_TRACE_FLOW_SPAN) {
			flow_named(w, "async_npu", 's',
				   NPUPROF_TRACE_FLOW_FWK_TASK + (uint64_t)gtid, col_i64(st, 15, 0),
				   col_i64(st, 16, 0), col_i64(st, 17, 0));
			flow_named(w, "async_npu", 'f',
				   NPUPROF_TRACE_FLOW_FWK_TASK + (uint64_t)gtid, pid, tid, start);
		}
	}
	sqlite3_finalize(st);
}

static void comm_ops(struct tw *w)
{
	char sql[1536];
	sqlite3_stmt *st;

	if (!w->op_dev)
		return;
	/* 0 dev 1 group 2 start 3 end 4 conn 5 opId 6 name 7 opType 8 algType
	 * 9 count 10 group name 11 api globalTid 12 api start */
	snprintf(sql, sizeof(sql),
		 "SELECT %s AS dev, o.groupName, o.startNs, o.endNs, o.connectionId, o.opId, "
		 "n.value, ty.value, al.value, o.count, g.value, %s, %s "
		 "FROM COMMUNICATION_OP o LEFT JOIN STRING_IDS n ON n.id = o.opName "
		 "LEFT JOIN STRING_IDS ty ON ty.id = o.opType "
		 "LEFT JOIN STRING_IDS al ON al.id = o.algType "
		 "LEFT JOIN STRING_IDS g ON g.id = o.groupName %s "
		 "WHERE dev IS NOT NULL ORDER BY 1, 2, o.startNs, o.endNs DESC, o.opId",
		 w->op_dev, w->api ? "a.globalTid" : "NULL", w->api ? "a.startNs" : "NULL",
		 w->api ? "LEFT JOIN CANN_API a ON a.connectionId = o.connectionId" : "");
	if (prep(w, sql, &st))
		return;
	while (step(w, st) == 1) {
		int64_t dev = col_i64(st, 0, -1), pid = 0, tid, op = col_i64(st, 5, -1);
		int64_t start = col_i64(st, 2, 0);
		const char *name = col_txt(st, 6), *type = col_txt(st, 7), *alg = col_txt(st, 8);
		FILE *f = w->f;

		if (dev_pid(w, dev, &pid))
			break;
		tid = track_tid(w, dev, TRACK_GROUP, col_i64(st, 1, -1));
		slice(w, named(name) ? name : "collective", "collective", pid, tid, start,
		      col_i64(st, 3, 0));
		fprintf(f, ",\"args\":{\"opId\":%" PRId64 ",\"connectionId\":%" PRId64, op,
			col_i64(st, 4, -1));
		fputs(",\"groupName\":", f);
		put_str(f, col_txt(st, 10));
		fputs(",\"opType\":", f);
		put_str(f, type);
		fputs(",\"algType\":", f);
		put_str(f, alg);
		fprintf(f, ",\"count\":%" PRId64 "}}", col_i64(st, 9, 0));
		w->res->comm_ops++;
		if (sqlite3_column_type(st, 11) != SQLITE_NULL && op >= 0) {
			uint64_t g = (uint64_t)sqlite3_column_int64(st, 11);

			flow(w, 's', 2 * (uint64_t)op + 1, (int64_t)(g >> 32),
			     (int64_t)(g & 0xffffffffu), col_i64(st, 12, 0));
			flow(w, 'f', 2 * (uint64_t)op + 1, pid, tid, start);
		}
	}
	sqlite3_finalize(st);
}

static void mstx(struct tw *w)
{
	char sql[768];
	sqlite3_stmt *st;
	int dom;

	if (!w->mstx)
		return;
	dom = has_column(w, "MSTX_EVENTS", "domainId");
	snprintf(sql, sizeof(sql),
		 "SELECT m.startNs, m.endNs, m.eventType, m.globalTid, m.connectionId, s.value, "
		 "%s, m.rowid FROM MSTX_EVENTS m LEFT JOIN STRING_IDS s ON s.id = m.message %s "
		 "ORDER BY m.globalTid, m.startNs, m.rowid",
		 dom ? "d.value" : "NULL",
		 dom ? "LEFT JOIN STRING_IDS d ON d.id = m.domainId" : "");
	if (prep(w, sql, &st))
		return;
	while (step(w, st) == 1) {
		uint64_t g = (uint64_t)sqlite3_column_int64(st, 3);
		int64_t pid = (int64_t)(g >> 32), tid = (int64_t)(g & 0xffffffffu);
		int64_t type = col_i64(st, 2, 0), start = col_i64(st, 0, 0);
		const char *msg = col_txt(st, 5), *domain = col_txt(st, 6);
		FILE *f = w->f;

		if (!msg)
			msg = "";
		if (type == 1 || type == 2) {
			int64_t end = col_i64(st, 1, start), id = col_i64(st, 7, 0);

			ev(w, 'b', msg, "mstx", pid, tid, start);
			fprintf(f,
				",\"id\":%" PRId64 ",\"args\":{\"eventType\":%" PRId64
				",\"connectionId\":%" PRId64,
				id, type, col_i64(st, 4, -1));
			if (domain) {
				fputs(",\"domain\":", f);
				put_str(f, domain);
			}
			fputs("}}", f);
			ev(w, 'e', msg, "mstx", pid, tid, end > start ? end : start);
			fprintf(f, ",\"id\":%" PRId64 "}", id);
			w->res->ranges++;
		} else {
			ev(w, 'i', msg, "mstx", pid, tid, start);
			fprintf(f,
				",\"s\":\"t\",\"args\":{\"eventType\":%" PRId64
				",\"connectionId\":%" PRId64,
				type, col_i64(st, 4, -1));
			if (domain) {
				fputs(",\"domain\":", f);
				put_str(f, domain);
			}
			fputs("}}", f);
			w->res->marks++;
		}
	}
	sqlite3_finalize(st);
}

/* Queue depth per stream: +1 when a task is queued (its launch call's end,
 * or its start if that is earlier or it has no launch), -1 at its end;
 * one sample per distinct time where the depth changed. */
static void queue_depth(struct tw *w)
{
	char sql[1024];
	sqlite3_stmt *st;
	int64_t dev = INT64_MIN, stream = INT64_MIN, ts = NO_TS, depth = 0, shown = -1;
	int64_t pid = 0, tid = -1;
	char name[64];

	if (!w->task)
		return;
	snprintf(sql, sizeof(sql),
		 "SELECT deviceId, streamId, ts, d FROM ("
		 "SELECT t.deviceId AS deviceId, t.streamId AS streamId, %s AS ts, 1 AS d FROM TASK t %s "
		 "UNION ALL SELECT deviceId, streamId, MAX(startNs, endNs), -1 FROM TASK) "
		 "ORDER BY 1, 2, 3",
		 w->api ? "CASE WHEN a.endNs IS NOT NULL AND a.endNs < t.startNs THEN a.endNs "
			  "ELSE t.startNs END" :
			  "t.startNs",
		 w->api ? "LEFT JOIN CANN_API a ON a.connectionId = t.connectionId" : "");
	if (prep(w, sql, &st))
		return;
	for (;;) {
		int r = step(w, st);
		int64_t d = r == 1 ? col_i64(st, 0, -1) : INT64_MIN;
		int64_t s = r == 1 ? col_i64(st, 1, -1) : INT64_MIN;
		int64_t t = r == 1 ? col_i64(st, 2, 0) : NO_TS;

		if (r < 0)
			break;
		/* the samples of the previous time are complete */
		if (ts != NO_TS && (r == 0 || d != dev || s != stream || t != ts) &&
		    depth != shown) {
			ev(w, 'C', name, NULL, pid, tid, ts);
			fprintf(w->f, ",\"args\":{\"depth\":%" PRId64 "}}", depth);
			w->res->counters++;
			shown = depth;
		}
		if (r == 0)
			break;
		if (d != dev || s != stream) {
			dev = d;
			stream = s;
			depth = 0;
			shown = -1;
			if (dev_pid(w, dev, &pid))
				break;
			tid = track_tid(w, dev, TRACK_STREAM, stream);
			snprintf(name, sizeof(name), "queue depth stream %" PRId64, stream);
		}
		ts = t;
		depth += col_i64(st, 3, 0);
	}
	sqlite3_finalize(st);
}

/* ts 0: the session's start (SESSION_TIME_INFO), or the first time in the
 * data if that is earlier or there is no session row. */
static void find_origin(struct tw *w, int session)
{
	static const struct {
		const char *table, *col;
	} t[] = { { "SESSION_TIME_INFO", "startTimeNs" },
		  { "TASK", "startNs" },
		  { "CANN_API", "startNs" },
		  { "MSTX_EVENTS", "startNs" },
		  { "COMMUNICATION_OP", "startNs" },
		  { "PYTORCH_API", "CAST(startNs AS INTEGER)" } };
	int have[] = { session, w->task, w->api, w->mstx, w->comm_op, w->fwk };
	char sql[512];
	size_t n = 0;
	sqlite3_stmt *st;

	n += (size_t)snprintf(sql, sizeof(sql), "SELECT MIN(x) FROM (SELECT NULL AS x");
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (have[i])
			n += (size_t)snprintf(sql + n, sizeof(sql) - n,
					      " UNION ALL SELECT MIN(%s) FROM %s", t[i].col,
					      t[i].table);
	snprintf(sql + n, sizeof(sql) - n, ")");
	if (prep(w, sql, &st))
		return;
	if (step(w, st) == 1)
		w->origin = col_i64(st, 0, 0);
	sqlite3_finalize(st);
}

/* ---- the file ------------------------------------------------------------------ */

int npuprof_trace_json(const char *db, const char *out, const struct npuprof_trace_opts *o,
		       struct npuprof_trace_result *res, char *err, size_t errlen)
{
	struct npuprof_trace_opts defo;
	struct npuprof_trace_result dres;
	struct atomic_file af = { 0 };
	struct tw w;
	int r;

	if (!o) {
		memset(&defo, 0, sizeof(defo));
		o = &defo;
	}
	if (!res)
		res = &dres;
	memset(res, 0, sizeof(*res));
	memset(&w, 0, sizeof(w));
	w.path = db;
	w.out = out;
	w.o = o;
	w.res = res;
	w.err = err;
	w.errlen = errlen;
	w.first = 1;
	if (sqlite3_open_v2(db, &w.db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		npuprof_seterr(err, errlen, "%s: cannot be opened: %s", db,
			       w.db ? sqlite3_errmsg(w.db) : "out of memory");
		sqlite3_close(w.db);
		return -EIO;
	}
	/* sorts and the temporary table spill to files, not memory */
	sqlite3_exec(w.db, "PRAGMA temp_store = FILE", NULL, NULL, NULL);
	w.task = has_table(&w, "TASK");
	if (!w.rc && !w.task && !has_table(&w, "STRING_IDS") && !has_table(&w, "META_DATA") &&
	    !w.rc) {
		npuprof_seterr(err, errlen,
			       "%s: not an msprof database (no TASK, STRING_IDS or META_DATA)", db);
		sqlite3_close(w.db);
		return -EINVAL;
	}
	w.api = has_table(&w, "CANN_API");
	w.enum_api = has_table(&w, "ENUM_API_TYPE");
	w.compute = has_table(&w, "COMPUTE_TASK_INFO");
	w.comm_task = has_table(&w, "COMMUNICATION_TASK_INFO");
	w.comm_op = has_table(&w, "COMMUNICATION_OP");
	w.mstx = has_table(&w, "MSTX_EVENTS");
	w.npu_info = has_table(&w, "NPU_INFO");
	w.fwk = has_table(&w, "PYTORCH_API");
	w.conn_ids = has_table(&w, "CONNECTION_IDS");
	find_origin(&w, has_table(&w, "SESSION_TIME_INFO"));
	if (w.rc)
		goto out;

	r = atomic_file_open(&af, out, err, errlen);
	if (r < 0) {
		w.rc = r;
		goto out;
	}
	w.f = af.f;
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"npuprof\",\"database\":",
	      w.f);
	put_str(w.f, db);
	fprintf(w.f, ",\"startTimeUnixNs\":\"%" PRId64 "\"},\"traceEvents\":[", w.origin);

	op_devices(&w);
	host_names(&w);
	device_names(&w);
	api_slices(&w);
	fwk_slices(&w);
	task_slices(&w);
	fwk_links(&w);
	comm_ops(&w);
	mstx(&w);
	queue_depth(&w);
	if (!w.rc) {
		fputs("\n]}\n", w.f);
		if (ferror(w.f))
			out_failed(&w);
	}
	if (!w.rc) {
		w.f = NULL;
		r = atomic_file_commit(&af, err, errlen);
		if (r < 0)
			w.rc = r;
	}
out:
	atomic_file_abort(&af);
	for (size_t i = 0; i < w.ntr; i++)
		free(w.tr[i].name);
	free(w.tr);
	free(w.lane);
	for (size_t i = 0; i < w.fl_cap; i++)
		free(w.fl[i].open);
	free(w.fl);
	sqlite3_close(w.db);
	return w.rc;
}
