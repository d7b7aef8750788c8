/*
 * dbgen.h - synthetic msprof data for benchmarks and checks
 * (`npuprof dbgen --tasks N -o FILE`).
 *
 * Generates N device tasks with the host API rows that launched them, their
 * COMPUTE_TASK_INFO rows, a share of HCCL collectives (COMMUNICATION_OP plus
 * COMMUNICATION_TASK_INFO per small task), memcpy tasks with MEMCPY_INFO, and
 * MarkEx markers (MSTX_EVENTS plus a MsTx device task), all obeying the join
 * rules of docs/ascend-reference.md 5.1-5.6. Rows stream into a sink one at a
 * time, so memory does not grow with N (only the string vocabulary does).
 */
#ifndef NPUPROF_DBGEN_H
#define NPUPROF_DBGEN_H

#include <stddef.h>
#include <stdint.h>

#include <npuprof/db.h>

struct npuprof_dbgen_params {
	uint64_t tasks; /* TASK rows to generate */
	uint32_t pid; /* 0: 4242 */
	int64_t start_ns; /* first timestamp; 0: 1736414119518476000 */
	unsigned hccl_every; /* one collective per this many tasks; 0: 50 */
	unsigned hccl_tasks; /* small tasks per collective; 0: 8 */
	unsigned memcpy_every; /* one memcpy per this many tasks; 0: 20 */
	unsigned mstx_every; /* one MarkEx per this many tasks; 0: 1000 */
};

/*
 * Where rows go. intern returns a STRING_IDS id (or a negative errno); row
 * receives one struct npuprof_db_<table> of row_size bytes. The generator
 * interns each distinct string exactly once and reuses the id.
 */
struct npuprof_dbgen_sink {
	void *ctx;
	npuprof_db_str (*intern)(void *ctx, const char *s);
	int (*row)(void *ctx, enum npuprof_db_table t, const void *row, size_t row_size);
};

/* Generate into sink; returns 0 or the first negative value a sink returned. */
int npuprof_dbgen_run(const struct npuprof_dbgen_params *p, const struct npuprof_dbgen_sink *sink);

/* Generate into an open writer (the exporter's path). */
int npuprof_dbgen_to_db(struct npuprof_db *w, const struct npuprof_dbgen_params *p);

#endif /* NPUPROF_DBGEN_H */
