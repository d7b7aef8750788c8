/*
 * test_stars.c — the STARS SoC log reader (user/export/stars.c) on crafted
 * ACSQ_TASK records: pairing across interleaved streams, task ids reused
 * after a wrap, every kind of unpaired or bad record counted, the end order
 * restored, a truncated file's tail named by offset, and a log of a million
 * records read in chunks.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stars.h"
#include "uapi/npusim.h"

/* A record: func, SQE type, stream, task, counter, SQ and accelerator. */
static struct npusim_stars_acsq rec(unsigned func, unsigned sqe, unsigned stream, unsigned task,
				    uint64_t cnt, unsigned sq, unsigned acc)
{
	struct npusim_stars_acsq a;

	memset(&a, 0, sizeof(a));
	a.head = (uint16_t)(func | sqe << 10);
	a.stream_id = (uint16_t)stream;
	a.task_id = (uint16_t)task;
	a.sys_cnt = cnt;
	a.acc = (uint16_t)(acc | sq << 6);
	return a;
}

#define START(...) rec(NPUSIM_STARS_FUNC_START, __VA_ARGS__)
#define END(...) rec(NPUSIM_STARS_FUNC_END, __VA_ARGS__)

/* Every task of the buffer, into t (at most max); returns the count. */
static size_t read_all(const struct npusim_stars_acsq *a, size_t n, struct stars_task *t,
		       size_t max, struct stars_stats *st)
{
	struct stars_reader *r;
	struct stars_task one;
	char err[256];
	size_t got = 0;
	int ret;

	ck_assert_int_eq(stars_open_buffer(&r, a, n * sizeof(*a)), 0);
	while ((ret = stars_next(r, &one, err, sizeof(err))) == 1) {
		if (got < max)
			t[got] = one;
		got++;
	}
	ck_assert_int_eq(ret, 0);
	*st = *stars_stats(r);
	stars_close(r);
	return got;
}

START_TEST(test_interleaved_streams)
{
	struct npusim_stars_acsq a[] = {
		START(0, 1, 7, 100, 1, 2), START(11, 2, 7, 105, 4, 0), END(0, 1, 7, 110, 1, 2),
		START(0, 1, 8, 111, 1, 2), END(11, 2, 7, 130, 4, 0),   START(11, 2, 8, 131, 4, 0),
		END(0, 1, 8, 140, 1, 2),   END(11, 2, 8, 150, 4, 0),
	};
	struct stars_task t[8];
	struct stars_stats st;

	ck_assert_uint_eq(read_all(a, 8, t, 8, &st), 4);
	ck_assert_uint_eq(st.records, 8);
	ck_assert_uint_eq(st.tasks, 4);
	ck_assert_uint_eq(st.unstarted + st.unended + st.unknown + st.backwards + st.late, 0);
	ck_assert_uint_eq(st.tail_bytes, 0);
	/* in end order, each with its own start */
	ck_assert_uint_eq(t[0].stream_id, 1);
	ck_assert_uint_eq(t[0].task_id, 7);
	ck_assert_uint_eq(t[0].start_cnt, 100);
	ck_assert_uint_eq(t[0].end_cnt, 110);
	ck_assert_uint_eq(t[0].sqe_type, 0);
	ck_assert_uint_eq(t[0].sq_id, 1);
	ck_assert_uint_eq(t[0].acc_id, 2);
	ck_assert_uint_eq(t[1].stream_id, 2);
	ck_assert_uint_eq(t[1].task_id, 7);
	ck_assert_uint_eq(t[1].start_cnt, 105);
	ck_assert_uint_eq(t[1].end_cnt, 130);
	ck_assert_uint_eq(t[1].sqe_type, 11);
	ck_assert_uint_eq(t[1].sq_id, 4);
	ck_assert_uint_eq(t[2].stream_id, 1);
	ck_assert_uint_eq(t[2].task_id, 8);
	ck_assert_uint_eq(t[2].start_cnt, 111);
	ck_assert_uint_eq(t[3].stream_id, 2);
	ck_assert_uint_eq(t[3].start_cnt, 131);
	ck_assert_uint_eq(t[3].end_cnt, 150);
}
END_TEST

/* The same task id 65536 tasks later is a new task: each pair is its own. */
START_TEST(test_task_id_wrap)
{
	enum {
		N = 65536 + 100
	};
	struct npusim_stars_acsq *a = malloc(2 * N * sizeof(*a));
	struct stars_task *t = malloc(N * sizeof(*t));
	struct stars_stats st;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(t);
	for (uint32_t i = 0; i < N; i++) {
		a[2 * i] = START(0, 3, (65500 + i) & 0xffff, 1000 + 10 * (uint64_t)i, 3, 0);
		a[2 * i + 1] = END(0, 3, (65500 + i) & 0xffff, 1005 + 10 * (uint64_t)i, 3, 0);
	}
	ck_assert_uint_eq(read_all(a, 2 * N, t, N, &st), N);
	ck_assert_uint_eq(st.unstarted + st.unended + st.late, 0);
	for (uint32_t i = 0; i < N; i++) {
		ck_assert_uint_eq(t[i].task_id, (65500 + i) & 0xffff);
		ck_assert_uint_eq(t[i].start_cnt, 1000 + 10 * (uint64_t)i);
		ck_assert_uint_eq(t[i].end_cnt, t[i].start_cnt + 5);
	}
	free(a);
	free(t);
}
END_TEST

