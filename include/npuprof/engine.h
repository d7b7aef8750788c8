/*
 * engine.h — the capture-engine interface of libnpuprof.
 *
 * A capture engine turns the NPU driver's trs_chan tracepoints into
 * struct npuprof_record (include/uapi/npuprof.h). Two exist: "kmod"
 * (npuprof.ko, /dev/npuprof) and "bpf" (BPF programs on the same
 * tracepoints). Both produce byte-identical records; tools reach them only
 * through struct npuprof_engine_ops, so adding an engine touches one file
 * and the table in engine.c.
 *
 * Opening an engine also turns on the driver's per-device trace switches
 * (/proc/trs_chan/dev<D>-ts<T>/trace_enable, the same files on a real Ascend
 * host and on npusim); closing restores what was there before.
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
	uint64_t ring_bytes; /* per CPU (kmod) or total (bpf); 0: default */
	uint32_t watermark; /* records; 0: a quarter of the ring */
	uint32_t pid; /* 0: every process (needs CAP_PERFMON) */
	uint32_t dev_mask; /* 0: all devices */
	uint32_t sample_n; /* keep 1 task in n; 0/1: all */
	uint32_t flags; /* NPUPROF_CFG_OVERWRITE, NPUPROF_CFG_NO_RECV */
	uint32_t nstreams; /* > 0: only these stream ids */
	const uint32_t *streams;
};

struct npuprof_engine;

/* Called for each record in timestamp order; a non-zero return stops. */
typedef int (*npuprof_record_fn)(void *ctx, const struct npuprof_record *r);

struct npuprof_engine_ops {
	const char *name;
	/* Returns 0, or -errno with a message in e->err. */
	int (*open)(struct npuprof_engine *e,
		    const struct npuprof_capture_opts *o);
	int (*start)(struct npuprof_engine *e);
	int (*stop)(struct npuprof_engine *e);
	/* Wait until records are ready: > 0 ready, 0 timeout, < 0 error. */
	int (*wait)(struct npuprof_engine *e, int timeout_ms);
	/* Deliver what is available now, merged across CPUs by timestamp.
	 * Returns the number delivered or -errno. */
	long (*read)(struct npuprof_engine *e, npuprof_record_fn fn, void *ctx);
	int (*stats)(struct npuprof_engine *e, struct npuprof_stats *st);
	void (*close)(struct npuprof_engine *e);
};

struct npuprof_engine {
	const struct npuprof_engine_ops *ops;
	void *priv;
	char err[NPUPROF_ENGINE_ERRLEN];
	/* trace_enable files switched on by open, with their old values */
	int nswitch;
	char switch_path[64][96];
	char switch_old[64];
	int switch_failed; /* switches that are off and could not be set */
};

/* Open engine "kmod", "bpf" or "auto" (the module when it is loaded, else
 * BPF). On failure returns -errno and writes a message into err. */
int npuprof_engine_open(struct npuprof_engine **out, const char *name,
			const struct npuprof_capture_opts *o, char *err,
			size_t errlen);
void npuprof_engine_close(struct npuprof_engine *e);

/* Turn every /proc/trs_chan/dev*-ts*\/trace_enable on, remembering each
 * one's value from the first time it was seen; call again to re-enable
 * switches of a driver that was reloaded. Returns how many are on; the ones
 * that are off and could not be set (no permission) are counted in
 * e->switch_failed. Restore puts the remembered values back. */
int npuprof_trace_switch_on(struct npuprof_engine *e);
void npuprof_trace_switch_restore(struct npuprof_engine *e);

/* The engines: one per engine_<name>.c, listed in engine.c. */
extern const struct npuprof_engine_ops npuprof_engine_kmod;
extern const struct npuprof_engine_ops npuprof_engine_bpf;

#ifdef __cplusplus
}
#endif
#endif
