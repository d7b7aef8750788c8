/*
 * test_sqe_abi.c — struct npusim_sqe is the STARS v1 SQE the 910B runtime
 * writes: the 8-byte header, then per type the payload at the offsets of the
 * runtime's packed structs (hicann/runtime, files and lines cited per case),
 * the real type numbers, and no field of npusim's model in the 64 bytes (the
 * model, struct npusim_task_model, is a record of its own); and the
 * completions: the 16-byte hardware CQE and the 32-byte logic CQE.
 */
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "npusim_dev.h"
#include "uapi/npusim.h"

#define OFF(member) offsetof(struct npusim_sqe, member)

START_TEST(test_header)
{
	/* src/runtime/core/inc/task/task_info_base.hpp 42-56, rtStarsSqeHeader_t */
	ck_assert_uint_eq(sizeof(struct npusim_sqe), 64);
	ck_assert_uint_eq(OFF(type), 0);
	ck_assert_uint_eq(OFF(ctrl), 1);
	ck_assert_uint_eq(OFF(block_dim), 2);
	ck_assert_uint_eq(OFF(stream_id), 4);
	ck_assert_uint_eq(OFF(task_id), 6);
	ck_assert_uint_eq(OFF(u), 8);
	ck_assert_uint_eq(sizeof(((struct npusim_sqe *)0)->u), 56);
}
END_TEST

START_TEST(test_type_numbers)
{
	/* src/runtime/core/inc/sqe/v100/stars_sqe.hpp 24-46, enum rtStarsSqeType */
	ck_assert_uint_eq(NPUSIM_SQE_AI_CORE, 0); /* RT_STARS_SQE_TYPE_FFTS */
	ck_assert_uint_eq(NPUSIM_SQE_AI_CPU, 1);
	ck_assert_uint_eq(NPUSIM_SQE_PLACE_HOLDER, 3);
	ck_assert_uint_eq(NPUSIM_SQE_EVENT_RECORD, 4);
	ck_assert_uint_eq(NPUSIM_SQE_EVENT_WAIT, 5);
	ck_assert_uint_eq(NPUSIM_SQE_NOTIFY_RECORD, 6);
	ck_assert_uint_eq(NPUSIM_SQE_NOTIFY_WAIT, 7);
	ck_assert_uint_eq(NPUSIM_SQE_WRITE_VALUE, 8);
	ck_assert_uint_eq(NPUSIM_SQE_SDMA, 11);
	ck_assert_uint_eq(NPUSIM_SQE_PCIE_DMA, 17);
	ck_assert_uint_eq(NPUSIM_SQE_COND, 20);
	ck_assert_uint_eq(NPUSIM_SQE_TYPE_END, 21);
	/* src/runtime/core/inc/stars/stars.hpp 27-29, TS_FFTS_TYPE_* */
	ck_assert_uint_eq(NPUSIM_FFTS_AIC_ONLY, 0);
	ck_assert_uint_eq(NPUSIM_FFTS_AIV_ONLY, 1);
	ck_assert_uint_eq(NPUSIM_FFTS_AIC_AIV_MIX, 5);
	/* src/runtime/core/inc/task/task_base.hpp 132 */
	ck_assert_uint_eq(NPUSIM_PH_TASK_PROFILER_TRACE_EX, 26);
}
END_TEST

START_TEST(test_ffts)
{
	/* src/runtime/core/inc/sqe/v100/stars_kernel.hpp 164-191, RtFftsPlusKernelSqe */
	ck_assert_uint_eq(OFF(u.ffts.ffts_type), 8);
	ck_assert_uint_eq(OFF(u.ffts.sqe_index), 12);
	ck_assert_uint_eq(OFF(u.ffts.kernel_credit), 14);
	ck_assert_uint_eq(OFF(u.ffts.stack_base_lo), 16);
	ck_assert_uint_eq(OFF(u.ffts.qos), 28);
	ck_assert_uint_eq(OFF(u.ffts.pc_lo), 32);
	ck_assert_uint_eq(OFF(u.ffts.pc_hi), 36);
	ck_assert_uint_eq(OFF(u.ffts.param_lo), 40);
	ck_assert_uint_eq(OFF(u.ffts.param_hi), 44);
	ck_assert_uint_eq(sizeof(struct npusim_sqe_ffts), 56);
}
END_TEST

