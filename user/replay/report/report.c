// SPDX-License-Identifier: GPL-2.0-only
/* katra-replay report: records in, windows out.  Each Event moves its
 * thread's state (open spans, off-CPU, pending wakeup); intervals that end
 * are added to the whole capture's sums and to the current epoch's (clipped
 * to its start); causal turning points go to the index (report_path.c).
 * An EpochMarker ends the current epoch: what is still open is counted up
 * to the marker, the epoch's critical path is walked, the window goes to
 * the callback and its sums are dropped. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/names/stackidx.h"
#include "report_int.h"

/* ---- threads ---- */

/* The thread's index, created when absent; UINT32_MAX when the table is
 * full or memory ran out.  Creating may move rp->threads. */
static uint32_t thread_index(struct kr_report *rp, uint64_t tid, uint64_t pid)
{
	struct kr_idmap_slot *s = kr_idmap_find(&rp->thread_map, tid, 0);
	struct kr_thread *th;
	bool created;

	if (s)
		return (uint32_t)s->v1;
	if (rp->nthreads == rp->threads_cap) {
		uint32_t nc = rp->threads_cap ? rp->threads_cap * 2 : 64;
		struct kr_thread *p = realloc(rp->threads, (size_t)nc * sizeof(*p));

		if (!p) {
			rp->error = -ENOMEM;
			return UINT32_MAX;
		}
		rp->threads = p;
		rp->threads_cap = nc;
	}
	s = kr_idmap_get(&rp->thread_map, tid, 0, &created);
	if (!s) {
		rp->threads_dropped++;
		return UINT32_MAX;
	}
	s->v1 = rp->nthreads;
	th = &rp->threads[rp->nthreads];
	memset(th, 0, sizeof(*th));
	th->tid = tid;
	th->pid = pid;
	th->born_ns = rp->start_ns;
	th->last_node = th->fork_node = th->wake_node = KR_NO_NODE;
	th->lane = -1;
	th->tl_cat = KR_TL_UNKNOWN;
	th->tl_since = rp->start_ns;
	return rp->nthreads++;
}

static bool has_cause(const struct katra_event *e, uint64_t seq)
{
	for (uint64_t i = 0; i < e->causes.len; i++)
		if (e->causes.items[i] == seq)
			return true;
	return false;
}

static uint64_t add_node(struct kr_report *rp, uint32_t t, uint8_t type,
			 const struct katra_event *e, uint64_t link)
{
	struct kr_node n = { 0 };

	n.seq = e->seq;
	n.ts = e->ts_mono_ns;
	n.link = link;
	n.thread = t;
	n.type = type;
	n.kind = KR_KIND_NONE;
	return kr_index_add(&rp->index, &rp->threads[t], &n);
}

/* ---- windows ---- */

/* Whether e may end the critical path (--tid, --pid). */
static bool path_end_candidate(const struct kr_report *rp, const struct katra_event *e)
{
	if (rp->o.path_tid)
		return e->thread_id == rp->o.path_tid;
	return !rp->o.path_pid || e->process_id == rp->o.path_pid;
}

static void windows_last_event(struct kr_report *rp, uint32_t t, const struct katra_event *e)
{
	struct kr_acc *accs[2] = { &rp->whole, rp->in_epoch ? &rp->epoch : NULL };

	for (int i = 0; i < 2; i++) {
		if (!accs[i])
			continue;
		accs[i]->have_last = true;
		accs[i]->last_seq = e->seq;
		accs[i]->last_ns = e->ts_mono_ns;
		accs[i]->last_thread = t;
	}
}

static int both_unknown(struct kr_report *rp, uint32_t t, uint64_t from, uint64_t to)
{
	int rc = kr_acc_unknown(&rp->whole, rp, t, from, to);

	if (!rc && rp->in_epoch)
		rc = kr_acc_unknown(&rp->epoch, rp, t, from, to);
	return rc;
}

