// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue_sched.h" /* and pipeline.h */

int pipeline_init(struct pipeline *pl, struct katra_writer *w, const struct pipeline_config *c)
{
	int rc;

	memset(pl, 0, sizeof(*pl));
	pl->nrings = c->nrings;
	pl->end_key = UINT64_MAX;
	rc = order_init(&pl->order, c->nrings, c->fifo_items,
			c->max_items ? c->max_items : SIZE_MAX);
	if (rc)
		return rc;
	pl->kq_cap = 64;
	pl->kq = malloc(pl->kq_cap * sizeof(*pl->kq));
	pl->bad_by_ring = calloc(c->nrings ? c->nrings : 1, sizeof(uint64_t));
	pl->bad_reported = calloc(c->nrings ? c->nrings : 1, sizeof(uint64_t));
	if (!pl->kq || !pl->bad_by_ring || !pl->bad_reported) {
		pipeline_free(pl);
		return -ENOMEM;
	}
	rc = emitter_init(&pl->em, w, c->start_mono, c->start_wall, c->record_paths, &c->limits);
	if (rc)
		pipeline_free(pl);
	return rc;
}

void pipeline_free(struct pipeline *pl)
{
	emitter_free(&pl->em);
	order_free(&pl->order);
	free(pl->kq);
	free(pl->bad_by_ring);
	free(pl->bad_reported);
	pl->kq = NULL;
	pl->bad_by_ring = pl->bad_reported = NULL;
}

static struct kq_item *kq_at(struct pipeline *r, size_t i)
{
	return &r->kq[i & (r->kq_cap - 1)];
}

/* ---- emission in key order ---- */

int pipeline_emit_kq(struct pipeline *r, const struct kq_item *k)
{
	switch (k->type) {
	case KQ_EPOCH:
		return emit_epoch(&r->em, k->key, k->kind, k->name, k->name_len);
	case KQ_COUNTER:
		/* events recorded is read when written, so it counts what precedes it */
		return emit_counter(&r->em, k->key, k->kind, k->instance,
				    k->kind == KATRA_COUNTER_EVENTS_RECORDED ? r->em.st.events : k->value);
	default:
		return emit_drop(&r->em, k->key, k->kind, k->instance, k->value);
	}
}

/* True when the End of a combined syscall whose Begin was just written is
 * the next item pipeline_emit_until() would write (limit: its own): the
 * smallest of all, at or below the limit, after no Katra record, within the
 * capture.  Then it is written in place, not sent through the merge. */
static inline __attribute__((always_inline)) bool end_comes_next(struct pipeline *r,
								 unsigned ring,
								 const struct pending *p,
								 uint64_t limit)
{
	bool kq_first = r->kq_head != r->kq_tail && kq_at(r, r->kq_head)->key <= p->key;

	return p->key <= limit && p->key <= r->end_key && p->key >= r->em.start_mono &&
	       !kq_first && !r->generic_order && order_top_stays(&r->order, ring, p->key);
}

/* Writes the head item of ring.  A combined syscall writes its Begin and
 * stays as its End, re-sorted by its exit time (one FIFO item, not two);
 * when that End comes next (below limit), it is written too. */
static inline __attribute__((always_inline)) int emit_head(struct pipeline *r, unsigned ring,
							 struct pending *p, uint64_t limit)
{
	int rc;

