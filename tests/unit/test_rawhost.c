/*
 * test_rawhost.c - the raw host stream decoder against clean, truncated,
 * corrupted and hand-crafted input. It must report the file and offset of
 * every kind of damage, recover what is intact, and never crash or hand a
 * malformed record to its caller.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "hostrec_testutil.h"
#include "hostrec.h"
#include "npuprof/hostread.h"

static char *g_dir;
static uint8_t *g_file; /* a clean stream written by the recorder */
static size_t g_len;
static struct decoded *g_clean;

/* Every record the decoder delivers must be well-formed; checked here again
 * independently of the decoder's own validation. Plain conditions, not
 * ck_assert: Check logs every assertion, which would dominate the run time
 * of the loops below. */
static int check_cb(void *ctx, const struct npuprof_hostfmt_block_header *b,
		    const struct npuprof_hostfmt_header *r)
{
	size_t *n = ctx;

	(void)b;
	if (r->size < sizeof(*r) || r->size % 8)
		ck_abort_msg("delivered record with size %u", r->size);
	if (r->kind == NPUPROF_HOSTFMT_TX) {
		const struct npuprof_hostfmt_tx *t = (const void *)r;

		if (offsetof(struct npuprof_hostfmt_tx, message) + t->msg_len >= r->size ||
		    t->message[t->msg_len])
			ck_abort_msg("delivered malformed TX record");
	}
	if (r->kind == NPUPROF_HOSTFMT_MSTX_MARK || r->kind == NPUPROF_HOSTFMT_MSTX_START) {
		const struct npuprof_hostfmt_mstx *t = (const void *)r;

		if (offsetof(struct npuprof_hostfmt_mstx, message) + t->msg_len >= r->size ||
		    t->message[t->msg_len])
			ck_abort_msg("delivered malformed MSTX record");
	}
	(*n)++;
	return 0;
}

static int decode_buf(const void *p, size_t len, char *err, size_t errlen, size_t *nrec,
		      struct npuprof_hostread_decode_stats *st)
{
	*nrec = 0;
	return npuprof_hostread_decode_buffer(p, len, "mem.raw", check_cb, nrec, NULL, st, err,
					      errlen);
}

static void *producer(void *arg)
{
	void *s = arg;

	for (int i = 0; i < 50; i++) {
		ck_assert_int_eq(aclprofPush(s), 0);
		ck_assert_int_eq(aclprofPop(), 0);
	}
	return NULL;
}

/* The bytes of the file at path. */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(*len ? *len : 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, *len, f), *len);
	fclose(f);
	return buf;
}

/* A stream with several blocks from three threads. */
static void setup(void)
{
	aclprofConfig *c;
	void *s;
	pthread_t th[2];

	g_dir = tu_tmpdir();
	ck_assert_int_eq(aclprofInit(g_dir, strlen(g_dir)), ACL_SUCCESS);
	c = aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL, ACL_PROF_MSPROFTX);
	ck_assert_int_eq(aclprofStart(c), ACL_SUCCESS);
	aclprofStr2Id("some op");
	s = aclprofCreateStamp();
	aclprofSetStampTraceMessage(s, "stamp message", 13);
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 20; i++)
			ck_assert_int_eq(aclprofMark(s), 0);
		npuprof_hostrec_flush(); /* one block per round */
	}
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, producer, s);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	aclprofDestroyStamp(s);
	ck_assert_int_eq(aclprofStop(c), ACL_SUCCESS);
	aclprofDestroyConfig(c);
	aclprofFinalize();

	g_file = slurp(tu_find_stream(g_dir), &g_len);
	g_clean = tu_decode(tu_find_stream(g_dir));
}

static void teardown(void)
{
	tu_free_all(); /* g_clean, and what a failed case left */
	free(g_file);
	tu_rm_rf(g_dir);
	free(g_dir);
}

START_TEST(test_crc32_vector)
{
	ck_assert_uint_eq(npuprof_crc32(0, "123456789", 9), 0xCBF43926u);
	ck_assert_uint_eq(npuprof_crc32(npuprof_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
	ck_assert_uint_eq(npuprof_crc32(0, NULL, 0), 0);
}
END_TEST

/* The CRC bit by bit, the definition the fast paths (slicing by 8, carry-
 * less multiplication from 64 bytes on) must agree with. */
static uint32_t crc32_bitwise(uint32_t crc, const unsigned char *p, size_t len)
{
	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc & 1) ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
	}
	return ~crc;
}

