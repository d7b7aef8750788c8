/*
 * replay.c - re-issue the device timeline of an msprof or PyTorch profiler
 * database through the ACL runtime.
 *
 * Every TASK row becomes one task on the replay device (the db's devices map
 * to ours in order), on a stream per (device, streamId) of the db, with the
 * row's taskType as the runtime task-type name. Every task is timed
 * (ACLNPU_REPLAY_TIMED): it starts at its recorded offset from the db's
 * first timestamp, or when its stream or its event lets it, whichever is
 * later, and runs for its recorded duration exactly; so the host submit
 * timing and the dispatch gaps are the recorded ones, and what a task
 * waited for comes out of the model:
 *   EVENT_WAIT: waits for the EVENT_RECORD it waited for on the device: the
 *     latest record on another stream of its device ending before the wait
 *     did (in the recorded order, each record released once); it lasts
 *     until that record has run. A wait with no record is a place holder.
 *   FFTS+ subtasks (contextId set, same stream and taskId as the task
 *     before them): run inside their container at their recorded offset.
 *   rows with COMPUTE_TASK_INFO (kernels, DSA_SQE on STARS_COMMON ...):
 *     aclnpuLaunchOp with the row's name, types, block dims and tensors;
 *     rows without it get none (no invented operator).
 *   rows with COMMUNICATION_TASK_INFO: raw tasks carrying it, their
 *     COMMUNICATION_OP recorded once per op (aclnpuRecordHcclOp).
 *   Notify Wait outside an FFTS+ task: a real notify wait whose notify a
 *     stand-in for the remote rank records from another device (or, with
 *     one device, a helper stream).
 * When the db has CANN_API, its rows are recorded as they are (names,
 * levels, relative times) instead of the runtime's own ranges, and each
 * task takes the connectionId of the range it had (aclnpuRecordApi); so the
 * db's profiling level carries over (level0: no runtime-level rows).
 * Subtask Notify Waits last as recorded: the remote rank is not replayed
 * with them.
 */
#include <errno.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "dbread.h"
#include "npuwork.h"

#define MAX_STREAMS 64
#define NPUWORK_MAX_RANKS 8
#define MAX_EVENTS 4000
#define NO_CTX 4294967295LL
/* the db's first timestamp this far after the streams are set up: the API
 * ranges and HCCL ops are recorded in between, and a first task sent after
 * its time would be stamped inside the db's next API range and take its
 * connectionId (PROFILING_ENABLE did, in 1 of 8 runs under TCG, at 0.1 s) */
#define LEAD_NS 1000000000ULL
#define AHEAD_NS 50000000ULL /* submit a task this far before its start */
#define JOB_LEAD_NS 3000000000ULL /* ranks of a job: their timeline starts in 3 s */

