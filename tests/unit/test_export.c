/*
 * test_export.c — npuprof_export on synthetic session directories: a kernel
 * raw stream (submits, device task times, clock-sync samples, records out of
 * order across CPUs, task-id wrap) and a host stream written through the
 * real recorder; checks TASK times and joins, META_DATA statistics, and
 * that truncated or corrupt raw files are reported by file and offset while
 * the intact part is exported.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "npuprof/export.h"
#include "hostrec.h"
#include "npuprof/rawkern.h"
#include "npuprof/session.h"
#include "testutil.h"
#include "uapi/npusim.h"

#define HZ 50000000ULL /* device counter */
#define T0 1000000000ULL /* first submit, CLOCK_MONOTONIC ns */
#define CNT0 777000000ULL /* device counter at T0 */
#define DUR 4000ULL /* ns per task */

static char parent[256];

static uint64_t cnt_at(uint64_t mono)
{
	return CNT0 + (mono - T0) * HZ / 1000000000ULL;
}

static void make_session(struct npuprof_session *s)
{
	char err[512];

	snprintf(parent, sizeof(parent), "/tmp/npuprof-test-export-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(parent));
	memset(s, 0, sizeof(*s));
	snprintf(s->hostname, sizeof(s->hostname), "testhost");
	snprintf(s->host_uid, sizeof(s->host_uid), "12345");
	snprintf(s->engine, sizeof(s->engine), "kmod");
	s->start_realtime_ns = 1700000000000000000ULL;
	s->start_monotonic_ns = T0 - 1000;
	s->pid = (uint32_t)getpid();
	s->ndev = 1;
	s->dev[0].id = 0;
	snprintf(s->dev[0].chip, sizeof(s->dev[0].chip), "Ascend910B");
	s->dev[0].counter_hz = HZ;
	ck_assert_int_eq(npuprof_session_create(s, parent, err, sizeof(err)), 0);
}

static void rec_hdr(struct npuprof_record *r, int type, uint64_t ts, int cpu)
{
	memset(r, 0, sizeof(*r));
	r->hdr.type = (uint16_t)type;
	r->hdr.size = NPUPROF_RECORD_SIZE;
	r->hdr.ts = ts;
	r->hdr.cpu = (uint16_t)cpu;
	r->hdr.pid = (uint32_t)getpid();
	r->hdr.tid = (uint32_t)getpid() + 1;
}

/* n tasks on stream 5 of device 0, task ids from first (wrapping), each
 * submitted at T0 + i*10us and running DUR from T0 + i*10us + 2us. Records
 * of neighbouring tasks are emitted swapped, as two CPUs would. */
static void write_kernel(const struct npuprof_session *s, uint32_t n, uint32_t first)
{
	struct npuprof_rawk_writer *w;
	struct npuprof_record r, prev;
	char path[4400], err[512];
	int have_prev = 0;

	snprintf(path, sizeof(path), "%s/%s", s->dir, NPUPROF_KERNEL_RAW);
	ck_assert_int_eq(npuprof_rawk_create(&w, path, "kmod", 0, 0, err, sizeof(err)), 0);
	for (int k = 0; k < 2; k++) {
		uint64_t h = T0 + (uint64_t)k * 1000000000ULL * 100;

		rec_hdr(&r, NPUPROF_REC_CLOCK_SYNC, h, 0);
		r.clock.devid = 0;
		r.clock.host_ns = h;
		r.clock.dev_cnt = cnt_at(h);
		r.clock.counter_hz = HZ;
		npuprof_rawk_append(w, &r);
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t sub = T0 + (uint64_t)i * 10000, st = sub + 2000;

		rec_hdr(&r, NPUPROF_REC_SUBMIT, sub, i % 2);
		r.submit.devid = 0;
		r.submit.stream_id = 5;
		r.submit.sq_id = 5;
		r.submit.task_id = (first + i) & 0xffff;
		r.submit.sqe_type = 0;
		/* the swap: a record of CPU 1 lands before one of CPU 0 */
		if (have_prev) {
			npuprof_rawk_append(w, &r);
			npuprof_rawk_append(w, &prev);
			have_prev = 0;
		} else {
			prev = r;
			have_prev = 1;
		}
		rec_hdr(&r, NPUPROF_REC_TASK_TIME, st + DUR + 500, 0);
		r.task_time.devid = 0;
		r.task_time.stream_id = 5;
		r.task_time.sq_id = 5;
		r.task_time.task_id = (first + i) & 0xffff;
		r.task_time.start_cnt = cnt_at(st);
		r.task_time.end_cnt = cnt_at(st + DUR);
		if (have_prev) {
			npuprof_rawk_append(w, &prev);
			have_prev = 0;
		}
		npuprof_rawk_append(w, &r);
	}
	ck_assert_int_eq(npuprof_rawk_close(w), 0);
}

/* Host stream: one acl + node `launch` API around the first task, its task
 * track and compute op, and a MarkEx-less msproftx mark. */
static void write_host(const struct npuprof_session *s)
{
	struct npuprof_hostrec_config cfg;
	char err[512];

	memset(&cfg, 0, sizeof(cfg));
	cfg.dir = s->dir;
	ck_assert_int_eq(npuprof_hostrec_start(&cfg, err, sizeof(err)), 0);
	uint64_t launch = aclprofStr2Id("launch");
	uint64_t kt = aclprofStr2Id("KERNEL_AICORE");
	uint64_t op = aclprofStr2Id("MatMul_0");
	uint64_t optype = aclprofStr2Id("MatMul");
	uint64_t ge = aclprofStr2Id("AI_CORE");

	struct npuprof_hostfmt_api *a = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_API, sizeof(*a));
	ck_assert_ptr_nonnull(a);
	a->level = NPUPROF_API_NODE;
	a->tid = (uint32_t)getpid() + 1;
	a->start_ns = T0 - 3000;
	a->end_ns = T0 + 1000;
	a->connection_id = 7;
	a->name_id = launch;
	a->item_id = op;
	a->device_id = 0;
	npuprof_hostrec_commit(a);

	struct npuprof_hostfmt_task_track *t = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_TASK_TRACK,
								       sizeof(*t));
	ck_assert_ptr_nonnull(t);
	t->tid = (uint32_t)getpid() + 1;
	t->device_id = 0;
	t->time_ns = T0 - 100;
	t->connection_id = 7;
	t->task_type_id = kt;
	t->stream_id = 5;
	t->task_id = 0;
	t->model_id = NPUPROF_NO_ID32;
	t->memcpy_op = NPUPROF_ENUM_INVALID;
	npuprof_hostrec_commit(t);

	struct npuprof_hostfmt_compute_op *c = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_COMPUTE_OP,
								       sizeof(*c));
	ck_assert_ptr_nonnull(c);
	memset((char *)c + sizeof(c->h), 0xff, sizeof(*c) - sizeof(c->h));
	c->tid = (uint32_t)getpid() + 1;
	c->device_id = 0;
	c->time_ns = T0 - 100;
	c->connection_id = 7;
	c->stream_id = 5;
	c->task_id = 0;
	c->reserved0 = 0;
	c->batch_id = 0;
	c->name_id = op;
	c->op_type_id = optype;
	c->task_type_id = ge;
	c->block_dim = 24;
	c->mix_block_dim = 0;
	c->op_flag = 0;
	c->input_count = c->output_count = 0;
	c->duration_ns = DUR;
	npuprof_hostrec_commit(c);
	ck_assert_int_eq(npuprof_hostrec_stop(), 0);
}

