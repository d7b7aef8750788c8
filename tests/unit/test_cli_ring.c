/*
 * test_cli_ring.c — the capturing commands refuse a --ring-kb outside the
 * ring size rule of uapi/npuprof.h before they start anything: exit status
 * 2 and a message naming the option and the range. Runs build/bin/npuprof
 * from the top of the tree (scripts/run-unit.sh starts there).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uapi/npuprof.h"

#define NPUPROF_BIN "build/bin/npuprof"

/* Run `npuprof CMD --ring-kb VALUE [extra]` with stderr captured. */
static int run(const char *cmd, const char *value, const char *extra, char *err, size_t errlen)
{
	char line[512];
	FILE *p;
	size_t n = 0;
	int st;

	snprintf(line, sizeof(line), "%s %s --ring-kb '%s' %s 2>&1 >/dev/null </dev/null",
		 NPUPROF_BIN, cmd, value, extra);
	p = popen(line, "r");
	ck_assert_ptr_nonnull(p);
	while (n + 1 < errlen && fgets(err + n, (int)(errlen - n), p))
		n += strlen(err + n);
	err[n] = 0;
	st = pclose(p);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static const char *const bad[] = {
	"0",
	"3",
	"2",
	"100",
	"abc",
	"",
	"64k",
	"-4",
	"2097152", /* 2 GiB */
	"18014398509481984", /* overflows when shifted to bytes */
};

static const char *const cmds[] = {
	"stat", "record -o /nonexistent/x", "flight -o /nonexistent/x", "watch", "live", "top"
};

START_TEST(test_out_of_range_refused)
{
	char err[4096], range[64];
	long page = sysconf(_SC_PAGESIZE);
	unsigned long long min = NPUPROF_RING_MIN_BYTES > (unsigned long long)page ?
					 NPUPROF_RING_MIN_BYTES :
					 (unsigned long long)page;

	snprintf(range, sizeof(range), "%llu to %llu", min >> 10, NPUPROF_RING_MAX_BYTES >> 10);
	for (unsigned c = 0; c < sizeof(cmds) / sizeof(cmds[0]); c++)
		for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			int rc = run(cmds[c], bad[i], "-- true", err, sizeof(err));

			ck_assert_msg(rc == 2, "npuprof %s --ring-kb '%s': exit %d\n%s", cmds[c],
				      bad[i], rc, err);
			ck_assert_msg(
				strstr(err, "--ring-kb") && strstr(err, range),
				"npuprof %s --ring-kb '%s': no message naming the option and '%s':\n%s",
				cmds[c], bad[i], range, err);
		}
}
END_TEST

/* In range, the option is taken (whatever happens next on this host). */
START_TEST(test_in_range_taken)
{
	static const char *const good[] = { "4", "64", "1024", "1048576" };
	char err[4096];

	for (unsigned i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (sysconf(_SC_PAGESIZE) > 4096 && !strcmp(good[i], "4"))
			continue;
		/* --help after the option: parsing ends there, status 0 */
		int rc = run("stat", good[i], "--help", err, sizeof(err));

		ck_assert_msg(rc == 0, "npuprof stat --ring-kb %s --help: exit %d\n%s", good[i], rc,
			      err);
		ck_assert_msg(!strstr(err, "must be a power of two"), "%s", err);
	}
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("cli_ring");
	TCase *tc = tcase_create("ring_kb");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_out_of_range_refused);
	tcase_add_test(tc, test_in_range_taken);
	suite_add_tcase(s, tc);
	return s;
}
