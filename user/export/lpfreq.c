/*
 * lpfreq.c — see lpfreq.h.
 */
#include "lpfreq.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"
#include "uapi/npusim.h"

#define REC NPUSIM_LP_RECORD_SIZE

_Static_assert(sizeof(struct npusim_lp_record) == REC, "lp record");

static int push(struct lpfreq_entry **e, size_t *n, uint64_t cnt, uint32_t freq)
{
	/* grow at powers of two */
	if ((*n & (*n - 1)) == 0) {
		size_t cap = *n ? *n * 2 : 16;
		struct lpfreq_entry *p = realloc(*e, cap * sizeof(**e));

		if (!p)
			return -ENOMEM;
		*e = p;
	}
	(*e)[*n].sys_cnt = cnt;
	(*e)[*n].freq = freq;
	(*n)++;
	return 0;
}

int lpfreq_decode(const void *buf, size_t len, struct lpfreq_entry **e, size_t *n,
		  struct lpfreq_stats *st)
{
	const unsigned char *p = buf;
	struct npusim_lp_record r;

	for (; len >= REC; p += REC, len -= REC) {
		memcpy(&r, p, REC);
		st->records++;
		if (r.count > NPUSIM_LP_ENTRIES) {
			st->bad_records++;
			continue;
		}
		for (uint32_t i = 0; i < r.count; i++) {
			if (!r.entry[i].freq) {
				st->bad_entries++;
				continue;
			}
			if (push(e, n, r.entry[i].sys_cnt, r.entry[i].freq) < 0)
				return -ENOMEM;
			st->entries++;
		}
	}
	st->tail_bytes += len;
	return 0;
}

int lpfreq_read(const char *path, struct lpfreq_entry **e, size_t *n, struct lpfreq_stats *st,
		char *err, size_t errlen)
{
	unsigned char *buf = malloc(64 * REC);
	size_t have = 0;
	int fd, ret = 0;

	if (!buf) {
		npuprof_seterr(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		npuprof_seterr(err, errlen, "%s: %s", path, strerror(-ret));
		free(buf);
		return ret;
	}
	for (;;) {
		ssize_t r = read(fd, buf + have, 64 * REC - have);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			npuprof_seterr(err, errlen, "%s: %s", path, strerror(-ret));
			break;
		}
		have += (size_t)r;
		if (r == 0 || have == 64 * REC) {
			size_t whole = r == 0 ? have : have / REC * REC;

			if (lpfreq_decode(buf, whole, e, n, st) < 0) {
				ret = -ENOMEM;
				npuprof_seterr(err, errlen, "%s: out of memory", path);
				break;
			}
			memmove(buf, buf + whole, have - whole);
			have -= whole;
		}
		if (r == 0)
			break;
	}
	close(fd);
	free(buf);
	return ret;
}

size_t lpfreq_rows(uint32_t start_freq, int64_t start_ns, int64_t end_ns, struct lpfreq_row *c,
		   size_t n, struct lpfreq_row *out, uint64_t *after_end)
{
	uint32_t freq = start_freq;
	size_t k = 1;

	*after_end = 0;
	/* stable insertion sort: the channel's entries come nearly in order */
	for (size_t i = 1; i < n; i++) {
		struct lpfreq_row v = c[i];
		size_t j = i;

		for (; j > 0 && c[j - 1].ns > v.ns; j--)
			c[j] = c[j - 1];
		c[j] = v;
	}
	for (size_t i = 0; i < n; i++) {
		if (c[i].ns < start_ns) {
			freq = c[i].freq; /* before the start: the start's */
			continue;
		}
		if (end_ns > start_ns && c[i].ns > end_ns) {
			(*after_end)++;
			continue;
		}
		out[k++] = c[i];
	}
	out[0].ns = start_ns;
	out[0].freq = freq;
	if (end_ns > start_ns) {
		out[k].ns = end_ns;
		out[k].freq = out[k - 1].freq;
		k++;
	}
	return k;
}
