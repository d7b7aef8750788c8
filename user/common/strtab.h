/*
 * strtab.h - the string interner behind STRING_IDS.
 *
 * Maps byte strings to dense ids 0, 1, 2, ... in first-use order with one
 * hash lookup per call. Memory is proportional to the number of distinct
 * strings (their bytes plus about 24 bytes each), never to the number of
 * lookups, so an export of any length costs only its vocabulary.
 */
#ifndef NPUPROF_STRTAB_H
#define NPUPROF_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct npuprof_strtab;

struct npuprof_strtab *npuprof_strtab_new(void);
void npuprof_strtab_free(struct npuprof_strtab *st);

/*
 * The id of the len bytes at s, adding them if new. Returns the id (>= 0),
 * -ENOMEM, or -ENOSPC once max_ids distinct strings exist.
 */
int64_t npuprof_strtab_intern(struct npuprof_strtab *st, const char *s, size_t len);

/* Limit on the number of distinct strings (default 1 << 28, see strtab.c). */
void npuprof_strtab_set_limit(struct npuprof_strtab *st, uint32_t max_ids);

/* Number of distinct strings; ids are 0 .. count-1. */
uint32_t npuprof_strtab_count(const struct npuprof_strtab *st);

/* The bytes of id (NUL-terminated copy) and their length; NULL if unknown. */
const char *npuprof_strtab_get(const struct npuprof_strtab *st, uint32_t id, size_t *len);

/* Bytes of heap held by the table (for tests and benchmarks). */
size_t npuprof_strtab_memory(const struct npuprof_strtab *st);

#endif /* NPUPROF_STRTAB_H */