static sqlite3 *open_db(const char *path)
{
	sqlite3 *db;

	ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	return db;
}

static int64_t q(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -999;

	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void f_slurp(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	*buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(*buf);
	ck_assert_uint_eq(fread(*buf, 1, (size_t)n, f), (size_t)n);
	(*buf)[n] = '\0';
	*len = (size_t)n;
	fclose(f);
}

static void cleanup(void)
{
	tu_rm_rf(parent);
	ck_assert_int_eq(access(parent, F_OK), -1);
}

START_TEST(test_tasks_and_joins)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	struct npuprof_export_opts o;
	char err[1024];
	enum {
		N = 70000
	}; /* more than 65536: the task id wraps */

	make_session(&s);
	write_kernel(&s, N, 0);
	write_host(&s);
	s.end_realtime_ns = s.start_realtime_ns + 2000000000ULL;
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(npuprof_export(s.dir, &o, &res, err, sizeof(err)), 0);
	ck_assert_uint_eq(res.tasks, N);
	ck_assert_uint_eq(res.in_flight, 0);
	ck_assert_uint_eq(res.orphan_completions, 0);
	ck_assert_uint_eq(res.derived, 0);
	ck_assert_uint_eq(res.late, 0); /* the swaps are within the reorder window */

	sqlite3 *db = open_db(res.db_path);
	ck_assert_int_eq(q(db, "SELECT count(*) FROM TASK"), N);
	ck_assert_int_eq(q(db, "SELECT count(DISTINCT globalTaskId) FROM TASK"), N);
	ck_assert_int_eq(q(db, "SELECT max(globalTaskId) FROM TASK"), N - 1);
	/* every duration is the modelled one, to the ns (one fit, exact) */
	ck_assert_int_le(q(db, "SELECT max(abs(endNs - startNs - 4000)) FROM TASK"), 20);
	/* start relative to the session: T0 + 2us in Unix time */
	ck_assert_int_le(llabs(q(db, "SELECT startNs FROM TASK WHERE globalTaskId = 0") -
			       (int64_t)(1700000000000000000ULL + 1000 + 2000)),
			 20);
	/* ids 0..4463 appear twice (two batches), the rest once */
	ck_assert_int_eq(
		q(db,
		  "SELECT count(*) FROM (SELECT taskId FROM TASK GROUP BY taskId HAVING count(*) = 2)"),
		N - 65536);
	/* the first task joins its API and its compute info */
	ck_assert_int_eq(q(db, "SELECT connectionId FROM TASK WHERE globalTaskId = 0"), 7);
	ck_assert_int_eq(
		q(db,
		  "SELECT count(*) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType WHERE s.value = 'KERNEL_AICORE'"),
		1);
	ck_assert_int_eq(
		q(db,
		  "SELECT count(*) FROM CANN_API a JOIN TASK t ON t.connectionId = a.connectionId JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId"),
		1);
	ck_assert_int_eq(q(db, "SELECT c.blockDim FROM COMPUTE_TASK_INFO c"), 24);
	/* tasks without a host track get the STARS type and no connection */
	ck_assert_int_eq(
		q(db,
		  "SELECT count(*) FROM TASK t JOIN STRING_IDS s ON s.id = t.taskType WHERE s.value = 'AI_CORE' AND t.connectionId = -1"),
		N - 1);
	char sql[128];
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM TASK WHERE globalPid = %d", getpid());
	ck_assert_int_eq(q(db, sql), N); /* the submitting process */
	ck_assert_int_eq(
		q(db,
		  "SELECT count(*) FROM META_DATA WHERE name = 'npuprof.task_time_source' AND value = 'device'"),
		1);
	ck_assert_int_eq(q(db, "SELECT count(*) FROM STRING_IDS WHERE value = 'launch' AND id = 0"),
			 0);
	sqlite3_close(db);

	/* re-running export leaves one database with the same rows */
	struct npuprof_export_result res2;
	sleep(1);
	ck_assert_msg(npuprof_export(s.dir, &o, &res2, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_ne(access(res2.db_path, F_OK), -1);
	ck_assert_uint_eq(res2.tasks, N);
	if (strcmp(res.db_path, res2.db_path))
		ck_assert_int_eq(access(res.db_path, F_OK), -1);
	cleanup();
}
END_TEST

/* A kernel raw stream of session s (left open): a clock-sync sample if
 * asked, then tasks 0, 1, 2 submitted on stream 1 of device 0. */
static struct npuprof_rawk_writer *three_submits(const struct npuprof_session *s, int clock)
{
	struct npuprof_rawk_writer *w;
	struct npuprof_record r;
	char path[4400], err[512];

	snprintf(path, sizeof(path), "%s/%s", s->dir, NPUPROF_KERNEL_RAW);
	ck_assert_int_eq(npuprof_rawk_create(&w, path, "kmod", 0, 0, err, sizeof(err)), 0);
	if (clock) {
		rec_hdr(&r, NPUPROF_REC_CLOCK_SYNC, T0, 0);
		r.clock.host_ns = T0;
		r.clock.dev_cnt = cnt_at(T0);
		r.clock.counter_hz = HZ;
		npuprof_rawk_append(w, &r);
	}
	for (int i = 0; i < 3; i++) {
		rec_hdr(&r, NPUPROF_REC_SUBMIT, T0 + (uint64_t)i * 100, 0);
		r.submit.stream_id = 1;
		r.submit.task_id = (uint32_t)i;
		npuprof_rawk_append(w, &r);
	}
	return w;
}

/* Append a completion (a CQE dispatch) of task on stream at ts. */
static void put_cqe(struct npuprof_rawk_writer *w, uint64_t ts, uint32_t stream, uint32_t task)
{
	struct npuprof_record r;

	rec_hdr(&r, NPUPROF_REC_COMPLETE, ts, 1);
	r.complete.stream_id = stream;
	r.complete.task_id = task;
	npuprof_rawk_append(w, &r);
}

/* Close the raw stream of s and export it into res. */
static void close_export(struct npuprof_rawk_writer *w, const struct npuprof_session *s,
			 struct npuprof_export_result *res)
{
	char err[1024];

	ck_assert_int_eq(npuprof_rawk_close(w), 0);
	ck_assert_int_eq(npuprof_export(s->dir, NULL, res, err, sizeof(err)), 0);
}

/* Derived times when no device task times exist: a completion retires its
 * task and every earlier one of the stream. */
START_TEST(test_derived)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	struct npuprof_rawk_writer *w;

	make_session(&s);
	w = three_submits(&s, 0);
	put_cqe(w, T0 + 10000, 1 | 0x8000, 1); /* with the match flag */
	close_export(w, &s, &res);
	ck_assert_uint_eq(res.tasks, 2);
	ck_assert_uint_eq(res.derived, 2);
	ck_assert_uint_eq(res.in_flight, 1);
	sqlite3 *db = open_db(res.db_path);
	ck_assert_int_eq(q(db,
			   "SELECT count(*) FROM TASK WHERE endNs = (SELECT max(endNs) FROM TASK)"),
			 2);
	ck_assert_int_eq(
		q(db, "SELECT value FROM META_DATA WHERE name = 'npuprof.tasks_in_flight_at_stop'"),
		1);
	ck_assert_int_eq(
		q(db,
		  "SELECT count(*) FROM META_DATA WHERE name = 'npuprof.task_time_source' AND value = 'derived'"),
		1);
	sqlite3_close(db);
	cleanup();
}
END_TEST

/* With device task times, the CQE that follows a task's task-time record
 * names a task just retired; a CQE of a task still in flight (aborted by a
 * device reset: no task time) retires it as derived; a CQE of a task never
 * submitted is a completion without a submit. */
START_TEST(test_cqe_with_task_times)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	struct npuprof_rawk_writer *w;
	struct npuprof_record r;

	make_session(&s);
	w = three_submits(&s, 1);
	rec_hdr(&r, NPUPROF_REC_TASK_TIME, T0 + 10000, 0);
	r.task_time.stream_id = 1;
	r.task_time.task_id = 0;
	r.task_time.start_cnt = cnt_at(T0 + 1000);
	r.task_time.end_cnt = cnt_at(T0 + 9000);
	npuprof_rawk_append(w, &r);
	put_cqe(w, T0 + 10100, 1, 0); /* task 0's own CQE */
	put_cqe(w, T0 + 20000, 1, 0x8002); /* never submitted */
	put_cqe(w, T0 + 30000, 1, 1); /* aborted task 1 */
	close_export(w, &s, &res);
	ck_assert_uint_eq(res.orphan_completions, 1);
	ck_assert_uint_eq(res.tasks, 3); /* 0, the orphan, 1 */
	ck_assert_uint_eq(res.in_flight, 1); /* 2 */
	sqlite3 *db = open_db(res.db_path);
	ck_assert_int_eq(q(db, "SELECT count(*) FROM TASK WHERE endNs < startNs"), 0);
	ck_assert_int_eq(q(db, "SELECT count(*) FROM TASK WHERE taskId = 1"), 1);
	ck_assert_int_eq(
		q(db,
		  "SELECT value FROM META_DATA WHERE name = 'npuprof.completions_without_submit'"),
		1);
	sqlite3_close(db);
	cleanup();
}
END_TEST

