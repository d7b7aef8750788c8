/*
 * test_u64map — the exporter's hash map (user/common/u64map.h) against a
 * plain reference: random inserts, replacements and deletions over a small
 * key space (so clusters form and backward-shift deletion moves entries),
 * the keys 0 and U64MAP_FREE (kept out of the table) among them, growth,
 * and iteration seeing every entry once.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "u64map.h"

#define NKEYS 3000

/* key i of the test: dense small ids, spread ids, and the two edges */
static uint64_t key_of(unsigned i)
{
	if (i == 0)
		return 0;
	if (i == 1)
		return U64MAP_FREE;
	if (i % 3 == 0)
		return i;
	return (uint64_t)i * 0x9e3779b97f4a7c15ULL;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void check_all(const struct u64map *m, const int *in, const uint64_t *val)
{
	size_t n = 0, pos = 0;
	uint64_t k, v;
	static int seen[NKEYS];

	for (unsigned i = 0; i < NKEYS; i++) {
		int got = u64map_get(m, key_of(i), &v);

		ck_assert_int_eq(got, in[i]);
		if (got)
			ck_assert_uint_eq(v, val[i]);
		n += in[i];
	}
	ck_assert_uint_eq(m->len, n);
	memset(seen, 0, sizeof(seen));
	while (u64map_next(m, &pos, &k, &v)) {
		unsigned i;

		for (i = 0; i < NKEYS && key_of(i) != k; i++)
			;
		ck_assert_uint_lt(i, NKEYS);
		ck_assert_int_eq(in[i], 1);
		ck_assert_int_eq(seen[i], 0);
		ck_assert_uint_eq(v, val[i]);
		seen[i] = 1;
		n--;
	}
	ck_assert_uint_eq(n, 0);
}

START_TEST(test_random_against_reference)
{
	static int in[NKEYS];
	static uint64_t val[NKEYS];
	struct u64map m;
	uint64_t s = 88172645463325252ULL;

	memset(in, 0, sizeof(in));
	u64map_init(&m);
	for (int step = 0; step < 200000; step++) {
		unsigned i = (unsigned)(rnd(&s) % NKEYS);
		uint64_t k = key_of(i), v = rnd(&s), old = 0;
		int op = (int)(rnd(&s) % 3);

		if (op < 2) {
			int r = u64map_swap(&m, k, v, &old);

			ck_assert_int_eq(r, in[i]);
			if (r == 1)
				ck_assert_uint_eq(old, val[i]);
			in[i] = 1;
			val[i] = v;
		} else {
			ck_assert_int_eq(u64map_del(&m, k), in[i]);
			in[i] = 0;
		}
		if (step % 20000 == 0)
			check_all(&m, in, val);
	}
	check_all(&m, in, val);
	/* emptied, the map finds nothing and iterates over nothing */
	for (unsigned i = 0; i < NKEYS; i++) {
		ck_assert_int_eq(u64map_del(&m, key_of(i)), in[i]);
		in[i] = 0;
	}
	check_all(&m, in, val);
	u64map_free(&m);
	ck_assert_int_eq(u64map_get(&m, 0, NULL), 0);
	ck_assert_int_eq(u64map_get(&m, U64MAP_FREE, NULL), 0);
}
END_TEST

START_TEST(test_edge_keys)
{
	struct u64map m;
	uint64_t v = 0;

	u64map_init(&m);
	ck_assert_int_eq(u64map_del(&m, U64MAP_FREE), 0);
	ck_assert_int_eq(u64map_put(&m, U64MAP_FREE, 7), 0);
	ck_assert_int_eq(u64map_put(&m, 0, 8), 0);
	ck_assert_uint_eq(m.len, 2);
	ck_assert_int_eq(u64map_get(&m, U64MAP_FREE, &v), 1);
	ck_assert_uint_eq(v, 7);
	ck_assert_int_eq(u64map_swap(&m, U64MAP_FREE, 9, &v), 1);
	ck_assert_uint_eq(v, 7);
	ck_assert_int_eq(u64map_get(&m, 0, &v), 1);
	ck_assert_uint_eq(v, 8);
	ck_assert_int_eq(u64map_del(&m, U64MAP_FREE), 1);
	ck_assert_int_eq(u64map_get(&m, U64MAP_FREE, NULL), 0);
	ck_assert_uint_eq(m.len, 1);
	u64map_free(&m);
}
END_TEST

Suite *unit_suite(void)
{
	Suite *s = suite_create("u64map");
	TCase *tc = tcase_create("u64map");

	tcase_add_test(tc, test_random_against_reference);
	tcase_add_test(tc, test_edge_keys);
	suite_add_tcase(s, tc);
	return s;
}
