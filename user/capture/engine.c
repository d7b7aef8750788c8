/*
 * engine.c — choosing and opening a capture engine, and the driver's trace
 * switches that every engine needs turned on.
 */
#include "errmsg.h"
#include "npuprof/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct npuprof_engine_ops *const engines[] = {
	&npuprof_engine_kmod,
	&npuprof_engine_bpf,
};

static const struct npuprof_engine_ops *engine_find(const char *name)
{
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (!strcmp(engines[i]->name, name))
			return engines[i];
	return NULL;
}

int npuprof_trace_switch_on(struct npuprof_engine *e)
{
	glob_t g;
	int on = 0;

	e->switch_failed = 0;
	if (glob("/proc/trs_chan/dev*-ts*/trace_enable", 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char cur[4] = "";
		int fd, known = -1;

		for (int k = 0; k < e->nswitch; k++)
			if (!strcmp(e->switch_path[k], g.gl_pathv[i]))
				known = k;
		fd = open(g.gl_pathv[i], O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			/* readable but not ours to switch: say so if it is off */
			fd = open(g.gl_pathv[i], O_RDONLY | O_CLOEXEC);
			if (fd >= 0 && read(fd, cur, 2) == 2 && cur[0] == '0')
				e->switch_failed++;
			else if (fd < 0)
				e->switch_failed++;
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (read(fd, cur, 2) == 2) {
			/* the write must be exactly two bytes at offset 0 */
			if (cur[0] == '1' || pwrite(fd, "1\n", 2, 0) == 2) {
				on++;
				if (known < 0 && e->nswitch < 64) {
					known = e->nswitch++;
					snprintf(e->switch_path[known],
						 sizeof(e->switch_path[known]),
						 "%s", g.gl_pathv[i]);
					e->switch_old[known] = cur[0];
				}
			} else {
				e->switch_failed++;
			}
		}
		close(fd);
	}
	globfree(&g);
	return on;
}

void npuprof_trace_switch_restore(struct npuprof_engine *e)
{
	for (int i = 0; i < e->nswitch; i++) {
		char v[2] = { e->switch_old[i], '\n' };
		int fd = open(e->switch_path[i], O_WRONLY | O_CLOEXEC);

		if (fd < 0)
			continue;
		if (pwrite(fd, v, 2, 0) != 2) {
			/* the driver went away; nothing left to restore */
		}
		close(fd);
	}
	e->nswitch = 0;
}

int npuprof_engine_open(struct npuprof_engine **out, const char *name,
			const struct npuprof_capture_opts *o, char *err,
			size_t errlen)
{
	const struct npuprof_engine_ops *ops;
	struct npuprof_engine *e;
	int r;

	*out = NULL;
	if (!name || !strcmp(name, "auto"))
		name = access("/dev/npuprof", F_OK) == 0 ? "kmod" : "bpf";
	ops = engine_find(name);
	if (!ops) {
		npuprof_seterr(err, errlen, "unknown capture engine '%s' (available:%s)",
		       name, sizeof(engines) > sizeof(engines[0]) ?
				     " kmod, bpf, auto" : " kmod, auto");
		return -EINVAL;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		npuprof_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	e->ops = ops;
	r = ops->open(e, o);
	if (r < 0) {
		npuprof_seterr(err, errlen, "%s engine: %s", ops->name, e->err);
		free(e);
		return r;
	}
	npuprof_trace_switch_on(e);
	*out = e;
	return 0;
}

void npuprof_engine_close(struct npuprof_engine *e)
{
	if (!e)
		return;
	npuprof_trace_switch_restore(e);
	e->ops->close(e);
	free(e);
}
