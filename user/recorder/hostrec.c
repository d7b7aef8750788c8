/*
 * hostrec.c - the host recorder: per-thread lock-free rings, the background
 * writer, and the stream file (layout in npuprof/hostfmt.h).
 *
 * Every thread that records gets its own single-producer ring on its first
 * record (the only allocation, pre-faulted; afterwards reserve/commit touch nothing but the
 * thread's own ring). Positions are free-running 64-bit byte counters, so
 * head - tail is the fill level and no wrap state is needed. A record never
 * straddles the end of the ring: the producer fills the rest with a PAD
 * record and starts at 0, which keeps every record contiguous for both the
 * writer and the decoder.
 *
 * The writer thread sleeps on a futex word with the flush interval as
 * timeout; a producer that passes a quarter of its ring wakes it once. It copies each
 * ring's published bytes to the file as one block per contiguous run. All
 * writes to the file and all changes to the ring list happen under
 * g_io_lock; start/stop/flush are serialised by g_ctl_lock. Stop, flush and
 * process exit drain every ring, so a crash loses at most what was recorded
 * since the last drain.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "hostrec_internal.h"
#include "hostrec.h"

#define DEFAULT_BUFFER_SIZE (1u << 20)
#define MIN_BUFFER_SIZE (64u << 10)
#define MAX_BUFFER_SIZE (1u << 30)
#define DEFAULT_FLUSH_MS 100u
#define MAX_FLUSH_MS 60000u

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* struct tbuf (one thread's ring) is in hostrec_internal.h, with the
 * inline fast path of reserve/commit that the recorder's own stamp calls use. */
__thread struct tbuf *npuprof_t_buf NPUPROF_TLS_IE;
__thread uint32_t npuprof_t_tid NPUPROF_TLS_IE;
#define t_buf npuprof_t_buf
#define t_tid npuprof_t_tid

static pthread_mutex_t g_ctl_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_io_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pthread_key_t g_key;

_Atomic int npuprof_g_active;
#define g_active npuprof_g_active
static _Atomic uint32_t g_buf_size = DEFAULT_BUFFER_SIZE;
static _Atomic uint64_t g_lost_unregistered; /* lost before a ring existed */

/* under g_io_lock */
static struct tbuf *g_bufs;
static int g_fd = -1;
static uint64_t g_seq;
static int g_write_err;
static uint64_t g_blocks, g_bytes, g_lost_written, g_retired_committed;

/* under g_ctl_lock */
static char g_path[PATH_MAX];
static pthread_t g_writer;
static unsigned g_flush_ms = DEFAULT_FLUSH_MS;
static void (*g_start_hook)(void);
static int g_atexit_done;

static _Atomic int g_writer_stop;
static _Atomic uint32_t g_wake;

npuprof_clock_fn _Atomic npuprof_g_clock = clock_gettime;

/* The vDSO's clock_gettime (glibc lists the vDSO as a loaded object; its
 * symbol is __vdso_clock_gettime on x86-64, __kernel_clock_gettime on
 * AArch64). Kept only if it reads the clock as libc does. */
static void clock_setup(void)
{
	static const char *const names[] = { "__vdso_clock_gettime", "__kernel_clock_gettime" };
	void *h = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
	struct timespec a, b, c;

	if (!h)
		return;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		npuprof_clock_fn fn = (npuprof_clock_fn)dlsym(h, names[i]);

		if (fn && clock_gettime(CLOCK_MONOTONIC, &a) == 0 && fn(CLOCK_MONOTONIC, &b) == 0 &&
		    clock_gettime(CLOCK_MONOTONIC, &c) == 0 &&
		    (b.tv_sec > a.tv_sec || (b.tv_sec == a.tv_sec && b.tv_nsec >= a.tv_nsec)) &&
		    (c.tv_sec > b.tv_sec || (c.tv_sec == b.tv_sec && c.tv_nsec >= b.tv_nsec))) {
			atomic_store_explicit(&npuprof_g_clock, fn, memory_order_relaxed);
			break;
		}
	}
	/* h stays open: the vDSO is never unloaded and fn must stay valid */
}

/* ---- the stamps' TSC time base (hostfmt.h NPUPROF_HOSTFMT_F_TSC) ----------- */

uint16_t npuprof_g_stamp_flags;
static int g_clock_chosen; /* under g_ctl_lock */
static struct npuprof_hostfmt_clock g_clock_ref; /* tsc/monotonic_ns: the reference */