/* Export dir with o, returning what it warned. */
static char *export_opts_warnings(const char *dir, struct npuprof_export_opts *o, int *ret,
				  struct npuprof_export_result *res, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;

	o->warn = open_memstream(&buf, &len);
	*ret = npuprof_export(dir, o, res, err, errlen);
	fclose(o->warn);
	o->warn = NULL;
	return buf;
}

static char *export_warnings(const char *dir, int *ret, struct npuprof_export_result *res)
{
	struct npuprof_export_opts o;
	char err[1024];

	memset(&o, 0, sizeof(o));
	return export_opts_warnings(dir, &o, ret, res, err, sizeof(err));
}

/* The number a shell command about dir prints (cmd: a format with one %s). */
static int count_in(const char *fmt, const char *dir)
{
	char cmd[4600];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), fmt, dir);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

/* Hidden temporaries left in dir (none may survive an export). */
static int count_temps(const char *dir)
{
	return count_in("find '%s' -name '.npuprof-tmp-*' | wc -l", dir);
}

static int count_dbs(const char *dir)
{
	return count_in("ls '%s' | grep -c '^msprof_[0-9]*\\.db$'", dir);
}

/* --force on damaged input: the one database is replaced, the result still
 * says the input was damaged. */
static void export_forced(const char *dir, struct npuprof_export_opts *o)
{
	struct npuprof_export_result res;
	char err[2048], *w;
	int ret;

	o->force = 1;
	w = export_opts_warnings(dir, o, &ret, &res, err, sizeof(err));
	o->force = 0;
	ck_assert_msg(ret == 0, "%s", err);
	ck_assert_int_eq(res.damaged, 1);
	ck_assert_int_eq(count_dbs(dir), 1);
	free(w);
}

