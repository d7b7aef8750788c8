/*
 * hostrec.h - the raw host stream: its on-disk layout (the ONE definition of
 * every host record kind), the recorder that writes it, and the decoder that
 * `npuprof export` uses to read it back.
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
 *  - NPUPROF_HOST_VERSION changes only if the framing (file header, block
 *    header, record header) changes incompatibly; decoders reject other
 *    versions.
 *  - Record kinds are never renumbered or reused. New kinds take the next
 *    number; decoders pass kinds they do not know to the caller, who skips
 *    them by size.
 *  - An existing record only ever gains fields at its end. Readers accept a
 *    record longer than they know (and ignore the tail); the decoder rejects a
 *    record shorter than the minimum size of its kind.
 */
#ifndef NPUPROF_HOSTREC_H
#define NPUPROF_HOSTREC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- On-disk layout --------------------------------------------------- */

#define NPUPROF_HOST_MAGIC "NPUHOST" /* 8 bytes with the NUL */
#define NPUPROF_HOST_VERSION 1
#define NPUPROF_HOST_BYTE_ORDER 0x01020304u
#define NPUPROF_HOST_BLOCK_MAGIC 0x4B4C4248u /* "HBLK" */
#define NPUPROF_HOST_FILE_PREFIX "npuprof.host."
#define NPUPROF_HOST_FILE_SUFFIX ".raw"

/* Written once, at offset 0. The clock pair converts every timestamp of the
 * stream (CLOCK_MONOTONIC ns) to Unix ns: unix = mono + realtime - monotonic. */
struct npuprof_host_file_header {
    char magic[8];          /* NPUPROF_HOST_MAGIC */
    uint16_t version;       /* NPUPROF_HOST_VERSION */
    uint16_t header_size;   /* sizeof(struct npuprof_host_file_header) */
    uint32_t byte_order;    /* NPUPROF_HOST_BYTE_ORDER as written */
    uint32_t pid;           /* the profiled process */
    uint32_t block_align;   /* blocks and records start at multiples of this (8) */
    uint64_t realtime_ns;   /* CLOCK_REALTIME ...  */
    uint64_t monotonic_ns;  /* ... and CLOCK_MONOTONIC, sampled back to back */
    uint64_t switches;      /* ACL_PROF_* bits of the collection */
    char hostname[64];      /* NUL-terminated */
    uint64_t reserved[2];   /* written as 0 */
};

struct npuprof_host_block_header {
    uint32_t magic; /* NPUPROF_HOST_BLOCK_MAGIC */
    uint32_t size;  /* bytes of records that follow (multiple of 8) */
    uint32_t crc;   /* npuprof_host_block_crc(): this header (crc as 0)
                       and the records */
    uint32_t tid;   /* thread whose buffer this is; 0 for session records */
    uint64_t seq;   /* 0, 1, 2 ... per file; a gap means a lost block */
    uint64_t lost;  /* records this thread could not record (buffer full)
                       since its previous block */
};

struct npuprof_hrec_header {
    uint32_t size;     /* whole record, header included; multiple of 8 */
    uint16_t kind;     /* enum npuprof_hrec_kind */
    uint16_t reserved; /* written as 0 */
};

enum npuprof_hrec_kind {
    NPUPROF_HREC_PAD = 0,         /* filler at a buffer's wrap point; skip */
    NPUPROF_HREC_SESSION = 1,     /* struct npuprof_hrec_session */
    NPUPROF_HREC_TX = 2,          /* struct npuprof_hrec_tx: msproftx events */
    NPUPROF_HREC_HASH = 3,        /* struct npuprof_hrec_hash: id -> string */
    NPUPROF_HREC_TENSOR_INFO = 4, /* struct npuprof_hrec_tensor_info */
    NPUPROF_HREC_STEP = 5,        /* struct npuprof_hrec_step */
    NPUPROF_HREC_OPTION = 6,      /* struct npuprof_hrec_option */
    NPUPROF_HREC_END = 7,         /* struct npuprof_hrec_end: clean close */
    NPUPROF_HREC_KIND_COUNT       /* first unassigned kind */
};

/* The collection's configuration, first record of every stream. */
struct npuprof_hrec_session {
    struct npuprof_hrec_header h;
    uint64_t switches;       /* ACL_PROF_* bits after post-processing */
    uint32_t aicore_metrics; /* aclprofAicoreMetrics */
    uint32_t dev_count;      /* entries in dev_ids (the host is not listed) */
    uint32_t dev_ids[];      /* padded to 8 */
};

