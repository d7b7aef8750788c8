/*
 * engine_kmod.c — capture engine 1: npuprof.ko through /dev/npuprof.
 *
 * Configures a session, maps every CPU's control page and ring read-only,
 * and reads by k-way merging the per-CPU rings (each already in timestamp
 * order) into one timestamp-ordered sequence. What was read is reported back
 * with NPUPROF_IOC_CONSUME, one call per CPU that had data. In overwrite
 * (flight recorder) mode the kernel writes on without waiting for us, so a
 * record is copied out and then checked against the head: if the writer
 * may have reached its slot meanwhile, the copy is torn and is discarded,
 * and a reader that fell behind skips to the oldest record still intact.
 */
#include "npuprof/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

/* Default ring: a 64 MiB budget shared by the CPUs, 1-16 MiB per CPU. */
#define KMOD_RING_BUDGET (64ULL << 20)
#define KMOD_RING_MIN (1ULL << 20)
#define KMOD_RING_MAX (16ULL << 20)

static uint64_t kmod_default_ring(unsigned int ncpu)
{
	uint64_t r = KMOD_RING_MAX;

	while (r > KMOD_RING_MIN && r * ncpu > KMOD_RING_BUDGET)
		r >>= 1;
	return r;
}

struct kring {
	const struct npuprof_ring_ctrl *ctrl;
	const unsigned char *data;
	uint64_t tail; /* our read position */
	uint64_t mask;
	uint64_t end; /* head snapshot for the current read pass */
	uint64_t consumed; /* tail last reported to the kernel */
	const struct npuprof_record *cur; /* the record at tail, if loaded */
	struct npuprof_record copy; /* overwrite mode: cur's private copy */
};

struct kmod {
	int fd;
	int ncpu;
	int overwrite;
	uint64_t ring_bytes;
	struct kring *rings;
};

static int kioctl(int fd, unsigned long cmd, void *arg)
{
	int r;

	do
		r = ioctl(fd, cmd, arg);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : 0;
}

static void kmod_unmap(struct kmod *k)
{
	for (int c = 0; c < k->ncpu && k->rings; c++) {
		if (k->rings[c].ctrl)
			munmap((void *)k->rings[c].ctrl, 4096);
		if (k->rings[c].data)
			munmap((void *)k->rings[c].data, k->ring_bytes);
	}
	free(k->rings);
	k->rings = NULL;
}

static void kmod_close(struct npuprof_engine *e)
{
	struct kmod *k = e->priv;

	if (!k)
		return;
	kmod_unmap(k);
	if (k->fd >= 0)
		close(k->fd);
	free(k);
	e->priv = NULL;
}

