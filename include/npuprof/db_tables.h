/*
 * db_tables.h - the one definition of every table of the msprof database
 * (msprof_<YYYYmmddHHMMSS>.db) and of the PyTorch database additions.
 *
 * Each table is one NPUPROF_DB_COLS_<TABLE>(C, V, S) list. Expanded with
 * different C/V macros the same list yields the public row structs (db.h),
 * the column descriptors that drive CREATE TABLE and INSERT (dbschema.c) and
 * the conformance tests. Nothing else in the tree spells a column name.
 *
 *   C(S, field, DECL, KIND, FLAGS)           a column in every schema version
 *   V(S, field, name111, name120, DECL, KIND, FLAGS)
 *                                            a column whose SQL name depends on
 *                                            the schema version; NULL = absent
 *
 * S is passed through untouched (the expander uses it to name the struct).
 *
 * DECL is the declared SQLite type (INTEGER, TEXT, NUMERIC, REAL), exactly as
 * the seed "msprof导出db格式数据说明" gives it (typos fixed as the real producer
 * spells them: AICORE_FREQ.deviceId, COMMUNICATION_SCHEDULE_TASK_INFO.
 * globalTaskId, ENUM_MSTX_EVENT_TYPE.name TEXT, OP_MEMORY.allocationTime).
 * KIND is the C representation of the field in the row struct:
 *   I64  int64_t        (NPUPROF_DB_NULL stores SQL NULL)
 *   F64  double         (NaN stores SQL NULL)
 *   STR  npuprof_db_str (an id returned by npuprof_db_intern: STRING_IDS)
 *   TXT  const char *   (NUL-terminated, NULL pointer stores SQL NULL)
 * FLAGS is 0 or PK (the column is declared "INTEGER PRIMARY KEY", as the real
 * producer declares it; the spec's MEMCPY_INFO key is not, see ref. 3.0).
 *
 * Column order is the DDL order of the producer: the msprof system tests
 * compare PRAGMA table_info lists for equality.
 */
#ifndef NPUPROF_DB_TABLES_H
#define NPUPROF_DB_TABLES_H

/* Every enum table: (id INTEGER PRIMARY KEY, name TEXT). */
#define NPUPROF_DB_COLS_ENUM(C, V, S) \
	C(S, id, INTEGER, I64, PK)    \
	C(S, name, TEXT, TXT, 0)

#define NPUPROF_DB_COLS_STRING_IDS(C, V, S) \
	C(S, id, INTEGER, I64, PK)          \
	C(S, value, TEXT, TXT, 0)

#define NPUPROF_DB_COLS_SESSION_TIME_INFO(C, V, S) \
	C(S, startTimeNs, INTEGER, I64, 0)         \
	C(S, endTimeNs, INTEGER, I64, 0)

#define NPUPROF_DB_COLS_NPU_INFO(C, V, S) \
	C(S, id, INTEGER, I64, 0)         \
	C(S, name, TEXT, TXT, 0)

#define NPUPROF_DB_COLS_HOST_INFO(C, V, S) \
	C(S, hostUid, TEXT, TXT, 0)        \
	C(S, hostName, TEXT, TXT, 0)

#define NPUPROF_DB_COLS_TASK(C, V, S)       \
	C(S, startNs, INTEGER, I64, 0)      \
	C(S, endNs, INTEGER, I64, 0)        \
	C(S, deviceId, INTEGER, I64, 0)     \
	C(S, connectionId, INTEGER, I64, 0) \
	C(S, globalTaskId, INTEGER, I64, 0) \
	C(S, globalPid, INTEGER, I64, 0)    \
	C(S, taskType, INTEGER, STR, 0)     \
	C(S, contextId, INTEGER, I64, 0)    \
	C(S, streamId, INTEGER, I64, 0)     \
	C(S, taskId, INTEGER, I64, 0)       \
	C(S, modelId, INTEGER, I64, 0)

/*
 * 1.2.0 renamed blockDim/mixBlockDim to blockNum/mixBlockNum (same numeric
 * meaning) and appended four STRING_IDS columns, the last of which reuses
 * the name blockDim for a dimension string; its field is blockDimStr.
 */
