/*
 * rt_stream.c - streams, the submit path, synchronisation and events.
 *
 * Every SQE the runtime sends goes through rt_submit: under the stream's
 * lock it takes the next task ids (task_id = seq mod 2^16, batch_id = wraps),
 * writes the SQEs with one NPUSIM_IOC_SQ_SEND, and, while profiling is on,
 * records one TASK_TRACK per SQE afterwards. Because every task of a stream
 * passes here, npusim's per-stream completed count equals our seq, which
 * aclrtSynchronizeEvent uses to wait for exactly the recording task.
 *
 * Each stream has a logic CQ bound to it, as on a 910B, and its reports
 * (of the event records and place holders, which a 910B reports unasked)
 * are taken from there every RT_DRAIN_EVERY submits and at each
 * synchronisation. The synchronisation itself waits through the
 * simulator's npusim_hal_sq_wait, not as the 910B runtime does (polls of
 * the SQ head, then an event record with the sync-task flag whose report
 * it receives by stream and task; docs/DESIGN.md §6).
 *
 * Handles are never returned to libc: a destroyed stream or event goes to a
 * free list with its magic cleared, so a stale handle is detected
 * (ACL_ERROR_RT_PARAM_INVALID) instead of reading freed memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt_prof.h"
/* what CANN's libprofapi looks up by name in libruntime.so (a filter over
 * this library, build.mk) */
#include "runtime/rts/rts_stream.h"

static struct rt_stream *g_free_streams;
void (*rt_stream_value_hook)(struct rt_stream *s, int gone);
static aclnpuTaskObserver g_observer;
static void *g_observer_ctx;

aclError aclnpuSetTaskObserver(aclnpuTaskObserver fn, void *ctx)
{
	g_observer_ctx = ctx;
	g_observer = fn;
	return ACL_SUCCESS;
}

static void observe(const struct rt_stream *s, const struct rt_task *t, int n, int prof)
{
	for (int i = 0; i < n; i++) {
		aclnpuTaskRecord r = {
			.deviceId = s->dev,
			.streamId = s->sid,
			.taskId = t[i].task_id,
			.batchId = t[i].batch_id,
			.sqeType = t[i].sqe.type & NPUSIM_SQE_TYPE_MASK,
			.taskTypeName = t[i].type_name,
			.durationNs = t[i].model.duration_ns,
			.bytes = t[i].bytes,
			.connectionId = prof && t[i].conn_out != NPUPROF_NO_CONNECTION ?
						(int64_t)t[i].conn_out :
						-1,
		};
		g_observer(g_observer_ctx, &r);
	}
}
static struct rt_event *g_free_events;

/* ---- streams ------------------------------------------------------------ */

/* The stream's SQ/CQ pair, freed at once (tasks not run are dropped). */
static void sqcq_free(int dev, uint32_t sid)
{
	struct halSqCqFreeInfo fi = { .type = DRV_NORMAL_TYPE, .sqId = sid, .cqId = sid };

	halSqCqFree((uint32_t)dev, &fi);
}

static void logic_cq_free(int dev, uint32_t lcq)
{
	struct halSqCqFreeInfo fi = { .type = DRV_LOGIC_TYPE, .cqId = lcq };

	halSqCqFree((uint32_t)dev, &fi);
}

/*
 * Stream sid's logic CQ, as the 910B runtime gives each stream one when it
 * is created (Stream::AllocLogicCq, stream.cc 4140-4176: LogicCqAllocateV2
 * with the stream id in info[0], then StreamBindLogicCq, which is
 * halResourceConfig with DRV_STREAM_BIND_LOGIC_CQ): from then on the
 * stream's reports come there, not to its pair's CQ.
 */
static drvError_t logic_cq_alloc(int dev, uint32_t sid, uint32_t *lcq)
{
	struct halSqCqInputInfo in = { .type = DRV_LOGIC_TYPE,
				       .cqeSize = RT_LOGIC_CQE_SIZE,
				       .cqeDepth = RT_LOGIC_CQ_DEPTH,
				       .info = { sid } };
	struct halSqCqOutputInfo qo;
	struct halResourceIdInputInfo rin = { .type = DRV_STREAM_ID, .resourceId = sid };
	struct halResourceConfigInfo bind = { .prop = DRV_STREAM_BIND_LOGIC_CQ };
	drvError_t r = halSqCqAllocate((uint32_t)dev, &in, &qo);

	if (r != DRV_ERROR_NONE)
		return r;
	bind.value[0] = qo.cqId;
	r = halResourceConfig((uint32_t)dev, &rin, &bind);
	if (r != DRV_ERROR_NONE) {
		logic_cq_free(dev, qo.cqId);
		return r;
	}
	*lcq = qo.cqId;
	return DRV_ERROR_NONE;
}

aclError rt_stream_create_locked(int dev, int is_default, struct rt_stream **out)
{
	struct rt_stream *s = g_free_streams;
	/* a normal SQ/CQ pair of STARS SQEs; its SQ id is the stream id */
	struct halSqCqInputInfo in = { .type = DRV_NORMAL_TYPE,
				       .sqeSize = sizeof(struct npusim_sqe) };
	struct halSqCqOutputInfo qo;
	uint32_t sid, lcq;
	drvError_t r = halSqCqAllocate((uint32_t)dev, &in, &qo);

	if (r == DRV_ERROR_NONE) {
		sid = qo.sqId;
		r = logic_cq_alloc(dev, sid, &lcq);
		if (r != DRV_ERROR_NONE)
			sqcq_free(dev, sid);
	}
	if (r != DRV_ERROR_NONE) {
		rt_set_errmsg("stream create on device %d: driver error %d", dev, (int)r);
		return ACL_ERROR_RT_DRV_INTERNAL_ERROR;
	}
	if (s) {
		g_free_streams = s->free_next;
	} else {
		s = calloc(1, sizeof(*s));
		if (!s) {
			sqcq_free(dev, sid);
			logic_cq_free(dev, lcq);
			return ACL_ERROR_RT_MEMORY_ALLOCATION;
		}
		pthread_mutex_init(&s->lock, NULL);
	}
	s->dev = dev;
	s->sid = sid;
	s->lcq = lcq;
	s->is_default = is_default;
	s->flags = 0;
	s->priority = 0;
	s->overflow = 0;
	free(s->alloc);
	s->alloc = NULL;
	s->seq = 0;
	s->since_drain = 0;
	s->model = NULL;
	s->capturing = s->capture_mode = s->invalidated = s->bound_head = s->ended = 0;
	s->grp_open = 0;
	rt_task_release(s->upd, s->nupd); /* an update a destroyed stream left */
	free(s->upd);
	s->upd = NULL;
	s->update = NULL;
	s->nupd = s->capupd = 0;
	s->next = rt_g.dev[dev].streams;
	rt_g.dev[dev].streams = s;
	atomic_store(&s->magic, RT_STREAM_MAGIC);
	*out = s;
	return ACL_SUCCESS;
}

