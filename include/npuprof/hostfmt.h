/*
 * hostfmt.h - the raw host stream's on-disk layout: the ONE definition of
 * every host record kind. The recorder (libmsprofiler, user/recorder) writes
 * it; the decoder (npuprof/hostread.h, libnpuprof) reads it back for
 * `npuprof export`. Nothing here is code but the record-size rounding.
 *
 * A process being profiled writes one stream per collection:
 *   <PROF_dir>/host/data/npuprof.host.<pid>.raw
 *
 * Layout (all integers little-endian, which is also native on every supported
 * host; all structs are naturally aligned with no holes):
 *
 *   file   := file_header block*
 *   block  := block_header record*          (block_header.size bytes of records)
 *   record := record_header body            (record_header.size bytes in all,
 *                                             a multiple of 8)
 *
 * Each block is the contiguous content of one thread's buffer written by the
 * background writer in a single write, with a CRC-32 over its header and
 * records. A block
 * whose header or CRC is wrong is reported with the file and offset, and the
 * decoder resynchronises on the next block magic, so corruption costs one
 * block and a crash costs at most the unflushed tail.
 *
 * Versioning rules:
 *  - NPUPROF_HOSTFMT_VERSION changes only if the framing (file header, block
 *    header, record header) changes incompatibly; decoders reject other
 *    versions.
 *  - Record kinds are never renumbered or reused. New kinds take the next
 *    number; decoders pass kinds they do not know to the caller, who skips
 *    them by size.
 *  - An existing record only ever gains fields at its end. Readers accept a
 *    record longer than they know (and ignore the tail); the decoder rejects a
 *    record shorter than the minimum size of its kind.
 */
#ifndef NPUPROF_HOSTFMT_H
#define NPUPROF_HOSTFMT_H

#include <stddef.h>
#include <stdint.h>

#include "profiling/npuprof_ext.h"

#include "npuprof/msprof_ids.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- On-disk layout --------------------------------------------------- */

#define NPUPROF_HOSTFMT_MAGIC "NPUHOST" /* 8 bytes with the NUL */
#define NPUPROF_HOSTFMT_VERSION 1
#define NPUPROF_HOSTFMT_BYTE_ORDER 0x01020304u
#define NPUPROF_HOSTFMT_BLOCK_MAGIC 0x4B4C4248u /* "HBLK" */
#define NPUPROF_HOSTFMT_FILE_PREFIX "npuprof.host."
#define NPUPROF_HOSTFMT_FILE_SUFFIX ".raw"

/* Written once, at offset 0. The clock pair converts every timestamp of the
 * stream (CLOCK_MONOTONIC ns) to Unix ns: unix = mono + realtime - monotonic. */
struct npuprof_hostfmt_file_header {
	char magic[8]; /* NPUPROF_HOSTFMT_MAGIC */
	uint16_t version; /* NPUPROF_HOSTFMT_VERSION */
	uint16_t header_size; /* sizeof(struct npuprof_hostfmt_file_header) */
	uint32_t byte_order; /* NPUPROF_HOSTFMT_BYTE_ORDER as written */
	uint32_t pid; /* the profiled process */
	uint32_t block_align; /* blocks and records start at multiples of this (8) */
	uint64_t realtime_ns; /* CLOCK_REALTIME ...  */
	uint64_t monotonic_ns; /* ... and CLOCK_MONOTONIC, sampled back to back */
	uint64_t switches; /* ACL_PROF_* bits of the collection */
	char hostname[64]; /* NUL-terminated */
	uint64_t flags; /* NPUPROF_HOSTFMT_F_*; older writers wrote 0 */
	uint64_t reserved; /* written as 0 */
};

/* file_header.flags: the stream's stamp records may carry raw TSC ticks
 * (NPUPROF_HOSTFMT_F_TSC), converted by the reader through the stream's CLOCK
 * records (so a reader collects those first). */
#define NPUPROF_HOSTFMT_F_TSC 0x1u

struct npuprof_hostfmt_block_header {
	uint32_t magic; /* NPUPROF_HOSTFMT_BLOCK_MAGIC */
	uint32_t size; /* bytes of records that follow (multiple of 8) */
	uint32_t crc; /* npuprof_hostfmt_block_crc(): this header (crc as 0)
                       and the records */
	uint32_t tid; /* thread whose buffer this is; 0 for session records */
	uint64_t seq; /* 0, 1, 2 ... per file; a gap means a lost block */
	uint64_t lost; /* records this thread could not record (buffer full)
                       since its previous block */
};

struct npuprof_hostfmt_header {
	uint32_t size; /* whole record, header included; multiple of 8 */
	uint16_t kind; /* enum npuprof_hostfmt_kind */
	uint16_t reserved; /* NPUPROF_HOSTFMT_F_* flags, else 0 */
};

