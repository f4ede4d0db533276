// SPDX-License-Identifier: GPL-2.0-only
/* The causal index and the critical-path walk.
 *
 * The index keeps only the records a walk can turn at: wakeups sent by a
 * traced thread, switch-ins after a blocked off-CPU interval, io_uring
 * submits and completions, forks and the first event of a forked thread;
 * 56 bytes each, each linked to its thread's previous node.  It is a ring
 * of index_cap nodes: a walk starts at a window's last event and only ever
 * moves back in seq, so the newest nodes are the ones a walk needs; when an
 * older one has been overwritten, the walk stops there and the path says it
 * was cut.  1 Mi nodes (56 MiB) hold about half a million context switches
 * of the traced threads: minutes of a busy game, hours of a loader.
 *
 * The walk, from the window's last event on thread T at time t:
 *   take T's newest node at or before the current seq;
 *   - a switch-in woken by traced thread Y (wakeup W): T ran from the
 *     switch-in to t (RUN), waited for a CPU from W to the switch-in
 *     (WAKE); go on from W on Y;
 *   - a switch-in with no traced waker: T ran (RUN), was blocked from its
 *     switch-out to the switch-in (BLOCKED); go on from the switch-out on T;
 *   - an io_uring completion on T of a request submitted by Y: T ran
 *     (RUN), the request was in flight (URING); go on from the submit on Y;
 *   - T's first event, T forked by Y: T ran (RUN), T waited for its first
 *     run (START); go on from the fork on Y;
 *   - T's read of data Y wrote (report_msg.c: a pipe between a Wine client
 *     and its wineserver): T ran (RUN), the data was on its way from Y's
 *     write (MESSAGE); go on from the write on Y;
 *   - a wakeup, submit or fork sent by T itself: T kept going; next node.
 * It ends at the window's start (or T's birth).  Every step moves to an
 * older node, so a walk is linear in the nodes it visits; the hops cover
 * [start, end] without gaps or overlaps. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

int kr_index_init(struct kr_index *x, uint64_t cap)
{
	memset(x, 0, sizeof(*x));
	if (!cap || (cap & (cap - 1)))
		return -EINVAL;
	x->cap = cap;
	return 0;
}

void kr_index_free(struct kr_index *x)
{
	free(x->nodes);
	memset(x, 0, sizeof(*x));
}

uint64_t kr_index_add(struct kr_index *x, struct kr_thread *th, const struct kr_node *n)
{
	uint64_t num = x->total;
	struct kr_node *slot;

	if (num < x->cap && num == x->alloc) {
		uint64_t na = x->alloc ? x->alloc * 2 : 1024;
		struct kr_node *p;

		if (na > x->cap)
			na = x->cap;
		p = realloc(x->nodes, na * sizeof(*p));
		if (!p)
			return KR_NO_NODE;
		x->nodes = p;
		x->alloc = na;
	}
	slot = &x->nodes[num & (x->cap - 1)];
	*slot = *n;
	slot->ucall = th->ucall;
	slot->prev = 0;
	if (th->last_node != KR_NO_NODE && num - th->last_node < x->cap)
		slot->prev = (uint32_t)(num - th->last_node);
	th->last_node = num;
	x->total++;
	return num;
}

const struct kr_node *kr_index_get(const struct kr_index *x, uint64_t n)
{
	if (n == KR_NO_NODE || n >= x->total || x->total - n > x->cap)
		return NULL;
	return &x->nodes[n & (x->cap - 1)];
}

/* ---- the walk ---- */

#define CUR_UNSET (KR_NO_NODE - 1)

struct walk {
	const struct kr_report *rp;
	struct kr_path *p;
	uint64_t *cur;  /* per thread: the next node to look at */
	bool cut;       /* a node was gone from the ring */
	bool mark;      /* mark every hop on the timeline */
	uint16_t ucall; /* the unix call open on the walked thread at `now` */
};

/* Counts the hop; stores it while there is room (the walk goes back in
 * time, so the stored ones are the newest).  Returns the stored hop or NULL. */