#if defined(__x86_64__)
#include <cpuid.h>

static inline uint64_t tsc_ordered(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi)::"memory");
	return (uint64_t)hi << 32 | lo;
}

/* Exact only with an invariant TSC (CPUID 0x80000007 EDX bit 8: Linux's
 * constant_tsc + nonstop_tsc) from which the kernel's CLOCK_MONOTONIC is
 * computed: the clocksource tsc, or kvm-clock (a KVM guest's pvclock: the
 * TSC scaled by the host's published multiplier, a linear function of the
 * TSC between the host's updates, which the CLOCK pairs of every writer
 * cycle follow). */
static int tsc_exact(void)
{
	unsigned a, b, c, d;
	char cs[32] = "";
	FILE *f;

	if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
		return 0;
	__cpuid(0x80000007u, a, b, c, d);
	if (!(d & (1u << 8)))
		return 0;
	f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
	if (!f)
		return 0;
	if (!fgets(cs, sizeof(cs), f))
		cs[0] = '\0';
	fclose(f);
	cs[strcspn(cs, "\n")] = '\0';
	return strcmp(cs, "tsc") == 0 || strcmp(cs, "kvm-clock") == 0;
}

/* One (TSC, CLOCK_MONOTONIC) pair: the tightest of a few monotonic-TSC-
 * monotonic brackets, the TSC taken as read halfway. */
static void clock_pair(uint64_t *tsc, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t a = hostrec_now(), t = tsc_ordered(), b = hostrec_now();

		if (b >= a && b - a < best) {
			best = b - a;
			*tsc = t;
			*ns = a + (b - a) / 2;
		}
	}
}
#else
static int tsc_exact(void)
{
	return 0;
}

static void clock_pair(uint64_t *tsc, uint64_t *ns)
{
	*tsc = 0;
	*ns = hostrec_now();
}
#endif

/* Under g_ctl_lock, at the first start: the stamps' time base for the
 * life of the process. NPUPROF_HOST_CLOCK=monotonic keeps clock_gettime,
 * =tsc (or unset, or auto) takes the TSC where it is exact. */
static int clock_choose(char *err, size_t errlen)
{
	const char *e = getenv("NPUPROF_HOST_CLOCK");
	int want;

	if (g_clock_chosen)
		return 0;
	if (!e || !*e || !strcmp(e, "auto") || !strcmp(e, "tsc")) {
		want = 1;
	} else if (!strcmp(e, "monotonic")) {
		want = 0;
	} else {
		snprintf(err, errlen, "NPUPROF_HOST_CLOCK=%s: expected monotonic, tsc or auto", e);
		return -EINVAL;
	}
	if (want && tsc_exact()) {
		struct timespec ms = { 0, 2 * (long)NPUPROF_HOSTFMT_CLOCK_MIN_SPAN_NS };
		uint64_t t0, n0;

		clock_pair(&g_clock_ref.ref_tsc, &g_clock_ref.ref_ns);
		/* Every later pair is at least the minimum span away from the
		 * reference, so each CLOCK record alone gives a rate. */
		do {
			nanosleep(&ms, NULL);
			clock_pair(&t0, &n0);
		} while (n0 - g_clock_ref.ref_ns < 2 * NPUPROF_HOSTFMT_CLOCK_MIN_SPAN_NS);
		__atomic_store_n(&npuprof_g_stamp_flags, NPUPROF_HOSTFMT_F_TSC, __ATOMIC_RELAXED);
	}
	g_clock_chosen = 1;
	return 0;
}

/* A CLOCK record for the running stream; under g_io_lock. The writer's
 * cycles (always 0) add one only after blocks were written since the last
 * one: stamps are then bracketed by pairs, and an idle collection does
 * not grow its file. */
static void write_block(uint32_t tid, const void *payload, uint32_t len, uint64_t lost);
/* A CLOCK_RAW record (MsprofSysCycleTime's CLOCK_MONOTONIC_RAW against
 * CLOCK_MONOTONIC, the raw read between two monotonic reads, the tightest
 * of five) for the running stream; under g_io_lock. Written with every CLOCK
 * pair, and also where the TSC is not the stamps' clock. */
