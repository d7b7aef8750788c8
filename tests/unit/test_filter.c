/*
 * test_filter.c — the definitions both capture engines compile, run
 * directly in userspace: the capture decision of uapi/npuprof_filter.h
 * (pid, device, stream and sampling cases, the owner table, the order of
 * the verdicts), the task key of uapi/npuprof.h (round trip and masking),
 * the ring size rule and the CLOCK_SYNC record encoder.
 *
 * npuprof.ko and the BPF programs compile the same header (the module and
 * BPF builds), and tests/unit/test_bpf_encode.c and the VM suites check
 * that the engines behave as these cases say.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uapi/npuprof_filter.h"

#define ME 4242u
#define OTHER 777u

static __u64 mask[NPUPROF_MAX_STREAMS / 64];
static __u8 owner[NPUPROF_OWNER_SLOTS];

static struct npuprof_filter filter(uint32_t pid, uint32_t dev_mask, uint32_t sample_n,
				    uint32_t flags)
{
	struct npuprof_filter f = {
		.pid = pid,
		.dev_mask = dev_mask,
		.sample_n = sample_n,
		.flags = flags,
		.stream_mask = mask,
		.owner = pid ? owner : NULL,
		.any_uid = 1,
	};

	memset(mask, 0, sizeof(mask));
	memset(owner, 0, sizeof(owner));
	return f;
}

static void want_stream(uint32_t s)
{
	mask[s / 64] |= 1ULL << (s % 64);
}

static int decide(const struct npuprof_filter *f, int kind, uint32_t dev, uint32_t stream,
		  uint32_t task, uint32_t tgid)
{
	struct npuprof_who who = { tgid, 0, 0 };

	return npuprof_filter_decide(f, kind, dev, stream, task, &who);
}

/* ---- the task key --------------------------------------------------------- */

START_TEST(test_task_key_round_trip)
{
	static const uint32_t devs[] = { 0, 1, 31, 0xffffffffu };
	static const uint32_t streams[] = { 0, 1, 4095, 0x7fff };
	static const uint32_t tasks[] = { 0, 1, 0x1234, 0xffff };

	for (unsigned d = 0; d < 4; d++)
		for (unsigned s = 0; s < 4; s++)
			for (unsigned t = 0; t < 4; t++) {
				uint64_t k = npuprof_task_key(devs[d], streams[s], tasks[t]);

				ck_assert_uint_eq(npuprof_task_key_dev(k), devs[d]);
				ck_assert_uint_eq(npuprof_task_key_stream(k), streams[s]);
				ck_assert_uint_eq(npuprof_task_key_task(k), tasks[t]);
			}
	/* the packing itself: other code (saved maps, logs) may rely on it */
	ck_assert_uint_eq(npuprof_task_key(3, 5, 7), 0x0000000300050007ULL);
	ck_assert_uint_eq(npuprof_stream_key(3, 5), 0x0000000300050000ULL);
}
END_TEST

START_TEST(test_task_key_masks)
{
	/* a CQE's match flag (bit 15) is not part of the stream */
	ck_assert_uint_eq(npuprof_stream_id(5 | 0x8000), 5);
	ck_assert_uint_eq(npuprof_stream_id(0xffffffffu), NPUPROF_STREAM_ID_MASK);
	ck_assert_uint_eq(npuprof_task_key(1, 5 | 0x8000, 9), npuprof_task_key(1, 5, 9));
	ck_assert_uint_eq(npuprof_stream_key(1, 5 | 0x8000), npuprof_stream_key(1, 5));
	/* task ids are 16 bits and wrap */
	ck_assert_uint_eq(npuprof_task_key(1, 5, 0x10009), npuprof_task_key(1, 5, 9));
	/* nothing of one field leaks into another */
	ck_assert_uint_ne(npuprof_task_key(1, 0, 0), npuprof_task_key(0, 0x8000, 0));
	ck_assert_uint_ne(npuprof_task_key(0, 1, 0), npuprof_task_key(0, 0, 0x10000));
	/* the sampling hash judges the key, so the match flag changes nothing */
	for (uint32_t t = 0; t < 1000; t++)
		ck_assert_uint_eq(npuprof_task_hash(2, 7 | 0x8000, t), npuprof_task_hash(2, 7, t));
}
END_TEST

/* ---- the capture decision ------------------------------------------------ */

