/*
 * acl_npu_op.h - npuprof's operator launch: one call that runs a kernel task
 * and tells the profiler everything CANN's GE knows about the operator.
 *
 * CANN launches operators through aclnn* / aclopExecute with compiled
 * kernels; the simulation has no kernels, so this call stands in for all of
 * them. It enqueues one kernel task on `stream` for the modelled duration and,
 * while profiling is on, records what a CANN application would show:
 *   acl-level API  `apiName` (default "aclnn" + opType)
 *     node-level   `launch` (item = opName)
 *       runtime    `KernelLaunch`
 *   TASK_TRACK     runtime type KERNEL_AICORE / KERNEL_AIVEC / KERNEL_MIX_AIC /
 *                  KERNEL_MIX_AIV / KERNEL_AICPU (or `taskTypeName`)
 *   COMPUTE_OP     name, type, GE task type, block dims, tensors, attributes
 * The task inherits the `launch` range's connectionId.
 *
 * Tensors are given either structurally (inputs/outputs) or, for replaying a
 * database, as the finished strings (inputFormats ... outputShapes), which
 * win when set. Strings are copied before the call returns.
 */
#ifndef INC_EXTERNAL_ACL_ACL_NPU_OP_H_
#define INC_EXTERNAL_ACL_ACL_NPU_OP_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The accelerator the op runs on (COMPUTE_TASK_INFO.taskType, GE numbering). */
typedef enum aclnpuTaskKind {
	ACLNPU_TASK_AI_CORE = 0, /* cube cores: KERNEL_AICORE */
	ACLNPU_TASK_AI_CPU = 1, /* AI CPU: KERNEL_AICPU */
	ACLNPU_TASK_AI_VECTOR_CORE = 2, /* vector cores: KERNEL_AIVEC */
	ACLNPU_TASK_MIX_AIC = 4, /* cube-led mix: KERNEL_MIX_AIC */
	ACLNPU_TASK_MIX_AIV = 5, /* vector-led mix: KERNEL_MIX_AIV */
} aclnpuTaskKind;

#define ACLNPU_MAX_DIMS 8

typedef struct aclnpuTensorDesc {
	aclDataType dataType;
	aclFormat format;
	uint32_t numDims; /* 0: a scalar */
	int64_t dims[ACLNPU_MAX_DIMS];
} aclnpuTensorDesc;

typedef struct aclnpuOpDesc {
	size_t size; /* sizeof(aclnpuOpDesc) of the caller's build */
	const char *opName; /* node name, e.g. "aclnnMm_MatMul_0"; required */
	const char *opType; /* e.g. "MatMul"; required */
	aclnpuTaskKind taskKind;
	uint32_t blockDim; /* 1 .. 65535 */
	uint32_t mixBlockDim; /* MIX kinds: blocks of the second core type */
	uint64_t durationNs; /* modelled run time, <= 10 s */
	uint32_t jitterPerMille; /* +- random jitter on the duration, <= 1000 */
	uint32_t opFlag;
	uint32_t numInputs;
	const aclnpuTensorDesc *inputs;
	uint32_t numOutputs;
	const aclnpuTensorDesc *outputs;
	const char *attrInfo; /* NULL: "N/A" */
	const char *apiName; /* acl-level API name; NULL: "aclnn<opType>" */
	/* Replay: finished db strings (NULL: built from inputs/outputs). */
	const char *inputFormats;
	const char *inputDataTypes;
	const char *inputShapes; /* with its double quotes, as in the db */
	const char *outputFormats;
	const char *outputDataTypes;
	const char *outputShapes;
	const char *taskTypeName; /* runtime task type; NULL: from taskKind */
	const char *geTaskType; /* GE task type; NULL: from taskKind */
	/* Appended later (read only when `size` covers it): ACLNPU_OP_* bits. */
	uint32_t flags;
	/* Replay (ACLNPU_REPLAY_*, below; read only when `size` covers them);
	 * 0 for a live launch. With ACLNPU_REPLAY_TIMED blockDim may be 0. */
	uint32_t replayFlags;
	uint32_t contextId; /* ACLNPU_REPLAY_CONTEXT: FFTS+ context id */
	uint64_t startNs; /* ACLNPU_REPLAY_TIMED / _SUBTASK */
	uint64_t connectionId; /* ACLNPU_REPLAY_CONN: from aclnpuRecordApi */
	/* Appended later (read only when `size` covers them): the op's
	 * results computed on the host, hostCompute(hostArg), when its task is
	 * sent: at the launch, or, on a stream a model run instance records,
	 * at each execution of the model (the runtime keeps a copy of the
	 * hostArgSize bytes at hostArg with the model's task; at most
	 * ACLNPU_HOST_ARG_MAX). NULL: nothing computed. */
	void (*hostCompute)(const void *arg);
	const void *hostArg;
	size_t hostArgSize;
} aclnpuOpDesc;
#define ACLNPU_HOST_ARG_MAX 65536u

/* The caller has opened the acl-level range itself (aclnpuApiBegin, e.g.
 * libopapi's aclnnAdd around its kernels): no second one, apiName unused. */
