/*
 * hal.c — libascend_hal.so over npusim: the driver's user-space API
 * (include/driver/ascend_hal.h, CANN's names and types) on npusim's ioctl
 * and soft-queue interface, through the npusim client (user/device/
 * npusim_dev.c, linked into this library). libc only.
 *
 * A device is addressed by its id, as in CANN; halDeviceOpen opens its file
 * and halDeviceClose closes it. An SQ/CQ pair of the normal type is an
 * npusim stream: its SQ id and CQ id are both the stream's id, which the
 * STARS SQEs sent to it carry. A CQ of the logic type is an npusim logic
 * CQ, to which halResourceConfig binds streams and from which
 * halCqReportRecv takes their 32-byte reports. The STARS SoC log (profiling channel 50)
 * and the AI Core frequency's channel (132) have a file of their own per
 * device, opened by prof_drv_start whether or not the device is open, as
 * the real prof driver serves its channels apart from the task queues.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "driver/ascend_hal.h"
#include "driver/npusim_hal.h"
#include "npusim_dev.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
_Static_assert(CHANNEL_STARS_SOC_LOG_BUFFER == NPUSIM_PROF_CHANNEL_STARS_SOC_LOG, "channel 50");
_Static_assert(CHANNEL_LP == NPUSIM_PROF_CHANNEL_LP, "channel 132");

/* the profiling channels served, each with a reader file per device */
static const unsigned int g_prof_chan[] = { CHANNEL_STARS_SOC_LOG_BUFFER, CHANNEL_LP };
#define PROF_CHANS (sizeof(g_prof_chan) / sizeof(g_prof_chan[0]))

/* fd + 1 of each device's open file and of its channels' readers (0: none) */
static int g_fd1[NPUSIM_MAX_DEVICES];
static int g_prof_fd1[NPUSIM_MAX_DEVICES][PROF_CHANS];
/* ... and of a file opened for shared ids of a device not opened */
static int g_shr_fd1[NPUSIM_MAX_DEVICES];

/* the models of the calling thread's next send (npusim_hal_set_task_model) */
static __thread const struct npusim_task_model *t_models;
static __thread uint32_t t_models_n;

/* A negative errno of the npusim client as the driver's error code. */
static drvError_t drv_err(int r)
{
	switch (-r) {
	case 0: return DRV_ERROR_NONE;
	case EINVAL: return DRV_ERROR_INVALID_VALUE;
	case ENOENT: return DRV_ERROR_NOT_EXIST;
	case ENODEV:
	case ENXIO: return DRV_ERROR_NO_DEVICE;
	case ENOMEM: return DRV_ERROR_OUT_OF_MEMORY;
	case ENOSPC: return DRV_ERROR_NO_RESOURCES;
	case EBUSY:
	case EAGAIN:
	case ETIMEDOUT: return DRV_ERROR_WAIT_TIMEOUT;
	case EALREADY: return DRV_ERROR_REPEATED_INIT;
	case EOPNOTSUPP: return DRV_ERROR_NOT_SUPPORT;
	default: return DRV_ERROR_IOCRL_FAIL;
	}
}

/* The fd of an opened device, or -1 (*err says why). */
static int dev_fd(uint32_t devId, drvError_t *err)
{
	int fd;

	if (devId >= NPUSIM_MAX_DEVICES) {
		*err = DRV_ERROR_INVALID_DEVICE;
		return -1;
	}
	pthread_mutex_lock(&g_lock);
	fd = g_fd1[devId] - 1;
	pthread_mutex_unlock(&g_lock);
	*err = fd < 0 ? DRV_ERROR_UNINIT : DRV_ERROR_NONE;
	return fd;
}

