/*
 * rt_model.c - model run instances (CANN's aclmdlRI, acl/acl_rt.h): a
 * model holds tasks and runs them again each time it is executed.
 *
 * Its tasks come from a stream captured into it (aclmdlRICaptureBegin ..
 * aclmdlRICaptureEnd) or from the persistent streams bound to it between
 * aclmdlRIBuildBegin and aclmdlRIBuildEnd. Either way the stream's model
 * pointer is set, and rt_submit (rt_stream.c) records every task launched
 * on the stream into the model, whole (SQE, npusim's model of it, the
 * host's share such as a copy's bytes), instead of sending it. Executing
 * the model sends copies of its tasks on the execute stream, through
 * rt_submit as any task: each gets the execute stream's task ids, its
 * host share is done again, and it is reported as it runs (task tracks;
 * an acl-level aclmdlRI* range holding a model-level ModelExecute range,
 * as GE reports a model's execution).
 *
 * What differs from a 910B (docs/DESIGN.md §6): a 910B loads the model's
 * streams onto the device and runs them side by side, each with its own
 * task ids, and its runtime reports the tasks when they are captured
 * (their stream the model's, mapped back to the captured stream by
 * MsprofCaptureStreamInfo); here the head streams' tasks run one stream
 * after another on the execute stream, in the order the streams were
 * bound, and are reported when executed, on the execute stream; streams
 * bound without the head flag wait for an activation npusim has no task
 * for, so their tasks never run, unless a label switch goes to a label
 * on them. Random-number tasks cannot be recorded into a model
 * (ACL_ERROR_RT_FEATURE_NOT_SUPPORT).
 *
 * Events recorded, waited for and reset in a model are sent as any task,
 * at each execution: the device's records and waits. A label switch is
 * taken on the host (npusim has no device-side branch): the execution
 * sends the tasks before it, waits for the execute stream, reads the
 * index and goes on at the label's LABEL_SET. A task group's update
 * replaces the group's tasks in the model, for the executions after it.
 *
 * Handles are never returned to libc: a destroyed model goes to a free
 * list with its magic cleared, so a stale handle is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_prof.h"

static struct rt_model *g_free_models; /* under rt_g.lock */
static _Atomic uint32_t g_next_id;

static aclError model_get(aclmdlRI h, struct rt_model **out)
{
	struct rt_model *m = h;

	if (!rt_g.initialized)
		return ACL_ERROR_UNINITIALIZE;
	if (!m)
		return ACL_ERROR_INVALID_PARAM;
	if (atomic_load_explicit(&m->magic, memory_order_acquire) != RT_MODEL_MAGIC) {
		rt_set_errmsg("not a live model run instance: %p", h);
		return ACL_ERROR_RT_PARAM_INVALID;
	}
	*out = m;
	return ACL_SUCCESS;
}

static aclError model_new(int dev, struct rt_model **out)
{
	struct rt_model *m;

	pthread_mutex_lock(&rt_g.lock);
	m = g_free_models;
	if (m)
		g_free_models = m->free_next;
	pthread_mutex_unlock(&rt_g.lock);
	if (!m) {
		m = calloc(1, sizeof(*m));
		if (!m)
			return ACL_ERROR_RT_MEMORY_ALLOCATION;
		pthread_mutex_init(&m->lock, NULL);
	}
	m->id = atomic_fetch_add(&g_next_id, 1);
	m->dev = dev;
	m->built = m->captured = 0;
	m->task = NULL;
	m->task_stream = NULL;
	m->ntask = m->cap = 0;
	m->nstream = 0;
	m->grps = NULL;
	memset(m->name, 0, sizeof(m->name));
	atomic_store(&m->magic, RT_MODEL_MAGIC);
	*out = m;
	return ACL_SUCCESS;
}

static struct rt_task_grp *g_free_grps; /* under rt_g.lock */

static void model_free(struct rt_model *m)
{
	struct rt_task_grp *g, *next;

	atomic_store(&m->magic, RT_DEAD_MAGIC);
	rt_task_release(m->task, m->ntask);
	pthread_mutex_lock(&rt_g.lock);
	for (g = m->grps; g; g = next) {
		next = g->next;
		atomic_store(&g->magic, RT_DEAD_MAGIC);
		g->next = g_free_grps;
		g_free_grps = g;
	}
	pthread_mutex_unlock(&rt_g.lock);
	m->grps = NULL;
	free(m->task);
	free(m->task_stream);
	m->task = NULL;
	m->task_stream = NULL;
	pthread_mutex_lock(&rt_g.lock);
	m->free_next = g_free_models;
	g_free_models = m;
	pthread_mutex_unlock(&rt_g.lock);
}

/* s joins m's streams (m->lock held); 0 or an aclError. */
static aclError add_stream(struct rt_model *m, struct rt_stream *s, int head)
{
	if (m->nstream == RT_MODEL_STREAMS) {
		rt_set_errmsg("model %u has %d streams, as many as one model can have", m->id,
			      RT_MODEL_STREAMS);
		return ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
	}
	m->stream[m->nstream] = s;
	m->stream_sid[m->nstream] = s->sid;
	m->stream_head[m->nstream] = head;
	m->nstream++;
	return ACL_SUCCESS;
}

/* ---- capture ------------------------------------------------------------------- */

static int mode_ok(int mode)
{
	return mode >= ACL_MODEL_RI_CAPTURE_MODE_GLOBAL &&
	       mode <= ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
}

aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode)
{
	struct rt_api a;
	struct rt_stream *s;
	struct rt_model *m;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclmdlRICaptureBegin", NULL);
	if (!mode_ok((int)mode))
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	if ((ret = rt_stream_get(stream, &s)))
		return rt_api_end(&a, ret);
	if (s->is_default || !stream) {
		rt_set_errmsg("aclmdlRICaptureBegin: the default stream cannot be captured");
		return rt_api_end(&a, ACL_ERROR_RT_PARAM_INVALID);
	}
	if ((ret = rt_capture_refuse(s, "aclmdlRICaptureBegin")))
		return rt_api_end(&a, ret);
	if (s->model || (s->flags & ACL_STREAM_PERSISTENT)) {
		rt_set_errmsg("aclmdlRICaptureBegin: stream %u is persistent (bound to a model "
			      "or for binding): it cannot be captured",
			      s->sid);
		return rt_api_end(&a, ACL_ERROR_RT_PARAM_INVALID);
	}
	if ((ret = model_new(s->dev, &m)))
		return rt_api_end(&a, ret);
	add_stream(m, s, 1);
	pthread_mutex_lock(&s->lock);
	s->capture_mode = (int)mode;
	s->capture_tid = pthread_self();
	s->invalidated = 0;
	s->capturing = 1;
	s->model = m;
	pthread_mutex_unlock(&s->lock);
	if (mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)
		atomic_fetch_add(&rt_captures_global, 1);
	if (mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
		rt_captures_own++;
	return rt_api_end(&a, ACL_SUCCESS);
}

aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status,
				aclmdlRI *modelRI)
{
	struct rt_api a;
	struct rt_stream *s;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclmdlRICaptureGetInfo", NULL);
	if (!status)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	if ((ret = rt_stream_get(stream, &s)))
		return rt_api_end(&a, ret);
	pthread_mutex_lock(&s->lock);
	*status = !s->capturing	 ? ACL_MODEL_RI_CAPTURE_STATUS_NONE :
		  s->invalidated ? ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED :
				   ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
	if (modelRI)
		*modelRI = s->capturing ? s->model : NULL;
	pthread_mutex_unlock(&s->lock);
	return rt_api_end(&a, ACL_SUCCESS);
}

int aclnpuStreamRecords(aclrtStream stream)
{
	struct rt_stream *s;
	int r;

	if (rt_stream_get(stream, &s))
		return 0;
	pthread_mutex_lock(&s->lock);
	r = s->model != NULL || s->update != NULL;
	pthread_mutex_unlock(&s->lock);
	return r;
}

aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI)
{
	struct rt_api a;
	struct rt_stream *s;
	struct rt_model *m;
	aclError ret;
	int invalid, mode;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclmdlRICaptureEnd", NULL);
	if (!modelRI)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	if ((ret = rt_stream_get(stream, &s)))
		return rt_api_end(&a, ret);
	pthread_mutex_lock(&s->lock);
	if (!s->capturing) {
		pthread_mutex_unlock(&s->lock);
		rt_set_errmsg("aclmdlRICaptureEnd: stream %u is not being captured", s->sid);
		return rt_api_end(&a, ACL_ERROR_RT_STREAM_NOT_CAPTURED);
	}
	mode = s->capture_mode;
	if (mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED &&
	    !pthread_equal(s->capture_tid, pthread_self())) {
		pthread_mutex_unlock(&s->lock);
		rt_set_errmsg("aclmdlRICaptureEnd: stream %u's capture (mode %d) was begun by "
			      "another thread",
			      s->sid, mode);
		return rt_api_end(&a, ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD);
	}
	m = s->model;
	invalid = s->invalidated;
	s->model = NULL;
	s->grp_open = 0; /* a group not ended is no group */
	s->capturing = 0;
	s->invalidated = 0;
	pthread_mutex_unlock(&s->lock);
	if (mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)
		atomic_fetch_sub(&rt_captures_global, 1);
	if (mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
		rt_captures_own--;
	pthread_mutex_lock(&m->lock);
	m->stream[0] = NULL; /* the stream is its own again */
	m->built = 1;
	m->captured = 1;
	pthread_mutex_unlock(&m->lock);
	if (invalid) {
		model_free(m);
		*modelRI = NULL;
		rt_set_errmsg("aclmdlRICaptureEnd: stream %u's capture was invalidated by an "
			      "unsafe call",
			      s->sid);
		return rt_api_end(&a, ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED);
	}
	*modelRI = m;
	return rt_api_end(&a, ACL_SUCCESS);
}

aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode)
{
	struct rt_api a;
	int old = rt_capture_mode;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclmdlRICaptureThreadExchangeMode", NULL);
	if (!mode || !mode_ok((int)*mode))
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	rt_capture_mode = (int)*mode;
	*mode = (aclmdlRICaptureMode)old;
	return rt_api_end(&a, ACL_SUCCESS);
}

/* ---- build --------------------------------------------------------------------- */

aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag)
{
	struct rt_api a;
	struct rt_model *m;
	aclError ret;
	int dev;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclmdlRIBuildBegin", NULL);
	if (!modelRI || flag)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	if (!rt_g.initialized)
		return rt_api_end(&a, ACL_ERROR_UNINITIALIZE);
	if ((ret = rt_current_dev(&dev)) || (ret = model_new(dev, &m)))
		return rt_api_end(&a, ret);
	*modelRI = m;
	return rt_api_end(&a, ACL_SUCCESS);
}

aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag)
{
	struct rt_api a;
	struct rt_model *m;
	struct rt_stream *s;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclmdlRIBindStream", NULL);
	if (flag != ACL_MODEL_STREAM_FLAG_HEAD && flag != ACL_MODEL_STREAM_FLAG_DEFAULT)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	if (!stream)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	if ((ret = model_get(modelRI, &m)) || (ret = rt_stream_get(stream, &s)))
		return rt_api_end(&a, ret);
	if (s->dev != m->dev)
		return rt_api_end(&a, ACL_ERROR_RT_STREAM_CONTEXT);
	if (!(s->flags & ACL_STREAM_PERSISTENT)) {
		rt_set_errmsg("aclmdlRIBindStream: stream %u is not persistent "
			      "(aclrtCreateStreamWithConfig with ACL_STREAM_PERSISTENT)",
			      s->sid);
		return rt_api_end(&a, ACL_ERROR_RT_PARAM_INVALID);
	}
	pthread_mutex_lock(&s->lock);
	pthread_mutex_lock(&m->lock);
	if (s->model) {
		rt_set_errmsg("aclmdlRIBindStream: stream %u is bound to model %u already", s->sid,
			      s->model->id);
		ret = ACL_ERROR_RT_PARAM_INVALID;
	} else if (m->built) {
		rt_set_errmsg("aclmdlRIBindStream: model %u is built", m->id);
		ret = ACL_ERROR_RT_PARAM_INVALID;
	} else if (!(ret = add_stream(m, s, flag == ACL_MODEL_STREAM_FLAG_HEAD))) {
		s->model = m;
		s->ended = 0;
	}
	pthread_mutex_unlock(&m->lock);
	pthread_mutex_unlock(&s->lock);
	return rt_api_end(&a, ret);
}

aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream)
{
	struct rt_api a, r;
	struct rt_model *m;
	struct rt_stream *s;
	struct rt_task t;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclmdlRIEndTask", NULL);
	if (!stream)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	if ((ret = model_get(modelRI, &m)) || (ret = rt_stream_get(stream, &s)))
		return rt_api_end(&a, ret);
	if (s->model != m || s->capturing) {
		rt_set_errmsg("aclmdlRIEndTask: stream %u is not bound to model %u", s->sid, m->id);
		return rt_api_end(&a, ACL_ERROR_RT_PARAM_INVALID);
	}
	rt_api_begin(&r, NPUPROF_API_RUNTIME, "ModelEndGraph", NULL);
	/* the 910B's end-graph task tells the device the stream's part of the
	 * model is done; a place holder carries it */
	rt_task_init(&t, NPUSIM_SQE_PLACE_HOLDER, "MODEL_END_GRAPH");
	ret = rt_submit(s, &t, 1);
	if (!ret)
		s->ended = 1;
	rt_api_end(&r, ret);
	return rt_api_end(&a, ret);
}

aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve)
{
	struct rt_api a;
	struct rt_model *m;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclmdlRIBuildEnd", NULL);
	if (reserve)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	if ((ret = model_get(modelRI, &m)))
		return rt_api_end(&a, ret);
	pthread_mutex_lock(&m->lock);
	if (m->built) {
		rt_set_errmsg("aclmdlRIBuildEnd: model %u is built already", m->id);
		ret = ACL_ERROR_RT_PARAM_INVALID;
	}
	m->built = 1;
	pthread_mutex_unlock(&m->lock);
	return rt_api_end(&a, ret);
}

/* Unbinds s from m (both locked by the caller: s first). */
static void unbind_locked(struct rt_model *m, struct rt_stream *s)
{
	for (int k = 0; k < m->nstream; k++)
		if (m->stream[k] == s)
			m->stream[k] = NULL;
	s->model = NULL;
	s->ended = 0;
}

aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream)
{
	struct rt_api a;
	struct rt_model *m;
	struct rt_stream *s;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclmdlRIUnbindStream", NULL);
	if (!stream)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	if ((ret = model_get(modelRI, &m)) || (ret = rt_stream_get(stream, &s)))
		return rt_api_end(&a, ret);
	pthread_mutex_lock(&s->lock);
	pthread_mutex_lock(&m->lock);
	if (s->model != m || s->capturing) {
		rt_set_errmsg("aclmdlRIUnbindStream: stream %u is not bound to model %u", s->sid,
			      m->id);
		ret = ACL_ERROR_RT_PARAM_INVALID;
	} else {
		unbind_locked(m, s);
	}
	pthread_mutex_unlock(&m->lock);
	pthread_mutex_unlock(&s->lock);
	return rt_api_end(&a, ret);
}

/* ---- execute, destroy ---------------------------------------------------------------- */

/* The most label switches one execution takes: a loop whose index never
 * changes would hold the executing thread for ever. */
#define RT_MODEL_MAX_SWITCHES (1u << 20)

/* One execution of m on s: its tasks, sent in batches through rt_submit. */
struct run {
	struct rt_model *m;
	struct rt_stream *s;
	struct rt_task *task; /* a copy of the model's tasks */
	uint8_t *ts; /* and of their streams */
	size_t ntask;
	struct rt_task *out; /* the batch not sent yet */
	size_t *out_idx; /* their indices in task[] */
	size_t nout;
	uint32_t switches;
};

static aclError run_flush(struct run *r)
{
	aclError ret = ACL_SUCCESS;

	for (size_t i = 0; i < r->nout && !ret; i += 1024)
		ret = rt_submit(r->s, &r->out[i], (int)(r->nout - i < 1024 ? r->nout - i : 1024));
	/* where each task group's first task went (aclmdlRICaptureTaskUpdateEnd) */
	pthread_mutex_lock(&r->m->lock);
	for (struct rt_task_grp *g = r->m->grps; g && !ret; g = g->next)
		for (size_t i = 0; i < r->nout; i++)
			if (r->out_idx[i] == g->first && g->n) {
				g->exec = r->s;
				g->exec_seq = rt_task_seq(&r->out[i]);
			}
	pthread_mutex_unlock(&r->m->lock);
	r->nout = 0;
	return ret;
}

