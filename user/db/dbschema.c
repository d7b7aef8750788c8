/*
 * dbschema.c - the msprof database schema as data.
 *
 * Expands the column lists of include/npuprof/db_tables.h into descriptors
 * (name per schema version, declared type, struct offset) and holds the
 * facts a column list cannot carry: the ENUM rows exactly as the seed lists
 * them, the two indexes the real producer creates, and the META_DATA
 * version strings. The writer builds all its SQL from these tables, and the
 * conformance tests compare them against the seed and real databases.
 */
#include "dbschema.h"

#include <npuprof/msprof_ids.h>

#include <stdio.h>
#include <string.h>

/* Column descriptors, one array per table. */
#define DB_KIND_I64 NPUPROF_DBK_I64
#define DB_KIND_F64 NPUPROF_DBK_F64
#define DB_KIND_STR NPUPROF_DBK_STR
#define DB_KIND_TXT NPUPROF_DBK_TXT
#define DB_FLAG_0 0u
#define DB_FLAG_PK NPUPROF_DBC_PK

#define COL_C(st, field, DECL, KIND, FLAGS)          \
	{ #field,	  { #field, #field }, #DECL, \
	  DB_KIND_##KIND, DB_FLAG_##FLAGS,    offsetof(struct npuprof_db_##st, field) },
#define COL_V(st, field, n111, n120, DECL, KIND, FLAGS) \
	{ #field,	  { n111, n120 },  #DECL,       \
	  DB_KIND_##KIND, DB_FLAG_##FLAGS, offsetof(struct npuprof_db_##st, field) },

#define DEF_COLS(ID, sfx, COLS, FLAGS)                                                             \
	static const struct npuprof_db_column cols_##ID[] = { NPUPROF_DB_COLS_##COLS(COL_C, COL_V, \
										     sfx) };
NPUPROF_DB_TABLE_LIST(DEF_COLS)

/* ENUM rows, exactly as the seed lists them (docs/ascend-reference.md 3.1). */
#define BOTH (NPUPROF_DBE_MSPROF | NPUPROF_DBE_PYTORCH)

/*
 * msprof writes the five CANN levels; torch_npu adds 50001-50004 itself with
 * a plain INSERT, which fails on the primary key if msprof wrote them too.
 * So the msprof file carries the first five and the PyTorch file all nine.
 */
static const struct npuprof_db_enum_row enum_api_type[] = {
	{ NPUPROF_API_ACL, "acl", BOTH },	  { NPUPROF_API_MODEL, "model", BOTH },
	{ NPUPROF_API_NODE, "node", BOTH },	  { NPUPROF_API_HCCL, "communication", BOTH },
	{ NPUPROF_API_RUNTIME, "runtime", BOTH }, { 50001, "op", NPUPROF_DBE_PYTORCH },
	{ 50002, "queue", NPUPROF_DBE_PYTORCH },  { 50003, "trace", NPUPROF_DBE_PYTORCH },
	{ 50004, "mstx", NPUPROF_DBE_PYTORCH },
};

#define M(i, n)            \
	{                  \
		i, n, BOTH \
	}
