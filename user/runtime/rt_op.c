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

#include "rt_prof.h"

/* As the 910B runtime does, every AI Core / AI Vector kernel is an FFTS SQE
 * (type 0) with its cores in ffts_type; which cores lead a mix is npusim's
 * model (kind). */
static const struct kind_info {
	aclnpuTaskKind kind;
	unsigned sqe_type;
	uint16_t ffts_type;
	uint8_t sqe_kind;
	const char *rt_type; /* TASK.taskType */
	const char *ge_type; /* COMPUTE_TASK_INFO.taskType */
} g_kinds[] = {
	{ ACLNPU_TASK_AI_CORE, NPUSIM_SQE_AI_CORE, NPUSIM_FFTS_AIC_ONLY, NPUSIM_KERNEL_PLAIN,
	  "KERNEL_AICORE", "AI_CORE" },
	{ ACLNPU_TASK_AI_CPU, NPUSIM_SQE_AI_CPU, 0, 0, "KERNEL_AICPU", "AI_CPU" },
	{ ACLNPU_TASK_AI_VECTOR_CORE, NPUSIM_SQE_AI_CORE, NPUSIM_FFTS_AIV_ONLY, NPUSIM_KERNEL_PLAIN,
	  "KERNEL_AIVEC", "AI_VECTOR_CORE" },
	{ ACLNPU_TASK_MIX_AIC, NPUSIM_SQE_AI_CORE, NPUSIM_FFTS_AIC_AIV_MIX, NPUSIM_KERNEL_MIX_AIC,
	  "KERNEL_MIX_AIC", "MIX_AIC" },
	{ ACLNPU_TASK_MIX_AIV, NPUSIM_SQE_AI_CORE, NPUSIM_FFTS_AIC_AIV_MIX, NPUSIM_KERNEL_MIX_AIV,
	  "KERNEL_MIX_AIV", "MIX_AIV" },
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
	if (d->size >= offsetof(aclnpuOpDesc, hostArgSize) + sizeof(d->hostArgSize) &&
	    d->hostCompute &&
	    ((d->hostArgSize && !d->hostArg) || d->hostArgSize > ACLNPU_HOST_ARG_MAX))
		return ACL_ERROR_INVALID_PARAM;
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
	if (ki->sqe_type == NPUSIM_SQE_AI_CORE)
		t.sqe.u.ffts.ffts_type = ki->ffts_type;
	t.model.kind = ki->sqe_kind;
	t.kernel = d->opName;
	t.sqe.block_dim = (uint16_t)d->blockDim;
	t.model.duration_ns = d->durationNs;
	t.model.jitter_pm = (uint16_t)d->jitterPerMille;
	if (d->size >= offsetof(aclnpuOpDesc, hostArgSize) + sizeof(d->hostArgSize) &&
	    d->hostCompute) {
		/* the op's results, computed when the task is sent (rt_submit) */
		t.host_call = d->hostCompute;
		t.host_arg = (void *)d->hostArg;
		t.host_arg_size = d->hostArgSize;
	}
	ret = replay ? rt_replay_task(&t, replay, d->startNs, d->connectionId) : ACL_SUCCESS;
	if (!ret)
		ret = rt_submit(s, &t, 1);
	rt_api_end(&r, ret);
	/* recorded with its task, also while a replay records no API; a task
	 * recorded into a model run instance (rt_model.c) was not sent, and
	 * its executions carry no op info. A launch that profiling caught
	 * midway (its `launch` or its task not recorded: switched on by
	 * another thread meanwhile) is left out whole, as its info would
	 * belong to no call and no task. */
	if (!ret && !s->model && !s->update && !(s->flags & ACL_STREAM_PERSISTENT) &&
	    RT_UNLIKELY(rtprof_on(RTPROF_NODE)) && t.time_ns && (node.on || rt_own_apis_off))
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

/* A raw task's fields into the real payload of its type, or npusim's
 * model where a real SQE has no such field. A kernel is an FFTS SQE (type
 * 0) whatever it asks for, as the 910B runtime writes it: an AIV one
 * (sqeType 2) is AIV only, or a mix. */
static void raw_payload(struct rt_task *t, const aclnpuRawTask *rt)
{
	t->sqe.block_dim = (uint16_t)rt->blockDim;
	switch (rt->sqeType) {
	case NPUSIM_SQE_AI_CORE:
	case NPUSIM_SQE_AIV:
		t->sqe.type = NPUSIM_SQE_AI_CORE;
		t->sqe.u.ffts.ffts_type = rt->kind != NPUSIM_KERNEL_PLAIN ?
						  NPUSIM_FFTS_AIC_AIV_MIX :
					  rt->sqeType == NPUSIM_SQE_AIV ? NPUSIM_FFTS_AIV_ONLY :
									  NPUSIM_FFTS_AIC_ONLY;
		t->model.kind = (uint8_t)rt->kind;
		break;
	case NPUSIM_SQE_PLACE_HOLDER:
		if (rt->kind == ACLNPU_RAW_PROFILER_TRACE) {
			t->sqe.block_dim = NPUSIM_PH_TASK_PROFILER_TRACE_EX;
			t->sqe.u.ph.trace.tag_id = (uint16_t)rt->tag;
			t->sqe.u.ph.trace.trace_id = rt->value;
		}
		break;
	case NPUSIM_SQE_NOTIFY_RECORD:
		t->model.target_dev = NPUSIM_TARGET_DEV(rt->targetDevice);
		/* fall through */
	case NPUSIM_SQE_EVENT_RECORD:
	case NPUSIM_SQE_EVENT_WAIT:
	case NPUSIM_SQE_NOTIFY_WAIT: npusim_sqe_set_sync_id(&t->sqe, rt->id); break;
	case NPUSIM_SQE_WRITE_VALUE:
		t->sqe.u.write_value.value[0] = (uint32_t)rt->value;
		t->sqe.u.write_value.value[1] = (uint32_t)(rt->value >> 32);
		break;
	}
}

aclError aclnpuLaunchRawTask(const aclnpuRawTask *rt, aclrtStream stream)
{
	struct rt_api a;
	struct rt_stream *s;
	struct rt_task t;
	aclError ret;

	if (!rt || rt->size < sizeof(aclnpuRawTask) || !rt->taskTypeName ||
	    rt->sqeType > NPUSIM_SQE_TYPE_MASK || rt->blockDim > 65535 ||
	    rt->durationNs > NPUSIM_MAX_TASK_NS || rt->kind > NPUSIM_KERNEL_MIX_AIV ||
	    rt->targetDevice >= NPUSIM_MAX_DEVICES || rt->tag > UINT16_MAX ||
	    (rt->sqeType == NPUSIM_SQE_SDMA && rt->bytes > UINT32_MAX))
		return ACL_ERROR_INVALID_PARAM;
	a.on = 0;
	if (rt->apiName)
		rt_api_begin(&a, NPUPROF_API_ACL, rt->apiName, NULL);
	ret = rt_stream_get(stream, &s);
	if (ret)
		return rt_api_end(&a, ret);
	rt_task_init(&t, rt->sqeType, rt->taskTypeName);
	raw_payload(&t, rt);
	t.model.duration_ns = rt->durationNs;
	t.bytes = rt->bytes;
	ret = rt_replay_task(&t, rt->replayFlags, rt->startNs, rt->connectionId);
	if (!ret && rt->event) {
		uint32_t id;

		ret = rt_event_id(rt->event, s->dev, &id);
		if (!ret && rt->sqeType != NPUSIM_SQE_EVENT_RECORD &&
		    rt->sqeType != NPUSIM_SQE_EVENT_WAIT)
			ret = ACL_ERROR_INVALID_PARAM;
		if (!ret)
			npusim_sqe_set_sync_id(&t.sqe, id);
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
	return rt_id_alloc(deviceId, DRV_NOTIFY_ID, notifyId) != DRV_ERROR_NONE ?
		       ACL_ERROR_RT_DRV_INTERNAL_ERROR :
		       ACL_SUCCESS;
}

aclError aclnpuNotifyDestroy(int32_t deviceId, uint32_t notifyId)
{
	if (!rt_g.initialized)
		return ACL_ERROR_UNINITIALIZE;
	if (deviceId < 0 || deviceId >= rt_g.ndev || rt_dev_fd(deviceId) < 0)
		return ACL_ERROR_RT_INVALID_DEVICEID;
	return rt_id_free(deviceId, DRV_NOTIFY_ID, notifyId) != DRV_ERROR_NONE ?
		       ACL_ERROR_RT_PARAM_INVALID :
		       ACL_SUCCESS;
}
