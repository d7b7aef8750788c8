// SPDX-License-Identifier: GPL-2.0
/*
 * Probes on the Ascend driver's trs_chan tracepoints (sqe, cqe, recv),
 * attached whether the driver loads before or after us. Device task times
 * are not a tracepoint's: they come from the STARS SoC log, which npuprof
 * record drains from the device (user/tools/npuprof/starslog.c).
 *
 * A tracepoint module notifier tells us when a module with tracepoints comes
 * or goes (it also replays the modules already loaded). For the driver
 * modules we know (module parameter `drivers`), we register our probes on
 * the tracepoints by name and unregister them when the module goes away,
 * even in the middle of a capture.
 *
 * Each probe first asks every running session whether it keeps the record
 * (the decision both engines share, include/uapi/npuprof_filter.h); only if
 * one does is the record encoded (the shared encoders of uapi/npuprof.h),
 * straight into its slot in this CPU's ring of each session that keeps it.
 *
 * A submit is attributed to the process that created its SQ's channel: a
 * kretprobe on the driver's hal_kernel_trs_chan_create (in the creating
 * process) and a kprobe on hal_kernel_trs_chan_destroy keep the SQ owner
 * table (uapi/npuprof_filter.h), shared by all sessions; they are
 * registered with the tracepoint probes, on the same driver module.
 *
 * Probe timing (module parameter `probe_stats`, off by default, like the
 * kernel's bpf_stats_enabled for BPF programs): while it is 1 each probe
 * hit is timed with local_clock() and counted per CPU; reading the
 * parameter `probe_time` gives "<tracepoint> <hits> <ns>" per line, and
 * writing 0 to probe_stats and 1 again starts the counts over. Off, a probe
 * pays one predictable branch for it.
 *
 * Tracepoint bracket (module parameter `tp_bracket`, off by default): while
 * it is 1, two more probes sit on each tracepoint, one called before every
 * other probe and one after them all (tracepoint priorities), and the time
 * between them is counted per tracepoint like probe_time (parameter
 * `tp_time`): the cost of all the tracepoint's probes, whoever's they are
 * (ftrace's event, BPF programs through their trampoline, ours), measured
 * the same way. The benchmark takes ftrace's cost per hit from it.
 *
 * Probe mode (module parameter `probe_mode`, a measurement mode for the
 * benchmark's floors, tests/vm/bench.sh; "full" by default): "empty" makes
 * each tracepoint probe return as soon as the tracepoint has called it
 * (no session is asked, nothing is counted or written); "nowrite" runs the
 * sessions' decision and the encoder, and leaves out the ring write (the
 * header's time stamp, the ring's room check, the copy, the head and the
 * wake-up); "nostamp" writes every record without reading the clock
 * (time 0), so the clock read's share of the ring write shows. Captures
 * are incomplete or untimed in these: never set it outside a measurement.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/cred.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include "npuprof_k.h"

static char *np_drivers = "npusim,asdrv_trsbase";
module_param_named(drivers, np_drivers, charp, 0444);
MODULE_PARM_DESC(
	drivers,
	"comma-separated modules whose trs_chan tracepoints are probed");

/* ---- probe timing ------------------------------------------------------ */
#define NP_NTP 3 /* the tracepoints probed: np_wanted[] */
struct np_ptime {
	u64 hits[NP_NTP], ns[NP_NTP]; /* by np_wanted[] index */
};
static DEFINE_PER_CPU(struct np_ptime, np_ptime);
static bool np_pstats;

static int np_pstats_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int cpu, r = kstrtobool(val, &on);

	if (r)
		return r;
	if (on && !READ_ONCE(np_pstats))
		for_each_possible_cpu(cpu)
			memset(per_cpu_ptr(&np_ptime, cpu), 0,
			       sizeof(struct np_ptime));
	WRITE_ONCE(np_pstats, on);
	return 0;
}

static const struct kernel_param_ops np_pstats_ops = {
	.set = np_pstats_set,
	.get = param_get_bool,
};
module_param_cb(probe_stats, &np_pstats_ops, &np_pstats, 0644);
MODULE_PARM_DESC(probe_stats, "1: time every probe hit (see probe_time)");

/* ---- probe mode (measurement only) ----------------------------------- */
enum {
	NP_MODE_FULL,
	NP_MODE_EMPTY,
	NP_MODE_NOWRITE,
	NP_MODE_NOSTAMP,
	NP_NMODES
};
static const char *const np_mode_names[NP_NMODES] = { "full", "empty",
						      "nowrite", "nostamp" };
