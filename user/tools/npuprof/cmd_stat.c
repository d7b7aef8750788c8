/*
 * npuprof stat — count what the NPU driver did, like `perf stat`.
 *
 *   npuprof stat [--engine kmod|bpf|auto] [--pid P | -- CMD ARGS]
 *                [--duration S] [--sample N] [--devices LIST]
 *                [--streams LIST] [--ring-kb N] [--raw FILE]
 *
 * Runs CMD (capturing only it) or attaches to P, or captures every process
 * until SIGINT or the duration ends. Prints per-event counts, per device and
 * stream task counts, submit-to-complete latency percentiles and drops.
 * --raw also writes every captured record to a raw kernel stream file.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "cmds.h"
#include "npuprof/rawkern.h"
#include "tracker.h"

#define NBUCKET 65536

struct pending {
	uint64_t key;
	uint64_t ts;
	struct pending *next;
};

struct stat_ctx {
	uint64_t type[NPUPROF_REC_TYPE_MAX];
	uint64_t cqe_recv;
	uint64_t lost;
	struct pending *bucket[NBUCKET];
	struct pending *freelist;
	struct tracker trk; /* in flight by CQEs and queue progress */
	uint64_t *lat;
	size_t nlat, caplat;
	uint64_t last_ts[1024]; /* per CPU, for the order check */
	uint64_t disorder;
	struct npuprof_rawk_writer *raw;
};

static void pending_add(struct stat_ctx *c, uint64_t key, uint64_t ts)
{
	struct pending *p = c->freelist;

	if (p)
		c->freelist = p->next;
	else if (!(p = malloc(sizeof(*p))))
		return;
	p->key = key;
	p->ts = ts;
	p->next = c->bucket[key % NBUCKET];
	c->bucket[key % NBUCKET] = p;
}

static void pending_done(struct stat_ctx *c, uint64_t key, uint64_t ts)
{
	struct pending **pp = &c->bucket[key % NBUCKET], *p;

	for (; (p = *pp); pp = &p->next) {
		if (p->key != key)
			continue;
		*pp = p->next;
		p->next = c->freelist;
		c->freelist = p;
		if (c->nlat == c->caplat) {
			size_t n = c->caplat ? 2 * c->caplat : 4096;
			uint64_t *l = realloc(c->lat, n * sizeof(*l));

			if (!l)
				return;
			c->lat = l;
			c->caplat = n;
		}
		c->lat[c->nlat++] = ts > p->ts ? ts - p->ts : 0;
		return;
	}
}