/* A truncated or corrupt kernel stream: a corrupt 64-byte record costs only
 * itself (issue 18 #2), every problem is named by file and offset, the
 * result says the input was damaged, and an export that would have fewer
 * rows than the database already there keeps it (#1) unless forced. */
START_TEST(test_damaged_kernel)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	struct npuprof_export_opts o;
	char path[4400], want[4500], err[2048], first_db[4352];
	int ret, fd;

	make_session(&s);
	write_kernel(&s, 100, 0);
	snprintf(path, sizeof(path), "%s/%s", s.dir, NPUPROF_KERNEL_RAW);
	/* cut the last record in half (and its checksum record after it):
	 * the records before it are read unchecked, and said so */
	struct stat stt;
	ck_assert_int_eq(stat(path, &stt), 0);
	ck_assert_int_eq(truncate(path, stt.st_size - 64 - 32), 0);
	char *w = export_warnings(s.dir, &ret, &res);
	ck_assert_int_eq(ret, 0);
	snprintf(want, sizeof(want), "%s: offset %lld: truncated record", path,
		 (long long)(stt.st_size - 128));
	ck_assert_msg(strstr(w, want), "warning was: %s", w);
	ck_assert_msg(strstr(w, "without their checksum record (the file was cut short)"),
		      "warning was: %s", w);
	ck_assert_uint_eq(res.tasks, 99);
	ck_assert_int_eq(res.damaged, 1);
	snprintf(first_db, sizeof(first_db), "%s", res.db_path);
	free(w);

	/* corrupt records 10 and 50 (after the header and 2 clock samples):
	 * both are skipped, everything else is exported */
	fd = open(path, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	off_t off = NPUPROF_RAWK_HDR_SIZE + 12 * NPUPROF_RECORD_SIZE;
	off_t off2 = NPUPROF_RAWK_HDR_SIZE + 52 * NPUPROF_RECORD_SIZE;
	ck_assert_int_eq(pwrite(fd, "\xff\xff\x01\x00", 4, off), 4);
	ck_assert_int_eq(pwrite(fd, "\x00\x00\x00\x00", 4, off2), 4);
	close(fd);
	memset(&o, 0, sizeof(o));
	sleep(1); /* a new database name */
	w = export_opts_warnings(s.dir, &o, &ret, &res, err, sizeof(err));
	snprintf(want, sizeof(want),
		 "%s: 2 corrupt records of 64 bytes skipped at offsets %lld, %lld", path,
		 (long long)off, (long long)off2);
	ck_assert_msg(strstr(w, want), "warning was: %s", w);
	ck_assert_uint_eq(res.kernel_bad_records, 2);
	ck_assert_msg(ret == 0, "%s", err);
	ck_assert_int_eq(res.damaged, 1);
	ck_assert_uint_ge(res.tasks, 97); /* at most the two damaged tasks */
	ck_assert_int_eq(count_dbs(s.dir), 1);
	sqlite3 *db = open_db(res.db_path);
	ck_assert_int_eq(
		q(db, "SELECT value FROM META_DATA WHERE name = 'npuprof.kernel_records_skipped'"),
		2);
	sqlite3_close(db);
	snprintf(first_db, sizeof(first_db), "%s", res.db_path);
	free(w);

	/* a file that is not a raw stream at all: 0 tasks; the database
	 * already there has more, so it is kept and nothing is written */
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_eq(write(fd, "garbage!", 8), 8);
	close(fd);
	sleep(1);
	w = export_opts_warnings(s.dir, &o, &ret, &res, err, sizeof(err));
	ck_assert_int_eq(ret, -EEXIST);
	snprintf(want, sizeof(want), "%s: offset 8: truncated header", path);
	ck_assert_msg(strstr(w, want) && strstr(w, "nothing exported from it"), "warning was: %s",
		      w);
	ck_assert_msg(strstr(err, first_db) && strstr(err, "TASK ") && strstr(err, "rows, now 0") &&
			      strstr(err, "--force"),
		      "%s", err);
	ck_assert_uint_eq(res.tasks, 0);
	ck_assert_int_eq(access(first_db, F_OK), 0);
	ck_assert_int_eq(count_dbs(s.dir), 1);
	ck_assert_int_eq(count_temps(s.dir), 0);
	free(w);
	/* asked for: replaced */
	export_forced(s.dir, &o);
	ck_assert_int_eq(access(first_db, F_OK), -1);

	/* empty: nothing "before it" to export, and said so */
	ck_assert_int_eq(truncate(path, 0), 0);
	w = export_opts_warnings(s.dir, &o, &ret, &res, err, sizeof(err));
	ck_assert_msg(strstr(w, "offset 0: truncated header") && !strstr(w, "records before"),
		      "warning was: %s", w);
	free(w);

	/* missing: a warning, and the input counts as incomplete */
	ck_assert_int_eq(unlink(path), 0);
	w = export_opts_warnings(s.dir, &o, &ret, &res, err, sizeof(err));
	ck_assert_msg(strstr(w, path) && strstr(w, "no kernel stream"), "warning was: %s", w);
	ck_assert_int_eq(res.damaged, 1);
	free(w);
	cleanup();
}
END_TEST

/* Issue 31 #1: a damaged npuprof.session (truncated, garbled, an end before
 * the start) is refused with a message naming the file, the line and why;
 * the good database stays untouched. --force exports what can be read, says
 * so, and the result is damaged; its end is not before its start. */
static int put_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");
	size_t n = len ? len : strlen(text);

	if (!f)
		return -1;
	if (fwrite(text, 1, n, f) != n) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

static void session_damage_refused(const struct npuprof_session *s, const char *good_db,
				   const char *why)
{
	struct npuprof_export_result res;
	struct npuprof_export_opts o;
	struct stat before, after;
	char err[2048], want[4500], *w;
	int ret;

	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(stat(good_db, &before), 0);
	w = export_opts_warnings(s->dir, &o, &ret, &res, err, sizeof(err));
	ck_assert_int_eq(ret, -EBADMSG);
	snprintf(want, sizeof(want), "%s/npuprof.session: damaged: ", s->dir);
	ck_assert_msg(strstr(err, want) && strstr(err, why) && strstr(err, "unchanged"), "%s", err);
	ck_assert_int_eq(stat(good_db, &after), 0);
	ck_assert_int_eq(before.st_ino, after.st_ino);
	ck_assert_int_eq(before.st_mtime, after.st_mtime);
	ck_assert_int_eq(count_dbs(s->dir), 1);
	ck_assert_int_eq(count_temps(s->dir), 0);
	free(w);
}

