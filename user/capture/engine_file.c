/*
 * engine_file.c - capture engine "file": replays a saved raw kernel stream
 * (npuprof/rawkern.h, what `npuprof record` writes) through the engine
 * interface, so `npuprof live`, `top` and `watch` run on a recording, on
 * any host, with the output they would have printed live.
 *
 * The engine has its own clock (ops->now): stream time, starting where the
 * capture started (the file header's CLOCK_MONOTONIC) and advancing by the
 * timeout of every wait() without sleeping, so a replay is as fast as the
 * reader and gives the same output every time. read() delivers the records
 * up to the clock; when the clock has passed the last record and the
 * capture's end (opts.source_end_ns), wait() says -ENODATA.
 *
 * The capture options filter as the driver engines do: devices, streams,
 * 1-in-n sampling of task records (npuprof_sample_keep, so a submit and its
 * completion stay together), NPUPROF_CFG_NO_RECV, and a pid: a process's
 * submits, and the completions of the streams it submitted to.
 *
 * The stream is read into memory at open (64 bytes a record); records are
 * put in timestamp order (stable), as every engine delivers them.
 */
#include "errmsg.h"
#include "npuprof/engine.h"
#include "npuprof/rawkern.h"
#include "uapi/npuprof_filter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FILE_MAX_RECORDS (1ULL << 26) /* 4 GiB of records */

struct file_engine {
	struct npuprof_record *rec;
	size_t n, cap, pos;
	uint64_t clock, end;
	int started;
	struct npuprof_capture_opts o;
	uint32_t *streams; /* copy of o.streams */
	/* pid filter: which (device, stream) the process submitted to */
	uint8_t *owner; /* NPUPROF_OWNER_SLOTS */
	__u64 stream_mask[NPUPROF_MAX_STREAMS / 64];
	struct npuprof_filter filter; /* the driver engines' decision */
	struct npuprof_stats st;
	int load_err;
};

static int collect(void *ctx, const struct npuprof_record *r)
{
	struct file_engine *f = ctx;

	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 4096;
		struct npuprof_record *p;

		if (cap > FILE_MAX_RECORDS) {
			f->load_err = -EFBIG;
			return 1;
		}
		p = realloc(f->rec, cap * sizeof(*p));
		if (!p) {
			f->load_err = -ENOMEM;
			return 1;
		}
		f->rec = p;
		f->cap = cap;
	}
	f->rec[f->n++] = *r;
	return 0;
}

static int by_ts(const void *a, const void *b)
{
	const struct npuprof_record *x = a, *y = b;

	if (x->hdr.ts != y->hdr.ts)
		return x->hdr.ts < y->hdr.ts ? -1 : 1;
	return x < y ? -1 : x > y; /* stable: file order */
}

static int sorted(const struct file_engine *f)
{
	for (size_t i = 1; i < f->n; i++)
		if (f->rec[i].hdr.ts < f->rec[i - 1].hdr.ts)
			return 0;
	return 1;
}

static int file_open(struct npuprof_engine *e, const struct npuprof_capture_opts *o)
{
	struct npuprof_rawk_info info;
	struct file_engine *f;
	long n;

	if (!o || !o->source || !*o->source) {
		npuprof_seterr(e->err, sizeof(e->err),
			       "no stream to replay (give a raw kernel stream file)");
		return -EINVAL;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		npuprof_seterr(e->err, sizeof(e->err), "out of memory");
		return -ENOMEM;
	}
	f->o = *o;
	if (o->nstreams) {
		f->streams = malloc(o->nstreams * sizeof(*f->streams));
		if (!f->streams) {
			free(f);
			npuprof_seterr(e->err, sizeof(e->err), "out of memory");
			return -ENOMEM;
		}
		memcpy(f->streams, o->streams, o->nstreams * sizeof(*f->streams));
		f->o.streams = f->streams;
	}
	if (o->pid) {
		f->owner = calloc(NPUPROF_OWNER_SLOTS, 1);
		if (!f->owner) {
			free(f->streams);
			free(f);
			npuprof_seterr(e->err, sizeof(e->err), "out of memory");
			return -ENOMEM;
		}
	}
	for (uint32_t i = 0; i < f->o.nstreams; i++)
		if (f->o.streams[i] < NPUPROF_MAX_STREAMS)
			f->stream_mask[f->o.streams[i] / 64] |= 1ULL << (f->o.streams[i] % 64);
	f->filter = (struct npuprof_filter){
		.pid = f->o.pid,
		.dev_mask = f->o.dev_mask,
		.sample_n = f->o.sample_n,
		.flags = (f->o.flags & NPUPROF_CFG_NO_RECV) |
			 (f->o.nstreams ? NPUPROF_CFG_STREAM_FILTER : 0),
		.stream_mask = f->stream_mask,
		.owner = f->owner,
		.any_uid = 1,
	};
	n = npuprof_rawk_read(o->source, collect, f, &info, e->err, sizeof(e->err));
	if (n >= 0 && f->load_err) {
		n = f->load_err;
		npuprof_seterr(e->err, sizeof(e->err), "%s: %s", o->source,
			       n == -EFBIG ? "more records than a replay holds" : "out of memory");
	}
	if (n < 0) {
		free(f->rec);
		free(f->owner);
		free(f->streams);
		free(f);
		return (int)n;
	}
	/* a truncated last record is no error here: the rest replays */
	e->err[0] = '\0';
	if (!sorted(f))
		qsort(f->rec, f->n, sizeof(*f->rec), by_ts);
	f->clock = info.monotonic_ns;
	if (f->n && f->rec[0].hdr.ts < f->clock)
		f->clock = f->rec[0].hdr.ts;
	f->end = f->n ? f->rec[f->n - 1].hdr.ts : f->clock;
	if (o->source_end_ns > f->end)
		f->end = o->source_end_ns;
	f->st.nr_cpus = 1;
	e->priv = f;
	return 0;
}

