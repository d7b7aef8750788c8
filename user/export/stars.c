/*
 * stars.c — see stars.h.
 */
#include "stars.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"
#include "u64map.h"
#include "uapi/npusim.h"

_Static_assert(sizeof(struct npusim_stars_acsq) == NPUSIM_STARS_RECORD_SIZE, "acsq record");

#define REC NPUSIM_STARS_RECORD_SIZE
#define CHUNK (1024 * REC) /* bytes per read */
#define FUNC_MASK 0x3f /* head bits 0-5 */

struct stars_reader {
	int fd; /* -1: a buffer */
	char path[4096];
	const unsigned char *data; /* bytes not yet decoded */
	size_t len;
	uint64_t off; /* file offset of data */
	unsigned char *buf; /* a file's chunk */
	int eof, done;
	struct u64map open; /* stream << 16 | task id -> START counter */
	struct stars_task ready; /* the task the last END closed */
	int have;
	uint64_t last_end;
	struct stars_stats st;
};

static int reader_new(struct stars_reader **out)
{
	struct stars_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->fd = -1;
	u64map_init(&r->open);
	*out = r;
	return 0;
}

int stars_open(struct stars_reader **out, const char *path, char *err, size_t errlen)
{
	struct stars_reader *r = NULL;

	if (reader_new(&r) < 0 || !(r->buf = malloc(CHUNK))) {
		stars_close(r);
		npuprof_seterr(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		int e = errno;

		npuprof_seterr(err, errlen, "%s: %s", path, strerror(e));
		stars_close(r);
		return -e;
	}
	r->data = r->buf;
	*out = r;
	return 0;
}

int stars_open_buffer(struct stars_reader **out, const void *buf, size_t len)
{
	struct stars_reader *r = NULL;

	if (reader_new(&r) < 0)
		return -ENOMEM;
	snprintf(r->path, sizeof(r->path), "(buffer)");
	r->data = buf;
	r->len = len;
	r->eof = 1;
	*out = r;
	return 0;
}

/* At least one whole record at r->data, unless the file ends first. */
static int refill(struct stars_reader *r, char *err, size_t errlen)
{
	if (r->eof)
		return 0;
	memmove(r->buf, r->data, r->len); /* a record cut by the last read */
	r->data = r->buf;
	while (r->len < CHUNK) {
		ssize_t n = read(r->fd, r->buf + r->len, CHUNK - r->len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			npuprof_seterr(err, errlen, "%s: offset %llu: %s", r->path,
				       (unsigned long long)(r->off + r->len), strerror(e));
			return -e;
		}
		if (n == 0) {
			r->eof = 1;
			break;
		}
		r->len += (size_t)n;
	}
	return 0;
}

/* One record: a START opens its key, an END closes it into r->ready. */
static int pair(struct stars_reader *r, const struct npusim_stars_acsq *a)
{
	uint64_t key = (uint64_t)a->stream_id << 16 | a->task_id, start;
	struct stars_task t;
	int ret;

	r->st.records++;
	switch (a->head & FUNC_MASK) {
	case NPUSIM_STARS_FUNC_START:
		ret = u64map_swap(&r->open, key, a->sys_cnt, &start);
		if (ret == 1)
			r->st.unended++; /* started again: the first never ended */
		return ret < 0 ? ret : 0;
	case NPUSIM_STARS_FUNC_END: break;
	default: r->st.unknown++; return 0;
	}
	if (!u64map_get(&r->open, key, &start)) {
		r->st.unstarted++;
		return 0;
	}
	u64map_del(&r->open, key);
	if (a->sys_cnt < start) {
		r->st.backwards++;
		return 0;
	}
	t.stream_id = a->stream_id;
	t.task_id = a->task_id;
	t.sqe_type = a->head >> 10 & 0x3f;
	t.sq_id = a->acc >> 6 & 0x7f;
	t.acc_id = a->acc & 0x3f;
	t.start_cnt = start;
	t.end_cnt = a->sys_cnt;
	r->ready = t;
	r->have = 1;
	return 0;
}

int stars_next(struct stars_reader *r, struct stars_task *t, char *err, size_t errlen)
{
	struct npusim_stars_acsq a;
	int ret;

	while (!r->done && !r->have) {
		if (r->len < REC && (ret = refill(r, err, errlen)) < 0)
			return ret;
		if (r->len < REC) {
			/* the end: what is left is a partial record, what is
			 * open never ended */
			r->done = 1;
			if (r->len) {
				r->st.tail_bytes = r->len;
				r->st.tail_offset = r->off;
			}
			r->st.unended += r->open.len;
			u64map_free(&r->open);
			break;
		}
		memcpy(&a, r->data, REC);
		r->data += REC;
		r->len -= REC;
		r->off += REC;
		if ((ret = pair(r, &a)) < 0) {
			npuprof_seterr(err, errlen, "%s: out of memory", r->path);
			return ret;
		}
	}
	if (!r->have)
		return 0;
	*t = r->ready;
	r->have = 0;
	if (r->st.tasks && t->end_cnt < r->last_end)
		r->st.late++;
	else
		r->last_end = t->end_cnt;
	r->st.tasks++;
	return 1;
}

const struct stars_stats *stars_stats(const struct stars_reader *r)
{
	return &r->st;
}

void stars_close(struct stars_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	u64map_free(&r->open);
	free(r);
}
