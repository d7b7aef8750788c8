/*
 * bpf_ring.h — the reader of one of the BPF engine's rings (the ring
 * protocol is in bpf/npuprof_bpf.h), used by engine_bpf.c and by the host
 * tests, which read what the programs wrote through this same code.
 */
#ifndef NPUPROF_BPF_RING_H
#define NPUPROF_BPF_RING_H

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

#endif /* NPUPROF_BPF_RING_H */
