/*
 * rec_export.h - marks the recorder functions that the ACL runtime calls
 * across the library boundary. The recorder is compiled with
 * -fvisibility=hidden; these (with the aclprof* API, ACL_FUNC_VISIBILITY)
 * are the only default-visibility symbols, and libmsprofiler.map lists the
 * same set.
 */
#ifndef NPUPROF_REC_EXPORT_H
#define NPUPROF_REC_EXPORT_H

#define NPUPROF_REC_EXPORT __attribute__((visibility("default")))

#endif
