/*
 * rt_core.c - aclInit/aclFinalize and devices, each announced to the
 * reporting layer (rtprof_acl_init, rtprof_set_device).
 *
 * A device is opened (/dev/npusim<N>) on the first aclrtSetDevice and gets a
 * default stream (rt_stream.c); aclrtResetDevice counts references like CANN's, and the
 * last reset (or aclrtResetDeviceForce) drains and destroys the device's
 * streams. Unlike CANN, aclInit may be called again after aclFinalize (tests
 * run several lives in one process).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rt_prof.h"

/* this thread holds a reference on device d if t_ref[d] == gen + 1 */
static __thread uint32_t t_ref[NPUSIM_MAX_DEVICES];
aclError aclsysGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion)
{
	if (!majorVersion || !minorVersion || !patchVersion)
		return ACL_ERROR_INVALID_PARAM;
	*majorVersion = ACL_MAJOR_VERSION;
	*minorVersion = ACL_MINOR_VERSION;
	*patchVersion = ACL_PATCH_VERSION;
	return ACL_SUCCESS;
}

/* The driver's device count; 0 without a driver. */
static uint32_t dev_count(void)
{
	uint32_t n;

	return drvGetDevNum(&n) == DRV_ERROR_NONE ? n : 0;
}

/* acl_base.h: the element size of a data type (libnnopbase and the
 * device mirror use it too). */
size_t aclDataTypeSize(aclDataType dt)
{
	switch (dt) {
	case ACL_BOOL:
	case ACL_INT8:
	case ACL_UINT8: return 1;
	case ACL_FLOAT16:
	case ACL_BF16:
	case ACL_INT16:
	case ACL_UINT16: return 2;
	case ACL_FLOAT:
	case ACL_INT32:
	case ACL_UINT32: return 4;
	case ACL_DOUBLE:
	case ACL_INT64:
	case ACL_UINT64:
	case ACL_COMPLEX64: return 8;
	case ACL_COMPLEX128: return 16;
	default: return 0;
	}
}

aclError aclInit(const char *configPath)
{
	struct rt_api a;
	aclError ret = ACL_SUCCESS;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclInit", NULL);
	if (configPath && configPath[0] && access(configPath, R_OK) != 0) {
		rt_set_errmsg("aclInit: cannot read config %s: %s", configPath, strerror(errno));
		return rt_api_end(&a, ACL_ERROR_INVALID_FILE);
	}
	pthread_mutex_lock(&rt_g.lock);
	if (rt_g.initialized) {
		ret = ACL_ERROR_REPEAT_INITIALIZE;
	} else {
		uint32_t n = dev_count();

		rt_g.ndev = n > NPUSIM_MAX_DEVICES ? NPUSIM_MAX_DEVICES : (int)n;
		for (int i = 0; i < NPUSIM_MAX_DEVICES; i++) {
			rt_g.dev[i].fd = -1;
			rt_g.dev[i].refs = 0;
			rt_g.dev[i].streams = NULL;
			rt_g.dev[i].dflt = NULL;
		}
		rt_g.initialized = 1;
		rtprof_acl_init();
	}
	pthread_mutex_unlock(&rt_g.lock);
	return rt_api_end(&a, ret);
}

/* Drains and destroys every stream of `dev` and closes it. rt_g.lock held.
 * Returns 1 if the device was open (the caller announces its release once
 * the lock is dropped). */
static int device_release_locked(int dev)
{
	struct rt_device *d = &rt_g.dev[dev];
	int was_open = d->fd >= 0;

	while (d->streams)
		rt_stream_destroy_locked(d->streams);
	d->dflt = NULL;
	d->refs = 0;
	d->gen++;
	if (d->fd >= 0) {
		halDevCloseIn in = { .close_type = DEV_CLOSE_HOST_DEVICE };

		halDeviceClose((uint32_t)dev, &in);
	}
	d->fd = -1;
	return was_open;
}

