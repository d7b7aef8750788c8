// aclrtRandomNumAsync writes real numbers: uniform ones within [min, max),
// normal ones with their mean and spread, truncated ones within two
// standard deviations, a dropout bitmask keeping about 1 - ration; the
// counter in device memory advances by the count, so a second call goes
// on and the same seed and counter give the same numbers; a type the
// function does not take is refused.
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"

static const uint64_t kNum = 4096;

static void para(aclrtRandomParaInfo &p, const void *v, uint8_t size)
{
    std::memset(&p, 0, sizeof(p));
    std::memcpy(p.valueOrAddr, v, size);
    p.size = size;
}

static aclrtRandomNumTaskInfo task(aclrtRandomNumFuncType f, aclDataType type, const void *a,
                                   const void *b, uint8_t size, uint64_t seed, void *out,
                                   void *ctr)
{
    aclrtRandomNumTaskInfo t;
    std::memset(&t, 0, sizeof(t));
    t.dataType = type;
    t.randomNumFuncParaInfo.funcType = f;
    t.randomResultAddr = out;
    t.randomCounterAddr = ctr;
    if (f == ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK) {
        para(t.randomNumFuncParaInfo.paramInfo.dropoutBitmaskInfo.dropoutRation, a, size);
    } else {
        // min/max and mean/stddev share the layout of the union
        para(t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min, a, size);
        para(t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max, b, size);
    }
    para(t.randomSeed, &seed, 8);
    uint64_t n = kNum;
    para(t.randomNum, &n, 8);
    return t;
}

template <typename T>
static std::vector<T> run(aclrtStream s, const aclrtRandomNumTaskInfo &t, size_t bytes)
{
    OK(aclrtRandomNumAsync(&t, s, nullptr));
    OK(aclrtSynchronizeStream(s));
    std::vector<T> v(bytes / sizeof(T));
    OK(aclrtMemcpy(v.data(), bytes, t.randomResultAddr, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    return v;
}

int main()
{
    OK(aclInit(nullptr));
    OK(aclrtSetDevice(0));
    aclrtStream s;
    OK(aclrtCreateStream(&s));
    void *out, *ctr;
    OK(aclrtMalloc(&out, kNum * 8, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMalloc(&ctr, 16, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemset(ctr, 16, 0, 16));

    // uniform int32 in [1, 100): every value in range, most of them seen
    int32_t lo = 1, hi = 100;
    auto ti = task(ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, ACL_INT32, &lo, &hi, 4, 42, out, ctr);
    auto ints = run<int32_t>(s, ti, kNum * 4);
    std::vector<int> seen(100, 0);
    for (int32_t x : ints) {
        TRUE(x >= 1 && x < 100);
        seen[x] = 1;
    }
    int distinct = 0;
    for (int k : seen)
        distinct += k;
    TRUE(distinct == 99);
    uint64_t c[2];
    OK(aclrtMemcpy(c, 16, ctr, 16, ACL_MEMCPY_DEVICE_TO_HOST));
    TRUE(c[0] == kNum);

    // the same seed goes on from the counter: other numbers; reset, the same
    auto next = run<int32_t>(s, ti, kNum * 4);
    TRUE(next != ints);
    OK(aclrtMemset(ctr, 16, 0, 16));
    TRUE(run<int32_t>(s, ti, kNum * 4) == ints);

    // uniform float in [3, 5): mean near 4
    float flo = 3, fhi = 5;
    auto tf = task(ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, ACL_FLOAT, &flo, &fhi, 4, 1, out, ctr);
    double sum = 0;
    for (float x : run<float>(s, tf, kNum * 4)) {
        TRUE(x >= 3 && x < 5);
        sum += x;
    }
    TRUE(sum / kNum > 3.95 && sum / kNum < 4.05);

    // normal float, mean 3, stddev 2: the sample's mean and variance
    float mean = 3, sd = 2;
    auto tn = task(ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, ACL_FLOAT, &mean, &sd, 4, 5, out, ctr);
    double m1 = 0, m2 = 0;
    int beyond = 0;
    for (float x : run<float>(s, tn, kNum * 4)) {
        m1 += x;
        m2 += (double)x * x;
        beyond += x < -1 || x > 7;
    }
    m1 /= kNum;
    double var = m2 / kNum - m1 * m1;
    TRUE(m1 > 2.9 && m1 < 3.1 && var > 3.6 && var < 4.4);
    TRUE(beyond > 0); // untruncated: about 4.6% lie beyond two deviations

    // truncated normal in bf16, mean 1, stddev 2: none beyond [-3, 5]
    uint16_t bm = 0x3f80, bs = 0x4000; // bf16 1.0, 2.0
    auto tt = task(ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS, ACL_BF16, &bm, &bs, 2, 5, out,
                   ctr);
    for (uint16_t x : run<uint16_t>(s, tt, kNum * 2)) {
        uint32_t u = (uint32_t)x << 16;
        float f;
        std::memcpy(&f, &u, 4);
        TRUE(f >= -3.02f && f <= 5.02f);
    }

    // dropout bitmask, ration 0.25: kNum bits, about 3/4 of them set
    float ration = 0.25f;
    auto td = task(ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK, ACL_FLOAT, &ration, nullptr, 4, 9,
                   out, ctr);
    int set = 0;
    for (uint8_t b : run<uint8_t>(s, td, kNum / 8))
        set += __builtin_popcount(b);
    TRUE(set > kNum * 0.70 && set < kNum * 0.80);

    // normal numbers of int32: refused, as CANN does
    auto bad = task(ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, ACL_INT32, &lo, &hi, 4, 1, out, ctr);
    EXPECT(aclrtRandomNumAsync(&bad, s, nullptr), ACL_ERROR_INVALID_PARAM);

    OK(aclrtFree(out));
    OK(aclrtFree(ctr));
    OK(aclrtDestroyStream(s));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    std::printf("[SUCCESS] rt_random\n");
    return 0;
}
