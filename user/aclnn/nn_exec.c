/*
 * nn_exec.c - libnnopbase's operator machinery: dtype promotion and
 * broadcasting as CANN documents them for aclnn, the one-shot executor, the
 * duration model, and the launch phase.
 *
 * Executors come from a pool that never shrinks: a launched (consumed)
 * executor goes back to it with its magic cleared, so launching it a second
 * time is refused with ACLNN_ERR_PARAM_INVALID until the pool hands the
 * same memory out again, and one that is never launched stays reachable.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "nn_internal.h"
#include "uapi/npusim.h"

#define NN_EXEC_LIVE 0x45584543u /* "EXEC" */

aclnnStatus nnop_err(aclnnStatus st, const char *api, const char *fmt, ...)
{
	char msg[256];
	int n = snprintf(msg, sizeof(msg), "%s: ", api);
	va_list ap;

	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(msg))
		vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	aclnpuSetRecentErrMsg(msg);
	return st;
}

/* ---- dtypes ---------------------------------------------------------------- */

int nnop_dtype_is_float(aclDataType dt)
{
	return dt == ACL_FLOAT16 || dt == ACL_BF16 || dt == ACL_FLOAT || dt == ACL_DOUBLE;
}

int nnop_dtype_is_complex(aclDataType dt)
{
	return dt == ACL_COMPLEX64 || dt == ACL_COMPLEX128;
}

int nnop_dtype_is_int(aclDataType dt)
{
	return dt == ACL_INT8 || dt == ACL_UINT8 || dt == ACL_INT16 || dt == ACL_UINT16 ||
	       dt == ACL_INT32 || dt == ACL_UINT32 || dt == ACL_INT64 || dt == ACL_UINT64;
}

static int is_unsigned(aclDataType dt)
{
	return dt == ACL_UINT8 || dt == ACL_UINT16 || dt == ACL_UINT32 || dt == ACL_UINT64;
}

/* 0 bool, 1 integer, 2 floating, 3 complex, -1 none */
static int category(aclDataType dt)
{
	if (dt == ACL_BOOL)
		return 0;
	if (nnop_dtype_is_int(dt))
		return 1;
	if (nnop_dtype_is_float(dt))
		return 2;
	if (nnop_dtype_is_complex(dt))
		return 3;
	return -1;
}

static aclDataType signed_of_size(uint32_t size)
{
	return size == 1 ? ACL_INT8 : size == 2 ? ACL_INT16 : size == 4 ? ACL_INT32 : ACL_INT64;
}

aclDataType nnop_promote(aclDataType a, aclDataType b)
{
	int ca = category(a), cb = category(b);

	if (ca < 0 || cb < 0)
		return ACL_DT_UNDEFINED;
	if (a == b)
		return a;
	if (ca != cb) {
		aclDataType hi = ca > cb ? a : b, lo = ca > cb ? b : a;

		/* a real operand of double width widens complex64 */
		if (hi == ACL_COMPLEX64 && lo == ACL_DOUBLE)
			return ACL_COMPLEX128;
		return hi;
	}
	switch (ca) {
	case 1: {
		uint32_t sa = (uint32_t)aclDataTypeSize(a), sb = (uint32_t)aclDataTypeSize(b);

		if (is_unsigned(a) == is_unsigned(b))
			return sa >= sb ? a : b;
		/* mixed signedness: a signed type wide enough for both */
		{
			aclDataType u = is_unsigned(a) ? a : b, s = is_unsigned(a) ? b : a;
			uint32_t su = (uint32_t)aclDataTypeSize(u),
				 ss = (uint32_t)aclDataTypeSize(s);

			if (ss > su)
				return s;
			return su >= 8 ? ACL_DT_UNDEFINED : signed_of_size(su * 2);
		}
	}
	case 2:
		if ((a == ACL_FLOAT16 && b == ACL_BF16) || (a == ACL_BF16 && b == ACL_FLOAT16))
			return ACL_FLOAT;
		return (uint32_t)aclDataTypeSize(a) >= (uint32_t)aclDataTypeSize(b) ? a : b;
	case 3: return ACL_COMPLEX128;
	}
	return ACL_DT_UNDEFINED;
}

int nnop_can_cast(aclDataType from, aclDataType to)
{
	int cf = category(from), ct = category(to);

	if (cf < 0 || ct < 0)
		return 0;
	return cf <= ct;
}

