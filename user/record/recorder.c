// SPDX-License-Identifier: GPL-2.0-only
/* katra_record_run: a capture as its phases, in order.
 *
 *   check    the privileges, the targets, the output (nothing set up yet)
 *   load     the epoch FIFO, the Wine sessions, the command (forked, held
 *            before its exec), the probes loaded and the targets tracked
 *   attach   the probes attached, the processes below the targets, the Wine
 *            and Vulkan libraries probed (the settle wait ends at a signal)
 *   open     the start instant, the trace file, the pipeline, the rings
 *   go live  the first records, the command released, the ready file
 *   run      the loop until a stop signal, -d, every target gone or an error
 *   stop     one end instant for every layer, the probes detached
 *   drain    the rings read to empty
 *   finish   the summary written
 *
 * The first five are here, the rest in recorder_run.c.  A phase that fails
 * has said why; teardown() then releases whatever the phases before it set
 * up (each resource's flag or handle is in struct recorder), however far the
 * capture got, and ends a command still running. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "host.h"
#include "outfile.h"
#include "preflight.h"
#include "recorder_run.h"
#include "recorder_stacks.h"
#include "recorder_signals.h"

#define DEFAULT_COUNTER_NS 1000000000ull
#define FIFO_CAP 1024                 /* pending items per ring at first */
/* CPUs' clocks may disagree a little (virtual machines, multi-socket hosts):
 * a mark releases what is older than its watermark by this much (drain.h) */
#define CLOCK_SKEW_MARGIN_NS 1000000ull
#define REORDER_BUDGET_BYTES (12u << 20) /* pending items in all, whatever the CPU count */

/* KATRA_TIMING=1: the end of each start-up step on stderr, in ms since the
 * capture began (wall clock) with the process's CPU time then (all threads):
 * where the time to live goes. */
static void timing(const struct recorder *r, const char *step)
{
	static int on = -1;

	if (on < 0)
		on = getenv("KATRA_TIMING") && *getenv("KATRA_TIMING") == '1';
	if (on)
		fprintf(stderr, "katra-record: timing: %-18s %7.2f ms (cpu %7.2f ms)\n", step,
			(recorder_clock_ns(CLOCK_MONOTONIC) - r->t0) / 1e6, katra_cpu_ns() / 1e6);
}

/* A process's last thread has exited (its group_dead TaskExit is written):
 * only now does it leave the tracked set, so no thread's exit is missed. */
static void on_process_exit(void *ctx, uint32_t tgid)
{
	struct recorder *r = ctx;

	/* whether every target is gone is asked now, not at the next poll */
	r->exit_seen = true;
	/* with the kernel's own group_dead (6.16) this was the last thread; before,
	 * another one can still be on its way to its exit tracepoint: the reaper
	 * untracks the process once /proc shows it gone */
	if (katra_probes_exact_group_dead(r->probes))
		katra_probes_untrack_tgid(r->probes, tgid);
	katra_probes_forget_process(r->probes, tgid);
}

/* A traced process mapped a file executable: a library to probe? */
static void on_exec_map(void *ctx, uint32_t tgid, uint64_t kdev, uint64_t ino)
{
	katra_uprobes_note_mapping(ctx, tgid, kdev, ino);
}

/* A ring's watermark (drain.h): its CPU slot, read after `now`. */
static uint64_t slot_watermark(void *ctx, unsigned ring, uint64_t now, uint64_t prev)
{
	return katra_probes_ring_watermark(((struct recorder *)ctx)->probes, ring, now, prev);
}

/* The marker's sleep (drain.h): the rings wake it, edge-triggered (a ring's
 * readiness lasts while it holds what no mark covers yet). */
static int watch_rings(void *ctx, int epfd)
{
	return katra_rings_epoll_add(&((struct recorder *)ctx)->rings, epfd, EPOLLIN | EPOLLET);
}

static bool staged_records(void *ctx)
{
	return katra_probes_any_staged(((struct recorder *)ctx)->probes);
}

static int open_rings(struct recorder *r)
{
	int rc = katra_probes_rings_open(r->probes, &r->rings);

	r->rings_open = true; /* closed in any case */
	return rc;
}

