/* SPDX-License-Identifier: GPL-2.0-only */
/* The emitter's own state and helpers, shared by its files: emit.c (records,
 * threads, dispatch), emit_syscall.c, emit_sched.c, emit_task.c (fork, exec,
 * exit, process names), emit_misc.c (page faults, io_uring, Katra records). */
#ifndef KATRA_RECORD_EMIT_INT_H
#define KATRA_RECORD_EMIT_INT_H

#include <string.h>

#include "emit.h"
#include "katra/writer_sched.h"

#define TASK_DEAD_STATE 0x80 /* prev_state of a task's final switch-out */

enum thread_flags {
	TH_SYSCALL_OPEN = 1 << 0,
	TH_OFFCPU_OPEN = 1 << 1,
	TH_WAKEUP = 1 << 2,
	TH_FIRST_CAUSE = 1 << 3,
	TH_FAULT_OPEN = 1 << 5,
	TH_EXITED = 1 << 6,   /* its TaskExit is written; only its last switch-out is to come */
	TH_EXEC_ENDED = 1 << 7, /* its execve span was ended at the exec (it became the
				 * leader): the syscall's own return is not written again */
	TH_UC_FILLED = 1 << 8, /* its open NtReadFile's buffer was filled inside the call */
	/* wakeups through the wineserver (emit_winewake.c) */
	TH_WINE = 1 << 9,        /* it made a Wine call: a wineserver client */
	TH_WINESERVER = 1 << 10, /* a wineserver's thread */
	TH_SERVING = 1 << 11,    /* (wineserver) srv_cause is the request being served */
	TH_RELEASED = 1 << 12,   /* its open NT call was released: uc_released */
	/* a wakeup not seen (emit_unseen_wakeup) */
	TH_BLOCKED = 1 << 13, /* it left the CPU blocked (not preempted, not runnable) */
	TH_WOKEN = 1 << 14,   /* a wakeup of it was seen since it last came on the CPU */
	TH_GPU_WAIT_OPEN = 1 << 15, /* a dma_fence wait is open: gw_span (emit_gpu.c) */
};

/* prev_state bits of a blocked switch-out: interruptible, uninterruptible,
 * stopped, traced (each made runnable again only by try_to_wake_up) */
#define TASK_BLOCKED_STATES 0xf

/* The path of a thread's execve, kept from its Begin for its TaskExec. */
struct exec_path {
	uint32_t len;
	char path[KATRA_PATH_MAX];
};

struct thread_state {
	uint64_t last_ts;   /* last ts_mono_ns written on this thread */
	uint64_t sc_span, sc_seq, sc_enter_key;
	uint64_t off_span, off_seq;
	uint32_t off_cpu;   /* the CPU it left at its open OffCpu's Begin */
	uint64_t wake_seq;
	uint64_t first_cause_seq;
	uint64_t pf_span, pf_seq, pf_enter_key;
	uint64_t gw_span, gw_seq; /* its open dma_fence wait (TH_GPU_WAIT_OPEN) */
	uint32_t sc_nr;
	uint32_t tgid;
	uint32_t flags;
	uint32_t sc_kind;
	/* uprobed calls (emit_wine.c): the open one of each layer, a bit per
	 * layer in uc_open */
	uint64_t uc_span[KATRA_UC_LAYERS], uc_seq[KATRA_UC_LAYERS];
	uint32_t uc_call[KATRA_UC_LAYERS];
	uint32_t uc_open;
	/* NT calls open outside the open one (a user callback's calls nest in
	 * a win32u call: KATRA_UC_LEVEL), innermost last; nt_level: the open
	 * one's level */
	struct nt_outer {
		uint64_t span, seq;
		uint64_t released; /* its uc_released; UINT64_MAX: not released */
		uint32_t call, level;
	} nt_outer[KATRA_NT_DEPTH];
	uint32_t nt_nouter, nt_level;
	/* overlapped reads (emit_wine.c): the open NtReadFile's buffer, and
	 * where the open syscall's data lands (read, pread64, recvfrom,
	 * recvmsg; 0 for the others) */
	uint64_t uc_buf, sc_buf;
	/* wakeups through the wineserver (emit_winewake.c): the call whose
	 * request released the open NT call; a wineserver's request being
	 * served, and its thread */
	uint64_t uc_released, srv_cause;
	uint32_t srv_cause_tid;
};

