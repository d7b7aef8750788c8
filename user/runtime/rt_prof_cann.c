/*
 * rt_prof_cann.c - the reporting layer's backend for CANN's reporter ABI
 * (libprofapi.so, include/profiling/): the runtime reports as CANN's
 * components do (docs/ascend-reference.md §11), and what CANN's structs cannot
 * carry goes through npuprof's extension (profiling/npuprof_ext.h), also
 * reported through the ABI.
 *
 *   registration  RUNTIME (7) when the library is loaded, ASCENDCL (48) in
 *                 aclInit (with MsprofInit; no MsprofFinalize, below),
 *                 HCCL (3) at the first communicator, through its own
 *                 dlopen("libprofapi.so") + dlsym, as CANN's HCCL does;
 *   switch        each module's command handler keeps the profSwitch of the
 *                 devices it was started on (§11.4); a report is built only
 *                 while its bit is on: ACL APIs 0x1 (ASCENDCL), runtime APIs
 *                 0x100, task tracks 0x4000000 or 0x800, node `launch` and
 *                 op info 0x800 (RUNTIME), HCCL APIs and op info 0x1 or
 *                 0x800, HCCL small tasks 0x800 or 0x2 (HCCL); a replay's
 *                 recorded API rows (aclnpuRecordApi) with the task
 *                 tracks, whatever their level (the db's levels carry
 *                 over: a level2 db's runtime-level rows without 0x100);
 *   devices       MsprofNotifySetDevice(0, dev, open) on open / release;
 *   time          MsprofSysCycleTime() for every timestamp;
 *   names         MsprofGetHashId for strings, MsprofRegTypeInfo for every
 *                 (level, type) used: fixed CANN types at load, API and task
 *                 type names when first used (ids per level below).
 *
 * What is reported (level / type):
 *   acl-level API        MsprofApi 20000 / base + n by name (aclnn* NN
 *                        0x050000, aclrt* RUNTIME 0x030000, hcom* / Hccl*
 *                        HOST_HCCL 0x070000, aclmdl* MODEL 0x020000, else
 *                        OTHERS 0x040000),
 *                        itemId the item's hash (0: none)
 *   model execution      MsprofApi 15000 / 1 (MODEL_EXECUTE), around an
 *                        aclmdlRI execution's tasks
 *   node `launch`        MsprofApi 10000 / 5, itemId the op name
 *   runtime-level API    MsprofApi 5000 / 1000 + n, itemId the op name
 *   HCCL-level API       MsprofApi 5500 / 0x010001 (master stream), itemId
 *                        the API name (msprof names a 5500 row by it)
 *   task track           compact 5000 / 802 per SQE, + the npuprof
 *                        extension (duration, bytes, copy kind, trace tag)
 *   memcpy info          compact 5000 / 801 for a copy
 *   operator             compact 10000 / 0 node basic info, additional
 *                        10000 / 1 tensor info (5 tensors a record), compact
 *                        10000 / 9 attr, additional 10000 / 4 context ids
 *   HCCL op              compact 10000 / 0 basic info (task type HCCL) +
 *                        compact 10000 / 10 HCCL op info
 *   HCCL small task      additional 5500 / 0x010000 hccl_info
 *                        (MsprofHcclInfo), stamped with its task's time
 *
 * Not carried (yet) by the ABI or the extension, so not reported by this
 * backend: an API's result, explicit connectionIds (a replay's
 * ACLNPU_REPLAY_CONN: the export derives connectionIds from containment),
 * a replay's finished tensor strings (the numeric tensors are reported),
 * the HCCL rank of a communicator and the task key of an HCCL small task.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "profiling/aprof_pub.h"
#include "profiling/npuprof_ext.h"
#include "profiling/prof_api.h"
#include "profiling/prof_common.h"
#include "rt_prof.h"

/* CANN's runtime-level type ids (docs/ascend-reference.md §11.3): TS task types
 * 0..800, then the fixed ones and APIs (profiling/npuprof_ext.h). */
#define RT_TASK_TYPE_MAX 800u

/* ---- the switch ----------------------------------------------------------- */

struct module {
	_Atomic uint64_t sw; /* profSwitch while started on some device */
	pthread_mutex_t lock; /* devs, sw changes */
	uint64_t devs; /* devices started (ids < MSPROF_MAX_DEV_NUM = 64) */
	uint64_t last; /* profSwitch of the latest START */
	int reporter_on; /* RUNTIME: MsprofReportData INIT sent */
};

static struct module g_rt = { .lock = PTHREAD_MUTEX_INITIALIZER };
static struct module g_acl = { .lock = PTHREAD_MUTEX_INITIALIZER };
static struct module g_hccl = { .lock = PTHREAD_MUTEX_INITIALIZER };

_Static_assert(MSPROF_MAX_DEV_NUM == 64, "one bit per device");

/* One PROF_CTRL_SWITCH command for module m. ACL's rule (acl
 * profiling.cpp ProcessProfData): only with the ACL API bit. */
