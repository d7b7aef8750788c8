/*
 * test_export_stars.c — npuprof_export with the devices' STARS SoC logs
 * (device_<N>/data/stars_soc.data): on a session of two devices whose
 * kernel stream has submits, completions, clock-sync samples and task-time
 * records with wrong times, the TASK rows carry the logs' times converted
 * by each device's clock fit, a completion at the very time of its task's
 * end does not overtake it, a task of a stream the capture never saw is
 * left out and counted, and META_DATA says stars with the logs' counts. A
 * log cut inside a record is damaged input: the warning names the file and
 * offset, the intact tasks keep their STARS times. A log of a device
 * without clock samples is not used, and said so; a session without logs
 * exports as before. A sampled capture keeps the log's tasks the kernel
 * kept, a windowed one those whose submits the throttle kept.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db_testutil.h"
#include "npuprof/export.h"
#include "npuprof/rawkern.h"
#include "npuprof/session.h"
#include "uapi/npusim.h"

#define HZ 50000000ULL /* device counter: 20 ns a tick */
#define T0 1000000000ULL /* first submit, CLOCK_MONOTONIC ns */
#define DUR 4000ULL /* ns per task */
#define N 300 /* tasks per device */
#define REALTIME 1700000000000000000ULL
#define MONO0 (T0 - 1000)

static const uint64_t cnt0[2] = { 777000000ULL, 123000000ULL }; /* counters at T0 */
static const uint32_t stream_of[2] = { 5, 6 };
static char parent[256];
static uint32_t sample_n; /* the capture's --sample N (0: every task) */
static uint32_t window_on_ms, window_period_ms; /* the capture's --window */

static uint64_t cnt_at(int dev, uint64_t mono)
{
	return cnt0[dev] + (mono - T0) * HZ / 1000000000ULL;
}

/* Task i of device d: submitted, started, ended (host ns). */
static uint64_t submit_ns(int d, uint32_t i)
{
	return T0 + (uint64_t)i * 10000 + (uint64_t)d * 3000;
}

static uint64_t start_ns(int d, uint32_t i)
{
	return submit_ns(d, i) + 2000;
}

/* Did the capture keep task i of device d: the kernel's 1-in-N choice,
 * and a throttle's window, which judges a submit by its time from the
 * first one (throttle.c) */
static int kept(int d, uint32_t i)
{
	uint64_t since = submit_ns(d, i) - submit_ns(0, 0);

	return npuprof_sample_keep(sample_n, (uint32_t)d, stream_of[d], i) &&
	       (!window_period_ms ||
		since % (window_period_ms * 1000000ULL) < window_on_ms * 1000000ULL);
}

