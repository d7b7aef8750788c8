/*
 * analysis.h - torch_npu's analysis.db from a finished PyTorch database
 * (README.md "analysis.db (issue 29)"; the facts: docs/ascend-reference.md
 * 2.4).
 */
#ifndef NPUPROF_EXPORT_ANALYSIS_H
#define NPUPROF_EXPORT_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct analysis_result {
	char path[4352]; /* the analysis.db written ("" when none) */
	uint64_t time_rows, bandwidth_rows, matrix_rows, step_rows;
	uint64_t ops_no_master; /* ops left out: no main-stream (isMaster) task */
	uint64_t ops_no_step; /* ops left out: start in no step's range */
};

/*
 * Read the PyTorch database torch_db (ascend_pytorch_profiler[_<rank>].db)
 * and write <dir>/analysis.db as torch_npu does: StepTraceTime always,
 * CommAnalyzerTime/Bandwidth/Matrix when the database has HCCL small tasks
 * (COMMUNICATION_TASK_INFO rows). Nothing when the profile's level was
 * Level_none (META_DATA npuprof.experimental_config). Written to a
 * temporary and renamed over an earlier one. Returns 1 (written), 0 (not
 * applicable) or a negative errno with a message naming the file in err.
 */
int analysis_write(const char *torch_db, const char *dir, struct analysis_result *res, FILE *warn,
		   char *err, size_t errlen);

#endif /* NPUPROF_EXPORT_ANALYSIS_H */
