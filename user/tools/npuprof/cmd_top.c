/*
 * npuprof top — per device and stream, refreshed in the terminal: tasks
 * completed per second, queue depth (tasks in flight), the share of the
 * interval the stream had work in flight (from submits and queue progress:
 * the driver's tracepoints carry no device execution times, which are the
 * STARS log's, `npuprof record`), and the oldest task in flight.
 */
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "cmds.h"
#include "numparse.h"
#include "npuprof/session.h"
#include "tracker.h"

struct top_ctx {
	struct tracker trk;
	uint64_t interval_ns, last;
	int batch, iterations, shown;
	uint64_t dropped;
};

static int on_record(void *vctx, const struct npuprof_record *r)
{
	tracker_feed(&((struct top_ctx *)vctx)->trk, r);
	return 0;
}

static int by_dev_stream(const void *a, const void *b)
{
	const struct trk_stream *x = *(struct trk_stream *const *)a;
	const struct trk_stream *y = *(struct trk_stream *const *)b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void show(struct top_ctx *c, uint64_t now)
{
	double dt = (now - c->last) / 1e9;
	struct trk_stream *v[4096];
	size_t n = 0;
	int dev = -1;
	double dev_rate = 0, dev_busy = 0;
	uint64_t dev_q = 0;

	for (struct trk_stream *s = c->trk.all; s && n < 4096; s = s->next)
		v[n++] = s;
	qsort(v, n, sizeof(v[0]), by_dev_stream);
	if (!c->batch)
		fputs("\033[H\033[2J", stdout);
	printf("npuprof top — %zu streams, %llu records, %llu lost, every %.1f s\n", n,
	       (unsigned long long)c->trk.records, (unsigned long long)c->dropped,
	       c->interval_ns / 1e9);
	printf("%4s %6s %10s %7s %6s %11s %10s %10s\n", "DEV", "STREAM", "TASKS/S", "QUEUED",
	       "BUSY%", "OLDEST(ms)", "SUBMITTED", "COMPLETED");
	for (size_t i = 0; i <= n; i++) {
		struct trk_stream *s = i < n ? v[i] : NULL;

		if (dev >= 0 && (!s || (int)s->dev != dev)) {
			printf("%4d %6s %10.0f %7llu %6.1f\n", dev, "all", dev_rate,
			       (unsigned long long)dev_q, dev_busy);
			dev_rate = dev_busy = 0;
			dev_q = 0;
		}
		if (!s)
			break;
		dev = (int)s->dev;
		{
			double rate = dt > 0 ? (s->completes - s->prev_completes) / dt : 0;
			uint64_t occ = tracker_occupied_ns(s, now);
			double busy = dt > 0 ? 100.0 * (occ - s->prev_occupied_ns) / 1e9 / dt : 0;
			double oldest = s->len ? (now - s->q[s->first].ts) / 1e6 : 0;

			if (busy > 100)
				busy = 100;
			if (!s->submits && s->unsubmitted) /* UIO_D: no submits to follow */
				printf("%4u %6u %10s %7s %6s %11s %10s %10llu  no submits seen (direct-doorbell SQ?)\n",
				       s->dev, s->id, "-", "-", "-", "-", "-",
				       (unsigned long long)s->unsubmitted);
			else
				printf("%4u %6u %10.0f %7u %6.1f %11.1f %10llu %10llu\n", s->dev,
				       s->id, rate, s->len, busy, oldest,
				       (unsigned long long)s->submits,
				       (unsigned long long)s->completes);
			dev_rate += rate;
			dev_busy += busy;
			dev_q += s->len;
			s->prev_completes = s->completes;
			s->prev_occupied_ns = occ;
		}
	}
	if (c->batch)
		putchar('\n');
	fflush(stdout);
	c->last = now;
	c->shown++;
}

static void on_tick(void *vctx, struct npuprof_engine *e)
{
	struct top_ctx *c = vctx;
	uint64_t now = capture_now_ns();
	struct npuprof_stats st;

	if (now - c->last < c->interval_ns)
		return;
	memset(&st, 0, sizeof(st));
	e->ops->stats(e, &st);
	c->dropped = st.dropped;
	show(c, now);
	if (c->iterations && c->shown >= c->iterations)
		raise(SIGINT); /* ends capture_run's loop */
}

/* The first interval starts when the capture does (on the capture's clock,
 * which is a replay's stream time). */
static void before_start(void *vctx, pid_t pid, struct npuprof_engine *e)
{
	((struct top_ctx *)vctx)->last = capture_now_ns();
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: npuprof top [options] [-- CMD ARGS]\n"
		"  Per device and stream, refreshed: tasks completed per second, tasks\n"
		"  queued (in flight), busy share (of the interval, with work in flight),\n"
		"  oldest task in flight. A stream whose SQ fires no submits (direct\n"
		"  doorbell) shows its completions only.\n\n"
		"  -d, --interval S        refresh every S seconds (default 1)\n"
		"  -n, --iterations N      stop after N refreshes\n"
		"  -b, --batch             append each refresh instead of redrawing\n" CAPTURE_USAGE
			REPLAY_USAGE "\nexamples:\n"
		"  npuprof top --devices 0,1\n"
		"  npuprof top -b -n 5 -- ./npuwork --scenario train\n"
		"  npuprof top -b --interval 0.5 --from PROF_000001_20260609062613089_LCGOJBRHMJCDONRB\n");
}

int cmd_top(int argc, char **argv)
{
	static const struct option lo[] = { CAPTURE_LONG_OPTIONS,
					    REPLAY_LONG_OPTION,
					    { "interval", required_argument, 0, 'd' },
					    { "iterations", required_argument, 0, 'n' },
					    { "batch", no_argument, 0, 'b' },
					    { "help", no_argument, 0, 'h' },
					    { 0, 0, 0, 0 } };
	struct capture_args *a = calloc(1, sizeof(*a));
	struct capture_result res;
	struct top_ctx c;
	int opt, status;
	double interval;

	if (!a)
		return 1;
	memset(&c, 0, sizeof(c));
	c.interval_ns = 1000000000ULL;
	c.batch = !isatty(1);
	capture_args_init(a);
	optind = 1;
	while ((opt = capture_getopt(a, "npuprof top", argc, argv, "+d:n:bh", lo)) != -1) {
		switch (opt) {
		case CAP_OPT_INVALID: free(a); return 2;
		case 'd':
			if (opt_double("npuprof top", "-d", optarg, 0.1, 86400, &interval) < 0) {
				free(a);
				return 2;
			}
			c.interval_ns = (uint64_t)(interval * 1e9);
			break;
		case 'n':
			if (opt_int("npuprof top", "-n", optarg, 1, INT_MAX, &c.iterations) < 0) {
				free(a);
				return 2;
			}
			break;
		case 'b': c.batch = 1; break;
		case 'h':
			usage(stdout);
			free(a);
			return 0;
		default:
			usage(stderr);
			free(a);
			return 2;
		}
	}
	if (optind < argc)
		a->cmd = argv + optind;
	a->o.flags |= NPUPROF_CFG_NO_RECV;
	if (tracker_init(&c.trk) < 0) {
		free(a);
		return 1;
	}
	status = capture_run(a, "npuprof top", on_record, &c, on_tick, before_start, &res);
	if (!status && !c.shown)
		show(&c, res.end_ns);
	if (!status && res.exit_status > 0)
		status = res.exit_status;
	tracker_free(&c.trk);
	capture_args_free(a);
	free(a);
	return status;
}