#define NPUPROF_DB_COLS_COMPUTE_TASK_INFO(C, V, S)                       \
	C(S, name, INTEGER, STR, 0)                                      \
	C(S, globalTaskId, INTEGER, I64, PK)                             \
	V(S, blockDim, "blockDim", "blockNum", INTEGER, I64, 0)          \
	V(S, mixBlockDim, "mixBlockDim", "mixBlockNum", INTEGER, I64, 0) \
	C(S, taskType, INTEGER, STR, 0)                                  \
	C(S, opType, INTEGER, STR, 0)                                    \
	C(S, inputFormats, INTEGER, STR, 0)                              \
	C(S, inputDataTypes, INTEGER, STR, 0)                            \
	C(S, inputShapes, INTEGER, STR, 0)                               \
	C(S, outputFormats, INTEGER, STR, 0)                             \
	C(S, outputDataTypes, INTEGER, STR, 0)                           \
	C(S, outputShapes, INTEGER, STR, 0)                              \
	C(S, attrInfo, INTEGER, STR, 0)                                  \
	V(S, opState, NULL, "opState", INTEGER, STR, 0)                  \
	V(S, hf32Eligible, NULL, "hf32Eligible", INTEGER, STR, 0)        \
	V(S, gridDim, NULL, "gridDim", INTEGER, STR, 0)                  \
	V(S, blockDimStr, NULL, "blockDim", INTEGER, STR, 0)

#define NPUPROF_DB_COLS_COMMUNICATION_TASK_INFO(C, V, S) \
	C(S, name, INTEGER, STR, 0)                      \
	C(S, globalTaskId, INTEGER, I64, 0)              \
	C(S, taskType, INTEGER, STR, 0)                  \
	C(S, planeId, INTEGER, I64, 0)                   \
	C(S, groupName, INTEGER, STR, 0)                 \
	C(S, notifyId, INTEGER, I64, 0)                  \
	C(S, rdmaType, INTEGER, I64, 0)                  \
	C(S, srcRank, INTEGER, I64, 0)                   \
	C(S, dstRank, INTEGER, I64, 0)                   \
	C(S, transportType, INTEGER, I64, 0)             \
	C(S, size, INTEGER, I64, 0)                      \
	C(S, dataType, INTEGER, I64, 0)                  \
	C(S, linkType, INTEGER, I64, 0)                  \
	C(S, opId, INTEGER, I64, 0)                      \
	C(S, isMaster, INTEGER, I64, 0)                  \
	V(S, bandwidth, NULL, "bandwidth", NUMERIC, F64, 0)

#define NPUPROF_DB_COLS_COMMUNICATION_OP(C, V, S)         \
	C(S, opName, INTEGER, STR, 0)                     \
	C(S, startNs, INTEGER, I64, 0)                    \
	C(S, endNs, INTEGER, I64, 0)                      \
	C(S, connectionId, INTEGER, I64, 0)               \
	C(S, groupName, INTEGER, STR, 0)                  \
	C(S, opId, INTEGER, I64, PK)                      \
	C(S, relay, INTEGER, I64, 0)                      \
	C(S, retry, INTEGER, I64, 0)                      \
	C(S, dataType, INTEGER, I64, 0)                   \
	C(S, algType, INTEGER, STR, 0)                    \
	C(S, count, NUMERIC, I64, 0)                      \
	C(S, opType, INTEGER, STR, 0)                     \
	V(S, deviceId, NULL, "deviceId", INTEGER, I64, 0) \
	V(S, rankSize, NULL, "rankSize", INTEGER, I64, 0)

#define NPUPROF_DB_COLS_CANN_API(C, V, S)    \
	C(S, startNs, INTEGER, I64, 0)       \
	C(S, endNs, INTEGER, I64, 0)         \
	C(S, type, INTEGER, I64, 0)          \
	C(S, globalTid, INTEGER, I64, 0)     \
	C(S, connectionId, INTEGER, I64, PK) \
	C(S, name, INTEGER, STR, 0)

