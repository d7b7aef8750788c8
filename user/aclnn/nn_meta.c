/*
 * nn_meta.c - the objects of aclnn/acl_meta.h: tensors (view shape,
 * strides, offset, format, storage shape, device address), scalars and
 * arrays. They are plain host copies of what the caller gave.
 */
#include <stdlib.h>
#include <string.h>

#include "nn_internal.h"

static int dims_ok(const int64_t *dims, uint64_t n)
{
	if (n > ACLNN_MAX_DIMS || (n && !dims))
		return 0;
	for (uint64_t i = 0; i < n; i++)
		if (dims[i] < 0)
			return 0;
	return 1;
}

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
			   const int64_t *stride, int64_t offset, aclFormat format,
			   const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData)
{
	aclTensor *t;

	if (!dims_ok(viewDims, viewDimsNum) || !dims_ok(storageDims, storageDimsNum) ||
	    (viewDimsNum && !stride) || offset < 0)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->dtype = dataType;
	t->format = format;
	t->ndim = viewDimsNum;
	if (viewDimsNum) {
		memcpy(t->dims, viewDims, viewDimsNum * sizeof(int64_t));
		memcpy(t->strides, stride, viewDimsNum * sizeof(int64_t));
	}
	t->offset = offset;
	t->nstorage = storageDimsNum;
	if (storageDimsNum)
		memcpy(t->storage, storageDims, storageDimsNum * sizeof(int64_t));
	t->data = tensorData;
	return t;
}

aclScalar *aclCreateScalar(void *value, aclDataType dataType)
{
	aclScalar *s;

	if (!value)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->dtype = dataType;
	switch (dataType) {
	case ACL_FLOAT: s->f = *(const float *)value; break;
	case ACL_DOUBLE: s->f = *(const double *)value; break;
	case ACL_COMPLEX64: s->f = ((const float *)value)[0]; break;
	case ACL_COMPLEX128: s->f = ((const double *)value)[0]; break;
	case ACL_FLOAT16: {
		/* IEEE half: sign, 5-bit exponent, 10-bit mantissa */
		uint16_t h = *(const uint16_t *)value;
		int e = (h >> 10) & 0x1f;
		double m = h & 0x3ff;

		/* 2^(e-15) as a double's bits: no libm */
		uint64_t bits = (uint64_t)(e - 15 + 1023) << 52;
		double p2;

		memcpy(&p2, &bits, sizeof(p2));
		s->f = e == 0  ? m / (1 << 24) :
		       e == 31 ? (m ? __builtin_nan("") : __builtin_inf()) :
				 (1.0 + m / 1024.0) * p2;
		if (h & 0x8000)
			s->f = -s->f;
		break;
	}
	case ACL_BF16: {
		uint32_t w = (uint32_t) * (const uint16_t *)value << 16;
		float f;

		memcpy(&f, &w, sizeof(f));
		s->f = f;
		break;
	}
	case ACL_INT8: s->i = *(const int8_t *)value; break;
	case ACL_UINT8: s->i = *(const uint8_t *)value; break;
	case ACL_INT16: s->i = *(const int16_t *)value; break;
	case ACL_UINT16: s->i = *(const uint16_t *)value; break;
	case ACL_INT32: s->i = *(const int32_t *)value; break;
	case ACL_UINT32: s->i = *(const uint32_t *)value; break;
	case ACL_INT64: s->i = *(const int64_t *)value; break;
	case ACL_UINT64: s->i = (int64_t) * (const uint64_t *)value; break;
	case ACL_BOOL: s->i = *(const uint8_t *)value != 0; break;
	default: free(s); return NULL;
	}
	if (!nnop_dtype_is_float(dataType) && !nnop_dtype_is_complex(dataType))
		s->f = (double)s->i;
	return s;
}

#define ARRAY_CREATE(type, elem, value, size)                              \
	do {                                                               \
		type *a_;                                                  \
		if ((size && !value) || size > (1u << 24))                 \
			return NULL;                                       \
		a_ = malloc(sizeof(*a_) + (size_t)size * sizeof(elem));    \
		if (!a_)                                                   \
			return NULL;                                       \
		a_->n = size;                                              \
		if (size)                                                  \
			memcpy(a_->v, value, (size_t)size * sizeof(elem)); \
		return a_;                                                 \
	} while (0)

aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size)
{
	ARRAY_CREATE(aclIntArray, int64_t, value, size);
}

aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size)
{
	ARRAY_CREATE(aclFloatArray, float, value, size);
}

aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size)
{
	ARRAY_CREATE(aclBoolArray, bool, value, size);
}

aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size)
{
	ARRAY_CREATE(aclTensorList, const aclTensor *, value, size);
}

/* CANN's destroy functions accept NULL. */
aclnnStatus aclDestroyTensor(const aclTensor *tensor)
{
	free((void *)tensor);
	return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyScalar(const aclScalar *scalar)
{
	free((void *)scalar);
	return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyIntArray(const aclIntArray *array)
{
	free((void *)array);
	return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyFloatArray(const aclFloatArray *array)
{
	free((void *)array);
	return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyBoolArray(const aclBoolArray *array)
{
	free((void *)array);
	return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyTensorList(const aclTensorList *array)
{
	free((void *)array);
	return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum)
{
	if (!tensor || !viewDims || !viewDimsNum)
		return ACLNN_ERR_PARAM_NULLPTR;
	*viewDims = (int64_t *)tensor->dims;
	*viewDimsNum = tensor->ndim;
	return ACLNN_SUCCESS;
}

aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims,
			       uint64_t *storageDimsNum)
{
	if (!tensor || !storageDims || !storageDimsNum)
		return ACLNN_ERR_PARAM_NULLPTR;
	*storageDims = (int64_t *)tensor->storage;
	*storageDimsNum = tensor->nstorage;
	return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue, uint64_t *stridesNum)
{
	if (!tensor || !stridesValue || !stridesNum)
		return ACLNN_ERR_PARAM_NULLPTR;
	*stridesValue = (int64_t *)tensor->strides;
	*stridesNum = tensor->ndim;
	return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset)
{
	if (!tensor || !offset)
		return ACLNN_ERR_PARAM_NULLPTR;
	*offset = tensor->offset;
	return ACLNN_SUCCESS;
}

aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format)
{
	if (!tensor || !format)
		return ACLNN_ERR_PARAM_NULLPTR;
	*format = tensor->format;
	return ACLNN_SUCCESS;
}

aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType)
{
	if (!tensor || !dataType)
		return ACLNN_ERR_PARAM_NULLPTR;
	*dataType = tensor->dtype;
	return ACLNN_SUCCESS;
}

#define ARRAY_SIZE_GET(a, size)                         \
	do {                                            \
		if (!(a) || !(size))                    \
			return ACLNN_ERR_PARAM_NULLPTR; \
		*(size) = (a)->n;                       \
		return ACLNN_SUCCESS;                   \
	} while (0)

aclnnStatus aclGetIntArraySize(const aclIntArray *array, uint64_t *size)
{
	ARRAY_SIZE_GET(array, size);
}

aclnnStatus aclGetFloatArraySize(const aclFloatArray *array, uint64_t *size)
{
	ARRAY_SIZE_GET(array, size);
}

aclnnStatus aclGetBoolArraySize(const aclBoolArray *array, uint64_t *size)
{
	ARRAY_SIZE_GET(array, size);
}

aclnnStatus aclGetTensorListSize(const aclTensorList *tensorList, uint64_t *size)
{
	ARRAY_SIZE_GET(tensorList, size);
}
