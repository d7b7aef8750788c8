/* SPDX-License-Identifier: GPL-2.0 */
/*
 * npusim internals shared by the files of the driver (listed below).
 *
 * Locking: one spinlock, npusim_lock (irq-safe), protects every device's
 * scheduler state, all streams' SQ/CQ indices and the event/notify tables.
 * A single lock keeps cross-device notifies (collectives) free of lock
 * ordering problems; the critical sections are short and never sleep.
 * Stream memory is reference counted and freed only from process context.
 */
#ifndef _NPUSIM_H
#define _NPUSIM_H

#include <linux/cdev.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <uapi/npusim.h>
#include <uapi/trs_chan.h>
#include <uapi/trs_core.h>

#define NPUSIM_MIN_TASK_NS 1000 /* device overhead of the shortest task */
#define NPUSIM_SDMA_BASE_NS 2000 /* fixed SDMA setup latency */

struct npusim_file;
struct npusim_logic_cq;
struct seq_file;
/* a user-mode stream's soft queue (stream.c; forwarded by uio.c) */
struct npusim_uio {
	struct kref ref;
	void *mem; /* vmalloc_user: the control page, then the queue */
	size_t size;
	struct npusim_uio_ctrl *ctrl;
	struct npusim_sqe *que;
	struct npusim_task_model *model; /* the model array, slot by slot */
	u32 depth; /* a power of two */
	u32 head; /* the driver's own head; ctrl->head is its copy */
	bool stuck; /* the SQE at head is malformed */
	atomic_t maps; /* mappings of it */
	struct mutex send_lock; /* one forwarder at a time */
};

/* where a soft queue's model array starts in its mapping */
static inline size_t npusim_uio_model_offset(u32 depth)
{
	return PAGE_SIZE + PAGE_ALIGN((size_t)depth * NPUSIM_SQE_SIZE);
}

struct npusim_stream {
	struct kref ref;
	struct npusim_dev *dev;
	struct npusim_file *owner;
	u32 id; /* stream id == SQ id == CQ id */
	u32 mode; /* enum npusim_send_mode */
	struct npusim_uio *uio; /* UIO_T, UIO_D: the soft queue (uio.c) */
	pid_t tgid; /* the process that created its channel */
	bool dead; /* destroyed: accept nothing, start nothing */
	bool active; /* on dev->active */
	struct list_head active_node;

	/* SQ: free-running indices, slot = index & (depth - 1) */
	struct npusim_sqe *sq;
	struct npusim_task_model *model; /* the model of each SQ slot */
	u32 depth;
	u32 head; /* next task to run (or running) */
	u32 tail; /* next free slot */
	bool running;
	u64 start_ns, end_ns;
	bool waiting; /* the head is a wait whose event is not recorded */
	u64 wait_since; /* ... since then (host ns) */
	u64 last_end_ns; /* end of the last task that was not a subtask */
	u64 container_start_ns; /* ... and its start (SUBTASK base) */
	u16 used_aic, used_aiv, used_aicpu;
	u64 completed;

	/* CQ */
	struct npusim_cqe *cq;
	u32 cq_head, cq_tail;
	u64 cq_overflow;
	struct mutex recv_lock; /* serialises CQ consumers */
	/* the logic CQ the stream is bound to (a reference), or NULL: its
	 * CQEs go there instead of cq (logic_cq.c); set under npusim_lock */
	struct npusim_logic_cq *lcq;

	wait_queue_head_t wq; /* SQ space, CQ arrival, drain, idle */
};

struct npusim_dev {
	u32 id;
	struct cdev cdev;
	struct device *device;
	struct proc_dir_entry *proc_dir;
	int trace_enable; /* /proc/trs_chan/dev<N>-ts0/trace_enable */
	struct proc_dir_entry *core_proc_dir;
	/* /proc/trs_core/ts_inst/dev<N>-ts0/trace_enable: trs_core events */
	int core_trace_enable;

	u32 aic_free, aiv_free, aicpu_free;
	struct npusim_stream **streams; /* [max_streams] */
	struct list_head active; /* streams with queued tasks */

	u8 event_set[NPUSIM_MAX_EVENTS]; /* 1 = recorded, not yet waited */
	u8 notify_set[NPUSIM_MAX_NOTIFIES];
	u64 event_ns[NPUSIM_MAX_EVENTS]; /* end of the task that set it */
	u64 notify_ns[NPUSIM_MAX_NOTIFIES];
	DECLARE_BITMAP(event_used, NPUSIM_MAX_EVENTS);
	DECLARE_BITMAP(notify_used, NPUSIM_MAX_NOTIFIES);
	/* shared events (NPUSIM_IOC_SHR_ID) and their records in flight */
	u32 event_pending[NPUSIM_MAX_EVENTS]; /* records queued, not done */
	u32 event_gen[NPUSIM_MAX_EVENTS]; /* bumped at each allocation */
	u16 event_opens[NPUSIM_MAX_EVENTS]; /* opens by other files */
	DECLARE_BITMAP(event_shared, NPUSIM_MAX_EVENTS); /* opens allowed */
	DECLARE_BITMAP(event_orphan, NPUSIM_MAX_EVENTS); /* owner freed it */

