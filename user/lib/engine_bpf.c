/*
 * engine_bpf.c — capture engine 2: the BPF programs of bpf/npuprof.bpf.c
 * on the driver's tracepoints, for hosts where npuprof.ko is not wanted.
 *
 * open() checks privileges, sets the read-only configuration (filters,
 * sampling, wake-up watermark) and loads the programs from the skeleton
 * compiled into this library; start() attaches them to trs_chan:sqe/cqe/recv
 * and npusim:task_time (whichever exist; at least one must, and the missing
 * ones are looked for again while running), stop() detaches them. Unlike
 * npuprof.ko, an attached program pins the driver module: it cannot be
 * unloaded in the middle of a BPF capture.
 *
 * The ringbuf is shared by all CPUs, so its order is reservation order,
 * which can differ from timestamp order by the few instructions between a
 * reservation and its timestamp on another CPU. read() therefore stages
 * what it drains in timestamp order and holds back the last
 * BPF_HOLDBACK_NS, delivering everything once the capture is stopped.
 * Records lost to a full ring are counted per CPU in the programs and
 * reported by DROP records; losses still pending when the capture stops
 * get a DROP record of their own from here, so the markers always add up
 * to the dropped count.
 */
#include "npuprof/engine.h"

#include <errno.h>
#include <linux/capability.h>
#include <poll.h>
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

#include "npuprof_bpf.h"
#include "npuprof.skel.h"

#define BPF_DEFAULT_RING (16u << 20)
#define BPF_MAX_RING (1ULL << 30)
#define BPF_HOLDBACK_NS (50ULL * 1000000) /* reorder window of read() */
#define BPF_STAGE_MAX (1u << 20) /* records staged before forced delivery */
#define BPF_REATTACH_NS (500ULL * 1000000)
#define BPF_TP_ALL (NPUPROF_TP_SQE | NPUPROF_TP_CQE | NPUPROF_TP_RECV | \
		    NPUPROF_TP_TASK_TIME)
#define BPF_SLOT_BYTES (NPUPROF_BPF_RB_HDR + NPUPROF_RECORD_SIZE)

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

struct staged {
	struct npuprof_record r;
	uint64_t seq; /* arrival order (a DROP record stays before its record) */
};

static const struct {
	const char *tp;
	uint32_t bit;
} bpf_tps[4] = {
	{ "sqe", NPUPROF_TP_SQE },
	{ "cqe", NPUPROF_TP_CQE },
	{ "recv", NPUPROF_TP_RECV },
	{ "task_time", NPUPROF_TP_TASK_TIME },
};

struct bpfeng {
	struct npuprof_bpf *skel;
	/* the ringbuf, mapped as libbpf's consumer does it: our position
	 * (read-write page), then the producer's page and the data twice */
	int rb_fd;
	uint64_t *cons_pos;
	const uint64_t *prod_pos;
	const unsigned char *data;
	uint64_t mask;
	size_t rb_bytes;
	struct bpf_link *links[4];
	uint32_t attached;
	int running;
	int final; /* stopped and drained: deliver everything */
	int ncpu;
	struct staged *stage; /* [head, nstage) sorted by (ts, seq) */
	size_t head, nstage, capstage;
	uint64_t seq;
	int oom;
	uint64_t last_attach; /* when missing tracepoints were last looked for */
};

/* ---- libbpf messages: kept for the error report, not printed ------------- */

static char bpf_log[32768];
static size_t bpf_loglen;