#define CHECK(call)                                                                         \
	do {                                                                                \
		aclError e_ = (call);                                                       \
		if (e_ != ACL_SUCCESS) {                                                    \
			fprintf(stderr, "npuwork: replay: %s failed: %d (%s)\n", #call, e_, \
				aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");          \
			exit(1);                                                            \
		}                                                                           \
	} while (0)

enum {
	C_START,
	C_END,
	C_DEV,
	C_STREAM,
	C_TASK,
	C_CTX,
	C_CONN,
	C_GTID,
	C_TYPE,
	/* COMPUTE_TASK_INFO */
	C_CI,
	C_BD,
	C_MBD,
	C_NAME,
	C_OPTYPE,
	C_GETYPE,
	C_TENSORS, /* 7 strings: formats, dtypes, shapes in/out, attrInfo */
	/* COMMUNICATION_TASK_INFO */
	C_CT = C_TENSORS + 7,
	C_CT_NAME,
	C_CT_TYPE,
	C_CT_PLANE,
	C_CT_GROUP,
	C_CT_NOTIFY,
	C_CT_RDMA,
	C_CT_SRC,
	C_CT_DST,
	C_CT_TRANSPORT,
	C_CT_SIZE,
	C_CT_DTYPE,
	C_CT_LINK,
	C_CT_OPID,
	C_NCOLS
};

struct row {
	long long v[C_NCOLS];
	char *s[C_NCOLS];
	int sub; /* an FFTS+ subtask of the task before it on its stream */
	int pair; /* EVENT_WAIT: its record's row; EVENT_RECORD: 1 if taken */
	aclrtEvent ev; /* EVENT_RECORD */
};

struct smap {
	long long db_dev, db_stream;
	int dev;
	aclrtStream s;
	long long last_task; /* db taskId of the last task that was no subtask */
	long long last_start;
};

struct conn_map {
	long long db;
	uint64_t ours;
};

struct hop {
	long long op_id;
	uint64_t seq;
};

static struct smap g_streams[MAX_STREAMS];
static int g_nstreams;
static long long g_db_devs[8];
static int g_ndb_devs;
static int g_cur_dev = -1;

static void set_device(int dev)
{
	if (dev != g_cur_dev)
		CHECK(aclrtSetDevice(dev));
	g_cur_dev = dev;
}

static int map_dev(long long db_dev)
{
	for (int i = 0; i < g_ndb_devs; i++)
		if (g_db_devs[i] == db_dev)
			return (opt.first_dev + i) % opt.ndev;
	if (g_ndb_devs < 8)
		g_db_devs[g_ndb_devs++] = db_dev;
	return (opt.first_dev + g_ndb_devs - 1) % opt.ndev;
}

static struct smap *stream_for(long long db_dev, long long db_stream)
{
	struct smap *m;

	for (int i = 0; i < g_nstreams; i++)
		if (g_streams[i].db_dev == db_dev && g_streams[i].db_stream == db_stream)
			return &g_streams[i];
	if (g_nstreams == MAX_STREAMS) {
		fprintf(stderr, "npuwork: replay: more than %d streams\n", MAX_STREAMS);
		exit(1);
	}
	m = &g_streams[g_nstreams++];
	m->db_dev = db_dev;
	m->db_stream = db_stream;
	m->dev = map_dev(db_dev);
	m->last_task = -1;
	set_device(m->dev);
	CHECK(aclrtCreateStream(&m->s));
	return m;
}

static int is_kernel(const char *t)
{
	return !strncmp(t, "KERNEL_", 7) || !strcmp(t, "AI_CORE") || !strcmp(t, "AIC") ||
	       !strcmp(t, "AIV") || !strcmp(t, "MIX_AIC") || !strcmp(t, "MIX_AIV") ||
	       !strcmp(t, "AI_CPU");
}

static aclnpuTaskKind kind_of(const char *ge, const char *t)
{
	const char *k = ge ? ge : t;

	if (strstr(k, "MIX_AIC"))
		return ACLNPU_TASK_MIX_AIC;
	if (strstr(k, "MIX_AIV"))
		return ACLNPU_TASK_MIX_AIV;
	if (strstr(k, "VECTOR") || strstr(k, "AIVEC") || !strcmp(k, "AIV"))
		return ACLNPU_TASK_AI_VECTOR_CORE;
	if (strstr(k, "CPU"))
		return ACLNPU_TASK_AI_CPU;
	return ACLNPU_TASK_AI_CORE;
}

/* absent when it cannot be read: the queries that need it die saying why */
static int has_table(sqlite3 *h, const char *t)
{
	return npuprof_db_has_table(h, t) > 0;
}

static int has_column(sqlite3 *h, const char *t, const char *c)
{
	return npuprof_db_has_column(h, t, c) > 0;
}

static void die_db(sqlite3 *h, const char *db)
{
	fprintf(stderr, "npuwork: replay: %s: not an msprof db (%s)\n", db, sqlite3_errmsg(h));
	exit(1);
}

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000ULL), (long)(t % 1000000000ULL) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* The db's string for an id column, or NULL. */
#define S(x) "(SELECT value FROM STRING_IDS WHERE id = " x ")"
#define CI_REST                                                                                             \
	S("c.name")                                                                                         \
	", " S("c.opType") ", " S("c.taskType") ", " S("c.inputFormats") ", " S("c.inputDataTypes") ", " S( \
		"c.inputShapes") ", " S("c.outputFormats") ", " S("c.outputDataTypes") ", " S("c.outputShapes") ", " S("c.attrInfo")

static struct row *load_tasks(sqlite3 *h, const char *db, size_t *n)
{
	int ci = has_table(h, "COMPUTE_TASK_INFO"), ct = has_table(h, "COMMUNICATION_TASK_INFO");
	int ctx = has_column(h, "TASK", "contextId"), conn = has_column(h, "TASK", "connectionId");
	char sql[4096];
	sqlite3_stmt *st;
	struct row *rows = NULL;
	size_t cap = 0;
	int rc;

	/* schema 1.2.0 calls the block counts blockNum, mixBlockNum */
	int num = ci && has_column(h, "COMPUTE_TASK_INFO", "blockNum");
	const char *ci_cols = num ? "c.globalTaskId, c.blockNum, c.mixBlockNum, " CI_REST :
				    "c.globalTaskId, c.blockDim, c.mixBlockDim, " CI_REST;
	static const char ct_cols[] =
		"m.globalTaskId, " S("m.name") ", " S("m.taskType") ", m.planeId, " S(
			"m.groupName") ", m.notifyId, m.rdmaType, m.srcRank, m.dstRank, "
				       "m.transportType, m.size, m.dataType, m.linkType, m.opId";
	char ci_null[256] = "", ct_null[256] = "";

	for (int i = C_CI; i < C_CT; i++)
		strcat(ci_null, i > C_CI ? ", NULL" : "NULL");
	for (int i = C_CT; i < C_NCOLS; i++)
		strcat(ct_null, i > C_CT ? ", NULL" : "NULL");
	snprintf(sql, sizeof(sql),
		 "SELECT t.startNs, t.endNs, t.deviceId, t.streamId, t.taskId, %s, %s, "
		 "t.globalTaskId, " S("t.taskType") ", %s, %s FROM TASK t %s %s "
						    "ORDER BY t.startNs, %s, t.globalTaskId",
		 ctx ? "t.contextId" : "4294967295", conn ? "t.connectionId" : "-1",
		 ci ? ci_cols : ci_null, ct ? ct_cols : ct_null,
		 ci ? "LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId" : "",
		 ct ? "LEFT JOIN COMMUNICATION_TASK_INFO m ON m.globalTaskId = t.globalTaskId" : "",
		 ctx ? "t.contextId != 4294967295" : "0");
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
		die_db(h, db);
	*n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct row *r;

		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			rows = realloc(rows, cap * sizeof(*rows));
			if (!rows) {
				perror("npuwork: replay");
				exit(1);
			}
		}
		r = &rows[(*n)++];
		memset(r, 0, sizeof(*r));
		for (int i = 0; i < C_NCOLS; i++) {
			int is_str = i == C_TYPE || (i >= C_NAME && i < C_CT) || i == C_CT_NAME ||
				     i == C_CT_TYPE || i == C_CT_GROUP;

			if (sqlite3_column_type(st, i) == SQLITE_NULL) {
				r->v[i] = -1;
			} else if (is_str) {
				r->s[i] = strdup((const char *)sqlite3_column_text(st, i));
				if (!r->s[i]) {
					perror("npuwork: replay");
					exit(1);
				}
			} else {
				r->v[i] = sqlite3_column_int64(st, i);
			}
		}
		if (!r->s[C_TYPE])
			r->s[C_TYPE] = strdup("Other");
	}
	if (rc != SQLITE_DONE) {
		fprintf(stderr, "npuwork: replay: %s: %s\n", db, sqlite3_errmsg(h));
		exit(1);
	}
	sqlite3_finalize(st);
	return rows;
}

