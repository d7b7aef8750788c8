// SPDX-License-Identifier: GPL-2.0
/*
 * npuprof.bpf.c — capture engine 2: raw tracepoint programs on the Ascend
 * driver's trs_chan:sqe/cqe/recv, writing the same
 * records as npuprof.ko (kmod/npuprof/probes.c, ring.c) into per-CPU rings
 * of plain stores in an mmap-able array map (npuprof_bpf.h says how).
 *
 * Each program does two separate things:
 *  1. read_*(): copy the tracepoint arguments out of the driver. With BTF
 *     for the driver's types (module BTF) the fields are read with CO-RE
 *     relocations; without it (Debian's headers carry no vmlinux, so our
 *     modules have no BTF) the documented fixed layouts of uapi/trs_chan.h
 *     are copied with bpf_probe_read_kernel().
 *  2. handle(): filter, sample and encode from those copies, with the
 *     shared encoders of uapi/npuprof.h, so the bytes match the kmod's.
 * The test_* entry points feed handle() from a BPF_PROG_TEST_RUN context
 * instead of driver pointers, so the host tests run step 2 unchanged.
 *
 * Which records a capture keeps (filters and sampling) is the kmod's own
 * decision: both compile uapi/npuprof_filter.h, and it is made before the
 * record is encoded.
 *
 * A submit is attributed to the process that created its SQ's channel
 * (the SQ owner table of uapi/npuprof_filter.h), learnt by kprobes on the
 * driver's hal_kernel_trs_chan_create (entry and return) and
 * hal_kernel_trs_chan_destroy, as npuprof.ko learns it.
 *
 * A full ring counts the loss; the next record that fits in that ring is
 * published together with a DROP record carrying the count, as the kmod's
 * ring does. Nothing wakes the reader: it polls the rings on a timer
 * (engine_bpf.c), so a write is a few stores, no helper call, no lock.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "npuprof_bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* ---- configuration: read-only after load ---------------------------------- */

const volatile __u32 cfg_pid; /* capture only this tgid (0: all) */
const volatile __u32 cfg_dev_mask; /* bit d: device d (0: all) */
const volatile __u32 cfg_sample_n; /* keep 1 task in n (0/1: all) */
const volatile __u32 cfg_flags; /* NPUPROF_CFG_STREAM_FILTER, _NO_RECV */
const volatile __u32 cfg_cpu_slots; /* records of a CPU's rings (npuprof_bpf.h) */
const volatile __u64 cfg_stream_mask[NPUPROF_MAX_STREAMS / 64];
/* measurement only (the benchmark's floors, tests/vm/bench.sh; set from
 * NPUPROF_BPF_PROBE_MODE by engine_bpf.c): NPUPROF_BPF_MODE_EMPTY, the
 * tracepoint programs return at once; NPUPROF_BPF_MODE_NOWRITE, they
 * decide and encode but write nothing. The verifier drops the branches
 * not taken, so the default costs nothing. */
const volatile __u32 cfg_probe_mode;

/* ---- state ---------------------------------------------------------------- */

/* The rings' records: cfg_cpu_slots per CPU; the loader sizes it
 * (max_entries) and userspace maps it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct npuprof_record);
} slots SEC(".maps");

/* the rings' control blocks (npuprof_bpf.h) */
struct npuprof_bpf_ring ring_ctl[NPUPROF_BPF_MAX_CPUS * NPUPROF_BPF_NRING];

/* per-CPU counters: a .bss array indexed by CPU id costs no map lookup
 * (6.1 does not inline per-CPU array lookups) */
struct npuprof_bpf_pcpu cpu_stats[NPUPROF_BPF_MAX_CPUS];

/* who submitted to each (device, stream): used only with a pid filter */
__u8 stream_owner[NPUPROF_OWNER_SLOTS];

/* who created each (device, channel): the SQ owner table */
struct npuprof_sq_owner sq_owner_tab[NPUPROF_SQ_OWNER_SLOTS];

/* hal_kernel_trs_chan_create's pointer arguments, from entry to return */
struct chan_create_args {
	__u64 inst, para, chan_id;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct chan_create_args);
} chan_creating SEC(".maps");

