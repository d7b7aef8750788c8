/*
 * rt_tdtq.c - CANN's shared queues and routes (acl/acl_tdt_queue.h) as
 * queues of the process: what npusim can honour of them (the header says
 * what and why).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl_tdt_queue.h"
#include "rt_internal.h"

#define TDTQ_NAME_MAX 128 /* RT_MQ_MAX_NAME_LEN, with the NUL */
#define TDTQ_DEPTH_DEFAULT 8
#define TDTQ_DEPTH_MIN 2
#define TDTQ_DEPTH_MAX 8192
#define TDTQ_MAX 1024 /* queues at a time */
#define TDTQ_USER_DATA 64
#define TDTQ_ROUTES_MAX 4096

struct tagMemQueueAttr {
	char name[TDTQ_NAME_MAX];
	uint32_t depth;
};

struct acltdtQueueRoute {
	uint32_t src, dst;
	int32_t status;
};

struct acltdtQueueRouteList {
	struct acltdtQueueRoute *r;
	size_t n, cap;
};

struct acltdtQueueRouteQueryInfo {
	acltdtQueueRouteQueryMode mode;
	uint32_t src, dst;
};

struct tdtq_msg {
	struct tdtq_msg *next;
	size_t size, usize;
	uint8_t user[TDTQ_USER_DATA];
	uint8_t data[];
};

struct tdtq {
	int used;
	char name[TDTQ_NAME_MAX];
	uint32_t depth, count;
	struct tdtq_msg *head, *tail;
};

/* the queues and bound routes of the process */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* a message came or went */
	struct tdtq q[TDTQ_MAX];
	struct acltdtQueueRoute routes[TDTQ_ROUTES_MAX];
	size_t nroutes;
} g_tq = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

/* ---- attributes ---------------------------------------------------------------- */

acltdtQueueAttr *acltdtCreateQueueAttr(void)
{
	acltdtQueueAttr *a = calloc(1, sizeof(*a));

	if (!a) {
		rt_fail(ACL_ERROR_BAD_ALLOC);
		return NULL;
	}
	a->depth = TDTQ_DEPTH_DEFAULT;
	return a;
}

aclError acltdtDestroyQueueAttr(const acltdtQueueAttr *attr)
{
	if (!attr)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	free((void *)attr);
	return ACL_SUCCESS;
}

aclError acltdtSetQueueAttr(acltdtQueueAttr *attr, acltdtQueueAttrType type, size_t len,
			    const void *param)
{
	const char *name;

	if (!attr || !param)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	switch (type) {
	case ACL_TDT_QUEUE_NAME_PTR:
		if (len != sizeof(name))
			break;
		memcpy(&name, param, sizeof(name));
		if (!name || strnlen(name, TDTQ_NAME_MAX) >= TDTQ_NAME_MAX) {
			rt_set_errmsg("acltdtSetQueueAttr: a queue name is below %d bytes",
				      TDTQ_NAME_MAX);
			return rt_fail(ACL_ERROR_INVALID_PARAM);
		}
		strcpy(attr->name, name);
		return ACL_SUCCESS;
	case ACL_TDT_QUEUE_DEPTH_UINT32:
		if (len != sizeof(attr->depth))
			break;
		memcpy(&attr->depth, param, sizeof(attr->depth));
		return ACL_SUCCESS;
	default: break;
	}
	rt_set_errmsg("acltdtSetQueueAttr: attribute %d of %zu bytes (NAME_PTR: a char *, "
		      "DEPTH_UINT32: a uint32_t)",
		      (int)type, len);
	return rt_fail(ACL_ERROR_INVALID_PARAM);
}

/* Copies size bytes of src to param (len bytes), its size to *ret. */
static aclError copy_out(const void *src, size_t size, void *param, size_t len, size_t *ret)
{
	if (!param || !ret || len < size)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	memcpy(param, src, size);
	*ret = size;
	return ACL_SUCCESS;
}

