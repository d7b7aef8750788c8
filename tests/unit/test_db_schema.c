/*
 * test_db_schema.c - conformance of the table definitions (dbschema.c)
 * against the user's seed documents and against real Ascend 910B databases.
 *
 * Every table of the seeds is parsed from the seed text itself, column by
 * column, and compared with our DDL as SQLite reads it back (PRAGMA
 * table_info of the tables our DDL creates). Every table of every real
 * fixture is compared the same way, plus primary keys and indexes. A
 * difference passes only if it is listed below with the reason the seed or
 * docs/ascend-reference.md gives; anything else fails with a printed diff, and
 * every listed difference must still occur, so the list cannot go stale.
 */
#include <npuprof/db.h>

#include "db_testutil.h"
#include "dbschema.h"

#include <ctype.h>
#include <glob.h>

#define MAXCOLS 64
#define MAXTABLES 64

struct col {
	char name[64], type[16];
	int pk;
};

struct tab {
	char name[64];
	struct col c[MAXCOLS];
	int n;
	long long enum_id[128];
	char enum_name[128][48];
	int n_enum;
};

/* A difference the documents explain: "<table>|<diff>" and why. */
struct explained {
	const char *key, *reason;
	int used; /* set when the difference occurred */
};
#define EXPLAINED(k, r) \
	{               \
		k, r, 0 \
	}

static struct explained seed_diffs[] = {
	EXPLAINED("AICORE_FREQ|only-seed:deviceld", "seed typo for deviceId (ref 3.14)"),
	EXPLAINED("AICORE_FREQ|only-ours:deviceId", "seed typo deviceld (ref 3.14)"),
	EXPLAINED("COMMUNICATION_SCHEDULE_TASK_INFO|only-seed:globalTaskld",
		  "seed typo for globalTaskId (ref 3.10)"),
	EXPLAINED("COMMUNICATION_SCHEDULE_TASK_INFO|only-ours:globalTaskId",
		  "seed typo globalTaskld (ref 3.10)"),
	EXPLAINED("ENUM_MSTX_EVENT_TYPE|type:name:TEXT/INTEGER",
		  "seed declares name INTEGER; the producer creates TEXT (ref 3.1)"),
	EXPLAINED("OP_MEMORY|only-seed:acllocationTime", "older PyTorch seed typo (ref 4.1)"),
	EXPLAINED("OP_MEMORY|only-ours:allocationTime",
		  "older PyTorch seed typo acllocationTime (ref 4.1)"),
};

static struct explained real_diffs[] = {
	EXPLAINED("COMMUNICATION_TASK_INFO|only-ours:isMaster",
		  "isMaster was added in 1.1.1; the fixtures are 1.0.0 (ref 3.15)"),
	EXPLAINED("LLC|type:hitRate:NUMERIC/REAL", "seed NUMERIC, producer REAL (ref 3.14)"),
	EXPLAINED("LLC|type:throughput:NUMERIC/INTEGER",
		  "seed NUMERIC, producer INTEGER (ref 3.14)"),
	EXPLAINED("PYTORCH_API|type:startNs:INTEGER/TEXT",
		  "seed INTEGER, torch_npu stores text (ref 4.1)"),
	EXPLAINED("PYTORCH_API|type:endNs:INTEGER/TEXT",
		  "seed INTEGER, torch_npu stores text (ref 4.1)"),
};

static int explain(struct explained *e, size_t n, const char *table, const char *diff,
		   const char **reason)
{
	char key[600];

	snprintf(key, sizeof(key), "%s|%s", table, diff);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(e[i].key, key)) {
			e[i].used = 1;
			*reason = e[i].reason;
			return 1;
		}
	return 0;
}

static int valid_type(const char *t)
{
	return !strcmp(t, "INTEGER") || !strcmp(t, "TEXT") || !strcmp(t, "NUMERIC") ||
	       !strcmp(t, "REAL");
}

static void trim(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	size_t i = 0;

	while (s[i] == ' ' || s[i] == '\t')
		i++;
	memmove(s, s + i, strlen(s + i) + 1);
}

/* Non-empty trimmed lines of a file. */
static char **read_lines(const char *path, int *n)
{
	FILE *f = fopen(path, "r");
	char buf[4096], **v = NULL;
	int cap = 0;

	ck_assert_msg(f != NULL, "cannot read %s", path);
	*n = 0;
	while (fgets(buf, sizeof(buf), f)) {
		trim(buf);
		if (!buf[0])
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 1024;
			v = realloc(v, (size_t)cap * sizeof(*v));
		}
		v[(*n)++] = strdup(buf);
	}
	fclose(f);
	return v;
}

