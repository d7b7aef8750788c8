/*
 * acl.h - the ACL umbrella header, as CANN's: applications include
 * "acl/acl.h" (runtime) and "acl/acl_prof.h" (profiling).
 *
 * npuprof's own text. It provides the runtime (acl_rt.h, model run
 * instances included) and npuprof's operator launch (acl_npu_op.h); the
 * model-file (acl_mdl.h) and op-compile APIs of CANN are not part of the
 * simulation.
 */
#ifndef INC_EXTERNAL_ACL_ACL_H_
#define INC_EXTERNAL_ACL_ACL_H_

#include "acl_base.h"
#include "acl_rt.h"
#include "acl_npu_op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CANN's version macros (the simulated SDK reports itself as 8.0). */
#define ACL_MAJOR_VERSION 8
#define ACL_MINOR_VERSION 0
#define ACL_PATCH_VERSION 0

ACL_FUNC_VISIBILITY aclError aclsysGetVersion(int32_t *majorVersion, int32_t *minorVersion,
					      int32_t *patchVersion);
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_H_ */
