/*
 * bench_fwk_export — what the framework tables (user/export/fwk.c) add to
 * `npuprof export --pytorch`: two sessions written through the real
 * recorder, the same CANN records in both (per step: an acl call around a
 * node launch, one kernel task), one of them with the framework records of
 * a training step too (two nested torch ops with inputs, one with a stack,
 * an allocation and its release). Each is exported with --pytorch; the
 * difference, per torch op, is the cost of the framework tables
 * (PYTORCH_API, CONNECTION_IDS, PYTORCH_CALLCHAINS, MEMORY_RECORD,
 * OP_MEMORY, their strings). No target yet: it prints, no RESULT line.
 *
 * Size: BENCH_FWK_STEPS (default 100000 steps = 200000 torch ops). Scratch
 * space under $TMPDIR (default /tmp).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "hostrec.h"
#include "npuprof/export.h"
#include "npuprof/msprof_ids.h"
#include "npuprof/rank.h"
#include "npuprof/session.h"
#include "../unit/testutil.h"

#define U 1000ULL

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *rec(uint16_t kind, uint32_t size)
{
	char *r = npuprof_hostrec_reserve(kind, size);

	if (!r) {
		fprintf(stderr, "bench_fwk_export: recorder refused a record\n");
		exit(1);
	}
	memset(r + sizeof(struct npuprof_hostfmt_header), 0,
	       size - sizeof(struct npuprof_hostfmt_header));
	return r;
}

/* A session of `steps` steps in a fresh directory under top; its export
 * time (s) with --pytorch, and the PYTORCH_API rows. */
