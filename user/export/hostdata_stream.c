/*
 * hostdata_stream.c — the streaming engine (hostdata_open, the export): the
 * per-task records indexed by block in pass 1 and merged per thread in time
 * order in pass 2.
 */
#include "hostdata.h"
#include "hostdata_engine.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
	uint8_t *buf; /* a span of the file: ranges read together (next_range) */
	size_t cap;
	uint64_t span_off; /* the span's offset in the file */
	uint32_t span_len; /* its bytes in buf */
	uint32_t pos, n; /* the range being merged: buf[pos, n) */
	uint64_t key, last; /* the head's merge time; the last one merged */
	int live;
};

struct hs_pend {
	struct hostdata_track t;
	uint32_t next; /* in time order; HOSTDATA_END: the last */
};

struct hs_cdet {
	struct hostdata_compute c[HS_BATCHES];
	uint8_t used, next;
};
struct hs_hdet {
	struct hostdata_hccl_task t[HS_BATCHES];
	uint8_t used, next;
};

struct hostdata_stream {
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
	struct hostdata_api *win;
	size_t winhead, nwin, capwin, winlive; /* winlive: after the last compaction */
	struct hostdata_api ahead; /* found by reading ahead */
	struct hostdata_track matched;
	/* host-only sessions: tracks merged, written in merge order once the
	 * merge is past their details */
	struct hostdata_track *fifo;
	size_t fhead, nfifo, capfifo;
	/* launches (hostdata_launch) */
	struct hostdata_launch **chunk;
	size_t nchunk;
	uint32_t launch_free;
	hostdata_api_fn on_api;
	hostdata_task_fn on_task;
	void *ctx;
	int draining;
	int err;
	uint8_t *scratch; /* read-ahead */
	size_t capscratch;
};

/* Pass 1's state over one file (hostdata_load_ctx.index). */
struct hs_index {
	const uint8_t *base, *dropped; /* the file's mapping; pages below given back */
	size_t len;
	uint32_t file;
	int64_t cur; /* cursor of the open range, -1 none */
	uint64_t seq, start, end; /* the open range's block and bytes */
	int has_task; /* the open range holds per-task records */
};

/* h's merge state, or NULL if h was not opened by hostdata_open. */
static struct hostdata_stream *stream_of(const struct hostdata *h)
{
	return h->eng == &hostdata_stream_engine ? h->eng_state : NULL;
}

static struct hs_cursor *cursor_for(struct hostdata *h, uint32_t file, uint32_t pid, uint32_t tid)
{
	struct hostdata_stream *st = stream_of(h);
	uint64_t k = (uint64_t)file << 32 | tid, v;

