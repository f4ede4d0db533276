// SPDX-License-Identifier: GPL-2.0-only
/* The capture's second half: run (the drain loop), stop (one end instant,
 * the probes detached), drain (the rings read to empty) and finish (the
 * summary); recorder_run.h holds the state they share with recorder.c. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host.h"
#include "recorder_run.h"
#include "recorder_stacks.h"
#include "recorder_signals.h"

#define POLL_MS 10
/* After the probes began to track a process, marks are read as they come
 * for this long rather than after DRAIN_DEFER_NS: a new process's Windows
 * image and libraries are read from /proc when its first events are, and a
 * short one is gone 100 ms later. */
#define NEWS_PROMPT_NS 250000000ull
#define FLUSH_EVERY_NS 100000000ull   /* writer kick: at most 100 ms not handed over */
#define KATRA_COMMAND_GRACE_MS 2000  /* a command ended at the capture's end: SIGTERM, then SIGKILL */
#define DROPS_EVERY_NS 100000000ull
#define SKIPPED_EVERY_NS 1000000000ull
#define TARGETS_EVERY_NS 100000000ull /* has every target exited? (scans a 512 KiB bitmap) */
#define DRAIN_RUN_RECORDS (1u << 16) /* then the loop's other work */
/* the drops, the writer's kick, the targets' poll and the storage's
 * narrowing run this early rather than each on a wakeup of its own */
#define TIMER_SLACK_NS 10000000ull
#define REAP_WINDOW_NS 1000000000ull /* after an exit, the slow poll goes on while the marker sleeps */

/* ---- periodic work ---- */

/* The drops (rings, kernel tables, stacks) from the probes' memory; with
 * `skipped`, also the runs each probe's program skipped, which take a
 * BPF_OBJ_GET_INFO_BY_FD per probe (and per syscall program): read every
 * SKIPPED_EVERY_NS while the capture runs and once at its end. */
static void check_drops(struct recorder *r, uint64_t now, bool skipped)
{
	katra_probes_read_drops(r->probes, r->drops_now, r->nrings);
	for (unsigned i = 0; i < r->nrings; i++) {
		if (r->drops_now[i] == r->drops_seen[i])
			continue;
		pipeline_queue_drop(&r->pl, now, i, r->drops_now[i] - r->drops_seen[i]);
		r->drops_seen[i] = r->drops_now[i];
	}
	uint64_t kt[KATRA_KTABLE_COUNT];
	katra_probes_read_ktable_drops(r->probes, kt, KATRA_KTABLE_COUNT);
	for (unsigned t = 0; t < KATRA_KTABLE_COUNT; t++) {
		if (kt[t] == r->ktable_seen[t])
			continue;
		pipeline_queue_kernel_drop(&r->pl, now, t, kt[t] - r->ktable_seen[t]);
		r->ktable_seen[t] = kt[t];
	}
	uint64_t sk[PIPELINE_SKIPPED_MAX];
	if (skipped)
		katra_probes_read_skipped(r->probes, sk, PIPELINE_SKIPPED_MAX);
	for (uint32_t k = 0; k < PIPELINE_SKIPPED_MAX && skipped; k++) {
		if (sk[k] <= r->skipped_seen[k])
			continue;
		pipeline_queue_skipped(&r->pl, now, k, sk[k] - r->skipped_seen[k]);
		r->skipped_seen[k] = sk[k];
	}
	uint64_t sl[2];
	katra_probes_stack_drops(r->probes, sl);
	for (uint32_t i = 0; i < 2; i++) {
		if (sl[i] <= r->stacks_lost_seen[i])
			continue;
		pipeline_queue_stacks_lost(&r->pl, now, i, sl[i] - r->stacks_lost_seen[i]);
		r->stacks_lost_seen[i] = sl[i];
	}
	pipeline_queue_losses(&r->pl, now);
}

static void on_process_reaped(void *ctx, uint32_t tgid)
{
	katra_probes_forget_process(ctx, tgid);
}

static void queue_counters(struct recorder *r, uint64_t now)
{
	pipeline_queue_counter(&r->pl, now, KATRA_COUNTER_EVENTS_RECORDED, 0, 0);
	for (unsigned i = 0; i < r->nrings; i++) {
		pipeline_queue_counter(&r->pl, now, KATRA_COUNTER_EVENTS_DROPPED, i,
				       r->drops_seen[i]);
		pipeline_queue_counter(&r->pl, now, KATRA_COUNTER_RING_FILL_BYTES, i,
				       katra_probes_ring_unread(r->probes, i));
	}
	recorder_gpu_counters(r, now);
}

