/*
 * msprof_ids.h - the numbers CANN gives meaning to that both the host stream
 * (npuprof/hostfmt.h) and the msprof database (npuprof/db.h) carry: API
 * levels (CANN_API.type, ENUM_API_TYPE) and the connectionId ranges of
 * msproftx markers (docs/ascend-reference.md 5.1, 5.6). The one definition: the
 * recorder, the runtime, the exporter, the schema and the report use these.
 */
#ifndef NPUPROF_MSPROF_IDS_H
#define NPUPROF_MSPROF_IDS_H

/* CANN_API.type / ENUM_API_TYPE. */
enum npuprof_api_level {
	NPUPROF_API_ACL = 20000,
	NPUPROF_API_MODEL = 15000,
	NPUPROF_API_NODE = 10000,
	NPUPROF_API_HCCL = 5500, /* "communication" (older producers: "hccl") */
	NPUPROF_API_RUNTIME = 5000,
};

/* A MarkEx / mstx marker's device task and its MSTX_EVENTS row share the
 * connectionId NPUPROF_MSTX_CONNECTION_BASE + markId. An event without a
 * device task: NPUPROF_MSTX_NO_CONNECTION (4294967295, the value that
 * consumers' range queries filter) for every range and every MarkEx / mstx
 * event, NPUPROF_MSTX_HOST_CONNECTION (msprof's value for stamp APIs) for
 * host-only stamp marks and push/pop. */
#define NPUPROF_MSTX_HOST_CONNECTION 4000000000ULL
#define NPUPROF_MSTX_NO_CONNECTION 4294967295ULL
#define NPUPROF_MSTX_CONNECTION_BASE 4000000001ULL /* + index id */

#endif /* NPUPROF_MSPROF_IDS_H */
