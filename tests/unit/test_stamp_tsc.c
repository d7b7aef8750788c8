/*
 * test_stamp_tsc.c - the stamps' TSC time base (hostfmt.h
 * NPUPROF_HOSTFMT_F_TSC, NPUPROF_HOSTFMT_CLOCK): the decoder's conversion of
 * flagged records on crafted streams (interpolation, extrapolation along the
 * nearest 1 ms span, a single pair with its reference, pairs out of order,
 * a damaged clock block, results that do not fit), and the recorder's stamps
 * in a child process per time base (NPUPROF_HOST_CLOCK=tsc and =monotonic):
 * every stamp taken between two clock_gettime reads decodes to a time
 * between them.
 *
 * The recorder chooses its time base once per process, so the recorder
 * tests fork; this process never starts a collection itself.
 */
#include <check.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "acl/acl_prof.h"
#include "hostrec.h"
#include "hostrec_testutil.h"
#include "mstx/ms_tools_ext.h"
#include "npuprof/hostread.h"

/* ---- crafted streams ------------------------------------------------------ */

static void craft_clock(struct craft *c, uint64_t tsc, uint64_t ns, uint64_t ref_tsc,
			uint64_t ref_ns)
{
	struct npuprof_hostfmt_clock k = { .h = { .size = sizeof(k),
						  .kind = NPUPROF_HOSTFMT_CLOCK },
					   .tsc = tsc,
					   .monotonic_ns = ns,
					   .ref_tsc = ref_tsc,
					   .ref_ns = ref_ns };

	craft_block(c, 0, &k, sizeof(k));
}

/* A STAMP_MARK of thread 7 at `t` (ticks if flagged). */
static void craft_mark(struct craft *c, uint64_t t, int flagged)
{
	struct npuprof_hostfmt_stamp_mark m = {
		.h = { .size = sizeof(m),
		       .kind = NPUPROF_HOSTFMT_STAMP_MARK,
		       .reserved = flagged ? NPUPROF_HOSTFMT_F_TSC : 0 },
		.time_ns = t,
		.msg_id = 42,
		.category = 3,
	};

	craft_block(c, 7, &m, sizeof(m));
}

/* The stream's msproftx events as TX views, and the decode's result. */
struct got {
	uint64_t start[32], end[32];
	uint16_t flags[32];
	size_t n;
	int ret;
	struct npuprof_hostread_decode_stats st;
	char err[512];
};

static int got_cb(void *ctx, const struct npuprof_hostfmt_block_header *b,
		  const struct npuprof_hostfmt_header *r)
{
	struct got *g = ctx;
	struct npuprof_hostread_tx ev;

	if (!npuprof_hostread_tx_event(b, r, &ev))
		return 0;
	ck_assert_uint_lt(g->n, 32);
	g->start[g->n] = ev.r.start_ns;
	g->end[g->n] = ev.r.end_ns;
	g->flags[g->n] = r->reserved;
	g->n++;
	return 0;
}

static void craft_decode(struct craft *c, struct got *g)
{
	memset(g, 0, sizeof(*g));
	g->ret = npuprof_hostread_decode_buffer(c->buf, c->len, "crafted", got_cb, g, NULL, &g->st,
						g->err, sizeof(g->err));
}

/* 3 GHz from tsc 3e9 / ns 10e9; the second second runs 1 us fast. */
#define T0 3000000000ull
#define N0 10000000000ull
#define GHZ3 3000000000ull

START_TEST(test_interpolate_and_extrapolate)
{
	struct craft c;
	struct got g;

	craft_init(&c, NPUPROF_HOSTFMT_F_TSC);
	craft_mark(&c, T0 - GHZ3 / 2, 1); /* before the first pair */
	craft_clock(&c, T0, N0, 0, 0);
	craft_mark(&c, T0 + GHZ3 / 2, 1); /* in the first second */
	craft_clock(&c, T0 + GHZ3, N0 + 1000000000ull, 0, 0);
	craft_mark(&c, T0 + GHZ3 + GHZ3 / 2, 1); /* in the second */
	craft_clock(&c, T0 + 2 * GHZ3, N0 + 2000001000ull, 0, 0);
	craft_mark(&c, T0 + 3 * GHZ3, 1); /* a second after the last pair */
	craft_mark(&c, 12345, 0); /* not flagged: ns as they are */
	craft_end(&c, 0);
	craft_decode(&c, &g);
	ck_assert_msg(g.ret == 0, "%d %s", g.ret, g.err);
	ck_assert_uint_eq(g.n, 5);
	ck_assert_uint_eq(g.st.clock_pairs, 3);
	ck_assert_uint_eq(g.start[0], N0 - 500000000ull);
	ck_assert_uint_eq(g.start[1], N0 + 500000000ull);
	ck_assert_uint_eq(g.start[2], N0 + 1500000500ull);
	ck_assert_uint_eq(g.start[3], N0 + 3000002000ull);
	ck_assert_uint_eq(g.start[4], 12345);
	for (size_t i = 0; i < g.n; i++) {
		ck_assert_uint_eq(g.end[i], g.start[i]);
		ck_assert_uint_eq(g.flags[i], 0); /* consumers never see ticks */
	}
}
END_TEST

