/*
 * test_mirror.c - the device mirror without a device (libnpuprof_mirror.so):
 * the plan of each family of aten ops (which aclnn operators, with which
 * tensors: npuprof_mirror_describe), ops with no device work, the fallback
 * of unknown ops and of shapes an operator does not take, bad arguments,
 * and the calls that need an open mirror. Launches on npusim and what they
 * record are tested in the VM (tests/vm/suite_47_mirror.sh).
 */
#include <check.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl.h"
#include "mirror.h"

#define U ACL_DT_UNDEFINED
#define NDIMS(...) ((int32_t)(sizeof((int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t)))
/* a tensor input */
#define T(dt, ...)                                          \
	{                                                   \
		(dt), NDIMS(__VA_ARGS__), (const int64_t[]) \
		{                                           \
			__VA_ARGS__                         \
		}                                           \
	}
#define T0(dt)                \
	{                     \
		(dt), 0, NULL \
	}
/* a non-tensor input (a Python number, a list, None) */
#define N                  \
	{                  \
		U, 0, NULL \
	}

static char g_buf[1024];

static int describe(const char *name, const struct npuprof_mirror_tensor *in, size_t n)
{
	return npuprof_mirror_describe(name, in, n, g_buf, sizeof(g_buf));
}

#define EXPECT(name, nsteps, want, ...)                                                          \
	do {                                                                                     \
		const struct npuprof_mirror_tensor in_[] = { __VA_ARGS__ };                      \
		int r_ = describe(name, in_, sizeof(in_) / sizeof(in_[0]));                      \
		ck_assert_msg(r_ == (nsteps), "%s: %d steps (%s), expected %d", name, r_, g_buf, \
			      nsteps);                                                           \
		ck_assert_str_eq(g_buf, want);                                                   \
	} while (0)

START_TEST(cube_ops)
{
	EXPECT("aten::mm", 1, "aclnnMatmul(FLOAT[4,8];FLOAT[8,16]->FLOAT[4,16])",
	       T(ACL_FLOAT, 4, 8), T(ACL_FLOAT, 8, 16));
	EXPECT("aten::bmm", 1, "aclnnMatmul(FLOAT16[2,4,8];FLOAT16[2,8,16]->FLOAT16[2,4,16])",
	       T(ACL_FLOAT16, 2, 4, 8), T(ACL_FLOAT16, 2, 8, 16));
	/* matmul broadcasts batch dims; a 1-D operand drops its dim */
	EXPECT("aten::matmul", 1, "aclnnMatmul(FLOAT[3,1,4,8];FLOAT[5,8,2]->FLOAT[3,5,4,2])",
	       T(ACL_FLOAT, 3, 1, 4, 8), T(ACL_FLOAT, 5, 8, 2));
	EXPECT("aten::matmul", 1, "aclnnMatmul(FLOAT[4,8];FLOAT[8]->FLOAT[4])", T(ACL_FLOAT, 4, 8),
	       T(ACL_FLOAT, 8));
	/* addmm(bias, a, b): the product, then the bias added */
	EXPECT("aten::addmm", 2,
	       "aclnnMatmul(FLOAT[4,8];FLOAT[8,16]->FLOAT[4,16])+"
	       "aclnnAdd(FLOAT[4,16];FLOAT[16]->FLOAT[4,16])",
	       T(ACL_FLOAT, 16), T(ACL_FLOAT, 4, 8), T(ACL_FLOAT, 8, 16), N, N);
	/* linear(x, weight [out, in], bias): x times weight.t() */
	EXPECT("aten::linear", 2,
	       "aclnnMatmul(BF16[2,3,8];BF16[8,16]->BF16[2,3,16])+"
	       "aclnnAdd(BF16[2,3,16];BF16[16]->BF16[2,3,16])",
	       T(ACL_BF16, 2, 3, 8), T(ACL_BF16, 16, 8), T(ACL_BF16, 16));
	EXPECT("aten::linear", 1, "aclnnMatmul(FLOAT[5,8];FLOAT[8,16]->FLOAT[5,16])",
	       T(ACL_FLOAT, 5, 8), T(ACL_FLOAT, 16, 8), N);
	/* dtypes the cube does not take are modelled as FLOAT */
	EXPECT("aten::mm", 1, "aclnnMatmul(FLOAT[4,8];FLOAT[8,2]->FLOAT[4,2])", T(ACL_INT64, 4, 8),
	       T(ACL_INT64, 8, 2));
	EXPECT("aten::mm", 1, "aclnnMatmul(FLOAT[4,8];FLOAT[8,2]->FLOAT[4,2])", T(ACL_DOUBLE, 4, 8),
	       T(ACL_DOUBLE, 8, 2));
	/* more than 6 dims: the leading ones fold into one */
	EXPECT("aten::matmul", 1,
	       "aclnnMatmul(FLOAT[16,2,2,2,4,8];FLOAT[8,3]->FLOAT[16,2,2,2,4,3])",
	       T(ACL_FLOAT, 2, 2, 2, 2, 2, 2, 2, 4, 8), T(ACL_FLOAT, 8, 3));
}
END_TEST

