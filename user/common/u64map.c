/*
 * u64map.c — see u64map.h.
 */
#include "u64map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void u64map_init(struct u64map *m)
{
	memset(m, 0, sizeof(*m));
}

void u64map_free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

int u64map_grow(struct u64map *m)
{
	struct u64map n;
	size_t cap = m->cap ? m->cap * 2 : 64;

	n.cap = cap;
	n.len = 0;
	n.keys = malloc(cap * sizeof(*n.keys));
	n.vals = malloc(cap * sizeof(*n.vals));
	n.used = calloc(cap, 1);
	if (!n.keys || !n.vals || !n.used) {
		free(n.keys);
		free(n.vals);
		free(n.used);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->used[i])
			u64map_put(&n, m->keys[i], m->vals[i]);
	u64map_free(m);
	*m = n;
	return 0;
}

int u64map_put(struct u64map *m, uint64_t key, uint64_t val)
{
	int r = u64map_swap(m, key, val, NULL);

	return r < 0 ? r : 0;
}

int u64map_get(const struct u64map *m, uint64_t key, uint64_t *val)
{
	if (!m->cap)
		return 0;
	for (size_t i = u64map_slot(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			if (val)
				*val = m->vals[i];
			return 1;
		}
	}
	return 0;
}

int u64map_del(struct u64map *m, uint64_t key)
{
	size_t i, j;

	if (!m->cap)
		return 0;
	for (i = u64map_slot(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			break;
	if (!m->used[i])
		return 0;
	/* backward-shift: pull later members of the cluster into the hole */
	for (j = (i + 1) & (m->cap - 1); m->used[j]; j = (j + 1) & (m->cap - 1)) {
		size_t home = u64map_slot(m->keys[j], m->cap);

		if (((j - home) & (m->cap - 1)) >= ((j - i) & (m->cap - 1))) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->used[i] = 0;
	m->len--;
	return 1;
}
