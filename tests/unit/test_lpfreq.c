/*
 * test_lpfreq.c — the AI Core frequency's records (profiling channel 132,
 * user/export/lpfreq.c) decoded and turned into AICORE_FREQ rows by
 * msprof's rules: the 888-byte layout, a count over 55 refused whole, an
 * entry of 0 MHz and a partial record at the end counted, the file read
 * across its chunks; changes before the start update the start row,
 * changes after the end are no rows, the end row carries the last
 * frequency, rows come in time order.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lpfreq.h"
#include "uapi/npusim.h"

/* A record of n entries (counter, MHz) given as pairs; count as given. */
static struct npusim_lp_record rec(uint32_t count, uint32_t n, const uint64_t *pairs)
{
	struct npusim_lp_record r;

	memset(&r, 0, sizeof(r));
	r.count = count;
	for (uint32_t i = 0; i < n && i < NPUSIM_LP_ENTRIES; i++) {
		r.entry[i].sys_cnt = pairs[2 * i];
		r.entry[i].freq = (uint32_t)pairs[2 * i + 1];
	}
	return r;
}

START_TEST(test_decode)
{
	const uint64_t a[] = { 100, 1800, 200, 800 };
	const uint64_t b[] = { 300, 0, 400, 1800 };
	struct npusim_lp_record r[3];
	struct lpfreq_entry *e = NULL;
	struct lpfreq_stats st = { 0 };
	unsigned char buf[sizeof(r) + 5];
	size_t n = 0;

	r[0] = rec(2, 2, a);
	r[1] = rec(56, 2, a); /* damaged: more than 55 entries */
	r[2] = rec(2, 2, b); /* an entry of 0 MHz */
	memcpy(buf, r, sizeof(r));
	memset(buf + sizeof(r), 0x5a, 5); /* a cut record */
	ck_assert_int_eq(lpfreq_decode(buf, sizeof(buf), &e, &n, &st), 0);
	ck_assert_uint_eq(st.records, 3);
	ck_assert_uint_eq(st.bad_records, 1);
	ck_assert_uint_eq(st.bad_entries, 1);
	ck_assert_uint_eq(st.tail_bytes, 5);
	ck_assert_uint_eq(st.entries, 3);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(e[0].sys_cnt, 100);
	ck_assert_uint_eq(e[0].freq, 1800);
	ck_assert_uint_eq(e[1].sys_cnt, 200);
	ck_assert_uint_eq(e[1].freq, 800);
	ck_assert_uint_eq(e[2].sys_cnt, 400);
	ck_assert_uint_eq(e[2].freq, 1800);
	free(e);
}
END_TEST

/* count 0 is a valid empty record; 55 is the most; the bytes are msprof's:
 * count at 0, the first entry's counter at 8 and MHz at 16 */
START_TEST(test_layout_and_bounds)
{
	unsigned char buf[NPUSIM_LP_RECORD_SIZE * 2];
	struct lpfreq_entry *e = NULL;
	struct lpfreq_stats st = { 0 };
	uint64_t cnt = 0x1122334455667788ULL;
	uint32_t v;
	size_t n = 0;

	memset(buf, 0, sizeof(buf));
	v = 55;
	memcpy(buf, &v, 4);
	for (int i = 0; i < 55; i++) {
		uint64_t c = cnt + (uint64_t)i;

		v = 1000 + (uint32_t)i;
		memcpy(buf + 8 + 16 * i, &c, 8);
		memcpy(buf + 16 + 16 * i, &v, 4);
	}
	/* the second record: count 0 */
	ck_assert_int_eq(lpfreq_decode(buf, sizeof(buf), &e, &n, &st), 0);
	ck_assert_uint_eq(st.records, 2);
	ck_assert_uint_eq(st.bad_records, 0);
	ck_assert_uint_eq(n, 55);
	ck_assert_uint_eq(e[0].sys_cnt, cnt);
	ck_assert_uint_eq(e[54].sys_cnt, cnt + 54);
	ck_assert_uint_eq(e[54].freq, 1054);
	free(e);
}
END_TEST

