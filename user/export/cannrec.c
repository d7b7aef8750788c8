/*
 * cannrec.c - msprof's parser rules over CANN's reporter records
 * (cannrec.h). The rules, read from Ascend/msprof analysis/csrc
 * (api_event_parser.cpp, api_event_db_dumper.cpp, event_grouper.cpp,
 * tree_builder.cpp, tree_analyzer.cpp, cann_trace_db_dumper.cpp,
 * number_mapping.cpp; facts in docs/ascend-reference.md §11.5):
 *
 *  - every MsprofApi is a CANN_API row, and so is every pair of MsprofEvents
 *    (the first of a (level, type, tid, requestId, itemId) starts it, the
 *    next ends it); an API with beginTime 0 is dropped. Its name is the
 *    registered name of (level, type), except at the HCCL level (the itemId
 *    string); an unregistered type is named by its number. Its
 *    connectionId is the export's own counter, in start order;
 *  - compact and additional reports are told apart by the name their
 *    (level, type) was registered with (profiling/npuprof_ext.h);
 *  - the tree of a thread: its ACL, MODEL, NODE and HCCL-level APIs with
 *    beginTime < endTime, by containment (runtime-level APIs are never tree
 *    nodes). Node basic info, tensor info, context ids and HCCL op info
 *    belong to the innermost NODE-level API that contains their time, HCCL
 *    task info to the innermost HCCL-level one;
 *  - a task track gets the connectionId of the NODE-level API that contains
 *    it, else of the innermost tree API, else none; its type is the
 *    registered runtime-level name of its task type; its key is (device,
 *    stream, taskId & 0xffff, batch = taskId >> 16);
 *  - a node's operator (basic info, its tensors concatenated over the
 *    records of one (opName, time), its first context id) describes the
 *    last task track of the node; formats and dtypes are named as msprof
 *    names them, shapes joined as it joins them;
 *  - a node with HCCL op info or HCCL tasks is a communication op named by
 *    its basic info's opName (else its itemId: the same name in CANN's
 *    reports), with the node's times and connectionId and the basic
 *    info's opType, and no operator (msprof's databases have no
 *    COMPUTE_TASK_INFO row of a collective: tests/fixtures/real); each
 *    MsprofHcclInfo is one HCCL task of the latest track of its HCCL-level
 *    API (or, without one, of its node) not after it;
 *  - memcpy info (801) gives size and direction to the track of the same
 *    runtime API (same thread, stream); npuprof_task_ext to the track it
 *    follows;
 *  - the framework layer's npuprof_fwk_op / _mem / _gc (npuprof_ext.h)
 *    become the records of the PyTorch database's framework tables.
 */
#include "cannrec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npuprof/msprof_ids.h"
#include "npuprof/rank.h"
#include "profiling/npuprof_ext.h"
#include "profiling/prof_common.h"
#include "u64map.h"

_Static_assert(sizeof(struct NpuprofTaskExt) == MSPROF_COMPACT_INFO_DATA_LENGTH,
	       "npuprof_task_ext fills the compact data area");
_Static_assert(sizeof(struct NpuprofFwkOp) == 56 && sizeof(struct NpuprofFwkMem) == 64 &&
		       sizeof(struct NpuprofFwkGc) == 16,
	       "the framework payloads are laid out as npuprof_ext.h says");

enum cls {
	C_NONE,
	C_TRACK,
	C_TRACK2,
	C_MEMCPY,
	C_BASIC,
	C_HOPINFO,
	C_EXT,
	A_TENSOR,
	A_CTX,
	A_HCCL,
	A_FWK_OP,
	A_FWK_MEM,
	A_FWK_GC,
};

struct cx_type {
	uint64_t key; /* level << 32 | type */
	char *name;
};

struct cx_api {
	uint64_t begin, end, item, conn;
	uint32_t tid, type, seq;
	uint16_t level;
};

/* a report with a payload (compact: 40 bytes, additional: 232) */
struct cx_info {
	uint64_t ts;
	uint32_t tid, type, seq, len;
	uint16_t level;
	uint8_t cls, add;
	uint32_t data; /* offset into cann_file.blob */
};

struct cx_pev { /* an MsprofEvent start waiting for its end */
	struct MsprofEvent e;
	uint32_t seq, next; /* next: same hash; UINT32_MAX end */
	uint8_t live;
};

struct cann_file {
	uint32_t pid;
	cann_str_fn str;
	void *str_ctx;
	struct cx_type *types;
	size_t ntypes, captypes;
	struct u64map type_at;
	struct cx_api *api;
	size_t napi, capapi;
	struct cx_pev *pev;
	size_t npev, cappev;
	struct u64map pev_at; /* hash -> first of the chain */
	struct cx_info *info;
	size_t ninfo, capinfo;
	uint8_t *blob;
	size_t nblob, capblob;
	uint32_t seq;
	uint64_t reports, unpaired_seen;
	struct cann_stats st;
};

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 64;

	while (nc < need)
		nc *= 2;
	void *n = realloc(*p, nc * size);

	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = nc;
	return 0;
}

struct cann_file *cann_open(uint32_t pid, cann_str_fn str, void *str_ctx)
{
	struct cann_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->pid = pid;
	f->str = str;
	f->str_ctx = str_ctx;
	u64map_init(&f->type_at);
	u64map_init(&f->pev_at);
	return f;
}

void cann_close(struct cann_file *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->ntypes; i++)
		free(f->types[i].name);
	free(f->types);
	u64map_free(&f->type_at);
	u64map_free(&f->pev_at);
	free(f->api);
	free(f->pev);
	free(f->info);
	free(f->blob);
	free(f);
}

uint64_t cann_reports(const struct cann_file *f)
{
	return f ? f->reports : 0;
}

static int known_level(uint32_t level)
{
	switch (level) {
	case MSPROF_REPORT_PYTORCH_LEVEL:
	case MSPROF_REPORT_PTA_LEVEL:
	case MSPROF_REPORT_TX_LEVEL:
	case MSPROF_REPORT_ACL_LEVEL:
	case MSPROF_REPORT_MODEL_LEVEL:
	case MSPROF_REPORT_NODE_LEVEL:
	case MSPROF_REPORT_AICPU_LEVEL:
	case MSPROF_REPORT_HCCL_NODE_LEVEL:
	case MSPROF_REPORT_RUNTIME_LEVEL:
	case MSPROF_REPORT_PROF_LEVEL:
	case MSPROF_REPORT_DPU_LEVEL:
	case MSPROF_REPORT_AIC_LEVEL:
	case NPUPROF_EXT_LEVEL: return 1;
	}
	return 0;
}

static uint64_t type_key(uint32_t level, uint32_t type)
{
	return (uint64_t)level << 32 | type;
}

static const char *type_name(const struct cann_file *f, uint32_t level, uint32_t type)
{
	uint64_t v;

	if (!u64map_get(&f->type_at, type_key(level, type), &v))
		return NULL;
	return f->types[v].name;
}

static uint64_t ev_hash(const struct MsprofEvent *e)
{
	uint64_t h = ((uint64_t)e->level << 48) ^ ((uint64_t)e->type << 16) ^ e->threadId;

	h = (h ^ ((uint64_t)e->requestId << 32)) * 0x9e3779b97f4a7c15ULL;
	h = (h ^ e->itemId) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 31);
}

static int same_ev(const struct MsprofEvent *a, const struct MsprofEvent *b)
{
	return a->level == b->level && a->type == b->type && a->threadId == b->threadId &&
	       a->requestId == b->requestId && a->itemId == b->itemId;
}

static int add_api(struct cann_file *f, uint16_t level, uint32_t type, uint32_t tid, uint64_t begin,
		   uint64_t end, uint64_t item, uint32_t seq)
{
	if (grow((void **)&f->api, &f->capapi, f->napi + 1, sizeof(*f->api)))
		return -ENOMEM;
	f->api[f->napi++] = (struct cx_api){ .begin = begin,
					     .end = end,
					     .item = item,
					     .tid = tid,
					     .type = type,
					     .seq = seq,
					     .level = level };
	return 0;
}

