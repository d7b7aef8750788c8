/*
 * op_norm.c - aclnnSoftmax and aclnnLayerNorm (aclnnop/aclnn_softmax.h,
 * aclnn_layer_norm.h): one AI-vector kernel each, SoftmaxV2 and
 * LayerNormV4 (the latter with the Ascend C system workspace).
 */
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_softmax.h"
#include "nn_internal.h"

static const aclDataType k_softmax_types[] = { ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE,
					       ACL_DT_UNDEFINED };
static const aclDataType k_ln_types[] = { ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DT_UNDEFINED };

static double tensor_bytes(const aclTensor *t)
{
	return (double)nnop_numel(t) * (uint32_t)aclDataTypeSize(t->dtype);
}

static aclnnStatus plan_softmax(const aclTensor *self, int64_t dim, const aclTensor *out,
				uint64_t *workspace_size, aclOpExecutor **executor)
{
	const char *api = "aclnnSoftmax";
	int64_t rank;
	aclOpExecutor *e;
	struct nn_kernel *k;
	aclnnStatus st;
	char b1[96], b2[96];

	if (!self || !out || !workspace_size || !executor)
		return nnop_err(ACLNN_ERR_PARAM_NULLPTR, api,
				"self, out, workspaceSize and executor must not be NULL");
	if ((st = nnop_check_tensor(api, "self", self)) ||
	    (st = nnop_check_tensor(api, "out", out)))
		return st;
	if (!nnop_dtype_in(self->dtype, k_softmax_types) || out->dtype != self->dtype)
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api,
				"dtype %s -> %s (FLOAT, FLOAT16, BF16 or DOUBLE, the same)",
				aclnpuDataTypeName(self->dtype), aclnpuDataTypeName(out->dtype));
	if (!nnop_shape_eq(out, self->dims, self->ndim))
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api, "out shape %s differs from self's %s",
				nnop_shape_str(out->dims, out->ndim, b1, sizeof(b1)),
				nnop_shape_str(self->dims, self->ndim, b2, sizeof(b2)));
	rank = self->ndim ? (int64_t)self->ndim : 1;
	if (dim < -rank || dim >= rank)
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api, "dim %lld out of [%lld, %lld]",
				(long long)dim, (long long)-rank, (long long)rank - 1);
	e = nnop_exec_new(api);
	if (!e)
		return nnop_err(ACLNN_ERR_INNER_CREATE_EXECUTOR, api, "out of memory");
	if (nnop_numel(self) == 0)
		return nnop_exec_done(e, workspace_size, executor);
	k = nnop_kernel_add(e, "SoftmaxV2AiCore", "SoftmaxV2", ACLNPU_TASK_AI_VECTOR_CORE);
	nnop_kernel_in_t(k, self);
	nnop_kernel_out_t(k, out);
	/* max, subtract, exp, sum, divide */
	if (nnop_model_vector(k, 2 * tensor_bytes(self), 5.0 * (double)nnop_numel(self))) {
		nnop_exec_drop(e);
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api,
				"tensor too large for the simulator's task time limit");
	}
	nnop_compute_set(&e->compute, NN_OP_SOFTMAX);
	e->compute.dim = dim < 0 ? dim + rank : dim;
	nnop_compute_tensor(&e->compute, 0, self);
	nnop_compute_tensor(&e->compute, 1, out);
	return nnop_exec_done(e, workspace_size, executor);
}

aclnnStatus aclnnSoftmaxGetWorkspaceSize(const aclTensor *self, int64_t dim, aclTensor *out,
					 uint64_t *workspaceSize, aclOpExecutor **executor)
{
	aclnpuApiScope sc;

	aclnpuApiBegin(&sc, "aclnnSoftmaxGetWorkspaceSize");
	return aclnpuApiEnd(&sc, plan_softmax(self, dim, out, workspaceSize, executor));
}

aclnnStatus aclnnSoftmax(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
			 aclrtStream stream)
{
	return nnop_run("aclnnSoftmax", workspace, workspaceSize, executor, stream);
}

/* An optional tensor of LayerNorm: dtype one of `a`, `b`; shape dims/n. */
static aclnnStatus ln_optional(const char *api, const char *name, const aclTensor *t, aclDataType a,
			       aclDataType b, const int64_t *dims, uint64_t n)
{
	char b1[96], b2[96];
	aclnnStatus st;

	if (!t)
		return ACLNN_SUCCESS;
	if ((st = nnop_check_tensor(api, name, t)))
		return st;
	if (t->dtype != a && t->dtype != b)
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api, "%s has dtype %s (%s or %s)", name,
				aclnpuDataTypeName(t->dtype), aclnpuDataTypeName(a),
				aclnpuDataTypeName(b));
	if (!nnop_shape_eq(t, dims, n))
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api, "%s shape %s, expected %s", name,
				nnop_shape_str(t->dims, t->ndim, b1, sizeof(b1)),
				nnop_shape_str(dims, n, b2, sizeof(b2)));
	return ACLNN_SUCCESS;
}

