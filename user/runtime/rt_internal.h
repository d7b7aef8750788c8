/*
 * rt_internal.h - what the files of npuprof's ACL runtime share.
 *
 * The runtime (libascendcl.so) reaches the device only through the driver's
 * user-space API (libascend_hal.so, include/driver/ascend_hal.h, with the
 * simulator's extensions of driver/npusim_hal.h) and
 * reports its profiling data through ONE layer, rt_prof*.c: no other file
 * calls the profiler (only the backend includes the profiler's headers), so
 * what the profiler is (libmsprofiler.so's host recorder, or CANN's
 * reporter ABI of libprofapi.so) is the choice of one backend file.
 * Layout, each file using only those below it:
 *   rt_core.c    aclInit/aclFinalize, devices
 *   hccl.c       communicators and collectives
 *   rt_op.c      aclnpuLaunchOp: kernel tasks with their operator info
 *   rt_replay.c  what replays need (timed tasks, the db's API ranges)
 *   rt_mem.c     device memory (host memory in the simulation), copies,
 *                peer access
 *   rt_stream.c  streams, the submit path (task ids), synchronisation,
 *                events
 *   rt_prof.c    the reporting layer: API ranges, connectionIds; its
 *                backend (Makefile RT_REPORT) the switch, the clock,
 *                string ids and every record: rt_prof_rec.c (the host
 *                recorder) or rt_prof_cann.c (CANN's reporter ABI)
 *   rt_ctx.c     contexts (rt_ctx.h: what it and rt_misc.c share)
 *   rt_misc.c    the rest of CANN's API: data buffers, versions, errors,
 *                stream configs, memset, reduce, overflow, allocators
 *   rt_state.c   the device table, the thread's current device, errors
 *   rt_names.c   db names of data types and formats
 */
#ifndef NPUPROF_RT_INTERNAL_H
#define NPUPROF_RT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "acl/acl.h"
#include "acl/acl_npu_op.h"
#include "npuprof/hostfmt.h"
#include "driver/ascend_hal.h"
#include "driver/npusim_hal.h"
#include "npusim_sqe.h"

#define RT_LIKELY(x) __builtin_expect(!!(x), 1)
#define RT_UNLIKELY(x) __builtin_expect(!!(x), 0)

#define RT_STREAM_MAGIC 0x5354524dU /* "STRM" */
#define RT_EVENT_MAGIC 0x45564e54U /* "EVNT" */
#define RT_DEAD_MAGIC 0xdeadbeefU
#define RT_DRAIN_EVERY 128 /* receive CQEs after this many submits */

struct rt_stream {
	_Atomic uint32_t magic;
	int dev;
	uint32_t sid; /* npusim stream id (the SQE's stream id) */
	int is_default;
	uint32_t flags, priority, overflow; /* config, overflow switch (rt_misc.c) */
	struct rt_allocator *alloc; /* aclrtAllocatorRegister's (rt_misc.c), malloc'd */
	pthread_mutex_t lock; /* orders task ids and SQ writes */
	uint64_t seq; /* tasks submitted so far: task_id/batch_id */
	uint32_t since_drain;
	struct rt_stream *next; /* the device's stream list */
	struct rt_stream *free_next;
};

struct rt_event {
	_Atomic uint32_t magic;
	int dev;
	uint32_t id; /* npusim event id */
	struct rt_stream *rec_stream; /* last record */
	uint64_t rec_target; /* rec_stream's completed count once done */
	struct rt_event *free_next;
};

struct rt_device {
	int fd; /* -1: not open; else the device id, the HAL's handle */
	int refs; /* aclrtSetDevice references (one per thread) */
	uint32_t gen; /* bumped on every release */
	struct rt_stream *streams;
	struct rt_stream *dflt;
};

struct rt_global {
	pthread_mutex_t lock; /* devices, stream/event lists and free lists */
	int initialized;
	int ndev;
	struct rt_device dev[NPUSIM_MAX_DEVICES];
};
extern struct rt_global rt_g;

/* The calling thread's current device, -1 if none. */
extern __thread int rt_cur_dev;
/* The last error an ACL call of this thread returned (aclrtGetLastError). */
extern __thread aclError rt_last_err;