static int np_mode; /* NP_MODE_* */

static int np_mode_set(const char *val, const struct kernel_param *kp)
{
	int m = sysfs_match_string(np_mode_names, val);

	if (m < 0)
		return -EINVAL;
	WRITE_ONCE(np_mode, m);
	return 0;
}

static int np_mode_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n",
			 np_mode_names[READ_ONCE(np_mode)]);
}

static const struct kernel_param_ops np_mode_ops = {
	.set = np_mode_set,
	.get = np_mode_get,
};
module_param_cb(probe_mode, &np_mode_ops, NULL, 0644);
MODULE_PARM_DESC(
	probe_mode,
	"measurement only: full (default), empty (probes return at once), nowrite (no ring write), nostamp (no clock read)");

static const char *const np_tp_names[NP_NTP] = { "sqe", "cqe", "recv" };

/* "<tracepoint> <hits> <ns>" per line, summed over the CPUs, of the
 * per-CPU struct np_ptime the parameter names (probe_time, tp_time) */
static int np_times_get(char *buf, const struct kernel_param *kp)
{
	struct np_ptime __percpu *pt = (struct np_ptime __percpu *)kp->arg;
	int i, cpu, n = 0;

	for (i = 0; i < NP_NTP; i++) {
		u64 hits = 0, ns = 0;

		for_each_possible_cpu(cpu) {
			hits += per_cpu_ptr(pt, cpu)->hits[i];
			ns += per_cpu_ptr(pt, cpu)->ns[i];
		}
		n += scnprintf(buf + n, PAGE_SIZE - n, "%s %llu %llu\n",
			       np_tp_names[i], hits, ns);
	}
	return n;
}

static const struct kernel_param_ops np_times_ops = {
	.get = np_times_get,
};
module_param_cb(probe_time, &np_times_ops, (void *)&np_ptime, 0444);
MODULE_PARM_DESC(probe_time,
		 "per tracepoint: hits and ns in the probe (probe_stats=1)");

/* ---- tracepoint bracket ------------------------------------------------ */
static DEFINE_PER_CPU(struct np_ptime, np_bktime);
static DEFINE_PER_CPU(u64[NP_NTP], np_bk_t0); /* by np_wanted[] index */
static bool np_bk_want, np_bk_reg;

static void np_bk_start(void *data, const char *str, struct trs_id_inst *inst,
			void *t)
{
	this_cpu_write(np_bk_t0[(long)data], local_clock());
}

static void np_bk_end(void *data, const char *str, struct trs_id_inst *inst,
		      void *t)
{
	long i = (long)data;

	this_cpu_add(np_bktime.ns[i],
		     local_clock() - this_cpu_read(np_bk_t0[i]));
	this_cpu_inc(np_bktime.hits[i]);
}

static void np_bk_apply(bool detaching);
static DEFINE_MUTEX(np_tp_mutex);

static int np_bk_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int cpu, r = kstrtobool(val, &on);

	if (r)
		return r;
	mutex_lock(&np_tp_mutex);
	if (on && !np_bk_want)
		for_each_possible_cpu(cpu)
			memset(per_cpu_ptr(&np_bktime, cpu), 0,
			       sizeof(struct np_ptime));
	np_bk_want = on;
	np_bk_apply(false);
	mutex_unlock(&np_tp_mutex);
	return 0;
}

static const struct kernel_param_ops np_bk_ops = {
	.set = np_bk_set,
	.get = param_get_bool,
};
module_param_cb(tp_bracket, &np_bk_ops, &np_bk_want, 0644);
MODULE_PARM_DESC(tp_bracket,
		 "1: time all probes of each tracepoint (see tp_time)");

module_param_cb(tp_time, &np_times_ops, (void *)&np_bktime, 0444);
MODULE_PARM_DESC(tp_time,
		 "per tracepoint: hits and ns in all its probes (tp_bracket=1)");

