/*
 * rt_ctx.h - what rt_ctx.c (contexts) and rt_misc.c (the CANN API beyond
 * devices, streams and events) share with the rest of the runtime. Kept
 * apart from rt_internal.h so that those files stay as they are.
 */
#ifndef NPUPROF_RT_CTX_H
#define NPUPROF_RT_CTX_H

#include "rt_internal.h"

/* rt_core.c: one reference on device dev (opening it, with its default
 * stream, if it is closed), not tied to the calling thread; *gen is the
 * device's generation, for rt_dev_unref. */
aclError rt_dev_ref(int dev, uint32_t *gen);
/* Drops a reference of rt_dev_ref; the last one releases the device.
 * Nothing if the device was released since (gen differs). */
void rt_dev_unref(int dev, uint32_t gen);

/* rt_state.c: the calling thread's current context made by
 * aclrtCreateContext (rt_ctx.c); NULL: the implicit one of its current
 * device (aclrtSetDevice sets it so). */
struct rt_ctx;
extern __thread struct rt_ctx *rt_cur_ctx;

/* rt_misc.c: CANN's version number of a version string ("8.0.RC1" is not
 * one: X.Y.Z[-]{alpha,beta,rc}N); 0, or -1 if s is not one. */
int rt_version_num(const char *s, int32_t *num);

/* rt_mem.c: the device of device memory p (aclrtMalloc), -1 for any other;
 * *size its allocated size. */
int rt_mem_dev(const void *p, size_t *size);

/* Records ret as the thread's last error if it is one; returns it. */
static inline aclError rt_fail(aclError ret)
{
	if (ret)
		rt_last_err = ret;
	return ret;
}

#endif /* NPUPROF_RT_CTX_H */
