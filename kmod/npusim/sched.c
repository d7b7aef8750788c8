// SPDX-License-Identifier: GPL-2.0
/*
 * The npusim device model: in-order streams, a core-limited task scheduler
 * and completion from timer (interrupt) context.
 *
 * Each stream executes one task at a time, in SQ order. A task may start when
 * its dependencies are met (an event or notify has been recorded) and the
 * device has the cores it needs; it then runs for its modelled duration. A
 * wait's task time begins when it reached the head of its stream, so it
 * lasts until its event is recorded, as on the device. Timed tasks
 * (NPUSIM_TASK_F_TIMED, for replaying a recorded timeline) start at their
 * recorded time, after their stream's previous task and their event's
 * record, computed from those times rather than from when the model got
 * round to them, run for exactly their duration, take no cores, and may be
 * FFTS+ subtasks inside their container (NPUSIM_TASK_F_SUBTASK). One
 * hrtimer, armed for the earliest end among running tasks on all devices,
 * completes tasks: it emits the task-time record, writes a CQE (always, or in
 * realistic mode only for tasks that request one and for event-record and
 * place-holder tasks; a stream bound to a logic CQ has it converted and
 * queued there, logic_cq.c), wakes waiters and starts whatever became
 * ready.
 *
 * A full CQ cannot take a CQE: by default the CQE is lost and counted
 * (cq_overflow, per stream and per device), so a program that never
 * receives keeps running; with cq_hold=1 the device holds the stream's
 * finished task until the host receives, as the hardware does.
 *
 * The fault injector (fault.c) decides whether a finished task is held or
 * its completion lost; the model asks it and acts on the answer, and
 * carries out the injected events: a device reset, a CQE for a task never
 * submitted. What the host sees of all this goes out through the
 * tracepoints of trace.c.
 */
#include <linux/hrtimer.h>
#include <linux/math64.h>
#include <linux/random.h>
#include <linux/sched.h>
#include "npusim.h"

/* The state of every device, under one lock (see npusim.h). */
DEFINE_SPINLOCK(npusim_lock);
struct npusim_dev *npusim_devs[NPUSIM_MAX_DEVICES];

static struct hrtimer npusim_timer;

/* The event or notify id an SQE of those types names. */
static u32 npusim_sqe_sync_id(const struct npusim_sqe *sqe)
{
	switch (sqe->type & NPUSIM_SQE_TYPE_MASK) {
	case NPUSIM_SQE_EVENT_RECORD:
	case NPUSIM_SQE_EVENT_WAIT: return sqe->u.event.event_id;
	case NPUSIM_SQE_NOTIFY_RECORD:
	case NPUSIM_SQE_NOTIFY_WAIT:
		return sqe->u.notify.notify_id & NPUSIM_NOTIFY_ID_MASK;
	default: return 0;
	}
}

/* Bytes an SDMA / PCIE_DMA SQE copies (its real payload), else 0. */
static u64 npusim_sqe_copy_bytes(const struct npusim_sqe *sqe)
{
	switch (sqe->type & NPUSIM_SQE_TYPE_MASK) {
	case NPUSIM_SQE_SDMA: return sqe->u.sdma.length;
	case NPUSIM_SQE_PCIE_DMA: return sqe->u.pcie_dma.length;
	default: return 0;
	}
}

/*
 * An SQE as the channel layer takes it: the header names the SQ's stream
 * (bits 0-14; bit 15 is the sync-task flag the device passes on to the
 * CQE) and a STARS v1 type (below RT_STARS_SQE_TYPE_END), else -EINVAL; of
 * the types npusim models, the payload must name what exists on the device
 * (an event or notify id in range, a copy the model can time). Any other
 * payload bytes are the device's business and taken as they are.
 */
