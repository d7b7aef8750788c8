/*
 * jsontop.h - the top-level members of a JSON object, strictly (RFC 8259):
 * for profiler_metadata.json, whose every top-level key torch_npu copies
 * into META_DATA (name = the key, value = the JSON text of its value).
 *
 * The whole text is validated before anything is returned: one object,
 * nothing but white space around it, strings without raw control
 * characters and with valid escapes (\uXXXX surrogates paired), numbers in
 * JSON's grammar, true/false/null, nesting at most JSONTOP_MAX_DEPTH deep,
 * valid UTF-8. A key given twice keeps its last value, as Python's json
 * reads it, at the position of its first.
 */
#ifndef NPUPROF_EXPORT_JSONTOP_H
#define NPUPROF_EXPORT_JSONTOP_H

#include <stddef.h>

#define JSONTOP_MAX_DEPTH 512

struct jsontop_member {
	char *key; /* decoded (UTF-8), NUL-terminated */
	size_t key_len; /* bytes, without the NUL (a key may hold \u0000) */
	const char *value; /* the value's text inside the buffer ... */
	size_t value_len; /* ... without surrounding white space */
};

struct jsontop {
	struct jsontop_member *m;
	size_t n;
};

/* Splits buf[0..len). Returns 0, -EINVAL with "offset N: what" in err for
 * text that is not a JSON object, or -ENOMEM. The members point into buf. */
int jsontop_parse(const char *buf, size_t len, struct jsontop *out, char *err, size_t errlen);
void jsontop_free(struct jsontop *t);

#endif
