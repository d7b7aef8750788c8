/*
 * rt_tdt.c - CANN's tensor data transfer channels (acl/acl_tdt.h): data
 * items, datasets, and channels with a capacity as queues of the process
 * (what npusim can honour of them: the header says what and why).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl_tdt.h"
#include "rt_internal.h"

#define TDT_DIMS_MAX 128 /* CANN's ACL_MAX_DIM_CNT */
#define TDT_CAPACITY_MIN 2
#define TDT_CAPACITY_MAX 8192

struct acltdtDataItem {
	acltdtTensorType type;
	aclDataType dtype;
	size_t ndim;
	int64_t dims[TDT_DIMS_MAX];
	void *data;
	size_t size;
	int owns_data; /* received: data is this item's copy */
};

struct acltdtDataset {
	acltdtDataItem **items;
	size_t n, cap;
	size_t owned; /* the first `owned` items were received: the dataset's */
	char name[128];
};

/* a message: its items' copies, in order */
struct tdt_msg {
	struct tdt_msg *next;
	size_t n;
	acltdtDataItem items[];
};

struct acltdtChannelHandle {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* a message came or went, or the channel stopped */
	struct tdt_msg *head, *tail;
	size_t count, capacity;
	int stopped;
	uint32_t dev;
	char name[128];
};

/* ---- data items --------------------------------------------------------------- */

acltdtTensorType acltdtGetTensorTypeFromItem(const acltdtDataItem *dataItem)
{
	return dataItem ? dataItem->type : ACL_TENSOR_DATA_UNDEFINED;
}

aclDataType acltdtGetDataTypeFromItem(const acltdtDataItem *dataItem)
{
	return dataItem ? dataItem->dtype : ACL_DT_UNDEFINED;
}

void *acltdtGetDataAddrFromItem(const acltdtDataItem *dataItem)
{
	return dataItem ? dataItem->data : NULL;
}

size_t acltdtGetDataSizeFromItem(const acltdtDataItem *dataItem)
{
	return dataItem ? dataItem->size : 0;
}

size_t acltdtGetDimNumFromItem(const acltdtDataItem *dataItem)
{
	return dataItem ? dataItem->ndim : 0;
}

aclError acltdtGetSliceInfoFromItem(const acltdtDataItem *dataItem, size_t *sliceNum,
				    size_t *sliceId)
{
	if (!dataItem || !sliceNum || !sliceId)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	*sliceNum = 0;
	*sliceId = 0;
	return ACL_SUCCESS;
}

aclError acltdtGetDimsFromItem(const acltdtDataItem *dataItem, int64_t *dims, size_t dimNum)
{
	if (!dataItem || (!dims && dataItem->ndim) || dimNum < dataItem->ndim) {
		rt_set_errmsg("acltdtGetDimsFromItem: the item has %zu dims, room for %zu given",
			      dataItem ? dataItem->ndim : 0, dimNum);
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	}
	if (dataItem->ndim)
		memcpy(dims, dataItem->dims, dataItem->ndim * sizeof(*dims));
	return ACL_SUCCESS;
}

acltdtDataItem *acltdtCreateDataItem(acltdtTensorType tdtType, const int64_t *dims, size_t dimNum,
				     aclDataType dataType, void *data, size_t size)
{
	acltdtDataItem *it;

	if (dimNum > TDT_DIMS_MAX || (dimNum && !dims) || (size && !data)) {
		rt_set_errmsg("acltdtCreateDataItem: %zu dims (at most %d) at %p, %zu bytes at %p",
			      dimNum, TDT_DIMS_MAX, (const void *)dims, size, data);
		rt_fail(ACL_ERROR_INVALID_PARAM);
		return NULL;
	}
	if (!(it = calloc(1, sizeof(*it)))) {
		rt_fail(ACL_ERROR_BAD_ALLOC);
		return NULL;
	}
	it->type = tdtType;
	it->dtype = dataType;
	it->ndim = dimNum;
	if (dimNum)
		memcpy(it->dims, dims, dimNum * sizeof(*dims));
	it->data = data;
	it->size = size;
	return it;
}

aclError acltdtDestroyDataItem(acltdtDataItem *dataItem)
{
	if (!dataItem)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if (dataItem->owns_data)
		free(dataItem->data);
	free(dataItem);
	return ACL_SUCCESS;
}

/* ---- datasets -------------------------------------------------------------------- */

acltdtDataset *acltdtCreateDataset(void)
{
	acltdtDataset *d = calloc(1, sizeof(*d));

	if (!d)
		rt_fail(ACL_ERROR_BAD_ALLOC);
	return d;
}

static void dataset_drop_owned(acltdtDataset *d)
{
	for (size_t i = 0; i < d->owned; i++)
		acltdtDestroyDataItem(d->items[i]);
	memmove(d->items, d->items + d->owned, (d->n - d->owned) * sizeof(*d->items));
	d->n -= d->owned;
	d->owned = 0;
}