/* rt_state.c */
int rt_dev_fd(int dev);
/* An event or notify id of device dev from the driver, and back. */
drvError_t rt_id_alloc(int dev, drvIdType_t type, uint32_t *id);
drvError_t rt_id_free(int dev, drvIdType_t type, uint32_t id);
/* ACL_SUCCESS with *dev set, or the error for "no usable current device". */
aclError rt_current_dev(int *dev);
void rt_set_errmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* rt_stream.c */
/* Resolves a stream handle (NULL: the current device's default stream). */
aclError rt_stream_get(aclrtStream h, struct rt_stream **out);
aclError rt_stream_create_locked(int dev, int is_default, struct rt_stream **out);
void rt_stream_destroy_locked(struct rt_stream *s);
aclError rt_stream_destroy_api(aclrtStream stream, const char *api, int force);
aclError rt_stream_sync(struct rt_stream *s);

/* One SQE, npusim's model of it and what the profiler records about it.
 * The caller fills sqe's type, block_dim and payload (a copy: bytes, which
 * rt_submit writes into the SDMA / PCIE_DMA length), the model, and
 * type_name; rt_submit fills the header and the out fields. */
struct rt_task {
	struct npusim_sqe sqe;
	struct npusim_task_model model; /* the simulator's side channel */
	const char *type_name; /* runtime task type (TASK.taskType) */
	const char *kernel; /* kernel tasks: the op name (task track kernelName) */
	uint64_t bytes; /* copies: bytes moved */
	uint32_t memcpy_op; /* ENUM_MEMCPY_OPERATION, NPUPROF_ENUM_INVALID */
	uint32_t trace_tag;
	uint64_t index_id;
	uint64_t conn; /* connectionId override when has_conn */
	int has_conn;
	/* out */
	uint16_t task_id;
	uint32_t batch_id;
	uint64_t time_ns;
	uint64_t conn_out; /* the connectionId recorded */
};
void rt_task_init(struct rt_task *t, unsigned int sqe_type, const char *type_name);
aclError rt_submit(struct rt_stream *s, struct rt_task *t, int n);
aclError rt_event_id(aclrtEvent event, int dev, uint32_t *id);

/* ---- rt_prof.c: the reporting layer ------------------------------------
 * Everything the runtime tells the profiler goes through these functions.
 * While reporting is off nothing is built: callers test rtprof_on() (one
 * call, a load in the profiler) before they assemble a record. */

/* What a caller is about to report (each is switched on separately by
 * CANN's control plane, ascend-reference.md §11.4; today all follow the
 * recorder's collection). */
enum rtprof_data {
	RTPROF_ACL_API, /* acl-level API ranges (ACL profSwitch bit 0x1) */
	RTPROF_NODE, /* node `launch` ranges, op info (task time 0x800) */
	RTPROF_RUNTIME_API, /* runtime-level API ranges (0x100) */
	RTPROF_TASK_TRACK, /* one record per SQE (runtime trace 0x4000000) */
	RTPROF_HCCL, /* HCCL APIs, op and small-task info */
};
int rtprof_on(enum rtprof_data what);
/* The time base of every report (CANN: MsprofSysCycleTime). */
uint64_t rtprof_now(void);
/* A CLOCK_MONOTONIC time (a replay's, acl_npu_op.h) in rtprof_now's base. */
uint64_t rtprof_from_mono(uint64_t mono_ns);

/* Control plane. aclInit / aclFinalize (CANN registers ASCENDCL there;
 * the runtime lends the profiler its MarkEx device task and device count),
 * and every device the runtime opens or releases (CANN:
 * MsprofNotifySetDevice), called without rt_g.lock held. */
void rtprof_acl_init(int (*launch_trace)(void *stream, uint64_t index_id, uint32_t model_id,
					 uint32_t tag),
		     int (*device_count)(uint32_t *count));
void rtprof_acl_finalize(void);
void rtprof_set_device(int dev, int open);
/* HCCL's first communicator (CANN's HCCL registers itself then). */
void rtprof_hccl_init(void);

/* A scope is one API range; rt_api_begin costs one predictable branch
 * while profiling is off. */