static int both_off(struct kr_report *rp, uint32_t t, uint8_t cls, uint16_t kind, uint16_t nt,
		    uint8_t dom, uint64_t res, uint64_t res_pid, uint64_t waker, uint64_t from,
		    uint64_t to, uint64_t runq)
{
	int rc = kr_acc_off(&rp->whole, rp, t, cls, kind, nt, dom, res, res_pid, waker, from, to,
			    runq);

	if (!rc && rp->in_epoch)
		rc = kr_acc_off(&rp->epoch, rp, t, cls, kind, nt, dom, res, res_pid, waker, from,
				to, runq);
	return rc;
}

static int acc_fault(struct kr_acc *a, const struct kr_report *rp, uint32_t t, uint64_t from,
		     uint64_t to, uint64_t count)
{
	struct kr_tsum *s = kr_acc_tsum(a, rp, t);

	if (!s)
		return -ENOMEM;
	if (from < a->start_ns)
		from = a->start_ns;
	if (to > from)
		s->fault_ns += to - from;
	s->faults += count;
	return 0;
}

static int acc_uring(struct kr_acc *a, const struct kr_report *rp, uint32_t t, uint64_t lat)
{
	struct kr_tsum *s = kr_acc_tsum(a, rp, t);

	if (!s)
		return -ENOMEM;
	s->uring_requests++;
	s->uring_total_ns += lat;
	if (lat > s->uring_max_ns)
		s->uring_max_ns = lat;
	return 0;
}

static int both_fault(struct kr_report *rp, uint32_t t, uint64_t from, uint64_t to,
		      uint64_t count)
{
	int rc = acc_fault(&rp->whole, rp, t, from, to, count);

	if (!rc && rp->in_epoch)
		rc = acc_fault(&rp->epoch, rp, t, from, to, count);
	return rc;
}

/* What is still open at the end of a window is counted up to it: off-CPU
 * intervals (no waker yet) and page faults. */
static int close_open(struct kr_report *rp, struct kr_acc *a, uint64_t end)
{
	int rc = 0;

	for (uint32_t t = 0; t < rp->nthreads && !rc; t++) {
		const struct kr_thread *th = &rp->threads[t];

		if (!th->seen || th->exited)
			continue; /* a dead thread's time ended at its exit */
		if (!th->switched)
			rc = kr_acc_unknown(a, rp, t, th->born_ns, end);
		if (th->off_open && !rc)
			rc = kr_acc_off(a, rp, t, th->off_cls, th->off_kind, th->off_nt, th->off_dom,
					th->off_res, th->off_res_pid, KR_WAKER_PENDING,
					th->off_begin_ns, end, 0);
		for (int i = 0; i < th->nspans && !rc; i++)
			if (th->spans[i].kind == KATRA_KIND_PAGE_FAULT)
				rc = acc_fault(a, rp, t, th->spans[i].begin_ns, end, 0);
	}
	return rc;
}

static int emit_window(struct kr_report *rp, struct kr_acc *a, uint64_t end, bool is_epoch,
		       uint64_t lower_seq)
{
	struct kr_window w = { 0 };
	int rc = close_open(rp, a, end);

	if (!rc)
		rc = kr_acc_finish(a, rp, end, &w);
	if (!rc && a->have_last)
		rc = kr_path_walk(rp, lower_seq, a->start_ns, a->last_seq, a->last_thread,
				  a->last_ns, !is_epoch, w.path);
	if (!rc && is_epoch) {
		w.is_epoch = true;
		w.epoch = rp->epoch_no;
		w.marker_seq = rp->epoch_seq;
		w.epoch_kind = rp->epoch_kind;
		memcpy(w.name, rp->epoch_name, sizeof(w.name));
	}
	if (!rc && !is_epoch)
		rp->whole_on_cpu_ns = w.on_cpu_total_ns;
	if (!rc && rp->o.on_window)
		rp->o.on_window(rp->o.ctx, rp, &w);
	kr_window_release(&w);
	return rc;
}

