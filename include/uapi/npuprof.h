/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npuprof.h — the ONE record schema shared by npuprof.ko, the BPF programs
 * and libnpuprof, plus the /dev/npuprof ioctl ABI and ring layout.
 *
 * Every kernel capture record is exactly NPUPROF_RECORD_SIZE (64) bytes: a
 * 24-byte header (type, size, CPU, flags, pid, tid, CLOCK_MONOTONIC ns) and
 * a payload copied from the driver's tracepoint arguments. Both engines
 * build records with the npuprof_encode_*() helpers below, so their output
 * is byte-for-byte the same for the same tracepoint arguments.
 *
 * Evolution rule: a record type is never reused or redefined; existing
 * payloads only gain fields at the end, inside the fixed 64 bytes (readers
 * must accept unknown trailing bytes and skip unknown types by hdr.size).
 * NPUPROF_SCHEMA_VERSION changes when a payload grows; NPUPROF_ABI_VERSION
 * when an ioctl or the ring layout changes. Both are checked at open
 * (NPUPROF_IOC_VERSION) and stored in every raw file header.
 *
 * Base types are picked by context: the kernel's and userspace's
 * <linux/types.h>, or vmlinux.h's when compiled by clang for BPF.
 */
#ifndef _UAPI_NPUPROF_H
#define _UAPI_NPUPROF_H

#if defined(__bpf__)
/* vmlinux.h provides __u8..__u64 */
#else
#include <linux/ioctl.h>
#include <linux/types.h>
#endif
#include "trs_chan.h"

#define NPUPROF_ABI_VERSION 1
#define NPUPROF_SCHEMA_VERSION 1
#define NPUPROF_RECORD_SIZE 64

enum npuprof_rec_type {
	NPUPROF_REC_SUBMIT = 1, /* trs_chan:sqe */
	NPUPROF_REC_COMPLETE = 2, /* trs_chan:cqe */
	NPUPROF_REC_RECV = 3, /* trs_chan:recv */
	/* a device task time (start, end on the device counter): the STARS SoC
	 * log's, paired by the export (user/export/stars.c); no capture engine
	 * writes it (captures before the log carried them, from a tracepoint
	 * the simulator no longer has, and still export) */
	NPUPROF_REC_TASK_TIME = 4,
	NPUPROF_REC_CLOCK_SYNC = 5, /* (host ns, device counter) sample */
	NPUPROF_REC_DROP = 6, /* records lost before this one on this CPU */
	NPUPROF_REC_TYPE_MAX
};

/* hdr.flags */
#define NPUPROF_F_CQE_RECV 0x0001 /* COMPLETE: "Task Recv" (else dispatch) */
#define NPUPROF_F_RECV_FINISH 0x0002 /* RECV: "Recv finish" (else start) */
/* SUBMIT, COMPLETE, TASK_TIME: hdr.pid is the tgid of the process that
 * created the SQ's channel (the SQ owner table, uapi/npuprof_filter.h), not
 * of the current task, which in send mode UIO_T is the driver's forwarding
 * kernel thread at a submit, and any task at a completion */
#define NPUPROF_F_SQ_OWNER 0x0004

struct npuprof_rec_hdr {
	__u16 type; /* enum npuprof_rec_type */
	__u16 size; /* bytes including this header: NPUPROF_RECORD_SIZE */
	__u16 cpu;
	__u16 flags;
	__u32 pid; /* tgid of the current task (but see NPUPROF_F_SQ_OWNER) */
	__u32 tid;
	__u64 ts; /* CLOCK_MONOTONIC ns */
};

struct npuprof_submit {
	__u32 devid, tsid;
	__u32 chan_id;
	__u32 sq_id;
	__u32 sq_head;
	__u32 sq_tail; /* post-increment tail */
	__u32 sqe_type;
	__u32 task_id;
	__u32 stream_id;
	__u32 rsv;
};

struct npuprof_complete {
	__u32 devid, tsid;
	__u32 cq_id;
	__u32 cq_head;
	__u32 round;
	__u32 task_id;
	__u32 stream_id; /* raw: bit 15 is the match flag */
	__u32 sq_id;
	__u32 sq_head;
	__u32 chan_id;
};

struct npuprof_recv {
	__u32 devid, tsid;
	__u32 chan_id;
	__u32 cq_id;
	__u32 cq_head;
	__u32 cqe_num;
	__u32 recv_cqe_num;
	__s32 timeout;
	__u32 rsv[2];
};