int nnop_dtype_in(aclDataType dt, const aclDataType *list)
{
	for (; *list != ACL_DT_UNDEFINED; list++)
		if (*list == dt)
			return 1;
	return 0;
}

/* ---- shapes ---------------------------------------------------------------- */

int64_t nnop_numel(const aclTensor *t)
{
	int64_t n = 1;

	for (uint64_t i = 0; i < t->ndim; i++)
		if (__builtin_mul_overflow(n, t->dims[i], &n))
			return -1;
	return n;
}

int nnop_shape_eq(const aclTensor *a, const int64_t *dims, uint64_t ndim)
{
	if (a->ndim != ndim)
		return 0;
	for (uint64_t i = 0; i < ndim; i++)
		if (a->dims[i] != dims[i])
			return 0;
	return 1;
}

int nnop_broadcast(const aclTensor *a, const aclTensor *b, int64_t *out, uint64_t *n)
{
	uint64_t nd = a->ndim > b->ndim ? a->ndim : b->ndim;

	if (nd > ACLNN_MAX_DIMS)
		return -1;
	for (uint64_t i = 0; i < nd; i++) {
		/* aligned from the right */
		int64_t da = i < nd - a->ndim ? 1 : a->dims[i - (nd - a->ndim)];
		int64_t db = i < nd - b->ndim ? 1 : b->dims[i - (nd - b->ndim)];

		if (da != db && da != 1 && db != 1)
			return -1;
		out[i] = da == 1 ? db : da;
	}
	*n = nd;
	return 0;
}

const char *nnop_shape_str(const int64_t *dims, uint64_t n, char *buf, size_t cap)
{
	size_t len = 0;

	if (!cap)
		return "";
	buf[0] = '\0';
	len += (size_t)snprintf(buf, cap, "[");
	for (uint64_t i = 0; i < n && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, i ? ",%lld" : "%lld",
					(long long)dims[i]);
	if (len < cap)
		snprintf(buf + len, cap - len, "]");
	return buf;
}

aclnnStatus nnop_check_tensor(const char *api, const char *name, const aclTensor *t)
{
	char b[64];

	if (t->ndim > NN_MAX_OP_DIMS)
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api, "%s has %llu dims (at most %d)", name,
				(unsigned long long)t->ndim, NN_MAX_OP_DIMS);
	if (nnop_numel(t) < 0)
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api, "%s %s: element count overflows",
				name, nnop_shape_str(t->dims, t->ndim, b, sizeof(b)));
	switch (t->format) {
	case ACL_FORMAT_ND:
	case ACL_FORMAT_NCHW:
	case ACL_FORMAT_NHWC:
	case ACL_FORMAT_HWCN:
	case ACL_FORMAT_NDHWC:
	case ACL_FORMAT_NCDHW: return ACLNN_SUCCESS;
	default:
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api,
				"%s has format %s (ND or an origin format such as NCHW)", name,
				aclnpuFormatName(t->format));
	}
}

/* ---- executors ------------------------------------------------------------- */

static pthread_mutex_t g_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static aclOpExecutor *g_all, *g_free;

aclOpExecutor *nnop_exec_new(const char *api)
{
	aclOpExecutor *e;

	pthread_mutex_lock(&g_pool_lock);
	e = g_free;
	if (e) {
		g_free = e->free_next;
	} else if ((e = malloc(sizeof(*e)))) {
		e->all_next = g_all;
		g_all = e;
	}
	pthread_mutex_unlock(&g_pool_lock);
	if (!e)
		return NULL;
	{
		aclOpExecutor *keep = e->all_next;

		memset(e, 0, sizeof(*e));
		e->all_next = keep;
	}
	e->magic = NN_EXEC_LIVE;
	e->api = api;
	return e;
}

void nnop_exec_drop(aclOpExecutor *e)
{
	if (!e)
		return;
	pthread_mutex_lock(&g_pool_lock);
	e->magic = 0;
	e->free_next = g_free;
	g_free = e;
	pthread_mutex_unlock(&g_pool_lock);
}

/* The db's name of a format in an aclnn kernel's tensor list: ND is
 * "FORMAT_ND" there, the others as GE names them (ascend-reference §1.5). */
static const char *format_name(aclFormat f)
{
	return f == ACL_FORMAT_ND ? "FORMAT_ND" : aclnpuFormatName(f);
}

