/*
 * export.c — a session directory to the msprof database (export.h).
 *
 * Pass 1 reads the kernel raw stream for the clock-sync samples (one
 * least-squares fit per device) and to learn which devices report device
 * task times. Pass 2 feeds the records, through a bounded reorder heap that
 * absorbs the small cross-CPU disorder of a capture, to the correlator
 * (correlate.c), which hands back finished tasks; each becomes a TASK row
 * plus, from the host task track matched at submit time, its connectionId,
 * runtime task type and detail rows (COMPUTE_TASK_INFO, MEMCPY_INFO,
 * COMMUNICATION_TASK_INFO). Host-only rows (CANN_API, MSTX_EVENTS,
 * COMMUNICATION_OP) come from the host streams (hostdata.c).
 */
#include "errmsg.h"
#include "npuprof/export.h"
#include "npuprof/rawkern.h"
#include "npuprof/session.h"
#include "correlate.h"
#include "hostdata.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define REORDER_WINDOW 65536 /* records held back to restore time order */
#define U32_NONE 4294967295LL

struct export_ctx {
	const struct npuprof_session *s;
	struct hostdata *hd;
	struct npuprof_db *w;
	FILE *json;
	int json_first;
	struct correlator corr;
	struct npuprof_export_result *res;
	int err;
	/* reorder window (circular, sorted) */
	struct npuprof_record *heap;
	size_t nheap, whead;
	/* progress */
	uint64_t fed, total;
	int progress, last_pct;
	int64_t first_task_ns, last_task_ns;
	FILE *warn;
	struct u64map sid; /* host string id -> STRING_IDS id */
};

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

	if (id == NPUPROF_HREC_NO_STRING)
		return NPUPROF_DB_STR_NA;
	if (u64map_get(&x->sid, id, &v))
		return (npuprof_db_str)v;
	s = hostdata_str(x->hd, id);
	r = intern(x, s && *s ? s : "N/A");
	if (u64map_put(&x->sid, id, (uint64_t)r) < 0 && !x->err)
		x->err = -ENOMEM;
	return r;
}

static void check(struct export_ctx *x, int r)
{
	if (r < 0 && !x->err)
		x->err = r;
}

/* STARS SQE type names (msprof STARS_SQE_TYPE_TABLE), for tasks whose
 * runtime type is unknown (no host task track). */
static const char *sqe_type_name(uint32_t t)
{
	static const char *const names[] = {
		"AI_CORE", "AI_CPU", "AIV_SQE", "PLACE_HOLDER_SQE",
		"EVENT_RECORD_SQE", "EVENT_WAIT_SQE", "NOTIFY_RECORD_SQE",
		"NOTIFY_WAIT_SQE", "WRITE_VALUE_SQE", "VQ6_SQE", "TOF_SQE",
		"SDMA_SQE", "VPC_SQE", "JPEGE_SQE", "JPEGD_SQE", "DSA_SQE",
		"ROCCE_SQE", "PCIE_DMA_SQE", "HOST_CPU_SQE", "CDQM_SQE",
		"C_CORE_SQE",
	};
	return t < sizeof(names) / sizeof(names[0]) ? names[t] : "Other";
}

/* ---- JSON trace (Chrome trace-event format) ------------------------------ */

static void json_event(struct export_ctx *x, const char *name, const char *cat,
		       int64_t pid, int64_t tid, int64_t start, int64_t end,
		       const char *args)
{
	if (!x->json)
		return;
	fputs(x->json_first ? "\n" : ",\n", x->json);
	x->json_first = 0;
	fputs("{\"name\":\"", x->json);
	for (const char *p = name; *p; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', x->json);
		if ((unsigned char)*p >= 0x20)
			fputc(*p, x->json);
	}
	fprintf(x->json,
		"\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%" PRId64 ",\"tid\":%" PRId64
		",\"ts\":%.3f,\"dur\":%.3f%s%s}",
		cat, pid, tid, start / 1000.0, (end - start) / 1000.0,
		args ? ",\"args\":" : "", args ? args : "");
}

/* ---- tasks ------------------------------------------------------------------ */

