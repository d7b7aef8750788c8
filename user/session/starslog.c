/*
 * starslog.c — draining the devices' profiling channels into a session
 * (starslog.h): the STARS SoC log and the AI Core frequency's.
 */
#include "starslog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device.h"
#include "fsutil.h"
#include "uapi/npusim.h"

/* the ring each device's channel gets: 128 Ki records (8 MiB), 0.4 s of a
 * device at 150,000 tasks/s between two ticks of the capture loop */
#define STARSLOG_RING 131072
#define STARSLOG_BUF (4096 * 64) /* bytes per read */
/* channel 132's reads: whole 888-byte records, as many as fit the buffer */
#define LPLOG_BUF (STARSLOG_BUF / NPUSIM_LP_RECORD_SIZE * NPUSIM_LP_RECORD_SIZE)

/* What each channel is: its file, how it starts, reads and stops, and what
 * a device without it loses. */
static const struct chan_desc {
	const char *file; /* under device_<N>/ */
	const char *what; /* for the warnings */
	const char *loss;
	uint32_t buf; /* bytes per read */
} g_chan[STARSLOG_CHANS] = {
	[STARSLOG_STARS] = { NPUPROF_STARS_SOC_FILE, "the STARS SoC log (profiling channel 50)",
			     "its task times will be derived from completions", STARSLOG_BUF },
	[STARSLOG_LP] = { NPUPROF_LPM_FREQ_FILE,
			  "the AI Core frequency's channel (profiling channel 132)",
			  "its AI Core frequency changes will not be recorded", LPLOG_BUF },
};

static int chan_start(const struct starslog *l, int ch, uint32_t devid)
{
	return ch == STARSLOG_LP ? l->b->lp_start(devid, NPUPROF_LP_PERIOD_MS) :
				   l->b->stars_start(devid, STARSLOG_RING);
}

static int chan_read(const struct starslog *l, struct starslog_dev *d)
{
	return d->ch == STARSLOG_LP ?
		       l->b->lp_read(d->h, l->buf, g_chan[d->ch].buf, &d->records, &d->dropped) :
		       l->b->stars_read(d->h, l->buf, g_chan[d->ch].buf, &d->records, &d->dropped);
}

/* Start channel ch of device devid into a temporary file, as l->dev's next
 * entry; a device where it cannot start is told on l->warn. */
static void start_dev(struct starslog *l, const struct npuprof_session *s, int ch, uint32_t devid)
{
	struct starslog_dev *d = &l->dev[l->ndev];
	const struct chan_desc *c = &g_chan[ch];
	const char *base = strrchr(c->file, '/') + 1;
	char dir[4400];
	int h;

	memset(d, 0, sizeof(*d));
	d->devid = devid;
	d->ch = ch;
	d->h = d->fd = -1;
	snprintf(d->path, sizeof(d->path), "%s/device_%u/%s", s->dir, d->devid, c->file);
	snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(d->path, '/') - d->path), d->path);
	snprintf(d->tmp, sizeof(d->tmp), "%s/.%s.tmp", dir, base);
	if (npuprof_mkdirs(dir, 0755) < 0 ||
	    (d->fd = open(d->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		fprintf(l->warn, "%s: warning: %s: %s: device %u: %s\n", l->who, d->tmp,
			strerror(errno), d->devid, c->loss);
		return;
	}
	h = chan_start(l, ch, d->devid);
	if (h < 0) {
		fprintf(l->warn, "%s: warning: device %u: %s cannot be started: %s%s; %s\n", l->who,
			d->devid, c->what, strerror(-h),
			h == -EBUSY ? " (another profiler reads it)" : "", c->loss);
		close(d->fd);
		unlink(d->tmp);
		return;
	}
	d->h = h;
	l->ndev++;
}

void starslog_start(struct starslog *l, const struct npuprof_session *s, const char *who,
		    FILE *warn, int lp)
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
		start_dev(l, s, STARSLOG_STARS, s->dev[i].id);
		if (lp && l->b->lp_start)
			start_dev(l, s, STARSLOG_LP, s->dev[i].id);
	}
}

static void drain_dev(struct starslog *l, struct starslog_dev *d)
{
	for (;;) {
		int n = chan_read(l, d);

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
		if ((uint32_t)n < g_chan[d->ch].buf)
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
		int r = d->ch == STARSLOG_LP ? l->b->lp_stop(d->h) : l->b->stars_stop(d->h);

		if (r < 0 && !d->err)
			d->err = r;
		if (d->ch == STARSLOG_STARS) {
			s->stars_records += d->records;
			s->stars_dropped += d->dropped;
		} else if (d->dropped && l->warn) {
			fprintf(l->warn,
				"%s: warning: device %u: the AI Core frequency's channel dropped "
				"%llu changes (its ring was full)\n",
				l->who, d->devid, (unsigned long long)d->dropped);
		}
		if (fsync(d->fd) < 0 && !d->err)
			d->err = -errno;
		if (close(d->fd) < 0 && !d->err)
			d->err = -errno;
		if (rename(d->tmp, d->path) < 0 && !d->err)
			d->err = -errno;
		if (d->err && !ret) {
			ret = d->err;
			snprintf(err, errlen, "device %u: %s: %s (%llu bytes kept in %s)", d->devid,
				 g_chan[d->ch].what, strerror(-d->err),
				 (unsigned long long)d->bytes, d->path);
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
