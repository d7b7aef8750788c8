/*
 * acl_rt.h - the ACL runtime API: devices, streams, events, memory.
 *
 * npuprof's own text; names, types and values match CANN's acl_rt.h for the
 * functions npuprof's runtime (user/runtime, libascendcl.so) implements over
 * the simulated NPU (npusim). Semantics and error codes follow CANN:
 *  - aclInit must precede everything else (ACL_ERROR_UNINITIALIZE otherwise);
 *  - a thread must aclrtSetDevice before creating streams, events or memory
 *    (ACL_ERROR_RT_CONTEXT_NULL otherwise);
 *  - a NULL handle is ACL_ERROR_INVALID_PARAM; a handle that is not (or no
 *    longer) a live object of its kind is ACL_ERROR_RT_PARAM_INVALID;
 *  - driver failures are ACL_ERROR_RT_DRV_INTERNAL_ERROR.
 * Device memory is host memory in the simulation: data moves for real in
 * aclrtMemcpy/aclrtMemcpyAsync, and the asynchronous copy also runs an SDMA
 * task of the same size on the stream.
 */
#ifndef INC_EXTERNAL_ACL_ACL_RT_H_
#define INC_EXTERNAL_ACL_ACL_RT_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aclrtRunMode {
	ACL_DEVICE,
	ACL_HOST,
} aclrtRunMode;

typedef enum aclrtMemcpyKind {
	ACL_MEMCPY_HOST_TO_HOST,
	ACL_MEMCPY_HOST_TO_DEVICE,
	ACL_MEMCPY_DEVICE_TO_HOST,
	ACL_MEMCPY_DEVICE_TO_DEVICE,
	ACL_MEMCPY_DEFAULT,
} aclrtMemcpyKind;

typedef enum aclrtMemMallocPolicy {
	ACL_MEM_MALLOC_HUGE_FIRST,
	ACL_MEM_MALLOC_HUGE_ONLY,
	ACL_MEM_MALLOC_NORMAL_ONLY,
	ACL_MEM_MALLOC_HUGE_FIRST_P2P,
	ACL_MEM_MALLOC_HUGE_ONLY_P2P,
	ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
} aclrtMemMallocPolicy;

typedef enum aclrtEventRecordedStatus {
	ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
	ACL_EVENT_RECORDED_STATUS_COMPLETE = 1,
} aclrtEventRecordedStatus;

/* Event flags (aclrtCreateEventWithFlag / aclrtCreateEventExWithFlag). */
#define ACL_EVENT_SYNC 0x00000001U
#define ACL_EVENT_CAPTURE_STREAM_PROGRESS 0x00000002U
#define ACL_EVENT_TIME_LINE 0x00000008U
#define ACL_EVENT_DEVICE_USE_ONLY 0x00000010U
#define ACL_EVENT_EXTERNAL 0x00000020U
#define ACL_EVENT_IPC 0x00000040U

/* Stream flags (ACL_RT_STREAM_FLAG of a stream config). */
#define ACL_STREAM_FAST_LAUNCH 0x00000001U
#define ACL_STREAM_FAST_SYNC 0x00000002U
#define ACL_STREAM_PERSISTENT 0x00000004U
#define ACL_STREAM_HUGE 0x00000008U
#define ACL_STREAM_CPU_SCHEDULE 0x00000010U
#define ACL_STREAM_DEVICE_USE_ONLY 0x00000020U

/* aclrtValueWait's conditions on the 64-bit value at devAddr. */
#define ACL_STREAM_WAIT_VALUE_GEQ 0x00000000U /* (int64_t)(*devAddr - value) >= 0 */
#define ACL_STREAM_WAIT_VALUE_EQ 0x00000001U /* *devAddr == value */
#define ACL_STREAM_WAIT_VALUE_AND 0x00000002U /* (*devAddr & value) != 0 */
#define ACL_STREAM_WAIT_VALUE_NOR 0x00000003U /* ~(*devAddr | value) != 0 */

