/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npusim: the user/kernel ABI of the simulated Ascend NPU driver.
 *
 * One character device per simulated device, /dev/npusim<N>. A process opens
 * the device, creates streams (each owns one SQ and one CQ), writes 64-byte
 * SQEs into a stream's SQ with NPUSIM_IOC_SQ_SEND (or, on a device in a
 * user-mode send mode, into the stream's mapped soft queue: the UIO section
 * below), and reads 16-byte CQEs back with NPUSIM_IOC_CQ_RECV, or, once the
 * stream is bound to a logic CQ, 32-byte logic CQEs with
 * NPUSIM_IOC_LOGIC_CQ_RECV (the logic CQ section). SQEs and CQEs are
 * the STARS v1 formats of the Ascend 910B (docs/ascend-reference.md §8.4,
 * §8.5, §12.2): the real header, type numbers and per-type payloads. How
 * long a task runs is the simulator's own business: a struct
 * npusim_task_model per SQE, handed over beside the SQEs, never in them.
 *
 * Evolution rule: structures only grow at the end, reserved fields must be
 * zero, and NPUSIM_ABI_VERSION is bumped on any change; NPUSIM_IOC_DEV_INFO
 * reports the driver's version.
 */
#ifndef _UAPI_NPUSIM_H
#define _UAPI_NPUSIM_H

#if !defined(__bpf__) /* BPF programs get the base types from vmlinux.h */
#include <linux/ioctl.h>
#include <linux/types.h>
#endif

#define NPUSIM_ABI_VERSION 9
#define NPUSIM_CHIP_NAME "Ascend910B"
#define NPUSIM_MAX_DEVICES 8
#define NPUSIM_SQE_SIZE 64
#define NPUSIM_CQE_SIZE 16
#define NPUSIM_MAX_EVENTS 4096 /* event ids per device */
#define NPUSIM_MAX_NOTIFIES 4096 /* notify ids per device */
#define NPUSIM_SEND_MAX 1024 /* SQEs per NPUSIM_IOC_SQ_SEND */
#define NPUSIM_RECV_MAX 1024 /* CQEs per NPUSIM_IOC_CQ_RECV */
#define NPUSIM_CLOCK_SAMPLES_MAX 16
#define NPUSIM_MAX_TASK_NS 10000000000ULL /* longest modelled task: 10 s */

/*
 * SQE types: the STARS v1 numbering (hicann/runtime
 * src/runtime/core/inc/sqe/v100/stars_sqe.hpp 24-46, enum rtStarsSqeType;
 * msprof STARS_SQE_TYPE_TABLE). The 910B runtime writes AI Core and AI
 * Vector kernels as type 0 (FFTS) with the cores marked in ffts_type; type 2
 * (AIV) is in msprof's table and npusim still takes it, as a vector kernel.
 */
enum npusim_sqe_type {
	NPUSIM_SQE_AI_CORE = 0, /* RT_STARS_SQE_TYPE_FFTS */
	NPUSIM_SQE_AI_CPU = 1,
	NPUSIM_SQE_AIV = 2,
	NPUSIM_SQE_PLACE_HOLDER = 3,
	NPUSIM_SQE_EVENT_RECORD = 4,
	NPUSIM_SQE_EVENT_WAIT = 5,
	NPUSIM_SQE_NOTIFY_RECORD = 6,
	NPUSIM_SQE_NOTIFY_WAIT = 7,
	NPUSIM_SQE_WRITE_VALUE = 8,
	NPUSIM_SQE_SDMA = 11,
	NPUSIM_SQE_PCIE_DMA = 17,
	NPUSIM_SQE_COND = 20,
	NPUSIM_SQE_TYPE_END = 21, /* RT_STARS_SQE_TYPE_END: types are below */
};

/* SQE byte 0 and byte 1 bit fields (STARS v1). */
#define NPUSIM_SQE_TYPE_MASK 0x3f
#define NPUSIM_SQE_CTRL_WR_CQE 0x40 /* byte 1 bit 6: request a CQE */

/* rt_stream_id bit 15: a task the runtime will wait for by its stream and
 * task id (RT_SYNC_TASK_FLAG, hicann/runtime
 * src/runtime/core/inc/stars/stars_base.hpp 42; set on the stream
 * synchronisation's event record, event_task_v100.cc 55-58). The device
 * copies it into the CQE's stream id (NPUSIM_CQE_MATCH), which makes the
 * CQE's logic CQE a match one. */
#define NPUSIM_SQE_SYNC_TASK 0x8000
#define NPUSIM_STREAM_ID_MASK 0x7fff

/* FFTS SQE ffts_type bits 0-2: the cores of a kernel (hicann/runtime
 * src/runtime/core/inc/stars/stars.hpp 27-29, TS_FFTS_TYPE_*). */
#define NPUSIM_FFTS_TYPE_MASK 0x7
#define NPUSIM_FFTS_AIC_ONLY 0
#define NPUSIM_FFTS_AIV_ONLY 1
#define NPUSIM_FFTS_AIC_AIV_MIX 5

/* PLACE_HOLDER: header block_dim is the TS task type (task_type). The
 * profiler trace (msproftx MarkEx / mstx device marker) is
 * TS_TASK_TYPE_PROFILER_TRACE_EX (hicann/runtime
 * src/runtime/core/inc/task/task_base.hpp 132). */
#define NPUSIM_PH_TASK_PROFILER_TRACE_EX 26

/* The place holder's tag_id carries the profiler trace tag
 * (NPUPROF_EXT_TRACE_*, include/profiling/npuprof_ext.h). */

/*
 * The payloads (SQE bytes 8-63) of the types npusim models, with the offsets
 * of the 910B runtime's packed structs; offsets below are from the start of
 * the SQE. Files are hicann/runtime src/runtime/core/inc/sqe/v100/.
 */