static int bpf_log_fn(enum libbpf_print_level level, const char *fmt,
		      va_list ap)
{
	int n;

	if (level == LIBBPF_DEBUG || bpf_loglen >= sizeof(bpf_log) - 1)
		return 0;
	n = vsnprintf(bpf_log + bpf_loglen, sizeof(bpf_log) - bpf_loglen, fmt,
		      ap);
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
			    strncmp(q + 1, "processed ", 10) &&
			    strncmp(q + 1, "-- END", 6) &&
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
		fprintf(stderr, "npuprof: bpf engine: libbpf and verifier log:\n%s",
			bpf_log);
	if (!begin) {
		/* not a program the verifier refused: a map, BTF, the kernel */
		snprintf(e->err, sizeof(e->err),
			 "loading the BPF object failed: %s (libbpf log above)",
			 strerror(-r));
		return;
	}
	snprintf(e->err, sizeof(e->err),
		 "loading BPF program '%s' failed: %s%s%s (verifier log above)",
		 prog, strerror(-r), reason[0] ? ": " : "", reason);
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
	if (have_cap(d, CAP_SYS_ADMIN) ||
	    (have_cap(d, CAP_BPF) && have_cap(d, CAP_PERFMON)))
		return 0;
	snprintf(e->err, sizeof(e->err),
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

static int stage_add(struct bpfeng *b, const struct npuprof_record *r)
{
	size_t i;

	if (b->nstage == b->capstage) {
		size_t n = b->capstage ? 2 * b->capstage : 4096;
		struct staged *s;

		if (b->head) { /* compact before growing */
			memmove(b->stage, b->stage + b->head,
				(b->nstage - b->head) * sizeof(*b->stage));
			b->nstage -= b->head;
			b->head = 0;
		}
		if (b->nstage == b->capstage) {
			s = realloc(b->stage, n * sizeof(*s));
			if (!s) {
				b->oom = 1;
				return -ENOMEM;
			}
			b->stage = s;
			b->capstage = n;
		}
	}
	/* keep the stage sorted by (ts, arrival): the ring is nearly in
	 * order, so a record moves back a few places at most */
	i = b->nstage;
	while (i > b->head && b->stage[i - 1].r.hdr.ts > r->hdr.ts)
		i--;
	if (i < b->nstage)
		memmove(&b->stage[i + 1], &b->stage[i],
			(b->nstage - i) * sizeof(*b->stage));
	b->stage[i].r = *r;
	b->stage[i].seq = b->seq++;
	b->nstage++;
	return 0;
}

/*
 * Move everything committed in the ringbuf to the stage; one consumer
 * position update per batch, not per record. Returns the number of
 * records staged. A sample is one record or a DROP record and its record.
 */
static long rb_consume(struct bpfeng *b)
{
	uint64_t cons = *b->cons_pos, prod;
	long n = 0;

	prod = __atomic_load_n(b->prod_pos, __ATOMIC_ACQUIRE);
	while (cons < prod) {
		const uint32_t *hdr = (const void *)(b->data + (cons & b->mask));
		uint32_t len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);

		if (len & BPF_RINGBUF_BUSY_BIT)
			break; /* reserved, not yet committed */
		if (!(len & BPF_RINGBUF_DISCARD_BIT)) {
			const unsigned char *p = (const void *)(hdr + 2);

			for (uint32_t off = 0; off + NPUPROF_RECORD_SIZE <= len;
			     off += NPUPROF_RECORD_SIZE, n++)
				if (stage_add(b, (const void *)(p + off)) < 0)
					goto out;
		}
		len &= ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
		cons += (len + BPF_RINGBUF_HDR_SZ + 7) & ~7ULL;
		if (cons >= prod)
			prod = __atomic_load_n(b->prod_pos, __ATOMIC_ACQUIRE);
	}
out:
	__atomic_store_n(b->cons_pos, cons, __ATOMIC_RELEASE);
	return n;
}

static int rb_map(struct npuprof_engine *e, struct bpfeng *b, size_t bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	void *c, *p;
	int r;

	b->rb_fd = bpf_map__fd(b->skel->maps.rb);
	c = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, b->rb_fd, 0);
	if (c == MAP_FAILED)
		goto fail;
	/* populated now, so the capture does not take the page faults */
	p = mmap(NULL, page + 2 * bytes, PROT_READ, MAP_SHARED | MAP_POPULATE,
		 b->rb_fd, page);
	if (p == MAP_FAILED) {
		munmap(c, page);
		goto fail;
	}
	b->cons_pos = c;
	b->prod_pos = p;
	b->data = (const unsigned char *)p + page;
	b->mask = bytes - 1;
	b->rb_bytes = bytes;
	return 0;
fail:
	r = -errno;
	snprintf(e->err, sizeof(e->err), "mapping the ring buffer: %s",
		 strerror(-r));
	return r;
}

static void rb_unmap(struct bpfeng *b)
{
	long page = sysconf(_SC_PAGESIZE);

	if (b->cons_pos)
		munmap(b->cons_pos, page);
	if (b->prod_pos)
		munmap((void *)b->prod_pos, page + 2 * b->rb_bytes);
	b->cons_pos = NULL;
	b->prod_pos = NULL;
}

