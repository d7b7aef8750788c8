/*
 * export.c — a session directory to the msprof database (export.h).
 *
 * Pass 1 reads the kernel raw stream for the clock-sync samples (one
 * least-squares fit per device) and to learn which devices report device
 * task times, while a second thread indexes the host streams
 * (hostdata_open). Pass 2 feeds the records, through a bounded reorder heap that
 * absorbs the small cross-CPU disorder of a capture, to the correlator
 * (correlate.c), with the task times of the devices' STARS SoC logs
 * (stars.c) merged in by time; it hands back finished tasks; each becomes a TASK row
 * plus, from the host task track matched at submit time, its connectionId,
 * runtime task type and detail rows (COMPUTE_TASK_INFO, MEMCPY_INFO,
 * COMMUNICATION_TASK_INFO). Host-only rows (CANN_API, MSTX_EVENTS,
 * COMMUNICATION_OP) come from the host streams (hostdata.c).
 *
 * Before a new database is published it is compared with the ones it would
 * replace (keep_more_complete): an export from damaged or missing input
 * never replaces a more complete database unless forced (export.h).
 */
#include <pthread.h>

#include "acl/acl_prof.h"
#include "atomicfile.h"
#include "dbread.h"
#include "errmsg.h"
#include "numparse.h"
#include "npuprof/export.h"
#include "npuprof/rawkern.h"
#include "npuprof/session.h"
#include "npuprof/trace.h"
#include "analysis.h"
#include "correlate.h"
#include "fwk.h"
#include "hostdata.h"
#include "lpfreq.h"
#include "stars.h"
#include "uapi/npusim.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <inttypes.h>
#include <regex.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define REORDER_WINDOW 65536 /* records held back to restore time order */
#define U32_NONE 4294967295LL

/* A device's STARS SoC log being merged: its next task as a record. */
struct stars_src {
	struct stars_reader *rd;
	uint32_t dev;
	int have; /* head holds the next task */
	struct npuprof_record head;
	char path[4400];
};

/* What the STARS logs of one export gave. */
struct stars_totals {
	struct stars_stats st; /* summed over the devices */
	uint64_t other; /* tasks of streams the capture has no record of */
	uint64_t sampled_out; /* tasks a --sample N capture did not keep */
	uint64_t kernel_ignored; /* the kernel's own task times of STARS devices */
	uint64_t damaged; /* logs cut short or unreadable */
};

struct export_ctx {
	/* what is exported, into what */
	const struct npuprof_session *s;
	struct hostdata *hd;
	struct npuprof_db *w;
	FILE *warn;
	const volatile sig_atomic_t *cancel;
	int force;
	struct npuprof_export_result *res;
	int err;
	struct correlator corr;
	/* the kernel stream's state */
	struct {
		int damaged, warned; /* damaged, said once */
		int session_damaged; /* npuprof.session damaged, exported anyway (--force) */
		int prescanned; /* pass 1 done beside the host index, its count: */
		long prescan_n;
		int host_only; /* no kernel capture: task times from the host task tracks */
	} kern;
	/* the reorder window (circular, sorted) */
	struct {
		struct npuprof_record *heap;
		size_t n, head;
	} win;
	/* progress */
	struct {
		uint64_t fed, total;
		int on, last_pct;
	} prog;
	/* TASK rows: their numbering and span */
	struct {
		uint64_t next_gtid; /* globalTaskId of the next TASK row: dense */
		uint64_t host_gtid; /* corr_task.gtid of host-only tasks */
		int64_t first_ns, last_ns;
	} tasks;
	/* string tables: host string ids as STRING_IDS ids */
	struct {
		struct u64map sid; /* host string id -> STRING_IDS id */
		npuprof_db_str (*opids)[12]; /* op_strings() */
		size_t nopids;
	} str;
	/* MsTx device markers (mstx_key): the ones written as TASK rows, and
	 * range markers whose closing marker has not come yet (-> pend) */
	struct {
		struct u64map dev, open;
		struct npuprof_db_task *pend;
		size_t npend, cap;
	} mstx;
	/* the devices' STARS SoC logs (device_<N>/data/stars_soc.data) */
	struct {
		uint64_t found; /* devices with a log (bit = device id) */
		uint64_t used; /* those whose task times come from it */
		uint64_t kernel_times; /* devices with the kernel's task times (pass 1) */
		struct u64map kstreams; /* (device, stream) the kernel stream has records of */
		uint64_t kstream_last; /* the key put last (a cache) */
		struct stars_src *src; /* those being merged (stars_begin) */
		int nsrc;
		int warned; /* the logs' warnings said (a second database) */
		struct stars_totals tot;
	} soc;
	/* the devices' AI Core frequency changes (lpfreq.h), this database's */
	struct {
		uint64_t found, damaged, entries, refused, after_end, rows;
		int warned; /* its warnings said (a second database) */
	} lp;
	/* the PyTorch database's extras */
	struct {
		const char *metadata_path; /* profiler_metadata.json, or NULL */
		char metadata_buf[4400];
		struct fwk_result fwk; /* its framework tables */
	} pt;
};

/* A marker's key: the process and its transaction (index) id. */
static uint64_t mstx_key(uint32_t pid, uint64_t index_id)
{
	return ((uint64_t)pid << 40) ^ (index_id & ((1ULL << 40) - 1));
}

static int64_t unix_ns(const struct export_ctx *x, uint64_t mono)
{
	return npuprof_session_unix_ns(x->s, mono);
}

static npuprof_db_str intern(struct export_ctx *x, const char *s)
{
	npuprof_db_str id = npuprof_db_intern(x->w, s ? s : "N/A");

	if (id < 0)
		x->err = (int)id;
	return id < 0 ? NPUPROF_DB_STR_NA : id;
}

/* A host string id; absent (NO_STRING) and unresolvable ids give N/A.
 * Cached, because detail rows repeat the same few strings. */
static npuprof_db_str hstr(struct export_ctx *x, uint64_t id)
{
	const char *s;
	uint64_t v;
	npuprof_db_str r;

	if (id == NPUPROF_HOSTFMT_NO_STRING)
		return NPUPROF_DB_STR_NA;
	if (u64map_get(&x->str.sid, id, &v))
		return (npuprof_db_str)v;
	s = hostdata_str(x->hd, id);
	r = intern(x, s && *s ? s : "N/A");
	if (u64map_put(&x->str.sid, id, (uint64_t)r) < 0 && !x->err)
		x->err = -ENOMEM;
	return r;
}

static void check(struct export_ctx *x, int r)
{
	if (r < 0 && !x->err)
		x->err = r;
	if (x->cancel && *x->cancel && !x->err)
		x->err = -EINTR;
}

/* STARS SQE type names (msprof STARS_SQE_TYPE_TABLE), for tasks whose
 * runtime type is unknown (no host task track). */
static const char *sqe_type_name(uint32_t t)
{
	static const char *const names[] = {
		"AI_CORE",	    "AI_CPU",	      "AIV_SQE",	   "PLACE_HOLDER_SQE",
		"EVENT_RECORD_SQE", "EVENT_WAIT_SQE", "NOTIFY_RECORD_SQE", "NOTIFY_WAIT_SQE",
		"WRITE_VALUE_SQE",  "VQ6_SQE",	      "TOF_SQE",	   "SDMA_SQE",
		"VPC_SQE",	    "JPEGE_SQE",      "JPEGD_SQE",	   "DSA_SQE",
		"ROCCE_SQE",	    "PCIE_DMA_SQE",   "HOST_CPU_SQE",	   "CDQM_SQE",
		"C_CORE_SQE",
	};
	return t < sizeof(names) / sizeof(names[0]) ? names[t] : "Other";
}

/* The database ids of an op's twelve strings, in hostdata_op_strings' order:
 * interned once per distinct set (x->str.opids[c->strings]), not per task. */
enum {
	OS_NAME,
	OS_OP_TYPE,
	OS_TASK_TYPE,
	OS_INPUT_FORMATS,
	OS_INPUT_DTYPES,
	OS_INPUT_SHAPES,
	OS_OUTPUT_FORMATS,
	OS_OUTPUT_DTYPES,
	OS_OUTPUT_SHAPES,
	OS_ATTR,
	OS_OP_STATE,
	OS_HF32,
	OS_N
};
_Static_assert(sizeof(struct hostdata_op_strings) == OS_N * sizeof(uint64_t),
	       "hostdata_op_strings");

static const npuprof_db_str *op_strings(struct export_ctx *x, const struct hostdata_compute *c)
{
	static const npuprof_db_str none[OS_N];

	if (c->strings >= x->str.nopids) {
		size_t n = x->hd->nopstr > c->strings ? x->hd->nopstr : (size_t)c->strings + 1;
		npuprof_db_str(*p)[OS_N] = realloc(x->str.opids, n * sizeof(*p));

		if (!p) {
			check(x, -ENOMEM);
			return none;
		}
		memset(p + x->str.nopids, 0xff, (n - x->str.nopids) * sizeof(*p)); /* -1: not yet */
		x->str.opids = p;
		x->str.nopids = n;
	}
	npuprof_db_str *ids = x->str.opids[c->strings];
	if (ids[0] == (npuprof_db_str)-1) {
		const uint64_t *sid = (const uint64_t *)hostdata_op_strings(x->hd, c);

		for (int k = 0; k < OS_N; k++)
			ids[k] = hstr(x, sid[k]);
	}
	return ids;
}

/* ---- tasks ------------------------------------------------------------------ */

static void on_submit(void *vctx, struct corr_task *t)
{
	struct export_ctx *x = vctx;

	/* the host merge advances to the submit (plus the tracks' slack) */
	t->user = hostdata_launch(x->hd, t->pid, t->dev, t->stream, t->task, t->tid, t->submit_ns);
	if (!t->user)
		check(x, -ENOMEM);
}

/* A task's TASK row from the task and the host track that launched it (or
 * the API open on its thread); *type is the track's task type. */
