/*
 * hccl_types.h - HCCL's public types, as CANN's hccl/hccl_types.h names and
 * numbers them (HcclDataType equals ENUM_HCCL_DATA_TYPE). npuprof's own text.
 */
#ifndef HCCL_TYPES_H_
#define HCCL_TYPES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
	HCCL_SUCCESS = 0,
	HCCL_E_PARA = 1,
	HCCL_E_PTR = 2,
	HCCL_E_MEMORY = 3,
	HCCL_E_INTERNAL = 4,
	HCCL_E_NOT_SUPPORT = 5,
	HCCL_E_NOT_FOUND = 6,
	HCCL_E_UNAVAIL = 7,
	HCCL_E_SYSCALL = 8,
	HCCL_E_TIMEOUT = 9,
	HCCL_E_OPEN_FILE_FAILURE = 10,
	HCCL_E_TCP_CONNECT = 11,
	HCCL_E_ROCE_CONNECT = 12,
	HCCL_E_TCP_TRANSFER = 13,
	HCCL_E_ROCE_TRANSFER = 14,
	HCCL_E_RUNTIME = 15,
	HCCL_E_DRV = 16,
	HCCL_E_PROFILING = 17,
	HCCL_E_CCE = 18,
	HCCL_E_NETWORK = 19,
	HCCL_E_AGAIN = 20,
	HCCL_E_RESERVED
} HcclResult;

typedef void *HcclComm;

/* What rank 0 gets from HcclGetRootInfo and hands every rank (through the
 * launcher's own channel: torch.distributed, MPI_Bcast ...) for
 * HcclCommInitRootInfo. Opaque. */
#define HCCL_ROOT_INFO_BYTES 4108
typedef struct HcclRootInfoDef {
	char internal[HCCL_ROOT_INFO_BYTES];
} HcclRootInfo;

typedef enum {
	HCCL_REDUCE_SUM = 0,
	HCCL_REDUCE_PROD = 1,
	HCCL_REDUCE_MAX = 2,
	HCCL_REDUCE_MIN = 3,
	HCCL_REDUCE_RESERVED
} HcclReduceOp;

typedef enum {
	HCCL_DATA_TYPE_INT8 = 0,
	HCCL_DATA_TYPE_INT16 = 1,
	HCCL_DATA_TYPE_INT32 = 2,
	HCCL_DATA_TYPE_FP16 = 3,
	HCCL_DATA_TYPE_FP32 = 4,
	HCCL_DATA_TYPE_INT64 = 5,
	HCCL_DATA_TYPE_UINT64 = 6,
	HCCL_DATA_TYPE_UINT8 = 7,
	HCCL_DATA_TYPE_UINT16 = 8,
	HCCL_DATA_TYPE_UINT32 = 9,
	HCCL_DATA_TYPE_FP64 = 10,
	HCCL_DATA_TYPE_BFP16 = 11,
	HCCL_DATA_TYPE_INT128 = 12,
	HCCL_DATA_TYPE_RESERVED
} HcclDataType;

#ifdef __cplusplus
}
#endif

#endif /* HCCL_TYPES_H_ */