static int close_epoch(struct kr_report *rp, uint64_t end)
{
	int rc = 0;

	/* an epoch that holds nothing (CaptureEnd's, at the very end) is not one */
	if (rp->epoch.events || end > rp->epoch.start_ns) {
		rp->epochs++;
		rc = emit_window(rp, &rp->epoch, end, true, rp->epoch_seq);
	} else {
		rp->epochs_empty++;
	}
	kr_acc_free(&rp->epoch);
	rp->in_epoch = false;
	return rc;
}

static int add_mark(struct kr_report *rp, const struct katra_epoch_marker *m)
{
	int rc = 0;
	size_t n = m->name.len < KR_NAME_MAX - 1 ? (size_t)m->name.len : KR_NAME_MAX - 1;

	rp->markers++; /* every marker is an epoch of the trace, filtered or not */
	if (rp->o.mark_filter && !rp->o.mark_filter(rp->o.ctx, m))
		return 0;
	if (rp->in_epoch)
		rc = close_epoch(rp, m->ts_mono_ns);
	if (rc)
		return rc;
	if (rp->o.max_epochs && rp->epochs_opened >= rp->o.max_epochs) {
		/* past the cap: counted, not itemized (and not worked on) */
		rp->epochs_skipped++;
		return 0;
	}
	rp->epochs_opened++;
	kr_acc_init(&rp->epoch, m->ts_mono_ns);
	rp->in_epoch = true;
	rp->epoch_no = m->epoch;
	rp->epoch_seq = m->seq;
	rp->epoch_kind = m->kind;
	memset(rp->epoch_name, 0, sizeof(rp->epoch_name));
	if (n)
		memcpy(rp->epoch_name, m->name.ptr, n);
	if (rp->nmarks < KR_REPORT_MARKS && m->kind != KATRA_EPOCH_CAPTURE_END) {
		struct kr_mark *k = &rp->marks[rp->nmarks++];

		k->ts = m->ts_mono_ns;
		k->epoch = m->epoch;
		memcpy(k->name, rp->epoch_name, sizeof(k->name));
	}
	return 0;
}

/* ---- events ---- */

/* Consumes the thread's pending wakeup if e names it among its causes. */
static bool take_wakeup(struct kr_thread *th, const struct katra_event *e, uint64_t *waker,
			uint64_t *wake_ns, uint64_t *node)
{
	if (!th->wake_pending || !has_cause(e, th->wake_seq))
		return false;
	th->wake_pending = false;
	*waker = th->wake_waker;
	*wake_ns = th->wake_ns;
	*node = th->wake_node;
	return true;
}

/* The recorder's notes about a thread (its ProcessInfo, written at its
 * fork) are not the thread's own doing. */
static bool own_event(const struct katra_event *e)
{
	return e->scope != KATRA_SCOPE_KATRA && e->payload.type != KATRA_PAYLOAD_PROCESS_INFO &&
	       e->payload.type != KATRA_PAYLOAD_WINE_SERVER_REQUESTS;
}

/* A forked thread's first own event (its switch-in, as a rule) is the
 * node a walk turns at to its fork. */
static void first_own_event(struct kr_report *rp, uint32_t t, const struct katra_event *e)
{
	add_node(rp, t, KR_NODE_FIRST, e, rp->threads[t].fork_node);
	rp->threads[t].fork_node = KR_NO_NODE;
}

/* Events the thread itself ran to make (not the recorder's notes about it,
 * not times it inferred). */
static bool ran_to_make(const struct katra_event *e)
{
	return own_event(e) && e->confidence == KATRA_CONFIDENCE_MEASURED &&
	       e->kind != KATRA_KIND_OFF_CPU;
}

static void set_running(struct kr_report *rp, struct kr_thread *th, bool on)
{
	if (th->on_cpu == on)
		return;
	th->on_cpu = on;
	if (!on) {
		rp->running--;
		return;
	}
	if (++rp->running > rp->max_running)
		rp->max_running = rp->running;
}

/* The node of an interval off the CPU since before the capture, ended by
 * e: a walk turns there to the waker, or is blocked back to the start. */
