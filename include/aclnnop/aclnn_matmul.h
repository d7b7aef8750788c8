/*
 * aclnn_matmul.h - matrix product of 1-D to 6-D tensors (torch.matmul rules)
 * (CANN's aclnnop/aclnn_matmul.h; implemented by libopapi.so over npusim).
 */
#ifndef OP_API_INC_MATMUL_H_
#define OP_API_INC_MATMUL_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cubeMathType: 0 KEEP_DTYPE, 1 ALLOW_FP32_DOWN_PRECISION, 2 USE_FP16,
 * 3 USE_HF32. self, mat2, out: FLOAT, FLOAT16 or BFLOAT16, one dtype. */
ACLNN_API aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2,
						  aclTensor *out, int8_t cubeMathType,
						  uint64_t *workspaceSize,
						  aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnMatmul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
				  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_MATMUL_H_ */
