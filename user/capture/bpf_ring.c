/*
 * bpf_ring.c — the reader of the BPF engine's rings (bpf_ring.h): one ring
 * read at once, and the merge by timestamp of all of them that
 * engine_bpf.c delivers from, keeping the records in the rings' slots
 * until they are delivered.
 */
#include "bpf_ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- one ring ------------------------------------------------------------------ */

void npuprof_bpf_ring_rd_init(struct npuprof_bpf_ring_rd *q, struct npuprof_bpf_ring *ring_ctl,
			      const struct npuprof_record *slots, uint32_t cpu_slots, uint32_t cpu,
			      uint32_t kind)
{
	uint32_t first = npuprof_bpf_ring_place(kind, cpu_slots, &q->n);

	q->ctl = &ring_ctl[cpu * NPUPROF_BPF_NRING + kind];
	q->slots = slots + (size_t)cpu * cpu_slots + first;
}

/* The head the writer published, given the tail it sees: -EPROTO when the
 * programs cannot have written it (behind the tail or more than the ring
 * ahead of it). */
static int ring_head(const struct npuprof_bpf_ring_rd *q, uint64_t tail, uint64_t *head)
{
	*head = __atomic_load_n(&q->ctl->head, __ATOMIC_ACQUIRE);
	return *head < tail || *head - tail > q->n ? -EPROTO : 0;
}

/* A slot holds a record the programs wrote (its size and type). */
static int record_ok(const struct npuprof_record *r)
{
	return r->hdr.size == NPUPROF_RECORD_SIZE && r->hdr.type >= NPUPROF_REC_SUBMIT &&
	       r->hdr.type < NPUPROF_REC_TYPE_MAX;
}

long npuprof_bpf_ring_read(const struct npuprof_bpf_ring_rd *q,
			   int (*fn)(void *ctx, const struct npuprof_record *r), void *ctx)
{
	uint64_t tail = q->ctl->tail, head;
	long n = 0, r = 0;

	if (ring_head(q, tail, &head) < 0)
		return -EPROTO;
	for (; tail < head; tail++, n++) {
		const struct npuprof_record *rec = &q->slots[tail & (q->n - 1)];

		if (!record_ok(rec)) {
			r = -EPROTO;
			break;
		}
		if (fn(ctx, rec) < 0)
			break;
	}
	/* the slots go back only after the records were copied out */
	__atomic_store_n(&q->ctl->tail, tail, __ATOMIC_RELEASE);
	return r < 0 ? r : n;
}

/* ---- the merge: one ring's sequence --------------------------------------------- */

#define POLL_MASK (NPUPROF_BPF_MERGE_POLLS - 1)
_Static_assert((NPUPROF_BPF_MERGE_POLLS & POLL_MASK) == 0, "a power of two");

static const struct npuprof_record *slot(const struct npuprof_bpf_mring *q, uint64_t p)
{
	return &q->rd.slots[p & (q->rd.n - 1)];
}

/* The arrival number of slot record pos (the first not delivered). */
static uint64_t pos_seq(const struct npuprof_bpf_mring *q)
{
	return q->pos + q->poll[q->poll_first & POLL_MASK].off;
}

/* Slot record pos is delivered or staged: the next one is first. */
static void slot_advance(struct npuprof_bpf_mring *q)
{
	if (++q->pos == q->poll[q->poll_first & POLL_MASK].end) {
		q->poll_first++;
		q->poll_n--;
	}
}

/* Slot records [@p, @end) arrived numbered from @seq on. -1: no room to
 * keep another poll apart. */
static int slots_arrived(struct npuprof_bpf_mring *q, uint64_t p, uint64_t end, uint64_t seq)
{
	uint64_t off = seq - p;
	uint32_t last = (q->poll_first + q->poll_n - 1) & POLL_MASK;

	if (q->poll_n && q->poll[last].off == off) {
		q->poll[last].end = end;
		return 0;
	}
	if (q->poll_n == NPUPROF_BPF_MERGE_POLLS)
		return -1;
	last = (q->poll_first + q->poll_n++) & POLL_MASK;
	q->poll[last].end = end;
	q->poll[last].off = off;
	return 0;
}