static double run(const char *top, long steps, int fwk, uint64_t *ops)
{
	char dir[512], err[1024];
	struct npuprof_session s;
	struct npuprof_hostrec_config cfg;
	struct npuprof_export_result res;
	struct npuprof_export_opts o;
	double t0, t;

	snprintf(dir, sizeof(dir), "%s/%s", top, fwk ? "fwk" : "cann");
	mkdir(dir, 0755);
	memset(&s, 0, sizeof(s));
	snprintf(s.hostname, sizeof(s.hostname), "bench");
	snprintf(s.host_uid, sizeof(s.host_uid), "1");
	snprintf(s.engine, sizeof(s.engine), NPUPROF_ENGINE_HOST);
	s.start_realtime_ns = 1700000000000000000ULL;
	s.start_monotonic_ns = 1000;
	s.end_realtime_ns = s.start_realtime_ns + (uint64_t)steps * 100 * U;
	s.pid = (uint32_t)getpid();
	s.rank = NPUPROF_RANK_NONE;
	s.ndev = 1;
	snprintf(s.dev[0].chip, sizeof(s.dev[0].chip), "Ascend910B");
	s.dev[0].counter_hz = 50000000;
	s.dev[0].rank = NPUPROF_RANK_NONE;
	if (npuprof_session_create(&s, dir, err, sizeof(err))) {
		fprintf(stderr, "bench_fwk_export: %s\n", err);
		exit(1);
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.dir = s.dir;
	cfg.buffer_size = 64u << 20;
	if (npuprof_hostrec_start(&cfg, err, sizeof(err))) {
		fprintf(stderr, "bench_fwk_export: %s\n", err);
		exit(1);
	}
	uint64_t names[2] = { aclprofStr2Id("aten::linear"), aclprofStr2Id("aten::addmm") };
	uint64_t launch = aclprofStr2Id("launch"), acl = aclprofStr2Id("aclnnAddmm");
	uint64_t dt = aclprofStr2Id("float;\r\nfloat;\r\nfloat");
	uint64_t sh = aclprofStr2Id("[16];\r\n[4, 8];\r\n[8, 16]");
	uint64_t st = aclprofStr2Id("train.py(10): forward;\r\ntrain.py(20): main");
	uint64_t kt = aclprofStr2Id("KERNEL_AIVEC"), pta = aclprofStr2Id("PTA");

	for (long i = 0; i < steps; i++) {
		uint64_t t = (uint64_t)i * 100;

		if (fwk) {
			for (int k = 0; k < 2; k++) {
				struct npuprof_hostfmt_fwk_op *r = rec(NPUPROF_HOSTFMT_FWK_OP,
								       sizeof(*r));

				r->tid = 7;
				r->start_ns = (t + 1 + (uint64_t)k) * U;
				r->end_ns = (t + 90 - (uint64_t)k) * U;
				r->seq = i;
				r->name_id = names[k];
				r->dtypes_id = dt;
				r->shapes_id = sh;
				r->stack_id = k ? NPUPROF_HOSTFMT_NO_STRING : st;
				r->type = NPUPROF_EXT_FWK_API_OP;
				npuprof_hostrec_commit(r);
			}
			for (int k = 0; k < 2; k++) {
				struct npuprof_hostfmt_fwk_mem *m = rec(NPUPROF_HOSTFMT_FWK_MEM,
									sizeof(*m));

				m->tid = 7;
				m->time_ns = (t + 30 + 40 * (uint64_t)k) * U;
				m->ptr = 0x1000 + (uint64_t)(i % 64) * 4096;
				m->size = k ? -4096 : 4096;
				m->total_allocated = m->total_reserved = m->total_active = 4096;
				m->component_id = pta;
				npuprof_hostrec_commit(m);
			}
		}
		for (int k = 0; k < 2; k++) {
			struct npuprof_hostfmt_api *a = rec(NPUPROF_HOSTFMT_API, sizeof(*a));

			a->level = k ? NPUPROF_API_NODE : NPUPROF_API_ACL;
			a->tid = 7;
			a->start_ns = (t + 10 + (uint64_t)k) * U;
			a->end_ns = (t + 50 - (uint64_t)k) * U;
			a->connection_id = 2 * (uint64_t)i + (uint64_t)k;
			a->name_id = k ? launch : acl;
			a->item_id = NPUPROF_HOSTFMT_NO_STRING;
			npuprof_hostrec_commit(a);
		}
		struct npuprof_hostfmt_task_track *tr = rec(NPUPROF_HOSTFMT_TASK_TRACK,
							    sizeof(*tr));

		tr->tid = 7;
		tr->time_ns = (t + 20) * U;
		tr->connection_id = 2 * (uint64_t)i + 1;
		tr->task_type_id = kt;
		tr->stream_id = 3;
		tr->task_id = (uint16_t)i;
		tr->batch_id = (uint32_t)(i >> 16);
		tr->model_id = NPUPROF_NO_ID32;
		tr->duration_ns = 5 * U;
		tr->memcpy_op = NPUPROF_ENUM_INVALID;
		npuprof_hostrec_commit(tr);
		if (i % 4096 == 0)
			npuprof_hostrec_flush();
	}
	npuprof_hostrec_stop();
	memset(&o, 0, sizeof(o));
	o.pytorch = 1;
	t0 = now();
	if (npuprof_export(s.dir, &o, &res, err, sizeof(err)) || res.damaged || res.host_lost) {
		fprintf(stderr, "bench_fwk_export: export failed or incomplete: %s\n", err);
		exit(1);
	}
	t = now() - t0;
	*ops = res.fwk_ops;
	return t;
}

int main(void)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	long steps = getenv("BENCH_FWK_STEPS") ? atol(getenv("BENCH_FWK_STEPS")) : 100000;
	char top[512];
	uint64_t ops0, ops;
	double base, full;

	if (steps <= 0) {
		fprintf(stderr, "bench_fwk_export: BENCH_FWK_STEPS must be positive\n");
		return 2;
	}
	snprintf(top, sizeof(top), "%s/npuprof-bench-fwk-XXXXXX", tmp);
	if (!mkdtemp(top)) {
		perror(top);
		return 1;
	}
	base = run(top, steps, 0, &ops0);
	full = run(top, steps, 1, &ops);
	printf("bench_fwk_export: %ld steps: --pytorch export %.2f s without framework records, "
	       "%.2f s with %llu torch ops: framework tables %.0f ns per torch op\n",
	       steps, base, full, (unsigned long long)ops, (full - base) * 1e9 / (double)ops);
	tu_rm_rf(top);
	return ops == 2 * (uint64_t)steps && ops0 == 0 ? 0 : 1;
}
