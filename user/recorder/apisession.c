/*
 * apisession.c - an aclprofStart collection as a complete session: the
 * PROF_* directory with the files `npuprof record` writes (user/export/
 * session.c, compiled into the recorder too: one definition of the format)
 * and, when the config collects task times on devices, the capture of this
 * process's own device tasks.
 *
 * The capture is npuprof.ko's: the kmod engine (user/capture/engine_kmod.c,
 * also compiled in: ioctl, read-only mmap of the per-CPU rings and the
 * k-way merge, libc only) configured for our own pid and the configured
 * devices, which the module allows an unprivileged process. A reader thread
 * (all signals blocked) waits on the rings as `npuprof record` does (100 ms
 * poll), appends what it reads to kernel/npuprof.kernel.raw (user/capture/
 * rawkern.c) and adds the devices' clock-sync samples at the start, once a
 * second and at the end. The devices' STARS SoC logs (the device times,
 * user/device/starslog.c) are started with the capture and drained by the
 * same reader, as `npuprof record` does. Stop joins the reader, stops the
 * capture and drains the rings and the logs on the calling thread.
 *
 * Without /dev/npuprof the session is host-only (engine=host, one warning):
 * export then takes task times from the runtime's task tracks.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "apisession.h"
#include "npuprof/engine.h"
#include "npuprof/rawkern.h"
#include "npuprof/session.h"
#include "starslog.h"
#include "trace_switch.h"

#define READ_WAIT_MS 100 /* as `npuprof record` */
#define CLOCK_SYNC_NS 1000000000ULL
#define REARM_NS 500000000ULL

static struct npuprof_session g_s; /* under aclprof's lock, and the reader's */
static int g_have_session;
static uint32_t g_dev_mask;

static struct npuprof_engine g_e;
static struct trace_switches g_sw;
static struct npuprof_rawk_writer *g_raw;
static pthread_t g_reader;
static _Atomic int g_reader_stop;
static int g_capturing;
static struct starslog g_stars; /* started with the capture */
static int g_lp; /* the config records AI Core metrics: ai_core_lpm */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* /proc/self/cmdline with spaces between the arguments. */
static void own_cmd(char *out, size_t len)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, out, len - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		out[0] = '\0';
		return;
	}
	out[n] = '\0';
	for (ssize_t i = 0; i < n - 1; i++)
		if (!out[i])
			out[i] = ' ';
}

int apisession_create(const struct apisession_config *cfg, char *dir, size_t dirlen, char *err,
		      size_t errlen)
{
	struct npuprof_session *s = &g_s;
	int keep = 0, r;

	npuprof_session_init(s);
	/* only the configured devices belong to this session (the config's ids
	 * were checked against the runtime's device count) */
	g_dev_mask = 0;
	for (uint32_t k = 0; k < cfg->dev_count; k++)
		if (cfg->dev_ids[k] < NPUPROF_MAX_DEVICES)
			g_dev_mask |= 1u << cfg->dev_ids[k];
	for (int i = 0; i < s->ndev; i++)
		if (s->dev[i].id < NPUPROF_MAX_DEVICES && (g_dev_mask & (1u << s->dev[i].id)))
			s->dev[keep++] = s->dev[i];
	s->ndev = keep;
	s->pid = (uint32_t)getpid();
	s->switches = cfg->switches;
	/* the AI Core frequency's channel runs with valid AI Core metrics
	 * (msprof's ai_core_lpm; docs/ascend-reference.md §3.14) */
	g_lp = (cfg->switches & ACL_PROF_AICORE_METRICS) && cfg->aicore_metrics != ACL_AICORE_NONE;
	snprintf(s->engine, sizeof(s->engine), "%s", NPUPROF_ENGINE_HOST);
	own_cmd(s->cmd, sizeof(s->cmd));
	r = npuprof_session_create(s, cfg->parent, err, errlen);
	if (r < 0)
		return r;
	g_have_session = 1;
	if ((size_t)snprintf(dir, dirlen, "%s", s->dir) >= dirlen) {
		snprintf(err, errlen, "%s: path too long", s->dir);
		return -ENAMETOOLONG;
	}
	return 0;
}

static void *reader_main(void *arg)
{
	uint64_t last_sync = mono_ns(), last_rearm = last_sync;

	(void)arg;
	while (!atomic_load_explicit(&g_reader_stop, memory_order_acquire)) {
		uint64_t now;

		g_e.ops->wait(&g_e, READ_WAIT_MS);
		if (g_e.ops->read(&g_e, npuprof_rawk_append, g_raw) < 0)
			break;
		starslog_drain(&g_stars);
		now = mono_ns();
		if (now - last_sync >= CLOCK_SYNC_NS) {
			npuprof_session_clock_sync(&g_s, npuprof_rawk_append, g_raw);
			npuprof_rawk_flush(g_raw);
			last_sync = now;
		}
		if (now - last_rearm >= REARM_NS) {
			/* a reloaded driver starts with its switches off */
			trace_switch_on(&g_sw);
			last_rearm = now;
		}
	}
	return NULL;
}

