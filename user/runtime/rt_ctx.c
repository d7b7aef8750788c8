/*
 * rt_ctx.c - contexts (acl_rt.h: aclrtCreateContext ... aclrtGetResIn-
 * CurrentThread).
 *
 * A context is a device plus, in CANN, its own default stream. Here every
 * context of a device shares the device's default stream; what a program
 * observes otherwise is CANN's: aclrtCreateContext opens the device (a
 * reference of its own, as CANN's implicit aclrtSetDevice) and makes the
 * context current for the thread; aclrtSetCurrentContext switches the
 * thread's device with it; aclrtSetDevice makes the device's implicit
 * context current; aclrtDestroyContext drops the reference, and the last
 * one releases the device with its streams. A context outlives nothing:
 * once its device is released (aclrtResetDeviceForce, aclFinalize) its
 * handle is dead (ACL_ERROR_RT_PARAM_INVALID). Handles are never returned
 * to libc (as streams and events), so a stale one is detected.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_prof.h"

#define RT_CTX_MAGIC 0x43545854U /* "CTXT" */

struct rt_ctx {
	_Atomic uint32_t magic;
	int dev;
	uint32_t gen; /* the device's generation it holds a reference in */
	int implicit; /* the device's own context (aclrtSetDevice) */
	struct rt_ctx *free_next;
};

static struct rt_ctx g_implicit[NPUSIM_MAX_DEVICES];
static struct rt_ctx *g_free; /* under rt_g.lock */

/* The live context h; its device must still be the one it was made on. */
static aclError ctx_get(aclrtContext h, struct rt_ctx **out)
{
	struct rt_ctx *c = h;

	if (!rt_g.initialized)
		return ACL_ERROR_UNINITIALIZE;
	if (!c)
		return ACL_ERROR_INVALID_PARAM;
	if (atomic_load_explicit(&c->magic, memory_order_acquire) != RT_CTX_MAGIC ||
	    rt_g.dev[c->dev].fd < 0 || (!c->implicit && rt_g.dev[c->dev].gen != c->gen)) {
		rt_set_errmsg("not a live context handle: %p", h);
		return ACL_ERROR_RT_PARAM_INVALID;
	}
	*out = c;
	return ACL_SUCCESS;
}

aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
	struct rt_api a;
	struct rt_ctx *c;
	uint32_t gen;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtCreateContext", NULL);
	if (!context)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	ret = rt_dev_ref(deviceId, &gen);
	if (ret)
		return rt_api_end(&a, ret);
	pthread_mutex_lock(&rt_g.lock);
	c = g_free;
	if (c)
		g_free = c->free_next;
	pthread_mutex_unlock(&rt_g.lock);
	if (!c && !(c = calloc(1, sizeof(*c)))) {
		rt_dev_unref(deviceId, gen);
		return rt_api_end(&a, ACL_ERROR_RT_MEMORY_ALLOCATION);
	}
	c->dev = deviceId;
	c->gen = gen;
	c->implicit = 0;
	atomic_store(&c->magic, RT_CTX_MAGIC);
	rt_cur_ctx = c;
	rt_cur_dev = deviceId;
	*context = c;
	return rt_api_end(&a, ACL_SUCCESS);
}

aclError aclrtDestroyContext(aclrtContext context)
{
	struct rt_api a;
	struct rt_ctx *c;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtDestroyContext", NULL);
	pthread_mutex_lock(&rt_g.lock);
	ret = ctx_get(context, &c);
	if (!ret && c->implicit) {
		rt_set_errmsg("aclrtDestroyContext: the implicit context of device %d "
			      "is released by aclrtResetDevice",
			      c->dev);
		ret = ACL_ERROR_RT_PARAM_INVALID;
	}
	if (!ret)
		atomic_store(&c->magic, RT_DEAD_MAGIC);
	pthread_mutex_unlock(&rt_g.lock);
	if (ret)
		return rt_api_end(&a, ret);
	if (rt_cur_ctx == c)
		rt_cur_ctx = NULL;
	rt_dev_unref(c->dev, c->gen);
	pthread_mutex_lock(&rt_g.lock);
	c->free_next = g_free;
	g_free = c;
	pthread_mutex_unlock(&rt_g.lock);
	return rt_api_end(&a, ACL_SUCCESS);
}

aclError aclrtSetCurrentContext(aclrtContext context)
{
	struct rt_api a;
	struct rt_ctx *c;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtSetCurrentContext", NULL);
	pthread_mutex_lock(&rt_g.lock);
	ret = ctx_get(context, &c);
	pthread_mutex_unlock(&rt_g.lock);
	if (!ret) {
		rt_cur_ctx = c->implicit ? NULL : c;
		rt_cur_dev = c->dev;
	}
	return rt_api_end(&a, ret);
}

aclError aclrtGetCurrentContext(aclrtContext *context)
{
	struct rt_ctx *c = rt_cur_ctx;
	aclError ret;
	int dev;

	if (!context)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	ret = rt_current_dev(&dev);
	if (ret)
		return rt_fail(ret);
	if (c && atomic_load(&c->magic) == RT_CTX_MAGIC && c->dev == dev &&
	    c->gen == rt_g.dev[dev].gen) {
		*context = c;
		return ACL_SUCCESS;
	}
	c = &g_implicit[dev];
	if (atomic_load(&c->magic) != RT_CTX_MAGIC) {
		c->dev = dev;
		c->implicit = 1;
		atomic_store(&c->magic, RT_CTX_MAGIC);
	}
	*context = c;
	return ACL_SUCCESS;
}

aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)
{
	aclError ret;
	int dev;

	if (!stream)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	ret = rt_current_dev(&dev);
	if (ret)
		return rt_fail(ret);
	if (!rt_g.dev[dev].dflt)
		return rt_fail(ACL_ERROR_RT_CONTEXT_NULL);
	*stream = rt_g.dev[dev].dflt;
	return ACL_SUCCESS;
}

aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value)
{
	int64_t num = 0;
	aclError ret;
	drvError_t r;
	int dev;

	if (!value || (type != ACL_RT_DEV_RES_CUBE_CORE && type != ACL_RT_DEV_RES_VECTOR_CORE))
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	ret = rt_current_dev(&dev);
	if (ret)
		return rt_fail(ret);
	r = halGetDeviceInfo((uint32_t)dev,
			     type == ACL_RT_DEV_RES_CUBE_CORE ? MODULE_TYPE_AICORE :
								MODULE_TYPE_VECTOR_CORE,
			     INFO_TYPE_CORE_NUM, &num);
	if (r != DRV_ERROR_NONE || num < 0 || num > UINT32_MAX) {
		rt_set_errmsg("device %d core count: driver error %d", dev, (int)r);
		return rt_fail(ACL_ERROR_RT_DRV_INTERNAL_ERROR);
	}
	*value = (uint32_t)num;
	return ACL_SUCCESS;
}
