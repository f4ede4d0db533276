/* SPDX-License-Identifier: GPL-2.0-only */
/* A hash map from a pair of u64 keys to two u64 values, open addressing with
 * linear probing, growing up to a fixed number of entries and no further:
 * the stats keep their memory bounded by the number of distinct threads or
 * open spans, never by the file size. */
#ifndef KATRA_REPLAY_IDMAP_H
#define KATRA_REPLAY_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kr_idmap_slot {
	uint64_t k1, k2;
	uint64_t v1, v2;
	bool used;
};

struct kr_idmap {
	struct kr_idmap_slot *slots;
	size_t cap;         /* slots, a power of two (0 before first insert) */
	size_t len;         /* used slots */
	size_t max_len;     /* entries never exceed this */
};

void kr_idmap_init(struct kr_idmap *m, size_t max_len);
void kr_idmap_free(struct kr_idmap *m);
/* The entry for (k1, k2) or NULL. */
struct kr_idmap_slot *kr_idmap_find(struct kr_idmap *m, uint64_t k1, uint64_t k2);
/* The entry for (k1, k2), created zeroed (values) when absent; *created
 * says which.  NULL when the map is full (max_len) or memory ran out. */
struct kr_idmap_slot *kr_idmap_get(struct kr_idmap *m, uint64_t k1, uint64_t k2,
				   bool *created);
/* Removes an entry returned by find/get (backward-shift, no tombstones). */
void kr_idmap_remove(struct kr_idmap *m, struct kr_idmap_slot *s);
/* A malloc'd copy of the used entries sorted by cmp (qsort comparator on
 * struct kr_idmap_slot); NULL with *n = 0 when empty or out of memory. */
struct kr_idmap_slot *kr_idmap_sorted(const struct kr_idmap *m, size_t *n,
				      int (*cmp)(const void *, const void *));

#endif
