/*
 * npusim_test — in-VM tests of the simulated NPU driver through its real
 * ioctl interface. Run as `npusim_test CASE`; each case prints PASS/FAIL and
 * exits 0 on success. tests/vm/run.sh loads the module and runs the cases.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "npusim_dev.h"
#include "profiling/npuprof_ext.h"

static int failures;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "  FAIL: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	failures++;
}

#define CHECK(cond, ...)                   \
	do {                               \
		if (!(cond))               \
			fail(__VA_ARGS__); \
	} while (0)

#define MUST(expr)                                                                       \
	do {                                                                             \
		int r_ = (expr);                                                         \
		if (r_ < 0) {                                                            \
			fail("%s:%d %s = %s", __FILE__, __LINE__, #expr, strerror(-r_)); \
			exit(1);                                                         \
		}                                                                        \
	} while (0)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int open_dev(unsigned int d)
{
	int fd = npusim_dev_open(d);

	if (fd < 0) {
		fail("open /dev/npusim%u: %s", d, strerror(-fd));
		exit(1);
	}
	return fd;
}

/* An AI Core kernel as the 910B runtime writes it (FFTS, AIC only), and
 * npusim's model of it in *m: dur_ns. */
static void kernel_sqe(struct npusim_sqe *q, struct npusim_task_model *m, uint32_t sid,
		       uint16_t task, uint64_t dur_ns)
{
	npusim_sqe_init(q, NPUSIM_SQE_AI_CORE, sid, task);
	q->u.ffts.ffts_type = NPUSIM_FFTS_AIC_ONLY;
	q->block_dim = 8;
	memset(m, 0, sizeof(*m));
	m->duration_ns = dur_ns;
}

/* Receive exactly n CQEs of one stream, checking task ids run in order. */
static int recv_in_order(int fd, uint32_t sid, uint32_t n, uint16_t first_task, int timeout_ms)
{
	struct npusim_cqe cq[256];
	uint32_t got = 0;
	uint16_t want = first_task;

	while (got < n) {
		uint32_t cap = n - got < 256 ? n - got : 256;
		int r = npusim_cq_recv(fd, sid, cq, cap, timeout_ms);

		if (r < 0) {
			fail("cq_recv stream %u after %u/%u: %s", sid, got, n, strerror(-r));
			return -1;
		}
		for (int i = 0; i < r; i++, want++) {
			if (cq[i].task_id != want || (cq[i].stream_id & ~NPUSIM_CQE_MATCH) != sid) {
				fail("stream %u: CQE %u has task %u stream %u, want task %u", sid,
				     got + i, cq[i].task_id, cq[i].stream_id, want);
				return -1;
			}
		}
		got += r;
	}
	return 0;
}

/* ---- cases ---------------------------------------------------------------- */

/* Thousands of tasks over several streams on every device, per-stream order. */
static void case_order(void)
{
	enum {
		NSTREAM = 4,
		NTASK = 1500,
		BATCH = 100
	};
	int ndev = npusim_dev_count();
	int fds[NPUSIM_MAX_DEVICES];
	uint32_t sids[NPUSIM_MAX_DEVICES][NSTREAM];
	struct npusim_sqe q[BATCH];
	struct npusim_task_model m[BATCH];

	CHECK(ndev >= 2, "expected >= 2 devices, found %d", ndev);
	for (int d = 0; d < ndev; d++) {
		fds[d] = open_dev(d);
		for (int s = 0; s < NSTREAM; s++)
			MUST(npusim_stream_create(fds[d], &sids[d][s]));
	}
	for (int t = 0; t < NTASK; t += BATCH) {
		for (int d = 0; d < ndev; d++)
			for (int s = 0; s < NSTREAM; s++) {
				for (int i = 0; i < BATCH; i++) {
					static const unsigned types[] = {
						NPUSIM_SQE_AI_CORE,	NPUSIM_SQE_AIV,
						NPUSIM_SQE_AI_CPU,	NPUSIM_SQE_SDMA,
						NPUSIM_SQE_WRITE_VALUE, NPUSIM_SQE_PLACE_HOLDER
					};
					npusim_sqe_init(&q[i], types[(t + i) % 6], sids[d][s],
							t + i);
					memset(&m[i], 0, sizeof(m[i]));
					m[i].duration_ns = 2000 + (i % 7) * 1000;
					q[i].block_dim = 1 + (i % 40);
					if (types[(t + i) % 6] == NPUSIM_SQE_SDMA)
						npusim_sqe_set_sdma(&q[i], 4096, 0, 0);
				}
				MUST(npusim_sq_send_model(fds[d], sids[d][s], q, m, BATCH, -1,
							  NULL));
			}
		for (int d = 0; d < ndev; d++)
			for (int s = 0; s < NSTREAM; s++)
				if (recv_in_order(fds[d], sids[d][s], BATCH, t, 5000))
					return;
	}
	for (int d = 0; d < ndev; d++) {
		for (int s = 0; s < NSTREAM; s++) {
			struct npusim_stream_status st;

			MUST(npusim_stream_status(fds[d], sids[d][s], &st));
			CHECK(st.completed == NTASK && st.queued == 0 && st.cq_overflow == 0,
			      "dev %d stream %u: completed %llu queued %u overflow %llu", d,
			      sids[d][s], (unsigned long long)st.completed, st.queued,
			      (unsigned long long)st.cq_overflow);
			MUST(npusim_stream_destroy(fds[d], sids[d][s], 0, 1000));
		}
		close(fds[d]);
	}
}

/* Modelled durations: wall time and device-counter deltas. */
/* one clock sample whose two reads are known to be close: of 8 taken back
 * to back, the one with the smallest gap to the next */
static int tight_clock_sample(int fd, struct npusim_clock_sample *out)
{
	struct npusim_clock_sample cs[8];
	uint64_t best = UINT64_MAX;

	if (npusim_clock_sync(fd, cs, 8) < 0)
		return -1;
	for (int i = 0; i + 1 < 8; i++)
		if (cs[i + 1].host_ns - cs[i].host_ns < best) {
			best = cs[i + 1].host_ns - cs[i].host_ns;
			*out = cs[i];
		}
	return 0;
}

static void case_durations(void)
{
	int fd = open_dev(0);
	struct npusim_dev_info info;
	struct npusim_sqe q[41];
	struct npusim_task_model m[41];
	struct npusim_cqe cq[41];
	uint32_t sid;
	const uint64_t dur = 5000000; /* 5 ms */
	uint64_t t0, wall;
	int n = 0;

	MUST(npusim_dev_info(fd, &info));
	CHECK(strcmp(info.chip_name, "Ascend910B") == 0, "chip %s", info.chip_name);
	CHECK(info.abi_version == NPUSIM_ABI_VERSION, "abi %u", info.abi_version);
	/* the module's aicore_mhz, a 910B's rated 1800 MHz by default */
	CHECK(info.aicore_mhz == 1800, "aicore_mhz %u", info.aicore_mhz);
	MUST(npusim_stream_create(fd, &sid));
	memset(m, 0, sizeof(m));
	/* PH, then 20 x (5 ms kernel, PH): PH CQEs carry the device counter;
	 * the 5 ms come from the model channel, never from the SQE */
	npusim_sqe_init(&q[n], NPUSIM_SQE_PLACE_HOLDER, sid, n);
	n++;
	for (int i = 0; i < 20; i++) {
		kernel_sqe(&q[n], &m[n], sid, n, dur);
		n++;
		npusim_sqe_init(&q[n], NPUSIM_SQE_PLACE_HOLDER, sid, n);
		n++;
	}
	t0 = now_ns();
	MUST(npusim_sq_send_model(fd, sid, q, m, n, -1, NULL));
	MUST(npusim_stream_sync(fd, sid, 10000));
	wall = now_ns() - t0;
	CHECK(wall >= 20 * dur && wall < 20 * dur * 3, "20 x 5 ms took %llu ns",
	      (unsigned long long)wall);
	int got = 0;
	while (got < n) {
		int r = npusim_cq_recv(fd, sid, cq + got, n - got, 1000);
		if (r < 0) {
			fail("recv: %s", strerror(-r));
			return;
		}
		got += r;
	}
	uint64_t per_tick = 1000000000ULL / info.counter_hz;
	/* kernel + PH (1 us) + scheduling latency: never shorter than the
	 * kernel; a loaded host delays a completion now and then, so the
	 * typical (median) one must be within half a task of it */
	uint64_t span[20];
	int ns = 0;

	for (int i = 2; i < n; i += 2) {
		uint64_t d = (cq[i].syscnt - cq[i - 2].syscnt) * per_tick;

		CHECK(cq[i].flags & NPUSIM_CQE_PLACE_HOLD, "PH flag missing");
		CHECK(d >= dur, "device time across a 5 ms task: %llu ns", (unsigned long long)d);
		if (ns < 20)
			span[ns++] = d;
	}
	for (int i = 1; i < ns; i++)
		for (int j = i; j > 0 && span[j - 1] > span[j]; j--) {
			uint64_t t = span[j];

			span[j] = span[j - 1];
			span[j - 1] = t;
		}
	CHECK(ns > 0 && span[ns / 2] < dur + dur / 2,
	      "median device time across a 5 ms task: %llu ns",
	      (unsigned long long)(ns ? span[ns / 2] : 0));
	/* clock sync: counter tracks host time at counter_hz. A vCPU the host
	 * deschedules between a sample's two reads skews that sample, so each
	 * end uses the sample whose window to the next one is the tightest */
	struct npusim_clock_sample cs[2];
	MUST(tight_clock_sample(fd, &cs[0]));
	usleep(200000);
	MUST(tight_clock_sample(fd, &cs[1]));
	double ratio = (double)(cs[1].dev_cnt - cs[0].dev_cnt) * 1e9 / info.counter_hz /
		       (double)(cs[1].host_ns - cs[0].host_ns);
	CHECK(ratio > 0.999 && ratio < 1.001, "counter/host rate %f", ratio);
	close(fd);
}

