// SPDX-License-Identifier: GPL-2.0
/*
 * Logic CQs: the driver's software report queues of a 910B (uapi/npusim.h,
 * "The logic CQ"; hicann/driver src/sdk_driver/trsdrv/trs/trs_core/
 * trs_logic_cq.c, trs_hw_sqcq.c).
 *
 * A process allocates logic CQs on its device file and binds streams to
 * them. From then on the device model's CQEs of a bound stream come here
 * (npusim_logic_cq_take_locked, what the real driver's cq_recv op
 * trs_hw_cq_recv does): each is converted into a 32-byte logic CQE
 * (trs_stars_cqe_to_logic_cqe), one with drop_flag is discarded
 * (is_drop_cqe), and the others are appended to the logic CQ
 * (trs_logic_cq_enque); a full or freed logic CQ loses the CQE, which is
 * counted. A receive hands out one run of logic CQEs from the head, where
 * a match CQE (its task's SQE had the sync-task flag) goes only to the
 * receive that names its stream and task (trs_logic_cq_recv).
 *
 * Locking: a logic CQ's ring and counters are under its own spinlock,
 * taken inside npusim_lock by the producer (the device model, with
 * interrupts off) and alone by everything else; receivers are serialised
 * by its recv_lock, and only they move the head, so what a receiver copied
 * out stays in place until it commits (the producer writes at the tail
 * only). The id table is under the device's lcq_lock. A logic CQ is
 * reference counted: the table, each stream bound to it and each call in
 * progress hold one; a freed one stays valid = false until the last goes,
 * and its streams' CQEs are lost (counted in lcq_freed_drop).
 */
#include <linux/jiffies.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "npusim.h"

struct npusim_logic_cq {
	struct kref ref;
	struct npusim_dev *dev;
	struct npusim_file *owner;
	u32 id;
	u32 depth; /* slots; holds depth - 1 logic CQEs */
	u32 cqe_size; /* bytes of each logic CQE a receive copies */
	spinlock_t lock;
	bool valid; /* allocated and not freed */
	u32 head, tail; /* slots, 0..depth-1 */
	struct npusim_logic_cqe *ring;
	u64 enq_seq; /* enqueues so far: what a waiting receive waits on */
	/* struct trs_logic_cq_stat */
	u64 enque, full_drop, recv, timeout;
	struct mutex recv_lock; /* one receiver at a time */
	wait_queue_head_t wq;
};

int npusim_logic_cq_dev_init(struct npusim_dev *dev)
{
	spin_lock_init(&dev->lcq_lock);
	dev->lcqs = kvcalloc(npusim_max_streams, sizeof(*dev->lcqs),
			     GFP_KERNEL);
	return dev->lcqs ? 0 : -ENOMEM;
}

/* Every file is closed by now, so every logic CQ is gone. */
void npusim_logic_cq_dev_exit(struct npusim_dev *dev)
{
	kvfree(dev->lcqs);
	dev->lcqs = NULL;
}

static void npusim_logic_cq_free_mem(struct kref *ref)
{
	struct npusim_logic_cq *cq = container_of(ref, struct npusim_logic_cq,
						  ref);

	kvfree(cq->ring);
	kfree(cq);
}

void npusim_logic_cq_put(struct npusim_logic_cq *cq)
{
	kref_put(&cq->ref, npusim_logic_cq_free_mem);
}

/* Logic CQ @id of file @f with a reference, or NULL (none, another
 * file's): the driver's trs_proc_has_res. */
struct npusim_logic_cq *npusim_logic_cq_get(struct npusim_file *f, u32 id)
{
	struct npusim_dev *dev = f->dev;
	struct npusim_logic_cq *cq;
	unsigned long flags;

	if (id >= npusim_max_streams)
		return NULL;
	spin_lock_irqsave(&dev->lcq_lock, flags);
	cq = dev->lcqs[id];
	if (cq && cq->owner == f)
		kref_get(&cq->ref);
	else
		cq = NULL;
	spin_unlock_irqrestore(&dev->lcq_lock, flags);
	return cq;
}

/* ---- the producer: a bound stream's CQEs ---------------------------------- */

/*
 * The logic CQE of a hardware CQE, field by field as
 * trs_stars_cqe_to_logic_cqe (lba/comm/adapt/stars_v1/trs_stars_cq.c
 * 116-144) fills it; the bits it leaves alone are zero here.
 */
