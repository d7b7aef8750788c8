/*
 * aclprof.c - CANN's profiling API (acl/acl_prof.h): collection control,
 * configs, step markers and the msproftx stamp functions, on top of the host
 * recorder (hostrec.c).
 *
 * Return codes follow CANN's documented behaviour (reference section 6),
 * including -1 from most msproftx calls; the header lists where we
 * deliberately differ. Control calls (Init/Start/Stop/Finalize, configs)
 * take one mutex; the stamp calls that record (Mark, Push/Pop, Range*) take
 * none: they read two flags, the clock and the calling thread's stack, and
 * write one record into the thread's ring.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "aclprof_internal.h"
#include "apisession.h"
#include "hostrec_internal.h"
#include "hostrec.h"
#include "npuprof/session.h"
#include "profapi_internal.h"
#include "profiling/aprof_pub.h"
#include "rtplugin.h"

#define PROF_AICPU_MODEL 0x4000000000000000ULL
/* Every ACL_PROF_* bit plus PROF_AICPU_MODEL: what aclprofStart accepts. */
#define PROF_SUPPORTED_MASK 0x4000000C0100FBFFULL
#define MAX_DEVICES 64
#define HOST_DEVICE_ID 64
#define MAX_PATH_LEN 4096
#define MAX_CONFIG_LEN 256
#define STAMP_POOL_SIZE 100
#define STAMP_MSG_MAX 128 /* msgLen must be below this */
#define STAMP_MSG_IDS 4096 /* distinct stamp messages named by id */
#define MARKEX_MSG_MAX 155

/* CANN's frozen public layouts (LP64). */
_Static_assert(sizeof(aclprofTensor) == 48, "aclprofTensor layout");
_Static_assert(sizeof(aclprofTensorInfo) == 48 && offsetof(aclprofTensorInfo, tensors) == 40,
	       "aclprofTensorInfo layout");
_Static_assert(sizeof(aclprofEventAttributes) == 16 &&
		       offsetof(aclprofEventAttributes, message) == 8,
	       "aclprofEventAttributes layout");

/* ---- handles whose double destroy must not be fatal ---------------------- */

struct handle_link {
	struct handle_link *next;
};

static void handle_add(struct handle_link **head, struct handle_link *h)
{
	h->next = *head;
	*head = h;
}

static int handle_remove(struct handle_link **head, const struct handle_link *h)
{
	for (struct handle_link **pp = head; *pp; pp = &(*pp)->next)
		if (*pp == h) {
			*pp = h->next;
			return 1;
		}
	return 0;
}

static int handle_live(struct handle_link *head, const struct handle_link *h)
{
	for (; head; head = head->next)
		if (head == h)
			return 1;
	return 0;
}

/* Mirrors CANN's ProfConfig after the link (devNums, devIdList[65],
 * aicoreMetrics, dataTypeConfig); devIdList ends with the host id 64. */
struct aclprofConfig {
	struct handle_link link;
	uint32_t devNums;
	uint32_t devIdList[MAX_DEVICES + 1];
	aclprofAicoreMetrics aicoreMetrics;
	uint64_t dataTypeConfig;
};

struct aclprofStepInfo {
	struct handle_link link;
	int startFlag;
	int endFlag;
	uint64_t indexId;
};

/* ---- global state ----------------------------------------------------------- */

enum prof_mode {
	MODE_NONE,
	MODE_API,
	MODE_ENV
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* control state */
static enum prof_mode g_mode;
static char g_result_path[MAX_PATH_LEN];
static char g_remembered_path[MAX_PATH_LEN]; /* last Init path or ACL_PROF_PATH */
static int g_running;
static struct aclprofConfig g_running_cfg;
static int g_api_session; /* the running collection is an apisession */
static int g_api_exit_hooked;
static int g_env_inited; /* the program's own aclprofInit under MODE_ENV */
static char g_env_dir[MAX_PATH_LEN]; /* MODE_ENV: record's session directory */
static char *g_options[ACL_PROF_ARGS_MAX];
static struct handle_link *g_configs;
static struct handle_link *g_steps;
static _Atomic uint64_t g_step_index;
/* MarkEx takes one transaction id of mstx.c's counter. */
#define g_mark_id npuprof_g_mark_id

/* msproftx: inited from a Start with ACL_PROF_MSPROFTX until Finalize;
 * collecting while that collection runs. */
static _Atomic int g_tx_inited;
#define g_tx_collecting npuprof_g_tx_collecting

/* ---- stamp pool -------------------------------------------------------------- */

/* What the stamp calls read comes first (one cache line); a power-of-two
 * size, so that checking a handle costs no division. */
struct stamp {
	_Atomic int in_use;
	uint32_t index;
	/* The message's Str2Id id (NPUPROF_HOSTFMT_NO_STRING: ""), which the
	 * compact records carry; 0: the dictionary does not hold the message
	 * exactly (a hash collision), so its events go into TX records. */
	uint64_t msg_id;
	uint32_t category;
	int32_t payload_type;
	/* aclprofRangeStart state; read by the (any) thread that stops it. */
	_Atomic uint64_t range_start_ns;
	_Atomic uint32_t range_start_tid;
	_Atomic int range_armed;
	uint32_t msg_len;
	struct stamp *next_free;
	char message[STAMP_MSG_MAX];
} __attribute__((aligned(256)));
_Static_assert(sizeof(struct stamp) == 256, "struct stamp is 256 bytes");

static pthread_mutex_t g_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct stamp g_pool[STAMP_POOL_SIZE];
static _Atomic unsigned g_stamp_msg_ids; /* messages interned by stamps */
static struct stamp *g_free_stamps;
static unsigned g_stamps_used;
static int g_pool_ready;

/* Under g_pool_lock: a fresh pool, as CANN's calloc'ed one (index 0 first). */
static void pool_reset(void)
{
	memset(g_pool, 0, sizeof(g_pool));
	g_free_stamps = NULL;
	for (int i = STAMP_POOL_SIZE - 1; i >= 0; i--) {
		g_pool[i].index = (uint32_t)i;
		g_pool[i].msg_id = NPUPROF_HOSTFMT_NO_STRING; /* "" */
		g_pool[i].next_free = g_free_stamps;
		g_free_stamps = &g_pool[i];
	}
	g_stamps_used = 0;
}

/* The pool slot `p` points at, or NULL if `p` is not one. */
static struct stamp *pool_slot(const void *p)
{
	uintptr_t a = (uintptr_t)p, base = (uintptr_t)g_pool;

