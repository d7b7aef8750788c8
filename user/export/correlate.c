/*
 * correlate.c — see correlate.h.
 */
#include "correlate.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

struct corr_entry {
	struct corr_task t;
	uint32_t sq, sq_end; /* its SQ, and the SQ's head once it was consumed
				(its submit's tail) */
	uint32_t next; /* in the stream's FIFO, or the free list */
	uint32_t stream_idx;
	int in_map; /* inflight maps its key to this entry (a resubmit of the
                       key while in flight takes the mapping away) */
};

struct corr_stream {
	uint32_t head, tail; /* FIFO of entries in submit order */
	uint32_t last_task; /* last submitted 16-bit task id */
	uint32_t batch;
	int seen;
	uint64_t prev_end; /* derived times: end of the previous task */
	uint32_t last_retired; /* task id + 1 of the last task retired, 0: none */
	uint32_t last_head; /* + 1: the SQ head last seen (retire_to_head) */
};

/* ---- clocks ------------------------------------------------------------- */

void corr_clock_add(struct corr_clock *c, uint64_t host_ns, uint64_t cnt, uint64_t hz)
{
	double x, y;

	if (!c->samples) {
		c->c0 = cnt;
		c->h0 = host_ns;
		c->slope = hz ? 1e9 / (double)hz : 1.0;
		c->n = c->sx = c->sy = c->sxx = c->sxy = c->syy = 0;
	}
	x = (double)(int64_t)(cnt - c->c0);
	y = (double)(int64_t)(host_ns - c->h0);
	c->n += 1;
	c->sx += x;
	c->sy += y;
	c->sxx += x * x;
	c->sxy += x * y;
	c->syy += y * y;
	c->samples++;
}

/* Least squares host = h0 + intercept + slope * (cnt - c0); with one sample
 * the nominal frequency gives the slope. */
void corr_clock_fit(struct corr_clock *c)
{
	double den, ss;

	if (!c->samples)
		return;
	c->valid = 1;
	den = c->n * c->sxx - c->sx * c->sx;
	if (c->samples >= 2 && den > 0) {
		c->slope = (c->n * c->sxy - c->sx * c->sy) / den;
		c->intercept = (c->sy - c->slope * c->sx) / c->n;
	} else {
		c->intercept = c->sy / c->n - c->slope * c->sx / c->n;
	}
	ss = c->syy - 2 * c->slope * c->sxy - 2 * c->intercept * c->sy +
	     c->slope * c->slope * c->sxx + 2 * c->slope * c->intercept * c->sx +
	     c->intercept * c->intercept * c->n;
	c->residual = ss > 0 ? sqrt(ss / c->n) : 0;
}

uint64_t corr_clock_mono(const struct corr_clock *c, uint64_t cnt)
{
	double x = (double)(int64_t)(cnt - c->c0);
	double y = c->intercept + c->slope * x;

	/* llround's rounding (half away from zero) without its call where
	 * the result fits; llround itself (its own result for what does not
	 * fit, NaN included) elsewhere: a cast would be undefined there */
	if (y > -9.2e18 && y < 9.2e18)
		return c->h0 + (uint64_t)(int64_t)(y >= 0 ? y + 0.5 : y - 0.5);
	return c->h0 + (uint64_t)(int64_t)llround(y);
}

/* ---- tasks -------------------------------------------------------------- */

static uint64_t task_key(uint32_t dev, uint32_t stream, uint32_t task)
{
	return npuprof_task_key(dev, stream, task);
}

int corr_init(struct correlator *c, corr_submit_fn on_submit, corr_done_fn on_done, void *ctx)
{
	memset(&c->stats, 0, sizeof(c->stats));
	c->submitted_only = 0;
	c->on_submit = on_submit;
	c->on_done = on_done;
	c->ctx = ctx;
	c->next_gtid = 0;
	c->last_ts = 0;
	u64map_init(&c->inflight);
	u64map_init(&c->streams);
	c->ent = NULL;
	c->nent = c->capent = 0;
	c->freelist = NIL;
	c->st = NULL;
	c->nst = c->capst = 0;
	memset(c->st_cache, 0, sizeof(c->st_cache));
	c->held = NULL;
	c->held_head = c->held_n = c->held_cap = 0;
	c->held_seq0 = 0;
	u64map_init(&c->held_tt);
	return 0;
}

/* The stream cache's slot of (dev, stream). */
static inline unsigned stream_slot(uint32_t dev, uint32_t stream)
{
	return (dev * 7 + stream) & (CORR_STREAM_CACHE - 1);
}

