/*
 * test_profapi_abi.c - include/profiling/ and libprofapi.so against CANN's
 * reporter ABI: every struct size and field offset, constant and exported
 * function, each with the line of hicann/runtime pkg_inc/profiling/ (or of
 * the file named) that states it. The expected numbers are the facts, written
 * out; the code under test is our header and the built library.
 */
#include <check.h>
#include <dlfcn.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "profiling/prof_api.h"

#define OFF(T, f, v) ck_assert_uint_eq(offsetof(struct T, f), (v))
#define SZ(T, v) ck_assert_uint_eq(sizeof(struct T), (v))

START_TEST(test_report_heads)
{
	/* aprof_pub.h 529-542 */
	SZ(MsprofApi, 40);
	OFF(MsprofApi, magicNumber, 0);
	OFF(MsprofApi, level, 2);
	OFF(MsprofApi, type, 4);
	OFF(MsprofApi, threadId, 8);
	OFF(MsprofApi, reserve, 12);
	OFF(MsprofApi, beginTime, 16);
	OFF(MsprofApi, endTime, 24);
	OFF(MsprofApi, itemId, 32);
	/* aprof_pub.h 544-561 */
	SZ(MsprofEvent, 40);
	OFF(MsprofEvent, level, 2);
	OFF(MsprofEvent, type, 4);
	OFF(MsprofEvent, threadId, 8);
	OFF(MsprofEvent, requestId, 12);
	OFF(MsprofEvent, timeStamp, 16);
	OFF(MsprofEvent, eventFlag, 24);
	OFF(MsprofEvent, itemId, 32);
	/* aprof_pub.h 563-589 */
	SZ(MsprofCompactInfo, 64);
	OFF(MsprofCompactInfo, level, 2);
	OFF(MsprofCompactInfo, type, 4);
	OFF(MsprofCompactInfo, threadId, 8);
	OFF(MsprofCompactInfo, dataLen, 12);
	OFF(MsprofCompactInfo, timeStamp, 16);
	OFF(MsprofCompactInfo, data, 24);
	OFF(MsprofCompactInfo, data.runtimeTrack, 24);
	OFF(MsprofCompactInfo, data.nodeBasicInfo, 24);
	OFF(MsprofCompactInfo, data.hcclopInfo, 24);
	OFF(MsprofCompactInfo, data.memcpyInfo, 24);
	ck_assert_uint_eq(sizeof(((struct MsprofCompactInfo *)0)->data), 40);
	/* aprof_pub.h 591-604 */
	SZ(MsprofAdditionalInfo, 256);
	OFF(MsprofAdditionalInfo, level, 2);
	OFF(MsprofAdditionalInfo, type, 4);
	OFF(MsprofAdditionalInfo, threadId, 8);
	OFF(MsprofAdditionalInfo, dataLen, 12);
	OFF(MsprofAdditionalInfo, timeStamp, 16);
	OFF(MsprofAdditionalInfo, data, 24);
	/* aprof_pub.h 606-618 */
	SZ(MsprofShapeInfo, 24);
	OFF(MsprofShapeInfo, data, 24);
}
END_TEST

START_TEST(test_command_handle)
{
	/* aprof_pub.h 255-261 */
	SZ(MsprofCommandHandleParams, 5132);
	OFF(MsprofCommandHandleParams, storageLimit, 4);
	OFF(MsprofCommandHandleParams, profDataLen, 8);
	OFF(MsprofCommandHandleParams, path, 12);
	OFF(MsprofCommandHandleParams, profData, 1036);
	/* aprof_pub.h 266-275 */
	SZ(MsprofCommandHandle, 5424);
	OFF(MsprofCommandHandle, profSwitch, 0);
	OFF(MsprofCommandHandle, profSwitchHi, 8);
	OFF(MsprofCommandHandle, devNums, 16);
	OFF(MsprofCommandHandle, devIdList, 20);
	OFF(MsprofCommandHandle, modelId, 276);
	OFF(MsprofCommandHandle, type, 280);
	OFF(MsprofCommandHandle, cacheFlag, 284);
	OFF(MsprofCommandHandle, params, 288);
	/* prof_common.h 100-113 */
	SZ(MsprofConfig, 5432);
	OFF(MsprofConfig, devIdList, 20);
	OFF(MsprofConfig, modelId, 280);
	OFF(MsprofConfig, fd, 304);
	OFF(MsprofConfig, dumpPath, 312);
	OFF(MsprofConfig, sampleConfig, 1336);
}
END_TEST

