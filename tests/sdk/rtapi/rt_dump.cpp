// The dump API (acl/acl_dump.h, linked as CANN's dump examples link it,
// libascend_dump.so): npusim has no data to dump, so no dump path is
// configured and each call that would turn a dump on or write one is
// CANN's "feature not supported", with a message, never a silent success.
// Needs no device (tests/sdk/run.sh runs it on the host, the VM suite
// 40_runtime on npusim).
#include <cstring>
#include <initializer_list>

#include "acl/acl_dump.h"
#include "check.h"

static int32_t callback(const acldumpChunk *, int32_t)
{
    return 0;
}

int main()
{
    OK(aclInit(nullptr));
    for (acldumpType t : { AIC_ERR_BRIEF_DUMP, AIC_ERR_NORM_DUMP, AIC_ERR_DETAIL_DUMP,
                   DATA_DUMP, OVERFLOW_DUMP })
        TRUE(acldumpGetPath(t) == nullptr);
    EXPECT(aclopStartDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS, "/tmp"),
           ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    TRUE(std::strstr(aclGetRecentErrMsg(), "aclopStartDumpArgs") != nullptr);
    EXPECT(aclopStopDumpArgs(ACL_OP_DUMP_OP_AICORE_ARGS), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(acldumpRegCallback(callback, 0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    acldumpUnregCallback();
    EXPECT(aclmdlInitDump(), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclmdlSetDump("acl.json"), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclmdlFinalizeDump(), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    char path[256];
    EXPECT(acldumpGetExceptionInfoPath(path, sizeof(path)), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    acldumpTensorInfo info;
    std::memset(&info, 0, sizeof(info));
    EXPECT(acldumpSaveExceptionInfo("f", "tag", &info, 1), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    EXPECT(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    OK(aclFinalize());
    std::printf("[SUCCESS] rt_dump\n");
    return 0;
}
