/*
 * acl/acl_tdt.h - CANN's tensor data transfer channels (TDT): names, values
 * and signatures are CANN's (hicann/runtime include/external/acl/acl_tdt.h,
 * docs/zh/api_ref/17-01_tensor_data_transfer.md). In CANN they carry
 * datasets between the host and a model running on the device; on npusim
 * (user/runtime/rt_tdt.c):
 * - a channel with a capacity (acltdtCreateChannelWithCapacity, 2 to
 *   8192 messages) is a queue of the process: acltdtSendTensor copies the
 *   dataset's data in, acltdtReceiveTensor takes the oldest message out
 *   into items the dataset owns (freed with it); a full channel is
 *   ACL_ERROR_RT_QUEUE_FULL, an empty one ACL_ERROR_RT_QUEUE_EMPTY, after
 *   timeout ms (0: at once; -1: waits until there is room or data, or the
 *   channel is stopped);
 * - a channel without one (acltdtCreateChannel) needs a device-side
 *   program to talk to, which npusim does not run: it is NULL, the
 *   thread's last error ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
 * Link libacl_tdt_channel.so (a name of libascendcl.so in this SDK).
 */
#ifndef INC_EXTERNAL_ACL_ACL_TDT_H_
#define INC_EXTERNAL_ACL_ACL_TDT_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

enum acltdtTensorType {
	ACL_TENSOR_DATA_UNDEFINED = -1,
	ACL_TENSOR_DATA_TENSOR,
	ACL_TENSOR_DATA_END_OF_SEQUENCE,
	ACL_TENSOR_DATA_ABNORMAL,
	ACL_TENSOR_DATA_SLICE_TENSOR,
	ACL_TENSOR_DATA_END_TENSOR
};
#ifndef __cplusplus
typedef enum acltdtTensorType acltdtTensorType;
#endif

typedef struct acltdtDataItem acltdtDataItem;
typedef struct acltdtDataset acltdtDataset;
typedef struct acltdtChannelHandle acltdtChannelHandle;

/* Data items: one tensor (its dims are copied, its data is not). The
 * getters of a NULL item give UNDEFINED, ACL_DT_UNDEFINED, NULL or 0. */
ACL_FUNC_VISIBILITY acltdtTensorType acltdtGetTensorTypeFromItem(const acltdtDataItem *dataItem);
ACL_FUNC_VISIBILITY aclDataType acltdtGetDataTypeFromItem(const acltdtDataItem *dataItem);
ACL_FUNC_VISIBILITY void *acltdtGetDataAddrFromItem(const acltdtDataItem *dataItem);
ACL_FUNC_VISIBILITY size_t acltdtGetDataSizeFromItem(const acltdtDataItem *dataItem);
ACL_FUNC_VISIBILITY size_t acltdtGetDimNumFromItem(const acltdtDataItem *dataItem);
/* An item made on the host is whole: 0 slices, slice 0. */
ACL_FUNC_VISIBILITY aclError acltdtGetSliceInfoFromItem(const acltdtDataItem *dataItem,
							size_t *sliceNum, size_t *sliceId);
/* dimNum must hold the item's dims. */
ACL_FUNC_VISIBILITY aclError acltdtGetDimsFromItem(const acltdtDataItem *dataItem, int64_t *dims,
						   size_t dimNum);
ACL_FUNC_VISIBILITY acltdtDataItem *acltdtCreateDataItem(acltdtTensorType tdtType,
							 const int64_t *dims, size_t dimNum,
							 aclDataType dataType, void *data,
							 size_t size);
ACL_FUNC_VISIBILITY aclError acltdtDestroyDataItem(acltdtDataItem *dataItem);

/* Datasets: an ordered list of items; destroying one frees the items it
 * received from a channel, not those added to it. */
ACL_FUNC_VISIBILITY acltdtDataset *acltdtCreateDataset(void);
ACL_FUNC_VISIBILITY aclError acltdtDestroyDataset(acltdtDataset *dataset);
ACL_FUNC_VISIBILITY acltdtDataItem *acltdtGetDataItem(const acltdtDataset *dataset, size_t index);
ACL_FUNC_VISIBILITY aclError acltdtAddDataItem(acltdtDataset *dataset, acltdtDataItem *dataItem);
ACL_FUNC_VISIBILITY size_t acltdtGetDatasetSize(const acltdtDataset *dataset);
/* "" for a dataset made on the host; a received one: the channel's name */
ACL_FUNC_VISIBILITY const char *acltdtGetDatasetName(const acltdtDataset *dataset);

/* Channels */
ACL_FUNC_VISIBILITY aclError acltdtStopChannel(acltdtChannelHandle *handle);
ACL_FUNC_VISIBILITY acltdtChannelHandle *acltdtCreateChannel(uint32_t deviceId, const char *name);
ACL_FUNC_VISIBILITY acltdtChannelHandle *acltdtCreateChannelWithCapacity(uint32_t deviceId,
									 const char *name,
									 size_t capacity);
ACL_FUNC_VISIBILITY aclError acltdtDestroyChannel(acltdtChannelHandle *handle);
ACL_FUNC_VISIBILITY aclError acltdtCleanChannel(acltdtChannelHandle *handle);
ACL_FUNC_VISIBILITY aclError acltdtSendTensor(const acltdtChannelHandle *handle,
					      const acltdtDataset *dataset, int32_t timeout);
ACL_FUNC_VISIBILITY aclError acltdtReceiveTensor(const acltdtChannelHandle *handle,
						 acltdtDataset *dataset, int32_t timeout);
ACL_FUNC_VISIBILITY aclError acltdtQueryChannelSize(const acltdtChannelHandle *handle,
						    size_t *size);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_TDT_H_ */