/* Event (cross-stream) and notify (cross-device) dependencies. */
static void case_deps(void)
{
	int fd0 = open_dev(0), fd1 = open_dev(1);
	uint32_t a, b, c, ev, nt;
	struct npusim_sqe q[2];
	struct npusim_task_model m[2];
	struct npusim_cqe cq[2];
	struct npusim_stream_status st;

	MUST(npusim_stream_create(fd0, &a));
	MUST(npusim_stream_create(fd0, &b));
	MUST(npusim_stream_create(fd1, &c));
	MUST(npusim_id_alloc(fd0, NPUSIM_ID_EVENT, &ev));
	MUST(npusim_id_alloc(fd1, NPUSIM_ID_NOTIFY, &nt));

	/* stream b waits for an event that stream a records after 50 ms */
	npusim_sqe_init(&q[0], NPUSIM_SQE_EVENT_WAIT, b, 0);
	npusim_sqe_set_sync_id(&q[0], ev);
	npusim_sqe_init(&q[1], NPUSIM_SQE_PLACE_HOLDER, b, 1);
	uint64_t t0 = now_ns();
	MUST(npusim_sq_send(fd0, b, q, 2, -1, NULL));
	usleep(20000);
	MUST(npusim_stream_status(fd0, b, &st));
	CHECK(st.queued == 2 && !st.running, "event wait did not block: queued %u running %u",
	      st.queued, st.running);
	kernel_sqe(&q[0], &m[0], a, 0, 50000000);
	npusim_sqe_init(&q[1], NPUSIM_SQE_EVENT_RECORD, a, 1);
	npusim_sqe_set_sync_id(&q[1], ev);
	memset(&m[1], 0, sizeof(m[1]));
	MUST(npusim_sq_send_model(fd0, a, q, m, 2, -1, NULL));
	MUST(npusim_stream_sync(fd0, b, 5000));
	uint64_t waited = now_ns() - t0;
	CHECK(waited >= 70000000ULL, "b finished after %llu ns, before a's record",
	      (unsigned long long)waited);
	MUST(npusim_stream_sync(fd0, a, 5000));
	/* the record's CQE (evt) precedes b's place holder in device time */
	CHECK(npusim_cq_recv(fd0, a, cq, 2, 1000) == 2, "a CQEs");
	uint64_t rec_cnt = cq[1].syscnt;
	CHECK(cq[1].flags & NPUSIM_CQE_EVT, "EVENT_RECORD CQE lacks evt flag");
	CHECK(npusim_cq_recv(fd0, b, cq, 2, 1000) == 2, "b CQEs");
	CHECK(cq[1].syscnt >= rec_cnt, "b ran before the record");

	/* device 1 waits on a notify that device 0 records after 30 ms */
	npusim_sqe_init(&q[0], NPUSIM_SQE_NOTIFY_WAIT, c, 0);
	npusim_sqe_set_sync_id(&q[0], nt);
	npusim_sqe_init(&q[1], NPUSIM_SQE_PLACE_HOLDER, c, 1);
	t0 = now_ns();
	MUST(npusim_sq_send(fd1, c, q, 2, -1, NULL));
	usleep(10000);
	MUST(npusim_stream_status(fd1, c, &st));
	CHECK(st.queued == 2, "notify wait did not block");
	kernel_sqe(&q[0], &m[0], a, 2, 30000000);
	npusim_sqe_init(&q[1], NPUSIM_SQE_NOTIFY_RECORD, a, 3);
	npusim_sqe_set_sync_id(&q[1], nt);
	memset(&m[1], 0, sizeof(m[1]));
	m[1].target_dev = NPUSIM_TARGET_DEV(1);
	MUST(npusim_sq_send_model(fd0, a, q, m, 2, -1, NULL));
	MUST(npusim_stream_sync(fd1, c, 5000));
	CHECK(now_ns() - t0 >= 40000000ULL, "notify wait released early");

	MUST(npusim_id_free(fd0, NPUSIM_ID_EVENT, ev));
	CHECK(npusim_id_free(fd0, NPUSIM_ID_EVENT, ev) == -EINVAL, "double id free accepted");
	close(fd0);
	close(fd1);
}

/* Event ids a file shares (NPUSIM_IOC_SHR_ID): the owner names one by its
 * generation; another file opens it and keeps it allocated past the
 * owner's free; records are counted in flight device-wide
 * (NPUSIM_IOC_EVENT_STATUS); a wait on device 1 for device 0's event (the
 * model's target) blocks until the record has run. */
static uint32_t pending_after(int fd, uint32_t ev, uint32_t want)
{
	struct npusim_event_status es;

	for (int i = 0; i < 200; i++) {
		MUST(npusim_event_status(fd, ev, &es));
		if (es.pending == want)
			break;
		usleep(1000);
	}
	return es.pending;
}

static void case_shared_events(void)
{
	int fd0 = open_dev(0), fd0b = open_dev(0), fd1 = open_dev(1);
	uint32_t a, c, ev, other, gen = 0, g;
	struct npusim_sqe q[2];
	struct npusim_task_model m[2];
	struct npusim_event_status es;

	MUST(npusim_stream_create(fd0, &a));
	MUST(npusim_stream_create(fd1, &c));
	MUST(npusim_id_alloc(fd0, NPUSIM_ID_EVENT, &ev));
	MUST(npusim_event_status(fd1, ev, &es)); /* any file reads its device's */
	MUST(npusim_event_status(fd0b, ev, &es));
	CHECK(es.pending == 0 && es.set == 0, "fresh event: pending %u set %u", es.pending, es.set);
	CHECK(npusim_event_status(fd0, NPUSIM_MAX_EVENTS, &es) == -EINVAL, "status of id max");
	g = 0;
	CHECK(npusim_shr_id(fd0b, NPUSIM_SHR_OPEN, NPUSIM_ID_EVENT, ev, &g) == -ENOENT,
	      "opened before it was shared");
	CHECK(npusim_shr_id(fd0b, NPUSIM_SHR_CREATE, NPUSIM_ID_EVENT, ev, &g) == -EINVAL,
	      "shared by a file that does not own it");
	CHECK(npusim_shr_id(fd0, NPUSIM_SHR_CREATE, NPUSIM_ID_NOTIFY, ev, &g) == -EINVAL,
	      "a notify shared");
	MUST(npusim_shr_id(fd0, NPUSIM_SHR_CREATE, NPUSIM_ID_EVENT, ev, &gen));
	g = gen + 1;
	CHECK(npusim_shr_id(fd0b, NPUSIM_SHR_OPEN, NPUSIM_ID_EVENT, ev, &g) == -ENOENT,
	      "opened under another generation");
	g = gen;
	MUST(npusim_shr_id(fd0b, NPUSIM_SHR_OPEN, NPUSIM_ID_EVENT, ev, &g));
	CHECK(npusim_shr_id(fd0b, NPUSIM_SHR_OPEN, NPUSIM_ID_EVENT, ev, &g) == -EEXIST,
	      "opened twice by one file");

	/* device 0 records after 50 ms: in flight until then */
	kernel_sqe(&q[0], &m[0], a, 0, 50000000);
	npusim_sqe_init(&q[1], NPUSIM_SQE_EVENT_RECORD, a, 1);
	npusim_sqe_set_sync_id(&q[1], ev);
	memset(&m[1], 0, sizeof(m[1]));
	uint64_t t0 = now_ns();
	MUST(npusim_sq_send_model(fd0, a, q, m, 2, -1, NULL));
	CHECK(pending_after(fd0b, ev, 1) == 1, "record not in flight");
	/* device 1 waits for device 0's event */
	npusim_sqe_init(&q[0], NPUSIM_SQE_EVENT_WAIT, c, 0);
	npusim_sqe_set_sync_id(&q[0], ev);
	memset(&m[0], 0, sizeof(m[0]));
	m[0].target_dev = NPUSIM_TARGET_DEV(0);
	MUST(npusim_sq_send_model(fd1, c, q, m, 1, -1, NULL));
	MUST(npusim_stream_sync(fd1, c, 5000));
	CHECK(now_ns() - t0 >= 45000000ULL, "device 1's wait released before device 0's record");
	MUST(npusim_event_status(fd0, ev, &es));
	CHECK(es.pending == 0 && es.set == 0, "after record and wait: pending %u set %u",
	      es.pending, es.set);
	/* a target past the devices is refused */
	m[0].target_dev = NPUSIM_MAX_DEVICES + 1;
	CHECK(npusim_sq_send_model(fd1, c, q, m, 1, -1, NULL) == -EINVAL,
	      "a wait on a device that is not there");

	/* the owner frees it: the opener keeps it allocated */
	MUST(npusim_id_free(fd0, NPUSIM_ID_EVENT, ev));
	MUST(npusim_id_alloc(fd0, NPUSIM_ID_EVENT, &other));
	CHECK(other != ev, "an opened event's id given again (%u)", other);
	MUST(npusim_id_free(fd0, NPUSIM_ID_EVENT, other));
	g = gen;
	CHECK(npusim_shr_id(fd1, NPUSIM_SHR_OPEN, NPUSIM_ID_EVENT, ev, &g) == -ENOENT,
	      "opened after its owner freed it");
	MUST(npusim_shr_id(fd0b, NPUSIM_SHR_CLOSE, NPUSIM_ID_EVENT, ev, &g));
	CHECK(npusim_shr_id(fd0b, NPUSIM_SHR_CLOSE, NPUSIM_ID_EVENT, ev, &g) == -ENOENT,
	      "closed twice");
	/* the last close freed it: given again, under a new generation */
	MUST(npusim_id_alloc(fd0, NPUSIM_ID_EVENT, &other));
	CHECK(other == ev, "event %u not freed by its last close (got %u)", ev, other);
	MUST(npusim_shr_id(fd0, NPUSIM_SHR_CREATE, NPUSIM_ID_EVENT, ev, &g));
	CHECK(g != gen, "the same generation after a new allocation");
	gen = g;
	g = gen - 1;
	CHECK(npusim_shr_id(fd0b, NPUSIM_SHR_OPEN, NPUSIM_ID_EVENT, ev, &g) == -ENOENT,
	      "an old name opened the new allocation");
	/* an opener's exit (the close of its file) drops its open */
	g = gen;
	MUST(npusim_shr_id(fd0b, NPUSIM_SHR_OPEN, NPUSIM_ID_EVENT, ev, &g));
	MUST(npusim_id_free(fd0, NPUSIM_ID_EVENT, ev));
	close(fd0b);
	MUST(npusim_id_alloc(fd0, NPUSIM_ID_EVENT, &other));
	CHECK(other == ev, "event %u not freed by its opener's exit (got %u)", ev, other);
	close(fd0);
	close(fd1);
}

/*
 * Real STARS payloads of every type npusim models, as the 910B runtime
 * writes them (FFTS kernels marked AIC / AIV / mix, a MarkEx place holder,
 * PCIE_DMA and COND), sent without any model: all are taken and run, in
 * order, each for its type's default; the PCIE_DMA's time comes from the
 * length in its payload (200 MB at sdma_mbps 20000: 10 ms).
 */
static void case_payloads(void)
{
	int fd = open_dev(0);
	struct npusim_sqe q[16];
	uint32_t sid, ev, nt;
	uint64_t t0, wall;
	int n = 0;

	MUST(npusim_stream_create(fd, &sid));
	MUST(npusim_id_alloc(fd, NPUSIM_ID_EVENT, &ev));
	MUST(npusim_id_alloc(fd, NPUSIM_ID_NOTIFY, &nt));
	static const uint16_t ffts[] = { NPUSIM_FFTS_AIC_ONLY, NPUSIM_FFTS_AIV_ONLY,
					 NPUSIM_FFTS_AIC_AIV_MIX };
	for (int i = 0; i < 3; i++, n++) {
		npusim_sqe_init(&q[n], NPUSIM_SQE_AI_CORE, sid, n);
		q[n].block_dim = 24;
		q[n].u.ffts.ffts_type = ffts[i];
		q[n].u.ffts.kernel_credit = 255;
		q[n].u.ffts.pc_lo = 0x12340000;
		q[n].u.ffts.pc_hi = 0x12;
		q[n].u.ffts.param_lo = 0x56780000;
		q[n].u.ffts.param_hi = 0x12;
	}
	npusim_sqe_init(&q[n], NPUSIM_SQE_AI_CPU, sid, n);
	n++;
	npusim_sqe_init(&q[n], NPUSIM_SQE_PLACE_HOLDER, sid, n);
	q[n].block_dim = NPUSIM_PH_TASK_PROFILER_TRACE_EX;
	q[n].u.ph.trace.trace_id = 77;
	q[n].u.ph.trace.tag_id = NPUPROF_EXT_TRACE_MARK;
	n++;
	npusim_sqe_init(&q[n], NPUSIM_SQE_EVENT_RECORD, sid, n);
	npusim_sqe_set_sync_id(&q[n++], ev);
	npusim_sqe_init(&q[n], NPUSIM_SQE_EVENT_WAIT, sid, n);
	npusim_sqe_set_sync_id(&q[n], ev);
	q[n++].u.event.timeout = 1000;
	npusim_sqe_init(&q[n], NPUSIM_SQE_NOTIFY_RECORD, sid, n);
	npusim_sqe_set_sync_id(&q[n++], nt);
	npusim_sqe_init(&q[n], NPUSIM_SQE_NOTIFY_WAIT, sid, n);
	npusim_sqe_set_sync_id(&q[n++], nt);
	npusim_sqe_init(&q[n], NPUSIM_SQE_WRITE_VALUE, sid, n);
	q[n].u.write_value.addr_lo = 0x1000;
	q[n].u.write_value.addr_hi = 0x80000000; /* va */
	q[n++].u.write_value.value[0] = 1;
	npusim_sqe_init(&q[n], NPUSIM_SQE_SDMA, sid, n);
	npusim_sqe_set_sdma(&q[n++], 4096, 0x100000000ULL, 0x200000000ULL);
	npusim_sqe_init(&q[n], NPUSIM_SQE_PCIE_DMA, sid, n);
	q[n].u.pcie_dma.src = 0x300000000ULL;
	q[n].u.pcie_dma.dst = 0x400000000ULL;
	q[n++].u.pcie_dma.length = 200000000;
	npusim_sqe_init(&q[n], NPUSIM_SQE_COND, sid, n);
	q[n].u.cond.conds_sub_type = 1;
	q[n].u.cond.csc = 0x80;
	q[n++].u.cond.ops[0] = 0x13; /* a nop */
	t0 = now_ns();
	MUST(npusim_sq_send(fd, sid, q, n, -1, NULL));
	MUST(npusim_stream_sync(fd, sid, 5000));
	wall = now_ns() - t0;
	CHECK(wall >= 10000000ULL, "the 200 MB PCIE_DMA took %llu ns, want >= 10 ms",
	      (unsigned long long)wall);
	if (recv_in_order(fd, sid, n, 0, 1000) == 0) {
		struct npusim_stream_status st;

		MUST(npusim_stream_status(fd, sid, &st));
		CHECK(st.completed == (uint64_t)n, "completed %llu of %d",
		      (unsigned long long)st.completed, n);
	}
	close(fd);
}