START_TEST(test_event_notify)
{
	/* stars_kernel.hpp 296-306, RtStarsEventSqe */
	ck_assert_uint_eq(OFF(u.event.event_id), 8);
	ck_assert_uint_eq(OFF(u.event.kernel_credit), 14);
	ck_assert_uint_eq(OFF(u.event.exe_result), 16);
	ck_assert_uint_eq(OFF(u.event.timeout), 20);
	ck_assert_uint_eq(sizeof(struct npusim_sqe_event), 56);
	/* stars_kernel.hpp 309-319, RtStarsNotifySqe: notify_id:13 at byte 8 */
	ck_assert_uint_eq(OFF(u.notify.notify_id), 8);
	ck_assert_uint_eq(OFF(u.notify.kernel_credit), 14);
	ck_assert_uint_eq(OFF(u.notify.timeout), 16);
	ck_assert_uint_eq(NPUSIM_NOTIFY_ID_MASK, (1u << 13) - 1);
	ck_assert_uint_eq(sizeof(struct npusim_sqe_notify), 56);
}
END_TEST

START_TEST(test_write_value_place_holder)
{
	/* src/runtime/core/inc/sqe/v100/stars_sqe.hpp 51-81, RtStarsWriteValueSqe */
	ck_assert_uint_eq(OFF(u.write_value.kernel_credit), 14);
	ck_assert_uint_eq(OFF(u.write_value.addr_lo), 16);
	ck_assert_uint_eq(OFF(u.write_value.addr_hi), 20);
	ck_assert_uint_eq(OFF(u.write_value.sub_type), 28);
	ck_assert_uint_eq(OFF(u.write_value.value), 32);
	ck_assert_uint_eq(sizeof(struct npusim_sqe_write_value), 56);
	/* stars_sqe.hpp 265-305, RtStarsPhSqe (task_type in bytes 2-3, the
	 * header's block_dim); 153-158 rtProfilerTraceEx_t at byte 16 */
	ck_assert_uint_eq(OFF(u.ph.kernel_credit), 14);
	ck_assert_uint_eq(OFF(u.ph.trace.trace_id), 16);
	ck_assert_uint_eq(OFF(u.ph.trace.model_id), 24);
	ck_assert_uint_eq(OFF(u.ph.trace.tag_id), 32);
	ck_assert_uint_eq(OFF(u.ph.raw), 16);
	ck_assert_uint_eq(sizeof(struct npusim_sqe_place_holder), 56);
}
END_TEST

START_TEST(test_dma_cond)
{
	/* src/runtime/core/inc/sqe/v100/stars_dma.hpp 125-168, RtStarsMemcpyAsyncSqe */
	ck_assert_uint_eq(OFF(u.sdma.ptr_mode), 15);
	ck_assert_uint_eq(OFF(u.sdma.opcode), 16);
	ck_assert_uint_eq(OFF(u.sdma.src_streamid), 20);
	ck_assert_uint_eq(OFF(u.sdma.length), 28);
	ck_assert_uint_eq(OFF(u.sdma.src_lo), 32);
	ck_assert_uint_eq(OFF(u.sdma.src_hi), 36);
	ck_assert_uint_eq(OFF(u.sdma.dst_lo), 40);
	ck_assert_uint_eq(OFF(u.sdma.dst_hi), 44);
	ck_assert_uint_eq(OFF(u.sdma.src_off_lo), 48);
	ck_assert_uint_eq(OFF(u.sdma.src_off_hi), 56);
	ck_assert_uint_eq(sizeof(struct npusim_sqe_sdma), 56);
	/* stars_dma.hpp 47-83, RtStarsPcieDmaSqe */
	ck_assert_uint_eq(OFF(u.pcie_dma.sq_addr_lo), 16);
	ck_assert_uint_eq(OFF(u.pcie_dma.sq_tail), 24);
	ck_assert_uint_eq(OFF(u.pcie_dma.src), 32);
	ck_assert_uint_eq(OFF(u.pcie_dma.dst), 40);
	ck_assert_uint_eq(OFF(u.pcie_dma.length), 48);
	ck_assert_uint_eq(OFF(u.pcie_dma.pasid), 56);
	ck_assert_uint_eq(sizeof(struct npusim_sqe_pcie_dma), 56);
	/* stars_sqe.hpp 409-413, RtStarsGetFloatStatusSqe (a COND SQE) */
	ck_assert_uint_eq(OFF(u.cond.conds_sub_type), 8);
	ck_assert_uint_eq(OFF(u.cond.kernel_credit), 14);
	ck_assert_uint_eq(OFF(u.cond.csc), 15);
	ck_assert_uint_eq(OFF(u.cond.ops), 16);
	ck_assert_uint_eq(sizeof(struct npusim_sqe_cond), 56);
}
END_TEST

