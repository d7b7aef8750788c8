/*
 * acl_work.c - npuwork's ACL scenarios: train, infer, stress.
 *
 * One host thread per device for train and infer (rank r drives device r),
 * --threads threads for stress. Durations and shapes come from a per-device
 * xorshift stream seeded with --seed, so two runs with the same options
 * submit the same tasks. msproftx calls fail harmlessly (-1) when no
 * collection runs; they are made anyway so that profiled and unprofiled runs
 * take the same paths.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "hccl/hccl.h"
#include "mstx/ms_tools_ext.h"
#include "npuwork.h"

#define CHECK(call)                                                                 \
	do {                                                                        \
		aclError e_ = (call);                                               \
		if (e_ != ACL_SUCCESS) {                                            \
			fprintf(stderr, "npuwork: %s failed: %d (%s)\n", #call, e_, \
				aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");  \
			exit(1);                                                    \
		}                                                                   \
	} while (0)

static HcclComm g_comms[8];

struct worker {
	int dev;
	int index;
	pthread_t th;
	uint64_t rng;
	long tasks;
};

static void op(struct worker *w, aclrtStream s, const char *name, const char *type,
	       aclnpuTaskKind kind, uint64_t base_ns, int64_t m, int64_t n, int64_t k)
{
	aclnpuTensorDesc in[2] = {
		{ ACL_FLOAT16, ACL_FORMAT_ND, 2, { m, k } },
		{ ACL_FLOAT16, ACL_FORMAT_ND, 2, { k, n } },
	};
	aclnpuTensorDesc out = { ACL_FLOAT16, ACL_FORMAT_ND, 2, { m, n } };
	aclnpuOpDesc d;

	memset(&d, 0, sizeof(d));
	d.size = sizeof(d);
	d.opName = name;
	d.opType = type;
	d.taskKind = kind;
	d.blockDim = kind == ACLNPU_TASK_AI_CORE ? 24 : 48;
	d.mixBlockDim = (kind == ACLNPU_TASK_MIX_AIC || kind == ACLNPU_TASK_MIX_AIV) ? 48 : 0;
	d.durationNs = base_ns + nw_rand(&w->rng) % (base_ns / 2 + 1);
	d.numInputs = kind == ACLNPU_TASK_AI_CORE || kind == ACLNPU_TASK_MIX_AIC ? 2 : 1;
	d.inputs = in;
	d.numOutputs = 1;
	d.outputs = &out;
	if (kind != ACLNPU_TASK_AI_CORE && kind != ACLNPU_TASK_MIX_AIC)
		in[0].dims[1] = n;
	CHECK(aclnpuLaunchOp(&d, s));
}

/* The step's phases as stream-anchored mstx ranges: each launches a device
 * marker on `s` at its start and end, so the range's MSTX_EVENTS row joins
 * its MsTx TASK row and carries device times. */
static mstxRangeId tx_range(const char *msg, aclrtStream s)
{
	return mstxRangeStartA(msg, s);
}

static void tx_end(mstxRangeId id)
{
	mstxRangeEnd(id); /* MSTX_INVALID_ID (not profiling): nothing */
}

