/*
 * jobsplit.c - the processes of a recorded job (jobsplit.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errmsg.h"
#include "fsutil.h"
#include "jobsplit.h"
#include "npuprof/hostread.h"
#include "npuprof/rank.h"
#include "npuprof/rawkern.h"

/* ---- the tree filter ------------------------------------------------------- */

void job_tree_init(struct job_tree *t, pid_t root, const char *session_dir)
{
	memset(t, 0, sizeof(*t));
	t->root = root;
	t->session_dir = session_dir;
	u64map_init(&t->member);
	u64map_init(&t->owner);
}

void job_tree_free(struct job_tree *t)
{
	u64map_free(&t->member);
	u64map_free(&t->owner);
}

static int parent_of(pid_t pid, pid_t *ppid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;
	int pp;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')'); /* the command name may hold anything */
	if (!p || sscanf(p + 1, " %*c %d", &pp) != 1)
		return -1;
	*ppid = (pid_t)pp;
	return 0;
}

static int has_host_stream(const char *dir, pid_t pid)
{
	char path[4400];

	snprintf(path, sizeof(path),
		 "%s/host/data/" NPUPROF_HOSTFMT_FILE_PREFIX "%d" NPUPROF_HOSTFMT_FILE_SUFFIX, dir,
		 (int)pid);
	return access(path, F_OK) == 0;
}

static int is_member(struct job_tree *t, pid_t pid)
{
	uint64_t v;
	pid_t p = pid;
	int member = 0;

	if (u64map_get(&t->member, (uint64_t)pid, &v))
		return v == 1;
	for (int depth = 0; depth < 256; depth++) {
		if (p == t->root) {
			member = 1;
			break;
		}
		if (p <= 1)
			break; /* reached init: not ours */
		if (parent_of(p, &p) < 0)
			break; /* gone: its host stream may still tell */
	}
	if (!member && t->session_dir && has_host_stream(t->session_dir, pid))
		member = 1;
	/* remembered either way: a process gone without a host stream is not
	 * looked up again */
	u64map_put(&t->member, (uint64_t)pid, member ? 1 : 2);
	return member;
}

/* A completion of stream key k: the stream's submits were
 * ours, or (no submit: send mode UIO_D) the engine attributed it to its SQ's
 * owner, one of ours. */
static int task_rec_keep(struct job_tree *t, const struct npuprof_record *r, uint64_t k)
{
	uint64_t v;

	if (u64map_get(&t->owner, k, &v))
		return 1;
	return (r->hdr.flags & NPUPROF_F_SQ_OWNER) && is_member(t, (pid_t)r->hdr.pid);
}

int job_tree_keep(struct job_tree *t, const struct npuprof_record *r)
{
	uint64_t k;
	int keep = 1;

	switch (r->hdr.type) {
	case NPUPROF_REC_SUBMIT:
		k = npuprof_stream_key(r->submit.devid, r->submit.stream_id);
		keep = is_member(t, (pid_t)r->hdr.pid);
		if (keep && t->nsubmitters < 2 &&
		    (!t->nsubmitters || t->submitter[0] != (pid_t)r->hdr.pid))
			t->submitter[t->nsubmitters++] = (pid_t)r->hdr.pid;
		if (keep)
			u64map_put(&t->owner, k, r->hdr.pid);
		else
			u64map_del(&t->owner, k); /* the stream id went to another process */
		break;
	case NPUPROF_REC_COMPLETE:
		k = npuprof_stream_key(r->complete.devid, r->complete.stream_id);
		keep = task_rec_keep(t, r, k);
		break;
	case NPUPROF_REC_RECV: keep = is_member(t, (pid_t)r->hdr.pid); break;
	}
	t->filtered += !keep;
	return keep;
}

int job_tree_maybe_many(const struct job_tree *t, const char *session_dir)
{
	char path[4400];
	struct dirent *e;
	DIR *d;
	int n = 0;

	if (t->nsubmitters > 1)
		return 1;
	snprintf(path, sizeof(path), "%s/host/data", session_dir);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)) && n < 2)
		n += !strncmp(e->d_name, NPUPROF_HOSTFMT_FILE_PREFIX,
			      strlen(NPUPROF_HOSTFMT_FILE_PREFIX));
	closedir(d);
	return n > 1;
}

/* ---- the split ------------------------------------------------------------- */

