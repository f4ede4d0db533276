/* SPDX-License-Identifier: GPL-2.0-only */
/* The emitter turns ordered pending items into Katra events: it assigns seq
 * and span ids, pairs Begin/End, resolves causes (exit -> enter, switch-in ->
 * wakeup, io_uring complete -> submit, a child's first event -> its fork,
 * exec -> the previous image) and appends the records through the writer.
 *
 * Rules that keep every capture verifiable (also in format/SPEC.md):
 * - an End whose Begin was never seen (in flight at start, or lost) is
 *   written as an Instant of the same kind;
 * - a Begin whose End never comes gets a synthesized End, confidence
 *   Inferred: at the thread's exit, or at the end of the capture;
 * - times are never changed: items come in time order (the watermark,
 *   pipeline.h); one that would still go back in time on its thread (only
 *   after the reorder budget forced an early release) is dropped and counted
 *   under DropSource::Reorder;
 * - a full state table never drops an event: the Begin it could not track is
 *   written as an Instant, and the eviction is counted in the summary. */
#ifndef KATRA_RECORD_EMIT_H
#define KATRA_RECORD_EMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "katra/format.h"
#include "pending.h"
#include "record/table/table.h"

struct emit_stats {
	uint64_t events, epochs, counters;
	uint64_t by_kind[KATRA_KIND_COUNT];
	uint64_t inferred;
	uint64_t late;      /* dropped: would have gone back in time on its thread */
	uint64_t evictions[KATRA_DROP_SOURCE_COUNT]; /* user-space losses, by source */
	uint64_t offcpu_inferred; /* OffCpu spans closed at the thread's next event */
	uint64_t wakeups_unseen;  /* Wakeups written Inferred (emit_unseen_wakeup) */
	uint64_t processes_seen, threads_seen;
	uint64_t last_key;  /* CLOCK_MONOTONIC of the last record written */
};

/* Linux's PID_MAX_LIMIT: every process and thread id is below it. */
#define KATRA_SEEN_IDS (1u << 22)

struct emitter {
	struct katra_writer *w;
	uint64_t start_mono, start_wall;
	uint64_t next_seq;
	uint64_t next_span;
	struct ktable threads; /* tid -> struct thread_state */
	struct ktable procs;   /* tgid -> struct proc_state */
	struct ktable urings;  /* io_kiocb address -> submit seq */
	/* the one request in flight, held before the table while the table is
	 * empty (emit_uring: a ring with one request at a time touches no
	 * table); with it set the table is empty */
	bool uring_one;
	uint64_t uring_one_req, uring_one_seq;
	struct ktable gpu_fences; /* dma_fence (context << 32 | seqno) -> its init's seq */
	struct ktable gpu_vblanks; /* (crtc << 32 | sequence) -> its queueing's seq */
	struct ktable gpu_cmds;    /* a fenced driver command's fence key -> its queueing's seq */
	/* the last vblank written per CRTC (index < KATRA_CRTCS): its sequence
	 * and its event's seq + 1 (0: none) */
#define KATRA_CRTCS 8
	uint32_t vblank_no[KATRA_CRTCS];
	uint64_t vblank_seq[KATRA_CRTCS];
	/* the CRTCs' out-fence timelines ("CRTC:..." names): context and the
	 * CRTC's index from the timeline's name (-1: a name without it) */
#define KATRA_CRTC_TIMELINES 16
	struct { uint32_t context; int32_t crtc; } crtc_timelines[KATRA_CRTC_TIMELINES];
	unsigned ncrtc_timelines;
	/* set by the pipeline while it writes a display event delivered: the
	 * record that follows it on its CPU, already read, else NULL (the
	 * out-fence that a commit's event signals comes right after it) */
	const struct katra_ev_gpu_fence *gpu_next;
	struct ktable asyncs;  /* pending NtReadFile calls: struct async_read */
	struct ktable frames;  /* (process, swapchain) -> struct frame_track */
	struct ktable wine_pipes; /* wineserver pipes by file id: struct wine_pipe */
	bool have_wineserver;  /* a wineserver is traced: wine_pipes is kept */
	struct ktable paths;   /* tid -> struct path_slot (only with --paths) */
	struct ktable exec_paths; /* tid -> struct exec_path (only with --paths) */
	bool record_paths;
	/* tests: switches, wakeups, page faults and a syscall's End
	 * coming alone through the general builders, to compare */
	bool generic_events;
	uint64_t last_dev, last_ino, last_file_id; /* file identity cache */
	/* the thread states of the last two threads looked up (two threads
	 * on two CPUs alternate in the merge), for last_tid and prev_tid */
	void *last_thread, *prev_thread;
	uint32_t last_tid, prev_tid;
	uint64_t *seen_procs, *seen_threads; /* bitmaps of the ids counted (emit_count_id) */
	/* the ids of the event counted last: the bitmaps are tested only when
	 * they change (0, 0 at first: id 0 is never counted) */
	uint64_t seen_last_pid, seen_last_tid;
	/* the ids counted before those (two threads alternate: no bitmap then) */
	uint64_t seen_prev_pid, seen_prev_tid;
	int error;             /* first writer error, sticky */
	uint64_t tid0_last_ts; /* events outside the traced threads (thread 0) */
	/* the latest time written ahead of the watermark (the reorder budget was
	 * spent): a thread with no written history (new, or forgotten at its
	 * exit) may have had events written up to here, so its items below it
	 * are late too */
	uint64_t forced_floor;
	/* a process's group_dead TaskExit was written: the recorder untracks it */
	void (*on_process_exit)(void *ctx, uint32_t tgid);
	void *cb_ctx;
	/* Wine names (session.h), NULL when unused: the Windows image of a
	 * process that exec'd (0 and buf filled, or -ENOENT), and each
	 * ProcessInfo written (for the recorder's roster) */
	int (*windows_image)(void *ctx, uint32_t tgid, char *buf, size_t cap);
	void (*on_named)(void *ctx, uint32_t tgid, uint32_t origin, const char *comm,
			 size_t comm_len, const char *windows_image);
	void *names_ctx;
	/* Wine name tables (uprobes.c / winenames.c), NULL when unused: the name
	 * of NT call `number` of the probed ntdll file in `slot` (the Begin of a
	 * generic NtSyscall span), and a wineserver's request names: 1 and
	 * *names filled (valid until the next call) when tgid, just named comm,
	 * is a wineserver whose table is known and not yet written; -EAGAIN
	 * when its binary's table is still being read (never by the drain):
	 * names_ready then gives it, as soon as it is read (1 and *tgid,
	 * *handle = 0, *names; 0 and *tgid: read, no names; -EAGAIN: none
	 * yet); else 0.  unix_names: a WinToUnix call of process tgid through
	 * the unix library whose handle (table address) is handle: -EAGAIN the
	 * first time (the library's call names are read by the uprobes worker:
	 * names_ready gives them later, *handle that handle), else 0 */
	const char *(*nt_name)(void *ctx, uint32_t slot, uint32_t number);
	int (*server_requests)(void *ctx, uint32_t tgid, const char *comm, size_t comm_len,
			       struct katra_str_vec *names);
	int (*unix_names)(void *ctx, uint32_t tgid, uint64_t handle);
	int (*names_ready)(void *ctx, uint32_t *tgid, uint64_t *handle,
			   struct katra_str_vec *names);
	uint32_t names_waiting; /* name tables that come later */
	void *wine_tables_ctx;
	struct emit_stats st;
};

