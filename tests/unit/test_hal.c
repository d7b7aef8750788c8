/*
 * test_hal.c — libascend_hal.so (user/hal) on the host, without a device:
 * the structs and enums have CANN's layout and values (hicann/runtime
 * pkg_inc/driver/hal_pkg/trs_pkg.h, ascend_hal_define.h, ascend_hal_base.h,
 * ascend_hal_error.h), and bad arguments get CANN's error codes before any
 * device is touched. The calls on a device are tests/vm/hal_test.c's.
 */
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include "driver/ascend_hal.h"
#include "driver/npusim_hal.h"

START_TEST(test_layout)
{
	/* trs_pkg.h: halTaskSendInfo, halReportRecvInfo, halSqCqInputInfo */
	ck_assert_uint_eq(offsetof(struct halTaskSendInfo, timeout), 12);
	ck_assert_uint_eq(offsetof(struct halTaskSendInfo, sqe_addr), 16);
	ck_assert_uint_eq(offsetof(struct halTaskSendInfo, sqe_num), 24);
	ck_assert_uint_eq(offsetof(struct halTaskSendInfo, pos), 28);
	ck_assert_uint_eq(sizeof(struct halTaskSendInfo), 64);
	ck_assert_uint_eq(offsetof(struct halReportRecvInfo, cqe_addr), 16);
	ck_assert_uint_eq(offsetof(struct halReportRecvInfo, report_cqe_num), 28);
	ck_assert_uint_eq(offsetof(struct halReportRecvInfo, task_id), 36);
	ck_assert_uint_eq(sizeof(struct halReportRecvInfo), 72);
	ck_assert_uint_eq(offsetof(struct halSqCqInputInfo, info), 40);
	ck_assert_uint_eq(offsetof(struct halSqCqInputInfo, ext_info), 64);
	ck_assert_uint_eq(sizeof(struct halSqCqInputInfo), 96);
	/* ascend_hal_define.h: halSqCqOutputInfo */
	ck_assert_uint_eq(offsetof(struct halSqCqOutputInfo, queueVAddr), 8);
	ck_assert_uint_eq(sizeof(struct halSqCqOutputInfo), 40);
	ck_assert_uint_eq(sizeof(struct halSqCqQueryInfo), 52);
	ck_assert_uint_eq(sizeof(struct halResourceIdInputInfo), 44);
	/* ascend_hal_define.h: halResourceConfigInfo */
	ck_assert_uint_eq(offsetof(struct halResourceConfigInfo, value), 4);
	ck_assert_uint_eq(sizeof(struct halResourceConfigInfo), 32);
	ck_assert_uint_eq(offsetof(struct halSqCqFreeInfo, flag), 16);
	/* ascend_hal_base.h: prof_start_para, halChipInfo */
	ck_assert_uint_eq(offsetof(struct prof_start_para, user_data), 16);
	ck_assert_uint_eq(sizeof(struct prof_start_para), 32);
	ck_assert_uint_eq(sizeof(halChipInfo), 96);
}
END_TEST

START_TEST(test_values)
{
	ck_assert_int_eq(DRV_LOGIC_TYPE, 2);
	ck_assert_int_eq(DRV_STREAM_ID, 0);
	ck_assert_int_eq(DRV_STREAM_BIND_LOGIC_CQ, 0);
	ck_assert_int_eq(DRV_STREAM_UNBIND_LOGIC_CQ, 1);
	ck_assert_int_eq(DRV_RES_ID_CONFIG_MAX, 5);
	ck_assert_int_eq(TSDRV_FLAG_THREAD_BIND_IRQ, 4);
	ck_assert_int_eq(DRV_INVALID_TYPE, 6);
	ck_assert_int_eq(DRV_EVENT_ID, 1);
	ck_assert_int_eq(DRV_NOTIFY_ID, 3);
	ck_assert_int_eq(DRV_INVALID_ID, 8);
	ck_assert_int_eq(DRV_SQCQ_PROP_SQ_HEAD, 1);
	ck_assert_int_eq(DRV_SQCQ_PROP_SQ_DEPTH, 7);
	ck_assert_int_eq(DRV_SQCQ_PROP_MAX, 17);
	ck_assert_int_eq(DRV_ERROR_INVALID_DEVICE, 2);
	ck_assert_int_eq(DRV_ERROR_INVALID_VALUE, 3);
	ck_assert_int_eq(DRV_ERROR_UNINIT, 9);
	ck_assert_int_eq(DRV_ERROR_WAIT_TIMEOUT, 16);
	ck_assert_int_eq(DRV_ERROR_NOT_SUPPORT, 0xfffe);
	ck_assert_int_eq(MODULE_TYPE_VECTOR_CORE, 7);
	ck_assert_int_eq(INFO_TYPE_CORE_NUM, 3);
	ck_assert_int_eq(INFO_TYPE_DEV_OSC_FREQUE, 25);
	ck_assert_int_eq(CHANNEL_STARS_SOC_LOG_BUFFER, 50);
	ck_assert_int_eq(PROF_STOPPED_ALREADY, -4);
}
END_TEST

