// SPDX-License-Identifier: GPL-2.0
/*
 * npuprof.ko — capture engine 1: /dev/npuprof, its sessions and ioctls.
 *
 * Each open file is one capture session: CONFIGURE (rings, filters,
 * sampling, overwrite mode), then START/STOP. Its per-CPU rings are mapped
 * read-only by the reader, which reports what it consumed with CONSUME and
 * sleeps in poll() until a ring reaches the watermark. Up to NP_MAX_SESSIONS
 * sessions run at once (a profile, a flight recorder and a live view).
 *
 * Permissions: capturing every process needs CAP_PERFMON or CAP_SYS_ADMIN;
 * anyone else must name a process they own, and then sees only tasks
 * submitted by their own user. The device node is 0644: only root can
 * write it, but any user may open it to capture their own processes.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "npuprof_k.h"

struct np_session __rcu *np_sessions[NP_MAX_SESSIONS];
static DEFINE_MUTEX(np_sessions_mutex);

static bool np_privileged(void)
{
	return capable(CAP_PERFMON) || capable(CAP_SYS_ADMIN);
}

/*
 * Would the rings of every possible CPU fit? vmalloc takes what it is asked
 * for until memory runs out (and says so loudly), so a capture may take at
 * most 1/NPUPROF_RING_MEM_SHARE of RAM for its rings.
 */
static bool np_rings_fit(u64 ring_bytes)
{
	u64 pages = (ring_bytes >> PAGE_SHIFT) + 1; /* data and control */

	return pages * num_possible_cpus() <=
	       totalram_pages() / NPUPROF_RING_MEM_SHARE;
}

/* Does the calling user own process @pid? */
static int np_owns_pid(u32 pid)
{
	struct task_struct *task;
	int ret = -ESRCH;

	rcu_read_lock();
	task = pid_task(find_vpid(pid), PIDTYPE_TGID);
	if (task) {
		const struct cred *tc = __task_cred(task);

		ret = uid_eq(tc->uid, current_euid()) &&
				      uid_eq(tc->euid, current_euid()) ?
			      0 :
			      -EPERM;
	}
	rcu_read_unlock();
	return ret;
}

static int np_ioc_configure(struct np_session *s, void __user *uarg)
{
	struct npuprof_config cfg;
	bool priv = np_privileged();
	int ret, i;

	if (copy_from_user(&cfg, uarg, sizeof(cfg)))
		return -EFAULT;
	for (i = 0; i < ARRAY_SIZE(cfg.rsv); i++)
		if (cfg.rsv[i])
			return -EINVAL;
	if (cfg.flags & ~NPUPROF_CFG_FLAGS_ALL)
		return -EINVAL;
	if (!npuprof_ring_bytes_valid(cfg.ring_bytes, PAGE_SIZE))
		return -EINVAL;
	if (!cfg.watermark ||
	    cfg.watermark > cfg.ring_bytes / NPUPROF_RECORD_SIZE)
		return -EINVAL;
	if (!priv) {
		if (!cfg.pid)
			return -EPERM; /* system-wide capture */
		if (cfg.ring_bytes > NPUPROF_RING_MAX_UNPRIV_BYTES)
			return -EPERM;
	}
	if (!np_rings_fit(cfg.ring_bytes))
		return -ENOMEM;
	if (cfg.pid) {
		ret = np_owns_pid(cfg.pid);
		if (ret == -ESRCH || (ret && !priv))
			return ret;
	}

	mutex_lock(&s->lock);
	/* new rings would free the ones a reader still has mapped */
	if (s->running || atomic_read(&s->maps)) {
		mutex_unlock(&s->lock);
		return -EBUSY;
	}
	np_rings_free(s);
	vfree(s->stream_state);
	s->stream_state = NULL;
	s->configured = false;
	s->cfg = cfg;
	s->privileged = priv;
	s->uid = current_euid();
	ret = np_rings_alloc(s);
	if (!ret && (cfg.pid || !priv)) {
		s->stream_state = vzalloc(NPUPROF_OWNER_SLOTS);
		if (!s->stream_state)
			ret = -ENOMEM;
	}
	s->filter = (struct npuprof_filter){
		.pid = cfg.pid,
		.dev_mask = cfg.dev_mask,
		.sample_n = cfg.sample_n,
		.flags = cfg.flags,
		.stream_mask = s->cfg.stream_mask,
		.owner = s->stream_state,
		.sq_owner = np_sq_owner,
		.any_uid = priv,
		.uid = from_kuid(&init_user_ns, s->uid),
	};
	if (ret)
		np_rings_free(s);
	else
		s->configured = true;
	mutex_unlock(&s->lock);
	return ret;
}

