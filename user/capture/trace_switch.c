/*
 * trace_switch.c - the driver's per-device trace switches that every driver
 * engine needs turned on (/proc/trs_chan/dev<D>-ts<T>/trace_enable, the same
 * files on a real Ascend host and on npusim), and putting them back.
 */
#include "trace_switch.h"

#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int trace_switch_on(struct trace_switches *e)
{
	glob_t g;
	int on = 0;

	e->failed = 0;
	e->unknown = 0;
	if (glob("/proc/trs_chan/dev*-ts*/trace_enable", 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char cur[4] = "";
		int fd, known = -1;

		for (int k = 0; k < e->n; k++)
			if (!strcmp(e->path[k], g.gl_pathv[i]))
				known = k;
		fd = open(g.gl_pathv[i], O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			/* readable but not ours to switch: say so if it is off */
			fd = open(g.gl_pathv[i], O_RDONLY | O_CLOEXEC);
			if (fd >= 0 && read(fd, cur, 2) == 2 && cur[0] == '0')
				e->failed++;
			else if (fd < 0)
				e->unknown++; /* it may well be on: root can tell */
			if (fd >= 0)
				close(fd);
			continue;
		}
		if (read(fd, cur, 2) == 2) {
			/* the write must be exactly two bytes at offset 0 */
			if (cur[0] == '1' || pwrite(fd, "1\n", 2, 0) == 2) {
				on++;
				if (known < 0 && e->n < TRACE_SWITCH_MAX) {
					known = e->n++;
					snprintf(e->path[known], sizeof(e->path[known]), "%s",
						 g.gl_pathv[i]);
					e->old[known] = cur[0];
				}
			} else {
				e->failed++;
			}
		}
		close(fd);
	}
	globfree(&g);
	return on;
}

void trace_switch_restore(struct trace_switches *e)
{
	for (int i = 0; i < e->n; i++) {
		char v[2] = { e->old[i], '\n' };
		int fd = open(e->path[i], O_WRONLY | O_CLOEXEC);

		if (fd < 0)
			continue;
		if (pwrite(fd, v, 2, 0) != 2) {
			/* the driver went away; nothing left to restore */
		}
		close(fd);
	}
	e->n = 0;
}

void trace_switch_warn(const char *tool, int failed, int unknown, uint64_t captured)
{
	if (failed)
		fprintf(stderr,
			"%s: warning: %d device trace switch(es) are off and could not be turned on (writing /proc/trs_chan/*/trace_enable needs root); those devices report nothing\n",
			tool, failed);
	if (unknown && !captured)
		fprintf(stderr,
			"%s: warning: no device task was captured, and %d device trace switch(es) could not be read by this user: have root write 1 to /proc/trs_chan/*/trace_enable\n",
			tool, unknown);
}
