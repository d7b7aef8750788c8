/*
 * capture_test — in-VM tests of a capture engine (default kmod; `-e bpf`
 * for the BPF engine) against known npusim workloads.
 *
 *   capture_test [-e ENGINE] CASE      CASE: known known_realistic overflow
 *                                       filter_pid filter_pid_uio filter_dev
 *                                       filter_stream sample unpriv badioctl
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include "npuprof/engine.h"
#include "npusim_dev.h"

static const char *engine_name = "kmod";
static int failures;

static void fail(const char *fmt, ...)
{
	va_list ap;

	if (++failures > 20)
		return; /* the first ones tell the story */
	va_start(ap, fmt);
	fprintf(stderr, "  FAIL: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

#define CHECK(c, ...)                      \
	do {                               \
		if (!(c))                  \
			fail(__VA_ARGS__); \
	} while (0)

/* ---- collecting records ------------------------------------------------- */

struct cap {
	struct npuprof_record *r;
	size_t n, cap;
};

static int collect(void *ctx, const struct npuprof_record *r)
{
	struct cap *c = ctx;

	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 4096;
		c->r = realloc(c->r, c->cap * sizeof(*c->r));
		if (!c->r)
			abort();
	}
	c->r[c->n++] = *r;
	return 0;
}

static struct npuprof_engine *open_engine(struct npuprof_capture_opts *o)
{
	struct npuprof_engine *e;
	char err[NPUPROF_ENGINE_ERRLEN];

	if (npuprof_engine_open(&e, engine_name, o, err, sizeof(err)) < 0) {
		fail("open engine: %s", err);
		exit(1);
	}
	if (e->ops->start(e) < 0) {
		fail("start: %s", e->err);
		exit(1);
	}
	return e;
}

/* Stop, drain and close; returns the stats. */
static void finish(struct npuprof_engine *e, struct cap *c, struct npuprof_stats *st)
{
	e->ops->stop(e);
	while (e->ops->read(e, collect, c) > 0)
		;
	memset(st, 0, sizeof(*st));
	e->ops->stats(e, st);
	npuprof_engine_close(e);
}

static size_t count_type(const struct cap *c, int type, int flags_mask, int flags)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		n += c->r[i].hdr.type == type && (c->r[i].hdr.flags & flags_mask) == flags;
	return n;
}

/* ---- workloads ------------------------------------------------------------ */

struct job {
	int dev;
	int ntask;
	int recv; /* receive the CQEs (Task Recv events) */
	uint32_t sid; /* out */
	int ok;
	uint32_t tid; /* out: the submitting thread */
};

static unsigned job_type(int i)
{
	static const unsigned t[] = { NPUSIM_SQE_AI_CORE, NPUSIM_SQE_AIV, NPUSIM_SQE_SDMA,
				      NPUSIM_SQE_PLACE_HOLDER, NPUSIM_SQE_AI_CPU };
	return t[i % 5];
}

/* Does device 0 write a CQE for task i of a job: every task with
 * cqe_mode=0; as a 910B (the default), only place holders of job_type's. */
static int job_cqe(int i)
{
	static int mode = -1;

	if (mode < 0) {
		struct npusim_dev_info info;
		int fd = npusim_dev_open(0);

		if (fd < 0 || npusim_dev_info(fd, &info)) {
			fail("device 0 info");
			exit(1);
		}
		close(fd);
		mode = (int)info.cqe_mode;
	}
	return !mode || job_type(i) == NPUSIM_SQE_PLACE_HOLDER;
}

/* When set, jobs hold their streams at this barrier before submitting, so
 * that concurrently running jobs get distinct stream ids. */
static pthread_barrier_t *job_barrier;

static void *job_main(void *p)
{
	struct job *j = p;
	struct npusim_sqe q[100];
	struct npusim_cqe cq[100];
	int fd = npusim_dev_open(j->dev);

	j->ok = 0;
	j->tid = (uint32_t)gettid();
	if (fd < 0 || npusim_stream_create(fd, &j->sid))
		return NULL;
	if (job_barrier)
		pthread_barrier_wait(job_barrier);
	for (int t = 0; t < j->ntask; t += 100) {
		int n = j->ntask - t < 100 ? j->ntask - t : 100;

		for (int i = 0; i < n; i++) {
			npusim_sqe_init(&q[i], job_type(t + i), j->sid, t + i);
			if (job_type(t + i) == NPUSIM_SQE_SDMA)
				npusim_sqe_set_sdma(&q[i], 1024, 0, 0);
		}
		if (npusim_sq_send(fd, j->sid, q, n, -1, NULL))
			return NULL;
		if (npusim_stream_sync(fd, j->sid, 10000))
			return NULL;
		if (j->recv) {
			int got = 0;
			while (got < n) {
				int r = npusim_cq_recv(fd, j->sid, cq, 100, 0);
				if (r <= 0)
					break;
				got += r;
			}
		}
	}
	close(fd);
	j->ok = 1;
	return NULL;
}