static void off_before_node(struct kr_report *rp, uint32_t t, const struct katra_event *e,
			    uint64_t waker, uint64_t wake_node)
{
	struct kr_node n = { 0 };

	n.seq = e->seq;
	n.ts = e->ts_mono_ns;
	n.begin_ns = rp->threads[t].born_ns;
	/* woken from outside: the link holds who it was (KR_NODE_WOKEN_OUTSIDE) */
	n.link = kr_waker_outside(waker)			   ? waker :
		 waker != KR_WAKER_NONE && waker != KR_WAKER_UNSEEN ? wake_node :
								      KR_NO_NODE;
	n.thread = t;
	n.type = KR_NODE_OFF_END;
	n.kind = KR_KIND_NONE;
	n.cls = KR_OFF_BEFORE;
	n.flags = waker == KR_WAKER_NONE ? KR_NODE_NO_WAKEUP :
		  kr_waker_outside(waker) ? KR_NODE_WOKEN_OUTSIDE :
		  waker == KR_WAKER_UNSEEN ? KR_NODE_WOKEN_UNSEEN : 0;
	kr_index_add(&rp->index, &rp->threads[t], &n);
}

/* The first switch or exit of a thread, at e: from here on its time is
 * known.  Before: off the CPU since the capture's start (or its fork) when
 * e is a switch-in and it was never seen running; otherwise unknown up to
 * the first time it was seen running (it stayed on the CPU from then on,
 * since no switch-out came). */
static int first_known(struct kr_report *rp, uint32_t t, const struct katra_event *e,
		       bool switch_in)
{
	struct kr_thread *th = &rp->threads[t];
	uint64_t ts = e->ts_mono_ns;
	int rc;

	th->switched = true;
	if (switch_in)
		set_running(rp, th, true);
	if (switch_in && !th->ran) {
		uint64_t waker = KR_WAKER_NONE, wake_ns = 0, node, runq = 0;
		uint8_t cls = th->born_in_capture ? KR_OFF_NEW : KR_OFF_BEFORE;
		bool woken = take_wakeup(th, e, &waker, &wake_ns, &node);

		if (woken && wake_ns <= ts)
			runq = ts - wake_ns;
		rc = both_off(rp, t, cls, KR_KIND_NONE, 0, KATRA_RES_NONE, 0, 0, waker, th->born_ns, ts,
			      runq);
		/* a path through it waits here, it does not run */
		if (cls == KR_OFF_BEFORE && ts > rp->threads[t].born_ns)
			off_before_node(rp, t, e, woken ? waker : KR_WAKER_NONE, node);
		th = &rp->threads[t];
		th->tl_cat = cls == KR_OFF_NEW ? KR_TL_OFF_PREEMPT : KR_TL_OFF_WAIT;
		th->tl_since = th->born_ns;
		kr_tl_update(rp, th, ts);
		return rc;
	}
	/* the timeline: what is now known to have run is drawn, the rest not */
	if (th->ran && !switch_in) {
		th->tl_cat = KR_TL_RUN;
		th->tl_since = th->run_since;
	}
	kr_tl_update(rp, th, ts);
	return both_unknown(rp, t, th->born_ns, th->ran && !switch_in ? th->run_since : ts);
}

static void off_begin(struct kr_report *rp, struct kr_thread *th, const struct katra_event *e)
{
	const struct kr_span *in = th->nspans ? &th->spans[th->nspans - 1] : NULL;

	th->off_open = true;
	th->off_begin_ns = e->ts_mono_ns;
	th->off_prev_state = e->payload.type == KATRA_PAYLOAD_SWITCH ?
		e->payload.u.sched_switch.prev_state : 1;
	th->off_kind = KR_KIND_NONE;
	th->off_nt = kr_ucall_is_nt(rp, th->ucall) ? th->ucall : 0;
	th->off_dom = KATRA_RES_NONE;
	th->off_res = th->off_res_pid = 0;
	if (th->off_prev_state == 0) {
		th->off_cls = KR_OFF_PREEMPTED;
	} else if (!in) {
		th->off_cls = KR_OFF_OTHER;
	} else {
		th->off_cls = in->kind == KATRA_KIND_PAGE_FAULT ? KR_OFF_FAULT : KR_OFF_SYSCALL;
		th->off_kind = in->kind;
		th->off_dom = in->res_domain;
		th->off_res = in->res_id;
		th->off_res_pid = in->res_pid;
	}
	kr_tl_update(rp, th, e->ts_mono_ns);
}

