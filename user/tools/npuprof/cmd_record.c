/*
 * npuprof record — profile a program (or a process, or everything) into a
 * session directory and export its msprof database.
 *
 * The engine's records go to kernel/npuprof.kernel.raw together with
 * clock-sync samples of every simulated device (once a second), each
 * device's STARS SoC log to device_<N>/data/stars_soc.data; the program
 * gets NPUPROF_OUTPUT_DIR so that libnpuprof inside it writes the host
 * stream into the same directory. Live counts go to stderr. When the
 * program exits, the duration ends or on SIGINT, the session is closed and
 * exported (unless --no-export).
 */
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "cmds.h"
#include "numparse.h"
#include "fsutil.h"
#include "hostapi.h"
#include "jobsplit.h"
#include "npuprof/export.h"
#include "npuprof/rawkern.h"
#include "npuprof/session.h"
#include "starslog.h"

struct rec_ctx {
	struct npuprof_session s;
	struct npuprof_rawk_writer *raw;
	uint64_t events, last_events, last_tick, last_sync;
	int live;
	char err[1024];
	int failed;
	struct job_tree tree; /* with a command: its process tree */
	int follow;
	struct starslog stars; /* the devices' STARS SoC logs */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: npuprof record [-o DIR] [options] [-- CMD ARGS]\n"
		"  Profile CMD (or --pid P, or every process until Ctrl-C) on the NPU:\n"
		"  capture every task submit and completion, the program's host API\n"
		"  calls and msproftx stamps, into DIR/PROF_<n>_<time>_<id>/, then export\n"
		"  its msprof database there. CMD may be a launcher (torchrun, mpirun,\n"
		"  npuwork --scenario ranks): every process of its tree is recorded, and\n"
		"  a job of several processes gets one PROF_* directory per process, each\n"
		"  with its rank (HCCL communicator, else RANK_ID/RANK) and its devices.\n\n"
		"  -o DIR                  parent of the session directory (default .)\n" CAPTURE_USAGE
		"  --schema 1.1.1|1.2.0    database column set (default 1.1.1)\n"
		"  --host-api MODE         how CMD's host data is recorded: native (npuprof's\n"
		"                          libprofapi.so records it), attach (CMD keeps CANN's\n"
		"                          libprofapi.so; libnpuprof_attach.so is preloaded\n"
		"                          and attaches to it), auto (default: attach when the\n"
		"                          libprofapi.so on the library path is not npuprof's)\n"
		"  --no-export             only capture; run `npuprof export` later\n"
		"  --quiet                 no live counts\n\n"
		"examples:\n"
		"  npuprof record -- ./npuwork --scenario train --devices 2\n"
		"  npuprof record -o /tmp/job -- ./npuwork --scenario ranks --devices 4\n"
		"  npuprof record -o /tmp/prof --engine bpf --duration 30\n"
		"  npuprof record --sample 100 --pid 4242\n");
}

/* Append clock-sync samples of every simulated device to the raw stream. */
static void clock_sync(struct rec_ctx *c)
{
	npuprof_session_clock_sync(&c->s, npuprof_rawk_append, c->raw);
}

static int on_record(void *vctx, const struct npuprof_record *r)
{
	struct rec_ctx *c = vctx;

	if (c->follow && !job_tree_keep(&c->tree, r))
		return 0;
	c->events++;
	return npuprof_rawk_append(c->raw, r);
}

static void on_tick(void *vctx, struct npuprof_engine *e)
{
	struct rec_ctx *c = vctx;
	uint64_t now = capture_now_ns();

	starslog_drain(&c->stars);
	if (now - c->last_sync >= 1000000000ULL) {
		clock_sync(c);
		npuprof_rawk_flush(c->raw);
		c->last_sync = now;
	}
	if (c->live && now - c->last_tick >= 1000000000ULL) {
		struct npuprof_stats st;

		memset(&st, 0, sizeof(st));
		e->ops->stats(e, &st);
		fprintf(stderr, "\rnpuprof record: %llu events, %.0f events/s, %llu dropped   ",
			(unsigned long long)c->events,
			(c->events - c->last_events) * 1e9 / (double)(now - c->last_tick),
			(unsigned long long)st.dropped);
		c->last_events = c->events;
		c->last_tick = now;
	}
}

