/*
 * rthooks.c - the registry of the runtime's hooks (see rthooks.h).
 *
 * The hooks are called from aclprofMarkEx, step markers, aclprofCreateConfig
 * and aclprofRangePop, none of which is a stamp hot path (each launches a
 * device task or allocates anyway), so a mutex-protected snapshot is simpler
 * and safer than publishing pointers that a concurrent unregister could free.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "rthooks.h"
#include "rthooks_internal.h"

static pthread_mutex_t g_hooks_lock = PTHREAD_MUTEX_INITIALIZER;
static struct npuprof_runtime_hooks g_hooks; /* launch_trace == NULL: none */

int npuprof_register_runtime_hooks(const struct npuprof_runtime_hooks *hooks)
{
	struct npuprof_runtime_hooks copy;

	memset(&copy, 0, sizeof(copy));
	if (hooks) {
		/* A caller built against an older, shorter struct leaves the newer
         * members NULL. */
		if (hooks->size < offsetof(struct npuprof_runtime_hooks, launch_trace) +
					  sizeof(hooks->launch_trace) ||
		    !hooks->launch_trace)
			return -EINVAL;
		memcpy(&copy, hooks, hooks->size < sizeof(copy) ? hooks->size : sizeof(copy));
		copy.size = sizeof(copy);
	}
	pthread_mutex_lock(&g_hooks_lock);
	g_hooks = copy;
	pthread_mutex_unlock(&g_hooks_lock);
	return 0;
}

int npuprof_rthooks_get(struct npuprof_runtime_hooks *out)
{
	pthread_mutex_lock(&g_hooks_lock);
	*out = g_hooks;
	pthread_mutex_unlock(&g_hooks_lock);
	return out->launch_trace != NULL;
}
