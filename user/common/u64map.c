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
	free(m->ent);
	memset(m, 0, sizeof(*m));
}

int u64map_grow(struct u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct u64map_ent *n = malloc(cap * sizeof(*n));

	if (!n)
		return -ENOMEM;
	memset(n, 0xff, cap * sizeof(*n)); /* every key U64MAP_FREE */
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (m->ent[i].key == U64MAP_FREE)
			continue;
		for (j = u64map_slot(m->ent[i].key, cap); n[j].key != U64MAP_FREE;
		     j = (j + 1) & (cap - 1))
			;
		n[j] = m->ent[i];
	}
	free(m->ent);
	m->ent = n;
	m->cap = cap;
	return 0;
}

int u64map_swap_free_key(struct u64map *m, uint64_t val, uint64_t *old)
{
	if (m->has_free_key) {
		if (old)
			*old = m->free_key_val;
		m->free_key_val = val;
		return 1;
	}
	m->has_free_key = 1;
	m->free_key_val = val;
	m->len++;
	return 0;
}

int u64map_put(struct u64map *m, uint64_t key, uint64_t val)
{
	int r = u64map_swap(m, key, val, NULL);

	return r < 0 ? r : 0;
}

int u64map_get(const struct u64map *m, uint64_t key, uint64_t *val)
{
	if (key == U64MAP_FREE) {
		if (m->has_free_key && val)
			*val = m->free_key_val;
		return m->has_free_key;
	}
	if (!m->cap)
		return 0;
	for (size_t i = u64map_slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		const struct u64map_ent *e = &m->ent[i];

		if (e->key == key) {
			if (val)
				*val = e->val;
			return 1;
		}
		if (e->key == U64MAP_FREE)
			return 0;
	}
}

int u64map_del(struct u64map *m, uint64_t key)
{
	size_t i, j;

	if (key == U64MAP_FREE) {
		if (!m->has_free_key)
			return 0;
		m->has_free_key = 0;
		m->len--;
		return 1;
	}
	if (!m->cap)
		return 0;
	for (i = u64map_slot(key, m->cap); m->ent[i].key != key; i = (i + 1) & (m->cap - 1))
		if (m->ent[i].key == U64MAP_FREE)
			return 0;
	/* backward-shift: pull later members of the cluster into the hole */
	for (j = (i + 1) & (m->cap - 1); m->ent[j].key != U64MAP_FREE; j = (j + 1) & (m->cap - 1)) {
		size_t home = u64map_slot(m->ent[j].key, m->cap);

		if (((j - home) & (m->cap - 1)) >= ((j - i) & (m->cap - 1))) {
			m->ent[i] = m->ent[j];
			i = j;
		}
	}
	m->ent[i].key = U64MAP_FREE;
	m->len--;
	return 1;
}

int u64map_next(const struct u64map *m, size_t *pos, uint64_t *key, uint64_t *val)
{
	for (; *pos < m->cap; (*pos)++)
		if (m->ent[*pos].key != U64MAP_FREE) {
			*key = m->ent[*pos].key;
			if (val)
				*val = m->ent[*pos].val;
			(*pos)++;
			return 1;
		}
	if (*pos == m->cap && m->has_free_key) {
		*key = U64MAP_FREE;
		if (val)
			*val = m->free_key_val;
		(*pos)++;
		return 1;
	}
	return 0;
}
