/*
 * test_bpf_encode.c — the BPF engine's programs on the host, without the
 * driver: BPF_PROG_TEST_RUN runs the test_* raw_tp entry points with the
 * tracepoint arguments of tests/fixtures/encode_vectors.h as their context,
 * and the records read back from the rings, by the engine's own reader
 * (user/capture/bpf_ring.h), must be byte-identical to what
 * npuprof_encode_*() (the kmod's encoders) make of the same arguments, apart
 * from the capture-time header fields, which are checked for plausibility.
 * Then the filters, sampling and drop accounting, against the kmod's rules,
 * and the ring protocol: wrapping, records published only by the head
 * store, a ring the programs did not write, and each tracepoint's ring.
 * Last the merge of the rings that the engine's read() delivers from
 * (bpf_ring.h): records kept in their slots until delivered, and the same
 * records in the same order as the staging reader it replaced (a reference
 * here), on random streams written into the rings by the test itself.
 *
 * This needs BPF (root, or CAP_BPF + CAP_PERFMON). A host that refuses it
 * fails these tests: they never skip.
 */
#include <check.h>
#include <sched.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <sys/mman.h>

#include "bpf_ring.h"
#include "npuprof_bpf.h"
#include "npuprof.skel.h"
#include "npuprof/engine.h"
#include "../fixtures/encode_vectors.h"

#define MAXREC 4096

struct tb {
	struct npuprof_bpf *skel;
	struct npuprof_record rec[MAXREC];
	int nrec;
	int ncpu;
	uint32_t cpu_slots;
	void *slots; /* the mapped slots map */
	size_t slots_bytes;
	struct npuprof_bpf_ring_rd rd[NPUPROF_BPF_NRING]; /* CPU 0's rings */
};

/* the counters of every CPU and ring, summed */
struct tb_sum {
	uint64_t events[NPUPROF_REC_TYPE_MAX];
	uint64_t written, dropped, filtered, sampled_out, pending_drop;
};

struct tb_cfg {
	uint32_t pid, dev_mask, sample_n, flags;
	uint64_t ring_bytes;
	const uint32_t *streams;
	int nstreams;
};

static char libbpf_log[65536];
static size_t libbpf_loglen;

static int log_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || libbpf_loglen >= sizeof(libbpf_log) - 1)
		return 0;
	int n = vsnprintf(libbpf_log + libbpf_loglen, sizeof(libbpf_log) - libbpf_loglen, fmt, ap);
	if (n > 0)
		libbpf_loglen += (size_t)n;
	if (libbpf_loglen >= sizeof(libbpf_log))
		libbpf_loglen = sizeof(libbpf_log) - 1;
	return 0;
}

static int on_record(void *ctx, const struct npuprof_record *r)
{
	struct tb *t = ctx;

	if (t->nrec >= MAXREC)
		return -1;
	t->rec[t->nrec++] = *r;
	return 0;
}

static struct tb *tb_open(const struct tb_cfg *c)
{
	struct tb *t = calloc(1, sizeof(*t));
	int r;

	ck_assert_ptr_nonnull(t);
	libbpf_loglen = 0;
	libbpf_log[0] = 0;
	libbpf_set_print(log_libbpf);
	t->skel = npuprof_bpf__open();
	ck_assert_msg(t->skel, "cannot open the BPF skeleton: %s", strerror(errno));
	t->skel->rodata->cfg_pid = c->pid;
	t->skel->rodata->cfg_dev_mask = c->dev_mask;
	t->skel->rodata->cfg_sample_n = c->sample_n;
	t->skel->rodata->cfg_flags = c->flags;
	for (int i = 0; i < c->nstreams; i++)
		t->skel->rodata->cfg_stream_mask[c->streams[i] / 64] |= 1ULL
									<< (c->streams[i] % 64);
	/* the rings as the engine sizes them (ring_bytes per CPU); the test
	 * runs on CPU 0 so everything lands in CPU 0's */
	uint64_t bytes = c->ring_bytes ? c->ring_bytes : 1u << 20;
	int ncpu = libbpf_num_possible_cpus();
	long page = sysconf(_SC_PAGESIZE);

	t->cpu_slots = (uint32_t)(bytes / NPUPROF_RECORD_SIZE);
	t->skel->rodata->cfg_cpu_slots = t->cpu_slots;
	ck_assert_int_eq(bpf_map__set_max_entries(t->skel->maps.slots, t->cpu_slots * ncpu), 0);
	r = npuprof_bpf__load(t->skel);
	ck_assert_msg(r == 0,
		      "loading the BPF programs failed (%s): this test needs BPF "
		      "(root or CAP_BPF+CAP_PERFMON) and does not skip.\n%s",
		      strerror(-r), libbpf_log);
	t->ncpu = ncpu;
	t->slots_bytes = ((size_t)ncpu * t->cpu_slots * NPUPROF_RECORD_SIZE + page - 1) &
			 ~((size_t)page - 1);
	t->slots = mmap(NULL, t->slots_bytes, PROT_READ, MAP_SHARED,
			bpf_map__fd(t->skel->maps.slots), 0);
	ck_assert_ptr_ne(t->slots, MAP_FAILED);
	for (uint32_t k = 0; k < NPUPROF_BPF_NRING; k++)
		npuprof_bpf_ring_rd_init(&t->rd[k], t->skel->bss->ring_ctl, t->slots, t->cpu_slots,
					 0, k);
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	return t;
}

static void tb_close(struct tb *t)
{
	munmap(t->slots, t->slots_bytes);
	npuprof_bpf__destroy(t->skel);
	free(t);
}

static void tb_run(struct tb *t, struct bpf_program *prog, const struct npuprof_bpf_test_args *a)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .ctx_in = a, .ctx_size_in = sizeof(*a));
	int r = bpf_prog_test_run_opts(bpf_program__fd(prog), &o);

	ck_assert_msg(r == 0, "BPF_PROG_TEST_RUN of %s: %s", bpf_program__name(prog),
		      strerror(errno));
	ck_assert_int_eq(o.retval, 0);
}

/* Read CPU 0's rings with the engine's reader: the submit ring's records,
 * then the complete ring's, then the recv ring's (each in its order). */
static int tb_drain(struct tb *t)
{
	t->nrec = 0;
	for (int k = 0; k < NPUPROF_BPF_NRING; k++)
		ck_assert_int_ge(npuprof_bpf_ring_read(&t->rd[k], on_record, t), 0);
	return t->nrec;
}

static void tb_stats(struct tb *t, struct tb_sum *sum)
{
	int ncpu = libbpf_num_possible_cpus();
	const struct npuprof_bpf_pcpu *v = t->skel->bss->cpu_stats;
	const struct npuprof_bpf_ring *g = t->skel->bss->ring_ctl;

	ck_assert_int_le(ncpu, NPUPROF_BPF_MAX_CPUS);
	memset(sum, 0, sizeof(*sum));
	for (int c = 0; c < ncpu; c++) {
		for (int i = 0; i < NPUPROF_REC_TYPE_MAX; i++)
			sum->events[i] += v[c].events[i];
		sum->filtered += v[c].filtered;
		sum->sampled_out += v[c].sampled_out;
	}
	for (int i = 0; i < ncpu * NPUPROF_BPF_NRING; i++) {
		sum->written += g[i].written;
		sum->dropped += g[i].dropped;
		sum->pending_drop += g[i].pending_drop;
	}
}

