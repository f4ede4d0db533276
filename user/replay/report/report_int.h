/* SPDX-License-Identifier: GPL-2.0-only */
/* The report model's insides, shared by report.c (records in, epochs),
 * report_acc.c (a window's sums), report_path.c (the causal index and the
 * critical-path walk).  Renderers use report.h only. */
#ifndef KATRA_REPLAY_REPORT_INT_H
#define KATRA_REPLAY_REPORT_INT_H

#include "report.h"
#include "replay/names/procnames.h"

#define KR_NO_NODE UINT64_MAX
#define KR_SPAN_DEPTH 4
#define KR_MAX_PATHS 4096
#define KR_PATH_LEN_MAX 256

/* An open span of a thread (syscall or page fault): what an off-CPU
 * interval that starts inside it is blocked in. */
struct kr_span {
	uint64_t span_id, begin_ns;
	uint64_t res_id, res_pid;
	uint16_t ucall;           /* a WinToUnix span: its call (struct kr_ucall), else 0 */
	uint16_t kind;
	uint8_t res_domain;
};

/* A unix call (WinToUnix) the paths name: its library in its process, the
 * function's index; numbered from 1 as first seen (report_lookup.c), up to
 * KR_MAX_UCALLS (later ones go unnamed: 16 bits keep a node at 56 bytes). */
struct kr_ucall {
	uint64_t pid, handle;
	uint32_t index;
	char nt[40];              /* an NT call (a Wine thread's NT span): its name; else "" */
};
#define KR_MAX_UCALLS 65535

struct kr_thread {
	uint64_t tid, pid;
	uint64_t born_ns;         /* its fork, or the capture's start */
	uint64_t exit_ns;
	bool born_in_capture, exited, seen;
	/* whether its time is known: a switch (in or out) or its exit has been
	 * seen; until then it ran at run_since (if ran) and nothing is known
	 * of the time around it */
	bool switched, ran;
	bool on_cpu;              /* known to be on the CPU now */
	uint64_t last_own_ns;     /* its latest event of its own */
	uint64_t run_since;
	uint8_t nspans;
	struct kr_span spans[KR_SPAN_DEPTH];
	uint16_t ucall;           /* the innermost open unix or NT call (struct kr_ucall), 0: none */
	/* the open off-CPU interval and what it started inside */
	bool off_open;
	uint64_t off_begin_ns, off_prev_state;
	uint8_t off_cls, off_dom;
	uint16_t off_kind;
	uint16_t off_nt;          /* the NT call it blocked inside (struct kr_ucall), 0: none */
	uint64_t off_res, off_res_pid;
	/* the last wakeup aimed at it, until its switch-in consumes it */
	bool wake_pending;
	uint64_t wake_seq, wake_ns, wake_waker, wake_node;
	/* causal index */
	uint64_t last_node;       /* its newest node, KR_NO_NODE */
	uint64_t fork_node;       /* the TaskFork that created it (for its FIRST node) */
	uint64_t parent_tid;
	/* pixel timeline */
	int lane;
	uint8_t tl_cat;
	uint64_t tl_since;
};

struct kr_msg_slot; /* report_msg.c */

enum kr_node_type {
	KR_NODE_WAKEUP = 0, /* the thread woke another (pass-through for the walk) */
	KR_NODE_SUBMIT,     /* the thread submitted an io_uring request (pass-through) */
	KR_NODE_FORK,       /* the thread created another (pass-through) */
	KR_NODE_OFF_END,    /* the thread came back from a blocked off-CPU interval */
	KR_NODE_COMPLETE,   /* an io_uring completion ran on the thread */
	KR_NODE_FIRST,      /* the thread's first event, caused by its fork */
	KR_NODE_MESSAGE,    /* a read of data another thread wrote (report_msg.c) */
};

