/*
 * options.c - the run's options (npuwork.h), with their defaults: main.c
 * sets them from the command line, every scenario reads them.
 */
#include "npuwork.h"

struct npuwork_opt opt = {
	.scenario = "driver",
	.ndev = 2,
	.steps = 10,
	.tasks = 100000,
	.batch = 64,
	.seed = 1,
	.threads = 0,
	.layers = 4,
	.size = 1 << 20,
	.rank = -1,
};