	if (p->key > r->end_key) { /* after the capture's end */
		order_pop(&r->order, ring);
		return 0;
	}
	if (p->key < r->em.start_mono) {
		/* before the capture's start (the probes ran while the layers of
		 * what exists were put on): not written; a syscall under way at
		 * the start is one that returns without a Begin, as under -p */
		if (p->kind == PEND_SYSCALL_PAIR && p->u.sc.exit_ts >= r->em.start_mono) {
			p->kind = PEND_SYSCALL_ORPHAN;
			p->key = p->u.sc.exit_ts;
			order_resort_head(&r->order, ring);
		} else {
			order_pop(&r->order, ring);
		}
		return 0;
	}
	if (p->kind == PEND_SYSCALL_PAIR) {
		p->kind = PEND_SYSCALL_BEGIN;
		rc = emit_pending_syscall(&r->em, p, false);
		p->kind = PEND_SYSCALL_END;
		p->key = p->u.sc.exit_ts;
		if (!rc && end_comes_next(r, ring, p, limit)) {
			r->ends_in_place++;
			rc = emit_pending_syscall(&r->em, p, true);
			order_pop(&r->order, ring);
			return rc;
		}
		order_resort_head(&r->order, ring);
		return rc;
	}
	if (p->kind == PEND_GPU_FENCE && p->u.gf.what == KATRA_GPU_VBLANK_DELIVERED) {
		const struct ring_fifo *f = &r->order.fifos[ring];
		const struct pending *next = &f->items[(f->head + 1) & (f->cap - 1)];
		r->em.gpu_next = f->head + 1 != f->tail && next->kind == PEND_GPU_FENCE ?
					 &next->u.gf : NULL;
	}
	rc = emit_pending(&r->em, p);
	r->em.gpu_next = NULL;
	order_pop(&r->order, ring);
	return rc;
}

/* A display event delivered is held while nothing after it on its CPU has
 * been read and the watermark is less than PIPELINE_DELIVERY_HOLD_NS past
 * it: the out-fence the kernel signals with it (the next record of that
 * CPU, written under the same lock with interrupts off) is then read too,
 * and links the delivery to its commit (emit_gpu.c). */
static inline bool held_item(const struct pipeline *r, const struct pending *p, bool last,
			     uint64_t limit)
{
	return p->kind == PEND_GPU_FENCE && p->u.gf.what == KATRA_GPU_VBLANK_DELIVERED && last &&
	       limit - p->key < PIPELINE_DELIVERY_HOLD_NS && p->key <= r->end_key;
}

/* The same for ring's head item p. */
static inline bool held(const struct pipeline *r, unsigned ring, const struct pending *p,
			uint64_t limit)
{
	const struct ring_fifo *f = &r->order.fifos[ring];

	return held_item(r, p, f->head + 1 == f->tail, limit);
}

/* The FIFO's head as a run left it (the items before head written): set
 * before anything that reads the FIFO or the heap. */
static inline void run_sync(struct order *o, struct ring_fifo *f, size_t head)
{
	o->pending -= head - f->head;
	f->head = head;
}

/* The combined syscall p, at ring's head in a run, its End after the next
 * io_uring items of its FIFO within bound (io_uring_enter and its requests):
 * the Begin, those items, then the End, copied once to where the merge would
 * find it (no trip through the FIFO and the heap).  1 (rc 0): the run goes on
 * at the End, now the head; else rc, the run ended (the heap set). */
static int emit_pair_around_uring(struct pipeline *r, unsigned ring, struct pending *p,
				  uint64_t bound)
{
	struct order *o = &r->order;
	struct ring_fifo *f = &o->fifos[ring];
	size_t mask = f->cap - 1, i = f->head + 1;
	uint64_t exit_ts = p->u.sc.exit_ts;
	int rc;

	p->kind = PEND_SYSCALL_BEGIN;
	rc = emit_pending_syscall(&r->em, p, false);
	p->kind = PEND_SYSCALL_END;
	p->key = exit_ts;
	while (!rc && i != f->tail) {
		const struct pending *q = &f->items[i & mask];

		if (q->key >= exit_ts || q->key > bound ||
		    (q->kind != PEND_URING_SUBMIT && q->kind != PEND_URING_COMPLETE))
			break;
		rc = emit_pending(&r->em, q);
		r->uring_in_pair++;
		i++;
	}
	if (i != f->head + 1) {
		/* the End to the last slot written, the items before it gone */
		f->items[(i - 1) & mask] = *p;
		o->pending -= i - 1 - f->head;
		f->head = i - 1;
	}
	if (rc || (i != f->tail && f->items[i & mask].key < exit_ts)) {
		order_resort_head(o, ring);
		return rc;
	}
	return 1;
}

