/*
 * atomicfile.h — writing an output file so that it appears complete or not
 * at all: the bytes go to a hidden temporary in the same directory, which
 * is synced and renamed over the final name only when everything was
 * written. A full disk or an interrupted writer therefore never replaces a
 * good file with a truncated one.
 *
 * The temporary is <dir>/.npuprof-tmp-<name>.<pid>.<n>.<ns>, created
 * exclusively with mode 0666 (the umask applies, as for any file the user
 * creates) and held under flock() while it is written, so the sweep of stale
 * temporaries (dbwriter.c) removes only those of writers that died.
 */
#ifndef NPUPROF_ATOMICFILE_H
#define NPUPROF_ATOMICFILE_H

#include <stddef.h>
#include <stdio.h>

#define NPUPROF_TMP_PREFIX ".npuprof-tmp-"

/* Create the locked temporary for <dir>/<name>: returns its fd (O_RDWR) and
 * *tmp_path (malloc'd), or a negative errno. */
int atomic_tmp_create(const char *dir, const char *name, char **tmp_path);

struct atomic_file {
	FILE *f; /* write here */
	char *path; /* the final name */
	char *tmp; /* the temporary */
};

/* Start writing path. Returns 0, or -errno with a message naming path. */
int atomic_file_open(struct atomic_file *af, const char *path, char *err, size_t errlen);
/* Flush, sync, close and rename over path. Returns 0, or -errno with a
 * message (the temporary is removed and path is untouched). */
int atomic_file_commit(struct atomic_file *af, char *err, size_t errlen);
/* Close and remove the temporary; path is untouched. Safe on a file never
 * opened or already committed. */
void atomic_file_abort(struct atomic_file *af);

#endif