START_TEST(test_no_filters_keep_all)
{
	struct npuprof_filter f = filter(0, 0, 0, 0);

	for (int kind = 0; kind <= NPUPROF_KIND_TASK; kind++)
		for (uint32_t d = 0; d < 40; d += 13)
			ck_assert_int_eq(decide(&f, kind, d, 9999, 1, OTHER), NPUPROF_KEEP);
	ck_assert(npuprof_filter_wants(&f, NPUPROF_REC_RECV));
	ck_assert(npuprof_filter_wants(&f, NPUPROF_REC_SUBMIT));
}
END_TEST

START_TEST(test_device_mask)
{
	struct npuprof_filter f = filter(0, (1u << 1) | (1u << 3), 0, 0);

	for (uint32_t d = 0; d < 6; d++) {
		int want = d == 1 || d == 3 ? NPUPROF_KEEP : NPUPROF_FILTERED;

		ck_assert_int_eq(decide(&f, NPUPROF_KIND_SUBMIT, d, 1, 1, ME), want);
		ck_assert_int_eq(decide(&f, NPUPROF_KIND_TASK, d, 1, 1, ME), want);
		/* recv records too */
		ck_assert_int_eq(decide(&f, NPUPROF_KIND_OTHER, d, 1, 0, ME), want);
	}
	/* beyond what a mask can name */
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_SUBMIT, 32, 1, 1, ME), NPUPROF_FILTERED);
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_SUBMIT, 40, 1, 1, ME), NPUPROF_FILTERED);
	f.dev_mask = 1u << 31;
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_SUBMIT, 31, 1, 1, ME), NPUPROF_KEEP);
}
END_TEST

START_TEST(test_stream_mask)
{
	struct npuprof_filter f = filter(0, 0, 0, NPUPROF_CFG_STREAM_FILTER);

	want_stream(2);
	want_stream(100);
	want_stream(4095);
	for (uint32_t s = 0; s < 128; s++) {
		int want = s == 2 || s == 100 ? NPUPROF_KEEP : NPUPROF_FILTERED;

		ck_assert_int_eq(decide(&f, NPUPROF_KIND_SUBMIT, 0, s, 1, ME), want);
		/* a completion's raw stream id: the match flag is not the id */
		ck_assert_int_eq(decide(&f, NPUPROF_KIND_TASK, 0, s | 0x8000, 1, ME), want);
		/* recv records are not stream-filtered (their id is a channel) */
		ck_assert_int_eq(decide(&f, NPUPROF_KIND_OTHER, 0, s, 0, ME), NPUPROF_KEEP);
	}
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_SUBMIT, 0, 4095, 1, ME), NPUPROF_KEEP);
	/* out of the filter's range: never aliases onto a wanted stream */
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_SUBMIT, 0, 4096 + 2, 1, ME), NPUPROF_FILTERED);
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_SUBMIT, 0, 0x7fff, 1, ME), NPUPROF_FILTERED);
	/* the mask is only read when the flag says so */
	f.flags = 0;
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_SUBMIT, 0, 7, 1, ME), NPUPROF_KEEP);
}
END_TEST

START_TEST(test_pid_and_owner)
{
	struct npuprof_filter f = filter(ME, 0, 0, 0);

	/* never submitted: its completions are not ours */
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_TASK, 0, 5, 1, 0), NPUPROF_FILTERED);
	/* our submit is kept and makes the stream ours ... */
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_SUBMIT, 0, 5, 1, ME), NPUPROF_KEEP);
	ck_assert_uint_eq(owner[5], NPUPROF_OWNER_KEEP);
	/* ... so its completions are kept in whatever task they arrive */
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_TASK, 0, 5 | 0x8000, 1, OTHER), NPUPROF_KEEP);
	/* the same stream id on another device is another stream */
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_TASK, 1, 5, 1, 0), NPUPROF_FILTERED);
	/* stream ids name owner entries modulo NPUPROF_MAX_STREAMS */
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_TASK, 0, 5 + NPUPROF_MAX_STREAMS, 1, ME),
			 NPUPROF_KEEP);
	/* another process submitting to the stream takes it over */
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_SUBMIT, 0, 5, 2, OTHER), NPUPROF_FILTERED);
	ck_assert_uint_eq(owner[5], NPUPROF_OWNER_SKIP);
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_TASK, 0, 5, 2, ME), NPUPROF_FILTERED);
	/* recv records: the current task decides, nothing is learnt */
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_OTHER, 0, 9, 0, ME), NPUPROF_KEEP);
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_OTHER, 0, 9, 0, OTHER), NPUPROF_FILTERED);
	ck_assert_uint_eq(owner[9], NPUPROF_OWNER_UNKNOWN);
	/* the last owner slot (device 31, stream 4095) is in the table */
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_SUBMIT, 31, 4095, 1, ME), NPUPROF_KEEP);
	ck_assert_uint_eq(owner[NPUPROF_OWNER_SLOTS - 1], NPUPROF_OWNER_KEEP);
	/* devices beyond the table: no owner, judged like no pid filter */
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_TASK, 32, 5, 1, ME), NPUPROF_KEEP);
}
END_TEST