static void task_row(struct export_ctx *x, const struct corr_task *t,
		     const struct hostdata_launch *l, const struct hostdata_track *tr,
		     struct npuprof_db_task *row, const char **type)
{
	int64_t conn = -1;

	memset(row, 0, sizeof(*row));
	row->startNs = unix_ns(x, t->start_ns);
	row->endNs = unix_ns(x, t->end_ns);
	row->deviceId = t->dev;
	row->globalPid = t->pid;
	row->contextId = U32_NONE;
	row->streamId = t->stream;
	row->taskId = t->task;
	row->modelId = U32_NONE;
	*type = NULL;
	if (tr) {
		*type = hostdata_str(x->hd, tr->r.task_type_id);
		if (tr->r.connection_id != NPUPROF_NO_CONNECTION)
			conn = (int64_t)tr->r.connection_id;
		if (tr->r.model_id != NPUPROF_NO_ID32)
			row->modelId = tr->r.model_id;
		if (*type && !strcmp(*type, "PROFILER_TRACE_EX") &&
		    (tr->r.trace_tag == 11 || tr->r.trace_tag == 12))
			*type = "MsTx"; /* the MarkEx / mstx device marker */
	} else if (l && l->has_api) {
		/* an uninstrumented launch: the API open on its thread */
		conn = (int64_t)l->api_conn;
	}
	row->connectionId = conn;
}

/* The task's detail records, looked up once; an FFTS+ subtask's context
 * comes from its op or HCCL task. */
static void task_details(struct export_ctx *x, const struct corr_task *t,
			 const struct hostdata_track *tr, struct npuprof_db_task *row,
			 const struct hostdata_compute **cc, const struct hostdata_hccl_task **hc)
{
	*cc = NULL;
	*hc = NULL;
	if (!tr)
		return;
	*cc = hostdata_compute(x->hd, t->pid, t->dev, t->stream, t->task, tr->r.batch_id);
	*hc = hostdata_hccl_task(x->hd, t->pid, t->dev, t->stream, t->task, tr->r.batch_id);
	if (*cc && (*cc)->r.context_id != NPUPROF_NO_ID32)
		row->contextId = (*cc)->r.context_id;
	else if (*hc && (*hc)->r.context_id != NPUPROF_NO_ID32)
		row->contextId = (*hc)->r.context_id;
}

/* An MsTx device marker's row: one TASK row per marker; a range's two
 * markers (tag 12, the same index) become one row from the first to the
 * second (§5.6). 1: held until its closing marker (nothing to write now),
 * 0: write row, or a negative errno. */
static int mstx_marker(struct export_ctx *x, const struct corr_task *t,
		       const struct hostdata_track *tr, struct npuprof_db_task *row)
{
	uint64_t key = mstx_key(t->pid, tr->r.index_id), slot;

	if (tr->r.trace_tag == 12 && u64map_get(&x->mstx.open, key, &slot)) {
		int64_t end = row->endNs;

		*row = x->mstx.pend[slot];
		row->endNs = end > row->startNs ? end : row->startNs;
		u64map_del(&x->mstx.open, key);
	} else if (tr->r.trace_tag == 12) {
		if (x->mstx.npend == x->mstx.cap) {
			size_t nc = x->mstx.cap ? 2 * x->mstx.cap : 64;
			struct npuprof_db_task *n = realloc(x->mstx.pend, nc * sizeof(*n));

			if (!n)
				return -ENOMEM;
			x->mstx.pend = n;
			x->mstx.cap = nc;
		}
		x->mstx.pend[x->mstx.npend] = *row;
		if (u64map_put(&x->mstx.open, key, x->mstx.npend++) < 0)
			return -ENOMEM;
		return 1; /* written with its closing marker */
	}
	if (u64map_put(&x->mstx.dev, key, 1) < 0)
		return -ENOMEM;
	return 0;
}

/* The TASK row, numbered and counted. */
static void add_task_row(struct export_ctx *x, struct npuprof_db_task *row)
{
	row->globalTaskId = (int64_t)x->tasks.next_gtid++;
	check(x, npuprof_db_add_task(x->w, row));
	x->res->tasks++;
	if (!x->tasks.first_ns || row->startNs < x->tasks.first_ns)
		x->tasks.first_ns = row->startNs;
	if (row->endNs > x->tasks.last_ns)
		x->tasks.last_ns = row->endNs;
}

/* COMPUTE_TASK_INFO of a task's compute op. */
static void write_compute_info(struct export_ctx *x, const struct hostdata_compute *c, int64_t gtid)
{
	const npuprof_db_str *os = op_strings(x, c);
	struct npuprof_db_compute_task_info ci;

	memset(&ci, 0, sizeof(ci));
	ci.name = os[OS_NAME];
	ci.globalTaskId = gtid;
	ci.blockDim = c->r.block_dim;
	ci.mixBlockDim = c->r.mix_block_dim;
	ci.taskType = os[OS_TASK_TYPE];
	ci.opType = os[OS_OP_TYPE];
	ci.inputFormats = os[OS_INPUT_FORMATS];
	ci.inputDataTypes = os[OS_INPUT_DTYPES];
	ci.inputShapes = os[OS_INPUT_SHAPES];
	ci.outputFormats = os[OS_OUTPUT_FORMATS];
	ci.outputDataTypes = os[OS_OUTPUT_DTYPES];
	ci.outputShapes = os[OS_OUTPUT_SHAPES];
	ci.attrInfo = os[OS_ATTR];
	ci.opState = os[OS_OP_STATE];
	ci.hf32Eligible = os[OS_HF32];
	ci.gridDim = NPUPROF_DB_STR_NA;
	ci.blockDimStr = NPUPROF_DB_STR_NA;
	check(x, npuprof_db_add_compute_task_info(x->w, &ci));
	x->res->compute++;
}

/* COMMUNICATION_TASK_INFO of a task's HCCL task; its op's device span
 * grows to the task's row. */
static void write_comm_info(struct export_ctx *x, const struct corr_task *t,
			    const struct hostdata_hccl_task *h, const struct npuprof_db_task *row)
{
	struct hostdata_hccl_op *op = hostdata_hccl_op(x->hd, t->pid, h->r.op_seq);
	struct npuprof_db_communication_task_info ct;

	memset(&ct, 0, sizeof(ct));
	ct.name = hstr(x, h->r.op_name_id);
	ct.globalTaskId = row->globalTaskId;
	ct.taskType = hstr(x, h->r.task_type_id);
	ct.planeId = h->r.plane_id;
	ct.groupName = hstr(x, h->r.group_name_id);
	ct.notifyId = (int64_t)h->r.notify_id; /* uint64 max reads -1 */
	ct.rdmaType = h->r.rdma_type;
	ct.srcRank = h->r.src_rank;
	ct.dstRank = h->r.dst_rank;
	ct.transportType = h->r.transport_type;
	ct.size = (int64_t)h->r.size;
	ct.dataType = h->r.data_type;
	ct.linkType = h->r.link_type;
	ct.opId = op ? op->op_id : 0;
	ct.isMaster = h->r.is_master;
	ct.bandwidth = (double)h->r.bandwidth;
	check(x, npuprof_db_add_communication_task_info(x->w, &ct));
	x->res->comm_tasks++;
	if (op) {
		if (op->dev_start < 0 || row->startNs < op->dev_start)
			op->dev_start = row->startNs;
		if (row->endNs > op->dev_end)
			op->dev_end = row->endNs;
	}
}

/* A task's rows; t->user is its launch (hostdata_launch). */
static int write_task(struct export_ctx *x, const struct corr_task *t)
{
	const struct hostdata_launch *l = t->user;
	const struct hostdata_track *tr = l && l->tracked ? &l->tr : NULL;
	const struct hostdata_compute *cc;
	const struct hostdata_hccl_task *hc;
	struct npuprof_db_task row;
	const char *type;

	task_row(x, t, l, tr, &row, &type);
	task_details(x, t, tr, &row, &cc, &hc);
	row.taskType = intern(x, type && *type ? type : sqe_type_name(t->sqe_type));
	if (tr && type && !strcmp(type, "MsTx")) {
		int r = mstx_marker(x, t, tr, &row);

		if (r < 0)
			return x->err = r;
		if (r > 0)
			return x->err;
	}
	add_task_row(x, &row);
	if (!tr)
		return x->err;
	if (tr->r.memcpy_op != NPUPROF_ENUM_INVALID) {
		struct npuprof_db_memcpy_info m = {
			.globalTaskId = row.globalTaskId,
			.size = (int64_t)tr->r.bytes,
			.memcpyOperation = tr->r.memcpy_op,
		};
		check(x, npuprof_db_add_memcpy_info(x->w, &m));
	}
	if (cc)
		write_compute_info(x, cc, row.globalTaskId);
	if (hc)
		write_comm_info(x, t, hc, &row);
	return x->err;
}

static int on_done(void *vctx, const struct corr_task *t)
{
	struct export_ctx *x = vctx;
	struct corr_task own;
	int r;

	if (t->orphan && !t->user && x->s->pid) {
		/* a task without a submit (send mode UIO_D fires none): the
		 * profiled process's launch of (device, stream, task), which
		 * precedes the task's start */
		own = *t;
		own.pid = x->s->pid;
		own.user = hostdata_launch(x->hd, own.pid, t->dev, t->stream, t->task, 0,
					   t->start_ns);
		if (!own.user)
			check(x, -ENOMEM);
		t = &own;
	}
	r = write_task(x, t);

	hostdata_release(x->hd, t->user);
	return r;
}

/* ---- the reorder window -------------------------------------------------
 * A circular buffer kept sorted by time: a capture is nearly in order, so
 * an insertion moves back past at most a few records, and the oldest record
 * leaves when the window is full. */

