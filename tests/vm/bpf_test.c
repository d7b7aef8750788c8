/*
 * bpf_test — in-VM checks that the BPF engine records what npuprof.ko
 * records (used by tests/vm/suite_30_bpf.sh).
 *
 *   bpf_test dual [--sample N] [--streams L] [--devices L] [--no-recv]
 *                  [--all] [--bpf-ring-kb N] [--expect-drops]
 *                  [--expect-filtered] [--expect-sampled] [--other-load]
 *                  -- CMD ARGS
 *       Capture one run of CMD with both engines at once, through the
 *       engine interface, with the same options (the command's pid unless
 *       --all). Without --expect-drops the two must hold the same multiset
 *       of records: every byte equal except the timestamp (both engines see
 *       the same tracepoint call, so CPU, pid and tid agree too), and the
 *       same counters. With --expect-drops (a tiny BPF ring) the BPF
 *       records must be a sub-multiset of the kmod's, and records kept plus
 *       records reported lost by DROP markers must equal what the kmod
 *       captured, and the engine's dropped counter.
 *   bpf_test same A.raw B.raw
 *       Two captures of separate runs of a deterministic workload: the same
 *       multiset of the fields that do not depend on timing (recv records
 *       and device counters excluded; see key_of()).
 *   bpf_test count FILE.raw
 *       Print "records N data N drop-markers N lost N" of a raw file.
 *
 * Exit status 0 when the check holds; the first differences are printed.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "npuprof/engine.h"
#include "npuprof/rawkern.h"

struct recs {
	struct npuprof_record *r;
	size_t n, cap;
	uint64_t last_ts;
	uint64_t disorder; /* timestamps going backwards in delivery */
};

static int add_rec(void *ctx, const struct npuprof_record *r)
{
	struct recs *v = ctx;

	if (v->n == v->cap) {
		size_t n = v->cap ? 2 * v->cap : 65536;
		struct npuprof_record *p = realloc(v->r, n * sizeof(*p));

		if (!p) {
			fprintf(stderr, "bpf_test: out of memory\n");
			exit(2);
		}
		v->r = p;
		v->cap = n;
	}
	if (r->hdr.ts < v->last_ts)
		v->disorder++;
	v->last_ts = r->hdr.ts;
	v->r[v->n++] = *r;
	return 0;
}

/* ---- multiset comparison: records with the ignored bytes cleared, sorted */

static int cmp_rec(const void *a, const void *b)
{
	return memcmp(a, b, NPUPROF_RECORD_SIZE);
}

static const char *type_name(unsigned t)
{
	static const char *n[] = { "?", "submit", "complete", "recv", "task_time", "clock", "drop" };
	return t < sizeof(n) / sizeof(n[0]) ? n[t] : "?";
}

static void print_rec(const char *tag, const struct npuprof_record *r)
{
	const uint32_t *w = (const uint32_t *)r->raw;

	printf("  %s %-9s flags %#x cpu %u pid %u tid %u:", tag, type_name(r->hdr.type),
	       r->hdr.flags, r->hdr.cpu, r->hdr.pid, r->hdr.tid);
	for (int i = 0; i < 10; i++)
		printf(" %u", w[i]);
	printf("\n");
}

/*
 * Compare two sorted arrays as multisets. With @subset, b may hold more
 * than a (a must be contained in b). Returns the number of records of a
 * not in b plus (unless @subset) those of b not in a.
 */
static size_t diff_sorted(const struct npuprof_record *a, size_t na, const struct npuprof_record *b,
			  size_t nb, int subset, const char *an, const char *bn)
{
	size_t i = 0, j = 0, bad = 0, shown = 0;

	while (i < na || j < nb) {
		int c = i == na ? 1 : j == nb ? -1 : cmp_rec(&a[i], &b[j]);

		if (c == 0) {
			i++;
			j++;
		} else if (c < 0) {
			if (shown++ < 10)
				print_rec(an, &a[i]);
			bad++;
			i++;
		} else {
			if (!subset) {
				if (shown++ < 10)
					print_rec(bn, &b[j]);
				bad++;
			}
			j++;
		}
	}
	return bad;
}

static void count_types(const struct recs *v, uint64_t *n)
{
	memset(n, 0, sizeof(uint64_t) * NPUPROF_REC_TYPE_MAX);
	for (size_t i = 0; i < v->n; i++)
		if (v->r[i].hdr.type < NPUPROF_REC_TYPE_MAX)
			n[v->r[i].hdr.type]++;
}

