/*
 * device.h - the device-backend interface of libnpuprof: what the profiler
 * core needs to know about the NPUs of this host, whoever drives them.
 *
 * A backend enumerates the devices (id, chip, counter frequency, AI cores)
 * and, where the driver offers one, takes clock-sync samples (host
 * CLOCK_MONOTONIC, device counter) from which export fits each device's
 * clock. Two exist: "npusim" (the simulated driver's /dev/npusim<N> and its
 * CLOCK_SYNC ioctl) and "noclock" (a driver that shows its devices only
 * through /proc/trs_chan/dev<N>-ts0, as the real Ascend driver does to a
 * tracer, and has no clock-sync source we can use). Capture engines are the
 * other interface (npuprof/engine.h); the session (user/export/session.c)
 * reaches devices only through this one. Adding a backend touches this
 * folder: one dev_<name>.c and the table in device.c.
 */
#ifndef NPUPROF_DEVICE_H
#define NPUPROF_DEVICE_H

#include <stdint.h>

struct npuprof_device_info {
	uint32_t id;
	char chip[32];
	uint64_t counter_hz; /* device counter frequency; 0: unknown */
	uint32_t aicore_num; /* 0: unknown */
	uint32_t aicore_mhz; /* the AI Core's rated frequency (halGetDeviceInfo's
			      * MODULE_TYPE_AICORE, INFO_TYPE_FREQUE, which msprof
			      * writes to info.json aic_frequency); 0: unknown */
};

struct npuprof_clock_sample {
	uint64_t host_ns; /* CLOCK_MONOTONIC */
	uint64_t dev_cnt; /* device counter at the same moment */
};

struct npuprof_device_backend {
	const char *name;
	/* Fills up to cap entries of dev; returns how many devices this backend
	 * sees (0: none, the backend does not apply to this host). */
	int (*enumerate)(struct npuprof_device_info *dev, int cap);
	/* Takes up to n samples of device devid into s; returns how many, 0 if
	 * the device has no clock-sync source, or a negative errno. */
	int (*clock_sync)(uint32_t devid, struct npuprof_clock_sample *s, int n);
	/* The device's task-time log, a 910B's STARS SoC log (profiling
	 * channel 50; NULL: the backend has none). stars_start starts it on
	 * device devid with a ring of ring_records (0: the driver's default)
	 * and returns a handle >= 0 or -errno (-EBUSY: another reader has
	 * it); stars_read copies the whole 64-byte ACSQ_TASK records there are
	 * (struct npusim_stars_acsq, uapi/npusim.h) into buf and returns their
	 * bytes (0: none yet), with the records written and dropped since the
	 * start; stars_stop stops it and frees the handle. */
	int (*stars_start)(uint32_t devid, uint32_t ring_records);
	int (*stars_read)(int h, void *buf, uint32_t len, uint64_t *records, uint64_t *dropped);
	int (*stars_stop)(int h);
	/* The AI Core frequency's changes, a 910B's low-power channel
	 * (CHANNEL_LP, 132; NULL: the backend has none), started with the
	 * collector's config period (ms); read and stop as the STARS log's,
	 * whole 888-byte records (struct npusim_lp_record, uapi/npusim.h),
	 * the counts being records closed and entries dropped. */
	int (*lp_start)(uint32_t devid, uint32_t period);
	int (*lp_read)(int h, void *buf, uint32_t len, uint64_t *records, uint64_t *dropped);
	int (*lp_stop)(int h);
};

/* The backends, one per dev_<name>.c. */
extern const struct npuprof_device_backend npuprof_device_npusim;
extern const struct npuprof_device_backend npuprof_device_noclock;

/* The backend in charge of this host: the first in the table (npusim, then
 * noclock) that sees a device; noclock when none does. The result is
 * written to the session, and npuprof_device_find() returns it again at
 * clock-sync time. */
const struct npuprof_device_backend *npuprof_device_probe(void);
/* The backend called `name`; NULL if there is none. */
const struct npuprof_device_backend *npuprof_device_find(const char *name);

#endif