static void window_push(struct export_ctx *x, const struct npuprof_record *r)
{
	size_t i = (x->win.head + x->win.n) % REORDER_WINDOW;

	x->win.n++;
	while (i != x->win.head) {
		size_t p = (i + REORDER_WINDOW - 1) % REORDER_WINDOW;

		if (x->win.heap[p].hdr.ts <= r->hdr.ts)
			break;
		x->win.heap[i] = x->win.heap[p];
		i = p;
	}
	x->win.heap[i] = *r;
}

static const struct npuprof_record *window_pop(struct export_ctx *x)
{
	const struct npuprof_record *r = &x->win.heap[x->win.head];

	x->win.head = (x->win.head + 1) % REORDER_WINDOW;
	x->win.n--;
	return r;
}

static void progress(struct export_ctx *x)
{
	int pct;

	if (!x->prog.on || !x->prog.total)
		return;
	pct = (int)(x->prog.fed * 100 / x->prog.total);
	if (pct == x->prog.last_pct)
		return;
	x->prog.last_pct = pct;
	fprintf(stderr, "\rnpuprof export: [%-50.*s] %3d%%", pct / 2,
		"##################################################", pct);
	if (pct == 100)
		fputc('\n', stderr);
}

/* ---- device task times from the STARS SoC logs ----------------------------
 * A device with a log (device_<N>/data/stars_soc.data) has its task times
 * from it, not from the kernel stream's task-time records (the npusim:task_time
 * tracepoint, which a 910B does not have): each task the log pairs
 * (stars.c) becomes a TASK_TIME record stamped with its end on the host
 * clock (the device's clock fit) and is fed to the correlator between the
 * kernel records, in time order, before a kernel record of the same time.
 *
 * The log holds every task the device ran, the capture only those of the
 * processes it took (the pid filter; a job split into one session per
 * process, jobsplit.c, gives each the whole log): a task of a stream the
 * kernel stream has neither a submit nor a completion of is another
 * process's, counted and left out. */

static void stars_path(char *buf, size_t len, const char *dir, uint32_t dev)
{
	snprintf(buf, len, "%s/device_%u/" NPUPROF_STARS_SOC_FILE, dir, dev);
}

/* Which devices of the session have a log (before pass 1, which then
 * notes their kernel streams). */
static void stars_find(struct export_ctx *x)
{
	char path[4400];

	for (uint32_t d = 0; d < CORR_MAX_DEV; d++) {
		stars_path(path, sizeof(path), x->s->dir, d);
		if (access(path, F_OK) == 0)
			x->soc.found |= 1ULL << d;
	}
}

/* Pass 1: a stream of a device with a log that the kernel stream has. */
static void stars_kernel_stream(struct export_ctx *x, uint32_t dev, uint32_t stream)
{
	uint64_t k = npuprof_stream_key(dev, stream);

	if (dev >= CORR_MAX_DEV || !(x->soc.found >> dev & 1) || k + 1 == x->soc.kstream_last)
		return;
	x->soc.kstream_last = k + 1;
	if (u64map_put(&x->soc.kstreams, k, 1) < 0)
		check(x, -ENOMEM);
}

/* A log's counts and problems, once it has been read to its end. */
static void stars_done(struct export_ctx *x, struct stars_src *src)
{
	const struct stars_stats *st = stars_stats(src->rd);
	struct stars_stats *t = &x->soc.tot.st;
	int say = !x->soc.warned;

	t->records += st->records;
	t->tasks += st->tasks;
	t->unstarted += st->unstarted;
	t->unended += st->unended;
	t->unknown += st->unknown;
	t->backwards += st->backwards;
	t->late += st->late;
	t->tail_bytes += st->tail_bytes;
	if (st->tail_bytes) {
		x->soc.tot.damaged++;
		x->res->damaged = 1;
		if (say)
			fprintf(x->warn,
				"npuprof export: warning: %s: offset %llu: truncated record (%llu bytes); the %llu whole records before it are exported\n",
				src->path, (unsigned long long)st->tail_offset,
				(unsigned long long)st->tail_bytes,
				(unsigned long long)st->records);
	}
	if (say && (st->unstarted || st->unended || st->unknown || st->backwards))
		fprintf(x->warn,
			"npuprof export: warning: %s: %llu ends without a start, %llu starts without an end, %llu records of an unknown function type, %llu ends before their start: those tasks have no STARS times\n",
			src->path, (unsigned long long)st->unstarted,
			(unsigned long long)st->unended, (unsigned long long)st->unknown,
			(unsigned long long)st->backwards);
	stars_close(src->rd);
	src->rd = NULL;
}

/* The log's next task into src->head, or the log's end. */
static void stars_advance(struct export_ctx *x, struct stars_src *src)
{
	const struct corr_clock *clk = &x->corr.clock[src->dev];
	struct npuprof_task_time *tt = &src->head.task_time;
	struct stars_task t;
	char err[4600];
	int r = stars_next(src->rd, &t, err, sizeof(err));

	src->have = r == 1;
	if (r == 0)
		stars_done(x, src);
	if (r < 0) {
		/* what was read counts; the rest of the file cannot be had */
		if (!x->soc.warned)
			fprintf(x->warn,
				"npuprof export: warning: %s; its tasks before that are exported\n",
				err);
		x->res->damaged = 1;
		x->soc.tot.damaged++;
		stars_done(x, src);
	}
	if (!src->have)
		return;
	memset(&src->head, 0, sizeof(src->head));
	src->head.hdr.type = NPUPROF_REC_TASK_TIME;
	src->head.hdr.size = NPUPROF_RECORD_SIZE;
	src->head.hdr.ts = corr_clock_mono(clk, t.end_cnt);
	tt->devid = src->dev;
	tt->sq_id = t.sq_id;
	tt->stream_id = t.stream_id;
	tt->task_id = t.task_id;
	tt->sqe_type = t.sqe_type;
	tt->start_cnt = t.start_cnt;
	tt->end_cnt = t.end_cnt;
}

/* After the clock fit: open the logs of the devices whose counter converts
 * to the host clock; from now on their task times are the logs'. */
static void stars_begin(struct export_ctx *x)
{
	char err[4600];

	memset(&x->soc.tot, 0, sizeof(x->soc.tot));
	x->soc.nsrc = 0;
	x->soc.used = 0;
	if (!x->soc.found)
		return;
	x->soc.src = calloc((size_t)__builtin_popcountll(x->soc.found), sizeof(*x->soc.src));
	if (!x->soc.src) {
		check(x, -ENOMEM);
		return;
	}
	for (uint32_t d = 0; d < CORR_MAX_DEV; d++) {
		struct stars_src *src = &x->soc.src[x->soc.nsrc];

		if (!(x->soc.found >> d & 1))
			continue;
		memset(src, 0, sizeof(*src));
		src->dev = d;
		stars_path(src->path, sizeof(src->path), x->s->dir, d);
		if (!x->corr.clock[d].valid) {
			if (!x->soc.warned)
				fprintf(x->warn,
					"npuprof export: warning: %s: device %u has no clock-sync samples, so its STARS times cannot be put on the host clock: not used\n",
					src->path, d);
			continue;
		}
		if (stars_open(&src->rd, src->path, err, sizeof(err)) < 0) {
			if (!x->soc.warned)
				fprintf(x->warn,
					"npuprof export: error: %s: nothing exported from it\n",
					err);
			x->res->damaged = 1;
			x->res->unreadable++;
			x->soc.tot.damaged++;
			continue;
		}
		x->soc.used |= 1ULL << d;
		x->corr.task_time[d] = 1;
		x->soc.nsrc++;
		stars_advance(x, src);
	}
}

/* Feed the logs' tasks up to time ts (all: UINT64_MAX), in time order. */
static void stars_feed_upto(struct export_ctx *x, uint64_t ts)
{
	while (!x->err) {
		struct stars_src *next = NULL;
		const struct npuprof_task_time *tt;

		for (int i = 0; i < x->soc.nsrc; i++)
			if (x->soc.src[i].have && x->soc.src[i].head.hdr.ts <= ts &&
			    (!next || x->soc.src[i].head.hdr.ts < next->head.hdr.ts))
				next = &x->soc.src[i];
		if (!next)
			return;
		tt = &next->head.task_time;
		/* the log has every task; a sampled capture keeps the kernel's choice */
		if (!npuprof_sample_keep(x->s->sample_n, tt->devid, tt->stream_id, tt->task_id))
			x->soc.tot.sampled_out++;
		else if (u64map_get(&x->soc.kstreams, npuprof_stream_key(tt->devid, tt->stream_id),
				    NULL))
			check(x, corr_feed(&x->corr, &next->head));
		else
			x->soc.tot.other++;
		stars_advance(x, next);
	}
}

/* After pass 2: the rest of the logs, and every log closed. */
static void stars_end(struct export_ctx *x)
{
	stars_feed_upto(x, UINT64_MAX);
	for (int i = 0; i < x->soc.nsrc; i++)
		if (x->soc.src[i].rd) {
			stars_close(x->soc.src[i].rd); /* an error stopped the export */
			x->soc.src[i].rd = NULL;
		}
	free(x->soc.src);
	x->soc.src = NULL;
	x->soc.nsrc = 0;
	x->soc.warned |= x->soc.found != 0;
}

/* A kernel record to the correlator: the logs' tasks not later than it
 * first, and never the kernel's own task times of a device with a log. */
static int feed(struct export_ctx *x, const struct npuprof_record *r)
{
	x->prog.fed++;
	if ((x->prog.fed & 0xffff) == 0)
		progress(x);
	if (x->soc.nsrc)
		stars_feed_upto(x, r->hdr.ts);
	if (r->hdr.type == NPUPROF_REC_TASK_TIME && r->task_time.devid < CORR_MAX_DEV &&
	    (x->soc.used >> r->task_time.devid & 1)) {
		x->soc.tot.kernel_ignored++;
		return x->err;
	}
	check(x, corr_feed(&x->corr, r));
	return x->err;
}

static int on_kernel_record(void *vctx, const struct npuprof_record *r)
{
	struct export_ctx *x = vctx;

	if (x->win.n == REORDER_WINDOW && feed(x, window_pop(x)))
		return 1;
	window_push(x, r);
	return 0;
}

