/*
 * hostdata.c — what both readers of the host raw streams share
 * (hostdata.h): decoding every record, the stream made of CANN reports, the
 * records that are not per task, and the queries both engines answer. The
 * per-task records are held by an engine (hostdata_engine.h).
 */
#include "hostdata.h"
#include "hostdata_engine.h"

#include "cannrec.h"

#include <errno.h>
#include <dirent.h>
#include <glob.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	if (*n >= HOSTDATA_END)
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

/* The per-task records (API, TASK_TRACK, COMPUTE_OP, HCCL_TASK) decoded for
 * both engines alike (hostdata_engine.h). */
int hostdata_decode_api(struct hostdata *h, uint32_t pid, const struct npuprof_hostfmt_header *rec,
			struct hostdata_api *a)
{
	const struct npuprof_hostfmt_api *r = (const void *)rec;
	struct hostdata_api_strings as = { r->name_id, r->item_id };
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

void hostdata_decode_track(uint32_t pid, const struct npuprof_hostfmt_header *rec,
			   struct hostdata_track *t)
{
	const struct npuprof_hostfmt_task_track *r = (const void *)rec;

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

int hostdata_decode_compute(struct hostdata *h, uint32_t pid,
			    const struct npuprof_hostfmt_header *rec, struct hostdata_compute *c)
{
	const struct npuprof_hostfmt_compute_op *r = (const void *)rec;
	struct hostdata_op_strings os = {
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
	c->key = hostdata_task_key(pid, r->device_id, r->stream_id, r->task_id);
	c->r.batch_id = r->batch_id;
	c->r.context_id = r->context_id;
	c->r.block_dim = r->block_dim;
	c->r.mix_block_dim = r->mix_block_dim;
	c->strings = (uint32_t)si;
	return 0;
}

void hostdata_decode_htask(uint32_t pid, const struct npuprof_hostfmt_header *rec,
			   struct hostdata_hccl_task *t)
{
	const struct npuprof_hostfmt_hccl_task *r = (const void *)rec;

	t->pid = pid;
	t->r = *r;
	t->key = hostdata_task_key(pid, r->device_id, r->stream_id, r->task_id);
}

static const char *cann_str(void *ctx, uint64_t id)
{
	return hostdata_str(ctx, id);
}

int hostdata_on_rec(void *vctx, const struct npuprof_hostfmt_block_header *b,
		    const struct npuprof_hostfmt_header *rec)
{
	struct hostdata_load_ctx *ctx = vctx;
	struct hostdata *h = ctx->h;
	uint32_t pid = ctx->pid;

	if (h->eng->on_record && h->eng->on_record(ctx, b, rec) < 0) {
		ctx->oom = 1;
		return -ENOMEM;
	}
#define BODY(type) (rec->size >= sizeof(type) ? (const type *)rec : NULL)
	if (rec->kind >= NPUPROF_HOSTFMT_MSPROF_API && rec->kind <= NPUPROF_HOSTFMT_MSPROF_TYPE) {
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
	case NPUPROF_HOSTFMT_MSPROF_BAD: {
		/* the fields its size covers (hostfmt.h) */
		const uint64_t *v = (const void *)(rec + 1);
		size_t n = (rec->size - sizeof(*rec)) / sizeof(*v);

		for (size_t i = 0; i < n && i < 6; i++)
			ctx->refused[i] += v[i];
		break;
	}
	case NPUPROF_HOSTFMT_HASH: {
		const struct npuprof_hostfmt_hash *r = BODY(struct npuprof_hostfmt_hash);

		if (r && add_string(h, r->id, r->str, r->len) < 0) {
			ctx->oom = 1;
			return -ENOMEM;
		}
		break;
	}
	case NPUPROF_HOSTFMT_API:
		hostdata_note_conn(h, rec);
		if (!ctx->keep_api)
			break; /* streamed (hostdata_open) */
		if (BODY(struct npuprof_hostfmt_api)) {
			struct hostdata_api a;
			int e = hostdata_decode_api(h, pid, rec, &a);

			if (e < 0) {
				ctx->oom = 1;
				return e;
			}
			HOSTDATA_PUSH(h->api, h->napi, a, ctx);
		}
		break;
	case NPUPROF_HOSTFMT_TASK_TRACK:
	case NPUPROF_HOSTFMT_COMPUTE_OP:
	case NPUPROF_HOSTFMT_HCCL_TASK:
		if (h->eng->per_task)
			return h->eng->per_task(ctx, rec);
		break;
	case NPUPROF_HOSTFMT_HCCL_OP: {
		const struct npuprof_hostfmt_hccl_op *r = BODY(struct npuprof_hostfmt_hccl_op);
		struct hostdata_hccl_op o;

		if (r) {
			o = (struct hostdata_hccl_op){ pid, 0, -1, -1, *r };
			HOSTDATA_PUSH(h->hop, h->nhop, o, ctx);
		}
		break;
	}
	case NPUPROF_HOSTFMT_STEP: {
		const struct npuprof_hostfmt_step *r = BODY(struct npuprof_hostfmt_step);
		struct hostdata_step t;

		if (!r)
			break;
		t.pid = pid;
		t.r = *r;
		HOSTDATA_PUSH(h->step, h->nstep, t, ctx);
		break;
	}
	case NPUPROF_HOSTFMT_RANK: {
		const struct npuprof_hostfmt_rank *r = BODY(struct npuprof_hostfmt_rank);
		struct hostdata_rank k;

		if (r) {
			k.pid = pid;
			k.r = (struct npuprof_rank_info){ r->rank, r->rank_size, r->device_id,
							  r->source };
			HOSTDATA_PUSH(h->rank, h->nrank, k, ctx);
		}
		break;
	}
	case NPUPROF_HOSTFMT_FWK_OP: {
		const struct npuprof_hostfmt_fwk_op *r = BODY(struct npuprof_hostfmt_fwk_op);
		struct hostdata_fwk_op o;

		if (r) {
			o.pid = pid;
			o.r = *r;
			HOSTDATA_PUSH(h->fop, h->nfop, o, ctx);
		}
		break;
	}
	case NPUPROF_HOSTFMT_FWK_MEM: {
		const struct npuprof_hostfmt_fwk_mem *r = BODY(struct npuprof_hostfmt_fwk_mem);
		struct hostdata_fwk_mem m;

		if (r) {
			m.pid = pid;
			m.r = *r;
			HOSTDATA_PUSH(h->fmem, h->nfmem, m, ctx);
		}
		break;
	}
	case NPUPROF_HOSTFMT_FWK_GC: {
		const struct npuprof_hostfmt_fwk_gc *r = BODY(struct npuprof_hostfmt_fwk_gc);
		struct hostdata_fwk_gc g;

		if (r) {
			g.pid = pid;
			g.r = *r;
			HOSTDATA_PUSH(h->fgc, h->nfgc, g, ctx);
		}
		break;
	}
	default: {
		struct npuprof_hostread_tx ev;
		struct hostdata_tx t;

		/* TX records and their compact forms (hostfmt.h, kinds 17-22) */
		if (!npuprof_hostread_tx_event(b, rec, &ev))
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
		HOSTDATA_PUSH(h->tx, h->ntx, t, ctx);
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

static int cmp_hop(const void *a, const void *b)
{
	const struct hostdata_hccl_op *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->r.op_seq < y->r.op_seq ? -1 : x->r.op_seq > y->r.op_seq;
}

static int cmp_hop_time(const void *a, const void *b)
{
	const struct hostdata_hccl_op *const *x = a, *const *y = b;

	if ((*x)->r.start_ns != (*y)->r.start_ns)
		return (*x)->r.start_ns < (*y)->r.start_ns ? -1 : 1;
	return cmp_hop(*x, *y);
}

static int cmp_api(const void *a, const void *b)
{
	const struct hostdata_api *x = a, *y = b;

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
	const struct hostdata_tx *x = a, *y = b;

	if (x->r.start_ns != y->r.start_ns)
		return x->r.start_ns < y->r.start_ns ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->r.tid < y->r.tid ? -1 : x->r.tid > y->r.tid;
}

/* The reports libprofapi.so refused during a stream's collection. */
static void refused_warning(struct hostdata *h, const struct hostdata_load_ctx *ctx,
			    const char *path, FILE *warn)
{
	_Static_assert(sizeof(struct npuprof_hostfmt_msprof_bad) ==
			       sizeof(struct npuprof_hostfmt_header) + 6 * sizeof(uint64_t),
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
static int cann_stream(struct hostdata *h, struct hostdata_load_ctx *ctx, const char *path,
		       const struct npuprof_hostread_file_info *info, FILE *warn, char *err,
		       size_t errlen)
{
	struct cann_stats cs;
	struct npuprof_hostread_decode_stats st;
	struct npuprof_hostread_file_info si;
	struct hostdata_load_ctx sctx = { .h = h, .pid = ctx->pid, .keep_api = ctx->keep_api };
	char name[4400], derr[512] = "";
	uint8_t *buf = NULL;
	size_t len = 0;
	int r, fatal = 0;

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
	r = h->eng->decode_buffer(&sctx, buf, len, name, &si, &st, derr, sizeof(derr), &fatal, err,
				  errlen);
	free(buf);
	if (fatal)
		return r;
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

int hostdata_read(struct hostdata *h, const char *dir, const struct hostdata_engine *eng,
		  unsigned flags, FILE *warn, char *err, size_t errlen)
{
	char pattern[4352], hdir[4352];
	glob_t g;
	DIR *d;
	int r;
	struct {
		struct hostdata_load_ctx ctx;
		struct npuprof_hostread_file_info info;
		char *path;
	} *pend = NULL; /* streams whose CANN reports wait for the others */
	size_t npend = 0;

	memset(h, 0, sizeof(*h));
	h->warn = warn;
	h->cann_next_op = 1ULL << 62; /* apart from the runtime's op_seq values */
	h->eng = eng;
	h->eng_state = eng->create();
	if (!h->eng_state) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	u64map_init(&h->strings);
	u64map_init(&h->opstr_at);
	u64map_init(&h->apistr_at);
	snprintf(pattern, sizeof(pattern), "%s/host/data/%s*%s", dir, NPUPROF_HOSTFMT_FILE_PREFIX,
		 NPUPROF_HOSTFMT_FILE_SUFFIX);
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
		struct npuprof_hostread_file_info info;
		struct npuprof_hostread_decode_stats st;
		struct hostdata_load_ctx ctx = { .h = h,
						 .keep_api = (flags & HOSTDATA_KEEP_API) != 0 };
		char derr[512] = "";
		const char *p = strrchr(g.gl_pathv[i], '.');

		/* the pid is in the name; the header confirms it */
		ctx.pid = (uint32_t)strtoul(strstr(g.gl_pathv[i], NPUPROF_HOSTFMT_FILE_PREFIX) +
						    strlen(NPUPROF_HOSTFMT_FILE_PREFIX),
					    NULL, 10);
		(void)p;
		memset(&st, 0, sizeof(st));
		r = eng->decode_file(&ctx, g.gl_pathv[i], &info, &st, derr, sizeof(derr));
		h->files++;
		if (ctx.oom) {
			cann_close(ctx.cann);
			snprintf(err, errlen, "out of memory loading %s", g.gl_pathv[i]);
			r = -ENOMEM;
			goto fail;
		}
		if (r == 0 || r == NPUPROF_HOSTREAD_EDAMAGED)
			ctx.pid = info.header.pid ? info.header.pid : ctx.pid;
		if (r == NPUPROF_HOSTREAD_EDAMAGED) {
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
		if ((r == 0 || r == NPUPROF_HOSTREAD_EDAMAGED) && cann_reports(ctx.cann)) {
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
		if (!r)
			r = cann_stream(h, &pend[i].ctx, pend[i].path, &pend[i].info, warn, err,
					errlen);
		cann_close(pend[i].ctx.cann);
		free(pend[i].path);
	}
	free(pend);
	if (r < 0)
		return r;
	r = eng->finish(h, err, errlen);
	if (r < 0)
		return r;
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
		struct hostdata_hccl_op **order = malloc(h->nhop * sizeof(*order));

		if (!order)
			return -ENOMEM;
		for (size_t i = 0; i < h->nhop; i++)
			order[i] = &h->hop[i];
		sort(order, h->nhop, sizeof(*order), cmp_hop_time);
		for (size_t i = 0; i < h->nhop; i++)
			order[i]->op_id = (uint32_t)i + 1;
		free(order);
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

void hostdata_free(struct hostdata *h)
{
	if (h->eng)
		h->eng->release(h->eng_state);
	for (size_t i = 0; i < h->ntx; i++)
		free(h->tx[i].message);
	for (size_t i = 0; i < h->nstr; i++)
		free(h->strv[i]);
	free(h->strv);
	free(h->api);
	free(h->opstr);
	free(h->apistr);
	free(h->hop);
	free(h->tx);
	free(h->step);
	free(h->rank);
	free(h->fop);
	free(h->fmem);
	free(h->fgc);
	u64map_free(&h->strings);
	u64map_free(&h->opstr_at);
	u64map_free(&h->apistr_at);
	memset(h, 0, sizeof(*h));
}

const char *hostdata_str(const struct hostdata *h, uint64_t id)
{
	uint64_t idx;

	if (id == NPUPROF_HOSTFMT_NO_STRING)
		return "";
	if (!u64map_get(&h->strings, id, &idx))
		return NULL;
	return h->strv[idx];
}

struct hostdata_hccl_op *hostdata_hccl_op(struct hostdata *h, uint32_t pid, uint64_t op_seq)
{
	size_t lo = 0, hi = h->nhop;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct hostdata_hccl_op *m = &h->hop[mid];

		if (m->pid < pid || (m->pid == pid && m->r.op_seq < op_seq))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < h->nhop && h->hop[lo].pid == pid && h->hop[lo].r.op_seq == op_seq)
		return &h->hop[lo];
	return NULL;
}

const struct hostdata_track *hostdata_match_track(struct hostdata *h, uint32_t pid, uint32_t dev,
						  uint32_t stream, uint32_t task, uint64_t t)
{
	return h->eng->match_track(h, hostdata_task_key(pid, dev, stream, task), t);
}

const struct hostdata_compute *hostdata_compute(const struct hostdata *h, uint32_t pid,
						uint32_t dev, uint32_t stream, uint32_t task,
						uint32_t batch)
{
	return h->eng->compute(h, hostdata_task_key(pid, dev, stream, task), batch);
}

const struct hostdata_hccl_task *hostdata_hccl_task(const struct hostdata *h, uint32_t pid,
						    uint32_t dev, uint32_t stream, uint32_t task,
						    uint32_t batch)
{
	return h->eng->hccl_task(h, hostdata_task_key(pid, dev, stream, task), batch);
}

const struct hostdata_api *hostdata_enclosing_api(struct hostdata *h, uint32_t pid, uint32_t tid,
						  uint64_t t)
{
	return h->eng->enclosing_api(h, pid, tid, t);
}
