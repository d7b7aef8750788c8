/*
 * ascend_hal.h — the subset of the Ascend driver's user-space API
 * (libascend_hal.so) that npuprof's runtime uses, implemented over npusim by
 * user/hal/. Names, types, field order and enum values are CANN's, as
 * hicann/runtime declares them in pkg_inc/driver/ (the file is named per
 * block); only the members this subset implements are declared, enums up to
 * the last value we use (plus CANN's sentinels where a range check needs
 * one). A program written against CANN's headers for these calls compiles
 * and behaves the same against this one.
 *
 * Everything not listed here is left out; see user/hal/README.md.
 */
#ifndef NPUPROF_DRIVER_ASCEND_HAL_H
#define NPUPROF_DRIVER_ASCEND_HAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- error codes (pkg_inc/driver/ascend_hal_error.h) --------------------- */
typedef enum tagDrvError {
	DRV_ERROR_NONE = 0,
	DRV_ERROR_NO_DEVICE = 1,
	DRV_ERROR_INVALID_DEVICE = 2,
	DRV_ERROR_INVALID_VALUE = 3,
	DRV_ERROR_INVALID_HANDLE = 4,
	DRV_ERROR_OUT_OF_MEMORY = 6,
	DRV_ERROR_INNER_ERR = 7,
	DRV_ERROR_PARA_ERROR = 8,
	DRV_ERROR_UNINIT = 9,
	DRV_ERROR_REPEATED_INIT = 10,
	DRV_ERROR_NOT_EXIST = 11,
	DRV_ERROR_BUSY = 13,
	DRV_ERROR_NO_RESOURCES = 14,
	DRV_ERROR_WAIT_TIMEOUT = 16,
	DRV_ERROR_IOCRL_FAIL = 17, /* CANN's spelling */
	DRV_ERROR_NOT_SUPPORT = 0xfffe,
} drvError_t;

/* ---- device open/close, count, info (pkg_inc/driver/ascend_hal_base.h) --- */
typedef struct hal_dev_open_in {
	uint64_t reserve[8];
} halDevOpenIn;

typedef struct hal_dev_open_out {
	uint64_t reserve[8];
} halDevOpenOut;

typedef struct hal_dev_close_in {
	uint32_t close_type; /* DEV_CLOSE_TYPE */
	uint32_t reserve0;
	uint64_t reserve[7];
} halDevCloseIn;

typedef enum {
	DEV_CLOSE_HOST_DEVICE = 0,
	DEV_CLOSE_ONLY_HOST,
	DEV_CLOSE_HOST_USER,
	DEV_CLOSE_TYPE_MAX,
} DEV_CLOSE_TYPE;

#define MAX_CHIP_NAME 32
typedef struct hal_chip_info {
	unsigned char type[MAX_CHIP_NAME];
	unsigned char name[MAX_CHIP_NAME];
	unsigned char version[MAX_CHIP_NAME];
} halChipInfo;

/* halGetDeviceInfo's moduleType: the values this subset answers */
typedef enum {
	MODULE_TYPE_SYSTEM = 0,
	MODULE_TYPE_AICPU,
	MODULE_TYPE_CCPU,
	MODULE_TYPE_DCPU,
	MODULE_TYPE_AICORE,
	MODULE_TYPE_TSCPU = 5,
	MODULE_TYPE_PCIE,
	MODULE_TYPE_VECTOR_CORE,
} DEV_MODULE_TYPE;

