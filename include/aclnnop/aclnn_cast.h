/*
 * aclnn_cast.h - out = self converted to dtype
 * (CANN's aclnnop/aclnn_cast.h; implemented by libopapi.so over npusim).
 */
#ifndef OP_API_INC_CAST_H_
#define OP_API_INC_CAST_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out: self's shape, dtype `dtype`. */
ACLNN_API aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor *self, const aclDataType dtype,
						aclTensor *out, uint64_t *workspaceSize,
						aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnCast(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
				aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_CAST_H_ */
