/*
 * acl_prof.h - the CANN profiling C API (aclprof*) and msproftx stamps, as
 * implemented by npuprof's in-application recorder, libmsprofiler.so.
 *
 * This is npuprof's own text. Function signatures, types, enumerator values,
 * bit values and struct layouts match CANN's public acl/acl_prof.h, so code
 * written for CANN compiles and runs unchanged against this header and
 * libmsprofiler. Return codes follow CANN's documented behaviour, including its
 * habit of returning -1 (not an ACL code) from most msproftx functions.
 *
 * Deliberate differences from CANN's implementation (all follow CANN's own
 * documentation where the implementation disagrees with it):
 *  - aclprofPush/aclprofPop keep one stack per thread. CANN keeps one stack
 *    shared by all threads (a Pop on thread B can end a Push of thread A),
 *    while its documentation says Push/Pop are per thread and must not cross
 *    threads. Use aclprofRangeStart/aclprofRangeStop across threads.
 *    aclprofRangePushEx/aclprofRangePop likewise keep one slot per thread.
 *  - aclprofSetStampTraceMessage accepts up to 127 characters (msgLen < 128),
 *    as documented; CANN's copy fails above 126.
 *  - Every timestamp, including aclprofMarkEx's, is CLOCK_MONOTONIC in ns.
 *    CANN uses CLOCK_MONOTONIC_RAW or the CPU counter (always the counter for
 *    MarkEx); one time base makes the export a single offset.
 *  - Stamp handles are validated: a pointer that is not a live stamp of this
 *    library is treated like NULL instead of being dereferenced, and
 *    destroying a stamp, config or step info twice is a harmless no-op.
 *  - aclprofStr2Id(NULL) returns UINT64_MAX instead of crashing.
 *  - Recording calls (Mark, MarkEx, Push, Pop, RangeStart, RangeStop) return
 *    -1 when no collection is running (after aclprofStop, before the next
 *    aclprofStart): their record could not be reported. Stamp management
 *    (Create/Destroy/SetStampTraceMessage) keeps working until
 *    aclprofFinalize, as in CANN.
 *  - Model subscription (aclprofModelSubscribe, aclprofGetOp*,
 *    user/recorder/subscribe.c): a model GE registered
 *    (MsprofSetDeviceIdByGeModelIdx) can be subscribed; unsubscribing
 *    closes the config's fd. npuprof's runtime loads no GE model, so no
 *    subscribed model runs and no op descriptor is ever written.
 *
 * API-driven sessions. aclprofStart(config) creates a new PROF_* session
 * directory under the aclprofInit path, laid out as `npuprof record` lays
 * it out (npuprof/session.h), and, when the config has ACL_PROF_TASK_TIME
 * and devices, captures the calling process's own device tasks on those
 * devices through /dev/npuprof (npuprof.ko allows a process to capture
 * itself without privileges): a reader thread inside this library writes
 * them to the session. aclprofStop stops the capture (the rings are
 * drained and the thread joined) and completes the directory; `npuprof
 * export DIR` (the PROF_* directory, or the aclprofInit path holding
 * several) writes the msprof database, with only the tables the config's
 * switches enabled (TASK: ACL_PROF_TASK_TIME, CANN_API: ACL_PROF_ACL_API,
 * MSTX_EVENTS: ACL_PROF_MSPROFTX). Without npuprof.ko (no /dev/npuprof)
 * aclprofStart prints one warning on stderr and the session is host-only:
 * export takes the task times from the runtime's launches (launch time plus
 * modelled duration) and META_DATA says so (npuprof.task_time_source=host).
 * CANN's other data types (AI Core metrics, system samples such as
 * ACL_PROF_SYS_HARDWARE_MEM_FREQ) are accepted and recorded in the session
 * but not collected.
 *
 * Session from the environment. When `npuprof record` starts a program it
 * passes the collection through these variables; the library reads them
 * when it is loaded and, if NPUPROF_OUTPUT_DIR is set, starts collecting at
 * once, like a program run under CANN's `msprof` command line, and record's
 * session governs. Difference from CANN, whose aclprofInit fails with
 * ACL_ERROR_PROF_ALREADY_RUN under msprof (and programs that check it
 * exit): here the program's own aclprofInit, aclprofCreateConfig,
 * aclprofSetConfig, aclprofStart, aclprofStop and aclprofFinalize succeed
 * (after the usual argument checks) and change nothing: no second session
 * is made, the stamps record into record's session, and record's collection
 * runs until the program exits. aclprofInit writes one line into
 * <its path>/npuprof_profile_location.txt naming record's session
 * directory, where the profile went.
 *
 *   NPUPROF_OUTPUT_DIR         the PROF_* collection directory. The host
 *                              stream is written to
 *                              <dir>/host/data/npuprof.host.<pid>.raw
 *                              (directories are created as needed).
 *   NPUPROF_SWITCHES           the ACL_PROF_* bits to collect, as a C integer
 *                              literal (decimal, 0x hex or 0 octal). Default:
 *                              ACL_PROF_ACL_API | ACL_PROF_TASK_TIME |
 *                              ACL_PROF_MSPROFTX. Post-processed like
 *                              aclprofCreateConfig's dataTypeConfig.
 *   NPUPROF_DEVICES            comma-separated logical device ids
 *                              (default: none, host only).
 *   NPUPROF_BUFFER_SIZE        per-thread record buffer in bytes, rounded up
 *                              to a power of two, 64 KiB ... 1 GiB (default
 *                              1 MiB). Also applies to aclprofStart sessions.
 *   NPUPROF_FLUSH_INTERVAL_MS  period of the background writer, 1 ... 60000
 *                              ms (default 100). Also applies to API mode.
 *
 * Compiles as C11 and as C++.
 */