START_TEST(test_crc32_lengths)
{
	static unsigned char buf[4096 + 16];
	uint32_t seed = 12345;

	for (size_t i = 0; i < sizeof(buf); i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (unsigned char)(seed >> 16);
	}
	/* every length to 300 and some long ones, at every alignment mod 16,
	 * from a zero and a nonzero running CRC */
	for (size_t off = 0; off < 16; off++)
		for (size_t len = 0; len <= 4096; len += len < 300 ? 1 : 61)
			for (uint32_t init = 0; init < 2; init++) {
				uint32_t c0 = init ? 0xdeadbeefu : 0;

				ck_assert_uint_eq(npuprof_crc32(c0, buf + off, len),
						  crc32_bitwise(c0, buf + off, len));
			}
	/* all ones and all zeros (the folds' carries) */
	memset(buf, 0xff, sizeof(buf));
	ck_assert_uint_eq(npuprof_crc32(0, buf, 1000), crc32_bitwise(0, buf, 1000));
	memset(buf, 0, sizeof(buf));
	ck_assert_uint_eq(npuprof_crc32(7, buf, 1000), crc32_bitwise(7, buf, 1000));
}
END_TEST

START_TEST(test_clean_stream)
{
	ck_assert_msg(g_clean->ret == 0, "%s", g_clean->err);
	ck_assert_int_eq(g_clean->st.closed, 1);
	ck_assert_uint_eq(g_clean->st.problems, 0);
	ck_assert_uint_ge(g_clean->st.blocks, 6);
	/* session, 2 hashes (the op and the stamp's message), 80 marks, 100
	 * push/pop, end */
	ck_assert_uint_eq(tu_count_tx(g_clean), 180);
	ck_assert_uint_eq(tu_count_kind(g_clean, NPUPROF_HOSTFMT_STAMP_MARK), 80);
	ck_assert_uint_eq(tu_count_kind(g_clean, NPUPROF_HOSTFMT_STAMP_POP), 100);
	ck_assert_uint_eq(tu_count_kind(g_clean, NPUPROF_HOSTFMT_SESSION), 1);
	ck_assert_uint_eq(tu_count_kind(g_clean, NPUPROF_HOSTFMT_HASH), 2);
	ck_assert_uint_eq(tu_count_kind(g_clean, NPUPROF_HOSTFMT_END), 1);
	ck_assert_str_eq(g_clean->info.header.magic, NPUPROF_HOSTFMT_MAGIC);
	ck_assert_uint_eq(g_clean->info.file_size, g_len);
	ck_assert_uint_le(g_clean->info.header.monotonic_ns,
			  ((const struct npuprof_hostfmt_tx *)tu_nth_tx(g_clean, 0))->start_ns);
}
END_TEST

START_TEST(test_truncated_everywhere)
{
	char err[512], prefix[64];
	size_t n;
	struct npuprof_hostread_decode_stats st;

	snprintf(prefix, sizeof(prefix), "mem.raw: offset ");
	for (size_t len = 0; len < g_len; len++) {
		int r = decode_buf(g_file, len, err, sizeof(err), &n, &st);

		if (len < sizeof(struct npuprof_hostfmt_file_header)) {
			if (r != -EINVAL || n != 0)
				ck_abort_msg("len %zu: %d, %zu records", len, r, n);
		} else if (r != NPUPROF_HOSTREAD_EDAMAGED || n >= g_clean->n || st.closed) {
			ck_abort_msg("len %zu: %d, %zu records, closed %d", len, r, n, st.closed);
		}
		if (strncmp(err, prefix, strlen(prefix)) != 0)
			ck_abort_msg("len %zu: \"%s\"", len, err);
	}
}
END_TEST

START_TEST(test_truncated_file_names_path_and_offset)
{
	char path[4200], want[4300];
	struct decoded *d;
	FILE *f;
	size_t cut = g_len - 20;

	snprintf(path, sizeof(path), "%s/truncated.raw", g_dir);
	f = fopen(path, "wb");
	fwrite(g_file, 1, cut, f);
	fclose(f);
	d = tu_decode(path);
	ck_assert_int_eq(d->ret, NPUPROF_HOSTREAD_EDAMAGED);
	/* the END block (8 + 32 header + 32 record... ) starts 64 bytes before the end */
	snprintf(want, sizeof(want), "%s: offset %zu: truncated block", path, g_len - 64);
	ck_assert_msg(strncmp(d->err, want, strlen(want)) == 0, "\"%s\" vs \"%s\"", d->err, want);
	ck_assert_uint_eq(d->n, g_clean->n - 1); /* everything but END */
	tu_free(d);
}
END_TEST

