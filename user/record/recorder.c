// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "record/kernel/consumer_sched.h"
#include "record/drain/drain.h"
#include "record/emit/emit.h"
#include "record/pipeline/pipeline.h"
#include "host.h"
#include "outfile.h"
#include "preflight.h"
#include "record/kernel/probes.h"
#include "recorder.h"
#include "recorder_epochs.h"
#include "recorder_signals.h"
#include "recorder_header.h"
#include "record/kernel/rings.h"
#include "record/targets/session.h"
#include "record/targets/targets.h"
#include "record/uprobes/uprobes.h"

#define POLL_MS 10
#define FLUSH_EVERY_NS 100000000ull   /* writer kick: at most 100 ms not handed over */
#define KATRA_COMMAND_GRACE_MS 2000  /* a command ended at the capture's end: SIGTERM, then SIGKILL */
#define DROPS_EVERY_NS 100000000ull
#define TARGETS_EVERY_NS 100000000ull /* has every target exited? (scans a 512 KiB bitmap) */
#define DEFAULT_COUNTER_NS 1000000000ull
#define FIFO_CAP 1024                 /* pending items per ring at first */
/* CPUs' clocks may disagree a little (virtual machines, multi-socket hosts):
 * a mark releases what is older than its watermark by this much (drain.h) */
#define CLOCK_SKEW_MARGIN_NS 1000000ull
#define DRAIN_RUN_RECORDS (1u << 16) /* then the loop's other work */
#define REORDER_BUDGET_BYTES (12u << 20) /* pending items in all, whatever the CPU count */

struct recorder {
	const struct katra_record_opts *o;
	struct katra_probes *probes;
	struct katra_uprobes *up; /* Wine and Vulkan libraries (uprobes.c) */
	struct katra_rings rings; /* the per-CPU rings, read in place */
	bool rings_open;
	struct katra_writer *w;
	struct pipeline pl;
	bool pl_ready;
	unsigned nrings;
	uint64_t *drops_seen;
	uint64_t *drops_now;
	struct katra_drain drain; /* the rings read and released by marks */
	bool drain_ready;
	bool exit_seen;         /* a process's last thread exited since the last check */
	bool told_ignored;      /* the forwarded stop signal was checked against the command */
	struct katra_wine_names *wine; /* Wine sessions: members, names, roster */
	uint64_t ktable_seen[KATRA_KTABLE_COUNT];
	uint64_t skipped_seen[PIPELINE_SKIPPED_MAX]; /* program runs skipped, by probe */
#define KIDS_MAX 1024
	uint32_t kids[KIDS_MAX]; /* processes below the targets at start */
	size_t nkids;
	struct epoch_input epochs; /* the FIFO's lines and SIGUSR1's marks */
	int wait_fd;            /* epoll over the rings and the FIFO (-1: rings only) */
	struct consumer_sched drain_sched; /* the drain's CPU policy */
	bool drain_sched_on;
};

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- periodic work ---- */

static void check_drops(struct recorder *r, uint64_t now)
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
	katra_probes_read_skipped(r->probes, sk, PIPELINE_SKIPPED_MAX);
	for (uint32_t k = 0; k < PIPELINE_SKIPPED_MAX; k++) {
		if (sk[k] <= r->skipped_seen[k])
			continue;
		pipeline_queue_skipped(&r->pl, now, k, sk[k] - r->skipped_seen[k]);
		r->skipped_seen[k] = sk[k];
	}
	pipeline_queue_losses(&r->pl, now);
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

static void on_process_reaped(void *ctx, uint32_t tgid)
{
	katra_probes_forget_process(ctx, tgid);
}

/* A traced process mapped a file executable: a library to probe? */
static void on_exec_map(void *ctx, uint32_t tgid, uint64_t kdev, uint64_t ino)
{
	katra_uprobes_note_mapping(ctx, tgid, kdev, ino);
}

