/*
 * rt_prof.c - the runtime's instrumentation: API ranges with connectionIds,
 * task-track records and string ids (record layouts and rules: the
 * "Runtime records" section of npuprof/hostfmt.h).
 *
 * Nothing here runs while profiling is off: every API checks
 * npuprof_hostrec_active() once on entry (rt_api_begin) and rt_submit once
 * per batch. Each thread keeps the stack of its open API ranges so that a
 * task can inherit the connectionId of the innermost node-level range, else
 * of the innermost acl-level one (ascend-reference.md §5.1).
 */
#include <string.h>

#include "acl/acl_prof.h"
#include "rt_internal.h"

#define STACK_MAX 32
#define STR_CACHE 1024 /* ids this thread registered already (direct-mapped) */

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
static __thread uint64_t t_str_seen[STR_CACHE];

uint64_t rtprof_str(const char *s)
{
	size_t len;
	uint64_t id;
	unsigned slot;

	if (!s || !*s)
		return NPUPROF_HREC_NO_STRING;
	len = strlen(s);
	id = npuprof_str2id_hash(s, len);
	slot = (unsigned)(id ^ (id >> 32)) & (STR_CACHE - 1);
	if (t_str_seen[slot] != id) {
		/* The dictionary writes the HASH record once per stream and again
         * at every collection start, so one registration is enough. */
		aclprofStr2Id(s);
		t_str_seen[slot] = id;
	}
	return id;
}

void rtprof_begin(struct rt_api *a, uint32_t level, const char *name, const char *item)
{
	a->on = 1;
	a->level = level;
	a->name = name;
	a->item = item ? rtprof_str(item) : NPUPROF_HREC_NO_STRING;
	a->conn = rtprof_new_conn();
	a->start = npuprof_hostrec_now();
	if (t_depth < STACK_MAX) {
		t_stack[t_depth].level = level;
		t_stack[t_depth].conn = a->conn;
	}
	t_depth++;
}

void rtprof_end(struct rt_api *a, aclError ret)
{
	uint64_t end = npuprof_hostrec_now();
	uint64_t name_id = rtprof_str(a->name); /* before reserve: it may record */
	struct npuprof_hrec_api *r;

	if (t_depth > 0)
		t_depth--;
	r = npuprof_hostrec_reserve(NPUPROF_HREC_API, sizeof(*r));
	if (!r)
		return;
	r->level = a->level;
	r->tid = npuprof_hostrec_tid();
	r->start_ns = a->start;
	r->end_ns = end;
	r->connection_id = a->conn;
	r->name_id = name_id;
	r->item_id = a->item;
	r->device_id = rt_cur_dev >= 0 ? (uint32_t)rt_cur_dev : UINT32_MAX;
	r->result = ret;
	npuprof_hostrec_commit(r);
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

/* The one writer of each HCCL record: `body` holds every field after the
 * header but tid; the record gets the calling thread's tid. */
static void *copy_body(uint16_t kind, const void *body, uint32_t size)
{
	struct npuprof_hrec_header *r = npuprof_hostrec_reserve(kind, size);

	if (r)
		memcpy(r + 1, (const struct npuprof_hrec_header *)body + 1, size - sizeof(*r));
	return r;
}

void rtprof_hccl_op(const struct npuprof_hrec_hccl_op *body)
{
	struct npuprof_hrec_hccl_op *r = copy_body(NPUPROF_HREC_HCCL_OP, body, sizeof(*r));

	if (r) {
		r->tid = npuprof_hostrec_tid();
		npuprof_hostrec_commit(r);
	}
}

void rtprof_hccl_task(const struct npuprof_hrec_hccl_task *body)
{
	struct npuprof_hrec_hccl_task *r = copy_body(NPUPROF_HREC_HCCL_TASK, body, sizeof(*r));

	if (r) {
		r->tid = npuprof_hostrec_tid();
		npuprof_hostrec_commit(r);
	}
}

void rtprof_task_track(int dev, const struct rt_stream *s, const struct rt_task *t)
{
	uint64_t type_id = rtprof_str(t->type_name);
	struct npuprof_hrec_task_track *r = npuprof_hostrec_reserve(NPUPROF_HREC_TASK_TRACK,
								    sizeof(*r));

	if (!r)
		return;
	r->tid = npuprof_hostrec_tid();
	r->device_id = (uint32_t)dev;
	r->time_ns = t->time_ns;
	r->connection_id = t->conn_out;
	r->task_type_id = type_id;
	r->stream_id = s->sid;
	r->task_id = t->task_id;
	r->sqe_type = t->sqe.type & NPUSIM_SQE_TYPE_MASK;
	r->reserved0 = 0;
	r->batch_id = t->batch_id;
	r->model_id = NPUPROF_NO_ID32;
	r->duration_ns = t->sqe.duration_ns;
	r->bytes = t->bytes;
	r->memcpy_op = t->memcpy_op;
	r->trace_tag = t->trace_tag;
	r->index_id = t->index_id;
	npuprof_hostrec_commit(r);
}