START_TEST(test_every_byte_flipped)
{
	uint8_t *copy = malloc(g_len);
	char err[512];
	size_t n;
	struct npuprof_hostread_decode_stats st;

	for (size_t pos = 0; pos < g_len; pos++) {
		int r;

		memcpy(copy, g_file, g_len);
		copy[pos] ^= 0xFF;
		r = decode_buf(copy, g_len, err, sizeof(err), &n, &st);
		if (n > g_clean->n)
			ck_abort_msg("byte %zu flipped: %zu records", pos, n);
		/* Every byte after the file header is under a CRC, and at most the
         * damaged block is lost. */
		if (pos >= sizeof(struct npuprof_hostfmt_file_header) &&
		    (r != NPUPROF_HOSTREAD_EDAMAGED || !strstr(err, "mem.raw: offset ") ||
		     st.bad_blocks < 1 || n + 100 < g_clean->n))
			ck_abort_msg("byte %zu flipped: %d \"%s\" %zu records", pos, r, err, n);
	}
	free(copy);
}
END_TEST

START_TEST(test_random_garbage)
{
	uint8_t *copy = malloc(g_len);
	char err[512];
	size_t n;
	struct npuprof_hostread_decode_stats st;
	unsigned seed = 12345;

	for (int it = 0; it < 3000; it++) {
		memcpy(copy, g_file, g_len);
		for (int k = 0; k < 1 + it % 16; k++) {
			size_t pos = sizeof(struct npuprof_hostfmt_file_header) +
				     (size_t)rand_r(&seed) % (g_len - 128);

			copy[pos] = (uint8_t)rand_r(&seed);
		}
		decode_buf(copy, g_len - (size_t)(it % 7) * 13, err, sizeof(err), &n, &st);
		if (n > g_clean->n)
			ck_abort_msg("iteration %d: %zu records", it, n);
	}
	/* pure noise with a valid file header */
	for (size_t i = 128; i < g_len; i++)
		copy[i] = (uint8_t)rand_r(&seed);
	memcpy(copy, g_file, 128);
	ck_assert_int_eq(decode_buf(copy, g_len, err, sizeof(err), &n, &st),
			 NPUPROF_HOSTREAD_EDAMAGED);
	ck_assert_uint_eq(n, 0);
	free(copy);
}
END_TEST

/* Issue 31 #3: 1,200 marks recorded in one run of the ring (one flush) are
 * written as blocks of at most 4 KB, so one flipped bit costs only the
 * records of the small block it is in (it cost a whole 93 KB block); two
 * damaged blocks side by side count as two. */
START_TEST(test_one_bit_costs_one_small_block)
{
	char *dir = tu_tmpdir(), err[512];
	aclprofConfig *c;
	void *stamp;
	uint8_t *file, *copy;
	size_t len, off, n, clean, offs[4096], sizes[4096], nb = 0, max_recs = 0, mid;
	struct npuprof_hostread_decode_stats st;

	ck_assert_int_eq(aclprofInit(dir, strlen(dir)), ACL_SUCCESS);
	c = aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL, ACL_PROF_MSPROFTX);
	ck_assert_int_eq(aclprofStart(c), ACL_SUCCESS);
	stamp = aclprofCreateStamp();
	aclprofSetStampTraceMessage(stamp, "a stamp message", 15);
	for (int i = 0; i < 1200; i++)
		ck_assert_int_eq(aclprofMark(stamp), 0);
	aclprofDestroyStamp(stamp);
	ck_assert_int_eq(aclprofStop(c), ACL_SUCCESS);
	aclprofDestroyConfig(c);
	aclprofFinalize();
	file = slurp(tu_find_stream(dir), &len);
	copy = malloc(len);
	ck_assert_int_eq(decode_buf(file, len, err, sizeof(err), &clean, &st), 0);
	ck_assert_uint_ge(clean, 1200);
	/* every block is small */
	for (off = sizeof(struct npuprof_hostfmt_file_header); off < len && nb < 4096;) {
		struct npuprof_hostfmt_block_header bh;
		size_t recs = 0;

		memcpy(&bh, file + off, sizeof(bh));
		ck_assert_uint_le(bh.size, 2048);
		for (uint32_t r = 0; r < bh.size;
		     r +=
		     ((const struct npuprof_hostfmt_header *)(file + off + sizeof(bh) + r))->size)
			recs++;
		max_recs = recs > max_recs ? recs : max_recs;
		offs[nb] = off;
		sizes[nb++] = bh.size;
		off += sizeof(bh) + bh.size;
	}
	ck_assert_uint_ge(nb, 10);
	/* two neighbours from the middle on whose payloads hold the flipped
	 * byte: a slow machine's timed flushes can write blocks of a record */
	for (mid = nb / 2; mid + 1 < nb && (sizes[mid] <= 40 || sizes[mid + 1] <= 40); mid++)
		;
	ck_assert_uint_lt(mid + 1, nb);

	/* one bit in the middle of the file: one block's records */
	memcpy(copy, file, len);
	copy[offs[mid] + sizeof(struct npuprof_hostfmt_block_header) + 40] ^= 0x10;
	ck_assert_int_eq(decode_buf(copy, len, err, sizeof(err), &n, &st),
			 NPUPROF_HOSTREAD_EDAMAGED);
	ck_assert_uint_eq(st.bad_blocks, 1);
	ck_assert_uint_ge(n, clean - max_recs);
	ck_assert_uint_le(clean - n, 1200 / 16); /* not half of them */

	/* two blocks side by side: 2 damaged blocks */
	copy[offs[mid + 1] + sizeof(struct npuprof_hostfmt_block_header) + 40] ^= 0x10;
	ck_assert_int_eq(decode_buf(copy, len, err, sizeof(err), &n, &st),
			 NPUPROF_HOSTREAD_EDAMAGED);
	ck_assert_uint_eq(st.bad_blocks, 2);
	ck_assert_uint_ge(n, clean - 2 * max_recs);
	free(file);
	free(copy);
	tu_rm_rf(dir);
	free(dir);
}
END_TEST

