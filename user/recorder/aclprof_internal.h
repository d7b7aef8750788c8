/*
 * aclprof_internal.h - functions shared by the aclprof* implementation files
 * (aclprof.c, str2id.c, mstx.c) and nothing else.
 */
#ifndef NPUPROF_ACLPROF_INTERNAL_H
#define NPUPROF_ACLPROF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Writes the whole Str2Id dictionary (one HASH record per string) to the
 * running stream; called when a collection starts. */
void npuprof_str2id_emit_all(void);
/* Forgets every remembered string (npuprof_aclprof_reset). */
void npuprof_str2id_reset(void);
/* aclprofStr2Id of s (len bytes, no NUL needed) into *id; 1 if s is new,
 * 0 if the dictionary held it already: either way it holds exactly s under
 * *id (so a record may name s by *id: its HASH record is in the running
 * stream, or in the next one's dictionary); -1 if not (another string has
 * the same id, or no memory, or the HASH record could not be written). The
 * empty string (returns 0) is NPUPROF_HOSTFMT_NO_STRING. */
int npuprof_str2id_intern(const char *s, size_t len, uint64_t *id);
/* The string remembered under id, NUL-terminated, alive until
 * npuprof_str2id_reset; NULL if none (MsprofId2Str). */
const char *npuprof_str2id_lookup(uint64_t id);

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* mstx.c: 1 while a collection with ACL_PROF_MSPROFTX runs (the stamp calls
 * record; aclprof.c sets it). */
extern _Atomic int npuprof_g_tx_collecting;
/* MarkEx / mstx transaction ids: the last one handed out, and the reset
 * generation (mstx.c). */
extern _Atomic uint64_t npuprof_g_mark_id;
extern _Atomic uint32_t npuprof_g_mark_gen;

/* mstx.c: forgets every domain and open stream range (npuprof_aclprof_reset). */
void npuprof_mstx_reset(void);

/* Set before the library's constructors run the environment's collection:
 * then they do not (attach.c, when libnpuprof_attach.so finds nothing to
 * attach to and the process's own libprofapi.so records, if any). */
extern int npuprof_g_env_session_off;

/*
 * Back to the state of a freshly loaded library, for white-box tests that
 * run many cases in one process (CK_FORK=no, the sanitizer build): stops a
 * running collection, drops the API or environment session, the options of
 * aclprofSetConfig, every config and step-info handle (freed), the counters
 * behind step and mark ids, the stamp pool, the Str2Id dictionary and the
 * registered runtime hooks. Never called by the library itself: a handle an
 * application still held would dangle.
 */
void npuprof_aclprof_reset(void);

#endif
