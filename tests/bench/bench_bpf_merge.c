/*
 * bench_bpf_merge.c - records/s through the BPF engine's reader on the host.
 *
 * The rings of two CPUs (bpf/npuprof_bpf.h's layout, 8 MiB per CPU as the
 * engine's default gives two CPUs) live in plain memory here, written by
 * this program as the programs write them: npuwork's flood as the VM
 * benchmark sees it (submits from both CPUs in turn, a completion every
 * 30th task and a recv every 20th, 20 us apart). The stream is read
 *   (a) by the merge engine_bpf.c's read() delivers from (bpf_ring.h):
 *       polled every 1000 tasks, delivered up to 50 ms behind the newest
 *       stamp (the engine's hold-back), oldest first across the six rings;
 *   (b) by the bare ring reader (npuprof_bpf_ring_read), ring by ring, in
 *       no order: what handing each record over costs, the floor.
 * Only the readers' calls are timed. Interleaved rounds
 * (NPUPROF_BENCH_ROUNDS, default 3); the best round of each. Results are
 * rates and their ratio within this run; nothing fails on timing.
 *
 * NPUPROF_BENCH_TASKS overrides the task count (default 2000000).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpf_ring.h"

#define NCPU 2
#define CPU_SLOTS (131072u) /* 8 MiB of records per CPU */
#define TASK_NS 20000ULL
#define POLL_TASKS 1000
#define HOLDBACK_NS (50ULL * 1000000)

static struct npuprof_bpf_ring ctl[NCPU * NPUPROF_BPF_NRING];
static struct npuprof_record *slots;
static unsigned long long sink;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* the programs' write: the record in its slot, then the head store */
static void put(int q, uint64_t ts)
{
	struct npuprof_bpf_ring *g = &ctl[q];
	uint32_t n, first = npuprof_bpf_ring_place((uint32_t)q % NPUPROF_BPF_NRING, CPU_SLOTS, &n);
	struct npuprof_record *r;

	if (g->head - __atomic_load_n(&g->tail, __ATOMIC_ACQUIRE) >= n) {
		fprintf(stderr, "bench_bpf_merge: ring %d full: the reader fell behind\n", q);
		exit(1);
	}
	r = &slots[(size_t)(q / NPUPROF_BPF_NRING) * CPU_SLOTS + first + (g->head & (n - 1))];
	memset(r, 0, sizeof(*r));
	r->hdr.type = (uint16_t)(NPUPROF_REC_SUBMIT + q % NPUPROF_BPF_NRING);
	r->hdr.size = NPUPROF_RECORD_SIZE;
	r->hdr.cpu = (uint16_t)(q / NPUPROF_BPF_NRING);
	r->hdr.ts = ts;
	__atomic_store_n(&g->head, g->head + 1, __ATOMIC_RELEASE);
}

static int count(void *ctx, const struct npuprof_record *r)
{
	(void)ctx;
	sink += r->hdr.size;
	return 0;
}

/* One pass of the stream through the merge (merge != 0) or the bare
 * reader: the readers' seconds, and the records read in *n. */
static double pass(long tasks, int merge, unsigned long long *n)
{
	struct npuprof_bpf_merge m;
	uint64_t clock = 1000000000ULL;
	double spent = 0;

	memset(ctl, 0, sizeof(ctl));
	*n = 0;
	if (npuprof_bpf_merge_init(&m, ctl, slots, CPU_SLOTS, NCPU) < 0) {
		fprintf(stderr, "bench_bpf_merge: out of memory\n");
		exit(1);
	}
	for (long t = 0; t < tasks; t++) {
		int c = (int)(t % NCPU) * NPUPROF_BPF_NRING;

		put(c, clock);
		if (t % 30 == 0)
			put(c + 1, clock + TASK_NS / 4);
		if (t % 20 == 0)
			put(c + 2, clock + TASK_NS / 2);
		clock += TASK_NS;
		if (t % POLL_TASKS == POLL_TASKS - 1 || t == tasks - 1) {
			int last = t == tasks - 1;
			double t0 = now_s();

			if (merge) {
				npuprof_bpf_merge_poll(&m, clock - HOLDBACK_NS);
				*n += (unsigned long long)npuprof_bpf_merge_read(
					&m, last ? UINT64_MAX : clock - HOLDBACK_NS, count, NULL);
			} else {
				for (int q = 0; q < NCPU * NPUPROF_BPF_NRING; q++)
					*n += (unsigned long long)
						npuprof_bpf_ring_read(&m.rings[q].rd, count, NULL);
			}
			spent += now_s() - t0;
		}
	}
	npuprof_bpf_merge_free(&m);
	return spent;
}

int main(void)
{
	const char *e = getenv("NPUPROF_BENCH_TASKS"), *er = getenv("NPUPROF_BENCH_ROUNDS");
	long tasks = e ? atol(e) : 2000000;
	int rounds = er ? atoi(er) : 3;
	double best[2] = { 0, 0 }, lo = 0, hi = 0;
	unsigned long long n[2] = { 0, 0 };

	if (tasks < POLL_TASKS || rounds < 1) {
		fprintf(stderr,
			"bench_bpf_merge: NPUPROF_BENCH_TASKS must be >= %d and "
			"NPUPROF_BENCH_ROUNDS >= 1\n",
			POLL_TASKS);
		return 2;
	}
	slots = calloc((size_t)NCPU * CPU_SLOTS, sizeof(*slots));
	if (!slots) {
		fprintf(stderr, "bench_bpf_merge: out of memory\n");
		return 1;
	}
	for (int r = 0; r < rounds; r++) {
		double rate[2];

		for (int k = 0; k < 2; k++) {
			double s = pass(tasks, k == 0, &n[k]);

			rate[k] = (double)n[k] / s;
			if (rate[k] > best[k])
				best[k] = rate[k];
		}
		if (n[0] != n[1]) {
			fprintf(stderr,
				"bench_bpf_merge: the merge read %llu records, the bare reader %llu\n",
				n[0], n[1]);
			return 1;
		}
		if (!r || rate[0] / rate[1] < lo)
			lo = rate[0] / rate[1];
		if (!r || rate[0] / rate[1] > hi)
			hi = rate[0] / rate[1];
	}
	printf("bpf reader, %llu records of %ld tasks on %d CPUs' rings, best of %d rounds:\n",
	       n[0], tasks, NCPU, rounds);
	printf("  merge (hold-back, by time)  %8.1f M records/s  %6.1f ns/record\n", best[0] / 1e6,
	       1e9 / best[0]);
	printf("  bare ring reader (no order) %8.1f M records/s  %6.1f ns/record\n", best[1] / 1e6,
	       1e9 / best[1]);
	printf("RESULT\tBPF reader merge records/s / bare ring reader\t%.3f\tinfo\t-\t%.3f\t%.3f\n",
	       best[0] / best[1], lo, hi);
	free(slots);
	return sink == 0;
}