aclError acltdtDestroyDataset(acltdtDataset *dataset)
{
	if (!dataset)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	dataset_drop_owned(dataset);
	free(dataset->items);
	free(dataset);
	return ACL_SUCCESS;
}

acltdtDataItem *acltdtGetDataItem(const acltdtDataset *dataset, size_t index)
{
	if (!dataset || index >= dataset->n) {
		rt_fail(ACL_ERROR_INVALID_PARAM);
		return NULL;
	}
	return dataset->items[index];
}

static aclError dataset_add(acltdtDataset *d, acltdtDataItem *it)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 4;
		acltdtDataItem **p = realloc(d->items, cap * sizeof(*p));

		if (!p)
			return ACL_ERROR_BAD_ALLOC;
		d->items = p;
		d->cap = cap;
	}
	d->items[d->n++] = it;
	return ACL_SUCCESS;
}

aclError acltdtAddDataItem(acltdtDataset *dataset, acltdtDataItem *dataItem)
{
	if (!dataset || !dataItem)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	return rt_fail(dataset_add(dataset, dataItem));
}

size_t acltdtGetDatasetSize(const acltdtDataset *dataset)
{
	return dataset ? dataset->n : 0;
}

const char *acltdtGetDatasetName(const acltdtDataset *dataset)
{
	return dataset ? dataset->name : NULL;
}

/* ---- channels ------------------------------------------------------------------ */

acltdtChannelHandle *acltdtCreateChannel(uint32_t deviceId, const char *name)
{
	rt_set_errmsg("acltdtCreateChannel: a channel without a capacity talks to a program on "
		      "device %u, which npusim does not run; use "
		      "acltdtCreateChannelWithCapacity",
		      deviceId);
	rt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	return NULL;
}

acltdtChannelHandle *acltdtCreateChannelWithCapacity(uint32_t deviceId, const char *name,
						     size_t capacity)
{
	acltdtChannelHandle *c;
	uint32_t n = 0;

	if (!name || strlen(name) >= sizeof(c->name) || capacity < TDT_CAPACITY_MIN ||
	    capacity > TDT_CAPACITY_MAX) {
		rt_set_errmsg("acltdtCreateChannelWithCapacity: name of %zu characters (below "
			      "%zu), capacity %zu (%d to %d)",
			      name ? strlen(name) : 0, sizeof(c->name), capacity, TDT_CAPACITY_MIN,
			      TDT_CAPACITY_MAX);
		rt_fail(ACL_ERROR_INVALID_PARAM);
		return NULL;
	}
	if (aclrtGetDeviceCount(&n) != ACL_SUCCESS || deviceId >= n) {
		rt_set_errmsg("acltdtCreateChannelWithCapacity: no device %u (%u devices)",
			      deviceId, n);
		rt_fail(ACL_ERROR_INVALID_PARAM);
		return NULL;
	}
	if (!(c = calloc(1, sizeof(*c)))) {
		rt_fail(ACL_ERROR_BAD_ALLOC);
		return NULL;
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	c->capacity = capacity;
	c->dev = deviceId;
	strcpy(c->name, name);
	return c;
}

static void msg_free(struct tdt_msg *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->items[i].data);
	free(m);
}

static void channel_clean_locked(acltdtChannelHandle *c)
{
	while (c->head) {
		struct tdt_msg *m = c->head;

		c->head = m->next;
		msg_free(m);
	}
	c->tail = NULL;
	c->count = 0;
	pthread_cond_broadcast(&c->cond);
}

aclError acltdtDestroyChannel(acltdtChannelHandle *handle)
{
	if (!handle)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	channel_clean_locked(handle);
	pthread_cond_destroy(&handle->cond);
	pthread_mutex_destroy(&handle->lock);
	free(handle);
	return ACL_SUCCESS;
}

aclError acltdtCleanChannel(acltdtChannelHandle *handle)
{
	if (!handle)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	pthread_mutex_lock(&handle->lock);
	channel_clean_locked(handle);
	pthread_mutex_unlock(&handle->lock);
	return ACL_SUCCESS;
}

aclError acltdtStopChannel(acltdtChannelHandle *handle)
{
	if (!handle)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	pthread_mutex_lock(&handle->lock);
	handle->stopped = 1;
	pthread_cond_broadcast(&handle->cond);
	pthread_mutex_unlock(&handle->lock);
	return ACL_SUCCESS;
}

aclError acltdtQueryChannelSize(const acltdtChannelHandle *handle, size_t *size)
{
	acltdtChannelHandle *c = (acltdtChannelHandle *)handle;

	if (!c || !size)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	pthread_mutex_lock(&c->lock);
	*size = c->count;
	pthread_mutex_unlock(&c->lock);
	return ACL_SUCCESS;
}

/* The CLOCK_REALTIME time timeout ms from now (a tdt wait's end, for
 * pthread_cond_timedwait; rt_internal.h). */
