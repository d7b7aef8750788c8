/*
 * fwk_dump - print the framework records of host streams (the framework
 * layer's reports, npuprof_ext.h, turned into records as the export turns
 * them) as JSON lines, strings resolved through the streams' HASH records (a test tool of
 * npuprof.torch: tests/vm/torch_check.py and tests/torch_pkg_test.sh read
 * what the package recorded without going through the export).
 *
 *   fwk_dump FILE|DIR...   (a DIR: every host/data/npuprof.host.*.raw below it)
 *
 * One line per record:
 *   {"k":"op","tid":..,"fwd_tid":..,"start":..,"end":..,"seq":..,"type":..,
 *    "name":"..","dtypes":"..","shapes":"..","stack":".."}   (null: no string)
 *   {"k":"mem","tid":..,"dev":..,"t":..,"ptr":..,"size":..,"alloc":..,
 *    "reserved":..,"active":..,"stream":..,"component":".."}
 *   {"k":"gc","tid":..,"gen":..,"start":..,"end":..}
 *   {"k":"stats","records":..,"lost":..,"problems":..,"pid":..}  per file
 * Exit status 1 if a stream was damaged or an id had no string.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "npuprof/hostfmt.h"
#include "npuprof/hostread.h"

#include "cannrec.h"

struct str {
	uint64_t id;
	char *s;
};

static struct str *g_strs;
static size_t g_nstr, g_capstr;
static int g_bad;

/* pending records: strings may follow the record that uses them */
static char **g_lines;
static size_t g_nlines, g_caplines;

static int add_hash(const struct npuprof_hostfmt_hash *h)
{
	for (size_t i = 0; i < g_nstr; i++)
		if (g_strs[i].id == h->id)
			return 0;
	if (g_nstr == g_capstr) {
		g_capstr = g_capstr ? 2 * g_capstr : 1024;
		g_strs = realloc(g_strs, g_capstr * sizeof(*g_strs));
		if (!g_strs)
			return -ENOMEM;
	}
	g_strs[g_nstr].id = h->id;
	g_strs[g_nstr].s = strndup(h->str, h->len);
	g_nstr++;
	return 0;
}

static const char *lookup(uint64_t id)
{
	for (size_t i = 0; i < g_nstr; i++)
		if (g_strs[i].id == id)
			return g_strs[i].s;
	return NULL;
}

