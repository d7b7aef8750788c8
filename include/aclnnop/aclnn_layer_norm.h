/*
 * aclnn_layer_norm.h - layer normalisation over the trailing normalizedShape dims
 * (CANN's aclnnop/aclnn_layer_norm.h; implemented by libopapi.so over npusim).
 */
#ifndef OP_API_INC_LAYER_NORM_H_
#define OP_API_INC_LAYER_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* input, out: FLOAT, FLOAT16 or BFLOAT16, same shape; normalizedShape: the
 * trailing dims of input (1 .. rank of them); weight/bias (optional): that
 * shape, input's dtype or FLOAT; meanOut/rstdOut (optional): input's
 * shape with the normalised dims 1. */
ACLNN_API aclnnStatus aclnnLayerNormGetWorkspaceSize(
	const aclTensor *input, const aclIntArray *normalizedShape, const aclTensor *weightOptional,
	const aclTensor *biasOptional, double eps, aclTensor *out, aclTensor *meanOutOptional,
	aclTensor *rstdOutOptional, uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnLayerNorm(void *workspace, uint64_t workspaceSize,
				     aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_LAYER_NORM_H_ */