/* Sleeps until a ring's consumer is woken, an epoch line is in the FIFO (read
 * at once, so its time is when it arrived), or timeout_ms. */
static int wait_for_work(struct recorder *r, int timeout_ms)
{
	struct epoll_event ev[2];
	int n;

	n = epoll_wait(r->wait_fd, ev, 2, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++)
		if (ev[i].data.fd == r->epochs.fifo_fd)
			katra_record_read_fifo(&r->epochs, &r->pl,
					       recorder_clock_ns(CLOCK_MONOTONIC));
	return 0;
}

/* ---- the command ---- */

static const char *stop_signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
}

/* A stop signal forwarded to a command that ignores it ends nothing: said
 * once, with what ends the capture (a shell's background job ignores SIGINT,
 * and the command inherits that). */
static void check_forwarded_signal(struct recorder *r, const struct katra_launch *launch)
{
	if (r->told_ignored || katra_stop_signals != 1 || !katra_stop_signal || launch->pid <= 0 ||
	    launch->release_fd >= 0)
		return;
	r->told_ignored = true;
	if (katra_proc_ignores("/proc", launch->pid, katra_stop_signal))
		fprintf(stderr,
			"katra-record: the command (pid %d) ignores %s, so the capture goes on until it "
			"exits\nkatra-record: hint: signal katra-record again to end the capture and "
			"the command (SIGTERM, then SIGKILL), or signal the command itself\n",
			(int)launch->pid, stop_signal_name(katra_stop_signal));
}

/* The command still runs when the capture ends (-d, a second stop signal,
 * an error): ended, and said, so that no capture leaves it behind. */
void recorder_end_command(struct recorder *r)
{
	struct katra_launch *launch = &r->launch;
	int *status = &r->res->command_status;
	pid_t pid = launch->pid;
	int st;

	katra_command_pid = 0;
	switch (katra_launch_end(launch, KATRA_COMMAND_GRACE_MS, &st)) {
	case KATRA_LAUNCH_HAD_EXITED:
		*status = st;
		return;
	case KATRA_LAUNCH_ENDED_TERM:
		*status = st;
		fprintf(stderr, "katra-record: the command (pid %d) was still running when the "
			"capture ended: ended it with SIGTERM\n", (int)pid);
		return;
	case KATRA_LAUNCH_ENDED_KILL:
		*status = st;
		fprintf(stderr, "katra-record: the command (pid %d) was still running when the "
			"capture ended and outlived SIGTERM by %d ms: ended it with SIGKILL\n",
			(int)pid, KATRA_COMMAND_GRACE_MS);
		return;
	case KATRA_LAUNCH_NOT_REAPED:
		fprintf(stderr, "katra-record: the command (pid %d) was still running when the "
			"capture ended and is still there after SIGKILL (an uninterruptible "
			"wait)\n", (int)pid);
		return;
	}
}

static bool targets_gone(struct recorder *r, struct katra_launch *launch, int *status)
{
	if (launch->pid > 0) {
		int st;
		pid_t got = waitpid(launch->pid, &st, WNOHANG);
		if (got == launch->pid) {
			*status = st;
			launch->pid = -1;
			katra_command_pid = 0;
			/* a stop signal went to the command: its end ends the capture */
			if (katra_stop_signals)
				return true;
		}
	}
	katra_probes_reap(r->probes, on_process_reaped, r->probes);
	return katra_probes_tracked_count(r->probes) == 0;
}

/* ---- run ---- */

/* The loop's next sleep: none while marks are due (drain/drain.h,
 * DRAIN_DEFER_NS), or every POLL_MS while `prompt`; a mark's interval while a
 * ring is a quarter full; while records flow, until the oldest mark is due or
 * the loop's next timed work (`busy`, CLOCK_MONOTONIC): a ring that reaches a
 * quarter full wakes it before (the probes' wakeup_bytes), and marks wait
 * DRAIN_DEFER_NS, so nothing is due between (POLL_MS without a marker, or
 * with the drain's policy, which follows the fill); while the marker sleeps
 * for want of records, until `until`, the next thing the loop has to do on
 * time: a record or a signal wakes it before. */