/* A pending NtReadFile (its End said STATUS_PENDING and nothing filled its
 * buffer inside it), by async_key(): the Linux read that later lands data
 * in the same buffer of the same process completes it.  A pending
 * NtWriteFile, by its event (else its file handle): the NtWait of the same
 * process that returns STATUS_WAIT_0 on that handle completes it. */
#define KATRA_ASYNC_READS 4096
struct async_read {
	uint64_t buf;       /* a pending NtWriteFile's: the handle its wait waits on */
	uint64_t begin_seq;
	uint32_t tgid;
	uint32_t write;     /* a pending NtWriteFile (emit_wine.c) */
};

/* A pipe between a Wine client and its wineserver (emit_winewake.c), by
 * file identity: its last write's Begin and the call it carries (a client's
 * request: its WineServerCall; the server's reply or wake-up: the request
 * it served, UINT64_MAX for none), and who wrote / last read it. */
#define KATRA_WINE_PIPES 16384
struct wine_pipe {
	uint64_t file_id;
	uint64_t write_seq;
	uint64_t cause_seq;
	uint32_t cause_tid;
	uint32_t writer_tgid, reader_tgid;
	bool from_server;
};

struct proc_state {
	uint64_t image_seq; /* the fork or exec that made its current image */
	uint32_t origin;    /* enum katra_process_origin */
	uint32_t threads;   /* its threads in the thread table: the entry goes
			     * when the last one goes after its group_dead exit */
	bool has_image;
	bool group_dead;    /* its group_dead TaskExit is written */
	bool named;         /* a ProcessInfo is written */
	uint64_t frame;     /* the frame in progress (its events' request_id), 0
			     * before its first present (emit_frames.c) */
	bool wineserver;    /* named wineserver*: its threads are TH_WINESERVER */
	uint64_t info_seq;  /* its latest ProcessInfo (its request names cite it) */
};

/* dma_fences made by traced threads and not yet signalled (emit_gpu.c) */
#define KATRA_GPU_FENCES 16384
#define KATRA_GPU_VBLANKS 1024 /* vblank events asked for, not yet delivered */
#define KATRA_GPU_CMDS 1024    /* fenced driver commands queued, not yet answered */

/* A swapchain of a process and the presents it made (emit_frames.c). */
#define KATRA_FRAME_TRACKS 1024
struct frame_track {
	uint64_t swapchain;
	uint64_t presents;
	uint32_t tgid;
	uint32_t pad;
};

/* A path waits here from its ring record until its syscall's Begin is
 * written (several syscalls of one thread can be drained before that). */
#define KATRA_PATHS_WAITING 16384

struct path_slot {
	uint64_t enter_ts;
	uint32_t tid;
	uint32_t len;
	char path[KATRA_PATH_MAX];
};

/* A resource a byte stream is written to and read from: a file, a pipe
 * or a socket (the wineserver's request and reply channels). */
static inline bool emit_stream_resource(uint32_t domain)
{
	return domain == KATRA_RES_FILE || domain == KATRA_RES_PIPE || domain == KATRA_RES_SOCKET;
}

static inline struct katra_opt_u64 emit_some(uint64_t v)
{
	return (struct katra_opt_u64){ true, v };
}

/* The helpers every event calls come in two halves: an inline test of the
 * common case (a thread seen just before, in time, counted, on the CPU),
 * and the rest out of line.  Called, each paid for saving registers before
 * its first test: together about a tenth of the recorder's instructions per
 * event. */

/* Time relative to the capture's start. */
static inline uint64_t emit_rel(const struct emitter *e, uint64_t key)
{
	return key > e->start_mono ? key - e->start_mono : 0;
}

uint64_t emit_path_key(uint32_t tid, uint64_t enter_ts);
int emit_append(struct emitter *e, const struct katra_record *r);