/* aclrtGetDeviceCapability's answers. */
#define ACL_DEV_FEATURE_SUPPORT 0x00000001
#define ACL_DEV_FEATURE_NOT_SUPPORT 0x00000000

/* Version strings (aclsysGetVersionStr). */
#define ACL_PKG_VERSION_MAX_SIZE 128
#define ACL_PKG_VERSION_PARTS_MAX_SIZE 64

typedef enum {
	ACL_RT_STREAM_WORK_ADDR_PTR = 0,
	ACL_RT_STREAM_WORK_SIZE,
	ACL_RT_STREAM_FLAG,
	ACL_RT_STREAM_PRIORITY,
} aclrtStreamConfigAttr;

/* CANN exposes the handle's fields; set them with aclrtSetStreamConfigOpt. */
typedef struct aclrtStreamConfigHandle {
	void *workptr;
	size_t workSize;
	size_t flag;
	uint32_t priority;
} aclrtStreamConfigHandle;

/* Error details of a device fault (aclrtGetErrorVerbose). */
#define MAX_MEM_UCE_INFO_ARRAY_SIZE 128
#define UCE_INFO_RESERVED_SIZE 14

typedef struct aclrtMemUceInfo {
	void *addr;
	size_t len;
	size_t reserved[UCE_INFO_RESERVED_SIZE];
} aclrtMemUceInfo;

typedef enum {
	ACL_RT_NO_ERROR = 0,
	ACL_RT_ERROR_MEMORY = 1,
	ACL_RT_ERROR_L2 = 2,
	ACL_RT_ERROR_AICORE = 3,
	ACL_RT_ERROR_LINK = 4,
	ACL_RT_ERROR_L3_PORT = 5,
	ACL_RT_ERROR_OTHERS = 0xFFFF,
} aclrtErrorType;

typedef enum aclrtAicoreErrorType {
	ACL_RT_AICORE_ERROR_UNKNOWN,
	ACL_RT_AICORE_ERROR_SW,
	ACL_RT_AICORE_ERROR_HW_LOCAL,
} aclrtAicoreErrorType;

#define ACL_RT_MEM_UCE_INFO_MAX_NUM 20
typedef struct {
	size_t arraySize;
	aclrtMemUceInfo memUceInfoArray[ACL_RT_MEM_UCE_INFO_MAX_NUM];
} aclrtMemUceInfoArray;

typedef union aclrtErrorInfoDetail {
	aclrtMemUceInfoArray uceInfo;
	aclrtAicoreErrorType aicoreErrType;
} aclrtErrorInfoDetail;

typedef struct aclrtErrorInfo {
	uint8_t tryRepair;
	uint8_t hasDetail;
	uint8_t reserved[2];
	aclrtErrorType errorType;
	aclrtErrorInfoDetail detail;
} aclrtErrorInfo;

typedef enum aclrtLastErrLevel {
	ACL_RT_THREAD_LEVEL = 0,
} aclrtLastErrLevel;

typedef enum {
	ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV = 1,
	ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV = 21,
} aclrtDevFeatureType;

typedef enum {
	ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM = 10,
	ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX = 11,
	ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN = 12,
	ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL = 13,
} aclrtReduceKind;

typedef enum aclrtFloatOverflowMode {
	ACL_RT_OVERFLOW_MODE_SATURATION = 0,
	ACL_RT_OVERFLOW_MODE_INFNAN,
	ACL_RT_OVERFLOW_MODE_UNDEF,
} aclrtFloatOverflowMode;

typedef enum {
	ACL_RT_DEV_RES_CUBE_CORE = 0,
	ACL_RT_DEV_RES_VECTOR_CORE,
} aclrtDevResLimitType;

ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
ACL_FUNC_VISIBILITY aclError aclFinalize(void);

ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtResetDeviceForce(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count);
ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode *runMode);
/* The SoC version of device 0 ("Ascend910B1" on npusim), the SOC_VERSION that
 * CANN's sample scripts build for; NULL if no device answers. Needs no
 * aclInit. (CANN declares it in acl/acl_base_rt.h, included by acl.h.) */