static int file_start(struct npuprof_engine *e)
{
	struct file_engine *f = e->priv;

	f->started = 1;
	f->st.running = 1;
	return 0;
}

static int file_stop(struct npuprof_engine *e)
{
	struct file_engine *f = e->priv;

	f->started = 0;
	f->st.running = 0;
	return 0;
}

static int ready(const struct file_engine *f)
{
	return f->pos < f->n && f->rec[f->pos].hdr.ts <= f->clock;
}

static int file_wait(struct npuprof_engine *e, int timeout_ms)
{
	struct file_engine *f = e->priv;

	if (ready(f))
		return 1;
	if (f->pos >= f->n && f->clock >= f->end)
		return -ENODATA;
	if (!f->started)
		return 0;
	f->clock += (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ULL;
	if (f->clock > f->end)
		f->clock = f->end;
	return ready(f);
}

/* The driver engines' decision (npuprof_filter.h) on a recorded record:
 * 1 keep, 0 filtered, -1 sampled out. */
static int keep(struct file_engine *f, const struct npuprof_record *r)
{
	uint32_t dev, stream, task = 0;
	int kind = NPUPROF_KIND_TASK, v;
	struct npuprof_who who;

	switch (r->hdr.type) {
	case NPUPROF_REC_SUBMIT:
		dev = r->submit.devid;
		stream = r->submit.stream_id;
		task = r->submit.task_id;
		kind = NPUPROF_KIND_SUBMIT;
		break;
	case NPUPROF_REC_COMPLETE:
		dev = r->complete.devid;
		stream = r->complete.stream_id;
		task = r->complete.task_id;
		break;
	case NPUPROF_REC_TASK_TIME:
		dev = r->task_time.devid;
		stream = r->task_time.stream_id;
		task = r->task_time.task_id;
		break;
	case NPUPROF_REC_RECV:
		if (!npuprof_filter_wants(&f->filter, r->hdr.type))
			return 0;
		dev = r->recv.devid;
		stream = r->recv.chan_id;
		kind = NPUPROF_KIND_OTHER;
		break;
	default: return 1; /* clock sync, drops: always */
	}
	/* a submit's is its SQ owner's, as the engine attributed it; a
	 * completion's too when attributed, else the interrupted task's:
	 * nobody's */
	who.tgid = kind != NPUPROF_KIND_TASK || (r->hdr.flags & NPUPROF_F_SQ_OWNER) ? r->hdr.pid :
										      0;
	who.uid = 0;
	who.sq_owner = 0;
	v = npuprof_filter_decide(&f->filter, kind, dev, stream, task, &who);
	return v == NPUPROF_KEEP ? 1 : v == NPUPROF_SAMPLED_OUT ? -1 : 0;
}

static long file_read(struct npuprof_engine *e, npuprof_record_fn fn, void *ctx)
{
	struct file_engine *f = e->priv;
	long delivered = 0;

	while (ready(f)) {
		const struct npuprof_record *r = &f->rec[f->pos++];
		int k;

		if (r->hdr.type < NPUPROF_REC_TYPE_MAX)
			f->st.events[r->hdr.type]++;
		k = keep(f, r);
		if (k == 0) {
			f->st.filtered++;
			continue;
		}
		if (k < 0) {
			f->st.sampled_out++;
			continue;
		}
		f->st.written++;
		delivered++;
		if (fn(ctx, r))
			break;
	}
	return delivered;
}

static int file_stats(struct npuprof_engine *e, struct npuprof_stats *st)
{
	struct file_engine *f = e->priv;

	*st = f->st;
	return 0;
}

static uint64_t file_now(struct npuprof_engine *e)
{
	return ((struct file_engine *)e->priv)->clock;
}

static void file_close(struct npuprof_engine *e)
{
	struct file_engine *f = e->priv;

	if (!f)
		return;
	free(f->rec);
	free(f->owner);
	free(f->streams);
	free(f);
	e->priv = NULL;
}

const struct npuprof_engine_ops npuprof_engine_file = {
	.name = "file",
	.open = file_open,
	.start = file_start,
	.stop = file_stop,
	.wait = file_wait,
	.read = file_read,
	.stats = file_stats,
	.close = file_close,
	.now = file_now,
};