static int loop_timeout(const struct recorder *r, uint64_t now, uint64_t until, uint64_t busy,
			bool prompt)
{
	uint64_t ms, due = katra_drain_due(&r->drain);

	if (due <= now || (prompt && due != UINT64_MAX))
		return 0;
	/* a ring past its wakeup fill stays past it, with no new edge to wake
	 * the loop, until it is read below: back at the next mark */
	if (katra_rings_max_fill(&r->rings) >= r->rings.size / 4)
		return (int)(DRAIN_MARK_NS / 1000000);
	if (!katra_drain_dozing(&r->drain)) {
		if (!r->drain.marker_on || r->drain_sched_on || prompt)
			busy = busy < now + (uint64_t)POLL_MS * 1000000 ? busy
								: now + (uint64_t)POLL_MS * 1000000;
		until = due < busy ? due : busy;
	}
	if (until <= now)
		return 0;
	ms = (until - now + 999999) / 1000000;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* The helper threads, started with every signal blocked: the marker (the
 * drain takes its marks itself without it) and the drain's policy. */
static void start_helpers(struct recorder *r)
{
	const struct katra_record_opts *o = r->o;
	sigset_t mask;
	int err;

	katra_block_signals(&mask); /* the marker's and the watchdog's threads */
	/* tests: the capture as where the thread cannot start */
	err = getenv("KATRA_TEST_NO_MARKER") ? -EAGAIN : katra_drain_start_marker(&r->drain);
	if (err && o->verbose) /* the drain takes its marks itself */
		fprintf(stderr, "katra-record: no marker thread: %s\n", strerror(-err));
	if (o->drain_idle) {
		r->drain_sched_on = true;
		err = consumer_sched_start(&r->drain_sched, &r->rings);
		if (err && o->verbose) /* a choice of policy: the capture is the same */
			fprintf(stderr, "katra-record: the drain stays at the normal "
				"policy: %s\n", strerror(-err));
	}
	katra_restore_signals(&mask);
}

int recorder_run(struct recorder *r)
{
	const struct katra_record_opts *o = r->o;
	uint64_t start_mono = r->start_mono;
	uint64_t counter_every = o->counter_interval_ns, next_shrink = start_mono;
	uint64_t next_flush = start_mono + FLUSH_EVERY_NS, next_drops = start_mono + DROPS_EVERY_NS;
	uint64_t next_counter = start_mono + counter_every, next_targets = start_mono;
	uint64_t next_skipped = start_mono + SKIPPED_EVERY_NS;
	uint64_t targets_every = katra_test_ms("KATRA_TEST_TARGETS_POLL_MS", TARGETS_EVERY_NS);
	uint64_t deadline = o->duration_ns ? r->live + o->duration_ns : UINT64_MAX;
	uint64_t kicked = UINT64_MAX, reap_until = 0, until;
	uint64_t news = katra_probes_task_news(r->probes), prompt_until = 0;
	int rc = 0, err, timeout = POLL_MS;

	start_helpers(r);
	while (!katra_stop_requested && !rc) {
		/* wait for a ring past its wakeup threshold, an epoch line, or the
		 * timer (rings do not wake the consumer per record); then drain all */
		err = wait_for_work(r, timeout);
		uint64_t now = recorder_clock_ns(CLOCK_MONOTONIC);
		if (katra_probes_task_news(r->probes) != news) { /* a new process */
			news = katra_probes_task_news(r->probes);
			prompt_until = now + NEWS_PROMPT_NS;
		}
		/* the marker sleeps: no mark of its own releases what this loop
		 * queues (counters), one is taken here */
		katra_drain_nudge(&r->drain);
		bool dozing = katra_drain_dozing(&r->drain);
		check_forwarded_signal(r, &r->launch);
		if (r->drain_sched_on) /* how far behind: before this drain */
			consumer_sched_update(&r->drain_sched, katra_rings_max_fill(&r->rings),
					      r->rings.size, now);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "katra-record: reading the rings failed: %s\n", strerror(-err));
			rc = err;
			break;
		}
		/* FIFO lines first: those a mark's handler read came before it */
		if (r->epochs.fifo_fd >= 0) /* what came since the wakeup read it */
			katra_record_read_fifo(&r->epochs, &r->pl, now);
		katra_record_queue_marks(&r->epochs, &r->pl, now);
		if (now + TIMER_SLACK_NS >= next_drops) {
			check_drops(r, now, now + TIMER_SLACK_NS >= next_skipped);
			if (now + TIMER_SLACK_NS >= next_skipped)
				next_skipped = now + SKIPPED_EVERY_NS;
			next_drops = now + DROPS_EVERY_NS;
		}
		if (now >= next_counter) {
			queue_counters(r, now);
			next_counter += counter_every;
		}
		/* while nothing flows, or a new process's first events wait:
		 * a mark now, not at the marker's next (up to DRAIN_FLOW_WAIT_NS) */
		if (dozing || (now < prompt_until && r->drain.marker_on))
			katra_drain_mark(&r->drain);
		/* while nothing flows at once; else marks once due (with no
		 * marker thread, each round: katra_drain_run takes the mark) */
		if (dozing || !r->drain.marker_on || now < prompt_until ||
		    katra_drain_due(&r->drain) <= now)
			rc = katra_drain_run(&r->drain, DRAIN_RUN_RECORDS);
		if (!rc) /* Wine processes that joined: tracked and named now */
			rc = katra_wine_names_tick(r->wine, now);
		/* memory back only while nothing flows: a free after a burst
		 * (munmap, a heap trim) flushes the TLB of every CPU this process
		 * ran on, by interrupts that wait for CPUs busy with the traced
		 * program; while records flow the FIFOs only narrow within the
		 * memory they grew to (the reorder budget bounds it) */
		if (now + TIMER_SLACK_NS >= next_shrink) {
			if (dozing)
				order_shrink(&r->pl.order);
			else
				order_narrow(&r->pl.order);
			next_shrink = now + 1000000000ull;
		}
		if (!rc && now + TIMER_SLACK_NS >= next_flush) {
			rc = katra_writer_kick(r->w);
			next_flush = now + FLUSH_EVERY_NS;
			kicked = katra_writer_records(r->w);
		}
		if (now >= deadline)
			break;
		/* the timer while the marker sleeps: the counters, -d, a kick of
		 * what the writer holds, the slow poll after an exit */
		until = next_counter < deadline ? next_counter : deadline;
		if (katra_writer_records(r->w) != kicked && next_flush < until)
			until = next_flush;
		if (now < reap_until && next_targets < until)
			until = next_targets;
		/* while records flow, also the drops, the writer's kick, the
		 * targets' poll and the storage's narrowing */
		uint64_t busy = next_drops < next_flush ? next_drops : next_flush;
		if (next_targets < busy)
			busy = next_targets;
		if (next_shrink < busy)
			busy = next_shrink;
		if (until < busy)
			busy = until;
		timeout = loop_timeout(r, now, until, busy, now < prompt_until);
		/* at a process's exit, else on a slow poll (the reaper's /proc
		 * checks before Linux 6.16's group_dead, the command's waitpid) */
		if (now + TIMER_SLACK_NS < next_targets && !r->exit_seen)
			continue;
		if (r->exit_seen)
			reap_until = now + REAP_WINDOW_NS;
		r->exit_seen = false;
		next_targets = now + targets_every;
		if (targets_gone(r, &r->launch, &r->res->command_status))
			break;
	}
	if (rc) {
		fprintf(stderr, "katra-record: cannot write trace file '%s': %s\n", o->output,
			strerror(-rc));
		if (rc == -ENOSPC)
			fprintf(stderr, "katra-record: the trace keeps every whole record written "
				"before the disk filled up\n");
	}
	return rc;
}