#define NPUPROF_DB_COLS_AICORE_FREQ(C, V, S) \
	C(S, deviceId, INTEGER, I64, 0)      \
	C(S, timestampNs, NUMERIC, I64, 0)   \
	C(S, freq, INTEGER, I64, 0)          \
	V(S, dieId, NULL, "dieId", NUMERIC, I64, 0)

#define NPUPROF_DB_COLS_ACC_PMU(C, V, S)     \
	C(S, accId, INTEGER, I64, 0)         \
	C(S, readBwLevel, INTEGER, I64, 0)   \
	C(S, writeBwLevel, INTEGER, I64, 0)  \
	C(S, readOstLevel, INTEGER, I64, 0)  \
	C(S, writeOstLevel, INTEGER, I64, 0) \
	C(S, timestampNs, NUMERIC, I64, 0)   \
	C(S, deviceId, INTEGER, I64, 0)

#define NPUPROF_DB_COLS_SOC_BANDWIDTH_LEVEL(C, V, S) \
	C(S, l2BufferBwLevel, INTEGER, I64, 0)       \
	C(S, mataBwLevel, INTEGER, I64, 0)           \
	C(S, timestampNs, NUMERIC, I64, 0)           \
	C(S, deviceId, INTEGER, I64, 0)

/* NIC and ROCE share one column list. */
#define NPUPROF_DB_COLS_NETDEV(C, V, S)     \
	C(S, deviceId, INTEGER, I64, 0)     \
	C(S, timestampNs, INTEGER, I64, 0)  \
	C(S, bandwidth, INTEGER, I64, 0)    \
	C(S, rxPacketRate, NUMERIC, F64, 0) \
	C(S, rxByteRate, NUMERIC, F64, 0)   \
	C(S, rxPackets, INTEGER, I64, 0)    \
	C(S, rxBytes, INTEGER, I64, 0)      \
	C(S, rxErrors, INTEGER, I64, 0)     \
	C(S, rxDropped, INTEGER, I64, 0)    \
	C(S, txPacketRate, NUMERIC, F64, 0) \
	C(S, txByteRate, NUMERIC, F64, 0)   \
	C(S, txPackets, INTEGER, I64, 0)    \
	C(S, txBytes, INTEGER, I64, 0)      \
	C(S, txErrors, INTEGER, I64, 0)     \
	C(S, txDropped, INTEGER, I64, 0)    \
	C(S, funcId, INTEGER, I64, 0)

#define NPUPROF_DB_COLS_LLC(C, V, S)       \
	C(S, deviceId, INTEGER, I64, 0)    \
	C(S, llcId, INTEGER, I64, 0)       \
	C(S, timestampNs, INTEGER, I64, 0) \
	C(S, hitRate, NUMERIC, F64, 0)     \
	C(S, throughput, NUMERIC, F64, 0)  \
	C(S, mode, INTEGER, STR, 0)

#define NPUPROF_DB_COLS_TASK_PMU_INFO(C, V, S) \
	C(S, globalTaskId, INTEGER, I64, 0)    \
	C(S, name, INTEGER, STR, 0)            \
	C(S, value, NUMERIC, F64, 0)

#define NPUPROF_DB_COLS_SAMPLE_PMU_TIMELINE(C, V, S) \
	C(S, deviceId, INTEGER, I64, 0)              \
	C(S, timestampNs, INTEGER, I64, 0)           \
	C(S, totalCycle, INTEGER, I64, 0)            \
	C(S, usage, NUMERIC, F64, 0)                 \
	C(S, freq, NUMERIC, F64, 0)                  \
	C(S, coreId, INTEGER, I64, 0)                \
	C(S, coreType, INTEGER, STR, 0)

#define NPUPROF_DB_COLS_SAMPLE_PMU_SUMMARY(C, V, S) \
	C(S, deviceId, INTEGER, I64, 0)             \
	C(S, metric, INTEGER, STR, 0)               \
	C(S, value, NUMERIC, F64, 0)                \
	C(S, coreId, INTEGER, I64, 0)               \
	C(S, coreType, INTEGER, STR, 0)