static void on_submit(void *vctx, struct corr_task *t)
{
	struct export_ctx *x = vctx;

	t->user = hostdata_match_track(x->hd, t->pid, t->dev, t->stream,
				       t->task, t->submit_ns);
}

static int on_done(void *vctx, const struct corr_task *t)
{
	struct export_ctx *x = vctx;
	const struct hd_track *tr = t->user;
	struct npuprof_db_task row;
	const char *type = NULL;
	int64_t conn = -1;

	memset(&row, 0, sizeof(row));
	row.startNs = unix_ns(x, t->start_ns);
	row.endNs = unix_ns(x, t->end_ns);
	row.deviceId = t->dev;
	row.globalTaskId = (int64_t)t->gtid;
	row.globalPid = t->pid;
	row.contextId = U32_NONE;
	row.streamId = t->stream;
	row.taskId = t->task;
	row.modelId = U32_NONE;
	if (tr) {
		type = hostdata_str(x->hd, tr->r.task_type_id);
		if (tr->r.connection_id != NPUPROF_NO_CONNECTION)
			conn = (int64_t)tr->r.connection_id;
		if (tr->r.model_id != NPUPROF_NO_ID32)
			row.modelId = tr->r.model_id;
		if (type && !strcmp(type, "PROFILER_TRACE_EX") &&
		    (tr->r.trace_tag == 11 || tr->r.trace_tag == 12))
			type = "MsTx"; /* the MarkEx / mstx device marker */
	} else if (t->pid) {
		/* an uninstrumented launch: the API open on its thread */
		const struct hd_api *a = hostdata_enclosing_api(
			x->hd, t->pid, t->tid, t->submit_ns);

		if (a)
			conn = (int64_t)a->r.connection_id;
	}
	row.connectionId = conn;
	row.taskType = intern(x, type && *type ? type : sqe_type_name(t->sqe_type));
	check(x, npuprof_db_add_task(x->w, &row));
	x->res->tasks++;
	if (!x->first_task_ns || row.startNs < x->first_task_ns)
		x->first_task_ns = row.startNs;
	if (row.endNs > x->last_task_ns)
		x->last_task_ns = row.endNs;

	if (x->json) {
		char args[128];

		snprintf(args, sizeof(args),
			 "{\"taskId\":%u,\"globalTaskId\":%" PRIu64 ",\"connectionId\":%" PRId64 "}",
			 t->task, t->gtid, conn);
		json_event(x, type && *type ? type : sqe_type_name(t->sqe_type),
			   "task", 1000000 + t->dev, t->stream, row.startNs,
			   row.endNs, args);
	}
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
	const struct hd_compute *c = hostdata_compute(
		x->hd, t->pid, t->dev, t->stream, t->task, tr->r.batch_id);
	if (c) {
		struct npuprof_db_compute_task_info ci;

		memset(&ci, 0, sizeof(ci));
		ci.name = hstr(x, c->r.name_id);
		ci.globalTaskId = row.globalTaskId;
		ci.blockDim = c->r.block_dim;
		ci.mixBlockDim = c->r.mix_block_dim;
		ci.taskType = hstr(x, c->r.task_type_id);
		ci.opType = hstr(x, c->r.op_type_id);
		ci.inputFormats = hstr(x, c->r.input_formats_id);
		ci.inputDataTypes = hstr(x, c->r.input_dtypes_id);
		ci.inputShapes = hstr(x, c->r.input_shapes_id);
		ci.outputFormats = hstr(x, c->r.output_formats_id);
		ci.outputDataTypes = hstr(x, c->r.output_dtypes_id);
		ci.outputShapes = hstr(x, c->r.output_shapes_id);
		ci.attrInfo = hstr(x, c->r.attr_id);
		ci.opState = hstr(x, c->r.op_state_id);
		ci.hf32Eligible = hstr(x, c->r.hf32_id);
		ci.gridDim = NPUPROF_DB_STR_NA;
		ci.blockDimStr = NPUPROF_DB_STR_NA;
		check(x, npuprof_db_add_compute_task_info(x->w, &ci));
		x->res->compute++;
	}
	const struct hd_hccl_task *h = hostdata_hccl_task(
		x->hd, t->pid, t->dev, t->stream, t->task, tr->r.batch_id);
	if (h) {
		struct hd_hccl_op *op = hostdata_hccl_op(x->hd, t->pid, h->r.op_seq);
		struct npuprof_db_communication_task_info ct;

		memset(&ct, 0, sizeof(ct));
		ct.name = hstr(x, h->r.op_name_id);
		ct.globalTaskId = row.globalTaskId;
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
			if (op->dev_start < 0 || row.startNs < op->dev_start)
				op->dev_start = row.startNs;
			if (row.endNs > op->dev_end)
				op->dev_end = row.endNs;
		}
	}
	return x->err;
}