/* types 0 (and 2): RtFftsPlusKernelSqe, stars_kernel.hpp 164-191 */
struct npusim_sqe_ffts {
	__u16 ffts_type; /* 8: bits 0-2 NPUSIM_FFTS_*, bits 12-15 wrr_ratio */
	__u16 rsv0;
	__u16 sqe_index; /* 12 */
	__u8 kernel_credit; /* 14 */
	__u8 prefetch; /* 15: schem:2, rsv:1, icache_prefetch_cnt:5 */
	__u32 stack_base_lo; /* 16 */
	__u32 stack_base_hi; /* 20 */
	__u32 rsv1;
	__u32 qos; /* 28: pmg:2, ns:1, part_id:8, rsv:1, qos:4 */
	__u32 pc_lo; /* 32: kernel code address */
	__u32 pc_hi; /* 36: bits 0-15 */
	__u32 param_lo; /* 40: kernel arguments address */
	__u32 param_hi; /* 44 */
	__u32 rsv2[4];
};

/* types 4, 5: RtStarsEventSqe, stars_kernel.hpp 296-306 */
struct npusim_sqe_event {
	__u16 event_id; /* 8 */
	__u16 rsv0;
	__u16 rsv1;
	__u8 kernel_credit; /* 14 */
	__u8 rsv2;
	__u32 exe_result; /* 16 */
	__u32 timeout; /* 20 */
	__u32 rsv3[10];
};

/* types 6, 7: RtStarsNotifySqe, stars_kernel.hpp 309-319 */
#define NPUSIM_NOTIFY_ID_MASK 0x1fff
struct npusim_sqe_notify {
	__u32 notify_id; /* 8: bits 0-12 */
	__u16 rsv0;
	__u8 kernel_credit; /* 14 */
	__u8 rsv1;
	__u32 timeout; /* 16 */
	__u32 rsv2[11];
};

/* type 8: RtStarsWriteValueSqe, stars_sqe.hpp 51-81 */
struct npusim_sqe_write_value {
	__u32 rsv0;
	__u16 rsv1;
	__u8 kernel_credit; /* 14 */
	__u8 rsv2;
	__u32 addr_lo; /* 16 */
	__u32 addr_hi; /* 20: bits 0-16 address, 20-22 awsize, 23 snoop,
			  24-27 awcache, 28-30 awprot, 31 va */
	__u32 rsv3; /* 24: event id of an event reset */
	__u32 sub_type; /* 28: NPUSIM_WRITE_VALUE_SUB_* */
	__u32 value[8]; /* 32: write_value_part0..7 */
};

/* WRITE_VALUE sub types (RT_STARS_WRITE_VALUE_SUB_TYPE_*, hicann/runtime
 * src/runtime/core/inc/stars/stars_base.hpp 124-129). An event reset
 * (ABI 8) returns event rsv3 to not recorded: a later wait waits for a new
 * record (event_task_v100.cc 90-115). */
#define NPUSIM_WRITE_VALUE_SUB_DEFAULT 0
#define NPUSIM_WRITE_VALUE_SUB_EVENT_RESET 1

/* type 3: RtStarsPhSqe, stars_sqe.hpp 265-305; the profiler trace is
 * rtProfilerTraceEx_t, stars_sqe.hpp 153-158 */
struct npusim_sqe_place_holder {
	__u32 rsv0; /* 8: RUNTIME_BUILD_VERSION */
	__u16 rsv1;
	__u8 kernel_credit; /* 14 */
	__u8 rsv2;
	union { /* 16: 48 bytes, by task_type */
		struct {
			__u64 trace_id; /* 16: profilerTraceId (index id) */
			__u64 model_id; /* 24 */
			__u16 tag_id; /* 32: NPUSIM_TRACE_TAG_* */
			__u8 rsv[30];
		} trace;
		__u32 raw[12];
	};
};

/* type 11: RtStarsMemcpyAsyncSqe, stars_dma.hpp 125-168 */
struct npusim_sqe_sdma {
	__u32 rsv0;
	__u16 rsv1; /* 12: max_retry, retry_cnt */
	__u8 kernel_credit; /* 14 */
	__u8 ptr_mode; /* 15: bit 0 */
	__u32 opcode; /* 16: bits 0-7 opcode, then ie2, sssv, dssv, ... */
	__u16 src_streamid; /* 20 */
	__u16 src_sub_streamid;
	__u16 dst_streamid;
	__u16 dst_sub_streamid;
	__u32 length; /* 28: bytes to copy */
	__u32 src_lo; /* 32 */
	__u32 src_hi; /* 36 */
	__u32 dst_lo; /* 40 */
	__u32 dst_hi; /* 44 */
	__u32 src_off_lo; /* 48 */
	__u32 dst_off_lo; /* 52 */
	__u16 src_off_hi; /* 56 */
	__u16 dst_off_hi; /* 58 */
	__u32 rsv2;
};

/* type 17: RtStarsPcieDmaSqe, stars_dma.hpp 47-83 */
struct npusim_sqe_pcie_dma {
	__u32 rsv0;
	__u16 rsv1;
	__u8 kernel_credit; /* 14 */
	__u8 rsv2;
	__u32 sq_addr_lo; /* 16 */
	__u32 sq_addr_hi; /* 20 */
	__u16 sq_tail; /* 24 */
	__u16 rsv3;
	__u32 update; /* 28: is_converted, is_dsa_update, is_sqe_update, offset:8 */
	__u64 src; /* 32 */
	__u64 dst; /* 40 */
	__u64 length; /* 48: bytes to copy */
	__u32 pasid; /* 56 */
	__u32 rsv4;
};

