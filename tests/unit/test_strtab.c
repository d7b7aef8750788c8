/*
 * test_strtab.c - the STRING_IDS interner: dense first-use ids, exact byte
 * round-trip (NULs, non-ASCII, long strings), growth across many strings,
 * the id limit, and memory that depends only on distinct strings.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strtab.h"

START_TEST(dense_first_use_ids)
{
	struct npuprof_strtab *st = npuprof_strtab_new();

	ck_assert_int_eq(npuprof_strtab_intern(st, "a", 1), 0);
	ck_assert_int_eq(npuprof_strtab_intern(st, "b", 1), 1);
	ck_assert_int_eq(npuprof_strtab_intern(st, "a", 1), 0);
	ck_assert_int_eq(npuprof_strtab_intern(st, "", 0), 2);
	ck_assert_int_eq(npuprof_strtab_intern(st, "", 0), 2);
	ck_assert_int_eq(npuprof_strtab_intern(st, "ab", 1), 0); /* length counts */
	ck_assert_int_eq(npuprof_strtab_count(st), 3);
	ck_assert_ptr_null(npuprof_strtab_get(st, 3, NULL));
	npuprof_strtab_free(st);
}
END_TEST

START_TEST(bytes_round_trip)
{
	static const char nul[] = { 'x', 0, 'y', 0 };
	const char *quoted = "\"32,1,224,224\";'it''s'", *cjk = "算子名称 – ü";
	struct npuprof_strtab *st = npuprof_strtab_new();
	size_t big = 1 << 20, len;
	char *longs = malloc(big);
	const char *p;

	memset(longs, 'L', big);
	ck_assert_int_eq(npuprof_strtab_intern(st, nul, 3), 0);
	ck_assert_int_eq(npuprof_strtab_intern(st, nul, 1), 1);
	ck_assert_int_eq(npuprof_strtab_intern(st, quoted, strlen(quoted)), 2);
	ck_assert_int_eq(npuprof_strtab_intern(st, cjk, strlen(cjk)), 3);
	ck_assert_int_eq(npuprof_strtab_intern(st, longs, big), 4);
	ck_assert_int_eq(npuprof_strtab_intern(st, "after", 5), 5);
	p = npuprof_strtab_get(st, 0, &len);
	ck_assert_uint_eq(len, 3);
	ck_assert_int_eq(memcmp(p, nul, 3), 0);
	ck_assert_str_eq(npuprof_strtab_get(st, 3, NULL), cjk);
	p = npuprof_strtab_get(st, 4, &len);
	ck_assert_uint_eq(len, big);
	ck_assert_int_eq(memcmp(p, longs, big), 0);
	ck_assert_int_eq(npuprof_strtab_intern(st, longs, big), 4);
	free(longs);
	npuprof_strtab_free(st);
}
END_TEST

START_TEST(many_strings_and_memory)
{
	struct npuprof_strtab *st = npuprof_strtab_new();
	char buf[32];
	size_t mem;

	for (int i = 0; i < 200000; i++) {
		snprintf(buf, sizeof(buf), "op_%d", i);
		ck_assert_int_eq(npuprof_strtab_intern(st, buf, strlen(buf)), i);
	}
	for (int i = 0; i < 200000; i += 997) {
		snprintf(buf, sizeof(buf), "op_%d", i);
		ck_assert_int_eq(npuprof_strtab_intern(st, buf, strlen(buf)), i);
		ck_assert_str_eq(npuprof_strtab_get(st, (uint32_t)i, NULL), buf);
	}
	/* Lookups of known strings allocate nothing. */
	mem = npuprof_strtab_memory(st);
	for (int r = 0; r < 1000000; r++) {
		snprintf(buf, sizeof(buf), "op_%d", r % 1000);
		npuprof_strtab_intern(st, buf, strlen(buf));
	}
	ck_assert_uint_eq(npuprof_strtab_memory(st), mem);
	/* About 24 B per entry, <= 16 B of slots, the bytes, arena slack. */
	ck_assert_uint_lt(mem, 200000u * 64u);
	npuprof_strtab_free(st);
}
END_TEST

START_TEST(limit)
{
	struct npuprof_strtab *st = npuprof_strtab_new();

	npuprof_strtab_set_limit(st, 2);
	ck_assert_int_eq(npuprof_strtab_intern(st, "a", 1), 0);
	ck_assert_int_eq(npuprof_strtab_intern(st, "b", 1), 1);
	ck_assert_int_eq(npuprof_strtab_intern(st, "c", 1), -ENOSPC);
	ck_assert_int_eq(npuprof_strtab_intern(st, "a", 1), 0);
	npuprof_strtab_free(st);
	npuprof_strtab_free(NULL);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("strtab");
	TCase *tc = tcase_create("strtab");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, dense_first_use_ids);
	tcase_add_test(tc, bytes_round_trip);
	tcase_add_test(tc, many_strings_and_memory);
	tcase_add_test(tc, limit);
	suite_add_tcase(s, tc);
	return s;
}
