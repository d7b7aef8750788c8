/*
 * test_runtime_tdt.c - host tests of acl/acl_tdt.h (user/runtime/rt_tdt.c)
 * that need no device: data items keep their dims and point at the
 * caller's data, datasets keep their items in order, what is refused; a
 * channel without a capacity is CANN's "feature not supported", one with
 * a capacity needs the device. Sending and receiving run in the VM
 * (tests/sdk/rtapi/rt_tdt, suite 40_runtime).
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_tdt.h"

START_TEST(data_items)
{
	float v[6] = { 1, 2, 3, 4, 5, 6 };
	int64_t dims[2] = { 2, 3 }, got[2] = { 0, 0 };
	size_t num = 9, id = 9;
	acltdtDataItem *it = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 2, ACL_FLOAT, v,
						  sizeof(v));

	ck_assert_ptr_nonnull(it);
	dims[0] = 7; /* copied, not referenced */
	ck_assert_int_eq(acltdtGetTensorTypeFromItem(it), ACL_TENSOR_DATA_TENSOR);
	ck_assert_int_eq(acltdtGetDataTypeFromItem(it), ACL_FLOAT);
	ck_assert_ptr_eq(acltdtGetDataAddrFromItem(it), v);
	ck_assert_uint_eq(acltdtGetDataSizeFromItem(it), sizeof(v));
	ck_assert_uint_eq(acltdtGetDimNumFromItem(it), 2);
	ck_assert_int_eq(acltdtGetDimsFromItem(it, got, 1), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(acltdtGetDimsFromItem(it, got, 2), ACL_SUCCESS);
	ck_assert(got[0] == 2 && got[1] == 3);
	ck_assert_int_eq(acltdtGetSliceInfoFromItem(it, &num, &id), ACL_SUCCESS);
	ck_assert(num == 0 && id == 0);
	ck_assert_int_eq(acltdtDestroyDataItem(it), ACL_SUCCESS);
	/* an end-of-sequence marker has no data */
	it = acltdtCreateDataItem(ACL_TENSOR_DATA_END_OF_SEQUENCE, NULL, 0, ACL_DT_UNDEFINED, NULL,
				  0);
	ck_assert_ptr_nonnull(it);
	ck_assert_int_eq(acltdtGetDimsFromItem(it, NULL, 0), ACL_SUCCESS);
	ck_assert_int_eq(acltdtDestroyDataItem(it), ACL_SUCCESS);
	/* refused: dims without an array, data without an address, too many dims */
	ck_assert_ptr_null(acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, NULL, 2, ACL_FLOAT, v, 4));
	ck_assert_ptr_null(
		acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 1, ACL_FLOAT, NULL, 4));
	ck_assert_ptr_null(
		acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 129, ACL_FLOAT, v, 4));
	ck_assert_int_eq(acltdtGetTensorTypeFromItem(NULL), ACL_TENSOR_DATA_UNDEFINED);
	ck_assert_int_eq(acltdtGetDataTypeFromItem(NULL), ACL_DT_UNDEFINED);
	ck_assert_uint_eq(acltdtGetDataSizeFromItem(NULL), 0);
	ck_assert_int_eq(acltdtDestroyDataItem(NULL), ACL_ERROR_INVALID_PARAM);
}
END_TEST

START_TEST(datasets)
{
	int a = 1, b = 2;
	acltdtDataset *d = acltdtCreateDataset();
	acltdtDataItem *x = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, NULL, 0, ACL_INT32, &a, 4);
	acltdtDataItem *y = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, NULL, 0, ACL_INT32, &b, 4);

	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(acltdtGetDatasetSize(d), 0);
	ck_assert_str_eq(acltdtGetDatasetName(d), "");
	ck_assert_int_eq(acltdtAddDataItem(d, x), ACL_SUCCESS);
	ck_assert_int_eq(acltdtAddDataItem(d, y), ACL_SUCCESS);
	ck_assert_int_eq(acltdtAddDataItem(d, NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_uint_eq(acltdtGetDatasetSize(d), 2);
	ck_assert_ptr_eq(acltdtGetDataItem(d, 0), x);
	ck_assert_ptr_eq(acltdtGetDataItem(d, 1), y);
	ck_assert_ptr_null(acltdtGetDataItem(d, 2));
	/* the items added stay the caller's */
	ck_assert_int_eq(acltdtDestroyDataset(d), ACL_SUCCESS);
	ck_assert_int_eq(*(int *)acltdtGetDataAddrFromItem(y), 2);
	ck_assert_int_eq(acltdtDestroyDataItem(x), ACL_SUCCESS);
	ck_assert_int_eq(acltdtDestroyDataItem(y), ACL_SUCCESS);
	ck_assert_int_eq(acltdtDestroyDataset(NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_uint_eq(acltdtGetDatasetSize(NULL), 0);
}
END_TEST

START_TEST(channels_without_device)
{
	size_t n;

	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	ck_assert_ptr_null(acltdtCreateChannel(0, "c"));
	ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	/* capacity 2 to 8192, a name; then a device */
	ck_assert_ptr_null(acltdtCreateChannelWithCapacity(0, "c", 1));
	ck_assert_ptr_null(acltdtCreateChannelWithCapacity(0, "c", 8193));
	ck_assert_ptr_null(acltdtCreateChannelWithCapacity(0, NULL, 2));
	ck_assert_int_eq(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
	ck_assert_ptr_null(acltdtCreateChannelWithCapacity(0, "c", 2));
	ck_assert_int_eq(acltdtQueryChannelSize(NULL, &n), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(acltdtSendTensor(NULL, NULL, 0), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(acltdtReceiveTensor(NULL, NULL, 0), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(acltdtStopChannel(NULL), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(acltdtDestroyChannel(NULL), ACL_ERROR_INVALID_PARAM);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("runtime_tdt");
	TCase *tc = tcase_create("host");

	tcase_add_test(tc, data_items);
	tcase_add_test(tc, datasets);
	tcase_add_test(tc, channels_without_device);
	suite_add_tcase(s, tc);
	return s;
}
