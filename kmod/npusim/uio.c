// SPDX-License-Identifier: GPL-2.0
/*
 * User-mode submission: the real driver's UIO_T and UIO_D send modes
 * (hicann/driver trs_sqcq_map.c picks one when it maps an SQ, trs_hw_sqcq.c
 * forwards), for the streams of a device whose sq_send_mode is not KIO.
 *
 * Each such stream gets a soft queue from the kernel: a control page
 * (struct npusim_uio_ctrl) and depth SQE slots, vmalloc'ed and mapped by
 * the process through the device fd (NPUSIM_IOC_SQ_UIO_INFO says where).
 * The process writes SQEs at the tail, then the tail, then rings the
 * trigger (NPUSIM_IOC_SQ_TRIGGER), which refuses a queue the process has
 * not mapped, a tail beyond the queue and malformed SQEs (-EINVAL, as the
 * driver refuses an SQ the process does not hold and an invalid tail).
 *
 * UIO_T (910B): the trigger marks the queue and queues the device's work
 * (workqueue "dev<N>_sq_send_wq", the driver's sq_trigger_work), which
 * forwards the marked queues, then every queue of the device, and runs
 * again up to three times after it last found something; a kernel thread
 * ("dev<N>_sq_task") polls every queue every 4 ms, or 1 ms while it finds
 * work, once the device has seen a trigger. Forwarding takes the SQEs ONE
 * at a time from head to tail, checks each and puts it into the SQ through
 * the fill step of NPUSIM_IOC_SQ_SEND (npusim_sq_fill_locked), so
 * trs_chan:sqe fires in the worker or the poller, at forwarding time, with
 * the kernel thread as the current task. A malformed SQE stops its queue at
 * that SQE (ctrl->error, send_fail), as a failed hal_kernel_trs_chan_send
 * stops the driver's; the process may rewrite the slot and trigger again.
 * A full SQ stops the forwarding until the next trigger or poll.
 *
 * UIO_D (950, 910_96): the trigger is the doorbell: the SQEs go into the SQ
 * at once, in the caller, without trs_chan:sqe (on the chip the hardware
 * reads the queue and the kernel sees nothing); what the SQ has no room
 * for yet the poller takes later, as silently.
 *
 * Lifetime: the queue memory is reference counted (the stream and each
 * mapping hold one), so a mapping may outlive its stream (state DEAD).
 * Forwarders hold a stream reference and stop at a destroyed stream; the
 * work and the poller are stopped before their device goes.
 */
#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "npusim.h"

#define NPUSIM_POLL_IDLE_US 4000 /* trs_sq_send_thread: 4 ms idle */
#define NPUSIM_POLL_BUSY_US 1000 /* ... 1 ms while it finds work */
#define NPUSIM_WORK_RETRIES 3 /* trs_sq_work_is_need_retry */

/* ---- forwarding --------------------------------------------------------- */

/*
 * One SQE into @s's SQ from a kernel copy, as the driver's
 * hal_kernel_trs_chan_send with sqe_num 1: -EBUSY when the SQ is full (the
 * forwarding goes on later), -ESHUTDOWN when the stream is destroyed.
 */
static int npusim_kernel_chan_send(struct npusim_stream *s,
				   const struct npusim_sqe *sqe,
				   const struct npusim_task_model *m,
				   bool trace)
{
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&npusim_lock, flags);
	if (s->dead)
		ret = -ESHUTDOWN;
	else if (s->tail - s->head >= s->depth)
		ret = -EBUSY;
	else
		npusim_sq_fill_locked(s, sqe, m, 1, trace);
	spin_unlock_irqrestore(&npusim_lock, flags);
	return ret;
}

/* The SQE at head is malformed (@err): the queue stops there. */
static void npusim_uio_stop(struct npusim_uio *q, int err)
{
	if (!q->stuck)
		q->ctrl->send_fail++;
	WRITE_ONCE(q->stuck, true);
	WRITE_ONCE(q->ctrl->error, err);
}

/*
 * Forward @s's soft queue from head to the tail, one SQE at a time, each
 * checked on a kernel copy (the process may write the slots at any time).
 * send_lock held. Returns the SQEs forwarded.
 */