static int off_end(struct kr_report *rp, uint32_t t, const struct katra_event *e)
{
	struct kr_thread *th = &rp->threads[t];
	uint64_t waker = KR_WAKER_NONE, wake_ns = 0, wnode = KR_NO_NODE, runq = 0;
	bool woken = take_wakeup(th, e, &waker, &wake_ns, &wnode);
	int rc;

	if (!th->off_open)
		return 0;
	th->off_open = false;
	if (th->off_cls == KR_OFF_PREEMPTED) {
		waker = KR_WAKER_NONE; /* runnable all along: a wakeup changed nothing */
		woken = false;
	}
	if (woken && wake_ns <= e->ts_mono_ns)
		runq = e->ts_mono_ns - (wake_ns > th->off_begin_ns ? wake_ns : th->off_begin_ns);
	rc = both_off(rp, t, th->off_cls, th->off_kind, th->off_nt, th->off_dom, th->off_res,
		      th->off_res_pid, waker, th->off_begin_ns, e->ts_mono_ns, runq);
	if (rc)
		return rc;
	if (th->off_cls != KR_OFF_PREEMPTED) {
		struct kr_node n = { 0 };

		n.seq = e->seq;
		n.ts = e->ts_mono_ns;
		n.begin_ns = th->off_begin_ns;
		n.link = woken && kr_waker_outside(waker)		 ? waker :
			 woken && waker != KR_WAKER_UNSEEN ? wnode :
							     KR_NO_NODE;
		n.thread = t;
		n.type = KR_NODE_OFF_END;
		n.kind = th->off_kind;
		n.cls = th->off_cls;
		n.res_domain = th->off_dom;
		n.res_id = th->off_res;
		n.flags = !woken ? KR_NODE_NO_WAKEUP :
			  kr_waker_outside(waker) ? KR_NODE_WOKEN_OUTSIDE :
			  waker == KR_WAKER_UNSEEN ? KR_NODE_WOKEN_UNSEEN : 0;
		kr_index_add(&rp->index, th, &n);
	}
	kr_tl_update(rp, th, e->ts_mono_ns);
	return 0;
}

static void span_begin(struct kr_report *rp, struct kr_thread *th, const struct katra_event *e)
{
	struct kr_span *s;

	if (th->nspans >= KR_SPAN_DEPTH || !e->span_id.present)
		return;
	s = &th->spans[th->nspans++];
	s->span_id = e->span_id.value;
	s->begin_ns = e->ts_mono_ns;
	s->kind = (uint16_t)e->kind;
	s->res_domain = (uint8_t)e->resource.domain;
	s->res_id = e->resource.id;
	s->res_pid = 0;
	if (e->payload.type == KATRA_PAYLOAD_FUTEX && e->resource.domain == KATRA_RES_NONE) {
		/* futex syscalls carry their address in the payload */
		s->res_domain = KATRA_RES_FUTEX;
		s->res_id = e->payload.u.futex.uaddr;
	}
	if (s->res_domain == KATRA_RES_FUTEX)
		s->res_pid = th->pid;
	kr_ucall_begin(rp, th, s, e);
	kr_tl_update(rp, th, e->ts_mono_ns);
}

static int span_end(struct kr_report *rp, uint32_t t, const struct katra_event *e)
{
	struct kr_thread *th = &rp->threads[t];
	int i;

	if (!e->span_id.present)
		return 0;
	for (i = th->nspans - 1; i >= 0 && th->spans[i].span_id != e->span_id.value; i--)
		;
	if (i < 0)
		return 0;
	struct kr_span s = th->spans[i];
	memmove(&th->spans[i], &th->spans[i + 1], (size_t)(th->nspans - i - 1) * sizeof(s));
	th->nspans--;
	kr_ucall_end(th);
	kr_tl_update(rp, th, e->ts_mono_ns);
	if (s.kind == KATRA_KIND_PAGE_FAULT)
		return both_fault(rp, t, s.begin_ns, e->ts_mono_ns, 1);
	return 0;
}

