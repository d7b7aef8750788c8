/*
 * mirror_test.c - drives the device mirror (libnpuprof_mirror.so) on npusim
 * as the torch extension does: each op of a small training step (forward,
 * backward kernels, optimizer updates, views) runs inside its own framework
 * op record (a PYTORCH_API row), and the mirror launches its modelled aclnn
 * operators from inside it. Run under `npuprof record`; prints the manifest
 * that tests/vm/mirror_check.py compares with the exported database:
 *   op <TAB> index <TAB> name <TAB> result <TAB> tid <TAB> start_mono_ns <TAB>
 *      end_mono_ns <TAB> tasks <TAB> plan (npuprof_mirror_describe)
 *   task <TAB> op index <TAB> stream <TAB> task id <TAB> modelled ns
 *   bench <TAB> op <TAB> repetitions <TAB> ns per npuprof_mirror_op call
 * Exits non-zero if the mirror fails.
 *
 * usage: mirror_test [DEVICE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "fwk_report.h"
#include "mirror.h"

#define U ACL_DT_UNDEFINED
#define NDIMS(...) ((int32_t)(sizeof((int64_t[]){ __VA_ARGS__ }) / sizeof(int64_t)))
#define T(dt, ...)                                          \
	{                                                   \
		(dt), NDIMS(__VA_ARGS__), (const int64_t[]) \
		{                                           \
			__VA_ARGS__                         \
		}                                           \
	}
#define N                  \
	{                  \
		U, 0, NULL \
	}
#define F ACL_FLOAT
#define MAX_IN 8
#define BENCH_OPS 200

struct op {
	const char *name;
	struct npuprof_mirror_tensor in[MAX_IN];
	size_t n;
};

#define OP(nm, ...)                                                               \
	{                                                                         \
		nm, { __VA_ARGS__ },                                              \
			sizeof((struct npuprof_mirror_tensor[]){ __VA_ARGS__ }) / \
				sizeof(struct npuprof_mirror_tensor)              \
	}

/* a step of a two-layer MLP with a layer norm and an embedding, batch 32 */
static const struct op g_ops[] = {
	OP("aten::embedding", T(F, 1000, 64), T(ACL_INT64, 32, 16), N, N, N),
	OP("aten::view", T(F, 32, 16, 64), N),
	OP("aten::layer_norm", T(F, 32, 16, 64), N, T(F, 64), T(F, 64), N, N),
	OP("aten::native_layer_norm", T(F, 32, 16, 64), N, T(F, 64), T(F, 64), N),
	OP("aten::linear", T(F, 32, 16, 64), T(F, 256, 64), T(F, 256)),
	OP("aten::gelu", T(F, 32, 16, 256), N),
	OP("aten::linear", T(F, 32, 16, 256), T(F, 64, 256)),
	OP("aten::add", T(F, 32, 16, 64), T(F, 32, 16, 64), N),
	OP("aten::reshape", T(F, 32, 16, 64), N),
	OP("aten::addmm", T(F, 10), T(F, 32, 1024), T(F, 1024, 10), N, N),
	OP("aten::relu", T(F, 32, 10)),
	OP("aten::tanh", T(F, 32, 10)),
	OP("aten::sigmoid", T(F, 32, 10)),
	OP("aten::softmax", T(F, 32, 10), N, N),
	OP("aten::log_softmax", T(F, 32, 10), N, N),
	OP("aten::mse_loss", T(F, 32, 10), T(F, 32, 10), N),
	OP("aten::mean", T(F, 32, 10), N),
	OP("aten::empty", N, N, N, N, N, N),
	OP("aten::zeros", N, N, N, N, N),
	/* backward */
	OP("aten::threshold_backward", T(F, 32, 10), T(F, 32, 10), N),
	OP("aten::mm", T(F, 32, 10), T(F, 10, 1024)),
	OP("aten::t", T(F, 1024, 10)),
	OP("aten::mm", T(F, 1024, 32), T(F, 32, 10)),
	OP("aten::sum", T(F, 32, 10), N, N, N),
	OP("aten::bmm", T(ACL_FLOAT16, 8, 128, 64), T(ACL_FLOAT16, 8, 64, 128)),
	OP("aten::matmul", T(F, 32, 16, 64), T(F, 64, 256)),
	OP("aten::native_layer_norm_backward", T(F, 32, 16, 64), T(F, 32, 16, 64), N,
	   T(F, 32, 16, 1), T(F, 32, 16, 1), T(F, 64), T(F, 64), N),
	OP("aten::embedding_dense_backward", T(F, 32, 16, 64), T(ACL_INT64, 32, 16), N, N, N),
	OP("aten::detach", T(F, 1024, 10)),
	/* optimizer */
	OP("aten::mul_", T(F, 1024, 10), N),
	OP("aten::add_", T(F, 1024, 10), T(F, 1024, 10), N),
	OP("aten::sub_", T(F, 256, 64), T(F, 256, 64), N),
	OP("aten::addcmul_", T(F, 256, 64), T(F, 256, 64), T(F, 256, 64), N),
	OP("aten::addcdiv_", T(F, 256, 64), T(F, 256, 64), T(F, 256, 64), N),
	OP("aten::div", T(F, 256, 64), N),
	OP("aten::copy_", T(ACL_FLOAT16, 256, 64), T(F, 256, 64), N),
	OP("aten::to", T(F, 32, 10), N, N, N, N),
	OP("aten::zero_", T(F, 1024, 10)),
};
#define NOPS (sizeof(g_ops) / sizeof(g_ops[0]))

