/* SPDX-License-Identifier: GPL-2.0-only */
/* katra-replay report: the model behind it.  Records stream in once; per
 * window (each epoch, and the whole capture) it adds up every thread's time
 * (on-CPU, off-CPU by reason, page faults, io_uring latency), the files and
 * futexes waited on, and walks the window's critical path back through a
 * bounded index of causal nodes.  A finished window is handed to a callback
 * and forgotten, so memory depends on the number of threads and the index
 * cap, never on the trace length or the number of epochs.
 *
 * Bounds (each reached bound is counted and reported, never silent):
 *   threads            KR_REPORT_MAX_THREADS
 *   off-CPU reasons    KR_REPORT_MAX_ROWS distinct (thread, reason) per window
 *   files and futexes  KR_REPORT_MAX_ROWS distinct resources per window
 *   in-flight io_uring KR_REPORT_MAX_PENDING submits awaiting completion
 *   causal index       index_cap nodes (default KR_REPORT_INDEX_CAP), a ring:
 *                      see report_path.c for why the newest nodes are the
 *                      ones worth keeping */
#ifndef KATRA_REPLAY_REPORT_H
#define KATRA_REPLAY_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "katra/format.h"
#include "replay/util/idmap.h"

#define KR_REPORT_MAX_THREADS (1u << 16)
#define KR_REPORT_MAX_ROWS (1u << 16)
#define KR_REPORT_MAX_PENDING (1u << 16)
#define KR_REPORT_INDEX_CAP (1u << 20) /* nodes; 56 bytes each: 56 MiB at most */
#define KR_WINDOW_THREADS 256          /* threads kept in a finished window */
#define KR_WINDOW_REASONS 8            /* off-CPU reasons kept per thread */
#define KR_WINDOW_RESOURCES 32         /* files, futexes kept per window */
#define KR_PATH_HOPS 512               /* hops kept per path (the newest) */
#define KR_PATH_THREADS 16             /* per-thread path time kept */
#define KR_RES_WAITERS 4               /* threads named per file / futex */
#define KR_NAME_MAX 64

/* Why a thread was off the CPU. */
enum kr_off_class {
	KR_OFF_PREEMPTED = 0, /* switched out runnable (prev_state 0) */
	KR_OFF_SYSCALL,       /* blocked in a syscall of kind K on resource R */
	KR_OFF_FAULT,         /* blocked in a page fault (I/O) */
	KR_OFF_OTHER,         /* blocked outside any traced span */
	KR_OFF_BEFORE,        /* off the CPU since before the capture */
	KR_OFF_NEW,           /* a new thread waiting for its first run */
	KR_OFF_CLASS_COUNT
};

/* Who ended an off-CPU interval (a thread id, or one of these). */
#define KR_WAKER_OUTSIDE 0ull             /* a wakeup from outside the traced processes:
						 * an interrupt, a kernel thread, another process */
#define KR_WAKER_NONE UINT64_MAX          /* no wakeup recorded */
#define KR_WAKER_PENDING (UINT64_MAX - 1) /* still off the CPU when the window ended */
#define KR_WAKER_UNSEEN (UINT64_MAX - 2)  /* woken by a wakeup no probe saw (Inferred) */
#define KR_WAKER_IRQ (UINT64_MAX - 3)     /* woken in an interrupt (WakeupOutside, Interrupt) */
#define KR_WAKER_PROC (1ull << 62)        /* | pid: by an untraced process (WakeupOutside,
					   * Task; its name: kr_report_outside_comm) */

/* A waker outside the traced processes: by whom (a process, an interrupt)
 * or not known (KR_WAKER_OUTSIDE).  Thread ids stay below 2^32, the other
 * KR_WAKER_* values above 2^63. */
static inline bool kr_waker_is_proc(uint64_t w)
{
	return w >> 62 == 1;
}

static inline bool kr_waker_outside(uint64_t w)
{
	return w == KR_WAKER_OUTSIDE || w == KR_WAKER_IRQ || kr_waker_is_proc(w);
}
#define KR_KIND_NONE 0xffffu

/* One thread's time in a window: alive = on_cpu + off_cpu + unknown.
 * Unknown: before its first event (unless that is a switch-in: then it was
 * off), and from its first event on while it is never seen switching or
 * exiting.  A thread's time ends at its exit. */