/* Each EVENT_WAIT's record: the latest not yet taken on another stream of
 * its device that ended before the wait did. */
static void pair_events(struct row *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		long best = -1;

		r[i].pair = -1;
		if (strcmp(r[i].s[C_TYPE], "EVENT_WAIT"))
			continue;
		for (size_t j = 0; j < n; j++)
			if (!strcmp(r[j].s[C_TYPE], "EVENT_RECORD") && !r[j].pair &&
			    r[j].v[C_DEV] == r[i].v[C_DEV] &&
			    r[j].v[C_STREAM] != r[i].v[C_STREAM] &&
			    r[j].v[C_END] <= r[i].v[C_END] &&
			    (best < 0 || r[j].v[C_END] >= r[best].v[C_END]))
				best = (long)j;
		if (best >= 0)
			r[best].pair = 1;
		r[i].pair = (int)best;
	}
}

static uint64_t conn_of(const struct conn_map *m, size_t n, long long db, int *found)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m[mid].db < db)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < n && m[lo].db == db;
	return *found ? m[lo].ours : 0;
}

static int cmp_conn(const void *a, const void *b)
{
	const struct conn_map *x = a, *y = b;

	return x->db < y->db ? -1 : x->db > y->db;
}

/* The db's CANN_API rows, recorded as they are; returns the map of their
 * connectionIds (sorted by the db's). */