ACL_FUNC_VISIBILITY const char *aclrtGetSocName(void);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void);

ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream);
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);

ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent *event);
ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event);
ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);

/* Stream memory operations (user/runtime/rt_value.c): a task of the stream
 * that stores value (64 bits, devAddr 8-byte aligned; flag reserved, 0)
 * once the stream reaches it, and one that holds the stream until the
 * value at devAddr meets flag's ACL_STREAM_WAIT_VALUE_* condition. On a
 * stream whose tasks go to a model: ACL_ERROR_RT_FEATURE_NOT_SUPPORT. */
ACL_FUNC_VISIBILITY aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag,
					     aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag,
					    aclrtStream stream);

/* Flags of aclrtRecordEventWithFlag / aclrtStreamWaitEventWithFlag:
 * EXTERNAL only on a stream being captured: the record (wait) in the model
 * is visible to (waits for) streams and models outside it. DEFAULT is
 * aclrtRecordEvent (aclrtStreamWaitEvent; a timeout in s other than 0 is
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT: npusim's waits are not cut). An event
 * recorded or waited for in a model is recorded (waited for) at each of
 * its executions, on the execute stream. */
#define ACL_EVENT_RECORD_DEFAULT 0x0U
#define ACL_EVENT_RECORD_EXTERNAL 0x01U
#define ACL_EVENT_WAIT_DEFAULT 0x0U
#define ACL_EVENT_WAIT_EXTERNAL 0x01U
ACL_FUNC_VISIBILITY aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream,
						      uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event,
							  uint32_t timeout, uint32_t flag);
/* A task on stream that returns the event to not recorded (the 910B's
 * WRITE_VALUE event reset): a later wait waits for a new record. */
ACL_FUNC_VISIBILITY aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event);
ACL_FUNC_VISIBILITY aclError aclrtQueryEventStatus(aclrtEvent event,
						   aclrtEventRecordedStatus *status);

ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr);
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size);
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr);
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
					 aclrtMemcpyKind kind);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src,
					      size_t count, aclrtMemcpyKind kind,
					      aclrtStream stream);

/* ---- rt_ctx.c: contexts ----------------------------------------------------
 * aclrtCreateContext opens the device like aclrtSetDevice (one reference
 * per context) and makes the context current for the calling thread;
 * aclrtDestroyContext drops that reference (the last one releases the
 * device and its streams). Every context of a device shares the device's
 * default stream (CANN gives each context its own). aclrtSetDevice makes
 * the device's implicit context current. */
ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context);
ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context);
ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext *context);
ACL_FUNC_VISIBILITY aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream);
/* The cores the current thread may use: the device's AI cores (cube) or
 * vector cores; npusim sets no per-thread limit. */
ACL_FUNC_VISIBILITY aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value);

/* ---- rt_misc.c: versions, errors, peers, stream configs, memset ---------- */
/* The version of package pkgName ("runtime", "cann", ...): the Version= line
 * of $ASCEND_HOME_PATH/share/info/<pkgName>/version.info, as CANN reads it
 * ('-' and '_' interchangeable); ACL_ERROR_INVALID_FILE if there is none.
 * versionStr must hold ACL_PKG_VERSION_MAX_SIZE bytes. */
ACL_FUNC_VISIBILITY aclError aclsysGetVersionStr(char *pkgName, char *versionStr);
/* The same as a number: major*10^7 + minor*10^5 + patch*10^3, less 300/200/
 * 100 plus N for an alphaN/betaN/rcN suffix. */