/* ---- stop ---- */

void recorder_stop(struct recorder *r)
{
	const struct katra_record_opts *o = r->o;
	struct katra_record_result *res = r->res;

	if (r->drain_sched_on) {
		res->drain_boosts = r->drain_sched.boosts;
		consumer_sched_stop(&r->drain_sched);
		r->drain_sched_on = false;
	}
	/* the end, one instant for every layer: nothing tracked, nothing stamped
	 * later written; detach (uprobe_multi links closed by our threads, perf-
	 * event ones by a child) and wait until no probe runs */
	katra_probes_untrack_all(r->probes);
	r->end = recorder_clock_ns(CLOCK_MONOTONIC);
	pipeline_end_at(&r->pl, r->end);
	katra_uprobes_detach(r->up);
	if (katra_probes_detach(r->probes) && !o->quiet)
		fprintf(stderr, "katra-record: a probe was still running %d ms after the probes "
			"were detached: its last events may be missing\n", KATRA_DETACH_WAIT_MS);
	res->nprobe_runs = katra_probes_read_runs(r->probes, res->probe_runs,
						   KATRA_RECORD_PROBE_RUNS);
	katra_test_delay("KATRA_TEST_SLOW_STOP_MS");
}

/* After the probes are detached: a syscall a CPU was in at that moment has
 * its enter only in the CPU's slot; its Begin goes in (the End is inferred
 * at the end of the capture). */
static void take_inflight(struct recorder *r)
{
	struct katra_cpu_slot s;

	for (unsigned i = 0; i < r->nrings; i++) {
		if (!katra_probes_inflight_syscall(r->probes, i, &s))
			continue;
		struct katra_ev_syscall sc = {
			.head = { .type = KATRA_EV_SYSCALL, .cpu = i, .tgid = s.tgid, .tid = s.tid,
				  .ts = s.enter_ts },
			.enter_ts = s.enter_ts, .nr = s.nr, .flags = KATRA_SC_ENTER | s.sc_flags,
			.dev = s.dev, .ino = s.ino, .aux = s.aux,
		};
		memcpy(sc.args, s.args, sizeof(sc.args));
		pipeline_on_record(&r->pl, &sc, sizeof(sc));
	}
}