static u32 npusim_uio_forward_locked(struct npusim_stream *s, bool trace)
{
	struct npusim_uio *q = s->uio;
	struct npusim_task_model m;
	struct npusim_sqe sqe;
	u32 tail, num = 0;

	while (!READ_ONCE(s->dead)) {
		/* the SQEs before the tail are written before it */
		tail = smp_load_acquire(&q->ctrl->tail);
		if (tail >= q->depth) {
			if (READ_ONCE(q->ctrl->error) != -EINVAL)
				pr_warn_ratelimited(
					"npusim: dev %u stream %u: invalid soft queue tail %u (depth %u)\n",
					s->dev->id, s->id, tail, q->depth);
			WRITE_ONCE(q->ctrl->error, -EINVAL);
			break;
		}
		if (tail == q->head)
			break;
		memcpy(&sqe, &q->que[q->head], sizeof(sqe));
		memcpy(&m, &q->model[q->head], sizeof(m));
		if (npusim_sqe_validate(&sqe, s->id) ||
		    npusim_model_validate(&sqe, &m)) {
			npusim_uio_stop(q, -EINVAL);
			break;
		}
		if (npusim_kernel_chan_send(s, &sqe, &m, trace))
			break;
		WRITE_ONCE(q->head, (q->head + 1) & (q->depth - 1));
		WRITE_ONCE(q->ctrl->head, q->head);
		/* the head before the tail is read again: a sender that saw
		 * the old head rang no trigger, so this loop must see its tail */
		smp_mb();
		WRITE_ONCE(q->stuck, false);
		WRITE_ONCE(q->ctrl->error, 0);
		q->ctrl->send_ok++;
		if (!(++num % 64))
			cond_resched();
	}
	/* a waiter for the stream to go idle may have seen the last task
	 * complete while its SQE was still counted here (the device can
	 * finish it inside the fill step): it looks again now */
	if (num || READ_ONCE(q->stuck))
		wake_up_all(&s->wq);
	return num;
}

/* Forward stream @id of @dev if it has a soft queue and nobody else is
 * forwarding it (trs_hw_sq_send_task's trylock). */
static u32 npusim_uio_send_id(struct npusim_dev *dev, u32 id)
{
	struct npusim_stream *s;
	unsigned long flags;
	u32 num = 0;

	spin_lock_irqsave(&npusim_lock, flags);
	s = dev->streams[id];
	if (s && (!s->uio || s->dead))
		s = NULL;
	if (s)
		kref_get(&s->ref);
	spin_unlock_irqrestore(&npusim_lock, flags);
	if (!s)
		return 0;
	if (mutex_trylock(&s->uio->send_lock)) {
		num = npusim_uio_forward_locked(s,
						s->mode == NPUSIM_SEND_UIO_T);
		mutex_unlock(&s->uio->send_lock);
	}
	npusim_stream_put(s);
	return num;
}

/* Every soft queue of @dev (trs_sq_send_proc's loop over the SQs). */
static u32 npusim_uio_send_all(struct npusim_dev *dev)
{
	u32 id, num = 0;

	for (id = 0; id < npusim_max_streams; id++) {
		num += npusim_uio_send_id(dev, id);
		if (!(id % 128))
			cond_resched();
	}
	return num;
}

/* The trigger's work: the triggered queues first, then all of them; again
 * while it finds something and three times after (trs_sq_trigger_work). */
static void npusim_sq_trigger_work(struct work_struct *w)
{
	struct npusim_dev *dev = container_of(w, struct npusim_dev, sq_work);
	u32 id, num = 0;

	for_each_set_bit(
		id, dev->uio_pending,
		npusim_max_streams) if (test_and_clear_bit(id,
							   dev->uio_pending))
		num += npusim_uio_send_id(dev, id);
	num += npusim_uio_send_all(dev);
	if (work_pending(w))
		return;
	if (num)
		dev->sq_work_retry = NPUSIM_WORK_RETRIES;
	else if (dev->sq_work_retry > 0)
		dev->sq_work_retry--;
	else
		return;
	queue_work(dev->sq_wq, w);
}

/* The device's poller (trs_sq_send_thread): idle until the first trigger. */
static int npusim_sq_task(void *arg)
{
	struct npusim_dev *dev = arg;
	unsigned long us = NPUSIM_POLL_IDLE_US;

	while (!kthread_should_stop()) {
		usleep_range_state(us - 100, us, TASK_INTERRUPTIBLE);
		if (!READ_ONCE(dev->sq_task_flag))
			continue;
		us = npusim_uio_send_all(dev) ? NPUSIM_POLL_BUSY_US :
						NPUSIM_POLL_IDLE_US;
	}
	return 0;
}

int npusim_uio_dev_init(struct npusim_dev *dev)
{
	int ret;

	if (dev->send_mode == NPUSIM_SEND_KIO)
		return 0;
	dev->uio_pending = bitmap_zalloc(npusim_max_streams, GFP_KERNEL);
	if (!dev->uio_pending)
		return -ENOMEM;
	INIT_WORK(&dev->sq_work, npusim_sq_trigger_work);
	dev->sq_wq = alloc_workqueue("dev%u_sq_send_wq",
				     WQ_HIGHPRI | WQ_MEM_RECLAIM, 1, dev->id);
	if (!dev->sq_wq)
		return -ENOMEM;
	dev->sq_task = kthread_run(npusim_sq_task, dev, "dev%u_sq_task",
				   dev->id);
	if (IS_ERR(dev->sq_task)) {
		ret = PTR_ERR(dev->sq_task);
		dev->sq_task = NULL;
		return ret;
	}
	sched_set_fifo_low(dev->sq_task); /* as trs_set_thread_priority */
	return 0;
}