/* Writes the head item of ring, at the heap's top, and the items after it
 * in its FIFO for as long as they come before everything else: what
 * emit_head() does item by item, with the heap set once at the end (a busy
 * CPU's records come in runs).  Anything but an item inside the capture, a
 * combined syscall whose End comes next or an item written whole ends the
 * run through emit_head().  The FIFO's head is kept in a register meanwhile
 * (the emitters never read the FIFOs, and no record arrives during a run):
 * stored once, not reloaded after every emitter's call. */
static int emit_run(struct pipeline *r, unsigned ring, struct pending *p, uint64_t limit)
{
	struct order *o = &r->order;
	struct ring_fifo *f = &o->fifos[ring];
	struct pending *items = f->items;
	size_t mask = f->cap - 1, head = f->head, tail = f->tail;
	uint64_t bound = order_run_bound(o, ring);
	int rc = 0;

	if (r->kq_head != r->kq_tail) /* a Katra record at an equal key goes first */
		bound = bound < kq_at(r, r->kq_head)->key - 1 ? bound : kq_at(r, r->kq_head)->key - 1;
	bound = bound < limit ? bound : limit;
	bound = bound < r->end_key ? bound : r->end_key;
	/* tested on the first item only: the keys that follow it in its FIFO
	 * are not smaller, and the run takes none above bound (<= end_key) */
	if (p->key < r->em.start_mono || p->key > r->end_key || r->generic_order)
		return emit_head(r, ring, p, limit);
	/* bound >= the first key >= start_mono: one unsigned compare tells an
	 * End inside [start_mono, bound] */
	uint64_t span = bound - r->em.start_mono;
	for (;;) {
		if (p->kind == PEND_GPU_FENCE && p->u.gf.what == KATRA_GPU_VBLANK_DELIVERED) {
			run_sync(o, f, head);
			return emit_head(r, ring, p, limit);
		}
		if (p->kind == PEND_SYSCALL_PAIR) {
			uint64_t exit_ts = p->u.sc.exit_ts;
			/* its End next: before the FIFO's next item and within the run */
			if (exit_ts - r->em.start_mono > span) {
				run_sync(o, f, head);
				if (exit_ts < p->key ||
				    (head + 1 != tail && items[(head + 1) & mask].key < exit_ts))
					return emit_head(r, ring, p, limit);
				/* its End after another ring's head (a thread on
				 * another CPU ran meanwhile): the Begin now, the End
				 * stays the head, keyed by its exit, as emit_head()
				 * leaves it, without its checks and re-sort */
				p->kind = PEND_SYSCALL_BEGIN;
				rc = emit_pending_syscall(&r->em, p, false);
				p->kind = PEND_SYSCALL_END;
				p->key = exit_ts;
				r->begins_apart++;
				order_run_end(o, ring);
				return rc;
			}
			if (head + 1 != tail && items[(head + 1) & mask].key < exit_ts) {
				const struct pending *q = &items[(head + 1) & mask];

				run_sync(o, f, head);
				if (q->kind != PEND_URING_SUBMIT && q->kind != PEND_URING_COMPLETE)
					return emit_head(r, ring, p, limit);
				rc = emit_pair_around_uring(r, ring, p, bound);
				if (rc != 1)
					return rc;
				rc = 0;
				head = f->head;
				p = &items[head & mask]; /* its End, next */
				continue;
			}
			r->ends_in_place++;
			rc = emit_pending_syscall_pair(&r->em, p);
			if (rc > 0) { /* not the common pair: its halves one by one */
				p->kind = PEND_SYSCALL_BEGIN;
				rc = emit_pending_syscall(&r->em, p, false);
				p->kind = PEND_SYSCALL_END;
				p->key = exit_ts;
				if (rc) { /* the End stays, as emit_head() leaves it */
					r->ends_in_place--;
					run_sync(o, f, head);
					order_resort_head(o, ring);
					return rc;
				}
				rc = emit_pending_syscall(&r->em, p, true);
			}
		} else if (p->kind == PEND_SYSCALL_END) {
			rc = emit_pending_syscall(&r->em, p, true);
		} else {
			rc = emit_pending(&r->em, p);
		}
		head++; /* order_run_pop() */
		if (rc || head == tail)
			break;
		p = &items[head & mask];
		if (p->key > bound || (limit != UINT64_MAX && held_item(r, p, head + 1 == tail, limit)))
			break;
	}
	run_sync(o, f, head);
	order_run_end(o, ring);
	return rc;
}

