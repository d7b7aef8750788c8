/*
 * fwk.h - the framework tables of the PyTorch database (docs/ascend-reference.md
 * §4): PYTORCH_API, CONNECTION_IDS, PYTORCH_CALLCHAINS, STEP_TIME,
 * MEMORY_RECORD, OP_MEMORY, GC_RECORD, from the framework records of the
 * host streams (NPUPROF_HOSTFMT_FWK_*, npuprof/hostfmt.h), plus the META_DATA
 * rows of profiler_metadata.json.
 *
 * What links them to CANN is derived from the host records themselves:
 *  - CONNECTION_IDS: a CANN API that device tasks hang off (node level, or
 *    acl level with no node-level API inside it) belongs to the innermost
 *    torch op (type op or queue) of the same thread whose range contains
 *    it; a forward op (sequence number N, no forward thread, on thread T)
 *    and the backward ops of sequence number N and forward thread T share
 *    one link 5 << 28 + k (k dense from 0). CONNECTION_IDS.id is dense from
 *    0 in PYTORCH_API row order; PYTORCH_API.connectionId is NULL for an op
 *    without links.
 *  - PYTORCH_CALLCHAINS: one callchain per op with a stack, ids dense from 0
 *    in row order, frames split on NPUPROF_EXT_FWK_SEP, depth 0 innermost.
 *  - STEP_TIME: one row per `ProfilerStep#<n>` op (id n; the first op of an
 *    id wins).
 *  - OP_MEMORY: an allocation paired with the next release of the same
 *    address (process, device) after it, named after the innermost torch op
 *    of the allocating thread at the allocation (N/A outside any op);
 *    never released: NULL release columns. The records carry no separate
 *    "active" release, so activeReleaseTime/activeDuration are the
 *    release's.
 * Strings: framework ones from 1 << 28 (NPUPROF_DB_SPACE_FWK), memory ones
 * (components, OP_MEMORY names) from 2 << 28.
 *
 * A framework record that cannot be a row (end before start, a time or
 * number that does not fit, an unknown type, an op without a name, a zero
 * or INT64_MIN size, a GC generation above 2) is skipped, reported on warn
 * with its file, and counted: the caller treats it as damaged input.
 */
#ifndef NPUPROF_EXPORT_FWK_H
#define NPUPROF_EXPORT_FWK_H

#include <stdint.h>
#include <stdio.h>

#include "hostdata.h"
#include "npuprof/db.h"
#include "npuprof/session.h"

struct fwk_result {
	uint64_t ops; /* PYTORCH_API rows */
	uint64_t connections; /* CONNECTION_IDS rows */
	uint64_t callchains; /* PYTORCH_CALLCHAINS rows */
	uint64_t steps; /* STEP_TIME rows from ProfilerStep ops */
	uint64_t mem, op_mem, gc; /* MEMORY_RECORD, OP_MEMORY, GC_RECORD rows */
	uint64_t bad; /* framework records skipped */
	uint64_t metadata; /* META_DATA rows from profiler_metadata.json */
	int metadata_bad; /* profiler_metadata.json unreadable or not JSON */
};

/* Is there a valid ProfilerStep#<n> op (then STEP_TIME comes from them)? */
int fwk_has_steps(const struct npuprof_session *s, const struct hostdata *hd);

/* Writes the framework tables into w. dir is the session directory (for
 * the names of the files in messages). Returns 0 or the writer's negative
 * errno. */
int fwk_write(struct npuprof_db *w, const struct npuprof_session *s, const struct hostdata *hd,
	      const char *dir, FILE *warn, struct fwk_result *res);

/* One META_DATA row per top-level key of the JSON object in the file at
 * path (absent: nothing). A file that cannot be read or is not a JSON
 * object is reported on warn (path and offset), writes no rows and sets
 * res->metadata_bad. Returns 0 or the writer's negative errno. */
int fwk_write_metadata(struct npuprof_db *w, const char *path, FILE *warn, struct fwk_result *res);

#endif