static struct conn_map *replay_apis(sqlite3 *h, uint64_t t0, long long base, size_t *n)
{
	sqlite3_stmt *st;
	struct conn_map *m = NULL;
	size_t cap = 0;

	*n = 0;
	if (sqlite3_prepare_v2(h,
			       "SELECT startNs, endNs, type, " S(
				       "name") ", connectionId FROM CANN_API "
					       "ORDER BY startNs, connectionId",
			       -1, &st, NULL) != SQLITE_OK)
		return NULL;
	while (sqlite3_step(st) == SQLITE_ROW) {
		long long s = sqlite3_column_int64(st, 0), e = sqlite3_column_int64(st, 1);
		const char *name = (const char *)sqlite3_column_text(st, 3);
		uint64_t conn;

		if (s < base)
			s = base;
		if (e < s)
			e = s;
		CHECK(aclnpuRecordApi((uint32_t)sqlite3_column_int64(st, 2), name ? name : "N/A",
				      t0 + (uint64_t)(s - base), t0 + (uint64_t)(e - base), &conn));
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			m = realloc(m, cap * sizeof(*m));
			if (!m) {
				perror("npuwork: replay");
				exit(1);
			}
		}
		m[*n].db = sqlite3_column_int64(st, 4);
		m[(*n)++].ours = conn;
	}
	sqlite3_finalize(st);
	qsort(m, *n, sizeof(*m), cmp_conn);
	return m;
}

