/*
 * stress — hammer the two character devices for tests/vm/suite_80_stress.sh:
 *
 *   stress [-u] [-s SECONDS] [-j THREADS] ioctl|mmap|openclose|all
 *
 *   ioctl      random and half-plausible ioctls on /dev/npuprof and every
 *              /dev/npusim<N>: unknown commands, NULL and wild pointers,
 *              random bytes, plausible configurations, streams, task
 *              batches, receives, syncs, ids; sessions started and files
 *              closed with captures running and tasks queued
 *   mmap       odd mappings of /dev/npuprof's rings: sizes, offsets, PROT,
 *              MAP_PRIVATE, mprotect, mremap, partial munmap, use after
 *              close, MADV_DONTNEED then read (never SIGBUS, same bytes),
 *              fork, and CONFIGURE refused while the rings are mapped
 *   openclose  threads opening and closing both devices at once, some with
 *              a capture running or tasks queued when they close
 *
 * -u runs as nobody (65534), as an unprivileged user would. Each phase runs
 * for SECONDS (default 10) on THREADS threads (default 4), counts its calls
 * per kind and fails on an errno the ABI does not allow, a wrong mapping or
 * a signal. The kernel's own verdict (WARN, lockdep, KASAN, leaks) is read
 * by scripts/vm.sh from the guest log.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "npusim_dev.h"
#include "uapi/npuprof.h"

static int unpriv, nthreads = 4;
static double seconds = 10;
static atomic_int errors;
static int ndev;

enum kind {
	K_PROF_IOCTL,
	K_SIM_IOCTL,
	K_MMAP,
	K_OPEN,
	K_NKINDS
};
static const char *const kind_name[K_NKINDS] = { "npuprof ioctl", "npusim ioctl", "mmap",
						 "open/close" };
static atomic_ullong calls[K_NKINDS];

static void oops(const char *fmt, ...)
{
	va_list ap;

	if (atomic_fetch_add(&errors, 1) > 20)
		return;
	fputs("  FAIL: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* xorshift64*: each thread its own sequence */
static uint64_t rnd(uint64_t *st)
{
	*st ^= *st >> 12;
	*st ^= *st << 25;
	*st ^= *st >> 27;
	return *st * 2685821657736338717ULL;
}

static unsigned below(uint64_t *st, unsigned n)
{
	return (unsigned)(rnd(st) % n);
}

static void fill(uint64_t *st, void *p, size_t n)
{
	unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)rnd(st);
}

/* An argument that is no buffer: NULL, a low address, a kernel address, or
 * a page that is mapped but unreadable. */
static void *wild(uint64_t *st)
{
	static void *noaccess;

	if (!noaccess)
		noaccess = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	switch (below(st, 4)) {
	case 0: return NULL;
	case 1: return (void *)(uintptr_t)(1 + below(st, 65536));
	case 2: return (void *)0xffffffff81000000ULL;
	default: return noaccess;
	}
}

/* errno values an ioctl of these drivers may return at all */
static int allowed(int e)
{
	switch (e) {
	case EINVAL:
	case EFAULT:
	case ENOTTY:
	case EBUSY:
	case ESRCH:
	case EPERM:
	case ENOMEM:
	case ENOSPC:
	case ETIMEDOUT:
	case EINTR: return 1;
	}
	return 0;
}

static void xioctl(int fd, unsigned long cmd, void *arg, enum kind k)
{
	atomic_fetch_add_explicit(&calls[k], 1, memory_order_relaxed);
	if (ioctl(fd, cmd, arg) < 0 && !allowed(errno))
		oops("%s %#lx: %s", kind_name[k], cmd, strerror(errno));
}

/* ---- /dev/npuprof ---------------------------------------------------------- */