struct nn_kernel *nnop_kernel_add(aclOpExecutor *e, const char *impl, const char *op_type,
				  aclnpuTaskKind kind)
{
	struct nn_kernel *k;

	if (e->nkernels >= NN_MAX_KERNELS)
		return NULL;
	k = &e->k[e->nkernels++];
	memset(k, 0, sizeof(*k));
	snprintf(k->op_name, sizeof(k->op_name), "%s_%s_%s", e->api, impl, op_type);
	k->op_type = op_type;
	k->kind = kind;
	k->block_dim = 1;
	return k;
}

static void tensor_add(aclnpuTensorDesc *d, uint32_t *n, char *fmts, size_t cap, aclDataType dt,
		       aclFormat fmt, const int64_t *dims, uint64_t ndim)
{
	size_t len = strlen(fmts);

	if (*n >= NN_MAX_IO)
		return;
	d = &d[*n];
	d->dataType = dt;
	d->format = fmt;
	d->numDims = (uint32_t)(ndim < ACLNPU_MAX_DIMS ? ndim : ACLNPU_MAX_DIMS);
	for (uint32_t i = 0; i < d->numDims; i++)
		d->dims[i] = dims[i];
	snprintf(fmts + len, cap - len, "%s%s", *n ? ";" : "", format_name(fmt));
	(*n)++;
}

void nnop_kernel_in(struct nn_kernel *k, aclDataType dt, aclFormat fmt, const int64_t *dims,
		    uint64_t ndim)
{
	tensor_add(k->in, &k->nin, k->in_formats, sizeof(k->in_formats), dt, fmt, dims, ndim);
}

void nnop_kernel_out(struct nn_kernel *k, aclDataType dt, aclFormat fmt, const int64_t *dims,
		     uint64_t ndim)
{
	tensor_add(k->out, &k->nout, k->out_formats, sizeof(k->out_formats), dt, fmt, dims, ndim);
}

/* ---- the duration model ---------------------------------------------------- *
 * A kernel takes a fixed start-up time plus the longer of its memory time
 * (bytes over HBM bandwidth) and its compute time (operations over the
 * throughput of the cores its block dim occupies). */
#define NN_HBM_BYTES_PER_NS 1600.0 /* 1.6 TB/s */
#define NN_AIV_CORES 48
#define NN_AIC_CORES 24
#define NN_AIV_FLOPS_PER_NS 16000.0 /* all vector cores, fp32 */
#define NN_VECTOR_BASE_NS 2000.0
#define NN_CUBE_BASE_NS 4000.0
#define NN_VECTOR_BYTES_PER_BLOCK 32768.0

/* ceil of x >= 0 without libm (libnnopbase links libc only) */
static double dceil(double x)
{
	double t;

	if (!(x < 9e18))
		return x;
	t = (double)(int64_t)x;
	return t < x ? t + 1 : t;
}

static int set_duration(struct nn_kernel *k, double ns)
{
	if (!(ns < (double)NPUSIM_MAX_TASK_NS))
		return -1;
	k->duration_ns = (uint64_t)(ns + 0.5);
	return 0;
}

int nnop_model_vector(struct nn_kernel *k, double bytes, double flops)
{
	double blocks = dceil(bytes / NN_VECTOR_BYTES_PER_BLOCK);
	double mem, cmp;

	k->block_dim = blocks < 1 ? 1 : blocks > NN_AIV_CORES ? NN_AIV_CORES : (uint32_t)blocks;
	mem = bytes / NN_HBM_BYTES_PER_NS;
	cmp = flops / (NN_AIV_FLOPS_PER_NS * k->block_dim / NN_AIV_CORES);
	return set_duration(k, NN_VECTOR_BASE_NS + (mem > cmp ? mem : cmp));
}

