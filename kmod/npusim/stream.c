// SPDX-License-Identifier: GPL-2.0
/*
 * A stream's queues as objects: the stream's lifetime (a reference count;
 * the stream table, ioctls and forwarders each hold one), the soft queue a
 * user-mode send mode maps (its memory, reference counted by the stream and
 * each mapping), and the channel layer's fill step that puts SQEs into the
 * SQ. Used by main.c (the ioctls, NPUSIM_IOC_SQ_SEND) and by uio.c (the
 * forwarders); below both, so neither calls the other back.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "npusim.h"

const char *const npusim_send_mode_names[3] = { "KIO", "UIO_T", "UIO_D" };

/* ---- streams ------------------------------------------------------------ */

static void npusim_stream_free(struct kref *ref)
{
	struct npusim_stream *s = container_of(ref, struct npusim_stream, ref);

	if (s->uio)
		npusim_uio_put(s->uio);
	if (s->lcq)
		npusim_logic_cq_put(s->lcq);
	kvfree(s->sq);
	kvfree(s->model);
	kvfree(s->cq);
	kfree(s);
}

void npusim_stream_put(struct npusim_stream *s)
{
	kref_put(&s->ref, npusim_stream_free);
}

/* Stream @id of file @f with a reference, or NULL (none, another file's,
 * or destroyed). */
struct npusim_stream *npusim_stream_get(struct npusim_file *f, u32 id)
{
	struct npusim_stream *s = NULL;
	unsigned long flags;

	if (id >= npusim_max_streams)
		return NULL;
	spin_lock_irqsave(&npusim_lock, flags);
	s = f->dev->streams[id];
	if (s && (s->owner != f || s->dead))
		s = NULL;
	if (s)
		kref_get(&s->ref);
	spin_unlock_irqrestore(&npusim_lock, flags);
	return s;
}

/*
 * The channel layer's fill step: @n validated SQEs into @s's SQ, for which
 * the caller made sure there is room; each is copied into its slot, its
 * model (@models, or the defaults when NULL) into the slot's model, and the
 * tail advanced, then (with @trace) "Task Send" fires, as in the real
 * driver; then the device is kicked. npusim_lock held.
 */
void npusim_sq_fill_locked(struct npusim_stream *s,
			   const struct npusim_sqe *sqes,
			   const struct npusim_task_model *models, u32 n,
			   bool trace)
{
	u32 i;

	for (i = 0; i < n; i++) {
		s->sq[s->tail & (s->depth - 1)] = sqes[i];
		if (models)
			s->model[s->tail & (s->depth - 1)] = models[i];
		else
			memset(&s->model[s->tail & (s->depth - 1)], 0,
			       sizeof(*s->model));
		npusim_event_queued_locked(s, s->tail);
		s->tail++;
		if (trace)
			npusim_trace_sqe(s, &sqes[i]);
	}
	if (!s->active) {
		list_add_tail(&s->active_node, &s->dev->active);
		s->active = true;
	}
	npusim_schedule_locked();
}

/* ---- soft queues (uio.c forwards them) ---------------------------------- */

static void npusim_uio_free(struct kref *ref)
{
	struct npusim_uio *q = container_of(ref, struct npusim_uio, ref);

	vfree(q->mem);
	kfree(q);
}

void npusim_uio_put(struct npusim_uio *q)
{
	kref_put(&q->ref, npusim_uio_free);
}

/* Give stream @s (not yet visible) its soft queue. */
int npusim_uio_create(struct npusim_stream *s)
{
	struct npusim_uio *q = kzalloc(sizeof(*q), GFP_KERNEL);

	if (!q)
		return -ENOMEM;
	q->depth = s->depth;
	q->size = PAGE_SIZE + PAGE_ALIGN((size_t)q->depth * NPUSIM_SQE_SIZE) +
		  PAGE_ALIGN((size_t)q->depth *
			     sizeof(struct npusim_task_model));
	q->mem = vmalloc_user(q->size);
	if (!q->mem) {
		kfree(q);
		return -ENOMEM;
	}
	BUILD_BUG_ON(sizeof(struct npusim_uio_ctrl) > PAGE_SIZE);
	q->ctrl = q->mem;
	q->que = q->mem + PAGE_SIZE;
	q->model = q->mem + npusim_uio_model_offset(q->depth);
	q->ctrl->depth = q->depth;
	q->ctrl->state = NPUSIM_UIO_LIVE;
	kref_init(&q->ref);
	atomic_set(&q->maps, 0);
	mutex_init(&q->send_lock);
	s->uio = q;
	return 0;
}

/* Stream @s is destroyed: wait out a forwarder, then nothing is forwarded
 * any more (s->dead is set) and the mapping shows it. */
void npusim_uio_cancel(struct npusim_stream *s)
{
	struct npusim_uio *q = s->uio;

	mutex_lock(&q->send_lock);
	WRITE_ONCE(q->ctrl->state, NPUSIM_UIO_DEAD);
	mutex_unlock(&q->send_lock);
	if (s->dev->uio_pending)
		clear_bit(s->id, s->dev->uio_pending);
}

/* SQEs written to @s's soft queue that are still to be forwarded (none
 * while the one at head is malformed or the tail is out of range). */
bool npusim_uio_pending(struct npusim_stream *s)
{
	struct npusim_uio *q = s->uio;
	u32 tail;

	if (!q)
		return false;
	tail = READ_ONCE(q->ctrl->tail);
	return tail < q->depth && tail != READ_ONCE(q->head) &&
	       !READ_ONCE(q->stuck);
}

void npusim_uio_stats(struct npusim_stream *s, u64 *ok, u64 *fail)
{
	*ok = s->uio ? READ_ONCE(s->uio->ctrl->send_ok) : 0;
	*fail = s->uio ? READ_ONCE(s->uio->ctrl->send_fail) : 0;
}
