/*
 * tracker.c — streams in flight and the hang detector (tracker.h).
 */
#include "tracker.h"

#include "uapi/npusim.h" /* the STARS SQE type values, for their names */

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "hostdata.h"

#define TRK_MAX_QUEUE 65536 /* the deepest SQ; older tasks are forgotten */

const char *tracker_type_name(uint32_t t)
{
	static const char *const names[] = {
		[NPUSIM_SQE_AI_CORE] = "AI_CORE",
		[NPUSIM_SQE_AI_CPU] = "AI_CPU",
		[NPUSIM_SQE_AIV] = "AI_VECTOR_CORE",
		[NPUSIM_SQE_PLACE_HOLDER] = "PLACE_HOLDER",
		[NPUSIM_SQE_EVENT_RECORD] = "EVENT_RECORD",
		[NPUSIM_SQE_EVENT_WAIT] = "EVENT_WAIT",
		[NPUSIM_SQE_NOTIFY_RECORD] = "NOTIFY_RECORD",
		[NPUSIM_SQE_NOTIFY_WAIT] = "NOTIFY_WAIT",
		[NPUSIM_SQE_WRITE_VALUE] = "WRITE_VALUE",
		[NPUSIM_SQE_SDMA] = "SDMA",
		[NPUSIM_SQE_PCIE_DMA] = "PCIE_DMA",
		[NPUSIM_SQE_COND] = "COND",
	};

	if (t < sizeof(names) / sizeof(names[0]) && names[t])
		return names[t];
	return "UNKNOWN";
}

int tracker_init(struct tracker *t)
{
	memset(t, 0, sizeof(*t));
	t->slot = calloc((size_t)NPUPROF_MAX_DEVICES * NPUPROF_MAX_STREAMS, sizeof(*t->slot));
	return t->slot ? 0 : -ENOMEM;
}

void tracker_free(struct tracker *t)
{
	while (t->all) {
		struct trk_stream *s = t->all;

		t->all = s->next;
		free(s->q);
		free(s);
	}
	free(t->slot);
	t->slot = NULL;
}

/* The slot of (dev, id), id already without the CQE's match flag; NULL for
 * a device past the table. Stream ids run to 0x7fff and a slot holds every
 * id equal modulo NPUPROF_MAX_STREAMS, chained: stream 4 and stream 4100
 * share a slot, never a queue. */
static struct trk_stream **slot_of(const struct tracker *t, uint32_t dev, uint32_t id)
{
	if (dev >= NPUPROF_MAX_DEVICES)
		return NULL;
	return &t->slot[dev * NPUPROF_MAX_STREAMS + id % NPUPROF_MAX_STREAMS];
}

/* The stream (dev, id) of its slot's chain, or NULL. */
static struct trk_stream *find(struct trk_stream *const *sp, uint32_t dev, uint32_t id)
{
	struct trk_stream *s = sp ? *sp : NULL;

	while (s && (s->dev != dev || s->id != id))
		s = s->chain;
	return s;
}

const struct trk_stream *tracker_stream(const struct tracker *t, uint32_t dev, uint32_t id)
{
	id = npuprof_stream_id(id);
	return find(slot_of(t, dev, id), dev, id);
}

/* (first + i) modulo the queue's capacity for i <= cap, without a division
 * (the reader's path runs this for every record) */
static inline uint32_t trk_idx(const struct trk_stream *s, uint32_t i)
{
	uint32_t x = s->first + i;

	return x >= s->cap ? x - s->cap : x;
}

static struct trk_stream *stream_get(struct tracker *t, uint32_t dev, uint32_t id)
{
	struct trk_stream **sp, *s;

	id = npuprof_stream_id(id); /* a CQE's bit 15 is the match flag */
	sp = slot_of(t, dev, id);
	if (!sp)
		return NULL;
	s = find(sp, dev, id);
	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->dev = dev;
	s->id = id;
	s->next = t->all;
	t->all = s;
	s->chain = *sp;
	*sp = s;
	return s;
}