/* type 20: the COND SQEs, e.g. RtStarsGetFloatStatusSqe, stars_sqe.hpp 409 */
struct npusim_sqe_cond {
	__u8 conds_sub_type; /* 8 */
	__u8 rsv0[3];
	__u16 rsv1;
	__u8 kernel_credit; /* 14 */
	__u8 csc; /* 15: bit 7 */
	__u32 ops[12]; /* 16: the condition program, 8 bytes an op */
};

struct npusim_sqe {
	/* STARS SQE header (8 bytes) */
	__u8 type; /* bits 0-5 type, bit 6 l1_lock, bit 7 l1_unlock */
	__u8 ctrl; /* bits 0-1 ie, 2-3 pre_p, 4-5 post_p, 6 wr_cqe */
	__u16 block_dim; /* kernels: blocks; PLACE_HOLDER: task_type */
	__u16 stream_id; /* bits 0-14 the runtime stream id, the SQ's stream;
			    bit 15 NPUSIM_SQE_SYNC_TASK */
	__u16 task_id; /* per-stream task id, chosen by the submitter, wraps */
	union { /* bytes 8-63: the payload of the type */
		struct npusim_sqe_ffts ffts;
		struct npusim_sqe_event event;
		struct npusim_sqe_notify notify;
		struct npusim_sqe_write_value write_value;
		struct npusim_sqe_place_holder ph;
		struct npusim_sqe_sdma sdma;
		struct npusim_sqe_pcie_dma pcie_dma;
		struct npusim_sqe_cond cond;
		__u8 raw[56];
	} u;
};

/*
 * The device model of a task (ABI 5): how long it runs and what it holds.
 * Simulator-only, never part of an SQE: a real 910B takes its times from
 * the work itself. It travels beside the SQEs (npusim_sq_send.model_addr,
 * or the model array of a mapped soft queue, same slot as the SQE) and
 * nothing the tracer reads (trs_chan tracepoints, the STARS log, CQEs)
 * carries it. A task without one gets the defaults of its type: 1 us, an
 * SDMA / PCIE_DMA from its length, the kernel of its ffts_type.
 */
struct npusim_task_model {
	__u64 duration_ns; /* modelled run time; 0: the type's default */
	__u64 start_ns; /* NPUSIM_TASK_F_TIMED: CLOCK_MONOTONIC time the task
			   starts at the earliest; with NPUSIM_TASK_F_SUBTASK:
			   its start after its container's */
	__u32 target_dev; /* NOTIFY_RECORD, EVENT_RECORD, EVENT_WAIT, an event reset (ABI 8):
			     NPUSIM_TARGET_DEV(device owning the notify or
			     event); 0: the stream's device */
	__u16 jitter_pm; /* +- per-mille random jitter on duration */
	__u8 kind; /* kernels: enum npusim_kernel_kind, which cores lead a mix */
	__u8 flags; /* NPUSIM_TASK_F_* */
	__u64 rsv; /* must be zero */
};

#define NPUSIM_TARGET_DEV(dev) ((dev) + 1)

/* npusim_task_model.kind of a mixed kernel: which cores lead. */
enum npusim_kernel_kind {
	NPUSIM_KERNEL_PLAIN = 0, /* cube cores (AIC_ONLY) or vector (AIV_ONLY) */
	NPUSIM_KERNEL_MIX_AIC = 1, /* cube-led mix: cube + vector cores */
	NPUSIM_KERNEL_MIX_AIV = 2, /* vector-led mix: vector + cube cores */
};

/*
 * npusim_task_model.flags: replaying a recorded device timeline (ABI 2).
 * TIMED: the task starts at start_ns, or when its stream has finished the
 *   task before it, or when its event / notify has been recorded (the
 *   recording task's end), whichever is last, however late the host sent it
 *   or the model got round to it; its duration is duration_ns exactly (no
 *   1 us floor, 0 allowed) and it takes no cores (the recording holds the
 *   contention already).
 * SUBTASK (with TIMED): an FFTS+ subtask of the stream's last task that was
 *   not a subtask (its container): it starts start_ns after the container
 *   started, runs alongside it, and does not hold the stream.
 */
#define NPUSIM_TASK_F_TIMED 0x01
#define NPUSIM_TASK_F_SUBTASK 0x02
#define NPUSIM_TASK_F_MASK 0x03

/* CQE (STARS v1 hardware CQE, 16 bytes). */
#define NPUSIM_CQE_PHASE 0x0001
#define NPUSIM_CQE_WARN 0x0002
#define NPUSIM_CQE_EVT 0x0004
#define NPUSIM_CQE_PLACE_HOLD 0x0008
#define NPUSIM_CQE_SQID_SHIFT 4
#define NPUSIM_CQE_SQID_MASK 0x7ff
#define NPUSIM_CQE_ERROR 0x8000
#define NPUSIM_CQE_MATCH 0x8000 /* in stream_id */

/* Bytes 8-15 (ABI 6): the device counter of an evt / place_hold CQE
 * without error, else the error info (hicann/driver
 * lba/comm/adapt/stars_v1/trs_stars_cq.h 37-57, rt_stars_cqe_status_t):
 * npusim fills the completed SQE's type and SQ slot there, error code and
 * software status 0. */
#define NPUSIM_CQE_ERR_DROP 0x01 /* error_info byte 9 bit 0: drop_flag */
#define NPUSIM_CQE_ERR_ACC_ERROR 0x02 /* bit 1: acc_error */
#define NPUSIM_CQE_ERR_SQE_TYPE_SHIFT 2 /* bits 2-7: sqe_type */