drvError_t halDeviceOpen(uint32_t devid, halDevOpenIn *in, halDevOpenOut *out)
{
	drvError_t ret = DRV_ERROR_NONE;
	int fd;

	if (devid >= NPUSIM_MAX_DEVICES)
		return DRV_ERROR_INVALID_DEVICE;
	pthread_mutex_lock(&g_lock);
	if (g_fd1[devid]) {
		ret = DRV_ERROR_REPEATED_INIT;
	} else {
		fd = npusim_dev_open(devid);
		if (fd < 0)
			ret = fd == -ENOENT ? DRV_ERROR_INVALID_DEVICE : drv_err(fd);
		else
			g_fd1[devid] = fd + 1;
	}
	pthread_mutex_unlock(&g_lock);
	return ret;
}

drvError_t halDeviceClose(uint32_t devid, halDevCloseIn *in)
{
	int fd;

	if (devid >= NPUSIM_MAX_DEVICES)
		return DRV_ERROR_INVALID_DEVICE;
	pthread_mutex_lock(&g_lock);
	fd = g_fd1[devid] - 1;
	g_fd1[devid] = 0;
	pthread_mutex_unlock(&g_lock);
	if (fd < 0)
		return DRV_ERROR_UNINIT;
	return drv_err(npusim_dev_close(fd));
}

drvError_t drvGetDevNum(uint32_t *num_dev)
{
	int n;

	if (!num_dev)
		return DRV_ERROR_INVALID_VALUE;
	n = npusim_dev_count();
	*num_dev = n > 0 ? (uint32_t)n : 0;
	return DRV_ERROR_NONE;
}

/* The device's npusim info, through its open file or a file opened for the
 * question (CANN answers device info without halDeviceOpen). */
static drvError_t dev_info(uint32_t devId, struct npusim_dev_info *info)
{
	drvError_t err;
	int fd = dev_fd(devId, &err), r;

	if (err == DRV_ERROR_INVALID_DEVICE)
		return err;
	if (fd >= 0)
		return drv_err(npusim_dev_info(fd, info));
	fd = npusim_dev_open(devId);
	if (fd < 0)
		return fd == -ENOENT ? DRV_ERROR_INVALID_DEVICE : drv_err(fd);
	r = npusim_dev_info(fd, info);
	npusim_dev_close(fd);
	return drv_err(r);
}

drvError_t halGetDeviceInfo(uint32_t devId, int32_t moduleType, int32_t infoType, int64_t *value)
{
	struct npusim_dev_info info;
	drvError_t err;

	if (!value)
		return DRV_ERROR_INVALID_VALUE;
	err = dev_info(devId, &info);
	if (err)
		return err;
	if (infoType == INFO_TYPE_CORE_NUM) {
		switch (moduleType) {
		case MODULE_TYPE_AICORE: *value = info.aicore_num; return DRV_ERROR_NONE;
		case MODULE_TYPE_VECTOR_CORE: *value = info.aivector_num; return DRV_ERROR_NONE;
		case MODULE_TYPE_AICPU: *value = info.aicpu_num; return DRV_ERROR_NONE;
		default: break;
		}
	}
	/* the AI Core's rated and current frequency, MHz: the current one is
	 * the device's setting (npusim's aicore_freq) */
	if (moduleType == MODULE_TYPE_AICORE && infoType == INFO_TYPE_FREQUE) {
		*value = info.aicore_mhz;
		return DRV_ERROR_NONE;
	}
	if (moduleType == MODULE_TYPE_AICORE && infoType == INFO_TYPE_CURRENT_FREQ) {
		*value = info.aicore_cur_mhz;
		return DRV_ERROR_NONE;
	}
	/* the device counter's frequency, which converts STARS log times */
	if (moduleType == MODULE_TYPE_SYSTEM && infoType == INFO_TYPE_DEV_OSC_FREQUE) {
		if (info.counter_hz > INT64_MAX)
			return DRV_ERROR_INNER_ERR;
		*value = (int64_t)info.counter_hz;
		return DRV_ERROR_NONE;
	}
	return DRV_ERROR_NOT_SUPPORT;
}

