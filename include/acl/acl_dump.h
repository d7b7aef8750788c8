/*
 * acl/acl_dump.h - CANN's dump configuration: names, values and signatures
 * are CANN's (hicann/runtime include/external/acl/acl_dump.h). In CANN they
 * make the device write operator arguments, tensors and exception data to
 * files or to a callback. npusim's kernels are modelled and compute
 * nothing, so there is nothing of theirs to dump: on npusim
 * (user/runtime/rt_dump.c) acldumpGetPath gives NULL (no dump configured)
 * and every call that would turn a dump on or write one returns
 * ACL_ERROR_RT_FEATURE_NOT_SUPPORT (as do aclmdlInitDump, aclmdlSetDump
 * and aclmdlFinalizeDump of acl_rt.h), never a dump that is silently
 * empty.
 */
#ifndef INC_EXTERNAL_ACL_DUMP_H_
#define INC_EXTERNAL_ACL_DUMP_H_

#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_DUMP_MAX_FILE_PATH_LENGTH 4096
typedef struct acldumpChunk {
	char fileName[ACL_DUMP_MAX_FILE_PATH_LENGTH]; /* the dump file, absolute */
	uint32_t bufLen; /* bytes of dataBuf */
	uint32_t isLastChunk; /* 1: the file's last chunk */
	int64_t offset; /* where in the file; -1: appended */
	int32_t flag; /* reserved */
	uint8_t dataBuf[0];
} acldumpChunk;

ACL_FUNC_VISIBILITY aclError
acldumpRegCallback(int32_t (*const messageCallback)(const acldumpChunk *, int32_t), int32_t flag);
ACL_FUNC_VISIBILITY void acldumpUnregCallback(void);

#define ACL_OP_DUMP_OP_AICORE_ARGS 0x00000001U

ACL_FUNC_VISIBILITY aclError aclopStartDumpArgs(uint32_t dumpType, const char *path);
ACL_FUNC_VISIBILITY aclError aclopStopDumpArgs(uint32_t dumpType);

typedef enum acldumpType {
	AIC_ERR_BRIEF_DUMP = 1,
	AIC_ERR_NORM_DUMP = 2,
	AIC_ERR_DETAIL_DUMP = 3,
	DATA_DUMP = 4,
	OVERFLOW_DUMP = 5
} acldumpType;

ACL_FUNC_VISIBILITY const char *acldumpGetPath(acldumpType dumpType);

#define ACL_DUMP_MAX_SHAPE_NUM 25

typedef enum acldumpTensorType {
	ACL_DUMP_TENSOR_INPUT = 0,
	ACL_DUMP_TENSOR_OUTPUT,
	ACL_DUMP_TENSOR_WORKSPACE
} acldumpTensorType;

typedef enum acldumpTensorAddressType {
	ACL_DUMP_ADDR_PTR = 0,
	ACL_DUMP_ADDR_PTR_PTR,
	ACL_DUMP_ADDR_RAW
} acldumpTensorAddressType;

typedef enum acldumpTensorPlacement {
	ACL_DUMP_PLACEMENT_DEVICE = 0,
	ACL_DUMP_PLACEMENT_HOST,
	ACL_DUMP_PLACEMENT_END
} acldumpTensorPlacement;

typedef struct acldumpTensorInfo {
	acldumpTensorType type;
	size_t tensorSize;
	int32_t format;
	int32_t dataType;
	int64_t *tensorAddr;
	acldumpTensorAddressType addrType;
	acldumpTensorPlacement placement;
	uint32_t argsOffset;
	uint32_t shapeNum;
	uint32_t originShapeNum;
	uint64_t shape[ACL_DUMP_MAX_SHAPE_NUM];
	uint64_t originShape[ACL_DUMP_MAX_SHAPE_NUM];
} acldumpTensorInfo;

ACL_FUNC_VISIBILITY aclError acldumpSaveExceptionInfo(const char *fileName, const char *userTag,
						      const acldumpTensorInfo *tensors,
						      size_t tensorCount);
ACL_FUNC_VISIBILITY aclError acldumpGetExceptionInfoPath(char *path, size_t maxLen);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_DUMP_H_ */
