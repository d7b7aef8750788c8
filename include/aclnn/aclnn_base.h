/*
 * aclnn_base.h - what every aclnn operator header includes (CANN's
 * aclnn/aclnn_base.h): the objects of acl_meta.h, the runtime's stream type
 * and the aclnn status codes.
 *
 * The two-phase calling convention: aclnnXxxGetWorkspaceSize checks the
 * arguments (shapes, dtypes, formats), plans the kernels and returns the
 * workspace they need and a one-shot executor; aclnnXxx(workspace,
 * workspaceSize, executor, stream) launches them on the stream and consumes
 * the executor. An executor that is never launched stays allocated.
 */
#ifndef OP_API_INC_ACLNN_BASE_H_
#define OP_API_INC_ACLNN_BASE_H_

#include "acl/acl_base.h"
#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACLNN_SUCCESS 0
/* a required tensor, scalar, array or out parameter is NULL */
#define ACLNN_ERR_PARAM_NULLPTR 161001
/* dtype, shape, format or attribute not supported / inconsistent */
#define ACLNN_ERR_PARAM_INVALID 161002
/* a runtime call (the launch on the stream) failed */
#define ACLNN_ERR_RUNTIME_ERROR 361001
#define ACLNN_ERR_INNER 561000
#define ACLNN_ERR_INNER_INFERSHAPE_ERROR 561001
#define ACLNN_ERR_INNER_TILING_ERROR 561002
#define ACLNN_ERR_INNER_FIND_KERNEL_ERROR 561003
#define ACLNN_ERR_INNER_CREATE_EXECUTOR 561101
#define ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR 561102
#define ACLNN_ERR_INNER_NULLPTR 561103

#ifdef __cplusplus
}
#endif

#endif /* OP_API_INC_ACLNN_BASE_H_ */
