/*
 * hostdata_load.c — the whole-file engine (hostdata_load, the live tracker
 * and tests): every per-task record loaded into arrays, in file order, with
 * chains per task key and per (key, batch) instead of a sort.
 */
#include "hostdata.h"
#include "hostdata_engine.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static struct hostdata_whole *whole_of(const struct hostdata *h)
{
	return h->eng_state;
}

const struct hostdata_whole *hostdata_whole(const struct hostdata *h)
{
	return h->eng == &hostdata_whole_engine ? h->eng_state : NULL;
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

	next[i] = HOSTDATA_END;
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

static int sort_chain(struct hostdata_whole *h, uint64_t key, uint32_t first)
{
	size_t n = 0, cap = 0;
	uint64_t *v = NULL;

	for (uint32_t i = first; i != HOSTDATA_END; i = h->track_next[i]) {
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
		h->track_next[v[2 * k + 1]] = k + 1 < n ? (uint32_t)v[2 * k + 3] : HOSTDATA_END;
	int r = u64map_put(&h->track_range, key, v[1]);
	free(v);
	return r;
}

int hostdata_load(struct hostdata *h, const char *dir, FILE *warn, char *err, size_t errlen)
{
	return hostdata_read(h, dir, &hostdata_whole_engine, HOSTDATA_KEEP_API, warn, err, errlen);
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

uint32_t *hostdata_track_order(const struct hostdata *hd)
{
	const struct hostdata_whole *h = hostdata_whole(hd);
	const struct u64map *m;

	if (!h)
		return NULL;
	m = &h->track_range;
	uint64_t *keys = malloc((m->len + 1) * sizeof(*keys));
	uint32_t *order = malloc((h->ntrack + 1) * sizeof(*order));
	size_t nk = 0, n = 0;

	if (!keys || !order) {
		free(keys);
		free(order);
		return NULL;
	}
	for (size_t pos = 0; nk <= m->len && u64map_next(m, &pos, &keys[nk], NULL);)
		nk++;
	if (nk > 1)
		qsort(keys, nk, sizeof(*keys), cmp_u64);
	for (size_t k = 0; k < nk; k++) {
		uint64_t first;

		u64map_get(m, keys[k], &first);
		for (uint32_t i = (uint32_t)first; i != HOSTDATA_END && n < h->ntrack;
		     i = h->track_next[i])
			order[n++] = i;
	}
	free(keys);
	return order;
}

static const struct hostdata_track *whole_match(struct hostdata *hd, uint64_t key, uint64_t t)
{
	struct hostdata_whole *h = whole_of(hd);
	uint64_t first;
	uint32_t cur;
	const struct hostdata_track *best = NULL;

	if (!u64map_get(&h->track_range, key, &first))
		return NULL;
	cur = h->track_cursor[first];
	while (cur != HOSTDATA_END && h->track[cur].r.time_ns <= t + TRACK_SLACK_NS) {
		best = &h->track[cur];
		cur = h->track_next[cur];
	}
	h->track_cursor[first] = cur;
	return best;
}

#define DETAIL_FIND(fn, type, arr, at, next)                                         \
	static const type *fn(const struct hostdata *hd, uint64_t k, uint32_t batch) \
	{                                                                            \
		const struct hostdata_whole *h = whole_of(hd);                       \
		uint64_t i;                                                          \
		if (!u64map_get(&h->at, detail_hash(k, batch), &i))                  \
			return NULL;                                                 \
		for (i &= 0xffffffffULL; i != HOSTDATA_END; i = h->next[i]) {        \
			const type *m = &h->arr[i];                                  \
			if (m->key == k && m->r.batch_id == batch)                   \
				return m;                                            \
		}                                                                    \
		return NULL;                                                         \
	}
DETAIL_FIND(whole_compute, struct hostdata_compute, compute, compute_at, compute_next)
DETAIL_FIND(whole_hccl_task, struct hostdata_hccl_task, htask, htask_at, htask_next)
static const struct hostdata_api *whole_enclosing_api(struct hostdata *h, uint32_t pid,
						      uint32_t tid, uint64_t t)
{
	size_t lo = 0, hi = h->napi;
	const struct hostdata_api *best = NULL;

	/* first API of (pid, tid) starting after t */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct hostdata_api *m = &h->api[mid];

		if (m->pid < pid ||
		    (m->pid == pid && (m->r.tid < tid || (m->r.tid == tid && m->r.start_ns <= t))))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* walk back over ranges that start before t; the latest-starting one
	 * that still contains t is the innermost (APIs nest on a thread) */
	for (size_t i = lo; i-- > 0;) {
		const struct hostdata_api *m = &h->api[i];

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

static void *whole_create(void)
{
	struct hostdata_whole *w = calloc(1, sizeof(*w));

	if (w) {
		u64map_init(&w->track_range);
		u64map_init(&w->compute_at);
		u64map_init(&w->htask_at);
	}
	return w;
}

static void whole_release(void *state)
{
	struct hostdata_whole *w = state;

	if (!w)
		return;
	free(w->track);
	free(w->compute);
	free(w->htask);
	free(w->track_cursor);
	free(w->track_next);
	free(w->compute_next);
	free(w->htask_next);
	u64map_free(&w->track_range);
	u64map_free(&w->compute_at);
	u64map_free(&w->htask_at);
	free(w);
}

static int whole_decode_file(struct hostdata_load_ctx *ctx, const char *path,
			     struct npuprof_hostread_file_info *info,
			     struct npuprof_hostread_decode_stats *stats, char *derr,
			     size_t derrlen)
{
	return npuprof_hostread_decode(path, hostdata_on_rec, ctx, info, stats, derr, derrlen);
}

/* The stream made of CANN reports: decoded from memory. */
static int whole_decode_buffer(struct hostdata_load_ctx *ctx, const uint8_t *buf, size_t len,
			       const char *name, struct npuprof_hostread_file_info *info,
			       struct npuprof_hostread_decode_stats *stats, char *derr,
			       size_t derrlen, int *fatal, char *err, size_t errlen)
{
	return npuprof_hostread_decode_buffer(buf, len, name, hostdata_on_rec, ctx, info, stats,
					      derr, derrlen);
}

static int whole_per_task(struct hostdata_load_ctx *ctx, const struct npuprof_hostfmt_header *rec)
{
	struct hostdata_whole *w = whole_of(ctx->h);
	uint32_t pid = ctx->pid;
	int e;

	switch (rec->kind) {
	case NPUPROF_HOSTFMT_TASK_TRACK:
		if (rec->size >= sizeof(struct npuprof_hostfmt_task_track)) {
			struct hostdata_track t;

			hostdata_decode_track(pid, rec, &t);
			HOSTDATA_PUSH(w->track, w->ntrack, t, ctx);
		}
		break;
	case NPUPROF_HOSTFMT_COMPUTE_OP:
		if (rec->size >= sizeof(struct npuprof_hostfmt_compute_op)) {
			struct hostdata_compute c;

			e = hostdata_decode_compute(ctx->h, pid, rec, &c);
			if (e < 0) {
				ctx->oom = 1;
				return e;
			}
			HOSTDATA_PUSH(w->compute, w->ncompute, c, ctx);
		}
		break;
	case NPUPROF_HOSTFMT_HCCL_TASK:
		if (rec->size >= sizeof(struct npuprof_hostfmt_hccl_task)) {
			struct hostdata_hccl_task t;

			hostdata_decode_htask(pid, rec, &t);
			HOSTDATA_PUSH(w->htask, w->nhtask, t, ctx);
		}
		break;
	}
	return 0;
}

/* The detail chains, and the track chains per task key in time order with
 * a cursor each. */
static int whole_finish(struct hostdata *hd, char *err, size_t errlen)
{
	struct hostdata_whole *h = whole_of(hd);

	if (h->ntrack >= 0x80000000u || h->ncompute >= HOSTDATA_END || h->nhtask >= HOSTDATA_END) {
		snprintf(err, errlen, "more than %u host records of one kind", 0x7fffffffu);
		return -EOVERFLOW;
	}
	if (build_detail(&h->compute_at, &h->compute_next, h->ncompute, sizeof(*h->compute),
			 h->compute, offsetof(struct hostdata_compute, key),
			 offsetof(struct hostdata_compute, r.batch_id)) < 0 ||
	    build_detail(&h->htask_at, &h->htask_next, h->nhtask, sizeof(*h->htask), h->htask,
			 offsetof(struct hostdata_hccl_task, key),
			 offsetof(struct hostdata_hccl_task, r.batch_id)) < 0)
		return -ENOMEM;
	/* track chains per task key, in time order, with a cursor each */
	h->track_cursor = malloc((h->ntrack + 1) * sizeof(*h->track_cursor));
	h->track_next = malloc((h->ntrack + 1) * sizeof(*h->track_next));
	if (!h->track_cursor || !h->track_next)
		return -ENOMEM;
	for (size_t i = 0; i < h->ntrack; i++) {
		uint64_t v;
		uint32_t last;

		h->track_cursor[i] = (uint32_t)i;
		if (!u64map_get(&h->track_range, hostdata_track_key(&h->track[i]), &v)) {
			h->track_next[i] = HOSTDATA_END;
			if (u64map_put(&h->track_range, hostdata_track_key(&h->track[i]),
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
		h->track_next[i] = HOSTDATA_END;
		if (u64map_put(&h->track_range, hostdata_track_key(&h->track[i]),
			       (v & 0xffffffffULL) | ((uint64_t)i << 32)) < 0)
			return -ENOMEM;
	}
	for (size_t i = 0; i < h->ntrack; i++) {
		uint64_t v;
		uint32_t first;

		u64map_get(&h->track_range, hostdata_track_key(&h->track[i]), &v);
		first = (uint32_t)v;
		if (first != i)
			continue; /* once per chain, at its first record */
		if (h->track_cursor[i] & 0x80000000u) {
			h->track_cursor[i] = (uint32_t)i;
			if (sort_chain(h, hostdata_track_key(&h->track[i]), first) < 0)
				return -ENOMEM;
			u64map_get(&h->track_range, hostdata_track_key(&h->track[i]), &v);
			h->track_cursor[(uint32_t)v] = (uint32_t)v;
		} else if (u64map_put(&h->track_range, hostdata_track_key(&h->track[i]), first) <
			   0) {
			return -ENOMEM;
		}
	}
	return 0;
}

const struct hostdata_engine hostdata_whole_engine = {
	.create = whole_create,
	.release = whole_release,
	.decode_file = whole_decode_file,
	.decode_buffer = whole_decode_buffer,
	.per_task = whole_per_task,
	.finish = whole_finish,
	.match_track = whole_match,
	.compute = whole_compute,
	.hccl_task = whole_hccl_task,
	.enclosing_api = whole_enclosing_api,
};