static int add_event(struct cann_file *f, const struct MsprofEvent *e, uint32_t seq)
{
	uint64_t h = ev_hash(e), v;
	uint32_t prev = UINT32_MAX;

	if (u64map_get(&f->pev_at, h, &v)) {
		for (uint32_t i = (uint32_t)v; i != UINT32_MAX; prev = i, i = f->pev[i].next) {
			struct cx_pev *p = &f->pev[i];

			if (!same_ev(&p->e, e))
				continue;
			/* the end: unlink the start */
			if (prev == UINT32_MAX) {
				if (p->next == UINT32_MAX)
					u64map_del(&f->pev_at, h);
				else if (u64map_put(&f->pev_at, h, p->next) < 0)
					return -ENOMEM;
			} else {
				f->pev[prev].next = p->next;
			}
			p->live = 0;
			return add_api(f, p->e.level, p->e.type, p->e.threadId, p->e.timeStamp,
				       e->timeStamp, p->e.itemId, p->seq);
		}
	}
	if (f->npev >= UINT32_MAX - 1 ||
	    grow((void **)&f->pev, &f->cappev, f->npev + 1, sizeof(*f->pev)))
		return -ENOMEM;
	f->pev[f->npev] = (struct cx_pev){ .e = *e, .seq = seq, .next = UINT32_MAX, .live = 1 };
	/* a new start goes first in its chain: an end takes the latest start */
	if (u64map_get(&f->pev_at, h, &v))
		f->pev[f->npev].next = (uint32_t)v;
	if (u64map_put(&f->pev_at, h, f->npev) < 0)
		return -ENOMEM;
	f->npev++;
	return 0;
}

int cann_add(struct cann_file *f, const struct npuprof_hostfmt_header *rec)
{
	uint32_t seq = f->seq++;

	if (rec->kind == NPUPROF_HOSTFMT_MSPROF_TYPE) {
		const struct npuprof_hostfmt_msprof_type *t = (const void *)rec;
		uint64_t k = type_key(t->level, t->type_id);

		char *name;

		if (u64map_get(&f->type_at, k, NULL))
			return 0; /* the first registration holds */
		if (grow((void **)&f->types, &f->captypes, f->ntypes + 1, sizeof(*f->types)))
			return -ENOMEM;
		name = strndup(t->name, t->len);
		if (!name)
			return -ENOMEM;
		f->types[f->ntypes] = (struct cx_type){ k, name };
		if (u64map_put(&f->type_at, k, f->ntypes) < 0) {
			free(name);
			return -ENOMEM;
		}
		f->ntypes++;
		return 0;
	}
	if (rec->kind < NPUPROF_HOSTFMT_MSPROF_API || rec->kind > NPUPROF_HOSTFMT_MSPROF_ADDITIONAL)
		return 0;
	const struct npuprof_hostfmt_msprof *m = (const void *)rec;

	f->reports++;
	switch (rec->kind) {
	case NPUPROF_HOSTFMT_MSPROF_API: {
		struct MsprofApi a;

		memcpy(&a, m->data, sizeof(a));
		if (!known_level(a.level)) {
			f->st.unknown_level++;
			return 0;
		}
		if (!a.beginTime) {
			f->st.zero_begin++;
			return 0;
		}
		return add_api(f, a.level, a.type, a.threadId, a.beginTime, a.endTime, a.itemId,
			       seq);
	}
	case NPUPROF_HOSTFMT_MSPROF_EVENT: {
		struct MsprofEvent e;

		memcpy(&e, m->data, sizeof(e));
		if (!known_level(e.level)) {
			f->st.unknown_level++;
			return 0;
		}
		return add_event(f, &e, seq);
	}
	}
	/* compact or additional: the same head */
	struct MsprofAdditionalInfo x;
	int add = rec->kind == NPUPROF_HOSTFMT_MSPROF_ADDITIONAL;
	uint32_t area = add ? MSPROF_ADDTIONAL_INFO_DATA_LENGTH : MSPROF_COMPACT_INFO_DATA_LENGTH;

	memcpy(&x, m->data, offsetof(struct MsprofAdditionalInfo, data));
	if (!known_level(x.level)) {
		f->st.unknown_level++;
		return 0;
	}
	if (grow((void **)&f->info, &f->capinfo, f->ninfo + 1, sizeof(*f->info)) ||
	    grow((void **)&f->blob, &f->capblob, f->nblob + area, 1))
		return -ENOMEM;
	if (f->nblob + area > UINT32_MAX)
		return -EOVERFLOW;
	memcpy(f->blob + f->nblob, m->data + offsetof(struct MsprofAdditionalInfo, data), area);
	f->info[f->ninfo++] = (struct cx_info){ .ts = x.timeStamp,
						.tid = x.threadId,
						.type = x.type,
						.seq = seq,
						.len = x.dataLen,
						.level = x.level,
						.add = (uint8_t)add,
						.data = (uint32_t)f->nblob };
	f->nblob += area;
	return 0;
}

/* ---- msprof's names for GE's numbers (number_mapping.cpp) ---------------- */

static const char *const g_ge_dtype[] = {
	[0] = "FLOAT",		 [1] = "FLOAT16",	  [2] = "INT8",
	[3] = "INT32",		 [4] = "UINT8",		  [6] = "INT16",
	[7] = "UINT16",		 [8] = "UINT32",	  [9] = "INT64",
	[10] = "UINT64",	 [11] = "DOUBLE",	  [12] = "BOOL",
	[13] = "STRING",	 [14] = "DUAL_SUB_INT8",  [15] = "DUAL_SUB_UINT8",
	[16] = "COMPLEX64",	 [17] = "COMPLEX128",	  [18] = "QINT8",
	[19] = "QINT16",	 [20] = "QINT32",	  [21] = "QUINT8",
	[22] = "QUINT16",	 [23] = "RESOURCE",	  [24] = "STRING_REF",
	[25] = "DUAL",		 [26] = "DT_VARIANT",	  [27] = "DT_BF16",
	[28] = "DT_UNDEFINED",	 [29] = "DT_INT4",	  [30] = "DT_UINT1",
	[31] = "DT_INT2",	 [32] = "DT_UINT2",	  [33] = "DT_COMPLEX32",
	[34] = "DT_HIFLOAT8",	 [35] = "DT_FLOAT8_E5M2", [36] = "DT_FLOAT8_E4M3FN",
	[37] = "DT_FLOAT8_E8M0", [38] = "DT_FLOAT6_E3M2", [39] = "DT_FLOAT6_E2M3",
	[40] = "DT_FLOAT4_E2M1", [41] = "DT_FLOAT4_E1M2", [42] = "DT_MAX",
};

/* GE formats as msprof names them: ND as FORMAT_ND, the others bare (the
 * real databases of tests/fixtures/real) */
static const char *const g_ge_format[] = {
	[0] = "NCHW",
	[1] = "NHWC",
	[2] = "FORMAT_ND",
	[3] = "NC1HWC0",
	[4] = "FRACTAL_Z",
	[5] = "NC1C0HWPAD",
	[6] = "NHWC1C0",
	[7] = "FSR_NCHW",
	[8] = "FRACTAL_DECONV",
	[9] = "C1HWNC0",
	[10] = "FRACTAL_DECONV_TRANSPOSE",
	[11] = "FRACTAL_DECONV_SP_STRIDE_TRANS",
	[12] = "NC1HWC0_C04",
	[13] = "FRACTAL_Z_C04",
	[14] = "CHWN",
	[15] = "FRACTAL_DECONV_SP_STRIDE8_TRANS",
	[16] = "HWCN",
	[17] = "NC1KHKWHWC0",
	[18] = "BN_WEIGHT",
	[19] = "FILTER_HWCK",
	[20] = "HASHTABLE_LOOKUP_LOOKUPS",
	[21] = "HASHTABLE_LOOKUP_KEYS",
	[22] = "HASHTABLE_LOOKUP_VALUE",
	[23] = "HASHTABLE_LOOKUP_OUTPUT",
	[24] = "HASHTABLE_LOOKUP_HITS",
	[25] = "C1HWNCoC0",
	[26] = "MD",
	[27] = "NDHWC",
	[28] = "FRACTAL_ZZ",
	[29] = "FRACTAL_NZ",
	[30] = "NCDHW",
	[31] = "DHWCN",
	[32] = "NDC1HWC0",
	[33] = "FRACTAL_Z_3D",
	[34] = "CN",
	[35] = "NC",
	[36] = "DHWNC",
	[37] = "FRACTAL_Z_3D_TRANSPOSE",
	[38] = "FRACTAL_ZN_LSTM",
	[39] = "FRACTAL_Z_G",
	[40] = "RESERVED",
	[41] = "ALL",
	[42] = "NULL",
	[43] = "ND_RNN_BIAS",
	[44] = "FRACTAL_ZN_RNN",
	[45] = "END",
	[47] = "NCL",
	[48] = "FRACTAL_Z_WINO",
	[49] = "C1HWC0",
	[50] = "FRACTAL_NZ_C0_16",
	[51] = "FRACTAL_NZ_C0_32",
	[52] = "FRACTAL_NZ_C0_2",
	[53] = "FRACTAL_NZ_C0_4",
	[54] = "FRACTAL_NZ_C0_8",
	[55] = "END",
	[0xff] = "MAX",
};

