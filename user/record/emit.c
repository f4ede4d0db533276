#include <errno.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "emit.h"
#include "katra/utf8.h"
#include "syscalls.h"

#define TASK_DEAD_STATE 0x80 /* prev_state of a task's final switch-out */

enum thread_flags {
	TH_SYSCALL_OPEN = 1 << 0,
	TH_OFFCPU_OPEN = 1 << 1,
	TH_WAKEUP = 1 << 2,
	TH_FIRST_CAUSE = 1 << 3,
	TH_COUNTED = 1 << 4,
	TH_FAULT_OPEN = 1 << 5,
};

struct thread_state {
	uint64_t last_ts;   /* last ts_mono_ns written on this thread */
	uint64_t sc_span, sc_seq, sc_enter_key;
	uint64_t off_span, off_seq;
	uint64_t wake_seq;
	uint64_t first_cause_seq;
	uint64_t pf_span, pf_seq, pf_enter_key;
	uint32_t sc_nr;
	uint32_t tgid;
	uint32_t flags;
	uint32_t sc_kind;
};

struct proc_state {
	uint64_t image_seq; /* the fork or exec that made its current image */
	bool has_image;
	bool counted;
};

/* A path waits here from its ring record until its syscall's Begin is
 * written (several syscalls of one thread can be drained before that). */
struct path_slot {
	uint64_t enter_ts;
	uint32_t tid;
	uint32_t len;
	char path[KATRA_PATH_MAX];
};

static uint64_t path_key(uint32_t tid, uint64_t enter_ts)
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
	if (!rc && record_paths)
		rc = ktable_init(&e->paths, 1024, sizeof(struct path_slot));
	if (rc)
		emitter_free(e);
	return rc;
}

void emitter_free(struct emitter *e)
{
	ktable_free(&e->threads);
	ktable_free(&e->procs);
	ktable_free(&e->urings);
	ktable_free(&e->paths);
}

/* ---- writing one record ---- */

static uint64_t rel(const struct emitter *e, uint64_t key)
{
	return key > e->start_mono ? key - e->start_mono : 0;
}

static int append(struct emitter *e, const struct katra_record *r)
{
	if (e->error)
		return e->error;
	e->error = katra_writer_append(e->w, r);
	return e->error;
}

/* Fills the common fields, keeps the thread's time monotonic, writes. */
static int write_event(struct emitter *e, struct katra_event *ev, uint64_t key,
		       struct thread_state *th)
{
	uint64_t ts = rel(e, key);

	if (key < e->st.last_key)
		e->st.late++;
	else
		e->st.last_key = key;
	if (th) {
		if (ts < th->last_ts) {
			ts = th->last_ts;
			ev->confidence = KATRA_CONFIDENCE_ESTIMATED;
		}
		th->last_ts = ts;
	}
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

static struct thread_state *thread_of(struct emitter *e, uint32_t tid, uint32_t tgid)
{
	bool created;
	struct thread_state *th;