/* The db's COMMUNICATION_OP rows; returns their op sequence numbers. */
static struct hop *replay_hccl_ops(sqlite3 *h, const struct row *r, size_t nr, uint64_t t0,
				   long long base, const struct conn_map *cm, size_t ncm, int *nops)
{
	sqlite3_stmt *st;
	struct hop *ops = NULL;
	int cap = 0, rank = 0;

	*nops = 0;
	if (has_table(h, "RANK_DEVICE_MAP") &&
	    sqlite3_prepare_v2(h, "SELECT rankId FROM RANK_DEVICE_MAP LIMIT 1", -1, &st, NULL) ==
		    SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			rank = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	if (!has_table(h, "COMMUNICATION_OP") ||
	    sqlite3_prepare_v2(
		    h,
		    "SELECT " S("opName") ", startNs, endNs, connectionId, " S("groupName") ", opId, relay, retry, dataType, " S(
			    "algType") ", "
				       "count, " S(
					       "opType") " FROM COMMUNICATION_OP ORDER BY startNs",
		    -1, &st, NULL) != SQLITE_OK)
		return NULL;
	while (sqlite3_step(st) == SQLITE_ROW) {
		aclnpuHcclOpDesc d;
		long long op_id = sqlite3_column_int64(st, 5), s = sqlite3_column_int64(st, 1),
			  e = sqlite3_column_int64(st, 2);
		const struct row *first = NULL;
		uint32_t ntask = 0, ranks = 1;
		int found;

		for (size_t i = 0; i < nr; i++)
			if (r[i].v[C_CT] >= 0 && r[i].v[C_CT_OPID] == op_id) {
				if (!first)
					first = &r[i];
				ntask++;
				if (r[i].v[C_CT_SRC] >= 0 && r[i].v[C_CT_SRC] < 4096 &&
				    (uint32_t)r[i].v[C_CT_SRC] + 1 > ranks)
					ranks = (uint32_t)r[i].v[C_CT_SRC] + 1;
				if (r[i].v[C_CT_DST] >= 0 && r[i].v[C_CT_DST] < 4096 &&
				    (uint32_t)r[i].v[C_CT_DST] + 1 > ranks)
					ranks = (uint32_t)r[i].v[C_CT_DST] + 1;
			}
		if (!first)
			continue; /* no task of it on the device */
		memset(&d, 0, sizeof(d));
		d.size = sizeof(d);
		d.opName = (const char *)sqlite3_column_text(st, 0);
		d.groupName = (const char *)sqlite3_column_text(st, 4);
		d.algType = (const char *)sqlite3_column_text(st, 9);
		d.opType = (const char *)sqlite3_column_text(st, 11);
		if (!d.opName || !d.opType || !d.groupName)
			continue;
		d.relay = (uint8_t)sqlite3_column_int(st, 6);
		d.retry = (uint8_t)sqlite3_column_int(st, 7);
		d.dataType = (uint32_t)sqlite3_column_int(st, 8);
		d.count = (uint64_t)sqlite3_column_int64(st, 10);
		d.rank = (uint32_t)rank;
		d.rankSize = ranks;
		if (s < base)
			s = base;
		if (e < s)
			e = s;
		d.startNs = t0 + (uint64_t)(s - base);
		d.endNs = t0 + (uint64_t)(e - base);
		d.connectionId = conn_of(cm, ncm, sqlite3_column_int64(st, 3), &found);
		if (!found)
			d.connectionId = UINT64_MAX;
		d.taskCount = ntask;
		if (*nops == cap) {
			cap = cap ? 2 * cap : 16;
			ops = realloc(ops, (size_t)cap * sizeof(*ops));
			if (!ops) {
				perror("npuwork: replay");
				exit(1);
			}
		}
		ops[*nops].op_id = op_id;
		CHECK(aclnpuRecordHcclOp(&d, stream_for(first->v[C_DEV], first->v[C_STREAM])->s,
					 &ops[*nops].seq));
		(*nops)++;
	}
	sqlite3_finalize(st);
	return ops;
}

/* The db's first timestamp: of its tasks or its API ranges. */
static long long db_first_ns(sqlite3 *h)
{
	static const char *const sqls[] = { "SELECT MIN(startNs) FROM TASK",
					    "SELECT MIN(startNs) FROM CANN_API" };
	long long first = 0;
	int have = 0;

	for (int i = 0; i < 2; i++) {
		sqlite3_stmt *st;

		if (sqlite3_prepare_v2(h, sqls[i], -1, &st, NULL) != SQLITE_OK)
			continue;
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL &&
		    (!have || sqlite3_column_int64(st, 0) < first)) {
			first = sqlite3_column_int64(st, 0);
			have = 1;
		}
		sqlite3_finalize(st);
	}
	return first;
}