struct proc {
	pid_t pid;
	uint64_t devmask; /* devices it submitted to (ids < 64) */
	uint64_t submits;
	int host; /* has a host stream with content */
	struct npuprof_session s;
	struct npuprof_rawk_writer *w;
};

struct split {
	struct proc p[JOB_MAX_PROCS];
	int n;
	int overflow;
	struct u64map owner; /* stream key -> index + 1 */
	int err;
	char msg[4600];
};

static struct proc *proc_of(struct split *sp, pid_t pid, int add)
{
	for (int i = 0; i < sp->n; i++)
		if (sp->p[i].pid == pid)
			return &sp->p[i];
	if (!add)
		return NULL;
	if (sp->n == JOB_MAX_PROCS) {
		sp->overflow = 1;
		return NULL;
	}
	memset(&sp->p[sp->n], 0, sizeof(sp->p[0]));
	sp->p[sp->n].pid = pid;
	return &sp->p[sp->n++];
}

static int pass1(void *ctx, const struct npuprof_record *r)
{
	struct split *sp = ctx;
	struct proc *p;

	if (r->hdr.type != NPUPROF_REC_SUBMIT)
		return 0;
	p = proc_of(sp, (pid_t)r->hdr.pid, 1);
	if (p) {
		p->submits++;
		if (r->submit.devid < 64)
			p->devmask |= 1ULL << r->submit.devid;
	}
	return 0;
}

static int put(struct split *sp, struct proc *p, const struct npuprof_record *r)
{
	int e;

	if (!p->w)
		return 0;
	e = npuprof_rawk_append(p->w, r);
	if (e < 0 && !sp->err) {
		sp->err = e;
		snprintf(sp->msg, sizeof(sp->msg), "%s/%s: %s", p->s.dir, NPUPROF_KERNEL_RAW,
			 strerror(-e));
	}
	return 0;
}

static int pass2(void *ctx, const struct npuprof_record *r)
{
	struct split *sp = ctx;
	struct proc *p = NULL;
	uint64_t k = 0, v;
	uint32_t dev = 0;

	switch (r->hdr.type) {
	case NPUPROF_REC_SUBMIT:
		p = proc_of(sp, (pid_t)r->hdr.pid, 0);
		k = npuprof_stream_key(r->submit.devid, r->submit.stream_id);
		if (p)
			u64map_put(&sp->owner, k, (uint64_t)(p - sp->p) + 1);
		else
			u64map_del(&sp->owner, k);
		break;
	case NPUPROF_REC_COMPLETE:
		k = npuprof_stream_key(r->complete.devid, r->complete.stream_id);
		if (u64map_get(&sp->owner, k, &v))
			p = &sp->p[v - 1];
		break;
	case NPUPROF_REC_RECV: p = proc_of(sp, (pid_t)r->hdr.pid, 0); break;
	case NPUPROF_REC_CLOCK_SYNC:
		dev = r->clock.devid;
		for (int i = 0; i < sp->n; i++)
			if (dev < 64 && (sp->p[i].devmask >> dev & 1))
				put(sp, &sp->p[i], r);
		return 0;
	default: /* drops and what we do not know: every process may have lost */
		for (int i = 0; i < sp->n; i++)
			put(sp, &sp->p[i], r);
		return 0;
	}
	if (p)
		put(sp, p, r);
	return 0;
}

/* A host stream with anything but the collection's bookkeeping in it: API
 * calls, tasks, msproftx, the framework's records (FWK_OP, FWK_MEM, FWK_GC)
 * ... A process's stream moves whole to its own directory, so every record
 * stays with the process and the thread (its tid field) that wrote it. */
static int content_rec(void *ctx, const struct npuprof_hostfmt_block_header *b,
		       const struct npuprof_hostfmt_header *rec)
{
	(void)b;
	switch (rec->kind) {
	case NPUPROF_HOSTFMT_SESSION:
	case NPUPROF_HOSTFMT_HASH:
	case NPUPROF_HOSTFMT_OPTION:
	case NPUPROF_HOSTFMT_END:
	case NPUPROF_HOSTFMT_RANK:
	case NPUPROF_HOSTFMT_CLOCK:
	/* libprofapi's: the time base, the type names (registered at load)
	 * and the refused reports' counts */
	case NPUPROF_HOSTFMT_CLOCK_RAW:
	case NPUPROF_HOSTFMT_MSPROF_TYPE:
	case NPUPROF_HOSTFMT_MSPROF_BAD: return 0;
	case NPUPROF_HOSTFMT_FWK_OP:
	case NPUPROF_HOSTFMT_FWK_MEM:
	case NPUPROF_HOSTFMT_FWK_GC: break; /* a framework-only process (torch on CPU) */
	}
	*(int *)ctx = 1;
	return 1;
}

