/*
 * npusim_sqe.c — building STARS SQEs (struct npusim_sqe, include/uapi/
 * npusim.h): the header and the payload fields by type. No device access:
 * the runtime builds its SQEs with these and sends them through the HAL;
 * the npusim client, npuwork and the tests use them too.
 */
#include <string.h>
#include "npusim_sqe.h"

void npusim_sqe_init(struct npusim_sqe *sqe, unsigned int type, uint16_t stream_id,
		     uint16_t task_id)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->type = (uint8_t)(type & NPUSIM_SQE_TYPE_MASK);
	/* a kernel's blocks; a place holder's task type (0: plain) */
	sqe->block_dim = type <= NPUSIM_SQE_AIV ? 1 : 0;
	sqe->stream_id = stream_id;
	sqe->task_id = task_id;
}

void npusim_sqe_set_sync_id(struct npusim_sqe *sqe, uint32_t id)
{
	switch (sqe->type & NPUSIM_SQE_TYPE_MASK) {
	case NPUSIM_SQE_EVENT_RECORD:
	case NPUSIM_SQE_EVENT_WAIT: sqe->u.event.event_id = (uint16_t)id; break;
	default: sqe->u.notify.notify_id = id & NPUSIM_NOTIFY_ID_MASK; break;
	}
}

void npusim_sqe_set_sdma(struct npusim_sqe *sqe, uint32_t length, uint64_t src, uint64_t dst)
{
	sqe->u.sdma.length = length;
	sqe->u.sdma.src_lo = (uint32_t)src;
	sqe->u.sdma.src_hi = (uint32_t)(src >> 32);
	sqe->u.sdma.dst_lo = (uint32_t)dst;
	sqe->u.sdma.dst_hi = (uint32_t)(dst >> 32);
}
