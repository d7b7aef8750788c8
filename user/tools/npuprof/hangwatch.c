/*
 * hangwatch.c — the loop of `npuprof flight` and `npuprof watch`
 * (hangwatch.h): capture continuously, follow every stream's tasks in
 * flight (tracker.h), report a hang, and in flight mode keep the last S
 * seconds in a ring of bounded size (flight.h) and dump them.
 *
 * A session directory of the last S seconds is written on SIGUSR1
 * (`npuprof dump` sends it), when the hang detector fires, and at exit with
 * --dump-on-exit. The pid file names the recorder for `npuprof dump`; next
 * to it, <pidfile>.last names the latest dump. With the hang detector only
 * (`npuprof watch`), the loop exits 3 at the first hang (after the report,
 * and a dump when --flight is given).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "atomicfile.h"
#include "numparse.h"
#include "capture.h"
#include "flight.h"
#include "fsutil.h"
#include "hangwatch.h"
#include "npuprof/export.h"
#include "tracker.h"

static volatile sig_atomic_t dump_requested;

static void on_usr1(int sig)
{
	(void)sig;
	dump_requested = 1;
}

void flight_default_pidfile(char *out, size_t len)
{
	if (geteuid() == 0)
		snprintf(out, len, "/run/npuprof-flight.pid");
	else
		snprintf(out, len, "/tmp/npuprof-flight-%u.pid", (unsigned)geteuid());
}

struct fl_ctx {
	const struct hangwatch_opts *o;
	struct capture_args *a;
	struct flightbuf buf;
	struct tracker trk;
	struct npuprof_stats st;
	char engine[16];
	char host_dir[4200]; /* where the program writes its host stream */
	char cmd[1024];
	int hangs, dumps, failed;
	uint64_t last_mem_ns, last_sync_ns;
	uint64_t last_tick_ns, judge_after_ns; /* see on_tick */
	pid_t exporters[16]; /* background exports still running */
	int nexp;
	struct npuprof_session devs; /* the devices, for clock samples */
};

static int on_record(void *vctx, const struct npuprof_record *r)
{
	struct fl_ctx *c = vctx;

	tracker_feed(&c->trk, r);
	if (c->o->flight)
		flightbuf_push(&c->buf, r);
	return 0;
}

static void write_last(const struct fl_ctx *c, const char *dir)
{
	char path[4200], tmp[4300];
	FILE *f;

	if (!c->o->pidfile)
		return;
	snprintf(path, sizeof(path), "%s.last", c->o->pidfile);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%s\n", dir);
	if (fclose(f) == 0)
		rename(tmp, path);
}

