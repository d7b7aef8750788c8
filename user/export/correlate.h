/*
 * correlate.h — the kernel half of export: a streaming state machine that
 * turns capture records (submits, completions, device task times), fed in
 * timestamp order, into finished device tasks (docs/DESIGN.md §4).
 *
 * A task is keyed by (device, stream, 16-bit task id). Each (device, stream)
 * keeps its tasks in flight in submit order and counts task-id wraps (the
 * batch id), so wrapped ids never merge. globalTaskId is dense from 0 in
 * first-seen order. Times come from the device task-time records through a
 * least-squares fit of each device's clock-sync samples, or, for devices
 * without task-time records, are derived: start = max(submit, end of the
 * previous task on the stream), end = the completion that retired it (a
 * completion also retires every earlier task of its stream, which executes
 * in order), or, as a 910B writes CQEs for few tasks, the first submit or
 * CQE of its SQ whose sq_head is its submit's tail (the device consumed
 * it; every earlier task retires with it). Device times taken from the STARS log pass through the clock
 * fit, so they may come a little before a task's submit or after its
 * completion: a task time of a task not yet submitted waits up to
 * CORR_TT_HOLD_NS of record time for the submit (then it is a task without
 * one: send mode UIO_D has none), and on a device with task times a
 * completion waits as long for its task's time; a completion of a task at
 * or a little behind its stream's last retired one is of a retired task.
 * Memory is proportional to the tasks in flight.
 */
#ifndef NPUPROF_CORRELATE_H
#define NPUPROF_CORRELATE_H

#include <stdint.h>

#include "uapi/npuprof.h"
#include "u64map.h"

#define CORR_MAX_DEV 64
/* On a device with task times, a completion that arrives before its task's
 * time (the device log's times go through the clock fit, the CQE is the
 * host's stamp: they are close) waits this long, in record time, for it */
#define CORR_HOLD_NS 100000000ULL
/* A task time of a task not yet submitted waits this long for the submit:
 * npusim's replays (TIMED SQEs) run the recorded device timeline, which
 * can be ahead of the host's submits by a fraction of a second, and more
 * on a slow machine */
#define CORR_TT_HOLD_NS 10000000000ULL
/* ... and a completion of one of the last CORR_RETIRED_BACK task ids its
 * stream retired is of a retired task (later tasks' times came first) */
#define CORR_RETIRED_BACK 4096
#define CORR_STREAM_CACHE 64 /* a power of two */

struct corr_clock {
	int valid;
	uint64_t c0; /* first sample's counter */
	uint64_t h0; /* first sample's host ns */
	double slope; /* host ns per tick */
	double intercept; /* ns, relative to h0 */
	double residual; /* RMS, ns */
	uint32_t samples;
	double n, sx, sy, sxx, sxy, syy; /* sums relative to (c0, h0) */
};

struct corr_task {
	uint64_t gtid; /* globalTaskId */
	uint32_t dev, stream, task, batch;
	uint32_t sqe_type;
	uint32_t pid, tid; /* the submitter; 0 for an orphan */
	uint64_t submit_ns; /* CLOCK_MONOTONIC; 0 for an orphan */
	uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC */
	int derived; /* times derived from the kernel view */
	int orphan; /* completed without a captured submit */
	const void *user; /* what on_submit attached */
};

/* a record waiting: a completion for its task's time (gtid: the task it
 * found in flight), or a task time for its task's submit (gtid
 * CORR_HELD_TT; gone: the submit came and took it) */
#define CORR_HELD_TT UINT64_MAX
struct corr_held {
	struct npuprof_record r;
	uint64_t gtid;
	uint64_t until; /* record time when it stops waiting */
	int gone;
};

struct correlator;
/* Called when a submit is seen, to attach host information (t->user). */
typedef void (*corr_submit_fn)(void *ctx, struct corr_task *t);
/* Called when a task is finished. */
typedef int (*corr_done_fn)(void *ctx, const struct corr_task *t);

struct corr_stats {
	uint64_t submits, completions, task_times, drops_lost;
	uint64_t tasks, derived, orphans, in_flight, late;
	uint64_t dup_submits; /* a key resubmitted while still in flight */
	uint64_t unkept; /* task times left out: submitted_only, no submit */
};

struct correlator {
	struct corr_clock clock[CORR_MAX_DEV];
	int task_time[CORR_MAX_DEV]; /* device has task-time records */
	/* the capture kept some tasks, each with its submit (a windowed or
	 * rate-limited record: the throttle decides at the submit, and the
	 * kernel stream is what it kept): a task time without a submit is of
	 * a task it left out, so it is left out too (stats.unkept) rather
	 * than a task without a submit. One whose stream has a later submit
	 * already is left out at once; others wait for their submit as
	 * usual (CORR_TT_HOLD_NS) */
	int submitted_only;
	corr_submit_fn on_submit;
	corr_done_fn on_done;
	void *ctx;
	uint64_t next_gtid;
	uint64_t last_ts;
	struct u64map inflight; /* key -> entry index */
	struct u64map streams; /* (dev, stream) -> stream index */
	struct corr_entry *ent;
	uint32_t nent, capent, freelist;
	struct corr_stream *st;
	uint32_t nst, capst;
	/* streams found lately, direct-mapped by stream id: slot i holds
	 * stream index + 1 (0: empty) and its stream key */
	struct {
		uint64_t key;
		uint32_t idx1;
	} st_cache[CORR_STREAM_CACHE];
	struct corr_held *held; /* FIFO ring, in arrival order */
	uint32_t held_head, held_n, held_cap;
	uint64_t held_seq0; /* the sequence number of held[held_head] */
	struct u64map held_tt; /* task key -> sequence number of its held task time */
	struct corr_stats stats;
};

/* Fit each device's clock from CLOCK_SYNC records (call corr_clock_add for
 * every sample, then corr_clock_fit). */
void corr_clock_add(struct corr_clock *c, uint64_t host_ns, uint64_t cnt, uint64_t hz);
void corr_clock_fit(struct corr_clock *c);
uint64_t corr_clock_mono(const struct corr_clock *c, uint64_t cnt);

int corr_init(struct correlator *c, corr_submit_fn on_submit, corr_done_fn on_done, void *ctx);
/* Feed one record; records should arrive in timestamp order (later ones
 * are still handled and counted as late). Returns the callback's error. */
int corr_feed(struct correlator *c, const struct npuprof_record *r);
/* The end of the records: the completions still waiting for a task time
 * retire their tasks without one. Returns the callback's error. */
int corr_drain(struct correlator *c);
/* Count what is still in flight and free everything. */
void corr_finish(struct correlator *c);

#endif
