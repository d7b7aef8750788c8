/*
 * acl_base.h - the base types and error codes of the CANN ACL C API, as far as
 * the profiling API (acl_prof.h) needs them.
 *
 * This is npuprof's own text. Names, types and values match CANN's public
 * headers (acl_base.h, acl_base_rt.h, error_codes/rt_error_codes.h) so that
 * code written for CANN compiles unchanged. CANN declares the ACL error codes
 * as `static const int` (not macros, not an enum); we do the same so that a
 * program which takes their address or redeclares them behaves the same.
 * The runtime headers (acl.h, acl_rt.h ...) arrive with npuprof's runtime and
 * include this file.
 *
 * Compiles as C11 and as C++.
 */
#ifndef INC_EXTERNAL_ACL_ACL_BASE_H_
#define INC_EXTERNAL_ACL_ACL_BASE_H_

#include <stddef.h>
#include <stdint.h>

#include "error_codes/rt_error_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every ACL function has default visibility, whatever -fvisibility says. */
#ifndef ACL_FUNC_VISIBILITY
#if defined(_MSC_VER)
#define ACL_FUNC_VISIBILITY _declspec(dllexport)
#else
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#endif
#endif

/* 0 is success; every other value is one of the codes below, or -1 from the
 * msproftx functions (see acl_prof.h). */
typedef int aclError;

/* Opaque runtime handles. */
typedef void *aclrtStream;
typedef void *aclrtEvent;
typedef void *aclrtContext;
typedef void *aclrtLabel; /* a position in a model stream (aclrtSetLabel) */
typedef void *aclrtLabelList;
typedef void *aclrtTaskGrp; /* tasks of a capture that can be updated */

/* A custom allocator (acl_rt_allocator.h): the descriptor, the caller's
 * allocator object, a block it handed out, an address it is advised. */
typedef void *aclrtAllocatorDesc;
typedef void *aclrtAllocator;
typedef void *aclrtAllocatorBlock;
typedef void *aclrtAllocatorAddr;

/* A pointer and a size, owned by the caller (CANN: acl_base_rt.h). */
typedef struct aclDataBuffer aclDataBuffer;
/* IEEE 754 half precision, as its bits. */
typedef uint16_t aclFloat16;

static const int ACL_SUCCESS = 0;
static const int ACL_ERROR_NONE = 0;

/* Parameter and state errors (1000xx). */
static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_INVALID_FILE = 100003;
static const int ACL_ERROR_WRITE_FILE = 100004;
static const int ACL_ERROR_INVALID_PROFILING_CONFIG = 100010;
static const int ACL_ERROR_INVALID_MODEL_ID = 100011;
static const int ACL_ERROR_REPEAT_FINALIZE = 100037;
static const int ACL_ERROR_PROF_ALREADY_RUN = 100042;
static const int ACL_ERROR_PROF_NOT_RUN = 100043;

/* Profiling subscription errors (1480xx). */
static const int ACL_ERROR_PROF_REPEAT_SUBSCRIBE = 148046;
static const int ACL_ERROR_PROF_API_CONFLICT = 148047;

/* Resource and support errors (2000xx). */
static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_API_NOT_SUPPORT = 200001;
static const int ACL_ERROR_INVALID_DEVICE = 200002;
static const int ACL_ERROR_INVALID_RESOURCE_HANDLE = 200005;
static const int ACL_ERROR_FEATURE_UNSUPPORTED = 200006;
static const int ACL_ERROR_PROF_MODULES_UNSUPPORTED = 200007;

static const int ACL_ERROR_STORAGE_OVER_LIMIT = 300000;

/* Internal failures (5000xx). */
static const int ACL_ERROR_INTERNAL_ERROR = 500000;
static const int ACL_ERROR_FAILURE = 500001;
static const int ACL_ERROR_GE_FAILURE = 500002;
static const int ACL_ERROR_RT_FAILURE = 500003;
static const int ACL_ERROR_DRV_FAILURE = 500004;
static const int ACL_ERROR_PROFILING_FAILURE = 500005;

