/*
 * nn_compute.c - the aclnn operators' results, computed on the host when
 * the operator's last kernel task is sent: at its launch, or, for an
 * operator a model run instance recorded (aclmdlRI), at each execution of
 * the model, over the tensors' data as it is then (npusim's device memory
 * is this process's memory, and the runtime's copies move their bytes when
 * sent too): what the plan's kernels would leave in the outputs, computed in double
 * precision (integers and bools exactly, in 64 bits), rounded to the dtype
 * the operator computes in and stored in the output's dtype.
 *
 * Not computed, the outputs left as they were:
 *   - a tensor without data (NULL): a tensor only modelled, as the device
 *     mirror's are (python/npuprof/sim/mirror.c);
 *   - data that is not memory of this process's runtime (aclnpuMemSpan:
 *     inside an aclrtMalloc/aclrtMallocHost allocation that begins at the
 *     tensor's data pointer), a complex dtype, a matrix product of more
 *     than NN_COMPUTE_MAX_MACS multiply-adds.
 * The latter ones are said on stderr, once per operator and process.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl_npu_op.h"
#include "fpconv.h"
#include "nn_internal.h"

/* The largest matrix product computed (multiply-adds): larger ones would
 * hold the launching thread for seconds. */
#define NN_COMPUTE_MAX_MACS (1u << 26)

/* ---- elements ---------------------------------------------------------- */

/* The element at p of an integer or bool dtype, exactly (UINT64 as its
 * two's complement). */
static int64_t ld_i(aclDataType dt, const void *p)
{
	switch (dt) {
	case ACL_INT8: return *(const int8_t *)p;
	case ACL_UINT8: return *(const uint8_t *)p;
	case ACL_INT16: return *(const int16_t *)p;
	case ACL_UINT16: return *(const uint16_t *)p;
	case ACL_INT32: return *(const int32_t *)p;
	case ACL_UINT32: return *(const uint32_t *)p;
	case ACL_INT64: return *(const int64_t *)p;
	case ACL_UINT64: return (int64_t) * (const uint64_t *)p;
	case ACL_BOOL: return *(const uint8_t *)p != 0;
	default: return 0;
	}
}

/* The element at p of dtype dt as a double. */
static double ld_f(aclDataType dt, const void *p)
{
	switch (dt) {
	case ACL_FLOAT: return *(const float *)p;
	case ACL_DOUBLE: return *(const double *)p;
	case ACL_FLOAT16: return npuprof_f16_to_float(*(const uint16_t *)p, 0);
	case ACL_BF16: return npuprof_bf16_to_float(*(const uint16_t *)p);
	case ACL_UINT64: return (double)*(const uint64_t *)p;
	default: return (double)ld_i(dt, p);
	}
}

/* Stores integer v (two's complement, wrapping as the device's integer
 * units do) into p of dtype dt. */
static void st_i(aclDataType dt, void *p, int64_t v)
{
	switch (dt) {
	case ACL_INT8:
	case ACL_UINT8: *(uint8_t *)p = (uint8_t)v; break;
	case ACL_INT16:
	case ACL_UINT16: *(uint16_t *)p = (uint16_t)v; break;
	case ACL_INT32:
	case ACL_UINT32: *(uint32_t *)p = (uint32_t)v; break;
	case ACL_INT64:
	case ACL_UINT64: *(uint64_t *)p = (uint64_t)v; break;
	case ACL_BOOL: *(uint8_t *)p = v != 0; break;
	case ACL_FLOAT: *(float *)p = (float)v; break;
	case ACL_DOUBLE: *(double *)p = (double)v; break;
	case ACL_FLOAT16: *(uint16_t *)p = npuprof_f16_from_float((float)v, 0); break;
	case ACL_BF16: *(uint16_t *)p = npuprof_bf16_from_float((float)v); break;
	default: break;
	}
}

/* Stores v into p of dtype dt; into an integer, truncated toward zero and
 * saturated (NaN as 0), as a float-to-integer Cast kernel does. */
