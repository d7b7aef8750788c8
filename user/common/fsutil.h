/*
 * fsutil.h - file-system helpers shared by the recorder and the tool library.
 */
#ifndef NPUPROF_FSUTIL_H
#define NPUPROF_FSUTIL_H

#include <stddef.h>
#include <sys/types.h>

/* mkdir -p with `mode` for every missing component; 0, or a negative errno
 * (-ENOTDIR if path exists and is not a directory). */
int npuprof_mkdirs(const char *path, mode_t mode);

/* rm -rf path (depth first, symlinks not followed); 0 or a negative errno
 * (the first failure stops it). */
int fs_remove_tree(const char *path);

/* Write all n bytes of p to fd, again after a short write or EINTR; 0 or a
 * negative errno. */
int fs_write_all(int fd, const void *p, size_t n);

/* Copy the file from to the file to (created, or truncated: mode 0644); 0
 * or a negative errno. */
int fs_copy_file(const char *from, const char *to);

#endif