/* The task a label switch (task i) goes on at: the LABEL_SET of the label
 * its index picks. The switch is a device task, the 910B's COND SQE, sent
 * in its place; npusim has no device-side branch, so the host takes it: it
 * reads the index in device memory once the COND (and every task before
 * it) has run. */
static aclError run_switch(struct run *r, size_t i, size_t *next)
{
	const struct rt_task *t = &r->task[i];
	struct rt_label_list *ll = t->labels;
	struct rt_label *l;
	size_t size;
	uint32_t idx;
	aclError ret;

	/* the tasks before it run whatever the switch finds */
	if ((ret = run_flush(r)))
		return ret;
	if (++r->switches > RT_MODEL_MAX_SWITCHES) {
		rt_set_errmsg("model %u took %u label switches in one execution: a loop that "
			      "does not end",
			      r->m->id, RT_MODEL_MAX_SWITCHES);
		return ACL_ERROR_RT_PARAM_INVALID;
	}
	if (atomic_load(&ll->magic) != RT_LLIST_MAGIC || rt_mem_dev(t->switch_index, &size) < 0) {
		rt_set_errmsg("model %u: a label switch's label list or index memory was freed",
			      r->m->id);
		return ACL_ERROR_RT_PARAM_INVALID;
	}
	r->out_idx[r->nout] = i;
	r->out[r->nout++] = *t;
	if ((ret = run_flush(r)) || (ret = rt_stream_sync(r->s)))
		return ret;
	idx = *(volatile const uint32_t *)t->switch_index;
	l = ll->l[idx < ll->n ? idx : ll->n - 1];
	for (size_t i = 0; i < r->ntask; i++)
		if (r->task[i].label == l &&
		    (r->task[i].sqe.type & NPUSIM_SQE_TYPE_MASK) == NPUSIM_SQE_PLACE_HOLDER) {
			*next = i;
			return ACL_SUCCESS;
		}
	rt_set_errmsg("model %u: label %zu of the switch's list (index %u) is set on none of "
		      "its streams",
		      r->m->id, idx < ll->n ? (size_t)idx : ll->n - 1, idx);
	return ACL_ERROR_RT_PARAM_INVALID;
}

/* Runs stream st of the model from task i on: to its end, or, at a label
 * switch, on at the label (and the label's stream). */
static aclError run_stream(struct run *r, int st, size_t i)
{
	aclError ret;

	for (; i < r->ntask; i++) {
		const struct rt_task *t = &r->task[i];

		if (r->ts[i] != st)
			continue;
		if (t->labels) {
			if ((ret = run_switch(r, i, &i)))
				return ret;
			st = r->ts[i];
			t = &r->task[i];
		}
		r->out_idx[r->nout] = i;
		r->out[r->nout++] = *t;
		if (r->nout == r->ntask && (ret = run_flush(r)))
			return ret;
	}
	return ACL_SUCCESS;
}

/* Runs m's tasks on s: the head streams' in bind order. */
static aclError execute(struct rt_model *m, struct rt_stream *s)
{
	struct rt_api me;
	struct run r = { .m = m, .s = s };
	aclError ret = ACL_SUCCESS;
	int head[RT_MODEL_STREAMS], nhead = 0;

	if (s->dev != m->dev)
		return ACL_ERROR_RT_STREAM_CONTEXT;
	if (s->model || (s->flags & ACL_STREAM_PERSISTENT) || s->update) {
		rt_set_errmsg("model %u executed on stream %u, whose tasks go to a model: a model "
			      "inside a model is not supported on npusim",
			      m->id, s->sid);
		return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
	}
	pthread_mutex_lock(&m->lock);
	if (!m->built) {
		pthread_mutex_unlock(&m->lock);
		rt_set_errmsg("model %u is not built (aclmdlRIBuildEnd or aclmdlRICaptureEnd)",
			      m->id);
		return ACL_ERROR_RT_PARAM_INVALID;
	}
	r.ntask = m->ntask;
	r.task = malloc((r.ntask ? r.ntask : 1) * sizeof(*r.task));
	r.out = malloc((r.ntask ? r.ntask : 1) * sizeof(*r.out));
	r.ts = malloc(r.ntask ? r.ntask : 1);
	r.out_idx = malloc((r.ntask ? r.ntask : 1) * sizeof(*r.out_idx));
	if (r.task && r.out && r.ts && r.out_idx) {
		memcpy(r.task, m->task, r.ntask * sizeof(*r.task));
		memcpy(r.ts, m->task_stream, r.ntask);
	} else {
		ret = ACL_ERROR_RT_MEMORY_ALLOCATION;
	}
	for (int st = 0; st < m->nstream; st++)
		if (m->stream_head[st])
			head[nhead++] = st;
	pthread_mutex_unlock(&m->lock);
	rt_api_begin(&me, NPUPROF_API_MODEL, "ModelExecute", NULL);
	for (int k = 0; k < nhead && !ret; k++)
		ret = run_stream(&r, head[k], 0);
	if (!ret)
		ret = run_flush(&r);
	rt_api_end(&me, ret);
	free(r.task);
	free(r.out);
	free(r.ts);
	free(r.out_idx);
	return ret;
}

aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream)
{
	struct rt_api a;
	struct rt_model *m;
	struct rt_stream *s;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclmdlRIExecuteAsync", NULL);
	if ((ret = model_get(modelRI, &m)) || (ret = rt_stream_get(stream, &s)))
		return rt_api_end(&a, ret);
	return rt_api_end(&a, execute(m, s));
}

aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout)
{
	struct rt_api a;
	struct rt_model *m;
	struct rt_stream *s;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclmdlRIExecute", NULL);
	if (timeout != -1 && timeout <= 0)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	if ((ret = model_get(modelRI, &m)) || (ret = rt_stream_get(NULL, &s)))
		return rt_api_end(&a, ret);
	ret = execute(m, s);
	if (!ret)
		ret = rt_stream_sync(s);
	return rt_api_end(&a, ret);
}

aclError aclmdlRIDestroy(aclmdlRI modelRI)
{
	struct rt_api a;
	struct rt_model *m;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclmdlRIDestroy", NULL);
	if ((ret = model_get(modelRI, &m)))
		return rt_api_end(&a, ret);
	if (!m->built && !m->captured && m->nstream && m->stream[0] && m->stream[0]->capturing &&
	    m->stream[0]->model == m) {
		rt_set_errmsg("aclmdlRIDestroy: model %u is being captured (aclmdlRICaptureEnd "
			      "first)",
			      m->id);
		return rt_api_end(&a, ACL_ERROR_RT_MODEL_CAPTURED);
	}
	/* streams still bound are unbound: their handles stay the caller's */
	for (int k = 0; k < m->nstream; k++) {
		struct rt_stream *s = m->stream[k];

		if (!s)
			continue;
		pthread_mutex_lock(&s->lock);
		pthread_mutex_lock(&m->lock);
		if (s->model == m)
			unbind_locked(m, s);
		pthread_mutex_unlock(&m->lock);
		pthread_mutex_unlock(&s->lock);
	}
	model_free(m);
	return rt_api_end(&a, ACL_SUCCESS);
}

/* ---- names, ids, debug ------------------------------------------------------------------ */

aclError aclmdlRISetName(aclmdlRI modelRI, const char *name)
{
	struct rt_model *m;
	aclError ret;

	if (!name)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if ((ret = model_get(modelRI, &m)))
		return rt_fail(ret);
	if (strlen(name) >= sizeof(m->name)) {
		rt_set_errmsg("aclmdlRISetName: a name of %zu bytes, at most %zu", strlen(name),
			      sizeof(m->name) - 1);
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	}
	pthread_mutex_lock(&m->lock);
	strcpy(m->name, name);
	pthread_mutex_unlock(&m->lock);
	return ACL_SUCCESS;
}

aclError aclmdlRIGetName(aclmdlRI modelRI, uint32_t maxLen, char *name)
{
	struct rt_model *m;
	aclError ret;

	if (!name || !maxLen)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if ((ret = model_get(modelRI, &m)))
		return rt_fail(ret);
	pthread_mutex_lock(&m->lock);
	if (strlen(m->name) >= maxLen) {
		ret = ACL_ERROR_INVALID_PARAM;
		rt_set_errmsg("aclmdlRIGetName: the name needs %zu bytes, maxLen is %u",
			      strlen(m->name) + 1, maxLen);
	} else {
		strcpy(name, m->name);
	}
	pthread_mutex_unlock(&m->lock);
	return rt_fail(ret);
}

aclError aclmdlRIGetId(aclmdlRI modelRI, uint32_t *modelRIId)
{
	struct rt_model *m;
	aclError ret;

	if (!modelRIId)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if ((ret = model_get(modelRI, &m)))
		return rt_fail(ret);
	*modelRIId = m->id;
	return ACL_SUCCESS;
}

/* One trace event per task, in the model's order, on its stream's track
 * (chrome://tracing's JSON array format); VERBOSE adds each task's SQE
 * type and block dim. */
aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path, uint32_t flags)
{
	struct rt_api a;
	struct rt_model *m;
	aclError ret;
	FILE *f;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclmdlRIDebugJsonPrint", NULL);
	if (!path || (flags != ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY &&
		      flags != ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE))
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	if ((ret = model_get(modelRI, &m)))
		return rt_api_end(&a, ret);
	f = fopen(path, "w");
	if (!f) {
		rt_set_errmsg("aclmdlRIDebugJsonPrint: cannot write %s", path);
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	}
	pthread_mutex_lock(&m->lock);
	fprintf(f, "{\"modelId\":%u,\"name\":\"", m->id);
	for (const char *c = m->name; *c; c++) {
		if (*c == '"' || *c == '\\')
			fputc('\\', f);
		fputc((unsigned char)*c < 0x20 ? '?' : *c, f);
	}
	fprintf(f, "\",\"traceEvents\":[");
	for (size_t i = 0; i < m->ntask; i++) {
		const struct rt_task *t = &m->task[i];

		fprintf(f,
			"%s\n{\"name\":\"%s\",\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":%zu,"
			"\"dur\":1,\"args\":{\"taskIndex\":%zu",
			i ? "," : "", t->type_name ? t->type_name : "UNKNOWN", m->id,
			m->stream_sid[m->task_stream[i]], i, i);
		if (flags == ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE)
			fprintf(f, ",\"sqeType\":%u,\"blockDim\":%u",
				(unsigned)(t->sqe.type & NPUSIM_SQE_TYPE_MASK),
				(unsigned)t->sqe.block_dim);
		fprintf(f, "}}");
	}
	fprintf(f, "\n]}\n");
	pthread_mutex_unlock(&m->lock);
	if (fclose(f)) {
		rt_set_errmsg("aclmdlRIDebugJsonPrint: writing %s failed", path);
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	}
	return rt_api_end(&a, ACL_SUCCESS);
}

