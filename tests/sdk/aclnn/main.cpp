/*
 * The shape of CANN's aclnn operator samples, written against the
 * installed SDK only: device and stream, aclTensor objects over device
 * memory, then for each of Add, Mul, Cast, Matmul, Softmax and LayerNorm
 * the two phases (aclnnXxxGetWorkspaceSize, a workspace, aclnnXxx),
 * aclrtSynchronizeStream, teardown; with mstx ranges and marks on the
 * stream around them, as CANN's mstx samples put them (a range around all
 * operators, a mark after Add, a range of its own domain around Matmul).
 *
 *   aclnn_sample
 * Without devices (no npusim) it runs every first phase, checks the
 * launch is refused cleanly, and exits 0.
 */
#include <stdio.h>

#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_softmax.h"
#include "mstx/ms_tools_ext.h"
#include "securec.h"

#define CHECK_RET(cond, return_expr) \
    do {                             \
        if (!(cond)) {               \
            return_expr;             \
        }                            \
    } while (0)

#define LOG_PRINT(message, ...)         \
    do {                                \
        printf(message, ##__VA_ARGS__); \
    } while (0)

static bool g_device = false;

static int64_t GetShapeSize(const std::vector<int64_t> &shape)
{
    int64_t n = 1;
    for (auto d : shape) {
        n *= d;
    }
    return n;
}

struct DevTensor {
    void *addr = nullptr;
    aclTensor *tensor = nullptr;
};

template <typename T>
static int CreateAclTensor(const std::vector<T> &host, const std::vector<int64_t> &shape,
                           aclDataType dataType, DevTensor *out)
{
    auto size = GetShapeSize(shape) * sizeof(T);
    if (g_device) {
        auto ret = aclrtMalloc(&out->addr, size, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMalloc failed. ERROR: %d\n", ret); return ret);
        ret = aclrtMemcpy(out->addr, size, host.data(), size, ACL_MEMCPY_HOST_TO_DEVICE);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtMemcpy failed. ERROR: %d\n", ret); return ret);
    }
    std::vector<int64_t> strides(shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; i--) {
        strides[i] = shape[i + 1] * strides[i + 1];
    }
    out->tensor = aclCreateTensor(shape.data(), shape.size(), dataType, strides.data(), 0,
                                  aclFormat::ACL_FORMAT_ND, shape.data(), shape.size(), out->addr);
    return out->tensor ? 0 : -1;
}

static void Release(DevTensor *t)
{
    aclDestroyTensor(t->tensor);
    if (t->addr) {
        aclrtFree(t->addr);
    }
}

/* The second phase of one operator: a workspace of the size the first
 * phase asked for, the launch. Without a device the launch must fail. */
template <typename Launch>
static int Run(const char *name, aclnnStatus phase1, uint64_t workspaceSize,
               aclOpExecutor *executor, aclrtStream stream, Launch launch)
{
    CHECK_RET(phase1 == ACLNN_SUCCESS,
              LOG_PRINT("%sGetWorkspaceSize failed. ERROR: %d (%s)\n", name, phase1,
                        aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");
              return 1);
    void *workspaceAddr = nullptr;
    if (!g_device) {
        auto ret = launch(nullptr, 0, executor, stream);
        CHECK_RET(ret != ACLNN_SUCCESS || workspaceSize == 0,
                  LOG_PRINT("%s launched without a device\n", name); return 1);
        LOG_PRINT("%s: workspace %llu bytes (no device: launch refused, %d)\n", name,
                  static_cast<unsigned long long>(workspaceSize), ret);
        return 0;
    }
    if (workspaceSize > 0) {
        auto ret = aclrtMalloc(&workspaceAddr, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("allocate workspace failed. ERROR: %d\n", ret); return 1);
    }
    auto ret = launch(workspaceAddr, workspaceSize, executor, stream);
    CHECK_RET(ret == ACLNN_SUCCESS, LOG_PRINT("%s failed. ERROR: %d\n", name, ret); return 1);
    ret = aclrtSynchronizeStream(stream);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSynchronizeStream failed. ERROR: %d\n", ret); return 1);
    if (workspaceAddr) {
        aclrtFree(workspaceAddr);
    }
    LOG_PRINT("%s: ok, workspace %llu bytes\n", name, static_cast<unsigned long long>(workspaceSize));
    return 0;
}

int main()
{
    int32_t deviceId = 0;
    aclrtStream stream = nullptr;
    uint32_t count = 0;
    auto ret = aclInit(nullptr);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclInit failed. ERROR: %d\n", ret); return 1);
    ret = aclrtGetDeviceCount(&count);
    CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtGetDeviceCount failed. ERROR: %d\n", ret); return 1);
    g_device = count > 0;
    if (g_device) {
        ret = aclrtSetDevice(deviceId);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtSetDevice failed. ERROR: %d\n", ret); return 1);
        ret = aclrtCreateStream(&stream);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("aclrtCreateStream failed. ERROR: %d\n", ret); return 1);
    }

    std::vector<float> small(8, 1.0f), row(2, 2.0f), wide(8 * 1024, 0.5f), gamma(1024, 1.0f);
    std::vector<uint16_t> half(1024 * 1024, 0x3c00);
    DevTensor self, other, vec, out, out16, mA, mB, mOut, x, y, w, b, mean, rstd;
    CHECK_RET(CreateAclTensor(small, {4, 2}, ACL_FLOAT, &self) == 0 &&
                  CreateAclTensor(small, {4, 2}, ACL_FLOAT, &other) == 0 &&
                  CreateAclTensor(row, {2}, ACL_FLOAT, &vec) == 0 &&
                  CreateAclTensor(small, {4, 2}, ACL_FLOAT, &out) == 0 &&
                  CreateAclTensor(std::vector<uint16_t>(8), {4, 2}, ACL_FLOAT16, &out16) == 0 &&
                  CreateAclTensor(half, {1024, 1024}, ACL_FLOAT16, &mA) == 0 &&
                  CreateAclTensor(half, {1024, 1024}, ACL_FLOAT16, &mB) == 0 &&
                  CreateAclTensor(half, {1024, 1024}, ACL_FLOAT16, &mOut) == 0 &&
                  CreateAclTensor(wide, {8, 1024}, ACL_FLOAT, &x) == 0 &&
                  CreateAclTensor(wide, {8, 1024}, ACL_FLOAT, &y) == 0 &&
                  CreateAclTensor(gamma, {1024}, ACL_FLOAT, &w) == 0 &&
                  CreateAclTensor(gamma, {1024}, ACL_FLOAT, &b) == 0 &&
                  CreateAclTensor(row, {8, 1}, ACL_FLOAT, &mean) == 0 &&
                  CreateAclTensor(row, {8, 1}, ACL_FLOAT, &rstd) == 0,
              LOG_PRINT("creating the tensors failed\n");
              return 1);
    float alphaValue = 1.0f;
    aclScalar *alpha = aclCreateScalar(&alphaValue, ACL_FLOAT);
    std::vector<int64_t> normShape = {1024};
    aclIntArray *normalizedShape = aclCreateIntArray(normShape.data(), normShape.size());
    CHECK_RET(alpha != nullptr && normalizedShape != nullptr, return 1);

    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    int failed = 0;
    aclnnStatus st;
    mstxDomainHandle_t domain = mstxDomainCreateA("aclnn_sample");
    mstxRangeId all = mstxRangeStartA("all operators", stream);
    st = aclnnAddGetWorkspaceSize(self.tensor, other.tensor, alpha, out.tensor, &workspaceSize,
                                  &executor);
    failed |= Run("aclnnAdd", st, workspaceSize, executor, stream, aclnnAdd);
    mstxMarkA("add done", stream);
    st = aclnnMulGetWorkspaceSize(self.tensor, vec.tensor, out.tensor, &workspaceSize, &executor);
    failed |= Run("aclnnMul", st, workspaceSize, executor, stream, aclnnMul);
    st = aclnnCastGetWorkspaceSize(out.tensor, ACL_FLOAT16, out16.tensor, &workspaceSize, &executor);
    failed |= Run("aclnnCast", st, workspaceSize, executor, stream, aclnnCast);
    mstxRangeId mm = mstxDomainRangeStartA(domain, "matmul", stream);
    st = aclnnMatmulGetWorkspaceSize(mA.tensor, mB.tensor, mOut.tensor, 1, &workspaceSize, &executor);
    failed |= Run("aclnnMatmul", st, workspaceSize, executor, stream, aclnnMatmul);
    mstxDomainRangeEnd(domain, mm);
    st = aclnnSoftmaxGetWorkspaceSize(x.tensor, -1, y.tensor, &workspaceSize, &executor);
    failed |= Run("aclnnSoftmax", st, workspaceSize, executor, stream, aclnnSoftmax);
    st = aclnnLayerNormGetWorkspaceSize(x.tensor, normalizedShape, w.tensor, b.tensor, 1e-5, y.tensor,
                                        mean.tensor, rstd.tensor, &workspaceSize, &executor);
    failed |= Run("aclnnLayerNorm", st, workspaceSize, executor, stream, aclnnLayerNorm);
    mstxRangeEnd(all);
    mstxDomainDestroy(domain);

    if (g_device) {
        std::vector<float> result(8);
        memset_s(result.data(), result.size() * sizeof(float), 0, result.size() * sizeof(float));
        ret = aclrtMemcpy(result.data(), result.size() * sizeof(float), out.addr,
                          result.size() * sizeof(float), ACL_MEMCPY_DEVICE_TO_HOST);
        CHECK_RET(ret == ACL_SUCCESS, LOG_PRINT("copy result from device to host failed. ERROR: %d\n", ret); return 1);
        // npusim computes the operators' results: out = self * vec = 1 * 2, cast to FLOAT16 (0x4000);
        // y is the LayerNorm of constant rows: 0 * weight 1 + bias 1
        std::vector<uint16_t> r16(8);
        std::vector<float> ry(8 * 1024);
        ret = aclrtMemcpy(r16.data(), 16, out16.addr, 16, ACL_MEMCPY_DEVICE_TO_HOST);
        CHECK_RET(ret == ACL_SUCCESS, return 1);
        ret = aclrtMemcpy(ry.data(), ry.size() * sizeof(float), y.addr, ry.size() * sizeof(float),
                          ACL_MEMCPY_DEVICE_TO_HOST);
        CHECK_RET(ret == ACL_SUCCESS, return 1);
        for (int i = 0; i < 8; i++) {
            if (result[i] != 2.0f || r16[i] != 0x4000) {
                LOG_PRINT("result[%d] = %f, cast %#x: expected 2.0 and 0x4000\n", i, result[i], r16[i]);
                failed = 1;
            }
        }
        for (size_t i = 0; i < ry.size(); i++) {
            if (ry[i] != 1.0f) {
                LOG_PRINT("layer norm y[%zu] = %f, expected 1.0\n", i, ry[i]);
                failed = 1;
                break;
            }
        }
    }
    for (auto t : {&self, &other, &vec, &out, &out16, &mA, &mB, &mOut, &x, &y, &w, &b, &mean, &rstd}) {
        Release(t);
    }
    aclDestroyScalar(alpha);
    aclDestroyIntArray(normalizedShape);
    if (g_device) {
        aclrtDestroyStream(stream);
        aclrtResetDevice(deviceId);
    }
    aclFinalize();
    LOG_PRINT("aclnn_sample: %s\n", failed ? "FAILED" : "ok");
    return failed;
}
