/*
 * fault_test — npusim's injected faults seen through the driver's own
 * interface (tests/vm/suite_65_faults.sh runs it as root):
 *
 *   fault_test reset       queued and running tasks aborted with error CQEs
 *                          in SQ order, cores and events released, the
 *                          stream usable afterwards (any cqe_mode)
 *   fault_test unknown     a CQE for a task id never submitted, the SQ
 *                          untouched; a missing stream refused (ENOENT)
 *   fault_test cqfull      the host's receiving stopped: a full CQ loses
 *                          the CQEs beyond it and counts them (cq_hold=0)
 *   fault_test cqhold      ... or holds the stream until the host receives
 *                          again, losing nothing (npusim cq_hold=1)
 *   fault_test work DEV N US [cqe]
 *                          a workload for the tracer tests: N tasks of US
 *                          microseconds on a new stream of device DEV (so it
 *                          lasts N * US of device time however fast the
 *                          host), CQEs received as it goes; tolerates the
 *                          faults and prints what it saw
 *
 * The tasks are AI Core kernels, which on a 910B (npusim's default) write
 * no CQE; unknown, cqfull, cqhold and `work ... cqe` set wr_cqe on every
 * one, as a runtime does where it needs each completion (a DVPP stream's
 * tasks), so their CQEs come in any cqe_mode.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npusim_dev.h"

static int nfail;
static uint8_t sqe_ctrl; /* of every task submit() sends: wr_cqe or 0 */

static void bad(const char *fmt, ...)
{
	va_list ap;

	fputs("  FAIL: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	nfail++;
}

#define EXPECT(c, ...)                    \
	do {                              \
		if (!(c))                 \
			bad(__VA_ARGS__); \
	} while (0)

/* A step that must work for the rest of the case to mean anything. */
static void need(int r, const char *what)
{
	if (r >= 0)
		return;
	fprintf(stderr, "  FAIL: %s: %s\n", what, strerror(-r));
	exit(1);
}

/* One command to device dev's fault file: 0 or -errno. */
static int fault(int dev, const char *fmt, ...)
{
	char path[64], cmd[64];
	va_list ap;
	int fd, r = 0;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "/proc/trs_chan/dev%d-ts0/fault", dev);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, cmd, strlen(cmd)) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* A counter line ("NAME VALUE") of device dev's fault file, -1 if none. */
static long long fault_count(int dev, const char *name)
{
	char path[64], line[128];
	long long v = -1;
	size_t n = strlen(name);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/trs_chan/dev%d-ts0/fault", dev);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ' ')
			v = atoll(line + n + 1);
	fclose(f);
	return v;
}

/* The AI cores device dev has free, from its summary's first line. */
static int aic_free(int dev)
{
	char path[64], line[256];
	const char *p;
	int v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/trs_chan/dev%d-ts0/summary", dev);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f) && (p = strstr(line, "aic_free ")))
		v = atoi(p + 9);
	fclose(f);
	return v;
}

/* n AI-core tasks of dur_ns on stream sid, ids from first, at once. */
static int submit(int fd, uint32_t sid, uint16_t first, int n, uint64_t dur_ns)
{
	static struct npusim_sqe q[1024];
	static struct npusim_task_model m[1024];

	if (n > 1024)
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		npusim_sqe_init(&q[i], NPUSIM_SQE_AI_CORE, sid, (uint16_t)(first + i));
		q[i].ctrl = sqe_ctrl;
		q[i].block_dim = 4;
		memset(&m[i], 0, sizeof(m[i]));
		m[i].duration_ns = dur_ns;
	}
	return npusim_sq_send_model(fd, sid, q, m, n, 5000, NULL);
}

static struct npusim_stream_status status(int fd, uint32_t sid)
{
	struct npusim_stream_status st;

	need(npusim_stream_status(fd, sid, &st), "stream status");
	return st;
}

/* Everything in sid's CQ now (up to cap), waiting up to ms for the first. */
static int take(int fd, uint32_t sid, struct npusim_cqe *cq, int cap, int ms)
{
	int got = 0, r;

	while (got < cap) {
		r = npusim_cq_recv(fd, sid, cq + got, cap - got > 1024 ? 1024 : cap - got,
				   got ? 0 : ms);
		if (r == -ETIMEDOUT || r == 0)
			break;
		need(r, "cq recv");
		got += r;
	}
	return got;
}

