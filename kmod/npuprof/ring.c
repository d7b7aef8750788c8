// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU record rings for npuprof.ko.
 *
 * Records are fixed-size (64 bytes) and the ring holds a power-of-two number
 * of them, so a record never straddles the end and the reader needs no
 * double mapping. The producer is the probe running on this CPU with local
 * interrupts disabled (a completion interrupt may otherwise nest inside a
 * submit probe); it never locks or allocates. A full ring counts the loss,
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

static void np_slot_put(struct np_ring *ring, u64 pos,
			const struct npuprof_record *r)
{
	memcpy((char *)ring->data + (pos & ring->mask) * NPUPROF_RECORD_SIZE, r,
	       NPUPROF_RECORD_SIZE);
}

/* Append one record to this CPU's ring; the header's time and CPU are taken
 * here, with interrupts off, so each ring is in timestamp order. */
void np_ring_write(struct np_session *s, struct npuprof_record *r)
{
	struct npuprof_ring_ctrl *ctrl;
	struct np_ring *ring;
	unsigned long flags;
	u64 head, tail, used, room;
	int cpu;

	local_irq_save(flags);
	cpu = smp_processor_id();
	ring = s->rings[cpu];
	ctrl = ring->ctrl;
	head = ctrl->head;
	tail = READ_ONCE(ctrl->tail);
	used = head - tail;
	room = (u64)ring->mask + 1 - min_t(u64, used, (u64)ring->mask + 1);
	npuprof_encode_hdr(r, ktime_get_ns(), cpu, current->tgid, current->pid);

	if (s->cfg.flags & NPUPROF_CFG_OVERWRITE) {
		if (used > ring->mask)
			ctrl->overwritten++;
		/* the reader validates a copy by the head it reads after it:
		 * the head published last must be visible before the slots
		 * this write overwrites */
		smp_wmb();
	} else if (room < 1 + (ring->pending_drop ? 1 : 0)) {
		ctrl->dropped++;
		ring->pending_drop++;
		goto out;
	}
	if (ring->pending_drop) {
		struct npuprof_record d;

		memset(&d, 0, sizeof(d));
		d.hdr = r->hdr;
		d.hdr.type = NPUPROF_REC_DROP;
		d.hdr.flags = 0;
		d.drop.lost = ring->pending_drop;
		np_slot_put(ring, head++, &d);
		ring->pending_drop = 0;
	}
	np_slot_put(ring, head, r);
	ctrl->written++;
	/* publish the data before the new head */
	smp_store_release(&ctrl->head, head + 1);
	if (head + 1 - tail >= s->cfg.watermark &&
	    READ_ONCE(ring->wake_armed)) {
		WRITE_ONCE(ring->wake_armed, 0);
		irq_work_queue(&ring->wake);
	}
out:
	local_irq_restore(flags);
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
