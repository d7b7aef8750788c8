/*
 * rank.h - the one definition of a process's rank identity in a job.
 *
 * A rank is what msprof-analyze and MindStudio Insight tell the processes
 * of a multi-process job apart by (docs/ascend-reference.md §5.10): rank_id of
 * PROF_<...>/host/info.json and PROF_<...>/device_<N>/info.json.<N>, and
 * RANK_DEVICE_MAP (rankId, deviceId) in the database. It is decided, per
 * device of the process, in this order:
 *   1. the rank of the HCCL communicator the process initialised on that
 *      device (user/runtime/hccl.c reports it: NPUPROF_HOSTFMT_RANK with
 *      source NPUPROF_RANK_SRC_HCCL and the device);
 *   2. the process's environment, as launchers set it: RANK_ID (CANN's
 *      scripts, torch_npu), RANK (torchrun), OMPI_COMM_WORLD_RANK (Open MPI
 *      mpirun), PMI_RANK (MPICH / Intel MPI mpirun), first one set wins
 *      (the recorder reports it at every collection start, device
 *      UINT32_MAX);
 *   3. NPUPROF_RANK_NONE (-1), msprof's "no rank".
 * The first communicator initialised on a device counts (the world group
 * comes first in every launcher's script); a later sub-group does not
 * renumber it.
 *
 * Header-only and libc-only: the in-application recorder parses the
 * environment with it, libnpuprof resolves the ranks of a session with it.
 */
#ifndef NPUPROF_RANK_H
#define NPUPROF_RANK_H

#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NPUPROF_RANK_NONE (-1)
#define NPUPROF_RANK_ANY_DEVICE UINT32_MAX /* a process-wide rank (environment) */

/* Where a rank came from: NPUPROF_HOSTFMT_RANK.source; a higher value wins. */
enum npuprof_rank_source {
	NPUPROF_RANK_SRC_NONE = 0,
	NPUPROF_RANK_SRC_ENV = 1,
	NPUPROF_RANK_SRC_HCCL = 2,
};

/* The environment variables, in the order they are consulted. */
#define NPUPROF_RANK_ENV_VARS                                         \
	{                                                             \
		"RANK_ID", "RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK" \
	}

/* A rank as text: decimal digits only, 0 .. INT32_MAX; else NONE. */
static inline int32_t npuprof_rank_parse(const char *s)
{
	int64_t v = 0;

	if (!s || !*s)
		return NPUPROF_RANK_NONE;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return NPUPROF_RANK_NONE;
		v = v * 10 + (*s - '0');
		if (v > INT32_MAX)
			return NPUPROF_RANK_NONE;
	}
	return (int32_t)v;
}

/* The rank the environment gives (getenv-like lookup `get`), or NONE. A set
 * but malformed variable counts as unset, so the next one is consulted. */
static inline int32_t npuprof_rank_from_env(const char *(*get)(const char *name))
{
	static const char *const vars[] = NPUPROF_RANK_ENV_VARS;

	for (unsigned i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		int32_t r = npuprof_rank_parse(get(vars[i]));

		if (r != NPUPROF_RANK_NONE)
			return r;
	}
	return NPUPROF_RANK_NONE;
}

/* One rank statement of a process (an NPUPROF_HOSTFMT_RANK record). */
struct npuprof_rank_info {
	int32_t rank;
	uint32_t rank_size; /* 0: unknown */
	uint32_t device_id; /* NPUPROF_RANK_ANY_DEVICE: the whole process */
	uint32_t source; /* enum npuprof_rank_source */
};

/* The rank of `device` from a process's statements: the first HCCL one for
 * that device, else the environment's, else NONE. */
static inline int32_t npuprof_rank_resolve(const struct npuprof_rank_info *v, size_t n,
					   uint32_t device)
{
	int32_t env = NPUPROF_RANK_NONE;

	for (size_t i = 0; i < n; i++) {
		if (v[i].source == NPUPROF_RANK_SRC_HCCL && v[i].device_id == device)
			return v[i].rank;
		if (v[i].source == NPUPROF_RANK_SRC_ENV && env == NPUPROF_RANK_NONE)
			env = v[i].rank;
	}
	return env;
}

#ifdef __cplusplus
}
#endif
#endif /* NPUPROF_RANK_H */
