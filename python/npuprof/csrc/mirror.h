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

#ifdef __cplusplus
}
#endif
#endif /* NPUPROF_MIRROR_H */
