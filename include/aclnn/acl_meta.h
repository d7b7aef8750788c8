/*
 * acl_meta.h - the aclnn operator API's objects (CANN's aclnn/acl_meta.h):
 * tensors, scalars, arrays and the executor handle, created on the host and
 * passed to the aclnnXxxGetWorkspaceSize functions of aclnnop/aclnn_*.h.
 * Implemented by libnnopbase.so over npuprof's simulated runtime.
 *
 * Objects are immutable once created and may be destroyed as soon as the
 * GetWorkspaceSize call that uses them has returned (the executor keeps what
 * it needs). Creation returns NULL for inconsistent arguments: dims given
 * as NULL with a non-zero count, a negative dim, more than ACLNN_MAX_DIMS
 * dims, or a NULL stride with view dims.
 */
#ifndef OP_API_OP_API_COMMON_INC_EXTERNAL_ACL_META_H
#define OP_API_OP_API_COMMON_INC_EXTERNAL_ACL_META_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ACL_DEPRECATED
#ifdef __GNUC__
#define ACL_DEPRECATED __attribute__((deprecated))
#define ACL_DEPRECATED_MESSAGE(message) __attribute__((deprecated(message)))
#else
#define ACL_DEPRECATED
#define ACL_DEPRECATED_MESSAGE(message)
#endif
#endif

#ifndef ACLNN_META
#define ACLNN_META
typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;
typedef struct aclIntArray aclIntArray;
typedef struct aclFloatArray aclFloatArray;
typedef struct aclBoolArray aclBoolArray;
typedef struct aclTensorList aclTensorList;

typedef int32_t aclnnStatus;
#endif

/* npuprof: the most dims an aclTensor holds (the operators take <= 8). */
#define ACLNN_MAX_DIMS 25

ACL_FUNC_VISIBILITY aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum,
					       aclDataType dataType, const int64_t *stride,
					       int64_t offset, aclFormat format,
					       const int64_t *storageDims, uint64_t storageDimsNum,
					       void *tensorData);

ACL_FUNC_VISIBILITY aclScalar *aclCreateScalar(void *value, aclDataType dataType);
ACL_FUNC_VISIBILITY aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size);
ACL_FUNC_VISIBILITY aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size);
ACL_FUNC_VISIBILITY aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size);
ACL_FUNC_VISIBILITY aclTensorList *aclCreateTensorList(const aclTensor *const *value,
						       uint64_t size);

ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor *tensor);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyScalar(const aclScalar *scalar);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyIntArray(const aclIntArray *array);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyFloatArray(const aclFloatArray *array);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyBoolArray(const aclBoolArray *array);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensorList(const aclTensorList *array);

/* The getters hand out pointers into the object (valid until it is
 * destroyed). */
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims,
						uint64_t *viewDimsNum);
ACL_FUNC_VISIBILITY aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims,
						   uint64_t *storageDimsNum);
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue,
						  uint64_t *stridesNum);
ACL_FUNC_VISIBILITY aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset);
ACL_FUNC_VISIBILITY aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format);
ACL_FUNC_VISIBILITY aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType);
ACL_FUNC_VISIBILITY aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size);
ACL_FUNC_VISIBILITY aclnnStatus aclGetFloatArraySize(const aclFloatArray *array, uint64_t *size);
ACL_FUNC_VISIBILITY aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size);
ACL_FUNC_VISIBILITY aclnnStatus aclGetTensorListSize(const aclTensorList *tensorList,
						     uint64_t *size);

#ifdef __cplusplus
}
#endif

#endif /* OP_API_OP_API_COMMON_INC_EXTERNAL_ACL_META_H */