/* ---- the driver's types as CO-RE sees them (when BTF describes them) ------ */

struct trs_id_inst___core {
	__u32 devid;
	__u32 tsid;
} __attribute__((preserve_access_index));

struct trs_chan_sq_trace___core {
	__u32 sqid;
	__u32 sq_head;
	__u32 sq_tail;
	__u32 chan_id;
	__u32 type;
	__u32 task_id;
	__u32 stream_id;
} __attribute__((preserve_access_index));

struct trs_chan_cq_trace___core {
	__u32 cqid;
	__u32 cq_head;
	__u32 round;
	__u32 chan_id;
	__u32 task_id;
	__u32 sq_id;
	__u32 sq_head;
	__u32 stream_id;
} __attribute__((preserve_access_index));

struct trs_chan_recv_trace___core {
	__u32 chan_id;
	__u32 cqid;
	__u32 cq_head;
	__u32 cqe_num;
	__u32 recv_cqe_num;
	__s32 timeout;
} __attribute__((preserve_access_index));

/* ---- step 1: copy the arguments out of the driver --------------------------- */

static __always_inline void read_inst(struct trs_id_inst *d, const void *src)
{
	const struct trs_id_inst___core *s = src;

	if (bpf_core_type_exists(struct trs_id_inst___core)) {
		BPF_CORE_READ_INTO(&d->devid, s, devid);
		BPF_CORE_READ_INTO(&d->tsid, s, tsid);
	} else {
		bpf_probe_read_kernel(d, sizeof(*d), src);
	}
}

static __always_inline void read_sq(struct trs_chan_sq_trace *d,
				    const void *src)
{
	const struct trs_chan_sq_trace___core *s = src;

	if (bpf_core_type_exists(struct trs_chan_sq_trace___core)) {
		__builtin_memset(d, 0, sizeof(*d));
		BPF_CORE_READ_INTO(&d->sqid, s, sqid);
		BPF_CORE_READ_INTO(&d->sq_head, s, sq_head);
		BPF_CORE_READ_INTO(&d->sq_tail, s, sq_tail);
		BPF_CORE_READ_INTO(&d->chan_id, s, chan_id);
		BPF_CORE_READ_INTO(&d->type, s, type);
		BPF_CORE_READ_INTO(&d->task_id, s, task_id);
		BPF_CORE_READ_INTO(&d->stream_id, s, stream_id);
	} else {
		bpf_probe_read_kernel(d, sizeof(*d), src);
	}
}

static __always_inline void read_cq(struct trs_chan_cq_trace *d,
				    const void *src)
{
	const struct trs_chan_cq_trace___core *s = src;

	if (bpf_core_type_exists(struct trs_chan_cq_trace___core)) {
		__builtin_memset(d, 0, sizeof(*d));
		BPF_CORE_READ_INTO(&d->cqid, s, cqid);
		BPF_CORE_READ_INTO(&d->cq_head, s, cq_head);
		BPF_CORE_READ_INTO(&d->round, s, round);
		BPF_CORE_READ_INTO(&d->chan_id, s, chan_id);
		BPF_CORE_READ_INTO(&d->task_id, s, task_id);
		BPF_CORE_READ_INTO(&d->sq_id, s, sq_id);
		BPF_CORE_READ_INTO(&d->sq_head, s, sq_head);
		BPF_CORE_READ_INTO(&d->stream_id, s, stream_id);
	} else {
		bpf_probe_read_kernel(d, sizeof(*d), src);
	}
}

static __always_inline void read_recv(struct trs_chan_recv_trace *d,
				      const void *src)
{
	const struct trs_chan_recv_trace___core *s = src;

	if (bpf_core_type_exists(struct trs_chan_recv_trace___core)) {
		__builtin_memset(d, 0, sizeof(*d));
		BPF_CORE_READ_INTO(&d->chan_id, s, chan_id);
		BPF_CORE_READ_INTO(&d->cqid, s, cqid);
		BPF_CORE_READ_INTO(&d->cq_head, s, cq_head);
		BPF_CORE_READ_INTO(&d->cqe_num, s, cqe_num);
		BPF_CORE_READ_INTO(&d->recv_cqe_num, s, recv_cqe_num);
		BPF_CORE_READ_INTO(&d->timeout, s, timeout);
	} else {
		bpf_probe_read_kernel(d, sizeof(*d), src);
	}
}

