/*
 * engine.h — the capture-engine interface of libnpuprof.
 *
 * A capture engine delivers struct npuprof_record (include/uapi/npuprof.h).
 * Three exist: "kmod" (npuprof.ko, /dev/npuprof) and "bpf" (BPF programs on
 * the same trs_chan tracepoints) turn the NPU driver's tracepoints into
 * byte-identical records; "file" replays a saved raw kernel stream
 * (npuprof/rawkern.h) on its own clock, so live, top and watch run anywhere
 * on a recording. Tools reach them only through struct npuprof_engine_ops,
 * so adding an engine touches one file and the table in engine.c
 * (user/capture).
 *
 * Opening a driver engine also turns on the driver's per-device trace
 * switches (/proc/trs_chan/dev<D>-ts<T>/trace_enable, the same files on a
 * real Ascend host and on npusim); closing restores what was there before.
 */
#ifndef NPUPROF_ENGINE_H
#define NPUPROF_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include "uapi/npuprof.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NPUPROF_ENGINE_ERRLEN 512

struct npuprof_capture_opts {
	uint64_t ring_bytes; /* per CPU, every engine; 0: the engine's default */
	uint32_t watermark; /* records; 0: a quarter of the ring */
	uint32_t pid; /* 0: every process (needs CAP_PERFMON) */
	uint32_t dev_mask; /* 0: all devices */
	uint32_t sample_n; /* keep 1 task in n; 0/1: all */
	uint32_t flags; /* NPUPROF_CFG_OVERWRITE, NPUPROF_CFG_NO_RECV */
	uint32_t nstreams; /* > 0: only these stream ids */
	const uint32_t *streams;
	/* engine "file": the raw kernel stream to replay, and the stream time
	 * its clock runs to (the capture's end; 0: its last record) */
	const char *source;
	uint64_t source_end_ns;
};

struct npuprof_engine;

/* Called for each record in timestamp order; a non-zero return stops. */
typedef int (*npuprof_record_fn)(void *ctx, const struct npuprof_record *r);

struct npuprof_engine_ops {
	const char *name;
	/* Returns 0, or -errno with a message in e->err. */
	int (*open)(struct npuprof_engine *e, const struct npuprof_capture_opts *o);
	int (*start)(struct npuprof_engine *e);
	int (*stop)(struct npuprof_engine *e);
	/* Wait until records are ready: > 0 ready, 0 timeout, < 0 error;
	 * -ENODATA: the source has ended (file), nothing more will come. */
	int (*wait)(struct npuprof_engine *e, int timeout_ms);
	/* Deliver what is available now, merged across CPUs by timestamp.
	 * Returns the number delivered or -errno. */
	long (*read)(struct npuprof_engine *e, npuprof_record_fn fn, void *ctx);
	int (*stats)(struct npuprof_engine *e, struct npuprof_stats *st);
	void (*close)(struct npuprof_engine *e);
	/* Optional: the engine's clock, CLOCK_MONOTONIC ns of the records it
	 * delivers (a replay's stream time). NULL: the host's CLOCK_MONOTONIC. */
	uint64_t (*now)(struct npuprof_engine *e);
	/* 1: reads the driver's tracepoints, so its trace switches apply */
	int driver;
};

struct npuprof_engine {
	const struct npuprof_engine_ops *ops;
	void *priv;
	char err[NPUPROF_ENGINE_ERRLEN];
};

/* Open engine "kmod", "bpf", "file" (o->source) or "auto" (the module when
 * it is loaded, else BPF). On failure returns -errno and writes a message
 * into err. */
int npuprof_engine_open(struct npuprof_engine **out, const char *name,
			const struct npuprof_capture_opts *o, char *err, size_t errlen);
void npuprof_engine_close(struct npuprof_engine *e);

/* The engine's clock: ops->now, else the host's CLOCK_MONOTONIC (also when
 * e is NULL). */
uint64_t npuprof_engine_now(struct npuprof_engine *e);

/* A driver engine turns the driver's trace switches on when it opens; call
 * this again to re-enable those of a driver that was reloaded. Returns how
 * many are on (0 for an engine that does not read the driver). */
int npuprof_engine_rearm(struct npuprof_engine *e);
/* Switches that are off and could not be turned on (no permission): those
 * devices report nothing. */
int npuprof_engine_switches_failed(const struct npuprof_engine *e);
/* Say on stderr which switches are off (see trace_switch_warn); captured is
 * how many records the capture has delivered so far. */
void npuprof_engine_warn_switches(const struct npuprof_engine *e, const char *tool,
				  uint64_t captured);

/* The engines: one per engine_<name>.c, listed in engine.c. */
extern const struct npuprof_engine_ops npuprof_engine_kmod;
extern const struct npuprof_engine_ops npuprof_engine_bpf;
extern const struct npuprof_engine_ops npuprof_engine_file;

#ifdef __cplusplus
}
#endif
#endif
