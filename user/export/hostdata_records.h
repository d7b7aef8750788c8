/*
 * hostdata_records.h — the compact forms in which user/export holds a
 * session's host records (struct hostdata and its arrays), the one
 * definition that hostdata.h's queries and the two engines behind them
 * (hostdata_engine.h) share. Internal to user/export.
 */
#ifndef NPUPROF_HOSTDATA_RECORDS_H
#define NPUPROF_HOSTDATA_RECORDS_H

#include <stdint.h>
#include <stdio.h>

#include "cannrec.h"
#include "npuprof/hostread.h"
#include "npuprof/rank.h"
#include "u64map.h"

#define HOSTDATA_END UINT32_MAX

/* The task key: (pid, device, stream, 16-bit task id). */
static inline uint64_t hostdata_task_key(uint32_t pid, uint32_t dev, uint32_t stream, uint32_t task)
{
	return ((uint64_t)(pid & 0x3fffff) << 42) | ((uint64_t)(dev & 0x3ff) << 32) |
	       ((uint64_t)(stream & 0xffff) << 16) | (task & 0xffff);
}

/*
 * The records every task has (API, task track, compute op) are held in
 * compact forms: only the fields the export and the tracker read, under
 * the names of the hostfmt.h records they come from (r.X is the record's
 * X), no record headers, and an op's twelve string ids once per distinct
 * set (hostdata_op_strings) instead of once per task.
 */
/* The string ids of an API call (struct npuprof_hostfmt_api's). */
struct hostdata_api_strings {
	uint64_t name_id, item_id;
};
struct hostdata_api {
	uint32_t pid;
	uint32_t strings; /* index into hostdata.apistr */
	struct {
		uint32_t level; /* enum npuprof_api_level */
		uint32_t tid;
		uint64_t start_ns, end_ns, connection_id;
	} r; /* of struct npuprof_hostfmt_api */
};
struct hostdata_track {
	uint32_t pid;
	struct {
		uint32_t tid, device_id, stream_id, batch_id, model_id, memcpy_op, trace_tag;
		uint16_t task_id;
		uint8_t sqe_type;
		uint64_t time_ns, connection_id, task_type_id, duration_ns, bytes, index_id;
	} r; /* of struct npuprof_hostfmt_task_track */
};
/* The string ids of a compute op (struct npuprof_hostfmt_compute_op's). */
struct hostdata_op_strings {
	uint64_t name_id, op_type_id, task_type_id, input_formats_id, input_dtypes_id,
		input_shapes_id, output_formats_id, output_dtypes_id, output_shapes_id, attr_id,
		op_state_id, hf32_id;
};
struct hostdata_compute {
	uint64_t key; /* hostdata_task_key() */
	struct {
		uint32_t batch_id, context_id, block_dim, mix_block_dim;
	} r; /* of struct npuprof_hostfmt_compute_op */
	uint32_t strings; /* index into hostdata.opstr */
};
struct hostdata_hccl_op {
	uint32_t pid;
	uint32_t op_id; /* COMMUNICATION_OP.opId, dense from 1 */
	int64_t dev_start, dev_end; /* unix ns of its tasks; -1: none seen */
	struct npuprof_hostfmt_hccl_op r;
};
struct hostdata_hccl_task {
	uint32_t pid;
	uint64_t key; /* hostdata_task_key() */
	struct npuprof_hostfmt_hccl_task r;
};
struct hostdata_tx {
	uint32_t pid;
	struct npuprof_hostfmt_tx r; /* message below; from a TX record or a
                                     compact one (npuprof_hostread_tx_event) */
	char *message;
	uint64_t msg_id; /* the message's HASH id, or NO_STRING: inline */
};

struct hostdata_step {
	uint32_t pid;
	struct npuprof_hostfmt_step r;
};

/* Framework records (npuprof.torch), whole, with their process. */
struct hostdata_fwk_op {
	uint32_t pid;
	struct npuprof_hostfmt_fwk_op r;
};
struct hostdata_fwk_mem {
	uint32_t pid;
	struct npuprof_hostfmt_fwk_mem r;
};
struct hostdata_fwk_gc {
	uint32_t pid;
	struct npuprof_hostfmt_fwk_gc r;
};

struct hostdata_rank {
	uint32_t pid;
	struct npuprof_rank_info r;
};

struct hostdata_engine; /* how the per-task records are held (hostdata_engine.h) */

/*
 * What both readers hold whole: every record that is not per task, the
 * strings, the API calls when kept, the counts. The per-task records (task
 * tracks, compute ops, HCCL tasks) are the engine's: loaded whole by
 * hostdata_load (struct hostdata_whole, hostdata_load.c) or merged as they come
 * by hostdata_open (hostdata_stream.c).
 */
struct hostdata {
	const struct hostdata_engine *eng;
	void *eng_state; /* struct hostdata_whole or the merge's state */
	FILE *warn;
	struct hostdata_api *api; /* hostdata_load, or hostdata_open with HOSTDATA_KEEP_API */
	size_t napi;
	struct hostdata_op_strings *opstr; /* the distinct string sets of compute ops */
	size_t nopstr;
	struct u64map opstr_at; /* hash of a set -> its index */
	struct hostdata_api_strings *apistr; /* the distinct string pairs of api */
	size_t napistr;
	struct u64map apistr_at;
	struct hostdata_hccl_op *hop; /* sorted by (pid, op_seq) */
	size_t nhop;
	struct hostdata_tx *tx;
	size_t ntx;
	struct hostdata_step *step; /* aclprofGetStepTimestamp, in file order */
	size_t nstep;
	struct hostdata_fwk_op *fop; /* framework records, in file order */
	size_t nfop;
	struct hostdata_fwk_mem *fmem;
	size_t nfmem;
	struct hostdata_fwk_gc *fgc;
	size_t nfgc;
	struct hostdata_rank *rank; /* NPUPROF_HOSTFMT_RANK records, in file order per pid */
	size_t nrank;
	struct u64map strings; /* hash id -> index into strv */
	char **strv;
	size_t nstr, capstr;
	uint32_t pids[256];
	int npids;
	uint64_t lost; /* records lost by the recorders */
	/* CANN reports (cannrec.h): the export's connectionIds for their APIs
	 * continue after every runtime-written one loaded before; their HCCL
	 * op_seq values are apart from the runtime's */
	uint64_t cann_next_conn, cann_next_op;
	struct cann_stats cann; /* summed over the streams */
	uint64_t refused[6]; /* reports libprofapi.so refused (MSPROF_BAD), by
                                the record's fields, summed */
	uint64_t damaged_files; /* damaged or unreadable */
	uint64_t unreadable_files; /* of which nothing could be read */
	uint64_t files;
	uint64_t read_ns; /* CPU time in the merge's reads (the export's breakdown) */
};

#endif
