// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "order.h"

/* ---- the heap of rings, keyed by each FIFO's head item ---- */

static uint64_t head_key(const struct order *o, unsigned ring)
{
	const struct ring_fifo *f = &o->fifos[ring];

	return f->items[f->head & (f->cap - 1)].key;
}

static void heap_swap(struct order *o, unsigned a, unsigned b)
{
	unsigned ra = o->heap[a], rb = o->heap[b];

	o->heap[a] = rb;
	o->heap[b] = ra;
	o->hpos[rb] = a;
	o->hpos[ra] = b;
}

/* Equal keys: the lower ring first, so the merge is deterministic. */
static bool heap_less(const struct order *o, unsigned a, unsigned b)
{
	uint64_t ka = head_key(o, o->heap[a]), kb = head_key(o, o->heap[b]);

	return ka < kb || (ka == kb && o->heap[a] < o->heap[b]);
}

static void sift_up(struct order *o, unsigned i)
{
	while (i && heap_less(o, i, (i - 1) / 2)) {
		heap_swap(o, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void sift_down(struct order *o, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, m = i;

		if (l < o->nheap && heap_less(o, l, m))
			m = l;
		if (r < o->nheap && heap_less(o, r, m))
			m = r;
		if (m == i)
			return;
		heap_swap(o, i, m);
		i = m;
	}
}

static void heap_remove(struct order *o, unsigned ring)
{
	unsigned i = o->hpos[ring];

	o->hpos[ring] = ORDER_NOT_IN_HEAP;
	if (--o->nheap == i)
		return;
	o->heap[i] = o->heap[o->nheap];
	o->hpos[o->heap[i]] = i;
	sift_down(o, i);
	sift_up(o, i);
}

/* ---- FIFOs ---- */

static int fifo_resize(struct ring_fifo *f, size_t cap)
{
	struct pending *items = malloc(cap * sizeof(*items));
	size_t n = f->tail - f->head;

	if (!items)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		items[i] = f->items[(f->head + i) & (f->cap - 1)];
	free(f->items);
	f->items = items;
	f->cap = cap;
	f->head = 0;
	f->tail = n;
	return 0;
}

int order_init(struct order *o, unsigned nrings, size_t per_ring_cap, size_t max_items)
{
	size_t cap = 16;

	memset(o, 0, sizeof(*o));
	while (cap < per_ring_cap)
		cap *= 2;
	o->fifos = calloc(nrings, sizeof(*o->fifos));
	o->heap = calloc(nrings, sizeof(*o->heap));
	o->hpos = calloc(nrings, sizeof(*o->hpos));
	if (!o->fifos || !o->heap || !o->hpos) {
		order_free(o);
		return -ENOMEM;
	}
	o->nrings = nrings;
	o->min_cap = cap;
	o->max_items = max_items;
	for (unsigned i = 0; i < nrings; i++) {
		o->hpos[i] = ORDER_NOT_IN_HEAP;
		o->fifos[i].items = calloc(cap, sizeof(struct pending));
		if (!o->fifos[i].items) {
			order_free(o);
			return -ENOMEM;
		}
		o->fifos[i].cap = cap;
		o->item_capacity += cap;
	}
	return 0;
}

void order_free(struct order *o)
{
	for (unsigned i = 0; o->fifos && i < o->nrings; i++)
		free(o->fifos[i].items);
	free(o->fifos);
	free(o->heap);
	free(o->hpos);
	memset(o, 0, sizeof(*o));
}

struct pending *order_slot(struct order *o, unsigned ring)
{
	struct ring_fifo *f = &o->fifos[ring];

	if (f->tail - f->head == f->cap) {
		/* grow with need, within the budget (the caller releases the
		 * oldest item when the budget says no) */
		if (o->item_capacity + f->cap > o->max_items || fifo_resize(f, f->cap * 2))
			return NULL;
		o->item_capacity += f->cap / 2;
	}
	return &f->items[f->tail & (f->cap - 1)];
}

void order_commit(struct order *o, unsigned ring)
{
	struct ring_fifo *f = &o->fifos[ring];
	size_t mask = f->cap - 1;
	size_t i = f->tail;
	bool new_head;

	/* walk the new item back past later keys; equal keys keep ring order */
	if (i != f->head && f->items[(i - 1) & mask].key > f->items[i & mask].key) {
		struct pending item = f->items[i & mask];
		while (i != f->head && f->items[(i - 1) & mask].key > item.key) {
			f->items[i & mask] = f->items[(i - 1) & mask];
			i--;
		}
		f->items[i & mask] = item;
	}
	new_head = i == f->head;
	f->tail++;
	o->pending++;
	if (o->hpos[ring] == ORDER_NOT_IN_HEAP) {
		o->heap[o->nheap] = ring;
		o->hpos[ring] = o->nheap++;
		sift_up(o, o->hpos[ring]);
	} else if (new_head) {
		sift_up(o, o->hpos[ring]); /* its key went down */
	}
}

struct pending *order_peek(struct order *o, uint64_t limit, unsigned *ring)
{
	if (!o->nheap || head_key(o, o->heap[0]) > limit)
		return NULL;
	*ring = o->heap[0];
	return &o->fifos[*ring].items[o->fifos[*ring].head & (o->fifos[*ring].cap - 1)];
}

void order_pop(struct order *o, unsigned ring)
{
	struct ring_fifo *f = &o->fifos[ring];

	f->head++;
	o->pending--;
	if (f->head == f->tail)
		heap_remove(o, ring);
	else
		sift_down(o, o->hpos[ring]);
}

void order_resort_head(struct order *o, unsigned ring)
{
	struct ring_fifo *f = &o->fifos[ring];
	size_t mask = f->cap - 1, i = f->head;

	/* usually nothing passes it: a syscall's exit comes before what follows */
	if (i + 1 != f->tail && f->items[(i + 1) & mask].key < f->items[i & mask].key) {
		struct pending item = f->items[i & mask];
		while (i + 1 != f->tail && f->items[(i + 1) & mask].key < item.key) {
			f->items[i & mask] = f->items[(i + 1) & mask];
			i++;
		}
		f->items[i & mask] = item;
	}
	sift_down(o, o->hpos[ring]); /* its key went up */
}

void order_shrink(struct order *o)
{
	for (unsigned r = 0; r < o->nrings; r++) {
		struct ring_fifo *f = &o->fifos[r];

		/* a burst is over: give back what a quarter of it would not use */
		if (f->cap > o->min_cap && f->tail - f->head < f->cap / 8 &&
		    !fifo_resize(f, f->cap / 2))
			o->item_capacity -= f->cap;
	}
}
