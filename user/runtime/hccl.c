/*
 * hccl.c - HCCL over the simulated devices of this host (hccl/hccl.h).
 *
 * A communicator group spans n devices; rank r lives on devices[r]. Each
 * rank owns two notifies per peer (parity 0 and 1) on its own device; peer p
 * signals rank r by recording r's notify (a NOTIFY_RECORD SQE targeting r's
 * device). A collective is a sequence of "exchanges" with a set of peers:
 *   Notify_Record to every peer (parity 0), Notify_Wait for every peer,
 *   the transfers (SDMA: Memcpy or Reduce_Inline) from every peer,
 *   Notify_Record to every peer (parity 1), Notify_Wait for every peer.
 * All records precede all waits, so ranks never wait on each other in a
 * cycle, and a notify is re-recorded only after its previous wait was
 * consumed (the parity-1 round separates them), which npusim's one-bit
 * notifies need.
 *
 * Profiled as CANN shows it: acl "hcom_<op>_" > node "launch" (item = op
 * name) > communication (5500) "Hccl<Op>" around the submit; every task of
 * the op gets the `launch` connectionId; one HCCL_OP and one HCCL_TASK per
 * task on each rank. A task's ranks are HCCL's local and remote rank (the
 * rank itself, then its peer; itself for a copy on the rank), as a real
 * 910B rank's COMMUNICATION_TASK_INFO has them: msprof-analyze's matrix
 * maps a group's local ranks to global ones by the on-chip copies.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hccl/hccl.h"
#include "rt_prof.h"

#define COMM_MAGIC 0x48434f4dU /* "HCOM" */
#define MAX_RANKS NPUSIM_MAX_DEVICES

enum {
	OP_ALLREDUCE,
	OP_BROADCAST,
	OP_ALLGATHER,
	OP_REDUCESCATTER,
	OP_SEND,
	OP_RECV,
	OP_KINDS
};

static const struct {
	const char *type; /* opType, acl-level API name */
	const char *func; /* communication-level API name */
	const char *alg;
} g_ops[OP_KINDS] = {
	{ "hcom_allReduce_", "HcclAllReduce", "MESH-MESH" },
	{ "hcom_broadcast_", "HcclBroadcast", "MESH" },
	{ "hcom_allGather_", "HcclAllGather", "MESH" },
	{ "hcom_reduceScatter_", "HcclReduceScatter", "MESH" },
	{ "hcom_send_", "HcclSend", "MESH" },
	{ "hcom_receive_", "HcclRecv", "MESH" },
};

struct group {
	char name[128];
	uint32_t n;
	int dev[MAX_RANKS];
	uint32_t notify[MAX_RANKS][MAX_RANKS][2]; /* [owner rank][peer][parity] */
	uint32_t tag; /* <n> in op names */
	int self; /* HcclCommInitRootInfo: this process's rank; -1: all ranks here */
	_Atomic int refs;
};

struct comm {
	_Atomic uint32_t magic;
	uint32_t rank;
	struct group *g;
	uint32_t seq[OP_KINDS]; /* op instances of each type on this rank */
};

static _Atomic uint64_t g_op_seq;
static _Atomic uint32_t g_group_tag = 100;

static uint32_t dtype_size(HcclDataType dt)
{
	static const uint8_t sz[] = { 1, 2, 4, 2, 4, 8, 8, 1, 2, 4, 8, 2, 16 };

	return (unsigned)dt < sizeof(sz) ? sz[dt] : 0;
}

HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms)
{
	struct group *g;
	struct timespec ts;

	if (!devices || !comms || ndev < 1 || ndev > MAX_RANKS)
		return HCCL_E_PARA;
	if (!rt_g.initialized)
		return HCCL_E_RUNTIME;
	rtprof_hccl_init();
	for (uint32_t i = 0; i < ndev; i++) {
		if (devices[i] < 0 || devices[i] >= rt_g.ndev || rt_dev_fd(devices[i]) < 0)
			return HCCL_E_PARA; /* every device must be set (aclrtSetDevice) */
		for (uint32_t j = 0; j < i; j++)
			if (devices[j] == devices[i])
				return HCCL_E_PARA;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return HCCL_E_MEMORY;
	g->n = ndev;
	g->self = -1;
	g->tag = atomic_fetch_add(&g_group_tag, 1);
	clock_gettime(CLOCK_REALTIME, &ts);
	/* <ip>%<netdev>_<port>_<n>_<16-digit µs timestamp>, as HCCL names it */
	snprintf(g->name, sizeof(g->name), "127.0.0.1%%lo_60000_%u_%016llu", g->tag - 100,
		 (unsigned long long)ts.tv_sec * 1000000ULL +
			 (unsigned long long)ts.tv_nsec / 1000);
	for (uint32_t r = 0; r < ndev; r++) {
		g->dev[r] = devices[r];
		for (uint32_t p = 0; p < ndev; p++)
			for (int k = 0; k < 2 && p != r; k++)
				if (rt_id_alloc(devices[r], DRV_NOTIFY_ID, &g->notify[r][p][k]) !=
				    DRV_ERROR_NONE) {
					free(g); /* ids of a failed init are left to device reset */
					return HCCL_E_DRV;
				}
	}
	for (uint32_t r = 0; r < ndev; r++) {
		struct comm *c = calloc(1, sizeof(*c));

		if (!c)
			return HCCL_E_MEMORY;
		c->rank = r;
		c->g = g;
		atomic_store(&c->magic, COMM_MAGIC);
		atomic_fetch_add(&g->refs, 1);
		comms[r] = c;
		rtprof_rank(devices[r], r, ndev, g->name);
	}
	return HCCL_SUCCESS;
}

/* ---- communicators across processes (HcclGetRootInfo) ---------------------
 *
 * The root info names a rendezvous file (in /dev/shm, else /tmp) that every
 * rank maps: each rank allocates the notifies it owns on its device, puts
 * them and its device in its slot and marks the slot ready; once all slots
 * are ready every rank copies the table. npusim's notify ids are
 * device-wide (an id belongs to the file that allocated it, but any
 * process's NOTIFY_RECORD may target it), so a record from another process
 * wakes the owner's wait. The last rank to read the table removes the file.
 */
#define ROOT_MAGIC 0x4f4f5248U /* "HROO" */

struct root_info {
	uint32_t magic;
	uint32_t tag;
	char path[256]; /* the rendezvous file */
	char name[128]; /* the group name, the same on every rank */
};

struct rdv_slot {
	_Atomic uint32_t ready;
	int32_t dev;
	uint32_t notify[MAX_RANKS][2]; /* [peer][parity], owned by this slot's rank */
};

struct rdv {
	_Atomic uint32_t done;
	uint32_t n;
	struct rdv_slot slot[MAX_RANKS];
};

_Static_assert(sizeof(struct root_info) <= HCCL_ROOT_INFO_BYTES, "root info too large");

HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo)
{
	struct root_info ri;
	struct timespec ts;
	struct stat st;
	const char *dir = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
					  access("/dev/shm", W_OK) == 0 ?
				  "/dev/shm" :
				  "/tmp";
	uint64_t us;

	if (!rootInfo)
		return HCCL_E_PTR;
	memset(&ri, 0, sizeof(ri));
	ri.magic = ROOT_MAGIC;
	ri.tag = atomic_fetch_add(&g_group_tag, 1);
	clock_gettime(CLOCK_REALTIME, &ts);
	us = (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
	snprintf(ri.path, sizeof(ri.path), "%s/npusim-hccl.%u.%d.%u.%llu", dir, (unsigned)getuid(),
		 (int)getpid(), ri.tag, (unsigned long long)us);
	snprintf(ri.name, sizeof(ri.name), "127.0.0.1%%lo_60000_%u_%016llu", ri.tag - 100,
		 (unsigned long long)us);
	memset(rootInfo, 0, sizeof(*rootInfo));
	memcpy(rootInfo->internal, &ri, sizeof(ri));
	return HCCL_SUCCESS;
}

static uint64_t connect_timeout_ns(void)
{
	const char *v = getenv("HCCL_CONNECT_TIMEOUT");
	char *end;
	unsigned long s = v ? strtoul(v, &end, 10) : 0;

	if (!v || !*v || *end || s == 0 || s > 86400)
		s = 120;
	return (uint64_t)s * 1000000000ULL;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
				HcclComm *comm)
{
	struct root_info ri;
	struct group *g;
	struct comm *c;
	struct rdv *m;
	struct rdv_slot *me;
	HcclResult ret = HCCL_SUCCESS;
	uint64_t deadline;
	int fd, dev;

	if (!rootInfo || !comm)
		return HCCL_E_PTR;
	rtprof_hccl_init();
	memcpy(&ri, rootInfo->internal, sizeof(ri));
	if (ri.magic != ROOT_MAGIC || !memchr(ri.path, 0, sizeof(ri.path)) ||
	    !memchr(ri.name, 0, sizeof(ri.name)) || nRanks < 1 || nRanks > MAX_RANKS ||
	    rank >= nRanks)
		return HCCL_E_PARA;
	if (!rt_g.initialized)
		return HCCL_E_RUNTIME;
	if (rt_current_dev(&dev) != ACL_SUCCESS || rt_dev_fd(dev) < 0)
		return HCCL_E_PARA; /* the rank's device must be set (aclrtSetDevice) */
	g = calloc(1, sizeof(*g));
	c = calloc(1, sizeof(*c));
	if (!g || !c) {
		free(g);
		free(c);
		return HCCL_E_MEMORY;
	}
	g->n = nRanks;
	g->self = (int)rank;
	g->tag = ri.tag;
	snprintf(g->name, sizeof(g->name), "%s", ri.name);
	fd = open(ri.path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, sizeof(*m)) < 0) {
		if (fd >= 0)
			close(fd);
		free(g);
		free(c);
		return HCCL_E_OPEN_FILE_FAILURE;
	}
	m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		free(g);
		free(c);
		return HCCL_E_SYSCALL;
	}
	me = &m->slot[rank];
	me->dev = dev;
	for (uint32_t p = 0; p < nRanks && ret == HCCL_SUCCESS; p++)
		for (int k = 0; k < 2 && p != rank; k++)
			if (rt_id_alloc(dev, DRV_NOTIFY_ID, &me->notify[p][k]) != DRV_ERROR_NONE)
				ret = HCCL_E_DRV; /* ids of a failed init go back at device reset */
	if (ret == HCCL_SUCCESS && atomic_exchange(&me->ready, 1) != 0)
		ret = HCCL_E_PARA; /* another process took this rank */
	deadline = mono_ns() + connect_timeout_ns();
	for (uint32_t p = 0; p < nRanks && ret == HCCL_SUCCESS; p++) {
		while (!atomic_load(&m->slot[p].ready)) {
			struct timespec d = { 0, 1000000 };

			if (mono_ns() > deadline) {
				ret = HCCL_E_TIMEOUT;
				break;
			}
			nanosleep(&d, NULL);
		}
	}
	if (ret == HCCL_SUCCESS) {
		for (uint32_t r = 0; r < nRanks; r++) {
			g->dev[r] = m->slot[r].dev;
			for (uint32_t p = 0; p < nRanks; p++)
				for (int k = 0; k < 2 && p != r; k++)
					g->notify[r][p][k] = m->slot[r].notify[p][k];
		}
		if (atomic_fetch_add(&m->done, 1) + 1 == nRanks)
			unlink(ri.path);
	} else {
		unlink(ri.path); /* the others time out instead of waiting forever */
	}
	munmap(m, sizeof(*m));
	if (ret != HCCL_SUCCESS) {
		free(g);
		free(c);
		return ret;
	}
	c->rank = rank;
	c->g = g;
	atomic_store(&c->magic, COMM_MAGIC);
	atomic_store(&g->refs, 1);
	*comm = c;
	rtprof_rank(dev, rank, nRanks, g->name);
	return HCCL_SUCCESS;
}

