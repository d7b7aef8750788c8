/*
 * securec.c - libc_sec.so: the securec subset of securec.h on top of libc.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "securec/securec.h"

static int overlap(const void *a, size_t na, const void *b, size_t nb)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return x < y + nb && y < x + na;
}

errno_t memset_s(void *dest, size_t destMax, int c, size_t count)
{
	if (destMax == 0 || destMax > SECUREC_MEM_MAX_LEN)
		return ERANGE;
	if (!dest)
		return EINVAL;
	if (count > destMax) {
		memset(dest, c, destMax);
		return ERANGE_AND_RESET;
	}
	memset(dest, c, count);
	return EOK;
}

/* The argument checks memcpy_s and memmove_s share; a failure after dest is
 * known good clears dest, as securec does. */
static errno_t mem_args(void *dest, size_t destMax, const void *src, size_t count)
{
	if (destMax == 0 || destMax > SECUREC_MEM_MAX_LEN)
		return ERANGE;
	if (!dest)
		return EINVAL;
	if (!src) {
		memset(dest, 0, destMax);
		return EINVAL_AND_RESET;
	}
	if (count > destMax) {
		memset(dest, 0, destMax);
		return ERANGE_AND_RESET;
	}
	return EOK;
}

errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count)
{
	errno_t e = mem_args(dest, destMax, src, count);

	if (e != EOK)
		return e;
	if (count && dest != src && overlap(dest, count, src, count)) {
		memset(dest, 0, destMax);
		return EOVERLAP_AND_RESET;
	}
	if (count && dest != src)
		memcpy(dest, src, count);
	return EOK;
}

errno_t memmove_s(void *dest, size_t destMax, const void *src, size_t count)
{
	errno_t e = mem_args(dest, destMax, src, count);

	if (e != EOK)
		return e;
	if (count)
		memmove(dest, src, count);
	return EOK;
}

/* strcpy_s / strncpy_s: copy n bytes of src (+ NUL) into dest. */
static errno_t copy_str(char *dest, size_t destMax, const char *src, size_t n)
{
	if (n + 1 > destMax) {
		dest[0] = '\0';
		return ERANGE_AND_RESET;
	}
	if (overlap(dest, n + 1, src, n + 1)) {
		dest[0] = '\0';
		return EOVERLAP_AND_RESET;
	}
	memcpy(dest, src, n);
	dest[n] = '\0';
	return EOK;
}

errno_t strcpy_s(char *strDest, size_t destMax, const char *strSrc)
{
	if (destMax == 0 || destMax > SECUREC_STRING_MAX_LEN)
		return ERANGE;
	if (!strDest)
		return EINVAL;
	if (!strSrc) {
		strDest[0] = '\0';
		return EINVAL_AND_RESET;
	}
	return copy_str(strDest, destMax, strSrc, strnlen(strSrc, destMax));
}

errno_t strncpy_s(char *strDest, size_t destMax, const char *strSrc, size_t count)
{
	if (destMax == 0 || destMax > SECUREC_STRING_MAX_LEN)
		return ERANGE;
	if (!strDest)
		return EINVAL;
	if (!strSrc || count > SECUREC_STRING_MAX_LEN) {
		strDest[0] = '\0';
		return strSrc ? ERANGE_AND_RESET : EINVAL_AND_RESET;
	}
	return copy_str(strDest, destMax, strSrc,
			strnlen(strSrc, count < destMax ? count : destMax));
}

static errno_t cat_str(char *dest, size_t destMax, const char *src, size_t count)
{
	size_t have, n;

	if (destMax == 0 || destMax > SECUREC_STRING_MAX_LEN)
		return ERANGE;
	if (!dest)
		return EINVAL;
	if (!src) {
		dest[0] = '\0';
		return EINVAL_AND_RESET;
	}
	have = strnlen(dest, destMax);
	if (have == destMax) { /* dest is not terminated within destMax */
		dest[0] = '\0';
		return EINVAL_AND_RESET;
	}
	n = strnlen(src, count < destMax ? count : destMax);
	if (have + n + 1 > destMax) {
		dest[0] = '\0';
		return ERANGE_AND_RESET;
	}
	if (overlap(dest, have + n + 1, src, n)) {
		dest[0] = '\0';
		return EOVERLAP_AND_RESET;
	}
	memcpy(dest + have, src, n);
	dest[have + n] = '\0';
	return EOK;
}

errno_t strcat_s(char *strDest, size_t destMax, const char *strSrc)
{
	return cat_str(strDest, destMax, strSrc, SECUREC_STRING_MAX_LEN);
}

errno_t strncat_s(char *strDest, size_t destMax, const char *strSrc, size_t count)
{
	if (count > SECUREC_STRING_MAX_LEN) {
		if (strDest && destMax && destMax <= SECUREC_STRING_MAX_LEN)
			strDest[0] = '\0';
		return destMax && destMax <= SECUREC_STRING_MAX_LEN && strDest ? ERANGE_AND_RESET :
										 ERANGE;
	}
	return cat_str(strDest, destMax, strSrc, count);
}

int vsnprintf_s(char *strDest, size_t destMax, size_t count, const char *format, va_list ap)
{
	size_t limit;
	int n;

	if (!strDest || !format || destMax == 0 || destMax > SECUREC_STRING_MAX_LEN) {
		if (strDest && destMax && destMax <= SECUREC_STRING_MAX_LEN)
			strDest[0] = '\0';
		return -1;
	}
	/* at most count characters, and always room for the NUL */
	limit = count < destMax ? count + 1 : destMax;
	n = vsnprintf(strDest, limit, format, ap);
	if (n < 0) {
		strDest[0] = '\0';
		return -1;
	}
	if ((size_t)n >= limit) {
		if (count < destMax)
			return -1; /* truncated to count, kept */
		strDest[0] = '\0';
		return -1;
	}
	return n;
}

int snprintf_s(char *strDest, size_t destMax, size_t count, const char *format, ...)
{
	va_list ap;
	int n;

	va_start(ap, format);
	n = vsnprintf_s(strDest, destMax, count, format, ap);
	va_end(ap);
	return n;
}

int vsprintf_s(char *strDest, size_t destMax, const char *format, va_list ap)
{
	return vsnprintf_s(strDest, destMax, SECUREC_STRING_MAX_LEN, format, ap);
}

int sprintf_s(char *strDest, size_t destMax, const char *format, ...)
{
	va_list ap;
	int n;

	va_start(ap, format);
	n = vsprintf_s(strDest, destMax, format, ap);
	va_end(ap);
	return n;
}
