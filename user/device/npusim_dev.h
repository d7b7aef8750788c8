/*
 * npusim_dev.h — a thin userspace wrapper over the npusim ioctl ABI
 * (include/uapi/npusim.h), used by the ACL runtime, npuwork and the tests.
 *
 * Every function returns 0 (or a non-negative value where stated) on success
 * and a negative errno on failure.
 *
 * On a device in a user-mode send mode (UIO_T, as a real 910B; UIO_D) the
 * client maps each stream's soft queue when it creates the stream, and
 * npusim_sq_send() writes the SQEs there and rings the trigger instead of
 * NPUSIM_IOC_SQ_SEND, as libascend_hal's halSqTaskSend does; on a KIO device
 * (or if the mapping fails) it uses the ioctl. The mappings are the only
 * thing the client allocates; npusim_stream_destroy() and npusim_dev_close()
 * release them (a mapping keeps its device file open).
 */
#ifndef NPUPROF_NPUSIM_DEV_H
#define NPUPROF_NPUSIM_DEV_H

#include <stdint.h>
#include "uapi/npusim.h"
#include "npusim_sqe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Open /dev/npusim<devid> (O_RDWR | O_CLOEXEC). Returns the fd or -errno. */
int npusim_dev_open(unsigned int devid);
/* Unmap what the client mapped of fd's streams, then close fd. */
int npusim_dev_close(int fd);
/* Number of /dev/npusim* devices present (0 if the driver is not loaded). */
int npusim_dev_count(void);
int npusim_dev_info(int fd, struct npusim_dev_info *info);

int npusim_stream_create(int fd, uint32_t *stream_id);
int npusim_stream_destroy(int fd, uint32_t stream_id, uint32_t flags, int timeout_ms);
int npusim_stream_sync(int fd, uint32_t stream_id, int timeout_ms);
int npusim_stream_status(int fd, uint32_t stream_id, struct npusim_stream_status *st);

/* Send n SQEs; *pos (optional) receives the SQ slot (or soft queue slot) of
 * the first. timeout_ms: wait for room (0: -EBUSY at once; < 0: forever).
 * models: the simulator's model of each SQE (npusim_task_model), handed
 * over beside them (the model array of the soft queue, or the ioctl's
 * model_addr); NULL: every task gets its type's defaults. */
int npusim_sq_send_model(int fd, uint32_t stream_id, const struct npusim_sqe *sqes,
			 const struct npusim_task_model *models, uint32_t n, int timeout_ms,
			 uint32_t *pos);
/* npusim_sq_send_model without models */
int npusim_sq_send(int fd, uint32_t stream_id, const struct npusim_sqe *sqes, uint32_t n,
		   int timeout_ms, uint32_t *pos);
/* Receive up to cap CQEs; returns how many (0 on a poll with none). */
int npusim_cq_recv(int fd, uint32_t stream_id, struct npusim_cqe *cqes, uint32_t cap,
		   int timeout_ms);

/* Logic CQs (uapi/npusim.h, "The logic CQ"): allocate one of depth slots
 * whose receives copy cqe_size bytes of each logic CQE; free it; bind a
 * stream to it or unbind it (prop NPUSIM_STREAM_(UN)BIND_LOGIC_CQ);
 * receive up to cap logic CQEs into buf (cap * cqe_size bytes), version 1
 * handing over a match CQE only for stream_id / task_id: returns how many
 * (0 on a poll with none). */
int npusim_logic_cq_alloc(int fd, uint32_t depth, uint32_t cqe_size, uint32_t *cq_id);
int npusim_logic_cq_free(int fd, uint32_t cq_id);
int npusim_stream_logic_cq(int fd, uint32_t stream_id, uint32_t prop, uint32_t cq_id);
int npusim_logic_cq_recv(int fd, uint32_t cq_id, void *buf, uint32_t cap, int timeout_ms,
			 uint32_t version, uint32_t stream_id, uint32_t task_id);

/* The send mode the client uses for fd's stream (enum npusim_send_mode). */
uint32_t npusim_sq_mode(int fd, uint32_t stream_id);

int npusim_clock_sync(int fd, struct npusim_clock_sample *samples, uint32_t n);
int npusim_id_alloc(int fd, uint32_t kind, uint32_t *id);
int npusim_id_free(int fd, uint32_t kind, uint32_t id);
/* the host records an id it owns (ABI 8), as a record task would */
int npusim_id_record(int fd, uint32_t kind, uint32_t id);
/* NPUSIM_IOC_SHR_ID: op on shared id (kind, id); *gen in (out for CREATE) */
int npusim_shr_id(int fd, uint32_t op, uint32_t kind, uint32_t id, uint32_t *gen);
int npusim_event_status(int fd, uint32_t id, struct npusim_event_status *st);

/* The STARS SoC log of fd's device (profiling channel 50), as the HAL's
 * prof_drv_start / prof_channel_read / prof_stop: start with a ring of
 * ring_records (0: the driver's default); read returns the bytes of whole
 * records copied into buf (0: none yet) and the channel's counts; stop. */
int npusim_prof_start(int fd, uint32_t ring_records);
int npusim_prof_read(int fd, void *buf, uint32_t len, uint64_t *records, uint64_t *dropped);
int npusim_prof_stop(int fd);
/* Profiling channel 132, the AI Core frequency (ABI 9): start with the
 * collector's config {period, version}; read and stop any channel by its
 * number (NPUSIM_PROF_CHANNEL_*), whole records (NPUSIM_LP_RECORD_SIZE
 * bytes for channel 132) as npusim_prof_read. */
int npusim_lp_start(int fd, const struct npusim_lp_config *cfg);
int npusim_chan_read(int fd, uint32_t channel, void *buf, uint32_t len, uint64_t *records,
		     uint64_t *dropped);
int npusim_chan_stop(int fd, uint32_t channel);

#ifdef __cplusplus
}
#endif
#endif
