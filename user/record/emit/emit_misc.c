// SPDX-License-Identifier: GPL-2.0-only
/* Page faults, io_uring, and the Katra-native records (epochs, counters,
 * drops). */
#include <string.h>

#include "emit_int.h"
#include "katra/utf8.h"

/* A fault's common instant, Begin or End (see emit_page_fault). */
static int fault_plain(struct emitter *e, struct thread_state *th, const struct pending *p)
{
	const struct katra_ev_page_fault *f = &p->u.pf;
	uint64_t seq = e->next_seq++, span, cause = 0;
	uint32_t phase;

	if (p->kind == PEND_PAGE_FAULT) {
		phase = KATRA_PHASE_INSTANT;
		span = 0;
	} else if (p->kind == PEND_FAULT_BEGIN) {
		phase = KATRA_PHASE_BEGIN;
		span = e->next_span++;
		th->flags |= TH_FAULT_OPEN;
		th->pf_span = span;
		th->pf_seq = seq;
		th->pf_enter_key = f->enter_ts;
	} else {
		phase = KATRA_PHASE_END;
		span = th->pf_span;
		cause = th->pf_seq;
		th->flags &= ~TH_FAULT_OPEN;
	}
	uint64_t ts = emit_note_scalar(e, th, f->head.tid, f->head.tgid, KATRA_KIND_PAGE_FAULT,
				       p->key);
	e->error = katra_writer_append_fault(e->w, seq, span, cause, f->head.tid, f->head.tgid,
					     phase, ts, e->start_wall, f->address, f->ip,
					     f->error_code);
	return e->error;
}

/* An instant, or a measured fault's Begin / End (one span per thread at a
 * time: a thread cannot fault again before its fault returns). */
int emit_page_fault(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_page_fault *f = &p->u.pf;
	struct thread_state *th = emit_thread(e, f->head.tid, f->head.tgid);
	uint32_t phase = KATRA_PHASE_INSTANT;
	struct katra_event ev;
	uint64_t causes[2];
	unsigned n = 0;

	if (emit_late(e, th, f->head.tid, p->key, 1))
		return 0;
	/* the common instant and Begin (on the CPU, no cause) and End (its
	 * Begin open): to the writer as scalars, no katra_event */
	if (th && !e->frames.count && !e->error && !e->generic_events &&
	    (p->kind != PEND_FAULT_END ? !(th->flags & (TH_OFFCPU_OPEN | TH_FIRST_CAUSE))
				       : (th->flags & TH_FAULT_OPEN) &&
						 th->pf_enter_key == f->enter_ts))
		return fault_plain(e, th, p);
	if (p->kind != PEND_FAULT_END) {
		int rc = emit_running(e, th, f->head.tid, p->key);
		if (rc)
			return rc;
	}

	if (p->kind == PEND_FAULT_BEGIN && th) {
		phase = KATRA_PHASE_BEGIN;
	} else if (p->kind == PEND_FAULT_END && th && (th->flags & TH_FAULT_OPEN) &&
		   th->pf_enter_key == f->enter_ts) {
		phase = KATRA_PHASE_END;
	}
	/* an End without its Begin (no thread state for it): an instant */
	emit_base(&ev, &f->head, KATRA_SCOPE_LINUX, KATRA_KIND_PAGE_FAULT, phase);
	if (phase == KATRA_PHASE_END) {
		th->flags &= ~TH_FAULT_OPEN;
		ev.span_id = emit_some(th->pf_span);
		causes[n++] = th->pf_seq;
	} else {
		emit_note_tracked(e, th, causes, &n);
	}
	if (phase == KATRA_PHASE_BEGIN) {
		ev.span_id = emit_some(e->next_span++);
		th->flags |= TH_FAULT_OPEN;
		th->pf_span = ev.span_id.value;
		th->pf_seq = e->next_seq;
		th->pf_enter_key = f->enter_ts;
	}
	ev.causes = (struct katra_u64_vec){ causes, n };
	ev.resource.domain = KATRA_RES_MEMORY;
	ev.resource.id = f->address;
	ev.payload.type = KATRA_PAYLOAD_PAGE_FAULT;
	ev.payload.u.page_fault.address = f->address;
	ev.payload.u.page_fault.ip = f->ip;
	ev.payload.u.page_fault.error_code = f->error_code;
	return emit_write(e, &ev, p->key, th);
}

/* ---- io_uring ---- */

