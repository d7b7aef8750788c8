/*
 * aclnn_softmax.h - softmax along one dim
 * (CANN's aclnnop/aclnn_softmax.h; implemented by libopapi.so over npusim).
 */
#ifndef OP_API_INC_SOFTMAX_H_
#define OP_API_INC_SOFTMAX_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* self, out: FLOAT, FLOAT16, BFLOAT16 or DOUBLE, same dtype and shape;
 * dim in [-rank, rank - 1] (a 0-D tensor: -1 or 0). */
ACLNN_API aclnnStatus aclnnSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim,
						   aclTensor *out, uint64_t *workspaceSize,
						   aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnSoftmax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
				   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_SOFTMAX_H_ */