/* The SQ owner table: a submit on a channel whose creator is known is
 * judged by (and attributed to) the creator, whatever task is current (a
 * UIO_T forwarding kernel thread); unknown channels, out-of-range ids and
 * non-submit records fall back to the current task. */
START_TEST(test_sq_owner)
{
	static struct npuprof_sq_owner tab[NPUPROF_SQ_OWNER_SLOTS];
	struct npuprof_filter f = filter(ME, 0, 0, 0);
	const __u32 kworker = 55;
	struct npuprof_who w;

	memset(tab, 0, sizeof(tab));
	f.sq_owner = tab;
	tab[npuprof_sq_owner_index(1, 7)] = (struct npuprof_sq_owner){ ME, 1000 };
	tab[npuprof_sq_owner_index(1, 8)] = (struct npuprof_sq_owner){ OTHER, 1001 };

	w = npuprof_filter_who(&f, NPUPROF_KIND_SUBMIT, 1, 7, kworker, 0);
	ck_assert_uint_eq(w.tgid, ME);
	ck_assert_uint_eq(w.uid, 1000);
	ck_assert_uint_eq(w.sq_owner, 1);
	ck_assert_int_eq(npuprof_filter_decide(&f, NPUPROF_KIND_SUBMIT, 1, 3, 1, &w), NPUPROF_KEEP);
	/* the verdict lands in the stream table: the stream's completions pass */
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_TASK, 1, 3, 1, kworker), NPUPROF_KEEP);

	w = npuprof_filter_who(&f, NPUPROF_KIND_SUBMIT, 1, 8, kworker, 0);
	ck_assert_uint_eq(w.tgid, OTHER);
	ck_assert_int_eq(npuprof_filter_decide(&f, NPUPROF_KIND_SUBMIT, 1, 4, 1, &w),
			 NPUPROF_FILTERED);
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_TASK, 1, 4, 1, ME), NPUPROF_FILTERED);

	/* the creator submitting itself (KIO): not flagged */
	w = npuprof_filter_who(&f, NPUPROF_KIND_SUBMIT, 1, 7, ME, 1000);
	ck_assert_uint_eq(w.sq_owner, 0);
	ck_assert_uint_eq(w.tgid, ME);
	/* unknown channel, other device, ids beyond the table: the current task */
	w = npuprof_filter_who(&f, NPUPROF_KIND_SUBMIT, 1, 9, kworker, 0);
	ck_assert_uint_eq(w.tgid, kworker);
	ck_assert_uint_eq(w.sq_owner, 0);
	w = npuprof_filter_who(&f, NPUPROF_KIND_SUBMIT, 0, 7, kworker, 0);
	ck_assert_uint_eq(w.tgid, kworker);
	w = npuprof_filter_who(&f, NPUPROF_KIND_SUBMIT, 1, NPUPROF_MAX_STREAMS, kworker, 0);
	ck_assert_uint_eq(w.tgid, kworker);
	w = npuprof_filter_who(&f, NPUPROF_KIND_SUBMIT, NPUPROF_MAX_DEVICES, 7, kworker, 0);
	ck_assert_uint_eq(w.tgid, kworker);
	ck_assert_uint_eq(npuprof_sq_owner_index(NPUPROF_MAX_DEVICES, 0), NPUPROF_SQ_OWNER_SLOTS);
	/* only submits look at the table */
	w = npuprof_filter_who(&f, NPUPROF_KIND_OTHER, 1, 7, kworker, 0);
	ck_assert_uint_eq(w.tgid, kworker);
	/* without a table: the current task */
	f.sq_owner = NULL;
	w = npuprof_filter_who(&f, NPUPROF_KIND_SUBMIT, 1, 7, kworker, 0);
	ck_assert_uint_eq(w.tgid, kworker);
}
END_TEST