void pipeline_end_at(struct pipeline *r, uint64_t key)
{
	r->end_key = key;
}

/* Writes everything pending whose key is <= limit, Katra records included. */
int pipeline_emit_until(struct pipeline *r, uint64_t limit)
{
	int rc = 0;

	while (!rc) {
		bool kq_ready = r->kq_head != r->kq_tail && kq_at(r, r->kq_head)->key <= limit;
		unsigned ring;
		struct pending *p = order_peek(&r->order, limit, &ring);
		if (kq_ready && (!p || kq_at(r, r->kq_head)->key <= p->key)) {
			rc = pipeline_emit_kq(r, kq_at(r, r->kq_head));
			r->kq_head++;
			continue;
		}
		if (!p || (limit != UINT64_MAX && held(r, ring, p, limit)))
			break;
		rc = emit_run(r, ring, p, limit);
	}
	return rc;
}

void pipeline_kq_push(struct pipeline *r, const struct kq_item *k)
{
	size_t n = r->kq_tail - r->kq_head, i;

	if (n == r->kq_cap) {
		/* grow: it holds a few items per ring per counter tick until the
		 * watermark passes them */
		struct kq_item *grown = malloc(2 * r->kq_cap * sizeof(*grown));
		if (!grown) {
			/* out of memory: write its head now rather than lose it */
			pipeline_emit_kq(r, kq_at(r, r->kq_head));
			r->kq_head++;
		} else {
			for (i = 0; i < n; i++)
				grown[i] = *kq_at(r, r->kq_head + i);
			free(r->kq);
			r->kq = grown;
			r->kq_cap *= 2;
			r->kq_head = 0;
			r->kq_tail = n;
		}
	}
	/* keys come in order but for a few from other sources: keep it sorted */
	i = r->kq_tail++;
	while (i != r->kq_head && kq_at(r, i - 1)->key > k->key) {
		*kq_at(r, i) = *kq_at(r, i - 1);
		i--;
	}
	*kq_at(r, i) = *k;
}

void pipeline_queue_epoch(struct pipeline *r, uint64_t key, uint32_t kind, const char *name)
{
	struct kq_item k = { .key = key, .type = KQ_EPOCH, .kind = kind };

	k.name_len = (uint32_t)snprintf(k.name, sizeof(k.name), "%s", name);
	if (k.name_len >= sizeof(k.name))
		k.name_len = sizeof(k.name) - 1;
	pipeline_kq_push(r, &k);
}

/* ---- draining the rings ---- */

static const uint32_t wire_sizes[KATRA_EV_TYPE_COUNT] = KATRA_WIRE_SIZES;

/* How far ahead of the record being queued its batch is read into the
 * cache: the probes wrote those lines on another CPU, and the first load of
 * each waited for them (a fifth of pipeline_on_record's samples on one
 * load of a combined syscall's flags).  About four records ahead. */
#define PIPELINE_PREFETCH_BYTES 512
#define PIPELINE_PREFETCH_ITEMS 4

/* slot_for() when the ring's FIFO is full and may not grow */
static __attribute__((noinline)) struct pending *slot_after_release(struct pipeline *r,
								    unsigned ring)
{
	struct pending *p = NULL;

	while (!p) {
		/* the reorder budget is spent: write the oldest item early (what
		 * then arrives behind its thread's time is dropped and counted) */
		unsigned any = 0;
		struct pending *old = order_peek(&r->order, UINT64_MAX, &any);
		emit_note_forced(&r->em, old);
		emit_head(r, any, old, 0); /* one item: each forced one is noted */
		r->forced++;
		p = order_slot(&r->order, ring);
	}
	return p;
}

static inline struct pending *slot_for(struct pipeline *r, unsigned ring)
{
	struct pending *p = order_slot(&r->order, ring);

	return p ? p : slot_after_release(r, ring);
}

