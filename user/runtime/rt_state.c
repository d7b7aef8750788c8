/*
 * rt_state.c - the runtime's shared state: the device table (rt_g), the
 * calling thread's current device and its last error message. Every other
 * file of the runtime reads these; this one calls none of them.
 */
#include <stdarg.h>
#include <stdio.h>

#include "rt_internal.h"

struct rt_global rt_g = { .lock = PTHREAD_MUTEX_INITIALIZER,
			  .announced = PTHREAD_COND_INITIALIZER };
__thread int rt_cur_dev = -1;
__thread aclError rt_last_err;
__thread struct rt_ctx *rt_cur_ctx;

static __thread char t_errmsg[256];

void rt_set_errmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t_errmsg, sizeof(t_errmsg), fmt, ap);
	va_end(ap);
}

const char *aclGetRecentErrMsg(void)
{
	return t_errmsg[0] ? t_errmsg : NULL;
}

int rt_dev_fd(int dev)
{
	return rt_g.dev[dev].fd;
}

drvError_t rt_id_alloc(int dev, drvIdType_t type, uint32_t *id)
{
	struct halResourceIdInputInfo in = { .type = type };
	struct halResourceIdOutputInfo out;
	drvError_t r = halResourceIdAlloc((uint32_t)dev, &in, &out);

	if (r == DRV_ERROR_NONE)
		*id = out.resourceId;
	return r;
}

drvError_t rt_id_free(int dev, drvIdType_t type, uint32_t id)
{
	struct halResourceIdInputInfo in = { .type = type, .resourceId = id };

	return halResourceIdFree((uint32_t)dev, &in);
}

aclError rt_current_dev(int *dev)
{
	if (RT_UNLIKELY(!rt_g.initialized))
		return ACL_ERROR_UNINITIALIZE;
	if (RT_UNLIKELY(rt_cur_dev < 0 || rt_g.dev[rt_cur_dev].fd < 0))
		return ACL_ERROR_RT_CONTEXT_NULL;
	*dev = rt_cur_dev;
	return ACL_SUCCESS;
}
