/*
 * rt_prof.c - the runtime's reporting layer, its part that is the same
 * whatever the profiler is: API ranges and their nesting, connectionIds.
 * The rest of the layer is its backend, rt_prof_cann.c, which reports
 * through CANN's reporter ABI (libprofapi.so) and implements rt_prof.h's
 * rtprof_* functions and rtrep_api.
 *
 * Nothing here runs while profiling is off: every API checks rtprof_on()
 * once on entry (rt_api_begin) and rt_submit once per batch. Each thread
 * keeps the stack of its open API ranges so that a task can inherit the
 * connectionId of the innermost node-level range, else of the innermost
 * acl-level one (docs/ascend-reference.md §5.1).
 */
#include "rt_prof.h"

#define STACK_MAX 32

static _Atomic uint64_t g_next_conn;
int rt_own_apis_off;

/* A replay records the db's API ranges instead (rt_replay.c). */
aclError aclnpuRecordOwnApis(int on)
{
	rt_own_apis_off = !on;
	return ACL_SUCCESS;
}

static __thread struct {
	uint32_t level;
	uint64_t conn;
} t_stack[STACK_MAX];
static __thread int t_depth;

/* An API's connectionId and start, in one order: msprof numbers CANN's
 * APIs by their starts (so does the export, cannrec.c), so the runtime
 * hands its ids out in the order of strictly increasing starts, under one
 * lock. A start not after the last one is read again until the clock
 * passes it (two CPUs' clocks may be a little apart); only a clock that
 * does not move for 65536 reads gets the last start + 1, since a start
 * ahead of the thread's clock would put its own tasks before it. */
static pthread_mutex_t g_begin_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t g_last_start;

static uint64_t begin_stamp(uint64_t *conn)
{
	uint64_t t = rtprof_now();

	pthread_mutex_lock(&g_begin_lock);
	for (int i = 0; t <= g_last_start && i < 65536; i++)
		t = rtprof_now();
	if (t <= g_last_start)
		t = g_last_start + 1;
	g_last_start = t;
	*conn = rtprof_new_conn();
	pthread_mutex_unlock(&g_begin_lock);
	return t;
}

void rtprof_begin(struct rt_api *a, uint32_t level, const char *name, const char *item)
{
	a->on = 1;
	a->level = level;
	a->name = name;
	a->item = item ? rtprof_str(item) : NPUPROF_HOSTFMT_NO_STRING;
	a->start = begin_stamp(&a->conn);
	if (t_depth < STACK_MAX) {
		t_stack[t_depth].level = level;
		t_stack[t_depth].conn = a->conn;
	}
	t_depth++;
}

void rtprof_end(struct rt_api *a, aclError ret)
{
	uint64_t end = rtprof_now();

	if (t_depth > 0)
		t_depth--;
	rtrep_api(a->level, a->name, a->item, a->start, end, a->conn, ret);
}

void rtprof_api_range(uint32_t level, const char *name, uint64_t start_ns, uint64_t end_ns,
		      uint64_t *conn)
{
	*conn = rtprof_new_conn();
	if (rtprof_on(RTPROF_REPLAY_API)) {
		uint64_t len = end_ns - start_ns; /* >= 0: aclnpuRecordApi checks */

		start_ns = rtprof_from_mono(start_ns);
		end_ns = start_ns > UINT64_MAX - len ? UINT64_MAX : start_ns + len;
		rtrep_api(level, name, NPUPROF_HOSTFMT_NO_STRING, start_ns, end_ns, *conn,
			  ACL_SUCCESS);
		rtrep_range(level, *conn, start_ns, end_ns);
	}
}

uint64_t rtprof_new_conn(void)
{
	return atomic_fetch_add_explicit(&g_next_conn, 1, memory_order_relaxed);
}

uint64_t rtprof_task_conn(void)
{
	int top = t_depth < STACK_MAX ? t_depth : STACK_MAX;

	for (int i = top - 1; i >= 0; i--)
		if (t_stack[i].level == NPUPROF_API_NODE)
			return t_stack[i].conn;
	for (int i = top - 1; i >= 0; i--)
		if (t_stack[i].level == NPUPROF_API_ACL)
			return t_stack[i].conn;
	return NPUPROF_NO_CONNECTION;
}