/* A Wakeup: remembered on its target until the target's switch-in. */
static void wakeup(struct kr_report *rp, uint32_t waker_t, const struct katra_event *e)
{
	bool outside = e->payload.type == KATRA_PAYLOAD_WAKEUP_OUTSIDE;
	uint64_t target = outside ? e->payload.u.wakeup_outside.target_tid :
			  e->payload.type == KATRA_PAYLOAD_WAKEUP ? e->payload.u.wakeup.target_tid :
								    e->resource.id;
	uint64_t tpid = outside ? e->payload.u.wakeup_outside.target_pid :
			e->payload.type == KATRA_PAYLOAD_WAKEUP ? e->payload.u.wakeup.target_pid : 0;
	uint64_t node = KR_NO_NODE;

	if (waker_t != UINT32_MAX)
		node = add_node(rp, waker_t, KR_NODE_WAKEUP, e, KR_NO_NODE);
	uint32_t t = thread_index(rp, target, tpid);
	if (t == UINT32_MAX)
		return;
	struct kr_thread *th = &rp->threads[t];
	th->wake_pending = true;
	th->wake_seq = e->seq;
	th->wake_ns = e->ts_mono_ns;
	/* thread 0's: an interrupt, a kernel thread or an untraced process (by
	 * name where the trace says), or (Inferred) a wakeup no probe saw */
	th->wake_waker = waker_t != UINT32_MAX ? e->thread_id :
		e->confidence == KATRA_CONFIDENCE_INFERRED ? KR_WAKER_UNSEEN :
		kr_report_outside_waker(rp, e);
	th->wake_node = node;
}

static int uring_complete(struct kr_report *rp, uint32_t t, const struct katra_event *e)
{
	struct kr_idmap_slot *s = NULL;
	int rc = 0;

	for (uint64_t i = 0; i < e->causes.len && !s; i++)
		s = kr_idmap_find(&rp->pending, e->causes.items[i], 0);
	if (!s) {
		rp->uring_unmatched++;
		return 0;
	}
	uint64_t sub_ns = s->v1, sub_t = s->v2 >> 40, sub_node = s->v2 & ((1ull << 40) - 1);
	kr_idmap_remove(&rp->pending, s);
	uint64_t lat = e->ts_mono_ns > sub_ns ? e->ts_mono_ns - sub_ns : 0;
	rc = acc_uring(&rp->whole, rp, (uint32_t)sub_t, lat);
	if (!rc && rp->in_epoch)
		rc = acc_uring(&rp->epoch, rp, (uint32_t)sub_t, lat);
	if (t != UINT32_MAX) {
		struct kr_node n = { 0 };

		n.seq = e->seq;
		n.ts = e->ts_mono_ns;
		n.link = sub_node ? sub_node - 1 : KR_NO_NODE;
		n.res_id = e->request_id.present ? e->request_id.value : 0;
		n.thread = t;
		n.type = KR_NODE_COMPLETE;
		n.kind = KR_KIND_NONE;
		kr_index_add(&rp->index, &rp->threads[t], &n);
	}
	return rc;
}

static void uring_submit(struct kr_report *rp, uint32_t t, const struct katra_event *e)
{
	uint64_t node = add_node(rp, t, KR_NODE_SUBMIT, e, KR_NO_NODE);
	struct kr_idmap_slot *s;
	bool created;

	s = kr_idmap_get(&rp->pending, e->seq, 0, &created);
	if (!s)
		return; /* its completion will count as unmatched */
	s->v1 = e->ts_mono_ns;
	s->v2 = (uint64_t)t << 40 | (node == KR_NO_NODE ? 0 : (node + 1) & ((1ull << 40) - 1));
}