START_TEST(test_compact_payloads)
{
	/* aprof_pub.h 277, 294-300: pack(1) */
	SZ(MsprofNodeBasicInfo, 28);
	OFF(MsprofNodeBasicInfo, taskType, 8);
	OFF(MsprofNodeBasicInfo, opType, 12);
	OFF(MsprofNodeBasicInfo, blockDim, 20);
	OFF(MsprofNodeBasicInfo, opFlag, 24);
	/* aprof_pub.h 302-310 */
	SZ(MsprofHCCLOPInfo, 26);
	OFF(MsprofHCCLOPInfo, dataType, 1);
	OFF(MsprofHCCLOPInfo, algType, 2);
	OFF(MsprofHCCLOPInfo, count, 10);
	OFF(MsprofHCCLOPInfo, groupName, 18);
	/* aprof_pub.h 340-347, 369-380 */
	SZ(MsprofKernelInfo, 16);
	SZ(MsprofRuntimeTrack, 40);
	OFF(MsprofRuntimeTrack, streamId, 2);
	OFF(MsprofRuntimeTrack, taskId, 4);
	OFF(MsprofRuntimeTrack, taskType, 8);
	OFF(MsprofRuntimeTrack, kernelName, 16);
	OFF(MsprofRuntimeTrack, extInfo, 24);
	/* aprof_pub.h 382-394 */
	SZ(MsprofRuntimeTrackV2, 40);
	OFF(MsprofRuntimeTrackV2, streamId, 4);
	OFF(MsprofRuntimeTrackV2, taskId, 8);
	OFF(MsprofRuntimeTrackV2, taskType, 12);
	OFF(MsprofRuntimeTrackV2, kernelName, 16);
	OFF(MsprofRuntimeTrackV2, extInfo, 24);
	/* aprof_pub.h 396-411 */
	SZ(MsprofCaptureStreamInfo, 10);
	OFF(MsprofCaptureStreamInfo, modelStreamId, 2);
	OFF(MsprofCaptureStreamInfo, originalStreamId, 4);
	OFF(MsprofCaptureStreamInfo, modelId, 6);
	OFF(MsprofCaptureStreamInfo, deviceId, 8);
	SZ(MsprofCaptureStreamInfoV2, 16);
	OFF(MsprofCaptureStreamInfoV2, streamId, 4);
	OFF(MsprofCaptureStreamInfoV2, modelId, 12);
	/* aprof_pub.h 413-419 (natural alignment: 16 bytes) */
	SZ(MsprofStreamSqInfo, 16);
	OFF(MsprofStreamSqInfo, streamId, 4);
	OFF(MsprofStreamSqInfo, rtsqId, 8);
	/* aprof_pub.h 421-451 */
	SZ(MsprofMemcpyInfo, 16);
	OFF(MsprofMemcpyInfo, copyKind, 8);
	OFF(MsprofMemcpyInfo, deviceId, 10);
	OFF(MsprofMemcpyInfo, streamId, 12);
	SZ(MsprofMemsetInfo, 24);
	SZ(MsprofMemMngInfo, 32);
}
END_TEST