static struct comm *comm_get(HcclComm h)
{
	struct comm *c = h;

	return c && atomic_load(&c->magic) == COMM_MAGIC ? c : NULL;
}

HcclResult HcclCommDestroy(HcclComm comm)
{
	struct comm *c = comm_get(comm);

	if (!c)
		return HCCL_E_PARA;
	atomic_store(&c->magic, RT_DEAD_MAGIC);
	if (atomic_fetch_sub(&c->g->refs, 1) == 1) {
		struct group *g = c->g;

		for (uint32_t r = 0; r < g->n; r++)
			for (uint32_t p = 0; p < g->n; p++)
				for (int k = 0;
				     k < 2 && p != r && (g->self < 0 || (int)r == g->self); k++)
					if (rt_g.initialized && rt_dev_fd(g->dev[r]) >= 0)
						rt_id_free(g->dev[r], DRV_NOTIFY_ID,
							   g->notify[r][p][k]);
		free(g);
	}
	/* the comm struct stays allocated so a stale handle is detected */
	return HCCL_SUCCESS;
}

HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize)
{
	struct comm *c = comm_get(comm);

	if (!c || !rankSize)
		return HCCL_E_PARA;
	*rankSize = c->g->n;
	return HCCL_SUCCESS;
}

HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank)
{
	struct comm *c = comm_get(comm);

	if (!c || !rank)
		return HCCL_E_PARA;
	*rank = c->rank;
	return HCCL_SUCCESS;
}

