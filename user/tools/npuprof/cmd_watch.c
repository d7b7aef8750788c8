/*
 * npuprof watch — the hang detector on its own: follow every stream's tasks
 * in flight and report the first one that stops making progress (see
 * tracker.h for what counts), then exit 3. With --flight it also keeps the
 * last seconds and dumps them with the report (the loop is hangwatch.c's).
 */
#include <stdio.h>

#include "capture.h"
#include "cmds.h"
#include "hangwatch.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: npuprof watch [options] [-- CMD ARGS]\n"
		"  Detect hangs: a task in flight, or a non-empty stream without a\n"
		"  completion, for longer than the threshold. Prints a report naming\n"
		"  the device, stream, task, submitter, host API and msproftx range\n"
		"  and what is queued behind it, then exits 3. Exits 0 when CMD\n"
		"  finishes (or --duration ends) without a hang. A CMD it started is\n"
		"  stopped at the hang (SIGINT, then SIGKILL); a --pid process is not.\n\n"
		"  --threshold MS          hang threshold (default 5000)\n"
		"  --keep-going            report every hang, do not exit at the first\n"
		"  --flight -o DIR         also keep the last --seconds S (--size MB) and\n"
		"                          dump them into DIR at a hang\n"
		"  --seconds S, --size MB  as for `npuprof flight`\n"
		"  --pidfile PATH          with --flight: for `npuprof dump` (default\n"
		"                          DIR/npuprof-watch.pid)\n" CAPTURE_USAGE REPLAY_USAGE
		"\nexamples:\n"
		"  npuprof watch --threshold 2000 -- ./train.sh\n"
		"  npuprof watch --flight -o /tmp/hangs --duration 3600\n"
		"  npuprof watch --threshold 500 --from PROF_000001_20260609062613089_LCGOJBRHMJCDONRB\n");
}

int cmd_watch(int argc, char **argv)
{
	return hangwatch_main(argc, argv, 1, usage);
}
