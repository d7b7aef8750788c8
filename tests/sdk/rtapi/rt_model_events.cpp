// Events in a captured model, task groups and their updates:
//  - a model waits for an ACL_EVENT_EXTERNAL event another stream records,
//    resets it (aclrtResetEvent) and runs an aclnnAdd captured in a task
//    group; each execution computes the sum over the tensors' data as it
//    is when the model's tasks are sent; the group's update (another
//    aclnnAdd, alpha 2) replaces it for the executions after it, and for
//    one sent before it that has not reached the group (it waits);
//  - a model records an event externally (ACL_EVENT_RECORD_EXTERNAL) that
//    a second model waits for (ACL_EVENT_WAIT_EXTERNAL), and an ordinary
//    stream waits for the first model's record (aclrtSynchronizeEvent too).
// Under `npuprof record` (suite 40_runtime) the executed tasks are TASK
// rows: 4 EVENT_RESET, 2 MODEL_TASK_UPDATE, 6 EVENT_WAIT (4 in the first
// model's executions, 1 in the second model's, 1 of an ordinary stream),
// 6 EVENT_RECORD (4 ordinary, 2 of the first model's executions).
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "aclnnop/aclnn_add.h"
#include "check.h"

static const int64_t N = 8;

static aclTensor *tensor(void *data)
{
	int64_t shape[1] = { N }, strides[1] = { 1 };
	return aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, data);
}

static void add(aclTensor *a, aclTensor *b, aclScalar *alpha, aclTensor *out, aclrtStream s)
{
	uint64_t ws = 0;
	aclOpExecutor *e = nullptr;
	EXPECT(aclnnAddGetWorkspaceSize(a, b, alpha, out, &ws, &e), 0);
	void *w = nullptr;
	if (ws)
		OK(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST));
	EXPECT(aclnnAdd(w, ws, e, s), 0);
	// the workspace is the model's while it lives: kept (a test leaks it)
}

static void update(aclrtStream s)
{
	float *a, *b, *out;
	OK(aclrtMalloc(reinterpret_cast<void **>(&a), N * 4, ACL_MEM_MALLOC_HUGE_FIRST));
	OK(aclrtMalloc(reinterpret_cast<void **>(&b), N * 4, ACL_MEM_MALLOC_HUGE_FIRST));
	OK(aclrtMalloc(reinterpret_cast<void **>(&out), N * 4, ACL_MEM_MALLOC_HUGE_FIRST));
	for (int i = 0; i < N; i++) {
		a[i] = static_cast<float>(i);
		b[i] = 10.0f;
		out[i] = -1.0f;
	}
	aclTensor *ta = tensor(a), *tb = tensor(b), *to = tensor(out);
	float one = 1.0f, two = 2.0f;
	aclScalar *alpha1 = aclCreateScalar(&one, ACL_FLOAT),
		  *alpha2 = aclCreateScalar(&two, ACL_FLOAT);

	aclrtEvent ev;
	OK(aclrtCreateEventWithFlag(&ev, ACL_EVENT_EXTERNAL));
	aclrtStream other;
	OK(aclrtCreateStream(&other));
	aclrtTaskGrp grp = nullptr;
	EXPECT(aclmdlRICaptureTaskGrpBegin(s), ACL_ERROR_RT_STREAM_NOT_CAPTURED);
	aclmdlRI m;
	OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	OK(aclrtStreamWaitEvent(s, ev));
	OK(aclrtResetEvent(ev, s));
	EXPECT(aclmdlRICaptureTaskGrpEnd(s, &grp), ACL_ERROR_RT_PARAM_INVALID); // none begun
	OK(aclmdlRICaptureTaskGrpBegin(s));
	EXPECT(aclmdlRICaptureTaskGrpBegin(s), ACL_ERROR_RT_PARAM_INVALID);
	add(ta, tb, alpha1, to, s);
	OK(aclmdlRICaptureTaskGrpEnd(s, &grp));
	TRUE(grp != nullptr);
	EXPECT(out[0], -1.0f); // recorded, not computed
	EXPECT(aclmdlRICaptureTaskUpdateBegin(s, grp), ACL_ERROR_RT_STREAM_CAPTURED);
	OK(aclmdlRICaptureEnd(s, &m));

	for (int run = 0; run < 3; run++) {
		if (run == 1) {
			aclrtStream u;
			OK(aclrtCreateStream(&u));
			// an update of other tasks than the group's is refused
			OK(aclmdlRICaptureTaskUpdateBegin(u, grp));
			EXPECT(aclmdlRICaptureTaskUpdateEnd(u), ACL_ERROR_RT_PARAM_INVALID);
			EXPECT(aclmdlRICaptureTaskUpdateEnd(u),
			       ACL_ERROR_RT_PARAM_INVALID); // none begun
			OK(aclmdlRICaptureTaskUpdateBegin(u, grp));
			add(ta, tb, alpha2, to, u);
			EXPECT(out[0], 10.0f); // recorded for the update, not computed
			OK(aclmdlRICaptureTaskUpdateEnd(u));
			OK(aclrtSynchronizeStream(u));
			OK(aclrtDestroyStream(u));
		}
		if (run == 2)
			a[0] = 100.0f; // the data as it is at the execution
		OK(aclrtRecordEvent(ev, other));
		OK(aclmdlRIExecuteAsync(m, s));
		OK(aclrtSynchronizeStream(s));
		float alpha = run ? 2.0f : 1.0f;
		for (int i = 0; i < N; i++)
			EXPECT(out[i], a[i] + alpha * 10.0f);
		std::printf("execution %d: out[0] %g out[%d] %g\n", run, out[0], (int)N - 1,
			    out[N - 1]);
	}
	// an update while an execution waits before the group: that execution
	// runs the new tasks (alpha 1 again), as the device's rewritten SQEs
	OK(aclmdlRIExecuteAsync(m, s));
	aclrtStream u;
	OK(aclrtCreateStream(&u));
	OK(aclmdlRICaptureTaskUpdateBegin(u, grp));
	add(ta, tb, alpha1, to, u);
	OK(aclmdlRICaptureTaskUpdateEnd(u));
	OK(aclrtRecordEvent(ev, u));
	OK(aclrtSynchronizeStream(u));
	OK(aclrtSynchronizeStream(s));
	for (int i = 0; i < N; i++)
		EXPECT(out[i], a[i] + 10.0f);
	std::printf("execution 3 (updated while it waits): out[0] %g\n", out[0]);
	OK(aclrtDestroyStream(u));
	OK(aclmdlRIDestroy(m));
	EXPECT(aclmdlRICaptureTaskUpdateBegin(other, grp), ACL_ERROR_RT_PARAM_INVALID); // gone
	OK(aclrtDestroyEvent(ev));
	OK(aclrtDestroyStream(other));
	aclDestroyTensor(ta);
	aclDestroyTensor(tb);
	aclDestroyTensor(to);
	aclDestroyScalar(alpha1);
	aclDestroyScalar(alpha2);
	OK(aclrtFree(a));
	OK(aclrtFree(b));
	OK(aclrtFree(out));
}