START_TEST(elementwise_ops)
{
	EXPECT("aten::add", 1, "aclnnAdd(FLOAT[4,8];FLOAT[8]->FLOAT[4,8])", T(ACL_FLOAT, 4, 8),
	       T(ACL_FLOAT, 8), N);
	/* a Python number: a 0-dim operand of self's dtype */
	EXPECT("aten::add", 1, "aclnnAdd(FLOAT[4,8];FLOAT[]->FLOAT[4,8])", T(ACL_FLOAT, 4, 8), N,
	       N);
	EXPECT("aten::sub", 1, "aclnnAdd(FLOAT[4];FLOAT[4],alpha=-1->FLOAT[4])", T(ACL_FLOAT, 4),
	       T(ACL_FLOAT, 4), N);
	EXPECT("aten::rsub", 1, "aclnnAdd(FLOAT[4];FLOAT[],alpha=-1->FLOAT[4])", T(ACL_FLOAT, 4), N,
	       N);
	/* optimizer updates are in place */
	EXPECT("aten::add_", 1, "aclnnInplaceAdd(FLOAT[16,8];FLOAT[16,8]->FLOAT[16,8])",
	       T(ACL_FLOAT, 16, 8), T(ACL_FLOAT, 16, 8), N);
	EXPECT("aten::sub_", 1, "aclnnInplaceAdd(FLOAT[16];FLOAT[16],alpha=-1->FLOAT[16])",
	       T(ACL_FLOAT, 16), T(ACL_FLOAT, 16), N);
	EXPECT("aten::mul_", 1, "aclnnInplaceMul(FLOAT[16,8];FLOAT[]->FLOAT[16,8])",
	       T(ACL_FLOAT, 16, 8), N);
	EXPECT("aten::addcmul_", 2,
	       "aclnnMul(FLOAT[16];FLOAT[16]->FLOAT[16])+"
	       "aclnnInplaceAdd(FLOAT[16];FLOAT[16]->FLOAT[16])",
	       T(ACL_FLOAT, 16), T(ACL_FLOAT, 16), T(ACL_FLOAT, 16), N);
	/* torch's result type: floating beats integral, FLOAT16 with BF16 is FLOAT */
	EXPECT("aten::mul", 1, "aclnnMul(INT64[4];FLOAT16[4]->FLOAT16[4])", T(ACL_INT64, 4),
	       T(ACL_FLOAT16, 4));
	EXPECT("aten::div", 1, "aclnnMul(BF16[4];FLOAT16[4]->FLOAT[4])", T(ACL_BF16, 4),
	       T(ACL_FLOAT16, 4));
	EXPECT("aten::mul", 1, "aclnnMul(INT32[4];INT64[4]->INT64[4])", T(ACL_INT32, 4),
	       T(ACL_INT64, 4));
	/* activations and reductions: one pass over the input */
	EXPECT("aten::relu", 1, "aclnnCast(FLOAT[4,8]->FLOAT[4,8])", T(ACL_FLOAT, 4, 8));
	EXPECT("aten::gelu", 1, "aclnnCast(FLOAT16[4,8]->FLOAT16[4,8])", T(ACL_FLOAT16, 4, 8), N);
	EXPECT("aten::sum", 1, "aclnnCast(FLOAT[4,8]->FLOAT[4,8])", T(ACL_FLOAT, 4, 8), N);
	EXPECT("aten::threshold_backward", 1, "aclnnMul(FLOAT[4,8];FLOAT[4,8]->FLOAT[4,8])",
	       T(ACL_FLOAT, 4, 8), T(ACL_FLOAT, 4, 8), N);
	/* more than 8 dims fold */
	EXPECT("aten::relu", 1, "aclnnCast(FLOAT[6,2,2,2,2,2,2,2]->FLOAT[6,2,2,2,2,2,2,2])",
	       T(ACL_FLOAT, 3, 2, 2, 2, 2, 2, 2, 2, 2));
}
END_TEST