ACL_FUNC_VISIBILITY aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum);
/* The last error an ACL call of this thread returned; Get also clears it. */
ACL_FUNC_VISIBILITY aclError aclrtPeekAtLastError(aclrtLastErrLevel level);
ACL_FUNC_VISIBILITY aclError aclrtGetLastError(aclrtLastErrLevel level);
/* npusim raises no device faults: ACL_RT_NO_ERROR without detail, for an
 * open device. */
ACL_FUNC_VISIBILITY aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo);

/* Peer access between npusim devices: every pair of distinct devices can
 * (their memory is one host address space). Enabling is device-wide, one
 * direction (the current device's access to peerDeviceId's memory, which
 * need not be open yet), and lasts until disabled or either device is
 * released; disabling what this device did not enable is
 * ACL_ERROR_RT_PARAM_INVALID; flags must be 0.
 * A device-to-device aclrtMemcpy between two devices needs the current
 * device to be one of them with access to the other enabled
 * (ACL_ERROR_RT_PARAM_INVALID otherwise). */
ACL_FUNC_VISIBILITY aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId,
						      int32_t peerDeviceId);
ACL_FUNC_VISIBILITY aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags);
ACL_FUNC_VISIBILITY aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId);

/* ACL_DEV_FEATURE_SUPPORT / _NOT_SUPPORT of a feature of device deviceId. */
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCapability(int32_t deviceId,
						      aclrtDevFeatureType devFeatureType,
						      int32_t *value);
/* 1 if code built for socVersion runs on device 0 (the same 910B family). */
ACL_FUNC_VISIBILITY aclError aclrtCheckArchCompatibility(const char *socVersion,
							 int32_t *canCompatible);

/* Events with flags: ACL_EVENT_SYNC, ACL_EVENT_TIME_LINE and
 * ACL_EVENT_DEVICE_USE_ONLY give an ordinary event; ACL_EVENT_EXTERNAL (an
 * event for a captured model's updates, alone, else ACL_ERROR_INVALID_PARAM)
 * too: its records and waits in a model are real ones; ACL_EVENT_IPC, alone
 * (with another flag: ACL_ERROR_INVALID_PARAM), an event another process
 * opens (aclrtIpcGetEventHandle); ACL_EVENT_CAPTURE_STREAM_PROGRESS is
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT on npusim; unknown bits are
 * ACL_ERROR_INVALID_PARAM. */
ACL_FUNC_VISIBILITY aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag);

/* IPC events: the handle of an ACL_EVENT_IPC event (opaque bytes another
 * process passes to aclrtIpcOpenEventHandle, which gives it an event on
 * the same device event, on any device of the host). Records, waits,
 * queries and synchronisations in either process see the other's records;
 * a wait when no record is in flight or left waits for nothing; each
 * process destroys its own (aclrtDestroyEvent), in either order. */
#define ACL_IPC_EVENT_HANDLE_SIZE 64U
typedef struct aclrtIpcEventHandle {
	char reserved[ACL_IPC_EVENT_HANDLE_SIZE];
} aclrtIpcEventHandle;
ACL_FUNC_VISIBILITY aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle *handle);
ACL_FUNC_VISIBILITY aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent *event);

/* Stream configs: a handle of attributes for aclrtCreateStreamV2. The work
 * area attributes (model streams) are ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
 * priority is 0..7 (0 highest, npusim does not schedule by it); flags are
 * kept and reported by aclrtStreamGetFlags (ACL_STREAM_CPU_SCHEDULE and
 * ACL_STREAM_DEVICE_USE_ONLY are ACL_ERROR_RT_FEATURE_NOT_SUPPORT; a
 * persistent stream holds the tasks of the model run instance it is bound
 * to, aclmdlRIBindStream, and refuses tasks while bound to none). */
ACL_FUNC_VISIBILITY aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void);
ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle);
ACL_FUNC_VISIBILITY aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle,
						     aclrtStreamConfigAttr attr,
						     const void *attrValue, size_t valueSize);