static void st_f(aclDataType dt, void *p, double v)
{
	switch (dt) {
	case ACL_FLOAT: *(float *)p = (float)v; break;
	case ACL_DOUBLE: *(double *)p = v; break;
	case ACL_FLOAT16: *(uint16_t *)p = npuprof_f16_from_float((float)v, 0); break;
	case ACL_BF16: *(uint16_t *)p = npuprof_bf16_from_float((float)v); break;
	case ACL_BOOL: *(uint8_t *)p = v != 0; break;
	default:
		if (v != v)
			v = 0;
		else if (v >= 9223372036854775807.0)
			v = 9223372036854775807.0;
		else if (v <= -9223372036854775808.0)
			v = -9223372036854775808.0;
		st_i(dt, p, (int64_t)v);
		break;
	}
}

/* v rounded to dtype dt (the precision a kernel computes in). */
static double rnd(aclDataType dt, double v)
{
	uint64_t buf;

	if (dt == ACL_DOUBLE || !nnop_dtype_is_float(dt))
		return v;
	st_f(dt, &buf, v);
	return ld_f(dt, &buf);
}

/* ---- tensors ------------------------------------------------------------ */

static size_t esize(const aclTensor *t)
{
	return aclDataTypeSize(t->dtype);
}

static void *elem(const aclTensor *t, int64_t off)
{
	return (char *)t->data + off * (int64_t)esize(t);
}

/* The element offset of t at index idx of a shape of nd dims, t's dims
 * aligned to its right and broadcast where they are 1. */
static int64_t at(const aclTensor *t, const int64_t *idx, uint64_t nd)
{
	int64_t off = t->offset;

	for (uint64_t d = 0; d < t->ndim; d++)
		if (t->dims[d] != 1)
			off += idx[nd - t->ndim + d] * t->strides[d];
	return off;
}

/* Steps idx through dims (nd of them) in row-major order; 0 at the end. */
static int next(int64_t *idx, const int64_t *dims, uint64_t nd)
{
	for (uint64_t d = nd; d-- > 0;) {
		if (++idx[d] < dims[d])
			return 1;
		idx[d] = 0;
	}
	return 0;
}

/* 1 if every element of t lies in memory the runtime confirms. */
static int span_ok(const aclTensor *t)
{
	int64_t lo = t->offset, hi = t->offset, r;
	uint64_t bytes;

	for (uint64_t d = 0; d < t->ndim; d++) {
		if (t->dims[d] == 0)
			return 1;
		if (__builtin_mul_overflow(t->dims[d] - 1, t->strides[d], &r) ||
		    __builtin_add_overflow(r < 0 ? lo : hi, r, r < 0 ? &lo : &hi))
			return 0;
	}
	if (lo < 0 || __builtin_mul_overflow((uint64_t)hi + 1, (uint64_t)esize(t), &bytes))
		return 0;
	return aclnpuMemSpan(t->data, 0, bytes);
}

/* ---- the operators ------------------------------------------------------ */

static void binary(const struct nn_compute *c)
{
	const aclTensor *a = &c->t[0], *b = &c->t[1], *o = &c->t[2];
	int64_t idx[ACLNN_MAX_DIMS] = { 0 };
	int exact = !nnop_dtype_is_float(c->pt);

	do {
		void *po = elem(o, at(o, idx, o->ndim));
		const void *pa = elem(a, at(a, idx, o->ndim)), *pb = elem(b, at(b, idx, o->ndim));

		if (c->pt == ACL_BOOL) {
			int x = ld_i(a->dtype, pa) != 0, y = ld_i(b->dtype, pb) != 0;

			st_i(o->dtype, po, c->mul ? (x && y) : (x || (y && c->alpha_i)));
		} else if (exact) {
			uint64_t x = (uint64_t)ld_i(a->dtype, pa), y = (uint64_t)ld_i(b->dtype, pb);

			st_i(o->dtype, po,
			     (int64_t)(c->mul ? x * y : x + (uint64_t)c->alpha_i * y));
		} else {
			double x = rnd(c->pt, ld_f(a->dtype, pa)),
			       y = rnd(c->pt, ld_f(b->dtype, pb));

			st_f(o->dtype, po,
			     rnd(c->pt, c->mul ? x * y : x + rnd(c->pt, c->alpha * y)));
		}
	} while (next(idx, o->dims, o->ndim));
}

