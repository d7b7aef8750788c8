// Stream memory operations (aclrtValueWrite, aclrtValueWait): a wait holds
// its stream until the value is there, whether another stream's write or
// the host puts it there; a write lands when its stream reaches it, not
// when it is sent; each ACL_STREAM_WAIT_VALUE_* condition; what is refused.
// Under `npuprof record` (suite 40_runtime) the database holds 5
// MEM_WRITE_VALUE and 6 MEM_WAIT_VALUE tasks, and a CANN_API row for each
// aclrtValueWrite and aclrtValueWait call, the refused ones included (8
// and 9).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>

#include "check.h"

static uint64_t load(void *p)
{
    return reinterpret_cast<std::atomic<uint64_t> *>(p)->load();
}

static void store(void *p, uint64_t v)
{
    reinterpret_cast<std::atomic<uint64_t> *>(p)->store(v);
}

static aclrtEvent g_ev[16];
static int g_nev;

// 1 if the stream has not finished after ms milliseconds (the event stays
// until the end: its record is still to come).
static bool still_waits(aclrtStream s, int ms)
{
    aclrtEvent e;
    aclrtEventRecordedStatus st;
    OK(aclrtCreateEvent(&e));
    g_ev[g_nev++] = e;
    OK(aclrtRecordEvent(e, s));
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    OK(aclrtQueryEventStatus(e, &st));
    return st == ACL_EVENT_RECORDED_STATUS_NOT_READY;
}

int main()
{
    OK(aclInit(nullptr));
    OK(aclrtSetDevice(0));
    void *dev;
    OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemset(dev, 4096, 0, 4096));
    aclrtStream a, b;
    OK(aclrtCreateStream(&a));
    OK(aclrtCreateStream(&b));

    // refused: a reserved flag, an unknown condition, a misaligned or null
    // address
    EXPECT(aclrtValueWrite(dev, 1, 1, a), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtValueWrite(static_cast<char *>(dev) + 4, 1, 0, a), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtValueWait(dev, 1, 4, a), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtValueWait(nullptr, 1, ACL_STREAM_WAIT_VALUE_EQ, a), ACL_ERROR_INVALID_PARAM);

    // 1. stream a waits for 100, which stream b writes behind a wait of its
    //    own: neither has happened while b is held; the host releases b,
    //    b's write lands, a goes on.
    void *flag = static_cast<char *>(dev) + 64;
    OK(aclrtValueWait(dev, 100, ACL_STREAM_WAIT_VALUE_EQ, a));
    OK(aclrtValueWait(flag, 1, ACL_STREAM_WAIT_VALUE_EQ, b));
    OK(aclrtValueWrite(dev, 100, 0, b));
    TRUE(still_waits(a, 100));
    EXPECT(load(dev), 0); // b's write is queued behind b's wait
    store(flag, 1); // the host releases b
    OK(aclrtSynchronizeStream(b));
    EXPECT(load(dev), 100);
    OK(aclrtSynchronizeStream(a));

    // 2. a write on another thread's stream releases the wait, as in CANN's
    //    example: the wait is sent first, then blocks until the write
    std::atomic<int> written{0};
    OK(aclrtValueWait(dev, 7, ACL_STREAM_WAIT_VALUE_EQ, a));
    std::thread w([&] {
        OK(aclrtSetDevice(0));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        written = 1;
        OK(aclrtValueWrite(dev, 7, 0, b));
        OK(aclrtSynchronizeStream(b));
    });
    OK(aclrtSynchronizeStream(a));
    EXPECT(written.load(), 1);
    w.join();
    EXPECT(load(dev), 7);

    // 3. the conditions, met by host stores: GEQ (signed difference), AND,
    //    NOR
    store(dev, 5);
    OK(aclrtValueWait(dev, 10, ACL_STREAM_WAIT_VALUE_GEQ, a));
    TRUE(still_waits(a, 50));
    store(dev, 12);
    OK(aclrtSynchronizeStream(a));
    store(dev, 0x10);
    OK(aclrtValueWait(dev, 0x3, ACL_STREAM_WAIT_VALUE_AND, a));
    TRUE(still_waits(a, 50));
    store(dev, 0x12);
    OK(aclrtSynchronizeStream(a));
    store(dev, ~0ULL);
    OK(aclrtValueWait(dev, 0, ACL_STREAM_WAIT_VALUE_NOR, a));
    TRUE(still_waits(a, 50));
    store(dev, ~0ULL - 1);
    OK(aclrtSynchronizeStream(a));

    // 4. a write on a stream is in memory once the stream is synchronised,
    //    and on the default stream
    OK(aclrtValueWrite(dev, 0x1122334455667788ULL, 0, nullptr));
    OK(aclrtSynchronizeStream(nullptr));
    EXPECT(load(dev) == 0x1122334455667788ULL, 1);
    OK(aclrtValueWrite(flag, 3, 0, a));
    OK(aclrtValueWrite(flag, 4, 0, a));
    OK(aclrtSynchronizeStream(a));
    EXPECT(load(flag), 4); // in order

    // 5. refused on a stream whose tasks go to a model
    aclmdlRI m = nullptr;
    OK(aclmdlRICaptureBegin(a, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    EXPECT(aclrtValueWrite(dev, 1, 0, a), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclrtValueWait(dev, 1, ACL_STREAM_WAIT_VALUE_EQ, a), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    OK(aclmdlRICaptureEnd(a, &m));
    if (m)
        OK(aclmdlRIDestroy(m));

    for (int i = 0; i < g_nev; i++)
        OK(aclrtDestroyEvent(g_ev[i]));
    OK(aclrtDestroyStream(a));
    OK(aclrtDestroyStream(b));
    OK(aclrtFree(dev));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    std::printf("[SUCCESS] rt_value\n");
    return 0;
}
