/*
 * ranks.c - a session's ranks (ranks.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "ranks.h"

int export_resolve_ranks(struct npuprof_session *s, const struct hostdata *hd, char *err,
			 size_t errlen)
{
	struct npuprof_rank_info *v = NULL;
	int32_t env = NPUPROF_RANK_NONE;
	int changed = 0;

	if (hd->nrank) {
		v = malloc(hd->nrank * sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < hd->nrank; i++)
			v[i] = hd->rank[i].r;
		env = npuprof_rank_resolve(v, hd->nrank, NPUPROF_RANK_ANY_DEVICE);
	}
	for (int i = 0; i < s->ndev; i++) {
		int32_t r = npuprof_rank_resolve(v, hd->nrank, s->dev[i].id);

		changed |= r != s->dev[i].rank;
		s->dev[i].rank = r;
	}
	free(v);
	if (env == NPUPROF_RANK_NONE && s->ndev == 1)
		env = s->dev[0].rank;
	changed |= env != s->rank;
	s->rank = env;
	return changed ? npuprof_session_write_info(s, err, errlen) : 0;
}
