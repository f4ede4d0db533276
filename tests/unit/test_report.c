// SPDX-License-Identifier: GPL-2.0-only
/* katra-replay report's model (user/replay/report*.c): on a hand-built
 * trace with known times, every thread's time split, the off-CPU reasons,
 * files and futexes, io_uring latency, per epoch and for the whole capture,
 * to the nanosecond; the critical path along a synthetic cause chain
 * (wakeup -> io_uring completion -> fork), cut at an epoch's start and at
 * the index cap; and the command's outputs on a file. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "katra/format.h"
#include "katra/report.h"
#include "../../tools/sample_records.h"
#include "replay/report/report.h"

/* ---- building records ---- */

struct tb {
	struct katra_record recs[128];
	uint64_t causes[128][3];
	size_t n;
	uint64_t seq;
};

static struct katra_event *ev(struct tb *b, uint64_t ts, uint64_t tid, uint32_t kind,
			      uint32_t phase, int64_t span)
{
	struct katra_record *r = &b->recs[b->n];

	memset(r, 0, sizeof(*r));
	r->type = KATRA_RECORD_EVENT;
	r->u.event.seq = b->seq++;
	r->u.event.ts_mono_ns = ts;
	r->u.event.thread_id = tid;
	r->u.event.process_id = tid ? 100 : 0;
	r->u.event.scope = KATRA_SCOPE_LINUX;
	r->u.event.kind = kind;
	r->u.event.phase = phase;
	if (span >= 0)
		r->u.event.span_id = (struct katra_opt_u64){ true, (uint64_t)span };
	b->n++;
	return &r->u.event;
}

/* Sets e's causes to [c0] or [c0, c1] (c1 < 0: none). */
static void causes(struct tb *b, struct katra_event *e, uint64_t c0, int64_t c1)
{
	size_t i = (size_t)((char *)e - (char *)b->recs) / sizeof(b->recs[0]);
	uint64_t *c = b->causes[i];

	c[0] = c0;
	c[1] = (uint64_t)c1;
	e->causes = (struct katra_u64_vec){ c, c1 >= 0 ? 2 : 1 };
}

static struct katra_event *off_begin(struct tb *b, uint64_t ts, uint64_t tid, int64_t span,
				     uint64_t prev_state)
{
	struct katra_event *e = ev(b, ts, tid, KATRA_KIND_OFF_CPU, KATRA_PHASE_BEGIN, span);

	e->payload.type = KATRA_PAYLOAD_SWITCH;
	e->payload.u.sched_switch.prev_state = prev_state;
	return e;
}

static struct katra_event *wake(struct tb *b, uint64_t ts, uint64_t waker, uint64_t target)
{
	struct katra_event *e = ev(b, ts, waker, KATRA_KIND_WAKEUP, KATRA_PHASE_INSTANT, -1);

	e->payload.type = KATRA_PAYLOAD_WAKEUP;
	e->payload.u.wakeup.target_tid = target;
	e->payload.u.wakeup.target_pid = 100;
	e->resource = (struct katra_resource){ KATRA_RES_THREAD, target };
	return e;
}

static void mark(struct tb *b, uint64_t ts, uint64_t epoch, uint32_t kind, const char *name)
{
	struct katra_record *r = &b->recs[b->n++];

	memset(r, 0, sizeof(*r));
	r->type = KATRA_RECORD_EPOCH_MARKER;
	r->u.epoch.seq = b->seq++;
	r->u.epoch.ts_mono_ns = ts;
	r->u.epoch.epoch = epoch;
	r->u.epoch.kind = kind;
	r->u.epoch.name = katra_cstr(name);
}

static struct katra_event *fork_ev(struct tb *b, uint64_t ts, uint64_t parent, uint64_t child)
{
	struct katra_event *e = ev(b, ts, parent, KATRA_KIND_TASK_FORK, KATRA_PHASE_INSTANT, -1);

	e->payload.type = KATRA_PAYLOAD_TASK_FORK;
	e->payload.u.task_fork.parent_pid = 100;
	e->payload.u.task_fork.parent_tid = parent;
	e->payload.u.task_fork.child_pid = 100;
	e->payload.u.task_fork.child_tid = child;
	e->payload.u.task_fork.is_thread = true;
	return e;
}

/* ---- collecting windows ---- */

struct got_window {
	bool is_epoch;
	uint64_t epoch, start_ns, end_ns;
	struct kr_tsum threads[8];
	uint32_t nthreads;
	struct kr_reason reasons[32];
	uint32_t nreasons;
	struct kr_resource files[8], futexes[8];
	uint32_t nfiles, nfutexes;
	struct kr_path path;
};

struct got {
	struct got_window w[8];
	int n;
};

static void on_window(void *ctx, const struct kr_report *rp, const struct kr_window *w)
{
	struct got *g = ctx;
	struct got_window *o = &g->w[g->n++];

	(void)rp;
	cr_assert_leq(g->n, 8);
	o->is_epoch = w->is_epoch;
	o->epoch = w->epoch;
	o->start_ns = w->start_ns;
	o->end_ns = w->end_ns;
	o->nthreads = w->nthreads < 8 ? w->nthreads : 8;
	memcpy(o->threads, w->threads, o->nthreads * sizeof(*w->threads));
	o->nreasons = w->nreasons < 32 ? w->nreasons : 32;
	memcpy(o->reasons, w->reasons, o->nreasons * sizeof(*w->reasons));
	o->nfiles = w->nfiles < 8 ? w->nfiles : 8;
	memcpy(o->files, w->files, o->nfiles * sizeof(*w->files));
	o->nfutexes = w->nfutexes < 8 ? w->nfutexes : 8;
	memcpy(o->futexes, w->futexes, o->nfutexes * sizeof(*w->futexes));
	o->path = *w->path;
}

