/*
 * npuprof_ext.h - what npuprof's runtime reports beyond what CANN's reporter
 * ABI carries, reported THROUGH that ABI (libprofapi.so), not beside it.
 *
 * CANN's runtime reports a device task as a task track (MsprofCompactInfo at
 * MSPROF_REPORT_RUNTIME_LEVEL, type 802 task_track / 808 task_track_v2) and
 * msprof takes the task's times from the device. npuprof also exports
 * host-only sessions (no device capture), where a task's span is the model
 * the runtime put into the SQE, and rows CANN fills from device logs
 * (MEMCPY_INFO size and direction, the MarkEx / mstx device markers). Those
 * facts travel as one more compact record, at a level of npuprof's own:
 *
 *   MsprofRegTypeInfo(NPUPROF_EXT_LEVEL, NPUPROF_EXT_TASK_TYPE,
 *                     NPUPROF_EXT_TASK_NAME);           once, at load
 *   ... report the task track (MsprofReportCompactInfo) ...
 *   MsprofCompactInfo c = { magicNumber 0x5A5A, level NPUPROF_EXT_LEVEL,
 *                           type NPUPROF_EXT_TASK_TYPE, threadId = the
 *                           track's, dataLen = sizeof(struct
 *                           NpuprofTaskExt), timeStamp = the track's };
 *   memcpy(c.data.info, &ext, sizeof(ext));
 *   MsprofReportCompactInfo(1, &c, sizeof(c));
 *
 * The record describes the latest task track reported before it on the same
 * thread with the same (deviceId, streamId, taskId), taskId as in the track
 * (flip number in the high 16 bits); one not preceded by such a track is
 * counted as a bad record by `npuprof export` and skipped. A track without
 * one gets duration 0, bytes from a runtime memcpy_info (801) record if one
 * was reported in the same runtime API, no trace tag.
 *
 * msprof ignores records at a level it does not know, so a database
 * msprof builds from the same reports is unchanged by these. The level is
 * none of CANN's (aprof_pub.h: 30000, 25000, 20500, 20000, 15000, 10000,
 * 6000, 5500, 5000, 4500, 4000, 3000). Nothing here depends on CANN's
 * headers: the struct is plain C, packed to exactly the 40-byte data area
 * of MsprofCompactInfo.
 */
#ifndef NPUPROF_PROFILING_EXT_H
#define NPUPROF_PROFILING_EXT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What msprof and `npuprof export` recognise a compact or additional report
 * by: the name its (level, type) was registered with (MsprofRegTypeInfo),
 * which is also the tag of msprof's raw files
 * ({aging|unaging}.{compact|additional}.<name>); a report whose (level,
 * type) has no registered name is skipped and counted. CANN's components
 * register these (hicann/runtime src/runtime/core/src/common/
 * profiling_agent.cc 205-223; GE and HCCL the node and HCCL ones; Ascend/
 * msprof analysis/csrc/domain/services/parser/host/cann/{compact,addition}_info_parser.h), with
 * the runtime-level type ids of hicann/runtime src/runtime/core/inc/common/
 * profiler_struct.hpp 270-277, which CANN's public headers do not name.
 */
#define NPUPROF_CANN_TASK_TRACK_NAME "task_track" /* RUNTIME level, compact */
#define NPUPROF_CANN_TASK_TRACK_V2_NAME "task_track_v2" /* RUNTIME, compact */
#define NPUPROF_CANN_MEMCPY_INFO_NAME "memcpy_info" /* RUNTIME, compact */
#define NPUPROF_CANN_NODE_BASIC_INFO_NAME "node_basic_info" /* NODE, compact, type 0 */
#define NPUPROF_CANN_HCCL_OP_INFO_NAME "hccl_op_info" /* NODE, compact, type 10 */
#define NPUPROF_CANN_TENSOR_INFO_NAME "tensor_info" /* NODE, additional, type 1 */
#define NPUPROF_CANN_CONTEXT_ID_NAME "context_id_info" /* NODE, additional, type 4 */
#define NPUPROF_CANN_HCCL_INFO_NAME \
	"hccl_info" /* HCCL_NODE, additional:
                                                   MsprofHcclInfo */