aclError acltdtGetQueueAttr(const acltdtQueueAttr *attr, acltdtQueueAttrType type, size_t len,
			    size_t *paramRetSize, void *param)
{
	const char *name;

	if (!attr)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	switch (type) {
	case ACL_TDT_QUEUE_NAME_PTR:
		name = attr->name;
		return copy_out(&name, sizeof(name), param, len, paramRetSize);
	case ACL_TDT_QUEUE_DEPTH_UINT32:
		return copy_out(&attr->depth, sizeof(attr->depth), param, len, paramRetSize);
	default: return rt_fail(ACL_ERROR_INVALID_PARAM);
	}
}

/* ---- queues ---------------------------------------------------------------------- */

aclError acltdtCreateQueue(const acltdtQueueAttr *attr, uint32_t *qid)
{
	aclError ret;
	int dev;

	if (!attr || !qid)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if (attr->depth < TDTQ_DEPTH_MIN || attr->depth > TDTQ_DEPTH_MAX) {
		rt_set_errmsg("acltdtCreateQueue: depth %u (%d to %d)", attr->depth, TDTQ_DEPTH_MIN,
			      TDTQ_DEPTH_MAX);
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	}
	if ((ret = rt_current_dev(&dev)))
		return rt_fail(ret);
	pthread_mutex_lock(&g_tq.lock);
	for (uint32_t i = 0; i < TDTQ_MAX; i++) {
		struct tdtq *q = &g_tq.q[i];

		if (!q->used) {
			memset(q, 0, sizeof(*q));
			q->used = 1;
			q->depth = attr->depth;
			strcpy(q->name, attr->name);
			*qid = i;
			pthread_mutex_unlock(&g_tq.lock);
			return ACL_SUCCESS;
		}
	}
	pthread_mutex_unlock(&g_tq.lock);
	rt_set_errmsg("acltdtCreateQueue: %d queues exist already", TDTQ_MAX);
	return rt_fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL);
}

static struct tdtq *queue_locked(uint32_t qid)
{
	return qid < TDTQ_MAX && g_tq.q[qid].used ? &g_tq.q[qid] : NULL;
}

aclError acltdtDestroyQueue(uint32_t qid)
{
	struct tdtq *q;

	pthread_mutex_lock(&g_tq.lock);
	if (!(q = queue_locked(qid))) {
		pthread_mutex_unlock(&g_tq.lock);
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	}
	while (q->head) {
		struct tdtq_msg *m = q->head;

		q->head = m->next;
		free(m);
	}
	q->used = 0;
	/* its routes go with it */
	for (size_t i = 0; i < g_tq.nroutes;)
		if (g_tq.routes[i].src == qid || g_tq.routes[i].dst == qid)
			g_tq.routes[i] = g_tq.routes[--g_tq.nroutes];
		else
			i++;
	pthread_cond_broadcast(&g_tq.cond);
	pthread_mutex_unlock(&g_tq.lock);
	return ACL_SUCCESS;
}

/* Waits (g_tq.lock held) until ready(qid) or the timeout (ms; -1 forever,
 * 0 not at all); ACL_SUCCESS when ready, busy on timeout,
 * ACL_ERROR_INVALID_PARAM if the queue went. */
static aclError queue_wait(uint32_t qid, int (*ready)(uint32_t), int32_t timeout, aclError busy)
{
	struct timespec end;

	if (timeout < -1)
		return ACL_ERROR_INVALID_PARAM;
	rt_tdt_deadline(&end, timeout);
	for (;;) {
		if (!queue_locked(qid))
			return ACL_ERROR_INVALID_PARAM;
		if (ready(qid))
			return ACL_SUCCESS;
		if (!timeout)
			return busy;
		if (timeout < 0)
			pthread_cond_wait(&g_tq.cond, &g_tq.lock);
		else if (pthread_cond_timedwait(&g_tq.cond, &g_tq.lock, &end) == ETIMEDOUT)
			return ready(qid) ? ACL_SUCCESS : busy;
	}
}

/* where a message enqueued to qid goes: the destinations of its bound
 * routes, or qid itself */
