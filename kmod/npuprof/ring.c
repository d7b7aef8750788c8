// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU record rings for npuprof.ko.
 *
 * Records are fixed-size (64 bytes) and the ring holds a power-of-two number
 * of them, so a record never straddles the end and the reader needs no
 * double mapping. The producer is the probe running on this CPU with local
 * interrupts disabled (a completion interrupt may otherwise nest inside a
 * submit probe); it never locks or allocates, and encodes each record in
 * its slot (np_ring_reserve/np_ring_commit, npuprof_k.h: no copy through the
 * stack). A full ring counts the loss,
 * and the next record that fits is preceded by a DROP record carrying the
 * count, so a reader sees where data is missing. In overwrite mode (flight
 * recorder) the oldest records are overwritten instead.
 */
#include <linux/irq_work.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "npuprof_k.h"

static void np_ring_wake(struct irq_work *w)
{
	struct np_ring *ring = container_of(w, struct np_ring, wake);

	wake_up_interruptible(&ring->s->wq);
}

int np_rings_alloc(struct np_session *s)
{
	u32 nr_slots = s->cfg.ring_bytes / NPUPROF_RECORD_SIZE;
	int cpu;

	s->rings = kcalloc(nr_cpu_ids, sizeof(*s->rings), GFP_KERNEL);
	if (!s->rings)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct np_ring *ring = kzalloc(sizeof(*ring), GFP_KERNEL);

		if (!ring)
			goto nomem;
		s->rings[cpu] = ring;
		ring->s = s;
		ring->mask = nr_slots - 1;
		init_irq_work(&ring->wake, np_ring_wake);
		ring->ctrl = vmalloc_user(PAGE_SIZE);
		ring->data = vmalloc_user(s->cfg.ring_bytes);
		if (!ring->ctrl || !ring->data)
			goto nomem;
		ring->ctrl->nr_slots = nr_slots;
		ring->ctrl->record_size = NPUPROF_RECORD_SIZE;
		ring->ctrl->cpu = cpu;
		ring->ctrl->flags = s->cfg.flags;
	}
	return 0;
nomem:
	np_rings_free(s);
	return -ENOMEM;
}

void np_rings_free(struct np_session *s)
{
	int cpu;

	if (!s->rings)
		return;
	for_each_possible_cpu(cpu) {
		struct np_ring *ring = s->rings[cpu];

		if (!ring)
			continue;
		irq_work_sync(&ring->wake);
		vfree(ring->ctrl);
		vfree(ring->data);
		kfree(ring);
	}
	kfree(s->rings);
	s->rings = NULL;
}

/* The DROP record at @head: how many records were lost before the one
 * being written (at @head + 1, with the same time). */
void np_ring_put_drop(struct np_ring *ring, u64 head, u64 ts, u32 cpu)
{
	struct npuprof_record *d =
		(struct npuprof_record *)((char *)ring->data +
					  (head & ring->mask) *
						  NPUPROF_RECORD_SIZE);

	memset(d, 0, sizeof(*d));
	d->hdr.type = NPUPROF_REC_DROP;
	d->hdr.size = NPUPROF_RECORD_SIZE;
	npuprof_encode_hdr(d, ts, cpu, current->tgid, current->pid);
	d->drop.lost = ring->pending_drop;
	ring->pending_drop = 0;
}

bool np_rings_readable(struct np_session *s)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct npuprof_ring_ctrl *c = s->rings[cpu]->ctrl;

		if (smp_load_acquire(&c->head) - READ_ONCE(c->tail) >=
		    s->cfg.watermark)
			return true;
	}
	return false;
}

void np_rings_arm(struct np_session *s)
{
	int cpu;

	for_each_possible_cpu(cpu)
		WRITE_ONCE(s->rings[cpu]->wake_armed, 1);
}