	if (a - base >= sizeof(g_pool) || ((a - base) & (sizeof(struct stamp) - 1)))
		return NULL; /* (below the pool, a - base wraps to a large value) */
	return (struct stamp *)p;
}

/* A stamp handed out by aclprofCreateStamp and not destroyed, or NULL. */
static struct stamp *live_stamp(void *p)
{
	struct stamp *s = pool_slot(p);

	return s && atomic_load_explicit(&s->in_use, memory_order_acquire) ? s : NULL;
}

/* Under g_lock. Like CANN, a pool with stamps still in use survives
 * un-initialisation and is reused as is. */
static void tx_init(void)
{
	pthread_mutex_lock(&g_pool_lock);
	if (!g_pool_ready || g_stamps_used == 0)
		pool_reset();
	g_pool_ready = 1;
	pthread_mutex_unlock(&g_pool_lock);
	atomic_store_explicit(&g_tx_inited, 1, memory_order_release);
}

static void tx_uninit(void)
{
	atomic_store_explicit(&g_tx_collecting, 0, memory_order_release);
	atomic_store_explicit(&g_tx_inited, 0, memory_order_release);
}

static inline int tx_inited(void)
{
	return atomic_load_explicit(&g_tx_inited, memory_order_acquire);
}

static inline int tx_collecting(void)
{
	return atomic_load_explicit(&g_tx_collecting, memory_order_acquire);
}

/* ---- per-thread state: Push/Pop stack and the RangePushEx slot ------------- */

struct frame {
	struct stamp *stamp;
	uint64_t start_ns;
};

struct tstate {
	struct frame *stack;
	uint32_t depth, cap;
	aclprofEventAttributes *pushex;
	uint64_t pushex_ns;
};

static __thread struct tstate t_st NPUPROF_TLS_IE;
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_tstate_key;

static void tstate_exit(void *p)
{
	struct tstate *st = p;

	free(st->stack);
	st->stack = NULL;
	st->depth = st->cap = 0;
}

static void make_key(void)
{
	pthread_key_create(&g_tstate_key, tstate_exit);
}

/* Grows the calling thread's stack (the only allocation of Push, and only
 * when it nests deeper than ever before on this thread). */
static __attribute__((noinline)) int stack_grow(void)
{
	uint32_t ncap = t_st.cap ? t_st.cap * 2 : 64;
	struct frame *n;

	if (ncap < t_st.cap)
		return -1;
	n = realloc(t_st.stack, ncap * sizeof(*n));
	if (!n)
		return -1;
	if (!t_st.stack) {
		pthread_once(&g_key_once, make_key);
		pthread_setspecific(g_tstate_key, &t_st);
	}
	t_st.stack = n;
	t_st.cap = ncap;
	return 0;
}

/* ---- records ------------------------------------------------------------------ */

/* A TX record with the message inline: for a stamp whose message is not in
 * the dictionary (msg_id 0), off the fast path. */
static __attribute__((noinline)) int emit_stamp_tx(const struct stamp *s, uint16_t event,
						   uint64_t start, uint64_t end, uint32_t start_tid,
						   uint32_t range_id)
{
	uint32_t n = s->msg_len;

	/* Bounded even if another thread is changing the message right now. */
	if (n >= STAMP_MSG_MAX)
		n = STAMP_MSG_MAX - 1;
	return hostrec_emit_tx(0, event, start, end, hostrec_tid(), start_tid, range_id, 0, 0,
			       s->category, s->payload_type, s->message, n, hostrec_stamp_flags());
}

/* One stamp event: a compact record (hostfmt.h) naming the message by id,
 * or the TX record. start_tid and range_id only for START_STOP. */
static inline __attribute__((always_inline)) int emit_stamp(const struct stamp *s, uint16_t event,
							    uint64_t start, uint64_t end,
							    uint32_t start_tid, uint32_t range_id)
{
	uint64_t id = s->msg_id;

	if (npuprof_unlikely(!id))
		return emit_stamp_tx(s, event, start, end,
				     event == NPUPROF_TX_START_STOP ? start_tid : hostrec_tid(),
				     range_id);
	if (event == NPUPROF_TX_MARK)
		return hostrec_emit_stamp_mark(start, id, s->category, s->payload_type);
	return hostrec_emit_stamp_range(start, end, id, s->category, s->payload_type, start_tid,
					event == NPUPROF_TX_START_STOP ? range_id :
									 NPUPROF_TX_NO_RANGE);
}

/* ---- collection control ------------------------------------------------------------ */

static uint64_t postprocess_switches(uint64_t v)
{
	v |= PROF_AICPU_MODEL;
	if (v & ACL_PROF_TASK_TIME)
		v |= ACL_PROF_TASK_TIME_L0;
	if (v & (ACL_PROF_TASK_TIME_L2 | ACL_PROF_OP_ATTR))
		v |= ACL_PROF_TASK_TIME_L0 | ACL_PROF_TASK_TIME;
	if (v & ACL_PROF_TASK_TIME_L3)
		v |= ACL_PROF_TASK_TIME_L0 | ACL_PROF_TASK_TIME | ACL_PROF_TASK_TIME_L2;
	if (v & ACL_PROF_TASK_TIME_L0)
		v |= ACL_PROF_TRAINING_TRACE;
	if (v & ACL_PROF_API_STATS)
		v = ACL_PROF_ACL_API | ACL_PROF_API_STATS;
	return v;
}

/* Shared by Start and Stop (CANN validates both the same way). */
static aclError validate_config(const struct aclprofConfig *c)
{
	if (c->dataTypeConfig == 0)
		return ACL_ERROR_INVALID_PARAM;
	if (c->dataTypeConfig & ~PROF_SUPPORTED_MASK)
		return ACL_ERROR_PROF_MODULES_UNSUPPORTED;
	if (c->devNums > MAX_DEVICES + 1)
		return ACL_ERROR_INVALID_PARAM;
	return ACL_SUCCESS;
}

/* The driver's device count; no driver library: 0 devices. */
static uint32_t device_count(int *ok)
{
	uint32_t n = 0;

	*ok = rtplugin_device_count(&n) >= 0;
	return n;
}

aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums,
				   aclprofAicoreMetrics aicoreMetrics,
				   const aclprofAicoreEvents *aicoreEvents, uint64_t dataTypeConfig)
{
	struct aclprofConfig *c;
	uint32_t ndev;
	int ok;

	if (deviceNums != 0 && !deviceIdList)
		return NULL;
	if (aicoreEvents)
		return NULL;
	if (deviceNums > MAX_DEVICES)
		return NULL;
	ndev = device_count(&ok);
	if (!ok || deviceNums > ndev)
		return NULL;
	for (uint32_t i = 0; i < deviceNums; i++) {
		if (deviceIdList[i] >= ndev)
			return NULL;
		for (uint32_t j = 0; j < i; j++)
			if (deviceIdList[j] == deviceIdList[i])
				return NULL;
	}
	/* A host-only config is legal for msproftx. */
	if (deviceNums == 0 && !(dataTypeConfig & ACL_PROF_MSPROFTX))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (deviceNums)
		memcpy(c->devIdList, deviceIdList, deviceNums * sizeof(uint32_t));
	c->devIdList[deviceNums] = HOST_DEVICE_ID;
	c->devNums = deviceNums + 1;
	c->aicoreMetrics = aicoreMetrics;
	c->dataTypeConfig = postprocess_switches(dataTypeConfig);
	pthread_mutex_lock(&g_lock);
	handle_add(&g_configs, &c->link);
	pthread_mutex_unlock(&g_lock);
	return c;
}

aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig)
{
	int found;

	if (!profilerConfig)
		return ACL_ERROR_INVALID_PARAM;
	pthread_mutex_lock(&g_lock);
	found = handle_remove(&g_configs, &profilerConfig->link);
	pthread_mutex_unlock(&g_lock);
	if (!found)
		return ACL_ERROR_INVALID_PARAM;
	free((void *)profilerConfig);
	return ACL_SUCCESS;
}

/* Under g_lock: `path` exists (created if needed) and is a writable dir. */
static int usable_dir(const char *path)
{
	return npuprof_mkdirs(path, 0750) == 0 && access(path, W_OK | X_OK) == 0;
}

static int same_config(const struct aclprofConfig *a, const struct aclprofConfig *b)
{
	return a->dataTypeConfig == b->dataTypeConfig && a->devNums == b->devNums &&
	       memcmp(a->devIdList, b->devIdList, a->devNums * sizeof(uint32_t)) == 0;
}

/* Writes the options set with aclprofSetConfig; runs at every start. */
static void emit_options(void)
{
	for (int t = 0; t < ACL_PROF_ARGS_MAX; t++) {
		struct npuprof_hostfmt_option *r;
		uint32_t len, size;

		if (!g_options[t])
			continue;
		len = (uint32_t)strlen(g_options[t]);
		size = npuprof_hostfmt_size(offsetof(struct npuprof_hostfmt_option, value),
					    (size_t)len + 1);
		r = calloc(1, size);
		if (!r)
			continue;
		r->h.size = size;
		r->h.kind = NPUPROF_HOSTFMT_OPTION;
		r->type = (uint32_t)t;
		r->len = len;
		memcpy(r->value, g_options[t], len);
		npuprof_hostrec_emit(r, size);
		free(r);
	}
}

/* Runs inside npuprof_hostrec_start (with g_lock held by our caller), before
 * any producer record. */
static void on_stream_start(void)
{
	npuprof_str2id_emit_all();
	npuprof_profapi_emit_types();
	emit_options();
}

/* Under g_lock: starts the recorder in `dir` for config `c`. */
static aclError begin_collection(const char *dir, const struct aclprofConfig *c)
{
	struct npuprof_hostrec_config rc = {
		.dir = dir,
		.switches = c->dataTypeConfig,
		.aicore_metrics = (uint32_t)c->aicoreMetrics,
		.dev_count = c->devNums ? c->devNums - 1 : 0, /* without the host id */
		.dev_ids = c->devIdList,
	};
	char err[512];

	npuprof_hostrec_set_start_hook(on_stream_start);
	if (npuprof_hostrec_start(&rc, err, sizeof(err))) {
		fprintf(stderr, "npuprof: cannot start collecting: %s\n", err);
		return ACL_ERROR_PROFILING_FAILURE;
	}
	g_running = 1;
	g_running_cfg = *c;
	if (c->dataTypeConfig & ACL_PROF_MSPROFTX) {
		tx_init();
		atomic_store_explicit(&g_tx_collecting, 1, memory_order_release);
	}
	/* CANN's components (libprofapi's registrants) get INIT and START */
	npuprof_profapi_collection_start(c->dataTypeConfig, c->devIdList, rc.dev_count);
	return ACL_SUCCESS;
}

static aclError end_collection(void);

/* A program that exits without aclprofStop still leaves a complete
 * session: the capture drained, the end files written. */
static void api_session_exit(void)
{
	pthread_mutex_lock(&g_lock);
	if (g_api_session)
		end_collection();
	pthread_mutex_unlock(&g_lock);
}

/* Under g_lock: a new session directory under the result path, the host
 * recorder in it and, for a config with task times on devices, the capture
 * of our own device tasks (apisession.c). */
