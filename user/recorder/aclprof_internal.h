/*
 * aclprof_internal.h - functions shared by the aclprof* implementation files
 * (aclprof.c, str2id.c) and nothing else.
 */
#ifndef NPUPROF_ACLPROF_INTERNAL_H
#define NPUPROF_ACLPROF_INTERNAL_H

/* Writes the whole Str2Id dictionary (one HASH record per string) to the
 * running stream; called when a collection starts. */
void npuprof_str2id_emit_all(void);

#endif