drvError_t halGetChipInfo(unsigned int devId, halChipInfo *chipInfo)
{
	struct npusim_dev_info info;
	drvError_t err;

	if (!chipInfo)
		return DRV_ERROR_INVALID_VALUE;
	err = dev_info(devId, &info);
	if (err)
		return err;
	memset(chipInfo, 0, sizeof(*chipInfo));
	/* "Ascend" and "910B", as CANN's driver splits the chip's name */
	if (strncmp(info.chip_name, "Ascend", 6) == 0) {
		memcpy(chipInfo->type, "Ascend", 6);
		memcpy(chipInfo->name, info.chip_name + 6,
		       strnlen(info.chip_name + 6, sizeof(info.chip_name) - 6));
	} else {
		memcpy(chipInfo->name, info.chip_name,
		       strnlen(info.chip_name, sizeof(info.chip_name)));
	}
	memcpy(chipInfo->version, "V1", 2);
	return DRV_ERROR_NONE;
}

/* ---- SQ/CQ ------------------------------------------------------------------ */

/* The fd for a call on a queue of the given type: the normal type, and
 * the logic type where logic_ok. */
static int queue_fd(uint32_t devId, const void *info, drvSqCqType_t type, int logic_ok,
		    drvError_t *err)
{
	if (!info) {
		*err = DRV_ERROR_INVALID_VALUE;
		return -1;
	}
	if (devId >= NPUSIM_MAX_DEVICES) {
		*err = DRV_ERROR_INVALID_DEVICE;
		return -1;
	}
	if ((unsigned int)type >= DRV_INVALID_TYPE) {
		*err = DRV_ERROR_INVALID_VALUE;
		return -1;
	}
	if (type != DRV_NORMAL_TYPE && !(type == DRV_LOGIC_TYPE && logic_ok)) {
		*err = DRV_ERROR_NOT_SUPPORT;
		return -1;
	}
	return dev_fd(devId, err);
}

/*
 * A logic CQ (hicann/driver trs_logic_cq.c trs_logic_cq_alloc): cqeDepth
 * reports of cqeSize bytes (1..65536, 1..32; out of range
 * DRV_ERROR_INVALID_VALUE). TSDRV_FLAG_THREAD_BIND_IRQ asks for a "fast"
 * CQ with an interrupt of its own; npusim has none to give, so the flag
 * comes back cleared in out->flag, as the driver clears it when it has no
 * such interrupt free (trs_logic_cq_id_init), and the CQ is an ordinary
 * one. Any other flag: DRV_ERROR_INVALID_VALUE.
 */
static drvError_t logic_cq_alloc(int fd, struct halSqCqInputInfo *in, struct halSqCqOutputInfo *out)
{
	uint32_t id;
	int r;

	if (in->flag & ~(uint32_t)TSDRV_FLAG_THREAD_BIND_IRQ)
		return DRV_ERROR_INVALID_VALUE;
	r = npusim_logic_cq_alloc(fd, in->cqeDepth, in->cqeSize, &id);
	if (r < 0)
		return drv_err(r);
	memset(out, 0, sizeof(*out));
	out->sqId = in->sqId;
	out->cqId = id;
	out->flag = in->flag & ~(uint32_t)TSDRV_FLAG_THREAD_BIND_IRQ;
	return DRV_ERROR_NONE;
}

drvError_t halSqCqAllocate(uint32_t devId, struct halSqCqInputInfo *in,
			   struct halSqCqOutputInfo *out)
{
	drvError_t err;
	uint32_t sid;
	int fd, r;

