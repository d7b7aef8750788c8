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
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/cred.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include "npuprof_k.h"

static char *np_drivers = "npusim,asdrv_trsbase";
module_param_named(drivers, np_drivers, charp, 0444);
MODULE_PARM_DESC(
	drivers,
	"comma-separated modules whose trs_chan tracepoints are probed");

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

static void np_probe_sqe(void *data, const char *str, struct trs_id_inst *inst,
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

static void np_probe_cqe(void *data, const char *str, struct trs_id_inst *inst,
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

static void np_probe_recv(void *data, const char *str, struct trs_id_inst *inst,
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

static void np_probe_task_time(void *data, struct trs_id_inst *inst,
			       struct npusim_task_time_trace *t)
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