/* 70,000 tasks on one stream: the 16-bit task id wraps. */
static void case_wrap(void)
{
	enum {
		N = 70000,
		BATCH = 500
	};
	int fd = open_dev(0);
	struct npusim_sqe q[BATCH];
	uint32_t sid;

	MUST(npusim_stream_create(fd, &sid));
	for (uint32_t t = 0; t < N; t += BATCH) {
		for (int i = 0; i < BATCH; i++)
			npusim_sqe_init(&q[i], NPUSIM_SQE_AIV, sid, (uint16_t)(t + i));
		MUST(npusim_sq_send(fd, sid, q, BATCH, -1, NULL));
		if (recv_in_order(fd, sid, BATCH, (uint16_t)t, 5000))
			return;
	}
	struct npusim_stream_status st;
	MUST(npusim_stream_status(fd, sid, &st));
	CHECK(st.completed == N, "completed %llu", (unsigned long long)st.completed);
	close(fd);
}

static int raw_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

#define EXPECT_ERR(call, err)                                               \
	do {                                                                \
		int r_ = (call);                                            \
		CHECK(r_ == -(err), "%s: got %d (%s), want -%s", #call, r_, \
		      r_ < 0 ? strerror(-r_) : "ok", #err);                 \
	} while (0)

static void on_alarm(int sig)
{
	(void)sig;
}

/* Invalid ioctls get the right errno; a random loop does no harm. */
static void case_badioctl(void)
{
	int fd = open_dev(0);
	uint32_t sid;
	struct npusim_sqe q;
	struct npusim_cqe cq;

	EXPECT_ERR(raw_ioctl(fd, _IO('x', 1), NULL), ENOTTY);
	EXPECT_ERR(raw_ioctl(fd, _IOR(NPUSIM_IOC_MAGIC, 99, int), NULL), ENOTTY);
	EXPECT_ERR(raw_ioctl(fd, NPUSIM_IOC_DEV_INFO, NULL), EFAULT);
	EXPECT_ERR(raw_ioctl(fd, NPUSIM_IOC_DEV_INFO, (void *)8), EFAULT);
	EXPECT_ERR(raw_ioctl(fd, NPUSIM_IOC_STREAM_CREATE, NULL), EFAULT);
	struct npusim_stream_create sc = { .flags = 7 };
	EXPECT_ERR(raw_ioctl(fd, NPUSIM_IOC_STREAM_CREATE, &sc), EINVAL);
	MUST(npusim_stream_create(fd, &sid));
	/* unknown stream, wrong stream in SQE, bad type, count, reserved */
	npusim_sqe_init(&q, NPUSIM_SQE_AI_CORE, sid, 0);
	EXPECT_ERR(npusim_sq_send(fd, sid + 1, &q, 1, 0, NULL), EINVAL);
	EXPECT_ERR(npusim_sq_send(fd, 5000, &q, 1, 0, NULL), EINVAL);
	q.stream_id = sid + 1;
	EXPECT_ERR(npusim_sq_send(fd, sid, &q, 1, 0, NULL), EINVAL);
	/* a type past the STARS v1 range, or one npusim does not model */
	npusim_sqe_init(&q, 63, sid, 0);
	EXPECT_ERR(npusim_sq_send(fd, sid, &q, 1, 0, NULL), EINVAL);
	npusim_sqe_init(&q, NPUSIM_SQE_TYPE_END, sid, 0);
	EXPECT_ERR(npusim_sq_send(fd, sid, &q, 1, 0, NULL), EINVAL);
	npusim_sqe_init(&q, 12 /* VPC */, sid, 0);
	EXPECT_ERR(npusim_sq_send(fd, sid, &q, 1, 0, NULL), EINVAL);
	/* payloads naming what the device has not */
	npusim_sqe_init(&q, NPUSIM_SQE_EVENT_WAIT, sid, 0);
	npusim_sqe_set_sync_id(&q, NPUSIM_MAX_EVENTS);
	EXPECT_ERR(npusim_sq_send(fd, sid, &q, 1, 0, NULL), EINVAL);
	npusim_sqe_init(&q, NPUSIM_SQE_NOTIFY_WAIT, sid, 0);
	npusim_sqe_set_sync_id(&q, NPUSIM_MAX_NOTIFIES);
	EXPECT_ERR(npusim_sq_send(fd, sid, &q, 1, 0, NULL), EINVAL);
	npusim_sqe_init(&q, NPUSIM_SQE_PCIE_DMA, sid, 0);
	q.u.pcie_dma.length = (1ULL << 40) + 1;
	EXPECT_ERR(npusim_sq_send(fd, sid, &q, 1, 0, NULL), EINVAL);
	/* the model: out of range, unknown bits, reserved, a bad target */
	{
		static const struct {
			unsigned type;
			struct npusim_task_model m;
		} bad[] = {
			{ NPUSIM_SQE_AI_CORE, { .duration_ns = NPUSIM_MAX_TASK_NS + 1 } },
			{ NPUSIM_SQE_AI_CORE, { .jitter_pm = 1001 } },
			{ NPUSIM_SQE_AI_CORE, { .kind = NPUSIM_KERNEL_MIX_AIV + 1 } },
			{ NPUSIM_SQE_AI_CORE, { .rsv = 1 } },
			{ NPUSIM_SQE_NOTIFY_RECORD,
			  { .target_dev = NPUSIM_TARGET_DEV(NPUSIM_MAX_DEVICES) } },
		};

		for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			npusim_sqe_init(&q, bad[i].type, sid, 0);
			EXPECT_ERR(npusim_sq_send_model(fd, sid, &q, &bad[i].m, 1, 0, NULL),
				   EINVAL);
		}
		npusim_sqe_init(&q, NPUSIM_SQE_AI_CORE, sid, 0);
		EXPECT_ERR(npusim_sq_send_model(fd, sid, &q, (void *)-4096L, 1, 0, NULL), EFAULT);
		/* the send's reserved words */
		struct npusim_sq_send ss = { .stream_id = sid,
					     .sqe_num = 1,
					     .sqe_addr = (uint64_t)(uintptr_t)&q };
		ss.rsv[1] = 1;
		EXPECT_ERR(raw_ioctl(fd, NPUSIM_IOC_SQ_SEND, &ss), EINVAL);
	}
	npusim_sqe_init(&q, NPUSIM_SQE_AI_CORE, sid, 0);
	EXPECT_ERR(npusim_sq_send(fd, sid, &q, 0, 0, NULL), EINVAL);
	EXPECT_ERR(npusim_sq_send(fd, sid, &q, NPUSIM_SEND_MAX + 1, 0, NULL), EINVAL);
	EXPECT_ERR(npusim_sq_send(fd, sid, NULL, 1, 0, NULL), EFAULT);
	EXPECT_ERR(npusim_sq_send(fd, sid, (void *)-4096L, 1, 0, NULL), EFAULT);
	/* recv: bad buffer, bad count, timeout with nothing */
	EXPECT_ERR(npusim_cq_recv(fd, sid, NULL, 1, 0), EFAULT);
	EXPECT_ERR(npusim_cq_recv(fd, sid, &cq, 0, 0), EINVAL);
	EXPECT_ERR(npusim_cq_recv(fd, 4242, &cq, 1, 0), EINVAL);
	CHECK(npusim_cq_recv(fd, sid, &cq, 1, 0) == 0, "poll on empty CQ");
	EXPECT_ERR(npusim_cq_recv(fd, sid, &cq, 1, 20), ETIMEDOUT);
	/* a CQE whose copy-out fails stays in the CQ */
	npusim_sqe_init(&q, NPUSIM_SQE_PLACE_HOLDER, sid, 9);
	MUST(npusim_sq_send(fd, sid, &q, 1, 0, NULL));
	MUST(npusim_stream_sync(fd, sid, 1000));
	EXPECT_ERR(npusim_cq_recv(fd, sid, (void *)8, 1, 0), EFAULT);
	CHECK(npusim_cq_recv(fd, sid, &cq, 1, 0) == 1 && cq.task_id == 9,
	      "CQE lost after a faulting receive");
	/* SQ full: fail at once with EBUSY, or ETIMEDOUT after waiting */
	{
		struct npusim_dev_info info;
		MUST(npusim_dev_info(fd, &info));
		static struct npusim_sqe big[NPUSIM_SEND_MAX];
		static struct npusim_task_model bigm[NPUSIM_SEND_MAX];
		uint32_t n = info.sq_depth < NPUSIM_SEND_MAX ? info.sq_depth : NPUSIM_SEND_MAX;
		for (uint32_t i = 0; i < n; i++) {
			kernel_sqe(&big[i], &bigm[i], sid, i, 1000000);
		}
		uint32_t sent = 0;
		while (sent + n <= info.sq_depth) {
			MUST(npusim_sq_send_model(fd, sid, big, bigm, n, 0, NULL));
			sent += n;
		}
		EXPECT_ERR(npusim_sq_send(fd, sid, big, n, 0, NULL), EBUSY);
		EXPECT_ERR(npusim_sq_send(fd, sid, big, n, 10, NULL), ETIMEDOUT);
		EXPECT_ERR(npusim_stream_sync(fd, sid, 10), ETIMEDOUT);
		EXPECT_ERR(npusim_stream_destroy(fd, sid, 0, 10), EBUSY);
		EXPECT_ERR(npusim_stream_destroy(fd, sid, 8, 10), EINVAL);
		MUST(npusim_stream_destroy(fd, sid, NPUSIM_DESTROY_CANCEL, 0));
		EXPECT_ERR(npusim_stream_sync(fd, sid, 0), EINVAL);
	}
	struct npusim_id id = { .kind = 7 };
	EXPECT_ERR(raw_ioctl(fd, NPUSIM_IOC_ID_ALLOC, &id), EINVAL);
	EXPECT_ERR(npusim_id_free(fd, NPUSIM_ID_NOTIFY, 3), EINVAL);
	struct npusim_clock_sync cs = { .count = 0 };
	EXPECT_ERR(raw_ioctl(fd, NPUSIM_IOC_CLOCK_SYNC, &cs), EINVAL);
	cs.count = NPUSIM_CLOCK_SAMPLES_MAX + 1;
	EXPECT_ERR(raw_ioctl(fd, NPUSIM_IOC_CLOCK_SYNC, &cs), EINVAL);
	/* another file cannot use this file's streams */
	{
		int fd2 = open_dev(0);
		uint32_t s2;
		MUST(npusim_stream_create(fd, &s2));
		npusim_sqe_init(&q, NPUSIM_SQE_AI_CORE, s2, 0);
		EXPECT_ERR(npusim_sq_send(fd2, s2, &q, 1, 0, NULL), EINVAL);
		EXPECT_ERR(npusim_stream_destroy(fd2, s2, 0, 0), EINVAL);
		close(fd2);
	}

	/* random commands and arguments; a 20 ms interval timer breaks waits */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm; /* no SA_RESTART */
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
	setitimer(ITIMER_REAL, &it, NULL);
	static unsigned char buf[65536];
	unsigned int seed = 12345;
	const unsigned long cmds[] = {
		NPUSIM_IOC_DEV_INFO,	  NPUSIM_IOC_STREAM_CREATE, NPUSIM_IOC_STREAM_DESTROY,
		NPUSIM_IOC_SQ_SEND,	  NPUSIM_IOC_CQ_RECV,	    NPUSIM_IOC_STREAM_SYNC,
		NPUSIM_IOC_CLOCK_SYNC,	  NPUSIM_IOC_ID_ALLOC,	    NPUSIM_IOC_ID_FREE,
		NPUSIM_IOC_STREAM_STATUS, NPUSIM_IOC_ID_RECORD,	    NPUSIM_IOC_SHR_ID,
		NPUSIM_IOC_EVENT_STATUS,
	};
	for (int i = 0; i < 20000; i++) {
		unsigned long cmd;
		void *arg;
		unsigned int k = rand_r(&seed);

		if (k % 8 == 0)
			cmd = (unsigned long)rand_r(&seed) << 1 ^ rand_r(&seed);
		else
			cmd = cmds[k % (sizeof(cmds) / sizeof(cmds[0]))];
		for (size_t j = 0; j < 256; j++)
			buf[j] = rand_r(&seed);
		/* small ids and counts now and then, so deeper paths run */
		if (k % 3 == 0) {
			memset(buf, 0, 64);
			buf[0] = rand_r(&seed) % 4;
			buf[4] = rand_r(&seed) % 4;
		}
		switch (rand_r(&seed) % 4) {
		case 0: arg = NULL; break;
		case 1: arg = (void *)(uintptr_t)rand_r(&seed); break;
		default: arg = buf;
		}
		int r = ioctl(fd, cmd, arg);
		if (r < 0 &&
		    (errno != EINVAL && errno != EFAULT && errno != ENOTTY && errno != EBUSY &&
		     errno != ETIMEDOUT && errno != EINTR && errno != ENOSPC && errno != ENOMEM &&
		     errno != ENOENT && errno != EEXIST)) {
			fail("random ioctl %#lx: unexpected errno %s", cmd, strerror(errno));
			break;
		}
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	/* the device still works afterwards */
	int fd3 = open_dev(0);
	MUST(npusim_stream_create(fd3, &sid));
	npusim_sqe_init(&q, NPUSIM_SQE_PLACE_HOLDER, sid, 1);
	MUST(npusim_sq_send(fd3, sid, &q, 1, -1, NULL));
	CHECK(npusim_cq_recv(fd3, sid, &cq, 1, 2000) == 1, "device dead after fuzz");
	close(fd3);
	close(fd);
}

/* Several threads (shared fd) and processes submit at once. */
struct worker {
	int fd;
	int dev;
	int ntask;
	int ok;
};

static void *worker_main(void *p)
{
	struct worker *w = p;
	struct npusim_sqe q[64];
	struct npusim_task_model m[64];
	uint32_t sid;

	w->ok = 0;
	if (npusim_stream_create(w->fd, &sid))
		return NULL;
	for (int t = 0; t < w->ntask; t += 64) {
		for (int i = 0; i < 64; i++) {
			kernel_sqe(&q[i], &m[i], sid, t + i, 3000);
			q[i].u.ffts.ffts_type = i % 2 ? NPUSIM_FFTS_AIV_ONLY : NPUSIM_FFTS_AIC_ONLY;
			q[i].block_dim = 16;
		}
		if (npusim_sq_send_model(w->fd, sid, q, m, 64, -1, NULL))
			return NULL;
		if (recv_in_order(w->fd, sid, 64, t, 10000))
			return NULL;
	}
	w->ok = npusim_stream_destroy(w->fd, sid, 0, 5000) == 0;
	return NULL;
}

static void case_concurrent(void)
{
	enum {
		NTHREAD = 8,
		NPROC = 4
	};
	pid_t pids[NPROC];

	for (int p = 0; p < NPROC; p++) {
		pids[p] = fork();
		if (pids[p] == 0) {
			struct worker w = { open_dev(p % 2), p % 2, 2048, 0 };
			pthread_t th[2];
			struct worker w2 = w;
			pthread_create(&th[0], NULL, worker_main, &w);
			pthread_create(&th[1], NULL, worker_main, &w2);
			pthread_join(th[0], NULL);
			pthread_join(th[1], NULL);
			_exit(w.ok && w2.ok ? 0 : 1);
		}
	}
	int fd = open_dev(0);
	pthread_t th[NTHREAD];
	struct worker w[NTHREAD];
	for (int i = 0; i < NTHREAD; i++) {
		w[i] = (struct worker){ fd, 0, 1024, 0 };
		pthread_create(&th[i], NULL, worker_main, &w[i]);
	}
	for (int i = 0; i < NTHREAD; i++) {
		pthread_join(th[i], NULL);
		CHECK(w[i].ok, "thread %d failed", i);
	}
	for (int p = 0; p < NPROC; p++) {
		int st;
		waitpid(pids[p], &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "process %d failed", p);
	}
	close(fd);
}

/* A process killed with tasks in flight is cleaned up. */
static void case_killed(void)
{
	int pipefd[2];
	pid_t pid;
	char c;

	if (pipe(pipefd))
		exit(1);
	pid = fork();
	if (pid == 0) {
		int fd0 = open_dev(0), fd1 = open_dev(1);
		static struct npusim_sqe q[200];
		static struct npusim_task_model m[200];
		uint32_t a, b, ev;

		MUST(npusim_stream_create(fd0, &a));
		MUST(npusim_stream_create(fd1, &b));
		MUST(npusim_id_alloc(fd1, NPUSIM_ID_EVENT, &ev));
		for (int i = 0; i < 200; i++)
			kernel_sqe(&q[i], &m[i], a, i, 10000000);
		MUST(npusim_sq_send_model(fd0, a, q, m, 200, -1, NULL));
		npusim_sqe_init(&q[0], NPUSIM_SQE_EVENT_WAIT, b, 0);
		npusim_sqe_set_sync_id(&q[0], ev);
		memset(&m[0], 0, sizeof(m[0]));
		for (int i = 1; i < 100; i++)
			kernel_sqe(&q[i], &m[i], b, i, 1000);
		MUST(npusim_sq_send_model(fd1, b, q, m, 100, -1, NULL));
		if (write(pipefd[1], "x", 1) != 1)
			_exit(2);
		for (;;)
			npusim_stream_sync(fd0, a, -1);
	}
	close(pipefd[1]);
	CHECK(read(pipefd[0], &c, 1) == 1, "child did not start");
	usleep(50000);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* the killed process's streams are gone from the device */
	for (int d = 0; d < 2; d++) {
		char path[64], line[256];
		snprintf(path, sizeof(path), "/proc/trs_chan/dev%d-ts0/summary", d);
		FILE *f = fopen(path, "r");
		int streams = 0;
		if (!f) {
			fail("open %s", path);
			continue;
		}
		while (fgets(line, sizeof(line), f))
			streams += strncmp(line, "stream ", 7) == 0;
		fclose(f);
		CHECK(streams == 0, "dev %d still has %d streams", d, streams);
	}
	/* and the freed resources are usable */
	int fd = open_dev(1);
	uint32_t ev;
	MUST(npusim_id_alloc(fd, NPUSIM_ID_EVENT, &ev));
	CHECK(ev == 0, "event id 0 not released (got %u)", ev);
	close(fd);
}

/* A known submission for the ftrace ABI check, in either CQE mode: prints
 * "stream <id>". */
static void case_known(void)
{
	int fd = open_dev(1);
	struct npusim_dev_info info;
	struct npusim_sqe q[3];
	struct npusim_task_model m[3];
	struct npusim_cqe cq[3];
	uint32_t sid;
	int n;

	MUST(npusim_stream_create(fd, &sid));
	memset(m, 0, sizeof(m));
	kernel_sqe(&q[0], &m[0], sid, 7, 10000);
	npusim_sqe_init(&q[1], NPUSIM_SQE_SDMA, sid, 8);
	npusim_sqe_set_sdma(&q[1], 1 << 20, 0x1000, 0x2000);
	npusim_sqe_init(&q[2], NPUSIM_SQE_PLACE_HOLDER, sid, 9);
	MUST(npusim_sq_send_model(fd, sid, q, m, 3, -1, NULL));
	MUST(npusim_stream_sync(fd, sid, 2000));
	MUST(npusim_dev_info(fd, &info));
	/* a 910B (cqe_mode=1) completes only the place holder with a CQE */
	n = npusim_cq_recv(fd, sid, cq, 3, 1000);
	CHECK(n == (info.cqe_mode ? 1 : 3), "%d CQEs (cqe_mode %u)", n, info.cqe_mode);
	CHECK(n < 1 || cq[n - 1].task_id == 9, "last CQE of task %u, not 9", cq[n - 1].task_id);
	printf("stream %u\n", sid);
	printf("pid %d mode %u\n", (int)getpid(), npusim_sq_mode(fd, sid));
	npusim_dev_close(fd);
}

/* cqe_mode=1: only wr_cqe, event-record and place-holder tasks complete
 * with a CQE; everything still runs and synchronises. */
static void case_cqe_realistic(void)
{
	int fd = open_dev(0);
	struct npusim_sqe q[5];
	struct npusim_task_model m[5];
	struct npusim_cqe cq[8];
	uint32_t sid, ev;

	MUST(npusim_stream_create(fd, &sid));
	MUST(npusim_id_alloc(fd, NPUSIM_ID_EVENT, &ev));
	memset(m, 0, sizeof(m));
	kernel_sqe(&q[0], &m[0], sid, 0, 1000);
	kernel_sqe(&q[1], &m[1], sid, 1, 1000);
	q[1].ctrl |= NPUSIM_SQE_CTRL_WR_CQE;
	npusim_sqe_init(&q[2], NPUSIM_SQE_EVENT_RECORD, sid, 2);
	npusim_sqe_set_sync_id(&q[2], ev);
	npusim_sqe_init(&q[3], NPUSIM_SQE_SDMA, sid, 3);
	npusim_sqe_set_sdma(&q[3], 4096, 0, 0);
	npusim_sqe_init(&q[4], NPUSIM_SQE_PLACE_HOLDER, sid, 4);
	MUST(npusim_sq_send_model(fd, sid, q, m, 5, -1, NULL));
	MUST(npusim_stream_sync(fd, sid, 2000));
	int n = npusim_cq_recv(fd, sid, cq, 8, 100);
	CHECK(n == 3, "got %d CQEs, want 3", n);
	if (n == 3) {
		CHECK(cq[0].task_id == 1 && cq[1].task_id == 2 && cq[2].task_id == 4,
		      "CQE tasks %u %u %u", cq[0].task_id, cq[1].task_id, cq[2].task_id);
		CHECK(cq[2].sq_head == 5, "sq_head %u after the last task", cq[2].sq_head);
	}
	close(fd);
}

/* The n CQEs of stream sid (cqe_mode=0: one per task): the device
 * counters of those that carry one (place holders, event records). */
static int ph_counters(int fd, uint32_t sid, int n, uint64_t *cnt)
{
	struct npusim_cqe cq[16];
	int got = 0, k = 0;

	while (got < n) {
		int r = npusim_cq_recv(fd, sid, cq, n - got, 2000);

		if (r <= 0) {
			fail("stream %u: %d of %d CQEs (%d)", sid, got, n, r);
			return -1;
		}
		for (int i = 0; i < r; i++)
			if (cq[i].flags & (NPUSIM_CQE_EVT | NPUSIM_CQE_PLACE_HOLD))
				cnt[k++] = cq[i].syscnt;
		got += r;
	}
	return 0;
}

/*
 * Timed SQEs (NPUSIM_TASK_F_TIMED / _SUBTASK): a recorded timeline replays
 * exactly, whenever the host sent it: sub-microsecond durations as given, a
 * wait lasting until its event's record has run on another stream, an FFTS+
 * subtask at its offset inside its container. Place holders (every task
 * here is one, or precedes one) report their end on the device counter.
 */
static void case_timed(void)
{
	int fd = open_dev(0);
	struct npusim_dev_info info;
	struct npusim_sqe q[4];
	struct npusim_task_model m[4];
	uint64_t a[3], b[2], c[3], t0, tick;
	uint32_t sa, sb, sc, ev;

	MUST(npusim_dev_info(fd, &info));
	tick = 1000000000ULL / info.counter_hz + 1;
	MUST(npusim_stream_create(fd, &sa));
	MUST(npusim_stream_create(fd, &sb));
	MUST(npusim_stream_create(fd, &sc));
	MUST(npusim_id_alloc(fd, NPUSIM_ID_EVENT, &ev));

	/* what the ABI refuses */
	npusim_sqe_init(&q[0], NPUSIM_SQE_PLACE_HOLDER, sa, 0);
	memset(m, 0, sizeof(m));
	m[0].flags = 0x80;
	CHECK(npusim_sq_send_model(fd, sa, q, m, 1, -1, NULL) == -EINVAL, "unknown flag accepted");
	m[0].flags = NPUSIM_TASK_F_SUBTASK;
	CHECK(npusim_sq_send_model(fd, sa, q, m, 1, -1, NULL) == -EINVAL, "SUBTASK without TIMED");
	m[0].flags = 0;
	m[0].start_ns = 1;
	CHECK(npusim_sq_send_model(fd, sa, q, m, 1, -1, NULL) == -EINVAL, "start_ns without TIMED");

	t0 = now_ns() + 50000000; /* the timeline starts in 50 ms */
	/* b: a wait at t0 for a's record, ending 400 ns after it; a PH */
	memset(m, 0, sizeof(m));
	npusim_sqe_init(&q[0], NPUSIM_SQE_EVENT_WAIT, sb, 0);
	npusim_sqe_set_sync_id(&q[0], ev);
	m[0].duration_ns = 400;
	npusim_sqe_init(&q[1], NPUSIM_SQE_PLACE_HOLDER, sb, 1);
	for (int i = 0; i < 2; i++) {
		m[i].flags = NPUSIM_TASK_F_TIMED;
		m[i].start_ns = t0;
	}
	MUST(npusim_sq_send_model(fd, sb, q, m, 2, -1, NULL));
	/* a: PH at t0 (0 ns), PH at t0 + 1 us for 16 ns, 5 ms kernel, the
	 * record (20 ns), all sent only now (late for nothing) */
	memset(m, 0, sizeof(m));
	npusim_sqe_init(&q[0], NPUSIM_SQE_PLACE_HOLDER, sa, 0);
	npusim_sqe_init(&q[1], NPUSIM_SQE_PLACE_HOLDER, sa, 1);
	m[1].duration_ns = 16;
	kernel_sqe(&q[2], &m[2], sa, 2, 5000000);
	npusim_sqe_init(&q[3], NPUSIM_SQE_EVENT_RECORD, sa, 3);
	npusim_sqe_set_sync_id(&q[3], ev);
	m[3].duration_ns = 20;
	for (int i = 0; i < 4; i++) {
		m[i].flags = NPUSIM_TASK_F_TIMED;
		m[i].start_ns = i == 1 ? t0 + 1000 : t0;
	}
	MUST(npusim_sq_send_model(fd, sa, q, m, 4, -1, NULL));
	/* c: a 1 ms container at t0 + 2 us, a 100 ns subtask 200 ns into it,
	 * then a PH after the container */
	memset(m, 0, sizeof(m));
	kernel_sqe(&q[0], &m[0], sc, 0, 1000000);
	m[0].flags = NPUSIM_TASK_F_TIMED;
	m[0].start_ns = t0 + 2000;
	npusim_sqe_init(&q[1], NPUSIM_SQE_PLACE_HOLDER, sc, 1);
	m[1].flags = NPUSIM_TASK_F_TIMED | NPUSIM_TASK_F_SUBTASK;
	m[1].start_ns = 200;
	m[1].duration_ns = 100;
	npusim_sqe_init(&q[2], NPUSIM_SQE_PLACE_HOLDER, sc, 2);
	m[2].flags = NPUSIM_TASK_F_TIMED;
	m[2].start_ns = t0;
	MUST(npusim_sq_send_model(fd, sc, q, m, 3, -1, NULL));
	MUST(npusim_stream_sync(fd, sa, 5000));
	MUST(npusim_stream_sync(fd, sb, 5000));
	MUST(npusim_stream_sync(fd, sc, 5000));
	/* a: PH, PH, record (event records report their counter too) */
	if (ph_counters(fd, sa, 4, a) || ph_counters(fd, sb, 2, b + 1) ||
	    ph_counters(fd, sc, 3, c + 1)) {
		close(fd);
		return;
	}
	/* counters of host ns: d(x) within a tick of want */
#define NEAR(x, want, what)                                                 \
	CHECK((x)*1000000000ULL / info.counter_hz + tick >= (want) &&       \
		      (x)*1000000000ULL / info.counter_hz <= (want) + tick, \
	      "%s: %llu ns, want %llu", what,                               \
	      (unsigned long long)((x)*1000000000ULL / info.counter_hz),    \
	      (unsigned long long)(want))
	NEAR(a[1] - a[0], 1016ULL, "16 ns task at 1 us");
	/* the kernel follows the 16 ns task: t0 + 1016, the record 20 ns */
	NEAR(a[2] - a[0], 5001036ULL, "record after the 5 ms kernel");
	NEAR(b[1] - a[0], 5001436ULL, "wait until the record, then 400 ns");
	NEAR(c[1] - a[0], 2300ULL, "subtask 200 ns into its container");
	NEAR(c[2] - a[0], 1002000ULL, "task after the container");
#undef NEAR
	close(fd);
}

/* ---- UIO: user-mode submission (load with sq_send_mode=1 or 2) ------------- */

/* A stream created with the bare ioctl: the client does not map it. */
static uint32_t raw_stream(int fd)
{
	struct npusim_stream_create sc = { 0 };

	MUST(raw_ioctl(fd, NPUSIM_IOC_STREAM_CREATE, &sc));
	return sc.stream_id;
}

static int trigger(int fd, uint32_t sid)
{
	struct npusim_sq_trigger t = { .stream_id = sid };

	return raw_ioctl(fd, NPUSIM_IOC_SQ_TRIGGER, &t);
}

static int uio_info(int fd, uint32_t sid, struct npusim_sq_uio_info *a)
{
	memset(a, 0, sizeof(*a));
	a->stream_id = sid;
	return raw_ioctl(fd, NPUSIM_IOC_SQ_UIO_INFO, a);
}

static void *map_queue(int fd, const struct npusim_sq_uio_info *a)
{
	void *p = mmap(NULL, a->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       (off_t)a->map_offset);

	if (p == MAP_FAILED) {
		fail("mmap stream %u: %s", a->stream_id, strerror(errno));
		exit(1);
	}
	return p;
}

static uint64_t completed(int fd, uint32_t sid)
{
	struct npusim_stream_status st;

	MUST(npusim_stream_status(fd, sid, &st));
	return st.completed;
}

/* wait up to 2 s for cond (the poller runs every few ms) */
#define WAIT_FOR(cond)                                      \
	do {                                                \
		for (int w_ = 0; w_ < 400 && !(cond); w_++) \
			usleep(5000);                       \
	} while (0)

/* The summary line of stream sid on device d, or "" */
static void summary_line(int d, uint32_t sid, char *out, size_t n)
{
	char path[64], line[512], want[32];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/trs_chan/dev%d-ts0/summary", d);
	snprintf(want, sizeof(want), "stream %u ", sid);
	out[0] = 0;
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, want, strlen(want)))
			snprintf(out, n, "%s", line);
	fclose(f);
}

