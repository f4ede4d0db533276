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