/* halGetDeviceInfo's infoType, up to the last this subset answers */
typedef enum {
	INFO_TYPE_ENV = 0,
	INFO_TYPE_VERSION,
	INFO_TYPE_MASTERID,
	INFO_TYPE_CORE_NUM,
	INFO_TYPE_FREQUE,
	INFO_TYPE_OS_SCHED = 5,
	INFO_TYPE_IN_USED,
	INFO_TYPE_ERROR_MAP,
	INFO_TYPE_OCCUPY,
	INFO_TYPE_ID,
	INFO_TYPE_IP = 10,
	INFO_TYPE_ENDIAN,
	INFO_TYPE_P2P_CAPABILITY,
	INFO_TYPE_SYS_COUNT,
	INFO_TYPE_MONOTONIC_RAW,
	INFO_TYPE_CORE_NUM_LEVEL = 15,
	INFO_TYPE_FREQUE_LEVEL,
	INFO_TYPE_FFTS_TYPE,
	INFO_TYPE_PHY_CHIP_ID,
	INFO_TYPE_PHY_DIE_ID,
	INFO_TYPE_PF_CORE_NUM = 20,
	INFO_TYPE_PF_OCCUPY,
	INFO_TYPE_WORK_MODE,
	INFO_TYPE_UTILIZATION,
	INFO_TYPE_HOST_OSC_FREQUE,
	INFO_TYPE_DEV_OSC_FREQUE = 25,
	INFO_TYPE_SDID,
	INFO_TYPE_SERVER_ID,
	INFO_TYPE_SCALE_TYPE,
	INFO_TYPE_SUPER_POD_ID,
	INFO_TYPE_ADDR_MODE = 30,
	INFO_TYPE_RUN_MACH,
	INFO_TYPE_CURRENT_FREQ,
} DEV_INFO_TYPE;

drvError_t halDeviceOpen(uint32_t devid, halDevOpenIn *in, halDevOpenOut *out);
drvError_t halDeviceClose(uint32_t devid, halDevCloseIn *in);
drvError_t drvGetDevNum(uint32_t *num_dev);
drvError_t halGetDeviceInfo(uint32_t devId, int32_t moduleType, int32_t infoType, int64_t *value);
drvError_t halGetChipInfo(unsigned int devId, halChipInfo *chipInfo);

/* ---- SQ/CQ, tasks, reports, resource ids (pkg_inc/driver/hal_pkg/trs_pkg.h;
 *      the functions: pkg_inc/driver/ascend_hal_base.h) --------------------- */
#define SQCQ_RTS_INFO_LENGTH 5
#define SQCQ_RESV_LENGTH 8
#define SQCQ_UMAX 0xFFFFFFFF
#define SQCQ_QUERY_INFO_LENGTH 8
#define RESOURCEID_RESV_LENGTH 8

typedef enum tagDrvSqCqType {
	DRV_NORMAL_TYPE = 0,
	DRV_CALLBACK_TYPE,
	DRV_LOGIC_TYPE,
	DRV_SHM_TYPE,
	DRV_CTRL_TYPE,
	DRV_GDB_TYPE,
	DRV_INVALID_TYPE
} drvSqCqType_t;

/* halSqCqInputInfo.flag / halSqCqOutputInfo.flag, the one this subset
 * takes (pkg_inc/driver/ascend_hal_define.h) */
#define TSDRV_FLAG_THREAD_BIND_IRQ (0x1 << 2)

struct halSqCqInputInfo {
	drvSqCqType_t type;
	uint32_t tsId;
	uint32_t sqeSize; /* 64 for a STARS SQE; 0 for a logic CQ */
	uint32_t cqeSize; /* a logic CQ: bytes of each report, 1..32 */
	uint32_t sqeDepth;
	uint32_t cqeDepth; /* a logic CQ: 1..65536 */
	uint32_t grpId;
	uint32_t flag; /* TSDRV_FLAG_*: a logic CQ's THREAD_BIND_IRQ only */
	uint32_t cqId;
	uint32_t sqId;
	uint32_t info[SQCQ_RTS_INFO_LENGTH];
	uint32_t ext_info_len;
	void *ext_info;
	uint32_t res[SQCQ_RESV_LENGTH - 3];
};

