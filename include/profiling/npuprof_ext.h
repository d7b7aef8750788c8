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
#define NPUPROF_CANN_RT_MEMCPY_INFO 801U /* RT_PROFILE_TYPE_MEMCPY_INFO */
#define NPUPROF_CANN_RT_TASK_TRACK 802U /* RT_PROFILE_TYPE_TASK_TRACK */
#define NPUPROF_CANN_RT_TASK_TRACK_V2 808U /* RT_PROFILE_TYPE_TASK_TRACK_V2 */
#define NPUPROF_CANN_RT_API_BASE 1000U /* runtime API n: type 1000 + n */

#define NPUPROF_EXT_LEVEL 32000U /* MsprofApi / MsprofCompactInfo .level */
#define NPUPROF_EXT_TASK_TYPE 1U /* .type of a struct NpuprofTaskExt */
#define NPUPROF_EXT_TASK_NAME "npuprof_task_ext"

/* PROFILER_TRACE_EX trace tags (NpuprofTaskExt.traceTag): the device marker
 * of aclprofMarkEx / mstxMarkA with a stream (MARK) and of an mstx range
 * with a stream (RANGE: its start and end markers share the index id). */
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

#ifdef __cplusplus
}
#endif

#endif /* NPUPROF_PROFILING_EXT_H */
