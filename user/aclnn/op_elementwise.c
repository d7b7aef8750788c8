/*
 * op_elementwise.c - aclnnAdd / aclnnInplaceAdd, aclnnMul / aclnnInplaceMul
 * and aclnnCast (aclnnop/aclnn_add.h, aclnn_mul.h, aclnn_cast.h).
 *
 * Binary ops as CANN's aclnn documents them: self and other broadcast; the
 * computation runs in their promoted dtype; out has the broadcast shape and
 * a dtype the promoted one casts to. The plan is CANN's: a Cast kernel for
 * each input not already in the promoted dtype, the AI-vector kernel (Add,
 * Axpy when alpha != 1, Mul), a Cast into out's dtype if that differs; the
 * intermediate tensors are the workspace.
 */
#include <stdio.h>

#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_mul.h"
#include "nn_internal.h"

static const aclDataType k_binary_types[] = {
	ACL_FLOAT,     ACL_FLOAT16,    ACL_BF16,	 ACL_DOUBLE, ACL_INT8,
	ACL_INT16,     ACL_INT32,      ACL_INT64,	 ACL_UINT8,  ACL_BOOL,
	ACL_COMPLEX64, ACL_COMPLEX128, ACL_DT_UNDEFINED,
};

static const aclDataType k_cast_types[] = {
	ACL_FLOAT, ACL_FLOAT16,	  ACL_BF16,	  ACL_DOUBLE,	    ACL_INT8,  ACL_UINT8,
	ACL_INT16, ACL_UINT16,	  ACL_INT32,	  ACL_UINT32,	    ACL_INT64, ACL_UINT64,
	ACL_BOOL,  ACL_COMPLEX64, ACL_COMPLEX128, ACL_DT_UNDEFINED,
};

static double tbytes(const int64_t *dims, uint64_t n, aclDataType dt)
{
	double e = 1;

	for (uint64_t i = 0; i < n; i++)
		e *= (double)dims[i];
	return e * (uint32_t)aclDataTypeSize(dt);
}

static double telems(const int64_t *dims, uint64_t n)
{
	return tbytes(dims, n, ACL_INT8);
}

/* A Cast kernel from (dims, from) to to; adds its output to the workspace
 * when `intermediate`. */
static aclnnStatus plan_cast(aclOpExecutor *e, const char *api, const int64_t *dims, uint64_t n,
			     aclFormat fmt, aclDataType from, aclDataType to, int intermediate)
{
	struct nn_kernel *k = nnop_kernel_add(e, "CastAiCore", "Cast", ACLNPU_TASK_AI_VECTOR_CORE);

	if (!k)
		return nnop_err(ACLNN_ERR_INNER, api, "too many kernels");
	nnop_kernel_in(k, from, fmt, dims, n);
	nnop_kernel_out(k, to, fmt, dims, n);
	if (intermediate)
		e->workspace += (uint64_t)tbytes(dims, n, to);
	if (nnop_model_vector(k, tbytes(dims, n, from) + tbytes(dims, n, to), telems(dims, n)))
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api,
				"tensor too large for the simulator's task time limit");
	return ACLNN_SUCCESS;
}