struct emit_limits {
	uint32_t max_threads;
	uint32_t max_processes;
	uint32_t max_uring_requests;
};

int emitter_init(struct emitter *e, struct katra_writer *w, uint64_t start_mono,
		 uint64_t start_wall, bool record_paths, const struct emit_limits *lim);
void emitter_free(struct emitter *e);

/* One ordered item; returns 0 or the sticky writer error. */
int emit_pending(struct emitter *e, const struct pending *p);
/* The same for a combined syscall's Begin half and End (the pipeline's
 * per-syscall path: inline, straight to the builder, no dispatch). */
int emit_pending_rare(struct emitter *e, const struct pending *p);
int emit_syscall_begin(struct emitter *e, const struct pending *p);
int emit_syscall_end(struct emitter *e, const struct pending *p);
/* A syscall's End, its common case in a function of its own (few
 * registers saved), the rest through emit_syscall_end() (emit_syscall.c) */
int emit_syscall_end_common(struct emitter *e, const struct pending *p);
/* the same for a Begin, the rest through emit_syscall_begin() */
int emit_syscall_begin_common(struct emitter *e, const struct pending *p);
static inline int emit_pending_syscall(struct emitter *e, const struct pending *p, bool end)
{
	if (e->error || e->names_waiting)
		return emit_pending_rare(e, p);
	return end ? emit_syscall_end_common(e, p) : emit_syscall_begin_common(e, p);
}
/* A combined syscall's Begin and End written one after the other, in one
 * call: 1 (nothing done) where either is not the common one
 * (emit_syscall_begin and emit_syscall_end then write them). */
int emit_syscall_pair(struct emitter *e, const struct pending *p);
static inline int emit_pending_syscall_pair(struct emitter *e, const struct pending *p)
{
	if (e->error || e->names_waiting)
		return 1;
	return emit_syscall_pair(e, p);
}
/* p is about to be written before the watermark passed it (budget spent). */
void emit_note_forced(struct emitter *e, const struct pending *p);
/* A path record (drained straight from the ring, ahead of its syscall). */
void emit_stash_path(struct emitter *e, const struct katra_ev_path *path);

/* An EpochMarker, numbered in the order they are written (0: CaptureStart). */
int emit_epoch(struct emitter *e, uint64_t key, uint32_t kind, const char *name,
	       size_t name_len);
int emit_counter(struct emitter *e, uint64_t key, uint32_t kind, uint32_t instance,
		 uint64_t value);
int emit_drop(struct emitter *e, uint64_t key, uint32_t source, uint32_t instance,
	      uint64_t count);
/* Closes every span still open with an inferred End at `key`. */
int emit_close_open_spans(struct emitter *e, uint64_t key);
/* A ProcessInfo for a process the recorder found in /proc (traced from the
 * start, or a Wine process that joined later): comm, exe_path with
 * record_paths, the Windows image name of a Wine process (else NULL). */
int emit_process_info(struct emitter *e, uint64_t key, uint32_t tgid, uint32_t origin,
		      const char *comm, const char *exe_path, const char *windows_image);
/* How a process not yet named came in (its first ProcessInfo says it). */
void emit_process_origin(struct emitter *e, uint32_t tgid, uint32_t origin);

/* Resource id of a file: FNV-1a 64 over st_dev (u64 LE) then st_ino. */
uint64_t katra_file_id(uint64_t st_dev, uint64_t st_ino);
/* The kernel's dev_t (major << 20 | minor) as user space's st_dev. */
uint64_t katra_kernel_dev_to_user(uint64_t kdev);

#endif
