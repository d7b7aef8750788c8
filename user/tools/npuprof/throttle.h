/*
 * throttle.h — production sampling applied to the record stream in user
 * space, so that both engines share it: duty-cycle windows (capture ON ms
 * of every PERIOD ms) and a per-CPU rate limit (at most N tasks per second
 * submitted from each CPU).
 *
 * Both decide once per task, at its submit, and the task's completion and
 * device task time follow that decision, so a submit is never kept without
 * its completion or the other way round. A completion whose submit was not
 * seen (submitted before the capture started) is skipped. The counts of
 * what was skipped go into the session and the database's META_DATA.
 *
 * The engines' in-kernel 1-in-N sampling (--sample) is what reduces probe
 * cost; these bound the volume that reaches the reader and the disk.
 */
#ifndef NPUPROF_TOOL_THROTTLE_H
#define NPUPROF_TOOL_THROTTLE_H

#include <stdint.h>

#include "npuprof/engine.h"
#include "u64map.h"

#define THROTTLE_MAX_CPUS 1024

struct throttle {
	uint64_t on_ns, period_ns; /* window; period 0: none */
	uint32_t rate; /* tasks per second per CPU; 0: none */
	uint64_t t0; /* window phase origin */
	struct u64map decided; /* task key -> 1 keep, 2 window, 3 rate */
	double tokens[THROTTLE_MAX_CPUS];
	uint64_t last_ns[THROTTLE_MAX_CPUS];
	uint64_t window_skipped, rate_skipped; /* records */
	uint64_t window_tasks, rate_tasks; /* tasks skipped */
	npuprof_record_fn fn; /* where kept records go */
	void *ctx;
};

void throttle_init(struct throttle *t, uint32_t on_ms, uint32_t period_ms, uint32_t rate,
		   npuprof_record_fn fn, void *ctx);
void throttle_free(struct throttle *t);
/* A record_fn: pass r on to t->fn if it is kept. */
int throttle_record(void *t, const struct npuprof_record *r);

#endif
