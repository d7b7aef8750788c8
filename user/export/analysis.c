/*
 * analysis.c - torch_npu's analysis.db (issue 29), from the PyTorch
 * database the export has just written.
 *
 * torch_npu writes ASCEND_PROFILER_OUTPUT/analysis.db per rank: the
 * communication analysis that msprof's analyzer computes from the HCCL
 * small tasks (CommAnalyzerTime, CommAnalyzerBandwidth, CommAnalyzerMatrix,
 * each op placed in its step) and the step time breakdown (StepTraceTime).
 * This file reads the finished PyTorch DB with SQL (what torch_npu reads
 * too) and writes the four tables through user/db (schema in
 * include/npuprof/db_tables.h; temporary and rename). The rules are
 * docs/ascend-reference.md 2.4; the README says what is left out.
 */
#include "analysis.h"

#include <npuprof/db.h>
#include <npuprof/msprof_ids.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dbread.h"
#include "errmsg.h"

#define NS_PER_MS 1000000.0
#define B_PER_MB 1000000.0 /* msprof's COMMUNICATION_B_to_MB: 1000^2 */
#define MB_PER_GB 1000.0
#define MS_PER_S 1000.0
#define INVALID_RANK 4294967295LL
#define RDMA_NO_BARRIER_TASKS 3 /* send/receive ops */
#define RDMA_WITH_BARRIER_TASKS 5

/* One HCCL small task of an op, in time order. */
struct ctask {
	int64_t start, end, size, src, dst;
	int64_t plane;
	int master; /* isMaster == 1 */
	int transit_item; /* taskType Memcpy or Reduce_Inline */
	int notify_wait; /* taskType Notify_Wait */
	int payload; /* rdmaType RDMA_SEND_PAYLOAD */
	int has_src, has_dst;
	char transport[24], link[24];
};

/* msprof's bandwidth kinds, in its order (StrConstant.TRANSIT_TYPE). */
enum {
	BW_RDMA,
	BW_HCCS,
	BW_PCIE,
	BW_SDMA,
	BW_SIO,
	BW_N
};
static const char *const bw_name[BW_N] = { "RDMA", "HCCS", "PCIE", "SDMA", "SIO" };

struct pkt {
	double mb, dur_ms;
	uint64_t count;
};

struct bwinfo {
	double size_mb, time_ms, bw, large_ratio;
	struct pkt *dist;
	size_t ndist, capdist;
};

struct link {
	int64_t src, dst;
	const char *transport; /* NULL: not one of msprof's five */
	double size_mb, time_ms;
	uint64_t packets, large;
};

struct cop {
	char *name, *group; /* group: the communicator's hash id */
	char *raw_group; /* COMMUNICATION_OP.groupName */
	struct ctask *t;
	size_t n, cap;
	int64_t start_ns; /* first main-stream task */
	double elapse, transit, wait, sync, idle;
	struct bwinfo bw[BW_N];
	struct link *links;
	size_t nlinks, caplinks;
	int ok; /* has a main-stream task */
	long step; /* index into the step ranges; -1: none */
	const char *type; /* "p2p", "collective" or "" */
};

struct step_range {
	int64_t id, start, end, fwk_start;
	int has_id;
	char text[32]; /* "3" */
};

struct ctx {
	sqlite3 *db;
	const char *path;
	char *err;
	size_t errlen;
};

/* Room for element n of the array *p (capacity *cap, elements of size
 * bytes; first allocation: first elements). 0 or -ENOMEM. */