	if (!out)
		return DRV_ERROR_INVALID_VALUE;
	fd = queue_fd(devId, in, in ? in->type : DRV_NORMAL_TYPE, 1, &err);
	if (fd < 0)
		return err;
	if (in->type == DRV_LOGIC_TYPE)
		return logic_cq_alloc(fd, in, out);
	/* STARS SQEs only; no reuse of another pair's queue, no fixed ids */
	if ((in->sqeSize && in->sqeSize != sizeof(struct npusim_sqe)) || in->flag)
		return DRV_ERROR_INVALID_VALUE;
	r = npusim_stream_create(fd, &sid);
	if (r < 0)
		return drv_err(r);
	memset(out, 0, sizeof(*out));
	out->sqId = sid;
	out->cqId = sid;
	return DRV_ERROR_NONE;
}

/* Frees the pair at once: SQEs the device has not run are dropped, as the
 * real driver frees the queue memory (the caller waits for its tasks first
 * if it wants them run). A logic CQ (cqId) is freed with the reports it
 * holds; a receive waiting on it returns, and the reports of streams still
 * bound to it are lost from then on (counted by npusim). */
drvError_t halSqCqFree(uint32_t devId, struct halSqCqFreeInfo *info)
{
	drvError_t err;
	int fd = queue_fd(devId, info, info ? info->type : DRV_NORMAL_TYPE, 1, &err);

	if (fd < 0)
		return err;
	if (info->type == DRV_LOGIC_TYPE)
		return drv_err(npusim_logic_cq_free(fd, info->cqId));
	return drv_err(npusim_stream_destroy(fd, info->sqId, NPUSIM_DESTROY_CANCEL, 0));
}

drvError_t halSqCqQuery(uint32_t devId, struct halSqCqQueryInfo *info)
{
	struct npusim_dev_info di;
	struct npusim_stream_status st;
	drvError_t err;
	int fd = queue_fd(devId, info, info ? info->type : DRV_NORMAL_TYPE, 0, &err), r;

	if (fd < 0)
		return err;
	switch (info->prop) {
	case DRV_SQCQ_PROP_SQ_HEAD:
	case DRV_SQCQ_PROP_SQ_TAIL:
		r = npusim_stream_status(fd, info->sqId, &st);
		if (r < 0)
			return drv_err(r);
		info->value[0] = info->prop == DRV_SQCQ_PROP_SQ_HEAD ? st.sq_head : st.sq_tail;
		return DRV_ERROR_NONE;
	case DRV_SQCQ_PROP_SQ_DEPTH:
	case DRV_SQCQ_PROP_SQE_SIZE:
	case DRV_SQCQ_PROP_CQE_SIZE:
		r = npusim_dev_info(fd, &di);
		if (r < 0)
			return drv_err(r);
		info->value[0] = info->prop == DRV_SQCQ_PROP_SQ_DEPTH ?
					 di.sq_depth :
				 info->prop == DRV_SQCQ_PROP_SQE_SIZE ?
					 (uint32_t)sizeof(struct npusim_sqe) :
					 (uint32_t)sizeof(struct npusim_cqe);
		return DRV_ERROR_NONE;
	default:
		return (unsigned int)info->prop >= DRV_SQCQ_PROP_MAX ? DRV_ERROR_INVALID_VALUE :
								       DRV_ERROR_NOT_SUPPORT;
	}
}

drvError_t npusim_hal_set_task_model(const struct npusim_task_model *models, uint32_t n)
{
	if (models && !n)
		return DRV_ERROR_INVALID_VALUE;
	t_models = models;
	t_models_n = models ? n : 0;
	return DRV_ERROR_NONE;
}

drvError_t halSqTaskSend(uint32_t devId, struct halTaskSendInfo *info)
{
	const struct npusim_task_model *models = t_models;
	uint32_t models_n = t_models_n;
	drvError_t err;
	int fd, r;

	t_models = NULL;
	t_models_n = 0;
	fd = queue_fd(devId, info, info ? info->type : DRV_NORMAL_TYPE, 0, &err);
	if (fd < 0)
		return err;
	if (!info->sqe_addr || !info->sqe_num)
		return DRV_ERROR_INVALID_VALUE;
	if (models && models_n != info->sqe_num)
		return DRV_ERROR_INVALID_VALUE;
	r = npusim_sq_send_model(fd, info->sqId, (const struct npusim_sqe *)info->sqe_addr, models,
				 info->sqe_num, info->timeout, &info->pos);
	return drv_err(r);
}

