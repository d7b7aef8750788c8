/*
 * hostrec_internal.h - recorder functions shared inside the recorder but
 * not part of its API (aclprof.c and str2id.c use them).
 */
#ifndef NPUPROF_HOSTREC_INTERNAL_H
#define NPUPROF_HOSTREC_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "fsutil.h"
#include "hostrec.h"

/* Writes `len` bytes of complete records straight to the running stream as
 * one block (tid 0), bypassing the rings. For rare, possibly large records
 * (the hash dictionary, options) that must not be dropped. Returns 0, or
 * -ENOTCONN if no collection runs, or a negative errno. */
int npuprof_hostrec_emit(const void *records, size_t len);

/* Registers a function that the recorder calls, with the stream open and
 * before any producer record, at every start (used to write the hash
 * dictionary and options). One callback; later calls replace it. */
void npuprof_hostrec_set_start_hook(void (*fn)(void));

/* ---- the producer fast path, inlined into the recorder's stamp calls -----
 *
 * The exported npuprof_hostrec_reserve/commit/now/tid are what the runtime
 * calls (through the PLT). The recorder's own msproftx and mstx calls use
 * these inline versions instead: no PLT call, and the per-thread state is
 * reached with the initial-exec TLS model (one %fs-relative load, no
 * __tls_get_addr call). The library's TLS is a few pointers, well inside the
 * static TLS surplus that glibc keeps for dlopen'ed libraries. */
#define NPUPROF_TLS_IE __attribute__((tls_model("initial-exec")))
#define npuprof_likely(x) __builtin_expect(!!(x), 1)
#define npuprof_unlikely(x) __builtin_expect(!!(x), 0)

/* One thread's ring. head is written only by its thread, tail only by the
 * writer; they live on separate cache lines so the two do not bounce. */
struct tbuf {
	_Atomic uint64_t head;
	char pad0[56];
	_Atomic uint64_t tail;
	char pad1[56];
	/* producer-only */
	uint64_t cached_tail;
	uint64_t pending; /* position of the reserved, uncommitted record */
	uint64_t committed; /* records ever committed (stats; relaxed atomics) */
	/* shared, rarely written */
	_Atomic uint64_t lost; /* dropped since the last block (writer resets) */
	_Atomic int kicked; /* the writer has been woken for this ring */
	_Atomic int exited; /* the thread is gone; free once drained */
	uint32_t tid;
	uint32_t cap; /* power of two */
	uint8_t *data;
	struct tbuf *next;
};

extern __thread struct tbuf *npuprof_t_buf NPUPROF_TLS_IE;
extern __thread uint32_t npuprof_t_tid NPUPROF_TLS_IE;
extern _Atomic int npuprof_g_active;
/* commit's rare half: wakes the writer when the ring passed a quarter. */
void npuprof_hostrec_commit_check(struct tbuf *tb, uint64_t end);

/* The clock read of every host record: the vDSO's clock_gettime called
 * directly (found when the recorder first starts), else libc's. The same
 * CLOCK_MONOTONIC; it only skips libc's wrapper (a PLT jump, two loads and
 * a call), which is a tenth of what a stamp call adds to its clock read. */
typedef int (*npuprof_clock_fn)(clockid_t, struct timespec *);
extern npuprof_clock_fn _Atomic npuprof_g_clock;