int npusim_sqe_validate(const struct npusim_sqe *sqe, u32 stream_id)
{
	u32 type = sqe->type & NPUSIM_SQE_TYPE_MASK;

	if ((sqe->stream_id & NPUSIM_STREAM_ID_MASK) != stream_id ||
	    type >= NPUSIM_SQE_TYPE_END)
		return -EINVAL;
	switch (type) {
	case NPUSIM_SQE_AI_CORE:
	case NPUSIM_SQE_AI_CPU:
	case NPUSIM_SQE_AIV:
	case NPUSIM_SQE_PLACE_HOLDER:
	case NPUSIM_SQE_COND: return 0;
	case NPUSIM_SQE_WRITE_VALUE:
		/* an event reset names an event of the device */
		return sqe->u.write_value.sub_type !=
					       NPUSIM_WRITE_VALUE_SUB_EVENT_RESET ||
				       sqe->u.write_value.rsv3 <
					       NPUSIM_MAX_EVENTS ?
			       0 :
			       -EINVAL;
	case NPUSIM_SQE_SDMA:
	case NPUSIM_SQE_PCIE_DMA:
		/* the modelled copy must fit in the longest task */
		if (npusim_sqe_copy_bytes(sqe) > (1ULL << 40) ||
		    div_u64(npusim_sqe_copy_bytes(sqe) * 1000ULL,
			    npusim_sdma_mbps) > NPUSIM_MAX_TASK_NS)
			return -EINVAL;
		return 0;
	case NPUSIM_SQE_EVENT_RECORD:
	case NPUSIM_SQE_EVENT_WAIT:
		return npusim_sqe_sync_id(sqe) < NPUSIM_MAX_EVENTS ? 0 :
								     -EINVAL;
	case NPUSIM_SQE_NOTIFY_RECORD:
	case NPUSIM_SQE_NOTIFY_WAIT:
		return npusim_sqe_sync_id(sqe) < NPUSIM_MAX_NOTIFIES ? 0 :
								       -EINVAL;
	default: return -EINVAL; /* a STARS type npusim does not model */
	}
}

/* The simulator's model of a (validated) SQE: in range, flags known. */
int npusim_model_validate(const struct npusim_sqe *sqe,
			  const struct npusim_task_model *m)
{
	if (m->duration_ns > NPUSIM_MAX_TASK_NS || m->jitter_pm > 1000 ||
	    m->kind > NPUSIM_KERNEL_MIX_AIV || m->rsv)
		return -EINVAL;
	if ((m->flags & ~NPUSIM_TASK_F_MASK) ||
	    ((m->flags & NPUSIM_TASK_F_SUBTASK) &&
	     !(m->flags & NPUSIM_TASK_F_TIMED)) ||
	    (!(m->flags & NPUSIM_TASK_F_TIMED) && m->start_ns) ||
	    ((m->flags & NPUSIM_TASK_F_SUBTASK) &&
	     m->start_ns > NPUSIM_MAX_TASK_NS))
		return -EINVAL;
	switch (sqe->type & NPUSIM_SQE_TYPE_MASK) {
	case NPUSIM_SQE_NOTIFY_RECORD:
	case NPUSIM_SQE_EVENT_RECORD:
	case NPUSIM_SQE_EVENT_WAIT:
	case NPUSIM_SQE_WRITE_VALUE: /* an event reset */
		if (m->target_dev > npusim_ndev)
			return -EINVAL;
	}
	return 0;
}

/* The device whose event (notify) table a record or wait of @s with
 * model @m uses: the model's target, else the stream's own (on a 910B the
 * runtime writes the remote event's or notify's address). */
static struct npusim_dev *npusim_sync_dev(struct npusim_stream *s,
					  const struct npusim_task_model *m)
{
	/* validated for the types that use it; checked again, cheaply */
	return m->target_dev && m->target_dev <= npusim_ndev ?
		       npusim_devs[m->target_dev - 1] :
		       s->dev;
}

void npusim_event_queued_locked(struct npusim_stream *s, u32 pos)
{
	const struct npusim_sqe *sqe = &s->sq[pos & (s->depth - 1)];

	if ((sqe->type & NPUSIM_SQE_TYPE_MASK) == NPUSIM_SQE_EVENT_RECORD)
		npusim_sync_dev(s, &s->model[pos & (s->depth - 1)])
			->event_pending[npusim_sqe_sync_id(sqe)]++;
}