#define NPUPROF_DB_COLS_NPU_MEM(C, V, S)   \
	C(S, type, INTEGER, STR, 0)        \
	C(S, ddr, NUMERIC, I64, 0)         \
	C(S, hbm, NUMERIC, I64, 0)         \
	C(S, timestampNs, INTEGER, I64, 0) \
	C(S, deviceId, INTEGER, I64, 0)

#define NPUPROF_DB_COLS_NPU_MODULE_MEM(C, V, S) \
	C(S, moduleId, INTEGER, I64, 0)         \
	C(S, timestampNs, INTEGER, I64, 0)      \
	C(S, totalReserved, NUMERIC, I64, 0)    \
	C(S, deviceId, INTEGER, I64, 0)

#define NPUPROF_DB_COLS_NPU_OP_MEM(C, V, S)  \
	C(S, operatorName, INTEGER, STR, 0)  \
	C(S, addr, INTEGER, I64, 0)          \
	C(S, type, INTEGER, STR, 0)          \
	C(S, size, INTEGER, I64, 0)          \
	C(S, timestampNs, INTEGER, I64, 0)   \
	C(S, globalTid, INTEGER, I64, 0)     \
	C(S, totalAllocate, NUMERIC, I64, 0) \
	C(S, totalReserve, NUMERIC, I64, 0)  \
	C(S, component, INTEGER, STR, 0)     \
	C(S, deviceId, INTEGER, I64, 0)

#define NPUPROF_DB_COLS_HBM(C, V, S)       \
	C(S, deviceId, INTEGER, I64, 0)    \
	C(S, timestampNs, INTEGER, I64, 0) \
	C(S, bandwidth, NUMERIC, F64, 0)   \
	C(S, hbmId, INTEGER, I64, 0)       \
	C(S, type, INTEGER, STR, 0)

#define NPUPROF_DB_COLS_DDR(C, V, S)       \
	C(S, deviceId, INTEGER, I64, 0)    \
	C(S, timestampNs, INTEGER, I64, 0) \
	C(S, read, NUMERIC, F64, 0)        \
	C(S, write, NUMERIC, F64, 0)

#define NPUPROF_DB_COLS_HCCS(C, V, S)       \
	C(S, deviceId, INTEGER, I64, 0)     \
	C(S, timestampNs, INTEGER, I64, 0)  \
	C(S, txThroughput, NUMERIC, F64, 0) \
	C(S, rxThroughput, NUMERIC, F64, 0)

#define NPUPROF_DB_COLS_PCIE(C, V, S)              \
	C(S, deviceId, INTEGER, I64, 0)            \
	C(S, timestampNs, INTEGER, I64, 0)         \
	C(S, txPostMin, NUMERIC, F64, 0)           \
	C(S, txPostMax, NUMERIC, F64, 0)           \
	C(S, txPostAvg, NUMERIC, F64, 0)           \
	C(S, txNonpostMin, NUMERIC, F64, 0)        \
	C(S, txNonpostMax, NUMERIC, F64, 0)        \
	C(S, txNonpostAvg, NUMERIC, F64, 0)        \
	C(S, txCplMin, NUMERIC, F64, 0)            \
	C(S, txCplMax, NUMERIC, F64, 0)            \
	C(S, txCplAvg, NUMERIC, F64, 0)            \
	C(S, txNonpostLatencyMin, NUMERIC, F64, 0) \
	C(S, txNonpostLatencyMax, NUMERIC, F64, 0) \
	C(S, txNonpostLatencyAvg, NUMERIC, F64, 0) \
	C(S, rxPostMin, NUMERIC, F64, 0)           \
	C(S, rxPostMax, NUMERIC, F64, 0)           \
	C(S, rxPostAvg, NUMERIC, F64, 0)           \
	C(S, rxNonpostMin, NUMERIC, F64, 0)        \
	C(S, rxNonpostMax, NUMERIC, F64, 0)        \
	C(S, rxNonpostAvg, NUMERIC, F64, 0)        \
	C(S, rxCplMin, NUMERIC, F64, 0)            \
	C(S, rxCplMax, NUMERIC, F64, 0)            \
	C(S, rxCplAvg, NUMERIC, F64, 0)

