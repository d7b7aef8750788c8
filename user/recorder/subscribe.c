/*
 * subscribe.c - model subscription (acl/acl_prof.h): aclprofModelSubscribe
 * and the getters of the op descriptors a subscription writes to its fd.
 *
 * As CANN's: a model can be subscribed once GE has told the profiler which
 * device it was loaded on (MsprofSetDeviceIdByGeModelIdx, profapi.c, which
 * records it here); other ids are ACL_ERROR_INVALID_MODEL_ID. A
 * subscription holds the config's fd (the write end of the application's
 * pipe) until aclprofModelUnSubscribe, which closes it, so the reader
 * the application started sees the end of its data. Descriptors are
 * CANN's 80-byte records (struct op_desc), each signed as CANN signs them;
 * their op types and names are kept here by op index, each given out once.
 *
 * What npusim does not have: GE models. npuprof's runtime loads none (its
 * model run instances, aclmdlRI, are not GE models and are not registered
 * here), so no subscribed model ever executes and no descriptor is
 * written: a subscription delivers what CANN delivers for a model that is
 * never run, nothing, then the end of the data at unsubscribe.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "subscribe.h"

/* CANN's op descriptor (ProfOpDesc): what aclprofGetOpDescSize gives. */
struct op_desc {
	uint32_t signature; /* over the bytes after it */
	uint32_t model_id;
	uint32_t flag; /* aclprofSubscribeOpFlag */
	uint32_t thread_id;
	uint64_t op_index; /* the key of its type and name */
	uint64_t duration;
	uint64_t start;
	uint64_t end;
	uint64_t execution_time;
	uint64_t cube_fops;
	uint64_t vector_fops;
	uint32_t dev_id;
};
_Static_assert(sizeof(struct op_desc) == 80, "CANN's op descriptor is 80 bytes");

struct aclprofSubscribeConfig {
	int8_t time_info;
	aclprofAicoreMetrics metrics;
	int fd;
};

#define MODELS 1024 /* model ids GE registered, and subscriptions */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	uint32_t model, dev;
	int subscribed, fd;
} g_model[MODELS];
static int g_nmodel;

static int find_locked(uint32_t model)
{
	for (int i = 0; i < g_nmodel; i++)
		if (g_model[i].model == model)
			return i;
	return -1;
}

int npuprof_model_dev_set(uint32_t model, uint32_t dev)
{
	int i, ret = 0;

	pthread_mutex_lock(&g_lock);
	i = find_locked(model);
	if (i < 0 && g_nmodel < MODELS) {
		i = g_nmodel++;
		g_model[i].model = model;
		g_model[i].subscribed = 0;
	}
	if (i >= 0)
		g_model[i].dev = dev;
	else
		ret = -1;
	pthread_mutex_unlock(&g_lock);
	return ret;
}

int npuprof_model_dev_unset(uint32_t model, uint32_t dev)
{
	int i, ret = -1;

	pthread_mutex_lock(&g_lock);
	i = find_locked(model);
	if (i >= 0 && g_model[i].dev == dev && !g_model[i].subscribed) {
		g_model[i] = g_model[--g_nmodel];
		ret = 0;
	}
	pthread_mutex_unlock(&g_lock);
	return ret;
}

