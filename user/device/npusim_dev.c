/*
 * npusim_dev.c — userspace access to the simulated NPU driver: one function
 * per ioctl of include/uapi/npusim.h, returning 0 or -errno.
 */
#include "npusim_dev.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
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
	if (r == 0)
		*stream_id = a.stream_id;
	return r;
}

int npusim_stream_destroy(int fd, uint32_t stream_id, uint32_t flags, int timeout_ms)
{
	struct npusim_stream_destroy a = {
		.stream_id = stream_id,
		.flags = flags,
		.timeout_ms = timeout_ms,
	};

	return npusim_ioctl(fd, NPUSIM_IOC_STREAM_DESTROY, &a);
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
	struct npusim_sq_send a;
	int r;

	memset(&a, 0, sizeof(a));
	a.stream_id = stream_id;
	a.sqe_num = n;
	a.sqe_addr = (uint64_t)(uintptr_t)sqes;
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

void npusim_sqe_init(struct npusim_sqe *sqe, unsigned int type, uint16_t stream_id,
		     uint16_t task_id)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->type = (uint8_t)(type & NPUSIM_SQE_TYPE_MASK);
	sqe->block_dim = 1;
	sqe->stream_id = stream_id;
	sqe->task_id = task_id;
}