/* The helpers write the real bytes: an SDMA's length at byte 28 and its
 * addresses; an event's id at byte 8 (u16), a notify's (13 bits). */
START_TEST(test_helpers_write_real_bytes)
{
	struct npusim_sqe q;
	const uint8_t *b = (const uint8_t *)&q;
	uint32_t v;

	npusim_sqe_init(&q, NPUSIM_SQE_SDMA, 0x1234, 0xbeef);
	ck_assert_uint_eq(b[0], 11);
	ck_assert_uint_eq(b[4] | b[5] << 8, 0x1234);
	ck_assert_uint_eq(b[6] | b[7] << 8, 0xbeef);
	npusim_sqe_set_sdma(&q, 4096, 0x1122334455ULL, 0x66778899aaULL);
	memcpy(&v, b + 28, 4);
	ck_assert_uint_eq(v, 4096);
	memcpy(&v, b + 32, 4);
	ck_assert_uint_eq(v, 0x22334455);
	memcpy(&v, b + 36, 4);
	ck_assert_uint_eq(v, 0x11);
	memcpy(&v, b + 40, 4);
	ck_assert_uint_eq(v, 0x778899aa);
	memcpy(&v, b + 44, 4);
	ck_assert_uint_eq(v, 0x66);

	npusim_sqe_init(&q, NPUSIM_SQE_EVENT_WAIT, 1, 2);
	npusim_sqe_set_sync_id(&q, 0x0abc);
	ck_assert_uint_eq(b[8] | b[9] << 8, 0x0abc);
	ck_assert_uint_eq(q.block_dim, 0); /* reserved but for kernels */
	npusim_sqe_init(&q, NPUSIM_SQE_NOTIFY_RECORD, 1, 2);
	npusim_sqe_set_sync_id(&q, 0xffff);
	memcpy(&v, b + 8, 4);
	ck_assert_uint_eq(v, 0x1fff);
	npusim_sqe_init(&q, NPUSIM_SQE_AI_CORE, 1, 2);
	ck_assert_uint_eq(q.block_dim, 1);
}
END_TEST

/* The model is a record of its own, the same on every ABI user. */
START_TEST(test_model_record)
{
	ck_assert_uint_eq(sizeof(struct npusim_task_model), 32);
	ck_assert_uint_eq(offsetof(struct npusim_task_model, duration_ns), 0);
	ck_assert_uint_eq(offsetof(struct npusim_task_model, start_ns), 8);
	ck_assert_uint_eq(offsetof(struct npusim_task_model, target_dev), 16);
	ck_assert_uint_eq(offsetof(struct npusim_task_model, jitter_pm), 20);
	ck_assert_uint_eq(offsetof(struct npusim_task_model, kind), 22);
	ck_assert_uint_eq(offsetof(struct npusim_task_model, flags), 23);
	ck_assert_uint_eq(offsetof(struct npusim_task_model, rsv), 24);
	ck_assert_uint_eq(NPUSIM_TARGET_DEV(0), 1);
	/* the ioctl and the mapping say where the models go */
	ck_assert_uint_eq(sizeof(struct npusim_sq_send), 40);
	ck_assert_uint_eq(offsetof(struct npusim_sq_send, model_addr), 24);
	ck_assert_uint_eq(sizeof(struct npusim_sq_uio_info), 56);
	ck_assert_uint_eq(offsetof(struct npusim_sq_uio_info, model_offset), 40);
	/* ABI 7: the AI Core frequency at the end of the device info */
	ck_assert_uint_eq(offsetof(struct npusim_dev_info, aicore_mhz), 104);
	ck_assert_uint_eq(sizeof(struct npusim_dev_info), 112);
	/* ABI 9: the current frequency where the alignment padding was */
	ck_assert_uint_eq(offsetof(struct npusim_dev_info, aicore_cur_mhz), 108);
	ck_assert_uint_eq(NPUSIM_ABI_VERSION, 9);
}
END_TEST