/* stream_of's miss: the map, and a new stream if there is none. */
__attribute__((noinline)) static struct corr_stream *stream_find(struct correlator *c, uint32_t dev,
								 uint32_t stream, uint32_t *idx)
{
	uint64_t k = npuprof_stream_key(dev, stream), v;
	unsigned slot = stream_slot(dev, stream);

	if (u64map_get(&c->streams, k, &v)) {
		c->st_cache[slot].key = k;
		c->st_cache[slot].idx1 = (uint32_t)v + 1;
		*idx = (uint32_t)v;
		return &c->st[v];
	}
	if (c->nst == c->capst) {
		uint32_t cap = c->capst ? 2 * c->capst : 64;
		struct corr_stream *n = realloc(c->st, cap * sizeof(*n));

		if (!n)
			return NULL;
		c->st = n;
		c->capst = cap;
	}
	memset(&c->st[c->nst], 0, sizeof(c->st[0]));
	c->st[c->nst].head = c->st[c->nst].tail = NIL;
	if (u64map_put(&c->streams, k, c->nst) < 0)
		return NULL;
	*idx = c->nst;
	return &c->st[c->nst++];
}

/* A device has a few streams in use: those found lately are found without
 * a lookup (the miss path is out of line, so the hit needs no frame). */
static inline struct corr_stream *stream_of(struct correlator *c, uint32_t dev, uint32_t stream,
					    uint32_t *idx)
{
	unsigned slot = stream_slot(dev, stream);

	if (c->st_cache[slot].idx1 && c->st_cache[slot].key == npuprof_stream_key(dev, stream)) {
		*idx = c->st_cache[slot].idx1 - 1;
		return &c->st[*idx];
	}
	return stream_find(c, dev, stream, idx);
}

static uint32_t entry_alloc(struct correlator *c)
{
	uint32_t i;

	if (c->freelist != NIL) {
		i = c->freelist;
		c->freelist = c->ent[i].next;
		return i;
	}
	if (c->nent == c->capent) {
		uint32_t cap = c->capent ? 2 * c->capent : 1024;
		struct corr_entry *n = realloc(c->ent, cap * sizeof(*n));

		if (!n)
			return NIL;
		c->ent = n;
		c->capent = cap;
	}
	return c->nent++;
}

/* Unlink the FIFO head of stream s (must be entry i) and free it. */
static void pop_head(struct correlator *c, struct corr_stream *s, uint32_t i)
{
	struct corr_entry *e = &c->ent[i];

	s->head = e->next;
	if (s->head == NIL)
		s->tail = NIL;
	s->last_retired = e->t.task + 1;
	u64map_del(&c->inflight, task_key(e->t.dev, e->t.stream, e->t.task));
	e->next = c->freelist;
	c->freelist = i;
}

static int done(struct correlator *c, struct corr_task *t)
{
	c->stats.tasks++;
	c->stats.derived += t->derived != 0;
	c->stats.orphans += t->orphan != 0;
	return c->on_done(c->ctx, t);
}

static int take_held_task_time(struct correlator *c, uint64_t k);

/* The oldest task of stream st (there is one) retires with derived times:
 * from its submit or its predecessor's end, whichever is later, to ts (or
 * its start, if ts is earlier). */
static int retire_head_derived(struct correlator *c, struct corr_stream *st, uint64_t ts)
{
	struct corr_entry *e = &c->ent[st->head];
	int ret;

	e->t.start_ns = e->t.submit_ns > st->prev_end ? e->t.submit_ns : st->prev_end;
	e->t.end_ns = ts > e->t.start_ns ? ts : e->t.start_ns;
	e->t.derived = 1;
	st->prev_end = e->t.end_ns;
	ret = done(c, &e->t);
	pop_head(c, st, st->head);
	return ret;
}

/*
 * The device has consumed SQ sq of stream st up to head (a submit's or a
 * CQE's sq_head): on a device without task times, the task whose submit
 * left the tail there, and every earlier one, are done: they retire with
 * derived times, ending by ts. A 910B writes CQEs for few tasks (wr_cqe,
 * event records, place holders), so this is how the others complete. A
 * head that names no task in flight (records lost, nothing consumed since)
 * retires nothing; the scan stops at the first match, which is the only
 * one while fewer tasks than the SQ's depth are in flight.
 */
