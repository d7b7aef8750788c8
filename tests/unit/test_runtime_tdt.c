/*
 * test_runtime_tdt.c - host tests of acl/acl_tdt.h (user/runtime/rt_tdt.c)
 * that need no device: data items keep their dims and point at the
 * caller's data, datasets keep their items in order, what is refused; a
 * channel without a capacity is CANN's "feature not supported", one with
 * a capacity needs the device. Sending and receiving run in the VM
 * (tests/sdk/rtapi/rt_tdt, suite 40_runtime). Of acl/acl_tdt_queue.h:
 * queue attributes (their defaults, CANN's name limit), routes and their
 * lists, queries; queues themselves need a device (rt_tdt_queue).
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_tdt.h"
#include "acl/acl_tdt_queue.h"

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

START_TEST(queue_attrs_routes)
{
	acltdtQueueAttr *a = acltdtCreateQueueAttr();
	const char *name = "q", *got = NULL;
	char longname[129];
	const char *lp = longname;
	uint32_t depth = 0, qid;
	size_t n = 0;
	acltdtQueueRoute *r = acltdtCreateQueueRoute(3, 4), *out = acltdtCreateQueueRoute(0, 0);
	acltdtQueueRouteList *l = acltdtCreateQueueRouteList();
	acltdtQueueRouteQueryInfo *qi = acltdtCreateQueueRouteQueryInfo();
	int32_t st = 9;
	uint32_t src = 0;

	ck_assert_ptr_nonnull(a);
	/* defaults: no name, depth 8 */
	ck_assert_int_eq(acltdtGetQueueAttr(a, ACL_TDT_QUEUE_DEPTH_UINT32, 4, &n, &depth),
			 ACL_SUCCESS);
	ck_assert(n == 4 && depth == 8);
	ck_assert_int_eq(acltdtGetQueueAttr(a, ACL_TDT_QUEUE_NAME_PTR, sizeof(got), &n, &got),
			 ACL_SUCCESS);
	ck_assert_str_eq(got, "");
	ck_assert_int_eq(acltdtSetQueueAttr(a, ACL_TDT_QUEUE_NAME_PTR, sizeof(name), &name),
			 ACL_SUCCESS);
	ck_assert_int_eq(acltdtGetQueueAttr(a, ACL_TDT_QUEUE_NAME_PTR, sizeof(got), &n, &got),
			 ACL_SUCCESS);
	ck_assert_str_eq(got, "q");
	/* 128 bytes with the NUL at most; a param of another size; a short buffer */
	memset(longname, 'x', 128);
	longname[128] = 0;
	ck_assert_int_eq(acltdtSetQueueAttr(a, ACL_TDT_QUEUE_NAME_PTR, sizeof(lp), &lp),
			 ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(acltdtSetQueueAttr(a, ACL_TDT_QUEUE_DEPTH_UINT32, 8, &depth),
			 ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(acltdtGetQueueAttr(a, ACL_TDT_QUEUE_DEPTH_UINT32, 2, &n, &depth),
			 ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(acltdtCreateQueue(a, &qid), ACL_ERROR_UNINITIALIZE);
	ck_assert_int_eq(acltdtDestroyQueueAttr(a), ACL_SUCCESS);
	/* a route: its ends, unbound; a list keeps copies */
	ck_assert_int_eq(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_STATUS_INT32, 4, &n, &st),
			 ACL_SUCCESS);
	ck_assert_int_eq(st, ACL_TDT_QUEUE_ROUTE_UNBIND);
	ck_assert_int_eq(acltdtAddQueueRoute(l, r), ACL_SUCCESS);
	ck_assert_int_eq(acltdtDestroyQueueRoute(r), ACL_SUCCESS);
	ck_assert_uint_eq(acltdtGetQueueRouteNum(l), 1);
	ck_assert_int_eq(acltdtGetQueueRoute(l, 0, out), ACL_SUCCESS);
	ck_assert_int_eq(acltdtGetQueueRoute(l, 1, out), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(acltdtGetQueueRouteParam(out, ACL_TDT_QUEUE_ROUTE_SRC_UINT32, 4, &n, &src),
			 ACL_SUCCESS);
	ck_assert_uint_eq(src, 3);
	/* binding needs both queues */
	ck_assert_int_eq(acltdtBindQueueRoutes(l), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(acltdtGetQueueRoute(l, 0, out), ACL_SUCCESS);
	ck_assert_int_eq(acltdtGetQueueRouteParam(out, ACL_TDT_QUEUE_ROUTE_STATUS_INT32, 4, &n,
						  &st),
			 ACL_SUCCESS);
	ck_assert_int_eq(st, ACL_TDT_QUEUE_ROUTE_BIND_ABNORMAL);
	/* nothing bound: a query finds nothing; an unknown mode is refused */
	ck_assert_int_eq(acltdtQueryQueueRoutes(qi, l), ACL_SUCCESS);
	ck_assert_uint_eq(acltdtGetQueueRouteNum(l), 0);
	st = 7;
	ck_assert_int_eq(acltdtSetQueueRouteQueryInfo(qi, ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM, 4,
						      &st),
			 ACL_SUCCESS);
	ck_assert_int_eq(acltdtQueryQueueRoutes(qi, l), ACL_ERROR_INVALID_PARAM);
	ck_assert_int_eq(acltdtDestroyQueueRouteQueryInfo(qi), ACL_SUCCESS);
	ck_assert_int_eq(acltdtDestroyQueueRouteList(l), ACL_SUCCESS);
	ck_assert_int_eq(acltdtDestroyQueueRoute(out), ACL_SUCCESS);
	ck_assert_int_eq(acltdtDestroyQueue(0), ACL_ERROR_INVALID_PARAM);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("runtime_tdt");
	TCase *tc = tcase_create("host");

	tcase_add_test(tc, data_items);
	tcase_add_test(tc, datasets);
	tcase_add_test(tc, channels_without_device);
	tcase_add_test(tc, queue_attrs_routes);
	suite_add_tcase(s, tc);
	return s;
}
