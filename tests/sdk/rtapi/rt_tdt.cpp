// tdt channels (acl/acl_tdt.h) with a capacity on npusim: messages come out
// in order with the bytes they had when sent, a full channel and an empty
// one say so (at once, or after the timeout), a blocked receive is woken
// by a send from another thread and by acltdtStopChannel, clean empties
// the channel; a channel without a capacity is CANN's "feature not
// supported".
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "acl/acl_tdt.h"
#include "check.h"

static acltdtDataset *dataset(std::vector<float> &v)
{
    int64_t dims[2] = {1, static_cast<int64_t>(v.size())};
    acltdtDataset *d = acltdtCreateDataset();
    TRUE(d != nullptr);
    acltdtDataItem *it = acltdtCreateDataItem(ACL_TENSOR_DATA_TENSOR, dims, 2, ACL_FLOAT, v.data(),
                                              v.size() * sizeof(float));
    TRUE(it != nullptr);
    OK(acltdtAddDataItem(d, it));
    return d;
}

static void destroy(acltdtDataset *d)
{
    for (size_t i = 0; i < acltdtGetDatasetSize(d); i++)
        OK(acltdtDestroyDataItem(acltdtGetDataItem(d, i)));
    OK(acltdtDestroyDataset(d));
}

static float first(const acltdtDataset *d)
{
    TRUE(acltdtGetDatasetSize(d) == 1);
    const acltdtDataItem *it = acltdtGetDataItem(d, 0);
    int64_t dims[2];
    OK(acltdtGetDimsFromItem(it, dims, 2));
    TRUE(dims[0] == 1 && dims[1] == 4 && acltdtGetDataSizeFromItem(it) == 16);
    TRUE(acltdtGetDataTypeFromItem(it) == ACL_FLOAT);
    return static_cast<const float *>(acltdtGetDataAddrFromItem(it))[0];
}

int main()
{
    OK(aclInit(nullptr));
    OK(aclrtSetDevice(0));
    TRUE(acltdtCreateChannel(0, "plain") == nullptr);
    EXPECT(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    TRUE(acltdtCreateChannelWithCapacity(64, "nodev", 2) == nullptr);

    acltdtChannelHandle *c = acltdtCreateChannelWithCapacity(0, "rt_tdt", 2);
    TRUE(c != nullptr);
    std::vector<float> a = {1, 2, 3, 4}, b = {5, 6, 7, 8}, x = {9, 9, 9, 9};
    acltdtDataset *da = dataset(a), *db = dataset(b), *dx = dataset(x);
    OK(acltdtSendTensor(c, da, 1000));
    a[0] = 100; // sent: the channel has its own copy
    OK(acltdtSendTensor(c, db, 0));
    size_t n = 0;
    OK(acltdtQueryChannelSize(c, &n));
    TRUE(n == 2);
    EXPECT(acltdtSendTensor(c, dx, 0), ACL_ERROR_RT_QUEUE_FULL);
    auto t0 = std::chrono::steady_clock::now();
    EXPECT(acltdtSendTensor(c, dx, 50), ACL_ERROR_RT_QUEUE_FULL);
    TRUE(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(50));

    acltdtDataset *r = acltdtCreateDataset();
    OK(acltdtReceiveTensor(c, r, 0));
    TRUE(first(r) == 1);
    TRUE(std::strcmp(acltdtGetDatasetName(r), "rt_tdt") == 0);
    OK(acltdtReceiveTensor(c, r, -1)); // refilled: the first message's items freed
    TRUE(first(r) == 5);
    OK(acltdtQueryChannelSize(c, &n));
    TRUE(n == 0);
    EXPECT(acltdtReceiveTensor(c, r, 0), ACL_ERROR_RT_QUEUE_EMPTY);

    // a receive blocked forever is woken by a send from another thread
    std::thread sender([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        OK(acltdtSendTensor(c, dx, -1));
    });
    OK(acltdtReceiveTensor(c, r, -1));
    TRUE(first(r) == 9);
    sender.join();

    // clean empties the channel
    OK(acltdtSendTensor(c, da, 0));
    OK(acltdtCleanChannel(c));
    OK(acltdtQueryChannelSize(c, &n));
    TRUE(n == 0);

    // and stop wakes a blocked receive, which then says the channel is empty
    std::thread stopper([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        OK(acltdtStopChannel(c));
    });
    EXPECT(acltdtReceiveTensor(c, r, -1), ACL_ERROR_RT_QUEUE_EMPTY);
    stopper.join();

    OK(acltdtDestroyDataset(r));
    destroy(da);
    destroy(db);
    destroy(dx);
    OK(acltdtDestroyChannel(c));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    std::printf("[SUCCESS] rt_tdt\n");
    return 0;
}