/* An MsprofHcclInfo is reported with a type of its own at the HCCL_NODE
 * level, registered as "hccl_info" (not under an API's type: msprof files a
 * report by its type's name). It is one HCCL task of the latest task track
 * of the innermost HCCL-level API (MSPROF_REPORT_HCCL_MASTER_TYPE or
 * _SLAVE_TYPE: isMaster) containing its time, else of its node's; which
 * type id CANN's HCCL uses is not public: npuprof's HCCL uses this one. */
#define NPUPROF_CANN_HCCL_INFO_TYPE 1U
#define NPUPROF_CANN_RT_MEMCPY_INFO 801U /* RT_PROFILE_TYPE_MEMCPY_INFO */
#define NPUPROF_CANN_RT_TASK_TRACK 802U /* RT_PROFILE_TYPE_TASK_TRACK */
#define NPUPROF_CANN_RT_TASK_TRACK_V2 808U /* RT_PROFILE_TYPE_TASK_TRACK_V2 */
#define NPUPROF_CANN_RT_API_BASE 1000U /* runtime API n: type 1000 + n */

#define NPUPROF_EXT_LEVEL 32000U /* MsprofApi / MsprofCompactInfo .level */
#define NPUPROF_EXT_TASK_TYPE 1U /* .type of a struct NpuprofTaskExt */
#define NPUPROF_EXT_TASK_NAME "npuprof_task_ext"

/* PROFILER_TRACE_EX trace tags (CANN's rtProfilerTraceEx tag ids, the
 * tag_id of the trace task's SQE and NpuprofTaskExt.traceTag): the device
 * marker of aclprofMarkEx / mstxMarkA with a stream (MARK) and of an mstx
 * range with a stream (RANGE: its start and end markers share the index
 * id). */
#define NPUPROF_EXT_TRACE_MARK 11U
#define NPUPROF_EXT_TRACE_RANGE 12U
#define NPUPROF_EXT_NO_MEMCPY 65535U /* memcpyOp of a task that is no copy */

/* The compact payload (MsprofCompactInfo.data), 40 bytes, little-endian. */
struct NpuprofTaskExt {
	uint16_t deviceId; /* = the track's deviceId */
	uint8_t sqeType; /* STARS SQE type written into the SQE */
	uint8_t reserved; /* 0 */
	uint32_t streamId; /* = the track's streamId */
	uint32_t taskId; /* = the track's taskId ((flip << 16) | id) */
	uint16_t memcpyOp; /* ENUM_MEMCPY_OPERATION id (0 H2H, 1 H2D, 2 D2H,
                               3 D2D ...); NPUPROF_EXT_NO_MEMCPY */
	uint16_t traceTag; /* PROFILER_TRACE_EX tag; 0 for other tasks */
	uint64_t durationNs; /* the modelled duration put into the SQE;
                               0: from bytes, or a pure sync task */
	uint64_t bytes; /* bytes the task moves (copies, SDMA); 0 */
	uint64_t indexId; /* PROFILER_TRACE_EX: the marker's index id (the
                               mstx mark id; TASK.connectionId =
                               4000000001 + indexId); else 0 */
};

/* ---- The framework layer (npuprof.torch and its device mirror) ----------
 * torch_npu writes its framework data (the PyTorch database's PYTORCH_API,
 * MEMORY_RECORD, GC_RECORD ...) into files of its own; CANN's reporter ABI
 * has no record for it. npuprof's framework layer reports it through the
 * ABI instead, as MsprofAdditionalInfo records at NPUPROF_EXT_LEVEL, so
 * that libprofapi.so stays the one in-app entry for host data:
 *
 *   MsprofRegTypeInfo(NPUPROF_EXT_LEVEL, NPUPROF_EXT_FWK_OP_TYPE,
 *                     NPUPROF_EXT_FWK_OP_NAME);         once, at load
 *   MsprofAdditionalInfo a = { magicNumber 0x5A5A, level NPUPROF_EXT_LEVEL,
 *                              type NPUPROF_EXT_FWK_OP_TYPE, threadId = the
 *                              kernel tid, dataLen = sizeof(struct
 *                              NpuprofFwkOp), timeStamp = the op's start
 *                              (MsprofSysCycleTime) };
 *   memcpy(a.data, &op, sizeof(op));
 *   MsprofReportAdditionalInfo(0, &a, sizeof(a));
 *
 * Times inside the payloads are durations, so that the one time a reader
 * converts (timeStamp, from MsprofSysCycleTime's clock) places the record.
 * Strings are MsprofGetHashId ids (NPUPROF_EXT_NO_STRING: none). The
 * layer reports while its own profiler runs (npuprof.torch, as torch_npu's
 * records follow its profiler, not CANN's switches) or, for the device
 * mirror, while the module NPUPROF_EXT_FWK_MODULE has been started through
 * MsprofRegisterCallback. `npuprof export` turns the records into the
 * PyTorch database's framework tables; msprof skips the level. */