/* The engine is open and the program forked: name them in the session. */
static void before_start(void *vctx, pid_t pid, struct npuprof_engine *e)
{
	struct rec_ctx *c = vctx;
	char path[4352];

	c->s.pid = (uint32_t)pid;
	if (c->follow)
		job_tree_init(&c->tree, pid, c->s.dir);
	snprintf(c->s.engine, sizeof(c->s.engine), "%s", e->ops->name);
	snprintf(path, sizeof(path), "%s/%s", c->s.dir, NPUPROF_KERNEL_RAW);
	if (npuprof_rawk_create(&c->raw, path, e->ops->name, c->s.sample_n, c->s.capture_flags,
				c->err, sizeof(c->err)) < 0) {
		c->failed = 1;
		return;
	}
	clock_sync(c);
	/* the device log holds every task, and is a 910B's only source of
	 * device times: a sampled capture's export keeps the tasks the kernel
	 * kept (the same hash), a windowed or rate-limited one those whose
	 * submit the throttle kept (throttle.h) */
	/* and the AI Core frequency's channel: msprof's command line collects
	 * AI Core metrics by default, which turns ai_core_lpm on
	 * (hicann/oam-tools running_mode.cpp AppMode::SetDefaultParams) */
	starslog_start(&c->stars, &c->s, "npuprof record", stderr, 1);
	c->last_sync = c->last_tick = capture_now_ns();
}

/* Did the program write a host stream into the session? */
static int has_host_streams(const char *dir)
{
	char pattern[4400];
	glob_t g;
	int r;

	snprintf(pattern, sizeof(pattern), "%s/host/data/*", dir);
	if (glob(pattern, 0, NULL, &g) != 0)
		return 0;
	r = g.gl_pathc > 0;
	globfree(&g);
	return r;
}