START_TEST(test_damaged_session)
{
	struct npuprof_session s, l;
	struct npuprof_export_result res;
	struct npuprof_export_opts o;
	char path[4400], good[4352], err[2048], *text, *w;
	size_t len;
	int ret;

	make_session(&s);
	write_kernel(&s, 20, 0);
	ck_assert_int_eq(npuprof_session_finish(&s, err, sizeof(err)), 0);
	w = export_warnings(s.dir, &ret, &res);
	ck_assert_msg(ret == 0 && !res.damaged, "%s", w);
	free(w);
	snprintf(good, sizeof(good), "%s", res.db_path);
	snprintf(path, sizeof(path), "%s/%s", s.dir, NPUPROF_SESSION_FILE);
	f_slurp(path, &text, &len);
	ck_assert_int_eq(npuprof_session_load(&l, s.dir, err, sizeof(err)), 0);

	/* half the file */
	ck_assert_int_eq(truncate(path, (off_t)len / 2), 0);
	session_damage_refused(&s, good, "truncated");
	/* cut after a whole line: the crc line is missing */
	ck_assert_int_eq(put_file(path, text, (size_t)(strstr(text, "devices=") - text)), 0);
	session_damage_refused(&s, good, "no crc line");
	/* 16 bytes garbled in the middle (numbers stay digits: the crc) */
	for (size_t i = len / 2; i < len / 2 + 16; i++)
		text[i] = text[i] >= '0' && text[i] <= '9' ?
				  (char)('0' + (text[i] - '0' + 3) % 10) :
				  text[i];
	ck_assert_int_eq(put_file(path, text, len), 0);
	session_damage_refused(&s, good, "line");
	/* a number with garbage after it, in a file without a crc (version 1) */
	ck_assert_int_eq(put_file(path,
				  "version=1\nstart_realtime_ns=1700000000000000000\n"
				  "start_monotonic_ns=999999000\nend_realtime_ns=17x9\n",
				  0),
			 0);
	session_damage_refused(&s, good, "end_realtime_ns: bad value '17x9'");
	/* a well-formed file whose end is before its start */
	l.end_realtime_ns = 17;
	ck_assert_int_eq(npuprof_session_write_info(&l, err, sizeof(err)), 0);
	session_damage_refused(&s, good, "is before the start");

	/* --force: exported, said, damaged; no end before the start */
	memset(&o, 0, sizeof(o));
	o.force = 1;
	sleep(1); /* a new database name */
	w = export_opts_warnings(s.dir, &o, &ret, &res, err, sizeof(err));
	ck_assert_msg(ret == 0, "%s", err);
	ck_assert_msg(strstr(w, "npuprof.session: damaged") && strstr(w, "--force"), "%s", w);
	ck_assert_int_eq(res.damaged, 1);
	ck_assert_int_eq(count_dbs(s.dir), 1);
	sqlite3 *db = open_db(res.db_path);
	ck_assert_int_eq(q(db,
			   "SELECT count(*) FROM SESSION_TIME_INFO WHERE endTimeNs >= startTimeNs"),
			 1);
	ck_assert_int_eq(q(db, "SELECT value FROM META_DATA WHERE name = 'npuprof.damaged_inputs'"),
			 1);
	sqlite3_close(db);
	free(w);
	free(text);
	cleanup();
}
END_TEST

/* Issue 29 item 3: the AI Core frequency the device backend reported at
 * the start (npusim's aicore_mhz) goes into npuprof.session, the device's
 * info.json (aic_frequency, where msprof reads it) and AICORE_FREQ: a row
 * at the session's start and one at its end. A session written before the
 * frequency (a device line of 5 fields) loads with it unknown. */