/* A file of many records read in chunks, with a partial record at its end. */
START_TEST(test_read_file)
{
	char path[] = "/tmp/npuprof-test-lpfreq-XXXXXX";
	int fd = mkstemp(path);
	struct lpfreq_entry *e = NULL;
	struct lpfreq_stats st = { 0 };
	char err[4400];
	size_t n = 0;
	const int N = 300;

	ck_assert_int_ge(fd, 0);
	for (int i = 0; i < N; i++) {
		uint64_t p[2] = { (uint64_t)i, 800 + (uint64_t)(i % 2) * 1000 };
		struct npusim_lp_record r = rec(1, 1, p);

		ck_assert_int_eq(write(fd, &r, sizeof(r)), (int)sizeof(r));
	}
	ck_assert_int_eq(write(fd, "abc", 3), 3);
	close(fd);
	ck_assert_int_eq(lpfreq_read(path, &e, &n, &st, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, (size_t)N);
	ck_assert_uint_eq(st.records, (uint64_t)N);
	ck_assert_uint_eq(st.tail_bytes, 3);
	for (int i = 0; i < N; i++) {
		ck_assert_uint_eq(e[i].sys_cnt, (uint64_t)i);
		ck_assert_uint_eq(e[i].freq, 800 + (uint32_t)(i % 2) * 1000);
	}
	free(e);
	unlink(path);
	n = 0;
	e = NULL;
	ck_assert_int_eq(lpfreq_read(path, &e, &n, &st, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, path), "%s", err);
}
END_TEST

/* msprof's rows: changes before the start become the start's frequency,
 * each later one a row at its time (sorted), the end row the last one,
 * changes after the end no row. */
START_TEST(test_rows)
{
	struct lpfreq_row c[] = {
		{ 5000, 800 }, { 900, 1200 }, { 500, 1000 }, { 99999, 1500 }, { 7000, 1800 },
	};
	struct lpfreq_row out[7];
	uint64_t after;
	size_t k = lpfreq_rows(1800, 1000, 10000, c, 5, out, &after);

	ck_assert_uint_eq(k, 4);
	ck_assert_uint_eq(after, 1);
	ck_assert_int_eq(out[0].ns, 1000);
	ck_assert_uint_eq(out[0].freq, 1200); /* the last before the start */
	ck_assert_int_eq(out[1].ns, 5000);
	ck_assert_uint_eq(out[1].freq, 800);
	ck_assert_int_eq(out[2].ns, 7000);
	ck_assert_uint_eq(out[2].freq, 1800);
	ck_assert_int_eq(out[3].ns, 10000);
	ck_assert_uint_eq(out[3].freq, 1800);
	/* no changes: the start and end rows of the rated frequency */
	k = lpfreq_rows(1800, 1000, 10000, c, 0, out, &after);
	ck_assert_uint_eq(k, 2);
	ck_assert_uint_eq(out[0].freq, 1800);
	ck_assert_uint_eq(out[1].freq, 1800);
	ck_assert_int_eq(out[1].ns, 10000);
	/* no end: the start row and the changes; a change at the start is a row */
	struct lpfreq_row d[] = { { 1000, 800 }, { 2000, 1800 } };

	k = lpfreq_rows(1800, 1000, 0, d, 2, out, &after);
	ck_assert_uint_eq(k, 3);
	ck_assert_uint_eq(out[0].freq, 1800);
	ck_assert_int_eq(out[1].ns, 1000);
	ck_assert_uint_eq(out[1].freq, 800);
	ck_assert_uint_eq(out[2].freq, 1800);
	/* equal times keep their order (stable) */
	struct lpfreq_row e[] = { { 3000, 800 }, { 3000, 1000 }, { 2000, 1200 } };

	k = lpfreq_rows(1800, 1000, 4000, e, 3, out, &after);
	ck_assert_uint_eq(k, 5);
	ck_assert_uint_eq(out[1].freq, 1200);
	ck_assert_uint_eq(out[2].freq, 800);
	ck_assert_uint_eq(out[3].freq, 1000);
	ck_assert_uint_eq(out[4].freq, 1000);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("lpfreq");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_decode);
	tcase_add_test(tc, test_layout_and_bounds);
	tcase_add_test(tc, test_read_file);
	tcase_add_test(tc, test_rows);
	suite_add_tcase(s, tc);
	return s;
}
