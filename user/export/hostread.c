/*
 * hostread.c - the decoder of the raw host stream (npuprof/hostread.h;
 * layout in npuprof/hostfmt.h, block CRC in user/common/hostfmt.c).
 *
 * The decoder trusts nothing in the file: every length is checked against
 * the bytes that are really there before it is used, a block's records are
 * validated completely before any of them reaches the caller, and damage is
 * reported with the file name and byte offset. After a damaged block it
 * scans forward (8-byte steps, as blocks are 8-aligned) for the next header
 * whose CRC matches, so one bad block does not hide the rest of the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npuprof/hostread.h"
#include "profiling/aprof_pub.h"

/* The layout is frozen: a change here is a format change (see hostfmt.h). */
_Static_assert(sizeof(struct npuprof_hostfmt_file_header) == 128, "file header layout");
_Static_assert(sizeof(struct npuprof_hostfmt_block_header) == 32, "block header layout");
_Static_assert(sizeof(struct npuprof_hostfmt_header) == 8, "record header layout");
_Static_assert(offsetof(struct npuprof_hostfmt_tx, message) == 68, "tx record layout");
_Static_assert(sizeof(struct npuprof_hostfmt_stamp_mark) == 32 &&
		       sizeof(struct npuprof_hostfmt_stamp_pop) == 40 &&
		       sizeof(struct npuprof_hostfmt_stamp_stop) == 48 &&
		       offsetof(struct npuprof_hostfmt_mstx, message) == 36 &&
		       sizeof(struct npuprof_hostfmt_mstx_end) == 24,
	       "compact tx record layouts");
_Static_assert(offsetof(struct npuprof_hostfmt_tensor_info, tensors) == 72, "tensor record layout");
_Static_assert(sizeof(struct npuprof_hostfmt_tensor) == 48, "tensor layout");
_Static_assert(sizeof(struct npuprof_hostfmt_step) == 40, "step record layout");

/* ---- per-kind validation (one table for every known kind) ---------------- */

/* Returns NULL if the record is consistent, else what is wrong. `rec` has a
 * valid frame: size >= min size of its kind, multiple of 8. */
typedef const char *(*validate_fn)(const struct npuprof_hostfmt_header *rec);

static const char *check_string(const char *s, uint32_t len, size_t room)
{
	if ((size_t)len + 1 > room)
		return "string length exceeds its record";
	if (s[len] != '\0')
		return "string not NUL-terminated";
	return NULL;
}

static const char *v_session(const struct npuprof_hostfmt_header *rec)
{
	const struct npuprof_hostfmt_session *s = (const void *)rec;

	if ((uint64_t)s->dev_count * sizeof(uint32_t) >
	    rec->size - offsetof(struct npuprof_hostfmt_session, dev_ids))
		return "device count exceeds its record";
	return NULL;
}

static const char *v_tx(const struct npuprof_hostfmt_header *rec)
{
	const struct npuprof_hostfmt_tx *t = (const void *)rec;

	return check_string(t->message, t->msg_len,
			    rec->size - offsetof(struct npuprof_hostfmt_tx, message));
}

static const char *v_mstx(const struct npuprof_hostfmt_header *rec)
{
	const struct npuprof_hostfmt_mstx *t = (const void *)rec;

	return check_string(t->message, t->msg_len,
			    rec->size - offsetof(struct npuprof_hostfmt_mstx, message));
}

static const char *v_hash(const struct npuprof_hostfmt_header *rec)
{
	const struct npuprof_hostfmt_hash *t = (const void *)rec;

	return check_string(t->str, t->len, rec->size - offsetof(struct npuprof_hostfmt_hash, str));
}

static const char *v_tensor(const struct npuprof_hostfmt_header *rec)
{
	const struct npuprof_hostfmt_tensor_info *t = (const void *)rec;

	if ((uint64_t)t->tensor_count * sizeof(struct npuprof_hostfmt_tensor) >
	    rec->size - offsetof(struct npuprof_hostfmt_tensor_info, tensors))
		return "tensor count exceeds its record";
	return NULL;
}

static const char *v_option(const struct npuprof_hostfmt_header *rec)
{
	const struct npuprof_hostfmt_option *t = (const void *)rec;

	return check_string(t->value, t->len,
			    rec->size - offsetof(struct npuprof_hostfmt_option, value));
}

/* A CANN report stored as reported: the struct's size is its kind's, and
 * what the record's length says it holds is there. (Its content, magic
 * and dataLen, is checked per record: a bad report costs only itself.) */
static uint32_t msprof_len(uint16_t kind)
{
	switch (kind) {
	case NPUPROF_HOSTFMT_MSPROF_API:
	case NPUPROF_HOSTFMT_MSPROF_EVENT: return sizeof(struct MsprofApi);
	case NPUPROF_HOSTFMT_MSPROF_COMPACT: return sizeof(struct MsprofCompactInfo);
	}
	return sizeof(struct MsprofAdditionalInfo);
}

static const char *v_msprof(const struct npuprof_hostfmt_header *rec)
{
	const struct npuprof_hostfmt_msprof *m = (const void *)rec;

	if (m->len != msprof_len(rec->kind))
		return "CANN report of the wrong size for its kind";
	if ((uint64_t)m->len > rec->size - offsetof(struct npuprof_hostfmt_msprof, data))
		return "CANN report exceeds its record";
	return NULL;
}