static void make_session(struct npuprof_session *s, int ndev)
{
	char err[512];

	snprintf(parent, sizeof(parent), "/tmp/npuprof-test-export-stars-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(parent));
	memset(s, 0, sizeof(*s));
	snprintf(s->hostname, sizeof(s->hostname), "testhost");
	snprintf(s->host_uid, sizeof(s->host_uid), "12345");
	snprintf(s->engine, sizeof(s->engine), "kmod");
	s->start_realtime_ns = REALTIME;
	s->start_monotonic_ns = MONO0;
	s->end_realtime_ns = REALTIME + 2000000000ULL;
	s->pid = (uint32_t)getpid();
	s->sample_n = sample_n;
	s->window_on_ms = window_on_ms;
	s->window_period_ms = window_period_ms;
	s->ndev = ndev;
	for (int d = 0; d < ndev; d++) {
		s->dev[d].id = (uint32_t)d;
		snprintf(s->dev[d].chip, sizeof(s->dev[d].chip), "Ascend910B");
		s->dev[d].counter_hz = HZ;
	}
	ck_assert_int_eq(npuprof_session_create(s, parent, err, sizeof(err)), 0);
}

static struct npuprof_record kernel_rec(int type, uint64_t ts)
{
	struct npuprof_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = (uint16_t)type;
	r.hdr.size = NPUPROF_RECORD_SIZE;
	r.hdr.ts = ts;
	r.hdr.pid = (uint32_t)getpid();
	r.hdr.tid = (uint32_t)getpid() + 1;
	return r;
}

static int by_time(const void *a, const void *b)
{
	const struct npuprof_record *x = a, *y = b;

	return (x->hdr.ts > y->hdr.ts) - (x->hdr.ts < y->hdr.ts);
}

/* The kernel stream: clock samples if asked, and per task the capture kept
 * (all but in a sampled or windowed capture) a submit, a task-time record 1 ms off (the
 * STARS log must win over it) and a completion 500 ns after the end
 * (device 0's task 0: at the end). */
static void write_kernel(const struct npuprof_session *s, int clock)
{
	struct npuprof_record *r = calloc(4 + 3 * N * (size_t)s->ndev, sizeof(*r));
	struct npuprof_rawk_writer *w;
	char path[4400], err[512];
	size_t n = 0;

	ck_assert_ptr_nonnull(r);
	for (int d = 0; d < s->ndev && clock; d++)
		for (int k = 0; k < 2; k++) {
			uint64_t h = T0 + (uint64_t)k * 100000000000ULL;

			r[n] = kernel_rec(NPUPROF_REC_CLOCK_SYNC, h);
			r[n].clock.devid = (uint32_t)d;
			r[n].clock.host_ns = h;
			r[n].clock.dev_cnt = cnt_at(d, h);
			r[n++].clock.counter_hz = HZ;
		}
	for (int d = 0; d < s->ndev; d++)
		for (uint32_t i = 0; i < N; i++) {
			uint64_t end = start_ns(d, i) + DUR;

			if (!kept(d, i))
				continue;
			r[n] = kernel_rec(NPUPROF_REC_SUBMIT, submit_ns(d, i));
			r[n].submit.devid = (uint32_t)d;
			r[n].submit.stream_id = r[n].submit.sq_id = stream_of[d];
			r[n++].submit.task_id = i;
			r[n] = kernel_rec(NPUPROF_REC_TASK_TIME, end - 100);
			r[n].task_time.devid = (uint32_t)d;
			r[n].task_time.stream_id = r[n].task_time.sq_id = stream_of[d];
			r[n].task_time.task_id = i;
			r[n].task_time.start_cnt = cnt_at(d, start_ns(d, i) + 1000000);
			r[n++].task_time.end_cnt = cnt_at(d, end + 1000000);
			r[n] = kernel_rec(NPUPROF_REC_COMPLETE, d == 0 && i == 0 ? end : end + 500);
			r[n].complete.devid = (uint32_t)d;
			r[n].complete.stream_id = stream_of[d];
			r[n++].complete.task_id = i;
		}
	qsort(r, n, sizeof(*r), by_time);
	snprintf(path, sizeof(path), "%s/%s", s->dir, NPUPROF_KERNEL_RAW);
	ck_assert_int_eq(npuprof_rawk_create(&w, path, "kmod", sample_n, 0, err, sizeof(err)), 0);
	for (size_t k = 0; k < n; k++)
		ck_assert_int_eq(npuprof_rawk_append(w, &r[k]), 0);
	ck_assert_int_eq(npuprof_rawk_close(w), 0);
	free(r);
}

static struct npusim_stars_acsq acsq(unsigned func, uint32_t stream, uint32_t task, uint64_t cnt)
{
	struct npusim_stars_acsq a;

	memset(&a, 0, sizeof(a));
	a.head = (uint16_t)func; /* SQE type 0: AI_CORE */
	a.stream_id = (uint16_t)stream;
	a.task_id = (uint16_t)task;
	a.sys_cnt = cnt;
	a.acc = (uint16_t)(stream << 6);
	return a;
}

static void stars_file(const struct npuprof_session *s, int d, char *path, size_t len)
{
	snprintf(path, len, "%s/device_%d/" NPUPROF_STARS_SOC_FILE, s->dir, d);
}

/* Device d's log: a task of stream 9, which the capture does not have (an
 * other process's), then every task of the device's stream. */
static void write_stars(const struct npuprof_session *s, int d)
{
	char path[4400], dir[4400];
	struct npusim_stars_acsq a;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/device_%d/data", s->dir, d);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	stars_file(s, d, path, sizeof(path));
	f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	a = acsq(NPUSIM_STARS_FUNC_START, 9, 0, cnt_at(d, T0));
	fwrite(&a, sizeof(a), 1, f);
	a = acsq(NPUSIM_STARS_FUNC_END, 9, 0, cnt_at(d, T0 + 1000));
	fwrite(&a, sizeof(a), 1, f);
	for (uint32_t i = 0; i < N; i++) {
		a = acsq(NPUSIM_STARS_FUNC_START, stream_of[d], i, cnt_at(d, start_ns(d, i)));
		fwrite(&a, sizeof(a), 1, f);
		a = acsq(NPUSIM_STARS_FUNC_END, stream_of[d], i, cnt_at(d, start_ns(d, i) + DUR));
		fwrite(&a, sizeof(a), 1, f);
	}
	ck_assert_int_eq(fclose(f), 0);
}

static char *export_warnings(const char *dir, int *ret, struct npuprof_export_result *res)
{
	struct npuprof_export_opts o;
	char *buf = NULL, err[1024];
	size_t len = 0;

	memset(&o, 0, sizeof(o));
	o.warn = open_memstream(&buf, &len);
	*ret = npuprof_export(dir, &o, res, err, sizeof(err));
	fclose(o.warn);
	ck_assert_msg(*ret == 0, "%s", err);
	return buf;
}

/* TASK rows of device d whose times are its STARS times, converted. */
static long long stars_timed(sqlite3 *db, int d)
{
	return q_intf(db,
		      "SELECT count(*) FROM TASK WHERE deviceId = %d AND streamId = %u AND "
		      "startNs = %llu + taskId * 10000 AND endNs = startNs + %llu",
		      d, stream_of[d], (unsigned long long)(REALTIME - MONO0 + start_ns(d, 0)),
		      (unsigned long long)DUR);
}

static const char *meta(sqlite3 *db, const char *name, char *buf)
{
	return q_textf(db, buf, 64, "SELECT value FROM META_DATA WHERE name = 'npuprof.%s'", name);
}

START_TEST(test_stars_times)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	char v[64], *w;
	int ret;

	make_session(&s, 2);
	write_kernel(&s, 1);
	write_stars(&s, 0);
	write_stars(&s, 1);
	w = export_warnings(s.dir, &ret, &res);
	ck_assert_int_eq(res.damaged, 0);
	ck_assert_uint_eq(res.tasks, 2 * N);
	ck_assert_uint_eq(res.derived, 0);
	ck_assert_uint_eq(res.orphan_completions, 0);
	ck_assert_uint_eq(res.in_flight, 0);
	ck_assert_uint_eq(res.late, 0);
	ck_assert_uint_eq(res.stars_records, 2 * (2 * N + 2));
	ck_assert_uint_eq(res.stars_tasks, 2 * (N + 1));
	ck_assert_uint_eq(res.stars_unpaired + res.stars_bad, 0);
	ck_assert_uint_eq(res.stars_other, 2);
	ck_assert_msg(!strstr(w, "STARS") && !strstr(w, "stars"), "warnings: %s", w);
	free(w);

	sqlite3 *db = open_ro(res.db_path);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM TASK"), 2 * N);
	ck_assert_int_eq(stars_timed(db, 0), N);
	ck_assert_int_eq(stars_timed(db, 1), N);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM TASK WHERE streamId = 9"), 0);
	ck_assert_str_eq(meta(db, "task_time_source", v), "stars");
	ck_assert_str_eq(meta(db, "stars_devices", v), "2");
	ck_assert_str_eq(meta(db, "stars_records", v), "1204");
	ck_assert_str_eq(meta(db, "stars_tasks", v), "602");
	ck_assert_str_eq(meta(db, "stars_other_stream_tasks", v), "2");
	ck_assert_str_eq(meta(db, "stars_kernel_task_times_ignored", v), "600");
	ck_assert_str_eq(meta(db, "stars_ends_without_start", v), "0");
	ck_assert_str_eq(meta(db, "stars_starts_without_end", v), "0");
	ck_assert_str_eq(meta(db, "stars_truncated_bytes", v), "0");
	ck_assert_str_eq(meta(db, "damaged_inputs", v), "0");
	sqlite3_close(db);
	tu_rm_rf(parent);
}
END_TEST

