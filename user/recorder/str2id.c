/*
 * str2id.c - aclprofStr2Id: CANN's 64-bit string hash, and the dictionary
 * that lets the export turn ids back into strings.
 *
 * The hash must equal CANN's (HashData::GenHashId) bit for bit, because ids
 * travel inside records that CANN-era tools also read (aclprofTensorInfo
 * opNameId/opTypeId, mstx domains). Bytes enter the hash as C `char`
 * converted to uint32_t, so bytes >= 0x80 are sign-extended where char is
 * signed (x86-64) and not where it is unsigned (AArch64) - exactly like
 * CANN's build on the same architecture.
 *
 * Every distinct string is remembered (id -> string) and written to the
 * stream as a HASH record: once when it is first seen during a collection,
 * and all of them when a collection starts.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_prof.h"
#include "aclprof_internal.h"
#include "hostrec_internal.h"
#include "hostrec.h"

uint64_t npuprof_str2id_hash(const char *s, size_t len)
{
	uint32_t h29 = 0, h131 = 0;

	if (len == 0)
		return UINT64_MAX;
	for (size_t i = 0; i < len; i++) {
		uint32_t c = (uint32_t)s[i]; /* char -> uint32_t, as CANN converts */

		h29 = h29 * 29u + c;
		h131 = h131 * 131u + c;
	}
	return ((uint64_t)h29 << 32) | h131;
}

/* Open addressing on the id (already a good hash); grows at 50 % load. */
struct entry {
	uint64_t id;
	char *str; /* NULL: empty slot */
	uint32_t len;
};

static pthread_mutex_t g_dict_lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *g_tab;
static size_t g_cap, g_count;

static struct entry *slot_for(struct entry *tab, size_t cap, uint64_t id)
{
	size_t i = (size_t)(id ^ (id >> 29)) & (cap - 1);

	while (tab[i].str && tab[i].id != id)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static int table_grow(void)
{
	size_t ncap = g_cap ? g_cap * 2 : 256;
	struct entry *nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -1;
	for (size_t i = 0; i < g_cap; i++)
		if (g_tab[i].str)
			*slot_for(nt, ncap, g_tab[i].id) = g_tab[i];
	free(g_tab);
	g_tab = nt;
	g_cap = ncap;
	return 0;
}

static size_t hash_rec_size(uint32_t len)
{
	return npuprof_hostfmt_size(offsetof(struct npuprof_hostfmt_hash, str), (size_t)len + 1);
}

static void fill_hash_rec(struct npuprof_hostfmt_hash *r, uint64_t id, const char *s, uint32_t len)
{
	memset(r, 0, hash_rec_size(len));
	r->h.size = (uint32_t)hash_rec_size(len);
	r->h.kind = NPUPROF_HOSTFMT_HASH;
	r->id = id;
	r->len = len;
	memcpy(r->str, s, len);
}

/* Remembers (id, s); returns 1 if it is new, 0 if the dictionary already
 * holds s under id, -1 if it holds another string under id or s could not
 * be remembered. A different string with the same id keeps the first
 * string (CANN only logs such a collision). */
static int remember(uint64_t id, const char *s, size_t len)
{
	struct entry *e;
	char *copy;

	if (len > UINT32_MAX - 64)
		return -1;
	pthread_mutex_lock(&g_dict_lock);
	if ((g_count + 1) * 2 > g_cap && table_grow()) {
		pthread_mutex_unlock(&g_dict_lock);
		return -1;
	}
	e = slot_for(g_tab, g_cap, id);
	if (e->str) {
		int same = e->len == len && !memcmp(e->str, s, len);

		pthread_mutex_unlock(&g_dict_lock);
		return same ? 0 : -1;
	}
	copy = malloc(len + 1);
	if (!copy) {
		pthread_mutex_unlock(&g_dict_lock);
		return -1;
	}
	memcpy(copy, s, len);
	copy[len] = '\0';
	e->id = id;
	e->str = copy;
	e->len = (uint32_t)len;
	g_count++;
	pthread_mutex_unlock(&g_dict_lock);
	return 1;
}

/* Remembers s (len bytes) under *id; 1 if s is new (and, while a
 * collection runs, its HASH record was written), 0 if the dictionary held
 * exactly s under *id already, -1 otherwise. */
static int intern(const char *s, size_t len, uint64_t *id)
{
	int r;

	*id = npuprof_str2id_hash(s, len);
	if (*id == UINT64_MAX)
		return 0;
	r = remember(*id, s, len);
	if (r == 1 && npuprof_hostrec_active()) {
		size_t sz = hash_rec_size((uint32_t)len);
		struct npuprof_hostfmt_hash *rec = malloc(sz);
		int w;

		if (!rec)
			return -1;
		fill_hash_rec(rec, *id, s, (uint32_t)len);
		w = npuprof_hostrec_emit(rec, sz);
		free(rec);
		/* not running any more: the next start writes the dictionary */
		if (w < 0 && w != -ENOTCONN)
			return -1;
	}
	return r;
}

uint64_t aclprofStr2Id(const char *message)
{
	uint64_t id;

	if (!message)
		return UINT64_MAX;
	intern(message, strlen(message), &id);
	return id;
}

int npuprof_str2id_intern(const char *s, size_t len, uint64_t *id)
{
	return intern(s, len, id);
}

const char *npuprof_str2id_lookup(uint64_t id)
{
	const char *s = NULL;

	pthread_mutex_lock(&g_dict_lock);
	if (g_cap) {
		struct entry *e = slot_for(g_tab, g_cap, id);

		s = e->str; /* strings are never freed but by npuprof_str2id_reset */
	}
	pthread_mutex_unlock(&g_dict_lock);
	return s;
}

void npuprof_str2id_reset(void)
{
	pthread_mutex_lock(&g_dict_lock);
	for (size_t i = 0; i < g_cap; i++)
		free(g_tab[i].str);
	free(g_tab);
	g_tab = NULL;
	g_cap = g_count = 0;
	pthread_mutex_unlock(&g_dict_lock);
}

/* The dictionary goes with the library (dlclose, as HCCL does with
 * libprofapi.so, or exit). Priority 101 runs it after the library's atexit
 * handlers, which may still write the dictionary of a running collection. */
__attribute__((destructor(101))) static void str2id_unload(void)
{
	npuprof_str2id_reset();
}

void npuprof_str2id_emit_all(void)
{
	size_t total = 0, off = 0;
	uint8_t *buf;

	pthread_mutex_lock(&g_dict_lock);
	for (size_t i = 0; i < g_cap; i++)
		if (g_tab[i].str)
			total += hash_rec_size(g_tab[i].len);
	buf = total ? malloc(total) : NULL;
	if (buf)
		for (size_t i = 0; i < g_cap; i++)
			if (g_tab[i].str) {
				fill_hash_rec((struct npuprof_hostfmt_hash *)(buf + off),
					      g_tab[i].id, g_tab[i].str, g_tab[i].len);
				off += hash_rec_size(g_tab[i].len);
			}
	pthread_mutex_unlock(&g_dict_lock);
	if (buf) {
		npuprof_hostrec_emit(buf, total);
		free(buf);
	}
}
