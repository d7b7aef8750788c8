/*
 * rt_dump.c - CANN's dump configuration (acl/acl_dump.h, and the model dump
 * calls of acl_rt.h): npusim's kernels compute nothing, so there is no
 * dump to make; each call that would make one says so with
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT and a message naming it.
 */
#include "acl/acl_dump.h"
#include "rt_internal.h"

static aclError no_dump(const char *call)
{
	rt_set_errmsg("%s: npusim's kernels compute nothing and have no data to dump", call);
	return rt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
}

aclError acldumpRegCallback(int32_t (*const messageCallback)(const acldumpChunk *, int32_t),
			    int32_t flag)
{
	return no_dump("acldumpRegCallback");
}

void acldumpUnregCallback(void)
{
}

aclError aclopStartDumpArgs(uint32_t dumpType, const char *path)
{
	return no_dump("aclopStartDumpArgs");
}

aclError aclopStopDumpArgs(uint32_t dumpType)
{
	return no_dump("aclopStopDumpArgs");
}

const char *acldumpGetPath(acldumpType dumpType)
{
	return NULL; /* no dump is ever configured */
}

aclError acldumpSaveExceptionInfo(const char *fileName, const char *userTag,
				  const acldumpTensorInfo *tensors, size_t tensorCount)
{
	return no_dump("acldumpSaveExceptionInfo");
}

aclError acldumpGetExceptionInfoPath(char *path, size_t maxLen)
{
	return no_dump("acldumpGetExceptionInfoPath");
}

aclError aclmdlInitDump(void)
{
	return no_dump("aclmdlInitDump");
}

aclError aclmdlSetDump(const char *dumpCfgPath)
{
	return no_dump("aclmdlSetDump");
}

aclError aclmdlFinalizeDump(void)
{
	return no_dump("aclmdlFinalizeDump");
}
