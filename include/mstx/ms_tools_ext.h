/*
 * mstx/ms_tools_ext.h - the MindStudio Tools Extension (mstx) marker API, as
 * CANN declares it: instant marks, ranges and domains, with an optional
 * stream. Programs written against CANN's header build unchanged.
 *
 * The functions are in libmsprofiler.so (with the rest of the profiling
 * API, so a program linking libmsprofiler.so as CANN's samples do needs
 * nothing more) and in libms_tools_ext.so (lib64/, as CANN ships it; it
 * forwards to libmsprofiler.so). Unlike CANN's header-only variant nothing
 * is loaded with dlopen; linking -ldl, as the samples do, is harmless.
 *
 * Behaviour (npuprof):
 *  - A call records only while a collection with ACL_PROF_MSPROFTX runs
 *    (aclprofStart, or `npuprof record`); otherwise it does nothing and
 *    mstxRangeStartA / mstxDomainRangeStartA return MSTX_INVALID_ID (0).
 *  - With a stream, a mark launches one device marker task and a range two
 *    (at start and end, on the stream given at start), so the database's
 *    MSTX_EVENTS row joins its `MsTx` TASK row by connectionId and carries
 *    device times. Without a stream (NULL) the event is host only: its
 *    MSTX_EVENTS.connectionId is 4294967295.
 *  - A range may end on another thread; it is attributed to the thread
 *    that started it. A range that never ends is not written (as CANN).
 *  - Messages: NULL or "" records nothing; text beyond 4095 bytes is cut.
 *  - Domains: mstxDomainCreateA returns one handle per name (a second call
 *    with the same live name returns the same handle); names are 1 to 1023
 *    bytes. Events of the default domain are written with domain `default`.
 *    A destroyed or foreign handle records nothing.
 *  - Per-thread and lock-free on the host-only path; a call costs about
 *    one clock read (see tests/bench/bench_mstx.c).
 *  - Not provided: the memory-heap API of ms_tools_ext_mem.h and domain
 *    include/exclude filtering.
 */
#ifndef INC_EXTERNAL_MS_TOOLS_EXT_H_
#define INC_EXTERNAL_MS_TOOLS_EXT_H_

#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MSTX_SUCCESS 0
#define MSTX_FAIL 1
#define MSTX_INVALID_ID 0

typedef uint64_t mstxRangeId;

struct mstxDomainRegistration_st;
typedef struct mstxDomainRegistration_st mstxDomainRegistration_t;
typedef mstxDomainRegistration_t *mstxDomainHandle_t;

ACL_FUNC_VISIBILITY void mstxMarkA(const char *message, aclrtStream stream);
ACL_FUNC_VISIBILITY mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream);
ACL_FUNC_VISIBILITY void mstxRangeEnd(mstxRangeId id);

ACL_FUNC_VISIBILITY mstxDomainHandle_t mstxDomainCreateA(const char *name);
ACL_FUNC_VISIBILITY void mstxDomainDestroy(mstxDomainHandle_t domain);
ACL_FUNC_VISIBILITY void mstxDomainMarkA(mstxDomainHandle_t domain, const char *message,
					 aclrtStream stream);
ACL_FUNC_VISIBILITY mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain,
						      const char *message, aclrtStream stream);
ACL_FUNC_VISIBILITY void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_MS_TOOLS_EXT_H_ */
