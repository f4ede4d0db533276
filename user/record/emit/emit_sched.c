// SPDX-License-Identifier: GPL-2.0-only
/* Scheduler events: OffCpu spans (switch-out -> switch-in) and wakeups. */
#include <string.h>

#include "emit_int.h"
#include "katra/utf8.h"

/* The thread as its OffCpu Begin (span, seq) leaves it. */
static inline void off_begin(struct thread_state *th, const struct katra_ev_switch *sw,
			     uint64_t span, uint64_t seq)
{
	th->flags |= TH_OFFCPU_OPEN;
	/* a wakeup that came while it still ran did not make it runnable
	 * again later: only one after this switch-out may be its cause */
	th->flags &= ~TH_WAKEUP;
	th->off_span = span;
	th->off_seq = seq;
	th->off_cpu = sw->head.cpu;
	/* left blocked: it comes back only through a wakeup (a preempted
	 * thread's prev_state can still say it was going to sleep) */
	if (!(sw->flags & KATRA_SW_PREEMPT) && (sw->prev_state & TASK_BLOCKED_STATES))
		th->flags |= TH_BLOCKED;
	else
		th->flags &= ~TH_BLOCKED;
}

/* The leaving thread: an OffCpu Begin, or nothing at its final switch-out. */
static int switch_out(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_switch *sw = &p->u.sw;
	struct thread_state *th;
	struct katra_event ev;
	uint64_t causes[2];
	unsigned n = 0;
	int rc;

	if (sw->prev_state & TASK_DEAD_STATE) {
		/* gone for good: close what it left open, forget it.  Only after
		 * its TaskExit: a thread that exec's swaps ids with the dead
		 * leader (de_thread), whose last switch-out can then come under
		 * the exec'ing thread's old id, before the exec is seen */
		th = ktable_get(&e->threads, sw->head.tid);
		if (!th || !(th->flags & TH_EXITED) || emit_late(e, th, sw->head.tid, p->key, 1))
			return 0;
		rc = emit_running(e, th, sw->head.tid, p->key);
		if (!rc)
			emit_forget_thread(e, sw->head.tid);
		return rc;
	}
	th = emit_thread(e, sw->head.tid, sw->head.tgid);
	if (emit_late(e, th, sw->head.tid, p->key, 1))
		return 0;
	/* the common Begin: on the CPU, no cause; to the writer as scalars */
	if (th && !(th->flags & (TH_OFFCPU_OPEN | TH_FIRST_CAUSE)) && !e->frames.count &&
	    !e->error && !e->generic_events) {
		uint64_t seq = e->next_seq++, span = e->next_span++;

		off_begin(th, sw, span, seq);
		uint64_t ts = emit_note_scalar(e, th, sw->head.tid, sw->head.tgid,
					       KATRA_KIND_OFF_CPU, p->key);
		e->error = katra_writer_append_switch(e->w, seq, span, 0, 0, 0, sw->head.tid,
						      sw->head.tgid, KATRA_PHASE_BEGIN, ts,
						      e->start_wall, sw->head.cpu, sw->prev_state);
		return e->error;
	}
	rc = emit_running(e, th, sw->head.tid, p->key);
	if (rc)
		return rc;
	emit_base(&ev, &sw->head, KATRA_SCOPE_LINUX, KATRA_KIND_OFF_CPU,
		  th ? KATRA_PHASE_BEGIN : KATRA_PHASE_INSTANT);
	emit_note_tracked(e, th, causes, &n);
	ev.causes = (struct katra_u64_vec){ causes, n };
	ev.payload.type = KATRA_PAYLOAD_SWITCH;
	ev.payload.u.sched_switch.cpu = sw->head.cpu;
	ev.payload.u.sched_switch.prev_state = sw->prev_state;
	if (th) {
		ev.span_id = emit_some(e->next_span++);
		off_begin(th, sw, ev.span_id.value, e->next_seq);
	}
	return emit_write(e, &ev, p->key, th);
}

/* The common OffCpu End (see switch_in). */
static int switch_in_plain(struct emitter *e, struct thread_state *th,
			   const struct katra_ev_switch *sw, uint64_t key)
{
	uint64_t seq = e->next_seq++, wake = th->wake_seq;
	uint32_t n = th->flags & TH_WAKEUP ? 2 : 1;

	th->flags &= ~(TH_OFFCPU_OPEN | TH_WAKEUP);
	uint64_t ts = emit_note_scalar(e, th, sw->next_tid, sw->next_tgid, KATRA_KIND_OFF_CPU,
				       key);
	e->error = katra_writer_append_switch(e->w, seq, th->off_span, n, th->off_seq, wake,
					      sw->next_tid, sw->next_tgid, KATRA_PHASE_END, ts,
					      e->start_wall, sw->head.cpu, 0);
	return e->error;
}