/* npuprof_hostfmt_header.reserved: the record's times (every *_ns field of a
 * TX record that is not 0, and of a compact record, kinds 17-22) are raw
 * TSC ticks read with a plain rdtsc, not CLOCK_MONOTONIC ns. Only in a
 * stream with NPUPROF_HOSTFMT_F_TSC; only on x86-64 with an invariant TSC and
 * the kernel's clocksource `tsc`. The decoder (npuprof/hostread.h) converts
 * such a record to ns through the stream's CLOCK records (linear
 * interpolation between the pairs around it, extrapolation from the
 * nearest span of at least NPUPROF_HOSTFMT_CLOCK_MIN_SPAN_NS beyond them) and
 * hands it on with the flag cleared, so that no consumer ever sees ticks;
 * a record whose times cannot be converted exactly (no pairs, a result
 * outside 0..UINT64_MAX) is damage. */
#define NPUPROF_HOSTFMT_F_TSC 0x1u
#define NPUPROF_HOSTFMT_CLOCK_MIN_SPAN_NS 1000000u

enum npuprof_hostfmt_kind {
	NPUPROF_HOSTFMT_PAD = 0, /* filler at a buffer's wrap point; skip */
	NPUPROF_HOSTFMT_SESSION = 1, /* struct npuprof_hostfmt_session */
	NPUPROF_HOSTFMT_TX = 2, /* struct npuprof_hostfmt_tx: msproftx events */
	NPUPROF_HOSTFMT_HASH = 3, /* struct npuprof_hostfmt_hash: id -> string */
	NPUPROF_HOSTFMT_TENSOR_INFO = 4, /* struct npuprof_hostfmt_tensor_info */
	NPUPROF_HOSTFMT_STEP = 5, /* struct npuprof_hostfmt_step */
	NPUPROF_HOSTFMT_OPTION = 6, /* struct npuprof_hostfmt_option */
	NPUPROF_HOSTFMT_END = 7, /* struct npuprof_hostfmt_end: clean close */
	/* Written by npuprof's ACL runtime (libascendcl, user/runtime): */
	NPUPROF_HOSTFMT_API = 8, /* struct npuprof_hostfmt_api: CANN_API row */
	NPUPROF_HOSTFMT_TASK_TRACK = 9, /* struct npuprof_hostfmt_task_track: one SQE */
	NPUPROF_HOSTFMT_COMPUTE_OP = 10, /* struct npuprof_hostfmt_compute_op */
	NPUPROF_HOSTFMT_HCCL_OP = 11, /* struct npuprof_hostfmt_hccl_op */
	NPUPROF_HOSTFMT_HCCL_TASK = 12, /* struct npuprof_hostfmt_hccl_task */
	NPUPROF_HOSTFMT_RANK = 13, /* struct npuprof_hostfmt_rank */
	/* Written by the framework layer (npuprof.torch, python/npuprof): */
	NPUPROF_HOSTFMT_FWK_OP = 14, /* struct npuprof_hostfmt_fwk_op: PYTORCH_API row */
	NPUPROF_HOSTFMT_FWK_MEM = 15, /* struct npuprof_hostfmt_fwk_mem: allocator event */
	NPUPROF_HOSTFMT_FWK_GC = 16, /* struct npuprof_hostfmt_fwk_gc: GC_RECORD row */
	/* Compact msproftx / mstx events (the stamp calls' fast path; TX
	 * records stay valid and MarkEx still writes them): */
	NPUPROF_HOSTFMT_STAMP_MARK = 17, /* struct npuprof_hostfmt_stamp_mark */
	NPUPROF_HOSTFMT_STAMP_POP = 18, /* struct npuprof_hostfmt_stamp_pop */
	NPUPROF_HOSTFMT_STAMP_STOP = 19, /* struct npuprof_hostfmt_stamp_stop */
	NPUPROF_HOSTFMT_MSTX_MARK = 20, /* struct npuprof_hostfmt_mstx */
	NPUPROF_HOSTFMT_MSTX_START = 21, /* struct npuprof_hostfmt_mstx */
	NPUPROF_HOSTFMT_MSTX_END = 22, /* struct npuprof_hostfmt_mstx_end */
	NPUPROF_HOSTFMT_CLOCK = 23, /* struct npuprof_hostfmt_clock: TSC time base */
	/* CANN's reporter ABI (libprofapi.so, include/profiling/): each report
	 * stored as reported, byte for byte (struct npuprof_hostfmt_msprof): */
	NPUPROF_HOSTFMT_MSPROF_API = 24, /* an MsprofApi (40 B), MsprofReportApi */
	NPUPROF_HOSTFMT_MSPROF_EVENT = 25, /* an MsprofEvent (40 B), MsprofReportEvent */
	NPUPROF_HOSTFMT_MSPROF_COMPACT = 26, /* an MsprofCompactInfo (64 B) */
	NPUPROF_HOSTFMT_MSPROF_ADDITIONAL = 27, /* an MsprofAdditionalInfo (256 B); a
                                                batch report: one record each */
	NPUPROF_HOSTFMT_MSPROF_TYPE = 28, /* struct npuprof_hostfmt_msprof_type:
                                          MsprofRegTypeInfo's (level, type) name */
	NPUPROF_HOSTFMT_CLOCK_RAW = 29, /* struct npuprof_hostfmt_clock_raw: the
                                        MsprofSysCycleTime time base */
	NPUPROF_HOSTFMT_MSPROF_BAD = 30, /* struct npuprof_hostfmt_msprof_bad: reports
                                         refused during the collection */
	NPUPROF_HOSTFMT_KIND_COUNT /* first unassigned kind */
};

