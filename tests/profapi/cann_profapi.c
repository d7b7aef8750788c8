/*
 * cann_profapi.c - a stand-in for CANN's own libprofapi.so in the attach
 * test (tests/unit/test_cannrec_e2e.c): built as a libprofapi.so of its
 * own, compiled only against include/profiling, never linked with
 * npuprof's code. CANN's library is not here, so this one does, from the
 * facts of hicann/runtime src/dfx/msprof/collector/dvvp/profapi/src/
 * prof_cann_plugin.cpp, what a collector attached to it meets:
 *  - MsprofRegisterProfileCallback keeps the C callbacks of an external
 *    collector (RegisterProfileCallback / RegisterProfileCallbackForAtls),
 *    and a device-state callback first gets the devices already announced
 *    (ProfNotifyCachedDevice);
 *  - reports, type names and hashes go to the collector's callbacks (none
 *    registered: dropped, 0);
 *  - profSetProfCommand hands a command to every module registered with
 *    MsprofRegisterCallback; a module registered later gets INIT and START
 *    for each device started, as CANN's collector replays them;
 *  - MsprofSysCycleTime: the raw counter only if the collector says the
 *    host frequency is on, else CLOCK_MONOTONIC_RAW ns.
 * It has no recorder, no npuprof symbol and no file output.
 */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "prof_api.h"

#define MAX_MODS 32
#define MAX_DEVS 64

struct dev_para {
	uint32_t chipId;
	uint32_t deviceId;
	bool isOpen;
};

static pthread_mutex_t g_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static ProfCommandHandle g_mods[MAX_MODS];
static unsigned g_nmods;
static struct MsprofCommandHandle g_started[MAX_DEVS]; /* type START: started */
static bool g_open[MAX_DEVS];

static int32_t (*atls_api)(uint32_t, const struct MsprofApi *);
static int32_t (*atls_event)(uint32_t, const struct MsprofEvent *);
static int32_t (*atls_compact)(uint32_t, const VOID_PTR, uint32_t);
static int32_t (*atls_additional)(uint32_t, const VOID_PTR, uint32_t);
static int32_t (*atls_type_info)(uint16_t, uint32_t, const char *, size_t);
static uint64_t (*atls_hash)(const char *, size_t);
static int8_t (*atls_host_freq)(void);
static int32_t (*atls_device)(VOID_PTR, uint32_t);

static void notify_device(uint32_t chip, uint32_t dev, bool open)
{
	struct dev_para p = { chip, dev, open };

	if (atls_device)
		atls_device(&p, (uint32_t)sizeof(p));
}

int32_t MsprofRegisterProfileCallback(int32_t callbackType, VOID_PTR callback, uint32_t len)
{
	(void)len;
	pthread_mutex_lock(&g_lock);
	switch (callbackType) {
	case PROFILE_REPORT_API_C_CALLBACK:
		atls_api = (int32_t(*)(uint32_t, const struct MsprofApi *))callback;
		break;
	case PROFILE_REPORT_EVENT_C_CALLBACK:
		atls_event = (int32_t(*)(uint32_t, const struct MsprofEvent *))callback;
		break;
	case PROFILE_REPORT_COMPACT_CALLBACK:
		atls_compact = (int32_t(*)(uint32_t, const VOID_PTR, uint32_t))callback;
		break;
	case PROFILE_REPORT_ADDITIONAL_CALLBACK:
		atls_additional = (int32_t(*)(uint32_t, const VOID_PTR, uint32_t))callback;
		break;
	case PROFILE_REPORT_REG_TYPE_INFO_C_CALLBACK:
		atls_type_info = (int32_t(*)(uint16_t, uint32_t, const char *, size_t))callback;
		break;
	case PROFILE_REPORT_GET_HASH_ID_C_CALLBACK:
		atls_hash = (uint64_t(*)(const char *, size_t))callback;
		break;
	case PROFILE_HOST_FREQ_IS_ENABLE_C_CALLBACK:
		atls_host_freq = (int8_t(*)(void))callback;
		break;
	case PROFILE_DEVICE_STATE_C_CALLBACK:
		atls_device = (int32_t(*)(VOID_PTR, uint32_t))callback;
		for (uint32_t d = 0; d < MAX_DEVS; d++)
			if (g_open[d])
				notify_device(0, d, true);
		break;
	case PROFILE_CTRL_CALLBACK:
	case PROFILE_DEVICE_STATE_CALLBACK:
	case PROFILE_REPORT_API_CALLBACK:
	case PROFILE_REPORT_EVENT_CALLBACK:
	case PROFILE_REPORT_REG_TYPE_INFO_CALLBACK:
	case PROFILE_REPORT_REG_DATA_FORMAT_CALLBACK:
	case PROFILE_REPORT_GET_HASH_ID_CALLBACK:
	case PROFILE_HOST_FREQ_IS_ENABLE_CALLBACK:
	case PROFILE_REPORT_REG_DATA_FORMAT_C_CALLBACK: break;
	default: pthread_mutex_unlock(&g_lock); return -1;
	}
	pthread_mutex_unlock(&g_lock);
	return 0;
}

