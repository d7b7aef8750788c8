/*
 * mirror.c - the device mirror (mirror.h): each top-level aten op launches
 * its modelled aclnn operator(s) on npusim; torch.distributed collectives
 * launch their HCCL collective.
 *
 * An op is mapped in two steps. The plan (pure, host-testable through
 * npuprof_mirror_describe) turns the op's name and inputs into at most
 * three aclnn operators of user/aclnn with their tensors:
 *   mm, bmm, matmul                  Matmul
 *   addmm, baddbmm, linear (bias)    Matmul, then Add of the bias
 *   add, sub, rsub                   Add (sub/rsub: alpha -1, an Axpy kernel)
 *   add_, sub_                       InplaceAdd
 *   mul, div                         Mul (div as a multiply by the reciprocal)
 *   mul_, div_                       InplaceMul
 *   addcmul_, addcdiv_               Mul of the two tensors, InplaceAdd into self
 *   softmax, log_softmax, _softmax   Softmax over the last dim
 *   layer_norm, native_layer_norm    LayerNorm over the weight's dims (1 without
 *   (and its backward)                 a weight); native_: with mean/rstd outputs
 *   to, _to_copy, type_as            Cast of self (the target dtype is not an input)
 *   copy_                            Cast of src into self's dtype and shape
 *   embedding                        Cast over the gathered output [..., D]
 *   *_backward of activations        Mul of grad and the saved tensor
 *   activations, reductions, fills   Cast to the same dtype: one elementwise pass
 *                                      reading and writing the input
 * Views and metadata ops (view, reshape, t, detach, empty, contiguous ...)
 * have no device work. Any other op is "unknown compute": modelled by the
 * elementwise operator closest by bytes, Mul of its first two tensors when
 * they broadcast, else Cast of its largest tensor; an op without tensor
 * inputs (factories such as aten::zeros) is not mirrored, its size being
 * unknown. Durations are the aclnn layer's FLOPs/bytes model (nn_exec.c).
 * Dtypes the operator does not take are modelled as FLOAT; more dims than
 * it takes are folded into the leading dim.
 *
 * The launch then calls each operator's GetWorkspaceSize and launch
 * function on the mirror stream from the calling thread, so that the CANN
 * API rows and tasks nest in the torch op's range. Tensors have no data
 * (so nothing is computed) and workspaces point into one scratch block of
 * device memory taken at open() (grown when a workspace needs more).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_softmax.h"
#include "hccl/hccl.h"
#include "fwk_report.h"
#include "mirror.h"

#define MIRROR_API __attribute__((visibility("default")))
#define MAX_DIMS 8 /* what the aclnn operators take */
#define MAX_STEPS 3
#define SCRATCH_BYTES (64ull << 20) /* untouched host memory in the simulation */
#define MAX_OLD_SCRATCH 16

/* ---- errors ------------------------------------------------------------- */

static __thread char t_err[256];

static int fail(int ret, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t_err, sizeof(t_err), fmt, ap);
	va_end(ap);
	return ret;
}

static void set_err(char *err, size_t errlen)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", t_err);
}

MIRROR_API const char *npuprof_mirror_strerror(void)
{
	return t_err;
}

/* ---- the plan ------------------------------------------------------------- */

struct mt {
	int32_t dtype;
	uint32_t ndim;
	int64_t dims[MAX_DIMS];
};

enum step_op {
	S_ADD,
	S_INPLACE_ADD,
	S_MUL,
	S_INPLACE_MUL,
	S_CAST,
	S_MATMUL,
	S_SOFTMAX,
	S_LAYERNORM,
};

static const char *const k_step_api[] = {
	[S_ADD] = "aclnnAdd",	      [S_INPLACE_ADD] = "aclnnInplaceAdd",
	[S_MUL] = "aclnnMul",	      [S_INPLACE_MUL] = "aclnnInplaceMul",
	[S_CAST] = "aclnnCast",	      [S_MATMUL] = "aclnnMatmul",
	[S_SOFTMAX] = "aclnnSoftmax", [S_LAYERNORM] = "aclnnLayerNorm",
};

struct step {
	enum step_op op;
	struct mt a, b, out; /* b: other, mat2, LayerNorm's weight (ndim 0: none) */
	double alpha; /* Add */
	uint32_t norm_ndim; /* LayerNorm: normalised trailing dims */
	int stats; /* LayerNorm: mean/rstd outputs */
};

struct plan {
	int n;
	struct step s[MAX_STEPS];
};

enum kind {
	K_GENERIC, /* not in the table */
	K_NONE,
	K_MM,
	K_ADDMM, /* (bias, a, b) */
	K_LINEAR, /* (x, weight[n,k], bias?) */
	K_ADD,
	K_SUB,
	K_RSUB,
	K_ADD_,
	K_SUB_,
	K_MUL,
	K_MUL_,
	K_ADDC_,
	K_SOFTMAX,
	K_LAYERNORM,
	K_NATIVE_LAYERNORM,
	K_LAYERNORM_BWD,
	K_CAST,
	K_COPY_,
	K_EMBEDDING,
	K_BINARY,
	K_UNARY,
};

struct op_ent {
	const char *name; /* without "aten::" */
	enum kind kind;
};

