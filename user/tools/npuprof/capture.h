/*
 * capture.h — what `npuprof stat`, `record` and the other capturing
 * commands share: the capture options, starting (or attaching to) the
 * profiled program, and the read loop over a capture engine.
 */
#ifndef NPUPROF_TOOL_CAPTURE_H
#define NPUPROF_TOOL_CAPTURE_H

#include <getopt.h>
#include <stdint.h>
#include <sys/types.h>

#include "npuprof/engine.h"
#include "npuprof/session.h"

/* getopt_long values of the shared options (above the short-option range) */
enum {
	CAP_OPT_ENGINE = 1000,
	CAP_OPT_PID,
	CAP_OPT_DURATION,
	CAP_OPT_SAMPLE,
	CAP_OPT_DEVICES,
	CAP_OPT_STREAMS,
	CAP_OPT_RING_KB,
	CAP_OPT_WINDOW,
	CAP_OPT_RATE_LIMIT,
	CAP_OPT_FROM,
};

#define CAPTURE_LONG_OPTIONS                                            \
	{ "engine", required_argument, 0, CAP_OPT_ENGINE },             \
		{ "pid", required_argument, 0, CAP_OPT_PID },           \
		{ "duration", required_argument, 0, CAP_OPT_DURATION }, \
		{ "sample", required_argument, 0, CAP_OPT_SAMPLE },     \
		{ "devices", required_argument, 0, CAP_OPT_DEVICES },   \
		{ "streams", required_argument, 0, CAP_OPT_STREAMS },   \
		{ "ring-kb", required_argument, 0, CAP_OPT_RING_KB },   \
		{ "window", required_argument, 0, CAP_OPT_WINDOW },     \
	{                                                               \
		"rate-limit", required_argument, 0, CAP_OPT_RATE_LIMIT  \
	}

#define CAPTURE_USAGE                                                                \
	"  --engine kmod|bpf|auto  capture engine (auto: npuprof.ko if loaded)\n"    \
	"  --pid P                 attach to process P (default: run CMD, or all)\n" \
	"  --duration S            stop after S seconds\n"                           \
	"  --sample N              keep 1 task in N (deterministic per task)\n"      \
	"  --devices LIST          only these devices, e.g. 0,2-3\n"                 \
	"  --streams LIST          only these stream ids\n"                          \
	"  --ring-kb N             ring size per CPU\n"                              \
	"  --window ON_MS/PERIOD_MS  capture tasks submitted in the first ON_MS\n"   \
	"                          of every PERIOD_MS (duty cycle)\n"                \
	"  --rate-limit N          at most N tasks/s submitted from each CPU\n"

/* Commands that can replay a recording (live, top, watch) add these. */
#define REPLAY_LONG_OPTION                                 \
	{                                                  \
		"from", required_argument, 0, CAP_OPT_FROM \
	}
#define REPLAY_USAGE                                                                     \
	"  --from PATH             replay a recording instead of the driver: a\n"        \
	"                          PROF_* directory of `npuprof record` or its\n"        \
	"                          kernel/npuprof.kernel.raw (engine \"file\"; stream\n" \
	"                          time, as fast as it reads; filters apply)\n"

struct capture_args {
	const char *engine;
	pid_t pid;
	double duration;
	struct npuprof_capture_opts o;
	uint32_t streams[NPUPROF_MAX_STREAMS];
	char **cmd; /* NULL: no command */
	char *const *env; /* extra "K=V" for the command, NULL-terminated */
	/* production sampling in user space (throttle.h); 0: off */
	uint32_t window_on_ms, window_period_ms;
	uint32_t rate_limit;
	/* --from: the recording replayed (engine "file") */
	const char *from;
	char from_raw[4200];
	struct npuprof_session *from_session; /* its session, if it has one */
	/* with a command: no kernel pid filter, the caller keeps the
	 * command's process tree (jobsplit.h) */
	int follow_tree;
};

/* Called once per loop turn (about every 100 ms) with the engine. */
typedef void (*capture_tick_fn)(void *ctx, struct npuprof_engine *e);

struct capture_result {
	struct npuprof_stats stats;
	double seconds;
	uint64_t end_ns; /* capture_now_ns() when the capture stopped */
	int exit_status; /* of CMD; -1 if none ran */
	pid_t pid; /* the captured process (0: all) */
	char engine[16];
	int interrupted;
	/* records (and tasks) skipped by --window and --rate-limit */
	uint64_t window_skipped, rate_skipped;
	uint64_t window_tasks, rate_tasks;
};

void capture_args_init(struct capture_args *a);
/* getopt_long() that applies the shared capture options to a itself: returns
 * the caller's next own option, -1 at the end, or CAP_OPT_INVALID after
 * printing why a shared option's value is bad. */
#define CAP_OPT_INVALID (-2)
int capture_getopt(struct capture_args *a, const char *tool, int argc, char **argv,
		   const char *shortopts, const struct option *longopts);

/*
 * Run the capture: start CMD gated (so its first task is seen) with the
 * extra environment, or attach to --pid, or capture everything; deliver
 * records to fn until CMD exits, the pid is gone, the duration ends or
 * SIGINT/SIGTERM; then stop and deliver the rest. `before_start` (optional)
 * runs after the engine opened and CMD forked but before capture starts, so
 * the caller can write session files naming the pid. Returns 0, or 1 on a
 * tracer error (message printed).
 */
int capture_run(struct capture_args *a, const char *tool, npuprof_record_fn fn, void *ctx,
		capture_tick_fn tick,
		void (*before_start)(void *ctx, pid_t pid, struct npuprof_engine *e),
		struct capture_result *res);

/* The capture's clock: CLOCK_MONOTONIC, or a replay's stream time while a
 * replay engine is open. */
uint64_t capture_now_ns(void);

/* The devices of the capture, for counter frequencies: the recording's
 * (--from) or this host's (npuprof_session_init). */
void capture_devices(const struct capture_args *a, struct npuprof_session *s);

/* Frees what the options allocated (the replayed session). */
void capture_args_free(struct capture_args *a);

#endif