static int32_t command(struct module *m, uint32_t type, void *data, uint32_t len, uint64_t need)
{
	const struct MsprofCommandHandle *c = data;

	if (type != PROF_CTRL_SWITCH)
		return 0; /* reporter / step commands: nothing to do */
	if (!c || len < sizeof(*c) || c->devNums > MSPROF_MAX_DEV_NUM)
		return MSPROF_ERROR_CONFIG_INVALID;
	if (need && !(c->profSwitch & need))
		return 0;
	pthread_mutex_lock(&m->lock);
	switch (c->type) {
	case PROF_COMMANDHANDLE_TYPE_START:
		for (uint32_t i = 0; i < c->devNums; i++)
			if (c->devIdList[i] < MSPROF_MAX_DEV_NUM)
				m->devs |= 1ULL << c->devIdList[i];
		m->last = c->profSwitch;
		/* CANN's runtime adds the runtime trace whenever task time is on */
		if (m == &g_rt && (m->last & PROF_TASK_TIME_MASK))
			m->last |= PROF_RUNTIME_TRACE_MASK;
		atomic_store_explicit(&m->sw, m->last, memory_order_release);
		break;
	case PROF_COMMANDHANDLE_TYPE_STOP:
		for (uint32_t i = 0; i < c->devNums; i++)
			if (c->devIdList[i] < MSPROF_MAX_DEV_NUM)
				m->devs &= ~(1ULL << c->devIdList[i]);
		if (!m->devs)
			atomic_store_explicit(&m->sw, 0, memory_order_release);
		break;
	case PROF_COMMANDHANDLE_TYPE_FINALIZE:
		m->devs = 0;
		atomic_store_explicit(&m->sw, 0, memory_order_release);
		break;
	default: break; /* INIT, model (un)subscribe */
	}
	pthread_mutex_unlock(&m->lock);
	if (m == &g_rt) {
		/* the runtime's legacy reporter, opened while runtime APIs are on */
		int want = (atomic_load(&m->sw) & PROF_RUNTIME_API_MASK) != 0;

		if (want != m->reporter_on) {
			m->reporter_on = want;
			(void)MsprofReportData(MSPROF_MODULE_RUNTIME,
					       want ? MSPROF_REPORTER_INIT : MSPROF_REPORTER_UNINIT,
					       NULL, 0);
		}
	}
	return 0;
}

static int32_t rt_command(uint32_t type, void *data, uint32_t len)
{
	return command(&g_rt, type, data, len, 0);
}

static int32_t acl_command(uint32_t type, void *data, uint32_t len)
{
	return command(&g_acl, type, data, len, PROF_ACL_API_MASK);
}

static int32_t hccl_command(uint32_t type, void *data, uint32_t len)
{
	return command(&g_hccl, type, data, len, 0);
}

static inline uint64_t sw(const struct module *m)
{
	return atomic_load_explicit(&m->sw, memory_order_relaxed);
}

int rtprof_on(enum rtprof_data what)
{
	switch (what) {
	case RTPROF_ACL_API: return (sw(&g_acl) & PROF_ACL_API_MASK) != 0;
	case RTPROF_NODE: return (sw(&g_rt) & PROF_TASK_TIME_MASK) != 0;
	case RTPROF_RUNTIME_API: return (sw(&g_rt) & PROF_RUNTIME_API_MASK) != 0;
	case RTPROF_TASK_TRACK: return (sw(&g_rt) & PROF_RUNTIME_TRACE_MASK) != 0;
	case RTPROF_HCCL: return (sw(&g_hccl) & (PROF_ACL_API_MASK | PROF_TASK_TIME_MASK)) != 0;
	case RTPROF_REPLAY_API: return (sw(&g_rt) & PROF_RUNTIME_TRACE_MASK) != 0;
	}
	return 0;
}

uint64_t rtprof_now(void)
{
	return MsprofSysCycleTime();
}

/* npuprof's libprofapi.so answers MsprofSysCycleTime in CLOCK_MONOTONIC_RAW
 * ns (no raw counter), so a monotonic time moves by the two clocks' offset.
 * The offset is read once, at the first conversion: read again for every
 * time, its jitter (the two clock reads are apart) broke the nesting of a
 * replay's ranges that share a bound (a node `launch` starting with its
 * acl API). Saturates at 0 and UINT64_MAX. */
static pthread_once_t g_mono_once = PTHREAD_ONCE_INIT;
static uint64_t g_mono, g_cyc; /* one (CLOCK_MONOTONIC, cycle time) pair */

