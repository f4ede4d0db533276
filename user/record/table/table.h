/* SPDX-License-Identifier: GPL-2.0-only */
/* Fixed-capacity hash table from a u64 key to a fixed-size value, for the
 * recorder's per-thread, per-process and per-request state.  Capacity is set
 * once: memory stays bounded whatever the capture length, and a full table
 * refuses inserts (the caller counts that as an eviction).  Only the pages
 * entries land on become resident. */
#ifndef KATRA_RECORD_TABLE_H
#define KATRA_RECORD_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ktable {
	uint64_t *keys;
	uint8_t *used;
	uint8_t *values;
	size_t value_size;
	size_t cap;   /* power of two, twice max_items */
	size_t count;
	size_t max_items;
};

int ktable_init(struct ktable *t, size_t max_items, size_t value_size);
void ktable_free(struct ktable *t);
/* Value for key, or NULL. */
void *ktable_get(struct ktable *t, uint64_t key);
/* Value for key, inserted zeroed when absent; NULL when the table is full.
 * *created tells whether it was inserted now. */
void *ktable_upsert(struct ktable *t, uint64_t key, bool *created);
/* Backward-shift deletion: removing one key can move another entry, so a
 * value pointer taken before a remove is stale after it (look it up again). */
void ktable_remove(struct ktable *t, uint64_t key);
/* Iteration: for (size_t i = 0; i < t->cap; i++) if (t->used[i]) ... */
static inline void *ktable_value_at(struct ktable *t, size_t i)
{
	return t->values + i * t->value_size;
}

#endif