static int grow_(void **p, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t m;
	void *q;

	if (n < *cap)
		return 0;
	m = *cap ? 2 * *cap : first;
	q = realloc(*p, m * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = m;
	return 0;
}
#define GROW(p, cap, n, first) grow_((void **)&(p), &(cap), (n), sizeof(*(p)), (first))

static int fail(struct ctx *c, const char *what)
{
	npuprof_seterr(c->err, c->errlen, "%s: %s: %s", c->path, what, sqlite3_errmsg(c->db));
	return -EIO;
}

/* absent when it cannot be read: the queries that need it say why */
static int has_table(struct ctx *c, const char *name)
{
	return npuprof_db_has_table(c->db, name) > 0;
}

static int has_column(struct ctx *c, const char *table, const char *col)
{
	return npuprof_db_has_column(c->db, table, col) > 0;
}

static const char *col_text(sqlite3_stmt *s, int i)
{
	const unsigned char *v = sqlite3_column_text(s, i);

	return v ? (const char *)v : "";
}

/* Was the profile's level Level_none (npuprof.torch's META_DATA
 * npuprof.experimental_config, "_profiler_level")? */
static int level_none(struct ctx *c)
{
	sqlite3_stmt *s;
	int none = 0;

	if (!has_table(c, "META_DATA"))
		return 0;
	if (sqlite3_prepare_v2(
		    c->db, "SELECT value FROM META_DATA WHERE name='npuprof.experimental_config'",
		    -1, &s, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(s) == SQLITE_ROW) {
		const char *v = col_text(s, 0), *p = strstr(v, "\"_profiler_level\"");

		if (p) {
			p += strlen("\"_profiler_level\"");
			while (isspace((unsigned char)*p) || *p == ':')
				p++;
			none = !strncmp(p, "\"Level_none\"", 12);
		}
	}
	sqlite3_finalize(s);
	return none;
}

/* ---- the communication analysis (msprof's analyzer) -------------------- */

static int lower_contains(const char *s, const char *needle)
{
	size_t n = strlen(needle);

	for (; *s; s++)
		if (!strncasecmp(s, needle, n))
			return 1;
	return 0;
}

/* RDMA payload run at ev[idx]: msprof's consecutive RDMA_SEND_PAYLOAD
 * tasks closed by (jump - 1) more tasks; its time runs from the first
 * payload's start to the end of the closing task jump - 2 after the last
 * payload. *next is where the walk goes on (past the closing tasks, or
 * past the payloads of a run without them). Returns 0 for a run without
 * its closing tasks (msprof skips it). */
static int rdma_run(struct ctask *const *ev, size_t n, size_t idx, size_t jump, size_t *next,
		    double *ms, double *mb)
{
	size_t k = 0;
	double bytes = 0;

	while (idx + k < n && ev[idx + k]->payload)
		k++;
	if (idx + k + jump - 2 >= n) {
		*next = idx + k;
		return 0;
	}
	for (size_t i = idx; i < idx + k; i++)
		bytes += (double)ev[i]->size;
	*mb = bytes / B_PER_MB;
	*ms = (double)(ev[idx + k + jump - 2]->end - ev[idx]->start) / NS_PER_MS;
	*next = idx + jump + k - 1;
	return 1;
}

static int sdma_transit(const struct ctask *t)
{
	return t->transit_item && !strcmp(t->transport, "SDMA") && strcmp(t->link, "ON_CHIP");
}

static int bw_record(struct bwinfo *b, double mb, double ms)
{
	b->size_mb += mb;
	b->time_ms += ms;
	for (size_t i = 0; i < b->ndist; i++)
		if (b->dist[i].mb == mb) {
			b->dist[i].count++;
			b->dist[i].dur_ms += ms;
			return 0;
		}
	if (GROW(b->dist, b->capdist, b->ndist, 4))
		return -ENOMEM;
	b->dist[b->ndist++] = (struct pkt){ mb, ms, 1 };
	return 0;
}

/* msprof's large-packet thresholds in MB (NumberConstant.*_MESSAGE_SIZE_THRESHOLD). */
static double threshold(const char *kind)
{
	if (!kind)
		return 0;
	if (!strcmp(kind, "RDMA"))
		return 0.5;
	if (!strcmp(kind, "HCCS") || !strcmp(kind, "PCIE") || !strcmp(kind, "SIO"))
		return 32;
	return 0;
}

static double round4(double v)
{
	return round(v * 10000.0) / 10000.0;
}

static double gbps(double mb, double ms)
{
	return round4((mb / MB_PER_GB) / (ms / MS_PER_S));
}

static int link_add(struct cop *o, int64_t src, int64_t dst, const char *transport, double mb,
		    double ms, const char *kind)
{
	struct link *l = NULL;

	for (size_t i = 0; i < o->nlinks; i++)
		if (o->links[i].src == src && o->links[i].dst == dst) {
			l = &o->links[i];
			break;
		}
	if (!l) {
		if (GROW(o->links, o->caplinks, o->nlinks, 4))
			return -ENOMEM;
		l = &o->links[o->nlinks++];
		memset(l, 0, sizeof(*l));
		l->src = src;
		l->dst = dst;
	}
	l->transport = transport;
	l->size_mb += mb;
	l->time_ms += ms;
	l->packets++;
	if (mb > threshold(kind))
		l->large++;
	return 0;
}

/* The matrix's transport name of an SDMA copy (msprof: ON_CHIP shows as
 * LOCAL, HCCS_SW as HCCS, any other link type as itself, and only HCCS,
 * PCIE, RDMA, LOCAL and SIO survive its enum). */
static const char *matrix_transport(const char *link)
{
	if (!strcmp(link, "ON_CHIP"))
		return "LOCAL";
	if (!strcmp(link, "HCCS_SW") || !strcmp(link, "HCCS"))
		return "HCCS";
	if (!strcmp(link, "PCIE"))
		return "PCIE";
	if (!strcmp(link, "SIO"))
		return "SIO";
	return NULL;
}

/* Time, bandwidth and links of one op (msprof's CommunicationParser and
 * CommunicationMatrixParser). */
static int analyse_op(struct cop *o)
{
	struct ctask **ev = malloc((o->n ? o->n : 1) * sizeof(*ev));
	size_t jump = lower_contains(o->name, "send") || lower_contains(o->name, "receive") ?
			      RDMA_NO_BARRIER_TASKS :
			      RDMA_WITH_BARRIER_TASKS;
	int64_t plane = 0, lo = INT64_MAX, hi = INT64_MIN;
	int64_t *planes = malloc((o->n ? o->n : 1) * sizeof(*planes));
	size_t n = 0, np = 0, idx;
	int wait_flag = 1, r = 0;

	if (!ev || !planes) {
		free(ev);
		free(planes);
		return -ENOMEM;
	}
	/* the main stream: the plane of the first isMaster task */
	o->ok = 0;
	for (size_t i = 0; i < o->n; i++)
		if (o->t[i].master) {
			plane = o->t[i].plane;
			o->start_ns = o->t[i].start;
			o->ok = 1;
			break;
		}
	if (!o->ok)
		goto out;
	for (size_t i = 0; i < o->n; i++)
		if (o->t[i].plane == plane)
			ev[n++] = &o->t[i];
	for (idx = 0; idx < n;) {
		struct ctask *t = ev[idx];

		if (sdma_transit(t)) {
			wait_flag = 0;
			o->transit += (double)(t->end - t->start) / NS_PER_MS;
		}
		if (t->payload) {
			size_t next;
			double ms, mb;

			if (rdma_run(ev, n, idx, jump, &next, &ms, &mb)) {
				o->transit += ms;
				wait_flag = 0;
			}
			idx = next;
			continue;
		}
		if (t->notify_wait) {
			double w = (double)(t->end - t->start) / NS_PER_MS;

			if (wait_flag)
				o->sync += w;
			o->wait += w;
		}
		idx++;
	}
	for (size_t i = 0; i < n; i++) {
		lo = ev[i]->start < lo ? ev[i]->start : lo;
		hi = ev[i]->end > hi ? ev[i]->end : hi;
	}
	o->elapse = (double)(hi - lo) / NS_PER_MS;
	o->idle = o->elapse - o->transit - o->wait;

	/* bandwidth and links: every plane, each in time order */
	for (size_t i = 0; i < o->n; i++) {
		size_t k;

		for (k = 0; k < np && planes[k] != o->t[i].plane; k++)
			;
		if (k == np)
			planes[np++] = o->t[i].plane;
	}
	for (size_t p = 0; p < np && !r; p++) {
		n = 0;
		for (size_t i = 0; i < o->n; i++)
			if (o->t[i].plane == planes[p])
				ev[n++] = &o->t[i];
		/* CommunicationParser: SDMA copies by link type, RDMA runs */
		for (idx = 0; idx < n && !r;) {
			struct ctask *t = ev[idx];

			if (sdma_transit(t)) {
				int k = BW_SDMA;

				if (!strcmp(t->link, "HCCS") || !strcmp(t->link, "HCCS_SW"))
					k = BW_HCCS;
				else if (!strcmp(t->link, "PCIE"))
					k = BW_PCIE;
				else if (!strcmp(t->link, "SIO"))
					k = BW_SIO;
				r = bw_record(&o->bw[k], (double)t->size / B_PER_MB,
					      (double)(t->end - t->start) / NS_PER_MS);
			}
			if (t->payload) {
				size_t next;
				double ms, mb;

				if (rdma_run(ev, n, idx, jump, &next, &ms, &mb) &&
				    !strcmp(t->transport, "RDMA"))
					r = bw_record(&o->bw[BW_RDMA], mb, ms);
				idx = next;
				continue;
			}
			idx++;
		}
		/* CommunicationMatrixParser: links of valid ranks */
		for (idx = 0; idx < n && !r;) {
			struct ctask *t = ev[idx];
			int64_t dst;

			if (!t->has_src || t->src == INVALID_RANK || !t->has_dst) {
				idx++;
				continue;
			}
			dst = t->dst == INVALID_RANK ? t->src : t->dst;
			if (!strcmp(t->transport, "SDMA") && t->transit_item) {
				const char *tt = matrix_transport(t->link);
				const char *kind = !strcmp(t->link, "ON_CHIP") ? "LOCAL" :
						   !strcmp(t->link, "HCCS_SW") ? "HCCS" :
										 t->link;

				r = link_add(o, t->src, dst, tt, (double)t->size / B_PER_MB,
					     (double)(t->end - t->start) / NS_PER_MS, kind);
			}
			if (t->payload) {
				size_t next;
				double ms, mb;

				if (rdma_run(ev, n, idx, jump, &next, &ms, &mb))
					r = link_add(o, t->src, dst,
						     !strcmp(t->transport, "RDMA") ? "RDMA" : NULL,
						     mb, ms, t->transport);
				idx = next;
				continue;
			}
			idx++;
		}
	}
	/* totals: SDMA is every copy (HCCS, PCIE, SIO and the rest) */
	for (int k = 0; k < BW_N; k++) {
		struct bwinfo *b = &o->bw[k];

		if (k == BW_SDMA) {
			b->size_mb += o->bw[BW_HCCS].size_mb + o->bw[BW_PCIE].size_mb +
				      o->bw[BW_SIO].size_mb;
			b->time_ms += o->bw[BW_HCCS].time_ms + o->bw[BW_PCIE].time_ms +
				      o->bw[BW_SIO].time_ms;
			if (b->time_ms != 0)
				b->bw = gbps(b->size_mb, b->time_ms);
			continue;
		}
		if (b->time_ms != 0)
			b->bw = gbps(b->size_mb, b->time_ms);
		{
			uint64_t all = 0, large = 0;

			for (size_t i = 0; i < b->ndist; i++) {
				all += b->dist[i].count;
				if (b->dist[i].mb > threshold(bw_name[k]))
					large += b->dist[i].count;
			}
			if (all)
				b->large_ratio = round4((double)large / (double)all);
		}
	}
out:
	free(ev);
	free(planes);
	return r;
}

static void free_ops(struct cop *ops, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(ops[i].name);
		free(ops[i].group);
		free(ops[i].raw_group);
		free(ops[i].t);
		free(ops[i].links);
		for (int k = 0; k < BW_N; k++)
			free(ops[i].bw[k].dist);
	}
	free(ops);
}

/*
 * The communicator's hash id, the group_name of msprof's HCCL data and so of
 * analysis.db (msprof-analyze matches it against the double hash of
 * parallel_group_info's communicator names: cluster_analyse/common_func/
 * utils.py double_hash). Over the name's bytes (Python hashes its code
 * points: the same for ASCII names).
 */
static void group_hash(const char *name, char *buf, size_t len)
{
	uint32_t a = 0, b = 0;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		a = a * 29u + *p;
		b = b * 131u + *p;
	}
	snprintf(buf, len, "%" PRIu64, (uint64_t)a << 32 | b);
}