ACL_FUNC_VISIBILITY aclError aclrtCreateStreamV2(aclrtStream *stream,
						 const aclrtStreamConfigHandle *handle);
/* The stream's npusim id (the SQE's stream id, TASK.streamId). */
ACL_FUNC_VISIBILITY aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId);
ACL_FUNC_VISIBILITY aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority);
ACL_FUNC_VISIBILITY aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags);
/* Destroys a stream without waiting: its queued tasks are dropped. */
ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamForce(aclrtStream stream);

/* Sets count bytes at devPtr to (uint8_t)value (count <= maxCount). The
 * asynchronous form also runs an SDMA task of count bytes on the stream,
 * as aclrtMemcpyAsync does. */
ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value,
					 size_t count);
ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value,
					      size_t count, aclrtStream stream);

/* Model dumps (CANN declares them here): npusim has no data to dump, each
 * is ACL_ERROR_RT_FEATURE_NOT_SUPPORT (acl/acl_dump.h). */
ACL_FUNC_VISIBILITY aclError aclmdlInitDump(void);
ACL_FUNC_VISIBILITY aclError aclmdlSetDump(const char *dumpCfgPath);
ACL_FUNC_VISIBILITY aclError aclmdlFinalizeDump(void);

/* Random-number tasks (aclrtRandomNumAsync): CANN's layout (hicann/runtime
 * include/external/acl/acl_rt.h). A parameter is its value (isAddr 0: size
 * bytes of valueOrAddr) or the address of it (isAddr 1: 8 bytes). */
typedef struct {
	uint8_t isAddr;
	uint8_t valueOrAddr[8];
	uint8_t size;
	uint8_t rsv[6];
} aclrtRandomParaInfo;

typedef struct {
	aclrtRandomParaInfo dropoutRation;
} aclrtDropoutBitmaskInfo;

typedef struct {
	aclrtRandomParaInfo min;
	aclrtRandomParaInfo max;
} aclrtUniformDisInfo;

typedef struct {
	aclrtRandomParaInfo mean;
	aclrtRandomParaInfo stddev;
} aclrtNormalDisInfo;

typedef enum {
	ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK = 0,
	ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS,
	ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS,
	ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS,
} aclrtRandomNumFuncType;

typedef struct {
	aclrtRandomNumFuncType funcType;
	union {
		aclrtDropoutBitmaskInfo dropoutBitmaskInfo;
		aclrtUniformDisInfo uniformDisInfo;
		aclrtNormalDisInfo normalDisInfo;
	} paramInfo;
} aclrtRandomNumFuncParaInfo;

typedef struct {
	aclDataType dataType;
	aclrtRandomNumFuncParaInfo randomNumFuncParaInfo;
	void *randomParaAddr;
	void *randomResultAddr;
	void *randomCounterAddr;
	aclrtRandomParaInfo randomSeed;
	aclrtRandomParaInfo randomNum;
	uint8_t rsv[8];
} aclrtRandomNumTaskInfo;

/* Writes randomNum numbers of dataType to randomResultAddr (device memory
 * of the stream's device), computed on the host when submitted, and runs a
 * task of type DSA_SQE on the stream. The numbers are a counter-based
 * stream of (seed, counter): the 16 bytes at randomCounterAddr hold the
 * counter (its first 8 bytes, little endian), advanced by randomNum, so a
 * second call continues the sequence and the same seed and counter give
 * the same numbers. Uniform: [min, max) of bf16, fp16, fp32, int32, int64,
 * uint32, uint64; normal and truncated normal (within mean +- 2 stddev):
 * bf16, fp16, fp32; dropout bitmask: randomNum bits (ceil(randomNum / 8)
 * bytes, bit i of byte i / 8 set: element kept, with probability 1 -
 * ration), ration of bf16, fp16 or fp32. Other types are
 * ACL_ERROR_INVALID_PARAM as on CANN; reserve must be NULL. */