void rt_stream_destroy_locked(struct rt_stream *s)
{
	struct rt_stream **pp = &rt_g.dev[s->dev].streams;

	atomic_store(&s->magic, RT_DEAD_MAGIC);
	pthread_mutex_lock(&s->lock);
	/* its tasks run first (a force destroy dropped them) */
	npusim_hal_sq_wait((uint32_t)s->dev, s->sid, -1);
	if (rt_stream_value_hook)
		rt_stream_value_hook(s, 1);
	sqcq_free(s->dev, s->sid);
	logic_cq_free(s->dev, s->lcq);
	pthread_mutex_unlock(&s->lock);
	while (*pp && *pp != s)
		pp = &(*pp)->next;
	if (*pp)
		*pp = s->next;
	if (rt_g.dev[s->dev].dflt == s)
		rt_g.dev[s->dev].dflt = NULL;
	s->free_next = g_free_streams;
	g_free_streams = s;
}

aclError rt_stream_get(aclrtStream h, struct rt_stream **out)
{
	struct rt_stream *s = h;
	int dev;
	aclError ret;

	if (RT_UNLIKELY(!rt_g.initialized))
		return ACL_ERROR_UNINITIALIZE;
	if (!s) {
		ret = rt_current_dev(&dev);
		if (ret)
			return ret;
		s = rt_g.dev[dev].dflt;
		if (!s)
			return ACL_ERROR_RT_CONTEXT_NULL;
	}
	if (RT_UNLIKELY(atomic_load_explicit(&s->magic, memory_order_acquire) != RT_STREAM_MAGIC)) {
		rt_set_errmsg("not a live stream handle: %p", h);
		return ACL_ERROR_RT_PARAM_INVALID;
	}
	*out = s;
	return ACL_SUCCESS;
}

aclError aclrtCreateStream(aclrtStream *stream)
{
	struct rt_api a;
	struct rt_stream *s;
	aclError ret;
	int dev;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtCreateStream", NULL);
	if (!stream)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	ret = rt_current_dev(&dev);
	if (ret)
		return rt_api_end(&a, ret);
	pthread_mutex_lock(&rt_g.lock);
	ret = rt_stream_create_locked(dev, 0, &s);
	pthread_mutex_unlock(&rt_g.lock);
	if (!ret)
		*stream = s;
	return rt_api_end(&a, ret);
}

/* aclrtDestroyStream (drains the stream's tasks) and, with force,
 * aclrtDestroyStreamForce (drops them first: the ordinary destroy that
 * follows then finds nothing to drain, and the id gone, which it ignores). */
aclError rt_stream_destroy_api(aclrtStream stream, const char *api, int force)
{
	struct rt_api a;
	struct rt_stream *s;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, api, NULL);
	if (!stream)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	pthread_mutex_lock(&rt_g.lock);
	ret = rt_stream_get(stream, &s);
	if (!ret && s->is_default)
		ret = ACL_ERROR_RT_PARAM_INVALID;
	if (!ret)
		ret = rt_capture_refuse(s, api);
	if (!ret && s->model) {
		rt_set_errmsg("%s: stream %u is bound to model %u (aclmdlRIUnbindStream first)",
			      api, s->sid, s->model->id);
		ret = ACL_ERROR_RT_PARAM_INVALID;
	}
	if (!ret && force) {
		pthread_mutex_lock(&s->lock);
		sqcq_free(s->dev, s->sid);
		pthread_mutex_unlock(&s->lock);
	}
	if (!ret)
		rt_stream_destroy_locked(s);
	pthread_mutex_unlock(&rt_g.lock);
	return rt_api_end(&a, ret);
}

aclError aclrtDestroyStream(aclrtStream stream)
{
	return rt_stream_destroy_api(stream, "aclrtDestroyStream", 0);
}

/*
 * Take the stream's reports from its logic CQ until none is left, as the
 * 910B runtime's task recycling does (StarsEngine::ProcLogicCqUntilEmpty,
 * stars_engine.cc 658-729: polls of up to RT_MILAN_MAX_QUERY_CQE_NUM, the
 * stream's id and any task). Our tasks ask for no report; the event
 * records and place holders a 910B reports anyway come here and are
 * dropped: nothing of ours waits on them.
 */
static void drain_cq(struct rt_stream *s)
{
	uint8_t rep[RT_LOGIC_RECV_MAX][RT_LOGIC_CQE_SIZE];
	struct halReportRecvInfo ri = { .type = DRV_LOGIC_TYPE,
					.cqId = s->lcq,
					.timeout = 0,
					.cqe_addr = (uint8_t *)rep,
					.cqe_num = RT_LOGIC_RECV_MAX,
					.stream_id = s->sid,
					.task_id = RT_LOGIC_ANY_TASK };

	while (halCqReportRecv((uint32_t)s->dev, &ri) == DRV_ERROR_NONE && ri.report_cqe_num > 0)
		;
	s->since_drain = 0;
}

