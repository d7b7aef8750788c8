/*
 * npuprof export DIR — write the msprof database of a session directory,
 * or of every PROF_* session directory in DIR (as msprof accepts the
 * parent of its collections, e.g. an aclprofInit result path).
 * npuprof export --json FILE.db [-o OUT] — the trace JSON of a database.
 *
 * Exit status: 0 when everything was read and written; 1 when the export
 * failed, was refused (a more complete database is kept, see export.h) or
 * the input could not be read completely (the database is written, the
 * warnings name what was skipped); 2 on a usage error. SIGINT/SIGTERM stop
 * the export and remove its temporaries; DIR is left as it was.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"
#include "numparse.h"
#include "npuprof/export.h"
#include "npuprof/trace.h"
#include "npuprof/session.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: npuprof export DIR [--schema 1.1.1|1.2.0] [--pytorch] [--json] [--force] [--quiet]\n"
		"                          [--jobs N]\n"
		"       npuprof export --json FILE.db [-o OUT.json]\n"
		"  Correlate the raw kernel and host data of the session directory DIR\n"
		"  (a PROF_* directory written by `npuprof record` or by a program's\n"
		"  aclprofStart) and write DIR/msprof_<YYYYmmddHHMMSS>.db, the database\n"
		"  msprof --type=db writes. DIR may also be the parent of PROF_*\n"
		"  directories (an aclprofInit result path, a job's ranks): each is\n"
		"  exported, --jobs N at a time (default: the online CPUs), each in a\n"
		"  process of its own, its messages shown in session order; the memory\n"
		"  used is that of the N sessions exported together.\n"
		"  --schema   column set: 1.1.1 (default, the seed) or 1.2.0\n"
		"  --pytorch  also the PyTorch database, with the framework tables of the\n"
		"             session's npuprof.torch records (PYTORCH_API, CONNECTION_IDS,\n"
		"             PYTORCH_CALLCHAINS, STEP_TIME, MEMORY_RECORD, OP_MEMORY, GC_RECORD):\n"
		"             DIR/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler.db, or, in a\n"
		"             torch_npu <worker>_ascend_pt directory (which may itself be DIR),\n"
		"             <worker>_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_<rank>.db\n"
		"             with profiler_metadata.json in META_DATA\n"
		"  --json     also DIR/npuprof_trace.json (Chrome/Perfetto trace events)\n"
		"  --force    replace the existing database even if it has more rows\n"
		"             (by default an export from damaged input keeps a more\n"
		"             complete earlier database, or one exported from undamaged\n"
		"             input, and writes nothing; a damaged npuprof.session is\n"
		"             refused unless forced)\n"
		"  Given an msprof database (ours or msprof's) instead of DIR, --json writes\n"
		"  its trace to OUT.json (default: npuprof_trace.json beside FILE.db).\n"
		"  Exit status 1 if any input could not be read completely (or any\n"
		"  session of a parent directory failed).\n"
		"examples:\n"
		"  npuprof export PROF_000001_20261130120000123_ABCDEFGHIJKLMNOP\n"
		"  npuprof export --schema 1.2.0 --json ./PROF_*\n"
		"  npuprof export ./output     # every ./output/PROF_*\n"
		"  npuprof export --pytorch ./w_42_20261201120000123_ascend_pt\n"
		"  npuprof export --json msprof_20261130120000.db -o /tmp/trace.json\n");
}

void export_print_summary(const struct npuprof_export_result *r, FILE *f)
{
	fprintf(f, "npuprof export: %s\n", r->db_path);
	fprintf(f,
		"  %llu tasks, %llu API calls, %llu compute ops, %llu collectives (%llu tasks), %llu msproftx events\n",
		(unsigned long long)r->tasks, (unsigned long long)r->api,
		(unsigned long long)r->compute, (unsigned long long)r->comm_ops,
		(unsigned long long)r->comm_tasks, (unsigned long long)r->mstx);
	if (r->pytorch_path[0])
		fprintf(f, "  PyTorch database: %s\n", r->pytorch_path);
	if (r->analysis_path[0])
		fprintf(f, "  analysis database: %s\n", r->analysis_path);
	if (r->json_path[0])
		fprintf(f, "  trace JSON: %s\n", r->json_path);
	if (r->drops || r->in_flight || r->orphan_completions || r->host_lost || r->damaged)
		fprintf(f,
			"  warning: %llu records dropped in the rings, %llu tasks in flight at stop, %llu completions without a submit, %llu host records lost%s\n",
			(unsigned long long)r->drops, (unsigned long long)r->in_flight,
			(unsigned long long)r->orphan_completions, (unsigned long long)r->host_lost,
			r->damaged ? "; damaged input skipped (see above)" : "");
	if (r->derived)
		fprintf(f,
			"  note: %llu task times derived from submit/complete (no device task time)\n",
			(unsigned long long)r->derived);
	if (r->stars_records)
		fprintf(f, "  STARS SoC log: %llu records, %llu tasks paired\n",
			(unsigned long long)r->stars_records, (unsigned long long)r->stars_tasks);
	if (r->stars_unpaired || r->stars_bad || r->stars_other)
		fprintf(f,
			"  warning: STARS SoC log: %llu records without their pair, %llu bad, %llu tasks of streams not captured (left out)\n",
			(unsigned long long)r->stars_unpaired, (unsigned long long)r->stars_bad,
			(unsigned long long)r->stars_other);
}

static volatile sig_atomic_t g_cancel;

static void on_cancel(int sig)
{
	(void)sig;
	g_cancel = 1;
}

int export_run(const char *tool, const char *dir, struct npuprof_export_opts *o,
	       struct npuprof_export_result *res, int quiet)
{
	struct sigaction sa, old_int, old_term;
	char err[2048];
	int r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_cancel;
	g_cancel = 0;
	o->cancel = &g_cancel;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	r = npuprof_export(dir, o, res, err, sizeof(err));
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	o->cancel = NULL;
	if (r < 0) {
		fprintf(stderr, "%s: export of %s failed: %s\n", tool, dir, err);
		return 1;
	}
	if (!quiet)
		export_print_summary(res, stdout);
	if (res->damaged) {
		fflush(stdout);
		fprintf(stderr,
			"%s: %s: the input was not read completely (see the warnings above); %s has what could be read\n",
			tool, dir, res->db_path);
		return 1;
	}
	return 0;
}

/* The trace JSON of the database db, to out (NULL: beside db). */
static int trace_db(const char *db, const char *out, int quiet)
{
	struct npuprof_trace_opts to;
	struct npuprof_trace_result tr;
	struct sigaction sa, old_int, old_term;
	char path[4352], dir[4352], err[2048];
	int r;

	if (!out) {
		snprintf(dir, sizeof(dir), "%s", db);
		snprintf(path, sizeof(path), "%s/npuprof_trace.json", dirname(dir));
		out = path;
	}
	memset(&to, 0, sizeof(to));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_cancel;
	g_cancel = 0;
	to.cancel = &g_cancel;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	r = npuprof_trace_json(db, out, &to, &tr, err, sizeof(err));
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (r < 0) {
		fprintf(stderr, "npuprof export: %s\n", err);
		return 1;
	}
	if (!quiet)
		printf("npuprof export: trace JSON %s\n"
		       "  %llu events: %llu API calls, %llu tasks, %llu flows, %llu collectives, %llu marks, %llu ranges, %llu counter samples\n",
		       out, (unsigned long long)tr.events, (unsigned long long)tr.api,
		       (unsigned long long)tr.tasks, (unsigned long long)tr.flows,
		       (unsigned long long)tr.comm_ops, (unsigned long long)tr.marks,
		       (unsigned long long)tr.ranges, (unsigned long long)tr.counters);
	if (!quiet && tr.fwk)
		printf("  %llu framework rows (PYTORCH_API) on framework lanes of their threads\n",
		       (unsigned long long)tr.fwk);
	return 0;
}