aclError aclFinalize(void)
{
	static int finalized_once;
	struct rt_api a;
	aclError ret = ACL_SUCCESS;
	int closed[NPUSIM_MAX_DEVICES] = { 0 };

	rt_api_begin(&a, NPUPROF_API_ACL, "aclFinalize", NULL);
	pthread_mutex_lock(&rt_g.lock);
	if (!rt_g.initialized) {
		ret = finalized_once ? ACL_ERROR_REPEAT_FINALIZE : ACL_ERROR_UNINITIALIZE;
	} else {
		rtprof_acl_finalize();
		for (int i = 0; i < NPUSIM_MAX_DEVICES; i++)
			closed[i] = device_release_locked(i);
		rt_g.initialized = 0;
		finalized_once = 1;
	}
	pthread_mutex_unlock(&rt_g.lock);
	for (int i = 0; i < NPUSIM_MAX_DEVICES; i++)
		if (closed[i])
			rtprof_set_device(i, 0);
	rt_cur_dev = -1;
	return rt_api_end(&a, ret);
}

/* Opens device dev with its default stream unless it is open. rt_g.lock
 * held; *opened is set when it was opened now (the caller announces it
 * once the lock is dropped: device_announce). A device another thread
 * opened and is still announcing is waited for: a thread's first launch
 * after its aclrtSetDevice is then recorded whole, never half before and
 * half after the profiler switched the device on. */
static aclError device_open_locked(const char *api, int dev, int *opened)
{
	struct rt_device *d = &rt_g.dev[dev];
	halDevOpenIn in = { { 0 } };
	halDevOpenOut out;
	halDevCloseIn cin = { .close_type = DEV_CLOSE_HOST_DEVICE };
	aclError ret;
	drvError_t r;

	*opened = 0;
	while (d->fd >= 0 && d->announcing && !pthread_equal(d->announcer, pthread_self()))
		pthread_cond_wait(&rt_g.announced, &rt_g.lock);
	if (!rt_g.initialized)
		return ACL_ERROR_UNINITIALIZE; /* finalized while it waited */
	if (d->fd >= 0)
		return ACL_SUCCESS;
	r = halDeviceOpen((uint32_t)dev, &in, &out);
	if (r != DRV_ERROR_NONE) {
		rt_set_errmsg("%s: open device %d: driver error %d", api, dev, (int)r);
		return ACL_ERROR_RT_DEV_SETUP_ERROR;
	}
	d->fd = dev;
	ret = rt_stream_create_locked(dev, 1, &d->dflt);
	if (ret) {
		halDeviceClose((uint32_t)dev, &cin);
		d->fd = -1;
		return ret;
	}
	*opened = 1;
	d->announcing = 1;
	d->announcer = pthread_self();
	return ACL_SUCCESS;
}

/* Announce device dev, opened by this thread, to the profiler (without
 * rt_g.lock: the profiler calls the components back), then let the threads
 * waiting to set it go on. */
static void device_announce(int dev)
{
	struct rt_device *d = &rt_g.dev[dev];

	rtprof_set_device(dev, 1);
	pthread_mutex_lock(&rt_g.lock);
	if (d->announcing && pthread_equal(d->announcer, pthread_self())) {
		d->announcing = 0;
		pthread_cond_broadcast(&rt_g.announced);
	}
	pthread_mutex_unlock(&rt_g.lock);
}

static aclError check_dev_locked(const char *api, int32_t deviceId)
{
	if (!rt_g.initialized)
		return ACL_ERROR_UNINITIALIZE;
	if (deviceId < 0 || deviceId >= rt_g.ndev) {
		rt_set_errmsg("%s: device %d out of range (%d devices)", api, deviceId, rt_g.ndev);
		return ACL_ERROR_RT_INVALID_DEVICEID;
	}
	return ACL_SUCCESS;
}

aclError aclrtSetDevice(int32_t deviceId)
{
	struct rt_api a;
	aclError ret;
	int opened = 0;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtSetDevice", NULL);
	pthread_mutex_lock(&rt_g.lock);
	ret = check_dev_locked("aclrtSetDevice", deviceId);
	if (!ret)
		ret = device_open_locked("aclrtSetDevice", deviceId, &opened);
	if (!ret) {
		struct rt_device *d = &rt_g.dev[deviceId];

		/* CANN counts one reference per thread and device; a thread
		 * setting the same device again does not add one. */
		if (t_ref[deviceId] != d->gen + 1) {
			t_ref[deviceId] = d->gen + 1;
			d->refs++;
		}
		rt_cur_dev = deviceId;
		rt_cur_ctx = NULL; /* the device's implicit context */
	}
	pthread_mutex_unlock(&rt_g.lock);
	if (opened)
		device_announce(deviceId);
	return rt_api_end(&a, ret);
}