static int starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static struct tab *add_tab(struct tab *t, int *nt, const char *name)
{
	struct tab *x = &t[(*nt)++];
	char *p;

	ck_assert_int_le(*nt, MAXTABLES);
	memset(x, 0, sizeof(*x));
	snprintf(x->name, sizeof(x->name), "%s", name);
	/* "COMMUNICATION_SCHEDULE_TASK INFO" and "RoCE" in the seed's prose. */
	for (p = x->name; *p; p++)
		if (*p == ' ')
			*p = '_';
	if (!strcmp(x->name, "RoCE"))
		strcpy(x->name, "ROCE");
	return x;
}

/*
 * msprof-db-tables.zh.txt: a table name line, "表N 格式", the header lines
 * 字段名/类型/含义, then (name, type, meaning) triples; ENUM and META_DATA
 * tables add "表N 内容", a two-line header and (id, name) pairs.
 */
static int parse_msprof_seed(const char *path, struct tab *t)
{
	int n, nt = 0;
	char **L = read_lines(path, &n);
	struct tab *cur = NULL;

	for (int i = 0; i < n; i++) {
		int h;

		if (!(starts(L[i], "表") && strstr(L[i], "格式")))
			continue;
		/* The name is the nearest identifier line above (a note such as
		 * "Atlas 200/300/500 ... 不支持" may sit in between). */
		for (h = i - 1;
		     h >= 0 &&
		     strspn(L[h],
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_ ") !=
			     strlen(L[h]);
		     h--)
			;
		ck_assert_int_ge(h, 0);
		cur = add_tab(t, &nt, L[h]);
		i += 4; /* 表N 格式, 字段名, 类型, 含义 */
		while (i + 1 < n && valid_type(L[i + 1])) {
			struct col *c = &cur->c[cur->n++];

			snprintf(c->name, sizeof(c->name), "%s", L[i]);
			snprintf(c->type, sizeof(c->type), "%s", L[i + 1]);
			i += 3;
		}
		if (i < n && starts(L[i], "表") && strstr(L[i], "内容")) {
			i += 3; /* 表N 内容 and two header lines */
			while (i + 1 < n && isdigit((unsigned char)L[i][0])) {
				cur->enum_id[cur->n_enum] = atoll(L[i]);
				snprintf(cur->enum_name[cur->n_enum], 48, "%s", L[i + 1]);
				cur->n_enum++;
				i += 2;
			}
		}
		i--;
	}
	for (int i = 0; i < n; i++)
		free(L[i]);
	free(L);
	return nt;
}

/* ascend-pytorch-profiler-db.zh.md: "#### NAME" and "| col | TYPE | ... |". */
static int parse_pytorch_md(const char *path, struct tab *t)
{
	int n, nt = 0;
	char **L = read_lines(path, &n);
	struct tab *cur = NULL;

	for (int i = 0; i < n; i++) {
		if (starts(L[i], "#### ")) {
			cur = add_tab(t, &nt, L[i] + 5);
		} else if (cur && starts(L[i], "| ") && !starts(L[i], "| 字段名") &&
			   !starts(L[i], "| ---")) {
			char name[128] = "", type[64] = "", *o = name;
			const char *p = L[i] + 2;

			/* Markdown escapes underscores as "\_". */
			for (; *p && *p != '|'; p++)
				if (*p != '\\' && *p != ' ' && o < name + sizeof(name) - 1)
					*o++ = *p;
			*o = '\0';
			sscanf(p, "| %63s", type);
			struct col *c = &cur->c[cur->n++];

			snprintf(c->name, sizeof(c->name), "%s", name);
			snprintf(c->type, sizeof(c->type), "%s", type);
		}
	}
	for (int i = 0; i < n; i++)
		free(L[i]);
	free(L);
	return nt;
}

/* The older PyTorch seed: "NAME", "表N 格式", "col<TAB>TYPE<TAB>meaning". */
static int parse_pytorch_older(const char *path, struct tab *t)
{
	int n, nt = 0;
	char **L = read_lines(path, &n);
	struct tab *cur = NULL;

	for (int i = 0; i < n; i++) {
		const char *p = L[i];
		int upper = 1;

		for (; *p; p++)
			if (!(isupper((unsigned char)*p) || *p == '_'))
				upper = 0;
		if (upper) {
			cur = add_tab(t, &nt, L[i]);
		} else if (cur && strchr(L[i], '\t') && !starts(L[i], "字段名")) {
			struct col *c = &cur->c[cur->n];

			if (sscanf(L[i], "%63s %15s", c->name, c->type) == 2 && valid_type(c->type))
				cur->n++;
		}
	}
	for (int i = 0; i < n; i++)
		free(L[i]);
	free(L);
	return nt;
}

/* Columns of table name as SQLite reports them. */
static int table_info(sqlite3 *db, const char *name, struct col *c)
{
	char sql[256];
	sqlite3_stmt *s;
	int n = 0;

	snprintf(sql, sizeof(sql), "PRAGMA table_info(%s)", name);
	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW && n < MAXCOLS) {
		snprintf(c[n].name, sizeof(c[n].name), "%s",
			 (const char *)sqlite3_column_text(s, 1));
		snprintf(c[n].type, sizeof(c[n].type), "%s",
			 (const char *)sqlite3_column_text(s, 2));
		c[n].pk = sqlite3_column_int(s, 5);
		n++;
	}
	sqlite3_finalize(s);
	return n;
}