/* The runtime's own codes (ACL_ERROR_RT_*) are macros, in
 * error_codes/rt_error_codes.h. */

/* Tensor element types and layouts (the values of CANN's aclDataType and
 * aclFormat), used by npuprof's op launch (acl_npu_op.h). */
typedef enum {
	ACL_DT_UNDEFINED = -1,
	ACL_FLOAT = 0,
	ACL_FLOAT16 = 1,
	ACL_INT8 = 2,
	ACL_INT32 = 3,
	ACL_UINT8 = 4,
	ACL_INT16 = 6,
	ACL_UINT16 = 7,
	ACL_UINT32 = 8,
	ACL_INT64 = 9,
	ACL_UINT64 = 10,
	ACL_DOUBLE = 11,
	ACL_BOOL = 12,
	ACL_STRING = 13,
	ACL_COMPLEX64 = 16,
	ACL_COMPLEX128 = 17,
	ACL_BF16 = 27,
} aclDataType;

/* Bytes of one element of dataType; 0 for ACL_DT_UNDEFINED and unknown types. */
ACL_FUNC_VISIBILITY size_t aclDataTypeSize(aclDataType dataType);

/* Data buffers: a descriptor of caller-owned memory (NULL data and size 0
 * are allowed, as CANN's); NULL only when out of memory. Destroying one
 * never frees the memory. */
ACL_FUNC_VISIBILITY aclDataBuffer *aclCreateDataBuffer(void *data, size_t size);
ACL_FUNC_VISIBILITY aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer);
ACL_FUNC_VISIBILITY aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data,
						 size_t size);
ACL_FUNC_VISIBILITY void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer);
/* Deprecated by CANN for aclGetDataBufferSizeV2; sizes above 4 GiB give 0. */
ACL_FUNC_VISIBILITY uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer);
ACL_FUNC_VISIBILITY size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer);

/* Half-precision conversions with CANN's saturating semantics: float to
 * fp16 rounds to nearest even and maps NaN and +-Inf (and overflow) to
 * +-65504; fp16 to float maps +Inf to 65536, -Inf to -65536, NaN to 98304. */
ACL_FUNC_VISIBILITY float aclFloat16ToFloat(aclFloat16 value);
ACL_FUNC_VISIBILITY aclFloat16 aclFloatToFloat16(float value);

/* Features of the CANN install (aclGetCannAttribute*). npusim's SDK
 * reports INF_NAN and BF16 (the 910B's) and not JIT_COMPILE (no op
 * compiler). */
typedef enum {
	ACL_CANN_ATTR_UNDEFINED = -1,
	ACL_CANN_ATTR_INF_NAN = 0,
	ACL_CANN_ATTR_BF16 = 1,
	ACL_CANN_ATTR_JIT_COMPILE = 2
} aclCannAttr;

ACL_FUNC_VISIBILITY aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num);
ACL_FUNC_VISIBILITY aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value);

typedef enum {
	ACL_FORMAT_UNDEFINED = -1,
	ACL_FORMAT_NCHW = 0,
	ACL_FORMAT_NHWC = 1,
	ACL_FORMAT_ND = 2,
	ACL_FORMAT_NC1HWC0 = 3,
	ACL_FORMAT_FRACTAL_Z = 4,
	ACL_FORMAT_NC1HWC0_C04 = 12,
	ACL_FORMAT_HWCN = 16,
	ACL_FORMAT_NDHWC = 27,
	ACL_FORMAT_FRACTAL_NZ = 29,
	ACL_FORMAT_NCDHW = 30,
	ACL_FORMAT_NDC1HWC0 = 32,
	ACL_FRACTAL_Z_3D = 33,
} aclFormat;

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_BASE_H_ */
