// SPDX-License-Identifier: GPL-2.0
/*
 * npusim: a simulated Ascend NPU driver.
 *
 * One character device per simulated device (/dev/npusim<N>). The ioctl ABI
 * is in include/uapi/npusim.h; the device model in sched.c; the trs_chan
 * tracepoints it emits have the real Ascend driver's ABI, so tracers built
 * for a 910B host attach to this driver unchanged.
 *
 * Everything a process creates (streams, event and notify ids) belongs to its
 * open file and is torn down on close, including when the process is killed
 * with tasks in flight.
 *
 * Streams take their device's send mode (uio.c for the user-mode ones); a
 * stream's channel is created and destroyed through the driver's
 * hal_kernel_trs_chan_create/destroy, where a tracer learns whose it is.
 */
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "npusim.h"

static dev_t npusim_devt;
static struct class *npusim_class;

/*
 * The channel layer's channel creation and destruction, with the real
 * driver's exported signatures (hicann/driver ascend_kernel_hal.h:
 * hal_kernel_trs_chan_create, hal_kernel_trs_chan_destroy; uapi/trs_chan.h).
 * The real SQ allocation (trs_hw_sqcq_alloc, in the allocating process's
 * TRS_SQCQ_ALLOC ioctl) creates a HW/RTS channel through the first; npusim's
 * stream creation does the same, in the creating process, once the stream
 * has its id. They are out of line and global so a tracer can probe them
 * (kprobe and kretprobe): it learns there whose each chan_id is, which in a
 * user-mode send mode the current task at trs_chan:sqe cannot tell it. The
 * stream itself records its creator for /proc (s->tgid).
 */
noinline int hal_kernel_trs_chan_create(struct trs_id_inst *inst,
					struct trs_chan_para *para,
					int *chan_id)
{
	if (para->types.type != TRS_CHAN_TYPE_HW ||
	    para->types.sub_type != TRS_CHAN_SUB_TYPE_HW_RTS)
		return -EINVAL;
	*chan_id = para->sqid; /* npusim: one channel per SQ, same id */
	pr_debug("npusim: chan create (devid=%u; tsid=%u; chan_id=%d; pid=%d)\n",
		 inst->devid, inst->tsid, *chan_id, current->tgid);
	return 0;
}

noinline void hal_kernel_trs_chan_destroy(struct trs_id_inst *inst, int chan_id)
{
	pr_debug("npusim: chan destroy (devid=%u; tsid=%u; chan_id=%d)\n",
		 inst->devid, inst->tsid, chan_id);
}

/* Stream @s (id assigned, in the device table) gets its channel. */
static void npusim_stream_chan_create(struct npusim_stream *s)
{
	struct trs_id_inst inst = { .devid = s->dev->id, .tsid = 0 };
	struct trs_chan_para para = {
		.sqid = s->id,
		.cqid = s->id,
		.types = { TRS_CHAN_TYPE_HW, TRS_CHAN_SUB_TYPE_HW_RTS },
		.sq_para = { .sq_depth = s->depth,
			     .sqe_size = NPUSIM_SQE_SIZE },
		.cq_para = { .cq_depth = s->depth,
			     .cqe_size = NPUSIM_CQE_SIZE },
	};
	int chan_id;

	para.msg[0] = s->id; /* the stream id, as info[0] of TRS_SQCQ_ALLOC */
	if (!hal_kernel_trs_chan_create(&inst, &para, &chan_id))
		WRITE_ONCE(s->tgid, current->tgid);
}

static void npusim_stream_chan_destroy(struct npusim_stream *s)
{
	struct trs_id_inst inst = { .devid = s->dev->id, .tsid = 0 };

	hal_kernel_trs_chan_destroy(&inst, s->id);
	WRITE_ONCE(s->tgid, 0);
}