/* An in-memory database holding our DDL for every table. */
static sqlite3 *our_schema(enum npuprof_db_schema v)
{
	sqlite3 *db;
	char ddl[4096];

	ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	for (unsigned i = 0; i < NPUPROF_DB_TABLE_COUNT; i++) {
		ck_assert_int_gt(npuprof_dbschema_ddl(&npuprof_db_tables[i], v, ddl, sizeof(ddl)),
				 0);
		ck_assert_msg(sqlite3_exec(db, ddl, NULL, NULL, NULL) == SQLITE_OK, "%s: %s", ddl,
			      sqlite3_errmsg(db));
	}
	for (unsigned i = 0; i < npuprof_db_n_indexes; i++) {
		ck_assert_int_gt(npuprof_dbschema_index_ddl(&npuprof_db_indexes[i], ddl,
							    sizeof(ddl)),
				 0);
		ck_assert_int_eq(sqlite3_exec(db, ddl, NULL, NULL, NULL), SQLITE_OK);
	}
	return db;
}

static int find_col(const struct col *c, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return i;
	return -1;
}

/*
 * Compare our columns (a) with theirs (b) of one table; print every
 * difference with its explanation. Returns the number of unexplained ones.
 */
static int diff_table(const char *label, const char *table, const struct col *a, int na,
		      const struct col *b, int nb, int check_pk, struct explained *ex, size_t nex,
		      int *explained_count)
{
	char diff[256];
	const char *why;
	int bad = 0, ia = 0, ib = 0;

#define REPORT()                                                                           \
	do {                                                                               \
		if (explain(ex, nex, table, diff, &why)) {                                 \
			printf("  %s %s: %s -- explained: %s\n", label, table, diff, why); \
			(*explained_count)++;                                              \
		} else {                                                                   \
			printf("  %s %s: %s -- UNEXPLAINED\n", label, table, diff);        \
			bad++;                                                             \
		}                                                                          \
	} while (0)

	for (int i = 0; i < na; i++)
		if (find_col(b, nb, a[i].name) < 0) {
			snprintf(diff, sizeof(diff), "only-ours:%s", a[i].name);
			REPORT();
		}
	for (int i = 0; i < nb; i++)
		if (find_col(a, na, b[i].name) < 0) {
			snprintf(diff, sizeof(diff), "only-%s:%s", label, b[i].name);
			REPORT();
		}
	/* Shared columns: same relative order, type and key. */
	while (ia < na && ib < nb) {
		if (find_col(b, nb, a[ia].name) < 0) {
			ia++;
			continue;
		}
		if (find_col(a, na, b[ib].name) < 0) {
			ib++;
			continue;
		}
		if (strcmp(a[ia].name, b[ib].name)) {
			snprintf(diff, sizeof(diff), "order:%s/%s", a[ia].name, b[ib].name);
			REPORT();
			break;
		}
		if (strcmp(a[ia].type, b[ib].type)) {
			snprintf(diff, sizeof(diff), "type:%s:%s/%s", a[ia].name, a[ia].type,
				 b[ib].type);
			REPORT();
		}
		if (check_pk && !a[ia].pk != !b[ib].pk) {
			snprintf(diff, sizeof(diff), "pk:%s:%d/%d", a[ia].name, a[ia].pk, b[ib].pk);
			REPORT();
		}
		ia++;
		ib++;
	}
#undef REPORT
	return bad;
}

