/*
 * test_str2id.c - aclprofStr2Id against vectors computed independently from
 * the documented algorithm (reference 6.7: h29 = h29*29 + c, h131 =
 * h131*131 + c over the bytes as C char, id = h29 << 32 | h131), with
 * Python while writing this test. Non-ASCII vectors depend on the
 * signedness of char, so each has both expectations.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_prof.h"
#include "hostrec.h"

static const struct {
	const char *s;
	uint64_t id_signed_char; /* x86-64 */
	uint64_t id_unsigned_char; /* AArch64 */
} vectors[] = {
	/* the four vectors of the reference */
	{ "a", 0x0000006100000061ULL, 0x0000006100000061ULL },
	{ "ab", 0x00000B5F00003205ULL, 0x00000B5F00003205ULL },
	{ "MatMul", 0x626628205D1C5684ULL, 0x626628205D1C5684ULL },
	{ "launch", 0x884D2DB3D24C61FBULL, 0x884D2DB3D24C61FBULL },
	/* computed with Python from the algorithm */
	{ "aclnnMuls", 0xF7576A5D8F6B5A79ULL, 0xF7576A5D8F6B5A79ULL },
	{ "hcom_allReduce_", 0x9A4A934674463CCEULL, 0x9A4A934674463CCEULL },
	{ "default", 0x5959527DDC8B8BF9ULL, 0x5959527DDC8B8BF9ULL },
	{ "ProfilerStep#50", 0xFD298DD3473D8D8DULL, 0xFD298DD3473D8D8DULL },
	{ "The quick brown fox jumps over the lazy dog", 0xBEEFA1E5C5181667ULL,
	  0xBEEFA1E5C5181667ULL },
	/* UTF-8: "é" is the reference's own example */
	{ "\xC3\xA9", 0xFFFFF8C0FFFFE072ULL, 0x000016C000006472ULL },
	{ "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E", 0x4125A094CDF2F596ULL, 0x284D59942C276696ULL },
};

static int char_is_signed(void)
{
	return (char)0x80 < 0;
}

START_TEST(test_vectors)
{
	uint64_t want = char_is_signed() ? vectors[_i].id_signed_char :
					   vectors[_i].id_unsigned_char;

	ck_assert_msg(aclprofStr2Id(vectors[_i].s) == want,
		      "Str2Id(\"%s\") = 0x%016llx, want 0x%016llx", vectors[_i].s,
		      (unsigned long long)aclprofStr2Id(vectors[_i].s), (unsigned long long)want);
	ck_assert_uint_eq(npuprof_str2id_hash(vectors[_i].s, strlen(vectors[_i].s)), want);
}
END_TEST

START_TEST(test_long_string_wraps)
{
	char s[201];

	/* 200 x 'x': both accumulators wrap many times (Python: 0x2cecf140df21d580) */
	memset(s, 'x', 200);
	s[200] = '\0';
	ck_assert_uint_eq(aclprofStr2Id(s), 0x2CECF140DF21D580ULL);
}
END_TEST

START_TEST(test_failure_values)
{
	ck_assert_uint_eq(aclprofStr2Id(""), UINT64_MAX); /* documented failure value */
	ck_assert_uint_eq(aclprofStr2Id(NULL), UINT64_MAX); /* CANN crashes here */
	ck_assert_uint_eq(npuprof_str2id_hash("abc", 0), UINT64_MAX);
}
END_TEST

START_TEST(test_memoised_and_collisions)
{
	/* Ids are a pure function of the bytes, so repeated calls, calls from
     * other threads and calls after many other strings agree. */
	uint64_t first = aclprofStr2Id("MatMul");
	char buf[32];

	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "op_%d", i);
		ck_assert_uint_eq(aclprofStr2Id(buf), npuprof_str2id_hash(buf, strlen(buf)));
	}
	ck_assert_uint_eq(aclprofStr2Id("MatMul"), first);
	/* only the bytes before the NUL count */
	ck_assert_uint_eq(aclprofStr2Id("ab\0cd"), 0x00000B5F00003205ULL);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("str2id");
	TCase *tc = tcase_create("hash");

	tcase_add_loop_test(tc, test_vectors, 0, (int)(sizeof(vectors) / sizeof(vectors[0])));
	tcase_add_test(tc, test_long_string_wraps);
	tcase_add_test(tc, test_failure_values);
	tcase_add_test(tc, test_memoised_and_collisions);
	suite_add_tcase(s, tc);
	return s;
}