static int npusim_ioc_stream_create(struct npusim_file *f, void __user *uarg)
{
	struct npusim_stream_create a;
	struct npusim_stream *s;
	struct npusim_dev *dev = f->dev;
	unsigned long flags;
	u32 id;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.flags || a.rsv[0] || a.rsv[1] || a.rsv[2])
		return -EINVAL;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	kref_init(&s->ref);
	s->depth = npusim_sq_depth;
	s->sq = kvcalloc(s->depth, sizeof(*s->sq), GFP_KERNEL);
	s->model = kvcalloc(s->depth, sizeof(*s->model), GFP_KERNEL);
	s->cq = kvcalloc(s->depth, sizeof(*s->cq), GFP_KERNEL);
	if (!s->sq || !s->model || !s->cq) {
		npusim_stream_put(s);
		return -ENOMEM;
	}
	s->dev = dev;
	s->owner = f;
	INIT_LIST_HEAD(&s->active_node);
	mutex_init(&s->recv_lock);
	init_waitqueue_head(&s->wq);
	s->mode = dev->send_mode;
	if (s->mode != NPUSIM_SEND_KIO && npusim_uio_create(s))
		s->mode = NPUSIM_SEND_KIO; /* as the driver when mapping fails */

	spin_lock_irqsave(&npusim_lock, flags);
	for (id = 0; id < npusim_max_streams; id++)
		if (!dev->streams[id])
			break;
	if (id < npusim_max_streams) {
		s->id = id;
		dev->streams[id] = s;
	}
	spin_unlock_irqrestore(&npusim_lock, flags);
	if (id >= npusim_max_streams) {
		npusim_stream_put(s);
		return -ENOSPC;
	}
	npusim_stream_chan_create(s);

	a.stream_id = id;
	a.sq_id = id;
	a.cq_id = id;
	a.sq_depth = s->depth;
	if (copy_to_user(uarg, &a, sizeof(a))) {
		/* the stream stays with the file and is freed on close */
		return -EFAULT;
	}
	return 0;
}

/*
 * Tear a stream down: drop its queued tasks, wait for the one running on the
 * device to finish (bounded by NPUSIM_MAX_TASK_NS), unlink it and drop the
 * table's reference. The caller holds its own reference.
 */
static void npusim_stream_cancel(struct npusim_stream *s)
{
	struct npusim_dev *dev = s->dev;
	unsigned long flags;

	spin_lock_irqsave(&npusim_lock, flags);
	s->dead = true;
	npusim_event_unqueue_locked(s, s->head + (s->running ? 1 : 0), s->tail);
	s->tail = s->head + (s->running ? 1 : 0);
	npusim_schedule_locked(); /* releases a task held by an injected stall */
	spin_unlock_irqrestore(&npusim_lock, flags);
	wake_up_all(&s->wq);
	if (s->uio)
		npusim_uio_cancel(s); /* no forwarding after this */

	wait_event(s->wq, !READ_ONCE(s->running));

	spin_lock_irqsave(&npusim_lock, flags);
	if (s->active) {
		list_del_init(&s->active_node);
		s->active = false;
	}
	if (dev->streams[s->id] == s)
		dev->streams[s->id] = NULL;
	spin_unlock_irqrestore(&npusim_lock, flags);
	npusim_stream_chan_destroy(s);
	npusim_stream_put(s); /* the table's reference */
}

/* Nothing queued: not in the SQ, and not in a soft queue still to forward. */
static bool npusim_stream_idle(struct npusim_stream *s)
{
	return (READ_ONCE(s->head) == READ_ONCE(s->tail) &&
		!npusim_uio_pending(s)) ||
	       READ_ONCE(s->dead);
}

static long npusim_wait(struct npusim_stream *s, s32 timeout_ms,
			bool (*cond)(struct npusim_stream *))
{
	long r;

	if (timeout_ms < 0) {
		r = wait_event_interruptible(s->wq, cond(s));
		return r ? r : 1;
	}
	r = wait_event_interruptible_timeout(s->wq, cond(s),
					     msecs_to_jiffies(timeout_ms));
	return r; /* 0: timed out, < 0: signal, > 0: condition */
}

static int npusim_ioc_stream_destroy(struct npusim_file *f, void __user *uarg)
{
	struct npusim_stream_destroy a;
	struct npusim_stream *s;
	long r;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.rsv || (a.flags & ~NPUSIM_DESTROY_CANCEL))
		return -EINVAL;
	s = npusim_stream_get(f, a.stream_id);
	if (!s)
		return -EINVAL;
	if (!(a.flags & NPUSIM_DESTROY_CANCEL)) {
		r = npusim_wait(s, a.timeout_ms, npusim_stream_idle);
		if (r <= 0) {
			npusim_stream_put(s);
			return r ? r : -EBUSY;
		}
	}
	npusim_stream_cancel(s);
	npusim_stream_put(s);
	return 0;
}

static bool npusim_sq_has_room(struct npusim_stream *s, u32 n)
{
	return s->depth - (READ_ONCE(s->tail) - READ_ONCE(s->head)) >= n ||
	       READ_ONCE(s->dead);
}