static void plausible_config(uint64_t *st, struct npuprof_config *c)
{
	memset(c, 0, sizeof(*c));
	c->ring_bytes = 4096ULL << below(st, 5); /* 4 .. 64 KiB */
	c->watermark = 1 + below(st, 64);
	c->pid = unpriv || below(st, 3) == 0 ? (uint32_t)getpid() : 0;
	c->dev_mask = below(st, 2) ? 0 : (uint32_t)rnd(st);
	c->sample_n = below(st, 3) ? 0 : below(st, 50);
	c->flags = below(st, 2) ? 0 : below(st, NPUPROF_CFG_FLAGS_ALL + 1);
	if (c->flags & NPUPROF_CFG_STREAM_FILTER)
		fill(st, c->stream_mask, sizeof(c->stream_mask));
}

static void prof_op(uint64_t *st, int fd)
{
	static const unsigned long cmds[] = {
		NPUPROF_IOC_VERSION, NPUPROF_IOC_CONFIGURE, NPUPROF_IOC_START,
		NPUPROF_IOC_STOP,    NPUPROF_IOC_STATS,	    NPUPROF_IOC_CONSUME,
	};
	union {
		struct npuprof_config cfg;
		struct npuprof_consume cm;
		struct npuprof_stats stats;
		unsigned char raw[sizeof(struct npuprof_config) + 64];
	} u;
	unsigned long cmd = cmds[below(st, 6)];
	unsigned how = below(st, 8);

	if (how == 0) /* a command of no driver, or of this magic */
		cmd = below(st, 2) ?
			      (unsigned long)rnd(st) :
			      _IOC(below(st, 4), NPUPROF_IOC_MAGIC, below(st, 16), below(st, 512));
	fill(st, &u, sizeof(u));
	if (how == 1) {
		xioctl(fd, cmd, wild(st), K_PROF_IOCTL);
		return;
	}
	if (cmd == NPUPROF_IOC_CONFIGURE && how > 3)
		plausible_config(st, &u.cfg);
	if (cmd == NPUPROF_IOC_CONSUME && how > 3) {
		u.cm.cpu = below(st, 4);
		u.cm.rsv = 0;
		u.cm.tail = below(st, 4);
	}
	xioctl(fd, cmd, &u, K_PROF_IOCTL);
}

/* ---- /dev/npusim<N> ---------------------------------------------------------- */

struct sim {
	int fd;
	uint32_t sid[8];
	int nsid;
	uint16_t task;
};

static void plausible_sqe(uint64_t *st, struct sim *m, struct npusim_sqe *q,
			  struct npusim_task_model *md, uint32_t sid)
{
	static const unsigned types[] = {
		NPUSIM_SQE_AI_CORE,	  NPUSIM_SQE_AI_CPU,	   NPUSIM_SQE_AIV,
		NPUSIM_SQE_PLACE_HOLDER,  NPUSIM_SQE_EVENT_RECORD, NPUSIM_SQE_EVENT_WAIT,
		NPUSIM_SQE_NOTIFY_RECORD, NPUSIM_SQE_NOTIFY_WAIT,  NPUSIM_SQE_WRITE_VALUE,
		NPUSIM_SQE_SDMA,	  NPUSIM_SQE_PCIE_DMA,	   NPUSIM_SQE_COND,
	};

	npusim_sqe_init(q, types[below(st, 12)], (uint16_t)sid, m->task++);
	q->ctrl = below(st, 2) ? NPUSIM_SQE_CTRL_WR_CQE : 0;
	q->block_dim = (uint16_t)below(st, 64);
	q->u.ffts.ffts_type = (uint16_t)below(st, 8);
	if ((q->type & NPUSIM_SQE_TYPE_MASK) == NPUSIM_SQE_SDMA)
		npusim_sqe_set_sdma(q, below(st, 1 << 20), rnd(st), rnd(st));
	else if ((q->type & NPUSIM_SQE_TYPE_MASK) == NPUSIM_SQE_PCIE_DMA)
		q->u.pcie_dma.length = below(st, 8) ? below(st, 1 << 20) : rnd(st);
	else if ((q->type & NPUSIM_SQE_TYPE_MASK) >= NPUSIM_SQE_EVENT_RECORD)
		npusim_sqe_set_sync_id(q, below(st, 8) ? below(st, 64) : (uint32_t)rnd(st));
	memset(md, 0, sizeof(*md));
	md->duration_ns = below(st, 50000); /* a stream closes within ms */
	md->target_dev = below(st, 8) ? below(st, (unsigned)ndev + 1) : (uint32_t)rnd(st);
	md->kind = (uint8_t)below(st, 4);
	md->jitter_pm = (uint16_t)below(st, 1200);
}