/* Records that pair with nothing are counted, one kind each, and only the
 * good task comes out. */
START_TEST(test_unpaired_and_bad)
{
	struct npusim_stars_acsq a[] = {
		END(0, 1, 1, 50, 0, 0), /* its start was before the log */
		START(0, 1, 2, 60, 0, 0),
		rec(5, 0, 1, 2, 61, 0, 0), /* an unknown function type */
		END(0, 1, 2, 70, 0, 0), /* the good one */
		START(0, 1, 3, 80, 0, 0),
		END(0, 1, 3, 79, 0, 0), /* ends before it started */
		START(0, 2, 9, 81, 0, 0), /* started twice: the first never ended */
		START(0, 2, 9, 82, 0, 0),
		START(0, 1, 4, 90, 0, 0), /* never ended (the log stopped) */
	};
	struct stars_task t[4];
	struct stars_stats st;

	ck_assert_uint_eq(read_all(a, sizeof(a) / sizeof(a[0]), t, 4, &st), 1);
	ck_assert_uint_eq(t[0].task_id, 2);
	ck_assert_uint_eq(t[0].start_cnt, 60);
	ck_assert_uint_eq(t[0].end_cnt, 70);
	ck_assert_uint_eq(st.records, 9);
	ck_assert_uint_eq(st.tasks, 1);
	ck_assert_uint_eq(st.unstarted, 1);
	ck_assert_uint_eq(st.unknown, 1);
	ck_assert_uint_eq(st.backwards, 1);
	ck_assert_uint_eq(st.unended, 3); /* 9's first start, 9's second, 4 */
}
END_TEST

/* Tasks come out in the order the device wrote their ENDs, each stream's in
 * its own order (what the correlation needs), whatever their counters: a
 * task ending before the one before it (a replay's subtasks, run inside
 * their container) is counted late; tasks of one stream ending at one tick
 * keep their order. */
START_TEST(test_end_order)
{
	enum {
		N = 1000
	};
	struct npusim_stars_acsq a[2 * N + 4];
	struct stars_task t[N + 2];
	struct stars_stats st;
	size_t n = 0;

	/* stream 1's ends 3 ticks behind stream 2's, written before them */
	for (uint32_t i = 0; i < N / 2; i++) {
		uint64_t c = 100 + 10 * (uint64_t)i;

		a[n++] = START(0, 1, i, c, 0, 0);
		a[n++] = START(0, 2, i, c, 0, 0);
		a[n++] = END(0, 1, i, c + 8, 0, 0);
		a[n++] = END(0, 2, i, c + 5, 0, 0);
	}
	ck_assert_uint_eq(read_all(a, n, t, N, &st), N);
	for (size_t i = 0; i < N; i++) {
		ck_assert_uint_eq(t[i].stream_id, 1 + i % 2);
		ck_assert_uint_eq(t[i].task_id, i / 2);
	}
	ck_assert_uint_eq(st.late, N / 2); /* each stream-2 task after its stream-1 twin */

	/* zero-length tasks 5, 6 of stream 3 at one tick: 5 first */
	n = 0;
	a[n++] = START(0, 3, 5, 40, 0, 0);
	a[n++] = END(0, 3, 5, 40, 0, 0);
	a[n++] = START(0, 3, 6, 40, 0, 0);
	a[n++] = END(0, 3, 6, 40, 0, 0);
	ck_assert_uint_eq(read_all(a, n, t, N, &st), 2);
	ck_assert_uint_eq(t[0].task_id, 5);
	ck_assert_uint_eq(t[1].task_id, 6);
	ck_assert_uint_eq(st.late, 0);

	/* a container (task 0, ticks 0..1000) ended after its subtasks 1..3,
	 * which ran inside it: the container first, as the device wrote it */
	n = 0;
	a[n++] = START(0, 4, 0, 0, 0, 0);
	a[n++] = END(0, 4, 0, 1000, 0, 0);
	for (uint32_t i = 1; i <= 3; i++) {
		a[n++] = START(0, 4, i, 100 * i, 0, 0);
		a[n++] = END(0, 4, i, 100 * i + 50, 0, 0);
	}
	ck_assert_uint_eq(read_all(a, n, t, N, &st), 4);
	for (uint32_t i = 0; i < 4; i++)
		ck_assert_uint_eq(t[i].task_id, i);
	ck_assert_uint_eq(st.late, 3);
	ck_assert_uint_eq(st.tasks, 4);
}
END_TEST

