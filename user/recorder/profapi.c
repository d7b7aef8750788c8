/*
 * profapi.c - CANN's host reporter ABI (include/profiling/), the one in-app
 * entry for host data: the control plane (component registrations, devices,
 * the commands of a collection), the reports (stored as reported on the
 * recorder's lock-free per-thread path), the name dictionaries and the clock.
 * README.md says what follows CANN and where it differs.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profiling/npuprof_ext.h"
#include "profiling/prof_api.h"

#include "aclprof_internal.h"
#include "hostrec_internal.h"
#include "hostrec.h"
#include "profapi_internal.h"
#include "subscribe.h"

#define MAX_MODULES 64
#define MAX_HANDLES 8
#define INVALID_MODEL_ID 0xFFFFFFFFu
/* MsprofReportBatchAdditionalInfo's limit: 512 records */
#define BATCH_MAX ((uint32_t)(512 * sizeof(struct MsprofAdditionalInfo)))

/* ---- refused reports ------------------------------------------------------ */

enum bad_reason {
	BAD_NULL,
	BAD_MAGIC,
	BAD_LENGTH,
	BAD_UNREGISTERED,
	BAD_FINALIZED,
	BAD_RING_FULL,
	BAD_NOT_COLLECTING,
	BAD_FORKED,
	BAD_COUNT
};
static _Atomic uint64_t g_bad[BAD_COUNT];

static __attribute__((noinline, cold)) int refuse(enum bad_reason why, int code)
{
	atomic_fetch_add_explicit(&g_bad[why], 1, memory_order_relaxed);
	return code;
}

static _Atomic int g_forked; /* this process is a forked child */
static _Atomic int g_finalized; /* MsprofFinalize, no MsprofInit since */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void on_fork_child(void)
{
	atomic_store(&g_forked, 1);
}

static void once_init(void)
{
	pthread_atfork(NULL, NULL, on_fork_child);
}

/* ---- registered type names: (level, type) -> name --------------------------
 * Open addressing, lock-free to read (the report path asks whether a
 * (level, type) is registered), written under g_type_lock. Names live for
 * the whole process: CANN registers them at load, long before a collection. */
#define TYPE_BITS 13
#define TYPE_CAP (1u << TYPE_BITS)
struct type_ent {
	_Atomic uint64_t key; /* ((level << 32) | type) + 1; 0: empty */
	char *_Atomic name;
	uint32_t len;
};
static struct type_ent g_types[TYPE_CAP];
static unsigned g_ntypes;
static pthread_mutex_t g_type_lock = PTHREAD_MUTEX_INITIALIZER;

static inline uint64_t type_key(uint16_t level, uint32_t type)
{
	return (((uint64_t)level << 32) | type) + 1;
}

static inline uint32_t type_slot(uint64_t key)
{
	return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - TYPE_BITS));
}

static inline int type_known(uint16_t level, uint32_t type)
{
	uint64_t key = type_key(level, type);

	for (uint32_t i = type_slot(key), n = 0; n < TYPE_CAP; i = (i + 1) & (TYPE_CAP - 1), n++) {
		uint64_t k = atomic_load_explicit(&g_types[i].key, memory_order_acquire);

		if (npuprof_likely(k == key))
			return 1;
		if (!k)
			return 0;
	}
	return 0;
}

static uint32_t type_rec_size(uint32_t len)
{
	return npuprof_hostfmt_size(offsetof(struct npuprof_hostfmt_msprof_type, name),
				    (size_t)len + 1);
}

static void fill_type_rec(struct npuprof_hostfmt_msprof_type *r, uint64_t key, const char *name,
			  uint32_t len)
{
	uint32_t size = type_rec_size(len);

	memset(r, 0, size);
	r->h.size = size;
	r->h.kind = NPUPROF_HOSTFMT_MSPROF_TYPE;
	r->level = (uint16_t)((key - 1) >> 32);
	r->type_id = (uint32_t)(key - 1);
	r->len = len;
	memcpy(r->name, name, len);
}

