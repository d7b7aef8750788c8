/*
 * hostrec_testutil.h - helpers shared by the host recorder tests: temporary
 * directories, finding the stream a collection wrote, and decoding it into
 * an array of record copies.
 */
#ifndef NPUPROF_HOSTREC_TESTUTIL_H
#define NPUPROF_HOSTREC_TESTUTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <ftw.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npuprof/hostread.h"
#include "testutil.h"

struct decoded {
	struct decoded *next_live; /* tu_free_all() frees what a failed test left */
	size_t n, cap;
	struct npuprof_hostfmt_header **rec;
	uint32_t *block_tid;
	struct npuprof_hostread_decode_stats st;
	struct npuprof_hostread_file_info info;
	char err[512];
	int ret;
	/* tu_nth_tx: the msproftx / mstx events as TX records */
	struct npuprof_hostfmt_tx **tx;
	size_t ntx;
	int tx_done;
};

static inline char *tu_tmpdir(void)
{
	char tmpl[] = "/tmp/npuprof-test-XXXXXX";
	char *d = mkdtemp(tmpl);

	ck_assert_ptr_nonnull(d);
	return strdup(d);
}

static char tu_found[4096];

static int tu_find_cb(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	const char *base = path + ftw->base;

	(void)sb;
	if (type == FTW_F &&
	    strncmp(base, NPUPROF_HOSTFMT_FILE_PREFIX, strlen(NPUPROF_HOSTFMT_FILE_PREFIX)) == 0) {
		snprintf(tu_found, sizeof(tu_found), "%s", path);
		return 1;
	}
	return 0;
}

/* The (first) host stream below `dir`; fails the test if there is none. */
static inline const char *tu_find_stream(const char *dir)
{
	tu_found[0] = '\0';
	nftw(dir, tu_find_cb, 16, FTW_PHYS);
	ck_assert_msg(tu_found[0], "no host stream below %s", dir);
	return tu_found;
}

/* Number of host streams below `dir`. */
static int tu_count;
static int tu_count_cb(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	if (type == FTW_F && strncmp(path + ftw->base, NPUPROF_HOSTFMT_FILE_PREFIX,
				     strlen(NPUPROF_HOSTFMT_FILE_PREFIX)) == 0)
		tu_count++;
	return 0;
}
static inline int tu_count_streams(const char *dir)
{
	tu_count = 0;
	nftw(dir, tu_count_cb, 16, FTW_PHYS);
	return tu_count;
}

static int tu_collect(void *ctx, const struct npuprof_hostfmt_block_header *b,
		      const struct npuprof_hostfmt_header *r)
{
	struct decoded *d = ctx;

	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 1024;
		void *rec = realloc(d->rec, cap * sizeof(*d->rec));

		ck_assert_ptr_nonnull(rec);
		d->rec = rec;
		rec = realloc(d->block_tid, cap * sizeof(*d->block_tid));
		ck_assert_ptr_nonnull(rec);
		d->block_tid = rec;
		d->cap = cap;
	}
	d->rec[d->n] = malloc(r->size);
	ck_assert_ptr_nonnull(d->rec[d->n]);
	memcpy(d->rec[d->n], r, r->size);
	d->block_tid[d->n] = b->tid;
	d->n++;
	return 0;
}

/* Every decoded stream not yet freed: an assertion that fails between
 * tu_decode and tu_free (a longjmp out of the test with CK_FORK=no) would
 * otherwise leak it; teardown calls tu_free_all(). */
static struct decoded *tu_live;

static inline struct decoded *tu_decode(const char *path)
{
	struct decoded *d = calloc(1, sizeof(*d));

	ck_assert_ptr_nonnull(d);
	d->next_live = tu_live;
	tu_live = d;
	d->ret = npuprof_hostread_decode(path, tu_collect, d, &d->info, &d->st, d->err,
					 sizeof(d->err));
	return d;
}

static inline void tu_free(struct decoded *d)
{
	for (struct decoded **pp = &tu_live; *pp; pp = &(*pp)->next_live)
		if (*pp == d) {
			*pp = d->next_live;
			break;
		}
	for (size_t i = 0; i < d->n; i++)
		free(d->rec[i]);
	for (size_t i = 0; i < d->ntx; i++)
		free(d->tx[i]);
	free(d->tx);
	free(d->rec);
	free(d->block_tid);
	free(d);
}

static inline void tu_free_all(void)
{
	while (tu_live)
		tu_free(tu_live);
}

/* Records of one kind, in file order. */
static inline size_t tu_count_kind(const struct decoded *d, uint16_t kind)
{
	size_t n = 0;

	for (size_t i = 0; i < d->n; i++)
		n += d->rec[i]->kind == kind;
	return n;
}

