/*
 * rt_prof_rec.c - the reporting layer's backend for libmsprofiler.so's host
 * recorder (hostrec.h): every report becomes one host record
 * (layouts and rules: the "Runtime records" section of npuprof/hostfmt.h).
 */
#include <stdio.h>
#include <string.h>

#include "acl/acl_prof.h"
#include "hostrec.h"
#include "rt_prof.h"

#define STR_CACHE 1024 /* ids this thread registered already (direct-mapped) */

int rtprof_on(enum rtprof_data what)
{
	(void)what; /* the recorder collects everything while it runs */
	return npuprof_hostrec_active();
}

uint64_t rtprof_now(void)
{
	return npuprof_hostrec_now();
}

uint64_t rtprof_from_mono(uint64_t mono_ns)
{
	return mono_ns; /* the recorder's time base */
}

void rtprof_acl_init(void)
{
	/* The recorder needs no registration: it records while its collection
	 * runs, and finds rtProfilerTraceEx by name. */
}

void rtprof_acl_finalize(void)
{
}

void rtprof_set_device(int dev, int open)
{
	/* The recorder needs no announcement: its collection covers every
	 * device (CANN's profiler starts a device only once announced). */
	(void)dev;
	(void)open;
}

void rtrep_range(uint32_t level, uint64_t conn, uint64_t start_ns, uint64_t end_ns)
{
	/* the records carry the connectionIds themselves */
}

void rtprof_place(struct rt_task *t)
{
	/* a task is recorded at its submit time, with its connectionId */
}

void rtprof_before_submit(const struct rt_task *t, int n)
{
	(void)t; /* tasks carry their connectionIds: no wait */
	(void)n;
}

void rtprof_hccl_init(void)
{
	/* the recorder needs no registration */
}

static __thread uint64_t t_str_seen[STR_CACHE];

uint64_t rtprof_str(const char *s)
{
	size_t len;
	uint64_t id;
	unsigned slot;

	if (!s || !*s)
		return NPUPROF_HOSTFMT_NO_STRING;
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

void rtrep_api(uint32_t level, const char *name, uint64_t item_id, uint64_t start_ns,
	       uint64_t end_ns, uint64_t conn, aclError ret)
{
	uint64_t name_id = rtprof_str(name); /* before reserve: it may record */
	struct npuprof_hostfmt_api *r = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_API, sizeof(*r));

	if (!r)
		return; /* counted as lost by the recorder */
	r->level = level;
	r->tid = npuprof_hostrec_tid();
	r->start_ns = start_ns;
	r->end_ns = end_ns;
	r->connection_id = conn;
	r->name_id = name_id;
	r->item_id = item_id;
	r->device_id = rt_cur_dev >= 0 ? (uint32_t)rt_cur_dev : UINT32_MAX;
	r->result = ret;
	npuprof_hostrec_commit(r);
}

/* The one writer of each HCCL record: `body` holds every field after the
 * header but tid; the record gets the calling thread's tid. */
static void *copy_body(uint16_t kind, const void *body, uint32_t size)
{
	struct npuprof_hostfmt_header *r = npuprof_hostrec_reserve(kind, size);

	if (r)
		memcpy(r + 1, (const struct npuprof_hostfmt_header *)body + 1, size - sizeof(*r));
	return r;
}

void rtprof_hccl_op(const struct npuprof_hostfmt_hccl_op *body)
{
	struct npuprof_hostfmt_hccl_op *r = copy_body(NPUPROF_HOSTFMT_HCCL_OP, body, sizeof(*r));

	if (r) {
		r->tid = npuprof_hostrec_tid();
		npuprof_hostrec_commit(r);
	}
}

void rtprof_hccl_task(const struct npuprof_hostfmt_hccl_task *body)
{
	struct npuprof_hostfmt_hccl_task *r = copy_body(NPUPROF_HOSTFMT_HCCL_TASK, body,
							sizeof(*r));

	if (r) {
		r->tid = npuprof_hostrec_tid();
		npuprof_hostrec_commit(r);
	}
}

void rtprof_task_track(int dev, const struct rt_stream *s, const struct rt_task *t)
{
	uint64_t type_id = rtprof_str(t->type_name);
	struct npuprof_hostfmt_task_track *r = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_TASK_TRACK,
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
	r->duration_ns = t->model.duration_ns;
	r->bytes = t->bytes;
	r->memcpy_op = t->memcpy_op;
	r->trace_tag = t->trace_tag;
	r->index_id = t->index_id;
	npuprof_hostrec_commit(r);
}