static int npusim_ioc_sq_send(struct npusim_file *f, void __user *uarg)
{
	struct npusim_sq_send a;
	struct npusim_task_model *models = NULL;
	struct npusim_stream *s;
	struct npusim_sqe *buf;
	unsigned long flags;
	u32 i, pos = 0;
	long r;
	int ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.rsv[0] || a.rsv[1])
		return -EINVAL;
	if (!a.sqe_num || a.sqe_num > NPUSIM_SEND_MAX ||
	    a.sqe_num > npusim_sq_depth)
		return -EINVAL;
	buf = kvmalloc_array(a.sqe_num, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (copy_from_user(buf, u64_to_user_ptr(a.sqe_addr),
			   (size_t)a.sqe_num * sizeof(*buf))) {
		ret = -EFAULT;
		goto out_free;
	}
	if (a.model_addr) { /* the simulator's side channel */
		models = kvmalloc_array(a.sqe_num, sizeof(*models), GFP_KERNEL);
		if (!models) {
			ret = -ENOMEM;
			goto out_free;
		}
		if (copy_from_user(models, u64_to_user_ptr(a.model_addr),
				   (size_t)a.sqe_num * sizeof(*models))) {
			ret = -EFAULT;
			goto out_free;
		}
	}
	for (i = 0; i < a.sqe_num; i++) {
		ret = npusim_sqe_validate(&buf[i], a.stream_id);
		if (!ret && models)
			ret = npusim_model_validate(&buf[i], &models[i]);
		if (ret)
			goto out_free;
	}
	s = npusim_stream_get(f, a.stream_id);
	if (!s) {
		ret = -EINVAL;
		goto out_free;
	}

	for (;;) {
		spin_lock_irqsave(&npusim_lock, flags);
		if (s->dead) {
			spin_unlock_irqrestore(&npusim_lock, flags);
			ret = -EINVAL;
			goto out_put;
		}
		if (s->depth - (s->tail - s->head) >= a.sqe_num)
			break;
		spin_unlock_irqrestore(&npusim_lock, flags);
		if (!a.timeout_ms) {
			ret = -EBUSY;
			goto out_put;
		}
		/* wait for room for the whole batch */
		if (a.timeout_ms < 0) {
			r = wait_event_interruptible(
				s->wq, npusim_sq_has_room(s, a.sqe_num));
			r = r ? r : 1;
		} else {
			r = wait_event_interruptible_timeout(
				s->wq, npusim_sq_has_room(s, a.sqe_num),
				msecs_to_jiffies(a.timeout_ms));
		}
		if (r <= 0) {
			ret = r ? (int)r : -ETIMEDOUT;
			goto out_put;
		}
	}
	pos = s->tail & (s->depth - 1);
	npusim_sq_fill_locked(s, buf, models, a.sqe_num, true);
	spin_unlock_irqrestore(&npusim_lock, flags);

	a.pos = pos;
	ret = copy_to_user(uarg, &a, sizeof(a)) ? -EFAULT : 0;
out_put:
	npusim_stream_put(s);
out_free:
	kvfree(models);
	kvfree(buf);
	return ret;
}

/*
 * Something to receive (none while an injected fault stops the host's
 * consumer), or the stream is gone.
 */
static bool npusim_cq_ready(struct npusim_stream *s)
{
	return (READ_ONCE(s->cq_tail) != READ_ONCE(s->cq_head) &&
		!npusim_fault_cq_stopped(s)) ||
	       READ_ONCE(s->dead);
}

static int npusim_ioc_cq_recv(struct npusim_file *f, void __user *uarg)
{
	struct npusim_cq_recv a;
	struct npusim_stream *s;
	struct npusim_cqe *buf;
	unsigned long flags;
	u32 i, n = 0, head;
	long r;
	int ret = 0;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.rsv[0] || a.rsv[1] || a.rsv[2] || a.rsv[3])
		return -EINVAL;
	if (!a.cqe_num || a.cqe_num > NPUSIM_RECV_MAX)
		return -EINVAL;
	if (!a.cqe_addr || !access_ok(u64_to_user_ptr(a.cqe_addr),
				      (size_t)a.cqe_num * sizeof(*buf)))
		return -EFAULT;
	s = npusim_stream_get(f, a.stream_id);
	if (!s)
		return -EINVAL;
	buf = kvmalloc_array(a.cqe_num, sizeof(*buf), GFP_KERNEL);
	if (!buf) {
		ret = -ENOMEM;
		goto out_put;
	}
	if (mutex_lock_interruptible(&s->recv_lock)) {
		ret = -ERESTARTSYS;
		goto out_free;
	}
	spin_lock_irqsave(&npusim_lock, flags);
	npusim_trace_recv(s, TRS_CHAN_STR_RECV_START, a.cqe_num, 0,
			  a.timeout_ms);
	spin_unlock_irqrestore(&npusim_lock, flags);

	if (a.timeout_ms) {
		r = npusim_wait(s, a.timeout_ms, npusim_cq_ready);
		if (r < 0) {
			ret = r;
			goto out_unlock;
		}
	}

	/* copy out first, consume only what reached the user */
	spin_lock_irqsave(&npusim_lock, flags);
	head = s->cq_head;
	n = npusim_fault_cq_stopped(s) ? 0 : min(s->cq_tail - head, a.cqe_num);
	for (i = 0; i < n; i++)
		buf[i] = s->cq[(head + i) & (s->depth - 1)];
	spin_unlock_irqrestore(&npusim_lock, flags);
	if (n && copy_to_user(u64_to_user_ptr(a.cqe_addr), buf,
			      (size_t)n * sizeof(*buf))) {
		ret = -EFAULT;
		n = 0;
		goto out_unlock;
	}
	spin_lock_irqsave(&npusim_lock, flags);
	for (i = 0; i < n; i++)
		npusim_trace_recv_cqe(s, head + i);
	s->cq_head = head + n;
	npusim_trace_recv(s, TRS_CHAN_STR_RECV_FINISH, a.cqe_num, n,
			  a.timeout_ms);
	if (n && npusim_cq_hold)
		npusim_schedule_locked(); /* a task held for CQ room goes on */
	spin_unlock_irqrestore(&npusim_lock, flags);

	if (!n && a.timeout_ms > 0)
		ret = -ETIMEDOUT;
	a.recv_num = n;
	if (!ret && copy_to_user(uarg, &a, sizeof(a)))
		ret = -EFAULT;