/* Time the probe body of tracepoint @i when probe_stats is on. */
#define NP_TIMED(i, body)                                                  \
	do {                                                               \
		if (likely(!READ_ONCE(np_pstats))) {                       \
			if (likely(READ_ONCE(np_mode) != NP_MODE_EMPTY))   \
				body;                                      \
		} else {                                                   \
			u64 t0_ = local_clock();                           \
			if (READ_ONCE(np_mode) != NP_MODE_EMPTY)           \
				body;                                      \
			this_cpu_add(np_ptime.ns[i], local_clock() - t0_); \
			this_cpu_inc(np_ptime.hits[i]);                    \
		}                                                          \
	} while (0)

static struct module *np_tp_owner; /* the driver module we are attached to */
static u32 np_attached;
static struct {
	struct tracepoint *tp;
	u32 bit;
	void *probe;
} np_tps[NP_NTP];

/* Register or unregister the bracket as wanted (np_tp_mutex held): only
 * on tracepoints we are attached to, and never while detaching. */
static void np_bk_apply(bool detaching)
{
	bool want = np_bk_want && np_tp_owner && !detaching;
	unsigned int j;

	if (want == np_bk_reg)
		return;
	for (j = 0; j < NP_NTP; j++) {
		struct tracepoint *tp = np_tps[j].tp;

		if (!tp)
			continue;
		if (want) {
			if (tracepoint_probe_register_prio(
				    tp, np_bk_start, (void *)(long)j,
				    TRACEPOINT_DEFAULT_PRIO + 1000))
				continue;
			if (tracepoint_probe_register_prio(
				    tp, np_bk_end, (void *)(long)j,
				    TRACEPOINT_DEFAULT_PRIO - 1000))
				tracepoint_probe_unregister(tp, np_bk_start,
							    (void *)(long)j);
		} else {
			tracepoint_probe_unregister(tp, np_bk_end,
						    (void *)(long)j);
			tracepoint_probe_unregister(tp, np_bk_start,
						    (void *)(long)j);
		}
	}
	np_bk_reg = want;
	if (!want)
		tracepoint_synchronize_unregister();
}

u32 np_probes_attached(void)
{
	return READ_ONCE(np_attached);
}

/* ---- the SQ owner table ------------------------------------------------ */
struct npuprof_sq_owner *np_sq_owner; /* [NPUPROF_SQ_OWNER_SLOTS] */

struct np_chan_args {
	struct trs_id_inst *inst;
	struct trs_chan_para *para;
	int *chan_id;
};

static int np_chan_create_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct np_chan_args *a = (struct np_chan_args *)ri->data;

	a->inst = (void *)regs_get_kernel_argument(regs, 0);
	a->para = (void *)regs_get_kernel_argument(regs, 1);
	a->chan_id = (void *)regs_get_kernel_argument(regs, 2);
	return 0;
}

/* A channel was created: it belongs to the current process. */
static int np_chan_create_ret(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct np_chan_args *a = (struct np_chan_args *)ri->data;
	struct trs_chan_type types;
	struct trs_id_inst inst;
	int chan_id;
	u32 idx;

	if (regs_return_value(regs) ||
	    copy_from_kernel_nofault(&inst, a->inst, sizeof(inst)) ||
	    copy_from_kernel_nofault(&types, &a->para->types, sizeof(types)) ||
	    copy_from_kernel_nofault(&chan_id, a->chan_id, sizeof(chan_id)))
		return 0;
	if (types.type != TRS_CHAN_TYPE_HW || chan_id < 0)
		return 0;
	idx = npuprof_sq_owner_index(inst.devid, chan_id);
	if (idx >= NPUPROF_SQ_OWNER_SLOTS)
		return 0;
	WRITE_ONCE(np_sq_owner[idx].uid,
		   from_kuid(&init_user_ns, current_euid()));
	smp_wmb(); /* a reader that sees the tgid sees its uid */
	WRITE_ONCE(np_sq_owner[idx].tgid, current->tgid);
	return 0;
}

static struct kretprobe np_chan_create_krp = {
	.kp.symbol_name = "hal_kernel_trs_chan_create",
	.entry_handler = np_chan_create_entry,
	.handler = np_chan_create_ret,
	.data_size = sizeof(struct np_chan_args),
	.maxactive = 64,
};

/* A channel is destroyed: its id may name another process's SQ next. */
static int np_chan_destroy_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct trs_id_inst inst;
	u32 idx;

	if (copy_from_kernel_nofault(&inst,
				     (void *)regs_get_kernel_argument(regs, 0),
				     sizeof(inst)))
		return 0;
	idx = npuprof_sq_owner_index(inst.devid,
				     (u32)regs_get_kernel_argument(regs, 1));
	if (idx < NPUPROF_SQ_OWNER_SLOTS)
		WRITE_ONCE(np_sq_owner[idx].tgid, 0);
	return 0;
}

