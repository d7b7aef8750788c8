// SPDX-License-Identifier: GPL-2.0
/*
 * npusim's tracepoints: trs_chan:sqe/cqe/recv and trs_core:logic_cqe /
 * logic_cq_recv with the real Ascend driver's ABI, and no other (device
 * task times are the STARS log's, stars.c). This file instantiates them
 * and holds their call sites, which fill the argument structs from a
 * stream's or a logic CQ's state and fire only while the device's switch
 * is on, like the real driver's (trace_enable of /proc/trs_chan/dev<N>-ts0
 * for trs_chan, of /proc/trs_core/ts_inst/dev<N>-ts0 for trs_core). The
 * char device (main.c), the device model (sched.c) and the logic CQs
 * (logic_cq.c) call these; nothing here calls back into them.
 */
#include <linux/compiler.h>
#include "npusim.h"
#define CREATE_TRACE_POINTS
#include "trs_chan_trace.h"
#include "trs_core_trace.h"

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

/* ---- trs_core: logic CQs ------------------------------------------------- */

/* The trace struct of logic CQE @l of logic CQ @cqid, whose head and tail
 * are @head and @tail (trs_core_trace.c trs_logic_cqe_trace_fill) */
static void npusim_logic_cqe_trace_fill(struct trs_logic_cqe_trace *t, u32 cqid,
					u32 head, u32 tail,
					const struct npusim_logic_cqe *l)
{
	memset(t, 0, sizeof(*t));
	t->logic_cqid = cqid;
	t->head = head;
	t->tail = tail;
	t->task_id = l->task_id;
	t->stream_id = l->stream_id;
	t->sqid = l->sq_id;
	t->sq_head = l->sq_head;
	t->sqe_type = l->sqe_type;
	t->match_flag = !!(l->flags & NPUSIM_LOGIC_CQE_MATCH);
	t->errcode = l->error_code;
	t->errtype = l->error_type;
	t->drop_flag = !!(l->flags & NPUSIM_LOGIC_CQE_DROP);
	t->timestamp = l->timestamp;
}

/* "Logic Cq Enque": @l entered logic CQ @cqid */
void npusim_trace_logic_cqe(struct npusim_dev *dev, const char *what, u32 cqid,
			    u32 head, u32 tail,
			    const struct npusim_logic_cqe *l)
{
	struct trs_id_inst inst;
	struct trs_logic_cqe_trace t;

	if (!READ_ONCE(dev->core_trace_enable))
		return;
	inst.devid = dev->id;
	inst.tsid = 0;
	npusim_logic_cqe_trace_fill(&t, cqid, head, tail, l);
	trace_logic_cqe(what, &inst, &t);
}

/* "Logic Cq Recv Match" / "NoMatch": one event per logic CQE @l[0..n)
 * a receive copies (trs_logic_cq_copy_trace) */
void npusim_trace_logic_cq_copy(struct npusim_dev *dev, const char *what,
				u32 cqid, u32 head, u32 tail,
				const struct npusim_logic_cqe *l, u32 n)
{
	u32 i;

	for (i = 0; i < n && READ_ONCE(dev->core_trace_enable); i++)
		npusim_trace_logic_cqe(dev, what, cqid, head, tail, &l[i]);
}

/* "Recv start" / "Recv finish" of a receive on logic CQ @cqid */
void npusim_trace_logic_cq_recv(struct npusim_dev *dev, const char *what,
				u32 cqid, u32 report_cqe_num, int timeout)
{
	struct trs_id_inst inst;
	struct trs_logic_cq_recv_trace_t t;

	if (!READ_ONCE(dev->core_trace_enable))
		return;
	inst.devid = dev->id;
	inst.tsid = 0;
	t.logic_cqid = cqid;
	t.report_cqe_num = report_cqe_num;
	t.timeout = timeout;
	trace_logic_cq_recv(what, &inst, &t);
}
