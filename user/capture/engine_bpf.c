/*
 * engine_bpf.c — capture engine 2: the BPF programs of bpf/npuprof.bpf.c
 * on the driver's tracepoints, for hosts where npuprof.ko is not wanted.
 *
 * open() checks privileges, sets the read-only configuration (filters,
 * sampling, wake-up watermark) and loads the programs from the skeleton
 * compiled into this library; start() attaches them to trs_chan:sqe/cqe/recv
 * (whichever exist; at least one must, and the missing
 * ones are looked for again while running), stop() detaches them. Unlike
 * npuprof.ko, an attached program pins the driver module: it cannot be
 * unloaded in the middle of a BPF capture.
 *
 * Each CPU has three rings, one per tracepoint program (bpf/npuprof_bpf.h:
 * plain stores into an mmap-able array map, published by a head store;
 * the capture's ring size per CPU is shared among the three). A ring has
 * one writer, which never nests in itself, so it is in timestamp order.
 * read() merges the rings by timestamp (bpf_ring.h's merge: the records
 * wait in the rings' slots until delivered), like the kmod reader merges
 * its rings, and holds back the last BPF_HOLDBACK_NS: a record is stamped
 * before it is written, so one stamped just before a poll may still be on
 * its way from another CPU. Once the capture is stopped everything is
 * delivered.
 * Nothing wakes the reader: wait() polls the rings on a timer whose period
 * follows the fastest ring's rate, so that it fills to at most the
 * watermark between two polls (between BPF_POLL_MIN_NS and
 * BPF_POLL_MAX_NS): a record reaches the reader at most BPF_POLL_MAX_NS
 * after it was written, well inside the holdback window.
 * Records lost to a full ring are counted per ring in the programs and
 * reported by DROP records; losses still pending when the capture stops
 * get a DROP record of their own from here, so the markers always add up
 * to the dropped count.
 */
#include "npuprof/engine.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_ring.h"
#include "npuprof_bpf.h"
#include "npuprof.skel.h"

#define BPF_DEFAULT_RING (16u << 20)
#define BPF_HOLDBACK_NS (50ULL * 1000000) /* reorder window of read() */
/* wait() with records held back sleeps until this much more than the
 * window has passed the oldest: one wake-up then delivers this much of
 * the stream, not the millisecond since the last (a flood woke the reader
 * ten times as often as npuprof.ko's watermark does) */
#define BPF_BATCH_NS (20ULL * 1000000)
#define BPF_STAGE_MAX (1u << 20) /* records held before forced delivery */
#define BPF_REATTACH_NS (500ULL * 1000000)
#define BPF_NTP 3 /* the tracepoints: bpf_tps[] */
#define BPF_TP_ALL (NPUPROF_TP_SQE | NPUPROF_TP_CQE | NPUPROF_TP_RECV)
/* the rings' poll period (see the top) */
#define BPF_POLL_MIN_NS (1ULL * 1000000)
#define BPF_POLL_MAX_NS (20ULL * 1000000)

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static const struct {
	const char *tp;
	uint32_t bit;
} bpf_tps[BPF_NTP] = {
	{ "sqe", NPUPROF_TP_SQE },
	{ "cqe", NPUPROF_TP_CQE },
	{ "recv", NPUPROF_TP_RECV },
};

struct bpfeng {
	struct npuprof_bpf *skel;
	struct npuprof_bpf_merge m; /* the rings, ncpu * NPUPROF_BPF_NRING */
	void *slots; /* the mapped `slots` map */
	size_t slots_bytes;
	size_t ring_bytes; /* per CPU, its three rings */
	uint32_t watermark; /* records: a ring's fill between two polls */
	uint64_t poll_ns, poll_t0; /* the poll period, and since when */
	int broken; /* a ring the programs did not write (-EPROTO) */
	struct bpf_link *links[BPF_NTP];
	/* the driver's channel creation and destruction (SQ owners) */
	struct bpf_link *owner_links[3];
	uint32_t attached;
	int running;
	int final; /* stopped and drained: deliver everything */
	int ncpu;
	uint64_t last_attach; /* when missing tracepoints were last looked for */
	/* m.late: records that reached the engine after their place in the
	 * stream had passed: stamped more than BPF_HOLDBACK_NS before the poll
	 * that found them, or older than a record already delivered (read()
	 * then gives them out of order). The second test needs no clock of
	 * the reader: on a VM the CPUs' clocks can disagree by more than the
	 * time between two reads, and the reader moves between CPUs. */
};

