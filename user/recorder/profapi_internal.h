/*
 * profapi_internal.h - what the reporter ABI (user/recorder) offers the rest
 * of the in-app library (aclprof.c drives the control plane) and its white-box
 * tests. Not installed.
 */
#ifndef NPUPROF_PROFAPI_INTERNAL_H
#define NPUPROF_PROFAPI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#define PROF_FAILED (-1) /* CANN's PROFILING_FAILED */

/* A collection started (the recorder's stream is open): remember the
 * profSwitch that the aclprof switches imply (npuprof_profapi_switch) and
 * the devices it covers (n == 0: every device), reset the refused-report
 * counts and send INIT then START to every registered module for each
 * device announced by MsprofNotifySetDevice. */
void npuprof_profapi_collection_start(uint64_t acl_switches, const uint32_t *devs, uint32_t n);
/* The collection is about to stop (the stream still open): STOP for each
 * started device and one FINALIZE, in CANN's stop order, then the
 * refused-report counts (NPUPROF_HOSTFMT_MSPROF_BAD) into the stream. */
void npuprof_profapi_collection_stop(void);

/* Attach mode (attach.c): every command this library's control plane
 * hands its modules also goes to `cmd` (CANN's profSetProfCommand, which
 * hands it to the modules registered with CANN's libprofapi). NULL: none. */
typedef int32_t (*npuprof_profapi_command_fn)(void *command, uint32_t len);
void npuprof_profapi_set_upstream(npuprof_profapi_command_fn cmd);

/* The recorder's start hook: every registered type name into the new stream. */
void npuprof_profapi_emit_types(void);

/* The profSwitch of CANN's commands for ACL_PROF_* switches: the same bits
 * (AICORE_SHAPE, an internal request, removed), plus the runtime-trace bit
 * whenever task time (level 0) is on, as CANN adds it. */
uint64_t npuprof_profapi_switch(uint64_t acl_switches);

/* Reports refused so far in this collection (tests). */
struct npuprof_profapi_bad {
	uint64_t null_data, bad_magic, bad_length, unregistered, after_finalize, ring_full;
	uint64_t not_collecting; /* no collection ran (MSPROF_ERROR_UNINITIALIZE) */
	uint64_t forked; /* from a forked child (MSPROF_ERROR_UNINITIALIZE) */
};
void npuprof_profapi_get_bad(struct npuprof_profapi_bad *b);

/* Back to a freshly loaded library (tests, with npuprof_aclprof_reset):
 * forgets every registration, device and type name. */
void npuprof_profapi_reset(void);

#endif
