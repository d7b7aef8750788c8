/*
 * mstx.c - the mstx marker API (mstx/ms_tools_ext.h): marks, ranges and
 * domains, host only or anchored to a stream by device marker tasks.
 *
 * Records (npuprof/hostfmt.h, the compact MSTX_* kinds; the export reads
 * them as NPUPROF_HOSTFMT_TX with info_type 1): a mark is one record; a range
 * is two halves, written when it starts (message, domain, starting thread)
 * and when it ends (id and time only), which the export joins by mark id. So neither call keeps state
 * that another thread must find, and a range may end anywhere.
 *
 * Hot path (host only): one flag load, a mark id from the thread's block of
 * ids (one atomic add per NPUPROF_MSTX_ID_BLOCK ids, shared with MarkEx), one
 * clock read and one record through the inline ring fast path; per-thread
 * state uses the initial-exec TLS model. With a stream, the id is also put
 * into a small table of open stream ranges (so that mstxRangeEnd, which has
 * no stream argument, finds the stream for the closing marker) and the
 * runtime launches the marker task (tag 11 mark, 12 range start and end).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_prof.h"
#include "aclprof_internal.h"
#include "hostrec_internal.h"
#include "hostrec.h"
#include "mstx/ms_tools_ext.h"
#include "rtplugin.h"

#define MSTX_MSG_MAX 4095 /* bytes of message kept */
#define MSTX_DOMAIN_MAX 1023
#define NPUPROF_MSTX_ID_BLOCK 256
#define SR_SLOTS 4096 /* open stream ranges (power of two) */
#define SR_PROBE 16
#define DOMAIN_MAGIC 0x6D737478u /* "mstx" */
#define DOMAIN_DEAD 0xDEADD011u

struct mstxDomainRegistration_st {
	_Atomic uint32_t magic;
	uint32_t len;
	uint64_t hash; /* npuprof_str2id_hash of the name */
	struct mstxDomainRegistration_st *next;
	char name[];
};

/* The transaction counter of mstx and MarkEx (aclprof.c; the first id is
 * 1): mstx takes blocks of ids per thread, MarkEx one id. The generation
 * changes when the library is reset, so that threads drop the blocks they
 * hold. Defined here, with the msproftx switch aclprof.c sets, so that
 * aclprof.c uses this file and this file nothing of aclprof.c. */
_Atomic uint64_t npuprof_g_mark_id;
_Atomic uint32_t npuprof_g_mark_gen;
/* 1 while a collection with ACL_PROF_MSPROFTX runs (aclprof.c sets it). */
_Atomic int npuprof_g_tx_collecting;

static pthread_mutex_t g_dom_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mstxDomainRegistration_st *g_domains; /* live and destroyed */
static _Atomic uint64_t g_default_hash; /* 0 until "default" is registered */

/* Open ranges that have a stream: id -> stream. */
struct srange {
	_Atomic uint64_t id; /* 0: free */
	void *_Atomic stream;
};
static struct srange g_sr[SR_SLOTS];
static _Atomic int g_sr_open; /* slots in use: host-only ends skip the table at 0 */

static __thread struct {
	uint64_t next, end;
	uint32_t gen;
} t_ids NPUPROF_TLS_IE;

static uint64_t ids_refill(void)
{
	uint64_t base = atomic_fetch_add_explicit(&npuprof_g_mark_id, NPUPROF_MSTX_ID_BLOCK,
						  memory_order_relaxed);

	t_ids.gen = atomic_load_explicit(&npuprof_g_mark_gen, memory_order_relaxed);
	t_ids.next = base + 2;
	t_ids.end = base + NPUPROF_MSTX_ID_BLOCK + 1;
	return base + 1;
}

/* A fresh transaction id, unique in the process (MarkEx included). */
static inline uint64_t next_id(void)
{
	if (npuprof_unlikely(
		    t_ids.next == t_ids.end ||
		    t_ids.gen != atomic_load_explicit(&npuprof_g_mark_gen, memory_order_relaxed)))
		return ids_refill();
	return t_ids.next++;
}

