/*
 * securectype.h - the types and limits of securec (the bounds-checked C
 * library CANN ships as libc_sec.so), for npuprof's compatible subset.
 */
#ifndef SECURECTYPE_H_A7BBB686_AADA_451B_B9F9_44DACDAE18A7
#define SECURECTYPE_H_A7BBB686_AADA_451B_B9F9_44DACDAE18A7

#include <stddef.h>

#ifndef errno_t
typedef int errno_t;
#endif

/* the largest destMax the functions accept */
#define SECUREC_MEM_MAX_LEN 0x7fffffffUL
#define SECUREC_STRING_MAX_LEN 0x7fffffffUL

#ifndef SECUREC_API
#define SECUREC_API __attribute__((visibility("default")))
#endif

#endif