static void cast(const struct nn_compute *c)
{
	const aclTensor *a = &c->t[0], *o = &c->t[1];
	int64_t idx[ACLNN_MAX_DIMS] = { 0 };
	int exact = !nnop_dtype_is_float(a->dtype);

	do {
		const void *pa = elem(a, at(a, idx, o->ndim));
		void *po = elem(o, at(o, idx, o->ndim));

		if (exact)
			st_i(o->dtype, po, ld_i(a->dtype, pa));
		else
			st_f(o->dtype, po, ld_f(a->dtype, pa));
	} while (next(idx, o->dims, o->ndim));
}

/* torch.matmul's product: batch dims broadcast, a 1-D operand a row
 * (self) or a column (mat2) whose unit dim the result drops. */
static void matmul(const struct nn_compute *c)
{
	const aclTensor *a = &c->t[0], *b = &c->t[1], *o = &c->t[2];
	uint64_t na = a->ndim, nb = b->ndim;
	uint64_t nbatch = o->ndim - (na > 1) - (nb > 1);
	int64_t idx[ACLNN_MAX_DIMS] = { 0 };
	int64_t m = na > 1 ? a->dims[na - 2] : 1, k = a->dims[na - 1];
	int64_t n = nb > 1 ? b->dims[nb - 1] : 1;
	int64_t sam = na > 1 ? a->strides[na - 2] : 0, sak = a->strides[na - 1];
	int64_t sbk = nb > 1 ? b->strides[nb - 2] : b->strides[0];
	int64_t sbn = nb > 1 ? b->strides[nb - 1] : 0;
	int64_t som = na > 1 ? o->strides[nbatch] : 0;
	int64_t son = nb > 1 ? o->strides[o->ndim - 1] : 0;

	do {
		int64_t oa = a->offset, ob = b->offset, oo = o->offset;

		/* the batch dims of each operand, aligned to the right */
		for (uint64_t d = 0; na > 2 && d < na - 2; d++)
			if (a->dims[d] != 1)
				oa += idx[nbatch - (na - 2) + d] * a->strides[d];
		for (uint64_t d = 0; nb > 2 && d < nb - 2; d++)
			if (b->dims[d] != 1)
				ob += idx[nbatch - (nb - 2) + d] * b->strides[d];
		for (uint64_t d = 0; d < nbatch; d++)
			oo += idx[d] * o->strides[d];
		for (int64_t i = 0; i < m; i++)
			for (int64_t j = 0; j < n; j++) {
				double s = 0;

				for (int64_t x = 0; x < k; x++)
					s += ld_f(a->dtype, elem(a, oa + i * sam + x * sak)) *
					     ld_f(b->dtype, elem(b, ob + x * sbk + j * sbn));
				st_f(o->dtype, elem(o, oo + i * som + j * son), s);
			}
	} while (nbatch && next(idx, o->dims, nbatch));
}

/* next() over every dim but `skip`. */
static int next_except(int64_t *idx, const int64_t *dims, uint64_t nd, uint64_t skip)
{
	for (uint64_t d = nd; d-- > 0;) {
		if (d == skip)
			continue;
		if (++idx[d] < dims[d])
			return 1;
		idx[d] = 0;
	}
	return 0;
}

static void softmax(const struct nn_compute *c)
{
	const aclTensor *a = &c->t[0], *o = &c->t[1];
	uint64_t d = (uint64_t)c->dim;
	int64_t len = a->ndim ? a->dims[d] : 1;
	int64_t sa = a->ndim ? a->strides[d] : 0, so = o->ndim ? o->strides[d] : 0;
	int64_t idx[ACLNN_MAX_DIMS] = { 0 };

	do { /* each line along dim d */
		int64_t ba = at(a, idx, a->ndim), bo = at(o, idx, o->ndim);
		double mx = -INFINITY, sum = 0;

		for (int64_t i = 0; i < len; i++)
			mx = fmax(mx, ld_f(a->dtype, elem(a, ba + i * sa)));
		for (int64_t i = 0; i < len; i++)
			sum += exp(ld_f(a->dtype, elem(a, ba + i * sa)) - mx);
		for (int64_t i = 0; i < len; i++)
			st_f(o->dtype, elem(o, bo + i * so),
			     exp(ld_f(a->dtype, elem(a, ba + i * sa)) - mx) / sum);
	} while (next_except(idx, a->dims, a->ndim, d));
}

