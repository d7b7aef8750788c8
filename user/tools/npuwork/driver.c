/*
 * driver.c - npuwork's driver-level scenarios (no ACL runtime).
 *
 * `driver` drives /dev/npusim<N> directly, the way the runtime's send path
 * does, with the task mix of a data-parallel training step: compute kernels on a
 * compute stream, an event hand-off to a communication stream, and an
 * all-reduce decomposed into notify record/wait and SDMA tasks between every
 * pair of devices. `flood` submits short tasks as fast as possible, for
 * measuring per-task tracing cost; the last task of each batch asks for a
 * CQE (wr_cqe), as a runtime's do where it must learn a stream's progress
 * (a 910B writes none for the others, and a tracer would otherwise see the
 * batch's end complete only with the next batch's submits).
 * Both keep their task counts fixed (tests and benchmarks rely on them).
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "npusim_dev.h"

struct dev_ctx {
	int fd;
	int id;
	uint32_t compute, comm; /* stream ids */
	uint16_t task[2]; /* next task id per stream */
	uint32_t ev; /* event: compute -> comm */
	/* notify ids owned by this device, one per all-reduce round: a notify
	 * is a flag, so a device that ran a round ahead of its next neighbour
	 * would record a notify still set (the second record lost, the
	 * neighbour's next wait never met); with a notify per round, a device
	 * can lead by at most ndev - 1 rounds of the 2 * (ndev - 1) before it
	 * records one again, as HCCL's parity notifies are spaced */
	uint32_t notify[2 * (NPUSIM_MAX_DEVICES - 1)];
	uint64_t submitted;
};

#include "npuwork.h"

static void die(const char *what, int err)
{
	fprintf(stderr, "npuwork: %s: %s\n", what, strerror(-err));
	exit(1);
}

static void send(struct dev_ctx *d, uint32_t sid, struct npusim_sqe *q,
		 const struct npusim_task_model *m, int n)
{
	int r = npusim_sq_send_model(d->fd, sid, q, m, n, -1, NULL);

	if (r < 0)
		die("submit", r);
	d->submitted += n;
}

/* The next SQE of stream s (0 compute, 1 communication) in q[*n], its model
 * (the defaults) in m[*n]; returns the index. Kernels are FFTS SQEs (type 0)
 * with their cores in ffts_type, as the 910B runtime writes them. */
static int next_sqe(struct dev_ctx *d, struct npusim_sqe *q, struct npusim_task_model *m, int *n,
		    int s, unsigned int type, uint16_t ffts)
{
	uint32_t sid = s ? d->comm : d->compute;
	int i = (*n)++;

	npusim_sqe_init(&q[i], type, sid, d->task[s]++);
	memset(&m[i], 0, sizeof(m[i]));
	if (type == NPUSIM_SQE_AI_CORE)
		q[i].u.ffts.ffts_type = ffts;
	return i;
}

/* One training step on one device: forward/backward kernels, then the
 * gradient all-reduce on the communication stream. */
static void train_step(struct dev_ctx *devs, int di, int step)
{
	struct dev_ctx *d = &devs[di];
	struct npusim_sqe q[64];
	struct npusim_task_model m[64];
	int n = 0, e;

	for (int k = 0; k < 24; k++) {
		e = next_sqe(d, q, m, &n, 0, NPUSIM_SQE_AI_CORE,
			     k == 10	? NPUSIM_FFTS_AIC_AIV_MIX :
			     k % 3 == 2 ? NPUSIM_FFTS_AIV_ONLY :
					  NPUSIM_FFTS_AIC_ONLY);
		q[e].block_dim = 8 + (k * 7) % 40;
		m[e].duration_ns = 20000 + ((k * 37 + step * 11) % 13) * 15000;
		m[e].jitter_pm = 50;
		if (k == 10)
			m[e].kind = NPUSIM_KERNEL_MIX_AIC;
	}
	e = next_sqe(d, q, m, &n, 0, NPUSIM_SQE_EVENT_RECORD, 0);
	npusim_sqe_set_sync_id(&q[e], d->ev);
	send(d, d->compute, q, m, n);

	n = 0;
	e = next_sqe(d, q, m, &n, 1, NPUSIM_SQE_EVENT_WAIT, 0);
	npusim_sqe_set_sync_id(&q[e], d->ev);
	/* ring all-reduce: tell the next device we are ready, wait for the
	 * previous one, move a chunk, reduce, repeat ndev-1 times */
	for (int r = 0; r < 2 * (opt.ndev - 1); r++) {
		int next = (di + 1) % opt.ndev;

		e = next_sqe(d, q, m, &n, 1, NPUSIM_SQE_NOTIFY_RECORD, 0);
		npusim_sqe_set_sync_id(&q[e], devs[next].notify[r]);
		m[e].target_dev = NPUSIM_TARGET_DEV((uint32_t)next);
		e = next_sqe(d, q, m, &n, 1, NPUSIM_SQE_NOTIFY_WAIT, 0);
		npusim_sqe_set_sync_id(&q[e], d->notify[r]);
		e = next_sqe(d, q, m, &n, 1, NPUSIM_SQE_SDMA, 0);
		npusim_sqe_set_sdma(&q[e], 4u << 20, 0, 0);
		if (r < opt.ndev - 1) {
			e = next_sqe(d, q, m, &n, 1, NPUSIM_SQE_AI_CORE, NPUSIM_FFTS_AIV_ONLY);
			q[e].block_dim = 48;
			m[e].duration_ns = 30000;
		}
	}
	next_sqe(d, q, m, &n, 1, NPUSIM_SQE_PLACE_HOLDER, 0);
	send(d, d->comm, q, m, n);
}