/* ---- reset ----------------------------------------------------------------- */

static void case_reset(void)
{
	struct npusim_cqe cq[64];
	struct npusim_dev_info info;
	uint32_t sid, idle;
	int fd = npusim_dev_open(0), n;
	long long aborted0 = fault_count(0, "aborted");

	need(fd, "open npusim0");
	need(npusim_dev_info(fd, &info), "dev info");
	need(npusim_stream_create(fd, &sid), "stream");
	need(npusim_stream_create(fd, &idle), "idle stream");
	/* one running 2 s task and nine behind it */
	need(submit(fd, sid, 100, 10, 2000000000ULL), "submit");
	usleep(50000);
	struct npusim_stream_status st = status(fd, sid);
	EXPECT(st.running == 1 && st.queued == 10, "before reset: running %u queued %u", st.running,
	       st.queued);
	EXPECT(aic_free(0) == (int)info.aicore_num - 4, "a running task holds 4 cores: %d free",
	       aic_free(0));
	need(fault(0, "stall %u 0", sid), "stall");
	need(fault(0, "reset"), "reset");
	st = status(fd, sid);
	EXPECT(st.running == 0 && st.queued == 0 && st.completed == 0,
	       "after reset: running %u queued %u completed %llu", st.running, st.queued,
	       (unsigned long long)st.completed);
	EXPECT(aic_free(0) == (int)info.aicore_num, "cores not released: %d free", aic_free(0));
	EXPECT(fault_count(0, "aborted") == aborted0 + 10, "aborted %lld, want %lld",
	       fault_count(0, "aborted"), aborted0 + 10);
	/* ten error CQEs, in SQ order, whatever the CQE mode */
	n = take(fd, sid, cq, 64, 1000);
	EXPECT(n == 10, "%d CQEs after the reset, want 10 (cqe_mode %u)", n, info.cqe_mode);
	for (int i = 0; i < n && i < 10; i++)
		EXPECT(cq[i].task_id == 100 + i && (cq[i].flags & NPUSIM_CQE_ERROR) &&
			       cq[i].sq_head == (uint16_t)((i + 1) % info.sq_depth),
		       "CQE %d: task %u flags %#x sq_head %u", i, cq[i].task_id, cq[i].flags,
		       cq[i].sq_head);
	EXPECT(take(fd, idle, cq, 64, 0) == 0, "the idle stream got a CQE");
	/* the stall went with the task it held; the stream works again */
	need(submit(fd, sid, 200, 3, 1000), "submit after reset");
	need(npusim_stream_sync(fd, sid, 5000), "sync after reset");
	n = take(fd, sid, cq, 64, 1000);
	EXPECT(n == (info.cqe_mode ? 0 : 3), "%d CQEs after the reset", n);
	for (int i = 0; i < n; i++)
		EXPECT(cq[i].task_id == 200 + i && !(cq[i].flags & NPUSIM_CQE_ERROR),
		       "CQE %d after reset: task %u flags %#x", i, cq[i].task_id, cq[i].flags);
	EXPECT(status(fd, sid).completed == 3, "completed after reset");
	/* an event recorded before the reset is forgotten */
	uint32_t ev;

	need(npusim_id_alloc(fd, NPUSIM_ID_EVENT, &ev), "event");
	struct npusim_sqe q;

	npusim_sqe_init(&q, NPUSIM_SQE_EVENT_RECORD, sid, 300);
	npusim_sqe_set_sync_id(&q, ev);
	need(npusim_sq_send(fd, sid, &q, 1, 1000, NULL), "record");
	need(npusim_stream_sync(fd, sid, 5000), "sync record");
	need(fault(0, "reset"), "second reset");
	npusim_sqe_init(&q, NPUSIM_SQE_EVENT_WAIT, idle, 1);
	npusim_sqe_set_sync_id(&q, ev);
	need(npusim_sq_send(fd, idle, &q, 1, 1000, NULL), "wait");
	EXPECT(npusim_stream_sync(fd, idle, 300) == -ETIMEDOUT,
	       "an event recorded before the reset was still set");
	need(fault(0, "reset"), "third reset");
	EXPECT(status(fd, idle).queued == 0, "the wait was not aborted");
	close(fd);
}

