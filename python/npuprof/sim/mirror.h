/*
 * mirror.h - the device mirror of the framework layer (npuprof.torch).
 *
 * Real PyTorch on a CPU host launches no NPU work. With the mirror on (the
 * default when npusim is the device), every top-level aten op also launches
 * its modelled aclnn operator on the simulated NPU through libascendcl and
 * libopapi, from the op's own thread and inside the op's scope, so that its
 * CANN launches nest in the op's PYTORCH_API range; collectives of
 * torch.distributed mirror onto HCCL. On a real Ascend host the mirror is
 * off. Built as libnpuprof_mirror.so (plain C, libc + our ACL libraries);
 * the torch extension links it and Python reaches it through ctypes.
 */
#ifndef NPUPROF_MIRROR_H
#define NPUPROF_MIRROR_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One input of an op: its aclDataType (ACL_FLOAT ...; ACL_DT_UNDEFINED for
 * a non-tensor input) and shape. */
struct npuprof_mirror_tensor {
	int32_t dtype;
	int32_t ndim;
	const int64_t *dims;
};

/* Opens the device for the calling process (aclInit, aclrtSetDevice, a
 * stream). 0, or a negative errno with a message in err. */
int npuprof_mirror_open(int32_t device, char *err, size_t errlen);
/* Synchronises and releases what open() took. */
void npuprof_mirror_close(void);
/* 1 while open. */
int npuprof_mirror_is_open(void);
/* Launches the modelled operator of the top-level op `name` (aten::addmm,
 * aten::relu, ...) with its inputs, on the mirror stream, from the calling
 * thread. 1 if it launched device work, 0 if the op has none (views,
 * aten::empty ...), negative errno on failure. */
int npuprof_mirror_op(const char *name, const struct npuprof_mirror_tensor *in, size_t n_in);
/* Waits for the mirror stream (e.g. at a step's end). */
int npuprof_mirror_sync(void);
/* The calling thread's message for its last failed call ("" if none). */
const char *npuprof_mirror_strerror(void);
/* What npuprof_mirror_op would launch for `name` with these inputs, without
 * a device: "aclnnMatmul(FLOAT[4,8];FLOAT[8,16]->FLOAT[4,16])+aclnnAdd(...)"
 * into buf ("" for none). Returns the number of aclnn operators (0: no
 * device work), negative errno for bad arguments. For tests and tools. */
int npuprof_mirror_describe(const char *name, const struct npuprof_mirror_tensor *in, size_t n_in,
			    char *buf, size_t len);

/* ---- collectives: torch.distributed mirrored onto HCCL on npusim ----------
 * One communicator per process across the ranks of a job, set up like
 * torch_npu's ProcessGroupHCCL: rank 0 takes the root info
 * (HcclGetRootInfo), the job shares its bytes (torch.distributed's store),
 * every rank joins with it (HcclCommInitRootInfo) on the mirror's device.
 * Needs the mirror open. */
#define NPUPROF_MIRROR_ROOT_INFO_BYTES 4108 /* HCCL_ROOT_INFO_BYTES */
/* Root info into buf (len >= NPUPROF_MIRROR_ROOT_INFO_BYTES): its size, or
 * a negative errno with a message in err. */
int npuprof_mirror_comm_root_info(void *buf, size_t len, char *err, size_t errlen);
/* Joins the communicator of rank_size ranks as `rank`; waits for the
 * others (HCCL_CONNECT_TIMEOUT, 120 s by default). 0, or negative errno
 * with a message in err (-EBUSY: one is set up already). */
int npuprof_mirror_comm_init(uint32_t rank_size, uint32_t rank, const void *root_info, size_t len,
			     char *err, size_t errlen);
/* Synchronises the stream and destroys the communicator (close() does too). */
void npuprof_mirror_comm_destroy(void);
/* This process's rank in the communicator, -1 without one. */
int npuprof_mirror_comm_rank(void);
/* The communicator's name (HcclGetCommName: COMMUNICATION_OP's groupName)
 * into buf: 0, -ENOTCONN without one, -ENOSPC if len cannot hold it. */
#define NPUPROF_MIRROR_COMM_NAME_BYTES 128 /* ROOTINFO_INDENTIFIER_MAX_LENGTH */
int npuprof_mirror_comm_name(char *buf, size_t len);

enum npuprof_mirror_coll {
	NPUPROF_MIRROR_ALL_REDUCE, /* t: the tensor reduced in place */
	NPUPROF_MIRROR_BROADCAST, /* t: the tensor; root: the source rank */
	NPUPROF_MIRROR_ALL_GATHER, /* t: one rank's input */
	NPUPROF_MIRROR_REDUCE_SCATTER, /* t: one rank's output */
	NPUPROF_MIRROR_BARRIER, /* t: NULL (a one-element all-reduce, as HCCL's) */
	NPUPROF_MIRROR_COLL_COUNT
};
/* torch.distributed.ReduceOp values: SUM 0, PRODUCT 1, MIN 2, MAX 3. */
enum npuprof_mirror_reduce {
	NPUPROF_MIRROR_SUM = 0,
	NPUPROF_MIRROR_PRODUCT = 1,
	NPUPROF_MIRROR_MIN = 2,
	NPUPROF_MIRROR_MAX = 3,
};
/* Launches the collective on the mirror stream from the calling thread,
 * inside a framework op record (a PYTORCH_API row of type 50001) named
 * `record_name` (NULL: torch_npu's name, "HcclAllreduce" ...) that spans
 * the HCCL launch, so that the op links to its COMMUNICATION_OP through
 * CANN_API. Every rank must issue the same collectives in the same order.
 * 1 if launched, negative errno on failure (-ENOTCONN: no communicator). */
int npuprof_mirror_collective(int coll, const char *record_name,
			      const struct npuprof_mirror_tensor *t, uint32_t root, int reduce_op);

#ifdef __cplusplus
}
#endif
#endif /* NPUPROF_MIRROR_H */
