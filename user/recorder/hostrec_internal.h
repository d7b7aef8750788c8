/*
 * hostrec_internal.h - recorder functions shared inside the recorder but
 * not part of its API (aclprof.c and str2id.c use them).
 */
#ifndef NPUPROF_HOSTREC_INTERNAL_H
#define NPUPROF_HOSTREC_INTERNAL_H

#include <stddef.h>
#include <sys/types.h>

#include "fsutil.h"
#include "hostrec.h"

/* Writes `len` bytes of complete records straight to the running stream as
 * one block (tid 0), bypassing the rings. For rare, possibly large records
 * (the hash dictionary, options) that must not be dropped. Returns 0, or
 * -ENOTCONN if no collection runs, or a negative errno. */
int npuprof_hostrec_emit(const void *records, size_t len);

/* Registers a function that the recorder calls, with the stream open and
 * before any producer record, at every start (used to write the hash
 * dictionary and options). One callback; later calls replace it. */
void npuprof_hostrec_set_start_hook(void (*fn)(void));

/* Writes the process's rank records (rank.c) to the running stream. */
void npuprof_rank_emit_all(void);

#endif