	if (u64map_get(&st->cur_at, k, &v))
		return &st->cur[v];
	if (st->ncur >= HOSTDATA_END)
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
static int range_close(struct hostdata_load_ctx *ctx)
{
	struct hs_cursor *c;

	if (ctx->index->cur < 0)
		return 0;
	c = &stream_of(ctx->h)->cur[ctx->index->cur];
	ctx->index->cur = -1;
	if (!ctx->index->has_task)
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
	c->off[c->nblk] = ctx->index->start;
	c->len[c->nblk++] = (uint32_t)(ctx->index->end - ctx->index->start);
	return 0;
}

static int per_task(uint16_t kind)
{
	return kind == NPUPROF_HOSTFMT_API || kind == NPUPROF_HOSTFMT_TASK_TRACK ||
	       kind == NPUPROF_HOSTFMT_COMPUTE_OP || kind == NPUPROF_HOSTFMT_HCCL_TASK;
}

/* Pass 1: the byte range of the block this record is in (index_record,
 * for a record that does not continue the open range). */
__attribute__((noinline)) static int index_record_slow(struct hostdata_load_ctx *ctx,
						       const struct npuprof_hostfmt_block_header *b,
						       const struct npuprof_hostfmt_header *rec)
{
	const uint8_t *at = (const uint8_t *)rec;
	uint64_t off;

	if (!ctx->index->base || at < ctx->index->base ||
	    at >= ctx->index->base + ctx->index->len) {
		/* a copy: the decoder converted its TSC times (msproftx stamps,
		 * loaded whole); it stands where its block's next record is */
		if (ctx->index->cur >= 0 && b->seq == ctx->index->seq &&
		    stream_of(ctx->h)->cur[ctx->index->cur].tid == b->tid)
			ctx->index->end += rec->size;
		return 0;
	}
	off = (uint64_t)(at - ctx->index->base);

	/* pages behind the decoder are given back as it goes */
	if (at - ctx->index->dropped > (ptrdiff_t)(16u << 20)) {
		const uint8_t *upto = ctx->index->base +
				      ((size_t)(at - (8u << 20) - ctx->index->base) &
				       ~(size_t)((8u << 20) - 1));

		if (upto > ctx->index->dropped) {
			madvise((void *)ctx->index->dropped, (size_t)(upto - ctx->index->dropped),
				MADV_DONTNEED);
			ctx->index->dropped = upto;
		}
	}
	if (ctx->index->cur < 0 || b->seq != ctx->index->seq || off != ctx->index->end ||
	    stream_of(ctx->h)->cur[ctx->index->cur].tid != b->tid) {
		struct hs_cursor *c;

		if (range_close(ctx) < 0)
			return -ENOMEM;
		c = cursor_for(ctx->h, ctx->index->file, ctx->pid, b->tid);
		if (!c)
			return -ENOMEM;
		ctx->index->cur = c - stream_of(ctx->h)->cur;
		ctx->index->seq = b->seq;
		ctx->index->start = off;
		ctx->index->has_task = 0;
	}
	ctx->index->end = off + rec->size;
	ctx->index->has_task |= per_task(rec->kind);
	return 0;
}

/* Pass 1, once per record: the next record of the open range (a range lies
 * in one block: the next block's records start after its header, never at
 * the range's end) only extends it. */
static int index_record(struct hostdata_load_ctx *ctx, const struct npuprof_hostfmt_block_header *b,
			const struct npuprof_hostfmt_header *rec)
{
	struct hs_index *ix = ctx->index;

	if (ix->cur >= 0 && ix->end < ix->len && (const uint8_t *)rec == ix->base + ix->end &&
	    b->seq == ix->seq) {
		ix->end += rec->size;
		ix->has_task |= per_task(rec->kind);
		return 0;
	}
	return index_record_slow(ctx, b, rec);
}

/* Pass 1's record handler: a task track, compute op or HCCL task, and an
 * API call unless every call is loaded (HOSTDATA_KEEP_API), is only indexed
 * here (the merge decodes it; the engine has no per_task hook), so it skips
 * hostdata_on_rec; every other record goes through it. */
static int index_on_rec(void *vctx, const struct npuprof_hostfmt_block_header *b,
			const struct npuprof_hostfmt_header *rec)
{
	struct hostdata_load_ctx *ctx = vctx;

	switch (rec->kind) {
	case NPUPROF_HOSTFMT_API:
		if (ctx->keep_api)
			break;
		hostdata_note_conn(ctx->h, rec);
		/* fall through */
	case NPUPROF_HOSTFMT_TASK_TRACK:
	case NPUPROF_HOSTFMT_COMPUTE_OP:
	case NPUPROF_HOSTFMT_HCCL_TASK:
		if (index_record(ctx, b, rec) < 0) {
			ctx->oom = 1;
			return -ENOMEM;
		}
		return 0;
	}
	return hostdata_on_rec(vctx, b, rec);
}

/* The time a per-task record is merged at (valid size checked); 0 if it
 * is not one the merge handles. */
static int rec_time(const struct npuprof_hostfmt_header *r, uint64_t *t)
{
	switch (r->kind) {
	case NPUPROF_HOSTFMT_API:
		if (r->size < sizeof(struct npuprof_hostfmt_api))
			return 0;
		*t = ((const struct npuprof_hostfmt_api *)r)->end_ns; /* written at its end */
		return 1;
	case NPUPROF_HOSTFMT_TASK_TRACK:
		if (r->size < sizeof(struct npuprof_hostfmt_task_track))
			return 0;
		*t = ((const struct npuprof_hostfmt_task_track *)r)->time_ns;
		return 1;
	case NPUPROF_HOSTFMT_COMPUTE_OP:
		if (r->size < sizeof(struct npuprof_hostfmt_compute_op))
			return 0;
		*t = ((const struct npuprof_hostfmt_compute_op *)r)->time_ns;
		return 1;
	case NPUPROF_HOSTFMT_HCCL_TASK:
		if (r->size < sizeof(struct npuprof_hostfmt_hccl_task))
			return 0;
		*t = ((const struct npuprof_hostfmt_hccl_task *)r)->time_ns;
		return 1;
	}
	return 0;
}

/* Reads len bytes of c's file at off into buf (grown as needed): the
 * bytes read, or -1 (out of memory, or fewer than need: warned). */
static int64_t read_at(struct hostdata *h, struct hs_cursor *c, uint64_t off, size_t need,
		       size_t len, uint8_t **buf, size_t *cap)
{
	struct hostdata_stream *st = stream_of(h);
	struct timespec t0, t1;
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
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	n = pread(st->file[c->file].fd, *buf, len, (off_t)off);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	h->read_ns += (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000LL + t1.tv_nsec - t0.tv_nsec);
	if (n < (ssize_t)need) {
		/* it was there in pass 1: the file changed under us */
		h->damaged_files++;
		fprintf(h->warn ? h->warn : stderr,
			"npuprof export: error: %s: offset %llu: cannot read again (%s); the rest of thread %u's records are missing\n",
			st->file[c->file].path, (unsigned long long)off,
			n < 0 ? strerror(errno) : "file shrank", c->tid);
		return -1;
	}
	return (int64_t)n;
}

/* Reads range i of cursor c into buf (grown as needed); its length, or -1. */
static int64_t read_range(struct hostdata *h, struct hs_cursor *c, size_t i, uint8_t **buf,
			  size_t *cap)
{
	return read_at(h, c, c->off[i], c->len[i], c->len[i], buf, cap);
}

/* A cursor reads its ranges a span at a time: the ranges that follow
 * with gaps of at most SPAN_GAP (the other threads' blocks, block headers)
 * up to SPAN_MAX bytes, with one pread. A range a read was a block of a few
 * KiB: one system call every ~20 records, a tenth of the export's time. */
#define SPAN_MAX (64u << 10)
#define SPAN_GAP (8u << 10)

/* c's next range (c->ib) into buf[pos, n): from the span read, else a new
 * span read from it on. 0, or -1 (out of memory, or warned: the file
 * changed). */
static int next_range(struct hostdata *h, struct hs_cursor *c)
{
	size_t i = c->ib, j;
	uint64_t off = c->off[i], end = off + c->len[i];
	int64_t n;

	if (off >= c->span_off && end <= c->span_off + c->span_len) {
		c->pos = (uint32_t)(off - c->span_off);
		c->n = c->pos + c->len[i];
		c->ib++;
		return 0;
	}
	for (j = i + 1; j < c->nblk && c->off[j] >= end && c->off[j] - end <= SPAN_GAP &&
			c->off[j] + c->len[j] - off <= SPAN_MAX;
	     j++)
		end = c->off[j] + c->len[j];
	c->span_len = 0;
	n = read_at(h, c, off, c->len[i], end - off, &c->buf, &c->cap);
	if (n < 0)
		return -1;
	c->span_off = off;
	c->span_len = (uint32_t)n;
	c->pos = 0;
	c->n = c->len[i];
	c->ib++;
	return 0;
}

/* Moves c to its next per-task record; its merge key. 0: none left. */
static int cursor_peek(struct hostdata *h, struct hs_cursor *c)
{
	for (;;) {
		while (c->pos + sizeof(struct npuprof_hostfmt_header) <= c->n) {
			const struct npuprof_hostfmt_header *r = (const void *)(c->buf + c->pos);
			uint64_t t;

			if (r->size < sizeof(*r) || (r->size & (NPUPROF_HOSTFMT_ALIGN - 1)) ||
			    r->size > c->n - c->pos) {
				c->pos = c->n; /* changed since pass 1: the range is dropped */
				break;
			}
			if (rec_time(r, &t)) {
				/* an API call neither holds its thread back nor moves
				 * it on: it is written at its end, or, replayed, ahead
				 * of its time (aclnpuRecordApi); merged when reached */
				if (r->kind == NPUPROF_HOSTFMT_API)
					t = c->last;
				c->key = t > c->last ? t : c->last;
				return 1;
			}
			c->pos += r->size;
		}
		if (c->ib >= c->nblk || next_range(h, c) < 0) {
			c->ib = c->nblk;
			return 0;
		}
	}
}

static int heap_less(const struct hostdata_stream *st, uint32_t a, uint32_t b)
{
	if (st->cur[a].key != st->cur[b].key)
		return st->cur[a].key < st->cur[b].key;
	return a < b;
}

static void heap_down(struct hostdata_stream *st, size_t i)
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
static int pend_add(struct hostdata_stream *st, const struct hostdata_track *t)
{
	uint64_t key = hostdata_track_key(t), v;
	uint32_t i, head, tail;

	if (st->pend_free != HOSTDATA_END) {
		i = st->pend_free;
		st->pend_free = st->pend[i].next;
	} else {
		if (st->npend >= HOSTDATA_END - 1)
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
	st->pend[i].next = HOSTDATA_END;
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

		while (st->pend[p].next != HOSTDATA_END &&
		       st->pend[st->pend[p].next].t.r.time_ns <= t->r.time_ns)
			p = st->pend[p].next;
		st->pend[i].next = st->pend[p].next;
		st->pend[p].next = i;
	}
	while (st->pend[head].next != HOSTDATA_END &&
	       st->pend[st->pend[head].next].t.r.time_ns <= st->w) {
		uint32_t n = st->pend[head].next;

		st->pend[head].next = st->pend_free;
		st->pend_free = head;
		head = n;
	}
	return u64map_put(&st->pend_at, key, (uint64_t)head | (uint64_t)tail << 32);
}

#define DET_PUT(fn, dtype, rtype, arr, n, cap, at, field)                          \
	static int fn(struct hostdata_stream *st, const rtype *d)                  \
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
DET_PUT(cdet_put, struct hs_cdet, struct hostdata_compute, cdet, ncdet, capcdet, cdet_at, c)
DET_PUT(hdet_put, struct hs_hdet, struct hostdata_hccl_task, hdet, nhdet, caphdet, hdet_at, t)

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
	struct hostdata_stream *st = stream_of(h);
	const struct npuprof_hostfmt_header *r = (const void *)(c->buf + c->pos);
	int e = 0;