/* Beyond the ends the rate comes from the nearest span of >= 1 ms, not from
 * two pairs a few us apart (the start pair and the writer's first cycle). */
START_TEST(test_extrapolate_skips_short_spans)
{
	struct craft c;
	struct got g;

	craft_init(&c, NPUPROF_HOSTFMT_F_TSC);
	craft_clock(&c, T0, N0, 0, 0);
	/* 10 us later, 1 ns "off": a rate of its own would be 0.01% wrong */
	craft_clock(&c, T0 + 30000, N0 + 10001, 0, 0);
	craft_clock(&c, T0 + GHZ3, N0 + 1000000000ull, 0, 0);
	craft_clock(&c, T0 + GHZ3 + 30000, N0 + 1000010001ull, 0, 0);
	craft_mark(&c, T0 - GHZ3, 1);
	craft_mark(&c, T0 + 4 * GHZ3, 1);
	craft_end(&c, 0);
	craft_decode(&c, &g);
	ck_assert_msg(g.ret == 0, "%d %s", g.ret, g.err);
	ck_assert_uint_eq(g.n, 2);
	/* before: along T0 .. T0+1s (the first pair >= 1 ms after the first) */
	ck_assert_uint_eq(g.start[0], N0 - 1000000000ull);
	/* after: along (T0+10us) .. (T0+1s+10us), the last pair >= 1 ms before it */
	ck_assert_uint_eq(g.start[1], N0 + 4000000001ull);
}
END_TEST

/* One CLOCK record: its reference pair gives the rate. */
START_TEST(test_one_pair_with_reference)
{
	struct craft c;
	struct got g;

	craft_init(&c, NPUPROF_HOSTFMT_F_TSC);
	craft_clock(&c, T0 + 6000000, N0 + 2000000, T0, N0); /* 2 ms after its ref */
	craft_mark(&c, T0 + 6000000 + GHZ3, 1);
	craft_end(&c, 0);
	craft_decode(&c, &g);
	ck_assert_msg(g.ret == 0, "%d %s", g.ret, g.err);
	ck_assert_uint_eq(g.st.clock_pairs, 2);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_uint_eq(g.start[0], N0 + 2000000 + 1000000000ull);
}
END_TEST

/* No rate (one pair, no reference), no pairs, or a stream that does not
 * announce TSC stamps: the flagged records are refused as damage, named by
 * offset, and the others still arrive. */
START_TEST(test_unconvertible_refused)
{
	struct craft c;
	struct got g;

	craft_init(&c, NPUPROF_HOSTFMT_F_TSC);
	craft_clock(&c, T0, N0, 0, 0);
	craft_mark(&c, T0 + 1, 1);
	craft_mark(&c, 777, 0);
	craft_end(&c, 0);
	craft_decode(&c, &g);
	ck_assert_int_eq(g.ret, NPUPROF_HOSTREAD_EDAMAGED);
	ck_assert_uint_eq(g.st.bad_records, 1);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_uint_eq(g.start[0], 777);
	ck_assert_msg(strstr(g.err, "crafted: offset ") && strstr(g.err, "without clock pairs"),
		      "%s", g.err);

	craft_init(&c, 0); /* the header does not say TSC: no pairs are read */
	craft_clock(&c, T0, N0, T0 - GHZ3, N0 - 1000000000ull);
	craft_mark(&c, T0 + 1, 1);
	craft_end(&c, 0);
	craft_decode(&c, &g);
	ck_assert_int_eq(g.ret, NPUPROF_HOSTREAD_EDAMAGED);
	ck_assert_uint_eq(g.st.bad_records, 1);
	ck_assert_uint_eq(g.n, 0);
}
END_TEST

