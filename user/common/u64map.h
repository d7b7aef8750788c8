/*
 * u64map.h — an open-addressing hash map from uint64 keys (any value) to
 * uint64 values, for the exporter's indexes (tasks in flight, streams,
 * string ids). Linear probing with backward-shift deletion, so there are no
 * tombstones and memory tracks the live entries.
 */
#ifndef NPUPROF_U64MAP_H
#define NPUPROF_U64MAP_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/* A slot's key when the slot is free. The key itself is stored out of the
 * table (has_free_key), so every uint64 is a valid key. */
#define U64MAP_FREE UINT64_MAX

/* One slot: key and value together, so a lookup touches one cache line. */
struct u64map_ent {
	uint64_t key;
	uint64_t val;
};

struct u64map {
	struct u64map_ent *ent; /* [cap]; key U64MAP_FREE: free */
	size_t cap; /* power of two */
	size_t len; /* entries, the out-of-table one included */
	int has_free_key; /* U64MAP_FREE is a key, with value free_key_val */
	uint64_t free_key_val;
};

void u64map_init(struct u64map *m);
void u64map_free(struct u64map *m);
/* Insert or replace; returns 0 or -ENOMEM. */
int u64map_put(struct u64map *m, uint64_t key, uint64_t val);
/* Returns 1 if it was present. */
int u64map_del(struct u64map *m, uint64_t key);

/* Insertion is inline: the correlator makes one per task. */
static inline size_t u64map_slot(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

/* Doubles the table (the inline insert's rare path); 0 or -ENOMEM. */
int u64map_grow(struct u64map *m);
/* u64map_swap of the key U64MAP_FREE (out of line: it is rare). */
int u64map_swap_free_key(struct u64map *m, uint64_t val, uint64_t *old);

/* Insert or replace in one probe: returns 0 if inserted, 1 if it replaced a
 * value (then *old holds it), or -ENOMEM. */
static inline int u64map_swap(struct u64map *m, uint64_t key, uint64_t val, uint64_t *old)
{
	size_t i;

	if (key == U64MAP_FREE)
		return u64map_swap_free_key(m, val, old);
	if ((m->len + 1) * 4 > m->cap * 3 && u64map_grow(m) < 0)
		return -ENOMEM;
	for (i = u64map_slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		struct u64map_ent *e = &m->ent[i];

		if (e->key == U64MAP_FREE) {
			e->key = key;
			e->val = val;
			m->len++;
			return 0;
		}
		if (e->key == key) {
			if (old)
				*old = e->val;
			e->val = val;
			return 1;
		}
	}
}

/* The entries in no particular order: start with *pos = 0; each call sets
 * *key and *val (val may be NULL) and returns 1, or returns 0 at the end.
 * The map must not change meanwhile. */
int u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val);

/* Returns 1 and sets *val if present. */
int u64map_get(const struct u64map *m, uint64_t key, uint64_t *val);

#endif