static void run_jobs(struct job *jobs, int n)
{
	pthread_t th[16];

	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, job_main, &jobs[i]);
	for (int i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		CHECK(jobs[i].ok, "job %d failed", i);
	}
}

/* ---- cases ---------------------------------------------------------------- */

/* N tasks over several streams, devices and threads; every field checked. */
static void case_known(int realistic)
{
	struct npuprof_capture_opts o = { 0 };
	struct job jobs[4] = { { 0, 1000, 1 }, { 1, 1000, 1 }, { 0, 500, 0 }, { 1, 700, 1 } };
	struct npuprof_engine *e;
	struct npuprof_stats st;
	struct cap c = { 0 };
	size_t N = 0, expect_cqe = 0;

	/* the case names the completion model; the suite loads it */
	CHECK(job_cqe(0) == !realistic, "npusim loaded with cqe_mode=%d, want %d", !job_cqe(0),
	      realistic);
	o.pid = getpid();
	e = open_engine(&o);
	run_jobs(jobs, 4);
	finish(e, &c, &st);

	for (int j = 0; j < 4; j++) {
		N += jobs[j].ntask;
		for (int i = 0; i < jobs[j].ntask; i++)
			expect_cqe += job_cqe(i);
	}
	size_t sub = count_type(&c, NPUPROF_REC_SUBMIT, 0, 0);
	size_t disp = count_type(&c, NPUPROF_REC_COMPLETE, NPUPROF_F_CQE_RECV, 0);
	size_t tt = count_type(&c, NPUPROF_REC_TASK_TIME, 0, 0);
	CHECK(sub == N, "submits %zu, want %zu", sub, N);
	CHECK(disp == expect_cqe, "completions %zu, want %zu", disp, expect_cqe);
	/* device task times are the STARS log's, not the kernel stream's */
	CHECK(tt == 0, "%zu task-time records from the kernel", tt);
	CHECK(st.dropped == 0, "dropped %llu", (unsigned long long)st.dropped);

	/* per stream: submits in task order with the submitted fields */
	for (int j = 0; j < 4; j++) {
		int next = 0, ncqe = 0;
		uint32_t lastc = 0, tail[1000];

		for (size_t i = 0; i < c.n; i++) {
			const struct npuprof_record *r = &c.r[i];

			if (r->hdr.type == NPUPROF_REC_SUBMIT &&
			    r->submit.devid == (uint32_t)jobs[j].dev &&
			    r->submit.stream_id == jobs[j].sid) {
				/* KIO: in the submitting thread; UIO_T: in the
				 * driver's kernel thread, attributed to us */
				int owner = !!(r->hdr.flags & NPUPROF_F_SQ_OWNER);

				CHECK(owner ? r->hdr.tid != jobs[j].tid : r->hdr.tid == jobs[j].tid,
				      "job %d submit %d: in thread %u (owner flag %d)", j, next,
				      r->hdr.tid, owner);
				CHECK(r->submit.task_id == (uint32_t)next &&
					      r->submit.sqe_type == job_type(next) &&
					      r->submit.sq_id == jobs[j].sid &&
					      r->submit.tsid == 0 &&
					      r->hdr.pid == (uint32_t)getpid() &&
					      r->hdr.tid != r->hdr.pid,
				      "job %d submit %d: task %u type %u sq %u pid %u tid %u", j,
				      next, r->submit.task_id, r->submit.sqe_type, r->submit.sq_id,
				      r->hdr.pid, r->hdr.tid);
				if (next < 1000)
					tail[next] = r->submit.sq_tail;
				next++;
			}
			/* a CQE: of a task submitted, in task order, on its
			 * own SQ, with the SQ consumed past it */
			if (r->hdr.type == NPUPROF_REC_COMPLETE &&
			    !(r->hdr.flags & NPUPROF_F_CQE_RECV) &&
			    r->complete.devid == (uint32_t)jobs[j].dev &&
			    npuprof_stream_id(r->complete.stream_id) == jobs[j].sid) {
				CHECK(r->complete.task_id < (uint32_t)next &&
					      (!ncqe || r->complete.task_id > lastc) &&
					      r->complete.sq_id == jobs[j].sid &&
					      r->complete.sq_head == tail[r->complete.task_id],
				      "job %d CQE %d: task %u (after %u, %d submitted) sq %u head %u",
				      j, ncqe, r->complete.task_id, lastc, next, r->complete.sq_id,
				      r->complete.sq_head);
				lastc = r->complete.task_id;
				ncqe++;
			}
		}
		CHECK(next == jobs[j].ntask, "job %d: %d submits", j, next);
	}
	/* per-CPU timestamps never go backwards; the merge is global order */
	uint64_t last[1024] = { 0 }, prev = 0;
	for (size_t i = 0; i < c.n; i++) {
		const struct npuprof_record *r = &c.r[i];

		CHECK(r->hdr.cpu < 1024 && r->hdr.ts >= last[r->hdr.cpu],
		      "CPU %u time went backwards", r->hdr.cpu);
		CHECK(r->hdr.ts >= prev, "merged stream out of order at %zu", i);
		last[r->hdr.cpu % 1024] = r->hdr.ts;
		prev = r->hdr.ts;
	}
	free(c.r);
}