static const struct npuprof_db_enum_row enum_module[] = {
	M(0, "SLOG"),	      M(1, "IDEDD"),
	M(2, "IDEDH"),	      M(3, "HCCL"),
	M(4, "FMK"),	      M(5, "HIAIENGINE"),
	M(6, "DVPP"),	      M(7, "RUNTIME"),
	M(8, "CCE"),	      M(9, "HDC"),
	M(10, "DRV"),	      M(11, "MDCFUSION"),
	M(12, "MDCLOCATION"), M(13, "MDCPERCEPTION"),
	M(14, "MDCFSM"),      M(15, "MDCCOMMON"),
	M(16, "MDCMONITOR"),  M(17, "MDCBSWP"),
	M(18, "MDCDEFAULT"),  M(19, "MDCSC"),
	M(20, "MDCPNC"),      M(21, "MLL"),
	M(22, "DEVMM"),	      M(23, "KERNEL"),
	M(24, "LIBMEDIA"),    M(25, "CCECPU"),
	M(26, "ASCENDDK"),    M(27, "ROS"),
	M(28, "HCCP"),	      M(29, "ROCE"),
	M(30, "TEFUSION"),    M(31, "PROFILING"),
	M(32, "DP"),	      M(33, "APP"),
	M(34, "TS"),	      M(35, "TSDUMP"),
	M(36, "AICPU"),	      M(37, "LP"),
	M(38, "TDT"),	      M(39, "FE"),
	M(40, "MD"),	      M(41, "MB"),
	M(42, "ME"),	      M(43, "IMU"),
	M(44, "IMP"),	      M(45, "GE"),
	M(46, "MDCFUSA"),     M(47, "CAMERA"),
	M(48, "ASCENDCL"),    M(49, "TEEOS"),
	M(50, "ISP"),	      M(51, "SIS"),
	M(52, "HSM"),	      M(53, "DSS"),
	M(54, "PROCMGR"),     M(55, "BBOX"),
	M(56, "AIVECTOR"),    M(57, "TBE"),
	M(58, "FV"),	      M(59, "MDCMAP"),
	M(60, "TUNE"),	      M(61, "HSS"),
	M(62, "FFTS"),	      M(63, "OP"),
	M(64, "UDF"),	      M(65, "HICAID"),
	M(66, "TSYNC"),	      M(67, "AUDIO"),
	M(68, "TPRT"),	      M(69, "ASCENDCKERNEL"),
	M(70, "ASYS"),	      M(71, "ATRACE"),
	M(72, "RTC"),	      M(73, "SYSMONITOR"),
	M(74, "AMP"),	      M(75, "ADETECT"),
	M(76, "MBUFF"),	      M(77, "CUSTOM"),
};

static const struct npuprof_db_enum_row enum_hccl_data_type[] = {
	M(0, "INT8"),	 M(1, "INT16"),	     M(2, "INT32"),   M(3, "FP16"),
	M(4, "FP32"),	 M(5, "INT64"),	     M(6, "UINT64"),  M(7, "UINT8"),
	M(8, "UINT16"),	 M(9, "UINT32"),     M(10, "FP64"),   M(11, "BFP16"),
	M(12, "INT128"), M(255, "RESERVED"), M(65534, "N/A"), M(65535, "INVALID_TYPE"),
};

static const struct npuprof_db_enum_row enum_hccl_link_type[] = {
	M(0, "ON_CHIP"),       M(1, "HCCS"),
	M(2, "PCIE"),	       M(3, "ROCE"),
	M(4, "SIO"),	       M(5, "HCCS_SW"),
	M(6, "STANDARD_ROCE"), M(255, "RESERVED"),
	M(65534, "N/A"),       M(65535, "INVALID_TYPE"),
};

static const struct npuprof_db_enum_row enum_hccl_transport_type[] = {
	M(0, "SDMA"),	    M(1, "RDMA"),    M(2, "LOCAL"),
	M(255, "RESERVED"), M(65534, "N/A"), M(65535, "INVALID_TYPE"),
};

static const struct npuprof_db_enum_row enum_hccl_rdma_type[] = {
	M(0, "RDMA_SEND_NOTIFY"), M(1, "RDMA_SEND_PAYLOAD"), M(255, "RESERVED"),
	M(65534, "N/A"),	  M(65535, "INVALID_TYPE"),
};

static const struct npuprof_db_enum_row enum_mstx_event_type[] = {
	M(0, "marker"),
	M(1, "push/pop"),
	M(2, "start/end"),
	M(3, "marker_ex"),
};

static const struct npuprof_db_enum_row enum_memcpy_operation[] = {
	M(0, "host to host"),	   M(1, "host to device"),    M(2, "device to host"),
	M(3, "device to device"),  M(4, "managed memory"),    M(5, "addr device to device"),
	M(6, "host to device ex"), M(7, "device to host ex"), M(65535, "other"),
};
#undef M
#undef BOTH

