/* SPDX-License-Identifier: GPL-2.0-only */
/* A bounded hash map from a fixed-size key to a fixed-size value (both a
 * multiple of 8 bytes, keys compared bytewise: give keys no padding), open
 * addressing with linear probing and backward-shift deletion like idmap.h,
 * for the stats views whose entries carry more than two numbers.  It grows
 * up to max_len entries and no further.  Value pointers stay valid until the
 * next insertion or removal. */
#ifndef KATRA_REPLAY_XMAP_H
#define KATRA_REPLAY_XMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kr_xmap {
	uint8_t *slots;
	size_t cap, len, max_len;
	size_t key_size, val_size, slot_size;
};

void kr_xmap_init(struct kr_xmap *m, size_t key_size, size_t val_size, size_t max_len);
void kr_xmap_free(struct kr_xmap *m);
/* The value stored under key, or NULL. */
void *kr_xmap_find(const struct kr_xmap *m, const void *key);
/* The value under key, created zeroed when absent (*created says which);
 * NULL when the map is full or memory ran out. */
void *kr_xmap_get(struct kr_xmap *m, const void *key, bool *created);
/* Removes the entry whose value find/get returned. */
void kr_xmap_remove(struct kr_xmap *m, void *val);
/* The key of an entry, from its value pointer. */
const void *kr_xmap_key(const struct kr_xmap *m, const void *val);
/* Values in slot order: start with *it = 0; NULL at the end. */
void *kr_xmap_next(const struct kr_xmap *m, size_t *it);
/* A malloc'd array of the values' pointers sorted by cmp (a qsort comparator
 * on two `void *const *`); NULL with *n = 0 when empty or out of memory. */
void **kr_xmap_sorted(const struct kr_xmap *m, size_t *n,
		      int (*cmp)(const void *, const void *));

#endif