static const char *v_msprof_type(const struct npuprof_hostfmt_header *rec)
{
	const struct npuprof_hostfmt_msprof_type *t = (const void *)rec;

	return check_string(t->name, t->len,
			    rec->size - offsetof(struct npuprof_hostfmt_msprof_type, name));
}

static const struct {
	uint32_t min_size;
	validate_fn validate;
} g_kinds[NPUPROF_HOSTFMT_KIND_COUNT] = {
	[NPUPROF_HOSTFMT_PAD] = { sizeof(struct npuprof_hostfmt_header), NULL },
	[NPUPROF_HOSTFMT_SESSION] = { offsetof(struct npuprof_hostfmt_session, dev_ids),
				      v_session },
	[NPUPROF_HOSTFMT_TX] = { offsetof(struct npuprof_hostfmt_tx, message) + 1, v_tx },
	[NPUPROF_HOSTFMT_HASH] = { offsetof(struct npuprof_hostfmt_hash, str) + 1, v_hash },
	[NPUPROF_HOSTFMT_TENSOR_INFO] = { offsetof(struct npuprof_hostfmt_tensor_info, tensors),
					  v_tensor },
	[NPUPROF_HOSTFMT_STEP] = { sizeof(struct npuprof_hostfmt_step), NULL },
	[NPUPROF_HOSTFMT_OPTION] = { offsetof(struct npuprof_hostfmt_option, value) + 1, v_option },
	[NPUPROF_HOSTFMT_END] = { sizeof(struct npuprof_hostfmt_end), NULL },
	[NPUPROF_HOSTFMT_API] = { sizeof(struct npuprof_hostfmt_api), NULL },
	[NPUPROF_HOSTFMT_TASK_TRACK] = { sizeof(struct npuprof_hostfmt_task_track), NULL },
	[NPUPROF_HOSTFMT_COMPUTE_OP] = { sizeof(struct npuprof_hostfmt_compute_op), NULL },
	[NPUPROF_HOSTFMT_HCCL_OP] = { sizeof(struct npuprof_hostfmt_hccl_op), NULL },
	[NPUPROF_HOSTFMT_HCCL_TASK] = { sizeof(struct npuprof_hostfmt_hccl_task), NULL },
	[NPUPROF_HOSTFMT_RANK] = { sizeof(struct npuprof_hostfmt_rank), NULL },
	[NPUPROF_HOSTFMT_FWK_OP] = { sizeof(struct npuprof_hostfmt_fwk_op), NULL },
	[NPUPROF_HOSTFMT_FWK_MEM] = { sizeof(struct npuprof_hostfmt_fwk_mem), NULL },
	[NPUPROF_HOSTFMT_FWK_GC] = { sizeof(struct npuprof_hostfmt_fwk_gc), NULL },
	[NPUPROF_HOSTFMT_STAMP_MARK] = { sizeof(struct npuprof_hostfmt_stamp_mark), NULL },
	[NPUPROF_HOSTFMT_STAMP_POP] = { sizeof(struct npuprof_hostfmt_stamp_pop), NULL },
	[NPUPROF_HOSTFMT_STAMP_STOP] = { sizeof(struct npuprof_hostfmt_stamp_stop), NULL },
	[NPUPROF_HOSTFMT_MSTX_MARK] = { offsetof(struct npuprof_hostfmt_mstx, message) + 1,
					v_mstx },
	[NPUPROF_HOSTFMT_MSTX_START] = { offsetof(struct npuprof_hostfmt_mstx, message) + 1,
					 v_mstx },
	[NPUPROF_HOSTFMT_MSTX_END] = { sizeof(struct npuprof_hostfmt_mstx_end), NULL },
	[NPUPROF_HOSTFMT_CLOCK] = { sizeof(struct npuprof_hostfmt_clock), NULL },
	[NPUPROF_HOSTFMT_MSPROF_API] = { sizeof(struct npuprof_hostfmt_msprof) +
						 sizeof(struct MsprofApi),
					 v_msprof },
	[NPUPROF_HOSTFMT_MSPROF_EVENT] = { sizeof(struct npuprof_hostfmt_msprof) +
						   sizeof(struct MsprofApi),
					   v_msprof },
	[NPUPROF_HOSTFMT_MSPROF_COMPACT] = { sizeof(struct npuprof_hostfmt_msprof) +
						     sizeof(struct MsprofCompactInfo),
					     v_msprof },
	[NPUPROF_HOSTFMT_MSPROF_ADDITIONAL] = { sizeof(struct npuprof_hostfmt_msprof) +
							sizeof(struct MsprofAdditionalInfo),
						v_msprof },
	[NPUPROF_HOSTFMT_MSPROF_TYPE] = { offsetof(struct npuprof_hostfmt_msprof_type, name) + 1,
					  v_msprof_type },
	[NPUPROF_HOSTFMT_CLOCK_RAW] = { sizeof(struct npuprof_hostfmt_clock_raw), NULL },
	/* counts only grow at its end: the first is there */
	[NPUPROF_HOSTFMT_MSPROF_BAD] = { offsetof(struct npuprof_hostfmt_msprof_bad, bad_magic),
					 NULL },
};

/* ---- the TSC time base (hostfmt.h NPUPROF_HOSTFMT_F_TSC) ----------------------
 *
 * A stream with NPUPROF_HOSTFMT_F_TSC gets a first pass over its session
 * blocks (tid 0; block headers only for the others) that collects the
 * (TSC, monotonic) pairs of its CLOCK records, before any record reaches
 * the caller. A flagged record's times are then converted by linear
 * interpolation between the pairs around them, or beyond the first or last
 * pair by extrapolation along the nearest span of at least
 * NPUPROF_HOSTFMT_CLOCK_MIN_SPAN_NS. */
