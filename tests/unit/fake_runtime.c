/*
 * fake_runtime.c - the runtime and driver calls the profiling library
 * makes, answered from struct fake_rt (fake_runtime.h): built as the
 * stand-in libruntime.so, and with FAKE_HAL as the stand-in
 * libascend_hal.so (drvGetDevNum only, over the first one's fake_rt).
 */
#include <string.h>

#include "fake_runtime.h"
#include "runtime/rts/rts_stream.h"

#ifdef FAKE_HAL
int drvGetDevNum(uint32_t *count)
{
	if (fake_rt.devcount_fail)
		return 1; /* DRV_ERROR_INVALID_DEVICE */
	*count = fake_rt.devcount;
	return 0;
}
#else
struct fake_rt fake_rt = { .refuse = 1 };

void fake_rt_reset(void)
{
	memset(&fake_rt, 0, sizeof(fake_rt));
	fake_rt.refuse = 1;
}

int32_t rtProfilerTraceEx(uint64_t id, uint64_t modelId, uint16_t tagId, void *stm)
{
	if (fake_rt.refuse || fake_rt.launch_fail || !stm)
		return 107000; /* ACL_ERROR_RT_PARAM_INVALID */
	if (fake_rt.nlaunch < FAKE_RT_MAX_LAUNCH)
		fake_rt.launch[fake_rt.nlaunch] = (struct fake_rt_launch){ stm, id, modelId,
									   tagId };
	fake_rt.nlaunch++;
	return 0;
}

int32_t rtsStreamGetAttribute(void *stm, rtStreamAttr attr, rtStreamAttrValue_t *value)
{
	(void)stm;
	if (attr != RT_STREAM_ATTR_CACHE_OP_INFO || fake_rt.cache_switch < 0)
		return 107000;
	value->cacheOpInfoSwitch = (uint32_t)fake_rt.cache_switch;
	return 0;
}

int32_t rtCacheLastTaskOpInfo(const void *const info, const size_t size)
{
	fake_rt.ncache++;
	fake_rt.cache_size = size;
	memcpy(fake_rt.cache, info, size < sizeof(fake_rt.cache) ? size : sizeof(fake_rt.cache));
	return fake_rt.cache_fail ? 107000 : 0;
}
#endif