/* A ring's creation (rare: out of the common path). */
static __attribute__((noinline)) int uring_create(struct emitter *e, const struct pending *p,
						  struct thread_state *th)
{
	struct katra_event ev;
	uint64_t causes[2];
	unsigned n = 0;

	emit_base(&ev, &p->u.head, KATRA_SCOPE_LINUX, KATRA_KIND_IO_URING_CREATE,
		  KATRA_PHASE_INSTANT);
	emit_note_tracked(e, th, causes, &n);
	ev.resource.domain = KATRA_RES_IO_URING;
	ev.resource.id = p->u.uc.ctx;
	ev.payload.type = KATRA_PAYLOAD_IO_URING_CREATE;
	ev.payload.u.io_uring_create.ctx = p->u.uc.ctx;
	ev.payload.u.io_uring_create.fd = (int32_t)p->u.uc.fd;
	ev.payload.u.io_uring_create.sq_entries = p->u.uc.sq_entries;
	ev.payload.u.io_uring_create.cq_entries = p->u.uc.cq_entries;
	ev.payload.u.io_uring_create.flags = p->u.uc.flags;
	ev.causes = (struct katra_u64_vec){ causes, n };
	return emit_write(e, &ev, p->key, th);
}

/* A submission or completion while frames are tagged: the general path
 * (emit_write tags it). */
static __attribute__((noinline)) int uring_tagged(struct emitter *e,
						  const struct katra_io_uring_req *r,
						  const struct katra_wire_head *h,
						  struct thread_state *th, uint64_t key)
{
	struct katra_event ev;
	uint64_t cause = r->cause;

	emit_base(&ev, h, KATRA_SCOPE_LINUX, r->kind, KATRA_PHASE_INSTANT);
	ev.resource = (struct katra_resource){ KATRA_RES_IO_URING, r->ctx };
	ev.request_id = emit_some(r->user_data);
	ev.causes = (struct katra_u64_vec){ &cause, r->ncauses };
	katra_io_uring_payload(&ev.payload, r, r->kind);
	return emit_write(e, &ev, key, th);
}

/* A submission's request -> the seq its event gets (e->next_seq), for its
 * completion.  The one request in flight while the table is empty waits in
 * e->uring_one; a second moves it into the table first, so the table then
 * holds what it held without the slot, each request once (a request
 * submitted again, its completion not seen, replaces its seq as the
 * table's upsert does) and the table's refusals count as they did. */
static inline void uring_note_submit(struct emitter *e, uint64_t req)
{
	uint64_t *slot;
	bool created;

	if (e->uring_one && e->uring_one_req == req) {
		e->uring_one_seq = e->next_seq;
		return;
	}
	if (!e->uring_one && !e->urings.count && e->urings.max_items) {
		e->uring_one = true;
		e->uring_one_req = req;
		e->uring_one_seq = e->next_seq;
		return;
	}
	if (e->uring_one) {
		e->uring_one = false;
		slot = ktable_upsert(&e->urings, e->uring_one_req, &created);
		if (slot)
			*slot = e->uring_one_seq;
		else
			e->st.evictions[KATRA_DROP_IO_URING_TABLE]++;
	}
	slot = ktable_upsert(&e->urings, req, &created);
	if (slot)
		*slot = e->next_seq;
	else
		e->st.evictions[KATRA_DROP_IO_URING_TABLE]++;
}

/* Submissions and completions: only their varying fields gathered, the
 * writer encoding the rest as constants (katra_writer_append_io_uring);
 * the request table touched once (an insert at the submission, a
 * lookup-and-remove at the completion). */