/* The slot of an item that goes before its FIFO's last item (io_uring_enter
 * after the submissions and completions made inside it, a blocking call or
 * the Begin flushed at a switch-out after the switch records): written
 * where it goes (order_insert_inside), not copied to the tail and walked
 * back from there through a copy on the stack.  NULL otherwise. */
static inline struct pending *slot_inside(struct pipeline *r, unsigned ring, uint32_t kind,
					  uint64_t key)
{
	const struct ring_fifo *f = &r->order.fifos[ring];
	struct pending *p;

	if (f->tail == f->head || f->items[(f->tail - 1) & (f->cap - 1)].key <= key ||
	    !(p = order_insert_inside(&r->order, ring, key)))
		return NULL;
	p->key = key;
	p->kind = kind;
	p->ring = ring;
	return p;
}

/* Always inlined: each call site copies a constant size, which the compiler
 * does with a few vector moves; through one out-of-line copy of variable
 * size it was a `rep movsq`, the costliest instruction of the drain. */
static inline __attribute__((always_inline)) void push(struct pipeline *r, unsigned ring,
							 uint32_t kind, uint64_t key,
							 const void *data, size_t size)
{
	struct pending *p = slot_inside(r, ring, kind, key);

	if (p) {
		memcpy(&p->u, data, size);
		return;
	}
	p = slot_for(r, ring);

	p->key = key;
	p->kind = kind;
	p->ring = ring;
	memcpy(&p->u, data, size);
	order_commit(&r->order, ring);
}

/* The slot of a combined call widened where it goes (the short and mid
 * records): *placed when inside its FIFO, else at the tail, for the caller
 * to commit once written. */
static inline struct pending *pair_slot(struct pipeline *r, unsigned ring, uint64_t key,
					bool *placed)
{
	struct pending *p = slot_inside(r, ring, PEND_SYSCALL_PAIR, key);

	*placed = p;
	if (p)
		return p;
	p = slot_for(r, ring);
	p->key = key;
	p->kind = PEND_SYSCALL_PAIR;
	p->ring = ring;
	return p;
}

/* A short syscall record as the whole one it stands for (wire.h: what an
 * End reads, no file; a generic syscall's Begin and End read no
 * arguments).  Field by field into the slot, not through a local copy: its
 * field-sized stores would stall the wide loads of the copy into the slot. */
static inline __attribute__((always_inline)) void widen_short(struct katra_ev_syscall *sc,
							       const struct katra_ev_syscall_short *ss)
{
	sc->head = ss->head;
	sc->enter_ts = ss->enter_ts;
	sc->exit_ts = ss->head.ts;
	sc->ret = ss->ret;
	sc->nr = ss->nr;
	sc->flags = ss->flags;
	sc->dev = 0;
	sc->ino = 0;
}

/* A mid-sized syscall record as the whole one it stands for (wire.h) */
static inline __attribute__((always_inline)) void widen_mid(struct katra_ev_syscall *sc,
							     const struct katra_ev_syscall_mid *ms)
{
	sc->head = ms->head;
	sc->enter_ts = ms->enter_ts;
	sc->exit_ts = ms->head.ts;
	sc->ret = ms->ret;
	sc->nr = ms->nr;
	sc->flags = ms->flags;
	sc->dev = ms->dev;
	sc->ino = ms->ino;
	sc->aux = 0;
	memcpy(sc->args, ms->args, sizeof(ms->args));
	sc->args[4] = 0;
	sc->args[5] = 0;
}

/* A staging batch (wire.h): its records one by one, as if each had been a
 * ring record of its own; a record that does not fit, or a batch inside it,
 * is a bad record. */
