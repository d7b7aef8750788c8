// Contexts: one created without aclrtSetDevice opens its device and is
// current; streams and copies work in it; switching contexts switches the
// thread's device; a destroyed context is a dead handle; the last
// reference releases the device.
#include <cstring>

#include "check.h"

int main()
{
    uint32_t n = 0;
    OK(aclInit(nullptr));
    OK(aclrtGetDeviceCount(&n));
    TRUE(n >= 2);

    aclrtContext c0, c1, cur;
    OK(aclrtCreateContext(&c0, 0));
    OK(aclrtGetCurrentContext(&cur));
    TRUE(cur == c0);
    int32_t dev = -1;
    OK(aclrtGetDevice(&dev));
    EXPECT(dev, 0);
    aclrtStream dflt = nullptr, s;
    OK(aclrtCtxGetCurrentDefaultStream(&dflt));
    TRUE(dflt != nullptr);
    uint32_t cores = 0;
    OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &cores));
    TRUE(cores > 0);
    OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &cores));
    TRUE(cores > 0);

    // work in the context: a stream, a copy through device memory
    char in[64] = "through a context", out[64] = {0};
    void *d;
    OK(aclrtCreateStream(&s));
    OK(aclrtMalloc(&d, sizeof(in), ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemcpyAsync(d, sizeof(in), in, sizeof(in), ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(aclrtSynchronizeStream(s));
    OK(aclrtMemcpy(out, sizeof(out), d, sizeof(in), ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(std::strcmp(in, out), 0);
    OK(aclrtFree(d));
    OK(aclrtDestroyStream(s));

    // a second context, on device 1, becomes current; switching back works
    OK(aclrtCreateContext(&c1, 1));
    OK(aclrtGetDevice(&dev));
    EXPECT(dev, 1);
    OK(aclrtSetCurrentContext(c0));
    OK(aclrtGetDevice(&dev));
    EXPECT(dev, 0);
    OK(aclrtGetCurrentContext(&cur));
    TRUE(cur == c0);

    // aclrtSetDevice makes the device's implicit context current, which
    // cannot be destroyed as a created one
    OK(aclrtSetDevice(1));
    OK(aclrtGetCurrentContext(&cur));
    TRUE(cur != c1 && cur != c0);
    EXPECT(aclrtDestroyContext(cur), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtResetDevice(1));

    OK(aclrtDestroyContext(c1));
    EXPECT(aclrtDestroyContext(c1), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtSetCurrentContext(c1), ACL_ERROR_RT_PARAM_INVALID);
    // device 1 had only the context's reference: it is released
    OK(aclrtSetCurrentContext(c0));
    OK(aclrtDestroyContext(c0));
    EXPECT(aclrtCreateStream(&s), ACL_ERROR_RT_CONTEXT_NULL);
    OK(aclFinalize());
    std::printf("[SUCCESS] rt_context\n");
    return 0;
}
