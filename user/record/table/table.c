// SPDX-License-Identifier: GPL-2.0-only
/* The index: linear probing with backward-shift deletion (no tombstones),
 * load <= 1/2; it moves slab positions, never values.  The slab: a free
 * list, LIFO, so the positions in use stay low and their pages few. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "table.h"

static size_t slot_of(const struct ktable *t, uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (t->cap - 1);
}

/* Zeroed memory that becomes resident page by page as entries are used: a
 * table sized for the worst case costs what it holds, not its capacity.
 * Huge pages are refused for it: with THP "always" (Debian's default) one
 * touched entry would make 2 MiB resident, and a hash spreads entries over
 * the whole table (measured: 24 MiB resident for 200 threads). */
static void *table_alloc(size_t bytes)
{
	void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	madvise(m, bytes, MADV_NOHUGEPAGE); /* advice: a kernel without THP refuses it */
	return m;
}

static void table_release(void *m, size_t bytes)
{
	if (m)
		munmap(m, bytes);
}

int ktable_init(struct ktable *t, size_t max_items, size_t value_size)
{
	size_t cap = 16;

	memset(t, 0, sizeof(*t));
	if (max_items >= UINT32_MAX)
		return -EINVAL;
	while (cap < max_items * 2)
		cap *= 2;
	t->cap = cap;
	t->value_size = value_size;
	t->max_items = max_items;
	t->keys = table_alloc(cap * sizeof(*t->keys));
	t->slot = table_alloc(cap * sizeof(*t->slot));
	t->values = table_alloc((max_items ? max_items : 1) * value_size);
	t->vkeys = table_alloc((max_items ? max_items : 1) * sizeof(*t->vkeys));
	t->live = table_alloc(max_items ? max_items : 1);
	t->free_next = table_alloc((max_items ? max_items : 1) * sizeof(*t->free_next));
	if (!t->keys || !t->slot || !t->values || !t->vkeys || !t->live || !t->free_next) {
		ktable_free(t);
		return -ENOMEM;
	}
	return 0;
}

void ktable_free(struct ktable *t)
{
	size_t n = t->max_items ? t->max_items : 1;

	table_release(t->keys, t->cap * sizeof(*t->keys));
	table_release(t->slot, t->cap * sizeof(*t->slot));
	table_release(t->values, n * t->value_size);
	table_release(t->vkeys, n * sizeof(*t->vkeys));
	table_release(t->live, n);
	table_release(t->free_next, n * sizeof(*t->free_next));
	memset(t, 0, sizeof(*t));
}

static inline __attribute__((always_inline)) size_t find(const struct ktable *t, uint64_t key,
						      bool *found)
{
	size_t i = slot_of(t, key);

	while (t->slot[i]) {
		if (t->keys[i] == key) {
			*found = true;
			return i;
		}
		i = (i + 1) & (t->cap - 1);
	}
	*found = false;
	return i;
}

void *ktable_get(struct ktable *t, uint64_t key)
{
	bool found;
	size_t i = find(t, key, &found);

	return found ? ktable_value_at(t, t->slot[i] - 1) : NULL;
}

void *ktable_upsert(struct ktable *t, uint64_t key, bool *created)
{
	bool found;
	size_t i = find(t, key, &found), v;

	*created = false;
	if (found)
		return ktable_value_at(t, t->slot[i] - 1);
	if (t->count >= t->max_items)
		return NULL;
	if (t->free_head) {
		v = t->free_head - 1;
		t->free_head = t->free_next[v];
	} else {
		v = t->vtop++;
	}
	t->live[v] = 1;
	t->vkeys[v] = key;
	if (t->value_size == sizeof(uint64_t)) /* a u64 value: no call to memset */
		*(uint64_t *)ktable_value_at(t, v) = 0;
	else
		memset(ktable_value_at(t, v), 0, t->value_size);
	t->keys[i] = key;
	t->slot[i] = (uint32_t)v + 1;
	t->count++;
	*created = true;
	return ktable_value_at(t, v);
}

/* Frees index slot i (holding slab position v) and shifts back the
 * entries probing past it. */
static void remove_at(struct ktable *t, size_t i, size_t v)
{
	t->live[v] = 0;
	t->free_next[v] = t->free_head;
	t->free_head = (uint32_t)v + 1;
	t->slot[i] = 0;
	t->count--;
	for (size_t j = (i + 1) & (t->cap - 1); t->slot[j]; j = (j + 1) & (t->cap - 1)) {
		size_t home = slot_of(t, t->keys[j]);
		bool movable = (j > i) ? (home <= i || home > j) : (home <= i && home > j);
		if (!movable)
			continue;
		t->keys[i] = t->keys[j];
		t->slot[i] = t->slot[j];
		t->slot[j] = 0;
		i = j;
	}
}

void ktable_remove(struct ktable *t, uint64_t key)
{
	bool found;
	size_t i = find(t, key, &found);

	if (found)
		remove_at(t, i, t->slot[i] - 1);
}

bool ktable_take_u64(struct ktable *t, uint64_t key, uint64_t *out)
{
	bool found;
	size_t i = find(t, key, &found), v;

	if (!found)
		return false;
	v = t->slot[i] - 1;
	memcpy(out, ktable_value_at(t, v), sizeof(*out));
	remove_at(t, i, v);
	return true;
}