/* Records of SQ positions [@from, @to) of @s that will never complete
 * (dropped): no longer in flight (NPUSIM_IOC_EVENT_STATUS). */
void npusim_event_unqueue_locked(struct npusim_stream *s, u32 from, u32 to)
{
	for (; from != to; from++) {
		const struct npusim_sqe *sqe = &s->sq[from & (s->depth - 1)];
		struct npusim_dev *d;

		if ((sqe->type & NPUSIM_SQE_TYPE_MASK) !=
		    NPUSIM_SQE_EVENT_RECORD)
			continue;
		d = npusim_sync_dev(s, &s->model[from & (s->depth - 1)]);
		if (d->event_pending[npusim_sqe_sync_id(sqe)])
			d->event_pending[npusim_sqe_sync_id(sqe)]--;
	}
}

/* ---- the model ---------------------------------------------------------- */

/*
 * A kernel's work is cycles of the AI Core clock: modelled at the rated
 * frequency, it runs rated/current times as long when the device runs
 * slower (lp.c). The frequency when it starts holds for the whole kernel.
 */
static u64 npusim_kernel_scale(const struct npusim_dev *dev,
			       const struct npusim_sqe *sqe, u64 d)
{
	u32 type = sqe->type & NPUSIM_SQE_TYPE_MASK;
	u32 cur = npusim_aicore_cur_mhz(dev);

	if ((type != NPUSIM_SQE_AI_CORE && type != NPUSIM_SQE_AIV) || !cur ||
	    cur >= npusim_aicore_mhz)
		return d;
	return mul_u64_u32_div(d, npusim_aicore_mhz, cur);
}

static u64 npusim_task_duration(const struct npusim_dev *dev,
				const struct npusim_sqe *sqe,
				const struct npusim_task_model *m)
{
	u64 d = m->duration_ns;

	if (!d && !(m->flags & NPUSIM_TASK_F_TIMED) &&
	    npusim_sqe_copy_bytes(sqe))
		d = NPUSIM_SDMA_BASE_NS +
		    div_u64(npusim_sqe_copy_bytes(sqe) * 1000ULL,
			    npusim_sdma_mbps);
	if (m->jitter_pm && d) {
		u64 span = div_u64(d * m->jitter_pm, 1000);
		u64 r = span ? get_random_u64() % (2 * span + 1) : 0;

		d = d - span + r;
	}
	if (m->flags & NPUSIM_TASK_F_TIMED)
		return d; /* as recorded, however short, at any frequency */
	return npusim_kernel_scale(dev, sqe, max_t(u64, d, NPUSIM_MIN_TASK_NS));
}

/*
 * Cores a task occupies while it runs: (cube, vector, aicpu). A type 0
 * kernel says its cores in ffts_type (AIC only, AIV only, or mixed); type 2
 * is a vector kernel. Which cores lead a mix is the model's kind (a mix
 * also when ffts_type does not say so: a type 2 kernel of a replay).
 */
static void npusim_task_cores(const struct npusim_sqe *sqe,
			      const struct npusim_task_model *m, u32 *aic,
			      u32 *aiv, u32 *aicpu)
{
	u32 bd = max_t(u32, sqe->block_dim, 1);
	u32 naic = npusim_aicores, naiv = 2 * npusim_aicores;
	u32 ffts = sqe->u.ffts.ffts_type & NPUSIM_FFTS_TYPE_MASK;
	u32 type = sqe->type & NPUSIM_SQE_TYPE_MASK;

	*aic = 0;
	*aiv = 0;
	*aicpu = 0;
	switch (type) {
	case NPUSIM_SQE_AI_CORE:
	case NPUSIM_SQE_AIV:
		if (m->kind == NPUSIM_KERNEL_MIX_AIV) {
			*aiv = min(bd, naiv);
			*aic = min(DIV_ROUND_UP(bd, 2), naic);
		} else if (m->kind == NPUSIM_KERNEL_MIX_AIC ||
			   (type == NPUSIM_SQE_AI_CORE &&
			    ffts == NPUSIM_FFTS_AIC_AIV_MIX)) {
			*aic = min(bd, naic);
			*aiv = min(2 * bd, naiv);
		} else if (type == NPUSIM_SQE_AIV ||
			   ffts == NPUSIM_FFTS_AIV_ONLY) {
			*aiv = min(bd, naiv);
		} else {
			*aic = min(bd, naic);
		}
		break;
	case NPUSIM_SQE_AI_CPU: *aicpu = min(bd, npusim_aicpus); break;
	}
}

