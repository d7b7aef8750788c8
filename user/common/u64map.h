/*
 * u64map.h — an open-addressing hash map from non-zero-free uint64 keys to
 * uint64 values, for the exporter's indexes (tasks in flight, streams,
 * string ids). Linear probing with backward-shift deletion, so there are no
 * tombstones and memory tracks the live entries.
 */
#ifndef NPUPROF_U64MAP_H
#define NPUPROF_U64MAP_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *keys;
	uint64_t *vals;
	uint8_t *used;
	size_t cap; /* power of two */
	size_t len;
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

/* Insert or replace in one probe: returns 0 if inserted, 1 if it replaced a
 * value (then *old holds it), or -ENOMEM. */
static inline int u64map_swap(struct u64map *m, uint64_t key, uint64_t val, uint64_t *old)
{
	size_t i;

	if ((m->len + 1) * 4 > m->cap * 3 && u64map_grow(m) < 0)
		return -ENOMEM;
	for (i = u64map_slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->used[i]) {
			m->used[i] = 1;
			m->keys[i] = key;
			m->vals[i] = val;
			m->len++;
			return 0;
		}
		if (m->keys[i] == key) {
			if (old)
				*old = m->vals[i];
			m->vals[i] = val;
			return 1;
		}
	}
}

/* Returns 1 and sets *val if present. */
int u64map_get(const struct u64map *m, uint64_t key, uint64_t *val);

#endif
