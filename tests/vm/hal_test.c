/*
 * hal_test.c — libascend_hal.so (user/hal) on npusim, through CANN's calls
 * only (and the simulator's model of each task): devices and their info,
 * an SQ/CQ pair, STARS SQEs sent with halSqTaskSend, the one CQE report of
 * the wr_cqe task through halCqReportRecv, channel 50's ACSQ_TASK records
 * through prof_drv_start / prof_channel_read / prof_stop, event and notify
 * ids, and each call's error code once the thing it names is gone; then
 * the logic CQ (logic_cq()): two streams bound to one, the bytes of a
 * wr_cqe task's 32-byte report, the match receive, a full logic CQ's
 * losses counted, and a freed one's.
 *
 * usage: hal_test NDEV COUNTER_HZ (what the suite loaded npusim with)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* Little-endian fields of a report's bytes, read at their offsets. */
static uint64_t le(const uint8_t *b, int off, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | b[off + i];
	return v;
}

/* The number after "key " on the summary line of logic CQ id (key "" and
 * id < 0: the logic_cqe_lost line's value after "freed_logic_cq "), or -1. */
static long long summary_value(uint32_t id, int lost, const char *key)
{
	char line[512], want[32];
	long long v = -1;
	FILE *f = fopen("/proc/trs_chan/dev0-ts0/summary", "r");

	if (!f)
		return -1;
	snprintf(want, sizeof(want), lost ? "logic_cqe_lost " : "logic_cq %u ", id);
	while (fgets(line, sizeof(line), f)) {
		char *p;

		if (strncmp(line, want, strlen(want)) || !(p = strstr(line, key)))
			continue;
		v = strtoll(p + strlen(key), NULL, 10);
		break;
	}
	fclose(f);
	return v;
}

/* Send n SQEs q (default models) to SQ sid and wait until they ran. */
static void send_wait(uint32_t sid, struct npusim_sqe *q, uint32_t n)
{
	struct halTaskSendInfo si = { .type = DRV_NORMAL_TYPE,
				      .sqId = sid,
				      .timeout = -1,
				      .sqe_addr = (uint8_t *)q,
				      .sqe_num = n };

	CHECK(halSqTaskSend(0, &si) == DRV_ERROR_NONE, "send %u SQEs to SQ %u", n, sid);
	CHECK(npusim_hal_sq_wait(0, sid, 5000) == DRV_ERROR_NONE, "wait for SQ %u", sid);
}

/* Receive from logic CQ lcq with the match of stream / task: returns the
 * reports (or -1 on an error other than want_err). */
static int lrecv(uint32_t lcq, uint8_t (*rep)[32], uint32_t cap, int32_t timeout, uint32_t stream,
		 uint32_t task, drvError_t want_err)
{
	struct halReportRecvInfo ri = { .type = DRV_LOGIC_TYPE,
					.cqId = lcq,
					.timeout = timeout,
					.cqe_addr = (uint8_t *)rep,
					.cqe_num = cap,
					.stream_id = stream,
					.task_id = task };
	drvError_t r = halCqReportRecv(0, &ri);

	CHECK(r == want_err, "receive (stream %u task %u): error %d, want %d", stream, task, (int)r,
	      (int)want_err);
	CHECK(ri.res[0] == 1, "the receive's version %u, want 1", ri.res[0]);
	return r == DRV_ERROR_NONE ? (int)ri.report_cqe_num : -1;
}

/*
 * The logic CQ, as a 910B runtime uses it: two streams a and b bound to
 * one logic CQ of 8 slots (7 reports). a's write-value task 0 with wr_cqe,
 * then b's event record 0 with the sync-task flag (a match report) and
 * place holder 1: three reports in the one CQ, in that order. A receive
 * for another task takes a's report only (it stops at b's match report),
 * then a receive for stream a passes over b's record and takes b's place
 * holder, then the receive for b's record takes it. Ten place holders
 * more: 7 fit, 3 are lost and counted, and the 7 come in two receives
 * (the ring's end). Unbound, b's report is its own CQ's again. Freed, the
 * logic CQ takes nothing and a's next report is counted lost.
 */
