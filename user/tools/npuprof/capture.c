/*
 * capture.c — the capture loop shared by npuprof's capturing commands.
 */
#include "capture.h"
#include "throttle.h"
#include "numparse.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_flag;
static struct npuprof_engine *clock_engine; /* the open engine, for its clock */

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

uint64_t capture_now_ns(void)
{
	return npuprof_engine_now(clock_engine);
}

void capture_devices(const struct capture_args *a, struct npuprof_session *s)
{
	if (!a->from) {
		npuprof_session_init(s);
	} else if (a->from_session) {
		*s = *a->from_session;
	} else {
		memset(s, 0, sizeof(*s));
	}
}

void capture_args_free(struct capture_args *a)
{
	free(a->from_session);
	a->from_session = NULL;
}

/* --from PATH: a session directory or a raw kernel stream (whose session,
 * if it is in one, gives the end time and the devices). */
static int set_from(struct capture_args *a, const char *tool, const char *path)
{
	struct stat st;
	char dir[4200], err[512];
	size_t n;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "%s: --from %s: %s\n", tool, path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(dir, sizeof(dir), "%s", path);
		if ((size_t)snprintf(a->from_raw, sizeof(a->from_raw), "%s/%s", path,
				     NPUPROF_KERNEL_RAW) >= sizeof(a->from_raw)) {
			fprintf(stderr, "%s: --from %s: path too long\n", tool, path);
			return -1;
		}
	} else {
		snprintf(a->from_raw, sizeof(a->from_raw), "%s", path);
		/* <session>/kernel/npuprof.kernel.raw */
		snprintf(dir, sizeof(dir), "%s", path);
		n = strlen(dir);
		if (n > strlen(NPUPROF_KERNEL_RAW) &&
		    !strcmp(dir + n - strlen(NPUPROF_KERNEL_RAW), NPUPROF_KERNEL_RAW) &&
		    dir[n - strlen(NPUPROF_KERNEL_RAW) - 1] == '/')
			dir[n - strlen(NPUPROF_KERNEL_RAW) - 1] = '\0';
		else
			dir[0] = '\0';
	}
	free(a->from_session);
	a->from_session = NULL;
	if (dir[0]) {
		a->from_session = malloc(sizeof(*a->from_session));
		if (!a->from_session)
			return -1;
		if (npuprof_session_load(a->from_session, dir, err, sizeof(err)) < 0) {
			if (S_ISDIR(st.st_mode)) {
				fprintf(stderr, "%s: --from %s: %s\n", tool, path, err);
				return -1;
			}
			free(a->from_session); /* a raw stream alone will do */
			a->from_session = NULL;
		}
	}
	a->from = path;
	a->o.source = a->from_raw;
	a->o.source_end_ns = a->from_session ? a->from_session->end_monotonic_ns : 0;
	return 0;
}

void capture_args_init(struct capture_args *a)
{
	memset(a, 0, sizeof(*a));
	a->engine = "auto";
}

/* Longest --duration: a year. */
#define MAX_DURATION_S 31536000.0
/* --window bounds (ms): a period of at most a day. */
#define MAX_WINDOW_MS 86400000u

/* "ON/PERIOD" of --window, both in ms, 1 <= ON <= PERIOD. */
static int parse_window(struct capture_args *a, const char *tool, const char *arg)
{
	char on[32];
	const char *slash = strchr(arg, '/');
	uint32_t on_ms, period_ms;

	if (!slash || (size_t)(slash - arg) >= sizeof(on)) {
		fprintf(stderr, "%s: --window: '%s' is not ON_MS/PERIOD_MS (e.g. 100/1000)\n", tool,
			arg);
		return -1;
	}
	memcpy(on, arg, (size_t)(slash - arg));
	on[slash - arg] = '\0';
	if (opt_u32(tool, "--window PERIOD_MS", slash + 1, 1, MAX_WINDOW_MS, &period_ms) < 0 ||
	    opt_u32(tool, "--window ON_MS", on, 1, period_ms, &on_ms) < 0)
		return -1;
	a->window_on_ms = on_ms;
	a->window_period_ms = period_ms;
	return 0;
}

/* Handle one shared option; 1 if it was one, 0 if not, -1 on a bad value
 * (the message, naming the option and its valid range, is printed). */