static struct kprobe np_chan_destroy_kp = {
	.symbol_name = "hal_kernel_trs_chan_destroy",
	.pre_handler = np_chan_destroy_pre,
};

static bool np_owner_probes; /* both registered */

/* Probe @mod's channel creation and destruction, if it has them. */
static void np_owner_attach(struct module *mod)
{
	static char create[MODULE_NAME_LEN + 32], destroy[MODULE_NAME_LEN + 32];
	int ret;

	snprintf(create, sizeof(create), "%s:hal_kernel_trs_chan_create",
		 mod->name);
	snprintf(destroy, sizeof(destroy), "%s:hal_kernel_trs_chan_destroy",
		 mod->name);
	memset(&np_chan_create_krp.kp, 0, sizeof(np_chan_create_krp.kp));
	np_chan_create_krp.kp.symbol_name = create;
	memset(&np_chan_destroy_kp, 0, sizeof(np_chan_destroy_kp));
	np_chan_destroy_kp.symbol_name = destroy;
	np_chan_destroy_kp.pre_handler = np_chan_destroy_pre;
	memset(np_sq_owner, 0,
	       NPUPROF_SQ_OWNER_SLOTS * sizeof(struct npuprof_sq_owner));
	ret = register_kretprobe(&np_chan_create_krp);
	if (!ret) {
		ret = register_kprobe(&np_chan_destroy_kp);
		if (ret)
			unregister_kretprobe(&np_chan_create_krp);
	}
	np_owner_probes = !ret;
	if (ret)
		pr_warn("npuprof: %s: no channel creation probes (%d): submits are attributed to the current task\n",
			mod->name, ret);
}

static void np_owner_detach(void)
{
	if (!np_owner_probes)
		return;
	unregister_kprobe(&np_chan_destroy_kp);
	unregister_kretprobe(&np_chan_create_krp);
	np_owner_probes = false;
}

/* Who a record of @kind on channel @chan is judged by and attributed to.
 * A completion is judged by its SQ's owner alone: the current task is not
 * looked at. For the others the current task's uid is looked up only if
 * the SQ owner table does not name the process (the uid (u32)-1, which no
 * task's euid maps to, marks it as not taken). */
static __always_inline struct npuprof_who np_who(int kind, u32 devid, u32 chan)
{
	struct npuprof_filter f = { .sq_owner = np_sq_owner };
	struct npuprof_who w;

	if (kind == NPUPROF_KIND_TASK)
		return npuprof_filter_who(&f, kind, devid, chan, 0, 0);
	w = npuprof_filter_who(&f, kind, devid, chan, current->tgid, (u32)-1);
	if (w.uid == (u32)-1)
		w.uid = from_kuid(&init_user_ns, current_euid());
	return w;
}

/* The capture decision of session @s on one record of @kind. */
static int np_decide(struct np_session *s, int kind, u32 devid, u32 stream,
		     u32 task, const struct npuprof_who *who)
{
	return npuprof_filter_decide(&s->filter, kind, devid, stream, task,
				     who);
}

/*
 * Which running sessions keep a record of @type and @kind: they go into
 * @keep, and their number is returned. Each session counts the probe hit
 * and, if it rejects the record, why. Nothing is encoded yet.
 */
static __always_inline int np_select(struct np_session **keep, u32 type,
				     int kind, u32 devid, u32 stream, u32 task,
				     const struct npuprof_who *who)
{
	int i, n = 0;

	for (i = 0; i < NP_MAX_SESSIONS; i++) {
		struct np_session *s = rcu_dereference_sched(np_sessions[i]);
		struct np_pcpu_stats *st;

		if (!s || !npuprof_filter_wants(&s->filter, type))
			continue;
		st = this_cpu_ptr(s->stats);
		st->events[type]++;
		switch (np_decide(s, kind, devid, stream, task, who)) {
		case NPUPROF_KEEP: keep[n++] = s; break;
		case NPUPROF_FILTERED: st->filtered++; break;
		default: st->sampled_out++; break;
		}
	}
	return n;
}

