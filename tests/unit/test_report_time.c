// SPDX-License-Identifier: GPL-2.0-only
/* katra-replay report on the shapes of real captures: threads
 * never seen switching (idle helpers of an attached Wine session), a wait
 * begun before the capture, a thread whose final switch-out and an Inferred
 * End come after its exit; the critical path of a chosen thread or process;
 * Wine processes named as dump names them.  Times to the nanosecond. */
#include "replay_test_util.h"
#include "katra/report.h"
#include "replay/export/export.h"
#include "replay/names/procnames.h"
#include "replay/report/report.h"

struct seen {
	struct kr_tsum th[16];
	uint32_t n;
	uint64_t on_cpu_total, unknown_total, start, end;
	struct kr_path path;
	bool preempted_row; /* some reason row of thread 301 is Preempted */
	char name_200[64];
};

static void on_whole(void *ctx, const struct kr_report *rp, const struct kr_window *w)
{
	struct seen *s = ctx;
	const struct kr_procname *c = kr_procnames_get(kr_report_names(rp), 200);

	if (w->is_epoch)
		return;
	s->n = w->nthreads < 16 ? w->nthreads : 16;
	memcpy(s->th, w->threads, s->n * sizeof(*s->th));
	s->on_cpu_total = w->on_cpu_total_ns;
	s->unknown_total = w->unknown_total_ns;
	s->start = w->start_ns;
	s->end = w->end_ns;
	s->path = *w->path;
	for (uint32_t i = 0; i < w->nreasons; i++)
		if (w->reasons[i].tid == 301 && w->reasons[i].cls == KR_OFF_PREEMPTED)
			s->preempted_row = true;
	snprintf(s->name_200, sizeof(s->name_200), "%.*s", c ? (int)c->len : 6,
		 c ? c->name : "(none)");
}

static void feed(struct tb *t, uint64_t path_tid, uint64_t path_pid, struct seen *s)
{
	struct kr_report_opts o = { .on_window = on_whole, .ctx = s, .path_tid = path_tid,
				    .path_pid = path_pid };
	struct kr_report *rp;

	memset(s, 0, sizeof(*s));
	cr_assert_eq(kr_report_new(&rp, katra_sample_header(), &o), 0);
	for (size_t i = 0; i < t->n; i++)
		cr_assert_eq(kr_report_add(rp, &t->r[i]), 0, "record %zu", i);
	cr_assert_eq(kr_report_finish(rp), 0);
	kr_report_free(rp);
}

static const struct kr_tsum *tsum(const struct seen *s, uint64_t tid)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (s->th[i].tid == tid)
			return &s->th[i];
	cr_assert_fail("thread %lu not in the window", (unsigned long)tid);
	return NULL;
}

/* Capture 0..12000 on 2 CPUs, attached to a Wine session (pid 200,
 * "wine64" running prog.exe).  Main thread 200 runs 0..6000 and 8000..12000
 * (switched out blocked at 6000, back at 8000).  Helpers 210..217 sleep in
 * waits begun before the capture: each shows one event, the end of a wait
 * at 1000 + tid (a timeout), and is never seen switching.  Helper 220 was
 * blocked when the capture started and is switched in at 3000 (an OffCpu
 * Instant), then runs to the end. */
