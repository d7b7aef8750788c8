/*
 * fwk.c - the framework tables of the PyTorch database (fwk.h).
 */
#include "fwk.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "jsontop.h"
#include "npuprof/msprof_ids.h"

#define FWK_LINK_BASE (5LL << 28) /* torch_npu's START_CONNECTION_ID_FWK_API */
#define STEP_PREFIX "ProfilerStep#"
#define MAX_BAD_SHOWN 10

struct fctx {
	struct npuprof_db *w;
	const struct npuprof_session *s;
	const struct hostdata *hd;
	const char *dir;
	FILE *warn;
	struct fwk_result *res;
	int err;
	struct u64map fstr, mstr; /* host string id -> STRING_IDS id */
	npuprof_db_str fwk_na, mem_na;
};

/* ---- small helpers ------------------------------------------------------ */

static void check(struct fctx *x, int r)
{
	if (r < 0 && !x->err)
		x->err = r;
}

static npuprof_db_str space_str(struct fctx *x, struct u64map *cache, enum npuprof_db_space sp,
				uint64_t id, npuprof_db_str na)
{
	const char *s;
	uint64_t v;
	npuprof_db_str r;

	if (u64map_get(cache, id, &v))
		return (npuprof_db_str)v;
	s = hostdata_str(x->hd, id);
	if (!s || !*s)
		return na;
	r = npuprof_db_intern_space(x->w, sp, s, strlen(s));
	if (r < 0) {
		check(x, (int)r);
		return na;
	}
	if (u64map_put(cache, id, (uint64_t)r) < 0)
		check(x, -ENOMEM);
	return r;
}

/* A framework string; NO_STRING: NULL; unknown id: N/A. */
static npuprof_db_str fstr(struct fctx *x, uint64_t id)
{
	if (id == NPUPROF_HOSTFMT_NO_STRING)
		return NPUPROF_DB_NULL;
	return space_str(x, &x->fstr, NPUPROF_DB_SPACE_FWK, id, x->fwk_na);
}

static npuprof_db_str mstr(struct fctx *x, uint64_t id)
{
	if (id == NPUPROF_HOSTFMT_NO_STRING)
		return x->mem_na;
	return space_str(x, &x->mstr, NPUPROF_DB_SPACE_MEMORY, id, x->mem_na);
}

static void bad_record(struct fctx *x, uint32_t pid, const char *kind, uint32_t tid, uint64_t t,
		       const char *why)
{
	if (x->res->bad++ < MAX_BAD_SHOWN)
		fprintf(x->warn,
			"npuprof export: warning: %s/host/data/" NPUPROF_HOSTFMT_FILE_PREFIX
			"%u" NPUPROF_HOSTFMT_FILE_SUFFIX
			": framework %s record (thread %u, time %" PRIu64 "): %s; skipped\n",
			x->dir, pid, kind, tid, t, why);
}

