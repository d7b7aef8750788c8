/*
 * test_export_mstx.c - the export of msproftx / mstx events on a synthetic
 * session (a kernel raw stream of four tasks and a host stream written
 * through the real recorder): an mstx range's two device markers become one
 * MsTx TASK row from the first to the second with dense globalTaskIds; a
 * range's MSTX_EVENTS row carries the connectionId of its TASK row, and
 * every range without one (host only, markers lost, stamp API) carries the
 * host-only 4294967295; ranges never ended are not written. The consumer
 * query of msprof-analyze's msproftx summary is run through the sqlite3
 * shell on the result. aclprofGetStepTimestamp's step records become the
 * PyTorch database's STEP_TIME rows (msprof databases have no such table).
 * The events are written once as TX records and once as the compact records
 * the recorder writes now (hostfmt.h, kinds 17-22): the rows are the same.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "aclprof_internal.h"
#include "hostrec.h"
#include "npuprof/export.h"
#include "npuprof/rawkern.h"
#include "npuprof/session.h"
#include "testutil.h"

#define HZ 50000000ULL
#define T0 1000000000ULL
#define CNT0 777000000ULL
#define BASE 4000000001ULL

static char parent[256];

static uint64_t cnt_at(uint64_t mono)
{
	return CNT0 + (mono - T0) * HZ / 1000000000ULL;
}

static void rec_hdr(struct npuprof_record *r, int type, uint64_t ts)
{
	memset(r, 0, sizeof(*r));
	r->hdr.type = (uint16_t)type;
	r->hdr.size = NPUPROF_RECORD_SIZE;
	r->hdr.ts = ts;
	r->hdr.pid = (uint32_t)getpid();
	r->hdr.tid = (uint32_t)getpid() + 1;
}

/* Task i of stream 5 is submitted at T0 + i*10us and runs 1us from 2us
 * later: 0 range start marker, 1 a kernel, 2 range end marker, 3 a mark. */
static void write_kernel(const struct npuprof_session *s)
{
	struct npuprof_rawk_writer *w;
	struct npuprof_record r;
	char path[4400], err[512];

	snprintf(path, sizeof(path), "%s/%s", s->dir, NPUPROF_KERNEL_RAW);
	ck_assert_int_eq(npuprof_rawk_create(&w, path, "kmod", 0, 0, err, sizeof(err)), 0);
	for (int k = 0; k < 2; k++) {
		uint64_t h = T0 + (uint64_t)k * 1000000000ULL;

		rec_hdr(&r, NPUPROF_REC_CLOCK_SYNC, h);
		r.clock.devid = 0;
		r.clock.host_ns = h;
		r.clock.dev_cnt = cnt_at(h);
		r.clock.counter_hz = HZ;
		npuprof_rawk_append(w, &r);
	}
	for (uint32_t i = 0; i < 4; i++) {
		uint64_t sub = T0 + i * 10000ULL, st = sub + 2000;

		rec_hdr(&r, NPUPROF_REC_SUBMIT, sub);
		r.submit.stream_id = 5;
		r.submit.sq_id = 5;
		r.submit.task_id = i;
		npuprof_rawk_append(w, &r);
		rec_hdr(&r, NPUPROF_REC_TASK_TIME, st + 1500);
		r.task_time.stream_id = 5;
		r.task_time.sq_id = 5;
		r.task_time.task_id = i;
		r.task_time.start_cnt = cnt_at(st);
		r.task_time.end_cnt = cnt_at(st + 1000);
		npuprof_rawk_append(w, &r);
	}
	ck_assert_int_eq(npuprof_rawk_close(w), 0);
}

static void track(uint32_t task, uint64_t type, uint32_t tag, uint64_t index, uint64_t conn)
{
	struct npuprof_hostfmt_task_track *t = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_TASK_TRACK,
								       sizeof(*t));

	ck_assert_ptr_nonnull(t);
	memset((char *)t + sizeof(t->h), 0, sizeof(*t) - sizeof(t->h));
	t->tid = (uint32_t)getpid() + 1;
	t->time_ns = T0 + task * 10000ULL - 100;
	t->connection_id = conn;
	t->task_type_id = type;
	t->stream_id = 5;
	t->task_id = (uint16_t)task;
	t->model_id = NPUPROF_NO_ID32;
	t->memcpy_op = NPUPROF_ENUM_INVALID;
	t->trace_tag = tag;
	t->index_id = index;
	npuprof_hostrec_commit(t);
}

/* 1: txr writes the compact records the recorder writes now (hostfmt.h,
 * kinds 17-22) instead of TX records; the export must not tell them apart. */
static int g_compact;

