/*
 * nn_internal.h - what libnnopbase.so gives libopapi.so: the object layouts
 * of acl_meta.h, the executor and its kernel plan, dtype promotion and
 * broadcasting, the duration model, and the launch path.
 *
 * An operator's GetWorkspaceSize checks its arguments, then describes each
 * kernel it would run (op type, accelerator, tensors, modelled duration) in
 * a new executor; the launch function hands the executor to nnop_run, which
 * opens the acl-level API range, launches the kernels through the runtime
 * (acl/acl_npu_op.h) and consumes the executor.
 */
#ifndef NPUPROF_NN_INTERNAL_H
#define NPUPROF_NN_INTERNAL_H

#include <stdint.h>

#include "acl/acl_npu_op.h"
#include "aclnn/aclnn_base.h"

#define NN_MAX_OP_DIMS 8 /* what the operators accept */
#define NN_MAX_KERNELS 4
#define NN_MAX_IO 4

struct aclTensor {
	aclDataType dtype;
	aclFormat format;
	uint64_t ndim;
	int64_t dims[ACLNN_MAX_DIMS];
	int64_t strides[ACLNN_MAX_DIMS];
	int64_t offset;
	uint64_t nstorage;
	int64_t storage[ACLNN_MAX_DIMS];
	void *data;
};

struct aclScalar {
	aclDataType dtype;
	double f; /* the value as a double (complex: the real part) */
	int64_t i; /* integer and bool types: exact */
};

struct aclIntArray {
	uint64_t n;
	int64_t v[];
};
struct aclFloatArray {
	uint64_t n;
	float v[];
};
struct aclBoolArray {
	uint64_t n;
	bool v[];
};
struct aclTensorList {
	uint64_t n;
	const aclTensor *v[];
};

/* One planned kernel: what aclnpuLaunchOp gets. */
struct nn_kernel {
	char op_name[96]; /* "aclnnAdd_AddAiCore_Add" */
	const char *op_type; /* "Add" */
	aclnpuTaskKind kind;
	uint32_t block_dim;
	uint64_t duration_ns;
	uint32_t nin, nout;
	aclnpuTensorDesc in[NN_MAX_IO], out[NN_MAX_IO];
	char in_formats[NN_MAX_IO * 16], out_formats[NN_MAX_IO * 16];
};

/* What a launch computes on the host (nn_compute.c): the operator and
 * copies of its tensor handles as the plan checked them (their data is the
 * caller's memory, read and written at launch). */
enum nn_op {
	NN_OP_NONE,
	NN_OP_BINARY,
	NN_OP_CAST,
	NN_OP_MATMUL,
	NN_OP_SOFTMAX,
	NN_OP_LAYER_NORM
};
#define NN_COMPUTE_TENSORS 6
struct nn_compute {
	enum nn_op op;
	/* called when the op's last kernel task is sent (the runtime's
	 * aclnpuOpDesc.hostCompute: at the launch, or at each execution of a
	 * model run instance that recorded it): the operators' layer
	 * (nn_compute.c) above the launch path sets it */
	void (*run)(const char *api, const struct nn_compute *c);
	uint32_t has; /* bit i: t[i] is given */
	aclTensor t[NN_COMPUTE_TENSORS]; /* inputs, then outputs, per op */
	int mul; /* BINARY: Mul, else Add of alpha times other */
	aclDataType pt; /* BINARY: the dtype it computes in */
	double alpha; /* BINARY Add */
	int64_t alpha_i; /* BINARY Add in an integer dtype */
	int64_t dim; /* SOFTMAX: the dim (>= 0); LAYER_NORM: the trailing dims normalized */
	double eps; /* LAYER_NORM */
};

/* Makes the launch of c's executor compute op's results into its outputs
 * (nothing for a tensor without data; said once on stderr where data,
 * dtype or size cannot be computed). */
void nnop_compute_set(struct nn_compute *c, enum nn_op op);
/* Computes c's results now (what sending the op's last task calls). */
void nnop_compute(const char *api, const struct nn_compute *c);
/* Sets tensor slot i of c (NULL: not given). */
void nnop_compute_tensor(struct nn_compute *c, uint32_t i, const aclTensor *t);

struct aclOpExecutor {
	uint32_t magic; /* NN_EXEC_LIVE until launched */
	const char *api; /* the launch API it belongs to, "aclnnAdd" */
	uint64_t workspace; /* bytes the kernels need */
	uint32_t nkernels;
	struct nn_kernel k[NN_MAX_KERNELS];
	struct nn_compute compute; /* what the launch computes */
	struct aclOpExecutor *all_next; /* every executor ever made */
	struct aclOpExecutor *free_next;
};