/* The collection's configuration, first record of every stream. */
struct npuprof_hostfmt_session {
	struct npuprof_hostfmt_header h;
	uint64_t switches; /* ACL_PROF_* bits after post-processing */
	uint32_t aicore_metrics; /* aclprofAicoreMetrics */
	uint32_t dev_count; /* entries in dev_ids (the host is not listed) */
	uint32_t dev_ids[]; /* padded to 8 */
};

/* msproftx event types, as in CANN's raw record and ENUM_MSTX_EVENT_TYPE. */
enum npuprof_tx_event {
	NPUPROF_TX_MARK = 0,
	NPUPROF_TX_PUSH_POP = 1,
	NPUPROF_TX_START_STOP = 2,
	NPUPROF_TX_MARK_EX = 3,
};

/* One msproftx event (CANN's MsprofTxInfo, without its fixed 156-byte
 * message). info_type 0 = stamp APIs, 1 = MarkEx / mstx.
 *
 * An mstx range (info_type 1, START_STOP) is written in two halves with the
 * same mark_id: at its start a record with end_ns = 0 (message, domain and
 * the starting thread), at its end one with start_ns = 0, msg_len 0 and tid
 * the ending thread. The export joins them (the row is the starting
 * thread's); a start without an end is a range that never ended and is not
 * exported, as CANN reports a range only at its end. mstx mark ids are
 * unique per process but not dense or ordered (threads take blocks). */
#define NPUPROF_TX_NO_RANGE 0xFFFFFFFFu
struct npuprof_hostfmt_tx {
	struct npuprof_hostfmt_header h;
	uint32_t tid; /* thread CANN attributes the event to: the one that
                              ended it (Pop, RangeStop) */
	uint32_t start_tid; /* thread that started it */
	uint64_t start_ns; /* CLOCK_MONOTONIC */
	uint64_t end_ns; /* = start_ns for marks */
	uint64_t mark_id; /* MarkEx transaction id (connectionId - 4000000001) */
	uint64_t domain; /* hash id of the mstx domain; 0 for stamp APIs */
	uint32_t category; /* stamp category; 0xFFFFFFFF for MarkEx */
	int32_t payload_type; /* stamp payload type */
	uint32_t range_id; /* rangeId of START_STOP events, else NO_RANGE */
	uint16_t info_type;
	uint16_t event_type; /* enum npuprof_tx_event */
	uint32_t msg_len; /* bytes of message, without the NUL */
	char message[]; /* msg_len bytes, NUL, padding to 8 */
};

/* ---- Compact msproftx / mstx records (kinds 17-22) ------------------------
 *
 * What the stamp calls (aclprofMark, Push/Pop, RangeStart/Stop) and the
 * mstx calls write: the events of NPUPROF_HOSTFMT_TX in a third to a half of
 * its bytes, since what a stamp call costs beyond its clock read is mostly
 * the bytes it stores. Each stands for exactly one TX record, whose fields
 * a reader takes as follows (npuprof_hostread_tx_event in npuprof/hostread.h
 * does it, for TX records too):
 *  - tid: the thread of the record's block (block_header.tid: the ring's
 *    thread, the one that made the call); start_tid the same except in
 *    STAMP_STOP;
 *  - stamp records: info_type 0, mark_id 0, domain 0, range_id NO_RANGE
 *    except in STAMP_STOP; the message is named by msg_id, the hash id of a
 *    HASH record in the same stream (resolved like every other string id;
 *    NPUPROF_HOSTFMT_NO_STRING: ""). The recorder uses them only for a message
 *    the Str2Id dictionary holds exactly; another message (a hash collision)
 *    goes into TX records;
 *  - mstx records: info_type 1, category UINT32_MAX, payload_type 0,
 *    range_id NO_RANGE; MSTX_START is a range's start half (end_ns 0) and
 *    MSTX_END its end half (start_ns 0, domain 0, message "").
 *  - times: raw TSC ticks when the header has NPUPROF_HOSTFMT_F_TSC (the
 *    recorder's choice, once per process), which the decoder converts to
 *    CLOCK_MONOTONIC ns before any consumer sees the record.
 */

/* aclprofMark: event MARK, start_ns = end_ns = time_ns. */
struct npuprof_hostfmt_stamp_mark {
	struct npuprof_hostfmt_header h;
	uint64_t time_ns;
	uint64_t msg_id; /* the stamp's message (HASH id) */
	uint32_t category;
	int32_t payload_type;
};

