/*
 * flightrec.h — the loop shared by `npuprof flight` and `npuprof watch`
 * (cmd_flight.c): capture, follow tasks in flight, detect hangs, and in
 * flight mode keep the last seconds and dump them.
 */
#ifndef NPUPROF_TOOL_FLIGHTREC_H
#define NPUPROF_TOOL_FLIGHTREC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "capture.h"

struct flight_opts {
	const char *tool;
	const char *out; /* dump parent directory */
	const char *pidfile; /* NULL: none */
	double seconds;
	uint64_t size_bytes;
	uint64_t hang_ns; /* 0: no hang detection */
	int flight; /* keep history and dump */
	int export, dump_on_exit, exit_on_hang, verbose;
};

/* Exit status: 0, 1 (tracer error), 2 (usage), 3 (hang, with
 * exit_on_hang), or the program's own failure. */
int flight_run(const struct flight_opts *o, struct capture_args *a);
int flight_main(int argc, char **argv, int watch);
void flight_default_pidfile(char *out, size_t len);
void watch_usage(FILE *f);
void flight_rmtree(const char *dir);

#endif