static int capture_parse_opt(struct capture_args *a, const char *tool, int opt, const char *arg)
{
	uint32_t ids[32];
	uint64_t kb;
	int pid, n;

	switch (opt) {
	case CAP_OPT_ENGINE: a->engine = arg; return 1;
	case CAP_OPT_FROM: return set_from(a, tool, arg) < 0 ? -2 : 1;
	case CAP_OPT_PID:
		/* 4194304: the kernel's PID_MAX_LIMIT */
		if (opt_int(tool, "--pid", arg, 1, 4194304, &pid) < 0)
			return -1;
		a->pid = (pid_t)pid;
		return 1;
	case CAP_OPT_DURATION:
		if (opt_double(tool, "--duration", arg, 0.001, MAX_DURATION_S, &a->duration) < 0)
			return -1;
		return 1;
	case CAP_OPT_SAMPLE:
		if (opt_u32(tool, "--sample", arg, 1, UINT32_MAX, &a->o.sample_n) < 0)
			return -1;
		return 1;
	case CAP_OPT_DEVICES:
		n = opt_list(tool, "--devices", arg, 0, 31, ids, 32);
		if (n < 0)
			return -1;
		for (int i = 0; i < n; i++)
			a->o.dev_mask |= 1u << ids[i];
		return 1;
	case CAP_OPT_STREAMS:
		n = opt_list(tool, "--streams", arg, 0, NPUPROF_MAX_STREAMS - 1, a->streams,
			     NPUPROF_MAX_STREAMS);
		if (n < 0)
			return -1;
		a->o.streams = a->streams;
		a->o.nstreams = (uint32_t)n;
		return 1;
	case CAP_OPT_WINDOW: return parse_window(a, tool, arg) < 0 ? -1 : 1;
	case CAP_OPT_RATE_LIMIT:
		if (opt_u32(tool, "--rate-limit", arg, 1, UINT32_MAX, &a->rate_limit) < 0)
			return -1;
		return 1;
	case CAP_OPT_RING_KB: {
		uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
		uint64_t min = NPUPROF_RING_MIN_BYTES > page ? NPUPROF_RING_MIN_BYTES : page;

		if (opt_u64(tool, "--ring-kb", arg, min >> 10, NPUPROF_RING_MAX_BYTES >> 10, &kb) <
		    0)
			return -1;
		if (!npuprof_ring_bytes_valid(kb << 10, page)) {
			fprintf(stderr,
				"%s: --ring-kb: '%s' is not a power of two (%llu to %llu KiB, per CPU with the kmod engine, in all with bpf)\n",
				tool, arg, (unsigned long long)(min >> 10),
				(unsigned long long)(NPUPROF_RING_MAX_BYTES >> 10));
			return -1;
		}
		a->o.ring_bytes = kb << 10;
		return 1;
	}
	default: return 0;
	}
}

int capture_getopt(struct capture_args *a, const char *tool, int argc, char **argv,
		   const char *shortopts, const struct option *longopts)
{
	int opt, r;

	while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		r = capture_parse_opt(a, tool, opt, optarg);
		if (r < 0)
			return CAP_OPT_INVALID;
		if (r == 0)
			return opt;
	}
	return -1;
}