/* A result outside 0..UINT64_MAX is refused, never wrapped. */
START_TEST(test_out_of_range_refused)
{
	struct craft c;
	struct got g;

	/* 2 ns per tick */
	craft_init(&c, NPUPROF_HOSTFMT_F_TSC);
	craft_clock(&c, T0, N0, 0, 0);
	craft_clock(&c, T0 + 1000000000ull, N0 + 2000000000ull, 0, 0);
	craft_mark(&c, 1, 1); /* 6 s before the first pair: fine */
	craft_mark(&c, UINT64_MAX, 1); /* 2^65 ns: does not fit */
	craft_end(&c, 0);
	craft_decode(&c, &g);
	ck_assert_int_eq(g.ret, NPUPROF_HOSTREAD_EDAMAGED);
	ck_assert_uint_eq(g.st.bad_records, 1);
	ck_assert_msg(strstr(g.err, "does not convert"), "%s", g.err);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_uint_eq(g.start[0], N0 - 2 * (T0 - 1));

	/* a pair set whose extrapolation goes below 0 */
	craft_init(&c, NPUPROF_HOSTFMT_F_TSC);
	craft_clock(&c, T0, 1000, 0, 0);
	craft_clock(&c, T0 + GHZ3, 1000000000ull + 1000, 0, 0);
	craft_mark(&c, 1, 1);
	craft_end(&c, 0);
	craft_decode(&c, &g);
	ck_assert_int_eq(g.ret, NPUPROF_HOSTREAD_EDAMAGED);
	ck_assert_uint_eq(g.st.bad_records, 1);
	ck_assert_uint_eq(g.n, 0);
}
END_TEST

/* A pair whose time goes backwards is dropped and reported; a clock block
 * with a bad CRC is skipped; the records convert along the good pairs. */
START_TEST(test_damaged_pairs)
{
	struct craft c;
	struct got g;
	size_t at;

	craft_init(&c, NPUPROF_HOSTFMT_F_TSC);
	craft_clock(&c, T0, N0, 0, 0);
	craft_clock(&c, T0 + GHZ3 / 2, N0 - 5, 0, 0); /* backwards */
	craft_clock(&c, T0 + GHZ3, N0 + 1000000000ull, 0, 0);
	at = c.len;
	craft_clock(&c, T0 + GHZ3 + GHZ3 / 2, N0 + 9000000000ull, 0, 0); /* CRC broken below */
	craft_clock(&c, T0 + 2 * GHZ3, N0 + 2000000000ull, 0, 0);
	craft_mark(&c, T0 + GHZ3 / 4, 1);
	craft_mark(&c, T0 + GHZ3 + GHZ3 / 2, 1);
	craft_end(&c, 0);
	c.buf[at + sizeof(struct npuprof_hostfmt_block_header) + 16] ^= 0x40; /* its tsc */
	craft_decode(&c, &g);
	ck_assert_int_eq(g.ret, NPUPROF_HOSTREAD_EDAMAGED);
	ck_assert_uint_eq(g.st.bad_blocks, 1);
	ck_assert_uint_eq(g.st.bad_records, 0);
	ck_assert_uint_eq(g.st.clock_pairs, 3);
	ck_assert_msg(strstr(g.err, "out of order"), "%s", g.err);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_uint_eq(g.start[0], N0 + 250000000ull);
	ck_assert_uint_eq(g.start[1], N0 + 1500000000ull);
}
END_TEST

/* A flagged TX record (a stamp whose message is not in the dictionary):
 * both times convert, a 0 (an absent half) stays 0; the message stays. */
START_TEST(test_tx_record)
{
	struct craft c;
	struct got g;
	union {
		struct npuprof_hostfmt_tx t;
		uint8_t b[96];
	} u;

	memset(&u, 0, sizeof(u));
	u.t.h = (struct npuprof_hostfmt_header){
		.size = npuprof_hostfmt_size(offsetof(struct npuprof_hostfmt_tx, message), 3),
		.kind = NPUPROF_HOSTFMT_TX,
		.reserved = NPUPROF_HOSTFMT_F_TSC
	};
	u.t.start_ns = T0 + GHZ3;
	u.t.end_ns = 0;
	u.t.range_id = NPUPROF_TX_NO_RANGE;
	u.t.event_type = NPUPROF_TX_START_STOP;
	u.t.info_type = 1;
	u.t.msg_len = 2;
	memcpy(u.t.message, "hi", 3);
	craft_init(&c, NPUPROF_HOSTFMT_F_TSC);
	craft_clock(&c, T0, N0, T0 - GHZ3 / 2, N0 - 500000000ull);
	craft_block(&c, 7, &u, u.t.h.size);
	u.t.start_ns = T0 - GHZ3 / 2;
	u.t.end_ns = T0 + 3 * GHZ3;
	craft_block(&c, 7, &u, u.t.h.size);
	craft_end(&c, 0);
	craft_decode(&c, &g);
	ck_assert_msg(g.ret == 0, "%d %s", g.ret, g.err);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_uint_eq(g.start[0], N0 + 1000000000ull);
	ck_assert_uint_eq(g.end[0], 0);
	ck_assert_uint_eq(g.start[1], N0 - 500000000ull);
	ck_assert_uint_eq(g.end[1], N0 + 3000000000ull);
}
END_TEST