/* ---- unknown --------------------------------------------------------------- */

static void case_unknown(void)
{
	struct npusim_cqe cq[16];
	uint32_t sid;
	int fd = npusim_dev_open(1), n;
	long long u0 = fault_count(1, "unknown");

	need(fd, "open npusim1");
	need(npusim_stream_create(fd, &sid), "stream");
	need(submit(fd, sid, 5, 3, 1000), "submit");
	need(npusim_stream_sync(fd, sid, 5000), "sync");
	need(fault(1, "unknown %u", sid), "unknown");
	need(fault(1, "unknown %u 4242", sid), "unknown with an id");
	n = take(fd, sid, cq, 16, 1000);
	EXPECT(n == 5, "%d CQEs, want 3 + 2", n);
	if (n == 5)
		EXPECT(cq[3].task_id == (7 ^ 0x8000) && cq[4].task_id == 4242 &&
			       cq[3].stream_id == sid && !(cq[3].flags & NPUSIM_CQE_ERROR),
		       "unknown CQEs: tasks %u %u stream %u flags %#x", cq[3].task_id,
		       cq[4].task_id, cq[3].stream_id, cq[3].flags);
	struct npusim_stream_status st = status(fd, sid);

	EXPECT(st.completed == 3 && st.queued == 0, "the SQ moved: completed %llu queued %u",
	       (unsigned long long)st.completed, st.queued);
	EXPECT(fault_count(1, "unknown") == u0 + 2, "unknown count %lld",
	       fault_count(1, "unknown"));
	EXPECT(fault(1, "unknown 1000") == -ENOENT, "a CQE for a missing stream");
	EXPECT(fault(1, "unknown %u 65536", sid) == -EINVAL, "a 17-bit task id");
	close(fd);
}

/* ---- a full CQ ------------------------------------------------------------- */

/*
 * The host stops receiving; 1000 + 100 tasks finish into a CQ of sq_depth
 * (1024) entries. hold = 0: the last 76 CQEs are lost and counted, every
 * task completes. hold = 1: the stream stops at the 1025th task with
 * nothing lost, and goes on when the host receives again.
 */
static void case_cqfull(int hold)
{
	static struct npusim_cqe cq[2048];
	struct npusim_dev_info info;
	uint32_t sid;
	int fd = npusim_dev_open(0), n;
	long long ovf0 = fault_count(0, "cq_overflow");

	need(fd, "open npusim0");
	need(npusim_dev_info(fd, &info), "dev info");
	if (info.sq_depth != 1024) {
		bad("needs sq_depth 1024");
		return;
	}
	need(npusim_stream_create(fd, &sid), "stream");
	need(fault(0, "cqfull %u", sid), "cqfull");
	need(submit(fd, sid, 0, 1000, 1000), "submit 1000");
	need(npusim_stream_sync(fd, sid, 10000), "sync 1000");
	EXPECT(take(fd, sid, cq, 16, 50) == 0, "received while the host is stopped");
	need(submit(fd, sid, 1000, 100, 1000), "submit 100");
	struct npusim_stream_status st;

	if (hold) {
		/* held, not lost: wait for the 24 that fit, then stay put */
		for (int i = 0; i < 100 && status(fd, sid).cq_pending < 1024; i++)
			usleep(20000);
		usleep(200000);
		st = status(fd, sid);
		EXPECT(st.cq_pending == 1024 && st.completed == 1024 && st.queued == 76 &&
			       st.running == 1 && st.cq_overflow == 0,
		       "held: pending %u completed %llu queued %u running %u overflow %llu",
		       st.cq_pending, (unsigned long long)st.completed, st.queued, st.running,
		       (unsigned long long)st.cq_overflow);
		EXPECT(npusim_stream_sync(fd, sid, 200) == -ETIMEDOUT,
		       "a stream held for CQ room went idle");
	} else {
		need(npusim_stream_sync(fd, sid, 10000), "sync 100");
		st = status(fd, sid);
		EXPECT(st.cq_pending == 1024 && st.completed == 1100 && st.cq_overflow == 76,
		       "overflow: pending %u completed %llu overflow %llu", st.cq_pending,
		       (unsigned long long)st.completed, (unsigned long long)st.cq_overflow);
		EXPECT(fault_count(0, "cq_overflow") == ovf0 + 76,
		       "device cq_overflow %lld, want %lld", fault_count(0, "cq_overflow"),
		       ovf0 + 76);
	}
	need(fault(0, "clear"), "clear");
	/* the host receives again: every CQE kept, in order */
	n = 0;
	for (int tries = 0; tries < 200 && n < (hold ? 1100 : 1024); tries++)
		n += take(fd, sid, cq + n, 2048 - n, 100);
	EXPECT(n == (hold ? 1100 : 1024), "received %d CQEs", n);
	for (int i = 0; i < n; i++)
		if (cq[i].task_id != i) {
			bad("CQE %d is task %u", i, cq[i].task_id);
			break;
		}
	need(npusim_stream_sync(fd, sid, 10000), "sync after clear");
	st = status(fd, sid);
	EXPECT(st.completed == 1100 && st.cq_overflow == (hold ? 0 : 76),
	       "at the end: completed %llu overflow %llu", (unsigned long long)st.completed,
	       (unsigned long long)st.cq_overflow);
	close(fd);
}