/* A ring's watermark (drain.h): its CPU slot, read after `now`. */
static uint64_t slot_watermark(void *ctx, unsigned ring, uint64_t now, uint64_t prev)
{
	return katra_probes_ring_watermark(ctx, ring, now, prev);
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

static void queue_counters(struct recorder *r, uint64_t now)
{
	pipeline_queue_counter(&r->pl, now, KATRA_COUNTER_EVENTS_RECORDED, 0, 0);
	for (unsigned i = 0; i < r->nrings; i++) {
		pipeline_queue_counter(&r->pl, now, KATRA_COUNTER_EVENTS_DROPPED, i,
				       r->drops_seen[i]);
		pipeline_queue_counter(&r->pl, now, KATRA_COUNTER_RING_FILL_BYTES, i,
				       katra_probes_ring_unread(r->probes, i));
	}
}

static int open_rings(struct recorder *r)
{
	int rc = katra_probes_rings_open(r->probes, &r->rings);

	r->rings_open = true; /* closed in any case */
	return rc;
}

/* Sleeps until a ring's consumer is woken, an epoch line is in the FIFO (read
 * at once, so its time is when it arrived), or POLL_MS. */
static int wait_for_work(struct recorder *r)
{
	struct epoll_event ev[2];
	int n;

	n = epoll_wait(r->wait_fd, ev, 2, POLL_MS);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++)
		if (ev[i].data.fd == r->epochs.fifo_fd)
			katra_record_read_fifo(&r->epochs, &r->pl, clock_ns(CLOCK_MONOTONIC));
	return 0;
}

static int setup_wait(struct recorder *r)
{
	struct epoll_event ev = { .events = EPOLLIN };

	int err;

	r->wait_fd = epoll_create1(EPOLL_CLOEXEC);
	if (r->wait_fd < 0)
		return -errno;
	err = katra_rings_epoll_add(&r->rings, r->wait_fd, EPOLLIN);
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

/* The -p targets' Wine sessions, once the probes are live: every member not
 * traced yet, and (unless --no-follow) the processes below them. */
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

/* ---- summary ---- */

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

	rc = katra_writer_finish(r->w, &s);
	res->events = s.event_count;
	res->epochs = s.epoch_count;
	res->counters = s.counter_count;
	res->dropped = s.dropped_events;
	katra_record_split_losses(res, s.drops, s.drops_len);
	res->duration_ns = s.duration_ns;
	katra_record_take_emit_stats(res, &r->pl.em.st);
	memcpy(res->by_kind, r->pl.em.st.by_kind, sizeof(res->by_kind));
	res->probes_attached = (unsigned)na;
	res->probes_failed = (unsigned)nf;
	res->probes_fallback = (unsigned)katra_probes_fallbacks(r->probes);
	return rc;
}

