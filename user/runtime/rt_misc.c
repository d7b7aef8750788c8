/*
 * rt_misc.c - the CANN API around devices, streams and events that needs no
 * device task of its own (acl_base.h, acl_rt.h): data buffers, half
 * precision, CANN attributes and package versions, the thread's last error
 * and device error details, device capabilities, events with flags, stream
 * configs and queries, forced stream destruction, memset, reduce, float
 * overflow, custom allocators. (Peer access is rt_mem.c's, beside the
 * copies it governs; contexts are rt_ctx.c's.)
 *
 * Facts (names, values, the version file and its weights) are CANN's
 * (hicann/runtime include/external/acl and docs/zh/api_ref); where npusim
 * cannot do what a call asks, it returns ACL_ERROR_RT_FEATURE_NOT_SUPPORT
 * (listed in docs/DESIGN.md §6), never a silent success.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_rt_allocator.h"
#include "fpconv.h"
#include "rt_prof.h"

/* ---- data buffers --------------------------------------------------------- */

struct aclDataBuffer {
	void *data;
	size_t size;
};

aclDataBuffer *aclCreateDataBuffer(void *data, size_t size)
{
	aclDataBuffer *b = malloc(sizeof(*b));

	if (b) {
		b->data = data;
		b->size = size;
	}
	return b;
}

aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer)
{
	if (!dataBuffer)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	free((void *)dataBuffer);
	return ACL_SUCCESS;
}

aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size)
{
	if (!dataBuffer)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	dataBuffer->data = data;
	dataBuffer->size = size;
	return ACL_SUCCESS;
}

void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer)
{
	return dataBuffer ? dataBuffer->data : NULL;
}

uint32_t aclGetDataBufferSize(const aclDataBuffer *dataBuffer)
{
	/* a size that does not fit is refused (0), never wrapped */
	if (!dataBuffer || dataBuffer->size > UINT32_MAX)
		return 0;
	return (uint32_t)dataBuffer->size;
}

size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer)
{
	return dataBuffer ? dataBuffer->size : 0;
}

/* ---- half precision (user/common/fpconv.c) ----------------------------------- */

aclFloat16 aclFloatToFloat16(float value)
{
	return npuprof_f16_from_float(value, 1);
}

float aclFloat16ToFloat(aclFloat16 value)
{
	return npuprof_f16_to_float(value, 1);
}

/* ---- CANN attributes and versions ------------------------------------------- */

static const aclCannAttr g_attrs[] = { ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16 };

aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num)
{
	if (!cannAttrList || !num)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	*cannAttrList = g_attrs;
	*num = sizeof(g_attrs) / sizeof(g_attrs[0]);
	return ACL_SUCCESS;
}

aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value)
{
	if (!value || cannAttr < ACL_CANN_ATTR_INF_NAN || cannAttr > ACL_CANN_ATTR_JIT_COMPILE)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	*value = 0;
	for (size_t i = 0; i < sizeof(g_attrs) / sizeof(g_attrs[0]); i++)
		if (g_attrs[i] == cannAttr)
			*value = 1;
	return ACL_SUCCESS;
}

/* The Version= value of <ASCEND_HOME_PATH>/share/info/<name>/version.info
 * into out (ACL_PKG_VERSION_MAX_SIZE bytes). */
static aclError version_of(const char *name, char *out)
{
	const char *home = getenv("ASCEND_HOME_PATH");
	char path[4096], line[512];
	aclError ret = ACL_ERROR_INVALID_FILE;
	FILE *f;

	if (!home || !*home) {
		rt_set_errmsg("aclsysGetVersionStr: ASCEND_HOME_PATH is not set");
		return ACL_ERROR_INVALID_FILE;
	}
	if (strchr(name, '/') || snprintf(path, sizeof(path), "%s/share/info/%s/version.info", home,
					  name) >= (int)sizeof(path))
		return ACL_ERROR_INVALID_PARAM;
	f = fopen(path, "r");
	if (!f) {
		rt_set_errmsg("aclsysGetVersionStr: %s: %s", path, strerror(errno));
		return ACL_ERROR_INVALID_FILE;
	}
	while (fgets(line, sizeof(line), f)) {
		char *v = strstr(line, "Version="), *end;

		if (!v)
			continue;
		v += strlen("Version=");
		while (isspace((unsigned char)*v))
			v++;
		end = v + strlen(v);
		while (end > v && isspace((unsigned char)end[-1]))
			*--end = '\0';
		if (*v && (size_t)(end - v) < ACL_PKG_VERSION_MAX_SIZE) {
			memcpy(out, v, (size_t)(end - v) + 1);
			ret = ACL_SUCCESS;
		}
		break;
	}
	fclose(f);
	if (ret)
		rt_set_errmsg("aclsysGetVersionStr: no usable Version= in %s", path);
	return ret;
}

