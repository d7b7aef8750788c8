/*
 * hostdata.c — loading host raw streams for export (hostdata.h).
 */
#include "hostdata.h"

#include "cannrec.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRACK_SLACK_NS 2000000ULL /* a track precedes its submit */

struct load_ctx {
	struct hostdata *h;
	uint32_t pid;
	int oom;
	/* hostdata_open: the per-task records are indexed by block, not loaded */
	int stream, keep_api;
	const uint8_t *base, *dropped; /* the file's mapping; pages below given back */
	size_t len;
	uint32_t file;
	int64_t cur; /* cursor of the open range, -1 none */
	uint64_t seq, start, end; /* the open range's block and bytes */
	int has_task; /* the open range holds per-task records */
	struct cann_file *cann; /* the stream's CANN reports (cannrec.h) */
	uint64_t refused[6]; /* MSPROF_BAD's counts, summed */
};

static int index_record(struct load_ctx *ctx, const struct npuprof_host_block_header *b,
			const struct npuprof_hrec_header *rec);

#define PUSH(arr, n, item, ctx)                                                           \
	do {                                                                              \
		if (((n) & ((n)-1)) == 0) { /* grow at powers of two */                   \
			void *p_ = realloc((arr), ((n) ? 2 * (n) : 16) * sizeof(*(arr))); \
			if (!p_) {                                                        \
				(ctx)->oom = 1;                                           \
				return -ENOMEM;                                           \
			}                                                                 \
			(arr) = p_;                                                       \
		}                                                                         \
		(arr)[(n)++] = (item);                                                    \
	} while (0)