/*
 * UIO_T through the client (tasks that wrap the soft queue, all complete in
 * order), and the driver's refusals through the bare interface: a trigger
 * of an unmapped queue, a tail beyond the queue, malformed SQEs (the queue
 * stops at one until it is rewritten), bad mappings; a stream destroyed
 * while mapped.
 */
static void case_uio(void)
{
	enum {
		NTASK = 3000,
		BATCH = 100
	};
	int fd = open_dev(0);
	struct npusim_dev_info info;
	struct npusim_sq_uio_info a;
	struct npusim_sqe q[BATCH];
	struct npusim_task_model m[BATCH];
	struct npusim_uio_ctrl *c;
	uint32_t sid, raw, other;
	char line[512], want[128];
	void *p;

	MUST(npusim_dev_info(fd, &info));
	CHECK(info.abi_version == NPUSIM_ABI_VERSION && info.sq_send_mode == NPUSIM_SEND_UIO_T,
	      "abi %u mode %u", info.abi_version, info.sq_send_mode);
	MUST(npusim_stream_create(fd, &sid));
	CHECK(npusim_sq_mode(fd, sid) == NPUSIM_SEND_UIO_T, "the client does not use UIO_T");
	MUST(uio_info(fd, sid, &a));
	CHECK(a.mode == NPUSIM_SEND_UIO_T && a.depth == info.sq_depth &&
		      a.sqe_size == NPUSIM_SQE_SIZE &&
		      a.map_offset == NPUSIM_UIO_MMAP_OFFSET(sid) &&
		      a.queue_offset == (uint64_t)sysconf(_SC_PAGESIZE) &&
		      a.model_offset >= a.queue_offset + (uint64_t)a.depth * NPUSIM_SQE_SIZE &&
		      a.model_offset % (uint64_t)sysconf(_SC_PAGESIZE) == 0 &&
		      a.map_size >= a.model_offset + (uint64_t)a.depth * sizeof(*m),
	      "uio info: mode %u depth %u size %llu", a.mode, a.depth,
	      (unsigned long long)a.map_size);
	for (int t = 0; t < NTASK; t += BATCH) {
		for (int i = 0; i < BATCH; i++) {
			kernel_sqe(&q[i], &m[i], sid, t + i, 2000);
			if (!(i % 3)) {
				npusim_sqe_init(&q[i], NPUSIM_SQE_SDMA, sid, t + i);
				npusim_sqe_set_sdma(&q[i], 4096, 0, 0);
			}
		}
		MUST(npusim_sq_send_model(fd, sid, q, m, BATCH, -1, NULL));
		if (recv_in_order(fd, sid, BATCH, t, 5000))
			return;
	}
	MUST(npusim_stream_sync(fd, sid, 5000));
	CHECK(completed(fd, sid) == NTASK, "completed %llu of %d",
	      (unsigned long long)completed(fd, sid), NTASK);
	/* a second mapping of the same queue sees the driver's counts */
	c = p = map_queue(fd, &a);
	CHECK(c->state == NPUSIM_UIO_LIVE && c->stream_id == sid && c->depth == a.depth &&
		      c->send_ok == NTASK && c->send_fail == 0 && c->triggers >= 1 &&
		      c->head == c->tail && c->head == NTASK % a.depth,
	      "ctrl: state %u ok %llu fail %llu triggers %llu head %u tail %u", c->state,
	      (unsigned long long)c->send_ok, (unsigned long long)c->send_fail,
	      (unsigned long long)c->triggers, c->head, c->tail);
	munmap(p, a.map_size);
	summary_line(0, sid, line, sizeof(line));
	snprintf(want, sizeof(want), " mode UIO_T pid %d uio send ok %d send fail 0", (int)getpid(),
		 NTASK);
	CHECK(strstr(line, want), "summary: %s", line);

	/* the bare interface */
	raw = raw_stream(fd);
	EXPECT_ERR(trigger(fd, raw), EINVAL); /* not mapped */
	EXPECT_ERR(trigger(fd, 4242), EINVAL);
	struct npusim_sq_trigger bt = { .stream_id = raw, .rsv = { 1 } };
	EXPECT_ERR(raw_ioctl(fd, NPUSIM_IOC_SQ_TRIGGER, &bt), EINVAL);
	EXPECT_ERR(raw_ioctl(fd, NPUSIM_IOC_SQ_TRIGGER, NULL), EFAULT);
	MUST(uio_info(fd, raw, &a));
	struct npusim_sq_uio_info bad = a;
	bad.rsv[1] = 1;
	EXPECT_ERR(raw_ioctl(fd, NPUSIM_IOC_SQ_UIO_INFO, &bad), EINVAL);
	bad = a;
	bad.stream_id = 4242;
	EXPECT_ERR(raw_ioctl(fd, NPUSIM_IOC_SQ_UIO_INFO, &bad), EINVAL);
	/* bad mappings: size, private, another offset, someone else's */
	CHECK(mmap(NULL, a.map_size - 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   (off_t)a.map_offset) == MAP_FAILED &&
		      errno == EINVAL,
	      "short mapping accepted");
	CHECK(mmap(NULL, a.map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
		   (off_t)a.map_offset) == MAP_FAILED &&
		      errno == EINVAL,
	      "private mapping accepted");
	CHECK(mmap(NULL, a.map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   (off_t)a.map_offset + 4096) == MAP_FAILED &&
		      errno == EINVAL,
	      "mapping at an inner offset accepted");
	{
		int fd2 = open_dev(0);

		CHECK(mmap(NULL, a.map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd2,
			   (off_t)a.map_offset) == MAP_FAILED &&
			      errno == EINVAL,
		      "another file's stream mapped");
		close(fd2);
	}
	c = p = map_queue(fd, &a);
	struct npusim_sqe *que = (struct npusim_sqe *)((char *)p + a.queue_offset);
	struct npusim_task_model *qm = (struct npusim_task_model *)((char *)p + a.model_offset);
	CHECK(c->state == NPUSIM_UIO_LIVE && c->stream_id == raw && c->head == 0 && c->tail == 0,
	      "fresh queue");
	/* a tail beyond the queue */
	c->tail = a.depth;
	EXPECT_ERR(trigger(fd, raw), EINVAL);
	c->tail = a.depth + 5;
	EXPECT_ERR(trigger(fd, raw), EINVAL);
	c->tail = 0;
	MUST(trigger(fd, raw)); /* nothing to send */
	/* a malformed SQE: refused, and the queue stops there */
	npusim_sqe_init(&que[0], NPUSIM_SQE_AI_CORE, raw + 1, 0);
	__atomic_store_n(&c->tail, 1, __ATOMIC_RELEASE);
	EXPECT_ERR(trigger(fd, raw), EINVAL);
	usleep(20000); /* the poller is running: it finds the same */
	CHECK(c->head == 0 && completed(fd, raw) == 0, "malformed SQE forwarded");
	MUST(npusim_stream_sync(fd, raw, 1000)); /* a stopped queue is idle */
	/* a well-formed SQE with a malformed model in the model array: the
	 * same */
	npusim_sqe_init(&que[0], NPUSIM_SQE_AI_CORE, raw, 0);
	qm[0].jitter_pm = 1001;
	EXPECT_ERR(trigger(fd, raw), EINVAL);
	CHECK(c->head == 0 && completed(fd, raw) == 0, "malformed model forwarded");
	/* rewritten, it goes: its 30 ms from the model array */
	memset(&qm[0], 0, sizeof(qm[0]));
	qm[0].duration_ns = 30000000;
	uint64_t t_model = now_ns();
	MUST(trigger(fd, raw));
	MUST(npusim_stream_sync(fd, raw, 2000));
	CHECK(now_ns() - t_model >= 30000000ULL, "the model array's 30 ms took %llu ns",
	      (unsigned long long)(now_ns() - t_model));
	CHECK(completed(fd, raw) == 1 && c->head == 1 && c->error == 0,
	      "rewritten SQE: %llu, head %u", (unsigned long long)completed(fd, raw), c->head);
	/* good, bad: the good one goes, the queue stops at the bad one */
	npusim_sqe_init(&que[1], NPUSIM_SQE_AI_CORE, raw, 1);
	npusim_sqe_init(&que[2], 63, raw, 2);
	__atomic_store_n(&c->tail, 3, __ATOMIC_RELEASE);
	EXPECT_ERR(trigger(fd, raw), EINVAL);
	WAIT_FOR(c->head == 2 && c->error == -EINVAL);
	MUST(npusim_stream_sync(fd, raw, 2000));
	CHECK(c->head == 2 && c->error == -EINVAL && c->send_fail >= 1 && completed(fd, raw) == 2,
	      "good then bad: head %u error %d fail %llu completed %llu", c->head, c->error,
	      (unsigned long long)c->send_fail, (unsigned long long)completed(fd, raw));
	npusim_sqe_init(&que[2], NPUSIM_SQE_PLACE_HOLDER, raw, 2);
	MUST(trigger(fd, raw));
	MUST(npusim_stream_sync(fd, raw, 2000));
	CHECK(completed(fd, raw) == 3 && c->error == 0, "after the fix: %llu",
	      (unsigned long long)completed(fd, raw));
	/* written without a trigger: the poller forwards it (the device has
	 * seen triggers) */
	npusim_sqe_init(&que[3], NPUSIM_SQE_AI_CORE, raw, 3);
	__atomic_store_n(&c->tail, 4, __ATOMIC_RELEASE);
	WAIT_FOR(completed(fd, raw) == 4);
	CHECK(completed(fd, raw) == 4, "the poller did not forward");
	/* the ioctl still works on a UIO stream, as TRS_SQCQ_SEND does */
	struct npusim_sq_send ss = { .stream_id = raw, .sqe_num = 1 };
	npusim_sqe_init(&q[0], NPUSIM_SQE_AI_CORE, raw, 4);
	ss.sqe_addr = (uint64_t)(uintptr_t)q;
	MUST(raw_ioctl(fd, NPUSIM_IOC_SQ_SEND, &ss));
	MUST(npusim_stream_sync(fd, raw, 2000));
	CHECK(completed(fd, raw) == 5, "ioctl send on a UIO stream");
	/* destroyed while mapped: the page says so, the trigger is refused */
	MUST(npusim_stream_destroy(fd, raw, 0, 1000));
	CHECK(c->state == NPUSIM_UIO_DEAD, "state %u after destroy", c->state);
	EXPECT_ERR(trigger(fd, raw), EINVAL);
	munmap(p, a.map_size);
	/* mapped, then unmapped: not mapped any more */
	other = raw_stream(fd);
	MUST(uio_info(fd, other, &a));
	p = map_queue(fd, &a);
	MUST(trigger(fd, other));
	munmap(p, a.map_size);
	EXPECT_ERR(trigger(fd, other), EINVAL);
	/* a queue whose SQEs are never sent when the stream is destroyed with
	 * NPUSIM_DESTROY_CANCEL */
	c = p = map_queue(fd, &a);
	que = (struct npusim_sqe *)((char *)p + a.queue_offset);
	qm = (struct npusim_task_model *)((char *)p + a.model_offset);
	for (int i = 0; i < 10; i++) {
		kernel_sqe(&que[i], &qm[i], other, i, 20000000);
	}
	__atomic_store_n(&c->tail, 10, __ATOMIC_RELEASE);
	MUST(trigger(fd, other));
	MUST(npusim_stream_destroy(fd, other, NPUSIM_DESTROY_CANCEL, 0));
	CHECK(c->state == NPUSIM_UIO_DEAD, "cancelled stream's queue live");
	munmap(p, a.map_size);
	MUST(npusim_stream_destroy(fd, sid, 0, 1000));
	npusim_dev_close(fd);
}