/* aclprofPush .. aclprofPop: event PUSH_POP, written by Pop. */
struct npuprof_hostfmt_stamp_pop {
	struct npuprof_hostfmt_header h;
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t msg_id;
	uint32_t category;
	int32_t payload_type;
};

/* aclprofRangeStart .. aclprofRangeStop: event START_STOP, written by Stop
 * (on the stopping thread). */
struct npuprof_hostfmt_stamp_stop {
	struct npuprof_hostfmt_header h;
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t msg_id;
	uint32_t category;
	int32_t payload_type;
	uint32_t start_tid; /* thread that started it */
	uint32_t range_id;
};

/* mstxMarkA (MSTX_MARK: event MARK, start_ns = end_ns = time_ns) and the
 * start half of an mstx range (MSTX_START: event START_STOP, start_ns =
 * time_ns, end_ns 0), host-only or with a stream. */
struct npuprof_hostfmt_mstx {
	struct npuprof_hostfmt_header h;
	uint64_t time_ns;
	uint64_t mark_id;
	uint64_t domain; /* hash id of the domain ("default" included) */
	uint32_t msg_len; /* bytes of message, without the NUL */
	char message[]; /* msg_len bytes, NUL, padding to 8 */
};

/* The end half of an mstx range: event START_STOP, start_ns 0, end_ns =
 * time_ns, the ending thread. */
struct npuprof_hostfmt_mstx_end {
	struct npuprof_hostfmt_header h;
	uint64_t time_ns;
	uint64_t mark_id;
};

/* A (TSC, CLOCK_MONOTONIC) pair of a stream whose stamps carry TSC ticks
 * (NPUPROF_HOSTFMT_F_TSC): written by the recorder in session blocks (tid 0)
 * when a collection starts, at every cycle of the background writer and
 * when it stops. ref_* is an earlier pair, the recorder's calibration
 * reference (taken when it chose the TSC, at least
 * NPUPROF_HOSTFMT_CLOCK_MIN_SPAN_NS before any pair), so that even a stream
 * with a single CLOCK record has a rate; 0, 0: none. Each pair is read as
 * monotonic, rdtsc, monotonic (lfence-ordered) with the TSC read halfway. */
struct npuprof_hostfmt_clock {
	struct npuprof_hostfmt_header h;
	uint64_t tsc;
	uint64_t monotonic_ns;
	uint64_t ref_tsc;
	uint64_t ref_ns;
};

/* ---- CANN reporter records ----------------------------------------------
 * What CANN's components (and ours, which report the same way) hand to
 * libprofapi.so is stored unchanged: `data` holds the reported struct
 * (include/profiling/prof_common.h: MsprofApi, MsprofEvent,
 * MsprofCompactInfo, MsprofAdditionalInfo) with its own magic, level, type,
 * threadId and times, exactly as the reporter filled it in. Its times are
 * MsprofSysCycleTime() values: CLOCK_MONOTONIC_RAW ns, or raw TSC ticks when
 * the record header has NPUPROF_HOSTFMT_F_TSC; the decoder converts them to
 * CLOCK_MONOTONIC ns through the stream's CLOCK_RAW (and CLOCK) records
 * before any consumer sees them, and applies msprof's parser rules
 * (docs/ascend-reference.md §11.5) in the export. The strings the
 * structs name by hash (MsprofGetHashId / MsprofStr2Id) are HASH records;
 * the type names are MSPROF_TYPE records. Both dictionaries live for the
 * whole process: every collection's stream starts with all entries known
 * so far and gets each new one when it is made. */
struct npuprof_hostfmt_msprof {
	struct npuprof_hostfmt_header h;
	uint32_t flag; /* the report's `flag` argument (1: aging) */
	uint32_t len; /* bytes of data: 40, 64 or 256 */
	uint8_t data[]; /* the struct as reported */
};

/* MsprofRegTypeInfo(level, typeId, typeName). */
struct npuprof_hostfmt_msprof_type {
	struct npuprof_hostfmt_header h;
	uint16_t level; /* MSPROF_REPORT_*_LEVEL */
	uint16_t reserved; /* 0 */
	uint32_t type_id;
	uint32_t len; /* bytes of name, without the NUL */
	char name[]; /* NUL-terminated, padded to 8 */
};

/* The reports libprofapi.so refused during the collection, by reason,
 * written once when it stops (before END). Each refused report returned
 * CANN's code to its caller (in brackets) and was not stored. Counts only
 * ever grow at the end: a reader takes the fields its size covers. */
struct npuprof_hostfmt_msprof_bad {
	struct npuprof_hostfmt_header h;
	uint64_t null_data; /* a NULL report or name (-1) */
	uint64_t bad_magic; /* magicNumber != 0x5A5A (MSPROF_ERROR) */
	uint64_t bad_length; /* length is not the struct's size, dataLen larger
                                than the data area, a batch not a whole
                                number of records (MSPROF_ERROR) */
	uint64_t unregistered; /* (level, type) never named by
                                  MsprofRegTypeInfo (MSPROF_ERROR) */
	uint64_t after_finalize; /* after MsprofFinalize, before the next
                                    MsprofInit (MSPROF_ERROR_UNINITIALIZE) */
	uint64_t ring_full; /* the thread's ring was full (MSPROF_ERROR); also
                               in the blocks' `lost` */
};

