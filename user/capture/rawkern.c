/*
 * rawkern.c — writing and reading raw kernel stream files (rawkern.h).
 */
#include "errmsg.h"
#include "fsutil.h"
#include "npuprof/hostfmt.h" /* npuprof_crc32 */
#include "npuprof/rawkern.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RAWK_BUF_RECORDS 1024
#define RAWK_BAD_LISTED 8 /* offsets of corrupt records named in err */

struct npuprof_rawk_writer {
	int fd;
	int error;
	uint32_t nbuf; /* slots in buf: records and checksum records */
	uint32_t nblock; /* records since the last checksum record */
	uint64_t count;
	uint16_t sums[NPUPROF_RAWK_SUM_EVERY];
	struct npuprof_record buf[RAWK_BUF_RECORDS];
};

uint16_t npuprof_rawk_sum16(const void *p, size_t len)
{
	return (uint16_t)npuprof_crc32(0, p, len);
}

/* The checksum record of the records since the last one. */
static void put_sum(struct npuprof_rawk_writer *w)
{
	unsigned char *p = (unsigned char *)&w->buf[w->nbuf++];
	uint16_t v;

	memset(p, 0, NPUPROF_RECORD_SIZE);
	v = NPUPROF_RAWK_SUM_TYPE;
	memcpy(p, &v, 2);
	v = NPUPROF_RECORD_SIZE;
	memcpy(p + 2, &v, 2);
	v = (uint16_t)w->nblock;
	memcpy(p + 4, &v, 2);
	memcpy(p + 8, w->sums, (size_t)w->nblock * 2);
	v = npuprof_rawk_sum16(p, NPUPROF_RECORD_SIZE);
	memcpy(p + 6, &v, 2);
	w->nblock = 0;
}

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4); /* little-endian hosts only, as the records */
}

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int npuprof_rawk_create(struct npuprof_rawk_writer **out, const char *path, const char *engine,
			uint32_t sample_n, uint32_t flags, char *err, size_t errlen)
{
	unsigned char h[NPUPROF_RAWK_HDR_SIZE];
	struct npuprof_rawk_writer *w;
	uint64_t rt, mono;
	int r;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		npuprof_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		r = -errno;
		npuprof_seterr(err, errlen, "%s: cannot create: %s", path, strerror(errno));
		free(w);
		return r;
	}
	memset(h, 0, sizeof(h));
	memcpy(h, NPUPROF_RAWK_MAGIC, 8);
	put32(h + 8, NPUPROF_RAWK_VERSION);
	put32(h + 12, NPUPROF_SCHEMA_VERSION);
	put32(h + 16, NPUPROF_RECORD_SIZE);
	put32(h + 20, NPUPROF_RAWK_HDR_SIZE);
	rt = clock_ns(CLOCK_REALTIME);
	mono = clock_ns(CLOCK_MONOTONIC);
	put64(h + 24, rt);
	put64(h + 32, mono);
	if (engine)
		strncpy((char *)h + 40, engine, 16);
	put32(h + 56, sample_n);
	put32(h + 60, flags);
	r = fs_write_all(w->fd, h, sizeof(h));
	if (r < 0) {
		npuprof_seterr(err, errlen, "%s: write header: %s", path, strerror(-r));
		close(w->fd);
		free(w);
		return r;
	}
	*out = w;
	return 0;
}

int npuprof_rawk_flush(struct npuprof_rawk_writer *w)
{
	int r;

	if (w->nblock)
		put_sum(w); /* a slot is kept free for it (append) */
	if (!w->nbuf || w->error)
		return w->error;
	r = fs_write_all(w->fd, w->buf, (size_t)w->nbuf * NPUPROF_RECORD_SIZE);
	w->nbuf = 0;
	if (r < 0)
		w->error = r;
	return r;
}

