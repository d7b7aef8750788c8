/*
 * drain — the cheapest possible consumer of a capture engine: count records
 * until SIGINT. The benchmark uses it to separate the capture cost (probes,
 * rings, wake-ups, reading) from what a tool does with each record. At
 * the end it prints how many it read, how many the engine dropped and how
 * many had no time (npuprof.ko's probe_mode=nostamp).
 *
 *   drain ENGINE   (kmod | bpf)
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "npuprof/engine.h"

static volatile sig_atomic_t stop;

static void on_int(int s)
{
	(void)s;
	stop = 1;
}

struct counts {
	unsigned long long records, untimed; /* untimed: time 0 */
};

static int count(void *ctx, const struct npuprof_record *r)
{
	struct counts *c = ctx;

	if (r->hdr.size) {
		c->records++;
		c->untimed += !r->hdr.ts;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct npuprof_capture_opts o;
	struct npuprof_engine *e;
	struct npuprof_stats st;
	char err[NPUPROF_ENGINE_ERRLEN];
	struct counts n = { 0, 0 };

	memset(&o, 0, sizeof(o));
	if (npuprof_engine_open(&e, argc > 1 ? argv[1] : "kmod", &o, err, sizeof(err)) < 0 ||
	    e->ops->start(e) < 0) {
		fprintf(stderr, "drain: %s\n", err);
		return 1;
	}
	signal(SIGINT, on_int);
	while (!stop) {
		e->ops->wait(e, 200);
		e->ops->read(e, count, &n);
	}
	e->ops->stop(e);
	e->ops->read(e, count, &n);
	memset(&st, 0, sizeof(st));
	e->ops->stats(e, &st);
	printf("drain: %llu records, %llu dropped, %llu with time 0\n", n.records,
	       (unsigned long long)st.dropped, n.untimed);
	npuprof_engine_close(e);
	return 0;
}