/* Profiling channel 132 (ABI 9): the driver's record as msprof's parser
 * reads it, 888 packed bytes (Ascend/msprof hal_freq.h: a count, 55
 * entries {sysCnt, freq}; the raw layout u32 count, u32 rsv, then
 * {u64, u32, u32}), the collector's config {period, version}
 * (LpmConvProfileConfig), and where the start ioctl carries it. */
START_TEST(test_lp_record)
{
	ck_assert_uint_eq(NPUSIM_PROF_CHANNEL_LP, 132);
	ck_assert_uint_eq(sizeof(struct npusim_lp_record), NPUSIM_LP_RECORD_SIZE);
	ck_assert_uint_eq(NPUSIM_LP_RECORD_SIZE, 888);
	ck_assert_uint_eq(NPUSIM_LP_ENTRIES, 55);
	ck_assert_uint_eq(sizeof(struct npusim_lp_entry), 16);
	ck_assert_uint_eq(offsetof(struct npusim_lp_record, count), 0);
	ck_assert_uint_eq(offsetof(struct npusim_lp_record, entry), 8);
	ck_assert_uint_eq(offsetof(struct npusim_lp_entry, sys_cnt), 0);
	ck_assert_uint_eq(offsetof(struct npusim_lp_entry, freq), 8);
	ck_assert_uint_eq(offsetof(struct npusim_lp_record, entry[54].freq), 8 + 54 * 16 + 8);
	ck_assert_uint_eq(sizeof(struct npusim_lp_config), 8);
	ck_assert_uint_eq(offsetof(struct npusim_lp_config, version), 4);
	ck_assert_uint_eq(NPUSIM_LP_CONFIG_VERSION, 1);
	/* the start ioctl keeps its size: the config took reserved words */
	ck_assert_uint_eq(sizeof(struct npusim_prof_start), 32);
	ck_assert_uint_eq(offsetof(struct npusim_prof_start, lp), 12);
}
END_TEST

/* The completion side: the hardware CQE (hicann/driver
 * lba/comm/adapt/stars_v1/trs_stars_cq.h 37-72, rt_stars_cqe_t) and the
 * logic CQE (trs/inc/trs_core.h 52-88, struct trs_logic_cqe; the runtime's
 * rtLogicCqReport_t, task_info_base.hpp 321-347), byte offsets and bit
 * positions as GCC lays the bit fields out (LSB first). */