/* A (CLOCK_MONOTONIC_RAW, CLOCK_MONOTONIC) pair, the raw read between two
 * monotonic reads (the tightest of several): written when a collection
 * starts, at every cycle of the background writer and when it stops, so the
 * decoder can convert MsprofSysCycleTime ns (interpolating between the pairs
 * around a time, extrapolating from the nearest span beyond them, as for
 * CLOCK). */
struct npuprof_hostfmt_clock_raw {
	struct npuprof_hostfmt_header h;
	uint64_t raw_ns;
	uint64_t monotonic_ns;
};

/* An aclprofStr2Id (or domain) hash id and its string, written once per
 * string per stream so that the export can resolve ids. */
struct npuprof_hostfmt_hash {
	struct npuprof_hostfmt_header h;
	uint64_t id;
	uint32_t len; /* bytes of str, without the NUL */
	uint32_t reserved;
	char str[]; /* len bytes, NUL, padding */
};

/* Tensors of one aclprofRangePushEx .. aclprofRangePop (more than
 * NPUPROF_TENSORS_PER_RECORD tensors continue in further records). */
#define NPUPROF_TENSORS_PER_RECORD 64
struct npuprof_hostfmt_tensor {
	uint32_t type;
	uint32_t format;
	uint32_t data_type;
	uint32_t shape_dim;
	uint32_t shape[8]; /* zero beyond shape_dim */
};
struct npuprof_hostfmt_tensor_info {
	struct npuprof_hostfmt_header h;
	uint32_t tid;
	uint32_t tensor_count; /* in this record */
	uint64_t start_ns; /* PushEx time */
	uint64_t end_ns; /* Pop time */
	uint64_t op_name_id;
	uint64_t op_type_id;
	uint64_t stream; /* aclrtStream handle value */
	uint32_t kernel_type;
	uint32_t block_nums;
	uint32_t first_tensor; /* index of tensors[0] in the op's tensor list */
	uint32_t total_tensors; /* tensorNum of the op */
	struct npuprof_hostfmt_tensor tensors[];
};

/* aclprofGetStepTimestamp. */
struct npuprof_hostfmt_step {
	struct npuprof_hostfmt_header h;
	uint32_t tid;
	uint32_t tag; /* aclprofStepTag */
	uint64_t index_id; /* the step info's index (1, 2, ...) */
	uint64_t time_ns;
	uint64_t stream;
};

/* An aclprofSetConfig option in effect for the collection. */
struct npuprof_hostfmt_option {
	struct npuprof_hostfmt_header h;
	uint32_t type; /* aclprofConfigType */
	uint32_t len;
	char value[]; /* len bytes, NUL, padding */
};

/* Last record of a stream that was closed cleanly (stop, finalize, exit).
 * Its absence means the file was truncated or its writer died. */
struct npuprof_hostfmt_end {
	struct npuprof_hostfmt_header h;
	uint64_t end_ns; /* CLOCK_MONOTONIC at close */
	uint64_t records; /* records committed by producers, process lifetime */
	uint64_t lost; /* records lost in full rings, process lifetime */
};

