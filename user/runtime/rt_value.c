/*
 * rt_value.c - stream memory operations (acl_rt.h): aclrtValueWrite and
 * aclrtValueWait.
 *
 * Both are tasks of their stream, in its order, as on a 910B
 * (MEM_WRITE_VALUE, MEM_WAIT_VALUE). The simulated device cannot touch the
 * process's memory (device memory is host memory here, rt_mem.c, and the
 * device model runs from a timer), so the runtime does the memory's part,
 * driven by what the device has done:
 *
 *  - a value write is a WRITE_VALUE SQE (type 8, the address and value in
 *    its payload); the value is stored into memory once the device has
 *    completed that task, not when it is sent, so a write queued behind a
 *    wait or a long task lands only when its stream gets there;
 *  - a value wait is a NOTIFY_WAIT SQE on a notify id of its own: the
 *    stream truly stops there on the device. Once the stream has reached
 *    the wait (every task before it completed), the runtime evaluates the
 *    condition on the memory, and when it holds records the notify from
 *    the host (npusim_hal_notify_record), which lets the stream go on.
 *
 * One watcher thread does both, for every pending operation of the
 * process, polling the device's completed counts and the memory (20 us,
 * backing off to 1 ms, while anything is pending; asleep otherwise). The
 * value may come from another stream's write or from the host (a copy, a
 * store). Synchronising a stream or an event does the watcher's pass
 * first, so the writes of completed tasks are in memory when it returns.
 * Tasks on a stream whose tasks go to a model (capture, binding) are
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT: a model's execution would have to
 * repeat the memory's part.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt_prof.h"

enum {
	VOP_WRITE,
	VOP_WAIT
};

/* A pending memory operation: a write until its task has completed, a
 * wait until its notify is recorded and its task completed (its notify id
 * is then free again). */
struct vop {
	struct vop *next;
	int kind, dev, recorded;
	uint32_t sid, notify, flag;
	const struct rt_stream *s;
	uint64_t seq; /* the task's sequence number on its stream */
	_Atomic uint64_t *addr;
	uint64_t value;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static struct vop *g_ops;
static int g_watching;

/* 1 if the wait condition @flag holds for @cur against @value
 * (acl_rt.h ACL_STREAM_WAIT_VALUE_*, as CANN's documentation states). */
static int cond_holds(uint32_t flag, uint64_t cur, uint64_t value)
{
	switch (flag) {
	case ACL_STREAM_WAIT_VALUE_GEQ: return (int64_t)(cur - value) >= 0;
	case ACL_STREAM_WAIT_VALUE_EQ: return cur == value;
	case ACL_STREAM_WAIT_VALUE_AND: return (cur & value) != 0;
	case ACL_STREAM_WAIT_VALUE_NOR: return ~(cur | value) != 0;
	default: return 0;
	}
}

/* The stream's completed task count, or UINT64_MAX if it is gone. */
static uint64_t completed(int dev, uint32_t sid)
{
	struct npusim_stream_status st = { 0 };

	if (npusim_hal_sq_status((uint32_t)dev, sid, &st) != DRV_ERROR_NONE)
		return UINT64_MAX;
	return st.completed;
}

/* One pass over the pending operations, writes first (a wait behind them
 * sees them); @gone: the stream being destroyed, whose operations that
 * cannot happen any more are dropped. g_lock held. Returns 1 if anything
 * happened. */
static int pass_locked(const struct rt_stream *gone)
{
	int did = 0;

	for (int kind = VOP_WRITE; kind <= VOP_WAIT; kind++) {
		struct vop **pp = &g_ops;

		while (*pp) {
			struct vop *o = *pp;
			uint64_t done;
			int drop = 0;

			if (o->kind != kind) {
				pp = &o->next;
				continue;
			}
			done = completed(o->dev, o->sid);
			if (kind == VOP_WRITE) {
				if (done != UINT64_MAX && done > o->seq)
					atomic_store_explicit(o->addr, o->value,
							      memory_order_release);
				drop = done > o->seq || o->s == gone;
			} else {
				if (!o->recorded && done != UINT64_MAX && done >= o->seq &&
				    cond_holds(o->flag,
					       atomic_load_explicit(o->addr, memory_order_acquire),
					       o->value) &&
				    npusim_hal_notify_record((uint32_t)o->dev, o->notify) ==
					    DRV_ERROR_NONE) {
					o->recorded = 1;
					did = 1;
				}
				drop = (o->recorded && done > o->seq) || done == UINT64_MAX ||
				       o->s == gone;
				if (drop)
					rt_id_free(o->dev, DRV_NOTIFY_ID, o->notify);
			}
			if (drop) {
				*pp = o->next;
				free(o);
				did = 1;
			} else {
				pp = &o->next;
			}
		}
	}
	return did;
}

static void *watcher(void *arg)
{
	long wait_ns = 20000;

	(void)arg;
	pthread_mutex_lock(&g_lock);
	for (;;) {
		struct timespec ts = { 0, wait_ns };

		while (!g_ops)
			pthread_cond_wait(&g_cond, &g_lock);
		if (pass_locked(NULL))
			wait_ns = 20000;
		else if (wait_ns < 1000000)
			wait_ns *= 2;
		pthread_mutex_unlock(&g_lock);
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&g_lock);
	}
	return NULL;
}

static void stream_hook(struct rt_stream *s, int gone)
{
	pthread_mutex_lock(&g_lock);
	if (g_ops)
		pass_locked(gone ? s : NULL);
	pthread_mutex_unlock(&g_lock);
}