int emit_uring(struct emitter *e, const struct pending *p)
{
	const struct katra_wire_head *h = &p->u.head;
	/* completions can run in another task's context: no state for it */
	/* a completion in an untraced context is thread 0 (no state) */
	struct thread_state *th = h->tid ? emit_thread(e, h->tid, h->tgid) : NULL;
	struct katra_io_uring_req r;
	unsigned n = 0;

	if (emit_late(e, th, h->tid, p->key, 1))
		return 0;
	if (p->kind != PEND_URING_COMPLETE) {
		int rc = emit_running(e, th, h->tid, p->key);
		if (rc)
			return rc;
		if (p->kind == PEND_URING_CREATE)
			return uring_create(e, p, th);
	}

	if (p->kind == PEND_URING_SUBMIT) {
		emit_note_tracked(e, th, &r.cause, &n);
		r.kind = KATRA_KIND_IO_URING_SUBMIT;
		r.ctx = p->u.us.ctx;
		r.user_data = p->u.us.user_data;
		r.opcode = p->u.us.opcode;
		r.flags = (uint32_t)p->u.us.req_flags;
		r.res = 0;
		r.cflags = 0;
		uring_note_submit(e, p->u.us.req);
	} else { /* PEND_URING_COMPLETE (emit_pending lists the three) */
		r.kind = KATRA_KIND_IO_URING_COMPLETE;
		r.ctx = p->u.ucp.ctx;
		r.user_data = p->u.ucp.user_data;
		r.opcode = 0;
		r.flags = 0;
		r.res = p->u.ucp.res;
		r.cflags = p->u.ucp.cflags;
		/* its submission's seq, the request forgotten: one lookup */
		if (e->uring_one) { /* the table is empty: this or none */
			if (e->uring_one_req == p->u.ucp.req) {
				e->uring_one = false;
				r.cause = e->uring_one_seq;
				n++;
			}
		} else if (ktable_take_u64(&e->urings, p->u.ucp.req, &r.cause)) {
			n++;
		}
	}
	r.ncauses = n;
	if (!n)
		r.cause = 0;
	if (e->frames.count)
		return uring_tagged(e, &r, h, th, p->key);

	/* emit_write's bookkeeping for a Measured event */
	uint64_t ts = emit_rel(e, p->key);

	if (p->key > e->st.last_key)
		e->st.last_key = p->key;
	if (th)
		th->last_ts = ts;
	else if (h->tid == 0)
		e->tid0_last_ts = ts;
	emit_count_ids(e, h->tgid, h->tid);
	r.seq = e->next_seq++;
	r.ts_mono_ns = ts;
	r.ts_wall_ns = e->start_wall + ts;
	r.thread_id = h->tid;
	r.process_id = h->tgid;
	e->st.events++;
	e->st.by_kind[r.kind]++;
	if (e->error)
		return e->error;
	e->error = katra_writer_append_io_uring(e->w, &r);
	return e->error;
}

/* ---- Katra-native records ---- */

/* Epochs and counters belong to no thread: they keep their own time, and
 * their seq places them among the events. */
static uint64_t katra_key(struct emitter *e, uint64_t key)
{
	if (key > e->st.last_key)
		e->st.last_key = key;
	return key;
}

int emit_epoch(struct emitter *e, uint64_t key, uint32_t kind, const char *name, size_t name_len)
{
	struct katra_record r = { .type = KATRA_RECORD_EPOCH_MARKER };
	char clean[256];

	key = katra_key(e, key);
	r.u.epoch.seq = e->next_seq++;
	r.u.epoch.ts_mono_ns = emit_rel(e, key);
	r.u.epoch.ts_wall_ns = e->start_wall + emit_rel(e, key);
	r.u.epoch.epoch = e->st.epochs; /* numbered as written: Frame epochs come from here too */
	r.u.epoch.kind = kind;
	r.u.epoch.name.len = katra_utf8_sanitize(name, name_len, clean, sizeof(clean));
	r.u.epoch.name.ptr = clean;
	e->st.epochs++;
	return emit_append(e, &r);
}

int emit_counter(struct emitter *e, uint64_t key, uint32_t kind, uint32_t instance,
		 uint64_t value)
{
	struct katra_record r = { .type = KATRA_RECORD_COUNTER };

	key = katra_key(e, key);
	r.u.counter.seq = e->next_seq++;
	r.u.counter.ts_mono_ns = emit_rel(e, key);
	r.u.counter.ts_wall_ns = e->start_wall + emit_rel(e, key);
	r.u.counter.kind = kind;
	r.u.counter.instance = instance;
	r.u.counter.value = value;
	e->st.counters++;
	return emit_append(e, &r);
}

int emit_drop(struct emitter *e, uint64_t key, uint32_t source, uint32_t instance,
	      uint64_t count)
{
	struct katra_wire_head h = { 0 };
	struct katra_event ev;

	if (key < e->start_mono + e->tid0_last_ts)
		key = e->start_mono + e->tid0_last_ts; /* a count, not a measured time */
	emit_base(&ev, &h, KATRA_SCOPE_KATRA, KATRA_KIND_DROP, KATRA_PHASE_INSTANT);
	ev.resource.domain = KATRA_RES_RING;
	ev.resource.id = instance;
	ev.payload.type = KATRA_PAYLOAD_DROP;
	ev.payload.u.drop.source = source;
	ev.payload.u.drop.instance = instance;
	ev.payload.u.drop.count = count;
	return emit_write(e, &ev, key, NULL);
}