static void compact_txr(uint16_t info, uint16_t ev, uint64_t start, uint64_t end, uint64_t id,
			uint64_t domain, const char *msg)
{
	uint32_t len = (uint32_t)strlen(msg);

	if (info == 0 && ev == NPUPROF_TX_MARK) {
		struct npuprof_hostfmt_stamp_mark *r =
			npuprof_hostrec_reserve(NPUPROF_HOSTFMT_STAMP_MARK, sizeof(*r));

		ck_assert_ptr_nonnull(r);
		r->time_ns = start;
		r->msg_id = aclprofStr2Id(msg);
		r->category = 0;
		r->payload_type = 0;
		npuprof_hostrec_commit(r);
	} else if (info == 0) {
		struct npuprof_hostfmt_stamp_stop *r =
			npuprof_hostrec_reserve(NPUPROF_HOSTFMT_STAMP_STOP, sizeof(*r));

		ck_assert_ptr_nonnull(r);
		r->start_ns = start;
		r->end_ns = end;
		r->msg_id = aclprofStr2Id(msg);
		r->category = 0;
		r->payload_type = 0;
		r->start_tid = npuprof_hostrec_tid();
		r->range_id = 3;
		npuprof_hostrec_commit(r);
	} else if (ev == NPUPROF_TX_START_STOP && start == 0) {
		struct npuprof_hostfmt_mstx_end *r =
			npuprof_hostrec_reserve(NPUPROF_HOSTFMT_MSTX_END, sizeof(*r));

		ck_assert_ptr_nonnull(r);
		r->time_ns = end;
		r->mark_id = id;
		npuprof_hostrec_commit(r);
	} else {
		uint32_t size = npuprof_hostfmt_size(offsetof(struct npuprof_hostfmt_mstx, message),
						     len + 1);
		struct npuprof_hostfmt_mstx *r =
			npuprof_hostrec_reserve(ev == NPUPROF_TX_MARK ? NPUPROF_HOSTFMT_MSTX_MARK :
									NPUPROF_HOSTFMT_MSTX_START,
						size);

		ck_assert_ptr_nonnull(r);
		memset((char *)r + sizeof(r->h), 0, size - sizeof(r->h));
		r->time_ns = start;
		r->mark_id = id;
		r->domain = domain;
		r->msg_len = len;
		memcpy(r->message, msg, len);
		npuprof_hostrec_commit(r);
	}
}

static void txr(uint16_t info, uint16_t ev, uint64_t start, uint64_t end, uint64_t id,
		uint64_t domain, const char *msg)
{
	uint32_t len = (uint32_t)strlen(msg);
	uint32_t size = npuprof_hostfmt_size(offsetof(struct npuprof_hostfmt_tx, message), len + 1);
	struct npuprof_hostfmt_tx *r;

	if (g_compact) {
		compact_txr(info, ev, start, end, id, domain, msg);
		return;
	}
	r = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_TX, size);
	ck_assert_ptr_nonnull(r);
	memset((char *)r + sizeof(r->h), 0, size - sizeof(r->h));
	/* the writing thread, which is what the compact records imply */
	r->tid = r->start_tid = npuprof_hostrec_tid();
	r->start_ns = start;
	r->end_ns = end;
	r->mark_id = id;
	r->domain = domain;
	r->category = info ? UINT32_MAX : 0;
	r->range_id = info ? NPUPROF_TX_NO_RANGE : 3;
	r->info_type = info;
	r->event_type = ev;
	r->msg_len = len;
	memcpy(r->message, msg, len);
	npuprof_hostrec_commit(r);
}

static void step(uint64_t index, uint32_t tag, uint64_t t)
{
	struct npuprof_hostfmt_step *r = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_STEP, sizeof(*r));

	ck_assert_ptr_nonnull(r);
	r->tid = (uint32_t)getpid() + 1;
	r->tag = tag;
	r->index_id = index;
	r->time_ns = t;
	r->stream = 0x1234;
	npuprof_hostrec_commit(r);
}