/*
 * The normal type: the pair's 16-byte CQEs, all of them (no match); none
 * within the timeout (or on a poll) is DRV_ERROR_WAIT_TIMEOUT. The logic
 * type: the logic CQ's 32-byte reports (cqeSize bytes each) by the
 * driver's match receive, version 1 in res[0] as CANN's halCqReportRecv
 * sets it (hicann/driver src/ascend_hal/trs/core/trs_sqcq.c): a report of
 * a task sent with the sync-task flag only when stream_id and task_id
 * name it, every other report to any receive. A poll (timeout 0) with
 * nothing returns DRV_ERROR_NONE and no report; a wait that saw no report
 * come, DRV_ERROR_WAIT_TIMEOUT; timeout below -1, DRV_ERROR_INVALID_VALUE.
 */
drvError_t halCqReportRecv(uint32_t devId, struct halReportRecvInfo *info)
{
	drvError_t err;
	int fd = queue_fd(devId, info, info ? info->type : DRV_NORMAL_TYPE, 1, &err), r;

	if (fd < 0)
		return err;
	info->report_cqe_num = 0;
	if (!info->cqe_addr || !info->cqe_num)
		return DRV_ERROR_INVALID_VALUE;
	if (info->type == DRV_LOGIC_TYPE) {
		info->res[0] = 1; /* version 1: the match receive */
		r = npusim_logic_cq_recv(fd, info->cqId, info->cqe_addr, info->cqe_num,
					 info->timeout, info->res[0], info->stream_id,
					 info->task_id);
		if (r < 0)
			return drv_err(r);
		info->report_cqe_num = (uint32_t)r;
		return DRV_ERROR_NONE;
	}
	r = npusim_cq_recv(fd, info->cqId, (struct npusim_cqe *)info->cqe_addr, info->cqe_num,
			   info->timeout);
	if (r < 0)
		return drv_err(r);
	info->report_cqe_num = (uint32_t)r;
	/* none within the wait: the driver's timeout, as CANN's runtime expects */
	return r == 0 ? DRV_ERROR_WAIT_TIMEOUT : DRV_ERROR_NONE;
}

drvError_t npusim_hal_sq_wait(uint32_t devId, uint32_t sqId, int32_t timeout)
{
	drvError_t err;
	int fd = dev_fd(devId, &err);

	if (fd < 0)
		return err;
	return drv_err(npusim_stream_sync(fd, sqId, timeout));
}

drvError_t npusim_hal_sq_status(uint32_t devId, uint32_t sqId, struct npusim_stream_status *st)
{
	drvError_t err;
	int fd;

	if (!st)
		return DRV_ERROR_INVALID_VALUE;
	fd = dev_fd(devId, &err);
	if (fd < 0)
		return err;
	return drv_err(npusim_stream_status(fd, sqId, st));
}

drvError_t npusim_hal_notify_record(uint32_t devId, uint32_t notifyId)
{
	drvError_t err;
	int fd = dev_fd(devId, &err);

	if (fd < 0)
		return err;
	return drv_err(npusim_id_record(fd, NPUSIM_ID_NOTIFY, notifyId));
}

/* ---- resource ids -------------------------------------------------------- */

/* npusim's id kind of a driver id type, or -1 (events and notifies only) */
static int id_kind(drvIdType_t type)
{
	switch (type) {
	case DRV_EVENT_ID: return NPUSIM_ID_EVENT;
	case DRV_NOTIFY_ID: return NPUSIM_ID_NOTIFY;
	default: return -1;
	}
}

/* The fd of the device an id call names, with npusim's id kind, or -1
 * (*err says why) */