#define NPUPROF_DB_COLS_META_DATA(C, V, S) \
	C(S, name, TEXT, TXT, 0)           \
	C(S, value, TEXT, TXT, 0)

#define NPUPROF_DB_COLS_MSTX_EVENTS(C, V, S) \
	C(S, startNs, INTEGER, I64, 0)       \
	C(S, endNs, INTEGER, I64, 0)         \
	C(S, eventType, INTEGER, I64, 0)     \
	C(S, rangeId, INTEGER, I64, 0)       \
	C(S, category, INTEGER, I64, 0)      \
	C(S, message, INTEGER, STR, 0)       \
	C(S, globalTid, INTEGER, I64, 0)     \
	C(S, endGlobalTid, INTEGER, I64, 0)  \
	C(S, domainId, INTEGER, STR, 0)      \
	C(S, connectionId, INTEGER, I64, 0)

#define NPUPROF_DB_COLS_COMMUNICATION_SCHEDULE_TASK_INFO(C, V, S) \
	C(S, name, INTEGER, STR, 0)                               \
	C(S, globalTaskId, INTEGER, I64, PK)                      \
	C(S, taskType, INTEGER, STR, 0)                           \
	C(S, opType, INTEGER, STR, 0)

#define NPUPROF_DB_COLS_MEMCPY_INFO(C, V, S) \
	C(S, globalTaskId, NUMERIC, I64, 0)  \
	C(S, size, NUMERIC, I64, 0)          \
	C(S, memcpyOperation, NUMERIC, I64, 0)

/* PyTorch DB tables (torch_npu declares no keys). */
#define NPUPROF_DB_COLS_PYTORCH_API(C, V, S)  \
	C(S, startNs, INTEGER, I64, 0)        \
	C(S, endNs, INTEGER, I64, 0)          \
	C(S, globalTid, INTEGER, I64, 0)      \
	C(S, connectionId, INTEGER, I64, 0)   \
	C(S, name, INTEGER, STR, 0)           \
	C(S, sequenceNumber, INTEGER, I64, 0) \
	C(S, fwdThreadId, INTEGER, I64, 0)    \
	C(S, inputDtypes, INTEGER, STR, 0)    \
	C(S, inputShapes, INTEGER, STR, 0)    \
	C(S, callchainId, INTEGER, I64, 0)    \
	C(S, type, INTEGER, I64, 0)

#define NPUPROF_DB_COLS_CONNECTION_IDS(C, V, S) \
	C(S, id, INTEGER, I64, 0)               \
	C(S, connectionId, INTEGER, I64, 0)

#define NPUPROF_DB_COLS_PYTORCH_CALLCHAINS(C, V, S) \
	C(S, id, INTEGER, I64, 0)                   \
	C(S, stack, INTEGER, STR, 0)                \
	C(S, stackDepth, INTEGER, I64, 0)

#define NPUPROF_DB_COLS_MEMORY_RECORD(C, V, S) \
	C(S, component, INTEGER, STR, 0)       \
	C(S, timestamp, INTEGER, I64, 0)       \
	C(S, totalAllocated, INTEGER, I64, 0)  \
	C(S, totalReserved, INTEGER, I64, 0)   \
	C(S, totalActive, INTEGER, I64, 0)     \
	C(S, streamPtr, INTEGER, I64, 0)       \
	C(S, deviceId, INTEGER, I64, 0)

