/*
 * aclnn_add.h - out = self + alpha * other, with broadcasting and dtype promotion
 * (CANN's aclnnop/aclnn_add.h; implemented by libopapi.so over npusim).
 */
#ifndef OP_API_INC_ADD_H_
#define OP_API_INC_ADD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* self, other: FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT8, INT16, INT32, INT64,
 * UINT8, BOOL, COMPLEX64, COMPLEX128; shapes broadcastable, at most 8 dims;
 * out: the broadcast shape and a dtype the promoted type casts to. */
ACLNN_API aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
					       const aclScalar *alpha, aclTensor *out,
					       uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
			       aclrtStream stream);

/* selfRef = selfRef + alpha * other (other broadcasts to selfRef). */
ACLNN_API aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor *selfRef,
						      const aclTensor *other,
						      const aclScalar *alpha,
						      uint64_t *workspaceSize,
						      aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnInplaceAdd(void *workspace, uint64_t workspaceSize,
				      aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ADD_H_ */