#define KR_NODE_WOKEN_OUTSIDE 1u /* OFF_END: the wakeup came from outside */
#define KR_NODE_NO_WAKEUP 2u     /* OFF_END: no wakeup recorded */
#define KR_NODE_WOKEN_UNSEEN 4u  /* OFF_END: woken by a wakeup no probe saw */

/* 56 bytes: the unit of the index's memory bound. */
struct kr_node {
	uint64_t seq, ts;
	uint64_t begin_ns;  /* OFF_END: when it went off the CPU; MESSAGE: the write's time */
	uint64_t link;      /* OFF_END: the waker's WAKEUP; COMPLETE: the SUBMIT; FIRST: the FORK */
	uint64_t res_id;    /* OFF_END: what it was blocked on; COMPLETE: user_data;
			     * MESSAGE: the writer's thread << 40 | its write's seq */
	uint32_t thread;    /* thread index */
	uint32_t prev;      /* distance back to the thread's previous node (0: none) */
	uint8_t type, res_domain, flags, cls;
	uint16_t kind;      /* OFF_END: the syscall kind blocked in;
			     * MESSAGE: the unix call open on the writer at the write */
	uint16_t ucall;     /* the unix call open on its thread at it (struct kr_ucall), 0: none */
};
_Static_assert(sizeof(struct kr_node) == 56, "the index's memory bound counts 56 bytes a node");

struct kr_index {
	struct kr_node *nodes;
	uint64_t alloc;  /* allocated nodes (grows to cap) */
	uint64_t cap;    /* a power of two */
	uint64_t total;  /* nodes ever added; node n lives at n & (cap - 1) */
};

struct kr_acc {
	uint64_t start_ns;
	struct kr_tsum *t;        /* indexed by thread index */
	uint32_t t_len, t_cap;
	struct kr_idmap reason_map; /* (thread, reason hash) -> row */
	struct kr_reason *reasons;
	uint32_t nreasons, reasons_cap;
	struct kr_idmap res_map;  /* (domain | pid << 8, id) -> row */
	struct kr_resource *res;
	uint32_t nres, res_cap;
	uint64_t events;
	uint64_t dropped_ns;
	uint64_t rows_dropped;
	bool have_last;
	uint64_t last_seq, last_ns;
	uint32_t last_thread;
};

struct kr_report {
	struct kr_report_opts o;
	bool have_start;
	uint64_t start_ns, last_ns;
	uint64_t records, events;
	bool has_summary;
	uint64_t summary_end_ns;
	bool stacks_final;     /* every record read: the call stacks are all known */
	/* threads */
	struct kr_idmap thread_map; /* (tid, 0) -> index */
	struct kr_thread *threads;
	uint32_t nthreads, threads_cap;
	uint64_t threads_dropped;
	struct kr_idmap procs;      /* (pid, 0) -> seen */
	uint32_t running, max_running; /* threads known on the CPU now, at most */
	uint32_t header_cpus;
	uint64_t whole_on_cpu_ns;
	/* names: the same source as dump's (windows_image, else comm) */
	struct kr_procnames names;
	struct kr_idmap path_map;   /* (file id, 0) -> path index */
	struct kr_idmap outside;    /* (pid, 0) -> an untraced waker's name (v1, v2: 15 bytes) */
	char (*paths)[KR_PATH_LEN_MAX];
	uint32_t npaths;
	/* io_uring submits waiting for their completion: (seq, 0) -> ts, thread | node */
	struct kr_idmap pending;
	uint64_t uring_unmatched;
	/* windows: the whole capture and the current epoch */
	struct kr_acc whole, epoch;
	bool in_epoch;
	uint64_t epoch_no, epoch_seq;
	uint32_t epoch_kind;
	char epoch_name[KR_NAME_MAX];
	uint64_t epochs, epochs_opened, epochs_skipped;
	uint64_t markers, epochs_empty; /* EpochMarker records taken; epochs that held nothing */
	struct kr_mark marks[KR_REPORT_MARKS];
	uint32_t nmarks;
	struct kr_index index;
	struct kr_msg_slot *msgs; /* recent writes (report_msg.c), NULL until one */
	struct kr_idmap ucall_map;  /* (handle, pid << 32 | index) -> id (report_lookup.c) */
	struct kr_ucall *ucalls;    /* call id - 1 -> the call, KR_MAX_UCALLS; NULL until one */
	uint32_t nucalls;
	struct kr_timeline *tl;
	int error;
};

