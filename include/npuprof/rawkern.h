/*
 * rawkern.h — the raw kernel stream file: what `npuprof record` drains from a
 * capture engine, and what `npuprof export` reads back.
 *
 * Layout: a 64-byte header, then fixed-size records (struct npuprof_record,
 * include/uapi/npuprof.h) back to back, append-only, so a crash loses at
 * most the last partial record. All integers are little-endian.
 *
 * Version 2 (what this code writes) follows every NPUPROF_RAWK_SUM_EVERY
 * records, and the records of every flush, with a 64-byte checksum record:
 *
 *   0  u16   type            NPUPROF_RAWK_SUM_TYPE (no record type)
 *   2  u16   size            64
 *   4  u16   count           records it covers (1 .. NPUPROF_RAWK_SUM_EVERY),
 *                            the ones just before it
 *   6  u16   self            npuprof_rawk_sum16 of these 64 bytes, self as 0
 *   8  u16   sum[28]         npuprof_rawk_sum16 of each of those records
 *
 * so one flipped bit costs the one record it is in. Version 1 files (no
 * checksum records) are read as before.
 *
 *   0  char  magic[8]        "NPUPKRAW"
 *   8  u32   file_version    NPUPROF_RAWK_VERSION
 *  12  u32   schema_version  NPUPROF_SCHEMA_VERSION of the records
 *  16  u32   record_size     64
 *  20  u32   header_size     64
 *  24  u64   realtime_ns     CLOCK_REALTIME when the file was created
 *  32  u64   monotonic_ns    CLOCK_MONOTONIC at the same moment
 *  40  char  engine[16]      "kmod" or "bpf", NUL padded
 *  56  u32   sample_n        the capture's 1-in-n sampling (0/1: all)
 *  60  u32   flags           the capture's NPUPROF_CFG_* flags
 */
#ifndef NPUPROF_RAWKERN_H
#define NPUPROF_RAWKERN_H

#include <stddef.h>
#include <stdint.h>
#include "npuprof/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NPUPROF_RAWK_MAGIC "NPUPKRAW"
#define NPUPROF_RAWK_VERSION 2
#define NPUPROF_RAWK_HDR_SIZE 64
#define NPUPROF_RAWK_SUM_TYPE 0xFFFF /* hdr.type of a checksum record */
#define NPUPROF_RAWK_SUM_EVERY 28 /* records per checksum record (at most) */

struct npuprof_rawk_info {
	uint32_t file_version;
	uint32_t schema_version;
	uint64_t realtime_ns;
	uint64_t monotonic_ns;
	char engine[17];
	uint32_t sample_n;
	uint32_t flags;
	uint64_t records; /* whole records read */
	uint64_t trailing_bytes; /* bytes of a truncated last record */
	uint64_t bad_records; /* corrupt records skipped */
	uint64_t first_bad_offset; /* byte offset of the first of them */
	uint64_t sums; /* intact checksum records (version 2) */
	uint64_t bad_sums; /* damaged checksum records (version 2) */
	uint64_t unchecked; /* records at the end without their checksum record */
	uint64_t read_ns; /* CPU time in the file's reads (the export's breakdown) */
};

/* The 16-bit check of a version 2 file: the low half of npuprof_crc32. */
uint16_t npuprof_rawk_sum16(const void *p, size_t len);

struct npuprof_rawk_writer;

/* Create (truncate) path. Returns 0 or -errno with a message in err. */
int npuprof_rawk_create(struct npuprof_rawk_writer **out, const char *path, const char *engine,
			uint32_t sample_n, uint32_t flags, char *err, size_t errlen);
/* Buffered append; a record_fn, so it can be passed to engine read. */
int npuprof_rawk_append(void *writer, const struct npuprof_record *r);
/* Write out the buffer (records reach the file at least this often). */
int npuprof_rawk_flush(struct npuprof_rawk_writer *w);
uint64_t npuprof_rawk_count(const struct npuprof_rawk_writer *w);
/* Flush and close; returns 0 or -errno (the first write error). */
int npuprof_rawk_close(struct npuprof_rawk_writer *w);

/*
 * Read a raw kernel stream, calling fn for every record. Returns the number
 * of records delivered, or -errno with a message naming the file and byte
 * offset of the problem in err (unreadable file, bad header). Damage inside
 * the stream is not an error: records are fixed-size, so a corrupt record
 * (bad size or type; in a version 2 file also one whose checksum does not
 * match) is skipped and counted in info->bad_records, and a truncated last
 * record in info->trailing_bytes; a damaged checksum record is counted in
 * info->bad_sums (the records it covers are still checked against what it
 * holds), and records at the end of a version 2 file without their checksum
 * record (a write cut short) are delivered and counted in info->unchecked;
 * err then names the file and the offsets, and every intact record is
 * delivered. err is empty when the file was read completely. A path that
 * is not a regular file (a FIFO, a device) is refused without blocking
 * (-EINVAL, "not a regular file").
 */
long npuprof_rawk_read(const char *path, npuprof_record_fn fn, void *ctx,
		       struct npuprof_rawk_info *info, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
