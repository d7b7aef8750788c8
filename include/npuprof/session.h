/*
 * session.h — a collection's directory: PROF_<6 digits>_<17-digit local
 * time>_<16 upper-case letters>/, laid out the way msprof and its readers
 * expect (docs/ascend-reference.md §2.1):
 *
 *   host/info.json, host/start_info, host/end_info, host/host_start.log
 *   host/data/npuprof.host.<pid>.raw        (written by libnpuprof in the app)
 *   device_<N>/info.json.<N>, start_info.<N>, end_info.<N>, dev_start.log.<N>
 *   device_<N>/data/stars_soc.data          (the device's STARS SoC log, as
 *                                           npuprof record drained it)
 *   device_<N>/data/lpmFreqConv.data        (its AI Core frequency changes,
 *                                           profiling channel 132)
 *   kernel/npuprof.kernel.raw               (the capture engine's records)
 *   npuprof.session                         (our own session info, key=value)
 *   <aclprofInit dir>/npuprof_profile_location.txt  (a program's own
 *                                           aclprofInit under `npuprof record`:
 *                                           one line naming this directory)
 *   msprof_<YYYYmmddHHMMSS>.db              (written by export)
 *
 * npuprof.session is the one file export trusts: one `key=value` per line,
 * unknown keys ignored, so it can grow. Since version 2 its last line is
 * `crc=<8 hex digits>`, the CRC-32 (npuprof_crc32) of every byte above it,
 * so a truncated or garbled file is told from a good one. A file edited by
 * hand drops the crc line and says version=1 (checked as version 1 files
 * are: whole lines, numbers, the device count, an end after the start).
 */
#ifndef NPUPROF_SESSION_H
#define NPUPROF_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "npuprof/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NPUPROF_SESSION_FILE "npuprof.session"
#define NPUPROF_SESSION_VERSION 2 /* the version= this code writes */
#define NPUPROF_KERNEL_RAW "kernel/npuprof.kernel.raw"
/* A device's STARS SoC log under its device_<N>/ directory: the 64-byte
 * ACSQ_TASK records of profiling channel 50 (uapi/npusim.h, struct
 * npusim_stars_acsq) as read from the channel, concatenated; export takes
 * the device's task times from it (user/export/stars.h) */
#define NPUPROF_STARS_SOC_FILE "data/stars_soc.data"
/* A device's AI Core frequency changes under its device_<N>/ directory,
 * where msprof's collector writes them: the 888-byte records of profiling
 * channel 132 (uapi/npusim.h, struct npusim_lp_record) as read from the
 * channel, concatenated; export writes AICORE_FREQ from it
 * (user/export/lpfreq.h) */
#define NPUPROF_LPM_FREQ_FILE "data/lpmFreqConv.data"
/* engine= of a session without kernel capture (an API-driven session where
 * /dev/npuprof is missing): export takes task times from the host task
 * tracks and says so in META_DATA (npuprof.task_time_source=host) */
#define NPUPROF_ENGINE_HOST "host"
/* The note a program's aclprofInit directory gets when `npuprof record`
 * governs the session (acl/acl_prof.h) */
#define NPUPROF_PROFILE_NOTE "npuprof_profile_location.txt"
#define NPUPROF_MAX_SESSION_DEVICES 32

struct npuprof_session_device {
	uint32_t id;
	char chip[32];
	uint64_t counter_hz; /* device counter frequency */
	uint32_t aicore_num;
	int32_t rank; /* the rank on this device (npuprof/rank.h); -1: none */
	uint32_t aicore_mhz; /* the AI Core frequency at the start; 0: unknown */
};

