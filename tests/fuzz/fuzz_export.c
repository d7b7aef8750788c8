/*
 * fuzz_export.c - `npuprof export` of a whole session built from one input:
 * npuprof.session, the kernel raw stream and one host raw stream, separated
 * by FUZZ_SPLIT (a missing part is a missing file). The export must finish
 * without memory errors or undefined behaviour, leave no temporary behind,
 * and call any damage by name. Every fourth input also writes the trace JSON,
 * every other one the PyTorch database with the framework tables.
 */
#include "fuzz_util.h"
#include "npuprof/export.h"
#include "npuprof/session.h"

#include <dirent.h>

static FILE *g_null;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[256];

	(void)argc;
	(void)argv;
	g_null = fopen("/dev/null", "w");
	snprintf(path, sizeof(path), "%s/kernel", fuzz_scratch());
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/host", fuzz_scratch());
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/host/data", fuzz_scratch());
	mkdir(path, 0755);
	return 0;
}

/* Remove what the previous export wrote; abort on a leftover temporary. */
static void clean_outputs(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	if (!d)
		abort();
	while ((e = readdir(d))) {
		if (!strncmp(e->d_name, ".npuprof-tmp-", 13))
			abort();
		if (!strncmp(e->d_name, "msprof_", 7) || !strcmp(e->d_name, "npuprof_trace.json")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	}
	closedir(d);
}

static void put(const char *dir, const char *name, const uint8_t *data, size_t len, int n)
{
	const uint8_t *p;
	size_t plen;
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (fuzz_part(data, len, n, &p, &plen))
		fuzz_write(path, p, plen);
	else
		unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_scratch();
	struct npuprof_export_opts o;
	struct npuprof_export_result res;
	char err[2048];
	int r;

	put(dir, NPUPROF_SESSION_FILE, data, size, 0);
	put(dir, NPUPROF_KERNEL_RAW, data, size, 1);
	put(dir, "host/data/npuprof.host.100.raw", data, size, 2);
	memset(&o, 0, sizeof(o));
	o.warn = g_null;
	o.force = 1; /* each input on its own, not against the last one's db */
	o.json = size && (data[size - 1] & 3) == 0;
	o.pytorch = size && (data[size - 1] & 4) == 0; /* the framework tables too */
	r = npuprof_export(dir, &o, &res, err, sizeof(err));
	if (r < 0 && !err[0])
		abort(); /* a failure always says why */
	clean_outputs(dir);
	{
		char out[512];

		snprintf(out, sizeof(out), "%s/ASCEND_PROFILER_OUTPUT", dir);
		if (access(out, F_OK) == 0) {
			clean_outputs(out);
			snprintf(out, sizeof(out),
				 "%s/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler.db", dir);
			unlink(out);
		}
	}
	return 0;
}