out_unlock:
	mutex_unlock(&s->recv_lock);
out_free:
	kvfree(buf);
out_put:
	npusim_stream_put(s);
	return ret;
}

/*
 * Bind stream @a.stream_id to logic CQ @a.cq_id of the same file, or
 * unbind it (halResourceConfig with DRV_STREAM_BIND_LOGIC_CQ /
 * DRV_STREAM_UNBIND_LOGIC_CQ; hicann/driver trs_res_mng.c trs_stream_cfg):
 * a stream or logic CQ that is not the file's is -EINVAL, another property
 * -EOPNOTSUPP. A bound stream's next CQEs go to the logic CQ; a second
 * bind moves them to the new one.
 */
static int npusim_ioc_stream_logic_cq(struct npusim_file *f, void __user *uarg)
{
	struct npusim_stream_logic_cq a;
	struct npusim_logic_cq *cq = NULL, *old;
	struct npusim_stream *s;
	unsigned long flags;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.rsv)
		return -EINVAL;
	s = npusim_stream_get(f, a.stream_id);
	if (!s)
		return -EINVAL;
	if (a.prop == NPUSIM_STREAM_BIND_LOGIC_CQ) {
		cq = npusim_logic_cq_get(f, a.cq_id);
		if (!cq) {
			npusim_stream_put(s);
			return -EINVAL;
		}
	} else if (a.prop != NPUSIM_STREAM_UNBIND_LOGIC_CQ) {
		npusim_stream_put(s);
		return -EOPNOTSUPP;
	}
	spin_lock_irqsave(&npusim_lock, flags);
	old = s->lcq;
	s->lcq = cq; /* the stream takes the reference */
	spin_unlock_irqrestore(&npusim_lock, flags);
	if (old)
		npusim_logic_cq_put(old);
	npusim_stream_put(s);
	return 0;
}

static int npusim_ioc_stream_sync(struct npusim_file *f, void __user *uarg)
{
	struct npusim_stream_sync a;
	struct npusim_stream *s;
	long r;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	s = npusim_stream_get(f, a.stream_id);
	if (!s)
		return -EINVAL;
	r = npusim_wait(s, a.timeout_ms, npusim_stream_idle);
	npusim_stream_put(s);
	if (r == 0)
		return -ETIMEDOUT;
	return r < 0 ? r : 0;
}

static int npusim_ioc_stream_status(struct npusim_file *f, void __user *uarg)
{
	struct npusim_stream_status a;
	struct npusim_stream *s;
	unsigned long flags;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	s = npusim_stream_get(f, a.stream_id);
	if (!s)
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	spin_lock_irqsave(&npusim_lock, flags);
	a.stream_id = s->id;
	a.sq_head = s->head & (s->depth - 1);
	a.sq_tail = s->tail & (s->depth - 1);
	a.queued = s->tail - s->head;
	a.running = s->running;
	a.cq_pending = s->cq_tail - s->cq_head;
	a.completed = s->completed;
	a.cq_overflow = s->cq_overflow;
	a.head_start_ns = s->running ? s->start_ns : 0;
	spin_unlock_irqrestore(&npusim_lock, flags);
	npusim_stream_put(s);
	return copy_to_user(uarg, &a, sizeof(a)) ? -EFAULT : 0;
}