/* Every op (name@group, as msprof groups) with its small tasks in time order. */
static int load_ops(struct ctx *c, struct cop **out, size_t *nout)
{
	/* isMaster came with schema 1.1.1: every task of an older database
	 * counts as the main stream's */
	static const char sql_fmt[] =
		"SELECT so.value, sg.value, t.startNs, t.endNs, st.value, ct.planeId, %s, "
		"et.name, el.name, er.name, ct.size, ct.srcRank, ct.dstRank "
		"FROM COMMUNICATION_TASK_INFO ct JOIN TASK t ON t.globalTaskId = ct.globalTaskId "
		"JOIN COMMUNICATION_OP o ON o.opId = ct.opId "
		"JOIN STRING_IDS so ON so.id = o.opName JOIN STRING_IDS sg ON sg.id = o.groupName "
		"LEFT JOIN STRING_IDS st ON st.id = ct.taskType "
		"LEFT JOIN ENUM_HCCL_TRANSPORT_TYPE et ON et.id = ct.transportType "
		"LEFT JOIN ENUM_HCCL_LINK_TYPE el ON el.id = ct.linkType "
		"LEFT JOIN ENUM_HCCL_RDMA_TYPE er ON er.id = ct.rdmaType "
		"ORDER BY so.value, sg.value, t.startNs, t.globalTaskId";
	struct cop *ops = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *s;
	char sql[1024];
	int rc;

	*out = NULL;
	*nout = 0;
	snprintf(sql, sizeof(sql), sql_fmt,
		 has_column(c, "COMMUNICATION_TASK_INFO", "isMaster") ? "ct.isMaster" : "1");
	if (sqlite3_prepare_v2(c->db, sql, -1, &s, NULL) != SQLITE_OK)
		return fail(c, "reading the HCCL small tasks");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = col_text(s, 0), *group = col_text(s, 1);
		const char *type = col_text(s, 4);
		struct cop *o = n ? &ops[n - 1] : NULL;
		struct ctask *t;

		if (!o || strcmp(o->name, name) || strcmp(o->raw_group, group)) {
			if (GROW(ops, cap, n, 64))
				goto nomem;
			o = &ops[n++];
			memset(o, 0, sizeof(*o));
			o->name = strdup(name);
			{
				char h[32];

				group_hash(group, h, sizeof(h));
				o->group = strdup(h);
			}
			o->step = -1;
			o->raw_group = strdup(group);
			if (!o->name || !o->group || !o->raw_group)
				goto nomem;
		}
		if (GROW(o->t, o->cap, o->n, 16))
			goto nomem;
		t = &o->t[o->n++];
		memset(t, 0, sizeof(*t));
		t->start = sqlite3_column_int64(s, 2);
		t->end = sqlite3_column_int64(s, 3);
		t->transit_item = !strcmp(type, "Memcpy") || !strcmp(type, "Reduce_Inline");
		t->notify_wait = !strcmp(type, "Notify_Wait");
		t->plane = sqlite3_column_int64(s, 5);
		t->master = sqlite3_column_int64(s, 6) == 1;
		snprintf(t->transport, sizeof(t->transport), "%s", col_text(s, 7));
		snprintf(t->link, sizeof(t->link), "%s", col_text(s, 8));
		t->payload = !strcmp(col_text(s, 9), "RDMA_SEND_PAYLOAD");
		t->size = sqlite3_column_int64(s, 10);
		t->has_src = sqlite3_column_type(s, 11) != SQLITE_NULL;
		t->src = sqlite3_column_int64(s, 11);
		t->has_dst = sqlite3_column_type(s, 12) != SQLITE_NULL;
		t->dst = sqlite3_column_int64(s, 12);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		free_ops(ops, n);
		return fail(c, "reading the HCCL small tasks");
	}
	*out = ops;
	*nout = n;
	return 0;