static struct op_ent g_ops[] = {
	/* no device work: views, metadata, allocation */
	{ "_reshape_alias", K_NONE },
	{ "_unsafe_view", K_NONE },
	{ "alias", K_NONE },
	{ "as_strided", K_NONE },
	{ "chunk", K_NONE },
	{ "contiguous", K_NONE }, /* its copy, if any, is the nested clone */
	{ "detach", K_NONE },
	{ "detach_", K_NONE },
	{ "diagonal", K_NONE },
	{ "dim", K_NONE },
	{ "empty", K_NONE },
	{ "empty_like", K_NONE },
	{ "empty_strided", K_NONE },
	{ "expand", K_NONE },
	{ "expand_as", K_NONE },
	{ "flatten", K_NONE },
	{ "is_floating_point", K_NONE },
	{ "is_same_size", K_NONE },
	{ "lift", K_NONE },
	{ "lift_fresh", K_NONE },
	{ "narrow", K_NONE },
	{ "new_empty", K_NONE },
	{ "new_empty_strided", K_NONE },
	{ "numel", K_NONE },
	{ "permute", K_NONE },
	{ "requires_grad_", K_NONE },
	{ "reshape", K_NONE },
	{ "resize_", K_NONE },
	{ "result_type", K_NONE },
	{ "retain_grad", K_NONE },
	{ "select", K_NONE },
	{ "set_", K_NONE },
	{ "size", K_NONE },
	{ "slice", K_NONE },
	{ "split", K_NONE },
	{ "split_with_sizes", K_NONE },
	{ "squeeze", K_NONE },
	{ "squeeze_", K_NONE },
	{ "stride", K_NONE },
	{ "t", K_NONE },
	{ "transpose", K_NONE },
	{ "transpose_", K_NONE },
	{ "unbind", K_NONE },
	{ "unflatten", K_NONE },
	{ "unsqueeze", K_NONE },
	{ "unsqueeze_", K_NONE },
	{ "view", K_NONE },
	{ "view_as", K_NONE },
	/* cube */
	{ "bmm", K_MM },
	{ "matmul", K_MM },
	{ "mm", K_MM },
	{ "addmm", K_ADDMM },
	{ "baddbmm", K_ADDMM },
	{ "linear", K_LINEAR },
	/* binary elementwise */
	{ "add", K_ADD },
	{ "sub", K_SUB },
	{ "rsub", K_RSUB },
	{ "add_", K_ADD_ },
	{ "sub_", K_SUB_ },
	{ "mul", K_MUL },
	{ "div", K_MUL },
	{ "true_divide", K_MUL },
	{ "mul_", K_MUL_ },
	{ "div_", K_MUL_ },
	{ "addcmul_", K_ADDC_ },
	{ "addcdiv_", K_ADDC_ },
	/* normalisation */
	{ "softmax", K_SOFTMAX },
	{ "_softmax", K_SOFTMAX },
	{ "log_softmax", K_SOFTMAX },
	{ "_log_softmax", K_SOFTMAX },
	{ "layer_norm", K_LAYERNORM },
	{ "native_layer_norm", K_NATIVE_LAYERNORM },
	{ "native_layer_norm_backward", K_LAYERNORM_BWD },
	/* copies */
	{ "to", K_CAST },
	{ "_to_copy", K_CAST },
	{ "type_as", K_CAST },
	{ "clone", K_CAST },
	{ "copy_", K_COPY_ },
	{ "embedding", K_EMBEDDING },
	/* backward kernels of activations: grad and a saved tensor */
	{ "threshold_backward", K_BINARY },
	{ "gelu_backward", K_BINARY },
	{ "tanh_backward", K_BINARY },
	{ "sigmoid_backward", K_BINARY },
	{ "silu_backward", K_BINARY },
	{ "hardtanh_backward", K_BINARY },
	{ "leaky_relu_backward", K_BINARY },
	{ "_softmax_backward_data", K_BINARY },
	{ "_log_softmax_backward_data", K_BINARY },
	{ "native_dropout_backward", K_BINARY },
	/* one elementwise pass over the input */
	{ "embedding_dense_backward", K_UNARY },
	{ "embedding_backward", K_UNARY },
	{ "relu", K_UNARY },
	{ "relu_", K_UNARY },
	{ "gelu", K_UNARY },
	{ "tanh", K_UNARY },
	{ "tanh_", K_UNARY },
	{ "sigmoid", K_UNARY },
	{ "sigmoid_", K_UNARY },
	{ "silu", K_UNARY },
	{ "silu_", K_UNARY },
	{ "exp", K_UNARY },
	{ "log", K_UNARY },
	{ "sqrt", K_UNARY },
	{ "rsqrt", K_UNARY },
	{ "neg", K_UNARY },
	{ "abs", K_UNARY },
	{ "reciprocal", K_UNARY },
	{ "dropout", K_UNARY },
	{ "native_dropout", K_UNARY },
	{ "zero_", K_UNARY },
	{ "fill_", K_UNARY },
	{ "zeros_like", K_UNARY },
	{ "ones_like", K_UNARY },
	{ "sum", K_UNARY },
	{ "mean", K_UNARY },
	{ "amax", K_UNARY },
	{ "max", K_UNARY },
	{ "min", K_UNARY },
	{ "norm", K_UNARY },
	{ "var", K_UNARY },
	{ "std", K_UNARY },
	{ "argmax", K_UNARY },
	{ "clamp", K_UNARY },
	{ "clamp_", K_UNARY },
};

static int ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct op_ent *)a)->name, ((const struct op_ent *)b)->name);
}

static pthread_once_t g_sort_once = PTHREAD_ONCE_INIT;

static void sort_ops(void)
{
	qsort(g_ops, sizeof(g_ops) / sizeof(g_ops[0]), sizeof(g_ops[0]), ent_cmp);
}

static enum kind op_kind(const char *name)
{
	struct op_ent key = { name, K_GENERIC }, *e;

	pthread_once(&g_sort_once, sort_ops);
	e = bsearch(&key, g_ops, sizeof(g_ops) / sizeof(g_ops[0]), sizeof(g_ops[0]), ent_cmp);
	return e ? e->kind : K_GENERIC;
}

static int is_tensor(const struct npuprof_mirror_tensor *t)
{
	return t->dtype != ACL_DT_UNDEFINED && t->ndim >= 0 && (t->ndim == 0 || t->dims);
}

static int is_float(int32_t dt)
{
	return dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_BF16 || dt == ACL_DOUBLE;
}

static int elem_size(int32_t dt)
{
	return (int)aclDataTypeSize((aclDataType)dt);
}

/* A dtype the elementwise operators take, else FLOAT. */
static int32_t dt_elem(int32_t dt)
{
	return elem_size(dt) ? dt : ACL_FLOAT;
}

/* FLOAT, FLOAT16 or BF16 (Matmul, LayerNorm), else FLOAT. */
static int32_t dt_cube(int32_t dt)
{
	return dt == ACL_FLOAT16 || dt == ACL_BF16 ? dt : ACL_FLOAT;
}

/* torch's result type of two tensor operands: floating beats integral
 * beats bool, the wider of one kind wins, FLOAT16 with BF16 is FLOAT. */
static int32_t result_type(int32_t a, int32_t b)
{
	int ca = is_float(a) ? 2 : a == ACL_BOOL ? 0 : 1;
	int cb = is_float(b) ? 2 : b == ACL_BOOL ? 0 : 1;

	if (a == b)
		return a;
	if (ca != cb)
		return ca > cb ? a : b;
	if ((a == ACL_FLOAT16 && b == ACL_BF16) || (a == ACL_BF16 && b == ACL_FLOAT16))
		return ACL_FLOAT;
	return elem_size(a) >= elem_size(b) ? a : b;
}

/* The input as an operand: dims beyond `maxd` folded into the leading one;
 * -1 for a negative dim or an element count that overflows. */