int32_t MsprofRegTypeInfo(uint16_t level, uint32_t typeId, const char *typeName)
{
	uint64_t key = type_key(level, typeId);
	size_t len;
	char *copy, *old = NULL;
	struct type_ent *e = NULL;

	if (!typeName)
		return refuse(BAD_NULL, PROF_FAILED);
	len = strlen(typeName);
	if (len == 0 || len > 4096)
		return PROF_FAILED;
	copy = malloc(len + 1);
	if (!copy)
		return PROF_FAILED;
	memcpy(copy, typeName, len + 1);
	pthread_mutex_lock(&g_type_lock);
	for (uint32_t i = type_slot(key), n = 0; n < TYPE_CAP; i = (i + 1) & (TYPE_CAP - 1), n++) {
		uint64_t k = atomic_load_explicit(&g_types[i].key, memory_order_relaxed);

		if (k == key || !k) {
			e = &g_types[i];
			break;
		}
	}
	/* a full table (more than 7/8) refuses: probes stay short */
	if (!e || (!atomic_load(&e->key) && g_ntypes >= TYPE_CAP / 8 * 7)) {
		pthread_mutex_unlock(&g_type_lock);
		free(copy);
		return PROF_FAILED;
	}
	if (atomic_load(&e->key)) {
		old = atomic_load(&e->name);
		if (e->len == len && !memcmp(old, copy, len)) {
			/* the same name again: nothing new to write */
			pthread_mutex_unlock(&g_type_lock);
			free(copy);
			return MSPROF_ERROR_NONE;
		}
	}
	atomic_store(&e->name, copy);
	e->len = (uint32_t)len;
	if (!atomic_load(&e->key)) {
		g_ntypes++;
		atomic_store_explicit(&e->key, key, memory_order_release);
	}
	if (npuprof_hostrec_active()) {
		uint32_t size = type_rec_size((uint32_t)len);
		struct npuprof_hostfmt_msprof_type *r = malloc(size);

		if (r) {
			fill_type_rec(r, key, copy, (uint32_t)len);
			npuprof_hostrec_emit(r, size);
			free(r);
		}
	}
	pthread_mutex_unlock(&g_type_lock);
	/* a renamed type: readers never follow names, so the old one can go */
	free(old);
	return MSPROF_ERROR_NONE;
}

void npuprof_profapi_emit_types(void)
{
	size_t total = 0, off = 0;
	uint8_t *buf;

	pthread_mutex_lock(&g_type_lock);
	for (uint32_t i = 0; i < TYPE_CAP; i++)
		if (atomic_load_explicit(&g_types[i].key, memory_order_relaxed))
			total += type_rec_size(g_types[i].len);
	buf = total ? malloc(total) : NULL;
	if (buf) {
		for (uint32_t i = 0; i < TYPE_CAP; i++) {
			uint64_t k = atomic_load_explicit(&g_types[i].key, memory_order_relaxed);

			if (!k)
				continue;
			fill_type_rec((struct npuprof_hostfmt_msprof_type *)(buf + off), k,
				      atomic_load(&g_types[i].name), g_types[i].len);
			off += type_rec_size(g_types[i].len);
		}
		npuprof_hostrec_emit(buf, total);
		free(buf);
	}
	pthread_mutex_unlock(&g_type_lock);
}

int32_t MsprofRegDataFormat(uint16_t level, uint32_t typeId, const char *dataFormat)
{
	(void)level;
	(void)typeId;
	/* Accepted and not kept: msprof's parser reads none of it for the host
	 * records npuprof exports. */
	return dataFormat ? MSPROF_ERROR_NONE : PROF_FAILED;
}

/* ---- hashed strings ------------------------------------------------------- */

uint64_t MsprofGetHashId(const char *hashInfo, size_t length)
{
	uint64_t id;

	if (!hashInfo || length == 0)
		return UINT64_MAX;
	npuprof_str2id_intern(hashInfo, length, &id);
	return id;
}

uint64_t MsprofStr2Id(const char *hashInfo, size_t length)
{
	return MsprofGetHashId(hashInfo, length);
}

char *MsprofId2Str(const uint64_t Id)
{
	return (char *)npuprof_str2id_lookup(Id);
}

/* ---- time ------------------------------------------------------------------
 * CANN reads the raw counter only where the driver reports a host
 * oscillator frequency; npuprof's hosts have none, so this is always
 * CLOCK_MONOTONIC_RAW in ns, as CANN's own fallback. The stream's CLOCK_RAW
 * pairs convert it. */