static void task_fork(struct kr_report *rp, uint32_t t, const struct katra_event *e)
{
	uint64_t node = add_node(rp, t, KR_NODE_FORK, e, KR_NO_NODE);
	uint64_t parent = rp->threads[t].tid;

	if (e->payload.type != KATRA_PAYLOAD_TASK_FORK)
		return;
	/* a tid that exited and comes back is a new thread: a new row (the
	 * old one keeps its sums) */
	struct kr_idmap_slot *old = kr_idmap_find(&rp->thread_map,
						  e->payload.u.task_fork.child_tid, 0);
	if (old && rp->threads[old->v1].exited)
		kr_idmap_remove(&rp->thread_map, old);
	uint32_t c = thread_index(rp, e->payload.u.task_fork.child_tid,
				  e->payload.u.task_fork.child_pid);
	if (c == UINT32_MAX || rp->threads[c].seen)
		return;
	struct kr_thread *child = &rp->threads[c];
	child->born_in_capture = true;
	child->born_ns = child->tl_since = e->ts_mono_ns;
	child->fork_node = node;
	child->parent_tid = parent;
}

static int add_event(struct kr_report *rp, const struct katra_event *e)
{
	uint32_t t;
	int rc = 0;

	rp->events++;
	rp->whole.events++;
	if (rp->in_epoch)
		rp->epoch.events++;
	kr_report_remember(rp, e);
	if (e->thread_id == 0) { /* outside the traced threads */
		if (e->kind == KATRA_KIND_WAKEUP)
			wakeup(rp, UINT32_MAX, e);
		else if (e->kind == KATRA_KIND_IO_URING_COMPLETE)
			rc = uring_complete(rp, UINT32_MAX, e);
		return rc;
	}
	t = thread_index(rp, e->thread_id, e->process_id);
	if (t != UINT32_MAX && rp->threads[t].exited && e->process_id != rp->threads[t].pid) {
		/* an exited tid in another process: reused, its fork not traced;
		 * the new one cannot be older than the old one's exit */
		uint64_t after = rp->threads[t].exit_ns;

		kr_idmap_remove(&rp->thread_map, kr_idmap_find(&rp->thread_map, e->thread_id, 0));
		t = thread_index(rp, e->thread_id, e->process_id);
		if (t != UINT32_MAX)
			rp->threads[t].born_ns = rp->threads[t].tl_since = after;
	}
	if (t == UINT32_MAX)
		return rp->error;
	bool created;
	kr_idmap_get(&rp->procs, e->process_id, 0, &created);
	if (rp->threads[t].exited) {
		/* its exit still wakes its parent; its final switch-out (and an
		 * Inferred End after it) is no time of a thread that is gone */
		if (e->kind == KATRA_KIND_WAKEUP)
			wakeup(rp, t, e);
		return 0;
	}
	if (path_end_candidate(rp, e))
		windows_last_event(rp, t, e);
	rp->threads[t].seen = true;
	if (rp->threads[t].fork_node != KR_NO_NODE && own_event(e))
		first_own_event(rp, t, e);
	struct kr_thread *th = &rp->threads[t];
	if (!th->switched && !th->ran && ran_to_make(e)) {
		th->ran = true;
		th->run_since = e->ts_mono_ns;
	}
	if (th->switched && th->on_cpu && e->kind == KATRA_KIND_OFF_CPU &&
	    e->phase != KATRA_PHASE_BEGIN) {
		/* back on the CPU while on it: its switch-out was lost, and what
		 * it did since its last event is not known */
		rc = both_unknown(rp, t, th->last_own_ns, e->ts_mono_ns);
		if (rc)
			return rc;
	}
	if (own_event(e))
		th->last_own_ns = e->ts_mono_ns;
	if (!th->switched && (e->kind == KATRA_KIND_OFF_CPU || e->kind == KATRA_KIND_TASK_EXIT)) {
		rc = first_known(rp, t, e, e->kind == KATRA_KIND_OFF_CPU &&
				 e->phase != KATRA_PHASE_BEGIN);
		if (rc)
			return rc;
		th = &rp->threads[t];
	}
	kr_msg_event(rp, t, e);
	switch (e->kind) {
	case KATRA_KIND_OFF_CPU:
		if (e->phase == KATRA_PHASE_BEGIN) {
			set_running(rp, th, false);
			off_begin(rp, th, e);
		} else {
			set_running(rp, th, true);
			if (e->phase == KATRA_PHASE_END)
				rc = off_end(rp, t, e);
			else
				th->wake_pending = th->wake_pending && !has_cause(e, th->wake_seq);
		}
		break;
	case KATRA_KIND_WAKEUP:
		wakeup(rp, t, e);
		break;
	case KATRA_KIND_IO_URING_SUBMIT:
		uring_submit(rp, t, e);
		break;
	case KATRA_KIND_IO_URING_COMPLETE:
		rc = uring_complete(rp, t, e);
		break;
	case KATRA_KIND_TASK_FORK:
		task_fork(rp, t, e);
		break;
	case KATRA_KIND_TASK_EXIT:
		if (th->off_open) /* its switch-in was not seen: off until here */
			rc = off_end(rp, t, e);
		th = &rp->threads[t];
		set_running(rp, th, false);
		th->exited = true;
		th->exit_ns = e->ts_mono_ns;
		kr_tl_update(rp, th, e->ts_mono_ns);
		break;
	default:
		if (e->phase == KATRA_PHASE_BEGIN)
			span_begin(rp, th, e);
		else if (e->phase == KATRA_PHASE_END)
			rc = span_end(rp, t, e);
		else if (e->kind == KATRA_KIND_PAGE_FAULT)
			rc = both_fault(rp, t, 0, 0, 1);
		break;
	}
	return rc;
}

