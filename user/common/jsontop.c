/*
 * jsontop.c - the top-level members of a JSON object (jsontop.h).
 */
#include "jsontop.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jp {
	const unsigned char *s;
	size_t len, pos;
	char *err;
	size_t errlen;
	int failed;
};

static int bad(struct jp *p, const char *what)
{
	if (!p->failed && p->err && p->errlen)
		snprintf(p->err, p->errlen, "offset %zu: %s", p->pos, what);
	p->failed = 1;
	return -EINVAL;
}

static void ws(struct jp *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
				   p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
		p->pos++;
}

static int hex4(struct jp *p, unsigned *v)
{
	*v = 0;
	if (p->len - p->pos < 4)
		return bad(p, "truncated \\u escape");
	for (int i = 0; i < 4; i++) {
		unsigned c = p->s[p->pos + i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return bad(p, "bad hex digit in a \\u escape");
		*v = *v << 4 | d;
	}
	p->pos += 4;
	return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* One UTF-8 sequence at pos (its first byte >= 0x80): its length, or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0], cp, need;

	if (c >= 0xc2 && c <= 0xdf)
		need = 1, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		need = 2, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		need = 3, cp = c & 0x07;
	else
		return 0;
	if (n < need + 1)
		return 0;
	for (unsigned i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((need == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (need == 3 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return need + 1;
}

/* A string at pos ('"'); decoded into *out (malloc'd) when out != NULL. */
static int string(struct jp *p, char **out, size_t *outlen)
{
	size_t start = ++p->pos, n = 0;
	char *o = NULL;

	if (out) {
		/* decoded is never longer than the text (\uXXXX: 6 -> at most 3,
		 * a surrogate pair: 12 -> 4) */
		o = malloc(p->len - start + 1);
		if (!o)
			return -ENOMEM;
	}
	for (;;) {
		unsigned c;

		if (p->pos >= p->len) {
			free(o);
			return bad(p, "unterminated string");
		}
		c = p->s[p->pos];
		if (c == '"') {
			p->pos++;
			break;
		}
		if (c < 0x20) {
			free(o);
			return bad(p, "control character in a string");
		}
		if (c == '\\') {
			unsigned e, cp;

			if (++p->pos >= p->len) {
				free(o);
				return bad(p, "unterminated string");
			}
			e = p->s[p->pos++];
			switch (e) {
			case '"': cp = '"'; break;
			case '\\': cp = '\\'; break;
			case '/': cp = '/'; break;
			case 'b': cp = '\b'; break;
			case 'f': cp = '\f'; break;
			case 'n': cp = '\n'; break;
			case 'r': cp = '\r'; break;
			case 't': cp = '\t'; break;
			case 'u':
				if (hex4(p, &cp) < 0) {
					free(o);
					return -EINVAL;
				}
				if (cp >= 0xdc00 && cp <= 0xdfff) {
					free(o);
					return bad(p, "unpaired low surrogate");
				}
				if (cp >= 0xd800 && cp <= 0xdbff) {
					unsigned lo;

					if (p->len - p->pos < 2 || p->s[p->pos] != '\\' ||
					    p->s[p->pos + 1] != 'u') {
						free(o);
						return bad(p, "unpaired high surrogate");
					}
					p->pos += 2;
					if (hex4(p, &lo) < 0) {
						free(o);
						return -EINVAL;
					}
					if (lo < 0xdc00 || lo > 0xdfff) {
						free(o);
						return bad(p, "unpaired high surrogate");
					}
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				}
				break;
			default:
				p->pos--;
				free(o);
				return bad(p, "bad escape in a string");
			}
			if (o)
				n += put_utf8(o + n, cp);
			continue;
		}
		if (c >= 0x80) {
			size_t k = utf8_seq(p->s + p->pos, p->len - p->pos);

			if (!k) {
				free(o);
				return bad(p, "invalid UTF-8 in a string");
			}
			if (o)
				memcpy(o + n, p->s + p->pos, k);
			n += k;
			p->pos += k;
			continue;
		}
		if (o)
			o[n] = (char)c;
		n++;
		p->pos++;
	}
	if (o) {
		o[n] = 0;
		*out = o;
		*outlen = n;
	}
	return 0;
}

static int digits(struct jp *p)
{
	size_t s = p->pos;

	while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
		p->pos++;
	return p->pos > s ? 0 : bad(p, "digit expected in a number");
}

static int number(struct jp *p)
{
	if (p->s[p->pos] == '-')
		p->pos++;
	if (p->pos < p->len && p->s[p->pos] == '0')
		p->pos++;
	else if (digits(p) < 0)
		return -EINVAL;
	if (p->pos < p->len && p->s[p->pos] == '.') {
		p->pos++;
		if (digits(p) < 0)
			return -EINVAL;
	}
	if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
		p->pos++;
		if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
			p->pos++;
		if (digits(p) < 0)
			return -EINVAL;
	}
	return 0;
}

static int word(struct jp *p, const char *w)
{
	size_t n = strlen(w);

	if (p->len - p->pos < n || memcmp(p->s + p->pos, w, n))
		return bad(p, "unexpected character");
	p->pos += n;
	return 0;
}

static int value(struct jp *p, int depth);

/* An array or an object at pos; members of the top level into t. */
static int container(struct jp *p, int depth, struct jsontop *t)
{
	int obj = p->s[p->pos] == '{';
	char close = obj ? '}' : ']';
	int r;

	if (depth >= JSONTOP_MAX_DEPTH)
		return bad(p, "nested too deep");
	p->pos++;
	ws(p);
	if (p->pos < p->len && p->s[p->pos] == close) {
		p->pos++;
		return 0;
	}
	for (;;) {
		char *key = NULL;
		size_t klen = 0, vs;

		ws(p);
		if (obj) {
			if (p->pos >= p->len || p->s[p->pos] != '"')
				return bad(p, "member name expected");
			r = string(p, t ? &key : NULL, &klen);
			if (r < 0)
				return r;
			ws(p);
			if (p->pos >= p->len || p->s[p->pos] != ':') {
				free(key);
				return bad(p, "':' expected");
			}
			p->pos++;
			ws(p);
		}
		vs = p->pos;
		r = value(p, depth + 1);
		if (r < 0) {
			free(key);
			return r;
		}
		if (t) {
			size_t i;

			for (i = 0; i < t->n; i++)
				if (t->m[i].key_len == klen && !memcmp(t->m[i].key, key, klen))
					break;
			if (i < t->n) { /* again: the last value wins */
				free(key);
			} else {
				struct jsontop_member *m = realloc(t->m, (t->n + 1) * sizeof(*m));

				if (!m) {
					free(key);
					return -ENOMEM;
				}
				t->m = m;
				t->m[t->n].key = key;
				t->m[t->n].key_len = klen;
				t->n++;
			}
			t->m[i].value = (const char *)p->s + vs;
			t->m[i].value_len = p->pos - vs;
		}
		ws(p);
		if (p->pos >= p->len)
			return bad(p, obj ? "unterminated object" : "unterminated array");
		if (p->s[p->pos] == close) {
			p->pos++;
			return 0;
		}
		if (p->s[p->pos] != ',')
			return bad(p, obj ? "',' or '}' expected" : "',' or ']' expected");
		p->pos++;
	}
}

static int value(struct jp *p, int depth)
{
	if (p->pos >= p->len)
		return bad(p, "value expected");
	switch (p->s[p->pos]) {
	case '{':
	case '[': return container(p, depth, NULL);
	case '"': return string(p, NULL, NULL);
	case 't': return word(p, "true");
	case 'f': return word(p, "false");
	case 'n': return word(p, "null");
	default:
		if (p->s[p->pos] == '-' || (p->s[p->pos] >= '0' && p->s[p->pos] <= '9'))
			return number(p);
		return bad(p, "value expected");
	}
}

void jsontop_free(struct jsontop *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->m[i].key);
	free(t->m);
	t->m = NULL;
	t->n = 0;
}

int jsontop_parse(const char *buf, size_t len, struct jsontop *out, char *err, size_t errlen)
{
	struct jp p = { (const unsigned char *)buf, len, 0, err, errlen, 0 };
	int r;

	out->m = NULL;
	out->n = 0;
	if (err && errlen)
		err[0] = 0;
	ws(&p);
	if (p.pos >= p.len || p.s[p.pos] != '{')
		r = bad(&p, "a JSON object expected");
	else
		r = container(&p, 0, out);
	if (r == 0) {
		ws(&p);
		if (p.pos != p.len)
			r = bad(&p, "text after the object");
	}
	if (r < 0) {
		if (r == -ENOMEM && err && errlen)
			snprintf(err, errlen, "out of memory");
		jsontop_free(out);
	}
	return r;
}
