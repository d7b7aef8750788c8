// SPDX-License-Identifier: GPL-2.0
/*
 * npusim's tracepoints: trs_chan:sqe/cqe/recv with the real Ascend driver's
 * ABI, and no other (device task times are the STARS log's, stars.c). This file instantiates them and holds their
 * call sites, which fill the argument structs from a stream's state and
 * fire only while the device's trace_enable switch is on, like the real
 * driver's. The char device (main.c) and the device model (sched.c) call
 * these; nothing here calls back into either.
 */
#include <linux/compiler.h>
#include "npusim.h"
#define CREATE_TRACE_POINTS
#include "trs_chan_trace.h"

void npusim_trace_sqe(struct npusim_stream *s, const struct npusim_sqe *sqe)
{
	struct trs_id_inst inst;
	struct trs_chan_sq_trace t;

	if (!READ_ONCE(s->dev->trace_enable))
		return;
	inst.devid = s->dev->id;
	inst.tsid = 0;
	t.sqid = s->id;
	t.status = 0;
	t.sq_head = s->head & (s->depth - 1);
	t.sq_tail = s->tail & (s->depth - 1);
	t.chan_id = s->id;
	t.types.type = TRS_CHAN_TYPE_HW;
	t.types.sub_type = TRS_CHAN_SUB_TYPE_HW_RTS;
	t.type = sqe->type & NPUSIM_SQE_TYPE_MASK;
	t.task_id = sqe->task_id;
	t.stream_id = sqe->stream_id;
	trace_sqe(TRS_CHAN_STR_TASK_SEND, &inst, &t);
}

void npusim_trace_cqe(struct npusim_stream *s, const char *what,
		      const struct npusim_cqe *cqe, u32 pos)
{
	struct trs_id_inst inst;
	struct trs_chan_cq_trace t;

	if (!READ_ONCE(s->dev->trace_enable))
		return;
	inst.devid = s->dev->id;
	inst.tsid = 0;
	t.cqid = s->id;
	t.cq_head = pos & (s->depth - 1);
	t.round = pos / s->depth;
	t.chan_id = s->id;
	t.types.type = TRS_CHAN_TYPE_HW;
	t.types.sub_type = TRS_CHAN_SUB_TYPE_HW_RTS;
	t.task_id = cqe->task_id;
	t.sq_id = (cqe->flags >> NPUSIM_CQE_SQID_SHIFT) & NPUSIM_CQE_SQID_MASK;
	t.sq_head = cqe->sq_head;
	t.stream_id = cqe->stream_id;
	trace_cqe(what, &inst, &t);
}

void npusim_trace_recv_cqe(struct npusim_stream *s, u32 pos)
{
	npusim_trace_cqe(s, TRS_CHAN_STR_TASK_RECV,
			 &s->cq[pos & (s->depth - 1)], pos);
}

void npusim_trace_recv(struct npusim_stream *s, const char *what, u32 cqe_num,
		       u32 recv_num, int timeout)
{
	struct trs_id_inst inst;
	struct trs_chan_recv_trace t;

	if (!READ_ONCE(s->dev->trace_enable))
		return;
	inst.devid = s->dev->id;
	inst.tsid = 0;
	t.chan_id = s->id;
	t.types.type = TRS_CHAN_TYPE_HW;
	t.types.sub_type = TRS_CHAN_SUB_TYPE_HW_RTS;
	t.cqid = s->id;
	t.cq_head = s->cq_head & (s->depth - 1);
	t.cqe_num = cqe_num;
	t.recv_cqe_num = recv_num;
	t.timeout = timeout;
	trace_recv(what, &inst, &t);
}
