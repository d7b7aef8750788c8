/*
 * npusim_hal.h — simulator-only extensions of libascend_hal.so (user/hal).
 * No Ascend driver has these; they exist because npusim models what a real
 * device computes by itself, or because our runtime waits on a queue where
 * CANN's waits on a report (see user/hal/README.md and docs/DESIGN.md §6).
 * Nothing the tracer reads depends on them.
 */
#ifndef NPUPROF_DRIVER_NPUSIM_HAL_H
#define NPUPROF_DRIVER_NPUSIM_HAL_H

#include <stdint.h>
#include "driver/ascend_hal.h"
#include "uapi/npusim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The device model of the SQEs the calling thread's next halSqTaskSend
 * sends: n models, one per SQE, read at that call (n must equal its
 * sqe_num) and forgotten after it. models == NULL (or no call): every task
 * gets its type's defaults. The array must stay valid until that send. */
drvError_t npusim_hal_set_task_model(const struct npusim_task_model *models, uint32_t n);

/* Wait until every task sent to the SQ has completed (timeout ms; < 0:
 * forever). */
drvError_t npusim_hal_sq_wait(uint32_t devId, uint32_t sqId, int32_t timeout);

/* The SQ's counters (tasks completed since allocation, queued, CQEs
 * pending). */
drvError_t npusim_hal_sq_status(uint32_t devId, uint32_t sqId, struct npusim_stream_status *st);

/* Record, from the host, a notify id (DRV_NOTIFY_ID) the process owns, as
 * a NOTIFY_RECORD task would when it completes: the stream waiting on it
 * goes on. The runtime's stream memory waits (aclrtValueWait) use it: the
 * simulated device cannot read the process's memory, the runtime watches
 * it and records the wait's notify once the value is there. */
drvError_t npusim_hal_notify_record(uint32_t devId, uint32_t notifyId);

/* Event id's device-wide state (records of it in flight on any stream of
 * any process, and whether it is set), on the device's open file or, for
 * a device this process has not opened (an event shared from another
 * device), a file of the library's own. A real 910B keeps an IPC event's
 * state in memory both processes map (CANN's runtime reads it there);
 * npusim keeps it in its event table. */
drvError_t npusim_hal_event_status(uint32_t devId, uint32_t eventId,
				   struct npusim_event_status *st);

#ifdef __cplusplus
}
#endif
#endif