static int mt_from(struct mt *m, const struct npuprof_mirror_tensor *t, int32_t dtype,
		   uint32_t maxd)
{
	uint32_t nd = (uint32_t)t->ndim, fold = nd > maxd ? nd - maxd + 1 : 1;
	int64_t n = 1;

	m->dtype = dtype;
	for (uint32_t i = 0; i < nd; i++)
		if (t->dims[i] < 0 || __builtin_mul_overflow(n, t->dims[i], &n))
			return -1;
	m->ndim = nd > maxd ? maxd : nd;
	if (nd > maxd) {
		int64_t lead = 1;

		for (uint32_t i = 0; i < fold; i++)
			lead *= t->dims[i];
		m->dims[0] = lead;
		for (uint32_t i = fold; i < nd; i++)
			m->dims[i - fold + 1] = t->dims[i];
	} else {
		for (uint32_t i = 0; i < nd; i++)
			m->dims[i] = t->dims[i];
	}
	return 0;
}

static struct mt mt_scalar(int32_t dtype)
{
	struct mt m;

	memset(&m, 0, sizeof(m));
	m.dtype = dtype;
	return m;
}

static double mt_numel(const struct mt *m)
{
	double n = 1;

	for (uint32_t i = 0; i < m->ndim; i++)
		n *= (double)m->dims[i];
	return n;
}

static double mt_bytes(const struct mt *m)
{
	return mt_numel(m) * elem_size(m->dtype);
}

/* The broadcast shape of a and b into out (its dtype: dt); -1 if none. */
static int mt_broadcast(const struct mt *a, const struct mt *b, int32_t dt, struct mt *out)
{
	uint32_t nd = a->ndim > b->ndim ? a->ndim : b->ndim;

	out->dtype = dt;
	out->ndim = nd;
	for (uint32_t i = 0; i < nd; i++) {
		int64_t da = i < nd - a->ndim ? 1 : a->dims[i - (nd - a->ndim)];
		int64_t db = i < nd - b->ndim ? 1 : b->dims[i - (nd - b->ndim)];

		if (da != db && da != 1 && db != 1)
			return -1;
		out->dims[i] = da == 1 ? db : da;
	}
	return 0;
}

/* The tensors among the inputs, in order (at most `max`). */
static size_t tensors_of(const struct npuprof_mirror_tensor *in, size_t n_in,
			 const struct npuprof_mirror_tensor **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < n_in && n < max; i++)
		if (is_tensor(&in[i]))
			out[n++] = &in[i];
	return n;
}

static struct step *step_add(struct plan *p, enum step_op op)
{
	struct step *s = &p->s[p->n++];

	memset(s, 0, sizeof(*s));
	s->op = op;
	s->alpha = 1.0;
	return s;
}

/* A Cast of `a` into dtype `to` with a's shape. */
static void plan_cast(struct plan *p, const struct mt *a, int32_t to)
{
	struct step *s = step_add(p, S_CAST);

	s->a = *a;
	s->out = *a;
	s->out.dtype = to;
}

/* A binary op of a and b (Add with alpha, Mul, or their in-place forms
 * into a); -1 if the shapes do not broadcast (in place: into a). */
static int plan_binary(struct plan *p, enum step_op op, const struct mt *a, const struct mt *b,
		       double alpha)
{
	struct step *s;
	struct mt out;
	int inplace = op == S_INPLACE_ADD || op == S_INPLACE_MUL;
	int32_t rt = result_type(a->dtype, b->dtype);

	if (mt_broadcast(a, b, inplace ? a->dtype : rt, &out) ||
	    (inplace && (out.ndim != a->ndim || memcmp(out.dims, a->dims, a->ndim * 8))))
		return -1;
	s = step_add(p, op);
	s->a = *a;
	s->b = *b;
	s->out = out;
	s->alpha = alpha;
	return 0;
}

/* The matrix product of a and b (torch.matmul's shape rules) into *out. */
static int plan_matmul(struct plan *p, const struct mt *a, const struct mt *b, struct mt *out)
{
	struct step *s;
	uint32_t ba = a->ndim > 2 ? a->ndim - 2 : 0, bb = b->ndim > 2 ? b->ndim - 2 : 0;
	uint32_t nb = ba > bb ? ba : bb, ns = 0;

	if (a->ndim < 1 || b->ndim < 1 ||
	    a->dims[a->ndim - 1] != (b->ndim == 1 ? b->dims[0] : b->dims[b->ndim - 2]))
		return -1;
	out->dtype = a->dtype;
	for (uint32_t i = 0; i < nb; i++) {
		int64_t da = i < nb - ba ? 1 : a->dims[i - (nb - ba)];
		int64_t db = i < nb - bb ? 1 : b->dims[i - (nb - bb)];

		if (da != db && da != 1 && db != 1)
			return -1;
		out->dims[ns++] = da == 1 ? db : da;
	}
	if (a->ndim > 1)
		out->dims[ns++] = a->dims[a->ndim - 2];
	if (b->ndim > 1)
		out->dims[ns++] = b->dims[b->ndim - 1];
	out->ndim = ns;
	s = step_add(p, S_MATMUL);
	s->a = *a;
	s->b = *b;
	s->b.dtype = a->dtype;
	s->out = *out;
	return 0;
}

/* Unknown compute: Mul of the first two tensors if they broadcast, else a
 * Cast of the largest tensor. */
static int plan_generic(struct plan *p, const struct npuprof_mirror_tensor **t, size_t nt)
{
	struct mt a, b;
	size_t big = 0;

	if (nt == 0)
		return 0;
	if (nt >= 2 && !mt_from(&a, t[0], dt_elem(t[0]->dtype), MAX_DIMS) &&
	    !mt_from(&b, t[1], dt_elem(t[1]->dtype), MAX_DIMS) &&
	    !plan_binary(p, S_MUL, &a, &b, 1.0))
		return 0;
	for (size_t i = 1; i < nt; i++) {
		struct mt x, y;

		if (!mt_from(&x, t[i], dt_elem(t[i]->dtype), MAX_DIMS) &&
		    !mt_from(&y, t[big], dt_elem(t[big]->dtype), MAX_DIMS) &&
		    mt_bytes(&x) > mt_bytes(&y))
			big = i;
	}
	if (mt_from(&a, t[big], dt_elem(t[big]->dtype), MAX_DIMS))
		return -1;
	plan_cast(p, &a, a.dtype);
	return 0;
}

/* LayerNorm of x over w's dims (w: the weight, x's tail; NULL: the last
 * dim only). */
