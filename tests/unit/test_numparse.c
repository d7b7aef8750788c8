/*
 * test_numparse.c - the checked number parser behind every numeric option
 * (user/common/numparse.c): values that do not fit are refused, never
 * wrapped (issue 18 #4), and the message names the option and the range.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "numparse.h"

START_TEST(test_u64)
{
	static const char *const bad[] = {
		"", " 1", "1 ", "+1", "0x10", "1e3", "1.0", "12a", "1,2"
	};
	char err[256];
	uint64_t v = 7;

	ck_assert_int_eq(num_parse_u64("0", 0, 10, &v, err, sizeof(err)), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(num_parse_u64("18446744073709551615", 0, UINT64_MAX, &v, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	/* one more does not wrap to 0 */
	ck_assert_int_eq(num_parse_u64("18446744073709551616", 0, UINT64_MAX, &v, err, sizeof(err)),
			 -ERANGE);
	ck_assert_int_eq(num_parse_u64("99999999999999999999999", 0, UINT64_MAX, &v, err,
				       sizeof(err)),
			 -ERANGE);
	/* what strtoul accepted and wrapped */
	ck_assert_int_eq(num_parse_u64("-1", 1, UINT32_MAX, &v, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "'-1' is not a whole number from 1 to 4294967295"), "%s", err);
	ck_assert_int_eq(num_parse_u64("4294967297", 1, UINT32_MAX, &v, err, sizeof(err)), -ERANGE);
	ck_assert_msg(strstr(err, "'4294967297' is out of range (1 to 4294967295)"), "%s", err);
	ck_assert_int_eq(num_parse_u64("99999999999", 1, UINT32_MAX, &v, err, sizeof(err)),
			 -ERANGE);
	ck_assert_int_eq(num_parse_u64("0", 1, 10, &v, err, sizeof(err)), -ERANGE);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(num_parse_u64(bad[i], 0, UINT64_MAX, &v, err, sizeof(err)) == -EINVAL,
			      "'%s' accepted", bad[i]);
	ck_assert_int_eq(num_parse_u64(NULL, 0, 1, &v, NULL, 0), -EINVAL);
	ck_assert_uint_eq(v, UINT64_MAX); /* failures leave *out alone */
}
END_TEST

START_TEST(test_double)
{
	static const char *const bad[] = { "", "nan", "NaN", "inf", "-inf", "infinity", "1s", " 1",
					   "0x",
					   /* hex, refused as the integers refuse it */
					   "0x10", "0X1p3", "-0x1" };
	char err[256];
	double v = 0;

	ck_assert_int_eq(num_parse_double("0.5", 0.001, 10, &v, err, sizeof(err)), 0);
	ck_assert(v == 0.5);
	ck_assert_int_eq(num_parse_double("1e3", 0, 1e4, &v, err, sizeof(err)), 0);
	ck_assert_int_eq(num_parse_double("0", 0.001, 10, &v, err, sizeof(err)), -ERANGE);
	ck_assert_int_eq(num_parse_double("-1", 0.001, 10, &v, err, sizeof(err)), -ERANGE);
	ck_assert_int_eq(num_parse_double("1e400", 0, 1e9, &v, err, sizeof(err)), -EINVAL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(num_parse_double(bad[i], -1e9, 1e9, &v, err, sizeof(err)) == -EINVAL,
			      "'%s' accepted", bad[i]);
	ck_assert_msg(strstr(err, "is not a number from"), "%s", err);
}
END_TEST

/* The command-line forms print "<tool>: <option>: ..." to stderr. */
static char *stderr_of(int (*fn)(const char *), const char *arg, int *ret)
{
	char path[] = "/tmp/npuprof-test-numparse-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	char *buf = calloc(1, 4096);

	ck_assert_int_ge(fd, 0);
	fflush(stderr);
	dup2(fd, 2);
	*ret = fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	ck_assert_int_ge(pread(fd, buf, 4095, 0), 0);
	close(fd);
	unlink(path);
	return buf;
}

static uint32_t g_ids[64];

static int devices(const char *arg)
{
	return opt_list("tool", "--devices", arg, 0, 31, g_ids, 32);
}

static int sample(const char *arg)
{
	uint32_t v;

	return opt_u32("tool", "--sample", arg, 1, UINT32_MAX, &v);
}

START_TEST(test_options)
{
	int n;
	char *m;

	m = stderr_of(sample, "4294967296", &n);
	ck_assert_int_eq(n, -1);
	ck_assert_str_eq(m, "tool: --sample: '4294967296' is out of range (1 to 4294967295)\n");
	free(m);
	m = stderr_of(devices, "0,2,5-7", &n);
	ck_assert_int_eq(n, 5);
	ck_assert_uint_eq(g_ids[4], 7);
	free(m);
	m = stderr_of(devices, "4294967296", &n); /* once cast to device 0 */
	ck_assert_int_eq(n, -1);
	ck_assert_msg(strstr(m, "tool: --devices: '4294967296' is out of range (0 to 31)"), "%s",
		      m);
	free(m);
	static const char *const bad[] = { "0,",   ",0", "0,,1", "",  "3-1",
					   "0-32", "32", "-1",	 "a", "0-" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = stderr_of(devices, bad[i], &n);
		ck_assert_msg(n == -1 && strstr(m, "tool: --devices: "), "'%s': %d %s", bad[i], n,
			      m);
		free(m);
	}
	m = stderr_of(devices, "0-31", &n);
	ck_assert_int_eq(n, 32);
	free(m);
}
END_TEST

START_TEST(test_span)
{
	ck_assert_int_eq(span_ns(10, 15), 5);
	ck_assert_int_eq(span_ns(15, 10), 0);
	ck_assert_int_eq(span_ns(INT64_MIN, INT64_MAX), INT64_MAX);
	ck_assert_int_eq(span_ns(-5, INT64_MAX - 1), INT64_MAX);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("numparse");
	TCase *tc = tcase_create("numparse");

	tcase_add_test(tc, test_u64);
	tcase_add_test(tc, test_double);
	tcase_add_test(tc, test_options);
	tcase_add_test(tc, test_span);
	suite_add_tcase(s, tc);
	return s;
}
