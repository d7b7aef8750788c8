/*
 * dev_npusim.c - the device backend of the simulated driver: devices are
 * /dev/npusim<N> (npusim_dev.h), clock sync is its CLOCK_SYNC ioctl, the
 * STARS SoC log its profiling channel 50 (NPUSIM_IOC_PROF_*).
 */
#include "device.h"
#include "npusim_dev.h"

#include <stdio.h>
#include <unistd.h>

static int npusim_enumerate(struct npuprof_device_info *dev, int cap)
{
	int n = npusim_dev_count(), found = 0;

	for (int d = 0; d < n && found < cap; d++) {
		struct npusim_dev_info info;
		int fd = npusim_dev_open((unsigned)d);

		if (fd < 0)
			continue;
		if (npusim_dev_info(fd, &info) == 0) {
			struct npuprof_device_info *sd = &dev[found++];

			sd->id = info.devid;
			snprintf(sd->chip, sizeof(sd->chip), "%.31s", info.chip_name);
			sd->counter_hz = info.counter_hz;
			sd->aicore_num = info.aicore_num;
			sd->aicore_mhz = info.aicore_mhz;
		}
		close(fd);
	}
	return found;
}

static int npusim_sync(uint32_t devid, struct npuprof_clock_sample *s, int n)
{
	struct npusim_clock_sample cs[4];
	int fd, r, k;

	if (n <= 0)
		return 0;
	fd = npusim_dev_open(devid);
	if (fd < 0)
		return fd;
	if (n > 4)
		n = 4;
	r = npusim_clock_sync(fd, cs, (uint32_t)n);
	close(fd);
	if (r < 0)
		return r;
	for (k = 0; k < n; k++) {
		s[k].host_ns = cs[k].host_ns;
		s[k].dev_cnt = cs[k].dev_cnt;
	}
	return n;
}

/* The STARS SoC log: the handle is the device file that started it (the
 * driver stops the channel when that file closes). */
static int npusim_stars_start(uint32_t devid, uint32_t ring_records)
{
	int fd = npusim_dev_open(devid), r;

	if (fd < 0)
		return fd;
	r = npusim_prof_start(fd, ring_records);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

static int npusim_stars_read(int h, void *buf, uint32_t len, uint64_t *records, uint64_t *dropped)
{
	return npusim_prof_read(h, buf, len, records, dropped);
}

static int npusim_stars_stop(int h)
{
	int r = npusim_prof_stop(h);

	close(h);
	return r;
}

/* The AI Core frequency's channel (132): the handle is its file too. */
static int npusim_lp_start_dev(uint32_t devid, uint32_t period)
{
	struct npusim_lp_config cfg = { .period = period, .version = NPUSIM_LP_CONFIG_VERSION };
	int fd = npusim_dev_open(devid), r;

	if (fd < 0)
		return fd;
	r = npusim_lp_start(fd, &cfg);
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

static int npusim_lp_read_dev(int h, void *buf, uint32_t len, uint64_t *records, uint64_t *dropped)
{
	return npusim_chan_read(h, NPUSIM_PROF_CHANNEL_LP, buf, len, records, dropped);
}

static int npusim_lp_stop_dev(int h)
{
	int r = npusim_chan_stop(h, NPUSIM_PROF_CHANNEL_LP);

	close(h);
	return r;
}

const struct npuprof_device_backend npuprof_device_npusim = {
	.name = "npusim",
	.enumerate = npusim_enumerate,
	.clock_sync = npusim_sync,
	.stars_start = npusim_stars_start,
	.stars_read = npusim_stars_read,
	.stars_stop = npusim_stars_stop,
	.lp_start = npusim_lp_start_dev,
	.lp_read = npusim_lp_read_dev,
	.lp_stop = npusim_lp_stop_dev,
};