/*
 * UIO_D: the doorbell sends at once (no trs_chan:sqe: checked by the suite
 * with ftrace); everything completes, in order, more than the SQ holds.
 */
static void case_uio_direct(void)
{
	enum {
		NTASK = 3000,
		BATCH = 500
	};
	int fd = open_dev(1);
	struct npusim_dev_info info;
	static struct npusim_sqe q[BATCH];
	static struct npusim_task_model m[BATCH];
	uint32_t sid;

	MUST(npusim_dev_info(fd, &info));
	CHECK(info.sq_send_mode == NPUSIM_SEND_UIO_D, "mode %u", info.sq_send_mode);
	MUST(npusim_stream_create(fd, &sid));
	CHECK(npusim_sq_mode(fd, sid) == NPUSIM_SEND_UIO_D, "the client does not use UIO_D");
	for (int t = 0; t < NTASK; t += BATCH) {
		for (int i = 0; i < BATCH; i++)
			kernel_sqe(&q[i], &m[i], sid, t + i, 1000);
		MUST(npusim_sq_send_model(fd, sid, q, m, BATCH, -1, NULL));
		if (recv_in_order(fd, sid, BATCH, t, 5000))
			return;
	}
	MUST(npusim_stream_sync(fd, sid, 5000));
	CHECK(completed(fd, sid) == NTASK, "completed %llu",
	      (unsigned long long)completed(fd, sid));
	printf("stream %u\n", sid);
	npusim_dev_close(fd);
}

