/*
 * profacl.c - the ProfAcl* entry points that CANN's libmsprofiler.so calls
 * behind each aclprof* function (hicann/runtime src/dfx/msprof/collector/
 * dvvp/profapi/inc/prof_inner_api.h), MsprofStart/MsprofStop/MsprofSetConfig
 * and profSetStepInfo. Each is the aclprof* implementation of user/recorder
 * (one definition), reached under CANN's name.
 */
#include <stdint.h>
#include <string.h>

#include "acl/acl_prof.h"
#include "profiling/prof_api.h"

#include "hostrec.h"
#include "profapi_internal.h"

#define PROFACL_API __attribute__((visibility("default")))

PROFACL_API int32_t ProfAclInit(uint32_t type, const char *profilerPath, uint32_t len);
PROFACL_API int32_t ProfAclStart(uint32_t type, const void *profilerConfig);
PROFACL_API int32_t ProfAclStop(uint32_t type, const void *profilerConfig);
PROFACL_API int32_t ProfAclFinalize(uint32_t type);
PROFACL_API int32_t ProfAclSetConfig(uint32_t configType, const char *config, size_t configLength);
PROFACL_API void *ProfAclCreateStamp(void);
PROFACL_API void ProfAclDestroyStamp(void *stamp);
PROFACL_API int32_t ProfAclPush(void *stamp);
PROFACL_API int32_t ProfAclPop(void);
PROFACL_API int32_t ProfAclRangeStart(void *stamp, uint32_t *rangeId);
PROFACL_API int32_t ProfAclRangeStop(uint32_t rangeId);
PROFACL_API int32_t ProfAclSetStampTraceMessage(void *stamp, const char *msg, uint32_t msgLen);
PROFACL_API int32_t ProfAclMark(void *stamp);
PROFACL_API int32_t ProfAclMarkEx(const char *msg, size_t msgLen, aclrtStream stream);
PROFACL_API int32_t ProfAclSetStampCategory(VOID_PTR stamp, uint32_t category);
PROFACL_API int32_t ProfAclSetStampPayload(VOID_PTR stamp, const int32_t type, VOID_PTR value);
PROFACL_API int32_t ProfAclRangePushEx(void *attr);
PROFACL_API int32_t ProfAclRangePop(void);
PROFACL_API bool MsprofHostFreqIsEnable(void);
PROFACL_API uint64_t ProfStr2Id(const char *hashInfo, size_t length);

int32_t ProfAclInit(uint32_t type, const char *profilerPath, uint32_t len)
{
	(void)type;
	return aclprofInit(profilerPath, len);
}

int32_t ProfAclStart(uint32_t type, const void *profilerConfig)
{
	(void)type;
	return aclprofStart(profilerConfig);
}

int32_t ProfAclStop(uint32_t type, const void *profilerConfig)
{
	(void)type;
	return aclprofStop(profilerConfig);
}

int32_t ProfAclFinalize(uint32_t type)
{
	(void)type;
	return aclprofFinalize();
}

int32_t ProfAclSetConfig(uint32_t configType, const char *config, size_t configLength)
{
	return aclprofSetConfig((aclprofConfigType)configType, config, configLength);
}

void *ProfAclCreateStamp(void)
{
	return aclprofCreateStamp();
}

void ProfAclDestroyStamp(void *stamp)
{
	aclprofDestroyStamp(stamp);
}

int32_t ProfAclPush(void *stamp)
{
	return aclprofPush(stamp);
}

int32_t ProfAclPop(void)
{
	return aclprofPop();
}

int32_t ProfAclRangeStart(void *stamp, uint32_t *rangeId)
{
	return aclprofRangeStart(stamp, rangeId);
}

int32_t ProfAclRangeStop(uint32_t rangeId)
{
	return aclprofRangeStop(rangeId);
}

int32_t ProfAclSetStampTraceMessage(void *stamp, const char *msg, uint32_t msgLen)
{
	return aclprofSetStampTraceMessage(stamp, msg, msgLen);
}

int32_t ProfAclMark(void *stamp)
{
	return aclprofMark(stamp);
}

