/*
 * fuzz_util.h - what the libFuzzer harnesses of tests/fuzz share: a scratch
 * directory per process, writing an input to a file there, and splitting
 * one input into several files at a marker.
 */
#ifndef NPUPROF_FUZZ_UTIL_H
#define NPUPROF_FUZZ_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The marker between the parts of a multi-file input. */
#define FUZZ_SPLIT "\n=NPUPROF-FUZZ-PART=\n"

/* A scratch directory for this process, removed at exit (libFuzzer exits
 * through exit(), so atexit works); in /dev/shm when there is one, so that
 * the writers' fsyncs cost nothing. */
static char fuzz_dir[64];

static inline void fuzz_rm_dir(void)
{
	char cmd[128];

	if (fuzz_dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fuzz_dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", fuzz_dir);
	}
}

static inline const char *fuzz_scratch(void)
{
	if (!fuzz_dir[0]) {
		snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/npuprof-fuzz-XXXXXX",
			 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
		if (!mkdtemp(fuzz_dir))
			abort();
		atexit(fuzz_rm_dir);
	}
	return fuzz_dir;
}

/* Write len bytes to path (created or truncated); aborts on failure, which
 * is the harness's fault, not the input's. */
static inline void fuzz_write(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	const char *p = data;

	if (fd < 0)
		abort();
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w <= 0)
			abort();
		p += w;
		len -= (size_t)w;
	}
	close(fd);
}

/* The n-th part (0-based) of data split at FUZZ_SPLIT; 0 if there is none. */
static inline int fuzz_part(const uint8_t *data, size_t len, int n, const uint8_t **part,
			    size_t *plen)
{
	const size_t ml = sizeof(FUZZ_SPLIT) - 1;
	const uint8_t *p = data, *end = data + len;

	for (;;) {
		const uint8_t *m = memmem(p, (size_t)(end - p), FUZZ_SPLIT, ml);
		const uint8_t *stop = m ? m : end;

		if (n-- == 0) {
			*part = p;
			*plen = (size_t)(stop - p);
			return 1;
		}
		if (!m)
			return 0;
		p = m + ml;
	}
}

#endif