/* A stream no submit gave a verdict (UIO_D sends fire no trs_chan:sqe):
 * its completions and task times are judged by the SQ's owner, looked up
 * for them, never by the interrupted task, and attributed to it; a
 * submit's verdict, where there is one, stands. */
START_TEST(test_task_by_sq_owner)
{
	static struct npuprof_sq_owner tab[NPUPROF_SQ_OWNER_SLOTS];
	struct npuprof_filter f = filter(ME, 0, 0, 0);
	const __u32 irq_task = 55;
	struct npuprof_who w;

	memset(tab, 0, sizeof(tab));
	f.sq_owner = tab;
	tab[npuprof_sq_owner_index(0, 7)] = (struct npuprof_sq_owner){ ME, 1000 };
	tab[npuprof_sq_owner_index(0, 8)] = (struct npuprof_sq_owner){ OTHER, 1001 };

	w = npuprof_filter_who(&f, NPUPROF_KIND_TASK, 0, 7, irq_task, 0);
	ck_assert_uint_eq(w.tgid, ME);
	ck_assert_uint_eq(w.uid, 1000);
	ck_assert_uint_eq(w.sq_owner, 1); /* attributed, whoever is current */
	w = npuprof_filter_who(&f, NPUPROF_KIND_TASK, 0, 7, ME, 0);
	ck_assert_uint_eq(w.sq_owner, 1);
	ck_assert_int_eq(npuprof_filter_decide(&f, NPUPROF_KIND_TASK, 0, 7, 1, &w), NPUPROF_KEEP);
	ck_assert_uint_eq(owner[7], NPUPROF_OWNER_UNKNOWN); /* nothing learnt */
	w = npuprof_filter_who(&f, NPUPROF_KIND_TASK, 0, 8, ME, 0);
	ck_assert_uint_eq(w.tgid, OTHER);
	ck_assert_int_eq(npuprof_filter_decide(&f, NPUPROF_KIND_TASK, 0, 8, 1, &w),
			 NPUPROF_FILTERED);
	/* an unknown channel: nobody, even when we are the interrupted task */
	w = npuprof_filter_who(&f, NPUPROF_KIND_TASK, 0, 9, ME, 0);
	ck_assert_uint_eq(w.tgid, 0);
	ck_assert_int_eq(npuprof_filter_decide(&f, NPUPROF_KIND_TASK, 0, 9, 1, &w),
			 NPUPROF_FILTERED);
	/* another process's submit on our channel's stream: its verdict stands */
	ck_assert_int_eq(decide(&f, NPUPROF_KIND_SUBMIT, 0, 7, 2, OTHER), NPUPROF_FILTERED);
	w = npuprof_filter_who(&f, NPUPROF_KIND_TASK, 0, 7, irq_task, 0);
	ck_assert_int_eq(npuprof_filter_decide(&f, NPUPROF_KIND_TASK, 0, 7, 2, &w),
			 NPUPROF_FILTERED);
	/* the engine's permission holds for them too */
	f.any_uid = 0;
	f.uid = 1001;
	tab[npuprof_sq_owner_index(0, 10)] = (struct npuprof_sq_owner){ ME, 1000 };
	w = npuprof_filter_who(&f, NPUPROF_KIND_TASK, 0, 10, irq_task, 0);
	ck_assert_int_eq(npuprof_filter_decide(&f, NPUPROF_KIND_TASK, 0, 10, 1, &w),
			 NPUPROF_FILTERED);
}
END_TEST

/* The attribution survives the header stamp; other records keep the
 * current task's pid. */
START_TEST(test_encode_sq_owner)
{
	struct npuprof_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = NPUPROF_REC_SUBMIT;
	npuprof_encode_sq_owner(&r, ME);
	npuprof_encode_hdr(&r, 1, 0, 55, 56);
	ck_assert_uint_eq(r.hdr.pid, ME);
	ck_assert_uint_eq(r.hdr.tid, 56);
	ck_assert_uint_eq(r.hdr.flags, NPUPROF_F_SQ_OWNER);
	memset(&r, 0, sizeof(r));
	npuprof_encode_hdr(&r, 1, 0, 55, 56);
	ck_assert_uint_eq(r.hdr.pid, 55);
}
END_TEST

