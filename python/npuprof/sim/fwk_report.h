/*
 * fwk_report.h - how the framework layer (the torch extension, torch_ext.cpp,
 * and the device mirror, python/npuprof/sim/mirror.c) reports its records:
 * through CANN's reporter ABI (libprofapi.so), as the npuprof extension
 * records of profiling/npuprof_ext.h. Header-only, C and C++; each library
 * that includes it registers the type names once (fwk_register_types) and
 * reports on the thread the event happened on. A report returns 0, or
 * libprofapi's error when it is not stored (no collection, a full ring).
 */
#ifndef NPUPROF_FWK_REPORT_H
#define NPUPROF_FWK_REPORT_H

#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "profiling/aprof_pub.h"
#include "profiling/npuprof_ext.h"

static inline void fwk_register_types(void)
{
	MsprofRegTypeInfo(NPUPROF_EXT_LEVEL, NPUPROF_EXT_FWK_OP_TYPE, NPUPROF_EXT_FWK_OP_NAME);
	MsprofRegTypeInfo(NPUPROF_EXT_LEVEL, NPUPROF_EXT_FWK_MEM_TYPE, NPUPROF_EXT_FWK_MEM_NAME);
	MsprofRegTypeInfo(NPUPROF_EXT_LEVEL, NPUPROF_EXT_FWK_GC_TYPE, NPUPROF_EXT_FWK_GC_NAME);
}

/* The calling thread's kernel tid (MsprofAdditionalInfo.threadId). */
static inline uint32_t fwk_tid(void)
{
	static __thread uint32_t tid;

	if (__builtin_expect(!tid, 0))
		tid = (uint32_t)syscall(SYS_gettid);
	return tid;
}

/* The id of the `len` bytes at s (NPUPROF_EXT_NO_STRING for none),
 * registered with libprofapi's dictionary (MsprofGetHashId) unless the
 * caller's direct-mapped cache of `nslots` ids (a power of two, one per
 * thread) says it was. */
static inline uint64_t fwk_str_id(uint64_t *seen, unsigned nslots, const char *s, size_t len)
{
	uint64_t id;
	unsigned slot;

	if (!s || !len)
		return NPUPROF_EXT_NO_STRING;
	id = npuprof_str2id_hash(s, len);
	slot = (unsigned)(id ^ (id >> 32)) & (nslots - 1);
	if (seen[slot] != id) {
		MsprofGetHashId(s, len);
		seen[slot] = id;
	}
	return id;
}

static inline int32_t fwk_report(uint32_t type, uint32_t tid, uint64_t ts, const void *payload,
				 uint32_t len)
{
	struct MsprofAdditionalInfo a;

	memset((void *)&a, 0, sizeof(a)); /* (void *): C++ sees a default member initializer */
	a.magicNumber = MSPROF_REPORT_DATA_MAGIC_NUM;
	a.level = (uint16_t)NPUPROF_EXT_LEVEL;
	a.type = type;
	a.threadId = tid;
	a.dataLen = len;
	a.timeStamp = ts;
	memcpy(a.data, payload, len);
	return MsprofReportAdditionalInfo(0, &a, (uint32_t)sizeof(a));
}

/* One framework API range (a PYTORCH_API row), start and end from
 * MsprofSysCycleTime(); strings are MsprofGetHashId ids or
 * NPUPROF_EXT_NO_STRING. */
static inline int32_t fwk_report_op(uint32_t tid, uint32_t fwd_tid, uint64_t start, uint64_t end,
				    int64_t seq, uint64_t name_id, uint64_t dtypes_id,
				    uint64_t shapes_id, uint64_t stack_id, uint32_t api_type)
{
	struct NpuprofFwkOp x;

	x.fwdThreadId = fwd_tid;
	x.apiType = api_type;
	x.durationNs = end > start ? end - start : 0;
	x.sequenceNumber = seq;
	x.nameId = name_id;
	x.dtypesId = dtypes_id;
	x.shapesId = shapes_id;
	x.stackId = stack_id;
	return fwk_report(NPUPROF_EXT_FWK_OP_TYPE, tid, start, &x, (uint32_t)sizeof(x));
}

#endif /* NPUPROF_FWK_REPORT_H */
