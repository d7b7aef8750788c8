/*
 * hostdata.h — the host side of a session, read for export: every host
 * raw stream of the session directory decoded, the records that are not per
 * task into sorted arrays, the per-task ones held by one of two engines
 * (whole: hostdata_load; merged as they come: hostdata_open) behind the same
 * queries. Strings stay as aclprofStr2Id hash ids until hostdata_str()
 * resolves them.
 */
#ifndef NPUPROF_HOSTDATA_H
#define NPUPROF_HOSTDATA_H

#include <stdint.h>
#include <stdio.h>

#include "cannrec.h"
#include "npuprof/hostread.h"
#include "npuprof/rank.h"
#include "u64map.h"

#define HD_END UINT32_MAX

/* The task key: (pid, device, stream, 16-bit task id). */
static inline uint64_t hd_task_key(uint32_t pid, uint32_t dev, uint32_t stream, uint32_t task)
{
	return ((uint64_t)(pid & 0x3fffff) << 42) | ((uint64_t)(dev & 0x3ff) << 32) |
	       ((uint64_t)(stream & 0xffff) << 16) | (task & 0xffff);
}

/*
 * The records every task has (API, task track, compute op) are held in
 * compact forms: only the fields the export and the tracker read, under
 * the names of the hostfmt.h records they come from (r.X is the record's
 * X), no record headers, and an op's twelve string ids once per distinct
 * set (hd_op_strings) instead of once per task.
 */
/* The string ids of an API call (struct npuprof_hrec_api's). */
struct hd_api_strings {
	uint64_t name_id, item_id;
};
struct hd_api {
	uint32_t pid;
	uint32_t strings; /* index into hostdata.apistr */
	struct {
		uint32_t level; /* enum npuprof_api_level */
		uint32_t tid;
		uint64_t start_ns, end_ns, connection_id;
	} r; /* of struct npuprof_hrec_api */
};
struct hd_track {
	uint32_t pid;
	struct {
		uint32_t tid, device_id, stream_id, batch_id, model_id, memcpy_op, trace_tag;
		uint16_t task_id;
		uint8_t sqe_type;
		uint64_t time_ns, connection_id, task_type_id, duration_ns, bytes, index_id;
	} r; /* of struct npuprof_hrec_task_track */
};
/* The string ids of a compute op (struct npuprof_hrec_compute_op's). */
struct hd_op_strings {
	uint64_t name_id, op_type_id, task_type_id, input_formats_id, input_dtypes_id,
		input_shapes_id, output_formats_id, output_dtypes_id, output_shapes_id, attr_id,
		op_state_id, hf32_id;
};
struct hd_compute {
	uint64_t key; /* hd_task_key() */
	struct {
		uint32_t batch_id, context_id, block_dim, mix_block_dim;
	} r; /* of struct npuprof_hrec_compute_op */
	uint32_t strings; /* index into hostdata.opstr */
};
struct hd_hccl_op {
	uint32_t pid;
	uint32_t op_id; /* COMMUNICATION_OP.opId, dense from 1 */
	int64_t dev_start, dev_end; /* unix ns of its tasks; -1: none seen */
	struct npuprof_hrec_hccl_op r;
};
struct hd_hccl_task {
	uint32_t pid;
	uint64_t key; /* hd_task_key() */
	struct npuprof_hrec_hccl_task r;
};
struct hd_tx {
	uint32_t pid;
	struct npuprof_hrec_tx r; /* message below; from a TX record or a
                                     compact one (npuprof_host_tx_event) */
	char *message;
	uint64_t msg_id; /* the message's HASH id, or NO_STRING: inline */
};

struct hd_step {
	uint32_t pid;
	struct npuprof_hrec_step r;
};

/* Framework records (npuprof.torch), whole, with their process. */
struct hd_fwk_op {
	uint32_t pid;
	struct npuprof_hrec_fwk_op r;
};
struct hd_fwk_mem {
	uint32_t pid;
	struct npuprof_hrec_fwk_mem r;
};
struct hd_fwk_gc {
	uint32_t pid;
	struct npuprof_hrec_fwk_gc r;
};

struct hd_rank {
	uint32_t pid;
	struct npuprof_rank_info r;
};

struct hd_engine; /* how the per-task records are held (hostdata_engine.h) */

/*
 * What both readers hold whole: every record that is not per task, the
 * strings, the API calls when kept, the counts. The per-task records (task
 * tracks, compute ops, HCCL tasks) are the engine's: loaded whole by
 * hostdata_load (struct hd_whole, hostdata_load.c) or merged as they come
 * by hostdata_open (hostdata_stream.c).
 */
struct hostdata {
	const struct hd_engine *eng;
	void *eng_state; /* struct hd_whole or the merge's state */
	FILE *warn;
	struct hd_api *api; /* hostdata_load, or hostdata_open with HD_KEEP_API */
	size_t napi;
	struct hd_op_strings *opstr; /* the distinct string sets of compute ops */
	size_t nopstr;
	struct u64map opstr_at; /* hash of a set -> its index */
	struct hd_api_strings *apistr; /* the distinct string pairs of api */
	size_t napistr;
	struct u64map apistr_at;
	struct hd_hccl_op *hop; /* sorted by (pid, op_seq) */
	size_t nhop;
	struct hd_tx *tx;
	size_t ntx;
	struct hd_step *step; /* aclprofGetStepTimestamp, in file order */
	size_t nstep;
	struct hd_fwk_op *fop; /* framework records, in file order */
	size_t nfop;
	struct hd_fwk_mem *fmem;
	size_t nfmem;
	struct hd_fwk_gc *fgc;
	size_t nfgc;
	struct hd_rank *rank; /* NPUPROF_HREC_RANK records, in file order per pid */
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
};

