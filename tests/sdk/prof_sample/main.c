/*
 * A profiling sample written the way CANN's are (acl headers only):
 *
 *   aclInit, aclrtSetDevice, aclrtCreateStream, aclprofInit(dir),
 *   aclprofCreateConfig(devices, ACL_AICORE_ARITHMETIC_UTILIZATION,
 *   ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_MSPROFTX |
 *   ACL_PROF_RUNTIME_API),
 *   aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "15"), aclprofStart,
 *   device work with msproftx stamps, aclprofStop, aclprofFinalize.
 *
 *   prof_sample DIR [ROUNDS] [--no-prof]
 * Each round launches two async copies (H2D, D2H) and one event record
 * inside a Push/Pop range; the run adds a Mark, a RangeStart/Stop and one
 * MarkEx device marker. On exit it prints what it did, one "key=value" a
 * line, for the test to compare with the exported database:
 *   tasks.MEMCPY_ASYNC=  tasks.EVENT_RECORD=  tasks.MsTx=  stamps=
 *   api.aclrtMemcpyAsync=  api.aclrtRecordEvent=  api.aclrtSynchronizeStream=
 * (the calls inside the collection; with ACL_PROF_RUNTIME_API the runtime
 * adds a runtime-level CANN_API row under each: MemcpyAsync, EventRecord,
 * StreamSynchronize)
 * --no-prof runs the same work without the profiling calls (a baseline).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_prof.h"

#define CHECK(x)                                                           \
	do {                                                               \
		aclError e_ = (x);                                         \
		if (e_ != ACL_SUCCESS) {                                   \
			fprintf(stderr, "prof_sample: %s = %d\n", #x, e_); \
			return 1;                                          \
		}                                                          \
	} while (0)

#define BYTES 4096

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "./output";
	long rounds = argc > 2 ? strtol(argv[2], NULL, 10) : 8;
	int prof = !(argc > 3 && strcmp(argv[3], "--no-prof") == 0);
	uint32_t devices[1] = { 0 };
	aclrtStream stream = NULL;
	aclrtEvent event = NULL;
	aclprofConfig *config = NULL;
	void *host = NULL, *dev = NULL, *stamp = NULL, *range = NULL;
	uint32_t range_id = 0;
	long copies = 0, events = 0, markers = 0, stamps = 0, syncs = 0;

	if (rounds < 1)
		rounds = 1;
	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(0));
	CHECK(aclrtCreateStream(&stream));
	CHECK(aclrtCreateEvent(&event));
	CHECK(aclrtMallocHost(&host, BYTES));
	CHECK(aclrtMalloc(&dev, BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
	memset(host, 7, BYTES);

	if (prof) {
		CHECK(aclprofInit(dir, strlen(dir)));
		config = aclprofCreateConfig(devices, 1, ACL_AICORE_ARITHMETIC_UTILIZATION, NULL,
					     ACL_PROF_ACL_API | ACL_PROF_TASK_TIME |
						     ACL_PROF_MSPROFTX | ACL_PROF_RUNTIME_API);
		if (!config) {
			fprintf(stderr, "prof_sample: aclprofCreateConfig failed\n");
			return 1;
		}
		CHECK(aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "15", 2));
		CHECK(aclprofStart(config));
		stamp = aclprofCreateStamp();
		range = aclprofCreateStamp();
		if (!stamp || !range) {
			fprintf(stderr, "prof_sample: aclprofCreateStamp failed\n");
			return 1;
		}
		CHECK(aclprofSetStampTraceMessage(stamp, "round", 5));
		CHECK(aclprofSetStampTraceMessage(range, "all rounds", 10));
		CHECK(aclprofMark(stamp));
		stamps++;
		CHECK(aclprofRangeStart(range, &range_id));
	}
	for (long i = 0; i < rounds; i++) {
		if (prof && i < 16)
			CHECK(aclprofPush(stamp));
		CHECK(aclrtMemcpyAsync(dev, BYTES, host, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, stream));
		CHECK(aclrtMemcpyAsync(host, BYTES, dev, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, stream));
		CHECK(aclrtRecordEvent(event, stream));
		copies += 2;
		events++;
		if (prof && i < 16) {
			CHECK(aclprofPop());
			stamps++;
		}
		if ((i & 255) == 255) {
			CHECK(aclrtSynchronizeStream(stream));
			syncs++;
		}
	}
	if (prof) {
		CHECK(aclprofMarkEx("sample done", 11, stream));
		markers++;
		stamps++;
		CHECK(aclprofRangeStop(range_id));
		stamps++;
	}
	CHECK(aclrtSynchronizeStream(stream));
	syncs++;
	if (prof) {
		aclprofDestroyStamp(stamp);
		aclprofDestroyStamp(range);
		CHECK(aclprofStop(config));
		CHECK(aclprofDestroyConfig(config));
		CHECK(aclprofFinalize());
	}
	CHECK(aclrtFree(dev));
	CHECK(aclrtFreeHost(host));
	CHECK(aclrtDestroyEvent(event));
	CHECK(aclrtDestroyStream(stream));
	CHECK(aclrtResetDevice(0));
	CHECK(aclFinalize());
	printf("tasks.MEMCPY_ASYNC=%ld\ntasks.EVENT_RECORD=%ld\ntasks.MsTx=%ld\nstamps=%ld\n",
	       copies, events, markers, stamps);
	printf("api.aclrtMemcpyAsync=%ld\napi.aclrtRecordEvent=%ld\napi.aclrtSynchronizeStream=%ld\n",
	       copies, events, syncs);
	return 0;
}