/* Pass 1: clock-sync samples and which devices have task times. */
static int on_scan_record(void *vctx, const struct npuprof_record *r)
{
	struct export_ctx *x = vctx;

	x->prog.total++;
	if (r->hdr.type == NPUPROF_REC_CLOCK_SYNC && r->clock.devid < CORR_MAX_DEV)
		corr_clock_add(&x->corr.clock[r->clock.devid], r->clock.host_ns, r->clock.dev_cnt,
			       r->clock.counter_hz);
	else if (r->hdr.type == NPUPROF_REC_TASK_TIME && r->task_time.devid < CORR_MAX_DEV) {
		x->corr.task_time[r->task_time.devid] = 1;
		x->soc.kernel_times |= 1ULL << r->task_time.devid;
	} else if (x->soc.found && r->hdr.type == NPUPROF_REC_SUBMIT)
		stars_kernel_stream(x, r->submit.devid, r->submit.stream_id);
	else if (x->soc.found && r->hdr.type == NPUPROF_REC_COMPLETE)
		stars_kernel_stream(x, r->complete.devid, r->complete.stream_id);
	return 0;
}

/* Does the session collect the data of ACL_PROF_* bit `sw`? An API-driven
 * session writes only what its config enabled; record's (switches 0) all. */
static int enabled(const struct export_ctx *x, uint64_t sw)
{
	return !x->s->switches || (x->s->switches & sw);
}

/* A host-only session (no kernel capture): one TASK row per host task
 * track, from its launch to launch + its modelled duration, with the same
 * detail rows a captured task gets (on_done). The times are host-derived;
 * META_DATA says so (npuprof.task_time_source=host). */
/* npusim's default SDMA bandwidth (its sdma_mbps parameter), for copies
 * whose duration the runtime left to the device */
#define HOST_SDMA_MBPS 20000ULL

/* A host-derived task's span: its modelled duration, a copy's bytes at the
 * default bandwidth, at least 1 ns. */
static uint64_t host_task_ns(const struct hostdata_track *tr)
{
	uint64_t d = tr->r.duration_ns, bytes = tr->r.bytes;

	if (!d && bytes)
		d = bytes > UINT64_MAX / 1000 ? UINT64_MAX / HOST_SDMA_MBPS :
						bytes * 1000 / HOST_SDMA_MBPS;
	return d ? d : 1;
}

static void on_host_task(void *vctx, const struct hostdata_track *tr)
{
	struct export_ctx *x = vctx;
	struct hostdata_launch l;
	struct corr_task t;

	if (x->err)
		return;
	memset(&l, 0, sizeof(l));
	l.tr = *tr;
	l.tracked = 1;
	l.self = HOSTDATA_END;
	memset(&t, 0, sizeof(t));
	t.gtid = x->tasks.host_gtid++;
	t.dev = tr->r.device_id;
	t.stream = tr->r.stream_id;
	t.task = tr->r.task_id;
	t.batch = tr->r.batch_id;
	t.sqe_type = tr->r.sqe_type;
	t.pid = tr->pid;
	t.tid = tr->r.tid;
	t.submit_ns = t.start_ns = tr->r.time_ns;
	t.end_ns = tr->r.time_ns + host_task_ns(tr);
	t.user = &l;
	write_task(x, &t);
}

/* ---- host-only rows -------------------------------------------------------- */

/* A CANN_API row, as the host merge reaches the call. */
static void on_api(void *vctx, const struct hostdata_api *a)
{
	struct export_ctx *x = vctx;
	struct npuprof_db_cann_api row = {
		.startNs = unix_ns(x, a->r.start_ns),
		.endNs = unix_ns(x, a->r.end_ns),
		.type = a->r.level,
		.globalTid = npuprof_global_tid(a->pid, a->r.tid),
		.connectionId = (int64_t)a->r.connection_id,
		.name = hstr(x, hostdata_api_strings(x->hd, a)->name_id),
	};

	if (x->err)
		return;
	check(x, npuprof_db_add_cann_api(x->w, &row));
	x->res->api++;
}

/* Range markers whose closing marker never came (the range was still open
 * at the end of the capture, or the marker was lost): a TASK row each, from
 * its one marker. */
static void flush_open_markers(struct export_ctx *x)
{
	for (size_t i = 0; i < x->mstx.npend && !x->err; i++) {
		struct npuprof_db_task *row = &x->mstx.pend[i];
		uint64_t key = mstx_key((uint32_t)row->globalPid,
					(uint64_t)(row->connectionId -
						   (int64_t)NPUPROF_MSTX_CONNECTION_BASE)),
			 slot;

		if (!u64map_get(&x->mstx.open, key, &slot) || slot != i)
			continue; /* closed */
		row->globalTaskId = (int64_t)x->tasks.next_gtid++;
		check(x, npuprof_db_add_task(x->w, row));
		x->res->tasks++;
		if (u64map_put(&x->mstx.dev, key, 1) < 0)
			x->err = -ENOMEM;
	}
	u64map_free(&x->mstx.open);
	x->mstx.npend = 0;
}

/* The connectionId of an MSTX_EVENTS row (§5.6): MarkEx and mstx events
 * whose device marker is a TASK row link to it (4000000001 + markId); every
 * other range is host only (4294967295, which the consumers' range queries
 * filter out), and host-only stamp marks and push/pop keep msprof's
 * 4000000000. So no connectionId points at a missing TASK row except the
 * host-only values. */
static int64_t mstx_connection(const struct export_ctx *x, const struct hostdata_tx *t)
{
	uint64_t v;

	if (t->r.info_type == 1 && u64map_get(&x->mstx.dev, mstx_key(t->pid, t->r.mark_id), &v))
		return (int64_t)(NPUPROF_MSTX_CONNECTION_BASE + t->r.mark_id);
	if (t->r.info_type == 1 || t->r.event_type == NPUPROF_TX_START_STOP)
		return (int64_t)NPUPROF_MSTX_NO_CONNECTION;
	return (int64_t)NPUPROF_MSTX_HOST_CONNECTION;
}

/* mstx ranges come in two halves (hostfmt.h): a start (end_ns 0) and an
 * end (start_ns 0) with the same mark id. */
static int mstx_start_half(const struct hostdata_tx *t)
{
	return t->r.info_type == 1 && t->r.event_type == NPUPROF_TX_START_STOP && t->r.end_ns == 0;
}

static int mstx_end_half(const struct hostdata_tx *t)
{
	return t->r.info_type == 1 && t->r.event_type == NPUPROF_TX_START_STOP &&
	       t->r.start_ns == 0;
}

static void write_mstx(struct export_ctx *x)
{
	int64_t begin = (int64_t)x->s->start_realtime_ns;
	struct u64map ends; /* mstx_key -> index of the range's end half */

	flush_open_markers(x);
	u64map_init(&ends);
	for (size_t i = 0; i < x->hd->ntx && !x->err; i++) {
		const struct hostdata_tx *t = &x->hd->tx[i];
		uint64_t key = mstx_key(t->pid, t->r.mark_id), v;

		if (mstx_end_half(t) && !u64map_get(&ends, key, &v) &&
		    u64map_put(&ends, key, i) < 0)
			x->err = -ENOMEM;
	}
	for (size_t i = 0; i < x->hd->ntx && !x->err; i++) {
		const struct hostdata_tx *t = &x->hd->tx[i];
		int ex = t->r.info_type == 1;
		struct npuprof_db_mstx_events row;
		const char *domain = "";
		uint64_t end_ns = t->r.end_ns, v;

		if (mstx_end_half(t))
			continue; /* written with its start */
		if (mstx_start_half(t)) {
			if (!u64map_get(&ends, mstx_key(t->pid, t->r.mark_id), &v))
				continue; /* never ended: CANN reports a range at its end */
			end_ns = x->hd->tx[v].r.end_ns;
		}
		/* a range whose halves came from two CPUs' counters */
		if (end_ns < t->r.start_ns)
			end_ns = t->r.start_ns;
		if (ex && t->r.domain && t->r.domain != NPUPROF_HOSTFMT_NO_STRING) {
			domain = hostdata_str(x->hd, t->r.domain);
			if (!domain)
				domain = "invalid";
		}
		memset(&row, 0, sizeof(row));
		row.startNs = unix_ns(x, t->r.start_ns);
		row.endNs = unix_ns(x, end_ns);
		if (row.startNs < begin)
			continue; /* before the collection, as msprof drops them */
		row.eventType = t->r.event_type;
		row.rangeId = U32_NONE;
		row.category = ex ? U32_NONE : t->r.category;
		row.message = intern(x, t->message);
		row.globalTid = npuprof_global_tid(t->pid, t->r.tid);
		row.endGlobalTid = row.globalTid;
		row.domainId = intern(x, domain);
		row.connectionId = mstx_connection(x, t);
		check(x, npuprof_db_add_mstx_events(x->w, &row));
		x->res->mstx++;
	}
	u64map_free(&ends);
}

/* aclprofGetStepTimestamp: STEP_TIME (id, startNs, endNs), the home the
 * PyTorch database has for step times (§5.7; msprof databases have none,
 * their step markers are the PROFILER_TRACE_EX tasks in TASK). A step is
 * its step info's index; its start and end are the host times of its
 * ACL_STEP_START and ACL_STEP_END calls. A step with one of the two missing
 * is not written; with several processes, the first one's. */
