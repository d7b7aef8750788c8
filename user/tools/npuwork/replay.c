/*
 * replay.c - re-issue the device tasks of an msprof or PyTorch profiler
 * database through the ACL runtime.
 *
 * Every TASK row becomes one task on the replay device (the db's devices map
 * to ours in order), on a stream per (device, streamId) of the db, in startNs
 * order, with the row's duration and its taskType as the runtime task-type
 * name, so the replay holds the same number of tasks per type as the db:
 *   kernels (KERNEL_*, AI_CORE, AIC, AIV, MIX_*): aclnpuLaunchOp with the
 *     COMPUTE_TASK_INFO name, type, block dims and tensor strings;
 *   EVENT_RECORD / EVENT_WAIT: real events; a wait takes the newest record
 *     not yet waited for (a wait with none becomes a place holder of the
 *     same type name, so that nothing blocks);
 *   Notify Wait / NOTIFY_WAIT: a real notify wait, whose notify a stand-in
 *     for the remote rank records from a stream on another device (or, with
 *     one device, a helper stream);
 *   SDMA / MEMCPY_ASYNC: SDMA tasks; Write Value: WRITE_VALUE tasks;
 *   anything else (STARS_COMMON, PROFILING_ENABLE ...): place holders.
 * HCCL ops are replayed as their small tasks (no HCCL_OP records). Tasks
 * with no API of their own (the HCCL small tasks, STARS_COMMON ...) are
 * launched inside a scope (aclnpuScopeBegin) named as the db's acl-level
 * call of their connectionId, e.g. hcom_allReduce_ > launch, so they join
 * CANN_API as in the db.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "npuwork.h"

#define MAX_STREAMS 64
#define MAX_EVENTS 4096

#define CHECK(call)                                                                         \
	do {                                                                                \
		aclError e_ = (call);                                                       \
		if (e_ != ACL_SUCCESS) {                                                    \
			fprintf(stderr, "npuwork: replay: %s failed: %d (%s)\n", #call, e_, \
				aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");          \
			exit(1);                                                            \
		}                                                                           \
	} while (0)

struct smap {
	long long db_dev, db_stream;
	int dev;
	aclrtStream s;
};

static struct smap g_streams[MAX_STREAMS];
static int g_nstreams;
static long long g_db_devs[8];
static int g_ndb_devs;

static int map_dev(long long db_dev)
{
	for (int i = 0; i < g_ndb_devs; i++)
		if (g_db_devs[i] == db_dev)
			return i % opt.ndev;
	if (g_ndb_devs < 8)
		g_db_devs[g_ndb_devs++] = db_dev;
	return (g_ndb_devs - 1) % opt.ndev;
}

static aclrtStream stream_for(long long db_dev, long long db_stream, int *dev)
{
	for (int i = 0; i < g_nstreams; i++)
		if (g_streams[i].db_dev == db_dev && g_streams[i].db_stream == db_stream) {
			*dev = g_streams[i].dev;
			return g_streams[i].s;
		}
	if (g_nstreams == MAX_STREAMS) {
		fprintf(stderr, "npuwork: replay: more than %d streams\n", MAX_STREAMS);
		exit(1);
	}
	g_streams[g_nstreams].db_dev = db_dev;
	g_streams[g_nstreams].db_stream = db_stream;
	g_streams[g_nstreams].dev = *dev = map_dev(db_dev);
	CHECK(aclrtSetDevice(*dev));
	CHECK(aclrtCreateStream(&g_streams[g_nstreams].s));
	return g_streams[g_nstreams++].s;
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

static const char *col(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

/* The db's string for an id column, or NULL. */
#define S(x) "(SELECT value FROM STRING_IDS WHERE id = " x ")"