static int setup_wait(struct recorder *r)
{
	struct epoll_event ev = { .events = EPOLLIN };

	int err;

	r->wait_fd = epoll_create1(EPOLL_CLOEXEC);
	if (r->wait_fd < 0)
		return -errno;
	/* edge-triggered: a ring stays readable while it holds records no mark
	 * covers yet, which the loop would spin on; it wakes at a ring's
	 * wakeup (a quarter full, or the first record while the marker
	 * sleeps) and on its timer */
	err = katra_rings_epoll_add(&r->rings, r->wait_fd, EPOLLIN | EPOLLET);
	if (err || r->epochs.fifo_fd < 0)
		return err;
	ev.data.fd = r->epochs.fifo_fd;
	if (epoll_ctl(r->wait_fd, EPOLL_CTL_ADD, r->epochs.fifo_fd, &ev) < 0)
		return -errno;
	return 0;
}

/* ProcessInfo for the processes traced from the start (a command is named
 * by its exec). */
static int name_processes(struct recorder *r, const uint32_t *pids, size_t n, uint32_t origin,
			  uint64_t key)
{
	char comm[64], exe[KATRA_PATH_MAX];
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		katra_target_comm(pids[i], comm, sizeof(comm));
		bool have_exe = r->o->record_paths && !katra_target_exe(pids[i], exe, sizeof(exe));
		rc = emit_process_info(&r->pl.em, key, pids[i], origin, comm, have_exe ? exe : NULL,
				       katra_wine_names_image(r->wine, pids[i]));
	}
	return rc;
}

/* A Wine session member found in /proc: tracked, and its ntdll.so / Vulkan
 * driver probed (once per file) if it maps one not seen yet. */
static int wine_track(void *ctx, uint32_t pid)
{
	struct recorder *r = ctx;
	int rc = katra_probes_track_tgid(r->probes, pid);

	if (!rc && r->up)
		katra_uprobes_request_scan(r->up, pid);
	return rc;
}

static bool wine_is_tracked(void *ctx, uint32_t pid)
{
	struct recorder *r = ctx;

	return katra_probes_is_tracked(r->probes, pid);
}

/* The tree's processes that already exist: forks from now on are followed
 * in the kernel.  A second look finds what one found by the first forked
 * before it was tracked; with none found, the tree is the targets alone. */
static void track_descendants(struct recorder *r, const struct katra_record_opts *o)
{
	for (int pass = 0, n = 1; pass < 2 && n > 0 && o->follow_children && o->npids; pass++) {
		n = katra_target_descendants(o->pids, o->npids, r->kids, KIDS_MAX);
		r->nkids = 0;
		for (int i = 0; i < n && i < KIDS_MAX; i++) {
			if (r->kids[i] == (uint32_t)getpid())
				continue; /* never the recorder itself (-p $$ from its shell) */
			r->kids[r->nkids++] = r->kids[i];
			katra_probes_track_tgid(r->probes, r->kids[i]);
		}
		if (n > KIDS_MAX && pass)
			fprintf(stderr, "katra-record: %d processes below the targets; tracking the "
				"first %d and what they fork\n", n, KIDS_MAX);
	}
}

/* The -p targets' Wine sessions, once the probes are live: every member not
 * traced yet, and (unless --no-follow) the processes below them. */
static int wine_join_socks(void *ctx, const uint64_t (*socks)[2], size_t n)
{
	struct recorder *r = ctx;

	return katra_probes_set_join_socks(r->probes, socks, n);
}

static int start_sessions(struct recorder *r)
{
	const struct katra_wine_ops ops = { r, wine_track, wine_is_tracked, wine_join_socks };

	return katra_wine_names_start(r->wine, &ops, r->o->follow_children);
}


/* ---- check ---- */

/* The stop signals caught, then what can be refused before anything is set
 * up: privileges, each -p PID (a thread id stands for its process), the
 * output, a stale ready file. */