struct npuprof_task_time {
	__u32 devid, tsid;
	__u32 sq_id;
	__u32 stream_id;
	__u32 task_id;
	__u32 sqe_type;
	__u64 start_cnt; /* device counter */
	__u64 end_cnt;
};

struct npuprof_clock_sync {
	__u32 devid;
	__u32 rsv;
	__u64 host_ns; /* CLOCK_MONOTONIC */
	__u64 dev_cnt;
	__u64 counter_hz;
	__u64 rsv2;
};

struct npuprof_drop {
	__u64 lost; /* records lost on this CPU since the previous record */
	__u64 rsv[4];
};

struct npuprof_record {
	struct npuprof_rec_hdr hdr;
	union {
		struct npuprof_submit submit;
		struct npuprof_complete complete;
		struct npuprof_recv recv;
		struct npuprof_task_time task_time;
		struct npuprof_clock_sync clock;
		struct npuprof_drop drop;
		__u8 raw[NPUPROF_RECORD_SIZE - sizeof(struct npuprof_rec_hdr)];
	};
};

/* ---- encoders: the only code that turns tracepoint arguments into records.
 * They take copies of the argument structs (never pointers into the driver)
 * so that each engine does its own safe reads, and zero every byte. */

static inline void npuprof_encode_submit(struct npuprof_record *r, const struct trs_id_inst *inst,
					 const struct trs_chan_sq_trace *t)
{
	__builtin_memset(r->raw, 0, sizeof(r->raw));
	r->hdr.type = NPUPROF_REC_SUBMIT;
	r->hdr.size = NPUPROF_RECORD_SIZE;
	r->hdr.flags = 0;
	r->submit.devid = inst->devid;
	r->submit.tsid = inst->tsid;
	r->submit.chan_id = t->chan_id;
	r->submit.sq_id = t->sqid;
	r->submit.sq_head = t->sq_head;
	r->submit.sq_tail = t->sq_tail;
	r->submit.sqe_type = t->type;
	r->submit.task_id = t->task_id;
	r->submit.stream_id = t->stream_id;
}

static inline void npuprof_encode_complete(struct npuprof_record *r, const struct trs_id_inst *inst,
					   const struct trs_chan_cq_trace *t, int task_recv)
{
	__builtin_memset(r->raw, 0, sizeof(r->raw));
	r->hdr.type = NPUPROF_REC_COMPLETE;
	r->hdr.size = NPUPROF_RECORD_SIZE;
	r->hdr.flags = task_recv ? NPUPROF_F_CQE_RECV : 0;
	r->complete.devid = inst->devid;
	r->complete.tsid = inst->tsid;
	r->complete.cq_id = t->cqid;
	r->complete.cq_head = t->cq_head;
	r->complete.round = t->round;
	r->complete.task_id = t->task_id;
	r->complete.stream_id = t->stream_id;
	r->complete.sq_id = t->sq_id;
	r->complete.sq_head = t->sq_head;
	r->complete.chan_id = t->chan_id;
}

static inline void npuprof_encode_recv(struct npuprof_record *r, const struct trs_id_inst *inst,
				       const struct trs_chan_recv_trace *t, int finish)
{
	__builtin_memset(r->raw, 0, sizeof(r->raw));
	r->hdr.type = NPUPROF_REC_RECV;
	r->hdr.size = NPUPROF_RECORD_SIZE;
	r->hdr.flags = finish ? NPUPROF_F_RECV_FINISH : 0;
	r->recv.devid = inst->devid;
	r->recv.tsid = inst->tsid;
	r->recv.chan_id = t->chan_id;
	r->recv.cq_id = t->cqid;
	r->recv.cq_head = t->cq_head;
	r->recv.cqe_num = t->cqe_num;
	r->recv.recv_cqe_num = t->recv_cqe_num;
	r->recv.timeout = t->timeout;
}

/* A (host time, device counter) pair of a device's clock, read through the
 * driver (NPUSIM_IOC_CLOCK_SYNC), as userspace records it next to the
 * capture's records. The caller stamps the header (npuprof_encode_hdr)
 * with the sample's host time as the record's time. */
static inline void npuprof_encode_clock_sync(struct npuprof_record *r, __u32 devid, __u64 host_ns,
					     __u64 dev_cnt, __u64 counter_hz)
{
	__builtin_memset(r->raw, 0, sizeof(r->raw));
	r->hdr.type = NPUPROF_REC_CLOCK_SYNC;
	r->hdr.size = NPUPROF_RECORD_SIZE;
	r->hdr.flags = 0;
	r->clock.devid = devid;
	r->clock.host_ns = host_ns;
	r->clock.dev_cnt = dev_cnt;
	r->clock.counter_hz = counter_hz;
}