static void plan_layer_norm(struct plan *p, const struct mt *x, const struct mt *w, int stats)
{
	struct step *s = step_add(p, S_LAYERNORM);

	s->a = *x;
	if (w)
		s->b = *w;
	s->out = *x;
	s->norm_ndim = w ? w->ndim : 1;
	s->stats = stats;
}

/* The plan of op `name`; 0 (p->n steps, 0: no device work) or -1. */
static int make_plan(const char *name, const struct npuprof_mirror_tensor *in, size_t n_in,
		     struct plan *p)
{
	const struct npuprof_mirror_tensor *t[8];
	size_t nt;
	struct mt a, b, c, out;
	enum kind k;
	int32_t dt;

	p->n = 0;
	if (!name || (n_in && !in))
		return -1;
	if (strncmp(name, "aten::", 6) != 0)
		return 0; /* not an aten op: no device work of its own */
	k = op_kind(name + 6);
	if (k == K_NONE)
		return 0;
	nt = tensors_of(in, n_in, t, 8);
	if (nt == 0)
		return 0;
	dt = t[0]->dtype;
	switch (k) {
	case K_MM:
		if (nt < 2 || mt_from(&a, t[0], dt_cube(dt), 6) ||
		    mt_from(&b, t[1], dt_cube(dt), 6) || plan_matmul(p, &a, &b, &out))
			break;
		return 0;
	case K_ADDMM: /* bias, a, b */
		if (nt < 3 || mt_from(&a, t[1], dt_cube(t[1]->dtype), 6) ||
		    mt_from(&b, t[2], dt_cube(t[1]->dtype), 6) ||
		    mt_from(&c, t[0], dt_cube(t[1]->dtype), MAX_DIMS) ||
		    plan_matmul(p, &a, &b, &out) || plan_binary(p, S_ADD, &out, &c, 1.0))
			break;
		return 0;
	case K_LINEAR: /* x, weight [n,k], bias */
		if (nt < 2 || t[1]->ndim != 2 || mt_from(&a, t[0], dt_cube(dt), 6) ||
		    mt_from(&b, t[1], dt_cube(dt), 2))
			break;
		{
			int64_t n = b.dims[0];

			b.dims[0] = b.dims[1]; /* weight.t() */
			b.dims[1] = n;
		}
		if (plan_matmul(p, &a, &b, &out) ||
		    (nt >= 3 && (mt_from(&c, t[2], dt_cube(dt), MAX_DIMS) ||
				 plan_binary(p, S_ADD, &out, &c, 1.0))))
			break;
		return 0;
	case K_ADD:
	case K_SUB:
	case K_RSUB:
	case K_ADD_:
	case K_SUB_:
	case K_MUL:
	case K_MUL_: {
		static const enum step_op ops[] = {
			[K_ADD] = S_ADD,	  [K_SUB] = S_ADD,	    [K_RSUB] = S_ADD,
			[K_ADD_] = S_INPLACE_ADD, [K_SUB_] = S_INPLACE_ADD, [K_MUL] = S_MUL,
			[K_MUL_] = S_INPLACE_MUL,
		};
		double alpha = k == K_SUB || k == K_RSUB || k == K_SUB_ ? -1.0 : 1.0;

		if (!is_tensor(&in[0]) || mt_from(&a, &in[0], dt_elem(dt), MAX_DIMS))
			break;
		/* a Python number as `other` is a 0-dim tensor of self's dtype */
		if (n_in >= 2 && is_tensor(&in[1])) {
			if (mt_from(&b, &in[1], dt_elem(in[1].dtype), MAX_DIMS))
				break;
		} else {
			b = mt_scalar(a.dtype);
		}
		if (plan_binary(p, ops[k], &a, &b, alpha))
			break;
		return 0;
	}
	case K_ADDC_: /* self, t1, t2 */
		if (nt < 3 || mt_from(&a, t[0], dt_elem(dt), MAX_DIMS) ||
		    mt_from(&b, t[1], dt_elem(t[1]->dtype), MAX_DIMS) ||
		    mt_from(&c, t[2], dt_elem(t[2]->dtype), MAX_DIMS) ||
		    plan_binary(p, S_MUL, &b, &c, 1.0))
			break;
		if (plan_binary(p, S_INPLACE_ADD, &a, &p->s[0].out, 1.0))
			break;
		return 0;
	case K_SOFTMAX: {
		struct step *s;
		int32_t sd = dt == ACL_FLOAT16 || dt == ACL_BF16 || dt == ACL_DOUBLE ? dt :
										       ACL_FLOAT;

		if (mt_from(&a, t[0], sd, MAX_DIMS))
			break;
		s = step_add(p, S_SOFTMAX);
		s->a = a;
		s->out = a;
		return 0;
	}
	case K_LAYERNORM:
	case K_NATIVE_LAYERNORM:
	case K_LAYERNORM_BWD: {
		/* the weight: (input, normalized_shape, weight, ...) forward,
		 * (grad_out, input, normalized_shape, mean, rstd, weight, ...)
		 * backward; normalised over its dims when it is x's tail */
		size_t wi = k == K_LAYERNORM_BWD ? 5 : 2;
		const struct mt *w = NULL;

		if (mt_from(&a, t[0], dt_cube(dt), MAX_DIMS) || a.ndim < 1)
			break;
		if (wi < n_in && is_tensor(&in[wi]) && !mt_from(&b, &in[wi], a.dtype, MAX_DIMS) &&
		    b.ndim >= 1 && b.ndim <= a.ndim &&
		    !memcmp(b.dims, a.dims + (a.ndim - b.ndim), b.ndim * 8))
			w = &b;
		plan_layer_norm(p, &a, w, k == K_NATIVE_LAYERNORM);
		return 0;
	}
	case K_CAST:
		if (mt_from(&a, t[0], dt_elem(dt), MAX_DIMS))
			break;
		plan_cast(p, &a, a.dtype);
		return 0;
	case K_COPY_: /* self, src: src cast into self's dtype, in self's shape */
		if (nt < 2 || mt_from(&a, t[0], dt_elem(dt), MAX_DIMS))
			break;
		b = a;
		b.dtype = dt_elem(t[1]->dtype);
		plan_cast(p, &b, a.dtype);
		return 0;
	case K_EMBEDDING: /* weight [V, D], indices [...] -> [..., D] */
		if (nt < 2 || t[0]->ndim != 2 || t[1]->ndim >= MAX_DIMS ||
		    mt_from(&b, t[1], ACL_INT64, MAX_DIMS - 1))
			break;
		a = b;
		a.dtype = dt_elem(dt);
		a.dims[a.ndim++] = t[0]->dims[1];
		plan_cast(p, &a, a.dtype);
		return 0;
	case K_BINARY:
		if (nt < 2 || mt_from(&a, t[0], dt_elem(dt), MAX_DIMS) ||
		    mt_from(&b, t[1], dt_elem(t[1]->dtype), MAX_DIMS) ||
		    plan_binary(p, S_MUL, &a, &b, 1.0))
			break;
		return 0;
	case K_UNARY:
		if (mt_from(&a, t[0], dt_elem(dt), MAX_DIMS))
			break;
		plan_cast(p, &a, a.dtype);
		return 0;
	case K_GENERIC:
	case K_NONE: break;
	}
	/* what does not fit its operator's rules: the closest elementwise one */
	p->n = 0;
	return plan_generic(p, t, nt);
}