static size_t targets_locked(uint32_t qid, uint32_t *out)
{
	size_t n = 0;

	for (size_t i = 0; i < g_tq.nroutes; i++)
		if (g_tq.routes[i].src == qid && queue_locked(g_tq.routes[i].dst))
			out[n++] = g_tq.routes[i].dst;
	if (!n)
		out[n++] = qid;
	return n;
}

static int has_room(uint32_t qid)
{
	static uint32_t t[TDTQ_ROUTES_MAX + 1];
	size_t n = targets_locked(qid, t);

	for (size_t i = 0; i < n; i++)
		if (g_tq.q[t[i]].count >= g_tq.q[t[i]].depth)
			return 0;
	return 1;
}

static int has_msg(uint32_t qid)
{
	return g_tq.q[qid].head != NULL;
}

aclError acltdtEnqueueData(uint32_t qid, const void *data, size_t dataSize, const void *userData,
			   size_t userDataSize, int32_t timeout, uint32_t rsv)
{
	static uint32_t t[TDTQ_ROUTES_MAX + 1];
	aclError ret;
	size_t n;

	if ((dataSize && !data) || (userDataSize && !userData) || userDataSize > TDTQ_USER_DATA ||
	    dataSize > SIZE_MAX / 2) {
		rt_set_errmsg("acltdtEnqueueData: %zu bytes at %p, %zu bytes of user data (at most "
			      "%d) at %p",
			      dataSize, data, userDataSize, TDTQ_USER_DATA, userData);
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	}
	pthread_mutex_lock(&g_tq.lock);
	ret = queue_wait(qid, has_room, timeout, ACL_ERROR_RT_QUEUE_FULL);
	if (ret) {
		pthread_mutex_unlock(&g_tq.lock);
		return rt_fail(ret);
	}
	n = targets_locked(qid, t); /* t is g_tq.lock's */
	for (size_t i = 0; i < n; i++) {
		struct tdtq *q = &g_tq.q[t[i]];
		struct tdtq_msg *m = malloc(sizeof(*m) + dataSize);

		if (!m) {
			ret = ACL_ERROR_BAD_ALLOC;
			break;
		}
		m->next = NULL;
		m->size = dataSize;
		m->usize = userDataSize;
		if (dataSize)
			memcpy(m->data, data, dataSize);
		if (userDataSize)
			memcpy(m->user, userData, userDataSize);
		if (q->tail)
			q->tail->next = m;
		else
			q->head = m;
		q->tail = m;
		q->count++;
	}
	pthread_cond_broadcast(&g_tq.cond);
	pthread_mutex_unlock(&g_tq.lock);
	return rt_fail(ret);
}

aclError acltdtDequeueData(uint32_t qid, void *data, size_t dataSize, size_t *retDataSize,
			   void *userData, size_t userDataSize, int32_t timeout)
{
	struct tdtq_msg *m;
	struct tdtq *q;
	aclError ret;

	if (!retDataSize || (dataSize && !data) || (userDataSize && !userData))
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	pthread_mutex_lock(&g_tq.lock);
	ret = queue_wait(qid, has_msg, timeout, ACL_ERROR_RT_QUEUE_EMPTY);
	if (ret) {
		pthread_mutex_unlock(&g_tq.lock);
		return rt_fail(ret);
	}
	q = &g_tq.q[qid];
	m = q->head;
	if (m->size > dataSize || m->usize > userDataSize) {
		rt_set_errmsg("acltdtDequeueData: the message has %zu bytes and %zu of user data; "
			      "room for %zu and %zu",
			      m->size, m->usize, dataSize, userDataSize);
		pthread_mutex_unlock(&g_tq.lock);
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	}
	q->head = m->next;
	if (!q->head)
		q->tail = NULL;
	q->count--;
	pthread_cond_broadcast(&g_tq.cond);
	pthread_mutex_unlock(&g_tq.lock);
	if (m->size)
		memcpy(data, m->data, m->size);
	if (m->usize)
		memcpy(userData, m->user, m->usize);
	*retDataSize = m->size;
	free(m);
	return ACL_SUCCESS;
}

/* ---- routes ---------------------------------------------------------------------- */