struct npusim_cqe {
	__u16 flags; /* phase, warn, evt, place_hold, sq_id (bits 4-14), error */
	__u16 sq_head; /* SQ head after this task */
	__u16 stream_id; /* bit 15: match flag (the SQE's rt_stream_id bit 15) */
	__u16 task_id;
	union {
		__u64 syscnt; /* device counter at completion: evt/place_hold */
		struct {
			__u8 error_code; /* 8 */
			__u8 type_flags; /* 9: NPUSIM_CQE_ERR_*, sqe_type */
			__u16 sqe_index; /* 10: the SQE's slot in the SQ */
			__u32 sq_sw_status; /* 12 */
		} err;
	};
};

/* ---- ioctls --------------------------------------------------------------- */

struct npusim_dev_info {
	__u32 abi_version;
	__u32 devid;
	char chip_name[32];
	__u32 aicore_num;
	__u32 aivector_num;
	__u32 aicpu_num;
	__u32 sq_depth;
	__u32 max_streams;
	__u32 cqe_mode; /* 0: every task completes with a CQE; 1: realistic */
	__u64 counter_hz; /* device counter frequency */
	__u32 num_devices;
	__u32 rsv[6];
	__u32 sq_send_mode; /* ABI 3: enum npusim_send_mode of new streams */
	__u32 aicore_mhz; /* ABI 7: the AI Core's rated frequency, MHz */
	__u32 aicore_cur_mhz; /* ABI 9: its current frequency, MHz (the
			       * setting of /proc/trs_chan/dev<N>-ts0/
			       * aicore_freq; "AI Core frequency" below) */
};

struct npusim_stream_create {
	__u32 flags; /* in: must be 0 */
	__u32 stream_id; /* out */
	__u32 sq_id; /* out */
	__u32 cq_id; /* out */
	__u32 sq_depth; /* out */
	__u32 rsv[3];
};

#define NPUSIM_DESTROY_CANCEL 0x1 /* drop queued tasks instead of draining */
struct npusim_stream_destroy {
	__u32 stream_id;
	__u32 flags;
	__s32 timeout_ms; /* drain wait; < 0: wait forever */
	__u32 rsv;
};

struct npusim_sq_send {
	__u32 stream_id;
	__u32 sqe_num; /* 1..NPUSIM_SEND_MAX */
	__u64 sqe_addr; /* user pointer to sqe_num struct npusim_sqe */
	__s32 timeout_ms; /* wait for SQ space; 0: fail at once, < 0: forever */
	__u32 pos; /* out: SQ position of the first SQE */
	__u64 model_addr; /* ABI 5: user pointer to sqe_num struct
			     npusim_task_model, or 0: the defaults */
	__u32 rsv[2];
};

struct npusim_cq_recv {
	__u32 stream_id;
	__u32 cqe_num; /* capacity, 1..NPUSIM_RECV_MAX */
	__u64 cqe_addr; /* user pointer to cqe_num struct npusim_cqe */
	__s32 timeout_ms; /* 0: poll, < 0: forever */
	__u32 recv_num; /* out */
	__u32 rsv[4];
};

struct npusim_stream_sync {
	__u32 stream_id;
	__s32 timeout_ms; /* < 0: forever */
};

struct npusim_clock_sample {
	__u64 host_ns; /* CLOCK_MONOTONIC */
	__u64 dev_cnt; /* device counter */
};

struct npusim_clock_sync {
	__u32 count; /* in: 1..NPUSIM_CLOCK_SAMPLES_MAX */
	__u32 rsv;
	struct npusim_clock_sample samples[NPUSIM_CLOCK_SAMPLES_MAX];
};

enum npusim_id_kind {
	NPUSIM_ID_EVENT = 0,
	NPUSIM_ID_NOTIFY = 1,
};

struct npusim_id {
	__u32 kind; /* enum npusim_id_kind */
	__u32 id; /* out for ALLOC, in for FREE */
};

/*
 * Shared event ids (ABI 8), the driver's shared ids (halShrIdCreate /
 * Open / Close / Destroy, SHR_ID_EVENT_TYPE): the file owning event @id
 * shares it (CREATE: @gen out, the id's allocation generation, which names
 * it); any file of the device opens it by id and generation (OPEN: the id
 * stays allocated until every opener has closed it, even after its owner
 * freed it), CLOSE drops that open, DESTROY (owner) refuses new opens.
 * A generation that is not the id's current one (the id was freed and
 * given again), or an id not shared: -ENOENT.
 */
enum npusim_shr_op {
	NPUSIM_SHR_CREATE = 0,
	NPUSIM_SHR_OPEN = 1,
	NPUSIM_SHR_CLOSE = 2,
	NPUSIM_SHR_DESTROY = 3,
};

struct npusim_shr_id {
	__u32 op; /* enum npusim_shr_op */
	__u32 kind; /* NPUSIM_ID_EVENT */
	__u32 id;
	__u32 gen; /* out for CREATE, in for the others */
};

/* The device-wide state of event @id (ABI 8): records queued on any
 * stream of any process and not yet completed, and whether the event is
 * set (recorded, not yet waited for). */
struct npusim_event_status {
	__u32 id;
	__u32 pending;
	__u32 set;
	__u32 rsv;
};

struct npusim_stream_status {
	__u32 stream_id;
	__u32 sq_head;
	__u32 sq_tail;
	__u32 queued; /* tasks in the SQ, including a running one */
	__u32 running; /* 1 if the head task is executing */
	__u32 cq_pending; /* CQEs not yet received */
	__u64 completed; /* tasks completed since creation */
	__u64 cq_overflow; /* CQEs lost because the CQ was full */
	__u64 head_start_ns; /* CLOCK_MONOTONIC start of the running task */
};

