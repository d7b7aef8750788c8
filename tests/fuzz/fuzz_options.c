/*
 * fuzz_options.c - the option parsers: the capture options every capturing
 * subcommand shares (user/tools/npuprof/capture.c) on an argv made of the
 * input's NUL-separated words, and the checked number parser
 * (user/common/numparse.c) on the first word: a value it accepts is within
 * its bounds and is what the digits say.
 */
#include "fuzz_util.h"
#include "capture.h"
#include "numparse.h"

#include <math.h>

/* The parsers explain every refusal on stderr: silenced while they run,
 * not for libFuzzer's own reports. */
static int g_null = -1, g_stderr = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	g_null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	g_stderr = dup(2);
	return 0;
}

static void numbers(const char *s)
{
	uint64_t v, lo = 3, hi = 4294967295u;
	double d;
	uint32_t ids[64];
	int n;

	if (num_parse_u64(s, lo, hi, &v, NULL, 0) == 0) {
		if (v < lo || v > hi || strtoull(s, NULL, 10) != v)
			abort();
	}
	if (num_parse_double(s, 0.001, 1e6, &d, NULL, 0) == 0) {
		if (!(d >= 0.001 && d <= 1e6) || isnan(d))
			abort();
	}
	n = opt_list("fuzz", "--devices", s, 0, 31, ids, 32);
	if (n > 32)
		abort();
	for (int i = 0; i < n; i++)
		if (ids[i] > 31)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct option lo[] = { CAPTURE_LONG_OPTIONS,
					    REPLAY_LONG_OPTION,
					    { "output", required_argument, 0, 'o' },
					    { 0, 0, 0, 0 } };
	char *buf = malloc(size + 1), *argv[34];
	struct capture_args a;
	int argc = 1, opt;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[0] = "npuprof";
	for (char *p = buf; argc < 33 && p <= buf + size; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	dup2(g_null, 2);
	numbers(argv[1]);
	capture_args_init(&a);
	optind = 0; /* glibc: start over */
	opterr = 0;
	while ((opt = capture_getopt(&a, "fuzz", argc, argv, "+o:h", lo)) != -1)
		if (opt == CAP_OPT_INVALID)
			break;
	if (a.o.sample_n == 0 && a.duration < 0)
		abort();
	if (a.o.nstreams > NPUPROF_MAX_STREAMS)
		abort();
	capture_args_free(&a);
	free(buf);
	dup2(g_stderr, 2);
	return 0;
}
