/*
 * throttle.c — duty-cycle windows and per-CPU rate limits (throttle.h).
 */
#include "throttle.h"

#include <string.h>

#define KEEP 1
#define SKIP_WINDOW 2
#define SKIP_RATE 3

void throttle_init(struct throttle *t, uint32_t on_ms, uint32_t period_ms, uint32_t rate,
		   npuprof_record_fn fn, void *ctx)
{
	memset(t, 0, sizeof(*t));
	t->on_ns = on_ms * 1000000ULL;
	t->period_ns = period_ms * 1000000ULL;
	t->rate = rate;
	t->fn = fn;
	t->ctx = ctx;
	u64map_init(&t->decided);
}

void throttle_free(struct throttle *t)
{
	u64map_free(&t->decided);
}

static int in_window(struct throttle *t, uint64_t ts)
{
	if (!t->period_ns)
		return 1;
	if (!t->t0)
		t->t0 = ts;
	return ts < t->t0 || (ts - t->t0) % t->period_ns < t->on_ns;
}

/* Token bucket of the submitting CPU: rate tokens a second, burst of one
 * second's worth. */
static int rate_ok(struct throttle *t, const struct npuprof_record *r)
{
	uint32_t c = r->hdr.cpu % THROTTLE_MAX_CPUS;

	if (!t->rate)
		return 1;
	if (!t->last_ns[c]) {
		t->tokens[c] = t->rate;
	} else if (r->hdr.ts > t->last_ns[c]) {
		t->tokens[c] += (r->hdr.ts - t->last_ns[c]) * 1e-9 * t->rate;
		if (t->tokens[c] > t->rate)
			t->tokens[c] = t->rate;
	}
	t->last_ns[c] = r->hdr.ts;
	if (t->tokens[c] < 1)
		return 0;
	t->tokens[c] -= 1;
	return 1;
}

int throttle_record(void *vt, const struct npuprof_record *r)
{
	struct throttle *t = vt;
	uint64_t k, v = 0;

	switch (r->hdr.type) {
	case NPUPROF_REC_SUBMIT:
		k = npuprof_task_key(r->submit.devid, r->submit.stream_id, r->submit.task_id);
		if (!in_window(t, r->hdr.ts)) {
			u64map_put(&t->decided, k, SKIP_WINDOW);
			t->window_skipped++;
			t->window_tasks++;
			return 0;
		}
		if (!rate_ok(t, r)) {
			u64map_put(&t->decided, k, SKIP_RATE);
			t->rate_skipped++;
			t->rate_tasks++;
			return 0;
		}
		u64map_put(&t->decided, k, KEEP);
		break;
	case NPUPROF_REC_COMPLETE:
		k = npuprof_task_key(r->complete.devid, r->complete.stream_id, r->complete.task_id);
		u64map_get(&t->decided, k, &v);
		if (v != KEEP) {
			/* follows its submit; unseen submits count as windowed */
			if (v == SKIP_RATE)
				t->rate_skipped++;
			else
				t->window_skipped++;
			return 0;
		}
		break;
	case NPUPROF_REC_RECV:
		if (!in_window(t, r->hdr.ts)) {
			t->window_skipped++;
			return 0;
		}
		break;
	}
	return t->fn(t->ctx, r);
}
