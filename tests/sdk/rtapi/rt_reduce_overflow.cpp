// aclrtReduceAsync computes what the device would (SUM, MAX, MIN of the
// 910B's types, int sums wrapping, fp16/bf16 rounded to nearest even) and
// refuses what it cannot; the overflow mode and switch are kept; the
// overflow status is "none".
#include <cstring>

#include "check.h"

template <typename T>
static void reduce(aclrtStream s, const T *a, const T *b, T *out, size_t n, aclrtReduceKind kind,
                   aclDataType type)
{
    void *d, *q;
    size_t size = n * sizeof(T);
    OK(aclrtMalloc(&d, size, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&q, size, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemcpy(d, size, a, size, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(aclrtMemcpy(q, size, b, size, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(aclrtReduceAsync(d, q, size, kind, type, s, nullptr));
    OK(aclrtSynchronizeStream(s));
    OK(aclrtMemcpy(out, size, d, size, ACL_MEMCPY_DEVICE_TO_HOST));
    OK(aclrtFree(q));
    OK(aclrtFree(d));
}

int main()
{
    OK(aclInit(nullptr));
    OK(aclrtSetDevice(0));
    aclrtStream s;
    OK(aclrtCreateStream(&s));

    const float fa[4] = {1, 2, 3, 4}, fb[4] = {1.5f, -2, 10, 4};
    float fo[4];
    reduce(s, fa, fb, fo, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT);
    TRUE(fo[0] == 2.5f && fo[1] == 0 && fo[2] == 13 && fo[3] == 8);
    reduce(s, fa, fb, fo, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, ACL_FLOAT);
    TRUE(fo[0] == 1.5f && fo[1] == 2 && fo[2] == 10 && fo[3] == 4);
    reduce(s, fa, fb, fo, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN, ACL_FLOAT);
    TRUE(fo[0] == 1 && fo[1] == -2 && fo[2] == 3 && fo[3] == 4);

    const int8_t ia[2] = {120, -100}, ib[2] = {10, -50};
    int8_t io[2];
    reduce(s, ia, ib, io, 2, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT8);
    EXPECT(io[0], -126); // wraps
    EXPECT(io[1], 106);
    const int32_t la[2] = {7, -7}, lb[2] = {5, 5};
    int32_t lo[2];
    reduce(s, la, lb, lo, 2, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN, ACL_INT32);
    EXPECT(lo[0], 5);
    EXPECT(lo[1], -7);

    // fp16: 1.0 + 2^-11 ties to even (1.0); 65504 + 65504 overflows to Inf
    const uint16_t ha[2] = {0x3c00, 0x7bff}, hb[2] = {0x1000, 0x7bff};
    uint16_t ho[2];
    reduce(s, ha, hb, ho, 2, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT16);
    EXPECT(ho[0], 0x3c00);
    EXPECT(ho[1], 0x7c00);
    // bf16: 1.0 + 1.0 = 2.0; 1.0 + 2^-8 ties to even (1.0)
    const uint16_t ba[2] = {0x3f80, 0x3f80}, bb[2] = {0x3f80, 0x3b80};
    uint16_t bo[2];
    reduce(s, ba, bb, bo, 2, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_BF16);
    EXPECT(bo[0], 0x4000);
    EXPECT(bo[1], 0x3f80);

    // refused: host memory, a type or kind the 910B's SDMA lacks
    float host[4];
    void *d;
    OK(aclrtMalloc(&d, sizeof(host), ACL_MEM_MALLOC_HUGE_FIRST));
    EXPECT(aclrtReduceAsync(host, d, sizeof(host), ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, s, nullptr),
           ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtReduceAsync(d, d, sizeof(host), ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL, ACL_FLOAT, s, nullptr),
           ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclrtReduceAsync(d, d, sizeof(host), ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_UINT32, s, nullptr),
           ACL_ERROR_RT_FEATURE_NOT_SUPPORT);

    // overflow: the mode (INFNAN by default) and the switch are kept
    aclrtFloatOverflowMode m;
    OK(aclrtGetDeviceSatMode(&m));
    EXPECT(m, ACL_RT_OVERFLOW_MODE_INFNAN);
    OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION));
    OK(aclrtGetDeviceSatMode(&m));
    EXPECT(m, ACL_RT_OVERFLOW_MODE_SATURATION);
    uint32_t sw = 9;
    OK(aclrtGetStreamOverflowSwitch(s, &sw));
    EXPECT(sw, 0);
    OK(aclrtSetStreamOverflowSwitch(s, 1));
    OK(aclrtGetStreamOverflowSwitch(s, &sw));
    EXPECT(sw, 1);
    unsigned char st[16];
    OK(aclrtMemset(d, sizeof(host), 0xff, sizeof(host)));
    OK(aclrtGetOverflowStatus(d, sizeof(host), s));
    OK(aclrtSynchronizeStream(s));
    OK(aclrtMemcpy(st, sizeof(st), d, sizeof(st), ACL_MEMCPY_DEVICE_TO_HOST));
    for (unsigned char c : st)
        EXPECT(c, 0);
    OK(aclrtResetOverflowStatus(s));
    OK(aclrtFree(d));
    OK(aclrtDestroyStream(s));
    // the mode lasts until the device is released
    OK(aclrtResetDevice(0));
    OK(aclrtSetDevice(0));
    OK(aclrtGetDeviceSatMode(&m));
    EXPECT(m, ACL_RT_OVERFLOW_MODE_INFNAN);
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    std::printf("[SUCCESS] rt_reduce_overflow\n");
    return 0;
}
