/*
 * cannrec.h - CANN's reporter records (hostfmt.h NPUPROF_HOSTFMT_MSPROF_*: what
 * libascendcl, libruntime, GE and HCCL hand to libprofapi.so, stored as
 * reported, times already converted to CLOCK_MONOTONIC ns by the decoder)
 * turned into npuprof's own host records by msprof's parser rules
 * (docs/ascend-reference.md §11.5), so that both host readers
 * (hostdata_load, hostdata_open) and everything after them see only the
 * forms they know: API, TASK_TRACK, COMPUTE_OP, HCCL_OP, HCCL_TASK and the
 * HASH records of the strings the rules compose.
 *
 * One struct cann_file collects one stream's reports (cann_add), then
 * cann_finish applies the rules to the whole stream and hands back a host
 * stream (hostfmt.h layout, one block per thread and chunk, an END record)
 * that the readers decode like any other. The rules need a thread's whole
 * API tree before any of its task tracks can be placed in it (an API is
 * reported when it returns, after the tracks it contains), so the reports
 * of a stream are held until its end.
 */
#ifndef NPUPROF_CANNREC_H
#define NPUPROF_CANNREC_H

#include <stddef.h>
#include <stdint.h>

#include "npuprof/hostfmt.h"
#include "npuprof/hostread.h"

/* What the rules could not use, by reason (export names each in a warning). */
struct cann_stats {
	uint64_t reports; /* CANN reports collected */
	uint64_t unknown_level; /* a level that is none of CANN's nor npuprof's */
	uint64_t unregistered; /* (level, type) without a MsprofRegTypeInfo name
                                  (an API keeps its row, named by the number,
                                  as msprof does; other reports are skipped) */
	uint64_t unpaired_events; /* an MsprofEvent start without its end */
	uint64_t zero_begin; /* an API with beginTime 0 (msprof drops it) */
	uint64_t bad_payload; /* a payload shorter than its kind (dataLen), or
                                 a tensor count beyond its record */
	uint64_t orphan_ext; /* an npuprof_task_ext without its task track */
	uint64_t orphan_detail; /* basic / tensor / HCCL info with no node-level
                                   API or task track to belong to */
};

struct cann_file;

/* The string of a hash id, as the session's HASH records resolve it, or
 * NULL: the composed strings get ids that no other string has. */
typedef const char *(*cann_str_fn)(void *ctx, uint64_t id);

struct cann_file *cann_open(uint32_t pid, cann_str_fn str, void *str_ctx);
void cann_close(struct cann_file *f);
/* Takes a MSPROF_API/EVENT/COMPACT/ADDITIONAL or MSPROF_TYPE record of a
 * valid block (others are ignored); 0 or -ENOMEM. */
int cann_add(struct cann_file *f, const struct npuprof_hostfmt_header *rec);
/* Reports collected so far. */
uint64_t cann_reports(const struct cann_file *f);
/*
 * The host stream of the records the reports make, with the file header
 * `fh` (its flags cleared): a malloc'd buffer in *buf, *len bytes. API
 * connectionIds are *next_conn, *next_conn + 1 ... (advanced), so that they
 * are unique across the session's streams; HCCL op_seq values start at
 * *next_op (advanced). *st gets what was left out. 0 or -ENOMEM / -EOVERFLOW.
 */
int cann_finish(struct cann_file *f, const struct npuprof_hostfmt_file_header *fh,
		uint64_t *next_conn, uint64_t *next_op, uint8_t **buf, size_t *len,
		struct cann_stats *st);

/*
 * The host stream at `path` as the export reads it: fn gets every record
 * but CANN's reports (as npuprof_hostread_decode hands them), then the
 * records those reports make by the rules (cann_finish; connectionIds from
 * 0), if the stream has any. *st (may be NULL) gets what the rules left
 * out; st->reports is 0 without reports. *info and *ds (each may be NULL)
 * get the stream's header and its decoding counts, as
 * npuprof_hostread_decode gives them. Returns what npuprof_hostread_decode
 * returns (the reports of a damaged stream's intact blocks are still
 * turned into records), or a negative errno of the rules. For tools and
 * tests that read one stream whichever component wrote it.
 */
int cann_decode(const char *path, npuprof_hostread_record_fn fn, void *ctx,
		struct npuprof_hostread_file_info *info, struct npuprof_hostread_decode_stats *ds,
		struct cann_stats *st, char *err, size_t errlen);

#endif
