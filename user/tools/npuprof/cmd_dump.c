/*
 * npuprof dump — ask a running flight recorder for a dump: send it SIGUSR1
 * and wait until it names the new session directory in <pidfile>.last.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "cmds.h"
#include "hangwatch.h"
#include "numparse.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: npuprof dump [--pidfile PATH | --pid P] [--timeout S]\n"
		"  Make the running `npuprof flight` write its last seconds as a session\n"
		"  directory, and print that directory.\n\n"
		"  --pidfile PATH   the recorder's pid file (default /run/npuprof-flight.pid\n"
		"                   as root, else /tmp/npuprof-flight-<uid>.pid)\n"
		"  --pid P          signal this process instead (prints nothing)\n"
		"  --timeout S      wait this long for the dump (default 30)\n"
		"\nexamples:\n"
		"  npuprof dump\n"
		"  npuprof dump --pidfile /tmp/flight.pid && npuprof export \"$(npuprof dump)\"\n");
}

static int read_last(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "r");

	out[0] = 0;
	if (!f)
		return -1;
	if (!fgets(out, (int)len, f))
		out[0] = 0;
	out[strcspn(out, "\n")] = 0;
	fclose(f);
	return 0;
}

/* Is pid an npuprof flight recorder (`npuprof flight`, `npuprof watch
 * --flight`)? Its command line says: argv[0] named npuprof, argv[1] the
 * subcommand. 1 yes; 0 no, with what it is in what. */
static int is_recorder(pid_t pid, char *what, size_t len)
{
	char path[64], cmd[512];
	size_t n;
	FILE *f;
	const char *base, *sub;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "r");
	if (!f) {
		snprintf(what, len, "no such process (%s)", strerror(errno));
		return 0;
	}
	n = fread(cmd, 1, sizeof(cmd) - 2, f);
	fclose(f);
	cmd[n] = cmd[n + 1] = '\0';
	base = strrchr(cmd, '/') ? strrchr(cmd, '/') + 1 : cmd;
	sub = cmd + strlen(cmd) + 1;
	if (!strcmp(base, "npuprof") && (!strcmp(sub, "flight") || !strcmp(sub, "watch")))
		return 1;
	for (size_t i = 0; i + 1 < n; i++)
		if (!cmd[i])
			cmd[i] = ' ';
	snprintf(what, len, "'%.200s'", n ? cmd : "?");
	return 0;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option lo[] = { { "pidfile", required_argument, 0, 'f' },
					    { "pid", required_argument, 0, 'p' },
					    { "timeout", required_argument, 0, 't' },
					    { "help", no_argument, 0, 'h' },
					    { 0, 0, 0, 0 } };
	char pidfile[4096], last[4200], before[4352], now[4352];
	double timeout = 30;
	pid_t pid = 0;
	int ipid;
	int opt;
	struct stat st0, st1;
	uint64_t t0;

	flight_default_pidfile(pidfile, sizeof(pidfile));
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (opt) {
		case 'f': snprintf(pidfile, sizeof(pidfile), "%s", optarg); break;
		case 'p':
			if (opt_int("npuprof dump", "--pid", optarg, 1, 4194304, &ipid) < 0)
				return 2;
			pid = (pid_t)ipid;
			break;
		case 't':
			if (opt_double("npuprof dump", "--timeout", optarg, 0.001, 86400,
				       &timeout) < 0)
				return 2;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (pid > 0) {
		char what[256];

		if (!is_recorder(pid, what, sizeof(what))) {
			fprintf(stderr,
				"npuprof dump: pid %d is not an npuprof flight recorder (it is %s): not signalled\n",
				(int)pid, what);
			return 1;
		}
		if (kill(pid, SIGUSR1) < 0) {
			fprintf(stderr, "npuprof dump: cannot signal %d: %s\n", (int)pid,
				strerror(errno));
			return 1;
		}
		return 0;
	}
	{
		FILE *f = fopen(pidfile, "r");
		char what[256];

		if (!f || fscanf(f, "%d", &pid) != 1 || pid <= 0) {
			fprintf(stderr,
				"npuprof dump: no flight recorder: cannot read %s%s%s (is `npuprof flight` running? give --pidfile)\n",
				pidfile, f ? "" : ": ", f ? "" : strerror(errno));
			if (f)
				fclose(f);
			return 1;
		}
		/* the recorder holds a lock on its pid file while it runs: a
		 * file nobody holds is stale, and its pid may be anyone's */
		if (flock(fileno(f), LOCK_SH | LOCK_NB) == 0) {
			fclose(f);
			fprintf(stderr,
				"npuprof dump: %s is stale: no flight recorder holds it (pid %d not signalled; is `npuprof flight` running?)\n",
				pidfile, (int)pid);
			return 1;
		}
		fclose(f);
		if (!is_recorder(pid, what, sizeof(what))) {
			fprintf(stderr,
				"npuprof dump: %s names pid %d, which is not an npuprof flight recorder (it is %s): not signalled\n",
				pidfile, (int)pid, what);
			return 1;
		}
	}
	snprintf(last, sizeof(last), "%s.last", pidfile);
	read_last(last, before, sizeof(before));
	memset(&st0, 0, sizeof(st0));
	stat(last, &st0);
	if (kill(pid, SIGUSR1) < 0) {
		fprintf(stderr, "npuprof dump: cannot signal the recorder (pid %d): %s\n", (int)pid,
			strerror(errno));
		return 1;
	}
	t0 = capture_now_ns();
	while ((capture_now_ns() - t0) / 1e9 < timeout) {
		usleep(50000);
		if (stat(last, &st1) < 0 || read_last(last, now, sizeof(now)) < 0)
			continue;
		if (strcmp(now, before) || st1.st_ino != st0.st_ino) {
			printf("%s\n", now);
			return 0;
		}
	}
	fprintf(stderr, "npuprof dump: the recorder (pid %d) wrote no dump within %.0f s\n",
		(int)pid, timeout);
	return 1;
}