static uint32_t some_sid(uint64_t *st, struct sim *m)
{
	if (m->nsid && below(st, 8))
		return m->sid[below(st, (unsigned)m->nsid)];
	return below(st, 2) ? below(st, 16) : (uint32_t)rnd(st);
}

static void sim_op(uint64_t *st, struct sim *m)
{
	union {
		struct npusim_dev_info info;
		struct npusim_stream_create cr;
		struct npusim_stream_destroy de;
		struct npusim_sq_send snd;
		struct npusim_cq_recv rcv;
		struct npusim_stream_sync sy;
		struct npusim_clock_sync cs;
		struct npusim_id id;
		struct npusim_stream_status ss;
	} u;
	static __thread struct npusim_sqe q[64];
	static __thread struct npusim_task_model md[64];
	static __thread struct npusim_cqe cq[64];
	unsigned how = below(st, 8), n;
	unsigned long cmd;

	fill(st, &u, sizeof(u));
	switch (below(st, 11)) {
	case 0: cmd = NPUSIM_IOC_DEV_INFO; break;
	case 1:
		if (m->nsid == 8)
			goto destroy;
		memset(&u.cr, 0, sizeof(u.cr));
		atomic_fetch_add_explicit(&calls[K_SIM_IOCTL], 1, memory_order_relaxed);
		if (ioctl(m->fd, NPUSIM_IOC_STREAM_CREATE, &u.cr) == 0)
			m->sid[m->nsid++] = u.cr.stream_id;
		else if (!allowed(errno))
			oops("stream create: %s", strerror(errno));
		return;
	case 2:
destroy:
		cmd = NPUSIM_IOC_STREAM_DESTROY;
		u.de.stream_id = some_sid(st, m);
		u.de.flags = below(st, 4) ? NPUSIM_DESTROY_CANCEL : below(st, 3);
		u.de.timeout_ms = (int32_t)below(st, 3);
		if (how)
			u.de.rsv = 0;
		for (int i = 0; i < m->nsid; i++)
			if (m->sid[i] == u.de.stream_id && u.de.flags == NPUSIM_DESTROY_CANCEL &&
			    !u.de.rsv) {
				m->sid[i] = m->sid[--m->nsid];
				break;
			}
		break;
	case 3:
	case 4:
	case 5:
		cmd = NPUSIM_IOC_SQ_SEND;
		u.snd.stream_id = some_sid(st, m);
		n = 1 + below(st, 64);
		for (unsigned i = 0; i < n; i++)
			if (how)
				plausible_sqe(st, m, &q[i], &md[i], u.snd.stream_id);
			else
				fill(st, &q[i], sizeof(q[i]));
		/* the model: none, plausible, or (how 0) random bytes */
		if (!how)
			fill(st, md, sizeof(md));
		u.snd.sqe_num = how > 1 ? n : (uint32_t)rnd(st);
		u.snd.sqe_addr = how == 1 ? (uint64_t)(uintptr_t)wild(st) : (uint64_t)(uintptr_t)q;
		u.snd.timeout_ms = 0; /* never wait for room: closes stay quick */
		if (how) {
			memset(u.snd.rsv, 0, sizeof(u.snd.rsv));
			u.snd.model_addr = below(st, 4) ? (uint64_t)(uintptr_t)md : 0;
		} else if (below(st, 2)) {
			u.snd.model_addr = (uint64_t)(uintptr_t)md;
		}
		break;
	case 6:
		cmd = NPUSIM_IOC_CQ_RECV;
		u.rcv.stream_id = some_sid(st, m);
		u.rcv.cqe_num = how ? 1 + below(st, 64) : (uint32_t)rnd(st);
		u.rcv.cqe_addr = how == 1 ? (uint64_t)(uintptr_t)wild(st) : (uint64_t)(uintptr_t)cq;
		if (!how && u.rcv.cqe_num > 64)
			u.rcv.cqe_num = 64;
		u.rcv.timeout_ms = (int32_t)below(st, 2);
		if (how)
			memset(u.rcv.rsv, 0, sizeof(u.rcv.rsv));
		break;
	case 7:
		cmd = NPUSIM_IOC_STREAM_SYNC;
		u.sy.stream_id = some_sid(st, m);
		u.sy.timeout_ms = (int32_t)below(st, 2);
		break;
	case 8:
		cmd = NPUSIM_IOC_CLOCK_SYNC;
		if (how)
			u.cs.count = below(st, NPUSIM_CLOCK_SAMPLES_MAX + 2), u.cs.rsv = 0;
		break;
	case 9:
		cmd = below(st, 2) ? NPUSIM_IOC_ID_ALLOC : NPUSIM_IOC_ID_FREE;
		if (how)
			u.id.kind = below(st, 3), u.id.id = below(st, 64);
		break;
	default:
		cmd = below(st, 2) ?
			      NPUSIM_IOC_STREAM_STATUS :
			      _IOC(below(st, 4), NPUSIM_IOC_MAGIC, below(st, 16), below(st, 512));
		u.ss.stream_id = some_sid(st, m);
		break;
	}
	/* a wild pointer for a command that copies in nothing is no test */
	xioctl(m->fd, cmd,
	       how == 1 && cmd != NPUSIM_IOC_SQ_SEND && cmd != NPUSIM_IOC_CQ_RECV ? wild(st) :
										    (void *)&u,
	       K_SIM_IOCTL);
}