static void write_steps(struct export_ctx *x)
{
	struct u64map ends; /* index id -> end time */
	struct u64map seen;

	u64map_init(&ends);
	u64map_init(&seen);
	for (size_t i = 0; i < x->hd->nstep && !x->err; i++) {
		const struct hostdata_step *st = &x->hd->step[i];
		uint64_t v;

		if (st->r.tag == 1 && !u64map_get(&ends, st->r.index_id, &v) &&
		    u64map_put(&ends, st->r.index_id, st->r.time_ns) < 0)
			x->err = -ENOMEM;
	}
	for (size_t i = 0; i < x->hd->nstep && !x->err; i++) {
		const struct hostdata_step *st = &x->hd->step[i];
		struct npuprof_db_step_time row;
		uint64_t end;

		if (st->r.tag != 0 || !u64map_get(&ends, st->r.index_id, &end) ||
		    u64map_get(&seen, st->r.index_id, NULL) || st->r.index_id > INT64_MAX)
			continue;
		if (u64map_put(&seen, st->r.index_id, 1) < 0) {
			x->err = -ENOMEM;
			break;
		}
		row.id = (int64_t)st->r.index_id;
		row.startNs = unix_ns(x, st->r.time_ns);
		row.endNs = unix_ns(x, end > st->r.time_ns ? end : st->r.time_ns);
		check(x, npuprof_db_add_step_time(x->w, &row));
	}
	u64map_free(&ends);
	u64map_free(&seen);
}

static void write_comm_ops(struct export_ctx *x)
{
	for (size_t i = 0; i < x->hd->nhop && !x->err; i++) {
		const struct hostdata_hccl_op *o = &x->hd->hop[i];
		struct npuprof_db_communication_op row;

		if (o->dev_start < 0)
			continue; /* none of its tasks was captured */
		memset(&row, 0, sizeof(row));
		row.opName = hstr(x, o->r.op_name_id);
		row.startNs = o->dev_start;
		row.endNs = o->dev_end;
		row.connectionId = o->r.connection_id == NPUPROF_NO_CONNECTION ?
					   -1 :
					   (int64_t)o->r.connection_id;
		row.groupName = hstr(x, o->r.group_name_id);
		row.opId = o->op_id;
		row.relay = o->r.relay;
		row.retry = o->r.retry;
		row.dataType = o->r.data_type;
		row.algType = hstr(x, o->r.alg_type_id);
		row.count = (int64_t)o->r.count;
		row.opType = hstr(x, o->r.op_type_id);
		row.deviceId = o->r.device_id;
		row.rankSize = o->r.rank_size;
		check(x, npuprof_db_add_communication_op(x->w, &row));
		x->res->comm_ops++;
	}
}

static void meta(struct export_ctx *x, const char *name, const char *fmt, ...)
{
	char v[256];
	va_list ap;
	struct npuprof_db_meta_data row;

	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	row.name = name;
	row.value = v;
	check(x, npuprof_db_add_meta_data(x->w, &row));
}

/* The STARS logs' counts (only in a session that has logs); the result
 * gets them too. */
static void write_stars_meta(struct export_ctx *x)
{
	const struct stars_totals *t = &x->soc.tot;
	struct npuprof_export_result *res = x->res;

	res->stars_records = t->st.records;
	res->stars_tasks = t->st.tasks;
	res->stars_unpaired = t->st.unstarted + t->st.unended;
	res->stars_bad = t->st.unknown + t->st.backwards + (t->st.tail_bytes ? 1 : 0);
	res->stars_other = t->other;
	meta(x, "npuprof.stars_devices", "%d", __builtin_popcountll(x->soc.used));
	meta(x, "npuprof.stars_records", "%llu", (unsigned long long)t->st.records);
	meta(x, "npuprof.stars_tasks", "%llu", (unsigned long long)t->st.tasks);
	meta(x, "npuprof.stars_ends_without_start", "%llu", (unsigned long long)t->st.unstarted);
	meta(x, "npuprof.stars_starts_without_end", "%llu", (unsigned long long)t->st.unended);
	meta(x, "npuprof.stars_unknown_records", "%llu", (unsigned long long)t->st.unknown);
	meta(x, "npuprof.stars_ends_before_start", "%llu", (unsigned long long)t->st.backwards);
	meta(x, "npuprof.stars_truncated_bytes", "%llu", (unsigned long long)t->st.tail_bytes);
	meta(x, "npuprof.stars_other_stream_tasks", "%llu", (unsigned long long)t->other);
	meta(x, "npuprof.stars_sampled_out_tasks", "%llu", (unsigned long long)t->sampled_out);
	meta(x, "npuprof.stars_throttled_out_tasks", "%llu",
	     (unsigned long long)x->corr.stats.unkept);
	meta(x, "npuprof.stars_kernel_task_times_ignored", "%llu",
	     (unsigned long long)t->kernel_ignored);
}

/* A device's AI Core frequency changes (device_<N>/data/lpmFreqConv.data)
 * at their host times, through the device's clock fit as its STARS log's
 * task times; 0 changes when it has none or they cannot be had (said). */
static size_t aicore_freq_changes(struct export_ctx *x, uint32_t dev, struct lpfreq_row **out)
{
	struct lpfreq_entry *e = NULL;
	struct lpfreq_stats st = { 0 };
	char path[4400], err[4600];
	size_t n = 0, k = 0;

	*out = NULL;
	snprintf(path, sizeof(path), "%s/device_%u/" NPUPROF_LPM_FREQ_FILE, x->s->dir, dev);
	if (access(path, F_OK) != 0)
		return 0;
	if (dev >= CORR_MAX_DEV || !x->corr.clock[dev].valid) {
		if (!x->lp.warned)
			fprintf(x->warn,
				"npuprof export: warning: %s: device %u's counter has no clock fit: its AI Core frequency changes are left out\n",
				path, dev);
		return 0;
	}
	if (lpfreq_read(path, &e, &n, &st, err, sizeof(err)) < 0) {
		if (!x->lp.warned)
			fprintf(x->warn,
				"npuprof export: warning: %s; its AI Core frequency changes before that are exported\n",
				err);
		x->res->damaged = 1;
		x->lp.damaged++;
	}
	if (st.bad_records || st.bad_entries || st.tail_bytes) {
		if (!x->lp.warned)
			fprintf(x->warn,
				"npuprof export: warning: %s: %llu records with a count over %d and %llu entries of 0 MHz refused, %llu bytes of a partial record at the end\n",
				path, (unsigned long long)st.bad_records, NPUSIM_LP_ENTRIES,
				(unsigned long long)st.bad_entries,
				(unsigned long long)st.tail_bytes);
		x->res->damaged = 1;
		x->lp.damaged++;
	}
	x->lp.found++;
	x->lp.entries += st.entries;
	x->lp.refused += st.bad_records + st.bad_entries;
	*out = n ? malloc(n * sizeof(**out)) : NULL;
	if (n && !*out) {
		check(x, -ENOMEM);
		n = 0;
	}
	for (size_t i = 0; i < n; i++) {
		int64_t ns;

		if (!npuprof_session_unix_ns_fits(
			    x->s, corr_clock_mono(&x->corr.clock[dev], e[i].sys_cnt), &ns)) {
			x->lp.refused++;
			continue;
		}
		(*out)[k].ns = ns;
		(*out)[k++].freq = e[i].freq;
	}
	free(e);
	return k;
}

/* AICORE_FREQ as msprof's AicoreFreqProcessor writes it (lpfreq.h): the
 * frequency at the session's start, each change the device's channel 132
 * reported, and the last one at the end; dieId -1, msprof's for a 910B
 * (one die). The frequency at the start is the rated one the device
 * backend reported (halGetDeviceInfo INFO_TYPE_FREQUE, which msprof's
 * collector writes to info.json aic_frequency) unless a change came
 * before the start. A device whose frequency is unknown (0) gets no rows. */
static void write_aicore_freq(struct export_ctx *x, const struct npuprof_session_device *d,
			      int64_t start_ns, int64_t end_ns)
{
	struct npuprof_db_aicore_freq f = { .deviceId = d->id, .dieId = -1 };
	struct lpfreq_row *c, *rows;
	uint64_t after;
	size_t n, k;

	if (!d->aicore_mhz)
		return;
	n = aicore_freq_changes(x, d->id, &c);
	rows = malloc((n + 2) * sizeof(*rows));
	if (!rows) {
		free(c);
		check(x, -ENOMEM);
		return;
	}
	k = lpfreq_rows(d->aicore_mhz, start_ns, end_ns, c, n, rows, &after);
	x->lp.after_end += after;
	for (size_t i = 0; i < k; i++) {
		f.timestampNs = rows[i].ns;
		f.freq = rows[i].freq;
		check(x, npuprof_db_add_aicore_freq(x->w, &f));
	}
	x->lp.rows += k > 2 ? k - 2 : 0;
	free(rows);
	free(c);
}