static int check(struct recorder *r)
{
	struct katra_record_opts *o = &r->opts;
	int rc;

	katra_command_pending = o->command != NULL;
	rc = katra_catch_stop_signals(&r->stop_ignored);
	if (rc) {
		fprintf(stderr, "katra-record: cannot set signal handlers: %s\n", strerror(-rc));
		return rc;
	}
	if (!o->counter_interval_ns)
		o->counter_interval_ns = DEFAULT_COUNTER_NS;
	rc = katra_preflight_privileges(stderr);
	if (rc)
		return rc;
	for (size_t i = 0; i < o->npids; i++) {
		uint32_t pid = o->pids[i], tgid;
		if (katra_target_check(pid) || !(tgid = katra_target_tgid(pid))) {
			fprintf(stderr, "katra-record: no process with PID %u\n", pid);
			return -ESRCH;
		}
		if (tgid != pid) {
			/* a thread id: its process is what the probes filter on */
			fprintf(stderr, "katra-record: %u is a thread of process %u: tracing process "
				"%u\n", pid, tgid, tgid);
			o->pids[i] = pid = tgid;
		}
		if (pid == (uint32_t)getpid()) {
			fprintf(stderr, "katra-record: PID %u is katra-record itself\n", pid);
			return -EINVAL;
		}
		r->pids[r->npids++] = pid;
	}
	rc = katra_preflight(o, stderr);
	if (rc)
		return rc;
	/* a stale one must not say this capture is live */
	if (o->ready_file && unlink(o->ready_file) < 0 && errno != ENOENT) {
		rc = -errno;
		fprintf(stderr, "katra-record: cannot remove the old ready file '%s': %s\n",
			o->ready_file, strerror(-rc));
		return rc;
	}
	return 0;
}

/* ---- load ---- */

/* The epoch FIFO, the -p targets' Wine sessions (--session: each must have
 * one) and the command, forked and held before its exec. */
static int load_targets(struct recorder *r)
{
	const struct katra_record_opts *o = r->o;
	int rc;

	if (o->epoch_fifo) {
		rc = katra_record_open_fifo(&r->epochs, o->epoch_fifo);
		if (rc) {
			fprintf(stderr, "katra-record: cannot open epoch FIFO '%s': %s\n",
				o->epoch_fifo, strerror(-rc));
			return rc;
		}
	}
	rc = katra_wine_names_open(&r->wine, "/proc", o->session_mode, o->pids, o->npids, stderr,
				   o->quiet);
	if (rc)
		return rc; /* it said why */
	r->hs->wine = r->wine;
	r->hs->kids = r->kids;
	r->hs->nkids = &r->nkids;
	if (o->command) {
		struct katra_run_as as;
		rc = katra_resolve_run_as(o, &as);
		as.stdout_to_stderr = !strcmp(o->output, "-");
		as.ignored = r->stop_ignored;
		if (!rc)
			rc = katra_launch_start(&r->launch, o->command, &as);
		if (rc) {
			fprintf(stderr, "katra-record: cannot run '%s': %s\n", o->command[0],
				strerror(-rc));
			return rc;
		}
		r->pids[r->npids++] = (uint32_t)r->launch.pid;
	}
	return 0;
}

/* A command's or a target's Vulkan drivers, known from an earlier capture,
 * probed while the rest of the programs load (probes_early.c; on the
 * load's thread). */
static void uprobes_early(void *ctx, struct katra_probes *p)
{
	struct recorder *r = ctx;

	katra_uprobes_early(r->up, p);
}

/* The targets, then the BPF programs loaded and the targets tracked; the
 * uprobes worker started (its start wait ends at a stop signal). */
static int load(struct recorder *r)
{
	const struct katra_record_opts *o = r->o;
	struct katra_probes_opts po = KATRA_PROBES_OPTS_DEFAULT;
	int rc = load_targets(r);

	if (rc)
		return rc;
	po.follow_children = o->follow_children;
	po.record_paths = o->record_paths;
	po.verbose = o->verbose;
	po.force_raw_tp = o->force_raw_tp;
	po.bpf_stats = o->bpf_stats;
	po.small_tables = o->small_tables;
	po.detach_pause_ms = o->detach_pause_ms;
	po.quiet = o->quiet;
	po.select = &o->select;
	po.ring_bytes = (uint32_t)o->buffer_size;
	po.stacks = o->stacks;
	po.stack_threshold_ns = o->stack_threshold_ns;
	po.sample_hz = o->sample_hz;
	struct katra_uprobes_opts uo = { .wine = !o->no_uprobes, .vulkan = !o->no_uprobes,
					 .quiet = o->quiet, .stacks = o->stacks };
	rc = katra_uprobes_new(NULL, &uo, &r->up); /* a command's vkresolve runs beside the load */
	if (!rc && r->launch.pid > 0)
		katra_uprobes_command_early(r->up, (uint32_t)r->launch.pid);
	for (size_t i = 0; !rc && r->launch.pid <= 0 && i < r->npids; i++)
		katra_uprobes_pid_early(r->up, r->pids[i]);
	if (!rc && katra_uprobes_early_known(r->up)) {
		po.uprobes_ready = uprobes_early;
		po.uprobes_ctx = r;
	}
	timing(r, " load: targets");
	if (!rc && (rc = katra_probes_open(&po, &r->probes))) {
		katra_uprobes_set_probes(r->up, NULL); /* gone, if the early links had them */
		return rc; /* probes said why */
	}
	timing(r, " load: probes");
	for (size_t i = 0; !rc && i < r->npids; i++) {
		rc = katra_probes_track_tgid(r->probes, r->pids[i]);
		if (rc) {
			fprintf(stderr, "katra-record: cannot track PID %u: %s\n", r->pids[i],
				strerror(-rc));
			return rc;
		}
	}
	katra_uprobes_set_probes(r->up, r->probes);
	if (!rc) /* scans and attaches off the drain from now on */
		rc = katra_uprobes_start(r->up);
	if (rc) {
		fprintf(stderr, "katra-record: cannot set up uprobes: %s\n", strerror(-rc));
		return rc;
	}
	r->nrings = katra_probes_ring_count(r->probes);
	r->drops_seen = calloc(r->nrings, sizeof(uint64_t));
	r->drops_now = calloc(r->nrings, sizeof(uint64_t));
	if (!r->drops_seen || !r->drops_now)
		return -ENOMEM;
	return 0;
}