static void args_str(struct npuprof_bpf_test_args *a, const char *s)
{
	memset(a, 0, sizeof(*a));
	ck_assert_uint_lt(strlen(s), sizeof(a->str));
	memcpy(a->str, s, strlen(s));
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The header fields taken at capture time: this process and thread, a CPU
 * that exists, a time between t0 and now. Then copy them into @want so the
 * rest can be compared byte for byte. */
static void check_capture_fields(const struct npuprof_record *got, struct npuprof_record *want,
				 uint64_t t0)
{
	ck_assert_uint_eq(got->hdr.pid, (uint32_t)getpid());
	ck_assert_uint_eq(got->hdr.tid, (uint32_t)syscall(SYS_gettid));
	ck_assert_uint_eq(got->hdr.cpu, 0); /* the test is pinned to CPU 0 */
	ck_assert_uint_ge(got->hdr.ts, t0);
	ck_assert_uint_le(got->hdr.ts, mono_ns());
	npuprof_encode_hdr(want, got->hdr.ts, got->hdr.cpu, got->hdr.pid, got->hdr.tid);
}

static void check_identical(const struct npuprof_record *got, const struct npuprof_record *want,
			    const char *what, int i)
{
	if (memcmp(got, want, sizeof(*got)) == 0)
		return;
	char g[3 * 64 + 1] = "", w[3 * 64 + 1] = "";

	for (int b = 0; b < 64; b++) {
		sprintf(g + 3 * b, "%02x ", ((const unsigned char *)got)[b]);
		sprintf(w + 3 * b, "%02x ", ((const unsigned char *)want)[b]);
	}
	ck_abort_msg("%s vector %d differs from the kmod encoder:\n got  %s\n want %s", what, i, g,
		     w);
}

/* ---- byte identity -------------------------------------------------------- */

START_TEST(test_submit_identical)
{
	struct tb_cfg c = { 0 };
	struct tb *t = tb_open(&c);

	for (unsigned i = 0; i < ENC_NVEC(enc_vec_sq); i++) {
		const struct enc_vec_sq *v = &enc_vec_sq[i];
		struct npuprof_bpf_test_args a;
		struct npuprof_record want;
		uint64_t t0 = mono_ns();

		args_str(&a, v->str);
		a.inst = v->inst;
		a.sq = v->t;
		tb_run(t, t->skel->progs.test_sqe, &a);
		ck_assert_int_eq(tb_drain(t), 1);
		memset(&want, 0xa5, sizeof(want)); /* no byte left to chance */
		npuprof_encode_submit(&want, &v->inst, &v->t);
		check_capture_fields(&t->rec[0], &want, t0);
		check_identical(&t->rec[0], &want, "submit", (int)i);
	}
	tb_close(t);
}
END_TEST

START_TEST(test_complete_identical)
{
	struct tb_cfg c = { 0 };
	struct tb *t = tb_open(&c);
	int nrecv = 0;

	for (unsigned i = 0; i < ENC_NVEC(enc_vec_cq); i++) {
		const struct enc_vec_cq *v = &enc_vec_cq[i];
		struct npuprof_bpf_test_args a;
		struct npuprof_record want;
		uint64_t t0 = mono_ns();
		int flag = !strcmp(v->str, TRS_CHAN_STR_TASK_RECV);

		nrecv += flag;
		args_str(&a, v->str);
		a.inst = v->inst;
		a.cq = v->t;
		tb_run(t, t->skel->progs.test_cqe, &a);
		ck_assert_int_eq(tb_drain(t), 1);
		memset(&want, 0xa5, sizeof(want));
		npuprof_encode_complete(&want, &v->inst, &v->t, flag);
		check_capture_fields(&t->rec[0], &want, t0);
		check_identical(&t->rec[0], &want, "complete", (int)i);
	}
	ck_assert_int_eq(nrecv, 3); /* the vectors exercise both values */
	tb_close(t);
}
END_TEST

START_TEST(test_recv_identical)
{
	struct tb_cfg c = { 0 };
	struct tb *t = tb_open(&c);

	for (unsigned i = 0; i < ENC_NVEC(enc_vec_recv); i++) {
		const struct enc_vec_recv *v = &enc_vec_recv[i];
		struct npuprof_bpf_test_args a;
		struct npuprof_record want;
		uint64_t t0 = mono_ns();

		args_str(&a, v->str);
		a.inst = v->inst;
		a.recv = v->t;
		tb_run(t, t->skel->progs.test_recv, &a);
		ck_assert_int_eq(tb_drain(t), 1);
		memset(&want, 0xa5, sizeof(want));
		npuprof_encode_recv(&want, &v->inst, &v->t,
				    !strcmp(v->str, TRS_CHAN_STR_RECV_FINISH));
		check_capture_fields(&t->rec[0], &want, t0);
		check_identical(&t->rec[0], &want, "recv", (int)i);
	}
	tb_close(t);
}
END_TEST

/* ---- filters and sampling ------------------------------------------------- */

static void run_sqe(struct tb *t, uint32_t dev, uint32_t stream, uint32_t task)
{
	struct npuprof_bpf_test_args a;

	args_str(&a, TRS_CHAN_STR_TASK_SEND);
	a.inst.devid = dev;
	a.sq.sqid = a.sq.chan_id = stream;
	a.sq.stream_id = stream;
	a.sq.task_id = task;
	tb_run(t, t->skel->progs.test_sqe, &a);
}

static void run_cqe(struct tb *t, uint32_t dev, uint32_t stream, uint32_t task)
{
	struct npuprof_bpf_test_args a;

	args_str(&a, TRS_CHAN_STR_CQE_DISPATCH);
	a.inst.devid = dev;
	a.cq.cqid = a.cq.chan_id = a.cq.sq_id = npuprof_stream_id(stream);
	a.cq.stream_id = stream;
	a.cq.task_id = task;
	tb_run(t, t->skel->progs.test_cqe, &a);
}

static void run_recv(struct tb *t, uint32_t dev, uint32_t chan)
{
	struct npuprof_bpf_test_args a;

	args_str(&a, TRS_CHAN_STR_RECV_FINISH);
	a.inst.devid = dev;
	a.recv.chan_id = a.recv.cqid = chan;
	tb_run(t, t->skel->progs.test_recv, &a);
}

START_TEST(test_device_filter)
{
	struct tb_cfg c = { .dev_mask = (1u << 1) | (1u << 3) };
	struct tb *t = tb_open(&c);
	struct tb_sum s;

	for (uint32_t d = 0; d < 6; d++) {
		run_sqe(t, d, 1, d);
		run_recv(t, d, 1);
	}
	run_sqe(t, 40, 1, 0); /* beyond the mask: filtered, as the kmod */
	ck_assert_int_eq(tb_drain(t), 4);
	for (int i = 0; i < t->nrec; i++) {
		uint32_t d = t->rec[i].hdr.type == NPUPROF_REC_SUBMIT ? t->rec[i].submit.devid :
									t->rec[i].recv.devid;
		ck_assert(d == 1 || d == 3);
	}
	tb_stats(t, &s);
	ck_assert_uint_eq(s.events[NPUPROF_REC_SUBMIT], 7);
	ck_assert_uint_eq(s.events[NPUPROF_REC_RECV], 6);
	ck_assert_uint_eq(s.filtered, 9);
	ck_assert_uint_eq(s.written, 4);
	tb_close(t);
}
END_TEST

START_TEST(test_stream_filter)
{
	static const uint32_t streams[] = { 2, 100, 4095 };
	struct tb_cfg c = { .flags = NPUPROF_CFG_STREAM_FILTER, .streams = streams, .nstreams = 3 };
	struct tb *t = tb_open(&c);
	struct tb_sum s;
	int n[NPUPROF_REC_TYPE_MAX] = { 0 };

	for (uint32_t st = 0; st < 128; st++) {
		run_sqe(t, 0, st, 1);
		run_cqe(t, 0, st | 0x8000, 1); /* match bit is not the id */
		run_recv(t, 0, st); /* recv records are not stream-filtered */
	}
	run_sqe(t, 0, 4095, 1);
	run_sqe(t, 0, 4096, 1); /* out of the filter's range */
	tb_drain(t);
	for (int i = 0; i < t->nrec; i++) {
		const struct npuprof_record *r = &t->rec[i];

		n[r->hdr.type]++;
		if (r->hdr.type == NPUPROF_REC_SUBMIT)
			ck_assert(r->submit.stream_id == 2 || r->submit.stream_id == 100 ||
				  r->submit.stream_id == 4095);
		if (r->hdr.type == NPUPROF_REC_COMPLETE)
			ck_assert(r->complete.stream_id == (2 | 0x8000) ||
				  r->complete.stream_id == (100 | 0x8000));
	}
	ck_assert_int_eq(n[NPUPROF_REC_SUBMIT], 3);
	ck_assert_int_eq(n[NPUPROF_REC_COMPLETE], 2);
	ck_assert_int_eq(n[NPUPROF_REC_RECV], 128);
	tb_stats(t, &s);
	ck_assert_uint_eq(s.filtered, 2 * 128 + 2 - 5);
	tb_close(t);
}
END_TEST

/* With a pid filter, submits and recvs are judged by the current task;
 * completions and task times by the owner of their stream, learned at
 * submit (never seen: dropped), as the kmod does. */
START_TEST(test_pid_filter_stream_owner)
{
	struct tb_cfg c = { .pid = (uint32_t)getpid() };
	struct tb *t = tb_open(&c);
	struct tb_sum s;

	run_sqe(t, 0, 5, 1);
	run_cqe(t, 0, 5 | 0x8000, 1); /* owned: kept */
	run_cqe(t, 0, 6, 1); /* never submitted: dropped */
	run_cqe(t, 1, 5, 1); /* same stream id on another device: dropped */
	run_recv(t, 0, 9); /* current task is ours: kept */
	ck_assert_int_eq(tb_drain(t), 3);
	ck_assert_uint_eq(t->rec[0].hdr.type, NPUPROF_REC_SUBMIT);
	ck_assert_uint_eq(t->rec[1].hdr.type, NPUPROF_REC_COMPLETE);
	ck_assert_uint_eq(t->rec[2].hdr.type, NPUPROF_REC_RECV);
	tb_stats(t, &s);
	ck_assert_uint_eq(s.filtered, 2);
	tb_close(t);

	/* another process's capture: our submits mark the stream skipped */
	c.pid = (uint32_t)getppid() == (uint32_t)getpid() ? 1 : (uint32_t)getppid();
	t = tb_open(&c);
	run_sqe(t, 0, 5, 1);
	run_cqe(t, 0, 5, 1);
	run_recv(t, 0, 5);
	ck_assert_int_eq(tb_drain(t), 0);
	tb_stats(t, &s);
	ck_assert_uint_eq(s.filtered, 3);
	/* the owner table lives in .bss: the submit wrote SKIP there */
	ck_assert_uint_eq(t->skel->bss->stream_owner[5], NPUPROF_OWNER_SKIP);
	tb_close(t);
}
END_TEST

START_TEST(test_sampling)
{
	const uint32_t n = 3;
	struct tb_cfg c = { .sample_n = n };
	struct tb *t = tb_open(&c);
	struct tb_sum s;
	uint32_t keep = 0;
	int got[2] = { 0 };

	for (uint32_t task = 0; task < 300; task++) {
		keep += npuprof_sample_keep(n, 1, 7, task);
		run_sqe(t, 1, 7, task);
		run_cqe(t, 1, 7 | 0x8000, task); /* same decision as its submit */
	}
	run_recv(t, 1, 7); /* not a task record: never sampled out */
	ck_assert_uint_gt(keep, 50);
	ck_assert_uint_lt(keep, 150);
	tb_drain(t);
	for (int i = 0; i < t->nrec; i++) {
		const struct npuprof_record *r = &t->rec[i];
		uint32_t task = r->hdr.type == NPUPROF_REC_SUBMIT ? r->submit.task_id :
								    r->complete.task_id;

		if (r->hdr.type == NPUPROF_REC_RECV)
			continue;
		ck_assert(npuprof_sample_keep(n, 1, 7, task));
		got[r->hdr.type == NPUPROF_REC_SUBMIT ? 0 : 1]++;
	}
	ck_assert_uint_eq(got[0], keep);
	ck_assert_uint_eq(got[1], keep);
	ck_assert_int_eq(t->nrec, 2 * keep + 1);
	tb_stats(t, &s);
	ck_assert_uint_eq(s.sampled_out, 2 * (300 - keep));
	tb_close(t);
}
END_TEST

START_TEST(test_no_recv)
{
	struct tb_cfg c = { .flags = NPUPROF_CFG_NO_RECV };
	struct tb *t = tb_open(&c);
	struct tb_sum s;

	run_recv(t, 0, 1);
	run_sqe(t, 0, 1, 1);
	ck_assert_int_eq(tb_drain(t), 1);
	ck_assert_uint_eq(t->rec[0].hdr.type, NPUPROF_REC_SUBMIT);
	tb_stats(t, &s);
	ck_assert_uint_eq(s.events[NPUPROF_REC_RECV], 0); /* not even counted */
	tb_close(t);
}
END_TEST

/* ---- drops ------------------------------------------------------------------ */

/* A full ring loses records, counted per ring; the next record that fits
 * comes with a DROP record in front of it carrying the exact count. */
START_TEST(test_drop_records)
{
	struct tb_cfg c = { .ring_bytes = 4096 };
	struct tb *t = tb_open(&c);
	const int fit = 4096 / NPUPROF_RECORD_SIZE / 2; /* the submit ring: half */
	struct tb_sum s;

	for (uint32_t i = 0; i < 200; i++)
		run_sqe(t, 0, 1, i);
	ck_assert_int_eq(tb_drain(t), fit);
	for (int i = 0; i < fit; i++)
		ck_assert_uint_eq(t->rec[i].submit.task_id, (uint32_t)i);
	tb_stats(t, &s);
	ck_assert_uint_eq(s.written, fit);
	ck_assert_uint_eq(s.dropped, 200 - fit);
	ck_assert_uint_eq(s.pending_drop, 200 - fit);

	run_sqe(t, 0, 1, 1000);
	ck_assert_int_eq(tb_drain(t), 2);
	ck_assert_uint_eq(t->rec[0].hdr.type, NPUPROF_REC_DROP);
	ck_assert_uint_eq(t->rec[0].hdr.size, NPUPROF_RECORD_SIZE);
	ck_assert_uint_eq(t->rec[0].hdr.flags, 0);
	ck_assert_uint_eq(t->rec[0].drop.lost, 200 - fit);
	ck_assert_uint_eq(t->rec[0].hdr.ts, t->rec[1].hdr.ts);
	ck_assert_uint_eq(t->rec[0].hdr.cpu, t->rec[1].hdr.cpu);
	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(t->rec[0].drop.rsv[i], 0);
	ck_assert_uint_eq(t->rec[1].hdr.type, NPUPROF_REC_SUBMIT);
	ck_assert_uint_eq(t->rec[1].submit.task_id, 1000);
	tb_stats(t, &s);
	ck_assert_uint_eq(s.pending_drop, 0);
	ck_assert_uint_eq(s.written, fit + 1);

	/* a second overflow: every hit is either written or dropped, and
	 * the loss waits for the next record that fits */
	for (uint32_t i = 0; i < 200; i++)
		run_sqe(t, 0, 1, i);
	tb_stats(t, &s);
	ck_assert_uint_eq(s.pending_drop, 200 - fit);
	ck_assert_uint_eq(s.written + s.dropped, 200 + 1 + 200);
	ck_assert_uint_eq(s.events[NPUPROF_REC_SUBMIT], 200 + 1 + 200);

	/* both or neither: one free slot does not take a DROP record and its
	 * record (a reader that stops early leaves the rest in the ring) */
	t->nrec = MAXREC - 1;
	ck_assert_int_eq(npuprof_bpf_ring_read(&t->rd[0], on_record, t), 1);
	run_sqe(t, 0, 1, 2000);
	tb_stats(t, &s);
	ck_assert_uint_eq(s.pending_drop, 200 - fit + 1);
	t->nrec = MAXREC - 1;
	ck_assert_int_eq(npuprof_bpf_ring_read(&t->rd[0], on_record, t), 1);
	run_sqe(t, 0, 1, 3000);
	ck_assert_int_eq(tb_drain(t), fit);
	ck_assert_uint_eq(t->rec[fit - 2].hdr.type, NPUPROF_REC_DROP);
	ck_assert_uint_eq(t->rec[fit - 2].drop.lost, 200 - fit + 1);
	ck_assert_uint_eq(t->rec[fit - 1].submit.task_id, 3000);
	tb_stats(t, &s);
	ck_assert_uint_eq(s.pending_drop, 0);
	ck_assert_uint_eq(s.written + s.dropped, 200 + 1 + 200 + 2);
	tb_close(t);
}
END_TEST

/* ---- the ring protocol ---------------------------------------------------- */

/* Many laps of a small ring, read at positions that are not a multiple of
 * its size: every record once, in order, none lost. The complete ring wraps
 * on its own. */
START_TEST(test_ring_wraps)
{
	struct tb_cfg c = { .ring_bytes = 4096 };
	struct tb *t = tb_open(&c);
	uint32_t next = 0, cnext = 0;
	struct tb_sum s;

	for (int lap = 0; lap < 40; lap++) {
		int n = 1 + lap % 23, nc = lap % 11;
		uint64_t ts = 0;

		for (int i = 0; i < n; i++)
			run_sqe(t, 0, 1, next + (uint32_t)i);
		for (int i = 0; i < nc; i++)
			run_cqe(t, 0, 1, cnext + (uint32_t)i);
		ck_assert_int_eq(tb_drain(t), n + nc);
		for (int i = 0; i < n + nc; i++) {
			const struct npuprof_record *r = &t->rec[i];

			if (i == n)
				ts = 0; /* the complete ring's, read after */
			ck_assert_uint_ge(r->hdr.ts, ts);
			ts = r->hdr.ts;
			if (i < n) {
				ck_assert_uint_eq(r->hdr.type, NPUPROF_REC_SUBMIT);
				ck_assert_uint_eq(r->submit.task_id, next++);
			} else {
				ck_assert_uint_eq(r->hdr.type, NPUPROF_REC_COMPLETE);
				ck_assert_uint_eq(r->complete.task_id, cnext++);
			}
		}
	}
	ck_assert_uint_gt(next, 10 * t->rd[0].n); /* it did wrap, many times */
	ck_assert_uint_gt(cnext, 10 * t->rd[1].n);
	tb_stats(t, &s);
	ck_assert_uint_eq(s.dropped, 0);
	ck_assert_uint_eq(s.written, next + cnext);
	tb_close(t);
}
END_TEST

/* A record is the reader's only once the head store covers it: one written
 * but not yet published (the head put back) is not read, and is read
 * whole once published. */
START_TEST(test_ring_unpublished)
{
	struct tb_cfg c = { .ring_bytes = 4096 };
	struct tb *t = tb_open(&c);
	struct npuprof_bpf_ring *g = &t->skel->bss->ring_ctl[0];

	run_sqe(t, 0, 1, 7);
	run_sqe(t, 0, 1, 8);
	ck_assert_uint_eq(g->head, 2);
	g->head = 1; /* the second's slot is written, its head store not done */
	ck_assert_int_eq(tb_drain(t), 1);
	ck_assert_uint_eq(t->rec[0].submit.task_id, 7);
	ck_assert_uint_eq(g->tail, 1);
	ck_assert_int_eq(tb_drain(t), 0);
	g->head = 2;
	ck_assert_int_eq(tb_drain(t), 1);
	ck_assert_uint_eq(t->rec[0].submit.task_id, 8);
	ck_assert_uint_eq(t->rec[0].hdr.size, NPUPROF_RECORD_SIZE);
	tb_close(t);
}
END_TEST

/* A ring the programs cannot have written is refused, not read: a head
 * behind the tail or more than the ring ahead, a slot that holds no
 * record (the records before it are read; it stays). */
START_TEST(test_ring_corrupt)
{
	struct tb_cfg c = { .ring_bytes = 4096 };
	struct tb *t = tb_open(&c);
	struct npuprof_bpf_ring *g = &t->skel->bss->ring_ctl[0];
	struct npuprof_record *w;

	run_sqe(t, 0, 1, 1);
	run_sqe(t, 0, 1, 2);
	g->head = 2 + t->rd[0].n;
	t->nrec = 0;
	ck_assert_int_eq(npuprof_bpf_ring_read(&t->rd[0], on_record, t), -EPROTO);
	ck_assert_int_eq(t->nrec, 0);
	ck_assert_uint_eq(g->tail, 0);
	g->head = 2;
	g->tail = 3;
	ck_assert_int_eq(npuprof_bpf_ring_read(&t->rd[0], on_record, t), -EPROTO);
	g->tail = 0;
	/* a writable view of the slots to damage the second record */
	w = mmap(NULL, t->slots_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
		 bpf_map__fd(t->skel->maps.slots), 0);
	ck_assert_ptr_ne(w, MAP_FAILED);
	w[1].hdr.size = 0;
	ck_assert_int_eq(npuprof_bpf_ring_read(&t->rd[0], on_record, t), -EPROTO);
	ck_assert_int_eq(t->nrec, 1);
	ck_assert_uint_eq(t->rec[0].submit.task_id, 1);
	ck_assert_uint_eq(g->tail, 1);
	w[1].hdr.size = NPUPROF_RECORD_SIZE;
	w[1].hdr.type = NPUPROF_REC_TYPE_MAX;
	ck_assert_int_eq(npuprof_bpf_ring_read(&t->rd[0], on_record, t), -EPROTO);
	w[1].hdr.type = NPUPROF_REC_SUBMIT;
	ck_assert_int_eq(npuprof_bpf_ring_read(&t->rd[0], on_record, t), 1);
	ck_assert_uint_eq(t->rec[1].submit.task_id, 2);
	munmap(w, t->slots_bytes);
	tb_close(t);
}
END_TEST

/* A hit that finds its ring's write under way (the same program nested in
 * itself on one CPU, which the kernel does not do) is a loss, reported by
 * the next record's DROP record, never a second writer. */
START_TEST(test_ring_busy)
{
	struct tb_cfg c = { .ring_bytes = 4096 };
	struct tb *t = tb_open(&c);
	struct npuprof_bpf_ring *g = &t->skel->bss->ring_ctl[0];
	struct tb_sum s;

	g->busy = 1;
	run_sqe(t, 0, 1, 1);
	run_sqe(t, 0, 1, 2);
	ck_assert_int_eq(tb_drain(t), 0);
	tb_stats(t, &s);
	ck_assert_uint_eq(s.dropped, 2);
	ck_assert_uint_eq(s.pending_drop, 2);
	ck_assert_uint_eq(g->head, 0);
	g->busy = 0;
	run_sqe(t, 0, 1, 3);
	ck_assert_int_eq(tb_drain(t), 2);
	ck_assert_uint_eq(t->rec[0].hdr.type, NPUPROF_REC_DROP);
	ck_assert_uint_eq(t->rec[0].drop.lost, 2);
	ck_assert_uint_eq(t->rec[1].submit.task_id, 3);
	ck_assert_uint_eq(g->busy, 0);
	tb_close(t);
}
END_TEST

/* Each tracepoint writes its CPU's ring of its own (a completion whose
 * interrupt arrives inside a submit does not touch the submit's ring):
 * each ring is in the order of its hits, and their timestamps put the
 * CPU's records back in the order they happened. */
START_TEST(test_rings_per_tracepoint)
{
	struct tb_cfg c = { 0 };
	struct tb *t = tb_open(&c);
	const struct npuprof_bpf_ring *g = t->skel->bss->ring_ctl;
	static const int order[] = { NPUPROF_REC_SUBMIT, NPUPROF_REC_COMPLETE, NPUPROF_REC_SUBMIT,
				     NPUPROF_REC_RECV,	 NPUPROF_REC_COMPLETE, NPUPROF_REC_SUBMIT };
	struct npuprof_record m[6];

	for (int i = 0; i < 6; i++) {
		if (order[i] == NPUPROF_REC_SUBMIT)
			run_sqe(t, 0, 1, (uint32_t)i);
		else if (order[i] == NPUPROF_REC_COMPLETE)
			run_cqe(t, 0, 1, (uint32_t)i);
		else
			run_recv(t, 0, (uint32_t)i);
	}
	ck_assert_uint_eq(g[0].head, 3);
	ck_assert_uint_eq(g[1].head, 2);
	ck_assert_uint_eq(g[2].head, 1);
	ck_assert_int_eq(tb_drain(t), 6);
	/* merged by timestamp, as the engine merges its rings */
	memcpy(m, t->rec, sizeof(m));
	for (int i = 1; i < 6; i++)
		for (int j = i; j > 0 && m[j].hdr.ts < m[j - 1].hdr.ts; j--) {
			struct npuprof_record x = m[j];

			m[j] = m[j - 1];
			m[j - 1] = x;
		}
	for (int i = 0; i < 6; i++) {
		ck_assert_uint_eq(m[i].hdr.type, order[i]);
		if (i)
			ck_assert_uint_gt(m[i].hdr.ts, m[i - 1].hdr.ts);
	}
	tb_close(t);
}
END_TEST

/* ---- the merge of the rings (engine_bpf.c's read) --------------------------- */

struct collect {
	struct npuprof_record *rec;
	int n, max, stop_at; /* stop after the stop_at-th (0: never) */
};

static int collect_one(void *ctx, const struct npuprof_record *r)
{
	struct collect *c = ctx;

	ck_assert_int_lt(c->n, c->max);
	c->rec[c->n++] = *r;
	return c->stop_at && c->n == c->stop_at;
}

static long merge_read(struct npuprof_bpf_merge *m, uint64_t horizon, struct collect *c,
		       int stop_after)
{
	c->n = 0;
	c->stop_at = stop_after;
	return npuprof_bpf_merge_read(m, horizon, collect_one, c);
}

/* The records wait in their slots until delivered: a poll takes them in
 * without giving the slots back, a reader that stops early gives back only
 * what it was handed and gets the rest later; the programs' rings merged by
 * their stamps. */
START_TEST(test_merge_keeps_until_delivered)
{
	struct tb_cfg c = { .ring_bytes = 1 << 16 };
	struct tb *t = tb_open(&c);
	struct npuprof_bpf_ring *g = t->skel->bss->ring_ctl;
	struct npuprof_bpf_merge m;
	struct npuprof_record got[64];
	struct collect col = { got, 0, 64, 0 };
	uint64_t ts;

	ck_assert_int_eq(npuprof_bpf_merge_init(&m, g, t->slots, t->cpu_slots, t->ncpu), 0);
	for (uint32_t i = 0; i < 10; i++) {
		run_sqe(t, 0, 1, i);
		if (i % 3 == 1)
			run_cqe(t, 0, 1, i);
	}
	run_recv(t, 0, 1);
	npuprof_bpf_merge_poll(&m, 0);
	ck_assert_uint_eq(m.pending, 14);
	ck_assert_uint_eq(g[0].head, 10);
	ck_assert_uint_eq(g[0].tail, 0); /* taken in, still the reader's */
	ck_assert_uint_eq(g[1].tail, 0);
	ck_assert_int_eq(npuprof_bpf_merge_oldest(&m, &ts), 1);
	/* the first five by time: three submits and one completion between */
	ck_assert_int_eq(merge_read(&m, UINT64_MAX, &col, 5), 5);
	ck_assert_uint_eq(g[0].tail, 4);
	ck_assert_uint_eq(g[1].tail, 1);
	ck_assert_uint_eq(got[0].hdr.ts, ts);
	ck_assert_uint_eq(got[2].hdr.type, NPUPROF_REC_COMPLETE);
	ck_assert_uint_eq(got[2].complete.task_id, 1);
	/* a poll with nothing new changes nothing */
	npuprof_bpf_merge_poll(&m, 0);
	ck_assert_uint_eq(m.pending, 9);
	/* the horizon: only what is stamped at most that far */
	ck_assert_int_eq(merge_read(&m, got[4].hdr.ts, &col, 0), 0);
	ts = got[4].hdr.ts;
	run_sqe(t, 0, 1, 100);
	npuprof_bpf_merge_poll(&m, 0);
	ck_assert_int_eq(merge_read(&m, UINT64_MAX, &col, 0), 10);
	for (int i = 0; i < col.n; i++) {
		ck_assert_uint_gt(got[i].hdr.ts, ts);
		ts = got[i].hdr.ts;
	}
	ck_assert_uint_eq(got[8].hdr.type, NPUPROF_REC_RECV);
	ck_assert_uint_eq(got[9].submit.task_id, 100);
	ck_assert_uint_eq(g[0].tail, 11);
	ck_assert_uint_eq(g[1].tail, 3);
	ck_assert_uint_eq(g[2].tail, 1);
	ck_assert_uint_eq(m.pending, 0);
	ck_assert_int_eq(npuprof_bpf_merge_oldest(&m, &ts), 0);
	ck_assert_uint_eq(m.late, 0);
	npuprof_bpf_merge_free(&m);
	tb_close(t);
}
END_TEST

/* A reference for the merge: the reader it replaced, which copied every
 * record into a per-ring stage sorted by (ts, arrival) and delivered the
 * oldest of all stages' first records. */
#define REF_RINGS (2 * NPUPROF_BPF_NRING)
#define REF_MAX 8192

struct ref {
	struct npuprof_bpf_staged st[REF_RINGS][REF_MAX];
	int h[REF_RINGS], n[REF_RINGS];
	uint64_t seq, late, delivered_ts;
};

static void ref_add(struct ref *f, int q, const struct npuprof_record *r)
{
	int i = f->n[q];

	ck_assert_int_lt(f->n[q], REF_MAX);
	while (i > f->h[q] && f->st[q][i - 1].r.hdr.ts > r->hdr.ts)
		i--;
	memmove(&f->st[q][i + 1], &f->st[q][i], (size_t)(f->n[q] - i) * sizeof(f->st[q][0]));
	f->st[q][i].r = *r;
	f->st[q][i].seq = f->seq++;
	f->n[q]++;
}

static long ref_read(struct ref *f, uint64_t horizon, struct collect *c, int stop_after)
{
	c->n = 0;
	c->stop_at = stop_after;
	for (;;) {
		int b = -1;

		for (int q = 0; q < REF_RINGS; q++) {
			const struct npuprof_bpf_staged *x = &f->st[q][f->h[q]], *y;

			if (f->h[q] == f->n[q])
				continue;
			y = b < 0 ? NULL : &f->st[b][f->h[b]];
			if (!y || x->r.hdr.ts < y->r.hdr.ts ||
			    (x->r.hdr.ts == y->r.hdr.ts && x->seq < y->seq))
				b = q;
		}
		if (b < 0 || f->st[b][f->h[b]].r.hdr.ts > horizon)
			break;
		if (f->st[b][f->h[b]].r.hdr.ts > f->delivered_ts)
			f->delivered_ts = f->st[b][f->h[b]].r.hdr.ts;
		if (collect_one(c, &f->st[b][f->h[b]++].r))
			break;
	}
	return c->n;
}

/* A writer of its own for rings 0..REF_RINGS-1 (CPUs 0 and 1): records
 * with chosen stamps, published by the head store like the programs' */
struct syn {
	struct tb *t;
	struct npuprof_bpf_merge m;
	struct npuprof_record *w; /* a writable view of the slots */
	struct npuprof_record log[REF_RINGS][REF_MAX]; /* what each ring got */
	int nlog[REF_RINGS], taken[REF_RINGS];
	uint32_t id;
};

static int syn_put(struct syn *s, int q, uint64_t ts)
{
	struct npuprof_bpf_ring *g = &s->t->skel->bss->ring_ctl[q];
	uint32_t n, first = npuprof_bpf_ring_place((uint32_t)q % NPUPROF_BPF_NRING, s->t->cpu_slots,
						   &n);
	struct npuprof_record *r;

	if (g->head - __atomic_load_n(&g->tail, __ATOMIC_ACQUIRE) >= n)
		return 0; /* full */
	r = &s->w[(size_t)(q / NPUPROF_BPF_NRING) * s->t->cpu_slots + first + (g->head & (n - 1))];
	memset(r, 0, sizeof(*r));
	r->hdr.type = (uint16_t)(NPUPROF_REC_SUBMIT + q % NPUPROF_BPF_NRING);
	r->hdr.size = NPUPROF_RECORD_SIZE;
	r->hdr.cpu = (uint16_t)(q / NPUPROF_BPF_NRING);
	r->hdr.tid = ++s->id;
	r->hdr.ts = ts;
	ck_assert_int_lt(s->nlog[q], REF_MAX);
	s->log[q][s->nlog[q]++] = *r;
	__atomic_store_n(&g->head, g->head + 1, __ATOMIC_RELEASE);
	return 1;
}

/* the reference's poll: each ring's new records, ring by ring */
static void ref_poll(struct ref *f, struct syn *s, uint64_t late_before)
{
	for (int q = 0; q < REF_RINGS; q++)
		for (; s->taken[q] < s->nlog[q]; s->taken[q]++) {
			const struct npuprof_record *r = &s->log[q][s->taken[q]];

			if (r->hdr.ts < late_before || r->hdr.ts < f->delivered_ts)
				f->late++;
			ref_add(f, q, r);
		}
}

/* CPU 0 and 1's rings of @ring_bytes, our writer and a merge of them */
static struct syn *syn_open(uint64_t ring_bytes)
{
	struct tb_cfg c = { .ring_bytes = ring_bytes };
	struct syn *s = calloc(1, sizeof(*s));
	struct tb *t;

	ck_assert_ptr_nonnull(s);
	t = s->t = tb_open(&c);
	ck_assert_int_ge(t->ncpu, 2);
	s->w = mmap(NULL, t->slots_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
		    bpf_map__fd(t->skel->maps.slots), 0);
	ck_assert_ptr_ne(s->w, MAP_FAILED);
	ck_assert_int_eq(npuprof_bpf_merge_init(&s->m, t->skel->bss->ring_ctl, t->slots,
						t->cpu_slots, t->ncpu),
			 0);
	return s;
}

static void syn_close(struct syn *s)
{
	npuprof_bpf_merge_free(&s->m);
	munmap(s->w, s->t->slots_bytes);
	tb_close(s->t);
	free(s);
}

static void check_same(const struct collect *a, const struct collect *b, long na, long nb)
{
	ck_assert_int_eq(na, nb);
	ck_assert_int_eq(a->n, b->n);
	for (int i = 0; i < a->n; i++)
		ck_assert_msg(!memcmp(&a->rec[i], &b->rec[i], sizeof(a->rec[i])),
			      "record %d of %d differs: ts %llu tid %u, reference ts %llu tid %u",
			      i, a->n, (unsigned long long)a->rec[i].hdr.ts, a->rec[i].hdr.tid,
			      (unsigned long long)b->rec[i].hdr.ts, b->rec[i].hdr.tid);
}

/*
 * The merge delivers what the reader it replaced delivered, in its order:
 * random streams on two CPUs' rings with equal stamps across rings (their
 * arrival decides), records that move back in their ring (an interrupted
 * writer), DROP records of the reader's own, polls, horizons and readers
 * stopping early at random; in a small ring, where the slots' records are
 * staged most of the time, and a larger one, where they stay in place.
 */
static void merge_vs_reference(uint64_t ring_bytes, unsigned seed, int steps)
{
	struct syn *s = syn_open(ring_bytes);
	struct tb *t = s->t;
	struct ref *f = calloc(1, sizeof(*f));
	struct npuprof_bpf_merge *m = &s->m;
	static struct npuprof_record ga[REF_MAX], gb[REF_MAX];
	struct collect ca = { ga, 0, REF_MAX, 0 }, cb = { gb, 0, REF_MAX, 0 };
	uint64_t clock = 1000000, last[REF_RINGS] = { 0 }, total = 0, written = 0;

	ck_assert_ptr_nonnull(f);
	srand(seed);
	for (int step = 0; step < steps; step++) {
		int what = rand() % 100, q = rand() % REF_RINGS;

		if (what < 70) {
			uint64_t ts = clock;

			clock += (uint64_t)(rand() % 3); /* equal stamps too */
			if (rand() % 10 == 0 && last[q] > 20)
				ts = last[q] - (uint64_t)(rand() % 20); /* moved back */
			if (syn_put(s, q, ts)) {
				written++;
				last[q] = ts > last[q] ? ts : last[q];
			}
		} else if (what < 85) {
			uint64_t lb = clock - (uint64_t)(rand() % 40);

			npuprof_bpf_merge_poll(m, lb);
			ref_poll(f, s, lb);
			ck_assert_int_eq(m->broken, 0);
			ck_assert_int_eq(m->oom, 0);
		} else if (what < 98) {
			uint64_t h = clock - (uint64_t)(rand() % 60);
			int stop = rand() % 4 ? 0 : 1 + rand() % 10;
			long na = merge_read(m, h, &ca, stop), nb = ref_read(f, h, &cb, stop);

			check_same(&ca, &cb, na, nb);
			total += (uint64_t)na;
		} else {
			struct npuprof_record d;

			memset(&d, 0, sizeof(d));
			d.hdr.type = NPUPROF_REC_DROP;
			d.hdr.size = NPUPROF_RECORD_SIZE;
			d.hdr.ts = clock - (uint64_t)(rand() % 10);
			d.hdr.tid = ++s->id;
			ck_assert_int_eq(npuprof_bpf_merge_add(m, q, &d), 0);
			ref_add(f, q, &d);
			written++;
		}
		ck_assert_uint_eq(m->late, f->late);
	}
	npuprof_bpf_merge_poll(m, 0);
	ref_poll(f, s, 0);
	for (;;) {
		long na = merge_read(m, UINT64_MAX, &ca, 1000),
		     nb = ref_read(f, UINT64_MAX, &cb, 1000);

		check_same(&ca, &cb, na, nb);
		total += (uint64_t)na;
		if (!na)
			break;
	}
	ck_assert_uint_eq(total, written);
	ck_assert_uint_eq(m->pending, 0);
	/* every slot went back to its writer */
	for (int q = 0; q < REF_RINGS; q++)
		ck_assert_uint_eq(t->skel->bss->ring_ctl[q].tail, t->skel->bss->ring_ctl[q].head);
	free(f);
	syn_close(s);
}

START_TEST(test_merge_same_as_staging)
{
	merge_vs_reference(4096, 1, 20000); /* slots' records staged at a quarter */
	merge_vs_reference(1 << 18, 2, 20000); /* in place */
	merge_vs_reference(1 << 18, 3, 20000);
}
END_TEST

/* Records of more polls than the merge keeps apart in the slots, with
 * another ring's between them (so their arrival numbers do not run on):
 * staged, with their arrival numbers, and delivered as the reference does
 * even where the stamps are equal across rings. */
START_TEST(test_merge_many_polls)
{
	struct syn *s = syn_open(1 << 20);
	struct ref *f = calloc(1, sizeof(*f));
	struct npuprof_bpf_merge *m = &s->m;
	static struct npuprof_record ga[REF_MAX], gb[REF_MAX];
	struct collect ca = { ga, 0, REF_MAX, 0 }, cb = { gb, 0, REF_MAX, 0 };
	const int polls = 3 * NPUPROF_BPF_MERGE_POLLS;

	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < polls; i++) {
		/* ring 3's pair ties with ring 0's record of the next poll,
		 * which arrives after it */
		ck_assert_int_eq(syn_put(s, 0, 100 + (uint64_t)i), 1);
		ck_assert_int_eq(syn_put(s, 3, 101 + (uint64_t)i), 1);
		ck_assert_int_eq(syn_put(s, 3, 101 + (uint64_t)i), 1);
		npuprof_bpf_merge_poll(m, 0);
		ref_poll(f, s, 0);
	}
	ck_assert_int_gt(m->rings[0].sn, 0); /* some were staged */
	check_same(&ca, &cb, merge_read(m, UINT64_MAX, &ca, 0), ref_read(f, UINT64_MAX, &cb, 0));
	ck_assert_int_eq(ca.n, polls * 3);
	ck_assert_uint_eq(ga[1].hdr.cpu, 1);
	ck_assert_uint_eq(ga[2].hdr.cpu, 1);
	ck_assert_uint_eq(ga[3].hdr.cpu, 0);
	free(f);
	syn_close(s);
}
END_TEST

