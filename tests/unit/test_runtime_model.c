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

/* Labels, task groups, events in models: what is refused before a device
 * is needed (the branching, the updates and the events run on npusim:
 * tests/sdk/rtapi/rt_label.cpp and rt_model_events.cpp). */
START_TEST(labels_groups_events)
{
	static char fake[4096];
	aclrtLabel l[2], dead;
	aclrtLabelList ll;
	aclrtTaskGrp g;
	uint32_t idx = 0;

	if (getenv("NPUPROF_HAS_NPUSIM"))
		return;
	ck_assert_int_eq(aclrtCreateLabel(&l[0]), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclrtResetEvent(fake, fake), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclInit(NULL), ACL_SUCCESS);
	ck_assert_int_eq(aclrtCreateLabel(NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtCreateLabel(&l[0]), ACL_SUCCESS);
	ck_assert_int_eq(aclrtCreateLabel(&l[1]), ACL_SUCCESS);
	ck_assert_int_eq(aclrtCreateLabel(&dead), ACL_SUCCESS);
	ck_assert_int_eq(aclrtDestroyLabel(dead), ACL_SUCCESS);
	/* a destroyed label is refused, also in a list */
	ck_assert_int_eq(aclrtDestroyLabel(dead), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclrtDestroyLabel(NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtCreateLabelList(&dead, 1, &ll), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclrtCreateLabelList(l, 0, &ll), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtCreateLabelList(l, 2, NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtCreateLabelList(l, 2, &ll), ACL_SUCCESS);
	/* a label is put on / a switch is in a stream bound to a model only */
	ck_assert_int_eq(aclrtSetLabel(l[0], NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtSetLabel(l[0], fake), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclrtSetLabel(dead, fake), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclrtSwitchLabelByIndex(NULL, 2, ll, fake), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtSwitchLabelByIndex(&idx, 0, ll, fake), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtSwitchLabelByIndex(&idx, 2, NULL, fake), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtSwitchLabelByIndex(&idx, 2, ll, fake), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclrtDestroyLabelList(ll), ACL_SUCCESS);
	ck_assert_int_eq(aclrtDestroyLabelList(ll), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclrtDestroyLabelList(NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtDestroyLabel(l[0]), ACL_SUCCESS);
	ck_assert_int_eq(aclrtDestroyLabel(l[1]), ACL_SUCCESS);

	/* task groups: a handle is needed; a group that is none is refused */
	ck_assert_int_eq(aclmdlRICaptureTaskGrpEnd(fake, NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclmdlRICaptureTaskGrpBegin(fake), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclmdlRICaptureTaskGrpEnd(fake, &g), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclmdlRICaptureTaskUpdateBegin(fake, NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclmdlRICaptureTaskUpdateBegin(fake, fake), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclmdlRICaptureTaskUpdateEnd(fake), ACL_ERROR_RT_PARAM_INVALID);

	/* events with flags: unknown flags, a timeout (npusim's waits are not
	 * cut; an external wait takes none) */
	ck_assert_int_eq(aclrtRecordEventWithFlag(fake, fake, 2), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtStreamWaitEventWithFlag(fake, fake, 0, 2), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtStreamWaitEventWithFlag(fake, fake, 3, ACL_EVENT_WAIT_DEFAULT),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	ck_assert_int_eq(aclrtStreamWaitEventWithFlag(fake, fake, 3, ACL_EVENT_WAIT_EXTERNAL),
			 ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtRecordEventWithFlag(fake, fake, ACL_EVENT_RECORD_EXTERNAL),
			 ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclrtResetEvent(fake, fake), ACL_ERROR_RT_PARAM_INVALID);
	ck_assert_int_eq(aclFinalize(), ACL_SUCCESS);
}
END_TEST

/* An operator's host computation (aclnpuOpDesc.hostCompute): its argument
 * is copied for a model, so it is bounded and must be there. */
static void never(const void *arg)
{
	(void)arg;
	ck_abort_msg("computed although the launch was refused");
}

START_TEST(host_compute_args)
{
	aclnpuOpDesc d;
	static char arg[8];

	memset(&d, 0, sizeof(d));
	d.size = sizeof(d);
	d.opName = "Add_0";
	d.opType = "Add";
	d.taskKind = ACLNPU_TASK_AI_VECTOR_CORE;
	d.blockDim = 1;
	d.hostCompute = never;
	d.hostArgSize = sizeof(arg);
	ck_assert_int_eq(aclnpuLaunchOp(&d, NULL), ACL_ERROR_INVALID_PARAM);
	d.hostArg = arg;
	d.hostArgSize = ACLNPU_HOST_ARG_MAX + 1;
	ck_assert_int_eq(aclnpuLaunchOp(&d, NULL), ACL_ERROR_INVALID_PARAM);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("runtime_model");
	TCase *tc = tcase_create("host");

	tcase_add_test(tc, uninitialised);
	tcase_add_test(tc, arguments);
	tcase_add_test(tc, thread_modes);
	tcase_add_test(tc, labels_groups_events);
	tcase_add_test(tc, host_compute_args);
	suite_add_tcase(s, tc);
	return s;
}