void rt_tdt_deadline(struct timespec *end, int32_t timeout)
{
	clock_gettime(CLOCK_REALTIME, end);
	if (timeout <= 0)
		return;
	end->tv_sec += timeout / 1000;
	end->tv_nsec += (long)(timeout % 1000) * 1000000L;
	if (end->tv_nsec >= 1000000000L) {
		end->tv_sec++;
		end->tv_nsec -= 1000000000L;
	}
}

/* Waits (c->lock held) until ready(c) or the timeout (ms; -1 forever, 0 not
 * at all) or the channel stops; 0 when ready. */
static aclError channel_wait(acltdtChannelHandle *c, int (*ready)(const acltdtChannelHandle *),
			     int32_t timeout, aclError busy)
{
	struct timespec end;

	if (timeout < -1)
		return ACL_ERROR_INVALID_PARAM;
	rt_tdt_deadline(&end, timeout);
	while (!ready(c) && !c->stopped && timeout) {
		if (timeout < 0)
			pthread_cond_wait(&c->cond, &c->lock);
		else if (pthread_cond_timedwait(&c->cond, &c->lock, &end) == ETIMEDOUT)
			break;
	}
	if (ready(c))
		return ACL_SUCCESS;
	if (c->stopped)
		rt_set_errmsg("tdt channel %s: stopped (acltdtStopChannel)", c->name);
	return busy;
}

static int has_room(const acltdtChannelHandle *c)
{
	return c->count < c->capacity;
}

static int has_msg(const acltdtChannelHandle *c)
{
	return c->head != NULL;
}

aclError acltdtSendTensor(const acltdtChannelHandle *handle, const acltdtDataset *dataset,
			  int32_t timeout)
{
	acltdtChannelHandle *c = (acltdtChannelHandle *)handle;
	struct tdt_msg *m;
	aclError ret;

	if (!c || !dataset)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	m = calloc(1, sizeof(*m) + dataset->n * sizeof(m->items[0]));
	if (!m)
		return rt_fail(ACL_ERROR_BAD_ALLOC);
	m->n = dataset->n;
	for (size_t i = 0; i < dataset->n; i++) {
		acltdtDataItem *it = &m->items[i];

		*it = *dataset->items[i];
		it->owns_data = 1;
		it->data = NULL;
		if (it->size && !(it->data = malloc(it->size))) {
			msg_free(m);
			return rt_fail(ACL_ERROR_BAD_ALLOC);
		}
		if (it->size)
			memcpy(it->data, dataset->items[i]->data, it->size);
	}
	pthread_mutex_lock(&c->lock);
	ret = channel_wait(c, has_room, timeout, ACL_ERROR_RT_QUEUE_FULL);
	if (!ret) {
		if (c->tail)
			c->tail->next = m;
		else
			c->head = m;
		c->tail = m;
		c->count++;
		pthread_cond_broadcast(&c->cond);
	}
	pthread_mutex_unlock(&c->lock);
	if (ret)
		msg_free(m);
	return rt_fail(ret);
}

aclError acltdtReceiveTensor(const acltdtChannelHandle *handle, acltdtDataset *dataset,
			     int32_t timeout)
{
	acltdtChannelHandle *c = (acltdtChannelHandle *)handle;
	struct tdt_msg *m = NULL;
	acltdtDataItem **items;
	aclError ret;

	if (!c || !dataset || dataset->owned != dataset->n) {
		/* CANN fills an empty dataset (or one it filled before) */
		rt_set_errmsg("acltdtReceiveTensor: the dataset must hold no items of its own");
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	}
	pthread_mutex_lock(&c->lock);
	ret = channel_wait(c, has_msg, timeout, ACL_ERROR_RT_QUEUE_EMPTY);
	if (!ret) {
		m = c->head;
		c->head = m->next;
		if (!c->head)
			c->tail = NULL;
		c->count--;
		pthread_cond_broadcast(&c->cond);
	}
	pthread_mutex_unlock(&c->lock);
	if (ret)
		return rt_fail(ret);
	dataset_drop_owned(dataset);
	items = m->n ? calloc(m->n, sizeof(*items)) : NULL;
	for (size_t i = 0; i < m->n && items; i++) {
		if (!(items[i] = malloc(sizeof(*items[i])))) {
			while (i--)
				free(items[i]);
			free(items);
			items = NULL;
			break;
		}
		*items[i] = m->items[i];
	}
	if (m->n && !items) {
		msg_free(m);
		return rt_fail(ACL_ERROR_BAD_ALLOC);
	}
	for (size_t i = 0; i < m->n; i++) {
		if (dataset_add(dataset, items[i])) {
			/* the items not added yet are freed; those added stay owned */
			for (size_t j = i; j < m->n; j++)
				acltdtDestroyDataItem(items[j]);
			dataset->owned = dataset->n;
			free(items);
			free(m);
			return rt_fail(ACL_ERROR_BAD_ALLOC);
		}
	}
	dataset->owned = dataset->n;
	strcpy(dataset->name, c->name);
	free(items);
	free(m); /* its data now belongs to the dataset's items */
	return ACL_SUCCESS;
}