/* The step number of a ProfilerStep#<n> name, or -1. */
static int64_t step_id(const char *name)
{
	int64_t v = 0;
	size_t n = strlen(STEP_PREFIX);

	if (!name || strncmp(name, STEP_PREFIX, n) || !name[n])
		return -1;
	for (const char *p = name + n; *p; p++) {
		if (*p < '0' || *p > '9' || v > (INT64_MAX - (*p - '0')) / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	return v;
}

/* Why a framework op cannot be a row; NULL if it can. */
static const char *op_problem(const struct npuprof_session *s, const struct hostdata_fwk_op *o)
{
	int64_t a, b;

	if (o->r.type < NPUPROF_EXT_FWK_API_OP || o->r.type > NPUPROF_EXT_FWK_API_MSTX)
		return "unknown type";
	if (o->r.end_ns < o->r.start_ns)
		return "ends before it starts";
	if (!npuprof_session_unix_ns_fits(s, o->r.start_ns, &a) ||
	    !npuprof_session_unix_ns_fits(s, o->r.end_ns, &b))
		return "time out of range";
	if (o->r.seq < -1)
		return "sequence number below -1";
	if (o->r.name_id == NPUPROF_HOSTFMT_NO_STRING)
		return "no name";
	return NULL;
}

static const char *mem_problem(const struct npuprof_session *s, const struct hostdata_fwk_mem *m)
{
	int64_t t;

	if (!npuprof_session_unix_ns_fits(s, m->r.time_ns, &t))
		return "time out of range";
	if (m->r.size == 0 || m->r.size == INT64_MIN)
		return "size 0 or out of range";
	if (m->r.total_allocated > (uint64_t)INT64_MAX ||
	    m->r.total_reserved > (uint64_t)INT64_MAX || m->r.total_active > (uint64_t)INT64_MAX ||
	    m->r.stream > (uint64_t)INT64_MAX)
		return "a total or the stream does not fit a database integer";
	return NULL;
}

static const char *gc_problem(const struct npuprof_session *s, const struct hostdata_fwk_gc *g)
{
	int64_t a, b;

	if (g->r.end_ns < g->r.start_ns)
		return "ends before it starts";
	if (!npuprof_session_unix_ns_fits(s, g->r.start_ns, &a) ||
	    !npuprof_session_unix_ns_fits(s, g->r.end_ns, &b))
		return "time out of range";
	if (g->r.generation > 2)
		return "generation above 2";
	return NULL;
}

int fwk_has_steps(const struct npuprof_session *s, const struct hostdata *hd)
{
	for (size_t i = 0; i < hd->nfop; i++)
		if (hd->fop[i].r.type == NPUPROF_EXT_FWK_API_OP && !op_problem(s, &hd->fop[i]) &&
		    step_id(hostdata_str(hd, hd->fop[i].r.name_id)) >= 0)
			return 1;
	return 0;
}

/* ---- sorting --------------------------------------------------------------- */

static const struct hostdata *g_hd; /* for the qsort comparators */

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* PYTORCH_API order: start, process, thread, outer first, file order. */
static int cmp_op_time(const void *pa, const void *pb)
{
	uint32_t i = *(const uint32_t *)pa, j = *(const uint32_t *)pb;
	const struct hostdata_fwk_op *a = &g_hd->fop[i], *b = &g_hd->fop[j];
	int c;

	if ((c = cmp_u64(a->r.start_ns, b->r.start_ns)) || (c = cmp_u64(a->pid, b->pid)) ||
	    (c = cmp_u64(a->r.tid, b->r.tid)) || (c = cmp_u64(b->r.end_ns, a->r.end_ns)))
		return c;
	return cmp_u64(i, j);
}

/* Per thread: process, thread, start, outer first, file order. */
static int cmp_op_thread(const void *pa, const void *pb)
{
	uint32_t i = *(const uint32_t *)pa, j = *(const uint32_t *)pb;
	const struct hostdata_fwk_op *a = &g_hd->fop[i], *b = &g_hd->fop[j];
	int c;

	if ((c = cmp_u64(a->pid, b->pid)) || (c = cmp_u64(a->r.tid, b->r.tid)) ||
	    (c = cmp_u64(a->r.start_ns, b->r.start_ns)) || (c = cmp_u64(b->r.end_ns, a->r.end_ns)))
		return c;
	return cmp_u64(i, j);
}

/* A time range on a thread to attribute to the innermost op around it. */
struct query {
	uint32_t pid, tid;
	uint64_t start, end;
	uint64_t val; /* the caller's */
	int64_t op; /* result: index into hd->fop, -1 none */
};

static int cmp_query(const void *pa, const void *pb)
{
	const struct query *a = pa, *b = pb;
	int c;

	if ((c = cmp_u64(a->pid, b->pid)) || (c = cmp_u64(a->tid, b->tid)) ||
	    (c = cmp_u64(a->start, b->start)) || (c = cmp_u64(b->end, a->end)))
		return c;
	return cmp_u64(a->val, b->val);
}

static int thread_cmp(uint32_t p1, uint32_t t1, uint32_t p2, uint32_t t2)
{
	int c = cmp_u64(p1, p2);

	return c ? c : cmp_u64(t1, t2);
}

/*
 * For each query (sorted by cmp_query), the innermost op among the thread
 * ordered ops tord (cmp_op_thread order; only those whose type is in mask)
 * that contains [start, end]. One sweep: a stack of the ops open at the
 * query's start, innermost on top.
 */
static int innermost(const struct hostdata *hd, const uint32_t *tord, size_t ntord, unsigned mask,
		     struct query *q, size_t nq)
{
	uint32_t *stack = malloc((ntord + 1) * sizeof(*stack));
	size_t top = 0, k = 0;
	uint32_t cur_pid = 0, cur_tid = 0;
	int have = 0;

	if (!stack)
		return -ENOMEM;
	for (size_t i = 0; i < nq; i++) {
		struct query *a = &q[i];

		if (!have || thread_cmp(a->pid, a->tid, cur_pid, cur_tid)) {
			top = 0;
			cur_pid = a->pid;
			cur_tid = a->tid;
			have = 1;
		}
		for (; k < ntord; k++) {
			const struct hostdata_fwk_op *o = &hd->fop[tord[k]];
			int c = thread_cmp(o->pid, o->r.tid, a->pid, a->tid);

			if (c > 0 || (c == 0 && o->r.start_ns > a->start))
				break;
			if (c < 0 || !(mask & (1u << (o->r.type - NPUPROF_EXT_FWK_API_OP))))
				continue;
			while (top && hd->fop[stack[top - 1]].r.end_ns < o->r.start_ns)
				top--;
			stack[top++] = tord[k];
		}
		while (top && hd->fop[stack[top - 1]].r.end_ns < a->start)
			top--;
		a->op = -1;
		for (size_t j = top; j > 0; j--)
			if (hd->fop[stack[j - 1]].r.end_ns >= a->end) {
				a->op = stack[j - 1];
				break;
			}
	}
	free(stack);
	return 0;
}

/* ---- links ----------------------------------------------------------------- */

struct link {
	uint32_t pos; /* the op's PYTORCH_API row */
	uint32_t kind; /* 0 CANN, 1 fwd/bwd */
	int64_t id; /* CONNECTION_IDS.connectionId */
};

static int cmp_link(const void *pa, const void *pb)
{
	const struct link *a = pa, *b = pb;
	int c;

	if ((c = cmp_u64(a->pos, b->pos)) || (c = cmp_u64(a->kind, b->kind)))
		return c;
	return (a->id > b->id) - (a->id < b->id);
}

struct links {
	struct link *v;
	size_t n, cap;
};

static int add_link(struct links *l, uint32_t pos, uint32_t kind, int64_t id)
{
	if (l->n == l->cap) {
		size_t nc = l->cap ? 2 * l->cap : 256;
		struct link *p = realloc(l->v, nc * sizeof(*p));

		if (!p)
			return -ENOMEM;
		l->v = p;
		l->cap = nc;
	}
	l->v[l->n++] = (struct link){ pos, kind, id };
	return 0;
}

/* Does an acl-level API (index i of hd->api) contain a node-level one? */
static int has_node_inside(const struct hostdata *hd, size_t i)
{
	const struct hostdata_api *a = &hd->api[i];

	for (size_t j = i + 1; j < hd->napi; j++) {
		const struct hostdata_api *b = &hd->api[j];

		if (b->pid != a->pid || b->r.tid != a->r.tid || b->r.start_ns > a->r.end_ns)
			break;
		if (b->r.level == NPUPROF_API_NODE && b->r.end_ns <= a->r.end_ns)
			return 1;
	}
	return 0;
}

/* CANN links: the task-owning APIs to the innermost op or queue range. */
static int cann_links(struct fctx *x, const uint32_t *tord, size_t ntord, const uint32_t *pos,
		      struct links *l)
{
	const struct hostdata *hd = x->hd;
	struct query *q = malloc((hd->napi + 1) * sizeof(*q));
	size_t nq = 0;
	int r;

	if (!q)
		return -ENOMEM;
	for (size_t i = 0; i < hd->napi; i++) {
		const struct hostdata_api *a = &hd->api[i];

		if (a->r.level != NPUPROF_API_NODE &&
		    (a->r.level != NPUPROF_API_ACL || has_node_inside(hd, i)))
			continue;
		if (a->r.connection_id > (uint64_t)INT64_MAX)
			continue;
		q[nq++] = (struct query){ a->pid,      a->r.tid,	   a->r.start_ns,
					  a->r.end_ns, a->r.connection_id, -1 };
	}
	if (nq > 1)
		qsort(q, nq, sizeof(*q), cmp_query);
	r = innermost(hd, tord, ntord,
		      1u << (NPUPROF_EXT_FWK_API_OP - NPUPROF_EXT_FWK_API_OP) |
			      1u << (NPUPROF_EXT_FWK_API_QUEUE - NPUPROF_EXT_FWK_API_OP),
		      q, nq);
	for (size_t i = 0; !r && i < nq; i++)
		if (q[i].op >= 0)
			r = add_link(l, pos[q[i].op], 0, (int64_t)q[i].val);
	free(q);
	return r;
}

/* fwd/bwd: (thread, sequence number) of a forward op and of its backward
 * ops (their forward thread). */
struct fb {
	int64_t gt; /* the forward thread's globalTid */
	int64_t seq;
	uint32_t bwd; /* 0 forward, 1 backward */
	uint64_t start;
	uint32_t idx;
};

static int cmp_fb(const void *pa, const void *pb)
{
	const struct fb *a = pa, *b = pb;
	int c;

	if ((c = (a->gt > b->gt) - (a->gt < b->gt)) ||
	    (c = (a->seq > b->seq) - (a->seq < b->seq)) || (c = cmp_u64(a->bwd, b->bwd)) ||
	    (c = cmp_u64(a->start, b->start)))
		return c;
	return cmp_u64(a->idx, b->idx);
}

static int fwd_bwd_links(struct fctx *x, const uint32_t *ord, size_t nord, const uint32_t *pos,
			 struct links *l)
{
	const struct hostdata *hd = x->hd;
	struct fb *v = malloc((nord + 1) * sizeof(*v));
	size_t n = 0;
	int64_t k = 0;
	int r = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < nord; i++) {
		const struct hostdata_fwk_op *o = &hd->fop[ord[i]];

		if (o->r.type != NPUPROF_EXT_FWK_API_OP || o->r.seq < 0)
			continue;
		v[n++] = (struct fb){ npuprof_global_tid(o->pid,
							 o->r.fwd_tid ? o->r.fwd_tid : o->r.tid),
				      o->r.seq, o->r.fwd_tid != 0, o->r.start_ns, ord[i] };
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_fb);
	for (size_t i = 0; i < n && !r;) {
		size_t j = i + 1;

		while (j < n && v[j].gt == v[i].gt && v[j].seq == v[i].seq)
			j++;
		/* the earliest forward op and every backward op of the key */
		if (!v[i].bwd && v[j - 1].bwd) {
			int64_t id = FWK_LINK_BASE + k++;

			r = add_link(l, pos[v[i].idx], 1, id);
			for (size_t m = i + 1; m < j && !r; m++)
				if (v[m].bwd)
					r = add_link(l, pos[v[m].idx], 1, id);
		}
		i = j;
	}
	free(v);
	return r;
}

/* ---- the tables ------------------------------------------------------------ */

/* The stack of an op, if it has a frame (a non-empty entry); else NULL. */
static const char *op_stack(const struct hostdata *hd, const struct hostdata_fwk_op *o)
{
	const char *s = o->r.stack_id == NPUPROF_HOSTFMT_NO_STRING ?
				NULL :
				hostdata_str(hd, o->r.stack_id);
	size_t sep = strlen(NPUPROF_EXT_FWK_SEP);

	for (const char *p = s; p && *p;) {
		const char *e = strstr(p, NPUPROF_EXT_FWK_SEP);

		if (e != p)
			return s;
		p = e + sep;
	}
	return NULL;
}

static void write_callchain(struct fctx *x, int64_t id, const char *stack)
{
	const char *p = stack;
	size_t sep = strlen(NPUPROF_EXT_FWK_SEP);
	int64_t depth = 0;

	while (*p && !x->err) {
		const char *e = strstr(p, NPUPROF_EXT_FWK_SEP);
		size_t len = e ? (size_t)(e - p) : strlen(p);

		if (len) {
			struct npuprof_db_pytorch_callchains row = { id, 0, depth++ };
			npuprof_db_str sid = npuprof_db_intern_space(x->w, NPUPROF_DB_SPACE_FWK, p,
								     len);

			if (sid < 0) {
				check(x, (int)sid);
				return;
			}
			row.stack = sid;
			check(x, npuprof_db_add_pytorch_callchains(x->w, &row));
			x->res->callchains++;
		}
		if (!e)
			break;
		p = e + sep;
	}
}

static int write_ops(struct fctx *x, const uint32_t *ord, size_t nord, const uint32_t *tord,
		     size_t ntord)
{
	const struct hostdata *hd = x->hd;
	uint32_t *pos = malloc((hd->nfop + 1) * sizeof(*pos));
	int64_t *conn = malloc((nord + 1) * sizeof(*conn));
	struct links l = { NULL, 0, 0 };
	int64_t next_id = 0, next_chain = 0;
	int r;

	if (!pos || !conn) {
		free(pos);
		free(conn);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nord; i++)
		pos[ord[i]] = (uint32_t)i;
	r = cann_links(x, tord, ntord, pos, &l);
	if (!r)
		r = fwd_bwd_links(x, ord, nord, pos, &l);
	if (r) {
		free(l.v);
		free(pos);
		free(conn);
		return r;
	}
	if (l.n > 1)
		qsort(l.v, l.n, sizeof(*l.v), cmp_link);
	for (size_t i = 0; i < nord; i++)
		conn[i] = NPUPROF_DB_NULL;
	for (size_t i = 0; i < l.n; i++)
		if (i == 0 || l.v[i].pos != l.v[i - 1].pos)
			conn[l.v[i].pos] = next_id++;

	for (size_t i = 0; i < nord && !x->err; i++) {
		const struct hostdata_fwk_op *o = &hd->fop[ord[i]];
		int op = o->r.type == NPUPROF_EXT_FWK_API_OP;
		const char *stack = op_stack(hd, o);
		struct npuprof_db_pytorch_api row;

		memset(&row, 0, sizeof(row));
		npuprof_session_unix_ns_fits(x->s, o->r.start_ns, &row.startNs);
		npuprof_session_unix_ns_fits(x->s, o->r.end_ns, &row.endNs);
		row.globalTid = npuprof_global_tid(o->pid, o->r.tid);
		row.connectionId = conn[i];
		row.name = fstr(x, o->r.name_id);
		if (row.name == NPUPROF_DB_NULL)
			row.name = x->fwk_na;
		row.sequenceNumber = op ? o->r.seq : NPUPROF_DB_NULL;
		row.fwdThreadId = op ? (int64_t)o->r.fwd_tid : NPUPROF_DB_NULL;
		row.inputDtypes = fstr(x, o->r.dtypes_id);
		row.inputShapes = fstr(x, o->r.shapes_id);
		row.callchainId = stack ? next_chain++ : NPUPROF_DB_NULL;
		row.type = o->r.type;
		check(x, npuprof_db_add_pytorch_api(x->w, &row));
		x->res->ops++;
	}
	for (size_t i = 0; i < l.n && !x->err; i++) {
		struct npuprof_db_connection_ids row = { conn[l.v[i].pos], l.v[i].id };

		check(x, npuprof_db_add_connection_ids(x->w, &row));
		x->res->connections++;
	}
	next_chain = 0;
	for (size_t i = 0; i < nord && !x->err; i++) {
		const struct hostdata_fwk_op *o = &hd->fop[ord[i]];
		const char *stack = op_stack(hd, o);

		if (stack)
			write_callchain(x, next_chain++, stack);
	}
	free(l.v);
	free(pos);
	free(conn);
	return x->err;
}

static void write_steps(struct fctx *x, const uint32_t *ord, size_t nord)
{
	struct u64map seen;

	u64map_init(&seen);
	for (size_t i = 0; i < nord && !x->err; i++) {
		const struct hostdata_fwk_op *o = &x->hd->fop[ord[i]];
		int64_t id;
		struct npuprof_db_step_time row;

		if (o->r.type != NPUPROF_EXT_FWK_API_OP)
			continue;
		id = step_id(hostdata_str(x->hd, o->r.name_id));
		if (id < 0 || u64map_get(&seen, (uint64_t)id, NULL))
			continue;
		if (u64map_put(&seen, (uint64_t)id, 1) < 0) {
			check(x, -ENOMEM);
			break;
		}
		row.id = id;
		npuprof_session_unix_ns_fits(x->s, o->r.start_ns, &row.startNs);
		npuprof_session_unix_ns_fits(x->s, o->r.end_ns, &row.endNs);
		check(x, npuprof_db_add_step_time(x->w, &row));
		x->res->steps++;
	}
	u64map_free(&seen);
}

/* memory records in time order (file order at equal times) */
static int cmp_mem_time(const void *pa, const void *pb)
{
	uint32_t i = *(const uint32_t *)pa, j = *(const uint32_t *)pb;
	int c = cmp_u64(g_hd->fmem[i].r.time_ns, g_hd->fmem[j].r.time_ns);

	return c ? c : cmp_u64(i, j);
}

/* by block: process, device, address, then time */
static int cmp_mem_block(const void *pa, const void *pb)
{
	uint32_t i = *(const uint32_t *)pa, j = *(const uint32_t *)pb;
	const struct hostdata_fwk_mem *a = &g_hd->fmem[i], *b = &g_hd->fmem[j];
	int c;

	if ((c = cmp_u64(a->pid, b->pid)) || (c = cmp_u64(a->r.device_id, b->r.device_id)) ||
	    (c = cmp_u64(a->r.ptr, b->r.ptr)) || (c = cmp_u64(a->r.time_ns, b->r.time_ns)))
		return c;
	return cmp_u64(i, j);
}

static void write_memory(struct fctx *x, const uint32_t *tord, size_t ntord)
{
	const struct hostdata *hd = x->hd;
	uint32_t *m = malloc((hd->nfmem + 1) * sizeof(*m));
	uint32_t *blk = malloc((hd->nfmem + 1) * sizeof(*blk));
	int64_t *rel = malloc((hd->nfmem + 1) * sizeof(*rel)); /* alloc -> its release */
	struct query *q = malloc((hd->nfmem + 1) * sizeof(*q));
	size_t n = 0, nq = 0;

	if (!m || !blk || !rel || !q) {
		check(x, -ENOMEM);
		goto out;
	}
	for (size_t i = 0; i < hd->nfmem; i++) {
		const char *why = mem_problem(x->s, &hd->fmem[i]);

		if (why) {
			bad_record(x, hd->fmem[i].pid, "memory", hd->fmem[i].r.tid,
				   hd->fmem[i].r.time_ns, why);
			continue;
		}
		m[n] = blk[n] = (uint32_t)i;
		n++;
		rel[i] = -1;
	}
	g_hd = hd;
	if (n > 1) {
		qsort(m, n, sizeof(*m), cmp_mem_time);
		qsort(blk, n, sizeof(*blk), cmp_mem_block);
	}
	for (size_t i = 0; i < n && !x->err; i++) {
		const struct hostdata_fwk_mem *e = &hd->fmem[m[i]];
		struct npuprof_db_memory_record row = {
			.component = mstr(x, e->r.component_id),
			.totalAllocated = (int64_t)e->r.total_allocated,
			.totalReserved = (int64_t)e->r.total_reserved,
			.totalActive = (int64_t)e->r.total_active,
			.streamPtr = (int64_t)e->r.stream,
			.deviceId = e->r.device_id,
		};

		npuprof_session_unix_ns_fits(x->s, e->r.time_ns, &row.timestamp);
		check(x, npuprof_db_add_memory_record(x->w, &row));
		x->res->mem++;
	}
	/* pairs: an allocation and the next release of its block */
	for (size_t i = 0; i < n; i++) {
		const struct hostdata_fwk_mem *e = &hd->fmem[blk[i]];

		if (e->r.size > 0 && i + 1 < n) {
			const struct hostdata_fwk_mem *f = &hd->fmem[blk[i + 1]];

			if (f->pid == e->pid && f->r.device_id == e->r.device_id &&
			    f->r.ptr == e->r.ptr && f->r.size < 0)
				rel[blk[i]] = blk[i + 1];
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct hostdata_fwk_mem *e = &hd->fmem[m[i]];

		if (e->r.size > 0)
			q[nq++] = (struct query){ e->pid,	e->r.tid, e->r.time_ns,
						  e->r.time_ns, m[i],	  -1 };
	}
	if (nq > 1)
		qsort(q, nq, sizeof(*q), cmp_query);
	if (innermost(hd, tord, ntord, 1u << (NPUPROF_EXT_FWK_API_OP - NPUPROF_EXT_FWK_API_OP), q,
		      nq) < 0) {
		check(x, -ENOMEM);
		goto out;
	}
	/* the op name of each allocation (rel[] is free for it now: keep it in
	 * the query's val order) */
	{
		int64_t *opof = malloc((hd->nfmem + 1) * sizeof(*opof));

		if (!opof) {
			check(x, -ENOMEM);
			goto out;
		}
		for (size_t i = 0; i < nq; i++)
			opof[q[i].val] = q[i].op;
		for (size_t i = 0; i < n && !x->err; i++) {
			const struct hostdata_fwk_mem *e = &hd->fmem[m[i]];
			const struct hostdata_fwk_mem *f = rel[m[i]] >= 0 ? &hd->fmem[rel[m[i]]] :
									    NULL;
			struct npuprof_db_op_memory row;

			if (e->r.size <= 0)
				continue;
			memset(&row, 0, sizeof(row));
			row.name = opof[m[i]] >= 0 ? mstr(x, hd->fop[opof[m[i]]].r.name_id) :
						     x->mem_na;
			row.size = e->r.size;
			npuprof_session_unix_ns_fits(x->s, e->r.time_ns, &row.allocationTime);
			row.allocationTotalAllocated = (int64_t)e->r.total_allocated;
			row.allocationTotalReserved = (int64_t)e->r.total_reserved;
			row.allocationTotalActive = (int64_t)e->r.total_active;
			if (f) {
				npuprof_session_unix_ns_fits(x->s, f->r.time_ns, &row.releaseTime);
				row.activeReleaseTime = row.releaseTime;
				row.duration = row.releaseTime - row.allocationTime;
				row.activeDuration = row.duration;
				row.releaseTotalAllocated = (int64_t)f->r.total_allocated;
				row.releaseTotalReserved = (int64_t)f->r.total_reserved;
				row.releaseTotalActive = (int64_t)f->r.total_active;
			} else {
				row.releaseTime = row.activeReleaseTime = NPUPROF_DB_NULL;
				row.duration = row.activeDuration = NPUPROF_DB_NULL;
				row.releaseTotalAllocated = row.releaseTotalReserved =
					row.releaseTotalActive = NPUPROF_DB_NULL;
			}
			row.streamPtr = (int64_t)e->r.stream;
			row.deviceId = e->r.device_id;
			check(x, npuprof_db_add_op_memory(x->w, &row));
			x->res->op_mem++;
		}
		free(opof);
	}
out:
	free(m);
	free(blk);
	free(rel);
	free(q);
}

static int cmp_gc(const void *pa, const void *pb)
{
	uint32_t i = *(const uint32_t *)pa, j = *(const uint32_t *)pb;
	const struct hostdata_fwk_gc *a = &g_hd->fgc[i], *b = &g_hd->fgc[j];
	int c;

	if ((c = cmp_u64(a->r.start_ns, b->r.start_ns)) || (c = cmp_u64(a->pid, b->pid)) ||
	    (c = cmp_u64(a->r.tid, b->r.tid)))
		return c;
	return cmp_u64(i, j);
}

static void write_gc(struct fctx *x)
{
	const struct hostdata *hd = x->hd;
	uint32_t *g = malloc((hd->nfgc + 1) * sizeof(*g));
	size_t n = 0;

	if (!g) {
		check(x, -ENOMEM);
		return;
	}
	for (size_t i = 0; i < hd->nfgc; i++) {
		const char *why = gc_problem(x->s, &hd->fgc[i]);

		if (why)
			bad_record(x, hd->fgc[i].pid, "GC", hd->fgc[i].r.tid, hd->fgc[i].r.start_ns,
				   why);
		else
			g[n++] = (uint32_t)i;
	}
	g_hd = hd;
	if (n > 1)
		qsort(g, n, sizeof(*g), cmp_gc);
	for (size_t i = 0; i < n && !x->err; i++) {
		const struct hostdata_fwk_gc *e = &hd->fgc[g[i]];
		struct npuprof_db_gc_record row = { 0, 0, npuprof_global_tid(e->pid, e->r.tid) };

		npuprof_session_unix_ns_fits(x->s, e->r.start_ns, &row.startNs);
		npuprof_session_unix_ns_fits(x->s, e->r.end_ns, &row.endNs);
		check(x, npuprof_db_add_gc_record(x->w, &row));
		x->res->gc++;
	}
	free(g);
}

int fwk_write(struct npuprof_db *w, const struct npuprof_session *s, const struct hostdata *hd,
	      const char *dir, FILE *warn, struct fwk_result *res)
{
	struct fctx x = { .w = w, .s = s, .hd = hd, .dir = dir, .warn = warn, .res = res };
	uint32_t *ord, *tord;
	size_t nord = 0;

	if (!hd->nfop && !hd->nfmem && !hd->nfgc)
		return 0;
	u64map_init(&x.fstr);
	u64map_init(&x.mstr);
	x.fwk_na = npuprof_db_intern_space(w, NPUPROF_DB_SPACE_FWK, "N/A", 3);
	x.mem_na = npuprof_db_intern_space(w, NPUPROF_DB_SPACE_MEMORY, "N/A", 3);
	if (x.fwk_na < 0 || x.mem_na < 0)
		return (int)(x.fwk_na < 0 ? x.fwk_na : x.mem_na);
	ord = malloc((hd->nfop + 1) * sizeof(*ord));
	tord = malloc((hd->nfop + 1) * sizeof(*tord));
	if (!ord || !tord) {
		free(ord);
		free(tord);
		return -ENOMEM;
	}
	for (size_t i = 0; i < hd->nfop; i++) {
		const char *why = op_problem(s, &hd->fop[i]);

		if (why)
			bad_record(&x, hd->fop[i].pid, "op", hd->fop[i].r.tid,
				   hd->fop[i].r.start_ns, why);
		else
			ord[nord] = tord[nord] = (uint32_t)i, nord++;
	}
	g_hd = hd;
	if (nord > 1) {
		qsort(ord, nord, sizeof(*ord), cmp_op_time);
		qsort(tord, nord, sizeof(*tord), cmp_op_thread);
	}
	check(&x, write_ops(&x, ord, nord, tord, nord));
	if (!x.err)
		write_steps(&x, ord, nord);
	if (!x.err)
		write_memory(&x, tord, nord);
	if (!x.err)
		write_gc(&x);
	if (!x.err && res->bad > MAX_BAD_SHOWN)
		fprintf(warn,
			"npuprof export: warning: %s: %" PRIu64
			" framework records skipped in all (the first %d are named above)\n",
			dir, res->bad, MAX_BAD_SHOWN);
	free(ord);
	free(tord);
	u64map_free(&x.fstr);
	u64map_free(&x.mstr);
	return x.err;
}

int fwk_write_metadata(struct npuprof_db *w, const char *path, FILE *warn, struct fwk_result *res)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL, err[256];
	size_t len = 0, cap = 0;
	struct jsontop t;
	int r = 0;

	if (!f) {
		if (errno == ENOENT)
			return 0;
		fprintf(warn,
			"npuprof export: warning: %s: cannot read: %s; no META_DATA from it\n",
			path, strerror(errno));
		res->metadata_bad = 1;
		return 0;
	}
	for (;;) {
		size_t got;

		if (len == cap) {
			char *p = cap > (64u << 20) ? NULL :
						      realloc(buf, cap = cap ? 2 * cap : 4096);

			if (!p) {
				fclose(f);
				free(buf);
				fprintf(warn,
					"npuprof export: warning: %s: larger than 64 MiB or out of memory; no META_DATA from it\n",
					path);
				res->metadata_bad = 1;
				return 0;
			}
			buf = p;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(warn, "npuprof export: warning: %s: read error; no META_DATA from it\n",
			path);
		res->metadata_bad = 1;
		fclose(f);
		free(buf);
		return 0;
	}
	fclose(f);
	r = jsontop_parse(buf, len, &t, err, sizeof(err));
	if (r == -ENOMEM) {
		free(buf);
		return r;
	}
	if (r < 0) {
		fprintf(warn,
			"npuprof export: warning: %s: %s: not a JSON object; no META_DATA from it\n",
			path, err);
		res->metadata_bad = 1;
		free(buf);
		return 0;
	}
	r = 0;
	for (size_t i = 0; i < t.n && !r; i++) {
		char *v = malloc(t.m[i].value_len + 1);
		struct npuprof_db_meta_data row = { t.m[i].key, v };

		if (!v) {
			r = -ENOMEM;
			break;
		}
		memcpy(v, t.m[i].value, t.m[i].value_len);
		v[t.m[i].value_len] = 0;
		if (strlen(t.m[i].key) != t.m[i].key_len) {
			/* a key with \u0000 cannot be a TEXT name: say so */
			fprintf(warn,
				"npuprof export: warning: %s: key %zu holds a NUL character; not copied\n",
				path, i + 1);
			res->metadata_bad = 1;
			free(v);
			continue;
		}
		r = npuprof_db_add_meta_data(w, &row);
		free(v);
		res->metadata++;
	}
	jsontop_free(&t);
	free(buf);
	return r;
}