/* ---- dual: one run, both engines ------------------------------------------ */

static int parse_list(const char *s, uint32_t *out, int max)
{
	int n = 0;

	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return -1;
		if (*end == '-') {
			b = strtoul(end + 1, &end, 10);
			if (b < a)
				return -1;
		}
		for (unsigned long v = a; v <= b && n < max; v++)
			out[n++] = (uint32_t)v;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return n;
}

static int cmd_dual(int argc, char **argv)
{
	static const struct option lo[] = { { "sample", required_argument, 0, 's' },
					    { "streams", required_argument, 0, 'S' },
					    { "devices", required_argument, 0, 'D' },
					    { "no-recv", no_argument, 0, 'n' },
					    { "all", no_argument, 0, 'a' },
					    { "bpf-ring-kb", required_argument, 0, 'r' },
					    { "expect-drops", no_argument, 0, 'd' },
					    { "expect-filtered", no_argument, 0, 'f' },
					    { "expect-sampled", no_argument, 0, 'p' },
					    { "other-load", no_argument, 0, 'o' },
					    { 0, 0, 0, 0 } };
	static uint32_t streams[NPUPROF_MAX_STREAMS];
	struct npuprof_capture_opts o, ob;
	struct npuprof_engine *ek = NULL, *eb = NULL;
	struct npuprof_stats sk, sb;
	struct recs rk = { 0 }, rb = { 0 };
	char err[NPUPROF_ENGINE_ERRLEN];
	int opt, all = 0, expect_drops = 0, expect_filtered = 0, expect_sampled = 0, other_load = 0,
		 gate[2], st, fail = 0;
	uint64_t bpf_ring = 0;
	pid_t child;

	memset(&o, 0, sizeof(o));
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+", lo, NULL)) != -1) {
		switch (opt) {
		case 's': o.sample_n = (uint32_t)atoi(optarg); break;
		case 'S': {
			int n = parse_list(optarg, streams, NPUPROF_MAX_STREAMS);

			if (n <= 0)
				return 2;
			o.streams = streams;
			o.nstreams = (uint32_t)n;
			break;
		}
		case 'D': {
			uint32_t d[32];
			int n = parse_list(optarg, d, 32);

			if (n <= 0)
				return 2;
			for (int i = 0; i < n; i++)
				o.dev_mask |= 1u << (d[i] & 31);
			break;
		}
		case 'n': o.flags |= NPUPROF_CFG_NO_RECV; break;
		case 'a': all = 1; break;
		case 'r': bpf_ring = (uint64_t)atol(optarg) << 10; break;
		case 'd': expect_drops = 1; break;
		case 'f': expect_filtered = 1; break;
		case 'p': expect_sampled = 1; break;
		case 'o': other_load = 1; break;
		default: return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "bpf_test dual: no command\n");
		return 2;
	}
	if (pipe(gate) < 0)
		return 2;
	child = fork();
	if (child == 0) {
		char b;

		close(gate[1]);
		if (read(gate[0], &b, 1) != 1)
			_exit(127);
		execvp(argv[optind], argv + optind);
		_exit(127);
	}
	close(gate[0]);
	if (!all)
		o.pid = (uint32_t)child;
	ob = o;
	ob.ring_bytes = bpf_ring;
	if (npuprof_engine_open(&ek, "kmod", &o, err, sizeof(err)) < 0 ||
	    npuprof_engine_open(&eb, "bpf", &ob, err, sizeof(err)) < 0) {
		fprintf(stderr, "bpf_test: %s\n", err);
		return 1;
	}
	if (ek->ops->start(ek) < 0 || eb->ops->start(eb) < 0) {
		fprintf(stderr, "bpf_test: start: %s %s\n", ek->err, eb->err);
		return 1;
	}
	if (write(gate[1], "g", 1) != 1)
		return 1;
	close(gate[1]);
	for (;;) {
		int done = waitpid(child, &st, WNOHANG) == child;

		ek->ops->wait(ek, 5);
		ek->ops->read(ek, add_rec, &rk);
		eb->ops->read(eb, add_rec, &rb);
		if (done)
			break;
		if (expect_drops)
			usleep(20000); /* a tiny BPF ring overflows between reads */
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "bpf_test: the command failed (status %#x)\n", st);
		fail = 1;
	}
	ek->ops->stop(ek);
	eb->ops->stop(eb);
	ek->ops->read(ek, add_rec, &rk);
	eb->ops->read(eb, add_rec, &rb);
	ek->ops->stats(ek, &sk);
	eb->ops->stats(eb, &sb);

	uint64_t nk[NPUPROF_REC_TYPE_MAX], nb[NPUPROF_REC_TYPE_MAX];
	count_types(&rk, nk);
	count_types(&rb, nb);
	printf("kmod: %zu records (submit %llu complete %llu recv %llu drop %llu) written %llu dropped %llu filtered %llu sampled_out %llu\n",
	       rk.n, (unsigned long long)nk[1], (unsigned long long)nk[2],
	       (unsigned long long)nk[3], (unsigned long long)nk[6], (unsigned long long)sk.written,
	       (unsigned long long)sk.dropped, (unsigned long long)sk.filtered,
	       (unsigned long long)sk.sampled_out);
	printf("bpf:  %zu records (submit %llu complete %llu recv %llu drop %llu) written %llu dropped %llu filtered %llu sampled_out %llu\n",
	       rb.n, (unsigned long long)nb[1], (unsigned long long)nb[2],
	       (unsigned long long)nb[3], (unsigned long long)nb[6], (unsigned long long)sb.written,
	       (unsigned long long)sb.dropped, (unsigned long long)sb.filtered,
	       (unsigned long long)sb.sampled_out);
	/* the kmod merges what each read finds, so only each read is in
	 * order; the BPF engine holds back a window and must be in order but
	 * for records that reached it after the window (a producer's or the
	 * reader's vCPU held up that long: TCG on a loaded host), which it
	 * counts: disorder it does not account for is a fault of its merge */
	if (rb.disorder)
		printf("bpf: %llu deliveries out of timestamp order, %llu records late\n",
		       (unsigned long long)rb.disorder, (unsigned long long)sb.late);
	if (rb.disorder > sb.late) {
		printf("FAIL: BPF delivery out of timestamp order %llu times, %llu records late\n",
		       (unsigned long long)rb.disorder, (unsigned long long)sb.late);
		fail = 1;
	}
	if (sk.dropped || nk[NPUPROF_REC_DROP]) {
		printf("FAIL: the reference (kmod) capture lost records\n");
		fail = 1;
	}
	if (nk[NPUPROF_REC_SUBMIT] == 0) {
		printf("FAIL: nothing captured\n");
		fail = 1;
	}
	if (expect_filtered && !sb.filtered) {
		printf("FAIL: the filters rejected nothing\n");
		fail = 1;
	}
	if (expect_sampled && !sb.sampled_out) {
		printf("FAIL: sampling dropped nothing\n");
		fail = 1;
	}
	/* other processes submitting: the engines start at different moments,
	 * so only the captured process's records can be compared */
	for (int t = 0; t < NPUPROF_REC_TYPE_MAX && !other_load; t++)
		if (sk.events[t] != sb.events[t]) {
			printf("FAIL: %s probe hits: kmod %llu, bpf %llu\n", type_name(t),
			       (unsigned long long)sk.events[t], (unsigned long long)sb.events[t]);
			fail = 1;
		}
	if (!other_load && (sk.filtered != sb.filtered || sk.sampled_out != sb.sampled_out)) {
		printf("FAIL: filtered/sampled out differ\n");
		fail = 1;
	}

	/* the multisets, timestamps cleared */
	uint64_t lost = 0;
	size_t nbd = 0;
	for (size_t i = 0; i < rk.n; i++)
		rk.r[i].hdr.ts = 0;
	for (size_t i = 0; i < rb.n; i++) {
		if (rb.r[i].hdr.type == NPUPROF_REC_DROP) {
			lost += rb.r[i].drop.lost;
			continue;
		}
		rb.r[nbd] = rb.r[i];
		rb.r[nbd++].hdr.ts = 0;
	}
	qsort(rk.r, rk.n, sizeof(*rk.r), cmp_rec);
	qsort(rb.r, nbd, sizeof(*rb.r), cmp_rec);
	if (expect_drops) {
		size_t bad = diff_sorted(rb.r, nbd, rk.r, rk.n, 1, "bpf-only", "kmod-only");

		printf("drops: bpf kept %zu + lost %llu (DROP markers) = %llu; dropped counter %llu; kmod captured %zu\n",
		       nbd, (unsigned long long)lost, (unsigned long long)(nbd + lost),
		       (unsigned long long)sb.dropped, rk.n);
		if (bad) {
			printf("FAIL: %zu BPF records are not in the kmod capture\n", bad);
			fail = 1;
		}
		if (!lost || nbd + lost != rk.n || lost != sb.dropped || sb.written != nbd ||
		    sb.written + sb.dropped != sk.written) {
			printf("FAIL: drop accounting is not exact\n");
			fail = 1;
		}
	} else {
		size_t bad = diff_sorted(rk.r, rk.n, rb.r, nbd, 0, "kmod-only", "bpf-only");

		if (bad || rk.n != rb.n || sb.written != sk.written || sb.dropped) {
			printf("FAIL: %zu records differ (kmod %zu, bpf %zu)\n", bad, rk.n, rb.n);
			fail = 1;
		} else {
			printf("identical: %zu records\n", rk.n);
		}
	}
	npuprof_engine_close(eb);
	npuprof_engine_close(ek);
	free(rk.r);
	free(rb.r);
	return fail;
}

