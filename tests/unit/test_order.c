// SPDX-License-Identifier: GPL-2.0-only
/* The merge across rings (order.c): the heap's copies of the head keys, runs
 * drained from one ring, equal keys across rings, re-sorted heads, FIFOs
 * narrowed and widened within their memory, and a random workout checked
 * against a plain model of the ordering contract (items put in the middle of
 * their FIFO by order_insert_inside too). */
#include <criterion/criterion.h>
#include <malloc.h>
#include <string.h>

#include "order_test_util.h"

static const struct pending *fifo_head(const struct order *o, unsigned ring)
{
	const struct ring_fifo *f = &o->fifos[ring];

	return &f->items[f->head & (f->cap - 1)];
}

/* Every ring with items is in the heap once, with its head's key, and no
 * entry is below its parent in (key, ring) order. */
static void check_heap(const struct order *o)
{
	unsigned in_heap = 0;

	for (unsigned r = 0; r < o->nrings; r++) {
		const struct ring_fifo *f = &o->fifos[r];
		if (f->head == f->tail) {
			cr_assert_eq(o->hpos[r], ORDER_NOT_IN_HEAP, "empty ring %u in the heap", r);
			continue;
		}
		in_heap++;
		cr_assert_lt(o->hpos[r], o->nheap, "ring %u with items not in the heap", r);
		cr_assert_eq(o->heap[o->hpos[r]].ring, r);
		cr_assert_eq(o->heap[o->hpos[r]].key, fifo_head(o, r)->key,
			     "ring %u: the heap's key is not its head's", r);
	}
	cr_assert_eq(in_heap, o->nheap);
	for (unsigned i = 1; i < o->nheap; i++) {
		const struct order_heap_ent *c = &o->heap[i], *p = &o->heap[(i - 1) / 2];
		cr_assert(p->key < c->key || (p->key == c->key && p->ring < c->ring),
			  "heap entry %u below its parent", i);
	}
}

static uint32_t pop_tag(struct order *o, uint64_t limit, unsigned *ring)
{
	struct pending *p = order_peek(o, limit, ring);

	cr_assert_not_null(p);
	uint32_t tag = p->u.head.tid;
	order_pop(o, *ring);
	check_heap(o);
	return tag;
}

Test(order_merge, a_run_on_one_ring_stops_at_an_equal_key_of_a_lower_ring)
{
	struct order o;
	unsigned ring;
	/* ring 1: 3 5; ring 2: 4 5 5 6; ring 3: 5.  After 4, ring 2's run meets
	 * ring 1's 5: the lower ring goes first, then ring 2's run, then 3 */
	uint32_t want[] = { 13, 24, 15, 25, 26, 35, 27 };

	cr_assert_eq(order_init(&o, 4, 16, 1 << 20), 0);
	push_key(&o, 2, 4, 24);
	push_key(&o, 2, 5, 25);
	push_key(&o, 2, 5, 26);
	push_key(&o, 2, 6, 27);
	push_key(&o, 3, 5, 35);
	push_key(&o, 1, 3, 13);
	push_key(&o, 1, 5, 15);
	check_heap(&o);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_assert_eq(pop_tag(&o, 100, &ring), want[i], "item %zu", i);
	cr_assert_null(order_peek(&o, UINT64_MAX, &ring));
	order_free(&o);
}