HcclResult HcclGetCommName(HcclComm comm, char *commName)
{
	struct comm *c = comm_get(comm);

	if (!c || !commName)
		return HCCL_E_PARA;
	strcpy(commName, c->g->name);
	return HCCL_SUCCESS;
}

/* ---- decomposition --------------------------------------------------------- */

enum {
	T_NOTIFY_RECORD,
	T_NOTIFY_WAIT,
	T_MEMCPY,
	T_REDUCE
};

struct hplan {
	struct rt_task t[1 + 10 * MAX_RANKS];
	struct {
		uint8_t kind;
		uint32_t plane, src, dst;
		uint64_t size, notify;
		uint16_t transport, link, dtype;
	} info[1 + 10 * MAX_RANKS];
	int n;
};

static void add(struct hplan *pl, int kind, uint32_t plane, uint32_t src, uint32_t dst,
		uint64_t size, uint16_t dtype)
{
	struct rt_task *t = &pl->t[pl->n];

	if (kind == T_NOTIFY_RECORD)
		rt_task_init(t, NPUSIM_SQE_NOTIFY_RECORD, "NOTIFY_RECORD");
	else if (kind == T_NOTIFY_WAIT)
		rt_task_init(t, NPUSIM_SQE_NOTIFY_WAIT, "NOTIFY_WAIT");
	else {
		rt_task_init(t, NPUSIM_SQE_SDMA, "MEMCPY_ASYNC");
		t->bytes = size;
		t->memcpy_op = 3; /* device to device */
	}
	pl->info[pl->n].kind = (uint8_t)kind;
	pl->info[pl->n].plane = plane;
	pl->info[pl->n].src = src;
	pl->info[pl->n].dst = dst;
	pl->info[pl->n].size = size;
	pl->info[pl->n].notify = UINT64_MAX;
	/* as real HCCL reports them (a 910B rank's COMMUNICATION_TASK_INFO):
	 * a notify wait over LOCAL, the rest over SDMA; a copy to itself on
	 * chip, to a peer over HCCS; no link for notifies */
	pl->info[pl->n].transport = kind == T_NOTIFY_WAIT ? 2 : 0; /* LOCAL : SDMA */
	pl->info[pl->n].link = kind == T_NOTIFY_RECORD || kind == T_NOTIFY_WAIT ?
				       NPUPROF_ENUM_INVALID :
			       src == dst ? 0 :
					    1; /* ON_CHIP : HCCS */
	pl->info[pl->n].dtype = dtype;
	pl->n++;
}

static void notify_rec(struct hplan *pl, const struct group *g, uint32_t r, uint32_t p,
		       uint32_t plane, int par)
{
	uint32_t id = g->notify[p][r][par];

	add(pl, T_NOTIFY_RECORD, plane, r, p, 0, NPUPROF_ENUM_INVALID);
	npusim_sqe_set_sync_id(&pl->t[pl->n - 1].sqe, id);
	pl->t[pl->n - 1].model.target_dev = NPUSIM_TARGET_DEV((uint32_t)g->dev[p]);
	pl->info[pl->n - 1].notify = (uint64_t)g->dev[p] << 32 | id;
}

static void notify_wait(struct hplan *pl, const struct group *g, uint32_t r, uint32_t p,
			uint32_t plane, int par)
{
	uint32_t id = g->notify[r][p][par];

	add(pl, T_NOTIFY_WAIT, plane, r, p, 0, NPUPROF_ENUM_INVALID);
	npusim_sqe_set_sync_id(&pl->t[pl->n - 1].sqe, id);
	pl->info[pl->n - 1].notify = (uint64_t)g->dev[r] << 32 | id;
}