static void mt_str(const struct mt *m, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "%s[", aclnpuDataTypeName(m->dtype));

	for (uint32_t i = 0; i < m->ndim && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, i ? ",%lld" : "%lld",
				      (long long)m->dims[i]);
	if (o < len)
		snprintf(buf + o, len - o, "]");
}

MIRROR_API int npuprof_mirror_describe(const char *name, const struct npuprof_mirror_tensor *in,
				       size_t n_in, char *buf, size_t len)
{
	struct plan p;
	size_t o = 0;

	if (!buf || !len)
		return -EINVAL;
	buf[0] = 0;
	if (make_plan(name, in, n_in, &p))
		return -EINVAL;
	for (int i = 0; i < p.n && o < len; i++) {
		const struct step *s = &p.s[i];
		char a[160], b[160], out[160];

		mt_str(&s->a, a, sizeof(a));
		mt_str(&s->b, b, sizeof(b));
		mt_str(&s->out, out, sizeof(out));
		if (s->op == S_CAST || s->op == S_SOFTMAX ||
		    (s->op == S_LAYERNORM && s->b.ndim == 0))
			o += (size_t)snprintf(buf + o, len - o, "%s%s(%s->%s)", i ? "+" : "",
					      k_step_api[s->op], a, out);
		else if ((s->op == S_ADD || s->op == S_INPLACE_ADD) && s->alpha != 1.0)
			o += (size_t)snprintf(buf + o, len - o, "%s%s(%s;%s,alpha=%g->%s)",
					      i ? "+" : "", k_step_api[s->op], a, b, s->alpha, out);
		else
			o += (size_t)snprintf(buf + o, len - o, "%s%s(%s;%s->%s)", i ? "+" : "",
					      k_step_api[s->op], a, b, out);
	}
	return o < len ? p.n : -ENOSPC;
}

/* ---- the device ------------------------------------------------------------ */

static struct {
	pthread_mutex_t lock; /* open/close, scratch growth, the communicator */
	_Atomic int open;
	int acl_ours; /* aclInit was ours: aclFinalize at close */
	int32_t dev;
	aclrtStream stream;
	void *_Atomic scratch;
	_Atomic uint64_t scratch_size;
	void *old[MAX_OLD_SCRATCH]; /* outgrown blocks, freed at close */
	int nold;
	HcclComm comm;
	int rank;
	uint32_t gen; /* opens so far */
} g = { .lock = PTHREAD_MUTEX_INITIALIZER, .rank = -1 };

static __thread uint32_t t_dev_gen; /* g.gen when this thread set the device */