uint64_t run_replay(const char *db)
{
	sqlite3 *h;
	struct row *r;
	struct conn_map *cm = NULL;
	struct hop *ops = NULL;
	size_t n, ncm = 0;
	aclrtStream helper[8] = { 0 };
	uint64_t t0, placeholders = 0;
	unsigned long long t0_shared = 0;
	long long base, base_shared = 0;
	const char *epoch;
	int nops = 0, nev = 0, apis;

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		fprintf(stderr, "npuwork: replay: cannot open %s: %s\n", db, sqlite3_errmsg(h));
		exit(1);
	}
	if (!has_table(h, "TASK"))
		die_db(h, db);
	r = load_tasks(h, db, &n);
	pair_events(r, n);
	apis = has_table(h, "CANN_API");
	base = db_first_ns(h);
	epoch = getenv("NPUWORK_REPLAY_EPOCH");
	if (epoch && sscanf(epoch, "%llu:%lld", &t0_shared, &base_shared) == 2 &&
	    base_shared <= base)
		base = base_shared; /* the ranks of a job share one timeline */
	else
		t0_shared = 0;
	/* the db's API ranges replace the runtime's own (also aclInit's) */
	if (apis)
		aclnpuRecordOwnApis(0);
	CHECK(aclInit(NULL));
	manifest_start();
	/* streams, events and subtask structure first, out of the timeline */
	for (size_t i = 0; i < n; i++) {
		struct smap *m = stream_for(r[i].v[C_DEV], r[i].v[C_STREAM]);

		if (r[i].v[C_CTX] != NO_CTX && r[i].v[C_CTX] >= 0 && m->last_task == r[i].v[C_TASK])
			r[i].sub = 1;
		else
			m->last_task = r[i].v[C_TASK];
		if (!strcmp(r[i].s[C_TYPE], "EVENT_RECORD") && nev < MAX_EVENTS) {
			set_device(m->dev);
			CHECK(aclrtCreateEvent(&r[i].ev));
			nev++;
		}
	}
	t0 = mono_now() + LEAD_NS;
	if (t0_shared >= t0)
		t0 = t0_shared;
	else if (t0_shared)
		fprintf(stderr,
			"npuwork: replay: %s: set up %.3f s too late for the job's "
			"timeline; it runs behind the other ranks\n",
			db, (t0 - t0_shared) / 1e9);
	if (apis)
		cm = replay_apis(h, t0, base, &ncm);
	ops = replay_hccl_ops(h, r, n, t0, base, cm, ncm, &nops);
	sqlite3_close(h);
	uint64_t ready = mono_now();

	if (ready > t0)
		fprintf(stderr,
			"npuwork: replay: %s: set up %.3f s late: its first tasks are sent "
			"after their time\n",
			db, (ready - t0) / 1e9);

	for (size_t i = 0; i < n; i++) {
		struct row *x = &r[i];
		const char *type = x->s[C_TYPE];
		struct smap *m = stream_for(x->v[C_DEV], x->v[C_STREAM]);
		long long start = x->v[C_START] < base ? base : x->v[C_START];
		long long dur = x->v[C_END] - x->v[C_START];
		uint32_t flags = ACLNPU_REPLAY_TIMED;
		uint64_t at = t0 + (uint64_t)(start - base), conn = 0;
		aclnpuHcclTaskInfo hi;
		aclnpuRawTask rt;
		int found = 0;

		if (dur < 0)
			dur = 0;
		if ((unsigned long long)dur > 10000000000ULL)
			dur = 10000000000LL;
		if (x->sub) {
			flags |= ACLNPU_REPLAY_SUBTASK;
			at = (uint64_t)(x->v[C_START] - m->last_start);
			if (at > 10000000000ULL)
				at = 10000000000ULL;
		} else {
			m->last_start = x->v[C_START];
			if (at > AHEAD_NS)
				sleep_until(at - AHEAD_NS);
		}
		if (x->v[C_CTX] != NO_CTX && x->v[C_CTX] >= 0 && x->v[C_CTX] <= 0xffffffffLL)
			flags |= ACLNPU_REPLAY_CONTEXT;
		if (cm) {
			conn = conn_of(cm, ncm, x->v[C_CONN], &found);
			if (found)
				flags |= ACLNPU_REPLAY_CONN;
		}
		set_device(m->dev);
		if (x->v[C_CI] >= 0 && x->s[C_NAME]) {
			aclnpuOpDesc d;
			long long bd = x->v[C_BD];

			memset(&d, 0, sizeof(d));
			d.size = sizeof(d);
			d.opName = x->s[C_NAME];
			d.opType = x->s[C_OPTYPE] ? x->s[C_OPTYPE] : type;
			d.taskKind = kind_of(x->s[C_GETYPE], type);
			d.geTaskType = x->s[C_GETYPE];
			d.taskTypeName = type;
			d.blockDim = bd < 0 ? 0 : bd > 65535 ? 65535 : (uint32_t)bd;
			d.mixBlockDim = x->v[C_MBD] < 0 ? 0 : (uint32_t)x->v[C_MBD];
			d.durationNs = (uint64_t)dur;
			d.inputFormats = x->s[C_TENSORS];
			d.inputDataTypes = x->s[C_TENSORS + 1];
			d.inputShapes = x->s[C_TENSORS + 2];
			d.outputFormats = x->s[C_TENSORS + 3];
			d.outputDataTypes = x->s[C_TENSORS + 4];
			d.outputShapes = x->s[C_TENSORS + 5];
			d.attrInfo = x->s[C_TENSORS + 6];
			d.replayFlags = flags;
			d.contextId = (uint32_t)x->v[C_CTX];
			d.startNs = at;
			d.connectionId = conn;
			CHECK(aclnpuLaunchOp(&d, m->s));
			continue;
		}
		memset(&rt, 0, sizeof(rt));
		rt.size = sizeof(rt);
		rt.taskTypeName = type;
		rt.durationNs = (uint64_t)dur;
		rt.replayFlags = flags;
		rt.contextId = (uint32_t)x->v[C_CTX];
		rt.startNs = at;
		rt.connectionId = conn;
		if (x->v[C_CT] >= 0) {
			memset(&hi, 0, sizeof(hi));
			for (int k = 0; k < nops; k++)
				if (ops[k].op_id == x->v[C_CT_OPID])
					hi.opSeq = ops[k].seq;
			hi.opName = x->s[C_CT_NAME];
			hi.groupName = x->s[C_CT_GROUP];
			hi.taskType = x->s[C_CT_TYPE];
			hi.planeId = (uint32_t)x->v[C_CT_PLANE];
			hi.srcRank = (uint32_t)x->v[C_CT_SRC];
			hi.dstRank = (uint32_t)x->v[C_CT_DST];
			hi.transportType = (uint16_t)x->v[C_CT_TRANSPORT];
			hi.linkType = (uint16_t)x->v[C_CT_LINK];
			hi.rdmaType = (uint16_t)x->v[C_CT_RDMA];
			hi.dataType = (uint16_t)x->v[C_CT_DTYPE];
			hi.size = (uint64_t)x->v[C_CT_SIZE];
			hi.notifyId = (uint64_t)x->v[C_CT_NOTIFY];
			hi.isMaster = 1;
			rt.hccl = &hi;
		}
		if (is_kernel(type)) {
			aclnpuTaskKind k = kind_of(NULL, type);

			rt.sqeType = k == ACLNPU_TASK_AI_VECTOR_CORE || k == ACLNPU_TASK_MIX_AIV ?
					     2 :
					     0;
			rt.kind = k == ACLNPU_TASK_MIX_AIC ? 1 : k == ACLNPU_TASK_MIX_AIV ? 2 : 0;
		} else if (!strcmp(type, "EVENT_RECORD") && x->ev) {
			rt.sqeType = 4;
			rt.event = x->ev;
		} else if (!strcmp(type, "EVENT_WAIT") && x->pair >= 0 && r[x->pair].ev) {
			const struct row *rec = &r[x->pair];

			rt.sqeType = 5;
			rt.event = rec->ev;
			/* it ends this long after its record (or lasts as
			 * recorded if the record was done before it began) */
			if (rec->v[C_END] > x->v[C_START])
				rt.durationNs = (uint64_t)(x->v[C_END] - rec->v[C_END]);
		} else if (!x->sub &&
			   (!strcmp(type, "Notify Wait") || !strcmp(type, "NOTIFY_WAIT"))) {
			int peer = opt.ndev > 1 ? (m->dev + 1) % opt.ndev : m->dev;
			aclnpuRawTask rec;
			uint32_t id;

			if (!helper[peer]) {
				set_device(peer);
				CHECK(aclrtCreateStream(&helper[peer]));
				set_device(m->dev);
			}
			CHECK(aclnpuNotifyCreate(m->dev, &id));
			memset(&rec, 0, sizeof(rec));
			rec.size = sizeof(rec);
			rec.sqeType = 6; /* NOTIFY_RECORD, from the stand-in rank */
			rec.id = id;
			rec.targetDevice = (uint32_t)m->dev;
			rec.taskTypeName = "NOTIFY_RECORD";
			CHECK(aclnpuLaunchRawTask(&rec, helper[peer]));
			rt.sqeType = 7; /* NOTIFY_WAIT */
			rt.id = id;
			/* the id goes back when the device is reset */
		} else if (!strcmp(type, "SDMA") || !strcmp(type, "MEMCPY_ASYNC")) {
			rt.sqeType = 11;
		} else if (!strcmp(type, "Write Value")) {
			rt.sqeType = 8;
		} else {
			rt.sqeType = 3; /* place holder */
			placeholders += !strcmp(type, "EVENT_WAIT");
		}
		CHECK(aclnpuLaunchRawTask(&rt, m->s));
	}
	for (int i = 0; i < g_nstreams; i++)
		CHECK(aclrtSynchronizeStream(g_streams[i].s));
	for (int i = 0; i < 8; i++)
		if (helper[i])
			CHECK(aclrtSynchronizeStream(helper[i]));
	for (size_t i = 0; i < n; i++)
		if (r[i].ev)
			CHECK(aclrtDestroyEvent(r[i].ev));
	manifest_finish(opt.manifest);
	if (!opt.quiet) {
		printf("replay: %s: %zu db tasks on %d stream(s), %d HCCL op(s), %zu API range(s)",
		       db, n, g_nstreams, nops, ncm);
		if (placeholders)
			printf(" (%llu EVENT_WAIT without a record as place holders)",
			       (unsigned long long)placeholders);
		printf("\nreplayed tasks by type on device %d:\n", opt.first_dev);
		manifest_print_counts(opt.first_dev);
	}
	for (int d = 0; d < opt.ndev; d++)
		aclrtResetDeviceForce(d);
	CHECK(aclFinalize());
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < C_NCOLS; k++)
			free(r[i].s[k]);
	free(r);
	free(cm);
	free(ops);
	return manifest_total();
}