#ifndef INC_EXTERNAL_ACL_PROF_H_
#define INC_EXTERNAL_ACL_PROF_H_

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dataTypeConfig switch bits (uint64_t). */
#define ACL_PROF_ACL_API 0x0001ULL
#define ACL_PROF_TASK_TIME 0x0002ULL
#define ACL_PROF_AICORE_METRICS 0x0004ULL
#define ACL_PROF_AICPU 0x0008ULL
#define ACL_PROF_L2CACHE 0x0010ULL
#define ACL_PROF_HCCL_TRACE 0x0020ULL
#define ACL_PROF_TRAINING_TRACE 0x0040ULL
#define ACL_PROF_MSPROFTX 0x0080ULL
#define ACL_PROF_RUNTIME_API 0x0100ULL
#define ACL_PROF_GE_API_L0 0x0200ULL
#define ACL_PROF_TASK_TIME_L0 0x0800ULL
#define ACL_PROF_TASK_MEMORY 0x1000ULL
#define ACL_PROF_TASK_TIME_L2 0x2000ULL
#define ACL_PROF_OP_ATTR 0x4000ULL
#define ACL_PROF_TASK_TIME_L3 0x8000ULL
#define ACL_PROF_GE_API_L1 0x01000000ULL
#define ACL_PROF_API_STATS 0x400000000ULL
#define ACL_PROF_AICORE_SHAPE 0x800000000ULL

/* deprecated, kept for source compatibility */
#define ACL_PROF_MAX_OP_NAME_LEN 257
#define ACL_PROF_MAX_OP_TYPE_LEN 65

typedef enum {
	ACL_AICORE_ARITHMETIC_UTILIZATION = 0,
	ACL_AICORE_PIPE_UTILIZATION = 1,
	ACL_AICORE_MEMORY_BANDWIDTH = 2,
	ACL_AICORE_L0B_AND_WIDTH = 3,
	ACL_AICORE_RESOURCE_CONFLICT_RATIO = 4,
	ACL_AICORE_MEMORY_UB = 5,
	ACL_AICORE_L2_CACHE = 6,
	ACL_AICORE_PIPE_EXECUTE_UTILIZATION = 7,
	ACL_AICORE_MEMORY_ACCESS = 8,
	ACL_AICORE_NONE = 0xFF
} aclprofAicoreMetrics;

typedef enum {
	ACL_STEP_START = 0,
	ACL_STEP_END = 1
} aclprofStepTag;