/* A tiny ring that overflows: captured + dropped == produced, exactly. */
static void case_overflow(void)
{
	struct npuprof_capture_opts o = { .ring_bytes = 64 << 10, .flags = NPUPROF_CFG_NO_RECV };
	struct job jobs[2] = { { 0, 20000, 0 }, { 1, 20000, 0 } };
	struct npuprof_engine *e;
	struct npuprof_stats st;
	struct cap c = { 0 };
	uint64_t produced = 0, lost = 0;
	size_t captured = 0;

	e = open_engine(&o);
	run_jobs(jobs, 2); /* nobody reads while this runs */
	while (e->ops->read(e, collect, &c) > 0)
		;
	/* the next record that fits is preceded by a DROP record */
	struct job after = { 0, 10, 0 };
	run_jobs(&after, 1);
	finish(e, &c, &st);
	for (int t = 0; t < NPUPROF_REC_TYPE_MAX; t++)
		produced += st.events[t];
	for (size_t i = 0; i < c.n; i++) {
		if (c.r[i].hdr.type == NPUPROF_REC_DROP)
			lost += c.r[i].drop.lost;
		else
			captured++;
	}
	/* The ring wrapped many times and npuprof.ko encodes each record in
	 * its slot: no byte of an older record may survive in a newer one. A
	 * record is exactly what its encoder makes of its own fields (the
	 * header stamped on top), and a DROP record has the time and CPU of
	 * the record it precedes. */
	for (size_t i = 0; i < c.n; i++) {
		const struct npuprof_record *r = &c.r[i];
		struct npuprof_record want;

		memset(&want, 0, sizeof(want));
		if (r->hdr.type == NPUPROF_REC_SUBMIT) {
			struct trs_id_inst inst = { .devid = r->submit.devid,
						    .tsid = r->submit.tsid };
			struct trs_chan_sq_trace t = { .chan_id = r->submit.chan_id,
						       .sqid = r->submit.sq_id,
						       .sq_head = r->submit.sq_head,
						       .sq_tail = r->submit.sq_tail,
						       .type = r->submit.sqe_type,
						       .task_id = r->submit.task_id,
						       .stream_id = r->submit.stream_id };

			npuprof_encode_submit(&want, &inst, &t);
		} else if (r->hdr.type == NPUPROF_REC_COMPLETE) {
			struct trs_id_inst inst = { .devid = r->complete.devid,
						    .tsid = r->complete.tsid };
			struct trs_chan_cq_trace t = { .cqid = r->complete.cq_id,
						       .cq_head = r->complete.cq_head,
						       .round = r->complete.round,
						       .task_id = r->complete.task_id,
						       .stream_id = r->complete.stream_id,
						       .sq_id = r->complete.sq_id,
						       .sq_head = r->complete.sq_head,
						       .chan_id = r->complete.chan_id };

			npuprof_encode_complete(&want, &inst, &t,
						r->hdr.flags & NPUPROF_F_CQE_RECV);
		} else if (r->hdr.type == NPUPROF_REC_DROP) {
			want.hdr.type = NPUPROF_REC_DROP;
			want.hdr.size = NPUPROF_RECORD_SIZE;
			want.drop.lost = r->drop.lost;
			size_t j = i + 1;

			while (j < c.n && c.r[j].hdr.cpu != r->hdr.cpu)
				j++;
			CHECK(j < c.n && c.r[j].hdr.ts == r->hdr.ts,
			      "DROP record %zu: not stamped as its CPU's next record", i);
		} else {
			CHECK(0, "record %zu: unexpected type %u", i, r->hdr.type);
			continue;
		}
		want.hdr.flags |= r->hdr.flags & NPUPROF_F_SQ_OWNER;
		want.hdr.ts = r->hdr.ts;
		want.hdr.cpu = r->hdr.cpu;
		want.hdr.pid = r->hdr.pid;
		want.hdr.tid = r->hdr.tid;
		CHECK(!memcmp(&want, r, sizeof(want)),
		      "record %zu (type %u): bytes its encoder does not write", i, r->hdr.type);
	}
	printf("  produced %llu captured %zu dropped %llu (markers report %llu)\n",
	       (unsigned long long)produced, captured, (unsigned long long)st.dropped,
	       (unsigned long long)lost);
	CHECK(st.dropped > 0, "the ring did not overflow");
	CHECK(captured + st.dropped == produced, "captured %zu + dropped %llu != produced %llu",
	      captured, (unsigned long long)st.dropped, (unsigned long long)produced);
	/* a CPU that wrote nothing after the overflow still owes its marker */
	CHECK(lost > 0 && lost <= st.dropped, "drop markers report %llu of %llu",
	      (unsigned long long)lost, (unsigned long long)st.dropped);
	free(c.r);
}

