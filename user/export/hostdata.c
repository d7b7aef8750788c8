/*
 * hostdata.c — loading host raw streams for export (hostdata.h).
 */
#include "hostdata.h"

#include <errno.h>
#include <dirent.h>
#include <glob.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACK_SLACK_NS 2000000ULL /* a track precedes its submit */

struct load_ctx {
	struct hostdata *h;
	uint32_t pid;
	int oom;
};

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

static int on_rec(void *vctx, const struct npuprof_host_block_header *b,
		  const struct npuprof_hrec_header *rec)
{
	struct load_ctx *ctx = vctx;
	struct hostdata *h = ctx->h;
	uint32_t pid = ctx->pid;

#define BODY(type) (rec->size >= sizeof(type) ? (const type *)rec : NULL)
	switch (rec->kind) {
	case NPUPROF_HREC_HASH: {
		const struct npuprof_hrec_hash *r = BODY(struct npuprof_hrec_hash);

		if (r && add_string(h, r->id, r->str, r->len) < 0) {
			ctx->oom = 1;
			return -ENOMEM;
		}
		break;
	}
	case NPUPROF_HREC_API: {
		const struct npuprof_hrec_api *r = BODY(struct npuprof_hrec_api);
		struct hd_api a;

		if (r) {
			struct hd_api_strings as = { r->name_id, r->item_id };
			void *sets = h->apistr;
			int64_t si = add_set(&sets, &h->napistr, &h->apistr_at, &as, sizeof(as));

			h->apistr = sets;
			if (si < 0) {
				ctx->oom = 1;
				return (int)si;
			}
			memset(&a, 0, sizeof(a));
			a.pid = pid;
			a.strings = (uint32_t)si;
			a.r.level = r->level;
			a.r.tid = r->tid;
			a.r.start_ns = r->start_ns;
			a.r.end_ns = r->end_ns;
			a.r.connection_id = r->connection_id;
			PUSH(h->api, h->napi, a, ctx);
		}
		break;
	}
	case NPUPROF_HREC_TASK_TRACK: {
		const struct npuprof_hrec_task_track *r = BODY(struct npuprof_hrec_task_track);
		struct hd_track t;

		if (r) {
			memset(&t, 0, sizeof(t));
			t.pid = pid;
			t.r.tid = r->tid;
			t.r.device_id = r->device_id;
			t.r.stream_id = r->stream_id;
			t.r.batch_id = r->batch_id;
			t.r.model_id = r->model_id;
			t.r.memcpy_op = r->memcpy_op;
			t.r.trace_tag = r->trace_tag;
			t.r.task_id = r->task_id;
			t.r.sqe_type = r->sqe_type;
			t.r.time_ns = r->time_ns;
			t.r.connection_id = r->connection_id;
			t.r.task_type_id = r->task_type_id;
			t.r.duration_ns = r->duration_ns;
			t.r.bytes = r->bytes;
			t.r.index_id = r->index_id;
			PUSH(h->track, h->ntrack, t, ctx);
		}
		break;
	}
	case NPUPROF_HREC_COMPUTE_OP: {
		const struct npuprof_hrec_compute_op *r = BODY(struct npuprof_hrec_compute_op);
		struct hd_compute c;

		if (r) {
			struct hd_op_strings os = {
				r->name_id,	      r->op_type_id,	   r->task_type_id,
				r->input_formats_id,  r->input_dtypes_id,  r->input_shapes_id,
				r->output_formats_id, r->output_dtypes_id, r->output_shapes_id,
				r->attr_id,	      r->op_state_id,	   r->hf32_id,
			};
			void *sets = h->opstr;
			int64_t si = add_set(&sets, &h->nopstr, &h->opstr_at, &os, sizeof(os));

			h->opstr = sets;
			if (si < 0) {
				ctx->oom = 1;
				return (int)si;
			}
			memset(&c, 0, sizeof(c));
			c.key = hd_task_key(pid, r->device_id, r->stream_id, r->task_id);
			c.r.batch_id = r->batch_id;
			c.r.context_id = r->context_id;
			c.r.block_dim = r->block_dim;
			c.r.mix_block_dim = r->mix_block_dim;
			c.strings = (uint32_t)si;
			PUSH(h->compute, h->ncompute, c, ctx);
		}
		break;
	}
	case NPUPROF_HREC_HCCL_OP: {
		const struct npuprof_hrec_hccl_op *r = BODY(struct npuprof_hrec_hccl_op);
		struct hd_hccl_op o;

		if (r) {
			o = (struct hd_hccl_op){ pid, 0, -1, -1, *r };
			PUSH(h->hop, h->nhop, o, ctx);
		}
		break;
	}
	case NPUPROF_HREC_HCCL_TASK: {
		const struct npuprof_hrec_hccl_task *r = BODY(struct npuprof_hrec_hccl_task);
		struct hd_hccl_task t;

		if (r) {
			t.pid = pid;
			t.r = *r;
			t.key = hd_task_key(pid, r->device_id, r->stream_id, r->task_id);
		}

		if (r)
			PUSH(h->htask, h->nhtask, t, ctx);
		break;
	}
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

int hostdata_load(struct hostdata *h, const char *dir, FILE *warn, char *err, size_t errlen)
{
	char pattern[4352], hdir[4352];
	glob_t g;
	DIR *d;
	int r;

	memset(h, 0, sizeof(*h));
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
		struct load_ctx ctx = { h, 0, 0 };
		char derr[512] = "";
		const char *p = strrchr(g.gl_pathv[i], '.');

		/* the pid is in the name; the header confirms it */
		ctx.pid = (uint32_t)strtoul(strstr(g.gl_pathv[i], NPUPROF_HOST_FILE_PREFIX) +
						    strlen(NPUPROF_HOST_FILE_PREFIX),
					    NULL, 10);
		(void)p;
		memset(&st, 0, sizeof(st));
		r = npuprof_host_decode(g.gl_pathv[i], on_rec, &ctx, &info, &st, derr,
					sizeof(derr));
		h->files++;
		if (ctx.oom) {
			globfree(&g);
			snprintf(err, errlen, "out of memory loading %s", g.gl_pathv[i]);
			return -ENOMEM;
		}
		if (r == 0 || r == NPUPROF_HOST_EDAMAGED)
			ctx.pid = info.header.pid ? info.header.pid : ctx.pid;
		if (r == NPUPROF_HOST_EDAMAGED) {
			h->damaged_files++;
			fprintf(warn,
				"npuprof export: warning: %s (%llu damaged blocks, %llu bytes skipped; the intact records are exported)\n",
				derr, (unsigned long long)st.bad_blocks,
				(unsigned long long)st.skipped_bytes);
		} else if (r != 0) {
			h->damaged_files++;
			h->unreadable_files++;
			fprintf(warn,
				"npuprof export: error: %s; nothing exported from it (its API calls, task tracks and msproftx events are missing)\n",
				derr);
		}
		h->lost += st.lost;
		if (h->npids < 256)
			h->pids[h->npids++] = ctx.pid;
	}
	globfree(&g);

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
}

void hostdata_free(struct hostdata *h)
{
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

const struct hd_api *hostdata_enclosing_api(const struct hostdata *h, uint32_t pid, uint32_t tid,
					    uint64_t t)
{
	size_t lo = 0, hi = h->napi;
	const struct hd_api *best = NULL;

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