#define NPUSIM_IOC_MAGIC 0xA5
#define NPUSIM_IOC_DEV_INFO _IOR(NPUSIM_IOC_MAGIC, 1, struct npusim_dev_info)
#define NPUSIM_IOC_STREAM_CREATE _IOWR(NPUSIM_IOC_MAGIC, 2, struct npusim_stream_create)
#define NPUSIM_IOC_STREAM_DESTROY _IOW(NPUSIM_IOC_MAGIC, 3, struct npusim_stream_destroy)
#define NPUSIM_IOC_SQ_SEND _IOWR(NPUSIM_IOC_MAGIC, 4, struct npusim_sq_send)
#define NPUSIM_IOC_CQ_RECV _IOWR(NPUSIM_IOC_MAGIC, 5, struct npusim_cq_recv)
#define NPUSIM_IOC_STREAM_SYNC _IOW(NPUSIM_IOC_MAGIC, 6, struct npusim_stream_sync)
#define NPUSIM_IOC_CLOCK_SYNC _IOWR(NPUSIM_IOC_MAGIC, 7, struct npusim_clock_sync)
#define NPUSIM_IOC_ID_ALLOC _IOWR(NPUSIM_IOC_MAGIC, 8, struct npusim_id)
#define NPUSIM_IOC_ID_FREE _IOW(NPUSIM_IOC_MAGIC, 9, struct npusim_id)
#define NPUSIM_IOC_STREAM_STATUS _IOWR(NPUSIM_IOC_MAGIC, 10, struct npusim_stream_status)
/* ABI 8: the host records an event or notify id the file owns, as a record
 * task would when it completes: a wait on it (the one waiting now, or the
 * next) may start. The runtime's stream memory waits use it (a value wait
 * is a notify wait the runtime records once the memory holds its value:
 * the device model cannot read the process's memory from its timer). */
#define NPUSIM_IOC_ID_RECORD _IOW(NPUSIM_IOC_MAGIC, 31, struct npusim_id)

/* ---- UIO: user-mode submission (ABI 3) --------------------------------------
 *
 * The real driver picks one of three send modes for each SQ when it maps it
 * (hicann/driver trs_sqcq_map.c, enum sq_send_mode_type in trs_sqcq_ctx.h);
 * npusim takes the mode of the stream's device (module parameter
 * sq_send_mode, UIO_T unless it says otherwise, reported in
 * npusim_dev_info.sq_send_mode):
 *  KIO    the SQEs go in with NPUSIM_IOC_SQ_SEND; trs_chan:sqe fires in the
 *         submitting task, at the call.
 *  UIO_T  (Ascend 910B, 910_93, 310B) the driver allocates a soft queue per
 *         SQ that the process maps (mmap of the device at map_offset). The
 *         process writes SQEs at the tail, then the tail, and rings the
 *         trigger (NPUSIM_IOC_SQ_TRIGGER); a kernel worker (and a polling
 *         kernel thread, every 4 ms idle / 1 ms busy) forwards the SQEs one at
 *         a time into the SQ, so trs_chan:sqe fires in that kernel thread at
 *         forwarding time, not in the submitter.
 *  UIO_D  (Ascend 950, 910_96) the same mapping, but the trigger is the
 *         hardware doorbell: the SQEs go to the device at once with no
 *         trs_chan:sqe at all.
 * NPUSIM_IOC_SQ_SEND stays available on every stream, as TRS_SQCQ_SEND does.
 *
 * The mapping is one control page (struct npusim_uio_ctrl) followed by the
 * queue, depth SQEs, then (page aligned, at model_offset) the simulator's
 * model array, depth struct npusim_task_model: the model of the SQE in slot
 * i is in slot i, written before the tail as the SQE is; an all-zero model
 * gives the defaults. Indices run 0..depth-1; the queue holds at most depth-1
 * SQEs (full when (tail + 1) % depth == head). The process owns tail, the
 * driver owns head (it never reads head back from the page). A stream that
 * is destroyed while mapped shows state NPUSIM_UIO_DEAD; its pages stay
 * valid until unmapped.
 */
enum npusim_send_mode {
	NPUSIM_SEND_KIO = 0, /* SEND_MODE_KIO */
	NPUSIM_SEND_UIO_T = 1, /* SEND_MODE_UIO_T: soft queue + trigger */
	NPUSIM_SEND_UIO_D = 2, /* SEND_MODE_UIO_D: direct doorbell */
};

#define NPUSIM_UIO_LIVE 1
#define NPUSIM_UIO_DEAD 2

struct npusim_uio_ctrl {
	__u32 head; /* driver: next SQE to forward */
	__u32 tail; /* process: one past the last SQE written */
	__u32 depth;
	__u32 stream_id;
	__u32 state; /* NPUSIM_UIO_LIVE or NPUSIM_UIO_DEAD */
	__s32 error; /* 0, or why the SQE at head is not forwarded (-EINVAL) */
	__u64 send_ok; /* SQEs forwarded */
	__u64 send_fail; /* SQEs refused (malformed), counted once each */
	__u64 triggers; /* NPUSIM_IOC_SQ_TRIGGER calls that were accepted */
	__u64 rsv[4];
};

/* Where a stream's soft queue is, if it has one. */
struct npusim_sq_uio_info {
	__u32 stream_id; /* in */
	__u32 mode; /* out: enum npusim_send_mode of this stream */
	__u32 depth; /* out: queue slots (0 in KIO) */
	__u32 sqe_size; /* out: NPUSIM_SQE_SIZE */
	__u64 map_offset; /* out: mmap offset of the mapping */
	__u64 map_size; /* out: bytes to map: control page + queue */
	__u64 queue_offset; /* out: where the queue starts in the mapping */
	__u64 model_offset; /* out (ABI 5): where the model array starts */
	__u32 rsv[2]; /* must be zero */
};