static void npusim_logic_cqe_from_hw(const struct npusim_cqe *hw,
				     struct npusim_logic_cqe *l)
{
	u32 warn = (hw->flags & NPUSIM_CQE_WARN) ? 1 : 0;
	bool error = hw->flags & NPUSIM_CQE_ERROR;

	memset(l, 0, sizeof(*l));
	if ((hw->flags & (NPUSIM_CQE_EVT | NPUSIM_CQE_PLACE_HOLD)) && !error) {
		l->timestamp = hw->syscnt;
		l->sqe_type = (hw->flags & NPUSIM_CQE_EVT) ?
				      NPUSIM_LOGIC_CQE_RECORD :
				      NPUSIM_LOGIC_CQE_HOLDER;
		l->error_code = 0;
		l->error_type = warn << 6;
	} else {
		l->sqe_index = hw->err.sqe_index;
		l->sqe_type = hw->err.type_flags >>
			      NPUSIM_CQE_ERR_SQE_TYPE_SHIFT;
		/* error code: syscnt_high; error type: syscnt_low bits 0-5 */
		l->error_code = (u32)(hw->syscnt >> 32);
		l->error_type = (hw->syscnt & 0x3f) | (warn << 6);
		if (hw->err.type_flags & NPUSIM_CQE_ERR_DROP)
			l->flags |= NPUSIM_LOGIC_CQE_DROP;
	}
	l->stream_id = hw->stream_id & NPUSIM_STREAM_ID_MASK;
	if (hw->stream_id & NPUSIM_CQE_MATCH)
		l->flags |= NPUSIM_LOGIC_CQE_MATCH;
	l->task_id = hw->task_id;
	l->sq_id = (hw->flags >> NPUSIM_CQE_SQID_SHIFT) & NPUSIM_CQE_SQID_MASK;
	l->sq_head = hw->sq_head;
	if (error)
		l->flags |= NPUSIM_LOGIC_CQE_ERROR;
	/* the driver reads acc_error whichever the union holds */
	if (hw->err.type_flags & NPUSIM_CQE_ERR_ACC_ERROR)
		l->flags |= NPUSIM_LOGIC_CQE_ACC_ERROR;
	/* the stranded-match-CQE check's enqueue time (trs_get_s_timestamp) */
	if (l->flags & NPUSIM_LOGIC_CQE_MATCH)
		l->enque_timestamp = jiffies / HZ;
}

/*
 * trs_logic_cq_enque: @l onto @cq's tail, or lost and counted when the
 * logic CQ is full (the first loss of each logic CQ is logged) or freed.
 * Wakes the receivers. npusim_lock held (the device model).
 */
static void npusim_logic_cq_enque(struct npusim_stream *s,
				  struct npusim_logic_cq *cq,
				  const struct npusim_logic_cqe *l)
{
	u32 tail, head;

	spin_lock(&cq->lock);
	if (!cq->valid) {
		spin_unlock(&cq->lock);
		s->dev->lcq_freed_drop++;
		return;
	}
	if ((cq->tail + 1) % cq->depth == cq->head) {
		if (!cq->full_drop)
			pr_warn_ratelimited(
				"npusim: dev %u logic CQ %u full, CQE of stream %u task %u lost\n",
				cq->dev->id, cq->id, l->stream_id, l->task_id);
		cq->full_drop++;
		spin_unlock(&cq->lock);
		return;
	}
	cq->ring[cq->tail] = *l;
	cq->tail = (cq->tail + 1) % cq->depth;
	cq->enq_seq++;
	cq->enque++;
	head = cq->head;
	tail = cq->tail;
	spin_unlock(&cq->lock);
	npusim_trace_logic_cqe(cq->dev, TRS_CORE_STR_LOGIC_CQ_ENQUE, cq->id,
			       head, tail, l);
	wake_up_all(&cq->wq);
}

/*
 * The driver's cq_recv of stream @s's hardware CQE @cqe (trs_hw_cq_recv):
 * false when the stream is bound to no logic CQ (the CQE stays for the
 * stream's own CQ), else true: the CQE is consumed, enqueued on the logic
 * CQ as a logic CQE, or discarded (drop_flag) or lost, and counted.
 * npusim_lock held.
 */