ACL_FUNC_VISIBILITY aclError aclrtRandomNumAsync(const aclrtRandomNumTaskInfo *taskInfo,
						 const aclrtStream stream, void *reserve);

/* dst[i] = dst[i] op src[i] over count bytes of elements of type (the
 * 910B's: int8, int16, int32, fp16, fp32, bf16; others are
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT), computed on the host when submitted,
 * and an SDMA task of count bytes on the stream. SUM, MAX and MIN;
 * ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL is ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
 * Integer sums wrap; fp16 and bf16 are summed in float and rounded to
 * nearest even. dst and src are device memory of the stream's device;
 * reserve must be NULL. */
ACL_FUNC_VISIBILITY aclError aclrtReduceAsync(void *dst, const void *src, uint64_t count,
					      aclrtReduceKind kind, aclDataType type,
					      aclrtStream stream, void *reserve);

/* Float overflow: the device's saturation mode (INFNAN by default, as a
 * 910B's; kept per device until it is released) and a stream's overflow
 * switch (0 or 1) are kept and reported. npusim computes no kernels, so
 * it never overflows: aclrtGetOverflowStatus writes outputSize zero bytes
 * (no overflow) to outputAddr, and aclrtResetOverflowStatus has nothing to
 * clear. */
ACL_FUNC_VISIBILITY aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode);
ACL_FUNC_VISIBILITY aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag);
ACL_FUNC_VISIBILITY aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize,
						    aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtResetOverflowStatus(aclrtStream stream);

/* Streams with a config: priority 0..7 and the flags of
 * aclrtSetStreamConfigOpt's ACL_STREAM_FLAG (ACL_STREAM_PERSISTENT: a
 * stream whose tasks run only in the model run instance bound to it). */
ACL_FUNC_VISIBILITY aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority,
							 uint32_t flag);

/* Model run instances (CANN's aclmdlRI). A model holds tasks and runs them
 * again each time it is executed. Its tasks come from a stream captured
 * into it (aclmdlRICaptureBegin .. aclmdlRICaptureEnd: the tasks launched
 * on the stream meanwhile are recorded, not run) or from the persistent
 * streams bound to it between aclmdlRIBuildBegin and aclmdlRIBuildEnd
 * (aclmdlRIEndTask ends a stream's tasks). Executing it runs its tasks on
 * the execute stream in their order (a copy moves its bytes then, each
 * time), the head streams' one after another in the order they were bound
 * (docs/DESIGN.md §6: a 910B runs the model's streams on the device, side
 * by side). Unsafe calls while a capture is on (aclrtMemcpy, aclrtMemset)
 * follow the capture mode: GLOBAL forbids them to every thread whose own
 * mode (aclmdlRICaptureThreadExchangeMode, GLOBAL by default) is GLOBAL,
 * THREAD_LOCAL to the capturing thread unless it is RELAXED, RELAXED to
 * none; a forbidden call is ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT and
 * invalidates the capture. */
typedef void *aclmdlRI;

typedef enum {
	ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0,
	ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL,
	ACL_MODEL_RI_CAPTURE_MODE_RELAXED,
} aclmdlRICaptureMode;

typedef enum {
	ACL_MODEL_RI_CAPTURE_STATUS_NONE = 0,
	ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE,
	ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED,
} aclmdlRICaptureStatus;

/* aclmdlRIBindStream: a head stream runs from the model's start; another
 * waits to be activated (aclrtActiveStream, not on npusim: its tasks never
 * run). */
#define ACL_MODEL_STREAM_FLAG_HEAD 0x00000000U
#define ACL_MODEL_STREAM_FLAG_DEFAULT 0x7FFFFFFFU

/* aclmdlRIDebugJsonPrint's flags */
#define ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY 0x0UL
#define ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE 0x1UL

