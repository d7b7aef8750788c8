/*
 * bpf_ring.h — the reader of the BPF engine's rings (the ring protocol is
 * in bpf/npuprof_bpf.h): one ring read and given back at once
 * (npuprof_bpf_ring_read), and the merge of all of them by timestamp that
 * engine_bpf.c's read() delivers from (struct npuprof_bpf_merge). The host
 * tests read what the programs wrote through this same code.
 */
#ifndef NPUPROF_BPF_RING_H
#define NPUPROF_BPF_RING_H

#include <stddef.h>
#include <stdint.h>

#include "npuprof_bpf.h"

/* One ring as its reader sees it: its control block in the programs'
 * .bss and its slots in the mapped `slots` map. */
struct npuprof_bpf_ring_rd {
	struct npuprof_bpf_ring *ctl;
	const struct npuprof_record *slots; /* [n] */
	uint32_t n; /* a power of two */
};

/* Point @q at CPU @cpu's ring @kind, given the mapped `slots` map, the
 * .bss ring_ctl[] and cfg_cpu_slots. */
void npuprof_bpf_ring_rd_init(struct npuprof_bpf_ring_rd *q, struct npuprof_bpf_ring *ring_ctl,
			      const struct npuprof_record *slots, uint32_t cpu_slots, uint32_t cpu,
			      uint32_t kind);

/*
 * Hand each published record of @q, oldest first, to @fn (a pointer into
 * the ring, valid during the call), then give their slots back to the
 * writer with one tail store. A record is published once the writer's head
 * store covers it, so a record still being written is never seen. @fn
 * returning < 0 stops before that record (it stays for the next read).
 * Returns the number handed over, or -EPROTO for a ring the programs did
 * not write: a head behind the tail or more than the ring ahead of it, or
 * a record that is not one (size or type), which stays unread.
 */
long npuprof_bpf_ring_read(const struct npuprof_bpf_ring_rd *q,
			   int (*fn)(void *ctx, const struct npuprof_record *r), void *ctx);

/* ---- the merge of a capture's rings ------------------------------------------
 *
 * Every ring is in timestamp order but for a record whose writer was
 * interrupted by another program of the same ring's CPU (which writes its
 * own ring): the merge keeps each ring's undelivered records as one sequence
 * sorted by (timestamp, arrival), stable, and delivers the oldest head of
 * all sequences first (arrival: the order the polls took the records in,
 * ring by ring, so a DROP record stays before its record).
 *
 * A sequence is a stage (copies, oldest) followed by the records still in
 * the ring's slots: a record taken in order stays in its slot, and the
 * ring's tail is stored only once it was delivered, so nothing is copied.
 * A record older than the sequence's last moves the slots' part to the
 * stage, where it is sorted in; so do the slots' records once they fill a
 * quarter of the ring (the writer keeps the rest of it) or come from more
 * polls than the merge keeps apart (NPUPROF_BPF_MERGE_POLLS). The rings'
 * first records play a tournament (a loser tree) among the rings that
 * have records: the next record is its winner's, and that ring's next
 * record replays only the matches on its path, log2 of those rings.
 */

/* a staged record: its copy and its arrival number */
struct npuprof_bpf_staged {
	struct npuprof_record r;
	uint64_t seq;
};

/* the polls whose records a ring keeps in its slots, apart (each poll's
 * records have consecutive arrival numbers) */
#define NPUPROF_BPF_MERGE_POLLS 128

struct npuprof_bpf_mring {
	struct npuprof_bpf_ring_rd rd;
	uint32_t cpu, kind;
	/* the records in the slots: [pos, scanned) are taken in, not
	 * delivered; the tail stored is `stored` (pos once a read is done) */
	uint64_t pos, scanned, stored;
	uint64_t last_ts; /* the sequence's last record's stamp */
	uint64_t polled; /* records taken in, for the engine's poll period */
	struct npuprof_bpf_staged *stage; /* [shead, sn) */
	size_t shead, sn, scap;
	/* arrival of slot record p: p + off of the first poll whose end > p */
	uint32_t poll_first, poll_n;
	struct {
		uint64_t end, off;
	} poll[NPUPROF_BPF_MERGE_POLLS];
};

struct npuprof_bpf_merge {
	struct npuprof_bpf_mring *rings; /* [nring]: ring cpu * NPUPROF_BPF_NRING + kind */
	int nring;
	/* a tournament of the first records of the rings that had records at
	 * the last poll: leaf i is ring ring_of[i] (UINT32_MAX: a leaf that
	 * pads nleaf to a power of two), ts[i] its first stamp (UINT64_MAX:
	 * none), loser[1..nleaf-1] the loser of each match, loser[0] the
	 * winner */
	uint64_t *ts;
	uint32_t *ring_of, *loser, *win; /* win: scratch [2 * nleaf] */
	uint32_t nleaf;
	uint64_t seq; /* the next arrival number */
	size_t pending; /* records taken in, not delivered */
	/* records that reached the merge after their place in the stream had
	 * passed: stamped before the poll's late_before, or older than a
	 * record already delivered (read then gives them out of order) */
	uint64_t late;
	uint64_t delivered_ts; /* the newest stamp delivered */
	int broken; /* a ring the programs did not write */
	int oom; /* a record could not be staged: it waits in its ring */
};

/* Set @m up to merge the rings of @ncpu CPUs (arguments as for
 * npuprof_bpf_ring_rd_init), from their current tails. 0 or -ENOMEM. */
int npuprof_bpf_merge_init(struct npuprof_bpf_merge *m, struct npuprof_bpf_ring *ring_ctl,
			   const struct npuprof_record *slots, uint32_t cpu_slots, int ncpu);
void npuprof_bpf_merge_free(struct npuprof_bpf_merge *m);

/* Take in what every ring published since the last poll, counting a
 * record stamped before @late_before as late. Sets m->broken on a ring the
 * programs did not write (its records before the bad one are taken) and
 * m->oom when a record could not be staged (it and the rest of its ring
 * wait for the next poll). */
void npuprof_bpf_merge_poll(struct npuprof_bpf_merge *m, uint64_t late_before);

/* Add a record of the reader's own (a DROP record) to ring @ring's
 * sequence, sorted in by its stamp (after the records taken in with the
 * same stamp). 0 or -ENOMEM. */
int npuprof_bpf_merge_add(struct npuprof_bpf_merge *m, int ring, const struct npuprof_record *r);

/* The oldest record's stamp in *ts: 1, or 0 when there is none. */
int npuprof_bpf_merge_oldest(const struct npuprof_bpf_merge *m, uint64_t *ts);

/* Hand the records stamped at most @horizon to @fn, oldest first (a
 * pointer valid during the call), until @fn returns non-zero (that record
 * counts as delivered); then give the delivered records' slots back to the
 * writers. Returns the number delivered. */
long npuprof_bpf_merge_read(struct npuprof_bpf_merge *m, uint64_t horizon,
			    int (*fn)(void *ctx, const struct npuprof_record *r), void *ctx);

#endif /* NPUPROF_BPF_RING_H */