static void clock_raw_emit_locked(void)
{
	struct npuprof_hostfmt_clock_raw c = { .h = { .size = sizeof(c),
						      .kind = NPUPROF_HOSTFMT_CLOCK_RAW } };
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		struct timespec a, r, b;
		uint64_t na, nb;

		clock_gettime(CLOCK_MONOTONIC, &a);
		clock_gettime(CLOCK_MONOTONIC_RAW, &r);
		clock_gettime(CLOCK_MONOTONIC, &b);
		na = (uint64_t)a.tv_sec * 1000000000u + (uint64_t)a.tv_nsec;
		nb = (uint64_t)b.tv_sec * 1000000000u + (uint64_t)b.tv_nsec;
		if (nb - na < best) {
			best = nb - na;
			c.monotonic_ns = na + (nb - na) / 2;
			c.raw_ns = (uint64_t)r.tv_sec * 1000000000u + (uint64_t)r.tv_nsec;
		}
	}
	write_block(0, &c, sizeof(c), 0);
}

static uint64_t g_blocks_at_pair; /* under g_io_lock */
static void clock_emit_locked(int always)
{
	struct npuprof_hostfmt_clock c = g_clock_ref;

	if (g_fd < 0 || (!always && g_blocks == g_blocks_at_pair))
		return;
	clock_raw_emit_locked();
	if (npuprof_g_stamp_flags) {
		c.h = (struct npuprof_hostfmt_header){ .size = sizeof(c),
						       .kind = NPUPROF_HOSTFMT_CLOCK };
		clock_pair(&c.tsc, &c.monotonic_ns);
		write_block(0, &c, sizeof(c), 0);
	}
	g_blocks_at_pair = g_blocks;
}

uint64_t npuprof_hostrec_now(void)
{
	return hostrec_now();
}

uint32_t npuprof_hostrec_tid(void)
{
	if (unlikely(!t_tid))
		t_tid = (uint32_t)syscall(SYS_gettid);
	return t_tid;
}

int npuprof_hostrec_active(void)
{
	return atomic_load_explicit(&g_active, memory_order_relaxed);
}