acltdtQueueRoute *acltdtCreateQueueRoute(uint32_t srcId, uint32_t dstId)
{
	acltdtQueueRoute *r = calloc(1, sizeof(*r));

	if (!r) {
		rt_fail(ACL_ERROR_BAD_ALLOC);
		return NULL;
	}
	r->src = srcId;
	r->dst = dstId;
	r->status = ACL_TDT_QUEUE_ROUTE_UNBIND;
	return r;
}

aclError acltdtDestroyQueueRoute(const acltdtQueueRoute *route)
{
	if (!route)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	free((void *)route);
	return ACL_SUCCESS;
}

aclError acltdtGetQueueRouteParam(const acltdtQueueRoute *route, acltdtQueueRouteParamType type,
				  size_t len, size_t *paramRetSize, void *param)
{
	if (!route)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	switch (type) {
	case ACL_TDT_QUEUE_ROUTE_SRC_UINT32:
		return copy_out(&route->src, sizeof(route->src), param, len, paramRetSize);
	case ACL_TDT_QUEUE_ROUTE_DST_UINT32:
		return copy_out(&route->dst, sizeof(route->dst), param, len, paramRetSize);
	case ACL_TDT_QUEUE_ROUTE_STATUS_INT32:
		return copy_out(&route->status, sizeof(route->status), param, len, paramRetSize);
	default: return rt_fail(ACL_ERROR_INVALID_PARAM);
	}
}

acltdtQueueRouteList *acltdtCreateQueueRouteList(void)
{
	acltdtQueueRouteList *l = calloc(1, sizeof(*l));

	if (!l)
		rt_fail(ACL_ERROR_BAD_ALLOC);
	return l;
}

aclError acltdtDestroyQueueRouteList(const acltdtQueueRouteList *routeList)
{
	if (!routeList)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	free(routeList->r);
	free((void *)routeList);
	return ACL_SUCCESS;
}

static aclError list_add(acltdtQueueRouteList *l, const struct acltdtQueueRoute *r)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4;
		struct acltdtQueueRoute *p = realloc(l->r, cap * sizeof(*p));

		if (!p)
			return ACL_ERROR_BAD_ALLOC;
		l->r = p;
		l->cap = cap;
	}
	l->r[l->n++] = *r;
	return ACL_SUCCESS;
}

aclError acltdtAddQueueRoute(acltdtQueueRouteList *routeList, const acltdtQueueRoute *route)
{
	if (!routeList || !route)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	return rt_fail(list_add(routeList, route));
}

aclError acltdtGetQueueRoute(const acltdtQueueRouteList *routeList, size_t index,
			     acltdtQueueRoute *route)
{
	if (!routeList || !route || index >= routeList->n)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	*route = routeList->r[index];
	return ACL_SUCCESS;
}

size_t acltdtGetQueueRouteNum(const acltdtQueueRouteList *routeList)
{
	return routeList ? routeList->n : 0;
}

static ssize_t route_find_locked(uint32_t src, uint32_t dst)
{
	for (size_t i = 0; i < g_tq.nroutes; i++)
		if (g_tq.routes[i].src == src && g_tq.routes[i].dst == dst)
			return (ssize_t)i;
	return -1;
}

/* Binds (bind) or unbinds every route of the list; each route's status in
 * the list says what became of it. All of them or an error. */
