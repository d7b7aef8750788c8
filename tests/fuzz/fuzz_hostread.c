/*
 * fuzz_hostread.c - the host stream decoder (user/export/hostread.c) on any
 * bytes: it must never read outside the input, and every record it hands
 * out must be framed and sized as its kind requires, and the msproftx / mstx
 * view of a record (npuprof_hostread_tx_event) must stay inside it.
 */
#include "fuzz_util.h"
#include "npuprof/hostread.h"

static int on_rec(void *ctx, const struct npuprof_hostfmt_block_header *b,
		  const struct npuprof_hostfmt_header *rec)
{
	uint64_t *sum = ctx;
	const uint8_t *p = (const void *)rec;

	/* touch every byte the decoder vouched for */
	for (uint32_t i = 0; i < rec->size; i++)
		*sum += p[i];
	*sum += b->seq;
	if (rec->size < sizeof(*rec) || rec->size % NPUPROF_HOSTFMT_ALIGN)
		abort();
	/* a msproftx / mstx event's message is NUL-terminated and, unless it
	 * is empty, lies inside its record */
	{
		struct npuprof_hostread_tx ev;

		if (npuprof_hostread_tx_event(b, rec, &ev) && ev.message &&
		    (ev.message[ev.r.msg_len] ||
		     (ev.r.msg_len && (ev.message < (const char *)p ||
				       ev.message + ev.r.msg_len >= (const char *)p + rec->size))))
			abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct npuprof_hostread_file_info info;
	struct npuprof_hostread_decode_stats st;
	char err[512];
	uint64_t sum = 0;
	int r;

	r = npuprof_hostread_decode_buffer(data, size, "fuzz", on_rec, &sum, &info, &st, err,
					   sizeof(err));
	if (r != 0 && r != NPUPROF_HOSTREAD_EDAMAGED && r >= 0)
		abort();
	if (r == NPUPROF_HOSTREAD_EDAMAGED && !err[0])
		abort(); /* damage is always explained */
	return 0;
}