static int retire_to_head(struct correlator *c, struct corr_stream *st, uint32_t dev, uint32_t sq,
			  uint32_t head, uint64_t ts)
{
	uint32_t i, n = 0;
	int ret;

	if (dev < CORR_MAX_DEV && c->task_time[dev])
		return 0; /* the device's own times retire its tasks */
	if (st->last_head == head + 1)
		return 0; /* no progress since: nothing to look for */
	st->last_head = head + 1;
	for (i = st->head; i != NIL; i = c->ent[i].next, n++)
		if (c->ent[i].sq == sq && c->ent[i].sq_end == head)
			break;
	if (i == NIL)
		return 0;
	for (uint32_t k = 0; k <= n; k++)
		if ((ret = retire_head_derived(c, st, ts)) != 0)
			return ret;
	return 0;
}

static int on_submit(struct correlator *c, const struct npuprof_record *r)
{
	const struct npuprof_submit *s = &r->submit;
	uint64_t k = task_key(s->devid, s->stream_id, s->task_id), old;
	struct corr_stream *st;
	uint32_t si, i;
	int ret;

	c->stats.submits++;
	st = stream_of(c, s->devid, s->stream_id, &si);
	if (!st)
		return -ENOMEM;
	if ((ret = retire_to_head(c, st, s->devid, s->sq_id, s->sq_head, r->hdr.ts)) != 0)
		return ret;
	if (st->seen && (s->task_id & 0xffff) <= st->last_task)
		st->batch++; /* the 16-bit id wrapped */
	st->seen = 1;
	st->last_task = s->task_id & 0xffff;

	i = entry_alloc(c);
	if (i == NIL)
		return -ENOMEM;
	struct corr_entry *e = &c->ent[i];

	/* every field stored, none zeroed first: a memset (or a compound
	 * literal, which gcc zeroes with one) becomes a rep stos whose
	 * start-up is a good part of a task's time here */
	e->t.gtid = c->next_gtid++;
	e->t.dev = s->devid;
	e->t.stream = npuprof_stream_id(s->stream_id);
	e->t.task = s->task_id & 0xffff;
	e->t.batch = st->batch;
	e->t.sqe_type = s->sqe_type;
	e->t.pid = r->hdr.pid;
	e->t.tid = r->hdr.tid;
	e->t.submit_ns = r->hdr.ts;
	e->t.start_ns = e->t.end_ns = 0;
	e->t.derived = e->t.orphan = 0;
	e->t.user = NULL;
	e->sq = s->sq_id;
	e->sq_end = s->sq_tail;
	e->next = NIL;
	e->stream_idx = si;
	e->in_map = 1;
	if (c->on_submit)
		c->on_submit(c->ctx, &e->t);
	if (st->tail != NIL)
		c->ent[st->tail].next = i;
	else
		st->head = i;
	st->tail = i;
	ret = u64map_swap(&c->inflight, k, i, &old);
	if (ret == 1) {
		/* the same key again while in flight: 65536 tasks queued, or
		 * the completion was lost; the old one is counted in flight */
		c->stats.dup_submits++;
		c->ent[old].in_map = 0;
		ret = 0;
	}
	return ret ? ret : take_held_task_time(c, k);
}

static int hold(struct correlator *c, const struct npuprof_record *r, uint64_t gtid);

/* A task finished with device times: retire it (earlier tasks of the
 * stream still queued before it are retired as derived). With @may_hold a
 * task not submitted yet, as far as the records say, waits for its
 * submit. */
