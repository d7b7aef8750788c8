/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * npusim_tp.h - the argument of the simulated driver's npusim:task_time
 * tracepoint (device task time: start and end on the device counter).
 *
 * Like trs_chan.h for the real driver's tracepoints, this is all a capture
 * engine needs to know of the driver: npuprof.h's records depend on the
 * tracepoint arguments only, never on a driver's ioctl ABI (npusim.h).
 */
#ifndef _UAPI_NPUSIM_TP_H
#define _UAPI_NPUSIM_TP_H

#if defined(__KERNEL__) || !defined(__bpf__)
#include <linux/types.h>
#endif

struct npusim_task_time_trace {
	__u32 sq_id;
	__u32 stream_id;
	__u32 task_id;
	__u32 sqe_type;
	__u64 start_cnt; /* device counter when the task started */
	__u64 end_cnt; /* device counter when the task finished */
};

#endif
