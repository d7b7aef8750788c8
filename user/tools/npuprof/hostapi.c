/*
 * hostapi.c - native or attached host recording for `npuprof record`
 * (hostapi.h).
 *
 * Which libprofapi.so a program loads is the dynamic loader's answer for
 * its environment; a child of this tool asks the loader the same question
 * (dlopen by name: LD_LIBRARY_PATH, the cache, the system directories),
 * looks for npuprof's mark (npuprof_str2id_hash, which only npuprof's
 * libprofapi.so exports) and reports the path. The child loads the library
 * with no NPUPROF_OUTPUT_DIR, so npuprof's records nothing, and exits
 * without running anything else; the tool itself never loads it. A program
 * whose own RUNPATH finds another libprofapi.so than the loader finds here
 * is beyond this question: --host-api says what to do then.
 */
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostapi.h"

int hostapi_parse(const char *s, enum hostapi_mode *m)
{
	if (!strcmp(s, "auto"))
		*m = HOSTAPI_AUTO;
	else if (!strcmp(s, "native"))
		*m = HOSTAPI_NATIVE;
	else if (!strcmp(s, "attach"))
		*m = HOSTAPI_ATTACH;
	else
		return -1;
	return 0;
}

/* The libprofapi.so the loader finds: 'N' npuprof's, 'C' another, '-' none;
 * its path into `path`. */
static char probe(char *path, size_t len)
{
	char buf[PATH_MAX + 2] = "";
	int fd[2], st;
	ssize_t n;
	pid_t pid;

	if (pipe(fd))
		return '-';
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return '-';
	}
	if (pid == 0) {
		void *h;
		struct link_map *lm = NULL;

		close(fd[0]);
		unsetenv("NPUPROF_OUTPUT_DIR");
		h = dlopen("libprofapi.so", RTLD_LAZY | RTLD_LOCAL);
		if (h && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm) {
			n = snprintf(buf, sizeof(buf), "%c%s",
				     dlsym(h, "npuprof_str2id_hash") ? 'N' : 'C', lm->l_name);
			if (write(fd[1], buf, (size_t)n) != n)
				_exit(1);
		}
		_exit(0);
	}
	close(fd[1]);
	n = read(fd[0], buf, sizeof(buf) - 1);
	close(fd[0]);
	waitpid(pid, &st, 0);
	if (n < 2)
		return '-';
	buf[n] = '\0';
	n = (ssize_t)strnlen(buf + 1, len - 1);
	memcpy(path, buf + 1, (size_t)n);
	path[n] = '\0';
	return buf[0];
}

/* libnpuprof_attach.so beside this tool: <dir of the executable>/../lib. */
static int attach_lib(char *out, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	snprintf(out, len, "%s/../lib/libnpuprof_attach.so", self);
	return access(out, R_OK);
}

int hostapi_resolve(enum hostapi_mode want, char *preload, size_t preload_len, char *said,
		    size_t said_len)
{
	char path[PATH_MAX] = "", lib[PATH_MAX + 32];
	const char *old = getenv("LD_PRELOAD");
	char kind = probe(path, sizeof(path));
	enum hostapi_mode m = want;

	preload[0] = '\0';
	if (m == HOSTAPI_AUTO)
		m = kind == 'C' ? HOSTAPI_ATTACH : HOSTAPI_NATIVE;
	if (m == HOSTAPI_NATIVE) {
		if (kind == 'N')
			snprintf(said, said_len, "native (npuprof's %s)", path);
		else if (kind == 'C')
			snprintf(said, said_len,
				 "native as asked, though the libprofapi.so found is not npuprof's "
				 "(%s): host data only if the program loads npuprof's",
				 path);
		else
			snprintf(said, said_len,
				 "native (no libprofapi.so on the library path: the program's own "
				 "RUNPATH decides; use --host-api attach if that is CANN's)");
		return HOSTAPI_NATIVE;
	}
	if (attach_lib(lib, sizeof(lib))) {
		snprintf(said, said_len,
			 "cannot attach: %s is missing (build it with make, or install with make "
			 "install)",
			 lib);
		return -1;
	}
	snprintf(preload, preload_len, "LD_PRELOAD=%s%s%s", lib, old && *old ? ":" : "",
		 old ? old : "");
	snprintf(said, said_len, "attached to %s (%s preloaded)",
		 kind == '-' ? "the program's libprofapi.so" : path, lib);
	return HOSTAPI_ATTACH;
}
