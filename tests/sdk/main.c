/*
 * The shape of CANN's 1_msproftx profiling sample, written against the
 * installed SDK only: aclInit, a device and a stream, a profiling session
 * with stamps, a MarkEx device marker and step markers, then teardown.
 *
 *   acl_sample [PROF_DIR]
 * Without devices (no npusim) it checks the runtime reports that cleanly
 * and exits 0; with a device it runs the whole sample.
 */
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_prof.h"

#define CHECK(x)                                                          \
	do {                                                              \
		aclError e_ = (x);                                        \
		if (e_ != ACL_SUCCESS) {                                  \
			fprintf(stderr, "acl_sample: %s = %d\n", #x, e_); \
			return 1;                                         \
		}                                                         \
	} while (0)

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "./prof";
	uint32_t devices[1] = { 0 }, count = 0;
	aclrtStream stream = NULL;
	aclprofConfig *config;
	aclprofStepInfo *step;
	void *stamp;

	CHECK(aclInit(NULL));
	CHECK(aclrtGetDeviceCount(&count));
	if (count == 0) {
		if (aclrtSetDevice(0) != ACL_ERROR_RT_INVALID_DEVICEID)
			return 1;
		CHECK(aclFinalize());
		printf("acl_sample: no device; runtime and profiling libraries linked and initialised\n");
		return 0;
	}
	CHECK(aclrtSetDevice(0));
	CHECK(aclrtCreateStream(&stream));
	CHECK(aclprofInit(dir, strlen(dir)));
	config = aclprofCreateConfig(devices, 1, ACL_AICORE_ARITHMETIC_UTILIZATION, NULL,
				     ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX);
	if (!config)
		return 1;
	CHECK(aclprofStart(config));
	step = aclprofCreateStepInfo();
	CHECK(aclprofGetStepTimestamp(step, ACL_STEP_START, stream));
	stamp = aclprofCreateStamp();
	CHECK(aclprofSetStampTraceMessage(stamp, "sample", 6));
	CHECK(aclprofPush(stamp));
	CHECK(aclprofMarkEx("sample mark", 11, stream));
	CHECK(aclprofPop());
	aclprofDestroyStamp(stamp);
	CHECK(aclprofGetStepTimestamp(step, ACL_STEP_END, stream));
	CHECK(aclrtSynchronizeStream(stream));
	aclprofDestroyStepInfo(step);
	CHECK(aclprofStop(config));
	CHECK(aclprofDestroyConfig(config));
	CHECK(aclprofFinalize());
	CHECK(aclrtDestroyStream(stream));
	CHECK(aclrtResetDeviceForce(0));
	CHECK(aclFinalize());
	printf("acl_sample: ran on device 0, profile in %s\n", dir);
	return 0;
}
