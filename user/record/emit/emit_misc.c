// SPDX-License-Identifier: GPL-2.0-only
/* Page faults, io_uring, and the Katra-native records (epochs, counters,
 * drops). */
#include <string.h>

#include "emit_int.h"
#include "katra/utf8.h"

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

/* Submissions and completions: the event built field by field (its
 * payload cleared by its own memset), the request table touched once (an
 * insert at the submission, a lookup-and-remove at the completion). */
int emit_uring(struct emitter *e, const struct pending *p)
{
	const struct katra_wire_head *h = &p->u.head;
	/* completions can run in another task's context: no state for it */
	/* a completion in an untraced context is thread 0 (no state) */
	struct thread_state *th = h->tid ? emit_thread(e, h->tid, h->tgid) : NULL;
	struct katra_event ev;
	uint64_t causes[2];
	unsigned n = 0;
	bool created;

	if (emit_late(e, th, h->tid, p->key, 1))
		return 0;
	if (p->kind != PEND_URING_COMPLETE) {
		int rc = emit_running(e, th, h->tid, p->key);
		if (rc)
			return rc;
		if (p->kind == PEND_URING_CREATE)
			return uring_create(e, p, th);
	}

	ev.thread_id = h->tid;
	ev.process_id = h->tgid;
	ev.scope = KATRA_SCOPE_LINUX;
	ev.phase = KATRA_PHASE_INSTANT;
	ev.span_id = (struct katra_opt_u64){ false, 0 };
	ev.cost_estimate_ns = (struct katra_opt_u64){ false, 0 };
	ev.confidence = KATRA_CONFIDENCE_MEASURED;
	ev.resource.domain = KATRA_RES_IO_URING;
	memset(&ev.payload, 0, sizeof(ev.payload));
	if (p->kind == PEND_URING_SUBMIT) {
		emit_note_tracked(e, th, causes, &n);
		ev.kind = KATRA_KIND_IO_URING_SUBMIT;
		ev.resource.id = p->u.us.ctx;
		ev.request_id = emit_some(p->u.us.user_data);
		ev.payload.type = KATRA_PAYLOAD_IO_URING_SUBMIT;
		ev.payload.u.io_uring_submit.ctx = p->u.us.ctx;
		ev.payload.u.io_uring_submit.user_data = p->u.us.user_data;
		ev.payload.u.io_uring_submit.opcode = p->u.us.opcode;
		ev.payload.u.io_uring_submit.flags = (uint32_t)p->u.us.req_flags;
		ev.payload.u.io_uring_submit.fd = -1;
		uint64_t *slot = ktable_upsert(&e->urings, p->u.us.req, &created);
		if (slot)
			*slot = e->next_seq;
		else
			e->st.evictions[KATRA_DROP_IO_URING_TABLE]++;
	} else { /* PEND_URING_COMPLETE (emit_pending lists the three) */
		ev.kind = KATRA_KIND_IO_URING_COMPLETE;
		ev.resource.id = p->u.ucp.ctx;
		ev.request_id = emit_some(p->u.ucp.user_data);
		/* its submission's seq, the request forgotten: one lookup */
		if (ktable_take_u64(&e->urings, p->u.ucp.req, &causes[n]))
			n++;
		ev.payload.type = KATRA_PAYLOAD_IO_URING_COMPLETE;
		ev.payload.u.io_uring_complete.ctx = p->u.ucp.ctx;
		ev.payload.u.io_uring_complete.user_data = p->u.ucp.user_data;
		ev.payload.u.io_uring_complete.res = p->u.ucp.res;
		ev.payload.u.io_uring_complete.cflags = p->u.ucp.cflags;
	}
	ev.causes = (struct katra_u64_vec){ causes, n };
	return emit_write(e, &ev, p->key, th);
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