static void logic_cq(void)
{
	struct halSqCqInputInfo qin = { .type = DRV_NORMAL_TYPE, .sqeSize = 64 };
	struct halSqCqInputInfo lin = { .type = DRV_LOGIC_TYPE,
					.cqeSize = 32,
					.cqeDepth = 8,
					.flag = TSDRV_FLAG_THREAD_BIND_IRQ };
	struct halSqCqOutputInfo out;
	struct halResourceIdInputInfo rin = { .type = DRV_STREAM_ID };
	struct halResourceConfigInfo bind = { .prop = DRV_STREAM_BIND_LOGIC_CQ };
	struct halResourceIdInputInfo ein = { .type = DRV_EVENT_ID };
	struct halResourceIdOutputInfo eout;
	struct npusim_sqe q[10];
	uint8_t rep[16][32];
	uint32_t a, b, lcq, ev;
	int n;

	CHECK(halSqCqAllocate(0, &qin, &out) == DRV_ERROR_NONE, "pair a");
	a = out.sqId;
	CHECK(halSqCqAllocate(0, &qin, &out) == DRV_ERROR_NONE, "pair b");
	b = out.sqId;
	/* the driver's bounds: 1..65536 slots of 1..32 bytes; one flag */
	lin.cqeDepth = 0;
	CHECK(halSqCqAllocate(0, &lin, &out) == DRV_ERROR_INVALID_VALUE, "a depth of 0");
	lin.cqeDepth = NPUSIM_LOGIC_CQ_MAX_DEPTH + 1;
	CHECK(halSqCqAllocate(0, &lin, &out) == DRV_ERROR_INVALID_VALUE, "a depth past the most");
	lin.cqeDepth = 8;
	lin.cqeSize = 33;
	CHECK(halSqCqAllocate(0, &lin, &out) == DRV_ERROR_INVALID_VALUE, "33-byte reports");
	lin.cqeSize = 32;
	lin.flag = 0x1; /* TSDRV_FLAG_REUSE_CQ */
	CHECK(halSqCqAllocate(0, &lin, &out) == DRV_ERROR_INVALID_VALUE, "a flag not served");
	lin.flag = TSDRV_FLAG_THREAD_BIND_IRQ;
	CHECK(halSqCqAllocate(0, &lin, &out) == DRV_ERROR_NONE, "logic CQ");
	lcq = out.cqId;
	CHECK(out.flag == 0, "out flag %#x: npusim has no thread-bound interrupt", out.flag);
	bind.value[0] = lcq;
	rin.resourceId = a;
	CHECK(halResourceConfig(0, &rin, &bind) == DRV_ERROR_NONE, "bind a");
	rin.resourceId = b;
	CHECK(halResourceConfig(0, &rin, &bind) == DRV_ERROR_NONE, "bind b");
	bind.value[0] = lcq + 1;
	CHECK(halResourceConfig(0, &rin, &bind) == DRV_ERROR_INVALID_VALUE,
	      "bind to a logic CQ not allocated");
	CHECK(halResourceIdAlloc(0, &ein, &eout) == DRV_ERROR_NONE, "event id");
	ev = eout.resourceId;

	npusim_sqe_init(&q[0], NPUSIM_SQE_WRITE_VALUE, (uint16_t)a, 0);
	q[0].ctrl |= NPUSIM_SQE_CTRL_WR_CQE;
	send_wait(a, q, 1);
	npusim_sqe_init(&q[0], NPUSIM_SQE_EVENT_RECORD, (uint16_t)(b | NPUSIM_SQE_SYNC_TASK), 0);
	npusim_sqe_set_sync_id(&q[0], ev);
	npusim_sqe_init(&q[1], NPUSIM_SQE_PLACE_HOLDER, (uint16_t)b, 1);
	send_wait(b, q, 2);
	CHECK(summary_value(lcq, 0, "pending ") == 3, "%lld reports pending, want 3",
	      summary_value(lcq, 0, "pending "));

	/* a receive for a task not there: a's report, stopped at b's match
	 * report; a's report byte by byte (struct trs_logic_cqe) */
	n = lrecv(lcq, rep, 16, 0, b, 5, DRV_ERROR_NONE);
	CHECK(n == 1, "%d reports before the match report, want 1", n);
	if (n >= 1) {
		uint8_t *r = rep[0];

		CHECK(le(r, 0, 2) == a && le(r, 2, 2) == 0, "stream %llu task %llu, want %u 0",
		      (unsigned long long)le(r, 0, 2), (unsigned long long)le(r, 2, 2), a);
		CHECK(le(r, 4, 4) == 0 && r[8] == 0, "error code %llu type %u",
		      (unsigned long long)le(r, 4, 4), r[8]);
		CHECK(r[9] == NPUSIM_SQE_WRITE_VALUE, "SQE type %u, want %u", r[9],
		      NPUSIM_SQE_WRITE_VALUE);
		CHECK(le(r, 10, 2) == a && le(r, 12, 2) == 1, "SQ %llu head %llu, want %u 1",
		      (unsigned long long)le(r, 10, 2), (unsigned long long)le(r, 12, 2), a);
		CHECK(le(r, 14, 2) == 0, "flags %#llx, want none",
		      (unsigned long long)le(r, 14, 2));
		CHECK(le(r, 16, 8) == 0, "sqe_index %llu, want slot 0",
		      (unsigned long long)le(r, 16, 8));
		CHECK(le(r, 24, 8) == 0, "reserved %#llx", (unsigned long long)le(r, 24, 8));
	}
	/* stream a's receive passes over b's record and takes b's place holder */
	n = lrecv(lcq, rep, 16, 0, a, 0xffff, DRV_ERROR_NONE);
	CHECK(n == 1 && le(rep[0], 0, 2) == b && le(rep[0], 2, 2) == 1 &&
		      rep[0][9] == NPUSIM_LOGIC_CQE_HOLDER && le(rep[0], 16, 8) != 0,
	      "%d reports: stream %llu task %llu type %u counter %llu, want b's place holder", n,
	      (unsigned long long)le(rep[0], 0, 2), (unsigned long long)le(rep[0], 2, 2), rep[0][9],
	      (unsigned long long)le(rep[0], 16, 8));
	/* b's record, to the receive that names it */
	n = lrecv(lcq, rep, 16, 0, b, 0, DRV_ERROR_NONE);
	CHECK(n == 1 && le(rep[0], 0, 2) == b && le(rep[0], 2, 2) == 0 &&
		      (le(rep[0], 14, 2) & NPUSIM_LOGIC_CQE_MATCH) &&
		      rep[0][9] == NPUSIM_LOGIC_CQE_RECORD && le(rep[0], 16, 8) != 0,
	      "%d reports: stream %llu task %llu flags %#llx type %u, want b's record", n,
	      (unsigned long long)le(rep[0], 0, 2), (unsigned long long)le(rep[0], 2, 2),
	      (unsigned long long)le(rep[0], 14, 2), rep[0][9]);
	n = lrecv(lcq, rep, 16, 0, b, 0, DRV_ERROR_NONE);
	CHECK(n == 0, "a poll of an empty logic CQ: %d reports", n);
	lrecv(lcq, rep, 16, 50, b, 0, DRV_ERROR_WAIT_TIMEOUT);
	lrecv(lcq, rep, 16, -2, b, 0, DRV_ERROR_INVALID_VALUE);

	/* full: 8 slots hold 7 reports, the other 3 are lost and counted */
	for (int i = 0; i < 10; i++)
		npusim_sqe_init(&q[i], NPUSIM_SQE_PLACE_HOLDER, (uint16_t)a, (uint16_t)(1 + i));
	send_wait(a, q, 10);
	CHECK(summary_value(lcq, 0, "full_drop ") == 3, "full_drop %lld, want 3",
	      summary_value(lcq, 0, "full_drop "));
	/* one receive copies one run of the ring: the 5 slots to its end,
	 * then the 2 from its start */
	n = lrecv(lcq, rep, 16, 0, a, 0xffff, DRV_ERROR_NONE);
	CHECK(n == 5, "%d reports up to the end of the ring, want 5", n);
	if (n == 5)
		n += lrecv(lcq, rep + 5, 11, 0, a, 0xffff, DRV_ERROR_NONE);
	CHECK(n == 7, "%d reports of a full logic CQ, want 7", n);
	for (int i = 0; i < n; i++)
		CHECK(le(rep[i], 0, 2) == a && le(rep[i], 2, 2) == (uint64_t)(1 + i),
		      "report %d: stream %llu task %llu", i, (unsigned long long)le(rep[i], 0, 2),
		      (unsigned long long)le(rep[i], 2, 2));

	/* b unbound: its report is its own CQ's again */
	bind.prop = DRV_STREAM_UNBIND_LOGIC_CQ;
	CHECK(halResourceConfig(0, &rin, &bind) == DRV_ERROR_NONE, "unbind b");
	npusim_sqe_init(&q[0], NPUSIM_SQE_PLACE_HOLDER, (uint16_t)b, 2);
	send_wait(b, q, 1);
	{
		struct npusim_cqe cqe[2];
		struct halReportRecvInfo ri = { .type = DRV_NORMAL_TYPE,
						.cqId = b,
						.timeout = 1000,
						.cqe_addr = (uint8_t *)cqe,
						.cqe_num = 2 };

		CHECK(halCqReportRecv(0, &ri) == DRV_ERROR_NONE && ri.report_cqe_num == 1 &&
			      cqe[0].task_id == 2,
		      "b's own CQ after the unbind: %u CQEs", ri.report_cqe_num);
	}

	/* freed: receives refused, a's next report lost and counted */
	{
		struct halSqCqFreeInfo fi = { .type = DRV_LOGIC_TYPE, .cqId = lcq };
		long long lost = summary_value(0, 1, "freed_logic_cq ");

		CHECK(halSqCqFree(0, &fi) == DRV_ERROR_NONE, "free the logic CQ");
		CHECK(halSqCqFree(0, &fi) == DRV_ERROR_INVALID_VALUE, "a second free");
		lrecv(lcq, rep, 16, 0, a, 0xffff, DRV_ERROR_INVALID_VALUE);
		npusim_sqe_init(&q[0], NPUSIM_SQE_PLACE_HOLDER, (uint16_t)a, 11);
		send_wait(a, q, 1);
		CHECK(summary_value(0, 1, "freed_logic_cq ") == lost + 1,
		      "lost to the freed logic CQ: %lld, want %lld",
		      summary_value(0, 1, "freed_logic_cq "), lost + 1);
	}
	ein.resourceId = ev;
	CHECK(halResourceIdFree(0, &ein) == DRV_ERROR_NONE, "event id free");
	for (int i = 0; i < 2; i++) {
		struct halSqCqFreeInfo fi = { .type = DRV_NORMAL_TYPE, .sqId = i ? b : a };

		fi.cqId = fi.sqId;
		CHECK(halSqCqFree(0, &fi) == DRV_ERROR_NONE, "free pair %u", fi.sqId);
	}
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
	/* npusim's aicore_mhz (default 1800), rated and, until the
	 * administrator changes it, current */
	CHECK(halGetDeviceInfo(0, MODULE_TYPE_AICORE, INFO_TYPE_FREQUE, &v) == DRV_ERROR_NONE &&
		      v == 1800,
	      "AI Core rated frequency %lld MHz", (long long)v);
	CHECK(halGetDeviceInfo(0, MODULE_TYPE_AICORE, INFO_TYPE_CURRENT_FREQ, &v) ==
			      DRV_ERROR_NONE &&
		      v == 1800,
	      "AI Core current frequency %lld MHz", (long long)v);
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
		CHECK(halCqReportRecv(0, &ri) == DRV_ERROR_INVALID_VALUE,
		      "a logic CQ never allocated");
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

	/* channel 132 with msprof's config {period 100, version 1}: the
	 * frequency at the start, the administrator's change to 800 MHz,
	 * which INFO_TYPE_CURRENT_FREQ then answers (the rated stays) */
	{
		struct npusim_lp_config lc = { .period = 100, .version = 1 };
		struct prof_start_para lp = { .channel_type = PROF_PERIPHERAL_TYPE,
					      .sample_period = 100,
					      .real_time = 1,
					      .user_data = &lc,
					      .user_data_size = sizeof(lc) };
		struct npusim_lp_record lr[2];
		int fq, got;

		CHECK(prof_drv_start(0, CHANNEL_LP, &pp) == PROF_ERROR,
		      "channel 132 started without its config");
		CHECK(prof_drv_start(0, CHANNEL_LP, &lp) == PROF_OK, "prof_drv_start(132)");
		CHECK(prof_drv_start(0, CHANNEL_LP, &lp) == PROF_STARTED_ALREADY,
		      "a second prof_drv_start(132)");
		fq = open("/proc/trs_chan/dev0-ts0/aicore_freq", O_WRONLY);
		CHECK(fq >= 0 && write(fq, "800\n", 4) == 4, "setting 800 MHz");
		if (fq >= 0)
			close(fq);
		CHECK(halGetDeviceInfo(0, MODULE_TYPE_AICORE, INFO_TYPE_CURRENT_FREQ, &v) ==
				      DRV_ERROR_NONE &&
			      v == 800,
		      "AI Core current frequency %lld MHz, want 800", (long long)v);
		CHECK(halGetDeviceInfo(0, MODULE_TYPE_AICORE, INFO_TYPE_FREQUE, &v) ==
				      DRV_ERROR_NONE &&
			      v == 1800,
		      "AI Core rated frequency %lld MHz after the change", (long long)v);
		got = prof_channel_read(0, CHANNEL_LP, (char *)lr, sizeof(lr));
		CHECK(got == (int)sizeof(struct npusim_lp_record) && lr[0].count == 2 &&
			      lr[0].entry[0].freq == 1800 && lr[0].entry[1].freq == 800 &&
			      lr[0].entry[0].sys_cnt <= lr[0].entry[1].sys_cnt,
		      "channel 132: %d bytes, count %u", got, got > 0 ? lr[0].count : 0);
		CHECK(prof_stop(0, CHANNEL_LP) == PROF_OK, "prof_stop(132)");
		fq = open("/proc/trs_chan/dev0-ts0/aicore_freq", O_WRONLY);
		CHECK(fq >= 0 && write(fq, "1800\n", 5) == 5, "setting 1800 MHz back");
		if (fq >= 0)
			close(fq);
	}

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
	logic_cq();
	CHECK(halDeviceClose(0, &cin) == DRV_ERROR_NONE, "halDeviceClose");
	CHECK(halDeviceClose(0, &cin) == DRV_ERROR_UNINIT, "a second halDeviceClose");
	if (failures)
		return 1;
	printf("hal_test: ok\n");
	return 0;
}