Test(order_merge, a_resorted_head_goes_behind_other_rings_and_its_own_next_item)
{
	struct order o;
	unsigned ring;
	struct pending *p;

	cr_assert_eq(order_init(&o, 3, 16, 1 << 20), 0);
	push_key(&o, 0, 10, 1);
	push_key(&o, 0, 40, 2);
	push_key(&o, 1, 20, 3);
	push_key(&o, 2, 30, 4);
	/* a combined syscall: its Begin is written, it stays as its End (35) */
	p = order_peek(&o, 100, &ring);
	cr_assert_eq(ring, 0);
	p->key = 35;
	order_resort_head(&o, ring);
	check_heap(&o);
	cr_assert_eq(pop_tag(&o, 100, &ring), 3);
	/* ring 2's 30 next; make it end after ring 0's 40: it passes the heap
	 * and lands behind ring 0's items, equal keys by ring */
	p = order_peek(&o, 100, &ring);
	cr_assert_eq(ring, 2);
	p->key = 40;
	order_resort_head(&o, ring);
	check_heap(&o);
	/* ring 0's End (35) next, re-sorted past its own next item (40) */
	p = order_peek(&o, 100, &ring);
	cr_assert_eq(ring, 0);
	p->key = 50;
	order_resort_head(&o, ring);
	check_heap(&o);
	cr_assert_eq(fifo_head(&o, 0)->u.head.tid, 2, "ring 0's 40 moved to its head");
	cr_assert_eq(pop_tag(&o, 100, &ring), 2);
	cr_assert_eq(ring, 0, "40 on ring 0 before 40 on ring 2");
	cr_assert_eq(pop_tag(&o, 100, &ring), 4);
	cr_assert_null(order_peek(&o, 49, &ring), "50 is above the limit");
	cr_assert_eq(pop_tag(&o, 50, &ring), 1);
	order_free(&o);
}

/* The model: per ring, items in FIFO order, sorted on insert as order.c does
 * (equal keys keep their arrival order; a re-sorted head goes before equal
 * keys); the next item is the smallest (key, ring) of the heads. */
#define NR 37 /* not a power of two: a ragged last heap level */
#define CAP 4096

struct model_ring {
	uint64_t key[CAP];
	uint32_t tag[CAP];
	size_t n;
};

static void model_insert(struct model_ring *m, size_t at, uint64_t key, uint32_t tag)
{
	memmove(&m->key[at + 1], &m->key[at], (m->n - at) * sizeof(m->key[0]));
	memmove(&m->tag[at + 1], &m->tag[at], (m->n - at) * sizeof(m->tag[0]));
	m->key[at] = key;
	m->tag[at] = tag;
	m->n++;
}

static void model_pop(struct model_ring *m)
{
	m->n--;
	memmove(&m->key[0], &m->key[1], m->n * sizeof(m->key[0]));
	memmove(&m->tag[0], &m->tag[1], m->n * sizeof(m->tag[0]));
}

static int model_next(const struct model_ring *m)
{
	int best = -1;

	for (int r = 0; r < NR; r++)
		if (m[r].n && (best < 0 || m[r].key[0] < m[best].key[0]))
			best = r; /* strict: equal keys, the lower ring */
	return best;
}

/* narrow: the FIFOs only narrow within their memory now and then (a
 * capture while records flow), else they shrink and give memory back. */