/* The records waiting in a ring's slots are staged once they fill a
 * quarter of it, so the writer keeps room; fewer stay in place. */
START_TEST(test_merge_fill_staged)
{
	struct syn *s = syn_open(4096);
	struct tb *t = s->t;
	struct npuprof_bpf_ring *g = t->skel->bss->ring_ctl;
	struct npuprof_bpf_merge *m = &s->m;
	static struct npuprof_record got[64];
	struct collect col = { got, 0, 64, 0 };
	uint32_t n = t->rd[0].n;

	for (uint32_t i = 0; i < n / 4; i++)
		syn_put(s, 0, 10 + i);
	npuprof_bpf_merge_poll(m, 0);
	ck_assert_uint_eq(g[0].tail, 0); /* a quarter: in place */
	syn_put(s, 0, 10 + n / 4);
	npuprof_bpf_merge_poll(m, 0);
	ck_assert_uint_eq(g[0].tail, n / 4 + 1); /* more: staged, slots back */
	ck_assert_uint_eq(m->rings[0].sn, n / 4 + 1);
	for (uint32_t i = 0; i < n - 1; i++)
		ck_assert_int_eq(syn_put(s, 0, 100 + i), 1);
	npuprof_bpf_merge_poll(m, 0);
	ck_assert_int_eq(merge_read(m, UINT64_MAX, &col, 0), n / 4 + n);
	for (int i = 0; i < col.n; i++)
		ck_assert_uint_eq(got[i].hdr.ts, i <= (int)(n / 4) ? 10 + (uint64_t)i :
								     100 + (uint64_t)i - n / 4 - 1);
	syn_close(s);
}
END_TEST