static void external()
{
	const size_t n = 64;
	uint8_t *src, *mid, *dst, *dst2;
	OK(aclrtMalloc(reinterpret_cast<void **>(&src), n, ACL_MEM_MALLOC_HUGE_FIRST));
	OK(aclrtMalloc(reinterpret_cast<void **>(&mid), n, ACL_MEM_MALLOC_HUGE_FIRST));
	OK(aclrtMalloc(reinterpret_cast<void **>(&dst), n, ACL_MEM_MALLOC_HUGE_FIRST));
	OK(aclrtMallocHost(reinterpret_cast<void **>(&dst2), n));
	std::memset(src, 0x3c, n);
	std::memset(mid, 0, n);
	std::memset(dst, 0, n);
	std::memset(dst2, 0, n);
	aclrtStream g1, g2, plain;
	OK(aclrtCreateStream(&g1));
	OK(aclrtCreateStream(&g2));
	OK(aclrtCreateStream(&plain));
	aclrtEvent ev;
	OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
	// EXTERNAL needs a stream being captured; an external wait no timeout
	EXPECT(aclrtRecordEventWithFlag(ev, g1, ACL_EVENT_RECORD_EXTERNAL),
	       ACL_ERROR_RT_STREAM_NOT_CAPTURED);
	EXPECT(aclrtStreamWaitEventWithFlag(g1, ev, 0, ACL_EVENT_WAIT_EXTERNAL),
	       ACL_ERROR_RT_STREAM_NOT_CAPTURED);
	EXPECT(aclrtStreamWaitEventWithFlag(g1, ev, 5, ACL_EVENT_WAIT_EXTERNAL),
	       ACL_ERROR_INVALID_PARAM);
	aclmdlRI m1, m2;
	OK(aclmdlRICaptureBegin(g1, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	OK(aclrtMemcpyAsync(mid, n, src, n, ACL_MEMCPY_DEVICE_TO_DEVICE, g1));
	OK(aclrtRecordEventWithFlag(ev, g1, ACL_EVENT_RECORD_EXTERNAL));
	OK(aclmdlRICaptureEnd(g1, &m1));
	OK(aclmdlRICaptureBegin(g2, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	OK(aclrtStreamWaitEventWithFlag(g2, ev, 0, ACL_EVENT_WAIT_EXTERNAL));
	OK(aclrtMemcpyAsync(dst, n, mid, n, ACL_MEMCPY_DEVICE_TO_DEVICE, g2));
	OK(aclmdlRICaptureEnd(g2, &m2));
	EXPECT(mid[0], 0); // recorded, not run

	OK(aclmdlRIExecuteAsync(m1, g1));
	OK(aclrtSynchronizeEvent(ev)); // the model's record, done
	OK(aclmdlRIExecuteAsync(m2, g2));
	OK(aclrtSynchronizeStream(g2));
	EXPECT(dst[n - 1], 0x3c);
	// an ordinary stream waits for the model's record
	OK(aclmdlRIExecuteAsync(m1, g1));
	OK(aclrtStreamWaitEvent(plain, ev));
	OK(aclrtMemcpyAsync(dst2, n, mid, n, ACL_MEMCPY_DEVICE_TO_HOST, plain));
	OK(aclrtSynchronizeStream(plain));
	OK(aclrtSynchronizeStream(g1));
	EXPECT(dst2[0], 0x3c);

	OK(aclmdlRIDestroy(m1));
	OK(aclmdlRIDestroy(m2));
	OK(aclrtDestroyEvent(ev));
	OK(aclrtDestroyStream(g1));
	OK(aclrtDestroyStream(g2));
	OK(aclrtDestroyStream(plain));
	OK(aclrtFree(src));
	OK(aclrtFree(mid));
	OK(aclrtFree(dst));
	OK(aclrtFreeHost(dst2));
}

int main()
{
	OK(aclInit(nullptr));
	OK(aclrtSetDevice(0));
	aclrtStream s;
	OK(aclrtCreateStream(&s));
	update(s);
	external();
	OK(aclrtDestroyStream(s));
	OK(aclrtResetDevice(0));
	OK(aclFinalize());
	std::printf("[SUCCESS] rt_model_events\n");
	return 0;
}