/*
 * The first tracepoint argument: the driver passes string constants, so
 * 16 bytes are copied at once (the comparisons below stop at the NUL, what
 * follows it does not matter); only if that crosses into an unreadable page
 * is it copied up to its NUL. "" when it cannot be read at all.
 */
static __always_inline void read_str(char *d, const void *src)
{
	if (src && !bpf_probe_read_kernel(d, NPUPROF_BPF_STR_MAX, src))
		return;
	__builtin_memset(d, 0, NPUPROF_BPF_STR_MAX);
	if (src)
		bpf_probe_read_kernel_str(d, NPUPROF_BPF_STR_MAX, src);
}

/* Little-endian 8-byte word of 8 characters, to compare strings wordwise. */
#define W8(a, b, c, d, e, f, g, h)                                            \
	((__u64)(a) | (__u64)(b) << 8 | (__u64)(c) << 16 | (__u64)(d) << 24 | \
	 (__u64)(e) << 32 | (__u64)(f) << 40 | (__u64)(g) << 48 |             \
	 (__u64)(h) << 56)

/* strcmp(s, "Task Recv") == 0 */
static __always_inline int str_is_task_recv(const char *s)
{
	return *(const __u64 *)s ==
		       W8('T', 'a', 's', 'k', ' ', 'R', 'e', 'c') &&
	       s[8] == 'v' && s[9] == 0;
}

/* strcmp(s, "Recv finish") == 0 */
static __always_inline int str_is_recv_finish(const char *s)
{
	return *(const __u64 *)s ==
		       W8('R', 'e', 'c', 'v', ' ', 'f', 'i', 'n') &&
	       s[8] == 'i' && s[9] == 's' && s[10] == 'h' && s[11] == 0;
}

/* ---- step 2: filter, sample, encode, write ------------------------------ */

/* This capture's filters (read-only config), for uapi/npuprof_filter.h. */
static __always_inline struct npuprof_filter capture_filter(void)
{
	struct npuprof_filter f = {
		.pid = cfg_pid,
		.dev_mask = cfg_dev_mask,
		.sample_n = cfg_sample_n,
		.flags = cfg_flags,
		.stream_mask = cfg_stream_mask,
		.owner = cfg_pid ? stream_owner : 0,
		.sq_owner = sq_owner_tab,
		.any_uid = 1,
	};

	return f;
}

static __always_inline int wants(__u32 type)
{
	struct npuprof_filter f = capture_filter();

	return npuprof_filter_wants(&f, type);
}

/*
 * The shared decision for one record. Returns 1 to write it; otherwise the
 * reason was counted in @st. The current task is looked up only for the
 * records judged by it.
 */
static __always_inline int select_record(struct npuprof_bpf_pcpu *st,
					 __u32 devid, __u32 stream, __u32 task,
					 int kind,
					 const struct npuprof_who *who)
{
	struct npuprof_filter f = capture_filter();

	switch (npuprof_filter_decide(&f, kind, devid, stream, task, who)) {
	case NPUPROF_KEEP: return 1;
	case NPUPROF_FILTERED: st->filtered++; return 0;
	default: st->sampled_out++; return 0;
	}
}

/* The arguments of any of the three tracepoints, copied out. */
struct args {
	char str[NPUPROF_BPF_STR_MAX];
	struct trs_id_inst inst;
	union {
		struct trs_chan_sq_trace sq;
		struct trs_chan_cq_trace cq;
		struct trs_chan_recv_trace recv;
	};
};

static __always_inline void encode(struct npuprof_record *r, int type,
				   const struct args *a)
{
	switch (type) {
	case NPUPROF_REC_SUBMIT:
		npuprof_encode_submit(r, &a->inst, &a->sq);
		break;
	case NPUPROF_REC_COMPLETE:
		npuprof_encode_complete(r, &a->inst, &a->cq,
					str_is_task_recv(a->str));
		break;
	default:
		npuprof_encode_recv(r, &a->inst, &a->recv,
				    str_is_recv_finish(a->str));
		break;
	}
}

