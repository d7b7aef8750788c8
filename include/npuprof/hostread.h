/*
 * hostread.h - the decoder of the raw host stream (layout in
 * npuprof/hostfmt.h), part of libnpuprof: `npuprof export` reads the
 * streams that the in-application recorder wrote.
 */
#ifndef NPUPROF_HOSTREAD_H
#define NPUPROF_HOSTREAD_H

#include <stddef.h>
#include <stdint.h>

#include "npuprof/hostfmt.h"

#ifdef __cplusplus
extern "C" {
#endif

struct npuprof_hostread_file_info {
	struct npuprof_hostfmt_file_header header;
	uint64_t file_size;
};

struct npuprof_hostread_decode_stats {
	uint64_t blocks; /* valid blocks */
	uint64_t records; /* records passed to the callback (PAD excluded) */
	uint64_t lost; /* sum of block_header.lost */
	uint64_t bad_blocks; /* blocks rejected (header, CRC or record framing) */
	uint64_t skipped_bytes; /* bytes not decoded because of damage */
	uint64_t problems; /* every problem found, truncation included */
	int closed; /* an END record was found */
	uint64_t bad_records; /* records of valid blocks refused: TSC times
                                 that do not convert (hostfmt.h
                                 NPUPROF_HOSTFMT_F_TSC); CANN reports with a
                                 wrong magic, a dataLen beyond their data
                                 area or times that do not convert */
	uint64_t clock_pairs; /* distinct (TSC, monotonic) and (CLOCK_MONOTONIC_RAW,
                                 monotonic) pairs used */
};

/* Called for every valid record but PAD, in file order. `block` is the
 * header of the record's block. A record whose times are TSC ticks
 * (NPUPROF_HOSTFMT_F_TSC) arrives converted to CLOCK_MONOTONIC ns with the
 * flag cleared, in a copy valid only during the call; so does every CANN
 * report (MSPROF_API/EVENT/COMPACT/ADDITIONAL), whose MsprofSysCycleTime
 * times (CLOCK_MONOTONIC_RAW ns, or TSC ticks with the flag) are converted
 * inside the reported struct through the stream's CLOCK_RAW (or CLOCK)
 * pairs, collected from its session blocks (tid 0) first; 0 (absent) stays 0. Returning non-zero stops decoding; that value is
 * returned by npuprof_hostread_decode. */
typedef int (*npuprof_hostread_record_fn)(void *ctx,
					  const struct npuprof_hostfmt_block_header *block,
					  const struct npuprof_hostfmt_header *rec);

/* Decodes the stream at `path`. Damage does not stop it: a bad block is
 * reported and skipped, a truncated tail is reported. Only valid records
 * (framing, CRC, per-kind minimum size, NUL-terminated strings, counts within
 * the record) reach `fn`. Returns 0 if the file was clean, NPUPROF_HOSTREAD_EDAMAGED
 * if any damage was found (err then holds "<path>: offset <n>: <what>" for the
 * first problem, and stats->problems counts them all), a negative errno if the
 * file cannot be read or its header is invalid, or the callback's value. */
#define NPUPROF_HOSTREAD_EDAMAGED (-1000)
int npuprof_hostread_decode(const char *path, npuprof_hostread_record_fn fn, void *ctx,
			    struct npuprof_hostread_file_info *info,
			    struct npuprof_hostread_decode_stats *stats, char *err, size_t errlen);

/* Same on a buffer (the whole file's bytes); `name` is used in messages. */
int npuprof_hostread_decode_buffer(const void *data, size_t len, const char *name,
				   npuprof_hostread_record_fn fn, void *ctx,
				   struct npuprof_hostread_file_info *info,
				   struct npuprof_hostread_decode_stats *stats, char *err,
				   size_t errlen);
/* Same on the caller's private read-only mapping of the whole file: the
 * TSC pass over its session blocks gives the pages it read back behind it
 * (MADV_DONTNEED), so a stream of any size costs a bounded window there
 * too; the caller gives back those of the main pass as it goes. */
int npuprof_hostread_decode_mapping(const void *map, size_t len, const char *name,
				    npuprof_hostread_record_fn fn, void *ctx,
				    struct npuprof_hostread_file_info *info,
				    struct npuprof_hostread_decode_stats *stats, char *err,
				    size_t errlen);

/* One msproftx / mstx event in the fields of a TX record, from a TX record
 * or from a compact one (kinds 17-22, hostfmt.h). */
struct npuprof_hostread_tx {
	struct npuprof_hostfmt_tx r; /* r.h is the record's header; r.msg_len
                                     counts message's bytes */
	const char *message; /* NUL-terminated, inside the record (or a
                                constant "" for an mstx range end); NULL
                                if msg_id names the message instead */
	uint64_t msg_id; /* HASH id of the message when message is NULL */
};

/* Fills *ev from `rec` (a record of a valid block, as the decoder passes
 * it) if it is a msproftx / mstx event: returns 1, else 0. */
int npuprof_hostread_tx_event(const struct npuprof_hostfmt_block_header *block,
			      const struct npuprof_hostfmt_header *rec,
			      struct npuprof_hostread_tx *ev);

#ifdef __cplusplus
}
#endif

#endif /* NPUPROF_HOSTREAD_H */
