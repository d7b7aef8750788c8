/*
 * tracker.h — what is in flight on every device stream, rebuilt from the
 * capture stream: the live view of `npuprof top` and the hang detector of
 * `npuprof watch` and `npuprof flight`.
 *
 * The records are the driver's only (submits and CQEs: the kernel stream has
 * no device task times). Streams execute in order, so a CQE of task T
 * retires T and everything submitted to the stream before it. Most tasks
 * write no CQE (a 910B writes them for wr_cqe tasks only), so progress also
 * comes from the SQ: every submit and CQE carries the SQ's head (how far the
 * device has consumed it), each queued task its SQ position (its submit's
 * tail - 1), and a head at position P retires the tasks before the newest
 * queued task at P (all of them when P is past the last submit). A head
 * that names no queued position (lost records) retires nothing. A stream
 * whose completions come without submits (a direct-doorbell SQ, send mode
 * UIO_D, fires no trs_chan:sqe) cannot be followed: it is counted as such
 * (`unsubmitted`), never shown as an empty queue. The head of a stream's queue
 * is the task the device is working on (or waiting on); it has been there
 * since it was submitted or since its predecessor completed, whichever is
 * later. A hang is a head that has been there longer than the threshold:
 * a task in flight too long, or a non-empty stream without completions —
 * one condition, measured so that a long queue behind a progressing head
 * never counts. A head that waits for an event or notify counts only while
 * no stream anywhere completes anything: a wait on progressing work is
 * how pipelines look, and the stuck stream it waits for is the cause.
 */
#ifndef NPUPROF_TOOL_TRACKER_H
#define NPUPROF_TOOL_TRACKER_H

#include <stdint.h>
#include <stdio.h>

#include "uapi/npuprof.h"

struct trk_task {
	uint64_t ts; /* submit, CLOCK_MONOTONIC ns */
	uint32_t task, type, pid, tid;
	uint32_t sq, pos; /* its SQ and position there (masked by the depth) */
};

struct trk_stream {
	uint32_t dev, id;
	struct trk_task *q; /* ring of tasks in flight, oldest first */
	uint32_t cap, first, len;
	/* the newest `run` tasks are on one SQ at positions that follow one
	 * another (apply_head finds the one at a head among them by its
	 * distance instead of a scan) */
	uint32_t run;
	uint64_t head_since; /* when q[first] became the head */
	/* when a record last showed the SQ head at q[first] (the device was
	 * at it then); 0: none since it became the head */
	uint64_t head_seen;
	uint64_t last_complete; /* ts of the last completion, 0: none */
	uint64_t submits, completes; /* cumulative */
	uint64_t cqes; /* CQEs written (receives not counted) */
	uint64_t unsubmitted; /* completions on a stream without submits seen */
	uint32_t sq, tail; /* the SQ and tail of the latest submit */
	/* time with at least one task in flight, up to occ_since if len */
	uint64_t occupied_ns, occ_since;
	uint64_t prev_completes, prev_occupied_ns; /* at the previous top refresh */
	uint32_t alarmed_task; /* task + 1 of the last hang reported */
	uint32_t overflow; /* tasks forgotten because the queue was full */
	struct trk_stream *next; /* all streams, newest first */
	struct trk_stream *chain; /* the next stream of its slot (tracker.c) */
};

struct tracker {
	struct trk_stream **slot; /* [NPUPROF_MAX_DEVICES * NPUPROF_MAX_STREAMS] */
	struct trk_stream *all;
	uint64_t last_complete_any; /* the latest completion on any stream */
	uint64_t lost; /* records lost by the engine (DROP records) */
	uint64_t records;
	/* 1: the records are a replay; their processes are not this host's, so
	 * no /proc lookups (pid gone, comm) */
	int offline;
};

int tracker_init(struct tracker *t);
void tracker_free(struct tracker *t);
/* Feed one record (any type; non-task records are ignored). */
void tracker_feed(struct tracker *t, const struct npuprof_record *r);
/* The stream (dev, id), or NULL if no record named it. */
const struct trk_stream *tracker_stream(const struct tracker *t, uint32_t dev, uint32_t id);
/* The time stream s has had work in flight, up to now. */
uint64_t tracker_occupied_ns(const struct trk_stream *s, uint64_t now);

struct trk_hang {
	struct trk_stream *s;
	struct trk_task task; /* the head */
	uint64_t now;
	uint64_t stuck_ns; /* how long it has been the head */
};

/*
 * Find the stream whose head has waited longest, beyond threshold_ns, and
 * not reported yet for this task. Streams of processes that are gone are
 * forgotten (their queued tasks were cancelled without completions).
 * Returns 1 and fills h, or 0.
 */
int tracker_find_hang(struct tracker *t, uint64_t now, uint64_t threshold_ns, struct trk_hang *h);

/*
 * Write the hang report: device, stream, task id and type, submitting
 * pid/tid and command, how long, what is queued behind it, and — when
 * host_dir names a session directory the program writes its host stream
 * into — the host API call and msproftx ranges around the submission.
 */
void tracker_report(const struct tracker *t, const struct trk_hang *h, const char *host_dir,
		    FILE *f);

const char *tracker_type_name(uint32_t sqe_type);

#endif
