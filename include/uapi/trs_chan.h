/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The argument structures of the Ascend driver's trs_chan tracepoints.
 *
 * These mirror, field for field, the structures the real driver (hicann/driver,
 * asdrv_trsbase.ko) passes to trs_chan:sqe, trs_chan:cqe and trs_chan:recv:
 * all fields are 32-bit, there is no padding, and the sizes are 8, 8, 40, 40
 * and 32 bytes. npusim.ko emits its tracepoints with exactly these types, and
 * both capture engines (npuprof.ko and the BPF programs) read them through
 * this one header, so the same probes work on a real 910B host.
 */
#ifndef _UAPI_TRS_CHAN_H
#define _UAPI_TRS_CHAN_H

#if defined(__KERNEL__) || !defined(__bpf__)
#include <linux/types.h>
#endif

/* Channel types (struct trs_chan_type.type) and the hardware sub-types. */
#define TRS_CHAN_TYPE_HW 0
#define TRS_CHAN_TYPE_SW 1
#define TRS_CHAN_TYPE_MAINT 2
#define TRS_CHAN_TYPE_TASK_SCHED 3
#define TRS_CHAN_SUB_TYPE_HW_RTS 0

/* The strings the driver passes as the first tracepoint argument. */
#define TRS_CHAN_STR_TASK_SEND "Task Send"
#define TRS_CHAN_STR_TASK_RECV "Task Recv"
#define TRS_CHAN_STR_CQE_DISPATCH "Cqe Dispatch"
#define TRS_CHAN_STR_RECV_START "Recv start"
#define TRS_CHAN_STR_RECV_FINISH "Recv finish"

struct trs_id_inst {
	__u32 devid; /* host-side unified device id */
	__u32 tsid; /* task scheduler instance, usually 0 */
};

struct trs_chan_type {
	__u32 type;
	__u32 sub_type;
};

struct trs_chan_sq_trace {
	__u32 sqid;
	__u32 status; /* not filled on the send path */
	__u32 sq_head;
	__u32 sq_tail; /* post-increment tail: this SQE is at sq_tail - 1 */
	__u32 chan_id;
	struct trs_chan_type types;
	__u32 type; /* SQE type, byte 0 bits 0-5 */
	__u32 task_id; /* SQE bytes 6-7 */
	__u32 stream_id; /* SQE bytes 4-5 */
};

struct trs_chan_cq_trace {
	__u32 cqid;
	__u32 cq_head;
	__u32 round;
	__u32 chan_id;
	struct trs_chan_type types;
	__u32 task_id;
	__u32 sq_id;
	__u32 sq_head; /* how far the device has consumed the SQ */
	__u32 stream_id; /* raw CQE field: bit 15 is the match flag */
};

struct trs_chan_recv_trace {
	__u32 chan_id;
	struct trs_chan_type types;
	__u32 cqid;
	__u32 cq_head;
	__u32 cqe_num;
	__u32 recv_cqe_num;
	__s32 timeout; /* ms */
};

#endif /* _UAPI_TRS_CHAN_H */
