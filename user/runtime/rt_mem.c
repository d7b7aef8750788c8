/*
 * rt_mem.c - device memory, copies and peer access between devices.
 *
 * The simulated device has no memory of its own: aclrtMalloc returns host
 * memory behind a small header that marks it as "device" memory of the
 * current device, so that aclrtFree can reject pointers it did not hand
 * out. Copies move the bytes for real; aclrtMemcpyAsync also runs an SDMA
 * task of `count` bytes on the stream (the MEMCPY_ASYNC task CANN shows),
 * so copies take device time in proportion to their size.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_prof.h"
#include "u64map.h"

#define MEM_MAGIC 0x4e50554d454d0001ULL
#define MEM_HDR 64 /* keeps the returned pointer 64-byte aligned */

struct mem_hdr {
	uint64_t magic;
	uint64_t size;
	int32_t dev;
};

/* The pointers aclrtMalloc/aclrtMallocHost gave out and not yet freed: a
 * pointer is ours only if it is here, so that nothing reads the header in
 * front of memory the runtime did not allocate (a host buffer on the
 * stack, say: reading there was out of bounds). */
static struct u64map g_live;
static pthread_mutex_t g_live_lock = PTHREAD_MUTEX_INITIALIZER;

int rt_is_dev_ptr(const void *p)
{
	uint64_t v;
	int r;

	if (!p || ((uintptr_t)p & (MEM_HDR - 1)))
		return 0;
	pthread_mutex_lock(&g_live_lock);
	r = u64map_get(&g_live, (uint64_t)(uintptr_t)p, &v);
	pthread_mutex_unlock(&g_live_lock);
	return r && ((const struct mem_hdr *)((const char *)p - MEM_HDR))->magic == MEM_MAGIC;
}

static aclError mem_alloc(const char *api, void **ptr, size_t size, int need_dev)
{
	struct rt_api a;
	struct mem_hdr *h;
	aclError ret;
	int dev = -1;

	rt_api_begin(&a, NPUPROF_API_ACL, api, NULL);
	if (!ptr || size == 0 || size > ((size_t)1 << 40))
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	if (need_dev && (ret = rt_current_dev(&dev)))
		return rt_api_end(&a, ret);
	if (!need_dev && !rt_g.initialized)
		return rt_api_end(&a, ACL_ERROR_UNINITIALIZE);
	if (posix_memalign((void **)&h, MEM_HDR, MEM_HDR + size))
		return rt_api_end(&a, ACL_ERROR_RT_MEMORY_ALLOCATION);
	h->magic = MEM_MAGIC;
	h->size = size;
	h->dev = dev;
	pthread_mutex_lock(&g_live_lock);
	ret = u64map_put(&g_live, (uint64_t)(uintptr_t)((char *)h + MEM_HDR), 1) < 0 ?
		      ACL_ERROR_RT_MEMORY_ALLOCATION :
		      ACL_SUCCESS;
	pthread_mutex_unlock(&g_live_lock);
	if (ret) {
		free(h);
		return rt_api_end(&a, ret);
	}
	*ptr = (char *)h + MEM_HDR;
	return rt_api_end(&a, ACL_SUCCESS);
}

static aclError mem_free(const char *api, void *ptr)
{
	struct rt_api a;
	struct mem_hdr *h;

	rt_api_begin(&a, NPUPROF_API_ACL, api, NULL);
	if (!ptr)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	if (!rt_g.initialized)
		return rt_api_end(&a, ACL_ERROR_UNINITIALIZE);
	if (!rt_is_dev_ptr(ptr))
		return rt_api_end(&a, ACL_ERROR_RT_PARAM_INVALID);
	h = (struct mem_hdr *)((char *)ptr - MEM_HDR);
	h->magic = 0;
	pthread_mutex_lock(&g_live_lock);
	u64map_del(&g_live, (uint64_t)(uintptr_t)ptr);
	pthread_mutex_unlock(&g_live_lock);
	free(h);
	return rt_api_end(&a, ACL_SUCCESS);
}

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
	if (policy > ACL_MEM_MALLOC_NORMAL_ONLY_P2P)
		return ACL_ERROR_INVALID_PARAM;
	return mem_alloc("aclrtMalloc", devPtr, size, 1);
}

