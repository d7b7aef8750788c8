/*
 * attach.c - libnpuprof_attach.so: npuprof's recorder attached to CANN's own
 * libprofapi.so, for a program that keeps CANN's libraries.
 *
 * CANN's libprofapi hands every report to an external collector that has
 * registered C callbacks with MsprofRegisterProfileCallback (hicann/runtime
 * src/dfx/msprof/collector/dvvp/profapi/src/prof_cann_plugin.cpp
 * RegisterProfileCallback / RegisterProfileCallbackForAtls: compact and
 * additional reports, API and event reports, type names, string hashes, the
 * host-frequency question, device states), and a collector switches the
 * components on with profSetProfCommand, which hands a command to every
 * registered module (the route Ascend/mspti takes). This library, preloaded
 * by `npuprof record` (LD_PRELOAD), registers such callbacks at load, before
 * the program's main: each one stores what it is handed exactly as
 * npuprof's own libprofapi.so stores the same call (profapi.c), and every
 * command of the recorder's control plane (a collection's INIT and START
 * per device announced, its STOP and FINALIZE) goes to CANN's
 * profSetProfCommand. The collection itself is the environment's
 * (NPUPROF_OUTPUT_DIR), started by the recorder's constructor as in
 * libprofapi.so.
 *
 * It exports nothing (libnpuprof_attach.map): the recorder inside it never
 * shadows CANN's symbols. Loaded into a process whose libprofapi.so is
 * npuprof's own (which records by itself), or with none, its recorder
 * stays off and it says so.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "profiling/prof_api.h"

#include "aclprof_internal.h"
#include "profapi_internal.h"

/* What CANN's libprofapi passes a device-state collector
 * (prof_cann_plugin.cpp 31-35, ProfSetDevPara). */
struct attach_dev_para {
	uint32_t chip_id;
	uint32_t device_id;
	bool is_open;
};

typedef int32_t (*register_fn)(int32_t type, VOID_PTR callback, uint32_t len);

static int32_t on_api(uint32_t flag, const struct MsprofApi *api)
{
	return MsprofReportApi(flag, api);
}

static int32_t on_event(uint32_t flag, const struct MsprofEvent *event)
{
	return MsprofReportEvent(flag, event);
}

static int32_t on_compact(uint32_t flag, const VOID_PTR data, uint32_t len)
{
	return MsprofReportCompactInfo(flag, data, len);
}

static int32_t on_additional(uint32_t flag, const VOID_PTR data, uint32_t len)
{
	return MsprofReportAdditionalInfo(flag, data, len);
}

static int32_t on_type_info(uint16_t level, uint32_t type, const char *name, size_t len)
{
	(void)len;
	return MsprofRegTypeInfo(level, type, name);
}

static uint64_t on_hash(const char *info, size_t len)
{
	return MsprofGetHashId(info, len);
}

/* CLOCK_MONOTONIC_RAW ns, as npuprof's MsprofSysCycleTime. */
static int8_t on_host_freq(void)
{
	return 0;
}

static int32_t on_device(VOID_PTR data, uint32_t len)
{
	const struct attach_dev_para *p = data;

	if (!p || len < sizeof(*p))
		return PROF_FAILED;
	return MsprofNotifySetDevice(p->chip_id, p->device_id, p->is_open);
}

/* Before the recorder's constructor (default priority) starts the
 * environment's collection, whose commands must reach CANN's modules. */
__attribute__((constructor(101))) static void attach_load(void)
{
	static const struct {
		int32_t type;
		VOID_PTR fn;
	} cbs[] = {
		{ PROFILE_REPORT_API_C_CALLBACK, (VOID_PTR)on_api },
		{ PROFILE_REPORT_EVENT_C_CALLBACK, (VOID_PTR)on_event },
		{ PROFILE_REPORT_COMPACT_CALLBACK, (VOID_PTR)on_compact },
		{ PROFILE_REPORT_ADDITIONAL_CALLBACK, (VOID_PTR)on_additional },
		{ PROFILE_REPORT_REG_TYPE_INFO_C_CALLBACK, (VOID_PTR)on_type_info },
		{ PROFILE_REPORT_GET_HASH_ID_C_CALLBACK, (VOID_PTR)on_hash },
		{ PROFILE_HOST_FREQ_IS_ENABLE_C_CALLBACK, (VOID_PTR)on_host_freq },
		{ PROFILE_DEVICE_STATE_C_CALLBACK, (VOID_PTR)on_device },
	};
	void *h;
	register_fn reg;
	npuprof_profapi_command_fn cmd;

	if (!getenv("NPUPROF_OUTPUT_DIR"))
		return;
	npuprof_g_env_session_off = 1; /* until attached */
	h = dlopen("libprofapi.so", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
	if (!h) {
		fprintf(stderr, "npuprof: attach: no libprofapi.so to attach to (%s)\n", dlerror());
		return;
	}
	if (dlsym(h, "npuprof_str2id_hash")) {
		fprintf(stderr, "npuprof: attach: libprofapi.so is npuprof's own: it records "
				"without attaching\n");
		return;
	}
	reg = (register_fn)dlsym(h, "MsprofRegisterProfileCallback");
	cmd = (npuprof_profapi_command_fn)dlsym(h, "profSetProfCommand");
	if (!reg || !cmd) {
		fprintf(stderr, "npuprof: attach: libprofapi.so has no %s: nothing recorded\n",
			reg ? "profSetProfCommand" : "MsprofRegisterProfileCallback");
		return;
	}
	for (size_t i = 0; i < sizeof(cbs) / sizeof(cbs[0]); i++)
		if (reg(cbs[i].type, cbs[i].fn, (uint32_t)sizeof(VOID_PTR)) != 0) {
			fprintf(stderr, "npuprof: attach: libprofapi.so refused callback type %d\n",
				(int)cbs[i].type);
			return;
		}
	(void)MsprofInit(MSPROF_CTRL_INIT_DYNA, NULL, 0);
	npuprof_profapi_set_upstream(cmd);
	npuprof_g_env_session_off = 0;
}
