/*
 * op_matmul.c - aclnnMatmul (aclnnop/aclnn_matmul.h): the matrix product
 * of 1-D to 6-D tensors with torch.matmul's rules. A 1-D self is a row
 * [1,K] and a 1-D mat2 a column [K,1] whose unit dim the result drops; the
 * dims before the last two broadcast as batch dims. One cube kernel:
 * MatMulV2 for a single matrix product, BatchMatMulV2 otherwise, with the
 * 16 MiB system workspace of CANN's Ascend C kernels.
 */
#include "aclnnop/aclnn_matmul.h"
#include "nn_internal.h"

static const aclDataType k_mm_types[] = { ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DT_UNDEFINED };

static aclnnStatus plan_matmul(const aclTensor *self, const aclTensor *mat2, const aclTensor *out,
			       int8_t cube, uint64_t *workspace_size, aclOpExecutor **executor)
{
	const char *api = "aclnnMatmul";
	int64_t shape[ACLNN_MAX_DIMS], m, k, k2, n;
	uint64_t ns = 0, ba, bb, nbatch;
	double batch = 1;
	aclOpExecutor *e;
	struct nn_kernel *kn;
	aclnnStatus st;
	char b1[96], b2[96];

	if (!self || !mat2 || !out || !workspace_size || !executor)
		return nnop_err(ACLNN_ERR_PARAM_NULLPTR, api,
				"self, mat2, out, workspaceSize and executor must not be NULL");
	if ((st = nnop_check_tensor(api, "self", self)) ||
	    (st = nnop_check_tensor(api, "mat2", mat2)) ||
	    (st = nnop_check_tensor(api, "out", out)))
		return st;
	if (!nnop_dtype_in(self->dtype, k_mm_types) || mat2->dtype != self->dtype ||
	    out->dtype != self->dtype)
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api,
				"dtypes %s x %s -> %s (one of FLOAT, FLOAT16, BF16 for all three)",
				aclnpuDataTypeName(self->dtype), aclnpuDataTypeName(mat2->dtype),
				aclnpuDataTypeName(out->dtype));
	if (cube < 0 || cube > 3)
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api, "cubeMathType %d (0..3)", cube);
	if (cube == 2 && self->dtype == ACL_BF16)
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api, "cubeMathType USE_FP16 with BF16");
	if (self->ndim < 1 || self->ndim > 6 || mat2->ndim < 1 || mat2->ndim > 6)
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api,
				"self has %llu dims, mat2 %llu (1 to 6 each)",
				(unsigned long long)self->ndim, (unsigned long long)mat2->ndim);
	m = self->ndim == 1 ? 1 : self->dims[self->ndim - 2];
	k = self->dims[self->ndim - 1];
	k2 = mat2->ndim == 1 ? mat2->dims[0] : mat2->dims[mat2->ndim - 2];
	n = mat2->ndim == 1 ? 1 : mat2->dims[mat2->ndim - 1];
	if (k != k2)
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api,
				"self %s and mat2 %s: inner dims %lld and %lld differ",
				nnop_shape_str(self->dims, self->ndim, b1, sizeof(b1)),
				nnop_shape_str(mat2->dims, mat2->ndim, b2, sizeof(b2)),
				(long long)k, (long long)k2);
	/* batch dims, broadcast from the right */
	ba = self->ndim > 2 ? self->ndim - 2 : 0;
	bb = mat2->ndim > 2 ? mat2->ndim - 2 : 0;
	nbatch = ba > bb ? ba : bb;
	for (uint64_t i = 0; i < nbatch; i++) {
		int64_t da = i < nbatch - ba ? 1 : self->dims[i - (nbatch - ba)];
		int64_t db = i < nbatch - bb ? 1 : mat2->dims[i - (nbatch - bb)];

		if (da != db && da != 1 && db != 1)
			return nnop_err(ACLNN_ERR_PARAM_INVALID, api,
					"batch dims of %s and %s do not broadcast",
					nnop_shape_str(self->dims, self->ndim, b1, sizeof(b1)),
					nnop_shape_str(mat2->dims, mat2->ndim, b2, sizeof(b2)));
		shape[ns++] = da == 1 ? db : da;
		batch *= (double)shape[ns - 1];
	}
	if (self->ndim > 1)
		shape[ns++] = m;
	if (mat2->ndim > 1)
		shape[ns++] = n;
	if (!nnop_shape_eq(out, shape, ns))
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api, "out shape %s, expected %s",
				nnop_shape_str(out->dims, out->ndim, b1, sizeof(b1)),
				nnop_shape_str(shape, ns, b2, sizeof(b2)));
	e = nnop_exec_new(api);
	if (!e)
		return nnop_err(ACLNN_ERR_INNER_CREATE_EXECUTOR, api, "out of memory");
	if (batch * (double)m * (double)n * (double)k == 0)
		return nnop_exec_done(e, workspace_size, executor); /* empty */
	kn = batch == 1 && self->ndim <= 2 && mat2->ndim <= 2 ?
		     nnop_kernel_add(e, "MatMulCommon", "MatMulV2", ACLNPU_TASK_AI_CORE) :
		     nnop_kernel_add(e, "BatchMatMulCommon", "BatchMatMulV2", ACLNPU_TASK_AI_CORE);
	nnop_kernel_in_t(kn, self);
	nnop_kernel_in_t(kn, mat2);
	nnop_kernel_out_t(kn, out);
	if (nnop_model_cube(kn, batch, (double)m, (double)k, (double)n, self->dtype, cube)) {
		nnop_exec_drop(e);
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api,
				"product too large for the simulator's task time limit");
	}
	e->workspace = NN_SYS_WORKSPACE;
	nnop_compute_set(&e->compute, NN_OP_MATMUL);
	nnop_compute_tensor(&e->compute, 0, self);
	nnop_compute_tensor(&e->compute, 1, mat2);
	nnop_compute_tensor(&e->compute, 2, out);
	return nnop_exec_done(e, workspace_size, executor);
}

aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor *self, const aclTensor *mat2,
					aclTensor *out, int8_t cubeMathType,
					uint64_t *workspaceSize, aclOpExecutor **executor)
{
	aclnpuApiScope sc;

	aclnpuApiBegin(&sc, "aclnnMatmulGetWorkspaceSize");
	return aclnpuApiEnd(&sc,
			    plan_matmul(self, mat2, out, cubeMathType, workspaceSize, executor));
}

aclnnStatus aclnnMatmul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
			aclrtStream stream)
{
	return nnop_run("aclnnMatmul", workspace, workspaceSize, executor, stream);
}