static aclError add(struct vop *o)
{
	pthread_t t;
	pthread_attr_t at;
	aclError ret = ACL_SUCCESS;

	pthread_mutex_lock(&g_lock);
	if (!g_watching) {
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &at, watcher, NULL) == 0) {
			g_watching = 1;
			rt_stream_value_hook = stream_hook;
		} else {
			ret = ACL_ERROR_RT_MEMORY_ALLOCATION;
		}
		pthread_attr_destroy(&at);
	}
	if (!ret) {
		/* in the order sent: a stream's writes land in its order */
		struct vop **pp = &g_ops;

		while (*pp)
			pp = &(*pp)->next;
		o->next = NULL;
		*pp = o;
		pthread_cond_signal(&g_cond);
	}
	pthread_mutex_unlock(&g_lock);
	return ret;
}

/* What both calls check: the address (8-byte aligned, 64 bits wide) and
 * the stream, which must send its tasks to the device. */
static aclError check(const char *api, void *devAddr, aclrtStream stream, struct rt_stream **s)
{
	aclError ret;

	if (!devAddr || ((uintptr_t)devAddr & 7)) {
		rt_set_errmsg("%s: devAddr %p is not an 8-byte aligned address", api, devAddr);
		return ACL_ERROR_INVALID_PARAM;
	}
	ret = rt_stream_get(stream, s);
	if (ret)
		return ret;
	if ((*s)->model || ((*s)->flags & ACL_STREAM_PERSISTENT)) {
		rt_set_errmsg("%s on stream %u, whose tasks go to a model: stream memory "
			      "operations in a model run instance are not supported on npusim",
			      api, (*s)->sid);
		return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
	}
	return ACL_SUCCESS;
}

aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
	struct rt_api a, r;
	struct rt_stream *s;
	struct rt_task t;
	struct vop *o;
	aclError ret;
	uint64_t addr = (uint64_t)(uintptr_t)devAddr;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtValueWrite", NULL);
	if (flag != 0) {
		rt_set_errmsg("aclrtValueWrite: flag %u is reserved, must be 0", flag);
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	}
	ret = check("aclrtValueWrite", devAddr, stream, &s);
	if (ret)
		return rt_api_end(&a, ret);
	o = calloc(1, sizeof(*o));
	if (!o)
		return rt_api_end(&a, ACL_ERROR_RT_MEMORY_ALLOCATION);
	rt_api_begin(&r, NPUPROF_API_RUNTIME, "MemWriteValue", NULL);
	rt_task_init(&t, NPUSIM_SQE_WRITE_VALUE, "MEM_WRITE_VALUE");
	t.sqe.u.write_value.addr_lo = (uint32_t)addr;
	t.sqe.u.write_value.addr_hi = (uint32_t)(addr >> 32) & 0x1ffffU;
	t.sqe.u.write_value.value[0] = (uint32_t)value;
	t.sqe.u.write_value.value[1] = (uint32_t)(value >> 32);
	ret = rt_submit(s, &t, 1);
	if (!ret) {
		o->kind = VOP_WRITE;
		o->dev = s->dev;
		o->sid = s->sid;
		o->s = s;
		o->seq = rt_task_seq(&t);
		o->addr = devAddr;
		o->value = value;
		ret = add(o);
	}
	if (ret)
		free(o);
	rt_api_end(&r, ret);
	return rt_api_end(&a, ret);
}

aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
	struct rt_api a, r;
	struct rt_stream *s;
	struct rt_task t;
	struct vop *o;
	aclError ret;
	uint32_t id;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtValueWait", NULL);
	if (flag > ACL_STREAM_WAIT_VALUE_NOR) {
		rt_set_errmsg("aclrtValueWait: flag %u is not an ACL_STREAM_WAIT_VALUE_*", flag);
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	}
	ret = check("aclrtValueWait", devAddr, stream, &s);
	if (ret)
		return rt_api_end(&a, ret);
	if (rt_id_alloc(s->dev, DRV_NOTIFY_ID, &id) != DRV_ERROR_NONE) {
		rt_set_errmsg("aclrtValueWait: no notify id left on device %d", s->dev);
		return rt_api_end(&a, ACL_ERROR_RT_MEMORY_ALLOCATION);
	}
	o = calloc(1, sizeof(*o));
	if (!o) {
		rt_id_free(s->dev, DRV_NOTIFY_ID, id);
		return rt_api_end(&a, ACL_ERROR_RT_MEMORY_ALLOCATION);
	}
	rt_api_begin(&r, NPUPROF_API_RUNTIME, "MemWaitValue", NULL);
	rt_task_init(&t, NPUSIM_SQE_NOTIFY_WAIT, "MEM_WAIT_VALUE");
	npusim_sqe_set_sync_id(&t.sqe, id);
	ret = rt_submit(s, &t, 1);
	if (ret) {
		rt_id_free(s->dev, DRV_NOTIFY_ID, id);
		free(o);
	} else {
		o->kind = VOP_WAIT;
		o->dev = s->dev;
		o->sid = s->sid;
		o->s = s;
		o->seq = rt_task_seq(&t);
		o->notify = id;
		o->flag = flag;
		o->addr = devAddr;
		o->value = value;
		ret = add(o);
		if (ret) {
			/* sent but not watched, it would hold its stream for
			 * ever: released at once instead (its id stays taken) */
			npusim_hal_notify_record((uint32_t)s->dev, id);
			free(o);
		}
	}
	rt_api_end(&r, ret);
	return rt_api_end(&a, ret);
}