static struct kr_hop *add_hop(struct walk *w, uint8_t type, uint32_t thread, uint64_t from,
			      uint64_t to, uint16_t kind)
{
	struct kr_path *p = w->p;
	const struct kr_thread *th = &w->rp->threads[thread];
	struct kr_hop *h;
	uint64_t ns;
	uint32_t i;

	if (from > to)
		from = to;
	if (type == KR_HOP_RUN && from == to)
		return NULL;
	ns = to - from;
	if (w->rp->o.on_hop) {
		struct kr_hop x = { .type = type, .kind = kind, .tid = th->tid, .pid = th->pid,
				    .from_ns = from, .to_ns = to };

		w->rp->o.on_hop(w->rp->o.ctx, &x);
	}
	if (w->mark && w->rp->tl)
		kr_timeline_mark_path(w->rp->tl, th->tid, from, to);
	p->hops_total++;
	p->by_type_ns[type] += ns;
	for (i = 0; i < p->nthreads && p->thread_tid[i] != th->tid; i++)
		;
	if (i < p->nthreads) {
		p->thread_ns[i] += ns;
	} else if (i < KR_PATH_THREADS) {
		p->thread_tid[i] = th->tid;
		p->thread_ns[i] = ns;
		p->nthreads++;
	} else {
		p->other_threads_ns += ns;
	}
	if (p->nhops >= KR_PATH_HOPS)
		return NULL;
	h = &p->hops[p->nhops++];
	memset(h, 0, sizeof(*h));
	h->type = type;
	h->tid = th->tid;
	h->pid = th->pid;
	h->from_ns = from;
	h->to_ns = to;
	h->kind = kind;
	h->ucall = w->ucall;
	return h;
}

/* T's newest unvisited node at or before seq s: its number, or KR_NO_NODE
 * (none left, or gone from the ring: w->cut). */
static uint64_t cursor(struct walk *w, uint32_t t, uint64_t s, const struct kr_node **out)
{
	const struct kr_index *x = &w->rp->index;
	uint64_t c = w->cur[t] == CUR_UNSET ? w->rp->threads[t].last_node : w->cur[t];

	*out = NULL;
	while (c != KR_NO_NODE) {
		const struct kr_node *n = kr_index_get(x, c);

		if (!n) {
			w->cut = true;
			c = KR_NO_NODE;
			break;
		}
		if (n->seq <= s) {
			*out = n;
			break;
		}
		c = n->prev ? c - n->prev : KR_NO_NODE;
	}
	w->cur[t] = c;
	return c;
}

/* Marks node c of thread t visited. */
static void consume(struct walk *w, uint32_t t, uint64_t c, const struct kr_node *n)
{
	w->cur[t] = n->prev ? c - n->prev : KR_NO_NODE;
}

int kr_path_walk(const struct kr_report *rp, uint64_t lower_seq, uint64_t start_ns,
		 uint64_t end_seq, uint32_t end_thread, uint64_t end_ns, bool mark,
		 struct kr_path *p)
{
	struct walk w = { rp, p, NULL, false, mark, rp->threads[end_thread].ucall };
	uint32_t t = end_thread;
	uint64_t s = end_seq, now = end_ns;

