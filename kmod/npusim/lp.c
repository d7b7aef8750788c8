// SPDX-License-Identifier: GPL-2.0
/*
 * The AI Core frequency of each device and the driver's low-power
 * profiling channel, CHANNEL_LP (132), that reports its changes
 * (uapi/npusim.h, "Profiling channel 132").
 *
 * The current frequency starts at the rated one (module parameter
 * aicore_mhz) and changes when the administrator writes
 * /proc/trs_chan/dev<N>-ts0/aicore_freq (procfs.c). The device model
 * (sched.c) stretches the AI Core and vector kernels it starts by
 * rated/current. While the channel runs, each change becomes an entry
 * {device counter, MHz} of the open 888-byte record; a record is closed
 * when its 55 entries are used and when the reader reads.
 *
 * Locking: the frequency, the ring pointer and the producer's side (head,
 * the open record) are under the device's lp_lock (interrupts off: the
 * same order everywhere, nothing else taken inside); the reader's tail
 * belongs to the file that started the channel, serialised by prof_lock,
 * and is published with a release store once the closed records are
 * copied out, so the producer never writes a record being read.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "npusim.h"

_Static_assert(sizeof(struct npusim_lp_record) == NPUSIM_LP_RECORD_SIZE,
	       "lp record");

#define NPUSIM_LP_RING_DEFAULT 64 /* records: 3520 changes between reads */
#define NPUSIM_LP_RING_MIN 2
#define NPUSIM_LP_RING_MAX 4096

struct npusim_lp {
	struct npusim_file *owner; /* the file that started it */
	struct npusim_lp_record *rec;
	u32 size; /* records, a power of two */
	u32 head; /* free-running: the open record (closed ones are before) */
	u32 tail; /* free-running: the reader's next record */
	u32 period; /* the config's, ms */
	u64 records; /* records closed since start */
	u64 dropped; /* entries lost to a full ring since start */
};

void npusim_lp_dev_init(struct npusim_dev *dev)
{
	spin_lock_init(&dev->lp_lock);
	dev->aicore_cur_mhz = npusim_aicore_mhz;
}

/* Close the open record if it has entries; lp_lock held. */
static void npusim_lp_close(struct npusim_lp *r)
{
	if (r->head - r->tail < r->size &&
	    r->rec[r->head & (r->size - 1)].count) {
		r->head++;
		r->records++;
	}
}

/* One entry: MHz from device counter @cnt on; lp_lock held. */
static void npusim_lp_append(struct npusim_lp *r, u64 cnt, u32 mhz)
{
	struct npusim_lp_record *rec;

	if (r->head - smp_load_acquire(&r->tail) >= r->size) {
		r->dropped++; /* no room for an open record */
		return;
	}
	rec = &r->rec[r->head & (r->size - 1)];
	if (!rec->count)
		memset(rec, 0, sizeof(*rec));
	rec->entry[rec->count].sys_cnt = cnt;
	rec->entry[rec->count].freq = mhz;
	if (++rec->count == NPUSIM_LP_ENTRIES)
		npusim_lp_close(r);
}

int npusim_aicore_freq_set(struct npusim_dev *dev, u32 mhz)
{
	unsigned long flags;

	if (!mhz || mhz > npusim_aicore_mhz)
		return -EINVAL;
	spin_lock_irqsave(&dev->lp_lock, flags);
	if (mhz != dev->aicore_cur_mhz) {
		WRITE_ONCE(dev->aicore_cur_mhz, mhz);
		if (dev->lp)
			npusim_lp_append(dev->lp,
					 npusim_dev_counter(dev,
							    ktime_get_ns()),
					 mhz);
	}
	spin_unlock_irqrestore(&dev->lp_lock, flags);
	return 0;
}