START_TEST(test_aicore_freq)
{
	struct npuprof_session s, l;
	struct npuprof_export_result res;
	char path[4400], err[2048], *text, *w;
	size_t len;
	int ret;

	make_session(&s);
	s.dev[0].aicore_mhz = 1650;
	ck_assert_int_eq(npuprof_session_write_info(&s, err, sizeof(err)), 0);
	write_kernel(&s, 20, 0);
	ck_assert_int_eq(npuprof_session_finish(&s, err, sizeof(err)), 0);
	ck_assert_int_eq(npuprof_session_load(&l, s.dir, err, sizeof(err)), 0);
	ck_assert_uint_eq(l.dev[0].aicore_mhz, 1650);
	snprintf(path, sizeof(path), "%s/device_0/info.json.0", s.dir);
	f_slurp(path, &text, &len);
	ck_assert_msg(strstr(text, "\"aic_frequency\": \"1650\""), "%s", text);
	free(text);
	w = export_warnings(s.dir, &ret, &res);
	ck_assert_msg(ret == 0, "%s", w);
	free(w);
	sqlite3 *db = open_db(res.db_path);
	ck_assert_int_eq(q(db,
			   "SELECT count(*) FROM AICORE_FREQ f, SESSION_TIME_INFO s WHERE"
			   " f.deviceId = 0 AND f.freq = 1650 AND f.timestampNs = s.startTimeNs"),
			 1);
	ck_assert_int_eq(q(db, "SELECT count(*) FROM AICORE_FREQ f, SESSION_TIME_INFO s WHERE"
			       " f.freq = 1650 AND f.timestampNs = s.endTimeNs"),
			 1);
	ck_assert_int_eq(q(db, "SELECT count(*) FROM AICORE_FREQ"), 2);
	sqlite3_close(db);
	/* the device line of a session before the frequency */
	snprintf(path, sizeof(path), "%s/%s", s.dir, NPUPROF_SESSION_FILE);
	ck_assert_int_eq(put_file(path,
				  "version=1\nstart_realtime_ns=1700000000000000000\n"
				  "start_monotonic_ns=999999000\ndevices=1\n"
				  "device.0=0,Ascend910B,50000000,24,-1\n",
				  0),
			 0);
	ck_assert_msg(npuprof_session_load(&l, s.dir, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(l.ndev, 1);
	ck_assert_uint_eq(l.dev[0].aicore_num, 24);
	ck_assert_uint_eq(l.dev[0].aicore_mhz, 0);
	cleanup();
}
END_TEST

/* Issue 29 item 3: the AI Core frequency's changes (profiling channel 132,
 * device_0/data/lpmFreqConv.data) become AICORE_FREQ rows at their host
 * times through the device's clock fit: a change before the start is the
 * start row's frequency, later ones rows of their own, the end row the
 * last; a record with a count over 55 is refused alone (the export is
 * damaged, its other records exported), an entry of 0 MHz too. */
START_TEST(test_aicore_freq_changes)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	struct npusim_lp_record r[3];
	char path[4400], sql[512], *w;
	int64_t unix0;
	int fd, ret;

	make_session(&s);
	s.dev[0].aicore_mhz = 1800;
	write_kernel(&s, 20, 0);
	ck_assert_int_eq(npuprof_session_finish(&s, NULL, 0), 0);
	unix0 = (int64_t)(s.start_realtime_ns - s.start_monotonic_ns);
	memset(r, 0, sizeof(r));
	r[0].count = 2;
	r[0].entry[0].sys_cnt = CNT0 - 5000 * HZ / 1000000000ULL; /* before the start */
	r[0].entry[0].freq = 1300;
	r[0].entry[1].sys_cnt = cnt_at(T0 + 100000);
	r[0].entry[1].freq = 800;
	r[1].count = 56; /* damaged */
	r[1].entry[0].sys_cnt = cnt_at(T0 + 150000);
	r[1].entry[0].freq = 1000;
	r[2].count = 2;
	r[2].entry[0].sys_cnt = cnt_at(T0 + 200000);
	r[2].entry[0].freq = 0; /* damaged */
	r[2].entry[1].sys_cnt = cnt_at(T0 + 300000);
	r[2].entry[1].freq = 1800;
	snprintf(path, sizeof(path), "%s/device_0/data", s.dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/device_0/" NPUPROF_LPM_FREQ_FILE, s.dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, r, sizeof(r)), (int)sizeof(r));
	close(fd);
	w = export_warnings(s.dir, &ret, &res);
	ck_assert_msg(strstr(w, "lpmFreqConv.data") && strstr(w, "count over 55"), "%s", w);
	free(w);
	ck_assert_int_eq(res.damaged, 1);
	sqlite3 *db = open_db(res.db_path);
	ck_assert_int_eq(q(db, "SELECT count(*) FROM AICORE_FREQ"), 4);
	ck_assert_int_eq(q(db, "SELECT freq FROM AICORE_FREQ f, SESSION_TIME_INFO s"
			       " WHERE f.timestampNs = s.startTimeNs"),
			 1300);
	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM AICORE_FREQ WHERE freq = 800 AND"
		 " abs(timestampNs - %lld) < 100",
		 (long long)(unix0 + (int64_t)T0 + 100000));
	ck_assert_int_eq(q(db, sql), 1);
	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM AICORE_FREQ WHERE freq = 1800 AND"
		 " abs(timestampNs - %lld) < 100",
		 (long long)(unix0 + (int64_t)T0 + 300000));
	ck_assert_int_eq(q(db, sql), 1);
	ck_assert_int_eq(q(db, "SELECT freq FROM AICORE_FREQ f, SESSION_TIME_INFO s"
			       " WHERE f.timestampNs = s.endTimeNs"),
			 1800);
	ck_assert_int_eq(q(db, "SELECT count(*) FROM AICORE_FREQ WHERE freq = 1000"), 0);
	ck_assert_int_eq(q(db, "SELECT value FROM META_DATA WHERE name ="
			       " 'npuprof.aicore_freq_refused'"),
			 2);
	sqlite3_close(db);
	cleanup();
}
END_TEST

/* A command with newlines (`python3 -c` code) is written on one line: the
 * session loads and exports, its command with spaces for the newlines. */