typedef enum {
	ACL_SUBSCRIBE_OP = 0,
	ACL_SUBSCRIBE_SUBGRAPH = 1,
	ACL_SUBSCRIBE_OP_THREAD = 2,
	ACL_SUBSCRIBE_NONE = 0xFF
} aclprofSubscribeOpFlag;

typedef enum {
	ACL_SUBSCRIBE_ATTRI_THREADID = 0,
	ACL_SUBSCRIBE_ATTRI_NONE = 1
} aclprofSubscribeOpAttri;

/* First argument of aclprofSetConfig; only values strictly between
 * ACL_PROF_ARGS_MIN and ACL_PROF_ARGS_MAX are accepted (2 is unused). */
typedef enum {
	ACL_PROF_ARGS_MIN = 0,
	ACL_PROF_STORAGE_LIMIT = 1,
	ACL_PROF_SYS_HARDWARE_MEM_FREQ = 3,
	ACL_PROF_LLC_MODE = 4,
	ACL_PROF_SYS_IO_FREQ = 5,
	ACL_PROF_SYS_INTERCONNECTION_FREQ = 6,
	ACL_PROF_DVPP_FREQ = 7,
	ACL_PROF_HOST_SYS = 8,
	ACL_PROF_HOST_SYS_USAGE = 9,
	ACL_PROF_HOST_SYS_USAGE_FREQ = 10,
	ACL_PROF_LOW_POWER_FREQ = 11,
	ACL_PROF_SYS_MEM_SERVICEFLOW = 12,
	ACL_PROF_SYS_CPU_FREQ = 13,
	ACL_PROF_OPTYPE = 14,
	ACL_PROF_NTS_METRICS = 15,
	ACL_PROF_PATH = 16,
	ACL_PROF_ARGS_MAX = 17
} aclprofConfigType;

typedef enum {
	ACL_PROF_MESSAGE_TYPE_TENSOR_INFO = 0
} aclprofMessageType;

typedef struct aclprofConfig aclprofConfig;
typedef struct aclprofStopConfig aclprofStopConfig;
typedef struct aclprofAicoreEvents aclprofAicoreEvents;
typedef struct aclprofSubscribeConfig aclprofSubscribeConfig;
typedef struct aclprofStepInfo aclprofStepInfo;

#define ACL_PROF_EVENT_ATTR_VERSION 1
/* Frozen: it fixes sizeof(aclprofTensor) at 48 bytes. */
#define ACL_PROF_TENSOR_DATA_SHAPE_LEN 8

/* The tensor structs have a frozen layout. Early users defined them
 * themselves; such code defines ACL_PROF_TENSOR_INFO_DEFINED and supplies
 * identical definitions. New fields may only be appended, with
 * ACL_PROF_EVENT_ATTR_VERSION raised; readers check version and size. */
#ifndef ACL_PROF_TENSOR_INFO_DEFINED
#define ACL_PROF_TENSOR_INFO_DEFINED
typedef struct aclprofTensor {
	uint32_t type; /* 0 input, 1 output */
	uint32_t format; /* aclFormat */
	uint32_t dataType; /* aclDataType */
	uint32_t shapeDim; /* dimensions used, <= ACL_PROF_TENSOR_DATA_SHAPE_LEN */
	uint32_t shape[ACL_PROF_TENSOR_DATA_SHAPE_LEN];
} aclprofTensor;

typedef struct aclprofTensorInfo {
	uint64_t opNameId; /* from aclprofStr2Id */
	uint64_t opTypeId; /* from aclprofStr2Id */
	uint32_t resv;
	uint32_t tensorNum;
	uint32_t kernelType;
	uint32_t blockNums;
	void *stream; /* the aclrtStream the op runs on */
	aclprofTensor *tensors;
} aclprofTensorInfo;

typedef struct aclprofEventAttributes {
	uint16_t version; /* ACL_PROF_EVENT_ATTR_VERSION */
	uint16_t size; /* sizeof(aclprofEventAttributes) */
	uint32_t messageType; /* ACL_PROF_MESSAGE_TYPE_TENSOR_INFO */
	union Message {
		aclprofTensorInfo *tensorInfo;
	} message;
} aclprofEventAttributes;
#endif /* ACL_PROF_TENSOR_INFO_DEFINED */