static void mono_pair(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	g_cyc = MsprofSysCycleTime();
	g_mono = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t rtprof_from_mono(uint64_t mono_ns)
{
	pthread_once(&g_mono_once, mono_pair);
	if (g_cyc >= g_mono)
		return mono_ns > UINT64_MAX - (g_cyc - g_mono) ? UINT64_MAX :
								 mono_ns + (g_cyc - g_mono);
	return mono_ns < g_mono - g_cyc ? 0 : mono_ns - (g_mono - g_cyc);
}

/* ---- HCCL's own handle on libprofapi.so -------------------------------------- */

static struct {
	pthread_once_t once;
	int32_t (*reg_callback)(uint32_t, ProfCommandHandle);
	int32_t (*reg_type)(uint16_t, uint32_t, const char *);
	int32_t (*api)(uint32_t, const struct MsprofApi *);
	int32_t (*compact)(uint32_t, const VOID_PTR, uint32_t);
	int32_t (*additional)(uint32_t, const VOID_PTR, uint32_t);
	uint64_t (*str2id)(const char *, size_t);
	uint64_t (*cycle)(void);
	int ok;
} g_hp = { .once = PTHREAD_ONCE_INIT };

static void hccl_load(void)
{
	void *h = dlopen("libprofapi.so", RTLD_NOW | RTLD_GLOBAL);

	if (!h)
		return; /* no profiler: HCCL never reports */
	*(void **)&g_hp.reg_callback = dlsym(h, "MsprofRegisterCallback");
	*(void **)&g_hp.reg_type = dlsym(h, "MsprofRegTypeInfo");
	*(void **)&g_hp.api = dlsym(h, "MsprofReportApi");
	*(void **)&g_hp.compact = dlsym(h, "MsprofReportCompactInfo");
	*(void **)&g_hp.additional = dlsym(h, "MsprofReportAdditionalInfo");
	*(void **)&g_hp.str2id = dlsym(h, "MsprofStr2Id");
	*(void **)&g_hp.cycle = dlsym(h, "MsprofSysCycleTime");
	g_hp.ok = g_hp.reg_callback && g_hp.reg_type && g_hp.api && g_hp.compact &&
		  g_hp.additional && g_hp.str2id && g_hp.cycle;
	if (!g_hp.ok)
		return;
	g_hp.reg_type(MSPROF_REPORT_HCCL_NODE_LEVEL, MSPROF_REPORT_HCCL_MASTER_TYPE, "master");
	g_hp.reg_type(MSPROF_REPORT_HCCL_NODE_LEVEL, MSPROF_REPORT_HCCL_SLAVE_TYPE, "slave");
	g_hp.reg_type(MSPROF_REPORT_HCCL_NODE_LEVEL, MSPROF_REPORT_HCCL_NODE_BASE_TYPE,
		      NPUPROF_CANN_HCCL_INFO_NAME);
	g_hp.reg_callback(NPUPROF_CANN_MOD_HCCL, hccl_command);
}

void rtprof_hccl_init(void)
{
	pthread_once(&g_hp.once, hccl_load);
}

/* ---- names ----------------------------------------------------------------- */

uint64_t rtprof_str(const char *s)
{
	if (!s || !*s)
		return NPUPROF_HOSTFMT_NO_STRING;
	return MsprofGetHashId(s, strlen(s));
}

/* The (level, name) -> type registry: ids are handed out per level from a
 * base and registered with MsprofRegTypeInfo once per process. Lookups hit a
 * per-thread direct-mapped cache; a miss takes the lock. */
#define REG_MAX 4096
#define REG_CACHE 256

static struct {
	pthread_mutex_t lock;
	uint32_t n;
	struct {
		uint16_t level;
		uint32_t type;
		uint64_t hash;
		char *name;
	} e[REG_MAX];
	uint32_t next_acl[5]; /* NN, RUNTIME, HOST_HCCL, MODEL, OTHERS */
	uint32_t next_rt_api, next_task, next_ge;
} g_reg = { .lock = PTHREAD_MUTEX_INITIALIZER };

static __thread struct {
	uint64_t hash;
	uint32_t level;
	uint32_t type;
} t_reg[REG_CACHE];

/* A new type id for name at level, or UINT32_MAX when the level's range is
 * full. g_reg.lock held. */
static uint32_t new_type(uint16_t level, const char *name)
{
	static const struct {
		const char *prefix;
		uint32_t base;
	} acl[] = {
		{ "aclnn", MSPROF_REPORT_ACL_NN_BASE_TYPE },
		{ "aclrt", MSPROF_REPORT_ACL_RUNTIME_BASE_TYPE },
		{ "hcom", MSPROF_REPORT_ACL_HOST_HCCL_BASE_TYPE },
		{ "aclmdl", MSPROF_REPORT_ACL_MODEL_BASE_TYPE },
		{ "", MSPROF_REPORT_ACL_OTHERS_BASE_TYPE },
	};

	switch (level) {
	case MSPROF_REPORT_ACL_LEVEL:
		for (size_t i = 0; i < sizeof(acl) / sizeof(acl[0]); i++)
			if (!strncmp(name, acl[i].prefix, strlen(acl[i].prefix)) ||
			    (i == 2 && !strncmp(name, "Hccl", 4)))
				return g_reg.next_acl[i] < 0xFFFF ?
					       acl[i].base + 1 + g_reg.next_acl[i]++ :
					       UINT32_MAX;
		return UINT32_MAX;
	case MSPROF_REPORT_NODE_LEVEL:
		if (!strcmp(name, "launch"))
			return MSPROF_REPORT_NODE_LAUNCH_TYPE;
		return g_reg.next_ge < 0xFFFF ?
			       MSPROF_REPORT_NODE_GE_API_BASE_TYPE + g_reg.next_ge++ :
			       UINT32_MAX;
	case MSPROF_REPORT_RUNTIME_LEVEL: return NPUPROF_CANN_RT_API_BASE + g_reg.next_rt_api++;
	case MSPROF_REPORT_MODEL_LEVEL:
		/* a model run instance's execution (rt_model.c), as GE reports a
		 * model's */
		return !strcmp(name, "ModelExecute") ? MSPROF_REPORT_MODEL_EXECUTE_TYPE :
						       UINT32_MAX;
	case MSPROF_REPORT_HCCL_NODE_LEVEL:
		/* HCCL's APIs are typed by their stream: master (all of ours run
		 * on the op's main stream); the itemId names them */
		return MSPROF_REPORT_HCCL_MASTER_TYPE;
	}
	return UINT32_MAX;
}

/* RUNTIME-level task types live in 0..800, apart from the API ids. */
#define LEVEL_TASK_TYPE 0xFFFFu

static uint32_t type_of(uint16_t level, const char *name)
{
	uint64_t h = MsprofGetHashId(name, strlen(name));
	unsigned slot = (unsigned)(h ^ (h >> 29) ^ level) & (REG_CACHE - 1);
	uint32_t type = UINT32_MAX;

	if (t_reg[slot].hash == h && t_reg[slot].level == level)
		return t_reg[slot].type;
	pthread_mutex_lock(&g_reg.lock);
	for (uint32_t i = 0; i < g_reg.n; i++)
		if (g_reg.e[i].level == level && g_reg.e[i].hash == h &&
		    !strcmp(g_reg.e[i].name, name)) {
			type = g_reg.e[i].type;
			break;
		}
	if (type == UINT32_MAX && g_reg.n < REG_MAX) {
		char *copy = strdup(name);

		if (level == LEVEL_TASK_TYPE)
			type = g_reg.next_task <= RT_TASK_TYPE_MAX ? g_reg.next_task++ : UINT32_MAX;
		else
			type = new_type(level, name);
		if (copy && type != UINT32_MAX) {
			g_reg.e[g_reg.n].level = level;
			g_reg.e[g_reg.n].type = type;
			g_reg.e[g_reg.n].hash = h;
			g_reg.e[g_reg.n].name = copy;
			g_reg.n++;
			MsprofRegTypeInfo(level == LEVEL_TASK_TYPE ? MSPROF_REPORT_RUNTIME_LEVEL :
								     level,
					  type, name);
		} else {
			free(copy);
			type = UINT32_MAX;
		}
	}
	pthread_mutex_unlock(&g_reg.lock);
	if (type != UINT32_MAX) {
		t_reg[slot].hash = h;
		t_reg[slot].level = level;
		t_reg[slot].type = type;
	}
	return type;
}

static __thread uint32_t t_tid;

static uint32_t tid(void)
{
	if (RT_UNLIKELY(!t_tid))
		t_tid = (uint32_t)syscall(SYS_gettid);
	return t_tid;
}

/* ---- control plane ----------------------------------------------------------- */

__attribute__((constructor)) static void rtprof_load(void)
{
	static const struct {
		uint16_t level;
		uint32_t type;
		const char *name;
	} fixed[] = {
		{ MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_MEMCPY_INFO,
		  NPUPROF_CANN_MEMCPY_INFO_NAME },
		{ MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_TASK_TRACK,
		  NPUPROF_CANN_TASK_TRACK_NAME },
		{ MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_BASIC_INFO_TYPE,
		  NPUPROF_CANN_NODE_BASIC_INFO_NAME },
		{ MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_TENSOR_INFO_TYPE,
		  NPUPROF_CANN_TENSOR_INFO_NAME },
		{ MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_CONTEXT_ID_INFO_TYPE,
		  NPUPROF_CANN_CONTEXT_ID_NAME },
		{ MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_LAUNCH_TYPE, "launch" },
		{ MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_ATTR_INFO_TYPE, "attr_info" },
		{ MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_HCCL_OP_INFO_TYPE,
		  NPUPROF_CANN_HCCL_OP_INFO_NAME },
		{ NPUPROF_EXT_LEVEL, NPUPROF_EXT_TASK_TYPE, NPUPROF_EXT_TASK_NAME },
	};

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		MsprofRegTypeInfo(fixed[i].level, fixed[i].type, fixed[i].name);
	MsprofRegisterCallback(NPUPROF_CANN_MOD_RUNTIME, rt_command);
}

void rtprof_acl_init(void)
{
	(void)MsprofInit(MSPROF_CTRL_INIT_DYNA, NULL, 0);
	MsprofRegisterCallback(NPUPROF_CANN_MOD_ASCENDCL, acl_command);
}

void rtprof_acl_finalize(void)
{
	/* CANN's aclFinalize also calls MsprofFinalize, after which libprofapi
	 * refuses every report. npuprof's runtime may be initialised again in
	 * the same process (and reports its own aclFinalize), so it leaves
	 * the end of profiling to the collection (aclprofFinalize, or the
	 * environment's session at exit). */
}

void rtprof_set_device(int dev, int open)
{
	(void)MsprofNotifySetDevice(0, (uint32_t)dev, open != 0);
}

/* ---- reports --------------------------------------------------------------- */

void rtrep_api(uint32_t level, const char *name, uint64_t item_id, uint64_t start_ns,
	       uint64_t end_ns, uint64_t conn, aclError ret)
{
	struct MsprofApi a;
	uint32_t type;
	int hccl = level == MSPROF_REPORT_HCCL_NODE_LEVEL;

	(void)conn; /* the export derives connectionIds from containment */
	(void)ret; /* CANN reports no result */
	if (hccl && !g_hp.ok)
		return;
	type = type_of((uint16_t)level, name);
	if (type == UINT32_MAX)
		return;
	memset(&a, 0, sizeof(a));
	a.magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM;
	a.level = (uint16_t)level;
	a.type = type;
	a.threadId = tid();
	a.beginTime = start_ns;
	a.endTime = end_ns;
	/* msprof names a 5500 row by its itemId */
	a.itemId = hccl ? rtprof_str(name) : (item_id == NPUPROF_HOSTFMT_NO_STRING ? 0 : item_id);
	if (hccl)
		g_hp.api(1, &a);
	else
		MsprofReportApi(1, &a);
}

/* A replay's ranges, indexed by connectionId (dense from 0, rt_prof.c):
 * the export links a task to the range that contains its track, so a
 * replayed task with an explicit connectionId is reported inside its range,
 * on its thread: at the range's start, then 1 ns apart, never past its end
 * (CANN's runtime stamps a track at its API's entry + 1 too). Ranges come
 * from one replaying thread; the table grows under a lock. */
static struct {
	pthread_mutex_t lock;
	struct rep_range {
		uint64_t start, end, next;
		uint32_t tid;
		uint32_t level;
	} * r;
	uint64_t n;
} g_ranges = { .lock = PTHREAD_MUTEX_INITIALIZER };

void rtrep_range(uint32_t level, uint64_t conn, uint64_t start_ns, uint64_t end_ns)
{
	pthread_mutex_lock(&g_ranges.lock);
	if (conn >= g_ranges.n && conn < (1ULL << 32)) {
		uint64_t n = g_ranges.n ? g_ranges.n : 1024;
		struct rep_range *r;

		while (n <= conn)
			n *= 2;
		r = realloc(g_ranges.r, n * sizeof(*r));
		if (r) {
			memset(r + g_ranges.n, 0, (n - g_ranges.n) * sizeof(*r));
			g_ranges.r = r;
			g_ranges.n = n;
		}
	}
	if (conn < g_ranges.n)
		g_ranges.r[conn] = (struct rep_range){ .start = start_ns,
						       .end = end_ns,
						       .next = start_ns,
						       .tid = tid(),
						       .level = level };
	pthread_mutex_unlock(&g_ranges.lock);
}

void rtprof_place(struct rt_task *t)
{
	struct rep_range *r;

	if (!t->has_conn)
		return;
	pthread_mutex_lock(&g_ranges.lock);
	if (t->conn < g_ranges.n && (r = &g_ranges.r[t->conn])->start && r->tid == tid()) {
		t->time_ns = r->next;
		if (r->next < r->end)
			r->next++;
	}
	pthread_mutex_unlock(&g_ranges.lock);
}

/* A replayed task is sent at most this long before its range begins: its
 * track, placed in the range, must not be more than TRACK_SLACK_NS (2 ms,
 * user/export/hostdata_engine.h) after the device saw it, and a task sent
 * just in time would start late on a slow host. */
#define RANGE_LEAD_NS 1000000u

void rtprof_before_submit(const struct rt_task *t, int n)
{
	uint64_t until = 0, now;

	pthread_mutex_lock(&g_ranges.lock);
	for (int i = 0; i < n; i++) {
		const struct rep_range *r;

		if (!t[i].has_conn || t[i].conn >= g_ranges.n)
			continue;
		r = &g_ranges.r[t[i].conn];
		if (r->start && r->tid == tid()) {
			until = r->start;
			if (t[i].model.flags & NPUSIM_TASK_F_TIMED) {
				uint64_t start = rtprof_from_mono(t[i].model.start_ns);

				if (start < until)
					until = start;
			}
			break;
		}
	}
	pthread_mutex_unlock(&g_ranges.lock);
	until = until > RANGE_LEAD_NS ? until - RANGE_LEAD_NS : 0;
	while (until && (now = rtprof_now()) < until) {
		uint64_t d = until - now;
		struct timespec ts = { .tv_sec = (time_t)(d / 1000000000u),
				       .tv_nsec = (long)(d % 1000000000u) };

		nanosleep(&ts, NULL);
	}
}

static void compact_head(struct MsprofCompactInfo *c, uint16_t level, uint32_t type, uint32_t len,
			 uint64_t time)
{
	memset(c, 0, sizeof(*c));
	c->magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM;
	c->level = level;
	c->type = type;
	c->threadId = tid();
	c->dataLen = len;
	c->timeStamp = time;
}

static void additional_head(struct MsprofAdditionalInfo *x, uint16_t level, uint32_t type,
			    uint32_t len, uint64_t time)
{
	memset(x, 0, sizeof(*x));
	x->magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM;
	x->level = level;
	x->type = type;
	x->threadId = tid();
	x->dataLen = len;
	x->timeStamp = time;
}

void rtprof_task_track(int dev, const struct rt_stream *s, const struct rt_task *t)
{
	struct MsprofCompactInfo c;
	struct NpuprofTaskExt ext;
	uint32_t task_type = type_of(LEVEL_TASK_TYPE, t->type_name ? t->type_name : "UNKNOWN");
	uint32_t task_id = (t->batch_id << 16) | t->task_id;

	_Static_assert(sizeof(ext) <= sizeof(c.data), "extension fits the compact data");
	compact_head(&c, MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_TASK_TRACK,
		     sizeof(struct MsprofRuntimeTrack), t->time_ns);
	c.data.runtimeTrack.deviceId = (uint16_t)dev;
	c.data.runtimeTrack.streamId = (uint16_t)s->sid;
	c.data.runtimeTrack.taskId = task_id;
	c.data.runtimeTrack.taskType = task_type;
	c.data.runtimeTrack.kernelName = t->kernel ? rtprof_str(t->kernel) : 0;
	c.data.runtimeTrack.extInfo.kernelInfo.numBlocks = t->sqe.block_dim;
	MsprofReportCompactInfo(1, &c, sizeof(c));

	if (t->memcpy_op != NPUPROF_ENUM_INVALID) {
		compact_head(&c, MSPROF_REPORT_RUNTIME_LEVEL, NPUPROF_CANN_RT_MEMCPY_INFO,
			     sizeof(struct MsprofMemcpyInfo), t->time_ns);
		c.data.memcpyInfo.bytes = t->bytes;
		c.data.memcpyInfo.copyKind = (uint16_t)t->memcpy_op;
		c.data.memcpyInfo.deviceId = (uint16_t)dev;
		c.data.memcpyInfo.streamId = s->sid;
		MsprofReportCompactInfo(1, &c, sizeof(c));
	}

	memset(&ext, 0, sizeof(ext));
	ext.deviceId = (uint16_t)dev;
	ext.sqeType = t->sqe.type & NPUSIM_SQE_TYPE_MASK;
	ext.streamId = s->sid;
	ext.taskId = task_id;
	ext.memcpyOp = t->memcpy_op == NPUPROF_ENUM_INVALID ? NPUPROF_EXT_NO_MEMCPY :
							      (uint16_t)t->memcpy_op;
	ext.traceTag = (uint16_t)t->trace_tag;
	ext.durationNs = t->model.duration_ns;
	ext.bytes = t->bytes;
	ext.indexId = t->index_id;
	compact_head(&c, NPUPROF_EXT_LEVEL, NPUPROF_EXT_TASK_TYPE, sizeof(ext), t->time_ns);
	memcpy(c.data.info, &ext, sizeof(ext));
	MsprofReportCompactInfo(1, &c, sizeof(c));
}

static uint32_t ge_task_type(const char *s)
{
	static const struct {
		const char *name;
		uint32_t type;
	} m[] = {
		{ "AI_CORE", MSPROF_GE_TASK_TYPE_AI_CORE },
		{ "AI_CPU", MSPROF_GE_TASK_TYPE_AI_CPU },
		{ "AI_VECTOR_CORE", MSPROF_GE_TASK_TYPE_AIV },
		{ "WRITE_BACK", MSPROF_GE_TASK_TYPE_WRITE_BACK },
		{ "MIX_AIC", MSPROF_GE_TASK_TYPE_MIX_AIC },
		{ "MIX_AIV", MSPROF_GE_TASK_TYPE_MIX_AIV },
		{ "FFTS_PLUS", MSPROF_GE_TASK_TYPE_FFTS_PLUS },
		{ "DSA", MSPROF_GE_TASK_TYPE_DSA },
		{ "DVPP", MSPROF_GE_TASK_TYPE_DVPP },
		{ "HCCL", MSPROF_GE_TASK_TYPE_HCCL },
		{ "FUSION", MSPROF_GE_TASK_TYPE_FUSION },
	};

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (!strcmp(s, m[i].name))
			return m[i].type;
	return MSPROF_GE_TASK_TYPE_INVALID;
}

/* The tensors of one op, 5 a record (MSPROF_GE_TENSOR_DATA_NUM), inputs
 * first. aclDataType and aclFormat number as GE's DataType and Format. */
static void report_tensors(const aclnpuOpDesc *d, uint64_t op, uint64_t time)
{
	uint32_t total = d->numInputs + d->numOutputs, done = 0;

	while (done < total) {
		struct MsprofAdditionalInfo x;
		struct MsprofTensorInfo ti;
		uint32_t n = total - done < MSPROF_GE_TENSOR_DATA_NUM ? total - done :
									MSPROF_GE_TENSOR_DATA_NUM;

		memset(&ti, 0, sizeof(ti));
		ti.opName = op;
		ti.tensorNum = n;
		for (uint32_t i = 0; i < n; i++, done++) {
			int in = done < d->numInputs;
			const aclnpuTensorDesc *t = in ? &d->inputs[done] :
							 &d->outputs[done - d->numInputs];

			ti.tensorData[i].tensorType = in ? MSPROF_GE_TENSOR_TYPE_INPUT :
							   MSPROF_GE_TENSOR_TYPE_OUTPUT;
			ti.tensorData[i].format = (uint32_t)t->format;
			ti.tensorData[i].dataType = (uint32_t)t->dataType;
			for (uint32_t k = 0; k < t->numDims && k < ACLNPU_MAX_DIMS &&
					     k < MSPROF_GE_TENSOR_DATA_SHAPE_LEN;
			     k++)
				ti.tensorData[i].shape[k] = (uint32_t)t->dims[k];
		}
		additional_head(&x, MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_TENSOR_INFO_TYPE,
				sizeof(ti), time);
		memcpy(x.data, &ti, sizeof(ti));
		MsprofReportAdditionalInfo(1, &x, sizeof(x));
	}
}

void rtprof_compute_op(const aclnpuOpDesc *d, const char *ge_type, int dev,
		       const struct rt_stream *s, const struct rt_task *t)
{
	struct MsprofCompactInfo c;
	uint64_t op = rtprof_str(d->opName);
	uint32_t ratio = d->blockDim ? d->mixBlockDim / d->blockDim : 0;

	(void)dev;
	(void)s;
	compact_head(&c, MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_BASIC_INFO_TYPE,
		     sizeof(struct MsprofNodeBasicInfo), t->time_ns);
	c.data.nodeBasicInfo.opName = op;
	c.data.nodeBasicInfo.taskType = ge_task_type(d->geTaskType ? d->geTaskType : ge_type);
	c.data.nodeBasicInfo.opType = rtprof_str(d->opType);
	c.data.nodeBasicInfo.blockDim = (d->blockDim & 0xFFFF) | (ratio > 0xFFFF ? 0 : ratio << 16);
	c.data.nodeBasicInfo.opFlag = d->opFlag;
	MsprofReportCompactInfo(1, &c, sizeof(c));
	report_tensors(d, op, t->time_ns);
	if (d->attrInfo) {
		struct MsprofAttrInfo at = { .opName = op,
					     .attrType = OP_ATTR,
					     .hashId = rtprof_str(d->attrInfo) };

		compact_head(&c, MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_ATTR_INFO_TYPE,
			     sizeof(at), t->time_ns);
		memcpy(c.data.info, &at, sizeof(at));
		MsprofReportCompactInfo(1, &c, sizeof(c));
	}
	if (d->size >= sizeof(aclnpuOpDesc) && (d->replayFlags & ACLNPU_REPLAY_CONTEXT)) {
		struct MsprofAdditionalInfo x;
		struct MsprofContextIdInfo ci = { .opName = op, .ctxIdNum = 1 };

		ci.ctxIds[0] = d->contextId;
		additional_head(&x, MSPROF_REPORT_NODE_LEVEL,
				MSPROF_REPORT_NODE_CONTEXT_ID_INFO_TYPE, sizeof(ci), t->time_ns);
		memcpy(x.data, &ci, sizeof(ci));
		MsprofReportAdditionalInfo(1, &x, sizeof(x));
	}
}

/* Where a replay's record of connectionId conn is reported: at the start
 * of its range if this thread recorded one (rtrep_range), else at t. */
static uint64_t in_range(uint64_t conn, uint64_t t)
{
	pthread_mutex_lock(&g_ranges.lock);
	if (conn < g_ranges.n && g_ranges.r[conn].start && g_ranges.r[conn].tid == tid())
		t = g_ranges.r[conn].start;
	pthread_mutex_unlock(&g_ranges.lock);
	return t;
}

void rtprof_hccl_op(const struct npuprof_hostfmt_hccl_op *b)
{
	struct MsprofCompactInfo c;
	/* the export gives the op to the node API around its reports: a
	 * replayed op's times are the device's, so it is stamped in its
	 * node's range */
	uint64_t time = in_range(b->connection_id, b->end_ns);

	if (!g_hp.ok)
		return;
	compact_head(&c, MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_BASIC_INFO_TYPE,
		     sizeof(struct MsprofNodeBasicInfo), time);
	c.data.nodeBasicInfo.opName = b->op_name_id;
	c.data.nodeBasicInfo.taskType = MSPROF_GE_TASK_TYPE_HCCL;
	c.data.nodeBasicInfo.opType = b->op_type_id;
	g_hp.compact(1, &c, sizeof(c));
	compact_head(&c, MSPROF_REPORT_NODE_LEVEL, MSPROF_REPORT_NODE_HCCL_OP_INFO_TYPE,
		     sizeof(struct MsprofHCCLOPInfo), time);
	c.data.hcclopInfo.relay = b->relay & 1;
	c.data.hcclopInfo.retry = b->retry & 1;
	c.data.hcclopInfo.dataType = (uint8_t)b->data_type;
	c.data.hcclopInfo.algType = b->alg_type_id;
	c.data.hcclopInfo.count = b->count;
	c.data.hcclopInfo.groupName = b->group_name_id;
	g_hp.compact(1, &c, sizeof(c));
}

/* The communicators initialised on a device: their size, for every
 * MsprofHcclInfo (rtprof_rank). Appended under the lock, read without. */
#define COMMS_MAX 256
static struct {
	pthread_mutex_t lock;
	_Atomic uint32_t n;
	struct {
		uint32_t dev;
		_Atomic uint32_t size;
		uint64_t group;
	} e[COMMS_MAX];
} g_comms = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint32_t comm_size(uint32_t dev, uint64_t group)
{
	uint32_t n = atomic_load_explicit(&g_comms.n, memory_order_acquire);

	for (uint32_t i = 0; i < n; i++)
		if (g_comms.e[i].dev == dev && g_comms.e[i].group == group)
			return atomic_load_explicit(&g_comms.e[i].size, memory_order_relaxed);
	return 0;
}

void rtprof_hccl_task(const struct npuprof_hostfmt_hccl_task *b)
{
	struct MsprofAdditionalInfo x;
	struct MsprofHcclInfo h;

	/* from task time L0 up: msprof's level-0 databases have them (the
	 * COMMUNICATION_TASK_INFO of tests/fixtures/real/910b-level0-*) */
	if (!g_hp.ok || !(sw(&g_hccl) & (PROF_TASK_TIME_MASK | PROF_TASK_TIME_L1_MASK)))
		return;
	memset(&h, 0, sizeof(h));
	h.itemId = b->task_type_id;
	h.cclTag = b->op_name_id;
	h.groupName = b->group_name_id;
	h.localRank = b->src_rank;
	h.remoteRank = b->dst_rank;
	h.planeID = b->plane_id;
	h.ctxId = b->context_id;
	h.notifyID = b->notify_id;
	h.role = 1; /* this rank sends: localRank the source */
	h.durationEstimated = (double)b->duration_estimated_ns / 1e3; /* us */
	h.dataSize = b->size;
	h.opType = MSPROF_HCCL_INVALID_UINT;
	h.dataType = b->data_type;
	h.linkType = b->link_type;
	h.transportType = b->transport_type;
	h.rdmaType = b->rdma_type;
	h.rankSize = comm_size(b->device_id, b->group_name_id);
	/* one task of the latest track not after its time (cannrec.c): it
	 * carries its track's time */
	additional_head(&x, MSPROF_REPORT_HCCL_NODE_LEVEL, MSPROF_REPORT_HCCL_NODE_BASE_TYPE,
			sizeof(h), b->time_ns);
	memcpy(x.data, &h, sizeof(h));
	g_hp.additional(1, &x, sizeof(x));
}

void rtprof_rank(int dev, uint32_t rank, uint32_t rank_size, const char *group)
{
	/* As CANN's HCCL: no record of its own; every MsprofHcclInfo of the
	 * communicator carries its rank (localRank) and rankSize, from which
	 * the export builds RANK_DEVICE_MAP and COMMUNICATION_OP.rankSize. */
	uint64_t g = rtprof_str(group);
	uint32_t n;

	(void)rank;
	pthread_mutex_lock(&g_comms.lock);
	n = atomic_load_explicit(&g_comms.n, memory_order_relaxed);
	for (uint32_t i = 0; i < n; i++)
		if (g_comms.e[i].dev == (uint32_t)dev && g_comms.e[i].group == g) {
			atomic_store_explicit(&g_comms.e[i].size, rank_size, memory_order_relaxed);
			n = UINT32_MAX;
			break;
		}
	if (n < COMMS_MAX) {
		g_comms.e[n].dev = (uint32_t)dev;
		g_comms.e[n].group = g;
		atomic_store_explicit(&g_comms.e[n].size, rank_size, memory_order_relaxed);
		atomic_store_explicit(&g_comms.n, n + 1, memory_order_release);
	}
	pthread_mutex_unlock(&g_comms.lock);
}