static inline int collecting(void)
{
	return atomic_load_explicit(&npuprof_g_tx_collecting, memory_order_relaxed);
}

static uint64_t default_domain_slow(void)
{
	uint64_t h = aclprofStr2Id("default");

	atomic_store_explicit(&g_default_hash, h, memory_order_relaxed);
	return h;
}

/* The hash of "default", registered once per process (the dictionary
 * re-writes it at every collection start). */
static inline uint64_t default_domain(void)
{
	uint64_t h = atomic_load_explicit(&g_default_hash, memory_order_relaxed);

	return npuprof_likely(h) ? h : default_domain_slow();
}

/* The domain's hash, or 0 if the handle is not a live domain. */
static uint64_t domain_hash(mstxDomainHandle_t d)
{
	if (!d || atomic_load_explicit(&d->magic, memory_order_acquire) != DOMAIN_MAGIC)
		return 0;
	return d->hash;
}

static int launch(void *stream, uint64_t id, uint16_t tag)
{
	return rtplugin_trace(stream, id, NPUPROF_TRACE_MODEL_ID, tag);
}

/* mark, range_start and range_end read the clock as soon as they know that
 * they record: what they do afterwards (the message's length, the id, the
 * record) then overlaps the clock read's conversion instead of waiting in
 * front of its serialising TSC read. domain 0: the default domain. Inlined
 * into each API function (no further call). */
static inline __attribute__((always_inline)) void mark(uint64_t domain, const char *msg,
						       aclrtStream stream)
{
	uint64_t id, now;
	size_t len;

	if (!collecting() || !msg || !*msg)
		return;
	now = hostrec_stamp_now();
	len = strnlen(msg, MSTX_MSG_MAX);
	id = next_id();
	if (!domain)
		domain = default_domain();
	if (stream && launch(stream, id, NPUPROF_EXT_TRACE_MARK))
		return; /* as CANN: no device marker, no report */
	/* no room or no collection records nothing, as mstx returns no status */
	(void)hostrec_emit_mstx(NPUPROF_HOSTFMT_MSTX_MARK, now, id, domain, msg, (uint32_t)len);
}

static int sr_insert(uint64_t id, void *stream)
{
	for (unsigned i = 0; i < SR_PROBE; i++) {
		struct srange *s = &g_sr[(id + i) & (SR_SLOTS - 1)];
		uint64_t zero = 0;

		if (atomic_load_explicit(&s->id, memory_order_relaxed) == 0 &&
		    atomic_compare_exchange_strong(&s->id, &zero, id)) {
			atomic_store_explicit(&s->stream, stream, memory_order_relaxed);
			atomic_fetch_add(&g_sr_open, 1);
			return 0;
		}
	}
	return -1;
}

/* Takes id's slot out of the table; its stream, or NULL if id has none. */
static void *sr_take(uint64_t id)
{
	if (!atomic_load_explicit(&g_sr_open, memory_order_relaxed))
		return NULL;
	for (unsigned i = 0; i < SR_PROBE; i++) {
		struct srange *s = &g_sr[(id + i) & (SR_SLOTS - 1)];
		uint64_t want = id;

		if (atomic_load_explicit(&s->id, memory_order_acquire) != id)
			continue;
		void *stream = atomic_load_explicit(&s->stream, memory_order_relaxed);

		/* Two threads ending the same id: one wins the slot. */
		if (atomic_compare_exchange_strong(&s->id, &want, 0)) {
			atomic_fetch_sub(&g_sr_open, 1);
			return stream;
		}
		return NULL;
	}
	return NULL;
}