void rtprof_rank(int dev, uint32_t rank, uint32_t rank_size, const char *group)
{
	npuprof_hostrec_set_rank((uint32_t)dev, (int32_t)rank, rank_size, rtprof_str(group));
}

/* ---- operator info ------------------------------------------------------- */

/* Appends to buf (bounded); returns the new length. */
static size_t put(char *buf, size_t cap, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (len + n + 1 > cap)
		n = len + 1 < cap ? cap - len - 1 : 0;
	memcpy(buf + len, s, n);
	buf[len + n] = '\0';
	return len + n;
}

enum {
	F_FORMAT,
	F_DTYPE,
	F_SHAPE
};

/* One db string of a tensor list (§1.5): formats and dtypes joined by ';',
 * shapes as "d,d;d" inside literal double quotes. */
static void tensor_string(char *buf, size_t cap, const aclnpuTensorDesc *t, uint32_t n, int what)
{
	size_t len = 0;

	buf[0] = '\0';
	if (what == F_SHAPE)
		len = put(buf, cap, len, "\"");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			len = put(buf, cap, len, ";");
		if (what == F_FORMAT) {
			len = put(buf, cap, len, aclnpuFormatName(t[i].format));
		} else if (what == F_DTYPE) {
			len = put(buf, cap, len, aclnpuDataTypeName(t[i].dataType));
		} else {
			for (uint32_t d = 0; d < t[i].numDims && d < ACLNPU_MAX_DIMS; d++) {
				char num[24];

				snprintf(num, sizeof(num), d ? ",%lld" : "%lld",
					 (long long)t[i].dims[d]);
				len = put(buf, cap, len, num);
			}
		}
	}
	if (what == F_SHAPE)
		put(buf, cap, len, "\"");
}

static uint64_t tensor_id(const char *given, const aclnpuTensorDesc *t, uint32_t n, int what)
{
	char buf[1024];

	if (given)
		return rtprof_str(given);
	if (!n)
		return rtprof_str("N/A");
	tensor_string(buf, sizeof(buf), t, n, what);
	return rtprof_str(buf);
}

void rtprof_compute_op(const aclnpuOpDesc *d, const char *ge_type, int dev,
		       const struct rt_stream *s, const struct rt_task *t)
{
	struct npuprof_hostfmt_compute_op *r;
	/* ids first: registering a new string may itself record */
	uint64_t ids[13] = {
		rtprof_str(d->opName),
		rtprof_str(d->opType),
		rtprof_str(d->geTaskType ? d->geTaskType : ge_type),
		tensor_id(d->inputFormats, d->inputs, d->numInputs, F_FORMAT),
		tensor_id(d->inputDataTypes, d->inputs, d->numInputs, F_DTYPE),
		tensor_id(d->inputShapes, d->inputs, d->numInputs, F_SHAPE),
		tensor_id(d->outputFormats, d->outputs, d->numOutputs, F_FORMAT),
		tensor_id(d->outputDataTypes, d->outputs, d->numOutputs, F_DTYPE),
		tensor_id(d->outputShapes, d->outputs, d->numOutputs, F_SHAPE),
		rtprof_str(d->attrInfo ? d->attrInfo : "N/A"),
	};

	r = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_COMPUTE_OP, sizeof(*r));
	if (!r)
		return;
	r->tid = npuprof_hostrec_tid();
	r->device_id = (uint32_t)dev;
	r->time_ns = t->time_ns;
	r->connection_id = t->conn_out;
	r->stream_id = s->sid;
	r->task_id = t->task_id;
	r->reserved0 = 0;
	r->batch_id = t->batch_id;
	r->context_id = d->size >= sizeof(aclnpuOpDesc) &&
					(d->replayFlags & ACLNPU_REPLAY_CONTEXT) ?
				d->contextId :
				NPUPROF_NO_ID32;
	r->name_id = ids[0];
	r->op_type_id = ids[1];
	r->task_type_id = ids[2];
	r->input_formats_id = ids[3];
	r->input_dtypes_id = ids[4];
	r->input_shapes_id = ids[5];
	r->output_formats_id = ids[6];
	r->output_dtypes_id = ids[7];
	r->output_shapes_id = ids[8];
	r->attr_id = ids[9];
	r->op_state_id = NPUPROF_HOSTFMT_NO_STRING;
	r->hf32_id = NPUPROF_HOSTFMT_NO_STRING;
	r->block_dim = d->blockDim;
	r->mix_block_dim = d->mixBlockDim;
	r->op_flag = d->opFlag;
	r->input_count = (uint16_t)d->numInputs;
	r->output_count = (uint16_t)d->numOutputs;
	r->duration_ns = d->durationNs;
	npuprof_hostrec_commit(r);
}