#define NPUPROF_DB_COLS_OP_MEMORY(C, V, S)              \
	C(S, name, INTEGER, STR, 0)                     \
	C(S, size, INTEGER, I64, 0)                     \
	C(S, allocationTime, INTEGER, I64, 0)           \
	C(S, releaseTime, INTEGER, I64, 0)              \
	C(S, activeReleaseTime, INTEGER, I64, 0)        \
	C(S, duration, INTEGER, I64, 0)                 \
	C(S, activeDuration, INTEGER, I64, 0)           \
	C(S, allocationTotalAllocated, INTEGER, I64, 0) \
	C(S, allocationTotalReserved, INTEGER, I64, 0)  \
	C(S, allocationTotalActive, INTEGER, I64, 0)    \
	C(S, releaseTotalAllocated, INTEGER, I64, 0)    \
	C(S, releaseTotalReserved, INTEGER, I64, 0)     \
	C(S, releaseTotalActive, INTEGER, I64, 0)       \
	C(S, streamPtr, INTEGER, I64, 0)                \
	C(S, deviceId, INTEGER, I64, 0)

#define NPUPROF_DB_COLS_RANK_DEVICE_MAP(C, V, S) \
	C(S, rankId, INTEGER, I64, 0)            \
	C(S, deviceId, INTEGER, I64, 0)

#define NPUPROF_DB_COLS_STEP_TIME(C, V, S) \
	C(S, id, INTEGER, I64, 0)          \
	C(S, startNs, INTEGER, I64, 0)     \
	C(S, endNs, INTEGER, I64, 0)

#define NPUPROF_DB_COLS_GC_RECORD(C, V, S) \
	C(S, startNs, INTEGER, I64, 0)     \
	C(S, endNs, INTEGER, I64, 0)       \
	C(S, globalTid, INTEGER, I64, 0)

/*
 * torch_npu's analysis.db (ASCEND_PROFILER_OUTPUT/analysis.db, beside the
 * PyTorch DB; docs/ascend-reference.md 2.4): torch_npu's TableColumnsManager
 * (prof_common_func/_constant.py), every TEXT column a TXT, every NUMERIC
 * an F64. Units: start_timestamp us; times ms; sizes MB; bandwidth GB/s;
 * StepTraceTime's times us.
 */
#define NPUPROF_DB_COLS_COMM_ANALYZER_BANDWIDTH(C, V, S) \
	C(S, hccl_op_name, TEXT, TXT, 0)                 \
	C(S, group_name, TEXT, TXT, 0)                   \
	C(S, transport_type, TEXT, TXT, 0)               \
	C(S, transit_size, NUMERIC, F64, 0)              \
	C(S, transit_time, NUMERIC, F64, 0)              \
	C(S, bandwidth, NUMERIC, F64, 0)                 \
	C(S, large_packet_ratio, NUMERIC, F64, 0)        \
	C(S, package_size, NUMERIC, F64, 0)              \
	C(S, count, NUMERIC, F64, 0)                     \
	C(S, total_duration, NUMERIC, F64, 0)            \
	C(S, step, TEXT, TXT, 0)                         \
	C(S, type, TEXT, TXT, 0)

#define NPUPROF_DB_COLS_COMM_ANALYZER_MATRIX(C, V, S) \
	C(S, hccl_op_name, TEXT, TXT, 0)              \
	C(S, group_name, TEXT, TXT, 0)                \
	C(S, src_rank, TEXT, TXT, 0)                  \
	C(S, dst_rank, TEXT, TXT, 0)                  \
	C(S, transport_type, TEXT, TXT, 0)            \
	C(S, transit_size, NUMERIC, F64, 0)           \
	C(S, transit_time, NUMERIC, F64, 0)           \
	C(S, bandwidth, NUMERIC, F64, 0)              \
	C(S, step, TEXT, TXT, 0)                      \
	C(S, type, TEXT, TXT, 0)                      \
	C(S, op_name, TEXT, TXT, 0)

#define NPUPROF_DB_COLS_COMM_ANALYZER_TIME(C, V, S) \
	C(S, hccl_op_name, TEXT, TXT, 0)            \
	C(S, group_name, TEXT, TXT, 0)              \
	C(S, start_timestamp, NUMERIC, F64, 0)      \
	C(S, elapse_time, NUMERIC, F64, 0)          \
	C(S, transit_time, NUMERIC, F64, 0)         \
	C(S, wait_time, NUMERIC, F64, 0)            \
	C(S, synchronization_time, NUMERIC, F64, 0) \
	C(S, idle_time, NUMERIC, F64, 0)            \
	C(S, step, TEXT, TXT, 0)                    \
	C(S, type, TEXT, TXT, 0)

