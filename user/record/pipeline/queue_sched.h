/* SPDX-License-Identifier: GPL-2.0-only */
/* pipeline_on_record()'s queueing of the scheduler and page-fault
 * records (a switch, a wakeup, a fault: an instant, a Begin or End written
 * apart, or a measured one's two items), as push() queues them: the
 * pending items written at their FIFO's tail, reached by a jump (no call).
 * Only where they go after the FIFO's last item, in a FIFO neither empty
 * nor full (so its ring is in the heap and nothing moves); on_record_any()
 * takes the record otherwise.  Internal to pipeline.c. */
#ifndef KATRA_RECORD_PIPELINE_QUEUE_SCHED_H
#define KATRA_RECORD_PIPELINE_QUEUE_SCHED_H

#include <string.h>

#include "pipeline.h"

/* Each kind copied at its constant size (a few vector moves; a variable
 * size made a `rep movsq`). */
#define QUEUE_COPY(p, data, type) memcpy(&(p)->u, (data), sizeof(type))

/* on_record_any(), where the record does not go at its FIFO's tail */
typedef int (*pipeline_record_fn)(struct pipeline *r, void *data, size_t size);

/* A measured fault: its Begin (at its enter) then its End, two items
 * (out of line: its registers would cost every other record two more). */
static __attribute__((noinline)) int pipeline_on_fault_pair(struct pipeline *r, void *data,
							    size_t size, pipeline_record_fn other)
{
	const struct katra_ev_page_fault *pf = data;
	struct ring_fifo *f = &r->order.fifos[pf->head.cpu];
	size_t mask = f->cap - 1, tail = f->tail;

	/* room for two, after the last item, the End not before the Begin */
	if (tail - f->head - 1 >= mask - 1 || f->items[(tail - 1) & mask].key > pf->enter_ts ||
	    pf->enter_ts > pf->head.ts || r->generic_order)
		return other(r, data, size);
	struct pending *b = &f->items[tail & mask], *e = &f->items[(tail + 1) & mask];

	b->key = pf->enter_ts;
	b->kind = PEND_FAULT_BEGIN;
	b->ring = pf->head.cpu;
	QUEUE_COPY(b, data, struct katra_ev_page_fault);
	e->key = pf->head.ts;
	e->kind = PEND_FAULT_END;
	e->ring = pf->head.cpu;
	QUEUE_COPY(e, data, struct katra_ev_page_fault);
	f->tail = tail + 2;
	r->order.pending += 2;
	return 0;
}

/* Out of line, reached by a jump from pipeline_on_record() (inline there,
 * its registers made every syscall record save three more). */
static __attribute__((noinline)) int pipeline_on_sched_record(struct pipeline *r, void *data,
							      size_t size, pipeline_record_fn other)
{
	const struct katra_wire_head *h = data;
	const struct katra_ev_page_fault *pf = data;
	uint64_t key = h->ts;
	uint32_t kind;

	if (h->type == KATRA_EV_SWITCH && size >= sizeof(struct katra_ev_switch)) {
		kind = PEND_SWITCH;
	} else if (h->type == KATRA_EV_WAKING && size >= sizeof(struct katra_ev_waking)) {
		kind = PEND_WAKING;
	} else if (h->type == KATRA_EV_PAGE_FAULT && size >= sizeof(*pf)) {
		if (pf->flags & KATRA_PF_MEASURED)
			return pipeline_on_fault_pair(r, data, size, other);
		kind = pf->flags & KATRA_PF_BEGIN ? PEND_FAULT_BEGIN
		       : pf->flags & KATRA_PF_END ? PEND_FAULT_END : PEND_PAGE_FAULT;
		if (kind == PEND_FAULT_BEGIN)
			key = pf->enter_ts;
	} else {
		return other(r, data, size);
	}
	struct ring_fifo *f = &r->order.fifos[h->cpu];
	size_t mask = f->cap - 1, tail = f->tail;

	/* empty or full (one unsigned compare), or before the last item; all
	 * through on_record_any() under generic_order (tests compare) */
	if (tail - f->head - 1 >= mask || f->items[(tail - 1) & mask].key > key ||
	    r->generic_order)
		return other(r, data, size);
	struct pending *p = &f->items[tail & mask];

	p->key = key;
	p->kind = kind;
	p->ring = h->cpu;
	if (kind == PEND_SWITCH)
		QUEUE_COPY(p, data, struct katra_ev_switch);
	else
		QUEUE_COPY(p, data, struct katra_ev_waking);
	f->tail = tail + 1;
	r->order.pending++;
	return 0;
}

_Static_assert(sizeof(struct katra_ev_waking) == sizeof(struct katra_ev_page_fault),
	       "a wakeup and a page fault are copied alike");

#endif