int npuprof_rawk_append(void *writer, const struct npuprof_record *r)
{
	struct npuprof_rawk_writer *w = writer;

	w->buf[w->nbuf++] = *r;
	w->sums[w->nblock++] = npuprof_rawk_sum16(r, NPUPROF_RECORD_SIZE);
	w->count++;
	if (w->nblock == NPUPROF_RAWK_SUM_EVERY)
		put_sum(w);
	if (w->nbuf >= RAWK_BUF_RECORDS - 1)
		npuprof_rawk_flush(w);
	return 0;
}

uint64_t npuprof_rawk_count(const struct npuprof_rawk_writer *w)
{
	return w->count;
}

int npuprof_rawk_close(struct npuprof_rawk_writer *w)
{
	int r;

	if (!w)
		return 0;
	npuprof_rawk_flush(w);
	r = w->error;
	if (close(w->fd) < 0 && !r)
		r = -errno;
	free(w);
	return r;
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* "<path>: N corrupt records skipped at offsets A, B, ...", before any
 * truncation message already in err. */
static void describe_bad(const char *path, const struct npuprof_rawk_info *info,
			 const uint64_t *bad_off, char *err, size_t errlen)
{
	char list[256], tail[512];
	size_t n = 0;
	uint64_t shown = info->bad_records < RAWK_BAD_LISTED ? info->bad_records : RAWK_BAD_LISTED;

	if (!err || !errlen)
		return;
	list[0] = '\0';
	for (uint64_t i = 0; i < shown && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%llu", i ? ", " : "",
				      (unsigned long long)bad_off[i]);
	snprintf(tail, sizeof(tail), "%s", err);
	npuprof_seterr(err, errlen,
		       "%s: %llu corrupt record%s of %d bytes skipped at offset%s %s%s%s%s", path,
		       (unsigned long long)info->bad_records, info->bad_records == 1 ? "" : "s",
		       NPUPROF_RECORD_SIZE, info->bad_records == 1 ? "" : "s", list,
		       info->bad_records > shown ? " ..." : "", tail[0] ? "; " : "", tail);
}

/* The reader's state: a version 2 file's records wait for the checksum
 * record that covers them. */
struct rawk_reader {
	struct npuprof_rawk_info *info;
	npuprof_record_fn fn;
	void *ctx;
	long count;
	int stop;
	uint64_t bad_off[RAWK_BAD_LISTED];
	uint64_t first_bad_sum;
	uint32_t npend;
	struct npuprof_record pend[NPUPROF_RAWK_SUM_EVERY + 1];
	uint64_t pend_off[NPUPROF_RAWK_SUM_EVERY + 1];
	/* what one read brings: 128 KiB (the stream is read unbuffered, so
	 * each is one system call; 16 KiB reads in 4 KiB pieces were 32000
	 * calls for the export of a 1M-task session's two passes) */
	struct npuprof_record buf[2048];
};

static void bad_record(struct rawk_reader *k, uint64_t off)
{
	if (k->info->bad_records < RAWK_BAD_LISTED)
		k->bad_off[k->info->bad_records] = off;
	if (!k->info->bad_records)
		k->info->first_bad_offset = off;
	k->info->bad_records++;
}

static int record_ok(const struct npuprof_record *rec)
{
	return rec->hdr.size == NPUPROF_RECORD_SIZE && rec->hdr.type != 0 &&
	       rec->hdr.type < NPUPROF_REC_TYPE_MAX;
}

/* A record that passed its checks: to fn. */
static void deliver(struct rawk_reader *k, const struct npuprof_record *rec, uint64_t off)
{
	if (!record_ok(rec)) {
		/* fixed-size records: the next one is intact */
		bad_record(k, off);
		return;
	}
	k->count++;
	k->info->records++;
	if (!k->stop && k->fn && k->fn(k->ctx, rec))
		k->stop = 1;
}

/* The checksum record sum (at off) for the pending records; damaged (its
 * own check fails, or it is not one where one must be): still the records
 * it holds sums of are checked with them. */
static void check_block(struct rawk_reader *k, const unsigned char *sum, uint64_t off, int damaged)
{
	uint16_t cnt, v;
	unsigned char self[NPUPROF_RECORD_SIZE];

	memcpy(&cnt, sum + 4, 2);
	memcpy(self, sum, sizeof(self));
	memset(self + 6, 0, 2);
	memcpy(&v, sum + 6, 2);
	if (damaged || v != npuprof_rawk_sum16(self, sizeof(self)) || cnt != k->npend) {
		if (!k->info->bad_sums)
			k->first_bad_sum = off;
		k->info->bad_sums++;
	} else {
		k->info->sums++;
	}
	for (uint32_t i = 0; i < k->npend; i++) {
		memcpy(&v, sum + 8 + 2 * i, 2);
		if (i < NPUPROF_RAWK_SUM_EVERY &&
		    v == npuprof_rawk_sum16(&k->pend[i], NPUPROF_RECORD_SIZE))
			deliver(k, &k->pend[i], k->pend_off[i]);
		else
			bad_record(k, k->pend_off[i]);
	}
	k->npend = 0;
}

/* One 64-byte slot of the file at off. */
static void slot(struct rawk_reader *k, const struct npuprof_record *rec, uint64_t off)
{
	if (k->info->file_version < 2) {
		deliver(k, rec, off);
		return;
	}
	if (rec->hdr.type == NPUPROF_RAWK_SUM_TYPE && rec->hdr.size == NPUPROF_RECORD_SIZE) {
		check_block(k, (const unsigned char *)rec, off, 0);
		return;
	}
	if (k->npend == NPUPROF_RAWK_SUM_EVERY) {
		/* a checksum record belongs here: this is one, damaged */
		check_block(k, (const unsigned char *)rec, off, 1);
		return;
	}
	k->pend[k->npend] = *rec;
	k->pend_off[k->npend++] = off;
}

long npuprof_rawk_read(const char *path, npuprof_record_fn fn, void *ctx,
		       struct npuprof_rawk_info *info, char *err, size_t errlen)
{
	struct npuprof_rawk_info local;
	unsigned char h[NPUPROF_RAWK_HDR_SIZE];
	struct rawk_reader *k;
	uint32_t rsize, hsize;
	uint64_t off;
	size_t have = 0;
	struct stat st = { 0 };
	FILE *f = NULL;
	int r = 0, fd;

	if (!info)
		info = &local;
	memset(info, 0, sizeof(*info));
	if (err && errlen)
		err[0] = 0;
	k = calloc(1, sizeof(*k));
	if (!k) {
		npuprof_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	k->info = info;
	k->fn = fn;
	k->ctx = ctx;
	/* O_NONBLOCK: a FIFO's open does not wait for a writer; fstat then
	 * refuses anything but a regular file, as the host streams are */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0 || !(f = fdopen(fd, "rb"))) {
		r = fd >= 0 && !S_ISREG(st.st_mode) ? -EINVAL : -errno;
		if (r == -EINVAL)
			npuprof_seterr(err, errlen, "%s: cannot open: not a regular file", path);
		else
			npuprof_seterr(err, errlen, "%s: cannot open: %s", path, strerror(-r));
		if (fd >= 0)
			close(fd);
		free(k);
		return r;
	}
	setvbuf(f, NULL, _IONBF, 0); /* k->buf is the buffer */
	have = fread(h, 1, sizeof(h), f);
	if (have < sizeof(h)) {
		npuprof_seterr(err, errlen, "%s: offset %zu: truncated header (%zu of %d bytes)",
			       path, have, have, NPUPROF_RAWK_HDR_SIZE);
		r = -EBADMSG;
		goto out;
	}
	if (memcmp(h, NPUPROF_RAWK_MAGIC, 8)) {
		npuprof_seterr(err, errlen, "%s: offset 0: not a raw kernel stream (bad magic)",
			       path);
		r = -EBADMSG;
		goto out;
	}
	info->file_version = get32(h + 8);
	info->schema_version = get32(h + 12);
	rsize = get32(h + 16);
	hsize = get32(h + 20);
	info->realtime_ns = get64(h + 24);
	info->monotonic_ns = get64(h + 32);
	memcpy(info->engine, h + 40, 16);
	info->engine[16] = 0;
	info->sample_n = get32(h + 56);
	info->flags = get32(h + 60);
	if (info->file_version < 1 || info->file_version > NPUPROF_RAWK_VERSION) {
		npuprof_seterr(
			err, errlen,
			"%s: offset 8: unsupported file version %u (this reader knows 1 to %d)",
			path, info->file_version, NPUPROF_RAWK_VERSION);
		r = -EPROTO;
		goto out;
	}
	if (rsize != NPUPROF_RECORD_SIZE || hsize != NPUPROF_RAWK_HDR_SIZE) {
		npuprof_seterr(err, errlen,
			       "%s: offset 16: record size %u / header size %u, expected %d / %d",
			       path, rsize, hsize, NPUPROF_RECORD_SIZE, NPUPROF_RAWK_HDR_SIZE);
		r = -EPROTO;
		goto out;
	}
	off = NPUPROF_RAWK_HDR_SIZE;
	for (;;) {
		uint64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		size_t n = fread(k->buf, 1, sizeof(k->buf), f);
		size_t whole = n / NPUPROF_RECORD_SIZE;

		info->read_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;

		for (size_t i = 0; i < whole && !k->stop; i++, off += NPUPROF_RECORD_SIZE)
			slot(k, &k->buf[i], off);
		if (k->stop)
			goto out;
		if (n < sizeof(k->buf)) {
			if (ferror(f)) {
				r = -EIO;
				npuprof_seterr(err, errlen, "%s: offset %llu: read error", path,
					       (unsigned long long)off);
			} else if (n % NPUPROF_RECORD_SIZE) {
				info->trailing_bytes = n % NPUPROF_RECORD_SIZE;
				npuprof_seterr(
					err, errlen,
					"%s: offset %llu: truncated record (%llu of %d bytes), ignored",
					path, (unsigned long long)off,
					(unsigned long long)info->trailing_bytes,
					NPUPROF_RECORD_SIZE);
			}
			break;
		}
	}
	/* the last records without their checksum record: a write cut short */
	if (k->npend && r == 0) {
		uint64_t first = k->pend_off[0];
		char tail[512];

		info->unchecked = k->npend;
		for (uint32_t i = 0; i < k->npend && !k->stop; i++)
			deliver(k, &k->pend[i], k->pend_off[i]);
		k->npend = 0;
		snprintf(tail, sizeof(tail), "%s", err ? err : "");
		npuprof_seterr(
			err, errlen,
			"%s: offset %llu: %llu record%s at the end without their checksum record (the file was cut short), read unchecked%s%s",
			path, (unsigned long long)first, (unsigned long long)info->unchecked,
			info->unchecked == 1 ? "" : "s", tail[0] ? "; " : "", tail);
	}
	if (info->bad_sums && r == 0) {
		char tail[512];

		snprintf(tail, sizeof(tail), "%s", err ? err : "");
		npuprof_seterr(err, errlen,
			       "%s: %llu damaged checksum record%s (the first at offset %llu)%s%s",
			       path, (unsigned long long)info->bad_sums,
			       info->bad_sums == 1 ? "" : "s", (unsigned long long)k->first_bad_sum,
			       tail[0] ? "; " : "", tail);
	}
	if (info->bad_records && r == 0)
		describe_bad(path, info, k->bad_off, err, errlen);
out:
	fclose(f);
	r = r < 0 ? r : 0;
	{
		long count = k->count;

		free(k);
		return r < 0 ? r : count;
	}
}