/*
 * The sessions of a parent directory (the ranks of a job), each exported
 * by a child process, at most `jobs` at once: the wall time follows the
 * largest session, not the sum. A child's stdout and stderr go to
 * temporaries that are copied out whole, in session order, as soon as it
 * and every session before it are done, so the output reads as a
 * sequential run's. SIGINT/SIGTERM reach every running child (each removes
 * its temporaries); the sessions not started are not exported. Returns the
 * number of sessions that failed.
 */
struct job {
	pid_t pid; /* 0: not started or done */
	FILE *out, *err;
	int done, failed;
};

static void copy_out(FILE *from, FILE *to)
{
	char buf[8192];
	size_t n;

	if (!from)
		return;
	rewind(from);
	while ((n = fread(buf, 1, sizeof(buf), from)) > 0)
		fwrite(buf, 1, n, to);
	fclose(from);
	fflush(to);
}

static int export_parallel(char **dirs, size_t n, unsigned jobs, struct npuprof_export_opts *o,
			   int quiet)
{
	struct job *j = calloc(n, sizeof(*j));
	struct sigaction sa, old_int, old_term;
	size_t next = 0, shown = 0, running = 0;
	int failed = 0;

	if (!j) {
		fprintf(stderr, "npuprof export: out of memory\n");
		return (int)n;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_cancel; /* no SA_RESTART: waitpid returns */
	g_cancel = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	o->progress = 0; /* one line per child would interleave */
	while (shown < n) {
		while (running < jobs && next < n && !g_cancel) {
			struct job *k = &j[next];
			struct npuprof_export_result res;

			k->out = tmpfile();
			k->err = tmpfile();
			fflush(stdout);
			fflush(stderr);
			k->pid = k->out && k->err ? fork() : -1;
			if (k->pid == 0) {
				dup2(fileno(k->out), 1);
				dup2(fileno(k->err), 2);
				sigaction(SIGINT, &old_int, NULL);
				sigaction(SIGTERM, &old_term, NULL);
				memset(&res, 0, sizeof(res));
				int r = export_run("npuprof export", dirs[next], o, &res, quiet);

				fflush(stdout);
				fflush(stderr);
				_exit(r);
			}
			if (k->pid < 0) {
				/* no process: this one here, in order */
				k->pid = 0;
				if (k->out)
					fclose(k->out);
				if (k->err)
					fclose(k->err);
				k->out = k->err = NULL;
				memset(&res, 0, sizeof(res));
				k->failed = export_run("npuprof export", dirs[next], o, &res,
						       quiet);
				k->done = 1;
			} else {
				running++;
			}
			next++;
		}
		if (running) {
			int st;
			pid_t p = waitpid(-1, &st, 0);

			if (p < 0) {
				if (errno != EINTR)
					break;
				if (g_cancel)
					for (size_t i = 0; i < next; i++)
						if (j[i].pid > 0)
							kill(j[i].pid, SIGTERM);
				continue;
			}
			for (size_t i = 0; i < next; i++) {
				if (j[i].pid != p)
					continue;
				j[i].pid = 0;
				j[i].done = 1;
				j[i].failed = !WIFEXITED(st) || WEXITSTATUS(st) != 0;
				if (WIFSIGNALED(st))
					fprintf(j[i].err,
						"npuprof export: export of %s ended by signal %d\n",
						dirs[i], WTERMSIG(st));
				running--;
			}
		}
		while (shown < n && j[shown].done) {
			copy_out(j[shown].out, stdout);
			copy_out(j[shown].err, stderr);
			failed += j[shown].failed;
			shown++;
		}
		if (!running && (g_cancel || next == n) && (shown == n || !j[shown].done))
			break;
	}
	for (size_t i = shown; i < n; i++) {
		if (j[i].out)
			fclose(j[i].out);
		if (j[i].err)
			fclose(j[i].err);
		if (!j[i].done) {
			failed++;
			fprintf(stderr, "npuprof export: %s: not exported (interrupted)\n",
				dirs[i]);
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	free(j);
	return failed;
}

/* DIR itself if it is a session; else each PROF_* session below it, `jobs`
 * at a time. */
static int export_dir(const char *dir, struct npuprof_export_opts *o,
		      struct npuprof_export_result *res, int quiet, unsigned jobs)
{
	char path[4400];
	glob_t g;
	int status = 0, failed = 0;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, NPUPROF_SESSION_FILE);
	if (access(path, F_OK) == 0)
		return export_run("npuprof export", dir, o, res, quiet);
	snprintf(path, sizeof(path), "%s/PROF_*/%s", dir, NPUPROF_SESSION_FILE);
	if (glob(path, 0, NULL, &g) != 0 || g.gl_pathc == 0) {
		globfree(&g);
		/* not a parent of sessions either: say what is wrong with DIR */
		return export_run("npuprof export", dir, o, res, quiet);
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char *p = g.gl_pathv[i];

		p[strlen(p) - strlen(NPUPROF_SESSION_FILE) - 1] = '\0';
	}
	n = g.gl_pathc;
	if (jobs > 1 && n > 1) {
		failed = export_parallel(g.gl_pathv, n, jobs, o, quiet);
		status = failed != 0;
	} else {
		for (size_t i = 0; i < n; i++) {
			memset(res, 0, sizeof(*res));
			if (export_run("npuprof export", g.gl_pathv[i], o, res, quiet)) {
				status = 1;
				failed++;
			}
		}
	}
	globfree(&g);
	if (!quiet || failed)
		fprintf(failed ? stderr : stdout,
			"npuprof export: %zu session%s in %s, %d failed\n", n, n == 1 ? "" : "s",
			dir, failed);
	return status;
}

int cmd_export(int argc, char **argv)
{
	static const struct option lo[] = { { "schema", required_argument, 0, 's' },
					    { "pytorch", no_argument, 0, 'p' },
					    { "json", no_argument, 0, 'j' },
					    { "quiet", no_argument, 0, 'q' },
					    { "force", no_argument, 0, 'f' },
					    { "output", required_argument, 0, 'o' },
					    { "jobs", required_argument, 0, 'J' },
					    { "help", no_argument, 0, 'h' },
					    { 0, 0, 0, 0 } };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint32_t jobs = ncpu > 0 ? (uint32_t)ncpu : 1;
	struct npuprof_export_opts o;
	struct npuprof_export_result res;
	int opt, quiet = 0;
	const char *out = NULL;
	struct stat sb;

	memset(&o, 0, sizeof(o));
	optind = 1;
	while ((opt = getopt_long(argc, argv, "s:pjqfo:h", lo, NULL)) != -1) {
		switch (opt) {
		case 's':
			if (!strcmp(optarg, "1.1.1"))
				o.schema = NPUPROF_DB_SCHEMA_1_1_1;
			else if (!strcmp(optarg, "1.2.0"))
				o.schema = NPUPROF_DB_SCHEMA_1_2_0;
			else {
				fprintf(stderr,
					"npuprof export: unknown schema '%s' (1.1.1 or 1.2.0)\n",
					optarg);
				return 2;
			}
			break;
		case 'p': o.pytorch = 1; break;
		case 'j': o.json = 1; break;
		case 'q': quiet = 1; break;
		case 'f': o.force = 1; break;
		case 'o':
			if (opt_path("npuprof export", "-o", optarg) < 0)
				return 2;
			out = optarg;
			break;
		case 'J':
			if (opt_u32("npuprof export", "--jobs", optarg, 1, 1024, &jobs) < 0)
				return 2;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (stat(argv[optind], &sb) == 0 && S_ISREG(sb.st_mode)) {
		if (!o.json || o.pytorch || o.schema || o.force) {
			fprintf(stderr,
				"npuprof export: %s is a file: only --json [-o OUT] applies to a database\n",
				argv[optind]);
			return 2;
		}
		return trace_db(argv[optind], out, quiet);
	}
	if (out) {
		fprintf(stderr,
			"npuprof export: -o applies to the trace of a database file only\n");
		return 2;
	}
	o.progress = !quiet && isatty(2);
	return export_dir(argv[optind], &o, &res, quiet, jobs);
}
