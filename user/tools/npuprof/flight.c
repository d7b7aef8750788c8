/*
 * flight.c — the flight recorder's record ring and its dumps (flight.h).
 */
#include "atomicfile.h"
#include "flight.h"
#include "fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npuprof/rawkern.h"
#include "npuprof/engine.h"

int flightbuf_init(struct flightbuf *b, uint64_t bytes, double seconds)
{
	memset(b, 0, sizeof(*b));
	b->cap = bytes / sizeof(struct npuprof_record);
	if (!b->cap)
		return -EINVAL;
	b->keep_ns = (uint64_t)(seconds * 1e9);
	/* untouched pages cost nothing until the ring fills */
	b->r = malloc(b->cap * sizeof(*b->r));
	return b->r ? 0 : -ENOMEM;
}

void flightbuf_free(struct flightbuf *b)
{
	free(b->r);
	b->r = NULL;
}

/* (first + i) modulo the capacity for i <= cap, without a division (every
 * record goes through flightbuf_push) */
static inline size_t fb_idx(const struct flightbuf *b, size_t i)
{
	size_t x = b->first + i;

	return x >= b->cap ? x - b->cap : x;
}

int flightbuf_push(void *vb, const struct npuprof_record *r)
{
	struct flightbuf *b = vb;

	if (b->len == b->cap) {
		b->oldest_full_ts = b->r[b->first].hdr.ts;
		b->first = fb_idx(b, 1);
		b->len--;
		b->evicted_full++;
	}
	b->r[fb_idx(b, b->len)] = *r;
	b->len++;
	return 0;
}

void flightbuf_trim(struct flightbuf *b, uint64_t now)
{
	uint64_t from = now > b->keep_ns ? now - b->keep_ns : 0;

	while (b->len && b->r[b->first].hdr.ts < from) {
		b->first = fb_idx(b, 1);
		b->len--;
		b->evicted_old++;
	}
}

/* The program's host streams (append-only files) as they are now. */
static void copy_host(const char *from_dir, const char *to_dir)
{
	char from[4352], to[4352];
	struct dirent *e;
	DIR *d;

	snprintf(from, sizeof(from), "%s/host/data", from_dir);
	d = opendir(from);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		/* a path that does not fit is not copied (never a cut one) */
		if ((size_t)snprintf(from, sizeof(from), "%s/host/data/%s", from_dir, e->d_name) >=
			    sizeof(from) ||
		    (size_t)snprintf(to, sizeof(to), "%s/host/data/%s", to_dir, e->d_name) >=
			    sizeof(to))
			continue;
		fs_copy_file(from, to);
	}
	closedir(d);
}

/* Writes the whole dump into a new session directory under parent. */
static int dump_into(const char *parent, const struct flightbuf *b, uint64_t now,
		     const struct flight_dump_info *in, struct npuprof_session *s,
		     uint64_t *written, char *err, size_t errlen)
{
	struct npuprof_rawk_writer *w;
	uint64_t from = now > b->keep_ns ? now - b->keep_ns : 0, n = 0;
	char path[4352];
	int r;

	npuprof_session_init(s);
	s->pid = in->pid;
	snprintf(s->engine, sizeof(s->engine), "%s", in->engine);
	snprintf(s->cmd, sizeof(s->cmd), "%s", in->cmd ? in->cmd : "");
	s->sample_n = in->sample_n;
	s->capture_flags = in->flags;
	/* the session is the window the dump covers */
	if (b->len && b->r[b->first].hdr.ts > from)
		from = b->r[b->first].hdr.ts;
	if (s->start_monotonic_ns > from) {
		uint64_t back = s->start_monotonic_ns - from;

		s->start_monotonic_ns -= back;
		s->start_realtime_ns -= back;
	}
	if ((r = npuprof_session_create(s, parent, err, errlen)) < 0)
		return r;
	snprintf(path, sizeof(path), "%s/%s", s->dir, NPUPROF_KERNEL_RAW);
	if ((r = npuprof_rawk_create(&w, path, in->engine, in->sample_n, in->flags, err, errlen)) <
	    0)
		return r;
	npuprof_session_clock_sync(s, npuprof_rawk_append, w);
	for (size_t i = 0; i < b->len; i++) {
		const struct npuprof_record *rec = &b->r[fb_idx(b, i)];

		if (rec->hdr.ts < from)
			continue;
		npuprof_rawk_append(w, rec);
		n++;
	}
	npuprof_session_clock_sync(s, npuprof_rawk_append, w);
	if ((r = npuprof_rawk_close(w)) < 0) {
		snprintf(err, errlen, "%s: write failed: %s", path, strerror(-r));
		return r;
	}
	if (in->host_dir)
		copy_host(in->host_dir, s->dir);
	if (in->report) {
		struct atomic_file af;

		snprintf(path, sizeof(path), "%s/hang_report.txt", s->dir);
		if (atomic_file_open(&af, path, err, errlen) == 0) {
			fputs(in->report, af.f);
			if (atomic_file_commit(&af, err, errlen) < 0)
				fprintf(stderr, "npuprof: %s\n", err);
		}
	}
	s->written = n;
	s->dropped = in->stats.dropped;
	s->filtered = in->stats.filtered;
	s->sampled_out = in->stats.sampled_out;
	s->overwritten = in->stats.overwritten + b->evicted_full;
	if (written)
		*written = n;
	return npuprof_session_finish(s, err, errlen);
}

/*
 * A dump is built in a hidden staging directory, <parent>/.npuprof-dump-<pid>,
 * and renamed into parent only once it is whole: a recorder killed while
 * dumping leaves no PROF_* directory that looks finished (`npuprof export
 * parent` and readers of PROF_* never see the part), only the staging
 * directory, which the next dump of the same process reuses.
 */
int flight_dump(const struct flightbuf *b, uint64_t now, const struct flight_dump_info *in,
		struct npuprof_session *s, uint64_t *written, char *err, size_t errlen)
{
	char staging[4352], final[sizeof(s->dir)];
	const char *name;
	int r;

	if ((size_t)snprintf(staging, sizeof(staging), "%s/.npuprof-dump-%ld", in->parent,
			     (long)getpid()) >= sizeof(staging)) {
		snprintf(err, errlen, "%s: path too long", in->parent);
		return -ENAMETOOLONG;
	}
	if ((r = dump_into(staging, b, now, in, s, written, err, errlen)) < 0)
		return r;
	name = strrchr(s->dir, '/') + 1;
	if ((size_t)snprintf(final, sizeof(final), "%s/%s", in->parent, name) >= sizeof(final)) {
		snprintf(err, errlen, "%s/%s: path too long", in->parent, name);
		return -ENAMETOOLONG;
	}
	/* the name is fresh (random); a clash is refused, never merged into.
	 * Checked by hand: renameat2's RENAME_NOREPLACE is EINVAL on 9p and
	 * NFS, where a dump directory may well be */
	if (access(final, F_OK) == 0) {
		snprintf(err, errlen, "%s: already exists", final);
		return -EEXIST;
	}
	if (rename(s->dir, final) < 0) {
		r = -errno;
		snprintf(err, errlen, "%s: cannot move the dump into place: %s", final,
			 strerror(errno));
		return r;
	}
	snprintf(s->dir, sizeof(s->dir), "%s", final);
	rmdir(staging); /* empty now; kept if another dump of ours is in it */
	return 0;
}