/* ---- the reorder window -------------------------------------------------
 * A circular buffer kept sorted by time: a capture is nearly in order, so
 * an insertion moves back past at most a few records, and the oldest record
 * leaves when the window is full. */

static void window_push(struct export_ctx *x, const struct npuprof_record *r)
{
	size_t i = (x->whead + x->nheap) % REORDER_WINDOW;

	x->nheap++;
	while (i != x->whead) {
		size_t p = (i + REORDER_WINDOW - 1) % REORDER_WINDOW;

		if (x->heap[p].hdr.ts <= r->hdr.ts)
			break;
		x->heap[i] = x->heap[p];
		i = p;
	}
	x->heap[i] = *r;
}

static const struct npuprof_record *window_pop(struct export_ctx *x)
{
	const struct npuprof_record *r = &x->heap[x->whead];

	x->whead = (x->whead + 1) % REORDER_WINDOW;
	x->nheap--;
	return r;
}

static void progress(struct export_ctx *x)
{
	int pct;

	if (!x->progress || !x->total)
		return;
	pct = (int)(x->fed * 100 / x->total);
	if (pct == x->last_pct)
		return;
	x->last_pct = pct;
	fprintf(stderr, "\rnpuprof export: [%-50.*s] %3d%%", pct / 2,
		"##################################################", pct);
	if (pct == 100)
		fputc('\n', stderr);
}

static int feed(struct export_ctx *x, const struct npuprof_record *r)
{
	int ret = corr_feed(&x->corr, r);

	x->fed++;
	if ((x->fed & 0xffff) == 0)
		progress(x);
	if (ret < 0 && !x->err)
		x->err = ret;
	return x->err;
}

static int on_kernel_record(void *vctx, const struct npuprof_record *r)
{
	struct export_ctx *x = vctx;

	if (x->nheap == REORDER_WINDOW && feed(x, window_pop(x)))
		return 1;
	window_push(x, r);
	return 0;
}

/* Pass 1: clock-sync samples and which devices have task times. */
static int on_scan_record(void *vctx, const struct npuprof_record *r)
{
	struct export_ctx *x = vctx;

	x->total++;
	if (r->hdr.type == NPUPROF_REC_CLOCK_SYNC && r->clock.devid < CORR_MAX_DEV)
		corr_clock_add(&x->corr.clock[r->clock.devid], r->clock.host_ns,
			       r->clock.dev_cnt, r->clock.counter_hz);
	else if (r->hdr.type == NPUPROF_REC_TASK_TIME &&
		 r->task_time.devid < CORR_MAX_DEV)
		x->corr.task_time[r->task_time.devid] = 1;
	return 0;
}

/* ---- host-only rows -------------------------------------------------------- */

static void write_api(struct export_ctx *x)
{
	for (size_t i = 0; i < x->hd->napi && !x->err; i++) {
		const struct hd_api *a = &x->hd->api[i];
		struct npuprof_db_cann_api row = {
			.startNs = unix_ns(x, a->r.start_ns),
			.endNs = unix_ns(x, a->r.end_ns),
			.type = a->r.level,
			.globalTid = ((int64_t)a->pid << 32) | a->r.tid,
			.connectionId = (int64_t)a->r.connection_id,
			.name = hstr(x, a->r.name_id),
		};

		check(x, npuprof_db_add_cann_api(x->w, &row));
		x->res->api++;
		if (x->json)
			json_event(x, hostdata_str(x->hd, a->r.name_id) ?
					      hostdata_str(x->hd, a->r.name_id) : "api",
				   "api", a->pid, a->r.tid, row.startNs, row.endNs,
				   NULL);
	}
}