/* Undo a capture that did not start. */
static void capture_abort(void)
{
	if (g_raw) {
		npuprof_rawk_close(g_raw);
		g_raw = NULL;
	}
	trace_switch_restore(&g_sw);
	if (g_e.priv)
		g_e.ops->close(&g_e);
	memset(&g_e, 0, sizeof(g_e));
	snprintf(g_s.engine, sizeof(g_s.engine), "%s", NPUPROF_ENGINE_HOST);
}

void apisession_capture_start(void)
{
	struct npuprof_capture_opts o;
	char path[4400], err[1024];
	sigset_t all, old;
	int r;

	/* task time at level 0 (torch_npu's Level0) or above */
	if (!g_have_session || !(g_s.switches & (ACL_PROF_TASK_TIME | ACL_PROF_TASK_TIME_L0)) ||
	    !g_dev_mask)
		return; /* nothing on a device to capture */
	if (access("/dev/npuprof", F_OK) != 0) {
		fprintf(stderr,
			"npuprof: warning: /dev/npuprof is missing (npuprof.ko is not loaded): %s is a host-only session; its task times will come from the host\n",
			g_s.dir);
		return;
	}
	memset(&o, 0, sizeof(o));
	o.pid = g_s.pid;
	o.dev_mask = g_dev_mask;
	memset(&g_e, 0, sizeof(g_e));
	memset(&g_sw, 0, sizeof(g_sw));
	g_e.ops = &npuprof_engine_kmod;
	r = g_e.ops->open(&g_e, &o);
	if (r < 0) {
		fprintf(stderr,
			"npuprof: warning: no device capture (%s): %s is a host-only session; its task times will come from the host\n",
			g_e.err, g_s.dir);
		memset(&g_e, 0, sizeof(g_e));
		return;
	}
	trace_switch_on(&g_sw);
	snprintf(path, sizeof(path), "%s/%s", g_s.dir, NPUPROF_KERNEL_RAW);
	snprintf(g_s.engine, sizeof(g_s.engine), "%s", g_e.ops->name);
	r = npuprof_rawk_create(&g_raw, path, g_e.ops->name, 0, 0, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "npuprof: warning: no device capture (%s): host-only session\n",
			err);
		capture_abort();
		return;
	}
	npuprof_session_clock_sync(&g_s, npuprof_rawk_append, g_raw);
	if (g_e.ops->start(&g_e) < 0) {
		fprintf(stderr,
			"npuprof: warning: no device capture (%s): %s is a host-only session\n",
			g_e.err, g_s.dir);
		capture_abort();
		return;
	}
	trace_switch_warn("npuprof", g_sw.failed, 0, 1);
	starslog_start(&g_stars, &g_s, "npuprof", stderr, g_lp);
	atomic_store(&g_reader_stop, 0);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&g_reader, NULL, reader_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r) {
		fprintf(stderr, "npuprof: warning: no device capture (reader thread: %s)\n",
			strerror(r));
		starslog_finish(&g_stars, &g_s, err, sizeof(err));
		g_e.ops->stop(&g_e);
		capture_abort();
		return;
	}
	g_capturing = 1;
}

int apisession_capturing(void)
{
	return g_capturing;
}

int apisession_finish(char *err, size_t errlen)
{
	int r = 0, w;

	if (!g_have_session)
		return 0;
	if (g_capturing) {
		struct npuprof_stats st;
		char serr[1024];

		atomic_store_explicit(&g_reader_stop, 1, memory_order_release);
		pthread_join(g_reader, NULL);
		g_capturing = 0;
		g_e.ops->stop(&g_e);
		g_e.ops->read(&g_e, npuprof_rawk_append, g_raw);
		memset(&st, 0, sizeof(st));
		if (g_e.ops->stats(&g_e, &st) == 0) {
			g_s.written = st.written;
			g_s.dropped = st.dropped;
			g_s.filtered = st.filtered;
			g_s.sampled_out = st.sampled_out;
			g_s.overwritten = st.overwritten;
		}
		npuprof_session_clock_sync(&g_s, npuprof_rawk_append, g_raw);
		w = npuprof_rawk_close(g_raw);
		g_raw = NULL;
		if (w < 0) {
			snprintf(err, errlen, "writing %s/%s failed: %s", g_s.dir,
				 NPUPROF_KERNEL_RAW, strerror(-w));
			r = w;
		}
		w = starslog_finish(&g_stars, &g_s, serr, sizeof(serr));
		if (w < 0 && !r) {
			snprintf(err, errlen, "%s", serr);
			r = w;
		}
		trace_switch_warn("npuprof", 0, g_sw.unknown, g_s.written);
		trace_switch_restore(&g_sw);
		g_e.ops->close(&g_e);
		memset(&g_e, 0, sizeof(g_e));
	}
	g_have_session = 0;
	w = npuprof_session_finish(&g_s, r ? NULL : err, r ? 0 : errlen);
	return r ? r : w;
}
