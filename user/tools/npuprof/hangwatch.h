/*
 * hangwatch.h — the loop shared by `npuprof flight` and `npuprof watch`
 * (hangwatch.c): capture, follow tasks in flight, detect hangs, and in
 * flight mode keep the last seconds and dump them. The two commands are
 * this loop with other defaults and their own help.
 */
#ifndef NPUPROF_TOOL_HANGWATCH_H
#define NPUPROF_TOOL_HANGWATCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "capture.h"

struct hangwatch_opts {
	const char *tool;
	const char *out; /* dump parent directory */
	const char *pidfile; /* NULL: none */
	double seconds;
	uint64_t size_bytes;
	uint64_t hang_ns; /* 0: no hang detection */
	int flight; /* keep history and dump */
	int export, dump_on_exit, exit_on_hang, verbose;
	int pid_said; /* the pid file is a default to say (watch --flight) */
};

/* Exit status: 0, 1 (tracer error), 2 (usage), 3 (hang, with
 * exit_on_hang), or the program's own failure. */
int hangwatch_run(const struct hangwatch_opts *o, struct capture_args *a);
/* Parse the options of `npuprof flight` (watch 0) or `npuprof watch`
 * (watch 1) and run the loop; usage prints the command's help (to stdout
 * for --help, stderr on a usage error). */
int hangwatch_main(int argc, char **argv, int watch, void (*usage)(FILE *f));
/* Where the flight recorder's pid file is unless --pidfile says. */
void flight_default_pidfile(char *out, size_t len);

#endif