static void reset_used(struct explained *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		e[i].used = 0;
}

static struct tab seed[MAXTABLES], pt[MAXTABLES], pto[MAXTABLES];

/* Every seed table matches our 1.1.1 DDL (PyTorch variant: all tables). */
START_TEST(seed_columns_match)
{
	char p1[512], p2[512], p3[512];
	int ns, np, npo, bad = 0, expl = 0, checked = 0;
	sqlite3 *db = our_schema(NPUPROF_DB_SCHEMA_1_1_1);
	struct {
		struct tab *t;
		int n;
		const char *label;
	} docs[3];

	ck_assert_ptr_nonnull(
		find_fixture(FIXTURE_SEED_DIR, "msprof-db-tables.zh.txt", p1, sizeof(p1)));
	ck_assert_ptr_nonnull(
		find_fixture(FIXTURE_SEED_DIR, "ascend-pytorch-profiler-db.zh.md", p2, sizeof(p2)));
	ck_assert_ptr_nonnull(find_fixture(FIXTURE_SEED_DIR,
					   "ascend-pytorch-profiler-db-older.zh.txt", p3,
					   sizeof(p3)));
	ns = parse_msprof_seed(p1, seed);
	np = parse_pytorch_md(p2, pt);
	npo = parse_pytorch_older(p3, pto);
	/* The seed lists 37 msprof tables; the PyTorch seeds 13 and 9. */
	ck_assert_int_eq(ns, 37);
	ck_assert_int_ge(np, 9);
	ck_assert_int_eq(npo, 9);
	docs[0].t = seed, docs[0].n = ns, docs[0].label = "seed";
	docs[1].t = pt, docs[1].n = np, docs[1].label = "seed";
	docs[2].t = pto, docs[2].n = npo, docs[2].label = "seed";

	reset_used(seed_diffs, sizeof(seed_diffs) / sizeof(seed_diffs[0]));
	printf("seed conformance:\n");
	for (int d = 0; d < 3; d++)
		for (int i = 0; i < docs[d].n; i++) {
			struct tab *t = &docs[d].t[i];
			struct col ours[MAXCOLS];
			int n;

			ck_assert_msg(npuprof_dbschema_find(t->name) != NULL,
				      "seed table %s has no definition", t->name);
			ck_assert_msg(t->n > 0, "seed table %s: no columns parsed", t->name);
			n = table_info(db, t->name, ours);
			bad += diff_table("seed", t->name, ours, n, t->c, t->n, 0, seed_diffs,
					  sizeof(seed_diffs) / sizeof(seed_diffs[0]), &expl);
			checked++;
		}
	printf("seed conformance: %d tables checked, %d explained differences, %d unexplained\n",
	       checked, expl, bad);
	ck_assert_int_eq(bad, 0);
	for (size_t i = 0; i < sizeof(seed_diffs) / sizeof(seed_diffs[0]); i++)
		ck_assert_msg(seed_diffs[i].used, "explained difference no longer occurs: %s",
			      seed_diffs[i].key);

	/* And every table we define appears in a seed (analysis.db's are
	 * torch_npu's TableColumnsManager's, checked by test_analysis). */
	for (unsigned i = 0; i < NPUPROF_DB_TABLE_COUNT; i++) {
		int found = 0;

		if (npuprof_db_tables[i].flags & NPUPROF_DBT_ANALYSIS)
			continue;

		for (int d = 0; d < 3 && !found; d++)
			for (int j = 0; j < docs[d].n; j++)
				found |= !strcmp(docs[d].t[j].name, npuprof_db_tables[i].name);
		ck_assert_msg(found, "%s is not in any seed", npuprof_db_tables[i].name);
	}
	sqlite3_close(db);
}
END_TEST