uint64_t MsprofSysCycleTime(void)
{
	struct timespec ts;

	atomic_load_explicit(&npuprof_g_clock, memory_order_relaxed)(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- reports --------------------------------------------------------------- */

/* Why a report cannot be stored now, as CANN's return code (0: it can). */
static __attribute__((noinline, cold)) int not_now(void)
{
	if (atomic_load_explicit(&g_forked, memory_order_relaxed))
		return refuse(BAD_FORKED, MSPROF_ERROR_UNINITIALIZE);
	if (atomic_load_explicit(&g_finalized, memory_order_relaxed))
		return refuse(BAD_FINALIZED, MSPROF_ERROR_UNINITIALIZE);
	return refuse(BAD_NOT_COLLECTING, MSPROF_ERROR_UNINITIALIZE);
}

static inline int may_report(void)
{
	return atomic_load_explicit(&npuprof_g_active, memory_order_relaxed) &&
	       !atomic_load_explicit(&g_finalized, memory_order_relaxed) &&
	       !atomic_load_explicit(&g_forked, memory_order_relaxed);
}

/* One MSPROF_* record holding `len` bytes of `data` as reported. */
static inline __attribute__((always_inline)) int store(uint16_t kind, uint32_t flag,
						       const void *data, uint32_t len)
{
	struct hostrec_slot sl;
	struct npuprof_hostfmt_msprof *r = hostrec_reserve_slot(
		kind, (uint32_t)sizeof(struct npuprof_hostfmt_msprof) + len, &sl, 0);

	if (npuprof_unlikely(!r))
		return npuprof_hostrec_active() ? refuse(BAD_RING_FULL, MSPROF_ERROR) : not_now();
	r->flag = flag;
	r->len = len;
	__builtin_memcpy(r->data, data, len);
	hostrec_commit_slot(&sl);
	return MSPROF_ERROR_NONE;
}

/* The heads of all four report structs begin with magic, level, type. */
static inline int head_ok(const void *p, int *code)
{
	const struct MsprofApi *h = p;

	if (npuprof_unlikely(h->magicNumber != MSPROF_REPORT_DATA_MAGIC_NUM)) {
		*code = refuse(BAD_MAGIC, MSPROF_ERROR);
		return 0;
	}
	if (npuprof_unlikely(!type_known(h->level, h->type))) {
		*code = refuse(BAD_UNREGISTERED, MSPROF_ERROR);
		return 0;
	}
	return 1;
}

int32_t MsprofReportApi(uint32_t nonPersistantFlag, const struct MsprofApi *api)
{
	int code;

	if (npuprof_unlikely(!api))
		return refuse(BAD_NULL, PROF_FAILED);
	if (npuprof_unlikely(!may_report()))
		return not_now();
	if (!head_ok(api, &code))
		return code;
	return store(NPUPROF_HOSTFMT_MSPROF_API, nonPersistantFlag, api, sizeof(*api));
}

int32_t MsprofReportEvent(uint32_t nonPersistantFlag, const struct MsprofEvent *event)
{
	int code;

	if (npuprof_unlikely(!event))
		return refuse(BAD_NULL, PROF_FAILED);
	if (npuprof_unlikely(!may_report()))
		return not_now();
	if (!head_ok(event, &code))
		return code;
	return store(NPUPROF_HOSTFMT_MSPROF_EVENT, nonPersistantFlag, event, sizeof(*event));
}

int32_t MsprofReportCompactInfo(uint32_t nonPersistantFlag, const VOID_PTR data, uint32_t length)
{
	const struct MsprofCompactInfo *c = data;
	int code;

	if (npuprof_unlikely(!c))
		return refuse(BAD_NULL, PROF_FAILED);
	if (npuprof_unlikely(!may_report()))
		return not_now();
	if (npuprof_unlikely(length != sizeof(*c) || c->dataLen > MSPROF_COMPACT_INFO_DATA_LENGTH))
		return refuse(BAD_LENGTH, MSPROF_ERROR);
	if (!head_ok(c, &code))
		return code;
	return store(NPUPROF_HOSTFMT_MSPROF_COMPACT, nonPersistantFlag, c, sizeof(*c));
}

static inline int additional_one(uint32_t flag, const struct MsprofAdditionalInfo *a)
{
	int code;

	if (npuprof_unlikely(a->dataLen > MSPROF_ADDTIONAL_INFO_DATA_LENGTH))
		return refuse(BAD_LENGTH, MSPROF_ERROR);
	if (!head_ok(a, &code))
		return code;
	return store(NPUPROF_HOSTFMT_MSPROF_ADDITIONAL, flag, a, sizeof(*a));
}

int32_t MsprofReportAdditionalInfo(uint32_t nonPersistantFlag, const VOID_PTR data, uint32_t length)
{
	if (npuprof_unlikely(!data))
		return refuse(BAD_NULL, PROF_FAILED);
	if (npuprof_unlikely(!may_report()))
		return not_now();
	if (npuprof_unlikely(length != sizeof(struct MsprofAdditionalInfo)))
		return refuse(BAD_LENGTH, MSPROF_ERROR);
	return additional_one(nonPersistantFlag, data);
}

/* One record per struct; the bad ones are refused one by one and the call
 * says MSPROF_ERROR if any was. */
int32_t MsprofReportBatchAdditionalInfo(uint32_t nonPersistantFlag, const VOID_PTR data,
					uint32_t length)
{
	const struct MsprofAdditionalInfo *a = data;
	int ret = MSPROF_ERROR_NONE;

	if (!a)
		return refuse(BAD_NULL, PROF_FAILED);
	if (!may_report())
		return not_now();
	if (length == 0 || length % sizeof(*a) || length > BATCH_MAX)
		return refuse(BAD_LENGTH, PROF_FAILED);
	for (uint32_t i = 0; i < length / sizeof(*a); i++) {
		int r = additional_one(nonPersistantFlag, &a[i]);

		if (r)
			ret = r;
	}
	return ret;
}

size_t MsprofGetBatchReportMaxSize(uint32_t type)
{
	return type == MSPROF_BATCH_ADDITIONAL_INFO ? BATCH_MAX : 0;
}

void npuprof_profapi_get_bad(struct npuprof_profapi_bad *b)
{
	b->null_data = atomic_load(&g_bad[BAD_NULL]);
	b->bad_magic = atomic_load(&g_bad[BAD_MAGIC]);
	b->bad_length = atomic_load(&g_bad[BAD_LENGTH]);
	b->unregistered = atomic_load(&g_bad[BAD_UNREGISTERED]);
	b->after_finalize = atomic_load(&g_bad[BAD_FINALIZED]);
	b->ring_full = atomic_load(&g_bad[BAD_RING_FULL]);
	b->not_collecting = atomic_load(&g_bad[BAD_NOT_COLLECTING]);
	b->forked = atomic_load(&g_bad[BAD_FORKED]);
}

static void emit_bad(void)
{
	struct npuprof_hostfmt_msprof_bad r = {
		.h = { .size = sizeof(r), .kind = NPUPROF_HOSTFMT_MSPROF_BAD },
		.null_data = atomic_load(&g_bad[BAD_NULL]),
		.bad_magic = atomic_load(&g_bad[BAD_MAGIC]),
		.bad_length = atomic_load(&g_bad[BAD_LENGTH]),
		.unregistered = atomic_load(&g_bad[BAD_UNREGISTERED]),
		.after_finalize = atomic_load(&g_bad[BAD_FINALIZED]),
		.ring_full = atomic_load(&g_bad[BAD_RING_FULL]),
	};

	npuprof_hostrec_emit(&r, sizeof(r));
}

/* ---- control plane --------------------------------------------------------
 * One recursive lock serialises registrations and command delivery; the
 * callbacks run with it held, on the thread that caused the command, so a
 * callback may register (or report, or name types) but two commands never
 * interleave. */
struct module {
	uint32_t id;
	unsigned n;
	ProfCommandHandle h[MAX_HANDLES];
};
static pthread_mutex_t g_cp_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct module g_mods[MAX_MODULES]; /* sorted by id */
static unsigned g_nmods;
static int g_collecting;
static uint64_t g_switch;
static uint64_t g_dev_wanted; /* the collection's devices (bit per id) */
static uint64_t g_dev_open; /* announced by MsprofNotifySetDevice */
static uint64_t g_dev_started;
/* Attached to CANN's libprofapi (attach.c): its profSetProfCommand, which
 * hands a command to the modules registered there. */
static npuprof_profapi_command_fn g_upstream;

uint64_t npuprof_profapi_switch(uint64_t acl)
{
	uint64_t s = acl & ~PROF_AICORE_SHAPE_MASK;

	if (s & PROF_TASK_TIME_MASK)
		s |= PROF_RUNTIME_TRACE_MASK;
	return s;
}

/* CANN's order (command_handle.cpp ProfSetProCommand): RUNTIME, ASCENDCL,
 * GE first for INIT and START, GE, ASCENDCL, RUNTIME first for STOP and
 * FINALIZE; the other modules after them, by id, either way. */
static unsigned module_order(uint32_t type, const struct module **out)
{
	static const uint32_t first_start[] = { NPUPROF_CANN_MOD_RUNTIME, NPUPROF_CANN_MOD_ASCENDCL,
						NPUPROF_CANN_MOD_GE };
	static const uint32_t first_stop[] = { NPUPROF_CANN_MOD_GE, NPUPROF_CANN_MOD_ASCENDCL,
					       NPUPROF_CANN_MOD_RUNTIME };
	const uint32_t *first = type == PROF_COMMANDHANDLE_TYPE_STOP ||
						type == PROF_COMMANDHANDLE_TYPE_FINALIZE ?
					first_stop :
					first_start;
	unsigned n = 0;

	for (unsigned f = 0; f < 3; f++)
		for (unsigned i = 0; i < g_nmods; i++)
			if (g_mods[i].id == first[f])
				out[n++] = &g_mods[i];
	for (unsigned i = 0; i < g_nmods; i++)
		if (g_mods[i].id != NPUPROF_CANN_MOD_RUNTIME &&
		    g_mods[i].id != NPUPROF_CANN_MOD_ASCENDCL &&
		    g_mods[i].id != NPUPROF_CANN_MOD_GE)
			out[n++] = &g_mods[i];
	return n;
}

static void command_for(struct MsprofCommandHandle *c, uint32_t type, int dev)
{
	memset(c, 0, sizeof(*c));
	c->profSwitch = g_switch;
	c->type = type;
	c->modelId = INVALID_MODEL_ID;
	if (dev >= 0) {
		c->devNums = 1;
		c->devIdList[0] = (uint32_t)dev;
	}
}

/* Under g_cp_lock: one handle gets the command (a copy: it may write it). */
static void deliver(ProfCommandHandle h, const struct MsprofCommandHandle *c)
{
	struct MsprofCommandHandle copy = *c;

	h(PROF_CTRL_SWITCH, &copy, (uint32_t)sizeof(copy));
}

/* Under g_cp_lock: command c to every module's handles, in CANN's order. */
static void deliver_all(const struct MsprofCommandHandle *c)
{
	const struct module *order[MAX_MODULES];
	unsigned n = module_order(c->type, order);

	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < order[i]->n; j++)
			deliver(order[i]->h[j], c);
}

/* Under g_cp_lock: `type` for device `dev` (-1: none) to every module. */
static void broadcast(uint32_t type, int dev)
{
	struct MsprofCommandHandle c;

	command_for(&c, type, dev);
	deliver_all(&c);
	if (g_upstream) {
		struct MsprofCommandHandle copy = c;

		g_upstream(&copy, (uint32_t)sizeof(copy));
	}
}

void npuprof_profapi_set_upstream(npuprof_profapi_command_fn cmd)
{
	pthread_mutex_lock(&g_cp_lock);
	g_upstream = cmd;
	pthread_mutex_unlock(&g_cp_lock);
}

/* Under g_cp_lock. */
static void start_device(int dev)
{
	g_dev_started |= 1ull << dev;
	broadcast(PROF_COMMANDHANDLE_TYPE_INIT, dev);
	broadcast(PROF_COMMANDHANDLE_TYPE_START, dev);
}

static void stop_device(int dev)
{
	g_dev_started &= ~(1ull << dev);
	broadcast(PROF_COMMANDHANDLE_TYPE_STOP, dev);
}

void npuprof_profapi_collection_start(uint64_t acl_switches, const uint32_t *devs, uint32_t n)
{
	pthread_once(&g_once, once_init);
	for (int i = 0; i < BAD_COUNT; i++)
		atomic_store(&g_bad[i], 0);
	pthread_mutex_lock(&g_cp_lock);
	g_switch = npuprof_profapi_switch(acl_switches);
	g_dev_wanted = n ? 0 : ~0ull;
	for (uint32_t i = 0; i < n; i++)
		if (devs[i] < MSPROF_MAX_DEV_NUM)
			g_dev_wanted |= 1ull << devs[i];
	g_collecting = 1;
	g_dev_started = 0;
	for (int d = 0; d < MSPROF_MAX_DEV_NUM; d++)
		if (g_dev_open & g_dev_wanted & (1ull << d))
			start_device(d);
	pthread_mutex_unlock(&g_cp_lock);
}

void npuprof_profapi_collection_stop(void)
{
	pthread_mutex_lock(&g_cp_lock);
	if (g_collecting) {
		for (int d = MSPROF_MAX_DEV_NUM - 1; d >= 0; d--)
			if (g_dev_started & (1ull << d))
				stop_device(d);
		broadcast(PROF_COMMANDHANDLE_TYPE_FINALIZE, -1);
		g_collecting = 0;
	}
	pthread_mutex_unlock(&g_cp_lock);
	emit_bad();
}

int32_t MsprofRegisterCallback(uint32_t moduleId, ProfCommandHandle handle)
{
	struct module *m = NULL;
	unsigned i;

	if (!handle)
		return PROF_FAILED;
	pthread_mutex_lock(&g_cp_lock);
	for (i = 0; i < g_nmods && g_mods[i].id < moduleId; i++)
		;
	if (i < g_nmods && g_mods[i].id == moduleId) {
		m = &g_mods[i];
		for (unsigned j = 0; j < m->n; j++)
			if (m->h[j] == handle) {
				/* registered already (CANN: a warning, success) */
				pthread_mutex_unlock(&g_cp_lock);
				return MSPROF_ERROR_NONE;
			}
	} else if (g_nmods < MAX_MODULES) {
		memmove(&g_mods[i + 1], &g_mods[i], (g_nmods - i) * sizeof(g_mods[0]));
		g_nmods++;
		m = &g_mods[i];
		m->id = moduleId;
		m->n = 0;
	}
	if (!m || m->n >= MAX_HANDLES) {
		pthread_mutex_unlock(&g_cp_lock);
		return PROF_FAILED;
	}
	m->h[m->n++] = handle;
	/* a late registrant: what the others got, for each started device */
	if (g_collecting) {
		struct MsprofCommandHandle c;

		for (int d = 0; d < MSPROF_MAX_DEV_NUM; d++) {
			if (!(g_dev_started & (1ull << d)))
				continue;
			command_for(&c, PROF_COMMANDHANDLE_TYPE_INIT, d);
			deliver(handle, &c);
			command_for(&c, PROF_COMMANDHANDLE_TYPE_START, d);
			deliver(handle, &c);
		}
	}
	pthread_mutex_unlock(&g_cp_lock);
	return MSPROF_ERROR_NONE;
}

int32_t MsprofNotifySetDevice(uint32_t chipId, uint32_t deviceId, bool isOpen)
{
	(void)chipId;
	if (deviceId >= MSPROF_MAX_DEV_NUM)
		return PROF_FAILED;
	pthread_mutex_lock(&g_cp_lock);
	if (isOpen) {
		g_dev_open |= 1ull << deviceId;
		if (g_collecting && (g_dev_wanted & (1ull << deviceId)) &&
		    !(g_dev_started & (1ull << deviceId)))
			start_device((int)deviceId);
	} else {
		g_dev_open &= ~(1ull << deviceId);
		if (g_dev_started & (1ull << deviceId))
			stop_device((int)deviceId);
	}
	pthread_mutex_unlock(&g_cp_lock);
	return MSPROF_ERROR_NONE;
}

/* A collector's own command (the attach route, profSetProfCommand): handed
 * to every module in CANN's order, as given. */
int32_t profSetProfCommand(VOID_PTR command, uint32_t len)
{
	const struct MsprofCommandHandle *c = command;

	if (!c || len != sizeof(*c) || c->type >= PROF_COMMANDHANDLE_TYPE_MAX ||
	    c->devNums > MSPROF_MAX_DEV_NUM)
		return PROF_FAILED;
	pthread_mutex_lock(&g_cp_lock);
	deliver_all(c);
	pthread_mutex_unlock(&g_cp_lock);
	return MSPROF_ERROR_NONE;
}

/* The collector callbacks of CANN's attach route replace libprofapi's own
 * back end; npuprof's libprofapi.so is the collector itself and takes none. */
int32_t MsprofRegisterProfileCallback(int32_t callbackType, VOID_PTR callback, uint32_t len)
{
	(void)callbackType;
	(void)callback;
	(void)len;
	return PROF_FAILED;
}

int32_t MsprofInit(uint32_t dataType, void *data, uint32_t dataLen)
{
	(void)dataType;
	(void)data;
	(void)dataLen;
	pthread_once(&g_once, once_init);
	atomic_store(&g_finalized, 0);
	return MSPROF_ERROR_NONE;
}

int32_t MsprofFinalize(void)
{
	atomic_store(&g_finalized, 1);
	return MSPROF_ERROR_NONE;
}

/* The runtime's legacy INIT/UNINIT of its reporter: 0; a hash request is
 * answered from the dictionary; legacy tagged data is not stored. */
int32_t MsprofReportData(uint32_t moduleId, uint32_t type, VOID_PTR data, uint32_t len)
{
	(void)moduleId;
	switch (type) {
	case MSPROF_REPORTER_INIT:
	case MSPROF_REPORTER_UNINIT: return MSPROF_ERROR_NONE;
	case MSPROF_REPORTER_DATA_MAX_LEN:
		if (!data || len < sizeof(uint32_t))
			return PROF_FAILED;
		*(uint32_t *)data = (uint32_t)sizeof(struct MsprofAdditionalInfo);
		return MSPROF_ERROR_NONE;
	case MSPROF_REPORTER_HASH: {
		struct MsprofHashData *h = data;

		if (!h || len != sizeof(*h) || !h->data || !h->dataLen)
			return PROF_FAILED;
		h->hashId = MsprofGetHashId((const char *)h->data, h->dataLen);
		return MSPROF_ERROR_NONE;
	}
	default: return PROF_FAILED;
	}
}

bool MsprofCheckOpSwitch(uint32_t type, const char *op, size_t len)
{
	(void)op;
	(void)len;
	/* no op filter: every op type is profiled */
	return type == MSPROF_OPTYPE;
}

/* GE's model loads and unloads: the models aclprofModelSubscribe may
 * subscribe (subscribe.c). */
int32_t MsprofSetDeviceIdByGeModelIdx(const uint32_t geModelIdx, const uint32_t deviceId)
{
	if (deviceId >= MSPROF_MAX_DEV_NUM)
		return PROF_FAILED;
	return npuprof_model_dev_set(geModelIdx, deviceId) ? PROF_FAILED : MSPROF_ERROR_NONE;
}

int32_t MsprofUnsetDeviceIdByGeModelIdx(const uint32_t geModelIdx, const uint32_t deviceId)
{
	if (deviceId >= MSPROF_MAX_DEV_NUM)
		return PROF_FAILED;
	return npuprof_model_dev_unset(geModelIdx, deviceId) ? PROF_FAILED : MSPROF_ERROR_NONE;
}

/* The running collection's directory (the recorder's stream is in its
 * host/data); NULL if none runs. */
char *MsprofGetPath(void)
{
	static char path[4096];
	const char *p = npuprof_hostrec_active() ? npuprof_hostrec_path() : "";
	const char *cut = strstr(p, "/host/data/");

	if (!cut || (size_t)(cut - p) >= sizeof(path))
		return NULL;
	memcpy(path, p, (size_t)(cut - p));
	path[cut - p] = '\0';
	return path;
}

void npuprof_profapi_reset(void)
{
	pthread_mutex_lock(&g_cp_lock);
	g_nmods = 0;
	g_collecting = 0;
	g_switch = g_dev_wanted = g_dev_open = g_dev_started = 0;
	pthread_mutex_unlock(&g_cp_lock);
	pthread_mutex_lock(&g_type_lock);
	for (uint32_t i = 0; i < TYPE_CAP; i++) {
		free(atomic_load(&g_types[i].name));
		atomic_store(&g_types[i].name, NULL);
		atomic_store(&g_types[i].key, 0);
		g_types[i].len = 0;
	}
	g_ntypes = 0;
	pthread_mutex_unlock(&g_type_lock);
	for (int i = 0; i < BAD_COUNT; i++)
		atomic_store(&g_bad[i], 0);
	atomic_store(&g_finalized, 0);
}