/* The log cut inside its last record (device 0's last END): damaged; the
 * other tasks keep their STARS times, the last one is derived from its
 * completion. */
START_TEST(test_stars_truncated)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	char path[4400], want[4600], v[64], *w;
	int ret;

	make_session(&s, 1);
	write_kernel(&s, 1);
	write_stars(&s, 0);
	stars_file(&s, 0, path, sizeof(path));
	ck_assert_int_eq(truncate(path, (2 * N + 2) * 64 - 30), 0);
	w = export_warnings(s.dir, &ret, &res);
	snprintf(want, sizeof(want), "%s: offset %d: truncated record (34 bytes)", path,
		 (2 * N + 1) * 64);
	ck_assert_msg(strstr(w, want), "warnings: %s", w);
	ck_assert_msg(strstr(w, "1 starts without an end"), "warnings: %s", w);
	free(w);
	ck_assert_int_eq(res.damaged, 1);
	ck_assert_uint_eq(res.tasks, N);
	ck_assert_uint_eq(res.derived, 1);
	ck_assert_uint_eq(res.stars_tasks, N); /* N - 1 and stream 9's */
	ck_assert_uint_eq(res.stars_unpaired, 1);
	ck_assert_uint_eq(res.stars_bad, 1);

	sqlite3 *db = open_ro(res.db_path);
	ck_assert_int_eq(stars_timed(db, 0), N - 1);
	ck_assert_str_eq(meta(db, "task_time_source", v), "stars+derived");
	ck_assert_str_eq(meta(db, "stars_truncated_bytes", v), "34");
	ck_assert_str_eq(meta(db, "damaged_inputs", v), "1");
	sqlite3_close(db);
	tu_rm_rf(parent);
}
END_TEST