bool npusim_logic_cq_take_locked(struct npusim_stream *s,
				 const struct npusim_cqe *cqe)
{
	struct npusim_logic_cqe l;

	if (!s->lcq)
		return false;
	npusim_logic_cqe_from_hw(cqe, &l);
	if (l.flags & NPUSIM_LOGIC_CQE_DROP) {
		s->dev->lcq_rx_drop++;
		return true;
	}
	npusim_logic_cq_enque(s, s->lcq, &l);
	return true;
}

/* ---- allocation ---------------------------------------------------------- */

int npusim_ioc_logic_cq_alloc(struct npusim_file *f, void __user *uarg)
{
	struct npusim_dev *dev = f->dev;
	struct npusim_logic_cq_alloc a;
	struct npusim_logic_cq *cq;
	unsigned long flags;
	u32 id, i;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	for (i = 0; i < ARRAY_SIZE(a.rsv); i++)
		if (a.rsv[i])
			return -EINVAL;
	/* trs_logic_cq_alloc_para_check */
	if (!a.cqe_depth || a.cqe_depth > NPUSIM_LOGIC_CQ_MAX_DEPTH ||
	    !a.cqe_size || a.cqe_size > NPUSIM_LOGIC_CQE_SIZE)
		return -EINVAL;
	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return -ENOMEM;
	cq->ring = kvcalloc(a.cqe_depth, sizeof(*cq->ring), GFP_KERNEL);
	if (!cq->ring) {
		kfree(cq);
		return -ENOMEM;
	}
	kref_init(&cq->ref);
	cq->dev = dev;
	cq->owner = f;
	cq->depth = a.cqe_depth;
	cq->cqe_size = a.cqe_size;
	cq->valid = true;
	spin_lock_init(&cq->lock);
	mutex_init(&cq->recv_lock);
	init_waitqueue_head(&cq->wq);

	spin_lock_irqsave(&dev->lcq_lock, flags);
	for (id = 0; id < npusim_max_streams; id++)
		if (!dev->lcqs[id])
			break;
	if (id < npusim_max_streams) {
		cq->id = id;
		dev->lcqs[id] = cq;
	}
	spin_unlock_irqrestore(&dev->lcq_lock, flags);
	if (id >= npusim_max_streams) {
		npusim_logic_cq_put(cq);
		return -ENOSPC;
	}
	a.cq_id = id;
	if (copy_to_user(uarg, &a, sizeof(a)))
		return -EFAULT; /* the logic CQ stays with the file */
	return 0;
}

/* Take @cq out of the table and invalidate it (its receivers return,
 * its streams' CQEs are lost from now on); drop the table's reference. */
static void npusim_logic_cq_remove(struct npusim_logic_cq *cq)
{
	struct npusim_dev *dev = cq->dev;
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	cq->valid = false;
	if (cq->full_drop)
		pr_info("npusim: dev %u logic CQ %u freed: %llu CQEs enqueued, %llu lost to a full queue\n",
			dev->id, cq->id, cq->enque, cq->full_drop);
	spin_unlock_irqrestore(&cq->lock, flags);
	wake_up_all(&cq->wq);
	spin_lock_irqsave(&dev->lcq_lock, flags);
	if (dev->lcqs[cq->id] == cq)
		dev->lcqs[cq->id] = NULL;
	spin_unlock_irqrestore(&dev->lcq_lock, flags);
	npusim_logic_cq_put(cq);
}

int npusim_ioc_logic_cq_free(struct npusim_file *f, void __user *uarg)
{
	struct npusim_logic_cq_free a;
	struct npusim_logic_cq *cq;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.rsv[0] || a.rsv[1] || a.rsv[2])
		return -EINVAL;
	cq = npusim_logic_cq_get(f, a.cq_id);
	if (!cq)
		return -EINVAL;
	npusim_logic_cq_remove(cq);
	npusim_logic_cq_put(cq);
	return 0;
}

/* The file is closing (its streams are gone): free its logic CQs, as the
 * driver's recycle of a process's resources does. */
void npusim_logic_cq_release(struct npusim_file *f)
{
	u32 id;

	for (id = 0; id < npusim_max_streams; id++) {
		struct npusim_logic_cq *cq = npusim_logic_cq_get(f, id);

		if (!cq)
			continue;
		npusim_logic_cq_remove(cq);
		npusim_logic_cq_put(cq);
	}
}

/* ---- the receive --------------------------------------------------------- */

