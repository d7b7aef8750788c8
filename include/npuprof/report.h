/*
 * report.h - a text summary of an msprof database (`npuprof report`).
 *
 * Reads any unified msprof database: ours, a real `msprof --type=db` file, or
 * the torch_npu variant (ascend_pytorch_profiler*.db). It tolerates absent
 * tables (the producer creates data tables only when they have rows) and both
 * COMPUTE_TASK_INFO column sets (blockDim of 1.1.1, blockNum of 1.2.0), and
 * opens the file read-only, so a report never modifies what it reads.
 *
 * Sections: a header (schema, variant, host, devices, session span), warnings
 * from the npuprof.* META_DATA rows our exporter writes, top operators by
 * device time, task types, device and stream busy shares, launch latency
 * percentiles, collective operations, msproftx ranges.
 *
 * Every duration is printed in microseconds with three decimals, i.e. exact
 * nanoseconds, the unit msprof's own text exports use.
 */
#ifndef NPUPROF_REPORT_H
#define NPUPROF_REPORT_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct npuprof_report_options {
	/* Operators listed in "top operators"; 0: 20. */
	unsigned top;
};

/*
 * Resolve path to one database file. A regular file is taken as it is. In a
 * directory, the directory itself and its sub-directories one and two levels
 * down are searched for `msprof_<14 digits>.db` and then for
 * `ascend_pytorch_profiler*.db`; the shallowest level with a match wins, an
 * msprof database before a PyTorch one, and among equals the
 * lexicographically last path (the newest export). *others receives the
 * number of further candidates (may be NULL).
 *
 * Returns 0 with the path in out, or a negative errno with a message in err:
 * -ENOENT (path missing, or no database in the directory), -ENAMETOOLONG.
 */
int npuprof_report_find_db(const char *path, char *out, size_t outlen, unsigned *others, char *err,
			   size_t errlen);

/*
 * Write the report of path (a database file or a directory, resolved as
 * above) to out. opt may be NULL. Returns 0, or a negative errno with a
 * message naming the file in err: -ENOENT (missing), -EINVAL (not an SQLite
 * database, or one without msprof tables), -EIO (a query failed), -ENOMEM.
 * On failure part of the report may already have been written.
 */
int npuprof_report_write(FILE *out, const char *path, const struct npuprof_report_options *opt,
			 char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* NPUPROF_REPORT_H */
