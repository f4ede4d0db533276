// SPDX-License-Identifier: GPL-2.0-only
/* Linear probing with backward-shift deletion (no tombstones), load <= 1/2. */
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
	while (cap < max_items * 2)
		cap *= 2;
	t->cap = cap;
	t->value_size = value_size;
	t->max_items = max_items;
	t->keys = table_alloc(cap * sizeof(*t->keys));
	t->used = table_alloc(cap);
	t->values = table_alloc(cap * value_size);
	if (!t->keys || !t->used || !t->values) {
		ktable_free(t);
		return -ENOMEM;
	}
	return 0;
}

void ktable_free(struct ktable *t)
{
	table_release(t->keys, t->cap * sizeof(*t->keys));
	table_release(t->used, t->cap);
	table_release(t->values, t->cap * t->value_size);
	memset(t, 0, sizeof(*t));
}

static size_t find(const struct ktable *t, uint64_t key, bool *found)
{
	size_t i = slot_of(t, key);

	while (t->used[i]) {
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

	return found ? ktable_value_at(t, i) : NULL;
}

void *ktable_upsert(struct ktable *t, uint64_t key, bool *created)
{
	bool found;
	size_t i = find(t, key, &found);

	*created = false;
	if (found)
		return ktable_value_at(t, i);
	if (t->count >= t->max_items)
		return NULL;
	t->used[i] = 1;
	t->keys[i] = key;
	memset(ktable_value_at(t, i), 0, t->value_size);
	t->count++;
	*created = true;
	return ktable_value_at(t, i);
}

void ktable_remove(struct ktable *t, uint64_t key)
{
	bool found;
	size_t i = find(t, key, &found);

	if (!found)
		return;
	t->used[i] = 0;
	t->count--;
	for (size_t j = (i + 1) & (t->cap - 1); t->used[j]; j = (j + 1) & (t->cap - 1)) {
		size_t home = slot_of(t, t->keys[j]);
		bool movable = (j > i) ? (home <= i || home > j) : (home <= i && home > j);
		if (!movable)
			continue;
		t->keys[i] = t->keys[j];
		memcpy(ktable_value_at(t, i), ktable_value_at(t, j), t->value_size);
		t->used[i] = 1;
		t->used[j] = 0;
		i = j;
	}
}