/* ---- phases ------------------------------------------------------------------ */

static int open_sim(uint64_t *st)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/npusim%u", below(st, (unsigned)ndev));
	return open(path, O_RDWR);
}

struct worker {
	pthread_t th;
	int id;
	double until;
};

static void *ioctl_worker(void *p)
{
	struct worker *w = p;
	uint64_t st = 0x9e3779b97f4a7c15ULL * (w->id + 1) + (uint64_t)time(NULL);
	struct sim m = { .fd = -1 };
	int pfd = -1;

	while (now_s() < w->until) {
		for (int i = 0; i < 500; i++) {
			if (pfd < 0 && (pfd = open("/dev/npuprof", O_RDONLY)) < 0) {
				oops("open /dev/npuprof: %s", strerror(errno));
				return NULL;
			}
			if (m.fd < 0) {
				m.nsid = 0;
				if ((m.fd = open_sim(&st)) < 0) {
					oops("open npusim: %s", strerror(errno));
					return NULL;
				}
			}
			if (w->id % 2)
				prof_op(&st, pfd);
			else
				sim_op(&st, &m);
			/* now and then tear a file down with whatever it has */
			if (below(&st, 2000) == 0) {
				close(pfd);
				pfd = -1;
			}
			if (below(&st, 2000) == 0) {
				close(m.fd);
				m.fd = -1;
			}
		}
	}
	if (pfd >= 0)
		close(pfd);
	if (m.fd >= 0)
		close(m.fd);
	return NULL;
}

static void *openclose_worker(void *p)
{
	struct worker *w = p;
	uint64_t st = 0xd1b54a32d192ed03ULL * (w->id + 7) + (uint64_t)time(NULL);

	while (now_s() < w->until) {
		int fd;

		atomic_fetch_add_explicit(&calls[K_OPEN], 1, memory_order_relaxed);
		if (below(&st, 2)) {
			struct npuprof_config c;

			if ((fd = open("/dev/npuprof", O_RDONLY)) < 0) {
				oops("open /dev/npuprof: %s", strerror(errno));
				return NULL;
			}
			if (below(&st, 4) == 0) {
				plausible_config(&st, &c);
				xioctl(fd, NPUPROF_IOC_CONFIGURE, &c, K_PROF_IOCTL);
				xioctl(fd, NPUPROF_IOC_START, NULL, K_PROF_IOCTL);
			}
		} else {
			struct sim m = { .nsid = 0 };

			if ((fd = open_sim(&st)) < 0) {
				oops("open npusim: %s", strerror(errno));
				return NULL;
			}
			m.fd = fd;
			if (below(&st, 4) == 0)
				for (int i = 0; i < 4; i++)
					sim_op(&st, &m);
		}
		close(fd);
	}
	return NULL;
}

