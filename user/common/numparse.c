/*
 * numparse.c — checked number parsing (numparse.h).
 */
#include "numparse.h"
#include "errmsg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int num_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err,
		  size_t errlen)
{
	uint64_t v = 0;
	const char *p = s;

	if (!s || !*s)
		goto bad;
	for (; *p; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (d > 9)
			goto bad;
		if (v > (UINT64_MAX - d) / 10) {
			/* more digits than a 64-bit number holds */
			npuprof_seterr(err, errlen, "'%s' is too large (at most %llu)", s,
				       (unsigned long long)max);
			return -ERANGE;
		}
		v = v * 10 + d;
	}
	if (v < min || v > max) {
		npuprof_seterr(err, errlen, "'%s' is out of range (%llu to %llu)", s,
			       (unsigned long long)min, (unsigned long long)max);
		return -ERANGE;
	}
	*out = v;
	return 0;
bad:
	npuprof_seterr(err, errlen, "'%s' is not a whole number from %llu to %llu", s ? s : "",
		       (unsigned long long)min, (unsigned long long)max);
	return -EINVAL;
}

int num_parse_double(const char *s, double min, double max, double *out, char *err, size_t errlen)
{
	char *end;
	double v;

	/* decimal only, as the integers: strtod's hex ("0x10", "0x1p3") is not */
	if (!s || !*s || *s == ' ' || *s == '\t' || *s == '\n' || strpbrk(s, "xX"))
		goto bad;
	errno = 0;
	v = strtod(s, &end);
	if (*end || end == s || isnan(v) || isinf(v))
		goto bad;
	if (v < min || v > max) {
		npuprof_seterr(err, errlen, "'%s' is out of range (%g to %g)", s, min, max);
		return -ERANGE;
	}
	*out = v;
	return 0;
bad:
	npuprof_seterr(err, errlen, "'%s' is not a number from %g to %g", s ? s : "", min, max);
	return -EINVAL;
}

int opt_u64(const char *tool, const char *option, const char *s, uint64_t min, uint64_t max,
	    uint64_t *out)
{
	char err[256];

	if (num_parse_u64(s, min, max, out, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "%s: %s: %s\n", tool, option, err);
	return -1;
}

int opt_u32(const char *tool, const char *option, const char *s, uint32_t min, uint32_t max,
	    uint32_t *out)
{
	uint64_t v;

	if (opt_u64(tool, option, s, min, max, &v) < 0)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int opt_int(const char *tool, const char *option, const char *s, int min, int max, int *out)
{
	uint64_t v;

	/* negative bounds are not needed by any option: refuse them here */
	if (min < 0)
		min = 0;
	if (opt_u64(tool, option, s, (uint64_t)min, (uint64_t)max, &v) < 0)
		return -1;
	*out = (int)v;
	return 0;
}

int opt_double(const char *tool, const char *option, const char *s, double min, double max,
	       double *out)
{
	char err[256];

	if (num_parse_double(s, min, max, out, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "%s: %s: %s\n", tool, option, err);
	return -1;
}

int opt_path(const char *tool, const char *option, const char *s)
{
	if (s && *s)
		return 0;
	fprintf(stderr, "%s: %s: the path is empty\n", tool, option);
	return -1;
}

int opt_list(const char *tool, const char *option, const char *s, uint32_t min, uint32_t max,
	     uint32_t *out, int max_n)
{
	char item[32], err[256];
	int n = 0;

	if (!s || !*s) {
		fprintf(stderr, "%s: %s: empty list (give ids from %u to %u, e.g. 0,2-3)\n", tool,
			option, min, max);
		return -1;
	}
	for (;;) {
		size_t len = strcspn(s, ",");
		char *dash;
		uint64_t a, b;

		if (len == 0 || len >= sizeof(item)) {
			fprintf(stderr,
				"%s: %s: '%.*s' in '%s' is not an id or a range A-B of ids from %u to %u\n",
				tool, option, (int)len, s, s, min, max);
			return -1;
		}
		memcpy(item, s, len);
		item[len] = '\0';
		dash = strchr(item, '-');
		if (dash == item || (dash && !dash[1])) {
			/* "-1", "3-": a sign or a range without one end */
			fprintf(stderr,
				"%s: %s: '%s' is not an id or a range A-B of ids from %u to %u\n",
				tool, option, item, min, max);
			return -1;
		}
		if (dash)
			*dash = '\0';
		if (num_parse_u64(item, min, max, &a, err, sizeof(err)) < 0 ||
		    (dash && num_parse_u64(dash + 1, min, max, &b, err, sizeof(err)) < 0)) {
			fprintf(stderr, "%s: %s: %s\n", tool, option, err);
			return -1;
		}
		if (!dash)
			b = a;
		if (b < a) {
			fprintf(stderr, "%s: %s: range %llu-%llu runs backwards\n", tool, option,
				(unsigned long long)a, (unsigned long long)b);
			return -1;
		}
		if (b - a >= (uint64_t)(max_n - n)) {
			fprintf(stderr, "%s: %s: more than %d ids\n", tool, option, max_n);
			return -1;
		}
		for (uint64_t v = a; v <= b; v++)
			out[n++] = (uint32_t)v;
		s += len;
		if (!*s)
			return n;
		s++; /* the comma; an item must follow it */
		if (!*s) {
			fprintf(stderr, "%s: %s: the list ends with a comma\n", tool, option);
			return -1;
		}
	}
}