START_TEST(norm_and_copy_ops)
{
	EXPECT("aten::softmax", 1, "aclnnSoftmax(FLOAT[8,1024]->FLOAT[8,1024])",
	       T(ACL_FLOAT, 8, 1024), N, N);
	EXPECT("aten::_log_softmax", 1, "aclnnSoftmax(DOUBLE[8,10]->DOUBLE[8,10])",
	       T(ACL_DOUBLE, 8, 10), N, N);
	/* layer_norm(input, normalized_shape, weight, bias, eps, cudnn) */
	EXPECT("aten::layer_norm", 1, "aclnnLayerNorm(FLOAT[8,16,32];FLOAT[32]->FLOAT[8,16,32])",
	       T(ACL_FLOAT, 8, 16, 32), N, T(ACL_FLOAT, 32), T(ACL_FLOAT, 32), N, N);
	EXPECT("aten::native_layer_norm", 1,
	       "aclnnLayerNorm(FLOAT16[8,16,32];FLOAT16[16,32]->FLOAT16[8,16,32])",
	       T(ACL_FLOAT16, 8, 16, 32), N, T(ACL_FLOAT16, 16, 32), T(ACL_FLOAT16, 16, 32), N);
	EXPECT("aten::layer_norm", 1, "aclnnLayerNorm(FLOAT[8,32]->FLOAT[8,32])",
	       T(ACL_FLOAT, 8, 32), N, N, N, N, N);
	/* backward(grad, input, shape, mean [8,1], rstd, weight, bias, mask) */
	EXPECT("aten::native_layer_norm_backward", 1,
	       "aclnnLayerNorm(FLOAT[8,32];FLOAT[32]->FLOAT[8,32])", T(ACL_FLOAT, 8, 32),
	       T(ACL_FLOAT, 8, 32), N, T(ACL_FLOAT, 8, 1), T(ACL_FLOAT, 8, 1), T(ACL_FLOAT, 32),
	       T(ACL_FLOAT, 32), N);
	/* copy_(self, src): src into self's dtype */
	EXPECT("aten::copy_", 1, "aclnnCast(FLOAT[4,8]->FLOAT16[4,8])", T(ACL_FLOAT16, 4, 8),
	       T(ACL_FLOAT, 4, 8), N);
	EXPECT("aten::to", 1, "aclnnCast(INT64[4]->INT64[4])", T(ACL_INT64, 4), N, N, N, N);
	/* embedding(weight [V, D], indices): the gathered [..., D] */
	EXPECT("aten::embedding", 1, "aclnnCast(FLOAT[4,7,32]->FLOAT[4,7,32])",
	       T(ACL_FLOAT, 100, 32), T(ACL_INT64, 4, 7), N, N, N);
}
END_TEST

START_TEST(no_device_work)
{
	EXPECT("aten::view", 0, "", T(ACL_FLOAT, 4, 8), N);
	EXPECT("aten::reshape", 0, "", T(ACL_FLOAT, 4, 8), N);
	EXPECT("aten::t", 0, "", T(ACL_FLOAT, 4, 8));
	EXPECT("aten::detach", 0, "", T(ACL_FLOAT, 4, 8));
	EXPECT("aten::empty", 0, "", N, N, N, N);
	EXPECT("aten::contiguous", 0, "", T(ACL_FLOAT, 4, 8), N);
	/* factories: no tensor input, their size is unknown */
	EXPECT("aten::zeros", 0, "", N, N, N, N, N);
	/* not aten ops */
	EXPECT("c10d::allreduce_", 0, "", T(ACL_FLOAT, 4));
	EXPECT("ProfilerStep#1", 0, "", T(ACL_FLOAT, 4));
	EXPECT("aten::relu", 1, "aclnnCast(FLOAT[0,8]->FLOAT[0,8])", T(ACL_FLOAT, 0, 8));
	ck_assert_int_eq(describe("aten::relu", NULL, 0), 0);
}
END_TEST

START_TEST(unknown_and_misfit_ops)
{
	/* unknown compute: Mul of the first two tensors when they broadcast */
	EXPECT("aten::mse_loss", 1, "aclnnMul(FLOAT[4,8];FLOAT[4,8]->FLOAT[4,8])",
	       T(ACL_FLOAT, 4, 8), T(ACL_FLOAT, 4, 8), N);
	/* else a Cast of the largest tensor */
	EXPECT("aten::where", 1, "aclnnCast(FLOAT[4,8]->FLOAT[4,8])", T(ACL_BOOL, 4),
	       T(ACL_FLOAT, 4, 8), T(ACL_FLOAT, 8));
	EXPECT("aten::cumsum", 1, "aclnnCast(FLOAT[4,8]->FLOAT[4,8])", T(ACL_FLOAT, 4, 8), N, N);
	/* shapes the operator refuses: the closest elementwise model */
	EXPECT("aten::mm", 1, "aclnnCast(FLOAT[9,16]->FLOAT[9,16])", T(ACL_FLOAT, 4, 8),
	       T(ACL_FLOAT, 9, 16));
	EXPECT("aten::add_", 1, "aclnnMul(FLOAT[8];FLOAT[4,8]->FLOAT[4,8])", T(ACL_FLOAT, 8),
	       T(ACL_FLOAT, 4, 8), N);
	/* a dtype without an operator type is modelled as FLOAT */
	EXPECT("aten::relu", 1, "aclnnCast(FLOAT[4]->FLOAT[4])", T(ACL_STRING, 4));
}
END_TEST

