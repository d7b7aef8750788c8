/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npuprof_bpf.h — what the BPF capture engine's programs (npuprof.bpf.c)
 * share with userspace (user/capture/engine_bpf.c and the host tests): the
 * per-CPU counters, the rings' control blocks and the argument block of the
 * test entry points.
 *
 * The rings: each CPU has one ring per tracepoint program (submit,
 * complete, recv: NPUPROF_BPF_NRING), so a ring has one writer, which never
 * nests in itself (the kernel does not run a raw tracepoint program inside
 * itself on one CPU: __bpf_trace_run's prog->active check) while a program
 * on another tracepoint may interrupt it (a completion's interrupt in a
 * submit) and write its own ring. A CPU's rings share its cfg_cpu_slots
 * records (the capture's ring size per CPU): the submit ring the first
 * half, the complete and recv rings a quarter each
 * (npuprof_bpf_ring_place()), in the mmap-able array map `slots` of
 * struct npuprof_record (uapi/npuprof.h), CPU c's at index c *
 * cfg_cpu_slots. They are written with plain stores; each ring's control
 * block (struct npuprof_bpf_ring) is in the programs' .bss. The program writes the record(s) at head, then publishes
 * them by storing head + n (a release on x86, whose stores are not
 * reordered with each other; the object is built for x86 only: bpf.mk);
 * it writes only while head + n - tail <= slots, so a slot the reader has
 * not consumed is never overwritten. The reader copies [tail, head) out,
 * then stores tail. A DROP record and the record after the loss are
 * published together, by one head store.
 */
#ifndef NPUPROF_BPF_H
#define NPUPROF_BPF_H

#include "uapi/npuprof.h"
#include "uapi/npuprof_filter.h"

/* CPUs the per-CPU counters have room for; the loader refuses more. */
#define NPUPROF_BPF_MAX_CPUS 1024

/* One per CPU, in the programs' .bss (cpu_stats[], indexed by CPU id, one
 * cache line pair each, read by userspace through the skeleton's mapping).
 * Same meaning as the kmod's per-CPU stats. */
struct npuprof_bpf_pcpu {
	__u64 events[NPUPROF_REC_TYPE_MAX]; /* probe hits by record type */
	__u64 filtered;
	__u64 sampled_out;
	__u64 rsv[7]; /* pads to 128 bytes: no false sharing */
};

/* Rings per CPU: one per tracepoint program, ring cpu * NPUPROF_BPF_NRING
 * + kind, kind = record type - NPUPROF_REC_SUBMIT. */
#define NPUPROF_BPF_NRING 3

/* Where ring @kind lies among its CPU's @cpu_slots records (a power of two,
 * 64 at least): returns its first slot, and its size in *n (a power of
 * two). Submits are the most frequent records (every task has one). */
static inline __u32 npuprof_bpf_ring_place(__u32 kind, __u32 cpu_slots,
					   __u32 *n)
{
	*n = kind ? cpu_slots / 4 : cpu_slots / 2;
	return kind ? cpu_slots / 4 * (kind + 1) : 0;
}

/* One ring's control block, in the programs' .bss (ring_ctl[], indexed by
 * ring): the writer's cache line, then the reader's. Positions count
 * records from the start of the capture; slot = position % slots. The
 * counters are the ring's own (one writer: exact). */
struct npuprof_bpf_ring {
	__u64 head; /* records published (the program writes it) */
	__u64 written; /* records written (DROP records not counted) */
	__u64 dropped; /* records lost because the ring was full */
	__u64 pending_drop; /* lost, not yet reported by a DROP record */
	__u32 busy; /* a write is under way */
	__u32 rsv0;
	__u64 rsv[3];
	__u64 tail; /* records consumed (the reader writes it) */
	__u64 rsv2[7];
};

/* Probe modes (cfg_probe_mode), for measuring the floors only: the
 * capture (full, the default), the tracepoint programs returning at once
 * (empty), deciding and encoding without a ring write (nowrite). The
 * loader takes the mode from the environment variable
 * NPUPROF_BPF_PROBE_MODE (full, empty, nowrite, nostamp). */
#define NPUPROF_BPF_MODE_FULL 0
#define NPUPROF_BPF_MODE_EMPTY 1
#define NPUPROF_BPF_MODE_NOWRITE 2
/* ... and writing the record without its time stamp (the clock read
 * alone, measured: the record's ts is 0) */
#define NPUPROF_BPF_MODE_NOSTAMP 3

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

#endif /* NPUPROF_BPF_H */
