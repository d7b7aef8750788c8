/*
 * profiling/prof_api.h - the rest of libprofapi.so's exported interface:
 * the attach route (MsprofRegisterProfileCallback, profSetProfCommand),
 * step info, the legacy MsprofReportData, device announcements and the
 * MsprofStart/MsprofStop pair.
 *
 * This is npuprof's own text. Signatures are those of hicann/runtime
 * pkg_inc/profiling/prof_api.h (lines 45-120); tests/unit/test_profapi_abi.c
 * holds them.
 */
#ifndef PROF_API_H
#define PROF_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "prof_common.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef MSVP_PROF_API
#if (defined(_WIN32) || defined(_WIN64) || defined(_MSC_VER))
#define MSVP_PROF_API __declspec(dllexport)
#else
#define MSVP_PROF_API __attribute__((visibility("default")))
#endif
#endif

/* Hand a command (struct MsprofCommandHandle) to every registered component */
MSVP_PROF_API int32_t profSetProfCommand(VOID_PTR command, uint32_t len);

/* A step boundary of a framework (PyTorch): iteration index, tag, stream */
MSVP_PROF_API int32_t profSetStepInfo(const uint64_t indexId, const uint16_t tagId,
				      void *const stream);

/* Install a collector's callback (enum ProfileCallbackType) */
MSVP_PROF_API int32_t MsprofRegisterProfileCallback(int32_t callbackType, VOID_PTR callback,
						    uint32_t len);

MSVP_PROF_API int32_t MsprofSetConfig(uint32_t configType, const char *config, size_t configLength);

/* Legacy reporting: module id, enum MsprofReporterCallbackType, data */
MSVP_PROF_API int32_t MsprofReportData(uint32_t moduleId, uint32_t type, VOID_PTR data,
				       uint32_t len);

/* A device was set (isOpen) or reset by the runtime */
MSVP_PROF_API int32_t MsprofNotifySetDevice(uint32_t chipId, uint32_t deviceId, bool isOpen);

/* dataType: enum MsprofCtrlCallbackType; data: struct MsprofConfig */
int32_t MsprofStart(uint32_t dataType, const void *data, uint32_t length);
int32_t MsprofStop(uint32_t dataType, const void *data, uint32_t length);

#ifdef __cplusplus
}
#endif
#endif /* PROF_API_H */