nomem:
	sqlite3_finalize(s);
	free_ops(ops, n);
	npuprof_seterr(c->err, c->errlen, "out of memory");
	return -ENOMEM;
}

/* ---- steps (torch_npu's StepInfoDbParser) ------------------------------ */

/* min start and max end of the device tasks of the node-level APIs inside
 * [lo, hi] (all of them when all) */
static int node_task_span(struct ctx *c, int all, int64_t lo, int64_t hi, int64_t *min,
			  int64_t *max, int *found)
{
	char sql[512];
	sqlite3_stmt *s;
	int rc;

	snprintf(sql, sizeof(sql),
		 "SELECT min(t.startNs), max(t.endNs) FROM CANN_API a JOIN TASK t "
		 "ON t.connectionId = a.connectionId WHERE a.type = %d%s",
		 NPUPROF_API_NODE, all ? "" : " AND ?1 <= a.startNs AND a.endNs <= ?2");
	*found = 0;
	if (!has_table(c, "CANN_API") || !has_table(c, "TASK"))
		return 0;
	if (sqlite3_prepare_v2(c->db, sql, -1, &s, NULL) != SQLITE_OK)
		return fail(c, "reading the steps' device tasks");
	if (!all) {
		sqlite3_bind_int64(s, 1, lo);
		sqlite3_bind_int64(s, 2, hi);
	}
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
		*min = sqlite3_column_int64(s, 0);
		*max = sqlite3_column_int64(s, 1);
		*found = 1;
	}
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 :
						       fail(c, "reading the steps' device tasks");
}

/*
 * torch_npu's step ranges: per STEP_TIME row (ProfilerStep#<id>) from the
 * first device task of the node-level APIs inside the step to the later
 * of their last task's end and the step's end; without steps one range
 * with no id from the first such task to the end of time.
 */
