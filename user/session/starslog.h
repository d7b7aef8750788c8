/*
 * starslog.h — the STARS SoC log of a session's devices (and, when the
 * session records AI Core metrics, the AI Core frequency's channel, 132,
 * the same way): profiling channel 50 of each device, started when the capture starts, drained on every tick
 * of the capture loop into device_<N>/data/stars_soc.data (a temporary until
 * the end, then renamed), stopped at the end. The export takes the session's
 * task times from these files (user/export): the kernel stream has none.
 * Both captures drain it: `npuprof record` and a session that the
 * application starts through the profiling API (the recorder's), so this
 * file is libc only.
 */
#ifndef NPUPROF_STARSLOG_H
#define NPUPROF_STARSLOG_H

#include <stdint.h>
#include <stdio.h>

#include "npuprof/session.h"

struct npuprof_device_backend;

/* the channels: the STARS SoC log (50) and the AI Core frequency's (132) */
enum {
	STARSLOG_STARS,
	STARSLOG_LP,
	STARSLOG_CHANS
};

/* the period the AI Core frequency's channel is started with, ms (msprof's
 * ProfLpmFreqConvJob: DEFAULT_INTERVAL, hicann/oam-tools
 * src/msprof/collector/dvvp/common/config/config.h 132) */
#define NPUPROF_LP_PERIOD_MS 100

struct starslog_dev {
	uint32_t devid;
	int ch; /* STARSLOG_STARS, STARSLOG_LP */
	int h; /* the backend's handle; < 0: not running */
	int fd; /* the temporary file; < 0: none */
	int err; /* the first write or read error (-errno) */
	uint64_t records, dropped; /* the channel's counts at the last read */
	uint64_t bytes; /* written to the file */
	char tmp[4480], path[4480];
};

struct starslog {
	const struct npuprof_device_backend *b;
	int ndev;
	struct starslog_dev dev[NPUPROF_MAX_SESSION_DEVICES * STARSLOG_CHANS];
	void *buf;
	const char *who; /* the warnings' prefix: "npuprof record", "npuprof" */
	FILE *warn;
};

/* Start the log of every device of session s that has one and, with lp
 * (the session records AI Core metrics: msprof's ai_core_lpm), its AI Core
 * frequency's channel (132) into device_<N>/data/lpmFreqConv.data. A
 * device whose log cannot be started (another reader has it, no driver
 * support) is told on warn, each line prefixed with who, and left out: the
 * export then derives its task times from submits and completions (and
 * writes its AI Core frequency at the start and the end only). */
void starslog_start(struct starslog *l, const struct npuprof_session *s, const char *who,
		    FILE *warn, int lp);
/* Move what the devices have logged into the files. */
void starslog_drain(struct starslog *l);
/* Drain, stop, and rename each file into place; the counts go to s, and
 * records the channels dropped (their rings were full) are warned about.
 * Returns 0, or -errno of the first failure, described in err. */
int starslog_finish(struct starslog *l, struct npuprof_session *s, char *err, size_t errlen);

#endif