int npusim_lp_start(struct npusim_file *f, const struct npusim_prof_start *a)
{
	struct npusim_dev *dev = f->dev;
	u32 ring = a->ring_records ? a->ring_records : NPUSIM_LP_RING_DEFAULT;
	struct npusim_lp *r;
	unsigned long flags;
	int ret;

	if (a->flags || a->lp.version != NPUSIM_LP_CONFIG_VERSION)
		return -EINVAL;
	if (ring < NPUSIM_LP_RING_MIN || ring > NPUSIM_LP_RING_MAX ||
	    (ring & (ring - 1)))
		return -EINVAL;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->rec = vzalloc((size_t)ring * sizeof(*r->rec));
	if (!r->rec) {
		kfree(r);
		return -ENOMEM;
	}
	r->size = ring;
	r->owner = f;
	r->period = a->lp.period;
	mutex_lock(&dev->prof_lock);
	ret = -EBUSY;
	spin_lock_irqsave(&dev->lp_lock, flags);
	if (!dev->lp) {
		dev->lp = r;
		/* the first record: the frequency the device runs at now */
		npusim_lp_append(r, npusim_dev_counter(dev, ktime_get_ns()),
				 dev->aicore_cur_mhz);
		ret = 0;
	}
	spin_unlock_irqrestore(&dev->lp_lock, flags);
	mutex_unlock(&dev->prof_lock);
	if (ret) {
		vfree(r->rec);
		kfree(r);
	}
	return ret;
}

int npusim_lp_read(struct npusim_file *f, struct npusim_prof_read *a)
{
	struct npusim_dev *dev = f->dev;
	struct npusim_lp *r;
	unsigned long flags;
	u32 head, n, first;
	int ret = 0;

	if (!a->len || a->len % NPUSIM_LP_RECORD_SIZE)
		return -EINVAL;
	mutex_lock(&dev->prof_lock);
	r = dev->lp;
	if (!r || r->owner != f) {
		mutex_unlock(&dev->prof_lock);
		return -ESRCH;
	}
	spin_lock_irqsave(&dev->lp_lock, flags);
	npusim_lp_close(r); /* what the device reported so far */
	head = r->head;
	a->records = r->records;
	a->dropped = r->dropped;
	spin_unlock_irqrestore(&dev->lp_lock, flags);
	n = min_t(u32, head - r->tail, a->len / NPUSIM_LP_RECORD_SIZE);
	first = min_t(u32, n, r->size - (r->tail & (r->size - 1)));
	if (copy_to_user(u64_to_user_ptr(a->buf),
			 &r->rec[r->tail & (r->size - 1)],
			 (size_t)first * sizeof(*r->rec)) ||
	    copy_to_user(u64_to_user_ptr(a->buf) +
				 (size_t)first * sizeof(*r->rec),
			 r->rec, (size_t)(n - first) * sizeof(*r->rec)))
		ret = -EFAULT;
	if (!ret) {
		/* the slots read are free: a later record starts empty */
		for (u32 i = 0; i < n; i++)
			r->rec[(r->tail + i) & (r->size - 1)].count = 0;
		smp_store_release(&r->tail, r->tail + n);
	}
	mutex_unlock(&dev->prof_lock);
	a->bytes = n * NPUSIM_LP_RECORD_SIZE;
	return ret;
}

/* Stop @f's device's channel if @f started it; -ESRCH if not. */
int npusim_lp_stop(struct npusim_file *f)
{
	struct npusim_dev *dev = f->dev;
	struct npusim_lp *r;
	unsigned long flags;

	mutex_lock(&dev->prof_lock);
	spin_lock_irqsave(&dev->lp_lock, flags);
	r = dev->lp;
	if (r && r->owner == f)
		dev->lp = NULL;
	else
		r = NULL;
	spin_unlock_irqrestore(&dev->lp_lock, flags);
	mutex_unlock(&dev->prof_lock);
	if (!r)
		return -ESRCH;
	if (r->dropped)
		pr_info("npusim: dev %u: AI Core frequency channel: %llu entries dropped (ring of %u records full)\n",
			dev->id, r->dropped, r->size);
	vfree(r->rec);
	kfree(r);
	return 0;
}
