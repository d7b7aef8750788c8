/*
 * npuwork.h - what npuwork's scenario files share.
 *
 *   main.c      the command line, dispatch, summary
 *   driver.c    `driver` and `flood`: straight to /dev/npusim (no ACL)
 *   acl_work.c  `train`, `infer`, `stress`: ACL runtime, HCCL, msproftx
 *   replay.c    `replay`: re-issue the tasks of an msprof / PyTorch db
 *   launcher.c  `ranks`: a job of one process per device (torchrun-like)
 *   manifest.c  the ground-truth manifest (every task the runtime sent)
 *   options.c   the run's options and their defaults
 */
#ifndef NPUWORK_H
#define NPUWORK_H

#include <stdint.h>

struct npuwork_opt {
	const char *scenario;
	int ndev;
	int steps;
	long tasks;
	int batch;
	int quiet;
	unsigned long long seed;
	int threads;
	int layers;
	long size; /* bytes of activations per copy */
	const char *manifest;
	const char *db; /* replay input */
	int first_dev; /* replay: the device the db's first device maps to */
	int rank; /* train as one rank of a multi-process job (launcher.c); -1: no */
	int world; /* ranks of that job */
	const char *root_info; /* file with the job's HcclRootInfo */
};
extern struct npuwork_opt opt;

uint64_t run_driver_scenario(int flood);
/* ACL scenarios; return tasks submitted, exit on failure */
uint64_t run_acl_scenario(const char *name);
uint64_t run_replay(const char *db);
/* "A.db,B.db,...": one process per db (rank i, RANK_ID=i, device i) */
uint64_t run_replay_ranks(const char *dbs);
/* launcher.c: the `ranks` launcher; reading a rank's root info */
uint64_t run_ranks_launcher(void);
struct HcclRootInfoDef;
void load_root_info(const char *path, struct HcclRootInfoDef *ri);

/* manifest.c: counts (and, with --manifest, logs) every task */
void manifest_start(void);
void manifest_finish(const char *path);
uint64_t manifest_total(void);
void manifest_print_counts(int dev); /* "TYPE|count" lines; dev < 0: all */

/* Deterministic per-stream random numbers (xorshift64*). */
static inline uint64_t nw_rand(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ULL;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

#endif