static aclError begin_api_collection(const struct aclprofConfig *c)
{
	struct apisession_config ac = {
		.parent = g_result_path,
		.switches = c->dataTypeConfig,
		.aicore_metrics = (uint32_t)c->aicoreMetrics,
		.dev_count = c->devNums ? c->devNums - 1 : 0,
		.dev_ids = c->devIdList,
	};
	char dir[PATH_MAX], err[1024];
	aclError ret;

	if (apisession_create(&ac, dir, sizeof(dir), err, sizeof(err)) < 0) {
		fprintf(stderr, "npuprof: cannot create the session directory: %s\n", err);
		apisession_finish(NULL, 0);
		return ACL_ERROR_INVALID_FILE;
	}
	ret = begin_collection(dir, c);
	if (ret != ACL_SUCCESS) {
		apisession_finish(NULL, 0);
		return ret;
	}
	g_api_session = 1;
	if (!g_api_exit_hooked) {
		/* after the host recorder's: runs before it at exit */
		atexit(api_session_exit);
		g_api_exit_hooked = 1;
	}
	apisession_capture_start();
	return ACL_SUCCESS;
}

/* Under g_lock. */
static aclError end_collection(void)
{
	int r;

	if (!g_running)
		return ACL_SUCCESS;
	atomic_store_explicit(&g_tx_collecting, 0, memory_order_release);
	npuprof_profapi_collection_stop();
	r = npuprof_hostrec_stop();
	g_running = 0;
	if (r)
		fprintf(stderr, "npuprof: writing %s failed: %s\n", npuprof_hostrec_path(),
			strerror(-r));
	if (g_api_session) {
		char err[1024];
		int f = apisession_finish(err, sizeof(err));

		g_api_session = 0;
		if (f) {
			fprintf(stderr, "npuprof: finishing the session failed: %s\n", err);
			r = r ? r : f;
		}
	}
	return r ? ACL_ERROR_PROFILING_FAILURE : ACL_SUCCESS;
}

/* Under g_lock, MODE_ENV: the one-line note in the program's result path.
 * Written to a temporary and renamed; a failure to write it is only said. */
static void write_env_note(const char *path)
{
	char note[MAX_PATH_LEN + 64], tmp[MAX_PATH_LEN + 80];
	FILE *f;

	snprintf(note, sizeof(note), "%s/%s", path, NPUPROF_PROFILE_NOTE);
	snprintf(tmp, sizeof(tmp), "%s.tmp", note);
	f = fopen(tmp, "w");
	if (!f ||
	    fprintf(f, "npuprof record governs this run: the profile is in %s\n", g_env_dir) < 0 ||
	    fclose(f) != 0 || rename(tmp, note) != 0) {
		fprintf(stderr, "npuprof: cannot write %s: %s\n", note, strerror(errno));
		unlink(tmp);
	}
}

aclError aclprofInit(const char *profilerResultPath, size_t length)
{
	aclError ret = ACL_SUCCESS;

	if (!profilerResultPath || length == 0 || length >= MAX_PATH_LEN)
		return ACL_ERROR_INVALID_PARAM;
	if (strnlen(profilerResultPath, length + 1) != length)
		return ACL_ERROR_INVALID_PARAM;
	pthread_mutex_lock(&g_lock);
	if (g_mode == MODE_API || (g_mode == MODE_ENV && g_env_inited))
		ret = ACL_ERROR_REPEAT_INITIALIZE;
	else if (!usable_dir(profilerResultPath))
		ret = ACL_ERROR_INVALID_FILE;
	else if (g_mode == MODE_ENV) {
		/* `npuprof record` governs: the program's calls succeed and its
		 * result path says where the profile went (acl/acl_prof.h). */
		write_env_note(profilerResultPath);
		g_env_inited = 1;
		pthread_mutex_unlock(&g_lock);
		return ACL_SUCCESS;
	}
	if (ret == ACL_SUCCESS) {
		memcpy(g_result_path, profilerResultPath, length + 1);
		memcpy(g_remembered_path, profilerResultPath, length + 1);
		g_mode = MODE_API;
	}
	pthread_mutex_unlock(&g_lock);
	return ret;
}

aclError aclprofFinalize(void)
{
	aclError ret;

	pthread_mutex_lock(&g_lock);
	if (g_mode == MODE_ENV) {
		/* record's session runs on until the program exits */
		g_env_inited = 0;
		pthread_mutex_unlock(&g_lock);
		return ACL_SUCCESS;
	}
	if (g_mode == MODE_NONE) {
		pthread_mutex_unlock(&g_lock);
		return ACL_SUCCESS;
	}
	ret = end_collection();
	tx_uninit();
	g_mode = MODE_NONE;
	pthread_mutex_unlock(&g_lock);
	return ret;
}

aclError aclprofStart(const aclprofConfig *profilerConfig)
{
	struct aclprofConfig eff;
	aclError ret;

	pthread_mutex_lock(&g_lock);
	if (profilerConfig) {
		if (!handle_live(g_configs, &profilerConfig->link)) {
			pthread_mutex_unlock(&g_lock);
			return ACL_ERROR_INVALID_PARAM;
		}
		eff = *profilerConfig;
	} else {
		/* Host only, default metrics and switches. */
		memset(&eff, 0, sizeof(eff));
		eff.devIdList[0] = HOST_DEVICE_ID;
		eff.devNums = 1;
		eff.aicoreMetrics = ACL_AICORE_PIPE_UTILIZATION;
		eff.dataTypeConfig = postprocess_switches(ACL_PROF_ACL_API | ACL_PROF_TASK_TIME);
	}
	ret = validate_config(&eff);
	if (g_mode == MODE_ENV) {
		/* record's session is running and governs; nothing to start */
		pthread_mutex_unlock(&g_lock);
		return ret;
	}
	if (ret == ACL_SUCCESS && g_mode == MODE_NONE) {
		/* Auto-init with the remembered result path, as CANN does since
         * 2026-06. */
		const char *p = g_remembered_path[0] ? g_remembered_path : "./";

		if (!usable_dir(p)) {
			ret = ACL_ERROR_INVALID_FILE;
		} else {
			snprintf(g_result_path, sizeof(g_result_path), "%s", p);
			g_mode = MODE_API;
		}
	}
	if (ret == ACL_SUCCESS && g_running) {
		/* A second Start starts nothing; it only checks consistency. */
		ret = same_config(&eff, &g_running_cfg) ? ACL_SUCCESS : ACL_ERROR_PROF_API_CONFLICT;
		pthread_mutex_unlock(&g_lock);
		return ret;
	}
	if (ret == ACL_SUCCESS)
		ret = begin_api_collection(&eff);
	pthread_mutex_unlock(&g_lock);
	return ret;
}