/* pkg_inc/driver/ascend_hal_define.h */
struct halSqCqOutputInfo {
	uint32_t sqId;
	uint32_t cqId;
	unsigned long long queueVAddr;
	uint32_t flag;
	uint32_t res[SQCQ_RESV_LENGTH - 3];
};

struct halSqCqFreeInfo {
	drvSqCqType_t type;
	uint32_t tsId;
	uint32_t sqId;
	uint32_t cqId;
	uint32_t flag;
	uint32_t res[SQCQ_RESV_LENGTH];
};

typedef enum tagDrvSqCqPropType {
	DRV_SQCQ_PROP_SQ_STATUS = 0x0,
	DRV_SQCQ_PROP_SQ_HEAD,
	DRV_SQCQ_PROP_SQ_TAIL,
	DRV_SQCQ_PROP_SQ_DISABLE_TO_ENABLE,
	DRV_SQCQ_PROP_SQ_CQE_STATUS,
	DRV_SQCQ_PROP_SQ_REG_BASE,
	DRV_SQCQ_PROP_SQ_BASE,
	DRV_SQCQ_PROP_SQ_DEPTH,
	DRV_SQCQ_PROP_SQ_PAUSE,
	DRV_SQCQ_PROP_SQ_MEM_ATTR,
	DRV_SQCQ_PROP_SQ_RESUME,
	DRV_SQCQ_PROP_SQCQ_RESET,
	DRV_SQCQ_PROP_CQ_DEPTH,
	DRV_SQCQ_PROP_SQE_SIZE,
	DRV_SQCQ_PROP_CQE_SIZE,
	DRV_SQCQ_PROP_H2D_ASYNC_JETTY_INFO,
	DRV_SQCQ_PROP_D2D_ASYNC_JETTY_INFO,
	DRV_SQCQ_PROP_MAX
} drvSqCqPropType_t;

struct halSqCqQueryInfo {
	drvSqCqType_t type;
	uint32_t tsId;
	uint32_t sqId;
	uint32_t cqId;
	drvSqCqPropType_t prop;
	uint32_t value[SQCQ_QUERY_INFO_LENGTH];
};

struct halTaskSendInfo {
	drvSqCqType_t type;
	uint32_t tsId;
	uint32_t sqId;
	int32_t timeout; /* ms to wait for room; < 0: forever; 0: none */
	uint8_t *sqe_addr;
	uint32_t sqe_num;
	uint32_t pos; /* out: the slot of the first SQE */
	uint32_t res[SQCQ_RESV_LENGTH]; /* must be zero */
};

struct halReportRecvInfo {
	drvSqCqType_t type;
	uint32_t tsId;
	uint32_t cqId;
	int32_t timeout; /* ms to wait for a report; < 0: forever; 0: poll */
	uint8_t *cqe_addr;
	uint32_t cqe_num; /* room at cqe_addr, in reports */
	uint32_t report_cqe_num; /* out */
	uint32_t stream_id;
	uint32_t task_id;
	uint32_t res[SQCQ_RESV_LENGTH];
};

typedef enum tagDrvIdType {
	DRV_STREAM_ID = 0,
	DRV_EVENT_ID,
	DRV_MODEL_ID,
	DRV_NOTIFY_ID,
	DRV_CMO_ID,
	DRV_CNT_NOTIFY_ID,
	DRV_SQ_ID,
	DRV_CQ_ID,
	DRV_INVALID_ID,
} drvIdType_t;

struct halResourceIdInputInfo {
	drvIdType_t type;
	uint32_t tsId;
	uint32_t resourceId; /* halResourceIdFree's id */
	uint32_t res[RESOURCEID_RESV_LENGTH];
};

struct halResourceIdOutputInfo {
	uint32_t resourceId;
	uint32_t res[RESOURCEID_RESV_LENGTH];
};

/* halResourceConfig (pkg_inc/driver/ascend_hal_define.h) */
#define RESOURCE_CONFIG_INFO_LENGTH 7