aclprofSubscribeConfig *aclprofCreateSubscribeConfig(int8_t timeInfoSwitch,
						     aclprofAicoreMetrics aicoreMetrics, void *fd)
{
	aclprofSubscribeConfig *c;

	if (!fd || (timeInfoSwitch != 0 && timeInfoSwitch != 1) ||
	    ((unsigned)aicoreMetrics > ACL_AICORE_MEMORY_ACCESS &&
	     aicoreMetrics != ACL_AICORE_NONE)) {
		fprintf(stderr, "npuprof: aclprofCreateSubscribeConfig: needs an fd, a time info "
				"switch of 0 or 1 and an aclprofAicoreMetrics\n");
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->time_info = timeInfoSwitch;
	c->metrics = aicoreMetrics;
	c->fd = *(const int *)fd;
	return c;
}

aclError aclprofDestroySubscribeConfig(const aclprofSubscribeConfig *profSubscribeConfig)
{
	if (!profSubscribeConfig)
		return ACL_ERROR_INVALID_PARAM;
	free((void *)profSubscribeConfig);
	return ACL_SUCCESS;
}

aclError aclprofModelSubscribe(uint32_t modelId, const aclprofSubscribeConfig *profSubscribeConfig)
{
	aclError ret = ACL_SUCCESS;
	int i;

	pthread_mutex_lock(&g_lock);
	i = find_locked(modelId);
	if (i < 0) {
		fprintf(stderr, "npuprof: aclprofModelSubscribe: model %u is not loaded\n",
			modelId);
		ret = ACL_ERROR_INVALID_MODEL_ID;
	} else if (!profSubscribeConfig) {
		ret = ACL_ERROR_INVALID_PARAM;
	} else if (g_model[i].subscribed) {
		fprintf(stderr, "npuprof: aclprofModelSubscribe: model %u is subscribed already\n",
			modelId);
		ret = ACL_ERROR_PROF_REPEAT_SUBSCRIBE;
	} else {
		g_model[i].subscribed = 1;
		g_model[i].fd = profSubscribeConfig->fd;
	}
	pthread_mutex_unlock(&g_lock);
	return ret;
}

aclError aclprofModelUnSubscribe(uint32_t modelId)
{
	aclError ret = ACL_SUCCESS;
	int i, fd = -1;

	pthread_mutex_lock(&g_lock);
	i = find_locked(modelId);
	if (i < 0) {
		fprintf(stderr, "npuprof: aclprofModelUnSubscribe: model %u is not loaded\n",
			modelId);
		ret = ACL_ERROR_INVALID_MODEL_ID;
	} else if (!g_model[i].subscribed) {
		fprintf(stderr, "npuprof: aclprofModelUnSubscribe: model %u is not subscribed\n",
			modelId);
		ret = ACL_ERROR_INVALID_MODEL_ID;
	} else {
		g_model[i].subscribed = 0;
		fd = g_model[i].fd;
	}
	pthread_mutex_unlock(&g_lock);
	if (fd >= 0)
		close(fd); /* the reader's end of data */
	return ret;
}

/* ---- the op descriptors -------------------------------------------------- */

/* CANN's signature of a descriptor: a CRC-32C (reflected polynomial
 * 0x82F63B78) of the bytes after the signature field, started at ~0, not
 * inverted at the end. */
static uint32_t signature(const uint8_t *p, size_t n)
{
	uint32_t c = ~0U;

	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82F63B78U & (0U - (c & 1U)));
	}
	return c;
}

/* 0 if info holds whole signed descriptors; else ACL_ERROR_INVALID_PARAM. */
static aclError check(const void *info, size_t len)
{
	const uint8_t *p = info;

	if (!info || len % sizeof(struct op_desc))
		return ACL_ERROR_INVALID_PARAM;
	for (size_t off = 0; off < len; off += sizeof(struct op_desc)) {
		uint32_t sig;

		memcpy(&sig, p + off, sizeof(sig));
		if (sig != signature(p + off + sizeof(sig), sizeof(struct op_desc) - sizeof(sig)))
			return ACL_ERROR_INVALID_PARAM;
	}
	return ACL_SUCCESS;
}

/* Descriptor index of info, copied out, or NULL. */
static const struct op_desc *desc(const void *info, size_t len, uint32_t index, struct op_desc *d)
{
	if (check(info, len) || (uint64_t)index + 1 > len / sizeof(*d))
		return NULL;
	memcpy(d, (const char *)info + (size_t)index * sizeof(*d), sizeof(*d));
	return d;
}

aclError aclprofGetOpDescSize(size_t *opDescSize)
{
	if (!opDescSize)
		return ACL_ERROR_INVALID_PARAM;
	*opDescSize = sizeof(struct op_desc);
	return ACL_SUCCESS;
}

