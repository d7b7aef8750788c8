/*
 * rthooks_internal.h - library-internal access to the runtime hooks.
 */
#ifndef NPUPROF_RTHOOKS_INTERNAL_H
#define NPUPROF_RTHOOKS_INTERNAL_H

#include "rthooks.h"

/* Copies the registered hooks into *out; returns 1 if a runtime is
 * registered, 0 if not (then *out is all NULL). */
int npuprof_rthooks_get(struct npuprof_runtime_hooks *out);

#endif