static inline __attribute__((always_inline)) mstxRangeId range_start(uint64_t domain,
								     const char *msg,
								     aclrtStream stream)
{
	uint64_t id, now;
	size_t len;

	if (!collecting() || !msg || !*msg)
		return MSTX_INVALID_ID;
	now = hostrec_stamp_now();
	len = strnlen(msg, MSTX_MSG_MAX);
	id = next_id();
	if (!domain)
		domain = default_domain();
	if (stream) {
		if (sr_insert(id, stream))
			return MSTX_INVALID_ID;
		if (launch(stream, id, NPUPROF_EXT_TRACE_RANGE)) {
			sr_take(id);
			return MSTX_INVALID_ID;
		}
	}
	/* The start half (hostfmt.h). */
	(void)hostrec_emit_mstx(NPUPROF_HOSTFMT_MSTX_START, now, id, domain, msg, (uint32_t)len);
	return id;
}

static inline __attribute__((always_inline)) void range_end(mstxRangeId id)
{
	uint64_t now;
	void *stream;

	if (id == MSTX_INVALID_ID)
		return;
	now = hostrec_stamp_now();
	stream = sr_take(id);
	if (!collecting())
		return;
	if (stream)
		launch(stream, id, NPUPROF_EXT_TRACE_RANGE);
	/* The end half. */
	(void)hostrec_emit_mstx_end(now, id);
}

/* ---- the API ------------------------------------------------------------------ */

void mstxMarkA(const char *message, aclrtStream stream)
{
	mark(0, message, stream);
}

mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream)
{
	return range_start(0, message, stream);
}

void mstxRangeEnd(mstxRangeId id)
{
	range_end(id);
}

mstxDomainHandle_t mstxDomainCreateA(const char *name)
{
	struct mstxDomainRegistration_st *d;
	size_t len;

	if (!name)
		return NULL;
	len = strnlen(name, MSTX_DOMAIN_MAX + 1);
	if (len == 0 || len > MSTX_DOMAIN_MAX)
		return NULL;
	pthread_mutex_lock(&g_dom_lock);
	for (d = g_domains; d; d = d->next)
		if (d->len == len && !memcmp(d->name, name, len) &&
		    atomic_load_explicit(&d->magic, memory_order_relaxed) == DOMAIN_MAGIC)
			break;
	if (!d) {
		d = calloc(1, sizeof(*d) + len + 1);
		if (d) {
			memcpy(d->name, name, len);
			d->len = (uint32_t)len;
			/* Registers the name with the Str2Id dictionary, so that the
             * export can resolve the hash (also written at every start). */
			d->hash = aclprofStr2Id(d->name);
			atomic_store_explicit(&d->magic, DOMAIN_MAGIC, memory_order_release);
			d->next = g_domains;
			g_domains = d;
		}
	}
	pthread_mutex_unlock(&g_dom_lock);
	return d;
}

void mstxDomainDestroy(mstxDomainHandle_t domain)
{
	pthread_mutex_lock(&g_dom_lock);
	/* Only handles we gave out; the memory stays (a late call through a
     * destroyed handle finds a dead magic, not freed memory). */
	for (struct mstxDomainRegistration_st *d = g_domains; d; d = d->next)
		if (d == domain)
			atomic_store_explicit(&d->magic, DOMAIN_DEAD, memory_order_release);
	pthread_mutex_unlock(&g_dom_lock);
}

void mstxDomainMarkA(mstxDomainHandle_t domain, const char *message, aclrtStream stream)
{
	uint64_t h = domain_hash(domain);

	if (h)
		mark(h, message, stream);
}

mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain, const char *message,
				  aclrtStream stream)
{
	uint64_t h = domain_hash(domain);

	return h ? range_start(h, message, stream) : MSTX_INVALID_ID;
}

void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id)
{
	if (domain_hash(domain))
		range_end(id);
}

void npuprof_mstx_reset(void)
{
	pthread_mutex_lock(&g_dom_lock);
	while (g_domains) {
		struct mstxDomainRegistration_st *d = g_domains;

		g_domains = d->next;
		free(d);
	}
	pthread_mutex_unlock(&g_dom_lock);
	atomic_store(&g_default_hash, 0);
	for (unsigned i = 0; i < SR_SLOTS; i++)
		atomic_store(&g_sr[i].id, 0);
	atomic_store(&g_sr_open, 0);
}