/* A submit record attributed to its SQ's owner @tgid, who is not the
 * current task; npuprof_encode_hdr() keeps that pid. */
static inline void npuprof_encode_sq_owner(struct npuprof_record *r, __u32 tgid)
{
	r->hdr.flags |= NPUPROF_F_SQ_OWNER;
	r->hdr.pid = tgid;
}

/* The header fields that depend on the moment of capture: the time and
 * CPU, and the task that was current (in interrupt context, the task the
 * interrupt arrived in, as both engines see it); the pid stays the SQ
 * owner's if the record was attributed to it. */
static inline void npuprof_encode_hdr(struct npuprof_record *r, __u64 ts, __u32 cpu, __u32 pid,
				      __u32 tid)
{
	r->hdr.ts = ts;
	r->hdr.cpu = (__u16)cpu;
	if (!(r->hdr.flags & NPUPROF_F_SQ_OWNER))
		r->hdr.pid = pid;
	r->hdr.tid = tid;
}

/* ---- the task key.
 * A device task is (device, stream, 16-bit task id). The stream id of a
 * completion is the raw CQE field, whose bit 15 is the match flag, so every
 * stream id is masked to its 15 id bits before it names a stream. These
 * helpers are the one packing of that key: the engines' filters and
 * sampling, and userspace's correlation and live views all use them. */
#define NPUPROF_STREAM_ID_MASK 0x7fffU
#define NPUPROF_TASK_ID_MASK 0xffffU

static inline __u32 npuprof_stream_id(__u32 raw_stream_id)
{
	return raw_stream_id & NPUPROF_STREAM_ID_MASK;
}

/* devid in bits 32-63, the stream id in bits 16-30, the task id in 0-15 */
static inline __u64 npuprof_task_key(__u32 devid, __u32 stream_id, __u32 task_id)
{
	return ((__u64)devid << 32) | ((__u64)npuprof_stream_id(stream_id) << 16) |
	       (task_id & NPUPROF_TASK_ID_MASK);
}

/* (device, stream) alone: the task key of the stream with task id 0 */
static inline __u64 npuprof_stream_key(__u32 devid, __u32 stream_id)
{
	return npuprof_task_key(devid, stream_id, 0);
}

static inline __u32 npuprof_task_key_dev(__u64 key)
{
	return (__u32)(key >> 32);
}

static inline __u32 npuprof_task_key_stream(__u64 key)
{
	return (__u32)(key >> 16) & NPUPROF_STREAM_ID_MASK;
}

static inline __u32 npuprof_task_key_task(__u64 key)
{
	return (__u32)key & NPUPROF_TASK_ID_MASK;
}

/* ---- deterministic per-task sampling.
 * A task is kept when hash(task key) % n == 0, so its submit, completion
 * and task-time records are kept or dropped together. */
static inline __u32 npuprof_task_hash(__u32 devid, __u32 stream_id, __u32 task_id)
{
	__u64 k = npuprof_task_key(devid, stream_id, task_id);

	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return (__u32)k;
}

static inline int npuprof_sample_keep(__u32 n, __u32 devid, __u32 stream_id, __u32 task_id)
{
	return n <= 1 || npuprof_task_hash(devid, stream_id, task_id) % n == 0;
}

/* ---- ring sizes.
 * One rule for the size of a capture's rings, checked by npuprof.ko at
 * NPUPROF_IOC_CONFIGURE, by the BPF engine before it sizes its rings
 * and by the tools when they parse --ring-kb: a power of two from
 * NPUPROF_RING_MIN_BYTES (and at least the page size) to
 * NPUPROF_RING_MAX_BYTES. The kmod takes it per CPU and vmallocs every
 * possible CPU's ring at configure, so it also refuses (-ENOMEM) rings
 * that would take more than 1/NPUPROF_RING_MEM_SHARE of RAM in all; the
 * BPF engine takes it per CPU too, for the CPU's three rings together
 * (bpf/npuprof_bpf.h), and refuses more than 2^31 records on all CPUs (an
 * array map's limit); its default total is shared out among the CPUs (a
 * power of two per CPU, a page at least). A session of an
 * unprivileged user gets at most NPUPROF_RING_MAX_UNPRIV_BYTES per CPU. */
#define NPUPROF_RING_MIN_BYTES (4ULL << 10)
#define NPUPROF_RING_MAX_BYTES (1ULL << 30)
#define NPUPROF_RING_MAX_UNPRIV_BYTES (16ULL << 20)
#define NPUPROF_RING_MEM_SHARE 2

