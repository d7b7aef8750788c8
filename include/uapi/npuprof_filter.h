/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npuprof_filter.h — the ONE capture decision: which records of a
 * tracepoint hit a capture keeps. npuprof.ko's probes (kmod/npuprof/
 * probes.c) and the BPF programs (bpf/npuprof.bpf.c) compile this same
 * code, so both engines keep the same records and count the same
 * rejections; tests/unit/test_filter.c runs it in userspace.
 *
 * The decision is made from the record's key alone, before anything is
 * encoded, in this order:
 *  1. npuprof_filter_wants(): a capture with NPUPROF_CFG_NO_RECV does not
 *     see recv records at all (not even as probe hits);
 *  2. task records (submit, completion, task time) are sampled first: the
 *     hash of the task key decides (npuprof_sample_keep), with nothing but
 *     the key in hand, so a sampled capture looks nothing up for the
 *     records it drops; a submit and its completion fall the same way;
 *  3. the device mask, on every record;
 *  4. the stream mask, on task records;
 *  5. who: a submit is judged by the process that created its channel
 *     (its SQ), when the SQ owner table knows it, else by the task current
 *     at the tracepoint; a recv record by the current task (the pid
 *     filter, and the engine's own permission: npuprof_filter_who()). On a
 *     910B (send mode UIO_T) trs_chan:sqe fires in a kernel worker that
 *     forwards the process's user-mode queue, so the current task says
 *     nothing of whose a submit is; both engines learn each channel's
 *     creator by probing the driver's hal_kernel_trs_chan_create and
 *     hal_kernel_trs_chan_destroy (uapi/trs_chan.h), in the creating
 *     process, and keep it in the SQ owner table, keyed by (device,
 *     chan_id). In KIO the current task is the submitter and the fallback.
 *     A submit also leaves its verdict in the stream verdict table
 *     ("owner") for its (device, stream), by which the stream's
 *     completions and task times are judged, as they arrive in interrupt
 *     context in whatever task was current; a stream without a verdict
 *     (no submit fires in send mode UIO_D) is judged by its SQ's owner.
 *     Without a verdict table (no pid filter) every completion passes.
 * A record that is sampled out is counted as such even if a filter would
 * also have rejected it; "filtered" counts the records the filters reject
 * of those the sampling kept.
 *
 * Base types come from npuprof.h (kernel, vmlinux.h for BPF, or userspace
 * <linux/types.h>). Everything is inline: BPF has no calls to share it by.
 */
#ifndef _UAPI_NPUPROF_FILTER_H
#define _UAPI_NPUPROF_FILTER_H

#include "npuprof.h"

#define NPUPROF_FILTER_INLINE static inline __attribute__((__always_inline__))

/* An explicit bound the BPF verifier can follow (barrier_var: the compiler
 * may not fold the check into the index computation). */
#if defined(__bpf__)
#define NPUPROF_FILTER_BOUND(x) __asm__ __volatile__("" : "+r"(x))
#else
#define NPUPROF_FILTER_BOUND(x) \
	do {                    \
	} while (0)
#endif

/* What a record is to the decision. */
enum npuprof_rec_kind {
	NPUPROF_KIND_OTHER = 0, /* recv: no task's record, never sampled */
	NPUPROF_KIND_SUBMIT = 1, /* sqe: in the submitting task */
	NPUPROF_KIND_TASK = 2, /* cqe, task time: in interrupt context */
};

enum npuprof_verdict {
	NPUPROF_KEEP = 0,
	NPUPROF_FILTERED = 1, /* counts in npuprof_stats.filtered */
	NPUPROF_SAMPLED_OUT = 2, /* counts in npuprof_stats.sampled_out */
};

/* Stream verdict table ("owner") entries: what the last submit to a
 * (device, stream) said. */
#define NPUPROF_OWNER_UNKNOWN 0
#define NPUPROF_OWNER_KEEP 1
#define NPUPROF_OWNER_SKIP 2
#define NPUPROF_OWNER_SLOTS (NPUPROF_MAX_DEVICES * NPUPROF_MAX_STREAMS)

/*
 * The SQ owner table: the process that created each (device, channel), as
 * an engine learnt it from hal_kernel_trs_chan_create, shared by all of the
 * engine's captures. tgid 0: not known (created before the engine was
 * there, or the channel id is beyond NPUPROF_MAX_STREAMS).
 */
struct npuprof_sq_owner {
	__u32 tgid;
	__u32 uid; /* its euid (initial user namespace), for the permission */
};

#define NPUPROF_SQ_OWNER_SLOTS (NPUPROF_MAX_DEVICES * NPUPROF_MAX_STREAMS)

/* The index of (device, channel) in the SQ owner table, or
 * NPUPROF_SQ_OWNER_SLOTS if the table has no room for it. */
NPUPROF_FILTER_INLINE __u32 npuprof_sq_owner_index(__u32 devid, __u32 chan_id)
{
	if (devid >= NPUPROF_MAX_DEVICES || chan_id >= NPUPROF_MAX_STREAMS)
		return NPUPROF_SQ_OWNER_SLOTS;
	return devid * NPUPROF_MAX_STREAMS + chan_id;
}

/* A capture's filters, as configured (struct npuprof_config's fields). */
struct npuprof_filter {
	__u32 pid; /* capture only this tgid (0: all) */
	__u32 dev_mask; /* bit d: device d (0: all) */
	__u32 sample_n; /* keep 1 task in n (0, 1: all) */
	__u32 flags; /* NPUPROF_CFG_STREAM_FILTER, NPUPROF_CFG_NO_RECV */
	__u32 any_uid; /* 1: every user's tasks; 0: only uid's */
	__u32 uid; /* the capture's user (npuprof.ko's unprivileged sessions) */
	const volatile __u64 *stream_mask; /* [NPUPROF_MAX_STREAMS / 64] */
	__u8 *owner; /* verdicts [NPUPROF_OWNER_SLOTS]; 0: completions all pass */
	/* [NPUPROF_SQ_OWNER_SLOTS]; 0: submits judged by the current task */
	const volatile struct npuprof_sq_owner *sq_owner;
};

/* The task a record is judged by, and a submit attributed to. */
struct npuprof_who {
	__u32 tgid;
	__u32 uid;
	__u32 sq_owner; /* 1: the SQ's owner, which is not the current task */
};

/* Does the capture see records of this type at all? */
NPUPROF_FILTER_INLINE int npuprof_filter_wants(const struct npuprof_filter *f, __u32 type)
{
	return type != NPUPROF_REC_RECV || !(f->flags & NPUPROF_CFG_NO_RECV);
}

NPUPROF_FILTER_INLINE int npuprof_filter_device(const struct npuprof_filter *f, __u32 devid)
{
	return !f->dev_mask || (devid < 32 && (f->dev_mask >> devid) & 1);
}

/* Is the stream (a raw id: the match flag is ignored) in the mask? */
NPUPROF_FILTER_INLINE int npuprof_filter_stream(const struct npuprof_filter *f, __u32 stream)
{
	__u32 s = npuprof_stream_id(stream);
	__u64 idx = s / 64;

	if (s >= NPUPROF_MAX_STREAMS)
		return 0;
	NPUPROF_FILTER_BOUND(idx);
	return idx < NPUPROF_MAX_STREAMS / 64 && (f->stream_mask[idx] >> (s % 64)) & 1;
}

/* The owner table entry of (device, stream), 0 if there is none. Stream
 * ids name entries modulo NPUPROF_MAX_STREAMS. */
NPUPROF_FILTER_INLINE __u8 *npuprof_filter_owner(const struct npuprof_filter *f, __u32 devid,
						 __u32 stream)
{
	__u64 idx;

	if (!f->owner || devid >= NPUPROF_MAX_DEVICES)
		return 0;
	idx = (__u64)devid * NPUPROF_MAX_STREAMS + npuprof_stream_id(stream) % NPUPROF_MAX_STREAMS;
	NPUPROF_FILTER_BOUND(idx);
	return idx < NPUPROF_OWNER_SLOTS ? &f->owner[idx] : 0;
}

/*
 * Who a record of @kind is judged by: for a submit on channel @chan_id of
 * device @devid, the channel's creator when the SQ owner table knows it; otherwise, and
 * for recv records, the current task (@cur_tgid, @cur_uid). A completion or
 * task time (NPUPROF_KIND_TASK, in interrupt context: the current task
 * means nothing) gets the channel's creator when the table knows it, and
 * is attributed to it, else nobody (tgid 0); it is judged by that only on a
 * stream no submit has given a verdict (send mode UIO_D fires no
 * trs_chan:sqe).
 */
NPUPROF_FILTER_INLINE struct npuprof_who npuprof_filter_who(const struct npuprof_filter *f,
							    int kind, __u32 devid, __u32 chan_id,
							    __u32 cur_tgid, __u32 cur_uid)
{
	struct npuprof_who w = { cur_tgid, cur_uid, 0 };
	__u64 idx = npuprof_sq_owner_index(devid, chan_id);
	__u32 tgid;

	NPUPROF_FILTER_BOUND(idx);
	if (kind == NPUPROF_KIND_TASK)
		w.tgid = w.uid = 0;
	if (kind == NPUPROF_KIND_OTHER || !f->sq_owner || idx >= NPUPROF_SQ_OWNER_SLOTS)
		return w;
	tgid = f->sq_owner[idx].tgid;
	if (tgid) {
		w.uid = f->sq_owner[idx].uid;
		w.sq_owner = kind == NPUPROF_KIND_TASK || tgid != cur_tgid;
		w.tgid = tgid;
	}
	return w;
}

/*
 * The verdict on one record of @kind for (devid, stream, task). @who is
 * what npuprof_filter_who() said: the pid filter judges its tgid, and the
 * engine's permission its uid (an unprivileged npuprof.ko session sees
 * only its own user's tasks). A completion or task time is judged by its
 * stream's verdict, and by @who (its SQ's owner) only where the stream has
 * none. A submit updates the verdict table.
 */
NPUPROF_FILTER_INLINE int npuprof_filter_decide(const struct npuprof_filter *f, int kind,
						__u32 devid, __u32 stream, __u32 task,
						const struct npuprof_who *who)
{
	volatile __u8 *slot;
	int sel;

	if (kind != NPUPROF_KIND_OTHER && !npuprof_sample_keep(f->sample_n, devid, stream, task))
		return NPUPROF_SAMPLED_OUT;
	if (!npuprof_filter_device(f, devid))
		return NPUPROF_FILTERED;
	if ((f->flags & NPUPROF_CFG_STREAM_FILTER) && kind != NPUPROF_KIND_OTHER &&
	    !npuprof_filter_stream(f, stream))
		return NPUPROF_FILTERED;
	slot = npuprof_filter_owner(f, devid, stream);
	if (kind == NPUPROF_KIND_TASK) {
		if (!slot || *slot == NPUPROF_OWNER_KEEP)
			return NPUPROF_KEEP;
		/* a submit's verdict stands; without one, the SQ's owner */
		if (*slot != NPUPROF_OWNER_UNKNOWN || !who->tgid)
			return NPUPROF_FILTERED;
	}
	sel = (f->any_uid || who->uid == f->uid) && (!f->pid || who->tgid == f->pid);
	if (kind == NPUPROF_KIND_SUBMIT && slot)
		*slot = sel ? NPUPROF_OWNER_KEEP : NPUPROF_OWNER_SKIP;
	return sel ? NPUPROF_KEEP : NPUPROF_FILTERED;
}

#endif /* _UAPI_NPUPROF_FILTER_H */
