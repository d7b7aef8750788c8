/*
 * fsutil.c — file system helpers the npuprof commands share (fsutil.h).
 */
#include "fsutil.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void fs_rmtree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[4400];

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			fs_rmtree(p);
		else
			unlink(p);
	}
	closedir(d);
	rmdir(dir);
}