/* ---- libbpf messages: kept for the error report, not printed ------------- */

static char bpf_log[32768];
static size_t bpf_loglen;

static int bpf_log_fn(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	int n;

	if (level == LIBBPF_DEBUG || bpf_loglen >= sizeof(bpf_log) - 1)
		return 0;
	n = vsnprintf(bpf_log + bpf_loglen, sizeof(bpf_log) - bpf_loglen, fmt, ap);
	if (n > 0)
		bpf_loglen += (size_t)n;
	if (bpf_loglen >= sizeof(bpf_log))
		bpf_loglen = sizeof(bpf_log) - 1;
	return 0;
}

static void bpf_log_reset(void)
{
	bpf_loglen = 0;
	bpf_log[0] = 0;
}

/*
 * A load failure, told as: which program, why (the verifier's last line),
 * and the whole verifier log on stderr, where there is room for it.
 */
static void report_load_error(struct npuprof_engine *e, int r)
{
	const char *p = strstr(bpf_log, "prog '"), *end, *last = NULL;
	char prog[64] = "?", reason[160] = "";
	const char *begin = strstr(bpf_log, "-- BEGIN PROG LOAD LOG --");
	const char *stop = strstr(bpf_log, "-- END PROG LOAD LOG --");

	if (p && (end = strchr(p + 6, '\'')) && end - p - 6 < (int)sizeof(prog)) {
		memcpy(prog, p + 6, end - p - 6);
		prog[end - p - 6] = 0;
	}
	if (begin && stop && stop > begin) {
		/* the last non-empty line of the verifier log says why */
		for (const char *q = begin; q < stop; q++)
			if (*q == '\n' && q + 1 < stop && q[1] != '\n' &&
			    strncmp(q + 1, "processed ", 10) && strncmp(q + 1, "-- END", 6) &&
			    strncmp(q + 1, "libbpf:", 7))
				last = q + 1;
		if (last) {
			size_t n = strcspn(last, "\n");

			if (n >= sizeof(reason))
				n = sizeof(reason) - 1;
			memcpy(reason, last, n);
			reason[n] = 0;
		}
	}
	if (bpf_loglen)
		fprintf(stderr, "npuprof: bpf engine: libbpf and verifier log:\n%s", bpf_log);
	if (!begin) {
		/* not a program the verifier refused: a map, BTF, the kernel */
		snprintf(e->err, sizeof(e->err),
			 "loading the BPF object failed: %s (libbpf log above)", strerror(-r));
		return;
	}
	snprintf(e->err, sizeof(e->err),
		 "loading BPF program '%s' failed: %s%s%s (verifier log above)", prog, strerror(-r),
		 reason[0] ? ": " : "", reason);
}

/* ---- privileges -------------------------------------------------------------- */

static int have_cap(const struct __user_cap_data_struct *d, int cap)
{
	return !!(d[cap / 32].effective & (1u << (cap % 32)));
}

static int check_privileges(struct npuprof_engine *e)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) != 0)
		return 0; /* cannot tell: let the kernel decide */
	if (have_cap(d, CAP_SYS_ADMIN) || (have_cap(d, CAP_BPF) && have_cap(d, CAP_PERFMON)))
		return 0;
	snprintf(
		e->err, sizeof(e->err),
		"loading the BPF programs needs CAP_BPF and CAP_PERFMON (or root); missing:%s%s. "
		"Run as root, grant them (setcap cap_bpf,cap_perfmon+ep <binary>), or use --engine kmod",
		have_cap(d, CAP_BPF) ? "" : " CAP_BPF",
		have_cap(d, CAP_PERFMON) ? "" : " CAP_PERFMON");
	return -EPERM;
}

/* ---- staging and ordered delivery ----------------------------------------- */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Take in what the rings published. `now` is read before the rings: a
 * record found there was written before it, so one stamped more than the
 * window before it is late (stats). */
static void rb_consume(struct bpfeng *b)
{
	uint64_t now = mono_ns();

	npuprof_bpf_merge_poll(&b->m, now > BPF_HOLDBACK_NS ? now - BPF_HOLDBACK_NS : 0);
}

/* The next poll period: what lets the fastest ring since the last one
 * reach at most the watermark. */