static inline int npuprof_ring_bytes_valid(__u64 bytes, __u64 page_size)
{
	return bytes >= NPUPROF_RING_MIN_BYTES && bytes >= page_size &&
	       bytes <= NPUPROF_RING_MAX_BYTES && !(bytes & (bytes - 1));
}

/* ---- /dev/npuprof ----------------------------------------------------------- */

#define NPUPROF_MAX_STREAMS 4096 /* stream ids the stream filter can name */
#define NPUPROF_MAX_DEVICES 32

struct npuprof_version {
	__u32 abi_version;
	__u32 schema_version;
	__u32 record_size;
	__u32 nr_cpu_ids; /* rings are indexed by CPU id 0..nr_cpu_ids-1 */
	__u32 page_size;
	__u32 rsv[3];
};

/* npuprof_config.flags */
#define NPUPROF_CFG_OVERWRITE 0x1 /* flight recorder: overwrite oldest */
#define NPUPROF_CFG_STREAM_FILTER 0x2 /* only streams set in stream_mask */
#define NPUPROF_CFG_NO_RECV 0x4 /* skip trs_chan:recv records */
#define NPUPROF_CFG_FLAGS_ALL 0x7

struct npuprof_config {
	__u64 ring_bytes; /* per CPU: npuprof_ring_bytes_valid() */
	__u32 watermark; /* wake readers at this many unread records */
	__u32 pid; /* capture only this tgid (0: all, needs CAP_PERFMON) */
	__u32 dev_mask; /* bit d: device d (0: all) */
	__u32 sample_n; /* keep 1 task in n (0 or 1: all) */
	__u32 flags; /* NPUPROF_CFG_* */
	__u32 rsv[5]; /* must be zero */
	__u64 stream_mask[NPUPROF_MAX_STREAMS / 64];
};

/* Per-CPU control page, mapped read-only. Positions count records. */
struct npuprof_ring_ctrl {
	__u64 head; /* written by the producer (release) */
	__u64 tail; /* consumed, as last reported with NPUPROF_IOC_CONSUME */
	__u64 written; /* records written */
	__u64 dropped; /* records lost because the ring was full */
	__u64 overwritten; /* overwrite mode: records overwritten */
	__u32 nr_slots;
	__u32 record_size;
	__u32 cpu;
	__u32 flags;
};

struct npuprof_consume {
	__u32 cpu;
	__u32 rsv;
	__u64 tail; /* new consumer position, <= head */
};

struct npuprof_stats {
	__u64 events[NPUPROF_REC_TYPE_MAX]; /* probe hits by record type */
	__u64 written;
	__u64 dropped;
	__u64 filtered; /* kept by sampling, rejected by pid/device/stream */
	__u64 sampled_out; /* rejected by 1-in-n sampling (npuprof_filter.h) */
	__u64 overwritten;
	__u32 attached; /* bit per attached tracepoint (NPUPROF_TP_*) */
	__u32 running;
	__u32 nr_cpus; /* rings allocated */
	__u32 rsv0;
	/* BPF engine (user space): records that reached the reader more than
	 * its reorder window after they were stamped (a producer or the reader
	 * held up that long); only such a record can be delivered out of
	 * timestamp order. npuprof.ko: 0 */
	__u64 late;
	__u32 rsv[2];
};

#define NPUPROF_TP_SQE 0x1
#define NPUPROF_TP_CQE 0x2
#define NPUPROF_TP_RECV 0x4
/* 0x8 was a simulator-only task-time tracepoint's */

/* mmap offsets: the control page and the data of CPU c */
#define NPUPROF_MMAP_CTRL(c) (((__u64)(c) << 32) | 0)
#define NPUPROF_MMAP_DATA(c) (((__u64)(c) << 32) | 0x80000000ULL)

#define NPUPROF_IOC_MAGIC 0xA6
#define NPUPROF_IOC_VERSION _IOR(NPUPROF_IOC_MAGIC, 1, struct npuprof_version)
#define NPUPROF_IOC_CONFIGURE _IOW(NPUPROF_IOC_MAGIC, 2, struct npuprof_config)
#define NPUPROF_IOC_START _IO(NPUPROF_IOC_MAGIC, 3)
#define NPUPROF_IOC_STOP _IO(NPUPROF_IOC_MAGIC, 4)
#define NPUPROF_IOC_STATS _IOR(NPUPROF_IOC_MAGIC, 5, struct npuprof_stats)
#define NPUPROF_IOC_CONSUME _IOW(NPUPROF_IOC_MAGIC, 6, struct npuprof_consume)

#endif /* _UAPI_NPUPROF_H */