static void write_host(const struct npuprof_session *s)
{
	struct npuprof_hostrec_config cfg;
	char err[512];

	memset(&cfg, 0, sizeof(cfg));
	cfg.dir = s->dir;
	/* an empty Str2Id dictionary, so that this stream gets every HASH
	 * record (a dictionary is written at a start only by aclprofStart) */
	npuprof_aclprof_reset();
	ck_assert_int_eq(npuprof_hostrec_start(&cfg, err, sizeof(err)), 0);
	uint64_t trace = aclprofStr2Id("PROFILER_TRACE_EX");
	uint64_t def = aclprofStr2Id("default");

	track(0, trace, 12, 5, BASE + 5);
	track(2, trace, 12, 5, BASE + 5);
	track(3, trace, 11, 6, BASE + 6);
	/* stream range 5 (its markers are tasks 0 and 2), in two halves */
	txr(1, NPUPROF_TX_START_STOP, T0 - 50, 0, 5, def, "dev range");
	txr(1, NPUPROF_TX_START_STOP, 0, T0 + 20000, 5, 0, "");
	txr(1, NPUPROF_TX_MARK, T0 + 29000, T0 + 29000, 6, def, "dev mark");
	/* host-only range 7; range 8 whose markers were lost; 9 never ended */
	txr(1, NPUPROF_TX_START_STOP, T0 + 100, 0, 7, def, "host range");
	txr(1, NPUPROF_TX_START_STOP, 0, T0 + 200, 7, 0, "");
	txr(1, NPUPROF_TX_START_STOP, T0 + 300, 0, 8, def, "lost markers");
	txr(1, NPUPROF_TX_START_STOP, 0, T0 + 400, 8, 0, "");
	txr(1, NPUPROF_TX_START_STOP, T0 + 500, 0, 9, def, "never ended");
	/* the stamp API: a range and a mark */
	txr(0, NPUPROF_TX_START_STOP, T0 + 600, T0 + 700, 0, 0, "stamp range");
	txr(0, NPUPROF_TX_MARK, T0 + 800, T0 + 800, 0, 0, "stamp mark");
	/* a range stopped on another CPU whose counter ran behind the starter's */
	txr(0, NPUPROF_TX_START_STOP, T0 + 900, T0 + 880, 0, 0, "skewed range");
	/* step 1 started and ended, step 2 only started */
	step(1, 0, T0 + 10);
	step(1, 1, T0 + 30000);
	step(2, 0, T0 + 31000);
	ck_assert_int_eq(npuprof_hostrec_stop(), 0);
}

/* One value from the sqlite3 shell (the consumers' own route). */
static void shell(const char *db, const char *sql, char *out, size_t outlen)
{
	char cmd[4096];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' \"%s\" </dev/null", db, sql);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	n = fread(out, 1, outlen - 1, p);
	out[n] = '\0';
	while (n && out[n - 1] == '\n')
		out[--n] = '\0';
	ck_assert_int_eq(pclose(p), 0);
}

#define SHELL_EQ(db, sql, want)                                                                \
	do {                                                                                   \
		char got_[1024];                                                               \
		shell(db, sql, got_, sizeof(got_));                                            \
		ck_assert_msg(!strcmp(got_, want), "%s\n got: %s\nwant: %s", sql, got_, want); \
	} while (0)

/* A session with the kernel stream and the host stream of write_host. */
static void make_session(struct npuprof_session *s)
{
	char err[1024];

	memset(s, 0, sizeof(*s));
	snprintf(s->hostname, sizeof(s->hostname), "testhost");
	snprintf(s->host_uid, sizeof(s->host_uid), "12345");
	snprintf(s->engine, sizeof(s->engine), "kmod");
	s->start_realtime_ns = 1700000000000000000ULL;
	s->start_monotonic_ns = T0 - 1000;
	s->pid = (uint32_t)getpid();
	s->ndev = 1;
	snprintf(s->dev[0].chip, sizeof(s->dev[0].chip), "Ascend910B");
	s->dev[0].counter_hz = HZ;
	ck_assert_int_eq(npuprof_session_create(s, parent, err, sizeof(err)), 0);
	write_kernel(s);
	write_host(s);
	s->end_realtime_ns = s->start_realtime_ns + 2000000000ULL;
}