struct clkpt {
	uint64_t tsc, ns;
	uint64_t off; /* file offset of its CLOCK record (messages) */
};

struct clkset {
	struct clkpt *p;
	size_t n, cap;
};

static int clk_add(struct clkset *c, uint64_t tsc, uint64_t ns, uint64_t off)
{
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 64;
		struct clkpt *np = realloc(c->p, ncap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		c->p = np;
		c->cap = ncap;
	}
	c->p[c->n++] = (struct clkpt){ tsc, ns, off };
	return 0;
}

static int clk_cmp(const void *a, const void *b)
{
	const struct clkpt *x = a, *y = b;

	if (x->tsc != y->tsc)
		return x->tsc < y->tsc ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Sorts by TSC and keeps a strictly increasing chain: repeats (every
 * CLOCK record carries the same reference pair) go silently; a pair whose
 * time goes backwards against the kept ones is inconsistent and dropped.
 * Returns how many were dropped as inconsistent; *first_bad its offset. */
static uint64_t clk_finish(struct clkset *c, uint64_t *first_bad)
{
	uint64_t bad = 0;
	size_t k = 0;

	if (!c->n)
		return 0;
	qsort(c->p, c->n, sizeof(*c->p), clk_cmp);
	for (size_t i = 1; i < c->n; i++) {
		const struct clkpt *last = &c->p[k], *q = &c->p[i];

		if (q->tsc == last->tsc && q->ns == last->ns)
			continue;
		if (q->tsc == last->tsc || q->ns < last->ns) {
			if (!bad++ || q->off < *first_bad)
				*first_bad = q->off;
			continue;
		}
		c->p[++k] = *q;
	}
	c->n = k + 1;
	return bad;
}

/* a.ns + (tsc - a.tsc) * (b.ns - a.ns) / (b.tsc - a.tsc), with a.tsc <
 * b.tsc and a.ns <= b.ns; -1 if it is outside 0..UINT64_MAX. */
static int clk_line(const struct clkpt *a, const struct clkpt *b, uint64_t tsc, uint64_t *ns)
{
	uint64_t dn = b->ns - a->ns, dt = b->tsc - a->tsc;
	__int128 v;

	if (dn > INT64_MAX)
		return -1;
	v = ((__int128)tsc - (__int128)a->tsc) * (__int128)dn; /* |v| < 2^127 */
	v = v / (__int128)dt + (__int128)a->ns;
	if (v < 0 || v > (__int128)UINT64_MAX)
		return -1;
	*ns = (uint64_t)v;
	return 0;
}

static int clk_convert(const struct clkset *c, uint64_t tsc, uint64_t *ns)
{
	const struct clkpt *p = c->p;
	size_t n = c->n, lo, hi;

	if (n < 2)
		return -1; /* no rate */
	if (tsc < p[0].tsc) {
		for (hi = 1; hi < n - 1 && p[hi].ns - p[0].ns < NPUPROF_HOSTFMT_CLOCK_MIN_SPAN_NS;
		     hi++)
			;
		return clk_line(&p[0], &p[hi], tsc, ns);
	}
	if (tsc >= p[n - 1].tsc) {
		for (lo = n - 2;
		     lo > 0 && p[n - 1].ns - p[lo].ns < NPUPROF_HOSTFMT_CLOCK_MIN_SPAN_NS; lo--)
			;
		return clk_line(&p[lo], &p[n - 1], tsc, ns);
	}
	/* p[lo].tsc <= tsc < p[hi].tsc */
	lo = 0;
	hi = n - 1;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (p[mid].tsc <= tsc)
			lo = mid;
		else
			hi = mid;
	}
	return clk_line(&p[lo], &p[hi], tsc, ns);
}

static int tsc_field(const struct clkset *c, uint64_t *t)
{
	return clk_convert(c, *t, t);
}

/* Converts the copy `r` of a flagged record in place: 0, or -1 if a time
 * does not convert. Kinds without times pass unchanged. */
static int clk_record(const struct clkset *c, struct npuprof_hostfmt_header *r)
{
	switch (r->kind) {
	case NPUPROF_HOSTFMT_TX: {
		struct npuprof_hostfmt_tx *t = (void *)r;

		/* 0: the absent time of an mstx range half */
		if ((t->start_ns && tsc_field(c, &t->start_ns)) ||
		    (t->end_ns && tsc_field(c, &t->end_ns)))
			return -1;
		break;
	}
	case NPUPROF_HOSTFMT_STAMP_MARK:
		if (tsc_field(c, &((struct npuprof_hostfmt_stamp_mark *)(void *)r)->time_ns))
			return -1;
		break;
	case NPUPROF_HOSTFMT_STAMP_POP:
	case NPUPROF_HOSTFMT_STAMP_STOP: {
		struct npuprof_hostfmt_stamp_pop *t = (void *)r;

		if (tsc_field(c, &t->start_ns) || tsc_field(c, &t->end_ns))
			return -1;
		break;
	}
	case NPUPROF_HOSTFMT_MSTX_MARK:
	case NPUPROF_HOSTFMT_MSTX_START:
		if (tsc_field(c, &((struct npuprof_hostfmt_mstx *)(void *)r)->time_ns))
			return -1;
		break;
	case NPUPROF_HOSTFMT_MSTX_END:
		if (tsc_field(c, &((struct npuprof_hostfmt_mstx_end *)(void *)r)->time_ns))
			return -1;
		break;
	}
	r->reserved &= (uint16_t)~NPUPROF_HOSTFMT_F_TSC;
	return 0;
}