static int id_fd(uint32_t devId, const struct halResourceIdInputInfo *in, uint32_t *kind,
		 drvError_t *err)
{
	int k;

	*err = DRV_ERROR_INVALID_VALUE;
	if (!in || (unsigned int)in->type >= DRV_INVALID_ID)
		return -1;
	k = id_kind(in->type);
	if (k < 0) {
		*err = DRV_ERROR_NOT_SUPPORT;
		return -1;
	}
	*kind = (uint32_t)k;
	return dev_fd(devId, err);
}

drvError_t halResourceIdAlloc(uint32_t devId, struct halResourceIdInputInfo *in,
			      struct halResourceIdOutputInfo *out)
{
	drvError_t err;
	uint32_t id, kind;
	int fd, r;

	if (!out)
		return DRV_ERROR_INVALID_VALUE;
	fd = id_fd(devId, in, &kind, &err);
	if (fd < 0)
		return err;
	r = npusim_id_alloc(fd, kind, &id);
	if (r < 0)
		return r == -ENOSPC ? DRV_ERROR_NO_RESOURCES : drv_err(r);
	memset(out, 0, sizeof(*out));
	out->resourceId = id;
	return DRV_ERROR_NONE;
}

drvError_t halResourceIdFree(uint32_t devId, struct halResourceIdInputInfo *in)
{
	drvError_t err;
	uint32_t kind;
	int fd = id_fd(devId, in, &kind, &err);

	if (fd < 0)
		return err;
	return drv_err(npusim_id_free(fd, kind, in->resourceId));
}

/* ---- shared ids ------------------------------------------------------------ */

/*
 * The driver names a shared id; on npusim the name says the device, the
 * event id and its allocation generation (npusim's NPUSIM_IOC_SHR_ID), so
 * an id freed and given again does not open under its old name. Only
 * events are shared here (SHR_ID_EVENT_TYPE); notifies are not
 * (DRV_ERROR_NOT_SUPPORT).
 */
#define SHR_NAME_FMT "npusim%u.event%u.%08x"

static int shr_name_parse(const char *name, uint32_t *dev, uint32_t *id, uint32_t *gen)
{
	char again[64];

	if (!name || sscanf(name, SHR_NAME_FMT, dev, id, gen) != 3 || *dev >= NPUSIM_MAX_DEVICES)
		return -1;
	snprintf(again, sizeof(again), SHR_NAME_FMT, *dev, *id, *gen);
	return strcmp(again, name) ? -1 : 0;
}

/* The device's open file, else a file of the library's own on it (an
 * event shared from a device this process has not opened), or -1. */
static int any_fd(uint32_t devId, drvError_t *err)
{
	int fd = dev_fd(devId, err);

	if (fd >= 0 || *err != DRV_ERROR_UNINIT)
		return fd;
	pthread_mutex_lock(&g_lock);
	fd = g_shr_fd1[devId] - 1;
	if (fd < 0) {
		fd = npusim_dev_open(devId);
		if (fd >= 0)
			g_shr_fd1[devId] = fd + 1;
	}
	pthread_mutex_unlock(&g_lock);
	*err = fd < 0 ? (fd == -ENOENT ? DRV_ERROR_INVALID_DEVICE : drv_err(fd)) : DRV_ERROR_NONE;
	return fd < 0 ? -1 : fd;
}

drvError_t halShrIdCreate(struct drvShrIdInfo *info, char *name, uint32_t name_len)
{
	drvError_t err;
	uint32_t gen = 0;
	int fd, r;

	if (!info || !name || info->id_type >= SHR_ID_TYPE_MAX)
		return DRV_ERROR_INVALID_VALUE;
	if (info->id_type != SHR_ID_EVENT_TYPE)
		return DRV_ERROR_NOT_SUPPORT;
	fd = dev_fd(info->devid, &err);
	if (fd < 0)
		return err;
	r = npusim_shr_id(fd, NPUSIM_SHR_CREATE, NPUSIM_ID_EVENT, info->shrid, &gen);
	if (r < 0)
		return drv_err(r);
	r = snprintf(name, name_len, SHR_NAME_FMT, info->devid, info->shrid, gen);
	if (r < 0 || (uint32_t)r >= name_len) {
		npusim_shr_id(fd, NPUSIM_SHR_DESTROY, NPUSIM_ID_EVENT, info->shrid, &gen);
		return DRV_ERROR_INVALID_VALUE;
	}
	return DRV_ERROR_NONE;
}