/* ---- Runtime records (kinds 8-12) ----------------------------------------
 *
 * Written by npuprof's ACL runtime (libascendcl.so, user/runtime) while a
 * collection runs; nothing is written (and no connectionId is spent) while
 * profiling is off. They carry what CANN's runtime, GE and HCCL report, so
 * that `npuprof export` can fill CANN_API, TASK (connectionId, host task
 * type), COMPUTE_TASK_INFO, MEMCPY_INFO, COMMUNICATION_OP and
 * COMMUNICATION_TASK_INFO (docs/ascend-reference.md §3.6-3.13, §5).
 *
 * Strings. Every string field is a 64-bit id (a *_id member), the
 * aclprofStr2Id hash of the string (npuprof_str2id_hash). Each id is
 * resolved by a NPUPROF_HOSTFMT_HASH record somewhere in the same stream (the
 * runtime registers every string through aclprofStr2Id's dictionary, which
 * writes each string once per stream and re-writes all of them when a
 * collection starts). A HASH record is not guaranteed to precede its first
 * use in file order (blocks of different threads interleave), so a reader
 * collects HASH records first or resolves at the end. NPUPROF_HOSTFMT_NO_STRING
 * (UINT64_MAX, also the hash of "") means absent: the export writes `N/A`.
 * Strings are stored exactly as the database shows them (shapes with their
 * literal double quotes, §1.5).
 *
 * connectionIds (§5.1). Every API record gets one: a per-process counter,
 * dense and 0-based in the order API calls are entered (across all threads
 * and collections; an API entered while profiling was off gets none). The
 * ids stay below 4000000000. A device task (TASK_TRACK and the detail
 * records of the same task) carries the connectionId of the innermost
 * node-level (10000, `launch`) API open on the submitting thread, else of
 * the innermost acl-level (20000) API, else NPUPROF_NO_CONNECTION (-1 in
 * TASK). Runtime-level (5000) and communication-level (5500) APIs never
 * lend their id to tasks. The exception is the device marker of
 * aclprofMarkEx / step markers (PROFILER_TRACE_EX): its TASK_TRACK carries
 * connection_id = 4000000001 + index_id, the MSTX link (§5.6).
 *
 * The task key. A device task is (device_id, stream_id, task_id, batch_id):
 * task_id is the 16-bit SQE task id, batch_id the number of times that
 * stream's task id wrapped before this task (msprof's "batchId"), so the key
 * is unique for the life of a stream. stream_id is the runtime stream id
 * written into the SQE (npusim's stream id). Every SQE the runtime submits
 * gets exactly one TASK_TRACK record; COMPUTE_OP and HCCL_TASK records add
 * details to the task with the same key. Stream ids may be reused after a
 * stream is destroyed; use the record times to tell lives apart.
 *
 * Times are CLOCK_MONOTONIC ns (npuprof_hostrec_now()) like every host
 * record. Enum-coded fields hold the ids of the db's ENUM_* tables, with
 * 65535 (NPUPROF_ENUM_INVALID) where the field does not apply.
 */
#define NPUPROF_HOSTFMT_NO_STRING NPUPROF_EXT_NO_STRING
#define NPUPROF_NO_CONNECTION UINT64_MAX
#define NPUPROF_ENUM_INVALID 65535u
#define NPUPROF_NO_ID32 UINT32_MAX /* contextId, modelId, dstRank: none */

/* One host API range: a CANN_API row. Written when the API returns, so a
 * thread's nested APIs appear innermost first. */
struct npuprof_hostfmt_api {
	struct npuprof_hostfmt_header h;
	uint32_t level; /* enum npuprof_api_level */
	uint32_t tid;
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t connection_id; /* CANN_API.connectionId */
	uint64_t name_id; /* API name: aclrtMemcpyAsync, launch,
                               KernelLaunch, hcom_allReduce_ ... */
	uint64_t item_id; /* what it acted on: node `launch` and
                               KernelLaunch: the op name; hcom_* and
                               communication level: the HCCL op name;
                               else NO_STRING (CANN's MsprofApi.itemId) */
	uint32_t device_id; /* the thread's current device; UINT32_MAX: none */
	int32_t result; /* aclError the API returned */
};

/* One SQE submitted by the runtime (CANN's task track): the host half of a
 * TASK row. */
struct npuprof_hostfmt_task_track {
	struct npuprof_hostfmt_header h;
	uint32_t tid;
	uint32_t device_id; /* logical device id (TASK.deviceId) */
	uint64_t time_ns; /* just before the SQE went to the driver */
	uint64_t connection_id; /* see above; NPUPROF_NO_CONNECTION: none */
	uint64_t task_type_id; /* runtime task-type name (TASK.taskType, §5.3):
                               KERNEL_AICORE, KERNEL_AIVEC, KERNEL_MIX_AIC,
                               KERNEL_MIX_AIV, MEMCPY_ASYNC, EVENT_RECORD,
                               EVENT_WAIT, NOTIFY_RECORD, NOTIFY_WAIT,
                               PROFILER_TRACE_EX, ... (replay: the name the
                               replayed database holds) */
	uint32_t stream_id;
	uint16_t task_id; /* the 16-bit SQE task id */
	uint8_t sqe_type; /* enum npusim_sqe_type (STARS numbering) */
	uint8_t reserved0; /* 0 */
	uint32_t batch_id; /* task-id wraps on this stream before this task */
	uint32_t model_id; /* NPUPROF_NO_ID32 (no graph models) */
	uint64_t duration_ns; /* the runtime's modelled duration (handed
                               to npusim beside the SQE, never in it;
                               0: from bytes, or a pure sync task) */
	uint64_t bytes; /* MEMCPY_ASYNC / SDMA: bytes moved (MEMCPY_INFO.size) */
	uint32_t memcpy_op; /* ENUM_MEMCPY_OPERATION id (1 H2D, 2 D2H, 3 D2D ...);
                               NPUPROF_ENUM_INVALID when not a copy */
	uint32_t trace_tag; /* PROFILER_TRACE_EX: tag (0/1 step, 11 mark,
                               12 range); else 0 */
	uint64_t index_id; /* PROFILER_TRACE_EX: index id (markId); else 0 */
};