static int npusim_ioc_clock_sync(struct npusim_file *f, void __user *uarg)
{
	struct npusim_clock_sync *a;
	unsigned long flags;
	u32 i;
	int ret = 0;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	if (copy_from_user(a, uarg, sizeof(*a))) {
		ret = -EFAULT;
		goto out;
	}
	if (!a->count || a->count > NPUSIM_CLOCK_SAMPLES_MAX || a->rsv) {
		ret = -EINVAL;
		goto out;
	}
	for (i = 0; i < a->count; i++) {
		/* read the device counter as a separate register access */
		local_irq_save(flags);
		a->samples[i].host_ns = ktime_get_ns();
		a->samples[i].dev_cnt = npusim_dev_counter(f->dev,
							   ktime_get_ns());
		local_irq_restore(flags);
	}
	if (copy_to_user(uarg, a, sizeof(*a)))
		ret = -EFAULT;
out:
	kfree(a);
	return ret;
}

/*
 * Event @id loses its owner (@owner) or one open: it stays allocated while
 * another file has it open (a shared event outlives its owner's free, as
 * the driver's shared ids do) and is freed with the last of them.
 */
static void npusim_event_put_locked(struct npusim_dev *dev, u32 id, bool owner)
{
	if (owner) {
		__clear_bit(id, dev->event_shared);
		if (dev->event_opens[id])
			__set_bit(id, dev->event_orphan);
		else
			__clear_bit(id, dev->event_used);
		return;
	}
	if (dev->event_opens[id] && !--dev->event_opens[id] &&
	    test_bit(id, dev->event_orphan)) {
		__clear_bit(id, dev->event_orphan);
		__clear_bit(id, dev->event_used);
	}
}

/* NPUSIM_IOC_SHR_ID: share, open, close or stop sharing an event id. */
static int npusim_ioc_shr_id(struct npusim_file *f, void __user *uarg)
{
	struct npusim_dev *dev = f->dev;
	struct npusim_shr_id a;
	unsigned long flags;
	int ret = 0;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.kind != NPUSIM_ID_EVENT || a.id >= NPUSIM_MAX_EVENTS ||
	    a.op > NPUSIM_SHR_DESTROY)
		return -EINVAL;
	spin_lock_irqsave(&npusim_lock, flags);
	switch (a.op) {
	case NPUSIM_SHR_CREATE:
	case NPUSIM_SHR_DESTROY:
		if (!test_bit(a.id, f->events)) {
			ret = -EINVAL; /* not this file's */
		} else if (a.op == NPUSIM_SHR_CREATE) {
			__set_bit(a.id, dev->event_shared);
			a.gen = dev->event_gen[a.id];
		} else {
			__clear_bit(a.id, dev->event_shared);
		}
		break;
	case NPUSIM_SHR_OPEN:
		if (!test_bit(a.id, dev->event_shared) ||
		    dev->event_gen[a.id] != a.gen)
			ret = -ENOENT; /* not shared, or freed and given again */
		else if (test_bit(a.id, f->events_opened))
			ret = -EEXIST;
		else if (dev->event_opens[a.id] == U16_MAX)
			ret = -ENOSPC;
		else {
			__set_bit(a.id, f->events_opened);
			dev->event_opens[a.id]++;
		}
		break;
	case NPUSIM_SHR_CLOSE:
		if (!test_bit(a.id, f->events_opened) ||
		    dev->event_gen[a.id] != a.gen) {
			ret = -ENOENT;
		} else {
			__clear_bit(a.id, f->events_opened);
			npusim_event_put_locked(dev, a.id, false);
		}
		break;
	}
	spin_unlock_irqrestore(&npusim_lock, flags);
	if (!ret && a.op == NPUSIM_SHR_CREATE &&
	    copy_to_user(uarg, &a, sizeof(a)))
		return -EFAULT;
	return ret;
}

/* NPUSIM_IOC_EVENT_STATUS: any file of the device reads an event's state
 * (its records may come from any process). */
static int npusim_ioc_event_status(struct npusim_file *f, void __user *uarg)
{
	struct npusim_event_status a;
	unsigned long flags;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.id >= NPUSIM_MAX_EVENTS || a.rsv)
		return -EINVAL;
	spin_lock_irqsave(&npusim_lock, flags);
	a.pending = f->dev->event_pending[a.id];
	a.set = f->dev->event_set[a.id];
	spin_unlock_irqrestore(&npusim_lock, flags);
	return copy_to_user(uarg, &a, sizeof(a)) ? -EFAULT : 0;
}