/* ENUM rows: the seed's, exactly (ENUM_API_TYPE: see the variant split). */
START_TEST(seed_enum_rows_match)
{
	char p1[512];
	int ns;

	ck_assert_ptr_nonnull(
		find_fixture(FIXTURE_SEED_DIR, "msprof-db-tables.zh.txt", p1, sizeof(p1)));
	ns = parse_msprof_seed(p1, seed);
	for (int i = 0; i < ns; i++) {
		const struct npuprof_db_table_def *d = npuprof_dbschema_find(seed[i].name);

		ck_assert_msg(d != NULL, "seed table %s has no definition", seed[i].name);
		if (!d->enum_rows)
			continue;
		ck_assert_msg((unsigned)seed[i].n_enum == d->n_enum_rows,
			      "%s: seed %d rows, ours %u", seed[i].name, seed[i].n_enum,
			      d->n_enum_rows);
		for (unsigned j = 0; j < d->n_enum_rows; j++) {
			ck_assert_int_eq(seed[i].enum_id[j], d->enum_rows[j].id);
			ck_assert_str_eq(seed[i].enum_name[j], d->enum_rows[j].name);
		}
	}
	/* META_DATA content lists the four version keys. */
	for (int i = 0; i < ns; i++)
		if (!strcmp(seed[i].name, "META_DATA")) {
			ck_assert_int_eq(seed[i].n_enum, 0);
		}
}
END_TEST

/* Each real fixture: tables, columns, types, keys and indexes. */
START_TEST(real_fixtures_match)
{
	sqlite3 *ours = our_schema(NPUPROF_DB_SCHEMA_1_1_1);
	int total_bad = 0, files = 0;
	glob_t g;

	reset_used(real_diffs, sizeof(real_diffs) / sizeof(real_diffs[0]));
	ck_assert_msg(glob(FIXTURE_REAL_DIR "/*.db", 0, NULL, &g) == 0, "no fixture in %s",
		      FIXTURE_REAL_DIR);
	for (size_t k = 0; k < g.gl_pathc; k++) {
		const char *path = g.gl_pathv[k], *base = strrchr(path, '/') + 1;
		int bad = 0, expl = 0, ntab = 0;
		sqlite3 *real;
		sqlite3_stmt *s;

		real = open_ro(path);
		files++;
		printf("real conformance %s:\n", base);
		ck_assert_int_eq(
			sqlite3_prepare_v2(
				real,
				"SELECT name FROM sqlite_master WHERE type='table' ORDER BY name",
				-1, &s, NULL),
			SQLITE_OK);
		while (sqlite3_step(s) == SQLITE_ROW) {
			const char *name = (const char *)sqlite3_column_text(s, 0);
			struct col a[MAXCOLS], b[MAXCOLS];
			int na, nb;

			ck_assert_msg(npuprof_dbschema_find(name) != NULL,
				      "%s: table %s has no definition", base, name);
			na = table_info(ours, name, a);
			nb = table_info(real, name, b);
			bad += diff_table("real", name, a, na, b, nb, 1, real_diffs,
					  sizeof(real_diffs) / sizeof(real_diffs[0]), &expl);
			ntab++;
		}
		sqlite3_finalize(s);
		/* Indexes: same names on the same tables and columns. */
		for (unsigned i = 0; i < npuprof_db_n_indexes; i++) {
			char sql[256], got[256], want[256];

			snprintf(sql, sizeof(sql),
				 "SELECT tbl_name || ':' || (SELECT group_concat(name, ',') FROM "
				 "pragma_index_info('%s')) FROM sqlite_master WHERE type='index' "
				 "AND name='%s'",
				 npuprof_db_indexes[i].name, npuprof_db_indexes[i].name);
			q_text(real, sql, got, sizeof(got));
			snprintf(want, sizeof(want), "%s:%s",
				 npuprof_db_tables[npuprof_db_indexes[i].table].name,
				 npuprof_db_indexes[i].columns);
			if (table_exists(real,
					 npuprof_db_tables[npuprof_db_indexes[i].table].name) &&
			    strcmp(got, want)) {
				printf("  real index %s: ours %s, real %s -- UNEXPLAINED\n",
				       npuprof_db_indexes[i].name, want, got);
				bad++;
			}
		}
		/* No other index exists in a real file. */
		ck_assert_int_eq(q_int(real, "SELECT count(*) FROM sqlite_master WHERE "
					     "type='index' AND sql IS NOT NULL AND name NOT IN "
					     "('TaskIndex','CommunicationTaskIndex')"),
				 0);
		printf("real conformance %s: %d tables, %d explained differences, %d unexplained\n",
		       base, ntab, expl, bad);
		total_bad += bad;
		sqlite3_close(real);
	}
	globfree(&g);
	ck_assert_msg(files > 0, "no real fixture found");
	ck_assert_int_eq(total_bad, 0);
	for (size_t i = 0; i < sizeof(real_diffs) / sizeof(real_diffs[0]); i++)
		ck_assert_msg(real_diffs[i].used, "explained difference no longer occurs: %s",
			      real_diffs[i].key);
	sqlite3_close(ours);
}
END_TEST

