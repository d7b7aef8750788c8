/*
 * fuzz_str2id.c - aclprofStr2Id (user/recorder/str2id.c) on any string:
 * the id is CANN's hash of the bytes, stable across calls, and the
 * dictionary behind it survives any content and length.
 */
#include "fuzz_util.h"
#include "acl/acl_prof.h"
#include "aclprof_internal.h"
#include "hostrec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned calls;
	char *s = malloc(size + 1);
	uint64_t id;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	id = aclprofStr2Id(s);
	if (id != aclprofStr2Id(s) || id != npuprof_str2id_hash(s, strlen(s)))
		abort();
	free(s);
	if (++calls % 4096 == 0)
		npuprof_str2id_reset(); /* bound the dictionary */
	return 0;
}