#define ENUM_ROWS_ENUM_API_TYPE enum_api_type, sizeof(enum_api_type) / sizeof(enum_api_type[0])
#define ENUM_ROWS_ENUM_MODULE enum_module, sizeof(enum_module) / sizeof(enum_module[0])
#define ENUM_ROWS_ENUM_HCCL_DATA_TYPE \
	enum_hccl_data_type, sizeof(enum_hccl_data_type) / sizeof(enum_hccl_data_type[0])
#define ENUM_ROWS_ENUM_HCCL_LINK_TYPE \
	enum_hccl_link_type, sizeof(enum_hccl_link_type) / sizeof(enum_hccl_link_type[0])
#define ENUM_ROWS_ENUM_HCCL_TRANSPORT_TYPE \
	enum_hccl_transport_type,          \
		sizeof(enum_hccl_transport_type) / sizeof(enum_hccl_transport_type[0])
#define ENUM_ROWS_ENUM_HCCL_RDMA_TYPE \
	enum_hccl_rdma_type, sizeof(enum_hccl_rdma_type) / sizeof(enum_hccl_rdma_type[0])
#define ENUM_ROWS_ENUM_MSTX_EVENT_TYPE \
	enum_mstx_event_type, sizeof(enum_mstx_event_type) / sizeof(enum_mstx_event_type[0])
#define ENUM_ROWS_ENUM_MEMCPY_OPERATION \
	enum_memcpy_operation, sizeof(enum_memcpy_operation) / sizeof(enum_memcpy_operation[0])

