/*
 * rtplugin.h - how the profiling library reaches the runtime and the
 * driver: by library name, as CANN's libprofapi does.
 *
 * CANN's libprofapi dlopens libruntime.so and looks up rtProfilerTraceEx
 * (aclprofMarkEx, step markers, mstx markers on a stream),
 * rtsStreamGetAttribute and rtCacheLastTaskOpInfo (aclprofRangePop's op
 * info) by name (hicann/runtime
 * src/dfx/msprof/collector/dvvp/profapi/src/prof_runtime_plugin.cpp), and
 * takes the device count from libascend_hal.so's drvGetDevNum
 * (collector/dvvp/driver/devmgmt/msprof_drv_api.cpp). So does this
 * library; nothing registers with it. Each library is opened once, on
 * first need (RTLD_NOW | RTLD_NODELETE: never closed, so a function looked
 * up stays valid), never from a constructor.
 */
#ifndef NPUPROF_RTPLUGIN_H
#define NPUPROF_RTPLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "profiling/npuprof_ext.h"

/* The tags: NPUPROF_EXT_TRACE_* (profiling/npuprof_ext.h). Model id of MarkEx, mstx and step trace tasks (MARKEX_MODEL_ID). */
#define NPUPROF_TRACE_MODEL_ID 0xFFFFFFFFu

/* rtProfilerTraceEx(index_id, model_id, tag, stream): 0, or -1 when the
 * runtime is missing, lacks the function or refuses the task. */
int rtplugin_trace(void *stream, uint64_t index_id, uint64_t model_id, uint16_t tag);

/* Whether `stream` caches op info (rtsStreamGetAttribute's
 * RT_STREAM_ATTR_CACHE_OP_INFO): 1 yes, 0 no; -1 the runtime refused the
 * query. No runtime or no such function: 0 (the caller records the op info
 * itself; CANN's would fail the call). */
int rtplugin_stream_caches_op_info(void *stream);

/* What aclprofRangePop hands a stream that caches op info
 * (rtCacheLastTaskOpInfo): this header, then tensorNum struct
 * MsrofTensorData (hicann/runtime
 * src/dfx/msprof/collector/dvvp/profapi/inc/prof_tx_plugin.h 19-29,
 * CacheOpInfoBasic). 48 bytes. */
struct npuprof_cache_op_info {
	uint32_t task_type;
	uint32_t block_dim;
	uint64_t node_id;
	uint64_t op_type;
	uint64_t attr_id;
	uint64_t reserve2;
	uint32_t op_flag;
	uint32_t tensor_num;
};

_Static_assert(sizeof(struct npuprof_cache_op_info) == 48, "CacheOpInfoBasic is 48 bytes");

/* rtCacheLastTaskOpInfo(info, size): 0, or -1. */
int rtplugin_cache_op_info(const void *info, size_t size);

/* drvGetDevNum: 0 with *count set; 1 when there is no driver library
 * (*count 0: no device); -1 when it failed. */
int rtplugin_device_count(uint32_t *count);

#endif /* NPUPROF_RTPLUGIN_H */