/* Only the selected process's tasks, including their completions. */
/* With @uio (npusim loaded with sq_send_mode=1, as a 910B) every submit
 * fires in the driver's forwarding kernel thread: the engine must still
 * keep all of ours, attributed to us by the SQ owner table, and none of the
 * other process's. */
static void case_filter_pid(int uio)
{
	struct npuprof_capture_opts o = { 0 };
	struct npuprof_engine *e;
	struct npuprof_stats st;
	struct cap c = { 0 };
	int go[2];
	pid_t other;

	if (pipe(go))
		exit(1);
	other = fork();
	if (other == 0) {
		struct job j = { 0, 3000, 1 };
		char b;

		if (read(go[0], &b, 1) != 1)
			_exit(1);
		job_main(&j);
		_exit(j.ok ? 0 : 1);
	}
	o.pid = getpid();
	e = open_engine(&o);
	if (write(go[1], "g", 1) != 1)
		exit(1);
	struct job mine = { 1, 1000, 1 };
	run_jobs(&mine, 1);
	waitpid(other, NULL, 0);
	finish(e, &c, &st);
	for (size_t i = 0; i < c.n; i++) {
		const struct npuprof_record *r = &c.r[i];

		if (r->hdr.type == NPUPROF_REC_SUBMIT || r->hdr.type == NPUPROF_REC_RECV ||
		    (r->hdr.flags & NPUPROF_F_CQE_RECV))
			CHECK(r->hdr.pid == (uint32_t)getpid(), "record of pid %u", r->hdr.pid);
		if (r->hdr.type == NPUPROF_REC_SUBMIT && uio) {
			CHECK(r->hdr.flags & NPUPROF_F_SQ_OWNER,
			      "submit not attributed to its SQ owner");
			CHECK(r->hdr.tid != mine.tid, "submit in the submitting thread %u",
			      r->hdr.tid);
		} else if (r->hdr.type == NPUPROF_REC_SUBMIT) {
			CHECK(!(r->hdr.flags & NPUPROF_F_SQ_OWNER), "KIO submit flagged");
			CHECK(r->hdr.tid == mine.tid, "KIO submit in thread %u", r->hdr.tid);
		}
		if (r->hdr.type == NPUPROF_REC_COMPLETE)
			CHECK(r->complete.devid == 1, "completion of the other process");
	}
	CHECK(count_type(&c, NPUPROF_REC_SUBMIT, 0, 0) == 1000, "submits %zu",
	      count_type(&c, NPUPROF_REC_SUBMIT, 0, 0));
	CHECK(count_type(&c, NPUPROF_REC_COMPLETE, NPUPROF_F_CQE_RECV, 0) > 0, "no completion");
	CHECK(st.filtered > 0, "nothing filtered");
	free(c.r);
}