/* Operator details of one kernel task: a COMPUTE_TASK_INFO row. */
struct npuprof_hostfmt_compute_op {
	struct npuprof_hostfmt_header h;
	uint32_t tid;
	uint32_t device_id;
	uint64_t time_ns; /* launch time (= its TASK_TRACK's) */
	uint64_t connection_id; /* the node `launch` API */
	uint32_t stream_id; /* task key ... */
	uint16_t task_id;
	uint16_t reserved0; /* 0 */
	uint32_t batch_id; /* ... task key */
	uint32_t context_id; /* NPUPROF_NO_ID32 (not an FFTS+ subtask) */
	uint64_t name_id; /* op (node) name, e.g. aclnnMm_MatMul_0 */
	uint64_t op_type_id; /* MatMul, Add ... */
	uint64_t task_type_id; /* GE task type: AI_CORE, AI_VECTOR_CORE,
                                   MIX_AIC, MIX_AIV, AI_CPU ... */
	uint64_t input_formats_id; /* "NCHW;ND" (no quotes) */
	uint64_t input_dtypes_id; /* "FLOAT16;FLOAT" */
	uint64_t input_shapes_id; /* "\"32,1024;1024\"" (quotes included) */
	uint64_t output_formats_id;
	uint64_t output_dtypes_id;
	uint64_t output_shapes_id;
	uint64_t attr_id; /* attrInfo; NO_STRING -> N/A */
	uint64_t op_state_id; /* opState (newer schemas); NO_STRING -> N/A */
	uint64_t hf32_id; /* hf32Eligible; NO_STRING -> N/A */
	uint32_t block_dim;
	uint32_t mix_block_dim; /* 0 unless MIX */
	uint32_t op_flag; /* CANN's opFlag (0 = static shape) */
	uint16_t input_count; /* tensors in the input lists */
	uint16_t output_count;
	uint64_t duration_ns; /* modelled duration */
};

/* One HCCL collective on one device (rank): a COMMUNICATION_OP row.
 * Written when the op's tasks have all been submitted on that device. */
struct npuprof_hostfmt_hccl_op {
	struct npuprof_hostfmt_header h;
	uint32_t tid;
	uint32_t device_id;
	uint64_t start_ns; /* host time the op's launch began ... */
	uint64_t end_ns; /* ... and ended (the device span is the
                                   export's: min/max of its tasks) */
	uint64_t connection_id; /* the node `launch` API that launched it */
	uint64_t op_seq; /* unique per process; HCCL_TASK.op_seq */
	uint64_t op_name_id; /* hcom_allReduce__<n>_<seq>_<k> */
	uint64_t op_type_id; /* hcom_allReduce_, hcom_broadcast_, ... */
	uint64_t group_name_id; /* communicator name */
	uint64_t alg_type_id; /* MESH-RING, HD-MESH ... */
	uint64_t count; /* elements of data_type */
	uint32_t data_type; /* ENUM_HCCL_DATA_TYPE id */
	uint32_t rank; /* this device's rank in the communicator */
	uint32_t rank_size;
	uint32_t stream_id; /* the op's main stream */
	uint8_t relay;
	uint8_t retry;
	uint16_t reserved0; /* 0 */
	uint32_t task_count; /* HCCL_TASK records of this op on this device */
};

/* One HCCL small task: a COMMUNICATION_TASK_INFO row. */
struct npuprof_hostfmt_hccl_task {
	struct npuprof_hostfmt_header h;
	uint32_t tid;
	uint32_t device_id;
	uint64_t time_ns;
	uint64_t connection_id; /* the op's (= HCCL_OP.connection_id) */
	uint64_t op_seq; /* HCCL_OP.op_seq of the owning op */
	uint64_t op_name_id; /* = the op's */
	uint64_t group_name_id; /* = the op's */
	uint64_t task_type_id; /* Notify_Wait, Notify_Record, Memcpy,
                                   Reduce_Inline ... */
	uint32_t stream_id; /* task key ... */
	uint16_t task_id;
	uint8_t is_master; /* 1: task of the op's main stream */
	uint8_t reserved0; /* 0 */
	uint32_t batch_id; /* ... task key */
	uint32_t context_id; /* NPUPROF_NO_ID32 */
	uint32_t plane_id;
	uint32_t src_rank;
	uint32_t dst_rank; /* NPUPROF_NO_ID32 when there is no peer */
	uint16_t transport_type; /* ENUM_HCCL_TRANSPORT_TYPE id (0 SDMA, 2 LOCAL) */
	uint16_t link_type; /* ENUM_HCCL_LINK_TYPE id; 65535 n/a */
	uint16_t rdma_type; /* ENUM_HCCL_RDMA_TYPE id; 65535 n/a */
	uint16_t data_type; /* ENUM_HCCL_DATA_TYPE id; 65535 unless a reduce */
	uint32_t reserved1; /* 0 */
	uint64_t size; /* bytes moved */
	uint64_t notify_id; /* notify tasks: the notify (owner device << 32
                                   | id); UINT64_MAX when none */
	uint64_t duration_estimated_ns; /* the runtime's model; 0: none */
	uint64_t bandwidth; /* bytes/s of the model; 0: none
                                   (COMMUNICATION_TASK_INFO.bandwidth) */
};

