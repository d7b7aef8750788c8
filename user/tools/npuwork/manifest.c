/*
 * manifest.c - npuwork's ground truth: the runtime's task observer
 * (aclnpuSetTaskObserver) sees every task it sends; we count them per type
 * and device and, with --manifest FILE, write one line per task:
 *   device stream task_id batch_id sqe_type type duration_ns bytes connection_id
 * (tab-separated, after a '#' header). Tests compare it with what npusim
 * executed and with what the profiler recorded.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomicfile.h"
#include "acl/acl.h"
#include "npuwork.h"

struct count {
	int dev;
	const char *type;
	uint64_t n;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static aclnpuTaskRecord *g_log;
static size_t g_len, g_cap;
static struct count g_counts[256];
static int g_ncounts;
static uint64_t g_total;
static int g_keep;

static void observe(void *ctx, const aclnpuTaskRecord *t)
{
	int i;

	(void)ctx;
	pthread_mutex_lock(&g_lock);
	g_total++;
	for (i = 0; i < g_ncounts; i++)
		if (g_counts[i].dev == t->deviceId &&
		    strcmp(g_counts[i].type, t->taskTypeName) == 0)
			break;
	if (i == g_ncounts && g_ncounts < 256) {
		g_counts[i].dev = t->deviceId;
		g_counts[i].type = strdup(t->taskTypeName);
		g_counts[i].n = 0;
		g_ncounts++;
	}
	if (i < g_ncounts)
		g_counts[i].n++;
	if (g_keep) {
		if (g_len == g_cap) {
			g_cap = g_cap ? g_cap * 2 : 4096;
			g_log = realloc(g_log, g_cap * sizeof(*g_log));
			if (!g_log) {
				perror("npuwork: manifest");
				exit(1);
			}
		}
		g_log[g_len] = *t;
		/* type names are the runtime's constants or strings we keep */
		g_log[g_len].taskTypeName = g_counts[i < g_ncounts ? i : 0].type;
		g_len++;
	}
	pthread_mutex_unlock(&g_lock);
}

void manifest_start(void)
{
	g_keep = opt.manifest != NULL;
	aclnpuSetTaskObserver(observe, NULL);
}

uint64_t manifest_total(void)
{
	return g_total;
}

static int cmp_count(const void *a, const void *b)
{
	const struct count *x = a, *y = b;

	return x->dev != y->dev ? x->dev - y->dev : strcmp(x->type, y->type);
}

void manifest_print_counts(int dev)
{
	struct count merged[256];
	int n = 0;

	for (int i = 0; i < g_ncounts; i++) {
		int j;

		if (dev >= 0 && g_counts[i].dev != dev)
			continue;
		for (j = 0; j < n; j++)
			if (strcmp(merged[j].type, g_counts[i].type) == 0)
				break;
		if (j == n)
			merged[n++] = (struct count){ 0, g_counts[i].type, 0 };
		merged[j].n += g_counts[i].n;
	}
	qsort(merged, n, sizeof(merged[0]), cmp_count);
	for (int i = 0; i < n; i++)
		printf("%s|%llu\n", merged[i].type, (unsigned long long)merged[i].n);
}

void manifest_finish(const char *path)
{
	struct atomic_file af;
	char err[1024];
	FILE *f;

	aclnpuSetTaskObserver(NULL, NULL);
	if (!path)
		return;
	if (atomic_file_open(&af, path, err, sizeof(err)) < 0) {
		fprintf(stderr, "npuwork: %s\n", err);
		exit(1);
	}
	f = af.f;
	fprintf(f, "# npuwork manifest: scenario=%s seed=%llu devices=%d tasks=%zu\n", opt.scenario,
		opt.seed, opt.ndev, g_len);
	fprintf(f,
		"# device\tstream\ttask_id\tbatch_id\tsqe_type\ttype\tduration_ns\tbytes\tconnection_id\n");
	for (size_t i = 0; i < g_len; i++) {
		const aclnpuTaskRecord *t = &g_log[i];

		fprintf(f, "%d\t%u\t%u\t%u\t%u\t%s\t%llu\t%llu\t%lld\n", t->deviceId, t->streamId,
			t->taskId, t->batchId, t->sqeType, t->taskTypeName,
			(unsigned long long)t->durationNs, (unsigned long long)t->bytes,
			(long long)t->connectionId);
	}
	if (atomic_file_commit(&af, err, sizeof(err)) < 0) {
		fprintf(stderr, "npuwork: %s\n", err);
		exit(1);
	}
}