START_TEST(test_cqes)
{
	struct npusim_logic_cqe l;
	struct npusim_cqe c;
	uint8_t b[32];

	ck_assert_uint_eq(sizeof(struct npusim_cqe), 16);
	ck_assert_uint_eq(offsetof(struct npusim_cqe, syscnt), 8);
	ck_assert_uint_eq(offsetof(struct npusim_cqe, err.error_code), 8);
	ck_assert_uint_eq(offsetof(struct npusim_cqe, err.type_flags), 9);
	ck_assert_uint_eq(offsetof(struct npusim_cqe, err.sqe_index), 10);
	ck_assert_uint_eq(offsetof(struct npusim_cqe, err.sq_sw_status), 12);
	/* byte 9: drop_flag:1, acc_error:1, sqe_type:6 */
	memset(&c, 0, sizeof(c));
	c.err.type_flags = (uint8_t)(NPUSIM_SQE_SDMA << NPUSIM_CQE_ERR_SQE_TYPE_SHIFT) |
			   NPUSIM_CQE_ERR_ACC_ERROR;
	memcpy(b, &c, sizeof(c));
	ck_assert_uint_eq(b[9], (11 << 2) | 2);

	ck_assert_uint_eq(sizeof(struct npusim_logic_cqe), NPUSIM_LOGIC_CQE_SIZE);
	ck_assert_uint_eq(NPUSIM_LOGIC_CQE_SIZE, 32);
	ck_assert_uint_eq(offsetof(struct npusim_logic_cqe, stream_id), 0);
	ck_assert_uint_eq(offsetof(struct npusim_logic_cqe, task_id), 2);
	ck_assert_uint_eq(offsetof(struct npusim_logic_cqe, error_code), 4);
	ck_assert_uint_eq(offsetof(struct npusim_logic_cqe, error_type), 8);
	ck_assert_uint_eq(offsetof(struct npusim_logic_cqe, sqe_type), 9);
	ck_assert_uint_eq(offsetof(struct npusim_logic_cqe, sq_id), 10);
	ck_assert_uint_eq(offsetof(struct npusim_logic_cqe, sq_head), 12);
	ck_assert_uint_eq(offsetof(struct npusim_logic_cqe, flags), 14);
	ck_assert_uint_eq(offsetof(struct npusim_logic_cqe, timestamp), 16);
	ck_assert_uint_eq(offsetof(struct npusim_logic_cqe, sqe_index), 16);
	ck_assert_uint_eq(offsetof(struct npusim_logic_cqe, enque_timestamp), 24);
	/* match_flag:1, drop_flag:1, error_bit:1, acc_error:1,
	 * next_task_vld:1, notify_attached:1, reserved0:10 */
	ck_assert_uint_eq(NPUSIM_LOGIC_CQE_MATCH, 1 << 0);
	ck_assert_uint_eq(NPUSIM_LOGIC_CQE_DROP, 1 << 1);
	ck_assert_uint_eq(NPUSIM_LOGIC_CQE_ERROR, 1 << 2);
	ck_assert_uint_eq(NPUSIM_LOGIC_CQE_ACC_ERROR, 1 << 3);
	ck_assert_uint_eq(NPUSIM_LOGIC_CQE_NEXT_TASK_VLD, 1 << 4);
	ck_assert_uint_eq(NPUSIM_LOGIC_CQE_NOTIFY_ATTACHED, 1 << 5);
	memset(&l, 0, sizeof(l));
	l.flags = NPUSIM_LOGIC_CQE_MATCH | NPUSIM_LOGIC_CQE_ERROR;
	l.timestamp = 0x0102030405060708ull;
	memcpy(b, &l, sizeof(l));
	ck_assert_uint_eq(b[14], 0x05);
	ck_assert_uint_eq(b[16], 0x08);
	/* TRS_STARS_CQE_HOLDER, TRS_STARS_CQE_RECORED (trs_stars_cq.h 22-23) */
	ck_assert_uint_eq(NPUSIM_LOGIC_CQE_HOLDER, 3);
	ck_assert_uint_eq(NPUSIM_LOGIC_CQE_RECORD, 4);
	/* RT_SYNC_TASK_FLAG (stars_base.hpp 42) and LOGIC_CQ_MAX_DEPTH */
	ck_assert_uint_eq(NPUSIM_SQE_SYNC_TASK, 0x8000);
	ck_assert_uint_eq(NPUSIM_CQE_MATCH, NPUSIM_SQE_SYNC_TASK);
	ck_assert_uint_eq(NPUSIM_LOGIC_CQ_MAX_DEPTH, 65536);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("sqe_abi");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_header);
	tcase_add_test(tc, test_type_numbers);
	tcase_add_test(tc, test_ffts);
	tcase_add_test(tc, test_event_notify);
	tcase_add_test(tc, test_write_value_place_holder);
	tcase_add_test(tc, test_dma_cond);
	tcase_add_test(tc, test_helpers_write_real_bytes);
	tcase_add_test(tc, test_model_record);
	tcase_add_test(tc, test_cqes);
	tcase_add_test(tc, test_lp_record);
	suite_add_tcase(s, tc);
	return s;
}