#define NPUPROF_DB_COLS_STEP_TRACE_TIME(C, V, S)                                \
	C(S, deviceId, INTEGER, I64, 0)                                         \
	C(S, step, TEXT, TXT, 0)                                                \
	C(S, computing, NUMERIC, F64, 0)                                        \
	C(S, communication_not_overlapped, NUMERIC, F64, 0)                     \
	C(S, overlapped, NUMERIC, F64, 0)                                       \
	C(S, communication, NUMERIC, F64, 0)                                    \
	C(S, free, NUMERIC, F64, 0)                                             \
	C(S, stage, NUMERIC, F64, 0)                                            \
	C(S, bubble, NUMERIC, F64, 0)                                           \
	C(S, communication_not_overlapped_and_exclude_receive, NUMERIC, F64, 0) \
	C(S, preparing, NUMERIC, F64, 0)

/*
 * Table flags:
 *   ALWAYS   created even without rows (ENUM_*, META_DATA, STRING_IDS)
 *   MANAGED  filled by the writer itself; callers cannot insert
 *   PYTORCH  exists only in the PyTorch DB variant
 *   ANALYSIS exists only in torch_npu's analysis.db (NPUPROF_DB_ANALYSIS),
 *            which holds nothing else
 */
#define NPUPROF_DBT_ALWAYS 0x1u
#define NPUPROF_DBT_MANAGED 0x2u
#define NPUPROF_DBT_PYTORCH 0x4u
#define NPUPROF_DBT_ANALYSIS 0x8u

/*
 * T(ID, struct_suffix, COLS, FLAGS): every table, in the order of the seed.
 * ID is the SQL table name; the row struct is struct npuprof_db_<suffix>.
 */