bool emit_late_check(struct emitter *e, const struct thread_state *th, uint32_t tid,
		     uint64_t key, unsigned n);
/* True (and the n events counted lost under Reorder) when an item would go
 * back in time on its thread: only after the reorder budget forced an early
 * release. */
static inline bool emit_late(struct emitter *e, const struct thread_state *th, uint32_t tid,
			     uint64_t key, unsigned n)
{
	if (th && th->last_ts && emit_rel(e, key) >= th->last_ts)
		return false;
	return emit_late_check(e, th, tid, key, n);
}

struct thread_state *emit_thread_lookup(struct emitter *e, uint32_t tid, uint32_t tgid);
/* The thread's state (created at its first event), NULL when the table is
 * full; consecutive events mostly come from one of the last two threads:
 * no hash then. */
static inline struct thread_state *emit_thread(struct emitter *e, uint32_t tid, uint32_t tgid)
{
	void *th;

	if (e->last_thread && e->last_tid == tid)
		return e->last_thread;
	if (e->prev_thread && e->prev_tid == tid) {
		th = e->prev_thread;
		e->prev_thread = e->last_thread;
		e->prev_tid = e->last_tid;
		e->last_thread = th;
		e->last_tid = tid;
		return th;
	}
	return emit_thread_lookup(e, tid, tgid);
}
/* A thread state was removed or moved: the lookups remembered are stale. */
static inline void emit_thread_forget_cache(struct emitter *e)
{
	e->last_thread = e->prev_thread = NULL;
}

void emit_forget_thread(struct emitter *e, uint32_t tid);
void emit_count_thread(struct emitter *e, uint32_t tgid);

/* A tracked thread's first event after its fork: linked to the fork (its
 * ids are counted as every event's are, in emit_write). */
static inline void emit_note_tracked(struct emitter *e, struct thread_state *th,
				     uint64_t *causes, unsigned *ncauses)
{
	(void)e;
	if (th && (th->flags & TH_FIRST_CAUSE)) {
		th->flags &= ~TH_FIRST_CAUSE;
		causes[(*ncauses)++] = th->first_cause_seq;
	}
}

/* An event of thread h->tid, its other fields cleared (inline: every event
 * starts here). */
static inline void emit_base(struct katra_event *ev, const struct katra_wire_head *h,
			     uint32_t scope, uint32_t kind, uint32_t phase)
{
	/* field by field: a memset of the whole event showed up as the recorder's
	 * hottest instruction; the payload (its union) is still cleared whole */
	ev->seq = 0;
	ev->ts_mono_ns = 0;
	ev->ts_wall_ns = 0;
	ev->span_id = (struct katra_opt_u64){ false, 0 };
	ev->request_id = (struct katra_opt_u64){ false, 0 };
	ev->causes = (struct katra_u64_vec){ NULL, 0 };
	ev->resource = (struct katra_resource){ KATRA_RES_NONE, 0 };
	memset(&ev->payload, 0, sizeof(ev->payload));
	ev->cost_estimate_ns = (struct katra_opt_u64){ false, 0 };
	ev->thread_id = h->tid;
	ev->process_id = h->tgid;
	ev->scope = scope;
	ev->kind = kind;
	ev->phase = phase;
	ev->confidence = KATRA_CONFIDENCE_MEASURED;
}

int emit_end_span(struct emitter *e, struct thread_state *th, const struct katra_wire_head *h,
		  uint32_t kind, uint64_t span, uint64_t begin_seq, uint64_t key,
		  const struct katra_payload *payload, uint32_t confidence);
/* The same with its causes given (the Begin first). */
int emit_end_span_caused(struct emitter *e, struct thread_state *th,
			 const struct katra_wire_head *h, uint32_t kind, uint64_t span,
			 uint64_t *causes, unsigned ncauses, uint64_t key,
			 const struct katra_payload *payload, uint32_t confidence);
int emit_close_syscall(struct emitter *e, struct thread_state *th, uint32_t tid, uint64_t key);
int emit_running_inferred(struct emitter *e, struct thread_state *th, uint32_t tid,
			  uint64_t key);
