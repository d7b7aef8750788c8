/*
 * rt_mem.c - device memory and copies.
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

#include "rt_internal.h"

#define MEM_MAGIC 0x4e50554d454d0001ULL
#define MEM_HDR 64 /* keeps the returned pointer 64-byte aligned */

struct mem_hdr {
	uint64_t magic;
	uint64_t size;
	int32_t dev;
};

int rt_is_dev_ptr(const void *p)
{
	const struct mem_hdr *h = (const void *)((const char *)p - MEM_HDR);

	return p && ((uintptr_t)p & (MEM_HDR - 1)) == 0 && h->magic == MEM_MAGIC;
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

static aclError check_copy(void *dst, size_t destMax, const void *src, size_t count,
			   aclrtMemcpyKind kind)
{
	if (!dst || !src || count > destMax || (unsigned)kind > ACL_MEMCPY_DEFAULT)
		return ACL_ERROR_INVALID_PARAM;
	if (!rt_g.initialized)
		return ACL_ERROR_UNINITIALIZE;
	return ACL_SUCCESS;
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
	if (!ret && count)
		memmove(dst, src, count);
	return rt_api_end(&a, ret);
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
	if (count)
		memmove(dst, src, count);
	rt_task_init(&t, NPUSIM_SQE_SDMA, "MEMCPY_ASYNC");
	t.bytes = count;
	t.memcpy_op = memcpy_op(dst, src, kind);
	ret = rt_submit(s, &t, 1);
	rt_api_end(&r, ret);
	return rt_api_end(&a, ret);
}