/*
 * Writing a record to one session that keeps it: np_begin() returns where
 * to encode it (the ring slot itself, or NULL if the ring is full), and
 * np_end() publishes it. In probe_mode=nowrite the record is encoded into
 * @scratch and nothing is written.
 */
static __always_inline struct npuprof_record *np_begin(
	struct np_session *s, struct np_wr *w, struct npuprof_record *scratch)
{
	int mode = READ_ONCE(np_mode);

	if (unlikely(mode == NP_MODE_NOWRITE)) {
		w->ring = NULL;
		return scratch;
	}
	return np_ring_reserve(s, w, likely(mode != NP_MODE_NOSTAMP));
}

static __always_inline void np_end(struct np_session *s, struct np_wr *w,
				   struct npuprof_record *r)
{
	if (unlikely(!w->ring)) {
		barrier_data(r); /* the encoded record counts as used */
		return;
	}
	np_ring_commit(s, w, r);
}

/*
 * The probe bodies. The kernel may zero every stack variable on entry
 * (CONFIG_INIT_STACK_ALL_ZERO, Debian's default): 136 bytes a hit here, a
 * `rep stos` among them. The session list, the scratch record and the
 * writer state are written before they are read, so they opt out
 * (__uninitialized); nothing of them reaches a ring but what the encoders
 * wrote.
 */
static __always_inline void np_probe_sqe_body(void *data, const char *str,
					      struct trs_id_inst *inst,
					      struct trs_chan_sq_trace *t)
{
	struct np_session *keep[NP_MAX_SESSIONS] __uninitialized;
	struct npuprof_record scratch __uninitialized;
	struct npuprof_who who = np_who(NPUPROF_KIND_SUBMIT, inst->devid,
					t->chan_id);
	int i, n = np_select(keep, NPUPROF_REC_SUBMIT, NPUPROF_KIND_SUBMIT,
			     inst->devid, t->stream_id, t->task_id, &who);

	for (i = 0; i < n; i++) {
		struct np_wr w __uninitialized;
		struct npuprof_record *r = np_begin(keep[i], &w, &scratch);

		if (!r)
			continue;
		npuprof_encode_submit(r, inst, t);
		if (who.sq_owner)
			npuprof_encode_sq_owner(r, who.tgid);
		np_end(keep[i], &w, r);
	}
}

static __always_inline void np_probe_cqe_body(void *data, const char *str,
					      struct trs_id_inst *inst,
					      struct trs_chan_cq_trace *t)
{
	struct np_session *keep[NP_MAX_SESSIONS] __uninitialized;
	struct npuprof_record scratch __uninitialized;
	struct npuprof_who who = np_who(NPUPROF_KIND_TASK, inst->devid,
					t->chan_id);
	int i, n = np_select(keep, NPUPROF_REC_COMPLETE, NPUPROF_KIND_TASK,
			     inst->devid, t->stream_id, t->task_id, &who);
	int task_recv = n && str && !strcmp(str, TRS_CHAN_STR_TASK_RECV);

	for (i = 0; i < n; i++) {
		struct np_wr w __uninitialized;
		struct npuprof_record *r = np_begin(keep[i], &w, &scratch);

		if (!r)
			continue;
		npuprof_encode_complete(r, inst, t, task_recv);
		if (who.sq_owner)
			npuprof_encode_sq_owner(r, who.tgid);
		np_end(keep[i], &w, r);
	}
}

static __always_inline void np_probe_recv_body(void *data, const char *str,
					       struct trs_id_inst *inst,
					       struct trs_chan_recv_trace *t)
{
	struct np_session *keep[NP_MAX_SESSIONS] __uninitialized;
	struct npuprof_record scratch __uninitialized;
	struct npuprof_who who = np_who(NPUPROF_KIND_OTHER, inst->devid,
					t->chan_id);
	int i, n = np_select(keep, NPUPROF_REC_RECV, NPUPROF_KIND_OTHER,
			     inst->devid, t->chan_id, 0, &who);
	int finish = n && str && !strcmp(str, TRS_CHAN_STR_RECV_FINISH);

	for (i = 0; i < n; i++) {
		struct np_wr w __uninitialized;
		struct npuprof_record *r = np_begin(keep[i], &w, &scratch);

		if (!r)
			continue;
		npuprof_encode_recv(r, inst, t, finish);
		np_end(keep[i], &w, r);
	}
}