/* The thread runs (it produced this event): an OffCpu span still open lost
 * its switch-in; close it here, Inferred. */
static inline int emit_running(struct emitter *e, struct thread_state *th, uint32_t tid,
			       uint64_t key)
{
	if (!th || !(th->flags & TH_OFFCPU_OPEN))
		return 0;
	return emit_running_inferred(e, th, tid, key);
}
int emit_unseen_wakeup(struct emitter *e, struct thread_state *th, uint32_t tid, uint64_t key,
		       uint32_t cpu);

int emit_switch(struct emitter *e, const struct pending *p);
int emit_waking(struct emitter *e, const struct pending *p);
int emit_fork(struct emitter *e, const struct pending *p);
int emit_exec(struct emitter *e, const struct pending *p);
int emit_exit(struct emitter *e, const struct pending *p);
int emit_task_rename(struct emitter *e, const struct pending *p);
/* The name tables asked for earlier (names_waiting: wineservers' request
 * names, unix libraries' call names) that the uprobes worker has read
 * since, written at key. */
int emit_waiting_names(struct emitter *e, uint64_t key);
int emit_page_fault(struct emitter *e, const struct pending *p);
int emit_uring(struct emitter *e, const struct pending *p);
/* The GPU layer's fences and timelines: emit_gpu.c */
int emit_gpu_fence(struct emitter *e, const struct pending *p);
int emit_gpu_timeline(struct emitter *e, const struct pending *p);
int emit_gpu_cmd(struct emitter *e, const struct pending *p);
/* Closes the thread's open fence wait with an inferred End (its exit, the
 * end of the capture). */
int emit_gpu_close(struct emitter *e, struct thread_state *th, uint32_t tid, uint64_t key);
/* Wine and Vulkan calls (uprobes): emit_wine.c */
int emit_ucall(struct emitter *e, const struct pending *p);
/* Closes the thread's open calls with inferred Ends (its exit, its exec, the
 * end of the capture). */
int emit_ucall_close_all(struct emitter *e, struct thread_state *th, uint32_t tid, uint64_t key);
/* The seq of the innermost call open on the thread (what a syscall made
 * inside it cites), or UINT64_MAX. */
uint64_t emit_ucall_cause(const struct thread_state *th);
/* A Linux read's End with ret >= 0 into th->sc_buf: fills the open
 * NtReadFile (then nothing is cited) or completes a pending one (the seq of
 * its Begin, removed), else UINT64_MAX. */
uint64_t emit_async_completion(struct emitter *e, struct thread_state *th);
/* The process is gone: its pending reads will not complete. */
void emit_async_forget(struct emitter *e, uint32_t tgid);
/* Frames (emit_frames.c): the request_id of a present on this swapchain
 * (the frame it ends); after a present's End, the Frame epoch; the
 * request_id of any other event (set when its process is in a frame); a
 * process gone or exec'd. */
uint64_t emit_frame_of_present(struct emitter *e, uint32_t tgid, uint64_t swapchain);
int emit_frame_presented(struct emitter *e, uint32_t tgid, uint64_t swapchain, uint64_t key);
void emit_frame_tag(struct emitter *e, struct katra_event *ev);
void emit_frames_forget(struct emitter *e, uint32_t tgid);

/* processes_seen and threads_seen as the format defines them: the distinct
 * nonzero ids among events, whatever scope wrote them (a process named by a
 * ProcessInfo only counts too; a reused id counts once). */
static inline void emit_count_id(uint64_t *seen, uint64_t id, uint64_t *count)
{
	uint64_t bit = 1ull << (id & 63);

	if (id && id < KATRA_SEEN_IDS && !(seen[id >> 6] & bit)) {
		seen[id >> 6] |= bit;
		(*count)++;
	}
}

/* Counts the event's ids (emit_count_id) and remembers them as the last
 * counted, the last as the ones before, whose bitmaps it skips (out of
 * line: tested only when the thread changes; two threads alternate). */
