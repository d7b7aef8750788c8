/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The argument structures of the Ascend driver's trs_core tracepoints
 * (docs/ascend-reference.md §8.2; hicann/driver
 * src/sdk_driver/trsdrv/trs/trs_core/trs_core_trace.h 21-41, the events in
 * trs_core_trace_event.h): trs_core:logic_cqe, one per logic CQE that
 * enters a logic CQ ("Logic Cq Enque") or is copied to a receiver ("Logic
 * Cq Recv Match" / "Logic Cq Recv NoMatch"), and trs_core:logic_cq_recv,
 * a receive call's start and finish. Each takes (const char *str,
 * struct trs_id_inst *inst, struct ... *trace); struct trs_id_inst is
 * uapi/trs_chan.h's. npusim.ko emits them with exactly these types, gated
 * by /proc/trs_core/ts_inst/dev<N>-ts0/trace_enable as the real driver's.
 */
#ifndef _UAPI_TRS_CORE_H
#define _UAPI_TRS_CORE_H

#if defined(__KERNEL__) || !defined(__bpf__)
#include <linux/types.h>
#endif

/* The strings the driver passes as the first tracepoint argument. */
#define TRS_CORE_STR_LOGIC_CQ_ENQUE "Logic Cq Enque"
#define TRS_CORE_STR_RECV_MATCH "Logic Cq Recv Match"
#define TRS_CORE_STR_RECV_NOMATCH "Logic Cq Recv NoMatch"
#define TRS_CORE_STR_RECV_START "Recv start"
#define TRS_CORE_STR_RECV_FINISH "Recv finish"

/* 56 bytes, alignment 8 */
struct trs_logic_cqe_trace {
	__u32 logic_cqid;
	__u32 head; /* the logic CQ's head and tail at the event */
	__u32 tail;
	__u32 task_id;
	__u32 stream_id;
	__u32 sqid;
	__u32 sq_head;
	__u32 sqe_type;
	__u32 match_flag;
	__u32 errcode;
	__u32 errtype;
	__u32 drop_flag;
	__u64 timestamp; /* the logic CQE's timestamp / sqe_index union */
};

/* 12 bytes */
struct trs_logic_cq_recv_trace_t {
	__u32 logic_cqid;
	__u32 report_cqe_num; /* "Recv start": 0; "Recv finish": copied */
	__s32 timeout; /* ms */
};

#endif /* _UAPI_TRS_CORE_H */
