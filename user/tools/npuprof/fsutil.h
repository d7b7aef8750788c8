/*
 * fsutil.h — file system helpers the npuprof commands share.
 */
#ifndef NPUPROF_TOOL_FSUTIL_H
#define NPUPROF_TOOL_FSUTIL_H

/* Remove the directory tree @dir (symbolic links are removed, never
 * followed); what cannot be removed is left. */
void fs_rmtree(const char *dir);

#endif