/*
 * A wait whose event (notify) is not recorded yet does not start; it has
 * been waiting since it first came up, which is where its task time
 * begins, so a wait lasts until its event is recorded, as on the device.
 */
static bool npusim_dep_ready(struct npusim_stream *s,
			     const struct npusim_sqe *sqe,
			     const struct npusim_task_model *m, u64 now,
			     u64 *dep_ns)
{
	struct npusim_dev *dev;
	u8 *set;

	/* only an event wait's target is validated (npusim_model_validate);
	 * a notify wait waits on its own device's notify */
	switch (sqe->type & NPUSIM_SQE_TYPE_MASK) {
	case NPUSIM_SQE_EVENT_WAIT:
		dev = npusim_sync_dev(s, m);
		set = &dev->event_set[npusim_sqe_sync_id(sqe)];
		*dep_ns = dev->event_ns[npusim_sqe_sync_id(sqe)];
		break;
	case NPUSIM_SQE_NOTIFY_WAIT:
		dev = s->dev;
		set = &dev->notify_set[npusim_sqe_sync_id(sqe)];
		*dep_ns = dev->notify_ns[npusim_sqe_sync_id(sqe)];
		break;
	default: *dep_ns = 0; return true;
	}
	if (!*set) {
		if (!s->waiting) {
			s->waiting = true;
			s->wait_since = now;
		}
		return false;
	}
	*set = 0;
	return true;
}

static bool npusim_try_start(struct npusim_stream *s, u64 now)
{
	struct npusim_dev *dev = s->dev;
	const struct npusim_sqe *sqe = &s->sq[s->head & (s->depth - 1)];
	const struct npusim_task_model *m = &s->model[s->head & (s->depth - 1)];
	u32 aic, aiv, aicpu;
	u64 dep_ns, start;

	if (m->flags & NPUSIM_TASK_F_SUBTASK) {
		/* inside its container: no dependency, no cores */
		s->running = true;
		s->used_aic = s->used_aiv = s->used_aicpu = 0;
		s->start_ns = s->container_start_ns + m->start_ns;
		s->end_ns = s->start_ns + npusim_task_duration(dev, sqe, m);
		return true;
	}
	if (m->flags & NPUSIM_TASK_F_TIMED) {
		/* the recorded timeline: what the task waited for, never
		 * when the host or the timer came round to it */
		start = max(m->start_ns, s->last_end_ns);
		if (!npusim_dep_ready(s, sqe, m, start, &dep_ns))
			return false;
		s->waiting = false;
		s->running = true;
		s->used_aic = s->used_aiv = s->used_aicpu = 0;
		s->start_ns = start;
		s->end_ns = max(start, dep_ns) +
			    npusim_task_duration(dev, sqe, m);
		s->container_start_ns = start;
		return true;
	}
	if (!npusim_dep_ready(s, sqe, m, now, &dep_ns))
		return false;
	npusim_task_cores(sqe, m, &aic, &aiv, &aicpu);
	if (aic > dev->aic_free || aiv > dev->aiv_free ||
	    aicpu > dev->aicpu_free)
		return false;
	dev->aic_free -= aic;
	dev->aiv_free -= aiv;
	dev->aicpu_free -= aicpu;
	s->used_aic = aic;
	s->used_aiv = aiv;
	s->used_aicpu = aicpu;
	s->running = true;
	s->start_ns = s->waiting ? s->wait_since : now;
	s->waiting = false;
	s->end_ns = now + npusim_task_duration(dev, sqe, m);
	s->container_start_ns = s->start_ns;
	return true;
}