static void write_session_rows(struct export_ctx *x)
{
	const struct npuprof_session *s = x->s;
	struct npuprof_db_session_time_info st = {
		.startTimeNs = (int64_t)s->start_realtime_ns,
		.endTimeNs = s->end_realtime_ns ? (int64_t)s->end_realtime_ns : x->tasks.last_ns,
	};
	struct npuprof_db_host_info hi = { .hostUid = s->host_uid, .hostName = s->hostname };
	struct corr_stats *cs = &x->corr.stats;
	double resid = 0;

	check(x, npuprof_db_add_session_time_info(x->w, &st));
	check(x, npuprof_db_add_host_info(x->w, &hi));
	if (!s->ndev) {
		struct npuprof_db_npu_info ni = { .id = -1, .name = "UNKNOWN" };

		check(x, npuprof_db_add_npu_info(x->w, &ni));
	}
	for (int i = 0; i < s->ndev; i++) {
		struct npuprof_db_npu_info ni = { .id = s->dev[i].id, .name = s->dev[i].chip };

		check(x, npuprof_db_add_npu_info(x->w, &ni));
	}
	/* one row per NPU_INFO device, with its rank (resolve_ranks); none: the
	 * writer's default (-1, -1) */
	for (int i = 0; i < s->ndev; i++) {
		struct npuprof_db_rank_device_map m = { s->dev[i].rank, s->dev[i].id };

		check(x, npuprof_db_add_rank_device_map(x->w, &m));
	}
	x->lp.found = x->lp.damaged = x->lp.entries = x->lp.refused = 0;
	x->lp.after_end = x->lp.rows = 0;
	for (int i = 0; i < s->ndev; i++)
		write_aicore_freq(x, &s->dev[i], st.startTimeNs, st.endTimeNs);
	x->lp.warned = 1;
	for (int d = 0; d < CORR_MAX_DEV; d++)
		if (x->corr.clock[d].valid && x->corr.clock[d].residual > resid)
			resid = x->corr.clock[d].residual;
	x->res->clock_residual_ns = resid;
	meta(x, "npuprof.engine", "%s", s->engine);
	meta(x, "npuprof.sample_n", "%u", s->sample_n > 1 ? s->sample_n : 1);
	meta(x, "npuprof.drops", "%llu",
	     (unsigned long long)(s->dropped > cs->drops_lost ? s->dropped : cs->drops_lost));
	meta(x, "npuprof.tasks_in_flight_at_stop", "%llu", (unsigned long long)cs->in_flight);
	meta(x, "npuprof.completions_without_submit", "%llu", (unsigned long long)cs->orphans);
	/* measured times: from the STARS logs, the kernel's task-time
	 * records, or both (devices of either kind) */
	const char *dev = !x->soc.used			     ? "device" :
			  x->soc.kernel_times & ~x->soc.used ? "stars+device" :
							       "stars";
	meta(x, "npuprof.task_time_source", "%s%s",
	     x->kern.host_only			   ? "host" :
	     cs->tasks && cs->derived == cs->tasks ? "derived" :
						     dev,
	     !x->kern.host_only && cs->derived && cs->derived != cs->tasks ? "+derived" : "");
	meta(x, "npuprof.derived_tasks", "%llu", (unsigned long long)cs->derived);
	meta(x, "npuprof.clock_fit_residual_ns", "%.1f", resid);
	meta(x, "npuprof.host_records_lost", "%llu", (unsigned long long)x->hd->lost);
	meta(x, "npuprof.damaged_inputs", "%llu",
	     (unsigned long long)(x->hd->damaged_files + (x->kern.damaged ? 1 : 0) +
				  (x->kern.session_damaged ? 1 : 0) + x->soc.tot.damaged +
				  x->lp.damaged));
	if (x->soc.found)
		write_stars_meta(x);
	if (x->lp.found) {
		meta(x, "npuprof.aicore_freq_entries", "%llu", (unsigned long long)x->lp.entries);
		meta(x, "npuprof.aicore_freq_refused", "%llu", (unsigned long long)x->lp.refused);
		meta(x, "npuprof.aicore_freq_after_end", "%llu",
		     (unsigned long long)x->lp.after_end);
	}
	meta(x, "npuprof.kernel_records_skipped", "%llu",
	     (unsigned long long)x->res->kernel_bad_records);
	meta(x, "npuprof.late_records", "%llu", (unsigned long long)cs->late);
	meta(x, "npuprof.command", "%s", s->cmd);
	if (s->window_period_ms) {
		meta(x, "npuprof.window", "%u/%u", s->window_on_ms, s->window_period_ms);
		meta(x, "npuprof.window_skipped", "%llu", (unsigned long long)s->window_skipped);
	}
	if (s->rate_limit) {
		meta(x, "npuprof.rate_limit", "%u", s->rate_limit);
		meta(x, "npuprof.rate_skipped", "%llu", (unsigned long long)s->rate_skipped);
	}
	meta(x, "npuprof.sampled_out", "%llu", (unsigned long long)s->sampled_out);
}

/* ---- what a new database may replace ------------------------------------ */

/* The tables whose row counts say how complete an export is. */
static const enum npuprof_db_table complete_tables[] = {
	NPUPROF_DB_TASK,
	NPUPROF_DB_CANN_API,
	NPUPROF_DB_COMPUTE_TASK_INFO,
	NPUPROF_DB_COMMUNICATION_OP,
	NPUPROF_DB_MSTX_EVENTS,
	NPUPROF_DB_PYTORCH_API, /* the PyTorch database's framework ops */
};
#define N_COMPLETE (sizeof(complete_tables) / sizeof(complete_tables[0]))

/* Row counts of the complete_tables in the database at path (an absent
 * table has 0 rows). 0, or -1 with why if it cannot be read. */
static int old_counts(const char *path, int64_t *n, char *why, size_t whylen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st;
	int r = -1;

	if (access(path, R_OK) < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		goto out;
	for (size_t i = 0; i < N_COMPLETE; i++) {
		char sql[128];
		const char *t = npuprof_db_table_name(complete_tables[i]);
		int rc, exists = npuprof_db_has_table(db, t);

		/* the producer creates a data table only when it has rows */
		if (exists < 0)
			goto out;
		n[i] = 0;
		if (!exists)
			continue;
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", t);
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
			goto out;
		rc = sqlite3_step(st);
		n[i] = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
		sqlite3_finalize(st);
		if (rc != SQLITE_ROW)
			goto out;
	}
	r = 0;
out:
	if (r < 0)
		snprintf(why, whylen, "%s", db ? sqlite3_errmsg(db) : "out of memory");
	sqlite3_close(db);
	return r;
}

/* Was the database at path exported from undamaged input? Ours say so in
 * META_DATA npuprof.damaged_inputs; a database without that row (msprof's)
 * counts as undamaged. */
static int old_undamaged(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st;
	int clean = 1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db,
			       "SELECT value FROM META_DATA WHERE name = 'npuprof.damaged_inputs'",
			       -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW) {
			const unsigned char *v = sqlite3_column_text(st, 0);

			clean = v && !strcmp((const char *)v, "0");
		}
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return clean;
}

/* Calls fn for every msprof_<14 digits>.db of dir but `keep`. */
static void for_each_msprof_db(const char *dir, const char *keep,
			       int (*fn)(void *ctx, const char *path), void *ctx)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	regex_t re;

	if (!d)
		return;
	if (regcomp(&re, "^msprof_[0-9]{14}\\.db$", REG_EXTENDED | REG_NOSUB)) {
		closedir(d);
		return;
	}
	while ((e = readdir(d))) {
		char path[4352];

		if (regexec(&re, e->d_name, 0, NULL, 0) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (strcmp(path, keep) != 0 && fn(ctx, path))
			break;
	}
	regfree(&re);
	closedir(d);
}

static int unlink_one(void *ctx, const char *path)
{
	(void)ctx;
	unlink(path);
	return 0;
}

struct keep_check {
	struct npuprof_db *w;
	char *msg;
	size_t msglen;
	int keep;
	int damaged; /* the new export's input is damaged */
};

/* Is the database at path more complete than the one being written? */
static int check_one(void *vctx, const char *path)
{
	struct keep_check *k = vctx;
	int64_t old[N_COMPLETE];
	char why[256], diff[512];
	size_t n = 0;

	if (old_counts(path, old, why, sizeof(why)) < 0) {
		snprintf(k->msg, k->msglen,
			 "%s cannot be read to compare it with the new export (%s)", path, why);
		k->keep = 1;
		return 1;
	}
	diff[0] = '\0';
	for (size_t i = 0; i < N_COMPLETE && n < sizeof(diff); i++) {
		uint64_t now = npuprof_db_row_count(k->w, complete_tables[i]);

		if (old[i] > 0 && (uint64_t)old[i] > now)
			n += (size_t)snprintf(diff + n, sizeof(diff) - n,
					      "%s%s %lld rows, now %llu", n ? ", " : "",
					      npuprof_db_table_name(complete_tables[i]),
					      (long long)old[i], (unsigned long long)now);
	}
	if (!diff[0]) {
		/* not rows only: damaged input never replaces a database of
		 * undamaged input, whatever the counts */
		if (!k->damaged || !old_undamaged(path))
			return 0;
		snprintf(k->msg, k->msglen,
			 "%s was exported from undamaged input and this export's input is damaged",
			 path);
		k->keep = 1;
		return 1;
	}
	snprintf(k->msg, k->msglen, "%s is more complete than this export (%s)", path, diff);
	k->keep = 1;
	return 1;
}

/* Before publishing: -EEXIST (with err) if a database this export replaces
 * holds more (see export.h), unless forced. */
static int keep_more_complete(struct export_ctx *x, const char *outdir,
			      const struct npuprof_db_options *dbo, char *err, size_t errlen)
{
	char msg[1024];
	struct keep_check k = { x->w, msg, sizeof(msg), 0, x->res->damaged };
	const char *final = npuprof_db_path(x->w);

	if (x->force)
		return 0;
	if (dbo->variant == NPUPROF_DB_MSPROF)
		for_each_msprof_db(outdir, "", check_one, &k);
	else if (access(final, F_OK) == 0)
		check_one(&k, final);
	if (!k.keep)
		return 0;
	npuprof_seterr(err, errlen,
		       "%s: kept, nothing written%s; rerun with --force to replace it anyway", msg,
		       x->res->damaged ?
			       " (the input is damaged or unreadable: see the warnings above)" :
			       "");
	return -EEXIST;
}

/* ---- one database ------------------------------------------------------------ */

/* Pass 1 over the kernel stream, and what it says about the file. */
/* This thread's CPU time, for the breakdown. */
static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds since cpu0 less the seconds spent reading (never below 0). */
static double cpu_less_reads(double cpu0, double read)
{
	double d = thread_cpu() - cpu0 - read;

	return d > 0 ? d : 0;
}