START_TEST(test_multiline_cmd)
{
	struct npuprof_session s, l;
	struct npuprof_export_result res;
	char err[2048], *w;
	int ret;

	make_session(&s);
	snprintf(s.cmd, sizeof(s.cmd), "python3 -c import os\nprint(1)\r\n\tx");
	ck_assert_int_eq(npuprof_session_write_info(&s, err, sizeof(err)), 0);
	write_kernel(&s, 5, 0);
	ck_assert_int_eq(npuprof_session_finish(&s, err, sizeof(err)), 0);
	ck_assert_msg(npuprof_session_load(&l, s.dir, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(l.cmd, "python3 -c import os print(1)  \tx");
	w = export_warnings(s.dir, &ret, &res);
	ck_assert_msg(ret == 0 && !res.damaged, "%s", w);
	free(w);
	cleanup();
}
END_TEST

/* Issue 31 #2: bit flips in the kernel stream are found (each record has
 * its checksum): each costs at most the record it is in, the warning names
 * them, the good database is kept and the message says why; --force
 * exports the rest, damaged, with no task made up from a flipped record. */
START_TEST(test_kernel_bit_flips)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	struct npuprof_export_opts o;
	char path[4400], good[4352], err[2048], *w;
	unsigned char slots[4096] = { 0 };
	unsigned seed = 31;
	uint64_t nslots, flipped_slots = 0;
	struct stat st;
	int ret, fd;

	make_session(&s);
	write_kernel(&s, 100, 0);
	ck_assert_int_eq(npuprof_session_finish(&s, err, sizeof(err)), 0);
	w = export_warnings(s.dir, &ret, &res);
	ck_assert_msg(ret == 0 && !res.damaged && res.tasks == 100, "%s", w);
	free(w);
	snprintf(good, sizeof(good), "%s", res.db_path);
	snprintf(path, sizeof(path), "%s/%s", s.dir, NPUPROF_KERNEL_RAW);
	ck_assert_int_eq(stat(path, &st), 0);
	nslots = (uint64_t)(st.st_size - NPUPROF_RAWK_HDR_SIZE) / NPUPROF_RECORD_SIZE;
	ck_assert_uint_lt(nslots, sizeof(slots));
	fd = open(path, O_RDWR);
	ck_assert_int_ge(fd, 0);
	for (int i = 0; i < 20; i++) {
		uint64_t off = NPUPROF_RAWK_HDR_SIZE +
			       (uint64_t)rand_r(&seed) % (nslots * NPUPROF_RECORD_SIZE);
		unsigned char b;

		ck_assert_int_eq(pread(fd, &b, 1, (off_t)off), 1);
		b ^= (unsigned char)(1u << (rand_r(&seed) % 8));
		ck_assert_int_eq(pwrite(fd, &b, 1, (off_t)off), 1);
		if (!slots[(off - NPUPROF_RAWK_HDR_SIZE) / NPUPROF_RECORD_SIZE]++)
			flipped_slots++;
	}
	close(fd);

	memset(&o, 0, sizeof(o));
	sleep(1); /* a new database name */
	w = export_opts_warnings(s.dir, &o, &ret, &res, err, sizeof(err));
	ck_assert_int_eq(ret, -EEXIST);
	ck_assert_msg(strstr(w, path) && strstr(w, "corrupt record"), "warning was: %s", w);
	ck_assert_msg(strstr(err, good) && strstr(err, "input is damaged") &&
			      strstr(err, "kept, nothing written"),
		      "%s", err);
	ck_assert_int_eq(access(good, F_OK), 0);
	ck_assert_int_eq(count_dbs(s.dir), 1);
	free(w);

	o.force = 1;
	w = export_opts_warnings(s.dir, &o, &ret, &res, err, sizeof(err));
	ck_assert_msg(ret == 0, "%s", err);
	ck_assert_int_eq(res.damaged, 1);
	ck_assert_msg(strstr(w, "corrupt record"), "warning was: %s", w);
	/* every flipped record found; none costs more than its own slot */
	ck_assert_uint_ge(res.kernel_bad_records, 1);
	ck_assert_uint_le(res.kernel_bad_records, flipped_slots);
	ck_assert_uint_le(res.tasks, 100);
	ck_assert_uint_ge(res.tasks, 100 - flipped_slots);
	ck_assert_int_eq(count_dbs(s.dir), 1);
	free(w);
	cleanup();
}
END_TEST

/* Issue 18 #1: the host stream becomes unreadable (mode 0640 by root for a
 * user; here: not a regular file) and a re-export would have 0 API calls:
 * the complete database stays, nothing is written, the error names it and
 * --force; with both raw files random too. */
START_TEST(test_unreadable_keeps_complete_db)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	struct npuprof_export_opts o;
	char host[4400], kpath[4400], err[2048], good[4352];
	int ret;

	make_session(&s);
	write_kernel(&s, 10, 0);
	write_host(&s);
	memset(&o, 0, sizeof(o));
	char *w = export_opts_warnings(s.dir, &o, &ret, &res, err, sizeof(err));
	ck_assert_msg(ret == 0 && !res.damaged, "%s %s", err, w);
	ck_assert_uint_eq(res.api, 1);
	snprintf(good, sizeof(good), "%s", res.db_path);
	free(w);

	snprintf(host, sizeof(host), "%s/host/data/npuprof.host.%d.raw", s.dir, getpid());
	ck_assert_int_eq(unlink(host), 0);
	ck_assert_int_eq(mkdir(host, 0700), 0);
	sleep(1);
	w = export_opts_warnings(s.dir, &o, &ret, &res, err, sizeof(err));
	ck_assert_int_eq(ret, -EEXIST);
	ck_assert_int_eq(res.damaged, 1);
	ck_assert_uint_eq(res.unreadable, 1);
	ck_assert_msg(strstr(w, host) && strstr(w, "nothing exported from it"), "warning was: %s",
		      w);
	ck_assert_msg(strstr(err, good) && strstr(err, "CANN_API 1 rows, now 0") &&
			      strstr(err, "--force") && strstr(err, "kept"),
		      "%s", err);
	ck_assert_int_eq(access(good, F_OK), 0);
	ck_assert_int_eq(count_dbs(s.dir), 1);
	ck_assert_int_eq(count_temps(s.dir), 0);
	free(w);

	/* both raw files random */
	snprintf(kpath, sizeof(kpath), "%s/%s", s.dir, NPUPROF_KERNEL_RAW);
	ck_assert_int_eq(rmdir(host), 0);
	FILE *f = fopen(host, "w");
	for (int i = 0; i < 4096; i++)
		fputc(rand() & 0xff, f);
	fclose(f);
	f = fopen(kpath, "w");
	for (int i = 0; i < 4096; i++)
		fputc(rand() & 0xff, f);
	fclose(f);
	w = export_opts_warnings(s.dir, &o, &ret, &res, err, sizeof(err));
	ck_assert_int_eq(ret, -EEXIST);
	ck_assert_uint_eq(res.tasks, 0);
	ck_assert_int_eq(access(good, F_OK), 0);
	free(w);

	/* asked for: replaced, and still reported as damaged */
	export_forced(s.dir, &o);
	cleanup();
}
END_TEST

/* Issue 18 #3 and #5: outputs are temporaries renamed when complete. A
 * full disk (RLIMIT_FSIZE) or an interrupted export (the cancel flag a
 * signal handler sets) leaves the previous database and trace JSON as they
 * were and no temporary behind; the message names the database. */