static int host_pids(const char *dir, struct split *sp)
{
	char path[4400];
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "%s/host/data", dir);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		size_t pl = strlen(NPUPROF_HOSTFMT_FILE_PREFIX), l = strlen(e->d_name);
		char file[4700];
		char *end;
		long pid;
		int content = 0;
		struct proc *p;

		if (strncmp(e->d_name, NPUPROF_HOSTFMT_FILE_PREFIX, pl) || l <= pl + 4 ||
		    strcmp(e->d_name + l - 4, NPUPROF_HOSTFMT_FILE_SUFFIX))
			continue;
		pid = strtol(e->d_name + pl, &end, 10);
		if (pid <= 0 || end != e->d_name + l - 4)
			continue;
		snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
		{
			struct npuprof_hostread_file_info info;
			struct npuprof_hostread_decode_stats st;
			char err[256];

			/* damage: count it as content, so nothing is dropped */
			if (npuprof_hostread_decode(file, content_rec, &content, &info, &st, err,
						    sizeof(err)) != 1 &&
			    st.problems)
				content = 1;
		}
		p = proc_of(sp, (pid_t)pid, content);
		if (p)
			p->host = 1;
	}
	closedir(d);
	return 0;
}

/* Process p's devices' STARS SoC logs, whole (linked, else copied): a log's
 * records name streams, not processes, and who owned a stream is known only
 * in host time (the kernel stream's submits) while the log counts device
 * ticks, so the split does not sort them; each session's export keeps the
 * tasks of the streams its own kernel stream has (export.c). The devices'
 * AI Core frequency changes too: they are the device's, and each session's
 * export writes those inside its own times (lpfreq.h). */