/* How many staged records (from head, sorted) are older than the reorder
 * window: they can be delivered. */
static size_t deliverable(const struct bpfeng *b)
{
	uint64_t now, horizon;
	size_t lo = b->head, hi = b->nstage;

	if (b->final || b->nstage - b->head > BPF_STAGE_MAX)
		return b->nstage - b->head;
	now = mono_ns();
	horizon = now > BPF_HOLDBACK_NS ? now - BPF_HOLDBACK_NS : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->stage[mid].r.hdr.ts <= horizon)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - b->head;
}

/* ---- the engine ------------------------------------------------------------ */

static void bpf_detach(struct bpfeng *b)
{
	for (int i = 0; i < 4; i++) {
		bpf_link__destroy(b->links[i]);
		b->links[i] = NULL;
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
	free(b->stage);
	free(b);
	e->priv = NULL;
}

static int bpf_open(struct npuprof_engine *e,
		    const struct npuprof_capture_opts *o)
{
	libbpf_print_fn_t old;
	struct bpfeng *b;
	uint64_t ring = o && o->ring_bytes ? o->ring_bytes : BPF_DEFAULT_RING;
	long page = sysconf(_SC_PAGESIZE);
	int r;

	if ((r = check_privileges(e)) < 0)
		return r;
	if (o && (o->flags & NPUPROF_CFG_OVERWRITE)) {
		snprintf(e->err, sizeof(e->err),
			 "overwrite (flight recorder) mode is not available with BPF ringbuf; use --engine kmod");
		return -EOPNOTSUPP;
	}
	if (ring < (uint64_t)page || ring > BPF_MAX_RING || (ring & (ring - 1))) {
		snprintf(e->err, sizeof(e->err),
			 "ring size %llu: must be a power of two from %ld bytes to 1 GiB",
			 (unsigned long long)ring, page);
		return -EINVAL;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	e->priv = b;
	b->ncpu = libbpf_num_possible_cpus();
	if (b->ncpu <= 0 || b->ncpu > NPUPROF_BPF_MAX_CPUS) {
		snprintf(e->err, sizeof(e->err),
			 "%d possible CPUs: the BPF engine counts per CPU for at most %d",
			 b->ncpu, NPUPROF_BPF_MAX_CPUS);
		r = -E2BIG;
		goto fail_early;
	}

	bpf_log_reset();
	old = libbpf_set_print(bpf_log_fn);
	b->skel = npuprof_bpf__open();
	if (!b->skel) {
		r = -errno;
		snprintf(e->err, sizeof(e->err), "opening the BPF object: %s",
			 strerror(errno));
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
					 "stream id %u out of range (max %u)",
					 o->streams[i], NPUPROF_MAX_STREAMS - 1);
				goto fail;
			}
			b->skel->rodata->cfg_stream_mask[o->streams[i] / 64] |=
				1ULL << (o->streams[i] % 64);
		}
	}
	b->skel->rodata->cfg_wakeup_bytes =
		(o && o->watermark ? o->watermark :
				     ring / BPF_SLOT_BYTES / 4) * BPF_SLOT_BYTES;
	bpf_map__set_max_entries(b->skel->maps.rb, (uint32_t)ring);
	/* the test entry points are for BPF_PROG_TEST_RUN only */
	bpf_program__set_autoload(b->skel->progs.test_sqe, false);
	bpf_program__set_autoload(b->skel->progs.test_cqe, false);
	bpf_program__set_autoload(b->skel->progs.test_recv, false);
	bpf_program__set_autoload(b->skel->progs.test_task_time, false);
	r = npuprof_bpf__load(b->skel);
	if (r) {
		r = r < 0 ? r : -errno;
		if (r == -EPERM && !strstr(bpf_log, "BEGIN PROG LOAD LOG"))
			snprintf(e->err, sizeof(e->err),
				 "the kernel refused to load BPF programs (EPERM): needs CAP_BPF and CAP_PERFMON or root, and kernel.unprivileged_bpf_disabled/lockdown may forbid it");
		else
			report_load_error(e, r);
		goto fail;
	}
	if ((r = rb_map(e, b, (size_t)ring)) < 0)
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
	struct bpf_program *progs[4] = {
		b->skel->progs.on_sqe,
		b->skel->progs.on_cqe,
		b->skel->progs.on_recv,
		b->skel->progs.on_task_time,
	};
	libbpf_print_fn_t old = libbpf_set_print(bpf_log_fn);
	int r = 0;

	bpf_log_reset();
	for (int i = 0; i < 4 && !r; i++) {
		if (b->links[i])
			continue;
		b->links[i] = bpf_program__attach_raw_tracepoint(progs[i],
								 bpf_tps[i].tp);
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
			snprintf(e->err, sizeof(e->err),
				 "attaching to tracepoint %s: %s",
				 bpf_tps[failed].tp, strerror(-r));
		else
			snprintf(e->err, sizeof(e->err),
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

	if (b->running && b->attached != BPF_TP_ALL &&
	    mono_ns() - b->last_attach > BPF_REATTACH_NS)
		attach_missing(b, &failed);
}

/* Losses still pending at stop get a DROP record each, per CPU. The
 * programs are detached, so the counters are ours to change. */
static void flush_pending_drops(struct bpfeng *b)
{
	struct npuprof_bpf_pcpu *cs = b->skel->bss->cpu_stats;

	for (int c = 0; c < b->ncpu; c++) {
		struct npuprof_record d;
		uint64_t lost = __atomic_exchange_n(&cs[c].pending_drop, 0,
						    __ATOMIC_RELAXED);

		if (!lost)
			continue;
		memset(&d, 0, sizeof(d));
		d.hdr.type = NPUPROF_REC_DROP;
		d.hdr.size = NPUPROF_RECORD_SIZE;
		npuprof_encode_hdr(&d, mono_ns(), (uint32_t)c, 0, 0);
		d.drop.lost = lost;
		stage_add(b, &d);
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

static int bpf_wait(struct npuprof_engine *e, int timeout_ms)
{
	struct bpfeng *b = e->priv;
	uint64_t deadline = mono_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000;

	for (;;) {
		struct pollfd pfd = { .fd = b->rb_fd, .events = POLLIN };
		uint64_t now;
		long ms;

		rb_consume(b);
		if (b->oom)
			return -ENOMEM;
		if (deliverable(b))
			return 1;
		now = mono_ns();
		if (timeout_ms >= 0 && now >= deadline)
			return 0;
		ms = timeout_ms < 0 ? -1 : (long)((deadline - now) / 1000000) + 1;
		if (b->nstage > b->head) {
			/* wake when the oldest staged record leaves the window */
			uint64_t ready = b->stage[b->head].r.hdr.ts + BPF_HOLDBACK_NS;
			long w = ready > now ? (long)((ready - now) / 1000000) + 1 : 0;

			if (ms < 0 || w < ms)
				ms = w;
		}
		if (poll(&pfd, 1, (int)ms) < 0)
			return errno == EINTR ? 0 : -errno;
	}
}

static long bpf_read(struct npuprof_engine *e, npuprof_record_fn fn, void *ctx)
{
	struct bpfeng *b = e->priv;
	size_t n, i;

	reattach(b);
	rb_consume(b);
	n = deliverable(b);
	for (i = 0; i < n;) {
		if (fn(ctx, &b->stage[b->head + i++].r))
			break;
	}
	b->head += i;
	if (b->head == b->nstage)
		b->head = b->nstage = 0;
	if (b->oom) {
		b->oom = 0;
		if (!i)
			return -ENOMEM;
	}
	return (long)i;
}

static int bpf_stats(struct npuprof_engine *e, struct npuprof_stats *st)
{
	struct bpfeng *b = e->priv;
	const struct npuprof_bpf_pcpu *cs = b->skel->bss->cpu_stats;

	memset(st, 0, sizeof(*st));
	for (int c = 0; c < b->ncpu; c++) {
		for (int t = 0; t < NPUPROF_REC_TYPE_MAX; t++)
			st->events[t] += __atomic_load_n(&cs[c].events[t],
							 __ATOMIC_RELAXED);
		st->written += __atomic_load_n(&cs[c].written, __ATOMIC_RELAXED);
		st->dropped += __atomic_load_n(&cs[c].dropped, __ATOMIC_RELAXED);
		st->filtered += __atomic_load_n(&cs[c].filtered, __ATOMIC_RELAXED);
		st->sampled_out +=
			__atomic_load_n(&cs[c].sampled_out, __ATOMIC_RELAXED);
	}
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
};
