// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE /* mremap */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "order.h"

/* ---- the heap of rings, keyed by each FIFO's head item ----
 * Each entry carries a copy of its ring's head key: a sift compares entries
 * of this one small array, where reading the key through the FIFO would
 * touch one cache line per ring compared (a miss each with many rings). */

static void heap_put(struct order *o, unsigned i, struct order_heap_ent e)
{
	o->heap[i] = e;
	o->hpos[e.ring] = i;
}

static void sift_up(struct order *o, unsigned i)
{
	struct order_heap_ent e = o->heap[i];

	while (i && order_ent_less(&e, &o->heap[(i - 1) / 2])) {
		heap_put(o, i, o->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_put(o, i, e);
}

/* The entry at i belongs below its smaller child c (order_sift_down): the
 * hole goes down along the smaller children to a leaf, one compare a level
 * where the textbook sift makes two, and the entry comes up from there:
 * with many rings a ring's next item belongs near the bottom, where most
 * entries are. */
void order_sift_from(struct order *o, unsigned i, unsigned c)
{
	struct order_heap_ent e = o->heap[i];
	unsigned n = o->nheap;

	do {
		heap_put(o, i, o->heap[c]);
		i = c;
		c = 2 * i + 1;
		if (c >= n)
			break;
		c += c + 1 < n && order_ent_less(&o->heap[c + 1], &o->heap[c]);
	} while (true);
	/* stops at the latest below the first entry moved up, which is less */
	while (order_ent_less(&e, &o->heap[(i - 1) / 2])) {
		heap_put(o, i, o->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_put(o, i, e);
}

static void heap_remove(struct order *o, unsigned ring)
{
	unsigned i = o->hpos[ring];

	o->hpos[ring] = ORDER_NOT_IN_HEAP;
	if (--o->nheap == i)
		return;
	heap_put(o, i, o->heap[o->nheap]);
	order_sift_down(o, i);
	sift_up(o, i);
}

/* ---- FIFOs ----
 * A FIFO's items are a mapping of their own, not the heap's: it grows by
 * mremap (the pages move, none copied, so the old and the new array are
 * never both resident) and gives back its unused end in place; a large
 * malloc'd array freed would raise glibc's mmap threshold to its size and
 * leave later arrays in a heap that it trims only past twice that. */

static struct pending *items_map(size_t cap)
{
	void *p = mmap(NULL, cap * sizeof(struct pending), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void items_unmap(struct pending *items, size_t alloc)
{
	if (items)
		munmap(items, alloc * sizeof(*items));
}

/* Its memory to `alloc` items: grown (moved where it must, the items kept
 * at their indices) or its end given back (the items within the first
 * `alloc`). */
static int fifo_remap(struct ring_fifo *f, size_t alloc)
{
	void *p = mremap(f->items, f->alloc * sizeof(*f->items), alloc * sizeof(*f->items),
			 MREMAP_MAYMOVE);

	if (p == MAP_FAILED)
		return -errno;
	f->items = p;
	f->alloc = alloc;
	return 0;
}

/* A full FIFO doubles within its memory: its items stay where they are
 * but those that wrapped around, which go after the others. */
static void fifo_widen(struct ring_fifo *f)
{
	size_t h = f->head & (f->cap - 1);

	memcpy(f->items + f->cap, f->items, h * sizeof(*f->items));
	f->head = h;
	f->tail = h + f->cap;
	f->cap *= 2;
}

/* A FIFO with fewer than cap / 8 items halves within its memory: its items
 * moved to the front. */
static void fifo_narrow(struct ring_fifo *f)
{
	size_t h = f->head & (f->cap - 1), n = f->tail - f->head, a = f->cap - h;

	if (n <= a) {
		memmove(f->items, f->items + h, n * sizeof(*f->items));
	} else { /* wrapped: the front part first (h > 7/8 cap > n: no overlap) */
		memmove(f->items + a, f->items, (n - a) * sizeof(*f->items));
		memcpy(f->items, f->items + h, a * sizeof(*f->items));
	}
	f->head = 0;
	f->tail = n;
	f->cap /= 2;
}

int order_init(struct order *o, unsigned nrings, size_t per_ring_cap, size_t max_items)
{
	size_t cap = 16;

	memset(o, 0, sizeof(*o));
	/* the first FIFOs take at most an eighth of the budget, so that with
	 * many rings the busy ones can still grow (and memory follows the load,
	 * not the ring count) */
	while (cap < per_ring_cap && 2 * cap * nrings <= max_items / 8)
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
		o->fifos[i].items = items_map(cap);
		if (!o->fifos[i].items) {
			order_free(o);
			return -ENOMEM;
		}
		o->fifos[i].cap = o->fifos[i].alloc = cap;
		o->item_capacity += cap;
	}
	return 0;
}

void order_free(struct order *o)
{
	for (unsigned i = 0; o->fifos && i < o->nrings; i++)
		items_unmap(o->fifos[i].items, o->fifos[i].alloc);
	free(o->fifos);
	free(o->heap);
	free(o->hpos);
	memset(o, 0, sizeof(*o));
}

struct pending *order_slot_grow(struct order *o, unsigned ring)
{
	struct ring_fifo *f = &o->fifos[ring];

	size_t had = f->alloc;

	/* into the memory it narrowed from first; else grow with need, within
	 * the budget (the caller releases the oldest item when it says no) */
	if (f->alloc >= 2 * f->cap) {
		fifo_widen(f);
		return &f->items[f->tail & (f->cap - 1)];
	}
	if (o->item_capacity + f->cap > o->max_items || fifo_remap(f, f->cap * 2))
		return NULL;
	o->item_capacity += f->alloc - had;
	fifo_widen(f);
	return &f->items[f->tail & (f->cap - 1)];
}

/* order_commit() when the item goes before others, to the head of its FIFO,
 * or into a ring not in the heap. */
void order_commit_place(struct order *o, unsigned ring)
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
		heap_put(o, o->nheap, (struct order_heap_ent){ f->items[i & mask].key, ring });
		sift_up(o, o->nheap++);
	} else if (new_head) {
		o->heap[o->hpos[ring]].key = f->items[i & mask].key;
		sift_up(o, o->hpos[ring]); /* its key went down */
	}
}

/* Where order_commit_place() would walk the item to, found by its keys
 * alone, the new item not copied to the tail and through the stack: the
 * items on the shorter side of its place move one slot, once each (those
 * before it toward the free slots before the head: none when it is the new
 * head, a blocking syscall's record after its switches). */
struct pending *order_insert_inside(struct order *o, unsigned ring, uint64_t key)
{
	struct ring_fifo *f = &o->fifos[ring];
	size_t mask = f->cap - 1, i = f->tail;

	if (f->tail - f->head == f->cap || o->hpos[ring] == ORDER_NOT_IN_HEAP)
		return NULL;
	while (i != f->head && f->items[(i - 1) & mask].key > key)
		i--;
	if (i - f->head < f->tail - i) {
		for (size_t j = f->head; j != i; j++)
			f->items[(j - 1) & mask] = f->items[j & mask];
		f->head--;
		i--;
	} else {
		for (size_t j = f->tail; j != i; j--)
			f->items[j & mask] = f->items[(j - 1) & mask];
		f->tail++;
	}
	o->pending++;
	if (i == f->head) {
		o->heap[o->hpos[ring]].key = key;
		sift_up(o, o->hpos[ring]); /* its key went down */
	}
	return &f->items[i & mask];
}

/* order_pop() took the FIFO's last item. */
void order_pop_last(struct order *o, unsigned ring)
{
	heap_remove(o, ring);
}

/* order_resort_head() when the head item goes behind the next one. */
void order_resort_walk(struct order *o, unsigned ring)
{
	struct ring_fifo *f = &o->fifos[ring];
	size_t mask = f->cap - 1, i = f->head;
	struct pending item = f->items[i & mask];

	while (i + 1 != f->tail && f->items[(i + 1) & mask].key < item.key) {
		f->items[i & mask] = f->items[(i + 1) & mask];
		i++;
	}
	f->items[i & mask] = item;
	o->heap[o->hpos[ring]].key = order_head_item(o, ring)->key;
	order_sift_down(o, o->hpos[ring]); /* its key went up */
}

void order_narrow(struct order *o)
{
	for (unsigned r = 0; r < o->nrings; r++) {
		struct ring_fifo *f = &o->fifos[r];

		/* a burst is over: use no more than a quarter of it would */
		if (f->cap > o->min_cap && f->tail - f->head < f->cap / 8)
			fifo_narrow(f);
	}
}

void order_shrink(struct order *o)
{
	order_narrow(o);
	for (unsigned r = 0; r < o->nrings; r++) {
		struct ring_fifo *f = &o->fifos[r];
		size_t had = f->alloc;

		if (f->alloc > f->cap && !fifo_remap(f, f->cap))
			o->item_capacity -= had - f->alloc;
	}
}