/* Offsets of the blocks of the clean stream. */
static size_t block_offsets(size_t *offs, size_t max)
{
	size_t off = sizeof(struct npuprof_hostfmt_file_header), n = 0;

	while (off < g_len && n < max) {
		struct npuprof_hostfmt_block_header bh;

		memcpy(&bh, g_file + off, sizeof(bh));
		offs[n++] = off;
		off += sizeof(bh) + bh.size;
	}
	return n;
}

START_TEST(test_resync_after_bad_block)
{
	size_t offs[64], nb = block_offsets(offs, 64), n, b = 3;
	uint8_t *copy = malloc(g_len);
	char err[512], want[64];
	struct npuprof_hostread_decode_stats st;
	struct npuprof_hostfmt_block_header bh;
	size_t lost_records = 0;

	ck_assert_uint_ge(nb, 6);
	memcpy(&bh, g_file + offs[b], sizeof(bh));
	for (uint32_t r = 0; r < bh.size;) {
		const struct npuprof_hostfmt_header *h = (const void *)(g_file + offs[b] +
									sizeof(bh) + r);

		lost_records += h->kind != NPUPROF_HOSTFMT_PAD;
		r += h->size;
	}
	memcpy(copy, g_file, g_len);
	copy[offs[b] + sizeof(bh) + 5] ^= 1; /* inside block 3's first record */
	ck_assert_int_eq(decode_buf(copy, g_len, err, sizeof(err), &n, &st),
			 NPUPROF_HOSTREAD_EDAMAGED);
	snprintf(want, sizeof(want), "mem.raw: offset %zu: block CRC mismatch", offs[b]);
	ck_assert_str_eq(err, want);
	ck_assert_uint_eq(st.problems, 1);
	ck_assert_uint_eq(st.bad_blocks, 1);
	ck_assert_uint_eq(st.skipped_bytes, offs[b + 1] - offs[b]);
	ck_assert_uint_eq(n, g_clean->n - lost_records);
	ck_assert_int_eq(st.closed, 1);

	/* a whole block cut out: a sequence gap */
	memcpy(copy, g_file, offs[b]);
	memcpy(copy + offs[b], g_file + offs[b + 1], g_len - offs[b + 1]);
	ck_assert_int_eq(decode_buf(copy, g_len - (offs[b + 1] - offs[b]), err, sizeof(err), &n,
				    &st),
			 NPUPROF_HOSTREAD_EDAMAGED);
	ck_assert_ptr_nonnull(strstr(err, "blocks missing"));
	ck_assert_uint_eq(n, g_clean->n - lost_records);
	free(copy);
}
END_TEST

