/*
 * test_aclnn.c - the aclnn operator API without a device (libnnopbase,
 * libopapi, libc_sec): objects, every operator's shape, dtype, format and
 * null checks with their status codes, the kernel plans (op names and
 * types, tensors, workspace, modelled durations) read from the executor,
 * and the launch phase's checks (workspace too small, wrong or used
 * executor). Launches on npusim, and what they record, are tested in the
 * VM (tests/vm/suite_46_aclnn.sh).
 */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_softmax.h"
#include "nn_internal.h"
#include "securec/securec.h"

static int64_t g_strides[ACLNN_MAX_DIMS];

/* A contiguous tensor of the given dims. */
static aclTensor *mk_fmt(aclDataType dt, aclFormat fmt, uint64_t n, const int64_t *dims)
{
	int64_t s = 1;

	for (uint64_t i = n; i-- > 0;) {
		g_strides[i] = s;
		s *= dims[i] ? dims[i] : 1;
	}
	return aclCreateTensor(dims, n, dt, g_strides, 0, fmt, dims, n, (void *)0x1000);
}
#define T(dt, ...)                                                                      \
	mk_fmt(dt, ACL_FORMAT_ND, sizeof((int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t), \
	       (int64_t[]){ __VA_ARGS__ })
#define T0(dt) mk_fmt(dt, ACL_FORMAT_ND, 0, NULL)

static aclScalar *one(void)
{
	float f = 1.0f;

	return aclCreateScalar(&f, ACL_FLOAT);
}

static void shape_is(const aclnpuTensorDesc *d, aclDataType dt, uint32_t n, const int64_t *dims)
{
	ck_assert_int_eq(d->dataType, dt);
	ck_assert_uint_eq(d->numDims, n);
	for (uint32_t i = 0; i < n; i++)
		ck_assert_int_eq(d->dims[i], dims[i]);
}
#define SHAPE(d, dt, ...)                                                         \
	shape_is((d), (dt), sizeof((int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t), \
		 (int64_t[]){ __VA_ARGS__ })

/* ---- objects ---- */

START_TEST(tensor_objects)
{
	int64_t d[3] = { 2, 3, 4 }, st[3] = { 12, 4, 1 }, neg[2] = { 2, -1 };
	int64_t *pd, off;
	uint64_t n;
	aclFormat f;
	aclDataType dt;
	aclTensor *t = aclCreateTensor(d, 3, ACL_FLOAT16, st, 5, ACL_FORMAT_NCHW, d, 3, NULL);

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(aclGetViewShape(t, &pd, &n), ACLNN_SUCCESS);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(pd[2], 4);
	ck_assert_int_eq(aclGetViewStrides(t, &pd, &n), ACLNN_SUCCESS);
	ck_assert_int_eq(pd[0], 12);
	ck_assert_int_eq(aclGetStorageShape(t, &pd, &n), ACLNN_SUCCESS);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(aclGetViewOffset(t, &off), ACLNN_SUCCESS);
	ck_assert_int_eq(off, 5);
	ck_assert_int_eq(aclGetFormat(t, &f), ACLNN_SUCCESS);
	ck_assert_int_eq(f, ACL_FORMAT_NCHW);
	ck_assert_int_eq(aclGetDataType(t, &dt), ACLNN_SUCCESS);
	ck_assert_int_eq(dt, ACL_FLOAT16);
	ck_assert_int_eq(aclGetViewShape(NULL, &pd, &n), ACLNN_ERR_PARAM_NULLPTR);
	ck_assert_int_eq(aclGetDataType(t, NULL), ACLNN_ERR_PARAM_NULLPTR);
	ck_assert_int_eq(aclDestroyTensor(t), ACLNN_SUCCESS);
	ck_assert_int_eq(aclDestroyTensor(NULL), ACLNN_SUCCESS);
	/* inconsistent arguments */
	ck_assert_ptr_null(aclCreateTensor(NULL, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, d, 3, NULL));
	ck_assert_ptr_null(aclCreateTensor(d, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, d, 3, NULL));
	ck_assert_ptr_null(aclCreateTensor(neg, 2, ACL_FLOAT, st, 0, ACL_FORMAT_ND, d, 3, NULL));
	ck_assert_ptr_null(aclCreateTensor(d, 3, ACL_FLOAT, st, 0, ACL_FORMAT_ND, NULL, 1, NULL));
	ck_assert_ptr_null(aclCreateTensor(d, ACLNN_MAX_DIMS + 1, ACL_FLOAT, st, 0, ACL_FORMAT_ND,
					   d, 3, NULL));
	ck_assert_ptr_null(aclCreateTensor(d, 3, ACL_FLOAT, st, -1, ACL_FORMAT_ND, d, 3, NULL));
	/* a 0-D tensor */
	t = aclCreateTensor(NULL, 0, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, NULL);
	ck_assert_ptr_nonnull(t);
	aclDestroyTensor(t);
}
END_TEST

START_TEST(scalars_and_arrays)
{
	uint16_t h = 0x3c00, hm = 0xc000, bf = 0x4040; /* fp16 1.0, fp16 -2.0, bf16 3.0 */
	int32_t i = -7;
	double dv = 2.5;
	int64_t iv[3] = { 1, 2, 3 };
	float fv[2] = { 0.5f, 1.5f };
	bool bv[2] = { true, false };
	uint64_t n;
	aclScalar *s;
	aclIntArray *ia;
	aclFloatArray *fa;
	aclBoolArray *ba;
	aclTensor *t = T(ACL_FLOAT, 2);
	const aclTensor *tl[1] = { t };
	aclTensorList *l;

	s = aclCreateScalar(&h, ACL_FLOAT16);
	ck_assert_double_eq(s->f, 1.0);
	aclDestroyScalar(s);
	s = aclCreateScalar(&hm, ACL_FLOAT16);
	ck_assert_double_eq(s->f, -2.0);
	aclDestroyScalar(s);
	s = aclCreateScalar(&bf, ACL_BF16);
	ck_assert_double_eq(s->f, 3.0);
	aclDestroyScalar(s);
	s = aclCreateScalar(&i, ACL_INT32);
	ck_assert_int_eq(s->i, -7);
	ck_assert_double_eq(s->f, -7.0);
	aclDestroyScalar(s);
	s = aclCreateScalar(&dv, ACL_DOUBLE);
	ck_assert_double_eq(s->f, 2.5);
	aclDestroyScalar(s);
	ck_assert_ptr_null(aclCreateScalar(NULL, ACL_FLOAT));
	ck_assert_ptr_null(aclCreateScalar(&i, ACL_STRING));
	ck_assert_int_eq(aclDestroyScalar(NULL), ACLNN_SUCCESS);

	ia = aclCreateIntArray(iv, 3);
	ck_assert_int_eq(aclGetIntArraySize(ia, &n), ACLNN_SUCCESS);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(ia->v[2], 3);
	aclDestroyIntArray(ia);
	ck_assert_ptr_null(aclCreateIntArray(NULL, 2));
	ia = aclCreateIntArray(NULL, 0);
	ck_assert_ptr_nonnull(ia);
	aclDestroyIntArray(ia);
	fa = aclCreateFloatArray(fv, 2);
	ck_assert_int_eq(aclGetFloatArraySize(fa, &n), ACLNN_SUCCESS);
	ck_assert_uint_eq(n, 2);
	aclDestroyFloatArray(fa);
	ba = aclCreateBoolArray(bv, 2);
	ck_assert_int_eq(aclGetBoolArraySize(ba, &n), ACLNN_SUCCESS);
	ck_assert(ba->v[0] && !ba->v[1]);
	aclDestroyBoolArray(ba);
	l = aclCreateTensorList(tl, 1);
	ck_assert_int_eq(aclGetTensorListSize(l, &n), ACLNN_SUCCESS);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(aclGetTensorListSize(NULL, &n), ACLNN_ERR_PARAM_NULLPTR);
	aclDestroyTensorList(l);
	aclDestroyTensor(t);
}
END_TEST

START_TEST(promotion)
{
	ck_assert_int_eq(nnop_promote(ACL_FLOAT, ACL_FLOAT), ACL_FLOAT);
	ck_assert_int_eq(nnop_promote(ACL_FLOAT16, ACL_FLOAT), ACL_FLOAT);
	ck_assert_int_eq(nnop_promote(ACL_FLOAT16, ACL_BF16), ACL_FLOAT);
	ck_assert_int_eq(nnop_promote(ACL_INT32, ACL_FLOAT16), ACL_FLOAT16);
	ck_assert_int_eq(nnop_promote(ACL_INT8, ACL_UINT8), ACL_INT16);
	ck_assert_int_eq(nnop_promote(ACL_INT64, ACL_INT32), ACL_INT64);
	ck_assert_int_eq(nnop_promote(ACL_BOOL, ACL_INT8), ACL_INT8);
	ck_assert_int_eq(nnop_promote(ACL_DOUBLE, ACL_COMPLEX64), ACL_COMPLEX128);
	ck_assert_int_eq(nnop_promote(ACL_UINT64, ACL_INT8), ACL_DT_UNDEFINED);
	ck_assert_int_eq(nnop_promote(ACL_STRING, ACL_FLOAT), ACL_DT_UNDEFINED);
	ck_assert(nnop_can_cast(ACL_INT32, ACL_FLOAT));
	ck_assert(!nnop_can_cast(ACL_FLOAT, ACL_INT32));
	ck_assert(!nnop_can_cast(ACL_COMPLEX64, ACL_DOUBLE));
	ck_assert(!nnop_can_cast(ACL_INT8, ACL_BOOL));
}
END_TEST

/* ---- Add / Mul ---- */

START_TEST(add_plan)
{
	aclTensor *a = T(ACL_FLOAT, 2, 3, 4), *b = T(ACL_FLOAT, 3, 1), *o = T(ACL_FLOAT, 2, 3, 4);
	aclScalar *al = one();
	uint64_t ws = 99;
	aclOpExecutor *e = NULL;
	const struct nn_kernel *k;

	ck_assert_int_eq(aclnnAddGetWorkspaceSize(a, b, al, o, &ws, &e), ACLNN_SUCCESS);
	ck_assert_uint_eq(ws, 0);
	ck_assert_uint_eq(e->nkernels, 1);
	k = &e->k[0];
	ck_assert_str_eq(k->op_name, "aclnnAdd_AddAiCore_Add");
	ck_assert_str_eq(k->op_type, "Add");
	ck_assert_int_eq(k->kind, ACLNPU_TASK_AI_VECTOR_CORE);
	ck_assert_uint_eq(k->nin, 2);
	ck_assert_uint_eq(k->nout, 1);
	SHAPE(&k->in[0], ACL_FLOAT, 2, 3, 4);
	SHAPE(&k->in[1], ACL_FLOAT, 3, 1);
	SHAPE(&k->out[0], ACL_FLOAT, 2, 3, 4);
	ck_assert_str_eq(k->in_formats, "FORMAT_ND;FORMAT_ND");
	ck_assert_str_eq(k->out_formats, "FORMAT_ND");
	ck_assert_uint_eq(k->block_dim, 1);
	ck_assert_uint_ge(k->duration_ns, 2000);
	ck_assert_uint_lt(k->duration_ns, 3000);
	nnop_exec_drop(e);
	aclDestroyTensor(a);
	aclDestroyTensor(b);
	aclDestroyTensor(o);
	aclDestroyScalar(al);
}
END_TEST

START_TEST(add_promotion_and_alpha)
{
	aclTensor *a = T(ACL_INT32, 4, 8), *b = T(ACL_FLOAT16, 8), *o16 = T(ACL_FLOAT16, 4, 8),
		  *o32 = T(ACL_FLOAT, 4, 8), *oi = T(ACL_INT32, 4, 8);
	float two = 2.0f;
	aclScalar *al = one(), *al2 = aclCreateScalar(&two, ACL_FLOAT);
	uint64_t ws;
	aclOpExecutor *e;

	/* INT32 + FLOAT16 -> FLOAT16: a Cast of self first, in the workspace */
	ck_assert_int_eq(aclnnAddGetWorkspaceSize(a, b, al, o16, &ws, &e), ACLNN_SUCCESS);
	ck_assert_uint_eq(e->nkernels, 2);
	ck_assert_str_eq(e->k[0].op_name, "aclnnAdd_CastAiCore_Cast");
	SHAPE(&e->k[0].in[0], ACL_INT32, 4, 8);
	SHAPE(&e->k[0].out[0], ACL_FLOAT16, 4, 8);
	ck_assert_str_eq(e->k[1].op_type, "Add");
	ck_assert_uint_eq(ws, 4 * 8 * 2);
	nnop_exec_drop(e);
	/* ... into FLOAT out: a Cast after, its input in the workspace too */
	ck_assert_int_eq(aclnnAddGetWorkspaceSize(a, b, al, o32, &ws, &e), ACLNN_SUCCESS);
	ck_assert_uint_eq(e->nkernels, 3);
	ck_assert_str_eq(e->k[2].op_type, "Cast");
	SHAPE(&e->k[2].out[0], ACL_FLOAT, 4, 8);
	ck_assert_uint_eq(ws, 2 * (4 * 8 * 2));
	nnop_exec_drop(e);
	/* a float result does not go into an INT32 out */
	ck_assert_int_eq(aclnnAddGetWorkspaceSize(a, b, al, oi, &ws, &e), ACLNN_ERR_PARAM_INVALID);
	/* alpha != 1: Axpy */
	ck_assert_int_eq(aclnnAddGetWorkspaceSize(o16, b, al2, o16, &ws, &e), ACLNN_SUCCESS);
	ck_assert_uint_eq(e->nkernels, 1);
	ck_assert_str_eq(e->k[0].op_name, "aclnnAdd_AxpyAiCore_Axpy");
	nnop_exec_drop(e);
	/* a float alpha on integer tensors */
	ck_assert_int_eq(aclnnAddGetWorkspaceSize(a, a, al2, oi, &ws, &e), ACLNN_ERR_PARAM_INVALID);
	aclDestroyTensor(a);
	aclDestroyTensor(b);
	aclDestroyTensor(o16);
	aclDestroyTensor(o32);
	aclDestroyTensor(oi);
	aclDestroyScalar(al);
	aclDestroyScalar(al2);
}
END_TEST

START_TEST(add_errors)
{
	aclTensor *a = T(ACL_FLOAT, 2, 3), *b = T(ACL_FLOAT, 4), *o = T(ACL_FLOAT, 2, 3),
		  *bad_out = T(ACL_FLOAT, 3, 2), *u32 = T(ACL_UINT32, 2, 3),
		  *nine = T(ACL_FLOAT, 1, 1, 1, 1, 1, 1, 1, 1, 2),
		  *nz = mk_fmt(ACL_FLOAT, ACL_FORMAT_FRACTAL_NZ, 2, (int64_t[]){ 2, 3 });
	aclScalar *al = one();
	uint64_t ws;
	aclOpExecutor *e;

	ck_assert_int_eq(aclnnAddGetWorkspaceSize(NULL, a, al, o, &ws, &e),
			 ACLNN_ERR_PARAM_NULLPTR);
	ck_assert_int_eq(aclnnAddGetWorkspaceSize(a, NULL, al, o, &ws, &e),
			 ACLNN_ERR_PARAM_NULLPTR);
	ck_assert_int_eq(aclnnAddGetWorkspaceSize(a, a, NULL, o, &ws, &e), ACLNN_ERR_PARAM_NULLPTR);
	ck_assert_int_eq(aclnnAddGetWorkspaceSize(a, a, al, NULL, &ws, &e),
			 ACLNN_ERR_PARAM_NULLPTR);
	ck_assert_int_eq(aclnnAddGetWorkspaceSize(a, a, al, o, NULL, &e), ACLNN_ERR_PARAM_NULLPTR);
	ck_assert_int_eq(aclnnAddGetWorkspaceSize(a, a, al, o, &ws, NULL), ACLNN_ERR_PARAM_NULLPTR);
	/* [2,3] and [4] do not broadcast */
	ck_assert_int_eq(aclnnAddGetWorkspaceSize(a, b, al, o, &ws, &e), ACLNN_ERR_PARAM_INVALID);
	ck_assert_ptr_nonnull(strstr(aclGetRecentErrMsg(), "do not broadcast"));
	/* out is not the broadcast shape */
	ck_assert_int_eq(aclnnAddGetWorkspaceSize(a, a, al, bad_out, &ws, &e),
			 ACLNN_ERR_PARAM_INVALID);
	/* unsupported dtype, too many dims, a private format */
	ck_assert_int_eq(aclnnAddGetWorkspaceSize(u32, u32, al, u32, &ws, &e),
			 ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnAddGetWorkspaceSize(nine, nine, al, nine, &ws, &e),
			 ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnAddGetWorkspaceSize(nz, a, al, o, &ws, &e), ACLNN_ERR_PARAM_INVALID);
	/* in place: other must broadcast *to* selfRef */
	ck_assert_int_eq(aclnnInplaceAddGetWorkspaceSize(b, a, al, &ws, &e),
			 ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnInplaceAddGetWorkspaceSize(a, a, al, &ws, &e), ACLNN_SUCCESS);
	ck_assert_str_eq(e->k[0].op_name, "aclnnInplaceAdd_AddAiCore_Add");
	nnop_exec_drop(e);
	aclDestroyTensor(a);
	aclDestroyTensor(b);
	aclDestroyTensor(o);
	aclDestroyTensor(bad_out);
	aclDestroyTensor(u32);
	aclDestroyTensor(nine);
	aclDestroyTensor(nz);
	aclDestroyScalar(al);
}
END_TEST

START_TEST(add_empty)
{
	aclTensor *a = T(ACL_FLOAT, 0, 3), *o = T(ACL_FLOAT, 0, 3);
	aclScalar *al = one();
	uint64_t ws = 5;
	aclOpExecutor *e;

	ck_assert_int_eq(aclnnAddGetWorkspaceSize(a, a, al, o, &ws, &e), ACLNN_SUCCESS);
	ck_assert_uint_eq(ws, 0);
	ck_assert_uint_eq(e->nkernels, 0);
	nnop_exec_drop(e);
	aclDestroyTensor(a);
	aclDestroyTensor(o);
	aclDestroyScalar(al);
}
END_TEST

START_TEST(mul_plan_and_errors)
{
	aclTensor *a = T(ACL_BF16, 16, 1024), *s = T0(ACL_BF16), *o = T(ACL_BF16, 16, 1024),
		  *big = T(ACL_FLOAT, 4096, 4096), *ob = T(ACL_FLOAT, 4096, 4096),
		  *str = T(ACL_STRING, 2);
	uint64_t ws;
	aclOpExecutor *e;
	uint64_t small_ns;

	ck_assert_int_eq(aclnnMulGetWorkspaceSize(a, s, o, &ws, &e), ACLNN_SUCCESS);
	ck_assert_str_eq(e->k[0].op_name, "aclnnMul_MulAiCore_Mul");
	SHAPE(&e->k[0].in[0], ACL_BF16, 16, 1024);
	ck_assert_uint_eq(e->k[0].in[1].numDims, 0); /* the scalar tensor */
	small_ns = e->k[0].duration_ns;
	nnop_exec_drop(e);
	/* 4096x4096 fp32: 192 MiB through HBM ~ 126 us on all 48 cores */
	ck_assert_int_eq(aclnnMulGetWorkspaceSize(big, big, ob, &ws, &e), ACLNN_SUCCESS);
	ck_assert_uint_eq(e->k[0].block_dim, 48);
	ck_assert_uint_gt(e->k[0].duration_ns, 120000);
	ck_assert_uint_lt(e->k[0].duration_ns, 135000);
	ck_assert_uint_gt(e->k[0].duration_ns, small_ns);
	nnop_exec_drop(e);
	ck_assert_int_eq(aclnnMulGetWorkspaceSize(a, NULL, o, &ws, &e), ACLNN_ERR_PARAM_NULLPTR);
	ck_assert_int_eq(aclnnMulGetWorkspaceSize(a, big, o, &ws, &e), ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnMulGetWorkspaceSize(str, str, str, &ws, &e), ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnInplaceMulGetWorkspaceSize(a, s, &ws, &e), ACLNN_SUCCESS);
	ck_assert_str_eq(e->k[0].op_name, "aclnnInplaceMul_MulAiCore_Mul");
	nnop_exec_drop(e);
	aclDestroyTensor(a);
	aclDestroyTensor(s);
	aclDestroyTensor(o);
	aclDestroyTensor(big);
	aclDestroyTensor(ob);
	aclDestroyTensor(str);
}
END_TEST

/* a task longer than npusim's 10 s limit is refused, not wrapped */
START_TEST(too_large_for_the_model)
{
	aclTensor *a = T(ACL_FLOAT, 10000000, 1000000);
	uint64_t ws;
	aclOpExecutor *e;

	ck_assert_int_eq(aclnnMulGetWorkspaceSize(a, a, a, &ws, &e), ACLNN_ERR_PARAM_INVALID);
	ck_assert_ptr_nonnull(strstr(aclGetRecentErrMsg(), "time limit"));
	aclDestroyTensor(a);
	a = T(ACL_FLOAT, INT64_MAX / 2, 4);
	ck_assert_int_eq(aclnnMulGetWorkspaceSize(a, a, a, &ws, &e), ACLNN_ERR_PARAM_INVALID);
	ck_assert_ptr_nonnull(strstr(aclGetRecentErrMsg(), "overflows"));
	aclDestroyTensor(a);
}
END_TEST

/* ---- Cast ---- */

START_TEST(cast)
{
	aclTensor *a = T(ACL_FLOAT, 3, 5), *o = T(ACL_FLOAT16, 3, 5), *o2 = T(ACL_FLOAT16, 5, 3),
		  *s = T(ACL_STRING, 3, 5);
	uint64_t ws;
	aclOpExecutor *e;

	ck_assert_int_eq(aclnnCastGetWorkspaceSize(a, ACL_FLOAT16, o, &ws, &e), ACLNN_SUCCESS);
	ck_assert_uint_eq(ws, 0);
	ck_assert_str_eq(e->k[0].op_name, "aclnnCast_CastAiCore_Cast");
	SHAPE(&e->k[0].in[0], ACL_FLOAT, 3, 5);
	SHAPE(&e->k[0].out[0], ACL_FLOAT16, 3, 5);
	nnop_exec_drop(e);
	ck_assert_int_eq(aclnnCastGetWorkspaceSize(NULL, ACL_FLOAT16, o, &ws, &e),
			 ACLNN_ERR_PARAM_NULLPTR);
	ck_assert_int_eq(aclnnCastGetWorkspaceSize(a, ACL_INT32, o, &ws, &e),
			 ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnCastGetWorkspaceSize(a, ACL_FLOAT16, o2, &ws, &e),
			 ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnCastGetWorkspaceSize(s, ACL_FLOAT16, o, &ws, &e),
			 ACLNN_ERR_PARAM_INVALID);
	aclDestroyTensor(a);
	aclDestroyTensor(o);
	aclDestroyTensor(o2);
	aclDestroyTensor(s);
}
END_TEST

/* ---- Matmul ---- */

START_TEST(matmul_shapes)
{
	aclTensor *a = T(ACL_FLOAT16, 128, 256), *b = T(ACL_FLOAT16, 256, 512),
		  *o = T(ACL_FLOAT16, 128, 512), *v = T(ACL_FLOAT16, 256), *o0 = T0(ACL_FLOAT16),
		  *om = T(ACL_FLOAT16, 128), *ba = T(ACL_FLOAT16, 2, 1, 4, 5),
		  *bb = T(ACL_FLOAT16, 3, 5, 6), *obb = T(ACL_FLOAT16, 2, 3, 4, 6);
	uint64_t ws;
	aclOpExecutor *e;

	ck_assert_int_eq(aclnnMatmulGetWorkspaceSize(a, b, o, 1, &ws, &e), ACLNN_SUCCESS);
	ck_assert_uint_eq(ws, 16u << 20);
	ck_assert_str_eq(e->k[0].op_name, "aclnnMatmul_MatMulCommon_MatMulV2");
	ck_assert_str_eq(e->k[0].op_type, "MatMulV2");
	ck_assert_int_eq(e->k[0].kind, ACLNPU_TASK_AI_CORE);
	ck_assert_uint_eq(e->k[0].block_dim, 2); /* 1 x 2 tiles of 128x256 */
	SHAPE(&e->k[0].in[0], ACL_FLOAT16, 128, 256);
	SHAPE(&e->k[0].in[1], ACL_FLOAT16, 256, 512);
	SHAPE(&e->k[0].out[0], ACL_FLOAT16, 128, 512);
	nnop_exec_drop(e);
	/* vector . vector -> 0-D; matrix x vector -> [M] */
	ck_assert_int_eq(aclnnMatmulGetWorkspaceSize(v, v, o0, 0, &ws, &e), ACLNN_SUCCESS);
	nnop_exec_drop(e);
	ck_assert_int_eq(aclnnMatmulGetWorkspaceSize(a, v, om, 0, &ws, &e), ACLNN_SUCCESS);
	nnop_exec_drop(e);
	ck_assert_int_eq(aclnnMatmulGetWorkspaceSize(a, v, o, 0, &ws, &e), ACLNN_ERR_PARAM_INVALID);
	/* batch dims broadcast: [2,1,4,5] x [3,5,6] -> [2,3,4,6] */
	ck_assert_int_eq(aclnnMatmulGetWorkspaceSize(ba, bb, obb, 0, &ws, &e), ACLNN_SUCCESS);
	ck_assert_str_eq(e->k[0].op_type, "BatchMatMulV2");
	SHAPE(&e->k[0].out[0], ACL_FLOAT16, 2, 3, 4, 6);
	nnop_exec_drop(e);
	/* inner dims differ; out shape wrong */
	ck_assert_int_eq(aclnnMatmulGetWorkspaceSize(b, a, o, 0, &ws, &e), ACLNN_ERR_PARAM_INVALID);
	ck_assert_ptr_nonnull(strstr(aclGetRecentErrMsg(), "inner dims"));
	ck_assert_int_eq(aclnnMatmulGetWorkspaceSize(a, b, om, 0, &ws, &e),
			 ACLNN_ERR_PARAM_INVALID);
	aclDestroyTensor(a);
	aclDestroyTensor(b);
	aclDestroyTensor(o);
	aclDestroyTensor(v);
	aclDestroyTensor(o0);
	aclDestroyTensor(om);
	aclDestroyTensor(ba);
	aclDestroyTensor(bb);
	aclDestroyTensor(obb);
}
END_TEST

START_TEST(matmul_types_and_model)
{
	aclTensor *a = T(ACL_FLOAT, 4096, 4096), *o = T(ACL_FLOAT, 4096, 4096),
		  *h = T(ACL_FLOAT16, 4096, 4096), *b16 = T(ACL_BF16, 4096, 4096),
		  *i = T(ACL_INT32, 4, 4), *seven = T(ACL_FLOAT, 1, 1, 1, 1, 1, 2, 2);
	uint64_t ws, keep, hf32;
	aclOpExecutor *e;

	ck_assert_int_eq(aclnnMatmulGetWorkspaceSize(a, a, o, 0, &ws, &e), ACLNN_SUCCESS);
	ck_assert_uint_eq(e->k[0].block_dim, 24);
	keep = e->k[0].duration_ns;
	nnop_exec_drop(e);
	ck_assert_int_eq(aclnnMatmulGetWorkspaceSize(a, a, o, 1, &ws, &e), ACLNN_SUCCESS);
	hf32 = e->k[0].duration_ns;
	nnop_exec_drop(e);
	/* 2*4096^3 FLOP: ~1.96 ms at 70 TFLOPS (fp32), half with HF32 */
	ck_assert_uint_gt(keep, 1900000);
	ck_assert_uint_lt(keep, 2050000);
	ck_assert_uint_lt(hf32, keep * 6 / 10);
	ck_assert_int_eq(aclnnMatmulGetWorkspaceSize(NULL, a, o, 0, &ws, &e),
			 ACLNN_ERR_PARAM_NULLPTR);
	ck_assert_int_eq(aclnnMatmulGetWorkspaceSize(a, a, NULL, 0, &ws, &e),
			 ACLNN_ERR_PARAM_NULLPTR);
	ck_assert_int_eq(aclnnMatmulGetWorkspaceSize(a, h, o, 0, &ws, &e), ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnMatmulGetWorkspaceSize(i, i, i, 0, &ws, &e), ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnMatmulGetWorkspaceSize(a, a, o, 4, &ws, &e), ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnMatmulGetWorkspaceSize(a, a, o, -1, &ws, &e),
			 ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnMatmulGetWorkspaceSize(b16, b16, b16, 2, &ws, &e),
			 ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnMatmulGetWorkspaceSize(seven, seven, seven, 0, &ws, &e),
			 ACLNN_ERR_PARAM_INVALID);
	aclDestroyTensor(a);
	aclDestroyTensor(o);
	aclDestroyTensor(h);
	aclDestroyTensor(b16);
	aclDestroyTensor(i);
	aclDestroyTensor(seven);
}
END_TEST

/* ---- Softmax / LayerNorm ---- */

START_TEST(softmax)
{
	aclTensor *a = T(ACL_FLOAT, 32, 1000), *o = T(ACL_FLOAT, 32, 1000),
		  *oh = T(ACL_FLOAT16, 32, 1000), *i = T(ACL_INT32, 32, 1000),
		  *ow = T(ACL_FLOAT, 1000, 32);
	uint64_t ws = 1;
	aclOpExecutor *e;

	ck_assert_int_eq(aclnnSoftmaxGetWorkspaceSize(a, -1, o, &ws, &e), ACLNN_SUCCESS);
	ck_assert_uint_eq(ws, 0);
	ck_assert_str_eq(e->k[0].op_name, "aclnnSoftmax_SoftmaxV2AiCore_SoftmaxV2");
	SHAPE(&e->k[0].in[0], ACL_FLOAT, 32, 1000);
	nnop_exec_drop(e);
	ck_assert_int_eq(aclnnSoftmaxGetWorkspaceSize(a, 1, o, &ws, &e), ACLNN_SUCCESS);
	nnop_exec_drop(e);
	ck_assert_int_eq(aclnnSoftmaxGetWorkspaceSize(a, 2, o, &ws, &e), ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnSoftmaxGetWorkspaceSize(a, -3, o, &ws, &e), ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnSoftmaxGetWorkspaceSize(a, 0, oh, &ws, &e), ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnSoftmaxGetWorkspaceSize(i, 0, i, &ws, &e), ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnSoftmaxGetWorkspaceSize(a, 0, ow, &ws, &e), ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnSoftmaxGetWorkspaceSize(NULL, 0, o, &ws, &e),
			 ACLNN_ERR_PARAM_NULLPTR);
	aclDestroyTensor(a);
	aclDestroyTensor(o);
	aclDestroyTensor(oh);
	aclDestroyTensor(i);
	aclDestroyTensor(ow);
}
END_TEST

START_TEST(layer_norm)
{
	int64_t nsv[1] = { 1024 }, bad[1] = { 512 }, two[2] = { 8, 1024 };
	aclIntArray *ns = aclCreateIntArray(nsv, 1), *nsbad = aclCreateIntArray(bad, 1),
		    *ns2 = aclCreateIntArray(two, 2), *ns0 = aclCreateIntArray(NULL, 0);
	aclTensor *x = T(ACL_FLOAT16, 4, 8, 1024), *o = T(ACL_FLOAT16, 4, 8, 1024),
		  *w = T(ACL_FLOAT, 1024), *b = T(ACL_FLOAT16, 1024), *wbad = T(ACL_FLOAT, 512),
		  *mean = T(ACL_FLOAT, 4, 8, 1), *rstd = T(ACL_FLOAT, 4, 8, 1),
		  *mbad = T(ACL_FLOAT, 4, 8), *wi = T(ACL_INT32, 1024);
	uint64_t ws;
	aclOpExecutor *e;

	ck_assert_int_eq(aclnnLayerNormGetWorkspaceSize(x, ns, w, b, 1e-5, o, mean, rstd, &ws, &e),
			 ACLNN_SUCCESS);
	ck_assert_uint_eq(ws, 16u << 20);
	ck_assert_str_eq(e->k[0].op_name, "aclnnLayerNorm_LayerNormV4_LayerNormV4");
	ck_assert_uint_eq(e->k[0].nin, 3);
	ck_assert_uint_eq(e->k[0].nout, 3);
	SHAPE(&e->k[0].in[1], ACL_FLOAT, 1024);
	SHAPE(&e->k[0].out[1], ACL_FLOAT, 4, 8, 1);
	ck_assert_str_eq(e->k[0].in_formats, "FORMAT_ND;FORMAT_ND;FORMAT_ND");
	nnop_exec_drop(e);
	/* the optional tensors may be left out; two normalised dims */
	ck_assert_int_eq(aclnnLayerNormGetWorkspaceSize(x, ns2, NULL, NULL, 1e-5, o, NULL, NULL,
							&ws, &e),
			 ACLNN_SUCCESS);
	ck_assert_uint_eq(e->k[0].nin, 1);
	ck_assert_uint_eq(e->k[0].nout, 1);
	nnop_exec_drop(e);
	ck_assert_int_eq(aclnnLayerNormGetWorkspaceSize(x, NULL, w, b, 1e-5, o, NULL, NULL, &ws,
							&e),
			 ACLNN_ERR_PARAM_NULLPTR);
	ck_assert_int_eq(aclnnLayerNormGetWorkspaceSize(NULL, ns, w, b, 1e-5, o, NULL, NULL, &ws,
							&e),
			 ACLNN_ERR_PARAM_NULLPTR);
	ck_assert_int_eq(aclnnLayerNormGetWorkspaceSize(x, nsbad, NULL, NULL, 1e-5, o, NULL, NULL,
							&ws, &e),
			 ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnLayerNormGetWorkspaceSize(x, ns0, NULL, NULL, 1e-5, o, NULL, NULL,
							&ws, &e),
			 ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnLayerNormGetWorkspaceSize(x, ns, wbad, NULL, 1e-5, o, NULL, NULL, &ws,
							&e),
			 ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnLayerNormGetWorkspaceSize(x, ns, wi, NULL, 1e-5, o, NULL, NULL, &ws,
							&e),
			 ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnLayerNormGetWorkspaceSize(x, ns, NULL, NULL, 1e-5, o, mbad, NULL, &ws,
							&e),
			 ACLNN_ERR_PARAM_INVALID);
	ck_assert_int_eq(aclnnLayerNormGetWorkspaceSize(x, ns, NULL, NULL, 1e-5, mean, NULL, NULL,
							&ws, &e),
			 ACLNN_ERR_PARAM_INVALID);
	aclDestroyIntArray(ns);
	aclDestroyIntArray(nsbad);
	aclDestroyIntArray(ns2);
	aclDestroyIntArray(ns0);
	aclDestroyTensor(x);
	aclDestroyTensor(o);
	aclDestroyTensor(w);
	aclDestroyTensor(b);
	aclDestroyTensor(wbad);
	aclDestroyTensor(mean);
	aclDestroyTensor(rstd);
	aclDestroyTensor(mbad);
	aclDestroyTensor(wi);
}
END_TEST

/* ---- results computed on the host (nn_compute.c) ---- */

/* A contiguous tensor over host memory of the runtime (aclrtMallocHost),
 * filled from v (n values of dtype dt's size). */
static aclTensor *mk_data(aclDataType dt, uint64_t nd, const int64_t *dims, const void *v,
			  size_t bytes, void **mem)
{
	int64_t st[ACLNN_MAX_DIMS], s = 1;

	for (uint64_t i = nd; i-- > 0;) {
		st[i] = s;
		s *= dims[i];
	}
	ck_assert_int_eq(aclrtMallocHost(mem, bytes), ACL_SUCCESS);
	memcpy(*mem, v, bytes);
	return aclCreateTensor(dims, nd, dt, st, 0, ACL_FORMAT_ND, dims, nd, *mem);
}
#define D(dt, v, mem, ...)                                                \
	mk_data(dt, sizeof((int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t), \
		(int64_t[]){ __VA_ARGS__ }, (v), sizeof(v), (mem))

START_TEST(computed)
{
	float s8[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, o2[2] = { 1, -2 }, out8[8] = { 0 };
	float a6[6] = { 1, 2, 3, 4, 5, 6 }, b6[6] = { 1, 0, 0, 1, 1, 1 }, mm4[4] = { 0 };
	float sm[6] = { 0, 0, 0, 1, 2, 3 }, ln4[4] = { 1, 2, 3, 4 }, w2[2] = { 2, 2 };
	int32_t i3[3] = { 2147483647, -5, 7 }, j3[3] = { 1, 3, -7 }, io[3] = { 0 };
	uint16_t h8[8] = { 0 };
	float al = 1.5f, stack_out[8];
	int32_t ai = 3;
	void *m[16];
	aclTensor *self, *other, *out, *t16, *x, *w, *mean, *rstd, *bad;
	aclScalar *alpha = aclCreateScalar(&al, ACL_FLOAT), *alpha_i;
	aclIntArray *ns;
	uint64_t ws;
	aclOpExecutor *e;
	const float *r;

	ck_assert_int_eq(aclInit(NULL), ACL_SUCCESS);
	/* Add with alpha, other broadcast over the rows: an Axpy */
	self = D(ACL_FLOAT, s8, &m[0], 4, 2);
	other = D(ACL_FLOAT, o2, &m[1], 2);
	out = D(ACL_FLOAT, out8, &m[2], 4, 2);
	ck_assert_int_eq(aclnnAddGetWorkspaceSize(self, other, alpha, out, &ws, &e), ACLNN_SUCCESS);
	nnop_compute("aclnnAdd", &e->compute);
	nnop_exec_drop(e);
	r = m[2];
	for (int i = 0; i < 8; i++)
		ck_assert_float_eq_tol(r[i], s8[i] + 1.5f * o2[i % 2], 1e-6);
	/* Mul into the same out */
	ck_assert_int_eq(aclnnMulGetWorkspaceSize(self, other, out, &ws, &e), ACLNN_SUCCESS);
	nnop_compute("aclnnMul", &e->compute);
	nnop_exec_drop(e);
	for (int i = 0; i < 8; i++)
		ck_assert_float_eq(r[i], s8[i] * o2[i % 2]);
	/* Cast to FLOAT16, rounded to nearest even: 0, -2, 2, -6, 4, -10, 6, -14 */
	t16 = D(ACL_FLOAT16, h8, &m[3], 4, 2);
	ck_assert_int_eq(aclnnCastGetWorkspaceSize(out, ACL_FLOAT16, t16, &ws, &e), ACLNN_SUCCESS);
	nnop_compute("aclnnCast", &e->compute);
	nnop_exec_drop(e);
	ck_assert_uint_eq(((uint16_t *)m[3])[1], 0xc000u); /* -2 */
	ck_assert_uint_eq(((uint16_t *)m[3])[6], 0x4600u); /* 6 */
	ck_assert_uint_eq(((uint16_t *)m[3])[7], 0xcb00u); /* -14 */
	/* integers exactly, wrapping as the device's do: i + 3 j */
	alpha_i = aclCreateScalar(&ai, ACL_INT32);
	aclDestroyTensor(self);
	aclDestroyTensor(other);
	aclDestroyTensor(out);
	self = D(ACL_INT32, i3, &m[4], 3);
	other = D(ACL_INT32, j3, &m[5], 3);
	out = D(ACL_INT32, io, &m[6], 3);
	ck_assert_int_eq(aclnnAddGetWorkspaceSize(self, other, alpha_i, out, &ws, &e),
			 ACLNN_SUCCESS);
	nnop_compute("aclnnAdd", &e->compute);
	nnop_exec_drop(e);
	ck_assert_int_eq(((int32_t *)m[6])[0], (int32_t)0x80000002u);
	ck_assert_int_eq(((int32_t *)m[6])[1], 4);
	ck_assert_int_eq(((int32_t *)m[6])[2], -14);
	aclDestroyTensor(self);
	aclDestroyTensor(other);
	aclDestroyTensor(out);
	/* Matmul [2,3] x [3,2] */
	self = D(ACL_FLOAT, a6, &m[7], 2, 3);
	other = D(ACL_FLOAT, b6, &m[8], 3, 2);
	out = D(ACL_FLOAT, mm4, &m[9], 2, 2);
	ck_assert_int_eq(aclnnMatmulGetWorkspaceSize(self, other, out, 0, &ws, &e), ACLNN_SUCCESS);
	nnop_compute("aclnnMatmul", &e->compute);
	nnop_exec_drop(e);
	r = m[9];
	ck_assert_float_eq(r[0], 4);
	ck_assert_float_eq(r[1], 5);
	ck_assert_float_eq(r[2], 10);
	ck_assert_float_eq(r[3], 11);
	aclDestroyTensor(self);
	aclDestroyTensor(other);
	aclDestroyTensor(out);
	/* Softmax over the last dim of [2,3] */
	self = D(ACL_FLOAT, sm, &m[10], 2, 3);
	out = D(ACL_FLOAT, a6, &m[11], 2, 3);
	ck_assert_int_eq(aclnnSoftmaxGetWorkspaceSize(self, -1, out, &ws, &e), ACLNN_SUCCESS);
	nnop_compute("aclnnSoftmax", &e->compute);
	nnop_exec_drop(e);
	r = m[11];
	ck_assert_float_eq_tol(r[0], 1.0 / 3, 1e-6);
	ck_assert_float_eq_tol(r[5], exp(1) / (1 + exp(-1) + exp(1)), 1e-6);
	aclDestroyTensor(self);
	aclDestroyTensor(out);
	/* LayerNorm of [2,2] over the last dim, weight 2, with mean and rstd */
	x = D(ACL_FLOAT, ln4, &m[12], 2, 2);
	w = D(ACL_FLOAT, w2, &m[13], 2);
	out = D(ACL_FLOAT, mm4, &m[14], 2, 2);
	mean = D(ACL_FLOAT, o2, &m[15], 2, 1);
	rstd = D(ACL_FLOAT, o2, &m[1], 2, 1);
	ns = aclCreateIntArray((int64_t[]){ 2 }, 1);
	ck_assert_int_eq(aclnnLayerNormGetWorkspaceSize(x, ns, w, NULL, 0, out, mean, rstd, &ws,
							&e),
			 ACLNN_SUCCESS);
	nnop_compute("aclnnLayerNorm", &e->compute);
	nnop_exec_drop(e);
	r = m[14];
	ck_assert_float_eq_tol(r[0], -2, 1e-5);
	ck_assert_float_eq_tol(r[3], 2, 1e-5);
	ck_assert_float_eq_tol(((float *)m[15])[1], 3.5, 1e-6);
	ck_assert_float_eq_tol(((float *)m[1])[0], 2, 1e-5);
	/* data that is not the runtime's memory: nothing written, said once */
	memset(stack_out, 0, sizeof(stack_out));
	bad = aclCreateTensor((int64_t[]){ 2, 2 }, 2, ACL_FLOAT, (int64_t[]){ 2, 1 }, 0,
			      ACL_FORMAT_ND, (int64_t[]){ 2, 2 }, 2, stack_out);
	ck_assert_int_eq(aclnnAddGetWorkspaceSize(x, x, alpha, bad, &ws, &e), ACLNN_SUCCESS);
	nnop_compute("aclnnAdd", &e->compute);
	nnop_exec_drop(e);
	ck_assert_float_eq(stack_out[0], 0);
	/* past the end of its allocation: w has 2 elements, viewed as [2,2] */
	aclDestroyTensor(bad);
	bad = aclCreateTensor((int64_t[]){ 2, 2 }, 2, ACL_FLOAT, (int64_t[]){ 2, 1 }, 0,
			      ACL_FORMAT_ND, (int64_t[]){ 2, 2 }, 2, m[13]);
	ck_assert_int_eq(aclnnAddGetWorkspaceSize(x, x, alpha, bad, &ws, &e), ACLNN_SUCCESS);
	nnop_compute("aclnnAdd", &e->compute);
	nnop_exec_drop(e);
	ck_assert_float_eq(((float *)m[13])[0], 2);
	aclDestroyTensor(bad);
	for (aclTensor **t = (aclTensor *[]){ x, w, out, mean, rstd, t16, NULL }; *t; t++)
		aclDestroyTensor(*t);
	for (int i = 0; i < 16; i++)
		aclrtFreeHost(m[i]);
	aclDestroyScalar(alpha);
	aclDestroyScalar(alpha_i);
	aclDestroyIntArray(ns);
	aclFinalize();
}
END_TEST

/* ---- the launch phase ---- */

START_TEST(launch_checks)
{
	aclTensor *a = T(ACL_FLOAT, 64, 64), *o = T(ACL_FLOAT, 64, 64);
	uint64_t ws;
	aclOpExecutor *e, *add;
	char buf[64];

	ck_assert_int_eq(aclnnMatmulGetWorkspaceSize(a, a, o, 0, &ws, &e), ACLNN_SUCCESS);
	ck_assert_uint_eq(ws, 16u << 20);
	ck_assert_int_eq(aclnnMatmul(buf, 0, NULL, NULL), ACLNN_ERR_PARAM_NULLPTR);
	/* workspace too small, or absent: refused, the executor still usable */
	ck_assert_int_eq(aclnnMatmul(buf, sizeof(buf), e, NULL), ACLNN_ERR_PARAM_INVALID);
	ck_assert_ptr_nonnull(strstr(aclGetRecentErrMsg(), "smaller than"));
	ck_assert_int_eq(aclnnMatmul(NULL, ws, e, NULL), ACLNN_ERR_PARAM_NULLPTR);
	/* another operator's launch */
	ck_assert_int_eq(aclnnAdd(buf, ws, e, NULL), ACLNN_ERR_PARAM_INVALID);
	ck_assert_ptr_nonnull(strstr(aclGetRecentErrMsg(), "belongs to aclnnMatmul"));
	/* the launch itself fails without an initialised runtime ... */
	ck_assert_int_eq(aclnnMatmul(buf, ws, e, NULL), ACLNN_ERR_RUNTIME_ERROR);
	/* ... and consumed the executor */
	ck_assert_int_eq(aclnnMatmul(buf, ws, e, NULL), ACLNN_ERR_PARAM_INVALID);
	ck_assert_ptr_nonnull(strstr(aclGetRecentErrMsg(), "one-shot"));
	/* an empty plan launches nothing and succeeds */
	aclDestroyTensor(a);
	aclDestroyTensor(o);
	a = T(ACL_FLOAT, 0);
	{
		aclScalar *al = one();

		ck_assert_int_eq(aclnnAddGetWorkspaceSize(a, a, al, a, &ws, &add), ACLNN_SUCCESS);
		ck_assert_int_eq(aclnnAdd(NULL, 0, add, NULL), ACLNN_SUCCESS);
		ck_assert_int_eq(aclnnAdd(NULL, 0, add, NULL), ACLNN_ERR_PARAM_INVALID);
		aclDestroyScalar(al);
	}
	aclDestroyTensor(a);
}
END_TEST

/* aclnpuLaunchOp reads `flags` only from callers whose descriptor has it */
START_TEST(op_desc_sizes)
{
	aclnpuOpDesc d;

	memset(&d, 0, sizeof(d));
	d.opName = "n";
	d.opType = "Add";
	d.taskKind = ACLNPU_TASK_AI_VECTOR_CORE;
	d.blockDim = 1;
	d.size = offsetof(aclnpuOpDesc, flags); /* a build from before flags */
	ck_assert_int_ne(aclnpuLaunchOp(&d, NULL), ACL_ERROR_INVALID_PARAM);
	d.size = sizeof(d);
	d.flags = ACLNPU_OP_IN_API;
	ck_assert_int_ne(aclnpuLaunchOp(&d, NULL), ACL_ERROR_INVALID_PARAM);
	d.size = offsetof(aclnpuOpDesc, flags) - 1;
	ck_assert_int_eq(aclnpuLaunchOp(&d, NULL), ACL_ERROR_INVALID_PARAM);
	/* the API scope tolerates NULL */
	aclnpuApiBegin(NULL, "x");
	ck_assert_int_eq(aclnpuApiEnd(NULL, 7), 7);
}
END_TEST

/* ---- securec ---- */

START_TEST(securec)
{
	char d[8], big[32];

	ck_assert_int_eq(memcpy_s(d, sizeof(d), "abc", 4), EOK);
	ck_assert_str_eq(d, "abc");
	ck_assert_int_eq(memcpy_s(d, sizeof(d), "0123456789", 10), ERANGE_AND_RESET);
	ck_assert_int_eq(d[0], 0);
	ck_assert_int_eq(memcpy_s(d, 0, "a", 1), ERANGE);
	ck_assert_int_eq(memcpy_s(NULL, 8, "a", 1), EINVAL);
	ck_assert_int_eq(memcpy_s(d, sizeof(d), NULL, 1), EINVAL_AND_RESET);
	memcpy(big, "abcdefgh", 9);
	ck_assert_int_eq(memcpy_s(big + 2, 8, big, 4), EOVERLAP_AND_RESET);
	ck_assert_int_eq(memmove_s(big + 2, 8, big, 4), EOK);
	ck_assert_int_eq(memset_s(d, sizeof(d), 'x', 4), EOK);
	ck_assert_int_eq(d[3], 'x');
	ck_assert_int_eq(memset_s(d, sizeof(d), 'y', 9), ERANGE_AND_RESET);
	ck_assert_int_eq(d[7], 'y');
	ck_assert_int_eq(strcpy_s(d, sizeof(d), "1234567"), EOK);
	ck_assert_int_eq(strcpy_s(d, sizeof(d), "12345678"), ERANGE_AND_RESET);
	ck_assert_str_eq(d, "");
	ck_assert_int_eq(strcpy_s(d, sizeof(d), NULL), EINVAL_AND_RESET);
	ck_assert_int_eq(strncpy_s(d, sizeof(d), "abcdefghij", 3), EOK);
	ck_assert_str_eq(d, "abc");
	ck_assert_int_eq(strncpy_s(d, sizeof(d), "abcdefghij", 8), ERANGE_AND_RESET);
	ck_assert_int_eq(strcpy_s(d, sizeof(d), "ab"), EOK);
	ck_assert_int_eq(strcat_s(d, sizeof(d), "cde"), EOK);
	ck_assert_str_eq(d, "abcde");
	ck_assert_int_eq(strcat_s(d, sizeof(d), "fgh"), ERANGE_AND_RESET);
	ck_assert_int_eq(strcpy_s(d, sizeof(d), "ab"), EOK);
	ck_assert_int_eq(strncat_s(d, sizeof(d), "cdefgh", 2), EOK);
	ck_assert_str_eq(d, "abcd");
	ck_assert_int_eq(sprintf_s(d, sizeof(d), "%d-%s", 42, "x"), 4);
	ck_assert_str_eq(d, "42-x");
	ck_assert_int_eq(sprintf_s(d, sizeof(d), "%s", "too long!"), -1);
	ck_assert_str_eq(d, "");
	ck_assert_int_eq(snprintf_s(d, sizeof(d), 3, "%s", "abcdef"), -1);
	ck_assert_str_eq(d, "abc");
	ck_assert_int_eq(snprintf_s(d, sizeof(d), sizeof(d) - 1, "%s", "abc"), 3);
	ck_assert_int_eq(snprintf_s(d, 0, 3, "%s", "abc"), -1);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("aclnn");
	TCase *tc = tcase_create("aclnn");

	tcase_add_test(tc, tensor_objects);
	tcase_add_test(tc, scalars_and_arrays);
	tcase_add_test(tc, promotion);
	tcase_add_test(tc, add_plan);
	tcase_add_test(tc, add_promotion_and_alpha);
	tcase_add_test(tc, add_errors);
	tcase_add_test(tc, add_empty);
	tcase_add_test(tc, mul_plan_and_errors);
	tcase_add_test(tc, too_large_for_the_model);
	tcase_add_test(tc, cast);
	tcase_add_test(tc, matmul_shapes);
	tcase_add_test(tc, matmul_types_and_model);
	tcase_add_test(tc, softmax);
	tcase_add_test(tc, layer_norm);
	tcase_add_test(tc, computed);
	tcase_add_test(tc, launch_checks);
	tcase_add_test(tc, op_desc_sizes);
	tcase_add_test(tc, securec);
	suite_add_tcase(s, tc);
	return s;
}