/* The trigger (UIO_T) or doorbell (UIO_D) of a stream's soft queue: the
 * SQEs between head and the tail in the control page are sent. */
struct npusim_sq_trigger {
	__u32 stream_id;
	__u32 rsv[3]; /* must be zero */
};

#define NPUSIM_UIO_MMAP_OFFSET(stream_id) ((__u64)(stream_id) << 32)

#define NPUSIM_IOC_SQ_UIO_INFO _IOWR(NPUSIM_IOC_MAGIC, 20, struct npusim_sq_uio_info)
#define NPUSIM_IOC_SQ_TRIGGER _IOW(NPUSIM_IOC_MAGIC, 21, struct npusim_sq_trigger)

/* ---- Profiling channels: the STARS SoC log (ABI 4) --------------------------
 *
 * Device task times come, as on a 910B, from the device's STARS SoC log,
 * profiling channel 50 (CHANNEL_STARS_SOC_LOG_BUFFER; hicann/runtime
 * pkg_inc/driver/ascend_hal_base.h), never from a tracepoint: a reader
 * starts the channel of a device (prof_drv_start), drains it
 * (prof_channel_read) and stops it (prof_stop). While the channel runs, the
 * device appends one 64-byte ACSQ_TASK record ("4HQHH11L",
 * struct npusim_stars_acsq) when a task starts and one when it ends, its
 * time in device counter ticks (npusim_dev_info.counter_hz); the records sit
 * in a ring of the device until read. A full ring drops the newest records
 * and counts them (npusim_prof_read.dropped): overflow is never silent.
 * One reader per device and channel at a time: the one that started it.
 *
 * Errors, as the driver's profiling layer gives them (the HAL maps them to
 * PROF_STARTED_ALREADY, PROF_STOPPED_ALREADY, PROF_ERROR): start of a running
 * channel -EBUSY; read or stop of a channel that is not running, or by a
 * file that did not start it, -ESRCH; an unknown channel -ENODEV; bad flags,
 * reserved fields or sizes -EINVAL.
 */
#define NPUSIM_PROF_CHANNEL_STARS_SOC_LOG 50
#define NPUSIM_PROF_CHANNEL_NUM 160
#define NPUSIM_STARS_RECORD_SIZE 64
#define NPUSIM_STARS_FUNC_START 0 /* ACSQ_TASK: the task started */
#define NPUSIM_STARS_FUNC_END 1 /* ACSQ_TASK: the task ended */
#define NPUSIM_STARS_ACSQ_TASK 0x1 /* StarsSocLogConfigT.acsq_task */

/*
 * An ACSQ_TASK record of the STARS SoC log (Ascend/msprof
 * profiling_bean/stars/acsq_task.py; data_struct_size_constant.py "4HQHH11L"):
 *  head   bits 0-5 function type (NPUSIM_STARS_FUNC_*), bits 10-15 SQE type
 *  stream the stream id (< 2048 here: bits 12, 13 and 15 clear, so msprof
 *         takes stream and task as they are)
 *  task   the task id
 *  sys_cnt the device system counter at the start or end
 *  acc    bits 0-5 accelerator id, bits 6-12 ACSQ (the SQ) id
 */
struct npusim_stars_acsq {
	__u16 head;
	__u16 rsv0;
	__u16 stream_id;
	__u16 task_id;
	__u64 sys_cnt;
	__u16 rsv1;
	__u16 acc;
	__u32 rsv2[11];
};

/* ---- Profiling channel 132: the AI Core frequency (ABI 9) --------------------
 *
 * A 910B's AI Core clock is the power management's: it changes while the
 * device runs, and the driver's low-power profiling channel, CHANNEL_LP
 * (132; hicann/driver pkg_inc/ascend_hal_base.h), reports each change with
 * the device counter it took effect at. msprof's collector starts it
 * (ProfLpmFreqConvJob, when ai_core_lpm is on) with the config
 * {period, version = 1} as the PROF_PERIPHERAL_TYPE user data and writes
 * what it reads to device_<N>/data/lpmFreqConv.data; msprof's parser
 * reads 888-byte records: a count, then 55 entries of which the first
 * count are valid (Ascend/msprof hal_freq.h, freq_lpm_parser_item.cpp;
 * docs/ascend-reference.md §3.14).
 *
 * npusim's AI Core frequency is per device: rated npusim_dev_info.
 * aicore_mhz (module parameter aicore_mhz), current aicore_cur_mhz, which
 * the administrator sets by writing MHz (1..rated) to
 * /proc/trs_chan/dev<N>-ts0/aicore_freq (root; the simulator's control
 * surface, as `npu-smi set` is a real host's: no tracer reads it). AI Core
 * and vector kernels started after a change run rated/current times their
 * modelled duration (the work is cycles; a replay's TIMED tasks keep their
 * recorded times). While the channel runs, the device appends an entry
 * {device counter, MHz}: one at the start with the frequency then (a real
 * 910B's first record, observed ~2.4 ms after the start, carries the
 * current frequency) and one at each change. Entries fill the open record
 * (count grows up to NPUSIM_LP_ENTRIES); a record is closed when full and
 * when the reader reads, so a read returns every entry made before it. A
 * full ring drops new entries and counts them. Start, read, stop and the
 * errors are channel 50's; config version other than
 * NPUSIM_LP_CONFIG_VERSION or flags other than 0: -EINVAL. The period
 * (ms; msprof's DEFAULT_INTERVAL 100) is kept but does not pace npusim's
 * records: they are closed at the reads.
 */