START_TEST(test_file_header_errors)
{
	uint8_t *copy = malloc(g_len);
	char err[512];
	size_t n;
	struct npuprof_hostread_decode_stats st;
	struct npuprof_hostfmt_file_header *fh = (void *)copy;

	memcpy(copy, g_file, g_len);
	copy[0] = 'X';
	ck_assert_int_eq(decode_buf(copy, g_len, err, sizeof(err), &n, &st), -EINVAL);
	ck_assert_str_eq(err, "mem.raw: offset 0: not an npuprof host stream (bad magic)");
	memcpy(copy, g_file, g_len);
	fh->version = 2;
	ck_assert_int_eq(decode_buf(copy, g_len, err, sizeof(err), &n, &st), -EINVAL);
	ck_assert_str_eq(err, "mem.raw: offset 8: unsupported version 2 (expected 1)");
	memcpy(copy, g_file, g_len);
	fh->byte_order = 0x04030201;
	ck_assert_int_eq(decode_buf(copy, g_len, err, sizeof(err), &n, &st), -EINVAL);
	memcpy(copy, g_file, g_len);
	fh->header_size = 0xFFF8;
	ck_assert_int_eq(decode_buf(copy, g_len, err, sizeof(err), &n, &st), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "offset 10: bad header size"));
	free(copy);
}
END_TEST

START_TEST(test_open_errors)
{
	char err[512], path[4200];

	snprintf(path, sizeof(path), "%s/missing.raw", g_dir);
	ck_assert_int_eq(npuprof_hostread_decode(path, NULL, NULL, NULL, NULL, err, sizeof(err)),
			 -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, path));
	ck_assert_int_eq(npuprof_hostread_decode(g_dir, NULL, NULL, NULL, NULL, err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "not a regular file"));
	ck_assert_int_eq(npuprof_hostread_decode(NULL, NULL, NULL, NULL, NULL, err, sizeof(err)),
			 -EINVAL);
}
END_TEST

static int stop_at_third(void *ctx, const struct npuprof_hostfmt_block_header *b,
			 const struct npuprof_hostfmt_header *r)
{
	int *n = ctx;

	(void)b;
	(void)r;
	return ++*n == 3 ? 42 : 0;
}

START_TEST(test_callback_stops)
{
	int n = 0;

	ck_assert_int_eq(npuprof_hostread_decode_buffer(g_file, g_len, "x", stop_at_third, &n, NULL,
							NULL, NULL, 0),
			 42);
	ck_assert_int_eq(n, 3);
}
END_TEST

START_TEST(test_unaligned_buffer)
{
	uint8_t *buf = malloc(g_len + 1);
	size_t n;
	char err[256];
	struct npuprof_hostread_decode_stats st;

	memcpy(buf + 1, g_file, g_len);
	ck_assert_int_eq(decode_buf(buf + 1, g_len, err, sizeof(err), &n, &st), 0);
	ck_assert_uint_eq(n, g_clean->n);
	free(buf);
}
END_TEST

/* ---- hand-crafted streams: framing intact (CRC right), records wrong ---- */

/* Decodes a crafted stream whose second block holds `recs`; returns the
 * problem text ("" if clean) and the number of delivered records. */
static int craft_decode(const void *recs, uint32_t len, char *err, size_t errlen, size_t *n)
{
	struct craft c;
	struct npuprof_hostread_decode_stats st;
	struct npuprof_hostfmt_end e = { .h = { .size = sizeof(e), .kind = NPUPROF_HOSTFMT_END } };

	craft_init(&c, 0);
	craft_block(&c, 7, &e, 0); /* an empty block is legal */
	craft_block(&c, 7, recs, len);
	craft_end(&c, 7);
	return decode_buf(c.buf, c.len, err, errlen, n, &st);
}

