/*
 * flight.h — the flight recorder's memory: the last S seconds of capture
 * records in one preallocated ring of bounded size, and writing it out as
 * a normal session directory (exportable with `npuprof export`).
 *
 * The engine runs in overwrite mode (kmod) so a reader that falls behind
 * loses the oldest records, not the newest; the reader copies everything
 * into this ring, which drops records older than S seconds as time passes
 * and the oldest ones when it is full. Memory is the ring (fixed at start)
 * plus the engine's rings, whatever the workload does.
 */
#ifndef NPUPROF_TOOL_FLIGHT_H
#define NPUPROF_TOOL_FLIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "npuprof/engine.h"
#include "npuprof/session.h"
#include "uapi/npuprof.h"

struct flightbuf {
	struct npuprof_record *r;
	size_t cap, first, len;
	uint64_t keep_ns; /* the last S seconds */
	uint64_t evicted_full; /* newer than S seconds, lost to the size bound */
	uint64_t evicted_old; /* older than S seconds */
	uint64_t oldest_full_ts; /* ts of the newest record lost to the bound */
};

int flightbuf_init(struct flightbuf *b, uint64_t bytes, double seconds);
void flightbuf_free(struct flightbuf *b);
/* A record_fn: append one record (evicting the oldest when full). */
int flightbuf_push(void *b, const struct npuprof_record *r);
/* Forget records older than now - S seconds. */
void flightbuf_trim(struct flightbuf *b, uint64_t now);

struct flight_dump_info {
	const char *parent; /* the session directory goes under here */
	const char *reason; /* "signal", "hang", "exit" ... */
	const char *host_dir; /* copy host/data of this session (or NULL) */
	const char *report; /* hang report text to store (or NULL) */
	const char *engine;
	uint32_t pid; /* the program captured (0: all) */
	const char *cmd;
	uint32_t sample_n, flags;
	struct npuprof_stats stats;
};

/*
 * Write the records of the last S seconds before now into a new session
 * directory under info->parent. Returns 0 with the directory in s->dir, or
 * -errno with a message in err.
 */
int flight_dump(const struct flightbuf *b, uint64_t now, const struct flight_dump_info *info,
		struct npuprof_session *s, uint64_t *written, char *err, size_t errlen);

#endif
