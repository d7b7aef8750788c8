/*
 * hal_test.c — libascend_hal.so (user/hal) on npusim, through CANN's calls
 * only (and the simulator's model of each task): devices and their info,
 * an SQ/CQ pair, STARS SQEs sent with halSqTaskSend, the one CQE report of
 * the wr_cqe task through halCqReportRecv, channel 50's ACSQ_TASK records
 * through prof_drv_start / prof_channel_read / prof_stop, event and notify
 * ids, and each call's error code once the thing it names is gone.
 *
 * usage: hal_test NDEV COUNTER_HZ (what the suite loaded npusim with)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver/ascend_hal.h"
#include "driver/npusim_hal.h"
#include "npusim_sqe.h"

static int failures;

#define CHECK(cond, ...)                                            \
	do {                                                        \
		if (!(cond)) {                                      \
			fprintf(stderr, "hal_test:%d: ", __LINE__); \
			fprintf(stderr, __VA_ARGS__);               \
			fputc('\n', stderr);                        \
			failures++;                                 \
		}                                                   \
	} while (0)

#define NTASK 3

static void kernel(struct npusim_sqe *q, struct npusim_task_model *m, uint32_t sid, uint16_t task,
		   uint64_t dur_ns)
{
	npusim_sqe_init(q, NPUSIM_SQE_AI_CORE, (uint16_t)sid, task);
	q->u.ffts.ffts_type = NPUSIM_FFTS_AIC_ONLY;
	q->block_dim = 8;
	memset(m, 0, sizeof(*m));
	m->duration_ns = dur_ns;
}

/* Every record of channel 50 until want have come (or 5 s passed). */
static int read_records(struct npusim_stars_acsq *rec, int want)
{
	int got = 0;

	for (int tries = 0; got < want && tries < 500; tries++) {
		int r = prof_channel_read(0, CHANNEL_STARS_SOC_LOG_BUFFER, (char *)(rec + got),
					  (unsigned int)((want - got) * sizeof(*rec)));

		if (r < 0)
			return r;
		if (r % (int)sizeof(*rec)) {
			fprintf(stderr, "hal_test: a read of %d bytes: not whole records\n", r);
			return -1;
		}
		got += r / (int)sizeof(*rec);
		if (got < want)
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	return got;
}

int main(int argc, char **argv)
{
	static const uint64_t dur[NTASK] = { 1000000, 2000000, 3000000 };
	halDevOpenIn oin = { { 0 } };
	halDevOpenOut oout;
	halDevCloseIn cin = { .close_type = DEV_CLOSE_HOST_DEVICE };
	struct prof_start_para pp = { .channel_type = PROF_TS_TYPE };
	struct halSqCqInputInfo qin = { .type = DRV_NORMAL_TYPE, .sqeSize = 64 };
	struct halSqCqOutputInfo qout;
	struct npusim_sqe q[NTASK];
	struct npusim_task_model m[NTASK];
	struct npusim_cqe cqe[8];
	struct npusim_stars_acsq rec[2 * NTASK + 1];
	halChipInfo chip;
	uint32_t n = 0, sid;
	int64_t v = 0, hz = 0;
	int got;

	if (argc != 3) {
		fprintf(stderr, "usage: hal_test NDEV COUNTER_HZ\n");
		return 2;
	}
	CHECK(drvGetDevNum(&n) == DRV_ERROR_NONE && n == strtoul(argv[1], NULL, 0),
	      "drvGetDevNum: %u devices, want %s", n, argv[1]);
	CHECK(halDeviceOpen(n, &oin, &oout) == DRV_ERROR_INVALID_DEVICE, "open of device %u", n);
	CHECK(halDeviceOpen(0, &oin, &oout) == DRV_ERROR_NONE, "open of device 0");
	CHECK(halDeviceOpen(0, &oin, &oout) == DRV_ERROR_REPEATED_INIT, "second open");
	CHECK(halGetDeviceInfo(0, MODULE_TYPE_AICORE, INFO_TYPE_CORE_NUM, &v) == DRV_ERROR_NONE &&
		      v > 0,
	      "AI core count %lld", (long long)v);
	CHECK(halGetDeviceInfo(0, MODULE_TYPE_VECTOR_CORE, INFO_TYPE_CORE_NUM, &v) ==
			      DRV_ERROR_NONE &&
		      v > 0,
	      "vector core count %lld", (long long)v);
	CHECK(halGetDeviceInfo(0, MODULE_TYPE_SYSTEM, INFO_TYPE_DEV_OSC_FREQUE, &hz) ==
			      DRV_ERROR_NONE &&
		      hz == strtoll(argv[2], NULL, 0),
	      "counter frequency %lld, want %s", (long long)hz, argv[2]);
	CHECK(halGetDeviceInfo(0, MODULE_TYPE_PCIE, INFO_TYPE_IP, &v) == DRV_ERROR_NOT_SUPPORT,
	      "an info this HAL does not answer");
	CHECK(halGetChipInfo(0, &chip) == DRV_ERROR_NONE &&
		      strcmp((char *)chip.type, "Ascend") == 0 &&
		      strcmp((char *)chip.name, "910B") == 0,
	      "chip %s %s", chip.type, chip.name);

	CHECK(prof_drv_start(0, CHANNEL_STARS_SOC_LOG_BUFFER, &pp) == PROF_OK, "prof_drv_start");
	CHECK(prof_drv_start(0, CHANNEL_STARS_SOC_LOG_BUFFER, &pp) == PROF_STARTED_ALREADY,
	      "a second prof_drv_start");

	CHECK(halSqCqAllocate(0, &qin, &qout) == DRV_ERROR_NONE, "halSqCqAllocate");
	sid = qout.sqId;
	CHECK(qout.cqId == sid, "SQ %u, CQ %u: one pair", sid, qout.cqId);
	{
		struct halSqCqQueryInfo qi = { .type = DRV_NORMAL_TYPE,
					       .sqId = sid,
					       .prop = DRV_SQCQ_PROP_SQE_SIZE };

		CHECK(halSqCqQuery(0, &qi) == DRV_ERROR_NONE && qi.value[0] == 64, "SQE size %u",
		      qi.value[0]);
		qi.prop = DRV_SQCQ_PROP_SQ_DEPTH;
		CHECK(halSqCqQuery(0, &qi) == DRV_ERROR_NONE && qi.value[0] >= NTASK, "SQ depth %u",
		      qi.value[0]);
		qi.prop = DRV_SQCQ_PROP_MAX;
		CHECK(halSqCqQuery(0, &qi) == DRV_ERROR_INVALID_VALUE, "an unknown property");
	}

	/* three kernels, the second with wr_cqe: on a 910B (cqe_mode 1) only
	 * it completes with a report */
	for (int i = 0; i < NTASK; i++)
		kernel(&q[i], &m[i], sid, (uint16_t)i, dur[i]);
	q[1].ctrl |= NPUSIM_SQE_CTRL_WR_CQE;
	{
		struct halTaskSendInfo si = { .type = DRV_NORMAL_TYPE,
					      .sqId = sid,
					      .timeout = -1,
					      .sqe_addr = (uint8_t *)q,
					      .sqe_num = NTASK };

		CHECK(npusim_hal_set_task_model(m, NTASK - 1) == DRV_ERROR_NONE, "set model");
		CHECK(halSqTaskSend(0, &si) == DRV_ERROR_INVALID_VALUE,
		      "models for fewer SQEs than sent");
		CHECK(npusim_hal_set_task_model(m, NTASK) == DRV_ERROR_NONE, "set model");
		CHECK(halSqTaskSend(0, &si) == DRV_ERROR_NONE, "halSqTaskSend");
	}
	{
		struct halReportRecvInfo ri = { .type = DRV_NORMAL_TYPE,
						.cqId = sid,
						.timeout = 5000,
						.cqe_addr = (uint8_t *)cqe,
						.cqe_num = 8 };

		CHECK(halCqReportRecv(0, &ri) == DRV_ERROR_NONE && ri.report_cqe_num == 1,
		      "%u reports, want 1", ri.report_cqe_num);
		CHECK(ri.report_cqe_num < 1 ||
			      ((cqe[0].stream_id & 0x7fff) == sid && cqe[0].task_id == 1),
		      "report of stream %u task %u, want %u 1", cqe[0].stream_id & 0x7fff,
		      cqe[0].task_id, sid);
		CHECK(npusim_hal_sq_wait(0, sid, 5000) == DRV_ERROR_NONE, "wait for the SQ");
		ri.timeout = 0;
		CHECK(halCqReportRecv(0, &ri) == DRV_ERROR_WAIT_TIMEOUT && ri.report_cqe_num == 0,
		      "a poll of an empty CQ: %u reports", ri.report_cqe_num);
		ri.type = DRV_LOGIC_TYPE;
		CHECK(halCqReportRecv(0, &ri) == DRV_ERROR_NOT_SUPPORT, "the logic CQ");
	}
	{
		struct halSqCqQueryInfo qi = { .type = DRV_NORMAL_TYPE,
					       .sqId = sid,
					       .prop = DRV_SQCQ_PROP_SQ_HEAD };
		uint32_t head;

		CHECK(halSqCqQuery(0, &qi) == DRV_ERROR_NONE, "SQ head");
		head = qi.value[0];
		qi.prop = DRV_SQCQ_PROP_SQ_TAIL;
		CHECK(halSqCqQuery(0, &qi) == DRV_ERROR_NONE && qi.value[0] == head &&
			      head == NTASK,
		      "SQ head %u tail %u after %d tasks", head, qi.value[0], NTASK);
	}

	/* channel 50: a start and an end record per task, the model's times */
	got = read_records(rec, 2 * NTASK);
	CHECK(got == 2 * NTASK, "%d STARS records, want %d", got, 2 * NTASK);
	for (int i = 0; i < got && got == 2 * NTASK; i++) {
		CHECK((rec[i].head & 0x3f) == (unsigned)(i & 1) &&
			      rec[i].head >> 10 == NPUSIM_SQE_AI_CORE && rec[i].stream_id == sid &&
			      rec[i].task_id == i / 2,
		      "record %d: function %u SQE type %u stream %u task %u", i, rec[i].head & 0x3f,
		      rec[i].head >> 10, rec[i].stream_id, rec[i].task_id);
		if (i & 1) {
			uint64_t ns = (rec[i].sys_cnt - rec[i - 1].sys_cnt) * 1000000000ULL /
				      (uint64_t)hz;
			uint64_t tick = 1000000000ULL / (uint64_t)hz + 1;

			CHECK(ns + tick >= dur[i / 2] && ns <= dur[i / 2] + tick,
			      "task %d ran %llu ns, want %llu", i / 2, (unsigned long long)ns,
			      (unsigned long long)dur[i / 2]);
		}
	}
	CHECK(prof_channel_read(0, CHANNEL_STARS_SOC_LOG_BUFFER, (char *)rec, sizeof(rec)) == 0,
	      "records after the last");
	CHECK(prof_stop(0, CHANNEL_STARS_SOC_LOG_BUFFER) == PROF_OK, "prof_stop");
	CHECK(prof_stop(0, CHANNEL_STARS_SOC_LOG_BUFFER) == PROF_STOPPED_ALREADY,
	      "a second prof_stop");
	CHECK(prof_channel_read(0, CHANNEL_STARS_SOC_LOG_BUFFER, (char *)rec, sizeof(rec)) ==
		      PROF_ERROR,
	      "a read of a stopped channel");

	/* ids */
	for (int t = 0; t < 2; t++) {
		struct halResourceIdInputInfo in = { .type = t ? DRV_NOTIFY_ID : DRV_EVENT_ID };
		struct halResourceIdOutputInfo out;

		CHECK(halResourceIdAlloc(0, &in, &out) == DRV_ERROR_NONE, "id alloc of type %d",
		      in.type);
		in.resourceId = out.resourceId;
		CHECK(halResourceIdFree(0, &in) == DRV_ERROR_NONE, "id free of type %d", in.type);
		CHECK(halResourceIdFree(0, &in) != DRV_ERROR_NONE, "a second free of type %d",
		      in.type);
	}

	/* the pair gone: sends to it are refused */
	{
		struct halSqCqFreeInfo fi = { .type = DRV_NORMAL_TYPE, .sqId = sid, .cqId = sid };
		struct halTaskSendInfo si = { .type = DRV_NORMAL_TYPE,
					      .sqId = sid,
					      .timeout = 0,
					      .sqe_addr = (uint8_t *)q,
					      .sqe_num = 1 };
		drvError_t r;

		CHECK(halSqCqFree(0, &fi) == DRV_ERROR_NONE, "halSqCqFree");
		r = halSqTaskSend(0, &si);
		CHECK(r == DRV_ERROR_INVALID_VALUE, "a send to a freed SQ: %d", (int)r);
	}
	CHECK(halDeviceClose(0, &cin) == DRV_ERROR_NONE, "halDeviceClose");
	CHECK(halDeviceClose(0, &cin) == DRV_ERROR_UNINIT, "a second halDeviceClose");
	if (failures)
		return 1;
	printf("hal_test: ok\n");
	return 0;
}