static inline uint64_t hostrec_now(void)
{
	struct timespec ts;

	atomic_load_explicit(&npuprof_g_clock, memory_order_relaxed)(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The stamp records' time base (hostfmt.h NPUPROF_HOSTFMT_F_TSC), chosen once
 * per process when the recorder first starts (NPUPROF_HOST_CLOCK, README):
 * NPUPROF_HOSTFMT_F_TSC when the TSC is invariant and the kernel keeps
 * CLOCK_MONOTONIC with it, so that the reader converts ticks exactly; else
 * 0. Set before the first collection's records and never changed, so a
 * range's two times always share their base. */
extern uint16_t npuprof_g_stamp_flags;

/* The clock read of the compact stamp records: with the TSC time base one
 * plain rdtsc (not ordered by an lfence: a stamp is a point in the
 * program's flow, not a fence), else hostrec_now(). The record that carries
 * the value says which (hostrec_stamp_flags()). */
static inline uint64_t hostrec_stamp_now(void)
{
#if defined(__x86_64__)
	if (npuprof_likely(npuprof_g_stamp_flags)) {
		uint32_t lo, hi;

		__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
		return (uint64_t)hi << 32 | lo;
	}
#endif
	return hostrec_now();
}

static inline uint16_t hostrec_stamp_flags(void)
{
	return npuprof_g_stamp_flags;
}

static inline uint32_t hostrec_tid(void)
{
	uint32_t t = npuprof_t_tid;

	return npuprof_likely(t) ? t : npuprof_hostrec_tid();
}

/* npuprof_hostrec_reserve, with the common case inline: a registered ring
 * with room before its end. Everything else takes the exported function. */
static inline void *hostrec_reserve(uint16_t kind, uint32_t size, uint16_t flags)
{
	struct tbuf *tb = npuprof_t_buf;
	struct npuprof_hostfmt_header *h;
	uint64_t pos;
	uint32_t off;

	if (npuprof_unlikely(!tb) || !atomic_load_explicit(&npuprof_g_active, memory_order_relaxed))
		goto slow;
	pos = atomic_load_explicit(&tb->head, memory_order_relaxed);
	off = (uint32_t)pos & (tb->cap - 1);
	if (npuprof_unlikely(size > tb->cap - off || pos + size - tb->cached_tail > tb->cap ||
			     size > tb->cap / 4))
		goto slow;
	tb->pending = pos;
	h = (void *)(tb->data + off);
	h->size = size;
	h->kind = kind;
	h->reserved = flags;
	return h;
slow:
	h = npuprof_hostrec_reserve(kind, size);
	if (h)
		h->reserved = flags;
	return h;
}

/* reserve/commit of the compact records' writers: the reserved record's
 * ring and end travel from reserve to commit in registers, so that commit
 * loads nothing that reserve just stored (the record's size, tb->pending)
 * and the thread's ring is looked up once. */
struct hostrec_slot {
	struct tbuf *tb;
	uint64_t end;
};

static inline void *hostrec_reserve_slot(uint16_t kind, uint32_t size, struct hostrec_slot *s,
					 uint16_t flags)
{
	struct tbuf *tb = npuprof_t_buf;
	struct npuprof_hostfmt_header *h;

	if (npuprof_likely(tb) && atomic_load_explicit(&npuprof_g_active, memory_order_relaxed)) {
		uint64_t pos = atomic_load_explicit(&tb->head, memory_order_relaxed);
		uint32_t off = (uint32_t)pos & (tb->cap - 1);

		if (npuprof_likely(size <= tb->cap - off &&
				   pos + size - tb->cached_tail <= tb->cap &&
				   size <= tb->cap / 4)) {
			s->tb = tb;
			s->end = pos + size;
			h = (void *)(tb->data + off);
			*h = (struct npuprof_hostfmt_header){ .size = size,
							      .kind = kind,
							      .reserved = flags };
			return h;
		}
	}
	h = npuprof_hostrec_reserve(kind, size);
	if (h) {
		((struct npuprof_hostfmt_header *)h)->reserved = flags;
		s->tb = npuprof_t_buf;
		s->end = s->tb->pending + size;
	}
	return h;
}

static inline void hostrec_commit_slot(const struct hostrec_slot *s)
{
	struct tbuf *tb = s->tb;

	atomic_store_explicit(&tb->head, s->end, memory_order_release);
	__atomic_store_n(&tb->committed, tb->committed + 1, __ATOMIC_RELAXED);
	if (npuprof_unlikely(s->end - tb->cached_tail > tb->cap / 4))
		npuprof_hostrec_commit_check(tb, s->end);
}

/* memcpy for the short messages of stamps and marks. The compiler's inline
 * expansion of a variable-length memcpy (rep movs) has a start-up cost of
 * tens of cycles, more than the rest of a mark; overlapping fixed-size
 * moves cost a few. */
static inline void hostrec_copy(char *d, const char *s, size_t n)
{
	if (n >= 16) {
		size_t i;

		for (i = 0; i + 16 < n; i += 16)
			__builtin_memcpy(d + i, s + i, 16);
		__builtin_memcpy(d + n - 16, s + n - 16, 16);
	} else if (n >= 8) {
		__builtin_memcpy(d, s, 8);
		__builtin_memcpy(d + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		__builtin_memcpy(d, s, 4);
		__builtin_memcpy(d + n - 4, s + n - 4, 4);
	} else {
		for (size_t i = 0; i < n; i++)
			d[i] = s[i];
	}
}

static inline void hostrec_commit(void *rec)
{
	struct tbuf *tb = npuprof_t_buf;
	uint64_t end = tb->pending + ((const struct npuprof_hostfmt_header *)rec)->size;

	atomic_store_explicit(&tb->head, end, memory_order_release);
	__atomic_store_n(&tb->committed, tb->committed + 1, __ATOMIC_RELAXED);
	if (npuprof_unlikely(end - tb->cached_tail > tb->cap / 4))
		npuprof_hostrec_commit_check(tb, end);
}

/* Writes one TX record (msproftx and mstx alike; domain 0: the default;
 * flags: the header's NPUPROF_HOSTFMT_F_*, the time base of start and end);
 * 0, or -1 (CANN's PROF_FAILED) if it could not be recorded (no collection, ring
 * full), which CANN reports as a failed report. */
static inline __attribute__((always_inline)) int hostrec_emit_tx(
	uint16_t info_type, uint16_t event, uint64_t start, uint64_t end, uint32_t tid,
	uint32_t start_tid, uint32_t range_id, uint64_t mark_id, uint64_t domain, uint32_t category,
	int32_t payload_type, const char *msg, uint32_t msg_len, uint16_t flags)
{
	uint32_t size = npuprof_hostfmt_size(offsetof(struct npuprof_hostfmt_tx, message),
					     (size_t)msg_len + 1);
	struct npuprof_hostfmt_tx *r = hostrec_reserve(NPUPROF_HOSTFMT_TX, size, flags);

	if (!r)
		return -1;
	/* Zero the padding first; the fixed fields or the message may then
	 * overwrite part of it. */
	memset((char *)r + size - NPUPROF_HOSTFMT_ALIGN, 0, NPUPROF_HOSTFMT_ALIGN);
	r->tid = tid;
	r->start_tid = start_tid;
	r->start_ns = start;
	r->end_ns = end;
	r->mark_id = mark_id;
	r->domain = domain;
	r->category = category;
	r->payload_type = payload_type;
	r->range_id = range_id;
	r->info_type = info_type;
	r->event_type = event;
	r->msg_len = msg_len;
	hostrec_copy(r->message, msg, msg_len);
	r->message[msg_len] = '\0';
	hostrec_commit(r);
	return 0;
}

/* The compact msproftx / mstx records (hostfmt.h, kinds 17-22), one
 * writer each; 0, or -1 if nothing could be recorded (no collection, ring
 * full). The thread is the ring's. Their times come from hostrec_stamp_now()
 * and the records carry hostrec_stamp_flags(). */
static inline __attribute__((always_inline)) int hostrec_emit_stamp_mark(uint64_t time,
									 uint64_t msg_id,
									 uint32_t category,
									 int32_t payload_type)
{
	struct hostrec_slot sl;
	struct npuprof_hostfmt_stamp_mark *r = hostrec_reserve_slot(
		NPUPROF_HOSTFMT_STAMP_MARK, sizeof(struct npuprof_hostfmt_stamp_mark), &sl,
		hostrec_stamp_flags());

	if (!r)
		return -1;
	r->time_ns = time;
	r->msg_id = msg_id;
	r->category = category;
	r->payload_type = payload_type;
	hostrec_commit_slot(&sl);
	return 0;
}

/* STAMP_POP, or STAMP_STOP when range_id is not NPUPROF_TX_NO_RANGE. */
static inline __attribute__((always_inline)) int hostrec_emit_stamp_range(
	uint64_t start, uint64_t end, uint64_t msg_id, uint32_t category, int32_t payload_type,
	uint32_t start_tid, uint32_t range_id)
{
	int stop = range_id != NPUPROF_TX_NO_RANGE;
	struct hostrec_slot sl;
	struct npuprof_hostfmt_stamp_stop *r =
		hostrec_reserve_slot(stop ? NPUPROF_HOSTFMT_STAMP_STOP : NPUPROF_HOSTFMT_STAMP_POP,
				     stop ? sizeof(struct npuprof_hostfmt_stamp_stop) :
					    sizeof(struct npuprof_hostfmt_stamp_pop),
				     &sl, hostrec_stamp_flags());

	if (!r)
		return -1;
	r->start_ns = start;
	r->end_ns = end;
	r->msg_id = msg_id;
	r->category = category;
	r->payload_type = payload_type;
	if (stop) {
		r->start_tid = start_tid;
		r->range_id = range_id;
	}
	hostrec_commit_slot(&sl);
	return 0;
}

/* MSTX_MARK or MSTX_START (kind) with its message. */
static inline __attribute__((always_inline)) int hostrec_emit_mstx(uint16_t kind, uint64_t time,
								   uint64_t mark_id,
								   uint64_t domain, const char *msg,
								   uint32_t msg_len)
{
	uint32_t size = npuprof_hostfmt_size(offsetof(struct npuprof_hostfmt_mstx, message),
					     (size_t)msg_len + 1);
	struct hostrec_slot slot;
	struct npuprof_hostfmt_mstx *r = hostrec_reserve_slot(kind, size, &slot,
							      hostrec_stamp_flags());

	if (!r)
		return -1;
	memset((char *)r + size - NPUPROF_HOSTFMT_ALIGN, 0, NPUPROF_HOSTFMT_ALIGN);
	r->time_ns = time;
	r->mark_id = mark_id;
	r->domain = domain;
	r->msg_len = msg_len;
	hostrec_copy(r->message, msg, msg_len);
	r->message[msg_len] = '\0';
	hostrec_commit_slot(&slot);
	return 0;
}

static inline __attribute__((always_inline)) int hostrec_emit_mstx_end(uint64_t time,
								       uint64_t mark_id)
{
	struct hostrec_slot slot;
	struct npuprof_hostfmt_mstx_end *r = hostrec_reserve_slot(
		NPUPROF_HOSTFMT_MSTX_END, sizeof(struct npuprof_hostfmt_mstx_end), &slot,
		hostrec_stamp_flags());

	if (!r)
		return -1;
	r->time_ns = time;
	r->mark_id = mark_id;
	hostrec_commit_slot(&slot);
	return 0;
}

/* The process's rank table (rank_table.c), below the recorder: it builds the
 * records, hostrec.c writes them. */
#define NPUPROF_RANK_RECORDS_MAX 65 /* 64 devices' HCCL ranks and the environment's */
/* The environment's rank and every kept HCCL rank, as records: their count. */
unsigned npuprof_rank_records(struct npuprof_hostfmt_rank out[NPUPROF_RANK_RECORDS_MAX]);
/* Keeps device_id's HCCL rank as record *r: 1 if kept (the device's first),
 * 0 if the device has one already or the table is full (*r is filled
 * either way). */
int npuprof_rank_keep(uint32_t device_id, int32_t rank, uint32_t rank_size, uint64_t group_name_id,
		      struct npuprof_hostfmt_rank *r);

#endif
