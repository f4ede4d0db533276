/* SPDX-License-Identifier: GPL-2.0-only */
/* Reordering: one FIFO per ring of "pending" items (a wire record plus the
 * key it sorts by), kept sorted by insertion from the tail (rings are nearly
 * sorted, so that walk is short), merged across rings by key through a binary
 * heap of (head key, ring) entries: at most about log2(rings) compares of
 * that one small array per item, and one while a ring's run comes next.
 * FIFOs grow with need within a total item budget and shrink back after a
 * burst.  Items are
 * released only below the watermark (pipeline.h), so `seq` order is
 * timestamp order. */
#ifndef KATRA_RECORD_ORDER_H
#define KATRA_RECORD_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/emit/pending.h"

struct ring_fifo {
	struct pending *items;
	size_t cap; /* power of two */
	size_t head, tail; /* tail - head = count */
};

#define ORDER_NOT_IN_HEAP UINT32_MAX

/* A ring in the merge heap, with a copy of its head item's key. */
struct order_heap_ent {
	uint64_t key;
	uint32_t ring;
};

struct order {
	struct ring_fifo *fifos;
	unsigned nrings;
	size_t pending;        /* items in all FIFOs */
	size_t item_capacity;  /* slots allocated in all FIFOs */
	size_t max_items;      /* budget for item_capacity */
	size_t min_cap;        /* a FIFO's first and smallest capacity */
	struct order_heap_ent *heap; /* rings with items, a min-heap on (key, ring) */
	uint32_t *hpos;        /* ring -> index in heap, or ORDER_NOT_IN_HEAP */
	unsigned nheap;
};

/* per_ring_cap: each FIFO's first capacity, at most (all of them together
 * take at most an eighth of max_items, 16 items a FIFO at least);
 * max_items: the total budget. */
int order_init(struct order *o, unsigned nrings, size_t per_ring_cap, size_t max_items);
void order_free(struct order *o);
/* The slot the next item of `ring` goes into, or NULL when that FIFO is full
 * and the budget allows no growth (pop something first).  Fill it, then
 * order_commit(). */
struct pending *order_slot(struct order *o, unsigned ring);
void order_commit(struct order *o, unsigned ring);
/* The smallest pending item whose key <= limit (NULL if none); it stays
 * valid until the next order_slot().  order_pop() removes it. */
struct pending *order_peek(struct order *o, uint64_t limit, unsigned *ring);
void order_pop(struct order *o, unsigned ring);
/* The head item of ring got a larger key: move it back to its place. */
void order_resort_head(struct order *o, unsigned ring);
/* Halves the FIFOs that are mostly empty (call now and then). */
void order_shrink(struct order *o);

#endif