uint64_t run_replay(const char *db)
{
	/* the db's host call of each task: its connectionId, the acl-level
	 * name (the API itself, or the acl range around its node `launch` on
	 * the same thread) and the op name (item) */
#define API_COLS                                                                                     \
	", t.connectionId, (SELECT CASE WHEN a.type = 20000 THEN " S("a.name") " ELSE (SELECT " S(   \
		"b.name") " FROM CANN_API b WHERE b.globalTid = a.globalTid AND b.type = 20000 AND " \
			  "b.startNs <= a.startNs AND b.endNs >= a.endNs ORDER BY b.startNs DESC "   \
			  "LIMIT 1) END FROM CANN_API a WHERE a.connectionId = t.connectionId AND "  \
			  "a.type IN (10000, 20000) LIMIT 1) "
#define NO_API_COLS ", NULL, NULL "
#define TASK_COLS(api)                                                                                                                                                                                                                     \
	"SELECT t.deviceId, t.streamId, t.endNs - t.startNs, " S(                                                                                                                                                                          \
		"t.taskType") ", c.blockDim, "                                                                                                                                                                                             \
			      "c.mixBlockDim, " S("c.name") ", " S("c.opType") ", " S("c.taskType") ", " S("c.inputFormats") ", " S("c.inputDataTypes") ", " S(                                                                            \
				      "c.inputShapes") ", " S("c.outputFormats") ", " S("c.outputDataTypes") ", " S("c.outputShapes") ", " S("c.attrInfo") ", t.globalTaskId" api                                                          \
																			   "FROM TASK t LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId " \
																			   "ORDER BY t.startNs, t.globalTaskId"
#define PLAIN_COLS(api)                                                                                        \
	"SELECT t.deviceId, t.streamId, t.endNs - t.startNs, " S(                                              \
		"t.taskType") ", NULL, NULL, "                                                                 \
			      "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, t.globalTaskId" api \
			      "FROM TASK t ORDER BY t.startNs, t.globalTaskId"
	static const char *const sqls[] = { TASK_COLS(API_COLS), PLAIN_COLS(API_COLS),
					    TASK_COLS(NO_API_COLS), PLAIN_COLS(NO_API_COLS) };
	long long scope_conn = -1; /* the db connectionId of the open scope */
	aclrtEvent *recorded = calloc(MAX_EVENTS, sizeof(*recorded)); /* recorded, not yet waited */
	int nrec = 0;
	aclrtEvent all_events[MAX_EVENTS];
	int nall = 0;
	aclrtStream helper[8] = { 0 };
	sqlite3 *h;
	sqlite3_stmt *st;
	uint64_t n = 0, placeholders = 0;
	int rc;

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		fprintf(stderr, "npuwork: replay: cannot open %s: %s\n", db, sqlite3_errmsg(h));
		exit(1);
	}
	rc = SQLITE_ERROR;
	for (unsigned i = 0; i < sizeof(sqls) / sizeof(sqls[0]) && rc != SQLITE_OK; i++)
		rc = sqlite3_prepare_v2(h, sqls[i], -1, &st, NULL);
	if (rc != SQLITE_OK) {
		fprintf(stderr, "npuwork: replay: %s: not an msprof db (%s)\n", db,
			sqlite3_errmsg(h));
		exit(1);
	}
	CHECK(aclInit(NULL));
	manifest_start();
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long db_dev = sqlite3_column_int64(st, 0),
			  db_stream = sqlite3_column_int64(st, 1);
		long long dur = sqlite3_column_int64(st, 2);
		const char *type = col(st, 3);
		aclnpuRawTask rt;
		aclrtStream s;
		int dev;

		long long conn = sqlite3_column_type(st, 17) == SQLITE_NULL ?
					 -1 :
					 sqlite3_column_int64(st, 17);
		const char *acl_name = col(st, 18);
		int raw;

		if (!type)
			type = "Other";
		/* tasks with no API of their own (HCCL small tasks, STARS_COMMON
		 * ...) hang off a scope named as the db's host call: one launch
		 * for each run of tasks with the same db connectionId */
		raw = !is_kernel(type) && !(!strcmp(type, "EVENT_RECORD") && nall < MAX_EVENTS) &&
		      !(!strcmp(type, "EVENT_WAIT") && nrec > 0) && strcmp(type, "MEMCPY_ASYNC");
		if (scope_conn >= 0 && (!raw || conn != scope_conn)) {
			CHECK(aclnpuScopeEnd());
			scope_conn = -1;
		}
		if (raw && acl_name && conn >= 0 && conn != scope_conn) {
			CHECK(aclnpuScopeBegin(acl_name, NULL));
			scope_conn = conn;
		}
		if (dur < 0)
			dur = 0;
		if ((unsigned long long)dur > 10000000000ULL)
			dur = 10000000000LL;
		s = stream_for(db_dev, db_stream, &dev);
		CHECK(aclrtSetDevice(dev));
		memset(&rt, 0, sizeof(rt));
		rt.size = sizeof(rt);
		rt.taskTypeName = type;
		rt.durationNs = (uint64_t)dur;
		if (is_kernel(type)) {
			char opname[64];
			aclnpuOpDesc d;
			long long bd = sqlite3_column_type(st, 4) == SQLITE_NULL ?
					       1 :
					       sqlite3_column_int64(st, 4);

			memset(&d, 0, sizeof(d));
			d.size = sizeof(d);
			snprintf(opname, sizeof(opname), "replay_%lld",
				 sqlite3_column_int64(st, 16));
			d.opName = col(st, 6) ? col(st, 6) : opname;
			d.opType = col(st, 7) ? col(st, 7) : type;
			d.taskKind = kind_of(col(st, 8), type);
			d.geTaskType = col(st, 8);
			d.taskTypeName = type;
			d.blockDim = bd < 1 ? 1 : bd > 65535 ? 65535 : (uint32_t)bd;
			d.mixBlockDim = (uint32_t)sqlite3_column_int64(st, 5);
			d.durationNs = (uint64_t)dur;
			d.inputFormats = col(st, 9);
			d.inputDataTypes = col(st, 10);
			d.inputShapes = col(st, 11);
			d.outputFormats = col(st, 12);
			d.outputDataTypes = col(st, 13);
			d.outputShapes = col(st, 14);
			d.attrInfo = col(st, 15);
			CHECK(aclnpuLaunchOp(&d, s));
		} else if (!strcmp(type, "EVENT_RECORD") && nall < MAX_EVENTS) {
			aclrtEvent e;

			CHECK(aclrtCreateEvent(&e));
			all_events[nall++] = e;
			CHECK(aclrtRecordEvent(e, s));
			recorded[nrec++] = e;
		} else if (!strcmp(type, "EVENT_WAIT") && nrec > 0) {
			CHECK(aclrtStreamWaitEvent(s, recorded[--nrec]));
		} else if (!strcmp(type, "Notify Wait") || !strcmp(type, "NOTIFY_WAIT")) {
			int peer = opt.ndev > 1 ? (dev + 1) % opt.ndev : dev;
			aclnpuRawTask rec;
			uint32_t id;

			if (!helper[peer]) {
				CHECK(aclrtSetDevice(peer));
				CHECK(aclrtCreateStream(&helper[peer]));
				CHECK(aclrtSetDevice(dev));
			}
			CHECK(aclnpuNotifyCreate(dev, &id));
			memset(&rec, 0, sizeof(rec));
			rec.size = sizeof(rec);
			rec.sqeType = 6; /* NOTIFY_RECORD, from the stand-in rank */
			rec.id = id;
			rec.targetDevice = (uint32_t)dev;
			rec.taskTypeName = "NOTIFY_RECORD";
			CHECK(aclnpuLaunchRawTask(&rec, helper[peer]));
			rt.sqeType = 7; /* NOTIFY_WAIT */
			rt.id = id;
			CHECK(aclnpuLaunchRawTask(&rt, s));
			/* the id goes back when the device is reset */
		} else {
			if (!strcmp(type, "SDMA") || !strcmp(type, "MEMCPY_ASYNC"))
				rt.sqeType = 11;
			else if (!strcmp(type, "Write Value"))
				rt.sqeType = 8;
			else {
				rt.sqeType = 3; /* place holder */
				placeholders += !strcmp(type, "EVENT_WAIT");
			}
			rt.apiName = !strcmp(type, "MEMCPY_ASYNC") ? "aclrtMemcpyAsync" : NULL;
			CHECK(aclnpuLaunchRawTask(&rt, s));
		}
		n++;
	}
	if (rc != SQLITE_DONE) {
		fprintf(stderr, "npuwork: replay: %s: %s\n", db, sqlite3_errmsg(h));
		exit(1);
	}
	if (scope_conn >= 0)
		CHECK(aclnpuScopeEnd());
	sqlite3_finalize(st);
	sqlite3_close(h);
	for (int i = 0; i < g_nstreams; i++)
		CHECK(aclrtSynchronizeStream(g_streams[i].s));
	for (int i = 0; i < 8; i++)
		if (helper[i])
			CHECK(aclrtSynchronizeStream(helper[i]));
	for (int i = 0; i < nall; i++)
		CHECK(aclrtDestroyEvent(all_events[i]));
	manifest_finish(opt.manifest);
	if (!opt.quiet) {
		printf("replay: %s: %llu db tasks on %d stream(s)", db, (unsigned long long)n,
		       g_nstreams);
		if (placeholders)
			printf(" (%llu EVENT_WAIT without a record as place holders)",
			       (unsigned long long)placeholders);
		printf("\nreplayed tasks by type on device 0:\n");
		manifest_print_counts(0);
	}
	for (int d = 0; d < opt.ndev; d++)
		aclrtResetDeviceForce(d);
	CHECK(aclFinalize());
	free(recorded);
	return manifest_total();
}