/* msproftx event types, as in CANN's raw record and ENUM_MSTX_EVENT_TYPE. */
enum npuprof_tx_event {
    NPUPROF_TX_MARK = 0,
    NPUPROF_TX_PUSH_POP = 1,
    NPUPROF_TX_START_STOP = 2,
    NPUPROF_TX_MARK_EX = 3,
};

/* One msproftx event (CANN's MsprofTxInfo, without its fixed 156-byte
 * message). info_type 0 = stamp APIs, 1 = MarkEx / mstx. */
#define NPUPROF_TX_NO_RANGE 0xFFFFFFFFu
struct npuprof_hrec_tx {
    struct npuprof_hrec_header h;
    uint32_t tid;          /* thread CANN attributes the event to: the one that
                              ended it (Pop, RangeStop) */
    uint32_t start_tid;    /* thread that started it */
    uint64_t start_ns;     /* CLOCK_MONOTONIC */
    uint64_t end_ns;       /* = start_ns for marks */
    uint64_t mark_id;      /* MarkEx transaction id (connectionId - 4000000001) */
    uint64_t domain;       /* hash id of the mstx domain; 0 for stamp APIs */
    uint32_t category;     /* stamp category; 0xFFFFFFFF for MarkEx */
    int32_t payload_type;  /* stamp payload type */
    uint32_t range_id;     /* rangeId of START_STOP events, else NO_RANGE */
    uint16_t info_type;
    uint16_t event_type;   /* enum npuprof_tx_event */
    uint32_t msg_len;      /* bytes of message, without the NUL */
    char message[];        /* msg_len bytes, NUL, padding to 8 */
};

/* An aclprofStr2Id (or domain) hash id and its string, written once per
 * string per stream so that the export can resolve ids. */
struct npuprof_hrec_hash {
    struct npuprof_hrec_header h;
    uint64_t id;
    uint32_t len; /* bytes of str, without the NUL */
    uint32_t reserved;
    char str[];   /* len bytes, NUL, padding */
};

/* Tensors of one aclprofRangePushEx .. aclprofRangePop (more than
 * NPUPROF_TENSORS_PER_RECORD tensors continue in further records). */
#define NPUPROF_TENSORS_PER_RECORD 64
struct npuprof_hrec_tensor {
    uint32_t type;
    uint32_t format;
    uint32_t data_type;
    uint32_t shape_dim;
    uint32_t shape[8]; /* zero beyond shape_dim */
};
struct npuprof_hrec_tensor_info {
    struct npuprof_hrec_header h;
    uint32_t tid;
    uint32_t tensor_count;  /* in this record */
    uint64_t start_ns;      /* PushEx time */
    uint64_t end_ns;        /* Pop time */
    uint64_t op_name_id;
    uint64_t op_type_id;
    uint64_t stream;        /* aclrtStream handle value */
    uint32_t kernel_type;
    uint32_t block_nums;
    uint32_t first_tensor;  /* index of tensors[0] in the op's tensor list */
    uint32_t total_tensors; /* tensorNum of the op */
    struct npuprof_hrec_tensor tensors[];
};

/* aclprofGetStepTimestamp. */
struct npuprof_hrec_step {
    struct npuprof_hrec_header h;
    uint32_t tid;
    uint32_t tag;      /* aclprofStepTag */
    uint64_t index_id; /* the step info's index (1, 2, ...) */
    uint64_t time_ns;
    uint64_t stream;
};

/* An aclprofSetConfig option in effect for the collection. */
struct npuprof_hrec_option {
    struct npuprof_hrec_header h;
    uint32_t type; /* aclprofConfigType */
    uint32_t len;
    char value[];  /* len bytes, NUL, padding */
};

/* Last record of a stream that was closed cleanly (stop, finalize, exit).
 * Its absence means the file was truncated or its writer died. */
struct npuprof_hrec_end {
    struct npuprof_hrec_header h;
    uint64_t end_ns;  /* CLOCK_MONOTONIC at close */
    uint64_t records; /* records committed by producers, process lifetime */
    uint64_t lost;    /* records lost in full rings, process lifetime */
};

/* Record sizes round up to this. */
#define NPUPROF_HREC_ALIGN 8u
static inline uint32_t npuprof_hrec_size(size_t fixed, size_t var)
{
    return (uint32_t)((fixed + var + NPUPROF_HREC_ALIGN - 1) & ~(size_t)(NPUPROF_HREC_ALIGN - 1));
}

