/*
 * test_runtime_api.c - host tests of the CANN API of rt_ctx.c/rt_misc.c that
 * need no device: data buffers, half precision (every fp16 value), CANN
 * attributes, package versions from version.info, the thread's last
 * error, stream config handles, event flags CANN has and npusim cannot
 * honour, and what contexts, peers and error details say without devices.
 * The device behaviour is checked in the VM (tests/sdk/rtapi, suite
 * 40_runtime).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acl/acl.h"
#include "acl/acl_rt_allocator.h"

START_TEST(data_buffer)
{
	char mem[16];
	aclDataBuffer *b = aclCreateDataBuffer(mem, sizeof(mem));

	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_eq(aclGetDataBufferAddr(b), mem);
	ck_assert_uint_eq(aclGetDataBufferSizeV2(b), sizeof(mem));
	ck_assert_uint_eq(aclGetDataBufferSize(b), sizeof(mem));
	ck_assert_int_eq(aclUpdateDataBuffer(b, NULL, (size_t)1 << 33), ACL_SUCCESS);
	ck_assert_ptr_null(aclGetDataBufferAddr(b));
	ck_assert_uint_eq(aclGetDataBufferSizeV2(b), (size_t)1 << 33);
	ck_assert_uint_eq(aclGetDataBufferSize(b), 0); /* does not fit: refused */
	ck_assert_int_eq(aclDestroyDataBuffer(b), ACL_SUCCESS);
	ck_assert_int_eq(aclDestroyDataBuffer(NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclUpdateDataBuffer(NULL, mem, 1), ACL_ERROR_INVALID_PARAM);
	ck_assert_ptr_null(aclGetDataBufferAddr(NULL));
	ck_assert_uint_eq(aclGetDataBufferSizeV2(NULL), 0);
	/* an empty buffer is allowed, as CANN's */
	b = aclCreateDataBuffer(NULL, 0);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(aclDestroyDataBuffer(b), ACL_SUCCESS);
}
END_TEST

/* Every finite fp16 value survives fp16 -> float -> fp16, and the float is
 * the value the bits mean. */
START_TEST(half_roundtrip)
{
	for (uint32_t h = 0; h < 0x10000; h++) {
		uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
		float f, want;

		if (e == 31)
			continue;
		f = aclFloat16ToFloat((aclFloat16)h);
		want = e ? ldexpf((float)(m | 0x400), (int)e - 25) : ldexpf((float)m, -24);
		if (h & 0x8000)
			want = -want;
		ck_assert_msg(f == want, "0x%04x -> %g, want %g", h, f, want);
		if (h != 0x8000) /* -0 keeps its sign bit */
			ck_assert_uint_eq(aclFloatToFloat16(f), h);
	}
	ck_assert_uint_eq(aclFloatToFloat16(-0.0f), 0x8000);
}
END_TEST

START_TEST(half_saturation_and_rounding)
{
	/* CANN's saturation: NaN and Inf become the largest finite value */
	ck_assert_uint_eq(aclFloatToFloat16(NAN), 0x7bff);
	ck_assert_uint_eq(aclFloatToFloat16(INFINITY), 0x7bff);
	ck_assert_uint_eq(aclFloatToFloat16(-INFINITY), 0xfbff);
	ck_assert_uint_eq(aclFloatToFloat16(1e9f), 0x7bff);
	ck_assert_uint_eq(aclFloatToFloat16(65519.0f), 0x7bff); /* rounds down to 65504 */
	ck_assert_uint_eq(aclFloatToFloat16(65520.0f), 0x7bff); /* would round to Inf */
	ck_assert(aclFloat16ToFloat(0x7c00) == 65536.0f);
	ck_assert(aclFloat16ToFloat(0xfc00) == -65536.0f);
	ck_assert(aclFloat16ToFloat(0x7e00) == 98304.0f);
	/* ties to even: 1 + 2^-11 lies halfway between 1 and 1 + 2^-10 */
	ck_assert_uint_eq(aclFloatToFloat16(1.0f + ldexpf(1, -11)), 0x3c00);
	ck_assert_uint_eq(aclFloatToFloat16(1.0f + 3 * ldexpf(1, -11)), 0x3c02);
	ck_assert_uint_eq(aclFloatToFloat16(1.0f + ldexpf(1, -11) + ldexpf(1, -20)), 0x3c01);
	/* subnormals: 2^-24 is the smallest; half of it rounds to zero (even),
	 * a little more to 2^-24; the largest subnormal carries into 2^-14 */
	ck_assert_uint_eq(aclFloatToFloat16(ldexpf(1, -24)), 0x0001);
	ck_assert_uint_eq(aclFloatToFloat16(ldexpf(1, -25)), 0x0000);
	ck_assert_uint_eq(aclFloatToFloat16(ldexpf(1.5f, -25)), 0x0001);
	ck_assert_uint_eq(aclFloatToFloat16(ldexpf(1023.5f, -24)), 0x0400);
	ck_assert_uint_eq(aclFloatToFloat16(1.625f), 0x3e80);
}
END_TEST

