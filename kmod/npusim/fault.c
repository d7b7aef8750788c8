// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection, so that hang detection (npuprof watch, flight) and the
 * tracer's accounting are tested against a device that really misbehaves.
 * The faults of a device:
 *   stall   a stream completes nothing for a while (or until cleared): its
 *           running task, or the next one to start, is held on the device
 *           past its modelled end
 *   drop    the next task of a stream to finish is lost: no task-time record
 *           and no CQE reach the host
 *   cqfull  the host stops consuming a stream's CQ (CQ_RECV hands out
 *           nothing, as when the driver's CQ handling is stuck), so the CQ
 *           fills; what the device does then is the model's full-CQ rule
 *           (sched.c: the CQE is lost and counted, or with cq_hold=1 the
 *           stream is held back until the host receives again)
 *   reset   a one-shot event, not a state: the device aborts every task
 *           (sched.c); here it only ends the stall and drop it made moot
 *           and counts
 *   unknown a one-shot event: the device reports a completion of a task id
 *           that was never submitted (sched.c); here, which id
 * This file decides; the device model (sched.c) asks it about each finished
 * task and applies the answer, and /proc/trs_chan/dev<D>-ts0/fault
 * (procfs.c) sets and shows the faults. It calls neither of them.
 *
 * Everything is under npusim_lock like the rest of the device model. A
 * destroyed stream is never held, so tearing a stalled stream down (the
 * process exits or is killed) cannot hang.
 */
#include <linux/string.h>
#include "npusim.h"

/*
 * Is s's finished task held back by a stall at now? A held task's end moves
 * with the clock, so when it is released its device time covers the stall.
 * @release (optional) receives when the stall ends (0: never).
 */
bool npusim_fault_hold_locked(struct npusim_dev *dev, struct npusim_stream *s,
			      u64 now, u64 *release)
{
	if (!dev->fault_stall || dev->fault_stall - 1 != s->id || s->dead)
		return false;
	if (dev->fault_stall_until && now >= dev->fault_stall_until) {
		dev->fault_stall = 0;
		dev->fault_stall_until = 0;
		return false;
	}
	if (s->running && s->end_ns < now)
		s->end_ns = now;
	if (release)
		*release = dev->fault_stall_until;
	return true;
}

/* Called as s's task completes: is this completion the one to lose? */
bool npusim_fault_drop_locked(struct npusim_dev *dev, struct npusim_stream *s)
{
	if (!dev->fault_drop || dev->fault_drop - 1 != s->id)
		return false;
	dev->fault_drop = 0;
	dev->fault_dropped++;
	return true;
}

/* Stall stream @stream from @now for @ms milliseconds (0: until cleared).
 * The model must be run afterwards (npusim_schedule_locked) for the stall's
 * end to be timed. */
void npusim_fault_stall_locked(struct npusim_dev *dev, u32 stream, u32 ms,
			       u64 now)
{
	dev->fault_stall = stream + 1;
	dev->fault_stall_until = ms ? now + ms * 1000000ULL : 0;
}

/* Lose the next completion of stream @stream. */
void npusim_fault_drop_next_locked(struct npusim_dev *dev, u32 stream)
{
	dev->fault_drop = stream + 1;
}

/* The host stops consuming the CQ of stream @stream until cleared. */
void npusim_fault_cqfull_locked(struct npusim_dev *dev, u32 stream)
{
	dev->fault_cqfull = stream + 1;
}

/*
 * Is the host's consumption of s's CQ stopped? Read without the lock by
 * the CQ_RECV wait condition, hence READ_ONCE.
 */
bool npusim_fault_cq_stopped(struct npusim_stream *s)
{
	u32 f = READ_ONCE(s->dev->fault_cqfull);

	return f && f - 1 == s->id && !READ_ONCE(s->dead);
}

/*
 * The device was reset and aborted @aborted tasks: a stall or a pending
 * drop named tasks that are gone, so they end with it. A stopped CQ
 * consumer is the host's fault, not the device's: it stays.
 */
void npusim_fault_reset_locked(struct npusim_dev *dev, u32 aborted)
{
	dev->fault_stall = 0;
	dev->fault_stall_until = 0;
	dev->fault_drop = 0;
	dev->fault_resets++;
	dev->fault_aborted += aborted;
}

/*
 * The task id of a completion for a task that s never submitted: half the
 * 16-bit id space away from the last id submitted, so that it is neither in
 * flight (the SQ holds at most 65536 / 2 tasks) nor one just retired.
 */
u16 npusim_fault_unknown_task_locked(struct npusim_stream *s)
{
	u16 last = s->tail ? s->sq[(s->tail - 1) & (s->depth - 1)].task_id : 0;

	s->dev->fault_unknown++;
	return last ^ 0x8000;
}

/* End every fault of @dev; the model must be run afterwards to finish the
 * tasks that were held. */
void npusim_fault_clear_locked(struct npusim_dev *dev)
{
	dev->fault_stall = 0;
	dev->fault_stall_until = 0;
	dev->fault_drop = 0;
	dev->fault_cqfull = 0;
}

/* The faults in force on @dev, and for a stall the task it holds. */
void npusim_fault_report_locked(struct npusim_dev *dev,
				struct npusim_fault_report *r)
{
	memset(r, 0, sizeof(*r));
	r->stall = dev->fault_stall;
	r->stall_until = dev->fault_stall_until;
	r->drop = dev->fault_drop;
	r->dropped = dev->fault_dropped;
	r->cqfull = dev->fault_cqfull;
	r->resets = dev->fault_resets;
	r->aborted = dev->fault_aborted;
	r->unknown = dev->fault_unknown;
	r->cq_overflow = dev->cq_overflow;
	if (r->stall && r->stall - 1 < npusim_max_streams &&
	    dev->streams[r->stall - 1]) {
		struct npusim_stream *s = dev->streams[r->stall - 1];

		r->queued = s->tail - s->head;
		if (r->queued) {
			r->task = s->sq[s->head & (s->depth - 1)].task_id;
			r->have_task = true;
		}
	}
}