struct rt_api {
	int on;
	uint32_t level;
	const char *name;
	uint64_t start;
	uint64_t conn;
	uint64_t item;
};
void rtprof_begin(struct rt_api *a, uint32_t level, const char *name, const char *item);
void rtprof_end(struct rt_api *a, aclError ret);
extern int rt_own_apis_off; /* aclnpuRecordOwnApis(0): a replay records the db's */
static inline enum rtprof_data rtprof_api_data(uint32_t level)
{
	switch (level) {
	case NPUPROF_API_NODE: return RTPROF_NODE;
	case NPUPROF_API_RUNTIME: return RTPROF_RUNTIME_API;
	case NPUPROF_API_HCCL: return RTPROF_HCCL;
	default: return RTPROF_ACL_API;
	}
}
static inline void rt_api_begin(struct rt_api *a, uint32_t level, const char *name,
				const char *item)
{
	a->on = 0;
	if (RT_UNLIKELY(rtprof_on(rtprof_api_data(level))) && !rt_own_apis_off)
		rtprof_begin(a, level, name, item);
}
static inline aclError rt_api_end(struct rt_api *a, aclError ret)
{
	if (RT_UNLIKELY(ret))
		rt_last_err = ret;
	if (RT_UNLIKELY(a->on))
		rtprof_end(a, ret);
	return ret;
}
/* The backend's writer of one API range (rt_prof_rec.c / rt_prof_cann.c):
 * item_id is rtprof_str(item) or NPUPROF_HREC_NO_STRING. */
void rtrep_api(uint32_t level, const char *name, uint64_t item_id, uint64_t start_ns,
	       uint64_t end_ns, uint64_t conn, aclError ret);
/* A replay's API range (rtprof_api_range) was reported under conn
 * (rt_prof_cann.c remembers where, to place the range's tasks in it). */
void rtrep_range(uint32_t level, uint64_t conn, uint64_t start_ns, uint64_t end_ns);
/* Where the backend reports task t (rt_submit, before any report of it):
 * may move t->time_ns (rt_prof_cann.c: a replayed task with an explicit
 * connectionId into its range). */
void rtprof_place(struct rt_task *t);
/* An API range with given times (a replay's: aclnpuRecordApi); its
 * connectionId in *conn, spent also while reporting is off. */
void rtprof_api_range(uint32_t level, const char *name, uint64_t start_ns, uint64_t end_ns,
		      uint64_t *conn);
/* connectionId a task submitted now inherits (node, else acl, else none). */
uint64_t rtprof_task_conn(void);
/* The string's id, registered with the Str2Id dictionary. NULL/"": NO_STRING. */
uint64_t rtprof_str(const char *s);
void rtprof_task_track(int dev, const struct rt_stream *s, const struct rt_task *t);
uint64_t rtprof_new_conn(void); /* the next connectionId */
/* The operator info of kernel task t (aclnpuLaunchOp): `ge_type` is its GE
 * task type when d names none. */
void rtprof_compute_op(const aclnpuOpDesc *d, const char *ge_type, int dev,
		       const struct rt_stream *s, const struct rt_task *t);
/* The HCCL op and task records (hccl.c, rt_replay.c): body holds every
 * field but the header and tid. */
void rtprof_hccl_op(const struct npuprof_hrec_hccl_op *body);
void rtprof_hccl_task(const struct npuprof_hrec_hccl_task *body);
/* HCCL: rank `rank` of `rank_size` of communicator `group` runs on
 * device `dev` (npuprof/rank.h). */
void rtprof_rank(int dev, uint32_t rank, uint32_t rank_size, const char *group);

/* rt_replay.c: the replay fields of a task (ACLNPU_REPLAY_*); 0 or an
 * aclError */
aclError rt_replay_task(struct rt_task *t, uint32_t flags, uint64_t start_ns, uint64_t conn);
void rt_replay_hccl_task(const struct rt_stream *s, const struct rt_task *t,
			 const struct aclnpuHcclTaskInfo *h, uint32_t context_id);

/* rt_mem.c */
int rt_is_dev_ptr(const void *p);

/* What the runtime lends the profiler (rt_stream.c, rt_core.c; handed to
 * rtprof_acl_init): the device task behind aclprofMarkEx and step markers
 * (also exported as CANN's rtProfilerTraceEx, which CANN's libprofapi
 * looks up by name), and the device count behind aclprofCreateConfig. */
int rt_hook_launch_trace(void *stream, uint64_t index_id, uint32_t model_id, uint32_t tag);
int rt_hook_device_count(uint32_t *count);
int32_t rtProfilerTraceEx(uint64_t id, uint64_t modelId, uint16_t tagId, void *stm);

#endif /* NPUPROF_RT_INTERNAL_H */
