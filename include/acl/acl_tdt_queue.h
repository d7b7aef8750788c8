/*
 * acl/acl_tdt_queue.h - CANN's shared queues and their routes: names,
 * values and signatures are CANN's (hicann/runtime
 * include/external/acl/acl_tdt_queue.h, docs/zh/api_ref/
 * 17-02_shared_queue_management.md). In CANN the queues live on the device
 * and a scheduler there moves messages along bound routes; on npusim
 * (user/runtime/rt_tdtq.c) they are queues of the process:
 * - a queue has a name (below 128 bytes with its NUL; "" by default) and a
 *   depth (2 to 8192 messages; 8 by default); acltdtEnqueueData copies a
 *   message in (ACL_ERROR_RT_QUEUE_FULL when the queue holds depth of
 *   them), acltdtDequeueData takes the oldest out (ACL_ERROR_RT_QUEUE_EMPTY);
 *   timeout is 0 (at once), ms, or -1 (waits);
 * - a bound route src -> dst moves every message enqueued to src on to dst
 *   (as the device's scheduler would), status 1; unbound, status 0;
 *   routes are queried by source, destination or both;
 * - the buffer API (acltdtAllocBuf, acltdtEnqueue ...) and sharing queues
 *   between processes (acltdtGrantQueue, acltdtAttachQueue) are not here.
 * Link libacl_tdt_queue.so (a name of libascendcl.so in this SDK).
 */
#ifndef INC_EXTERNAL_ACL_ACL_TDT_QUEUE_H_
#define INC_EXTERNAL_ACL_ACL_TDT_QUEUE_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_TDT_QUEUE_PERMISSION_MANAGE 1
#define ACL_TDT_QUEUE_PERMISSION_DEQUEUE 2
#define ACL_TDT_QUEUE_PERMISSION_ENQUEUE 4

#define ACL_TDT_QUEUE_ROUTE_UNBIND 0
#define ACL_TDT_QUEUE_ROUTE_BIND 1
#define ACL_TDT_QUEUE_ROUTE_BIND_ABNORMAL 2

typedef struct tagMemQueueAttr acltdtQueueAttr;
typedef struct acltdtQueueRouteList acltdtQueueRouteList;
typedef struct acltdtQueueRouteQueryInfo acltdtQueueRouteQueryInfo;
typedef struct acltdtQueueRoute acltdtQueueRoute;

typedef enum {
	ACL_TDT_QUEUE_NAME_PTR = 0,
	ACL_TDT_QUEUE_DEPTH_UINT32
} acltdtQueueAttrType;

typedef enum {
	ACL_TDT_QUEUE_ROUTE_SRC_UINT32 = 0,
	ACL_TDT_QUEUE_ROUTE_DST_UINT32,
	ACL_TDT_QUEUE_ROUTE_STATUS_INT32
} acltdtQueueRouteParamType;

typedef enum {
	ACL_TDT_QUEUE_ROUTE_QUERY_SRC = 0,
	ACL_TDT_QUEUE_ROUTE_QUERY_DST = 1,
	ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST = 2,
	ACL_TDT_QUEUE_ROUTE_QUERY_ABNORMAL = 100
} acltdtQueueRouteQueryMode;

typedef enum {
	ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM = 0,
	ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32,
	ACL_TDT_QUEUE_ROUTE_QUERY_DST_ID_UINT32
} acltdtQueueRouteQueryInfoParamType;

/* Queues (of the current device: aclrtSetDevice first) */
ACL_FUNC_VISIBILITY aclError acltdtCreateQueue(const acltdtQueueAttr *attr, uint32_t *qid);
ACL_FUNC_VISIBILITY aclError acltdtDestroyQueue(uint32_t qid);
/* a message: dataSize bytes of data and userDataSize of userData (up to
 * 64, CANN's user data area); dequeued, each part to its buffer (too small:
 * ACL_ERROR_INVALID_PARAM, the message stays), *retDataSize its size */
ACL_FUNC_VISIBILITY aclError acltdtEnqueueData(uint32_t qid, const void *data, size_t dataSize,
					       const void *userData, size_t userDataSize,
					       int32_t timeout, uint32_t rsv);
ACL_FUNC_VISIBILITY aclError acltdtDequeueData(uint32_t qid, void *data, size_t dataSize,
					       size_t *retDataSize, void *userData,
					       size_t userDataSize, int32_t timeout);

/* Routes */
ACL_FUNC_VISIBILITY aclError acltdtBindQueueRoutes(acltdtQueueRouteList *qRouteList);
ACL_FUNC_VISIBILITY aclError acltdtUnbindQueueRoutes(acltdtQueueRouteList *qRouteList);
ACL_FUNC_VISIBILITY aclError acltdtQueryQueueRoutes(const acltdtQueueRouteQueryInfo *queryInfo,
						    acltdtQueueRouteList *qRouteList);

/* Queue attributes: NAME_PTR is a char * (len sizeof(char *)), DEPTH a
 * uint32_t */
ACL_FUNC_VISIBILITY acltdtQueueAttr *acltdtCreateQueueAttr(void);
ACL_FUNC_VISIBILITY aclError acltdtDestroyQueueAttr(const acltdtQueueAttr *attr);
ACL_FUNC_VISIBILITY aclError acltdtSetQueueAttr(acltdtQueueAttr *attr, acltdtQueueAttrType type,
						size_t len, const void *param);
ACL_FUNC_VISIBILITY aclError acltdtGetQueueAttr(const acltdtQueueAttr *attr,
						acltdtQueueAttrType type, size_t len,
						size_t *paramRetSize, void *param);

ACL_FUNC_VISIBILITY acltdtQueueRoute *acltdtCreateQueueRoute(uint32_t srcId, uint32_t dstId);
ACL_FUNC_VISIBILITY aclError acltdtDestroyQueueRoute(const acltdtQueueRoute *route);
ACL_FUNC_VISIBILITY aclError acltdtGetQueueRouteParam(const acltdtQueueRoute *route,
						      acltdtQueueRouteParamType type, size_t len,
						      size_t *paramRetSize, void *param);

ACL_FUNC_VISIBILITY acltdtQueueRouteList *acltdtCreateQueueRouteList(void);
ACL_FUNC_VISIBILITY aclError acltdtDestroyQueueRouteList(const acltdtQueueRouteList *routeList);
ACL_FUNC_VISIBILITY aclError acltdtAddQueueRoute(acltdtQueueRouteList *routeList,
						 const acltdtQueueRoute *route);
ACL_FUNC_VISIBILITY aclError acltdtGetQueueRoute(const acltdtQueueRouteList *routeList,
						 size_t index, acltdtQueueRoute *route);
ACL_FUNC_VISIBILITY size_t acltdtGetQueueRouteNum(const acltdtQueueRouteList *routeList);

ACL_FUNC_VISIBILITY acltdtQueueRouteQueryInfo *acltdtCreateQueueRouteQueryInfo(void);
ACL_FUNC_VISIBILITY aclError acltdtDestroyQueueRouteQueryInfo(const acltdtQueueRouteQueryInfo *info);
ACL_FUNC_VISIBILITY aclError acltdtSetQueueRouteQueryInfo(acltdtQueueRouteQueryInfo *param,
							  acltdtQueueRouteQueryInfoParamType type,
							  size_t len, const void *value);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_TDT_QUEUE_H_ */
