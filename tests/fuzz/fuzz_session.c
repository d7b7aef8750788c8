/*
 * fuzz_session.c - reading npuprof.session (user/export/session.c) from any
 * text: no overflow of its fixed fields, devices within bounds.
 */
#include "fuzz_util.h"
#include "npuprof/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct npuprof_session s;
	char path[128], err[512];

	snprintf(path, sizeof(path), "%s/%s", fuzz_scratch(), NPUPROF_SESSION_FILE);
	fuzz_write(path, data, size);
	if (npuprof_session_load(&s, fuzz_scratch(), err, sizeof(err)) == 0) {
		if (s.ndev < 0 || s.ndev > NPUPROF_MAX_SESSION_DEVICES)
			abort();
		if (strnlen(s.hostname, sizeof(s.hostname)) == sizeof(s.hostname) ||
		    strnlen(s.cmd, sizeof(s.cmd)) == sizeof(s.cmd) ||
		    strnlen(s.engine, sizeof(s.engine)) == sizeof(s.engine))
			abort();
		(void)npuprof_session_unix_ns(&s, s.end_monotonic_ns);
	}
	return 0;
}