/* @id: bpf_get_current_pid_tgid() if the caller has it, else 0 */
static __always_inline void stamp(struct npuprof_record *r, __u32 cpu, __u64 id)
{
	if (!id)
		id = bpf_get_current_pid_tgid();
	npuprof_encode_hdr(r, bpf_ktime_get_ns(), cpu, (__u32)(id >> 32),
			   (__u32)id);
}

/* Slot @pos of CPU @cpu's ring @kind, or NULL (no such slot: the map is
 * smaller than the configuration says) */
static __always_inline struct npuprof_record *slot_at(__u32 cpu, __u32 kind,
						      __u64 pos)
{
	__u32 n, first = npuprof_bpf_ring_place(kind, cfg_cpu_slots, &n);
	__u32 idx = cpu * cfg_cpu_slots + first + ((__u32)pos & (n - 1));

	return bpf_map_lookup_elem(&slots, &idx);
}

/*
 * Append one record to this CPU's ring of tracepoint @type: encoded in
 * place, then published by the head store. After a loss, the DROP record
 * and the record go in together, published by one store: both or
 * neither, like the kmod's room check.
 */
static __always_inline void write_record(__u32 cpu, int type,
					 const struct args *a,
					 const struct npuprof_who *who,
					 __u64 id)
{
	__u32 kind = (__u32)(type - NPUPROF_REC_SUBMIT), n;
	__u32 ri = cpu * NPUPROF_BPF_NRING + kind;
	struct npuprof_bpf_ring *rg;
	struct npuprof_record *r, *d = 0;
	__u64 head, lost;

	if (cfg_probe_mode == NPUPROF_BPF_MODE_NOWRITE) {
		struct npuprof_record tmp;

		encode(&tmp, type, a);
		if (who->sq_owner)
			npuprof_encode_sq_owner(&tmp, who->tgid);
		asm volatile("" : : "r"(&tmp) : "memory"); /* counts as used */
		return;
	}
	if (ri >= NPUPROF_BPF_MAX_CPUS * NPUPROF_BPF_NRING)
		return;
	rg = &ring_ctl[ri];
	/* one writer at a time: the kernel does not run a program inside
	 * itself on one CPU, and should it ever, the inner hit is a loss, not
	 * a second writer (an interrupt between the test and the store runs
	 * to its end before this one goes on) */
	if (*(volatile __u32 *)&rg->busy)
		goto full;
	*(volatile __u32 *)&rg->busy = 1;
	asm volatile("" ::: "memory");
	head = rg->head;
	lost = rg->pending_drop;
	/* the reader's tail: an old value only makes the ring look fuller */
	npuprof_bpf_ring_place(kind, cfg_cpu_slots, &n);
	if (head + (lost ? 2 : 1) - *(volatile __u64 *)&rg->tail > n)
		goto full_busy;
	if (lost) {
		d = slot_at(cpu, kind, head);
		if (!d)
			goto full_busy;
		head++;
	}
	r = slot_at(cpu, kind, head);
	if (!r)
		goto full_busy;
	encode(r, type, a);
	if (who->sq_owner)
		npuprof_encode_sq_owner(r, who->tgid);
	if (cfg_probe_mode == NPUPROF_BPF_MODE_NOSTAMP)
		npuprof_encode_hdr(r, 0, cpu, (__u32)(id >> 32), (__u32)id);
	else
		stamp(r, cpu, id);
	if (d) {
		__builtin_memset(d, 0, sizeof(*d));
		d->hdr = r->hdr;
		d->hdr.type = NPUPROF_REC_DROP;
		d->hdr.flags = 0;
		/* all of it, with what a refused inner hit may have added */
		d->drop.lost = __sync_lock_test_and_set(&rg->pending_drop, 0);
	}
	/* the records before the head that publishes them (x86 keeps stores
	 * in order; the compiler must too) */
	asm volatile("" ::: "memory");
	*(volatile __u64 *)&rg->head = head + 1;
	rg->written++;
	asm volatile("" ::: "memory");
	*(volatile __u32 *)&rg->busy = 0;
	return;
full_busy:
	asm volatile("" ::: "memory");
	*(volatile __u32 *)&rg->busy = 0;
full:
	__sync_fetch_and_add(&rg->pending_drop, 1);
	__sync_fetch_and_add(&rg->dropped, 1);
}

