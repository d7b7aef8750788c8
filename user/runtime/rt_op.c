/*
 * rt_op.c - aclnpuLaunchOp (acl/acl_npu_op.h): one kernel task with the
 * operator information CANN's GE reports for it.
 *
 * The profiled shape of a launch is CANN's single-op mode:
 *   acl "aclnn<Type>" > node "launch" > runtime "KernelLaunch" > one task,
 * the task taking the `launch` range's connectionId, plus its operator
 * info keyed like the task (rtprof_compute_op, built only while profiling
 * is on).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "rt_internal.h"

static const struct kind_info {
	aclnpuTaskKind kind;
	unsigned sqe_type;
	uint8_t sqe_kind;
	const char *rt_type; /* TASK.taskType */
	const char *ge_type; /* COMPUTE_TASK_INFO.taskType */
} g_kinds[] = {
	{ ACLNPU_TASK_AI_CORE, NPUSIM_SQE_AI_CORE, NPUSIM_KERNEL_PLAIN, "KERNEL_AICORE",
	  "AI_CORE" },
	{ ACLNPU_TASK_AI_CPU, NPUSIM_SQE_AI_CPU, 0, "KERNEL_AICPU", "AI_CPU" },
	{ ACLNPU_TASK_AI_VECTOR_CORE, NPUSIM_SQE_AIV, NPUSIM_KERNEL_PLAIN, "KERNEL_AIVEC",
	  "AI_VECTOR_CORE" },
	{ ACLNPU_TASK_MIX_AIC, NPUSIM_SQE_AI_CORE, NPUSIM_KERNEL_MIX_AIC, "KERNEL_MIX_AIC",
	  "MIX_AIC" },
	{ ACLNPU_TASK_MIX_AIV, NPUSIM_SQE_AIV, NPUSIM_KERNEL_MIX_AIV, "KERNEL_MIX_AIV", "MIX_AIV" },
};

static const struct kind_info *kind_info(aclnpuTaskKind k)
{
	for (size_t i = 0; i < sizeof(g_kinds) / sizeof(g_kinds[0]); i++)
		if (g_kinds[i].kind == k)
			return &g_kinds[i];
	return NULL;
}

aclError aclnpuLaunchOp(const aclnpuOpDesc *d, aclrtStream stream)
{
	struct rt_api a, node, r;
	const struct kind_info *ki;
	struct rt_stream *s;
	struct rt_task t;
	char api[128];
	aclError ret;

	uint32_t flags, replay;

	/* the fields appended later count only when `size` covers them */
	replay = d && d->size >= sizeof(aclnpuOpDesc) ? d->replayFlags : 0;
	if (!d || d->size < offsetof(aclnpuOpDesc, flags) || !d->opName || !d->opType ||
	    !(ki = kind_info(d->taskKind)) ||
	    (d->blockDim == 0 && !(replay & ACLNPU_REPLAY_TIMED)) || d->blockDim > 65535 ||
	    d->durationNs > NPUSIM_MAX_TASK_NS || d->jitterPerMille > 1000 ||
	    (d->numInputs && !d->inputs) || (d->numOutputs && !d->outputs))
		return ACL_ERROR_INVALID_PARAM;
	flags = d->size >= offsetof(aclnpuOpDesc, flags) + sizeof(d->flags) ? d->flags : 0;
	a.on = 0;
	if (!(flags & ACLNPU_OP_IN_API)) {
		if (!d->apiName)
			snprintf(api, sizeof(api), "aclnn%s", d->opType);
		rt_api_begin(&a, NPUPROF_API_ACL, d->apiName ? d->apiName : api, NULL);
	}
	ret = rt_stream_get(stream, &s);
	if (ret)
		return rt_api_end(&a, ret);
	rt_api_begin(&node, NPUPROF_API_NODE, "launch", d->opName);
	rt_api_begin(&r, NPUPROF_API_RUNTIME, "KernelLaunch", d->opName);
	rt_task_init(&t, ki->sqe_type, d->taskTypeName ? d->taskTypeName : ki->rt_type);
	t.sqe.kind = ki->sqe_kind;
	t.kernel = d->opName;
	t.sqe.block_dim = (uint16_t)d->blockDim;
	t.sqe.duration_ns = d->durationNs;
	t.sqe.jitter_pm = (uint16_t)d->jitterPerMille;
	ret = replay ? rt_replay_task(&t, replay, d->startNs, d->connectionId) : ACL_SUCCESS;
	if (!ret)
		ret = rt_submit(s, &t, 1);
	rt_api_end(&r, ret);
	/* recorded with its task, also while a replay records no API */
	if (!ret && RT_UNLIKELY(rtprof_on(RTPROF_NODE)))
		rtprof_compute_op(d, ki->ge_type, s->dev, s, &t);
	rt_api_end(&node, ret);
	return rt_api_end(&a, ret);
}