/* ---- Collection control ------------------------------------------------ */

/* Enters API-controlled mode with `profilerResultPath` (strlen must equal
 * `length`, 0 < length < 4096) as the result directory, created if needed.
 * Each aclprofStart then writes one PROF_* directory below it. */
ACL_FUNC_VISIBILITY aclError aclprofInit(const char *profilerResultPath, size_t length);

/* Ends API mode: stops a running collection, flushes, and un-initialises
 * msproftx. Not initialised: ACL_SUCCESS. */
ACL_FUNC_VISIBILITY aclError aclprofFinalize(void);

/* Starts collecting with `profilerConfig` (NULL: host only with the default
 * switches). Initialises itself with the last result path (or "./") when
 * aclprofInit was not called, as current CANN releases do. */
ACL_FUNC_VISIBILITY aclError aclprofStart(const aclprofConfig *profilerConfig);

/* Builds a config; NULL on invalid arguments (see the reference, 6.8).
 * `deviceNums` may be 0 only with ACL_PROF_MSPROFTX. */
ACL_FUNC_VISIBILITY aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums,
						       aclprofAicoreMetrics aicoreMetrics,
						       const aclprofAicoreEvents *aicoreEvents,
						       uint64_t dataTypeConfig);

ACL_FUNC_VISIBILITY aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig);

/* Stops the running collection and flushes everything recorded so far.
 * Not initialised or nothing running: ACL_SUCCESS. */
ACL_FUNC_VISIBILITY aclError aclprofStop(const aclprofConfig *profilerConfig);

/* Sets one extended option; callable before aclprofInit. */
ACL_FUNC_VISIBILITY aclError aclprofSetConfig(aclprofConfigType configType, const char *config,
					      size_t configLength);

/* ---- Step markers ------------------------------------------------------ */

ACL_FUNC_VISIBILITY aclprofStepInfo *aclprofCreateStepInfo(void);
ACL_FUNC_VISIBILITY void aclprofDestroyStepInfo(aclprofStepInfo *stepinfo);
/* Marks the start or end of a step on `stream` with a device trace task
 * (needs npuprof's runtime: without it ACL_ERROR_GE_FAILURE). START twice or
 * END twice on one step info: ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclprofGetStepTimestamp(aclprofStepInfo *stepInfo, aclprofStepTag tag,
						     aclrtStream stream);

/* ---- msproftx ----------------------------------------------------------
 * Usable between an aclprofStart whose config has ACL_PROF_MSPROFTX and
 * aclprofFinalize (recording calls: until aclprofStop). Failures are -1
 * unless noted. */

/* One of 100 pooled stamps, or NULL (msproftx not initialised, pool empty).
 * A reused stamp keeps its previous message and category, as in CANN. */
ACL_FUNC_VISIBILITY void *aclprofCreateStamp(void);
ACL_FUNC_VISIBILITY void aclprofDestroyStamp(void *stamp);
/* Sets the stamp's message: the first min(msgLen, strlen(msg)) characters.
 * msgLen >= 128: -1. */
ACL_FUNC_VISIBILITY aclError aclprofSetStampTraceMessage(void *stamp, const char *msg,
							 uint32_t msgLen);
/* Records an instant event with the stamp's message. */
ACL_FUNC_VISIBILITY aclError aclprofMark(void *stamp);
/* Records an instant event and launches a device marker task on `stream`
 * through npuprof's runtime; strlen(msg) == msgLen, 1 <= msgLen <= 155.
 * Without a runtime, or if the launch fails: -1 and nothing is recorded. */
ACL_FUNC_VISIBILITY aclError aclprofMarkEx(const char *msg, size_t msgLen, aclrtStream stream);
/* Opens a range on the calling thread's stack. NULL stamp:
 * ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclprofPush(void *stamp);
/* Closes the calling thread's innermost Push. Empty stack: -1. */
ACL_FUNC_VISIBILITY aclError aclprofPop(void);
/* Opens a range that any thread may stop; *rangeId is the stamp's pool
 * index (0..99). NULL stamp or rangeId: ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclprofRangeStart(void *stamp, uint32_t *rangeId);
/* Records the range with the stopping thread's id. An id that was never
 * started: -1. As in CANN, stopping the same id again records it again. */