aclError rt_stream_sync(struct rt_stream *s)
{
	drvError_t r = npusim_hal_sq_wait((uint32_t)s->dev, s->sid, -1);

	if (rt_stream_value_hook)
		rt_stream_value_hook(s, 0);
	pthread_mutex_lock(&s->lock);
	drain_cq(s);
	pthread_mutex_unlock(&s->lock);
	if (r != DRV_ERROR_NONE) {
		rt_set_errmsg("stream %u sync: driver error %d", s->sid, (int)r);
		return ACL_ERROR_RT_DRV_INTERNAL_ERROR;
	}
	return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream)
{
	struct rt_api a, r;
	struct rt_stream *s;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtSynchronizeStream", NULL);
	ret = rt_stream_get(stream, &s);
	if (!ret)
		ret = rt_capture_refuse(s, "aclrtSynchronizeStream");
	if (ret)
		return rt_api_end(&a, ret);
	rt_api_begin(&r, NPUPROF_API_RUNTIME, "StreamSynchronize", NULL);
	ret = rt_api_end(&r, rt_stream_sync(s));
	return rt_api_end(&a, ret);
}

aclError aclrtSynchronizeDevice(void)
{
	struct rt_api a, r;
	struct rt_stream *list[1024];
	aclError ret;
	int dev, n = 0;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtSynchronizeDevice", NULL);
	ret = rt_current_dev(&dev);
	if (ret)
		return rt_api_end(&a, ret);
	rt_api_begin(&r, NPUPROF_API_RUNTIME, "DeviceSynchronize", NULL);
	pthread_mutex_lock(&rt_g.lock);
	for (struct rt_stream *s = rt_g.dev[dev].streams; s && n < 1024; s = s->next) {
		if (!ret)
			ret = rt_capture_refuse(s, "aclrtSynchronizeDevice");
		list[n++] = s;
	}
	/* Streams cannot be destroyed meanwhile only if the application does
     * not race destroy against synchronize, as with CANN. */
	pthread_mutex_unlock(&rt_g.lock);
	for (int i = 0; i < n && !ret; i++)
		if (atomic_load(&list[i]->magic) == RT_STREAM_MAGIC)
			ret = rt_stream_sync(list[i]);
	rt_api_end(&r, ret);
	return rt_api_end(&a, ret);
}

/* ---- submit -------------------------------------------------------------- */

void rt_task_init(struct rt_task *t, unsigned int sqe_type, const char *type_name)
{
	memset(t, 0, sizeof(*t));
	t->sqe.type = (uint8_t)sqe_type;
	t->type_name = type_name;
	t->memcpy_op = NPUPROF_ENUM_INVALID;
}

/*
 * Tasks launched on a stream that has a model (captured into it or bound to
 * it) are recorded there, whole, host share included, not sent: the model
 * sends copies of them each time it is executed (rt_model.c). A persistent
 * stream bound to no model has nowhere to put them. s->lock held.
 */
static aclError record(struct rt_stream *s, const struct rt_task *t, int n)
{
	struct rt_model *m = s->model;
	aclError ret = ACL_SUCCESS;
	int k;

	if (!m) {
		rt_set_errmsg("stream %u is persistent: its tasks run only in the model it is "
			      "bound to (aclmdlRIBindStream), and it is bound to none",
			      s->sid);
		return ACL_ERROR_RT_PARAM_INVALID;
	}
	pthread_mutex_lock(&m->lock);
	for (k = 0; k < m->nstream && m->stream[k] != s; k++)
		;
	if (m->built) {
		rt_set_errmsg("model %u is built (aclmdlRIBuildEnd): stream %u adds no task to it",
			      m->id, s->sid);
		ret = ACL_ERROR_RT_PARAM_INVALID;
	} else if (k == m->nstream) {
		ret = ACL_ERROR_RT_INTERNAL_ERROR; /* a model knows its streams */
	} else {
		size_t cap = m->cap, len = m->ntask;
		uint8_t *ns = m->task_stream;

		ret = rt_task_append(&m->task, &len, &cap, t, n);
		if (!ret && cap != m->cap && !(ns = realloc(m->task_stream, cap))) {
			rt_task_release(&m->task[m->ntask], (size_t)n);
			ret = ACL_ERROR_RT_MEMORY_ALLOCATION;
		}
		if (!ret) {
			m->task_stream = ns;
			m->cap = cap;
			memset(&m->task_stream[m->ntask], k, (size_t)n);
			m->ntask = len;
		}
	}
	pthread_mutex_unlock(&m->lock);
	return ret;
}

aclError rt_task_append(struct rt_task **arr, size_t *len, size_t *cap, const struct rt_task *t,
			int n)
{
	size_t c = *cap ? *cap : 16;
	int i;

	while (c < *len + (size_t)n)
		c *= 2;
	if (c != *cap || !*arr) {
		struct rt_task *nt = realloc(*arr, c * sizeof(*nt));

		if (!nt)
			return ACL_ERROR_RT_MEMORY_ALLOCATION;
		*arr = nt;
		*cap = c;
	}
	for (i = 0; i < n; i++) {
		struct rt_task *d = &(*arr)[*len + (size_t)i];

		*d = t[i];
		if (!t[i].host_call || !t[i].host_arg_size)
			continue;
		d->host_arg = malloc(t[i].host_arg_size);
		if (!d->host_arg) {
			rt_task_release(&(*arr)[*len], (size_t)i);
			return ACL_ERROR_RT_MEMORY_ALLOCATION;
		}
		memcpy(d->host_arg, t[i].host_arg, t[i].host_arg_size);
	}
	*len += (size_t)n;
	return ACL_SUCCESS;
}

void rt_task_release(struct rt_task *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (t[i].host_call && t[i].host_arg_size)
			free(t[i].host_arg);
		t[i].host_arg = NULL;
	}
}

/* ---- capture modes (acl_rt.h) ------------------------------------------------ */

