/*
 * dbgen_main.c - `build/tests/bin/dbgen --tasks N -o FILE`: a synthetic
 * msprof database through the exporter's writer, for benchmarks and checks.
 * A test tool: built from tests/gen, never part of npuprof or its library.
 *
 * FILE names the final database; its directory receives the temporary and
 * the rename, so FILE appears complete or not at all.
 */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <npuprof/db.h>
#include "dbgen.h"
#include "numparse.h"

/* About 30 GB of database: more is a typo, not a benchmark. */
#define DBGEN_MAX_TASKS 100000000ULL

/* The temporary being built, removed if SIGINT/SIGTERM ends dbgen (unlink
 * and _exit are async-signal-safe; the path is set before the handler). */
static char g_tmp[4352];

static void on_signal(int sig)
{
	if (g_tmp[0])
		unlink(g_tmp);
	_exit(128 + sig);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dbgen --tasks N -o FILE [--schema 1.1.1|1.2.0] [--pytorch]\n"
		"             [--force]\n"
		"  Writes N synthetic device tasks with their CANN_API, COMPUTE_TASK_INFO,\n"
		"  HCCL (COMMUNICATION_OP/COMMUNICATION_TASK_INFO), MEMCPY_INFO and MSTX_EVENTS\n"
		"  rows to FILE (default: msprof_<YYYYmmddHHMMSS>.db in the current directory).\n"
		"  N is 1 to 100000000. --force replaces an existing FILE atomically.\n"
		"examples:\n"
		"  dbgen --tasks 100000 -o /tmp/msprof_20260101000000.db\n"
		"  dbgen --tasks 1000 --schema 1.2.0 --pytorch -o ascend_pytorch_profiler.db\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "tasks", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "schema", required_argument, NULL, 's' },
		{ "pytorch", no_argument, NULL, 'p' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct npuprof_db_options opt = { 0 };
	struct npuprof_dbgen_params p = { 0 };
	const char *out = NULL;
	char *dir_copy = NULL, *name_copy = NULL, err[1024];
	struct npuprof_db *w;
	struct timespec t0, t1;
	int c, r, have_tasks = 0;

	while ((c = getopt_long(argc, argv, "n:o:s:pfh", lopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (opt_u64("dbgen", "--tasks", optarg, 1, DBGEN_MAX_TASKS, &p.tasks) < 0)
				return 2;
			have_tasks = 1;
			break;
		case 'o': out = optarg; break;
		case 's':
			if (!strcmp(optarg, "1.1.1")) {
				opt.schema = NPUPROF_DB_SCHEMA_1_1_1;
			} else if (!strcmp(optarg, "1.2.0")) {
				opt.schema = NPUPROF_DB_SCHEMA_1_2_0;
			} else {
				fprintf(stderr, "dbgen: --schema is 1.1.1 or 1.2.0, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'p': opt.variant = NPUPROF_DB_PYTORCH; break;
		case 'f': opt.flags |= NPUPROF_DB_REPLACE; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!have_tasks || optind != argc) {
		usage(stderr);
		return 2;
	}
	const char *dir = ".";

	if (out) {
		dir_copy = strdup(out);
		name_copy = strdup(out);
		if (!dir_copy || !name_copy) {
			fprintf(stderr, "dbgen: out of memory\n");
			return 1;
		}
		dir = dirname(dir_copy);
		opt.file_name = basename(name_copy);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = npuprof_db_open(&w, dir, &opt, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "dbgen: %s\n", err);
		free(dir_copy);
		free(name_copy);
		return 1;
	}
	snprintf(g_tmp, sizeof(g_tmp), "%s", npuprof_db_temp_path(w));
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	r = npuprof_dbgen_to_db(w, &p);
	if (r == 0)
		r = npuprof_db_finish(w);
	if (r < 0) {
		fprintf(stderr, "dbgen: %s\n", npuprof_db_errmsg(w));
		if (r == -EEXIST)
			fprintf(stderr, "dbgen: use --force to replace it\n");
	} else {
		uint64_t rows = 0;

		clock_gettime(CLOCK_MONOTONIC, &t1);
		for (int t = 0; t < NPUPROF_DB_TABLE_COUNT; t++)
			rows += npuprof_db_row_count(w, (enum npuprof_db_table)t);
		printf("%s: %llu tasks, %llu rows in %.3f s\n", npuprof_db_path(w),
		       (unsigned long long)npuprof_db_row_count(w, NPUPROF_DB_TASK),
		       (unsigned long long)rows,
		       (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	npuprof_db_close(w);
	free(dir_copy);
	free(name_copy);
	return r < 0 ? 1 : 0;
}