static int carry_stars(const struct npuprof_session *s, const struct proc *p, char *err,
		       size_t errlen)
{
	static const char *const files[] = { NPUPROF_STARS_SOC_FILE, NPUPROF_LPM_FREQ_FILE };

	for (int k = 0; k < p->s.ndev * 2; k++) {
		const char *file = files[k % 2];
		int d = k / 2;
		char from[4400], to[4400];
		int r;

		snprintf(from, sizeof(from), "%s/device_%u/%s", s->dir, p->s.dev[d].id, file);
		if (access(from, F_OK) < 0)
			continue;
		snprintf(to, sizeof(to), "%s/device_%u/data", p->s.dir, p->s.dev[d].id);
		r = npuprof_mkdirs(to, 0755);
		snprintf(to, sizeof(to), "%s/device_%u/%s", p->s.dir, p->s.dev[d].id, file);
		if (!r && link(from, to) < 0)
			r = fs_copy_file(from, to);
		if (r < 0) {
			npuprof_seterr(err, errlen, "copying %s to %s: %s", from, to, strerror(-r));
			return r;
		}
	}
	return 0;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

int job_split(const struct npuprof_session *s, char (*dirs)[4352], int max, int *n, char *err,
	      size_t errlen)
{
	struct split *sp = calloc(1, sizeof(*sp));
	char kpath[4400], parent[4352], *slash;
	struct npuprof_rawk_info ri;
	long got;
	int r = 0;

	*n = 1;
	err[0] = 0;
	if (!sp) {
		npuprof_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	snprintf(kpath, sizeof(kpath), "%s/%s", s->dir, NPUPROF_KERNEL_RAW);
	got = npuprof_rawk_read(kpath, pass1, sp, &ri, err, errlen);
	if (got < 0 && access(kpath, F_OK) == 0) {
		free(sp);
		return (int)got;
	}
	err[0] = 0;
	host_pids(s->dir, sp);
	if (sp->n <= 1 || sp->overflow || sp->n > max) {
		if (sp->overflow || sp->n > max)
			npuprof_seterr(err, errlen, "more than %d processes: kept as one session",
				       sp->n > max ? max : JOB_MAX_PROCS);
		free(sp);
		return 0;
	}
	qsort(sp->p, (size_t)sp->n, sizeof(sp->p[0]), cmp_proc);
	snprintf(parent, sizeof(parent), "%s", s->dir);
	slash = strrchr(parent, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(parent, sizeof(parent), ".");
	for (int i = 0; i < sp->n && !r; i++) {
		struct proc *p = &sp->p[i];
		char path[4400];

		p->s = *s;
		p->s.pid = (uint32_t)p->pid;
		p->s.rank = NPUPROF_RANK_NONE;
		p->s.ndev = 0;
		for (int d = 0; d < s->ndev; d++)
			if (s->dev[d].id < 64 && (p->devmask >> s->dev[d].id & 1)) {
				p->s.dev[p->s.ndev] = s->dev[d];
				p->s.dev[p->s.ndev++].rank = NPUPROF_RANK_NONE;
			}
		r = npuprof_session_create(&p->s, parent, err, errlen);
		if (r < 0)
			break;
		snprintf(path, sizeof(path), "%s/%s", p->s.dir, NPUPROF_KERNEL_RAW);
		r = npuprof_rawk_create(&p->w, path, s->engine, s->sample_n, s->capture_flags, err,
					errlen);
	}
	u64map_init(&sp->owner);
	if (!r) {
		got = npuprof_rawk_read(kpath, pass2, sp, &ri, err, errlen);
		if (got < 0 && access(kpath, F_OK) == 0)
			r = (int)got;
		else
			err[0] = 0;
	}
	for (int i = 0; i < sp->n; i++) {
		int e = sp->p[i].w ? npuprof_rawk_close(sp->p[i].w) : 0;

		if (e < 0 && !r) {
			r = e;
			npuprof_seterr(err, errlen, "%s/%s: %s", sp->p[i].s.dir, NPUPROF_KERNEL_RAW,
				       strerror(-e));
		}
	}
	if (!r && sp->err) {
		r = sp->err;
		npuprof_seterr(err, errlen, "%s", sp->msg);
	}
	for (int i = 0; i < sp->n && !r; i++) {
		struct proc *p = &sp->p[i];
		char from[4400], to[4400];

		snprintf(from, sizeof(from),
			 "%s/host/data/" NPUPROF_HOSTFMT_FILE_PREFIX
			 "%d" NPUPROF_HOSTFMT_FILE_SUFFIX,
			 s->dir, (int)p->pid);
		snprintf(to, sizeof(to),
			 "%s/host/data/" NPUPROF_HOSTFMT_FILE_PREFIX
			 "%d" NPUPROF_HOSTFMT_FILE_SUFFIX,
			 p->s.dir, (int)p->pid);
		if (p->host && rename(from, to) < 0) {
			r = -errno;
			npuprof_seterr(err, errlen, "moving %s to %s: %s", from, to,
				       strerror(errno));
			break;
		}
		r = carry_stars(s, p, err, errlen);
		/* the job's capture counts (copied), its own end files */
		if (!r)
			r = npuprof_session_finish(&p->s, err, errlen);
	}
	u64map_free(&sp->owner);
	if (r) {
		/* put back what moved, drop the half-made directories */
		for (int i = 0; i < sp->n; i++) {
			char from[4400], to[4400];

			if (!sp->p[i].s.dir[0] || !strcmp(sp->p[i].s.dir, s->dir))
				continue;
			snprintf(from, sizeof(from),
				 "%s/host/data/" NPUPROF_HOSTFMT_FILE_PREFIX
				 "%d" NPUPROF_HOSTFMT_FILE_SUFFIX,
				 sp->p[i].s.dir, (int)sp->p[i].pid);
			snprintf(to, sizeof(to),
				 "%s/host/data/" NPUPROF_HOSTFMT_FILE_PREFIX
				 "%d" NPUPROF_HOSTFMT_FILE_SUFFIX,
				 s->dir, (int)sp->p[i].pid);
			rename(from, to);
			fs_remove_tree(sp->p[i].s.dir);
		}
		free(sp);
		return r;
	}
	for (int i = 0; i < sp->n; i++)
		snprintf(dirs[i], sizeof(dirs[i]), "%s", sp->p[i].s.dir);
	*n = sp->n;
	fs_remove_tree(s->dir);
	free(sp);
	return 0;
}
