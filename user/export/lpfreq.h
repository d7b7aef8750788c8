/*
 * lpfreq.h — a device's AI Core frequency changes read back (profiling
 * channel 132, device_<N>/data/lpmFreqConv.data, session.h
 * NPUPROF_LPM_FREQ_FILE) and AICORE_FREQ's rows made from them by msprof's
 * rules (docs/ascend-reference.md §3.14; Ascend/msprof freq_parser.cpp,
 * aicore_freq_processor.cpp).
 *
 * The file is the channel's 888-byte records (struct npusim_lp_record,
 * uapi/npusim.h) as read, concatenated: a count, then 55 entries of which
 * the first count are valid, each {device counter, MHz}. Damage costs only
 * itself: a record whose count is over 55 is refused whole, an entry of 0
 * MHz is refused, a partial record at the end is counted (msprof's own
 * parser reads count entries, however many).
 *
 * The rows: the frequency at the session's start (the rated one msprof
 * takes from info.json, replaced by the last change before the start),
 * then one row per change at its host time, in time order, then, if the
 * session has an end after its start, the frequency then at the end. A
 * change after the end is no row (counted).
 */
#ifndef NPUPROF_EXPORT_LPFREQ_H
#define NPUPROF_EXPORT_LPFREQ_H

#include <stddef.h>
#include <stdint.h>

struct lpfreq_entry {
	uint64_t sys_cnt; /* device counter */
	uint32_t freq; /* MHz */
};

struct lpfreq_stats {
	uint64_t records; /* whole records read */
	uint64_t entries; /* valid entries */
	uint64_t bad_records; /* count over 55: refused */
	uint64_t bad_entries; /* 0 MHz: refused */
	uint64_t tail_bytes; /* a partial record at the end (0: none) */
};

/* Decode len bytes of records at buf: their valid entries are appended to
 * *e (grown with realloc; *n of them), the counts added to st. 0, or
 * -ENOMEM. */
int lpfreq_decode(const void *buf, size_t len, struct lpfreq_entry **e, size_t *n,
		  struct lpfreq_stats *st);
/* The same for the file at path. 0, or -errno with a message naming it. */
int lpfreq_read(const char *path, struct lpfreq_entry **e, size_t *n, struct lpfreq_stats *st,
		char *err, size_t errlen);

/* A change at its host time (local Unix ns), and a row. */
struct lpfreq_row {
	int64_t ns;
	uint32_t freq;
};

/* The rows of a device whose frequency at the start is start_freq, for a
 * session from start_ns to end_ns (end_ns <= start_ns: no end row), from
 * its n changes c (sorted here by time, stably). out must have room for
 * n + 2 rows; returns how many were written. *after_end gets the changes
 * after end_ns. */
size_t lpfreq_rows(uint32_t start_freq, int64_t start_ns, int64_t end_ns, struct lpfreq_row *c,
		   size_t n, struct lpfreq_row *out, uint64_t *after_end);

#endif