static void on_batch(struct pipeline *r, const uint8_t *data, size_t size)
{
	const struct katra_ev_batch *b = (const void *)data;
	size_t off = sizeof(*b), end = sizeof(*b) + b->bytes;

	if (end > size) {
		r->bad_records++;
		return;
	}
	/* every line of the batch asked for at once: their waits overlap */
	for (size_t l = 64; l < end; l += 64)
		__builtin_prefetch(data + l);
	while (off + sizeof(struct katra_wire_head) <= end) {
		const struct katra_wire_head *h = (const void *)(data + off);
		size_t n = h->type < KATRA_EV_TYPE_COUNT ? wire_sizes[h->type] : 0;

		/* the ring's lines ahead (a hint only: past the batch they are
		 * the ring's next record, or nothing) */
		__builtin_prefetch(data + off + PIPELINE_PREFETCH_BYTES);

		if (!n || h->type == KATRA_EV_BATCH || off + n > end) {
			r->bad_records++;
			return;
		}
		if (h->type != KATRA_EV_HOLE) /* a place never filled (wire.h) */
			pipeline_on_record(r, (void *)h, n);
		off += (n + 7) & ~(size_t)7;
	}
}

static __attribute__((noinline)) int on_record_any(struct pipeline *r, void *data, size_t size)
{
	const struct katra_wire_head *h = data;
	unsigned ring;

	if (size < sizeof(*h) || h->type == 0 || h->type >= KATRA_EV_TYPE_COUNT ||
	    size < wire_sizes[h->type] || h->cpu >= r->nrings) {
		r->bad_records++;
		r->bad_by_ring[r->reading_ring < r->nrings ? r->reading_ring : 0]++;
		return 0;
	}
	ring = h->cpu;
	switch (h->type) {
	case KATRA_EV_BATCH:
		on_batch(r, data, size);
		break;
	case KATRA_EV_SYSCALL: {
		const struct katra_ev_syscall *sc = data;
		/* at its return (combined, or the exit of a flushed one): mapped;
		 * an anon inode's dev/ino hold its name, not an identity */
		if (r->on_exec_map && sc->nr == 9 /* mmap */ && (sc->flags & KATRA_SC_EXIT) &&
		    !(sc->flags & (KATRA_SC_NO_ENTER | KATRA_SC_I386 | KATRA_SC_ANON)) &&
		    (sc->flags & KATRA_SC_FILE) && sc->ret >= 0 && (sc->args[2] & 4 /* PROT_EXEC */))
			r->on_exec_map(r->map_ctx, h->tgid, sc->dev, sc->ino);
		if (sc->flags & KATRA_SC_NO_ENTER) {
			push(r, ring, PEND_SYSCALL_ORPHAN, h->ts, sc, sizeof(*sc));
			break;
		}
		if ((sc->flags & (KATRA_SC_FLUSHED | KATRA_SC_EXIT)) == KATRA_SC_EXIT)
			push(r, ring, PEND_SYSCALL_PAIR, sc->enter_ts, sc, sizeof(*sc));
		else if (!(sc->flags & KATRA_SC_FLUSHED))
			push(r, ring, PEND_SYSCALL_BEGIN, sc->enter_ts, sc, sizeof(*sc));
		else /* an End reads no arguments */
			push(r, ring, PEND_SYSCALL_END, h->ts, sc, KATRA_EV_SYSCALL_END_BYTES);
		break;
	}
	case KATRA_EV_SYSCALL_END: /* the prefix of a katra_ev_syscall (wire.h) */
		push(r, ring, PEND_SYSCALL_END, h->ts, data, KATRA_EV_SYSCALL_END_BYTES);
		break;
	case KATRA_EV_SYSCALL_SHORT: {
		const struct katra_ev_syscall_short *ss = data;
		bool placed;
		struct pending *p = pair_slot(r, ring, ss->enter_ts, &placed);

		widen_short(&p->u.sc, ss);
		if (!placed)
			order_commit(&r->order, ring);
		break;
	}
	case KATRA_EV_SYSCALL_MID: {
		const struct katra_ev_syscall_mid *ms = data;
		bool placed;
		struct pending *p = pair_slot(r, ring, ms->enter_ts, &placed);

		widen_mid(&p->u.sc, ms);
		if (!placed)
			order_commit(&r->order, ring);
		break;
	}
	case KATRA_EV_PATH:
		emit_stash_path(&r->em, data);
		break;
	case KATRA_EV_HOLE: /* only ever inside a batch, where it is skipped */
		break;
	case KATRA_EV_SWITCH:
		push(r, ring, PEND_SWITCH, h->ts, data, sizeof(struct katra_ev_switch));
		break;
	case KATRA_EV_WAKING:
		push(r, ring, PEND_WAKING, h->ts, data, sizeof(struct katra_ev_waking));
		break;
	case KATRA_EV_FORK:
		push(r, ring, PEND_FORK, h->ts, data, sizeof(struct katra_ev_fork));
		break;
	case KATRA_EV_EXEC:
		push(r, ring, PEND_EXEC, h->ts, data, sizeof(struct katra_ev_exec));
		break;
	case KATRA_EV_EXIT:
		push(r, ring, PEND_EXIT, h->ts, data, sizeof(struct katra_ev_exit));
		break;
	case KATRA_EV_PAGE_FAULT: {
		const struct katra_ev_page_fault *pf = data;
		if (pf->flags & KATRA_PF_MEASURED) {
			push(r, ring, PEND_FAULT_BEGIN, pf->enter_ts, data, sizeof(*pf));
			push(r, ring, PEND_FAULT_END, h->ts, data, sizeof(*pf));
		} else if (pf->flags & KATRA_PF_BEGIN) {
			push(r, ring, PEND_FAULT_BEGIN, pf->enter_ts, data, sizeof(*pf));
		} else if (pf->flags & KATRA_PF_END) {
			push(r, ring, PEND_FAULT_END, h->ts, data, sizeof(*pf));
		} else {
			push(r, ring, PEND_PAGE_FAULT, h->ts, data, sizeof(*pf));
		}
		break;
	}
	case KATRA_EV_URING_CREATE:
		push(r, ring, PEND_URING_CREATE, h->ts, data, sizeof(struct katra_ev_uring_create));
		break;
	case KATRA_EV_URING_SUBMIT:
		push(r, ring, PEND_URING_SUBMIT, h->ts, data, sizeof(struct katra_ev_uring_submit));
		break;
	case KATRA_EV_URING_COMPLETE:
		push(r, ring, PEND_URING_COMPLETE, h->ts, data,
		     sizeof(struct katra_ev_uring_complete));
		break;
	case KATRA_EV_UCALL:
		/* ENTER and EXIT are each written when they happen: key = head.ts */
		push(r, ring, PEND_UCALL, h->ts, data, sizeof(struct katra_ev_ucall));
		break;
	case KATRA_EV_TASK_RENAME:
		push(r, ring, PEND_TASK_RENAME, h->ts, data, sizeof(struct katra_ev_task_rename));
		break;
	case KATRA_EV_GPU_FENCE:
		push(r, ring, PEND_GPU_FENCE, h->ts, data, sizeof(struct katra_ev_gpu_fence));
		break;
	case KATRA_EV_GPU_TIMELINE:
		push(r, ring, PEND_GPU_TIMELINE, h->ts, data, sizeof(struct katra_ev_gpu_timeline));
		break;
	case KATRA_EV_GPU_CMD:
		push(r, ring, PEND_GPU_CMD, h->ts, data, sizeof(struct katra_ev_gpu_cmd));
		break;
	}
	return 0;
}