static int set_device_here(void)
{
	aclError r;

	if (t_dev_gen == g.gen)
		return 0;
	r = aclrtSetDevice(g.dev);
	if (r != ACL_SUCCESS)
		return fail(-ENODEV, "aclrtSetDevice(%d): %d (%s)", g.dev, r,
			    aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");
	t_dev_gen = g.gen;
	return 0;
}

/* The scratch block, at least `bytes` long (grown under the lock). */
static void *scratch(uint64_t bytes)
{
	void *p;

	if (bytes <= atomic_load(&g.scratch_size))
		return atomic_load(&g.scratch);
	pthread_mutex_lock(&g.lock);
	if (bytes > g.scratch_size && g.nold < MAX_OLD_SCRATCH && !set_device_here()) {
		uint64_t sz = g.scratch_size * 2 > bytes ? g.scratch_size * 2 : bytes;

		if (aclrtMalloc(&p, sz, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS) {
			g.old[g.nold++] = g.scratch;
			atomic_store(&g.scratch, p);
			atomic_store(&g.scratch_size, sz);
		}
	}
	p = bytes <= g.scratch_size ? g.scratch : NULL;
	pthread_mutex_unlock(&g.lock);
	return p;
}

MIRROR_API int npuprof_mirror_is_open(void)
{
	return atomic_load(&g.open);
}

static void release_locked(void)
{
	if (g.comm) {
		HcclCommDestroy(g.comm);
		g.comm = NULL;
		g.rank = -1;
	}
	if (g.stream) {
		aclrtDestroyStream(g.stream);
		g.stream = NULL;
	}
	for (int i = 0; i < g.nold; i++)
		aclrtFree(g.old[i]);
	g.nold = 0;
	if (g.scratch)
		aclrtFree(g.scratch);
	atomic_store(&g.scratch, NULL);
	atomic_store(&g.scratch_size, 0);
	aclrtResetDevice(g.dev);
	t_dev_gen = 0;
	if (g.acl_ours)
		aclFinalize();
	g.acl_ours = 0;
}

MIRROR_API int npuprof_mirror_open(int32_t device, char *err, size_t errlen)
{
	aclError r;
	void *p = NULL;
	int ret = 0;

	pthread_mutex_lock(&g.lock);
	if (atomic_load(&g.open)) {
		ret = fail(-EBUSY, "the mirror is open already (device %d)", g.dev);
		goto out;
	}
	if (device < 0) {
		ret = fail(-EINVAL, "device %d: not a device id", device);
		goto out;
	}
	r = aclInit(NULL);
	if (r != ACL_SUCCESS && r != ACL_ERROR_REPEAT_INITIALIZE) {
		ret = fail(-EIO, "aclInit: %d (%s)", r,
			   aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");
		goto out;
	}
	g.acl_ours = r == ACL_SUCCESS;
	g.dev = device;
	g.gen++;
	if (!g.gen)
		g.gen = 1; /* 0 is "never set" */
	if ((ret = set_device_here()))
		goto undo;
	if ((r = aclrtCreateStream(&g.stream)) != ACL_SUCCESS) {
		g.stream = NULL;
		ret = fail(-EIO, "aclrtCreateStream on device %d: %d", device, r);
		goto undo;
	}
	if ((r = aclrtMalloc(&p, SCRATCH_BYTES, ACL_MEM_MALLOC_HUGE_FIRST)) != ACL_SUCCESS) {
		ret = fail(-ENOMEM, "aclrtMalloc(%llu) on device %d: %d",
			   (unsigned long long)SCRATCH_BYTES, device, r);
		goto undo;
	}
	atomic_store(&g.scratch, p);
	atomic_store(&g.scratch_size, SCRATCH_BYTES);
	atomic_store(&g.open, 1);
	goto out;
undo:
	release_locked();
out:
	pthread_mutex_unlock(&g.lock);
	if (ret)
		set_err(err, errlen);
	return ret;
}

MIRROR_API void npuprof_mirror_close(void)
{
	pthread_mutex_lock(&g.lock);
	if (atomic_exchange(&g.open, 0)) {
		aclrtSynchronizeStream(g.stream);
		release_locked();
	}
	pthread_mutex_unlock(&g.lock);
}

MIRROR_API int npuprof_mirror_sync(void)
{
	aclError r;

	if (!atomic_load(&g.open))
		return fail(-ENODEV, "the mirror is not open");
	r = aclrtSynchronizeStream(g.stream);
	return r == ACL_SUCCESS ? 0 : fail(-EIO, "aclrtSynchronizeStream: %d", r);
}

/* ---- the launch ------------------------------------------------------------ */

/* A tensor without data: the mirror models the op, it does not compute it
 * (user/aclnn computes only tensors with data). */
static aclTensor *tensor(const struct mt *m)
{
	int64_t st[MAX_DIMS], s = 1;

	for (int i = (int)m->ndim - 1; i >= 0; i--) {
		st[i] = s;
		s *= m->dims[i] ? m->dims[i] : 1;
	}
	return aclCreateTensor(m->dims, m->ndim, (aclDataType)m->dtype, st, 0, ACL_FORMAT_ND,
			       m->dims, m->ndim, NULL);
}

typedef aclnnStatus (*launch_fn)(void *, uint64_t, aclOpExecutor *, aclrtStream);

static int run_step(const struct step *s)
{
	void *ws;
	aclTensor *a = NULL, *b = NULL, *out = NULL, *mean = NULL, *rstd = NULL;
	aclScalar *alpha = NULL;
	aclIntArray *ns = NULL;
	aclOpExecutor *ex = NULL;
	uint64_t wsz = 0;
	aclnnStatus st = ACLNN_ERR_INNER;
	launch_fn launch = NULL;
	const char *api = k_step_api[s->op];
	int ret = 0;

	if (mt_numel(&s->a) == 0 ||
	    (s->op != S_CAST && s->op != S_SOFTMAX && s->op != S_LAYERNORM && mt_numel(&s->b) == 0))
		return 0; /* an empty tensor: nothing to run */
	a = tensor(&s->a);
	b = s->op == S_LAYERNORM && s->b.ndim == 0 ? NULL : tensor(&s->b);
	out = tensor(&s->out);
	if (!a || !out || (s->op != S_LAYERNORM && !b)) {
		ret = fail(-ENOMEM, "%s: cannot make its tensors", api);
		goto out;
	}
	switch (s->op) {
	case S_ADD:
	case S_INPLACE_ADD: {
		float v = (float)s->alpha;

		alpha = aclCreateScalar(&v, ACL_FLOAT);
		if (!alpha) {
			ret = fail(-ENOMEM, "%s: cannot make alpha", api);
			goto out;
		}
		if (s->op == S_ADD) {
			st = aclnnAddGetWorkspaceSize(a, b, alpha, out, &wsz, &ex);
			launch = aclnnAdd;
		} else {
			st = aclnnInplaceAddGetWorkspaceSize(a, b, alpha, &wsz, &ex);
			launch = aclnnInplaceAdd;
		}
		break;
	}
	case S_MUL:
		st = aclnnMulGetWorkspaceSize(a, b, out, &wsz, &ex);
		launch = aclnnMul;
		break;
	case S_INPLACE_MUL:
		st = aclnnInplaceMulGetWorkspaceSize(a, b, &wsz, &ex);
		launch = aclnnInplaceMul;
		break;
	case S_CAST:
		st = aclnnCastGetWorkspaceSize(a, (aclDataType)s->out.dtype, out, &wsz, &ex);
		launch = aclnnCast;
		break;
	case S_MATMUL:
		/* KEEP_DTYPE: torch_npu's default (torch.npu.matmul.allow_hf32 off) */
		st = aclnnMatmulGetWorkspaceSize(a, b, out, 0, &wsz, &ex);
		launch = aclnnMatmul;
		break;
	case S_SOFTMAX:
		st = aclnnSoftmaxGetWorkspaceSize(a, -1, out, &wsz, &ex);
		launch = aclnnSoftmax;
		break;
	case S_LAYERNORM: {
		struct mt stat = s->a;

		for (uint32_t i = s->a.ndim - s->norm_ndim; i < s->a.ndim; i++)
			stat.dims[i] = 1;
		ns = aclCreateIntArray(s->a.dims + (s->a.ndim - s->norm_ndim), s->norm_ndim);
		if (s->stats) {
			mean = tensor(&stat);
			rstd = tensor(&stat);
		}
		if (!ns || (s->stats && (!mean || !rstd))) {
			ret = fail(-ENOMEM, "%s: cannot make its arguments", api);
			goto out;
		}
		st = aclnnLayerNormGetWorkspaceSize(a, ns, b, b, 1e-5, out, mean, rstd, &wsz, &ex);
		launch = aclnnLayerNorm;
		break;
	}
	}
	if (st != ACLNN_SUCCESS) {
		ret = fail(-EINVAL, "%sGetWorkspaceSize: %d (%s)", api, st,
			   aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");
		goto out;
	}
	ws = wsz ? scratch(wsz) : NULL;
	if (wsz && !ws) {
		ret = fail(-ENOMEM, "%s: no scratch for a workspace of %llu bytes", api,
			   (unsigned long long)wsz);
		goto out;
	}
	st = launch(ws, wsz, ex, g.stream);
	if (st != ACLNN_SUCCESS)
		ret = fail(-EIO, "%s: %d (%s)", api, st,
			   aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");
	else
		ret = 1;
out:
	aclDestroyTensor(a);
	aclDestroyTensor(b);
	aclDestroyTensor(out);
	aclDestroyTensor(mean);
	aclDestroyTensor(rstd);
	aclDestroyScalar(alpha);
	aclDestroyIntArray(ns);
	return ret;
}

MIRROR_API int npuprof_mirror_op(const char *name, const struct npuprof_mirror_tensor *in,
				 size_t n_in)
{
	struct plan p;
	int launched = 0;

	if (!atomic_load(&g.open))
		return fail(-ENODEV, "the mirror is not open");
	if (make_plan(name, in, n_in, &p))
		return fail(-EINVAL, "%s: bad inputs", name ? name : "(null)");
	for (int i = 0; i < p.n; i++) {
		int r = run_step(&p.s[i]);

		if (r < 0)
			return r;
		launched |= r;
	}
	return launched;
}

/* ---- collectives ------------------------------------------------------------ */

MIRROR_API int npuprof_mirror_comm_root_info(void *buf, size_t len, char *err, size_t errlen)
{
	HcclRootInfo ri;
	HcclResult r;

	_Static_assert(sizeof(ri) == NPUPROF_MIRROR_ROOT_INFO_BYTES, "root info size");
	if (!buf || len < sizeof(ri)) {
		fail(-EINVAL, "root info needs %zu bytes", sizeof(ri));
		set_err(err, errlen);
		return -EINVAL;
	}
	r = HcclGetRootInfo(&ri);
	if (r != HCCL_SUCCESS) {
		fail(-EIO, "HcclGetRootInfo: %d", r);
		set_err(err, errlen);
		return -EIO;
	}
	memcpy(buf, &ri, sizeof(ri));
	return (int)sizeof(ri);
}

MIRROR_API int npuprof_mirror_comm_init(uint32_t rank_size, uint32_t rank, const void *root_info,
					size_t len, char *err, size_t errlen)
{
	HcclRootInfo ri;
	HcclResult r;
	int ret = 0;

	pthread_mutex_lock(&g.lock);
	if (!atomic_load(&g.open))
		ret = fail(-ENODEV, "the mirror is not open");
	else if (g.comm)
		ret = fail(-EBUSY, "a communicator is set up already (rank %d)", g.rank);
	else if (!root_info || len != sizeof(ri))
		ret = fail(-EINVAL, "root info of %zu bytes (expected %zu)", len, sizeof(ri));
	else if (rank_size < 1 || rank >= rank_size)
		ret = fail(-EINVAL, "rank %u of %u", rank, rank_size);
	else if (!(ret = set_device_here())) {
		memcpy(&ri, root_info, sizeof(ri));
		r = HcclCommInitRootInfo(rank_size, &ri, rank, &g.comm);
		if (r != HCCL_SUCCESS) {
			g.comm = NULL;
			ret = fail(r == HCCL_E_TIMEOUT ? -ETIMEDOUT : -EIO,
				   "HcclCommInitRootInfo(rank %u of %u): %d", rank, rank_size, r);
		} else {
			g.rank = (int)rank;
		}
	}
	pthread_mutex_unlock(&g.lock);
	if (ret)
		set_err(err, errlen);
	return ret;
}

MIRROR_API void npuprof_mirror_comm_destroy(void)
{
	pthread_mutex_lock(&g.lock);
	if (g.comm) {
		aclrtSynchronizeStream(g.stream);
		HcclCommDestroy(g.comm);
		g.comm = NULL;
		g.rank = -1;
	}
	pthread_mutex_unlock(&g.lock);
}

MIRROR_API int npuprof_mirror_comm_rank(void)
{
	return g.rank;
}

MIRROR_API int npuprof_mirror_comm_name(char *buf, size_t len)
{
	char name[NPUPROF_MIRROR_COMM_NAME_BYTES];
	int ret = 0;

	pthread_mutex_lock(&g.lock);
	if (!g.comm)
		ret = -ENOTCONN;
	else if (HcclGetCommName(g.comm, name) != HCCL_SUCCESS)
		ret = -EIO;
	else if (!buf || strnlen(name, sizeof(name)) >= len)
		ret = -ENOSPC;
	else
		strcpy(buf, name);
	pthread_mutex_unlock(&g.lock);
	return ret;
}

static int hccl_dtype(int32_t dt)
{
	switch (dt) {
	case ACL_INT8: return HCCL_DATA_TYPE_INT8;
	case ACL_INT16: return HCCL_DATA_TYPE_INT16;
	case ACL_INT32: return HCCL_DATA_TYPE_INT32;
	case ACL_FLOAT16: return HCCL_DATA_TYPE_FP16;
	case ACL_FLOAT: return HCCL_DATA_TYPE_FP32;
	case ACL_INT64: return HCCL_DATA_TYPE_INT64;
	case ACL_UINT64: return HCCL_DATA_TYPE_UINT64;
	case ACL_BOOL:
	case ACL_UINT8: return HCCL_DATA_TYPE_UINT8;
	case ACL_UINT16: return HCCL_DATA_TYPE_UINT16;
	case ACL_UINT32: return HCCL_DATA_TYPE_UINT32;
	case ACL_DOUBLE: return HCCL_DATA_TYPE_FP64;
	case ACL_BF16: return HCCL_DATA_TYPE_BFP16;
	default: return -1;
	}
}

/* torch's name of a dtype, as PYTORCH_API.inputDtypes shows it */
static const char *torch_dtype_name(int32_t dt)
{
	switch (dt) {
	case ACL_FLOAT: return "float";
	case ACL_FLOAT16: return "c10::Half";
	case ACL_BF16: return "c10::BFloat16";
	case ACL_DOUBLE: return "double";
	case ACL_INT8: return "signed char";
	case ACL_UINT8: return "unsigned char";
	case ACL_INT16: return "short int";
	case ACL_INT32: return "int";
	case ACL_INT64: return "long int";
	case ACL_BOOL: return "bool";
	case ACL_COMPLEX64: return "c10::complex<float>";
	case ACL_COMPLEX128: return "c10::complex<double>";
	default: return "Scalar";
	}
}

/* ---- reporting: the framework layer's switch ----------------------------
 * The mirror reports its framework ops while a collection has started a
 * device, as CANN's components do: registered at load under the framework
 * module (NPUPROF_EXT_FWK_MODULE), it keeps the devices START named and
 * STOP has not (FINALIZE: none). */

static uint64_t g_fwk_devs; /* __atomic: started devices, a bit each */

static int32_t fwk_command(uint32_t type, void *data, uint32_t len)
{
	const struct MsprofCommandHandle *c = data;
	uint64_t bits = 0;

	if (type != PROF_CTRL_SWITCH || !c || len < sizeof(*c))
		return 0;
	for (uint32_t i = 0; i < c->devNums && i < MSPROF_MAX_DEV_NUM; i++)
		if (c->devIdList[i] < 64)
			bits |= 1ull << c->devIdList[i];
	if (c->type == PROF_COMMANDHANDLE_TYPE_START)
		__atomic_fetch_or(&g_fwk_devs, bits, __ATOMIC_RELAXED);
	else if (c->type == PROF_COMMANDHANDLE_TYPE_STOP)
		__atomic_fetch_and(&g_fwk_devs, ~bits, __ATOMIC_RELAXED);
	else if (c->type == PROF_COMMANDHANDLE_TYPE_FINALIZE)
		__atomic_store_n(&g_fwk_devs, 0, __ATOMIC_RELAXED);
	return 0;
}

static int fwk_switched_on(void)
{
	return __atomic_load_n(&g_fwk_devs, __ATOMIC_RELAXED) != 0;
}

__attribute__((constructor)) static void fwk_init(void)
{
	fwk_register_types();
	MsprofRegisterCallback(NPUPROF_EXT_FWK_MODULE, fwk_command);
}

/* The string's hash id, registered with libprofapi's dictionary once per
 * thread. */
static uint64_t str_id(const char *s)
{
	static __thread uint64_t seen[256];

	return fwk_str_id(seen, 256, s, s ? strlen(s) : 0);
}

static void write_fwk_op(const char *name, uint64_t start, const struct npuprof_mirror_tensor *t)
{
	char shapes[512];
	uint64_t name_id, dt_id = NPUPROF_EXT_NO_STRING, sh_id = NPUPROF_EXT_NO_STRING;

	if (!fwk_switched_on())
		return;
	name_id = str_id(name);
	if (t) {
		size_t o = (size_t)snprintf(shapes, sizeof(shapes), "[");

		for (int32_t i = 0; i < t->ndim && o < sizeof(shapes); i++)
			o += (size_t)snprintf(shapes + o, sizeof(shapes) - o, i ? ", %lld" : "%lld",
					      (long long)t->dims[i]);
		if (o < sizeof(shapes))
			snprintf(shapes + o, sizeof(shapes) - o, "]");
		dt_id = str_id(torch_dtype_name(t->dtype));
		sh_id = str_id(shapes);
	}
	fwk_report_op(fwk_tid(), 0, start, MsprofSysCycleTime(), -1, name_id, dt_id, sh_id,
		      NPUPROF_EXT_NO_STRING, NPUPROF_EXT_FWK_API_OP);
}

MIRROR_API int npuprof_mirror_collective(int coll, const char *record_name,
					 const struct npuprof_mirror_tensor *t, uint32_t root,
					 int reduce_op)
{
	static const char *const names[] = {
		[NPUPROF_MIRROR_ALL_REDUCE] = "HcclAllreduce",
		[NPUPROF_MIRROR_BROADCAST] = "HcclBroadcast",
		[NPUPROF_MIRROR_ALL_GATHER] = "HcclAllgather",
		[NPUPROF_MIRROR_REDUCE_SCATTER] = "HcclReduceScatter",
		[NPUPROF_MIRROR_BARRIER] = "HcclBarrier",
	};
	static const HcclReduceOp reduce[] = {
		[NPUPROF_MIRROR_SUM] = HCCL_REDUCE_SUM,
		[NPUPROF_MIRROR_PRODUCT] = HCCL_REDUCE_PROD,
		[NPUPROF_MIRROR_MIN] = HCCL_REDUCE_MIN,
		[NPUPROF_MIRROR_MAX] = HCCL_REDUCE_MAX,
	};
	uint64_t count = 1, start, bytes;
	int hdt = HCCL_DATA_TYPE_FP32, esz = 4;
	HcclResult r = HCCL_SUCCESS;
	HcclComm comm = g.comm;
	uint32_t n = 1;
	void *buf;

	if (coll < 0 || coll >= NPUPROF_MIRROR_COLL_COUNT)
		return fail(-EINVAL, "collective %d unknown", coll);
	if (reduce_op < 0 || reduce_op > NPUPROF_MIRROR_MAX)
		return fail(-EINVAL, "%s: reduce op %d unknown", names[coll], reduce_op);
	if (!atomic_load(&g.open))
		return fail(-ENODEV, "the mirror is not open");
	if (!comm)
		return fail(-ENOTCONN, "%s: no communicator (npuprof_mirror_comm_init)",
			    names[coll]);
	if (coll != NPUPROF_MIRROR_BARRIER) {
		if (!t || !is_tensor(t))
			return fail(-EINVAL, "%s: needs a tensor", names[coll]);
		hdt = hccl_dtype(t->dtype);
		esz = elem_size(t->dtype);
		if (hdt < 0 || !esz)
			return fail(-EINVAL, "%s: dtype %d has no HCCL type", names[coll],
				    t->dtype);
		for (int32_t i = 0; i < t->ndim; i++)
			if (t->dims[i] < 0 ||
			    __builtin_mul_overflow(count, (uint64_t)t->dims[i], &count))
				return fail(-EINVAL, "%s: bad shape", names[coll]);
	}
	HcclGetRankSize(comm, &n);
	if (__builtin_mul_overflow(count, (uint64_t)esz * n, &bytes))
		return fail(-EINVAL, "%s: tensor too large", names[coll]);
	buf = scratch(bytes ? bytes : 1);
	if (!buf)
		return fail(-ENOMEM, "%s: no scratch for %llu bytes", names[coll],
			    (unsigned long long)bytes);
	start = MsprofSysCycleTime();
	if (count) {
		switch (coll) {
		case NPUPROF_MIRROR_ALL_REDUCE:
		case NPUPROF_MIRROR_BARRIER:
			r = HcclAllReduce(buf, buf, count, (HcclDataType)hdt, reduce[reduce_op],
					  comm, g.stream);
			break;
		case NPUPROF_MIRROR_BROADCAST:
			r = HcclBroadcast(buf, count, (HcclDataType)hdt, root, comm, g.stream);
			break;
		case NPUPROF_MIRROR_ALL_GATHER:
			r = HcclAllGather(buf, buf, count, (HcclDataType)hdt, comm, g.stream);
			break;
		case NPUPROF_MIRROR_REDUCE_SCATTER:
			r = HcclReduceScatter(buf, buf, count, (HcclDataType)hdt, reduce[reduce_op],
					      comm, g.stream);
			break;
		}
	}
	write_fwk_op(record_name ? record_name : names[coll], start,
		     coll == NPUPROF_MIRROR_BARRIER ? NULL : t);
	if (r != HCCL_SUCCESS)
		return fail(-EIO, "%s: HCCL error %d", names[coll], r);
	return count ? 1 : 0;
}