	/* consecutive events mostly come from one thread: skip the hash */
	if (e->last_thread && e->last_tid == tid)
		return e->last_thread;
	th = ktable_upsert(&e->threads, tid, &created);
	if (!th) {
		e->st.evictions[KATRA_DROP_SPAN_TABLE]++;
		return NULL;
	}
	if (created)
		th->tgid = tgid;
	e->last_tid = tid;
	e->last_thread = th;
	return th;
}

/* Removing can move other entries (backward shift): forget the cached one. */
static void forget_thread(struct emitter *e, uint32_t tid)
{
	ktable_remove(&e->threads, tid);
	e->last_thread = NULL;
}

/* A tracked thread's first event: count it, and link it to its fork. */
static void note_tracked(struct emitter *e, struct thread_state *th, uint64_t *causes,
			 unsigned *ncauses)
{
	bool created;

	if (!th)
		return;
	if (!(th->flags & TH_COUNTED)) {
		th->flags |= TH_COUNTED;
		e->st.threads_seen++;
		struct proc_state *ps = ktable_upsert(&e->procs, th->tgid, &created);
		if (ps && !ps->counted) {
			ps->counted = true;
			e->st.processes_seen++;
		}
	}
	if (th->flags & TH_FIRST_CAUSE) {
		th->flags &= ~TH_FIRST_CAUSE;
		causes[(*ncauses)++] = th->first_cause_seq;
	}
}

static void base_event(struct katra_event *ev, const struct katra_wire_head *h, uint32_t scope,
		       uint32_t kind, uint32_t phase)
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

static struct katra_opt_u64 some(uint64_t v)
{
	return (struct katra_opt_u64){ true, v };
}

/* ---- syscalls ---- */

static void syscall_resource(struct emitter *e, const struct katra_ev_syscall *sc,
			     struct katra_event *ev)
{
	if (!(sc->flags & KATRA_SC_FILE))
		return;
	ev->resource.domain = katra_syscall_resource_domain(sc->nr);
	/* a loop over one file is the common case: remember the last identity */
	if (sc->dev != e->last_dev || sc->ino != e->last_ino) {
		e->last_dev = sc->dev;
		e->last_ino = sc->ino;
		e->last_file_id = katra_file_id(katra_kernel_dev_to_user(sc->dev), sc->ino);
	}
	ev->resource.id = e->last_file_id;
}

static int end_span(struct emitter *e, struct thread_state *th, const struct katra_wire_head *h,
		    uint32_t kind, uint64_t span, uint64_t begin_seq, uint64_t key,
		    const struct katra_payload *payload, uint32_t confidence)
{
	struct katra_event ev;
	uint64_t causes[1] = { begin_seq };

	base_event(&ev, h, KATRA_SCOPE_LINUX, kind, KATRA_PHASE_END);
	ev.span_id = some(span);
	ev.causes = (struct katra_u64_vec){ causes, 1 };
	if (payload)
		ev.payload = *payload;
	ev.confidence = confidence;
	return write_event(e, &ev, key, th);
}

/* Closes the thread's open syscall with an inferred End (no return seen). */
static int close_syscall_inferred(struct emitter *e, struct thread_state *th, uint32_t tid,
				  uint64_t key)
{
	struct katra_wire_head h = { .tid = tid, .tgid = th->tgid };

	th->flags &= ~TH_SYSCALL_OPEN;
	return end_span(e, th, &h, th->sc_kind, th->sc_span, th->sc_seq, key, NULL,
			KATRA_CONFIDENCE_INFERRED);
}

static void attach_path(struct emitter *e, const struct katra_ev_syscall *sc,
			struct katra_payload *p)
{
	struct katra_opt_str *slot = NULL;