static int npusim_ioc_id(struct npusim_file *f, void __user *uarg, bool alloc)
{
	struct npusim_dev *dev = f->dev;
	struct npusim_id a;
	unsigned long *used, *mine;
	u8 *state;
	unsigned long flags;
	u32 max;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.kind == NPUSIM_ID_EVENT) {
		used = dev->event_used;
		mine = f->events;
		state = dev->event_set;
		max = NPUSIM_MAX_EVENTS;
	} else if (a.kind == NPUSIM_ID_NOTIFY) {
		used = dev->notify_used;
		mine = f->notifies;
		state = dev->notify_set;
		max = NPUSIM_MAX_NOTIFIES;
	} else {
		return -EINVAL;
	}
	spin_lock_irqsave(&npusim_lock, flags);
	if (alloc) {
		a.id = find_first_zero_bit(used, max);
		if (a.id >= max) {
			spin_unlock_irqrestore(&npusim_lock, flags);
			return -ENOSPC;
		}
		__set_bit(a.id, used);
		__set_bit(a.id, mine);
		state[a.id] = 0;
		if (a.kind == NPUSIM_ID_EVENT)
			dev->event_gen[a.id]++;
	} else {
		if (a.id >= max || !test_bit(a.id, mine)) {
			spin_unlock_irqrestore(&npusim_lock, flags);
			return -EINVAL;
		}
		__clear_bit(a.id, mine);
		if (a.kind == NPUSIM_ID_EVENT)
			npusim_event_put_locked(dev, a.id, true);
		else
			__clear_bit(a.id, used);
	}
	spin_unlock_irqrestore(&npusim_lock, flags);
	if (alloc && copy_to_user(uarg, &a, sizeof(a)))
		return -EFAULT; /* the id stays owned by the file */
	return 0;
}

/* The host records an event / notify id it owns (NPUSIM_IOC_ID_RECORD). */
static int npusim_ioc_id_record(struct npusim_file *f, void __user *uarg)
{
	struct npusim_dev *dev = f->dev;
	struct npusim_id a;
	unsigned long flags;
	u64 *ns;
	u8 *state;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.kind == NPUSIM_ID_EVENT && a.id < NPUSIM_MAX_EVENTS &&
	    test_bit(a.id, f->events)) {
		state = dev->event_set;
		ns = dev->event_ns;
	} else if (a.kind == NPUSIM_ID_NOTIFY && a.id < NPUSIM_MAX_NOTIFIES &&
		   test_bit(a.id, f->notifies)) {
		state = dev->notify_set;
		ns = dev->notify_ns;
	} else {
		return -EINVAL;
	}
	spin_lock_irqsave(&npusim_lock, flags);
	state[a.id] = 1;
	ns[a.id] = ktime_get_ns();
	npusim_schedule_locked();
	spin_unlock_irqrestore(&npusim_lock, flags);
	return 0;
}

static int npusim_ioc_dev_info(struct npusim_file *f, void __user *uarg)
{
	struct npusim_dev_info a;

	memset(&a, 0, sizeof(a));
	a.abi_version = NPUSIM_ABI_VERSION;
	a.devid = f->dev->id;
	strscpy(a.chip_name, NPUSIM_CHIP_NAME, sizeof(a.chip_name));
	a.aicore_num = npusim_aicores;
	a.aivector_num = 2 * npusim_aicores;
	a.aicpu_num = npusim_aicpus;
	a.sq_depth = npusim_sq_depth;
	a.max_streams = npusim_max_streams;
	a.cqe_mode = npusim_cqe_mode;
	a.counter_hz = (u64)npusim_counter_mhz * 1000000ULL;
	a.num_devices = npusim_ndev;
	a.sq_send_mode = f->dev->send_mode;
	a.aicore_mhz = npusim_aicore_mhz;
	a.aicore_cur_mhz = npusim_aicore_cur_mhz(f->dev);
	return copy_to_user(uarg, &a, sizeof(a)) ? -EFAULT : 0;
}