struct kr_tsum {
	uint64_t tid, pid;
	uint64_t alive_ns;       /* the part of the window the thread existed in */
	uint64_t on_cpu_ns;      /* known on the CPU */
	uint64_t unknown_ns;     /* neither known on nor known off */
	uint64_t off_cpu_ns;     /* every off-CPU interval (all classes) */
	uint64_t class_ns[KR_OFF_CLASS_COUNT];
	uint64_t runq_ns;        /* from a wakeup to the switch-in (inside off_cpu) */
	uint64_t fault_ns;       /* page-fault spans (may overlap off_cpu) */
	uint64_t faults;         /* page faults: spans and instants */
	uint64_t uring_requests; /* io_uring requests submitted by it, completed in the window */
	uint64_t uring_total_ns; /* submit -> complete */
	uint64_t uring_max_ns;
	uint32_t reason_first, reason_n; /* its rows in kr_window.reasons */
	bool touched;            /* some interval was added */
};

/* One (thread, reason) row: time and count of off-CPU intervals. */
struct kr_reason {
	uint32_t thread;         /* thread index (report-wide) */
	uint16_t kind;           /* the syscall kind blocked in, KR_KIND_NONE */
	uint16_t nt;             /* the NT call it was inside (a Wine thread), 0: none */
	uint8_t cls;             /* enum kr_off_class */
	uint8_t res_domain;
	uint64_t res_id;
	uint64_t res_pid;        /* futexes: the process the address belongs to */
	uint64_t waker;          /* tid, or KR_WAKER_* */
	uint64_t tid;            /* filled when a window is finished */
	uint64_t ns, count, runq_ns, max_ns;
};

/* One file, socket or futex: time threads were blocked on it. */
struct kr_resource {
	uint8_t domain;
	uint64_t id;
	uint64_t pid;            /* futexes: the owning process; else 0 */
	uint64_t wait_ns, waits, max_ns;
	uint64_t waiter_tid[KR_RES_WAITERS]; /* the first threads to wait on it */
	uint64_t waiter_ns[KR_RES_WAITERS];
	uint64_t other_waiters_ns;
};

enum kr_hop_type {
	KR_HOP_RUN = 0, /* the thread ran (its own short waits and preemptions included) */
	KR_HOP_WAKE,    /* woken by another thread; runnable until switched in */
	KR_HOP_BLOCKED, /* blocked, woken from outside the traced processes, by a wakeup no probe
			 * saw, or not at all */
	KR_HOP_URING,   /* an io_uring request in flight, submit -> complete */
	KR_HOP_START,   /* a new thread, from its fork to its first run */
	KR_HOP_MESSAGE, /* data in a pipe or socket, the writer's write -> the reader's read */
	KR_HOP_TYPE_COUNT
};

struct kr_hop {
	uint8_t type;          /* enum kr_hop_type */
	uint8_t res_domain;    /* BLOCKED: what it was blocked on */
	uint16_t kind;         /* BLOCKED: the syscall kind, KR_KIND_NONE */
	uint8_t cls;           /* BLOCKED: enum kr_off_class */
	uint64_t tid, pid;     /* the thread the time was spent on */
	uint64_t from_ns, to_ns;
	uint64_t other_tid;    /* WAKE: waker; URING: submitter; START: parent; BLOCKED: KR_WAKER_*;
				* MESSAGE: the reader */
	uint64_t seq;          /* the record where the hop starts (wakeup, submit, fork, switch) */
	uint64_t res_id, res_pid;
	uint16_t ucall;        /* the unix call its thread was in at the hop's end (RUN,
				* MESSAGE: at the write) or all along (WAKE, BLOCKED): 0 none */
};

struct kr_path {
	bool present;          /* the window had an event to end at */
	bool truncated;        /* the index cap cut the walk: the path starts later */
	uint64_t end_seq, end_tid, end_ns, start_ns;
	uint64_t hops_total;   /* hops walked; the newest KR_PATH_HOPS are kept */
	uint32_t nhops;
	struct kr_hop hops[KR_PATH_HOPS]; /* chronological */
	uint64_t by_type_ns[KR_HOP_TYPE_COUNT];
	uint32_t nthreads;
	uint64_t thread_tid[KR_PATH_THREADS], thread_ns[KR_PATH_THREADS];
	uint64_t other_threads_ns;
};

/* A finished window, as the callback sees it (valid during the call). */
struct kr_window {
	bool is_epoch;
	uint64_t epoch, marker_seq;    /* is_epoch: the marker that opened it */
	uint32_t epoch_kind;
	char name[KR_NAME_MAX];
	uint64_t start_ns, end_ns;
	uint64_t events;
	struct kr_tsum *threads;       /* sorted: on-CPU time, busiest first */
	uint32_t nthreads, threads_total;
	struct kr_reason *reasons;     /* per thread, biggest first */
	uint32_t nreasons;
	struct kr_resource *files;     /* File and Socket domains, longest wait first */
	uint32_t nfiles, files_total;
	struct kr_resource *futexes;
	uint32_t nfutexes, futexes_total;
	struct kr_path *path;
	uint64_t reasons_dropped_ns;   /* off-CPU time whose reason row did not fit */
	uint64_t on_cpu_total_ns;      /* every thread's, listed or not */
	uint64_t unknown_total_ns;
};