/* Two sessions at once, one with NO_RECV: recv records the other session
 * wants are neither written to it nor counted as its probe hits. */
static void case_no_recv_shared(void)
{
	struct npuprof_capture_opts with = { 0 };
	struct npuprof_capture_opts without = { .flags = NPUPROF_CFG_NO_RECV };
	struct job jobs[1] = { { 0, 200, 1 } };
	struct npuprof_engine *a, *b;
	struct npuprof_stats sa, sb;
	struct cap ca = { 0 }, cb = { 0 };

	with.pid = without.pid = getpid();
	a = open_engine(&with);
	b = open_engine(&without);
	run_jobs(jobs, 1);
	finish(a, &ca, &sa);
	finish(b, &cb, &sb);
	CHECK(count_type(&ca, NPUPROF_REC_RECV, 0, 0) > 0,
	      "no recv records in the session that wants them");
	CHECK(count_type(&cb, NPUPROF_REC_RECV, 0, 0) == 0,
	      "%zu recv records in the NO_RECV session", count_type(&cb, NPUPROF_REC_RECV, 0, 0));
	CHECK(sb.events[NPUPROF_REC_RECV] == 0, "%llu recv hits counted by the NO_RECV session",
	      (unsigned long long)sb.events[NPUPROF_REC_RECV]);
	CHECK(count_type(&cb, NPUPROF_REC_SUBMIT, 0, 0) == 200, "submits %zu",
	      count_type(&cb, NPUPROF_REC_SUBMIT, 0, 0));
	free(ca.r);
	free(cb.r);
}

static void case_filter_dev(void)
{
	struct npuprof_capture_opts o = { .dev_mask = 1u << 1 };
	struct job jobs[2] = { { 0, 1000, 1 }, { 1, 1000, 1 } };
	struct npuprof_engine *e;
	struct npuprof_stats st;
	struct cap c = { 0 };

	o.pid = getpid();
	e = open_engine(&o);
	run_jobs(jobs, 2);
	finish(e, &c, &st);
	for (size_t i = 0; i < c.n; i++)
		CHECK(c.r[i].submit.devid == 1, "record of device %u (type %u)",
		      c.r[i].submit.devid, c.r[i].hdr.type);
	CHECK(count_type(&c, NPUPROF_REC_SUBMIT, 0, 0) == 1000, "submits");
	free(c.r);
}

static void case_filter_stream(void)
{
	struct npuprof_capture_opts o = { 0 };
	struct job jobs[3] = { { 0, 600, 0 }, { 0, 600, 0 }, { 0, 600, 0 } };
	struct npuprof_engine *e;
	struct npuprof_stats st;
	struct cap c = { 0 };
	/* streams are allocated lowest-first: keep the middle one's id */
	uint32_t keep = 1;

	o.pid = getpid();
	o.streams = &keep;
	o.nstreams = 1;
	o.flags = NPUPROF_CFG_NO_RECV;
	pthread_barrier_t bar;
	pthread_barrier_init(&bar, NULL, 3);
	job_barrier = &bar;
	e = open_engine(&o);
	run_jobs(jobs, 3);
	job_barrier = NULL;
	pthread_barrier_destroy(&bar);
	finish(e, &c, &st);
	size_t n = 0;
	for (size_t i = 0; i < c.n; i++) {
		const struct npuprof_record *r = &c.r[i];
		uint32_t s = r->hdr.type == NPUPROF_REC_SUBMIT ?
				     r->submit.stream_id :
				     npuprof_stream_id(r->complete.stream_id);
		CHECK(s == keep, "record of stream %u", s);
		n += r->hdr.type == NPUPROF_REC_SUBMIT;
	}
	CHECK(n == 600, "%zu submits of stream %u", n, keep);
	free(c.r);
}

/* 1-in-N: about 1/N of tasks, submits and completions kept together: every
 * kept CQE has its submit, and every kept submit of a task that writes a
 * CQE its CQE. */