/* ---- drain ---- */

int recorder_drain(struct recorder *r)
{
	int rc;

	/* epochs count until the capture ends, the teardown included; the last
	 * drop check, then the backlog by the marks taken, a last one, then
	 * whatever is left, with the CPUs' syscalls then */
	if (r->epochs.fifo_fd >= 0)
		katra_record_read_fifo(&r->epochs, &r->pl, r->end);
	katra_record_queue_marks(&r->epochs, &r->pl, r->end);
	check_drops(r, r->end, true);
	recorder_gpu_counters(r, r->end);
	katra_drain_stop_marker(&r->drain);
	rc = katra_drain_run(&r->drain, UINT64_MAX);
	katra_drain_rest(&r->drain);
	take_inflight(r);
	if (rc)
		fprintf(stderr, "katra-record: cannot write trace file '%s': %s\n", r->o->output,
			strerror(-rc));
	return rc;
}

/* ---- finish ---- */

static int finish_trace(struct recorder *r, uint64_t end_key, struct katra_record_result *res)
{
	struct katra_kind_count kinds[KATRA_KIND_COUNT];
	struct katra_drop_count drops[64 + KATRA_DROP_SOURCE_COUNT];
	struct katra_str attached[160], failed[160];
	struct katra_summary s;
	const char *const *names;
	int rc;

	rc = pipeline_finish(&r->pl, end_key, r->drops_seen, r->ktable_seen, &s, kinds, drops,
			     sizeof(drops) / sizeof(drops[0]));
	if (rc)
		return rc;
	size_t na = katra_probes_attached(r->probes, &names);
	if (na > 64)
		na = 64;
	for (size_t i = 0; i < na; i++)
		attached[i] = katra_cstr(names[i]);
	size_t nua = katra_uprobes_attached(r->up, &names);
	for (size_t i = 0; i < nua && na < 160; i++)
		attached[na++] = katra_cstr(names[i]);
	s.probes_attached = (struct katra_str_vec){ attached, na };
	size_t nf = katra_probes_failed(r->probes, &names);
	if (nf > 64)
		nf = 64;
	for (size_t i = 0; i < nf; i++)
		failed[i] = katra_cstr(names[i]);
	size_t nuf = katra_uprobes_failed(r->up, &names);
	for (size_t i = 0; i < nuf && nf < 160; i++)
		failed[nf++] = katra_cstr(names[i]);
	s.probes_failed = (struct katra_str_vec){ failed, nf };

	/* the stacks' records before the SessionSummary */
	rc = recorder_stacks_write(r);
	if (rc)
		return rc;
	rc = katra_writer_finish(r->w, &s);
	res->events = s.event_count;
	res->epochs = s.epoch_count;
	res->counters = s.counter_count;
	res->dropped = s.dropped_events;
	katra_record_split_losses(res, s.drops, s.drops_len);
	res->duration_ns = s.duration_ns;
	katra_record_take_emit_stats(res, &r->pl.em.st);
	res->forced = r->pl.forced;
	memcpy(res->by_kind, r->pl.em.st.by_kind, sizeof(res->by_kind));
	res->probes_attached = (unsigned)na;
	res->probes_failed = (unsigned)nf;
	res->probes_fallback = (unsigned)katra_probes_fallbacks(r->probes);
	return rc;
}

int recorder_finish(struct recorder *r)
{
	struct katra_record_result *res = r->res;
	int rc = finish_trace(r, r->end, res);

	if (rc) {
		fprintf(stderr, "katra-record: cannot write trace file '%s': %s\n", r->o->output,
			strerror(-rc));
		return rc;
	}
	res->bytes = katra_writer_bytes(r->w);
	res->procs = katra_wine_names_take_roster(r->wine, &res->nprocs, &res->procs_total);
	res->cpu_ns_capture = katra_cpu_ns() - res->cpu_ns_setup;
	katra_memory_use(&res->peak_rss_kib, &res->ring_rss_kib);
	res->ring_bytes = katra_drain_ring_bytes(&r->drain);
	if (r->pl.bad_records)
		fprintf(stderr, "katra-record: %" PRIu64 " malformed ring records skipped "
			"(counted lost: RingReserve)\n", r->pl.bad_records);
	return 0;
}