START_TEST(test_crafted_records)
{
	uint64_t rec[64] = { 0 };
	struct npuprof_hostfmt_tx *tx = (void *)rec;
	struct npuprof_hostfmt_header *h = (void *)rec;
	char err[512];
	size_t n;

	/* an unknown kind passes (forward compatibility), skipped by size */
	h->size = 24;
	h->kind = 999;
	ck_assert_int_eq(craft_decode(rec, 24, err, sizeof(err), &n), 0);
	ck_assert_uint_eq(n, 2);

	/* record size 0 would loop forever; not a multiple of 8; past the block */
	h->size = 0;
	ck_assert_int_eq(craft_decode(rec, 24, err, sizeof(err), &n), NPUPROF_HOSTREAD_EDAMAGED);
	ck_assert_ptr_nonnull(strstr(err, "offset 192: bad record size"));
	h->size = 12;
	ck_assert_int_eq(craft_decode(rec, 24, err, sizeof(err), &n), NPUPROF_HOSTREAD_EDAMAGED);
	h->size = 32;
	ck_assert_int_eq(craft_decode(rec, 24, err, sizeof(err), &n), NPUPROF_HOSTREAD_EDAMAGED);
	ck_assert_ptr_nonnull(strstr(err, "record extends past its block"));
	ck_assert_uint_eq(n, 1); /* only END */

	/* a TX record shorter than its kind, a message past the record, no NUL */
	memset(rec, 0, sizeof(rec));
	tx->h.size = 64;
	tx->h.kind = NPUPROF_HOSTFMT_TX;
	ck_assert_int_eq(craft_decode(rec, 64, err, sizeof(err), &n), NPUPROF_HOSTREAD_EDAMAGED);
	ck_assert_ptr_nonnull(strstr(err, "record shorter than its kind"));
	tx->h.size = 80;
	tx->msg_len = 100;
	ck_assert_int_eq(craft_decode(rec, 80, err, sizeof(err), &n), NPUPROF_HOSTREAD_EDAMAGED);
	ck_assert_ptr_nonnull(strstr(err, "string length exceeds its record"));
	tx->msg_len = 3;
	memcpy(tx->message, "abcd", 4);
	ck_assert_int_eq(craft_decode(rec, 80, err, sizeof(err), &n), NPUPROF_HOSTREAD_EDAMAGED);
	ck_assert_ptr_nonnull(strstr(err, "not NUL-terminated"));
	tx->message[3] = '\0';
	ck_assert_int_eq(craft_decode(rec, 80, err, sizeof(err), &n), 0);
	ck_assert_uint_eq(n, 2);

	/* counts beyond their record */
	memset(rec, 0, sizeof(rec));
	{
		struct npuprof_hostfmt_session *s = (void *)rec;

		s->h.size = 32;
		s->h.kind = NPUPROF_HOSTFMT_SESSION;
		s->dev_count = 3;
		ck_assert_int_eq(craft_decode(rec, 32, err, sizeof(err), &n),
				 NPUPROF_HOSTREAD_EDAMAGED);
		ck_assert_ptr_nonnull(strstr(err, "device count exceeds"));
		s->dev_count = 2;
		ck_assert_int_eq(craft_decode(rec, 32, err, sizeof(err), &n), 0);
	}
	memset(rec, 0, sizeof(rec));
	{
		struct npuprof_hostfmt_tensor_info *t = (void *)rec;

		t->h.size = 72 + 48;
		t->h.kind = NPUPROF_HOSTFMT_TENSOR_INFO;
		t->tensor_count = 0x40000000u; /* 48 * count overflows 32 bits */
		ck_assert_int_eq(craft_decode(rec, 120, err, sizeof(err), &n),
				 NPUPROF_HOSTREAD_EDAMAGED);
		ck_assert_ptr_nonnull(strstr(err, "tensor count exceeds"));
	}
	/* no END: the writer did not close the stream */
	{
		struct craft c;
		struct npuprof_hostread_decode_stats st;

		craft_init(&c, 0);
		h = (void *)rec;
		h->size = 8;
		h->kind = NPUPROF_HOSTFMT_PAD;
		craft_block(&c, 7, rec, 8);
		ck_assert_int_eq(decode_buf(c.buf, c.len, err, sizeof(err), &n, &st),
				 NPUPROF_HOSTREAD_EDAMAGED);
		ck_assert_ptr_nonnull(strstr(err, "no END record"));
		ck_assert_uint_eq(n, 0); /* PAD is never delivered */
	}
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("rawhost");
	TCase *tc = tcase_create("decoder");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_crc32_vector);
	tcase_add_test(tc, test_crc32_lengths);
	tcase_add_test(tc, test_clean_stream);
	tcase_add_test(tc, test_truncated_everywhere);
	tcase_add_test(tc, test_truncated_file_names_path_and_offset);
	tcase_add_test(tc, test_every_byte_flipped);
	tcase_add_test(tc, test_random_garbage);
	tcase_add_test(tc, test_resync_after_bad_block);
	tcase_add_test(tc, test_one_bit_costs_one_small_block);
	tcase_add_test(tc, test_file_header_errors);
	tcase_add_test(tc, test_open_errors);
	tcase_add_test(tc, test_callback_stops);
	tcase_add_test(tc, test_unaligned_buffer);
	tcase_add_test(tc, test_crafted_records);
	suite_add_tcase(s, tc);
	return s;
}