/* ---- the STARS SoC log (profiling channel 50) ------------------------------ */

/* Read every record there is on fd's channel into out (cap records). */
static int stars_read_all(int fd, struct npusim_stars_acsq *out, int cap, uint64_t *records,
			  uint64_t *dropped)
{
	int got = 0;

	for (;;) {
		int r = npusim_prof_read(fd, out + got, (uint32_t)(cap - got) * 64, records,
					 dropped);

		if (r < 0) {
			fail("prof_read: %s", strerror(-r));
			return -1;
		}
		got += r / 64;
		if (!r || got == cap)
			return got;
	}
}

static int stars_line_on(int d)
{
	char path[64], line[256];
	int on = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/trs_chan/dev%d-ts0/summary", d);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "stars_soc_log ", 14))
			on = !strncmp(line + 14, "on", 2);
	fclose(f);
	return on;
}

/*
 * Channel 50 as the HAL uses it: refused where the driver refuses, one
 * start and one end record per task with the device model's times, the
 * ring's overflow counted, a closed file's channel stopped.
 */
static void case_stars(void)
{
	int fd = open_dev(0), fd2;
	struct npusim_dev_info info;
	struct npusim_prof_start ps;
	struct npusim_prof_read pr;
	struct npusim_prof_stop pt;
	struct npusim_stars_acsq rec[512];
	struct npusim_sqe q[100];
	struct npusim_task_model m[100];
	uint64_t records, dropped, t0, tick, hz;
	uint32_t sa;
	int n;

	MUST(npusim_dev_info(fd, &info));
	hz = info.counter_hz;
	tick = 1000000000ULL / hz + 1;
	_Static_assert(sizeof(struct npusim_stars_acsq) == 64, "ACSQ_TASK is 64 bytes");

	/* what the profiling layer refuses */
	CHECK(npusim_prof_read(fd, rec, 64, NULL, NULL) == -ESRCH,
	      "read of a channel never started");
	CHECK(npusim_prof_stop(fd) == -ESRCH, "stop of a channel never started");
	memset(&ps, 0, sizeof(ps));
	ps.channel = 49;
	ps.flags = NPUSIM_STARS_ACSQ_TASK;
	CHECK(raw_ioctl(fd, NPUSIM_IOC_PROF_START, &ps) == -ENODEV, "channel 49 started");
	ps.channel = NPUSIM_PROF_CHANNEL_NUM;
	CHECK(raw_ioctl(fd, NPUSIM_IOC_PROF_START, &ps) == -EINVAL, "channel 160 started");
	ps.channel = NPUSIM_PROF_CHANNEL_STARS_SOC_LOG;
	ps.flags = 0;
	CHECK(raw_ioctl(fd, NPUSIM_IOC_PROF_START, &ps) == -EINVAL, "no record kind accepted");
	ps.flags = NPUSIM_STARS_ACSQ_TASK;
	ps.ring_records = 100;
	CHECK(raw_ioctl(fd, NPUSIM_IOC_PROF_START, &ps) == -EINVAL, "a ring of 100 accepted");
	ps.ring_records = 0;
	ps.rsv[2] = 1;
	CHECK(raw_ioctl(fd, NPUSIM_IOC_PROF_START, &ps) == -EINVAL, "reserved bits accepted");
	CHECK(stars_line_on(0) == 0, "summary: the channel is not off");

	MUST(npusim_prof_start(fd, 0));
	CHECK(npusim_prof_start(fd, 0) == -EBUSY, "a running channel started again");
	CHECK(stars_line_on(0) == 1, "summary: the channel is not on");
	memset(&pr, 0, sizeof(pr));
	pr.channel = NPUSIM_PROF_CHANNEL_STARS_SOC_LOG;
	pr.len = 63;
	pr.buf = (uint64_t)(uintptr_t)rec;
	CHECK(raw_ioctl(fd, NPUSIM_IOC_PROF_READ, &pr) == -EINVAL, "a read of 63 bytes accepted");
	fd2 = open_dev(0);
	CHECK(npusim_prof_start(fd2, 0) == -EBUSY, "a second reader started the channel");
	CHECK(npusim_prof_read(fd2, rec, 64, NULL, NULL) == -ESRCH,
	      "another file read the channel");
	CHECK(npusim_prof_stop(fd2) == -ESRCH, "another file stopped the channel");

	/* a timeline of three tasks: a 1 us PH at t0, a 5 ms kernel after it,
	 * a 16 ns PH: six records, their counters the model's times */
	MUST(npusim_stream_create(fd, &sa));
	t0 = now_ns() + 20000000;
	memset(m, 0, sizeof(m));
	npusim_sqe_init(&q[0], NPUSIM_SQE_PLACE_HOLDER, sa, 0);
	m[0].duration_ns = 1000;
	kernel_sqe(&q[1], &m[1], sa, 1, 5000000);
	npusim_sqe_init(&q[2], NPUSIM_SQE_PLACE_HOLDER, sa, 2);
	m[2].duration_ns = 16;
	for (int i = 0; i < 3; i++) {
		m[i].flags = NPUSIM_TASK_F_TIMED;
		m[i].start_ns = t0;
	}
	MUST(npusim_sq_send_model(fd, sa, q, m, 3, -1, NULL));
	MUST(npusim_stream_sync(fd, sa, 5000));
	n = stars_read_all(fd, rec, 512, &records, &dropped);
	CHECK(n == 6 && records == 6 && dropped == 0,
	      "%d records (%llu written, %llu dropped), want 6", n, (unsigned long long)records,
	      (unsigned long long)dropped);
	if (n == 6) {
		static const unsigned want_type[3] = { NPUSIM_SQE_PLACE_HOLDER, NPUSIM_SQE_AI_CORE,
						       NPUSIM_SQE_PLACE_HOLDER };
		static const uint64_t want_ns[6] = { 0, 1000, 1000, 5001000, 5001000, 5001016 };
		uint64_t c0 = rec[0].sys_cnt;

		for (int i = 0; i < 6; i++) {
			uint64_t ns = (rec[i].sys_cnt - c0) * 1000000000ULL / hz;

			CHECK((rec[i].head & 0x3f) == (unsigned)(i & 1),
			      "record %d: function type %u", i, rec[i].head & 0x3f);
			CHECK((rec[i].head >> 10) == want_type[i / 2], "record %d: SQE type %u", i,
			      rec[i].head >> 10);
			CHECK(rec[i].stream_id == sa && rec[i].task_id == i / 2 &&
				      (rec[i].acc >> 6 & 0x7f) == sa,
			      "record %d: stream %u task %u acsq %u", i, rec[i].stream_id,
			      rec[i].task_id, rec[i].acc >> 6 & 0x7f);
			CHECK(ns + tick >= want_ns[i] && ns <= want_ns[i] + tick,
			      "record %d: %llu ns after the first start, want %llu", i,
			      (unsigned long long)ns, (unsigned long long)want_ns[i]);
		}
		/* the first start is t0 on the device's counter */
		struct npusim_clock_sample cs;

		MUST(tight_clock_sample(fd, &cs));
		uint64_t c_t0 = cs.dev_cnt - (uint64_t)((cs.host_ns - t0) * (double)hz / 1e9);

		CHECK(c0 + 2 * hz / 1000000 >= c_t0 && c0 <= c_t0 + 2 * hz / 1000000,
		      "the first start at counter %llu, t0 is %llu", (unsigned long long)c0,
		      (unsigned long long)c_t0);
	}
	CHECK(npusim_prof_read(fd, rec, 64, &records, NULL) == 0, "records after a full read");
	MUST(npusim_prof_stop(fd));
	CHECK(npusim_prof_stop(fd) == -ESRCH, "a stopped channel stopped again");
	memset(&pt, 0, sizeof(pt));
	pt.channel = NPUSIM_PROF_CHANNEL_STARS_SOC_LOG;
	pt.rsv[0] = 1;
	CHECK(raw_ioctl(fd, NPUSIM_IOC_PROF_STOP, &pt) == -EINVAL, "reserved bits of a stop");

	/* a ring of 64 records and 100 tasks unread: 64 kept, 136 counted */
	MUST(npusim_prof_start(fd, 64));
	for (int i = 0; i < 100; i++)
		npusim_sqe_init(&q[i], NPUSIM_SQE_PLACE_HOLDER, sa, (uint16_t)(3 + i));
	MUST(npusim_sq_send(fd, sa, q, 100, -1, NULL));
	MUST(npusim_stream_sync(fd, sa, 5000));
	n = stars_read_all(fd, rec, 512, &records, &dropped);
	CHECK(n == 64 && records == 64 && dropped == 136,
	      "full ring: %d read, %llu written, %llu dropped; want 64, 64, 136", n,
	      (unsigned long long)records, (unsigned long long)dropped);
	CHECK(n > 0 && rec[0].task_id == 3 && (rec[0].head & 0x3f) == NPUSIM_STARS_FUNC_START,
	      "the ring kept not the oldest records");

	/* the file that started it closes (its last reference: the soft
	 * queues' mappings hold it too): the channel stops */
	npusim_dev_close(fd);
	CHECK(stars_line_on(0) == 0, "the channel runs after its file closed");
	MUST(npusim_prof_start(fd2, 0));
	MUST(npusim_prof_stop(fd2));
	close(fd2);
}

