// Custom allocators registered on a stream: the callbacks come back as
// registered (also after the descriptor is destroyed), a second
// registration replaces the first, unregistering drops them.
#include "acl/acl_rt_allocator.h"
#include "check.h"

static int g_allocs;
static char g_mem[256];

static void *my_alloc(aclrtAllocator a, size_t size)
{
    ++*static_cast<int *>(a);
    return size <= sizeof(g_mem) ? g_mem : nullptr;
}
static void my_free(aclrtAllocator, aclrtAllocatorBlock) {}
static void *my_addr(aclrtAllocatorBlock b) { return b; }

int main()
{
    OK(aclInit(nullptr));
    OK(aclrtSetDevice(0));
    aclrtStream s;
    OK(aclrtCreateStream(&s));
    aclrtAllocatorDesc desc = aclrtAllocatorCreateDesc();
    TRUE(desc != nullptr);
    OK(aclrtAllocatorSetObjToDesc(desc, &g_allocs));
    OK(aclrtAllocatorSetAllocFuncToDesc(desc, my_alloc));
    OK(aclrtAllocatorSetFreeFuncToDesc(desc, my_free));
    // incomplete: no address callback yet
    EXPECT(aclrtAllocatorRegister(s, desc), ACL_ERROR_INVALID_PARAM);
    OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, my_addr));
    EXPECT(aclrtAllocatorRegister(nullptr, desc), ACL_ERROR_INVALID_PARAM);
    OK(aclrtAllocatorRegister(s, desc));

    aclrtAllocatorDesc d = nullptr;
    aclrtAllocator obj = nullptr;
    aclrtAllocatorAllocFunc af = nullptr;
    aclrtAllocatorFreeFunc ff = nullptr;
    aclrtAllocatorAllocAdviseFunc adv = nullptr;
    aclrtAllocatorGetAddrFromBlockFunc gf = nullptr;
    OK(aclrtAllocatorDestroyDesc(desc)); // the registration holds its own copy
    OK(aclrtAllocatorGetByStream(s, &d, &obj, &af, &ff, &adv, &gf));
    TRUE(d == desc && obj == &g_allocs && af == my_alloc && ff == my_free && gf == my_addr);
    TRUE(adv == nullptr);
    aclrtAllocatorBlock b = af(obj, 64);
    TRUE(gf(b) == g_mem);
    EXPECT(g_allocs, 1);

    // another stream has none
    aclrtStream other;
    OK(aclrtCreateStream(&other));
    EXPECT(aclrtAllocatorGetByStream(other, &d, &obj, &af, &ff, &adv, &gf), ACL_ERROR_INVALID_PARAM);
    OK(aclrtAllocatorUnregister(s));
    EXPECT(aclrtAllocatorGetByStream(s, &d, &obj, &af, &ff, &adv, &gf), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtAllocatorUnregister(s), ACL_ERROR_INVALID_PARAM);
    OK(aclrtDestroyStream(other));
    OK(aclrtDestroyStream(s));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    std::printf("[SUCCESS] rt_allocator\n");
    return 0;
}