/* LayerNorm over the last c->dim dims of x: t = x, weight, bias, out,
 * mean, rstd (bits of c->has). */
static void layer_norm(const struct nn_compute *c)
{
	const aclTensor *x = &c->t[0], *w = &c->t[1], *b = &c->t[2], *o = &c->t[3];
	const aclTensor *mean = &c->t[4], *rstd = &c->t[5];
	uint64_t outer_nd = x->ndim - (uint64_t)c->dim;
	int64_t oidx[ACLNN_MAX_DIMS] = { 0 };

	do {
		int64_t idx[ACLNN_MAX_DIMS], cnt = 0;
		double s = 0, ss = 0, mu, r;

		memcpy(idx, oidx, sizeof(idx));
		do {
			double v = ld_f(x->dtype, elem(x, at(x, idx, x->ndim)));

			s += v;
			ss += v * v;
			cnt++;
		} while (next(idx + outer_nd, x->dims + outer_nd, (uint64_t)c->dim));
		mu = s / (double)cnt;
		r = 1 / sqrt(fmax(ss / (double)cnt - mu * mu, 0) + c->eps);
		memcpy(idx, oidx, sizeof(idx));
		do {
			double v = (ld_f(x->dtype, elem(x, at(x, idx, x->ndim))) - mu) * r;

			if (c->has & 2)
				v *= ld_f(w->dtype, elem(w, at(w, idx, x->ndim)));
			if (c->has & 4)
				v += ld_f(b->dtype, elem(b, at(b, idx, x->ndim)));
			st_f(o->dtype, elem(o, at(o, idx, x->ndim)), v);
		} while (next(idx + outer_nd, x->dims + outer_nd, (uint64_t)c->dim));
		/* mean and rstd have x's outer dims and 1 for each normalized one */
		if (c->has & 16)
			st_f(mean->dtype, elem(mean, at(mean, oidx, x->ndim)), mu);
		if (c->has & 32)
			st_f(rstd->dtype, elem(rstd, at(rstd, oidx, x->ndim)), r);
	} while (outer_nd && next(oidx, x->dims, outer_nd));
}

/* Says why op's results are not computed, once per operator kind. */
static void say_once(const char *api, enum nn_op op, const char *why)
{
	static _Atomic unsigned said;
	unsigned bit = 1u << op;

	if (atomic_fetch_or(&said, bit) & bit)
		return;
	fprintf(stderr, "npusim: %s: %s: its results are not computed\n", api, why);
}

void nnop_compute_set(struct nn_compute *c, enum nn_op op)
{
	c->op = op;
	c->run = nnop_compute;
}

void nnop_compute_tensor(struct nn_compute *c, uint32_t i, const aclTensor *t)
{
	if (!t)
		return;
	c->t[i] = *t;
	c->has |= 1u << i;
}

void nnop_compute(const char *api, const struct nn_compute *c)
{
	for (uint32_t i = 0; i < NN_COMPUTE_TENSORS; i++) {
		const aclTensor *t = &c->t[i];

		if (!(c->has & (1u << i)))
			continue;
		if (!t->data || nnop_numel(t) == 0)
			return; /* only modelled, or nothing to compute */
		if (nnop_dtype_is_complex(t->dtype)) {
			say_once(api, c->op, "complex dtypes are not computed on npusim");
			return;
		}
		if (!span_ok(t)) {
			say_once(api, c->op,
				 "a tensor's data is not device memory of this process "
				 "(aclrtMalloc / aclrtMallocHost)");
			return;
		}
	}
	if (c->op == NN_OP_MATMUL &&
	    (double)nnop_numel(&c->t[2]) * (double)c->t[0].dims[c->t[0].ndim - 1] >
		    NN_COMPUTE_MAX_MACS) {
		say_once(api, c->op,
			 "a product of more than 2^26 multiply-adds is too large to compute on "
			 "the host");
		return;
	}
	switch (c->op) {
	case NN_OP_NONE: break;
	case NN_OP_BINARY: binary(c); break;
	case NN_OP_CAST: cast(c); break;
	case NN_OP_MATMUL: matmul(c); break;
	case NN_OP_SOFTMAX: softmax(c); break;
	case NN_OP_LAYER_NORM: layer_norm(c); break;
	}
}
