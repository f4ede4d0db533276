// SPDX-License-Identifier: GPL-2.0-only
/* The emitter's core: records, thread and process state, and the helpers
 * every event builder (emit_syscall.c, emit_sched.c, emit_task.c,
 * emit_misc.c, emit_wine.c) shares.  It calls none of them: the dispatch
 * by kind is emit_dispatch.c, above them all. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "emit_int.h"
#include "katra/utf8.h"

uint64_t emit_path_key(uint32_t tid, uint64_t enter_ts)
{
	return enter_ts ^ ((uint64_t)tid * 0x9e3779b97f4a7c15ull);
}

uint64_t katra_file_id(uint64_t st_dev, uint64_t st_ino)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint8_t bytes[16];

	memcpy(bytes, &st_dev, 8);
	memcpy(bytes + 8, &st_ino, 8);
	for (int i = 0; i < 16; i++) {
		h ^= bytes[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

uint64_t katra_kernel_dev_to_user(uint64_t kdev)
{
	return makedev((unsigned)(kdev >> 20), (unsigned)(kdev & 0xfffff));
}

int emitter_init(struct emitter *e, struct katra_writer *w, uint64_t start_mono,
		 uint64_t start_wall, bool record_paths, const struct emit_limits *lim)
{
	int rc;

	memset(e, 0, sizeof(*e));
	e->w = w;
	e->start_mono = start_mono;
	e->start_wall = start_wall;
	e->next_span = 1;
	e->record_paths = record_paths;
	e->st.last_key = start_mono;
	e->last_file_id = katra_file_id(katra_kernel_dev_to_user(0), 0);
	rc = ktable_init(&e->threads, lim->max_threads, sizeof(struct thread_state));
	if (!rc)
		rc = ktable_init(&e->procs, lim->max_processes, sizeof(struct proc_state));
	if (!rc)
		rc = ktable_init(&e->urings, lim->max_uring_requests, sizeof(uint64_t));
	if (!rc)
		rc = ktable_init(&e->gpu_fences, KATRA_GPU_FENCES, sizeof(uint64_t));
	if (!rc)
		rc = ktable_init(&e->gpu_vblanks, KATRA_GPU_VBLANKS, sizeof(uint64_t));
	if (!rc)
		rc = ktable_init(&e->gpu_cmds, KATRA_GPU_CMDS, sizeof(uint64_t));
	if (!rc)
		rc = ktable_init(&e->asyncs, KATRA_ASYNC_READS, sizeof(struct async_read));
	if (!rc)
		rc = ktable_init(&e->frames, KATRA_FRAME_TRACKS, sizeof(struct frame_track));
	if (!rc)
		rc = ktable_init(&e->wine_pipes, KATRA_WINE_PIPES, sizeof(struct wine_pipe));
	/* a path reaches the ring at once, its syscall's records through the
	 * per-CPU staging, released by the marker's marks (up to 5 ms apart,
	 * more on a CPU the recorder shares with busy threads): 16384 waiting
	 * paths (4.6 MiB, only with --paths) cover that lag at 40,000 opens a
	 * second; 1024 lost paths with two CPU hogs beside a find|cat of 3,000
	 * files */
	if (!rc && record_paths)
		rc = ktable_init(&e->paths, KATRA_PATHS_WAITING, sizeof(struct path_slot));
	if (!rc && record_paths)
		rc = ktable_init(&e->exec_paths, 256, sizeof(struct exec_path));
	if (!rc) { /* ids are below PID_MAX_LIMIT: a bit each, pages touched as used */
		e->seen_procs = calloc(KATRA_SEEN_IDS / 64, sizeof(uint64_t));
		e->seen_threads = calloc(KATRA_SEEN_IDS / 64, sizeof(uint64_t));
		if (!e->seen_procs || !e->seen_threads)
			rc = -ENOMEM;
	}
	if (rc)
		emitter_free(e);
	return rc;
}

void emitter_free(struct emitter *e)
{
	ktable_free(&e->threads);
	ktable_free(&e->procs);
	ktable_free(&e->urings);
	ktable_free(&e->gpu_fences);
	ktable_free(&e->gpu_vblanks);
	ktable_free(&e->gpu_cmds);
	ktable_free(&e->asyncs);
	ktable_free(&e->frames);
	ktable_free(&e->wine_pipes);
	ktable_free(&e->paths);
	ktable_free(&e->exec_paths);
	free(e->seen_procs);
	free(e->seen_threads);
	e->seen_procs = e->seen_threads = NULL;
}

/* ---- writing one record ---- */

int emit_append(struct emitter *e, const struct katra_record *r)
{
	if (e->error)
		return e->error;
	e->error = katra_writer_append(e->w, r);
	return e->error;
}