static uint64_t next_poll(struct bpfeng *b, uint64_t now)
{
	uint64_t peak = 0, dt = now - b->poll_t0, p;

	for (int i = 0; i < b->m.nring; i++) {
		if (b->m.rings[i].polled > peak)
			peak = b->m.rings[i].polled;
		b->m.rings[i].polled = 0;
	}
	b->poll_t0 = now;
	p = peak ? dt / peak * b->watermark : BPF_POLL_MAX_NS;
	if (p < BPF_POLL_MIN_NS)
		p = BPF_POLL_MIN_NS;
	if (p > BPF_POLL_MAX_NS)
		p = BPF_POLL_MAX_NS;
	return b->poll_ns = p;
}

static void rb_unmap(struct bpfeng *b)
{
	npuprof_bpf_merge_free(&b->m);
	if (b->slots)
		munmap(b->slots, b->slots_bytes);
	b->slots = NULL;
}

/* Map the rings' slots (read-only: the reader's position is in .bss) and
 * set up their merge. */
static int rings_setup(struct npuprof_engine *e, struct bpfeng *b, uint32_t cpu_slots)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	b->slots_bytes = ((size_t)b->ncpu * cpu_slots * NPUPROF_RECORD_SIZE + (size_t)page - 1) &
			 ~((size_t)page - 1);
	/* populated now, so the reader does not take the page faults */
	p = mmap(NULL, b->slots_bytes, PROT_READ, MAP_SHARED | MAP_POPULATE,
		 bpf_map__fd(b->skel->maps.slots), 0);
	if (p == MAP_FAILED) {
		int r = -errno;

		snprintf(e->err, sizeof(e->err), "mapping the BPF rings (%zu bytes): %s",
			 b->slots_bytes, strerror(-r));
		return r;
	}
	b->slots = p;
	if (npuprof_bpf_merge_init(&b->m, b->skel->bss->ring_ctl, p, cpu_slots, b->ncpu) < 0)
		return -ENOMEM;
	b->poll_ns = BPF_POLL_MIN_NS;
	b->poll_t0 = mono_ns();
	return 0;
}

/* Records older than this may be delivered: nothing older can still be
 * on its way (see BPF_HOLDBACK_NS). */
static uint64_t horizon(const struct bpfeng *b)
{
	uint64_t now;

	if (b->final || b->m.pending > BPF_STAGE_MAX)
		return UINT64_MAX;
	now = mono_ns();
	return now > BPF_HOLDBACK_NS ? now - BPF_HOLDBACK_NS : 0;
}

/* ---- the engine ------------------------------------------------------------ */

static void bpf_detach(struct bpfeng *b)
{
	for (int i = 0; i < BPF_NTP; i++) {
		bpf_link__destroy(b->links[i]);
		b->links[i] = NULL;
	}
	for (int i = 0; i < 3; i++) {
		bpf_link__destroy(b->owner_links[i]);
		b->owner_links[i] = NULL;
	}
	b->attached = 0;
}

static void bpf_close(struct npuprof_engine *e)
{
	struct bpfeng *b = e->priv;

	if (!b)
		return;
	bpf_detach(b);
	rb_unmap(b);
	npuprof_bpf__destroy(b->skel);
	free(b);
	e->priv = NULL;
}