static bool npusim_wants_cqe(const struct npusim_sqe *sqe)
{
	u32 type = sqe->type & NPUSIM_SQE_TYPE_MASK;

	if (!npusim_cqe_mode)
		return true;
	return (sqe->ctrl & NPUSIM_SQE_CTRL_WR_CQE) ||
	       type == NPUSIM_SQE_EVENT_RECORD ||
	       type == NPUSIM_SQE_PLACE_HOLDER;
}

/*
 * The device writes a CQE for s into its CQ (sq_head: how far the SQ has
 * been consumed, s->head). "Cqe Dispatch" fires for every CQE the device
 * writes. Bytes 8-15 are the device counter for an event record or place
 * holder that did not fail, else the error info: the SQE's type and its
 * SQ slot @sqe_index (trs_stars_cq.h). When the stream is bound to a logic
 * CQ the driver takes the CQE from there at once (logic_cq.c), so the
 * stream's own CQ never sees it. Otherwise a full CQ cannot take it: the
 * CQE is lost and counted (the first loss of a stream is logged); with
 * cq_hold the model never gets here with a full CQ except for an aborted
 * or unknown task, which cannot wait. A destroyed stream's CQ is not
 * written: nobody receives it any more.
 */
static void npusim_cq_post(struct npusim_stream *s, u32 type, u16 stream_id,
			   u16 task_id, u16 err, u64 end_cnt, u16 sqe_index)
{
	struct npusim_cqe cqe;
	u32 pos = s->cq_tail;

	cqe.flags = ((pos / s->depth) & 1 ? 0 : NPUSIM_CQE_PHASE) |
		    ((s->id & NPUSIM_CQE_SQID_MASK) << NPUSIM_CQE_SQID_SHIFT) |
		    err;
	if (type == NPUSIM_SQE_EVENT_RECORD)
		cqe.flags |= NPUSIM_CQE_EVT;
	if (type == NPUSIM_SQE_PLACE_HOLDER)
		cqe.flags |= NPUSIM_CQE_PLACE_HOLD;
	if ((cqe.flags & (NPUSIM_CQE_EVT | NPUSIM_CQE_PLACE_HOLD)) && !err) {
		cqe.syscnt = end_cnt;
	} else {
		cqe.err.error_code = 0;
		cqe.err.type_flags = (type & NPUSIM_SQE_TYPE_MASK)
				     << NPUSIM_CQE_ERR_SQE_TYPE_SHIFT;
		cqe.err.sqe_index = sqe_index;
		cqe.err.sq_sw_status = 0;
	}
	cqe.sq_head = s->head & (s->depth - 1);
	cqe.stream_id = stream_id;
	cqe.task_id = task_id;
	npusim_trace_cqe(s, TRS_CHAN_STR_CQE_DISPATCH, &cqe, pos);
	if (s->dead)
		return; /* torn down: there is no host to lose it */
	if (npusim_logic_cq_take_locked(s, &cqe))
		return;
	if (s->cq_tail - s->cq_head < s->depth) {
		s->cq[pos & (s->depth - 1)] = cqe;
		s->cq_tail++;
		return;
	}
	if (!s->cq_overflow)
		pr_warn_ratelimited(
			"npusim: dev %u stream %u: CQ full, CQE of task %u lost\n",
			s->dev->id, s->id, task_id);
	s->cq_overflow++;
	s->dev->cq_overflow++;
}

/*
 * The full-CQ rule with cq_hold: s's finished head task needs a CQE and its
 * CQ has no room, so the device holds the task (the SQ is not consumed
 * further) until the host receives. A destroyed stream is never held.
 */
static bool npusim_cq_blocked(struct npusim_stream *s)
{
	const struct npusim_sqe *sqe = &s->sq[s->head & (s->depth - 1)];

	return npusim_cq_hold && !s->dead &&
	       s->cq_tail - s->cq_head >= s->depth && npusim_wants_cqe(sqe);
}