/* CANN's lookup: the name as given, then with '-' and '_' swapped. */
static aclError pkg_version(const char *pkg, char *out)
{
	char alt[256];
	aclError ret;

	if (!pkg || !out || !*pkg || strlen(pkg) >= sizeof(alt))
		return ACL_ERROR_INVALID_PARAM;
	ret = version_of(pkg, out);
	if (ret != ACL_ERROR_INVALID_FILE)
		return ret;
	strcpy(alt, pkg);
	if (strchr(alt, '-')) {
		for (char *p = alt; *p; p++)
			if (*p == '-')
				*p = '_';
	} else if (strchr(alt, '_')) {
		for (char *p = alt; *p; p++)
			if (*p == '_')
				*p = '-';
	} else {
		return ret;
	}
	return version_of(alt, out);
}

aclError aclsysGetVersionStr(char *pkgName, char *versionStr)
{
	return rt_fail(pkg_version(pkgName, versionStr));
}

/* One number of at most 4 digits at *p, advancing it; -1 if none. */
static int version_part(const char **p)
{
	int v = 0, n = 0;

	while (isdigit((unsigned char)**p) && n < 4) {
		v = v * 10 + (**p - '0');
		(*p)++;
		n++;
	}
	return n && !isdigit((unsigned char)**p) ? v : -1;
}

int rt_version_num(const char *s, int32_t *num)
{
	static const struct {
		const char *word;
		int weight;
	} pre[] = { { "alpha", 300 }, { "beta", 200 }, { "rc", 100 } };
	const char *p = s;
	int major, minor, patch, n;

	if ((major = version_part(&p)) < 0 || major > 200 || *p++ != '.' ||
	    (minor = version_part(&p)) < 0 || minor > 99 || *p++ != '.' ||
	    (patch = version_part(&p)) < 0 || patch > 99)
		return -1;
	n = major * 10000000 + minor * 100000 + patch * 1000;
	if (*p) {
		size_t i;

		if (*p == '-' || *p == '.' || *p == '_')
			p++;
		for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
			if (!strncasecmp(p, pre[i].word, strlen(pre[i].word)))
				break;
		if (i == sizeof(pre) / sizeof(pre[0]))
			return -1;
		p += strlen(pre[i].word);
		if (*p == '.')
			p++;
		{
			int k = version_part(&p);

			if (k < 0 || k >= 100 || *p)
				return -1;
			n = n - pre[i].weight + k;
		}
	}
	*num = n;
	return 0;
}

aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum)
{
	char v[ACL_PKG_VERSION_MAX_SIZE];
	aclError ret;

	if (!versionNum)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	ret = pkg_version(pkgName, v);
	if (ret)
		return rt_fail(ret);
	if (rt_version_num(v, versionNum)) {
		rt_set_errmsg("aclsysGetVersionNum: cannot parse version \"%s\" of %s", v, pkgName);
		return rt_fail(ACL_ERROR_INTERNAL_ERROR);
	}
	return ACL_SUCCESS;
}

/* ---- errors ------------------------------------------------------------------ */

aclError aclrtPeekAtLastError(aclrtLastErrLevel level)
{
	if (level != ACL_RT_THREAD_LEVEL)
		return ACL_ERROR_INVALID_PARAM;
	return rt_last_err;
}

aclError aclrtGetLastError(aclrtLastErrLevel level)
{
	aclError ret = rt_last_err;

	if (level != ACL_RT_THREAD_LEVEL)
		return ACL_ERROR_INVALID_PARAM;
	rt_last_err = ACL_SUCCESS;
	return ret;
}

aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo)
{
	if (!errorInfo)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if (!rt_g.initialized)
		return rt_fail(ACL_ERROR_UNINITIALIZE);
	if (deviceId < 0 || deviceId >= rt_g.ndev)
		return rt_fail(ACL_ERROR_RT_INVALID_DEVICEID);
	if (rt_g.dev[deviceId].fd < 0)
		return rt_fail(ACL_ERROR_RT_CONTEXT_NULL);
	memset(errorInfo, 0, sizeof(*errorInfo));
	errorInfo->errorType = ACL_RT_NO_ERROR;
	return ACL_SUCCESS;
}

/* ---- capabilities ---------------------------------------------------- */

aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType,
				  int32_t *value)
{
	if (!value)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if (!rt_g.initialized)
		return rt_fail(ACL_ERROR_UNINITIALIZE);
	if (deviceId < 0 || deviceId >= rt_g.ndev)
		return rt_fail(ACL_ERROR_RT_INVALID_DEVICEID);
	switch (devFeatureType) {
	/* npusim's task scheduler runs no TS-CPU task updates and has no
	 * memory queues */
	case ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV:
	case ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV: *value = ACL_DEV_FEATURE_NOT_SUPPORT; break;
	default: return rt_fail(ACL_ERROR_INVALID_PARAM);
	}
	return ACL_SUCCESS;
}

aclError aclrtCheckArchCompatibility(const char *socVersion, int32_t *canCompatible)
{
	const char *soc;

	if (!socVersion || !canCompatible)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	soc = aclrtGetSocName();
	if (!soc) {
		rt_set_errmsg("aclrtCheckArchCompatibility: no device answers");
		return rt_fail(ACL_ERROR_RT_INVALID_DEVICEID);
	}
	/* the 910B family (Ascend910B1..B4) shares one architecture */
	*canCompatible = strncmp(socVersion, NPUSIM_CHIP_NAME, strlen(NPUSIM_CHIP_NAME)) == 0 &&
			 strlen(socVersion) == strlen(NPUSIM_CHIP_NAME) + 1 &&
			 socVersion[strlen(NPUSIM_CHIP_NAME)] >= '1' &&
			 socVersion[strlen(NPUSIM_CHIP_NAME)] <= '4';
	return ACL_SUCCESS;
}

