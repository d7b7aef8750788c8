/*
 * launcher.c - npuwork's `ranks` scenario: a multi-process job as torchrun or
 * mpirun starts one, on one host.
 *
 * The launcher (this process) makes the HCCL root info (HcclGetRootInfo, as
 * rank 0 would before handing it out through the launcher's store), writes
 * it to a file and starts --devices processes: a fresh npuwork each
 * (`--scenario train --rank R --world N --root-info FILE` plus the run's
 * options), with RANK, LOCAL_RANK and WORLD_SIZE set as torchrun sets them.
 * Rank R uses device R only and joins the communicator with
 * HcclCommInitRootInfo, so every all-reduce of its training steps runs
 * between processes (npusim notifies recorded by one process wake another's
 * waits). The launcher itself never opens a device. It fails if any rank
 * fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hccl/hccl.h"
#include "npuwork.h"

uint64_t run_ranks_launcher(void)
{
	static HcclRootInfo ri;
	char path[] = "/tmp/npuwork-rootinfo.XXXXXX";
	pid_t pids[16];
	int n = opt.ndev, fd, failed = 0;

	if (n > 16) {
		fprintf(stderr, "npuwork: ranks: at most 16 ranks\n");
		exit(2);
	}
	if (HcclGetRootInfo(&ri) != HCCL_SUCCESS) {
		fprintf(stderr, "npuwork: ranks: HcclGetRootInfo failed\n");
		exit(1);
	}
	fd = mkstemp(path);
	if (fd < 0 || write(fd, &ri, sizeof(ri)) != (ssize_t)sizeof(ri) || close(fd) < 0) {
		fprintf(stderr, "npuwork: ranks: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	fflush(NULL);
	for (int r = 0; r < n; r++) {
		pid_t p = fork();

		if (p < 0) {
			fprintf(stderr, "npuwork: ranks: fork: %s\n", strerror(errno));
			failed = 1;
			n = r;
			break;
		}
		if (p == 0) {
			char rank[16], world[16], steps[16], layers[16], size[32], seed[32];
			char *argv[24];
			int a = 0;

			snprintf(rank, sizeof(rank), "%d", r);
			snprintf(world, sizeof(world), "%d", opt.ndev);
			snprintf(steps, sizeof(steps), "%d", opt.steps);
			snprintf(layers, sizeof(layers), "%d", opt.layers);
			snprintf(size, sizeof(size), "%ld", opt.size);
			snprintf(seed, sizeof(seed), "%llu", opt.seed);
			setenv("RANK", rank, 1);
			setenv("LOCAL_RANK", rank, 1);
			setenv("WORLD_SIZE", world, 1);
			argv[a++] = "npuwork";
			argv[a++] = "--scenario";
			argv[a++] = "train";
			argv[a++] = "--rank";
			argv[a++] = rank;
			argv[a++] = "--world";
			argv[a++] = world;
			argv[a++] = "--root-info";
			argv[a++] = path;
			argv[a++] = "--steps";
			argv[a++] = steps;
			argv[a++] = "--layers";
			argv[a++] = layers;
			argv[a++] = "--size";
			argv[a++] = size;
			argv[a++] = "--seed";
			argv[a++] = seed;
			argv[a++] = "--quiet";
			argv[a] = NULL;
			execv("/proc/self/exe", argv);
			fprintf(stderr, "npuwork: ranks: exec: %s\n", strerror(errno));
			_exit(127);
		}
		pids[r] = p;
	}
	for (int r = 0; r < n; r++) {
		int st;

		if (waitpid(pids[r], &st, 0) != pids[r] || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "npuwork: ranks: rank %d failed\n", r);
			failed = 1;
		}
	}
	unlink(path);
	if (failed)
		exit(1);
	if (!opt.quiet)
		printf("ranks: %d processes, one device each\n", n);
	return 0;
}

void load_root_info(const char *path, HcclRootInfo *ri)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, ri, sizeof(*ri)) != (ssize_t)sizeof(*ri)) {
		fprintf(stderr, "npuwork: --root-info %s: cannot read: %s\n", path,
			fd < 0 ? strerror(errno) : "short file");
		exit(1);
	}
	close(fd);
}
