/*
 * trace.h — the timeline of an msprof database as Chrome trace-event JSON
 * (the "JSON Object Format" that Perfetto and chrome://tracing open).
 *
 * npuprof_trace_json() reads the database at db (ours or a real msprof
 * one) and writes out through a temporary renamed over it when complete:
 *
 *   - one process per host process (pid = the Linux pid of globalTid) and
 *     per device (pid = NPUPROF_TRACE_DEVICE_PID + deviceId, above any
 *     Linux pid), named with process_name metadata ("M"); threads named
 *     with thread_name: host threads by tid, device streams as threads
 *     ("stream N"), one thread per communication group ("HCCL <group>");
 *   - host API slices ("X", cat = the ENUM_API_TYPE level: acl, model,
 *     node, communication, runtime) on their thread, args connectionId;
 *   - device tasks ("X", cat "task") on their stream, named by operator
 *     (COMPUTE_TASK_INFO.name) or else by task type; args taskType,
 *     streamId, taskId, connectionId, globalTaskId, opType/blockDim for
 *     compute tasks, opName/groupName for communication tasks;
 *   - a flow ("s" on the launching API slice, "f" with bp "e" on the task,
 *     cat and name "launch", id 2*globalTaskId) from the CANN_API row
 *     whose connectionId a task carries to that task;
 *   - COMMUNICATION_OP rows as slices (cat "collective") on their group's
 *     thread of their device, with a flow (id 2*opId+1) from the host
 *     call of their connectionId;
 *   - MSTX_EVENTS: marks (eventType 0, 3) as thread-scoped instants ("i"),
 *     ranges (1, 2) as nestable async slices ("b"/"e", cat "mstx");
 *   - PYTORCH_API rows (a PyTorch database) as slices (cat "torch_" + the
 *     ENUM_API_TYPE name: torch_op, torch_queue, torch_trace, torch_mstx)
 *     on framework lanes of their thread (NPUPROF_TRACE_FRAMEWORK_TID):
 *     "PyTorch <thread>" for ops, queue and mstx rows, "Python <thread>"
 *     for python frames, a further "(overlapping N)" lane for a row that
 *     overlaps without nesting; args type, connectionId, sequenceNumber;
 *   - flows from a torch op to each task its linked launches made ("s" on
 *     the op, "f" on the task, cat and name "async_npu", as torch_npu's
 *     trace_view.json) and between two framework rows sharing a link id
 *     that is no CANN call's ("async_task_queue" from Enqueue to Dequeue,
 *     "fwdbwd" from a forward op to its backward);
 *   - per stream a counter ("C", "queue depth stream N", arg "depth"): the
 *     stream's tasks launched and not finished, a task counting from the
 *     end of its launching call (or its start, if earlier or unlaunched)
 *     to its end.
 *
 * Timestamps are µs since the session's start (SESSION_TIME_INFO.startTimeNs,
 * or the first time in the data if earlier), whose Unix ns the header
 * gives as otherData.startTimeUnixNs (a string: exact in any reader), with
 * exactly three decimals (integer arithmetic). Relative, because readers
 * parse ts as a double: at today's Unix µs (~1.8e15) a double resolves only
 * 0.25 µs, which makes back-to-back tasks overlap in a viewer. The
 * events are produced by ordered queries and written as they come, so
 * memory does not grow with the number of rows (only with the number of
 * threads, streams and communication groups).
 */
#ifndef NPUPROF_TRACE_H
#define NPUPROF_TRACE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Device processes: this plus the device id (Linux pids stay below 2^22). */
#define NPUPROF_TRACE_DEVICE_PID 10000000
/* Device threads (streams, communication groups): this plus their index. */
#define NPUPROF_TRACE_DEVICE_TID 20000000
/* Framework lanes of a host thread tid (below 2^22, as every Linux tid):
 * this plus ((lane * 2 + kind) << 22) plus tid; kind 0 the PyTorch lane
 * (ops, queue and mstx rows), 1 the Python lane (python frames). */
#define NPUPROF_TRACE_FRAMEWORK_TID 30000000
/* Flow ids: 2 * globalTaskId ("launch"), 2 * opId + 1 (collective ops),
 * these plus globalTaskId ("async_npu", torch op to task) and plus the
 * link id ("async_task_queue", "fwdbwd"): each below 2^53, exact in a
 * reader's double; an id of SPAN or more gets no framework flow. */
#define NPUPROF_TRACE_FLOW_SPAN (1ULL << 49)
#define NPUPROF_TRACE_FLOW_FWK_TASK (2 * NPUPROF_TRACE_FLOW_SPAN)
#define NPUPROF_TRACE_FLOW_FWK_LINK (3 * NPUPROF_TRACE_FLOW_SPAN)

struct npuprof_trace_opts {
	uint32_t pid; /* the profiled process, named process_name; 0: none */
	const char *process_name; /* NULL: "host process" */
	/* When *cancel becomes non-zero the writer stops with -EINTR. */
	const volatile sig_atomic_t *cancel;
};

struct npuprof_trace_result {
	uint64_t events; /* every trace event written */
	uint64_t api, tasks, flows, comm_ops, marks, ranges, counters;
	uint64_t processes, threads;
	uint64_t fwk; /* PYTORCH_API rows */
};

/* Returns 0, or -errno with a message in err (out is then untouched). */
int npuprof_trace_json(const char *db, const char *out, const struct npuprof_trace_opts *o,
		       struct npuprof_trace_result *res, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* NPUPROF_TRACE_H */