/* device 0 of this host, if the test runs where npusim is loaded */
static int have_dev0(void)
{
	return access("/dev/npusim0", F_OK) == 0;
}

START_TEST(test_devices)
{
	halDevOpenIn in = { { 0 } };
	halDevOpenOut out;
	halDevCloseIn cin = { 0 };
	uint32_t n = 99;
	int64_t v;

	ck_assert_int_eq(drvGetDevNum(NULL), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(drvGetDevNum(&n), DRV_ERROR_NONE);
	ck_assert_uint_le(n, NPUSIM_MAX_DEVICES);
	ck_assert_int_eq(halDeviceOpen(NPUSIM_MAX_DEVICES, &in, &out), DRV_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(halDeviceClose(NPUSIM_MAX_DEVICES, &cin), DRV_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(halDeviceClose(0, &cin), DRV_ERROR_UNINIT);
	ck_assert_int_eq(halGetDeviceInfo(0, MODULE_TYPE_AICORE, INFO_TYPE_CORE_NUM, NULL),
			 DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halGetDeviceInfo(NPUSIM_MAX_DEVICES, MODULE_TYPE_AICORE,
					  INFO_TYPE_CORE_NUM, &v),
			 DRV_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(halGetChipInfo(0, NULL), DRV_ERROR_INVALID_VALUE);
	if (!have_dev0()) {
		ck_assert_uint_eq(n, 0);
		ck_assert_int_eq(halDeviceOpen(0, &in, &out), DRV_ERROR_INVALID_DEVICE);
		ck_assert_int_eq(halGetDeviceInfo(0, MODULE_TYPE_AICORE, INFO_TYPE_CORE_NUM, &v),
				 DRV_ERROR_INVALID_DEVICE);
	}
}
END_TEST

START_TEST(test_queues)
{
	struct halSqCqInputInfo in = { .type = DRV_NORMAL_TYPE };
	struct halSqCqOutputInfo out;
	struct halSqCqFreeInfo fi = { .type = DRV_NORMAL_TYPE };
	struct halSqCqQueryInfo qi = { .type = DRV_NORMAL_TYPE, .prop = DRV_SQCQ_PROP_SQ_HEAD };
	struct npusim_sqe sqe = { 0 };
	struct halTaskSendInfo si = { .type = DRV_NORMAL_TYPE,
				      .sqe_addr = (uint8_t *)&sqe,
				      .sqe_num = 1 };
	struct npusim_cqe cqe;
	struct halReportRecvInfo ri = { .type = DRV_NORMAL_TYPE,
					.cqe_addr = (uint8_t *)&cqe,
					.cqe_num = 1 };
	struct npusim_task_model m[2] = { { 0 } };

	/* NULL info, a device out of range, an unknown type, a type not served,
	 * a device not opened: in that order */
	ck_assert_int_eq(halSqCqAllocate(0, NULL, &out), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halSqCqAllocate(0, &in, NULL), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halSqCqAllocate(NPUSIM_MAX_DEVICES, &in, &out), DRV_ERROR_INVALID_DEVICE);
	in.type = DRV_INVALID_TYPE;
	ck_assert_int_eq(halSqCqAllocate(0, &in, &out), DRV_ERROR_INVALID_VALUE);
	in.type = (drvSqCqType_t)77;
	ck_assert_int_eq(halSqCqAllocate(0, &in, &out), DRV_ERROR_INVALID_VALUE);
	in.type = DRV_CALLBACK_TYPE;
	ck_assert_int_eq(halSqCqAllocate(0, &in, &out), DRV_ERROR_NOT_SUPPORT);
	in.type = DRV_NORMAL_TYPE;
	ck_assert_int_eq(halSqCqAllocate(0, &in, &out), DRV_ERROR_UNINIT);
	/* the logic type is served: it gets as far as the device */
	in.type = DRV_LOGIC_TYPE;
	in.cqeSize = 32;
	in.cqeDepth = 4096;
	ck_assert_int_eq(halSqCqAllocate(0, &in, NULL), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halSqCqAllocate(NPUSIM_MAX_DEVICES, &in, &out), DRV_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(halSqCqAllocate(0, &in, &out), DRV_ERROR_UNINIT);

	ck_assert_int_eq(halSqCqFree(0, NULL), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halSqCqFree(NPUSIM_MAX_DEVICES, &fi), DRV_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(halSqCqFree(0, &fi), DRV_ERROR_UNINIT);
	fi.type = DRV_LOGIC_TYPE;
	ck_assert_int_eq(halSqCqFree(NPUSIM_MAX_DEVICES, &fi), DRV_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(halSqCqFree(0, &fi), DRV_ERROR_UNINIT);
	fi.type = DRV_INVALID_TYPE;
	ck_assert_int_eq(halSqCqFree(0, &fi), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halSqCqQuery(0, NULL), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halSqCqQuery(0, &qi), DRV_ERROR_UNINIT);
	/* a logic CQ has no SQ and no properties here */
	qi.type = DRV_LOGIC_TYPE;
	ck_assert_int_eq(halSqCqQuery(0, &qi), DRV_ERROR_NOT_SUPPORT);
	qi.type = DRV_NORMAL_TYPE;

	ck_assert_int_eq(halSqTaskSend(0, NULL), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halSqTaskSend(NPUSIM_MAX_DEVICES, &si), DRV_ERROR_INVALID_DEVICE);
	si.type = DRV_LOGIC_TYPE;
	ck_assert_int_eq(halSqTaskSend(0, &si), DRV_ERROR_NOT_SUPPORT);
	si.type = DRV_NORMAL_TYPE;
	ck_assert_int_eq(halSqTaskSend(0, &si), DRV_ERROR_UNINIT);

	ck_assert_int_eq(halCqReportRecv(0, NULL), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halCqReportRecv(NPUSIM_MAX_DEVICES, &ri), DRV_ERROR_INVALID_DEVICE);
	ri.type = DRV_INVALID_TYPE;
	ck_assert_int_eq(halCqReportRecv(0, &ri), DRV_ERROR_INVALID_VALUE);
	ri.type = DRV_NORMAL_TYPE;
	ck_assert_int_eq(halCqReportRecv(0, &ri), DRV_ERROR_UNINIT);
	ri.type = DRV_LOGIC_TYPE;
	ri.stream_id = 1;
	ri.task_id = 0xffff;
	ck_assert_int_eq(halCqReportRecv(NPUSIM_MAX_DEVICES, &ri), DRV_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(halCqReportRecv(0, &ri), DRV_ERROR_UNINIT);
	ri.type = DRV_CALLBACK_TYPE;
	ck_assert_int_eq(halCqReportRecv(0, &ri), DRV_ERROR_NOT_SUPPORT);

	/* the simulator's model: one per SQE, or none */
	ck_assert_int_eq(npusim_hal_set_task_model(m, 0), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(npusim_hal_set_task_model(NULL, 0), DRV_ERROR_NONE);
	ck_assert_int_eq(npusim_hal_set_task_model(m, 2), DRV_ERROR_NONE);
	ck_assert_int_eq(npusim_hal_sq_wait(NPUSIM_MAX_DEVICES, 0, 0), DRV_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(npusim_hal_sq_status(0, 0, NULL), DRV_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(test_ids)
{
	struct halResourceIdInputInfo in = { .type = DRV_EVENT_ID };
	struct halResourceIdOutputInfo out;

	ck_assert_int_eq(halResourceIdAlloc(0, NULL, &out), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halResourceIdAlloc(0, &in, NULL), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halResourceIdAlloc(NPUSIM_MAX_DEVICES, &in, &out),
			 DRV_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(halResourceIdAlloc(0, &in, &out), DRV_ERROR_UNINIT);
	in.type = DRV_MODEL_ID;
	ck_assert_int_eq(halResourceIdAlloc(0, &in, &out), DRV_ERROR_NOT_SUPPORT);
	in.type = DRV_INVALID_ID;
	ck_assert_int_eq(halResourceIdAlloc(0, &in, &out), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halResourceIdFree(0, &in), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halResourceIdFree(0, NULL), DRV_ERROR_INVALID_VALUE);
	in.type = DRV_NOTIFY_ID;
	ck_assert_int_eq(halResourceIdFree(0, &in), DRV_ERROR_UNINIT);
}
END_TEST

/* Shared event ids: CANN's layout and values, names the library made (or
 * none: refused before any device is touched), only events shared, the
 * owner's calls on an open device */
START_TEST(test_shr_ids)
{
	struct drvShrIdInfo info = { .id_type = SHR_ID_EVENT_TYPE, .shrid = 1 };
	struct npusim_event_status st;
	char name[64];

	ck_assert_uint_eq(sizeof(struct drvShrIdInfo), 28);
	ck_assert_uint_eq(offsetof(struct drvShrIdInfo, shrid), 12);
	ck_assert_int_eq(SHR_ID_EVENT_TYPE, 1);
	ck_assert_int_eq(halShrIdCreate(NULL, name, sizeof(name)), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halShrIdCreate(&info, NULL, sizeof(name)), DRV_ERROR_INVALID_VALUE);
	info.devid = NPUSIM_MAX_DEVICES;
	ck_assert_int_eq(halShrIdCreate(&info, name, sizeof(name)), DRV_ERROR_INVALID_DEVICE);
	info.devid = 0;
	ck_assert_int_eq(halShrIdCreate(&info, name, sizeof(name)), DRV_ERROR_UNINIT);
	info.id_type = SHR_ID_NOTIFY_TYPE;
	ck_assert_int_eq(halShrIdCreate(&info, name, sizeof(name)), DRV_ERROR_NOT_SUPPORT);
	info.id_type = SHR_ID_TYPE_MAX;
	ck_assert_int_eq(halShrIdCreate(&info, name, sizeof(name)), DRV_ERROR_INVALID_VALUE);
	/* names not of the form the library makes */
	ck_assert_int_eq(halShrIdOpen(NULL, &info), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halShrIdOpen("npusim0.event1.00000001", NULL), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halShrIdOpen("npusim0.event1", &info), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halShrIdOpen("npusim0.event1.1", &info), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halShrIdOpen("npusim9.event1.00000001", &info), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halShrIdOpen("npusim0.event1.00000001x", &info), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halShrIdClose("x"), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halShrIdDestroy(NULL), DRV_ERROR_INVALID_VALUE);
	/* the owner's destroy needs its device open */
	ck_assert_int_eq(halShrIdDestroy("npusim0.event1.00000001"), DRV_ERROR_UNINIT);
	ck_assert_int_eq(npusim_hal_event_status(0, 1, NULL), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(npusim_hal_event_status(NPUSIM_MAX_DEVICES, 1, &st),
			 DRV_ERROR_INVALID_DEVICE);
	if (!have_dev0()) {
		/* an opener needs no open device, only the device */
		ck_assert_int_eq(halShrIdOpen("npusim0.event1.00000001", &info),
				 DRV_ERROR_INVALID_DEVICE);
		ck_assert_int_eq(npusim_hal_event_status(0, 1, &st), DRV_ERROR_INVALID_DEVICE);
	}
}
END_TEST

/* halResourceConfig: binding a stream to a logic CQ, checked in the one
 * order (NULL, device, unknown type or property, not served, not open) */
START_TEST(test_res_config)
{
	struct halResourceIdInputInfo in = { .type = DRV_STREAM_ID, .resourceId = 1 };
	struct halResourceConfigInfo c = { .prop = DRV_STREAM_BIND_LOGIC_CQ };

	ck_assert_int_eq(halResourceConfig(0, NULL, &c), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halResourceConfig(0, &in, NULL), DRV_ERROR_INVALID_VALUE);
	ck_assert_int_eq(halResourceConfig(NPUSIM_MAX_DEVICES, &in, &c), DRV_ERROR_INVALID_DEVICE);
	in.type = DRV_INVALID_ID;
	ck_assert_int_eq(halResourceConfig(0, &in, &c), DRV_ERROR_INVALID_VALUE);
	in.type = DRV_EVENT_ID;
	ck_assert_int_eq(halResourceConfig(0, &in, &c), DRV_ERROR_NOT_SUPPORT);
	in.type = DRV_STREAM_ID;
	c.prop = DRV_RES_ID_CONFIG_MAX;
	ck_assert_int_eq(halResourceConfig(0, &in, &c), DRV_ERROR_INVALID_VALUE);
	c.prop = DRV_STREAM_ENABLE_EVENT;
	ck_assert_int_eq(halResourceConfig(0, &in, &c), DRV_ERROR_NOT_SUPPORT);
	c.prop = DRV_STREAM_UNBIND_LOGIC_CQ;
	ck_assert_int_eq(halResourceConfig(0, &in, &c), DRV_ERROR_UNINIT);
	c.prop = DRV_STREAM_BIND_LOGIC_CQ;
	ck_assert_int_eq(halResourceConfig(0, &in, &c), DRV_ERROR_UNINIT);
}
END_TEST

START_TEST(test_prof)
{
	struct prof_start_para p = { .channel_type = PROF_TS_TYPE };
	char buf[64];

	ck_assert_int_eq(prof_drv_start(0, CHANNEL_STARS_SOC_LOG_BUFFER, NULL), PROF_ERROR);
	ck_assert_int_eq(prof_drv_start(0, 49, &p), PROF_ERROR);
	ck_assert_int_eq(prof_drv_start(NPUSIM_MAX_DEVICES, CHANNEL_STARS_SOC_LOG_BUFFER, &p),
			 PROF_ERROR);
	ck_assert_int_eq(prof_channel_read(0, CHANNEL_STARS_SOC_LOG_BUFFER, NULL, sizeof(buf)),
			 PROF_ERROR);
	ck_assert_int_eq(prof_channel_read(0, CHANNEL_STARS_SOC_LOG_BUFFER, buf, 0), PROF_ERROR);
	/* a channel never started: nothing to read, nothing to stop */
	ck_assert_int_eq(prof_channel_read(0, CHANNEL_STARS_SOC_LOG_BUFFER, buf, sizeof(buf)),
			 PROF_ERROR);
	ck_assert_int_eq(prof_stop(0, CHANNEL_STARS_SOC_LOG_BUFFER), PROF_STOPPED_ALREADY);
	ck_assert_int_eq(prof_stop(0, 3), PROF_ERROR);
	if (!have_dev0())
		ck_assert_int_eq(prof_drv_start(0, CHANNEL_STARS_SOC_LOG_BUFFER, &p), PROF_ERROR);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("hal");
	TCase *tc = tcase_create("host");

	tcase_add_test(tc, test_layout);
	tcase_add_test(tc, test_values);
	tcase_add_test(tc, test_devices);
	tcase_add_test(tc, test_queues);
	tcase_add_test(tc, test_ids);
	tcase_add_test(tc, test_shr_ids);
	tcase_add_test(tc, test_res_config);
	tcase_add_test(tc, test_prof);
	suite_add_tcase(s, tc);
	return s;
}
