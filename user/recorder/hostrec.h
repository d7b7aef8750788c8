/*
 * hostrec.h - the host recorder's API, inside the in-application library
 * (libprofapi.so, user/recorder): what its own aclprof*, mstx* and Msprof*
 * code writes the host stream with (npuprof/hostfmt.h). Not installed and
 * not exported: the runtime, HCCL and the framework layer report through
 * CANN's reporter ABI (include/profiling/) only. Tests link the recorder
 * statically and write records through it directly.
 */
#ifndef NPUPROF_HOSTREC_H
#define NPUPROF_HOSTREC_H

#include <stddef.h>
#include <stdint.h>

#include "npuprof/hostfmt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Recorder -----------------------------------------------------------
 * One collection at a time per process. Producers write into a per-thread
 * ring (allocated on a thread's first record) without locks or allocation;
 * a background thread writes full and periodic blocks to the stream; stop,
 * flush and process exit drain every ring. A full ring drops the record and
 * counts it (block_header.lost) instead of blocking. */

struct npuprof_hostrec_config {
	const char *dir; /* the PROF_* directory (created if needed) */
	uint64_t switches; /* ACL_PROF_* bits */
	uint32_t aicore_metrics;
	uint32_t dev_count;
	const uint32_t *dev_ids;
	size_t buffer_size; /* per-thread ring; 0: NPUPROF_BUFFER_SIZE or 1 MiB */
	unsigned flush_interval_ms; /* 0: NPUPROF_FLUSH_INTERVAL_MS or 100 */
};

struct npuprof_hostrec_stats {
	uint64_t records; /* records committed by producers */
	uint64_t lost; /* records dropped because a ring was full */
	uint64_t blocks; /* blocks written */
	uint64_t bytes; /* bytes written, headers included */
};

/* Opens <dir>/host/data/npuprof.host.<pid>.raw and starts the writer.
 * Returns 0, or a negative errno with a message in err. -EBUSY if a
 * collection is already running. */
int npuprof_hostrec_start(const struct npuprof_hostrec_config *cfg, char *err, size_t errlen);
/* Drains every ring, stops the writer and closes the stream. 0 if nothing
 * was running; negative errno if a write failed during the collection. */
int npuprof_hostrec_stop(void);
/* Writes everything recorded so far. */
int npuprof_hostrec_flush(void);
/* 1 while a collection runs (a cheap load, for hot paths). */
int npuprof_hostrec_active(void);
/* Path of the running (or last) stream; "" if none. */
const char *npuprof_hostrec_path(void);
void npuprof_hostrec_get_stats(struct npuprof_hostrec_stats *st);

/* Producer side, for the library's own instrumentation. reserve() returns
 * room for a record of `size` bytes (a multiple of 8) with its header filled
 * in, or NULL if no collection runs or the thread's ring is full (counted as
 * lost). The caller fills the body and calls commit() on the same thread
 * before reserving again. */
void *npuprof_hostrec_reserve(uint16_t kind, uint32_t size);
void npuprof_hostrec_commit(void *rec);
/* The calling thread's kernel tid, cached. */
uint32_t npuprof_hostrec_tid(void);
/* CLOCK_MONOTONIC in ns: the time base of every host record. */
uint64_t npuprof_hostrec_now(void);

/* The runtime's HCCL reports the rank of the first communicator it
 * initialises on a device (npuprof/rank.h); the recorder writes it into
 * this and every later collection's stream (NPUPROF_HOSTFMT_RANK). */
void npuprof_hostrec_set_rank(uint32_t device_id, int32_t rank, uint32_t rank_size,
			      uint64_t group_name_id);

/* The one writer of a framework op record (hostfmt.h, a PYTORCH_API row)
 * for every framework producer (the torch extension, the device mirror,
 * their tests): on the calling thread, tid = `tid` (npuprof_hostrec_tid()
 * unless cached). 0, or -1 if no collection runs or the ring is full. */
static inline int npuprof_hostrec_fwk_op(uint32_t tid, uint32_t fwd_tid, uint64_t start_ns,
					 uint64_t end_ns, int64_t seq, uint64_t name_id,
					 uint64_t dtypes_id, uint64_t shapes_id, uint64_t stack_id,
					 uint32_t type)
{
	struct npuprof_hostfmt_fwk_op *r = (struct npuprof_hostfmt_fwk_op *)npuprof_hostrec_reserve(
		NPUPROF_HOSTFMT_FWK_OP, sizeof(struct npuprof_hostfmt_fwk_op));

	if (!r)
		return -1;
	r->tid = tid;
	r->fwd_tid = fwd_tid;
	r->start_ns = start_ns;
	r->end_ns = end_ns;
	r->seq = seq;
	r->name_id = name_id;
	r->dtypes_id = dtypes_id;
	r->shapes_id = shapes_id;
	r->stack_id = stack_id;
	r->type = type;
	r->reserved = 0;
	npuprof_hostrec_commit(r);
	return 0;
}

/* Starts the collection that `npuprof record` passes through the environment
 * (NPUPROF_OUTPUT_DIR and friends, documented in acl/acl_prof.h).
 * libmsprofiler.so calls this when it is loaded (libnpuprof never does);
 * tests link the recorder statically and call it directly. Returns 0 (also
 * when NPUPROF_OUTPUT_DIR is unset), or a negative errno with a message in
 * err: -EBUSY if the profiling API is already in use, -EINVAL for a
 * malformed variable. */
int npuprof_session_from_env(char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* NPUPROF_HOSTREC_H */