static int np_ioc_start(struct np_session *s)
{
	int i, ret = 0;

	mutex_lock(&s->lock);
	if (!s->configured) {
		ret = -EINVAL;
		goto out;
	}
	if (s->running) {
		ret = -EBUSY;
		goto out;
	}
	mutex_lock(&np_sessions_mutex);
	for (i = 0; i < NP_MAX_SESSIONS; i++)
		if (!rcu_access_pointer(np_sessions[i]))
			break;
	if (i == NP_MAX_SESSIONS) {
		ret = -EBUSY;
	} else {
		s->slot = i;
		s->running = true;
		rcu_assign_pointer(np_sessions[i], s);
	}
	mutex_unlock(&np_sessions_mutex);
out:
	mutex_unlock(&s->lock);
	return ret;
}

/* Unpublish the session and wait until no probe can still be writing. */
static void np_session_stop(struct np_session *s)
{
	mutex_lock(&np_sessions_mutex);
	RCU_INIT_POINTER(np_sessions[s->slot], NULL);
	mutex_unlock(&np_sessions_mutex);
	synchronize_rcu();
	s->running = false;
	wake_up_interruptible(&s->wq);
}

static int np_ioc_stop(struct np_session *s)
{
	int ret = 0;

	mutex_lock(&s->lock);
	if (s->running)
		np_session_stop(s);
	else
		ret = -EINVAL;
	mutex_unlock(&s->lock);
	return ret;
}

static int np_ioc_stats(struct np_session *s, void __user *uarg)
{
	struct npuprof_stats st;
	int cpu, t;

	memset(&st, 0, sizeof(st));
	mutex_lock(&s->lock);
	st.attached = np_probes_attached();
	st.running = s->running;
	if (s->configured) {
		for_each_possible_cpu(cpu) {
			struct np_pcpu_stats *p = per_cpu_ptr(s->stats, cpu);
			struct npuprof_ring_ctrl *c = s->rings[cpu]->ctrl;

			for (t = 0; t < NPUPROF_REC_TYPE_MAX; t++)
				st.events[t] += READ_ONCE(p->events[t]);
			st.filtered += READ_ONCE(p->filtered);
			st.sampled_out += READ_ONCE(p->sampled_out);
			st.written += READ_ONCE(c->written);
			st.dropped += READ_ONCE(c->dropped);
			st.overwritten += READ_ONCE(c->overwritten);
			st.nr_cpus++;
		}
	}
	mutex_unlock(&s->lock);
	return copy_to_user(uarg, &st, sizeof(st)) ? -EFAULT : 0;
}

static int np_ioc_consume(struct np_session *s, void __user *uarg)
{
	struct npuprof_consume c;
	struct npuprof_ring_ctrl *ctrl;
	int ret = 0;

	if (copy_from_user(&c, uarg, sizeof(c)))
		return -EFAULT;
	if (c.rsv || c.cpu >= nr_cpu_ids || !cpu_possible(c.cpu))
		return -EINVAL;
	mutex_lock(&s->lock);
	if (!s->configured) {
		ret = -EINVAL;
		goto out;
	}
	ctrl = s->rings[c.cpu]->ctrl;
	/* the reader may skip ahead (overwrite mode) but never past head */
	if (c.tail < ctrl->tail || c.tail > smp_load_acquire(&ctrl->head))
		ret = -EINVAL;
	else
		WRITE_ONCE(ctrl->tail, c.tail);
out:
	mutex_unlock(&s->lock);
	return ret;
}

static long np_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct np_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case NPUPROF_IOC_VERSION: {
		struct npuprof_version v = {
			.abi_version = NPUPROF_ABI_VERSION,
			.schema_version = NPUPROF_SCHEMA_VERSION,
			.record_size = NPUPROF_RECORD_SIZE,
			.nr_cpu_ids = nr_cpu_ids,
			.page_size = PAGE_SIZE,
		};

		return copy_to_user(uarg, &v, sizeof(v)) ? -EFAULT : 0;
	}
	case NPUPROF_IOC_CONFIGURE: return np_ioc_configure(s, uarg);
	case NPUPROF_IOC_START: return np_ioc_start(s);
	case NPUPROF_IOC_STOP: return np_ioc_stop(s);
	case NPUPROF_IOC_STATS: return np_ioc_stats(s, uarg);
	case NPUPROF_IOC_CONSUME: return np_ioc_consume(s, uarg);
	default: return -ENOTTY;
	}
}

static __poll_t np_poll(struct file *file, poll_table *wait)
{
	struct np_session *s = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &s->wq, wait);
	mutex_lock(&s->lock);
	if (!s->configured) {
		mask = EPOLLERR;
	} else {
		np_rings_arm(s);
		if (np_rings_readable(s))
			mask = EPOLLIN | EPOLLRDNORM;
		else if (!s->running)
			mask = EPOLLHUP;
	}
	mutex_unlock(&s->lock);
	return mask;
}