/* One exchange of rank r with `peers`; xfer < 0: no transfers. */
static void exchange(struct hplan *pl, const struct group *g, uint32_t r, const uint32_t *peers,
		     int np, int xfer, uint64_t chunk, uint16_t dtype)
{
	for (int i = 0; i < np; i++)
		notify_rec(pl, g, r, peers[i], (uint32_t)i, 0);
	for (int i = 0; i < np; i++)
		notify_wait(pl, g, r, peers[i], (uint32_t)i, 0);
	for (int i = 0; xfer >= 0 && i < np; i++)
		add(pl, xfer, (uint32_t)i, r, peers[i], chunk,
		    xfer == T_REDUCE ? dtype : NPUPROF_ENUM_INVALID);
	for (int i = 0; i < np; i++)
		notify_rec(pl, g, r, peers[i], (uint32_t)i, 1);
	for (int i = 0; i < np; i++)
		notify_wait(pl, g, r, peers[i], (uint32_t)i, 1);
}

static const char *hccl_type_name(int kind)
{
	static const char *n[] = { "Notify_Record", "Notify_Wait", "Memcpy", "Reduce_Inline" };

	return n[kind];
}

static void record_op(int op, const struct comm *c, const struct rt_stream *s, struct hplan *pl,
		      uint64_t op_seq, const char *op_name, uint64_t count, HcclDataType dt,
		      uint64_t start, uint64_t conn)
{
	const struct group *g = c->g;
	uint64_t name_id = rtprof_str(op_name), group_id = rtprof_str(g->name);
	uint64_t type_ids[4];

	for (int k = 0; k < 4; k++)
		type_ids[k] = rtprof_str(hccl_type_name(k));
	for (int i = 0; i < pl->n; i++) {
		struct npuprof_hostfmt_hccl_task r = {
			.device_id = (uint32_t)s->dev,
			.time_ns = pl->t[i].time_ns,
			.connection_id = conn,
			.op_seq = op_seq,
			.op_name_id = name_id,
			.group_name_id = group_id,
			.task_type_id = type_ids[pl->info[i].kind],
			.stream_id = s->sid,
			.task_id = pl->t[i].task_id,
			.is_master = 1,
			.batch_id = pl->t[i].batch_id,
			.context_id = NPUPROF_NO_ID32,
			.plane_id = pl->info[i].plane,
			.src_rank = pl->info[i].src,
			.dst_rank = pl->info[i].dst,
			.transport_type = pl->info[i].transport,
			.link_type = pl->info[i].link,
			.rdma_type = NPUPROF_ENUM_INVALID,
			.data_type = pl->info[i].dtype,
			.size = pl->info[i].size,
			.notify_id = pl->info[i].notify,
		};

		rtprof_hccl_task(&r);
	}
	{
		uint64_t type_id = rtprof_str(g_ops[op].type), alg_id = rtprof_str(g_ops[op].alg);
		struct npuprof_hostfmt_hccl_op r = {
			.device_id = (uint32_t)s->dev,
			.start_ns = start,
			.end_ns = rtprof_now(),
			.connection_id = conn,
			.op_seq = op_seq,
			.op_name_id = name_id,
			.op_type_id = type_id,
			.group_name_id = group_id,
			.alg_type_id = alg_id,
			.count = count,
			.data_type = (uint32_t)dt,
			.rank = c->rank,
			.rank_size = g->n,
			.stream_id = s->sid,
			.task_count = (uint32_t)pl->n,
		};

		rtprof_hccl_op(&r);
	}
}

/* Runs collective `op` on rank c: peer is the root (broadcast) or the
 * partner (send/recv). */