/*
 * The run a match receive takes from slots [@from, @to) of @cq, which are
 * contiguous in the ring (trs_logic_cq_get_match_copy_range): consecutive
 * plain logic CQEs from the first one on, ended by a match CQE of another
 * task once begun (one before it is passed over), or closed by the match
 * CQE of @stream / @task, or by @want. Its first slot in *start; returns
 * its length (0: nothing for this receive). cq->lock held.
 */
static u32 npusim_logic_cq_match_run(const struct npusim_logic_cq *cq, u32 from,
				     u32 to, u32 want, u32 stream, u32 task,
				     u32 *start)
{
	u32 pos, n = 0;

	want = min(want, to - from);
	*start = from;
	for (pos = from; pos < to; pos++) {
		const struct npusim_logic_cqe *e = &cq->ring[pos];

		if (e->flags & NPUSIM_LOGIC_CQE_MATCH) {
			if (e->stream_id == stream && e->task_id == task) {
				if (!n)
					*start = pos;
				n++;
				break;
			}
			if (n)
				break;
		} else {
			if (!n)
				*start = pos;
			n++;
		}
		if (n >= want)
			break;
	}
	return n;
}

/*
 * What receive @a takes now: the run's first slot in *start and its length
 * (0: nothing). Version 1 searches from the head to the tail, or to the
 * end of the ring and, when that has nothing, from slot 0 to the tail;
 * version 0 takes from the head to the tail or the end of the ring.
 * cq->lock held, the logic CQ not empty.
 */
static u32 npusim_logic_cq_pick(const struct npusim_logic_cq *cq,
				const struct npusim_logic_cq_recv *a,
				u32 *start)
{
	u32 head = cq->head, tail = cq->tail, n;

	if (a->version != 1) {
		*start = head;
		n = tail > head ? tail - head : cq->depth - head;
		return min(n, a->cqe_num);
	}
	if (tail > head)
		return npusim_logic_cq_match_run(cq, head, tail, a->cqe_num,
						 a->stream_id, a->task_id,
						 start);
	n = npusim_logic_cq_match_run(cq, head, cq->depth, a->cqe_num,
				      a->stream_id, a->task_id, start);
	if (!n)
		n = npusim_logic_cq_match_run(cq, 0, tail, a->cqe_num,
					      a->stream_id, a->task_id, start);
	return n;
}

/*
 * The logic CQEs of [@start, @start + @n) were handed out: the ones the
 * receive passed over between the head and @start move up behind them, in
 * order (trs_logic_cq_eliminate_holes), and the head moves on by @n.
 * cq->lock held.
 */
static void npusim_logic_cq_consume(struct npusim_logic_cq *cq, u32 start,
				    u32 n)
{
	u32 skipped = (start + cq->depth - cq->head) % cq->depth, i;

	for (i = skipped; i > 0; i--)
		cq->ring[(cq->head + i - 1 + n) % cq->depth] =
			cq->ring[(cq->head + i - 1) % cq->depth];
	cq->head = (cq->head + n) % cq->depth;
}

static int npusim_logic_cq_copy_report(struct npusim_logic_cq *cq,
				       struct npusim_logic_cq_recv *a, u8 *buf,
				       u64 *seq)
{
	unsigned long flags;
	u32 start, n, i, head, tail;

	spin_lock_irqsave(&cq->lock, flags);
	*seq = cq->enq_seq;
	if (!cq->valid) {
		spin_unlock_irqrestore(&cq->lock, flags);
		return -EFAULT;
	}
	head = cq->head;
	tail = cq->tail;
	n = head == tail ? 0 : npusim_logic_cq_pick(cq, a, &start);
	for (i = 0; i < n; i++)
		memcpy(buf + (size_t)i * cq->cqe_size, &cq->ring[start + i],
		       cq->cqe_size);
	spin_unlock_irqrestore(&cq->lock, flags);
	if (!n)
		return -EAGAIN;
	/* the run stays in place until this receiver commits */
	npusim_trace_logic_cq_copy(cq->dev,
				   a->version == 1 ? TRS_CORE_STR_RECV_MATCH :
						     TRS_CORE_STR_RECV_NOMATCH,
				   cq->id, head, tail, cq->ring + start, n);
	if (copy_to_user(u64_to_user_ptr(a->cqe_addr), buf,
			 (size_t)n * cq->cqe_size))
		return -EFAULT;
	/* only receivers move the head: the run is where it was */
	spin_lock_irqsave(&cq->lock, flags);
	npusim_logic_cq_consume(cq, start, n);
	cq->recv++;
	spin_unlock_irqrestore(&cq->lock, flags);
	a->recv_num = n;
	return 0;
}