static void push(struct trk_stream *s, const struct npuprof_record *r)
{
	const struct trk_task *prev;
	struct trk_task *k;

	if (s->len == s->cap) {
		uint32_t ncap = s->cap ? s->cap * 2 : 64;
		struct trk_task *nq;

		if (s->cap >= TRK_MAX_QUEUE) {
			s->first = trk_idx(s, 1);
			s->len--;
			s->overflow++;
			if (s->run > s->len)
				s->run = s->len;
			goto put;
		}
		nq = malloc(ncap * sizeof(*nq));
		if (!nq)
			return;
		for (uint32_t i = 0; i < s->len; i++)
			nq[i] = s->q[trk_idx(s, i)];
		free(s->q);
		s->q = nq;
		s->cap = ncap;
		s->first = 0;
	}
put:
	if (!s->len) {
		s->head_since = r->hdr.ts;
		s->head_seen = 0;
		s->occ_since = r->hdr.ts;
	}
	prev = s->len ? &s->q[trk_idx(s, s->len - 1)] : NULL;
	k = &s->q[trk_idx(s, s->len)];
	k->ts = r->hdr.ts;
	k->task = r->submit.task_id;
	k->type = r->submit.sqe_type;
	k->pid = r->hdr.pid;
	k->tid = r->hdr.tid;
	k->sq = r->submit.sq_id;
	/* a tail of 0 wrapped: the SQE is at the end of the ring, one past
	 * the previous SQE of the SQ (unknown without one) */
	k->pos = r->submit.sq_tail			    ? r->submit.sq_tail - 1 :
		 s->submits > 1 && s->sq == r->submit.sq_id ? s->tail :
							      UINT32_MAX;
	s->run = prev && prev->sq == k->sq && prev->pos != UINT32_MAX && k->pos == prev->pos + 1 ?
			 s->run + 1 :
			 1;
	s->sq = r->submit.sq_id;
	s->tail = r->submit.sq_tail;
	s->len++;
}

uint64_t tracker_occupied_ns(const struct trk_stream *s, uint64_t now)
{
	return s->occupied_ns + (s->len && now > s->occ_since ? now - s->occ_since : 0);
}

/* Retire the n oldest tasks at ts. */
static void retire_n(struct trk_stream *s, uint32_t n, uint64_t ts)
{
	if (!n)
		return;
	s->first = trk_idx(s, n);
	s->len -= n;
	if (s->run > s->len)
		s->run = s->len;
	s->completes += n;
	s->head_since = ts;
	s->head_seen = 0;
	s->last_complete = ts;
	if (!s->len && ts > s->occ_since)
		s->occupied_ns += ts - s->occ_since;
}

/* Retire task_id and everything before it; nothing if it is not queued. */
static void retire(struct trk_stream *s, uint32_t task_id, uint64_t ts)
{
	uint32_t i;

	for (i = 0; i < s->len; i++)
		if ((s->q[trk_idx(s, i)].task & 0xffff) == (task_id & 0xffff))
			break;
	if (i < s->len)
		retire_n(s, i + 1, ts);
}

/*
 * The device has consumed SQ sq up to position head (the next SQE it will
 * take): everything before the newest queued task at head is done, and
 * everything if head is the latest submit's tail (a submit needs room,
 * so the ring is never full then, and a CQE is written after its task left
 * it). The newest, because after lost records the queue may hold an older
 * lap of the ring whose progress was never seen.
 */
static void apply_head(struct trk_stream *s, uint32_t sq, uint32_t head, uint64_t ts)
{
	uint32_t i;

	if (!s->len || sq != s->sq)
		return;
	if (head == s->tail) {
		retire_n(s, s->len, ts);
		return;
	}
	/* among the newest run, the task at head (if there) is the newest
	 * match, at its distance from the newest task; older ones are
	 * scanned only if it is not there */
	if (s->run) {
		const struct trk_task *nk = &s->q[trk_idx(s, s->len - 1)];

		if (nk->sq == sq && head <= nk->pos && nk->pos - head < s->run) {
			retire_n(s, s->len - 1 - (nk->pos - head), ts);
			return;
		}
	}
	for (i = s->len - s->run; i-- > 0;) {
		const struct trk_task *k = &s->q[trk_idx(s, i)];

		if (k->sq == sq && k->pos == head) {
			retire_n(s, i, ts);
			return;
		}
	}
}

/* A record showed the SQ head at position head: if that is the queue's
 * head task, the device was at it at ts (it may since have gone on). */
static void note_head(struct trk_stream *s, uint32_t sq, uint32_t head, uint64_t ts)
{
	const struct trk_task *k;

	if (!s->len)
		return;
	k = &s->q[s->first];
	if (k->sq == sq && k->pos == head)
		s->head_seen = ts;
}

static void note_progress(struct tracker *t, const struct trk_stream *s)
{
	if (s->last_complete > t->last_complete_any)
		t->last_complete_any = s->last_complete;
}

