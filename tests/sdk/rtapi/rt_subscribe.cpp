// Model subscription (acl_prof.h): a model GE has registered
// (MsprofSetDeviceIdByGeModelIdx, as aclmdlLoadFromFile does) can be
// subscribed once, with a config that names the write end of a pipe;
// unsubscribing closes it, so the reader sees the end of the data (no
// model runs on npusim: no descriptor comes). Other model ids are
// ACL_ERROR_INVALID_MODEL_ID. The descriptor getters read CANN's 80-byte
// signed records: built here as CANN's profiler writes them.
#include <cstdint>
#include <cstring>
#include <pthread.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "check.h"
#include "profiling/aprof_pub.h"

struct Desc { // CANN's op descriptor, as a reader of the fd sees it
    uint32_t signature, modelId, flag, threadId;
    uint64_t opIndex, duration, start, end, executionTime, cubeFops, vectorFops;
    uint32_t devId;
};

// CANN's signature: CRC-32C of the bytes after it, from ~0, not inverted
static void sign(Desc &d)
{
    const uint8_t *p = reinterpret_cast<const uint8_t *>(&d) + 4;
    uint32_t c = ~0U;
    for (size_t i = 0; i < sizeof(d) - 4; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0x82F63B78U & (0U - (c & 1U)));
    }
    d.signature = c;
}

static size_t g_read = 1;

static void *reader(void *fd)
{
    char buf[800];
    ssize_t n;
    g_read = 0;
    while ((n = read(*static_cast<int *>(fd), buf, sizeof(buf))) > 0)
        g_read += static_cast<size_t>(n);
    return nullptr;
}

int main()
{
    OK(aclInit(nullptr));
    size_t size = 0;
    OK(aclprofGetOpDescSize(&size));
    EXPECT(size, 80);
    EXPECT(sizeof(Desc), 80);
    EXPECT(aclprofGetOpDescSize(nullptr), ACL_ERROR_INVALID_PARAM);

    int fd[2];
    TRUE(pipe(fd) == 0);
    TRUE(aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, nullptr) == nullptr);
    TRUE(aclprofCreateSubscribeConfig(2, ACL_AICORE_NONE, &fd[1]) == nullptr);
    aclprofSubscribeConfig *cfg = aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &fd[1]);
    TRUE(cfg != nullptr);

    // a model that was never loaded
    EXPECT(aclprofModelSubscribe(5, cfg), ACL_ERROR_INVALID_MODEL_ID);
    EXPECT(aclprofModelUnSubscribe(5), ACL_ERROR_INVALID_MODEL_ID);
    // a loaded one: subscribed once, its data ends at unsubscribe
    EXPECT(MsprofSetDeviceIdByGeModelIdx(3, 0), 0);
    EXPECT(aclprofModelUnSubscribe(3), ACL_ERROR_INVALID_MODEL_ID); // not subscribed
    OK(aclprofModelSubscribe(3, cfg));
    EXPECT(aclprofModelSubscribe(3, cfg), ACL_ERROR_PROF_REPEAT_SUBSCRIBE);
    pthread_t t;
    TRUE(pthread_create(&t, nullptr, reader, &fd[0]) == 0);
    usleep(100000);
    OK(aclprofModelUnSubscribe(3));
    TRUE(pthread_join(t, nullptr) == 0); // the end of the data: fd[1] closed
    EXPECT(g_read, 0);
    EXPECT(write(fd[1], "x", 1), -1);
    EXPECT(aclprofModelUnSubscribe(3), ACL_ERROR_INVALID_MODEL_ID);
    close(fd[0]);
    OK(aclprofDestroySubscribeConfig(cfg));
    EXPECT(aclprofDestroySubscribeConfig(nullptr), ACL_ERROR_INVALID_PARAM);
    EXPECT(MsprofUnsetDeviceIdByGeModelIdx(3, 0), 0);
    EXPECT(aclprofModelSubscribe(3, nullptr), ACL_ERROR_INVALID_MODEL_ID); // unloaded

    // the getters over two descriptors
    Desc d[2];
    std::memset(d, 0, sizeof(d));
    for (int i = 0; i < 2; i++) {
        d[i].modelId = 3;
        d[i].flag = ACL_SUBSCRIBE_OP;
        d[i].opIndex = 1000 + i;
        d[i].start = 100 + 10 * i;
        d[i].end = 105 + 10 * i;
        d[i].duration = 5 + i;
        sign(d[i]);
    }
    uint32_t n = 0;
    OK(aclprofGetOpNum(d, sizeof(d), &n));
    EXPECT(n, 2);
    EXPECT(aclprofGetModelId(d, sizeof(d), 1), 3);
    EXPECT(aclprofGetOpStart(d, sizeof(d), 1), 110);
    EXPECT(aclprofGetOpEnd(d, sizeof(d), 1), 115);
    EXPECT(aclprofGetOpDuration(d, sizeof(d), 1), 6);
    EXPECT(aclprofGetOpFlag(d, sizeof(d), 0), ACL_SUBSCRIBE_OP);
    EXPECT(aclprofGetOpStart(d, sizeof(d), 2), 0); // out of range
    // no op of index 1000 has a type or name here
    size_t len = 0;
    char s[8];
    EXPECT(aclprofGetOpTypeLen(d, sizeof(d), 0, &len), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclprofGetOpType(d, sizeof(d), 0, s, sizeof(s)), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclprofGetOpNameLen(d, sizeof(d), 0, &len), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclprofGetOpName(d, sizeof(d), 0, s, sizeof(s)), ACL_ERROR_INVALID_PARAM);
    // not whole descriptors, or not signed
    EXPECT(aclprofGetOpNum(d, sizeof(d) - 1, &n), ACL_ERROR_INVALID_PARAM);
    d[1].end++;
    EXPECT(aclprofGetOpNum(d, sizeof(d), &n), ACL_ERROR_INVALID_PARAM);
    EXPECT(aclprofGetOpEnd(d, sizeof(d), 0), 0);
    OK(aclprofGetOpNum(d, sizeof(Desc), &n));
    EXPECT(n, 1);

    OK(aclFinalize());
    std::printf("[SUCCESS] rt_subscribe\n");
    return 0;
}