aclError rt_dev_ref(int dev, uint32_t *gen)
{
	aclError ret;
	int opened = 0;

	pthread_mutex_lock(&rt_g.lock);
	ret = check_dev_locked("aclrtCreateContext", dev);
	if (!ret)
		ret = device_open_locked("aclrtCreateContext", dev, &opened);
	if (!ret) {
		rt_g.dev[dev].refs++;
		*gen = rt_g.dev[dev].gen;
	}
	pthread_mutex_unlock(&rt_g.lock);
	if (opened)
		device_announce(dev);
	return ret;
}

void rt_dev_unref(int dev, uint32_t gen)
{
	int closed = 0;

	pthread_mutex_lock(&rt_g.lock);
	if (rt_g.initialized && rt_g.dev[dev].gen == gen && rt_g.dev[dev].fd >= 0 &&
	    --rt_g.dev[dev].refs <= 0)
		closed = device_release_locked(dev);
	pthread_mutex_unlock(&rt_g.lock);
	if (closed)
		rtprof_set_device(dev, 0);
}

static aclError reset_device(const char *name, int32_t deviceId, int force)
{
	struct rt_api a;
	aclError ret = ACL_SUCCESS;
	int closed = 0;

	rt_api_begin(&a, NPUPROF_API_ACL, name, NULL);
	pthread_mutex_lock(&rt_g.lock);
	if (!rt_g.initialized) {
		ret = ACL_ERROR_UNINITIALIZE;
	} else if (deviceId < 0 || deviceId >= rt_g.ndev) {
		ret = ACL_ERROR_RT_INVALID_DEVICEID;
	} else {
		struct rt_device *d = &rt_g.dev[deviceId];

		int held = t_ref[deviceId] == d->gen + 1;

		if (held) {
			t_ref[deviceId] = 0;
			d->refs--;
		}
		if (d->fd >= 0 && (force || (held && d->refs <= 0)))
			closed = device_release_locked(deviceId);
		if (rt_cur_dev == deviceId)
			rt_cur_dev = -1;
	}
	pthread_mutex_unlock(&rt_g.lock);
	if (closed)
		rtprof_set_device(deviceId, 0);
	return rt_api_end(&a, ret);
}

aclError aclrtResetDevice(int32_t deviceId)
{
	return reset_device("aclrtResetDevice", deviceId, 0);
}

aclError aclrtResetDeviceForce(int32_t deviceId)
{
	return reset_device("aclrtResetDeviceForce", deviceId, 1);
}

aclError aclrtGetDevice(int32_t *deviceId)
{
	int dev;
	aclError ret;

	if (!deviceId)
		return ACL_ERROR_INVALID_PARAM;
	ret = rt_current_dev(&dev);
	if (!ret)
		*deviceId = dev;
	return rt_fail(ret);
}

aclError aclrtGetDeviceCount(uint32_t *count)
{
	if (!count)
		return ACL_ERROR_INVALID_PARAM;
	if (!rt_g.initialized)
		return ACL_ERROR_UNINITIALIZE;
	*count = (uint32_t)rt_g.ndev;
	return ACL_SUCCESS;
}

/*
 * A 910B's SoC version is a product of the family (Ascend910B1..B4); npusim
 * models the one that CANN's own 910B HAL stub reports
 * (PLATFORMCONFIG_CLOUD_V2_910B1). Device 0 answers, as CANN's does with
 * several devices; no device, or one that is not npusim's 910B, gives NULL,
 * as CANN's without a driver.
 */
#define RT_SOC_NAME NPUSIM_CHIP_NAME "1"

const char *aclrtGetSocName(void)
{
	halChipInfo ci;
	char name[2 * MAX_CHIP_NAME + 1];

	if (halGetChipInfo(0, &ci) != DRV_ERROR_NONE)
		return NULL;
	snprintf(name, sizeof(name), "%.*s%.*s", MAX_CHIP_NAME, (const char *)ci.type,
		 MAX_CHIP_NAME, (const char *)ci.name);
	if (strcmp(name, NPUSIM_CHIP_NAME) != 0)
		return NULL;
	return RT_SOC_NAME;
}

aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
	if (!runMode) {
		rt_set_errmsg("aclrtGetRunMode: runMode is NULL");
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	}
	*runMode = ACL_HOST;
	return ACL_SUCCESS;
}