	if (!e->record_paths)
		return;
	if (p->type == KATRA_PAYLOAD_FILE_OPEN)
		slot = &p->u.file_open.path;
	else if (p->type == KATRA_PAYLOAD_EXECVE)
		slot = &p->u.execve.path;
	if (!slot)
		return;
	struct path_slot *ps = ktable_get(&e->paths, path_key(sc->head.tid, sc->enter_ts));
	if (!ps || ps->enter_ts != sc->enter_ts || ps->tid != sc->head.tid)
		return;
	slot->present = true;
	slot->value = (struct katra_str){ ps->path, ps->len };
}

static int syscall_begin(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_syscall *sc = &p->u.sc;
	struct thread_state *th = thread_of(e, sc->head.tid, sc->head.tgid);
	struct katra_event ev;
	uint64_t causes[1];
	unsigned n = 0;
	int rc;

	if (th && (th->flags & TH_SYSCALL_OPEN)) {
		rc = close_syscall_inferred(e, th, sc->head.tid, p->key);
		if (rc)
			return rc;
	}
	base_event(&ev, &sc->head, KATRA_SCOPE_LINUX, katra_syscall_kind(sc->nr),
		   th ? KATRA_PHASE_BEGIN : KATRA_PHASE_INSTANT);
	note_tracked(e, th, causes, &n);
	ev.causes = (struct katra_u64_vec){ causes, n };
	katra_syscall_payload(sc, &ev.payload);
	attach_path(e, sc, &ev.payload);
	syscall_resource(e, sc, &ev);
	if (th) {
		ev.span_id = some(e->next_span++);
		th->flags |= TH_SYSCALL_OPEN;
		th->sc_span = ev.span_id.value;
		th->sc_seq = e->next_seq;
		th->sc_enter_key = sc->enter_ts;
		th->sc_nr = sc->nr;
		th->sc_kind = ev.kind;
	}
	rc = write_event(e, &ev, p->key, th);
	if (e->record_paths) /* after the write: the payload points into the slot */
		ktable_remove(&e->paths, path_key(sc->head.tid, sc->enter_ts));
	return rc;
}

static int syscall_end(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_syscall *sc = &p->u.sc;
	struct thread_state *th = thread_of(e, sc->head.tid, sc->head.tgid);
	struct katra_payload ret = { .type = KATRA_PAYLOAD_SYSCALL_RETURN };
	struct katra_event ev;
	uint64_t causes[1];
	unsigned n = 0;

	ret.u.syscall_return.nr = sc->nr;
	ret.u.syscall_return.ret = sc->ret;
	if (p->kind == PEND_SYSCALL_END && th && (th->flags & TH_SYSCALL_OPEN) &&
	    th->sc_enter_key == sc->enter_ts) {
		th->flags &= ~TH_SYSCALL_OPEN;
		base_event(&ev, &sc->head, KATRA_SCOPE_LINUX, th->sc_kind, KATRA_PHASE_END);
		ev.span_id = some(th->sc_span);
		causes[0] = th->sc_seq;
		ev.causes = (struct katra_u64_vec){ causes, 1 };
		ev.payload = ret;
		syscall_resource(e, sc, &ev);
		return write_event(e, &ev, p->key, th);
	}
	/* its Begin was never seen (in flight at start) or could not be kept */
	base_event(&ev, &sc->head, KATRA_SCOPE_LINUX, katra_syscall_kind(sc->nr),
		   KATRA_PHASE_INSTANT);
	note_tracked(e, th, causes, &n);
	ev.causes = (struct katra_u64_vec){ causes, n };
	ev.payload = ret;
	syscall_resource(e, sc, &ev);
	return write_event(e, &ev, p->key, th);
}

/* ---- scheduler ---- */

static int switch_event(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_switch *sw = &p->u.sw;
	struct katra_event ev;
	uint64_t causes[3];
	unsigned n = 0;
	int rc;

	if ((sw->flags & KATRA_SW_PREV_TRACKED) && !(sw->prev_state & TASK_DEAD_STATE)) {
		struct thread_state *th = thread_of(e, sw->head.tid, sw->head.tgid);
		if (th && (th->flags & TH_OFFCPU_OPEN)) {
			th->flags &= ~TH_OFFCPU_OPEN; /* its switch-in was lost */
			rc = end_span(e, th, &sw->head, KATRA_KIND_OFF_CPU, th->off_span, th->off_seq,
				      p->key, NULL, KATRA_CONFIDENCE_INFERRED);
			if (rc)
				return rc;
		}
		base_event(&ev, &sw->head, KATRA_SCOPE_LINUX, KATRA_KIND_OFF_CPU,
			   th ? KATRA_PHASE_BEGIN : KATRA_PHASE_INSTANT);
		note_tracked(e, th, causes, &n);
		ev.causes = (struct katra_u64_vec){ causes, n };
		ev.payload.type = KATRA_PAYLOAD_SWITCH;
		ev.payload.u.sched_switch.cpu = sw->head.cpu;
		ev.payload.u.sched_switch.prev_state = sw->prev_state;
		if (th) {
			ev.span_id = some(e->next_span++);
			th->flags |= TH_OFFCPU_OPEN;
			th->off_span = ev.span_id.value;
			th->off_seq = e->next_seq;
		}
		rc = write_event(e, &ev, p->key, th);
		if (rc)
			return rc;
	}
	if (sw->flags & KATRA_SW_NEXT_TRACKED) {
		struct katra_wire_head nh = sw->head;
		nh.tid = sw->next_tid;
		nh.tgid = sw->next_tgid;
		struct thread_state *th = thread_of(e, nh.tid, nh.tgid);
		n = 0;
		bool open = th && (th->flags & TH_OFFCPU_OPEN);
		base_event(&ev, &nh, KATRA_SCOPE_LINUX, KATRA_KIND_OFF_CPU,
			   open ? KATRA_PHASE_END : KATRA_PHASE_INSTANT);
		if (open) {
			causes[n++] = th->off_seq;
			ev.span_id = some(th->off_span);
			th->flags &= ~TH_OFFCPU_OPEN;
		}
		note_tracked(e, th, causes, &n);
		if (th && (th->flags & TH_WAKEUP)) {
			causes[n++] = th->wake_seq;
			th->flags &= ~TH_WAKEUP;
		}
		ev.causes = (struct katra_u64_vec){ causes, n };
		ev.payload.type = KATRA_PAYLOAD_SWITCH;
		ev.payload.u.sched_switch.cpu = sw->head.cpu;
		return write_event(e, &ev, p->key, th);
	}
	return 0;
}

static int waking_event(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_waking *wk = &p->u.wk;
	/* wakers are often untracked (interrupts, kworkers): no state for them */
	struct thread_state *waker = ktable_get(&e->threads, wk->head.tid);
	struct thread_state *target;
	struct katra_event ev;

	base_event(&ev, &wk->head, KATRA_SCOPE_LINUX, KATRA_KIND_WAKEUP, KATRA_PHASE_INSTANT);
	ev.resource.domain = KATRA_RES_THREAD;
	ev.resource.id = wk->target_tid;
	ev.payload.type = KATRA_PAYLOAD_WAKEUP;
	ev.payload.u.wakeup.target_tid = wk->target_tid;
	ev.payload.u.wakeup.target_pid = wk->target_tgid;
	ev.payload.u.wakeup.target_cpu = wk->target_cpu;
	target = thread_of(e, wk->target_tid, wk->target_tgid);
	if (target) {
		target->flags |= TH_WAKEUP;
		target->wake_seq = e->next_seq;
	}
	return write_event(e, &ev, p->key, waker);
}

/* ---- process lifecycle ---- */

static int fork_event(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_fork *f = &p->u.fork;
	struct thread_state *th = thread_of(e, f->head.tid, f->head.tgid);
	bool is_thread = f->flags & KATRA_FORK_THREAD;
	struct katra_event ev;
	uint64_t causes[1];
	unsigned n = 0;
	bool created;

	base_event(&ev, &f->head, KATRA_SCOPE_LINUX, KATRA_KIND_TASK_FORK, KATRA_PHASE_INSTANT);
	note_tracked(e, th, causes, &n);
	ev.causes = (struct katra_u64_vec){ causes, n };
	ev.resource.domain = is_thread ? KATRA_RES_THREAD : KATRA_RES_PROCESS;
	ev.resource.id = is_thread ? f->child_tid : f->child_tgid;
	ev.payload.type = KATRA_PAYLOAD_TASK_FORK;
	ev.payload.u.task_fork.parent_pid = f->head.tgid;
	ev.payload.u.task_fork.parent_tid = f->head.tid;
	ev.payload.u.task_fork.child_pid = f->child_tgid;
	ev.payload.u.task_fork.child_tid = f->child_tid;
	ev.payload.u.task_fork.is_thread = is_thread;
	if (f->flags & KATRA_FORK_TRACKED) {
		struct thread_state *child = thread_of(e, f->child_tid, f->child_tgid);
		if (child) {
			child->tgid = f->child_tgid;
			child->flags |= TH_FIRST_CAUSE;
			child->first_cause_seq = e->next_seq;
		}
		if (!is_thread) {
			struct proc_state *ps = ktable_upsert(&e->procs, f->child_tgid, &created);
			if (ps) {
				ps->has_image = true;
				ps->image_seq = e->next_seq;
			} else {
				e->st.evictions[KATRA_DROP_SPAN_TABLE]++;
			}
		}
	}
	return write_event(e, &ev, p->key, th);
}

static int exec_event(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_exec *x = &p->u.exec;
	struct thread_state *th;
	struct katra_event ev;
	uint64_t causes[2];
	unsigned n = 0;
	bool created;

	/* a non-leader thread that execs takes over the leader's tid */
	if (x->old_tid != x->head.tid)
		forget_thread(e, x->old_tid);
	th = thread_of(e, x->head.tid, x->head.tgid);
	base_event(&ev, &x->head, KATRA_SCOPE_LINUX, KATRA_KIND_TASK_EXEC, KATRA_PHASE_INSTANT);
	note_tracked(e, th, causes, &n);
	struct proc_state *ps = ktable_upsert(&e->procs, x->head.tgid, &created);
	if (ps && ps->has_image && !(n == 1 && causes[0] == ps->image_seq))
		causes[n++] = ps->image_seq;
	ev.causes = (struct katra_u64_vec){ causes, n };
	ev.resource.domain = KATRA_RES_PROCESS;
	ev.resource.id = x->head.tgid;
	ev.payload.type = KATRA_PAYLOAD_TASK_EXEC;
	ev.payload.u.task_exec.old_tid = x->old_tid;
	if (ps) {
		ps->has_image = true;
		ps->image_seq = e->next_seq;
	}
	return write_event(e, &ev, p->key, th);
}

static int exit_event(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_exit *x = &p->u.exit;
	struct thread_state *th = thread_of(e, x->head.tid, x->head.tgid);
	struct katra_event ev;
	uint64_t causes[1];
	unsigned n = 0;
	int rc;

	/* exit/exit_group never return: their Begin is closed here */
	if (th && (th->flags & TH_SYSCALL_OPEN)) {
		rc = close_syscall_inferred(e, th, x->head.tid, p->key);
		if (rc)
			return rc;
	}
	base_event(&ev, &x->head, KATRA_SCOPE_LINUX, KATRA_KIND_TASK_EXIT, KATRA_PHASE_INSTANT);
	note_tracked(e, th, causes, &n);
	ev.causes = (struct katra_u64_vec){ causes, n };
	ev.resource.domain = KATRA_RES_THREAD;
	ev.resource.id = x->head.tid;
	ev.payload.type = KATRA_PAYLOAD_TASK_EXIT;
	ev.payload.u.task_exit.exit_code = (int32_t)x->exit_code;
	ev.payload.u.task_exit.group_dead = x->flags & KATRA_EXIT_GROUP_DEAD;
	rc = write_event(e, &ev, p->key, th);
	if (th && !(th->flags & (TH_OFFCPU_OPEN | TH_FAULT_OPEN)))
		forget_thread(e, x->head.tid);
	return rc;
}

/* An instant, or a measured fault's Begin / End (one span per thread at a
 * time: a thread cannot fault again before its fault returns). */
static int page_fault_event(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_page_fault *f = &p->u.pf;
	struct thread_state *th = thread_of(e, f->head.tid, f->head.tgid);
	uint32_t phase = KATRA_PHASE_INSTANT;
	struct katra_event ev;
	uint64_t causes[2];
	unsigned n = 0;

	if (p->kind == PEND_FAULT_BEGIN && th) {
		phase = KATRA_PHASE_BEGIN;
	} else if (p->kind == PEND_FAULT_END && th && (th->flags & TH_FAULT_OPEN) &&
		   th->pf_enter_key == f->enter_ts) {
		phase = KATRA_PHASE_END;
	}
	/* an End without its Begin (no thread state for it): an instant */
	base_event(&ev, &f->head, KATRA_SCOPE_LINUX, KATRA_KIND_PAGE_FAULT, phase);
	if (phase == KATRA_PHASE_END) {
		th->flags &= ~TH_FAULT_OPEN;
		ev.span_id = some(th->pf_span);
		causes[n++] = th->pf_seq;
	} else {
		note_tracked(e, th, causes, &n);
	}
	if (phase == KATRA_PHASE_BEGIN) {
		ev.span_id = some(e->next_span++);
		th->flags |= TH_FAULT_OPEN;
		th->pf_span = ev.span_id.value;
		th->pf_seq = e->next_seq;
		th->pf_enter_key = f->enter_ts;
	}
	ev.causes = (struct katra_u64_vec){ causes, n };
	ev.resource.domain = KATRA_RES_MEMORY;
	ev.resource.id = f->address;
	ev.payload.type = KATRA_PAYLOAD_PAGE_FAULT;
	ev.payload.u.page_fault.address = f->address;
	ev.payload.u.page_fault.ip = f->ip;
	ev.payload.u.page_fault.error_code = f->error_code;
	return write_event(e, &ev, p->key, th);
}

/* ---- io_uring ---- */

static int uring_event(struct emitter *e, const struct pending *p)
{
	const struct katra_wire_head *h = &p->u.head;
	/* completions can run in another task's context: no state for it */
	struct thread_state *th = p->kind == PEND_URING_COMPLETE ?
		ktable_get(&e->threads, h->tid) : thread_of(e, h->tid, h->tgid);
	struct katra_event ev;
	uint64_t causes[2];
	unsigned n = 0;
	bool created;

	base_event(&ev, h, KATRA_SCOPE_LINUX, 0, KATRA_PHASE_INSTANT);
	ev.resource.domain = KATRA_RES_IO_URING;
	switch (p->kind) {
	case PEND_URING_CREATE:
		note_tracked(e, th, causes, &n);
		ev.kind = KATRA_KIND_IO_URING_CREATE;
		ev.resource.id = p->u.uc.ctx;
		ev.payload.type = KATRA_PAYLOAD_IO_URING_CREATE;
		ev.payload.u.io_uring_create.ctx = p->u.uc.ctx;
		ev.payload.u.io_uring_create.fd = (int32_t)p->u.uc.fd;
		ev.payload.u.io_uring_create.sq_entries = p->u.uc.sq_entries;
		ev.payload.u.io_uring_create.cq_entries = p->u.uc.cq_entries;
		ev.payload.u.io_uring_create.flags = p->u.uc.flags;
		break;
	case PEND_URING_SUBMIT: {
		note_tracked(e, th, causes, &n);
		ev.kind = KATRA_KIND_IO_URING_SUBMIT;
		ev.resource.id = p->u.us.ctx;
		ev.request_id = some(p->u.us.user_data);
		ev.payload.type = KATRA_PAYLOAD_IO_URING_SUBMIT;
		ev.payload.u.io_uring_submit.ctx = p->u.us.ctx;
		ev.payload.u.io_uring_submit.user_data = p->u.us.user_data;
		ev.payload.u.io_uring_submit.opcode = p->u.us.opcode;
		ev.payload.u.io_uring_submit.flags = (uint32_t)p->u.us.req_flags;
		ev.payload.u.io_uring_submit.fd = -1;
		uint64_t *slot = ktable_upsert(&e->urings, p->u.us.req, &created);
		if (slot)
			*slot = e->next_seq;
		else
			e->st.evictions[KATRA_DROP_IO_URING_TABLE]++;
		break;
	}
	default: { /* PEND_URING_COMPLETE */
		ev.kind = KATRA_KIND_IO_URING_COMPLETE;
		ev.resource.id = p->u.ucp.ctx;
		ev.request_id = some(p->u.ucp.user_data);
		uint64_t *slot = ktable_get(&e->urings, p->u.ucp.req);
		if (slot) {
			causes[n++] = *slot;
			ktable_remove(&e->urings, p->u.ucp.req);
		}
		ev.payload.type = KATRA_PAYLOAD_IO_URING_COMPLETE;
		ev.payload.u.io_uring_complete.ctx = p->u.ucp.ctx;
		ev.payload.u.io_uring_complete.user_data = p->u.ucp.user_data;
		ev.payload.u.io_uring_complete.res = p->u.ucp.res;
		ev.payload.u.io_uring_complete.cflags = p->u.ucp.cflags;
		break;
	}
	}
	ev.causes = (struct katra_u64_vec){ causes, n };
	return write_event(e, &ev, p->key, th);
}

int emit_pending(struct emitter *e, const struct pending *p)
{
	if (e->error)
		return e->error;
	switch (p->kind) {
	case PEND_SYSCALL_BEGIN:
		return syscall_begin(e, p);
	case PEND_SYSCALL_END:
	case PEND_SYSCALL_ORPHAN:
		return syscall_end(e, p);
	case PEND_SWITCH:
		return switch_event(e, p);
	case PEND_WAKING:
		return waking_event(e, p);
	case PEND_FORK:
		return fork_event(e, p);
	case PEND_EXEC:
		return exec_event(e, p);
	case PEND_EXIT:
		return exit_event(e, p);
	case PEND_PAGE_FAULT:
	case PEND_FAULT_BEGIN:
	case PEND_FAULT_END:
		return page_fault_event(e, p);
	default:
		return uring_event(e, p);
	}
}

void emit_stash_path(struct emitter *e, const struct katra_ev_path *path)
{
	bool created;
	struct path_slot *ps;

	if (!e->record_paths)
		return;
	ps = ktable_upsert(&e->paths, path_key(path->head.tid, path->enter_ts), &created);
	if (!ps)
		return; /* 1024 paths waiting: this syscall is written without its path */
	ps->enter_ts = path->enter_ts;
	ps->tid = path->head.tid;
	size_t len = path->len < KATRA_PATH_MAX ? path->len : KATRA_PATH_MAX - 1;
	ps->len = (uint32_t)katra_utf8_sanitize(path->path, len, ps->path, sizeof(ps->path));
}

/* ---- Katra-native records ---- */

static uint64_t katra_key(struct emitter *e, uint64_t key)
{
	/* never before what is already written: seq order stays time order */
	if (key < e->st.last_key)
		key = e->st.last_key;
	e->st.last_key = key;
	return key;
}

int emit_epoch(struct emitter *e, uint64_t key, uint32_t kind, uint64_t epoch, const char *name,
	       size_t name_len)
{
	struct katra_record r = { .type = KATRA_RECORD_EPOCH_MARKER };
	char clean[256];

	key = katra_key(e, key);
	r.u.epoch.seq = e->next_seq++;
	r.u.epoch.ts_mono_ns = rel(e, key);
	r.u.epoch.ts_wall_ns = e->start_wall + rel(e, key);
	r.u.epoch.epoch = epoch;
	r.u.epoch.kind = kind;
	r.u.epoch.name.len = katra_utf8_sanitize(name, name_len, clean, sizeof(clean));
	r.u.epoch.name.ptr = clean;
	e->st.epochs++;
	return append(e, &r);
}

int emit_counter(struct emitter *e, uint64_t key, uint32_t kind, uint32_t instance,
		 uint64_t value)
{
	struct katra_record r = { .type = KATRA_RECORD_COUNTER };

	key = katra_key(e, key);
	r.u.counter.seq = e->next_seq++;
	r.u.counter.ts_mono_ns = rel(e, key);
	r.u.counter.ts_wall_ns = e->start_wall + rel(e, key);
	r.u.counter.kind = kind;
	r.u.counter.instance = instance;
	r.u.counter.value = value;
	e->st.counters++;
	return append(e, &r);
}

int emit_drop(struct emitter *e, uint64_t key, uint32_t source, uint32_t instance,
	      uint64_t count)
{
	struct katra_wire_head h = { 0 };
	struct katra_event ev;

	key = katra_key(e, key);
	base_event(&ev, &h, KATRA_SCOPE_KATRA, KATRA_KIND_DROP, KATRA_PHASE_INSTANT);
	ev.resource.domain = KATRA_RES_RING;
	ev.resource.id = instance;
	ev.payload.type = KATRA_PAYLOAD_DROP;
	ev.payload.u.drop.source = source;
	ev.payload.u.drop.instance = instance;
	ev.payload.u.drop.count = count;
	return write_event(e, &ev, key, NULL);
}

int emit_close_open_spans(struct emitter *e, uint64_t key)
{
	int rc = 0;

	key = katra_key(e, key);
	for (size_t i = 0; i < e->threads.cap && !rc; i++) {
		if (!e->threads.used[i])
			continue;
		struct thread_state *th = ktable_value_at(&e->threads, i);
		uint32_t tid = (uint32_t)e->threads.keys[i];
		struct katra_wire_head h = { .tid = tid, .tgid = th->tgid };
		if (th->flags & TH_SYSCALL_OPEN)
			rc = close_syscall_inferred(e, th, tid, key);
		if (!rc && (th->flags & TH_FAULT_OPEN)) {
			th->flags &= ~TH_FAULT_OPEN;
			rc = end_span(e, th, &h, KATRA_KIND_PAGE_FAULT, th->pf_span, th->pf_seq, key,
				      NULL, KATRA_CONFIDENCE_INFERRED);
		}
		if (!rc && (th->flags & TH_OFFCPU_OPEN)) {
			th->flags &= ~TH_OFFCPU_OPEN;
			rc = end_span(e, th, &h, KATRA_KIND_OFF_CPU, th->off_span, th->off_seq, key,
				      NULL, KATRA_CONFIDENCE_INFERRED);
		}
	}
	return rc;
}
