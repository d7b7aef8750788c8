/*
 * ranks.h - a session's rank identity from its host streams (npuprof/rank.h).
 */
#ifndef NPUPROF_EXPORT_RANKS_H
#define NPUPROF_EXPORT_RANKS_H

#include <stddef.h>

#include "hostdata.h"
#include "npuprof/session.h"

/* Sets s->dev[i].rank from the streams' rank records (the device's HCCL
 * rank, else the process's environment rank, else -1) and s->rank (the
 * environment rank, else the rank of the session's only device, else -1).
 * If any changed, rewrites the info.json files and npuprof.session.
 * Returns 0 or -errno with a message in err. */
int export_resolve_ranks(struct npuprof_session *s, const struct hostdata *hd, char *err,
			 size_t errlen);

#endif