aclError aclprofStop(const aclprofConfig *profilerConfig)
{
	aclError ret;

	pthread_mutex_lock(&g_lock);
	if (g_mode == MODE_ENV) {
		/* record's session governs: it stops when the program exits */
		ret = ACL_SUCCESS;
		if (profilerConfig && !handle_live(g_configs, &profilerConfig->link))
			ret = ACL_ERROR_INVALID_PARAM;
		else if (profilerConfig)
			ret = validate_config(profilerConfig);
		pthread_mutex_unlock(&g_lock);
		return ret;
	}
	if (g_mode != MODE_API) {
		pthread_mutex_unlock(&g_lock);
		return ACL_SUCCESS;
	}
	if (!profilerConfig) {
		ret = ACL_SUCCESS;
		if (g_running)
			ret = end_collection();
		pthread_mutex_unlock(&g_lock);
		return ret;
	}
	if (!handle_live(g_configs, &profilerConfig->link))
		ret = ACL_ERROR_INVALID_PARAM;
	else
		ret = validate_config(profilerConfig);
	/* One collection per process: a valid config stops it even if it differs
     * from Start's (CANN documents that it must be the same). */
	if (ret == ACL_SUCCESS)
		ret = end_collection();
	pthread_mutex_unlock(&g_lock);
	return ret;
}

/* ---- aclprofSetConfig ------------------------------------------------------------ */

static int parse_uint(const char *s, unsigned long long lo, unsigned long long hi,
		      const char *suffix)
{
	unsigned long long v = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (unsigned)(*p - '0');
		if (v > hi)
			return 0;
	}
	return v >= lo && strcmp(p, suffix) == 0;
}

/* A comma-separated list of words from `allowed` (NULL-terminated). */
static int parse_list(const char *s, const char *const *allowed)
{
	char buf[MAX_CONFIG_LEN + 1], *save = NULL;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save), n++) {
		int ok = 0;

		for (const char *const *a = allowed; *a; a++)
			ok |= strcmp(w, *a) == 0;
		if (!ok)
			return 0;
	}
	return n > 0;
}

/* Value rules of msprof's matching command-line options. */
static int option_valid(aclprofConfigType t, const char *v)
{
	static const char *const host_sys[] = { "cpu", "mem", "disk", "network", "osrt", NULL };
	static const char *const host_usage[] = { "cpu", "mem", NULL };

	switch (t) {
	case ACL_PROF_STORAGE_LIMIT: return parse_uint(v, 200, 4294967295ULL, "MB");
	case ACL_PROF_SYS_HARDWARE_MEM_FREQ:
	case ACL_PROF_SYS_IO_FREQ:
	case ACL_PROF_DVPP_FREQ:
	case ACL_PROF_LOW_POWER_FREQ: return parse_uint(v, 1, 100, "");
	case ACL_PROF_SYS_INTERCONNECTION_FREQ:
	case ACL_PROF_HOST_SYS_USAGE_FREQ:
	case ACL_PROF_SYS_CPU_FREQ: return parse_uint(v, 1, 50, "");
	case ACL_PROF_LLC_MODE: return strcmp(v, "read") == 0 || strcmp(v, "write") == 0;
	case ACL_PROF_HOST_SYS: return parse_list(v, host_sys);
	case ACL_PROF_HOST_SYS_USAGE: return parse_list(v, host_usage);
	default: return v[0] != '\0';
	}
}

aclError aclprofSetConfig(aclprofConfigType configType, const char *config, size_t configLength)
{
	char *copy;

	if ((int)configType <= ACL_PROF_ARGS_MIN || (int)configType >= ACL_PROF_ARGS_MAX ||
	    (int)configType == 2)
		return ACL_ERROR_INVALID_PARAM;
	if (configLength > MAX_CONFIG_LEN || !config ||
	    strnlen(config, configLength + 1) != configLength)
		return ACL_ERROR_INVALID_PARAM;
	if (!option_valid(configType, config))
		return configType == ACL_PROF_NTS_METRICS ? ACL_ERROR_INVALID_PARAM :
							    ACL_ERROR_INVALID_PROFILING_CONFIG;
	copy = strdup(config);
	if (!copy)
		return ACL_ERROR_BAD_ALLOC;
	pthread_mutex_lock(&g_lock);
	free(g_options[configType]);
	g_options[configType] = copy;
	if (configType == ACL_PROF_PATH)
		snprintf(g_remembered_path, sizeof(g_remembered_path), "%s", copy);
	pthread_mutex_unlock(&g_lock);
	return ACL_SUCCESS;
}

/* ---- step markers --------------------------------------------------------------------- */

aclprofStepInfo *aclprofCreateStepInfo(void)
{
	struct aclprofStepInfo *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->indexId = atomic_fetch_add(&g_step_index, 1) + 1;
	pthread_mutex_lock(&g_lock);
	handle_add(&g_steps, &s->link);
	pthread_mutex_unlock(&g_lock);
	return s;
}

void aclprofDestroyStepInfo(aclprofStepInfo *stepinfo)
{
	int found;

	if (!stepinfo)
		return;
	pthread_mutex_lock(&g_lock);
	found = handle_remove(&g_steps, &stepinfo->link);
	pthread_mutex_unlock(&g_lock);
	if (found)
		free(stepinfo);
}