/* A ring the programs did not write stops the merge (m->broken): the
 * records before the bad one are taken in and delivered, the bad one is
 * not; a head more than the ring ahead of the tail takes nothing. */
START_TEST(test_merge_corrupt)
{
	struct syn *s = syn_open(4096);
	struct npuprof_bpf_ring *g = s->t->skel->bss->ring_ctl;
	struct npuprof_record got[8];
	struct collect col = { got, 0, 8, 0 };
	struct npuprof_bpf_merge *m = &s->m;

	syn_put(s, 0, 10);
	syn_put(s, 0, 20);
	syn_put(s, 0, 30);
	s->w[1].hdr.size = 0;
	npuprof_bpf_merge_poll(m, 0);
	ck_assert_int_eq(m->broken, 1);
	ck_assert_uint_eq(m->pending, 1);
	ck_assert_int_eq(merge_read(m, UINT64_MAX, &col, 0), 1);
	ck_assert_uint_eq(got[0].hdr.ts, 10);
	ck_assert_uint_eq(g[0].tail, 1);
	npuprof_bpf_merge_free(m);

	g[1].head = g[1].tail + s->t->rd[1].n + 1;
	ck_assert_int_eq(npuprof_bpf_merge_init(m, g, s->t->slots, s->t->cpu_slots, s->t->ncpu), 0);
	s->w[1].hdr.size = NPUPROF_RECORD_SIZE;
	npuprof_bpf_merge_poll(m, 0);
	ck_assert_int_eq(m->broken, 1);
	ck_assert_uint_eq(m->pending, 2); /* ring 0's two, none of ring 1 */
	syn_close(s);
}
END_TEST