/* Room in the stage for @k more records. */
static int stage_reserve(struct npuprof_bpf_mring *q, size_t k)
{
	if (q->sn + k <= q->scap)
		return 0;
	if (q->shead) { /* compact before growing */
		memmove(q->stage, q->stage + q->shead, (q->sn - q->shead) * sizeof(*q->stage));
		q->sn -= q->shead;
		q->shead = 0;
	}
	if (q->sn + k > q->scap) {
		size_t n = q->scap ? 2 * q->scap : 4096;
		struct npuprof_bpf_staged *s;

		while (n < q->sn + k)
			n *= 2;
		s = realloc(q->stage, n * sizeof(*s));
		if (!s)
			return -ENOMEM;
		q->stage = s;
		q->scap = n;
	}
	return 0;
}

/* Sort @r into the stage (no slot records wait behind it): one CPU's
 * ring is in order but for a record whose writer was interrupted, which
 * moves back a place or two. */
static int stage_add(struct npuprof_bpf_mring *q, const struct npuprof_record *r, uint64_t seq)
{
	size_t i;

	if (stage_reserve(q, 1) < 0)
		return -ENOMEM;
	i = q->sn;
	while (i > q->shead && q->stage[i - 1].r.hdr.ts > r->hdr.ts)
		i--;
	if (i < q->sn)
		memmove(&q->stage[i + 1], &q->stage[i], (q->sn - i) * sizeof(*q->stage));
	q->stage[i].r = *r;
	q->stage[i].seq = seq;
	q->sn++;
	return 0;
}

/* Move the records waiting in the slots to the end of the stage (they
 * follow it in order), so their slots can go back. All or none. */
static int spill(struct npuprof_bpf_mring *q)
{
	if (q->pos == q->scanned)
		return 0;
	if (stage_reserve(q, q->scanned - q->pos) < 0)
		return -ENOMEM;
	while (q->pos < q->scanned) {
		struct npuprof_bpf_staged *s = &q->stage[q->sn++];

		s->r = *slot(q, q->pos);
		s->seq = pos_seq(q);
		slot_advance(q);
	}
	return 0;
}

/* Give the delivered and staged records' slots back to the writer. */
static void give_back(struct npuprof_bpf_mring *q)
{
	if (q->stored != q->pos) {
		q->stored = q->pos;
		__atomic_store_n(&q->rd.ctl->tail, q->pos, __ATOMIC_RELEASE);
	}
}

/* The sequence's first record's stamp in *ts, 0 if it is empty. */
static int first_ts(struct npuprof_bpf_mring *q, uint64_t *ts)
{
	if (q->shead < q->sn) {
		*ts = q->stage[q->shead].r.hdr.ts;
		return 1;
	}
	if (q->pos < q->scanned) {
		*ts = slot(q, q->pos)->hdr.ts;
		return 1;
	}
	return 0;
}

/* The sequence's first record's arrival number (it has one). */
static uint64_t first_seq(const struct npuprof_bpf_mring *q)
{
	return q->shead < q->sn ? q->stage[q->shead].seq : pos_seq(q);
}

/* ---- the merge: the tournament of the rings' first records --------------------- */

#define NO_RING UINT32_MAX

/* Leaf @i's ring has a record. */
static int leaf_has(const struct npuprof_bpf_merge *m, uint32_t i)
{
	const struct npuprof_bpf_mring *q;

	if (m->ring_of[i] == NO_RING)
		return 0;
	q = &m->rings[m->ring_of[i]];
	return q->shead < q->sn || q->pos < q->scanned;
}

/* Equal stamps: a leaf with a record before one without, then the record
 * that arrived first. */
static __attribute__((noinline)) int seq_before(const struct npuprof_bpf_merge *m, uint32_t a,
						uint32_t b)
{
	int ha = leaf_has(m, a), hb = leaf_has(m, b);

	if (!ha || !hb)
		return ha;
	return first_seq(&m->rings[m->ring_of[a]]) < first_seq(&m->rings[m->ring_of[b]]);
}

