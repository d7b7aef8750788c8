// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection: /proc/trs_chan/dev<D>-ts0/fault, so that hang detection
 * (npuprof watch, flight) is tested against a device that really misbehaves.
 *
 * Writes (one command per write, root only):
 *   "stall S MS"  stream S completes nothing for MS milliseconds (0: until
 *                 cleared); its running task, or the next one to start, is
 *                 held on the device past its modelled end
 *   "drop S"      the next task of stream S to finish is lost: no task-time
 *                 record and no CQE reach the host
 *   "clear"       end every fault of this device; held tasks finish now
 * Reading shows the faults in force, and for a stall the task it holds.
 *
 * Everything is under npusim_lock like the rest of the device model. A
 * destroyed stream is never held, so tearing a stalled stream down (the
 * process exits or is killed) cannot hang.
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include "npusim.h"

/*
 * Is s's finished task held back by a stall at now? A held task's end moves
 * with the clock, so when it is released its device time covers the stall.
 * @release (optional) receives when the stall ends (0: never).
 */
bool npusim_fault_hold_locked(struct npusim_dev *dev, struct npusim_stream *s,
			      u64 now, u64 *release)
{
	if (!dev->fault_stall || dev->fault_stall - 1 != s->id || s->dead)
		return false;
	if (dev->fault_stall_until && now >= dev->fault_stall_until) {
		dev->fault_stall = 0;
		dev->fault_stall_until = 0;
		return false;
	}
	if (s->running && s->end_ns < now)
		s->end_ns = now;
	if (release)
		*release = dev->fault_stall_until;
	return true;
}

/* Called as s's task completes: is this completion the one to lose? */
bool npusim_fault_drop_locked(struct npusim_dev *dev, struct npusim_stream *s)
{
	if (!dev->fault_drop || dev->fault_drop - 1 != s->id)
		return false;
	dev->fault_drop = 0;
	dev->fault_dropped++;
	return true;
}

static int fault_show(struct seq_file *m, void *v)
{
	struct npusim_dev *dev = m->private;
	unsigned long flags;
	u32 stall, drop, task = 0, queued = 0;
	u64 until, dropped, now = ktime_get_ns();
	bool have_task = false;

	spin_lock_irqsave(&npusim_lock, flags);
	stall = dev->fault_stall;
	until = dev->fault_stall_until;
	drop = dev->fault_drop;
	dropped = dev->fault_dropped;
	if (stall && stall - 1 < npusim_max_streams && dev->streams[stall - 1]) {
		struct npusim_stream *s = dev->streams[stall - 1];

		queued = s->tail - s->head;
		if (queued) {
			task = s->sq[s->head & (s->depth - 1)].task_id;
			have_task = true;
		}
	}
	spin_unlock_irqrestore(&npusim_lock, flags);

	if (stall) {
		seq_printf(m, "stall stream %u", stall - 1);
		if (until)
			seq_printf(m, " remaining_ms %llu",
				   until > now ? (until - now) / 1000000 : 0);
		else
			seq_puts(m, " remaining_ms forever");
		if (have_task)
			seq_printf(m, " task %u queued %u", task, queued);
		seq_putc(m, '\n');
	}
	if (drop)
		seq_printf(m, "drop stream %u\n", drop - 1);
	seq_printf(m, "dropped %llu\n", dropped);
	return 0;
}

static int fault_open(struct inode *inode, struct file *file)
{
	return single_open(file, fault_show, pde_data(inode));
}

static ssize_t fault_write(struct file *file, const char __user *buf,
			   size_t count, loff_t *ppos)
{
	struct npusim_dev *dev = pde_data(file_inode(file));
	unsigned long flags;
	unsigned int stream, ms;
	char tmp[64];

	if (!count || count >= sizeof(tmp))
		return -EINVAL;
	if (copy_from_user(tmp, buf, count))
		return -EFAULT;
	tmp[count] = 0;

	if (sscanf(tmp, "stall %u %u", &stream, &ms) == 2) {
		if (stream >= npusim_max_streams)
			return -EINVAL;
		spin_lock_irqsave(&npusim_lock, flags);
		dev->fault_stall = stream + 1;
		dev->fault_stall_until = ms ? ktime_get_ns() + ms * 1000000ULL : 0;
		npusim_schedule_locked();
		spin_unlock_irqrestore(&npusim_lock, flags);
	} else if (sscanf(tmp, "drop %u", &stream) == 1) {
		if (stream >= npusim_max_streams)
			return -EINVAL;
		spin_lock_irqsave(&npusim_lock, flags);
		dev->fault_drop = stream + 1;
		spin_unlock_irqrestore(&npusim_lock, flags);
	} else if (!strcmp(strim(tmp), "clear")) {
		spin_lock_irqsave(&npusim_lock, flags);
		dev->fault_stall = 0;
		dev->fault_stall_until = 0;
		dev->fault_drop = 0;
		npusim_schedule_locked();
		spin_unlock_irqrestore(&npusim_lock, flags);
	} else {
		return -EINVAL;
	}
	return count;
}

static const struct proc_ops fault_ops = {
	.proc_open = fault_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
	.proc_write = fault_write,
};

int npusim_fault_procfs_add(struct npusim_dev *dev)
{
	return proc_create_data("fault", 0600, dev->proc_dir, &fault_ops, dev) ?
		       0 : -ENOMEM;
}