/* No stream is left (every file is closed): stop the poller and the work. */
void npusim_uio_dev_exit(struct npusim_dev *dev)
{
	if (dev->sq_task) {
		kthread_stop(dev->sq_task);
		dev->sq_task = NULL;
	}
	if (dev->sq_wq) {
		destroy_workqueue(dev->sq_wq); /* drains a requeued work */
		dev->sq_wq = NULL;
	}
	bitmap_free(dev->uio_pending);
	dev->uio_pending = NULL;
}

/* ---- the process's side: info, mapping, trigger ------------------------- */

int npusim_ioc_sq_uio_info(struct npusim_file *f, void __user *uarg)
{
	struct npusim_sq_uio_info a;
	struct npusim_stream *s;
	int i;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	for (i = 0; i < ARRAY_SIZE(a.rsv); i++)
		if (a.rsv[i])
			return -EINVAL;
	s = npusim_stream_get(f, a.stream_id);
	if (!s)
		return -EINVAL;
	a.mode = s->mode;
	a.sqe_size = NPUSIM_SQE_SIZE;
	a.depth = 0;
	a.map_offset = 0;
	a.map_size = 0;
	a.queue_offset = 0;
	a.model_offset = 0;
	if (s->uio) {
		a.depth = s->uio->depth;
		a.map_offset = NPUSIM_UIO_MMAP_OFFSET(s->id);
		a.map_size = s->uio->size;
		a.queue_offset = PAGE_SIZE;
		a.model_offset = npusim_uio_model_offset(s->uio->depth);
	}
	npusim_stream_put(s);
	return copy_to_user(uarg, &a, sizeof(a)) ? -EFAULT : 0;
}

static void npusim_uio_vm_open(struct vm_area_struct *vma)
{
	struct npusim_uio *q = vma->vm_private_data;

	kref_get(&q->ref);
	atomic_inc(&q->maps);
}

static void npusim_uio_vm_close(struct vm_area_struct *vma)
{
	struct npusim_uio *q = vma->vm_private_data;

	atomic_dec(&q->maps);
	npusim_uio_put(q);
}

static const struct vm_operations_struct npusim_uio_vm_ops = {
	.open = npusim_uio_vm_open,
	.close = npusim_uio_vm_close,
};

/* mmap of the device at NPUSIM_UIO_MMAP_OFFSET(stream): the whole soft
 * queue of one of this file's streams, shared. */
int npusim_uio_mmap(struct npusim_file *f, struct vm_area_struct *vma)
{
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	struct npusim_stream *s;
	struct npusim_uio *q;
	int ret = -EINVAL;

	if ((off & 0xffffffffULL) || !(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	s = npusim_stream_get(f, off >> 32);
	if (!s)
		return -EINVAL;
	q = s->uio;
	if (!q || vma->vm_end - vma->vm_start != q->size)
		goto out;
	ret = remap_vmalloc_range(vma, q->mem, 0);
	if (ret)
		goto out;
	WRITE_ONCE(q->ctrl->stream_id, s->id);
	vma->vm_private_data = q;
	vma->vm_ops = &npusim_uio_vm_ops;
	npusim_uio_vm_open(vma);
out:
	npusim_stream_put(s);
	return ret;
}

/* The tail is in the queue and the SQEs from head to it are well formed. */
static int npusim_uio_check(struct npusim_stream *s, struct npusim_uio *q)
{
	u32 tail = smp_load_acquire(&q->ctrl->tail), i;
	struct npusim_task_model m;
	struct npusim_sqe sqe;

	if (tail >= q->depth)
		return -EINVAL;
	for (i = READ_ONCE(q->head); i != tail; i = (i + 1) & (q->depth - 1)) {
		memcpy(&sqe, &q->que[i], sizeof(sqe));
		memcpy(&m, &q->model[i], sizeof(m));
		if (npusim_sqe_validate(&sqe, s->id) ||
		    npusim_model_validate(&sqe, &m))
			return -EINVAL;
	}
	return 0;
}

int npusim_ioc_sq_trigger(struct npusim_file *f, void __user *uarg)
{
	struct npusim_sq_trigger a;
	struct npusim_dev *dev = f->dev;
	struct npusim_stream *s;
	struct npusim_uio *q;
	int ret = -EINVAL;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.rsv[0] || a.rsv[1] || a.rsv[2])
		return -EINVAL;
	s = npusim_stream_get(f, a.stream_id);
	if (!s)
		return -EINVAL;
	q = s->uio;
	/* a KIO stream, or a soft queue nobody mapped */
	if (!q || !atomic_read(&q->maps))
		goto out;
	ret = npusim_uio_check(s, q);
	if (ret)
		goto out;
	WRITE_ONCE(q->stuck, false); /* the process rewrote a bad SQE */
	q->ctrl->triggers++;
	if (s->mode == NPUSIM_SEND_UIO_D) {
		/* the doorbell: to the device now, untraced */
		mutex_lock(&q->send_lock);
		npusim_uio_forward_locked(s, false);
		mutex_unlock(&q->send_lock);
	} else {
		set_bit(s->id, dev->uio_pending);
		queue_work(dev->sq_wq, &dev->sq_work);
	}
	WRITE_ONCE(dev->sq_task_flag, 1);
out:
	npusim_stream_put(s);
	return ret;
}