#define ACLNPU_OP_IN_API 1u

/* Memory a kernel may read or write on npusim: 1 if [base + offset,
 * base + offset + size) lies inside one live allocation of aclrtMalloc or
 * aclrtMallocHost that begins at base, else 0. The aclnn operators compute
 * their results on the host only over memory this confirms. */
ACL_FUNC_VISIBILITY int aclnpuMemSpan(const void *base, uint64_t offset, uint64_t size);

/* 1 if the tasks launched on stream are recorded into a model run instance
 * (the stream is being captured, or is bound: aclmdlRI*) or into a task
 * group's update instead of being run now, else 0 (also for a stream that
 * is not valid). */
ACL_FUNC_VISIBILITY int aclnpuStreamRecords(aclrtStream stream);

/* Launches one kernel task. ACL_ERROR_INVALID_PARAM for a NULL or
 * inconsistent descriptor, else as the other stream APIs. */
ACL_FUNC_VISIBILITY aclError aclnpuLaunchOp(const aclnpuOpDesc *desc, aclrtStream stream);

/* An acl-level API range (CANN_API type 20000) recorded like the runtime's
 * own, for libraries over the runtime (libopapi's aclnnXxxGetWorkspaceSize
 * and aclnnXxx). Kernels launched inside it with ACLNPU_OP_IN_API hang off
 * their `launch` ranges inside it. `name` must stay valid until
 * aclnpuApiEnd; ranges nest per thread and end in reverse order. Costs one
 * branch while profiling is off. */
typedef struct aclnpuApiScope {
	uint64_t opaque[6];
} aclnpuApiScope;
ACL_FUNC_VISIBILITY void aclnpuApiBegin(aclnpuApiScope *scope, const char *name);
/* Ends the range; `result` is the API's return value. Returns `result`. */
ACL_FUNC_VISIBILITY int32_t aclnpuApiEnd(aclnpuApiScope *scope, int32_t result);

/* Sets what aclGetRecentErrMsg returns on the calling thread. */
ACL_FUNC_VISIBILITY void aclnpuSetRecentErrMsg(const char *msg);

/* One task of any SQE type, reported with the runtime task-type name given:
 * for replaying databases (FFTS+ subtask names such as "Notify Wait") and
 * for tests. The runtime writes the fields into the SQE of sqeType as the
 * 910B runtime would (include/uapi/npusim.h: id the event / notify id,
 * tag / value a profiler trace's tag and index id, value a write value's,
 * bytes an SDMA length) and what no real SQE carries (durationNs, which
 * cores lead a mix, targetDevice) into npusim's task model. With apiName
 * the task hangs off an acl-level range of that name, else off whatever
 * range the caller has open. */
typedef struct aclnpuRawTask {
	size_t size; /* sizeof(aclnpuRawTask) of the caller's build */
	uint32_t sqeType; /* enum npusim_sqe_type; a kernel (0, or 2 for an AI
			     Vector one) goes out as an FFTS SQE, type 0 */
	uint32_t kind; /* kernels: npusim_kernel_kind; PLACE_HOLDER:
			  ACLNPU_RAW_PROFILER_TRACE for a MarkEx trace */
	uint32_t blockDim;
	uint32_t id; /* event / notify id */
	uint32_t targetDevice; /* NOTIFY_RECORD: device owning the notify */
	uint32_t tag;
	uint64_t value;
	uint64_t durationNs;
	uint64_t bytes; /* SDMA: at most 4 GiB - 1 (the SQE's length) */
	const char *taskTypeName; /* required */
	const char *apiName; /* NULL: none */
	/* Replay (ACLNPU_REPLAY_*, below); 0 for a live launch. */
	uint32_t replayFlags;
	uint32_t contextId; /* ACLNPU_REPLAY_CONTEXT: FFTS+ context id */
	uint64_t startNs; /* ACLNPU_REPLAY_TIMED / _SUBTASK */
	uint64_t connectionId; /* ACLNPU_REPLAY_CONN: from aclnpuRecordApi */
	aclrtEvent event; /* EVENT_RECORD / EVENT_WAIT: the event (sets id) */
	const struct aclnpuHcclTaskInfo *hccl; /* its COMMUNICATION_TASK_INFO */
} aclnpuRawTask;
ACL_FUNC_VISIBILITY aclError aclnpuLaunchRawTask(const aclnpuRawTask *task, aclrtStream stream);
#define ACLNPU_RAW_PROFILER_TRACE 1u /* aclnpuRawTask.kind of a place holder */

/*
 * Replaying a recorded device timeline (npuwork --scenario replay).
 *   TIMED    startNs is the CLOCK_MONOTONIC time the task starts at the
 *            earliest (it also waits for its stream and its event); the
 *            duration is durationNs exactly, however short; no cores taken
 *            (npusim's NPUSIM_TASK_F_TIMED)
 *   SUBTASK  (with TIMED) an FFTS+ subtask of the stream's last task that
 *            was not one: startNs is its start after that task's start
 *   CONN     the task's connectionId is connectionId (aclnpuRecordApi's)
 *   CONTEXT  the task's TASK.contextId is contextId
 */