	u64 cnt_offset_ns; /* device counter epoch offset from host time */
	u64 cq_overflow; /* CQEs lost to full CQs, on every stream so far */

	/* fault injection (fault.c); under npusim_lock. Stream ids are
	 * stored + 1 so that 0 (kvzalloc) means "no fault". */
	u32 fault_stall; /* stream + 1 whose completions are held */
	u64 fault_stall_until; /* host ns; 0: until cleared */
	u32 fault_drop; /* stream + 1 whose next completion is lost */
	u64 fault_dropped; /* completions dropped */
	u32 fault_cqfull; /* stream + 1 whose CQ the host stops consuming */
	u64 fault_resets; /* device resets */
	u64 fault_aborted; /* tasks aborted by them */
	u64 fault_unknown; /* CQEs emitted for tasks never submitted */

	/* user-mode send (uio.c), when send_mode is not KIO */
	u32 send_mode; /* enum npusim_send_mode of new streams */
	unsigned long *uio_pending; /* [max_streams] bits: triggered */
	struct workqueue_struct *sq_wq; /* "dev<N>_sq_send_wq" */
	struct work_struct sq_work; /* the trigger's work */
	int sq_work_retry;
	struct task_struct *sq_task; /* "dev<N>_sq_task": polls the queues */
	int sq_task_flag; /* a trigger came: the poller starts */

	/* the STARS SoC log, profiling channel 50 (stars.c) */
	struct npusim_chan_ring *stars; /* the running channel's ring, or NULL */
	spinlock_t stars_lock; /* the pointer and the producer's side */
	struct mutex prof_lock; /* start, read and stop (every channel) */

	/* the AI Core frequency and profiling channel 132 (lp.c) */
	u32 aicore_cur_mhz; /* MHz, under lp_lock; read with READ_ONCE */
	struct npusim_chan_ring *lp; /* the running channel's ring, or NULL */
	spinlock_t lp_lock; /* the frequency, the pointer, the producer */

	/* logic CQs (logic_cq.c): the id table under lcq_lock */
	struct npusim_logic_cq **lcqs; /* [max_streams] */
	spinlock_t lcq_lock;
	u64 lcq_rx_drop; /* CQEs with drop_flag the driver discarded */
	u64 lcq_freed_drop; /* CQEs of streams bound to a freed logic CQ */
};

struct npusim_file {
	struct npusim_dev *dev;
	DECLARE_BITMAP(events, NPUSIM_MAX_EVENTS);
	DECLARE_BITMAP(notifies, NPUSIM_MAX_NOTIFIES);
	DECLARE_BITMAP(events_opened, NPUSIM_MAX_EVENTS); /* shared, opened */
};

/*
 * The files of the driver, each using only those below it:
 *   main.c    the char devices, their ioctls, stream creation; init/exit
 *   uio.c     user-mode submission: trigger, forwarding, mapping
 *   procfs.c  /proc/trs_chan/dev<D>-ts0/{trace_enable,summary,fault,
 *             aicore_freq}
 *   stream.c  a stream's lifetime, its soft queue, the SQ fill step
 *   sched.c   the device model: scheduling, completion, the device table
 *   fault.c   fault injection: which tasks are held or lost
 *   stars.c   the STARS SoC log: profiling channel 50's records and the
 *             profiling ioctls
 *   lp.c      the AI Core frequency and profiling channel 132's records
 *   chan_ring.c  a profiling channel's ring: start, read, stop
 *   logic_cq.c  logic CQs: the conversion of a bound stream's CQEs, their
 *             queue, allocation and the matching receive
 *   trace.c   the tracepoints and their call sites
 *   params.c  module parameters
 */

/* params.c */
extern unsigned int npusim_ndev;
extern unsigned int npusim_aicores;
extern unsigned int npusim_aicpus;
extern unsigned int npusim_sq_depth;
extern unsigned int npusim_max_streams;
extern unsigned int npusim_cqe_mode;
extern unsigned int npusim_counter_mhz;
extern unsigned int npusim_aicore_mhz;
extern unsigned int npusim_sdma_mbps;
extern bool npusim_trace_default;
extern bool npusim_cq_hold;
u32 npusim_param_send_mode(unsigned int devid);
int npusim_params_valid(void);

