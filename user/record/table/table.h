/* SPDX-License-Identifier: GPL-2.0-only */
/* Fixed-capacity hash table from a u64 key to a fixed-size value, for the
 * recorder's per-thread, per-process and per-request state.  Capacity is set
 * once: memory stays bounded whatever the capture length, and a full table
 * refuses inserts (the caller counts that as an eviction).  Only the pages
 * entries land on become resident.
 *
 * Values live in a slab of their own and never move: a value pointer stays
 * valid until its own key is removed, whatever else is inserted or removed,
 * and an iteration (ktable_each) may remove any entry, the current one
 * included, without skipping or repeating another.  The hash index beside
 * the slab (keys and slab positions, linear probing, load <= 1/2) is what
 * backward-shift deletion moves. */
#ifndef KATRA_RECORD_TABLE_H
#define KATRA_RECORD_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ktable {
	/* the index: cap slots */
	uint64_t *keys;
	uint32_t *slot;      /* slab position + 1; 0: an empty index slot */
	size_t cap;          /* power of two, at least twice max_items */
	/* the slab: max_items values */
	uint8_t *values;
	uint64_t *vkeys;     /* each value's key */
	uint8_t *live;       /* each value in use */
	uint32_t *free_next; /* free list through the slab (position + 1; 0 ends it) */
	uint32_t free_head;
	size_t vtop;         /* slab positions ever handed out: iteration's bound */
	size_t value_size;
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
/* Removes key; only its own value pointer becomes invalid. */
void ktable_remove(struct ktable *t, uint64_t key);
/* For a table of u64 values: copies key's value to *out and removes key
 * in one lookup; false (nothing changed) when key is absent. */
bool ktable_take_u64(struct ktable *t, uint64_t key, uint64_t *out);

/* Iteration over the slab: ktable_each(t, i) { v = ktable_value_at(t, i);
 * k = ktable_key_at(t, i); ... } visits every entry once, in no particular
 * order; removals inside it are safe. */
#define ktable_each(t, i) \
	for (size_t i = 0; i < (t)->vtop; i++) \
		if ((t)->live[i])
static inline void *ktable_value_at(struct ktable *t, size_t i)
{
	return t->values + i * t->value_size;
}
static inline uint64_t ktable_key_at(const struct ktable *t, size_t i)
{
	return t->vkeys[i];
}

#endif