/* ---- the AI Core frequency and profiling channel 132 ----------------------- */

/* Write the administrator's setting of device d; 0 or -errno. */
static int set_aicore_freq(int d, const char *text)
{
	char path[64];
	int fd, r = 0;

	snprintf(path, sizeof(path), "/proc/trs_chan/dev%d-ts0/aicore_freq", d);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		r = -errno;
	close(fd);
	return r;
}

static unsigned read_aicore_freq(int d)
{
	char path[64];
	unsigned v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/trs_chan/dev%d-ts0/aicore_freq", d);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%u", &v) != 1)
		v = 0;
	if (f)
		fclose(f);
	return v;
}

static int lp_start_raw(int fd, uint32_t ring, uint32_t flags, uint32_t version)
{
	struct npusim_prof_start ps;

	memset(&ps, 0, sizeof(ps));
	ps.channel = NPUSIM_PROF_CHANNEL_LP;
	ps.flags = flags;
	ps.ring_records = ring;
	ps.lp.period = 100;
	ps.lp.version = version;
	return raw_ioctl(fd, NPUSIM_IOC_PROF_START, &ps);
}

/* Every record there is on fd's channel 132 (at most cap). */
static int lp_read_all(int fd, struct npusim_lp_record *out, int cap, uint64_t *records,
		       uint64_t *dropped)
{
	int r = npusim_chan_read(fd, NPUSIM_PROF_CHANNEL_LP, out,
				 (uint32_t)cap * NPUSIM_LP_RECORD_SIZE, records, dropped);

	if (r < 0) {
		fail("lp read: %s", strerror(-r));
		return -1;
	}
	return r / NPUSIM_LP_RECORD_SIZE;
}

/* The device counter now, from a tight clock sample. */
static uint64_t counter_now(int fd, uint64_t hz)
{
	struct npusim_clock_sample cs;

	if (tight_clock_sample(fd, &cs) < 0)
		return 0;
	return cs.dev_cnt + (uint64_t)((now_ns() - cs.host_ns) * (double)hz / 1e9);
}

/* A kernel of dur_ns modelled on stream sa, its STARS run time (ns). */
static uint64_t kernel_run_ns(int fd, int log, uint32_t sa, uint16_t task, uint64_t dur,
			      uint64_t hz)
{
	struct npusim_stars_acsq rec[8];
	struct npusim_task_model m;
	struct npusim_sqe q;
	int n;

	kernel_sqe(&q, &m, sa, task, dur);
	if (npusim_sq_send_model(fd, sa, &q, &m, 1, -1, NULL) < 0 ||
	    npusim_stream_sync(fd, sa, 5000) < 0)
		return 0;
	n = stars_read_all(log, rec, 8, NULL, NULL);
	if (n != 2)
		return 0;
	return (rec[1].sys_cnt - rec[0].sys_cnt) * 1000000000ULL / hz;
}

