/*
 * rt_replay.c - what a replay of a recorded database needs of the runtime
 * (acl/acl_npu_op.h, "Replaying a recorded device timeline"): timed SQEs,
 * the database's API ranges instead of the runtime's own, and HCCL op and
 * small-task records as the database holds them.
 *
 * HCCL ops recorded here take op sequence numbers from 2^40 up, so they
 * never meet those of live collectives (hccl.c counts from 0) in one
 * process.
 */
#include <string.h>

#include "rt_prof.h"

static _Atomic uint64_t g_replay_op_seq = 1ULL << 40;

aclError rt_replay_task(struct rt_task *t, uint32_t flags, uint64_t start_ns, uint64_t conn)
{
	const uint32_t known = ACLNPU_REPLAY_TIMED | ACLNPU_REPLAY_SUBTASK | ACLNPU_REPLAY_CONN |
			       ACLNPU_REPLAY_CONTEXT;

	if ((flags & ~known) ||
	    ((flags & ACLNPU_REPLAY_SUBTASK) && !(flags & ACLNPU_REPLAY_TIMED)) ||
	    ((flags & ACLNPU_REPLAY_SUBTASK) && start_ns > NPUSIM_MAX_TASK_NS) ||
	    (!(flags & ACLNPU_REPLAY_TIMED) && start_ns))
		return ACL_ERROR_INVALID_PARAM;
	if (flags & ACLNPU_REPLAY_TIMED) {
		t->model.flags = NPUSIM_TASK_F_TIMED;
		if (flags & ACLNPU_REPLAY_SUBTASK)
			t->model.flags |= NPUSIM_TASK_F_SUBTASK;
		t->model.start_ns = start_ns;
	}
	if (flags & ACLNPU_REPLAY_CONN) {
		t->has_conn = 1;
		t->conn = conn;
	}
	return ACL_SUCCESS;
}

aclError aclnpuRecordApi(uint32_t level, const char *name, uint64_t startNs, uint64_t endNs,
			 uint64_t *connectionId)
{
	if (!name || !*name || !connectionId || endNs < startNs)
		return ACL_ERROR_INVALID_PARAM;
	/* a replay's HCCL rows come without a communicator: HCCL's own
	 * handle on the profiler (rtprof_hccl_init) is taken here */
	if (level == NPUPROF_API_HCCL)
		rtprof_hccl_init();
	rtprof_api_range(level, name, startNs, endNs, connectionId);
	return ACL_SUCCESS;
}

aclError aclnpuRecordHcclOp(const aclnpuHcclOpDesc *d, aclrtStream stream, uint64_t *opSeq)
{
	struct rt_stream *s;
	uint64_t ids[4];
	aclError ret;

	if (!d || d->size < sizeof(*d) || !d->opName || !d->opType || !d->groupName || !opSeq ||
	    d->endNs < d->startNs)
		return ACL_ERROR_INVALID_PARAM;
	ret = rt_stream_get(stream, &s);
	if (ret)
		return ret;
	*opSeq = atomic_fetch_add_explicit(&g_replay_op_seq, 1, memory_order_relaxed);
	rtprof_hccl_init();
	if (!rtprof_on(RTPROF_HCCL))
		return ACL_SUCCESS;
	ids[0] = rtprof_str(d->opName);
	ids[1] = rtprof_str(d->opType);
	ids[2] = rtprof_str(d->groupName);
	ids[3] = rtprof_str(d->algType ? d->algType : "N/A");
	{
		struct npuprof_hostfmt_hccl_op r = {
			.device_id = (uint32_t)s->dev,
			.start_ns = d->startNs,
			.end_ns = d->endNs,
			.connection_id = d->connectionId,
			.op_seq = *opSeq,
			.op_name_id = ids[0],
			.op_type_id = ids[1],
			.group_name_id = ids[2],
			.alg_type_id = ids[3],
			.count = d->count,
			.data_type = d->dataType,
			.rank = d->rank,
			.rank_size = d->rankSize,
			.stream_id = s->sid,
			.relay = d->relay,
			.retry = d->retry,
			.task_count = d->taskCount,
		};

		rtprof_hccl_op(&r);
	}
	return ACL_SUCCESS;
}

void rt_replay_hccl_task(const struct rt_stream *s, const struct rt_task *t,
			 const aclnpuHcclTaskInfo *h, uint32_t context_id)
{
	uint64_t ids[3] = {
		rtprof_str(h->opName ? h->opName : "N/A"),
		rtprof_str(h->groupName ? h->groupName : "N/A"),
		rtprof_str(h->taskType ? h->taskType : "N/A"),
	};

	struct npuprof_hostfmt_hccl_task r = {
		.device_id = (uint32_t)s->dev,
		.time_ns = t->time_ns,
		.connection_id = t->conn_out,
		.op_seq = h->opSeq,
		.op_name_id = ids[0],
		.group_name_id = ids[1],
		.task_type_id = ids[2],
		.stream_id = s->sid,
		.task_id = t->task_id,
		.is_master = h->isMaster,
		.batch_id = t->batch_id,
		.context_id = context_id,
		.plane_id = h->planeId,
		.src_rank = h->srcRank,
		.dst_rank = h->dstRank,
		.transport_type = h->transportType,
		.link_type = h->linkType,
		.rdma_type = h->rdmaType,
		.data_type = h->dataType,
		.size = h->size,
		.notify_id = h->notifyId,
	};

	rtprof_hccl_task(&r);
}
