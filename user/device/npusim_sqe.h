/*
 * npusim_sqe.h — building STARS SQEs (npusim_sqe.c); no device access.
 */
#ifndef NPUPROF_NPUSIM_SQE_H
#define NPUPROF_NPUSIM_SQE_H

#include <stdint.h>
#include "uapi/npusim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Zero an SQE and fill its STARS header. */
void npusim_sqe_init(struct npusim_sqe *sqe, unsigned int type, uint16_t stream_id,
		     uint16_t task_id);
/* The payload field of an event / notify SQE that names its id. */
void npusim_sqe_set_sync_id(struct npusim_sqe *sqe, uint32_t id);
/* An SDMA SQE's copy: length at byte 28, source and destination. */
void npusim_sqe_set_sdma(struct npusim_sqe *sqe, uint32_t length, uint64_t src, uint64_t dst);

#ifdef __cplusplus
}
#endif
#endif