/* The slot at the tail of ring's FIFO when an item of this key goes there
 * as order_commit() finds it: room without growth, after the FIFO's last
 * item, its ring in the heap (NULL otherwise: on_record_any then).  Between
 * runs a ring is in the heap exactly while its FIFO holds items (order.c
 * puts it there at its first item and takes it out with its last), so
 * "neither empty nor full" is one unsigned compare. */
static inline struct ring_fifo *tail_fits(struct pipeline *r, unsigned ring, uint64_t key)
{
	struct ring_fifo *f = &r->order.fifos[ring];
	size_t mask = f->cap - 1;

	if (f->tail - f->head - 1 >= mask || f->items[(f->tail - 1) & mask].key > key)
		return NULL;
	return f;
}

/* The slot at the tail of f (tail_fits() said it fits), its item made one
 * of `kind` at `key` on ring; the caller writes its record, then the tail
 * moves. */
static inline __attribute__((always_inline)) struct pending *tail_slot(struct ring_fifo *f,
									unsigned ring,
									uint32_t kind,
									uint64_t key)
{
	struct pending *p = &f->items[f->tail & (f->cap - 1)];

	p->key = key;
	p->kind = kind;
	p->ring = ring;
	return p;
}

/* A submission's and a completion's wire records: one size, one copy */
#define URING_RECORD_BYTES sizeof(struct katra_ev_uring_submit)
_Static_assert(sizeof(struct katra_ev_uring_complete) == URING_RECORD_BYTES,
	       "io_uring submissions and completions are copied alike");