/* Leaf @w's first record changed: replay its matches up to the final. */
static inline void replay(struct npuprof_bpf_merge *m, uint32_t w)
{
	uint64_t wt = m->ts[w];

	for (uint32_t node = (w + m->nleaf) >> 1; node; node >>= 1) {
		uint32_t l = m->loser[node];
		uint64_t lt = m->ts[l];

		if (lt < wt || (lt == wt && seq_before(m, l, w))) {
			m->loser[node] = w;
			w = l;
			wt = lt;
		}
	}
	m->loser[0] = w;
}

/* The rings that have records, one leaf each, and the whole tournament. */
static void tournament(struct npuprof_bpf_merge *m)
{
	uint32_t *win = m->win, k = 0;

	for (int i = 0; i < m->nring; i++)
		if (first_ts(&m->rings[i], &m->ts[k]))
			m->ring_of[k++] = (uint32_t)i;
	for (m->nleaf = 1; m->nleaf < k; m->nleaf *= 2)
		;
	for (uint32_t i = 0; i < m->nleaf; i++) {
		if (i >= k) {
			m->ts[i] = UINT64_MAX;
			m->ring_of[i] = NO_RING;
		}
		win[m->nleaf + i] = i;
	}
	for (uint32_t node = m->nleaf - 1; node; node--) {
		uint32_t a = win[2 * node], b = win[2 * node + 1];
		int bw = m->ts[b] != m->ts[a] ? m->ts[b] < m->ts[a] : seq_before(m, b, a);

		win[node] = bw ? b : a;
		m->loser[node] = bw ? a : b;
	}
	m->loser[0] = win[1];
}

/* ---- the merge ------------------------------------------------------------------- */

int npuprof_bpf_merge_init(struct npuprof_bpf_merge *m, struct npuprof_bpf_ring *ring_ctl,
			   const struct npuprof_record *slots, uint32_t cpu_slots, int ncpu)
{
	memset(m, 0, sizeof(*m));
	m->nring = ncpu * NPUPROF_BPF_NRING;
	uint32_t leaves = 1;

	while (leaves < (uint32_t)m->nring)
		leaves *= 2;
	m->rings = calloc((size_t)m->nring, sizeof(*m->rings));
	m->ts = calloc(leaves, sizeof(*m->ts));
	m->ring_of = calloc(leaves, sizeof(*m->ring_of));
	m->loser = calloc(leaves, sizeof(*m->loser));
	m->win = calloc(2 * (size_t)leaves, sizeof(*m->win));
	if (!m->rings || !m->ts || !m->ring_of || !m->loser || !m->win) {
		npuprof_bpf_merge_free(m);
		return -ENOMEM;
	}
	for (int i = 0; i < m->nring; i++) {
		struct npuprof_bpf_mring *q = &m->rings[i];

		q->cpu = (uint32_t)(i / NPUPROF_BPF_NRING);
		q->kind = (uint32_t)(i % NPUPROF_BPF_NRING);
		npuprof_bpf_ring_rd_init(&q->rd, ring_ctl, slots, cpu_slots, q->cpu, q->kind);
		q->pos = q->scanned = q->stored = __atomic_load_n(&q->rd.ctl->tail,
								  __ATOMIC_ACQUIRE);
	}
	tournament(m);
	return 0;
}

void npuprof_bpf_merge_free(struct npuprof_bpf_merge *m)
{
	for (int i = 0; m->rings && i < m->nring; i++)
		free(m->rings[i].stage);
	free(m->rings);
	free(m->ts);
	free(m->ring_of);
	free(m->loser);
	free(m->win);
	memset(m, 0, sizeof(*m));
}

/* Slot records [scanned, @end), in order, are taken in: they wait in
 * their slots. */
static int take_run(struct npuprof_bpf_merge *m, struct npuprof_bpf_mring *q, uint64_t end,
		    uint64_t last_ts)
{
	uint64_t k = end - q->scanned;

	if (!k)
		return 0;
	if (slots_arrived(q, q->scanned, end, m->seq) < 0 &&
	    (spill(q) < 0 || slots_arrived(q, q->scanned, end, m->seq) < 0))
		return -ENOMEM;
	q->scanned = end;
	q->last_ts = last_ts;
	m->seq += k;
	m->pending += k;
	q->polled += k;
	return 0;
}

