/*
 * fuzz_rawkern.c - the raw kernel stream reader (user/capture/rawkern.c) on
 * any bytes: only well-formed records reach the callback, every corrupt one
 * is counted, and damage is always explained.
 */
#include "fuzz_util.h"
#include "npuprof/rawkern.h"

static int on_rec(void *ctx, const struct npuprof_record *r)
{
	uint64_t *n = ctx;

	if (r->hdr.size != NPUPROF_RECORD_SIZE || !r->hdr.type ||
	    r->hdr.type >= NPUPROF_REC_TYPE_MAX)
		abort();
	(*n)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct npuprof_rawk_info info;
	char path[128], err[1024];
	uint64_t n = 0;
	long r;

	snprintf(path, sizeof(path), "%s/k.raw", fuzz_scratch());
	fuzz_write(path, data, size);
	r = npuprof_rawk_read(path, on_rec, &n, &info, err, sizeof(err));
	if (r >= 0) {
		uint64_t whole = size >= NPUPROF_RAWK_HDR_SIZE ?
					 (size - NPUPROF_RAWK_HDR_SIZE) / NPUPROF_RECORD_SIZE :
					 0;

		/* every 64-byte slot is a delivered record, a bad one, or a
		 * checksum record (intact or damaged) */
		if ((uint64_t)r != n || n + info.bad_records + info.sums + info.bad_sums != whole)
			abort(); /* a record neither delivered nor counted */
		if ((info.bad_records || info.trailing_bytes) && !err[0])
			abort();
	} else if (!err[0]) {
		abort();
	}
	return 0;
}