static int bpf_open(struct npuprof_engine *e, const struct npuprof_capture_opts *o)
{
	libbpf_print_fn_t old;
	struct bpfeng *b;
	uint64_t ring = o && o->ring_bytes ? o->ring_bytes : BPF_DEFAULT_RING;
	long page = sysconf(_SC_PAGESIZE);
	uint32_t cpu_slots;
	int r;

	if ((r = check_privileges(e)) < 0)
		return r;
	if (o && (o->flags & NPUPROF_CFG_OVERWRITE)) {
		snprintf(
			e->err, sizeof(e->err),
			"overwrite (flight recorder) mode is not available with the BPF engine; use --engine kmod");
		return -EOPNOTSUPP;
	}
	if (!npuprof_ring_bytes_valid(ring, (uint64_t)page)) {
		snprintf(
			e->err, sizeof(e->err),
			"ring size %llu bytes (in all): must be a power of two from %llu KiB (and the page size, %ld bytes) to %llu KiB",
			(unsigned long long)ring, NPUPROF_RING_MIN_BYTES >> 10, page,
			NPUPROF_RING_MAX_BYTES >> 10);
		return -EINVAL;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	e->priv = b;
	b->ncpu = libbpf_num_possible_cpus();
	if (b->ncpu <= 0 || b->ncpu > NPUPROF_BPF_MAX_CPUS) {
		snprintf(e->err, sizeof(e->err),
			 "%d possible CPUs: the BPF engine counts per CPU for at most %d", b->ncpu,
			 NPUPROF_BPF_MAX_CPUS);
		r = -E2BIG;
		goto fail_early;
	}

	bpf_log_reset();
	old = libbpf_set_print(bpf_log_fn);
	b->skel = npuprof_bpf__open();
	if (!b->skel) {
		r = -errno;
		snprintf(e->err, sizeof(e->err), "opening the BPF object: %s", strerror(errno));
		goto fail;
	}
	if (o) {
		b->skel->rodata->cfg_pid = o->pid;
		b->skel->rodata->cfg_dev_mask = o->dev_mask;
		b->skel->rodata->cfg_sample_n = o->sample_n;
		b->skel->rodata->cfg_flags = o->flags & NPUPROF_CFG_NO_RECV;
		if (o->nstreams)
			b->skel->rodata->cfg_flags |= NPUPROF_CFG_STREAM_FILTER;
		for (uint32_t i = 0; i < o->nstreams; i++) {
			if (o->streams[i] >= NPUPROF_MAX_STREAMS) {
				r = -EINVAL;
				snprintf(e->err, sizeof(e->err),
					 "stream id %u out of range (max %u)", o->streams[i],
					 NPUPROF_MAX_STREAMS - 1);
				goto fail;
			}
			b->skel->rodata->cfg_stream_mask[o->streams[i] / 64] |= 1ULL
										<< (o->streams[i] %
										    64);
		}
	}
	/* a measurement mode of the benchmark's (npuprof_bpf.h) */
	{
		const char *m = getenv("NPUPROF_BPF_PROBE_MODE");

		if (!m || !*m || !strcmp(m, "full"))
			b->skel->rodata->cfg_probe_mode = NPUPROF_BPF_MODE_FULL;
		else if (!strcmp(m, "empty"))
			b->skel->rodata->cfg_probe_mode = NPUPROF_BPF_MODE_EMPTY;
		else if (!strcmp(m, "nowrite"))
			b->skel->rodata->cfg_probe_mode = NPUPROF_BPF_MODE_NOWRITE;
		else if (!strcmp(m, "nostamp"))
			b->skel->rodata->cfg_probe_mode = NPUPROF_BPF_MODE_NOSTAMP;
		else {
			r = -EINVAL;
			snprintf(e->err, sizeof(e->err),
				 "NPUPROF_BPF_PROBE_MODE=%s: not full, empty, nowrite or nostamp",
				 m);
			goto fail;
		}
	}
	/* ring_bytes is per CPU, as for every engine (engine.h), for the
	 * CPU's three rings together; the default total is shared out: a
	 * power of two per CPU, one page at least */
	b->ring_bytes = (size_t)page;
	if (o && o->ring_bytes)
		b->ring_bytes = (size_t)ring;
	else
		while (b->ring_bytes * 2 * (uint64_t)b->ncpu <= ring)
			b->ring_bytes *= 2;
	cpu_slots = (uint32_t)(b->ring_bytes / NPUPROF_RECORD_SIZE);
	/* the kernel's limit for an array map's entries */
	if ((uint64_t)cpu_slots * (uint64_t)b->ncpu > (1ULL << 31)) {
		r = -E2BIG;
		snprintf(
			e->err, sizeof(e->err),
			"ring size %zu bytes per CPU on %d CPUs: more than the %llu records a BPF map holds",
			b->ring_bytes, b->ncpu, 1ULL << 31);
		goto fail;
	}
	b->skel->rodata->cfg_cpu_slots = cpu_slots;
	bpf_map__set_max_entries(b->skel->maps.slots, cpu_slots * (uint32_t)b->ncpu);
	/* the poll period keeps the submit ring (half the CPU's) under this */
	b->watermark = o && o->watermark && o->watermark < cpu_slots / 2 ? o->watermark :
									   cpu_slots / 8;
	/* the test entry points are for BPF_PROG_TEST_RUN only */
	bpf_program__set_autoload(b->skel->progs.test_sqe, false);
	bpf_program__set_autoload(b->skel->progs.test_cqe, false);
	bpf_program__set_autoload(b->skel->progs.test_recv, false);
	r = npuprof_bpf__load(b->skel);
	if (r) {
		r = r < 0 ? r : -errno;
		if (r == -EPERM && !strstr(bpf_log, "BEGIN PROG LOAD LOG"))
			snprintf(
				e->err, sizeof(e->err),
				"the kernel refused to load BPF programs (EPERM): needs CAP_BPF and CAP_PERFMON or root, and kernel.unprivileged_bpf_disabled/lockdown may forbid it");
		else
			report_load_error(e, r);
		goto fail;
	}
	if ((r = rings_setup(e, b, cpu_slots)) < 0)
		goto fail;
	libbpf_set_print(old);
	return 0;
fail:
	libbpf_set_print(old);
fail_early:
	bpf_close(e);
	return r < 0 ? r : -EINVAL;
}

/*
 * Attach the programs whose tracepoints exist and are not attached yet.
 * Returns 0 (a missing tracepoint is not an error) or the first real
 * failure, with its tracepoint in *failed.
 */
static int attach_missing(struct bpfeng *b, int *failed)
{
	struct bpf_program *progs[BPF_NTP] = {
		b->skel->progs.on_sqe,
		b->skel->progs.on_cqe,
		b->skel->progs.on_recv,
	};
	/* the SQ owners first, so no channel created while the tracepoints
	 * are being attached is missed; without them (no such driver function)
	 * submits are attributed to the current task */
	static const struct {
		const char *fn;
		int ret;
	} owner_fns[3] = { { "hal_kernel_trs_chan_create", 0 },
			   { "hal_kernel_trs_chan_create", 1 },
			   { "hal_kernel_trs_chan_destroy", 0 } };
	struct bpf_program *owner_progs[3] = {
		b->skel->progs.on_chan_create,
		b->skel->progs.on_chan_create_ret,
		b->skel->progs.on_chan_destroy,
	};
	libbpf_print_fn_t old = libbpf_set_print(bpf_log_fn);
	int r = 0;

	bpf_log_reset();
	for (int i = 0; i < 3; i++)
		if (!b->owner_links[i])
			b->owner_links[i] = bpf_program__attach_kprobe(owner_progs[i],
								       owner_fns[i].ret,
								       owner_fns[i].fn);
	for (int i = 0; i < BPF_NTP && !r; i++) {
		if (b->links[i])
			continue;
		b->links[i] = bpf_program__attach_raw_tracepoint(progs[i], bpf_tps[i].tp);
		if (b->links[i]) {
			b->attached |= bpf_tps[i].bit;
			continue;
		}
		b->links[i] = NULL;
		if (errno != ENOENT) {
			r = -errno;
			*failed = i;
		}
	}
	libbpf_set_print(old);
	b->last_attach = mono_ns();
	return r;
}

static int bpf_start(struct npuprof_engine *e)
{
	struct bpfeng *b = e->priv;
	int r, failed = 0;

	if (b->running) {
		snprintf(e->err, sizeof(e->err), "start: already running");
		return -EBUSY;
	}
	r = attach_missing(b, &failed);
	if (r < 0 || !b->attached) {
		if (r < 0)
			snprintf(e->err, sizeof(e->err), "attaching to tracepoint %s: %s",
				 bpf_tps[failed].tp, strerror(-r));
		else
			snprintf(
				e->err, sizeof(e->err),
				"no trs_chan tracepoints to attach to: is the NPU driver (npusim.ko or asdrv_trsbase.ko) loaded?");
		bpf_detach(b);
		return r < 0 ? r : -ENOENT;
	}
	b->running = 1;
	b->final = 0;
	return 0;
}

/* While running, look again now and then for tracepoints that were missing
 * (a driver module loaded after the capture started). An attached program
 * holds its driver module: it cannot be unloaded until the capture stops. */
static void reattach(struct bpfeng *b)
{
	int failed;

	if (b->running && b->attached != BPF_TP_ALL && mono_ns() - b->last_attach > BPF_REATTACH_NS)
		attach_missing(b, &failed);
}

/* Losses still pending at stop get a DROP record each, per ring. The
 * programs are detached, so the counters are ours to change. */
static void flush_pending_drops(struct bpfeng *b)
{
	for (int i = 0; i < b->m.nring; i++) {
		struct npuprof_bpf_mring *q = &b->m.rings[i];
		struct npuprof_record d;
		uint64_t lost = __atomic_exchange_n(&q->rd.ctl->pending_drop, 0, __ATOMIC_RELAXED);

		if (!lost)
			continue;
		memset(&d, 0, sizeof(d));
		d.hdr.type = NPUPROF_REC_DROP;
		d.hdr.size = NPUPROF_RECORD_SIZE;
		npuprof_encode_hdr(&d, mono_ns(), q->cpu, 0, 0);
		d.drop.lost = lost;
		npuprof_bpf_merge_add(&b->m, i, &d);
	}
}

static int bpf_stop(struct npuprof_engine *e)
{
	struct bpfeng *b = e->priv;

	if (!b->running) {
		snprintf(e->err, sizeof(e->err), "stop: not running");
		return -EINVAL;
	}
	bpf_detach(b);
	b->running = 0;
	/* a program that began before the detach finishes within
	 * microseconds; give it that before the last drain */
	usleep(2000);
	rb_consume(b);
	flush_pending_drops(b);
	b->final = 1;
	return 0;
}

/* A ring holds what the programs cannot have written (bpf_ring.h). */
static int broken(struct npuprof_engine *e)
{
	snprintf(
		e->err, sizeof(e->err),
		"a BPF ring holds what the programs did not write (corrupt head or record): capture stopped");
	return -EPROTO;
}

/* Is the oldest record taken in deliverable? */
static int ready(struct bpfeng *b, uint64_t *oldest_ts)
{
	if (!npuprof_bpf_merge_oldest(&b->m, oldest_ts))
		return 0;
	return *oldest_ts <= horizon(b);
}

static int bpf_wait(struct npuprof_engine *e, int timeout_ms)
{
	struct bpfeng *b = e->priv;
	uint64_t deadline = mono_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000;

	for (;;) {
		uint64_t now, ots = 0, ns;
		struct timespec ts;
		int have;

		rb_consume(b);
		if (b->m.oom)
			return -ENOMEM;
		if (b->m.broken)
			return broken(e);
		have = npuprof_bpf_merge_oldest(&b->m, &ots);
		if (have && ready(b, &ots))
			return 1;
		now = mono_ns();
		if (timeout_ms >= 0 && now >= deadline)
			return 0;
		/* sleep one poll period, less if the deadline or the oldest
		 * staged record's leaving the window by a batch comes first */
		ns = next_poll(b, now);
		if (timeout_ms >= 0 && deadline - now < ns)
			ns = deadline - now;
		if (have) {
			uint64_t at = ots + BPF_HOLDBACK_NS + BPF_BATCH_NS;

			if (at <= now)
				ns = 0;
			else if (at - now < ns)
				ns = at - now;
		}
		ts.tv_sec = (time_t)(ns / 1000000000ULL);
		ts.tv_nsec = (long)(ns % 1000000000ULL);
		if (ns && nanosleep(&ts, NULL) < 0 && errno == EINTR)
			return 0;
	}
}

/* Deliver the rings' records merged by time, oldest first, up to the
 * horizon. */
static long bpf_read(struct npuprof_engine *e, npuprof_record_fn fn, void *ctx)
{
	struct bpfeng *b = e->priv;
	long n;

	reattach(b);
	rb_consume(b);
	if (b->m.broken)
		return broken(e);
	n = npuprof_bpf_merge_read(&b->m, horizon(b), fn, ctx);
	if (b->m.oom) {
		b->m.oom = 0;
		if (!n)
			return -ENOMEM;
	}
	return n;
}

static int bpf_stats(struct npuprof_engine *e, struct npuprof_stats *st)
{
	struct bpfeng *b = e->priv;
	const struct npuprof_bpf_pcpu *cs = b->skel->bss->cpu_stats;

	memset(st, 0, sizeof(*st));
	for (int c = 0; c < b->ncpu; c++) {
		for (int t = 0; t < NPUPROF_REC_TYPE_MAX; t++)
			st->events[t] += __atomic_load_n(&cs[c].events[t], __ATOMIC_RELAXED);
		st->filtered += __atomic_load_n(&cs[c].filtered, __ATOMIC_RELAXED);
		st->sampled_out += __atomic_load_n(&cs[c].sampled_out, __ATOMIC_RELAXED);
	}
	for (int i = 0; i < b->m.nring; i++) {
		const struct npuprof_bpf_ring *g = b->m.rings[i].rd.ctl;

		st->written += __atomic_load_n(&g->written, __ATOMIC_RELAXED);
		st->dropped += __atomic_load_n(&g->dropped, __ATOMIC_RELAXED);
	}
	st->late = b->m.late;
	st->attached = b->attached;
	st->running = (uint32_t)b->running;
	st->nr_cpus = (uint32_t)b->ncpu;
	return 0;
}

const struct npuprof_engine_ops npuprof_engine_bpf = {
	.name = "bpf",
	.open = bpf_open,
	.start = bpf_start,
	.stop = bpf_stop,
	.wait = bpf_wait,
	.read = bpf_read,
	.stats = bpf_stats,
	.close = bpf_close,
	.driver = 1,
};
