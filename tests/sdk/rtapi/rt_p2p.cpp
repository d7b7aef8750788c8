// Peer access between two npusim devices: a device-to-device copy between
// them needs it enabled on the copying device; it then moves the bytes.
#include <cstring>

#include "check.h"

int main()
{
    uint32_t n = 0;
    int32_t can = -1;
    OK(aclInit(nullptr));
    OK(aclrtGetDeviceCount(&n));
    TRUE(n >= 2);
    OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
    EXPECT(can, 1);
    EXPECT(aclrtDeviceCanAccessPeer(&can, 0, 0), ACL_ERROR_INVALID_PARAM);

    const size_t size = 1 << 16;
    void *d0, *d1;
    unsigned char *host = new unsigned char[size];
    OK(aclrtSetDevice(0));
    // as CANN's example: device 0 enables its access before device 1 is open
    OK(aclrtDeviceEnablePeerAccess(1, 0));
    OK(aclrtMalloc(&d0, size, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
    OK(aclrtMemset(d0, size, 0x77, size));
    OK(aclrtSetDevice(1));
    OK(aclrtMalloc(&d1, size, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
    OK(aclrtMemset(d1, size, 0, size));
    // not enabled yet: refused
    EXPECT(aclrtMemcpy(d1, size, d0, size, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtDeviceDisablePeerAccess(0), ACL_ERROR_RT_PARAM_INVALID);
    EXPECT(aclrtDeviceEnablePeerAccess(1, 0), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclrtDeviceEnablePeerAccess(0, 1), ACL_ERROR_INVALID_PARAM);
    OK(aclrtDeviceEnablePeerAccess(0, 0));
    OK(aclrtMemcpy(d1, size, d0, size, ACL_MEMCPY_DEVICE_TO_DEVICE));
    OK(aclrtMemcpy(host, size, d1, size, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(host[0], 0x77);
    EXPECT(host[size - 1], 0x77);
    // device 0's access, enabled before device 1 opened, holds: copy back
    OK(aclrtSetDevice(0));
    OK(aclrtMemset(d0, size, 0, size));
    OK(aclrtMemcpy(d0, size, d1, size, ACL_MEMCPY_DEVICE_TO_DEVICE));
    OK(aclrtMemcpy(host, size, d0, size, ACL_MEMCPY_DEVICE_TO_HOST));
    EXPECT(host[size / 2], 0x77);
    // one direction only: device 1 disabled its access, device 0's remains
    OK(aclrtSetDevice(1));
    OK(aclrtDeviceDisablePeerAccess(0));
    EXPECT(aclrtMemcpy(d1, size, d0, size, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtSetDevice(0));
    OK(aclrtMemcpy(d1, size, d0, size, ACL_MEMCPY_DEVICE_TO_DEVICE));
    OK(aclrtSetDevice(1));
    OK(aclrtFree(d1));
    OK(aclrtResetDeviceForce(1));
    // disabling after the peer is gone succeeds (CANN's example does it)
    OK(aclrtSetDevice(0));
    OK(aclrtDeviceDisablePeerAccess(1));
    EXPECT(aclrtDeviceDisablePeerAccess(1), ACL_ERROR_RT_PARAM_INVALID);
    OK(aclrtFree(d0));
    delete[] host;
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    std::printf("[SUCCESS] rt_p2p\n");
    return 0;
}