int32_t ProfAclMarkEx(const char *msg, size_t msgLen, aclrtStream stream)
{
	return aclprofMarkEx(msg, msgLen, stream);
}

int32_t ProfAclSetStampCategory(VOID_PTR stamp, uint32_t category)
{
	return aclprofSetStampCategory(stamp, category);
}

int32_t ProfAclSetStampPayload(VOID_PTR stamp, const int32_t type, VOID_PTR value)
{
	return aclprofSetStampPayload(stamp, type, value);
}

int32_t ProfAclRangePushEx(void *attr)
{
	return aclprofRangePushEx(attr);
}

int32_t ProfAclRangePop(void)
{
	return aclprofRangePop();
}

/* npuprof's hosts report no host oscillator frequency: MsprofSysCycleTime
 * is CLOCK_MONOTONIC_RAW ns (profapi.c). */
bool MsprofHostFreqIsEnable(void)
{
	return false;
}

uint64_t ProfStr2Id(const char *hashInfo, size_t length)
{
	return MsprofStr2Id(hashInfo, length);
}

int32_t MsprofSetConfig(uint32_t configType, const char *config, size_t configLength)
{
	return aclprofSetConfig((aclprofConfigType)configType, config, configLength) ==
			       ACL_SUCCESS ?
		       MSPROF_ERROR_NONE :
		       MSPROF_ERROR_CONFIG_INVALID;
}

/* MsprofStart(type, struct MsprofConfig *, size): a collection of the
 * config's profSwitch on its devices, in its dumpPath (else the last
 * aclprofInit path), exactly as aclprofInit + aclprofStart would start it. */
PROFACL_API int32_t MsprofStart(uint32_t dataType, const void *data, uint32_t length)
{
	const struct MsprofConfig *c = data;
	aclprofConfig *cfg;
	aclError r;
	size_t plen;

	(void)dataType;
	if (!c || length != sizeof(*c) || c->devNums > MSPROF_MAX_DEV_NUM)
		return MSPROF_ERROR_CONFIG_INVALID;
	plen = strnlen(c->dumpPath, sizeof(c->dumpPath));
	if (plen == sizeof(c->dumpPath))
		return MSPROF_ERROR_CONFIG_INVALID;
	if (plen) {
		r = aclprofInit(c->dumpPath, plen);
		if (r != ACL_SUCCESS && r != ACL_ERROR_REPEAT_INITIALIZE)
			return MSPROF_ERROR_CONFIG_INVALID;
	}
	cfg = aclprofCreateConfig((uint32_t *)c->devIdList, c->devNums, ACL_AICORE_NONE, NULL,
				  c->profSwitch & ~PROF_RUNTIME_TRACE_MASK);
	if (!cfg)
		return MSPROF_ERROR_CONFIG_INVALID;
	r = aclprofStart(cfg);
	aclprofDestroyConfig(cfg);
	return r == ACL_SUCCESS ? MSPROF_ERROR_NONE : MSPROF_ERROR;
}

PROFACL_API int32_t MsprofStop(uint32_t dataType, const void *data, uint32_t length)
{
	(void)dataType;
	if (data && length != sizeof(struct MsprofConfig))
		return MSPROF_ERROR_CONFIG_INVALID;
	return aclprofStop(NULL) == ACL_SUCCESS ? MSPROF_ERROR_NONE : MSPROF_ERROR;
}

/* A framework's step boundary: a STEP record on the calling thread. */
int32_t profSetStepInfo(const uint64_t indexId, const uint16_t tagId, void *const stream)
{
	struct npuprof_hostfmt_step *r;

	if (tagId > ACL_STEP_END)
		return -1;
	r = npuprof_hostrec_reserve(NPUPROF_HOSTFMT_STEP, sizeof(*r));
	if (!r)
		return -1;
	r->tid = npuprof_hostrec_tid();
	r->tag = tagId;
	r->index_id = indexId;
	r->time_ns = npuprof_hostrec_now();
	r->stream = (uint64_t)(uintptr_t)stream;
	npuprof_hostrec_commit(r);
	return 0;
}
