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
 * Layout, each file using only those below it (tests/layering_test.sh):
 *   rt_ctx.c     contexts
 *   rt_misc.c    the rest of CANN's API: data buffers, versions, errors,
 *                stream configs, memset, reduce, overflow, allocators
 *   hccl.c       communicators and collectives
 *   rt_model.c   model run instances (aclmdlRI*): build, capture, execute
 *   rt_op.c      aclnpuLaunchOp: kernel tasks with their operator info
 *   rt_scope.c   aclnpuScopeBegin/End: an acl-level range held open
 *   rt_mem.c     device memory (host memory in the simulation), copies,
 *                peer access
 *   rt_core.c    aclInit/aclFinalize, devices
 *   rt_replay.c  what replays need (timed tasks, the db's API ranges)
 *   rt_stream.c  streams, the submit path (task ids), synchronisation,
 *                events
 *   rt_prof.c    the reporting layer (rt_prof.h, the only header above
 *                this one): API ranges, connectionIds; its backend
 *                rt_prof_cann.c the switch, the clock, string ids and
 *                every record (CANN's reporter ABI)
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
#define RT_MODEL_MAGIC 0x4d4f444cU /* "MODL" */
#define RT_GRP_MAGIC 0x54475250U /* "TGRP" */
#define RT_LABEL_MAGIC 0x4c41424cU /* "LABL" */
#define RT_LLIST_MAGIC 0x4c4c5354U /* "LLST" */
#define RT_DEAD_MAGIC 0xdeadbeefU
#define RT_DRAIN_EVERY 128 /* receive reports after this many submits */
/* A stream's logic CQ, as the 910B runtime allocates it
 * (hicann/runtime src/runtime/driver/npu_driver_res.cc LogicCqAllocateV2):
 * reports of sizeof(rtCqReport_t) bytes, CQE_DEPTH_NON_DVPP_GRP of them
 * (device_properties.h 126); a receive takes RT_MILAN_MAX_QUERY_CQE_NUM
 * (base_info.hpp 175) at most, for any task of its stream (MAX_UINT16_NUM). */
#define RT_LOGIC_CQE_SIZE 32
#define RT_LOGIC_CQ_DEPTH 4096
#define RT_LOGIC_RECV_MAX 32
#define RT_LOGIC_ANY_TASK 0xffffU

struct rt_stream {
	_Atomic uint32_t magic;
	int dev;
	uint32_t sid; /* npusim stream id (the SQE's stream id) */
	uint32_t lcq; /* its logic CQ, where its reports come */
	int is_default;
	uint32_t flags, priority, overflow; /* config, overflow switch (rt_misc.c) */
	struct rt_allocator *alloc; /* aclrtAllocatorRegister's (rt_misc.c), malloc'd */
	pthread_mutex_t lock; /* orders task ids and SQ writes */
	uint64_t seq; /* tasks submitted so far: task_id/batch_id */
	uint32_t since_drain;
	/* Model run instances (rt_model.c): while model is set, rt_submit
	 * records the stream's tasks there instead of sending them; the
	 * stream is being captured (capturing, by capture_tid in
	 * capture_mode; invalidated by a forbidden call) or is bound. */
	struct rt_model *model;
	int capturing, capture_mode, invalidated, bound_head, ended;
	pthread_t capture_tid;
	/* a task group being captured (aclmdlRICaptureTaskGrpBegin): from
	 * task grp_first of model on */
	int grp_open;
	size_t grp_first;
	/* a task group being updated on this stream (TaskUpdateBegin ..
	 * End): rt_submit collects the stream's tasks in upd[] instead */
	struct rt_task_grp *update;
	struct rt_task *upd;
	size_t nupd, capupd;
	struct rt_stream *next; /* the device's stream list */
	struct rt_stream *free_next;
};

/* The shared name of an IPC event (halShrIdCreate's) and the handle that
 * carries it to another process (aclrtIpcEventHandle's bytes, rt_stream.c). */
#define RT_IPC_NAME_LEN 40
struct rt_ipc_handle {
	char magic[8]; /* RT_IPC_MAGIC */
	uint32_t version; /* RT_IPC_VERSION */
	uint32_t dev; /* the device the event id is of */
	uint32_t id; /* its event id there */
	int32_t pid; /* the process that made the handle */
	char name[RT_IPC_NAME_LEN]; /* the driver's shared name: id and generation */
};
#define RT_IPC_MAGIC "npuIPCev"
#define RT_IPC_VERSION 1U

struct rt_event {
	_Atomic uint32_t magic;
	int dev; /* the device its id is of */
	uint32_t id; /* npusim event id */
	uint32_t flags; /* ACL_EVENT_* it was created with */
	int opened; /* an IPC event of another process (aclrtIpcOpenEventHandle) */
	char shr_name[RT_IPC_NAME_LEN]; /* shared (IPC) or opened: its name */
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
	/* opened by thread `announcer`, which is still announcing it to the
	 * profiler (rtprof_set_device, outside the lock): another thread
	 * setting the device waits for rt_g.announced (rt_core.c) */
	int announcing;
	pthread_t announcer;
};

struct rt_global {
	pthread_mutex_t lock; /* devices, stream/event lists and free lists */
	pthread_cond_t announced; /* a device's announcement ended */
	int initialized;
	int ndev;
	struct rt_device dev[NPUSIM_MAX_DEVICES];
};
extern struct rt_global rt_g;

/* A model run instance (aclmdlRI, rt_model.c): the tasks recorded into
 * it, in order, each with the stream it was launched on (an index of
 * stream[]); rt_submit appends them under lock. */
#define RT_MODEL_STREAMS 64 /* streams bound to one model */
struct rt_model {
	_Atomic uint32_t magic;
	uint32_t id;
	int dev;
	int built; /* BuildEnd or CaptureEnd: complete, no more tasks */
	int captured; /* made by a capture (its one stream is gone from it) */
	pthread_mutex_t lock; /* task[], stream[] */
	struct rt_task *task;
	uint8_t *task_stream; /* task i came from stream[task_stream[i]] */
	size_t ntask, cap;
	struct rt_stream *stream[RT_MODEL_STREAMS]; /* bound (or captured) */
	uint32_t stream_sid[RT_MODEL_STREAMS]; /* their ids, kept after unbind */
	int stream_head[RT_MODEL_STREAMS];
	int nstream;
	char name[128];
	struct rt_task_grp *grps; /* its task groups */
	struct rt_model *free_next;
};

/* A task group of a captured model (aclrtTaskGrp): tasks first .. first +
 * n - 1 of model m. Kept on a free list when its model goes. */
struct rt_task_grp {
	_Atomic uint32_t magic;
	struct rt_model *m;
	size_t first, n;
	/* the last execution that sent the group: its first task was task
	 * exec_seq of stream exec (an update redoes the host shares of its new
	 * tasks while the device has not run that task) */
	struct rt_stream *exec;
	uint64_t exec_seq;
	struct rt_task_grp *next; /* the model's groups, then the free list */
};

/* A label (aclrtLabel): put on a model's stream by a LABEL_SET task that
 * names it; a list (aclrtLabelList) holds copies of label handles. */
struct rt_label {
	_Atomic uint32_t magic;
	struct rt_model *m; /* the model it is set in, NULL: none yet */
	struct rt_label *free_next; /* destroyed, on rt_model.c's free list */
};
struct rt_label_list {
	_Atomic uint32_t magic;
	size_t n;
	struct rt_label **l;
	struct rt_label_list *free_next; /* destroyed, on the free list */
};

/* The calling thread's current device, -1 if none. */
extern __thread int rt_cur_dev;
/* The last error an ACL call of this thread returned (aclrtGetLastError). */
extern __thread aclError rt_last_err;

/* Records ret as the thread's last error if it is one; returns it. */
static inline aclError rt_fail(aclError ret)
{
	if (ret)
		rt_last_err = ret;
	return ret;
}

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
/* Set by rt_value.c once it has memory operations pending: what a
 * stream's synchronisation (gone 0; s NULL: an event's) and destruction
 * (gone 1, its tasks run) owe them, called after the device's wait. */
extern void (*rt_stream_value_hook)(struct rt_stream *s, int gone);

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
	/* The host's share of the task (a copy moves its bytes), done when the
	 * task is sent: at each execution of a model it was recorded into. */
	void (*host)(const struct rt_task *t);
	void *host_dst;
	const void *host_src;
	int32_t host_val;
	/* An operator's results (aclnpuOpDesc.hostCompute), computed when the
	 * task is sent; a model keeps its own copy of the host_arg_size bytes
	 * at host_arg (freed with the model's task). */
	void (*host_call)(const void *arg);
	void *host_arg;
	size_t host_arg_size;
	/* Control: an EVENT_RECORD's event (its last record is updated when
	 * the task is sent), a LABEL_SET's label, a label switch's list and
	 * the device memory of its index */
	struct rt_event *event;
	struct rt_label *label;
	struct rt_label_list *labels;
	const uint32_t *switch_index;
	/* out */
	uint16_t task_id;
	uint32_t batch_id;
	uint64_t time_ns;
	uint64_t conn_out; /* the connectionId recorded */
};
void rt_task_init(struct rt_task *t, unsigned int sqe_type, const char *type_name);
/* A submitted task's sequence number on its stream (rt_stream.seq before it
 * was sent): the ids rt_submit gave it, put back together. */
static inline uint64_t rt_task_seq(const struct rt_task *t)
{
	return (uint64_t)t->batch_id << 16 | t->task_id;
}
aclError rt_submit(struct rt_stream *s, struct rt_task *t, int n);
/* Appends n tasks at t to *arr (*len of them, room for *cap), copying the
 * host_arg of each: 0 or ACL_ERROR_RT_MEMORY_ALLOCATION (nothing added). */
aclError rt_task_append(struct rt_task **arr, size_t *len, size_t *cap, const struct rt_task *t,
			int n);
/* Frees the host_arg copies of n tasks at t (rt_task_append's). */
void rt_task_release(struct rt_task *t, size_t n);
aclError rt_event_id(aclrtEvent event, int dev, uint32_t *id);
/* aclrtCreateEvent with the flags of aclrtCreateEvent*WithFlag (api names
 * the call in its API range) */
aclError rt_event_create(aclrtEvent *event, uint32_t flags, const char *api);
/* An unsafe call (a synchronous copy or set) while a capture forbids it to
 * this thread (acl_rt.h): ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, naming
 * api, and the captures that forbid it are invalidated; else 0. */
aclError rt_capture_unsafe(const char *api);
/* A call a capturing stream cannot take (api names it): 0, or
 * ACL_ERROR_RT_STREAM_CAPTURED. */
aclError rt_capture_refuse(const struct rt_stream *s, const char *api);
/* Captures going on (rt_model.c counts them, rt_capture_unsafe reads):
 * GLOBAL ones in the process, non-RELAXED ones begun by this thread, and
 * this thread's capture mode. */
extern _Atomic int rt_captures_global;
extern __thread int rt_captures_own;
extern __thread int rt_capture_mode;

/* rt_replay.c: the replay fields of a task (ACLNPU_REPLAY_*); 0 or an
 * aclError */
aclError rt_replay_task(struct rt_task *t, uint32_t flags, uint64_t start_ns, uint64_t conn);
void rt_replay_hccl_task(const struct rt_stream *s, const struct rt_task *t,
			 const struct aclnpuHcclTaskInfo *h, uint32_t context_id);

/* rt_mem.c */
int rt_is_dev_ptr(const void *p);
/* The device of device memory p (aclrtMalloc), -1 for any other; *size
 * its allocated size. */
int rt_mem_dev(const void *p, size_t *size);

/* rt_core.c: one reference on device dev (opening it, with its default
 * stream, if it is closed), not tied to the calling thread; *gen is the
 * device's generation, for rt_dev_unref. */
aclError rt_dev_ref(int dev, uint32_t *gen);
/* Drops a reference of rt_dev_ref; the last one releases the device.
 * Nothing if the device was released since (gen differs). */
void rt_dev_unref(int dev, uint32_t gen);

/* rt_state.c: the calling thread's current context made by
 * aclrtCreateContext (rt_ctx.c); NULL: the implicit one of its current
 * device (aclrtSetDevice sets it so). */
struct rt_ctx;
extern __thread struct rt_ctx *rt_cur_ctx;

/* rt_misc.c: CANN's version number of a version string ("8.0.RC1" is not
 * one: X.Y.Z[-]{alpha,beta,rc}N); 0, or -1 if s is not one. */
int rt_version_num(const char *s, int32_t *num);

/* rt_tdt.c: *end = the CLOCK_REALTIME time timeout ms from now (now if
 * timeout <= 0), the end of a tdt channel's or queue's timed wait. */
struct timespec;
void rt_tdt_deadline(struct timespec *end, int32_t timeout);

#endif /* NPUPROF_RT_INTERNAL_H */
