/*
 * dev_noclock.c - the device backend for a host whose driver gives us no
 * device clock: the real Ascend driver shows a tracer its devices only as
 * trace-switch directories /proc/trs_chan/dev<N>-ts0 and has no clock-sync
 * ioctl of ours. Devices are those directories (a 910B's counter runs at
 * 50 MHz); clock sync yields no samples, so export derives task times from
 * the kernel view and says so.
 */
#include "device.h"

#include <glob.h>
#include <stdio.h>
#include <string.h>

static int noclock_enumerate(struct npuprof_device_info *dev, int cap)
{
	glob_t g;
	int found = 0;

	if (glob("/proc/trs_chan/dev*-ts0", 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc && found < cap; i++) {
		unsigned id;

		if (sscanf(strrchr(g.gl_pathv[i], '/') + 1, "dev%u-ts0", &id) == 1) {
			struct npuprof_device_info *sd = &dev[found++];

			memset(sd, 0, sizeof(*sd));
			sd->id = id;
			snprintf(sd->chip, sizeof(sd->chip), "Ascend910B");
			sd->counter_hz = 50000000;
		}
	}
	globfree(&g);
	return found;
}

static int noclock_sync(uint32_t devid, struct npuprof_clock_sample *s, int n)
{
	return 0;
}

const struct npuprof_device_backend npuprof_device_noclock = {
	.name = "noclock",
	.enumerate = noclock_enumerate,
	.clock_sync = noclock_sync,
};