static void case_sample(void)
{
	enum {
		N = 10,
		TASKS = 20000
	};
	struct npuprof_capture_opts o = { .sample_n = N, .flags = NPUPROF_CFG_NO_RECV };
	struct job jobs[2] = { { 0, TASKS / 2, 0 }, { 1, TASKS / 2, 0 } };
	struct npuprof_engine *e;
	struct npuprof_stats st;
	struct cap c = { 0 };

	o.pid = getpid();
	e = open_engine(&o);
	run_jobs(jobs, 2);
	finish(e, &c, &st);
	size_t sub = count_type(&c, NPUPROF_REC_SUBMIT, 0, 0);
	/* binomial(20000, 0.1): sd ~42; allow 5 sd */
	CHECK(sub > TASKS / N - 220 && sub < TASKS / N + 220, "kept %zu of %d submits at 1 in %d",
	      sub, TASKS, N);
	/* every kept completion has its submit and vice versa */
	static unsigned char seen[2][65536][2];
	memset(seen, 0, sizeof(seen));
	for (size_t i = 0; i < c.n; i++) {
		const struct npuprof_record *r = &c.r[i];
		if (r->hdr.type == NPUPROF_REC_SUBMIT)
			seen[r->submit.devid & 1][r->submit.task_id & 0xffff][0]++;
		else if (r->hdr.type == NPUPROF_REC_COMPLETE)
			seen[r->complete.devid & 1][r->complete.task_id & 0xffff][1]++;
	}
	size_t orphan = 0, cqes = 0;
	for (int d = 0; d < 2; d++)
		for (int t = 0; t < TASKS / 2; t++) {
			orphan += seen[d][t][1] != (seen[d][t][0] && job_cqe(t));
			cqes += seen[d][t][1];
		}
	CHECK(orphan == 0, "%zu tasks kept without their pair", orphan);
	CHECK(cqes > 0, "no CQE kept");
	CHECK(st.sampled_out > 0, "sampled_out not counted");
	free(c.r);
}

/* An unprivileged user may capture only its own processes. */
static void case_unpriv(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		struct npuprof_capture_opts o = { 0 };
		struct npuprof_engine *e;
		char err[NPUPROF_ENGINE_ERRLEN];
		struct npuprof_stats s;
		struct cap c = { 0 };

		if (setgid(65534) || setuid(65534)) {
			fail("cannot become nobody");
			_exit(1);
		}
		int r = npuprof_engine_open(&e, engine_name, &o, err, sizeof(err));
		CHECK(r == -EPERM, "system-wide capture as nobody: %d (%s)", r, err);
		o.pid = 1; /* init belongs to root */
		r = npuprof_engine_open(&e, engine_name, &o, err, sizeof(err));
		CHECK(r == -EPERM, "capture of pid 1 as nobody: %d (%s)", r, err);
		o.pid = getpid();
		r = npuprof_engine_open(&e, engine_name, &o, err, sizeof(err));
		CHECK(r == 0, "self capture as nobody: %s", err);
		if (r == 0) {
			CHECK(e->ops->start(e) == 0, "start as nobody");
			struct job j = { 0, 200, 1 };
			job_main(&j);
			CHECK(j.ok, "nobody cannot submit");
			finish(e, &c, &s);
			CHECK(count_type(&c, NPUPROF_REC_SUBMIT, 0, 0) == 200,
			      "self capture got %zu submits",
			      count_type(&c, NPUPROF_REC_SUBMIT, 0, 0));
		}
		_exit(failures ? 1 : 0);
	}
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "unprivileged checks failed");
}

static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

#define EXPECT(call, err)                                                                         \
	do {                                                                                      \
		int r_ = (call);                                                                  \
		CHECK(r_ == (err), "%s = %d (%s), want %d", #call, r_, r_ ? strerror(-r_) : "ok", \
		      err);                                                                       \
	} while (0)