START_TEST(bad_arguments)
{
	const struct npuprof_mirror_tensor neg[] = { T(ACL_FLOAT, 4, -1) };
	const struct npuprof_mirror_tensor huge[] = { T(ACL_FLOAT, INT64_MAX, 4) };
	const struct npuprof_mirror_tensor mm[] = { T(ACL_FLOAT, 4, 8), T(ACL_FLOAT, 8, 16) };
	char small[8];

	ck_assert_int_eq(describe(NULL, mm, 2), -EINVAL);
	ck_assert_int_eq(describe("aten::mm", NULL, 2), -EINVAL);
	ck_assert_int_eq(describe("aten::relu", neg, 1), -EINVAL);
	ck_assert_int_eq(describe("aten::relu", huge, 1), -EINVAL);
	ck_assert_int_eq(npuprof_mirror_describe("aten::mm", mm, 2, NULL, 0), -EINVAL);
	ck_assert_int_eq(npuprof_mirror_describe("aten::mm", mm, 2, small, sizeof(small)), -ENOSPC);
}
END_TEST

START_TEST(needs_an_open_mirror)
{
	const struct npuprof_mirror_tensor t[] = { T(ACL_FLOAT, 4) };
	char err[256], root[NPUPROF_MIRROR_ROOT_INFO_BYTES];

	ck_assert_int_eq(npuprof_mirror_is_open(), 0);
	ck_assert_int_eq(npuprof_mirror_op("aten::relu", t, 1), -ENODEV);
	ck_assert_str_eq(npuprof_mirror_strerror(), "the mirror is not open");
	ck_assert_int_eq(npuprof_mirror_sync(), -ENODEV);
	ck_assert_int_eq(npuprof_mirror_collective(NPUPROF_MIRROR_ALL_REDUCE, NULL, t, 0,
						   NPUPROF_MIRROR_SUM),
			 -ENODEV);
	ck_assert_int_eq(npuprof_mirror_collective(NPUPROF_MIRROR_COLL_COUNT, NULL, t, 0, 0),
			 -EINVAL);
	ck_assert_int_eq(npuprof_mirror_collective(NPUPROF_MIRROR_ALL_REDUCE, NULL, t, 0, 9),
			 -EINVAL);
	ck_assert_int_eq(npuprof_mirror_comm_rank(), -1);
	ck_assert_int_eq(npuprof_mirror_comm_name(err, sizeof(err)), -ENOTCONN);
	ck_assert_int_eq(npuprof_mirror_comm_init(2, 0, root, sizeof(root), err, sizeof(err)),
			 -ENODEV);
	ck_assert_str_eq(err, "the mirror is not open");
	ck_assert_int_eq(npuprof_mirror_open(-1, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(npuprof_mirror_comm_root_info(root, 16, err, sizeof(err)), -EINVAL);
	/* the root info needs no device */
	ck_assert_int_eq(npuprof_mirror_comm_root_info(root, sizeof(root), err, sizeof(err)),
			 NPUPROF_MIRROR_ROOT_INFO_BYTES);
	npuprof_mirror_close(); /* closing a closed mirror is a no-op */
	if (access("/dev/npusim0", F_OK) != 0) {
		/* no simulator on this host: open fails and says why */
		ck_assert_int_lt(npuprof_mirror_open(0, err, sizeof(err)), 0);
		ck_assert_msg(strstr(err, "aclrtSetDevice(0)") != NULL, "%s", err);
		ck_assert_int_eq(npuprof_mirror_is_open(), 0);
	}
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("mirror");
	TCase *tc = tcase_create("mirror");

	tcase_add_test(tc, cube_ops);
	tcase_add_test(tc, elementwise_ops);
	tcase_add_test(tc, norm_and_copy_ops);
	tcase_add_test(tc, no_device_work);
	tcase_add_test(tc, unknown_and_misfit_ops);
	tcase_add_test(tc, bad_arguments);
	tcase_add_test(tc, needs_an_open_mirror);
	suite_add_tcase(s, tc);
	return s;
}
