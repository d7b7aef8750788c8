/*
 * hccl.h - the HCCL subset of npuprof's runtime: a communicator over several
 * devices of this host and the collectives, with CANN's signatures.
 *
 * Each collective is called once per rank, with that rank's stream (a stream
 * of the rank's device), in the same order on every rank, as with CANN. The
 * runtime decomposes it into the tasks HCCL runs on each device:
 * Notify_Record / Notify_Wait handshakes with the peers (NOTIFY_RECORD /
 * NOTIFY_WAIT SQEs), Memcpy and Reduce_Inline transfers (SDMA SQEs sized by
 * the data) and, for ops whose input and output differ, a local Memcpy.
 * Per rank of an n-rank communicator (one exchange = 5 tasks per peer:
 * record, wait, transfer, record, wait):
 *   HcclAllReduce      1 + 10 (n-1)   (reduce-scatter then all-gather)
 *   HcclReduceScatter  1 + 5 (n-1)
 *   HcclAllGather      1 + 5 (n-1)
 *   HcclBroadcast      root 4 (n-1), others 5
 *   HcclSend 4, HcclRecv 5
 * The simulation models time, not data: buffers are not read or written.
 */
#ifndef HCCL_H_
#define HCCL_H_

#include <stdint.h>

#include "hccl_types.h"
#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One communicator per device in `devices` (rank i on devices[i]). */
HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms);
/* A communicator across processes of this host, one rank per process on its
 * current device (aclrtSetDevice first): rank 0 calls HcclGetRootInfo, every
 * rank calls HcclCommInitRootInfo with it, its own rank and nRanks; the call
 * returns once all nRanks have joined (HCCL_E_TIMEOUT after
 * HCCL_CONNECT_TIMEOUT seconds, default 120). */
HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo);
HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
				HcclComm *comm);
HcclResult HcclCommDestroy(HcclComm comm);
HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize);
HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank);
/* The communicator (group) name, as COMMUNICATION_OP.groupName shows it. */
HcclResult HcclGetCommName(HcclComm comm, char *commName);

HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
			 HcclReduceOp op, HcclComm comm, aclrtStream stream);
HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root,
			 HcclComm comm, aclrtStream stream);
HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
			 HcclComm comm, aclrtStream stream);
HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
			     HcclDataType dataType, HcclReduceOp op, HcclComm comm,
			     aclrtStream stream);
HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
		    HcclComm comm, aclrtStream stream);
HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
		    HcclComm comm, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* HCCL_H_ */