#define NPUSIM_PROF_CHANNEL_LP 132
#define NPUSIM_LP_ENTRIES 55
#define NPUSIM_LP_RECORD_SIZE 888
#define NPUSIM_LP_CONFIG_VERSION 1

/* LpmConvProfileConfig (hicann/oam-tools src/msprof/collector/dvvp/driver/
 * inc/ai_drv_prof_api.h 366): the user data of prof_drv_start */
struct npusim_lp_config {
	__u32 period; /* ms */
	__u32 version; /* NPUSIM_LP_CONFIG_VERSION */
};

/* One entry: the frequency from device counter sys_cnt on. */
struct npusim_lp_entry {
	__u64 sys_cnt;
	__u32 freq; /* MHz */
	__u32 rsv;
} __attribute__((packed));

/* A record of channel 132, packed: 8 + 55 * 16 = 888 bytes. */
struct npusim_lp_record {
	__u32 count; /* valid entries, 0..NPUSIM_LP_ENTRIES */
	__u32 rsv;
	struct npusim_lp_entry entry[NPUSIM_LP_ENTRIES];
} __attribute__((packed));

struct npusim_prof_start {
	__u32 channel; /* NPUSIM_PROF_CHANNEL_STARS_SOC_LOG or _LP (ABI 9) */
	__u32 flags; /* channel 50: NPUSIM_STARS_ACSQ_TASK; channel 132: 0 */
	__u32 ring_records; /* ring size, a power of two; 0: the default */
	struct npusim_lp_config lp; /* ABI 9: channel 132's config; channel
				       50: zero */
	__u32 rsv[3]; /* must be zero */
};

struct npusim_prof_read {
	__u32 channel;
	__u32 len; /* in: buffer bytes (a multiple of the channel's record
		      size: NPUSIM_STARS_RECORD_SIZE, NPUSIM_LP_RECORD_SIZE) */
	__u64 buf; /* in: user address */
	__u32 bytes; /* out: bytes written (whole records) */
	__u32 rsv0;
	__u64 dropped; /* out: records (channel 132: frequency entries)
			  dropped by a full ring since start */
	__u64 records; /* out: records written by the device since start */
	__u32 rsv[4]; /* must be zero */
};

struct npusim_prof_stop {
	__u32 channel;
	__u32 rsv[3]; /* must be zero */
};

#define NPUSIM_IOC_PROF_START _IOW(NPUSIM_IOC_MAGIC, 22, struct npusim_prof_start)
#define NPUSIM_IOC_PROF_READ _IOWR(NPUSIM_IOC_MAGIC, 23, struct npusim_prof_read)
#define NPUSIM_IOC_PROF_STOP _IOW(NPUSIM_IOC_MAGIC, 24, struct npusim_prof_stop)

/* ---- The logic CQ (ABI 6) ---------------------------------------------------
 *
 * On a 910B user space never reads the hardware CQEs: the process allocates
 * a logic CQ (halSqCqAllocate with DRV_LOGIC_TYPE; hicann/driver
 * trs_core/trs_logic_cq.c trs_logic_cq_alloc), binds streams to it
 * (halResourceConfig, DRV_STREAM_BIND_LOGIC_CQ; trs_res_mng.c
 * trs_stream_bind_logic_cq), and the driver converts every hardware CQE of a
 * bound stream into a 32-byte logic CQE and enqueues it
 * (trs_hw_sqcq.c trs_hw_cq_recv, trs_logic_cq_enque). The process receives
 * them with halCqReportRecv(DRV_LOGIC_TYPE) (trs_logic_cq_recv). npusim
 * does the same:
 *  - a logic CQ belongs to the file that allocated it; cqe_depth slots
 *    (1..NPUSIM_LOGIC_CQ_MAX_DEPTH) of which it holds cqe_depth - 1 (full
 *    when (tail + 1) % depth == head), cqe_size (1..32) bytes of each
 *    logic CQE reach the user;
 *  - a stream of the same file is bound to one logic CQ at a time (a
 *    second bind moves it); from then on its CQEs go there, converted, and
 *    no longer to the stream's own CQ (trs_hw_cq_recv consumes them).
 *    trs_chan:cqe "Cqe Dispatch" still fires for each; "Task Recv" does not;
 *  - a CQE that finds the logic CQ full (or the logic CQ freed) is lost:
 *    the driver counts it (full_drop, per logic CQ, shown in
 *    /proc/trs_chan/dev<N>-ts0/summary, and logged once per logic CQ);
 *  - a receive (NPUSIM_IOC_LOGIC_CQ_RECV, version 1 as libascend_hal's
 *    halCqReportRecv sets it) copies up to cqe_num logic CQEs from the head:
 *    a logic CQE with match_flag (its task's SQE had NPUSIM_SQE_SYNC_TASK)
 *    is only handed to a receive that names its stream and task; the
 *    others to any receive. The copy is one run of consecutive logic CQEs
 *    in the ring: the leading unmatched match CQEs are passed over (and
 *    stay queued), the run ends before a match CQE of another task once it
 *    has begun, after the one matching CQE, at cqe_num, or at the end of
 *    the ring (trs_logic_cq_get_match_copy_range). Version 0 copies the
 *    run from the head to the tail or the end of the ring, at most cqe_num
 *    (trs_logic_cq_non_match_copy). Nothing to copy: timeout_ms 0 returns
 *    recv_num 0; otherwise the call sleeps until the next enqueue, at most
 *    timeout_ms each time (-1: forever), and -ETIMEDOUT when none came;
 *    -EFAULT once the logic CQ is freed. timeout_ms below -1: -EINVAL.
 */
#define NPUSIM_LOGIC_CQE_SIZE 32
#define NPUSIM_LOGIC_CQ_MAX_DEPTH (64 * 1024) /* LOGIC_CQ_MAX_DEPTH */