aclError aclprofGetStepTimestamp(aclprofStepInfo *stepInfo, aclprofStepTag tag, aclrtStream stream)
{
	uint64_t now;
	aclError ret = ACL_SUCCESS;

	if (!stepInfo || (tag != ACL_STEP_START && tag != ACL_STEP_END))
		return ACL_ERROR_INVALID_PARAM;
	pthread_mutex_lock(&g_lock);
	if (!handle_live(g_steps, &stepInfo->link))
		ret = ACL_ERROR_INVALID_PARAM;
	else if (tag == ACL_STEP_START ? stepInfo->startFlag : stepInfo->endFlag)
		ret = ACL_ERROR_INVALID_PARAM;
	else if (tag == ACL_STEP_START)
		stepInfo->startFlag = 1;
	else
		stepInfo->endFlag = 1;
	pthread_mutex_unlock(&g_lock);
	if (ret != ACL_SUCCESS)
		return ret;

	now = npuprof_hostrec_now();
	if (rtplugin_trace(stream, stepInfo->indexId, NPUPROF_TRACE_MODEL_ID, (uint16_t)tag))
		return ACL_ERROR_GE_FAILURE;
	{
		struct npuprof_hostfmt_step *r = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_STEP,
									 sizeof(*r));

		if (r) {
			r->tid = npuprof_hostrec_tid();
			r->tag = (uint32_t)tag;
			r->index_id = stepInfo->indexId;
			r->time_ns = now;
			r->stream = (uint64_t)(uintptr_t)stream;
			npuprof_hostrec_commit(r);
		}
	}
	return ACL_SUCCESS;
}

/* ---- msproftx ------------------------------------------------------------------------------ */

void *aclprofCreateStamp(void)
{
	struct stamp *s;

	if (!tx_inited())
		return NULL;
	pthread_mutex_lock(&g_pool_lock);
	s = g_free_stamps;
	if (s) {
		g_free_stamps = s->next_free;
		s->next_free = NULL;
		g_stamps_used++;
		atomic_store_explicit(&s->in_use, 1, memory_order_release);
	}
	pthread_mutex_unlock(&g_pool_lock);
	return s;
}

void aclprofDestroyStamp(void *stamp)
{
	struct stamp *s;

	if (!stamp || !tx_inited())
		return;
	pthread_mutex_lock(&g_pool_lock);
	s = pool_slot(stamp);
	if (s && atomic_load_explicit(&s->in_use, memory_order_relaxed)) {
		/* Not cleared: a reused stamp keeps message and category (CANN). */
		atomic_store_explicit(&s->in_use, 0, memory_order_release);
		s->next_free = g_free_stamps;
		g_free_stamps = s;
		g_stamps_used--;
	}
	pthread_mutex_unlock(&g_pool_lock);
}

aclError aclprofSetStampTraceMessage(void *stamp, const char *msg, uint32_t msgLen)
{
	struct stamp *s;
	uint64_t id;
	size_t n;

	if (!stamp || msgLen >= STAMP_MSG_MAX || !msg)
		return PROF_FAILED;
	s = live_stamp(stamp);
	if (!s)
		return PROF_FAILED;
	n = strnlen(msg, msgLen);
	memcpy(s->message, msg, n);
	s->message[n] = '\0';
	s->msg_len = (uint32_t)n;
	/* The records name the message by its id from now on (0: inline). At
	 * most STAMP_MSG_IDS distinct messages a process: a new message per
	 * call ("step 1", "step 2" ...) would otherwise grow the dictionary and
	 * write a HASH record per call; later new ones stay inline. */
	s->msg_id = 0;
	if (atomic_load_explicit(&g_stamp_msg_ids, memory_order_relaxed) < STAMP_MSG_IDS) {
		int r = npuprof_str2id_intern(s->message, n, &id);

		if (r == 1)
			atomic_fetch_add_explicit(&g_stamp_msg_ids, 1, memory_order_relaxed);
		if (r >= 0 && id)
			s->msg_id = id;
	}
	return 0;
}

aclError aclprofSetStampCategory(void *stamp, uint32_t category)
{
	struct stamp *s = stamp ? live_stamp(stamp) : NULL;

	if (!s)
		return PROF_FAILED;
	s->category = category;
	return 0;
}

aclError aclprofSetStampPayload(void *stamp, const int32_t type, void *value)
{
	struct stamp *s = stamp ? live_stamp(stamp) : NULL;

	if (!s || !value)
		return PROF_FAILED;
	s->payload_type = type;
	return 0;
}

/* The stamp calls read the clock as soon as they know that they record
 * and check their stamp afterwards: that work then overlaps the clock
 * read's conversion instead of waiting in front of its serialising TSC
 * read, and fewer values live across the call. */
aclError aclprofMark(void *stamp)
{
	struct stamp *s;
	uint64_t now;

	if (!tx_collecting())
		return PROF_FAILED;
	now = hostrec_stamp_now();
	s = live_stamp(stamp);
	if (!s)
		return PROF_FAILED;
	return emit_stamp(s, NPUPROF_TX_MARK, now, now, 0, NPUPROF_TX_NO_RANGE);
}

aclError aclprofMarkEx(const char *msg, size_t msgLen, aclrtStream stream)
{
	uint64_t id, now;
	uint32_t tid;

	if (!tx_collecting())
		return PROF_FAILED;
	if (!msg || !stream || strnlen(msg, msgLen + 1) != msgLen)
		return PROF_FAILED;
	if (msgLen < 1 || msgLen > MARKEX_MSG_MAX)
		return PROF_FAILED;
	now = hostrec_now();
	tid = hostrec_tid();
	/* Shared with mstx; the first id is 1. */
	id = atomic_fetch_add(&g_mark_id, 1) + 1;
	if (rtplugin_trace(stream, id, NPUPROF_TRACE_MODEL_ID, NPUPROF_EXT_TRACE_MARK))
		return PROF_FAILED;
	return hostrec_emit_tx(1, NPUPROF_TX_MARK_EX, now, now, tid, tid, NPUPROF_TX_NO_RANGE, id,
			       0, UINT32_MAX, 0, msg, (uint32_t)msgLen, 0);
}