static void write_mstx(struct export_ctx *x)
{
	int64_t begin = (int64_t)x->s->start_realtime_ns;

	for (size_t i = 0; i < x->hd->ntx && !x->err; i++) {
		const struct hd_tx *t = &x->hd->tx[i];
		int ex = t->r.info_type == 1;
		struct npuprof_db_mstx_events row;
		const char *domain = "";

		if (ex && t->r.domain && t->r.domain != NPUPROF_HREC_NO_STRING) {
			domain = hostdata_str(x->hd, t->r.domain);
			if (!domain)
				domain = "invalid";
		}
		memset(&row, 0, sizeof(row));
		row.startNs = unix_ns(x, t->r.start_ns);
		row.endNs = unix_ns(x, t->r.end_ns);
		if (row.startNs < begin)
			continue; /* before the collection, as msprof drops them */
		row.eventType = t->r.event_type;
		row.rangeId = U32_NONE;
		row.category = ex ? U32_NONE : t->r.category;
		row.message = intern(x, t->message);
		row.globalTid = ((int64_t)t->pid << 32) | t->r.tid;
		row.endGlobalTid = row.globalTid;
		row.domainId = intern(x, domain);
		row.connectionId = ex ? (int64_t)(NPUPROF_MSTX_CONNECTION_BASE +
						  t->r.mark_id) :
					(int64_t)NPUPROF_MSTX_HOST_CONNECTION;
		check(x, npuprof_db_add_mstx_events(x->w, &row));
		x->res->mstx++;
		if (x->json)
			json_event(x, t->message, "mstx", t->pid, t->r.tid,
				   row.startNs, row.endNs, NULL);
	}
}