static HcclResult run(int op, struct comm *c, uint64_t count, HcclDataType dt, uint32_t peer,
		      int local_copy, aclrtStream stream)
{
	struct group *g;
	struct rt_stream *s;
	struct rt_api a, node, comm_api;
	struct hplan *pl;
	uint32_t peers[MAX_RANKS];
	uint64_t bytes, start, op_seq;
	char op_name[160];
	int np = 0;
	aclError ret;

	if (!c || dtype_size(dt) == 0)
		return HCCL_E_PARA;
	g = c->g;
	if ((op == OP_BROADCAST || op == OP_SEND || op == OP_RECV) && (peer >= g->n))
		return HCCL_E_PARA;
	if ((op == OP_SEND || op == OP_RECV) && peer == c->rank)
		return HCCL_E_PARA;
	if (rt_stream_get(stream, &s) || s->dev != g->dev[c->rank])
		return HCCL_E_PARA;
	pl = malloc(sizeof(*pl));
	if (!pl)
		return HCCL_E_MEMORY;
	pl->n = 0;
	bytes = count * dtype_size(dt);
	if (op == OP_SEND || op == OP_RECV || (op == OP_BROADCAST && c->rank != peer)) {
		peers[np++] = peer;
	} else {
		for (uint32_t k = 1; k < g->n; k++)
			peers[np++] = (c->rank + k) % g->n;
	}
	if (local_copy)
		add(pl, T_MEMCPY, 0, c->rank, c->rank, op == OP_ALLGATHER ? bytes : bytes,
		    NPUPROF_ENUM_INVALID);
	switch (op) {
	case OP_ALLREDUCE:
		exchange(pl, g, c->rank, peers, np, T_REDUCE, bytes / g->n, (uint16_t)dt);
		exchange(pl, g, c->rank, peers, np, T_MEMCPY, bytes / g->n, (uint16_t)dt);
		break;
	case OP_REDUCESCATTER:
		exchange(pl, g, c->rank, peers, np, T_REDUCE, bytes, (uint16_t)dt);
		break;
	case OP_ALLGATHER:
		exchange(pl, g, c->rank, peers, np, T_MEMCPY, bytes, (uint16_t)dt);
		break;
	case OP_BROADCAST:
		exchange(pl, g, c->rank, peers, np, c->rank == peer ? -1 : T_MEMCPY, bytes,
			 (uint16_t)dt);
		break;
	case OP_SEND: exchange(pl, g, c->rank, peers, np, -1, bytes, (uint16_t)dt); break;
	case OP_RECV: exchange(pl, g, c->rank, peers, np, T_MEMCPY, bytes, (uint16_t)dt); break;
	}
	/* hcom_allReduce__<n>_<seq>_<k> */
	snprintf(op_name, sizeof(op_name), "%s_%u_%u_1", g_ops[op].type, g->tag, c->seq[op]++);
	op_seq = atomic_fetch_add(&g_op_seq, 1);
	start = rtprof_now();
	rt_api_begin(&a, NPUPROF_API_ACL, g_ops[op].type, op_name);
	rt_api_begin(&node, NPUPROF_API_NODE, "launch", op_name);
	rt_api_begin(&comm_api, NPUPROF_API_HCCL, g_ops[op].func, op_name);
	ret = rt_submit(s, pl->t, pl->n);
	rt_api_end(&comm_api, ret);
	if (!ret && RT_UNLIKELY(node.on))
		record_op(op, c, s, pl, op_seq, op_name, count, dt, start, node.conn);
	rt_api_end(&node, ret);
	rt_api_end(&a, ret);
	free(pl);
	return ret ? HCCL_E_RUNTIME : HCCL_SUCCESS;
}

HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
			 HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
	if (!sendBuf || !recvBuf || (unsigned)op >= HCCL_REDUCE_RESERVED)
		return HCCL_E_PTR;
	return run(OP_ALLREDUCE, comm_get(comm), count, dataType, 0, 1, stream);
}

HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root,
			 HcclComm comm, aclrtStream stream)
{
	if (!buf)
		return HCCL_E_PTR;
	return run(OP_BROADCAST, comm_get(comm), count, dataType, root, 0, stream);
}

HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
			 HcclComm comm, aclrtStream stream)
{
	if (!sendBuf || !recvBuf)
		return HCCL_E_PTR;
	return run(OP_ALLGATHER, comm_get(comm), sendCount, dataType, 0, 1, stream);
}

HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
			     HcclDataType dataType, HcclReduceOp op, HcclComm comm,
			     aclrtStream stream)
{
	if (!sendBuf || !recvBuf || (unsigned)op >= HCCL_REDUCE_RESERVED)
		return HCCL_E_PTR;
	return run(OP_REDUCESCATTER, comm_get(comm), recvCount, dataType, 0, 1, stream);
}

HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
		    HcclComm comm, aclrtStream stream)
{
	if (!sendBuf)
		return HCCL_E_PTR;
	return run(OP_SEND, comm_get(comm), count, dataType, destRank, 0, stream);
}

HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
		    HcclComm comm, aclrtStream stream)
{
	if (!recvBuf)
		return HCCL_E_PTR;
	return run(OP_RECV, comm_get(comm), count, dataType, srcRank, 0, stream);
}
