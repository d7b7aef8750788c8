// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/trs_chan/dev<D>-ts0/: the per-device trace switch with the exact
 * semantics of the real driver, a summary of the device's streams (with,
 * as the real driver's per-process summary, each SQ's send mode, its
 * owner and the user-mode queue's send counts) and logic CQs (with the
 * driver's statistics of each: enqueued, lost to a full queue, received,
 * timed out; and the CQEs lost outside any: with drop_flag, or of a stream
 * bound to a freed logic CQ), and the fault injector's switch.
 * /proc/trs_core/ts_inst/dev<D>-ts0/trace_enable is the switch of the
 * trs_core events (the real driver's path), with the same semantics.
 *
 * trace_enable reads as "0\n" or "1\n". A write must be exactly two bytes at
 * offset 0 (e.g. "1\n"), otherwise -EINVAL; the first byte is parsed as a
 * decimal number (parse error: -EFAULT); 0 disables, anything else enables.
 *
 * fault (fault.c) takes one command per write, root only:
 *   "stall S MS"  stream S completes nothing for MS milliseconds (0: until
 *                 cleared)
 *   "drop S"      the next task of stream S to finish is lost
 *   "cqfull S"    the host stops consuming stream S's CQ, which fills up
 *   "reset"       the device is reset: every queued and running task is
 *                 aborted with an error CQE; the streams stay usable
 *   "unknown S [T]"  the device reports a completion (CQE) on stream S for
 *                 task id T, or one never submitted; -ENOENT: no stream S
 *   "clear"       end every fault of this device; held tasks finish now
 * Reading shows the faults in force, for a stall the task it holds, and
 * what the faults did so far: completions dropped, resets and the tasks
 * they aborted, unknown CQEs sent, CQEs lost to full CQs.
 *
 * aicore_freq (simulator-only, the administrator's AI Core frequency
 * setting, as `npu-smi set` is a real host's) reads as the device's
 * current AI Core MHz; root writes a decimal MHz, 1..the rated (module
 * parameter aicore_mhz), else -EINVAL (lp.c; uapi/npusim.h "Profiling
 * channel 132").
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include "npusim.h"

static struct proc_dir_entry *npusim_proc_root; /* /proc/trs_chan */
static struct proc_dir_entry *npusim_core_root; /* /proc/trs_core */
static struct proc_dir_entry *npusim_core_inst; /* /proc/trs_core/ts_inst */

/* the switch of a trace_enable file is the int its proc entry points at */
static ssize_t trace_enable_read(struct file *file, char __user *buf,
				 size_t count, loff_t *ppos)
{
	int *on = pde_data(file_inode(file));
	char tmp[3];

	tmp[0] = READ_ONCE(*on) ? '1' : '0';
	tmp[1] = '\n';
	tmp[2] = 0;
	return simple_read_from_buffer(buf, count, ppos, tmp, 2);
}

static ssize_t trace_enable_write(struct file *file, const char __user *buf,
				  size_t count, loff_t *ppos)
{
	int *on = pde_data(file_inode(file));
	char tmp[2];
	int val;

	if (count != 2 || *ppos != 0)
		return -EINVAL;
	if (copy_from_user(tmp, buf, 2))
		return -EFAULT;
	tmp[1] = 0;
	if (kstrtoint(tmp, 10, &val))
		return -EFAULT;
	WRITE_ONCE(*on, val ? 1 : 0);
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

	seq_printf(
		m,
		"dev %u chip %s trace_enable %d aic_free %u aiv_free %u aicpu_free %u\n",
		dev->id, NPUSIM_CHIP_NAME, READ_ONCE(dev->trace_enable),
		dev->aic_free, dev->aiv_free, dev->aicpu_free);
	for (id = 0; id < npusim_max_streams; id++) {
		struct npusim_stream *s;
		u32 head, tail, running, cqp, mode;
		u64 done, ovf, ok, fail;
		pid_t pid;

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
		mode = s->mode;
		pid = s->tgid;
		npusim_uio_stats(s, &ok, &fail);
		spin_unlock_irqrestore(&npusim_lock, flags);
		seq_printf(
			m,
			"stream %u sq_head %u sq_tail %u queued %u running %u completed %llu cq_pending %u cq_overflow %llu mode %s pid %d uio send ok %llu send fail %llu\n",
			id, head & (npusim_sq_depth - 1),
			tail & (npusim_sq_depth - 1), tail - head, running,
			done, cqp, ovf, npusim_send_mode_names[mode], pid, ok,
			fail);
	}
	npusim_logic_cq_show(dev, m);
	{
		u64 rx_drop, freed_drop;

		spin_lock_irqsave(&npusim_lock, flags);
		rx_drop = dev->lcq_rx_drop;
		freed_drop = dev->lcq_freed_drop;
		spin_unlock_irqrestore(&npusim_lock, flags);
		seq_printf(m,
			   "logic_cqe_lost drop_flag %llu freed_logic_cq %llu\n",
			   rx_drop, freed_drop);
	}
	{
		u64 recs, drops;
		bool on = npusim_stars_stats(dev, &recs, &drops);

		seq_printf(m, "stars_soc_log %s records %llu dropped %llu\n",
			   on ? "on" : "off", recs, drops);
	}
	return 0;
}

static int fault_show(struct seq_file *m, void *v)
{
	struct npusim_dev *dev = m->private;
	struct npusim_fault_report r;
	unsigned long flags;
	u64 now = ktime_get_ns();

	spin_lock_irqsave(&npusim_lock, flags);
	npusim_fault_report_locked(dev, &r);
	spin_unlock_irqrestore(&npusim_lock, flags);

	if (r.stall) {
		seq_printf(m, "stall stream %u", r.stall - 1);
		if (r.stall_until)
			seq_printf(m, " remaining_ms %llu",
				   r.stall_until > now ?
					   (r.stall_until - now) / 1000000 :
					   0);
		else
			seq_puts(m, " remaining_ms forever");
		if (r.have_task)
			seq_printf(m, " task %u queued %u", r.task, r.queued);
		seq_putc(m, '\n');
	}
	if (r.drop)
		seq_printf(m, "drop stream %u\n", r.drop - 1);
	if (r.cqfull)
		seq_printf(m, "cqfull stream %u\n", r.cqfull - 1);
	seq_printf(m, "dropped %llu\n", r.dropped);
	seq_printf(m,
		   "resets %llu\naborted %llu\nunknown %llu\ncq_overflow %llu\n",
		   r.resets, r.aborted, r.unknown, r.cq_overflow);
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
	unsigned int stream, ms, task;
	char tmp[64];
	int n, ret = 0;

	if (!count || count >= sizeof(tmp))
		return -EINVAL;
	if (copy_from_user(tmp, buf, count))
		return -EFAULT;
	tmp[count] = 0;

	n = sscanf(tmp, "unknown %u %u", &stream, &task);
	if (sscanf(tmp, "stall %u %u", &stream, &ms) == 2) {
		if (stream >= npusim_max_streams)
			return -EINVAL;
		spin_lock_irqsave(&npusim_lock, flags);
		npusim_fault_stall_locked(dev, stream, ms, ktime_get_ns());
		npusim_schedule_locked();
		spin_unlock_irqrestore(&npusim_lock, flags);
	} else if (sscanf(tmp, "drop %u", &stream) == 1) {
		if (stream >= npusim_max_streams)
			return -EINVAL;
		spin_lock_irqsave(&npusim_lock, flags);
		npusim_fault_drop_next_locked(dev, stream);
		spin_unlock_irqrestore(&npusim_lock, flags);
	} else if (sscanf(tmp, "cqfull %u", &stream) == 1) {
		if (stream >= npusim_max_streams)
			return -EINVAL;
		spin_lock_irqsave(&npusim_lock, flags);
		npusim_fault_cqfull_locked(dev, stream);
		spin_unlock_irqrestore(&npusim_lock, flags);
	} else if (n >= 1) {
		if (stream >= npusim_max_streams || (n == 2 && task > 0xffff))
			return -EINVAL;
		spin_lock_irqsave(&npusim_lock, flags);
		ret = npusim_cqe_unknown_locked(dev, stream,
						n == 2 ? task : -1);
		spin_unlock_irqrestore(&npusim_lock, flags);
	} else if (!strcmp(strim(tmp), "reset")) {
		spin_lock_irqsave(&npusim_lock, flags);
		npusim_reset_locked(dev);
		spin_unlock_irqrestore(&npusim_lock, flags);
	} else if (!strcmp(strim(tmp), "clear")) {
		spin_lock_irqsave(&npusim_lock, flags);
		npusim_fault_clear_locked(dev);
		npusim_schedule_locked();
		npusim_wake_streams_locked(dev); /* receivers of a stopped CQ */
		spin_unlock_irqrestore(&npusim_lock, flags);
	} else {
		return -EINVAL;
	}
	return ret ? ret : count;
}

static const struct proc_ops fault_ops = {
	.proc_open = fault_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
	.proc_write = fault_write,
};

/* aicore_freq: the AI Core's current frequency, MHz (lp.c) */
static int aicore_freq_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%u\n", npusim_aicore_cur_mhz(m->private));
	return 0;
}

static int aicore_freq_open(struct inode *inode, struct file *file)
{
	return single_open(file, aicore_freq_show, pde_data(inode));
}

static ssize_t aicore_freq_write(struct file *file, const char __user *buf,
				 size_t count, loff_t *ppos)
{
	struct npusim_dev *dev = pde_data(file_inode(file));
	unsigned int mhz;
	int ret;

	ret = kstrtouint_from_user(buf, count, 10, &mhz);
	if (ret)
		return ret;
	ret = npusim_aicore_freq_set(dev, mhz);
	return ret ? ret : count;
}

static const struct proc_ops aicore_freq_ops = {
	.proc_open = aicore_freq_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
	.proc_write = aicore_freq_write,
};

int npusim_procfs_init(void)
{
	npusim_proc_root = proc_mkdir("trs_chan", NULL);
	if (!npusim_proc_root)
		return -ENOMEM;
	npusim_core_root = proc_mkdir("trs_core", NULL);
	if (npusim_core_root)
		npusim_core_inst = proc_mkdir("ts_inst", npusim_core_root);
	if (!npusim_core_inst) {
		npusim_procfs_exit();
		return -ENOMEM;
	}
	return 0;
}

int npusim_procfs_add(struct npusim_dev *dev)
{
	char name[32];

	snprintf(name, sizeof(name), "dev%u-ts0", dev->id);
	dev->proc_dir = proc_mkdir(name, npusim_proc_root);
	if (!dev->proc_dir)
		return -ENOMEM;
	if (!proc_create_data("trace_enable", 0600, dev->proc_dir,
			      &trace_enable_ops, &dev->trace_enable))
		return -ENOMEM;
	dev->core_proc_dir = proc_mkdir(name, npusim_core_inst);
	if (!dev->core_proc_dir ||
	    !proc_create_data("trace_enable", 0600, dev->core_proc_dir,
			      &trace_enable_ops, &dev->core_trace_enable))
		return -ENOMEM;
	if (!proc_create_single_data("summary", 0444, dev->proc_dir,
				     summary_show, dev))
		return -ENOMEM;
	if (!proc_create_data("fault", 0600, dev->proc_dir, &fault_ops, dev))
		return -ENOMEM;
	if (!proc_create_data("aicore_freq", 0644, dev->proc_dir,
			      &aicore_freq_ops, dev))
		return -ENOMEM;
	return 0;
}

void npusim_procfs_exit(void)
{
	proc_remove(npusim_proc_root);
	npusim_proc_root = NULL;
	proc_remove(npusim_core_root);
	npusim_core_root = NULL;
	npusim_core_inst = NULL;
}
