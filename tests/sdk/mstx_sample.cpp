/*
 * The shape of CANN's 3_mstx_with_domain sample, written against the
 * installed SDK only (mstx/ms_tools_ext.h, acl/acl.h; no npuprof header):
 * ranges and marks in the default domain and in a created one, with the
 * stream, around work on that stream. Like CANN's it starts no profiling
 * itself: `npuprof record` (msprof --mstx=on) profiles it.
 *
 *   mstx_sample           built like CANN's sample (libmsprofiler.so, dl)
 *   mstx_sample_ext       the same, linked to libms_tools_ext.so instead
 * Without devices it makes the same calls host only and exits 0.
 */
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "mstx/ms_tools_ext.h"

#define ACL_CALL(x)                                                       \
	do {                                                              \
		aclError e_ = (x);                                        \
		if (e_ != ACL_SUCCESS) {                                  \
			std::fprintf(stderr, "%s call failed, error code: %d\n", #x, e_); \
			return e_;                                        \
		}                                                         \
	} while (0)

namespace {
aclrtStream stream = nullptr;
mstxDomainHandle_t domainRange;
std::string g_domainRangeName = "DoAclAdd_Inner";

int DoWork(aclrtStream s)
{
	std::vector<float> host(1024, 1.0f);
	void *dev = nullptr;

	mstxDomainMarkA(domainRange, "Create alpha aclScalar", s);
	if (s) {
		ACL_CALL(aclrtMalloc(&dev, host.size() * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST));
		ACL_CALL(aclrtMemcpyAsync(dev, host.size() * sizeof(float), host.data(),
					  host.size() * sizeof(float), ACL_MEMCPY_HOST_TO_DEVICE, s));
	}
	uint64_t id = mstxDomainRangeStartA(domainRange, "After aclnnAdd", s);
	if (s) {
		ACL_CALL(aclrtSynchronizeStream(s));
		ACL_CALL(aclrtFree(dev));
	}
	mstxDomainRangeEnd(domainRange, id);
	return 0;
}
} // namespace

int main()
{
	uint32_t count = 0;

	ACL_CALL(aclInit(nullptr));
	ACL_CALL(aclrtGetDeviceCount(&count));
	if (count > 0) {
		ACL_CALL(aclrtSetDevice(0));
		ACL_CALL(aclrtCreateStream(&stream));
	}
	domainRange = mstxDomainCreateA(g_domainRangeName.c_str());
	if (!domainRange)
		return 1;
	uint64_t id = mstxRangeStartA("TestMstxWithDomain", stream);
	mstxMarkA("DoAclAdd Start", stream);
	int ret = DoWork(stream);
	mstxRangeEnd(id);
	mstxDomainDestroy(domainRange);
	if (stream) {
		ACL_CALL(aclrtSynchronizeStream(stream));
		ACL_CALL(aclrtDestroyStream(stream));
		ACL_CALL(aclrtResetDevice(0));
	}
	ACL_CALL(aclFinalize());
	std::printf("mstx_sample: %s\n", count ? "ran on device 0" : "no device; host only");
	return ret;
}