int npusim_ioc_logic_cq_recv(struct npusim_file *f, void __user *uarg)
{
	struct npusim_logic_cq_recv a;
	struct npusim_logic_cq *cq;
	u8 *buf;
	u64 seq;
	long r;
	int ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.rsv[0] || a.rsv[1] || a.rsv[2])
		return -EINVAL;
	cq = npusim_logic_cq_get(f, a.cq_id);
	if (!cq)
		return -EINVAL; /* not the process's logic CQ */
	/* trs_logic_cq_recv_para_check */
	if ((a.timeout_ms < 0 && a.timeout_ms != -1) || !a.cqe_num ||
	    !a.cqe_addr) {
		npusim_logic_cq_put(cq);
		return -EINVAL;
	}
	a.cqe_num = min_t(u32, a.cqe_num, NPUSIM_RECV_MAX);
	buf = kvmalloc_array(a.cqe_num, cq->cqe_size, GFP_KERNEL);
	if (!buf) {
		npusim_logic_cq_put(cq);
		return -ENOMEM;
	}
	a.recv_num = 0;
	npusim_trace_logic_cq_recv(cq->dev, TRS_CORE_STR_RECV_START, cq->id, 0,
				   a.timeout_ms);
	for (;;) {
		if (mutex_lock_interruptible(&cq->recv_lock)) {
			ret = -ERESTARTSYS;
			break;
		}
		ret = npusim_logic_cq_copy_report(cq, &a, buf, &seq);
		mutex_unlock(&cq->recv_lock);
		if (ret != -EAGAIN)
			break;
		if (!a.timeout_ms) {
			ret = 0; /* a poll with nothing for it */
			break;
		}
		/* until the next enqueue (or the free), timeout_ms at most */
		if (a.timeout_ms < 0) {
			r = wait_event_interruptible(
				cq->wq, READ_ONCE(cq->enq_seq) != seq ||
						!READ_ONCE(cq->valid));
			r = r ? r : 1;
		} else {
			r = wait_event_interruptible_timeout(
				cq->wq,
				READ_ONCE(cq->enq_seq) != seq ||
					!READ_ONCE(cq->valid),
				msecs_to_jiffies(a.timeout_ms));
		}
		if (!r) {
			spin_lock_irq(&cq->lock);
			cq->timeout++;
			spin_unlock_irq(&cq->lock);
			ret = -ETIMEDOUT;
			break;
		}
		if (r < 0) {
			ret = r;
			break;
		}
	}
	if (!ret) {
		npusim_trace_logic_cq_recv(cq->dev, TRS_CORE_STR_RECV_FINISH,
					   cq->id, a.recv_num, a.timeout_ms);
		if (copy_to_user(uarg, &a, sizeof(a)))
			ret = -EFAULT;
	}
	kvfree(buf);
	npusim_logic_cq_put(cq);
	return ret;
}

/* ---- /proc summary ------------------------------------------------------- */

/* One line per logic CQ of @dev: its ring and the driver's statistics of
 * it (struct trs_logic_cq_stat). */
void npusim_logic_cq_show(struct npusim_dev *dev, struct seq_file *m)
{
	unsigned long flags;
	u32 id;

	for (id = 0; id < npusim_max_streams; id++) {
		struct npusim_logic_cq *cq;
		u32 head, tail, depth;
		u64 enque, drop, recv, tmo;

		spin_lock_irqsave(&dev->lcq_lock, flags);
		cq = dev->lcqs[id];
		if (cq)
			kref_get(&cq->ref);
		spin_unlock_irqrestore(&dev->lcq_lock, flags);
		if (!cq)
			continue;
		spin_lock_irqsave(&cq->lock, flags);
		head = cq->head;
		tail = cq->tail;
		depth = cq->depth;
		enque = cq->enque;
		drop = cq->full_drop;
		recv = cq->recv;
		tmo = cq->timeout;
		spin_unlock_irqrestore(&cq->lock, flags);
		seq_printf(
			m,
			"logic_cq %u depth %u head %u tail %u pending %u enque %llu full_drop %llu recv %llu timeout %llu\n",
			id, depth, head, tail, (tail + depth - head) % depth,
			enque, drop, recv, tmo);
		npusim_logic_cq_put(cq);
	}
}