aclError aclprofGetOpNum(const void *opInfo, size_t opInfoLen, uint32_t *opNumber)
{
	aclError ret;

	if (!opNumber)
		return ACL_ERROR_INVALID_PARAM;
	ret = check(opInfo, opInfoLen);
	if (!ret)
		*opNumber = (uint32_t)(opInfoLen / sizeof(struct op_desc));
	return ret;
}

/* No descriptor is ever written (the header): no op index has a type or
 * name here, and CANN answers such an index with ACL_ERROR_INVALID_PARAM. */
static aclError op_string(const void *opInfo, size_t opInfoLen, uint32_t index, const char *what)
{
	struct op_desc d;

	if (!desc(opInfo, opInfoLen, index, &d))
		return ACL_ERROR_INVALID_PARAM;
	fprintf(stderr, "npuprof: no op %s of op index %llu (given out already, or unknown)\n",
		what, (unsigned long long)d.op_index);
	return ACL_ERROR_INVALID_PARAM;
}

aclError aclprofGetOpTypeLen(const void *opInfo, size_t opInfoLen, uint32_t index,
			     size_t *opTypeLen)
{
	if (!opTypeLen)
		return ACL_ERROR_INVALID_PARAM;
	return op_string(opInfo, opInfoLen, index, "type");
}

aclError aclprofGetOpType(const void *opInfo, size_t opInfoLen, uint32_t index, char *opType,
			  size_t opTypeLen)
{
	if (!opType || !opTypeLen)
		return ACL_ERROR_INVALID_PARAM;
	return op_string(opInfo, opInfoLen, index, "type");
}

aclError aclprofGetOpNameLen(const void *opInfo, size_t opInfoLen, uint32_t index,
			     size_t *opNameLen)
{
	if (!opNameLen)
		return ACL_ERROR_INVALID_PARAM;
	return op_string(opInfo, opInfoLen, index, "name");
}

aclError aclprofGetOpName(const void *opInfo, size_t opInfoLen, uint32_t index, char *opName,
			  size_t opNameLen)
{
	if (!opName || !opNameLen)
		return ACL_ERROR_INVALID_PARAM;
	return op_string(opInfo, opInfoLen, index, "name");
}

uint64_t aclprofGetOpStart(const void *opInfo, size_t opInfoLen, uint32_t index)
{
	struct op_desc d;

	return desc(opInfo, opInfoLen, index, &d) ? d.start : 0;
}

uint64_t aclprofGetOpEnd(const void *opInfo, size_t opInfoLen, uint32_t index)
{
	struct op_desc d;

	return desc(opInfo, opInfoLen, index, &d) ? d.end : 0;
}

uint64_t aclprofGetOpDuration(const void *opInfo, size_t opInfoLen, uint32_t index)
{
	struct op_desc d;

	return desc(opInfo, opInfoLen, index, &d) ? d.duration : 0;
}

size_t aclprofGetModelId(const void *opInfo, size_t opInfoLen, uint32_t index)
{
	struct op_desc d;

	return desc(opInfo, opInfoLen, index, &d) ? d.model_id : (size_t)ACL_ERROR_INVALID_PARAM;
}

aclprofSubscribeOpFlag aclprofGetOpFlag(const void *opInfo, size_t opInfoLen, uint32_t index)
{
	struct op_desc d;

	if (!opInfo)
		return ACL_SUBSCRIBE_NONE;
	if ((uint64_t)index + 1 > opInfoLen / sizeof(d))
		return ACL_SUBSCRIBE_OP;
	memcpy(&d, (const char *)opInfo + (size_t)index * sizeof(d), sizeof(d));
	return (aclprofSubscribeOpFlag)d.flag;
}

const char *aclprofGetOpAttriValue(const void *opInfo, size_t opInfoLen, uint32_t index,
				   aclprofSubscribeOpAttri attri)
{
	struct op_desc d;
	static __thread char buf[16];

	if (attri != ACL_SUBSCRIBE_ATTRI_THREADID || !desc(opInfo, opInfoLen, index, &d))
		return NULL;
	snprintf(buf, sizeof(buf), "%u", d.thread_id);
	return buf;
}