static void npusim_complete(struct npusim_stream *s)
{
	struct npusim_dev *dev = s->dev;
	const struct npusim_sqe *sqe = &s->sq[s->head & (s->depth - 1)];
	const struct npusim_task_model *m = &s->model[s->head & (s->depth - 1)];
	u32 type = sqe->type & NPUSIM_SQE_TYPE_MASK;
	u64 end_cnt = npusim_dev_counter(dev, s->end_ns);
	bool drop;

	dev->aic_free += s->used_aic;
	dev->aiv_free += s->used_aiv;
	dev->aicpu_free += s->used_aicpu;
	s->running = false;

	if (type == NPUSIM_SQE_EVENT_RECORD) {
		struct npusim_dev *to = npusim_sync_dev(s, m);
		u32 id = npusim_sqe_sync_id(sqe);

		to->event_set[id] = 1;
		to->event_ns[id] = s->end_ns;
		if (to->event_pending[id])
			to->event_pending[id]--;
	} else if (type == NPUSIM_SQE_WRITE_VALUE &&
		   sqe->u.write_value.sub_type ==
			   NPUSIM_WRITE_VALUE_SUB_EVENT_RESET) {
		/* checked again, as npusim_sync_dev checks its target */
		u32 id = sqe->u.write_value.rsv3;

		if (id < NPUSIM_MAX_EVENTS)
			npusim_sync_dev(s, m)->event_set[id] = 0;
	} else if (type == NPUSIM_SQE_NOTIFY_RECORD) {
		/* a notify of another device: the model's target */
		struct npusim_dev *to = npusim_sync_dev(s, m);

		to->notify_set[npusim_sqe_sync_id(sqe)] = 1;
		to->notify_ns[npusim_sqe_sync_id(sqe)] = s->end_ns;
	}
	if (!(m->flags & NPUSIM_TASK_F_SUBTASK))
		s->last_end_ns = s->end_ns;

	/* an injected lost completion: the device finished the task but the
	 * host hears nothing of it (no STARS END record, no CQE) */
	drop = npusim_fault_drop_locked(dev, s);
	if (!drop) {
		npusim_stars_task(s, sqe, NPUSIM_STARS_FUNC_END, end_cnt);
	}

	s->head++;
	s->completed++;

	if (!drop && npusim_wants_cqe(sqe))
		npusim_cq_post(s, type, sqe->stream_id, sqe->task_id, 0,
			       end_cnt, (s->head - 1) & (s->depth - 1));
	wake_up_all(&s->wq);
}

/*
 * Run the model forward to now on every device: complete what has finished,
 * start what is ready, and repeat while anything changed (a completion can
 * release cores or record an event that unblocks another stream). Then arm
 * the timer for the earliest end. Called with npusim_lock held.
 */
void npusim_schedule_locked(void)
{
	struct npusim_stream *s, *tmp;
	u64 now, next;
	bool progress;
	unsigned int d;

	do {
		progress = false;
		now = ktime_get_ns();
		for (d = 0; d < npusim_ndev; d++) {
			struct npusim_dev *dev = npusim_devs[d];

			list_for_each_entry_safe(s, tmp, &dev->active,
						 active_node) {
				if (s->running && s->end_ns <= now &&
				    !npusim_fault_hold_locked(dev, s, now,
							      NULL) &&
				    !npusim_cq_blocked(s)) {
					npusim_complete(s);
					progress = true;
				}
				if (s->running)
					continue;
				if (s->head == s->tail) {
					list_del_init(&s->active_node);
					s->active = false;
					continue;
				}
				if (!s->dead && npusim_try_start(s, now)) {
					npusim_stars_task(
						s,
						&s->sq[s->head & (s->depth - 1)],
						NPUSIM_STARS_FUNC_START,
						npusim_dev_counter(
							dev, s->start_ns));
					progress = true;
				}
			}
		}
	} while (progress);

	next = U64_MAX;
	for (d = 0; d < npusim_ndev; d++)
		list_for_each_entry(s, &npusim_devs[d]->active, active_node) {
			u64 end = s->end_ns;

			/* held for CQ room: goes on when the host receives */
			if (!s->running || npusim_cq_blocked(s))
				continue;
			/* a held task ends when its stall does (or never) */
			if (npusim_fault_hold_locked(npusim_devs[d], s, now,
						     &end) &&
			    !end)
				continue;
			if (end < next)
				next = end;
		}
	if (next != U64_MAX)
		hrtimer_start(&npusim_timer, ns_to_ktime(next),
			      HRTIMER_MODE_ABS);
}

