// Stream configs (aclrtCreateStreamV2 and the stream queries), forced
// stream destruction, events with flags (what npusim cannot honour says
// so), memset and memsetAsync moving real bytes.
#include <cstring>

#include "check.h"

int main()
{
	OK(aclInit(nullptr));
	OK(aclrtSetDevice(0));

	aclrtStreamConfigHandle *h = aclrtCreateStreamConfigHandle();
	TRUE(h != nullptr);
	uint32_t flags = ACL_STREAM_FAST_LAUNCH, prio = 3, got = 0;
	OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flags, sizeof(flags)));
	OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &prio, sizeof(prio)));
	aclrtStream s, plain;
	OK(aclrtCreateStreamV2(&s, h));
	OK(aclrtDestroyStreamConfigHandle(h));
	OK(aclrtStreamGetFlags(s, &got));
	EXPECT(got, ACL_STREAM_FAST_LAUNCH);
	OK(aclrtStreamGetPriority(s, &got));
	EXPECT(got, 3);
	int32_t id1 = -1, id2 = -1;
	OK(aclrtCreateStream(&plain));
	OK(aclrtStreamGetId(s, &id1));
	OK(aclrtStreamGetId(plain, &id2));
	TRUE(id1 >= 0 && id2 >= 0 && id1 != id2);
	OK(aclrtStreamGetFlags(plain, &got));
	EXPECT(got, 0);

	// memset: synchronous on device memory, asynchronous as a task
	unsigned char out[4096];
	void *d;
	OK(aclrtMalloc(&d, sizeof(out), ACL_MEM_MALLOC_HUGE_FIRST));
	OK(aclrtMemset(d, sizeof(out), 0x5a, sizeof(out)));
	OK(aclrtMemsetAsync(d, sizeof(out), 0x1c3, 1024, s));
	EXPECT(aclrtMemsetAsync(d, 16, 0, 17, s), ACL_ERROR_INVALID_PARAM);
	// events with flags order the two streams
	aclrtEvent e;
	OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
	OK(aclrtRecordEvent(e, s));
	OK(aclrtStreamWaitEvent(plain, e));
	OK(aclrtSynchronizeEvent(e));
	OK(aclrtSynchronizeStream(plain));
	OK(aclrtMemcpy(out, sizeof(out), d, sizeof(out), ACL_MEMCPY_DEVICE_TO_HOST));
	EXPECT(out[0], 0xc3);
	EXPECT(out[1023], 0xc3);
	EXPECT(out[1024], 0x5a);
	EXPECT(out[4095], 0x5a);
	OK(aclrtDestroyEvent(e));
	// events npusim cannot honour: a capture's progress (IPC events:
	// rt_ipc_event; external ones: rt_model_events)
	aclrtEvent ext = nullptr;
	EXPECT(aclrtCreateEventExWithFlag(&ext, ACL_EVENT_CAPTURE_STREAM_PROGRESS),
	       ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	TRUE(ext == nullptr);

	// forced destruction does not wait for the stream's tasks
	for (int i = 0; i < 64; i++)
		OK(aclrtMemsetAsync(d, sizeof(out), i, sizeof(out), s));
	OK(aclrtDestroyStreamForce(s));
	EXPECT(aclrtStreamGetId(s, &id1), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT(aclrtDestroyStreamForce(nullptr), ACL_ERROR_INVALID_PARAM);
	aclrtStream dflt;
	OK(aclrtCtxGetCurrentDefaultStream(&dflt));
	EXPECT(aclrtDestroyStreamForce(dflt), ACL_ERROR_RT_PARAM_INVALID);
	OK(aclrtDestroyStream(plain));
	OK(aclrtFree(d));
	OK(aclrtResetDevice(0));
	OK(aclFinalize());
	std::printf("[SUCCESS] rt_stream_event\n");
	return 0;
}
