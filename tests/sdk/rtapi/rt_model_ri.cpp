// Model run instances (aclmdlRI): a captured stream records its tasks
// instead of running them, and each execution of the model runs them
// again (a copy moves the bytes its source holds then); a model built on
// persistent streams runs its head streams' tasks; the capture modes
// forbid unsafe calls and a forbidden call invalidates the capture.
// Under `npuprof record` (suite 40_runtime) the executed tasks are TASK
// rows: 16 MEMCPY_ASYNC (3 executions of 3 captured copies, 3 of 2 built
// ones, 1 launched after the capture), 3 MEMSET_ASYNC and 3
// MODEL_END_GRAPH.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "check.h"

static const size_t N = 64;

static void capture(aclrtStream s)
{
    uint8_t *src, *out;
    void *dev, *dev2;
    OK(aclrtMallocHost(reinterpret_cast<void **>(&src), N));
    OK(aclrtMallocHost(reinterpret_cast<void **>(&out), N));
    OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&dev2, N, ACL_MEM_MALLOC_HUGE_FIRST));
    std::memset(src, 0, N);
    std::memset(out, 0, N);

    aclmdlRICaptureStatus st;
    aclmdlRI m = nullptr, got = nullptr;
    OK(aclmdlRICaptureGetInfo(s, &st, &got));
    EXPECT(st, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
    TRUE(got == nullptr);
    // the default stream cannot be captured
    EXPECT(aclmdlRICaptureBegin(nullptr, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
           ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclmdlRICaptureEnd(s, &m), ACL_ERROR_RT_STREAM_NOT_CAPTURED);

    OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    EXPECT(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL), ACL_ERROR_RT_STREAM_CAPTURED);
    OK(aclmdlRICaptureGetInfo(s, &st, &got));
    EXPECT(st, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
    TRUE(got != nullptr);
    src[0] = 7;
    OK(aclrtMemcpyAsync(dev, N, src, N, ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(aclrtMemsetAsync(dev2, N, 0x5a, N, s));
    OK(aclrtMemcpyAsync(dev2, N, dev, N / 2, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    OK(aclrtMemcpyAsync(out, N, dev2, N, ACL_MEMCPY_DEVICE_TO_HOST, s));
    // recorded, not run
    EXPECT(out[0], 0);
    // no synchronisation of a captured stream (events in a model:
    // rt_model_events)
    EXPECT(aclrtSynchronizeStream(s), ACL_ERROR_RT_STREAM_CAPTURED);
    EXPECT(aclrtDestroyStream(s), ACL_ERROR_RT_STREAM_CAPTURED);
    aclrtEvent ev;
    OK(aclrtCreateEvent(&ev));
    EXPECT(aclrtRecordEventWithFlag(ev, s, 2), ACL_ERROR_INVALID_PARAM);
    OK(aclrtDestroyEvent(ev));
    // RELAXED allows this thread an unsafe call
    aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
    OK(aclmdlRICaptureThreadExchangeMode(&mode));
    EXPECT(mode, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
    uint8_t one = 1;
    OK(aclrtMemcpy(src + 1, 1, &one, 1, ACL_MEMCPY_HOST_TO_HOST));
    OK(aclmdlRICaptureThreadExchangeMode(&mode));
    EXPECT(mode, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
    OK(aclmdlRICaptureEnd(s, &m));
    TRUE(m == got);
    OK(aclmdlRICaptureGetInfo(s, &st, &got));
    EXPECT(st, ACL_MODEL_RI_CAPTURE_STATUS_NONE);

    // each execution copies what the source holds then
    for (uint8_t i = 1; i <= 3; i++) {
        src[0] = i;
        src[N - 1] = 100 + i;
        std::memset(out, 0, N);
        OK(aclmdlRIExecuteAsync(m, s));
        OK(aclrtSynchronizeStream(s));
        EXPECT(out[0], i);
        EXPECT(out[1], 1);
        EXPECT(out[N / 2 - 1], 0);
        EXPECT(out[N / 2], 0x5a); // set, half overwritten by the copy
        EXPECT(out[N - 1], 0x5a);
    }

    OK(aclmdlRISetName(m, "captured"));
    char name[16];
    OK(aclmdlRIGetName(m, sizeof(name), name));
    TRUE(std::strcmp(name, "captured") == 0);
    EXPECT(aclmdlRIGetName(m, 4, name), ACL_ERROR_INVALID_PARAM);
    uint32_t id;
    OK(aclmdlRIGetId(m, &id));
    char path[64];
    std::snprintf(path, sizeof(path), "/tmp/rt_model_ri.%d.json", static_cast<int>(id));
    OK(aclmdlRIDebugJsonPrint(m, path, ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE));
    FILE *f = std::fopen(path, "r");
    TRUE(f != nullptr);
    std::string json;
    char buf[512];
    size_t k;
    while ((k = std::fread(buf, 1, sizeof(buf), f)) > 0)
        json.append(buf, k);
    std::fclose(f);
    std::remove(path);
    size_t copies = 0;
    for (size_t p = 0; (p = json.find("\"MEMCPY_ASYNC\"", p)) != std::string::npos; p++)
        copies++;
    EXPECT(copies, 3);
    TRUE(json.find("\"MEMSET_ASYNC\"") != std::string::npos);
    TRUE(json.find("\"name\":\"captured\"") != std::string::npos);
    EXPECT(aclmdlRIDebugJsonPrint(m, "/nonexistent/dir/x.json", 0), ACL_ERROR_INVALID_PARAM);

    OK(aclmdlRIDestroy(m));
    EXPECT(aclmdlRIExecuteAsync(m, s), ACL_ERROR_RT_PARAM_INVALID);
    // the stream runs its tasks again
    OK(aclrtMemcpyAsync(out, N, src, N, ACL_MEMCPY_HOST_TO_HOST, s));
    OK(aclrtSynchronizeStream(s));
    EXPECT(out[0], 3);
    OK(aclrtFree(dev2));
    OK(aclrtFree(dev));
    OK(aclrtFreeHost(out));
    OK(aclrtFreeHost(src));
}

// A forbidden call invalidates the capture: its model is gone.
static void invalidate(aclrtStream s)
{
    uint8_t a[4] = {1, 2, 3, 4}, b[4] = {};
    aclmdlRI m = nullptr;
    aclmdlRICaptureStatus st;
    OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
    EXPECT(aclrtMemcpy(b, 4, a, 4, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    EXPECT(aclrtMemset(b, 4, 0, 4), ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    EXPECT(b[0], 0);
    OK(aclmdlRICaptureGetInfo(s, &st, &m));
    EXPECT(st, ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED);
    EXPECT(aclmdlRICaptureEnd(s, &m), ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED);
    TRUE(m == nullptr);
    // a RELAXED capture forbids nothing
    OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    OK(aclrtMemcpy(b, 4, a, 4, ACL_MEMCPY_HOST_TO_HOST));
    OK(aclmdlRICaptureEnd(s, &m));
    EXPECT(b[3], 4);
    // an empty model runs nothing
    OK(aclmdlRIExecuteAsync(m, s));
    OK(aclrtSynchronizeStream(s));
    OK(aclmdlRIDestroy(m));
}

// A model built on persistent streams: the head stream's tasks run at each
// execution, a stream bound without the head flag waits for an activation
// that never comes.
static void build(aclrtStream exec)
{
    uint8_t *src, *out;
    void *dev;
    OK(aclrtMallocHost(reinterpret_cast<void **>(&src), N));
    OK(aclrtMallocHost(reinterpret_cast<void **>(&out), N));
    OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_HUGE_FIRST));
    std::memset(src, 9, N);
    std::memset(out, 0, N);

    aclrtStream head, other;
    OK(aclrtCreateStreamWithConfig(&head, 0, ACL_STREAM_PERSISTENT));
    OK(aclrtCreateStreamWithConfig(&other, 0, ACL_STREAM_PERSISTENT));
    uint32_t flags;
    OK(aclrtStreamGetFlags(head, &flags));
    EXPECT(flags, ACL_STREAM_PERSISTENT);
    // a persistent stream's tasks need a model
    EXPECT(aclrtMemcpyAsync(dev, N, src, N, ACL_MEMCPY_HOST_TO_DEVICE, head),
           ACL_ERROR_RT_PARAM_INVALID);

    aclmdlRI m;
    EXPECT(aclmdlRIBuildBegin(&m, 1), ACL_ERROR_INVALID_PARAM);
    OK(aclmdlRIBuildBegin(&m, 0));
    EXPECT(aclmdlRIBindStream(m, exec, ACL_MODEL_STREAM_FLAG_HEAD), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclmdlRIBindStream(m, head, ACL_MODEL_STREAM_FLAG_HEAD));
    OK(aclmdlRIBindStream(m, other, ACL_MODEL_STREAM_FLAG_DEFAULT));
    EXPECT(aclmdlRIBindStream(m, head, ACL_MODEL_STREAM_FLAG_HEAD), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtMemcpyAsync(dev, N, src, N, ACL_MEMCPY_HOST_TO_DEVICE, head));
    OK(aclrtMemcpyAsync(out, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST, head));
    OK(aclrtMemsetAsync(out, N, 0xee, N, other)); // never activated
    OK(aclmdlRIEndTask(m, head));
    EXPECT(aclmdlRIExecuteAsync(m, exec), ACL_ERROR_RT_PARAM_INVALID); // not built
    OK(aclmdlRIBuildEnd(m, nullptr));
    EXPECT(aclmdlRIBuildEnd(m, nullptr), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtMemsetAsync(out, N, 0, N, head), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(out[0], 0);
    EXPECT(aclrtDestroyStream(head), ACL_ERROR_RT_PARAM_INVALID); // bound

    for (uint8_t i = 1; i <= 2; i++) {
        src[5] = i;
        OK(aclmdlRIExecuteAsync(m, exec));
        OK(aclrtSynchronizeStream(exec));
        EXPECT(out[0], 9);
        EXPECT(out[5], i);
    }
    src[5] = 42;
    OK(aclmdlRIExecute(m, -1)); // on the default stream, waited for
    EXPECT(out[5], 42);
    EXPECT(aclmdlRIExecute(m, 0), ACL_ERROR_INVALID_PARAM);

    OK(aclmdlRIUnbindStream(m, head));
    EXPECT(aclmdlRIUnbindStream(m, head), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclmdlRIDestroy(m)); // unbinds other
    OK(aclrtDestroyStream(head));
    OK(aclrtDestroyStream(other));
    OK(aclrtFree(dev));
    OK(aclrtFreeHost(out));
    OK(aclrtFreeHost(src));
}

int main()
{
    OK(aclInit(nullptr));
    OK(aclrtSetDevice(0));
    aclrtStream s;
    OK(aclrtCreateStream(&s));
    capture(s);
    invalidate(s);
    build(s);
    OK(aclrtDestroyStream(s));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    std::printf("[SUCCESS] rt_model_ri\n");
    return 0;
}