static void run_workers(void *(*fn)(void *))
{
	struct worker w[64];
	int n = nthreads < 64 ? nthreads : 64;
	double until = now_s() + seconds;

	for (int i = 0; i < n; i++) {
		w[i].id = i;
		w[i].until = until;
		pthread_create(&w[i].th, NULL, fn, &w[i]);
	}
	for (int i = 0; i < n; i++)
		pthread_join(w[i].th, NULL);
}

/* ---- mappings ---------------------------------------------------------------- */

static sigjmp_buf fault_jmp;
static volatile sig_atomic_t in_read;

static void on_fault(int sig)
{
	if (in_read)
		siglongjmp(fault_jmp, sig);
	_exit(99);
}

/* Read every page of [p, p + len); 0, or the signal that reading raised. */
static int touch(const void *p, size_t len, unsigned long *sum)
{
	volatile const unsigned char *b = p;
	int sig;

	if ((sig = sigsetjmp(fault_jmp, 1)) != 0) {
		in_read = 0;
		return sig;
	}
	in_read = 1;
	for (size_t off = 0; off < len; off += 4096)
		*sum += b[off] + b[off + 4095];
	in_read = 0;
	return 0;
}

static void *map(int fd, size_t len, int prot, int flags, uint64_t off)
{
	atomic_fetch_add_explicit(&calls[K_MMAP], 1, memory_order_relaxed);
	return mmap(NULL, len, prot, flags, fd, (off_t)off);
}

/* A mapping that must be refused with errno want. */
static void refused(int fd, size_t len, int prot, int flags, uint64_t off, int want,
		    const char *what)
{
	void *p = map(fd, len, prot, flags, off);

	if (p != MAP_FAILED) {
		oops("mmap %s: allowed", what);
		munmap(p, len);
	} else if (errno != want) {
		oops("mmap %s: %s, want %s", what, strerror(errno), strerror(want));
	}
}

/* Records in the rings: submits of our own tasks, traced. */
static void make_records(int n)
{
	struct npusim_sqe q[64];
	uint32_t sid;
	int fd = npusim_dev_open(0);

	if (fd < 0 || npusim_stream_create(fd, &sid) < 0) {
		oops("npusim for records");
		if (fd >= 0)
			close(fd);
		return;
	}
	for (int t = 0; t < n; t += 64) {
		for (int i = 0; i < 64; i++)
			npusim_sqe_init(&q[i], NPUSIM_SQE_AIV, (uint16_t)sid, (uint16_t)(t + i));
		if (npusim_sq_send(fd, sid, q, 64, 1000, NULL) < 0)
			oops("records: send");
		npusim_stream_sync(fd, sid, 5000);
	}
	close(fd);
}

