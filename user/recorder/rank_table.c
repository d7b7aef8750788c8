/*
 * rank_table.c - the process's rank identity, as the host stream's
 * NPUPROF_HOSTFMT_RANK records (npuprof/rank.h).
 *
 * The environment's rank (RANK_ID, RANK, ...) is read at every collection
 * start; the HCCL ranks come from the runtime (npuprof_hostrec_set_rank, one
 * per device) and are kept here for the process's life. hostrec.c writes
 * them all at every collection start, and an HCCL rank also when it is set
 * during a collection, so that every stream states the ranks of its
 * process whenever the communicator was made. This file only keeps the
 * table: it calls nothing of the recorder (hostrec.c calls down to it).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hostrec_internal.h"
#include "npuprof/rank.h"

#define MAX_DEV_RANKS (NPUPROF_RANK_RECORDS_MAX - 1) /* one more: the environment's */

static pthread_mutex_t g_rank_lock = PTHREAD_MUTEX_INITIALIZER;
static struct npuprof_hostfmt_rank g_ranks[MAX_DEV_RANKS];
static unsigned g_nranks;

static const char *env_get(const char *name)
{
	return getenv(name);
}

static void fill(struct npuprof_hostfmt_rank *r, int32_t rank, uint32_t size, uint32_t dev,
		 uint32_t src, uint64_t group)
{
	memset(r, 0, sizeof(*r));
	r->h.size = sizeof(*r);
	r->h.kind = NPUPROF_HOSTFMT_RANK;
	r->rank = rank;
	r->rank_size = size;
	r->device_id = dev;
	r->source = src;
	r->group_name_id = group;
}

unsigned npuprof_rank_records(struct npuprof_hostfmt_rank out[NPUPROF_RANK_RECORDS_MAX])
{
	unsigned n = 0;
	int32_t env = npuprof_rank_from_env(env_get);

	if (env != NPUPROF_RANK_NONE)
		fill(&out[n++], env, 0, NPUPROF_RANK_ANY_DEVICE, NPUPROF_RANK_SRC_ENV,
		     NPUPROF_HOSTFMT_NO_STRING);
	pthread_mutex_lock(&g_rank_lock);
	memcpy(&out[n], g_ranks, g_nranks * sizeof(g_ranks[0]));
	n += g_nranks;
	pthread_mutex_unlock(&g_rank_lock);
	return n;
}

int npuprof_rank_keep(uint32_t device_id, int32_t rank, uint32_t rank_size, uint64_t group_name_id,
		      struct npuprof_hostfmt_rank *r)
{
	unsigned i;

	fill(r, rank, rank_size, device_id, NPUPROF_RANK_SRC_HCCL, group_name_id);
	pthread_mutex_lock(&g_rank_lock);
	for (i = 0; i < g_nranks && g_ranks[i].device_id != device_id; i++)
		;
	/* the first communicator on a device keeps it (rank.h) */
	if (i == g_nranks && g_nranks < MAX_DEV_RANKS)
		g_ranks[g_nranks++] = *r;
	else
		i = MAX_DEV_RANKS;
	pthread_mutex_unlock(&g_rank_lock);
	return i < MAX_DEV_RANKS;
}
