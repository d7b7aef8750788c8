/*
 * test_runtime_value.c - host tests of the stream memory operations of
 * rt_value.c (aclrtValueWrite, aclrtValueWait) that need no device: the
 * conditions' values (CANN's), and what is refused before a task is sent:
 * the runtime not initialised, a reserved flag, an unknown condition, an
 * address that is not 8-byte aligned, no device, a stale stream. Waits
 * that block until a write or a host store are checked on npusim in the VM
 * (tests/sdk/rtapi/rt_value.cpp, suite 40_runtime).
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

static uint64_t g_word[2];

START_TEST(flags)
{
	ck_assert_uint_eq(ACL_STREAM_WAIT_VALUE_GEQ, 0);
	ck_assert_uint_eq(ACL_STREAM_WAIT_VALUE_EQ, 1);
	ck_assert_uint_eq(ACL_STREAM_WAIT_VALUE_AND, 2);
	ck_assert_uint_eq(ACL_STREAM_WAIT_VALUE_NOR, 3);
}
END_TEST

START_TEST(refused)
{
	static char fake[4096]; /* zeroed: no live stream's magic */
	void *mis = (char *)g_word + 4;

	if (getenv("NPUPROF_HAS_NPUSIM"))
		return;
	ck_assert_int_eq(aclrtValueWrite(g_word, 1, 0, NULL), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclrtValueWait(g_word, 1, ACL_STREAM_WAIT_VALUE_EQ, NULL),
			 ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclInit(NULL), ACL_SUCCESS);
	ck_assert_int_eq(aclrtValueWrite(g_word, 1, 1, NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtValueWrite(mis, 1, 0, NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtValueWrite(NULL, 1, 0, NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtValueWait(g_word, 1, 4, NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtValueWait(mis, 1, ACL_STREAM_WAIT_VALUE_GEQ, NULL),
			 ACL_ERROR_INVALID_PARAM);
	/* no device set on this thread: no default stream */
	ck_assert_int_eq(aclrtValueWrite(g_word, 1, 0, NULL), ACL_ERROR_RT_CONTEXT_NULL);
	ck_assert_int_eq(aclrtValueWait(g_word, 1, ACL_STREAM_WAIT_VALUE_NOR, NULL),
			 ACL_ERROR_RT_CONTEXT_NULL);
	ck_assert_int_eq(aclrtValueWrite(g_word, 1, 0, fake), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclrtValueWait(g_word, 1, ACL_STREAM_WAIT_VALUE_AND, fake),
			 ACL_ERROR_RT_PARAM_INVALID);
	/* nothing was written */
	ck_assert_uint_eq(g_word[0], 0);
	ck_assert_int_eq(aclFinalize(), ACL_SUCCESS);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("runtime_value");
	TCase *tc = tcase_create("host");

	tcase_add_test(tc, flags);
	tcase_add_test(tc, refused);
	suite_add_tcase(s, tc);
	return s;
}