static aclError routes_set(acltdtQueueRouteList *l, int bind)
{
	aclError ret = ACL_SUCCESS;

	if (!l)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	pthread_mutex_lock(&g_tq.lock);
	for (size_t i = 0; i < l->n; i++) {
		struct acltdtQueueRoute *r = &l->r[i];
		ssize_t at = route_find_locked(r->src, r->dst);

		if (bind) {
			if (!queue_locked(r->src) || !queue_locked(r->dst) || r->src == r->dst) {
				rt_set_errmsg("acltdtBindQueueRoutes: no route from queue %u to %u",
					      r->src, r->dst);
				r->status = ACL_TDT_QUEUE_ROUTE_BIND_ABNORMAL;
				ret = ACL_ERROR_INVALID_PARAM;
				continue;
			}
			if (at < 0 && g_tq.nroutes == TDTQ_ROUTES_MAX) {
				r->status = ACL_TDT_QUEUE_ROUTE_BIND_ABNORMAL;
				ret = ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
				continue;
			}
			if (at < 0) {
				g_tq.routes[g_tq.nroutes] = *r;
				g_tq.routes[g_tq.nroutes++].status = ACL_TDT_QUEUE_ROUTE_BIND;
			}
			r->status = ACL_TDT_QUEUE_ROUTE_BIND;
		} else {
			if (at >= 0)
				g_tq.routes[at] = g_tq.routes[--g_tq.nroutes];
			r->status = ACL_TDT_QUEUE_ROUTE_UNBIND;
		}
	}
	pthread_cond_broadcast(&g_tq.cond);
	pthread_mutex_unlock(&g_tq.lock);
	return rt_fail(ret);
}

aclError acltdtBindQueueRoutes(acltdtQueueRouteList *qRouteList)
{
	return routes_set(qRouteList, 1);
}

aclError acltdtUnbindQueueRoutes(acltdtQueueRouteList *qRouteList)
{
	return routes_set(qRouteList, 0);
}

acltdtQueueRouteQueryInfo *acltdtCreateQueueRouteQueryInfo(void)
{
	acltdtQueueRouteQueryInfo *q = calloc(1, sizeof(*q));

	if (!q)
		rt_fail(ACL_ERROR_BAD_ALLOC);
	return q;
}

aclError acltdtDestroyQueueRouteQueryInfo(const acltdtQueueRouteQueryInfo *info)
{
	if (!info)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	free((void *)info);
	return ACL_SUCCESS;
}

aclError acltdtSetQueueRouteQueryInfo(acltdtQueueRouteQueryInfo *param,
				      acltdtQueueRouteQueryInfoParamType type, size_t len,
				      const void *value)
{
	if (!param || !value)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	switch (type) {
	case ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM:
		if (len != sizeof(param->mode))
			break;
		memcpy(&param->mode, value, sizeof(param->mode));
		return ACL_SUCCESS;
	case ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32:
		if (len != sizeof(param->src))
			break;
		memcpy(&param->src, value, sizeof(param->src));
		return ACL_SUCCESS;
	case ACL_TDT_QUEUE_ROUTE_QUERY_DST_ID_UINT32:
		if (len != sizeof(param->dst))
			break;
		memcpy(&param->dst, value, sizeof(param->dst));
		return ACL_SUCCESS;
	default: break;
	}
	return rt_fail(ACL_ERROR_INVALID_PARAM);
}

aclError acltdtQueryQueueRoutes(const acltdtQueueRouteQueryInfo *queryInfo,
				acltdtQueueRouteList *qRouteList)
{
	aclError ret = ACL_SUCCESS;
	acltdtQueueRouteQueryMode mode;

	if (!queryInfo || !qRouteList)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	mode = queryInfo->mode;
	if (mode != ACL_TDT_QUEUE_ROUTE_QUERY_SRC && mode != ACL_TDT_QUEUE_ROUTE_QUERY_DST &&
	    mode != ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST &&
	    mode != ACL_TDT_QUEUE_ROUTE_QUERY_ABNORMAL)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	qRouteList->n = 0;
	pthread_mutex_lock(&g_tq.lock);
	for (size_t i = 0; i < g_tq.nroutes && !ret; i++) {
		const struct acltdtQueueRoute *r = &g_tq.routes[i];
		int src = r->src == queryInfo->src, dst = r->dst == queryInfo->dst;

		if ((mode == ACL_TDT_QUEUE_ROUTE_QUERY_SRC && src) ||
		    (mode == ACL_TDT_QUEUE_ROUTE_QUERY_DST && dst) ||
		    (mode == ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST && src && dst))
			ret = list_add(qRouteList, r);
		/* ABNORMAL: bound routes here are never abnormal */
	}
	pthread_mutex_unlock(&g_tq.lock);
	return rt_fail(ret);
}