/* struct npusim_logic_cqe.flags (bit fields, LSB first) */
#define NPUSIM_LOGIC_CQE_MATCH 0x0001 /* match_flag */
#define NPUSIM_LOGIC_CQE_DROP 0x0002 /* drop_flag */
#define NPUSIM_LOGIC_CQE_ERROR 0x0004 /* error_bit */
#define NPUSIM_LOGIC_CQE_ACC_ERROR 0x0008 /* acc_error */
#define NPUSIM_LOGIC_CQE_NEXT_TASK_VLD 0x0010 /* next_task_vld (STARS v2) */
#define NPUSIM_LOGIC_CQE_NOTIFY_ATTACHED 0x0020 /* notify_attached (STARS v2) */

/* sqe_type of an event-record / place-holder report that carries the
 * device counter (TRS_STARS_CQE_RECORED, _HOLDER; trs_stars_cq.h 22-23) */
#define NPUSIM_LOGIC_CQE_HOLDER 3
#define NPUSIM_LOGIC_CQE_RECORD 4

/*
 * A logic CQE: struct trs_logic_cqe (hicann/driver
 * src/sdk_driver/trsdrv/trs/inc/trs_core.h 52-88), which the 910B runtime
 * reads as rtLogicCqReport_t / rtCqReport_t (hicann/runtime
 * src/runtime/core/inc/task/task_info_base.hpp 321-376). The driver fills
 * it from the hardware CQE (trs_stars_cq.c trs_stars_cqe_to_logic_cqe):
 * an evt / place_hold CQE without error gives timestamp (the device
 * counter), sqe_type RECORD / HOLDER, error_code 0 and error_type the warn
 * bit (bit 6); any other gives sqe_index, sqe_type, error_code (the
 * software status), error_type (bits 0-5 of the low status word, bit 6
 * warn) and drop_flag from its error info. stream_id is the CQE's & 0x7fff,
 * match_flag its bit 15; acc_error is read from byte 9 bit 1 whichever
 * the union holds. enque_timestamp: jiffies / HZ at the enqueue, for match
 * CQEs only (the driver's stranded-CQE check), else 0 here.
 */
struct npusim_logic_cqe {
	__u16 stream_id; /* 0 */
	__u16 task_id; /* 2 */
	__u32 error_code; /* 4 */
	__u8 error_type; /* 8 */
	__u8 sqe_type; /* 9 */
	__u16 sq_id; /* 10 */
	__u16 sq_head; /* 12 */
	__u16 flags; /* 14: NPUSIM_LOGIC_CQE_*, bits 6-15 reserved (0) */
	union {
		__u64 timestamp; /* 16 */
		__u16 sqe_index;
	};
	__u64 enque_timestamp; /* 24: reserved1 to the user */
};

struct npusim_logic_cq_alloc {
	__u32 cqe_depth; /* in: slots, 1..NPUSIM_LOGIC_CQ_MAX_DEPTH */
	__u32 cqe_size; /* in: bytes of each logic CQE the user gets, 1..32 */
	__u32 cq_id; /* out */
	__u32 rsv[5]; /* must be zero */
};

struct npusim_logic_cq_free {
	__u32 cq_id;
	__u32 rsv[3]; /* must be zero */
};

/* prop of NPUSIM_IOC_STREAM_LOGIC_CQ: drvResourceConfigType_t */
#define NPUSIM_STREAM_BIND_LOGIC_CQ 0 /* DRV_STREAM_BIND_LOGIC_CQ */
#define NPUSIM_STREAM_UNBIND_LOGIC_CQ 1 /* DRV_STREAM_UNBIND_LOGIC_CQ */

struct npusim_stream_logic_cq {
	__u32 stream_id;
	__u32 prop; /* NPUSIM_STREAM_(UN)BIND_LOGIC_CQ */
	__u32 cq_id; /* BIND: a logic CQ of the same file */
	__u32 rsv; /* must be zero */
};

struct npusim_logic_cq_recv {
	__u32 cq_id;
	__u32 cqe_num; /* capacity in logic CQEs (>= 1; one call copies at
			  most NPUSIM_RECV_MAX) */
	__u64 cqe_addr; /* user buffer of cqe_num * cqe_size bytes */
	__s32 timeout_ms; /* 0: poll; -1: forever; > 0: ms per wait */
	__u32 recv_num; /* out: logic CQEs copied */
	__u32 stream_id; /* version 1: the stream and task a match CQE must */
	__u32 task_id; /*  name to be handed over */
	__u32 version; /* halReportRecvInfo.res[0]: 1 match, 0 plain */
	__u32 rsv[3]; /* must be zero */
};

#define NPUSIM_IOC_LOGIC_CQ_ALLOC _IOWR(NPUSIM_IOC_MAGIC, 25, struct npusim_logic_cq_alloc)
#define NPUSIM_IOC_LOGIC_CQ_FREE _IOW(NPUSIM_IOC_MAGIC, 26, struct npusim_logic_cq_free)
#define NPUSIM_IOC_STREAM_LOGIC_CQ _IOW(NPUSIM_IOC_MAGIC, 27, struct npusim_stream_logic_cq)
#define NPUSIM_IOC_LOGIC_CQ_RECV _IOWR(NPUSIM_IOC_MAGIC, 28, struct npusim_logic_cq_recv)
#define NPUSIM_IOC_SHR_ID _IOWR(NPUSIM_IOC_MAGIC, 29, struct npusim_shr_id)
#define NPUSIM_IOC_EVENT_STATUS _IOWR(NPUSIM_IOC_MAGIC, 30, struct npusim_event_status)

#endif /* _UAPI_NPUSIM_H */
