// tdt queues (acl/acl_tdt_queue.h) on npusim: attributes as set, queues
// with their depth (QUEUE_FULL past it, QUEUE_EMPTY when drained), messages
// in order with their user data, a bound route moving what is enqueued to
// its source on to its destination, found by the queries, gone when
// unbound.
#include <cstring>

#include "acl/acl_tdt_queue.h"
#include "check.h"

static uint32_t queue(const char *name, uint32_t depth)
{
    acltdtQueueAttr *a = acltdtCreateQueueAttr();
    TRUE(a != nullptr);
    OK(acltdtSetQueueAttr(a, ACL_TDT_QUEUE_NAME_PTR, sizeof(name), &name));
    OK(acltdtSetQueueAttr(a, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof(depth), &depth));
    const char *got = nullptr;
    uint32_t d = 0;
    size_t n = 0;
    OK(acltdtGetQueueAttr(a, ACL_TDT_QUEUE_NAME_PTR, sizeof(got), &n, &got));
    TRUE(n == sizeof(got) && std::strcmp(got, name) == 0);
    OK(acltdtGetQueueAttr(a, ACL_TDT_QUEUE_DEPTH_UINT32, sizeof(d), &n, &d));
    TRUE(n == 4 && d == depth);
    uint32_t qid = 0;
    OK(acltdtCreateQueue(a, &qid));
    OK(acltdtDestroyQueueAttr(a));
    return qid;
}

// the routes a query finds; the first must be want_src -> want_dst, bound
static size_t query(acltdtQueueRouteQueryMode mode, uint32_t src, uint32_t dst, uint32_t want_src,
                    uint32_t want_dst)
{
    acltdtQueueRouteQueryInfo *qi = acltdtCreateQueueRouteQueryInfo();
    OK(acltdtSetQueueRouteQueryInfo(qi, ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM, sizeof(mode), &mode));
    OK(acltdtSetQueueRouteQueryInfo(qi, ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32, 4, &src));
    OK(acltdtSetQueueRouteQueryInfo(qi, ACL_TDT_QUEUE_ROUTE_QUERY_DST_ID_UINT32, 4, &dst));
    acltdtQueueRouteList *l = acltdtCreateQueueRouteList();
    OK(acltdtQueryQueueRoutes(qi, l));
    size_t n = acltdtGetQueueRouteNum(l);
    if (n) {
        acltdtQueueRoute *r = acltdtCreateQueueRoute(0, 0);
        OK(acltdtGetQueueRoute(l, 0, r));
        uint32_t s = 9, d = 9;
        int32_t st = 9;
        size_t sz;
        OK(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_SRC_UINT32, 4, &sz, &s));
        OK(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_DST_UINT32, 4, &sz, &d));
        OK(acltdtGetQueueRouteParam(r, ACL_TDT_QUEUE_ROUTE_STATUS_INT32, 4, &sz, &st));
        TRUE(s == want_src && d == want_dst && st == ACL_TDT_QUEUE_ROUTE_BIND);
        OK(acltdtDestroyQueueRoute(r));
    }
    OK(acltdtDestroyQueueRouteList(l));
    OK(acltdtDestroyQueueRouteQueryInfo(qi));
    return n;
}

int main()
{
    OK(aclInit(nullptr));
    uint32_t bad = 0;
    acltdtQueueAttr *a = acltdtCreateQueueAttr();
    EXPECT(acltdtCreateQueue(a, &bad), ACL_ERROR_RT_CONTEXT_NULL); // no device set
    OK(aclrtSetDevice(0));
    uint32_t one = 1;
    OK(acltdtSetQueueAttr(a, ACL_TDT_QUEUE_DEPTH_UINT32, 4, &one));
    EXPECT(acltdtCreateQueue(a, &bad), ACL_ERROR_INVALID_PARAM); // depth 2 to 8192
    OK(acltdtDestroyQueueAttr(a));

    uint32_t src = queue("rt_src", 2), dst = queue("rt_dst", 4);
    TRUE(src != dst);
    int v = 1, u = 0;
    char user[8] = "tag";
    OK(acltdtEnqueueData(src, &v, 4, user, 4, 0, 0));
    v = 2;
    OK(acltdtEnqueueData(src, &v, 4, nullptr, 0, 0, 0));
    EXPECT(acltdtEnqueueData(src, &v, 4, nullptr, 0, 10, 0), ACL_ERROR_RT_QUEUE_FULL);
    size_t n = 0;
    char ugot[8] = {};
    OK(acltdtDequeueData(src, &u, 4, &n, ugot, sizeof(ugot), 0));
    TRUE(u == 1 && n == 4 && std::strcmp(ugot, "tag") == 0);
    OK(acltdtDequeueData(src, &u, 4, &n, nullptr, 0, 0));
    TRUE(u == 2);
    EXPECT(acltdtDequeueData(src, &u, 4, &n, nullptr, 0, 0), ACL_ERROR_RT_QUEUE_EMPTY);

    // bound, src -> dst: what goes to src comes out of dst
    acltdtQueueRoute *r = acltdtCreateQueueRoute(src, dst);
    acltdtQueueRouteList *l = acltdtCreateQueueRouteList();
    OK(acltdtAddQueueRoute(l, r));
    OK(acltdtBindQueueRoutes(l));
    TRUE(query(ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST, src, dst, src, dst) == 1);
    TRUE(query(ACL_TDT_QUEUE_ROUTE_QUERY_SRC, src, 999, src, dst) == 1);
    TRUE(query(ACL_TDT_QUEUE_ROUTE_QUERY_DST, 999, dst, src, dst) == 1);
    TRUE(query(ACL_TDT_QUEUE_ROUTE_QUERY_SRC, dst, 999, 0, 0) == 0);
    v = 7;
    OK(acltdtEnqueueData(src, &v, 4, nullptr, 0, 0, 0));
    EXPECT(acltdtDequeueData(src, &u, 4, &n, nullptr, 0, 0), ACL_ERROR_RT_QUEUE_EMPTY);
    OK(acltdtDequeueData(dst, &u, 4, &n, nullptr, 0, 0));
    TRUE(u == 7);
    // unbound: none found, messages stay in src
    OK(acltdtUnbindQueueRoutes(l));
    TRUE(query(ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST, src, dst, 0, 0) == 0);
    OK(acltdtEnqueueData(src, &v, 4, nullptr, 0, 0, 0));
    EXPECT(acltdtDequeueData(dst, &u, 4, &n, nullptr, 0, 0), ACL_ERROR_RT_QUEUE_EMPTY);
    OK(acltdtDequeueData(src, &u, 4, &n, nullptr, 0, 0));
    // a route to a queue that does not exist is not bound
    acltdtQueueRoute *r2 = acltdtCreateQueueRoute(src, 1000);
    acltdtQueueRouteList *l2 = acltdtCreateQueueRouteList();
    OK(acltdtAddQueueRoute(l2, r2));
    EXPECT(acltdtBindQueueRoutes(l2), ACL_ERROR_INVALID_PARAM);

    OK(acltdtDestroyQueueRouteList(l2));
    OK(acltdtDestroyQueueRoute(r2));
    OK(acltdtDestroyQueueRouteList(l));
    OK(acltdtDestroyQueueRoute(r));
    OK(acltdtDestroyQueue(src));
    OK(acltdtDestroyQueue(dst));
    EXPECT(acltdtDestroyQueue(dst), ACL_ERROR_INVALID_PARAM);
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    std::printf("[SUCCESS] rt_tdt_queue\n");
    return 0;
}