/* The engine's own permission (the kmod's unprivileged sessions). */
START_TEST(test_not_allowed)
{
	struct npuprof_filter f = filter(ME, 0, 0, 0);
	struct npuprof_who who = { ME, 1000, 0 }; /* another user's task */

	f.any_uid = 0;
	f.uid = 1001;
	ck_assert_int_eq(npuprof_filter_decide(&f, NPUPROF_KIND_SUBMIT, 0, 3, 1, &who),
			 NPUPROF_FILTERED);
	ck_assert_uint_eq(owner[3], NPUPROF_OWNER_SKIP);
	ck_assert_int_eq(npuprof_filter_decide(&f, NPUPROF_KIND_OTHER, 0, 3, 0, &who),
			 NPUPROF_FILTERED);
	/* completions are judged by the owner table alone */
	owner[3] = NPUPROF_OWNER_KEEP;
	ck_assert_int_eq(npuprof_filter_decide(&f, NPUPROF_KIND_TASK, 0, 3, 1, &who), NPUPROF_KEEP);
}
END_TEST

START_TEST(test_sampling)
{
	const uint32_t n = 3;
	struct npuprof_filter f = filter(0, 0, n, 0);
	uint32_t keep = 0;

	for (uint32_t task = 0; task < 3000; task++) {
		int k = npuprof_sample_keep(n, 1, 7, task);
		int want = k ? NPUPROF_KEEP : NPUPROF_SAMPLED_OUT;

		keep += k;
		/* a submit, its completion and its task time fall together */
		ck_assert_int_eq(decide(&f, NPUPROF_KIND_SUBMIT, 1, 7, task, ME), want);
		ck_assert_int_eq(decide(&f, NPUPROF_KIND_TASK, 1, 7 | 0x8000, task, ME), want);
		/* task ids wrap at 16 bits: the same decision */
		ck_assert_int_eq(decide(&f, NPUPROF_KIND_TASK, 1, 7, task + 0x10000, ME), want);
	}
	ck_assert_uint_gt(keep, 3000 / n - 150);
	ck_assert_uint_lt(keep, 3000 / n + 150);
	/* recv records are no task's: never sampled out */
	for (uint32_t c = 0; c < 100; c++)
		ck_assert_int_eq(decide(&f, NPUPROF_KIND_OTHER, 1, c, c, ME), NPUPROF_KEEP);
	/* 0 and 1 keep everything */
	for (f.sample_n = 0; f.sample_n <= 1; f.sample_n++)
		for (uint32_t task = 0; task < 100; task++)
			ck_assert_int_eq(decide(&f, NPUPROF_KIND_SUBMIT, 1, 7, task, ME),
					 NPUPROF_KEEP);
}
END_TEST

/* Sampling is decided first: a sampled-out record counts as sampled out
 * whatever the filters say, and a sampled-out submit leaves the owner
 * table alone; the filters judge the records the sampling keeps. */
START_TEST(test_sampling_first)
{
	struct npuprof_filter f = filter(ME, 1u << 0, 5, NPUPROF_CFG_STREAM_FILTER);
	uint32_t out = 0, in = 0;

	want_stream(7);
	for (uint32_t task = 0; task < 500; task++) {
		int k = npuprof_sample_keep(5, 1, 8, task);

		/* wrong device, wrong stream, another process */
		ck_assert_int_eq(decide(&f, NPUPROF_KIND_SUBMIT, 1, 8, task, OTHER),
				 k ? NPUPROF_FILTERED : NPUPROF_SAMPLED_OUT);
		out += !k;
		in += k;
	}
	ck_assert_uint_gt(out, 0);
	ck_assert_uint_gt(in, 0);
	for (uint32_t task = 0; task < 500; task++) {
		if (npuprof_sample_keep(5, 0, 7, task))
			continue;
		ck_assert_int_eq(decide(&f, NPUPROF_KIND_SUBMIT, 0, 7, task, OTHER),
				 NPUPROF_SAMPLED_OUT);
	}
	ck_assert_uint_eq(owner[7], NPUPROF_OWNER_UNKNOWN);
}
END_TEST