static void do_dump(struct fl_ctx *c, const char *reason, const char *report)
{
	struct flight_dump_info in;
	struct npuprof_session *s = calloc(1, sizeof(*s));
	char err[1024];
	uint64_t n = 0, now = capture_now_ns();

	if (!s)
		return;
	flightbuf_trim(&c->buf, now);
	memset(&in, 0, sizeof(in));
	in.parent = c->o->out;
	in.reason = reason;
	in.host_dir = c->host_dir[0] ? c->host_dir : NULL;
	in.report = report;
	in.engine = c->engine;
	in.pid = (uint32_t)c->a->pid;
	in.cmd = c->cmd;
	in.sample_n = c->a->o.sample_n;
	in.flags = c->a->o.flags;
	in.stats = c->st;
	if (flight_dump(&c->buf, now, &in, s, &n, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: dump failed: %s\n", c->o->tool, err);
		c->failed = 1;
		free(s);
		return;
	}
	c->dumps++;
	fprintf(stderr, "%s: dump (%s): %llu records of the last %.1f s in %s\n", c->o->tool,
		reason, (unsigned long long)n, c->buf.keep_ns / 1e9, s->dir);
	if (c->buf.evicted_full && c->buf.oldest_full_ts > now - c->buf.keep_ns)
		fprintf(stderr,
			"%s: note: the %llu MiB buffer held only the last %.1f s (raise --size)\n",
			c->o->tool, (unsigned long long)(c->o->size_bytes >> 20),
			(now - c->buf.oldest_full_ts) / 1e9);
	if (c->o->export) {
		/* export in a child: the recorder keeps recording meanwhile */
		pid_t p = fork();

		if (p == 0) {
			struct npuprof_export_opts eo;
			struct npuprof_export_result er;

			memset(&eo, 0, sizeof(eo));
			if (npuprof_export(s->dir, &eo, &er, err, sizeof(err)) < 0) {
				fprintf(stderr, "%s: export of %s failed: %s\n", c->o->tool, s->dir,
					err);
				_exit(1);
			}
			fprintf(stderr, "%s: exported %s%s\n", c->o->tool, er.db_path,
				er.damaged ? " (input damaged: see the warnings above)" : "");
			_exit(er.damaged ? 1 : 0);
		}
		if (p > 0 && c->nexp < 16)
			c->exporters[c->nexp++] = p;
	}
	write_last(c, s->dir);
	free(s);
}

/* capture_run ticks at least every 100 ms plus a read; later is late */
#define HW_LATE_TICK_NS 300000000ULL

static void on_tick(void *vctx, struct npuprof_engine *e)
{
	struct fl_ctx *c = vctx;
	uint64_t now = capture_now_ns();
	struct trk_hang h;

	/* reap finished exporters (only ours: capture_run reaps the program) */
	for (int i = 0; i < c->nexp; i++)
		if (waitpid(c->exporters[i], NULL, WNOHANG) == c->exporters[i])
			c->exporters[i--] = c->exporters[--c->nexp];
	memset(&c->st, 0, sizeof(c->st));
	e->ops->stats(e, &c->st);
	if (c->o->flight) {
		flightbuf_trim(&c->buf, now);
		if (now - c->last_sync_ns >= 1000000000ULL) {
			npuprof_session_clock_sync(&c->devs, flightbuf_push, &c->buf);
			c->last_sync_ns = now;
		}
	}
	/* A verdict needs a tracer that kept up: after a late tick (the tracer
	 * starved, or busy with a backlog) completions of that time may still
	 * be unread, so no hang is called until a whole threshold of timely
	 * ticks has passed. A real hang stops the records, so the tracer
	 * catches up and the verdict comes one threshold later at most. */
	if (!c->trk.offline && c->last_tick_ns &&
	    now - c->last_tick_ns >
		    (c->o->hang_ns / 2 > HW_LATE_TICK_NS ? c->o->hang_ns / 2 : HW_LATE_TICK_NS))
		c->judge_after_ns = now + c->o->hang_ns;
	c->last_tick_ns = now;
	if (c->o->hang_ns && now >= c->judge_after_ns &&
	    tracker_find_hang(&c->trk, now, c->o->hang_ns, &h)) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		c->hangs++;
		if (f) {
			tracker_report(&c->trk, &h, c->host_dir[0] ? c->host_dir : NULL, f);
			fclose(f);
			fputs(text, stderr);
		}
		if (c->o->flight)
			do_dump(c, "hang", text);
		free(text);
		if (c->o->exit_on_hang) {
			/* a hung program may never end on SIGINT (its runtime
			 * retries the interrupted wait): the program we started
			 * gets SIGINT, then SIGKILL; a --pid process is left be */
			if (c->a->cmd && c->a->pid > 0) {
				kill(c->a->pid, SIGINT);
				usleep(300000);
				kill(c->a->pid, SIGKILL);
			}
			raise(SIGINT); /* ends capture_run's loop */
		}
	}
	if (dump_requested) {
		dump_requested = 0;
		if (c->o->flight)
			do_dump(c, "signal", NULL);
	}
	if (c->o->verbose && now - c->last_mem_ns > 1000000000ULL) {
		c->last_mem_ns = now;
		fprintf(stderr, "%s: %zu records buffered, %llu evicted (full), %llu aged out\n",
			c->o->tool, c->buf.len, (unsigned long long)c->buf.evicted_full,
			(unsigned long long)c->buf.evicted_old);
	}
}