/* ---- the capture ---- */

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
static void end_command(struct katra_launch *launch, int *status)
{
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

int katra_record_run(const struct katra_record_opts *opts, struct katra_record_result *res)
{
	struct katra_record_opts resolved = *opts, *o = &resolved;
	struct katra_probes_opts po = KATRA_PROBES_OPTS_DEFAULT;
	struct katra_launch launch = { -1, -1, NULL };
	struct pipeline_config pc = {
		.fifo_items = FIFO_CAP, .max_items = REORDER_BUDGET_BYTES / sizeof(struct pending),
		.limits = { 65536, 16384, 65536 },
	};
	struct recorder *r = NULL;
	struct header_store *hs = NULL;
	struct katra_header h;
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC), start_mono, start_wall;
	uint32_t pids[KATRA_MAX_TARGETS];
	size_t npids = 0;
	sigset_t stop_ignored;
	bool ready_made = false;
	int rc, err;

	memset(res, 0, sizeof(*res));
	res->command_status = -1;
	katra_command_pending = o->command != NULL;
	rc = katra_catch_stop_signals(&stop_ignored);
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
		pids[npids++] = pid;
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

	r = calloc(1, sizeof(*r));
	hs = calloc(1, sizeof(*hs));
	if (!r || !hs) {
		rc = -ENOMEM;
		goto cleanup;
	}
	r->o = o;
	r->epochs.fifo_fd = -1;
	r->wait_fd = -1;
	if (o->epoch_fifo) {
		rc = katra_record_open_fifo(&r->epochs, o->epoch_fifo);
		if (rc) {
			fprintf(stderr, "katra-record: cannot open epoch FIFO '%s': %s\n",
				o->epoch_fifo, strerror(-rc));
			goto cleanup;
		}
	}
	/* the -p targets' Wine sessions (--session: each must have one) */
	rc = katra_wine_names_open(&r->wine, "/proc", o->session_mode, o->pids, o->npids, stderr,
				   o->quiet);
	if (rc)
		goto cleanup; /* it said why */
	hs->wine = r->wine;
	hs->kids = r->kids;
	hs->nkids = &r->nkids;
	if (o->command) {
		struct katra_run_as as;
		rc = katra_resolve_run_as(o, &as);
		as.stdout_to_stderr = !strcmp(o->output, "-");
		as.ignored = stop_ignored;
		if (!rc)
			rc = katra_launch_start(&launch, o->command, &as);
		if (rc) {
			fprintf(stderr, "katra-record: cannot run '%s': %s\n", o->command[0],
				strerror(-rc));
			goto cleanup;
		}
		pids[npids++] = (uint32_t)launch.pid;
	}

	po.follow_children = o->follow_children;
	po.record_paths = o->record_paths;
	po.verbose = o->verbose;
	po.force_raw_tp = o->force_raw_tp;
	po.bpf_stats = o->bpf_stats;
	po.small_tables = o->small_tables;
	if (o->small_tables) /* and the process table: tests of its shrinking */
		pc.limits.max_processes = o->small_tables;
	po.detach_pause_ms = o->detach_pause_ms;
	po.quiet = o->quiet;
	po.select = &o->select;
	po.ring_bytes = (uint32_t)o->buffer_size;
	struct katra_uprobes_opts uo = { .wine = !o->no_uprobes, .vulkan = !o->no_uprobes,
					 .quiet = o->quiet };
	rc = katra_uprobes_new(NULL, &uo, &r->up); /* a command's vkresolve runs beside the load */
	if (!rc && launch.pid > 0)
		katra_uprobes_command_early(r->up, (uint32_t)launch.pid);
	if (!rc && (rc = katra_probes_open(&po, &r->probes)))
		goto cleanup; /* probes said why */
	for (size_t i = 0; !rc && i < npids; i++) {
		rc = katra_probes_track_tgid(r->probes, pids[i]);
		if (rc) {
			fprintf(stderr, "katra-record: cannot track PID %u: %s\n", pids[i],
				strerror(-rc));
			goto cleanup;
		}
	}
	katra_uprobes_set_probes(r->up, r->probes);
	if (!rc) /* scans and attaches off the drain from now on */
		rc = katra_uprobes_start(r->up);
	if (rc) {
		fprintf(stderr, "katra-record: cannot set up uprobes: %s\n", strerror(-rc));
		goto cleanup;
	}
	r->nrings = katra_probes_ring_count(r->probes);
	r->drops_seen = calloc(r->nrings, sizeof(uint64_t));
	r->drops_now = calloc(r->nrings, sizeof(uint64_t));
	if (!r->drops_seen || !r->drops_now) {
		rc = -ENOMEM;
		goto cleanup;
	}

	rc = katra_probes_attach(r->probes);
	{
		char layer_notes[8][KATRA_NOTE_MAX];
		bool core_ok;
		size_t nl = katra_probes_layer_warnings(r->probes, layer_notes, 8, &core_ok);
		for (size_t i = 0; i < nl && !o->quiet; i++)
			fprintf(stderr, "katra-record: %s\n", layer_notes[i]);
		if (!rc && !core_ok)
			rc = -ENOENT;
	}
	if (rc) {
		fprintf(stderr, "katra-record: the core probes (syscalls, process lifecycle) could "
			"not be attached: %s\n", strerror(-rc));
		goto cleanup;
	}
	rc = start_sessions(r);
	if (rc)
		goto cleanup;
	track_descendants(r, o);
	/* Wine's ntdll.so and the Vulkan driver, as the traced processes map them
	 * now (later: from their mmap records); for a command, before it runs, a
	 * Wine launcher's own ntdll.so and the Vulkan drivers its loader would
	 * pick: attached before the traced code can call them */
	if (o->command) {
		char cmd_path[4096];
		bool resolved = !katra_resolve_command(o->command[0], cmd_path, sizeof(cmd_path));
		katra_uprobes_request_command(r->up, (uint32_t)launch.pid, resolved ? cmd_path : NULL);
	}
	for (size_t i = 0; i < npids; i++)
		katra_uprobes_request_scan(r->up, pids[i]);
	for (size_t i = 0; i < r->nkids; i++)
		katra_uprobes_request_scan(r->up, r->kids[i]);
	katra_uprobes_settle(r->up, &katra_stop_signals);
	/* the capture starts with every layer of what exists on: nothing before
	 * is written (pipeline.c); a fork meanwhile is one of the tree's now */
	start_mono = clock_ns(CLOCK_MONOTONIC);
	start_wall = clock_ns(CLOCK_REALTIME);
	/* nothing new where the tree was the targets and none of them forked */
	if (r->nkids || katra_probes_any_forked(r->probes))
		track_descendants(r, o);
	katra_record_build_header(&h, hs, o, r->probes, r->up, pids, npids, start_mono, start_wall);
	{
		bool to_stdout = !strcmp(o->output, "-");
		int fd = -1;
		sigset_t mask;
		rc = to_stdout ? ((fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0)) < 0 ? -errno : 0)
			       : katra_outfile_create(o->output, o->force, &fd);
		katra_block_signals(&mask); /* the writer's output thread */
		if (!rc)
			rc = katra_writer_open_fd(&r->w, fd, to_stdout, &h,
						  o->compress ? KATRA_WRITER_GZIP : 0);
		katra_restore_signals(&mask);
	}
	if (rc) {
		fprintf(stderr, "katra-record: cannot open trace file '%s': %s%s\n", o->output,
			strerror(-rc), rc == -ELOOP ? " (a symbolic link: refused)" : "");
		goto cleanup;
	}
	pc.nrings = r->nrings;
	pc.start_mono = start_mono;
	pc.start_wall = start_wall;
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
		const struct katra_drain_src src = { slot_watermark, r->probes };
		rc = katra_drain_init(&r->drain, &r->rings, &r->pl, &src, start_mono,
				      CLOCK_SKEW_MARGIN_NS);
		r->drain_ready = !rc;
	}
	if (!rc)
		rc = setup_wait(r);
	if (rc) {
		fprintf(stderr, "katra-record: cannot set up the capture: %s\n", strerror(-rc));
		goto cleanup;
	}
	pipeline_queue_epoch(&r->pl, start_mono, KATRA_EPOCH_CAPTURE_START, "capture start");
	rc = pipeline_emit_until(&r->pl, start_mono);
	katra_wine_names_attach(r->wine, &r->pl.em);
	if (!rc)
		rc = name_processes(r, o->pids, o->npids, KATRA_ORIGIN_TARGET, start_mono);
	if (!rc)
		rc = name_processes(r, r->kids, r->nkids, KATRA_ORIGIN_DESCENDANT, start_mono);
	if (!rc)
		rc = katra_wine_names_emit_start(r->wine, start_mono, o->record_paths);
	if (!rc && launch.pid > 0)
		emit_process_origin(&r->pl.em, (uint32_t)launch.pid, KATRA_ORIGIN_COMMAND);
	if (!rc)
		rc = katra_writer_flush(r->w);
	if (rc) {
		fprintf(stderr, "katra-record: cannot write trace file '%s': %s\n", o->output,
			strerror(-rc));
		goto cleanup;
	}

	rc = katra_record_catch_marks(&r->epochs);
	if (!rc && signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		rc = -errno;
	if (rc) {
		fprintf(stderr, "katra-record: cannot set signal handlers: %s\n", strerror(-rc));
		goto cleanup;
	}

	katra_test_delay("KATRA_TEST_SLOW_START_MS");
	if (launch.pid > 0) {
		katra_command_pid = launch.pid;
		katra_command_pending = 0;
		/* a stop signal during the start-up: the command has it before its
		 * first instruction (a second one: it is never released) */
		if (katra_stop_signals)
			kill(launch.pid, katra_stop_signal);
		rc = katra_stop_requested ? 0 : katra_launch_release(&launch);
		if (rc) {
			fprintf(stderr, "katra-record: cannot start the command: %s\n", strerror(-rc));
			goto cleanup;
		}
	}
	/* the capture is live: -d counts from here, whatever the start-up took */
	uint64_t live = clock_ns(CLOCK_MONOTONIC);
	res->live_after_ns = live - t0;
	res->live_at_ns = live - start_mono;
	res->cpu_ns_setup = katra_cpu_ns();
	if (o->ready_file && (rc = katra_outfile_ready(o->ready_file)))
		goto cleanup;
	ready_made = o->ready_file != NULL;
	if (o->verbose)
		fprintf(stderr, "katra-record: capture live after %.1f ms\n",
			res->live_after_ns / 1e6);

	uint64_t counter_every = o->counter_interval_ns, next_shrink = start_mono;
	uint64_t next_flush = start_mono + FLUSH_EVERY_NS, next_drops = start_mono + DROPS_EVERY_NS;
	uint64_t next_counter = start_mono + counter_every, next_targets = start_mono;
	uint64_t targets_every = katra_test_ms("KATRA_TEST_TARGETS_POLL_MS", TARGETS_EVERY_NS);
	uint64_t deadline = o->duration_ns ? live + o->duration_ns : UINT64_MAX;
	{
		sigset_t mask;
		katra_block_signals(&mask); /* the marker's and the watchdog's threads */
		err = katra_drain_start_marker(&r->drain);
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
	rc = 0;
	while (!katra_stop_requested && !rc) {
		/* wait for a ring past its wakeup threshold, an epoch line, or the
		 * timer (rings do not wake the consumer per record); then drain all */
		err = wait_for_work(r);
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		check_forwarded_signal(r, &launch);
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
		if (now >= next_drops) {
			check_drops(r, now);
			next_drops = now + DROPS_EVERY_NS;
		}
		if (now >= next_counter) {
			queue_counters(r, now);
			next_counter += counter_every;
		}
		rc = katra_drain_run(&r->drain, DRAIN_RUN_RECORDS);
		if (!rc) /* Wine processes that joined: tracked and named now */
			rc = katra_wine_names_tick(r->wine, now);
		if (now >= next_shrink) {
			order_shrink(&r->pl.order);
			next_shrink = now + 1000000000ull;
		}
		if (!rc && now >= next_flush) {
			rc = katra_writer_kick(r->w);
			next_flush = now + FLUSH_EVERY_NS;
		}
		if (now >= deadline)
			break;
		/* at a process's exit, else on a slow poll (the reaper's /proc
		 * checks before Linux 6.16's group_dead, the command's waitpid) */
		if (now < next_targets && !r->exit_seen)
			continue;
		r->exit_seen = false;
		next_targets = now + targets_every;
		if (targets_gone(r, &launch, &res->command_status))
			break;
	}
	if (rc) {
		fprintf(stderr, "katra-record: cannot write trace file '%s': %s\n", o->output,
			strerror(-rc));
		if (rc == -ENOSPC)
			fprintf(stderr, "katra-record: the trace keeps every whole record written "
				"before the disk filled up\n");
		goto cleanup;
	}

	if (r->drain_sched_on) {
		res->drain_boosts = r->drain_sched.boosts;
		consumer_sched_stop(&r->drain_sched);
		r->drain_sched_on = false;
	}
	/* the end, one instant for every layer: nothing tracked, nothing stamped
	 * later written; detach (uprobe_multi links closed by our threads, perf-
	 * event ones by a child) and wait until no probe runs; the last drop
	 * check, the rings drained to empty, with the CPUs' syscalls then */
	katra_probes_untrack_all(r->probes);
	uint64_t end = clock_ns(CLOCK_MONOTONIC);
	pipeline_end_at(&r->pl, end);
	katra_uprobes_detach(r->up);
	if (katra_probes_detach(r->probes) && !o->quiet)
		fprintf(stderr, "katra-record: a probe was still running %d ms after the probes "
			"were detached: its last events may be missing\n", KATRA_DETACH_WAIT_MS);
	res->nprobe_runs = katra_probes_read_runs(r->probes, res->probe_runs,
						   KATRA_RECORD_PROBE_RUNS);
	katra_test_delay("KATRA_TEST_SLOW_STOP_MS");
	/* epochs count until the capture ends, the teardown included */
	if (r->epochs.fifo_fd >= 0)
		katra_record_read_fifo(&r->epochs, &r->pl, end);
	katra_record_queue_marks(&r->epochs, &r->pl, end);
	check_drops(r, end);
	/* the backlog by the marks taken, a last one, then whatever is left */
	katra_drain_stop_marker(&r->drain);
	rc = katra_drain_run(&r->drain, UINT64_MAX);
	katra_drain_rest(&r->drain);
	take_inflight(r);
	if (!rc)
		rc = finish_trace(r, end, res);
	if (rc) {
		fprintf(stderr, "katra-record: cannot write trace file '%s': %s\n", o->output,
			strerror(-rc));
		goto cleanup;
	}
	res->bytes = katra_writer_bytes(r->w);
	res->procs = katra_wine_names_take_roster(r->wine, &res->nprocs, &res->procs_total);
	res->cpu_ns_capture = katra_cpu_ns() - res->cpu_ns_setup;
	katra_memory_use(&res->peak_rss_kib, &res->ring_rss_kib);
	res->ring_bytes = katra_drain_ring_bytes(&r->drain);
	if (r->pl.bad_records)
		fprintf(stderr, "katra-record: %" PRIu64 " malformed ring records skipped "
			"(counted lost: RingReserve)\n", r->pl.bad_records);
cleanup:
	if (launch.release_fd >= 0)
		katra_launch_abort(&launch);
	if (r && r->drain_sched_on)
		consumer_sched_stop(&r->drain_sched);
	if (r) {
		if (r->drain_ready) /* it reads the rings and the slots */
			katra_drain_stop_marker(&r->drain);
		if (r->rings_open)
			katra_rings_close(&r->rings);
		if (launch.pid > 0) /* -d, a signal or an error ended the capture first */
			end_command(&launch, &res->command_status);
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
	}
	if (ready_made)
		unlink(o->ready_file);
	free(r);
	free(hs);
	return rc;
}