/* ---- attach ---- */

static int attach(struct recorder *r)
{
	const struct katra_record_opts *o = r->o;
	char layer_notes[8][KATRA_NOTE_MAX];
	bool core_ok;
	int rc;

	rc = katra_probes_attach(r->probes);
	timing(r, " attach: probes");
	size_t nl = katra_probes_layer_warnings(r->probes, layer_notes, 8, &core_ok);
	for (size_t i = 0; i < nl && !o->quiet; i++)
		fprintf(stderr, "katra-record: %s\n", layer_notes[i]);
	if (!rc && !core_ok)
		rc = -ENOENT;
	if (rc) {
		fprintf(stderr, "katra-record: the core probes (syscalls, process lifecycle) could "
			"not be attached: %s\n", strerror(-rc));
		return rc;
	}
	rc = start_sessions(r);
	if (rc)
		return rc;
	timing(r, " attach: sessions");
	track_descendants(r, o);
	timing(r, " attach: tree");
	/* Wine's ntdll.so and the Vulkan driver, as the traced processes map them
	 * now (later: from their mmap records); for a command, before it runs, a
	 * Wine launcher's own ntdll.so and the Vulkan drivers its loader would
	 * pick: attached before the traced code can call them */
	if (o->command) {
		char cmd_path[4096];
		bool resolved = !katra_resolve_command(o->command[0], cmd_path, sizeof(cmd_path));
		katra_uprobes_request_command(r->up, (uint32_t)r->launch.pid,
					      resolved ? cmd_path : NULL);
	}
	for (size_t i = 0; i < r->npids; i++)
		katra_uprobes_request_scan(r->up, r->pids[i]);
	for (size_t i = 0; i < r->nkids; i++)
		katra_uprobes_request_scan(r->up, r->kids[i]);
	katra_uprobes_settle(r->up, &katra_stop_signals);
	timing(r, " attach: uprobes");
	return 0;
}

/* ---- open ---- */

/* The trace file under its header, written by the writer's own thread. */
static int open_trace(struct recorder *r)
{
	const struct katra_record_opts *o = r->o;
	struct katra_header h;
	bool to_stdout = !strcmp(o->output, "-");
	int fd = -1, rc;
	sigset_t mask;

	katra_record_build_header(&h, r->hs, o, r->probes, r->up, r->pids, r->npids,
				  r->start_mono, r->start_wall);
	rc = to_stdout ? ((fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0)) < 0 ? -errno : 0)
		       : katra_outfile_create(o->output, o->force, &fd);
	katra_block_signals(&mask); /* the writer's output thread */
	if (!rc)
		rc = katra_writer_open_fd(&r->w, fd, to_stdout, &h,
					  o->compress ? KATRA_WRITER_GZIP : 0);
	katra_restore_signals(&mask);
	if (rc)
		fprintf(stderr, "katra-record: cannot open trace file '%s': %s%s\n", o->output,
			strerror(-rc), rc == -ELOOP ? " (a symbolic link: refused)" : "");
	return rc;
}