/*
 * Decide on one hit of tracepoint @type from its copied arguments, then
 * encode and write it. With @read_str, the driver's string argument @str is
 * copied into @a only for a record that is kept: only the encoder looks at
 * it (the test entry points pass it in @a).
 */
static __always_inline int handle(int type, struct args *a, int read_str_arg,
				  const void *str)
{
	__u64 cpu = bpf_get_smp_processor_id();
	struct npuprof_bpf_pcpu *st;
	struct npuprof_who who = { 0, 0, 0 };
	__u32 stream, task, chan;
	__u64 id = 0; /* the current task, once looked up */
	int kind;

	barrier_var(cpu);
	if (cpu >= NPUPROF_BPF_MAX_CPUS)
		return 0; /* the loader refuses such machines */
	st = &cpu_stats[cpu];
	switch (type) {
	case NPUPROF_REC_SUBMIT:
		stream = a->sq.stream_id;
		task = a->sq.task_id;
		chan = a->sq.chan_id;
		kind = NPUPROF_KIND_SUBMIT;
		break;
	case NPUPROF_REC_COMPLETE:
		stream = a->cq.stream_id;
		task = a->cq.task_id;
		chan = a->cq.chan_id;
		kind = NPUPROF_KIND_TASK;
		break;
	default:
		stream = a->recv.chan_id;
		task = 0;
		chan = a->recv.chan_id;
		kind = NPUPROF_KIND_OTHER;
		break;
	}
	st->events[type]++; /* type is a constant here */
	/* the task a record is judged by and attributed to: looked up only
	 * where it matters (a task record's SQ owner always, for its pid; the
	 * current task for a recv with a pid filter) */
	if (kind == NPUPROF_KIND_TASK) {
		/* judged by its SQ's owner alone: no current task */
		struct npuprof_filter f = capture_filter();

		who = npuprof_filter_who(&f, kind, a->inst.devid, chan, 0, 0);
	} else if (kind != NPUPROF_KIND_OTHER || cfg_pid) {
		struct npuprof_filter f = capture_filter();

		/* the current uid only if the SQ owner table does not name
		 * the process ((__u32)-1: not taken, no task's uid) */
		id = bpf_get_current_pid_tgid();
		who = npuprof_filter_who(&f, kind, a->inst.devid, chan,
					 (__u32)(id >> 32), (__u32)-1);
		if (who.uid == (__u32)-1)
			who.uid = (__u32)bpf_get_current_uid_gid();
	}
	if (!select_record(st, a->inst.devid, stream, task, kind, &who))
		return 0;
	if (read_str_arg)
		read_str(a->str, str);
	write_record((__u32)cpu, type, a, &who, id);
	return 0;
}

/* ---- the tracepoint programs ----------------------------------------------- */

SEC("raw_tp/sqe")
int on_sqe(struct bpf_raw_tracepoint_args *ctx)
{
	struct args a;

	if (cfg_probe_mode == NPUPROF_BPF_MODE_EMPTY)
		return 0;
	/* the string is not part of a submit record: not read */
	read_inst(&a.inst, (const void *)ctx->args[1]);
	read_sq(&a.sq, (const void *)ctx->args[2]);
	return handle(NPUPROF_REC_SUBMIT, &a, 0, 0);
}

SEC("raw_tp/cqe")
int on_cqe(struct bpf_raw_tracepoint_args *ctx)
{
	struct args a;

	if (cfg_probe_mode == NPUPROF_BPF_MODE_EMPTY)
		return 0;
	read_inst(&a.inst, (const void *)ctx->args[1]);
	read_cq(&a.cq, (const void *)ctx->args[2]);
	return handle(NPUPROF_REC_COMPLETE, &a, 1, (const void *)ctx->args[0]);
}