/* ---- events with flags ------------------------------------------------------- */

#define EVENT_PLAIN_FLAGS (ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE | ACL_EVENT_DEVICE_USE_ONLY)
#define EVENT_UNSUPPORTED_FLAGS ACL_EVENT_CAPTURE_STREAM_PROGRESS

/* ACL_EVENT_EXTERNAL (for the updates of a captured model, alone, acl_rt.h)
 * is an ordinary event: its records and waits in a model are real ones. */
static aclError event_with_flag(const char *api, aclrtEvent *event, uint32_t flag)
{
	if (!event ||
	    (flag &
	     ~(EVENT_PLAIN_FLAGS | EVENT_UNSUPPORTED_FLAGS | ACL_EVENT_EXTERNAL | ACL_EVENT_IPC)) ||
	    ((flag & ACL_EVENT_EXTERNAL) && flag != ACL_EVENT_EXTERNAL))
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if ((flag & ACL_EVENT_IPC) && flag != ACL_EVENT_IPC) {
		/* acl_rt docs: ACL_EVENT_IPC goes with no other flag */
		rt_set_errmsg("%s: ACL_EVENT_IPC with other flags (0x%x)", api, flag);
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	}
	if (flag & EVENT_UNSUPPORTED_FLAGS) {
		rt_set_errmsg("%s: flag 0x%x (capture progress events) is not "
			      "supported on npusim",
			      api, flag & EVENT_UNSUPPORTED_FLAGS);
		return rt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	}
	return rt_fail(rt_event_create(event, flag, api));
}

aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
	return event_with_flag("aclrtCreateEventWithFlag", event, flag);
}

aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
	return event_with_flag("aclrtCreateEventExWithFlag", event, flag);
}

/* ---- stream configs and queries ------------------------------------------------ */

#define RT_STREAM_PRIORITY_MAX 7U
#define RT_STREAM_FLAGS_OK \
	(ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_HUGE | ACL_STREAM_PERSISTENT)
#define RT_STREAM_FLAGS_UNSUPPORTED (ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY)

aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void)
{
	return calloc(1, sizeof(aclrtStreamConfigHandle));
}

aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle)
{
	if (!handle)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	free(handle);
	return ACL_SUCCESS;
}

/* A uint32_t or size_t attribute value. */
static int config_value(const void *v, size_t size, uint64_t *out)
{
	if (size == sizeof(uint32_t)) {
		uint32_t x;

		memcpy(&x, v, sizeof(x));
		*out = x;
		return 0;
	}
	if (size == sizeof(uint64_t)) {
		memcpy(out, v, sizeof(*out));
		return 0;
	}
	return -1;
}

static aclError check_stream_flags(uint64_t flags)
{
	if (flags & ~(uint64_t)(RT_STREAM_FLAGS_OK | RT_STREAM_FLAGS_UNSUPPORTED))
		return ACL_ERROR_INVALID_PARAM;
	if (flags & RT_STREAM_FLAGS_UNSUPPORTED) {
		rt_set_errmsg("stream flags 0x%llx (CPU-scheduled or device-only streams) are "
			      "not supported on npusim",
			      (unsigned long long)(flags & RT_STREAM_FLAGS_UNSUPPORTED));
		return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
	}
	return ACL_SUCCESS;
}

aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle, aclrtStreamConfigAttr attr,
				 const void *attrValue, size_t valueSize)
{
	uint64_t v;
	aclError ret;

	if (!handle || !attrValue || config_value(attrValue, valueSize, &v))
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	switch (attr) {
	case ACL_RT_STREAM_WORK_ADDR_PTR:
	case ACL_RT_STREAM_WORK_SIZE:
		rt_set_errmsg("aclrtSetStreamConfigOpt: model work areas are not supported on "
			      "npusim");
		return rt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	case ACL_RT_STREAM_FLAG:
		if ((ret = check_stream_flags(v)))
			return rt_fail(ret);
		handle->flag = (size_t)v;
		return ACL_SUCCESS;
	case ACL_RT_STREAM_PRIORITY:
		if (v > RT_STREAM_PRIORITY_MAX)
			return rt_fail(ACL_ERROR_INVALID_PARAM);
		handle->priority = (uint32_t)v;
		return ACL_SUCCESS;
	default: return rt_fail(ACL_ERROR_INVALID_PARAM);
	}
}

aclError aclrtCreateStreamV2(aclrtStream *stream, const aclrtStreamConfigHandle *handle)
{
	struct rt_stream *s;
	aclError ret;

	if (!stream || !handle)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	/* the handle's fields are public: check what was written directly too */
	if (handle->workptr || handle->workSize)
		return rt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	if ((ret = check_stream_flags(handle->flag)))
		return rt_fail(ret);
	if (handle->priority > RT_STREAM_PRIORITY_MAX)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	ret = aclrtCreateStream(stream);
	if (ret)
		return ret;
	s = *stream;
	s->flags = (uint32_t)handle->flag;
	s->priority = handle->priority;
	return ACL_SUCCESS;
}

aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
	aclrtStreamConfigHandle h = { .flag = flag, .priority = priority };

	return aclrtCreateStreamV2(stream, &h);
}

aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
	struct rt_stream *s;
	aclError ret;

	if (!streamId)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if ((ret = rt_stream_get(stream, &s)))
		return rt_fail(ret);
	*streamId = (int32_t)s->sid;
	return ACL_SUCCESS;
}

aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority)
{
	struct rt_stream *s;
	aclError ret;

	if (!priority)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if ((ret = rt_stream_get(stream, &s)))
		return rt_fail(ret);
	*priority = s->priority;
	return ACL_SUCCESS;
}

aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags)
{
	struct rt_stream *s;
	aclError ret;

	if (!flags)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if ((ret = rt_stream_get(stream, &s)))
		return rt_fail(ret);
	*flags = s->flags;
	return ACL_SUCCESS;
}

aclError aclrtDestroyStreamForce(aclrtStream stream)
{
	return rt_stream_destroy_api(stream, "aclrtDestroyStreamForce", 1);
}

/* ---- memset -------------------------------------------------------------------- */

static aclError check_set(void *p, size_t maxCount, size_t count)
{
	if (!p || count > maxCount)
		return ACL_ERROR_INVALID_PARAM;
	if (!rt_g.initialized)
		return ACL_ERROR_UNINITIALIZE;
	return ACL_SUCCESS;
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
	struct rt_api a;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtMemset", NULL);
	ret = check_set(devPtr, maxCount, count);
	if (!ret)
		ret = rt_capture_unsafe("aclrtMemset");
	if (!ret && count)
		memset(devPtr, (uint8_t)value, count);
	return rt_api_end(&a, ret);
}

/* A set task's bytes are set when it is sent (rt_submit). */
static void host_set(const struct rt_task *t)
{
	if (t->bytes)
		memset(t->host_dst, (uint8_t)t->host_val, t->bytes);
}

aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
			  aclrtStream stream)
{
	struct rt_api a, r;
	struct rt_stream *s;
	struct rt_task t;
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtMemsetAsync", NULL);
	ret = check_set(devPtr, maxCount, count);
	if (!ret)
		ret = rt_stream_get(stream, &s);
	if (ret)
		return rt_api_end(&a, ret);
	rt_api_begin(&r, NPUPROF_API_RUNTIME, "MemsetAsync", NULL);
	rt_task_init(&t, NPUSIM_SQE_SDMA, "MEMSET_ASYNC");
	t.host = host_set;
	t.host_dst = devPtr;
	t.host_val = value;
	t.bytes = count;
	ret = rt_submit(s, &t, 1);
	rt_api_end(&r, ret);
	return rt_api_end(&a, ret);
}

/* ---- reduce ---------------------------------------------------------------------- */

static float reduce_f(float a, float b, aclrtReduceKind kind)
{
	switch (kind) {
	case ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM: return a + b;
	case ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX: return b > a ? b : a;
	default: return b < a ? b : a;
	}
}

static int64_t reduce_i(int64_t a, int64_t b, aclrtReduceKind kind)
{
	switch (kind) {
	case ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM: return a + b;
	case ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX: return b > a ? b : a;
	default: return b < a ? b : a;
	}
}

/* dst[i] = dst[i] op src[i] over n elements (integer sums wrap, as two's
 * complement adders do). */
static void reduce_host(void *dst, const void *src, size_t n, aclrtReduceKind kind,
			aclDataType type)
{
	for (size_t i = 0; i < n; i++) {
		switch (type) {
		case ACL_INT8: {
			int8_t *d = dst;
			const int8_t *q = src;

			d[i] = (int8_t)(uint8_t)reduce_i(d[i], q[i], kind);
			break;
		}
		case ACL_INT16: {
			int16_t *d = dst;
			const int16_t *q = src;

			d[i] = (int16_t)(uint16_t)reduce_i(d[i], q[i], kind);
			break;
		}
		case ACL_INT32: {
			int32_t *d = dst;
			const int32_t *q = src;

			d[i] = (int32_t)(uint32_t)reduce_i(d[i], q[i], kind);
			break;
		}
		case ACL_FLOAT: {
			float *d = dst;
			const float *q = src;

			d[i] = reduce_f(d[i], q[i], kind);
			break;
		}
		case ACL_FLOAT16: {
			uint16_t *d = dst;
			const uint16_t *q = src;

			d[i] = npuprof_f16_from_float(reduce_f(npuprof_f16_to_float(d[i], 0),
							       npuprof_f16_to_float(q[i], 0), kind),
						      0);
			break;
		}
		default: { /* ACL_BF16 */
			uint16_t *d = dst;
			const uint16_t *q = src;

			d[i] = npuprof_bf16_from_float(reduce_f(npuprof_bf16_to_float(d[i]),
								npuprof_bf16_to_float(q[i]), kind));
			break;
		}
		}
	}
}

/* A reduce task's elements are reduced when it is sent (rt_submit):
 * host_val is the kind | the data type << 8. */