typedef enum tagDrvResourceConfigType {
	DRV_STREAM_BIND_LOGIC_CQ = 0x0,
	DRV_STREAM_UNBIND_LOGIC_CQ,
	DRV_ID_RECORD,
	DRV_STREAM_ENABLE_EVENT,
	DRV_ID_RESET,
	DRV_RES_ID_CONFIG_MAX
} drvResourceConfigType_t;

struct halResourceConfigInfo {
	drvResourceConfigType_t prop;
	uint32_t value[RESOURCE_CONFIG_INFO_LENGTH]; /* BIND: value[0] the logic CQ */
};

drvError_t halSqCqAllocate(uint32_t devId, struct halSqCqInputInfo *in,
			   struct halSqCqOutputInfo *out);
drvError_t halSqCqFree(uint32_t devId, struct halSqCqFreeInfo *info);
drvError_t halSqCqQuery(uint32_t devId, struct halSqCqQueryInfo *info);
drvError_t halSqTaskSend(uint32_t devId, struct halTaskSendInfo *info);
drvError_t halCqReportRecv(uint32_t devId, struct halReportRecvInfo *info);
drvError_t halResourceIdAlloc(uint32_t devId, struct halResourceIdInputInfo *in,
			      struct halResourceIdOutputInfo *out);
drvError_t halResourceIdFree(uint32_t devId, struct halResourceIdInputInfo *in);
drvError_t halResourceConfig(uint32_t devId, struct halResourceIdInputInfo *in,
			     struct halResourceConfigInfo *para);

/* ---- shared ids (pkg_inc/driver/ascend_hal_define.h, ascend_hal_base.h) --
 * An event (notify) id another process opens by name: the id's owner
 * creates the name, others open and close it, the owner destroys it. */
enum shr_id_type {
	SHR_ID_NOTIFY_TYPE = 0,
	SHR_ID_EVENT_TYPE = 1,
	SHR_ID_TYPE_MAX
};

struct drvShrIdInfo {
	uint32_t devid; /* input: logic devid; output: phy devid */
	uint32_t tsid; /* input and output */
	uint32_t id_type; /* enum shr_id_type */
	uint32_t shrid; /* shared resource id */
	uint32_t flag; /* for remote id or shadow node */
	uint32_t rsv[2];
};

drvError_t halShrIdCreate(struct drvShrIdInfo *info, char *name, uint32_t name_len);
drvError_t halShrIdDestroy(const char *name);
drvError_t halShrIdOpen(const char *name, struct drvShrIdInfo *info);
drvError_t halShrIdClose(const char *name);

/* ---- profiling channels (pkg_inc/driver/ascend_hal_base.h) --------------- */
#define PROF_OK (0)
#define PROF_ERROR (-1)
#define PROF_TIMEOUT (-2)
#define PROF_STARTED_ALREADY (-3)
#define PROF_STOPPED_ALREADY (-4)
#define CHANNEL_NUM 160
#define CHANNEL_STARS_SOC_LOG_BUFFER (50)
#define CHANNEL_LP (132) /* the AI Core frequency's changes */

typedef enum prof_channel_type {
	PROF_TS_TYPE,
	PROF_PERIPHERAL_TYPE,
	PROF_CHANNEL_TYPE_MAX,
} PROF_CHANNEL_TYPE;

typedef struct prof_start_para {
	PROF_CHANNEL_TYPE channel_type;
	unsigned int sample_period;
	unsigned int real_time;
	void *user_data;
	unsigned int user_data_size;
} prof_start_para_t;

int prof_drv_start(unsigned int device_id, unsigned int channel_id,
		   struct prof_start_para *start_para);
int prof_stop(unsigned int device_id, unsigned int channel_id);
/* >= 0: the bytes of whole records copied to out_buf (0: none yet) */
int prof_channel_read(unsigned int device_id, unsigned int channel_id, char *out_buf,
		      unsigned int buf_size);

#ifdef __cplusplus
}
#endif
#endif