static void deliver(ProfCommandHandle h, const struct MsprofCommandHandle *c)
{
	struct MsprofCommandHandle copy = *c;

	h(PROF_CTRL_SWITCH, &copy, (uint32_t)sizeof(copy));
}

int32_t profSetProfCommand(VOID_PTR command, uint32_t len)
{
	const struct MsprofCommandHandle *c = command;

	if (!c || len != sizeof(*c) || c->devNums > MAX_DEVS)
		return -1;
	pthread_mutex_lock(&g_lock);
	for (uint32_t i = 0; i < c->devNums; i++) {
		uint32_t d = c->devIdList[i];

		if (d >= MAX_DEVS)
			continue;
		if (c->type == PROF_COMMANDHANDLE_TYPE_START)
			g_started[d] = *c;
		else if (c->type == PROF_COMMANDHANDLE_TYPE_STOP)
			memset(&g_started[d], 0, sizeof(g_started[d]));
	}
	for (unsigned i = 0; i < g_nmods; i++)
		deliver(g_mods[i], c);
	pthread_mutex_unlock(&g_lock);
	return 0;
}

int32_t MsprofRegisterCallback(uint32_t moduleId, ProfCommandHandle handle)
{
	(void)moduleId;
	if (!handle)
		return -1;
	pthread_mutex_lock(&g_lock);
	if (g_nmods == MAX_MODS) {
		pthread_mutex_unlock(&g_lock);
		return -1;
	}
	g_mods[g_nmods++] = handle;
	for (unsigned d = 0; d < MAX_DEVS; d++) {
		struct MsprofCommandHandle c = g_started[d];

		if (c.type != PROF_COMMANDHANDLE_TYPE_START)
			continue;
		c.type = PROF_COMMANDHANDLE_TYPE_INIT;
		deliver(handle, &c);
		deliver(handle, &g_started[d]);
	}
	pthread_mutex_unlock(&g_lock);
	return 0;
}

int32_t MsprofNotifySetDevice(uint32_t chipId, uint32_t deviceId, bool isOpen)
{
	if (deviceId >= MAX_DEVS)
		return -1;
	pthread_mutex_lock(&g_lock);
	g_open[deviceId] = isOpen;
	notify_device(chipId, deviceId, isOpen);
	pthread_mutex_unlock(&g_lock);
	return 0;
}

int32_t MsprofRegTypeInfo(uint16_t level, uint32_t typeId, const char *typeName)
{
	return atls_type_info ? atls_type_info(level, typeId, typeName, strlen(typeName)) : 0;
}

uint64_t MsprofGetHashId(const char *hashInfo, size_t length)
{
	return atls_hash ? atls_hash(hashInfo, length) : 0;
}

int32_t MsprofReportApi(uint32_t agingFlag, const struct MsprofApi *api)
{
	return atls_api ? atls_api(agingFlag, api) : 0;
}

int32_t MsprofReportEvent(uint32_t agingFlag, const struct MsprofEvent *event)
{
	return atls_event ? atls_event(agingFlag, event) : 0;
}

int32_t MsprofReportCompactInfo(uint32_t agingFlag, const VOID_PTR data, uint32_t length)
{
	return atls_compact ? atls_compact(agingFlag, data, length) : 0;
}

int32_t MsprofReportAdditionalInfo(uint32_t agingFlag, const VOID_PTR data, uint32_t length)
{
	return atls_additional ? atls_additional(agingFlag, data, length) : 0;
}

uint64_t MsprofSysCycleTime(void)
{
	struct timespec ts;

#if defined(__x86_64__)
	if (atls_host_freq && atls_host_freq()) {
		uint32_t lo, hi;

		__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
		return ((uint64_t)hi << 32) | lo;
	}
#endif
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