drvError_t halShrIdDestroy(const char *name)
{
	uint32_t dev, id, gen;
	drvError_t err;
	int fd;

	if (shr_name_parse(name, &dev, &id, &gen))
		return DRV_ERROR_INVALID_VALUE;
	fd = dev_fd(dev, &err);
	if (fd < 0)
		return err;
	return drv_err(npusim_shr_id(fd, NPUSIM_SHR_DESTROY, NPUSIM_ID_EVENT, id, &gen));
}

drvError_t halShrIdOpen(const char *name, struct drvShrIdInfo *info)
{
	uint32_t dev, id, gen;
	drvError_t err;
	int fd, r;

	if (!info || shr_name_parse(name, &dev, &id, &gen))
		return DRV_ERROR_INVALID_VALUE;
	fd = any_fd(dev, &err);
	if (fd < 0)
		return err;
	r = npusim_shr_id(fd, NPUSIM_SHR_OPEN, NPUSIM_ID_EVENT, id, &gen);
	if (r < 0)
		return r == -EEXIST ? DRV_ERROR_REPEATED_INIT : drv_err(r);
	memset(info, 0, sizeof(*info));
	info->devid = dev;
	info->id_type = SHR_ID_EVENT_TYPE;
	info->shrid = id;
	return DRV_ERROR_NONE;
}

drvError_t halShrIdClose(const char *name)
{
	uint32_t dev, id, gen;
	drvError_t err;
	int fd;

	if (shr_name_parse(name, &dev, &id, &gen))
		return DRV_ERROR_INVALID_VALUE;
	fd = any_fd(dev, &err);
	if (fd < 0)
		return err;
	return drv_err(npusim_shr_id(fd, NPUSIM_SHR_CLOSE, NPUSIM_ID_EVENT, id, &gen));
}

drvError_t npusim_hal_event_status(uint32_t devId, uint32_t eventId, struct npusim_event_status *st)
{
	drvError_t err;
	int fd;

	if (!st)
		return DRV_ERROR_INVALID_VALUE;
	fd = any_fd(devId, &err);
	if (fd < 0)
		return err;
	return drv_err(npusim_event_status(fd, eventId, st));
}

/*
 * Bind a stream (DRV_STREAM_ID, resourceId: the stream's SQ id here) to the
 * logic CQ value[0], or unbind it (hicann/driver trs_res_mng.c
 * trs_stream_cfg): a stream or logic CQ the process does not own is
 * DRV_ERROR_INVALID_VALUE. Other properties, and other id types, are not
 * served (DRV_ERROR_NOT_SUPPORT); one past the enum, DRV_ERROR_INVALID_VALUE.
 */
drvError_t halResourceConfig(uint32_t devId, struct halResourceIdInputInfo *in,
			     struct halResourceConfigInfo *para)
{
	drvError_t err;
	int fd;

	if (!in || !para)
		return DRV_ERROR_INVALID_VALUE;
	if (devId >= NPUSIM_MAX_DEVICES)
		return DRV_ERROR_INVALID_DEVICE;
	if ((unsigned int)in->type >= DRV_INVALID_ID ||
	    (unsigned int)para->prop >= DRV_RES_ID_CONFIG_MAX)
		return DRV_ERROR_INVALID_VALUE;
	if (in->type != DRV_STREAM_ID ||
	    (para->prop != DRV_STREAM_BIND_LOGIC_CQ && para->prop != DRV_STREAM_UNBIND_LOGIC_CQ))
		return DRV_ERROR_NOT_SUPPORT;
	fd = dev_fd(devId, &err);
	if (fd < 0)
		return err;
	return drv_err(npusim_stream_logic_cq(fd, in->resourceId,
					      para->prop == DRV_STREAM_BIND_LOGIC_CQ ?
						      NPUSIM_STREAM_BIND_LOGIC_CQ :
						      NPUSIM_STREAM_UNBIND_LOGIC_CQ,
					      para->value[0]));
}