static int load_steps(struct ctx *c, struct step_range **out, size_t *nout)
{
	struct step_range *v = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *s;
	int r = 0, rc;

	*out = NULL;
	*nout = 0;
	if (has_table(c, "STEP_TIME")) {
		if (sqlite3_prepare_v2(c->db,
				       "SELECT id, startNs, endNs FROM STEP_TIME ORDER BY startNs",
				       -1, &s, NULL) != SQLITE_OK)
			return fail(c, "reading STEP_TIME");
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			if (GROW(v, cap, n, 16)) {
				sqlite3_finalize(s);
				free(v);
				npuprof_seterr(c->err, c->errlen, "out of memory");
				return -ENOMEM;
			}
			memset(&v[n], 0, sizeof(v[n]));
			v[n].id = sqlite3_column_int64(s, 0);
			v[n].start = sqlite3_column_int64(s, 1);
			v[n].end = sqlite3_column_int64(s, 2);
			v[n].has_id = 1;
			snprintf(v[n].text, sizeof(v[n].text), "%" PRId64, v[n].id);
			n++;
		}
		sqlite3_finalize(s);
		if (rc != SQLITE_DONE) {
			free(v);
			return fail(c, "reading STEP_TIME");
		}
	}
	for (size_t i = 0; i < n && !r; i++) {
		int64_t lo, hi;
		int found;

		r = node_task_span(c, 0, v[i].start, v[i].end, &lo, &hi, &found);
		v[i].fwk_start = v[i].start;
		v[i].start = found ? lo : v[i].start;
		v[i].end = found && hi > v[i].end ? hi : v[i].end;
	}
	if (!r && !n) {
		int64_t lo = 0, hi;
		int found;

		v = calloc(1, sizeof(*v));
		if (!v) {
			npuprof_seterr(c->err, c->errlen, "out of memory");
			return -ENOMEM;
		}
		r = node_task_span(c, 1, 0, 0, &lo, &hi, &found);
		v[0].start = found ? lo : 0;
		v[0].end = INT64_MAX;
		n = 1;
	}
	if (r) {
		free(v);
		return r;
	}
	*out = v;
	*nout = n;
	return 0;
}

/* ---- writing --------------------------------------------------------- */