static long npusim_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct npusim_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case NPUSIM_IOC_DEV_INFO: return npusim_ioc_dev_info(f, uarg);
	case NPUSIM_IOC_STREAM_CREATE: return npusim_ioc_stream_create(f, uarg);
	case NPUSIM_IOC_STREAM_DESTROY:
		return npusim_ioc_stream_destroy(f, uarg);
	case NPUSIM_IOC_SQ_SEND: return npusim_ioc_sq_send(f, uarg);
	case NPUSIM_IOC_CQ_RECV: return npusim_ioc_cq_recv(f, uarg);
	case NPUSIM_IOC_STREAM_SYNC: return npusim_ioc_stream_sync(f, uarg);
	case NPUSIM_IOC_CLOCK_SYNC: return npusim_ioc_clock_sync(f, uarg);
	case NPUSIM_IOC_ID_ALLOC: return npusim_ioc_id(f, uarg, true);
	case NPUSIM_IOC_ID_FREE: return npusim_ioc_id(f, uarg, false);
	case NPUSIM_IOC_STREAM_STATUS: return npusim_ioc_stream_status(f, uarg);
	case NPUSIM_IOC_ID_RECORD: return npusim_ioc_id_record(f, uarg);
	case NPUSIM_IOC_SQ_UIO_INFO: return npusim_ioc_sq_uio_info(f, uarg);
	case NPUSIM_IOC_SQ_TRIGGER: return npusim_ioc_sq_trigger(f, uarg);
	case NPUSIM_IOC_PROF_START: return npusim_ioc_prof_start(f, uarg);
	case NPUSIM_IOC_PROF_READ: return npusim_ioc_prof_read(f, uarg);
	case NPUSIM_IOC_PROF_STOP: return npusim_ioc_prof_stop(f, uarg);
	case NPUSIM_IOC_LOGIC_CQ_ALLOC:
		return npusim_ioc_logic_cq_alloc(f, uarg);
	case NPUSIM_IOC_LOGIC_CQ_FREE: return npusim_ioc_logic_cq_free(f, uarg);
	case NPUSIM_IOC_STREAM_LOGIC_CQ:
		return npusim_ioc_stream_logic_cq(f, uarg);
	case NPUSIM_IOC_LOGIC_CQ_RECV: return npusim_ioc_logic_cq_recv(f, uarg);
	case NPUSIM_IOC_SHR_ID: return npusim_ioc_shr_id(f, uarg);
	case NPUSIM_IOC_EVENT_STATUS: return npusim_ioc_event_status(f, uarg);
	default: return -ENOTTY;
	}
}

static int npusim_open(struct inode *inode, struct file *file)
{
	struct npusim_dev *dev = container_of(inode->i_cdev, struct npusim_dev,
					      cdev);
	struct npusim_file *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->dev = dev;
	file->private_data = f;
	return 0;
}

static int npusim_release(struct inode *inode, struct file *file)
{
	struct npusim_file *f = file->private_data;
	struct npusim_dev *dev = f->dev;
	struct npusim_stream *s;
	unsigned long flags;
	unsigned int id, bit;

	npusim_stars_release(f);
	/* cancel every stream of this file, one at a time */
	for (id = 0; id < npusim_max_streams; id++) {
		spin_lock_irqsave(&npusim_lock, flags);
		s = dev->streams[id];
		if (s && s->owner == f)
			kref_get(&s->ref);
		else
			s = NULL;
		spin_unlock_irqrestore(&npusim_lock, flags);
		if (!s)
			continue;
		npusim_stream_cancel(s);
		npusim_stream_put(s);
	}
	npusim_logic_cq_release(f); /* its streams are gone */
	spin_lock_irqsave(&npusim_lock, flags);
	for_each_set_bit(bit, f->events, NPUSIM_MAX_EVENTS)
		npusim_event_put_locked(dev, bit, true);
	for_each_set_bit(bit, f->events_opened, NPUSIM_MAX_EVENTS)
		npusim_event_put_locked(dev, bit, false);
	for_each_set_bit(bit, f->notifies, NPUSIM_MAX_NOTIFIES)
		__clear_bit(bit, dev->notify_used);
	spin_unlock_irqrestore(&npusim_lock, flags);
	kfree(f);
	return 0;
}

static int npusim_mmap(struct file *file, struct vm_area_struct *vma)
{
	return npusim_uio_mmap(file->private_data, vma);
}