static void open_devices(struct dev_ctx *devs)
{
	for (int i = 0; i < opt.ndev; i++) {
		struct dev_ctx *d = &devs[i];
		int r;

		memset(d, 0, sizeof(*d));
		d->id = i;
		d->fd = npusim_dev_open(i);
		if (d->fd < 0)
			die("open /dev/npusim (is npusim.ko loaded?)", d->fd);
		if ((r = npusim_stream_create(d->fd, &d->compute)) ||
		    (r = npusim_stream_create(d->fd, &d->comm)) ||
		    (r = npusim_id_alloc(d->fd, NPUSIM_ID_EVENT, &d->ev)))
			die("set up device", r);
		for (int k = 0; k < 2 * (opt.ndev - 1); k++)
			if ((r = npusim_id_alloc(d->fd, NPUSIM_ID_NOTIFY, &d->notify[k])))
				die("set up device", r);
	}
}

static void drain(struct dev_ctx *d, uint32_t sid)
{
	struct npusim_cqe cq[256];

	while (npusim_cq_recv(d->fd, sid, cq, 256, 0) > 0)
		;
}

static void run_train(struct dev_ctx *devs)
{
	for (int s = 0; s < opt.steps; s++) {
		for (int i = 0; i < opt.ndev; i++)
			train_step(devs, i, s);
		for (int i = 0; i < opt.ndev; i++) {
			int r = npusim_stream_sync(devs[i].fd, devs[i].comm, 30000);
			if (r < 0)
				die("step synchronize", r);
			drain(&devs[i], devs[i].compute);
			drain(&devs[i], devs[i].comm);
		}
	}
}

struct flood_arg {
	struct dev_ctx *d;
	long tasks;
};

static void *flood_dev(void *p)
{
	struct flood_arg *a = p;
	struct dev_ctx *d = a->d;
	static _Thread_local struct npusim_sqe q[NPUSIM_SEND_MAX];
	static _Thread_local struct npusim_task_model m[NPUSIM_SEND_MAX];
	int batch = opt.batch;

	for (long t = 0; t < a->tasks; t += batch) {
		int n = a->tasks - t < batch ? (int)(a->tasks - t) : batch, k = 0;

		for (int i = 0; i < n; i++)
			next_sqe(d, q, m, &k, 0, NPUSIM_SQE_AI_CORE, NPUSIM_FFTS_AIV_ONLY);
		q[n - 1].ctrl |= NPUSIM_SQE_CTRL_WR_CQE;
		send(d, d->compute, q, m, n);
		drain(d, d->compute);
	}
	npusim_stream_sync(d->fd, d->compute, -1);
	drain(d, d->compute);
	return NULL;
}

static void run_flood(struct dev_ctx *devs)
{
	pthread_t th[NPUSIM_MAX_DEVICES];
	struct flood_arg a[NPUSIM_MAX_DEVICES];

	for (int i = 0; i < opt.ndev; i++) {
		a[i].d = &devs[i];
		/* exactly --tasks in all: the first devices take the remainder */
		a[i].tasks = opt.tasks / opt.ndev + (i < opt.tasks % opt.ndev);
		pthread_create(&th[i], NULL, flood_dev, &a[i]);
	}
	for (int i = 0; i < opt.ndev; i++)
		pthread_join(th[i], NULL);
}

uint64_t run_driver_scenario(int flood)
{
	struct dev_ctx devs[NPUSIM_MAX_DEVICES];
	uint64_t total = 0;

	open_devices(devs);
	if (flood)
		run_flood(devs);
	else
		run_train(devs);
	for (int i = 0; i < opt.ndev; i++) {
		total += devs[i].submitted;
		npusim_dev_close(devs[i].fd);
	}
	return total;
}
