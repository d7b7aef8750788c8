/*
 * u64map.h — an open-addressing hash map from non-zero-free uint64 keys to
 * uint64 values, for the exporter's indexes (tasks in flight, streams,
 * string ids). Linear probing with backward-shift deletion, so there are no
 * tombstones and memory tracks the live entries.
 */
#ifndef NPUPROF_U64MAP_H
#define NPUPROF_U64MAP_H

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
/* Returns 1 and sets *val if present. */
int u64map_get(const struct u64map *m, uint64_t key, uint64_t *val);
/* Returns 1 if it was present. */
int u64map_del(struct u64map *m, uint64_t key);

#endif