START_TEST(test_mstx_rows)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	struct npuprof_export_opts o;
	char err[1024], want[256];

	snprintf(parent, sizeof(parent), "/tmp/npuprof-test-mstx-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(parent));
	g_compact = _i; /* 0: TX records, 1: the compact ones */
	make_session(&s);
	memset(&o, 0, sizeof(o));
	ck_assert_msg(npuprof_export(s.dir, &o, &res, err, sizeof(err)) == 0, "%s", err);
	const char *db = res.db_path;

	/* four device tasks, three TASK rows: the range's markers are one */
	SHELL_EQ(db, "SELECT count(*), min(globalTaskId), max(globalTaskId) FROM TASK", "3|0|2");
	SHELL_EQ(db,
		 "SELECT t.connectionId, t.taskId, t.endNs - t.startNs FROM TASK t JOIN STRING_IDS s"
		 " ON s.id = t.taskType WHERE s.value = 'MsTx' ORDER BY t.connectionId",
		 "4000000006|0|21000\n4000000007|3|1000");
	/* one row per event; ranges without a TASK row are host-only */
	snprintf(want, sizeof(want),
		 "dev range|2|%llu\nhost range|2|4294967295\nlost markers|2|4294967295\n"
		 "stamp range|2|4294967295\nstamp mark|0|4000000000\nskewed range|2|4294967295\n"
		 "dev mark|0|%llu",
		 (unsigned long long)(BASE + 5), (unsigned long long)(BASE + 6));
	SHELL_EQ(db,
		 "SELECT s.value, m.eventType, m.connectionId FROM MSTX_EVENTS m JOIN STRING_IDS s"
		 " ON s.id = m.message ORDER BY m.startNs",
		 want);
	SHELL_EQ(db,
		 "SELECT m.endNs - m.startNs, d.value FROM MSTX_EVENTS m JOIN STRING_IDS d ON"
		 " d.id = m.domainId WHERE m.connectionId = 4000000006",
		 "20050|default");
	/* msprof-analyze's msproftx summary: ranges not host-only, LEFT JOIN TASK,
	 * device end - device start; a NULL there breaks the recipe */
	SHELL_EQ(db,
		 "SELECT count(*), count(t.endNs - t.startNs) FROM MSTX_EVENTS m LEFT JOIN TASK t"
		 " ON t.connectionId = m.connectionId WHERE m.eventType = 2 AND"
		 " m.connectionId != 4294967295",
		 "1|1");
	/* no connectionId points at nothing but the host-only values */
	SHELL_EQ(db,
		 "SELECT count(*) FROM MSTX_EVENTS m LEFT JOIN TASK t ON t.connectionId ="
		 " m.connectionId WHERE m.connectionId NOT IN (4294967295, 4000000000) AND"
		 " t.connectionId IS NULL",
		 "0");
	/* it never ends before it starts */
	SHELL_EQ(db,
		 "SELECT m.endNs - m.startNs FROM MSTX_EVENTS m JOIN STRING_IDS s ON s.id ="
		 " m.message WHERE s.value = 'skewed range'",
		 "0");
	ck_assert_uint_eq(res.mstx, 7);
	SHELL_EQ(db, "SELECT count(*) FROM sqlite_master WHERE name = 'STEP_TIME'", "0");

	/* the PyTorch database: the same events, and the steps */
	o.pytorch = 1;
	o.force = 1;
	ck_assert_msg(npuprof_export(s.dir, &o, &res, err, sizeof(err)) == 0, "%s", err);
	snprintf(want, sizeof(want), "1|%llu|%llu", 1700000000000000000ULL + 1000 + 10,
		 1700000000000000000ULL + 1000 + 30000);
	SHELL_EQ(res.pytorch_path, "SELECT id, startNs, endNs FROM STEP_TIME", want);
	SHELL_EQ(
		res.pytorch_path,
		"SELECT count(*) FROM MSTX_EVENTS WHERE eventType = 2 AND connectionId != 4294967295",
		"1");
	tu_rm_rf(parent);
}
END_TEST

/* The same events as TX records and as compact records: the same rows in
 * every table an event reaches, column for column. */
START_TEST(test_compact_same_rows)
{
	static const char *const queries[] = {
		"SELECT m.startNs, m.endNs, m.eventType, m.rangeId, m.category, s.value,"
		" m.globalTid, m.endGlobalTid, d.value, m.connectionId FROM MSTX_EVENTS m"
		" JOIN STRING_IDS s ON s.id = m.message JOIN STRING_IDS d ON d.id = m.domainId"
		" ORDER BY m.startNs, m.connectionId",
		"SELECT t.startNs, t.endNs, t.connectionId, t.globalTaskId, s.value FROM TASK t"
		" JOIN STRING_IDS s ON s.id = t.taskType ORDER BY t.startNs",
	};
	char out[2][2][4096];

	for (int k = 0; k < 2; k++) {
		struct npuprof_session s;
		struct npuprof_export_result res;
		struct npuprof_export_opts o;
		char err[1024];

		snprintf(parent, sizeof(parent), "/tmp/npuprof-test-mstx-XXXXXX");
		ck_assert_ptr_nonnull(mkdtemp(parent));
		g_compact = k;
		make_session(&s);
		memset(&o, 0, sizeof(o));
		ck_assert_msg(npuprof_export(s.dir, &o, &res, err, sizeof(err)) == 0, "%s", err);
		ck_assert_uint_eq(res.mstx, 7);
		for (int q = 0; q < 2; q++)
			shell(res.db_path, queries[q], out[k][q], sizeof(out[k][q]));
		tu_rm_rf(parent);
	}
	for (int q = 0; q < 2; q++) {
		ck_assert_uint_gt(strlen(out[0][q]), 0);
		ck_assert_msg(!strcmp(out[0][q], out[1][q]), "TX:\n%s\ncompact:\n%s", out[0][q],
			      out[1][q]);
	}
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("export_mstx");
	TCase *tc = tcase_create("rows");

	tcase_add_loop_test(tc, test_mstx_rows, 0, 2);
	tcase_add_test(tc, test_compact_same_rows);
	suite_add_tcase(s, tc);
	return s;
}