bool emit_late_check(struct emitter *e, const struct thread_state *th, uint32_t tid,
		     uint64_t key, unsigned n)
{
	uint64_t ts = emit_rel(e, key), floor;

	if (th && th->last_ts)
		floor = th->last_ts;
	else if (th || tid != 0)
		/* no history here: a state forgotten at the thread's exit, or
		 * events written as instants, may have gone up to the forced floor */
		floor = e->forced_floor;
	else
		floor = e->tid0_last_ts;
	if (ts >= floor)
		return false;
	e->st.late += n;
	e->st.evictions[KATRA_DROP_REORDER] += n;
	return true;
}

void emit_note_forced(struct emitter *e, const struct pending *p)
{
	uint64_t ts = emit_rel(e, p->key);

	if (ts > e->forced_floor)
		e->forced_floor = ts;
}

struct thread_state *emit_thread_lookup(struct emitter *e, uint32_t tid, uint32_t tgid)
{
	bool created;
	struct thread_state *th;

	th = ktable_upsert(&e->threads, tid, &created);
	if (!th) {
		e->st.evictions[KATRA_DROP_SPAN_TABLE]++;
		return NULL;
	}
	if (created) {
		th->tgid = tgid;
		emit_count_thread(e, tgid);
		struct proc_state *ps = ktable_get(&e->procs, tgid);
		if (ps && ps->wineserver)
			th->flags |= TH_WINESERVER;
	}
	e->prev_tid = e->last_tid;
	e->prev_thread = e->last_thread;
	e->last_tid = tid;
	e->last_thread = th;
	return th;
}

/* A thread entry of process tgid was created. */
void emit_count_ids_of(struct emitter *e, uint64_t pid, uint64_t tid)
{
	if (tid != e->seen_prev_tid || pid != e->seen_prev_pid) {
		emit_count_id(e->seen_procs, pid, &e->st.processes_seen);
		emit_count_id(e->seen_threads, tid, &e->st.threads_seen);
	}
	e->seen_prev_pid = e->seen_last_pid;
	e->seen_prev_tid = e->seen_last_tid;
	e->seen_last_pid = pid;
	e->seen_last_tid = tid;
}

void emit_count_thread(struct emitter *e, uint32_t tgid)
{
	bool created;
	struct proc_state *ps = ktable_upsert(&e->procs, tgid, &created);

	if (ps)
		ps->threads++;
}

/* The process table shrinks: a process whose group_dead exit is written and
 * whose last thread is gone from the thread table has no event to come (a
 * pid reused later is a new process, named anew). */
void emit_forget_thread(struct emitter *e, uint32_t tid)
{
	struct thread_state *th = ktable_get(&e->threads, tid);
	struct proc_state *ps = th ? ktable_get(&e->procs, th->tgid) : NULL;

	if (ps && ps->threads && !--ps->threads && ps->group_dead)
		ktable_remove(&e->procs, th->tgid);
	ktable_remove(&e->threads, tid);
	emit_thread_forget_cache(e);
}

int emit_end_span(struct emitter *e, struct thread_state *th, const struct katra_wire_head *h,
		  uint32_t kind, uint64_t span, uint64_t begin_seq, uint64_t key,
		  const struct katra_payload *payload, uint32_t confidence)
{
	uint64_t causes[1] = { begin_seq };

	return emit_end_span_caused(e, th, h, kind, span, causes, 1, key, payload, confidence);
}

int emit_end_span_caused(struct emitter *e, struct thread_state *th,
			 const struct katra_wire_head *h, uint32_t kind, uint64_t span,
			 uint64_t *causes, unsigned ncauses, uint64_t key,
			 const struct katra_payload *payload, uint32_t confidence)
{
	struct katra_event ev;

	emit_base(&ev, h, KATRA_SCOPE_LINUX, kind, KATRA_PHASE_END);
	ev.span_id = emit_some(span);
	ev.causes = (struct katra_u64_vec){ causes, ncauses };
	if (payload)
		ev.payload = *payload;
	ev.confidence = confidence;
	return emit_write(e, &ev, key, th);
}

/* Closes the thread's open syscall with an inferred End (no return seen). */
int emit_close_syscall(struct emitter *e, struct thread_state *th, uint32_t tid, uint64_t key)
{
	struct katra_wire_head h = { .tid = tid, .tgid = th->tgid };

	th->flags &= ~TH_SYSCALL_OPEN;
	return emit_end_span(e, th, &h, th->sc_kind, th->sc_span, th->sc_seq, key, NULL,
			     KATRA_CONFIDENCE_INFERRED);
}

