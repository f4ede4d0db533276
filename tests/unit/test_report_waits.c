// SPDX-License-Identifier: GPL-2.0-only
/* katra-replay report: a wait named by what the trace knows.  A Wine thread
 * blocked in a Linux syscall inside an NT call is blocked in that NT call,
 * the syscall beneath; a wakeup of thread 0 comes from outside the traced
 * processes (an interrupt, a kernel thread or another process), and an
 * Inferred one is a wakeup no probe saw. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "katra/format.h"
#include "../../tools/sample_records.h"
#include "replay/report/report.h"

#define A 201
#define B 202

struct tb {
	struct katra_record recs[64];
	uint64_t causes[64][2];
	size_t n;
	uint64_t seq;
};

static struct katra_event *ev(struct tb *b, uint64_t ts, uint64_t tid, uint32_t kind,
			      uint32_t phase, int64_t span)
{
	struct katra_record *r = &b->recs[b->n++];

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
	return &r->u.event;
}

/* A blocked off-CPU interval of A, from `from` to `to`, ended by a wakeup
 * of `waker` at to - 100 (Inferred when asked). */
static void blocked(struct tb *b, uint64_t from, uint64_t to, int64_t span, uint64_t waker,
		    bool inferred)
{
	struct katra_event *off = ev(b, from, A, KATRA_KIND_OFF_CPU, KATRA_PHASE_BEGIN, span);
	uint64_t off_seq = off->seq;

	off->payload.type = KATRA_PAYLOAD_SWITCH;
	off->payload.u.sched_switch.prev_state = 1;
	struct katra_event *w = ev(b, inferred ? to : to - 100, waker, KATRA_KIND_WAKEUP,
				   KATRA_PHASE_INSTANT, -1);
	uint64_t w_seq = w->seq;
	w->payload.type = KATRA_PAYLOAD_WAKEUP;
	w->payload.u.wakeup.target_tid = A;
	w->payload.u.wakeup.target_pid = 100;
	w->resource = (struct katra_resource){ KATRA_RES_THREAD, A };
	if (inferred)
		w->confidence = KATRA_CONFIDENCE_INFERRED;
	struct katra_event *end = ev(b, to, A, KATRA_KIND_OFF_CPU, KATRA_PHASE_END, span);
	size_t i = b->n - 1;
	b->causes[i][0] = off_seq;
	b->causes[i][1] = w_seq;
	end->causes = (struct katra_u64_vec){ b->causes[i], 2 };
}

struct texts {
	char reasons[8][256];
	int nreasons;
	char hops[16][256];
	int nhops;
};

static void on_window(void *ctx, const struct kr_report *rp, const struct kr_window *w)
{
	struct texts *t = ctx;

	if (w->is_epoch)
		return;
	for (uint32_t i = 0; i < w->nreasons && t->nreasons < 8; i++) {
		FILE *f = fmemopen(t->reasons[t->nreasons++], 256, "w");
		kr_reason_text(f, rp, &w->reasons[i]);
		fclose(f);
	}
	for (uint32_t i = 0; i < w->path->nhops && t->nhops < 16; i++) {
		FILE *f = fmemopen(t->hops[t->nhops++], 256, "w");
		kr_hop_text(f, rp, &w->path->hops[i]);
		fclose(f);
	}
}

static bool has(char (*v)[256], int n, const char *want)
{
	for (int i = 0; i < n; i++)
		if (strcmp(v[i], want) == 0)
			return true;
	return false;
}

static void dump(char (*v)[256], int n)
{
	for (int i = 0; i < n; i++)
		fprintf(stderr, "  %s\n", v[i]);
}