static int add_string(struct hostdata *h, uint64_t id, const char *s, uint32_t len)
{
	char *c;

	if (u64map_get(&h->strings, id, NULL))
		return 0;
	if (h->nstr == h->capstr) {
		size_t cap = h->capstr ? 2 * h->capstr : 256;
		char **v = realloc(h->strv, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		h->strv = v;
		h->capstr = cap;
	}
	c = malloc((size_t)len + 1);
	if (!c)
		return -ENOMEM;
	memcpy(c, s, len);
	c[len] = 0;
	h->strv[h->nstr] = c;
	return u64map_put(&h->strings, id, h->nstr++);
}

/* The index of a set of string ids (size bytes of uint64_t ids) in *sets,
 * added if new: the sets are few (one per distinct operator signature or
 * API name and item), the records many. A hash collision only costs a
 * duplicate set. */
static int64_t add_set(void **sets, size_t *n, struct u64map *at, const void *set, size_t size)
{
	const uint64_t *w = set;
	uint64_t hash = 0x9e3779b97f4a7c15ULL, v;

	for (size_t i = 0; i < size / sizeof(*w); i++) {
		hash = (hash ^ w[i]) * 0xff51afd7ed558ccdULL;
		hash ^= hash >> 31;
	}
	if (u64map_get(at, hash, &v) && !memcmp((char *)*sets + v * size, set, size))
		return (int64_t)v;
	if (*n >= HD_END)
		return -EOVERFLOW;
	if ((*n & (*n - 1)) == 0) {
		void *p = realloc(*sets, (*n ? 2 * *n : 16) * size);

		if (!p)
			return -ENOMEM;
		*sets = p;
	}
	memcpy((char *)*sets + *n * size, set, size);
	if (u64map_put(at, hash, *n) < 0)
		return -ENOMEM;
	return (int64_t)(*n)++;
}

/* A track's task key. */
static uint64_t track_key(const struct hd_track *t)
{
	return hd_task_key(t->pid, t->r.device_id, t->r.stream_id, t->r.task_id);
}

/*
 * The one decoder of the per-task records (API, TASK_TRACK, COMPUTE_OP,
 * HCCL_TASK) into their compact forms, for hostdata_load and for the
 * streaming merge alike. `rec` is at least as long as its kind.
 */
static int decode_api(struct hostdata *h, uint32_t pid, const struct npuprof_hrec_header *rec,
		      struct hd_api *a)
{
	const struct npuprof_hrec_api *r = (const void *)rec;
	struct hd_api_strings as = { r->name_id, r->item_id };
	void *sets = h->apistr;
	int64_t si = add_set(&sets, &h->napistr, &h->apistr_at, &as, sizeof(as));

	h->apistr = sets;
	if (si < 0)
		return (int)si;
	memset(a, 0, sizeof(*a));
	a->pid = pid;
	a->strings = (uint32_t)si;
	a->r.level = r->level;
	a->r.tid = r->tid;
	a->r.start_ns = r->start_ns;
	a->r.end_ns = r->end_ns;
	a->r.connection_id = r->connection_id;
	return 0;
}

static void decode_track(uint32_t pid, const struct npuprof_hrec_header *rec, struct hd_track *t)
{
	const struct npuprof_hrec_task_track *r = (const void *)rec;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->r.tid = r->tid;
	t->r.device_id = r->device_id;
	t->r.stream_id = r->stream_id;
	t->r.batch_id = r->batch_id;
	t->r.model_id = r->model_id;
	t->r.memcpy_op = r->memcpy_op;
	t->r.trace_tag = r->trace_tag;
	t->r.task_id = r->task_id;
	t->r.sqe_type = r->sqe_type;
	t->r.time_ns = r->time_ns;
	t->r.connection_id = r->connection_id;
	t->r.task_type_id = r->task_type_id;
	t->r.duration_ns = r->duration_ns;
	t->r.bytes = r->bytes;
	t->r.index_id = r->index_id;
}

static int decode_compute(struct hostdata *h, uint32_t pid, const struct npuprof_hrec_header *rec,
			  struct hd_compute *c)
{
	const struct npuprof_hrec_compute_op *r = (const void *)rec;
	struct hd_op_strings os = {
		r->name_id,	     r->op_type_id,	 r->task_type_id,      r->input_formats_id,
		r->input_dtypes_id,  r->input_shapes_id, r->output_formats_id, r->output_dtypes_id,
		r->output_shapes_id, r->attr_id,	 r->op_state_id,       r->hf32_id,
	};
	void *sets = h->opstr;
	int64_t si = add_set(&sets, &h->nopstr, &h->opstr_at, &os, sizeof(os));

	h->opstr = sets;
	if (si < 0)
		return (int)si;
	memset(c, 0, sizeof(*c));
	c->key = hd_task_key(pid, r->device_id, r->stream_id, r->task_id);
	c->r.batch_id = r->batch_id;
	c->r.context_id = r->context_id;
	c->r.block_dim = r->block_dim;
	c->r.mix_block_dim = r->mix_block_dim;
	c->strings = (uint32_t)si;
	return 0;
}

static void decode_htask(uint32_t pid, const struct npuprof_hrec_header *rec,
			 struct hd_hccl_task *t)
{
	const struct npuprof_hrec_hccl_task *r = (const void *)rec;

	t->pid = pid;
	t->r = *r;
	t->key = hd_task_key(pid, r->device_id, r->stream_id, r->task_id);
}

static const char *cann_str(void *ctx, uint64_t id)
{
	return hostdata_str(ctx, id);
}

static int on_rec(void *vctx, const struct npuprof_host_block_header *b,
		  const struct npuprof_hrec_header *rec)
{
	struct load_ctx *ctx = vctx;
	struct hostdata *h = ctx->h;
	uint32_t pid = ctx->pid;

	if (ctx->stream && index_record(ctx, b, rec) < 0) {
		ctx->oom = 1;
		return -ENOMEM;
	}
#define BODY(type) (rec->size >= sizeof(type) ? (const type *)rec : NULL)
	if (rec->kind >= NPUPROF_HREC_MSPROF_API && rec->kind <= NPUPROF_HREC_MSPROF_TYPE) {
		/* CANN's reports: turned into the records below at the
		 * stream's end (cann_stream) */
		if (!ctx->cann)
			ctx->cann = cann_open(pid, cann_str, h);
		if (!ctx->cann || cann_add(ctx->cann, rec) < 0) {
			ctx->oom = 1;
			return -ENOMEM;
		}
		return 0;
	}
	switch (rec->kind) {
	case NPUPROF_HREC_MSPROF_BAD: {
		/* the fields its size covers (hostfmt.h) */
		const uint64_t *v = (const void *)(rec + 1);
		size_t n = (rec->size - sizeof(*rec)) / sizeof(*v);

		for (size_t i = 0; i < n && i < 6; i++)
			ctx->refused[i] += v[i];
		break;
	}
	case NPUPROF_HREC_HASH: {
		const struct npuprof_hrec_hash *r = BODY(struct npuprof_hrec_hash);

		if (r && add_string(h, r->id, r->str, r->len) < 0) {
			ctx->oom = 1;
			return -ENOMEM;
		}
		break;
	}
	case NPUPROF_HREC_API:
		/* the export's own connectionIds (CANN reports) follow the
		 * runtime's */
		if (BODY(struct npuprof_hrec_api) &&
		    ((const struct npuprof_hrec_api *)rec)->connection_id <
			    NPUPROF_MSTX_HOST_CONNECTION &&
		    ((const struct npuprof_hrec_api *)rec)->connection_id >= h->cann_next_conn)
			h->cann_next_conn = ((const struct npuprof_hrec_api *)rec)->connection_id +
					    1;
		if (ctx->stream && !ctx->keep_api)
			break; /* streamed (hostdata_open) */
		if (BODY(struct npuprof_hrec_api)) {
			struct hd_api a;
			int e = decode_api(h, pid, rec, &a);

			if (e < 0) {
				ctx->oom = 1;
				return e;
			}
			PUSH(h->api, h->napi, a, ctx);
		}
		break;
	case NPUPROF_HREC_TASK_TRACK:
		if (ctx->stream)
			break;
		if (BODY(struct npuprof_hrec_task_track)) {
			struct hd_track t;

			decode_track(pid, rec, &t);
			PUSH(h->track, h->ntrack, t, ctx);
		}
		break;
	case NPUPROF_HREC_COMPUTE_OP:
		if (ctx->stream)
			break;
		if (BODY(struct npuprof_hrec_compute_op)) {
			struct hd_compute c;
			int e = decode_compute(h, pid, rec, &c);

			if (e < 0) {
				ctx->oom = 1;
				return e;
			}
			PUSH(h->compute, h->ncompute, c, ctx);
		}
		break;
	case NPUPROF_HREC_HCCL_OP: {
		const struct npuprof_hrec_hccl_op *r = BODY(struct npuprof_hrec_hccl_op);
		struct hd_hccl_op o;

		if (r) {
			o = (struct hd_hccl_op){ pid, 0, -1, -1, *r };
			PUSH(h->hop, h->nhop, o, ctx);
		}
		break;
	}
	case NPUPROF_HREC_HCCL_TASK:
		if (ctx->stream)
			break;
		if (BODY(struct npuprof_hrec_hccl_task)) {
			struct hd_hccl_task t;

			decode_htask(pid, rec, &t);
			PUSH(h->htask, h->nhtask, t, ctx);
		}
		break;
	case NPUPROF_HREC_STEP: {
		const struct npuprof_hrec_step *r = BODY(struct npuprof_hrec_step);
		struct hd_step t;

		if (!r)
			break;
		t.pid = pid;
		t.r = *r;
		PUSH(h->step, h->nstep, t, ctx);
		break;
	}
	case NPUPROF_HREC_RANK: {
		const struct npuprof_hrec_rank *r = BODY(struct npuprof_hrec_rank);
		struct hd_rank k;

		if (r) {
			k.pid = pid;
			k.r = (struct npuprof_rank_info){ r->rank, r->rank_size, r->device_id,
							  r->source };
			PUSH(h->rank, h->nrank, k, ctx);
		}
		break;
	}
	case NPUPROF_HREC_FWK_OP: {
		const struct npuprof_hrec_fwk_op *r = BODY(struct npuprof_hrec_fwk_op);
		struct hd_fwk_op o;

		if (r) {
			o.pid = pid;
			o.r = *r;
			PUSH(h->fop, h->nfop, o, ctx);
		}
		break;
	}
	case NPUPROF_HREC_FWK_MEM: {
		const struct npuprof_hrec_fwk_mem *r = BODY(struct npuprof_hrec_fwk_mem);
		struct hd_fwk_mem m;

		if (r) {
			m.pid = pid;
			m.r = *r;
			PUSH(h->fmem, h->nfmem, m, ctx);
		}
		break;
	}
	case NPUPROF_HREC_FWK_GC: {
		const struct npuprof_hrec_fwk_gc *r = BODY(struct npuprof_hrec_fwk_gc);
		struct hd_fwk_gc g;

		if (r) {
			g.pid = pid;
			g.r = *r;
			PUSH(h->fgc, h->nfgc, g, ctx);
		}
		break;
	}
	default: {
		struct npuprof_host_tx ev;
		struct hd_tx t;

		/* TX records and their compact forms (hostfmt.h, kinds 17-22) */
		if (!npuprof_host_tx_event(b, rec, &ev))
			break;
		t.pid = pid;
		t.r = ev.r;
		t.msg_id = ev.msg_id;
		t.message = NULL; /* by id: resolved once every string is loaded */
		if (ev.message) {
			t.message = strndup(ev.message, ev.r.msg_len);
			if (!t.message) {
				ctx->oom = 1;
				return -ENOMEM;
			}
		}
		PUSH(h->tx, h->ntx, t, ctx);
		break;
	}
	}
#undef BODY
	return 0;
}

/* qsort, but not on an empty array (qsort(NULL, 0, ...) is undefined). */
static void sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/*
 * Indexes instead of sorting (the records stay where they were loaded, in
 * file order): a task key's tracks are chained in time order, equal times in
 * file order (what a stable sort by (key, time) gave), and detail records
 * are chained per (key, batch) hash in file order, so a lookup finds the
 * first one loaded (what a stable sort's lower bound gave).
 */
static uint64_t detail_hash(uint64_t key, uint32_t batch)
{
	uint64_t h = (key ^ ((uint64_t)batch * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;

	return h ^ (h >> 29);
}

/* Append record i to its chain: map value first | last << 32. */
static int chain_add(struct u64map *m, uint32_t *next, uint64_t hkey, uint32_t i)
{
	uint64_t v;

	next[i] = HD_END;
	if (!u64map_get(m, hkey, &v))
		return u64map_put(m, hkey, (uint64_t)i | ((uint64_t)i << 32));
	next[(uint32_t)(v >> 32)] = i;
	return u64map_put(m, hkey, (v & 0xffffffffULL) | ((uint64_t)i << 32));
}

static int build_detail(struct u64map *m, uint32_t **next, size_t n, size_t stride,
			const void *base, size_t key_off, size_t batch_off)
{
	*next = malloc((n + 1) * sizeof(**next));
	if (!*next)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *rec = (const char *)base + i * stride;
		uint64_t key;
		uint32_t batch;

		memcpy(&key, rec + key_off, sizeof(key));
		memcpy(&batch, rec + batch_off, sizeof(batch));
		if (chain_add(m, *next, detail_hash(key, batch), (uint32_t)i) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A chain out of time order (tracks of one key from several threads):
 * sorted stably by time. */
static int cmp_u64_idx(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

static int sort_chain(struct hostdata *h, uint64_t key, uint32_t first)
{
	size_t n = 0, cap = 0;
	uint64_t *v = NULL;

	for (uint32_t i = first; i != HD_END; i = h->track_next[i]) {
		if (n == cap) {
			uint64_t *p = realloc(v, (cap = cap ? 2 * cap : 64) * 2 * sizeof(*v));

			if (!p) {
				free(v);
				return -ENOMEM;
			}
			v = p;
		}
		v[2 * n] = h->track[i].r.time_ns;
		v[2 * n + 1] = i;
		n++;
	}
	qsort(v, n, 2 * sizeof(*v), cmp_u64_idx); /* (time, index): stable */
	for (size_t k = 0; k < n; k++)
		h->track_next[v[2 * k + 1]] = k + 1 < n ? (uint32_t)v[2 * k + 3] : HD_END;
	int r = u64map_put(&h->track_range, key, v[1]);
	free(v);
	return r;
}

static int cmp_hop(const void *a, const void *b)
{
	const struct hd_hccl_op *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->r.op_seq < y->r.op_seq ? -1 : x->r.op_seq > y->r.op_seq;
}

static int cmp_hop_time(const void *a, const void *b)
{
	const struct hd_hccl_op *const *x = a, *const *y = b;

	if ((*x)->r.start_ns != (*y)->r.start_ns)
		return (*x)->r.start_ns < (*y)->r.start_ns ? -1 : 1;
	return cmp_hop(*x, *y);
}

static int cmp_api(const void *a, const void *b)
{
	const struct hd_api *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->r.tid != y->r.tid)
		return x->r.tid < y->r.tid ? -1 : 1;
	if (x->r.start_ns != y->r.start_ns)
		return x->r.start_ns < y->r.start_ns ? -1 : 1;
	/* outer (longer) ranges first at equal starts */
	return x->r.end_ns > y->r.end_ns ? -1 : x->r.end_ns < y->r.end_ns;
}

static int cmp_tx(const void *a, const void *b)
{
	const struct hd_tx *x = a, *y = b;

	if (x->r.start_ns != y->r.start_ns)
		return x->r.start_ns < y->r.start_ns ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->r.tid < y->r.tid ? -1 : x->r.tid > y->r.tid;
}

/* ---- streaming (hostdata_open) ---------------------------------------------
 *
 * Pass 1 (hostdata_open) decodes every stream as hostdata_load does, with
 * its damage reports, but keeps of the per-task records (API, TASK_TRACK,
 * COMPUTE_OP, HCCL_TASK) only where they are: per (file, thread) the byte
 * ranges of the intact blocks that hold them. Pass 2 (hostdata_advance) is a
 * k-way merge of those per-thread cursors in time order, each reading its
 * blocks with pread into its own buffer, so memory does not grow with the
 * streams: held are the strings, the block index, the tracks not matched
 * yet (per task key), the latest detail records per task key, and a short
 * window of node/acl-level API calls for uninstrumented launches.
 */
#define HS_AHEAD_NS \
	20000000ULL /* merged beyond what a match needs: a thread's records may be this much out of time order */
#define HS_LATE_NS \
	10000000ULL /* how late a submit may come (the kernel
				  stream's reorder window covers the rest) */
#define HS_OPEN_NS 60000000000ULL /* no API call open longer than this */
#define HS_BATCHES 4 /* detail records kept per task key (distinct batches) */
#define HS_CHUNK 4096 /* launches per pool chunk (their addresses stay put) */

struct hs_file {
	int fd;
	uint32_t pid;
	char *path;
};

struct hs_cursor {
	uint32_t file, pid, tid;
	uint64_t *off; /* the ranges of intact blocks holding per-task records */
	uint32_t *len;
	size_t nblk, capblk, ib; /* ib: the next range to read */
	uint8_t *buf;
	size_t cap;
	uint32_t pos, n; /* within the range read */
	uint64_t key, last; /* the head's merge time; the last one merged */
	int live;
};

struct hs_pend {
	struct hd_track t;
	uint32_t next; /* in time order; HD_END: the last */
};

struct hs_cdet {
	struct hd_compute c[HS_BATCHES];
	uint8_t used, next;
};
struct hs_hdet {
	struct hd_hccl_task t[HS_BATCHES];
	uint8_t used, next;
};

struct hd_stream {
	struct hs_file *file;
	size_t nfile;
	struct hs_cursor *cur;
	size_t ncur;
	struct u64map cur_at; /* file << 32 | tid -> cursor */
	uint32_t *heap; /* cursors with a head, by (key, index) */
	size_t nheap;
	uint64_t target; /* merged: every record with key <= target */
	uint64_t w; /* latest submit + slack: older superseded tracks go */
	/* tracks not matched yet: a list per task key (head | tail << 32) */
	struct hs_pend *pend;
	size_t npend, cappend;
	uint32_t pend_free;
	struct u64map pend_at;
	/* the latest detail records per task key */
	struct hs_cdet *cdet;
	size_t ncdet, capcdet;
	struct u64map cdet_at;
	struct hs_hdet *hdet;
	size_t nhdet, caphdet;
	struct u64map hdet_at;
	/* node/acl-level API calls merged lately, in merge order (ring) */
	struct hd_api *win;
	size_t winhead, nwin, capwin, winlive; /* winlive: after the last compaction */
	struct hd_api ahead; /* found by reading ahead */
	struct hd_track matched;
	/* host-only sessions: tracks merged, written in merge order once the
	 * merge is past their details */
	struct hd_track *fifo;
	size_t fhead, nfifo, capfifo;
	/* launches (hostdata_launch) */
	struct hd_launch **chunk;
	size_t nchunk;
	uint32_t launch_free;
	hd_api_fn on_api;
	hd_task_fn on_task;
	void *ctx;
	int draining;
	int err;
	uint8_t *scratch; /* read-ahead */
	size_t capscratch;
};

static struct hs_cursor *cursor_for(struct hostdata *h, uint32_t file, uint32_t pid, uint32_t tid)
{
	struct hd_stream *st = h->stream;
	uint64_t k = (uint64_t)file << 32 | tid, v;

	if (u64map_get(&st->cur_at, k, &v))
		return &st->cur[v];
	if (st->ncur >= HD_END)
		return NULL;
	if ((st->ncur & (st->ncur - 1)) == 0) {
		void *p = realloc(st->cur, (st->ncur ? 2 * st->ncur : 16) * sizeof(*st->cur));

		if (!p)
			return NULL;
		st->cur = p;
	}
	memset(&st->cur[st->ncur], 0, sizeof(st->cur[0]));
	st->cur[st->ncur].file = file;
	st->cur[st->ncur].pid = pid;
	st->cur[st->ncur].tid = tid;
	if (u64map_put(&st->cur_at, k, st->ncur) < 0)
		return NULL;
	return &st->cur[st->ncur++];
}

/* Closes the open range: kept if it holds per-task records. */
static int range_close(struct load_ctx *ctx)
{
	struct hs_cursor *c;

	if (ctx->cur < 0)
		return 0;
	c = &ctx->h->stream->cur[ctx->cur];
	ctx->cur = -1;
	if (!ctx->has_task)
		return 0;
	if (c->nblk == c->capblk) {
		size_t nc = c->capblk ? 2 * c->capblk : 16;
		uint64_t *o = realloc(c->off, nc * sizeof(*o));
		uint32_t *l;

		if (!o)
			return -ENOMEM;
		c->off = o;
		l = realloc(c->len, nc * sizeof(*l));
		if (!l)
			return -ENOMEM;
		c->len = l;
		c->capblk = nc;
	}
	c->off[c->nblk] = ctx->start;
	c->len[c->nblk++] = (uint32_t)(ctx->end - ctx->start);
	return 0;
}

static int per_task(uint16_t kind)
{
	return kind == NPUPROF_HREC_API || kind == NPUPROF_HREC_TASK_TRACK ||
	       kind == NPUPROF_HREC_COMPUTE_OP || kind == NPUPROF_HREC_HCCL_TASK;
}

/* Pass 1: the byte range of the block this record is in. */
static int index_record(struct load_ctx *ctx, const struct npuprof_host_block_header *b,
			const struct npuprof_hrec_header *rec)
{
	const uint8_t *at = (const uint8_t *)rec;
	uint64_t off;

	if (!ctx->base || at < ctx->base || at >= ctx->base + ctx->len) {
		/* a copy: the decoder converted its TSC times (msproftx stamps,
		 * loaded whole); it stands where its block's next record is */
		if (ctx->cur >= 0 && b->seq == ctx->seq &&
		    ctx->h->stream->cur[ctx->cur].tid == b->tid)
			ctx->end += rec->size;
		return 0;
	}
	off = (uint64_t)(at - ctx->base);

	/* pages behind the decoder are given back as it goes */
	if (at - ctx->dropped > (ptrdiff_t)(16u << 20)) {
		const uint8_t *upto = ctx->base + ((size_t)(at - (8u << 20) - ctx->base) &
						   ~(size_t)((8u << 20) - 1));

		if (upto > ctx->dropped) {
			madvise((void *)ctx->dropped, (size_t)(upto - ctx->dropped), MADV_DONTNEED);
			ctx->dropped = upto;
		}
	}
	if (ctx->cur < 0 || b->seq != ctx->seq || off != ctx->end ||
	    ctx->h->stream->cur[ctx->cur].tid != b->tid) {
		struct hs_cursor *c;

		if (range_close(ctx) < 0)
			return -ENOMEM;
		c = cursor_for(ctx->h, ctx->file, ctx->pid, b->tid);
		if (!c)
			return -ENOMEM;
		ctx->cur = c - ctx->h->stream->cur;
		ctx->seq = b->seq;
		ctx->start = off;
		ctx->has_task = 0;
	}
	ctx->end = off + rec->size;
	ctx->has_task |= per_task(rec->kind);
	return 0;
}

/* The time a per-task record is merged at (valid size checked); 0 if it
 * is not one the merge handles. */
static int rec_time(const struct npuprof_hrec_header *r, uint64_t *t)
{
	switch (r->kind) {
	case NPUPROF_HREC_API:
		if (r->size < sizeof(struct npuprof_hrec_api))
			return 0;
		*t = ((const struct npuprof_hrec_api *)r)->end_ns; /* written at its end */
		return 1;
	case NPUPROF_HREC_TASK_TRACK:
		if (r->size < sizeof(struct npuprof_hrec_task_track))
			return 0;
		*t = ((const struct npuprof_hrec_task_track *)r)->time_ns;
		return 1;
	case NPUPROF_HREC_COMPUTE_OP:
		if (r->size < sizeof(struct npuprof_hrec_compute_op))
			return 0;
		*t = ((const struct npuprof_hrec_compute_op *)r)->time_ns;
		return 1;
	case NPUPROF_HREC_HCCL_TASK:
		if (r->size < sizeof(struct npuprof_hrec_hccl_task))
			return 0;
		*t = ((const struct npuprof_hrec_hccl_task *)r)->time_ns;
		return 1;
	}
	return 0;
}

/* Reads range i of cursor c into buf (grown as needed); its length, or -1. */
static int64_t read_range(struct hostdata *h, struct hs_cursor *c, size_t i, uint8_t **buf,
			  size_t *cap)
{
	struct hd_stream *st = h->stream;
	size_t len = c->len[i];
	ssize_t n;

	if (len > *cap) {
		uint8_t *p = realloc(*buf, len);

		if (!p) {
			st->err = -ENOMEM;
			return -1;
		}
		*buf = p;
		*cap = len;
	}
	n = pread(st->file[c->file].fd, *buf, len, (off_t)c->off[i]);
	if (n != (ssize_t)len) {
		/* it was there in pass 1: the file changed under us */
		h->damaged_files++;
		fprintf(h->warn ? h->warn : stderr,
			"npuprof export: error: %s: offset %llu: cannot read again (%s); the rest of thread %u's records are missing\n",
			st->file[c->file].path, (unsigned long long)c->off[i],
			n < 0 ? strerror(errno) : "file shrank", c->tid);
		return -1;
	}
	return (int64_t)len;
}

/* Moves c to its next per-task record; its merge key. 0: none left. */
static int cursor_peek(struct hostdata *h, struct hs_cursor *c)
{
	for (;;) {
		while (c->pos + sizeof(struct npuprof_hrec_header) <= c->n) {
			const struct npuprof_hrec_header *r = (const void *)(c->buf + c->pos);
			uint64_t t;

			if (r->size < sizeof(*r) || (r->size & (NPUPROF_HREC_ALIGN - 1)) ||
			    r->size > c->n - c->pos) {
				c->pos = c->n; /* changed since pass 1: the range is dropped */
				break;
			}
			if (rec_time(r, &t)) {
				/* an API call neither holds its thread back nor moves
				 * it on: it is written at its end, or, replayed, ahead
				 * of its time (aclnpuRecordApi); merged when reached */
				if (r->kind == NPUPROF_HREC_API)
					t = c->last;
				c->key = t > c->last ? t : c->last;
				return 1;
			}
			c->pos += r->size;
		}
		if (c->ib >= c->nblk)
			return 0;
		int64_t n = read_range(h, c, c->ib++, &c->buf, &c->cap);

		if (n < 0) {
			c->ib = c->nblk;
			return 0;
		}
		c->pos = 0;
		c->n = (uint32_t)n;
	}
}

static int heap_less(const struct hd_stream *st, uint32_t a, uint32_t b)
{
	if (st->cur[a].key != st->cur[b].key)
		return st->cur[a].key < st->cur[b].key;
	return a < b;
}

static void heap_down(struct hd_stream *st, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < st->nheap && heap_less(st, st->heap[l], st->heap[m]))
			m = l;
		if (l + 1 < st->nheap && heap_less(st, st->heap[l + 1], st->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		uint32_t t = st->heap[i];
		st->heap[i] = st->heap[m];
		st->heap[m] = t;
		i = m;
	}
}

/* A track not matched yet, in its key's list in time order (equal times:
 * merge order). Older tracks a newer one supersedes for every submit still
 * to come (time <= latest submit + slack) are dropped. */
static int pend_add(struct hd_stream *st, const struct hd_track *t)
{
	uint64_t key = track_key(t), v;
	uint32_t i, head, tail;

	if (st->pend_free != HD_END) {
		i = st->pend_free;
		st->pend_free = st->pend[i].next;
	} else {
		if (st->npend >= HD_END - 1)
			return -EOVERFLOW;
		if (st->npend == st->cappend) {
			size_t nc = st->cappend ? 2 * st->cappend : 1024;
			void *p = realloc(st->pend, nc * sizeof(*st->pend));

			if (!p)
				return -ENOMEM;
			st->pend = p;
			st->cappend = nc;
		}
		i = (uint32_t)st->npend++;
	}
	st->pend[i].t = *t;
	st->pend[i].next = HD_END;
	if (!u64map_get(&st->pend_at, key, &v))
		return u64map_put(&st->pend_at, key, (uint64_t)i | (uint64_t)i << 32);
	head = (uint32_t)v;
	tail = (uint32_t)(v >> 32);
	if (st->pend[tail].t.r.time_ns <= t->r.time_ns) {
		st->pend[tail].next = i;
		tail = i;
	} else if (st->pend[head].t.r.time_ns > t->r.time_ns) {
		st->pend[i].next = head; /* out of order (another thread) */
		head = i;
	} else {
		uint32_t p = head;

		while (st->pend[p].next != HD_END &&
		       st->pend[st->pend[p].next].t.r.time_ns <= t->r.time_ns)
			p = st->pend[p].next;
		st->pend[i].next = st->pend[p].next;
		st->pend[p].next = i;
	}
	while (st->pend[head].next != HD_END &&
	       st->pend[st->pend[head].next].t.r.time_ns <= st->w) {
		uint32_t n = st->pend[head].next;

		st->pend[head].next = st->pend_free;
		st->pend_free = head;
		head = n;
	}
	return u64map_put(&st->pend_at, key, (uint64_t)head | (uint64_t)tail << 32);
}

#define DET_PUT(fn, dtype, rtype, arr, n, cap, at, field)                          \
	static int fn(struct hd_stream *st, const rtype *d)                        \
	{                                                                          \
		uint64_t v;                                                        \
		dtype *e;                                                          \
		if (!u64map_get(&st->at, d->key, &v)) {                            \
			if (st->n == st->cap) {                                    \
				size_t nc = st->cap ? 2 * st->cap : 1024;          \
				void *p = realloc(st->arr, nc * sizeof(*st->arr)); \
				if (!p)                                            \
					return -ENOMEM;                            \
				st->arr = p;                                       \
				st->cap = nc;                                      \
			}                                                          \
			v = st->n++;                                               \
			memset(&st->arr[v], 0, sizeof(st->arr[v]));                \
			if (u64map_put(&st->at, d->key, v) < 0)                    \
				return -ENOMEM;                                    \
		}                                                                  \
		e = &st->arr[v];                                                   \
		for (unsigned k = 0; k < e->used; k++)                             \
			if (e->field[k].r.batch_id == d->r.batch_id) {             \
				e->field[k] = *d; /* the latest of (key, batch) */ \
				return 0;                                          \
			}                                                          \
		if (e->used < HS_BATCHES) {                                        \
			e->field[e->used++] = *d;                                  \
			return 0;                                                  \
		}                                                                  \
		e->field[e->next] = *d; /* the oldest batch of the key goes */     \
		e->next = (uint8_t)((e->next + 1) % HS_BATCHES);                   \
		return 0;                                                          \
	}
DET_PUT(cdet_put, struct hs_cdet, struct hd_compute, cdet, ncdet, capcdet, cdet_at, c)
DET_PUT(hdet_put, struct hs_hdet, struct hd_hccl_task, hdet, nhdet, caphdet, hdet_at, t)

static int ring_push(void **ring, size_t *head, size_t *n, size_t *cap, const void *item,
		     size_t size)
{
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 256;
		char *p = malloc(nc * size);

		if (!p)
			return -ENOMEM;
		for (size_t k = 0; k < *n; k++)
			memcpy(p + k * size, (char *)*ring + ((*head + k) % *cap) * size, size);
		free(*ring);
		*ring = p;
		*head = 0;
		*cap = nc;
	}
	memcpy((char *)*ring + ((*head + *n) % *cap) * size, item, size);
	(*n)++;
	return 0;
}

/* Merges cursor c's head record. */
static int merge_one(struct hostdata *h, struct hs_cursor *c)
{
	struct hd_stream *st = h->stream;
	const struct npuprof_hrec_header *r = (const void *)(c->buf + c->pos);
	int e = 0;

	switch (r->kind) {
	case NPUPROF_HREC_API: {
		struct hd_api a;

		e = decode_api(h, c->pid, r, &a);
		if (e < 0)
			break;
		if (st->on_api)
			st->on_api(st->ctx, &a);
		if (!st->draining && !st->on_task &&
		    (a.r.level == NPUPROF_API_NODE || a.r.level == NPUPROF_API_ACL)) {
			void *ring = st->win;

			e = ring_push(&ring, &st->winhead, &st->nwin, &st->capwin, &a, sizeof(a));
			st->win = ring;
		}
		break;
	}
	case NPUPROF_HREC_TASK_TRACK: {
		struct hd_track t;

		decode_track(c->pid, r, &t);
		if (st->on_task) {
			void *ring = st->fifo;

			e = ring_push(&ring, &st->fhead, &st->nfifo, &st->capfifo, &t, sizeof(t));
			st->fifo = ring;
		} else if (!st->draining) {
			e = pend_add(st, &t);
		}
		break;
	}
	case NPUPROF_HREC_COMPUTE_OP: {
		struct hd_compute d;

		e = decode_compute(h, c->pid, r, &d);
		if (!e)
			e = cdet_put(st, &d);
		break;
	}
	case NPUPROF_HREC_HCCL_TASK: {
		struct hd_hccl_task d;

		decode_htask(c->pid, r, &d);
		e = hdet_put(st, &d);
		break;
	}
	}
	c->last = c->key;
	c->pos += r->size;
	return e;
}

/* Host-only sessions: the tracks the merge is past (and past their
 * details), in merge order. */
static void emit_tasks(struct hostdata *h, int all)
{
	struct hd_stream *st = h->stream;

	while (st->nfifo && !st->err) {
		const struct hd_track *t = &st->fifo[st->fhead];

		if (!all && st->nheap && st->cur[st->heap[0]].key <= t->r.time_ns + 2 * HS_AHEAD_NS)
			return;
		st->on_task(st->ctx, t);
		st->fhead = (st->fhead + 1) % st->capfifo;
		st->nfifo--;
	}
}

int hostdata_advance(struct hostdata *h, uint64_t t)
{
	struct hd_stream *st = h->stream;

	if (!st)
		return 0;
	if (t <= st->target && !(t == UINT64_MAX && st->nheap))
		return st->err;
	st->target = t;
	while (st->nheap && !st->err) {
		uint32_t ci = st->heap[0];
		struct hs_cursor *c = &st->cur[ci];

		if (c->key > t)
			break;
		int e = merge_one(h, c);

		if (e < 0)
			st->err = e;
		if (!cursor_peek(h, c)) {
			c->live = 0;
			st->heap[0] = st->heap[--st->nheap];
		}
		heap_down(st, 0);
		if (st->on_task)
			emit_tasks(h, 0);
	}
	if (st->on_task)
		emit_tasks(h, !st->nheap);
	/* the API window: what a submit still to come may lie in */
	uint64_t low = t > TRACK_SLACK_NS + HS_AHEAD_NS + HS_LATE_NS ?
			       t - TRACK_SLACK_NS - HS_AHEAD_NS - HS_LATE_NS :
			       0;
	while (st->nwin && st->win[st->winhead].r.end_ns < low) {
		st->winhead = (st->winhead + 1) % st->capwin;
		st->nwin--;
	}
	/* a call recorded ahead of its end (replayed) at the head holds the
	 * ones behind it: compact then, now and again */
	if (st->nwin > 4096 && st->nwin > 2 * st->winlive) {
		size_t k = 0;

		for (size_t j = 0; j < st->nwin; j++) {
			const struct hd_api *a = &st->win[(st->winhead + j) % st->capwin];

			if (a->r.end_ns >= low)
				st->win[(st->winhead + k++) % st->capwin] = *a;
		}
		st->nwin = k;
		st->winlive = k;
	}
	return st->err;
}

int hostdata_rewind(struct hostdata *h, hd_api_fn on_api, hd_task_fn on_task, void *ctx)
{
	struct hd_stream *st = h->stream;

	if (!st)
		return 0;
	st->on_api = on_api;
	st->on_task = on_task;
	st->ctx = ctx;
	st->target = 0;
	st->w = 0;
	st->err = 0;
	st->draining = 0;
	st->npend = 0;
	st->pend_free = HD_END;
	u64map_free(&st->pend_at);
	st->ncdet = st->nhdet = 0;
	u64map_free(&st->cdet_at);
	u64map_free(&st->hdet_at);
	st->nwin = st->winhead = st->winlive = 0;
	st->nfifo = st->fhead = 0;
	/* every launch is free again */
	st->launch_free = HD_END;
	for (size_t i = st->nchunk * HS_CHUNK; i-- > 0;) {
		st->chunk[i / HS_CHUNK][i % HS_CHUNK].next_free = st->launch_free;
		st->launch_free = (uint32_t)i;
	}
	st->nheap = 0;
	for (size_t i = 0; i < st->ncur; i++) {
		struct hs_cursor *c = &st->cur[i];

		c->ib = 0;
		c->pos = c->n = 0;
		c->last = 0;
		c->live = cursor_peek(h, c);
		if (c->live)
			st->heap[st->nheap++] = (uint32_t)i;
	}
	for (size_t i = st->nheap / 2 + 1; i-- > 0;)
		heap_down(st, i);
	return st->err;
}

int hostdata_drain(struct hostdata *h)
{
	if (!h->stream)
		return 0;
	h->stream->draining = 1;
	return hostdata_advance(h, UINT64_MAX);
}

static const struct hd_track *stream_match(struct hostdata *h, uint64_t key, uint64_t t)
{
	struct hd_stream *st = h->stream;
	uint64_t v, lim = t + TRACK_SLACK_NS;
	uint32_t i, found = HD_END;

	hostdata_advance(h, lim + HS_AHEAD_NS);
	if (lim > st->w)
		st->w = lim;
	if (!u64map_get(&st->pend_at, key, &v))
		return NULL;
	i = (uint32_t)v;
	while (i != HD_END && st->pend[i].t.r.time_ns <= lim) {
		uint32_t n = st->pend[i].next;

		if (found != HD_END) {
			st->pend[found].next = st->pend_free;
			st->pend_free = found;
		}
		found = i;
		i = n;
	}
	if (found == HD_END)
		return NULL;
	st->matched = st->pend[found].t;
	st->pend[found].next = st->pend_free;
	st->pend_free = found;
	if (i == HD_END)
		u64map_del(&st->pend_at, key);
	else
		u64map_put(&st->pend_at, key, (uint64_t)i | (v & 0xffffffff00000000ULL));
	return &st->matched;
}

/* Reading ahead on (pid, tid)'s own cursor, without merging: the first
 * node/acl-level call there (they are in end order) that encloses t. */
static const struct hd_api *read_ahead(struct hostdata *h, uint32_t pid, uint32_t tid, uint64_t t)
{
	struct hd_stream *st = h->stream;
	int own = 0;

	/* the thread's own cursor; if it has none (its calls were recorded
	 * under another thread's blocks), every cursor of the process */
	for (size_t ci = 0; ci < st->ncur && !own; ci++)
		own = st->cur[ci].pid == pid && st->cur[ci].tid == tid;
	for (size_t ci = 0; ci < st->ncur; ci++) {
		struct hs_cursor *c = &st->cur[ci];
		const uint8_t *buf = c->buf;
		uint32_t pos = c->pos, n = c->live ? c->n : 0;
		size_t ib = c->ib;

		if (c->pid != pid || (own && c->tid != tid))
			continue;
		for (;;) {
			while (pos + sizeof(struct npuprof_hrec_header) <= n) {
				const struct npuprof_hrec_header *r = (const void *)(buf + pos);
				uint64_t rt;

				if (r->size < sizeof(*r) || r->size > n - pos)
					break;
				pos += r->size;
				if (!rec_time(r, &rt))
					continue;
				if (rt > t + HS_OPEN_NS)
					goto next; /* nothing open that long */
				if (r->kind != NPUPROF_HREC_API)
					continue;
				const struct npuprof_hrec_api *a = (const void *)r;

				if (a->tid == tid && a->start_ns <= t && a->end_ns >= t &&
				    (a->level == NPUPROF_API_NODE || a->level == NPUPROF_API_ACL)) {
					if (decode_api(h, pid, r, &st->ahead) < 0)
						return NULL;
					return &st->ahead;
				}
			}
			if (ib >= c->nblk)
				break;
			int64_t len = read_range(h, c, ib++, &st->scratch, &st->capscratch);

			if (len < 0)
				break;
			buf = st->scratch;
			pos = 0;
			n = (uint32_t)len;
		}
next:;
	}
	return NULL;
}

static const struct hd_api *stream_enclosing(struct hostdata *h, uint32_t pid, uint32_t tid,
					     uint64_t t)
{
	struct hd_stream *st = h->stream;

	const struct hd_api *best = NULL;

	/* the innermost: the latest start, the shorter at equal starts (calls
	 * nest on a thread), whatever order they were recorded in */
	for (size_t k = 0; k < st->nwin; k++) {
		const struct hd_api *a = &st->win[(st->winhead + k) % st->capwin];

		if (a->pid == pid && a->r.tid == tid && a->r.end_ns >= t && a->r.start_ns <= t &&
		    (!best || a->r.start_ns > best->r.start_ns ||
		     (a->r.start_ns == best->r.start_ns && a->r.end_ns < best->r.end_ns)))
			best = a;
	}
	return best ? best : read_ahead(h, pid, tid, t);
}

const struct hd_launch *hostdata_launch(struct hostdata *h, uint32_t pid, uint32_t dev,
					uint32_t stream, uint32_t task, uint32_t tid, uint64_t t)
{
	struct hd_stream *st = h->stream;
	const struct hd_track *tr;
	struct hd_launch *l;

	if (!st)
		return NULL;
	tr = stream_match(h, hd_task_key(pid, dev, stream, task), t);
	if (st->launch_free == HD_END) {
		void *p = realloc(st->chunk, (st->nchunk + 1) * sizeof(*st->chunk));
		struct hd_launch *c;

		if (!p || st->nchunk >= HD_END / HS_CHUNK - 1) {
			st->err = -ENOMEM;
			return NULL;
		}
		st->chunk = p;
		c = calloc(HS_CHUNK, sizeof(*c));
		if (!c) {
			st->err = -ENOMEM;
			return NULL;
		}
		st->chunk[st->nchunk++] = c;
		for (size_t i = HS_CHUNK; i-- > 0;) {
			c[i].next_free = st->launch_free;
			c[i].self = (uint32_t)((st->nchunk - 1) * HS_CHUNK + i);
			st->launch_free = c[i].self;
		}
	}
	l = &st->chunk[st->launch_free / HS_CHUNK][st->launch_free % HS_CHUNK];
	st->launch_free = l->next_free;
	l->next_free = HD_END;
	l->tracked = tr != NULL;
	l->has_api = 0;
	l->api_conn = 0;
	if (tr) {
		l->tr = *tr;
	} else if (pid) {
		/* an uninstrumented launch: the API open on its thread */
		const struct hd_api *a = stream_enclosing(h, pid, tid, t);

		if (a) {
			l->has_api = 1;
			l->api_conn = a->r.connection_id;
		}
	}
	return l;
}

void hostdata_release(struct hostdata *h, const struct hd_launch *l)
{
	struct hd_stream *st = h->stream;
	struct hd_launch *m;

	if (!st || !l || l->self == HD_END)
		return;
	m = &st->chunk[l->self / HS_CHUNK][l->self % HS_CHUNK];
	m->next_free = st->launch_free;
	st->launch_free = m->self;
}

static void stream_free(struct hd_stream *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < st->nfile; i++) {
		if (st->file[i].fd >= 0)
			close(st->file[i].fd);
		free(st->file[i].path);
	}
	for (size_t i = 0; i < st->ncur; i++) {
		free(st->cur[i].off);
		free(st->cur[i].len);
		free(st->cur[i].buf);
	}
	for (size_t i = 0; i < st->nchunk; i++)
		free(st->chunk[i]);
	free(st->chunk);
	free(st->file);
	free(st->cur);
	free(st->heap);
	free(st->pend);
	free(st->cdet);
	free(st->hdet);
	free(st->win);
	free(st->fifo);
	free(st->scratch);
	u64map_free(&st->cur_at);
	u64map_free(&st->pend_at);
	u64map_free(&st->cdet_at);
	u64map_free(&st->hdet_at);
	free(st);
}

static const struct hd_compute *stream_compute(const struct hostdata *h, uint64_t key,
					       uint32_t batch)
{
	const struct hd_stream *st = h->stream;
	uint64_t v;

	if (!u64map_get(&st->cdet_at, key, &v))
		return NULL;
	for (unsigned k = 0; k < st->cdet[v].used; k++)
		if (st->cdet[v].c[k].r.batch_id == batch)
			return &st->cdet[v].c[k];
	return NULL;
}

static const struct hd_hccl_task *stream_htask(const struct hostdata *h, uint64_t key,
					       uint32_t batch)
{
	const struct hd_stream *st = h->stream;
	uint64_t v;

	if (!u64map_get(&st->hdet_at, key, &v))
		return NULL;
	for (unsigned k = 0; k < st->hdet[v].used; k++)
		if (st->hdet[v].t[k].r.batch_id == batch)
			return &st->hdet[v].t[k];
	return NULL;
}

static int decode_fd(int fd, const char *path, struct load_ctx *ctx,
		     struct npuprof_host_file_info *info, struct npuprof_host_decode_stats *stats,
		     char *err, size_t errlen);

/* Pass 1 of hostdata_open over one stream: mapped, decoded in place,
 * its pages given back behind the decoder; the file stays open for pass 2. */
static int decode_indexed(const char *path, struct load_ctx *ctx,
			  struct npuprof_host_file_info *info,
			  struct npuprof_host_decode_stats *stats, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		int r = -errno;

		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return r;
	}
	return decode_fd(fd, path, ctx, info, stats, err, errlen);
}

/* decode_indexed on an open file (closed here or by hostdata_free). */
static int decode_fd(int fd, const char *path, struct load_ctx *ctx,
		     struct npuprof_host_file_info *info, struct npuprof_host_decode_stats *stats,
		     char *err, size_t errlen)
{
	struct hd_stream *st = ctx->h->stream;
	struct stat sb;
	void *map = NULL;
	int r;

	if (fstat(fd, &sb)) {
		r = -errno;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		close(fd);
		return r;
	}
	if (!S_ISREG(sb.st_mode)) {
		close(fd);
		snprintf(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	if (sb.st_size > 0) {
		map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			r = -errno;
			close(fd);
			snprintf(err, errlen, "%s: cannot map: %s", path, strerror(-r));
			return r;
		}
		madvise(map, (size_t)sb.st_size, MADV_SEQUENTIAL);
	}
	if (st->nfile % 16 == 0) {
		void *p = realloc(st->file, (st->nfile + 16) * sizeof(*st->file));

		if (!p) {
			ctx->oom = 1;
			r = -ENOMEM;
			goto out;
		}
		st->file = p;
	}
	st->file[st->nfile].fd = fd;
	st->file[st->nfile].pid = ctx->pid;
	st->file[st->nfile].path = strdup(path);
	ctx->file = (uint32_t)st->nfile++;
	fd = -1; /* closed by hostdata_free */
	ctx->base = ctx->dropped = map;
	ctx->len = (size_t)sb.st_size;
	ctx->cur = -1;
	r = npuprof_host_decode_buffer(map ? map : "", (size_t)sb.st_size, path, on_rec, ctx, info,
				       stats, err, errlen);
	if (range_close(ctx) < 0)
		ctx->oom = 1;
out:
	if (map)
		munmap(map, (size_t)sb.st_size);
	if (fd >= 0)
		close(fd);
	return r;
}

/* The reports libprofapi.so refused during a stream's collection. */
static void refused_warning(struct hostdata *h, const struct load_ctx *ctx, const char *path,
			    FILE *warn)
{
	_Static_assert(sizeof(struct npuprof_hrec_msprof_bad) ==
			       sizeof(struct npuprof_hrec_header) + 6 * sizeof(uint64_t),
		       "MSPROF_BAD: six counts");
	if (ctx->refused[0] || ctx->refused[1] || ctx->refused[2] || ctx->refused[3] ||
	    ctx->refused[4] || ctx->refused[5]) {
		for (int i = 0; i < 6; i++)
			h->refused[i] += ctx->refused[i];
		fprintf(warn,
			"npuprof export: warning: %s: libprofapi.so refused reports during the collection (not recorded): %llu NULL, %llu with a wrong magic, %llu of a wrong length or dataLen, %llu of an unregistered (level, type), %llu after MsprofFinalize, %llu with the thread's buffer full\n",
			path, (unsigned long long)ctx->refused[0],
			(unsigned long long)ctx->refused[1], (unsigned long long)ctx->refused[2],
			(unsigned long long)ctx->refused[3], (unsigned long long)ctx->refused[4],
			(unsigned long long)ctx->refused[5]);
	}
}

/*
 * A stream's CANN reports, turned into npuprof's records by msprof's rules
 * (cannrec.h) at the stream's end, come as one more stream of the same
 * process that both readers decode like the others: hostdata_load from
 * memory, hostdata_open from an unlinked temporary file that pass 2 reads
 * again. What the rules could not use is named in a warning.
 */
static int cann_stream(struct hostdata *h, struct load_ctx *ctx, const char *path,
		       const struct npuprof_host_file_info *info, FILE *warn, char *err,
		       size_t errlen)
{
	struct cann_stats cs;
	struct npuprof_host_decode_stats st;
	struct npuprof_host_file_info si;
	struct load_ctx sctx = {
		.h = h, .pid = ctx->pid, .stream = ctx->stream, .keep_api = ctx->keep_api, .cur = -1
	};
	char name[4400], derr[512] = "";
	uint8_t *buf = NULL;
	size_t len = 0;
	int r;

	if (!cann_reports(ctx->cann))
		return 0;
	r = cann_finish(ctx->cann, &info->header, &h->cann_next_conn, &h->cann_next_op, &buf, &len,
			&cs);
	if (r == -EOVERFLOW) {
		h->damaged_files++;
		fprintf(warn,
			"npuprof export: error: %s: more connectionIds than fit below %llu; its CANN reports are not exported\n",
			path, (unsigned long long)NPUPROF_MSTX_HOST_CONNECTION);
		return 0;
	}
	if (r < 0) {
		snprintf(err, errlen, "out of memory turning the CANN reports of %s into records",
			 path);
		return r;
	}
	h->cann.reports += cs.reports;
	h->cann.unknown_level += cs.unknown_level;
	h->cann.unregistered += cs.unregistered;
	h->cann.unpaired_events += cs.unpaired_events;
	h->cann.zero_begin += cs.zero_begin;
	h->cann.bad_payload += cs.bad_payload;
	h->cann.orphan_ext += cs.orphan_ext;
	h->cann.orphan_detail += cs.orphan_detail;
	if (cs.unknown_level || cs.unregistered || cs.unpaired_events || cs.zero_begin ||
	    cs.bad_payload || cs.orphan_ext || cs.orphan_detail)
		fprintf(warn,
			"npuprof export: warning: %s: CANN reports left out or named by number: %llu of an unknown level, %llu of an unregistered (level, type), %llu event starts without an end, %llu APIs with beginTime 0, %llu payloads shorter than their kind, %llu npuprof_task_ext without their task track, %llu details without their node API or task track\n",
			path, (unsigned long long)cs.unknown_level,
			(unsigned long long)cs.unregistered, (unsigned long long)cs.unpaired_events,
			(unsigned long long)cs.zero_begin, (unsigned long long)cs.bad_payload,
			(unsigned long long)cs.orphan_ext, (unsigned long long)cs.orphan_detail);
	snprintf(name, sizeof(name), "%s (its CANN reports)", path);
	if (!ctx->stream) {
		r = npuprof_host_decode_buffer(buf, len, name, on_rec, &sctx, &si, &st, derr,
					       sizeof(derr));
	} else {
		const char *tmp = getenv("TMPDIR");
		char tmpl[4200];
		int fd;
		size_t off = 0;

		snprintf(tmpl, sizeof(tmpl), "%s/npuprof-cann-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd < 0) {
			r = -errno;
			snprintf(err, errlen, "%s: cannot create a temporary file for %s: %s", tmpl,
				 name, strerror(errno));
			free(buf);
			return r;
		}
		unlink(tmpl);
		while (off < len) {
			ssize_t n = write(fd, buf + off, len - off);

			if (n <= 0) {
				r = n < 0 ? -errno : -EIO;
				snprintf(err, errlen,
					 "%s: cannot write a temporary file for %s: %s", tmpl, name,
					 strerror(-r));
				close(fd);
				free(buf);
				return r;
			}
			off += (size_t)n;
		}
		r = decode_fd(fd, name, &sctx, &si, &st, derr, sizeof(derr));
	}
	free(buf);
	if (sctx.oom) {
		snprintf(err, errlen, "out of memory loading %s", name);
		return -ENOMEM;
	}
	if (r != 0) {
		/* what cann_finish wrote is whole: this is a bug, said as such */
		h->damaged_files++;
		fprintf(warn,
			"npuprof export: error: %s (internal: the stream made of CANN reports)\n",
			derr);
	}
	return 0;
}

static int load(struct hostdata *h, const char *dir, unsigned flags, FILE *warn, char *err,
		size_t errlen)
{
	char pattern[4352], hdir[4352];
	glob_t g;
	DIR *d;
	int r;
	struct {
		struct load_ctx ctx;
		struct npuprof_host_file_info info;
		char *path;
	} *pend = NULL; /* streams whose CANN reports wait for the others */
	size_t npend = 0;

	memset(h, 0, sizeof(*h));
	h->warn = warn;
	h->cann_next_op = 1ULL << 62; /* apart from the runtime's op_seq values */
	if (flags & HD_STREAM) {
		h->stream = calloc(1, sizeof(*h->stream));
		if (!h->stream) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		u64map_init(&h->stream->cur_at);
		u64map_init(&h->stream->pend_at);
		u64map_init(&h->stream->cdet_at);
		u64map_init(&h->stream->hdet_at);
		h->stream->pend_free = h->stream->launch_free = HD_END;
	}
	u64map_init(&h->strings);
	u64map_init(&h->track_range);
	u64map_init(&h->compute_at);
	u64map_init(&h->htask_at);
	u64map_init(&h->opstr_at);
	u64map_init(&h->apistr_at);
	snprintf(pattern, sizeof(pattern), "%s/host/data/%s*%s", dir, NPUPROF_HOST_FILE_PREFIX,
		 NPUPROF_HOST_FILE_SUFFIX);
	snprintf(hdir, sizeof(hdir), "%s/host/data", dir);
	d = opendir(hdir);
	if (!d && errno != ENOENT) {
		fprintf(warn,
			"npuprof export: error: %s: cannot read: %s; no host data (API calls, task tracks, msproftx) exported\n",
			hdir, strerror(errno));
		h->damaged_files++;
		h->unreadable_files++;
		return 0;
	}
	if (d)
		closedir(d);
	r = glob(pattern, 0, NULL, &g);
	if (r == GLOB_NOMATCH)
		return 0; /* a kernel-only session */
	if (r != 0) {
		snprintf(err, errlen, "%s: cannot list host streams", pattern);
		return -EIO;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct npuprof_host_file_info info;
		struct npuprof_host_decode_stats st;
		struct load_ctx ctx = { .h = h,
					.stream = (flags & HD_STREAM) != 0,
					.keep_api = (flags & HD_KEEP_API) != 0,
					.cur = -1 };
		char derr[512] = "";
		const char *p = strrchr(g.gl_pathv[i], '.');

		/* the pid is in the name; the header confirms it */
		ctx.pid = (uint32_t)strtoul(strstr(g.gl_pathv[i], NPUPROF_HOST_FILE_PREFIX) +
						    strlen(NPUPROF_HOST_FILE_PREFIX),
					    NULL, 10);
		(void)p;
		memset(&st, 0, sizeof(st));
		if (ctx.stream)
			r = decode_indexed(g.gl_pathv[i], &ctx, &info, &st, derr, sizeof(derr));
		else
			r = npuprof_host_decode(g.gl_pathv[i], on_rec, &ctx, &info, &st, derr,
						sizeof(derr));
		h->files++;
		if (ctx.oom) {
			cann_close(ctx.cann);
			snprintf(err, errlen, "out of memory loading %s", g.gl_pathv[i]);
			r = -ENOMEM;
			goto fail;
		}
		if (r == 0 || r == NPUPROF_HOST_EDAMAGED)
			ctx.pid = info.header.pid ? info.header.pid : ctx.pid;
		if (r == NPUPROF_HOST_EDAMAGED) {
			h->damaged_files++;
			fprintf(warn,
				"npuprof export: warning: %s (%llu damaged blocks, %llu bytes skipped, %llu bad records; the intact records are exported)\n",
				derr, (unsigned long long)st.bad_blocks,
				(unsigned long long)st.skipped_bytes,
				(unsigned long long)st.bad_records);
		} else if (r != 0) {
			h->damaged_files++;
			h->unreadable_files++;
			fprintf(warn,
				"npuprof export: error: %s; nothing exported from it (its API calls, task tracks and msproftx events are missing)\n",
				derr);
		}
		refused_warning(h, &ctx, g.gl_pathv[i], warn);
		if ((r == 0 || r == NPUPROF_HOST_EDAMAGED) && cann_reports(ctx.cann)) {
			/* after every stream: its connectionIds follow every
			 * runtime-written one of the session */
			void *pp = realloc(pend, (npend + 1) * sizeof(*pend));

			if (!pp) {
				cann_close(ctx.cann);
				r = -ENOMEM;
				snprintf(err, errlen, "out of memory loading %s", g.gl_pathv[i]);
				goto fail;
			}
			pend = pp;
			pend[npend].ctx = ctx;
			pend[npend].info = info;
			pend[npend].path = strdup(g.gl_pathv[i]);
			npend++;
			if (!pend[npend - 1].path) {
				r = -ENOMEM;
				snprintf(err, errlen, "out of memory loading %s", g.gl_pathv[i]);
				goto fail;
			}
		} else {
			cann_close(ctx.cann);
		}
		h->lost += st.lost;
		if (h->npids < 256)
			h->pids[h->npids++] = ctx.pid;
	}
	globfree(&g);
	r = 0;
	for (size_t i = 0; i < npend; i++) {
		pend[i].ctx.cur = -1;
		if (!r)
			r = cann_stream(h, &pend[i].ctx, pend[i].path, &pend[i].info, warn, err,
					errlen);
		cann_close(pend[i].ctx.cann);
		free(pend[i].path);
	}
	free(pend);
	if (r < 0)
		return r;
	if (h->stream) {
		h->stream->heap = malloc((h->stream->ncur + 1) * sizeof(*h->stream->heap));
		if (!h->stream->heap)
			return -ENOMEM;
	}

	if (h->ntrack >= 0x80000000u || h->ncompute >= HD_END || h->nhtask >= HD_END) {
		snprintf(err, errlen, "more than %u host records of one kind", 0x7fffffffu);
		return -EOVERFLOW;
	}
	if (build_detail(&h->compute_at, &h->compute_next, h->ncompute, sizeof(*h->compute),
			 h->compute, offsetof(struct hd_compute, key),
			 offsetof(struct hd_compute, r.batch_id)) < 0 ||
	    build_detail(&h->htask_at, &h->htask_next, h->nhtask, sizeof(*h->htask), h->htask,
			 offsetof(struct hd_hccl_task, key),
			 offsetof(struct hd_hccl_task, r.batch_id)) < 0)
		return -ENOMEM;
	sort(h->hop, h->nhop, sizeof(*h->hop), cmp_hop);
	sort(h->api, h->napi, sizeof(*h->api), cmp_api);
	/* Stamp messages named by id (a HASH record may follow its first use):
	 * one that no HASH record resolves (it was in a damaged block) is
	 * exported as "". */
	for (size_t i = 0; i < h->ntx; i++)
		if (!h->tx[i].message) {
			const char *m = hostdata_str(h, h->tx[i].msg_id);

			h->tx[i].message = strdup(m ? m : "");
			if (!h->tx[i].message)
				return -ENOMEM;
		}
	sort(h->tx, h->ntx, sizeof(*h->tx), cmp_tx);

	/* opIds: dense from 1 in the order the ops were launched */
	if (h->nhop) {
		struct hd_hccl_op **order = malloc(h->nhop * sizeof(*order));

		if (!order)
			return -ENOMEM;
		for (size_t i = 0; i < h->nhop; i++)
			order[i] = &h->hop[i];
		sort(order, h->nhop, sizeof(*order), cmp_hop_time);
		for (size_t i = 0; i < h->nhop; i++)
			order[i]->op_id = (uint32_t)i + 1;
		free(order);
	}

	/* track chains per task key, in time order, with a cursor each */
	h->track_cursor = malloc((h->ntrack + 1) * sizeof(*h->track_cursor));
	h->track_next = malloc((h->ntrack + 1) * sizeof(*h->track_next));
	if (!h->track_cursor || !h->track_next)
		return -ENOMEM;
	for (size_t i = 0; i < h->ntrack; i++) {
		uint64_t v;
		uint32_t last;

		h->track_cursor[i] = (uint32_t)i;
		if (!u64map_get(&h->track_range, track_key(&h->track[i]), &v)) {
			h->track_next[i] = HD_END;
			if (u64map_put(&h->track_range, track_key(&h->track[i]),
				       (uint64_t)i | ((uint64_t)i << 32)) < 0)
				return -ENOMEM;
			continue;
		}
		last = (uint32_t)(v >> 32);
		if (h->track[last].r.time_ns > h->track[i].r.time_ns)
			/* out of time order (tracks of one key from several
			 * threads): bit 31 of the first's cursor asks for a sort */
			h->track_cursor[(uint32_t)v] |= 0x80000000u;
		h->track_next[last] = (uint32_t)i;
		h->track_next[i] = HD_END;
		if (u64map_put(&h->track_range, track_key(&h->track[i]),
			       (v & 0xffffffffULL) | ((uint64_t)i << 32)) < 0)
			return -ENOMEM;
	}
	for (size_t i = 0; i < h->ntrack; i++) {
		uint64_t v;
		uint32_t first;

		u64map_get(&h->track_range, track_key(&h->track[i]), &v);
		first = (uint32_t)v;
		if (first != i)
			continue; /* once per chain, at its first record */
		if (h->track_cursor[i] & 0x80000000u) {
			h->track_cursor[i] = (uint32_t)i;
			if (sort_chain(h, track_key(&h->track[i]), first) < 0)
				return -ENOMEM;
			u64map_get(&h->track_range, track_key(&h->track[i]), &v);
			h->track_cursor[(uint32_t)v] = (uint32_t)v;
		} else if (u64map_put(&h->track_range, track_key(&h->track[i]), first) < 0) {
			return -ENOMEM;
		}
	}
	return 0;
fail:
	globfree(&g);
	for (size_t i = 0; i < npend; i++) {
		cann_close(pend[i].ctx.cann);
		free(pend[i].path);
	}
	free(pend);
	return r;
}

int hostdata_load(struct hostdata *h, const char *dir, FILE *warn, char *err, size_t errlen)
{
	return load(h, dir, 0, warn, err, errlen);
}

int hostdata_open(struct hostdata *h, const char *dir, unsigned flags, FILE *warn, char *err,
		  size_t errlen)
{
	int r = load(h, dir, flags | HD_STREAM, warn, err, errlen);

	if (r >= 0)
		r = hostdata_rewind(h, NULL, NULL, NULL);
	return r;
}

void hostdata_free(struct hostdata *h)
{
	stream_free(h->stream);
	for (size_t i = 0; i < h->ntx; i++)
		free(h->tx[i].message);
	for (size_t i = 0; i < h->nstr; i++)
		free(h->strv[i]);
	free(h->strv);
	free(h->api);
	free(h->track);
	free(h->compute);
	free(h->opstr);
	free(h->apistr);
	free(h->hop);
	free(h->htask);
	free(h->tx);
	free(h->step);
	free(h->rank);
	free(h->fop);
	free(h->fmem);
	free(h->fgc);
	free(h->track_cursor);
	free(h->track_next);
	free(h->compute_next);
	free(h->htask_next);
	u64map_free(&h->strings);
	u64map_free(&h->track_range);
	u64map_free(&h->compute_at);
	u64map_free(&h->htask_at);
	u64map_free(&h->opstr_at);
	u64map_free(&h->apistr_at);
	memset(h, 0, sizeof(*h));
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

uint32_t *hostdata_track_order(const struct hostdata *h)
{
	const struct u64map *m = &h->track_range;
	uint64_t *keys = malloc((m->len + 1) * sizeof(*keys));
	uint32_t *order = malloc((h->ntrack + 1) * sizeof(*order));
	size_t nk = 0, n = 0;

	if (!keys || !order) {
		free(keys);
		free(order);
		return NULL;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->used[i])
			keys[nk++] = m->keys[i];
	if (nk > 1)
		qsort(keys, nk, sizeof(*keys), cmp_u64);
	for (size_t k = 0; k < nk; k++) {
		uint64_t first;

		u64map_get(m, keys[k], &first);
		for (uint32_t i = (uint32_t)first; i != HD_END && n < h->ntrack;
		     i = h->track_next[i])
			order[n++] = i;
	}
	free(keys);
	return order;
}

const char *hostdata_str(const struct hostdata *h, uint64_t id)
{
	uint64_t idx;

	if (id == NPUPROF_HREC_NO_STRING)
		return "";
	if (!u64map_get(&h->strings, id, &idx))
		return NULL;
	return h->strv[idx];
}

const struct hd_track *hostdata_match_track(struct hostdata *h, uint32_t pid, uint32_t dev,
					    uint32_t stream, uint32_t task, uint64_t t)
{
	uint64_t first;
	uint32_t cur;
	const struct hd_track *best = NULL;

	if (h->stream)
		return stream_match(h, hd_task_key(pid, dev, stream, task), t);
	if (!u64map_get(&h->track_range, hd_task_key(pid, dev, stream, task), &first))
		return NULL;
	cur = h->track_cursor[first];
	while (cur != HD_END && h->track[cur].r.time_ns <= t + TRACK_SLACK_NS) {
		best = &h->track[cur];
		cur = h->track_next[cur];
	}
	h->track_cursor[first] = cur;
	return best;
}

#define DETAIL_FIND(fn, type, arr, at, next)                                                  \
	const type *fn(const struct hostdata *h, uint32_t pid, uint32_t dev, uint32_t stream, \
		       uint32_t task, uint32_t batch)                                         \
	{                                                                                     \
		uint64_t k = hd_task_key(pid, dev, stream, task), i;                          \
		if (h->stream)                                                                \
			return stream_##arr(h, k, batch);                                     \
		if (!u64map_get(&h->at, detail_hash(k, batch), &i))                           \
			return NULL;                                                          \
		for (i &= 0xffffffffULL; i != HD_END; i = h->next[i]) {                       \
			const type *m = &h->arr[i];                                           \
			if (m->key == k && m->r.batch_id == batch)                            \
				return m;                                                     \
		}                                                                             \
		return NULL;                                                                  \
	}
DETAIL_FIND(hostdata_compute, struct hd_compute, compute, compute_at, compute_next)
DETAIL_FIND(hostdata_hccl_task, struct hd_hccl_task, htask, htask_at, htask_next)

struct hd_hccl_op *hostdata_hccl_op(struct hostdata *h, uint32_t pid, uint64_t op_seq)
{
	size_t lo = 0, hi = h->nhop;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct hd_hccl_op *m = &h->hop[mid];

		if (m->pid < pid || (m->pid == pid && m->r.op_seq < op_seq))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < h->nhop && h->hop[lo].pid == pid && h->hop[lo].r.op_seq == op_seq)
		return &h->hop[lo];
	return NULL;
}

const struct hd_api *hostdata_enclosing_api(struct hostdata *h, uint32_t pid, uint32_t tid,
					    uint64_t t)
{
	size_t lo = 0, hi = h->napi;
	const struct hd_api *best = NULL;

	if (h->stream)
		return stream_enclosing(h, pid, tid, t);
	/* first API of (pid, tid) starting after t */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct hd_api *m = &h->api[mid];

		if (m->pid < pid ||
		    (m->pid == pid && (m->r.tid < tid || (m->r.tid == tid && m->r.start_ns <= t))))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* walk back over ranges that start before t; the latest-starting one
	 * that still contains t is the innermost (APIs nest on a thread) */
	for (size_t i = lo; i-- > 0;) {
		const struct hd_api *m = &h->api[i];

		if (m->pid != pid || m->r.tid != tid)
			break;
		if (m->r.end_ns >= t &&
		    (m->r.level == NPUPROF_API_NODE || m->r.level == NPUPROF_API_ACL)) {
			best = m;
			break;
		}
		if (t - m->r.start_ns > 60000000000ULL)
			break; /* nothing open that long ago */
	}
	return best;
}