	memset(p, 0, sizeof(*p));
	p->present = true;
	p->end_seq = end_seq;
	p->end_tid = rp->threads[end_thread].tid;
	p->end_ns = end_ns;
	w.cur = malloc((rp->nthreads ? rp->nthreads : 1) * sizeof(*w.cur));
	if (!w.cur)
		return -ENOMEM;
	for (uint32_t i = 0; i < rp->nthreads; i++)
		w.cur[i] = CUR_UNSET;
	for (;;) {
		const struct kr_thread *th = &rp->threads[t];
		const struct kr_node *n, *l;
		uint64_t c = cursor(&w, t, s, &n);

		if (c == KR_NO_NODE || n->seq < lower_seq) {
			uint64_t lo = th->born_ns > start_ns ? th->born_ns : start_ns;

			if (w.cut)
				lo = now; /* what came before is not known any more */
			add_hop(&w, KR_HOP_RUN, t, lo < now ? lo : now, now, KR_KIND_NONE);
			if (lo < now)
				now = lo;
			break;
		}
		consume(&w, t, c, n);
		/* woken from outside: the link is who it was, not a node */
		bool outside = n->type == KR_NODE_OFF_END && (n->flags & KR_NODE_WOKEN_OUTSIDE);
		l = outside ? NULL : kr_index_get(&rp->index, n->link);
		if (!outside && n->link != KR_NO_NODE && !l)
			w.cut = true;
		if (l && l->seq < lower_seq)
			l = NULL; /* the link reaches before the window: stay on t */
		switch (n->type) {
		case KR_NODE_OFF_END:
			add_hop(&w, KR_HOP_RUN, t, n->ts, now, KR_KIND_NONE);
			if (l) {
				struct kr_hop *h = add_hop(&w, KR_HOP_WAKE, t, l->ts, n->ts, KR_KIND_NONE);

				if (h) {
					h->other_tid = rp->threads[l->thread].tid;
					h->seq = l->seq;
					h->ucall = n->ucall; /* woken inside it */
				}
				t = l->thread;
				s = l->seq;
				w.ucall = l->ucall; /* the waker's */
				now = l->ts < n->ts ? l->ts : n->ts;
				break;
			}
			uint64_t from = n->begin_ns > start_ns ? n->begin_ns : start_ns;
			struct kr_hop *h = add_hop(&w, KR_HOP_BLOCKED, t, from, n->ts, n->kind);
			if (h) {
				h->other_tid = outside ? n->link :
					       (n->flags & KR_NODE_WOKEN_UNSEEN) ? KR_WAKER_UNSEEN :
					       KR_WAKER_NONE;
				h->cls = n->cls;
				h->res_domain = n->res_domain;
				h->res_id = n->res_id;
				h->res_pid = th->pid;
				h->seq = n->seq;
				h->ucall = n->ucall;
			}
			w.ucall = n->ucall;
			now = from < now ? from : now;
			break;
		case KR_NODE_COMPLETE:
		case KR_NODE_FIRST: {
			if (!l)
				break; /* nothing reachable to turn to: keep walking t */
			add_hop(&w, KR_HOP_RUN, t, n->ts, now, KR_KIND_NONE);
			struct kr_hop *h = add_hop(&w, n->type == KR_NODE_FIRST ? KR_HOP_START
									 : KR_HOP_URING,
						   n->type == KR_NODE_FIRST ? t : l->thread, l->ts,
						   n->ts, KR_KIND_NONE);
			if (h) {
				h->other_tid = rp->threads[n->type == KR_NODE_FIRST ? l->thread
										    : t].tid;
				h->seq = l->seq;
				h->res_id = n->res_id;
				h->ucall = n->type == KR_NODE_FIRST ? 0 : l->ucall;
			}
			t = l->thread;
			s = l->seq;
			w.ucall = l->ucall;
			now = l->ts < n->ts ? l->ts : n->ts;
			break;
		}
		case KR_NODE_MESSAGE: {
			/* t read what the writer wrote: t ran since the read, the
			 * data was on its way since the write; go on from the
			 * write on the writer */
			uint32_t wt = (uint32_t)(n->res_id >> 40);
			uint64_t wseq = n->res_id & ((1ull << 40) - 1);

			if (wseq < lower_seq || wt >= rp->nthreads || n->begin_ns < start_ns)
				break; /* before the window: stay on t */
			add_hop(&w, KR_HOP_RUN, t, n->ts, now, KR_KIND_NONE);
			struct kr_hop *h = add_hop(&w, KR_HOP_MESSAGE, wt, n->begin_ns, n->ts,
						   KR_KIND_NONE);
			if (h) {
				h->other_tid = th->tid;
				h->seq = wseq;
				h->ucall = n->kind;
			}
			w.ucall = n->kind;
			t = wt;
			s = wseq;
			now = n->begin_ns < n->ts ? n->begin_ns : n->ts;
			break;
		}
		default: /* WAKEUP, SUBMIT, FORK sent by t: t went on */
			break;
		}
	}
	p->truncated = w.cut;
	p->start_ns = now;
	/* newest first -> chronological */
	for (uint32_t i = 0, j = p->nhops ? p->nhops - 1 : 0; i < j; i++, j--) {
		struct kr_hop tmp = p->hops[i];

		p->hops[i] = p->hops[j];
		p->hops[j] = tmp;
	}
	free(w.cur);
	return 0;
}
