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
void np_ring_write(struct np_session *s, struct npuprof_record *r);
bool np_rings_readable(struct np_session *s);
void np_rings_arm(struct np_session *s);

/* probes.c */
int np_probes_init(void);
void np_probes_exit(void);
u32 np_probes_attached(void);

#endif /* _NPUPROF_K_H */