/*
 * Abort s's tasks, as a device reset does: the running one stops where it
 * is (no task-time record: it did not finish), the queued ones never start,
 * and each reports an error CQE in SQ order, whatever the CQE mode (the
 * hardware reports errors unasked), so the host retires every task it
 * submitted. A destroyed stream's tasks are dropped without CQEs: nobody
 * receives them. Returns the tasks aborted.
 */
static u32 npusim_abort_stream(struct npusim_stream *s, u64 now)
{
	struct npusim_dev *dev = s->dev;
	u64 cnt = npusim_dev_counter(dev, now);
	u32 n = 0;

	if (s->running) {
		dev->aic_free += s->used_aic;
		dev->aiv_free += s->used_aiv;
		dev->aicpu_free += s->used_aicpu;
		s->running = false;
	}
	s->waiting = false;
	npusim_event_unqueue_locked(s, s->head, s->tail);
	while (s->head != s->tail) {
		const struct npusim_sqe *sqe = &s->sq[s->head & (s->depth - 1)];

		s->head++;
		n++;
		if (!s->dead)
			npusim_cq_post(s, sqe->type & NPUSIM_SQE_TYPE_MASK,
				       sqe->stream_id, sqe->task_id,
				       NPUSIM_CQE_ERROR, cnt,
				       (s->head - 1) & (s->depth - 1));
	}
	if (n)
		wake_up_all(&s->wq);
	return n;
}

/*
 * Reset device @dev mid-stream: every task queued or running on it is
 * aborted with an error CQE (npusim_abort_stream), its events and notifies
 * are forgotten, and its streams stay usable: the next task submitted runs
 * as on a fresh device, as after the runtime's device task abort. Faults
 * that named the aborted tasks end (fault.c). Other devices go on; a
 * notify wait there for this device's aborted record waits on.
 */
void npusim_reset_locked(struct npusim_dev *dev)
{
	u64 now = ktime_get_ns();
	u32 id, aborted = 0;

	for (id = 0; id < npusim_max_streams; id++)
		if (dev->streams[id])
			aborted += npusim_abort_stream(dev->streams[id], now);
	memset(dev->event_set, 0, sizeof(dev->event_set));
	memset(dev->notify_set, 0, sizeof(dev->notify_set));
	npusim_fault_reset_locked(dev, aborted);
	npusim_schedule_locked();
}

/*
 * The device reports a completion for a task @stream never submitted: a
 * CQE (and "Cqe Dispatch") with task id @task, or when @task < 0 one that
 * fault.c picks, and no task-time record: the device ran no such task. The
 * stream's SQ is untouched. -ENOENT: no such stream.
 */
int npusim_cqe_unknown_locked(struct npusim_dev *dev, u32 stream, int task)
{
	struct npusim_stream *s = stream < npusim_max_streams ?
					  dev->streams[stream] :
					  NULL;
	u16 id;

	if (!s || s->dead)
		return -ENOENT;
	id = npusim_fault_unknown_task_locked(s);
	if (task >= 0)
		id = task;
	npusim_cq_post(s, NPUSIM_SQE_AI_CORE, s->id, id, 0, 0, 0);
	wake_up_all(&s->wq);
	return 0;
}

/* Wake every waiter on @dev's streams, to look at their state again. */
void npusim_wake_streams_locked(struct npusim_dev *dev)
{
	u32 id;

	for (id = 0; id < npusim_max_streams; id++)
		if (dev->streams[id])
			wake_up_all(&dev->streams[id]->wq);
}

static enum hrtimer_restart npusim_timer_fn(struct hrtimer *t)
{
	unsigned long flags;

	spin_lock_irqsave(&npusim_lock, flags);
	npusim_schedule_locked();
	spin_unlock_irqrestore(&npusim_lock, flags);
	return HRTIMER_NORESTART;
}

void npusim_sched_init(void)
{
	hrtimer_init(&npusim_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	npusim_timer.function = npusim_timer_fn;
}

void npusim_sched_exit(void)
{
	hrtimer_cancel(&npusim_timer);
}
