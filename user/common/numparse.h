/*
 * numparse.h — the one checked parser of numbers given on a command line or
 * in a text file: every option of every npuprof subcommand (and of npuwork
 * and dbgen) goes through it, so a value that does not fit is refused with
 * the same kind of message instead of wrapping.
 *
 * Accepted: decimal digits only for integers (no sign, no spaces, no 0x),
 * the whole string; for reals what strtod accepts minus NaN, infinity and
 * hexadecimal (0x10, 0x1p3), so both kinds read the same way.
 * A value outside [min, max] is refused; so is an empty string.
 */
#ifndef NPUPROF_NUMPARSE_H
#define NPUPROF_NUMPARSE_H

#include <stddef.h>
#include <stdint.h>

/* 0 with *out set, or -EINVAL (not a number) / -ERANGE (outside [min, max])
 * with a message in err: "'<s>' is not a whole number from <min> to <max>". */
int num_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err,
		  size_t errlen);
int num_parse_double(const char *s, double min, double max, double *out, char *err, size_t errlen);

/* For command lines: the same parsers, printing on failure
 * "<tool>: <option>: '<s>' is not ..." to stderr. 0 or -1. */
int opt_u64(const char *tool, const char *option, const char *s, uint64_t min, uint64_t max,
	    uint64_t *out);
int opt_u32(const char *tool, const char *option, const char *s, uint32_t min, uint32_t max,
	    uint32_t *out);
int opt_int(const char *tool, const char *option, const char *s, int min, int max, int *out);
int opt_double(const char *tool, const char *option, const char *s, double min, double max,
	       double *out);

/* A path option's value: refuses an empty one with "<tool>: <option>: the
 * path is empty" on stderr. 0 or -1. */
int opt_path(const char *tool, const char *option, const char *s);

/* A list of ids such as "0,2,5-7", each within [min, max], at most `max_n`
 * of them (a range counts each member). Refuses empty items ("0,", ",1",
 * "1,,2"), reversed ranges and values out of range. Returns the count, or
 * -1 after printing "<tool>: <option>: ..." to stderr. */
int opt_list(const char *tool, const char *option, const char *s, uint32_t min, uint32_t max,
	     uint32_t *out, int max_n);

/* end - start for timestamps from files that may be damaged: saturates
 * instead of overflowing, and never goes below 0. */
static inline int64_t span_ns(int64_t start, int64_t end)
{
	int64_t d;

	if (end <= start)
		return 0;
	if (__builtin_sub_overflow(end, start, &d))
		return INT64_MAX;
	return d;
}

#endif