_Atomic int rt_captures_global;
__thread int rt_captures_own;
__thread int rt_capture_mode; /* ACL_MODEL_RI_CAPTURE_MODE_GLOBAL */

aclError rt_capture_unsafe(const char *api)
{
	pthread_t self = pthread_self();

	if (RT_LIKELY(rt_capture_mode == ACL_MODEL_RI_CAPTURE_MODE_RELAXED ||
		      (!atomic_load(&rt_captures_global) && !rt_captures_own)))
		return ACL_SUCCESS;
	if (rt_capture_mode != ACL_MODEL_RI_CAPTURE_MODE_GLOBAL && !rt_captures_own)
		return ACL_SUCCESS; /* THREAD_LOCAL: only its own captures forbid */
	pthread_mutex_lock(&rt_g.lock);
	for (int d = 0; d < NPUSIM_MAX_DEVICES; d++)
		for (struct rt_stream *s = rt_g.dev[d].streams; s; s = s->next)
			if (s->capturing &&
			    (s->capture_mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL ||
			     (s->capture_mode == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL &&
			      pthread_equal(s->capture_tid, self))))
				s->invalidated = 1;
	pthread_mutex_unlock(&rt_g.lock);
	rt_set_errmsg("%s while a stream is being captured: an unsafe call in this thread's "
		      "capture mode %d (aclmdlRICaptureThreadExchangeMode to RELAXED allows it); "
		      "the capture is invalidated",
		      api, rt_capture_mode);
	return ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT;
}

aclError rt_capture_refuse(const struct rt_stream *s, const char *api)
{
	if (RT_LIKELY(!s->capturing))
		return ACL_SUCCESS;
	rt_set_errmsg("%s on stream %u, which is being captured (aclmdlRICaptureBegin)", api,
		      s->sid);
	return ACL_ERROR_RT_STREAM_CAPTURED;
}

aclError rt_submit(struct rt_stream *s, struct rt_task *t, int n)
{
	struct npusim_sqe q[64], *sq = q;
	struct npusim_task_model qm[64], *sm = qm;
	struct halTaskSendInfo si = { .type = DRV_NORMAL_TYPE, .sqId = s->sid, .timeout = -1 };
	int prof = rtprof_on(RTPROF_TASK_TRACK);
	drvError_t r;
	uint64_t now = 0;

	for (int i = 0; i < n; i++) {
		/* one SDMA SQE copies at most 4 GiB (its length is 32 bits) */
		if ((t[i].sqe.type & NPUSIM_SQE_TYPE_MASK) == NPUSIM_SQE_SDMA &&
		    t[i].bytes > UINT32_MAX) {
			rt_set_errmsg("a copy of %llu bytes: an SDMA task moves at most %u",
				      (unsigned long long)t[i].bytes, UINT32_MAX);
			return ACL_ERROR_INVALID_PARAM;
		}
	}
	pthread_mutex_lock(&s->lock);
	if (RT_UNLIKELY(s->update)) {
		/* a task group's new tasks (aclmdlRICaptureTaskUpdateBegin) */
		aclError ret = rt_task_append(&s->upd, &s->nupd, &s->capupd, t, n);

		pthread_mutex_unlock(&s->lock);
		return ret;
	}
	if (RT_UNLIKELY(s->model || (s->flags & ACL_STREAM_PERSISTENT))) {
		aclError ret = record(s, t, n);

		pthread_mutex_unlock(&s->lock);
		return ret;
	}
	pthread_mutex_unlock(&s->lock);
	if (RT_UNLIKELY(prof)) {
		rtprof_before_submit(t, n);
		now = rtprof_now();
	}
	if (n > 64 &&
	    (!(sq = malloc(sizeof(*sq) * (size_t)n)) || !(sm = malloc(sizeof(*sm) * (size_t)n)))) {
		free(sq != q ? sq : NULL);
		return ACL_ERROR_RT_MEMORY_ALLOCATION;
	}
	pthread_mutex_lock(&s->lock);
	for (int i = 0; i < n; i++) {
		uint64_t seq = s->seq + (uint64_t)i;

		sq[i] = t[i].sqe;
		sm[i] = t[i].model;
		if ((sq[i].type & NPUSIM_SQE_TYPE_MASK) == NPUSIM_SQE_SDMA)
			sq[i].u.sdma.length = (uint32_t)t[i].bytes;
		else if ((sq[i].type & NPUSIM_SQE_TYPE_MASK) == NPUSIM_SQE_PCIE_DMA)
			sq[i].u.pcie_dma.length = t[i].bytes;
		sq[i].stream_id = (uint16_t)s->sid;
		sq[i].task_id = (uint16_t)seq;
		t[i].task_id = (uint16_t)seq;
		t[i].batch_id = (uint32_t)(seq >> 16);
		/* 1 ns apart: each task of a batch has its own time, by which
		 * the export finds it (an HCCL task's info, CANN's artificial
		 * track times) */
		t[i].time_ns = prof ? now + (uint64_t)i : 0;
	}
	for (int i = 0; i < n; i++) {
		if (t[i].host)
			t[i].host(&t[i]);
		if (t[i].host_call)
			t[i].host_call(t[i].host_arg);
	}
	si.sqe_addr = (uint8_t *)sq;
	si.sqe_num = (uint32_t)n;
	/* the device model beside the SQEs: the simulator's side channel */
	npusim_hal_set_task_model(sm, (uint32_t)n);
	r = halSqTaskSend((uint32_t)s->dev, &si);
	if (r == DRV_ERROR_NONE) {
		for (int i = 0; i < n; i++) {
			struct rt_event *e = t[i].event;

			/* the event's last record: task seq (its batch and task
			 * id), done once the stream has completed seq + 1 tasks */
			if (e && atomic_load(&e->magic) == RT_EVENT_MAGIC &&
			    (t[i].sqe.type & NPUSIM_SQE_TYPE_MASK) == NPUSIM_SQE_EVENT_RECORD) {
				e->rec_stream = s;
				e->rec_target = s->seq + (uint64_t)i + 1;
			}
		}
		s->seq += (uint64_t)n;
		s->since_drain += (uint32_t)n;
		if (s->since_drain >= RT_DRAIN_EVERY)
			drain_cq(s);
	}
	pthread_mutex_unlock(&s->lock);
	if (sq != q)
		free(sq);
	if (sm != qm)
		free(sm);
	if (r != DRV_ERROR_NONE) {
		rt_set_errmsg("submit %d task(s) to stream %u of device %d: driver error %d", n,
			      s->sid, s->dev, (int)r);
		return ACL_ERROR_RT_DRV_INTERNAL_ERROR;
	}
	if (RT_UNLIKELY(prof)) {
		uint64_t conn = rtprof_task_conn();

		for (int i = 0; i < n; i++) {
			t[i].conn_out = t[i].has_conn ? t[i].conn : conn;
			rtprof_place(&t[i]);
			rtprof_task_track(s->dev, s, &t[i]);
		}
	}
	if (RT_UNLIKELY(g_observer != NULL))
		observe(s, t, n, prof);
	return ACL_SUCCESS;
}