/* ---- same: two runs of a deterministic workload ---------------------------- */

/* The fields of a record that do not depend on timing, in a record-shaped
 * key (the rest zeroed); recv records have none worth comparing (how many
 * CQEs a receive finds depends on timing) and give 0. */
static int key_of(const struct npuprof_record *r, struct npuprof_record *k)
{
	memset(k, 0, sizeof(*k));
	k->hdr.type = r->hdr.type;
	k->hdr.flags = r->hdr.flags;
	switch (r->hdr.type) {
	case NPUPROF_REC_SUBMIT:
		k->submit = r->submit;
		k->submit.sq_head = 0; /* how far the device got */
		return 1;
	case NPUPROF_REC_COMPLETE: k->complete = r->complete; return 1;
	default: return 0;
	}
}

static long read_keys(const char *path, struct recs *v, uint64_t *nrecv)
{
	struct recs all = { 0 };
	char err[256];
	long n = npuprof_rawk_read(path, add_rec, &all, NULL, err, sizeof(err));

	if (n < 0) {
		fprintf(stderr, "bpf_test: %s\n", err);
		return n;
	}
	*nrecv = 0;
	for (size_t i = 0; i < all.n; i++) {
		struct npuprof_record k;

		if (key_of(&all.r[i], &k))
			add_rec(v, &k);
		else if (all.r[i].hdr.type == NPUPROF_REC_RECV)
			(*nrecv)++;
	}
	free(all.r);
	return n;
}