/* ---- profiling: the STARS SoC log (50) and the AI Core frequency (132) --- */

/* The slot of a device's channel, or -1 (PROF_ERROR: not one we serve) */
static int prof_slot(unsigned int device_id, unsigned int channel_id)
{
	if (device_id >= NPUSIM_MAX_DEVICES)
		return -1;
	for (unsigned int i = 0; i < PROF_CHANS; i++)
		if (g_prof_chan[i] == channel_id)
			return (int)i;
	return -1;
}

/* Channel 132 takes the collector's config as its user data: {period,
 * version} (msprof's LpmConvProfileConfig); channel 50 none of its own. */
static int prof_start_fd(int fd, unsigned int channel_id, const struct prof_start_para *p)
{
	struct npusim_lp_config cfg;

	if (channel_id != CHANNEL_LP)
		return npusim_prof_start(fd, 0);
	if (!p->user_data || p->user_data_size != sizeof(cfg))
		return -EINVAL;
	memcpy(&cfg, p->user_data, sizeof(cfg));
	return npusim_lp_start(fd, &cfg);
}

int prof_drv_start(unsigned int device_id, unsigned int channel_id,
		   struct prof_start_para *start_para)
{
	int k = prof_slot(device_id, channel_id), fd, r;

	if (!start_para || k < 0)
		return PROF_ERROR;
	pthread_mutex_lock(&g_lock);
	if (g_prof_fd1[device_id][k]) {
		pthread_mutex_unlock(&g_lock);
		return PROF_STARTED_ALREADY;
	}
	fd = npusim_dev_open(device_id);
	r = fd < 0 ? fd : prof_start_fd(fd, channel_id, start_para);
	if (r < 0 && fd >= 0)
		npusim_dev_close(fd);
	if (r >= 0)
		g_prof_fd1[device_id][k] = fd + 1;
	pthread_mutex_unlock(&g_lock);
	/* another reader holds the channel */
	if (r == -EBUSY || r == -EALREADY)
		return PROF_STARTED_ALREADY;
	return r < 0 ? PROF_ERROR : PROF_OK;
}

int prof_channel_read(unsigned int device_id, unsigned int channel_id, char *out_buf,
		      unsigned int buf_size)
{
	int k = prof_slot(device_id, channel_id), fd, r;

	if (!out_buf || !buf_size || k < 0)
		return PROF_ERROR;
	pthread_mutex_lock(&g_lock);
	fd = g_prof_fd1[device_id][k] - 1;
	pthread_mutex_unlock(&g_lock);
	if (fd < 0)
		return PROF_ERROR;
	r = npusim_chan_read(fd, channel_id, out_buf, buf_size, NULL, NULL);
	return r < 0 ? PROF_ERROR : r;
}

int prof_stop(unsigned int device_id, unsigned int channel_id)
{
	int k = prof_slot(device_id, channel_id), fd, r;

	if (k < 0)
		return PROF_ERROR;
	pthread_mutex_lock(&g_lock);
	fd = g_prof_fd1[device_id][k] - 1;
	g_prof_fd1[device_id][k] = 0;
	pthread_mutex_unlock(&g_lock);
	if (fd < 0)
		return PROF_STOPPED_ALREADY;
	r = npusim_chan_stop(fd, channel_id);
	npusim_dev_close(fd);
	return r < 0 ? PROF_ERROR : PROF_OK;
}