static const char *const g_ge_task[] = {
	"AI_CORE",   "AI_CPU",	"AI_VECTOR_CORE", "WRITE_BACK",	   "MIX_AIC", "MIX_AIV",
	"FFTS_PLUS", "DSA_SQE", "DVPP",		  "COMMUNICATION", "FUSION",  "INVALID",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* A name of a table, else the number (msprof's NumberMapping::Get). */
static const char *number_name(const char *const *tab, size_t n, uint32_t v, char *num)
{
	if (v < n && tab[v])
		return tab[v];
	snprintf(num, 16, "%" PRIu32, v);
	return num;
}

static const char *dtype_name(uint32_t v, char *num)
{
	return v == UINT32_MAX ? "UNDEFINED" : number_name(g_ge_dtype, NELEM(g_ge_dtype), v, num);
}

static const char *ge_task_name(uint32_t v, char *num)
{
	return v == 256 ? "HCCL_AI_CPU" : number_name(g_ge_task, NELEM(g_ge_task), v, num);
}

/* A tensor's format: the low byte names the format, bits 8-23 a sub-format
 * appended as ":<n>" when not 0; UINT32_MAX is UNDEFINED. */
static void format_name(uint32_t v, char *out, size_t len)
{
	char num[16];

	if (v == UINT32_MAX) {
		snprintf(out, len, "UNDEFINED");
		return;
	}
	const char *n = number_name(g_ge_format, NELEM(g_ge_format), v & 0xff, num);
	uint32_t sub = (v & 0xffff00) >> 8;

	if (sub)
		snprintf(out, len, "%s:%" PRIu32, n, sub);
	else
		snprintf(out, len, "%s", n);
}

/* ---- the composed strings --------------------------------------------------- */

struct sbuf {
	char *s;
	size_t n, cap;
	int err;
};

static void sb_add(struct sbuf *b, const char *s)
{
	size_t l = strlen(s);

	if (b->err)
		return;
	if (grow((void **)&b->s, &b->cap, b->n + l + 1, 1)) {
		b->err = -ENOMEM;
		return;
	}
	memcpy(b->s + b->n, s, l + 1);
	b->n += l;
}

/* ---- the output stream ----------------------------------------------------- */

struct orec {
	uint64_t t;
	uint32_t tid, seq;
	size_t off;
	uint32_t size;
};

struct out {
	struct cann_file *f;
	uint8_t *stage; /* the records, 8-aligned */
	size_t nstage, capstage;
	struct orec *rec;
	size_t nrec, caprec;
	struct u64map str_at; /* composed string ids -> 1 */
	char **strs;
	uint64_t *str_ids;
	size_t nstr, capstr, capids;
	int err;
};

/* Room for a record of `size` bytes of thread tid at merge time t, zeroed
 * with its header set; NULL on ENOMEM (o->err). */
static void *out_rec(struct out *o, uint16_t kind, uint32_t size, uint32_t tid, uint64_t t)
{
	size = npuprof_hostfmt_size(size, 0);
	if (o->err)
		return NULL;
	if (grow((void **)&o->stage, &o->capstage, o->nstage + size, 1) ||
	    grow((void **)&o->rec, &o->caprec, o->nrec + 1, sizeof(*o->rec))) {
		o->err = -ENOMEM;
		return NULL;
	}
	struct npuprof_hostfmt_header *h = (void *)(o->stage + o->nstage);

	memset(h, 0, size);
	h->size = size;
	h->kind = kind;
	o->rec[o->nrec] = (struct orec){
		.t = t, .tid = tid, .seq = (uint32_t)o->nrec, .off = o->nstage, .size = size
	};
	o->nrec++;
	o->nstage += size;
	return h;
}

static uint64_t fnv(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
	return h;
}

/* The id of a composed string: its hash, moved on past any id that names
 * another string (in the session's HASH records or among those composed
 * here); its HASH record is written with the stream (build_stream). */
static uint64_t intern(struct out *o, const char *s)
{
	uint64_t id = fnv(s), v;

	if (o->err)
		return NPUPROF_HOSTFMT_NO_STRING;
	for (;; id++) {
		const char *have;

		if (id == NPUPROF_HOSTFMT_NO_STRING)
			continue;
		if (u64map_get(&o->str_at, id, &v)) {
			if (!strcmp(o->strs[v], s))
				return id;
			continue;
		}
		have = o->f->str ? o->f->str(o->f->str_ctx, id) : NULL;
		if (have && strcmp(have, s))
			continue;
		break;
	}
	char *c = strdup(s);

	if (!c || grow((void **)&o->strs, &o->capstr, o->nstr + 1, sizeof(*o->strs)) ||
	    grow((void **)&o->str_ids, &o->capids, o->nstr + 1, sizeof(*o->str_ids)) ||
	    u64map_put(&o->str_at, id, o->nstr) < 0) {
		free(c);
		o->err = -ENOMEM;
		return NPUPROF_HOSTFMT_NO_STRING;
	}
	o->str_ids[o->nstr] = id;
	o->strs[o->nstr++] = c;
	return id;
}

static uint64_t intern_num(struct out *o, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	return intern(o, num);
}

/* ---- the rules ------------------------------------------------------------- */

static int is_tree(const struct cx_api *a)
{
	return (a->level == MSPROF_REPORT_ACL_LEVEL || a->level == MSPROF_REPORT_MODEL_LEVEL ||
		a->level == MSPROF_REPORT_NODE_LEVEL ||
		a->level == MSPROF_REPORT_HCCL_NODE_LEVEL) &&
	       a->begin < a->end;
}

static int cmp_conn(const void *x, const void *y, void *ctx)
{
	const struct cann_file *g_sort = ctx;

	const struct cx_api *a = &g_sort->api[*(const uint32_t *)x];
	const struct cx_api *b = &g_sort->api[*(const uint32_t *)y];

	if (a->begin != b->begin)
		return a->begin < b->begin ? -1 : 1;
	if (a->level != b->level)
		return a->level > b->level ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int cmp_tree(const void *x, const void *y, void *ctx)
{
	const struct cann_file *g_sort = ctx;

	const struct cx_api *a = &g_sort->api[*(const uint32_t *)x];
	const struct cx_api *b = &g_sort->api[*(const uint32_t *)y];

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->begin != b->begin)
		return a->begin < b->begin ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1; /* outer first */
	if (a->level != b->level)
		return a->level > b->level ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int cmp_query(const void *x, const void *y, void *ctx)
{
	const struct cann_file *g_sort = ctx;

	const struct cx_info *a = &g_sort->info[*(const uint32_t *)x];
	const struct cx_info *b = &g_sort->info[*(const uint32_t *)y];

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int cmp_out(const void *x, const void *y)
{
	const struct orec *a = x, *b = y;

	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Where a report stands in its thread's tree (api indexes, -1 none). */
struct place {
	int32_t node, inner, hccl, rt;
};

static uint8_t classify(struct cann_file *f, struct cx_info *in)
{
	const char *n = type_name(f, in->level, in->type);
	uint32_t need = 0;
	uint8_t c = C_NONE;

	if (!n) {
		f->st.unregistered++;
		return C_NONE;
	}
	if (!in->add) {
		if (in->level == MSPROF_REPORT_RUNTIME_LEVEL &&
		    !strcmp(n, NPUPROF_CANN_TASK_TRACK_NAME))
			c = C_TRACK, need = offsetof(struct MsprofRuntimeTrack, extInfo);
		else if (in->level == MSPROF_REPORT_RUNTIME_LEVEL &&
			 !strcmp(n, NPUPROF_CANN_TASK_TRACK_V2_NAME))
			c = C_TRACK2, need = offsetof(struct MsprofRuntimeTrackV2, extInfo);
		else if (in->level == MSPROF_REPORT_RUNTIME_LEVEL &&
			 !strcmp(n, NPUPROF_CANN_MEMCPY_INFO_NAME))
			c = C_MEMCPY, need = sizeof(struct MsprofMemcpyInfo);
		else if (in->level == MSPROF_REPORT_NODE_LEVEL &&
			 !strcmp(n, NPUPROF_CANN_NODE_BASIC_INFO_NAME))
			c = C_BASIC, need = sizeof(struct MsprofNodeBasicInfo);
		else if (in->level == MSPROF_REPORT_NODE_LEVEL &&
			 !strcmp(n, NPUPROF_CANN_HCCL_OP_INFO_NAME))
			c = C_HOPINFO, need = sizeof(struct MsprofHCCLOPInfo);
		else if (in->level == NPUPROF_EXT_LEVEL && in->type == NPUPROF_EXT_TASK_TYPE)
			c = C_EXT, need = sizeof(struct NpuprofTaskExt);
	} else {
		const uint8_t *d = f->blob + in->data;

		if (in->level == MSPROF_REPORT_NODE_LEVEL &&
		    !strcmp(n, NPUPROF_CANN_TENSOR_INFO_NAME)) {
			uint32_t num;

			memcpy(&num, d + offsetof(struct MsprofTensorInfo, tensorNum), sizeof(num));
			c = A_TENSOR;
			need = num > MSPROF_GE_TENSOR_DATA_NUM ?
				       UINT32_MAX :
				       (uint32_t)(offsetof(struct MsprofTensorInfo, tensorData) +
						  num * sizeof(struct MsrofTensorData));
		} else if (in->level == MSPROF_REPORT_NODE_LEVEL &&
			   !strcmp(n, NPUPROF_CANN_CONTEXT_ID_NAME)) {
			uint32_t num;

			memcpy(&num, d + offsetof(struct MsprofContextIdInfo, ctxIdNum),
			       sizeof(num));
			c = A_CTX;
			need = num > MSPROF_CTX_ID_MAX_NUM ?
				       UINT32_MAX :
				       (uint32_t)(offsetof(struct MsprofContextIdInfo, ctxIds) +
						  num * sizeof(uint32_t));
		} else if (!strcmp(n, NPUPROF_CANN_HCCL_INFO_NAME)) {
			c = A_HCCL, need = sizeof(struct MsprofHcclInfo);
		} else if (in->level == NPUPROF_EXT_LEVEL && !strcmp(n, NPUPROF_EXT_FWK_OP_NAME)) {
			c = A_FWK_OP, need = sizeof(struct NpuprofFwkOp);
		} else if (in->level == NPUPROF_EXT_LEVEL && !strcmp(n, NPUPROF_EXT_FWK_MEM_NAME)) {
			c = A_FWK_MEM, need = sizeof(struct NpuprofFwkMem);
		} else if (in->level == NPUPROF_EXT_LEVEL && !strcmp(n, NPUPROF_EXT_FWK_GC_NAME)) {
			c = A_FWK_GC, need = sizeof(struct NpuprofFwkGc);
		}
	}
	if (c != C_NONE && in->len < need) {
		f->st.bad_payload++;
		return C_NONE;
	}
	return c;
}

/* The containment sweep: for every classified report, the innermost
 * NODE-level, tree, HCCL-level and runtime-level API of its thread that
 * contains its time. */
static int sweep(struct cann_file *f, struct place *pl)
{
	uint32_t *ai = malloc((f->napi + 1) * sizeof(*ai));
	uint32_t *qi = malloc((f->ninfo + 1) * sizeof(*qi));
	uint32_t *stack = NULL;
	size_t na = 0, nq = 0, ns = 0, caps = 0, j = 0;
	int ret = 0;

	if (!ai || !qi) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < f->napi; i++)
		if (f->api[i].begin <= f->api[i].end)
			ai[na++] = (uint32_t)i;
	for (size_t i = 0; i < f->ninfo; i++) {
		pl[i] = (struct place){ -1, -1, -1, -1 };
		if (f->info[i].cls != C_NONE)
			qi[nq++] = (uint32_t)i;
	}
	if (na > 1)
		qsort_r(ai, na, sizeof(*ai), cmp_tree, f);
	if (nq > 1)
		qsort_r(qi, nq, sizeof(*qi), cmp_query, f);
	for (size_t k = 0; k < nq; k++) {
		const struct cx_info *q = &f->info[qi[k]];
		struct place *p = &pl[qi[k]];

		if (k && f->info[qi[k - 1]].tid != q->tid)
			ns = 0; /* another thread */
		while (j < na && f->api[ai[j]].tid < q->tid)
			j++;
		while (j < na && f->api[ai[j]].tid == q->tid && f->api[ai[j]].begin <= q->ts) {
			if (grow((void **)&stack, &caps, ns + 1, sizeof(*stack))) {
				ret = -ENOMEM;
				goto out;
			}
			stack[ns++] = ai[j++];
		}
		while (ns && f->api[stack[ns - 1]].end < q->ts)
			ns--;
		for (size_t s = ns; s-- > 0;) {
			const struct cx_api *a = &f->api[stack[s]];

			if (a->end < q->ts || a->tid != q->tid)
				continue;
			if (a->level == MSPROF_REPORT_RUNTIME_LEVEL) {
				if (p->rt < 0)
					p->rt = (int32_t)stack[s];
				continue;
			}
			if (!is_tree(a))
				continue;
			if (p->inner < 0)
				p->inner = (int32_t)stack[s];
			if (a->level == MSPROF_REPORT_NODE_LEVEL && p->node < 0)
				p->node = (int32_t)stack[s];
			if (a->level == MSPROF_REPORT_HCCL_NODE_LEVEL && p->hccl < 0 && p->node < 0)
				p->hccl = (int32_t)stack[s];
		}
	}
out:
	free(ai);
	free(qi);
	free(stack);
	return ret;
}

struct trk {
	struct npuprof_hostfmt_task_track r;
	uint32_t info; /* its report */
	uint32_t raw_task; /* taskId as reported */
	uint32_t next_node, next_hccl; /* chains of the tracks of one api */
	uint8_t ext;
};

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;

	return h ^ (h >> 29);
}

static uint64_t trk_hash(uint32_t tid, uint32_t dev, uint32_t stream, uint32_t task)
{
	return mix(mix((uint64_t)tid << 32 | dev, stream), task);
}

static uint16_t enum16(uint32_t v)
{
	return v > 0xffff ? (uint16_t)NPUPROF_ENUM_INVALID : (uint16_t)v;
}

/* The tensor strings of one operator: formats, dtypes, shapes of its inputs
 * and of its outputs, joined as msprof joins them. */
static void tensor_strings(struct out *o, const struct cann_file *f, const uint32_t *grp,
			   size_t ngrp, uint64_t ids[6])
{
	struct sbuf b[6] = { { 0 } };
	size_t cnt[2] = { 0, 0 };

	for (size_t g = 0; g < ngrp; g++) {
		struct MsprofTensorInfo ti;

		memset(&ti, 0, sizeof(ti));
		memcpy(&ti, f->blob + f->info[grp[g]].data,
		       f->info[grp[g]].len < sizeof(ti) ? f->info[grp[g]].len : sizeof(ti));
		for (uint32_t t = 0; t < ti.tensorNum && t < MSPROF_GE_TENSOR_DATA_NUM; t++) {
			const struct MsrofTensorData *d = &ti.tensorData[t];
			int io = d->tensorType == MSPROF_GE_TENSOR_TYPE_INPUT  ? 0 :
				 d->tensorType == MSPROF_GE_TENSOR_TYPE_OUTPUT ? 1 :
										 -1;
			char fmt[64], num[16], dim[16];

			if (io < 0)
				continue;
			if (cnt[io]++) {
				for (int k = 0; k < 3; k++)
					sb_add(&b[io * 3 + k], ";");
			}
			format_name(d->format, fmt, sizeof(fmt));
			sb_add(&b[io * 3], fmt);
			sb_add(&b[io * 3 + 1], dtype_name(d->dataType, num));
			for (int s = 0; s < MSPROF_GE_TENSOR_DATA_SHAPE_LEN && d->shape[s]; s++) {
				snprintf(dim, sizeof(dim), s ? ",%" PRIu32 : "%" PRIu32,
					 d->shape[s]);
				sb_add(&b[io * 3 + 2], dim);
			}
			if (!b[io * 3 + 2].s)
				sb_add(&b[io * 3 + 2], ""); /* a scalar */
		}
	}
	for (int k = 0; k < 6; k++) {
		ids[k] = NPUPROF_HOSTFMT_NO_STRING;
		if (b[k].err)
			o->err = b[k].err;
		else if (cnt[k / 3]) {
			if (k % 3 == 2) {
				struct sbuf q = { 0 };

				sb_add(&q, "\"");
				sb_add(&q, b[k].s ? b[k].s : "");
				sb_add(&q, "\"");
				if (q.err)
					o->err = q.err;
				else
					ids[k] = intern(o, q.s);
				free(q.s);
			} else {
				ids[k] = intern(o, b[k].s ? b[k].s : "");
			}
		}
		free(b[k].s);
	}
}

static int build_stream(struct out *o, const struct npuprof_hostfmt_file_header *fh, uint8_t **buf,
			size_t *len)
{
	struct npuprof_hostfmt_file_header h = *fh;
	uint8_t *b = NULL;
	size_t n = 0, cap = 0;
	uint64_t seq = 0;
	struct npuprof_hostfmt_end *e;

	for (size_t i = 0; i < o->nstr && !o->err; i++) {
		size_t l = strlen(o->strs[i]);
		struct npuprof_hostfmt_hash *r;

		if (l > UINT32_MAX - 64)
			return -EOVERFLOW;
		r = out_rec(o, NPUPROF_HOSTFMT_HASH,
			    (uint32_t)(offsetof(struct npuprof_hostfmt_hash, str) + l + 1), 0, 0);
		if (!r)
			break;
		r->id = o->str_ids[i];
		r->len = (uint32_t)l;
		memcpy(r->str, o->strs[i], l);
	}
	e = out_rec(o, NPUPROF_HOSTFMT_END, sizeof(*e), 0, UINT64_MAX);
	if (o->err)
		return o->err;
	e->records = o->nrec;
	if (o->nrec > 1)
		qsort(o->rec, o->nrec, sizeof(*o->rec), cmp_out);
	h.flags = 0;
	h.header_size = sizeof(h); /* (a newer writer's longer header is not copied) */
	if (grow((void **)&b, &cap, sizeof(h), 1))
		return -ENOMEM;
	memcpy(b, &h, sizeof(h));
	n = sizeof(h);
	for (size_t i = 0; i < o->nrec;) {
		struct npuprof_hostfmt_block_header bh = { .magic = NPUPROF_HOSTFMT_BLOCK_MAGIC,
							   .tid = o->rec[i].tid,
							   .seq = seq++ };
		size_t at = n + sizeof(bh), size = 0, k = i;

		while (k < o->nrec && o->rec[k].tid == bh.tid &&
		       (size == 0 || size + o->rec[k].size <= (64u << 10)))
			size += o->rec[k++].size;
		if (grow((void **)&b, &cap, at + size, 1)) {
			free(b);
			return -ENOMEM;
		}
		for (size_t r = i, p = at; r < k; p += o->rec[r].size, r++)
			memcpy(b + p, o->stage + o->rec[r].off, o->rec[r].size);
		bh.size = (uint32_t)size;
		bh.crc = npuprof_hostfmt_block_crc(&bh, b + at);
		memcpy(b + n, &bh, sizeof(bh));
		n = at + size;
		i = k;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* The name of node n's communication op: its basic info's opName (the
 * op's name, as the node's itemId is in CANN's reports; a replay's node
 * has no itemId), else the itemId, else "0". */
static uint64_t comm_name(struct out *o, const struct cann_file *f, const struct cx_api *a,
			  int32_t basic)
{
	uint64_t op = 0;

	if (basic >= 0)
		memcpy(&op,
		       f->blob + f->info[basic].data + offsetof(struct MsprofNodeBasicInfo, opName),
		       sizeof(op));
	return op ? op : a->item ? a->item : intern(o, "0");
}

/* The framework layer's reports (npuprof_ext.h) as the records the
 * framework tables are made from, each at its end (a thread's nested ops
 * innermost first, as they are reported). */
static void framework_records(struct out *o, struct cann_file *f)
{
	for (size_t i = 0; i < f->ninfo && !o->err; i++) {
		const struct cx_info *in = &f->info[i];
		const uint8_t *d = f->blob + in->data;

		if (in->cls == A_FWK_OP) {
			struct NpuprofFwkOp x;
			struct npuprof_hostfmt_fwk_op *r;

			memcpy(&x, d, sizeof(x));
			if (x.durationNs > UINT64_MAX - in->ts) {
				f->st.bad_payload++;
				continue;
			}
			r = out_rec(o, NPUPROF_HOSTFMT_FWK_OP, sizeof(*r), in->tid,
				    in->ts + x.durationNs);
			if (!r)
				return;
			r->tid = in->tid;
			r->fwd_tid = x.fwdThreadId;
			r->start_ns = in->ts;
			r->end_ns = in->ts + x.durationNs;
			r->seq = x.sequenceNumber;
			r->name_id = x.nameId;
			r->dtypes_id = x.dtypesId;
			r->shapes_id = x.shapesId;
			r->stack_id = x.stackId;
			r->type = x.apiType;
		} else if (in->cls == A_FWK_MEM) {
			struct NpuprofFwkMem x;
			struct npuprof_hostfmt_fwk_mem *r;

			memcpy(&x, d, sizeof(x));
			r = out_rec(o, NPUPROF_HOSTFMT_FWK_MEM, sizeof(*r), in->tid, in->ts);
			if (!r)
				return;
			r->tid = in->tid;
			r->device_id = x.deviceId;
			r->time_ns = in->ts;
			r->ptr = x.ptr;
			r->size = x.size;
			r->total_allocated = x.totalAllocated;
			r->total_reserved = x.totalReserved;
			r->total_active = x.totalActive;
			r->stream = x.stream;
			r->component_id = x.componentId;
		} else if (in->cls == A_FWK_GC) {
			struct NpuprofFwkGc x;
			struct npuprof_hostfmt_fwk_gc *r;

			memcpy(&x, d, sizeof(x));
			if (x.durationNs > UINT64_MAX - in->ts) {
				f->st.bad_payload++;
				continue;
			}
			r = out_rec(o, NPUPROF_HOSTFMT_FWK_GC, sizeof(*r), in->tid,
				    in->ts + x.durationNs);
			if (!r)
				return;
			r->tid = in->tid;
			r->generation = x.generation;
			r->start_ns = in->ts;
			r->end_ns = in->ts + x.durationNs;
		}
	}
}

int cann_finish(struct cann_file *f, const struct npuprof_hostfmt_file_header *fh,
		uint64_t *next_conn, uint64_t *next_op, uint8_t **buf, size_t *len,
		struct cann_stats *st)
{
	struct out o = { .f = f };
	struct place *pl = NULL;
	struct trk *tk = NULL;
	uint32_t *order = NULL, *first_rt = NULL;
	int32_t *nb = NULL, *nh = NULL, *nctx = NULL, *nlast = NULL, *tnode = NULL, *thccl = NULL,
		*ghead = NULL;
	uint32_t *gnext = NULL, *ncnt = NULL;
	int32_t *nfirst = NULL;
	uint64_t *opseq = NULL;
	size_t ntk = 0;
	struct u64map tmap, tsmap, rankmap;
	int ret = 0;

	*buf = NULL;
	*len = 0;
	u64map_init(&o.str_at);
	u64map_init(&tmap);
	u64map_init(&tsmap);
	u64map_init(&rankmap);
	for (size_t i = 0; i < f->npev; i++)
		f->st.unpaired_events += f->pev[i].live;
	for (size_t i = 0; i < f->ninfo; i++)
		f->info[i].cls = classify(f, &f->info[i]);

	/* connectionIds: the export's own counter, in start order */
	order = malloc((f->napi + 1) * sizeof(*order));
	pl = malloc((f->ninfo + 1) * sizeof(*pl));
	size_t napi = f->napi + 1;
	nb = malloc(napi * sizeof(*nb));
	nh = malloc(napi * sizeof(*nh));
	nctx = malloc(napi * sizeof(*nctx));
	nlast = malloc(napi * sizeof(*nlast));
	tnode = malloc(napi * sizeof(*tnode));
	thccl = malloc(napi * sizeof(*thccl));
	ghead = malloc(napi * sizeof(*ghead));
	ncnt = calloc(napi, sizeof(*ncnt));
	nfirst = malloc(napi * sizeof(*nfirst));
	opseq = calloc(napi, sizeof(*opseq));
	gnext = malloc((f->ninfo + 1) * sizeof(*gnext));
	tk = malloc((f->ninfo + 1) * sizeof(*tk));
	first_rt = malloc(napi * sizeof(*first_rt));
	if (!order || !pl || !nb || !nh || !nctx || !nlast || !tnode || !thccl || !ghead || !ncnt ||
	    !opseq || !gnext || !tk || !first_rt) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < f->napi; i++) {
		order[i] = (uint32_t)i;
		nb[i] = nh[i] = nctx[i] = nlast[i] = tnode[i] = thccl[i] = ghead[i] = nfirst[i] = -1;
		first_rt[i] = UINT32_MAX;
	}
	if (f->napi > 1)
		qsort_r(order, f->napi, sizeof(*order), cmp_conn, f);
	if (f->napi && (*next_conn > NPUPROF_MSTX_HOST_CONNECTION ||
			f->napi > NPUPROF_MSTX_HOST_CONNECTION - *next_conn)) {
		ret = -EOVERFLOW; /* into the MSTX range (msprof_ids.h) */
		goto out;
	}
	for (size_t i = 0; i < f->napi; i++)
		f->api[order[i]].conn = (*next_conn)++;

	ret = sweep(f, pl);
	if (ret)
		goto out;

	/* task tracks, their extension and memcpy info, in report order */
	for (size_t i = 0; i < f->ninfo; i++) {
		const struct cx_info *in = &f->info[i];
		const uint8_t *d = f->blob + in->data;
		uint64_t v;

		if (in->cls == C_TRACK || in->cls == C_TRACK2) {
			struct trk *t = &tk[ntk];
			uint64_t tt;
			const char *tn;
			char num[24];

			memset(t, 0, sizeof(*t));
			if (in->cls == C_TRACK) {
				struct MsprofRuntimeTrack r;

				memcpy(&r, d, sizeof(r));
				t->r.device_id = r.deviceId;
				t->r.stream_id = r.streamId;
				t->raw_task = r.taskId;
				tt = r.taskType;
			} else {
				struct MsprofRuntimeTrackV2 r;

				memcpy(&r, d, sizeof(r));
				t->r.device_id = r.deviceId;
				t->r.stream_id = r.streamId;
				t->raw_task = r.taskId;
				tt = r.taskType;
			}
			t->info = (uint32_t)i;
			t->r.tid = in->tid;
			t->r.time_ns = in->ts;
			t->r.task_id = (uint16_t)(t->raw_task & 0xffff);
			t->r.batch_id = t->raw_task >> 16;
			t->r.model_id = NPUPROF_NO_ID32;
			t->r.memcpy_op = NPUPROF_ENUM_INVALID;
			t->r.connection_id = pl[i].node >= 0  ? f->api[pl[i].node].conn :
					     pl[i].inner >= 0 ? f->api[pl[i].inner].conn :
								NPUPROF_NO_CONNECTION;
			tn = tt <= UINT32_MAX ?
				     type_name(f, MSPROF_REPORT_RUNTIME_LEVEL, (uint32_t)tt) :
				     NULL;
			if (!tn) {
				f->st.unregistered++;
				snprintf(num, sizeof(num), "%" PRIu64, tt);
				tn = num;
			}
			t->r.task_type_id = intern(&o, tn);
			t->next_node = t->next_hccl = UINT32_MAX;
			if (u64map_put(&tmap,
				       trk_hash(in->tid, t->r.device_id, t->r.stream_id,
						t->raw_task),
				       ntk) < 0) {
				ret = -ENOMEM;
				goto out;
			}
			if (pl[i].rt >= 0 && first_rt[pl[i].rt] == UINT32_MAX)
				first_rt[pl[i].rt] = (uint32_t)ntk;
			if (pl[i].rt < 0 && !u64map_get(&tsmap, mix(in->tid, in->ts), NULL) &&
			    u64map_put(&tsmap, mix(in->tid, in->ts), ntk) < 0) {
				ret = -ENOMEM;
				goto out;
			}
			ntk++;
		} else if (in->cls == C_EXT) {
			struct NpuprofTaskExt x;

			memcpy(&x, d, sizeof(x));
			if (!u64map_get(&tmap, trk_hash(in->tid, x.deviceId, x.streamId, x.taskId),
					&v) ||
			    tk[v].r.tid != in->tid || tk[v].r.device_id != x.deviceId ||
			    tk[v].r.stream_id != x.streamId || tk[v].raw_task != x.taskId) {
				f->st.orphan_ext++;
				continue;
			}
			struct trk *t = &tk[v];

			t->ext = 1;
			t->r.sqe_type = x.sqeType;
			t->r.duration_ns = x.durationNs;
			t->r.bytes = x.bytes;
			t->r.memcpy_op = x.memcpyOp;
			t->r.trace_tag = x.traceTag;
			t->r.index_id = x.indexId;
			if ((x.traceTag == NPUPROF_EXT_TRACE_MARK ||
			     x.traceTag == NPUPROF_EXT_TRACE_RANGE) &&
			    x.indexId <= UINT64_MAX - NPUPROF_MSTX_CONNECTION_BASE)
				t->r.connection_id = NPUPROF_MSTX_CONNECTION_BASE + x.indexId;
		}
	}
	/* memcpy info: the first track of its runtime API on its stream, else
	 * the track of its thread at its time */
	for (size_t i = 0; i < f->ninfo; i++) {
		const struct cx_info *in = &f->info[i];
		struct MsprofMemcpyInfo m;
		struct trk *t = NULL;
		uint64_t v;

		if (in->cls != C_MEMCPY)
			continue;
		memcpy(&m, f->blob + in->data, sizeof(m));
		if (pl[i].rt >= 0 && first_rt[pl[i].rt] != UINT32_MAX) {
			for (size_t k = first_rt[pl[i].rt]; k < ntk; k++)
				if (pl[tk[k].info].rt == pl[i].rt &&
				    tk[k].r.stream_id == m.streamId &&
				    tk[k].r.device_id == m.deviceId) {
					t = &tk[k];
					break;
				}
		} else if (pl[i].rt < 0 && u64map_get(&tsmap, mix(in->tid, in->ts), &v)) {
			t = &tk[v];
		}
		if (!t) {
			f->st.orphan_detail++;
			continue;
		}
		if (!t->ext) {
			t->r.bytes = m.bytes;
			t->r.memcpy_op = m.copyKind <= 7 ? m.copyKind : NPUPROF_ENUM_INVALID;
		}
	}
	/* the tracks of each node and HCCL-level API, in report order */
	for (size_t k = ntk; k-- > 0;) {
		const struct place *p = &pl[tk[k].info];

		if (p->node >= 0) {
			tk[k].next_node = tnode[p->node] < 0 ? UINT32_MAX :
							       (uint32_t)tnode[p->node];
			tnode[p->node] = (int32_t)k;
			if (nlast[p->node] < 0)
				nlast[p->node] = (int32_t)k;
		}
		if (p->hccl >= 0) {
			tk[k].next_hccl = thccl[p->hccl] < 0 ? UINT32_MAX :
							       (uint32_t)thccl[p->hccl];
			thccl[p->hccl] = (int32_t)k;
		}
	}

	/* node-level details: the last basic info and HCCL op info of a node */
	for (size_t i = 0; i < f->ninfo; i++) {
		int32_t n = pl[i].node;
		uint8_t c = f->info[i].cls;

		if (c != C_BASIC && c != C_HOPINFO && c != A_TENSOR && c != A_CTX && c != A_HCCL)
			continue;
		if (n < 0) {
			f->st.orphan_detail++;
			f->info[i].cls = C_NONE;
			continue;
		}
		if (c == C_BASIC)
			nb[n] = (int32_t)i;
		else if (c == C_HOPINFO)
			nh[n] = (int32_t)i;
		else if (c == A_HCCL)
			if (!ncnt[n]++)
				nfirst[n] = (int32_t)i;
	}
	/* tensors: of the node's op, the last (opName, time) group; context
	 * ids: the last record of the node's op */
	for (size_t i = 0; i < f->ninfo; i++) {
		int32_t n = pl[i].node;
		uint8_t c = f->info[i].cls;
		uint64_t op = 0, bop = 0;

		if ((c != A_TENSOR && c != A_CTX) || n < 0)
			continue;
		memcpy(&op, f->blob + f->info[i].data, sizeof(op));
		if (nb[n] >= 0)
			memcpy(&bop, f->blob + f->info[nb[n]].data, sizeof(bop));
		if (nb[n] >= 0 && op != bop) {
			f->st.orphan_detail++;
			continue;
		}
		if (c == A_CTX) {
			nctx[n] = (int32_t)i;
			continue;
		}
		gnext[i] = UINT32_MAX;
		if (ghead[n] >= 0) {
			/* the same group: same opName and time; else a new one */
			uint32_t last = (uint32_t)ghead[n];
			uint64_t lop;

			while (gnext[last] != UINT32_MAX)
				last = gnext[last];
			memcpy(&lop, f->blob + f->info[last].data, sizeof(lop));
			if (lop == op && f->info[last].ts == f->info[i].ts) {
				gnext[last] = (uint32_t)i;
				continue;
			}
		}
		ghead[n] = (int32_t)i;
	}

	/* API rows */
	for (size_t i = 0; i < f->napi; i++) {
		const struct cx_api *a = &f->api[i];
		struct npuprof_hostfmt_api *r = out_rec(&o, NPUPROF_HOSTFMT_API, sizeof(*r), a->tid,
							a->end);
		const char *tn;

		if (!r)
			break;
		r->level = a->level;
		r->tid = a->tid;
		r->start_ns = a->begin;
		r->end_ns = a->end;
		r->connection_id = a->conn;
		r->device_id = UINT32_MAX;
		r->item_id = a->level == MSPROF_REPORT_MODEL_LEVEL || !a->item ?
				     NPUPROF_HOSTFMT_NO_STRING :
				     a->item;
		if (a->level == MSPROF_REPORT_HCCL_NODE_LEVEL) {
			r->name_id = a->item ? a->item : intern(&o, "0");
		} else if ((tn = type_name(f, a->level, a->type))) {
			r->name_id = intern(&o, tn);
		} else {
			f->st.unregistered++;
			r->name_id = intern_num(&o, a->type);
		}
	}
	/* tracks */
	for (size_t k = 0; k < ntk; k++) {
		struct npuprof_hostfmt_task_track *r = out_rec(&o, NPUPROF_HOSTFMT_TASK_TRACK,
							       sizeof(*r), tk[k].r.tid,
							       tk[k].r.time_ns);

		if (!r)
			break;
		tk[k].r.h = r->h;
		*r = tk[k].r;
	}
	/* operators and communication ops, per node */
	for (size_t n = 0; n < f->napi && !o.err; n++) {
		const struct cx_api *a = &f->api[n];
		int comm = nh[n] >= 0 || ncnt[n] != 0;

		if (comm) {
			/* a communication op: its basic info types the op
			 * (below) and describes no operator */
		} else if (nb[n] >= 0 && nlast[n] < 0) {
			f->st.orphan_detail++; /* an operator without a task */
		} else if (nb[n] >= 0) {
			const struct trk *t = &tk[nlast[n]];
			struct MsprofNodeBasicInfo bi;
			const struct cx_info *bin = &f->info[nb[n]];
			struct npuprof_hostfmt_compute_op *r;
			uint32_t grp[256];
			size_t ngrp = 0;
			uint64_t ts[6];
			char num[16];

			memcpy(&bi, f->blob + bin->data, sizeof(bi));
			for (int32_t g = ghead[n]; g >= 0 && ngrp < NELEM(grp);
			     g = gnext[g] == UINT32_MAX ? -1 : (int32_t)gnext[g])
				grp[ngrp++] = (uint32_t)g;
			tensor_strings(&o, f, grp, ngrp, ts);
			r = out_rec(&o, NPUPROF_HOSTFMT_COMPUTE_OP, sizeof(*r), t->r.tid,
				    t->r.time_ns);
			if (!r)
				break;
			r->tid = t->r.tid;
			r->device_id = t->r.device_id;
			r->time_ns = t->r.time_ns;
			r->connection_id = a->conn;
			r->stream_id = t->r.stream_id;
			r->task_id = t->r.task_id;
			r->batch_id = t->r.batch_id;
			r->context_id = NPUPROF_NO_ID32;
			if (nctx[n] >= 0) {
				struct MsprofContextIdInfo ci;

				memcpy(&ci, f->blob + f->info[nctx[n]].data, sizeof(ci));
				if (ci.ctxIdNum)
					r->context_id = ci.ctxIds[0];
			}
			r->name_id = bi.opName;
			r->op_type_id = bi.opType;
			r->task_type_id = intern(&o, ge_task_name(bi.taskType, num));
			r->input_formats_id = ts[0];
			r->input_dtypes_id = ts[1];
			r->input_shapes_id = ts[2];
			r->output_formats_id = ts[3];
			r->output_dtypes_id = ts[4];
			r->output_shapes_id = ts[5];
			r->attr_id = NPUPROF_HOSTFMT_NO_STRING;
			r->op_state_id = NPUPROF_HOSTFMT_NO_STRING;
			if (bin->len > sizeof(bi)) /* opState, u8 after the struct */
				r->op_state_id = intern_num(&o, f->blob[bin->data + sizeof(bi)]);
			r->hf32_id = NPUPROF_HOSTFMT_NO_STRING;
			r->block_dim = bi.blockDim & 0xffff;
			r->mix_block_dim = (bi.blockDim & 0xffff) * (bi.blockDim >> 16);
			r->op_flag = bi.opFlag;
		}
		if (!comm)
			continue;
		/* a communication op */
		struct npuprof_hostfmt_hccl_op *r = out_rec(&o, NPUPROF_HOSTFMT_HCCL_OP, sizeof(*r),
							    0, 0);

		if (!r)
			break;
		opseq[n] = (*next_op)++;
		r->tid = a->tid;
		r->start_ns = a->begin;
		r->end_ns = a->end;
		r->connection_id = a->conn;
		r->op_seq = opseq[n];
		r->op_name_id = comm_name(&o, f, a, nb[n]);
		r->op_type_id = NPUPROF_HOSTFMT_NO_STRING;
		r->group_name_id = NPUPROF_HOSTFMT_NO_STRING;
		r->alg_type_id = NPUPROF_HOSTFMT_NO_STRING;
		r->data_type = NPUPROF_ENUM_INVALID;
		if (nb[n] >= 0) {
			struct MsprofNodeBasicInfo bi;

			memcpy(&bi, f->blob + f->info[nb[n]].data, sizeof(bi));
			r->op_type_id = bi.opType;
		}
		if (nh[n] >= 0) {
			struct MsprofHCCLOPInfo hi;

			memcpy(&hi, f->blob + f->info[nh[n]].data, sizeof(hi));
			r->relay = hi.relay;
			r->retry = hi.retry;
			r->data_type = hi.dataType;
			r->alg_type_id = hi.algType;
			r->count = hi.count;
			r->group_name_id = hi.groupName;
		}
		if (nlast[n] >= 0) {
			r->device_id = tk[nlast[n]].r.device_id;
			r->stream_id = tk[nlast[n]].r.stream_id;
		}
		if (nfirst[n] < 0)
			continue;
		/* the ranks its HCCL tasks name: the op's, and the device's rank
		 * in the communicator (RANK_DEVICE_MAP, info.json) */
		struct MsprofHcclInfo hi;
		uint32_t dev = r->device_id;
		uint64_t rk;

		memcpy(&hi, f->blob + f->info[nfirst[n]].data, sizeof(hi));
		r->rank = hi.localRank;
		r->rank_size = hi.rankSize;
		rk = mix((uint64_t)dev << 32 | hi.localRank, hi.groupName);
		if (hi.localRank <= INT32_MAX && !u64map_get(&rankmap, rk, NULL)) {
			struct npuprof_hostfmt_rank *k;

			if (u64map_put(&rankmap, rk, 1) < 0) {
				ret = -ENOMEM;
				goto out;
			}
			k = out_rec(&o, NPUPROF_HOSTFMT_RANK, sizeof(*k), 0, 0);
			if (!k)
				break;
			k->rank = (int32_t)hi.localRank;
			k->rank_size = hi.rankSize;
			k->device_id = dev;
			k->source = NPUPROF_RANK_SRC_HCCL;
			k->group_name_id = hi.groupName ? hi.groupName : NPUPROF_HOSTFMT_NO_STRING;
		}
	}
	/* HCCL tasks: each the latest track of its HCCL-level API (else of its
	 * node) not after it, else that API's last */
	for (size_t i = 0; i < f->ninfo && !o.err; i++) {
		const struct cx_info *in = &f->info[i];
		int32_t n = pl[i].node;
		struct MsprofHcclInfo hi;
		const struct trk *best = NULL, *lastt = NULL;
		int by_hccl;

		if (in->cls != A_HCCL || n < 0)
			continue;
		by_hccl = pl[i].hccl >= 0;
		for (int64_t k = by_hccl ? thccl[pl[i].hccl] : tnode[n]; k >= 0;) {
			const struct trk *t = &tk[k];
			uint32_t nx = by_hccl ? t->next_hccl : t->next_node;

			lastt = t;
			if (t->r.time_ns <= in->ts)
				best = t;
			k = nx == UINT32_MAX ? -1 : (int64_t)nx;
		}
		if (!best)
			best = lastt;
		if (!best) {
			f->st.orphan_detail++;
			continue;
		}
		memcpy(&hi, f->blob + in->data, sizeof(hi));
		struct npuprof_hostfmt_hccl_task *r = out_rec(&o, NPUPROF_HOSTFMT_HCCL_TASK,
							      sizeof(*r), best->r.tid,
							      best->r.time_ns);

		if (!r)
			break;
		r->tid = best->r.tid;
		r->device_id = best->r.device_id;
		r->time_ns = best->r.time_ns;
		r->connection_id = f->api[n].conn;
		r->op_seq = opseq[n];
		r->op_name_id = comm_name(&o, f, &f->api[n], nb[n]);
		r->group_name_id = hi.groupName;
		r->task_type_id = hi.itemId;
		r->stream_id = best->r.stream_id;
		r->task_id = best->r.task_id;
		r->batch_id = best->r.batch_id;
		r->is_master = !by_hccl || f->api[pl[i].hccl].type != MSPROF_REPORT_HCCL_SLAVE_TYPE;
		r->context_id = hi.ctxId == MSPROF_HCCL_INVALID_UINT ? NPUPROF_NO_ID32 : hi.ctxId;
		r->plane_id = hi.planeID;
		if (hi.role == 0) { /* this rank receives */
			r->src_rank = hi.remoteRank;
			r->dst_rank = hi.localRank;
		} else {
			r->src_rank = hi.localRank;
			r->dst_rank = hi.remoteRank;
		}
		r->transport_type = enum16(hi.transportType);
		r->link_type = enum16(hi.linkType);
		r->rdma_type = enum16(hi.rdmaType);
		r->data_type = enum16(hi.dataType);
		r->size = hi.dataSize;
		r->notify_id = hi.notifyID;
		if (hi.durationEstimated > 0 && hi.durationEstimated < 1e12)
			r->duration_estimated_ns = (uint64_t)(hi.durationEstimated * 1000.0);
		if (r->duration_estimated_ns && r->size)
			r->bandwidth = (uint64_t)((double)r->size * 1e9 /
						  (double)r->duration_estimated_ns);
	}
	framework_records(&o, f);
	if (o.err) {
		ret = o.err;
		goto out;
	}
	ret = build_stream(&o, fh, buf, len);
out:
	if (st)
		*st = f->st;
	for (size_t i = 0; i < o.nstr; i++)
		free(o.strs[i]);
	free(o.strs);
	free(o.str_ids);
	free(o.stage);
	free(o.rec);
	u64map_free(&o.str_at);
	u64map_free(&tmap);
	u64map_free(&tsmap);
	u64map_free(&rankmap);
	free(order);
	free(nfirst);
	free(pl);
	free(nb);
	free(nh);
	free(nctx);
	free(nlast);
	free(tnode);
	free(thccl);
	free(ghead);
	free(ncnt);
	free(opseq);
	free(gnext);
	free(tk);
	free(first_rt);
	return ret;
}

/* ---- a whole stream, read by the rules --------------------------------------- */

struct decode_ctx {
	struct cann_file *f;
	npuprof_hostread_record_fn fn;
	void *ctx;
	struct u64map at; /* hash id -> index in s */
	char **s;
	size_t ns, cap;
	int err;
};

static const char *decode_str(void *ctx, uint64_t id)
{
	const struct decode_ctx *d = ctx;
	uint64_t i;

	return u64map_get(&d->at, id, &i) ? d->s[i] : NULL;
}

static int decode_rec(void *ctx, const struct npuprof_hostfmt_block_header *b,
		      const struct npuprof_hostfmt_header *r)
{
	struct decode_ctx *d = ctx;

	switch (r->kind) {
	case NPUPROF_HOSTFMT_MSPROF_API:
	case NPUPROF_HOSTFMT_MSPROF_EVENT:
	case NPUPROF_HOSTFMT_MSPROF_COMPACT:
	case NPUPROF_HOSTFMT_MSPROF_ADDITIONAL:
	case NPUPROF_HOSTFMT_MSPROF_TYPE: d->err = cann_add(d->f, r); return d->err ? 1 : 0;
	case NPUPROF_HOSTFMT_HASH: {
		const struct npuprof_hostfmt_hash *h = (const void *)r;
		uint64_t old;

		if (!u64map_get(&d->at, h->id, &old)) {
			char *copy;

			if (d->ns == d->cap) {
				size_t cap = d->cap ? d->cap * 2 : 256;
				char **s = realloc(d->s, cap * sizeof(*s));

				if (!s) {
					d->err = -ENOMEM;
					return 1;
				}
				d->s = s;
				d->cap = cap;
			}
			copy = strndup(h->str, h->len);
			if (!copy || u64map_put(&d->at, h->id, d->ns)) {
				free(copy);
				d->err = -ENOMEM;
				return 1;
			}
			d->s[d->ns++] = copy;
		}
		break;
	}
	}
	return d->fn(d->ctx, b, r);
}

int cann_decode(const char *path, npuprof_hostread_record_fn fn, void *ctx,
		struct npuprof_hostread_file_info *info, struct npuprof_hostread_decode_stats *ds,
		struct cann_stats *st, char *err, size_t errlen)
{
	struct decode_ctx d = { .fn = fn, .ctx = ctx };
	struct npuprof_hostread_file_info fi;
	struct npuprof_hostread_decode_stats own, made;
	uint64_t conn = 0, op = 0;
	uint8_t *buf = NULL;
	size_t len = 0;
	int r, r2;

	if (st)
		memset(st, 0, sizeof(*st));
	if (!ds)
		ds = &own;
	if (!info)
		info = &fi;
	memset(ds, 0, sizeof(*ds));
	u64map_init(&d.at);
	d.f = cann_open(0, decode_str, &d);
	if (!d.f)
		return -ENOMEM;
	r = npuprof_hostread_decode(path, decode_rec, &d, info, ds, err, errlen);
	if (d.err)
		r = d.err;
	if ((!r || r == NPUPROF_HOSTREAD_EDAMAGED) && cann_reports(d.f)) {
		r2 = cann_finish(d.f, &info->header, &conn, &op, &buf, &len, st);
		if (!r2) {
			memset(&made, 0, sizeof(made));
			r2 = npuprof_hostread_decode_buffer(buf, len, "cann", fn, ctx, NULL, &made,
							    err, errlen);
		}
		free(buf);
		if (r2)
			r = r2;
	}
	if (st)
		st->reports = cann_reports(d.f);
	cann_close(d.f);
	for (size_t i = 0; i < d.ns; i++)
		free(d.s[i]);
	free(d.s);
	u64map_free(&d.at);
	return r;
}