struct npuprof_session {
	char dir[4096];
	char hostname[256];
	char host_uid[32]; /* decimal text */
	uint32_t pid; /* the profiled process (0: system-wide) */
	int32_t rank; /* the process's rank (npuprof/rank.h); -1: none */
	char cmd[1024];
	char engine[16];
	char device_backend[16]; /* "npusim", "noclock" (user/device) */
	uint32_t sample_n;
	uint32_t capture_flags;
	uint64_t start_realtime_ns, start_monotonic_ns;
	uint64_t end_realtime_ns, end_monotonic_ns;
	int ndev;
	struct npuprof_session_device dev[NPUPROF_MAX_SESSION_DEVICES];
	/* capture statistics, written at the end */
	uint64_t written, dropped, filtered, sampled_out, overwritten;
	int exit_status; /* of the profiled command; -1 unknown */
	/* production sampling in user space: duty-cycle window and per-CPU
	 * rate limit (0: off), and the records each skipped */
	uint32_t window_on_ms, window_period_ms, rate_limit;
	uint64_t window_skipped, rate_skipped;
	/* ACL_PROF_* data-type switches of an API-driven session (aclprofStart's
	 * config): export writes only the tables they enable. 0: every table
	 * (`npuprof record`, where the recorder's session governs) */
	uint64_t switches;
	/* the devices' STARS SoC logs (device_<N>/data/stars_soc.data): the
	 * records the devices wrote while recorded and those their rings
	 * dropped, summed over the devices */
	uint64_t stars_records, stars_dropped;
};

/* Fill s with this host's identity, the devices present (through the device
 * backend in charge: npusim, or a real driver's /proc/trs_chan entries) and
 * the clock pair taken now. */
void npuprof_session_init(struct npuprof_session *s);

/* Create a new PROF_* directory under parent and write the start files
 * (host/info.json ... dev_start.log.N, npuprof.session). Returns 0 or -errno
 * with a message in err; s->dir receives the path. */
int npuprof_session_create(struct npuprof_session *s, const char *parent, char *err, size_t errlen);

/* Take the end clock pair, write end_info files and the final
 * npuprof.session. */
int npuprof_session_finish(struct npuprof_session *s, char *err, size_t errlen);

/* Rewrite host/info.json and every device_<N>/info.json.<N> with the
 * session's current ranks (rank_id) and pid, and npuprof.session. */
int npuprof_session_write_info(const struct npuprof_session *s, char *err, size_t errlen);

/* Read DIR/npuprof.session. Returns 0 or -errno with a message. A file
 * that is not what a writer writes — a line without its end (truncated), a
 * line that is not key=value, a value that is not a number where one
 * belongs or does not fit, a device count that does not match the device
 * lines, an end before the start, a crc line that does not match (or none
 * in a version 2 file) — gives -EBADMSG with "<path>: damaged: line N: why"
 * in err; s then holds what could be read (export --force uses it). */
int npuprof_session_load(struct npuprof_session *s, const char *dir, char *err, size_t errlen);

/* Take (host CLOCK_MONOTONIC, device counter) pairs from every device of the
 * session through its device backend and hand them to fn as
 * NPUPROF_REC_CLOCK_SYNC records; export fits each device's clock from them.
 * Devices without a clock-sync source (backend "noclock") give none. */
void npuprof_session_clock_sync(const struct npuprof_session *s, npuprof_record_fn fn, void *ctx);

/* Unix ns of a CLOCK_MONOTONIC ns timestamp of this session. */
static inline int64_t npuprof_session_unix_ns(const struct npuprof_session *s, uint64_t mono_ns)
{
	return (int64_t)(mono_ns + (s->start_realtime_ns - s->start_monotonic_ns));
}

/* The same, checked: 1 with the Unix ns in *out if it fits a (non-negative)
 * INT64 column, else 0. */
static inline int npuprof_session_unix_ns_fits(const struct npuprof_session *s, uint64_t mono_ns,
					       int64_t *out)
{
	int64_t off = (int64_t)(s->start_realtime_ns - s->start_monotonic_ns);

	if (mono_ns > (uint64_t)INT64_MAX || __builtin_add_overflow((int64_t)mono_ns, off, out) ||
	    *out < 0)
		return 0;
	return 1;
}

/* A row's globalTid: (pid << 32) | tid (docs/ascend-reference.md, value conventions). */
static inline int64_t npuprof_global_tid(uint32_t pid, uint32_t tid)
{
	return ((int64_t)pid << 32) | tid;
}

#ifdef __cplusplus
}
#endif
#endif