START_TEST(test_no_recv)
{
	struct npuprof_filter f = filter(0, 0, 0, NPUPROF_CFG_NO_RECV);

	ck_assert(!npuprof_filter_wants(&f, NPUPROF_REC_RECV));
	ck_assert(npuprof_filter_wants(&f, NPUPROF_REC_SUBMIT));
	ck_assert(npuprof_filter_wants(&f, NPUPROF_REC_COMPLETE));
	ck_assert(npuprof_filter_wants(&f, NPUPROF_REC_TASK_TIME));
}
END_TEST

/* ---- ring sizes ------------------------------------------------------------- */

START_TEST(test_ring_bytes)
{
	ck_assert(npuprof_ring_bytes_valid(NPUPROF_RING_MIN_BYTES, 4096));
	ck_assert(npuprof_ring_bytes_valid(NPUPROF_RING_MAX_BYTES, 4096));
	ck_assert(npuprof_ring_bytes_valid(1 << 16, 4096));
	ck_assert(!npuprof_ring_bytes_valid(0, 4096));
	ck_assert(!npuprof_ring_bytes_valid(NPUPROF_RING_MIN_BYTES / 2, 4096));
	ck_assert(!npuprof_ring_bytes_valid(NPUPROF_RING_MAX_BYTES * 2, 4096));
	ck_assert(!npuprof_ring_bytes_valid(3 << 20, 4096));
	ck_assert(!npuprof_ring_bytes_valid(100000, 4096));
	/* a 64 KiB page machine: a ring is a page at least */
	ck_assert(!npuprof_ring_bytes_valid(32 << 10, 64 << 10));
	ck_assert(npuprof_ring_bytes_valid(64 << 10, 64 << 10));
	/* what the kernel and the BPF engine's rings can take */
	ck_assert_uint_le(NPUPROF_RING_MAX_BYTES, 1ULL << 31);
	ck_assert_uint_le(NPUPROF_RING_MAX_UNPRIV_BYTES, NPUPROF_RING_MAX_BYTES);
	ck_assert_uint_eq(NPUPROF_RING_MIN_BYTES % NPUPROF_RECORD_SIZE, 0);
}
END_TEST

/* ---- the CLOCK_SYNC record ----------------------------------------------------- */

START_TEST(test_encode_clock_sync)
{
	struct npuprof_record r;

	memset(&r, 0xa5, sizeof(r));
	npuprof_encode_clock_sync(&r, 3, 123456789, 42, 50000000);
	npuprof_encode_hdr(&r, 123456789, 1, 99, 100);
	ck_assert_uint_eq(r.hdr.type, NPUPROF_REC_CLOCK_SYNC);
	ck_assert_uint_eq(r.hdr.size, NPUPROF_RECORD_SIZE);
	ck_assert_uint_eq(r.hdr.flags, 0);
	ck_assert_uint_eq(r.hdr.ts, 123456789);
	ck_assert_uint_eq(r.hdr.cpu, 1);
	ck_assert_uint_eq(r.hdr.pid, 99);
	ck_assert_uint_eq(r.hdr.tid, 100);
	ck_assert_uint_eq(r.clock.devid, 3);
	ck_assert_uint_eq(r.clock.host_ns, 123456789);
	ck_assert_uint_eq(r.clock.dev_cnt, 42);
	ck_assert_uint_eq(r.clock.counter_hz, 50000000);
	ck_assert_uint_eq(r.clock.rsv, 0);
	ck_assert_uint_eq(r.clock.rsv2, 0);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("filter");
	TCase *tk = tcase_create("task_key");
	TCase *tf = tcase_create("decision");
	TCase *tr = tcase_create("records");

	tcase_add_test(tk, test_task_key_round_trip);
	tcase_add_test(tk, test_task_key_masks);
	tcase_add_test(tf, test_no_filters_keep_all);
	tcase_add_test(tf, test_device_mask);
	tcase_add_test(tf, test_stream_mask);
	tcase_add_test(tf, test_pid_and_owner);
	tcase_add_test(tf, test_not_allowed);
	tcase_add_test(tf, test_sq_owner);
	tcase_add_test(tf, test_task_by_sq_owner);
	tcase_add_test(tf, test_encode_sq_owner);
	tcase_add_test(tf, test_sampling);
	tcase_add_test(tf, test_sampling_first);
	tcase_add_test(tf, test_no_recv);
	tcase_add_test(tr, test_ring_bytes);
	tcase_add_test(tr, test_encode_clock_sync);
	suite_add_tcase(s, tk);
	suite_add_tcase(s, tf);
	suite_add_tcase(s, tr);
	return s;
}