/* The common records first, with no call on their way (each call saved and
 * restored six registers per record): a short syscall record, a whole
 * combined one, an io_uring submission or completion, a switch, a wakeup,
 * a page fault (queue_sched.h: a jump), after what their FIFO holds.  The rest,
 * and these where the FIFO must grow or sort, through on_record_any(). */
int pipeline_on_record(void *ctx, void *data, size_t size)
{
	struct pipeline *r = ctx;
	const struct katra_wire_head *h = data;
	struct ring_fifo *f;
	struct pending *p;

	if (size < sizeof(*h) || h->cpu >= r->nrings)
		return on_record_any(r, data, size);
	if (h->type == KATRA_EV_SYSCALL_SHORT && size >= sizeof(struct katra_ev_syscall_short)) {
		const struct katra_ev_syscall_short *ss = data;

		if (!(f = tail_fits(r, h->cpu, ss->enter_ts)))
			return on_record_any(r, data, size);
		p = tail_slot(f, h->cpu, PEND_SYSCALL_PAIR, ss->enter_ts);
		widen_short(&p->u.sc, ss);
	} else if (h->type == KATRA_EV_SYSCALL_MID && size >= sizeof(struct katra_ev_syscall_mid)) {
		const struct katra_ev_syscall_mid *ms = data;

		if (!(f = tail_fits(r, h->cpu, ms->enter_ts)))
			return on_record_any(r, data, size);
		p = tail_slot(f, h->cpu, PEND_SYSCALL_PAIR, ms->enter_ts);
		widen_mid(&p->u.sc, ms);
	} else if (h->type == KATRA_EV_SYSCALL && size >= sizeof(struct katra_ev_syscall)) {
		const struct katra_ev_syscall *sc = data;

		/* combined (not flushed, not orphan) and no executable mapping
		 * to report */
		if ((sc->flags & (KATRA_SC_NO_ENTER | KATRA_SC_FLUSHED | KATRA_SC_EXIT)) !=
			    KATRA_SC_EXIT ||
		    (sc->nr == 9 && r->on_exec_map) || !(f = tail_fits(r, h->cpu, sc->enter_ts)))
			return on_record_any(r, data, size);
		p = tail_slot(f, h->cpu, PEND_SYSCALL_PAIR, sc->enter_ts);
		memcpy(&p->u, sc, sizeof(*sc));
	} else if ((h->type == KATRA_EV_URING_SUBMIT || h->type == KATRA_EV_URING_COMPLETE) &&
		   size >= URING_RECORD_BYTES) {
		/* an io_uring submission or completion: as push() queues it */
		if (r->generic_order || !(f = tail_fits(r, h->cpu, h->ts)))
			return on_record_any(r, data, size);
		p = tail_slot(f, h->cpu,
			      h->type == KATRA_EV_URING_SUBMIT ? PEND_URING_SUBMIT : PEND_URING_COMPLETE,
			      h->ts);
		memcpy(&p->u, data, URING_RECORD_BYTES);
	} else {
		return pipeline_on_sched_record(r, data, size, on_record_any);
	}
	f->tail++;
	r->order.pending++;
	/* the slot a few records on, for writing: the FIFO cycles through more
	 * than the cache keeps between two marks, and the stores of each slot
	 * otherwise waited for its lines */
	const char *ahead = (const char *)&f->items[(f->tail + PIPELINE_PREFETCH_ITEMS) & (f->cap - 1)];
	__builtin_prefetch(ahead, 1);
	__builtin_prefetch(ahead + 64, 1);
	__builtin_prefetch(ahead + 128, 1);
	return 0;
}