static const struct file_operations npusim_fops = {
	.owner = THIS_MODULE,
	.open = npusim_open,
	.release = npusim_release,
	.mmap = npusim_mmap,
	.unlocked_ioctl = npusim_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static char *npusim_devnode(struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0660;
	return NULL;
}

static void npusim_destroy_devices(void)
{
	unsigned int d;

	for (d = 0; d < NPUSIM_MAX_DEVICES; d++) {
		struct npusim_dev *dev = npusim_devs[d];

		if (!dev)
			continue;
		if (dev->device)
			device_destroy(npusim_class,
				       MKDEV(MAJOR(npusim_devt), d));
		cdev_del(&dev->cdev);
		npusim_uio_dev_exit(dev);
		npusim_logic_cq_dev_exit(dev);
		kvfree(dev->streams);
		kvfree(dev);
		npusim_devs[d] = NULL;
	}
}

static int npusim_create_device(unsigned int d)
{
	struct npusim_dev *dev;
	int ret;

	dev = kvzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	npusim_devs[d] = dev;
	dev->id = d;
	dev->trace_enable = npusim_trace_default;
	dev->core_trace_enable = npusim_trace_default;
	dev->aic_free = npusim_aicores;
	dev->aiv_free = 2 * npusim_aicores;
	dev->aicpu_free = npusim_aicpus;
	/* each device booted at a different time: counters have offsets */
	dev->cnt_offset_ns = 1000000000ULL * (d + 1) * 1117 + 123456789ULL * d;
	INIT_LIST_HEAD(&dev->active);
	dev->streams = kvcalloc(npusim_max_streams, sizeof(*dev->streams),
				GFP_KERNEL);
	if (!dev->streams)
		return -ENOMEM;
	npusim_stars_dev_init(dev);
	npusim_lp_dev_init(dev);
	ret = npusim_logic_cq_dev_init(dev);
	if (ret)
		return ret;
	dev->send_mode = npusim_param_send_mode(d);
	ret = npusim_uio_dev_init(dev);
	if (ret)
		return ret;
	cdev_init(&dev->cdev, &npusim_fops);
	dev->cdev.owner = THIS_MODULE;
	ret = cdev_add(&dev->cdev, MKDEV(MAJOR(npusim_devt), d), 1);
	if (ret)
		return ret;
	dev->device = device_create(npusim_class, NULL,
				    MKDEV(MAJOR(npusim_devt), d), dev,
				    "npusim%u", d);
	if (IS_ERR(dev->device)) {
		ret = PTR_ERR(dev->device);
		dev->device = NULL;
		return ret;
	}
	return npusim_procfs_add(dev);
}

static int __init npusim_init(void)
{
	unsigned int d;
	int ret;

	BUILD_BUG_ON(sizeof(struct npusim_sqe) != NPUSIM_SQE_SIZE);
	BUILD_BUG_ON(sizeof(struct npusim_task_model) != 32);
	BUILD_BUG_ON(sizeof(struct npusim_cqe) != NPUSIM_CQE_SIZE);
	BUILD_BUG_ON(sizeof(struct trs_chan_sq_trace) != 40);
	BUILD_BUG_ON(sizeof(struct trs_chan_cq_trace) != 40);
	BUILD_BUG_ON(sizeof(struct trs_chan_recv_trace) != 32);
	BUILD_BUG_ON(sizeof(struct npusim_logic_cqe) != NPUSIM_LOGIC_CQE_SIZE);
	BUILD_BUG_ON(sizeof(struct trs_logic_cqe_trace) != 56);
	BUILD_BUG_ON(sizeof(struct trs_logic_cq_recv_trace_t) != 12);

	ret = npusim_params_valid();
	if (ret) {
		pr_err("npusim: invalid module parameters\n");
		return ret;
	}
	npusim_sched_init();
	ret = alloc_chrdev_region(&npusim_devt, 0, NPUSIM_MAX_DEVICES,
				  "npusim");
	if (ret)
		return ret;
	npusim_class = class_create(THIS_MODULE, "npusim");
	if (IS_ERR(npusim_class)) {
		ret = PTR_ERR(npusim_class);
		goto err_region;
	}
	npusim_class->devnode = npusim_devnode;
	ret = npusim_procfs_init();
	if (ret)
		goto err_class;
	for (d = 0; d < npusim_ndev; d++) {
		ret = npusim_create_device(d);
		if (ret)
			goto err_devices;
	}
	pr_info("npusim: %u x %s, %u AI cores, sq_depth %u, cqe_mode %u, sq_send_mode %s\n",
		npusim_ndev, NPUSIM_CHIP_NAME, npusim_aicores, npusim_sq_depth,
		npusim_cqe_mode,
		npusim_send_mode_names[npusim_param_send_mode(0)]);
	return 0;

err_devices:
	npusim_procfs_exit();
	npusim_destroy_devices();
err_class:
	class_destroy(npusim_class);
err_region:
	unregister_chrdev_region(npusim_devt, NPUSIM_MAX_DEVICES);
	return ret;
}

static void __exit npusim_exit(void)
{
	/* the device timer first: it walks every device's active streams and
	 * may still be armed for a task of a stream already destroyed; fired
	 * after the devices are freed it would walk freed memory. No file is
	 * open, so nothing arms it again. */
	npusim_sched_exit();
	npusim_procfs_exit();
	npusim_destroy_devices();
	class_destroy(npusim_class);
	unregister_chrdev_region(npusim_devt, NPUSIM_MAX_DEVICES);
}

module_init(npusim_init);
module_exit(npusim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION(
	"npusim: simulated Ascend NPU driver with the trs_chan tracepoint ABI");