START_TEST(cann_attributes)
{
	const aclCannAttr *list;
	size_t n;
	int32_t v = -1;

	ck_assert_int_eq(aclGetCannAttributeList(&list, &n), ACL_SUCCESS);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(list[0], ACL_CANN_ATTR_INF_NAN);
	ck_assert_int_eq(list[1], ACL_CANN_ATTR_BF16);
	ck_assert_int_eq(aclGetCannAttribute(ACL_CANN_ATTR_BF16, &v), ACL_SUCCESS);
	ck_assert_int_eq(v, 1);
	ck_assert_int_eq(aclGetCannAttribute(ACL_CANN_ATTR_JIT_COMPILE, &v), ACL_SUCCESS);
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(aclGetCannAttribute(ACL_CANN_ATTR_UNDEFINED, &v), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclGetCannAttribute(ACL_CANN_ATTR_BF16, NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclGetCannAttributeList(NULL, &n), ACL_ERROR_INVALID_PARAM);
}
END_TEST

static char g_home[64];

static void put_version(const char *pkg, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/share", g_home);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/share/info", g_home);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/share/info/%s", g_home, pkg);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/share/info/%s/version.info", g_home, pkg);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static int32_t num_of(const char *version)
{
	char text[200], pkg[] = "runtime";
	int32_t n = -1;

	snprintf(text, sizeof(text), "Version=%s\n", version);
	put_version("runtime", text);
	ck_assert_int_eq(aclsysGetVersionNum(pkg, &n), ACL_SUCCESS);
	return n;
}

START_TEST(versions)
{
	char v[ACL_PKG_VERSION_MAX_SIZE], rt[] = "runtime", none[] = "nosuchpkg",
					  dash[] = "opp-kernel", bad[] = "bad";
	int32_t n;

	strcpy(g_home, "/tmp/npuprof-verXXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(g_home));
	unsetenv("ASCEND_HOME_PATH");
	ck_assert_int_eq(aclsysGetVersionStr(rt, v), ACL_ERROR_INVALID_FILE);
	setenv("ASCEND_HOME_PATH", g_home, 1);
	put_version("runtime", "Name=runtime\nVersion= 8.0.0 \n");
	ck_assert_int_eq(aclsysGetVersionStr(rt, v), ACL_SUCCESS);
	ck_assert_str_eq(v, "8.0.0");
	ck_assert_int_eq(aclsysGetVersionStr(none, v), ACL_ERROR_INVALID_FILE);
	ck_assert_int_eq(aclsysGetVersionStr(NULL, v), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclsysGetVersionStr(rt, NULL), ACL_ERROR_INVALID_PARAM);
	/* '-' and '_' are interchangeable in the package name */
	put_version("opp_kernel", "Version=7.1.0\n");
	ck_assert_int_eq(aclsysGetVersionStr(dash, v), ACL_SUCCESS);
	ck_assert_str_eq(v, "7.1.0");
	/* CANN's weights: pre-releases sort before their release */
	ck_assert_int_eq(num_of("8.0.0"), 80000000);
	ck_assert_int_eq(num_of("9.0.1"), 90001000);
	ck_assert_int_eq(num_of("9.0.0-alpha.1"), 90000000 - 300 + 1);
	ck_assert_int_eq(num_of("9.0.0-beta.2"), 90000000 - 200 + 2);
	ck_assert_int_eq(num_of("9.0.0-rc.1"), 90000000 - 100 + 1);
	ck_assert_int_lt(num_of("9.0.0-rc.2"), num_of("9.0.0"));
	/* no Version= line, and one that is no version */
	put_version("bad", "Name=bad\n");
	ck_assert_int_eq(aclsysGetVersionStr(bad, v), ACL_ERROR_INVALID_FILE);
	put_version("bad", "Version=8.0.RC1\n");
	ck_assert_int_eq(aclsysGetVersionStr(bad, v), ACL_SUCCESS);
	ck_assert_int_eq(aclsysGetVersionNum(bad, &n), ACL_ERROR_INTERNAL_ERROR);
	unsetenv("ASCEND_HOME_PATH");
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", g_home);
		ck_assert_int_eq(system(cmd), 0);
	}
}
END_TEST