static inline const void *tu_nth_kind(const struct decoded *d, uint16_t kind, size_t nth)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->rec[i]->kind == kind && nth-- == 0)
			return d->rec[i];
	return NULL;
}

/* The string of a HASH record of the stream, or NULL. */
static inline const char *tu_hash_str(const struct decoded *d, uint64_t id)
{
	if (id == NPUPROF_HOSTFMT_NO_STRING)
		return "";
	for (size_t i = 0; i < d->n; i++)
		if (d->rec[i]->kind == NPUPROF_HOSTFMT_HASH &&
		    ((const struct npuprof_hostfmt_hash *)d->rec[i])->id == id)
			return ((const struct npuprof_hostfmt_hash *)d->rec[i])->str;
	return NULL;
}

/* The msproftx / mstx events, whatever record holds them (TX or a compact
 * kind, npuprof_hostread_tx_event), in file order, each as a TX record with its
 * message inline (a message named by id is resolved through the stream's
 * HASH records; the test fails if one is not). h.kind is the source's. */
static inline void tu_tx_events(struct decoded *d)
{
	if (d->tx_done)
		return;
	d->tx_done = 1;
	for (size_t i = 0; i < d->n; i++) {
		struct npuprof_hostfmt_block_header b = { .tid = d->block_tid[i] };
		struct npuprof_hostread_tx ev;
		struct npuprof_hostfmt_tx *t;
		const char *m;
		size_t len;

		if (!npuprof_hostread_tx_event(&b, d->rec[i], &ev))
			continue;
		m = ev.message ? ev.message : tu_hash_str(d, ev.msg_id);
		ck_assert_msg(m, "no HASH record for message id %llx",
			      (unsigned long long)ev.msg_id);
		len = strlen(m);
		/* sizeof(*t) too: the struct's tail padding covers message[0..3] */
		t = calloc(1, offsetof(struct npuprof_hostfmt_tx, message) + len + 1 + sizeof(*t));
		ck_assert_ptr_nonnull(t);
		*t = ev.r;
		t->msg_len = (uint32_t)len;
		memcpy(t->message, m, len);
		if ((d->ntx & (d->ntx - 1)) == 0) {
			void *p = realloc(d->tx, (d->ntx ? 2 * d->ntx : 16) * sizeof(*d->tx));

			ck_assert_ptr_nonnull(p);
			d->tx = p;
		}
		d->tx[d->ntx++] = t;
	}
}

static inline size_t tu_count_tx(struct decoded *d)
{
	tu_tx_events(d);
	return d->ntx;
}

/* The nth event (see tu_tx_events), or NULL. */
static inline const struct npuprof_hostfmt_tx *tu_nth_tx(struct decoded *d, size_t nth)
{
	tu_tx_events(d);
	return nth < d->ntx ? d->tx[nth] : NULL;
}

/* ---- hand-crafted streams: a file header, then blocks of the caller's
 * records with their framing and CRC right ---- */
struct craft {
	uint8_t buf[16384] __attribute__((aligned(8)));
	size_t len;
	uint64_t seq;
};

/* A stream with header flags `flags` (npuprof_hostfmt_file_header.flags). */
static inline void craft_init(struct craft *c, uint64_t flags)
{
	struct npuprof_hostfmt_file_header *fh = (void *)c->buf;

	memset(c, 0, sizeof(*c));
	memcpy(fh->magic, NPUPROF_HOSTFMT_MAGIC, sizeof(NPUPROF_HOSTFMT_MAGIC));
	fh->version = NPUPROF_HOSTFMT_VERSION;
	fh->header_size = sizeof(*fh);
	fh->byte_order = NPUPROF_HOSTFMT_BYTE_ORDER;
	fh->block_align = 8;
	fh->flags = flags;
	c->len = sizeof(*fh);
}

/* One block of thread `tid` holding `len` bytes of records. */
static inline void craft_block(struct craft *c, uint32_t tid, const void *recs, uint32_t len)
{
	struct npuprof_hostfmt_block_header bh = {
		.magic = NPUPROF_HOSTFMT_BLOCK_MAGIC, .size = len, .tid = tid, .seq = c->seq++
	};

	ck_assert_uint_le(c->len + sizeof(bh) + len, sizeof(c->buf));
	bh.crc = npuprof_hostfmt_block_crc(&bh, recs);
	memcpy(c->buf + c->len, &bh, sizeof(bh));
	memcpy(c->buf + c->len + sizeof(bh), recs, len);
	c->len += sizeof(bh) + len;
}

/* The END record, in a block of thread `tid`. */
static inline void craft_end(struct craft *c, uint32_t tid)
{
	struct npuprof_hostfmt_end e = { .h = { .size = sizeof(e), .kind = NPUPROF_HOSTFMT_END } };

	craft_block(c, tid, &e, sizeof(e));
}

#endif
