/*
 * rtplugin.c - the runtime and driver functions the profiling library
 * calls, found by library and function name (rtplugin.h).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>

#include "rtplugin.h"
#include "runtime/rts/rts_stream.h"

/* CANN's library names; driver/ascend_hal.h's drvGetDevNum */
#define RT_LIB "libruntime.so"
#define HAL_LIB "libascend_hal.so"

typedef __typeof__(rtProfilerTraceEx) *trace_fn;
typedef __typeof__(rtsStreamGetAttribute) *get_attr_fn;
typedef __typeof__(rtCacheLastTaskOpInfo) *cache_fn;
typedef int (*dev_num_fn)(uint32_t *count);

static struct {
	pthread_once_t rt_once, hal_once;
	trace_fn trace;
	get_attr_fn get_attr;
	cache_fn cache;
	dev_num_fn dev_num;
} g = { PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT, 0, 0, 0, 0 };

static void *open_lib(const char *name)
{
	return dlopen(name, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
}

static void load_runtime(void)
{
	void *h = open_lib(RT_LIB);

	if (!h)
		return;
	g.trace = (trace_fn)dlsym(h, "rtProfilerTraceEx");
	g.get_attr = (get_attr_fn)dlsym(h, "rtsStreamGetAttribute");
	g.cache = (cache_fn)dlsym(h, "rtCacheLastTaskOpInfo");
}

static void load_hal(void)
{
	void *h = open_lib(HAL_LIB);

	if (h)
		g.dev_num = (dev_num_fn)dlsym(h, "drvGetDevNum");
}

int rtplugin_trace(void *stream, uint64_t index_id, uint64_t model_id, uint16_t tag)
{
	pthread_once(&g.rt_once, load_runtime);
	return g.trace && g.trace(index_id, model_id, tag, stream) == 0 ? 0 : -1;
}

int rtplugin_stream_caches_op_info(void *stream)
{
	rtStreamAttrValue_t v = { 0 };

	pthread_once(&g.rt_once, load_runtime);
	if (!g.get_attr)
		return 0;
	if (g.get_attr(stream, RT_STREAM_ATTR_CACHE_OP_INFO, &v) != 0)
		return -1;
	return v.cacheOpInfoSwitch != 0;
}

int rtplugin_cache_op_info(const void *info, size_t size)
{
	pthread_once(&g.rt_once, load_runtime);
	return g.cache && g.cache(info, size) == 0 ? 0 : -1;
}

int rtplugin_device_count(uint32_t *count)
{
	pthread_once(&g.hal_once, load_hal);
	*count = 0;
	if (!g.dev_num)
		return 1;
	return g.dev_num(count) == 0 ? 0 : -1;
}