static int on_task_time(struct correlator *c, const struct npuprof_record *r, int may_hold)
{
	const struct npuprof_task_time *tt = &r->task_time;
	const struct corr_clock *clk = tt->devid < CORR_MAX_DEV ? &c->clock[tt->devid] : NULL;
	uint64_t k = task_key(tt->devid, tt->stream_id, tt->task_id), v;
	uint64_t start = r->hdr.ts, end = r->hdr.ts;
	uint32_t si;
	struct corr_stream *st = stream_of(c, tt->devid, tt->stream_id, &si);
	int ret, found;

	/* in order, the task is its stream's oldest: no lookup */
	if (st && st->head != NIL && c->ent[st->head].in_map &&
	    c->ent[st->head].t.task == (tt->task_id & NPUPROF_TASK_ID_MASK)) {
		v = st->head;
		found = 1;
	} else {
		found = u64map_get(&c->inflight, k, &v);
	}
	if (!found && c->submitted_only &&
	    (!may_hold ||
	     (st && st->seen && (uint16_t)(st->last_task - (tt->task_id & 0xffff)) < 0x8000))) {
		/* its submit did not come, or its stream is past it (a
		 * stream's submits come in task order): not kept */
		c->stats.unkept++;
		return 0;
	}
	if (!found && may_hold) {
		if (u64map_get(&c->held_tt, k, NULL))
			return 0; /* one waits already: a duplicate */
		if (u64map_put(&c->held_tt, k, c->held_seq0 + c->held_n) < 0)
			return -ENOMEM;
		return hold(c, r, CORR_HELD_TT);
	}
	c->stats.task_times++;
	if (clk && clk->valid) {
		start = corr_clock_mono(clk, tt->start_cnt);
		end = corr_clock_mono(clk, tt->end_cnt);
		if (end < start)
			end = start;
	}
	if (!found) {
		struct corr_task t;

		memset(&t, 0, sizeof(t));
		t.gtid = c->next_gtid++;
		t.dev = tt->devid;
		t.stream = npuprof_stream_id(tt->stream_id);
		t.task = tt->task_id & 0xffff;
		t.batch = st ? st->batch : 0;
		t.sqe_type = tt->sqe_type;
		t.start_ns = start;
		t.end_ns = end;
		t.orphan = 1;
		t.derived = !(clk && clk->valid);
		if (st)
			st->last_retired = t.task + 1; /* its CQE is no orphan */
		return done(c, &t);
	}
	struct corr_entry *e = &c->ent[v];

	st = &c->st[e->stream_idx];
	/* an earlier task lost its task-time record: derive */
	while (st->head != NIL && st->head != (uint32_t)v)
		if ((ret = retire_head_derived(c, st, start)) != 0)
			return ret;
	e->t.start_ns = start;
	e->t.end_ns = end;
	e->t.derived = !(clk && clk->valid);
	st->prev_end = end;
	ret = done(c, &e->t);
	pop_head(c, st, (uint32_t)v);
	return ret;
}

/* A completion from the CQ path. Without device task times this
 * completion retires its task and every earlier one of the stream, with
 * derived times. With them the task-time record, which comes first,
 * retires tasks, and the CQE names the task just retired; a CQE of a task
 * still in flight (it ended without a task time: aborted, or the record
 * was lost) retires it as without task times, and a CQE of neither is a
 * completion without a submit. */
/* Hold record @r: a completion of the in-flight task @gtid for its task
 * time, or a task time (CORR_HELD_TT) for its submit. */