int cmd_record(int argc, char **argv)
{
	static const struct option lo[] = { CAPTURE_LONG_OPTIONS,
					    { "output", required_argument, 0, 'o' },
					    { "schema", required_argument, 0, 's' },
					    { "host-api", required_argument, 0, 'A' },
					    { "no-export", no_argument, 0, 'n' },
					    { "quiet", no_argument, 0, 'q' },
					    { "help", no_argument, 0, 'h' },
					    { 0, 0, 0, 0 } };
	struct capture_args a;
	struct capture_result res;
	struct rec_ctx *c;
	const char *parent = ".";
	char envdir[4400], err[1024], preload[8300], said[8400];
	char *env[3];
	enum hostapi_mode host_api = HOSTAPI_AUTO;
	static char dirs[JOB_MAX_PROCS][4352];
	int opt, status, do_export = 1, quiet = 0, ndirs, status_export = 0;
	enum npuprof_db_schema schema = NPUPROF_DB_SCHEMA_1_1_1;

	capture_args_init(&a);
	optind = 1;
	while ((opt = capture_getopt(&a, "npuprof record", argc, argv, "+o:s:nqh", lo)) != -1) {
		switch (opt) {
		case CAP_OPT_INVALID: return 2;
		case 'o':
			if (opt_path("npuprof record", "-o", optarg) < 0)
				return 2;
			parent = optarg;
			break;
		case 's':
			if (!strcmp(optarg, "1.2.0"))
				schema = NPUPROF_DB_SCHEMA_1_2_0;
			else if (strcmp(optarg, "1.1.1")) {
				fprintf(stderr, "npuprof record: unknown schema '%s'\n", optarg);
				return 2;
			}
			break;
		case 'A':
			if (hostapi_parse(optarg, &host_api)) {
				fprintf(stderr,
					"npuprof record: --host-api %s: expected auto, native or "
					"attach\n",
					optarg);
				return 2;
			}
			break;
		case 'n': do_export = 0; break;
		case 'q': quiet = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc)
		a.cmd = argv + optind;
	if (a.cmd && hostapi_resolve(host_api, preload, sizeof(preload), said, sizeof(said)) < 0) {
		fprintf(stderr, "npuprof record: --host-api: %s\n", said);
		return 1;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return 1;
	npuprof_session_init(&c->s);
	c->s.sample_n = a.o.sample_n;
	c->s.capture_flags = a.o.flags;
	c->s.window_on_ms = a.window_on_ms;
	c->s.window_period_ms = a.window_period_ms;
	c->s.rate_limit = a.rate_limit;
	c->live = !quiet && isatty(2);
	if (a.cmd) {
		size_t n = 0;

		for (char **p = a.cmd; *p && n < sizeof(c->s.cmd) - 2; p++)
			n += (size_t)snprintf(c->s.cmd + n, sizeof(c->s.cmd) - n, "%s%s",
					      n ? " " : "", *p);
	}
	if (npuprof_session_create(&c->s, parent, err, sizeof(err)) < 0) {
		fprintf(stderr, "npuprof record: %s\n", err);
		free(c);
		return 1;
	}
	snprintf(envdir, sizeof(envdir), "NPUPROF_OUTPUT_DIR=%s", c->s.dir);
	env[0] = envdir;
	env[1] = a.cmd && preload[0] ? preload : NULL;
	env[2] = NULL;
	a.env = env;
	/* a command may be a launcher: follow its process tree */
	a.follow_tree = c->follow = a.cmd != NULL;
	if (!quiet) {
		fprintf(stderr, "npuprof record: session %s\n", c->s.dir);
		if (a.cmd)
			fprintf(stderr, "npuprof record: host API: %s\n", said);
	}

	status = capture_run(&a, "npuprof record", on_record, c, on_tick, before_start, &res);
	if (c->failed) {
		fprintf(stderr, "npuprof record: %s\n", c->err);
		status = 1;
	}
	if (c->live)
		fputc('\n', stderr);
	if (starslog_finish(&c->stars, &c->s, err, sizeof(err)) < 0) {
		fprintf(stderr, "npuprof record: %s\n", err);
		status = 1;
	}
	if (c->raw) {
		int r;

		clock_sync(c);
		r = npuprof_rawk_close(c->raw);
		c->raw = NULL;
		if (r < 0) {
			fprintf(stderr,
				"npuprof record: writing the kernel stream %s/%s failed: %s; "
				"what reached the file can still be exported: npuprof export %s\n",
				c->s.dir, NPUPROF_KERNEL_RAW, strerror(-r), c->s.dir);
			status = 1;
		}
	}
	/* A record that failed before anything was captured (no driver, a
	 * command that cannot run) leaves no session directory behind. */
	if ((status || res.exit_status == 127) && !c->events && !has_host_streams(c->s.dir)) {
		if (fs_remove_tree(c->s.dir) == 0)
			fprintf(stderr, "npuprof record: nothing was captured; %s removed\n",
				c->s.dir);
		if (!status)
			status = res.exit_status;
		free(c);
		return status;
	}
	c->s.written = res.stats.written;
	c->s.dropped = res.stats.dropped;
	c->s.filtered = res.stats.filtered + (c->follow ? c->tree.filtered : 0);
	if (c->follow)
		job_tree_free(&c->tree);
	c->s.sampled_out = res.stats.sampled_out;
	c->s.overwritten = res.stats.overwritten;
	c->s.window_skipped = res.window_skipped;
	c->s.rate_skipped = res.rate_skipped;
	c->s.exit_status = res.exit_status;
	if (npuprof_session_finish(&c->s, err, sizeof(err)) < 0) {
		fprintf(stderr, "npuprof record: %s\n", err);
		status = 1;
	}
	if (!quiet)
		fprintf(stderr, "npuprof record: %llu events captured, %llu dropped, %.2f s\n",
			(unsigned long long)c->events, (unsigned long long)res.stats.dropped,
			res.seconds);
	/* a job of several processes: one session (rank) each */
	ndirs = 1;
	snprintf(dirs[0], sizeof(dirs[0]), "%s", c->s.dir);
	if (!status && c->follow && job_tree_maybe_many(&c->tree, c->s.dir)) {
		int r = job_split(&c->s, dirs, JOB_MAX_PROCS, &ndirs, err, sizeof(err));

		if (r < 0) {
			fprintf(stderr,
				"npuprof record: splitting the job into its processes: %s; kept as one session %s\n",
				err, c->s.dir);
			ndirs = 1;
			snprintf(dirs[0], sizeof(dirs[0]), "%s", c->s.dir);
		} else if (err[0]) {
			fprintf(stderr, "npuprof record: %s\n", err);
		}
		if (ndirs > 1 && !quiet)
			fprintf(stderr, "npuprof record: %d processes, one session each\n", ndirs);
	}
	for (int i = 0; !status && do_export && i < ndirs; i++) {
		struct npuprof_export_opts eo;
		struct npuprof_export_result er;
		int st;

		memset(&eo, 0, sizeof(eo));
		eo.schema = schema;
		eo.progress = c->live;
		if (ndirs > 1 && !quiet)
			fprintf(stderr, "npuprof record: session %s\n", dirs[i]);
		st = export_run("npuprof record", dirs[i], &eo, &er, quiet);
		/* A program that died left a truncated host stream: the export
		 * said so, and the program's status below says it failed. */
		if (st && er.db_path[0] && er.damaged && res.exit_status > 0)
			st = 0;
		if (st && !status_export)
			status_export = st;
	}
	if (!status)
		status = status_export;
	/* the program's failure is the user's news; ours comes first */
	if (!status && res.exit_status > 0)
		status = res.exit_status;
	free(c);
	return status;
}
