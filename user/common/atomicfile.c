/*
 * atomicfile.c — temporary + rename for output files (atomicfile.h).
 */
#include "atomicfile.h"
#include "errmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

int atomic_tmp_create(const char *dir, const char *name, char **tmp_path)
{
	static unsigned seq;
	char path[PATH_MAX];
	struct timespec ts;

	*tmp_path = NULL;
	for (int tries = 0; tries < 100; tries++) {
		int fd, n;

		clock_gettime(CLOCK_REALTIME, &ts);
		n = snprintf(path, sizeof(path), "%s/" NPUPROF_TMP_PREFIX "%s.%d.%u.%lx", dir, name,
			     (int)getpid(), __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED),
			     (unsigned long)ts.tv_nsec);
		if (n < 0 || (size_t)n >= sizeof(path))
			return -ENAMETOOLONG;
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0)
			return -errno;
		/* a live writer's temporary is never swept as stale; best
		 * effort: some file systems (9p, NFS) refuse locks */
		(void)flock(fd, LOCK_EX | LOCK_NB);
		*tmp_path = strdup(path);
		if (!*tmp_path) {
			unlink(path);
			close(fd);
			return -ENOMEM;
		}
		return fd;
	}
	return -EEXIST;
}

int atomic_file_open(struct atomic_file *af, const char *path, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	int fd;

	memset(af, 0, sizeof(*af));
	if (slash) {
		if ((size_t)(slash - path) >= sizeof(dir)) {
			npuprof_seterr(err, errlen, "%s: path too long", path);
			return -ENAMETOOLONG;
		}
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
		if (!dir[0])
			snprintf(dir, sizeof(dir), "/");
	} else {
		snprintf(dir, sizeof(dir), ".");
	}
	af->path = strdup(path);
	if (!af->path) {
		npuprof_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	fd = atomic_tmp_create(dir, slash ? slash + 1 : path, &af->tmp);
	if (fd < 0) {
		npuprof_seterr(err, errlen, "%s: cannot create a temporary in %s: %s", path, dir,
			       strerror(-fd));
		free(af->path);
		af->path = NULL;
		return fd;
	}
	af->f = fdopen(fd, "w");
	if (!af->f) {
		int e = -errno;

		close(fd);
		atomic_file_abort(af);
		npuprof_seterr(err, errlen, "%s: %s", path, strerror(-e));
		return e;
	}
	return 0;
}

int atomic_file_commit(struct atomic_file *af, char *err, size_t errlen)
{
	int e = 0;

	if (!af->f) {
		npuprof_seterr(err, errlen, "%s: not open", af->path ? af->path : "?");
		return -EINVAL;
	}
	if (fflush(af->f) != 0 || ferror(af->f))
		e = errno ? -errno : -EIO;
	else if (fsync(fileno(af->f)) < 0)
		e = -errno;
	if (fclose(af->f) != 0 && !e)
		e = errno ? -errno : -EIO;
	af->f = NULL;
	if (!e && rename(af->tmp, af->path) < 0)
		e = -errno;
	if (e) {
		npuprof_seterr(err, errlen,
			       "%s: write failed: %s; the previous file, if any, is kept", af->path,
			       strerror(-e));
		atomic_file_abort(af);
		return e;
	}
	free(af->tmp);
	af->tmp = NULL;
	free(af->path);
	af->path = NULL;
	return 0;
}

void atomic_file_abort(struct atomic_file *af)
{
	if (af->f)
		fclose(af->f);
	if (af->tmp)
		unlink(af->tmp);
	free(af->tmp);
	free(af->path);
	memset(af, 0, sizeof(*af));
}
