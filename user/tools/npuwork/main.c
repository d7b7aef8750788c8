/*
 * npuwork - a workload generator for the simulated NPU (npusim).
 *
 *   npuwork [--scenario NAME] [--devices N] [--steps N] [--tasks N]
 *           [--batch N] [--threads N] [--layers N] [--size BYTES]
 *           [--seed N] [--manifest FILE] [--db FILE[,FILE...]]
 *           [--first-device D] [--quiet]
 *
 * Scenarios:
 *   driver  a training step's task mix straight on /dev/npusim (no ACL)
 *   flood   --tasks short tasks as fast as possible (tracing cost)
 *   train   transformer-like training steps on N devices through the ACL
 *           runtime: H2D copies, matmuls on AI cores, elementwise on vector
 *           cores, a MIX attention kernel, events between the compute and
 *           communication streams, an HCCL all-reduce of the gradients,
 *           stream-anchored mstx ranges around forward/backward/optimizer and a
 *           MarkEx per step
 *   infer   an inference loop (copies in, layers, copy out, synchronise)
 *   stress  --tasks tiny kernels from --threads threads
 *   replay  re-issue the tasks of an msprof or PyTorch profiler db (--db);
 *           --db A,B,... replays one db per rank, each in its own process
 *           on its own device (rank i on device i, RANK_ID=i);
 *           --first-device D: the db's first device replays on device D
 *   ranks   a multi-process job: --devices processes (ranks), each training
 *           on its own device, all-reduces between processes (launcher.c);
 *           one rank of it is `train --rank R --world N --root-info FILE`
 * Runs are reproducible from --seed (durations and shapes); --manifest
 * writes every task the runtime sent (see manifest.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npusim_dev.h"
#include "npuwork.h"
#include "numparse.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: npuwork [--scenario driver|flood|train|infer|stress|replay|ranks]\n"
		"               [--devices N] [--steps N] [--tasks N] [--batch N] [--threads N]\n"
		"               [--layers N] [--size BYTES] [--seed N] [--manifest FILE]\n"
		"               [--db FILE[,FILE...]] [--first-device D]\n"
		"               [--rank R --world N --root-info FILE] [--quiet]\n");
	exit(2);
}

/* A numeric option, checked (numparse.h); exits 2 on a bad value. */
static void num(uint64_t *v, const char *name, uint64_t min, uint64_t max)
{
	if (opt_u64("npuwork", name, optarg, min, max, v) < 0)
		exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = { { "scenario", required_argument, 0, 's' },
					    { "devices", required_argument, 0, 'd' },
					    { "steps", required_argument, 0, 'n' },
					    { "tasks", required_argument, 0, 't' },
					    { "batch", required_argument, 0, 'b' },
					    { "quiet", no_argument, 0, 'q' },
					    { "seed", required_argument, 0, 'S' },
					    { "threads", required_argument, 0, 'T' },
					    { "layers", required_argument, 0, 'L' },
					    { "size", required_argument, 0, 'z' },
					    { "manifest", required_argument, 0, 'm' },
					    { "db", required_argument, 0, 'D' },
					    { "first-device", required_argument, 0, 'F' },
					    { "rank", required_argument, 0, 'R' },
					    { "world", required_argument, 0, 'W' },
					    { "root-info", required_argument, 0, 'I' },
					    { 0, 0, 0, 0 } };
	uint64_t t0, total = 0, v;
	int c, avail, acl;

	while ((c = getopt_long(argc, argv, "s:d:n:t:b:qS:T:L:z:m:D:F:R:W:I:", lo, NULL)) != -1) {
		switch (c) {
		case 's': opt.scenario = optarg; break;
		case 'd':
			num(&v, "--devices", 1, NPUSIM_MAX_DEVICES);
			opt.ndev = (int)v;
			break;
		case 'n':
			num(&v, "--steps", 0, 100000000);
			opt.steps = (int)v;
			break;
		case 't':
			num(&v, "--tasks", 0, 1000000000000ULL);
			opt.tasks = (long)v;
			break;
		case 'b':
			num(&v, "--batch", 1, 1000000);
			opt.batch = (int)v;
			break;
		case 'q': opt.quiet = 1; break;
		case 'S':
			num(&v, "--seed", 0, UINT64_MAX);
			opt.seed = v;
			break;
		case 'T':
			num(&v, "--threads", 0, 1024);
			opt.threads = (int)v;
			break;
		case 'L':
			num(&v, "--layers", 1, 10000);
			opt.layers = (int)v;
			break;
		case 'z':
			num(&v, "--size", 1, 1ULL << 40);
			opt.size = (long)v;
			break;
		case 'm': opt.manifest = optarg; break;
		case 'D': opt.db = optarg; break;
		case 'F':
			num(&v, "--first-device", 0, NPUSIM_MAX_DEVICES - 1);
			opt.first_dev = (int)v;
			break;
		case 'R':
			num(&v, "--rank", 0, NPUSIM_MAX_DEVICES - 1);
			opt.rank = (int)v;
			break;
		case 'W':
			num(&v, "--world", 1, NPUSIM_MAX_DEVICES);
			opt.world = (int)v;
			break;
		case 'I': opt.root_info = optarg; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	avail = npusim_dev_count();
	if (opt.ndev < 1 || opt.ndev > NPUSIM_MAX_DEVICES || opt.steps < 1 || opt.tasks < 1 ||
	    opt.batch < 1 || opt.batch > NPUSIM_SEND_MAX || opt.threads < 0 || opt.threads > 64 ||
	    opt.layers < 1 || opt.layers > 64 || opt.size < 64)
		usage();
	if (opt.rank >= 0) {
		/* one rank of a job: its device is the rank's */
		if (!opt.world || !opt.root_info || opt.rank >= opt.world ||
		    strcmp(opt.scenario, "train")) {
			fprintf(stderr, "npuwork: --rank needs --scenario train, --world N > R and "
					"--root-info FILE\n");
			return 2;
		}
		opt.ndev = opt.rank + 1;
	} else if (opt.world || opt.root_info) {
		fprintf(stderr, "npuwork: --world and --root-info go with --rank\n");
		return 2;
	}
	if (opt.ndev > avail) {
		fprintf(stderr, "npuwork: %d devices requested, %d present (load npusim.ko)\n",
			opt.ndev, avail);
		return 1;
	}
	acl = strcmp(opt.scenario, "driver") && strcmp(opt.scenario, "flood") &&
	      strcmp(opt.scenario, "ranks");
	if (!acl && opt.manifest) {
		fprintf(stderr,
			"npuwork: --manifest needs an ACL scenario (train, infer, stress, replay)\n");
		return 2;
	}
	if (strcmp(opt.scenario, "replay") == 0 && !opt.db) {
		fprintf(stderr, "npuwork: replay needs --db FILE\n");
		return 2;
	}
	t0 = now_ns();
	if (strcmp(opt.scenario, "driver") == 0)
		total = run_driver_scenario(0);
	else if (strcmp(opt.scenario, "flood") == 0)
		total = run_driver_scenario(1);
	else if (strcmp(opt.scenario, "replay") == 0)
		total = strchr(opt.db, ',') ? run_replay_ranks(opt.db) : run_replay(opt.db);
	else if (strcmp(opt.scenario, "ranks") == 0)
		total = run_ranks_launcher();
	else if (!strcmp(opt.scenario, "train") || !strcmp(opt.scenario, "infer") ||
		 !strcmp(opt.scenario, "stress"))
		total = run_acl_scenario(opt.scenario);
	else
		usage();
	t0 = now_ns() - t0;
	if (!opt.quiet) {
		printf("npuwork: %s on %d device(s): %llu tasks in %.3f s (%.0f tasks/s)\n",
		       opt.scenario, opt.ndev, (unsigned long long)total, t0 / 1e9,
		       total / (t0 / 1e9));
		if (acl) {
			printf("tasks by type:\n");
			manifest_print_counts(-1);
		}
	}
	return 0;
}