_Static_assert(sizeof(struct rt_api) <= sizeof(aclnpuApiScope), "aclnpuApiScope holds an rt_api");

void aclnpuApiBegin(aclnpuApiScope *scope, const char *name)
{
	struct rt_api *a = (struct rt_api *)scope;

	if (!scope)
		return;
	a->on = 0;
	if (name)
		rt_api_begin(a, NPUPROF_API_ACL, name, NULL);
}

int32_t aclnpuApiEnd(aclnpuApiScope *scope, int32_t result)
{
	return scope ? rt_api_end((struct rt_api *)scope, result) : result;
}

void aclnpuSetRecentErrMsg(const char *msg)
{
	rt_set_errmsg("%s", msg ? msg : "");
}

aclError aclnpuLaunchRawTask(const aclnpuRawTask *rt, aclrtStream stream)
{
	struct rt_api a;
	struct rt_stream *s;
	struct rt_task t;
	aclError ret;

	if (!rt || rt->size < sizeof(aclnpuRawTask) || !rt->taskTypeName ||
	    rt->sqeType > NPUSIM_SQE_TYPE_MASK || rt->blockDim > 65535 ||
	    rt->durationNs > NPUSIM_MAX_TASK_NS)
		return ACL_ERROR_INVALID_PARAM;
	a.on = 0;
	if (rt->apiName)
		rt_api_begin(&a, NPUPROF_API_ACL, rt->apiName, NULL);
	ret = rt_stream_get(stream, &s);
	if (ret)
		return rt_api_end(&a, ret);
	rt_task_init(&t, rt->sqeType, rt->taskTypeName);
	t.sqe.kind = (uint8_t)rt->kind;
	t.sqe.block_dim = (uint16_t)rt->blockDim;
	t.sqe.id = rt->id;
	t.sqe.target_dev = rt->targetDevice;
	t.sqe.tag = rt->tag;
	t.sqe.value = rt->value;
	t.sqe.duration_ns = rt->durationNs;
	t.sqe.bytes = rt->bytes;
	t.bytes = rt->bytes;
	ret = rt_replay_task(&t, rt->replayFlags, rt->startNs, rt->connectionId);
	if (!ret && rt->event) {
		ret = rt_event_id(rt->event, s->dev, &t.sqe.id);
		if (!ret && rt->sqeType != NPUSIM_SQE_EVENT_RECORD &&
		    rt->sqeType != NPUSIM_SQE_EVENT_WAIT)
			ret = ACL_ERROR_INVALID_PARAM;
	}
	if (!ret)
		ret = rt_submit(s, &t, 1);
	if (!ret && rt->hccl && RT_UNLIKELY(rtprof_on(RTPROF_HCCL)))
		rt_replay_hccl_task(s, &t, rt->hccl,
				    rt->replayFlags & ACLNPU_REPLAY_CONTEXT ? rt->contextId :
									      NPUPROF_NO_ID32);
	return rt_api_end(&a, ret);
}

aclError aclnpuNotifyCreate(int32_t deviceId, uint32_t *notifyId)
{
	if (!notifyId)
		return ACL_ERROR_INVALID_PARAM;
	if (!rt_g.initialized)
		return ACL_ERROR_UNINITIALIZE;
	if (deviceId < 0 || deviceId >= rt_g.ndev || rt_dev_fd(deviceId) < 0)
		return ACL_ERROR_RT_INVALID_DEVICEID;
	return npusim_id_alloc(rt_dev_fd(deviceId), NPUSIM_ID_NOTIFY, notifyId) < 0 ?
		       ACL_ERROR_RT_DRV_INTERNAL_ERROR :
		       ACL_SUCCESS;
}

aclError aclnpuNotifyDestroy(int32_t deviceId, uint32_t notifyId)
{
	if (!rt_g.initialized)
		return ACL_ERROR_UNINITIALIZE;
	if (deviceId < 0 || deviceId >= rt_g.ndev || rt_dev_fd(deviceId) < 0)
		return ACL_ERROR_RT_INVALID_DEVICEID;
	return npusim_id_free(rt_dev_fd(deviceId), NPUSIM_ID_NOTIFY, notifyId) < 0 ?
		       ACL_ERROR_RT_PARAM_INVALID :
		       ACL_SUCCESS;
}
