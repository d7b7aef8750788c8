/*
 * testutil.h - helpers every unit test may use (the more specific
 * db_testutil.h and hostrec_testutil.h include it). One definition each.
 */
#ifndef NPUPROF_TESTUTIL_H
#define NPUPROF_TESTUTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static inline int tu_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(path) != 0)
		fprintf(stderr, "could not remove %s\n", path);
	return 0;
}

/* rm -rf dir: the tree under it, depth first; a missing dir is no error. */
static inline void tu_rm_rf(const char *dir)
{
	nftw(dir, tu_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
