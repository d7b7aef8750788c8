/*
 * runtime/rts/rts_stream.h - the runtime functions CANN's libprofapi looks
 * up by name in libruntime.so (user/recorder/rtplugin.h), with CANN's
 * names, types and values: the stream attribute query of hicann/runtime
 * pkg_inc/runtime/runtime/rts/rts_stream.h, rtProfilerTraceEx of
 * runtime/base.h and rtCacheLastTaskOpInfo of runtime/kernel.h. Our
 * runtime defines them (user/runtime/rt_stream.c), the profiling library
 * calls them through dlsym, the host tests' stand-in runtime
 * (tests/unit/fake_runtime.c) defines them again. Not installed: only the
 * subset the profiling plugin needs.
 */
#ifndef NPUPROF_RUNTIME_RTS_STREAM_H
#define NPUPROF_RUNTIME_RTS_STREAM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
	RT_STREAM_ATTR_FAILURE_MODE = 1,
	RT_STREAM_ATTR_FLOAT_OVERFLOW_CHECK = 2,
	RT_STREAM_ATTR_USER_CUSTOM_TAG = 3,
	RT_STREAM_ATTR_CACHE_OP_INFO = 4,
	RT_STREAM_ATTR_PRIORITY = 5,
	RT_STREAM_ATTR_MAX = 6,
} rtStreamAttr;

#define RT_STREAM_FAILURE_MODE_CONTINUE_ON_FAILURE (0x0U)
#define RT_STREAM_FAILURE_MODE_STOP_ON_FAILURE (0x1U)

typedef union {
	uint64_t failureMode;
	uint32_t overflowSwitch;
	uint32_t userCustomTag;
	uint32_t cacheOpInfoSwitch;
	uint32_t streamPriority;
	uint32_t rsv[4];
} rtStreamAttrValue_t;

/* rtError_t: 0 (RT_ERROR_NONE) or an error code; rtStream_t: void * */
int32_t rtsStreamGetAttribute(void *stm, rtStreamAttr stmAttrId, rtStreamAttrValue_t *attrValue);
int32_t rtProfilerTraceEx(uint64_t id, uint64_t modelId, uint16_t tagId, void *stm);
int32_t rtCacheLastTaskOpInfo(const void *const infoPtr, const size_t infoSize);

#ifdef __cplusplus
}
#endif

#endif /* NPUPROF_RUNTIME_RTS_STREAM_H */