	switch (r->kind) {
	case NPUPROF_HOSTFMT_API: {
		struct hostdata_api a;

		e = hostdata_decode_api(h, c->pid, r, &a);
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
	case NPUPROF_HOSTFMT_TASK_TRACK: {
		struct hostdata_track t;

		hostdata_decode_track(c->pid, r, &t);
		if (st->on_task) {
			void *ring = st->fifo;

			e = ring_push(&ring, &st->fhead, &st->nfifo, &st->capfifo, &t, sizeof(t));
			st->fifo = ring;
		} else if (!st->draining) {
			e = pend_add(st, &t);
		}
		break;
	}
	case NPUPROF_HOSTFMT_COMPUTE_OP: {
		struct hostdata_compute d;

		e = hostdata_decode_compute(h, c->pid, r, &d);
		if (!e)
			e = cdet_put(st, &d);
		break;
	}
	case NPUPROF_HOSTFMT_HCCL_TASK: {
		struct hostdata_hccl_task d;

		hostdata_decode_htask(c->pid, r, &d);
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
	struct hostdata_stream *st = stream_of(h);

	while (st->nfifo && !st->err) {
		const struct hostdata_track *t = &st->fifo[st->fhead];

		if (!all && st->nheap && st->cur[st->heap[0]].key <= t->r.time_ns + 2 * HS_AHEAD_NS)
			return;
		st->on_task(st->ctx, t);
		st->fhead = (st->fhead + 1) % st->capfifo;
		st->nfifo--;
	}
}

int hostdata_advance(struct hostdata *h, uint64_t t)
{
	struct hostdata_stream *st = stream_of(h);

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
			const struct hostdata_api *a = &st->win[(st->winhead + j) % st->capwin];

			if (a->r.end_ns >= low)
				st->win[(st->winhead + k++) % st->capwin] = *a;
		}
		st->nwin = k;
		st->winlive = k;
	}
	return st->err;
}

int hostdata_rewind(struct hostdata *h, hostdata_api_fn on_api, hostdata_task_fn on_task, void *ctx)
{
	struct hostdata_stream *st = stream_of(h);

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
	st->pend_free = HOSTDATA_END;
	u64map_free(&st->pend_at);
	st->ncdet = st->nhdet = 0;
	u64map_free(&st->cdet_at);
	u64map_free(&st->hdet_at);
	st->nwin = st->winhead = st->winlive = 0;
	st->nfifo = st->fhead = 0;
	/* every launch is free again */
	st->launch_free = HOSTDATA_END;
	for (size_t i = st->nchunk * HS_CHUNK; i-- > 0;) {
		st->chunk[i / HS_CHUNK][i % HS_CHUNK].next_free = st->launch_free;
		st->launch_free = (uint32_t)i;
	}
	st->nheap = 0;
	for (size_t i = 0; i < st->ncur; i++) {
		struct hs_cursor *c = &st->cur[i];

		c->ib = 0;
		c->pos = c->n = 0;
		c->span_len = 0;
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
	if (!stream_of(h))
		return 0;
	stream_of(h)->draining = 1;
	return hostdata_advance(h, UINT64_MAX);
}

static const struct hostdata_track *stream_match(struct hostdata *h, uint64_t key, uint64_t t)
{
	struct hostdata_stream *st = stream_of(h);
	uint64_t v, lim = t + TRACK_SLACK_NS;
	uint32_t i, found = HOSTDATA_END;

	hostdata_advance(h, lim + HS_AHEAD_NS);
	if (lim > st->w)
		st->w = lim;
	if (!u64map_get(&st->pend_at, key, &v))
		return NULL;
	i = (uint32_t)v;
	while (i != HOSTDATA_END && st->pend[i].t.r.time_ns <= lim) {
		uint32_t n = st->pend[i].next;

		if (found != HOSTDATA_END) {
			st->pend[found].next = st->pend_free;
			st->pend_free = found;
		}
		found = i;
		i = n;
	}
	if (found == HOSTDATA_END)
		return NULL;
	st->matched = st->pend[found].t;
	st->pend[found].next = st->pend_free;
	st->pend_free = found;
	if (i == HOSTDATA_END)
		u64map_del(&st->pend_at, key);
	else
		u64map_put(&st->pend_at, key, (uint64_t)i | (v & 0xffffffff00000000ULL));
	return &st->matched;
}

/* Reading ahead on (pid, tid)'s own cursor, without merging: the first
 * node/acl-level call there (they are in end order) that encloses t. */
static const struct hostdata_api *read_ahead(struct hostdata *h, uint32_t pid, uint32_t tid,
					     uint64_t t)
{
	struct hostdata_stream *st = stream_of(h);
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
			while (pos + sizeof(struct npuprof_hostfmt_header) <= n) {
				const struct npuprof_hostfmt_header *r = (const void *)(buf + pos);
				uint64_t rt;

				if (r->size < sizeof(*r) || r->size > n - pos)
					break;
				pos += r->size;
				if (!rec_time(r, &rt))
					continue;
				if (rt > t + HS_OPEN_NS)
					goto next; /* nothing open that long */
				if (r->kind != NPUPROF_HOSTFMT_API)
					continue;
				const struct npuprof_hostfmt_api *a = (const void *)r;

				if (a->tid == tid && a->start_ns <= t && a->end_ns >= t &&
				    (a->level == NPUPROF_API_NODE || a->level == NPUPROF_API_ACL)) {
					if (hostdata_decode_api(h, pid, r, &st->ahead) < 0)
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

static const struct hostdata_api *stream_enclosing(struct hostdata *h, uint32_t pid, uint32_t tid,
						   uint64_t t)
{
	struct hostdata_stream *st = stream_of(h);

	const struct hostdata_api *best = NULL;

	/* the innermost: the latest start, the shorter at equal starts (calls
	 * nest on a thread), whatever order they were recorded in */
	for (size_t k = 0; k < st->nwin; k++) {
		const struct hostdata_api *a = &st->win[(st->winhead + k) % st->capwin];

		if (a->pid == pid && a->r.tid == tid && a->r.end_ns >= t && a->r.start_ns <= t &&
		    (!best || a->r.start_ns > best->r.start_ns ||
		     (a->r.start_ns == best->r.start_ns && a->r.end_ns < best->r.end_ns)))
			best = a;
	}
	return best ? best : read_ahead(h, pid, tid, t);
}

const struct hostdata_launch *hostdata_launch(struct hostdata *h, uint32_t pid, uint32_t dev,
					      uint32_t stream, uint32_t task, uint32_t tid,
					      uint64_t t)
{
	struct hostdata_stream *st = stream_of(h);
	const struct hostdata_track *tr;
	struct hostdata_launch *l;

	if (!st)
		return NULL;
	tr = stream_match(h, hostdata_task_key(pid, dev, stream, task), t);
	if (st->launch_free == HOSTDATA_END) {
		void *p = realloc(st->chunk, (st->nchunk + 1) * sizeof(*st->chunk));
		struct hostdata_launch *c;

		if (!p || st->nchunk >= HOSTDATA_END / HS_CHUNK - 1) {
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
	l->next_free = HOSTDATA_END;
	l->tracked = tr != NULL;
	l->has_api = 0;
	l->api_conn = 0;
	if (tr) {
		l->tr = *tr;
	} else if (pid) {
		/* an uninstrumented launch: the API open on its thread */
		const struct hostdata_api *a = stream_enclosing(h, pid, tid, t);

		if (a) {
			l->has_api = 1;
			l->api_conn = a->r.connection_id;
		}
	}
	return l;
}

void hostdata_release(struct hostdata *h, const struct hostdata_launch *l)
{
	struct hostdata_stream *st = stream_of(h);
	struct hostdata_launch *m;

	if (!st || !l || l->self == HOSTDATA_END)
		return;
	m = &st->chunk[l->self / HS_CHUNK][l->self % HS_CHUNK];
	m->next_free = st->launch_free;
	st->launch_free = m->self;
}

static void stream_free(struct hostdata_stream *st)
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

static const struct hostdata_compute *stream_compute(const struct hostdata *h, uint64_t key,
						     uint32_t batch)
{
	const struct hostdata_stream *st = stream_of(h);
	uint64_t v;

	if (!u64map_get(&st->cdet_at, key, &v))
		return NULL;
	for (unsigned k = 0; k < st->cdet[v].used; k++)
		if (st->cdet[v].c[k].r.batch_id == batch)
			return &st->cdet[v].c[k];
	return NULL;
}

static const struct hostdata_hccl_task *stream_htask(const struct hostdata *h, uint64_t key,
						     uint32_t batch)
{
	const struct hostdata_stream *st = stream_of(h);
	uint64_t v;

	if (!u64map_get(&st->hdet_at, key, &v))
		return NULL;
	for (unsigned k = 0; k < st->hdet[v].used; k++)
		if (st->hdet[v].t[k].r.batch_id == batch)
			return &st->hdet[v].t[k];
	return NULL;
}

static int decode_fd(int fd, const char *path, struct hostdata_load_ctx *ctx,
		     struct npuprof_hostread_file_info *info,
		     struct npuprof_hostread_decode_stats *stats, char *err, size_t errlen);

/* Pass 1 of hostdata_open over one stream: mapped, decoded in place,
 * its pages given back behind the decoder; the file stays open for pass 2. */
static int decode_indexed(struct hostdata_load_ctx *ctx, const char *path,
			  struct npuprof_hostread_file_info *info,
			  struct npuprof_hostread_decode_stats *stats, char *err, size_t errlen)
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
static int decode_fd(int fd, const char *path, struct hostdata_load_ctx *ctx,
		     struct npuprof_hostread_file_info *info,
		     struct npuprof_hostread_decode_stats *stats, char *err, size_t errlen)
{
	struct hostdata_stream *st = stream_of(ctx->h);
	struct hs_index ix = { .cur = -1 };
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
	ix.file = (uint32_t)st->nfile++;
	fd = -1; /* closed by hostdata_free */
	ctx->index = &ix;
	ctx->index->base = ctx->index->dropped = map;
	ctx->index->len = (size_t)sb.st_size;
	ctx->index->cur = -1;
	r = map ? npuprof_hostread_decode_mapping(map, (size_t)sb.st_size, path, index_on_rec, ctx,
						  info, stats, err, errlen) :
		  npuprof_hostread_decode_buffer("", 0, path, index_on_rec, ctx, info, stats, err,
						 errlen);
	if (range_close(ctx) < 0)
		ctx->oom = 1;
	ctx->index = NULL;
out:
	if (map)
		munmap(map, (size_t)sb.st_size);
	if (fd >= 0)
		close(fd);
	return r;
}

/* The stream made of a file's CANN reports: from an unlinked temporary file
 * that pass 2 reads again. */
static int stream_decode_buffer(struct hostdata_load_ctx *ctx, const uint8_t *buf, size_t len,
				const char *name, struct npuprof_hostread_file_info *info,
				struct npuprof_hostread_decode_stats *stats, char *derr,
				size_t derrlen, int *fatal, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	char tmpl[4200];
	int fd, r;
	size_t off = 0;

	snprintf(tmpl, sizeof(tmpl), "%s/npuprof-cann-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, "%s: cannot create a temporary file for %s: %s", tmpl, name,
			 strerror(errno));
		*fatal = 1;
		return r;
	}
	unlink(tmpl);
	while (off < len) {
		ssize_t n = write(fd, buf + off, len - off);

		if (n <= 0) {
			r = n < 0 ? -errno : -EIO;
			snprintf(err, errlen, "%s: cannot write a temporary file for %s: %s", tmpl,
				 name, strerror(-r));
			close(fd);
			*fatal = 1;
			return r;
		}
		off += (size_t)n;
	}
	return decode_fd(fd, name, ctx, info, stats, derr, derrlen);
}

static void *stream_create(void)
{
	struct hostdata_stream *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	u64map_init(&st->cur_at);
	u64map_init(&st->pend_at);
	u64map_init(&st->cdet_at);
	u64map_init(&st->hdet_at);
	st->pend_free = st->launch_free = HOSTDATA_END;
	return st;
}

/* After pass 1: the merge's heap, one place per cursor. */
static int stream_finish(struct hostdata *h, char *err, size_t errlen)
{
	struct hostdata_stream *st = stream_of(h);

	st->heap = malloc((st->ncur + 1) * sizeof(*st->heap));
	return st->heap ? 0 : -ENOMEM;
}

static void stream_release(void *state)
{
	stream_free(state);
}

const struct hostdata_engine hostdata_stream_engine = {
	.create = stream_create,
	.release = stream_release,
	.decode_file = decode_indexed,
	.decode_buffer = stream_decode_buffer,
	.on_record = index_record,
	.finish = stream_finish,
	.match_track = stream_match,
	.compute = stream_compute,
	.hccl_task = stream_htask,
	.enclosing_api = stream_enclosing,
};

int hostdata_open(struct hostdata *h, const char *dir, unsigned flags, FILE *warn, char *err,
		  size_t errlen)
{
	int r = hostdata_read(h, dir, &hostdata_stream_engine, flags, warn, err, errlen);

	if (r >= 0)
		r = hostdata_rewind(h, NULL, NULL, NULL);
	return r;
}
