/*
 * strtab.c - the string interner behind STRING_IDS (see strtab.h).
 *
 * Layout: the bytes of each distinct string live in an append-only arena of
 * large blocks (stable pointers, no per-string malloc); an entry array holds
 * (pointer, length, hash) by id; an open-addressing table of uint32 slots
 * (id + 1, 0 = empty, linear probing, load <= 1/2) finds an id from a hash.
 * Lookup and insertion share one probe sequence, so interning a string costs
 * one hash computation and one probe walk whether it is new or not.
 */
#include "strtab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * torch_npu numbers its own strings from 1 << 28, so a CANN-side producer
 * keeps its ids below that (docs/ascend-reference.md 1.3).
 */
#define STRTAB_DEFAULT_LIMIT (1u << 28)
#define ARENA_BLOCK (64u * 1024u)

struct entry {
	const char *s;
	uint64_t hash;
	uint32_t len;
};

struct block {
	struct block *next;
	size_t used, size;
	char data[];
};

struct npuprof_strtab {
	struct entry *ent;
	uint32_t count, cap_ent, limit;
	uint32_t *slot;
	uint32_t mask; /* slot count - 1 */
	struct block *arena;
	size_t arena_bytes;
};

/* 64-bit hash: 8 bytes per multiply, then a murmur3 finaliser. */
static uint64_t hash_bytes(const char *s, size_t len)
{
	const uint64_t k = 0x9e3779b97f4a7c15ull;
	uint64_t h = len * k;
	uint64_t w;

	while (len >= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * k;
		h ^= h >> 29;
		s += 8;
		len -= 8;
	}
	w = 0;
	memcpy(&w, s, len);
	h = (h ^ w) * k;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

struct npuprof_strtab *npuprof_strtab_new(void)
{
	struct npuprof_strtab *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->limit = STRTAB_DEFAULT_LIMIT;
	st->mask = 255;
	st->slot = calloc(st->mask + 1, sizeof(*st->slot));
	if (!st->slot) {
		free(st);
		return NULL;
	}
	return st;
}

void npuprof_strtab_free(struct npuprof_strtab *st)
{
	if (!st)
		return;
	for (struct block *b = st->arena, *n; b; b = n) {
		n = b->next;
		free(b);
	}
	free(st->ent);
	free(st->slot);
	free(st);
}

void npuprof_strtab_set_limit(struct npuprof_strtab *st, uint32_t max_ids)
{
	st->limit = max_ids;
}

uint32_t npuprof_strtab_count(const struct npuprof_strtab *st)
{
	return st->count;
}

const char *npuprof_strtab_get(const struct npuprof_strtab *st, uint32_t id, size_t *len)
{
	if (id >= st->count)
		return NULL;
	if (len)
		*len = st->ent[id].len;
	return st->ent[id].s;
}

size_t npuprof_strtab_memory(const struct npuprof_strtab *st)
{
	return sizeof(*st) + (size_t)st->cap_ent * sizeof(*st->ent) +
	       ((size_t)st->mask + 1) * sizeof(*st->slot) + st->arena_bytes;
}

/* Copy len bytes plus a NUL into the arena. */
static const char *arena_copy(struct npuprof_strtab *st, const char *s, size_t len)
{
	struct block *b = st->arena;
	char *p;

	if (!b || b->size - b->used < len + 1) {
		size_t size = len + 1 > ARENA_BLOCK ? len + 1 : ARENA_BLOCK;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->size = size;
		b->used = 0;
		/* A block made for one huge string goes behind the current one so
		 * the current block's free space is not abandoned. */
		if (st->arena && size > ARENA_BLOCK) {
			b->next = st->arena->next;
			st->arena->next = b;
		} else {
			b->next = st->arena;
			st->arena = b;
		}
		st->arena_bytes += sizeof(*b) + size;
	}
	p = b->data + b->used;
	memcpy(p, s, len);
	p[len] = '\0';
	b->used += len + 1;
	return p;
}

static int grow_slots(struct npuprof_strtab *st)
{
	uint32_t nmask = st->mask * 2 + 1;
	uint32_t *ns = calloc((size_t)nmask + 1, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (uint32_t id = 0; id < st->count; id++) {
		uint32_t i = (uint32_t)st->ent[id].hash & nmask;

		while (ns[i])
			i = (i + 1) & nmask;
		ns[i] = id + 1;
	}
	free(st->slot);
	st->slot = ns;
	st->mask = nmask;
	return 0;
}

int64_t npuprof_strtab_intern(struct npuprof_strtab *st, const char *s, size_t len)
{
	uint64_t h;
	uint32_t i, id;
	const char *copy;

	if (len > UINT32_MAX)
		return -E2BIG;
	h = hash_bytes(s, len);
	for (i = (uint32_t)h & st->mask; st->slot[i]; i = (i + 1) & st->mask) {
		const struct entry *e = &st->ent[st->slot[i] - 1];

		if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0)
			return st->slot[i] - 1;
	}

	/* New string: i is the empty slot that ends its probe sequence. */
	if (st->count >= st->limit)
		return -ENOSPC;
	if ((uint64_t)(st->count + 1) * 2 > (uint64_t)st->mask + 1) {
		/* Keep the load at most 1/2 so probe walks stay short and an
		 * empty slot always exists; the slot found above moves. */
		if (grow_slots(st) < 0)
			return -ENOMEM;
		for (i = (uint32_t)h & st->mask; st->slot[i]; i = (i + 1) & st->mask)
			;
	}
	if (st->count == st->cap_ent) {
		uint32_t ncap = st->cap_ent ? st->cap_ent * 2 : 256;
		struct entry *ne = realloc(st->ent, (size_t)ncap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		st->ent = ne;
		st->cap_ent = ncap;
	}
	copy = arena_copy(st, s, len);
	if (!copy)
		return -ENOMEM;
	id = st->count++;
	st->ent[id] = (struct entry){ copy, h, (uint32_t)len };
	st->slot[i] = id + 1;
	return id;
}