static long scan_kernel(struct export_ctx *x, const char *kpath)
{
	struct npuprof_rawk_info info;
	char kerr[1024];
	double cpu0 = thread_cpu();
	long n;

	x->prog.total = 0;
	n = npuprof_rawk_read(kpath, on_scan_record, x, &info, kerr, sizeof(kerr));
	x->res->read_seconds += info.read_ns / 1e9;
	x->res->decode_seconds += cpu_less_reads(cpu0, info.read_ns / 1e9);
	if (x->kern.warned) {
		/* a second database of the same export: said the first time */
		x->res->kernel_bad_records = info.bad_records;
		x->res->damaged |= x->kern.damaged;
		return n;
	}
	x->kern.warned = 1;
	x->kern.damaged = n < 0 || kerr[0];
	if (n == -ENOENT) {
		fprintf(x->warn,
			"npuprof export: warning: %s: no kernel stream: the database has no device tasks\n",
			kpath);
		x->res->damaged = 1;
		x->res->unreadable++;
	} else if (n < 0) {
		fprintf(x->warn,
			"npuprof export: error: %s: nothing exported from it (no device tasks)\n",
			kerr);
		x->res->damaged = 1;
		x->res->unreadable++;
	} else if (kerr[0]) {
		fprintf(x->warn,
			"npuprof export: warning: %s; the other %ld records are exported\n", kerr,
			n);
		x->res->damaged = 1;
		x->res->kernel_bad_records = info.bad_records;
	}
	return n;
}

static double secs_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* A new database: the writer's string ids, numbering and markers from
 * nothing, the correlator and the host merge from the start (a previous
 * run went over it). */
static void begin_database(struct export_ctx *x)
{
	corr_init(&x->corr, on_submit, on_done, x);
	/* a windowed or rate-limited capture: the log's tasks it kept are
	 * those with a submit */
	x->corr.submitted_only = x->s->window_period_ms || x->s->rate_limit;
	u64map_free(&x->str.sid); /* ids of a previous writer mean nothing here */
	free(x->str.opids);
	x->str.opids = NULL;
	x->str.nopids = 0;
	u64map_free(&x->mstx.dev);
	u64map_free(&x->mstx.open);
	x->mstx.npend = 0;
	x->tasks.next_gtid = 0;
	x->win.n = x->win.head = 0;
	x->tasks.host_gtid = 0;
	check(x, hostdata_rewind(x->hd, enabled(x, ACL_PROF_ACL_API) ? on_api : NULL,
				 x->kern.host_only && enabled(x, ACL_PROF_TASK_TIME |
									 ACL_PROF_TASK_TIME_L0) ?
					 on_host_task :
					 NULL,
				 x));
	for (size_t i = 0; i < x->hd->nhop; i++)
		x->hd->hop[i].dev_start = x->hd->hop[i].dev_end = -1;
}

/* Pass 1 (unless it ran beside the host index) and pass 2 over the kernel
 * stream, fed through the reorder window into the correlator, which writes
 * the tasks; the host merge follows it. */
static void correlate_kernel(struct export_ctx *x, const char *kpath)
{
	long n;

	if (x->kern.prescanned) {
		n = x->kern.prescan_n; /* done while the host side was indexed */
		x->kern.prescanned = 0;
	} else {
		n = x->kern.host_only ? 0 : scan_kernel(x, kpath);
	}
	for (int d = 0; d < CORR_MAX_DEV; d++)
		corr_clock_fit(&x->corr.clock[d]);
	x->res->kernel_records = x->prog.total;
	stars_begin(x);

	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	x->prog.fed = 0;
	x->prog.last_pct = -1;
	double cpu0 = thread_cpu(), read = x->hd->read_ns / -1e9;
	if (n > 0) {
		struct npuprof_rawk_info info;

		/* pass 2; its damage was reported by pass 1 */
		npuprof_rawk_read(kpath, on_kernel_record, x, &info, NULL, 0);
		x->res->read_seconds += info.read_ns / 1e9;
		read += info.read_ns / 1e9;
		while (x->win.n && !x->err)
			feed(x, window_pop(x));
	}
	stars_end(x);
	if (!x->err)
		check(x, corr_drain(&x->corr));
	progress(x);
	corr_finish(&x->corr);
	read += x->hd->read_ns / 1e9; /* the host merge's, during this pass */
	x->res->correlate_cpu_seconds += cpu_less_reads(cpu0, read);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	x->res->correlate_seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
}

/* The rows after the tasks: the host records the kernel stream did not
 * take the merge past, markers, steps, communication ops, the session's
 * rows, and the PyTorch database's framework tables. */
static void write_host_rows(struct export_ctx *x, const struct npuprof_db_options *dbo)
{
	/* the rest of the API calls, and a host-only session's tasks */
	check(x, hostdata_drain(x->hd));
	if (x->hd->damaged_files)
		x->res->damaged = 1; /* also a stream that changed since it was indexed */
	if (enabled(x, ACL_PROF_MSPROFTX))
		write_mstx(x);
	else
		flush_open_markers(x); /* the range markers' TASK rows all the same */
	/* STEP_TIME from the framework's ProfilerStep ops if there are any,
	 * else from aclprofGetStepTimestamp */
	if (dbo->variant == NPUPROF_DB_PYTORCH && !fwk_has_steps(x->s, x->hd))
		write_steps(x);
	write_comm_ops(x);
	write_session_rows(x);
	if (dbo->variant == NPUPROF_DB_PYTORCH && !x->err) {
		memset(&x->pt.fwk, 0, sizeof(x->pt.fwk));
		check(x, fwk_write(x->w, x->s, x->hd, x->s->dir, x->warn, &x->pt.fwk));
		if (x->pt.metadata_path && !x->err)
			check(x,
			      fwk_write_metadata(x->w, x->pt.metadata_path, x->warn, &x->pt.fwk));
		meta(x, "npuprof.framework_records_skipped", "%llu",
		     (unsigned long long)x->pt.fwk.bad);
		if (x->pt.fwk.bad || x->pt.fwk.metadata_bad)
			x->res->damaged = 1;
	}
}

/* The database kept (renamed into place) unless the export failed or an
 * earlier, more complete one is there; its path into path_out. */
static int finish_database(struct export_ctx *x, const char *outdir,
			   const struct npuprof_db_options *dbo, char *path_out, size_t path_len,
			   char *err, size_t errlen)
{
	int r;

	if (x->err) {
		if (x->err == -EINTR)
			npuprof_seterr(err, errlen, "interrupted: nothing written, %s unchanged",
				       outdir);
		else
			npuprof_seterr(
				err, errlen,
				"writing %s failed (%s): %s; the previous database, if any, is kept",
				npuprof_db_path(x->w), strerror(-x->err), npuprof_db_errmsg(x->w));
		npuprof_db_close(x->w);
		x->w = NULL;
		return x->err;
	}
	r = keep_more_complete(x, outdir, dbo, err, errlen);
	if (r == 0) {
		double sql, sync;

		r = npuprof_db_finish(x->w);
		npuprof_db_timings(x->w, &sql, &sync);
		x->res->sqlite_seconds += sql;
		x->res->fsync_seconds += sync;
		if (r < 0)
			npuprof_seterr(
				err, errlen,
				"writing %s failed (%s): %s; the previous database, if any, is kept",
				npuprof_db_path(x->w), strerror(-r), npuprof_db_errmsg(x->w));
		else
			snprintf(path_out, path_len, "%s", npuprof_db_path(x->w));
	}
	npuprof_db_close(x->w);
	x->w = NULL;
	return r;
}

