// Labels (aclrtSetLabel, aclrtSwitchLabelByIndex): a model built on two
// persistent streams branches at each execution on the index in device
// memory as the switch finds it (a copy inside the model writes it just
// before the switch): 0 and 1 pick a label on the head stream, 2 (and 7,
// past the list's end: the last label) one on a stream bound without the
// head flag; the rest of the switch's stream does not run.
// Under `npuprof record` (suite 40_runtime) the executed tasks are TASK
// rows: 6 STREAM_LABEL_SWITCH_BY_INDEX (the switches taken), 7 LABEL_SET,
// 5 MEMSET_ASYNC, 7 MEMCPY_ASYNC and 4 MODEL_END_GRAPH (4 executions, and
// a fifth that runs up to its second switch, whose list is destroyed).
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "check.h"

static const size_t N = 16;

int main()
{
	OK(aclInit(nullptr));
	OK(aclrtSetDevice(0));
	aclrtStream head, branch, exec, plain;
	OK(aclrtCreateStreamWithConfig(&head, 0, ACL_STREAM_PERSISTENT));
	OK(aclrtCreateStreamWithConfig(&branch, 0, ACL_STREAM_PERSISTENT));
	OK(aclrtCreateStream(&exec));
	OK(aclrtCreateStream(&plain));

	uint32_t *idx_host, *out, *out2;
	void *idx, *zero;
	OK(aclrtMallocHost(reinterpret_cast<void **>(&idx_host), sizeof(uint32_t)));
	OK(aclrtMallocHost(reinterpret_cast<void **>(&out), N));
	OK(aclrtMallocHost(reinterpret_cast<void **>(&out2), N));
	OK(aclrtMalloc(&idx, sizeof(uint32_t), ACL_MEM_MALLOC_HUGE_FIRST));
	OK(aclrtMalloc(&zero, sizeof(uint32_t), ACL_MEM_MALLOC_HUGE_FIRST));
	uint32_t z = 0;
	OK(aclrtMemcpy(zero, sizeof(z), &z, sizeof(z), ACL_MEMCPY_HOST_TO_DEVICE));

	aclrtLabel l[4];
	for (auto &x : l)
		OK(aclrtCreateLabel(&x));
	aclrtLabelList pick, to_end;
	EXPECT(aclrtCreateLabelList(l, 0, &pick), ACL_ERROR_INVALID_PARAM);
	OK(aclrtCreateLabelList(l, 3, &pick)); // L0, L1 on head, L2 on branch
	OK(aclrtCreateLabelList(&l[3], 1, &to_end));

	aclmdlRI m;
	OK(aclmdlRIBuildBegin(&m, 0));
	// a label is put on a stream bound to a model only
	EXPECT(aclrtSetLabel(l[0], plain), ACL_ERROR_RT_PARAM_INVALID);
	OK(aclmdlRIBindStream(m, head, ACL_MODEL_STREAM_FLAG_HEAD));
	OK(aclmdlRIBindStream(m, branch, ACL_MODEL_STREAM_FLAG_DEFAULT));
	// the index the switch reads is written by the model's task before it
	OK(aclrtMemcpyAsync(idx, sizeof(uint32_t), idx_host, sizeof(uint32_t),
			    ACL_MEMCPY_HOST_TO_DEVICE, head));
	EXPECT(aclrtSwitchLabelByIndex(idx, 2, pick, head), ACL_ERROR_INVALID_PARAM); // 3 labels
	EXPECT(aclrtSwitchLabelByIndex(idx_host, 3, pick, head), ACL_ERROR_INVALID_PARAM); // host
	OK(aclrtSwitchLabelByIndex(idx, 3, pick, head));
	OK(aclrtSetLabel(l[0], head));
	EXPECT(aclrtSetLabel(l[0], head), ACL_ERROR_RT_PARAM_INVALID); // set once
	OK(aclrtMemsetAsync(out, N, 0xa0, N, head));
	OK(aclrtSwitchLabelByIndex(zero, 1, to_end, head)); // over L1's tasks
	OK(aclrtSetLabel(l[1], head));
	OK(aclrtMemsetAsync(out, N, 0xb1, N, head));
	OK(aclrtSetLabel(l[3], head));
	OK(aclrtMemcpyAsync(out2, N, out, N, ACL_MEMCPY_HOST_TO_HOST, head));
	OK(aclmdlRIEndTask(m, head));
	OK(aclrtSetLabel(l[2], branch));
	OK(aclrtMemsetAsync(out, N, 0xc2, N, branch));
	OK(aclmdlRIEndTask(m, branch));
	OK(aclmdlRIBuildEnd(m, nullptr));

	const struct {
		uint32_t index;
		uint8_t out, out2;
	} run[] = { { 0, 0xa0, 0xa0 }, { 1, 0xb1, 0xb1 }, { 2, 0xc2, 0 }, { 7, 0xc2, 0 } };
	for (const auto &r : run) {
		*idx_host = r.index;
		std::memset(out, 0, N);
		std::memset(out2, 0, N);
		OK(aclmdlRIExecuteAsync(m, exec));
		OK(aclrtSynchronizeStream(exec));
		for (size_t i = 0; i < N; i++) {
			EXPECT(reinterpret_cast<uint8_t *>(out)[i], r.out);
			EXPECT(reinterpret_cast<uint8_t *>(out2)[i], r.out2);
		}
		std::printf("index %u: out 0x%02x, out2 0x%02x\n", r.index,
			    reinterpret_cast<uint8_t *>(out)[0],
			    reinterpret_cast<uint8_t *>(out2)[0]);
	}

	// a destroyed list fails the model's execution
	OK(aclrtDestroyLabelList(to_end));
	EXPECT(aclrtDestroyLabelList(to_end), ACL_ERROR_RT_PARAM_INVALID);
	*idx_host = 0;
	EXPECT(aclmdlRIExecuteAsync(m, exec), ACL_ERROR_RT_PARAM_INVALID);
	OK(aclrtSynchronizeStream(exec));

	OK(aclmdlRIUnbindStream(m, head));
	OK(aclmdlRIDestroy(m));
	OK(aclrtDestroyLabelList(pick));
	for (auto &x : l)
		OK(aclrtDestroyLabel(x));
	EXPECT(aclrtDestroyLabel(l[0]), ACL_ERROR_RT_PARAM_INVALID);
	OK(aclrtFree(idx));
	OK(aclrtFree(zero));
	OK(aclrtFreeHost(idx_host));
	OK(aclrtFreeHost(out));
	OK(aclrtFreeHost(out2));
	OK(aclrtDestroyStream(head));
	OK(aclrtDestroyStream(branch));
	OK(aclrtDestroyStream(exec));
	OK(aclrtDestroyStream(plain));
	OK(aclrtResetDevice(0));
	OK(aclFinalize());
	std::printf("[SUCCESS] rt_label\n");
	return 0;
}