ACL_FUNC_VISIBILITY aclError aclprofRangeStop(uint32_t rangeId);

/* The 64-bit hash id of a string (CANN's algorithm, so ids match CANN's for
 * the same string on the same architecture); UINT64_MAX for "" or NULL. */
ACL_FUNC_VISIBILITY uint64_t aclprofStr2Id(const char *message);
/* Remembers `attr` (the pointer, not a copy) and the time for the next
 * aclprofRangePop on this thread. NULL: ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclprofRangePushEx(aclprofEventAttributes *attr);
/* Reports the tensor info remembered by aclprofRangePushEx. No PushEx on this
 * thread: ACL_ERROR_INVALID_PARAM. The slot is not cleared (as in CANN). */
ACL_FUNC_VISIBILITY aclError aclprofRangePop(void);

/* Model subscription, as CANN declares it. The descriptors read from the
 * fd are CANN's (aclprofGetOpDescSize bytes each, signed). */
ACL_FUNC_VISIBILITY aclError
aclprofModelSubscribe(uint32_t modelId, const aclprofSubscribeConfig *profSubscribeConfig);
ACL_FUNC_VISIBILITY aclError aclprofModelUnSubscribe(uint32_t modelId);
ACL_FUNC_VISIBILITY aclprofSubscribeConfig *aclprofCreateSubscribeConfig(
	int8_t timeInfoSwitch, aclprofAicoreMetrics aicoreMetrics, void *fd);
ACL_FUNC_VISIBILITY aclError
aclprofDestroySubscribeConfig(const aclprofSubscribeConfig *profSubscribeConfig);
ACL_FUNC_VISIBILITY aclError aclprofGetOpDescSize(size_t *opDescSize);
ACL_FUNC_VISIBILITY aclError aclprofGetOpNum(const void *opInfo, size_t opInfoLen,
					     uint32_t *opNumber);
ACL_FUNC_VISIBILITY aclError aclprofGetOpTypeLen(const void *opInfo, size_t opInfoLen,
						 uint32_t index, size_t *opTypeLen);
ACL_FUNC_VISIBILITY aclError aclprofGetOpType(const void *opInfo, size_t opInfoLen, uint32_t index,
					      char *opType, size_t opTypeLen);
ACL_FUNC_VISIBILITY aclError aclprofGetOpNameLen(const void *opInfo, size_t opInfoLen,
						 uint32_t index, size_t *opNameLen);
ACL_FUNC_VISIBILITY aclError aclprofGetOpName(const void *opInfo, size_t opInfoLen, uint32_t index,
					      char *opName, size_t opNameLen);
ACL_FUNC_VISIBILITY uint64_t aclprofGetOpStart(const void *opInfo, size_t opInfoLen,
					       uint32_t index);
ACL_FUNC_VISIBILITY uint64_t aclprofGetOpEnd(const void *opInfo, size_t opInfoLen, uint32_t index);
ACL_FUNC_VISIBILITY uint64_t aclprofGetOpDuration(const void *opInfo, size_t opInfoLen,
						  uint32_t index);
ACL_FUNC_VISIBILITY size_t aclprofGetModelId(const void *opInfo, size_t opInfoLen, uint32_t index);
ACL_FUNC_VISIBILITY aclprofSubscribeOpFlag aclprofGetOpFlag(const void *opInfo, size_t opInfoLen,
							    uint32_t index);
ACL_FUNC_VISIBILITY const char *aclprofGetOpAttriValue(const void *opInfo, size_t opInfoLen,
						       uint32_t index,
						       aclprofSubscribeOpAttri attri);

/* Exported but undeclared in CANN's header; declared here for convenience.
 * The category appears in MSTX_EVENTS.category; the payload value is not
 * stored (CANN stores only the type). */
ACL_FUNC_VISIBILITY aclError aclprofSetStampCategory(void *stamp, uint32_t category);
ACL_FUNC_VISIBILITY aclError aclprofSetStampPayload(void *stamp, const int32_t type, void *value);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_PROF_H_ */