static int on_record(void *ctx, const struct npuprof_record *r)
{
	struct stat_ctx *c = ctx;

	tracker_feed(&c->trk, r);
	if (c->raw)
		npuprof_rawk_append(c->raw, r);
	if (r->hdr.type < NPUPROF_REC_TYPE_MAX)
		c->type[r->hdr.type]++;
	if (r->hdr.cpu < 1024) {
		if (r->hdr.ts < c->last_ts[r->hdr.cpu])
			c->disorder++;
		c->last_ts[r->hdr.cpu] = r->hdr.ts;
	}
	switch (r->hdr.type) {
	case NPUPROF_REC_SUBMIT:
		pending_add(c,
			    npuprof_task_key(r->submit.devid, r->submit.stream_id,
					     r->submit.task_id),
			    r->hdr.ts);
		break;
	case NPUPROF_REC_COMPLETE:
		if (r->hdr.flags & NPUPROF_F_CQE_RECV) {
			c->cqe_recv++;
			break;
		}
		pending_done(c,
			     npuprof_task_key(r->complete.devid, r->complete.stream_id,
					      r->complete.task_id),
			     r->hdr.ts);
		break;
	case NPUPROF_REC_DROP: c->lost += r->drop.lost; break;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_stream(const void *a, const void *b)
{
	const struct trk_stream *x = *(const struct trk_stream *const *)a,
				*y = *(const struct trk_stream *const *)b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: npuprof stat [options] [-- CMD ARGS]\n"
		   "  Count what the NPU driver does while CMD runs (or for --pid P, or for\n"
		   "  every process until Ctrl-C): events by type, tasks per device and\n"
		   "  stream, submit-to-complete latency percentiles, drops.\n\n" CAPTURE_USAGE
		   "  --raw FILE              also write every record to a raw kernel stream\n\n"
		   "examples:\n"
		   "  npuprof stat -- ./train.sh\n"
		   "  npuprof stat --engine bpf --duration 10\n"
		   "  npuprof stat --pid 4242 --devices 0 --sample 100\n");
}

static void print_report(struct stat_ctx *c, const struct npuprof_stats *ks, const char *engine,
			 const char *what, double secs, uint32_t sample_n)
{
	static const char *names[NPUPROF_REC_TYPE_MAX] = {
		[NPUPROF_REC_SUBMIT] = "submit",
		[NPUPROF_REC_COMPLETE] = "complete",
		[NPUPROF_REC_RECV] = "recv",
		[NPUPROF_REC_DROP] = "drop-marker",
	};
	static const char *src[NPUPROF_REC_TYPE_MAX] = {
		[NPUPROF_REC_SUBMIT] = "trs_chan:sqe Task Send",
		[NPUPROF_REC_COMPLETE] = "trs_chan:cqe, both call sites",
		[NPUPROF_REC_RECV] = "trs_chan:recv",
		[NPUPROF_REC_DROP] = "ring overflow markers",
	};

	printf("\n npuprof stat (engine %s) for %s: %.3f s\n\n", engine, what, secs);
	for (int t = 1; t < NPUPROF_REC_TYPE_MAX; t++) {
		if (!names[t]) /* clock samples; task times are the STARS log's */
			continue;
		printf(" %12llu  %-12s (%s)\n", (unsigned long long)c->type[t], names[t], src[t]);
	}
	printf(" %12llu  %-12s (of the completions: Task Recv)\n", (unsigned long long)c->cqe_recv,
	       "cqe-recv");
	printf(" %12llu  %-12s\n", (unsigned long long)(ks->dropped), "dropped");

	/* completed: the tasks the device finished, by their CQEs or by the
	 * SQ head (a 910B writes CQEs for few tasks); a stream completing
	 * without submits (direct doorbell, UIO_D) cannot be followed */
	printf("\n %6s %6s %12s %12s %12s\n", "device", "stream", "submitted", "completed", "CQEs");
	size_t n = 0, i = 0;
	const struct trk_stream **v;

	for (const struct trk_stream *s = c->trk.all; s; s = s->next)
		n++;
	v = n ? malloc(n * sizeof(*v)) : NULL;
	for (const struct trk_stream *s = c->trk.all; v && s; s = s->next)
		v[i++] = s;
	if (n && !v)
		printf(" (out of memory for the per-stream table)\n");
	else if (n)
		qsort(v, n, sizeof(*v), cmp_stream);
	for (i = 0; v && i < n; i++) {
		const struct trk_stream *s = v[i];
		char done[24];

		if (!s->submits && !s->cqes)
			continue; /* receives only */
		if (s->submits)
			snprintf(done, sizeof(done), "%llu", (unsigned long long)s->completes);
		else
			snprintf(done, sizeof(done), "not followed");
		printf(" %6u %6u %12llu %12s %12llu\n", s->dev, s->id,
		       (unsigned long long)s->submits, done, (unsigned long long)s->cqes);
	}
	free(v);

	if (c->nlat) {
		qsort(c->lat, c->nlat, sizeof(*c->lat), cmp_u64);
#define PCT(p) (c->lat[(size_t)((c->nlat - 1) * (p) / 100.0)] / 1000.0)
		printf("\n submit -> complete latency (us, tasks with a CQE): n=%zu p50=%.1f p90=%.1f p99=%.1f max=%.1f\n",
		       c->nlat, PCT(50), PCT(90), PCT(99), PCT(100));
#undef PCT
	}
	printf("\n records: written %llu, dropped %llu, filtered %llu, sampled out %llu (1 in %u), overwritten %llu\n",
	       (unsigned long long)ks->written, (unsigned long long)ks->dropped,
	       (unsigned long long)ks->filtered, (unsigned long long)ks->sampled_out,
	       sample_n > 1 ? sample_n : 1, (unsigned long long)ks->overwritten);
	uint64_t inflight = 0;

	for (const struct trk_stream *s = c->trk.all; s; s = s->next)
		inflight += s->len;
	printf(" tasks in flight at stop: %llu; per-CPU order violations: %llu; lost per drop markers: %llu\n",
	       (unsigned long long)inflight, (unsigned long long)c->disorder,
	       (unsigned long long)c->lost);
}

int cmd_stat(int argc, char **argv)
{
	static const struct option lo[] = { CAPTURE_LONG_OPTIONS,
					    { "raw", required_argument, 0, 'w' },
					    { "help", no_argument, 0, 'h' },
					    { 0, 0, 0, 0 } };
	struct capture_args a;
	struct capture_result res;
	struct stat_ctx *c;
	const char *rawpath = NULL;
	char err[NPUPROF_ENGINE_ERRLEN], what[256] = "all processes";
	int opt, status;

	capture_args_init(&a);
	optind = 1;
	while ((opt = capture_getopt(&a, "npuprof stat", argc, argv, "+w:h", lo)) != -1) {
		switch (opt) {
		case CAP_OPT_INVALID: return 2;
		case 'w': rawpath = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		a.cmd = argv + optind;
	c = calloc(1, sizeof(*c));
	if (!c)
		return 1;
	if (tracker_init(&c->trk) < 0) {
		free(c);
		return 1;
	}
	if (rawpath && npuprof_rawk_create(&c->raw, rawpath, a.engine, a.o.sample_n, a.o.flags, err,
					   sizeof(err)) < 0) {
		fprintf(stderr, "npuprof stat: %s\n", err);
		tracker_free(&c->trk);
		free(c);
		return 1;
	}
	status = capture_run(&a, "npuprof stat", on_record, c, NULL, NULL, &res);
	if (a.cmd)
		snprintf(what, sizeof(what), "'%s' (pid %d)", a.cmd[0], res.pid);
	else if (res.pid)
		snprintf(what, sizeof(what), "pid %d", res.pid);
	if (!status)
		print_report(c, &res.stats, res.engine, what, res.seconds, a.o.sample_n);
	if (c->raw && npuprof_rawk_close(c->raw) < 0) {
		fprintf(stderr, "npuprof stat: writing %s failed\n", rawpath);
		status = 1;
	}
	if (!status && res.exit_status > 0)
		status = res.exit_status;
	tracker_free(&c->trk);
	free(c->lat);
	for (int i = 0; i < NBUCKET; i++)
		while (c->bucket[i]) {
			struct pending *p = c->bucket[i];

			c->bucket[i] = p->next;
			free(p);
		}
	while (c->freelist) {
		struct pending *p = c->freelist;

		c->freelist = p->next;
		free(p);
	}
	free(c);
	return status;
}
