// SPDX-License-Identifier: GPL-2.0
/*
 * Probes on the Ascend driver's trs_chan tracepoints (and npusim's
 * task_time), attached whether the driver loads before or after us.
 *
 * A tracepoint module notifier tells us when a module with tracepoints comes
 * or goes (it also replays the modules already loaded). For the driver
 * modules we know (module parameter `drivers`), we register our probes on
 * the tracepoints by name and unregister them when the module goes away,
 * even in the middle of a capture.
 *
 * Each probe first asks every running session whether it keeps the record
 * (the decision both engines share, include/uapi/npuprof_filter.h); only if
 * one does is the record encoded (the shared encoders of uapi/npuprof.h)
 * and appended to this CPU's ring of each session that keeps it.
 *
 * Probe timing (module parameter `probe_stats`, off by default, like the
 * kernel's bpf_stats_enabled for BPF programs): while it is 1 each probe
 * hit is timed with local_clock() and counted per CPU; reading the
 * parameter `probe_time` gives "<tracepoint> <hits> <ns>" per line, and
 * writing 0 to probe_stats and 1 again starts the counts over. Off, a probe
 * pays one predictable branch for it.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
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
struct np_ptime {
	u64 hits[4], ns[4]; /* by np_wanted[] index */
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

static const char *const np_tp_names[4] = { "sqe", "cqe", "recv", "task_time" };

static int np_ptime_get(char *buf, const struct kernel_param *kp)
{
	int i, cpu, n = 0;

	for (i = 0; i < 4; i++) {
		u64 hits = 0, ns = 0;

		for_each_possible_cpu(cpu) {
			hits += per_cpu_ptr(&np_ptime, cpu)->hits[i];
			ns += per_cpu_ptr(&np_ptime, cpu)->ns[i];
		}
		n += scnprintf(buf + n, PAGE_SIZE - n, "%s %llu %llu\n",
			       np_tp_names[i], hits, ns);
	}
	return n;
}

static const struct kernel_param_ops np_ptime_ops = {
	.get = np_ptime_get,
};
module_param_cb(probe_time, &np_ptime_ops, NULL, 0444);
MODULE_PARM_DESC(probe_time,
		 "per tracepoint: hits and ns in the probe (probe_stats=1)");

/* Time the probe body of tracepoint @i when probe_stats is on. */
#define NP_TIMED(i, body)                                                  \
	do {                                                               \
		if (likely(!READ_ONCE(np_pstats))) {                       \
			body;                                              \
		} else {                                                   \
			u64 t0_ = local_clock();                           \
			body;                                              \
			this_cpu_add(np_ptime.ns[i], local_clock() - t0_); \
			this_cpu_inc(np_ptime.hits[i]);                    \
		}                                                          \
	} while (0)

static DEFINE_MUTEX(np_tp_mutex);
static struct module *np_tp_owner; /* the driver module we are attached to */
static u32 np_attached;
static struct {
	struct tracepoint *tp;
	u32 bit;
	void *probe;
} np_tps[4];

u32 np_probes_attached(void)
{
	return READ_ONCE(np_attached);
}

/* The capture decision of session @s on one record of @kind. */
static int np_decide(struct np_session *s, int kind, u32 devid, u32 stream,
		     u32 task)
{
	bool allowed = kind == NPUPROF_KIND_TASK || s->privileged ||
		       uid_eq(current_euid(), s->uid);

	return npuprof_filter_decide(&s->filter, kind, devid, stream, task,
				     current->tgid, allowed);
}

/*
 * Which running sessions keep a record of @type and @kind: they go into
 * @keep, and their number is returned. Each session counts the probe hit
 * and, if it rejects the record, why. Nothing is encoded yet.
 */