/* Take in ring @q's new records (npuprof_bpf_merge_poll). */
static void take_in(struct npuprof_bpf_merge *m, struct npuprof_bpf_mring *q, uint64_t late_before)
{
	/* a record stamped before the sequence's last is out of order */
	uint64_t head, p, last = q->shead < q->sn || q->pos < q->scanned ? q->last_ts : 0;
	/* late: stamped before late_before or before a delivered record */
	uint64_t late_ts = late_before > m->delivered_ts ? late_before : m->delivered_ts, late = 0;

	if (ring_head(&q->rd, q->stored, &head) < 0 || head < q->scanned) {
		m->broken = 1;
		return;
	}
	for (p = q->scanned; p < head; p++) {
		const struct npuprof_record *r = slot(q, p);
		uint64_t ts = r->hdr.ts;

		if (!record_ok(r)) {
			m->broken = 1;
			break;
		}
		if (ts < last) {
			/* out of order: what waits in the slots is staged,
			 * and it is sorted in */
			if (take_run(m, q, p, last) < 0 || spill(q) < 0 ||
			    stage_add(q, r, m->seq) < 0) {
				m->oom = 1;
				break;
			}
			q->pos = q->scanned = p + 1;
			m->seq++;
			m->pending++;
			q->polled++;
		} else {
			last = ts;
		}
		late += ts < late_ts;
	}
	if (take_run(m, q, p, last) < 0)
		m->oom = 1;
	m->late += late;
	/* the writer keeps three quarters of its ring (what fails to be
	 * staged waits in the slots) */
	if (q->scanned - q->pos > q->rd.n / 4)
		spill(q);
	give_back(q);
}

void npuprof_bpf_merge_poll(struct npuprof_bpf_merge *m, uint64_t late_before)
{
	for (int i = 0; i < m->nring; i++)
		take_in(m, &m->rings[i], late_before);
	tournament(m);
}

int npuprof_bpf_merge_add(struct npuprof_bpf_merge *m, int ring, const struct npuprof_record *r)
{
	struct npuprof_bpf_mring *q = &m->rings[ring];

	if (spill(q) < 0 || stage_add(q, r, m->seq) < 0) {
		m->oom = 1;
		return -ENOMEM;
	}
	give_back(q);
	m->seq++;
	m->pending++;
	q->last_ts = q->stage[q->sn - 1].r.hdr.ts;
	tournament(m);
	return 0;
}

int npuprof_bpf_merge_oldest(const struct npuprof_bpf_merge *m, uint64_t *ts)
{
	if (!m->loser || !leaf_has(m, m->loser[0]))
		return 0;
	*ts = m->ts[m->loser[0]];
	return 1;
}

long npuprof_bpf_merge_read(struct npuprof_bpf_merge *m, uint64_t horizon,
			    int (*fn)(void *ctx, const struct npuprof_record *r), void *ctx)
{
	uint64_t dts = m->delivered_ts;
	long n = 0;
	int stop = 0;

	while (!stop) {
		uint32_t w = m->loser[0];
		uint64_t ts = m->ts[w];
		struct npuprof_bpf_mring *q;
		const struct npuprof_record *r;
		int staged = 0;

		if (ts > horizon || (ts == UINT64_MAX && !leaf_has(m, w)))
			break;
		q = &m->rings[m->ring_of[w]];
		if (q->shead < q->sn) {
			r = &q->stage[q->shead++].r;
			staged = 1;
		} else {
			r = slot(q, q->pos);
			slot_advance(q);
		}
		if (ts > dts)
			dts = ts;
		n++;
		stop = fn(ctx, r);
		if (staged && q->shead == q->sn)
			q->shead = q->sn = 0;
		if (!first_ts(q, &m->ts[w]))
			m->ts[w] = UINT64_MAX;
		replay(m, w);
	}
	m->delivered_ts = dts;
	m->pending -= (size_t)n;
	for (int i = 0; i < m->nring; i++)
		give_back(&m->rings[i]);
	return n;
}