/* ---- the engine's privilege check ------------------------------------------ */

#include <linux/capability.h>

START_TEST(test_engine_needs_caps)
{
	pid_t p = fork();
	int st;

	ck_assert_int_ge(p, 0);
	if (p == 0) {
		struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct d[2];
		struct npuprof_engine *e;
		char err[NPUPROF_ENGINE_ERRLEN] = "";

		memset(d, 0, sizeof(d)); /* drop every capability */
		if (syscall(SYS_capset, &h, d) != 0)
			_exit(10);
		if (npuprof_engine_open(&e, "bpf", NULL, err, sizeof(err)) != -EPERM)
			_exit(11);
		if (!strstr(err, "CAP_BPF") || !strstr(err, "CAP_PERFMON"))
			_exit(12);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(p, &st, 0), p);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "unprivileged open did not fail clearly (status %d)", st);
}
END_TEST

/* Options the engine refuses, each with a message saying why; and on a
 * host without the driver, start says the driver is missing. */
START_TEST(test_engine_options)
{
	struct npuprof_capture_opts o;
	struct npuprof_engine *e;
	char err[NPUPROF_ENGINE_ERRLEN];
	uint32_t bad_stream = NPUPROF_MAX_STREAMS;

	memset(&o, 0, sizeof(o));
	o.ring_bytes = 3 << 20;
	ck_assert_int_eq(npuprof_engine_open(&e, "bpf", &o, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "power of two"));
	o.ring_bytes = 0;
	o.flags = NPUPROF_CFG_OVERWRITE;
	ck_assert_int_eq(npuprof_engine_open(&e, "bpf", &o, err, sizeof(err)), -EOPNOTSUPP);
	ck_assert_ptr_nonnull(strstr(err, "kmod"));
	o.flags = 0;
	o.streams = &bad_stream;
	o.nstreams = 1;
	ck_assert_int_eq(npuprof_engine_open(&e, "bpf", &o, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "stream id"));

	/* valid options load; without npusim there is nothing to attach to */
	o.nstreams = 0;
	o.ring_bytes = 1 << 16;
	ck_assert_msg(npuprof_engine_open(&e, "bpf", &o, err, sizeof(err)) == 0, "%s", err);
	if (access("/sys/kernel/tracing/events/trs_chan", F_OK) != 0) {
		struct npuprof_stats st;

		ck_assert_int_eq(e->ops->start(e), -ENOENT);
		ck_assert_ptr_nonnull(strstr(e->err, "driver"));
		ck_assert_int_eq(e->ops->stats(e, &st), 0);
		ck_assert_uint_eq(st.attached, 0);
		ck_assert_uint_eq(st.running, 0);
		ck_assert_uint_eq(st.nr_cpus, (unsigned)libbpf_num_possible_cpus());
	}
	npuprof_engine_close(e);
}
END_TEST