/* Invalid ioctls on /dev/npuprof get the right errno. */
static void case_badioctl(void)
{
	int fd = open("/dev/npuprof", O_RDWR);
	struct npuprof_config cfg;
	struct npuprof_consume cm = { 0 };
	struct npuprof_stats st;

	if (fd < 0) {
		fail("open /dev/npuprof: %s", strerror(errno));
		return;
	}
	EXPECT(xioctl(fd, _IO('q', 1), NULL), -ENOTTY);
	EXPECT(xioctl(fd, NPUPROF_IOC_VERSION, NULL), -EFAULT);
	EXPECT(xioctl(fd, NPUPROF_IOC_CONFIGURE, (void *)16), -EFAULT);
	EXPECT(xioctl(fd, NPUPROF_IOC_START, NULL), -EINVAL);
	EXPECT(xioctl(fd, NPUPROF_IOC_STOP, NULL), -EINVAL);
	EXPECT(xioctl(fd, NPUPROF_IOC_CONSUME, &cm), -EINVAL);
	memset(&cfg, 0, sizeof(cfg));
	cfg.ring_bytes = 100000;
	cfg.watermark = 1;
	EXPECT(xioctl(fd, NPUPROF_IOC_CONFIGURE, &cfg), -EINVAL);
	/* the ring size rule of uapi/npuprof.h, at both ends */
	cfg.ring_bytes = NPUPROF_RING_MIN_BYTES / 2;
	EXPECT(xioctl(fd, NPUPROF_IOC_CONFIGURE, &cfg), -EINVAL);
	cfg.ring_bytes = NPUPROF_RING_MAX_BYTES * 2;
	EXPECT(xioctl(fd, NPUPROF_IOC_CONFIGURE, &cfg), -EINVAL);
	cfg.ring_bytes = NPUPROF_RING_MIN_BYTES;
	EXPECT(xioctl(fd, NPUPROF_IOC_CONFIGURE, &cfg), 0);
	/* the largest ring on every CPU: refused (not a vmalloc failure)
	 * when it would take more than its share of RAM */
	struct sysinfo si;

	if (sysinfo(&si) == 0) {
		uint64_t ram = (uint64_t)si.totalram * si.mem_unit;
		uint64_t all = NPUPROF_RING_MAX_BYTES * (uint64_t)get_nprocs_conf();

		cfg.ring_bytes = NPUPROF_RING_MAX_BYTES;
		if (all > ram / NPUPROF_RING_MEM_SHARE)
			EXPECT(xioctl(fd, NPUPROF_IOC_CONFIGURE, &cfg), -ENOMEM);
	}
	cfg.ring_bytes = 1 << 16;
	cfg.watermark = 0;
	EXPECT(xioctl(fd, NPUPROF_IOC_CONFIGURE, &cfg), -EINVAL);
	cfg.watermark = 1;
	cfg.rsv[2] = 1;
	EXPECT(xioctl(fd, NPUPROF_IOC_CONFIGURE, &cfg), -EINVAL);
	cfg.rsv[2] = 0;
	cfg.flags = 0x100;
	EXPECT(xioctl(fd, NPUPROF_IOC_CONFIGURE, &cfg), -EINVAL);
	cfg.flags = 0;
	cfg.pid = 999999;
	EXPECT(xioctl(fd, NPUPROF_IOC_CONFIGURE, &cfg), -ESRCH);
	cfg.pid = 0;
	EXPECT(xioctl(fd, NPUPROF_IOC_CONFIGURE, &cfg), 0);
	EXPECT(xioctl(fd, NPUPROF_IOC_START, NULL), 0);
	EXPECT(xioctl(fd, NPUPROF_IOC_START, NULL), -EBUSY);
	EXPECT(xioctl(fd, NPUPROF_IOC_CONFIGURE, &cfg), -EBUSY);
	cm.tail = 1ULL << 40;
	EXPECT(xioctl(fd, NPUPROF_IOC_CONSUME, &cm), -EINVAL);
	cm.tail = 0;
	cm.cpu = 100000;
	EXPECT(xioctl(fd, NPUPROF_IOC_CONSUME, &cm), -EINVAL);
	EXPECT(xioctl(fd, NPUPROF_IOC_STATS, &st), 0);
	CHECK(st.running == 1, "stats: not running");
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       (off_t)NPUPROF_MMAP_CTRL(0));
	CHECK(p == MAP_FAILED && errno == EPERM, "writable mapping allowed");
	p = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, (off_t)NPUPROF_MMAP_CTRL(0));
	CHECK(p == MAP_FAILED && errno == EINVAL, "oversized ctrl mapping allowed");
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)NPUPROF_MMAP_CTRL(0));
	CHECK(p != MAP_FAILED, "ctrl mapping refused");
	if (p != MAP_FAILED) {
		CHECK(mprotect(p, 4096, PROT_READ | PROT_WRITE) != 0,
		      "mprotect to writable allowed");
		/* pages dropped with MADV_DONTNEED come back on the next
		 * read (a fault, not SIGBUS), with the ring's contents */
		const struct npuprof_ring_ctrl *c = p;
		uint32_t slots = c->nr_slots;

		CHECK(madvise(p, 4096, MADV_DONTNEED) == 0, "madvise ctrl: %s", strerror(errno));
		CHECK(c->nr_slots == slots && slots == cfg.ring_bytes / NPUPROF_RECORD_SIZE,
		      "ctrl page after MADV_DONTNEED: %u slots, want %u", c->nr_slots,
		      (unsigned)(cfg.ring_bytes / NPUPROF_RECORD_SIZE));
		munmap(p, 4096);
	}
	p = mmap(NULL, cfg.ring_bytes, PROT_READ, MAP_SHARED, fd, (off_t)NPUPROF_MMAP_DATA(0));
	CHECK(p != MAP_FAILED, "data mapping refused: %s", strerror(errno));
	if (p != MAP_FAILED) {
		volatile const unsigned char *d = p;
		unsigned long sum = 0;

		CHECK(madvise(p, cfg.ring_bytes, MADV_DONTNEED) == 0, "madvise data: %s",
		      strerror(errno));
		for (uint64_t off = 0; off < cfg.ring_bytes; off += 4096)
			sum += d[off];
		(void)sum;
		munmap(p, cfg.ring_bytes);
	}
	EXPECT(xioctl(fd, NPUPROF_IOC_STOP, NULL), 0);

	/* random commands and arguments */
	static unsigned char buf[sizeof(struct npuprof_config) + 64];
	unsigned int seed = 777;
	const unsigned long cmds[] = { NPUPROF_IOC_VERSION, NPUPROF_IOC_CONFIGURE,
				       NPUPROF_IOC_START,   NPUPROF_IOC_STOP,
				       NPUPROF_IOC_STATS,   NPUPROF_IOC_CONSUME };
	for (int i = 0; i < 8000; i++) {
		unsigned k = rand_r(&seed);
		unsigned long cmd = k % 8 == 0 ? (unsigned long)rand_r(&seed) : cmds[k % 6];
		for (size_t j = 0; j < sizeof(buf); j++)
			buf[j] = rand_r(&seed);
		if (k % 3 == 0) { /* plausible configs now and then */
			memset(buf, 0, sizeof(buf));
			((struct npuprof_config *)buf)->ring_bytes = 1ULL
								     << (14 + rand_r(&seed) % 6);
			((struct npuprof_config *)buf)->watermark = 1 + rand_r(&seed) % 64;
		}
		void *arg = k % 5 == 0 ? NULL : k % 5 == 1 ? (void *)(uintptr_t)rand_r(&seed) : buf;
		int r = ioctl(fd, cmd, arg);
		if (r < 0 && errno != EINVAL && errno != EFAULT && errno != ENOTTY &&
		    errno != EBUSY && errno != ESRCH && errno != EPERM && errno != ENOMEM) {
			fail("random ioctl %#lx: errno %s", cmd, strerror(errno));
			break;
		}
	}
	close(fd);
}