START_TEST(test_outputs_atomic)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	struct npuprof_export_opts o;
	char json[4400], err[2048], good[4352], *before, *after;
	size_t blen, alen;
	volatile sig_atomic_t cancel = 0;
	struct rlimit old, small;
	int ret;

	make_session(&s);
	write_kernel(&s, 20000, 0);
	write_host(&s);
	memset(&o, 0, sizeof(o));
	o.json = 1;
	char *w = export_opts_warnings(s.dir, &o, &ret, &res, err, sizeof(err));
	ck_assert_msg(ret == 0, "%s", err);
	free(w);
	snprintf(good, sizeof(good), "%s", res.db_path);
	snprintf(json, sizeof(json), "%s/npuprof_trace.json", s.dir);
	f_slurp(json, &before, &blen);
	ck_assert_uint_gt(blen, 1000);

	/* the disk is full: nothing replaced */
	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = old;
	small.rlim_cur = 256 << 10;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
	sleep(1);
	w = export_opts_warnings(s.dir, &o, &ret, &res, err, sizeof(err));
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	ck_assert_int_lt(ret, 0);
	ck_assert_msg(strstr(err, "previous") && strstr(err, "kept") && strstr(err, s.dir), "%s",
		      err);
	ck_assert_int_eq(access(good, F_OK), 0);
	f_slurp(json, &after, &alen);
	ck_assert_uint_eq(alen, blen);
	ck_assert_int_eq(memcmp(before, after, blen), 0);
	free(after);
	ck_assert_int_eq(count_temps(s.dir), 0);
	ck_assert_int_eq(count_dbs(s.dir), 1);
	free(w);

	/* interrupted */
	cancel = 1;
	o.cancel = &cancel;
	w = export_opts_warnings(s.dir, &o, &ret, &res, err, sizeof(err));
	ck_assert_int_eq(ret, -EINTR);
	ck_assert_msg(strstr(err, "interrupted"), "%s", err);
	ck_assert_int_eq(access(good, F_OK), 0);
	f_slurp(json, &after, &alen);
	ck_assert_uint_eq(alen, blen);
	free(after);
	ck_assert_int_eq(count_temps(s.dir), 0);
	free(before);
	free(w);
	cleanup();
}
END_TEST

/* Issue 18 #6: garbage timestamps (a damaged host stream that still passes
 * the CRC) overflow no int64 in the trace JSON, and an API range that ends
 * before it starts gets duration 0. */
START_TEST(test_garbage_times)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	struct npuprof_export_opts o;
	struct npuprof_hostrec_config cfg;
	char err[2048], json[4400], *text;
	size_t len;
	int ret;
	uint64_t off;

	make_session(&s);
	write_kernel(&s, 10, 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.dir = s.dir;
	ck_assert_int_eq(npuprof_hostrec_start(&cfg, err, sizeof(err)), 0);
	off = s.start_realtime_ns - s.start_monotonic_ns;
	struct npuprof_hostfmt_api *a = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_API, sizeof(*a));
	ck_assert_ptr_nonnull(a);
	a->level = NPUPROF_API_ACL;
	a->tid = 1;
	a->start_ns = (uint64_t)INT64_MIN + 10 - off; /* unix ns INT64_MIN + 10 */
	a->end_ns = (uint64_t)INT64_MAX - off; /* unix ns INT64_MAX */
	a->name_id = aclprofStr2Id("aclWild");
	a->connection_id = 1001;
	npuprof_hostrec_commit(a);
	a = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_API, sizeof(*a));
	ck_assert_ptr_nonnull(a);
	a->level = NPUPROF_API_ACL;
	a->tid = 1;
	a->start_ns = T0 + 100;
	a->end_ns = T0; /* ends before it starts */
	a->name_id = aclprofStr2Id("aclBackwards");
	a->connection_id = 1002;
	npuprof_hostrec_commit(a);
	ck_assert_int_eq(npuprof_hostrec_stop(), 0);
	memset(&o, 0, sizeof(o));
	o.json = 1;
	char *w = export_opts_warnings(s.dir, &o, &ret, &res, err, sizeof(err));
	ck_assert_msg(ret == 0, "%s", err);
	free(w);
	snprintf(json, sizeof(json), "%s/npuprof_trace.json", s.dir);
	f_slurp(json, &text, &len);
	ck_assert_msg(strstr(text, "\"name\":\"aclBackwards\""), "%s", text);
	ck_assert_ptr_nonnull(strstr(strstr(text, "\"name\":\"aclBackwards\""), "\"dur\":0.000"));
	ck_assert_msg(!strstr(text, "\"dur\":-"), "%s", text);
	free(text);
	cleanup();
}
END_TEST

/* A corrupt host stream: reported with file and offset, the rest exported. */
START_TEST(test_damaged_host)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	char path[4400];
	int ret;

	make_session(&s);
	write_kernel(&s, 10, 0);
	write_host(&s);
	snprintf(path, sizeof(path), "%s/host/data/npuprof.host.%d.raw", s.dir, getpid());
	int fd = open(path, O_RDWR);
	ck_assert_int_ge(fd, 0);
	struct stat stt;
	fstat(fd, &stt);
	/* flip a byte in the middle of the records */
	off_t off = stt.st_size / 2;
	char b;
	ck_assert_int_eq(pread(fd, &b, 1, off), 1);
	b ^= 0x5a;
	ck_assert_int_eq(pwrite(fd, &b, 1, off), 1);
	close(fd);
	char *w = export_warnings(s.dir, &ret, &res);
	ck_assert_int_eq(ret, 0);
	ck_assert_msg(strstr(w, path) && strstr(w, "offset"), "warning was: %s", w);
	ck_assert_uint_eq(res.tasks, 10);
	ck_assert_int_eq(res.damaged, 1);
	free(w);
	cleanup();
}
END_TEST

START_TEST(test_not_a_session)
{
	struct npuprof_export_result res;
	char err[1024];

	ck_assert_int_eq(npuprof_export("/nonexistent/dir", NULL, &res, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "/nonexistent/dir/npuprof.session"), "%s", err);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("export");
	TCase *tc = tcase_create("export");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_tasks_and_joins);
	tcase_add_test(tc, test_derived);
	tcase_add_test(tc, test_cqe_with_task_times);
	tcase_add_test(tc, test_damaged_kernel);
	tcase_add_test(tc, test_damaged_session);
	tcase_add_test(tc, test_aicore_freq);
	tcase_add_test(tc, test_aicore_freq_changes);
	tcase_add_test(tc, test_multiline_cmd);
	tcase_add_test(tc, test_kernel_bit_flips);
	tcase_add_test(tc, test_unreadable_keeps_complete_db);
	tcase_add_test(tc, test_outputs_atomic);
	tcase_add_test(tc, test_garbage_times);
	tcase_add_test(tc, test_damaged_host);
	tcase_add_test(tc, test_not_a_session);
	suite_add_tcase(s, tc);
	return s;
}