static int kmod_open(struct npuprof_engine *e, const struct npuprof_capture_opts *o)
{
	struct npuprof_version v;
	struct npuprof_config cfg;
	struct kmod *k;
	long page = sysconf(_SC_PAGESIZE);
	int r;

	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	e->priv = k;
	k->fd = open("/dev/npuprof", O_RDONLY | O_CLOEXEC);
	if (k->fd < 0) {
		r = -errno;
		snprintf(
			e->err, sizeof(e->err),
			"cannot open /dev/npuprof: %s (is npuprof.ko loaded? insmod kmod/npuprof/npuprof.ko)",
			strerror(errno));
		goto fail;
	}
	if ((r = kioctl(k->fd, NPUPROF_IOC_VERSION, &v)) < 0) {
		snprintf(e->err, sizeof(e->err), "version query: %s", strerror(-r));
		goto fail;
	}
	if (v.abi_version != NPUPROF_ABI_VERSION || v.record_size != NPUPROF_RECORD_SIZE ||
	    v.schema_version < NPUPROF_SCHEMA_VERSION) {
		r = -EPROTO;
		snprintf(
			e->err, sizeof(e->err),
			"npuprof.ko speaks ABI %u schema %u (record %u bytes); this library needs ABI %u schema %u",
			v.abi_version, v.schema_version, v.record_size, NPUPROF_ABI_VERSION,
			NPUPROF_SCHEMA_VERSION);
		goto fail;
	}

	memset(&cfg, 0, sizeof(cfg));
	cfg.ring_bytes = o && o->ring_bytes ? o->ring_bytes : kmod_default_ring(v.nr_cpu_ids);
	/* wake early: a reader that shares CPUs with a busy workload lags */
	cfg.watermark = o && o->watermark ? o->watermark :
					    (uint32_t)(cfg.ring_bytes / NPUPROF_RECORD_SIZE / 8);
	if (o) {
		cfg.pid = o->pid;
		cfg.dev_mask = o->dev_mask;
		cfg.sample_n = o->sample_n;
		cfg.flags = o->flags & (NPUPROF_CFG_OVERWRITE | NPUPROF_CFG_NO_RECV);
		if (o->nstreams) {
			cfg.flags |= NPUPROF_CFG_STREAM_FILTER;
			for (uint32_t i = 0; i < o->nstreams; i++) {
				if (o->streams[i] >= NPUPROF_MAX_STREAMS) {
					r = -EINVAL;
					snprintf(e->err, sizeof(e->err),
						 "stream id %u out of range (max %u)",
						 o->streams[i], NPUPROF_MAX_STREAMS - 1);
					goto fail;
				}
				cfg.stream_mask[o->streams[i] / 64] |= 1ULL << (o->streams[i] % 64);
			}
		}
	}
	if (!npuprof_ring_bytes_valid(cfg.ring_bytes, (uint64_t)page)) {
		r = -EINVAL;
		snprintf(
			e->err, sizeof(e->err),
			"ring size %llu bytes per CPU: must be a power of two from %llu KiB (and the page size, %ld bytes) to %llu KiB",
			(unsigned long long)cfg.ring_bytes, NPUPROF_RING_MIN_BYTES >> 10, page,
			NPUPROF_RING_MAX_BYTES >> 10);
		goto fail;
	}
	if ((r = kioctl(k->fd, NPUPROF_IOC_CONFIGURE, &cfg)) < 0) {
		if (r == -EPERM)
			snprintf(
				e->err, sizeof(e->err),
				"configure: %s (capturing every process needs CAP_PERFMON or root; use --pid with a process you own, and rings of at most %llu KiB per CPU)",
				strerror(-r), NPUPROF_RING_MAX_UNPRIV_BYTES >> 10);
		else if (r == -EINVAL)
			snprintf(
				e->err, sizeof(e->err),
				"configure: %s (the ring size must be a power of two from %llu KiB (and the page size) to %llu KiB per CPU)",
				strerror(-r), NPUPROF_RING_MIN_BYTES >> 10,
				NPUPROF_RING_MAX_BYTES >> 10);
		else if (r == -ENOMEM)
			snprintf(
				e->err, sizeof(e->err),
				"configure: %s (%llu KiB per CPU for %u CPUs: the rings may take at most 1/%d of RAM)",
				strerror(-r), (unsigned long long)(cfg.ring_bytes >> 10),
				v.nr_cpu_ids, NPUPROF_RING_MEM_SHARE);
		else
			snprintf(e->err, sizeof(e->err), "configure: %s", strerror(-r));
		goto fail;
	}
	k->overwrite = !!(cfg.flags & NPUPROF_CFG_OVERWRITE);
	k->ring_bytes = cfg.ring_bytes;
	k->ncpu = (int)v.nr_cpu_ids;
	k->rings = calloc(k->ncpu, sizeof(*k->rings));
	if (!k->rings) {
		r = -ENOMEM;
		goto fail;
	}
	for (int c = 0; c < k->ncpu; c++) {
		struct kring *kr = &k->rings[c];
		void *p = mmap(NULL, page, PROT_READ, MAP_SHARED, k->fd,
			       (off_t)NPUPROF_MMAP_CTRL(c));

		if (p == MAP_FAILED)
			continue; /* not a possible CPU */
		kr->ctrl = p;
		p = mmap(NULL, k->ring_bytes, PROT_READ, MAP_SHARED, k->fd,
			 (off_t)NPUPROF_MMAP_DATA(c));
		if (p == MAP_FAILED) {
			r = -errno;
			snprintf(e->err, sizeof(e->err), "map ring of CPU %d: %s", c,
				 strerror(errno));
			goto fail;
		}
		kr->data = p;
		kr->mask = kr->ctrl->nr_slots - 1;
	}
	return 0;
fail:
	kmod_close(e);
	return r;
}

static int kmod_start(struct npuprof_engine *e)
{
	struct kmod *k = e->priv;
	int r = kioctl(k->fd, NPUPROF_IOC_START, NULL);

	if (r < 0)
		snprintf(e->err, sizeof(e->err), "start: %s%s", strerror(-r),
			 r == -EBUSY ? " (too many capture sessions running)" : "");
	return r;
}

