/*
 * acl_rt_allocator.h - custom allocators registered per stream, as CANN's.
 *
 * npuprof's own text; names, types and signatures match CANN's
 * acl/acl_rt_allocator.h. A descriptor collects the caller's allocator
 * object and callbacks; aclrtAllocatorRegister copies them onto a stream
 * (the descriptor may be destroyed afterwards; a second registration
 * replaces the first), aclrtAllocatorGetByStream hands them back, and
 * aclrtAllocatorUnregister drops them. Registration needs the object and
 * the alloc, free and get-address callbacks (advise is optional):
 * ACL_ERROR_INVALID_PARAM otherwise. On npusim nothing of the runtime
 * allocates through them (CANN's single-op and dynamic-shape model
 * executions do; npusim has neither): they are kept for the program.
 */
#ifndef INC_EXTERNAL_ACL_ACL_RT_ALLOCATOR_H_
#define INC_EXTERNAL_ACL_ACL_RT_ALLOCATOR_H_

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void *(*aclrtAllocatorAllocFunc)(aclrtAllocator allocator, size_t size);
typedef void (*aclrtAllocatorFreeFunc)(aclrtAllocator allocator, aclrtAllocatorBlock block);
typedef void *(*aclrtAllocatorAllocAdviseFunc)(aclrtAllocator allocator, size_t size,
					       aclrtAllocatorAddr addr);
typedef void *(*aclrtAllocatorGetAddrFromBlockFunc)(aclrtAllocatorBlock block);

/* NULL only when out of memory. */
ACL_FUNC_VISIBILITY aclrtAllocatorDesc aclrtAllocatorCreateDesc(void);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc,
							aclrtAllocator allocator);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc,
							      aclrtAllocatorAllocFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc,
							     aclrtAllocatorFreeFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetAllocAdviseFuncToDesc(
	aclrtAllocatorDesc allocatorDesc, aclrtAllocatorAllocAdviseFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(
	aclrtAllocatorDesc allocatorDesc, aclrtAllocatorGetAddrFromBlockFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorRegister(aclrtStream stream,
						    aclrtAllocatorDesc allocatorDesc);
/* ACL_ERROR_INVALID_PARAM if the stream has none registered. */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorGetByStream(
	aclrtStream stream, aclrtAllocatorDesc *allocatorDesc, aclrtAllocator *allocator,
	aclrtAllocatorAllocFunc *allocFunc, aclrtAllocatorFreeFunc *freeFunc,
	aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
	aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorUnregister(aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_RT_ALLOCATOR_H_ */