static int cmd_same(const char *a, const char *b)
{
	struct recs ra = { 0 }, rb = { 0 };
	uint64_t recva, recvb;
	size_t bad;

	if (read_keys(a, &ra, &recva) < 0 || read_keys(b, &rb, &recvb) < 0)
		return 1;
	qsort(ra.r, ra.n, sizeof(*ra.r), cmp_rec);
	qsort(rb.r, rb.n, sizeof(*rb.r), cmp_rec);
	bad = diff_sorted(ra.r, ra.n, rb.r, rb.n, 0, "first-only", "second-only");
	printf("task records: %zu and %zu, differing %zu; recv records %llu and %llu\n", ra.n, rb.n,
	       bad, (unsigned long long)recva, (unsigned long long)recvb);
	return bad || !ra.n || !recva || !recvb;
}

static int cmd_count(const char *path)
{
	struct recs v = { 0 };
	char err[256];
	uint64_t drops = 0, lost = 0;

	if (npuprof_rawk_read(path, add_rec, &v, NULL, err, sizeof(err)) < 0) {
		fprintf(stderr, "bpf_test: %s\n", err);
		return 1;
	}
	for (size_t i = 0; i < v.n; i++)
		if (v.r[i].hdr.type == NPUPROF_REC_DROP) {
			drops++;
			lost += v.r[i].drop.lost;
		}
	printf("records %zu data %llu drop-markers %llu lost %llu disorder %llu\n", v.n,
	       (unsigned long long)(v.n - drops), (unsigned long long)drops,
	       (unsigned long long)lost, (unsigned long long)v.disorder);
	free(v.r);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "dual"))
		return cmd_dual(argc - 1, argv + 1);
	if (argc == 4 && !strcmp(argv[1], "same"))
		return cmd_same(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "count"))
		return cmd_count(argv[2]);
	fprintf(stderr, "usage: bpf_test dual [OPTS] -- CMD | same A B | count F\n");
	return 2;
}