int nnop_model_cube(struct nn_kernel *k, double batch, double m, double kd, double n,
		    aclDataType dt, int8_t cube_math_type)
{
	double tiles = batch * dceil(m / 128) * dceil(n / 256);
	double peak, flops, bytes, mem, cmp;
	uint32_t es = (uint32_t)aclDataTypeSize(dt);

	/* FLOP/ns of all cube cores: fp16/bf16 full rate, fp32 a quarter,
     * fp32 computed as HF32 (ALLOW_FP32_DOWN_PRECISION, USE_HF32) half,
     * as fp16 (USE_FP16) full */
	peak = 280000.0;
	if (dt == ACL_FLOAT)
		peak = cube_math_type == 2			  ? 280000.0 :
		       cube_math_type == 1 || cube_math_type == 3 ? 140000.0 :
								    70000.0;
	k->block_dim = tiles < 1 ? 1 : tiles > NN_AIC_CORES ? NN_AIC_CORES : (uint32_t)tiles;
	flops = 2.0 * batch * m * kd * n;
	bytes = batch * (m * kd + kd * n + m * n) * es;
	mem = bytes / NN_HBM_BYTES_PER_NS;
	cmp = flops / (peak * k->block_dim / NN_AIC_CORES);
	return set_duration(k, NN_CUBE_BASE_NS + (mem > cmp ? mem : cmp));
}

aclnnStatus nnop_exec_done(aclOpExecutor *e, uint64_t *workspace_size, aclOpExecutor **executor)
{
	*workspace_size = e->workspace;
	*executor = e;
	return ACLNN_SUCCESS;
}

/* ---- the launch phase ------------------------------------------------------ */

/* What the runtime keeps to compute an op's results when its last task is
 * sent (aclnpuOpDesc.hostArg): the API and a copy of the plan's compute. */
struct nn_host {
	const char *api; /* a static string: the executor's e->api */
	struct nn_compute c;
};

static void nn_host_compute(const void *arg)
{
	const struct nn_host *h = arg;

	h->c.run(h->api, &h->c);
}

static aclnnStatus run_checked(const char *api, void *workspace, uint64_t workspace_size,
			       aclOpExecutor *e, aclrtStream stream)
{
	struct nn_host host;

	if (!e)
		return nnop_err(ACLNN_ERR_PARAM_NULLPTR, api, "executor is NULL");
	if (e->magic != NN_EXEC_LIVE)
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api,
				"executor was launched already (executors are one-shot)");
	if (strcmp(e->api, api) != 0)
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api, "executor belongs to %s", e->api);
	if (workspace_size < e->workspace)
		return nnop_err(ACLNN_ERR_PARAM_INVALID, api,
				"workspaceSize %llu is smaller than the %llu bytes needed",
				(unsigned long long)workspace_size,
				(unsigned long long)e->workspace);
	if (e->workspace && !workspace)
		return nnop_err(ACLNN_ERR_PARAM_NULLPTR, api,
				"workspace is NULL but %llu bytes are needed",
				(unsigned long long)e->workspace);
	host.api = e->api;
	host.c = e->compute;
	for (uint32_t i = 0; i < e->nkernels; i++) {
		const struct nn_kernel *k = &e->k[i];
		aclnpuOpDesc d;
		aclError ret;

		memset(&d, 0, sizeof(d));
		d.size = sizeof(d);
		d.opName = k->op_name;
		d.opType = k->op_type;
		d.taskKind = k->kind;
		d.blockDim = k->block_dim;
		d.durationNs = k->duration_ns;
		d.numInputs = k->nin;
		d.inputs = k->in;
		d.numOutputs = k->nout;
		d.outputs = k->out;
		d.inputFormats = k->nin ? k->in_formats : NULL;
		d.outputFormats = k->nout ? k->out_formats : NULL;
		d.flags = ACLNPU_OP_IN_API;
		if (i + 1 == e->nkernels && e->compute.run) {
			d.hostCompute = nn_host_compute;
			d.hostArg = &host;
			d.hostArgSize = sizeof(host);
		}
		ret = aclnpuLaunchOp(&d, stream);
		if (ret != ACL_SUCCESS) {
			nnop_exec_drop(e);
			return nnop_err(ACLNN_ERR_RUNTIME_ERROR, api,
					"launching %s on the stream failed: %d (%s)", k->op_name,
					ret, aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");
		}
	}
	if (!e->nkernels && e->compute.run)
		e->compute.run(api, &e->compute); /* no task: computed now */
	nnop_exec_drop(e);
	return ACLNN_SUCCESS;
}

aclnnStatus nnop_run(const char *api, void *workspace, uint64_t workspace_size, aclOpExecutor *e,
		     aclrtStream stream)
{
	aclnpuApiScope scope;

	aclnpuApiBegin(&scope, api);
	return aclnpuApiEnd(&scope, run_checked(api, workspace, workspace_size, e, stream));
}
