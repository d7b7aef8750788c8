// SPDX-License-Identifier: GPL-2.0
/*
 * The STARS SoC log: profiling channel 50 of each device, where a 910B
 * writes its task start and end times (uapi/npusim.h, "Profiling channels";
 * hicann/runtime's prof_drv_start / prof_channel_read / prof_stop). The
 * profiling ioctls are here for every channel: channel 132 (the AI Core
 * frequency) is served by lp.c.
 *
 * A reader starts the channel with NPUSIM_IOC_PROF_START: the device gets a
 * ring of 64-byte ACSQ_TASK records, and from then on the device model
 * (sched.c) appends one when a task starts and one when it ends, its time
 * in device counter ticks. NPUSIM_IOC_PROF_READ copies the whole records
 * there are; NPUSIM_IOC_PROF_STOP (or closing the file that started it)
 * frees the ring. A full ring drops the new record and counts it.
 *
 * Locking: the ring pointer and the producer's head are under the device's
 * stars_lock (taken inside npusim_lock, with interrupts off); the reader's
 * side is chan_ring.c's.
 */
#include <linux/uaccess.h>
#include "npusim.h"

#define NPUSIM_STARS_RING_DEFAULT 65536 /* records: 4 MiB */
#define NPUSIM_STARS_RING_MIN 64
#define NPUSIM_STARS_RING_MAX (1U << 20) /* 64 MiB */

void npusim_stars_dev_init(struct npusim_dev *dev)
{
	spin_lock_init(&dev->stars_lock);
	mutex_init(&dev->prof_lock);
}

/*
 * One ACSQ_TASK record of stream @s's task @sqe: function type @func at
 * device counter @cnt. The stream id and task id are the SQE's, the SQ id
 * is the stream's (7 bits of acc, as the hardware's ACSQ id). Called by the
 * device model with npusim_lock held.
 */
void npusim_stars_task(struct npusim_stream *s, const struct npusim_sqe *sqe,
		       u32 func, u64 cnt)
{
	struct npusim_dev *dev = s->dev;
	struct npusim_chan_ring *r;
	struct npusim_stars_acsq *a;

	spin_lock(&dev->stars_lock);
	r = dev->stars;
	if (!r)
		goto out;
	if (npusim_chan_ring_full(r)) {
		r->dropped++;
		goto out;
	}
	a = npusim_chan_ring_at(r, r->head); /* zeroed when it was read */
	a->head = (func & 0x3f) |
		  ((sqe->type & NPUSIM_SQE_TYPE_MASK & 0x3f) << 10);
	/* the stream's id bits: the sync-task flag is no part of it */
	a->stream_id = sqe->stream_id & NPUSIM_STREAM_ID_MASK;
	a->task_id = sqe->task_id;
	a->sys_cnt = cnt;
	a->acc = (s->id & 0x7f) << 6;
	r->head++;
	r->records++;
out:
	spin_unlock(&dev->stars_lock);
}

/* Reserved fields must be zero; then the channel: 0, -EINVAL, -ENODEV. */
static int npusim_prof_check(const u32 *rsv, size_t n, u32 channel)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rsv[i])
			return -EINVAL;
	if (channel >= NPUSIM_PROF_CHANNEL_NUM)
		return -EINVAL;
	return channel == NPUSIM_PROF_CHANNEL_STARS_SOC_LOG ||
			       channel == NPUSIM_PROF_CHANNEL_LP ?
		       0 :
		       -ENODEV;
}

int npusim_ioc_prof_start(struct npusim_file *f, void __user *uarg)
{
	struct npusim_dev *dev = f->dev;
	struct npusim_prof_start a;
	struct npusim_chan_ring *r;
	int ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	ret = npusim_prof_check(a.rsv, ARRAY_SIZE(a.rsv), a.channel);
	if (ret)
		return ret;
	if (a.channel == NPUSIM_PROF_CHANNEL_LP)
		return npusim_lp_start(f, &a); /* lp.c */
	if (a.flags != NPUSIM_STARS_ACSQ_TASK || a.lp.period || a.lp.version)
		return -EINVAL;
	if (!a.ring_records)
		a.ring_records = NPUSIM_STARS_RING_DEFAULT;
	if (a.ring_records < NPUSIM_STARS_RING_MIN ||
	    a.ring_records > NPUSIM_STARS_RING_MAX ||
	    (a.ring_records & (a.ring_records - 1)))
		return -EINVAL;
	r = npusim_chan_ring_new(f, a.ring_records, NPUSIM_STARS_RECORD_SIZE);
	if (!r)
		return -ENOMEM;
	return npusim_chan_ring_attach(dev, &dev->stars, &dev->stars_lock, r,
				       NULL);
}

int npusim_ioc_prof_read(struct npusim_file *f, void __user *uarg)
{
	struct npusim_dev *dev = f->dev;
	struct npusim_prof_read a;
	int ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.rsv0)
		return -EINVAL;
	ret = npusim_prof_check(a.rsv, ARRAY_SIZE(a.rsv), a.channel);
	if (ret)
		return ret;
	if (a.channel == NPUSIM_PROF_CHANNEL_LP) {
		ret = npusim_lp_read(f, &a); /* lp.c */
	} else if (!a.len || a.len % NPUSIM_STARS_RECORD_SIZE) {
		ret = -EINVAL;
	} else {
		ret = npusim_chan_ring_read(dev, &dev->stars, &dev->stars_lock,
					    f, &a, NULL);
	}
	if (ret)
		return ret;
	return copy_to_user(uarg, &a, sizeof(a)) ? -EFAULT : 0;
}

/* Stop @dev's channel if @f started it; -ESRCH if not. */
static int npusim_stars_stop(struct npusim_file *f)
{
	struct npusim_dev *dev = f->dev;
	struct npusim_chan_ring *r;

	r = npusim_chan_ring_detach(dev, &dev->stars, &dev->stars_lock, f);
	if (!r)
		return -ESRCH;
	if (r->dropped)
		pr_info("npusim: dev %u: STARS SoC log: %llu of %llu records dropped (ring of %u full)\n",
			dev->id, r->dropped, r->dropped + r->records, r->size);
	npusim_chan_ring_free(r);
	return 0;
}

int npusim_ioc_prof_stop(struct npusim_file *f, void __user *uarg)
{
	struct npusim_prof_stop a;
	int ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	ret = npusim_prof_check(a.rsv, ARRAY_SIZE(a.rsv), a.channel);
	if (ret)
		return ret;
	return a.channel == NPUSIM_PROF_CHANNEL_LP ? npusim_lp_stop(f) :
						     npusim_stars_stop(f);
}

/* File @f goes: the channels it started stop. */
void npusim_stars_release(struct npusim_file *f)
{
	npusim_stars_stop(f);
	npusim_lp_stop(f);
}

/* For /proc: is the channel running, with what counts. */
bool npusim_stars_stats(struct npusim_dev *dev, u64 *records, u64 *dropped)
{
	unsigned long flags;
	bool on;

	spin_lock_irqsave(&dev->stars_lock, flags);
	on = dev->stars;
	*records = on ? dev->stars->records : 0;
	*dropped = on ? dev->stars->dropped : 0;
	spin_unlock_irqrestore(&dev->stars_lock, flags);
	return on;
}