START_TEST(test_additional_payloads)
{
	/* aprof_pub.h 312-329: pack(1) */
	SZ(MsrofTensorData, 44);
	OFF(MsrofTensorData, shape, 12);
	SZ(MsprofTensorInfo, 232);
	OFF(MsprofTensorInfo, tensorNum, 8);
	OFF(MsprofTensorInfo, tensorData, 12);
	SZ(MsprofContextIdInfo, 232);
	OFF(MsprofContextIdInfo, ctxIdNum, 8);
	OFF(MsprofContextIdInfo, ctxIds, 12);
	/* prof_common.h 506, 571-601: pack(4) */
	SZ(MsprofHcclInfo, 120);
	OFF(MsprofHcclInfo, cclTag, 8);
	OFF(MsprofHcclInfo, groupName, 16);
	OFF(MsprofHcclInfo, localRank, 24);
	OFF(MsprofHcclInfo, remoteRank, 28);
	OFF(MsprofHcclInfo, rankSize, 32);
	OFF(MsprofHcclInfo, workFlowMode, 36);
	OFF(MsprofHcclInfo, planeID, 40);
	OFF(MsprofHcclInfo, ctxId, 44);
	OFF(MsprofHcclInfo, notifyID, 48);
	OFF(MsprofHcclInfo, stage, 56);
	OFF(MsprofHcclInfo, role, 60);
	OFF(MsprofHcclInfo, durationEstimated, 64);
	OFF(MsprofHcclInfo, srcAddr, 72);
	OFF(MsprofHcclInfo, dstAddr, 80);
	OFF(MsprofHcclInfo, dataSize, 88);
	OFF(MsprofHcclInfo, opType, 96);
	OFF(MsprofHcclInfo, dataType, 100);
	OFF(MsprofHcclInfo, linkType, 104);
	OFF(MsprofHcclInfo, transportType, 108);
	OFF(MsprofHcclInfo, rdmaType, 112);
	OFF(MsprofHcclInfo, reserve2, 116);
	/* prof_common.h 603-628, 649-661, 748-757 */
	SZ(MsprofAicpuMC2HcclInfo, 128);
	SZ(MsprofAicpuHCCLOPInfo, 36);
	SZ(MsprofTxInfo, 232);
	SZ(MsprofStampInfo, 224);
	/* prof_common.h 800-805, 861-865 */
	SZ(MsprofHashData, 32);
	SZ(ProfStepInfoCmd, 24);
}
END_TEST

