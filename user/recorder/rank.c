/*
 * rank.c - the process's rank identity in the host stream (npuprof/rank.h).
 *
 * The environment's rank (RANK_ID, RANK, ...) is read once; the HCCL ranks
 * come from the runtime (npuprof_hostrec_set_rank, one per device). All of
 * them are written as NPUPROF_HREC_RANK records at every collection start,
 * and an HCCL rank also when it is set during a collection, so that every
 * stream states the ranks of its process whenever the communicator was
 * made.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hostrec_internal.h"
#include "npuprof/rank.h"

#define MAX_DEV_RANKS 64

static pthread_mutex_t g_rank_lock = PTHREAD_MUTEX_INITIALIZER;
static struct npuprof_hrec_rank g_ranks[MAX_DEV_RANKS];
static unsigned g_nranks;

static const char *env_get(const char *name)
{
	return getenv(name);
}

static void fill(struct npuprof_hrec_rank *r, int32_t rank, uint32_t size, uint32_t dev,
		 uint32_t src, uint64_t group)
{
	memset(r, 0, sizeof(*r));
	r->h.size = sizeof(*r);
	r->h.kind = NPUPROF_HREC_RANK;
	r->rank = rank;
	r->rank_size = size;
	r->device_id = dev;
	r->source = src;
	r->group_name_id = group;
}

void npuprof_rank_emit_all(void)
{
	struct npuprof_hrec_rank recs[MAX_DEV_RANKS + 1];
	unsigned n = 0;
	int32_t env = npuprof_rank_from_env(env_get);

	if (env != NPUPROF_RANK_NONE)
		fill(&recs[n++], env, 0, NPUPROF_RANK_ANY_DEVICE, NPUPROF_RANK_SRC_ENV,
		     NPUPROF_HREC_NO_STRING);
	pthread_mutex_lock(&g_rank_lock);
	memcpy(&recs[n], g_ranks, g_nranks * sizeof(g_ranks[0]));
	n += g_nranks;
	pthread_mutex_unlock(&g_rank_lock);
	if (n)
		npuprof_hostrec_emit(recs, n * sizeof(recs[0]));
}

void npuprof_hostrec_set_rank(uint32_t device_id, int32_t rank, uint32_t rank_size,
			      uint64_t group_name_id)
{
	struct npuprof_hrec_rank r;
	unsigned i;

	fill(&r, rank, rank_size, device_id, NPUPROF_RANK_SRC_HCCL, group_name_id);
	pthread_mutex_lock(&g_rank_lock);
	for (i = 0; i < g_nranks && g_ranks[i].device_id != device_id; i++)
		;
	/* the first communicator on a device keeps it (rank.h) */
	if (i == g_nranks && g_nranks < MAX_DEV_RANKS)
		g_ranks[g_nranks++] = r;
	else
		i = MAX_DEV_RANKS;
	pthread_mutex_unlock(&g_rank_lock);
	if (i < MAX_DEV_RANKS)
		npuprof_hostrec_emit(&r, sizeof(r)); /* -ENOTCONN: written at the next start */
}
