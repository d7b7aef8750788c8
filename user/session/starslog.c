/*
 * starslog.c — draining the devices' STARS SoC logs into a session
 * (starslog.h).
 */
#include "starslog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device.h"
#include "fsutil.h"

/* the ring each device's channel gets: 128 Ki records (8 MiB), 0.4 s of a
 * device at 150,000 tasks/s between two ticks of the capture loop */
#define STARSLOG_RING 131072
#define STARSLOG_BUF (4096 * 64) /* bytes per read */

void starslog_start(struct starslog *l, const struct npuprof_session *s, const char *who,
		    FILE *warn)
{
	memset(l, 0, sizeof(*l));
	l->who = who;
	l->warn = warn;
	l->b = npuprof_device_find(s->device_backend);
	if (!l->b || !l->b->stars_start)
		return;
	l->buf = malloc(STARSLOG_BUF);
	if (!l->buf) {
		fprintf(warn,
			"%s: warning: no memory for the STARS SoC log: "
			"task times will be derived from completions\n",
			who);
		return;
	}
	for (int i = 0; i < s->ndev; i++) {
		struct starslog_dev *d = &l->dev[l->ndev];
		char dir[4400];
		const char *base = strrchr(NPUPROF_STARS_SOC_FILE, '/') + 1;
		int h;

		memset(d, 0, sizeof(*d));
		d->devid = s->dev[i].id;
		d->h = d->fd = -1;
		snprintf(d->path, sizeof(d->path), "%s/device_%u/" NPUPROF_STARS_SOC_FILE, s->dir,
			 d->devid);
		snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(d->path, '/') - d->path), d->path);
		snprintf(d->tmp, sizeof(d->tmp), "%s/.%s.tmp", dir, base);
		if (npuprof_mkdirs(dir, 0755) < 0 ||
		    (d->fd = open(d->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
			fprintf(warn,
				"%s: warning: %s: %s: device %u's task times will be derived "
				"from completions\n",
				who, d->tmp, strerror(errno), d->devid);
			continue;
		}
		h = l->b->stars_start(d->devid, STARSLOG_RING);
		if (h < 0) {
			fprintf(warn,
				"%s: warning: device %u: the STARS SoC log (profiling "
				"channel 50) cannot be started: %s%s; its task times will be derived "
				"from completions\n",
				who, d->devid, strerror(-h),
				h == -EBUSY ? " (another profiler reads it)" : "");
			close(d->fd);
			unlink(d->tmp);
			continue;
		}
		d->h = h;
		l->ndev++;
	}
}

static void drain_dev(struct starslog *l, struct starslog_dev *d)
{
	for (;;) {
		int n = l->b->stars_read(d->h, l->buf, STARSLOG_BUF, &d->records, &d->dropped);

		if (n <= 0) {
			if (n < 0 && !d->err)
				d->err = n;
			return;
		}
		if (!d->err) {
			int r = fs_write_all(d->fd, l->buf, (size_t)n);

			if (r < 0)
				d->err = r;
			else
				d->bytes += (uint64_t)n;
		}
		if (n < STARSLOG_BUF)
			return;
	}
}

void starslog_drain(struct starslog *l)
{
	for (int i = 0; i < l->ndev; i++)
		drain_dev(l, &l->dev[i]);
}

int starslog_finish(struct starslog *l, struct npuprof_session *s, char *err, size_t errlen)
{
	int ret = 0;

	err[0] = 0;
	starslog_drain(l);
	for (int i = 0; i < l->ndev; i++) {
		struct starslog_dev *d = &l->dev[i];
		int r = l->b->stars_stop(d->h);

		if (r < 0 && !d->err)
			d->err = r;
		s->stars_records += d->records;
		s->stars_dropped += d->dropped;
		if (fsync(d->fd) < 0 && !d->err)
			d->err = -errno;
		if (close(d->fd) < 0 && !d->err)
			d->err = -errno;
		if (rename(d->tmp, d->path) < 0 && !d->err)
			d->err = -errno;
		if (d->err && !ret) {
			ret = d->err;
			snprintf(err, errlen,
				 "device %u: the STARS SoC log: %s (%llu bytes kept in %s)",
				 d->devid, strerror(-d->err), (unsigned long long)d->bytes,
				 d->path);
		}
	}
	if (s->stars_dropped && l->warn)
		fprintf(l->warn,
			"%s: warning: the devices' STARS SoC logs dropped %llu of %llu "
			"records (their rings were full): those tasks' times are derived\n",
			l->who, (unsigned long long)s->stars_dropped,
			(unsigned long long)(s->stars_records + s->stars_dropped));
	free(l->buf);
	l->buf = NULL;
	l->ndev = 0;
	return ret;
}