/*
 * CANN's runtime API for the device trace task behind aclprofMarkEx, step
 * markers and mstx markers on a stream (runtime/base.h: rtError_t
 * rtProfilerTraceEx(uint64_t id, uint64_t modelId, uint16_t tagId,
 * rtStream_t stm)), which CANN's libprofapi looks up by name in
 * libruntime.so (prof_runtime_plugin.cpp). 0 or -1; a stream that is gone
 * (aclFinalize destroyed it) refuses.
 */
__attribute__((visibility("default"))) int32_t rtProfilerTraceEx(uint64_t id, uint64_t modelId,
								 uint16_t tagId, void *stm)
{
	struct rt_stream *s;
	struct rt_task t;

	if (rt_stream_get(stm, &s))
		return -1;
	rt_task_init(&t, NPUSIM_SQE_PLACE_HOLDER, "PROFILER_TRACE_EX");
	t.sqe.block_dim = NPUSIM_PH_TASK_PROFILER_TRACE_EX; /* task_type */
	t.sqe.u.ph.trace.tag_id = tagId;
	t.sqe.u.ph.trace.trace_id = id;
	t.sqe.u.ph.trace.model_id = (uint32_t)modelId;
	t.trace_tag = tagId;
	t.index_id = id;
	if (tagId == NPUPROF_EXT_TRACE_MARK || tagId == NPUPROF_EXT_TRACE_RANGE) {
		t.has_conn = 1;
		t.conn = NPUPROF_MSTX_CONNECTION_BASE + id;
	}
	return rt_submit(s, &t, 1) ? -1 : 0;
}

/*
 * CANN's stream attribute query (runtime/rts/rts_stream.h: rtError_t
 * rtsStreamGetAttribute(rtStream_t stm, rtStreamAttr stmAttrId,
 * rtStreamAttrValue_t *attrValue)), which CANN's libprofapi looks up by
 * name for aclprofRangePop (does the stream cache op info?). This runtime
 * keeps a stream's overflow switch and priority; no stream caches op info
 * and every stream continues on failure (RT_STREAM_FAILURE_MODE_CONTINUE_ON_FAILURE);
 * the user tag is not supported on this chip (CANN then answers success and
 * leaves the value alone).
 */
__attribute__((visibility("default"))) int32_t rtsStreamGetAttribute(void *stm, rtStreamAttr attr,
								     rtStreamAttrValue_t *v)
{
	struct rt_stream *s;
	aclError ret;

	if (!v)
		return ACL_ERROR_RT_PARAM_INVALID;
	ret = rt_stream_get(stm, &s);
	if (ret)
		return ret;
	switch (attr) {
	case RT_STREAM_ATTR_FAILURE_MODE:
		v->failureMode = RT_STREAM_FAILURE_MODE_CONTINUE_ON_FAILURE;
		return ACL_SUCCESS;
	case RT_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
		v->overflowSwitch = s->overflow;
		return ACL_SUCCESS;
	case RT_STREAM_ATTR_USER_CUSTOM_TAG: return ACL_SUCCESS;
	case RT_STREAM_ATTR_CACHE_OP_INFO: v->cacheOpInfoSwitch = 0; return ACL_SUCCESS;
	case RT_STREAM_ATTR_PRIORITY: v->streamPriority = s->priority; return ACL_SUCCESS;
	default:
		rt_set_errmsg("rtsStreamGetAttribute: attribute %d is not in [1, 6)", attr);
		return ACL_ERROR_RT_PARAM_INVALID;
	}
}

/* ---- events ---------------------------------------------------------------- */

/* A cleared event from the free list or the heap (rt_g.lock held). */
static struct rt_event *event_alloc(void)
{
	struct rt_event *e = g_free_events;

	if (e) {
		g_free_events = e->free_next;
		memset(e, 0, sizeof(*e));
	} else {
		e = calloc(1, sizeof(*e));
	}
	return e;
}

static aclError event_get(aclrtEvent h, struct rt_event **out)
{
	struct rt_event *e = h;

	if (!rt_g.initialized)
		return ACL_ERROR_UNINITIALIZE;
	if (!e)
		return ACL_ERROR_INVALID_PARAM;
	if (atomic_load_explicit(&e->magic, memory_order_acquire) != RT_EVENT_MAGIC) {
		rt_set_errmsg("not a live event handle: %p", h);
		return ACL_ERROR_RT_PARAM_INVALID;
	}
	*out = e;
	return ACL_SUCCESS;
}

