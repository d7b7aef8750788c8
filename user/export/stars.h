/*
 * stars.h — a device's STARS SoC log (profiling channel 50, uapi/npusim.h
 * "Profiling channels") read back as device task times.
 *
 * The log is what `npuprof record` drained from the channel into
 * device_<N>/data/stars_soc.data (session.h NPUPROF_STARS_SOC_FILE):
 * 64-byte ACSQ_TASK records (struct npusim_stars_acsq), one when a task
 * starts and one when it ends, in the order the device wrote them (per
 * stream in execution order, streams interleaved). The reader pairs them:
 * a START opens (stream, task id), the next END of that key closes it.
 * Task ids are 16 bits and come back 65536 tasks of a stream later, long
 * after the earlier task ended, so a key open at most once at a time is
 * enough. A task comes out at its END, in the order the device wrote the
 * ENDs: per stream the order its tasks finished in, which is their submit
 * order, as the correlation needs (a task whose end is before the one
 * handed out before it, as a container's subtasks in a replay of a
 * recorded timeline, is counted late; it comes out all the same).
 *
 * Nothing is dropped silently: an END with no START open for its key, a
 * START never ended (open at the end, or opened again before its END), a
 * record of an unknown function type, an END counter before its START's
 * (that task is not handed out: its times are wrong) and a partial record
 * at the end of the file (damage: its offset is kept) are counted in
 * struct stars_stats. The file is read in chunks: memory is the open tasks,
 * whatever the file's size.
 */
#ifndef NPUPROF_EXPORT_STARS_H
#define NPUPROF_EXPORT_STARS_H

#include <stddef.h>
#include <stdint.h>

/* A task the log paired. */
struct stars_task {
	uint32_t stream_id, task_id; /* as the record gives them */
	uint32_t sqe_type; /* head bits 10-15 (STARS SQE type) */
	uint32_t sq_id; /* acc bits 6-12 */
	uint32_t acc_id; /* acc bits 0-5 */
	uint64_t start_cnt, end_cnt; /* device counter ticks */
};

struct stars_stats {
	uint64_t records; /* whole records read */
	uint64_t tasks; /* paired and handed out */
	uint64_t unstarted; /* an END without an open START */
	uint64_t unended; /* a START without its END */
	uint64_t unknown; /* a function type neither START nor END */
	uint64_t backwards; /* an END counter before its START's: not handed out */
	uint64_t late; /* handed out with an end before the one before it */
	uint64_t tail_bytes; /* a partial record at the end (0: none) */
	uint64_t tail_offset; /* where it starts */
};

struct stars_reader;

/* Read the log at path. 0, or -errno with a message naming path. */
int stars_open(struct stars_reader **r, const char *path, char *err, size_t errlen);
/* Read len bytes of records at buf (not copied: buf must outlive r). 0 or
 * -ENOMEM. */
int stars_open_buffer(struct stars_reader **r, const void *buf, size_t len);
/* The next task: 1 with *t filled, 0 at the end of the log (the stats are
 * then final), or -errno with a message naming the file and offset when it
 * cannot be read further. */
int stars_next(struct stars_reader *r, struct stars_task *t, char *err, size_t errlen);
/* The counts so far. */
const struct stars_stats *stars_stats(const struct stars_reader *r);
void stars_close(struct stars_reader *r);

#endif