/* The pipeline over the writer, the rings, the drain and its wait. */
static int open_pipeline(struct recorder *r)
{
	const struct katra_record_opts *o = r->o;
	struct pipeline_config pc = {
		.fifo_items = FIFO_CAP, .max_items = REORDER_BUDGET_BYTES / sizeof(struct pending),
		.limits = { 65536, 16384, 65536 },
	};
	int rc;

	if (o->small_tables) /* and the process table: tests of its shrinking */
		pc.limits.max_processes = o->small_tables;
	pc.nrings = r->nrings;
	pc.start_mono = r->start_mono;
	pc.start_wall = r->start_wall;
	pc.record_paths = o->record_paths;
	/* tests: a tiny reorder budget forces early releases */
	if (getenv("KATRA_TEST_REORDER_ITEMS"))
		pc.max_items = strtoul(getenv("KATRA_TEST_REORDER_ITEMS"), NULL, 10);
	rc = pipeline_init(&r->pl, r->w, &pc);
	r->pl_ready = !rc;
	if (!rc) {
		r->pl.em.on_process_exit = on_process_exit;
		r->pl.em.cb_ctx = r;
		r->pl.on_exec_map = on_exec_map;
		r->pl.map_ctx = r->up;
		if (!o->no_uprobes) {
			r->pl.em.nt_name = katra_uprobes_nt_name;
			r->pl.em.server_requests = katra_uprobes_server_requests;
			r->pl.em.unix_names = katra_uprobes_unix_names;
			r->pl.em.names_ready = katra_uprobes_names_ready;
			r->pl.em.wine_tables_ctx = r->up;
		}
	}
	if (!rc)
		rc = open_rings(r);
	if (!rc) {
		const struct katra_drain_src src = { slot_watermark, r,
						     katra_probes_wake_flag(r->probes),
						     watch_rings, staged_records,
						     katra_probes_mark_wake(r->probes) };
		rc = katra_drain_init(&r->drain, &r->rings, &r->pl, &src, r->start_mono,
				      CLOCK_SKEW_MARGIN_NS);
		r->drain_ready = !rc;
	}
	if (!rc)
		rc = setup_wait(r);
	if (rc)
		fprintf(stderr, "katra-record: cannot set up the capture: %s\n", strerror(-rc));
	return rc;
}

/* The capture starts with every layer of what exists on: nothing before is
 * written (pipeline.c); a fork meanwhile is one of the tree's now. */
static int open_capture(struct recorder *r)
{
	int rc;

	r->start_mono = recorder_clock_ns(CLOCK_MONOTONIC);
	r->start_wall = recorder_clock_ns(CLOCK_REALTIME);
	/* nothing new where the tree was the targets and none of them forked */
	if (r->nkids || katra_probes_any_forked(r->probes))
		track_descendants(r, r->o);
	rc = open_trace(r);
	if (!rc)
		rc = open_pipeline(r);
	return rc;
}

/* ---- go live ---- */

/* The capture's first records: its start epoch, the processes traced from
 * the start by name, the Wine sessions' members. */
static int write_start(struct recorder *r)
{
	const struct katra_record_opts *o = r->o;
	int rc;

	pipeline_queue_epoch(&r->pl, r->start_mono, KATRA_EPOCH_CAPTURE_START, "capture start");
	rc = pipeline_emit_until(&r->pl, r->start_mono);
	katra_wine_names_attach(r->wine, &r->pl.em);
	if (!rc)
		rc = name_processes(r, o->pids, o->npids, KATRA_ORIGIN_TARGET, r->start_mono);
	if (!rc)
		rc = name_processes(r, r->kids, r->nkids, KATRA_ORIGIN_DESCENDANT, r->start_mono);
	if (!rc)
		rc = katra_wine_names_emit_start(r->wine, r->start_mono, o->record_paths);
	if (!rc && r->launch.pid > 0)
		emit_process_origin(&r->pl.em, (uint32_t)r->launch.pid, KATRA_ORIGIN_COMMAND);
	if (!rc)
		rc = katra_writer_flush(r->w);
	if (rc)
		fprintf(stderr, "katra-record: cannot write trace file '%s': %s\n", o->output,
			strerror(-rc));
	return rc;
}