START_TEST(last_error)
{
	aclrtRunMode m;

	/* an earlier test of this process (CK_FORK=no, as the asan run) may
	 * have left one: Get returns and clears it */
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
	ck_assert_int_eq(aclrtGetRunMode(NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
	ck_assert_ptr_nonnull(aclGetRecentErrMsg());
	/* a later success does not clear it; Get does */
	ck_assert_int_eq(aclrtGetRunMode(&m), ACL_SUCCESS);
	ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
	/* the ACL API ranges record theirs too */
	ck_assert_int_eq(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_UNINITIALIZE);
}
END_TEST

START_TEST(stream_config)
{
	aclrtStreamConfigHandle *h = aclrtCreateStreamConfigHandle();
	uint32_t prio = 7, flags = ACL_STREAM_FAST_LAUNCH, big = 8;
	uint64_t wide = ACL_STREAM_FAST_SYNC;
	uint16_t small = 0;
	aclrtStream s;

	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &prio, sizeof(prio)),
			 ACL_SUCCESS);
	ck_assert_uint_eq(h->priority, 7);
	ck_assert_int_eq(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &big, sizeof(big)),
			 ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flags, sizeof(flags)),
			 ACL_SUCCESS);
	ck_assert_uint_eq(h->flag, ACL_STREAM_FAST_LAUNCH);
	ck_assert_int_eq(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &wide, sizeof(wide)),
			 ACL_SUCCESS);
	ck_assert_uint_eq(h->flag, ACL_STREAM_FAST_SYNC);
	ck_assert_int_eq(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &small, sizeof(small)),
			 ACL_ERROR_INVALID_PARAM);
	/* what npusim cannot honour is said so */
	flags = ACL_STREAM_CPU_SCHEDULE;
	ck_assert_int_eq(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flags, sizeof(flags)),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	/* persistent streams hold a model's tasks (rt_model.c) */
	flags = ACL_STREAM_PERSISTENT;
	ck_assert_int_eq(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flags, sizeof(flags)),
			 ACL_SUCCESS);
	ck_assert_int_eq(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_PERSISTENT),
			 ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclrtCreateStreamWithConfig(&s, 8, 0), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_DEVICE_USE_ONLY),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	flags = 0x1000;
	ck_assert_int_eq(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flags, sizeof(flags)),
			 ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_SIZE, &wide, sizeof(wide)),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	ck_assert_int_eq(aclrtSetStreamConfigOpt(NULL, ACL_RT_STREAM_FLAG, &wide, sizeof(wide)),
			 ACL_ERROR_INVALID_PARAM);
	h->workSize = 64; /* the fields are public */
	ck_assert_int_eq(aclrtCreateStreamV2(&s, h), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	h->workSize = 0;
	ck_assert_int_eq(aclrtCreateStreamV2(&s, h), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclrtDestroyStreamConfigHandle(h), ACL_SUCCESS);
	ck_assert_int_eq(aclrtDestroyStreamConfigHandle(NULL), ACL_ERROR_INVALID_PARAM);
}
END_TEST