/* ---- report_msg.c ---- */
/* Writes remembered, reads that cite another thread's write indexed. */
void kr_msg_event(struct kr_report *rp, uint32_t t, const struct katra_event *e);

/* ---- report_tl_state.c ---- */
/* Draws the thread's current category from tl_since to ts. */
void kr_tl_draw(struct kr_report *rp, struct kr_thread *th, uint64_t ts);
/* Moves the thread's category to what its state now is (drawing the last). */
void kr_tl_update(struct kr_report *rp, struct kr_thread *th, uint64_t ts);

/* ---- report_lookup.c ---- */
/* Takes names and paths from ProcessInfo and FileOpen events. */
void kr_report_remember(struct kr_report *rp, const struct katra_event *e);
/* The waker of a thread 0 Wakeup: KR_WAKER_PROC | pid (its name kept),
 * KR_WAKER_IRQ, or KR_WAKER_OUTSIDE when the event does not say. */
uint64_t kr_report_outside_waker(struct kr_report *rp, const struct katra_event *e);
/* A span s of th begins with e: a unix call is numbered and becomes th's
 * innermost (th->ucall). */
void kr_ucall_begin(struct kr_report *rp, struct kr_thread *th, struct kr_span *s,
		    const struct katra_event *e);
/* A span of th ended: th->ucall is the innermost unix call still open. */
void kr_ucall_end(struct kr_thread *th);
void kr_ucalls_free(struct kr_report *rp);

/* ---- report_acc.c ---- */
int kr_acc_init(struct kr_acc *a, uint64_t start_ns);
void kr_acc_free(struct kr_acc *a);
struct kr_tsum *kr_acc_tsum(struct kr_acc *a, const struct kr_report *rp, uint32_t thread);
/* An off-CPU interval [from, to] of a thread, the part from `from` on. */
/* Time of a thread nothing is known of (before its first event, or a
 * thread never seen switching), the part of [from, to] in the window. */
int kr_acc_unknown(struct kr_acc *a, const struct kr_report *rp, uint32_t thread,
		   uint64_t from, uint64_t to);
int kr_acc_off(struct kr_acc *a, const struct kr_report *rp, uint32_t thread, uint8_t cls,
	       uint16_t kind, uint16_t nt, uint8_t dom, uint64_t res, uint64_t res_pid, uint64_t waker,
	       uint64_t from, uint64_t to, uint64_t runq_ns);
/* Fills w from a (w's arrays are malloc'd: kr_window_release). */
int kr_acc_finish(struct kr_acc *a, const struct kr_report *rp, uint64_t end_ns,
		  struct kr_window *w);
void kr_window_release(struct kr_window *w);

/* ---- report_path.c ---- */
int kr_index_init(struct kr_index *x, uint64_t cap);
void kr_index_free(struct kr_index *x);
/* Appends n for thread th (linking it to th's previous node): its number,
 * or KR_NO_NODE when memory ran out. */
uint64_t kr_index_add(struct kr_index *x, struct kr_thread *th, const struct kr_node *n);
const struct kr_node *kr_index_get(const struct kr_index *x, uint64_t n);
/* The critical path that ends at (end_seq, thread end_thread, end_ns),
 * walked back no further than lower_seq / start_ns; mark: every hop is also
 * marked on the timeline (the whole capture's path). */
int kr_path_walk(const struct kr_report *rp, uint64_t lower_seq, uint64_t start_ns,
		 uint64_t end_seq, uint32_t end_thread, uint64_t end_ns, bool mark,
		 struct kr_path *p);

#endif