static void wake_writer(void)
{
	atomic_fetch_add_explicit(&g_wake, 1, memory_order_release);
	syscall(SYS_futex, &g_wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Thread exit: the ring stays until the writer has drained it. */
static void tbuf_thread_exit(void *p)
{
	struct tbuf *tb = p;

	t_buf = NULL;
	atomic_store_explicit(&tb->exited, 1, memory_order_release);
}

static void hostrec_atfork_prepare(void);
static void hostrec_atfork_parent(void);
static void hostrec_atfork_child(void);

static void once_init(void)
{
	clock_setup();
	pthread_key_create(&g_key, tbuf_thread_exit);
	pthread_atfork(hostrec_atfork_prepare, hostrec_atfork_parent, hostrec_atfork_child);
}

/* The thread's first record: the one allocation of the hot path. */
static struct tbuf *tbuf_register(void)
{
	struct tbuf *tb;
	uint32_t cap = atomic_load_explicit(&g_buf_size, memory_order_relaxed);

	pthread_once(&g_once, once_init);
	if (posix_memalign((void **)&tb, 64, sizeof(*tb)))
		return NULL;
	memset(tb, 0, sizeof(*tb));
	/* Pre-faulted, so that the hot path never takes a page fault. */
	tb->data = mmap(NULL, cap, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (tb->data == MAP_FAILED) {
		free(tb);
		return NULL;
	}
	tb->cap = cap;
	tb->tid = npuprof_hostrec_tid();
	pthread_mutex_lock(&g_io_lock);
	tb->next = g_bufs;
	g_bufs = tb;
	pthread_mutex_unlock(&g_io_lock);
	pthread_setspecific(g_key, tb);
	t_buf = tb;
	return tb;
}

/* A process forked during a collection records nothing (its parent's
 * stream is not its to write, and it has no writer thread): the first
 * record it tries to make says so on stderr, once. A child that execs
 * says nothing (under `npuprof record` the program it runs records into
 * a stream of its own). */
static pid_t g_forked_from; /* the parent, in a child forked mid-collection */
static _Atomic int g_forked_said;

static void forked_note(void)
{
	char msg[256];
	int n;

	if (atomic_exchange(&g_forked_said, 1))
		return;
	n = snprintf(
		msg, sizeof(msg),
		"npuprof: warning: process %d, forked from %d during its collection, is not recorded (a forked process records nothing until it execs a program or starts a collection of its own)\n",
		(int)getpid(), (int)g_forked_from);
	if (n > 0 && write(2, msg, (size_t)n) < 0)
		return;
}

void *npuprof_hostrec_reserve(uint16_t kind, uint32_t size)
{
	struct tbuf *tb;
	struct npuprof_hostfmt_header *h;
	uint64_t pos, need;
	uint32_t off, room;

	if (!atomic_load_explicit(&g_active, memory_order_relaxed)) {
		if (unlikely(g_forked_from))
			forked_note();
		return NULL;
	}
	tb = t_buf;
	if (unlikely(!tb)) {
		tb = tbuf_register();
		if (!tb) {
			atomic_fetch_add_explicit(&g_lost_unregistered, 1, memory_order_relaxed);
			return NULL;
		}
	}
	if (unlikely(size < sizeof(*h) || (size & (NPUPROF_HOSTFMT_ALIGN - 1)) ||
		     size > tb->cap / 4)) {
		atomic_fetch_add_explicit(&tb->lost, 1, memory_order_relaxed);
		return NULL;
	}
	pos = atomic_load_explicit(&tb->head, memory_order_relaxed);
	off = (uint32_t)pos & (tb->cap - 1);
	room = tb->cap - off;
	need = size <= room ? size : (uint64_t)room + size;
	if (unlikely(pos + need - tb->cached_tail > tb->cap)) {
		tb->cached_tail = atomic_load_explicit(&tb->tail, memory_order_acquire);
		if (pos + need - tb->cached_tail > tb->cap) {
			atomic_fetch_add_explicit(&tb->lost, 1, memory_order_relaxed);
			if (!atomic_exchange_explicit(&tb->kicked, 1, memory_order_relaxed))
				wake_writer();
			return NULL;
		}
	}
	if (size > room) {
		/* Fill to the end of the ring; published together with the record. */
		h = (struct npuprof_hostfmt_header *)(tb->data + off);
		h->size = room;
		h->kind = NPUPROF_HOSTFMT_PAD;
		h->reserved = 0;
		pos += room;
		off = 0;
	}
	tb->pending = pos;
	h = (struct npuprof_hostfmt_header *)(tb->data + off);
	h->size = size;
	h->kind = kind;
	h->reserved = 0;
	return h;
}

void npuprof_hostrec_commit_check(struct tbuf *tb, uint64_t end)
{
	/* Refresh before deciding: a stale tail would wake the writer for every
     * record once the ring has been a quarter full. A quarter (not half)
     * leaves the writer time to drain before the ring fills, and keeps the
     * part being written warm in the cache. */
	tb->cached_tail = atomic_load_explicit(&tb->tail, memory_order_acquire);
	if (end - tb->cached_tail > tb->cap / 4 &&
	    !atomic_exchange_explicit(&tb->kicked, 1, memory_order_relaxed))
		wake_writer();
}

void npuprof_hostrec_commit(void *rec)
{
	struct tbuf *tb = t_buf;
	uint64_t end = tb->pending + ((struct npuprof_hostfmt_header *)rec)->size;

	atomic_store_explicit(&tb->head, end, memory_order_release);
	__atomic_store_n(&tb->committed, tb->committed + 1, __ATOMIC_RELAXED);
	if (unlikely(end - tb->cached_tail > tb->cap / 4))
		npuprof_hostrec_commit_check(tb, end);
}

/* Records are written in blocks of at most HOST_BLOCK_UNIT bytes, cut at
 * record boundaries (a larger record is a block of its own): a damaged
 * byte costs the reader the records of one small block, not of a whole
 * ring's run. HOST_BLOCKS_PER_WRITE of them go out in one writev. */
#define HOST_BLOCK_UNIT 2048u
#define HOST_BLOCKS_PER_WRITE 32

/* The end of the block of payload that starts at `from`. */
static uint32_t block_end(const uint8_t *payload, uint32_t len, uint32_t from)
{
	uint32_t end = from;

	while (end < len) {
		uint32_t rsz = ((const struct npuprof_hostfmt_header *)(payload + end))->size;

		if (rsz < sizeof(struct npuprof_hostfmt_header) || rsz > len - end)
			return len; /* not a record: the rest as it is */
		if (end > from && end - from + rsz > HOST_BLOCK_UNIT)
			break;
		end += rsz;
	}
	return end;
}

/* Writes the blocks of one run of records (len 0: one empty block, to
 * carry `lost`); under g_io_lock. Without an open stream (records that
 * raced with stop) the bytes are dropped. */
static void write_block(uint32_t tid, const void *payload, uint32_t len, uint64_t lost)
{
	struct npuprof_hostfmt_block_header bh[HOST_BLOCKS_PER_WRITE];
	struct iovec iov[2 * HOST_BLOCKS_PER_WRITE];
	const uint8_t *p = payload;
	uint32_t from = 0;
	int first = 1;

	if (g_fd < 0)
		return;
	while (first || from < len) {
		size_t total = 0, done = 0;
		int k = 0, n;

		while (k < HOST_BLOCKS_PER_WRITE && (first || from < len)) {
			uint32_t end = block_end(p, len, from);

			bh[k].magic = NPUPROF_HOSTFMT_BLOCK_MAGIC;
			bh[k].size = end - from;
			bh[k].tid = tid;
			bh[k].seq = g_seq++;
			bh[k].lost = first ? lost : 0;
			bh[k].crc = npuprof_hostfmt_block_crc(&bh[k], p + from);
			iov[2 * k].iov_base = &bh[k];
			iov[2 * k].iov_len = sizeof(bh[k]);
			iov[2 * k + 1].iov_base = (void *)(p + from);
			iov[2 * k + 1].iov_len = end - from;
			total += sizeof(bh[k]) + (end - from);
			from = end;
			first = 0;
			k++;
		}
		n = 2 * k;
		while (done < total) {
			struct iovec *v = iov;
			int cnt = n;
			size_t skip = done;
			ssize_t w;

			/* Resume a short write where it stopped. */
			while (skip >= v->iov_len) {
				skip -= v->iov_len;
				v++;
				cnt--;
			}
			v->iov_base = (char *)v->iov_base + skip;
			v->iov_len -= skip;
			w = writev(g_fd, v, cnt);
			v->iov_base = (char *)v->iov_base - skip;
			v->iov_len += skip;
			if (w < 0) {
				if (errno == EINTR)
					continue;
				if (!g_write_err)
					g_write_err = -errno;
				return;
			}
			done += (size_t)w;
		}
		g_blocks += (uint64_t)k;
		g_bytes += total;
	}
	g_lost_written += lost;
}

/* Under g_io_lock. */
static void drain_one(struct tbuf *tb)
{
	uint64_t h = atomic_load_explicit(&tb->head, memory_order_acquire);
	uint64_t t = atomic_load_explicit(&tb->tail, memory_order_relaxed);
	uint64_t lost = atomic_exchange_explicit(&tb->lost, 0, memory_order_relaxed);

	if (lost && h == t)
		write_block(tb->tid, NULL, 0, lost);
	while (t < h) {
		uint32_t off = (uint32_t)t & (tb->cap - 1);
		uint64_t n = h - t;

		if (n > tb->cap - off)
			n = tb->cap - off;
		write_block(tb->tid, tb->data + off, (uint32_t)n, lost);
		lost = 0;
		t += n;
		/* Give the space back per run so a busy producer can continue. */
		atomic_store_explicit(&tb->tail, t, memory_order_release);
	}
	atomic_store_explicit(&tb->kicked, 0, memory_order_relaxed);
}

/* Under g_io_lock. */
static void drain_all(void)
{
	struct tbuf **pp = &g_bufs;

	while (*pp) {
		struct tbuf *tb = *pp;
		int exited = atomic_load_explicit(&tb->exited, memory_order_acquire);

		drain_one(tb);
		if (exited && atomic_load_explicit(&tb->head, memory_order_relaxed) ==
				      atomic_load_explicit(&tb->tail, memory_order_relaxed)) {
			*pp = tb->next;
			g_retired_committed += __atomic_load_n(&tb->committed, __ATOMIC_RELAXED);
			munmap(tb->data, tb->cap);
			free(tb);
			continue;
		}
		pp = &tb->next;
	}
}

/* Under g_io_lock: forget what is in the rings (records of no collection). */
static void discard_all(void)
{
	for (struct tbuf *tb = g_bufs; tb; tb = tb->next) {
		atomic_store_explicit(&tb->tail,
				      atomic_load_explicit(&tb->head, memory_order_acquire),
				      memory_order_release);
		atomic_store_explicit(&tb->lost, 0, memory_order_relaxed);
	}
}

static void *writer_main(void *arg)
{
	unsigned ms = (unsigned)(uintptr_t)arg;
	struct timespec to = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (!atomic_load_explicit(&g_writer_stop, memory_order_acquire)) {
		/* Sample the word before draining so a kick during the drain is not
         * slept through. */
		uint32_t seen = atomic_load_explicit(&g_wake, memory_order_acquire);

		pthread_mutex_lock(&g_io_lock);
		drain_all();
		clock_emit_locked(0);
		pthread_mutex_unlock(&g_io_lock);
		if (atomic_load_explicit(&g_writer_stop, memory_order_acquire))
			break;
		syscall(SYS_futex, &g_wake, FUTEX_WAIT_PRIVATE, seen, &to, NULL, 0);
	}
	return NULL;
}

static size_t env_size(const char *name, size_t def, size_t lo, size_t hi)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v < lo || v > hi)
		return def;
	return (size_t)v;
}

static uint32_t round_pow2(size_t v)
{
	uint32_t p = MIN_BUFFER_SIZE;

	while (p < v && p < MAX_BUFFER_SIZE)
		p <<= 1;
	return p;
}

static void hostrec_exit(void)
{
	npuprof_hostrec_stop();
}

/* Opens a stream file that does not exist yet: npuprof.host.<pid>.raw, or
 * with a .<n> suffix when this process already wrote one into `dir`. */
static int open_stream(const char *dir, char *err, size_t errlen)
{
	char data_dir[PATH_MAX];
	int r, fd = -1;
	pid_t pid = getpid();

	if ((size_t)snprintf(data_dir, sizeof(data_dir), "%s/host/data", dir) >= sizeof(data_dir)) {
		snprintf(err, errlen, "%s: path too long", dir);
		return -ENAMETOOLONG;
	}
	r = npuprof_mkdirs(data_dir, 0750);
	if (r) {
		snprintf(err, errlen, "cannot create %s: %s", data_dir, strerror(-r));
		return r;
	}
	for (unsigned n = 0; n < 1000; n++) {
		if (n == 0)
			r = snprintf(g_path, sizeof(g_path),
				     "%s/" NPUPROF_HOSTFMT_FILE_PREFIX
				     "%d" NPUPROF_HOSTFMT_FILE_SUFFIX,
				     data_dir, (int)pid);
		else
			r = snprintf(g_path, sizeof(g_path),
				     "%s/" NPUPROF_HOSTFMT_FILE_PREFIX
				     "%d.%u" NPUPROF_HOSTFMT_FILE_SUFFIX,
				     data_dir, (int)pid, n);
		if ((size_t)r >= sizeof(g_path)) {
			snprintf(err, errlen, "%s: path too long", data_dir);
			return -ENAMETOOLONG;
		}
		fd = open(g_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_APPEND, 0640);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot create %s: %s", g_path, strerror(errno));
		g_path[0] = '\0';
		return r;
	}
	return fd;
}

/* The process's ranks (rank_table.c), written at a collection's start. */
static void emit_ranks(void)
{
	struct npuprof_hostfmt_rank recs[NPUPROF_RANK_RECORDS_MAX];
	unsigned n = npuprof_rank_records(recs);

	if (n)
		npuprof_hostrec_emit(recs, n * sizeof(recs[0]));
}

int npuprof_hostrec_start(const struct npuprof_hostrec_config *cfg, char *err, size_t errlen)
{
	struct npuprof_hostfmt_file_header fh;
	struct timespec rt, mono;
	size_t bsize;
	int fd, r;
	char dummy[8];

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	if (!cfg || !cfg->dir || !*cfg->dir || cfg->dev_count > 1024 ||
	    (cfg->dev_count && !cfg->dev_ids)) {
		snprintf(err, errlen, "invalid recorder configuration");
		return -EINVAL;
	}
	pthread_once(&g_once, once_init);
	pthread_mutex_lock(&g_ctl_lock);
	if (atomic_load(&g_active)) {
		pthread_mutex_unlock(&g_ctl_lock);
		snprintf(err, errlen, "a collection is already running (%s)", g_path);
		return -EBUSY;
	}
	g_forked_from = 0; /* a collection of its own: recorded */
	bsize = cfg->buffer_size ? cfg->buffer_size :
				   env_size("NPUPROF_BUFFER_SIZE", DEFAULT_BUFFER_SIZE,
					    MIN_BUFFER_SIZE, MAX_BUFFER_SIZE);
	/* Rings that already exist keep their size; new threads get this one. */
	atomic_store(&g_buf_size, round_pow2(bsize));
	g_flush_ms = cfg->flush_interval_ms ? cfg->flush_interval_ms :
					      (unsigned)env_size("NPUPROF_FLUSH_INTERVAL_MS",
								 DEFAULT_FLUSH_MS, 1, MAX_FLUSH_MS);
	if (g_flush_ms > MAX_FLUSH_MS)
		g_flush_ms = MAX_FLUSH_MS;
	r = clock_choose(err, errlen);
	if (r) {
		pthread_mutex_unlock(&g_ctl_lock);
		return r;
	}

	fd = open_stream(cfg->dir, err, errlen);
	if (fd < 0) {
		pthread_mutex_unlock(&g_ctl_lock);
		return fd;
	}

	memset(&fh, 0, sizeof(fh));
	memcpy(fh.magic, NPUPROF_HOSTFMT_MAGIC, sizeof(NPUPROF_HOSTFMT_MAGIC));
	fh.version = NPUPROF_HOSTFMT_VERSION;
	fh.header_size = sizeof(fh);
	fh.byte_order = NPUPROF_HOSTFMT_BYTE_ORDER;
	fh.pid = (uint32_t)getpid();
	fh.block_align = NPUPROF_HOSTFMT_ALIGN;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	fh.realtime_ns = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
	fh.monotonic_ns = (uint64_t)mono.tv_sec * 1000000000u + (uint64_t)mono.tv_nsec;
	fh.switches = cfg->switches;
	fh.flags = npuprof_g_stamp_flags ? NPUPROF_HOSTFMT_F_TSC : 0;
	gethostname(fh.hostname, sizeof(fh.hostname) - 1);
	r = fs_write_all(fd, &fh, sizeof(fh));
	if (r) {
		snprintf(err, errlen, "cannot write %s: %s", g_path, strerror(-r));
		close(fd);
		pthread_mutex_unlock(&g_ctl_lock);
		return r;
	}

	pthread_mutex_lock(&g_io_lock);
	discard_all();
	g_fd = fd;
	g_seq = 0;
	g_write_err = 0;
	pthread_mutex_unlock(&g_io_lock);

	{
		uint32_t sz = npuprof_hostfmt_size(sizeof(struct npuprof_hostfmt_session),
						   cfg->dev_count * sizeof(uint32_t));
		struct npuprof_hostfmt_session *s = calloc(1, sz);

		if (s) {
			s->h.size = sz;
			s->h.kind = NPUPROF_HOSTFMT_SESSION;
			s->switches = cfg->switches;
			s->aicore_metrics = cfg->aicore_metrics;
			s->dev_count = cfg->dev_count;
			if (cfg->dev_count)
				memcpy(s->dev_ids, cfg->dev_ids, cfg->dev_count * sizeof(uint32_t));
			npuprof_hostrec_emit(s, sz);
			free(s);
		}
	}
	pthread_mutex_lock(&g_io_lock);
	clock_emit_locked(1); /* the first pair, before any stamp */
	pthread_mutex_unlock(&g_io_lock);
	emit_ranks();
	if (g_start_hook)
		g_start_hook();

	atomic_store(&g_writer_stop, 0);
	atomic_store_explicit(&g_active, 1, memory_order_release);
	r = pthread_create(&g_writer, NULL, writer_main, (void *)(uintptr_t)g_flush_ms);
	if (r) {
		atomic_store(&g_active, 0);
		pthread_mutex_lock(&g_io_lock);
		close(g_fd);
		g_fd = -1;
		pthread_mutex_unlock(&g_io_lock);
		snprintf(err, errlen, "cannot start the writer thread: %s", strerror(r));
		pthread_mutex_unlock(&g_ctl_lock);
		return -r;
	}
	if (!g_atexit_done) {
		atexit(hostrec_exit);
		g_atexit_done = 1;
	}
	pthread_mutex_unlock(&g_ctl_lock);
	return 0;
}

int npuprof_hostrec_stop(void)
{
	int r;

	pthread_mutex_lock(&g_ctl_lock);
	if (!atomic_load(&g_active)) {
		pthread_mutex_unlock(&g_ctl_lock);
		return 0;
	}
	atomic_store_explicit(&g_active, 0, memory_order_release);
	atomic_store_explicit(&g_writer_stop, 1, memory_order_release);
	wake_writer();
	pthread_join(g_writer, NULL);
	pthread_mutex_lock(&g_io_lock);
	drain_all();
	clock_emit_locked(1);
	{
		struct npuprof_hostfmt_end end = { .h = { .size = sizeof(end),
							  .kind = NPUPROF_HOSTFMT_END },
						   .end_ns = npuprof_hostrec_now() };
		uint64_t committed = g_retired_committed, pending = 0;

		for (struct tbuf *tb = g_bufs; tb; tb = tb->next) {
			committed += __atomic_load_n(&tb->committed, __ATOMIC_RELAXED);
			pending += atomic_load_explicit(&tb->lost, memory_order_relaxed);
		}
		end.records = committed;
		end.lost = g_lost_written + pending + atomic_load(&g_lost_unregistered);
		write_block(0, &end, sizeof(end), 0);
	}
	if (close(g_fd) && !g_write_err)
		g_write_err = -errno;
	g_fd = -1;
	r = g_write_err;
	pthread_mutex_unlock(&g_io_lock);
	pthread_mutex_unlock(&g_ctl_lock);
	return r;
}

int npuprof_hostrec_flush(void)
{
	int r;

	pthread_mutex_lock(&g_io_lock);
	drain_all();
	r = g_write_err;
	pthread_mutex_unlock(&g_io_lock);
	return r;
}

int npuprof_hostrec_emit(const void *records, size_t len)
{
	int r = 0;

	if (len == 0 || len > UINT32_MAX || (len & (NPUPROF_HOSTFMT_ALIGN - 1)))
		return -EINVAL;
	pthread_mutex_lock(&g_io_lock);
	if (g_fd < 0) {
		r = -ENOTCONN;
	} else {
		write_block(0, records, (uint32_t)len, 0);
		r = g_write_err;
	}
	pthread_mutex_unlock(&g_io_lock);
	return r;
}

void npuprof_hostrec_set_rank(uint32_t device_id, int32_t rank, uint32_t rank_size,
			      uint64_t group_name_id)
{
	struct npuprof_hostfmt_rank r;

	if (npuprof_rank_keep(device_id, rank, rank_size, group_name_id, &r))
		npuprof_hostrec_emit(&r, sizeof(r)); /* -ENOTCONN: written at the next start */
}

void npuprof_hostrec_set_start_hook(void (*fn)(void))
{
	pthread_mutex_lock(&g_ctl_lock);
	g_start_hook = fn;
	pthread_mutex_unlock(&g_ctl_lock);
}

const char *npuprof_hostrec_path(void)
{
	return g_path;
}

void npuprof_hostrec_get_stats(struct npuprof_hostrec_stats *st)
{
	uint64_t committed, lost_pending = 0;

	pthread_mutex_lock(&g_io_lock);
	committed = g_retired_committed;
	for (struct tbuf *tb = g_bufs; tb; tb = tb->next) {
		committed += __atomic_load_n(&tb->committed, __ATOMIC_RELAXED);
		lost_pending += atomic_load_explicit(&tb->lost, memory_order_relaxed);
	}
	st->records = committed;
	st->lost = g_lost_written + lost_pending + atomic_load(&g_lost_unregistered);
	st->blocks = g_blocks;
	st->bytes = g_bytes;
	pthread_mutex_unlock(&g_io_lock);
}

/* fork(): hold both locks across it so the child does not inherit them
 * taken by a thread that no longer exists. The child has no writer thread
 * and must not write into the parent's stream, so its collection ends
 * (and its first record attempt says so: forked_note); the rings of the
 * other (vanished) threads are freed by the next drain. */
static void hostrec_atfork_prepare(void)
{
	pthread_mutex_lock(&g_ctl_lock);
	pthread_mutex_lock(&g_io_lock);
}

static void hostrec_atfork_parent(void)
{
	pthread_mutex_unlock(&g_io_lock);
	pthread_mutex_unlock(&g_ctl_lock);
}

static void hostrec_atfork_child(void)
{
	if (atomic_load(&g_active))
		g_forked_from = getppid();
	atomic_store(&g_forked_said, 0);
	atomic_store(&g_active, 0);
	if (g_fd >= 0)
		close(g_fd);
	g_fd = -1;
	g_path[0] = '\0';
	t_tid = 0;
	for (struct tbuf *tb = g_bufs; tb; tb = tb->next) {
		atomic_store(&tb->tail, atomic_load(&tb->head));
		atomic_store(&tb->lost, 0);
		if (tb != t_buf)
			atomic_store(&tb->exited, 1);
	}
	if (t_buf)
		t_buf->tid = npuprof_hostrec_tid();
	pthread_mutex_unlock(&g_io_lock);
	pthread_mutex_unlock(&g_ctl_lock);
}
