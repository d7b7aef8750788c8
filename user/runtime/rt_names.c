/*
 * rt_names.c - the database names of ACL data types and formats
 * (acl/acl_npu_op.h: aclnpuDataTypeName, aclnpuFormatName), as the
 * COMPUTE_TASK_INFO strings and the device mirror spell them. Uses nothing
 * else of the runtime.
 */
#include <stddef.h>

#include "rt_internal.h"

static const struct {
	aclDataType dt;
	const char *name;
} g_dtypes[] = {
	{ ACL_FLOAT, "FLOAT" },	  { ACL_FLOAT16, "FLOAT16" },	  { ACL_INT8, "INT8" },
	{ ACL_INT32, "INT32" },	  { ACL_UINT8, "UINT8" },	  { ACL_INT16, "INT16" },
	{ ACL_UINT16, "UINT16" }, { ACL_UINT32, "UINT32" },	  { ACL_INT64, "INT64" },
	{ ACL_UINT64, "UINT64" }, { ACL_DOUBLE, "DOUBLE" },	  { ACL_BOOL, "BOOL" },
	{ ACL_STRING, "STRING" }, { ACL_COMPLEX64, "COMPLEX64" }, { ACL_COMPLEX128, "COMPLEX128" },
	{ ACL_BF16, "BF16" },
};

static const struct {
	aclFormat fmt;
	const char *name;
} g_formats[] = {
	{ ACL_FORMAT_NCHW, "NCHW" },
	{ ACL_FORMAT_NHWC, "NHWC" },
	{ ACL_FORMAT_ND, "ND" },
	{ ACL_FORMAT_NC1HWC0, "NC1HWC0" },
	{ ACL_FORMAT_FRACTAL_Z, "FRACTAL_Z" },
	{ ACL_FORMAT_NC1HWC0_C04, "NC1HWC0_C04" },
	{ ACL_FORMAT_HWCN, "HWCN" },
	{ ACL_FORMAT_NDHWC, "NDHWC" },
	{ ACL_FORMAT_FRACTAL_NZ, "FRACTAL_NZ" },
	{ ACL_FORMAT_NCDHW, "NCDHW" },
	{ ACL_FORMAT_NDC1HWC0, "NDC1HWC0" },
	{ ACL_FRACTAL_Z_3D, "FRACTAL_Z_3D" },
};

const char *aclnpuDataTypeName(aclDataType dt)
{
	for (size_t i = 0; i < sizeof(g_dtypes) / sizeof(g_dtypes[0]); i++)
		if (g_dtypes[i].dt == dt)
			return g_dtypes[i].name;
	return "UNDEFINED";
}

const char *aclnpuFormatName(aclFormat fmt)
{
	for (size_t i = 0; i < sizeof(g_formats) / sizeof(g_formats[0]); i++)
		if (g_formats[i].fmt == fmt)
			return g_formats[i].name;
	return "UNDEFINED";
}