static int status_of(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int capture_run(struct capture_args *a, const char *tool, npuprof_record_fn fn, void *ctx,
		capture_tick_fn tick,
		void (*before_start)(void *ctx, pid_t pid, struct npuprof_engine *e),
		struct capture_result *res)
{
	struct npuprof_engine *e = NULL;
	char err[NPUPROF_ENGINE_ERRLEN];
	int gate[2] = { -1, -1 }, ret = 0;
	pid_t child = 0;
	uint64_t t0, last_switch;
	struct sigaction sa, old_int, old_term;
	struct throttle *thr = NULL;
	void *rctx = ctx; /* what fn gets: ctx, or the throttle in front */

	memset(res, 0, sizeof(*res));
	res->exit_status = -1;
	stop_flag = 0;
	if (a->pid && a->cmd) {
		fprintf(stderr, "%s: give --pid or a command, not both\n", tool);
		return 1;
	}
	if (a->from) {
		if (a->cmd) {
			fprintf(stderr, "%s: --from replays a recording: no command\n", tool);
			return 1;
		}
		if (strcmp(a->engine, "auto") && strcmp(a->engine, "file")) {
			fprintf(stderr, "%s: --from replays with engine \"file\", not \"%s\"\n",
				tool, a->engine);
			return 1;
		}
		a->engine = "file";
	}
	if (a->cmd) {
		if (pipe(gate) < 0) {
			fprintf(stderr, "%s: pipe: %s\n", tool, strerror(errno));
			return 1;
		}
		child = fork();
		if (child < 0) {
			fprintf(stderr, "%s: fork: %s\n", tool, strerror(errno));
			return 1;
		}
		if (child == 0) {
			char b;

			close(gate[1]);
			if (read(gate[0], &b, 1) != 1)
				_exit(127); /* the tracer failed to start */
			close(gate[0]);
			for (char *const *v = a->env; v && *v; v++)
				putenv(*v);
			execvp(a->cmd[0], a->cmd);
			fprintf(stderr, "%s: cannot run %s: %s\n", tool, a->cmd[0],
				strerror(errno));
			_exit(127);
		}
		close(gate[0]);
		a->pid = child;
	}
	res->pid = a->pid;
	a->o.pid = a->follow_tree && child ? 0 : (uint32_t)a->pid;
	if (a->window_period_ms || a->rate_limit) {
		thr = malloc(sizeof(*thr));
		if (!thr) {
			ret = 1;
			goto out;
		}
		throttle_init(thr, a->window_on_ms, a->window_period_ms, a->rate_limit, fn, ctx);
		fn = throttle_record;
		rctx = thr;
	}
	if (npuprof_engine_open(&e, a->engine, &a->o, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: %s\n", tool, err);
		ret = 1;
		goto out;
	}
	clock_engine = e;
	snprintf(res->engine, sizeof(res->engine), "%s", e->ops->name);
	npuprof_engine_warn_switches(e, tool, 1);
	if (before_start)
		before_start(ctx, a->pid, e);
	if (e->ops->start(e) < 0) {
		fprintf(stderr, "%s: %s\n", tool, e->err);
		ret = 1;
		goto out;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	t0 = last_switch = capture_now_ns();
	if (child) {
		if (write(gate[1], "g", 1) != 1)
			stop_flag = 1;
		close(gate[1]);
		gate[1] = -1;
	}
	while (!stop_flag) {
		int w = e->ops->wait(e, 100);

		if (e->ops->read(e, fn, rctx) < 0)
			break;
		if (w == -ENODATA)
			break; /* a replay at its end */
		if (tick)
			tick(ctx, e);
		if (capture_now_ns() - last_switch > 500000000ULL) {
			/* a reloaded driver starts with its switches off */
			npuprof_engine_rearm(e);
			last_switch = capture_now_ns();
		}
		if (a->duration > 0 && (capture_now_ns() - t0) / 1e9 >= a->duration)
			break;
		if (child) {
			int st;

			if (waitpid(child, &st, WNOHANG) == child) {
				res->exit_status = status_of(st);
				child = 0;
				break;
			}
		} else if (a->pid && !a->from && kill(a->pid, 0) < 0 && errno == ESRCH) {
			break;
		}
	}
	res->interrupted = stop_flag;
	e->ops->stop(e);
	e->ops->read(e, fn, rctx);
	e->ops->stats(e, &res->stats);
	res->end_ns = capture_now_ns();
	res->seconds = (res->end_ns - t0) / 1e9;
	clock_engine = NULL;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
out:
	if (gate[1] >= 0)
		close(gate[1]); /* a gated child exits without running */
	if (child) {
		int st;

		if (stop_flag)
			kill(child, SIGINT);
		if (waitpid(child, &st, 0) == child)
			res->exit_status = status_of(st);
	}
	clock_engine = NULL;
	npuprof_engine_close(e);
	if (thr) {
		res->window_skipped = thr->window_skipped;
		res->rate_skipped = thr->rate_skipped;
		res->window_tasks = thr->window_tasks;
		res->rate_tasks = thr->rate_tasks;
		throttle_free(thr);
		free(thr);
	}
	return ret;
}