aclError aclrtFree(void *devPtr)
{
	return mem_free("aclrtFree", devPtr);
}

aclError aclrtMallocHost(void **hostPtr, size_t size)
{
	return mem_alloc("aclrtMallocHost", hostPtr, size, 0);
}

aclError aclrtFreeHost(void *hostPtr)
{
	return mem_free("aclrtFreeHost", hostPtr);
}

/* The device of device memory p, -1 for host memory. */
static int dev_of(const void *p)
{
	return rt_is_dev_ptr(p) ? ((const struct mem_hdr *)((const char *)p - MEM_HDR))->dev : -1;
}

int rt_mem_dev(const void *p, size_t *size)
{
	if (!rt_is_dev_ptr(p))
		return -1;
	*size = ((const struct mem_hdr *)((const char *)p - MEM_HDR))->size;
	return dev_of(p);
}

int aclnpuMemSpan(const void *base, uint64_t offset, uint64_t size)
{
	uint64_t have;

	if (!rt_is_dev_ptr(base))
		return 0;
	have = ((const struct mem_hdr *)((const char *)base - MEM_HDR))->size;
	return offset <= have && size <= have - offset;
}

/* ---- peer access ---- */

/* g_peer[a][b]: device a may access device b's memory while both are in
 * the generations recorded (a release of either ends it; b need not be
 * open yet when a enables it: opening keeps the generation). rt_g.lock. */
static struct {
	int on;
	uint32_t gen_a, gen_b;
} g_peer[NPUSIM_MAX_DEVICES][NPUSIM_MAX_DEVICES];

static int peer_on_locked(int a, int b)
{
	return g_peer[a][b].on && g_peer[a][b].gen_a == rt_g.dev[a].gen &&
	       g_peer[a][b].gen_b == rt_g.dev[b].gen && rt_g.dev[a].fd >= 0 && rt_g.dev[b].fd >= 0;
}

static int peer_enabled(int from, int to)
{
	int on;

	if (from == to)
		return 1;
	if (from < 0 || to < 0 || from >= NPUSIM_MAX_DEVICES || to >= NPUSIM_MAX_DEVICES)
		return 0;
	pthread_mutex_lock(&rt_g.lock);
	on = peer_on_locked(from, to);
	pthread_mutex_unlock(&rt_g.lock);
	return on;
}

aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)
{
	if (!canAccessPeer)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if (!rt_g.initialized)
		return rt_fail(ACL_ERROR_UNINITIALIZE);
	if (deviceId < 0 || deviceId >= rt_g.ndev || peerDeviceId < 0 || peerDeviceId >= rt_g.ndev)
		return rt_fail(ACL_ERROR_RT_INVALID_DEVICEID);
	if (deviceId == peerDeviceId)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	*canAccessPeer = 1;
	return ACL_SUCCESS;
}

static aclError peer_set(const char *api, int32_t peer, int on)
{
	struct rt_api a;
	aclError ret;
	int dev;

	rt_api_begin(&a, NPUPROF_API_ACL, api, NULL);
	ret = rt_current_dev(&dev);
	if (ret)
		return rt_api_end(&a, ret);
	if (peer < 0 || peer >= rt_g.ndev)
		return rt_api_end(&a, ACL_ERROR_RT_INVALID_DEVICEID);
	if (peer == dev)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	pthread_mutex_lock(&rt_g.lock);
	if (!on && !(g_peer[dev][peer].on && g_peer[dev][peer].gen_a == rt_g.dev[dev].gen)) {
		rt_set_errmsg("%s: access of device %d to device %d is not enabled", api, dev,
			      peer);
		ret = ACL_ERROR_RT_PARAM_INVALID;
	} else {
		g_peer[dev][peer].on = on;
		g_peer[dev][peer].gen_a = rt_g.dev[dev].gen;
		g_peer[dev][peer].gen_b = rt_g.dev[peer].gen;
	}
	pthread_mutex_unlock(&rt_g.lock);
	return rt_api_end(&a, ret);
}

aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
	if (flags != 0)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	return peer_set("aclrtDeviceEnablePeerAccess", peerDeviceId, 1);
}

aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
	return peer_set("aclrtDeviceDisablePeerAccess", peerDeviceId, 0);
}

/* A copy between the memory of two devices runs on one of them (the
 * current device) with its access to the other enabled
 * (aclrtDeviceEnablePeerAccess), as CANN's P2P copies. */
static aclError check_peer(void *dst, const void *src)
{
	int ds = dev_of(src), dd = dev_of(dst), cur;

	if (ds < 0 || dd < 0 || ds == dd)
		return ACL_SUCCESS;
	if (rt_current_dev(&cur))
		return ACL_ERROR_RT_CONTEXT_NULL;
	if ((cur == ds && peer_enabled(ds, dd)) || (cur == dd && peer_enabled(dd, ds)))
		return ACL_SUCCESS;
	rt_set_errmsg("copy between devices %d and %d on device %d: peer access not enabled", ds,
		      dd, cur);
	return ACL_ERROR_RT_PARAM_INVALID;
}

static aclError check_copy(void *dst, size_t destMax, const void *src, size_t count,
			   aclrtMemcpyKind kind)
{
	if (!dst || !src || count > destMax || (unsigned)kind > ACL_MEMCPY_DEFAULT)
		return ACL_ERROR_INVALID_PARAM;
	if (!rt_g.initialized)
		return ACL_ERROR_UNINITIALIZE;
	return check_peer(dst, src);
}

/* ENUM_MEMCPY_OPERATION of a copy: the kind, or inferred for DEFAULT. */
static uint32_t memcpy_op(void *dst, const void *src, aclrtMemcpyKind kind)
{
	if (kind != ACL_MEMCPY_DEFAULT)
		return (uint32_t)kind;
	return (rt_is_dev_ptr(src) ? 2u : 0u) | (rt_is_dev_ptr(dst) ? 1u : 0u);
}

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
	struct rt_api a;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtMemcpy", NULL);
	ret = check_copy(dst, destMax, src, count, kind);
	if (!ret)
		ret = rt_capture_unsafe("aclrtMemcpy");
	if (!ret && count)
		memmove(dst, src, count);
	return rt_api_end(&a, ret);
}

/* A copy task's bytes move when it is sent (rt_submit). */
static void host_copy(const struct rt_task *t)
{
	if (t->bytes)
		memmove(t->host_dst, t->host_src, t->bytes);
}

aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
			  aclrtMemcpyKind kind, aclrtStream stream)
{
	struct rt_api a, r;
	struct rt_stream *s;
	struct rt_task t;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtMemcpyAsync", NULL);
	ret = check_copy(dst, destMax, src, count, kind);
	if (!ret)
		ret = rt_stream_get(stream, &s);
	if (ret)
		return rt_api_end(&a, ret);
	rt_api_begin(&r, NPUPROF_API_RUNTIME, "MemcpyAsync", NULL);
	rt_task_init(&t, NPUSIM_SQE_SDMA, "MEMCPY_ASYNC");
	t.host = host_copy;
	t.host_dst = dst;
	t.host_src = src;
	t.bytes = count;
	t.memcpy_op = memcpy_op(dst, src, kind);
	ret = rt_submit(s, &t, 1);
	rt_api_end(&r, ret);
	return rt_api_end(&a, ret);
}