static int export_one(struct export_ctx *x, const char *kpath, const char *outdir,
		      const struct npuprof_db_options *dbo, char *path_out, size_t path_len,
		      char *err, size_t errlen)
{
	struct timespec t0;
	int r;

	r = npuprof_db_open(&x->w, outdir, dbo, err, errlen);
	if (r < 0)
		return r;
	begin_database(x);
	correlate_kernel(x, kpath);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	write_host_rows(x, dbo);
	x->res->write_seconds = secs_since(&t0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = finish_database(x, outdir, dbo, path_out, path_len, err, errlen);
	x->res->finish_seconds = secs_since(&t0);
	return r;
}

/* hostdata_open on its own thread (open_host_beside_scan) */
struct host_open {
	struct hostdata *hd;
	const char *dir;
	unsigned flags;
	FILE *warn;
	char *err;
	size_t errlen;
	int r;
	double seconds, cpu;
};

static void *host_open_main(void *arg)
{
	struct host_open *h = arg;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	h->cpu = thread_cpu();
	h->r = hostdata_open(h->hd, h->dir, h->flags, h->warn, h->err, h->errlen);
	h->cpu = thread_cpu() - h->cpu;
	h->seconds = secs_since(&t0);
	return NULL;
}

/* The host side's index (hostdata_open) and the kernel stream's first pass
 * (scan_kernel) at once: the second is remembered for export_one. Without
 * a thread (none could be made) one after the other. */
static int open_host_beside_scan(struct export_ctx *x, struct hostdata *hd, const char *dir,
				 unsigned flags, const char *kpath, char *err, size_t errlen)
{
	struct host_open h = { hd, dir, flags, x->warn, err, errlen, 0, 0, 0 };
	pthread_t t;

	if (x->kern.host_only || pthread_create(&t, NULL, host_open_main, &h) != 0) {
		host_open_main(&h);
		x->res->load_seconds = h.seconds;
		x->res->decode_seconds += h.cpu;
		return h.r;
	}
	x->kern.prescan_n = scan_kernel(x, kpath);
	x->kern.prescanned = 1;
	pthread_join(t, NULL);
	x->res->load_seconds = h.seconds;
	x->res->decode_seconds += h.cpu;
	if (h.r < 0)
		x->kern.prescanned = 0;
	return h.r;
}

/* Is dir's parent a torch_npu <worker>_ascend_pt directory? Its path to
 * parent then. */
static int ascend_pt_parent(const char *dir, char *parent, size_t len)
{
	static const char sfx[] = "_ascend_pt";
	char *real = realpath(dir, NULL), *slash;
	size_t n;
	int yes = 0;

	if (!real)
		return 0;
	slash = strrchr(real, '/');
	if (slash && slash != real) {
		*slash = '\0';
		n = strlen(real);
		yes = n >= sizeof(sfx) - 1 && !strcmp(real + n - (sizeof(sfx) - 1), sfx) && n < len;
		if (yes)
			snprintf(parent, len, "%s", real);
	}
	free(real);
	return yes;
}

/* DIR/npuprof_trace.json from the database just written (trace_json.c). */
static int write_trace(const struct npuprof_session *s, const char *db, const char *dir,
		       struct npuprof_export_result *res, const volatile sig_atomic_t *cancel,
		       char *err, size_t errlen)
{
	struct npuprof_trace_opts to = { .pid = s->pid, .cancel = cancel };
	char name[256];
	size_t n = strcspn(s->cmd, " \t");
	const char *slash;

	snprintf(name, sizeof(name), "%.*s", (int)n, s->cmd);
	slash = strrchr(name, '/');
	to.process_name = name[0] ? (slash ? slash + 1 : name) : NULL;
	snprintf(res->json_path, sizeof(res->json_path), "%s/npuprof_trace.json", dir);
	return npuprof_trace_json(db, res->json_path, &to, NULL, err, errlen);
}

/* Sets s->dev[i].rank from the streams' rank records (the device's HCCL
 * rank, else the process's environment rank, else -1) and s->rank (the
 * environment rank, else the rank of the session's only device, else -1);
 * if any changed, rewrites the info.json files and npuprof.session
 * (npuprof/rank.h). Returns 0 or -errno with a message in err. */
static int resolve_ranks(struct npuprof_session *s, const struct hostdata *hd, char *err,
			 size_t errlen)
{
	struct npuprof_rank_info *v = NULL;
	int32_t env = NPUPROF_RANK_NONE;
	int changed = 0;

	if (hd->nrank) {
		v = malloc(hd->nrank * sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < hd->nrank; i++)
			v[i] = hd->rank[i].r;
		env = npuprof_rank_resolve(v, hd->nrank, NPUPROF_RANK_ANY_DEVICE);
	}
	for (int i = 0; i < s->ndev; i++) {
		int32_t r = npuprof_rank_resolve(v, hd->nrank, s->dev[i].id);

		changed |= r != s->dev[i].rank;
		s->dev[i].rank = r;
	}
	free(v);
	if (env == NPUPROF_RANK_NONE && s->ndev == 1)
		env = s->dev[0].rank;
	changed |= env != s->rank;
	s->rank = env;
	return changed ? npuprof_session_write_info(s, err, errlen) : 0;
}

/* The session's npuprof.session; with --force a damaged one is exported
 * with what could be read (res->damaged). */
static int load_session(struct npuprof_session *s, const char *dir,
			const struct npuprof_export_opts *o, struct npuprof_export_result *res,
			char *err, size_t errlen)
{
	int r;

	r = npuprof_session_load(s, dir, err, errlen);
	if (r == -EBADMSG && o->force && s->start_realtime_ns) {
		/* what could be read, said; an end before the start is none */
		fprintf(o->warn ? o->warn : stderr,
			"npuprof export: warning: %s; exported anyway (--force) with what could be read\n",
			err);
		if ((s->end_realtime_ns && s->end_realtime_ns < s->start_realtime_ns) ||
		    (s->end_monotonic_ns && s->end_monotonic_ns < s->start_monotonic_ns))
			s->end_realtime_ns = s->end_monotonic_ns = 0;
		res->damaged = 1;
	} else if (r < 0) {
		size_t l = err ? strnlen(err, errlen) : 0;

		if (r == -EBADMSG && l < errlen)
			snprintf(
				err + l, errlen - l,
				"; nothing exported, %s unchanged (--force exports what can be read)",
				dir);
		return r;
	}
	return 0;
}

/* --pytorch: the PyTorch database, from the same session (torch_npu's
 * layout when the session is the PROF_* directory of a <worker>_ascend_pt
 * directory); its framework tables' counts into res. */
static int export_pytorch(struct export_ctx *x, const char *dir, const char *kpath,
			  struct npuprof_db_options *dbo, struct npuprof_export_result *res,
			  char *err, size_t errlen)
{
	struct npuprof_export_result pres;
	uint64_t keep_tasks = res->tasks;
	char tmpdir[4352], parent[4096], name[64];
	int r;

	/* torch_npu's layout (docs/ascend-reference.md §2.2) */
	if (ascend_pt_parent(dir, parent, sizeof(parent))) {
		snprintf(tmpdir, sizeof(tmpdir), "%s/ASCEND_PROFILER_OUTPUT", parent);
		if (x->s->rank >= 0)
			snprintf(name, sizeof(name), "ascend_pytorch_profiler_%d.db",
				 (int)x->s->rank);
		else
			snprintf(name, sizeof(name), "ascend_pytorch_profiler.db");
		snprintf(x->pt.metadata_buf, sizeof(x->pt.metadata_buf),
			 "%s/profiler_metadata.json", parent);
		x->pt.metadata_path = x->pt.metadata_buf;
	} else {
		snprintf(tmpdir, sizeof(tmpdir), "%s/ASCEND_PROFILER_OUTPUT", dir);
		snprintf(name, sizeof(name), "ascend_pytorch_profiler.db");
	}
	if (mkdir(tmpdir, 0755) < 0 && errno != EEXIST) {
		r = -errno;
		npuprof_seterr(err, errlen, "%s: cannot create: %s", tmpdir, strerror(errno));
		return r;
	}
	dbo->variant = NPUPROF_DB_PYTORCH;
	dbo->file_name = name;
	dbo->flags = NPUPROF_DB_REPLACE | (dbo->flags & NPUPROF_DB_THREADED);
	memset(&pres, 0, sizeof(pres));
	pres.damaged = res->damaged;
	x->res = &pres;
	r = export_one(x, kpath, tmpdir, dbo, res->pytorch_path, sizeof(res->pytorch_path), err,
		       errlen);
	x->res = res;
	res->tasks = keep_tasks;
	res->damaged |= pres.damaged;
	res->fwk_ops = x->pt.fwk.ops;
	res->fwk_skipped = x->pt.fwk.bad;
	if (r >= 0) {
		/* torch_npu's analysis.db beside it (analysis.c) */
		struct analysis_result ares;

		r = analysis_write(res->pytorch_path, tmpdir, &ares, x->warn, err, errlen);
		if (r > 0)
			snprintf(res->analysis_path, sizeof(res->analysis_path), "%s", ares.path);
		r = r < 0 ? r : 0;
	}
	return r;
}

int npuprof_export(const char *dir, const struct npuprof_export_opts *o,
		   struct npuprof_export_result *res, char *err, size_t errlen)
{
	struct npuprof_export_opts defo;
	struct npuprof_session s;
	struct hostdata hd;
	struct export_ctx x;
	struct npuprof_db_options dbo;
	char kpath[4352];
	int r;

	if (!o) {
		memset(&defo, 0, sizeof(defo));
		o = &defo;
	}
	memset(res, 0, sizeof(*res));
	r = load_session(&s, dir, o, res, err, errlen);
	if (r < 0)
		return r;
	memset(&x, 0, sizeof(x));
	x.kern.session_damaged = res->damaged;
	x.s = &s;
	x.hd = &hd;
	x.res = res;
	x.prog.on = o->progress;
	x.warn = o->warn ? o->warn : stderr;
	x.cancel = o->cancel;
	x.force = o->force;
	x.kern.host_only = !strcmp(s.engine, NPUPROF_ENGINE_HOST);
	if (!x.kern.host_only)
		stars_find(&x);
	snprintf(kpath, sizeof(kpath), "%s/%s", dir, NPUPROF_KERNEL_RAW);
	/* the host side streams (--pytorch's framework links need every API);
	 * its index is built on a second thread while this one does the
	 * kernel stream's first pass: neither needs the other */
	r = open_host_beside_scan(&x, &hd, dir, o->pytorch ? HOSTDATA_KEEP_API : 0, kpath, err,
				  errlen);
	if (r >= 0)
		r = resolve_ranks(&s, &hd, err, errlen);
	if (r < 0) {
		hostdata_free(&hd);
		return r;
	}
	/* or'ed and added: the kernel stream's first pass has said its part */
	res->damaged |= hd.damaged_files > 0;
	res->unreadable += hd.unreadable_files;
	x.win.heap = malloc(REORDER_WINDOW * sizeof(*x.win.heap));
	if (!x.win.heap) {
		hostdata_free(&hd);
		npuprof_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memset(&dbo, 0, sizeof(dbo));
	dbo.schema = o->schema;
	dbo.variant = NPUPROF_DB_MSPROF;
	dbo.flags = NPUPROF_DB_REPLACE; /* our own earlier export of this session */
	/* SQLite's work on a second thread, overlapping decoding and
	 * correlating; NPUPROF_EXPORT_SYNC=1 writes on this thread (the same
	 * database: tests compare the two) */
	if (!getenv("NPUPROF_EXPORT_SYNC") || strcmp(getenv("NPUPROF_EXPORT_SYNC"), "1"))
		dbo.flags |= NPUPROF_DB_THREADED;
	r = export_one(&x, kpath, dir, &dbo, res->db_path, sizeof(res->db_path), err, errlen);
	if (r < 0)
		goto out;
	for_each_msprof_db(dir, res->db_path, unlink_one, NULL);
	res->in_flight = x.corr.stats.in_flight;
	res->orphan_completions = x.corr.stats.orphans;
	res->derived = x.corr.stats.derived;
	res->drops = s.dropped > x.corr.stats.drops_lost ? s.dropped : x.corr.stats.drops_lost;
	res->late = x.corr.stats.late;
	res->host_lost = hd.lost;
	res->read_seconds += hd.read_ns / 1e9;
	if (o->json) {
		r = write_trace(&s, res->db_path, dir, res, x.cancel, err, errlen);
		if (r < 0)
			goto out;
	}

	if (o->pytorch) {
		r = export_pytorch(&x, dir, kpath, &dbo, res, err, errlen);
		if (r < 0)
			goto out;
	}
out:
	free(x.win.heap);
	u64map_free(&x.str.sid);
	free(x.str.opids);
	u64map_free(&x.mstx.dev);
	u64map_free(&x.mstx.open);
	u64map_free(&x.soc.kstreams);
	free(x.mstx.pend);
	hostdata_free(&hd);
	return r;
}