static int np_select(struct np_session **keep, u32 type, int kind, u32 devid,
		     u32 stream, u32 task)
{
	int i, n = 0;

	for (i = 0; i < NP_MAX_SESSIONS; i++) {
		struct np_session *s = rcu_dereference_sched(np_sessions[i]);
		struct np_pcpu_stats *st;

		if (!s || !npuprof_filter_wants(&s->filter, type))
			continue;
		st = this_cpu_ptr(s->stats);
		st->events[type]++;
		switch (np_decide(s, kind, devid, stream, task)) {
		case NPUPROF_KEEP: keep[n++] = s; break;
		case NPUPROF_FILTERED: st->filtered++; break;
		default: st->sampled_out++; break;
		}
	}
	return n;
}

/* Append the encoded record to the rings of the sessions that keep it. */
static void np_write(struct np_session **keep, int n, struct npuprof_record *r)
{
	int i;

	for (i = 0; i < n; i++)
		np_ring_write(keep[i], r);
}

static __always_inline void np_probe_sqe_body(void *data, const char *str,
					      struct trs_id_inst *inst,
					      struct trs_chan_sq_trace *t)
{
	struct np_session *keep[NP_MAX_SESSIONS];
	struct npuprof_record r;
	int n = np_select(keep, NPUPROF_REC_SUBMIT, NPUPROF_KIND_SUBMIT,
			  inst->devid, t->stream_id, t->task_id);

	if (!n)
		return;
	npuprof_encode_submit(&r, inst, t);
	np_write(keep, n, &r);
}

static __always_inline void np_probe_cqe_body(void *data, const char *str,
					      struct trs_id_inst *inst,
					      struct trs_chan_cq_trace *t)
{
	struct np_session *keep[NP_MAX_SESSIONS];
	struct npuprof_record r;
	int n = np_select(keep, NPUPROF_REC_COMPLETE, NPUPROF_KIND_TASK,
			  inst->devid, t->stream_id, t->task_id);

	if (!n)
		return;
	npuprof_encode_complete(&r, inst, t,
				str && !strcmp(str, TRS_CHAN_STR_TASK_RECV));
	np_write(keep, n, &r);
}

static __always_inline void np_probe_recv_body(void *data, const char *str,
					       struct trs_id_inst *inst,
					       struct trs_chan_recv_trace *t)
{
	struct np_session *keep[NP_MAX_SESSIONS];
	struct npuprof_record r;
	int n = np_select(keep, NPUPROF_REC_RECV, NPUPROF_KIND_OTHER,
			  inst->devid, t->chan_id, 0);

	if (!n)
		return;
	npuprof_encode_recv(&r, inst, t,
			    str && !strcmp(str, TRS_CHAN_STR_RECV_FINISH));
	np_write(keep, n, &r);
}

static __always_inline void np_probe_task_time_body(
	void *data, struct trs_id_inst *inst, struct npusim_task_time_trace *t)
{
	struct np_session *keep[NP_MAX_SESSIONS];
	struct npuprof_record r;
	int n = np_select(keep, NPUPROF_REC_TASK_TIME, NPUPROF_KIND_TASK,
			  inst->devid, t->stream_id, t->task_id);

	if (!n)
		return;
	npuprof_encode_task_time(&r, inst, t);
	np_write(keep, n, &r);
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

static void np_probe_task_time(void *data, struct trs_id_inst *inst,
			       struct npusim_task_time_trace *t)
{
	NP_TIMED(3, np_probe_task_time_body(data, inst, t));
}

static const struct {
	const char *name;
	u32 bit;
	void *probe;
} np_wanted[] = {
	{ "sqe", NPUPROF_TP_SQE, np_probe_sqe },
	{ "cqe", NPUPROF_TP_CQE, np_probe_cqe },
	{ "recv", NPUPROF_TP_RECV, np_probe_recv },
	{ "task_time", NPUPROF_TP_TASK_TIME, np_probe_task_time },
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
		pr_info("npuprof: attached to %s (tracepoints %#x)\n",
			mod->name, np_attached);
	}
}

static void np_detach(void)
{
	unsigned int j;

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
	return register_tracepoint_module_notifier(&np_tp_nb);
}

void np_probes_exit(void)
{
	unregister_tracepoint_module_notifier(&np_tp_nb);
	mutex_lock(&np_tp_mutex);
	np_detach();
	mutex_unlock(&np_tp_mutex);
}
