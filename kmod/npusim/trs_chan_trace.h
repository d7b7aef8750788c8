/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trs_chan tracepoints, with the exact ABI of the real Ascend driver
 * (hicann/driver trsbase/chan/chan_trace_event.h): system trs_chan, events
 * sqe, cqe and recv, each taking (const char *str, struct trs_id_inst *,
 * struct trs_chan_*_trace *), recording the string, both structs and a
 * CLOCK_MONOTONIC timespec64. Capture engines attach here by name.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM trs_chan

#if !defined(_NPUSIM_TRS_CHAN_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NPUSIM_TRS_CHAN_TRACE_H

#include <linux/tracepoint.h>
#include <linux/timekeeping.h>
#include <uapi/trs_chan.h>

/* clang-format off: the TRACE_EVENT layout of the kernel's own trace headers */
TRACE_EVENT(
	sqe,
	TP_PROTO(const char *str, struct trs_id_inst *inst,
		 struct trs_chan_sq_trace *sq_trace),
	TP_ARGS(str, inst, sq_trace),
	TP_STRUCT__entry(__string(str, str ? str : "nop") __field_struct(
		struct trs_id_inst,
		inst) __field_struct(struct trs_chan_sq_trace, sq_trace)
				 __field_struct(struct timespec64, timestamp)),
	TP_fast_assign(__assign_str(str, str ? str : "nop");
		       __entry->inst = *inst; __entry->sq_trace = *sq_trace;
		       ktime_get_ts64(&__entry->timestamp);),
	TP_printk(
		"%s: devid=%u tsid=%u sqid=%u sq_head=%u sq_tail=%u chan_id=%u type=%u task_id=%u stream_id=%u time=%lld.%06ld",
		__get_str(str), __entry->inst.devid, __entry->inst.tsid,
		__entry->sq_trace.sqid, __entry->sq_trace.sq_head,
		__entry->sq_trace.sq_tail, __entry->sq_trace.chan_id,
		__entry->sq_trace.type, __entry->sq_trace.task_id,
		__entry->sq_trace.stream_id,
		(long long)__entry->timestamp.tv_sec,
		__entry->timestamp.tv_nsec / NSEC_PER_USEC));

TRACE_EVENT(
	cqe,
	TP_PROTO(const char *str, struct trs_id_inst *inst,
		 struct trs_chan_cq_trace *cq_trace),
	TP_ARGS(str, inst, cq_trace),
	TP_STRUCT__entry(__string(str, str ? str : "nop") __field_struct(
		struct trs_id_inst,
		inst) __field_struct(struct trs_chan_cq_trace, cq_trace)
				 __field_struct(struct timespec64, timestamp)),
	TP_fast_assign(__assign_str(str, str ? str : "nop");
		       __entry->inst = *inst; __entry->cq_trace = *cq_trace;
		       ktime_get_ts64(&__entry->timestamp);),
	TP_printk(
		"%s: devid=%u tsid=%u cqid=%u cq_head=%u round=%u task_id=%u sq_id=%u sq_head=%u stream_id=%u time=%lld.%06ld",
		__get_str(str), __entry->inst.devid, __entry->inst.tsid,
		__entry->cq_trace.cqid, __entry->cq_trace.cq_head,
		__entry->cq_trace.round, __entry->cq_trace.task_id,
		__entry->cq_trace.sq_id, __entry->cq_trace.sq_head,
		__entry->cq_trace.stream_id,
		(long long)__entry->timestamp.tv_sec,
		__entry->timestamp.tv_nsec / NSEC_PER_USEC));

TRACE_EVENT(
	recv,
	TP_PROTO(const char *str, struct trs_id_inst *inst,
		 struct trs_chan_recv_trace *recv_trace),
	TP_ARGS(str, inst, recv_trace),
	TP_STRUCT__entry(__string(str, str ? str : "nop") __field_struct(
		struct trs_id_inst,
		inst) __field_struct(struct trs_chan_recv_trace, recv_trace)
				 __field_struct(struct timespec64, timestamp)),
	TP_fast_assign(__assign_str(str, str ? str : "nop");
		       __entry->inst = *inst; __entry->recv_trace = *recv_trace;
		       ktime_get_ts64(&__entry->timestamp);),
	TP_printk(
		"%s: devid=%u tsid=%u chan_id=%u cqid=%u cq_head=%u cqe_num=%u recv_cqe_num=%u timeout=%d time=%lld.%06ld",
		__get_str(str), __entry->inst.devid, __entry->inst.tsid,
		__entry->recv_trace.chan_id, __entry->recv_trace.cqid,
		__entry->recv_trace.cq_head, __entry->recv_trace.cqe_num,
		__entry->recv_trace.recv_cqe_num, __entry->recv_trace.timeout,
		(long long)__entry->timestamp.tv_sec,
		__entry->timestamp.tv_nsec / NSEC_PER_USEC));

/* clang-format on */
#endif /* _NPUSIM_TRS_CHAN_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trs_chan_trace
#include <trace/define_trace.h>