/* main.c */
int hal_kernel_trs_chan_create(struct trs_id_inst *inst,
			       struct trs_chan_para *para, int *chan_id);
void hal_kernel_trs_chan_destroy(struct trs_id_inst *inst, int chan_id);

/* stream.c */
struct npusim_stream *npusim_stream_get(struct npusim_file *f, u32 id);
void npusim_stream_put(struct npusim_stream *s);
void npusim_sq_fill_locked(struct npusim_stream *s,
			   const struct npusim_sqe *sqes,
			   const struct npusim_task_model *models, u32 n,
			   bool trace);
int npusim_uio_create(struct npusim_stream *s);
void npusim_uio_cancel(struct npusim_stream *s);
void npusim_uio_put(struct npusim_uio *q);
bool npusim_uio_pending(struct npusim_stream *s);
void npusim_uio_stats(struct npusim_stream *s, u64 *ok, u64 *fail);
extern const char *const npusim_send_mode_names[3];

/* uio.c */
int npusim_uio_mmap(struct npusim_file *f, struct vm_area_struct *vma);
int npusim_ioc_sq_uio_info(struct npusim_file *f, void __user *uarg);
int npusim_ioc_sq_trigger(struct npusim_file *f, void __user *uarg);
int npusim_uio_dev_init(struct npusim_dev *dev);
void npusim_uio_dev_exit(struct npusim_dev *dev);

/* chan_ring.c: the ring of a running profiling channel */
struct npusim_chan_ring {
	struct npusim_file *owner; /* the file that started it */
	u8 *rec;
	u32 rec_size; /* bytes */
	u32 size; /* records, a power of two */
	u32 head; /* free-running: the producer's next (lp: open) record */
	u32 tail; /* free-running: the reader's next record */
	u64 records; /* written (lp: closed) since start */
	u64 dropped; /* lost to a full ring since start */
};

/* The record in slot @i (taken modulo the size). */
static inline void *npusim_chan_ring_at(struct npusim_chan_ring *r, u32 i)
{
	return r->rec + (size_t)(i & (r->size - 1)) * r->rec_size;
}

/* No free slot: the reader has not taken what is there. */
static inline bool npusim_chan_ring_full(struct npusim_chan_ring *r)
{
	return r->head - smp_load_acquire(&r->tail) >= r->size;
}

struct npusim_chan_ring *npusim_chan_ring_new(struct npusim_file *f, u32 nrec,
					      u32 rec_size);
void npusim_chan_ring_free(struct npusim_chan_ring *r);
int npusim_chan_ring_attach(struct npusim_dev *dev,
			    struct npusim_chan_ring **slot, spinlock_t *lock,
			    struct npusim_chan_ring *r,
			    void (*first)(struct npusim_dev *dev,
					  struct npusim_chan_ring *r));
struct npusim_chan_ring *npusim_chan_ring_detach(struct npusim_dev *dev,
						 struct npusim_chan_ring **slot,
						 spinlock_t *lock,
						 struct npusim_file *f);
int npusim_chan_ring_read(struct npusim_dev *dev,
			  struct npusim_chan_ring **slot, spinlock_t *lock,
			  struct npusim_file *f, struct npusim_prof_read *a,
			  void (*close)(struct npusim_chan_ring *r));

/* stars.c */
void npusim_stars_dev_init(struct npusim_dev *dev);
void npusim_stars_task(struct npusim_stream *s, const struct npusim_sqe *sqe,
		       u32 func, u64 cnt);
int npusim_ioc_prof_start(struct npusim_file *f, void __user *uarg);
int npusim_ioc_prof_read(struct npusim_file *f, void __user *uarg);
int npusim_ioc_prof_stop(struct npusim_file *f, void __user *uarg);
void npusim_stars_release(struct npusim_file *f);
bool npusim_stars_stats(struct npusim_dev *dev, u64 *records, u64 *dropped);

/* The device's current AI Core frequency, MHz (set in lp.c). */
static inline u32 npusim_aicore_cur_mhz(const struct npusim_dev *dev)
{
	return READ_ONCE(dev->aicore_cur_mhz);
}

/* lp.c */
void npusim_lp_dev_init(struct npusim_dev *dev);
int npusim_aicore_freq_set(struct npusim_dev *dev, u32 mhz);
int npusim_lp_start(struct npusim_file *f, const struct npusim_prof_start *a);
int npusim_lp_read(struct npusim_file *f, struct npusim_prof_read *a);
int npusim_lp_stop(struct npusim_file *f);

/* logic_cq.c */
int npusim_logic_cq_dev_init(struct npusim_dev *dev);
void npusim_logic_cq_dev_exit(struct npusim_dev *dev);
bool npusim_logic_cq_take_locked(struct npusim_stream *s,
				 const struct npusim_cqe *cqe);