static void write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

/* A file cut inside a record: the whole records before it count, the tail
 * is kept with its offset. */
START_TEST(test_truncated_tail)
{
	struct npusim_stars_acsq a[] = {
		START(0, 1, 1, 10, 0, 0),
		END(0, 1, 1, 20, 0, 0),
		START(0, 1, 2, 30, 0, 0),
		END(0, 1, 2, 40, 0, 0),
	};
	char path[] = "/tmp/npuprof-test-stars-XXXXXX", err[256];
	struct stars_reader *r;
	struct stars_task t;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	write_file(path, a, 3 * sizeof(a[0]) + 10); /* the last END's first 10 bytes */
	ck_assert_int_eq(stars_open(&r, path, err, sizeof(err)), 0);
	ck_assert_int_eq(stars_next(r, &t, err, sizeof(err)), 1);
	ck_assert_uint_eq(t.task_id, 1);
	ck_assert_int_eq(stars_next(r, &t, err, sizeof(err)), 0);
	ck_assert_uint_eq(stars_stats(r)->records, 3);
	ck_assert_uint_eq(stars_stats(r)->tail_bytes, 10);
	ck_assert_uint_eq(stars_stats(r)->tail_offset, 192);
	ck_assert_uint_eq(stars_stats(r)->unended, 1);
	stars_close(r);

	/* whole: no tail */
	write_file(path, a, sizeof(a));
	ck_assert_int_eq(stars_open(&r, path, err, sizeof(err)), 0);
	while (stars_next(r, &t, err, sizeof(err)) == 1)
		;
	ck_assert_uint_eq(stars_stats(r)->tasks, 2);
	ck_assert_uint_eq(stars_stats(r)->tail_bytes, 0);
	stars_close(r);

	unlink(path);
	ck_assert_int_eq(stars_open(&r, path, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, path) != NULL, "%s", err);
}
END_TEST

/* A million records of eight interleaved streams, from a file read in
 * chunks (records cut across reads), one task at a time. */
START_TEST(test_large_log)
{
	enum {
		TASKS = 500000,
		STREAMS = 8,
		BATCH = 4096
	};
	char path[] = "/tmp/npuprof-test-stars-XXXXXX", err[256];
	struct npusim_stars_acsq *a = malloc(BATCH * sizeof(*a));
	struct stars_reader *r;
	struct stars_task t;
	uint64_t n = 0, prev = 0, sum = 0;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "wb");
	size_t k = 0;

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(a);
	/* each stream runs one task at a time: every stream starts, then
	 * every stream ends, round after round */
	for (uint32_t round = 0; round < TASKS / STREAMS; round++) {
		uint64_t c = 1000 + 100 * (uint64_t)round;

		for (uint32_t s = 0; s < STREAMS; s++)
			a[k++] = START(0, s, round & 0xffff, c + s, s, 0);
		for (uint32_t s = 0; s < STREAMS; s++)
			a[k++] = END(0, s, round & 0xffff, c + 50 + s, s, 0);
		if (k == BATCH) {
			ck_assert_uint_eq(fwrite(a, sizeof(*a), k, f), k);
			k = 0;
		}
	}
	ck_assert_uint_eq(fwrite(a, sizeof(*a), k, f), k);
	ck_assert_int_eq(fputc(0, f), 0); /* and a 1-byte tail */
	ck_assert_int_eq(fclose(f), 0);
	free(a);

	ck_assert_int_eq(stars_open(&r, path, err, sizeof(err)), 0);
	while (stars_next(r, &t, err, sizeof(err)) == 1) {
		ck_assert_uint_ge(t.end_cnt, prev);
		ck_assert_uint_eq(t.end_cnt - t.start_cnt, 50);
		prev = t.end_cnt;
		sum += t.stream_id;
		n++;
	}
	ck_assert_uint_eq(n, TASKS);
	ck_assert_uint_eq(sum, (uint64_t)TASKS / STREAMS * (STREAMS * (STREAMS - 1) / 2));
	ck_assert_uint_eq(stars_stats(r)->records, 2 * (uint64_t)TASKS);
	ck_assert_uint_eq(stars_stats(r)->unstarted + stars_stats(r)->unended, 0);
	ck_assert_uint_eq(stars_stats(r)->tail_bytes, 1);
	ck_assert_uint_eq(stars_stats(r)->tail_offset, 2 * (uint64_t)TASKS * 64);
	stars_close(r);
	unlink(path);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("stars");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_interleaved_streams);
	tcase_add_test(tc, test_task_id_wrap);
	tcase_add_test(tc, test_unpaired_and_bad);
	tcase_add_test(tc, test_end_order);
	tcase_add_test(tc, test_truncated_tail);
	tcase_add_test(tc, test_large_log);
	suite_add_tcase(s, tc);
	return s;
}
