// Data buffers, half precision, CANN attributes, versions (the SDK's
// share/info/*/version.info through ASCEND_HOME_PATH), the thread's last
// error; with a device (argument "device"): error details and the SoC
// compatibility check.
#include <cstring>
#include <string>

#include "check.h"

int main(int argc, char **argv)
{
    bool device = argc > 1 && std::string(argv[1]) == "device";

    OK(aclInit(nullptr));
    // data buffers describe memory they do not own
    char mem[32];
    aclDataBuffer *b = aclCreateDataBuffer(mem, sizeof(mem));
    TRUE(b != nullptr);
    TRUE(aclGetDataBufferAddr(b) == mem);
    EXPECT(aclGetDataBufferSizeV2(b), sizeof(mem));
    OK(aclDestroyDataBuffer(b));
    EXPECT(aclDestroyDataBuffer(nullptr), ACL_ERROR_INVALID_PARAM);
    // half precision as CANN converts it
    EXPECT(aclFloatToFloat16(1.625f), 0x3e80);
    TRUE(aclFloat16ToFloat(0x3e80) == 1.625f);
    EXPECT(aclFloatToFloat16(1e6f), 0x7bff);
    // versions: the runtime package's string is acl.h's version
    char pkg[] = "runtime", none[] = "no-such-package", v[ACL_PKG_VERSION_MAX_SIZE] = {0};
    int32_t major, minor, patch, num;
    OK(aclsysGetVersion(&major, &minor, &patch));
    OK(aclsysGetVersionStr(pkg, v));
    EXPECT(std::string(v) == std::to_string(major) + "." + std::to_string(minor) + "." +
                                 std::to_string(patch),
           1);
    OK(aclsysGetVersionNum(pkg, &num));
    EXPECT(num, major * 10000000 + minor * 100000 + patch * 1000);
    EXPECT(aclsysGetVersionStr(none, v), ACL_ERROR_INVALID_FILE);
    // attributes of this install
    int32_t on = -1;
    OK(aclGetCannAttribute(ACL_CANN_ATTR_BF16, &on));
    EXPECT(on, 1);
    OK(aclGetCannAttribute(ACL_CANN_ATTR_JIT_COMPILE, &on));
    EXPECT(on, 0);
    // the last error: kept until read
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    EXPECT(aclrtGetRunMode(nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    if (device) {
        aclrtErrorInfo info;
        std::memset(&info, 0xff, sizeof(info));
        OK(aclrtSetDevice(0));
        OK(aclrtGetErrorVerbose(0, &info));
        EXPECT(info.errorType, ACL_RT_NO_ERROR);
        EXPECT(info.hasDetail, 0);
        int32_t compat = -1;
        OK(aclrtCheckArchCompatibility("Ascend910B3", &compat));
        EXPECT(compat, 1);
        OK(aclrtCheckArchCompatibility("Ascend310P3", &compat));
        EXPECT(compat, 0);
        OK(aclrtGetDeviceCapability(0, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, &compat));
        EXPECT(compat, ACL_DEV_FEATURE_NOT_SUPPORT);
        OK(aclrtResetDevice(0));
    }
    OK(aclFinalize());
    std::printf("[SUCCESS] rt_basics%s\n", device ? " (device)" : "");
    return 0;
}
