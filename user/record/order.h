/* Reordering: one FIFO per ring of "pending" items (a wire record plus the
 * key it sorts by), kept sorted by insertion from the tail (rings are nearly
 * sorted, so that walk is short), merged across rings by key.  Items are
 * released only once the watermark (now - reorder window) passes them, so
 * `seq` order is timestamp order. */
#ifndef KATRA_RECORD_ORDER_H
#define KATRA_RECORD_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "katra/wire.h"

enum pend_kind {
	PEND_SYSCALL_BEGIN,   /* u.sc, key enter_ts (combined or flushed enter) */
	PEND_SYSCALL_END,     /* u.sc, key exit time (combined or EXIT|FLUSHED) */
	PEND_SYSCALL_ORPHAN,  /* u.sc, EXIT|NO_ENTER: becomes an Instant */
	PEND_SYSCALL_PAIR,    /* u.sc, a combined record: key enter_ts; once its Begin
			       * is written it becomes the END, key exit_ts, in place */
	PEND_SWITCH,
	PEND_WAKING,
	PEND_FORK,
	PEND_EXEC,
	PEND_EXIT,
	PEND_PAGE_FAULT,      /* an instant */
	PEND_FAULT_BEGIN,     /* a measured fault, key enter_ts */
	PEND_FAULT_END,       /* ... key its end */
	PEND_URING_CREATE,
	PEND_URING_SUBMIT,
	PEND_URING_COMPLETE,
};

struct pending {
	uint64_t key;
	uint32_t kind; /* enum pend_kind */
	uint32_t ring;
	union {
		struct katra_wire_head head;
		struct katra_ev_syscall sc;
		struct katra_ev_switch sw;
		struct katra_ev_waking wk;
		struct katra_ev_fork fork;
		struct katra_ev_exec exec;
		struct katra_ev_exit exit;
		struct katra_ev_page_fault pf;
		struct katra_ev_uring_create uc;
		struct katra_ev_uring_submit us;
		struct katra_ev_uring_complete ucp;
	} u;
};

struct ring_fifo {
	struct pending *items;
	size_t cap; /* power of two */
	size_t head, tail; /* tail - head = count */
};

struct order {
	struct ring_fifo *fifos;
	unsigned nrings;
	size_t pending;
};

int order_init(struct order *o, unsigned nrings, size_t per_ring_cap);
void order_free(struct order *o);
/* The slot the next item of `ring` goes into, or NULL when that FIFO is
 * full (pop something first).  Fill it, then order_commit(). */
struct pending *order_slot(struct order *o, unsigned ring);
void order_commit(struct order *o, unsigned ring);
/* The smallest pending item whose key <= limit (NULL if none); it stays
 * valid until the next order_slot().  order_pop() removes it. */
struct pending *order_peek(struct order *o, uint64_t limit, unsigned *ring);
void order_pop(struct order *o, unsigned ring);
/* The head item of ring got a larger key: move it back to its place. */
void order_resort_head(struct order *o, unsigned ring);

#endif