/*
 * Channel 132 as msprof's collector uses it: refused where the driver
 * refuses; a record with the frequency at the start; the administrator's
 * change (/proc/trs_chan/dev0-ts0/aicore_freq) is an entry at the device
 * counter it took effect at, and the current frequency of the device info;
 * a kernel started after it runs rated/current as long (a place holder
 * does not); 55 entries fill a record; a full ring's entries are counted;
 * a closed file's channel stops.
 */
static void case_lp(void)
{
	int fd = open_dev(0), fd2 = open_dev(0), log = open_dev(0);
	struct npusim_lp_record rec[4];
	struct npusim_dev_info info;
	uint64_t records, dropped, hz, c0, c1, slow, fast;
	uint32_t sa;
	int n;

	MUST(npusim_dev_info(fd, &info));
	hz = info.counter_hz;
	CHECK(info.aicore_mhz == 1800 && info.aicore_cur_mhz == 1800,
	      "rated %u current %u, want 1800 1800", info.aicore_mhz, info.aicore_cur_mhz);
	CHECK(read_aicore_freq(0) == 1800, "aicore_freq reads %u", read_aicore_freq(0));

	/* what the driver refuses */
	CHECK(lp_start_raw(fd, 0, 0, 0) == -EINVAL, "config version 0 accepted");
	CHECK(lp_start_raw(fd, 0, NPUSIM_STARS_ACSQ_TASK, 1) == -EINVAL, "flags accepted");
	CHECK(lp_start_raw(fd, 3, 0, 1) == -EINVAL, "a ring of 3 accepted");
	CHECK(npusim_chan_read(fd, NPUSIM_PROF_CHANNEL_LP, rec, NPUSIM_LP_RECORD_SIZE, NULL,
			       NULL) == -ESRCH,
	      "read of a channel never started");
	CHECK(set_aicore_freq(0, "0\n") == -EINVAL, "0 MHz accepted");
	CHECK(set_aicore_freq(0, "1801\n") == -EINVAL, "over the rated accepted");
	CHECK(set_aicore_freq(0, "fast\n") == -EINVAL, "a word accepted");

	/* the start: one entry, the frequency now */
	c0 = counter_now(fd, hz);
	MUST(lp_start_raw(fd, 0, 0, 1));
	c1 = counter_now(fd, hz);
	CHECK(lp_start_raw(fd, 0, 0, 1) == -EBUSY, "a running channel started again");
	CHECK(lp_start_raw(fd2, 0, 0, 1) == -EBUSY, "a second reader started the channel");
	CHECK(npusim_chan_read(fd, NPUSIM_PROF_CHANNEL_LP, rec, NPUSIM_LP_RECORD_SIZE - 1, NULL,
			       NULL) == -EINVAL,
	      "a read of 887 bytes accepted");
	n = lp_read_all(fd, rec, 4, &records, &dropped);
	CHECK(n == 1 && records == 1 && dropped == 0 && rec[0].count == 1 &&
		      rec[0].entry[0].freq == 1800,
	      "start: %d records, count %u, %u MHz", n, n ? rec[0].count : 0,
	      n ? rec[0].entry[0].freq : 0);
	CHECK(n == 1 && rec[0].entry[0].sys_cnt + 2 * hz / 1000 >= c0 &&
		      rec[0].entry[0].sys_cnt <= c1 + 2 * hz / 1000,
	      "start entry at counter %llu, outside [%llu, %llu]",
	      (unsigned long long)rec[0].entry[0].sys_cnt, (unsigned long long)c0,
	      (unsigned long long)c1);
	CHECK(lp_read_all(fd, rec, 4, NULL, NULL) == 0, "records with no change");

	/* a kernel at the rated frequency, then the administrator's 800 MHz */
	MUST(npusim_stream_create(fd, &sa));
	MUST(npusim_prof_start(log, 0));
	fast = kernel_run_ns(fd, log, sa, 0, 900000, hz);
	c0 = counter_now(fd, hz);
	MUST(set_aicore_freq(0, "800\n"));
	c1 = counter_now(fd, hz);
	MUST(set_aicore_freq(0, "800\n")); /* no change: no entry */
	MUST(npusim_dev_info(fd2, &info));
	CHECK(info.aicore_mhz == 1800 && info.aicore_cur_mhz == 800,
	      "after the change: rated %u current %u", info.aicore_mhz, info.aicore_cur_mhz);
	CHECK(read_aicore_freq(0) == 800, "aicore_freq reads %u", read_aicore_freq(0));
	n = lp_read_all(fd, rec, 4, &records, NULL);
	CHECK(n == 1 && rec[0].count == 1 && rec[0].entry[0].freq == 800 && records == 2,
	      "change: %d records, count %u, %u MHz", n, n ? rec[0].count : 0,
	      n ? rec[0].entry[0].freq : 0);
	CHECK(n == 1 && rec[0].entry[0].sys_cnt + 2 * hz / 1000 >= c0 &&
		      rec[0].entry[0].sys_cnt <= c1 + 2 * hz / 1000,
	      "change entry at counter %llu, outside [%llu, %llu]",
	      (unsigned long long)rec[0].entry[0].sys_cnt, (unsigned long long)c0,
	      (unsigned long long)c1);
	/* the work is cycles: 1800/800 as long at 800 MHz */
	slow = kernel_run_ns(fd, log, sa, 1, 900000, hz);
	CHECK(fast + 100 >= 900000 && fast <= 900000 + 100, "at 1800 MHz: %llu ns, want 900000",
	      (unsigned long long)fast);
	CHECK(slow + 100 >= 2025000 && slow <= 2025000 + 100, "at 800 MHz: %llu ns, want 2025000",
	      (unsigned long long)slow);
	{
		struct npusim_stars_acsq sr[8];
		struct npusim_sqe q;
		struct npusim_task_model m;

		npusim_sqe_init(&q, NPUSIM_SQE_PLACE_HOLDER, sa, 2);
		memset(&m, 0, sizeof(m));
		m.duration_ns = 300000;
		MUST(npusim_sq_send_model(fd, sa, &q, &m, 1, -1, NULL));
		MUST(npusim_stream_sync(fd, sa, 5000));
		n = stars_read_all(log, sr, 8, NULL, NULL);
		CHECK(n == 2 && (sr[1].sys_cnt - sr[0].sys_cnt) * 1000000000ULL / hz <= 300100,
		      "a place holder stretched at 800 MHz");
	}
	MUST(npusim_prof_stop(log));

	/* 60 changes unread: a full record of 55 entries, then one of 5 */
	for (int i = 0; i < 60; i++)
		MUST(set_aicore_freq(0, i % 2 ? "800\n" : "1000\n"));
	n = lp_read_all(fd, rec, 4, &records, &dropped);
	CHECK(n == 2 && rec[0].count == 55 && rec[1].count == 5 && dropped == 0,
	      "60 changes: %d records, counts %u %u, %llu dropped", n, n > 0 ? rec[0].count : 0,
	      n > 1 ? rec[1].count : 0, (unsigned long long)dropped);
	CHECK(n == 2 && rec[0].entry[0].freq == 1000 && rec[1].entry[4].freq == 800 &&
		      rec[0].entry[54].sys_cnt <= rec[1].entry[0].sys_cnt,
	      "the changes' order");
	MUST(npusim_chan_stop(fd, NPUSIM_PROF_CHANNEL_LP));
	CHECK(npusim_chan_stop(fd, NPUSIM_PROF_CHANNEL_LP) == -ESRCH, "stopped twice");

	/* a ring of 2 records and 200 changes unread: 110 kept, the start's
	 * entry and 90 changes counted */
	MUST(lp_start_raw(fd, 2, 0, 1));
	for (int i = 0; i < 200; i++)
		MUST(set_aicore_freq(0, i % 2 ? "1800\n" : "1200\n"));
	n = lp_read_all(fd, rec, 4, &records, &dropped);
	CHECK(n == 2 && rec[0].count == 55 && rec[1].count == 55 && dropped == 91,
	      "full ring: %d records, %llu dropped; want 2, 91", n, (unsigned long long)dropped);

	/* the file that started it closes: the channel stops */
	npusim_dev_close(fd);
	MUST(lp_start_raw(fd2, 0, 0, 1));
	MUST(npusim_chan_stop(fd2, NPUSIM_PROF_CHANNEL_LP));
	MUST(set_aicore_freq(0, "1800\n"));
	close(fd2);
	close(log);
}

/*
 * The host records an id it owns (NPUSIM_IOC_ID_RECORD, ABI 8): a stream
 * held on a notify wait stays held, and goes on once the host records the
 * notify; a record before the wait is kept for it, as a record task's is.
 * Ids the file does not own, unknown kinds and ids out of range are
 * refused.
 */
static void case_id_record(void)
{
	int fd = open_dev(0), other = open_dev(0);
	struct npusim_sqe q;
	struct npusim_stream_status st;
	uint32_t sid, nt, ev, theirs;

	MUST(npusim_stream_create(fd, &sid));
	MUST(npusim_id_alloc(fd, NPUSIM_ID_NOTIFY, &nt));
	MUST(npusim_id_alloc(fd, NPUSIM_ID_EVENT, &ev));
	MUST(npusim_id_alloc(other, NPUSIM_ID_NOTIFY, &theirs));
	EXPECT_ERR(npusim_id_record(fd, NPUSIM_ID_NOTIFY, theirs), EINVAL);
	EXPECT_ERR(npusim_id_record(fd, NPUSIM_ID_NOTIFY, NPUSIM_MAX_NOTIFIES), EINVAL);
	EXPECT_ERR(npusim_id_record(fd, 7, nt), EINVAL);
	npusim_sqe_init(&q, NPUSIM_SQE_NOTIFY_WAIT, sid, 0);
	npusim_sqe_set_sync_id(&q, nt);
	MUST(npusim_sq_send(fd, sid, &q, 1, -1, NULL));
	usleep(50000);
	MUST(npusim_stream_status(fd, sid, &st));
	CHECK(st.completed == 0, "the wait ended before its record: %llu",
	      (unsigned long long)st.completed);
	MUST(npusim_id_record(fd, NPUSIM_ID_NOTIFY, nt));
	MUST(npusim_stream_sync(fd, sid, 5000));
	/* recorded first, then waited for (an event, this time) */
	MUST(npusim_id_record(fd, NPUSIM_ID_EVENT, ev));
	npusim_sqe_init(&q, NPUSIM_SQE_EVENT_WAIT, sid, 1);
	npusim_sqe_set_sync_id(&q, ev);
	MUST(npusim_sq_send(fd, sid, &q, 1, -1, NULL));
	MUST(npusim_stream_sync(fd, sid, 5000));
	MUST(npusim_stream_status(fd, sid, &st));
	CHECK(st.completed == 2, "completed %llu", (unsigned long long)st.completed);
	close(other);
	close(fd);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} cases[] = {
		{ "order", case_order },
		{ "durations", case_durations },
		{ "payloads", case_payloads },
		{ "deps", case_deps },
		{ "shared_events", case_shared_events },
		{ "wrap", case_wrap },
		{ "id_record", case_id_record },
		{ "badioctl", case_badioctl },
		{ "concurrent", case_concurrent },
		{ "killed", case_killed },
		{ "known", case_known },
		{ "cqe_realistic", case_cqe_realistic },
		{ "timed", case_timed },
		{ "uio", case_uio },
		{ "uio_direct", case_uio_direct },
		{ "stars", case_stars },
		{ "lp", case_lp },
	};

	if (argc != 2) {
		fprintf(stderr, "usage: npusim_test CASE\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (strcmp(argv[1], cases[i].name) == 0) {
			cases[i].fn();
			return failures ? 1 : 0;
		}
	}
	fprintf(stderr, "npusim_test: unknown case %s\n", argv[1]);
	return 2;
}