/* No clock samples: the log cannot be placed, and is not used. */
START_TEST(test_stars_without_clock)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	char path[4400], v[64], *w;
	int ret;

	make_session(&s, 1);
	write_kernel(&s, 0);
	write_stars(&s, 0);
	stars_file(&s, 0, path, sizeof(path));
	w = export_warnings(s.dir, &ret, &res);
	ck_assert_msg(strstr(w, path) && strstr(w, "no clock-sync samples"), "warnings: %s", w);
	free(w);
	ck_assert_uint_eq(res.tasks, N);
	ck_assert_uint_eq(res.stars_records, 0);
	sqlite3 *db = open_ro(res.db_path);
	ck_assert_str_eq(meta(db, "stars_devices", v), "0");
	ck_assert_str_eq(meta(db, "stars_kernel_task_times_ignored", v), "0");
	sqlite3_close(db);
	tu_rm_rf(parent);
}
END_TEST

/* No logs: the kernel's task times, and no stars rows. */
START_TEST(test_without_stars)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	char v[64], *w;
	int ret;

	make_session(&s, 1);
	write_kernel(&s, 1);
	w = export_warnings(s.dir, &ret, &res);
	free(w);
	ck_assert_uint_eq(res.tasks, N);
	ck_assert_uint_eq(res.derived, 0);
	sqlite3 *db = open_ro(res.db_path);
	ck_assert_int_eq(stars_timed(db, 0), 0); /* the kernel's times, 1 ms off */
	ck_assert_str_eq(meta(db, "task_time_source", v), "device");
	ck_assert_int_eq(q_int(db,
			       "SELECT count(*) FROM META_DATA WHERE name LIKE 'npuprof.stars%'"),
			 0);
	sqlite3_close(db);
	tu_rm_rf(parent);
}
END_TEST