/*
 * The rings are mapped up front; a page the reader dropped (MADV_DONTNEED)
 * is put back on the next access. vm_private_data is the start of the
 * vmalloc area the mapping was made of; the file, and so the session and
 * its rings, outlives every piece of it, and CONFIGURE leaves mapped rings
 * alone (s->maps). A piece left by a partial munmap keeps vm_private_data
 * but not the start, so the page is found by its offset in the area (the
 * mmap offset's low 31 bits), not in the piece.
 */
static vm_fault_t np_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	unsigned long idx = vmf->pgoff &
			    ((NPUPROF_MMAP_DATA(0) >> PAGE_SHIFT) - 1);
	struct page *page;

	if (vmf->pgoff - vma->vm_pgoff >= vma_pages(vma) ||
	    !vma->vm_private_data)
		return VM_FAULT_SIGBUS;
	page = vmalloc_to_page((char *)vma->vm_private_data +
			       (idx << PAGE_SHIFT));
	if (!page)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
}

/*
 * Every piece of a mapping of the rings counts in s->maps: a fork or a
 * split opens one, an munmap closes it.
 */
static void np_vm_open(struct vm_area_struct *vma)
{
	struct np_session *s = vma->vm_file->private_data;

	atomic_inc(&s->maps);
}

static void np_vm_close(struct vm_area_struct *vma)
{
	struct np_session *s = vma->vm_file->private_data;

	atomic_dec(&s->maps);
}

static const struct vm_operations_struct np_vm_ops = {
	.open = np_vm_open,
	.close = np_vm_close,
	.fault = np_vm_fault,
};

static int np_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct np_session *s = file->private_data;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	unsigned long size = vma->vm_end - vma->vm_start;
	u64 cpu = off >> 32, kind = off & 0xffffffffULL;
	struct np_ring *ring;
	int ret = -EINVAL;

	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	mutex_lock(&s->lock);
	if (!s->configured || cpu >= nr_cpu_ids || !cpu_possible(cpu))
		goto out;
	ring = s->rings[cpu];
	vma->vm_flags &= ~(VM_MAYWRITE | VM_MAYEXEC);
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	if (kind == 0 && size == PAGE_SIZE)
		vma->vm_private_data = ring->ctrl;
	else if (kind == 0x80000000ULL && size == s->cfg.ring_bytes)
		vma->vm_private_data = ring->data;
	if (vma->vm_private_data) {
		ret = remap_vmalloc_range(vma, vma->vm_private_data, 0);
		if (!ret) {
			vma->vm_ops = &np_vm_ops;
			np_vm_open(vma);
		}
	}
out:
	mutex_unlock(&s->lock);
	return ret;
}

static int np_open(struct inode *inode, struct file *file)
{
	struct np_session *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (!s)
		return -ENOMEM;
	s->stats = alloc_percpu(struct np_pcpu_stats);
	if (!s->stats) {
		kfree(s);
		return -ENOMEM;
	}
	mutex_init(&s->lock);
	init_waitqueue_head(&s->wq);
	file->private_data = s;
	return 0;
}

static int np_release(struct inode *inode, struct file *file)
{
	struct np_session *s = file->private_data;

	if (s->running)
		np_session_stop(s);
	np_rings_free(s);
	vfree(s->stream_state);
	free_percpu(s->stats);
	kfree(s);
	return 0;
}

static const struct file_operations np_fops = {
	.owner = THIS_MODULE,
	.open = np_open,
	.release = np_release,
	.unlocked_ioctl = np_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.poll = np_poll,
	.mmap = np_mmap,
	.llseek = noop_llseek,
};

static struct miscdevice np_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "npuprof",
	.fops = &np_fops,
	.mode = 0644,
};

static int __init np_init(void)
{
	int ret;

	BUILD_BUG_ON(sizeof(struct npuprof_record) != NPUPROF_RECORD_SIZE);
	BUILD_BUG_ON(sizeof(struct npuprof_rec_hdr) != 24);
	BUILD_BUG_ON(sizeof(struct npuprof_ring_ctrl) > PAGE_SIZE);

	ret = misc_register(&np_misc);
	if (ret)
		return ret;
	ret = np_probes_init();
	if (ret)
		misc_deregister(&np_misc);
	return ret;
}

static void __exit np_exit(void)
{
	np_probes_exit();
	misc_deregister(&np_misc);
}

module_init(np_init);
module_exit(np_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION(
	"npuprof: Ascend NPU task capture on the trs_chan tracepoints");