/* ---- task groups and their updates ------------------------------------------------ */

aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream)
{
	struct rt_api a;
	struct rt_stream *s;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclmdlRICaptureTaskGrpBegin", NULL);
	if ((ret = rt_stream_get(stream, &s)))
		return rt_api_end(&a, ret);
	pthread_mutex_lock(&s->lock);
	if (!s->capturing) {
		rt_set_errmsg("aclmdlRICaptureTaskGrpBegin: stream %u is not being captured",
			      s->sid);
		ret = ACL_ERROR_RT_STREAM_NOT_CAPTURED;
	} else if (s->grp_open) {
		rt_set_errmsg("aclmdlRICaptureTaskGrpBegin: stream %u has a task group begun "
			      "already",
			      s->sid);
		ret = ACL_ERROR_RT_PARAM_INVALID;
	} else {
		pthread_mutex_lock(&s->model->lock);
		s->grp_first = s->model->ntask;
		pthread_mutex_unlock(&s->model->lock);
		s->grp_open = 1;
	}
	pthread_mutex_unlock(&s->lock);
	return rt_api_end(&a, ret);
}

aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp *handle)
{
	struct rt_api a;
	struct rt_stream *s;
	struct rt_task_grp *g;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclmdlRICaptureTaskGrpEnd", NULL);
	if (!handle)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	if ((ret = rt_stream_get(stream, &s)))
		return rt_api_end(&a, ret);
	pthread_mutex_lock(&rt_g.lock);
	g = g_free_grps;
	if (g)
		g_free_grps = g->next;
	pthread_mutex_unlock(&rt_g.lock);
	if (!g && !(g = calloc(1, sizeof(*g))))
		return rt_api_end(&a, ACL_ERROR_RT_MEMORY_ALLOCATION);
	pthread_mutex_lock(&s->lock);
	if (!s->capturing || !s->grp_open) {
		rt_set_errmsg("aclmdlRICaptureTaskGrpEnd: stream %u has no task group begun "
			      "(aclmdlRICaptureTaskGrpBegin)",
			      s->sid);
		ret = s->capturing ? ACL_ERROR_RT_PARAM_INVALID : ACL_ERROR_RT_STREAM_NOT_CAPTURED;
	} else {
		struct rt_model *m = s->model;

		pthread_mutex_lock(&m->lock);
		g->m = m;
		g->first = s->grp_first;
		g->n = m->ntask - s->grp_first;
		g->next = m->grps;
		m->grps = g;
		atomic_store(&g->magic, RT_GRP_MAGIC);
		pthread_mutex_unlock(&m->lock);
		s->grp_open = 0;
		*handle = g;
		g = NULL;
	}
	pthread_mutex_unlock(&s->lock);
	if (g) {
		pthread_mutex_lock(&rt_g.lock);
		g->next = g_free_grps;
		g_free_grps = g;
		pthread_mutex_unlock(&rt_g.lock);
	}
	return rt_api_end(&a, ret);
}

aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, aclrtTaskGrp handle)
{
	struct rt_api a;
	struct rt_stream *s;
	struct rt_task_grp *g = handle;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclmdlRICaptureTaskUpdateBegin", NULL);
	if (!g)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	if ((ret = rt_stream_get(stream, &s)))
		return rt_api_end(&a, ret);
	if (atomic_load(&g->magic) != RT_GRP_MAGIC || atomic_load(&g->m->magic) != RT_MODEL_MAGIC) {
		rt_set_errmsg("aclmdlRICaptureTaskUpdateBegin: not a live task group: %p", handle);
		return rt_api_end(&a, ACL_ERROR_RT_PARAM_INVALID);
	}
	pthread_mutex_lock(&s->lock);
	if (s->capturing) {
		rt_set_errmsg("aclmdlRICaptureTaskUpdateBegin: stream %u is being captured",
			      s->sid);
		ret = ACL_ERROR_RT_STREAM_CAPTURED;
	} else if (s->model || (s->flags & ACL_STREAM_PERSISTENT) || s->update) {
		rt_set_errmsg("aclmdlRICaptureTaskUpdateBegin: stream %u's tasks go to a model "
			      "or to another update",
			      s->sid);
		ret = ACL_ERROR_RT_PARAM_INVALID;
	} else {
		s->update = g;
		s->nupd = 0;
	}
	pthread_mutex_unlock(&s->lock);
	return rt_api_end(&a, ret);
}

/* The update's tasks fit group g: as many, each of its task's SQE type. */
static int update_fits(const struct rt_task_grp *g, const struct rt_task *t, size_t n)
{
	if (n != g->n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct rt_task *o = &g->m->task[g->first + i];

		if ((t[i].sqe.type & NPUSIM_SQE_TYPE_MASK) !=
			    (o->sqe.type & NPUSIM_SQE_TYPE_MASK) ||
		    !t[i].labels != !o->labels || !t[i].label != !o->label)
			return 0;
	}
	return 1;
}

/*
 * A 910B's update rewrites the model's SQEs on the device, so an execution
 * sent before it whose device has not reached the group yet (it waits for
 * an event before it) runs the new tasks. Here the SQEs were sent with
 * their host shares done: while the device has not completed the group's
 * first task of the last execution, the new tasks' host shares (an aclnn
 * operator's results) are done again now, over the data as it is. g's
 * model locked.
 */