/* A 1-in-4 capture: the log has every task, the export keeps those the
 * kernel kept (their STARS times, none derived, no task of the log made up)
 * and counts the rest. */
START_TEST(test_stars_sampled)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	char v[64], want[32], *w;
	uint32_t kept = 0;
	int ret;

	sample_n = 4;
	for (uint32_t i = 0; i < N; i++)
		kept += (uint32_t)npuprof_sample_keep(sample_n, 0, stream_of[0], i);
	ck_assert_uint_gt(kept, N / 8);
	ck_assert_uint_lt(kept, N / 2);
	make_session(&s, 1);
	write_kernel(&s, 1);
	write_stars(&s, 0);
	w = export_warnings(s.dir, &ret, &res);
	free(w);
	ck_assert_uint_eq(res.damaged, 0);
	ck_assert_uint_eq(res.tasks, kept);
	ck_assert_uint_eq(res.derived, 0);
	ck_assert_uint_eq(res.orphan_completions, 0);
	ck_assert_uint_eq(res.stars_tasks, N + 1);
	sqlite3 *db = open_ro(res.db_path);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM TASK"), kept);
	ck_assert_int_eq(stars_timed(db, 0), kept);
	ck_assert_str_eq(meta(db, "task_time_source", v), "stars");
	ck_assert_str_eq(meta(db, "sample_n", v), "4");
	snprintf(want, sizeof(want), "%u", N - kept);
	ck_assert_str_eq(meta(db, "stars_sampled_out_tasks", v), want);
	sqlite3_close(db);
	tu_rm_rf(parent);
	sample_n = 0;
}
END_TEST

/* A windowed capture (1 ms of every 2): the log has every task, the
 * kernel stream the tasks whose submits the throttle kept; the export
 * keeps exactly those, with their STARS times, and counts the rest. */
START_TEST(test_stars_windowed)
{
	struct npuprof_session s;
	struct npuprof_export_result res;
	char v[64], want[32], *w;
	uint32_t nkept = 0;
	int ret;

	window_on_ms = 1;
	window_period_ms = 2;
	for (uint32_t i = 0; i < N; i++)
		nkept += (uint32_t)kept(0, i);
	ck_assert_uint_eq(nkept, 200); /* tasks 0-99 and 200-299 */
	make_session(&s, 1);
	write_kernel(&s, 1);
	write_stars(&s, 0);
	w = export_warnings(s.dir, &ret, &res);
	free(w);
	ck_assert_uint_eq(res.damaged, 0);
	ck_assert_uint_eq(res.tasks, nkept);
	ck_assert_uint_eq(res.derived, 0);
	ck_assert_uint_eq(res.orphan_completions, 0);
	ck_assert_uint_eq(res.in_flight, 0);
	ck_assert_uint_eq(res.stars_tasks, N + 1);
	sqlite3 *db = open_ro(res.db_path);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM TASK"), nkept);
	ck_assert_int_eq(stars_timed(db, 0), nkept);
	ck_assert_int_eq(q_int(db, "SELECT count(*) FROM TASK WHERE taskId BETWEEN 100 AND 199"),
			 0);
	ck_assert_str_eq(meta(db, "task_time_source", v), "stars");
	ck_assert_str_eq(meta(db, "window", v), "1/2");
	snprintf(want, sizeof(want), "%u", N - nkept);
	ck_assert_str_eq(meta(db, "stars_throttled_out_tasks", v), want);
	ck_assert_str_eq(meta(db, "stars_sampled_out_tasks", v), "0");
	sqlite3_close(db);
	tu_rm_rf(parent);
	window_on_ms = window_period_ms = 0;
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("export_stars");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_stars_times);
	tcase_add_test(tc, test_stars_truncated);
	tcase_add_test(tc, test_stars_without_clock);
	tcase_add_test(tc, test_without_stars);
	tcase_add_test(tc, test_stars_sampled);
	tcase_add_test(tc, test_stars_windowed);
	suite_add_tcase(s, tc);
	return s;
}