START_TEST(event_flags)
{
	aclrtEvent e;

	/* IPC events are events: no runtime yet; IPC goes alone */
	ck_assert_int_eq(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC | ACL_EVENT_SYNC),
			 ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtCreateEventWithFlag(&e, ACL_EVENT_CAPTURE_STREAM_PROGRESS),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	/* EXTERNAL is an ordinary event, alone only */
	ck_assert_int_eq(aclrtCreateEventWithFlag(&e, ACL_EVENT_EXTERNAL | ACL_EVENT_SYNC),
			 ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtCreateEventWithFlag(&e, ACL_EVENT_EXTERNAL), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclrtCreateEventWithFlag(&e, 0x4), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtCreateEventWithFlag(NULL, ACL_EVENT_SYNC), ACL_ERROR_INVALID_PARAM);
	/* a plain one is an ordinary event: no runtime yet */
	ck_assert_int_eq(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC), ACL_ERROR_UNINITIALIZE);
}
END_TEST

/* IPC event handles: CANN's size; refused without a runtime, a handle
 * not made by aclrtIpcGetEventHandle refused once there is one */
START_TEST(ipc_event_handles)
{
	aclrtIpcEventHandle h;
	aclrtEvent e = NULL;

	ck_assert_uint_eq(sizeof(aclrtIpcEventHandle), 64);
	ck_assert_uint_eq(ACL_IPC_EVENT_HANDLE_SIZE, 64);
	memset(&h, 0, sizeof(h));
	ck_assert_int_eq(aclrtIpcGetEventHandle(&h, NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtIpcGetEventHandle(NULL, &h), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclrtIpcOpenEventHandle(h, NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtIpcOpenEventHandle(h, &e), ACL_ERROR_UNINITIALIZE);
	ck_assert_ptr_null(e);
}
END_TEST

START_TEST(no_devices)
{
	aclrtContext c;
	aclrtStream s;
	aclrtErrorInfo info;
	int32_t can, compat;
	uint32_t v;
	char buf[8];

	if (getenv("NPUPROF_HAS_NPUSIM"))
		return;
	ck_assert_int_eq(aclrtCreateContext(&c, 0), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclInit(NULL), ACL_SUCCESS);
	ck_assert_int_eq(aclrtCreateContext(&c, 0), ACL_ERROR_RT_INVALID_DEVICEID);
	ck_assert_int_eq(aclrtCreateContext(NULL, 0), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtGetCurrentContext(&c), ACL_ERROR_RT_CONTEXT_NULL);
	ck_assert_int_eq(aclrtSetCurrentContext(NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtDestroyContext(NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtCtxGetCurrentDefaultStream(&s), ACL_ERROR_RT_CONTEXT_NULL);
	ck_assert_int_eq(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v),
			 ACL_ERROR_RT_CONTEXT_NULL);
	ck_assert_int_eq(aclrtGetResInCurrentThread((aclrtDevResLimitType)5, &v),
			 ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtDeviceCanAccessPeer(&can, 0, 1), ACL_ERROR_RT_INVALID_DEVICEID);
	ck_assert_int_eq(aclrtDeviceEnablePeerAccess(1, 0), ACL_ERROR_RT_CONTEXT_NULL);
	ck_assert_int_eq(aclrtDeviceEnablePeerAccess(1, 1), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtGetErrorVerbose(0, &info), ACL_ERROR_RT_INVALID_DEVICEID);
	ck_assert_int_eq(aclrtCheckArchCompatibility("Ascend910B1", &compat),
			 ACL_ERROR_RT_INVALID_DEVICEID);
	ck_assert_int_eq(aclrtStreamGetId(NULL, &can), ACL_ERROR_RT_CONTEXT_NULL);
	ck_assert_int_eq(aclrtDestroyStreamForce(NULL), ACL_ERROR_INVALID_PARAM);
	/* memset of host memory needs no device */
	memset(buf, 1, sizeof(buf));
	ck_assert_int_eq(aclrtMemset(buf, sizeof(buf), 0x1ab, 4), ACL_SUCCESS);
	ck_assert_int_eq((unsigned char)buf[3], 0xab);
	ck_assert_int_eq(buf[4], 1);
	ck_assert_int_eq(aclrtMemset(buf, 4, 0, 5), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtMemsetAsync(buf, 8, 0, 8, NULL), ACL_ERROR_RT_CONTEXT_NULL);
	ck_assert_int_eq(aclFinalize(), ACL_SUCCESS);
	ck_assert_int_eq(aclrtMemset(buf, sizeof(buf), 0, 4), ACL_ERROR_UNINITIALIZE);
}
END_TEST

/* What aclrtRandomNumAsync refuses before it needs a device (CANN's
 * checks: the function's data types, isAddr 0 or 1, a parameter's size 1
 * to the element's, seed and count of 8 bytes, reserve NULL). */
static aclrtRandomNumTaskInfo random_task(aclrtRandomNumFuncType f, aclDataType type, void *out,
					  void *ctr)
{
	aclrtRandomNumTaskInfo t;
	float lo = 1, hi = 2;
	uint64_t seed = 7, num = 4;

	memset(&t, 0, sizeof(t));
	t.dataType = type;
	t.randomNumFuncParaInfo.funcType = f;
	t.randomResultAddr = out;
	t.randomCounterAddr = ctr;
	memcpy(t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min.valueOrAddr, &lo, 4);
	t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min.size = 4;
	memcpy(t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.valueOrAddr, &hi, 4);
	t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.size = 4;
	memcpy(t.randomSeed.valueOrAddr, &seed, 8);
	t.randomSeed.size = 8;
	memcpy(t.randomNum.valueOrAddr, &num, 8);
	t.randomNum.size = 8;
	return t;
}

START_TEST(random_checks)
{
	char out[64], ctr[16];
	aclrtRandomNumTaskInfo t;

	ck_assert_int_eq(aclrtRandomNumAsync(NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM);
	t = random_task(ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, ACL_FLOAT, out, ctr);
	ck_assert_int_eq(aclrtRandomNumAsync(&t, NULL, out), ACL_ERROR_INVALID_PARAM);
	t.randomCounterAddr = NULL;
	ck_assert_int_eq(aclrtRandomNumAsync(&t, NULL, NULL), ACL_ERROR_INVALID_PARAM);
	/* normal and dropout take floating types only; uniform no double */
	t = random_task(ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, ACL_INT32, out, ctr);
	ck_assert_int_eq(aclrtRandomNumAsync(&t, NULL, NULL), ACL_ERROR_INVALID_PARAM);
	t = random_task(ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK, ACL_UINT64, out, ctr);
	ck_assert_int_eq(aclrtRandomNumAsync(&t, NULL, NULL), ACL_ERROR_INVALID_PARAM);
	t = random_task(ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, ACL_DOUBLE, out, ctr);
	ck_assert_int_eq(aclrtRandomNumAsync(&t, NULL, NULL), ACL_ERROR_INVALID_PARAM);
	t = random_task((aclrtRandomNumFuncType)4, ACL_FLOAT, out, ctr);
	ck_assert_int_eq(aclrtRandomNumAsync(&t, NULL, NULL), ACL_ERROR_INVALID_PARAM);
	/* a parameter wider than the element, of no size, neither value nor address */
	t = random_task(ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, ACL_FLOAT16, out, ctr);
	ck_assert_int_eq(aclrtRandomNumAsync(&t, NULL, NULL), ACL_ERROR_INVALID_PARAM);
	t = random_task(ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, ACL_FLOAT, out, ctr);
	t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.size = 0;
	ck_assert_int_eq(aclrtRandomNumAsync(&t, NULL, NULL), ACL_ERROR_INVALID_PARAM);
	t = random_task(ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, ACL_FLOAT, out, ctr);
	t.randomSeed.isAddr = 2;
	ck_assert_int_eq(aclrtRandomNumAsync(&t, NULL, NULL), ACL_ERROR_INVALID_PARAM);
	t = random_task(ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, ACL_FLOAT, out, ctr);
	t.randomNum.isAddr = 1; /* the address NULL */
	memset(t.randomNum.valueOrAddr, 0, 8);
	ck_assert_int_eq(aclrtRandomNumAsync(&t, NULL, NULL), ACL_ERROR_INVALID_PARAM);
	/* a well-formed task needs a device */
	t = random_task(ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, ACL_FLOAT, out, ctr);
	ck_assert_int_eq(aclrtRandomNumAsync(&t, NULL, NULL), ACL_ERROR_UNINITIALIZE);
}
END_TEST

/* What reduce and overflow refuse before they need a device. */
START_TEST(reduce_overflow_checks)
{
	char a[16] = { 0 }, b[16] = { 0 };
	aclrtFloatOverflowMode m;
	uint32_t f;

	ck_assert_int_eq(aclrtReduceAsync(a, b, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL, ACL_FLOAT,
					  NULL, NULL),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	ck_assert_int_eq(aclrtReduceAsync(a, b, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_DOUBLE,
					  NULL, NULL),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	ck_assert_int_eq(aclrtReduceAsync(a, b, 6, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT,
					  NULL, NULL),
			 ACL_ERROR_INVALID_PARAM); /* not whole elements */
	ck_assert_int_eq(aclrtReduceAsync(a, b, 16, (aclrtReduceKind)9, ACL_FLOAT, NULL, NULL),
			 ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtReduceAsync(a, b, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT,
					  NULL, a),
			 ACL_ERROR_INVALID_PARAM); /* reserve must be NULL */
	ck_assert_int_eq(aclrtReduceAsync(a, b, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT,
					  NULL, NULL),
			 ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_UNDEF),
			 ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION),
			 ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclrtGetDeviceSatMode(&m), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclrtSetStreamOverflowSwitch(NULL, 2), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtGetStreamOverflowSwitch(NULL, &f), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclrtGetOverflowStatus(NULL, 8, NULL), ACL_ERROR_INVALID_PARAM);
}
END_TEST

static void *dummy_alloc(aclrtAllocator a, size_t n)
{
	return a ? (void *)n : NULL;
}

START_TEST(allocator_desc)
{
	aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
	int obj;

	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(aclrtAllocatorSetObjToDesc(d, &obj), ACL_SUCCESS);
	ck_assert_int_eq(aclrtAllocatorSetAllocFuncToDesc(d, dummy_alloc), ACL_SUCCESS);
	ck_assert_int_eq(aclrtAllocatorSetAllocFuncToDesc(d, NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtAllocatorSetObjToDesc(&obj, &obj), ACL_ERROR_INVALID_PARAM);
	/* incomplete (no free, no address callback): refused before any stream */
	ck_assert_int_eq(aclrtAllocatorRegister((aclrtStream)&obj, d), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtAllocatorUnregister(NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtAllocatorDestroyDesc(d), ACL_SUCCESS);
	ck_assert_int_eq(aclrtAllocatorDestroyDesc(NULL), ACL_ERROR_INVALID_PARAM);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("runtime_api");
	TCase *tc = tcase_create("host");

	tcase_add_test(tc, data_buffer);
	tcase_add_test(tc, half_roundtrip);
	tcase_add_test(tc, half_saturation_and_rounding);
	tcase_add_test(tc, cann_attributes);
	tcase_add_test(tc, versions);
	tcase_add_test(tc, last_error);
	tcase_add_test(tc, stream_config);
	tcase_add_test(tc, event_flags);
	tcase_add_test(tc, ipc_event_handles);
	tcase_add_test(tc, no_devices);
	tcase_add_test(tc, reduce_overflow_checks);
	tcase_add_test(tc, random_checks);
	tcase_add_test(tc, allocator_desc);
	suite_add_tcase(s, tc);
	return s;
}
