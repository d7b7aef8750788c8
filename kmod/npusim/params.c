// SPDX-License-Identifier: GPL-2.0
/*
 * npusim's module parameters: the shape of the simulated devices (how many,
 * their cores, queue depths, stream count, CQE mode, counter and copy
 * speeds), read by every part of the driver and checked once at load.
 */
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include "npusim.h"

unsigned int npusim_ndev = 2;
module_param_named(devices, npusim_ndev, uint, 0444);
MODULE_PARM_DESC(devices, "number of simulated devices (1-8, default 2)");

unsigned int npusim_aicores = 24;
module_param_named(aicores, npusim_aicores, uint, 0444);
MODULE_PARM_DESC(
	aicores,
	"AI (cube) cores per device; vector cores are twice this (default 24)");

unsigned int npusim_aicpus = 6;
module_param_named(aicpus, npusim_aicpus, uint, 0444);
MODULE_PARM_DESC(aicpus, "AI CPU cores per device (default 6)");

unsigned int npusim_sq_depth = 1024;
module_param_named(sq_depth, npusim_sq_depth, uint, 0444);
MODULE_PARM_DESC(
	sq_depth,
	"SQ and CQ depth per stream, a power of two 16-65536 (default 1024)");

unsigned int npusim_max_streams = 1024;
module_param_named(max_streams, npusim_max_streams, uint, 0444);
MODULE_PARM_DESC(max_streams, "streams per device (1-2048, default 1024)");

unsigned int npusim_cqe_mode = 1;
module_param_named(cqe_mode, npusim_cqe_mode, uint, 0444);
MODULE_PARM_DESC(
	cqe_mode,
	"1 (default): a 910B's, only tasks with wr_cqe and event-record/place-holder tasks complete with a CQE; 0: every task does");

unsigned int npusim_counter_mhz = 50;
module_param_named(counter_mhz, npusim_counter_mhz, uint, 0444);
MODULE_PARM_DESC(counter_mhz,
		 "device system counter frequency in MHz (default 50)");

/* The AI Core clock: a 910B's rated 1800 MHz (halGetDeviceInfo's
 * INFO_TYPE_FREQUE). Each device starts at it; its current frequency
 * (INFO_TYPE_CURRENT_FREQ) is the administrator's setting (lp.c). */
unsigned int npusim_aicore_mhz = 1800;
module_param_named(aicore_mhz, npusim_aicore_mhz, uint, 0444);
MODULE_PARM_DESC(
	aicore_mhz,
	"AI Core frequency in MHz (default 1800, a 910B's rated; 1..10000)");

unsigned int npusim_sdma_mbps = 20000;
module_param_named(sdma_mbps, npusim_sdma_mbps, uint, 0444);
MODULE_PARM_DESC(sdma_mbps, "SDMA bandwidth in MB/s (default 20000)");

bool npusim_trace_default;
module_param_named(trace_enable, npusim_trace_default, bool, 0444);
MODULE_PARM_DESC(
	trace_enable,
	"initial value of every device's trace_enable switch (default off, as the real driver)");

bool npusim_cq_hold;
module_param_named(cq_hold, npusim_cq_hold, bool, 0444);
MODULE_PARM_DESC(
	cq_hold,
	"a full CQ holds its stream's next completion back until the host receives, as the hardware does (default off: the CQE is lost and counted in cq_overflow, so programs that never receive keep running)");

static unsigned int npusim_send_mode[NPUSIM_MAX_DEVICES];
static int npusim_send_mode_n;
module_param_array_named(sq_send_mode, npusim_send_mode, uint,
			 &npusim_send_mode_n, 0444);
MODULE_PARM_DESC(
	sq_send_mode,
	"SQ send mode of each device, one value for all or one per device: 0 KIO (ioctl; the real driver's fallback), 1 UIO_T (mapped soft queue and trigger, forwarded by a kernel worker: the 910B's, the default), 2 UIO_D (mapped queue and doorbell, no trs_chan:sqe: STARS v2)");

/* The send mode of device @devid's new streams: as a 910B's normal SQs
 * (UIO_T) unless the parameter says otherwise. */
u32 npusim_param_send_mode(unsigned int devid)
{
	if (npusim_send_mode_n == 1)
		return npusim_send_mode[0];
	return devid < npusim_send_mode_n ? npusim_send_mode[devid] :
					    NPUSIM_SEND_UIO_T;
}

/* Are the parameters the driver was loaded with usable? */
int npusim_params_valid(void)
{
	int i;

	for (i = 0; i < npusim_send_mode_n; i++)
		if (npusim_send_mode[i] > NPUSIM_SEND_UIO_D)
			return -EINVAL;
	if (!npusim_ndev || npusim_ndev > NPUSIM_MAX_DEVICES)
		return -EINVAL;
	if (!npusim_aicores || npusim_aicores > 1024 || !npusim_aicpus ||
	    npusim_aicpus > 1024)
		return -EINVAL;
	if (npusim_sq_depth < 16 || npusim_sq_depth > 65536 ||
	    !is_power_of_2(npusim_sq_depth))
		return -EINVAL;
	if (!npusim_max_streams || npusim_max_streams > 2048)
		return -EINVAL;
	if (npusim_cqe_mode > 1 || !npusim_counter_mhz ||
	    npusim_counter_mhz > 4000 || !npusim_sdma_mbps)
		return -EINVAL;
	if (!npusim_aicore_mhz || npusim_aicore_mhz > 10000)
		return -EINVAL;
	return 0;
}