static int hold(struct correlator *c, const struct npuprof_record *r, uint64_t gtid)
{
	struct corr_held *h;

	if (c->held_n == c->held_cap) {
		uint32_t cap = c->held_cap ? 2 * c->held_cap : 1024;
		struct corr_held *n = malloc(cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (uint32_t i = 0; i < c->held_n; i++)
			n[i] = c->held[(c->held_head + i) % c->held_cap];
		free(c->held);
		c->held = n;
		c->held_cap = cap;
		c->held_head = 0;
	}
	h = &c->held[(c->held_head + c->held_n++) % c->held_cap];
	h->r = *r;
	h->gtid = gtid;
	h->until = r->hdr.ts + (gtid == CORR_HELD_TT ? CORR_TT_HOLD_NS : CORR_HOLD_NS);
	h->gone = 0;
	return 0;
}

/* The held record of sequence number @seq, or NULL if it left. */
static struct corr_held *held_at(struct correlator *c, uint64_t seq)
{
	if (seq < c->held_seq0 || seq - c->held_seq0 >= c->held_n)
		return NULL;
	return &c->held[(c->held_head + (seq - c->held_seq0)) % c->held_cap];
}

/* Task @k was just submitted: the task time that waited for it, if one did. */
static int take_held_task_time(struct correlator *c, uint64_t k)
{
	struct corr_held *h;
	uint64_t seq;

	if (!c->held_tt.len || !u64map_get(&c->held_tt, k, &seq))
		return 0;
	u64map_del(&c->held_tt, k);
	h = held_at(c, seq);
	if (!h || h->gone)
		return 0;
	h->gone = 1;
	return on_task_time(c, &h->r, 0);
}

static int complete_inflight(struct correlator *c, const struct npuprof_record *r, uint32_t v);

/* The oldest held record, whose time is up: a task time whose submit did
 * not come is a task without one; a completion whose task's time did not
 * come retires its task (it retired already if the time came). */
static int release_held(struct correlator *c)
{
	struct corr_held h = c->held[c->held_head];
	const struct npuprof_complete *cq = &h.r.complete;
	uint64_t v, seq;

	c->held_head = (c->held_head + 1) % c->held_cap;
	c->held_n--;
	c->held_seq0++;
	if (h.gtid == CORR_HELD_TT) {
		const struct npuprof_task_time *tt = &h.r.task_time;
		uint64_t k = task_key(tt->devid, tt->stream_id, tt->task_id);

		if (h.gone)
			return 0;
		if (u64map_get(&c->held_tt, k, &seq) && seq == c->held_seq0 - 1)
			u64map_del(&c->held_tt, k);
		return on_task_time(c, &h.r, 0);
	}
	if (!u64map_get(&c->inflight, task_key(cq->devid, cq->stream_id, cq->task_id), &v) ||
	    c->ent[v].t.gtid != h.gtid)
		return 0;
	return complete_inflight(c, &h.r, (uint32_t)v);
}

int corr_drain(struct correlator *c)
{
	int ret = 0;

	while (c->held_n && !ret)
		ret = release_held(c);
	return ret;
}

static int on_complete(struct correlator *c, const struct npuprof_record *r)
{
	const struct npuprof_complete *cq = &r->complete;
	uint64_t k = task_key(cq->devid, cq->stream_id, cq->task_id), v;
	int found, ret;

	if (r->hdr.flags & NPUPROF_F_CQE_RECV)
		return 0; /* the same CQE again, as the receiver took it */
	c->stats.completions++;
	found = u64map_get(&c->inflight, k, &v);
	if (found && cq->devid < CORR_MAX_DEV && c->task_time[cq->devid])
		return hold(c, r, c->ent[v].t.gtid);
	/* a task time waits for this task's submit: it makes the task */
	if (!found && c->held_tt.len && u64map_get(&c->held_tt, k, NULL))
		return 0;
	if (cq->devid < CORR_MAX_DEV && c->task_time[cq->devid] && !found) {
		uint64_t sk = npuprof_stream_key(cq->devid, cq->stream_id), si;

		/* a stream's tasks retire in order: a task id at or a little
		 * behind the last retired one (16-bit ids, CORR_RETIRED_BACK)
		 * is retired; its CQE can come after later tasks' times */
		if (u64map_get(&c->streams, sk, &si) && c->st[si].last_retired &&
		    (uint16_t)(c->st[si].last_retired - 1 - (cq->task_id & 0xffff)) <
			    CORR_RETIRED_BACK)
			return 0;
	}
	if (!found) {
		struct corr_task t;

		memset(&t, 0, sizeof(t));
		t.gtid = c->next_gtid++;
		t.dev = cq->devid;
		t.stream = npuprof_stream_id(cq->stream_id);
		t.task = cq->task_id & 0xffff;
		t.start_ns = t.end_ns = r->hdr.ts;
		t.orphan = 1;
		t.derived = 1;
		ret = done(c, &t);
	} else {
		ret = complete_inflight(c, r, (uint32_t)v);
	}
	/* its SQ head retires what the device consumed past it */
	if (!ret && u64map_get(&c->streams, npuprof_stream_key(cq->devid, cq->stream_id), &v))
		ret = retire_to_head(c, &c->st[v], cq->devid, cq->sq_id, cq->sq_head, r->hdr.ts);
	return ret;
}

/* Completion @r of in-flight entry @v: it and every earlier task of its
 * stream retire, with derived times. */
static int complete_inflight(struct correlator *c, const struct npuprof_record *r, uint32_t v)
{
	struct corr_stream *st = &c->st[c->ent[v].stream_idx];
	int ret;

	for (;;) {
		uint32_t h = st->head;

		if ((ret = retire_head_derived(c, st, r->hdr.ts)) != 0)
			return ret;
		if (h == (uint32_t)v || st->head == NIL)
			break;
	}
	return 0;
}

int corr_feed(struct correlator *c, const struct npuprof_record *r)
{
	/* in arrival order: one waiting longer holds back those after it */
	while (c->held_n && c->held[c->held_head].until <= r->hdr.ts) {
		int ret = release_held(c);

		if (ret)
			return ret;
	}
	if (r->hdr.ts < c->last_ts)
		c->stats.late++;
	else
		c->last_ts = r->hdr.ts;
	switch (r->hdr.type) {
	case NPUPROF_REC_SUBMIT: return on_submit(c, r);
	case NPUPROF_REC_TASK_TIME: return on_task_time(c, r, 1);
	case NPUPROF_REC_COMPLETE: return on_complete(c, r);
	case NPUPROF_REC_DROP: c->stats.drops_lost += r->drop.lost; return 0;
	default: return 0;
	}
}

void corr_finish(struct correlator *c)
{
	c->stats.in_flight = c->inflight.len + c->stats.dup_submits;
	u64map_free(&c->inflight);
	u64map_free(&c->streams);
	free(c->ent);
	free(c->st);
	free(c->held);
	u64map_free(&c->held_tt);
	c->ent = NULL;
	c->st = NULL;
	c->held = NULL;
	c->held_n = c->held_cap = c->held_head = 0;
}
