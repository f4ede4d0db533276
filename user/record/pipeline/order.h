/* SPDX-License-Identifier: GPL-2.0-only */
/* Reordering: one FIFO per ring of "pending" items (a wire record plus the
 * key it sorts by), kept sorted by insertion from the tail (rings are nearly
 * sorted, so that walk is short), merged across rings by key through a binary
 * heap of (head key, ring) entries: at most about log2(rings) compares of
 * that one small array per item, and one while a ring's run comes next.
 * FIFOs grow with need within a total item budget and shrink back when the
 * caller says (the recorder: while no record flows).  Items are
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
	size_t cap; /* in use, a power of two */
	size_t alloc; /* allocated, a power of two >= cap */
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
	size_t item_capacity;  /* slots allocated in all FIFOs (their alloc) */
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
/* Halves the FIFOs that are mostly empty, in their memory: what a FIFO
 * cycles through (its cache footprint) follows the load, and nothing is
 * freed (call now and then: a free can flush the TLB of every CPU the
 * process ran on, while the traced program keeps them busy).  A FIFO grows
 * back into its memory first. */
void order_narrow(struct order *o);
/* The same, and the memory the FIFOs do not use given back (call where that
 * costs the traced program nothing). */
void order_shrink(struct order *o);

/* The per-item calls below are inline for their common case (a FIFO with
 * room, an item after the ones it holds, a ring whose next item still comes
 * first or whose place in the heap is found at its first child); the rest is
 * order.c's.  Out of line, each cost more in saved registers than the work
 * it did. */
struct pending *order_slot_grow(struct order *o, unsigned ring);
void order_commit_place(struct order *o, unsigned ring);
void order_pop_last(struct order *o, unsigned ring);
void order_resort_walk(struct order *o, unsigned ring);
void order_sift_from(struct order *o, unsigned i, unsigned c);
/* The slot for an item of `key` that goes before ring's last item, where
 * order_commit() would put it (the head too), the item counted and the heap
 * set: fill it at once (its key: `key`).  NULL (nothing changed) where the
 * FIFO is full or its ring not in the heap. */
struct pending *order_insert_inside(struct order *o, unsigned ring, uint64_t key);

/* Equal keys: the lower ring first, so the merge is deterministic.  Bitwise
 * operators: no branch to mispredict (which child is smaller is a coin toss
 * when many rings interleave). */
static inline bool order_ent_less(const struct order_heap_ent *a, const struct order_heap_ent *b)
{
	return (a->key < b->key) | ((a->key == b->key) & (a->ring < b->ring));
}

/* The heap entry at i got a larger key.  Most often it is still below its
 * smaller child (its ring's next item comes next: a run, drained without
 * moving anything); else it swaps with that child where the child is a
 * leaf, and order_sift_from() moves it down from child c otherwise. */
static inline void order_sift_down(struct order *o, unsigned i)
{
	const struct order_heap_ent *h = o->heap;
	unsigned n = o->nheap, c = 2 * i + 1;

	if (c >= n)
		return;
	c += c + 1 < n && order_ent_less(&h[c + 1], &h[c]);
	if (!order_ent_less(&h[c], &h[i]))
		return;
	if (2 * c + 1 < n) {
		order_sift_from(o, i, c);
		return;
	}
	/* c is a leaf (two rings alternating: every run ends here): the two
	 * swap, what order_sift_from() does there, without its call */
	struct order_heap_ent e = o->heap[i];
	o->heap[i] = o->heap[c];
	o->hpos[o->heap[i].ring] = i;
	o->heap[c] = e;
	o->hpos[e.ring] = c;
}

static inline struct pending *order_head_item(const struct order *o, unsigned ring)
{
	const struct ring_fifo *f = &o->fifos[ring];

	return &f->items[f->head & (f->cap - 1)];
}

/* The slot the next item of `ring` goes into, or NULL when that FIFO is full
 * and the budget allows no growth (pop something first).  Fill it, then
 * order_commit(). */
static inline struct pending *order_slot(struct order *o, unsigned ring)
{
	struct ring_fifo *f = &o->fifos[ring];

	if (f->tail - f->head == f->cap)
		return order_slot_grow(o, ring);
	return &f->items[f->tail & (f->cap - 1)];
}

