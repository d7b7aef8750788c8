/*
 * errmsg.h — how libnpuprof functions report failures: a negative errno as
 * the return value and a message naming the file, offset or value at fault
 * in the caller's buffer (err may be NULL).
 */
#ifndef NPUPROF_ERRMSG_H
#define NPUPROF_ERRMSG_H

#include <stddef.h>

void npuprof_seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