static void before_start(void *vctx, pid_t pid, struct npuprof_engine *e)
{
	struct fl_ctx *c = vctx;

	snprintf(c->engine, sizeof(c->engine), "%s", e->ops->name);
}

int hangwatch_run(const struct hangwatch_opts *o, struct capture_args *a)
{
	struct fl_ctx *c = calloc(1, sizeof(*c));
	struct capture_result res;
	struct sigaction sa, old;
	char envdir[4300];
	char *env[2] = { NULL, NULL };
	int status, pid_fd = -1;

	if (!c)
		return 1;
	c->o = o;
	c->a = a;
	if (tracker_init(&c->trk) < 0 ||
	    (o->flight && flightbuf_init(&c->buf, o->size_bytes, o->seconds) < 0)) {
		fprintf(stderr, "%s: out of memory for a %llu MiB buffer\n", o->tool,
			(unsigned long long)(o->size_bytes >> 20));
		free(c);
		return 1;
	}
	capture_devices(a, &c->devs);
	c->trk.offline = a->from != NULL;
	if (a->from_session) /* its host streams, for the report */
		snprintf(c->host_dir, sizeof(c->host_dir), "%s", a->from_session->dir);
	if (a->cmd) {
		size_t n = 0;

		for (char **p = a->cmd; *p && n < sizeof(c->cmd) - 2; p++)
			n += (size_t)snprintf(c->cmd + n, sizeof(c->cmd) - n, "%s%s", n ? " " : "",
					      *p);
		/* the program's host stream, for the report and the dumps */
		snprintf(c->host_dir, sizeof(c->host_dir), "%s/.npuprof-host.%d",
			 o->out ? o->out : "/tmp", (int)getpid());
		snprintf(envdir, sizeof(envdir), "NPUPROF_OUTPUT_DIR=%s", c->host_dir);
		env[0] = envdir;
		a->env = env;
	}
	if (o->flight) {
		if (mkdir(o->out, 0755) < 0 && errno != EEXIST) {
			fprintf(stderr, "%s: cannot create %s: %s\n", o->tool, o->out,
				strerror(errno));
			free(c);
			return 1;
		}
		/* kmod: a reader that falls behind loses the oldest records
		 * (the BPF engine cannot overwrite; the user ring bounds it) */
		if (!strcmp(a->engine, "kmod") ||
		    (!strcmp(a->engine, "auto") && access("/dev/npuprof", F_OK) == 0))
			a->o.flags |= NPUPROF_CFG_OVERWRITE;
	}
	if (o->pidfile) {
		struct atomic_file af;
		char err[1024];

		int ok = atomic_file_open(&af, o->pidfile, err, sizeof(err)) == 0;

		if (ok) {
			fprintf(af.f, "%d\n", (int)getpid());
			ok = atomic_file_commit(&af, err, sizeof(err)) == 0;
		}
		if (!ok) {
			fprintf(stderr, "%s: cannot write pid file: %s (use --pidfile)\n", o->tool,
				err);
			free(c);
			return 1;
		}
		/* held while this runs: `npuprof dump` signals the pid only
		 * while the lock says its recorder is alive (a stale file's pid
		 * may be anyone's by now) */
		pid_fd = open(o->pidfile, O_RDONLY | O_CLOEXEC);
		if (pid_fd < 0 || flock(pid_fd, LOCK_EX | LOCK_NB) < 0) {
			fprintf(stderr, "%s: cannot lock pid file %s: %s\n", o->tool, o->pidfile,
				strerror(errno));
			if (pid_fd >= 0)
				close(pid_fd);
			free(c);
			return 1;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, &old);
	dump_requested = 0;
	if (o->pid_said)
		fprintf(stderr, "%s: pid file %s (npuprof dump --pidfile %s)\n", o->tool,
			o->pidfile, o->pidfile);
	if (o->flight)
		fprintf(stderr,
			"%s: keeping the last %.1f s in %llu MiB (plus the engine's rings: %llu KiB per CPU); dumps go to %s (SIGUSR1 or `npuprof dump`)\n",
			o->tool, o->seconds, (unsigned long long)(o->size_bytes >> 20),
			(unsigned long long)(a->o.ring_bytes >> 10), o->out);
	if (o->hang_ns)
		fprintf(stderr, "%s: hang threshold %.0f ms\n", o->tool, o->hang_ns / 1e6);

	status = capture_run(a, o->tool, on_record, c, on_tick, before_start, &res);
	c->st = res.stats;
	if (!status && o->flight && o->dump_on_exit)
		do_dump(c, "exit", NULL);
	sigaction(SIGUSR1, &old, NULL);
	if (o->pidfile)
		unlink(o->pidfile);
	if (pid_fd >= 0)
		close(pid_fd);
	if (c->failed && !status)
		status = 1;
	if (!status && c->hangs && o->exit_on_hang)
		status = 3;
	else if (!status && res.exit_status > 0 && !c->hangs)
		status = res.exit_status;
	if (!status && !c->hangs && o->hang_ns)
		fprintf(stderr, "%s: no hang (%llu records, %.1f s)\n", o->tool,
			(unsigned long long)c->trk.records, res.seconds);
	for (int i = 0; i < c->nexp; i++)
		waitpid(c->exporters[i], NULL, 0);
	if (c->host_dir[0] && !c->hangs && !c->dumps && !a->from) /* ours, not a recording */
		fs_remove_tree(c->host_dir);
	tracker_free(&c->trk);
	flightbuf_free(&c->buf);
	free(c);
	return status;
}

enum {
	FL_OPT_SECONDS = 2000,
	FL_OPT_SIZE,
	FL_OPT_HANG,
	FL_OPT_EXPORT,
	FL_OPT_DUMP_EXIT,
	FL_OPT_EXIT_HANG,
	FL_OPT_PIDFILE,
	FL_OPT_VERBOSE,
	FL_OPT_THRESHOLD,
	FL_OPT_FLIGHT,
};

/* Parse flight/watch options; returns -1 to continue, else an exit status. */
static int parse(int argc, char **argv, struct hangwatch_opts *o, struct capture_args *a, int watch,
		 char *pidbuf, size_t pidlen)
{
	static const struct option lo[] = { CAPTURE_LONG_OPTIONS,
					    REPLAY_LONG_OPTION,
					    { "output", required_argument, 0, 'o' },
					    { "seconds", required_argument, 0, FL_OPT_SECONDS },
					    { "size", required_argument, 0, FL_OPT_SIZE },
					    { "hang-ms", required_argument, 0, FL_OPT_HANG },
					    { "threshold", required_argument, 0, FL_OPT_THRESHOLD },
					    { "export", no_argument, 0, FL_OPT_EXPORT },
					    { "dump-on-exit", no_argument, 0, FL_OPT_DUMP_EXIT },
					    { "exit-on-hang", no_argument, 0, FL_OPT_EXIT_HANG },
					    { "keep-going", no_argument, 0, 'k' },
					    { "flight", no_argument, 0, FL_OPT_FLIGHT },
					    { "pidfile", required_argument, 0, FL_OPT_PIDFILE },
					    { "verbose", no_argument, 0, FL_OPT_VERBOSE },
					    { "help", no_argument, 0, 'h' },
					    { 0, 0, 0, 0 } };
	int opt;
	double v;

	optind = 1;
	while ((opt = capture_getopt(a, o->tool, argc, argv, "+o:kh", lo)) != -1) {
		switch (opt) {
		case CAP_OPT_INVALID: return 2;
		case 'o':
			if (opt_path(o->tool, "-o", optarg) < 0)
				return 2;
			o->out = optarg;
			break;
		case FL_OPT_SECONDS:
			if (opt_double(o->tool, "--seconds", optarg, 0.001, 86400, &o->seconds) < 0)
				return 2;
			break;
		case FL_OPT_SIZE: /* MiB */
			if (opt_double(o->tool, "--size", optarg, 1, 65536, &v) < 0)
				return 2;
			o->size_bytes = (uint64_t)(v * 1048576.0);
			break;
		case FL_OPT_HANG:
		case FL_OPT_THRESHOLD: {
			/* whole ms, at most a day: 0.5 is refused, not truncated
			 * to 0 (which is "off" for flight and refused by watch) */
			uint64_t ms;

			if (opt_u64(o->tool, opt == FL_OPT_HANG ? "--hang-ms" : "--threshold",
				    optarg, watch ? 1 : 0, 86400000, &ms) < 0)
				return 2;
			o->hang_ns = ms * 1000000ULL;
			break;
		}
		case FL_OPT_EXPORT: o->export = 1; break;
		case FL_OPT_DUMP_EXIT: o->dump_on_exit = 1; break;
		case FL_OPT_EXIT_HANG: o->exit_on_hang = 1; break;
		case 'k': o->exit_on_hang = 0; break;
		case FL_OPT_FLIGHT: o->flight = 1; break;
		case FL_OPT_PIDFILE: snprintf(pidbuf, pidlen, "%s", optarg); break;
		case FL_OPT_VERBOSE: o->verbose = 1; break;
		case 'h': return 0x100;
		default: return 2;
		}
	}
	if (optind < argc)
		a->cmd = argv + optind;
	if (o->flight && !o->out) {
		fprintf(stderr, "%s: give -o DIR: where the dumps go\n", o->tool);
		return 2;
	}
	if (a->from && !watch) {
		fprintf(stderr, "%s: --from is for npuprof watch; flight records the driver\n",
			o->tool);
		return 2;
	}
	if (watch && !o->hang_ns) {
		fprintf(stderr, "%s: --threshold must be > 0\n", o->tool);
		return 2;
	}
	/* watch --flight without --pidfile: DIR/npuprof-watch.pid (said at
	 * the start), not flight's default, which a recorder may hold */
	if (o->flight && !pidbuf[0] && o->out) {
		if ((size_t)snprintf(pidbuf, pidlen, "%s/npuprof-watch.pid", o->out) >= pidlen) {
			fprintf(stderr, "%s: -o %s: path too long for its pid file\n", o->tool,
				o->out);
			return 2;
		}
		o->pid_said = 1;
	}
	if (o->flight || pidbuf[0])
		o->pidfile = pidbuf;
	return -1;
}

int hangwatch_main(int argc, char **argv, int watch, void (*usage)(FILE *f))
{
	struct hangwatch_opts o;
	struct capture_args *a = calloc(1, sizeof(*a));
	char pidfile[4096] = "";
	int r;

	if (!a)
		return 1;
	memset(&o, 0, sizeof(o));
	capture_args_init(a);
	o.tool = watch ? "npuprof watch" : "npuprof flight";
	o.seconds = 10;
	o.size_bytes = 64ULL << 20;
	o.hang_ns = watch ? 5000000000ULL : 10000000000ULL;
	o.flight = !watch;
	o.exit_on_hang = watch;
	if (!watch)
		flight_default_pidfile(pidfile, sizeof(pidfile));
	r = parse(argc, argv, &o, a, watch, pidfile, sizeof(pidfile));
	if (r == 0x100) {
		usage(stdout);
		r = 0;
	} else if (r == 2) {
		usage(stderr);
	} else if (r < 0) {
		/* flight keeps little in the kernel: the user ring is the history */
		if (o.flight && !a->o.ring_bytes)
			a->o.ring_bytes = 1ULL << 20;
		r = hangwatch_run(&o, a);
	}
	capture_args_free(a);
	free(a);
	return r;
}
