/*
 * mirror_dump.c - prints the framework op records (NPUPROF_HOSTFMT_FWK_OP) and
 * the CANN API records of raw host streams, for the mirror's VM tests:
 * they derive from them which launches each framework op contains (the
 * rule of the export's CONNECTION_IDS: launches inside the op's range on
 * its thread) and compare that with the exported database.
 *   fwk <TAB> tid <TAB> start_ns <TAB> end_ns <TAB> type <TAB> name
 *   api <TAB> tid <TAB> start_ns <TAB> end_ns <TAB> level <TAB> connectionId <TAB> name
 * A stream's CANN reports (the runtime's CANN backend) are read as the
 * export reads them (cann_decode: API records by msprof's rules, their
 * connectionIds numbered per stream from 0 in start order).
 * Names are resolved through the streams' HASH records ("?<id>" if none).
 * Exits non-zero on damage or if a stream cannot be read.
 *
 * usage: mirror_dump HOST_STREAM...
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cannrec.h"

struct rec {
	int fwk;
	uint32_t tid, type;
	uint64_t start, end, conn, name;
};

static struct rec *g_recs;
static size_t g_n, g_cap;
static struct {
	uint64_t id;
	char *s;
} * g_hash;
static size_t g_nhash, g_caphash;

static int push(const struct rec *r)
{
	if (g_n == g_cap) {
		size_t cap = g_cap ? g_cap * 2 : 1024;
		struct rec *p = realloc(g_recs, cap * sizeof(*p));

		if (!p)
			return 1;
		g_recs = p;
		g_cap = cap;
	}
	g_recs[g_n++] = *r;
	return 0;
}

static int on_rec(void *ctx, const struct npuprof_hostfmt_block_header *b,
		  const struct npuprof_hostfmt_header *h)
{
	struct rec r;

	(void)ctx;
	(void)b;
	memset(&r, 0, sizeof(r));
	if (h->kind == NPUPROF_HOSTFMT_HASH) {
		const struct npuprof_hostfmt_hash *x = (const void *)h;

		if (g_nhash == g_caphash) {
			size_t cap = g_caphash ? g_caphash * 2 : 256;
			void *p = realloc(g_hash, cap * sizeof(*g_hash));

			if (!p)
				return 1;
			g_hash = p;
			g_caphash = cap;
		}
		g_hash[g_nhash].id = x->id;
		g_hash[g_nhash++].s = strndup(x->str, x->len);
		return 0;
	}
	if (h->kind == NPUPROF_HOSTFMT_FWK_OP) {
		const struct npuprof_hostfmt_fwk_op *x = (const void *)h;

		r.fwk = 1;
		r.tid = x->tid;
		r.type = x->type;
		r.start = x->start_ns;
		r.end = x->end_ns;
		r.name = x->name_id;
		return push(&r);
	}
	if (h->kind == NPUPROF_HOSTFMT_API) {
		const struct npuprof_hostfmt_api *x = (const void *)h;

		r.tid = x->tid;
		r.type = x->level;
		r.start = x->start_ns;
		r.end = x->end_ns;
		r.conn = x->connection_id;
		r.name = x->name_id;
		return push(&r);
	}
	return 0;
}

static const char *name_of(uint64_t id, char *buf, size_t len)
{
	for (size_t i = 0; i < g_nhash; i++)
		if (g_hash[i].id == id)
			return g_hash[i].s;
	snprintf(buf, len, "?%" PRIu64, id);
	return buf;
}

int main(int argc, char **argv)
{
	int status = 0;
	char buf[32];

	if (argc < 2) {
		fprintf(stderr, "usage: mirror_dump HOST_STREAM...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		char err[512];
		int r = cann_decode(argv[i], on_rec, NULL, NULL, NULL, NULL, err, sizeof(err));

		if (r) {
			fprintf(stderr, "mirror_dump: %s: %d %s\n", argv[i], r, err);
			status = 1;
		}
	}
	for (size_t i = 0; i < g_n; i++) {
		const struct rec *r = &g_recs[i];

		if (r->fwk)
			printf("fwk\t%u\t%" PRIu64 "\t%" PRIu64 "\t%u\t%s\n", r->tid, r->start,
			       r->end, r->type, name_of(r->name, buf, sizeof(buf)));
		else
			printf("api\t%u\t%" PRIu64 "\t%" PRIu64 "\t%u\t%" PRIu64 "\t%s\n", r->tid,
			       r->start, r->end, r->type, r->conn,
			       name_of(r->name, buf, sizeof(buf)));
	}
	return status;
}
