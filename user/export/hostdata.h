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

#include "hostdata_records.h"

/* Load DIR/host/data/npuprof.host.*.raw. Damage and unreadable streams (or
 * an unreadable host/data directory) are reported on warn, by file and
 * offset, and counted in damaged_files; only running out of memory fails. */
int hostdata_load(struct hostdata *h, const char *dir, FILE *warn, char *err, size_t errlen);
void hostdata_free(struct hostdata *h);

/* hostdata_load's per-task records, loaded whole, in file order. */
struct hostdata_whole {
	struct hostdata_track *track; /* chained per task key */
	size_t ntrack;
	struct hostdata_compute *compute; /* chained per (key, batch) */
	size_t ncompute;
	struct hostdata_hccl_task *htask; /* chained per (key, batch) */
	size_t nhtask;
	/* a task key's tracks: a chain in time order (file order at equal
	 * times) from the first, track_next[i] the next, HOSTDATA_END the end */
	struct u64map track_range; /* task key -> first index (| last << 32 while loading) */
	uint32_t *track_next;
	uint32_t *track_cursor; /* per first index: next unused track (HOSTDATA_END: none) */
	/* detail records by their (key, batch) hash: chains in file order */
	struct u64map compute_at, htask_at; /* hash -> first index */
	uint32_t *compute_next, *htask_next;
};
/* h's whole per-task records; NULL if h was not loaded by hostdata_load. */
const struct hostdata_whole *hostdata_whole(const struct hostdata *h);

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
#define HOSTDATA_KEEP_API 2u /* also load every API call into h->api (fwk.c) */
int hostdata_open(struct hostdata *h, const char *dir, unsigned flags, FILE *warn, char *err,
		  size_t errlen);
/* Called for every API call as it is merged (CANN_API rows). */
typedef void (*hostdata_api_fn)(void *ctx, const struct hostdata_api *a);
/* Host-only sessions: every task track, in merge order, once the merge is
 * past its details. */
typedef void (*hostdata_task_fn)(void *ctx, const struct hostdata_track *t);
/* Starts the merge (again) from the beginning. */
int hostdata_rewind(struct hostdata *h, hostdata_api_fn on_api, hostdata_task_fn on_task,
		    void *ctx);
/* Merges every per-task record up to time t; 0 or a negative errno. */
int hostdata_advance(struct hostdata *h, uint64_t t);
/* Merges the rest (no more matches to come). */
int hostdata_drain(struct hostdata *h);
/* A kernel submit's host side, held until its task is written: the track
 * that launched it (hostdata_match_track's), else the connection id of the
 * API open on its thread (hostdata_enclosing_api's). NULL: out of memory. */
struct hostdata_launch {
	struct hostdata_track tr;
	uint64_t api_conn;
	uint8_t tracked, has_api;
	uint32_t next_free, self;
};
const struct hostdata_launch *hostdata_launch(struct hostdata *h, uint32_t pid, uint32_t dev,
					      uint32_t stream, uint32_t task, uint32_t tid,
					      uint64_t t);
void hostdata_release(struct hostdata *h, const struct hostdata_launch *l);
/* hostdata_load: the tracks in (task key, time) order (equal times: as
 * recorded): a malloc'd array of ntrack indexes into hostdata_whole(h)->track,
 * or NULL (out of memory; also for none, and for hostdata_open). */
uint32_t *hostdata_track_order(const struct hostdata *h);
/* The string of a hash id; "" for NPUPROF_HOSTFMT_NO_STRING, NULL if unknown. */
const char *hostdata_str(const struct hostdata *h, uint64_t id);

/* The host task track that launched the kernel submit (pid, dev, stream,
 * task) at time t: the latest unused one not later than t + slack. */
const struct hostdata_track *hostdata_match_track(struct hostdata *h, uint32_t pid, uint32_t dev,
						  uint32_t stream, uint32_t task, uint64_t t);
const struct hostdata_compute *hostdata_compute(const struct hostdata *h, uint32_t pid,
						uint32_t dev, uint32_t stream, uint32_t task,
						uint32_t batch);
const struct hostdata_hccl_task *hostdata_hccl_task(const struct hostdata *h, uint32_t pid,
						    uint32_t dev, uint32_t stream, uint32_t task,
						    uint32_t batch);
/* A compute op's string ids. */
static inline const struct hostdata_op_strings *hostdata_op_strings(
	const struct hostdata *h, const struct hostdata_compute *c)
{
	return &h->opstr[c->strings];
}
/* An API call's string ids. */
static inline const struct hostdata_api_strings *hostdata_api_strings(const struct hostdata *h,
								      const struct hostdata_api *a)
{
	return &h->apistr[a->strings];
}
struct hostdata_hccl_op *hostdata_hccl_op(struct hostdata *h, uint32_t pid, uint64_t op_seq);
/* Innermost node- or acl-level API on (pid, tid) open at time t. Not a
 * const query: on a streaming reader it reads the thread ahead up to t. */
const struct hostdata_api *hostdata_enclosing_api(struct hostdata *h, uint32_t pid, uint32_t tid,
						  uint64_t t);

#endif
