/*
 * test_runtime_model.c - host tests of the model run instances of rt_model.c
 * (aclmdlRI*) that need no device: what is refused before a device is
 * needed (arguments, stale handles, the runtime not initialised), and the
 * capture modes of threads (aclmdlRICaptureThreadExchangeMode: per thread,
 * GLOBAL until exchanged; no capture going on, so unsafe calls are
 * allowed in every mode). Capture, build and execution on npusim are
 * checked in the VM (tests/sdk/rtapi/rt_model_ri.cpp, suite 40_runtime).
 */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_npu_op.h"

START_TEST(uninitialised)
{
	aclmdlRI m = NULL;
	aclmdlRICaptureStatus st;
	char stream_mem[256];

	memset(stream_mem, 0, sizeof(stream_mem));
	ck_assert_int_eq(aclmdlRIBuildBegin(&m, 0), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclmdlRICaptureBegin(stream_mem, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
			 ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclmdlRICaptureGetInfo(stream_mem, &st, &m), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclmdlRIExecuteAsync(stream_mem, NULL), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclmdlRIDestroy(stream_mem), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclrtCreateStreamWithConfig(&m, 0, ACL_STREAM_PERSISTENT),
			 ACL_ERROR_UNINITIALIZE);
}
END_TEST

START_TEST(arguments)
{
	aclmdlRI m = NULL;
	aclmdlRICaptureStatus st;
	/* zeroed memory: no live model's or stream's magic */
	static char fake[4096];
	uint32_t id;
	char name[8];

	if (getenv("NPUPROF_HAS_NPUSIM"))
		return;
	ck_assert_int_eq(aclInit(NULL), ACL_SUCCESS);
	/* flag is reserved (0), the handle's place is needed */
	ck_assert_int_eq(aclmdlRIBuildBegin(&m, 1), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclmdlRIBuildBegin(NULL, 0), ACL_ERROR_INVALID_PARAM);
	/* no device set on this thread */
	ck_assert_int_eq(aclmdlRIBuildBegin(&m, 0), ACL_ERROR_RT_CONTEXT_NULL);
	ck_assert_ptr_null(m);
	/* capture modes are 0..2 */
	ck_assert_int_eq(aclmdlRICaptureBegin(fake, (aclmdlRICaptureMode)3),
			 ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclmdlRICaptureBegin(fake, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
			 ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclmdlRICaptureBegin(NULL, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
			 ACL_ERROR_RT_CONTEXT_NULL);
	ck_assert_int_eq(aclmdlRICaptureGetInfo(fake, NULL, &m), ACL_ERROR_INVALID_PARAM);
	/* no stream there: nothing records its tasks (aclnn computes) */
	ck_assert_int_eq(aclnpuStreamRecords(fake), 0);
	ck_assert_int_eq(aclnpuStreamRecords(NULL), 0);
	ck_assert_int_eq(aclmdlRICaptureGetInfo(fake, &st, &m), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclmdlRICaptureEnd(fake, NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclmdlRICaptureEnd(fake, &m), ACL_ERROR_RT_PARAM_INVALID);
	/* a handle that is no live model */
	ck_assert_int_eq(aclmdlRIBindStream(fake, fake, ACL_MODEL_STREAM_FLAG_HEAD),
			 ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclmdlRIBindStream(fake, fake, 5), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclmdlRIBindStream(fake, NULL, ACL_MODEL_STREAM_FLAG_DEFAULT),
			 ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclmdlRIEndTask(fake, fake), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclmdlRIEndTask(fake, NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclmdlRIBuildEnd(fake, fake), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclmdlRIBuildEnd(fake, NULL), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclmdlRIUnbindStream(fake, fake), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclmdlRIExecuteAsync(fake, fake), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclmdlRIExecuteAsync(NULL, fake), ACL_ERROR_INVALID_PARAM);
	/* a timeout is -1 (forever) or > 0 ms */
	ck_assert_int_eq(aclmdlRIExecute(fake, 0), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclmdlRIExecute(fake, -2), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclmdlRIExecute(fake, -1), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclmdlRIDestroy(fake), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclmdlRIDestroy(NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclmdlRIDebugJsonPrint(fake, "/tmp/x.json", 2), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclmdlRIDebugJsonPrint(fake, NULL, 0), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclmdlRIDebugJsonPrint(fake, "/tmp/x.json", 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclmdlRISetName(fake, NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclmdlRISetName(fake, "m"), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclmdlRIGetName(fake, 0, name), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclmdlRIGetName(fake, sizeof(name), name), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclmdlRIGetId(fake, NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclmdlRIGetId(fake, &id), ACL_ERROR_RT_PARAM_INVALID);
	/* the thread's last error is the last refusal */
	ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclFinalize(), ACL_SUCCESS);
}
END_TEST

static void *other_thread_mode(void *arg)
{
	aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;

	(void)arg;
	/* a new thread starts in GLOBAL, whatever the others set */
	if (aclmdlRICaptureThreadExchangeMode(&mode) != ACL_SUCCESS)
		return (void *)1;
	return mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL ? NULL : (void *)2;
}

START_TEST(thread_modes)
{
	aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
	aclmdlRICaptureMode bad = (aclmdlRICaptureMode)7;
	pthread_t th;
	void *res;
	char buf[4];

	ck_assert_int_eq(aclmdlRICaptureThreadExchangeMode(&mode), ACL_SUCCESS);
	ck_assert_int_eq(mode, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
	ck_assert_int_eq(pthread_create(&th, NULL, other_thread_mode, NULL), 0);
	ck_assert_int_eq(pthread_join(th, &res), 0);
	ck_assert_ptr_null(res);
	/* this thread kept its own */
	mode = ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
	ck_assert_int_eq(aclmdlRICaptureThreadExchangeMode(&mode), ACL_SUCCESS);
	ck_assert_int_eq(mode, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
	ck_assert_int_eq(aclmdlRICaptureThreadExchangeMode(&bad), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(bad, 7);
	ck_assert_int_eq(aclmdlRICaptureThreadExchangeMode(NULL), ACL_ERROR_INVALID_PARAM);
	/* with no capture going on, an unsafe call is allowed in every mode */
	if (!getenv("NPUPROF_HAS_NPUSIM")) {
		ck_assert_int_eq(aclInit(NULL), ACL_SUCCESS);
		ck_assert_int_eq(aclrtMemset(buf, sizeof(buf), 1, sizeof(buf)), ACL_SUCCESS);
		mode = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;
		ck_assert_int_eq(aclmdlRICaptureThreadExchangeMode(&mode), ACL_SUCCESS);
		ck_assert_int_eq(aclrtMemcpy(buf, sizeof(buf), "abc", 4, ACL_MEMCPY_HOST_TO_HOST),
				 ACL_SUCCESS);
		ck_assert_str_eq(buf, "abc");
		ck_assert_int_eq(aclFinalize(), ACL_SUCCESS);
	}
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("runtime_model");
	TCase *tc = tcase_create("host");

	tcase_add_test(tc, uninitialised);
	tcase_add_test(tc, arguments);
	tcase_add_test(tc, thread_modes);
	suite_add_tcase(s, tc);
	return s;
}