/* Only ENUM tables carry rows of their own. */
#define DEF_TABLE(ID, sfx, COLS, FLAGS)                                 \
	[NPUPROF_DB_##ID] = { NPUPROF_DB_##ID,                          \
			      #ID,                                      \
			      cols_##ID,                                \
			      sizeof(cols_##ID) / sizeof(cols_##ID[0]), \
			      sizeof(struct npuprof_db_##sfx),          \
			      (FLAGS),                                  \
			      ENUM_ROWS_OR_NONE_##COLS(ID) },
#define ENUM_ROWS_OR_NONE_ENUM(ID) ENUM_ROWS_##ID
#define ENUM_ROWS_OR_NONE_STRING_IDS(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_SESSION_TIME_INFO(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_NPU_INFO(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_HOST_INFO(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_TASK(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_COMPUTE_TASK_INFO(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_COMMUNICATION_TASK_INFO(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_COMMUNICATION_OP(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_CANN_API(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_AICORE_FREQ(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_ACC_PMU(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_SOC_BANDWIDTH_LEVEL(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_NETDEV(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_LLC(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_TASK_PMU_INFO(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_SAMPLE_PMU_TIMELINE(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_SAMPLE_PMU_SUMMARY(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_NPU_MEM(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_NPU_MODULE_MEM(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_NPU_OP_MEM(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_HBM(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_DDR(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_HCCS(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_PCIE(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_META_DATA(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_MSTX_EVENTS(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_COMMUNICATION_SCHEDULE_TASK_INFO(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_MEMCPY_INFO(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_PYTORCH_API(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_CONNECTION_IDS(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_PYTORCH_CALLCHAINS(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_MEMORY_RECORD(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_OP_MEMORY(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_RANK_DEVICE_MAP(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_STEP_TIME(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_GC_RECORD(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_COMM_ANALYZER_BANDWIDTH(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_COMM_ANALYZER_MATRIX(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_COMM_ANALYZER_TIME(ID) NULL, 0
#define ENUM_ROWS_OR_NONE_STEP_TRACE_TIME(ID) NULL, 0

const struct npuprof_db_table_def npuprof_db_tables[NPUPROF_DB_TABLE_COUNT] = {
	NPUPROF_DB_TABLE_LIST(DEF_TABLE)
};

/*
 * The only two indexes of the producer, created after their tables are
 * filled (the 2024-03-26 design: TASK keyed by a composite index rather
 * than a primary key).
 */
const struct npuprof_db_index npuprof_db_indexes[] = {
	{ "TaskIndex", NPUPROF_DB_TASK, "startNs,globalTaskId" },
	{ "CommunicationTaskIndex", NPUPROF_DB_COMMUNICATION_TASK_INFO, "globalTaskId" },
};
const unsigned npuprof_db_n_indexes = sizeof(npuprof_db_indexes) / sizeof(npuprof_db_indexes[0]);

static const struct npuprof_db_version versions[] = {
	[NPUPROF_DB_SCHEMA_1_1_1] = { "1.1.1", "1", "1", "1" },
	[NPUPROF_DB_SCHEMA_1_2_0] = { "1.2.0", "1", "2", "0" },
};

const struct npuprof_db_version *npuprof_dbschema_version(enum npuprof_db_schema s)
{
	if ((unsigned)s >= sizeof(versions) / sizeof(versions[0]))
		return NULL;
	return &versions[s];
}

const struct npuprof_db_table_def *npuprof_dbschema_table(enum npuprof_db_table t)
{
	if ((unsigned)t >= NPUPROF_DB_TABLE_COUNT)
		return NULL;
	return &npuprof_db_tables[t];
}

const struct npuprof_db_table_def *npuprof_dbschema_find(const char *name)
{
	for (unsigned i = 0; i < NPUPROF_DB_TABLE_COUNT; i++)
		if (strcmp(npuprof_db_tables[i].name, name) == 0)
			return &npuprof_db_tables[i];
	return NULL;
}

int npuprof_dbschema_table_exists(const struct npuprof_db_table_def *t, enum npuprof_db_schema s,
				  enum npuprof_db_variant v)
{
	if (v == NPUPROF_DB_ANALYSIS)
		return !!(t->flags & NPUPROF_DBT_ANALYSIS);
	if (t->flags & NPUPROF_DBT_ANALYSIS)
		return 0;
	if (v == NPUPROF_DB_PYTORCH)
		return 1;
	if (t->flags & NPUPROF_DBT_PYTORCH)
		return 0;
	return 1;
}

/* Append to buf at *pos; remembers overflow in *pos = len + 1. */
static void put(char *buf, size_t len, size_t *pos, const char *s)
{
	size_t n = strlen(s);

	if (*pos > len || n >= len - *pos) {
		*pos = len + 1;
		return;
	}
	memcpy(buf + *pos, s, n + 1);
	*pos += n;
}

int npuprof_dbschema_ddl(const struct npuprof_db_table_def *t, enum npuprof_db_schema s, char *buf,
			 size_t len)
{
	size_t pos = 0;
	int first = 1;

	/* The current producer's form: "IF NOT EXISTS" and ", " separators. */
	put(buf, len, &pos, "CREATE TABLE IF NOT EXISTS ");
	put(buf, len, &pos, t->name);
	put(buf, len, &pos, " (");
	for (unsigned i = 0; i < t->ncols; i++) {
		const struct npuprof_db_column *c = &t->cols[i];

		if (!c->sql[s])
			continue;
		if (!first)
			put(buf, len, &pos, ", ");
		first = 0;
		put(buf, len, &pos, c->sql[s]);
		put(buf, len, &pos, " ");
		put(buf, len, &pos, c->decl);
		if (c->flags & NPUPROF_DBC_PK)
			put(buf, len, &pos, " PRIMARY KEY");
	}
	put(buf, len, &pos, ")");
	return pos > len ? -1 : (int)pos;
}

int npuprof_dbschema_index_ddl(const struct npuprof_db_index *ix, char *buf, size_t len)
{
	int n = snprintf(buf, len, "CREATE INDEX IF NOT EXISTS %s ON %s (%s)", ix->name,
			 npuprof_db_tables[ix->table].name, ix->columns);

	return n < 0 || (size_t)n >= len ? -1 : n;
}