/* ---- msproftx / mstx events, whatever their record ----------------------- */

int npuprof_hostread_tx_event(const struct npuprof_hostfmt_block_header *block,
			      const struct npuprof_hostfmt_header *rec,
			      struct npuprof_hostread_tx *ev)
{
	struct npuprof_hostfmt_tx *t = &ev->r;

	if (rec->kind != NPUPROF_HOSTFMT_TX &&
	    (rec->kind < NPUPROF_HOSTFMT_STAMP_MARK || rec->kind > NPUPROF_HOSTFMT_MSTX_END))
		return 0;
	memset(ev, 0, sizeof(*ev));
	t->h = *rec;
	t->tid = t->start_tid = block->tid;
	t->range_id = NPUPROF_TX_NO_RANGE;
	ev->msg_id = NPUPROF_HOSTFMT_NO_STRING;
	switch (rec->kind) {
	case NPUPROF_HOSTFMT_TX: {
		const struct npuprof_hostfmt_tx *r = (const void *)rec;

		*t = *r;
		ev->message = r->message;
		return 1;
	}
	case NPUPROF_HOSTFMT_STAMP_MARK: {
		const struct npuprof_hostfmt_stamp_mark *r = (const void *)rec;

		t->event_type = NPUPROF_TX_MARK;
		t->start_ns = t->end_ns = r->time_ns;
		t->category = r->category;
		t->payload_type = r->payload_type;
		ev->msg_id = r->msg_id;
		return 1;
	}
	case NPUPROF_HOSTFMT_STAMP_POP:
	case NPUPROF_HOSTFMT_STAMP_STOP: {
		const struct npuprof_hostfmt_stamp_stop *r = (const void *)rec;

		_Static_assert(offsetof(struct npuprof_hostfmt_stamp_stop, payload_type) ==
				       offsetof(struct npuprof_hostfmt_stamp_pop, payload_type),
			       "STAMP_STOP extends STAMP_POP");
		t->event_type = NPUPROF_TX_PUSH_POP;
		t->start_ns = r->start_ns;
		t->end_ns = r->end_ns;
		t->category = r->category;
		t->payload_type = r->payload_type;
		ev->msg_id = r->msg_id;
		if (rec->kind == NPUPROF_HOSTFMT_STAMP_STOP) {
			t->event_type = NPUPROF_TX_START_STOP;
			t->start_tid = r->start_tid;
			t->range_id = r->range_id;
		}
		return 1;
	}
	case NPUPROF_HOSTFMT_MSTX_MARK:
	case NPUPROF_HOSTFMT_MSTX_START: {
		const struct npuprof_hostfmt_mstx *r = (const void *)rec;

		t->info_type = 1;
		t->category = UINT32_MAX;
		t->start_ns = r->time_ns;
		if (rec->kind == NPUPROF_HOSTFMT_MSTX_MARK) {
			t->event_type = NPUPROF_TX_MARK;
			t->end_ns = r->time_ns;
		} else {
			t->event_type = NPUPROF_TX_START_STOP;
		}
		t->mark_id = r->mark_id;
		t->domain = r->domain;
		t->msg_len = r->msg_len;
		ev->message = r->message;
		return 1;
	}
	case NPUPROF_HOSTFMT_MSTX_END: {
		const struct npuprof_hostfmt_mstx_end *r = (const void *)rec;

		t->info_type = 1;
		t->category = UINT32_MAX;
		t->event_type = NPUPROF_TX_START_STOP;
		t->end_ns = r->time_ns;
		t->mark_id = r->mark_id;
		ev->message = "";
		return 1;
	}
	}
	return 0;
}

/* ---- decoding ------------------------------------------------------------- */

struct dec {
	const uint8_t *base;
	size_t len;
	const char *name;
	struct npuprof_hostread_decode_stats *st;
	char *err;
	size_t errlen;
	int mapped; /* base is a file mapping whose pages may be given back */
	struct clkset clk; /* NPUPROF_HOSTFMT_F_TSC streams */
	struct clkset raw; /* CLOCK_RAW pairs: (CLOCK_MONOTONIC_RAW, monotonic) */
	uint8_t *cvt; /* the converted copy of a flagged record */
	size_t cvt_cap;
};