static void host_reduce(const struct rt_task *t)
{
	aclrtReduceKind kind = (aclrtReduceKind)(t->host_val & 0xff);
	aclDataType type = (aclDataType)(t->host_val >> 8);

	reduce_host(t->host_dst, t->host_src, (size_t)(t->bytes / aclDataTypeSize(type)), kind,
		    type);
}

aclError aclrtReduceAsync(void *dst, const void *src, uint64_t count, aclrtReduceKind kind,
			  aclDataType type, aclrtStream stream, void *reserve)
{
	struct rt_api a, r;
	struct rt_stream *s;
	struct rt_task t;
	size_t dsize = 0, ssize = 0, esize = aclDataTypeSize(type);
	aclError ret;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtReduceAsync", NULL);
	if (!dst || !src || reserve || !esize || count % esize)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	if (kind < ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM || kind > ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL ||
	    (type != ACL_INT8 && type != ACL_INT16 && type != ACL_INT32 && type != ACL_FLOAT &&
	     type != ACL_FLOAT16 && type != ACL_BF16)) {
		rt_set_errmsg("aclrtReduceAsync: kind %d of type %d is not supported on a 910B",
			      (int)kind, (int)type);
		return rt_api_end(&a, ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	}
	if ((ret = rt_stream_get(stream, &s)))
		return rt_api_end(&a, ret);
	if (rt_mem_dev(dst, &dsize) != s->dev || rt_mem_dev(src, &ssize) != s->dev ||
	    count > dsize || count > ssize) {
		rt_set_errmsg("aclrtReduceAsync: dst and src must be %llu bytes of device %d's "
			      "memory",
			      (unsigned long long)count, s->dev);
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	}
	rt_api_begin(&r, NPUPROF_API_RUNTIME, "ReduceAsync", NULL);
	rt_task_init(&t, NPUSIM_SQE_SDMA, "MEMCPY_ASYNC");
	t.host = host_reduce;
	t.host_dst = dst;
	t.host_src = src;
	t.host_val = (int32_t)((uint32_t)kind | (uint32_t)type << 8);
	t.bytes = count;
	t.memcpy_op = ACL_MEMCPY_DEVICE_TO_DEVICE;
	ret = rt_submit(s, &t, 1);
	rt_api_end(&r, ret);
	return rt_api_end(&a, ret);
}

/* ---- random numbers ------------------------------------------------------------- */

/* Element i of the stream of (seed, counter): splitmix64's finaliser over
 * both, so any element is computed on its own (counter-based, as the
 * device's Philox is; not its numbers). */
static uint64_t rnd_bits(uint64_t seed, uint64_t ctr)
{
	uint64_t z = seed * 0x9e3779b97f4a7c15ULL + ctr * 0xbf58476d1ce4e5b9ULL +
		     0x94d049bb133111ebULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* [0, 1) with 24 bits, a float's precision */
static double rnd_unit(uint64_t bits)
{
	return (double)(bits >> 40) / 16777216.0;
}

/* Standard normal of element ctr: Irwin-Hall, the sum of 12 uniforms less 6
 * (mean 0, variance 1, within +-6: the library stays libc-only, no libm). */
static double rnd_normal(uint64_t seed, uint64_t ctr, uint64_t draw)
{
	double sum = 0;

	for (int k = 0; k < 12; k++)
		sum += rnd_unit(rnd_bits(seed ^ (draw * 0x2545f4914f6cdd1dULL), ctr * 12 + k));
	return sum - 6.0;
}

static double rnd_get(const void *p, aclDataType type)
{
	switch (type) {
	case ACL_FLOAT: {
		float f;

		memcpy(&f, p, sizeof(f));
		return f;
	}
	case ACL_FLOAT16: {
		uint16_t h;

		memcpy(&h, p, sizeof(h));
		return npuprof_f16_to_float(h, 0);
	}
	case ACL_BF16: {
		uint16_t h;

		memcpy(&h, p, sizeof(h));
		return npuprof_bf16_to_float(h);
	}
	default: return 0;
	}
}

static void rnd_put_float(void *dst, size_t i, aclDataType type, double v)
{
	if (type == ACL_FLOAT)
		((float *)dst)[i] = (float)v;
	else if (type == ACL_FLOAT16)
		((uint16_t *)dst)[i] = npuprof_f16_from_float((float)v, 0);
	else
		((uint16_t *)dst)[i] = npuprof_bf16_from_float((float)v);
}

/* The bytes of a parameter (its value, or size bytes where its address
 * points); 0 or ACL_ERROR_INVALID_PARAM. want: the size the parameter must
 * have (the element's, or 8 for seed and count). */
static aclError rnd_param(const aclrtRandomParaInfo *p, size_t want, uint8_t out[8],
			  const char *name)
{
	const void *src = p->valueOrAddr;

	memset(out, 0, 8);
	if (p->isAddr > 1 || p->size == 0 || p->size > want) {
		rt_set_errmsg("aclrtRandomNumAsync: %s has isAddr %u and size %u (isAddr 0 or 1, "
			      "size 1 to %zu)",
			      name, p->isAddr, p->size, want);
		return ACL_ERROR_INVALID_PARAM;
	}
	if (p->isAddr) {
		memcpy(&src, p->valueOrAddr, sizeof(src));
		if (!src) {
			rt_set_errmsg("aclrtRandomNumAsync: %s is at address NULL", name);
			return ACL_ERROR_INVALID_PARAM;
		}
	}
	memcpy(out, src, p->size);
	return ACL_SUCCESS;
}

static int rnd_type_ok(aclrtRandomNumFuncType f, aclDataType t)
{
	int fp = t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16;

	if (f == ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS)
		return fp || t == ACL_INT32 || t == ACL_INT64 || t == ACL_UINT32 || t == ACL_UINT64;
	return fp && f <= ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS;
}

/* Uniform integers in [lo, hi) of element i (a modulo: its bias is below
 * 2^-32 for the ranges of 32-bit types). */
static void rnd_uniform_int(void *dst, size_t i, aclDataType type, const uint8_t lo[8],
			    const uint8_t hi[8], uint64_t bits)
{
	int64_t a = 0, b = 0;
	uint64_t ua = 0, ub = 0;

	switch (type) {
	case ACL_INT32: {
		int32_t x, y;

		memcpy(&x, lo, 4);
		memcpy(&y, hi, 4);
		((int32_t *)dst)[i] = y > x ? (int32_t)(x + (int64_t)(bits %
								      (uint64_t)((int64_t)y - x))) :
					      x;
		break;
	}
	case ACL_INT64:
		memcpy(&a, lo, 8);
		memcpy(&b, hi, 8);
		((int64_t *)dst)[i] = b > a ? (int64_t)((uint64_t)a +
							bits % ((uint64_t)b - (uint64_t)a)) :
					      a;
		break;
	case ACL_UINT32: {
		uint32_t x, y;

		memcpy(&x, lo, 4);
		memcpy(&y, hi, 4);
		((uint32_t *)dst)[i] = y > x ? x + (uint32_t)(bits % (y - x)) : x;
		break;
	}
	default: /* ACL_UINT64 */
		memcpy(&ua, lo, 8);
		memcpy(&ub, hi, 8);
		((uint64_t *)dst)[i] = ub > ua ? ua + bits % (ub - ua) : ua;
		break;
	}
}

static void rnd_fill(const aclrtRandomNumTaskInfo *ti, const uint8_t a[8], const uint8_t b[8],
		     uint64_t seed, uint64_t ctr, uint64_t num)
{
	aclDataType type = ti->dataType;
	aclrtRandomNumFuncType f = ti->randomNumFuncParaInfo.funcType;
	void *dst = ti->randomResultAddr;

	if (f == ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK) {
		double keep = 1.0 - rnd_get(a, type);
		uint8_t *m = dst;

		memset(m, 0, (size_t)((num + 7) / 8));
		for (uint64_t i = 0; i < num; i++)
			if (rnd_unit(rnd_bits(seed, ctr + i)) < keep)
				m[i / 8] |= (uint8_t)(1u << (i % 8));
		return;
	}
	for (uint64_t i = 0; i < num; i++) {
		uint64_t bits = rnd_bits(seed, ctr + i);

		if (f == ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS && type != ACL_FLOAT &&
		    type != ACL_FLOAT16 && type != ACL_BF16) {
			rnd_uniform_int(dst, (size_t)i, type, a, b, bits);
		} else if (f == ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS) {
			double lo = rnd_get(a, type), hi = rnd_get(b, type);

			rnd_put_float(dst, (size_t)i, type, lo + rnd_unit(bits) * (hi - lo));
		} else {
			double z = rnd_normal(seed, ctr + i, 0);

			/* truncated: redrawn until within 2 standard deviations */
			for (uint64_t d = 1;
			     f == ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS &&
			     (z < -2 || z > 2);
			     d++)
				z = rnd_normal(seed, ctr + i, d);
			rnd_put_float(dst, (size_t)i, type,
				      rnd_get(a, type) + z * rnd_get(b, type));
		}
	}
}

aclError aclrtRandomNumAsync(const aclrtRandomNumTaskInfo *taskInfo, const aclrtStream stream,
			     void *reserve)
{
	struct rt_api a, r;
	struct rt_stream *s;
	struct rt_task t;
	const aclrtRandomNumFuncParaInfo *fp;
	uint8_t p1[8], p2[8], seed[8], num[8];
	uint64_t n, sd, ctr, bytes;
	size_t es, rsize = 0, csize = 0;
	aclError ret = ACL_SUCCESS;

	rt_api_begin(&a, NPUPROF_API_ACL, "aclrtRandomNumAsync", NULL);
	if (!taskInfo || reserve || !taskInfo->randomResultAddr || !taskInfo->randomCounterAddr)
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	fp = &taskInfo->randomNumFuncParaInfo;
	if (!rnd_type_ok(fp->funcType, taskInfo->dataType)) {
		rt_set_errmsg("aclrtRandomNumAsync: function %d does not take data type %d",
			      (int)fp->funcType, (int)taskInfo->dataType);
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	}
	es = aclDataTypeSize(taskInfo->dataType);
	memset(p2, 0, sizeof(p2));
	if (fp->funcType == ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK)
		ret = rnd_param(&fp->paramInfo.dropoutBitmaskInfo.dropoutRation, es, p1,
				"dropoutRation");
	else if (fp->funcType == ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS) {
		ret = rnd_param(&fp->paramInfo.uniformDisInfo.min, es, p1, "min");
		if (!ret)
			ret = rnd_param(&fp->paramInfo.uniformDisInfo.max, es, p2, "max");
	} else {
		ret = rnd_param(&fp->paramInfo.normalDisInfo.mean, es, p1, "mean");
		if (!ret)
			ret = rnd_param(&fp->paramInfo.normalDisInfo.stddev, es, p2, "stddev");
	}
	if (!ret)
		ret = rnd_param(&taskInfo->randomSeed, 8, seed, "randomSeed");
	if (!ret)
		ret = rnd_param(&taskInfo->randomNum, 8, num, "randomNum");
	if (ret)
		return rt_api_end(&a, ret);
	memcpy(&n, num, 8);
	memcpy(&sd, seed, 8);
	bytes = fp->funcType == ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK ? (n + 7) / 8 : n * es;
	if ((ret = rt_stream_get(stream, &s)))
		return rt_api_end(&a, ret);
	if (s->model || (s->flags & ACL_STREAM_PERSISTENT)) {
		/* its numbers and counter are the host's at submit, not at each
		 * execution of a model */
		rt_set_errmsg("aclrtRandomNumAsync on stream %u, whose tasks go to a model: "
			      "random-number tasks in a model run instance are not supported on "
			      "npusim",
			      s->sid);
		return rt_api_end(&a, ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	}
	if (n > UINT64_MAX / 8 || rt_mem_dev(taskInfo->randomResultAddr, &rsize) != s->dev ||
	    bytes > rsize || rt_mem_dev(taskInfo->randomCounterAddr, &csize) != s->dev ||
	    csize < 16) {
		rt_set_errmsg("aclrtRandomNumAsync: the result (%llu bytes) and the counter (16 "
			      "bytes) must be device %d's memory",
			      (unsigned long long)bytes, s->dev);
		return rt_api_end(&a, ACL_ERROR_INVALID_PARAM);
	}
	rt_api_begin(&r, NPUPROF_API_RUNTIME, "LaunchRandomNumTask", NULL);
	memcpy(&ctr, taskInfo->randomCounterAddr, sizeof(ctr));
	rnd_fill(taskInfo, p1, p2, sd, ctr, n);
	ctr += n;
	memcpy(taskInfo->randomCounterAddr, &ctr, sizeof(ctr));
	/* STARS runs it as a DSA SQE (type 15), which npusim does not model: a
	 * place holder carries it */
	rt_task_init(&t, NPUSIM_SQE_PLACE_HOLDER, "DSA_SQE");
	ret = rt_submit(s, &t, 1);
	rt_api_end(&r, ret);
	return rt_api_end(&a, ret);
}

/* ---- float overflow ------------------------------------------------------------- */

/* The saturation mode set on a device in generation gen (rt_g.lock). */
static struct {
	int set;
	uint32_t gen;
	aclrtFloatOverflowMode mode;
} g_sat[NPUSIM_MAX_DEVICES];

aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode)
{
	aclError ret;
	int dev;

	if (mode != ACL_RT_OVERFLOW_MODE_SATURATION && mode != ACL_RT_OVERFLOW_MODE_INFNAN)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if ((ret = rt_current_dev(&dev)))
		return rt_fail(ret);
	pthread_mutex_lock(&rt_g.lock);
	g_sat[dev].set = 1;
	g_sat[dev].gen = rt_g.dev[dev].gen;
	g_sat[dev].mode = mode;
	pthread_mutex_unlock(&rt_g.lock);
	return ACL_SUCCESS;
}

aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode)
{
	aclError ret;
	int dev;

	if (!mode)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if ((ret = rt_current_dev(&dev)))
		return rt_fail(ret);
	pthread_mutex_lock(&rt_g.lock);
	*mode = g_sat[dev].set && g_sat[dev].gen == rt_g.dev[dev].gen ? g_sat[dev].mode :
									ACL_RT_OVERFLOW_MODE_INFNAN;
	pthread_mutex_unlock(&rt_g.lock);
	return ACL_SUCCESS;
}

aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag)
{
	struct rt_stream *s;
	aclError ret;

	if (flag > 1)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if ((ret = rt_stream_get(stream, &s)))
		return rt_fail(ret);
	s->overflow = flag;
	return ACL_SUCCESS;
}

aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag)
{
	struct rt_stream *s;
	aclError ret;

	if (!flag)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if ((ret = rt_stream_get(stream, &s)))
		return rt_fail(ret);
	*flag = s->overflow;
	return ACL_SUCCESS;
}

aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize, aclrtStream stream)
{
	struct rt_stream *s;
	size_t size = 0;
	aclError ret;

	if (!outputAddr || !outputSize)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if ((ret = rt_stream_get(stream, &s)))
		return rt_fail(ret);
	if (rt_mem_dev(outputAddr, &size) != s->dev || outputSize > size) {
		rt_set_errmsg("aclrtGetOverflowStatus: %zu bytes of device %d's memory expected",
			      outputSize, s->dev);
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	}
	memset(outputAddr, 0, outputSize); /* npusim never overflows */
	return ACL_SUCCESS;
}

aclError aclrtResetOverflowStatus(aclrtStream stream)
{
	struct rt_stream *s;

	return rt_fail(rt_stream_get(stream, &s));
}

/* ---- custom allocators ---------------------------------------------------------- */

#define RT_ALLOC_MAGIC 0x414c4c43U /* "ALLC" */

struct rt_allocator {
	uint32_t magic;
	aclrtAllocator obj;
	aclrtAllocatorAllocFunc alloc;
	aclrtAllocatorFreeFunc free;
	aclrtAllocatorAllocAdviseFunc advise;
	aclrtAllocatorGetAddrFromBlockFunc addr;
	aclrtAllocatorDesc desc; /* on a stream: the descriptor registered */
};

