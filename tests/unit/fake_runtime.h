/*
 * fake_runtime.h - a stand-in for the runtime and the driver library in
 * host unit tests of the profiling library.
 *
 * The profiling library finds rtProfilerTraceEx, rtsStreamGetAttribute
 * and rtCacheLastTaskOpInfo by dlopen("libruntime.so") and drvGetDevNum by
 * dlopen("libascend_hal.so"), as CANN's does (user/recorder/rtplugin.h).
 * On the host there is no device for the real ones, so a test links
 * stand-ins with those sonames (tests/build.mk: FAKE_RT, FAKE_HAL), which
 * the library's dlopen then finds loaded, and steers them through
 * fake_rt. The real runtime is tested in the VM (tests/vm/).
 */
#ifndef NPUPROF_FAKE_RUNTIME_H
#define NPUPROF_FAKE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#define FAKE_RT_MAX_LAUNCH 64

struct fake_rt_launch {
	void *stream;
	uint64_t index, model;
	uint16_t tag;
};

struct fake_rt {
	int refuse; /* the runtime refuses every trace task (no live stream) */
	int launch_fail; /* rtProfilerTraceEx fails */
	uint32_t devcount; /* drvGetDevNum's answer */
	int devcount_fail; /* drvGetDevNum fails */
	int cache_switch; /* streams cache op info: 0, 1, or -1 (the query fails) */
	int cache_fail; /* rtCacheLastTaskOpInfo fails */
	int ncache; /* rtCacheLastTaskOpInfo calls */
	size_t cache_size; /* the last call's size, and its first bytes: */
	unsigned char cache[512];
	int nlaunch; /* rtProfilerTraceEx calls taken */
	struct fake_rt_launch launch[FAKE_RT_MAX_LAUNCH];
};

extern struct fake_rt fake_rt;

/* Back to a runtime that refuses trace tasks, with 0 devices. */
void fake_rt_reset(void);

#endif /* NPUPROF_FAKE_RUNTIME_H */
