/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npuprof_bpf.h — what the BPF capture engine's programs (npuprof.bpf.c)
 * share with userspace (user/capture/engine_bpf.c and the host tests): the
 * per-CPU counters and the argument block of the test entry points.
 *
 * The records themselves are struct npuprof_record from uapi/npuprof.h.
 * Ringbuf samples are either one record (64 bytes) or a DROP record
 * followed by the record that fitted after the loss (128 bytes).
 */
#ifndef NPUPROF_BPF_H
#define NPUPROF_BPF_H

#include "uapi/npuprof.h"
#include "uapi/npuprof_filter.h"

/* CPUs the per-CPU counters have room for; the loader refuses more. */
#define NPUPROF_BPF_MAX_CPUS 1024

/* One per CPU, in the programs' .bss (cpu_stats[], indexed by CPU id, one
 * cache line pair each, read by userspace through the skeleton's mapping).
 * Same meaning as the kmod's per-CPU stats and ring control counters. */
struct npuprof_bpf_pcpu {
	__u64 events[NPUPROF_REC_TYPE_MAX]; /* probe hits by record type */
	__u64 written; /* records written (DROP records not counted) */
	__u64 dropped; /* records lost because the ringbuf was full */
	__u64 filtered;
	__u64 sampled_out;
	__u64 pending_drop; /* lost, not yet reported by a DROP record */
	__u64 rsv[4]; /* pads to 128 bytes: no false sharing */
};

/* Probe modes (cfg_probe_mode), for measuring the floors only: the
 * capture (full, the default), the tracepoint programs returning at once
 * (empty), deciding and encoding without a ring write (nowrite). The
 * loader takes the mode from the environment variable
 * NPUPROF_BPF_PROBE_MODE (full, empty, nowrite). */
#define NPUPROF_BPF_MODE_FULL 0
#define NPUPROF_BPF_MODE_EMPTY 1
#define NPUPROF_BPF_MODE_NOWRITE 2

/* The three test entry points (test_sqe, test_cqe, test_recv)
 * take the tracepoint arguments by value as their BPF_PROG_TEST_RUN context,
 * so the host can run the encoding path without the driver: the first
 * argument string (NUL padded), the instance, and the trace struct. */
#define NPUPROF_BPF_STR_MAX 16

struct npuprof_bpf_test_args {
	char str[NPUPROF_BPF_STR_MAX];
	struct trs_id_inst inst;
	union {
		struct trs_chan_sq_trace sq;
		struct trs_chan_cq_trace cq;
		struct trs_chan_recv_trace recv;
	};
};

/* The size of a ringbuf sample header (struct bpf_ringbuf_hdr): the
 * space one record takes in the ring is this plus NPUPROF_RECORD_SIZE. */
#define NPUPROF_BPF_RB_HDR 8

#endif /* NPUPROF_BPF_H */
