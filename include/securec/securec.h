/*
 * securec.h - the securec functions CANN's samples and libraries call
 * (libc_sec.so), with securec's return codes. Every function checks
 * destMax first (0 or above SECUREC_*_MAX_LEN: ERANGE, nothing written),
 * then the pointers (NULL: EINVAL; a usable dest is cleared first:
 * EINVAL_AND_RESET), then the sizes (too small: dest cleared,
 * ERANGE_AND_RESET) and overlap (EOVERLAP_AND_RESET).
 */
#ifndef SECUREC_H_5D13A042_DC3F_4ED9_A8D1_882811274C27
#define SECUREC_H_5D13A042_DC3F_4ED9_A8D1_882811274C27

#include <stdarg.h>

#include "securectype.h"

#ifndef EOK
#define EOK 0
#endif
#ifndef EINVAL
#define EINVAL 22
#endif
#ifndef ERANGE
#define ERANGE 34
#endif
#ifndef EOVERLAP
#define EOVERLAP 54
#endif
#define EINVAL_AND_RESET (22 | 128)
#define ERANGE_AND_RESET (34 | 128)
#define EOVERLAP_AND_RESET (54 | 128)

#ifdef __cplusplus
extern "C" {
#endif

SECUREC_API errno_t memset_s(void *dest, size_t destMax, int c, size_t count);
SECUREC_API errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count);
SECUREC_API errno_t memmove_s(void *dest, size_t destMax, const void *src, size_t count);
SECUREC_API errno_t strcpy_s(char *strDest, size_t destMax, const char *strSrc);
SECUREC_API errno_t strncpy_s(char *strDest, size_t destMax, const char *strSrc, size_t count);
SECUREC_API errno_t strcat_s(char *strDest, size_t destMax, const char *strSrc);
SECUREC_API errno_t strncat_s(char *strDest, size_t destMax, const char *strSrc, size_t count);
/* The printf family returns the characters written, or -1 (dest cleared)
 * on bad arguments or when the output does not fit; snprintf_s writes at
 * most `count` characters and returns -1 when it truncated. */
SECUREC_API int sprintf_s(char *strDest, size_t destMax, const char *format, ...)
	__attribute__((format(printf, 3, 4)));
SECUREC_API int vsprintf_s(char *strDest, size_t destMax, const char *format, va_list argList);
SECUREC_API int snprintf_s(char *strDest, size_t destMax, size_t count, const char *format, ...)
	__attribute__((format(printf, 4, 5)));
SECUREC_API int vsnprintf_s(char *strDest, size_t destMax, size_t count, const char *format,
			    va_list argList);

#ifdef __cplusplus
}
#endif

#endif
