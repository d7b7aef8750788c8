/*
 * aclnn_mul.h - out = self * other, with broadcasting and dtype promotion
 * (CANN's aclnnop/aclnn_mul.h; implemented by libopapi.so over npusim).
 */
#ifndef OP_API_INC_MUL_H_
#define OP_API_INC_MUL_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
					       aclTensor *out, uint64_t *workspaceSize,
					       aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
			       aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceMulGetWorkspaceSize(const aclTensor *selfRef,
						      const aclTensor *other,
						      uint64_t *workspaceSize,
						      aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceMul(void *workspace, uint64_t workspaceSize,
				      aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_MUL_H_ */
