/*
 * npuprof flight — the flight recorder: capture continuously, keep the last
 * S seconds in bounded memory and dump them on SIGUSR1 (`npuprof dump`), at
 * a hang or at exit. The loop, shared with `npuprof watch`, is hangwatch.c.
 */
#include <stdio.h>

#include "capture.h"
#include "cmds.h"
#include "hangwatch.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: npuprof flight -o DIR [options] [-- CMD ARGS]\n"
		"  Flight recorder: capture continuously, keep the last S seconds in\n"
		"  bounded memory, and write them as a session directory under DIR on\n"
		"  SIGUSR1 (`npuprof dump`), when a hang is detected, or at exit with\n"
		"  --dump-on-exit. Runs until SIGINT/SIGTERM, CMD exits or --duration.\n\n"
		"  -o DIR                  where dumps go (PROF_* session directories)\n"
		"  --seconds S             how much history to keep (default 10)\n"
		"  --size MB               memory for it (default 64)\n"
		"  --hang-ms MS            dump when a stream makes no progress for MS\n"
		"                          (default 10000; 0: no hang detection)\n"
		"  --export                also export every dump's database (in the background)\n"
		"  --dump-on-exit          dump once more when stopping\n"
		"  --exit-on-hang          stop after the first hang (exit status 3)\n"
		"  --pidfile PATH          for `npuprof dump` (default /run/npuprof-flight.pid\n"
		"                          as root, else /tmp/npuprof-flight-<uid>.pid)\n" CAPTURE_USAGE
		"\nexamples:\n"
		"  npuprof flight -o /var/lib/npuprof --seconds 30 --size 256\n"
		"  npuprof dump                       # from another shell\n");
}

int cmd_flight(int argc, char **argv)
{
	return hangwatch_main(argc, argv, 0, usage);
}