struct npusim_logic_cq *npusim_logic_cq_get(struct npusim_file *f, u32 id);
void npusim_logic_cq_put(struct npusim_logic_cq *cq);
int npusim_ioc_logic_cq_alloc(struct npusim_file *f, void __user *uarg);
int npusim_ioc_logic_cq_free(struct npusim_file *f, void __user *uarg);
int npusim_ioc_logic_cq_recv(struct npusim_file *f, void __user *uarg);
void npusim_logic_cq_release(struct npusim_file *f);
void npusim_logic_cq_show(struct npusim_dev *dev, struct seq_file *m);

/* sched.c: the task at SQ position @pos queued (an event record is then
 * in flight), the records of positions [from, to) dropped */
void npusim_event_queued_locked(struct npusim_stream *s, u32 pos);
void npusim_event_unqueue_locked(struct npusim_stream *s, u32 from, u32 to);

/* trace.c */
void npusim_trace_sqe(struct npusim_stream *s, const struct npusim_sqe *sqe);
void npusim_trace_cqe(struct npusim_stream *s, const char *what,
		      const struct npusim_cqe *cqe, u32 pos);
void npusim_trace_recv_cqe(struct npusim_stream *s, u32 pos);
void npusim_trace_recv(struct npusim_stream *s, const char *what, u32 cqe_num,
		       u32 recv_num, int timeout);
void npusim_trace_logic_cqe(struct npusim_dev *dev, const char *what, u32 cqid,
			    u32 head, u32 tail,
			    const struct npusim_logic_cqe *l);
void npusim_trace_logic_cq_copy(struct npusim_dev *dev, const char *what,
				u32 cqid, u32 head, u32 tail,
				const struct npusim_logic_cqe *l, u32 n);
void npusim_trace_logic_cq_recv(struct npusim_dev *dev, const char *what,
				u32 cqid, u32 report_cqe_num, int timeout);

/* fault.c */
struct npusim_fault_report {
	u32 stall; /* stream + 1, 0: none */
	u64 stall_until; /* host ns, 0: until cleared */
	u32 drop; /* stream + 1, 0: none */
	u64 dropped;
	u32 cqfull; /* stream + 1, 0: none */
	u64 resets, aborted, unknown;
	u64 cq_overflow; /* dev->cq_overflow */
	bool have_task; /* the stalled stream has a task queued: */
	u32 task, queued;
};
bool npusim_fault_hold_locked(struct npusim_dev *dev, struct npusim_stream *s,
			      u64 now, u64 *release);
bool npusim_fault_drop_locked(struct npusim_dev *dev, struct npusim_stream *s);
void npusim_fault_stall_locked(struct npusim_dev *dev, u32 stream, u32 ms,
			       u64 now);
void npusim_fault_drop_next_locked(struct npusim_dev *dev, u32 stream);
void npusim_fault_cqfull_locked(struct npusim_dev *dev, u32 stream);
bool npusim_fault_cq_stopped(struct npusim_stream *s);
void npusim_fault_reset_locked(struct npusim_dev *dev, u32 aborted);
u16 npusim_fault_unknown_task_locked(struct npusim_stream *s);
void npusim_fault_clear_locked(struct npusim_dev *dev);
void npusim_fault_report_locked(struct npusim_dev *dev,
				struct npusim_fault_report *r);

/* sched.c */
extern spinlock_t npusim_lock;
extern struct npusim_dev *npusim_devs[NPUSIM_MAX_DEVICES];
void npusim_sched_init(void);
void npusim_sched_exit(void);
void npusim_schedule_locked(void);
void npusim_reset_locked(struct npusim_dev *dev);
int npusim_cqe_unknown_locked(struct npusim_dev *dev, u32 stream, int task);
void npusim_wake_streams_locked(struct npusim_dev *dev);
/* The device counter at host CLOCK_MONOTONIC time @host_ns (inline: the
 * device model, the clock samples and the frequency channel all stamp
 * with it, and none of them calls another for it). */
static inline u64 npusim_dev_counter(const struct npusim_dev *dev, u64 host_ns)
{
	return mul_u64_u32_div(host_ns + dev->cnt_offset_ns,
			       npusim_counter_mhz * 1000000U, NSEC_PER_SEC);
}
int npusim_sqe_validate(const struct npusim_sqe *sqe, u32 stream_id);
int npusim_model_validate(const struct npusim_sqe *sqe,
			  const struct npusim_task_model *m);

/* procfs.c */
int npusim_procfs_init(void);
int npusim_procfs_add(struct npusim_dev *dev);
void npusim_procfs_exit(void);

#endif /* _NPUSIM_H */
