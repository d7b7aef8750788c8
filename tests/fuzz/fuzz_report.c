/*
 * fuzz_report.c - `npuprof report` on a mutated database: any file must be
 * refused with a message or summarised, without memory errors or undefined
 * behaviour (damaged timestamps, NULLs and wrong types in every column).
 */
#include "fuzz_util.h"
#include "npuprof/report.h"

static FILE *g_null;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[128], err[4096];
	int r;

	if (!g_null)
		g_null = fopen("/dev/null", "w");
	snprintf(path, sizeof(path), "%s/msprof_20260101000000.db", fuzz_scratch());
	fuzz_write(path, data, size);
	r = npuprof_report_write(g_null, path, NULL, err, sizeof(err));
	if (r < 0 && !err[0])
		abort();
	return 0;
}