#define NPUPROF_DB_TABLE_LIST(T)                                                                \
	T(ENUM_API_TYPE, enum_api_type, ENUM, NPUPROF_DBT_ALWAYS | NPUPROF_DBT_MANAGED)         \
	T(ENUM_MODULE, enum_module, ENUM, NPUPROF_DBT_ALWAYS | NPUPROF_DBT_MANAGED)             \
	T(ENUM_HCCL_DATA_TYPE, enum_hccl_data_type, ENUM,                                       \
	  NPUPROF_DBT_ALWAYS | NPUPROF_DBT_MANAGED)                                             \
	T(ENUM_HCCL_LINK_TYPE, enum_hccl_link_type, ENUM,                                       \
	  NPUPROF_DBT_ALWAYS | NPUPROF_DBT_MANAGED)                                             \
	T(ENUM_HCCL_TRANSPORT_TYPE, enum_hccl_transport_type, ENUM,                             \
	  NPUPROF_DBT_ALWAYS | NPUPROF_DBT_MANAGED)                                             \
	T(ENUM_HCCL_RDMA_TYPE, enum_hccl_rdma_type, ENUM,                                       \
	  NPUPROF_DBT_ALWAYS | NPUPROF_DBT_MANAGED)                                             \
	T(ENUM_MSTX_EVENT_TYPE, enum_mstx_event_type, ENUM,                                     \
	  NPUPROF_DBT_ALWAYS | NPUPROF_DBT_MANAGED)                                             \
	T(ENUM_MEMCPY_OPERATION, enum_memcpy_operation, ENUM,                                   \
	  NPUPROF_DBT_ALWAYS | NPUPROF_DBT_MANAGED)                                             \
	T(STRING_IDS, string_ids, STRING_IDS, NPUPROF_DBT_ALWAYS | NPUPROF_DBT_MANAGED)         \
	T(SESSION_TIME_INFO, session_time_info, SESSION_TIME_INFO, 0)                           \
	T(NPU_INFO, npu_info, NPU_INFO, 0)                                                      \
	T(HOST_INFO, host_info, HOST_INFO, 0)                                                   \
	T(TASK, task, TASK, 0)                                                                  \
	T(COMPUTE_TASK_INFO, compute_task_info, COMPUTE_TASK_INFO, 0)                           \
	T(COMMUNICATION_TASK_INFO, communication_task_info, COMMUNICATION_TASK_INFO, 0)         \
	T(COMMUNICATION_OP, communication_op, COMMUNICATION_OP, 0)                              \
	T(CANN_API, cann_api, CANN_API, 0)                                                      \
	T(AICORE_FREQ, aicore_freq, AICORE_FREQ, 0)                                             \
	T(ACC_PMU, acc_pmu, ACC_PMU, 0)                                                         \
	T(SOC_BANDWIDTH_LEVEL, soc_bandwidth_level, SOC_BANDWIDTH_LEVEL, 0)                     \
	T(NIC, nic, NETDEV, 0)                                                                  \
	T(ROCE, roce, NETDEV, 0)                                                                \
	T(LLC, llc, LLC, 0)                                                                     \
	T(TASK_PMU_INFO, task_pmu_info, TASK_PMU_INFO, 0)                                       \
	T(SAMPLE_PMU_TIMELINE, sample_pmu_timeline, SAMPLE_PMU_TIMELINE, 0)                     \
	T(SAMPLE_PMU_SUMMARY, sample_pmu_summary, SAMPLE_PMU_SUMMARY, 0)                        \
	T(NPU_MEM, npu_mem, NPU_MEM, 0)                                                         \
	T(NPU_MODULE_MEM, npu_module_mem, NPU_MODULE_MEM, 0)                                    \
	T(NPU_OP_MEM, npu_op_mem, NPU_OP_MEM, 0)                                                \
	T(HBM, hbm, HBM, 0)                                                                     \
	T(DDR, ddr, DDR, 0)                                                                     \
	T(HCCS, hccs, HCCS, 0)                                                                  \
	T(PCIE, pcie, PCIE, 0)                                                                  \
	T(META_DATA, meta_data, META_DATA, NPUPROF_DBT_ALWAYS)                                  \
	T(MSTX_EVENTS, mstx_events, MSTX_EVENTS, 0)                                             \
	T(COMMUNICATION_SCHEDULE_TASK_INFO, communication_schedule_task_info,                   \
	  COMMUNICATION_SCHEDULE_TASK_INFO, 0)                                                  \
	T(MEMCPY_INFO, memcpy_info, MEMCPY_INFO, 0)                                             \
	T(PYTORCH_API, pytorch_api, PYTORCH_API, NPUPROF_DBT_PYTORCH)                           \
	T(CONNECTION_IDS, connection_ids, CONNECTION_IDS, NPUPROF_DBT_PYTORCH)                  \
	T(PYTORCH_CALLCHAINS, pytorch_callchains, PYTORCH_CALLCHAINS, NPUPROF_DBT_PYTORCH)      \
	T(MEMORY_RECORD, memory_record, MEMORY_RECORD, NPUPROF_DBT_PYTORCH)                     \
	T(OP_MEMORY, op_memory, OP_MEMORY, NPUPROF_DBT_PYTORCH)                                 \
	T(RANK_DEVICE_MAP, rank_device_map, RANK_DEVICE_MAP, 0)                                 \
	T(STEP_TIME, step_time, STEP_TIME, NPUPROF_DBT_PYTORCH)                                 \
	T(GC_RECORD, gc_record, GC_RECORD, NPUPROF_DBT_PYTORCH)                                 \
	T(CommAnalyzerBandwidth, comm_analyzer_bandwidth, COMM_ANALYZER_BANDWIDTH,              \
	  NPUPROF_DBT_ANALYSIS)                                                                 \
	T(CommAnalyzerMatrix, comm_analyzer_matrix, COMM_ANALYZER_MATRIX, NPUPROF_DBT_ANALYSIS) \
	T(CommAnalyzerTime, comm_analyzer_time, COMM_ANALYZER_TIME, NPUPROF_DBT_ANALYSIS)       \
	T(StepTraceTime, step_trace_time, STEP_TRACE_TIME, NPUPROF_DBT_ANALYSIS)

#endif /* NPUPROF_DB_TABLES_H */
