/*
 * test_subscribe.c - model subscription (user/recorder/subscribe.c): the
 * configs, subscribing a model GE registered (and refusing others), the
 * end of the data at unsubscribe, and the getters over CANN's 80-byte
 * signed op descriptors (the signature a CRC-32C, checked against its
 * standard check value).
 */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "profiling/aprof_pub.h"

struct desc {
	uint32_t signature, model_id, flag, thread_id;
	uint64_t op_index, duration, start, end, exec, cube, vector;
	uint32_t dev_id;
};

static uint32_t crc32c_nofinal(const void *data, size_t n)
{
	const uint8_t *p = data;
	uint32_t c = ~0U;

	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82F63B78U & (0U - (c & 1U)));
	}
	return c;
}

static void sign(struct desc *d)
{
	d->signature = crc32c_nofinal((const uint8_t *)d + 4, sizeof(*d) - 4);
}

START_TEST(signature_is_crc32c)
{
	/* CRC-32C("123456789") is 0xE3069283 after the final inversion */
	ck_assert_uint_eq(crc32c_nofinal("123456789", 9), ~0xE3069283U);
	ck_assert_uint_eq(sizeof(struct desc), 80);
}
END_TEST

START_TEST(configs)
{
	int fd = 5;
	aclprofSubscribeConfig *c;
	size_t n = 0;

	ck_assert_int_eq(aclprofGetOpDescSize(&n), ACL_SUCCESS);
	ck_assert_uint_eq(n, 80);
	ck_assert_int_eq(aclprofGetOpDescSize(NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_ptr_null(aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, NULL));
	ck_assert_ptr_null(aclprofCreateSubscribeConfig(-1, ACL_AICORE_NONE, &fd));
	ck_assert_ptr_null(aclprofCreateSubscribeConfig(0, (aclprofAicoreMetrics)9, &fd));
	c = aclprofCreateSubscribeConfig(0, ACL_AICORE_PIPE_UTILIZATION, &fd);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(aclprofDestroySubscribeConfig(c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofDestroySubscribeConfig(NULL), ACL_ERROR_INVALID_PARAM);
}
END_TEST

static void *drain(void *arg)
{
	char buf[160];
	ssize_t n, *total = arg;

	while ((n = read((int)total[1], buf, sizeof(buf))) > 0)
		total[0] += n;
	return NULL;
}

START_TEST(subscribe)
{
	int fd[2];
	ssize_t st[2] = { 0, 0 };
	pthread_t t;
	aclprofSubscribeConfig *c;

	ck_assert_int_eq(pipe(fd), 0);
	c = aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &fd[1]);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(aclprofModelSubscribe(77, c), ACL_ERROR_INVALID_MODEL_ID);
	ck_assert_int_eq(MsprofSetDeviceIdByGeModelIdx(77, 1), 0);
	ck_assert_int_eq(MsprofSetDeviceIdByGeModelIdx(78, 64), -1); /* no such device */
	ck_assert_int_eq(aclprofModelSubscribe(77, NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclprofModelSubscribe(77, c), ACL_SUCCESS);
	ck_assert_int_eq(aclprofModelSubscribe(77, c), ACL_ERROR_PROF_REPEAT_SUBSCRIBE);
	/* a subscribed model stays registered */
	ck_assert_int_ne(MsprofUnsetDeviceIdByGeModelIdx(77, 1), 0);
	st[1] = fd[0];
	ck_assert_int_eq(pthread_create(&t, NULL, drain, st), 0);
	ck_assert_int_eq(aclprofModelUnSubscribe(77), ACL_SUCCESS);
	ck_assert_int_eq(pthread_join(t, NULL), 0); /* EOF: the write end closed */
	ck_assert_int_eq(st[0], 0);
	ck_assert_int_eq(aclprofModelUnSubscribe(77), ACL_ERROR_INVALID_MODEL_ID);
	ck_assert_int_ne(MsprofUnsetDeviceIdByGeModelIdx(77, 0), 0); /* another device */
	ck_assert_int_eq(MsprofUnsetDeviceIdByGeModelIdx(77, 1), 0);
	ck_assert_int_eq(aclprofModelSubscribe(77, c), ACL_ERROR_INVALID_MODEL_ID);
	close(fd[0]);
	aclprofDestroySubscribeConfig(c);
}
END_TEST

START_TEST(getters)
{
	struct desc d[3];
	uint32_t n = 9;
	size_t len;
	char s[4];

	memset(d, 0, sizeof(d));
	for (int i = 0; i < 3; i++) {
		d[i].model_id = 10u + (uint32_t)i;
		d[i].flag = ACL_SUBSCRIBE_OP_THREAD;
		d[i].thread_id = 4242;
		d[i].op_index = 7;
		d[i].start = 1000u * (uint64_t)(i + 1);
		d[i].end = d[i].start + 20;
		d[i].duration = 25;
		sign(&d[i]);
	}
	ck_assert_int_eq(aclprofGetOpNum(d, sizeof(d), &n), ACL_SUCCESS);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(aclprofGetOpNum(d, 0, &n), ACL_SUCCESS);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(aclprofGetOpNum(NULL, 80, &n), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclprofGetOpNum(d, 81, &n), ACL_ERROR_INVALID_PARAM);
	ck_assert_uint_eq(aclprofGetModelId(d, sizeof(d), 2), 12);
	ck_assert_uint_eq(aclprofGetOpStart(d, sizeof(d), 1), 2000);
	ck_assert_uint_eq(aclprofGetOpEnd(d, sizeof(d), 1), 2020);
	ck_assert_uint_eq(aclprofGetOpDuration(d, sizeof(d), 0), 25);
	ck_assert_int_eq(aclprofGetOpFlag(d, sizeof(d), 0), ACL_SUBSCRIBE_OP_THREAD);
	ck_assert_str_eq(aclprofGetOpAttriValue(d, sizeof(d), 0, ACL_SUBSCRIBE_ATTRI_THREADID),
			 "4242");
	ck_assert_uint_eq(aclprofGetOpStart(d, sizeof(d), 3), 0);
	ck_assert_uint_eq(aclprofGetOpStart(d, sizeof(d), UINT32_MAX), 0);
	/* nothing knows op index 7's type or name */
	ck_assert_int_eq(aclprofGetOpTypeLen(d, sizeof(d), 0, &len), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclprofGetOpName(d, sizeof(d), 0, s, sizeof(s)), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclprofGetOpTypeLen(d, sizeof(d), 0, NULL), ACL_ERROR_INVALID_PARAM);
	/* a changed byte: the signature no longer holds */
	d[2].duration = 26;
	ck_assert_int_eq(aclprofGetOpNum(d, sizeof(d), &n), ACL_ERROR_INVALID_PARAM);
	ck_assert_uint_eq(aclprofGetOpDuration(d, sizeof(d), 0), 0);
	ck_assert_uint_eq(aclprofGetModelId(d, sizeof(d), 0), (size_t)ACL_ERROR_INVALID_PARAM);
	ck_assert_uint_eq(aclprofGetOpDuration(d, 2 * sizeof(d[0]), 0), 25);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("subscribe");
	TCase *tc = tcase_create("subscribe");

	tcase_add_test(tc, signature_is_crc32c);
	tcase_add_test(tc, configs);
	tcase_add_test(tc, subscribe);
	tcase_add_test(tc, getters);
	suite_add_tcase(s, tc);
	return s;
}