static void follow_the_model(bool narrow)
{
	static struct model_ring m[NR];
	struct order o;
	uint32_t seed = 7, tag = 0;
	uint64_t base = 0;
	size_t peak = 0, widened = 0, inside = 0, heads = 0;

	memset(m, 0, sizeof(m));
	cr_assert_eq(order_init(&o, NR, 16, 1 << 20), 0);
	for (int step = 0; step < 60000; step++) {
		seed = seed * 1103515245u + 12345u;
		/* bursts then drains: FIFOs grow, then shrink back */
		unsigned op = (seed >> 16) % 10, r = (seed >> 8) % NR;
		bool burst = (step / 5000) % 2 == 0;
		if (r % 3)
			r %= 5; /* skewed: most items on 5 rings */
		if (op < (burst ? 6u : 3u)) {
			/* a few distinct keys near the front: many ties, a few late */
			uint64_t key = base + (seed >> 20) % 8;
			size_t at = m[r].n;
			while (at && m[r].key[at - 1] > key)
				at--;
			model_insert(&m[r], at, key, tag);
			/* half of them written where they go, where that is
			 * allowed (order_insert_inside: room, a ring in the heap) */
			struct pending *in = (seed >> 12) & 1 ? order_insert_inside(&o, r, key) : NULL;
			if (in) {
				heads += at == 0;
				memset(in, 0, sizeof(*in));
				in->key = key;
				in->u.head.tid = tag++;
				inside++;
			} else {
				push_key(&o, r, key, tag++);
			}
		} else {
			int want = model_next(m);
			unsigned ring;
			struct pending *p = order_peek(&o, UINT64_MAX, &ring);
			if (want < 0) {
				cr_assert_null(p);
				continue;
			}
			cr_assert_not_null(p);
			cr_assert_eq(ring, (unsigned)want, "step %d", step);
			cr_assert_eq(p->key, m[want].key[0]);
			cr_assert_eq(p->u.head.tid, m[want].tag[0], "step %d", step);
			if (op == 9) {
				/* a Begin written, its End re-sorted by a later key */
				uint64_t key = p->key + (seed >> 24) % 4;
				uint32_t t = m[want].tag[0];
				size_t at = 0;
				model_pop(&m[want]);
				while (at < m[want].n && m[want].key[at] < key)
					at++;
				model_insert(&m[want], at, key, t);
				p->key = key;
				order_resort_head(&o, ring);
			} else {
				model_pop(&m[want]);
				order_pop(&o, ring);
			}
			if (step % 50 == 0)
				base++; /* time goes on */
		}
		check_heap(&o);
		if (o.item_capacity > peak)
			peak = o.item_capacity;
		for (unsigned r = 0; r < NR; r++)
			widened += o.fifos[r].alloc > o.fifos[r].cap;
		if (step % 1000 == 0) {
			if (narrow)
				order_narrow(&o);
			else
				order_shrink(&o);
		}
	}
	for (int want; (want = model_next(m)) >= 0;) {
		unsigned ring;
		cr_assert_eq(pop_tag(&o, UINT64_MAX, &ring), m[want].tag[0]);
		cr_assert_eq(ring, (unsigned)want);
		model_pop(&m[want]);
	}
	unsigned ring;
	cr_assert_null(order_peek(&o, UINT64_MAX, &ring));
	cr_assert_eq(o.pending, 0);
	cr_assert_gt(inside, 1000, "few items went in through order_insert_inside");
	cr_assert_gt(heads, 50, "%zu of %zu as their FIFO's head", heads, inside);
	if (narrow) {
		cr_assert_gt(widened, 0, "FIFOs used less than their memory");
		for (int i = 0; i < 16; i++)
			order_narrow(&o);
		cr_assert_eq(o.item_capacity, peak, "narrowing gave memory back");
		for (unsigned r = 0; r < NR; r++)
			cr_assert_eq(o.fifos[r].cap, o.min_cap, "ring %u did not narrow", r);
	}
	for (int i = 0; i < 16; i++)
		order_shrink(&o);
	cr_assert_eq(o.item_capacity, NR * o.min_cap, "the FIFOs shrank back");
	order_free(&o);
}

Test(order_merge, random_pushes_pops_and_resorts_follow_the_model)
{
	follow_the_model(false);
}

Test(order_merge, and_so_while_fifos_narrow_and_widen_within_their_memory)
{
	follow_the_model(true);
}

/* A FIFO narrowed after a burst takes the next one in the memory it has,
 * its items in order across the wrap of both sizes. */
