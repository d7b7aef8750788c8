/*
 * export.h — turning a session directory into the msprof database.
 *
 * npuprof_export() reads DIR/npuprof.session, the kernel raw stream
 * (kernel/npuprof.kernel.raw) and every host raw stream
 * (host/data/npuprof.host.<pid>.raw), correlates them (docs/DESIGN.md §4) and
 * writes DIR/msprof_<YYYYmmddHHMMSS>.db through the db writer: TASK,
 * COMPUTE_TASK_INFO, MEMCPY_INFO, COMMUNICATION_OP/TASK_INFO, CANN_API,
 * MSTX_EVENTS, SESSION_TIME_INFO, NPU_INFO, HOST_INFO, META_DATA (with the
 * capture's statistics under `npuprof.*` names), STRING_IDS and the ENUM
 * tables. Older msprof_*.db files in DIR are removed once the new one is
 * complete, so re-running export leaves one database with the same content.
 * Every output (the databases, npuprof_trace.json) is built in a hidden
 * temporary and renamed over its final name only when it is complete.
 *
 * An API-driven session (aclprofStart, npuprof.session switches=...) gets
 * only the tables its ACL_PROF_* switches enabled: TASK and its detail rows
 * with ACL_PROF_TASK_TIME, CANN_API with ACL_PROF_ACL_API, MSTX_EVENTS with
 * ACL_PROF_MSPROFTX. A host-only session (engine=host: no npuprof.ko) has
 * no kernel stream; its TASK rows come from the host task tracks (launch
 * time + modelled duration) and META_DATA npuprof.task_time_source=host.
 *
 * A device with a STARS SoC log in the session (device_<N>/data/stars_soc.data,
 * session.h) has its task times from the log (user/export/stars.h), its
 * kernel task-time records ignored; META_DATA npuprof.task_time_source says
 * stars and npuprof.stars_* hold the log's counts. A log cut inside a
 * record is damaged input (its whole records are exported).
 *
 * Damaged input costs only the damaged records: a truncated or corrupt raw
 * file, or one that cannot be read at all, is reported (file and offsets)
 * on opts.warn, what is intact is exported, the skipped parts are counted
 * in META_DATA (npuprof.damaged_inputs) and result.damaged is set. Callers
 * must treat result.damaged as a failure of the export (npuprof export
 * exits 1): the database is usable but not complete.
 *
 * Never less complete: the row counts of TASK, CANN_API, COMPUTE_TASK_INFO,
 * COMMUNICATION_OP, MSTX_EVENTS and PYTORCH_API measure completeness. If a database this
 * export would replace (an msprof_*.db of DIR; the PyTorch file) has more
 * rows in any of them than the new one, or cannot be read to tell, the new
 * one is discarded, nothing in DIR changes and npuprof_export returns
 * -EEXIST with a message naming the kept file, unless opts.force is set.
 * Not rows only: an export from damaged input never replaces a database
 * exported from undamaged input (META_DATA npuprof.damaged_inputs = 0, or a
 * database without that row), whatever the counts.
 *
 * A damaged npuprof.session (session.h: npuprof_session_load's -EBADMSG) is
 * refused with its message (file, line, why) and nothing in DIR changes;
 * with opts.force the export uses what could be read (an end before the
 * start is dropped), warns, and sets result.damaged.
 */
#ifndef NPUPROF_EXPORT_H
#define NPUPROF_EXPORT_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "npuprof/db.h"

#ifdef __cplusplus
extern "C" {
#endif

struct npuprof_export_opts {
	enum npuprof_db_schema schema;
	/* Also the PyTorch database, with the framework tables of the host
	 * streams' framework records (PYTORCH_API, CONNECTION_IDS, ...: see
	 * user/export/fwk.h): DIR/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler.db,
	 * or, when DIR's parent is a torch_npu <worker>_ascend_pt directory,
	 * <parent>/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_<rank>.db
	 * (no _<rank> without a rank) with the top-level keys of
	 * <parent>/profiler_metadata.json as META_DATA rows. A damaged framework
	 * record or a profiler_metadata.json that is not JSON sets
	 * result.damaged. */
	int pytorch;
	int json; /* also npuprof_trace.json (Chrome/Perfetto trace events) */
	int progress; /* progress bar on stderr */
	FILE *warn; /* warnings (damaged files ...); NULL: stderr */
	int force; /* replace a more complete database (see above) */
	/* When *cancel becomes non-zero (a signal handler sets it), the export
	 * stops, removes its temporaries and returns -EINTR. NULL: never. */
	const volatile sig_atomic_t *cancel;
};

struct npuprof_export_result {
	char db_path[4352];
	char pytorch_path[4352];
	char json_path[4352];
	uint64_t tasks; /* TASK rows */
	uint64_t api; /* CANN_API rows */
	uint64_t mstx; /* MSTX_EVENTS rows */
	uint64_t compute; /* COMPUTE_TASK_INFO rows */
	uint64_t comm_ops, comm_tasks;
	uint64_t in_flight; /* submitted, never completed */
	uint64_t orphan_completions; /* completed without a captured submit */
	uint64_t derived; /* tasks whose times were derived, not measured */
	uint64_t drops; /* kernel records lost in the rings */
	uint64_t host_lost; /* host records lost (full buffers, damage) */
	uint64_t late; /* kernel records that arrived out of order */
	uint64_t unmatched_tracks; /* host task tracks with no kernel submit */
	double clock_residual_ns; /* worst device clock-fit residual (RMS) */
	int damaged; /* some input was damaged or unreadable (warnings printed) */
	uint64_t unreadable; /* input files that could not be read at all */
	uint64_t kernel_bad_records; /* corrupt kernel records skipped */
	double correlate_seconds; /* time in the correlation step */
	/* the rest of the breakdown (bench_export): reading the host streams,
	 * writing the host-only and session rows, and finishing the database
	 * (indexes, STRING_IDS, commit, sync, rename) */
	double load_seconds, write_seconds, finish_seconds;
	/* and where the work went (bench_export's breakdown), CPU time:
	 * read_seconds in the kernel stream's and the host merge's reads;
	 * decode_seconds indexing the host streams and the kernel stream's
	 * first pass; correlate_cpu_seconds the correlation step less its reads
	 * (merging, correlating, building rows); sqlite_seconds SQLite's
	 * (npuprof_db_timings); and wall time: fsync_seconds publishing the
	 * file (fsync, rename, fsync of the directory) */
	double read_seconds, decode_seconds, correlate_cpu_seconds, sqlite_seconds, fsync_seconds;
	uint64_t kernel_records;
	/* --pytorch: PYTORCH_API rows, and framework records skipped as
	 * damaged (they make `damaged` set) */
	uint64_t fwk_ops, fwk_skipped;
	/* the devices' STARS SoC logs (device_<N>/data/stars_soc.data), the
	 * task times of their devices: records read, tasks paired, records
	 * that paired with nothing (an end without a start, a start without
	 * an end), bad ones (an unknown function type, an end before its
	 * start, a truncated tail: damage), and tasks of streams the capture
	 * has no record of (other processes'), left out */
	uint64_t stars_records, stars_tasks, stars_unpaired, stars_bad, stars_other;
	/* --pytorch: torch_npu's analysis.db beside the PyTorch database (""
	 * when not written: a Level_none profile) */
	char analysis_path[4352];
};

/* Returns 0 or -errno with a message in err. */
int npuprof_export(const char *dir, const struct npuprof_export_opts *o,
		   struct npuprof_export_result *res, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
