/*
 * rthooks.h - how npuprof's runtime lends the profiling API its device side.
 *
 * The recorder's aclprof* functions do not know about streams or devices.
 * Where CANN's profiling library calls into the runtime (rtProfilerTraceEx
 * for aclprofMarkEx and step markers, the device count for
 * aclprofCreateConfig, the op-info cache for aclprofRangePop), the recorder
 * calls the hooks registered here. The runtime registers them when it
 * initialises and unregisters them before it tears its streams down.
 * Without a runtime: aclprofMarkEx fails with -1, aclprofGetStepTimestamp
 * with ACL_ERROR_GE_FAILURE, the device count is 0, and RangePop reports
 * tensor info itself.
 */
#ifndef NPUPROF_RTHOOKS_H
#define NPUPROF_RTHOOKS_H

#include <stddef.h>
#include <stdint.h>

#include "rec_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device trace task tags (CANN's PROFILER_TRACE_EX tag ids). */
#define NPUPROF_TRACE_TAG_STEP_START 0
#define NPUPROF_TRACE_TAG_STEP_END 1
#define NPUPROF_TRACE_TAG_MARK 11
#define NPUPROF_TRACE_TAG_RANGE 12
/* Model id of MarkEx, mstx and step trace tasks. */
#define NPUPROF_TRACE_MODEL_ID 0xFFFFFFFFu

struct npuprof_runtime_hooks {
	/* sizeof(struct npuprof_runtime_hooks) of the caller's build, so that
     * members can be appended later. */
	size_t size;
	/* Launches a device trace task on `stream` (an aclrtStream). Returns 0,
     * or non-zero if the task could not be launched. Required. */
	int (*launch_trace)(void *stream, uint64_t index_id, uint32_t model_id, uint32_t tag);
	/* Stores the number of devices in *count; returns 0 or non-zero on
     * failure. Optional (absent: 0 devices). */
	int (*get_device_count)(uint32_t *count);
	/* Offers an aclprofTensorInfo to the runtime's op-info cache for
     * `stream`: returns 1 if the runtime took it, 0 if the stream does not
     * cache op info (the library then records it), negative on failure.
     * Optional (absent: 0). */
	int (*cache_tensor_info)(void *stream, const void *tensor_info);
};

/* Installs `hooks` (copied). NULL unregisters. Returns 0, or -EINVAL if
 * hooks->size is too small or launch_trace is NULL. Safe against concurrent
 * aclprof* calls: a caller sees either the old or the new set. */
NPUPROF_REC_EXPORT int npuprof_register_runtime_hooks(const struct npuprof_runtime_hooks *hooks);

#ifdef __cplusplus
}
#endif

#endif /* NPUPROF_RTHOOKS_H */