/* A thread comes back on the CPU (its switch-in, or its next event when the
 * switch-in was not seen) after it left blocked, and no wakeup of it was seen
 * since it last ran: the kernel woke it (only try_to_wake_up makes a blocked
 * task runnable) but the probe did not run.  The kernel skips tracepoints in
 * some contexts without counting (on this machine kind, every tracepoint
 * while a thread of one class is current), and a ring can refuse the
 * record.  Written as thread 0's Wakeup, Inferred, at this time (when it
 * happened is not known, only that it was before), so the OffCpu End still
 * cites a wakeup and the trace says one was not seen. */
int emit_unseen_wakeup(struct emitter *e, struct thread_state *th, uint32_t tid, uint64_t key,
		       uint32_t cpu)
{
	struct katra_wire_head h = { .cpu = cpu };
	struct katra_event ev;
	bool unseen = (th->flags & (TH_BLOCKED | TH_WOKEN)) == TH_BLOCKED;

	th->flags &= ~(TH_BLOCKED | TH_WOKEN);
	if (!unseen)
		return 0;
	emit_base(&ev, &h, KATRA_SCOPE_LINUX, KATRA_KIND_WAKEUP, KATRA_PHASE_INSTANT);
	ev.resource.domain = KATRA_RES_THREAD;
	ev.resource.id = tid;
	ev.payload.type = KATRA_PAYLOAD_WAKEUP;
	ev.payload.u.wakeup.target_tid = tid;
	ev.payload.u.wakeup.target_pid = th->tgid;
	ev.payload.u.wakeup.target_cpu = cpu;
	ev.confidence = KATRA_CONFIDENCE_INFERRED;
	th->flags |= TH_WAKEUP;
	th->wake_seq = e->next_seq;
	e->st.wakeups_unseen++;
	return emit_write(e, &ev, key, NULL);
}

int emit_running_inferred(struct emitter *e, struct thread_state *th, uint32_t tid,
			  uint64_t key)
{
	struct katra_wire_head h;
	int rc;

	rc = emit_unseen_wakeup(e, th, tid, key, th->off_cpu);
	if (rc)
		return rc;
	h = (struct katra_wire_head){ .tid = tid, .tgid = th->tgid };
	th->flags &= ~TH_OFFCPU_OPEN;
	e->st.offcpu_inferred++;
	/* its switch-in was not seen, its wakeup was (or is inferred above): the
	 * End cites it as a measured one does, or who woke it is lost too */
	uint64_t causes[2] = { th->off_seq };
	unsigned n = 1;

	if (th->flags & TH_WAKEUP) {
		causes[n++] = th->wake_seq;
		th->flags &= ~TH_WAKEUP;
	}
	return emit_end_span_caused(e, th, &h, KATRA_KIND_OFF_CPU, th->off_span, causes, n, key,
				    NULL, KATRA_CONFIDENCE_INFERRED);
}

void emit_stash_path(struct emitter *e, const struct katra_ev_path *path)
{
	bool created;
	struct path_slot *ps;

	if (!e->record_paths)
		return;
	ps = ktable_upsert(&e->paths, emit_path_key(path->head.tid, path->enter_ts), &created);
	if (!ps) {
		/* full: paths whose syscall record was lost wait here for ever; those
		 * a second older than this one are dropped (counted), then retry */
		ktable_each(&e->paths, i) {
			struct path_slot *old = ktable_value_at(&e->paths, i);
			if (old->enter_ts + 1000000000ull > path->enter_ts)
				continue;
			ktable_remove(&e->paths, ktable_key_at(&e->paths, i));
			e->st.evictions[KATRA_DROP_SPAN_TABLE]++;
		}
		ps = ktable_upsert(&e->paths, emit_path_key(path->head.tid, path->enter_ts),
				   &created);
	}
	if (!ps) {
		/* KATRA_PATHS_WAITING recent paths waiting: this syscall is written without its
		 * path, a loss like an eviction (a drain far behind) */
		e->st.evictions[KATRA_DROP_SPAN_TABLE]++;
		return;
	}
	ps->enter_ts = path->enter_ts;
	ps->tid = path->head.tid;
	size_t len = path->len < KATRA_PATH_MAX ? path->len : KATRA_PATH_MAX - 1;
	ps->len = (uint32_t)katra_utf8_sanitize(path->path, len, ps->path, sizeof(ps->path));
}

/* Tags an event with its process's frame (emit_frames.c counts them). */
void emit_frame_tag(struct emitter *e, struct katra_event *ev)
{
	const struct proc_state *ps;

	/* io_uring's request_id is its user_data; the recorder's own records
	 * belong to no frame */
	if (ev->request_id.present || ev->scope == KATRA_SCOPE_KATRA || !ev->process_id)
		return;
	ps = ktable_get(&e->procs, ev->process_id);
	if (ps && ps->frame)
		ev->request_id = emit_some(ps->frame);
}