void tracker_feed(struct tracker *t, const struct npuprof_record *r)
{
	struct trk_stream *s;

	t->records++;
	switch (r->hdr.type) {
	case NPUPROF_REC_SUBMIT:
		s = stream_get(t, r->submit.devid, r->submit.stream_id);
		if (s) {
			s->submits++;
			apply_head(s, r->submit.sq_id, r->submit.sq_head, r->hdr.ts);
			push(s, r);
			note_head(s, r->submit.sq_id, r->submit.sq_head, r->hdr.ts);
			note_progress(t, s);
		}
		break;
	case NPUPROF_REC_COMPLETE:
		s = stream_get(t, r->complete.devid, r->complete.stream_id);
		if (!s)
			break;
		if (!(r->hdr.flags & NPUPROF_F_CQE_RECV))
			s->cqes++;
		if (!s->submits) {
			s->unsubmitted++;
			break;
		}
		retire(s, r->complete.task_id, r->hdr.ts);
		/* a CQE's head is of when the device wrote it ("Cqe Dispatch",
		 * in order with the submits); a receive may come much later,
		 * after submits that moved the tail past that head again */
		if (!(r->hdr.flags & NPUPROF_F_CQE_RECV)) {
			apply_head(s, r->complete.sq_id, r->complete.sq_head, r->hdr.ts);
			note_head(s, r->complete.sq_id, r->complete.sq_head, r->hdr.ts);
		}
		note_progress(t, s);
		break;
	case NPUPROF_REC_DROP: t->lost += r->drop.lost; break;
	}
}

static int pid_gone(const struct tracker *t, uint32_t pid)
{
	return !t->offline && pid && kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

/* A head that waits for another stream (event, notify) is stuck because
 * of that stream; the cause is a stuck head that is not waiting. */
static int is_wait(uint32_t type)
{
	return type == NPUSIM_SQE_EVENT_WAIT || type == NPUSIM_SQE_NOTIFY_WAIT;
}

int tracker_find_hang(struct tracker *t, uint64_t now, uint64_t threshold_ns, struct trk_hang *h)
{
	int found = 0;

	for (struct trk_stream *s = t->all; s; s = s->next) {
		const struct trk_task *k;
		uint64_t stuck, since;

		if (!s->len)
			continue;
		k = &s->q[s->first];
		since = s->head_since;
		/* a wait is no hang while the work it waits for progresses
		 * (on any stream: notifies cross devices) */
		if (is_wait(k->type) && t->last_complete_any > since)
			since = t->last_complete_any;
		stuck = now > since ? now - since : 0;
		if (stuck <= threshold_ns || s->alarmed_task == k->task + 1)
			continue;
		/* rank by how long the head has been there: of several
		 * stuck waits, the oldest is nearest the cause */
		stuck = now > s->head_since ? now - s->head_since : 0;
		if (pid_gone(t, k->pid)) {
			/* cancelled with its process: never completes */
			s->len = 0;
			continue;
		}
		if (!found || (is_wait(h->task.type) && !is_wait(k->type)) ||
		    (is_wait(h->task.type) == is_wait(k->type) && stuck > h->stuck_ns)) {
			h->s = s;
			h->task = *k;
			h->now = now;
			h->stuck_ns = stuck;
			found = 1;
		}
	}
	if (found)
		h->s->alarmed_task = h->task.task + 1;
	return found;
}

static void comm_of(const struct tracker *t, uint32_t pid, char *out, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(out, len, "?");
	if (t->offline)
		return;
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(out, (int)len, f))
		out[strcspn(out, "\n")] = 0;
	fclose(f);
}

/* The host side of the submission, from the program's host stream. */
static void report_host(const struct trk_hang *h, const char *dir, FILE *f)
{
	struct hostdata hd;
	const struct hostdata_track *tr;
	const struct hostdata_api *api;
	char err[256];
	uint64_t t = h->task.ts;
	uint32_t tid = h->task.tid;
	int n = 0;

	FILE *quiet = fopen("/dev/null", "w");
	int r;

	memset(&hd, 0, sizeof(hd));
	/* the program is still writing: a partial last block is expected */
	r = quiet ? hostdata_load(&hd, dir, quiet, err, sizeof(err)) : -1;
	if (quiet)
		fclose(quiet);
	if (r < 0 || !hd.files) {
		fprintf(f,
			"  host: no host stream of the program (run it under npuprof, or link libnpuprof)\n");
		hostdata_free(&hd);
		return;
	}
	tr = hostdata_match_track(&hd, h->task.pid, h->s->dev, h->s->id, h->task.task, t);
	if (tr) {
		const char *type = hostdata_str(&hd, tr->r.task_type_id);

		fprintf(f, "  host task: %s launched by tid %u at %.6f s\n",
			type && *type ? type : "?", tr->r.tid, tr->r.time_ns / 1e9);
		t = tr->r.time_ns;
		tid = tr->r.tid;
	}
	api = hostdata_enclosing_api(&hd, h->task.pid, tid, t);
	if (api) {
		const char *name = hostdata_str(&hd, hostdata_api_strings(&hd, api)->name_id);
		const char *item = hostdata_str(&hd, hostdata_api_strings(&hd, api)->item_id);

		fprintf(f, "  host API: %s%s%s (tid %u, %.6f .. %.6f s)\n", name ? name : "?",
			item && *item ? " " : "", item ? item : "", api->r.tid,
			api->r.start_ns / 1e9, api->r.end_ns / 1e9);
	} else {
		fprintf(f, "  host API: none recorded around the submission\n");
	}
	for (size_t i = 0; i < hd.ntx; i++) {
		const struct hostdata_tx *x = &hd.tx[i];

		if (x->pid != h->task.pid || x->r.start_ns > t ||
		    (x->r.end_ns < t && x->r.end_ns != x->r.start_ns) ||
		    x->r.end_ns == x->r.start_ns)
			continue;
		fprintf(f, "  msproftx range: \"%s\" (%.6f .. %.6f s)\n",
			x->message ? x->message : "", x->r.start_ns / 1e9, x->r.end_ns / 1e9);
		n++;
	}
	if (!n)
		fprintf(f, "  msproftx range: none open at the submission\n");
	hostdata_free(&hd);
}