/* The process's rank in its job (npuprof/rank.h): written by the recorder
 * at every collection start from the environment (device_id
 * NPUPROF_RANK_ANY_DEVICE, source ENV; only if a variable is set), and by
 * the runtime's HCCL for each communicator initialised on a device (source
 * HCCL), at init and again at every later collection start. */
struct npuprof_hostfmt_rank {
	struct npuprof_hostfmt_header h;
	int32_t rank; /* NPUPROF_RANK_NONE: none */
	uint32_t rank_size; /* ranks in the communicator; 0: unknown */
	uint32_t device_id; /* NPUPROF_RANK_ANY_DEVICE: the whole process */
	uint32_t source; /* enum npuprof_rank_source */
	uint64_t group_name_id; /* communicator name (hash id); NO_STRING */
};

/* ---- Framework records ------------------------------------------------
 * Written by the framework layer (the npuprof.torch extension) through
 * npuprof_hostrec_reserve/commit, on the thread the event happened on;
 * strings are aclprofStr2Id hash ids (HASH records). The export turns them
 * into the PyTorch database's framework tables (PYTORCH_API,
 * CONNECTION_IDS, PYTORCH_CALLCHAINS, STEP_TIME, MEMORY_RECORD, OP_MEMORY,
 * GC_RECORD): what links them to CANN (an op's launches, the op that made
 * an allocation) is derived from time containment on the same thread, so
 * nothing below the framework changes. */

/* PYTORCH_API.type is one of NPUPROF_EXT_FWK_API_* and strings are joined
 * by NPUPROF_EXT_FWK_SEP (profiling/npuprof_ext.h, through which the
 * framework layer reports these records). */

/* One framework API range: a PYTORCH_API row. Written when it ends, so a
 * thread's nested ops appear innermost first. */
struct npuprof_hostfmt_fwk_op {
	struct npuprof_hostfmt_header h;
	uint32_t tid; /* thread it ran on */
	uint32_t fwd_tid; /* backward op: the forward op's thread (torch's
                               fwdThreadId); 0: none */
	uint64_t start_ns;
	uint64_t end_ns;
	int64_t seq; /* autograd sequence number; -1: none */
	uint64_t name_id; /* aten::addmm, ProfilerStep#3, Optimizer.step ... */
	uint64_t dtypes_id; /* input dtypes joined by NPUPROF_EXT_FWK_SEP (torch's
                               names: float, long int, Scalar, ...);
                               NO_STRING: not recorded */
	uint64_t shapes_id; /* input shapes, one "[d0, d1]" per input ("[]"
                               for a scalar or non-tensor), same joining */
	uint64_t stack_id; /* Python stack, frames "file(line): func",
                               innermost first, joined by NPUPROF_EXT_FWK_SEP;
                               NO_STRING: with_stack off */
	uint32_t type; /* NPUPROF_EXT_FWK_API_* */
	uint32_t reserved; /* 0 */
};

/* One allocator event (profile_memory): a MEMORY_RECORD row; the export
 * pairs an allocation with the release of the same address into an
 * OP_MEMORY row named after the innermost op running on the allocating
 * thread. */
struct npuprof_hostfmt_fwk_mem {
	struct npuprof_hostfmt_header h;
	uint32_t tid;
	uint32_t device_id; /* MEMORY_RECORD.deviceId */
	uint64_t time_ns;
	uint64_t ptr; /* block address */
	int64_t size; /* bytes: > 0 allocated, < 0 released */
	uint64_t total_allocated; /* after the event, bytes */
	uint64_t total_reserved;
	uint64_t total_active;
	uint64_t stream; /* ACL stream handle value; 0: none */
	uint64_t component_id; /* "PTA", "GE" or "PTA+GE" */
};

/* One Python garbage collection: a GC_RECORD row. */
struct npuprof_hostfmt_fwk_gc {
	struct npuprof_hostfmt_header h;
	uint32_t tid;
	uint32_t generation; /* the collected generation (0-2) */
	uint64_t start_ns;
	uint64_t end_ns;
};

/* Record sizes round up to this. */
#define NPUPROF_HOSTFMT_ALIGN 8u
static inline uint32_t npuprof_hostfmt_size(size_t fixed, size_t var)
{
	return (uint32_t)((fixed + var + NPUPROF_HOSTFMT_ALIGN - 1) &
			  ~(size_t)(NPUPROF_HOSTFMT_ALIGN - 1));
}

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32()). */
uint32_t npuprof_crc32(uint32_t crc, const void *data, size_t len);
/* The CRC of a block: its header with crc taken as 0, then its bh->size
 * bytes of records, so that damage to tid, seq or lost is caught too. */
uint32_t npuprof_hostfmt_block_crc(const struct npuprof_hostfmt_block_header *bh,
				   const void *records);

#ifdef __cplusplus
}
#endif

#endif /* NPUPROF_HOSTFMT_H */