Test(order_merge, a_narrowed_fifo_widens_in_its_memory_in_order)
{
	struct order o;
	unsigned ring;
	uint32_t key = 0, next = 0;

	cr_assert_eq(order_init(&o, 2, 16, 1 << 20), 0);
	for (; key < 4096; key++)
		push_key(&o, 1, key, key);
	while (next < 4096 - 1)
		cr_assert_eq(pop_tag(&o, UINT64_MAX, &ring), next++);
	size_t mem = o.item_capacity;
	for (int i = 0; i < 16; i++)
		order_narrow(&o);
	cr_assert_eq(o.fifos[1].cap, 16);
	cr_assert_eq(o.fifos[1].alloc, 4096);
	/* the head goes round the narrow FIFO, then a burst fills it past 16 */
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 15; i++)
			push_key(&o, 1, key, key), key++;
		for (int i = 0; i < 15; i++)
			cr_assert_eq(pop_tag(&o, UINT64_MAX, &ring), next++);
	}
	for (int i = 0; i < 1000; i++)
		push_key(&o, 1, key, key), key++;
	cr_assert_eq(o.item_capacity, mem, "it took new memory");
	cr_assert_eq(o.fifos[1].cap, 1024);
	while (next < key)
		cr_assert_eq(pop_tag(&o, UINT64_MAX, &ring), next++);
	order_free(&o);
}

/* The recorder's figures (1024 items a FIFO at first, a 12 MiB budget):
 * with 2 rings each FIFO starts at 1024; with 128 the first FIFOs would take
 * more than the whole budget, so they start smaller and a busy ring grows. */
Test(order_merge, first_fifos_take_an_eighth_of_the_budget_whatever_the_ring_count)
{
	size_t budget = (12u << 20) / sizeof(struct pending);
	struct order o;
	unsigned ring;

	cr_assert_eq(order_init(&o, 2, 1024, budget), 0);
	cr_assert_eq(o.min_cap, 1024);
	order_free(&o);

	cr_assert_eq(order_init(&o, 128, 1024, budget), 0);
	cr_assert_leq(o.item_capacity, budget / 8);
	cr_assert_geq(o.min_cap, 16);
	for (uint32_t i = 0; i < 8192; i++)
		push_key(&o, 5, i, i);
	cr_assert_geq(o.fifos[5].cap, 8192, "a busy ring grew within the budget");
	for (uint32_t i = 0; i < 8192; i++)
		cr_assert_eq(pop_tag(&o, UINT64_MAX, &ring), i);
	for (int i = 0; i < 16; i++)
		order_shrink(&o);
	cr_assert_eq(o.item_capacity, 128 * o.min_cap, "and shrank back");
	order_free(&o);
}

/* A FIFO that grew to megabytes and shrank leaves malloc as it found it:
 * its arrays are mappings of their own (grown by mremap, in order across the
 * wrap), so no large free raises glibc's mmap threshold and a later array of
 * a megabyte is still a mapping given back at its free, not heap kept. */
Test(order_merge, a_grown_fifo_leaves_mallocs_mmap_threshold_alone)
{
	struct order o;
	unsigned ring;
	uint32_t key = 0, next = 0;

	cr_assert_eq(order_init(&o, 2, 16, 1 << 20), 0);
	for (int step = 0; step < 13; step++) { /* 16 -> 65536 items, each growth wrapped */
		size_t n = o.fifos[1].cap;
		for (size_t i = 0; i < n; i++)
			push_key(&o, 1, key, key), key++;
		for (size_t i = 0; i < n / 2; i++)
			cr_assert_eq(pop_tag(&o, UINT64_MAX, &ring), next++);
	}
	cr_assert_geq(o.fifos[1].cap, 65536);
	while (next < key)
		cr_assert_eq(pop_tag(&o, UINT64_MAX, &ring), next++);
	for (int i = 0; i < 16; i++)
		order_shrink(&o);
	cr_assert_eq(o.fifos[1].alloc, 16);
	order_free(&o);

#ifndef __SANITIZE_ADDRESS__ /* ASan's allocator is not glibc's */
	size_t before = mallinfo2().hblks;
	void *p = malloc(1u << 20);
	size_t after = mallinfo2().hblks;
	bool got = p != NULL;
	free(p);
	cr_assert(got);
	cr_assert_eq(after, before + 1, "a 1 MiB malloc came from the heap");
#endif
}