#define ACLNPU_REPLAY_TIMED 0x1u
#define ACLNPU_REPLAY_SUBTASK 0x2u
#define ACLNPU_REPLAY_CONN 0x4u
#define ACLNPU_REPLAY_CONTEXT 0x8u

/* While off, the runtime records none of its own API ranges (the replay
 * records the database's through aclnpuRecordApi); tasks, operator and HCCL
 * records still go out. On until turned off (also before aclInit). */
ACL_FUNC_VISIBILITY aclError aclnpuRecordOwnApis(int on);

/* One CANN_API range as recorded: level (5000 runtime, 5500 communication,
 * 10000 node, 20000 acl ...), name, CLOCK_MONOTONIC start and end. Gives its
 * connectionId (also while profiling is off, when nothing is recorded). */
ACL_FUNC_VISIBILITY aclError aclnpuRecordApi(uint32_t level, const char *name, uint64_t startNs,
					     uint64_t endNs, uint64_t *connectionId);

/* One HCCL collective as recorded (a COMMUNICATION_OP row): its tasks are
 * raw tasks whose `hccl` names the opSeq this call gives. The device span
 * is the export's (its tasks'). Strings are copied. */
typedef struct aclnpuHcclOpDesc {
	size_t size; /* sizeof(aclnpuHcclOpDesc) */
	const char *opName; /* hcom_allReduce__<n>_<seq>_<k>; required */
	const char *opType; /* hcom_allReduce_ ...; required */
	const char *groupName; /* required */
	const char *algType; /* NULL: N/A */
	uint64_t count;
	uint32_t dataType; /* ENUM_HCCL_DATA_TYPE id */
	uint32_t rank, rankSize;
	uint8_t relay, retry;
	uint64_t startNs, endNs; /* host time of its launch (CLOCK_MONOTONIC) */
	uint64_t connectionId; /* aclnpuRecordApi's; UINT64_MAX: none */
	uint32_t taskCount;
} aclnpuHcclOpDesc;
ACL_FUNC_VISIBILITY aclError aclnpuRecordHcclOp(const aclnpuHcclOpDesc *op, aclrtStream stream,
						uint64_t *opSeq);

/* The COMMUNICATION_TASK_INFO of one raw task of such an op. */
typedef struct aclnpuHcclTaskInfo {
	uint64_t opSeq; /* aclnpuRecordHcclOp's */
	const char *opName, *groupName; /* = the op's */
	const char *taskType; /* Notify_Wait, Memcpy, Reduce_Inline ... */
	uint32_t planeId, srcRank, dstRank;
	uint16_t transportType, linkType, rdmaType, dataType;
	uint64_t size;
	uint64_t notifyId;
	uint8_t isMaster;
} aclnpuHcclTaskInfo;

/* Opens on the calling thread an acl-level API `aclName` (e.g.
 * hcom_allReduce_) enclosing a node-level `launch` (item: opName, may be
 * NULL): every task launched on this thread until aclnpuScopeEnd hangs off
 * that launch, one connectionId for all of them (replaying a db's HCCL op
 * or GE node). Scopes do not nest (ACL_ERROR_FAILURE). */
ACL_FUNC_VISIBILITY aclError aclnpuScopeBegin(const char *aclName, const char *opName);
ACL_FUNC_VISIBILITY aclError aclnpuScopeEnd(void);

/* Notify ids of a device (what HCCL allocates for its handshakes). */
ACL_FUNC_VISIBILITY aclError aclnpuNotifyCreate(int32_t deviceId, uint32_t *notifyId);
ACL_FUNC_VISIBILITY aclError aclnpuNotifyDestroy(int32_t deviceId, uint32_t notifyId);

/* Ground truth for tests and workload manifests: the observer is called on
 * the submitting thread for every task the runtime sends, right after the
 * driver accepted it. connectionId is -1 while profiling is off. */
typedef struct aclnpuTaskRecord {
	int32_t deviceId;
	uint32_t streamId;
	uint32_t taskId; /* the 16-bit SQE task id */
	uint32_t batchId; /* wraps of the stream's task id */
	uint32_t sqeType;
	const char *taskTypeName; /* runtime task type */
	uint64_t durationNs; /* modelled (0: from bytes / sync task) */
	uint64_t bytes;
	int64_t connectionId;
} aclnpuTaskRecord;
typedef void (*aclnpuTaskObserver)(void *ctx, const aclnpuTaskRecord *task);
/* NULL removes the observer. Not for concurrent use with submits. */
ACL_FUNC_VISIBILITY aclError aclnpuSetTaskObserver(aclnpuTaskObserver fn, void *ctx);

/* The names the db uses for a data type and a format ("FLOAT16", "NCHW"). */
ACL_FUNC_VISIBILITY const char *aclnpuDataTypeName(aclDataType dt);
ACL_FUNC_VISIBILITY const char *aclnpuFormatName(aclFormat fmt);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_NPU_OP_H_ */