/* Load DIR/host/data/npuprof.host.*.raw. Damage and unreadable streams (or
 * an unreadable host/data directory) are reported on warn, by file and
 * offset, and counted in damaged_files; only running out of memory fails. */
int hostdata_load(struct hostdata *h, const char *dir, FILE *warn, char *err, size_t errlen);
void hostdata_free(struct hostdata *h);

/* hostdata_load's per-task records, loaded whole, in file order. */
struct hd_whole {
	struct hd_track *track; /* chained per task key */
	size_t ntrack;
	struct hd_compute *compute; /* chained per (key, batch) */
	size_t ncompute;
	struct hd_hccl_task *htask; /* chained per (key, batch) */
	size_t nhtask;
	/* a task key's tracks: a chain in time order (file order at equal
	 * times) from the first, track_next[i] the next, HD_END the end */
	struct u64map track_range; /* task key -> first index (| last << 32 while loading) */
	uint32_t *track_next;
	uint32_t *track_cursor; /* per first index: next unused track (HD_END: none) */
	/* detail records by their (key, batch) hash: chains in file order */
	struct u64map compute_at, htask_at; /* hash -> first index */
	uint32_t *compute_next, *htask_next;
};
/* h's whole per-task records; NULL if h was not loaded by hostdata_load. */
const struct hd_whole *hostdata_whole(const struct hostdata *h);

/*
 * Streaming (export): hostdata_open decodes the streams as hostdata_load
 * does (same damage reports) but loads only the records that are not per
 * task (strings, HCCL ops, steps, ranks, msproftx, framework records); the
 * per-task ones (API, TASK_TRACK, COMPUTE_OP, HCCL_TASK) are indexed by
 * block and merged later, per thread in time order, by hostdata_advance.
 * Then hostdata_match_track, hostdata_compute, hostdata_hccl_task and
 * hostdata_enclosing_api answer from what is merged so far (a match
 * advances the merge first), and h->api/track/compute/htask stay empty.
 */
#define HD_KEEP_API 2u /* also load every API call into h->api (fwk.c) */
int hostdata_open(struct hostdata *h, const char *dir, unsigned flags, FILE *warn, char *err,
		  size_t errlen);
/* Called for every API call as it is merged (CANN_API rows). */
typedef void (*hd_api_fn)(void *ctx, const struct hd_api *a);
/* Host-only sessions: every task track, in merge order, once the merge is
 * past its details. */
typedef void (*hd_task_fn)(void *ctx, const struct hd_track *t);
/* Starts the merge (again) from the beginning. */
int hostdata_rewind(struct hostdata *h, hd_api_fn on_api, hd_task_fn on_task, void *ctx);
/* Merges every per-task record up to time t; 0 or a negative errno. */
int hostdata_advance(struct hostdata *h, uint64_t t);
/* Merges the rest (no more matches to come). */
int hostdata_drain(struct hostdata *h);
/* A kernel submit's host side, held until its task is written: the track
 * that launched it (hostdata_match_track's), else the connection id of the
 * API open on its thread (hostdata_enclosing_api's). NULL: out of memory. */
struct hd_launch {
	struct hd_track tr;
	uint64_t api_conn;
	uint8_t tracked, has_api;
	uint32_t next_free, self;
};
const struct hd_launch *hostdata_launch(struct hostdata *h, uint32_t pid, uint32_t dev,
					uint32_t stream, uint32_t task, uint32_t tid, uint64_t t);
void hostdata_release(struct hostdata *h, const struct hd_launch *l);
/* hostdata_load: the tracks in (task key, time) order (equal times: as
 * recorded): a malloc'd array of ntrack indexes into hostdata_whole(h)->track,
 * or NULL (out of memory; also for none, and for hostdata_open). */
uint32_t *hostdata_track_order(const struct hostdata *h);
/* The string of a hash id; "" for NPUPROF_HREC_NO_STRING, NULL if unknown. */
const char *hostdata_str(const struct hostdata *h, uint64_t id);

/* The host task track that launched the kernel submit (pid, dev, stream,
 * task) at time t: the latest unused one not later than t + slack. */
const struct hd_track *hostdata_match_track(struct hostdata *h, uint32_t pid, uint32_t dev,
					    uint32_t stream, uint32_t task, uint64_t t);
const struct hd_compute *hostdata_compute(const struct hostdata *h, uint32_t pid, uint32_t dev,
					  uint32_t stream, uint32_t task, uint32_t batch);
const struct hd_hccl_task *hostdata_hccl_task(const struct hostdata *h, uint32_t pid, uint32_t dev,
					      uint32_t stream, uint32_t task, uint32_t batch);
/* A compute op's string ids. */
static inline const struct hd_op_strings *hostdata_op_strings(const struct hostdata *h,
							      const struct hd_compute *c)
{
	return &h->opstr[c->strings];
}
/* An API call's string ids. */
static inline const struct hd_api_strings *hostdata_api_strings(const struct hostdata *h,
								const struct hd_api *a)
{
	return &h->apistr[a->strings];
}
struct hd_hccl_op *hostdata_hccl_op(struct hostdata *h, uint32_t pid, uint64_t op_seq);
/* Innermost node- or acl-level API on (pid, tid) open at time t. Not a
 * const query: on a streaming reader it reads the thread ahead up to t. */
const struct hd_api *hostdata_enclosing_api(struct hostdata *h, uint32_t pid, uint32_t tid,
					    uint64_t t);

#endif