static void build_idle_helpers(struct tb *t)
{
	tb_init(t);
	tb_epoch(t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	tb_pinfo(t, 0, 200, "wine64", "prog.exe");
	tb_ev(t, 10, 200, 200, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	for (uint64_t h = 210; h < 218; h++)
		tb_syscall_end(t, 1000 + h, 200, h, KATRA_KIND_FUTEX, -1, 202, 0);
	tb_switch(t, 3000, 200, 220, KATRA_PHASE_INSTANT, -1, 0);
	tb_switch(t, 6000, 200, 200, KATRA_PHASE_BEGIN, 1, 1);
	tb_switch(t, 8000, 200, 200, KATRA_PHASE_END, 1, 0);
	tb_ev(t, 11000, 200, 220, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	tb_ev(t, 11500, 200, 200, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	tb_epoch(t, 12000, KATRA_EPOCH_CAPTURE_END, "capture end");
}

Test(report_time, threads_never_seen_switching_are_unknown_not_on_cpu)
{
	struct tb t;
	struct seen s;

	build_idle_helpers(&t);
	feed(&t, 0, 0, &s);
	cr_assert_eq(s.end - s.start, 12000);
	for (uint64_t h = 210; h < 218; h++) {
		const struct kr_tsum *x = tsum(&s, h);

		cr_assert_eq(x->alive_ns, 12000);
		cr_assert_eq(x->on_cpu_ns, 0, "helper %lu: on-CPU %lu", (unsigned long)h,
			     (unsigned long)x->on_cpu_ns);
		cr_assert_eq(x->unknown_ns, 12000);
	}
	const struct kr_tsum *m = tsum(&s, 200);
	cr_assert_eq(m->unknown_ns, 10, "before its first event");
	cr_assert_eq(m->off_cpu_ns, 2000);
	cr_assert_eq(m->on_cpu_ns, 12000 - 2000 - 10);
	const struct kr_tsum *w = tsum(&s, 220);
	cr_assert_eq(w->class_ns[KR_OFF_BEFORE], 3000, "a wait begun before the capture is off");
	cr_assert_eq(w->on_cpu_ns, 9000);
	cr_assert_eq(w->unknown_ns, 0);
	cr_assert_eq(s.on_cpu_total, 9990 + 9000);
	cr_assert_leq(s.on_cpu_total, (s.end - s.start) * 2, "never more than 2 CPUs allow");
	cr_assert_eq(s.unknown_total, 8 * 12000 + 10);
	cr_assert_str_eq(s.name_200, "prog.exe", "named as dump names it, not wine64");
	tb_cleanup(&t);
}

/* A bash-like process 300: its thread 301 exits at 770 (TaskExit), wakes
 * 300 (blocked since 600) on its way out at 775, then its final switch-out
 * (prev_state 0: the kernel reports TASK_DEAD so) at 780 and an Inferred
 * OffCpu End at the capture's end 2400.  300 is back at 800, runs to 2000. */
static uint64_t back_causes[2]; /* the switch-in's: its Begin, the wakeup */

static void build_dead_thread(struct tb *t)
{
	struct katra_event *e, *ob, *w;

	tb_init(t);
	tb_epoch(t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	tb_switch(t, 100, 300, 300, KATRA_PHASE_INSTANT, -1, 0);
	tb_switch(t, 200, 300, 301, KATRA_PHASE_INSTANT, -1, 0);
	tb_ev(t, 500, 300, 301, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	tb_syscall_begin(t, 760, 300, 301, KATRA_KIND_SYSCALL, 4, 231); /* exit_group */
	ob = tb_switch(t, 600, 300, 300, KATRA_PHASE_BEGIN, 6, 1);
	tb_ev(t, 770, 300, 301, KATRA_KIND_TASK_EXIT, KATRA_PHASE_INSTANT, -1);
	w = tb_ev(t, 775, 300, 301, KATRA_KIND_WAKEUP, KATRA_PHASE_INSTANT, -1);
	w->payload.type = KATRA_PAYLOAD_WAKEUP;
	w->payload.u.wakeup.target_tid = 300;
	w->payload.u.wakeup.target_pid = 300;
	w->resource = (struct katra_resource){ KATRA_RES_THREAD, 300 };
	tb_switch(t, 780, 300, 301, KATRA_PHASE_BEGIN, 5, 0);
	e = tb_switch(t, 800, 300, 300, KATRA_PHASE_END, 6, 0);
	back_causes[0] = ob->seq;
	back_causes[1] = w->seq;
	e->causes = (struct katra_u64_vec){ back_causes, 2 };
	tb_ev(t, 2000, 300, 300, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	e = tb_switch(t, 2400, 300, 301, KATRA_PHASE_END, 5, 0);
	e->confidence = KATRA_CONFIDENCE_INFERRED;
	e->payload.type = KATRA_PAYLOAD_NONE;
	tb_epoch(t, 2400, KATRA_EPOCH_CAPTURE_END, "capture end");
}

Test(report_time, a_dead_threads_time_and_path_end_at_its_exit)
{
	struct tb t;
	struct seen s;

	build_dead_thread(&t);
	feed(&t, 0, 0, &s);
	const struct kr_tsum *d = tsum(&s, 301);
	cr_assert_eq(d->alive_ns, 770, "alive until its exit");
	cr_assert_eq(d->class_ns[KR_OFF_PREEMPTED], 0, "its final switch-out is no preemption");
	cr_assert_eq(d->on_cpu_ns, 570);
	cr_assert_not(s.preempted_row);
	cr_assert(s.path.present);
	cr_assert_eq(s.path.end_tid, 300, "the path ends at a live thread's last event");
	cr_assert_eq(s.path.end_ns, 2000);
	/* 300 ran 800..2000, was woken by 301's exit at 775, 301 ran from its
	 * switch-in at 200 to it, and was off the CPU since before the capture */
	cr_assert_eq(s.path.nhops, 4, "%u hops", s.path.nhops);
	cr_assert_eq(s.path.hops[3].type, KR_HOP_RUN);
	cr_assert_eq(s.path.hops[2].type, KR_HOP_WAKE);
	cr_assert_eq(s.path.hops[2].other_tid, 301);
	cr_assert_eq(s.path.hops[1].type, KR_HOP_RUN);
	cr_assert_eq(s.path.hops[1].tid, 301);
	cr_assert_eq(s.path.hops[1].from_ns, 200);
	cr_assert_eq(s.path.hops[1].to_ns, 775, "its last act, waking its parent");
	cr_assert_eq(s.path.hops[0].type, KR_HOP_BLOCKED, "not running before its switch-in");
	cr_assert_eq(s.path.hops[0].cls, KR_OFF_BEFORE);
	cr_assert_eq(s.path.hops[0].from_ns, 0);
	cr_assert_eq(s.path.hops[0].to_ns, 200);
	tb_cleanup(&t);
}

Test(report_time, pid_and_tid_choose_whose_critical_path)
{
	struct tb t;
	struct seen s;

	build_dead_thread(&t);
	feed(&t, 301, 0, &s);
	cr_assert_eq(s.path.end_tid, 301);
	cr_assert_eq(s.path.end_ns, 770, "its exit: nothing after it counts");
	feed(&t, 0, 300, &s);
	cr_assert_eq(s.path.end_tid, 300);
	cr_assert_eq(s.path.end_ns, 2000);
	tb_cleanup(&t);

	build_idle_helpers(&t);
	feed(&t, 213, 0, &s);
	cr_assert_eq(s.path.end_tid, 213);
	cr_assert_eq(s.path.end_ns, 1213);
	tb_cleanup(&t);
}

Test(report_time, export_draws_nothing_of_a_thread_after_its_exit)
{
	struct tb t;
	struct kx_options opt = { 0 };
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	build_dead_thread(&t);
	tb_write(&t);
	f = open_memstream(&out, &len);
	cr_assert_eq(katra_export_chrome(t.path, &opt, f, stderr), 0);
	fclose(f);
	cr_assert_null(strstr(out, "off-CPU: preempted"), "%s", out);
	cr_assert_not_null(strstr(out, "{\"ph\":\"X\",\"pid\":300,\"tid\":301,\"ts\":0.759765625,"
				   "\"dur\":0.009765625,\"name\":\"exit_group\""), "exit_group ends at the exit: %s",
			   out);
	cr_assert_not_null(strstr(out, "\"events_after_exit\":2"), "%s", out);
	free(out);
	tb_cleanup(&t);
}

Test(report_time, a_tid_with_no_event_says_so)
{
	struct tb t;
	struct katra_report_opts o = { .path_tid = 4242 };
	struct outcap out, err;

	build_dead_thread(&t);
	tb_write(&t);
	oc_open(&out);
	oc_open(&err);
	cr_assert_eq(katra_report(t.path, &o, out.f, err.f), 0);
	cr_assert_not_null(strstr(oc_text(&out), "\ncritical path: none (no event of thread 4242 "
					  "in this window)\n"), "%s", out.buf);
	cr_assert_not_null(strstr(oc_text(&err), "katra-replay: report: --tid 4242 has no event in"),
			   "%s", err.buf);
	oc_free(&out);
	oc_free(&err);
	tb_cleanup(&t);
}

/* Three threads seen on the CPU at once, all of a 1000 ns capture, under a
 * header that says 2 CPUs: switches were lost, and the report says so. */
Test(report_time, more_on_cpu_than_the_cpus_allow_is_noted)
{
	struct tb t;
	struct katra_report_opts o = { 0 };
	struct outcap out;

	tb_init(&t);
	tb_epoch(&t, 0, KATRA_EPOCH_CAPTURE_START, "capture start");
	for (uint64_t tid = 601; tid <= 603; tid++)
		tb_switch(&t, 0, 600, tid, KATRA_PHASE_INSTANT, -1, 0);
	tb_epoch(&t, 1000, KATRA_EPOCH_CAPTURE_END, "capture end");
	tb_write(&t);
	oc_open(&out);
	cr_assert_eq(katra_report(t.path, &o, out.f, stderr), 0);
	cr_assert_not_null(strstr(oc_text(&out), "\non-CPU known 0.003 ms of the 0.002 ms 2 CPUs "
					  "allow; unknown 0.000 ms"), "%s", out.buf);
	cr_assert_not_null(strstr(out.buf, "\nNOTE: more on-CPU time than the CPUs allow: the "
				  "trace lost switches\n"), "%s", out.buf);
	oc_free(&out);
	tb_cleanup(&t);
}

/* A header without a CPU count: the most threads seen on the CPU at once. */
Test(report_time, cpus_fall_back_to_the_most_running_at_once)
{
	struct tb t;
	struct katra_header h = *katra_sample_header();
	struct kr_report_opts o = { 0 };
	struct kr_report_facts x;
	struct kr_report *rp;

	h.host.cpu_count = 0;
	tb_init(&t);
	tb_switch(&t, 0, 600, 601, KATRA_PHASE_INSTANT, -1, 0);
	tb_switch(&t, 10, 600, 602, KATRA_PHASE_INSTANT, -1, 0);
	tb_switch(&t, 20, 600, 601, KATRA_PHASE_BEGIN, 1, 1);
	tb_switch(&t, 30, 600, 603, KATRA_PHASE_INSTANT, -1, 0);
	tb_ev(&t, 40, 600, 603, KATRA_KIND_TASK_EXIT, KATRA_PHASE_INSTANT, -1);
	cr_assert_eq(kr_report_new(&rp, &h, &o), 0);
	for (size_t i = 0; i < t.n; i++)
		cr_assert_eq(kr_report_add(rp, &t.r[i]), 0);
	cr_assert_eq(kr_report_finish(rp), 0);
	kr_report_get_facts(rp, &x);
	cr_assert_eq(x.cpus, 2, "601 and 602, then 602 and 603: %u", x.cpus);
	kr_report_free(rp);
	tb_cleanup(&t);
}

/* A forked child whose first record is the recorder's ProcessInfo, written
 * at the fork (1000), and whose first run is at 3600: it waited 2600 for a
 * CPU, it did not run; the path's start hop says so.  Parent 700 forks it
 * and waits; the child runs to 5000. */
Test(report_time, a_childs_processinfo_at_its_fork_is_not_its_first_run)
{
	struct tb t;
	struct seen s;
	struct katra_event *fk, *e;

	tb_init(&t);
	tb_switch(&t, 0, 700, 700, KATRA_PHASE_INSTANT, -1, 0);
	fk = tb_ev(&t, 1000, 700, 700, KATRA_KIND_TASK_FORK, KATRA_PHASE_INSTANT, -1);
	fk->payload.type = KATRA_PAYLOAD_TASK_FORK;
	fk->payload.u.task_fork.parent_pid = fk->payload.u.task_fork.parent_tid = 700;
	fk->payload.u.task_fork.child_pid = fk->payload.u.task_fork.child_tid = 710;
	tb_pinfo(&t, 1000, 710, "bash", NULL);
	tb_switch(&t, 1200, 700, 700, KATRA_PHASE_BEGIN, 1, 1);
	e = tb_switch(&t, 3600, 710, 710, KATRA_PHASE_INSTANT, -1, 0);
	back_causes[0] = fk->seq;
	e->causes = (struct katra_u64_vec){ back_causes, 1 };
	tb_ev(&t, 5000, 710, 710, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	feed(&t, 710, 0, &s);
	const struct kr_tsum *c = tsum(&s, 710);
	cr_assert_eq(c->class_ns[KR_OFF_NEW], 2600);
	cr_assert_eq(c->on_cpu_ns, 1400);
	cr_assert_eq(s.path.nhops, 3, "%u hops", s.path.nhops);
	cr_assert_eq(s.path.hops[1].type, KR_HOP_START);
	cr_assert_eq(s.path.hops[1].from_ns, 1000);
	cr_assert_eq(s.path.hops[1].to_ns, 3600, "until its first run, not its ProcessInfo");
	cr_assert_eq(s.path.hops[2].type, KR_HOP_RUN);
	cr_assert_eq(s.path.hops[2].from_ns, 3600);
	tb_cleanup(&t);
}

/* The HTML timeline draws what is known only: the idle helpers get no lane
 * (they were drawn on the CPU from end to end), helper 220 is off the CPU
 * (waiting) until its switch-in at 3000, then on it. */
Test(report_time, the_timeline_draws_no_unknown_time)
{
	struct tb t;
	struct kr_report_opts o = { .timeline = true };
	struct kr_report *rp;
	const struct kr_timeline *tl;
	uint64_t col_ns;
	int lane;

	build_idle_helpers(&t);
	cr_assert_eq(kr_report_new(&rp, katra_sample_header(), &o), 0);
	for (size_t i = 0; i < t.n; i++)
		cr_assert_eq(kr_report_add(rp, &t.r[i]), 0);
	cr_assert_eq(kr_report_finish(rp), 0);
	tl = kr_report_timeline(rp);
	kr_timeline_columns(tl, &col_ns);
	for (uint64_t h = 210; h < 218; h++)
		cr_assert_eq(kr_timeline_lane_of(tl, h), -1, "helper %lu has a lane", (unsigned long)h);
	lane = kr_timeline_lane_of(tl, 220);
	cr_assert_geq(lane, 0);
	cr_assert_eq(kr_timeline_dominant(tl, (uint32_t)lane, 0), KR_TL_OFF_WAIT);
	cr_assert_eq(kr_timeline_dominant(tl, (uint32_t)lane, (uint32_t)(11000 / col_ns)), KR_TL_RUN);
	kr_report_free(rp);
	tb_cleanup(&t);
}

static void fork_child(struct tb *t, uint64_t ts, uint64_t parent, uint64_t child)
{
	struct katra_event *fk = tb_ev(t, ts, parent, parent, KATRA_KIND_TASK_FORK,
				       KATRA_PHASE_INSTANT, -1);

	fk->payload.type = KATRA_PAYLOAD_TASK_FORK;
	fk->payload.u.task_fork.parent_pid = fk->payload.u.task_fork.parent_tid = parent;
	fk->payload.u.task_fork.child_pid = fk->payload.u.task_fork.child_tid = child;
}

/* tid 801 lives twice (a reused tid): forked at 100, on the CPU 200..500
 * where it exits; forked again at 1000, on the CPU 1100 to the end, 2000.
 * Two rows, each its own life; the second is not ignored as "after exit". */
Test(report_time, a_reused_tid_is_a_new_thread)
{
	struct tb t;
	struct seen s;

	tb_init(&t);
	tb_switch(&t, 0, 800, 800, KATRA_PHASE_INSTANT, -1, 0);
	fork_child(&t, 100, 800, 801);
	tb_switch(&t, 200, 801, 801, KATRA_PHASE_INSTANT, -1, 0);
	tb_ev(&t, 500, 801, 801, KATRA_KIND_TASK_EXIT, KATRA_PHASE_INSTANT, -1);
	fork_child(&t, 1000, 800, 801);
	tb_switch(&t, 1100, 801, 801, KATRA_PHASE_INSTANT, -1, 0);
	tb_ev(&t, 2000, 801, 801, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	feed(&t, 0, 0, &s);
	const struct kr_tsum *a = NULL, *b = NULL;
	for (uint32_t i = 0; i < s.n; i++) {
		if (s.th[i].tid != 801)
			continue;
		if (s.th[i].alive_ns == 400)
			a = &s.th[i];
		else
			b = &s.th[i];
	}
	cr_assert_not_null(a, "the first life");
	cr_assert_eq(a->on_cpu_ns, 300);
	cr_assert_eq(a->class_ns[KR_OFF_NEW], 100);
	cr_assert_not_null(b, "the second life");
	cr_assert_eq(b->alive_ns, 1000);
	cr_assert_eq(b->class_ns[KR_OFF_NEW], 100);
	cr_assert_eq(b->on_cpu_ns, 900);
	cr_assert_eq(s.path.end_tid, 801);
	cr_assert_eq(s.path.end_ns, 2000);
	tb_cleanup(&t);
}

/* ... and one that comes back in another process, its fork not traced. */
Test(report_time, a_reused_tid_in_another_process_is_a_new_thread)
{
	struct tb t;
	struct seen s;

	tb_init(&t);
	tb_switch(&t, 0, 801, 801, KATRA_PHASE_INSTANT, -1, 0);
	tb_ev(&t, 500, 801, 801, KATRA_KIND_TASK_EXIT, KATRA_PHASE_INSTANT, -1);
	tb_switch(&t, 1000, 900, 801, KATRA_PHASE_INSTANT, -1, 0);
	tb_ev(&t, 2000, 900, 801, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	feed(&t, 0, 0, &s);
	cr_assert_eq(s.n, 2, "%u rows", s.n);
	cr_assert_eq(s.th[0].pid, 900, "the busier second life first");
	cr_assert_eq(s.th[0].on_cpu_ns, 1000);
	cr_assert_eq(s.th[0].class_ns[KR_OFF_BEFORE], 500, "since the old one's exit");
	cr_assert_eq(s.th[0].alive_ns, 1500);
	cr_assert_eq(s.th[1].pid, 801);
	cr_assert_eq(s.th[1].alive_ns, 500);
	cr_assert_eq(s.path.end_ns, 2000);
	tb_cleanup(&t);
}

/* A lost switch-out: thread 950 runs from its switch-in at 100, makes a
 * syscall at 300, and comes back on the CPU at 900 without a switch-out
 * seen: 300..900 is unknown, not on the CPU; it runs on to 1000. */
Test(report_time, a_lost_switch_out_is_unknown_time)
{
	struct tb t;
	struct seen s;

	tb_init(&t);
	tb_switch(&t, 100, 950, 950, KATRA_PHASE_INSTANT, -1, 0);
	tb_ev(&t, 300, 950, 950, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	tb_switch(&t, 900, 950, 950, KATRA_PHASE_END, 7, 0);
	tb_ev(&t, 1000, 950, 950, KATRA_KIND_SYSCALL, KATRA_PHASE_INSTANT, -1);
	feed(&t, 0, 0, &s);
	const struct kr_tsum *x = tsum(&s, 950);
	cr_assert_eq(x->alive_ns, 900);
	cr_assert_eq(x->unknown_ns, 600);
	cr_assert_eq(x->on_cpu_ns, 200 + 100);
	tb_cleanup(&t);
}