static int cmp_op_start(const void *a, const void *b)
{
	const struct cop *x = a, *y = b;

	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

static const char *op_kind(const char *name)
{
	if (!strncasecmp(name, "hcom_send", 9) || !strncasecmp(name, "hcom_receive", 12) ||
	    !strncasecmp(name, "hcom_batchsendrecv", 18))
		return "p2p";
	if (!strncasecmp(name, "total", 5))
		return "";
	return "collective";
}

/* torch_npu's communication type of "<op>@<group>": the leftmost match of
 * its pattern (alternatives tried in its order), else the op name up to
 * "__". */
static void comm_type(const char *op, const char *group, char *buf, size_t len)
{
	static const char *const pat[] = { "send",	   "reduce",   "invalid",   "broadcast",
					   "allreduce",	   "receive",  "allgather", "reducescatter",
					   "scatter",	   "alltoall", "alltoallv", "alltoallvc",
					   "batchsendrecv" };
	char s[1024];
	const char *u;

	snprintf(s, sizeof(s), "%s@%s", op, group);
	for (const char *p = s; *p; p++)
		for (size_t i = 0; i < sizeof(pat) / sizeof(pat[0]); i++)
			if (!strncasecmp(p, pat[i], strlen(pat[i]))) {
				snprintf(buf, len, "%s", pat[i]);
				return;
			}
	u = strstr(op, "__");
	snprintf(buf, len, "%.*s", u ? (int)(u - op) : (int)strlen(op), op);
}

struct mentry {
	const struct cop *op;
	const struct link *l;
	char ctype[32];
	size_t idx; /* op order: keeps the sort stable */
	double bw;
};

/* One group per (step, kind: p2p first, type, group, link), its entries by
 * bandwidth, highest first, then in op order. */
static int cmp_mentry(const void *a, const void *b)
{
	const struct mentry *x = a, *y = b;
	int c;

	if (x->op->step != y->op->step)
		return x->op->step < y->op->step ? -1 : 1;
	c = strcmp(y->op->type, x->op->type); /* "p2p" before "collective" */
	if (!c)
		c = strcmp(x->ctype, y->ctype);
	if (!c)
		c = strcmp(x->op->group, y->op->group);
	if (c)
		return c;
	if (x->l->src != y->l->src)
		return x->l->src < y->l->src ? -1 : 1;
	if (x->l->dst != y->l->dst)
		return x->l->dst < y->l->dst ? -1 : 1;
	if (x->bw != y->bw)
		return x->bw > y->bw ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int same_group(const struct mentry *x, const struct mentry *y)
{
	return x->op->step == y->op->step && !strcmp(x->op->type, y->op->type) &&
	       !strcmp(x->ctype, y->ctype) && !strcmp(x->op->group, y->op->group) &&
	       x->l->src == y->l->src && x->l->dst == y->l->dst;
}

static double link_bw(const struct link *l)
{
	return l->time_ms != 0 ? round4(l->size_mb / l->time_ms) : 0;
}

static int put_matrix(struct npuprof_db *w, const struct mentry *e, const char *tag, double mb,
		      double ms, double bw, const char *step, const char *op_name)
{
	char name[64], src[24], dst[24];
	struct npuprof_db_comm_analyzer_matrix m;

	snprintf(name, sizeof(name), "%s-%s", e->ctype, tag);
	snprintf(src, sizeof(src), "%" PRId64, e->l->src);
	snprintf(dst, sizeof(dst), "%" PRId64, e->l->dst);
	m = (struct npuprof_db_comm_analyzer_matrix){
		.hccl_op_name = name,
		.group_name = e->op->group,
		.src_rank = src,
		.dst_rank = dst,
		.transport_type = e->l->transport,
		.transit_size = mb,
		.transit_time = ms,
		.bandwidth = bw,
		.step = step,
		.type = e->op->type,
		.op_name = op_name,
	};
	return npuprof_db_add_comm_analyzer_matrix(w, &m);
}

static int put_one(struct npuprof_db *w, const struct mentry *e, const char *tag, const char *step)
{
	return put_matrix(w, e, tag, e->l->size_mb, e->l->time_ms, e->bw, step, e->op->name);
}

/*
 * torch_npu's matrix: per step and kind (p2p, collective), per
 * (communication type, group, link) the op-links sorted by bandwidth,
 * highest first: top1 (the highest), middle, bottom1 (the lowest), total
 * (sums; the transport of top1; bandwidth size / time), bottom2, bottom3.
 */
static int write_matrix(struct npuprof_db *w, const struct cop *ops, size_t nops,
			const struct step_range *steps, struct analysis_result *res)
{
	struct mentry *e;
	size_t ne = 0, total = 0;
	int r = 0;

	for (size_t i = 0; i < nops; i++)
		if (ops[i].ok && ops[i].step >= 0)
			total += ops[i].nlinks;
	e = calloc(total ? total : 1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (size_t i = 0; i < nops; i++) {
		if (!ops[i].ok || ops[i].step < 0 || !*ops[i].type)
			continue;
		for (size_t k = 0; k < ops[i].nlinks; k++) {
			e[ne].op = &ops[i];
			e[ne].l = &ops[i].links[k];
			e[ne].idx = ne;
			e[ne].bw = link_bw(e[ne].l);
			comm_type(ops[i].name, ops[i].group, e[ne].ctype, sizeof(e[ne].ctype));
			ne++;
		}
	}
	qsort(e, ne, sizeof(*e), cmp_mentry);
	for (size_t i = 0, j; i < ne && !r; i = j) {
		const struct mentry *g = &e[i];
		const struct step_range *st = &steps[g->op->step];
		double mb = 0, ms = 0;
		char step[40];
		size_t ng;

		for (j = i; j < ne && same_group(&e[j], g); j++) {
			mb += e[j].l->size_mb;
			ms += e[j].l->time_ms;
		}
		ng = j - i;
		snprintf(step, sizeof(step), "step%s", st->has_id ? st->text : "");
		r = put_one(w, &g[0], "top1", step);
		if (!r)
			r = put_one(w, &g[ng / 2], "middle", step);
		if (!r)
			r = put_one(w, &g[ng - 1], "bottom1", step);
		if (!r)
			r = put_matrix(w, &g[0], "total", mb, ms,
				       fabs(ms) < 1e-15 ? 0 : round4(mb / ms), step, "");
		if (!r && ng >= 2)
			r = put_one(w, &g[ng - 2], "bottom2", step);
		if (!r && ng >= 3)
			r = put_one(w, &g[ng - 3], "bottom3", step);
		res->matrix_rows += 4 + (ng >= 2) + (ng >= 3);
	}
	free(e);
	return r;
}

static int write_comm(struct ctx *c, struct npuprof_db *w, struct analysis_result *res,
		      const struct step_range *steps, size_t nsteps)
{
	struct cop *ops;
	size_t nops;
	int r;

	r = load_ops(c, &ops, &nops);
	if (r < 0)
		return r;
	for (size_t i = 0; i < nops && !r; i++)
		r = analyse_op(&ops[i]);
	if (r) {
		free_ops(ops, nops);
		npuprof_seterr(c->err, c->errlen, "out of memory");
		return r;
	}
	for (size_t i = 0; i < nops; i++)
		if (!ops[i].ok)
			ops[i].start_ns = INT64_MAX;
	if (nops) /* ops is NULL without any */
		qsort(ops, nops, sizeof(*ops), cmp_op_start);
	/* the op's step: the first range holding its start (both ends in) */
	for (size_t i = 0; i < nops; i++) {
		struct cop *o = &ops[i];

		if (!o->ok) {
			res->ops_no_master++;
			continue;
		}
		o->type = op_kind(o->name);
		for (size_t s = 0; s < nsteps; s++)
			if (steps[s].start <= o->start_ns && o->start_ns <= steps[s].end) {
				o->step = (long)s;
				break;
			}
		if (o->step < 0)
			res->ops_no_step++;
	}
	/* torch_npu's creation order */
	r = npuprof_db_create_table(w, NPUPROF_DB_CommAnalyzerBandwidth);
	for (size_t i = 0; i < nops && !r; i++) {
		const struct cop *o = &ops[i];
		char step[40];

		if (!o->ok || o->step < 0)
			continue;
		snprintf(step, sizeof(step), "step%s",
			 steps[o->step].has_id ? steps[o->step].text : "");
		for (int k = 0; k < BW_N && !r; k++) {
			const struct bwinfo *b = &o->bw[k];
			struct npuprof_db_comm_analyzer_bandwidth row = {
				.hccl_op_name = o->name,
				.group_name = o->group,
				.transport_type = bw_name[k],
				.transit_size = b->size_mb,
				.transit_time = b->time_ms,
				.bandwidth = b->bw,
				.large_packet_ratio = b->large_ratio,
				.step = step,
				.type = o->type,
			};

			if (b->size_mb + b->time_ms + b->bw + b->large_ratio == 0)
				continue;
			for (size_t d = 0; d < (b->ndist ? b->ndist : 1) && !r; d++) {
				row.package_size = b->ndist ? b->dist[d].mb : 0;
				row.count = b->ndist ? (double)b->dist[d].count : 0;
				row.total_duration = b->ndist ? b->dist[d].dur_ms : 0;
				r = npuprof_db_add_comm_analyzer_bandwidth(w, &row);
				res->bandwidth_rows++;
			}
		}
	}
	if (!r)
		r = npuprof_db_create_table(w, NPUPROF_DB_CommAnalyzerMatrix);
	if (!r)
		r = write_matrix(w, ops, nops, steps, res);
	if (!r)
		r = npuprof_db_create_table(w, NPUPROF_DB_CommAnalyzerTime);
	for (size_t i = 0; i < nops && !r; i++) {
		const struct cop *o = &ops[i];
		char step[40];
		struct npuprof_db_comm_analyzer_time row;

		if (!o->ok || o->step < 0)
			continue;
		snprintf(step, sizeof(step), "step%s",
			 steps[o->step].has_id ? steps[o->step].text : "");
		row = (struct npuprof_db_comm_analyzer_time){
			.hccl_op_name = o->name,
			.group_name = o->group,
			.start_timestamp = (double)o->start_ns / 1000.0,
			.elapse_time = o->elapse,
			.transit_time = o->transit,
			.wait_time = o->wait,
			.synchronization_time = o->sync,
			.idle_time = o->idle,
			.step = step,
			.type = o->type,
		};
		r = npuprof_db_add_comm_analyzer_time(w, &row);
		res->time_rows++;
	}
	free_ops(ops, nops);
	if (r)
		npuprof_seterr(c->err, c->errlen, "%s", npuprof_db_errmsg(w));
	return r;
}

/* ---- StepTraceTime (torch_npu's TraceStepTimeDbParser) ------------------ */

struct span {
	int64_t dev, start, end;
	int recv; /* an hcom_receive op: bubble */
};

static int load_spans(struct ctx *c, const char *sql, int comm, struct span **out, size_t *nout)
{
	struct span *v = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(c->db, sql, -1, &s, NULL) != SQLITE_OK)
		return fail(c, "reading the step's tasks");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (GROW(v, cap, n, 256)) {
			sqlite3_finalize(s);
			free(v);
			npuprof_seterr(c->err, c->errlen, "out of memory");
			return -ENOMEM;
		}
		v[n].dev = sqlite3_column_int64(s, 0);
		v[n].start = sqlite3_column_int64(s, 1);
		v[n].end = sqlite3_column_int64(s, 2);
		v[n].recv = comm && !strncmp(col_text(s, 3), "hcom_receive", 12);
		n++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		free(v);
		return fail(c, "reading the step's tasks");
	}
	*out = v;
	*nout = n;
	return 0;
}

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The first of the n spans sorted by start that starts at or after t. */
static size_t first_at(const struct span *v, size_t n, int64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Sort and merge overlapping or touching spans in place; returns the count. */
static size_t merge(struct span *v, size_t n)
{
	size_t m = 0;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_span);
	for (size_t i = 1; i < n; i++) {
		if (v[i].start <= v[m].end) {
			if (v[i].end > v[m].end)
				v[m].end = v[i].end;
		} else {
			v[++m] = v[i];
		}
	}
	return m + 1;
}

static int64_t total(const struct span *v, size_t n)
{
	int64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += v[i].end - v[i].start;
	return t;
}

static int64_t min_fwk_op_start(struct ctx *c, int *found)
{
	sqlite3_stmt *s;
	int64_t v = 0;

	*found = 0;
	if (!has_table(c, "PYTORCH_API"))
		return 0;
	if (sqlite3_prepare_v2(c->db, "SELECT min(startNs) FROM PYTORCH_API WHERE type = 50001", -1,
			       &s, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
		v = sqlite3_column_int64(s, 0);
		*found = 1;
	}
	sqlite3_finalize(s);
	return v;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int write_step_trace(struct ctx *c, struct npuprof_db *w, struct analysis_result *res,
			    const struct step_range *steps, size_t nsteps)
{
	static const char comp_sql[] =
		"SELECT t.deviceId, t.startNs, t.endNs FROM COMPUTE_TASK_INFO c JOIN TASK t "
		"ON c.globalTaskId = t.globalTaskId";
	static const char comm_sql[] =
		"SELECT t.deviceId, o.startNs, o.endNs, s.value FROM COMMUNICATION_OP o "
		"JOIN STRING_IDS s ON s.id = o.opName JOIN (SELECT connectionId, deviceId FROM TASK "
		"GROUP BY connectionId HAVING COUNT(DISTINCT deviceId) = 1) t "
		"ON o.connectionId = t.connectionId";
	struct span *comp = NULL, *comm = NULL, *a = NULL, *b = NULL, *u = NULL;
	size_t ncomp = 0, ncomm = 0, ndev = 0;
	int64_t *dev = NULL, fwk0;
	int r, has_fwk;

	r = npuprof_db_create_table(w, NPUPROF_DB_StepTraceTime);
	if (r) {
		npuprof_seterr(c->err, c->errlen, "%s", npuprof_db_errmsg(w));
		return r;
	}
	if (has_table(c, "TASK") && has_table(c, "COMPUTE_TASK_INFO"))
		r = load_spans(c, comp_sql, 0, &comp, &ncomp);
	if (!r && has_table(c, "TASK") && has_table(c, "COMMUNICATION_OP") &&
	    has_table(c, "STRING_IDS"))
		r = load_spans(c, comm_sql, 1, &comm, &ncomm);
	if (r)
		goto out;
	/* comp and comm are NULL without rows (qsort takes no NULL) */
	if (ncomp)
		qsort(comp, ncomp, sizeof(*comp), cmp_span);
	if (ncomm)
		qsort(comm, ncomm, sizeof(*comm), cmp_span);
	fwk0 = min_fwk_op_start(c, &has_fwk);
	dev = malloc((ncomp + ncomm + 1) * sizeof(*dev));
	a = malloc((ncomp + 1) * sizeof(*a));
	b = malloc((ncomm + 1) * sizeof(*b));
	u = malloc((ncomp + ncomm + 1) * sizeof(*u));
	if (!dev || !a || !b || !u) {
		r = -ENOMEM;
		npuprof_seterr(c->err, c->errlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < ncomp; i++)
		dev[ndev++] = comp[i].dev;
	for (size_t i = 0; i < ncomm; i++)
		dev[ndev++] = comm[i].dev;
	qsort(dev, ndev, sizeof(*dev), cmp_i64);
	for (size_t d = 0; d < ndev && !r; d++) {
		if (d && dev[d] == dev[d - 1])
			continue;
		for (size_t s = 0; s < nsteps && !r; s++) {
			const struct step_range *st = &steps[s];
			size_t na = 0, nb = 0, nu, ma, mb;
			int64_t bubble = 0, cno = 0, freet = 0, e2e = 0, first = 0, prep = 0;
			struct npuprof_db_step_trace_time row;

			/* a task or op of the step: its start in [start, end) */
			for (size_t i = first_at(comp, ncomp, st->start);
			     i < ncomp && comp[i].start < st->end; i++)
				if (comp[i].dev == dev[d])
					a[na++] = comp[i];
			for (size_t i = first_at(comm, ncomm, st->start);
			     i < ncomm && comm[i].start < st->end; i++)
				if (comm[i].dev == dev[d]) {
					b[nb++] = comm[i];
					if (comm[i].recv)
						bubble += comm[i].end - comm[i].start;
				}
			ma = merge(a, na);
			mb = merge(b, nb);
			/* communication not covered by computing */
			for (size_t i = 0, j = 0; i < mb; i++) {
				int64_t covered = 0;

				while (j < ma && a[j].end <= b[i].start)
					j++;
				for (size_t k = j; k < ma && a[k].start < b[i].end; k++) {
					int64_t lo = a[k].start > b[i].start ? a[k].start :
									       b[i].start;
					int64_t hi = a[k].end < b[i].end ? a[k].end : b[i].end;

					covered += hi > lo ? hi - lo : 0;
				}
				cno += b[i].end - b[i].start - covered;
			}
			/* free: the gaps between everything */
			memcpy(u, a, ma * sizeof(*u));
			memcpy(u + ma, b, mb * sizeof(*u));
			nu = merge(u, ma + mb);
			for (size_t i = 1; i < nu; i++)
				freet += u[i].start - u[i - 1].end;
			if (nu)
				e2e = u[nu - 1].end - u[0].start;
			/* torch_npu's first device task: computing's, or an
			 * earlier op's; none without computing */
			if (ma) {
				first = a[0].start;
				if (mb && b[0].start < first)
					first = b[0].start;
			}
			if (first) {
				if (st->has_id)
					prep = first - st->fwk_start;
				else
					prep = has_fwk ? first - fwk0 : 0;
			}
			row = (struct npuprof_db_step_trace_time){
				.deviceId = dev[d],
				.step = st->has_id ? st->text : NULL,
				.computing = (double)total(a, ma) / 1000.0,
				.communication_not_overlapped = (double)cno / 1000.0,
				.overlapped = (double)(total(b, mb) - cno) / 1000.0,
				.communication = (double)total(b, mb) / 1000.0,
				.free = (double)freet / 1000.0,
				.stage = (double)(e2e - bubble) / 1000.0,
				.bubble = (double)bubble / 1000.0,
				.communication_not_overlapped_and_exclude_receive =
					(double)(cno - bubble > 0 ? cno - bubble : 0) / 1000.0,
				.preparing = (double)prep / 1000.0,
			};
			r = npuprof_db_add_step_trace_time(w, &row);
			if (r)
				npuprof_seterr(c->err, c->errlen, "%s", npuprof_db_errmsg(w));
			res->step_rows++;
		}
	}
out:
	free(comp);
	free(comm);
	free(dev);
	free(a);
	free(b);
	free(u);
	return r;
}

static int64_t count_rows(struct ctx *c, const char *table)
{
	char sql[128];
	sqlite3_stmt *s;
	int64_t n = 0;

	if (!has_table(c, table))
		return 0;
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table);
	if (sqlite3_prepare_v2(c->db, sql, -1, &s, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

int analysis_write(const char *torch_db, const char *dir, struct analysis_result *res, FILE *warn,
		   char *err, size_t errlen)
{
	struct ctx c = { .path = torch_db, .err = err, .errlen = errlen };
	struct npuprof_db_options opt = {
		.variant = NPUPROF_DB_ANALYSIS,
		.flags = NPUPROF_DB_REPLACE,
		.file_name = "analysis.db",
	};
	struct step_range *steps = NULL;
	struct npuprof_db *w = NULL;
	size_t nsteps = 0;
	int r;

	memset(res, 0, sizeof(*res));
	if (sqlite3_open_v2(torch_db, &c.db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		npuprof_seterr(err, errlen, "%s: cannot open: %s", torch_db,
			       c.db ? sqlite3_errmsg(c.db) : "out of memory");
		sqlite3_close(c.db);
		return -EIO;
	}
	if (sqlite3_exec(c.db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) !=
	    SQLITE_OK) {
		r = fail(&c, "not a database");
		sqlite3_close(c.db);
		return r;
	}
	if (level_none(&c)) {
		sqlite3_close(c.db);
		return 0;
	}
	r = load_steps(&c, &steps, &nsteps);
	if (!r) {
		r = npuprof_db_open(&w, dir, &opt, err, errlen);
		if (r < 0)
			w = NULL;
	}
	if (!r && count_rows(&c, "COMMUNICATION_TASK_INFO") > 0)
		r = write_comm(&c, w, res, steps, nsteps);
	if (!r)
		r = write_step_trace(&c, w, res, steps, nsteps);
	if (!r) {
		r = npuprof_db_finish(w);
		if (r)
			npuprof_seterr(err, errlen, "%s", npuprof_db_errmsg(w));
		else
			snprintf(res->path, sizeof(res->path), "%s", npuprof_db_path(w));
	}
	if (!r && warn && (res->ops_no_master || res->ops_no_step))
		fprintf(warn,
			"npuprof export: warning: %s: %" PRIu64
			" communication ops without a main-stream task and %" PRIu64
			" outside every step left out of analysis.db\n",
			torch_db, res->ops_no_master, res->ops_no_step);
	npuprof_db_close(w);
	free(steps);
	sqlite3_close(c.db);
	return r < 0 ? r : 1;
}