static int go_live(struct recorder *r)
{
	const struct katra_record_opts *o = r->o;
	struct katra_record_result *res = r->res;
	int rc = write_start(r);

	if (rc)
		return rc;
	rc = katra_record_catch_marks(&r->epochs);
	if (!rc && signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		rc = -errno;
	if (rc) {
		fprintf(stderr, "katra-record: cannot set signal handlers: %s\n", strerror(-rc));
		return rc;
	}
	katra_test_delay("KATRA_TEST_SLOW_START_MS");
	if (r->launch.pid > 0) {
		katra_command_pid = r->launch.pid;
		katra_command_pending = 0;
		/* a stop signal during the start-up: the command has it before its
		 * first instruction (a second one: it is never released) */
		if (katra_stop_signals)
			kill(r->launch.pid, katra_stop_signal);
		rc = katra_stop_requested ? 0 : katra_launch_release(&r->launch);
		if (rc) {
			fprintf(stderr, "katra-record: cannot start the command: %s\n", strerror(-rc));
			return rc;
		}
	}
	/* the capture is live: -d counts from here, whatever the start-up took */
	r->live = recorder_clock_ns(CLOCK_MONOTONIC);
	res->live_after_ns = r->live - r->t0;
	res->live_at_ns = r->live - r->start_mono;
	res->cpu_ns_setup = katra_cpu_ns();
	if (o->ready_file && (rc = katra_outfile_ready(o->ready_file)))
		return rc;
	r->ready_made = o->ready_file != NULL;
	if (o->verbose)
		fprintf(stderr, "katra-record: capture live after %.1f ms\n",
			res->live_after_ns / 1e6);
	return 0;
}

/* ---- teardown ---- */

/* Whatever the phases set up, released in this order however far the
 * capture got: a command never released is killed, one still running is
 * ended; rc: the capture's, or the writer's close error. */
static int teardown(struct recorder *r, int rc)
{
	const struct katra_record_opts *o = r->o;

	if (r->launch.release_fd >= 0)
		katra_launch_abort(&r->launch);
	if (r->drain_sched_on)
		consumer_sched_stop(&r->drain_sched);
	if (r->drain_ready) /* it reads the rings and the slots */
		katra_drain_stop_marker(&r->drain);
	if (r->rings_open)
		katra_rings_close(&r->rings);
	if (r->launch.pid > 0) /* -d, a signal or an error ended the capture first */
		recorder_end_command(r);
	recorder_stacks_free(r); /* its reader uses the probes */
	ktable_free(&r->gpu_last);
	/* a uprobes worker left behind still uses the probes */
	if (!katra_uprobes_free(r->up))
		katra_probes_destroy(r->probes);
	if (r->w) {
		int crc = katra_writer_close(r->w);
		if (!rc && crc)
			rc = crc;
	}
	if (r->pl_ready)
		pipeline_free(&r->pl);
	free(r->drops_seen);
	free(r->drops_now);
	if (r->drain_ready)
		katra_drain_free(&r->drain);
	katra_record_close_fifo(&r->epochs, o->epoch_fifo);
	if (r->wait_fd >= 0)
		close(r->wait_fd);
	katra_wine_names_free(r->wine);
	if (r->ready_made)
		unlink(o->ready_file);
	free(r->hs);
	free(r);
	return rc;
}

int katra_record_run(const struct katra_record_opts *opts, struct katra_record_result *res)
{
	uint64_t t0 = recorder_clock_ns(CLOCK_MONOTONIC);
	struct recorder *r;
	int rc;

	memset(res, 0, sizeof(*res));
	res->command_status = -1;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->opts = *opts;
	r->o = &r->opts;
	r->res = res;
	r->t0 = t0;
	r->launch = (struct katra_launch){ -1, -1, NULL };
	r->epochs.fifo_fd = -1;
	r->wait_fd = -1;
	timing(r, "start");
	rc = check(r);
	if (!rc && !(r->hs = calloc(1, sizeof(*r->hs))))
		rc = -ENOMEM;
	if (!rc)
		timing(r, "check");
	if (!rc)
		rc = load(r);
	if (!rc)
		timing(r, "load");
	if (!rc)
		rc = attach(r);
	if (!rc)
		timing(r, "attach");
	if (!rc)
		rc = open_capture(r);
	if (!rc)
		timing(r, "open");
	if (!rc)
		rc = recorder_stacks_start(r);
	if (!rc)
		rc = go_live(r);
	if (!rc)
		timing(r, "live");
	if (!rc)
		rc = recorder_run(r);
	if (!rc) {
		recorder_stop(r);
		rc = recorder_drain(r);
	}
	if (!rc)
		rc = recorder_finish(r);
	return teardown(r, rc);
}