/* Rank i: a fresh npuwork replaying db i on device i, RANK_ID=i (the rank
 * identity the recorder reads), so each rank is a process of its own, with
 * its own profiling session. All ranks replay on one timeline
 * (NPUWORK_REPLAY_EPOCH "t0:first": the CLOCK_MONOTONIC time that the
 * earliest db timestamp of the job maps to), so their collectives line up
 * as recorded. */
uint64_t run_replay_ranks(const char *dbs)
{
	char *list = strdup(dbs), *save = NULL, *db;
	pid_t pids[NPUWORK_MAX_RANKS];
	int n = 0, failed = 0, have = 0;
	long long first = 0;
	char epoch[64];

	if (!list) {
		perror("npuwork: replay");
		exit(1);
	}
	/* one timeline for the job: the earliest timestamp of all its dbs at
	 * one time, far enough ahead for every rank to set up */
	for (db = strtok_r(list, ",", &save); db; db = strtok_r(NULL, ",", &save)) {
		sqlite3 *h;
		long long f;

		if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
			fprintf(stderr, "npuwork: replay: cannot open %s: %s\n", db,
				sqlite3_errmsg(h));
			exit(1);
		}
		f = db_first_ns(h);
		sqlite3_close(h);
		if (!have || f < first)
			first = f;
		have = 1;
	}
	snprintf(epoch, sizeof(epoch), "%llu:%lld", (unsigned long long)(mono_now() + JOB_LEAD_NS),
		 first);
	setenv("NPUWORK_REPLAY_EPOCH", epoch, 1);
	strcpy(list, dbs);
	save = NULL;
	for (db = strtok_r(list, ",", &save); db; db = strtok_r(NULL, ",", &save)) {
		if (n == NPUWORK_MAX_RANKS || n >= opt.ndev) {
			fprintf(stderr, "npuwork: replay: --db: more ranks than --devices (%d)\n",
				opt.ndev);
			exit(2);
		}
		fflush(NULL);
		pids[n] = fork();
		if (pids[n] < 0) {
			perror("npuwork: replay: fork");
			exit(1);
		}
		if (pids[n] == 0) {
			char rank[16], ndev[16], man[4096];
			char *argv[16];
			int k = 0;

			snprintf(rank, sizeof(rank), "%d", n);
			snprintf(ndev, sizeof(ndev), "%d", opt.ndev);
			setenv("RANK_ID", rank, 1);
			argv[k++] = "npuwork";
			argv[k++] = "--scenario";
			argv[k++] = "replay";
			argv[k++] = "--db";
			argv[k++] = db;
			argv[k++] = "--devices";
			argv[k++] = ndev;
			argv[k++] = "--first-device";
			argv[k++] = rank;
			if (opt.manifest) {
				snprintf(man, sizeof(man), "%s.%d", opt.manifest, n);
				argv[k++] = "--manifest";
				argv[k++] = man;
			}
			if (opt.quiet)
				argv[k++] = "--quiet";
			argv[k] = NULL;
			execv("/proc/self/exe", argv);
			perror("npuwork: replay: exec");
			_exit(1);
		}
		n++;
	}
	for (int i = 0; i < n; i++) {
		int st;

		if (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "npuwork: replay: rank %d failed\n", i);
			failed = 1;
		}
	}
	free(list);
	if (failed)
		exit(1);
	return 0;
}
