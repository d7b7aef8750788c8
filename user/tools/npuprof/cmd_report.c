/*
 * cmd_report.c - `npuprof report FILE.db|DIR`: the text summary of an msprof
 * database (ours, a real msprof export, or torch_npu's PyTorch variant).
 * The work is in libnpuprof (report.h); this file is the command line.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <npuprof/report.h>

#include "cmds.h"
#include "numparse.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: npuprof report [--top N] FILE.db|DIR\n"
		"  Summarises an msprof database: top operators by device time, task types,\n"
		"  device and stream busy shares, launch latency percentiles (host API to\n"
		"  device task start), collective operations, msproftx ranges, and warnings\n"
		"  for drops, tasks in flight at stop, derived task times and sampling.\n"
		"  Reads npuprof's databases, real msprof_*.db files and torch_npu's\n"
		"  ascend_pytorch_profiler*.db. Durations are in microseconds.\n"
		"\n"
		"  DIR is a PROF_* session directory or any directory: the newest\n"
		"  msprof_<14 digits>.db (else an ascend_pytorch_profiler*.db) in it or up to\n"
		"  two levels below is reported.\n"
		"\n"
		"  -n, --top N   list the N heaviest operators and msproftx messages (default 20)\n"
		"  -h, --help    show this help\n"
		"\n"
		"examples:\n"
		"  npuprof report PROF_000001_20260609062613089_LCGOJBRHMJCDONRB\n"
		"  npuprof report --top 50 PROF_000001_20260609062613089_LCGOJBRHMJCDONRB/msprof_20260609062700.db\n"
		"  npuprof report rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db\n");
}

int cmd_report(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "top", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct npuprof_report_options opt = { 0 };
	char err[4096];
	int c, r;

	while ((c = getopt_long(argc, argv, "n:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (opt_u32("npuprof report", "--top", optarg, 1, 1000000, &opt.top) < 0)
				return 2;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "npuprof report: %s\n\n",
			optind == argc ? "which database? give a FILE.db or a directory" :
					 "one database at a time");
		usage(stderr);
		return 2;
	}
	r = npuprof_report_write(stdout, argv[optind], &opt, err, sizeof(err));
	if (r < 0) {
		fflush(stdout);
		fprintf(stderr, "npuprof report: %s\n", err);
		return 1;
	}
	return 0;
}