struct kr_report;

struct kr_report_opts {
	uint64_t index_cap;   /* causal index nodes, a power of two (0: default) */
	uint64_t max_epochs;  /* epochs itemized, the first ones (0: all); later
			       * markers only count (their time is in the whole) */
	bool timeline;        /* keep the pixel timeline for --html */
	/* whose critical path: it ends at the window's last event of thread
	 * path_tid, else of process path_pid, else of any thread (0: any) */
	uint64_t path_tid, path_pid;
	void (*on_window)(void *ctx, const struct kr_report *rp, const struct kr_window *w);
	/* when set: an epoch marker it refuses neither ends nor opens a window
	 * (report --frames keeps one track's Frame epochs) */
	bool (*mark_filter)(void *ctx, const struct katra_epoch_marker *m);
	/* when set: every hop of a window's critical path as it is counted (all
	 * of them, also those beyond the KR_PATH_HOPS kept), before on_window
	 * hands that window over; type, tid, pid, from_ns, to_ns and kind
	 * (BLOCKED: the syscall kind) are filled */
	void (*on_hop)(void *ctx, const struct kr_hop *h);
	/* when set: sees every event before the model takes it (report
	 * --frames keeps the GPU layer's fences) */
	void (*on_event)(void *ctx, const struct katra_event *e);
	void *ctx;
	/* fed the trace's call stacks (Module, Stack, StackOf: names/stackidx.h),
	 * which the path's hops then show; NULL: none */
	struct kr_stackidx *stacks;
};

/* 0, -ENOMEM or -EINVAL (index_cap not a power of two). */
int kr_report_new(struct kr_report **out, const struct katra_header *h,
		  const struct kr_report_opts *o);
/* Feeds one record; finished epochs go to on_window.  0 or -ENOMEM. */
int kr_report_add(struct kr_report *rp, const struct katra_record *rec);
/* Ends the last epoch and the whole capture (on_window twice at most). */
int kr_report_finish(struct kr_report *rp);
void kr_report_free(struct kr_report *rp);
/* opts.stacks */
struct kr_stackidx *kr_report_stacks(const struct kr_report *rp);
/* Whether every record has been read (kr_report_finish): before, the call
 * stacks, which follow the events, are not known yet (report_defer.c) */
bool kr_report_stacks_final(const struct kr_report *rp);

/* Facts for the renderers. */
struct kr_report_facts {
	uint64_t start_ns, end_ns;
	uint64_t records, events, threads, processes;
	/* epochs: the EpochMarker records (the SessionSummary's epoch_count,
	 * CaptureStart's and CaptureEnd's included) = itemized + empty + not
	 * itemized */
	uint64_t epochs;
	uint64_t epochs_itemized;      /* windows reported */
	uint64_t epochs_empty;         /* no time and no event (CaptureEnd's) */
	uint64_t epochs_not_itemized;  /* beyond max_epochs */
	uint64_t threads_dropped;      /* beyond KR_REPORT_MAX_THREADS */
	uint64_t index_cap, index_nodes, index_evicted;
	uint64_t uring_unmatched;      /* completions whose submit was not known */
	uint64_t rows_dropped;         /* reason / resource rows that did not fit */
	uint32_t cpus;                 /* the header's CPU count, else the most threads
					* seen on the CPU at once */
	uint64_t on_cpu_ns;            /* all threads' known on-CPU time, whole capture */
	uint64_t path_tid, path_pid;   /* whose critical path (--tid, --pid; 0: any) */
	bool has_summary;
};
void kr_report_get_facts(const struct kr_report *rp, struct kr_report_facts *f);
/* Whose critical path from now on (0: any thread's). */
void kr_report_set_path_pid(struct kr_report *rp, uint64_t pid);
/* The process of a thread seen in the trace, 0 when unknown. */
uint64_t kr_report_pid_of(const struct kr_report *rp, uint64_t tid);
/* The process names (dump's: names/procnames.h). */
const struct kr_procnames *kr_report_names(const struct kr_report *rp);
/* The path of a file id (only with --paths captures), or NULL. */
const char *kr_report_file_path(const struct kr_report *rp, uint64_t file_id);
/* The name of an untraced process that woke a traced thread (its
 * WakeupOutside's waker_comm), "" when none was seen; buf: 16 bytes. */