static void inflight(const struct rt_task_grp *g)
{
	struct npusim_stream_status st = { 0 };
	struct rt_stream *s = g->exec;

	if (!s || atomic_load(&s->magic) != RT_STREAM_MAGIC ||
	    npusim_hal_sq_status((uint32_t)s->dev, s->sid, &st) != DRV_ERROR_NONE ||
	    st.completed > g->exec_seq)
		return;
	for (size_t i = 0; i < g->n; i++) {
		const struct rt_task *t = &g->m->task[g->first + i];

		if (t->host)
			t->host(t);
		if (t->host_call)
			t->host_call(t->host_arg);
	}
}

aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream)
{
	struct rt_api a, r;
	struct rt_stream *s;
	struct rt_task_grp *g;
	struct rt_task *t, ph;
	size_t n;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclmdlRICaptureTaskUpdateEnd", NULL);
	if ((ret = rt_stream_get(stream, &s)))
		return rt_api_end(&a, ret);
	pthread_mutex_lock(&s->lock);
	g = s->update;
	t = s->upd;
	n = s->nupd;
	s->update = NULL;
	s->upd = NULL;
	s->nupd = s->capupd = 0;
	pthread_mutex_unlock(&s->lock);
	if (!g) {
		rt_set_errmsg("aclmdlRICaptureTaskUpdateEnd: stream %u has no update begun "
			      "(aclmdlRICaptureTaskUpdateBegin)",
			      s->sid);
		return rt_api_end(&a, ACL_ERROR_RT_PARAM_INVALID);
	}
	if (atomic_load(&g->magic) != RT_GRP_MAGIC) {
		rt_set_errmsg("aclmdlRICaptureTaskUpdateEnd: the task group's model is gone");
		ret = ACL_ERROR_RT_PARAM_INVALID;
	} else {
		pthread_mutex_lock(&g->m->lock);
		if (!update_fits(g, t, n)) {
			rt_set_errmsg("aclmdlRICaptureTaskUpdateEnd: %zu task(s) launched for a "
				      "group of %zu: the number and types of the tasks must be "
				      "the group's",
				      n, g->n);
			ret = ACL_ERROR_RT_PARAM_INVALID;
		} else {
			/* the new tasks, host shares with them, in the group's place */
			rt_task_release(&g->m->task[g->first], g->n);
			memcpy(&g->m->task[g->first], t, n * sizeof(*t));
			n = 0;
			inflight(g);
		}
		pthread_mutex_unlock(&g->m->lock);
	}
	rt_task_release(t, n);
	free(t);
	if (ret)
		return rt_api_end(&a, ret);
	/* the 910B rewrites the model's SQEs by tasks of the update stream */
	rt_api_begin(&r, NPUPROF_API_RUNTIME, "ModelTaskUpdate", NULL);
	rt_task_init(&ph, NPUSIM_SQE_PLACE_HOLDER, "MODEL_TASK_UPDATE");
	ret = rt_submit(s, &ph, 1);
	rt_api_end(&r, ret);
	return rt_api_end(&a, ret);
}

/* ---- labels ---------------------------------------------------------------------- */

/* TS task types of the 910B (hicann/runtime task_base.hpp 126) and the COND
 * SQE's sub type of an index switch (stars_base.hpp 101). */
#define RT_TS_TASK_LABEL_SET 20
#define RT_CONDS_LABEL_SWITCH_BY_INDEX 7
#define RT_LABELS_MAX 65535u

static _Atomic uint32_t g_nlabels;
/* Label and label list memory is never returned to libc (a stale handle
 * stays readable, its magic cleared): destroyed ones wait here, under
 * rt_g.lock, for the next create. */
static struct rt_label *g_free_labels;
static struct rt_label_list *g_free_llists;

aclError aclrtCreateLabel(aclrtLabel *label)
{
	struct rt_label *l;

	if (!label)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if (!rt_g.initialized)
		return rt_fail(ACL_ERROR_UNINITIALIZE);
	if (atomic_fetch_add(&g_nlabels, 1) >= RT_LABELS_MAX) {
		atomic_fetch_sub(&g_nlabels, 1);
		rt_set_errmsg("aclrtCreateLabel: a process has at most %u labels", RT_LABELS_MAX);
		return rt_fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL);
	}
	pthread_mutex_lock(&rt_g.lock);
	l = g_free_labels;
	if (l)
		g_free_labels = l->free_next;
	pthread_mutex_unlock(&rt_g.lock);
	if (l)
		memset(l, 0, sizeof(*l));
	else
		l = calloc(1, sizeof(*l));
	if (!l) {
		atomic_fetch_sub(&g_nlabels, 1);
		return rt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION);
	}
	atomic_store(&l->magic, RT_LABEL_MAGIC);
	*label = l;
	return ACL_SUCCESS;
}

static aclError label_get(aclrtLabel h, struct rt_label **out)
{
	struct rt_label *l = h;

	if (!l)
		return ACL_ERROR_INVALID_PARAM;
	if (!rt_g.initialized)
		return ACL_ERROR_UNINITIALIZE;
	if (atomic_load(&l->magic) != RT_LABEL_MAGIC) {
		rt_set_errmsg("not a live label: %p", h);
		return ACL_ERROR_RT_PARAM_INVALID;
	}
	*out = l;
	return ACL_SUCCESS;
}

aclError aclrtDestroyLabel(aclrtLabel label)
{
	struct rt_label *l;
	aclError ret;

	pthread_mutex_lock(&rt_g.lock);
	if ((ret = label_get(label, &l))) {
		pthread_mutex_unlock(&rt_g.lock);
		return rt_fail(ret);
	}
	atomic_store(&l->magic, RT_DEAD_MAGIC);
	l->free_next = g_free_labels;
	g_free_labels = l;
	pthread_mutex_unlock(&rt_g.lock);
	atomic_fetch_sub(&g_nlabels, 1);
	return ACL_SUCCESS;
}

