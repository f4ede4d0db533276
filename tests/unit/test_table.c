// SPDX-License-Identifier: GPL-2.0-only
/* The recorder's hash table (user/record/table/): values never move, so a
 * pointer held across another key's removal stays valid, and an iteration
 * may remove entries without skipping or repeating one. */
#include <criterion/criterion.h>
#include <stdint.h>

#include "record/table/table.h"

struct val {
	uint64_t key;
	uint64_t pad[3];
};

/* Keys that land on consecutive index slots: a run that backward-shift
 * deletion compacts when one of its early members goes. */
static size_t colliding_keys(struct ktable *t, uint64_t *out, size_t n)
{
	size_t got = 0;
	bool created;

	for (uint64_t k = 1; got < n && k < 100000; k++) {
		struct val *v = ktable_upsert(t, k, &created);
		cr_assert_not_null(v);
		v->key = k;
		out[got++] = k;
	}
	return got;
}

Test(table, pointer_survives_other_removals)
{
	struct ktable t;
	uint64_t keys[48];

	cr_assert_eq(ktable_init(&t, 64, sizeof(struct val)), 0);
	size_t n = colliding_keys(&t, keys, 48);
	struct val *held[48];
	for (size_t i = 0; i < n; i++)
		held[i] = ktable_get(&t, keys[i]);
	/* remove every other key; each held pointer of a remaining key must
	 * still hold its own key */
	for (size_t i = 0; i < n; i += 2)
		ktable_remove(&t, keys[i]);
	for (size_t i = 1; i < n; i += 2) {
		cr_assert_eq(held[i]->key, keys[i], "the value of key %llu moved",
			     (unsigned long long)keys[i]);
		cr_assert_eq(ktable_get(&t, keys[i]), held[i]);
	}
	for (size_t i = 0; i < n; i += 2)
		cr_assert_null(ktable_get(&t, keys[i]));
	ktable_free(&t);
}

Test(table, iteration_removes_safely)
{
	struct ktable t;
	uint64_t keys[60];
	unsigned seen[61] = { 0 };

	cr_assert_eq(ktable_init(&t, 64, sizeof(struct val)), 0);
	size_t n = colliding_keys(&t, keys, 60);
	ktable_each(&t, i) {
		struct val *v = ktable_value_at(&t, i);
		cr_assert_eq(v->key, ktable_key_at(&t, i));
		seen[v->key]++;
		if (v->key % 3)
			ktable_remove(&t, v->key);
	}
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(seen[keys[i]], 1, "key %llu visited %u times",
			     (unsigned long long)keys[i], seen[keys[i]]);
	cr_assert_eq(t.count, n / 3);
	/* freed positions are reused, and the table still refuses past its cap */
	bool created;
	for (uint64_t k = 1000; t.count < 64; k++)
		cr_assert_not_null(ktable_upsert(&t, k, &created));
	cr_assert_null(ktable_upsert(&t, 5000, &created));
	cr_assert_leq(t.vtop, 64);
	ktable_free(&t);
}

/* ktable_take_u64: the value given back and the key gone in one call, the
 * others still found (the index compacted as ktable_remove does it); an
 * absent key changes nothing. */
Test(table, take_gives_the_value_and_removes)
{
	struct ktable t;
	bool created;
	uint64_t out = 7;

	cr_assert_eq(ktable_init(&t, 64, sizeof(uint64_t)), 0);
	for (uint64_t k = 1; k <= 40; k++) {
		uint64_t *v = ktable_upsert(&t, k, &created);
		cr_assert(v && created && *v == 0);
		*v = k * 100;
	}
	cr_assert_not(ktable_take_u64(&t, 999, &out));
	cr_assert_eq(out, 7);
	cr_assert_eq(t.count, 40);
	for (uint64_t k = 1; k <= 40; k += 2) {
		cr_assert(ktable_take_u64(&t, k, &out));
		cr_assert_eq(out, k * 100);
		cr_assert_not(ktable_take_u64(&t, k, &out));
	}
	cr_assert_eq(t.count, 20);
	for (uint64_t k = 2; k <= 40; k += 2) {
		uint64_t *v = ktable_get(&t, k);
		cr_assert(v && *v == k * 100, "key %llu lost", (unsigned long long)k);
	}
	/* a slot freed by a take is reused zeroed */
	uint64_t *v = ktable_upsert(&t, 1, &created);
	cr_assert(v && created && *v == 0);
	ktable_free(&t);
}
