/*
 * npusim_dev.c — userspace access to the simulated NPU driver: one function
 * per ioctl of include/uapi/npusim.h, returning 0 or -errno, and the user
 * side of the UIO send modes (the soft queues of the streams this process
 * created, written as libascend_hal's trs_sq_task_send_uio writes them).
 */
#include "npusim_dev.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int npusim_ioctl(int fd, unsigned long cmd, void *arg)
{
	int r;

	do
		r = ioctl(fd, cmd, arg);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

int npusim_dev_open(unsigned int devid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/npusim%u", devid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* ---- the mapped soft queues (UIO_T, UIO_D) ---------------------------------- */

struct uio_map {
	struct uio_map *next;
	int fd;
	uint32_t sid;
	uint32_t mode;
	uint32_t depth;
	uint32_t tail; /* ours; ctrl->tail is its published copy */
	void *base;
	size_t len;
	volatile struct npusim_uio_ctrl *ctrl;
	struct npusim_sqe *que;
	struct npusim_task_model *model; /* the model array, slot by slot */
	pthread_mutex_t lock; /* one sender at a time, as CFG_FEATURE_SQ_SEND_LOCK */
};

#define UIO_BUCKETS 256
static struct uio_map *g_uio[UIO_BUCKETS];
static pthread_mutex_t g_uio_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned uio_bucket(int fd, uint32_t sid)
{
	return ((unsigned)fd * 31u + sid) % UIO_BUCKETS;
}

/* Unlinks and returns (fd, sid)'s mapping; g_uio_lock held. */
static struct uio_map *uio_unlink(int fd, uint32_t sid)
{
	struct uio_map **pp = &g_uio[uio_bucket(fd, sid)], *m;

	for (; (m = *pp); pp = &m->next)
		if (m->fd == fd && m->sid == sid) {
			*pp = m->next;
			return m;
		}
	return NULL;
}

static void uio_free(struct uio_map *m)
{
	if (!m)
		return;
	munmap(m->base, m->len);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

static struct uio_map *uio_find(int fd, uint32_t sid)
{
	struct uio_map *m;

	pthread_mutex_lock(&g_uio_lock);
	for (m = g_uio[uio_bucket(fd, sid)]; m; m = m->next)
		if (m->fd == fd && m->sid == sid)
			break;
	pthread_mutex_unlock(&g_uio_lock);
	return m;
}

/* Map stream sid's soft queue if its device gave it one. Any failure leaves
 * the stream to the ioctl (KIO), as the driver falls back when it cannot
 * map an SQ. */
static void uio_attach(int fd, uint32_t sid)
{
	struct npusim_sq_uio_info a;
	struct uio_map *m, *old;
	void *p;

	memset(&a, 0, sizeof(a));
	a.stream_id = sid;
	if (npusim_ioctl(fd, NPUSIM_IOC_SQ_UIO_INFO, &a) < 0 || a.mode == NPUSIM_SEND_KIO ||
	    a.depth < 2 || (a.depth & (a.depth - 1)) || a.sqe_size != sizeof(struct npusim_sqe) ||
	    a.queue_offset < sizeof(struct npusim_uio_ctrl) ||
	    a.queue_offset + (uint64_t)a.depth * a.sqe_size > a.model_offset ||
	    a.model_offset + (uint64_t)a.depth * sizeof(struct npusim_task_model) > a.map_size)
		return;
	p = mmap(NULL, a.map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)a.map_offset);
	if (p == MAP_FAILED)
		return;
	m = calloc(1, sizeof(*m));
	if (!m) {
		munmap(p, a.map_size);
		return;
	}
	m->fd = fd;
	m->sid = sid;
	m->mode = a.mode;
	m->depth = a.depth;
	m->base = p;
	m->len = a.map_size;
	m->ctrl = p;
	m->que = (struct npusim_sqe *)((char *)p + a.queue_offset);
	m->model = (struct npusim_task_model *)((char *)p + a.model_offset);
	m->tail = m->ctrl->tail;
	pthread_mutex_init(&m->lock, NULL);
	pthread_mutex_lock(&g_uio_lock);
	old = uio_unlink(fd, sid); /* a stream of an fd closed without npusim_dev_close */
	m->next = g_uio[uio_bucket(fd, sid)];
	g_uio[uio_bucket(fd, sid)] = m;
	pthread_mutex_unlock(&g_uio_lock);
	uio_free(old);
}

static void uio_detach(int fd, uint32_t sid)
{
	struct uio_map *m;

	pthread_mutex_lock(&g_uio_lock);
	m = uio_unlink(fd, sid);
	pthread_mutex_unlock(&g_uio_lock);
	uio_free(m);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int uio_trigger(struct uio_map *m)
{
	struct npusim_sq_trigger t = { .stream_id = m->sid };

	return npusim_ioctl(m->fd, NPUSIM_IOC_SQ_TRIGGER, &t);
}

/*
 * n SQEs into m's soft queue, in pieces of at most depth - 1 (the queue's
 * room), each waited for as NPUSIM_IOC_SQ_SEND waits for SQ room. Then the
 * tail, and the trigger when the queue holds exactly what was just written
 * (the forwarder stopped; otherwise it is still going and will see the new
 * tail, or the poller will), as trs_sq_task_send_set_db does.
 */
static int uio_send(struct uio_map *m, const struct npusim_sqe *sqes,
		    const struct npusim_task_model *models, uint32_t n, int timeout_ms,
		    uint32_t *pos)
{
	const uint32_t mask = m->depth - 1;
	uint64_t deadline = timeout_ms > 0 ? mono_ns() + (uint64_t)timeout_ms * 1000000ULL : 0;
	uint32_t done = 0, first;
	int r = 0;

	if (!n || n > NPUSIM_SEND_MAX)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	first = m->tail;
	while (done < n) {
		uint32_t want = n - done < mask ? n - done : mask, head, room, k;

		if (m->ctrl->state != NPUSIM_UIO_LIVE) {
			r = -EINVAL; /* the stream was destroyed */
			break;
		}
		if (m->ctrl->error) {
			r = m->ctrl->error; /* stopped at a malformed SQE */
			break;
		}
		head = __atomic_load_n(&m->ctrl->head, __ATOMIC_ACQUIRE);
		room = mask - ((m->tail - head) & mask);
		if (room < want) {
			struct timespec ts = { 0, 50000 };

			if (!timeout_ms) {
				r = -EBUSY;
				break;
			}
			if (deadline && mono_ns() >= deadline) {
				r = -ETIMEDOUT;
				break;
			}
			nanosleep(&ts, NULL);
			continue;
		}
		for (k = 0; k < want; k++) {
			m->que[(m->tail + k) & mask] = sqes[done + k];
			if (models)
				m->model[(m->tail + k) & mask] = models[done + k];
			else
				memset(&m->model[(m->tail + k) & mask], 0, sizeof(*m->model));
		}
		m->tail = (m->tail + want) & mask;
		/* the SQEs before the tail; the tail before the head is read
		 * (the forwarder stores its head, then reads the tail) */
		__atomic_store_n(&m->ctrl->tail, m->tail, __ATOMIC_RELEASE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		head = __atomic_load_n(&m->ctrl->head, __ATOMIC_ACQUIRE);
		done += want;
		if (((head + want) & mask) == m->tail && (r = uio_trigger(m)) < 0)
			break;
	}
	pthread_mutex_unlock(&m->lock);
	if (!r && pos)
		*pos = first;
	return r;
}

int npusim_dev_close(int fd)
{
	struct uio_map *gone = NULL;

	pthread_mutex_lock(&g_uio_lock);
	for (unsigned b = 0; b < UIO_BUCKETS; b++) {
		struct uio_map **pp = &g_uio[b], *m;

		while ((m = *pp)) {
			if (m->fd == fd) {
				*pp = m->next;
				m->next = gone;
				gone = m;
			} else {
				pp = &m->next;
			}
		}
	}
	pthread_mutex_unlock(&g_uio_lock);
	while (gone) {
		struct uio_map *next = gone->next;

		uio_free(gone);
		gone = next;
	}
	return close(fd) < 0 ? -errno : 0;
}

uint32_t npusim_sq_mode(int fd, uint32_t stream_id)
{
	struct uio_map *m = uio_find(fd, stream_id);

	return m ? m->mode : NPUSIM_SEND_KIO;
}

int npusim_dev_count(void)
{
	int n = 0;

	while (n < NPUSIM_MAX_DEVICES) {
		char path[64];

		snprintf(path, sizeof(path), "/dev/npusim%d", n);
		if (access(path, F_OK) != 0)
			break;
		n++;
	}
	return n;
}

int npusim_dev_info(int fd, struct npusim_dev_info *info)
{
	return npusim_ioctl(fd, NPUSIM_IOC_DEV_INFO, info);
}

int npusim_stream_create(int fd, uint32_t *stream_id)
{
	struct npusim_stream_create a;
	int r;

	memset(&a, 0, sizeof(a));
	r = npusim_ioctl(fd, NPUSIM_IOC_STREAM_CREATE, &a);
	if (r == 0) {
		*stream_id = a.stream_id;
		uio_attach(fd, a.stream_id);
	}
	return r;
}

int npusim_stream_destroy(int fd, uint32_t stream_id, uint32_t flags, int timeout_ms)
{
	struct npusim_stream_destroy a = {
		.stream_id = stream_id,
		.flags = flags,
		.timeout_ms = timeout_ms,
	};
	int r = npusim_ioctl(fd, NPUSIM_IOC_STREAM_DESTROY, &a);

	if (r == 0 || r == -EINVAL)
		uio_detach(fd, stream_id); /* gone, or never ours */
	return r;
}

int npusim_stream_sync(int fd, uint32_t stream_id, int timeout_ms)
{
	struct npusim_stream_sync a = { .stream_id = stream_id, .timeout_ms = timeout_ms };

	return npusim_ioctl(fd, NPUSIM_IOC_STREAM_SYNC, &a);
}

int npusim_stream_status(int fd, uint32_t stream_id, struct npusim_stream_status *st)
{
	memset(st, 0, sizeof(*st));
	st->stream_id = stream_id;
	return npusim_ioctl(fd, NPUSIM_IOC_STREAM_STATUS, st);
}

int npusim_sq_send(int fd, uint32_t stream_id, const struct npusim_sqe *sqes, uint32_t n,
		   int timeout_ms, uint32_t *pos)
{
	return npusim_sq_send_model(fd, stream_id, sqes, NULL, n, timeout_ms, pos);
}

int npusim_sq_send_model(int fd, uint32_t stream_id, const struct npusim_sqe *sqes,
			 const struct npusim_task_model *models, uint32_t n, int timeout_ms,
			 uint32_t *pos)
{
	struct npusim_sq_send a;
	struct uio_map *m = uio_find(fd, stream_id);
	int r;

	if (m && m->ctrl->state == NPUSIM_UIO_LIVE)
		return uio_send(m, sqes, models, n, timeout_ms, pos);
	memset(&a, 0, sizeof(a));
	a.stream_id = stream_id;
	a.sqe_num = n;
	a.sqe_addr = (uint64_t)(uintptr_t)sqes;
	a.model_addr = (uint64_t)(uintptr_t)models;
	a.timeout_ms = timeout_ms;
	r = npusim_ioctl(fd, NPUSIM_IOC_SQ_SEND, &a);
	if (r == 0 && pos)
		*pos = a.pos;
	return r;
}

int npusim_cq_recv(int fd, uint32_t stream_id, struct npusim_cqe *cqes, uint32_t cap,
		   int timeout_ms)
{
	struct npusim_cq_recv a;
	int r;

	memset(&a, 0, sizeof(a));
	a.stream_id = stream_id;
	a.cqe_num = cap;
	a.cqe_addr = (uint64_t)(uintptr_t)cqes;
	a.timeout_ms = timeout_ms;
	r = npusim_ioctl(fd, NPUSIM_IOC_CQ_RECV, &a);
	return r < 0 ? r : (int)a.recv_num;
}

int npusim_clock_sync(int fd, struct npusim_clock_sample *samples, uint32_t n)
{
	struct npusim_clock_sync a;
	int r;

	if (n == 0 || n > NPUSIM_CLOCK_SAMPLES_MAX)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.count = n;
	r = npusim_ioctl(fd, NPUSIM_IOC_CLOCK_SYNC, &a);
	if (r == 0)
		memcpy(samples, a.samples, n * sizeof(*samples));
	return r;
}

int npusim_prof_start(int fd, uint32_t ring_records)
{
	struct npusim_prof_start a;

	memset(&a, 0, sizeof(a));
	a.channel = NPUSIM_PROF_CHANNEL_STARS_SOC_LOG;
	a.flags = NPUSIM_STARS_ACSQ_TASK;
	a.ring_records = ring_records;
	return npusim_ioctl(fd, NPUSIM_IOC_PROF_START, &a);
}

int npusim_lp_start(int fd, const struct npusim_lp_config *cfg)
{
	struct npusim_prof_start a;

	memset(&a, 0, sizeof(a));
	a.channel = NPUSIM_PROF_CHANNEL_LP;
	a.lp = *cfg;
	return npusim_ioctl(fd, NPUSIM_IOC_PROF_START, &a);
}

int npusim_chan_read(int fd, uint32_t channel, void *buf, uint32_t len, uint64_t *records,
		     uint64_t *dropped)
{
	struct npusim_prof_read a;
	int r;

	memset(&a, 0, sizeof(a));
	a.channel = channel;
	a.len = len;
	a.buf = (uint64_t)(uintptr_t)buf;
	r = npusim_ioctl(fd, NPUSIM_IOC_PROF_READ, &a);
	if (r < 0)
		return r;
	if (records)
		*records = a.records;
	if (dropped)
		*dropped = a.dropped;
	return (int)a.bytes;
}

int npusim_prof_read(int fd, void *buf, uint32_t len, uint64_t *records, uint64_t *dropped)
{
	return npusim_chan_read(fd, NPUSIM_PROF_CHANNEL_STARS_SOC_LOG, buf, len, records, dropped);
}

int npusim_chan_stop(int fd, uint32_t channel)
{
	struct npusim_prof_stop a;

	memset(&a, 0, sizeof(a));
	a.channel = channel;
	return npusim_ioctl(fd, NPUSIM_IOC_PROF_STOP, &a);
}

int npusim_prof_stop(int fd)
{
	return npusim_chan_stop(fd, NPUSIM_PROF_CHANNEL_STARS_SOC_LOG);
}

int npusim_id_alloc(int fd, uint32_t kind, uint32_t *id)
{
	struct npusim_id a = { .kind = kind };
	int r = npusim_ioctl(fd, NPUSIM_IOC_ID_ALLOC, &a);

	if (r == 0)
		*id = a.id;
	return r;
}

int npusim_id_free(int fd, uint32_t kind, uint32_t id)
{
	struct npusim_id a = { .kind = kind, .id = id };

	return npusim_ioctl(fd, NPUSIM_IOC_ID_FREE, &a);
}

int npusim_id_record(int fd, uint32_t kind, uint32_t id)
{
	struct npusim_id a = { .kind = kind, .id = id };

	return npusim_ioctl(fd, NPUSIM_IOC_ID_RECORD, &a);
}

int npusim_shr_id(int fd, uint32_t op, uint32_t kind, uint32_t id, uint32_t *gen)
{
	struct npusim_shr_id a = { .op = op, .kind = kind, .id = id, .gen = *gen };
	int r = npusim_ioctl(fd, NPUSIM_IOC_SHR_ID, &a);

	if (r == 0)
		*gen = a.gen;
	return r;
}

int npusim_event_status(int fd, uint32_t id, struct npusim_event_status *st)
{
	memset(st, 0, sizeof(*st));
	st->id = id;
	return npusim_ioctl(fd, NPUSIM_IOC_EVENT_STATUS, st);
}

int npusim_logic_cq_alloc(int fd, uint32_t depth, uint32_t cqe_size, uint32_t *cq_id)
{
	struct npusim_logic_cq_alloc a;
	int r;

	memset(&a, 0, sizeof(a));
	a.cqe_depth = depth;
	a.cqe_size = cqe_size;
	r = npusim_ioctl(fd, NPUSIM_IOC_LOGIC_CQ_ALLOC, &a);
	if (r == 0)
		*cq_id = a.cq_id;
	return r;
}

int npusim_logic_cq_free(int fd, uint32_t cq_id)
{
	struct npusim_logic_cq_free a;

	memset(&a, 0, sizeof(a));
	a.cq_id = cq_id;
	return npusim_ioctl(fd, NPUSIM_IOC_LOGIC_CQ_FREE, &a);
}

int npusim_stream_logic_cq(int fd, uint32_t stream_id, uint32_t prop, uint32_t cq_id)
{
	struct npusim_stream_logic_cq a;

	memset(&a, 0, sizeof(a));
	a.stream_id = stream_id;
	a.prop = prop;
	a.cq_id = cq_id;
	return npusim_ioctl(fd, NPUSIM_IOC_STREAM_LOGIC_CQ, &a);
}

int npusim_logic_cq_recv(int fd, uint32_t cq_id, void *buf, uint32_t cap, int timeout_ms,
			 uint32_t version, uint32_t stream_id, uint32_t task_id)
{
	struct npusim_logic_cq_recv a;
	int r;

	memset(&a, 0, sizeof(a));
	a.cq_id = cq_id;
	a.cqe_num = cap;
	a.cqe_addr = (uint64_t)(uintptr_t)buf;
	a.timeout_ms = timeout_ms;
	a.version = version;
	a.stream_id = stream_id;
	a.task_id = task_id;
	r = npusim_ioctl(fd, NPUSIM_IOC_LOGIC_CQ_RECV, &a);
	return r < 0 ? r : (int)a.recv_num;
}
