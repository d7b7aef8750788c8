/*
 * hostdata_engine.h — between hostdata.c (what both readers share: the
 * decoding of every record, the CANN reports' own stream, the records that
 * are not per task) and the two engines that hold the per-task records:
 * hostdata_load.c (whole, in arrays) and hostdata_stream.c (a k-way merge,
 * pass 2). Internal to user/export/hostdata*.c.
 */
#ifndef NPUPROF_HOSTDATA_ENGINE_H
#define NPUPROF_HOSTDATA_ENGINE_H

#include "hostdata_records.h"

#define TRACK_SLACK_NS 2000000ULL /* a track precedes its submit */

struct hs_index; /* hostdata_stream.c: pass 1's block index of one file */

/* Pass 1 over one stream (hostdata_on_rec's context). */
struct hostdata_load_ctx {
	struct hostdata *h;
	uint32_t pid;
	int oom;
	int keep_api; /* every API call into h->api */
	struct hs_index *index; /* the streaming engine's, while it decodes */
	struct cann_file *cann; /* the stream's CANN reports (cannrec.h) */
	uint64_t refused[6]; /* MSPROF_BAD's counts, summed */
};

struct hostdata_engine {
	/* its state (h->eng_state), freed by release */
	void *(*create)(void);
	void (*release)(void *state);
	/* decodes one stream file / the stream made of a file's CANN reports
	 * through hostdata_on_rec: the decoder's result; a failure before
	 * decoding (the temporary file) is returned with *fatal set and err */
	int (*decode_file)(struct hostdata_load_ctx *ctx, const char *path,
			   struct npuprof_hostread_file_info *info,
			   struct npuprof_hostread_decode_stats *stats, char *derr, size_t derrlen);
	int (*decode_buffer)(struct hostdata_load_ctx *ctx, const uint8_t *buf, size_t len,
			     const char *name, struct npuprof_hostread_file_info *info,
			     struct npuprof_hostread_decode_stats *stats, char *derr,
			     size_t derrlen, int *fatal, char *err, size_t errlen);
	/* before anything else of a record (may be NULL) */
	int (*on_record)(struct hostdata_load_ctx *ctx,
			 const struct npuprof_hostfmt_block_header *b,
			 const struct npuprof_hostfmt_header *rec);
	/* a TASK_TRACK, COMPUTE_OP or HCCL_TASK record of pass 1 (NULL: not
	 * held in pass 1) */
	int (*per_task)(struct hostdata_load_ctx *ctx, const struct npuprof_hostfmt_header *rec);
	/* after every stream */
	int (*finish)(struct hostdata *h, char *err, size_t errlen);
	/* the queries both engines answer (hostdata.h) */
	const struct hostdata_track *(*match_track)(struct hostdata *h, uint64_t key, uint64_t t);
	const struct hostdata_compute *(*compute)(const struct hostdata *h, uint64_t key,
						  uint32_t batch);
	const struct hostdata_hccl_task *(*hccl_task)(const struct hostdata *h, uint64_t key,
						      uint32_t batch);
	const struct hostdata_api *(*enclosing_api)(struct hostdata *h, uint32_t pid, uint32_t tid,
						    uint64_t t);
};

extern const struct hostdata_engine hostdata_whole_engine, hostdata_stream_engine;

/* Reads every stream of dir/host/data through eng (hostdata_load,
 * hostdata_open). */
int hostdata_read(struct hostdata *h, const char *dir, const struct hostdata_engine *eng,
		  unsigned flags, FILE *warn, char *err, size_t errlen);
/* The record handler of npuprof_hostread_decode* for pass 1. */
int hostdata_on_rec(void *ctx, const struct npuprof_hostfmt_block_header *b,
		    const struct npuprof_hostfmt_header *rec);

/* The one decoder of the per-task records into their compact forms. `rec`
 * is at least as long as its kind. */
int hostdata_decode_api(struct hostdata *h, uint32_t pid, const struct npuprof_hostfmt_header *rec,
			struct hostdata_api *a);
void hostdata_decode_track(uint32_t pid, const struct npuprof_hostfmt_header *rec,
			   struct hostdata_track *t);
int hostdata_decode_compute(struct hostdata *h, uint32_t pid,
			    const struct npuprof_hostfmt_header *rec, struct hostdata_compute *c);
void hostdata_decode_htask(uint32_t pid, const struct npuprof_hostfmt_header *rec,
			   struct hostdata_hccl_task *t);

/* Pass 1 over an API record: the export's own connectionIds (CANN reports)
 * follow every runtime-written one of the session. */
static inline void hostdata_note_conn(struct hostdata *h, const struct npuprof_hostfmt_header *rec)
{
	const struct npuprof_hostfmt_api *a = (const void *)rec;

	if (rec->size >= sizeof(*a) && a->connection_id < NPUPROF_MSTX_HOST_CONNECTION &&
	    a->connection_id >= h->cann_next_conn)
		h->cann_next_conn = a->connection_id + 1;
}

/* A track's task key. */
static inline uint64_t hostdata_track_key(const struct hostdata_track *t)
{
	return hostdata_task_key(t->pid, t->r.device_id, t->r.stream_id, t->r.task_id);
}

/* Appends item to arr (n items, grown at powers of two); on no memory sets
 * (ctx)->oom and returns -ENOMEM from the caller. */
#define HOSTDATA_PUSH(arr, n, item, ctx)                                                  \
	do {                                                                              \
		if (((n) & ((n)-1)) == 0) { /* grow at powers of two */                   \
			void *p_ = realloc((arr), ((n) ? 2 * (n) : 16) * sizeof(*(arr))); \
			if (!p_) {                                                        \
				(ctx)->oom = 1;                                           \
				return -ENOMEM;                                           \
			}                                                                 \
			(arr) = p_;                                                       \
		}                                                                         \
		(arr)[(n)++] = (item);                                                    \
	} while (0)

#endif