START_TEST(test_constants)
{
	/* aprof_pub.h 27-36 */
	ck_assert_uint_eq(MSPROF_REPORT_DATA_MAGIC_NUM, 0x5A5A);
	ck_assert_uint_eq(MSPROF_EVENT_FLAG, UINT64_MAX);
	ck_assert_uint_eq(MSPROF_COMPACT_INFO_DATA_LENGTH, 40);
	ck_assert_uint_eq(MSPROF_ADDTIONAL_INFO_DATA_LENGTH, 232); /* 591 */
	ck_assert_uint_eq(MSPROF_MAX_DEV_NUM, 64);
	ck_assert_uint_eq(MSPROF_CTX_ID_MAX_NUM, 55);
	/* aprof_pub.h 38-49 */
	ck_assert_uint_eq(MSPROF_REPORT_PYTORCH_LEVEL, 30000);
	ck_assert_uint_eq(MSPROF_REPORT_PTA_LEVEL, 25000);
	ck_assert_uint_eq(MSPROF_REPORT_TX_LEVEL, 20500);
	ck_assert_uint_eq(MSPROF_REPORT_ACL_LEVEL, 20000);
	ck_assert_uint_eq(MSPROF_REPORT_MODEL_LEVEL, 15000);
	ck_assert_uint_eq(MSPROF_REPORT_NODE_LEVEL, 10000);
	ck_assert_uint_eq(MSPROF_REPORT_AICPU_LEVEL, 6000);
	ck_assert_uint_eq(MSPROF_REPORT_HCCL_NODE_LEVEL, 5500);
	ck_assert_uint_eq(MSPROF_REPORT_RUNTIME_LEVEL, 5000);
	/* aprof_pub.h 55-65 */
	ck_assert_uint_eq(MSPROF_REPORT_ACL_OP_BASE_TYPE, 0x010000);
	ck_assert_uint_eq(MSPROF_REPORT_ACL_RUNTIME_BASE_TYPE, 0x030000);
	ck_assert_uint_eq(MSPROF_REPORT_ACL_NN_BASE_TYPE, 0x050000);
	ck_assert_uint_eq(MSPROF_REPORT_ACL_HOST_HCCL_BASE_TYPE, 0x070000);
	ck_assert_uint_eq(MSPROF_REPORT_ACL_GRAPH_BASE_TYPE, 0x0A0000);
	/* aprof_pub.h 81-96 */
	ck_assert_uint_eq(MSPROF_REPORT_NODE_BASIC_INFO_TYPE, 0);
	ck_assert_uint_eq(MSPROF_REPORT_NODE_TENSOR_INFO_TYPE, 1);
	ck_assert_uint_eq(MSPROF_REPORT_NODE_CONTEXT_ID_INFO_TYPE, 4);
	ck_assert_uint_eq(MSPROF_REPORT_NODE_LAUNCH_TYPE, 5);
	ck_assert_uint_eq(MSPROF_REPORT_NODE_ATTR_INFO_TYPE, 9);
	ck_assert_uint_eq(MSPROF_REPORT_NODE_HCCL_OP_INFO_TYPE, 10);
	ck_assert_uint_eq(MSPROF_REPORT_NODE_GE_API_BASE_TYPE, 0x010000);
	ck_assert_uint_eq(MSPROF_REPORT_NODE_HCCL_BASE_TYPE, 0x020000);
	/* aprof_pub.h 113-115 */
	ck_assert_uint_eq(MSPROF_REPORT_HCCL_MASTER_TYPE, 0x010001);
	ck_assert_uint_eq(MSPROF_REPORT_HCCL_SLAVE_TYPE, 0x010002);
	/* aprof_pub.h 132-175 */
	ck_assert_uint_eq(PROF_ACL_API_MASK, 0x1);
	ck_assert_uint_eq(PROF_TASK_TIME_L1_MASK, 0x2);
	ck_assert_uint_eq(PROF_RUNTIME_API_MASK, 0x100);
	ck_assert_uint_eq(PROF_TASK_TIME_MASK, 0x800);
	ck_assert_uint_eq(PROF_RUNTIME_TRACE_MASK, 0x4000000);
	ck_assert_uint_eq(PROF_AICORE_SHAPE_MASK, 0x800000000ull);
	ck_assert_uint_eq(PROF_MODEL_LOAD_MASK, 0x8000000000000000ull);
	/* aprof_pub.h 183-191 */
	ck_assert_int_eq(MSPROF_ERROR_NONE, 0);
	ck_assert_int_eq(MSPROF_ERROR_CONFIG_INVALID, 3);
	ck_assert_int_eq(MSPROF_ERROR, 5);
	ck_assert_int_eq(MSPROF_ERROR_UNINITIALIZE, 6);
	/* aprof_pub.h 197-206, 212-220, 245, 251 */
	ck_assert_int_eq(MSPROF_CTRL_INIT_ACL_ENV, 0);
	ck_assert_int_eq(MSPROF_CTRL_INIT_ACL_JSON, 1);
	ck_assert_int_eq(MSPROF_CTRL_INIT_DYNA, 0xFF);
	ck_assert_int_eq(PROF_COMMANDHANDLE_TYPE_INIT, 0);
	ck_assert_int_eq(PROF_COMMANDHANDLE_TYPE_START, 1);
	ck_assert_int_eq(PROF_COMMANDHANDLE_TYPE_STOP, 2);
	ck_assert_int_eq(PROF_COMMANDHANDLE_TYPE_FINALIZE, 3);
	ck_assert_int_eq(PROF_COMMANDHANDLE_TYPE_MAX, 6);
	ck_assert_int_eq(PROF_CTRL_SWITCH, 1);
	ck_assert_int_eq(MSPROF_BATCH_ADDITIONAL_INFO, 0);
	/* prof_common.h 26-27, 33-51, 839-845 */
	ck_assert_uint_eq(MSPROF_DATA_HEAD_MAGIC_NUM, 0x5A5A);
	ck_assert_uint_eq(MSPROF_TASK_TIME_L0, 0x800);
	ck_assert_int_eq(PROFILE_REPORT_API_C_CALLBACK, 9);
	ck_assert_int_eq(PROFILE_DEVICE_STATE_C_CALLBACK, 16);
	ck_assert_int_eq(MSPROF_REPORTER_INIT, 1);
	ck_assert_int_eq(MSPROF_REPORTER_UNINIT, 2);
	ck_assert_int_eq(MSPROF_REPORTER_HASH, 4);
	ck_assert_int_eq(MSPROF_HCCL_INVALID_UINT, 0xFFFFFFFF);
}
END_TEST

/* libprofapi.so next to this binary's build: <build>/tests/unit/x -> <build>/lib */
static void *open_lib(const char *name)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;
	void *h;

	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	for (int i = 0; i < 3; i++) {
		slash = strrchr(exe, '/');
		ck_assert_ptr_nonnull(slash);
		*slash = '\0';
	}
	snprintf(path, sizeof(path), "%s/lib/%s", exe, name);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(h, "dlopen %s: %s", path, dlerror());
	return h;
}