aclError rt_event_create(aclrtEvent *event, uint32_t flags, const char *api)
{
	struct rt_api a;
	struct rt_event *e;
	uint32_t id;
	aclError ret;
	int dev, r;

	rt_api_begin(&a, NPUPROF_API_ACL, api, NULL);
	if (!event)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	ret = rt_current_dev(&dev);
	if (ret)
		return rt_api_end(&a, ret);
	r = rt_id_alloc(dev, DRV_EVENT_ID, &id);
	if (r != DRV_ERROR_NONE) {
		rt_set_errmsg("event id on device %d: driver error %d", dev, (int)r);
		return rt_api_end(&a, r == DRV_ERROR_NO_RESOURCES ?
					      ACL_ERROR_RT_MEMORY_ALLOCATION :
					      ACL_ERROR_RT_DRV_INTERNAL_ERROR);
	}
	pthread_mutex_lock(&rt_g.lock);
	e = event_alloc();
	pthread_mutex_unlock(&rt_g.lock);
	if (!e) {
		rt_id_free(dev, DRV_EVENT_ID, id);
		return rt_api_end(&a, ACL_ERROR_RT_MEMORY_ALLOCATION);
	}
	e->dev = dev;
	e->id = id;
	e->flags = flags;
	atomic_store(&e->magic, RT_EVENT_MAGIC);
	*event = e;
	return rt_api_end(&a, ACL_SUCCESS);
}

aclError aclrtCreateEvent(aclrtEvent *event)
{
	return rt_event_create(event, 0, "aclrtCreateEvent");
}

/*
 * Destroys an event. An IPC event's id outlives its owner's destroy while
 * another process has it open (the driver keeps a shared id until its last
 * close); an opened one is closed, its id left to its owner.
 */
aclError aclrtDestroyEvent(aclrtEvent event)
{
	struct rt_api a;
	struct rt_event *e;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtDestroyEvent", NULL);
	pthread_mutex_lock(&rt_g.lock);
	ret = event_get(event, &e);
	if (!ret) {
		atomic_store(&e->magic, RT_DEAD_MAGIC);
		if (e->opened) {
			halShrIdClose(e->shr_name);
		} else if (rt_g.dev[e->dev].fd >= 0) {
			if (e->shr_name[0])
				halShrIdDestroy(e->shr_name);
			rt_id_free(e->dev, DRV_EVENT_ID, e->id);
		}
		e->free_next = g_free_events;
		g_free_events = e;
	}
	pthread_mutex_unlock(&rt_g.lock);
	return rt_api_end(&a, ret);
}

/* ---- IPC events ------------------------------------------------------------ */

_Static_assert(sizeof(struct rt_ipc_handle) == ACL_IPC_EVENT_HANDLE_SIZE,
	       "an IPC handle fills CANN's aclrtIpcEventHandle");

/*
 * The handle of an ACL_EVENT_IPC event: its device, its id and the
 * driver's name of it (halShrIdCreate, made at the first call), which
 * another process opens. The name holds the id's allocation generation:
 * once the id is freed (every process destroyed the event) and given again,
 * the old handle no longer opens.
 */
aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle *handle)
{
	struct rt_api a;
	struct rt_event *e;
	struct rt_ipc_handle h;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtIpcGetEventHandle", NULL);
	if (!handle)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	pthread_mutex_lock(&rt_g.lock);
	ret = event_get(event, &e);
	if (!ret && !(e->flags & ACL_EVENT_IPC)) {
		rt_set_errmsg("aclrtIpcGetEventHandle: the event was not created with "
			      "ACL_EVENT_IPC (aclrtCreateEventExWithFlag)");
		ret = ACL_ERROR_RT_PARAM_INVALID;
	}
	if (!ret && !e->shr_name[0]) {
		struct drvShrIdInfo info = { .devid = (uint32_t)e->dev,
					     .id_type = SHR_ID_EVENT_TYPE,
					     .shrid = e->id };
		drvError_t r = halShrIdCreate(&info, e->shr_name, sizeof(e->shr_name));

		if (r != DRV_ERROR_NONE) {
			e->shr_name[0] = 0;
			rt_set_errmsg("aclrtIpcGetEventHandle: sharing event %u of device %d: "
				      "driver error %d",
				      e->id, e->dev, (int)r);
			ret = ACL_ERROR_RT_DRV_INTERNAL_ERROR;
		}
	}
	if (!ret) {
		memset(&h, 0, sizeof(h));
		memcpy(h.magic, RT_IPC_MAGIC, sizeof(h.magic));
		h.version = RT_IPC_VERSION;
		h.dev = (uint32_t)e->dev;
		h.id = e->id;
		h.pid = (int32_t)getpid();
		memcpy(h.name, e->shr_name, sizeof(h.name));
		memcpy(handle, &h, sizeof(h));
	}
	pthread_mutex_unlock(&rt_g.lock);
	return rt_api_end(&a, ret);
}

/*
 * An event of this process on the device event another process's handle
 * names (the driver's open of its shared id, which keeps the id allocated
 * until this process closes it). The event may be of another device than
 * the current one: its records and waits on this device's streams reach it
 * there (npusim's devices share one scheduler, as a 910B reaches a remote
 * event's memory). A handle not made by aclrtIpcGetEventHandle, or whose
 * event is gone: ACL_ERROR_RT_PARAM_INVALID; of a device npusim does not
 * have: ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
 */
aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent *event)
{
	struct rt_api a;
	struct rt_ipc_handle h;
	struct drvShrIdInfo info;
	struct rt_event *e;
	aclError ret;
	drvError_t r;
	int dev;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtIpcOpenEventHandle", NULL);
	if (!event)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	ret = rt_current_dev(&dev);
	if (ret)
		return rt_api_end(&a, ret);
	memcpy(&h, &handle, sizeof(h));
	if (memcmp(h.magic, RT_IPC_MAGIC, sizeof(h.magic)) || h.version != RT_IPC_VERSION ||
	    !memchr(h.name, 0, sizeof(h.name))) {
		rt_set_errmsg("aclrtIpcOpenEventHandle: not a handle of aclrtIpcGetEventHandle");
		return rt_api_end(&a, ACL_ERROR_RT_PARAM_INVALID);
	}
	if (h.dev >= (uint32_t)rt_g.ndev) {
		rt_set_errmsg("aclrtIpcOpenEventHandle: the event is of device %u, which npusim "
			      "does not have (%d devices): an event of another host is not "
			      "supported",
			      h.dev, rt_g.ndev);
		return rt_api_end(&a, ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	}
	r = halShrIdOpen(h.name, &info);
	if (r == DRV_ERROR_NONE && (info.devid != h.dev || info.shrid != h.id)) {
		halShrIdClose(h.name);
		r = DRV_ERROR_INVALID_VALUE;
	}
	if (r != DRV_ERROR_NONE) {
		rt_set_errmsg("aclrtIpcOpenEventHandle: event %u of device %u (process %d): %s "
			      "(driver error %d)",
			      h.id, h.dev, (int)h.pid,
			      r == DRV_ERROR_REPEATED_INIT ? "already open in this process" :
							     "no longer shared",
			      (int)r);
		return rt_api_end(&a, ACL_ERROR_RT_PARAM_INVALID);
	}
	pthread_mutex_lock(&rt_g.lock);
	e = event_alloc();
	pthread_mutex_unlock(&rt_g.lock);
	if (!e) {
		halShrIdClose(h.name);
		return rt_api_end(&a, ACL_ERROR_RT_MEMORY_ALLOCATION);
	}
	e->dev = (int)h.dev;
	e->id = h.id;
	e->flags = ACL_EVENT_IPC;
	e->opened = 1;
	memcpy(e->shr_name, h.name, sizeof(e->shr_name));
	atomic_store(&e->magic, RT_EVENT_MAGIC);
	*event = e;
	return rt_api_end(&a, ACL_SUCCESS);
}

/* The npusim id of a live event of device dev (aclnpuRawTask.event). */
aclError rt_event_id(aclrtEvent event, int dev, uint32_t *id)
{
	struct rt_event *e;
	aclError ret = event_get(event, &e);

	if (ret)
		return ret;
	if (e->dev != dev)
		return ACL_ERROR_RT_STREAM_CONTEXT;
	*id = e->id;
	return ACL_SUCCESS;
}

/* A stream of another device than the event's: only an IPC event's
 * (opened on another device, or recorded there). */
static aclError event_stream(const struct rt_event *e, const struct rt_stream *s)
{
	if (s->dev == e->dev || (e->flags & ACL_EVENT_IPC))
		return ACL_SUCCESS;
	rt_set_errmsg("event of device %d on a stream of device %d", e->dev, s->dev);
	return ACL_ERROR_RT_STREAM_CONTEXT;
}

/* An IPC event's device-wide state: its records in flight from every
 * process, and whether it is set. */
static aclError ipc_status(const struct rt_event *e, struct npusim_event_status *st)
{
	drvError_t r = npusim_hal_event_status((uint32_t)e->dev, e->id, st);

	if (r == DRV_ERROR_NONE)
		return ACL_SUCCESS;
	rt_set_errmsg("event %u of device %d: driver error %d", e->id, e->dev, (int)r);
	return ACL_ERROR_RT_DRV_INTERNAL_ERROR;
}

/*
 * An IPC event's record is in flight for every process once its record
 * call returns, as CANN's runtime marks it in the memory both processes
 * map before it sends the task: here, once the device has the task in
 * its SQ (a soft queue's SQEs reach it when the driver forwards them,
 * later), where npusim counts it (NPUSIM_IOC_EVENT_STATUS): until the
 * stream's tasks completed or queued there reach the record's (target).
 */
static aclError ipc_record_queued(struct rt_stream *s, uint64_t target)
{
	long wait_ns = 1000;

	for (;;) {
		struct npusim_stream_status st = { 0 };
		struct timespec ts = { 0, 0 };

		if (npusim_hal_sq_status((uint32_t)s->dev, s->sid, &st) != DRV_ERROR_NONE) {
			rt_set_errmsg("stream %u: its status from the driver", s->sid);
			return ACL_ERROR_RT_DRV_INTERNAL_ERROR;
		}
		if (st.completed + st.queued >= target)
			return ACL_SUCCESS;
		ts.tv_nsec = wait_ns;
		nanosleep(&ts, NULL);
		if (wait_ns < 1000000)
			wait_ns *= 2;
	}
}

/*
 * Records, waits and resets of an event. On a stream whose tasks go to a
 * model they are recorded there and sent at each execution, on the execute
 * stream (rt_model.c). EXTERNAL (ACL_EVENT_RECORD_EXTERNAL /
 * ACL_EVENT_WAIT_EXTERNAL) says the model's record or wait pairs with
 * streams or models outside it; it needs a stream being captured. Both
 * kinds are the device's records and waits on npusim. An IPC event's
 * record or wait names the event's device for the simulator when the
 * stream is of another (on a 910B the remote event's address); in a model
 * it is ACL_ERROR_RT_FEATURE_NOT_SUPPORT (its in-flight count is kept at
 * the record call, which a model's executions would have to repeat).
 */
static aclError event_task(const char *api, const char *rt_name, aclrtEvent event,
			   aclrtStream stream, unsigned int sqe_type, int external)
{
	struct rt_api a, r;
	struct rt_event *e;
	struct rt_stream *s;
	struct rt_task t;
	aclError ret;
	int ipc;

	rt_api_begin(&a, NPUPROF_API_ACL, api, NULL);
	if ((ret = event_get(event, &e)) || (ret = rt_stream_get(stream, &s)) ||
	    (ret = event_stream(e, s)))
		return rt_api_end(&a, ret);
	ipc = (e->flags & ACL_EVENT_IPC) != 0;
	if (external && !s->capturing) {
		rt_set_errmsg("%s: an external record or wait needs a stream being captured "
			      "(aclmdlRICaptureBegin); stream %u is not",
			      api, s->sid);
		return rt_api_end(&a, ACL_ERROR_RT_STREAM_NOT_CAPTURED);
	}
	if (ipc && (s->model || (s->flags & ACL_STREAM_PERSISTENT))) {
		rt_set_errmsg("%s on stream %u, whose tasks go to a model: IPC events in a model "
			      "run instance are not supported on npusim",
			      api, s->sid);
		return rt_api_end(&a, ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	}
	rt_api_begin(&r, NPUPROF_API_RUNTIME, rt_name, NULL);
	if (ipc && sqe_type == NPUSIM_SQE_EVENT_WAIT) {
		struct npusim_event_status st;

		/* as CANN's: no record in flight or left, nothing to wait for
		 * (else the wait would take the next record, maybe never) */
		ret = ipc_status(e, &st);
		if (ret || (!st.pending && !st.set)) {
			rt_api_end(&r, ret);
			return rt_api_end(&a, ret);
		}
	}
	if (sqe_type == NPUSIM_SQE_WRITE_VALUE) {
		rt_task_init(&t, sqe_type, "EVENT_RESET");
		/* the 910B's event reset: the event's table entry written 0 */
		t.sqe.u.write_value.sub_type = NPUSIM_WRITE_VALUE_SUB_EVENT_RESET;
		t.sqe.u.write_value.rsv3 = e->id;
		if (s->dev != e->dev)
			t.model.target_dev = NPUSIM_TARGET_DEV((uint32_t)e->dev);
	} else {
		if (sqe_type == NPUSIM_SQE_EVENT_RECORD)
			rt_task_init(&t, sqe_type, ipc ? "IPC_EVENT_RECORD" : "EVENT_RECORD");
		else
			rt_task_init(&t, sqe_type, ipc ? "IPC_EVENT_WAIT" : "EVENT_WAIT");
		npusim_sqe_set_sync_id(&t.sqe, e->id);
		if (s->dev != e->dev)
			t.model.target_dev = NPUSIM_TARGET_DEV((uint32_t)e->dev);
	}
	if (sqe_type == NPUSIM_SQE_EVENT_RECORD)
		t.event = e;
	ret = rt_submit(s, &t, 1);
	/* the record is in e->rec_target once sent (rt_submit) */
	if (!ret && ipc && sqe_type == NPUSIM_SQE_EVENT_RECORD)
		ret = ipc_record_queued(s, e->rec_target);
	rt_api_end(&r, ret);
	return rt_api_end(&a, ret);
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
	return event_task("aclrtRecordEvent", "EventRecord", event, stream, NPUSIM_SQE_EVENT_RECORD,
			  0);
}

aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream, uint32_t flag)
{
	if (flag != ACL_EVENT_RECORD_DEFAULT && flag != ACL_EVENT_RECORD_EXTERNAL)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	return event_task("aclrtRecordEventWithFlag", "EventRecord", event, stream,
			  NPUSIM_SQE_EVENT_RECORD, flag == ACL_EVENT_RECORD_EXTERNAL);
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
	return event_task("aclrtStreamWaitEvent", "StreamWaitEvent", event, stream,
			  NPUSIM_SQE_EVENT_WAIT, 0);
}

aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event, uint32_t timeout,
				      uint32_t flag)
{
	if (flag != ACL_EVENT_WAIT_DEFAULT && flag != ACL_EVENT_WAIT_EXTERNAL)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if (timeout) {
		rt_set_errmsg("aclrtStreamWaitEventWithFlag: a timeout (%u s): npusim's waits "
			      "are not cut",
			      timeout);
		return rt_fail(flag == ACL_EVENT_WAIT_EXTERNAL ? ACL_ERROR_INVALID_PARAM :
								 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	}
	return event_task("aclrtStreamWaitEventWithFlag", "StreamWaitEvent", event, stream,
			  NPUSIM_SQE_EVENT_WAIT, flag == ACL_EVENT_WAIT_EXTERNAL);
}

aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
	return event_task("aclrtResetEvent", "EventReset", event, stream, NPUSIM_SQE_WRITE_VALUE,
			  0);
}

