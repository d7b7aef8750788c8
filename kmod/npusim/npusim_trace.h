/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npusim:task_time — one event per finished task with its device start and
 * end counter values. It stands in for the device's task-time profiling
 * channel (HWTS/STARS logs on real hardware), which is the only exact source
 * of per-task device times because ordinary kernels produce no CQE.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM npusim

#if !defined(_NPUSIM_TASK_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NPUSIM_TASK_TRACE_H

#include <linux/tracepoint.h>
#include <uapi/trs_chan.h>
#include <uapi/npusim.h>

/* clang-format off: the TRACE_EVENT layout of the kernel's own trace headers */
TRACE_EVENT(
	task_time,
	TP_PROTO(struct trs_id_inst *inst, struct npusim_task_time_trace *tt),
	TP_ARGS(inst, tt),
	TP_STRUCT__entry(__field_struct(struct trs_id_inst, inst)
				 __field_struct(struct npusim_task_time_trace,
						tt)),
	TP_fast_assign(__entry->inst = *inst; __entry->tt = *tt;),
	TP_printk(
		"devid=%u tsid=%u sq_id=%u stream_id=%u task_id=%u type=%u start_cnt=%llu end_cnt=%llu",
		__entry->inst.devid, __entry->inst.tsid, __entry->tt.sq_id,
		__entry->tt.stream_id, __entry->tt.task_id,
		__entry->tt.sqe_type, (unsigned long long)__entry->tt.start_cnt,
		(unsigned long long)__entry->tt.end_cnt));

/* clang-format on */
#endif /* _NPUSIM_TASK_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE npusim_trace
#include <trace/define_trace.h>