/* ---- Recorder -----------------------------------------------------------
 * One collection at a time per process. Producers write into a per-thread
 * ring (allocated on a thread's first record) without locks or allocation;
 * a background thread writes full and periodic blocks to the stream; stop,
 * flush and process exit drain every ring. A full ring drops the record and
 * counts it (block_header.lost) instead of blocking. */

struct npuprof_hostrec_config {
    const char *dir;            /* the PROF_* directory (created if needed) */
    uint64_t switches;          /* ACL_PROF_* bits */
    uint32_t aicore_metrics;
    uint32_t dev_count;
    const uint32_t *dev_ids;
    size_t buffer_size;         /* per-thread ring; 0: NPUPROF_BUFFER_SIZE or 1 MiB */
    unsigned flush_interval_ms; /* 0: NPUPROF_FLUSH_INTERVAL_MS or 100 */
};

struct npuprof_hostrec_stats {
    uint64_t records; /* records committed by producers */
    uint64_t lost;    /* records dropped because a ring was full */
    uint64_t blocks;  /* blocks written */
    uint64_t bytes;   /* bytes written, headers included */
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

/* Starts the collection that `npuprof record` passes through the environment
 * (NPUPROF_OUTPUT_DIR and friends, documented in acl/acl_prof.h). libnpuprof
 * calls this when it is loaded; it is exported for hosts that load the
 * library late and for tests. Returns 0 (also when NPUPROF_OUTPUT_DIR is
 * unset), or a negative errno with a message in err: -EBUSY if the profiling
 * API is already in use, -EINVAL for a malformed variable. */
int npuprof_session_from_env(char *err, size_t errlen);

/* ---- Decoder ------------------------------------------------------------ */

struct npuprof_host_file_info {
    struct npuprof_host_file_header header;
    uint64_t file_size;
};

struct npuprof_host_decode_stats {
    uint64_t blocks;        /* valid blocks */
    uint64_t records;       /* records passed to the callback (PAD excluded) */
    uint64_t lost;          /* sum of block_header.lost */
    uint64_t bad_blocks;    /* blocks rejected (header, CRC or record framing) */
    uint64_t skipped_bytes; /* bytes not decoded because of damage */
    uint64_t problems;      /* every problem found, truncation included */
    int closed;             /* an END record was found */
};

/* Called for every valid record but PAD, in file order. `block` is the header
 * of the record's block. Returning non-zero stops decoding; that value is
 * returned by npuprof_host_decode. */
typedef int (*npuprof_host_record_fn)(void *ctx, const struct npuprof_host_block_header *block,
                                      const struct npuprof_hrec_header *rec);

/* Decodes the stream at `path`. Damage does not stop it: a bad block is
 * reported and skipped, a truncated tail is reported. Only valid records
 * (framing, CRC, per-kind minimum size, NUL-terminated strings, counts within
 * the record) reach `fn`. Returns 0 if the file was clean, NPUPROF_HOST_EDAMAGED
 * if any damage was found (err then holds "<path>: offset <n>: <what>" for the
 * first problem, and stats->problems counts them all), a negative errno if the
 * file cannot be read or its header is invalid, or the callback's value. */
#define NPUPROF_HOST_EDAMAGED (-1000)
int npuprof_host_decode(const char *path, npuprof_host_record_fn fn, void *ctx,
                        struct npuprof_host_file_info *info, struct npuprof_host_decode_stats *stats,
                        char *err, size_t errlen);

/* Same on a buffer (the whole file's bytes); `name` is used in messages. */
int npuprof_host_decode_buffer(const void *data, size_t len, const char *name, npuprof_host_record_fn fn,
                               void *ctx, struct npuprof_host_file_info *info,
                               struct npuprof_host_decode_stats *stats, char *err, size_t errlen);

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32()). */
uint32_t npuprof_crc32(uint32_t crc, const void *data, size_t len);
/* The CRC of a block: its header with crc taken as 0, then its bh->size
 * bytes of records, so that damage to tid, seq or lost is caught too. */
uint32_t npuprof_host_block_crc(const struct npuprof_host_block_header *bh, const void *records);

/* The hash behind aclprofStr2Id: two 32-bit polynomial hashes (x29, x131)
 * over the bytes as C `char` values, (h29 << 32) | h131; UINT64_MAX for an
 * empty string. Pure function; aclprofStr2Id adds the dictionary. */
uint64_t npuprof_str2id_hash(const char *s, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* NPUPROF_HOSTREC_H */
