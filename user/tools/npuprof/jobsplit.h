/*
 * jobsplit.h - `npuprof record -- LAUNCHER ...`: the processes of a job.
 *
 * While recording a command, the capture engine takes every process's
 * records (kernel pid filter off) and the tree filter keeps those of the
 * command's process tree: a submit or receive by a process whose ancestry
 * reaches the command (or that wrote a host stream into the session, for a
 * process gone before its records were read), and the completions and task
 * times of the streams such a process submitted to.
 *
 * When the capture ends, a job of several processes (host streams or task
 * submits from more than one pid) is split: each process gets its own
 * PROF_* directory next to the job's (its host stream, the kernel records
 * of its streams, the clock samples of its devices, only its devices'
 * device_<N>/ directories with their STARS SoC logs whole; its rank is
 * decided at export from its host stream, npuprof/rank.h), and the job's
 * directory is removed. One process:
 * nothing changes.
 */
#ifndef NPUPROF_JOBSPLIT_H
#define NPUPROF_JOBSPLIT_H

#include <stddef.h>
#include <sys/types.h>

#include "npuprof/engine.h"
#include "npuprof/session.h"
#include "u64map.h"

struct job_tree {
	pid_t root;
	const char *session_dir; /* where host streams show membership */
	struct u64map member; /* pid -> 1 member, 2 not */
	struct u64map owner; /* npuprof_stream_key -> submitting member pid */
	uint64_t filtered; /* records of other processes dropped */
	pid_t submitter[2]; /* the first two member processes that submitted */
	int nsubmitters; /* 0, 1 or 2 (two or more) */
};

void job_tree_init(struct job_tree *t, pid_t root, const char *session_dir);
void job_tree_free(struct job_tree *t);
/* 1: the record belongs to the job. */
int job_tree_keep(struct job_tree *t, const struct npuprof_record *r);

#define JOB_MAX_PROCS 64

/* Whether the job may hold several processes: two submitted tasks, or the
 * session has more than one host stream. */
int job_tree_maybe_many(const struct job_tree *t, const char *session_dir);

/* Split the finished job session s (see above). On return *n holds the
 * number of session directories now holding the job (1: s->dir unchanged;
 * else the new directories, in pid order, in dirs). Returns 0 or -errno with
 * a message in err (the job's directory is then left as it was). */
int job_split(const struct npuprof_session *s, char (*dirs)[4352], int max, int *n, char *err,
	      size_t errlen);

#endif