/* The coming thread: the OffCpu End, caused by its Begin and its wakeup. */
static int switch_in(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_switch *sw = &p->u.sw;
	struct katra_wire_head nh = sw->head;
	struct thread_state *th;
	struct katra_event ev;
	uint64_t causes[3];
	unsigned n = 0;
	bool open;

	nh.tid = sw->next_tid;
	nh.tgid = sw->next_tgid;
	th = emit_thread(e, nh.tid, nh.tgid);
	if (emit_late(e, th, nh.tid, p->key, 1))
		return 0;
	open = th && (th->flags & TH_OFFCPU_OPEN);
	if (open) {
		int rc = emit_unseen_wakeup(e, th, nh.tid, p->key, sw->head.cpu);
		if (rc)
			return rc;
		/* the common End: its Begin and its wakeup (if seen) its causes;
		 * to the writer as scalars */
		if (!(th->flags & TH_FIRST_CAUSE) && !e->frames.count && !e->error &&
		    !e->generic_events)
			return switch_in_plain(e, th, sw, p->key);
	}
	emit_base(&ev, &nh, KATRA_SCOPE_LINUX, KATRA_KIND_OFF_CPU,
		  open ? KATRA_PHASE_END : KATRA_PHASE_INSTANT);
	if (open) {
		causes[n++] = th->off_seq;
		ev.span_id = emit_some(th->off_span);
		th->flags &= ~TH_OFFCPU_OPEN;
	}
	emit_note_tracked(e, th, causes, &n);
	if (th && (th->flags & TH_WAKEUP)) {
		causes[n++] = th->wake_seq;
		th->flags &= ~TH_WAKEUP;
	}
	ev.causes = (struct katra_u64_vec){ causes, n };
	ev.payload.type = KATRA_PAYLOAD_SWITCH;
	ev.payload.u.sched_switch.cpu = sw->head.cpu;
	return emit_write(e, &ev, p->key, th);
}

int emit_switch(struct emitter *e, const struct pending *p)
{
	int rc = 0;

	if (p->u.sw.flags & KATRA_SW_PREV_TRACKED)
		rc = switch_out(e, p);
	if (!rc && (p->u.sw.flags & KATRA_SW_NEXT_TRACKED))
		rc = switch_in(e, p);
	return rc;
}

/* The common wakeup (see emit_waking): the waker's bookkeeping before the
 * target's lookup, which may create the target's state. */
static int waking_plain(struct emitter *e, struct thread_state *waker,
			const struct katra_ev_waking *wk, uint64_t key)
{
	uint64_t seq = e->next_seq++;
	uint64_t ts = emit_note_scalar(e, waker, wk->head.tid, wk->head.tgid, KATRA_KIND_WAKEUP,
				       key);
	struct thread_state *target = emit_thread(e, wk->target_tid, wk->target_tgid);

	if (target) {
		target->flags |= TH_WAKEUP | TH_WOKEN;
		target->wake_seq = seq;
	}
	e->error = katra_writer_append_wakeup(e->w, seq, wk->head.tid, wk->head.tgid, ts,
					      e->start_wall, wk->target_tid, wk->target_tgid,
					      wk->target_cpu);
	return e->error;
}

int emit_waking(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_waking *wk = &p->u.wk;
	/* wakers are often untracked (interrupts, kworkers): thread 0, no state; a
	 * traced waker gets its state here, or its time would go unchecked */
	struct thread_state *waker = wk->head.tid ? emit_thread(e, wk->head.tid, wk->head.tgid)
						  : NULL;
	struct thread_state *target;
	struct katra_event ev;
	char comm[64];
	int rc;

	if (emit_late(e, waker, wk->head.tid, p->key, 1))
		return 0;
	/* a traced waker on the CPU: to the writer as scalars */
	if (waker && !(waker->flags & TH_OFFCPU_OPEN) && !e->frames.count && !e->error &&
	    !e->generic_events)
		return waking_plain(e, waker, wk, p->key);
	rc = emit_running(e, waker, wk->head.tid, p->key);
	if (rc)
		return rc;
	emit_base(&ev, &wk->head, KATRA_SCOPE_LINUX, KATRA_KIND_WAKEUP, KATRA_PHASE_INSTANT);
	ev.resource.domain = KATRA_RES_THREAD;
	ev.resource.id = wk->target_tid;
	if (wk->head.tid) {
		ev.payload.type = KATRA_PAYLOAD_WAKEUP;
		ev.payload.u.wakeup.target_tid = wk->target_tid;
		ev.payload.u.wakeup.target_pid = wk->target_tgid;
		ev.payload.u.wakeup.target_cpu = wk->target_cpu;
	} else {
		/* outside the traced set: the process that woke it, or an
		 * interrupt; the event's thread and process stay 0 */
		bool irq = wk->flags & KATRA_WK_INTERRUPT;

		ev.payload.type = KATRA_PAYLOAD_WAKEUP_OUTSIDE;
		ev.payload.u.wakeup_outside.target_tid = wk->target_tid;
		ev.payload.u.wakeup_outside.target_pid = wk->target_tgid;
		ev.payload.u.wakeup_outside.target_cpu = wk->target_cpu;
		ev.payload.u.wakeup_outside.waker_pid = irq ? 0 : wk->out_tgid;
		ev.payload.u.wakeup_outside.waker_tid = irq ? 0 : wk->out_tid;
		ev.payload.u.wakeup_outside.waker_comm = (struct katra_str){
			comm, irq ? 0 : katra_utf8_sanitize(wk->out_comm,
							    strnlen(wk->out_comm, sizeof(wk->out_comm)),
							    comm, sizeof(comm))
		};
		ev.payload.u.wakeup_outside.context = irq ? KATRA_WAKER_INTERRUPT : KATRA_WAKER_TASK;
	}
	target = emit_thread(e, wk->target_tid, wk->target_tgid);
	if (target) {
		target->flags |= TH_WAKEUP | TH_WOKEN;
		target->wake_seq = e->next_seq;
	}
	/* the target's lookup replaced the cached thread: the waker's again */
	waker = wk->head.tid ? emit_thread(e, wk->head.tid, wk->head.tgid) : NULL;
	return emit_write(e, &ev, p->key, waker);
}