/* 1 if the event's last record has completed (or it was never recorded).
 * An IPC event's: no record of it is in flight, from any process (CANN's
 * query answers from the memory both processes map). */
static int event_done(struct rt_event *e, aclError *err)
{
	struct npusim_stream_status st = { 0 };
	struct rt_stream *s = e->rec_stream;
	int r;

	*err = ACL_SUCCESS;
	if (e->flags & ACL_EVENT_IPC) {
		struct npusim_event_status es;

		*err = ipc_status(e, &es);
		return *err || !es.pending;
	}
	if (!s || atomic_load(&s->magic) != RT_STREAM_MAGIC)
		return 1;
	r = npusim_hal_sq_status((uint32_t)s->dev, s->sid, &st);
	if (r != DRV_ERROR_NONE) {
		*err = ACL_ERROR_RT_DRV_INTERNAL_ERROR;
		return 1;
	}
	return st.completed >= e->rec_target;
}

aclError aclrtSynchronizeEvent(aclrtEvent event)
{
	struct rt_api a, r;
	struct rt_event *e;
	aclError ret;
	long wait_ns = 2000;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtSynchronizeEvent", NULL);
	if ((ret = event_get(event, &e)))
		return rt_api_end(&a, ret);
	rt_api_begin(&r, NPUPROF_API_RUNTIME, "EventSynchronize", NULL);
	while (!event_done(e, &ret)) {
		struct timespec ts = { 0, wait_ns };

		nanosleep(&ts, NULL);
		if (wait_ns < 1000000)
			wait_ns *= 2;
	}
	if (rt_stream_value_hook)
		rt_stream_value_hook(NULL, 0);
	rt_api_end(&r, ret);
	return rt_api_end(&a, ret);
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
	struct rt_event *e;
	aclError ret;

	if (!status)
		return ACL_ERROR_INVALID_PARAM;
	if ((ret = event_get(event, &e)))
		return ret;
	*status = event_done(e, &ret) ? ACL_EVENT_RECORDED_STATUS_COMPLETE :
					ACL_EVENT_RECORDED_STATUS_NOT_READY;
	return ret;
}
