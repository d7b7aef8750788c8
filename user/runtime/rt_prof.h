/*
 * rt_prof.h - the runtime's reporting layer (rt_prof.c and its backend,
 * rt_prof_cann.c): everything the runtime tells the
 * profiler goes through these functions. The files that report include
 * it; rt_internal.h, below it, knows nothing of it.
 */
#ifndef NPUPROF_RT_PROF_H
#define NPUPROF_RT_PROF_H

#include "rt_internal.h"

/* While reporting is off nothing is built: callers test rtprof_on() (one
 * call, a load in the profiler) before they assemble a record. */

/* What a caller is about to report (each is switched on separately by
 * CANN's control plane, docs/ascend-reference.md §11.4; today all follow the
 * recorder's collection). */
enum rtprof_data {
	RTPROF_ACL_API, /* acl-level API ranges (ACL profSwitch bit 0x1) */
	RTPROF_NODE, /* node `launch` ranges, op info (task time 0x800) */
	RTPROF_RUNTIME_API, /* runtime-level API ranges (0x100) */
	RTPROF_TASK_TRACK, /* one record per SQE (runtime trace 0x4000000) */
	RTPROF_HCCL, /* HCCL APIs, op and small-task info */
	RTPROF_REPLAY_API, /* a replay's recorded API ranges (aclnpuRecordApi):
			    * the recorded db's levels carry over, so they
			    * follow the task tracks they link, not their
			    * level's switch */
};
int rtprof_on(enum rtprof_data what);
/* The time base of every report (CANN: MsprofSysCycleTime). */
uint64_t rtprof_now(void);
/* A CLOCK_MONOTONIC time (a replay's, acl_npu_op.h) in rtprof_now's base. */
uint64_t rtprof_from_mono(uint64_t mono_ns);

/* Control plane. aclInit / aclFinalize (CANN registers ASCENDCL there),
 * and every device the runtime opens or releases (CANN:
 * MsprofNotifySetDevice), called without rt_g.lock held. */
void rtprof_acl_init(void);
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
/* The backend's writer of one API range (rt_prof_cann.c):
 * item_id is rtprof_str(item) or NPUPROF_HOSTFMT_NO_STRING. */
void rtrep_api(uint32_t level, const char *name, uint64_t item_id, uint64_t start_ns,
	       uint64_t end_ns, uint64_t conn, aclError ret);
/* A replay's API range (rtprof_api_range) was reported under conn
 * (rt_prof_cann.c remembers where, to place the range's tasks in it). */
void rtrep_range(uint32_t level, uint64_t conn, uint64_t start_ns, uint64_t end_ns);
/* Where the backend reports task t (rt_submit, before any report of it):
 * may move t->time_ns (rt_prof_cann.c: a replayed task with an explicit
 * connectionId into its range). */
void rtprof_place(struct rt_task *t);
/* Before tasks t[0..n) are sent (rt_submit, t->time_ns not yet set): may
 * wait (rt_prof_cann.c: until the range of a replayed task with an explicit
 * connectionId has begun, so that its track, placed in the range, is not
 * after the device saw the task; never past a timed task's start). */
void rtprof_before_submit(const struct rt_task *t, int n);
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
void rtprof_hccl_op(const struct npuprof_hostfmt_hccl_op *body);
void rtprof_hccl_task(const struct npuprof_hostfmt_hccl_task *body);
/* HCCL: rank `rank` of `rank_size` of communicator `group` runs on
 * device `dev` (npuprof/rank.h). */
void rtprof_rank(int dev, uint32_t rank, uint32_t rank_size, const char *group);

#endif /* NPUPROF_RT_PROF_H */