int kr_report_add(struct kr_report *rp, const struct katra_record *rec)
{
	uint64_t ts;

	if (rp->error)
		return rp->error;
	switch (rec->type) {
	case KATRA_RECORD_EVENT:
		ts = rec->u.event.ts_mono_ns;
		break;
	case KATRA_RECORD_EPOCH_MARKER:
		ts = rec->u.epoch.ts_mono_ns;
		break;
	case KATRA_RECORD_COUNTER:
		ts = rec->u.counter.ts_mono_ns;
		break;
	case KATRA_RECORD_MODULE:
	case KATRA_RECORD_STACK:
	case KATRA_RECORD_STACK_OF:
	case KATRA_RECORD_SYMBOLS:
		rp->error = rp->o.stacks ? kr_stackidx_add(rp->o.stacks, rec) : 0;
		return rp->error;
	default:
		rp->has_summary = true;
		rp->summary_end_ns = rec->u.summary.duration_ns;
		return 0;
	}
	rp->records++;
	if (!rp->have_start) {
		rp->have_start = true;
		rp->start_ns = rp->last_ns = ts;
		rp->whole.start_ns = ts;
	}
	if (ts > rp->last_ns)
		rp->last_ns = ts;
	if (rec->type == KATRA_RECORD_EPOCH_MARKER)
		rp->error = add_mark(rp, &rec->u.epoch);
	else if (rec->type == KATRA_RECORD_EVENT) {
		if (rp->o.on_event)
			rp->o.on_event(rp->o.ctx, &rec->u.event);
		rp->error = add_event(rp, &rec->u.event);
	}
	return rp->error;
}

int kr_report_finish(struct kr_report *rp)
{
	uint64_t end = rp->last_ns;

	if (rp->error)
		return rp->error;
	if (rp->in_epoch)
		rp->error = close_epoch(rp, end);
	if (rp->tl)
		kr_timeline_extend(rp->tl, end);
	for (uint32_t t = 0; t < rp->nthreads && rp->tl; t++) {
		struct kr_thread *th = &rp->threads[t];

		if (th->seen)
			kr_tl_draw(rp, th, th->exited ? th->exit_ns : end);
	}
	rp->stacks_final = true;
	if (!rp->error)
		rp->error = emit_window(rp, &rp->whole, end, false, 0);
	return rp->error;
}