aclError aclprofPush(void *stamp)
{
	struct stamp *s;
	uint64_t now;

	if (!stamp)
		return ACL_ERROR_INVALID_PARAM;
	if (!tx_collecting())
		return PROF_FAILED;
	now = hostrec_stamp_now();
	s = live_stamp(stamp);
	if (!s)
		return ACL_ERROR_INVALID_PARAM;
	if (npuprof_unlikely(t_st.depth == t_st.cap) && stack_grow())
		return PROF_FAILED;
	t_st.stack[t_st.depth].stamp = s;
	t_st.stack[t_st.depth].start_ns = now;
	t_st.depth++;
	return 0;
}

aclError aclprofPop(void)
{
	struct frame f;
	uint64_t now = 0;
	int collecting;

	if (!tx_inited())
		return PROF_FAILED;
	collecting = tx_collecting();
	if (npuprof_likely(collecting))
		now = hostrec_stamp_now(); /* first, as in the other stamp calls */
	if (t_st.depth == 0)
		return PROF_FAILED;
	f = t_st.stack[--t_st.depth];
	/* A range pushed before aclprofStop still leaves the stack, but its
     * record can no longer be reported. */
	if (!collecting)
		return PROF_FAILED;
	return emit_stamp(f.stamp, NPUPROF_TX_PUSH_POP, f.start_ns, now, 0, NPUPROF_TX_NO_RANGE);
}

aclError aclprofRangeStart(void *stamp, uint32_t *rangeId)
{
	struct stamp *s;
	uint64_t now;

	if (!stamp || !rangeId)
		return ACL_ERROR_INVALID_PARAM;
	if (!tx_collecting())
		return PROF_FAILED;
	now = hostrec_stamp_now();
	s = live_stamp(stamp);
	if (!s)
		return ACL_ERROR_INVALID_PARAM;
	atomic_store_explicit(&s->range_start_ns, now, memory_order_relaxed);
	atomic_store_explicit(&s->range_start_tid, hostrec_tid(), memory_order_relaxed);
	atomic_store_explicit(&s->range_armed, 1, memory_order_release);
	*rangeId = s->index;
	return 0;
}

aclError aclprofRangeStop(uint32_t rangeId)
{
	struct stamp *s;
	uint64_t start, now;
	uint32_t start_tid;

	if (!tx_collecting() || rangeId >= STAMP_POOL_SIZE)
		return PROF_FAILED;
	s = &g_pool[rangeId];
	/* Never disarmed, as in CANN: stopping again records again. */
	if (!atomic_load_explicit(&s->range_armed, memory_order_acquire))
		return PROF_FAILED;
	start = atomic_load_explicit(&s->range_start_ns, memory_order_relaxed);
	start_tid = atomic_load_explicit(&s->range_start_tid, memory_order_relaxed);
	/* Another thread's start was read from its CPU's counter, which may run
	 * a few cycles ahead of ours (rdtsc is neither serialised nor synchronised
	 * across a VM's CPUs): a range never ends before it starts. */
	now = hostrec_stamp_now();
	if (now < start)
		now = start;
	return emit_stamp(s, NPUPROF_TX_START_STOP, start, now, start_tid, rangeId);
}

aclError aclprofRangePushEx(aclprofEventAttributes *attr)
{
	if (!attr)
		return ACL_ERROR_INVALID_PARAM;
	if (attr->messageType != ACL_PROF_MESSAGE_TYPE_TENSOR_INFO)
		return PROF_FAILED;
	t_st.pushex = attr;
	t_st.pushex_ns = npuprof_hostrec_now();
	return 0;
}

/* Records the op's tensors, NPUPROF_TENSORS_PER_RECORD per record. */
static int emit_tensor_info(const aclprofTensorInfo *ti, uint64_t start, uint64_t end)
{
	uint32_t total = ti->tensorNum, first = 0;

	if (total && !ti->tensors)
		return PROF_FAILED;
	do {
		uint32_t n = total - first > NPUPROF_TENSORS_PER_RECORD ?
				     NPUPROF_TENSORS_PER_RECORD :
				     total - first;
		uint32_t size = npuprof_hostfmt_size(offsetof(struct npuprof_hostfmt_tensor_info,
							      tensors),
						     n * sizeof(struct npuprof_hostfmt_tensor));
		struct npuprof_hostfmt_tensor_info *r =
			npuprof_hostrec_reserve(NPUPROF_HOSTFMT_TENSOR_INFO, size);

		if (!r)
			return PROF_FAILED;
		r->tid = npuprof_hostrec_tid();
		r->tensor_count = n;
		r->start_ns = start;
		r->end_ns = end;
		r->op_name_id = ti->opNameId;
		r->op_type_id = ti->opTypeId;
		r->stream = (uint64_t)(uintptr_t)ti->stream;
		r->kernel_type = ti->kernelType;
		r->block_nums = ti->blockNums;
		r->first_tensor = first;
		r->total_tensors = total;
		for (uint32_t i = 0; i < n; i++) {
			const aclprofTensor *src = &ti->tensors[first + i];
			struct npuprof_hostfmt_tensor *dst = &r->tensors[i];
			uint32_t dims = src->shapeDim > 8 ? 8 : src->shapeDim;

			dst->type = src->type;
			dst->format = src->format;
			dst->data_type = src->dataType;
			dst->shape_dim = dims;
			for (uint32_t k = 0; k < 8; k++)
				dst->shape[k] = k < dims ? src->shape[k] : 0;
		}
		npuprof_hostrec_commit(r);
		first += n;
	} while (first < total);
	return 0;
}

/* The op info of a stream that caches it goes to the runtime, which adds
 * it to the stream's last task (CANN's ReportCacheOpInfo2RT). */