aclrtAllocatorDesc aclrtAllocatorCreateDesc(void)
{
	struct rt_allocator *d = calloc(1, sizeof(*d));

	if (d)
		d->magic = RT_ALLOC_MAGIC;
	return d;
}

static struct rt_allocator *desc_of(aclrtAllocatorDesc h)
{
	struct rt_allocator *d = h;

	return d && d->magic == RT_ALLOC_MAGIC ? d : NULL;
}

aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc)
{
	struct rt_allocator *d = desc_of(allocatorDesc);

	if (!d)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	d->magic = 0;
	free(d);
	return ACL_SUCCESS;
}

#define DESC_SETTER(fn, type, field)                             \
	aclError fn(aclrtAllocatorDesc allocatorDesc, type v)    \
	{                                                        \
		struct rt_allocator *d = desc_of(allocatorDesc); \
                                                                 \
		if (!d || !v)                                    \
			return rt_fail(ACL_ERROR_INVALID_PARAM); \
		d->field = v;                                    \
		return ACL_SUCCESS;                              \
	}
DESC_SETTER(aclrtAllocatorSetObjToDesc, aclrtAllocator, obj)
DESC_SETTER(aclrtAllocatorSetAllocFuncToDesc, aclrtAllocatorAllocFunc, alloc)
DESC_SETTER(aclrtAllocatorSetFreeFuncToDesc, aclrtAllocatorFreeFunc, free)
DESC_SETTER(aclrtAllocatorSetAllocAdviseFuncToDesc, aclrtAllocatorAllocAdviseFunc, advise)
DESC_SETTER(aclrtAllocatorSetGetAddrFromBlockFuncToDesc, aclrtAllocatorGetAddrFromBlockFunc, addr)

aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc)
{
	struct rt_allocator *d = desc_of(allocatorDesc), *copy;
	struct rt_stream *s;
	aclError ret;

	if (!stream || !d || !d->obj || !d->alloc || !d->free || !d->addr) {
		rt_set_errmsg("aclrtAllocatorRegister: a stream and a descriptor with the "
			      "allocator object and its alloc, free and address callbacks");
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	}
	if ((ret = rt_stream_get(stream, &s)))
		return rt_fail(ret);
	if (!(copy = malloc(sizeof(*copy))))
		return rt_fail(ACL_ERROR_BAD_ALLOC);
	*copy = *d;
	copy->magic = 0; /* not a descriptor */
	copy->desc = allocatorDesc;
	pthread_mutex_lock(&s->lock);
	free(s->alloc);
	s->alloc = copy;
	pthread_mutex_unlock(&s->lock);
	return ACL_SUCCESS;
}

aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc,
				   aclrtAllocator *allocator, aclrtAllocatorAllocFunc *allocFunc,
				   aclrtAllocatorFreeFunc *freeFunc,
				   aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
				   aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc)
{
	struct rt_stream *s;
	aclError ret;

	if (!stream || !allocatorDesc || !allocator || !allocFunc || !freeFunc ||
	    !allocAdviseFunc || !getAddrFromBlockFunc)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if ((ret = rt_stream_get(stream, &s)))
		return rt_fail(ret);
	pthread_mutex_lock(&s->lock);
	if (s->alloc) {
		*allocatorDesc = s->alloc->desc;
		*allocator = s->alloc->obj;
		*allocFunc = s->alloc->alloc;
		*freeFunc = s->alloc->free;
		*allocAdviseFunc = s->alloc->advise;
		*getAddrFromBlockFunc = s->alloc->addr;
	} else {
		rt_set_errmsg("aclrtAllocatorGetByStream: no allocator registered on the stream");
		ret = ACL_ERROR_INVALID_PARAM;
	}
	pthread_mutex_unlock(&s->lock);
	return rt_fail(ret);
}

aclError aclrtAllocatorUnregister(aclrtStream stream)
{
	struct rt_stream *s;
	aclError ret;

	if (!stream)
		return rt_fail(ACL_ERROR_INVALID_PARAM);
	if ((ret = rt_stream_get(stream, &s)))
		return rt_fail(ret);
	pthread_mutex_lock(&s->lock);
	if (!s->alloc)
		ret = ACL_ERROR_INVALID_PARAM;
	free(s->alloc);
	s->alloc = NULL;
	pthread_mutex_unlock(&s->lock);
	return rt_fail(ret);
}