void emit_count_ids_of(struct emitter *e, uint64_t pid, uint64_t tid);
/* The event's ids counted: nothing for the ids counted last; the ids
 * counted before them (two threads alternate) swap in, inline; any other
 * through emit_count_ids_of, which does the same for them after counting. */
static inline void emit_count_ids(struct emitter *e, uint64_t pid, uint64_t tid)
{
	if (tid == e->seen_last_tid && pid == e->seen_last_pid)
		return;
	if (tid == e->seen_prev_tid && pid == e->seen_prev_pid) {
		e->seen_prev_pid = e->seen_last_pid;
		e->seen_prev_tid = e->seen_last_tid;
		e->seen_last_pid = pid;
		e->seen_last_tid = tid;
		return;
	}
	emit_count_ids_of(e, pid, tid);
}

/* Fills the common fields and writes; the time is the kernel's, unchanged
 * (inline: every event comes through here). */
static inline int emit_write(struct emitter *e, struct katra_event *ev, uint64_t key,
			     struct thread_state *th)
{
	uint64_t ts = emit_rel(e, key);

	if (key > e->st.last_key)
		e->st.last_key = key;
	if (th)
		th->last_ts = ts;
	else if (ev->thread_id == 0)
		e->tid0_last_ts = ts;
	if (e->frames.count)
		emit_frame_tag(e, ev);
	/* consecutive events mostly come from one thread: its ids are counted */
	emit_count_ids(e, ev->process_id, ev->thread_id);
	ev->seq = e->next_seq++;
	ev->ts_mono_ns = ts;
	ev->ts_wall_ns = e->start_wall + ts;
	e->st.events++;
	e->st.by_kind[ev->kind]++;
	if (ev->confidence == KATRA_CONFIDENCE_INFERRED)
		e->st.inferred++;
	if (e->error)
		return e->error;
	e->error = katra_writer_append_event(e->w, ev);
	return e->error;
}

/* emit_write for the common syscall End (th's open span, its Begin the one
 * cause, Measured, no frame tag; e->error clear): the same bookkeeping, the
 * event encoded by the writer from its varying fields alone, as scalars. */
static inline int emit_write_syscall_end(struct emitter *e, struct thread_state *th,
					 const struct katra_wire_head *h, uint64_t key,
					 uint32_t res_domain, uint64_t res_id, uint32_t nr,
					 int64_t ret)
{
	uint64_t ts = emit_rel(e, key), seq = e->next_seq++;

	if (key > e->st.last_key)
		e->st.last_key = key;
	th->last_ts = ts;
	emit_count_ids(e, h->tgid, h->tid);
	e->st.events++;
	e->st.by_kind[th->sc_kind]++;
	e->error = katra_writer_append_syscall_end(e->w, seq, th->sc_span, th->sc_seq, h->tid,
						    h->tgid, th->sc_kind, nr, ts, e->start_wall,
						    res_domain, res_id, ret);
	return e->error;
}

/* What emit_write does before the writer, for an event of a known thread
 * th (not NULL) whose fields go to the writer as scalars (no frame to tag,
 * Measured): its time relative to the capture's start. */
static inline uint64_t emit_note_scalar(struct emitter *e, struct thread_state *th,
					uint32_t tid, uint32_t pid, uint32_t kind, uint64_t key)
{
	uint64_t ts = emit_rel(e, key);

	if (key > e->st.last_key)
		e->st.last_key = key;
	th->last_ts = ts;
	emit_count_ids(e, pid, tid);
	e->st.events++;
	e->st.by_kind[kind]++;
	return ts;
}

/* Wakeups through the wineserver (emit_winewake.c), for the syscalls of
 * wineserver clients and servers: at a Begin (its resource set), and at an
 * End (the seq of the write it reads, else UINT64_MAX); forgetting a
 * process's pipes at its exit. */
void emit_wake_begin(struct emitter *e, struct thread_state *th, uint32_t tid, uint32_t nr,
		     const struct katra_event *ev);
uint64_t emit_wake_end(struct emitter *e, struct thread_state *th, uint32_t tid, uint32_t nr,
		       int64_t ret, uint64_t file_id);
void emit_wake_forget(struct emitter *e, uint32_t tgid);

#endif