aclError aclrtCreateLabelList(aclrtLabel *labels, size_t num, aclrtLabelList *labelList)
{
	struct rt_label_list *ll;
	struct rt_label *l;
	aclError ret;

	if (!labels || !labelList || num == 0 || num > RT_LABELS_MAX)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	for (size_t i = 0; i < num; i++)
		if ((ret = label_get(labels[i], &l)))
			return rt_fail(ret);
	pthread_mutex_lock(&rt_g.lock);
	ll = g_free_llists;
	if (ll)
		g_free_llists = ll->free_next;
	pthread_mutex_unlock(&rt_g.lock);
	if (ll)
		memset(ll, 0, sizeof(*ll));
	else
		ll = calloc(1, sizeof(*ll));
	if (ll && !(ll->l = malloc(num * sizeof(*ll->l)))) {
		pthread_mutex_lock(&rt_g.lock);
		ll->free_next = g_free_llists;
		g_free_llists = ll;
		pthread_mutex_unlock(&rt_g.lock);
		ll = NULL;
	}
	if (!ll)
		return rt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION);
	memcpy(ll->l, labels, num * sizeof(*ll->l));
	ll->n = num;
	atomic_store(&ll->magic, RT_LLIST_MAGIC);
	*labelList = ll;
	return ACL_SUCCESS;
}

aclError aclrtDestroyLabelList(aclrtLabelList labelList)
{
	struct rt_label_list *ll = labelList;

	if (!ll)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	pthread_mutex_lock(&rt_g.lock);
	if (atomic_load(&ll->magic) != RT_LLIST_MAGIC) {
		pthread_mutex_unlock(&rt_g.lock);
		rt_set_errmsg("not a live label list: %p", labelList);
		return rt_fail(ACL_ERROR_RT_PARAM_INVALID);
	}
	atomic_store(&ll->magic, RT_DEAD_MAGIC);
	free(ll->l);
	ll->l = NULL;
	ll->n = 0;
	ll->free_next = g_free_llists;
	g_free_llists = ll;
	pthread_mutex_unlock(&rt_g.lock);
	return ACL_SUCCESS;
}

/* A stream of a model being built (bound by aclmdlRIBindStream). */
static aclError bound_stream(aclrtStream stream, const char *api, struct rt_stream **out)
{
	struct rt_stream *s;
	aclError ret;

	if (!stream)
		return ACL_ERROR_INVALID_PARAM;
	if ((ret = rt_stream_get(stream, &s)))
		return ret;
	if (!s->model || s->capturing) {
		rt_set_errmsg("%s: stream %u is not bound to a model run instance "
			      "(aclmdlRIBindStream)",
			      api, s->sid);
		return ACL_ERROR_RT_PARAM_INVALID;
	}
	*out = s;
	return ACL_SUCCESS;
}

aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream)
{
	struct rt_api a;
	struct rt_label *l;
	struct rt_stream *s;
	struct rt_model *m;
	struct rt_task t;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtSetLabel", NULL);
	if ((ret = label_get(label, &l)) || (ret = bound_stream(stream, "aclrtSetLabel", &s)))
		return rt_api_end(&a, ret);
	m = s->model;
	pthread_mutex_lock(&m->lock);
	if (l->m && atomic_load(&l->m->magic) == RT_MODEL_MAGIC) {
		rt_set_errmsg("aclrtSetLabel: the label is set in model %u already", l->m->id);
		ret = ACL_ERROR_RT_PARAM_INVALID;
	}
	pthread_mutex_unlock(&m->lock);
	if (ret)
		return rt_api_end(&a, ret);
	rt_task_init(&t, NPUSIM_SQE_PLACE_HOLDER, "LABEL_SET");
	t.sqe.block_dim = RT_TS_TASK_LABEL_SET;
	t.label = l;
	if (!(ret = rt_submit(s, &t, 1)))
		l->m = m;
	return rt_api_end(&a, ret);
}

aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue, aclrtLabelList labelList,
				 aclrtStream stream)
{
	struct rt_api a;
	struct rt_label_list *ll = labelList;
	struct rt_stream *s;
	struct rt_task t;
	size_t size;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtSwitchLabelByIndex", NULL);
	if (!ptr || !ll || !maxValue)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	if ((ret = bound_stream(stream, "aclrtSwitchLabelByIndex", &s)))
		return rt_api_end(&a, ret);
	if (atomic_load(&ll->magic) != RT_LLIST_MAGIC) {
		rt_set_errmsg("aclrtSwitchLabelByIndex: not a live label list: %p", labelList);
		return rt_api_end(&a, ACL_ERROR_RT_PARAM_INVALID);
	}
	if (maxValue != ll->n) {
		rt_set_errmsg("aclrtSwitchLabelByIndex: maxValue %u, the list has %zu labels",
			      maxValue, ll->n);
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	}
	if (rt_mem_dev(ptr, &size) != s->dev || size < sizeof(uint32_t)) {
		rt_set_errmsg("aclrtSwitchLabelByIndex: the index %p is not device memory of "
			      "device %d (the start of an aclrtMalloc of 4 bytes or more)",
			      ptr, s->dev);
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	}
	rt_task_init(&t, NPUSIM_SQE_COND, "STREAM_LABEL_SWITCH_BY_INDEX");
	t.sqe.u.cond.conds_sub_type = RT_CONDS_LABEL_SWITCH_BY_INDEX;
	t.labels = ll;
	t.switch_index = ptr;
	ret = rt_submit(s, &t, 1);
	return rt_api_end(&a, ret);
}
