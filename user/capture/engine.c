/*
 * engine.c - choosing and opening a capture engine (npuprof/engine.h); the
 * driver engines get the driver's trace switches (trace_switch.c) turned on
 * for as long as they are open.
 */
#include "errmsg.h"
#include "npuprof/engine.h"
#include "trace_switch.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct npuprof_engine_ops *const engines[] = {
	&npuprof_engine_kmod,
	&npuprof_engine_bpf,
	&npuprof_engine_file,
};

/* The engine with what engine.c keeps beside it. */
struct engine_box {
	struct npuprof_engine e;
	struct trace_switches sw;
};

static struct engine_box *box_of(const struct npuprof_engine *e)
{
	return (struct engine_box *)((char *)e - offsetof(struct engine_box, e));
}

static const struct npuprof_engine_ops *engine_find(const char *name)
{
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (!strcmp(engines[i]->name, name))
			return engines[i];
	return NULL;
}

int npuprof_engine_open(struct npuprof_engine **out, const char *name,
			const struct npuprof_capture_opts *o, char *err, size_t errlen)
{
	const struct npuprof_engine_ops *ops;
	struct engine_box *b;
	int r;

	*out = NULL;
	if (!name || !strcmp(name, "auto"))
		name = access("/dev/npuprof", F_OK) == 0 ? "kmod" : "bpf";
	ops = engine_find(name);
	if (!ops) {
		npuprof_seterr(err, errlen,
			       "unknown capture engine '%s' (available: kmod, bpf, file, auto)",
			       name);
		return -EINVAL;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		npuprof_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	b->e.ops = ops;
	r = ops->open(&b->e, o);
	if (r < 0) {
		npuprof_seterr(err, errlen, "%s engine: %s", ops->name, b->e.err);
		free(b);
		return r;
	}
	if (ops->driver)
		trace_switch_on(&b->sw);
	*out = &b->e;
	return 0;
}

void npuprof_engine_close(struct npuprof_engine *e)
{
	if (!e)
		return;
	trace_switch_restore(&box_of(e)->sw);
	e->ops->close(e);
	free(box_of(e));
}

uint64_t npuprof_engine_now(struct npuprof_engine *e)
{
	struct timespec ts;

	if (e && e->ops->now)
		return e->ops->now(e);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int npuprof_engine_rearm(struct npuprof_engine *e)
{
	return e->ops->driver ? trace_switch_on(&box_of(e)->sw) : 0;
}

int npuprof_engine_switches_failed(const struct npuprof_engine *e)
{
	return box_of(e)->sw.failed;
}

void npuprof_engine_warn_switches(const struct npuprof_engine *e, const char *tool,
				  uint64_t captured)
{
	trace_switch_warn(tool, box_of(e)->sw.failed, box_of(e)->sw.unknown, captured);
}
