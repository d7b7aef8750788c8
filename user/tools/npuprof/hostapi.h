/*
 * hostapi.h - how `npuprof record` gets the host data of a program it runs:
 * which libprofapi.so the program will load, and whether npuprof's
 * recorder is in it (native) or must be attached to CANN's
 * (libnpuprof_attach.so, user/recorder/attach.c).
 */
#ifndef NPUPROF_TOOL_HOSTAPI_H
#define NPUPROF_TOOL_HOSTAPI_H

#include <stddef.h>

enum hostapi_mode {
	HOSTAPI_AUTO,
	HOSTAPI_NATIVE,
	HOSTAPI_ATTACH
};

/* "auto", "native" or "attach" into *m; -1 for anything else. */
int hostapi_parse(const char *s, enum hostapi_mode *m);

/* Resolves `want` for the program about to run (auto: attach when the
 * libprofapi.so found on the library path, as the dynamic loader searches
 * it from this environment, is not npuprof's; native otherwise), and sets
 * *preload to "LD_PRELOAD=..." with libnpuprof_attach.so (beside this tool,
 * ../lib) in front of any LD_PRELOAD already set, or to "" for native.
 * Writes the one-line account of the choice into `said`. Returns the mode,
 * or -1 with the reason in `said` (attach asked for, or chosen, and the
 * attach library is missing). */
int hostapi_resolve(enum hostapi_mode want, char *preload, size_t preload_len, char *said,
		    size_t said_len);

#endif /* NPUPROF_TOOL_HOSTAPI_H */
