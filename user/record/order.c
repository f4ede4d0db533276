#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "order.h"

int order_init(struct order *o, unsigned nrings, size_t per_ring_cap)
{
	size_t cap = 64;

	memset(o, 0, sizeof(*o));
	while (cap < per_ring_cap)
		cap *= 2;
	o->fifos = calloc(nrings, sizeof(*o->fifos));
	if (!o->fifos)
		return -ENOMEM;
	o->nrings = nrings;
	for (unsigned i = 0; i < nrings; i++) {
		o->fifos[i].items = malloc(cap * sizeof(struct pending));
		if (!o->fifos[i].items) {
			order_free(o);
			return -ENOMEM;
		}
		/* touch it now, before the capture is live: its page faults would
		 * otherwise land on the first busy seconds of the capture */
		memset(o->fifos[i].items, 0, cap * sizeof(struct pending));
		o->fifos[i].cap = cap;
	}
	return 0;
}

void order_free(struct order *o)
{
	for (unsigned i = 0; o->fifos && i < o->nrings; i++)
		free(o->fifos[i].items);
	free(o->fifos);
	memset(o, 0, sizeof(*o));
}

struct pending *order_slot(struct order *o, unsigned ring)
{
	struct ring_fifo *f = &o->fifos[ring];

	if (f->tail - f->head == f->cap)
		return NULL;
	return &f->items[f->tail & (f->cap - 1)];
}

void order_commit(struct order *o, unsigned ring)
{
	struct ring_fifo *f = &o->fifos[ring];
	size_t mask = f->cap - 1;
	size_t i = f->tail;

	/* walk the new item back past later keys; equal keys keep ring order */
	if (i != f->head && f->items[(i - 1) & mask].key > f->items[i & mask].key) {
		struct pending item = f->items[i & mask];
		while (i != f->head && f->items[(i - 1) & mask].key > item.key) {
			f->items[i & mask] = f->items[(i - 1) & mask];
			i--;
		}
		f->items[i & mask] = item;
	}
	f->tail++;
	o->pending++;
}

struct pending *order_peek(struct order *o, uint64_t limit, unsigned *ring)
{
	struct pending *best = NULL;

	for (unsigned r = 0; r < o->nrings; r++) {
		struct ring_fifo *f = &o->fifos[r];
		if (f->head == f->tail)
			continue;
		struct pending *p = &f->items[f->head & (f->cap - 1)];
		if (p->key <= limit && (!best || p->key < best->key)) {
			best = p;
			*ring = r;
		}
	}
	return best;
}

void order_pop(struct order *o, unsigned ring)
{
	o->fifos[ring].head++;
	o->pending--;
}

void order_resort_head(struct order *o, unsigned ring)
{
	struct ring_fifo *f = &o->fifos[ring];
	size_t mask = f->cap - 1, i = f->head;

	/* usually nothing passes it: a syscall's exit comes before what follows */
	if (i + 1 == f->tail || f->items[(i + 1) & mask].key >= f->items[i & mask].key)
		return;
	struct pending item = f->items[i & mask];
	while (i + 1 != f->tail && f->items[(i + 1) & mask].key < item.key) {
		f->items[i & mask] = f->items[(i + 1) & mask];
		i++;
	}
	f->items[i & mask] = item;
}
