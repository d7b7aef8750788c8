// SPDX-License-Identifier: GPL-2.0
/*
 * The ring of a profiling channel (npusim.h, struct npusim_chan_ring):
 * what the STARS SoC log (stars.c) and the low-power channel (lp.c) share.
 * A device has at most one running ring per channel, started, read and
 * stopped by one file.
 *
 * Records are fixed-size; the ring holds a power of two of them. The
 * producer (the channel's code, under the channel's spin lock) writes at
 * head when head - tail < size; the reader copies the records before head
 * out under the device's prof_lock, zeroes their slots (a producer finds
 * a free slot empty) and publishes the new tail with a release store, so
 * the producer never writes a slot being read.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "npusim.h"

struct npusim_chan_ring *npusim_chan_ring_new(struct npusim_file *f, u32 nrec,
					      u32 rec_size)
{
	struct npusim_chan_ring *r = kzalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return NULL;
	r->rec = vzalloc((size_t)nrec * rec_size);
	if (!r->rec) {
		kfree(r);
		return NULL;
	}
	r->owner = f;
	r->size = nrec;
	r->rec_size = rec_size;
	return r;
}

void npusim_chan_ring_free(struct npusim_chan_ring *r)
{
	if (!r)
		return;
	vfree(r->rec);
	kfree(r);
}

/* Make @r the device's running ring *@slot, and run @first (if given)
 * under @lock once it is; -EBUSY (and @r freed) if one runs already. */
int npusim_chan_ring_attach(struct npusim_dev *dev,
			    struct npusim_chan_ring **slot, spinlock_t *lock,
			    struct npusim_chan_ring *r,
			    void (*first)(struct npusim_dev *dev,
					  struct npusim_chan_ring *r))
{
	unsigned long flags;
	int ret = -EBUSY;

	mutex_lock(&dev->prof_lock);
	spin_lock_irqsave(lock, flags);
	if (!*slot) {
		*slot = r;
		if (first)
			first(dev, r);
		ret = 0;
	}
	spin_unlock_irqrestore(lock, flags);
	mutex_unlock(&dev->prof_lock);
	if (ret)
		npusim_chan_ring_free(r);
	return ret;
}

/* Take the running ring *@slot away if @f started it (the caller frees
 * it); NULL if not. */
struct npusim_chan_ring *npusim_chan_ring_detach(struct npusim_dev *dev,
						 struct npusim_chan_ring **slot,
						 spinlock_t *lock,
						 struct npusim_file *f)
{
	struct npusim_chan_ring *r;
	unsigned long flags;

	mutex_lock(&dev->prof_lock);
	spin_lock_irqsave(lock, flags);
	r = *slot;
	if (r && r->owner == f)
		*slot = NULL;
	else
		r = NULL;
	spin_unlock_irqrestore(lock, flags);
	mutex_unlock(&dev->prof_lock);
	return r;
}

/*
 * NPUSIM_IOC_PROF_READ on the ring *@slot that @f started: the whole
 * records before head, at most a->len bytes of them (the caller has
 * checked that a->len is a positive multiple of its records), to a->buf; the
 * channel's counts in a->records and a->dropped. @close, if given, runs
 * under @lock first (lp.c closes its open record there).
 */
int npusim_chan_ring_read(struct npusim_dev *dev,
			  struct npusim_chan_ring **slot, spinlock_t *lock,
			  struct npusim_file *f, struct npusim_prof_read *a,
			  void (*close)(struct npusim_chan_ring *r))
{
	struct npusim_chan_ring *r;
	unsigned long flags;
	u32 head, n, first, at;
	int ret = 0;

	mutex_lock(&dev->prof_lock);
	r = *slot;
	if (!r || r->owner != f) {
		mutex_unlock(&dev->prof_lock);
		return -ESRCH;
	}
	spin_lock_irqsave(lock, flags);
	if (close)
		close(r);
	head = r->head;
	a->records = r->records;
	a->dropped = r->dropped;
	spin_unlock_irqrestore(lock, flags);
	/* the records before head are complete: the producer wrote them
	 * under the lock, which this side took after it */
	n = min_t(u32, head - r->tail, a->len / r->rec_size);
	at = r->tail & (r->size - 1);
	first = min_t(u32, n, r->size - at);
	if (copy_to_user(u64_to_user_ptr(a->buf), npusim_chan_ring_at(r, at),
			 (size_t)first * r->rec_size) ||
	    copy_to_user(u64_to_user_ptr(a->buf) + (size_t)first * r->rec_size,
			 r->rec, (size_t)(n - first) * r->rec_size))
		ret = -EFAULT;
	if (!ret) {
		memset(npusim_chan_ring_at(r, at), 0,
		       (size_t)first * r->rec_size);
		memset(r->rec, 0, (size_t)(n - first) * r->rec_size);
		smp_store_release(&r->tail, r->tail + n);
	}
	a->bytes = ret ? 0 : n * r->rec_size;
	mutex_unlock(&dev->prof_lock);
	return ret;
}