static void run(struct tb *b, uint64_t index_cap, struct got *g)
{
	struct kr_report_opts o = { .index_cap = index_cap, .on_window = on_window, .ctx = g };
	struct kr_report *rp;

	memset(g, 0, sizeof(*g));
	cr_assert_eq(kr_report_new(&rp, katra_sample_header(), &o), 0);
	for (size_t i = 0; i < b->n; i++)
		cr_assert_eq(kr_report_add(rp, &b->recs[i]), 0, "record %zu", i);
	cr_assert_eq(kr_report_finish(rp), 0);
	kr_report_free(rp);
}

static const struct kr_tsum *thread_of(const struct got_window *w, uint64_t tid)
{
	for (uint32_t i = 0; i < w->nthreads; i++)
		if (w->threads[i].tid == tid)
			return &w->threads[i];
	return NULL;
}

static const struct kr_reason *reason_of(const struct got_window *w, uint64_t tid, uint8_t cls,
					 uint16_t kind)
{
	for (uint32_t i = 0; i < w->nreasons; i++)
		if (w->reasons[i].tid == tid && w->reasons[i].cls == cls &&
		    w->reasons[i].kind == kind)
			return &w->reasons[i];
	return NULL;
}

#define A 1000
#define B 1001
#define C 1002

/* Thread A reads file F (blocked 2000..6000, woken from outside at 5000),
 * is preempted 14000..15000, submits an io_uring request (22000, completed
 * from outside at 25000) and waits for it in io_uring_enter (blocked
 * 23500..26000), forks C (27000).  B blocks on futex 0xabc 9000..12000 until
 * A wakes it (10000), then faults 17000..21000 with an I/O wait inside
 * (18000..20000).  C first runs at 28000 and exits at 29000.  An epoch mark
 * at 16000; the capture ends at 31000. */
