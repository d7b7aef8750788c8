/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npuprof.ko internals: capture sessions, per-CPU rings and the probes.
 *
 * A session belongs to one open file of /dev/npuprof. While it runs it sits
 * in np_sessions[], which the probes read under (sched-)RCU: tracepoint
 * probes run with preemption disabled, so stopping a session is "unpublish,
 * synchronize_rcu(), then the rings are quiet".
 */
#ifndef _NPUPROF_K_H
#define _NPUPROF_K_H

#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <uapi/npuprof.h>
#include <uapi/npuprof_filter.h>

#define NP_MAX_SESSIONS 4

struct np_session;

/* The SQ owner table (probes.c), shared by every session's filter. */
extern struct npuprof_sq_owner *np_sq_owner;

/* One CPU's ring: a control page and a data area, both vmalloc_user so they
 * can be mapped read-only into the reader. Single producer: the probe on this
 * CPU, with interrupts disabled. */
struct np_ring {
	struct npuprof_ring_ctrl *ctrl;
	void *data;
	u32 mask; /* nr_slots - 1 */
	u64 pending_drop; /* lost records not yet reported by a DROP record */
	int wake_armed; /* a reader sleeps in poll */
	struct irq_work wake;
	struct np_session *s;
};

struct np_pcpu_stats {
	u64 events[NPUPROF_REC_TYPE_MAX];
	u64 filtered;
	u64 sampled_out;
};

struct np_session {
	struct mutex lock; /* configure / start / stop / mmap */
	atomic_t maps; /* mapped pieces of the rings: no CONFIGURE while > 0 */
	struct npuprof_config cfg;
	struct npuprof_filter filter; /* cfg's filters, for the probes */
	bool configured;
	bool running;
	bool privileged;
	kuid_t uid; /* the owner, for unprivileged sessions */
	int slot; /* index in np_sessions while running */
	struct np_ring **rings; /* [nr_cpu_ids], NULL for impossible CPUs */
	struct np_pcpu_stats __percpu *stats;
	u8 *stream_state; /* owner table: [NPUPROF_OWNER_SLOTS] or NULL */
	wait_queue_head_t wq;
};

extern struct np_session __rcu *np_sessions[NP_MAX_SESSIONS];

/* ring.c */
int np_rings_alloc(struct np_session *s);
void np_rings_free(struct np_session *s);
void np_ring_put_drop(struct np_ring *ring, u64 head, u64 ts, u32 cpu);
bool np_rings_readable(struct np_session *s);
void np_rings_arm(struct np_session *s);

/*
 * Writing one record to this CPU's ring of session @s, in place:
 * np_ring_reserve() disables local interrupts (a completion interrupt may
 * otherwise nest inside a submit probe), takes the time (unless @stamp is
 * false: the bench's probe_mode=nostamp, time 0) and returns the
 * slot to encode the record into, or NULL if the ring is full (the loss is
 * counted; the next record that fits is preceded by a DROP record);
 * np_ring_commit() stamps the header, publishes the record and turns the
 * interrupts back on. The time is taken with interrupts off, so each ring
 * is in timestamp order. Inline: this is the probes' hot path.
 */
struct np_wr {
	struct np_ring *ring;
	unsigned long flags;
	u64 head, ts;
	u32 cpu;
};

static __always_inline struct npuprof_record *np_ring_reserve(
	struct np_session *s, struct np_wr *w, bool stamp)
{
	struct npuprof_ring_ctrl *ctrl;
	struct np_ring *ring;
	u64 head, used;

	local_irq_save(w->flags);
	w->cpu = smp_processor_id();
	ring = s->rings[w->cpu];
	w->ring = ring;
	ctrl = ring->ctrl;
	head = ctrl->head;
	used = head - READ_ONCE(ctrl->tail);
	w->ts = stamp ? ktime_get_ns() : 0;
	if (s->cfg.flags & NPUPROF_CFG_OVERWRITE) {
		if (used > ring->mask)
			ctrl->overwritten++;
		/* the reader validates a copy by the head it reads after it:
		 * the head published last must be visible before the slots
		 * this write overwrites */
		smp_wmb();
	} else if (unlikely(used + 1 + (ring->pending_drop ? 1 : 0) >
			    (u64)ring->mask + 1)) {
		ctrl->dropped++;
		ring->pending_drop++;
		local_irq_restore(w->flags);
		return NULL;
	}
	if (unlikely(ring->pending_drop))
		np_ring_put_drop(ring, head++, w->ts, w->cpu);
	w->head = head;
	return (struct npuprof_record *)((char *)ring->data +
					 (head & ring->mask) *
						 NPUPROF_RECORD_SIZE);
}

static __always_inline void np_ring_commit(struct np_session *s,
					   struct np_wr *w,
					   struct npuprof_record *r)
{
	struct np_ring *ring = w->ring;
	struct npuprof_ring_ctrl *ctrl = ring->ctrl;
	u64 head = w->head + 1;

	npuprof_encode_hdr(r, w->ts, w->cpu, current->tgid, current->pid);
	ctrl->written++;
	/* publish the record before the new head */
	smp_store_release(&ctrl->head, head);
	if (unlikely(READ_ONCE(ring->wake_armed)) &&
	    head - READ_ONCE(ctrl->tail) >= s->cfg.watermark) {
		WRITE_ONCE(ring->wake_armed, 0);
		irq_work_queue(&ring->wake);
	}
	local_irq_restore(w->flags);
}

/* probes.c */
int np_probes_init(void);
void np_probes_exit(void);
u32 np_probes_attached(void);

#endif /* _NPUPROF_K_H */