void tracker_report(const struct tracker *t, const struct trk_hang *h, const char *host_dir,
		    FILE *f)
{
	const struct trk_stream *s = h->s;
	char comm[64];

	comm_of(t, h->task.pid, comm, sizeof(comm));
	fprintf(f,
		"npuprof: HANG on device %u stream %u: task %u (%s) has not completed for %.0f ms\n",
		s->dev, s->id, h->task.task, tracker_type_name(h->task.type), h->stuck_ns / 1e6);
	fprintf(f, "  device: %u\n  stream: %u\n  task: %u\n  type: %s\n", s->dev, s->id,
		h->task.task, tracker_type_name(h->task.type));
	fprintf(f, "  submitted by: pid %u tid %u (%s) at %.6f s, %.0f ms ago\n", h->task.pid,
		h->task.tid, comm, h->task.ts / 1e9, (h->now - h->task.ts) / 1e6);
	if (s->last_complete)
		fprintf(f,
			"  stream: %llu submitted, %llu completed; last completion %.0f ms ago\n",
			(unsigned long long)s->submits, (unsigned long long)s->completes,
			(h->now - s->last_complete) / 1e6);
	else
		fprintf(f, "  stream: %llu submitted, no completion seen\n",
			(unsigned long long)s->submits);
	fprintf(f, "  queued behind it: %u task(s)", s->len - 1);
	for (uint32_t i = 1; i < s->len && i <= 8; i++) {
		const struct trk_task *k = &s->q[trk_idx(s, i)];

		fprintf(f, "%s%u %s", i == 1 ? ": " : ", ", k->task, tracker_type_name(k->type));
	}
	fprintf(f, "%s\n", s->len > 9 ? ", ..." : "");
	/* Only a CQE or a later SQ head shows a task ended, and most tasks
	 * write no CQE: after the last record the device may have gone on
	 * in silence (tracker.h) */
	if (s->len > 1) {
		if (s->head_seen && h->now >= s->head_seen)
			fprintf(f, "  last seen at it: %.0f ms ago (an SQ head); ",
				(h->now - s->head_seen) / 1e6);
		else
			fprintf(f, "  not seen at it: no SQ head since it became the head; ");
		fprintf(f,
			"tasks without a CQE (kernels, copies, notifies) end unseen, so the device may now hold one queued behind it\n");
	}
	for (const struct trk_stream *o = t->all; o; o = o->next) {
		const struct trk_task *k;

		if (o == s || !o->len || h->now < o->head_since ||
		    h->now - o->head_since < h->stuck_ns / 2)
			continue;
		k = &o->q[o->first];
		fprintf(f, "  also stuck: device %u stream %u task %u (%s) for %.0f ms\n", o->dev,
			o->id, k->task, tracker_type_name(k->type), (h->now - o->head_since) / 1e6);
	}
	if (t->lost)
		fprintf(f,
			"  note: %llu records were lost by the capture; a lost completion looks like a hang\n",
			(unsigned long long)t->lost);
	for (const struct trk_stream *o = t->all; o; o = o->next)
		if (o->unsubmitted && !o->submits)
			fprintf(f,
				"  not followed: device %u stream %u completes without submits (a direct-doorbell SQ fires no trs_chan:sqe); its hangs cannot be seen\n",
				o->dev, o->id);
	if (host_dir)
		report_host(h, host_dir, f);
	fflush(f);
}
