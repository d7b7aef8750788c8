/*
 * test_runtime.c - host tests of npuprof's ACL runtime that need no device:
 * uninitialised use and device-less errors, the runtime record layouts of
 * hostrec.h (sizes, alignment), and the db names of dtypes and formats.
 * The device behaviour is tested in the VM (tests/vm/rt_test.c).
 */
#include <check.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "hccl/hccl.h"
#include "npuprof/hostfmt.h"

START_TEST(uninitialised)
{
	aclrtStream s;
	aclrtEvent e;
	uint32_t n;
	void *p;

	ck_assert_int_eq(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclrtCreateStream(&s), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclrtCreateEvent(&e), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclrtGetDeviceCount(&n), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclrtMalloc(&p, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclrtSynchronizeStream(NULL), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(aclFinalize(), ACL_ERROR_UNINITIALIZE);
}
END_TEST

START_TEST(no_devices)
{
	uint32_t n = 99;
	int32_t d;
	aclrtStream s;
	int32_t devs[1] = { 0 };
	HcclComm c;

	if (getenv("NPUPROF_HAS_NPUSIM"))
		return;
	ck_assert_int_eq(aclInit(NULL), ACL_SUCCESS);
	ck_assert_int_eq(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
	ck_assert_int_eq(aclrtGetDeviceCount(&n), ACL_SUCCESS);
	if (n == 0) {
		ck_assert_int_eq(aclrtSetDevice(0), ACL_ERROR_RT_INVALID_DEVICEID);
		ck_assert_int_eq(HcclCommInitAll(1, devs, &c), HCCL_E_PARA);
	}
	ck_assert_int_eq(aclrtGetDevice(&d), ACL_ERROR_RT_CONTEXT_NULL);
	ck_assert_int_eq(aclrtCreateStream(&s), ACL_ERROR_RT_CONTEXT_NULL);
	ck_assert_int_eq(aclrtGetDevice(NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclnpuLaunchOp(NULL, NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclFinalize(), ACL_SUCCESS);
	ck_assert_int_eq(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
}
END_TEST

START_TEST(host_memory)
{
	char src[32] = "npuprof", dst[32] = { 0 };
	void *h;

	ck_assert_int_eq(aclInit(NULL), ACL_SUCCESS);
	ck_assert_int_eq(aclrtMallocHost(&h, 64), ACL_SUCCESS);
	ck_assert_int_eq(aclrtMemcpy(h, 64, src, 32, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
	ck_assert_int_eq(aclrtMemcpy(dst, 32, h, 32, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
	ck_assert_str_eq(dst, "npuprof");
	ck_assert_int_eq(aclrtMemcpy(dst, 8, h, 32, ACL_MEMCPY_HOST_TO_HOST),
			 ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(aclrtFreeHost(h), ACL_SUCCESS);
	ck_assert_int_eq(aclFinalize(), ACL_SUCCESS);
}
END_TEST

/* A host buffer the runtime did not allocate is never read in front of: one
 * at the start of a page behind an inaccessible page (64-byte aligned, as
 * the runtime's own pointers are) copies without a fault. */
START_TEST(host_buffer_after_guard_page)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0),
	     dst[8] = { 0 };

	ck_assert_ptr_ne(m, MAP_FAILED);
	ck_assert_int_eq(mprotect(m, (size_t)pg, PROT_NONE), 0);
	memcpy(m + pg, "guard", 6);
	ck_assert_int_eq(aclInit(NULL), ACL_SUCCESS);
	ck_assert_int_eq(aclrtMemcpy(dst, sizeof(dst), m + pg, 6, ACL_MEMCPY_HOST_TO_HOST),
			 ACL_SUCCESS);
	ck_assert_str_eq(dst, "guard");
	ck_assert_int_eq(aclrtMemcpy(m + pg, 6, dst, 6, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
	ck_assert_int_eq(aclFinalize(), ACL_SUCCESS);
	munmap(m, (size_t)pg * 2);
}
END_TEST

/* The runtime records are fixed-size, 8-aligned and hole-free. */
START_TEST(record_layouts)
{
	ck_assert_uint_eq(NPUPROF_HOSTFMT_API, 8);
	ck_assert_uint_eq(NPUPROF_HOSTFMT_HCCL_TASK, 12);
	ck_assert_uint_eq(sizeof(struct npuprof_hostfmt_api), 64);
	ck_assert_uint_eq(sizeof(struct npuprof_hostfmt_task_track), 88);
	ck_assert_uint_eq(sizeof(struct npuprof_hostfmt_compute_op), 168);
	ck_assert_uint_eq(sizeof(struct npuprof_hostfmt_hccl_op), 112);
	ck_assert_uint_eq(sizeof(struct npuprof_hostfmt_hccl_task), 136);
	ck_assert_uint_eq(offsetof(struct npuprof_hostfmt_task_track, bytes), 64);
	ck_assert_uint_eq(offsetof(struct npuprof_hostfmt_hccl_task, size), 104);
	ck_assert_uint_eq(sizeof(struct npuprof_hostfmt_api) % NPUPROF_HOSTFMT_ALIGN, 0);
	ck_assert_uint_eq(sizeof(struct npuprof_hostfmt_hccl_op) % NPUPROF_HOSTFMT_ALIGN, 0);
}
END_TEST

START_TEST(names)
{
	ck_assert_str_eq(aclnpuDataTypeName(ACL_FLOAT16), "FLOAT16");
	ck_assert_str_eq(aclnpuDataTypeName(ACL_FLOAT), "FLOAT");
	ck_assert_str_eq(aclnpuDataTypeName(ACL_BOOL), "BOOL");
	ck_assert_str_eq(aclnpuFormatName(ACL_FORMAT_NC1HWC0), "NC1HWC0");
	ck_assert_str_eq(aclnpuFormatName(ACL_FORMAT_ND), "ND");
	ck_assert_str_eq(aclnpuFormatName((aclFormat)1234), "UNDEFINED");
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("runtime");
	TCase *tc = tcase_create("host");

	tcase_add_test(tc, uninitialised);
	tcase_add_test(tc, no_devices);
	tcase_add_test(tc, host_memory);
	tcase_add_test(tc, host_buffer_after_guard_page);
	tcase_add_test(tc, record_layouts);
	tcase_add_test(tc, names);
	suite_add_tcase(s, tc);
	return s;
}
