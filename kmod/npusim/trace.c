// SPDX-License-Identifier: GPL-2.0
/* Instantiates npusim's tracepoints (trs_chan:* and npusim:task_time). */
#define CREATE_TRACE_POINTS
#include "trs_chan_trace.h"
#include "npusim_trace.h"
