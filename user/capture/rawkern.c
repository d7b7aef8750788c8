/*
 * rawkern.c — writing and reading raw kernel stream files (rawkern.h).
 */
#include "errmsg.h"
#include "npuprof/rawkern.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RAWK_BUF_RECORDS 1024
#define RAWK_BAD_LISTED 8 /* offsets of corrupt records named in err */

struct npuprof_rawk_writer {
	int fd;
	int error;
	uint32_t nbuf;
	uint64_t count;
	struct npuprof_record buf[RAWK_BUF_RECORDS];
};

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

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
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
	r = write_all(w->fd, h, sizeof(h));
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

	if (!w->nbuf || w->error)
		return w->error;
	r = write_all(w->fd, w->buf, (size_t)w->nbuf * NPUPROF_RECORD_SIZE);
	w->nbuf = 0;
	if (r < 0)
		w->error = r;
	return r;
}

int npuprof_rawk_append(void *writer, const struct npuprof_record *r)
{
	struct npuprof_rawk_writer *w = writer;

	w->buf[w->nbuf++] = *r;
	w->count++;
	if (w->nbuf == RAWK_BUF_RECORDS)
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

long npuprof_rawk_read(const char *path, npuprof_record_fn fn, void *ctx,
		       struct npuprof_rawk_info *info, char *err, size_t errlen)
{
	struct npuprof_rawk_info local;
	unsigned char h[NPUPROF_RAWK_HDR_SIZE];
	struct npuprof_record buf[256];
	uint64_t bad_off[RAWK_BAD_LISTED];
	uint32_t rsize, hsize;
	uint64_t off;
	long count = 0;
	size_t have = 0;
	FILE *f;
	int r = 0;

	if (!info)
		info = &local;
	memset(info, 0, sizeof(*info));
	if (err && errlen)
		err[0] = 0;
	f = fopen(path, "rb");
	if (!f) {
		r = -errno;
		npuprof_seterr(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return r;
	}
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
	if (info->file_version != NPUPROF_RAWK_VERSION) {
		npuprof_seterr(err, errlen,
			       "%s: offset 8: unsupported file version %u (this reader knows %d)",
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
		size_t n = fread(buf, 1, sizeof(buf), f);
		size_t whole = n / NPUPROF_RECORD_SIZE;

		for (size_t i = 0; i < whole; i++, off += NPUPROF_RECORD_SIZE) {
			const struct npuprof_record *rec = &buf[i];

			if (rec->hdr.size != NPUPROF_RECORD_SIZE || rec->hdr.type == 0 ||
			    rec->hdr.type >= NPUPROF_REC_TYPE_MAX) {
				/* fixed-size records: the next one is intact */
				if (info->bad_records < RAWK_BAD_LISTED)
					bad_off[info->bad_records] = off;
				if (!info->bad_records)
					info->first_bad_offset = off;
				info->bad_records++;
				continue;
			}
			count++;
			info->records++;
			if (fn && fn(ctx, rec))
				goto out;
		}
		if (n < sizeof(buf)) {
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
	if (info->bad_records && r == 0)
		describe_bad(path, info, bad_off, err, errlen);
out:
	fclose(f);
	return r < 0 ? r : count;
}