Test(report_waits, nt_call_outside_waker_and_unseen_wakeup_are_named)
{
	struct tb b = { 0 };
	struct texts t = { 0 };
	struct kr_report_opts o = { .on_window = on_window, .ctx = &t };
	struct kr_report *rp;
	struct katra_event *e;

	ev(&b, 50, B, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	/* NtUserGetMessage, blocked in a read of the server's pipe, woken by B */
	e = ev(&b, 100, A, KATRA_KIND_NT_SYSCALL, KATRA_PHASE_BEGIN, 1);
	e->scope = KATRA_SCOPE_WINE_PROTON;
	e->payload.type = KATRA_PAYLOAD_NT_SYSCALL;
	e->payload.u.nt_syscall.name = (struct katra_opt_str){ true, katra_cstr("NtUserGetMessage") };
	e = ev(&b, 200, A, KATRA_KIND_FILE_READ, KATRA_PHASE_BEGIN, 2);
	e->resource = (struct katra_resource){ KATRA_RES_PIPE, 7 };
	blocked(&b, 300, 1000, 3, B, false);
	ev(&b, 1100, A, KATRA_KIND_FILE_READ, KATRA_PHASE_END, 2);
	ev(&b, 1200, A, KATRA_KIND_NT_SYSCALL, KATRA_PHASE_END, 1)->scope = KATRA_SCOPE_WINE_PROTON;
	/* a poll woken by thread 0: an interrupt, a kernel thread or another process */
	ev(&b, 1300, A, KATRA_KIND_POLL, KATRA_PHASE_BEGIN, 4);
	blocked(&b, 1400, 1900, 5, 0, false);
	ev(&b, 2000, A, KATRA_KIND_POLL, KATRA_PHASE_END, 4);
	/* a sleep whose wakeup no probe saw (the recorder's Inferred one) */
	ev(&b, 2100, A, KATRA_KIND_SLEEP, KATRA_PHASE_BEGIN, 6);
	blocked(&b, 2200, 2600, 7, 0, true);
	ev(&b, 2700, A, KATRA_KIND_SLEEP, KATRA_PHASE_END, 6);

	cr_assert_eq(kr_report_new(&rp, katra_sample_header(), &o), 0);
	for (size_t i = 0; i < b.n; i++)
		cr_assert_eq(kr_report_add(rp, &b.recs[i]), 0, "record %zu", i);
	cr_assert_eq(kr_report_finish(rp), 0);
	kr_report_free(rp);

	dump(t.reasons, t.nreasons);
	dump(t.hops, t.nhops);
	cr_assert(has(t.reasons, t.nreasons, "blocked in NtUserGetMessage (Linux FileRead on "
		  "pipe:[7]), woken by 202"), "the NT call, the Linux syscall beneath");
	cr_assert(has(t.reasons, t.nreasons, "blocked in Poll, woken from outside the traced "
		  "processes (an interrupt, a kernel thread or another process)"));
	cr_assert(has(t.reasons, t.nreasons, "blocked in Sleep, woken by a wakeup no probe saw"));
	cr_assert(has(t.hops, t.nhops, "blocked in Sleep, woken by a wakeup no probe saw"),
		  "the path's hop as the reason");
	cr_assert(has(t.hops, t.nhops, "blocked in Poll, woken from outside the traced processes "
		  "(an interrupt, a kernel thread or another process)"));
}

/* The wakeup blocked() just wrote, as a WakeupOutside: a process (context
 * Task, pid 812, "Xvfb") or an interrupt. */
static void from_outside(struct tb *b, uint32_t context)
{
	struct katra_event *w = &b->recs[b->n - 2].u.event;
	bool task = context == KATRA_WAKER_TASK;

	w->payload.type = KATRA_PAYLOAD_WAKEUP_OUTSIDE;
	w->payload.u.wakeup_outside.target_tid = A;
	w->payload.u.wakeup_outside.target_pid = 100;
	w->payload.u.wakeup_outside.waker_pid = task ? 812 : 0;
	w->payload.u.wakeup_outside.waker_tid = task ? 815 : 0;
	w->payload.u.wakeup_outside.waker_comm = katra_cstr(task ? "Xvfb" : "");
	w->payload.u.wakeup_outside.context = context;
}

Test(report_waits, outside_waker_named_by_its_process_or_as_an_interrupt)
{
	struct tb b = { 0 };
	struct texts t = { 0 };
	struct kr_report_opts o = { .on_window = on_window, .ctx = &t };
	struct kr_report *rp;

	/* a poll woken by an untraced process, a sleep by a timer interrupt */
	ev(&b, 100, A, KATRA_KIND_POLL, KATRA_PHASE_BEGIN, 1);
	blocked(&b, 200, 1000, 2, 0, false);
	from_outside(&b, KATRA_WAKER_TASK);
	ev(&b, 1100, A, KATRA_KIND_POLL, KATRA_PHASE_END, 1);
	ev(&b, 1200, A, KATRA_KIND_SLEEP, KATRA_PHASE_BEGIN, 3);
	blocked(&b, 1300, 1900, 4, 0, false);
	from_outside(&b, KATRA_WAKER_INTERRUPT);
	ev(&b, 2000, A, KATRA_KIND_SLEEP, KATRA_PHASE_END, 3);

	cr_assert_eq(kr_report_new(&rp, katra_sample_header(), &o), 0);
	for (size_t i = 0; i < b.n; i++)
		cr_assert_eq(kr_report_add(rp, &b.recs[i]), 0, "record %zu", i);
	cr_assert_eq(kr_report_finish(rp), 0);
	kr_report_free(rp);

	dump(t.reasons, t.nreasons);
	dump(t.hops, t.nhops);
	cr_assert(has(t.reasons, t.nreasons, "blocked in Poll, woken by Xvfb (pid 812)"));
	cr_assert(has(t.reasons, t.nreasons, "blocked in Sleep, woken by an interrupt"));
	cr_assert(has(t.hops, t.nhops, "blocked in Poll, woken by Xvfb (pid 812)"),
		  "the path's hop names the process");
	cr_assert(has(t.hops, t.nhops, "blocked in Sleep, woken by an interrupt"));
}

Test(report_waits, an_outside_wakeup_gives_its_target_s_process)
{
	struct tb b = { 0 };
	struct kr_report_opts o = { 0 };
	struct kr_report *rp;
	struct katra_event *w;

	/* thread 303 of process 300 first seen as an outside wakeup's target */
	w = ev(&b, 100, 0, KATRA_KIND_WAKEUP, KATRA_PHASE_INSTANT, -1);
	w->resource = (struct katra_resource){ KATRA_RES_THREAD, 303 };
	w->payload.type = KATRA_PAYLOAD_WAKEUP_OUTSIDE;
	w->payload.u.wakeup_outside.target_tid = 303;
	w->payload.u.wakeup_outside.target_pid = 300;
	w->payload.u.wakeup_outside.context = KATRA_WAKER_INTERRUPT;
	w->payload.u.wakeup_outside.waker_comm = katra_cstr("");

	cr_assert_eq(kr_report_new(&rp, katra_sample_header(), &o), 0);
	for (size_t i = 0; i < b.n; i++)
		cr_assert_eq(kr_report_add(rp, &b.recs[i]), 0, "record %zu", i);
	cr_assert_eq(kr_report_finish(rp), 0);
	cr_assert_eq(kr_report_pid_of(rp, 303), 300, "its process, as a Wakeup's target has");
	kr_report_free(rp);
}
