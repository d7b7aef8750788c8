/*
 * trace_switch.h - the driver's trace switches (private to user/capture:
 * engine.c turns them on for every engine that reads the driver).
 */
#ifndef NPUPROF_TRACE_SWITCH_H
#define NPUPROF_TRACE_SWITCH_H

#include <stdint.h>

#define TRACE_SWITCH_MAX 64

/* trace_enable files switched on, with their values before */
struct trace_switches {
	int n;
	char path[TRACE_SWITCH_MAX][96];
	char old[TRACE_SWITCH_MAX];
	int failed; /* switches that are off and could not be set */
	int unknown; /* switches this user can neither set nor read */
};

/* Turn every /proc/trs_chan/dev*-ts*\/trace_enable on, remembering each
 * one's value from the first time it was seen; call again to re-enable
 * switches of a driver that was reloaded. Returns how many are on; the ones
 * that are off and could not be set (no permission) are counted in
 * sw->failed. Restore puts the remembered values back. */
int trace_switch_on(struct trace_switches *sw);
void trace_switch_restore(struct trace_switches *sw);

/* The one warning about switches, on stderr, prefixed by tool: the ones
 * known to be off; and, once a capture is over and delivered no record
 * (captured == 0), the ones that could not even be read. */
void trace_switch_warn(const char *tool, int failed, int unknown, uint64_t captured);

#endif