static void json_str(FILE *f, uint64_t id)
{
	const char *s;

	if (id == NPUPROF_HOSTFMT_NO_STRING) {
		fputs("null", f);
		return;
	}
	s = lookup(id);
	if (!s) {
		fprintf(stderr, "fwk_dump: string id %llu has no HASH record\n",
			(unsigned long long)id);
		g_bad = 1;
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static int keep(const struct npuprof_hostfmt_header *r)
{
	char *copy;

	if (g_nlines == g_caplines) {
		g_caplines = g_caplines ? 2 * g_caplines : 4096;
		g_lines = realloc(g_lines, g_caplines * sizeof(*g_lines));
		if (!g_lines)
			return -ENOMEM;
	}
	copy = malloc(r->size);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, r, r->size);
	g_lines[g_nlines++] = copy;
	return 0;
}

static int on_rec(void *ctx, const struct npuprof_hostfmt_block_header *b,
		  const struct npuprof_hostfmt_header *r)
{
	switch (r->kind) {
	case NPUPROF_HOSTFMT_HASH: return add_hash((const struct npuprof_hostfmt_hash *)r);
	case NPUPROF_HOSTFMT_FWK_OP:
	case NPUPROF_HOSTFMT_FWK_MEM:
	case NPUPROF_HOSTFMT_FWK_GC: return keep(r);
	default: return 0;
	}
}

static void print_rec(FILE *f, const struct npuprof_hostfmt_header *r)
{
	if (r->kind == NPUPROF_HOSTFMT_FWK_OP) {
		const struct npuprof_hostfmt_fwk_op *o = (const void *)r;
		fprintf(f,
			"{\"k\":\"op\",\"tid\":%u,\"fwd_tid\":%u,\"start\":%llu,\"end\":%llu,"
			"\"seq\":%lld,\"type\":%u,\"name\":",
			o->tid, o->fwd_tid, (unsigned long long)o->start_ns,
			(unsigned long long)o->end_ns, (long long)o->seq, o->type);
		json_str(f, o->name_id);
		fputs(",\"dtypes\":", f);
		json_str(f, o->dtypes_id);
		fputs(",\"shapes\":", f);
		json_str(f, o->shapes_id);
		fputs(",\"stack\":", f);
		json_str(f, o->stack_id);
		fputs("}\n", f);
	} else if (r->kind == NPUPROF_HOSTFMT_FWK_MEM) {
		const struct npuprof_hostfmt_fwk_mem *m = (const void *)r;
		fprintf(f,
			"{\"k\":\"mem\",\"tid\":%u,\"dev\":%u,\"t\":%llu,\"ptr\":%llu,\"size\":%lld,"
			"\"alloc\":%llu,\"reserved\":%llu,\"active\":%llu,\"stream\":%llu,"
			"\"component\":",
			m->tid, m->device_id, (unsigned long long)m->time_ns,
			(unsigned long long)m->ptr, (long long)m->size,
			(unsigned long long)m->total_allocated,
			(unsigned long long)m->total_reserved, (unsigned long long)m->total_active,
			(unsigned long long)m->stream);
		json_str(f, m->component_id);
		fputs("}\n", f);
	} else {
		const struct npuprof_hostfmt_fwk_gc *g = (const void *)r;
		fprintf(f, "{\"k\":\"gc\",\"tid\":%u,\"gen\":%u,\"start\":%llu,\"end\":%llu}\n",
			g->tid, g->generation, (unsigned long long)g->start_ns,
			(unsigned long long)g->end_ns);
	}
}

static int dump_file(const char *path)
{
	struct npuprof_hostread_file_info info;
	struct npuprof_hostread_decode_stats st;
	char err[512] = "";
	int r;

	g_nlines = 0;
	/* the framework layer reports through libprofapi (npuprof_ext.h): read
	 * as the export reads them */
	r = cann_decode(path, on_rec, NULL, &info, &st, NULL, err, sizeof(err));
	if (r < 0 && r != NPUPROF_HOSTREAD_EDAMAGED) {
		fprintf(stderr, "fwk_dump: %s: %s\n", path, err[0] ? err : strerror(-r));
		return 1;
	}
	if (r == NPUPROF_HOSTREAD_EDAMAGED) {
		fprintf(stderr, "fwk_dump: %s\n", err);
		g_bad = 1;
	}
	for (size_t i = 0; i < g_nlines; i++) {
		print_rec(stdout, (const struct npuprof_hostfmt_header *)g_lines[i]);
		free(g_lines[i]);
	}
	printf("{\"k\":\"stats\",\"file\":\"%s\",\"records\":%llu,\"lost\":%llu,\"problems\":%llu,"
	       "\"pid\":%u}\n",
	       path, (unsigned long long)st.records, (unsigned long long)st.lost,
	       (unsigned long long)st.problems, info.header.pid);
	return 0;
}

static int dump_dir(const char *dir)
{
	char p[4096];
	struct dirent *e;
	DIR *d;
	int st = 0, n = 0;

	snprintf(p, sizeof(p), "%s/host/data", dir);
	d = opendir(p);
	if (d) {
		while ((e = readdir(d))) {
			if (strncmp(e->d_name, "npuprof.host.", 13) != 0)
				continue;
			snprintf(p, sizeof(p), "%s/host/data/%s", dir, e->d_name);
			st |= dump_file(p);
			n++;
		}
		closedir(d);
		return n ? st : (fprintf(stderr, "fwk_dump: %s: no host stream\n", dir), 1);
	}
	/* a parent: its PROF_* sessions */
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "fwk_dump: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "PROF_", 5) != 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		st |= dump_dir(p);
		n++;
	}
	closedir(d);
	return n ? st : (fprintf(stderr, "fwk_dump: %s: no PROF_* session\n", dir), 1);
}

int main(int argc, char **argv)
{
	int st = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: fwk_dump FILE|DIR...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat sb;
		if (stat(argv[i], &sb) != 0) {
			fprintf(stderr, "fwk_dump: %s: %s\n", argv[i], strerror(errno));
			st = 1;
		} else if (S_ISDIR(sb.st_mode)) {
			st |= dump_dir(argv[i]);
		} else {
			st |= dump_file(argv[i]);
		}
	}
	return st || g_bad;
}