static void problem(struct dec *d, uint64_t off, const char *fmt, ...)
{
	d->st->problems++;
	if (d->st->problems == 1 && d->err && d->errlen) {
		int n = snprintf(d->err, d->errlen, "%s: offset %" PRIu64 ": ", d->name, off);
		va_list ap;

		if (n >= 0 && (size_t)n < d->errlen) {
			va_start(ap, fmt);
			vsnprintf(d->err + n, d->errlen - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
}

/* Checks the records of a block of `size` bytes at `p` (8-aligned). Returns
 * NULL, or what is wrong with *bad_off set to the record's offset in the
 * block. */
static const char *check_records(const uint8_t *p, uint32_t size, uint32_t *bad_off)
{
	uint32_t off = 0;

	while (off < size) {
		const struct npuprof_hostfmt_header *r = (const void *)(p + off);
		const char *why = NULL;

		*bad_off = off;
		if (size - off < sizeof(*r))
			return "record header truncated by its block";
		if (r->size < sizeof(*r) || (r->size & (NPUPROF_HOSTFMT_ALIGN - 1)))
			return "bad record size";
		if (r->size > size - off)
			return "record extends past its block";
		if (r->kind < NPUPROF_HOSTFMT_KIND_COUNT) {
			if (r->size < g_kinds[r->kind].min_size)
				return "record shorter than its kind";
			if (g_kinds[r->kind].validate)
				why = g_kinds[r->kind].validate(r);
			if (why)
				return why;
		}
		off += r->size;
	}
	return NULL;
}

/* A plausible, intact block at `off`? */
static int block_ok(const struct dec *d, uint64_t off, struct npuprof_hostfmt_block_header *bh)
{
	if (d->len - off < sizeof(*bh))
		return 0;
	memcpy(bh, d->base + off, sizeof(*bh));
	if (bh->magic != NPUPROF_HOSTFMT_BLOCK_MAGIC || (bh->size & (NPUPROF_HOSTFMT_ALIGN - 1)))
		return 0;
	if (bh->size > d->len - off - sizeof(*bh))
		return 0;
	return npuprof_hostfmt_block_crc(bh, d->base + off + sizeof(*bh)) == bh->crc;
}

static uint64_t resync(const struct dec *d, uint64_t from)
{
	struct npuprof_hostfmt_block_header bh;

	for (uint64_t off = from; off + sizeof(bh) <= d->len; off += NPUPROF_HOSTFMT_ALIGN)
		if (block_ok(d, off, &bh))
			return off;
	return d->len;
}

/* The damaged blocks in [from, to) (resync's skip): each block header
 * that chains to the next counts, and the damaged one at `from` does. */
static uint64_t blocks_in(const struct dec *d, uint64_t from, uint64_t to)
{
	struct npuprof_hostfmt_block_header bh;
	uint64_t n = 0, p = from;

	while (p + sizeof(bh) <= to) {
		memcpy(&bh, d->base + p, sizeof(bh));
		if (bh.magic == NPUPROF_HOSTFMT_BLOCK_MAGIC &&
		    !(bh.size & (NPUPROF_HOSTFMT_ALIGN - 1)) && bh.size <= to - p - sizeof(bh)) {
			n++;
			p += sizeof(bh) + bh.size;
		} else {
			n += p == from;
			p += NPUPROF_HOSTFMT_ALIGN;
		}
	}
	return n ? n : 1;
}

/* Gives back the pages of a file mapping below `at`, in DECODE_WINDOW steps
 * (pages read again come back from the file). */
#define DECODE_WINDOW (8u << 20)
static void drop_behind(const uint8_t *map, const uint8_t **dropped, const uint8_t *at)
{
	if (at - *dropped > 2 * DECODE_WINDOW) {
		const uint8_t *upto = at - DECODE_WINDOW;

		upto = map + ((size_t)(upto - map) & ~(size_t)(DECODE_WINDOW - 1));
		if (upto > *dropped) {
			madvise((void *)*dropped, (size_t)(upto - *dropped), MADV_DONTNEED);
			*dropped = upto;
		}
	}
}

/* The first pass of a TSC stream, or of one with CANN reports (at the first):
 * the pairs of the CLOCK and CLOCK_RAW records of every
 * intact session block. Other blocks are stepped over by their header's
 * size (a block whose size is damaged may hide a session block behind it:
 * its pairs are then missing, which costs accuracy, not records); after a
 * bad header it steps 8 bytes, as resync() does. */
static int collect_clock(struct dec *d, uint64_t off)
{
	const uint8_t *dropped = d->base;
	uint64_t bad_off = 0, bad;

	while (off + sizeof(struct npuprof_hostfmt_block_header) <= d->len) {
		struct npuprof_hostfmt_block_header bh;
		const uint8_t *payload = d->base + off + sizeof(bh);
		uint32_t where;

		memcpy(&bh, d->base + off, sizeof(bh));
		if (bh.magic != NPUPROF_HOSTFMT_BLOCK_MAGIC ||
		    (bh.size & (NPUPROF_HOSTFMT_ALIGN - 1)) ||
		    bh.size > d->len - off - sizeof(bh)) {
			off += NPUPROF_HOSTFMT_ALIGN;
			continue;
		}
		if (bh.tid == 0) {
			if (npuprof_hostfmt_block_crc(&bh, payload) != bh.crc ||
			    check_records(payload, bh.size, &where)) {
				off += NPUPROF_HOSTFMT_ALIGN;
				continue;
			}
			for (uint32_t r = 0; r < bh.size;) {
				const struct npuprof_hostfmt_header *rec = (const void *)(payload +
											  r);
				uint64_t at = off + sizeof(bh) + r;

				r += rec->size;
				if (rec->kind == NPUPROF_HOSTFMT_CLOCK_RAW) {
					const struct npuprof_hostfmt_clock_raw *w = (const void *)
						rec;

					if (clk_add(&d->raw, w->raw_ns, w->monotonic_ns, at))
						return -ENOMEM;
					continue;
				}
				if (rec->kind != NPUPROF_HOSTFMT_CLOCK)
					continue;
				const struct npuprof_hostfmt_clock *c = (const void *)rec;

				if ((c->tsc && clk_add(&d->clk, c->tsc, c->monotonic_ns, at)) ||
				    (c->ref_tsc && clk_add(&d->clk, c->ref_tsc, c->ref_ns, at)))
					return -ENOMEM;
			}
		}
		off += sizeof(bh) + bh.size;
		if (d->mapped)
			drop_behind(d->base, &dropped, d->base + off);
	}
	if (d->mapped && d->len)
		madvise((void *)d->base, d->len, MADV_DONTNEED);
	bad = clk_finish(&d->clk, &bad_off);
	if (bad)
		problem(d, bad_off,
			"%" PRIu64 " clock pair(s) out of order with the others (ignored)", bad);
	bad = clk_finish(&d->raw, &bad_off);
	if (bad)
		problem(d, bad_off,
			"%" PRIu64 " CLOCK_RAW pair(s) out of order with the others (ignored)",
			bad);
	d->st->clock_pairs = d->clk.n + d->raw.n;
	return 0;
}

/* The converted copy of a flagged record, or NULL (*ret set on ENOMEM). */
static const struct npuprof_hostfmt_header *convert(struct dec *d,
						    const struct npuprof_hostfmt_header *rec,
						    int *ret)
{
	if (rec->size > d->cvt_cap) {
		size_t ncap = d->cvt_cap ? d->cvt_cap : 256;
		uint8_t *n;

		while (ncap < rec->size)
			ncap *= 2;
		n = realloc(d->cvt, ncap);
		if (!n) {
			*ret = -ENOMEM;
			return NULL;
		}
		d->cvt = n;
		d->cvt_cap = ncap;
	}
	memcpy(d->cvt, rec, rec->size);
	if (clk_record(&d->clk, (void *)d->cvt))
		return NULL;
	return (const void *)d->cvt;
}

static int is_msprof_kind(uint16_t kind)
{
	return kind >= NPUPROF_HOSTFMT_MSPROF_API && kind <= NPUPROF_HOSTFMT_MSPROF_ADDITIONAL;
}

/* One MsprofSysCycleTime value to CLOCK_MONOTONIC ns; 0 (absent) stays 0. */
static int cann_time(const struct dec *d, int tsc, uint64_t *t)
{
	if (!*t)
		return 0;
	return clk_convert(tsc ? &d->clk : &d->raw, *t, t);
}

/* The converted copy of a CANN report, or NULL with *why set (a bad report:
 * wrong magic, a dataLen beyond its data area, a time that does not
 * convert) or *ret (ENOMEM). */
static const struct npuprof_hostfmt_header *convert_msprof(struct dec *d,
							   const struct npuprof_hostfmt_header *rec,
							   int *ret, char *why, size_t whylen)
{
	struct npuprof_hostfmt_msprof *m;
	int tsc = (rec->reserved & NPUPROF_HOSTFMT_F_TSC) != 0;
	uint16_t magic;
	int bad = 0;

	if (rec->size > d->cvt_cap) {
		size_t ncap = d->cvt_cap ? d->cvt_cap : 512;
		uint8_t *n;

		while (ncap < rec->size)
			ncap *= 2;
		n = realloc(d->cvt, ncap);
		if (!n) {
			*ret = -ENOMEM;
			return NULL;
		}
		d->cvt = n;
		d->cvt_cap = ncap;
	}
	memcpy(d->cvt, rec, rec->size);
	m = (void *)d->cvt;
	memcpy(&magic, m->data, sizeof(magic));
	if (magic != MSPROF_REPORT_DATA_MAGIC_NUM) {
		snprintf(why, whylen, "CANN report with magic 0x%04x (not 0x%04x)", magic,
			 MSPROF_REPORT_DATA_MAGIC_NUM);
		return NULL;
	}
	switch (rec->kind) {
	case NPUPROF_HOSTFMT_MSPROF_API: {
		struct MsprofApi a;

		memcpy(&a, m->data, sizeof(a));
		bad = cann_time(d, tsc, &a.beginTime) || cann_time(d, tsc, &a.endTime);
		memcpy(m->data, &a, sizeof(a));
		break;
	}
	case NPUPROF_HOSTFMT_MSPROF_EVENT: {
		struct MsprofEvent e;

		memcpy(&e, m->data, sizeof(e));
		bad = cann_time(d, tsc, &e.timeStamp);
		memcpy(m->data, &e, sizeof(e));
		break;
	}
	case NPUPROF_HOSTFMT_MSPROF_COMPACT:
	case NPUPROF_HOSTFMT_MSPROF_ADDITIONAL: {
		/* the two share their head: magic .. timeStamp */
		struct MsprofAdditionalInfo x;
		uint32_t area = rec->kind == NPUPROF_HOSTFMT_MSPROF_COMPACT ?
					MSPROF_COMPACT_INFO_DATA_LENGTH :
					MSPROF_ADDTIONAL_INFO_DATA_LENGTH;

		_Static_assert(offsetof(struct MsprofCompactInfo, data) ==
					       offsetof(struct MsprofAdditionalInfo, data) &&
				       offsetof(struct MsprofCompactInfo, timeStamp) ==
					       offsetof(struct MsprofAdditionalInfo, timeStamp),
			       "compact and additional heads");
		memcpy(&x, m->data, offsetof(struct MsprofAdditionalInfo, data));
		if (x.dataLen > area) {
			snprintf(why, whylen, "CANN report with dataLen %u beyond its %u-byte data",
				 x.dataLen, area);
			return NULL;
		}
		bad = cann_time(d, tsc, &x.timeStamp);
		memcpy(m->data, &x, offsetof(struct MsprofAdditionalInfo, data));
		break;
	}
	}
	if (bad) {
		snprintf(
			why, whylen, "%s",
			(tsc ? d->clk.n : d->raw.n) < 2 ?
				(tsc ? "CANN report in TSC ticks without clock pairs to convert them" :
				       "CANN report without CLOCK_RAW pairs to convert its times") :
				"CANN report time does not convert to CLOCK_MONOTONIC ns");
		return NULL;
	}
	m->h.reserved &= (uint16_t)~NPUPROF_HOSTFMT_F_TSC;
	return (const void *)d->cvt;
}

static int is_stamp_kind(uint16_t kind)
{
	return kind == NPUPROF_HOSTFMT_TX ||
	       (kind >= NPUPROF_HOSTFMT_STAMP_MARK && kind <= NPUPROF_HOSTFMT_MSTX_END);
}

static int decode(const void *data, size_t len, const char *name, npuprof_hostread_record_fn fn,
		  void *ctx, struct npuprof_hostread_file_info *info,
		  struct npuprof_hostread_decode_stats *stats, char *err, size_t errlen, int mapped)
{
	struct npuprof_hostread_decode_stats local_st;
	struct npuprof_hostfmt_file_header fh;
	struct dec d;
	uint8_t *copy = NULL;
	uint64_t off, expect_seq = 0;
	int ret = 0, resynced = 0, clk_done = 0;

	if (!stats)
		stats = &local_st;
	memset(stats, 0, sizeof(*stats));
	if (err && errlen)
		err[0] = '\0';
	if (!name)
		name = "<buffer>";
	if (!data && len)
		return -EINVAL;
	/* Records are read in place as structs, so they must be 8-aligned. */
	if ((uintptr_t)data & (NPUPROF_HOSTFMT_ALIGN - 1)) {
		copy = malloc(len ? len : 1);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, data, len);
		data = copy;
	}
	d = (struct dec){ .base = data,
			  .len = len,
			  .name = name,
			  .st = stats,
			  .err = err,
			  .errlen = errlen,
			  .mapped = mapped && !copy };

	if (len < sizeof(fh)) {
		problem(&d, 0, "file header truncated (%zu of %zu bytes)", len, sizeof(fh));
		ret = -EINVAL;
		goto out;
	}
	memcpy(&fh, data, sizeof(fh));
	if (memcmp(fh.magic, NPUPROF_HOSTFMT_MAGIC, sizeof(NPUPROF_HOSTFMT_MAGIC)) != 0) {
		problem(&d, 0, "not an npuprof host stream (bad magic)");
		ret = -EINVAL;
		goto out;
	}
	if (fh.byte_order != NPUPROF_HOSTFMT_BYTE_ORDER) {
		problem(&d, offsetof(struct npuprof_hostfmt_file_header, byte_order),
			"foreign byte order");
		ret = -EINVAL;
		goto out;
	}
	if (fh.version != NPUPROF_HOSTFMT_VERSION) {
		problem(&d, offsetof(struct npuprof_hostfmt_file_header, version),
			"unsupported version %u (expected %u)", fh.version,
			NPUPROF_HOSTFMT_VERSION);
		ret = -EINVAL;
		goto out;
	}
	if (fh.header_size < sizeof(fh) || (fh.header_size & (NPUPROF_HOSTFMT_ALIGN - 1)) ||
	    fh.header_size > len) {
		problem(&d, offsetof(struct npuprof_hostfmt_file_header, header_size),
			"bad header size %u", fh.header_size);
		ret = -EINVAL;
		goto out;
	}
	fh.hostname[sizeof(fh.hostname) - 1] = '\0';
	if (info) {
		info->header = fh;
		info->file_size = len;
	}

	off = fh.header_size;
	if (fh.flags & NPUPROF_HOSTFMT_F_TSC) {
		ret = collect_clock(&d, off);
		if (ret)
			goto out;
		clk_done = 1;
	}
	while (off < len) {
		struct npuprof_hostfmt_block_header bh;
		const uint8_t *payload;
		const char *why;
		uint32_t bad;
		uint64_t next;

		if (len - off < sizeof(bh)) {
			problem(&d, off,
				"truncated block header (%" PRIu64 " bytes at end of file)",
				(uint64_t)(len - off));
			stats->skipped_bytes += len - off;
			break;
		}
		memcpy(&bh, d.base + off, sizeof(bh));
		if (bh.magic != NPUPROF_HOSTFMT_BLOCK_MAGIC ||
		    (bh.size & (NPUPROF_HOSTFMT_ALIGN - 1))) {
			problem(&d, off, "bad block header");
			goto damaged;
		}
		if (bh.size > len - off - sizeof(bh)) {
			next = resync(&d, off + NPUPROF_HOSTFMT_ALIGN);
			if (next == len) {
				/* Nothing valid follows: the file ends inside this block. */
				problem(&d, off, "truncated block (%" PRIu64 " of %u bytes)",
					(uint64_t)(len - off - sizeof(bh)), bh.size);
				stats->bad_blocks++;
				stats->skipped_bytes += len - off;
				break;
			}
			problem(&d, off, "block size %u runs past a later block", bh.size);
			resynced = 1;
			stats->bad_blocks++;
			stats->skipped_bytes += next - off;
			off = next;
			continue;
		}
		payload = d.base + off + sizeof(bh);
		if (npuprof_hostfmt_block_crc(&bh, payload) != bh.crc) {
			problem(&d, off, "block CRC mismatch");
			goto damaged;
		}
		why = check_records(payload, bh.size, &bad);
		if (why) {
			problem(&d, off + sizeof(bh) + bad, "%s", why);
			goto damaged;
		}
		/* After damage the skipped bytes are already reported; only a gap
         * between two intact blocks means blocks are missing. */
		if (bh.seq != expect_seq && !resynced)
			problem(&d, off,
				"block sequence %" PRIu64 ", expected %" PRIu64 " (blocks missing)",
				bh.seq, expect_seq);
		expect_seq = bh.seq + 1;
		resynced = 0;
		stats->blocks++;
		stats->lost += bh.lost;
		for (uint32_t r = 0; r < bh.size;) {
			const struct npuprof_hostfmt_header *rec = (const void *)(payload + r);
			uint64_t at = off + sizeof(bh) + r;

			r += rec->size;
			if (rec->kind == NPUPROF_HOSTFMT_PAD)
				continue;
			if (is_msprof_kind(rec->kind)) {
				char why[128];

				/* CANN reports carry CLOCK_MONOTONIC_RAW ns: the
				 * stream's pairs, collected at the first one */
				if (!clk_done) {
					clk_done = 1;
					ret = collect_clock(&d, fh.header_size);
					if (ret)
						goto out;
				}

				rec = convert_msprof(&d, rec, &ret, why, sizeof(why));
				if (ret)
					goto out;
				if (!rec) {
					problem(&d, at, "%s", why);
					stats->bad_records++;
					continue;
				}
			} else if ((rec->reserved & NPUPROF_HOSTFMT_F_TSC) &&
				   is_stamp_kind(rec->kind)) {
				rec = convert(&d, rec, &ret);
				if (ret)
					goto out;
				if (!rec) {
					problem(&d, at,
						d.clk.n < 2 ?
							"TSC times without clock pairs to convert them" :
							"TSC time does not convert to CLOCK_MONOTONIC ns");
					stats->bad_records++;
					continue;
				}
			}
			if (rec->kind == NPUPROF_HOSTFMT_END)
				stats->closed = 1;
			stats->records++;
			if (fn) {
				ret = fn(ctx, &bh, rec);
				if (ret)
					goto out;
			}
		}
		off += sizeof(bh) + bh.size;
		continue;
damaged:
		resynced = 1;
		next = resync(&d, off + NPUPROF_HOSTFMT_ALIGN);
		stats->bad_blocks += blocks_in(&d, off, next);
		stats->skipped_bytes += next - off;
		off = next;
	}
	if (!stats->closed)
		problem(&d, len,
			"no END record: the stream was truncated, or its process is still running or died");
	if (stats->problems)
		ret = NPUPROF_HOSTREAD_EDAMAGED;
out:
	free(d.clk.p);
	free(d.raw.p);
	free(d.cvt);
	free(copy);
	return ret;
}

int npuprof_hostread_decode_buffer(const void *data, size_t len, const char *name,
				   npuprof_hostread_record_fn fn, void *ctx,
				   struct npuprof_hostread_file_info *info,
				   struct npuprof_hostread_decode_stats *stats, char *err,
				   size_t errlen)
{
	return decode(data, len, name, fn, ctx, info, stats, err, errlen, 0);
}

int npuprof_hostread_decode_mapping(const void *map, size_t len, const char *name,
				    npuprof_hostread_record_fn fn, void *ctx,
				    struct npuprof_hostread_file_info *info,
				    struct npuprof_hostread_decode_stats *stats, char *err,
				    size_t errlen)
{
	return decode(map, len, name, fn, ctx, info, stats, err, errlen, 1);
}

/*
 * The file is mapped and decoded in place; the pages behind the decoder are
 * given back as it goes (MADV_DONTNEED on a private read-only file mapping
 * only drops this process's view: a page read again comes back from the
 * file), so a stream of any size costs a bounded window of memory.
 */
struct window {
	npuprof_hostread_record_fn fn;
	void *ctx;
	const uint8_t *map, *dropped; /* dropped: pages below are given back */
	size_t len;
};

static int windowed(void *vctx, const struct npuprof_hostfmt_block_header *block,
		    const struct npuprof_hostfmt_header *rec)
{
	struct window *w = vctx;
	const uint8_t *at = (const uint8_t *)rec;

	/* (a converted record is a copy outside the mapping) */
	if (at >= w->map && at < w->map + w->len)
		drop_behind(w->map, &w->dropped, at);
	return w->fn(w->ctx, block, rec);
}

int npuprof_hostread_decode(const char *path, npuprof_hostread_record_fn fn, void *ctx,
			    struct npuprof_hostread_file_info *info,
			    struct npuprof_hostread_decode_stats *stats, char *err, size_t errlen)
{
	struct window win = { fn, ctx, NULL, NULL, 0 };

	struct stat st;
	void *map = NULL;
	int fd, ret;

	if (err && errlen)
		err[0] = '\0';
	if (!path)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		if (err && errlen)
			snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		if (err && errlen)
			snprintf(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			ret = -errno;
			close(fd);
			if (err && errlen)
				snprintf(err, errlen, "%s: cannot map: %s", path, strerror(-ret));
			return ret;
		}
	}
	close(fd);
	if (map) {
		madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
		win.map = win.dropped = map;
		win.len = (size_t)st.st_size;
	}
	ret = decode(map ? map : "", (size_t)st.st_size, path, map && fn ? windowed : fn,
		     map ? (void *)&win : ctx, info, stats, err, errlen, map != NULL);
	if (map)
		munmap(map, (size_t)st.st_size);
	return ret;
}