/* ---- the recorder, one child process per time base ------------------------ */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What the recorder must choose for NPUPROF_HOST_CLOCK=tsc here: an
 * invariant TSC and the clocksource tsc or kvm-clock (checked
 * independently of it). */
static int tsc_possible(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;
	char cs[32] = "";
	FILE *f;

	if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
		return 0;
	__cpuid(0x80000007u, a, b, c, d);
	if (!(d & (1u << 8)))
		return 0;
	f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (!f)
		return 0;
	if (!fgets(cs, sizeof(cs), f))
		cs[0] = '\0';
	fclose(f);
	cs[strcspn(cs, "\n")] = '\0';
	return !strcmp(cs, "tsc") || !strcmp(cs, "kvm-clock");
#else
	return 0;
#endif
}

#define ROUNDS 50
/* Child: ROUNDS times (t0, Mark, Push, Pop, RangeStart, RangeStop, mstxMark,
 * mstxRange, t1), the bounds written to `bounds` (a pipe). Exit status 0. */
static int child(const char *dir, int bounds)
{
	aclprofConfig *cfg;
	void *st;
	int bad = 0;

	if (aclprofInit(dir, strlen(dir)) != ACL_SUCCESS)
		return 10;
	cfg = aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL, ACL_PROF_MSPROFTX);
	if (!cfg || aclprofStart(cfg) != ACL_SUCCESS)
		return 11;
	st = aclprofCreateStamp();
	if (!st || aclprofSetStampTraceMessage(st, "tsc", 3))
		return 12;
	for (int i = 0; i < ROUNDS; i++) {
		uint64_t b[2];
		uint32_t rid;

		b[0] = mono_ns();
		bad |= aclprofMark(st) != 0;
		bad |= aclprofPush(st) != 0;
		bad |= aclprofPop() != 0;
		bad |= aclprofRangeStart(st, &rid) != 0;
		bad |= aclprofRangeStop(rid) != 0;
		mstxMarkA("m", NULL);
		mstxRangeEnd(mstxRangeStartA("r", NULL));
		b[1] = mono_ns();
		if (write(bounds, b, sizeof(b)) != sizeof(b))
			return 13;
		if (i == ROUNDS / 2)
			usleep(150 * 1000); /* past a writer cycle: pairs between the stamps */
	}
	aclprofDestroyStamp(st);
	if (aclprofStop(cfg) != ACL_SUCCESS || aclprofDestroyConfig(cfg) != ACL_SUCCESS ||
	    aclprofFinalize() != ACL_SUCCESS)
		return 14;
	return bad ? 15 : 0;
}