static void np_probe_sqe(void *data, const char *str, struct trs_id_inst *inst,
			 struct trs_chan_sq_trace *t)
{
	NP_TIMED(0, np_probe_sqe_body(data, str, inst, t));
}

static void np_probe_cqe(void *data, const char *str, struct trs_id_inst *inst,
			 struct trs_chan_cq_trace *t)
{
	NP_TIMED(1, np_probe_cqe_body(data, str, inst, t));
}

static void np_probe_recv(void *data, const char *str, struct trs_id_inst *inst,
			  struct trs_chan_recv_trace *t)
{
	NP_TIMED(2, np_probe_recv_body(data, str, inst, t));
}

static const struct {
	const char *name;
	u32 bit;
	void *probe;
} np_wanted[] = {
	{ "sqe", NPUPROF_TP_SQE, np_probe_sqe },
	{ "cqe", NPUPROF_TP_CQE, np_probe_cqe },
	{ "recv", NPUPROF_TP_RECV, np_probe_recv },
};

static bool np_is_driver(const char *modname)
{
	size_t len = strlen(modname);
	const char *p = np_drivers;

	while (p && *p) {
		const char *end = strchrnul(p, ',');

		if (end - p == len && !strncmp(p, modname, len))
			return true;
		p = *end ? end + 1 : NULL;
	}
	return false;
}

static void np_attach(struct module *mod)
{
	unsigned int i, j;

	if (np_tp_owner || !np_is_driver(mod->name))
		return;
	for (i = 0; i < mod->num_tracepoints; i++) {
		struct tracepoint *tp = tracepoint_ptr_deref(
			&mod->tracepoints_ptrs[i]);

		for (j = 0; j < ARRAY_SIZE(np_wanted); j++) {
			if (strcmp(tp->name, np_wanted[j].name) || np_tps[j].tp)
				continue;
			if (tracepoint_probe_register(tp, np_wanted[j].probe,
						      NULL)) {
				pr_warn("npuprof: cannot attach to %s:%s\n",
					mod->name, tp->name);
				continue;
			}
			np_tps[j].tp = tp;
			np_tps[j].probe = np_wanted[j].probe;
			np_attached |= np_wanted[j].bit;
		}
	}
	if (np_attached) {
		np_tp_owner = mod;
		np_owner_attach(mod);
		np_bk_apply(false);
		pr_info("npuprof: attached to %s (tracepoints %#x)\n",
			mod->name, np_attached);
	}
}

static void np_detach(void)
{
	unsigned int j;

	np_owner_detach();
	np_bk_apply(true); /* the bracket comes off first */
	for (j = 0; j < ARRAY_SIZE(np_tps); j++) {
		if (!np_tps[j].tp)
			continue;
		tracepoint_probe_unregister(np_tps[j].tp, np_tps[j].probe,
					    NULL);
		np_tps[j].tp = NULL;
	}
	if (np_tp_owner)
		pr_info("npuprof: detached from %s\n", np_tp_owner->name);
	WRITE_ONCE(np_attached, 0);
	np_tp_owner = NULL;
	/* no probe of ours runs on the going module's tracepoints after this */
	tracepoint_synchronize_unregister();
}

static int np_tp_notify(struct notifier_block *nb, unsigned long val,
			void *data)
{
	struct tp_module *tp_mod = data;

	mutex_lock(&np_tp_mutex);
	if (val == MODULE_STATE_COMING)
		np_attach(tp_mod->mod);
	else if (val == MODULE_STATE_GOING && tp_mod->mod == np_tp_owner)
		np_detach();
	mutex_unlock(&np_tp_mutex);
	return NOTIFY_OK;
}

static struct notifier_block np_tp_nb = {
	.notifier_call = np_tp_notify,
};

int np_probes_init(void)
{
	int ret;

	np_sq_owner = vzalloc(NPUPROF_SQ_OWNER_SLOTS *
			      sizeof(struct npuprof_sq_owner));
	if (!np_sq_owner)
		return -ENOMEM;
	ret = register_tracepoint_module_notifier(&np_tp_nb);
	if (ret) {
		vfree(np_sq_owner);
		np_sq_owner = NULL;
	}
	return ret;
}

void np_probes_exit(void)
{
	unregister_tracepoint_module_notifier(&np_tp_nb);
	mutex_lock(&np_tp_mutex);
	np_detach();
	mutex_unlock(&np_tp_mutex);
	vfree(np_sq_owner);
	np_sq_owner = NULL;
}