/* The 1.2.0 column sets of docs/ascend-reference.md 3.15. */
START_TEST(schema_120_columns)
{
	static const struct {
		const char *table, *cols;
	} want[] = {
		{ "COMPUTE_TASK_INFO", "name,globalTaskId,blockNum,mixBlockNum,taskType,opType,"
				       "inputFormats,inputDataTypes,inputShapes,outputFormats,"
				       "outputDataTypes,outputShapes,attrInfo,opState,hf32Eligible,"
				       "gridDim,blockDim" },
		{ "COMMUNICATION_OP",
		  "opName,startNs,endNs,connectionId,groupName,opId,relay,retry,"
		  "dataType,algType,count,opType,deviceId,rankSize" },
		{ "COMMUNICATION_TASK_INFO",
		  "name,globalTaskId,taskType,planeId,groupName,notifyId,"
		  "rdmaType,srcRank,dstRank,transportType,size,dataType,"
		  "linkType,opId,isMaster,bandwidth" },
		{ "AICORE_FREQ", "deviceId,timestampNs,freq,dieId" },
		{ "RANK_DEVICE_MAP", "rankId,deviceId" },
	};
	sqlite3 *db = our_schema(NPUPROF_DB_SCHEMA_1_2_0);
	char sql[256], got[1024];

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		snprintf(sql, sizeof(sql),
			 "SELECT group_concat(name, ',') FROM pragma_table_info('%s')",
			 want[i].table);
		ck_assert_str_eq(q_text(db, sql, got, sizeof(got)), want[i].cols);
	}
	ck_assert_str_eq(q_text(db,
				"SELECT type FROM pragma_table_info('COMMUNICATION_TASK_INFO') "
				"WHERE name='bandwidth'",
				got, sizeof(got)),
			 "NUMERIC");
	ck_assert_str_eq(npuprof_dbschema_version(NPUPROF_DB_SCHEMA_1_2_0)->full, "1.2.0");
	ck_assert_str_eq(npuprof_dbschema_version(NPUPROF_DB_SCHEMA_1_1_1)->full, "1.1.1");
	sqlite3_close(db);
}
END_TEST

/* Our DDL text is the producer's form: IF NOT EXISTS, ", ", inline keys. */
START_TEST(ddl_text_form)
{
	char ddl[1024];

	npuprof_dbschema_ddl(&npuprof_db_tables[NPUPROF_DB_CANN_API], NPUPROF_DB_SCHEMA_1_1_1, ddl,
			     sizeof(ddl));
	ck_assert_str_eq(ddl,
			 "CREATE TABLE IF NOT EXISTS CANN_API (startNs INTEGER, endNs INTEGER, "
			 "type INTEGER, globalTid INTEGER, connectionId INTEGER PRIMARY KEY, "
			 "name INTEGER)");
	ck_assert_int_eq(npuprof_dbschema_ddl(&npuprof_db_tables[NPUPROF_DB_PCIE],
					      NPUPROF_DB_SCHEMA_1_1_1, ddl, 40),
			 -1);
	npuprof_dbschema_index_ddl(&npuprof_db_indexes[0], ddl, sizeof(ddl));
	ck_assert_str_eq(ddl,
			 "CREATE INDEX IF NOT EXISTS TaskIndex ON TASK (startNs,globalTaskId)");
	ck_assert_ptr_null(npuprof_dbschema_table((enum npuprof_db_table)NPUPROF_DB_TABLE_COUNT));
	ck_assert_ptr_null(npuprof_db_table_name((enum npuprof_db_table) - 1));
	ck_assert_str_eq(npuprof_db_table_name(NPUPROF_DB_ROCE), "ROCE");
	/* Table ids, names and descriptors line up. */
	for (unsigned i = 0; i < NPUPROF_DB_TABLE_COUNT; i++)
		ck_assert_int_eq(npuprof_db_tables[i].id, i);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("db_schema");
	TCase *tc = tcase_create("conformance");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, seed_columns_match);
	tcase_add_test(tc, seed_enum_rows_match);
	tcase_add_test(tc, real_fixtures_match);
	tcase_add_test(tc, schema_120_columns);
	tcase_add_test(tc, ddl_text_form);
	suite_add_tcase(s, tc);
	return s;
}
