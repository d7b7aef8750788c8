/*
 * apisession.h - the session directory of an aclprofStart collection and
 * its self-capture (apisession.c). Private to the recorder: aclprof.c calls
 * these under its control mutex.
 */
#ifndef NPUPROF_APISESSION_H
#define NPUPROF_APISESSION_H

#include <stddef.h>
#include <stdint.h>

struct apisession_config {
	const char *parent; /* the aclprofInit result path */
	uint64_t switches; /* ACL_PROF_* after post-processing */
	uint32_t aicore_metrics; /* aclprofAicoreMetrics of the config */
	uint32_t dev_count; /* configured devices (the host id not counted) */
	const uint32_t *dev_ids;
};

/* Creates a new PROF_* session directory under cfg->parent, laid out as
 * `npuprof record` lays it out (npuprof/session.h), and writes its path to
 * dir. 0, or -errno with a message in err. */
int apisession_create(const struct apisession_config *cfg, char *dir, size_t dirlen, char *err,
		      size_t errlen);

/* Starts capturing this process's own device tasks on the configured
 * devices through /dev/npuprof (ioctl + read-only mmap of the rings) with a
 * reader thread writing the session's kernel stream, if the config collects
 * task times. Without /dev/npuprof (or when the capture cannot start) it
 * prints one warning and the session is host-only (engine=host). Never
 * fails the collection. */
void apisession_capture_start(void);

/* Stops the capture (drains the rings, joins the reader), writes the end
 * files and the final npuprof.session. 0, or -errno with a message. */
int apisession_finish(char *err, size_t errlen);

/* 1 while apisession_capture_start's capture runs (tests). */
int apisession_capturing(void);

#endif