static int kmod_stop(struct npuprof_engine *e)
{
	struct kmod *k = e->priv;
	int r = kioctl(k->fd, NPUPROF_IOC_STOP, NULL);

	if (r < 0)
		snprintf(e->err, sizeof(e->err), "stop: %s", strerror(-r));
	return r;
}

static int kmod_wait(struct npuprof_engine *e, int timeout_ms)
{
	struct kmod *k = e->priv;
	struct pollfd p = { .fd = k->fd, .events = POLLIN };
	int r = poll(&p, 1, timeout_ms);

	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	if (r > 0 && (p.revents & POLLERR))
		return -EIO;
	return r > 0 && (p.revents & POLLIN) ? 1 : 0;
}

static const struct npuprof_record *kring_at(const struct kring *kr, uint64_t pos)
{
	return (const void *)(kr->data + (pos & kr->mask) * NPUPROF_RECORD_SIZE);
}

/*
 * Load the record at kr->tail into kr->cur; 0 when the pass is done. In
 * overwrite mode the writer is at most one record past the head it has
 * published (two with a DROP record ahead of it), so a copy of position pos
 * is intact if, read after the copy, head - pos < nr_slots - 1.
 */
static int kring_load(const struct kmod *k, struct kring *kr)
{
	while (!kr->cur && kr->tail != kr->end) {
		const struct npuprof_record *slot = kring_at(kr, kr->tail);
		uint64_t head;

		if (!k->overwrite) {
			kr->cur = slot;
			break;
		}
		memcpy(&kr->copy, slot, sizeof(kr->copy));
		/* the copy's loads complete before the head is read */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		head = __atomic_load_n(&kr->ctrl->head, __ATOMIC_ACQUIRE);
		if (head - kr->tail < kr->mask) {
			kr->cur = &kr->copy;
			break;
		}
		/* lapped: the oldest record the writer cannot be touching */
		kr->tail = head - kr->mask + 1;
		kr->end = head;
	}
	return kr->cur != NULL;
}

static long kmod_read(struct npuprof_engine *e, npuprof_record_fn fn, void *ctx)
{
	struct kmod *k = e->priv;
	long n = 0;
	int stop = 0;

	for (int c = 0; c < k->ncpu; c++) {
		struct kring *kr = &k->rings[c];

		if (!kr->data)
			continue;
		kr->end = __atomic_load_n(&kr->ctrl->head, __ATOMIC_ACQUIRE);
		if (k->overwrite && kr->end - kr->tail > kr->mask - 1) {
			kr->tail = kr->end - kr->mask + 1;
			kr->cur = NULL;
		}
	}
	/* k-way merge: the CPU count is small, so a linear scan is enough */
	while (!stop) {
		struct kring *best = NULL;
		const struct npuprof_record *br;

		for (int c = 0; c < k->ncpu; c++) {
			struct kring *kr = &k->rings[c];

			if (!kr->data || !kring_load(k, kr))
				continue;
			if (!best || kr->cur->hdr.ts < best->cur->hdr.ts)
				best = kr;
		}
		if (!best)
			break;
		br = best->cur;
		best->cur = NULL;
		best->tail++;
		if (br->hdr.size != NPUPROF_RECORD_SIZE || !br->hdr.type)
			continue; /* not a record: skip */
		n++;
		if (fn(ctx, br))
			stop = 1;
	}
	for (int c = 0; c < k->ncpu; c++) {
		struct kring *kr = &k->rings[c];
		struct npuprof_consume cm = { .cpu = (uint32_t)c };

		if (!kr->data || kr->tail == kr->consumed)
			continue;
		cm.tail = kr->tail;
		if (kioctl(k->fd, NPUPROF_IOC_CONSUME, &cm) == 0)
			kr->consumed = kr->tail;
	}
	return n;
}

static int kmod_stats(struct npuprof_engine *e, struct npuprof_stats *st)
{
	struct kmod *k = e->priv;

	return kioctl(k->fd, NPUPROF_IOC_STATS, st);
}

const struct npuprof_engine_ops npuprof_engine_kmod = {
	.name = "kmod",
	.open = kmod_open,
	.start = kmod_start,
	.stop = kmod_stop,
	.wait = kmod_wait,
	.read = kmod_read,
	.stats = kmod_stats,
	.close = kmod_close,
	.driver = 1,
};