static int g_cur = -1; /* the op whose tasks are being submitted */
static unsigned g_tasks[NOPS];

static void observe(void *ctx, const aclnpuTaskRecord *t)
{
	(void)ctx;
	if (g_cur < 0)
		return;
	g_tasks[g_cur]++;
	printf("task\t%d\t%u\t%u\t%llu\n", g_cur, t->streamId, t->taskId,
	       (unsigned long long)t->durationNs);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void fwk_op(const char *name, uint64_t start, uint64_t end)
{
	fwk_report_op(fwk_tid(), 0, start, end, -1, MsprofGetHashId(name, strlen(name)),
		      NPUPROF_EXT_NO_STRING, NPUPROF_EXT_NO_STRING, NPUPROF_EXT_NO_STRING,
		      NPUPROF_EXT_FWK_API_OP);
}

int main(int argc, char **argv)
{
	char err[256], plan[1024];
	int dev = argc > 1 ? atoi(argv[1]) : 0, status = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (npuprof_mirror_open(dev, err, sizeof(err))) {
		fprintf(stderr, "mirror_test: open device %d: %s\n", dev, err);
		return 1;
	}
	if (npuprof_mirror_open(dev, err, sizeof(err)) != -16 /* -EBUSY */) {
		fprintf(stderr, "mirror_test: a second open did not fail busy\n");
		status = 1;
	}
	aclnpuSetTaskObserver(observe, NULL);
	for (size_t i = 0; i < NOPS; i++) {
		const struct op *o = &g_ops[i];
		uint64_t t0, t1, start, end;
		int r, want;

		want = npuprof_mirror_describe(o->name, o->in, o->n, plan, sizeof(plan));
		g_cur = (int)i;
		/* the manifest's bounds in the database's clock, the record's
		 * times in the reporter ABI's (MsprofSysCycleTime) */
		t0 = mono_ns();
		start = MsprofSysCycleTime();
		r = npuprof_mirror_op(o->name, o->in, o->n);
		end = MsprofSysCycleTime();
		t1 = mono_ns();
		g_cur = -1;
		fwk_op(o->name, start, end);
		printf("op\t%zu\t%s\t%d\t%u\t%llu\t%llu\t%u\t%s\n", i, o->name, r, fwk_tid(),
		       (unsigned long long)t0, (unsigned long long)t1, g_tasks[i], plan);
		if (r < 0 || r != (want > 0)) {
			fprintf(stderr, "mirror_test: %s: %d (%s), plan %d %s\n", o->name, r,
				npuprof_mirror_strerror(), want, plan);
			status = 1;
		}
	}
	/* the mirror's cost per op, recorded: a device op and a view */
	for (int b = 0; b < 2; b++) {
		const struct op *o = &g_ops[b ? 1 : 10]; /* aten::relu, then aten::view */
		uint64_t t0 = mono_ns(), t1;

		for (int k = 0; k < BENCH_OPS; k++)
			npuprof_mirror_op(o->name, o->in, o->n);
		t1 = mono_ns();
		printf("bench\t%s\t%d\t%llu\n", o->name, BENCH_OPS,
		       (unsigned long long)((t1 - t0) / BENCH_OPS));
	}
	if (npuprof_mirror_sync()) {
		fprintf(stderr, "mirror_test: sync: %s\n", npuprof_mirror_strerror());
		status = 1;
	}
	aclnpuSetTaskObserver(NULL, NULL);
	npuprof_mirror_close();
	if (npuprof_mirror_is_open() || npuprof_mirror_op("aten::relu", g_ops[10].in, 1) != -19) {
		fprintf(stderr, "mirror_test: still open after close\n");
		status = 1;
	}
	return status;
}