/* ---- errors ---- */
/* Sets the thread's aclGetRecentErrMsg text ("api: ...") and returns st. */
aclnnStatus nnop_err(aclnnStatus st, const char *api, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- dtypes and shapes ---- */
/* Bytes of one element; 0 for types the operators do not take. */
int nnop_dtype_is_float(aclDataType dt); /* FLOAT16, BF16, FLOAT, DOUBLE */
int nnop_dtype_is_complex(aclDataType dt);
int nnop_dtype_is_int(aclDataType dt); /* signed/unsigned integers, not BOOL */
/* The common type of a and b (PyTorch-style promotion); ACL_DT_UNDEFINED
 * when there is none. */
aclDataType nnop_promote(aclDataType a, aclDataType b);
/* A value of type from can be stored as type to (no complex into real,
 * no float into integer, nothing but BOOL into BOOL). */
int nnop_can_cast(aclDataType from, aclDataType to);
/* Does dt appear in list (terminated by ACL_DT_UNDEFINED)? */
int nnop_dtype_in(aclDataType dt, const aclDataType *list);
/* Elements of t, or -1 if the count overflows int64. */
int64_t nnop_numel(const aclTensor *t);
int nnop_shape_eq(const aclTensor *a, const int64_t *dims, uint64_t ndim);
/* The broadcast shape of a and b into out (ndim into *n): 0, or -1 if the
 * shapes do not broadcast. */
int nnop_broadcast(const aclTensor *a, const aclTensor *b, int64_t *out, uint64_t *n);
/* At most 8 dims, an element count that fits, ND or an origin format
 * (NCHW, NHWC, HWCN, NDHWC, NCDHW); else ACLNN_ERR_PARAM_INVALID. */
aclnnStatus nnop_check_tensor(const char *api, const char *name, const aclTensor *t);
/* "[2,3,4]" into buf, for messages. */
const char *nnop_shape_str(const int64_t *dims, uint64_t n, char *buf, size_t cap);

/* ---- the executor ---- */
/* A new executor for launch API `api` (a string literal), or NULL. */
aclOpExecutor *nnop_exec_new(const char *api);
/* Returns a never-launched executor to the pool (a failed plan). */
void nnop_exec_drop(aclOpExecutor *e);
/* Appends a kernel "<api>_<impl>_<opType>" (NULL when full). */
struct nn_kernel *nnop_kernel_add(aclOpExecutor *e, const char *impl, const char *op_type,
				  aclnpuTaskKind kind);
/* Adds a tensor (dtype/format/shape) to the kernel's inputs or outputs. */
void nnop_kernel_in(struct nn_kernel *k, aclDataType dt, aclFormat fmt, const int64_t *dims,
		    uint64_t ndim);
void nnop_kernel_out(struct nn_kernel *k, aclDataType dt, aclFormat fmt, const int64_t *dims,
		     uint64_t ndim);
#define nnop_kernel_in_t(k, t) nnop_kernel_in((k), (t)->dtype, (t)->format, (t)->dims, (t)->ndim)
#define nnop_kernel_out_t(k, t) nnop_kernel_out((k), (t)->dtype, (t)->format, (t)->dims, (t)->ndim)

/* ---- the duration model (Ascend 910B-like: 24 cube, 48 vector cores) ---- */
/* A vector kernel moving `bytes` through HBM and doing `flops` vector ops:
 * sets block_dim and duration_ns. 0, or -1 if it exceeds the simulator's
 * task limit. */
int nnop_model_vector(struct nn_kernel *k, double bytes, double flops);
/* A cube kernel: batch x [m,k] x [k,n] in dtype with cubeMathType. */
int nnop_model_cube(struct nn_kernel *k, double batch, double m, double kd, double n,
		    aclDataType dt, int8_t cube_math_type);

/* The system workspace CANN's Ascend C kernels ask for (16 MiB). */
#define NN_SYS_WORKSPACE (16ull << 20)

/* Finishes GetWorkspaceSize: hands out the executor and its workspace. */
aclnnStatus nnop_exec_done(aclOpExecutor *e, uint64_t *workspace_size, aclOpExecutor **executor);

/* The launch phase of every operator: checks the executor and the
 * workspace, launches the planned kernels on stream inside the acl-level
 * range `api`, consumes the executor. */
aclnnStatus nnop_run(const char *api, void *workspace, uint64_t workspace_size, aclOpExecutor *e,
		     aclrtStream stream);

#endif /* NPUPROF_NN_INTERNAL_H */