/* ---- the workload ------------------------------------------------------------ */

static int work(int dev, long ntask, long us)
{
	struct npusim_cqe cq[256];
	uint32_t sid;
	long sent = 0, cqes = 0, errors = 0, strangers = 0;
	int fd = npusim_dev_open(dev), r;

	need(fd, "open npusim");
	need(npusim_stream_create(fd, &sid), "stream");
	printf("work: pid %d device %d stream %u, %ld tasks of %ld us\n", (int)getpid(), dev, sid,
	       ntask, us);
	fflush(stdout);
	while (sent < ntask) {
		int n = ntask - sent < 16 ? (int)(ntask - sent) : 16;

		r = submit(fd, sid, (uint16_t)sent, n, (uint64_t)us * 1000);
		if (r == -ETIMEDOUT || r == -EBUSY)
			continue;
		need(r, "submit");
		sent += n;
		while ((r = npusim_cq_recv(fd, sid, cq, 256, 0)) > 0)
			for (int i = 0; i < r; i++) {
				cqes++;
				errors += !!(cq[i].flags & NPUSIM_CQE_ERROR);
				strangers += cq[i].task_id >= ntask;
			}
		/* keep about 32 tasks queued: the device sets the pace */
		while (status(fd, sid).queued > 32)
			usleep(us > 1000 ? 1000 : (useconds_t)us);
	}
	need(npusim_stream_sync(fd, sid, -1), "sync");
	while ((r = npusim_cq_recv(fd, sid, cq, 256, 0)) > 0)
		for (int i = 0; i < r; i++) {
			cqes++;
			errors += !!(cq[i].flags & NPUSIM_CQE_ERROR);
			strangers += cq[i].task_id >= ntask;
		}
	printf("work: %ld tasks, %ld CQEs, %ld errors, %ld unknown\n", sent, cqes, errors,
	       strangers);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";

	if (strcmp(c, "reset"))
		sqe_ctrl = NPUSIM_SQE_CTRL_WR_CQE;
	if (!strcmp(c, "reset"))
		case_reset();
	else if (!strcmp(c, "unknown"))
		case_unknown();
	else if (!strcmp(c, "cqfull"))
		case_cqfull(0);
	else if (!strcmp(c, "cqhold"))
		case_cqfull(1);
	else if (!strcmp(c, "work") && (argc == 5 || (argc == 6 && !strcmp(argv[5], "cqe")))) {
		sqe_ctrl = argc == 6 ? NPUSIM_SQE_CTRL_WR_CQE : 0;
		return work(atoi(argv[2]), atol(argv[3]), atol(argv[4]));
	} else {
		fprintf(stderr,
			"usage: fault_test reset|unknown|cqfull|cqhold|work DEV N US [cqe]\n");
		return 2;
	}
	return nfail ? 1 : 0;
}