static void *train_worker(void *p)
{
	struct worker *w = p;
	aclrtStream comp, comm;
	aclrtEvent grads_ready, reduced;
	void *dev_act, *dev_grad, *host_buf;
	size_t sz = (size_t)opt.size;
	int64_t hidden = 1024 + 256 * (int64_t)(nw_rand(&w->rng) % 4);
	char name[96], msg[64];

	CHECK(aclrtSetDevice(w->dev));
	CHECK(aclrtCreateStream(&comp));
	CHECK(aclrtCreateStream(&comm));
	CHECK(aclrtCreateEvent(&grads_ready));
	CHECK(aclrtCreateEvent(&reduced));
	CHECK(aclrtMalloc(&dev_act, sz, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMalloc(&dev_grad, sz, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMallocHost(&host_buf, sz));
	memset(host_buf, w->dev, sz);
	for (int step = 0; step < opt.steps; step++) {
		mstxRangeId id;

		snprintf(msg, sizeof(msg), "step %d", step);
		aclprofMarkEx(msg, strlen(msg), comp);
		CHECK(aclrtMemcpyAsync(dev_act, sz, host_buf, sz, ACL_MEMCPY_HOST_TO_DEVICE, comp));
		id = tx_range("forward", comp);
		for (int l = 0; l < opt.layers; l++) {
			snprintf(name, sizeof(name), "layer%d/attn/MatMul", l);
			op(w, comp, name, "MatMul", ACLNPU_TASK_AI_CORE, 60000, 32, hidden * 3,
			   hidden);
			snprintf(name, sizeof(name), "layer%d/attn/FlashAttentionScore", l);
			op(w, comp, name, "FlashAttentionScore", ACLNPU_TASK_MIX_AIC, 90000, 32,
			   hidden, hidden);
			snprintf(name, sizeof(name), "layer%d/attn/Add", l);
			op(w, comp, name, "Add", ACLNPU_TASK_AI_VECTOR_CORE, 8000, 32, hidden,
			   hidden);
			snprintf(name, sizeof(name), "layer%d/mlp/MatMul", l);
			op(w, comp, name, "MatMul", ACLNPU_TASK_AI_CORE, 80000, 32, hidden * 4,
			   hidden);
			snprintf(name, sizeof(name), "layer%d/mlp/Gelu", l);
			op(w, comp, name, "Gelu", ACLNPU_TASK_AI_VECTOR_CORE, 10000, 32, hidden * 4,
			   hidden);
		}
		tx_end(id);
		id = tx_range("backward", comp);
		for (int l = opt.layers - 1; l >= 0; l--) {
			snprintf(name, sizeof(name), "layer%d/mlp/GeluGrad", l);
			op(w, comp, name, "GeluGrad", ACLNPU_TASK_AI_VECTOR_CORE, 12000, 32,
			   hidden * 4, hidden);
			snprintf(name, sizeof(name), "layer%d/mlp/MatMulGrad", l);
			op(w, comp, name, "MatMul", ACLNPU_TASK_AI_CORE, 150000, hidden, hidden * 4,
			   32);
			snprintf(name, sizeof(name), "layer%d/attn/FlashAttentionScoreGrad", l);
			op(w, comp, name, "FlashAttentionScoreGrad", ACLNPU_TASK_MIX_AIV, 160000,
			   32, hidden, hidden);
			snprintf(name, sizeof(name), "layer%d/attn/MatMulGrad", l);
			op(w, comp, name, "MatMul", ACLNPU_TASK_AI_CORE, 120000, hidden, hidden * 3,
			   32);
		}
		tx_end(id);
		/* gradients: compute -> communication stream -> back */
		CHECK(aclrtRecordEvent(grads_ready, comp));
		CHECK(aclrtStreamWaitEvent(comm, grads_ready));
		if ((opt.ndev > 1 || opt.world > 1) &&
		    HcclAllReduce(dev_grad, dev_grad, sz / 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM,
				  g_comms[w->dev], comm) != HCCL_SUCCESS) {
			fprintf(stderr, "npuwork: HcclAllReduce failed on device %d\n", w->dev);
			exit(1);
		}
		CHECK(aclrtRecordEvent(reduced, comm));
		CHECK(aclrtStreamWaitEvent(comp, reduced));
		id = tx_range("optimizer", comp);
		for (int l = 0; l < opt.layers; l++) {
			snprintf(name, sizeof(name), "layer%d/ApplyAdamW", l);
			op(w, comp, name, "ApplyAdamW", ACLNPU_TASK_AI_VECTOR_CORE, 15000, 1,
			   hidden * hidden / 64, 1);
		}
		tx_end(id);
		CHECK(aclrtMemcpyAsync(host_buf, sz, dev_act, 4096, ACL_MEMCPY_DEVICE_TO_HOST,
				       comp));
		CHECK(aclrtSynchronizeStream(comp));
		CHECK(aclrtSynchronizeStream(comm));
	}
	CHECK(aclrtFree(dev_act));
	CHECK(aclrtFree(dev_grad));
	CHECK(aclrtFreeHost(host_buf));
	CHECK(aclrtDestroyEvent(grads_ready));
	CHECK(aclrtDestroyEvent(reduced));
	CHECK(aclrtDestroyStream(comp));
	CHECK(aclrtDestroyStream(comm));
	return NULL;
}

static void *infer_worker(void *p)
{
	struct worker *w = p;
	aclrtStream s;
	void *in, *host;
	size_t sz = (size_t)opt.size;
	char name[64];

	CHECK(aclrtSetDevice(w->dev));
	CHECK(aclrtCreateStream(&s));
	CHECK(aclrtMalloc(&in, sz, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMallocHost(&host, sz));
	memset(host, 1, sz);
	for (int step = 0; step < opt.steps; step++) {
		int64_t batch = 1 + (int64_t)(nw_rand(&w->rng) % 16);

		CHECK(aclrtMemcpyAsync(in, sz, host, sz, ACL_MEMCPY_HOST_TO_DEVICE, s));
		for (int l = 0; l < opt.layers; l++) {
			snprintf(name, sizeof(name), "layer%d/MatMul", l);
			op(w, s, name, "MatMul", ACLNPU_TASK_AI_CORE, 30000, batch, 4096, 1024);
			snprintf(name, sizeof(name), "layer%d/Add", l);
			op(w, s, name, "Add", ACLNPU_TASK_AI_VECTOR_CORE, 4000, batch, 4096, 4096);
			snprintf(name, sizeof(name), "layer%d/Relu", l);
			op(w, s, name, "Relu", ACLNPU_TASK_AI_VECTOR_CORE, 3000, batch, 4096, 4096);
		}
		CHECK(aclrtMemcpyAsync(host, sz, in, 4096, ACL_MEMCPY_DEVICE_TO_HOST, s));
		CHECK(aclrtSynchronizeStream(s));
	}
	CHECK(aclrtFree(in));
	CHECK(aclrtFreeHost(host));
	CHECK(aclrtDestroyStream(s));
	return NULL;
}

static void *stress_worker(void *p)
{
	struct worker *w = p;
	aclrtStream s;
	char name[64];

	CHECK(aclrtSetDevice(w->dev));
	CHECK(aclrtCreateStream(&s));
	for (long i = 0; i < w->tasks; i++) {
		snprintf(name, sizeof(name), "t%d/op%ld", w->index, i % 97);
		op(w, s, name, i % 3 ? "Add" : "MatMul",
		   i % 3 ? ACLNPU_TASK_AI_VECTOR_CORE : ACLNPU_TASK_AI_CORE, 1000 + 500 * (i % 4),
		   8, 64, 64);
		if (i % 256 == 255)
			CHECK(aclrtSynchronizeStream(s));
	}
	CHECK(aclrtSynchronizeStream(s));
	CHECK(aclrtDestroyStream(s));
	return NULL;
}

uint64_t run_acl_scenario(const char *name)
{
	int train = !strcmp(name, "train"), stress = !strcmp(name, "stress");
	int nw = stress ? (opt.threads ? opt.threads : opt.ndev) : opt.ndev;
	int first = 0; /* one rank of a job: only device opt.rank */
	struct worker *w = calloc((size_t)nw, sizeof(*w));
	void *(*fn)(void *) = train ? train_worker : stress ? stress_worker : infer_worker;
	int32_t devs[8];

	if (!w)
		exit(1);
	CHECK(aclInit(NULL));
	manifest_start();
	if (opt.rank >= 0) {
		static HcclRootInfo ri;

		first = opt.rank;
		nw = 1;
		load_root_info(opt.root_info, &ri);
		CHECK(aclrtSetDevice(opt.rank));
		if (HcclCommInitRootInfo((uint32_t)opt.world, &ri, (uint32_t)opt.rank,
					 &g_comms[opt.rank]) != HCCL_SUCCESS) {
			fprintf(stderr, "npuwork: HcclCommInitRootInfo failed (rank %d of %d)\n",
				opt.rank, opt.world);
			exit(1);
		}
	} else if (train && opt.ndev > 1) {
		/* every rank's device must be open before the communicator */
		for (int d = 0; d < opt.ndev; d++) {
			CHECK(aclrtSetDevice(d));
			devs[d] = d;
		}
		if (HcclCommInitAll((uint32_t)opt.ndev, devs, g_comms) != HCCL_SUCCESS) {
			fprintf(stderr, "npuwork: HcclCommInitAll failed\n");
			exit(1);
		}
	}
	for (int i = 0; i < nw; i++) {
		w[i].dev = first + i % (opt.ndev - first);
		w[i].index = i;
		w[i].rng = opt.seed * 0x100000001B3ULL + (uint64_t)i * 7919 + 1;
		w[i].tasks = opt.tasks / nw + (i < opt.tasks % nw);
		pthread_create(&w[i].th, NULL, fn, &w[i]);
	}
	for (int i = 0; i < nw; i++)
		pthread_join(w[i].th, NULL);
	if (opt.rank >= 0)
		HcclCommDestroy(g_comms[opt.rank]);
	else if (train && opt.ndev > 1)
		for (int d = 0; d < opt.ndev; d++)
			HcclCommDestroy(g_comms[d]);
	manifest_finish(opt.manifest);
	for (int d = first; d < opt.ndev; d++)
		aclrtResetDeviceForce(d);
	CHECK(aclFinalize());
	free(w);
	return manifest_total();
}