static void mmap_round(uint64_t *st, int records)
{
	struct npuprof_config c;
	long page = 4096;
	int fd = open("/dev/npuprof", O_RDONLY);
	unsigned long sum = 0;
	unsigned char *p, *snap;
	int sig;

	if (fd < 0) {
		oops("open /dev/npuprof: %s", strerror(errno));
		return;
	}
	refused(fd, page, PROT_READ, MAP_SHARED, NPUPROF_MMAP_CTRL(0), EINVAL, "before CONFIGURE");
	plausible_config(st, &c);
	c.pid = (uint32_t)getpid();
	c.flags &= ~NPUPROF_CFG_STREAM_FILTER;
	c.dev_mask = 0;
	c.sample_n = 0;
	c.ring_bytes = records ? 64 << 10 : 4096ULL << below(st, 5);
	xioctl(fd, NPUPROF_IOC_CONFIGURE, &c, K_PROF_IOCTL);
	size_t rb = c.ring_bytes;

	/* (a read-only file: the kernel refuses before asking the driver) */
	refused(fd, page, PROT_READ | PROT_WRITE, MAP_SHARED, NPUPROF_MMAP_CTRL(0), EACCES,
		"shared writable");
	refused(fd, page, PROT_READ | PROT_EXEC, MAP_SHARED, NPUPROF_MMAP_CTRL(0), EPERM,
		"executable");
	refused(fd, page, PROT_READ | PROT_WRITE, MAP_PRIVATE, NPUPROF_MMAP_CTRL(0), EPERM,
		"private writable");
	refused(fd, 2 * page, PROT_READ, MAP_SHARED, NPUPROF_MMAP_CTRL(0), EINVAL,
		"two ctrl pages");
	refused(fd, rb + page, PROT_READ, MAP_SHARED, NPUPROF_MMAP_DATA(0), EINVAL,
		"data + a page");
	if (rb > (size_t)page)
		refused(fd, rb - page, PROT_READ, MAP_SHARED, NPUPROF_MMAP_DATA(0), EINVAL,
			"data - a page");
	refused(fd, page, PROT_READ, MAP_SHARED, NPUPROF_MMAP_CTRL(4096), EINVAL, "CPU 4096");
	refused(fd, page, PROT_READ, MAP_SHARED,
		NPUPROF_MMAP_CTRL(0) + page * (1 + below(st, 1000)), EINVAL,
		"an offset inside the control area");
	refused(fd, page, PROT_READ, MAP_SHARED, NPUPROF_MMAP_DATA(0) + page, EINVAL,
		"an offset inside the data");
	atomic_fetch_add_explicit(&calls[K_MMAP], 1, memory_order_relaxed);
	if (mmap(NULL, 0, PROT_READ, MAP_SHARED, fd, 0) != MAP_FAILED)
		oops("mmap of 0 bytes allowed");

	/* PROT_NONE, then readable; never writable */
	p = map(fd, page - 1 - below(st, 100), PROT_NONE, MAP_SHARED, NPUPROF_MMAP_CTRL(0));
	if (p == MAP_FAILED) {
		oops("ctrl PROT_NONE: %s", strerror(errno));
	} else {
		if (mprotect(p, page, PROT_READ) != 0)
			oops("mprotect PROT_READ: %s", strerror(errno));
		else if ((sig = touch(p, page, &sum)) != 0)
			oops("ctrl read: signal %d", sig);
		if (mprotect(p, page, PROT_READ | PROT_WRITE) == 0)
			oops("mprotect to writable allowed");
		if (mremap(p, page, 2 * page, MREMAP_MAYMOVE) != MAP_FAILED)
			oops("mremap grew the ctrl mapping");
		munmap(p, page);
	}
	/* a private read-only copy is the same pages */
	p = map(fd, page, PROT_READ, MAP_PRIVATE, NPUPROF_MMAP_CTRL(0));
	if (p != MAP_FAILED) {
		if (((struct npuprof_ring_ctrl *)p)->nr_slots != rb / NPUPROF_RECORD_SIZE)
			oops("private ctrl: %u slots", ((struct npuprof_ring_ctrl *)p)->nr_slots);
		munmap(p, page);
	} else {
		oops("private ctrl: %s", strerror(errno));
	}

	/* the data: records in it, then a copy to compare against */
	p = map(fd, rb, PROT_READ, MAP_SHARED, NPUPROF_MMAP_DATA(0));
	if (p == MAP_FAILED) {
		oops("data: %s", strerror(errno));
		close(fd);
		return;
	}
	/* new rings would pull the mapped ones away */
	c.ring_bytes = rb;
	atomic_fetch_add_explicit(&calls[K_PROF_IOCTL], 1, memory_order_relaxed);
	if (ioctl(fd, NPUPROF_IOC_CONFIGURE, &c) == 0 || errno != EBUSY)
		oops("CONFIGURE with the rings mapped: %s", strerror(errno));
	if (records) {
		xioctl(fd, NPUPROF_IOC_START, NULL, K_PROF_IOCTL);
		make_records(records);
		xioctl(fd, NPUPROF_IOC_STOP, NULL, K_PROF_IOCTL);
	}
	snap = malloc(rb);
	if ((sig = touch(p, rb, &sum)) != 0)
		oops("data read: signal %d", sig);
	memcpy(snap, p, rb);

	/* a child shares the mapping and drops and reads it itself */
	pid_t child = fork();

	if (child == 0) {
		int bad = madvise(p, rb, MADV_DONTNEED) != 0 || touch(p, rb, &sum) != 0 ||
			  memcmp(p, snap, rb) != 0;
		_exit(bad);
	}
	int wst;

	waitpid(child, &wst, 0);
	if (!WIFEXITED(wst) || WEXITSTATUS(wst))
		oops("forked reader of the rings failed (%#x)", wst);

	/* the file closed under the mapping; pages dropped; a piece unmapped:
	 * whatever is left reads back the same bytes, without SIGBUS */
	close(fd);
	size_t cut = rb > (size_t)page ? page * (1 + below(st, (unsigned)(rb / page - 1))) : 0;
	size_t lo = 0, hi = rb;

	if (cut && below(st, 2)) {
		munmap(p, cut); /* the head goes */
		lo = cut;
	} else if (cut) {
		munmap(p + cut, rb - cut); /* the tail goes */
		hi = cut;
	}
	if (madvise(p + lo, hi - lo, MADV_DONTNEED) != 0)
		oops("madvise: %s", strerror(errno));
	else if ((sig = touch(p + lo, hi - lo, &sum)) != 0)
		oops("read after MADV_DONTNEED: signal %d", sig);
	else if (memcmp(p + lo, snap + lo, hi - lo) != 0)
		oops("bytes %zu..%zu of the ring changed after MADV_DONTNEED", lo, hi);
	munmap(p + lo, hi - lo);
	free(snap);
}