static Suite *bpf_suite(void)
{
	Suite *s = suite_create("bpf_encode");
	TCase *tc = tcase_create("bpf");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_submit_identical);
	tcase_add_test(tc, test_complete_identical);
	tcase_add_test(tc, test_recv_identical);
	tcase_add_test(tc, test_device_filter);
	tcase_add_test(tc, test_stream_filter);
	tcase_add_test(tc, test_pid_filter_stream_owner);
	tcase_add_test(tc, test_sampling);
	tcase_add_test(tc, test_no_recv);
	tcase_add_test(tc, test_drop_records);
	tcase_add_test(tc, test_ring_wraps);
	tcase_add_test(tc, test_ring_unpublished);
	tcase_add_test(tc, test_ring_corrupt);
	tcase_add_test(tc, test_ring_busy);
	tcase_add_test(tc, test_rings_per_tracepoint);
	tcase_add_test(tc, test_merge_keeps_until_delivered);
	tcase_add_test(tc, test_merge_same_as_staging);
	tcase_add_test(tc, test_merge_many_polls);
	tcase_add_test(tc, test_merge_fill_staged);
	tcase_add_test(tc, test_merge_corrupt);
	tcase_add_test(tc, test_engine_needs_caps);
	tcase_add_test(tc, test_engine_options);
	suite_add_tcase(s, tc);
	return s;
}

Suite *unit_suite(void)
{
	return bpf_suite();
}