static void run_mode(const char *mode, int expect_tsc)
{
	uint64_t bounds[ROUNDS][2];
	char *dir = tu_tmpdir();
	struct npuprof_hostfmt_file_header fh;
	struct decoded *d;
	int p[2], status, fd;
	size_t nclock = 0, ntx;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		setenv("NPUPROF_HOST_CLOCK", mode, 1);
		_exit(child(dir, p[1]));
	}
	close(p[1]);
	for (size_t i = 0; i < ROUNDS; i++) {
		size_t got = 0;

		while (got < sizeof(bounds[i])) {
			ssize_t n = read(p[0], (char *)bounds[i] + got, sizeof(bounds[i]) - got);

			ck_assert_int_gt(n, 0);
			got += (size_t)n;
		}
	}
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);

	/* The raw file says which base its stamps carry. */
	fd = open(tu_find_stream(dir), O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, &fh, sizeof(fh)), sizeof(fh));
	close(fd);
	ck_assert_uint_eq(fh.flags & NPUPROF_HOSTFMT_F_TSC, expect_tsc ? NPUPROF_HOSTFMT_F_TSC : 0);

	d = tu_decode(tu_find_stream(dir));
	ck_assert_msg(d->ret == 0, "%d %s", d->ret, d->err);
	for (size_t i = 0; i < d->n; i++) {
		if (d->rec[i]->kind == NPUPROF_HOSTFMT_CLOCK)
			nclock++;
		ck_assert_uint_eq(d->rec[i]->reserved, 0);
	}
	if (expect_tsc) {
		/* start, stop and at least the writer's cycles around the sleep */
		ck_assert_uint_ge(nclock, 3);
		ck_assert_uint_ge(d->st.clock_pairs, 4);
	} else {
		ck_assert_uint_eq(nclock, 0);
	}
	/* Per round: Mark, Push+Pop, Range, mstx mark, mstx start + end. */
	ntx = tu_count_tx(d);
	ck_assert_uint_eq(ntx, (size_t)ROUNDS * 6);
	for (size_t i = 0; i < ntx; i++) {
		const struct npuprof_hostfmt_tx *t = tu_nth_tx(d, i);
		const uint64_t *b = bounds[i / 6];
		const uint64_t slack = 1000; /* 1 us */

		if (t->start_ns)
			ck_assert_msg(t->start_ns + slack >= b[0] && t->start_ns <= b[1] + slack,
				      "%s: event %zu start %llu outside [%llu, %llu]", mode, i,
				      (unsigned long long)t->start_ns, (unsigned long long)b[0],
				      (unsigned long long)b[1]);
		if (t->end_ns)
			ck_assert_msg(t->end_ns + slack >= b[0] && t->end_ns <= b[1] + slack,
				      "%s: event %zu end %llu outside [%llu, %llu]", mode, i,
				      (unsigned long long)t->end_ns, (unsigned long long)b[0],
				      (unsigned long long)b[1]);
		ck_assert(t->start_ns || t->end_ns);
		if (t->start_ns && t->end_ns)
			ck_assert_uint_le(t->start_ns, t->end_ns);
	}
	tu_free(d);
	tu_rm_rf(dir);
	free(dir);
}

START_TEST(test_recorder_tsc)
{
	run_mode("tsc", tsc_possible());
}
END_TEST

START_TEST(test_recorder_monotonic)
{
	run_mode("monotonic", 0);
}
END_TEST

/* An idle collection does not grow: the writer's cycles add a pair only
 * after they wrote blocks (20 ms cycles for 400 ms: start, the first
 * cycle after the session blocks, stop). */
START_TEST(test_recorder_idle)
{
	char *dir = tu_tmpdir();
	struct decoded *d;
	size_t nclock = 0;
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct npuprof_hostrec_config cfg = { .dir = dir, .flush_interval_ms = 20 };
		char err[256];

		setenv("NPUPROF_HOST_CLOCK", "tsc", 1);
		if (npuprof_hostrec_start(&cfg, err, sizeof(err)))
			_exit(10);
		usleep(400 * 1000);
		_exit(npuprof_hostrec_stop() ? 11 : 0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
	d = tu_decode(tu_find_stream(dir));
	ck_assert_msg(d->ret == 0, "%d %s", d->ret, d->err);
	for (size_t i = 0; i < d->n; i++)
		nclock += d->rec[i]->kind == NPUPROF_HOSTFMT_CLOCK;
	if (tsc_possible()) {
		ck_assert_uint_ge(nclock, 2);
		ck_assert_uint_le(nclock, 4);
	} else {
		ck_assert_uint_eq(nclock, 0);
	}
	tu_free(d);
	tu_rm_rf(dir);
	free(dir);
}
END_TEST

/* A value the recorder does not know fails the start, naming the variable. */
START_TEST(test_recorder_bad_env)
{
	char *dir = tu_tmpdir();
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		aclprofConfig *cfg;

		setenv("NPUPROF_HOST_CLOCK", "rdtsc", 1);
		if (aclprofInit(dir, strlen(dir)) != ACL_SUCCESS)
			_exit(10);
		cfg = aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL, ACL_PROF_MSPROFTX);
		_exit(cfg && aclprofStart(cfg) != ACL_SUCCESS ? 0 : 11);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
	tu_rm_rf(dir);
	free(dir);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("stamp_tsc");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_interpolate_and_extrapolate);
	tcase_add_test(tc, test_extrapolate_skips_short_spans);
	tcase_add_test(tc, test_one_pair_with_reference);
	tcase_add_test(tc, test_unconvertible_refused);
	tcase_add_test(tc, test_out_of_range_refused);
	tcase_add_test(tc, test_damaged_pairs);
	tcase_add_test(tc, test_tx_record);
	tcase_add_test(tc, test_recorder_tsc);
	tcase_add_test(tc, test_recorder_monotonic);
	tcase_add_test(tc, test_recorder_idle);
	tcase_add_test(tc, test_recorder_bad_env);
	suite_add_tcase(s, tc);
	return s;
}