SEC("raw_tp/recv")
int on_recv(struct bpf_raw_tracepoint_args *ctx)
{
	struct args a;

	if (cfg_probe_mode == NPUPROF_BPF_MODE_EMPTY)
		return 0;
	if (!wants(NPUPROF_REC_RECV))
		return 0; /* as the kmod: not even counted */
	read_inst(&a.inst, (const void *)ctx->args[1]);
	read_recv(&a.recv, (const void *)ctx->args[2]);
	return handle(NPUPROF_REC_RECV, &a, 1, (const void *)ctx->args[0]);
}

/* ---- who created each channel ---------------------------------------------- */

SEC("kprobe/hal_kernel_trs_chan_create")
int BPF_KPROBE(on_chan_create, void *inst, void *para, int *chan_id)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct chan_create_args a = { (__u64)inst, (__u64)para,
				      (__u64)chan_id };

	bpf_map_update_elem(&chan_creating, &id, &a, BPF_ANY);
	return 0;
}

/* A channel was created: it belongs to the current process. */
SEC("kretprobe/hal_kernel_trs_chan_create")
int BPF_KRETPROBE(on_chan_create_ret, int ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct chan_create_args *a = bpf_map_lookup_elem(&chan_creating, &id);
	struct trs_chan_type types;
	struct trs_id_inst inst;
	__u64 idx;
	int chan;

	if (!a)
		return 0;
	if (ret ||
	    bpf_probe_read_kernel(&inst, sizeof(inst), (void *)a->inst) ||
	    bpf_probe_read_kernel(
		    &types, sizeof(types),
		    (void *)(a->para + __builtin_offsetof(struct trs_chan_para,
							  types))) ||
	    bpf_probe_read_kernel(&chan, sizeof(chan), (void *)a->chan_id) ||
	    types.type != TRS_CHAN_TYPE_HW || chan < 0)
		goto out;
	idx = npuprof_sq_owner_index(inst.devid, (__u32)chan);
	if (idx >= NPUPROF_SQ_OWNER_SLOTS)
		goto out;
	sq_owner_tab[idx].uid = (__u32)bpf_get_current_uid_gid();
	/* the uid before the tgid that makes it valid (stores are not
	 * reordered with each other on x86; the compiler must not either) */
	asm volatile("" ::: "memory");
	sq_owner_tab[idx].tgid = (__u32)(id >> 32);
out:
	bpf_map_delete_elem(&chan_creating, &id);
	return 0;
}

/* A channel is destroyed: its id may name another process's SQ next. */
SEC("kprobe/hal_kernel_trs_chan_destroy")
int BPF_KPROBE(on_chan_destroy, void *inst, int chan_id)
{
	struct trs_id_inst in;
	__u64 idx;

	if (bpf_probe_read_kernel(&in, sizeof(in), inst))
		return 0;
	idx = npuprof_sq_owner_index(in.devid, (__u32)chan_id);
	if (idx < NPUPROF_SQ_OWNER_SLOTS)
		sq_owner_tab[idx].tgid = 0;
	return 0;
}

/* ---- test entry points: the arguments by value (BPF_PROG_TEST_RUN) -------- */

static __always_inline void test_args(struct args *a, const __u64 *ctx)
{
	__u64 *w = (__u64 *)a;

	_Static_assert(sizeof(struct args) == 64 &&
			       sizeof(struct npuprof_bpf_test_args) == 64,
		       "test args are 8 words");
#pragma unroll
	for (int i = 0; i < 8; i++)
		w[i] = ctx[i];
}

SEC("raw_tp")
int test_sqe(struct bpf_raw_tracepoint_args *ctx)
{
	struct args a;

	test_args(&a, ctx->args);
	return handle(NPUPROF_REC_SUBMIT, &a, 0, 0);
}

SEC("raw_tp")
int test_cqe(struct bpf_raw_tracepoint_args *ctx)
{
	struct args a;

	test_args(&a, ctx->args);
	return handle(NPUPROF_REC_COMPLETE, &a, 0, 0);
}

SEC("raw_tp")
int test_recv(struct bpf_raw_tracepoint_args *ctx)
{
	struct args a;

	if (!wants(NPUPROF_REC_RECV))
		return 0;
	test_args(&a, ctx->args);
	return handle(NPUPROF_REC_RECV, &a, 0, 0);
}
