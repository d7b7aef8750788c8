// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/trs_chan/dev<D>-ts0/: the per-device trace switch with the exact
 * semantics of the real driver, and a summary of the device's streams.
 *
 * trace_enable reads as "0\n" or "1\n". A write must be exactly two bytes at
 * offset 0 (e.g. "1\n"), otherwise -EINVAL; the first byte is parsed as a
 * decimal number (parse error: -EFAULT); 0 disables, anything else enables.
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include "npusim.h"

static struct proc_dir_entry *npusim_proc_root;

static ssize_t trace_enable_read(struct file *file, char __user *buf,
				 size_t count, loff_t *ppos)
{
	struct npusim_dev *dev = pde_data(file_inode(file));
	char tmp[3];

	tmp[0] = READ_ONCE(dev->trace_enable) ? '1' : '0';
	tmp[1] = '\n';
	tmp[2] = 0;
	return simple_read_from_buffer(buf, count, ppos, tmp, 2);
}

static ssize_t trace_enable_write(struct file *file, const char __user *buf,
				  size_t count, loff_t *ppos)
{
	struct npusim_dev *dev = pde_data(file_inode(file));
	char tmp[2];
	int val;

	if (count != 2 || *ppos != 0)
		return -EINVAL;
	if (copy_from_user(tmp, buf, 2))
		return -EFAULT;
	tmp[1] = 0;
	if (kstrtoint(tmp, 10, &val))
		return -EFAULT;
	WRITE_ONCE(dev->trace_enable, val ? 1 : 0);
	return count;
}

static const struct proc_ops trace_enable_ops = {
	.proc_read = trace_enable_read,
	.proc_write = trace_enable_write,
	.proc_lseek = default_llseek,
};

static int summary_show(struct seq_file *m, void *v)
{
	struct npusim_dev *dev = m->private;
	unsigned long flags;
	unsigned int id;

	seq_printf(m, "dev %u chip %s trace_enable %d aic_free %u aiv_free %u aicpu_free %u\n",
		   dev->id, NPUSIM_CHIP_NAME, READ_ONCE(dev->trace_enable),
		   dev->aic_free, dev->aiv_free, dev->aicpu_free);
	for (id = 0; id < npusim_max_streams; id++) {
		struct npusim_stream *s;
		u32 head, tail, running, cqp;
		u64 done, ovf;

		spin_lock_irqsave(&npusim_lock, flags);
		s = dev->streams[id];
		if (!s) {
			spin_unlock_irqrestore(&npusim_lock, flags);
			continue;
		}
		head = s->head;
		tail = s->tail;
		running = s->running;
		cqp = s->cq_tail - s->cq_head;
		done = s->completed;
		ovf = s->cq_overflow;
		spin_unlock_irqrestore(&npusim_lock, flags);
		seq_printf(m, "stream %u sq_head %u sq_tail %u queued %u running %u completed %llu cq_pending %u cq_overflow %llu\n",
			   id, head & (npusim_sq_depth - 1),
			   tail & (npusim_sq_depth - 1), tail - head, running,
			   done, cqp, ovf);
	}
	return 0;
}

int npusim_procfs_init(void)
{
	npusim_proc_root = proc_mkdir("trs_chan", NULL);
	return npusim_proc_root ? 0 : -ENOMEM;
}

int npusim_procfs_add(struct npusim_dev *dev)
{
	char name[32];

	snprintf(name, sizeof(name), "dev%u-ts0", dev->id);
	dev->proc_dir = proc_mkdir(name, npusim_proc_root);
	if (!dev->proc_dir)
		return -ENOMEM;
	if (!proc_create_data("trace_enable", 0600, dev->proc_dir,
			      &trace_enable_ops, dev))
		return -ENOMEM;
	if (!proc_create_single_data("summary", 0444, dev->proc_dir,
				     summary_show, dev))
		return -ENOMEM;
	return npusim_fault_procfs_add(dev);
}

void npusim_procfs_exit(void)
{
	proc_remove(npusim_proc_root);
	npusim_proc_root = NULL;
}