static void write_comm_ops(struct export_ctx *x)
{
	for (size_t i = 0; i < x->hd->nhop && !x->err; i++) {
		const struct hd_hccl_op *o = &x->hd->hop[i];
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

static void write_session_rows(struct export_ctx *x)
{
	const struct npuprof_session *s = x->s;
	struct npuprof_db_session_time_info st = {
		.startTimeNs = (int64_t)s->start_realtime_ns,
		.endTimeNs = s->end_realtime_ns ? (int64_t)s->end_realtime_ns :
						  x->last_task_ns,
	};
	struct npuprof_db_host_info hi = { .hostUid = s->host_uid,
					   .hostName = s->hostname };
	struct corr_stats *cs = &x->corr.stats;
	double resid = 0;

	check(x, npuprof_db_add_session_time_info(x->w, &st));
	check(x, npuprof_db_add_host_info(x->w, &hi));
	if (!s->ndev) {
		struct npuprof_db_npu_info ni = { .id = -1, .name = "UNKNOWN" };

		check(x, npuprof_db_add_npu_info(x->w, &ni));
	}
	for (int i = 0; i < s->ndev; i++) {
		struct npuprof_db_npu_info ni = { .id = s->dev[i].id,
						  .name = s->dev[i].chip };

		check(x, npuprof_db_add_npu_info(x->w, &ni));
	}
	for (int d = 0; d < CORR_MAX_DEV; d++)
		if (x->corr.clock[d].valid && x->corr.clock[d].residual > resid)
			resid = x->corr.clock[d].residual;
	x->res->clock_residual_ns = resid;
	meta(x, "npuprof.engine", "%s", s->engine);
	meta(x, "npuprof.sample_n", "%u", s->sample_n > 1 ? s->sample_n : 1);
	meta(x, "npuprof.drops", "%llu",
	     (unsigned long long)(s->dropped > cs->drops_lost ? s->dropped :
								 cs->drops_lost));
	meta(x, "npuprof.tasks_in_flight_at_stop", "%llu",
	     (unsigned long long)cs->in_flight);
	meta(x, "npuprof.completions_without_submit", "%llu",
	     (unsigned long long)cs->orphans);
	meta(x, "npuprof.task_time_source", "%s",
	     cs->tasks && cs->derived == cs->tasks ? "derived" :
	     cs->derived ? "device+derived" : "device");
	meta(x, "npuprof.derived_tasks", "%llu", (unsigned long long)cs->derived);
	meta(x, "npuprof.clock_fit_residual_ns", "%.1f", resid);
	meta(x, "npuprof.host_records_lost", "%llu",
	     (unsigned long long)x->hd->lost);
	meta(x, "npuprof.damaged_inputs", "%llu",
	     (unsigned long long)(x->hd->damaged_files + (x->res->damaged ? 1 : 0)));
	meta(x, "npuprof.late_records", "%llu", (unsigned long long)cs->late);
	meta(x, "npuprof.command", "%s", s->cmd);
	if (s->window_period_ms) {
		meta(x, "npuprof.window", "%u/%u", s->window_on_ms,
		     s->window_period_ms);
		meta(x, "npuprof.window_skipped", "%llu",
		     (unsigned long long)s->window_skipped);
	}
	if (s->rate_limit) {
		meta(x, "npuprof.rate_limit", "%u", s->rate_limit);
		meta(x, "npuprof.rate_skipped", "%llu",
		     (unsigned long long)s->rate_skipped);
	}
	meta(x, "npuprof.sampled_out", "%llu",
	     (unsigned long long)s->sampled_out);
}

/* Remove older msprof_<14 digits>.db files of dir, keeping `keep`. */
static void remove_old_dbs(const char *dir, const char *keep)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	regex_t re;

	if (!d)
		return;
	regcomp(&re, "^msprof_[0-9]{14}\\.db$", REG_EXTENDED | REG_NOSUB);
	while ((e = readdir(d))) {
		char path[4352];

		if (regexec(&re, e->d_name, 0, NULL, 0) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (strcmp(path, keep) != 0)
			unlink(path);
	}
	regfree(&re);
	closedir(d);
}

static int export_one(struct export_ctx *x, const char *kpath,
		      const char *outdir, const struct npuprof_db_options *dbo,
		      char *path_out, size_t path_len, char *err, size_t errlen)
{
	char kerr[512];
	long n;
	int r;

	r = npuprof_db_open(&x->w, outdir, dbo, err, errlen);
	if (r < 0)
		return r;
	corr_init(&x->corr, on_submit, on_done, x);
	u64map_free(&x->sid); /* ids of a previous writer mean nothing here */
	x->nheap = x->whead = 0;
	/* reset the cursors of a previous run over the same host data */
	for (size_t i = 0; i < x->hd->ntrack; i++)
		x->hd->track_cursor[i] = (uint32_t)i;
	for (size_t i = 0; i < x->hd->nhop; i++)
		x->hd->hop[i].dev_start = x->hd->hop[i].dev_end = -1;

	x->total = 0;
	n = npuprof_rawk_read(kpath, on_scan_record, x, NULL, kerr, sizeof(kerr));
	for (int d = 0; d < CORR_MAX_DEV; d++)
		corr_clock_fit(&x->corr.clock[d]);
	x->res->kernel_records = x->total;

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	x->fed = 0;
	x->last_pct = -1;
	if (n >= 0 || n == -EBADMSG) {
		n = npuprof_rawk_read(kpath, on_kernel_record, x, NULL, kerr,
				      sizeof(kerr));
		if (kerr[0]) {
			fprintf(x->warn, "npuprof export: warning: %s%s\n", kerr,
				n >= 0 ? "" : " (the records before it are exported)");
			x->res->damaged = 1;
		}
		while (x->nheap && !x->err)
			feed(x, window_pop(x));
	} else if (n != -ENOENT) {
		fprintf(x->warn, "npuprof export: warning: %s\n", kerr);
		x->res->damaged = 1;
	}
	progress(x);
	corr_finish(&x->corr);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	x->res->correlate_seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;

	write_api(x);
	write_mstx(x);
	write_comm_ops(x);
	write_session_rows(x);
	if (x->err) {
		npuprof_seterr(err, errlen, "%s", npuprof_db_errmsg(x->w));
		npuprof_db_close(x->w);
		x->w = NULL;
		return x->err;
	}
	r = npuprof_db_finish(x->w);
	if (r < 0)
		npuprof_seterr(err, errlen, "%s", npuprof_db_errmsg(x->w));
	else
		snprintf(path_out, path_len, "%s", npuprof_db_path(x->w));
	npuprof_db_close(x->w);
	x->w = NULL;
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
	char kpath[4352], tmpdir[4352];
	int r;

	if (!o) {
		memset(&defo, 0, sizeof(defo));
		o = &defo;
	}
	memset(res, 0, sizeof(*res));
	r = npuprof_session_load(&s, dir, err, errlen);
	if (r < 0)
		return r;
	r = hostdata_load(&hd, dir, o->warn ? o->warn : stderr, err, errlen);
	if (r < 0) {
		hostdata_free(&hd);
		return r;
	}
	memset(&x, 0, sizeof(x));
	x.s = &s;
	x.hd = &hd;
	x.res = res;
	x.progress = o->progress;
	x.warn = o->warn ? o->warn : stderr;
	x.heap = malloc(REORDER_WINDOW * sizeof(*x.heap));
	if (!x.heap) {
		hostdata_free(&hd);
		npuprof_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	snprintf(kpath, sizeof(kpath), "%s/%s", dir, NPUPROF_KERNEL_RAW);
	if (o->json) {
		snprintf(res->json_path, sizeof(res->json_path),
			 "%s/npuprof_trace.json", dir);
		x.json = fopen(res->json_path, "w");
		if (!x.json) {
			r = -errno;
			npuprof_seterr(err, errlen, "%s: %s", res->json_path, strerror(errno));
			goto out;
		}
		fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", x.json);
		x.json_first = 1;
	}

	memset(&dbo, 0, sizeof(dbo));
	dbo.schema = o->schema;
	dbo.variant = NPUPROF_DB_MSPROF;
	dbo.flags = NPUPROF_DB_REPLACE; /* our own earlier export of this session */
	r = export_one(&x, kpath, dir, &dbo, res->db_path, sizeof(res->db_path),
		       err, errlen);
	if (r < 0)
		goto out;
	remove_old_dbs(dir, res->db_path);
	res->in_flight = x.corr.stats.in_flight;
	res->orphan_completions = x.corr.stats.orphans;
	res->derived = x.corr.stats.derived;
	res->drops = s.dropped > x.corr.stats.drops_lost ? s.dropped :
							   x.corr.stats.drops_lost;
	res->late = x.corr.stats.late;
	res->host_lost = hd.lost;
	res->damaged |= hd.damaged_files > 0;

	if (o->pytorch) {
		struct npuprof_export_result pres;
		uint64_t keep_tasks = res->tasks;

		if (x.json) {
			fputs("\n]}\n", x.json);
			fclose(x.json);
			x.json = NULL;
		}
		snprintf(tmpdir, sizeof(tmpdir), "%s/ASCEND_PROFILER_OUTPUT", dir);
		mkdir(tmpdir, 0755);
		dbo.variant = NPUPROF_DB_PYTORCH;
		dbo.file_name = "ascend_pytorch_profiler.db";
		dbo.flags = NPUPROF_DB_REPLACE;
		memset(&pres, 0, sizeof(pres));
		x.res = &pres;
		r = export_one(&x, kpath, tmpdir, &dbo, res->pytorch_path,
			       sizeof(res->pytorch_path), err, errlen);
		x.res = res;
		res->tasks = keep_tasks;
		if (r < 0)
			goto out;
	}
out:
	if (x.json) {
		fputs("\n]}\n", x.json);
		if (fclose(x.json) != 0 && r == 0) {
			r = -EIO;
			npuprof_seterr(err, errlen, "%s: write failed", res->json_path);
		}
	}
	free(x.heap);
	u64map_free(&x.sid);
	hostdata_free(&hd);
	return r;
}