static void mmap_phase(void)
{
	uint64_t st = 0x2545f4914f6cdd1dULL ^ (uint64_t)time(NULL);
	double until = now_s() + seconds;
	struct sigaction sa;
	int round = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	while (now_s() < until) {
		/* rings holding records (needs the trace switch, on as root) */
		mmap_round(&st, !unpriv && round % 8 == 0 ? 900 : 0);
		round++;
	}
	signal(SIGBUS, SIG_DFL);
	signal(SIGSEGV, SIG_DFL);
}

int main(int argc, char **argv)
{
	const char *what;
	unsigned long long total = 0;
	double t0 = now_s();
	int opt;

	while ((opt = getopt(argc, argv, "us:j:")) != -1) {
		switch (opt) {
		case 'u': unpriv = 1; break;
		case 's': seconds = atof(optarg); break;
		case 'j': nthreads = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	what = argv[optind];
	ndev = npusim_dev_count();
	if (ndev <= 0) {
		fprintf(stderr, "stress: no /dev/npusim<N>\n");
		return 1;
	}
	if (unpriv && (setgid(65534) || setuid(65534))) {
		perror("stress: cannot become nobody");
		return 1;
	}
	if (!strcmp(what, "ioctl") || !strcmp(what, "all"))
		run_workers(ioctl_worker);
	if (!strcmp(what, "mmap") || !strcmp(what, "all"))
		mmap_phase();
	if (!strcmp(what, "openclose") || !strcmp(what, "all"))
		run_workers(openclose_worker);
	for (int k = 0; k < K_NKINDS; k++) {
		total += calls[k];
		printf("stress %s%s: %llu %s calls\n", what, unpriv ? " (nobody)" : "",
		       (unsigned long long)calls[k], kind_name[k]);
	}
	printf("stress %s%s: %llu calls in %.1f s, %d failures\n", what, unpriv ? " (nobody)" : "",
	       total, now_s() - t0, (int)errors);
	return errors || !total ? 1 : 0;
usage:
	fprintf(stderr, "usage: stress [-u] [-s SECONDS] [-j THREADS] ioctl|mmap|openclose|all\n");
	return 2;
}
