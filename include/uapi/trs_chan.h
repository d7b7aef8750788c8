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

/*
 * Channel creation, the point where a tracer learns whose an SQ is.
 *
 * The driver creates a channel (one SQ and its CQ) with
 *   int hal_kernel_trs_chan_create(struct trs_id_inst *inst,
 *                                  struct trs_chan_para *para, int *chan_id);
 *   void hal_kernel_trs_chan_destroy(struct trs_id_inst *inst, int chan_id);
 * (exported by asdrv_trsbase; hicann/driver src/sdk_driver/inc/
 * ascend_kernel_hal.h). The runtime's SQ allocation (TRS_SQCQ_ALLOC,
 * trs_hw_sqcq_alloc) calls it in the allocating process's ioctl, with
 * types HW/RTS for a normal SQ, and *chan_id is the chan_id every later
 * trs_chan:sqe of the SQ carries. On a 910B those events fire in a kernel
 * worker (send mode UIO_T), so a capture attributes a submit to the process
 * that created its channel, learnt by probing these two functions (entry
 * and return), never to the current task. The layout is the driver's
 * (64-bit kernel); a tracer reads only inst, types and *chan_id.
 */
#define TRS_CHAN_SQCQ_INFO_LENGTH 5 /* SQCQ_INFO_LENGTH */

struct trs_chan_sq_para {
	__u32 sq_depth;
	__u32 sqe_size;
	void *sq_que_uva;
};

struct trs_chan_cq_para {
	__u32 cq_depth;
	__u32 cqe_size;
};

struct trs_chan_ops {
	void *cqe_is_valid;
	void *get_sq_head_in_cqe;
	void *cq_recv;
	void *abnormal_proc;
	void *trace_cqe_fill;
	void *trace_sqe_fill;
};

struct trs_chan_para {
	__u32 flag;
	__s32 ssid;
	__u32 sqid; /* a specified SQ id (a flag bit says so) */
	__u32 cqid;
	__u32 msg[TRS_CHAN_SQCQ_INFO_LENGTH]; /* to the TS */
	__u32 ext_msg_len;
	void *ext_msg;
	struct trs_chan_type types;
	struct trs_chan_sq_para sq_para;
	struct trs_chan_cq_para cq_para;
	struct trs_chan_ops ops;
};

#endif /* _UAPI_TRS_CHAN_H */
