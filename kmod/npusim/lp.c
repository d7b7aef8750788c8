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
 * same order everywhere, nothing else taken inside); the reader's side is
 * chan_ring.c's, which closes the open record under lp_lock first.
 */
#include "npusim.h"

_Static_assert(sizeof(struct npusim_lp_record) == NPUSIM_LP_RECORD_SIZE,
	       "lp record");

#define NPUSIM_LP_RING_DEFAULT 64 /* records: 3520 changes between reads */
#define NPUSIM_LP_RING_MIN 2
#define NPUSIM_LP_RING_MAX 4096

void npusim_lp_dev_init(struct npusim_dev *dev)
{
	spin_lock_init(&dev->lp_lock);
	dev->aicore_cur_mhz = npusim_aicore_mhz;
}

/* Close the open record (at head) if it has entries; lp_lock held. The
 * ring counts records closed, and entries dropped. */
static void npusim_lp_close(struct npusim_chan_ring *r)
{
	struct npusim_lp_record *rec = npusim_chan_ring_at(r, r->head);

	if (r->head - r->tail < r->size && rec->count) {
		r->head++;
		r->records++;
	}
}

/* One entry: MHz from device counter @cnt on; lp_lock held. */
static void npusim_lp_append(struct npusim_chan_ring *r, u64 cnt, u32 mhz)
{
	struct npusim_lp_record *rec;

	if (npusim_chan_ring_full(r)) {
		r->dropped++; /* no room for an open record */
		return;
	}
	rec = npusim_chan_ring_at(r, r->head); /* zeroed when it was read */
	rec->entry[rec->count].sys_cnt = cnt;
	rec->entry[rec->count].freq = mhz;
	if (++rec->count == NPUSIM_LP_ENTRIES)
		npusim_lp_close(r);
}

/* The channel's first entry: the frequency the device runs at as it
 * starts; lp_lock held. */
static void npusim_lp_first(struct npusim_dev *dev, struct npusim_chan_ring *r)
{
	npusim_lp_append(r, npusim_dev_counter(dev, ktime_get_ns()),
			 dev->aicore_cur_mhz);
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
	struct npusim_chan_ring *r;

	if (a->flags || a->lp.version != NPUSIM_LP_CONFIG_VERSION)
		return -EINVAL;
	if (ring < NPUSIM_LP_RING_MIN || ring > NPUSIM_LP_RING_MAX ||
	    (ring & (ring - 1)))
		return -EINVAL;
	r = npusim_chan_ring_new(f, ring, NPUSIM_LP_RECORD_SIZE);
	if (!r)
		return -ENOMEM;
	return npusim_chan_ring_attach(dev, &dev->lp, &dev->lp_lock, r,
				       npusim_lp_first);
}

int npusim_lp_read(struct npusim_file *f, struct npusim_prof_read *a)
{
	struct npusim_dev *dev = f->dev;

	if (!a->len || a->len % NPUSIM_LP_RECORD_SIZE)
		return -EINVAL;
	return npusim_chan_ring_read(dev, &dev->lp, &dev->lp_lock, f, a,
				     npusim_lp_close);
}

/* Stop @f's device's channel if @f started it; -ESRCH if not. */
int npusim_lp_stop(struct npusim_file *f)
{
	struct npusim_dev *dev = f->dev;
	struct npusim_chan_ring *r;

	r = npusim_chan_ring_detach(dev, &dev->lp, &dev->lp_lock, f);
	if (!r)
		return -ESRCH;
	if (r->dropped)
		pr_info("npusim: dev %u: AI Core frequency channel: %llu entries dropped (ring of %u records full)\n",
			dev->id, r->dropped, r->size);
	npusim_chan_ring_free(r);
	return 0;
}
