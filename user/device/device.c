/*
 * device.c - choosing the device backend (device.h).
 */
#include "device.h"

#include <string.h>

static const struct npuprof_device_backend *const backends[] = {
	&npuprof_device_npusim,
	&npuprof_device_noclock,
};

#define NBACKENDS (sizeof(backends) / sizeof(backends[0]))

const struct npuprof_device_backend *npuprof_device_probe(void)
{
	struct npuprof_device_info one;

	for (size_t i = 0; i < NBACKENDS; i++)
		if (backends[i]->enumerate(&one, 1) > 0)
			return backends[i];
	return &npuprof_device_noclock;
}

const struct npuprof_device_backend *npuprof_device_find(const char *name)
{
	for (size_t i = 0; name && i < NBACKENDS; i++)
		if (!strcmp(backends[i]->name, name))
			return backends[i];
	return NULL;
}