static inline void order_commit(struct order *o, unsigned ring)
{
	struct ring_fifo *f = &o->fifos[ring];
	size_t mask = f->cap - 1, i = f->tail;

	/* after what the FIFO holds, in a ring already merged: nothing moves */
	if (i != f->head && o->hpos[ring] != ORDER_NOT_IN_HEAP &&
	    f->items[(i - 1) & mask].key <= f->items[i & mask].key) {
		f->tail++;
		o->pending++;
		return;
	}
	order_commit_place(o, ring);
}

/* The smallest pending item whose key <= limit (NULL if none); it stays
 * valid until the next order_slot().  order_pop() removes it. */
static inline struct pending *order_peek(struct order *o, uint64_t limit, unsigned *ring)
{
	if (!o->nheap || o->heap[0].key > limit)
		return NULL;
	*ring = o->heap[0].ring;
	return order_head_item(o, *ring);
}

static inline void order_pop(struct order *o, unsigned ring)
{
	struct ring_fifo *f = &o->fifos[ring];

	f->head++;
	o->pending--;
	if (f->head == f->tail) {
		order_pop_last(o, ring);
		return;
	}
	o->heap[o->hpos[ring]].key = order_head_item(o, ring)->key;
	order_sift_down(o, o->hpos[ring]);
}

/* A run: while ring is at the heap's top, its items up to the largest key
 * that still comes before every other ring's head (order_ent_less: equal
 * keys, the lower ring first) are taken one after the other with
 * order_run_pop(), and the heap is set once at the run's end
 * (order_run_end()) rather than at every item.  Meanwhile the ring's heap
 * entry keeps its run's first key: smaller than its head's, so it stays at
 * the top, and every call above that sets its key afresh still works. */
static inline uint64_t order_run_bound(const struct order *o, unsigned ring)
{
	uint64_t b = UINT64_MAX;

	for (unsigned c = 1; c <= 2 && c < o->nheap; c++) {
		const struct order_heap_ent *h = &o->heap[c];
		/* never 0 with the lower ring: the head at the top came before it */
		uint64_t k = h->key - (h->key && h->ring < ring);

		b = k < b ? k : b;
	}
	return b;
}

static inline void order_run_pop(struct order *o, unsigned ring)
{
	o->fifos[ring].head++;
	o->pending--;
}

/* The run of ring ends: its next item's key into the heap, or the ring out
 * of it when its FIFO is empty. */
static inline void order_run_end(struct order *o, unsigned ring)
{
	const struct ring_fifo *f = &o->fifos[ring];

	if (f->head == f->tail) {
		order_pop_last(o, ring);
		return;
	}
	o->heap[o->hpos[ring]].key = order_head_item(o, ring)->key;
	order_sift_down(o, o->hpos[ring]);
}

/* The head item of ring, the smallest of all, gets the larger key: true
 * (and its key set) when it still comes first, before its FIFO's next item
 * and every other ring's head, as order_resort_head() would leave it; else
 * false, and nothing changed. */
static inline bool order_top_stays(struct order *o, unsigned ring, uint64_t key)
{
	const struct ring_fifo *f = &o->fifos[ring];
	const struct order_heap_ent e = { key, ring };

	if (o->hpos[ring] != 0 ||
	    (f->head + 1 != f->tail && f->items[(f->head + 1) & (f->cap - 1)].key < key) ||
	    (o->nheap > 1 && order_ent_less(&o->heap[1], &e)) ||
	    (o->nheap > 2 && order_ent_less(&o->heap[2], &e)))
		return false;
	o->heap[0].key = key;
	return true;
}

/* The head item of ring got a larger key: move it back to its place. */
static inline void order_resort_head(struct order *o, unsigned ring)
{
	struct ring_fifo *f = &o->fifos[ring];
	size_t mask = f->cap - 1, i = f->head;

	/* usually nothing passes it: a syscall's exit comes before what follows */
	if (i + 1 != f->tail && f->items[(i + 1) & mask].key < f->items[i & mask].key) {
		order_resort_walk(o, ring);
		return;
	}
	o->heap[o->hpos[ring]].key = f->items[i & mask].key;
	order_sift_down(o, o->hpos[ring]);
}

#endif
