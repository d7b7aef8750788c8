/*
 * npuprof - the tracer's command line. Subcommands are dispatched from one
 * table; each lives in its own cmd_<name>.c in this directory.
 */
#include <stdio.h>
#include <string.h>

#include "cmds.h"

static const struct npuprof_cmd cmds[] = {
	{ "record", "profile a program into a session and export its database", cmd_record },
	{ "export", "write the msprof database of a session directory", cmd_export },
	{ "stat", "count driver events, tasks, latencies and drops", cmd_stat },
	{ "report", "summarise an msprof database: operators, busy, latency, warnings",
	  cmd_report },
	{ "flight", "flight recorder: keep the last seconds, dump them on demand or a hang",
	  cmd_flight },
	{ "dump", "make the running flight recorder write its last seconds", cmd_dump },
	{ "live", "print submits and completions as they happen", cmd_live },
	{ "top", "per device and stream: tasks/s, queue depth, busy share, oldest task", cmd_top },
	{ "watch", "detect hung tasks and streams; report and exit non-zero", cmd_watch },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: npuprof <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].help);
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	fprintf(stderr, "npuprof: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}