/* aprof_pub.h 641-817 (MSVP_PROF_API), prof_api.h 45-120, and the ProfAcl*
 * entry points of src/dfx/msprof/collector/dvvp/profapi/inc/prof_inner_api.h
 * 42-50, 67-139 that libmsprofiler.so calls */
static const char *const g_exports[] = {
	"MsprofInit",
	"MsprofFinalize",
	"MsprofRegisterCallback",
	"MsprofReportApi",
	"MsprofReportEvent",
	"MsprofReportCompactInfo",
	"MsprofReportAdditionalInfo",
	"MsprofReportBatchAdditionalInfo",
	"MsprofGetBatchReportMaxSize",
	"MsprofRegTypeInfo",
	"MsprofRegDataFormat",
	"MsprofGetHashId",
	"MsprofStr2Id",
	"MsprofId2Str",
	"MsprofGetPath",
	"MsprofSetDeviceIdByGeModelIdx",
	"MsprofUnsetDeviceIdByGeModelIdx",
	"MsprofSysCycleTime",
	"MsprofCheckOpSwitch",
	"profSetProfCommand",
	"profSetStepInfo",
	"MsprofRegisterProfileCallback",
	"MsprofSetConfig",
	"MsprofReportData",
	"MsprofNotifySetDevice",
	"MsprofStart",
	"MsprofStop",
	"MsprofHostFreqIsEnable",
	"ProfStr2Id",
	"ProfAclInit",
	"ProfAclStart",
	"ProfAclStop",
	"ProfAclFinalize",
	"ProfAclSetConfig",
	"ProfAclCreateStamp",
	"ProfAclDestroyStamp",
	"ProfAclPush",
	"ProfAclPop",
	"ProfAclRangeStart",
	"ProfAclRangeStop",
	"ProfAclSetStampTraceMessage",
	"ProfAclMark",
	"ProfAclMarkEx",
	"ProfAclSetStampCategory",
	"ProfAclSetStampPayload",
	"ProfAclRangePushEx",
};

START_TEST(test_exports)
{
	void *h = open_lib("libprofapi.so");
	void *m = open_lib("libmsprofiler.so");

	for (size_t i = 0; i < sizeof(g_exports) / sizeof(g_exports[0]); i++) {
		void *f = dlsym(h, g_exports[i]);
		Dl_info di;

		ck_assert_msg(f, "libprofapi.so does not export %s", g_exports[i]);
		ck_assert(dladdr(f, &di));
		ck_assert_msg(strstr(di.dli_fname, "libprofapi.so"), "%s resolves to %s",
			      g_exports[i], di.dli_fname);
	}
	/* libmsprofiler.so (a filter) hands out libprofapi.so's definitions */
	ck_assert_ptr_eq(dlsym(m, "aclprofMark"), dlsym(h, "aclprofMark"));
	ck_assert_ptr_eq(dlsym(m, "mstxMarkA"), dlsym(h, "mstxMarkA"));
	ck_assert_ptr_eq(dlsym(m, "aclprofStart"), dlsym(h, "aclprofStart"));
	/* the hash (prof_impl_inner_api.cpp 80-87): empty and NULL -> UINT64_MAX */
	{
		uint64_t (*gh)(const char *,
			       size_t) = (uint64_t(*)(const char *,
						      size_t))dlsym(h, "MsprofGetHashId");

		ck_assert_uint_eq(gh("", 0), UINT64_MAX);
		ck_assert_uint_eq(gh(NULL, 3), UINT64_MAX);
		/* DoubleHash of "a": (97 << 32) | 97 */
		ck_assert_uint_eq(gh("a", 1), (97ull << 32) | 97u);
	}
	dlclose(m);
	dlclose(h);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("profapi_abi");
	TCase *tc = tcase_create("abi");

	tcase_add_test(tc, test_report_heads);
	tcase_add_test(tc, test_command_handle);
	tcase_add_test(tc, test_compact_payloads);
	tcase_add_test(tc, test_additional_payloads);
	tcase_add_test(tc, test_constants);
	tcase_add_test(tc, test_exports);
	suite_add_tcase(s, tc);
	return s;
}
