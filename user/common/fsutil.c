/*
 * fsutil.c - file-system helpers shared by the recorder and the tool library.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "fsutil.h"

int npuprof_mkdirs(const char *path, mode_t mode)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);
	struct stat st;

	if (len == 0 || len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, mode) && errno != EEXIST)
		return -errno;
	if (stat(buf, &st))
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) ? -errno : 0;
}

int fs_remove_tree(const char *path)
{
	int r = nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);

	return r < 0 ? -errno : r;
}