/* Add (alpha given) or Mul (alpha NULL) of self and other into out. */
static aclnnStatus plan_binary(const char *api, const aclTensor *self, const aclTensor *other,
			       const aclScalar *alpha, int has_alpha, const aclTensor *out,
			       uint64_t *workspace_size, aclOpExecutor **executor)
{
	int64_t bc[ACLNN_MAX_DIMS];
	uint64_t nbc;
	aclDataType pt;
	aclOpExecutor *e;
	struct nn_kernel *k;
	aclnnStatus st;
	char b1[96], b2[96];
	int axpy;
	double in_bytes = 0;

	if (!self || !other || !out || (has_alpha && !alpha) || !workspace_size || !executor)
		return nnop_err(ACLNN_ERR_PARAM_NULLPTR, api,
				"self, other%s, out, workspaceSize and executor must not be NULL",
				has_alpha ? ", alpha" : "");
	if ((st = nnop_check_tensor(api, "self", self)) ||
	    (st = nnop_check_tensor(api, "other", other)) ||
	    (st = nnop_check_tensor(api, "out", out)))
		return st;
	if (!nnop_dtype_in(self->dtype, k_binary_types) ||
	    !nnop_dtype_in(other->dtype, k_binary_types) ||
	    !nnop_dtype_in(out->dtype, k_binary_types))
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api, "dtype %s/%s -> %s not supported",
				aclnpuDataTypeName(self->dtype), aclnpuDataTypeName(other->dtype),
				aclnpuDataTypeName(out->dtype));
	pt = nnop_promote(self->dtype, other->dtype);
	if (pt == ACL_DT_UNDEFINED || !nnop_dtype_in(pt, k_binary_types))
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api, "%s and %s have no common dtype",
				aclnpuDataTypeName(self->dtype), aclnpuDataTypeName(other->dtype));
	if (has_alpha && !nnop_can_cast(alpha->dtype, pt))
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api, "alpha of dtype %s cannot be %s",
				aclnpuDataTypeName(alpha->dtype), aclnpuDataTypeName(pt));
	if (!nnop_can_cast(pt, out->dtype))
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api,
				"result dtype %s cannot be cast to out's %s",
				aclnpuDataTypeName(pt), aclnpuDataTypeName(out->dtype));
	if (nnop_broadcast(self, other, bc, &nbc))
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api, "shapes %s and %s do not broadcast",
				nnop_shape_str(self->dims, self->ndim, b1, sizeof(b1)),
				nnop_shape_str(other->dims, other->ndim, b2, sizeof(b2)));
	if (!nnop_shape_eq(out, bc, nbc))
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api,
				"out shape %s is not the broadcast shape %s",
				nnop_shape_str(out->dims, out->ndim, b1, sizeof(b1)),
				nnop_shape_str(bc, nbc, b2, sizeof(b2)));
	e = nnop_exec_new(api);
	if (!e)
		return nnop_err(ACLNN_ERR_INNER_CREATE_EXECUTOR, api, "out of memory");
	if (nnop_numel(self) == 0 || nnop_numel(other) == 0)
		return nnop_exec_done(e, workspace_size, executor); /* nothing to run */
	if ((self->dtype != pt &&
	     (st = plan_cast(e, api, self->dims, self->ndim, self->format, self->dtype, pt, 1))) ||
	    (other->dtype != pt && (st = plan_cast(e, api, other->dims, other->ndim, other->format,
						   other->dtype, pt, 1)))) {
		nnop_exec_drop(e);
		return st;
	}
	axpy = has_alpha && alpha->f != 1.0;
	k = !has_alpha ? nnop_kernel_add(e, "MulAiCore", "Mul", ACLNPU_TASK_AI_VECTOR_CORE) :
	    axpy       ? nnop_kernel_add(e, "AxpyAiCore", "Axpy", ACLNPU_TASK_AI_VECTOR_CORE) :
			 nnop_kernel_add(e, "AddAiCore", "Add", ACLNPU_TASK_AI_VECTOR_CORE);
	nnop_kernel_in(k, pt, self->format, self->dims, self->ndim);
	nnop_kernel_in(k, pt, other->format, other->dims, other->ndim);
	nnop_kernel_out(k, pt, out->format, bc, nbc);
	in_bytes = tbytes(self->dims, self->ndim, pt) + tbytes(other->dims, other->ndim, pt);
	if (nnop_model_vector(k, in_bytes + tbytes(bc, nbc, pt),
			      telems(bc, nbc) * (axpy ? 2 : 1))) {
		nnop_exec_drop(e);
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api,
				"tensor too large for the simulator's task time limit");
	}
	if (out->dtype != pt) {
		e->workspace += (uint64_t)tbytes(bc, nbc, pt);
		if ((st = plan_cast(e, api, bc, nbc, out->format, pt, out->dtype, 0))) {
			nnop_exec_drop(e);
			return st;
		}
	}
	nnop_compute_set(&e->compute, NN_OP_BINARY);
	e->compute.mul = !has_alpha;
	e->compute.pt = pt;
	e->compute.alpha = has_alpha ? alpha->f : 1;
	e->compute.alpha_i = has_alpha ? alpha->i : 1;
	nnop_compute_tensor(&e->compute, 0, self);
	nnop_compute_tensor(&e->compute, 1, other);
	nnop_compute_tensor(&e->compute, 2, out);
	return nnop_exec_done(e, workspace_size, executor);
}