static int cache_op_info(const aclprofTensorInfo *ti)
{
	size_t size;
	struct npuprof_cache_op_info *c;
	struct MsrofTensorData *t;
	int r;

	if (ti->tensorNum && !ti->tensors)
		return PROF_FAILED;
	size = sizeof(*c) + (size_t)ti->tensorNum * sizeof(*t);
	c = calloc(1, size);
	if (!c)
		return PROF_FAILED;
	c->task_type = ti->kernelType;
	c->block_dim = ti->blockNums;
	c->node_id = ti->opNameId;
	c->op_type = ti->opTypeId;
	c->tensor_num = ti->tensorNum;
	t = (struct MsrofTensorData *)(c + 1);
	for (uint32_t i = 0; i < ti->tensorNum; i++) {
		const aclprofTensor *src = &ti->tensors[i];
		uint32_t dims = src->shapeDim > MSPROF_GE_TENSOR_DATA_SHAPE_LEN ?
					MSPROF_GE_TENSOR_DATA_SHAPE_LEN :
					src->shapeDim;

		t[i].tensorType = src->type;
		t[i].format = src->format;
		t[i].dataType = src->dataType;
		for (uint32_t k = 0; k < dims; k++)
			t[i].shape[k] = src->shape[k];
	}
	r = rtplugin_cache_op_info(c, size);
	free(c);
	return r ? PROF_FAILED : 0;
}

aclError aclprofRangePop(void)
{
	const aclprofTensorInfo *ti;

	if (!t_st.pushex)
		return ACL_ERROR_INVALID_PARAM;
	ti = t_st.pushex->message.tensorInfo;
	if (!ti)
		return PROF_FAILED;
	switch (rtplugin_stream_caches_op_info(ti->stream)) {
	case 0: break;
	case 1: return cache_op_info(ti);
	default: return PROF_FAILED;
	}
	if (!npuprof_hostrec_active())
		return 0;
	return emit_tensor_info(ti, t_st.pushex_ns, npuprof_hostrec_now());
}

/* ---- the session from the environment --------------------------------------------------- */

static int parse_devices(const char *s, struct aclprofConfig *c, char *err, size_t errlen)
{
	const char *p = s;

	c->devNums = 0;
	while (*p) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(p, &end, 10);
		if (end == p || errno || v >= MAX_DEVICES || c->devNums >= MAX_DEVICES) {
			snprintf(err, errlen, "NPUPROF_DEVICES: bad device list \"%s\"", s);
			return -EINVAL;
		}
		c->devIdList[c->devNums++] = (uint32_t)v;
		p = end;
		if (*p == ',')
			p++;
		else if (*p) {
			snprintf(err, errlen, "NPUPROF_DEVICES: bad device list \"%s\"", s);
			return -EINVAL;
		}
	}
	c->devIdList[c->devNums++] = HOST_DEVICE_ID;
	return 0;
}

static void free_handles(struct handle_link **head)
{
	while (*head) {
		struct handle_link *h = *head;

		*head = h->next;
		free(h); /* the link is the first member of every handle */
	}
}

void npuprof_aclprof_reset(void)
{
	pthread_mutex_lock(&g_lock);
	end_collection();
	if (npuprof_hostrec_active())
		npuprof_hostrec_stop();
	tx_uninit();
	g_mode = MODE_NONE;
	g_result_path[0] = g_remembered_path[0] = '\0';
	memset(&g_running_cfg, 0, sizeof(g_running_cfg));
	g_env_inited = 0;
	for (size_t i = 0; i < ACL_PROF_ARGS_MAX; i++) {
		free(g_options[i]);
		g_options[i] = NULL;
	}
	free_handles(&g_configs);
	free_handles(&g_steps);
	atomic_store(&g_step_index, 0);
	atomic_store(&g_mark_id, 0);
	atomic_fetch_add(&npuprof_g_mark_gen, 1);
	pthread_mutex_unlock(&g_lock);
	pthread_mutex_lock(&g_pool_lock);
	g_pool_ready = 0;
	pool_reset();
	pthread_mutex_unlock(&g_pool_lock);
	npuprof_str2id_reset();
	atomic_store(&g_stamp_msg_ids, 0);
	npuprof_mstx_reset();
	npuprof_profapi_reset();
}

int npuprof_session_from_env(char *err, size_t errlen)
{
	const char *dir = getenv("NPUPROF_OUTPUT_DIR");
	const char *sw = getenv("NPUPROF_SWITCHES");
	const char *devs = getenv("NPUPROF_DEVICES");
	struct aclprofConfig c;
	char dummy[8];
	int r;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	if (!dir || !*dir)
		return 0;
	memset(&c, 0, sizeof(c));
	c.aicoreMetrics = ACL_AICORE_PIPE_UTILIZATION;
	c.dataTypeConfig = ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX;
	if (sw && *sw) {
		char *end;

		errno = 0;
		c.dataTypeConfig = strtoull(sw, &end, 0);
		if (errno || *end || !c.dataTypeConfig) {
			snprintf(err, errlen, "NPUPROF_SWITCHES: not a switch mask: \"%s\"", sw);
			return -EINVAL;
		}
	}
	c.dataTypeConfig = postprocess_switches(c.dataTypeConfig);
	if (c.dataTypeConfig & ~PROF_SUPPORTED_MASK) {
		snprintf(err, errlen, "NPUPROF_SWITCHES: unsupported bits 0x%llx",
			 (unsigned long long)(c.dataTypeConfig & ~PROF_SUPPORTED_MASK));
		return -EINVAL;
	}
	r = parse_devices(devs ? devs : "", &c, err, errlen);
	if (r)
		return r;
	pthread_mutex_lock(&g_lock);
	if (g_mode != MODE_NONE) {
		pthread_mutex_unlock(&g_lock);
		snprintf(err, errlen, "the profiling API is already in use");
		return -EBUSY;
	}
	if (begin_collection(dir, &c) != ACL_SUCCESS) {
		pthread_mutex_unlock(&g_lock);
		snprintf(err, errlen, "cannot record into %s", dir);
		return -EIO;
	}
	g_mode = MODE_ENV;
	snprintf(g_env_dir, sizeof(g_env_dir), "%s", dir);
	pthread_mutex_unlock(&g_lock);
	return 0;
}

int npuprof_g_env_session_off;

/* A program started by `npuprof record` is profiled from its first
 * instruction, like one started by msprof. */
__attribute__((constructor)) static void aclprof_load(void)
{
	char err[512];

	if (npuprof_g_env_session_off)
		return;
	if (npuprof_session_from_env(err, sizeof(err)))
		fprintf(stderr, "npuprof: not recording host data: %s\n", err);
}