#define NPUPROF_EXT_FWK_MODULE \
	4U /* FMK, "Adapter": hicann/runtime
                                     include/dfx/base/log_types.h */
/* The other CANN log-module ids (the same enum) that npuprof's components
 * register with MsprofRegisterCallback, or that libprofapi.so starts first
 * and stops last in CANN's order: RUNTIME, ASCENDCL, GE (profapi.c). */
#define NPUPROF_CANN_MOD_HCCL 3U
#define NPUPROF_CANN_MOD_RUNTIME 7U
#define NPUPROF_CANN_MOD_GE 45U
#define NPUPROF_CANN_MOD_ASCENDCL 48U
#define NPUPROF_EXT_NO_STRING UINT64_MAX
#define NPUPROF_EXT_FWK_OP_TYPE 2U
#define NPUPROF_EXT_FWK_OP_NAME "npuprof_fwk_op"
#define NPUPROF_EXT_FWK_MEM_TYPE 3U
#define NPUPROF_EXT_FWK_MEM_NAME "npuprof_fwk_mem"
#define NPUPROF_EXT_FWK_GC_TYPE 4U
#define NPUPROF_EXT_FWK_GC_NAME "npuprof_fwk_gc"

/* PYTORCH_API.type: the ENUM_API_TYPE ids torch_npu inserts */
#define NPUPROF_EXT_FWK_API_OP 50001U /* a torch op (RecordFunction) */
#define NPUPROF_EXT_FWK_API_QUEUE 50002U /* Enqueue / Dequeue of the task queue */
#define NPUPROF_EXT_FWK_API_TRACE 50003U /* a Python frame (python trace) */
#define NPUPROF_EXT_FWK_API_MSTX 50004U /* an mstx range from Python */

/* Separator of the entries of dtypes / shapes and of the frames of a
 * stack, as torch_npu writes them. */
#define NPUPROF_EXT_FWK_SEP ";\r\n"

/* One framework API range (a PYTORCH_API row), reported when it ends;
 * timeStamp = its start. 56 bytes. */
struct NpuprofFwkOp {
	uint32_t fwdThreadId; /* backward op: the forward op's thread; 0 */
	uint32_t apiType; /* NPUPROF_EXT_FWK_API_* */
	uint64_t durationNs;
	int64_t sequenceNumber; /* autograd sequence number; -1: none */
	uint64_t nameId; /* aten::addmm, ProfilerStep#3 ... */
	uint64_t dtypesId; /* input dtypes, joined by ";\r\n" as torch_npu */
	uint64_t shapesId; /* input shapes "[d0, d1]", same joining */
	uint64_t stackId; /* Python stack, "file(line): func" frames,
                                  innermost first, same joining */
};

/* One allocator event (a MEMORY_RECORD row); timeStamp = its time. 64
 * bytes. */
struct NpuprofFwkMem {
	uint32_t deviceId; /* UINT32_MAX: host memory */
	uint32_t reserved; /* 0 */
	uint64_t ptr;
	int64_t size; /* > 0 allocated, < 0 released */
	uint64_t totalAllocated;
	uint64_t totalReserved;
	uint64_t totalActive;
	uint64_t stream; /* ACL stream handle value; 0: none */
	uint64_t componentId; /* "PTA", "GE" or "PTA+GE" */
};

/* One Python garbage collection (a GC_RECORD row); timeStamp = its start.
 * 16 bytes. */
struct NpuprofFwkGc {
	uint32_t generation;
	uint32_t reserved; /* 0 */
	uint64_t durationNs;
};

/* The id MsprofGetHashId gives the `len` bytes at s, without registering
 * the string: CANN's hash (two 32-bit polynomial hashes, x29 and x131, over
 * the bytes as C `char` values, (h29 << 32) | h131; UINT64_MAX for an empty
 * string). Only npuprof's libprofapi.so has it, so that a producer can keep
 * a cache of the ids it has registered; it also tells npuprof's library
 * from CANN's. */
__attribute__((visibility("default"))) uint64_t npuprof_str2id_hash(const char *s, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* NPUPROF_PROFILING_EXT_H */