ACL_FUNC_VISIBILITY aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode);
/* status NONE (and *modelRI NULL) for a stream not being captured. */
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureGetInfo(aclrtStream stream,
						    aclmdlRICaptureStatus *status,
						    aclmdlRI *modelRI);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode);
/* Writes the model's id, streams and tasks (type, stream, order) as JSON
 * to path, a trace chrome://tracing reads. */
ACL_FUNC_VISIBILITY aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path,
						    uint32_t flags);
ACL_FUNC_VISIBILITY aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream);
/* Runs the model on its device's default stream and waits for it; timeout
 * is -1 or > 0 ms (npusim's tasks always finish: the wait is not cut). */
ACL_FUNC_VISIBILITY aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclmdlRIDestroy(aclmdlRI modelRI);
/* flag must be 0. */
ACL_FUNC_VISIBILITY aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag);
/* stream: a persistent stream (ACL_STREAM_PERSISTENT) bound to no other
 * model; flag ACL_MODEL_STREAM_FLAG_HEAD or _DEFAULT. */
ACL_FUNC_VISIBILITY aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream,
						uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream);
/* reserve must be NULL. No task may be added to the model after it. */
ACL_FUNC_VISIBILITY aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve);
ACL_FUNC_VISIBILITY aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream);
/* The model's name (up to 127 bytes; "" until set) and its id. */
ACL_FUNC_VISIBILITY aclError aclmdlRISetName(aclmdlRI modelRI, const char *name);
ACL_FUNC_VISIBILITY aclError aclmdlRIGetName(aclmdlRI modelRI, uint32_t maxLen, char *name);
ACL_FUNC_VISIBILITY aclError aclmdlRIGetId(aclmdlRI modelRI, uint32_t *modelRIId);

/* Task groups of a capture: the tasks launched on a captured stream between
 * aclmdlRICaptureTaskGrpBegin and aclmdlRICaptureTaskGrpEnd form a group
 * (handle valid while its model lives). Tasks launched on a stream that is
 * not captured between aclmdlRICaptureTaskUpdateBegin and
 * aclmdlRICaptureTaskUpdateEnd replace the group's tasks (as many, of the
 * same types, else ACL_ERROR_RT_PARAM_INVALID at the end) for the model's
 * executions sent after the end, and for the last one sent before it if
 * the device has not run the group yet (it waits for an event before it:
 * the new tasks' host shares, an aclnn operator's results, are done again
 * at the end); the update stream runs one MODEL_TASK_UPDATE task. */
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp *handle);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream,
							    aclrtTaskGrp handle);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream);

/* Labels: positions in the streams of a model being built. aclrtSetLabel
 * puts a label on a stream bound to a model (aclmdlRIBindStream), once;
 * aclrtSwitchLabelByIndex puts a switch there: at each execution it reads
 * the uint32_t at ptr (device memory, aclrtMalloc) once the tasks before it
 * have run, and the execution goes on at labelList's label of that index
 * (the last one if it is larger), on the label's stream; the rest of the
 * switch's stream is not run. maxValue is the list's label count. npusim
 * has no device-side branch: the runtime takes it on the host, so
 * aclmdlRIExecuteAsync of a model with a switch returns once the tasks
 * before its last switch have run. Labels and lists are freed by their
 * destroy calls (a model that still names one fails its execution). */
ACL_FUNC_VISIBILITY aclError aclrtCreateLabel(aclrtLabel *label);
ACL_FUNC_VISIBILITY aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtDestroyLabel(aclrtLabel label);
ACL_FUNC_VISIBILITY aclError aclrtCreateLabelList(aclrtLabel *labels, size_t num,
						  aclrtLabelList *labelList);
ACL_FUNC_VISIBILITY aclError aclrtDestroyLabelList(aclrtLabelList labelList);
ACL_FUNC_VISIBILITY aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue,
						     aclrtLabelList labelList, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_RT_H_ */