static aclnnStatus plan_layer_norm(const aclTensor *x, const aclIntArray *ns, const aclTensor *w,
				   const aclTensor *b, double eps, const aclTensor *out,
				   const aclTensor *mean, const aclTensor *rstd,
				   uint64_t *workspace_size, aclOpExecutor **executor)
{
	const char *api = "aclnnLayerNorm";
	int64_t stat_shape[ACLNN_MAX_DIMS];
	uint64_t begin;
	aclOpExecutor *e;
	struct nn_kernel *k;
	aclnnStatus st;
	char b1[96], b2[96];
	double bytes;

	if (!x || !ns || !out || !workspace_size || !executor)
		return nnop_err(ACLNN_ERR_PARAM_NULLPTR, api,
				"input, normalizedShape, out, workspaceSize and executor must "
				"not be NULL");
	if ((st = nnop_check_tensor(api, "input", x)) || (st = nnop_check_tensor(api, "out", out)))
		return st;
	if (!nnop_dtype_in(x->dtype, k_ln_types) || out->dtype != x->dtype)
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api,
				"dtype %s -> %s (FLOAT, FLOAT16 or BF16, the same)",
				aclnpuDataTypeName(x->dtype), aclnpuDataTypeName(out->dtype));
	if (eps != eps)
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api, "eps is NaN");
	if (ns->n < 1 || ns->n > x->ndim)
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api,
				"normalizedShape has %llu dims; input has %llu (1 to that many)",
				(unsigned long long)ns->n, (unsigned long long)x->ndim);
	begin = x->ndim - ns->n;
	for (uint64_t i = 0; i < ns->n; i++)
		if (ns->v[i] != x->dims[begin + i])
			return nnop_err(ACLNN_ERR_PARAM_INVALID, api,
					"normalizedShape %s is not the tail of input %s",
					nnop_shape_str(ns->v, ns->n, b1, sizeof(b1)),
					nnop_shape_str(x->dims, x->ndim, b2, sizeof(b2)));
	if (!nnop_shape_eq(out, x->dims, x->ndim))
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api,
				"out shape %s differs from input's %s",
				nnop_shape_str(out->dims, out->ndim, b1, sizeof(b1)),
				nnop_shape_str(x->dims, x->ndim, b2, sizeof(b2)));
	for (uint64_t i = 0; i < x->ndim; i++)
		stat_shape[i] = i < begin ? x->dims[i] : 1;
	if ((st = ln_optional(api, "weight", w, x->dtype, ACL_FLOAT, ns->v, ns->n)) ||
	    (st = ln_optional(api, "bias", b, x->dtype, ACL_FLOAT, ns->v, ns->n)) ||
	    (st = ln_optional(api, "meanOut", mean, x->dtype, ACL_FLOAT, stat_shape, x->ndim)) ||
	    (st = ln_optional(api, "rstdOut", rstd, x->dtype, ACL_FLOAT, stat_shape, x->ndim)))
		return st;
	e = nnop_exec_new(api);
	if (!e)
		return nnop_err(ACLNN_ERR_INNER_CREATE_EXECUTOR, api, "out of memory");
	if (nnop_numel(x) == 0)
		return nnop_exec_done(e, workspace_size, executor);
	k = nnop_kernel_add(e, "LayerNormV4", "LayerNormV4", ACLNPU_TASK_AI_VECTOR_CORE);
	nnop_kernel_in_t(k, x);
	bytes = 2 * tensor_bytes(x);
	if (w) {
		nnop_kernel_in_t(k, w);
		bytes += tensor_bytes(w);
	}
	if (b) {
		nnop_kernel_in_t(k, b);
		bytes += tensor_bytes(b);
	}
	nnop_kernel_out_t(k, out);
	if (mean) {
		nnop_kernel_out_t(k, mean);
		bytes += tensor_bytes(mean);
	}
	if (rstd) {
		nnop_kernel_out_t(k, rstd);
		bytes += tensor_bytes(rstd);
	}
	/* mean, variance, normalise, scale, shift */
	if (nnop_model_vector(k, bytes, 8.0 * (double)nnop_numel(x))) {
		nnop_exec_drop(e);
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api,
				"tensor too large for the simulator's task time limit");
	}
	e->workspace = NN_SYS_WORKSPACE;
	nnop_compute_set(&e->compute, NN_OP_LAYER_NORM);
	e->compute.dim = (int64_t)ns->n;
	e->compute.eps = eps;
	nnop_compute_tensor(&e->compute, 0, x);
	nnop_compute_tensor(&e->compute, 1, w);
	nnop_compute_tensor(&e->compute, 2, b);
	nnop_compute_tensor(&e->compute, 3, out);
	nnop_compute_tensor(&e->compute, 4, mean);
	nnop_compute_tensor(&e->compute, 5, rstd);
	return nnop_exec_done(e, workspace_size, executor);
}

aclnnStatus aclnnLayerNormGetWorkspaceSize(
	const aclTensor *input, const aclIntArray *normalizedShape, const aclTensor *weightOptional,
	const aclTensor *biasOptional, double eps, aclTensor *out, aclTensor *meanOutOptional,
	aclTensor *rstdOutOptional, uint64_t *workspaceSize, aclOpExecutor **executor)
{
	aclnpuApiScope sc;

	aclnpuApiBegin(&sc, "aclnnLayerNormGetWorkspaceSize");
	return aclnpuApiEnd(&sc, plan_layer_norm(input, normalizedShape, weightOptional,
						 biasOptional, eps, out, meanOutOptional,
						 rstdOutOptional, workspaceSize, executor));
}

aclnnStatus aclnnLayerNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
			   aclrtStream stream)
{
	return nnop_run("aclnnLayerNorm", workspace, workspaceSize, executor, stream);
}