static void build_aggregation(struct tb *b)
{
	struct katra_event *e, *ob, *w;

	memset(b, 0, sizeof(*b));
	mark(b, 0, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	e = ev(b, 1000, A, KATRA_KIND_FILE_READ, KATRA_PHASE_BEGIN, 1);
	e->resource = (struct katra_resource){ KATRA_RES_FILE, 0xf1 };
	ob = off_begin(b, 2000, A, 2, 1);
	w = wake(b, 5000, 0, A);
	e = ev(b, 6000, A, KATRA_KIND_OFF_CPU, KATRA_PHASE_END, 2);
	causes(b, e, ob->seq, (int64_t)w->seq);
	ev(b, 7000, A, KATRA_KIND_FILE_READ, KATRA_PHASE_END, 1);
	e = ev(b, 8000, B, KATRA_KIND_FUTEX, KATRA_PHASE_BEGIN, 3);
	e->payload.type = KATRA_PAYLOAD_FUTEX;
	e->payload.u.futex.uaddr = 0xabc;
	ob = off_begin(b, 9000, B, 4, 1);
	w = wake(b, 10000, A, B);
	e = ev(b, 12000, B, KATRA_KIND_OFF_CPU, KATRA_PHASE_END, 4);
	causes(b, e, ob->seq, (int64_t)w->seq);
	ev(b, 13000, B, KATRA_KIND_FUTEX, KATRA_PHASE_END, 3);
	ob = off_begin(b, 14000, A, 5, 0);
	e = ev(b, 15000, A, KATRA_KIND_OFF_CPU, KATRA_PHASE_END, 5);
	causes(b, e, ob->seq, -1);
	mark(b, 16000, 1, KATRA_EPOCH_SIGNAL, "mark 1");
	ev(b, 17000, B, KATRA_KIND_PAGE_FAULT, KATRA_PHASE_BEGIN, 6);
	ob = off_begin(b, 18000, B, 7, 1);
	e = ev(b, 20000, B, KATRA_KIND_OFF_CPU, KATRA_PHASE_END, 7);
	causes(b, e, ob->seq, -1);
	ev(b, 21000, B, KATRA_KIND_PAGE_FAULT, KATRA_PHASE_END, 6);
	struct katra_event *sub = ev(b, 22000, A, KATRA_KIND_IO_URING_SUBMIT,
				     KATRA_PHASE_INSTANT, -1);
	sub->request_id = (struct katra_opt_u64){ true, 7 };
	ev(b, 23000, A, KATRA_KIND_IO_URING_ENTER, KATRA_PHASE_BEGIN, 8);
	ob = off_begin(b, 23500, A, 9, 1);
	e = ev(b, 25000, 0, KATRA_KIND_IO_URING_COMPLETE, KATRA_PHASE_INSTANT, -1);
	causes(b, e, sub->seq, -1);
	w = wake(b, 25100, 0, A);
	e = ev(b, 26000, A, KATRA_KIND_OFF_CPU, KATRA_PHASE_END, 9);
	causes(b, e, ob->seq, (int64_t)w->seq);
	ev(b, 26500, A, KATRA_KIND_IO_URING_ENTER, KATRA_PHASE_END, 8);
	struct katra_event *fk = fork_ev(b, 27000, A, C);
	e = ev(b, 28000, C, KATRA_KIND_OFF_CPU, KATRA_PHASE_INSTANT, -1);
	causes(b, e, fk->seq, -1);
	ev(b, 29000, C, KATRA_KIND_TASK_EXIT, KATRA_PHASE_INSTANT, -1);
	ev(b, 30000, A, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	mark(b, 31000, 2, KATRA_EPOCH_CAPTURE_END, "capture end");
}

Test(report, time_split_reasons_files_futexes_uring_per_epoch_and_whole)
{
	struct tb b;
	struct got g;
	const struct kr_tsum *t;
	const struct kr_reason *r;

	build_aggregation(&b);
	run(&b, 0, &g);
	cr_assert_eq(g.n, 3, "epoch 0, epoch 1 (CaptureEnd's empty one is none), whole: %d", g.n);

	/* ---- whole capture ---- */
	struct got_window *w = &g.w[2];
	cr_assert_not(w->is_epoch);
	cr_assert_eq(w->start_ns, 0);
	cr_assert_eq(w->end_ns, 31000);
	cr_assert_eq(w->nthreads, 3);
	t = thread_of(w, A);
	cr_assert_not_null(t);
	cr_assert_eq(t->alive_ns, 31000);
	cr_assert_eq(t->off_cpu_ns, 4000 + 1000 + 2500);
	cr_assert_eq(t->unknown_ns, 1000, "before its first event");
	cr_assert_eq(t->on_cpu_ns, 31000 - 7500 - 1000);
	cr_assert_eq(t->class_ns[KR_OFF_SYSCALL], 6500);
	cr_assert_eq(t->class_ns[KR_OFF_PREEMPTED], 1000);
	cr_assert_eq(t->runq_ns, 1000 + 900, "wakeup -> switch-in: %lu", (unsigned long)t->runq_ns);
	cr_assert_eq(t->uring_requests, 1);
	cr_assert_eq(t->uring_total_ns, 3000);
	cr_assert_eq(t->uring_max_ns, 3000);
	t = thread_of(w, B);
	cr_assert_eq(t->alive_ns, 31000);
	cr_assert_eq(t->off_cpu_ns, 3000 + 2000);
	cr_assert_eq(t->unknown_ns, 8000);
	cr_assert_eq(t->on_cpu_ns, 18000);
	cr_assert_eq(t->class_ns[KR_OFF_FAULT], 2000);
	cr_assert_eq(t->runq_ns, 2000);
	cr_assert_eq(t->faults, 1);
	cr_assert_eq(t->fault_ns, 4000);
	t = thread_of(w, C);
	cr_assert_eq(t->alive_ns, 2000, "fork to exit");
	cr_assert_eq(t->class_ns[KR_OFF_NEW], 1000);
	cr_assert_eq(t->on_cpu_ns, 1000);
	cr_assert_eq(t->unknown_ns, 0, "a switch-in first: off until then");
	cr_assert_eq(w->threads[0].tid, A, "busiest on the CPU first");

	r = reason_of(w, A, KR_OFF_SYSCALL, KATRA_KIND_FILE_READ);
	cr_assert_not_null(r);
	cr_assert_eq(r->ns, 4000);
	cr_assert_eq(r->count, 1);
	cr_assert_eq(r->res_domain, KATRA_RES_FILE);
	cr_assert_eq(r->res_id, 0xf1);
	cr_assert_eq(r->waker, KR_WAKER_OUTSIDE);
	r = reason_of(w, A, KR_OFF_SYSCALL, KATRA_KIND_IO_URING_ENTER);
	cr_assert_eq(r->ns, 2500);
	r = reason_of(w, A, KR_OFF_PREEMPTED, KR_KIND_NONE);
	cr_assert_eq(r->ns, 1000);
	cr_assert_eq(r->waker, KR_WAKER_NONE);
	r = reason_of(w, B, KR_OFF_SYSCALL, KATRA_KIND_FUTEX);
	cr_assert_eq(r->ns, 3000);
	cr_assert_eq(r->waker, A, "futex woken by thread A");
	cr_assert_eq(r->res_domain, KATRA_RES_FUTEX);
	cr_assert_eq(r->res_id, 0xabc);
	cr_assert_eq(r->res_pid, 100);
	r = reason_of(w, B, KR_OFF_FAULT, KATRA_KIND_PAGE_FAULT);
	cr_assert_eq(r->ns, 2000);
	cr_assert_eq(r->waker, KR_WAKER_NONE);

	cr_assert_eq(w->nfiles, 1);
	cr_assert_eq(w->files[0].id, 0xf1);
	cr_assert_eq(w->files[0].wait_ns, 4000);
	cr_assert_eq(w->files[0].waits, 1);
	cr_assert_eq(w->files[0].waiter_tid[0], A);
	cr_assert_eq(w->nfutexes, 1);
	cr_assert_eq(w->futexes[0].id, 0xabc);
	cr_assert_eq(w->futexes[0].pid, 100);
	cr_assert_eq(w->futexes[0].wait_ns, 3000);
	cr_assert_eq(w->futexes[0].waiter_tid[0], B);

	/* ---- epoch 0: [0, 16000] ---- */
	w = &g.w[0];
	cr_assert(w->is_epoch);
	cr_assert_eq(w->epoch, 0);
	cr_assert_eq(w->end_ns, 16000);
	cr_assert_eq(w->nthreads, 2, "C does not exist yet");
	t = thread_of(w, A);
	cr_assert_eq(t->alive_ns, 16000);
	cr_assert_eq(t->off_cpu_ns, 5000);
	cr_assert_eq(t->on_cpu_ns, 10000);
	cr_assert_eq(t->uring_requests, 0);
	t = thread_of(w, B);
	cr_assert_eq(t->off_cpu_ns, 3000);
	cr_assert_eq(t->on_cpu_ns, 5000);

	/* ---- epoch 1: [16000, 31000] ---- */
	w = &g.w[1];
	cr_assert_eq(w->epoch, 1);
	cr_assert_eq(w->start_ns, 16000);
	cr_assert_eq(w->end_ns, 31000);
	t = thread_of(w, A);
	cr_assert_eq(t->alive_ns, 15000);
	cr_assert_eq(t->off_cpu_ns, 2500);
	cr_assert_eq(t->on_cpu_ns, 12500);
	cr_assert_eq(t->uring_requests, 1);
	cr_assert_eq(t->uring_total_ns, 3000);
	t = thread_of(w, B);
	cr_assert_eq(t->off_cpu_ns, 2000);
	cr_assert_eq(t->fault_ns, 4000);
	cr_assert_eq(t->faults, 1);
	t = thread_of(w, C);
	cr_assert_not_null(t);
	cr_assert_eq(t->alive_ns, 2000);
	cr_assert_eq(w->nfiles, 0, "the file wait was in epoch 0");
}

Test(report, an_interval_across_an_epoch_mark_is_split_and_the_open_part_named)
{
	struct tb b;
	struct got g;
	struct katra_event *e, *ob;

	memset(&b, 0, sizeof(b));
	mark(&b, 0, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	e = ev(&b, 100, A, KATRA_KIND_SLEEP, KATRA_PHASE_BEGIN, 1);
	ob = off_begin(&b, 1000, A, 2, 1);
	mark(&b, 4000, 1, KATRA_EPOCH_FIFO, "load");
	struct katra_event *w = wake(&b, 9000, 0, A);
	e = ev(&b, 10000, A, KATRA_KIND_OFF_CPU, KATRA_PHASE_END, 2);
	causes(&b, e, ob->seq, (int64_t)w->seq);
	ev(&b, 10500, A, KATRA_KIND_SLEEP, KATRA_PHASE_END, 1);
	run(&b, 0, &g);
	cr_assert_eq(g.n, 3);
	const struct kr_reason *r = reason_of(&g.w[0], A, KR_OFF_SYSCALL, KATRA_KIND_SLEEP);
	cr_assert_eq(r->ns, 3000, "1000..4000 in epoch 0");
	cr_assert_eq(r->waker, KR_WAKER_PENDING, "not woken yet when epoch 0 ended");
	r = reason_of(&g.w[1], A, KR_OFF_SYSCALL, KATRA_KIND_SLEEP);
	cr_assert_eq(r->ns, 6000, "4000..10000 in epoch 1");
	cr_assert_eq(r->runq_ns, 1000);
	cr_assert_eq(r->waker, KR_WAKER_OUTSIDE);
	r = reason_of(&g.w[2], A, KR_OFF_SYSCALL, KATRA_KIND_SLEEP);
	cr_assert_eq(r->ns, 9000, "whole: one interval");
	cr_assert_eq(r->count, 1);
	cr_assert_eq(thread_of(&g.w[2], A)->on_cpu_ns, 10500 - 9000 - 100);
}

/* X waits on a futex; Y wakes it, right after an io_uring completion (on Y)
 * of a request that Z submitted; Z is a thread Y created.  Capture start at
 * 0, an epoch mark at 4000, X's last event at 7000. */
static void build_chain(struct tb *b)
{
	enum { X = 200, Y = 201, Z = 202 };
	struct katra_event *e, *ob;

	memset(b, 0, sizeof(*b));
	mark(b, 0, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	ev(b, 100, X, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	e = ev(b, 1000, X, KATRA_KIND_FUTEX, KATRA_PHASE_BEGIN, 1);
	e->payload.type = KATRA_PAYLOAD_FUTEX;
	e->payload.u.futex.uaddr = 0x10;
	ob = off_begin(b, 1100, X, 2, 1);
	ev(b, 1500, Y, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	struct katra_event *fk = fork_ev(b, 2000, Y, Z);
	e = ev(b, 2600, Z, KATRA_KIND_OFF_CPU, KATRA_PHASE_INSTANT, -1);
	causes(b, e, fk->seq, -1);
	struct katra_event *sub = ev(b, 3000, Z, KATRA_KIND_IO_URING_SUBMIT, KATRA_PHASE_INSTANT, -1);
	sub->request_id = (struct katra_opt_u64){ true, 9 };
	ev(b, 3100, Z, KATRA_KIND_IO_URING_ENTER, KATRA_PHASE_BEGIN, 3);
	off_begin(b, 3200, Z, 4, 1);
	mark(b, 4000, 1, KATRA_EPOCH_SIGNAL, "mark 1");
	e = ev(b, 5000, Y, KATRA_KIND_IO_URING_COMPLETE, KATRA_PHASE_INSTANT, -1);
	e->request_id = (struct katra_opt_u64){ true, 9 };
	causes(b, e, sub->seq, -1);
	struct katra_event *w = wake(b, 5500, Y, X);
	e = ev(b, 6000, X, KATRA_KIND_OFF_CPU, KATRA_PHASE_END, 2);
	causes(b, e, ob->seq, (int64_t)w->seq);
	ev(b, 6100, X, KATRA_KIND_FUTEX, KATRA_PHASE_END, 1);
	ev(b, 7000, X, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	mark(b, 8000, 2, KATRA_EPOCH_CAPTURE_END, "capture end");
}

static void expect_hop(const struct kr_path *p, uint32_t i, uint8_t type, uint64_t tid,
		       uint64_t from, uint64_t to, uint64_t other)
{
	cr_assert_lt(i, p->nhops);
	const struct kr_hop *h = &p->hops[i];
	cr_assert_eq(h->type, type, "hop %u: type %s, expected %s", i, kr_hop_type_name(h->type),
		     kr_hop_type_name(type));
	cr_assert_eq(h->tid, tid, "hop %u: tid %lu", i, (unsigned long)h->tid);
	cr_assert_eq(h->from_ns, from, "hop %u: from %lu", i, (unsigned long)h->from_ns);
	cr_assert_eq(h->to_ns, to, "hop %u: to %lu", i, (unsigned long)h->to_ns);
	if (other)
		cr_assert_eq(h->other_tid, other, "hop %u: other %lu", i, (unsigned long)h->other_tid);
}

Test(report, critical_path_follows_wakeup_completion_and_fork)
{
	struct tb b;
	struct got g;

	build_chain(&b);
	run(&b, 0, &g);
	cr_assert_eq(g.n, 3);

	/* whole capture: from X's last event back to the start, through Y, Z, Y */
	const struct kr_path *p = &g.w[2].path;
	cr_assert(p->present);
	cr_assert_not(p->truncated);
	cr_assert_eq(p->end_ns, 7000);
	cr_assert_eq(p->end_tid, 200);
	cr_assert_eq(p->start_ns, 0);
	cr_assert_eq(p->nhops, 7, "%u hops", p->nhops);
	expect_hop(p, 0, KR_HOP_RUN, 201, 0, 2000, 0);
	expect_hop(p, 1, KR_HOP_START, 202, 2000, 2600, 201);
	expect_hop(p, 2, KR_HOP_RUN, 202, 2600, 3000, 0);
	expect_hop(p, 3, KR_HOP_URING, 202, 3000, 5000, 201);
	cr_assert_eq(p->hops[3].res_id, 9, "the request's user_data");
	expect_hop(p, 4, KR_HOP_RUN, 201, 5000, 5500, 0);
	expect_hop(p, 5, KR_HOP_WAKE, 200, 5500, 6000, 201);
	expect_hop(p, 6, KR_HOP_RUN, 200, 6000, 7000, 0);
	cr_assert_eq(p->by_type_ns[KR_HOP_RUN], 2000 + 400 + 500 + 1000);
	cr_assert_eq(p->by_type_ns[KR_HOP_START], 600);
	cr_assert_eq(p->by_type_ns[KR_HOP_URING], 2000);
	cr_assert_eq(p->by_type_ns[KR_HOP_WAKE], 500);
	uint64_t sum = 0;
	for (uint32_t i = 0; i < p->nthreads; i++)
		sum += p->thread_ns[i];
	cr_assert_eq(sum, 7000, "the hops cover [start, end] exactly");

	/* epoch 0 ends at Z's last event before the mark (off the CPU at 3200) */
	p = &g.w[0].path;
	cr_assert_eq(p->end_ns, 3200);
	cr_assert_eq(p->nhops, 3);
	expect_hop(p, 0, KR_HOP_RUN, 201, 0, 2000, 0);
	expect_hop(p, 1, KR_HOP_START, 202, 2000, 2600, 201);
	expect_hop(p, 2, KR_HOP_RUN, 202, 2600, 3200, 0);

	/* epoch 1 stops at its start: the submit it would reach is before it */
	p = &g.w[1].path;
	cr_assert_eq(p->start_ns, 4000);
	cr_assert_eq(p->nhops, 3);
	expect_hop(p, 0, KR_HOP_RUN, 201, 4000, 5500, 0);
	expect_hop(p, 1, KR_HOP_WAKE, 200, 5500, 6000, 201);
	expect_hop(p, 2, KR_HOP_RUN, 200, 6000, 7000, 0);
}

Test(report, a_blocked_wait_woken_from_outside_is_a_hop_on_the_same_thread)
{
	struct tb b;
	struct got g;

	build_aggregation(&b);
	run(&b, 0, &g);
	const struct kr_path *p = &g.w[2].path;
	/* A: ran 0..2000, blocked on F 2000..6000, ran 6000..23500 (its
	 * preemption and the futex wakeup it sent are inside), blocked in
	 * io_uring_enter 23500..26000, ran to its last event at 30000 */
	cr_assert_eq(p->nhops, 5, "%u hops", p->nhops);
	expect_hop(p, 0, KR_HOP_RUN, A, 0, 2000, 0);
	expect_hop(p, 1, KR_HOP_BLOCKED, A, 2000, 6000, 0);
	cr_assert_eq(p->hops[1].other_tid, KR_WAKER_OUTSIDE);
	cr_assert_eq(p->hops[1].kind, KATRA_KIND_FILE_READ);
	cr_assert_eq(p->hops[1].res_id, 0xf1);
	expect_hop(p, 2, KR_HOP_RUN, A, 6000, 23500, 0);
	expect_hop(p, 3, KR_HOP_BLOCKED, A, 23500, 26000, 0);
	cr_assert_eq(p->hops[3].kind, KATRA_KIND_IO_URING_ENTER);
	expect_hop(p, 4, KR_HOP_RUN, A, 26000, 30000, 0);
}

Test(report, the_index_cap_cuts_the_path_and_says_so)
{
	struct tb b;
	struct got g;

	build_chain(&b);
	/* 6 nodes (fork, first run, submit, completion, wakeup, switch-in):
	 * a ring of 4 keeps the newest 4, so the walk loses Z's first run */
	run(&b, 4, &g);
	const struct kr_path *p = &g.w[2].path;
	cr_assert(p->truncated);
	cr_assert_eq(p->start_ns, 3000, "cut where the index ends");
	cr_assert_eq(p->nhops, 4);
	expect_hop(p, 0, KR_HOP_URING, 202, 3000, 5000, 201);
	expect_hop(p, 3, KR_HOP_RUN, 200, 6000, 7000, 0);
}

Test(report, index_cap_must_be_a_power_of_two)
{
	struct kr_report_opts o = { .index_cap = 1000 };
	struct kr_report *rp;

	cr_assert_eq(kr_report_new(&rp, katra_sample_header(), &o), -EINVAL);
}

/* Data one thread wrote and another read (katra-record's links through the
 * wineserver: a read's End citing the write's Begin): Y's request is read by
 * S, S's reply by X; the path from X's last event goes back through S to Y,
 * the data's way, as MESSAGE hops on the writers. */
Test(report, critical_path_follows_data_from_writer_to_reader)
{
	enum { X = 200, S = 201, Y = 202 };
	struct katra_event *e, *rb, *wy, *ws;
	struct tb b;
	struct got g;

	memset(&b, 0, sizeof(b));
	mark(&b, 0, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	ev(&b, 100, X, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	ev(&b, 150, S, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	ev(&b, 160, Y, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	rb = ev(&b, 1000, X, KATRA_KIND_FILE_READ, KATRA_PHASE_BEGIN, 1);
	wy = ev(&b, 2000, Y, KATRA_KIND_FILE_WRITE, KATRA_PHASE_BEGIN, 2);
	e = ev(&b, 2100, Y, KATRA_KIND_FILE_WRITE, KATRA_PHASE_END, 2);
	causes(&b, e, wy->seq, -1);
	struct katra_event *sb = ev(&b, 2200, S, KATRA_KIND_FILE_READ, KATRA_PHASE_BEGIN, 3);
	e = ev(&b, 2300, S, KATRA_KIND_FILE_READ, KATRA_PHASE_END, 3);
	causes(&b, e, sb->seq, (int64_t)wy->seq);
	ws = ev(&b, 3000, S, KATRA_KIND_FILE_WRITE, KATRA_PHASE_BEGIN, 4);
	e = ev(&b, 3100, S, KATRA_KIND_FILE_WRITE, KATRA_PHASE_END, 4);
	causes(&b, e, ws->seq, -1);
	e = ev(&b, 3500, X, KATRA_KIND_FILE_READ, KATRA_PHASE_END, 1);
	causes(&b, e, rb->seq, (int64_t)ws->seq);
	/* a read of X's own write: no hop */
	struct katra_event *wx = ev(&b, 3600, X, KATRA_KIND_FILE_WRITE, KATRA_PHASE_BEGIN, 5);
	e = ev(&b, 3650, X, KATRA_KIND_FILE_WRITE, KATRA_PHASE_END, 5);
	causes(&b, e, wx->seq, -1);
	struct katra_event *rx = ev(&b, 3700, X, KATRA_KIND_FILE_READ, KATRA_PHASE_BEGIN, 6);
	e = ev(&b, 3800, X, KATRA_KIND_FILE_READ, KATRA_PHASE_END, 6);
	causes(&b, e, rx->seq, (int64_t)wx->seq);
	ev(&b, 4000, X, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	mark(&b, 5000, 1, KATRA_EPOCH_CAPTURE_END, "capture end");
	run(&b, 0, &g);

	const struct kr_path *p = &g.w[g.n - 1].path;
	cr_assert(p->present);
	cr_assert_eq(p->end_ns, 4000);
	cr_assert_geq(p->nhops, 5, "%u hops", p->nhops);
	uint32_t n = p->nhops;
	expect_hop(p, n - 1, KR_HOP_RUN, X, 3500, 4000, 0);
	expect_hop(p, n - 2, KR_HOP_MESSAGE, S, 3000, 3500, X);
	cr_assert_eq(p->hops[n - 2].seq, ws->seq);
	expect_hop(p, n - 3, KR_HOP_RUN, S, 2300, 3000, 0);
	expect_hop(p, n - 4, KR_HOP_MESSAGE, Y, 2000, 2300, S);
	expect_hop(p, n - 5, KR_HOP_RUN, Y, p->hops[n - 5].from_ns, 2000, 0);
	cr_assert_eq(p->by_type_ns[KR_HOP_MESSAGE], 500 + 300);
	uint64_t sum = 0;
	for (uint32_t i = 0; i < p->nthreads; i++)
		sum += p->thread_ns[i];
	cr_assert_eq(sum, 4000, "the hops cover [start, end] exactly");
}

/* ---- the command on a file: text, JSON, HTML ---- */

static char *slurp(FILE *f)
{
	long n;
	char *s;

	fflush(f);
	n = ftell(f);
	s = calloc(1, (size_t)n + 1);
	rewind(f);
	cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
	return s;
}

static void write_trace(const char *path, struct tb *b, unsigned flags)
{
	struct katra_writer *w;
	struct katra_summary s = { 0 };

	cr_assert_eq(katra_writer_open(&w, path, katra_sample_header(), flags), 0);
	for (size_t i = 0; i < b->n; i++)
		cr_assert_eq(katra_writer_append(w, &b->recs[i]), 0);
	cr_assert_eq(katra_writer_finish(w, &s), 0);
	cr_assert_eq(katra_writer_close(w), 0);
}

Test(report, command_outputs_text_json_and_a_self_contained_html_page)
{
	char dir[] = "/tmp/katra-report-XXXXXX", path[64], html[64];
	struct katra_report_opts o = { 0 };
	struct tb b;
	FILE *out = tmpfile(), *err = tmpfile();

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.ktrc.gz", dir);
	snprintf(html, sizeof(html), "%s/r.html", dir);
	build_chain(&b);
	write_trace(path, &b, KATRA_WRITER_GZIP);

	cr_assert_eq(katra_report(path, &o, out, err), 0);
	char *text = slurp(out);
	cr_assert(strstr(text, "== whole capture: 0.000000000 .. 0.000008000"), "%s", text);
	cr_assert(strstr(text, "== epoch 1 \"mark 1\" (Signal"), "%s", text);
	cr_assert(strstr(text, "blocked in Futex on Futex:0x10@100, woken by 201"), "%s", text);
	cr_assert(strstr(text, "critical path: 0.007 ms"), "%s", text);
	cr_assert(strstr(text, "io_uring request 9 in flight, completed on 201"), "%s", text);
	cr_assert(strstr(text, " threads in 1 process, "), "%s", text);
	free(text);

	out = freopen(NULL, "w+", out);
	o.json = true;
	cr_assert_eq(katra_report(path, &o, out, err), 0);
	char *json = slurp(out);
	cr_assert(strstr(json, "\"compressed\":true"), "%s", json);
	cr_assert(strstr(json, "\"length_ns\":7000"), "%s", json);
	cr_assert(strstr(json, "\"by_type_ns\":{\"running\":3900,\"woken\":500,\"blocked\":0,"
			       "\"io_uring\":2000,\"thread-start\":600,\"message\":0}"), "%s", json);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "%s/r.json", dir);
	FILE *jf = fopen(cmd, "w");
	fputs(json, jf);
	fclose(jf);
	free(json);
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; json.load(open(\"%s/r.json\"))'",
		 dir);
	cr_assert_eq(system(cmd), 0, "the JSON parses");

	out = freopen(NULL, "w+", out);
	o.json = false;
	o.html_path = html;
	cr_assert_eq(katra_report(path, &o, out, err), 0);
	char *nothing = slurp(out);
	cr_assert_str_eq(nothing, "", "--html alone prints no text");
	free(nothing);
	FILE *hf = fopen(html, "r");
	cr_assert_not_null(hf);
	fseek(hf, 0, SEEK_END);
	char *page = slurp(hf);
	fclose(hf);
	cr_assert(strstr(page, "<!DOCTYPE html>") && strstr(page, "</html>"));
	cr_assert(strstr(page, "<svg") && strstr(page, "class=\"critical\""), "timeline + path");
	cr_assert(strstr(page, " threads in 1 process, "), "the capture's counts");
	cr_assert_null(strstr(page, "<script"), "no script");
	cr_assert_null(strstr(page, "http"), "nothing fetched");
	cr_assert_null(strstr(page, "src="), "nothing fetched");
	free(page);

	/* a missing file and a bad --index-cap are errors, not crashes */
	o.html_path = NULL;
	cr_assert_lt(katra_report("/nonexistent/t.ktrc", &o, out, err), 0);
	o.index_cap = 1000;
	cr_assert_neq(katra_report(path, &o, out, err), 0);
	fclose(out);
	fclose(err);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

/* A damaged trace can hold any time up to 2^64: the page stays small (the
 * timeline's axis once looped over 2^64 / 1000 ticks). */
Test(report, html_of_times_near_2_to_the_64_is_small)
{
	char dir[] = "/tmp/katra-report-XXXXXX", path[64], html[64];
	struct katra_report_opts o = { 0 };
	struct tb b;
	FILE *out = tmpfile(), *err = tmpfile();
	struct stat st;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.ktrc", dir);
	snprintf(html, sizeof(html), "%s/r.html", dir);
	memset(&b, 0, sizeof(b));
	mark(&b, 0, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	ev(&b, 1000, A, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	off_begin(&b, UINT64_MAX / 3, A, 1, 1);
	ev(&b, UINT64_MAX - 5, A, KATRA_KIND_OFF_CPU, KATRA_PHASE_END, 1);
	write_trace(path, &b, 0);
	o.html_path = html;
	cr_assert_eq(katra_report(path, &o, out, err), 0);
	cr_assert_eq(stat(html, &st), 0);
	cr_assert_lt(st.st_size, 1 << 20, "the page is %lld bytes", (long long)st.st_size);
	o.html_path = NULL;
	o.json = true;
	cr_assert_eq(katra_report(path, &o, out, err), 0);
	fclose(out);
	fclose(err);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

Test(report, max_epochs_itemizes_the_first_ones_and_counts_the_rest)
{
	struct tb b;
	struct got g;
	struct kr_report_opts o = { .max_epochs = 2, .on_window = on_window, .ctx = &g };
	struct kr_report *rp;
	struct kr_report_facts x;

	memset(&b, 0, sizeof(b));
	mark(&b, 0, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	for (uint64_t i = 1; i <= 5; i++) {
		ev(&b, i * 1000 - 500, A, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
		mark(&b, i * 1000, i, KATRA_EPOCH_SIGNAL, "mark");
	}
	mark(&b, 6000, 6, KATRA_EPOCH_CAPTURE_END, "capture end");
	memset(&g, 0, sizeof(g));
	cr_assert_eq(kr_report_new(&rp, katra_sample_header(), &o), 0);
	for (size_t i = 0; i < b.n; i++)
		cr_assert_eq(kr_report_add(rp, &b.recs[i]), 0);
	cr_assert_eq(kr_report_finish(rp), 0);
	kr_report_get_facts(rp, &x);
	kr_report_free(rp);
	cr_assert_eq(g.n, 3, "two epochs and the whole capture");
	cr_assert_eq(g.w[0].end_ns, 1000);
	cr_assert_eq(g.w[1].start_ns, 1000);
	cr_assert_eq(g.w[1].end_ns, 2000, "the second ends at the next marker");
	cr_assert_eq(x.epochs, 7, "every EpochMarker is an epoch (SPEC 5.6 epoch_count)");
	cr_assert_eq(x.epochs_itemized, 2);
	cr_assert_eq(x.epochs_not_itemized, 5, "marks 2..5 and CaptureEnd's");
	cr_assert_eq(g.w[2].end_ns, 6000);
}

/* One count of epochs: the trace's EpochMarker records (the SessionSummary's
 * epoch_count, what stats counts), CaptureStart's and CaptureEnd's included;
 * CaptureEnd's epoch holds nothing and is counted as empty, not listed. */
Test(report, epoch_count_is_the_markers_as_the_summary_counts_them)
{
	char dir[] = "/tmp/katra-report-XXXXXX", path[64];
	struct katra_report_opts o = { .json = true };
	struct tb b;
	struct got g;
	struct kr_report_opts ro = { .on_window = on_window, .ctx = &g };
	struct kr_report *rp;
	struct kr_report_facts x;
	FILE *out = tmpfile(), *err = tmpfile();

	memset(&b, 0, sizeof(b));
	mark(&b, 0, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	for (uint64_t i = 1; i <= 3; i++) {
		ev(&b, i * 1000 - 500, A, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
		mark(&b, i * 1000, i, KATRA_EPOCH_FRAME, "frame");
	}
	ev(&b, 3500, A, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	mark(&b, 3500, 4, KATRA_EPOCH_CAPTURE_END, "capture end");
	memset(&g, 0, sizeof(g));
	cr_assert_eq(kr_report_new(&rp, katra_sample_header(), &ro), 0);
	for (size_t i = 0; i < b.n; i++)
		cr_assert_eq(kr_report_add(rp, &b.recs[i]), 0);
	cr_assert_eq(kr_report_finish(rp), 0);
	kr_report_get_facts(rp, &x);
	kr_report_free(rp);
	cr_assert_eq(x.epochs, 5, "5 EpochMarker records, %" PRIu64 " epochs said", x.epochs);
	cr_assert_eq(x.epochs_itemized, 4);
	cr_assert_eq(x.epochs_empty, 1, "CaptureEnd's");
	cr_assert_eq(g.n, 5, "4 epochs and the whole capture");

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.ktrc", dir);
	write_trace(path, &b, 0);
	cr_assert_eq(katra_report(path, &o, out, err), 0);
	char *json = slurp(out);
	cr_assert(strstr(json, "\"epoch_count\":5,"), "%s", json);
	cr_assert(strstr(json, "\"epochs_empty\":1"), "%s", json);
	free(json);
	out = freopen(NULL, "w+", out);
	o.json = false;
	cr_assert_eq(katra_report(path, &o, out, err), 0);
	char *text = slurp(out);
	cr_assert(strstr(text, ", 5 epochs"), "%s", text);
	free(text);
	fclose(out);
	fclose(err);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}