const char *kr_report_outside_comm(const struct kr_report *rp, uint64_t pid, char buf[16]);
/* Unix call `ucall` (a hop's) as every command names it ("WinToUnix
 * vkQueueSubmit": kr_unix_call_label), or an NT call's name
 * ("NtUserGetMessage"), in buf, or NULL for 0. */
const char *kr_report_ucall(const struct kr_report *rp, uint16_t ucall, char *buf, size_t cap);
/* Whether call `ucall` is an NT call (not a unix call). */
bool kr_ucall_is_nt(const struct kr_report *rp, uint16_t ucall);

/* ---- the pixel timeline (report_timeline.c), for the HTML view ---- */
enum kr_tl_cat {
	KR_TL_RUN = 0,     /* on the CPU, in user code */
	KR_TL_SYS_FILE,    /* in a file syscall */
	KR_TL_SYS_WAIT,    /* in a waiting syscall (futex, poll, sleep, io_uring_enter) */
	KR_TL_SYS_OTHER,   /* in another syscall */
	KR_TL_FAULT,       /* in a page fault */
	KR_TL_OFF_IO,      /* off the CPU, blocked in a file syscall or a fault */
	KR_TL_OFF_WAIT,    /* off the CPU, blocked otherwise */
	KR_TL_OFF_PREEMPT, /* off the CPU, runnable */
	KR_TL_CAT_COUNT,
	KR_TL_DEAD = KR_TL_CAT_COUNT, /* not drawn: after its exit */
	KR_TL_UNKNOWN                 /* not drawn: nothing known (report.h, kr_tsum) */
};
#define KR_TL_COLUMNS 1000
#define KR_TL_LANES 64

struct kr_timeline;
int kr_timeline_new(struct kr_timeline **out);
void kr_timeline_free(struct kr_timeline *tl);
/* Lane for a thread, assigned in order of first appearance: -1 when full. */
int kr_timeline_lane(struct kr_timeline *tl, uint64_t tid, uint64_t pid);
void kr_timeline_add(struct kr_timeline *tl, int lane, uint64_t from_ns, uint64_t to_ns,
		     unsigned cat);
/* Makes the columns reach end_ns (the capture's end). */
void kr_timeline_extend(struct kr_timeline *tl, uint64_t end_ns);
/* Dominant category of a column of a lane (KR_TL_CAT_COUNT: empty); time
 * on the CPU weighs 8 times more than time off it. */
uint32_t kr_timeline_columns(const struct kr_timeline *tl, uint64_t *col_ns);
uint32_t kr_timeline_lanes(const struct kr_timeline *tl);
void kr_timeline_lane_info(const struct kr_timeline *tl, uint32_t lane, uint64_t *tid,
			   uint64_t *pid);
unsigned kr_timeline_dominant(const struct kr_timeline *tl, uint32_t lane, uint32_t col);
int kr_timeline_lane_of(const struct kr_timeline *tl, uint64_t tid);
uint64_t kr_timeline_unlaned(const struct kr_timeline *tl); /* threads not drawn */
/* The critical path's hops (all of them, not only the ones a kr_path keeps)
 * marked on the columns of their thread's lane. */
void kr_timeline_mark_path(struct kr_timeline *tl, uint64_t tid, uint64_t from, uint64_t to);
bool kr_timeline_on_path(const struct kr_timeline *tl, uint32_t lane, uint32_t col);

const struct kr_timeline *kr_report_timeline(const struct kr_report *rp);
/* Epoch markers seen (at most KR_REPORT_MARKS kept, for the timeline). */
#define KR_REPORT_MARKS 256
struct kr_mark {
	uint64_t ts, epoch;
	char name[KR_NAME_MAX];
};
uint32_t kr_report_marks(const struct kr_report *rp, const struct kr_mark **marks);

/* ---- words shared by the renderers (report_words.c) ---- */
const char *kr_off_class_name(unsigned cls);
const char *kr_hop_type_name(unsigned type);
/* "blocked in Futex on futex 0x7f..@pid, woken by 1234" and the like. */
void kr_reason_text(FILE *f, const struct kr_report *rp, const struct kr_reason *r);
void kr_hop_text(FILE *f, const struct kr_report *rp, const struct kr_hop *h);
/* "file 0x... (path)" / "futex 0x...@pid" */
void kr_resource_text(FILE *f, const struct kr_report *rp, unsigned domain, uint64_t id,
		      uint64_t pid);
/* "1234 (comm)" */
void kr_thread_text(FILE *f, const struct kr_report *rp, uint64_t tid, uint64_t pid);
unsigned kr_tl_cat_of_kind(uint32_t kind);
const char *kr_tl_cat_name(unsigned cat);
const char *kr_tl_cat_color(unsigned cat);

#endif