#define PHASE1(api, call)                                     \
	do {                                                  \
		aclnpuApiScope sc_;                           \
		aclnpuApiBegin(&sc_, api "GetWorkspaceSize"); \
		return aclnpuApiEnd(&sc_, (call));            \
	} while (0)

aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
				     const aclScalar *alpha, aclTensor *out,
				     uint64_t *workspaceSize, aclOpExecutor **executor)
{
	PHASE1("aclnnAdd",
	       plan_binary("aclnnAdd", self, other, alpha, 1, out, workspaceSize, executor));
}

aclnnStatus aclnnAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
		     aclrtStream stream)
{
	return nnop_run("aclnnAdd", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *other,
					    const aclScalar *alpha, uint64_t *workspaceSize,
					    aclOpExecutor **executor)
{
	PHASE1("aclnnInplaceAdd", plan_binary("aclnnInplaceAdd", selfRef, other, alpha, 1, selfRef,
					      workspaceSize, executor));
}

aclnnStatus aclnnInplaceAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
			    aclrtStream stream)
{
	return nnop_run("aclnnInplaceAdd", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
				     uint64_t *workspaceSize, aclOpExecutor **executor)
{
	PHASE1("aclnnMul",
	       plan_binary("aclnnMul", self, other, NULL, 0, out, workspaceSize, executor));
}

aclnnStatus aclnnMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
		     aclrtStream stream)
{
	return nnop_run("aclnnMul", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceMulGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *other,
					    uint64_t *workspaceSize, aclOpExecutor **executor)
{
	PHASE1("aclnnInplaceMul", plan_binary("aclnnInplaceMul", selfRef, other, NULL, 0, selfRef,
					      workspaceSize, executor));
}

aclnnStatus aclnnInplaceMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
			    aclrtStream stream)
{
	return nnop_run("aclnnInplaceMul", workspace, workspaceSize, executor, stream);
}

static aclnnStatus plan_cast_op(const aclTensor *self, aclDataType dtype, const aclTensor *out,
				uint64_t *workspace_size, aclOpExecutor **executor)
{
	const char *api = "aclnnCast";
	aclOpExecutor *e;
	aclnnStatus st;
	char b1[96], b2[96];

	if (!self || !out || !workspace_size || !executor)
		return nnop_err(ACLNN_ERR_PARAM_NULLPTR, api,
				"self, out, workspaceSize and executor must not be NULL");
	if ((st = nnop_check_tensor(api, "self", self)) ||
	    (st = nnop_check_tensor(api, "out", out)))
		return st;
	if (!nnop_dtype_in(self->dtype, k_cast_types) || !nnop_dtype_in(dtype, k_cast_types))
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api, "cast %s -> %s not supported",
				aclnpuDataTypeName(self->dtype), aclnpuDataTypeName(dtype));
	if (out->dtype != dtype)
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api, "out has dtype %s, not %s",
				aclnpuDataTypeName(out->dtype), aclnpuDataTypeName(dtype));
	if (!nnop_shape_eq(out, self->dims, self->ndim))
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api, "out shape %s differs from self's %s",
				nnop_shape_str(out->dims, out->ndim, b1, sizeof(b1)),
				nnop_shape_str(self->dims, self->ndim, b2, sizeof(b2)));
	e = nnop_exec_new(api);
	if (!e)
		return nnop_err(ACLNN_ERR_INNER_CREATE_EXECUTOR, api, "out of memory");
	if (nnop_numel(self) &&
	    (st = plan_cast(e, api, self->dims, self->ndim, self->format, self->dtype, dtype, 0))) {
		nnop_exec_drop(e);
		return st;
	}
	nnop_compute_set(&e->compute, NN_OP_CAST);
	nnop_compute_tensor(&e->compute, 0, self);
	nnop_compute_tensor(&e->compute, 1, out);
	return nnop_exec_done(e, workspace_size, executor);
}

aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor *self, const aclDataType dtype,
				      aclTensor *out, uint64_t *workspaceSize,
				      aclOpExecutor **executor)
{
	PHASE1("aclnnCast", plan_cast_op(self, dtype, out, workspaceSize, executor));
}

aclnnStatus aclnnCast(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
		      aclrtStream stream)
{
	return nnop_run("aclnnCast", workspace, workspaceSize, executor, stream);
}
