/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trs_core tracepoints, with the ABI of the real Ascend driver
 * (hicann/driver trs/trs_core/trs_core_trace_event.h): system trs_core,
 * events logic_cqe and logic_cq_recv, each taking (const char *str,
 * struct trs_id_inst *, struct trs_logic_*_trace *), recording the string,
 * both structs and a CLOCK_MONOTONIC timespec64.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM trs_core

#if !defined(_NPUSIM_TRS_CORE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NPUSIM_TRS_CORE_TRACE_H

#include <linux/tracepoint.h>
#include <linux/timekeeping.h>
#include <uapi/trs_chan.h>
#include <uapi/trs_core.h>

/* clang-format off: the TRACE_EVENT layout of the kernel's own trace headers */
TRACE_EVENT(
	logic_cqe,
	TP_PROTO(const char *str, struct trs_id_inst *inst,
		 struct trs_logic_cqe_trace *cq_trace),
	TP_ARGS(str, inst, cq_trace),
	TP_STRUCT__entry(__string(str, str ? str : "nop") __field_struct(
		struct trs_id_inst,
		inst) __field_struct(struct trs_logic_cqe_trace, cq_trace)
				 __field_struct(struct timespec64, timestamp)),
	TP_fast_assign(__assign_str(str, str ? str : "nop");
		       __entry->inst = *inst; __entry->cq_trace = *cq_trace;
		       ktime_get_ts64(&__entry->timestamp);),
	TP_printk(
		"%s:\tdevid=%u;tsid=%u;logic_cqid=%u;head=%u;tail=%u;task_id=%u;stream_id=%u;sqid=%u;sq_head=%u;sqe_type=%u;match_flag=%u;%lld.%06ld",
		__get_str(str), __entry->inst.devid, __entry->inst.tsid,
		__entry->cq_trace.logic_cqid, __entry->cq_trace.head,
		__entry->cq_trace.tail, __entry->cq_trace.task_id,
		__entry->cq_trace.stream_id, __entry->cq_trace.sqid,
		__entry->cq_trace.sq_head, __entry->cq_trace.sqe_type,
		__entry->cq_trace.match_flag,
		(long long)__entry->timestamp.tv_sec,
		__entry->timestamp.tv_nsec / NSEC_PER_USEC));

TRACE_EVENT(
	logic_cq_recv,
	TP_PROTO(const char *str, struct trs_id_inst *inst,
		 struct trs_logic_cq_recv_trace_t *recv_trace),
	TP_ARGS(str, inst, recv_trace),
	TP_STRUCT__entry(__string(str, str ? str : "nop") __field_struct(
		struct trs_id_inst,
		inst) __field_struct(struct trs_logic_cq_recv_trace_t,
				     recv_trace)
				 __field_struct(struct timespec64, timestamp)),
	TP_fast_assign(__assign_str(str, str ? str : "nop");
		       __entry->inst = *inst; __entry->recv_trace = *recv_trace;
		       ktime_get_ts64(&__entry->timestamp);),
	TP_printk(
		"%s:\tdevid=%u;tsid=%u;logic_cqid=%u;report_cqe_num=%u;timeout=%d;%lld.%06ld",
		__get_str(str), __entry->inst.devid, __entry->inst.tsid,
		__entry->recv_trace.logic_cqid,
		__entry->recv_trace.report_cqe_num, __entry->recv_trace.timeout,
		(long long)__entry->timestamp.tv_sec,
		__entry->timestamp.tv_nsec / NSEC_PER_USEC));

/* clang-format on */
#endif /* _NPUSIM_TRS_CORE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trs_core_trace
#include <trace/define_trace.h>