int main(int argc, char **argv)
{
	int a = 1;

	if (argc > 2 && !strcmp(argv[1], "-e")) {
		engine_name = argv[2];
		a = 3;
	}
	if (a >= argc) {
		fprintf(stderr, "usage: capture_test [-e ENGINE] CASE\n");
		return 2;
	}
	const char *cs = argv[a];
	if (!strcmp(cs, "known"))
		case_known(0);
	else if (!strcmp(cs, "known_realistic"))
		case_known(1);
	else if (!strcmp(cs, "overflow"))
		case_overflow();
	else if (!strcmp(cs, "filter_pid"))
		case_filter_pid(0);
	else if (!strcmp(cs, "filter_pid_uio"))
		case_filter_pid(1);
	else if (!strcmp(cs, "filter_dev"))
		case_filter_dev();
	else if (!strcmp(cs, "no_recv_shared"))
		case_no_recv_shared();
	else if (!strcmp(cs, "filter_stream"))
		case_filter_stream();
	else if (!strcmp(cs, "sample"))
		case_sample();
	else if (!strcmp(cs, "unpriv"))
		case_unpriv();
	else if (!strcmp(cs, "badioctl"))
		case_badioctl();
	else {
		fprintf(stderr, "capture_test: unknown case %s\n", cs);
		return 2;
	}
	return failures ? 1 : 0;
}
