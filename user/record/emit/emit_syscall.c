// SPDX-License-Identifier: GPL-2.0-only
/* Syscall Begin / End events (pairing, file identity, paths). */
#include <string.h>

#include "emit_int.h"
#include "record/syscalls/syscalls.h"

/* The id of the file a syscall used (KATRA_SC_FILE), of the domain its
 * class flags give. */
static uint64_t file_resource_id(struct emitter *e, const struct katra_ev_syscall *sc,
				 uint32_t domain)
{
	switch (domain) {
	case KATRA_RES_PIPE:
	case KATRA_RES_SOCKET:
		return sc->ino; /* pipe:[ino], socket:[ino] */
	case KATRA_RES_ANON_INODE:
		return katra_syscall_anon_inode(sc);
	}
	/* a loop over one file is the common case: remember the last identity */
	if (sc->dev != e->last_dev || sc->ino != e->last_ino) {
		e->last_dev = sc->dev;
		e->last_ino = sc->ino;
		e->last_file_id = katra_file_id(katra_kernel_dev_to_user(sc->dev), sc->ino);
	}
	return e->last_file_id;
}

static void file_resource(struct emitter *e, const struct katra_ev_syscall *sc,
			  struct katra_resource *res)
{
	res->domain = katra_syscall_resource_domain(sc->flags);
	res->id = file_resource_id(e, sc, res->domain);
}

/* The file a syscall used, if any (most use none: tested inline); res is
 * left as it is (none) otherwise. */
static inline void syscall_resource(struct emitter *e, const struct katra_ev_syscall *sc,
				    struct katra_resource *res)
{
	if (sc->flags & KATRA_SC_FILE)
		file_resource(e, sc, res);
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
	struct path_slot *ps = ktable_get(&e->paths, emit_path_key(sc->head.tid, sc->enter_ts));
	if (!ps || ps->enter_ts != sc->enter_ts || ps->tid != sc->head.tid)
		return;
	slot->present = true;
	slot->value = (struct katra_str){ ps->path, ps->len };
}

/* Where a read's data lands (a pending NtReadFile's completion, emit_wine.c),
 * 0 for the syscalls that are not such reads. */
static inline uint64_t landing_buffer(const struct katra_ev_syscall *sc)
{
	if (sc->flags & KATRA_SC_I386)
		return 0;
	switch (sc->nr) {
	case 0:  /* read */
	case 17: /* pread64 */
	case 45: /* recvfrom */
		return sc->args[1];
	case 47: /* recvmsg: its first iovec's base */
		return sc->flags & KATRA_SC_AUX ? sc->aux : 0;
	default:
		return 0;
	}
}

/* The resource of a syscall's events: the file it used (KATRA_SC_FILE; most
 * use none: tested inline) as its id, its domain at *domain. */
static inline __attribute__((always_inline)) uint64_t syscall_resource_id(
	struct emitter *e, const struct katra_ev_syscall *sc, uint32_t *domain)
{
	*domain = KATRA_RES_NONE;
	if (!(sc->flags & KATRA_SC_FILE))
		return 0;
	*domain = katra_syscall_resource_domain(sc->flags);
	/* the file of the last identity (a loop over one file; a split pair's
	 * End after its Begin): file_resource_id()'s answer, without its call */
	if (*domain == KATRA_RES_FILE && sc->dev == e->last_dev && sc->ino == e->last_ino)
		return e->last_file_id;
	return file_resource_id(e, sc, *domain);
}

/* What the common Begin and the combined pair do first, their calls
 * before their fields are loaded: the Begin's payload into *pl (by its own
 * memset: an initializer cleared it with a `rep stos`, slow to start), its
 * resource (the id; the domain at *domain), the event's ids counted. */
static inline __attribute__((always_inline)) uint64_t begin_calls(
	struct emitter *e, const struct katra_ev_syscall *sc, struct katra_payload *pl,
	uint32_t *domain)
{
	memset(pl, 0, sizeof(*pl));
	katra_syscall_payload_of(sc, pl);
	uint64_t res_id = syscall_resource_id(e, sc, domain);
	emit_count_ids(e, sc->head.tgid, sc->head.tid);
	return res_id;
}

/* The thread's syscall fields as a Begin of span, seq, kind leaves them. */
static inline void begin_thread(struct thread_state *th, const struct katra_ev_syscall *sc,
				uint64_t span, uint64_t seq, uint32_t kind)
{
	th->sc_span = span;
	th->sc_seq = seq;
	th->sc_enter_key = sc->enter_ts;
	th->sc_nr = katra_syscall_trace_nr(sc);
	th->sc_kind = kind;
	th->sc_buf = landing_buffer(sc);
}

/* The common Begin (see emit_syscall_begin): the thread's span opened, the
 * event written by the writer from its varying fields, as scalars. */
static int syscall_begin_plain(struct emitter *e, struct thread_state *th,
			       const struct katra_ev_syscall *sc, uint64_t key)
{
	struct katra_payload pl;
	uint32_t domain;
	uint64_t res_id = begin_calls(e, sc, &pl, &domain);
	uint64_t ts = emit_rel(e, key), seq = e->next_seq++, span = e->next_span++;
	uint32_t kind = katra_syscall_kind_of(sc);

	th->flags |= TH_SYSCALL_OPEN;
	begin_thread(th, sc, span, seq, kind);
	if (key > e->st.last_key)
		e->st.last_key = key;
	th->last_ts = ts;
	e->st.events++;
	e->st.by_kind[kind]++;
	e->error = katra_writer_append_syscall_begin(e->w, seq, span, sc->head.tid, sc->head.tgid,
						      kind, ts, e->start_wall, domain, res_id, &pl);
	return e->error;
}

/* A syscall's Begin (emit_pending_syscall): the common one (see
 * emit_syscall_begin) here, with nothing else in the function; any other a
 * tail call to emit_syscall_begin(). Called as emit_syscall_end_common(). */
int emit_syscall_begin_common(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_syscall *sc = &p->u.sc;
	struct thread_state *th = e->last_thread;

	if (e->frames.count || e->record_paths || e->generic_events)
		return emit_syscall_begin(e, p);
	/* one of the last two threads (emit_thread() without its lookup) */
	if (!th || e->last_tid != sc->head.tid) {
		if (!e->prev_thread || e->prev_tid != sc->head.tid)
			return emit_syscall_begin(e, p);
		th = emit_thread(e, sc->head.tid, sc->head.tgid);
	}
	/* in time (emit_late), on the CPU (emit_running), no span open, no
	 * cause, no Wine state */
	if (!th->last_ts || emit_rel(e, p->key) < th->last_ts || th->uc_open ||
	    (th->flags & (TH_OFFCPU_OPEN | TH_SYSCALL_OPEN | TH_FIRST_CAUSE | TH_WINE |
			  TH_WINESERVER)))
		return emit_syscall_begin(e, p);
	return syscall_begin_plain(e, th, sc, p->key);
}

int emit_syscall_pair(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_syscall *sc = &p->u.sc;
	struct thread_state *th = emit_thread(e, sc->head.tid, sc->head.tgid);
	uint64_t enter = emit_rel(e, p->key), exit = emit_rel(e, sc->exit_ts);

	/* what emit_syscall_begin() writes as the common Begin (in time on its
	 * thread, on the CPU, no span open, no cause) and emit_syscall_end()
	 * as the common End (no overlapped read it completes); else the two */
	if (!th || !th->last_ts || enter < th->last_ts || !enter || exit < enter ||
	    th->uc_open || e->record_paths || e->frames.count ||
	    (th->flags & (TH_OFFCPU_OPEN | TH_SYSCALL_OPEN | TH_FIRST_CAUSE | TH_WINE |
			  TH_WINESERVER)) ||
	    (e->asyncs.count && sc->ret >= 0 && landing_buffer(sc)))
		return 1;
	/* the calls first, then the fields, in registers, to the writer as
	 * scalars: no struct in between, nothing stored narrow and loaded wide
	 * (the span taken before the calls and seq after them: read together,
	 * the two counters were one 16-byte load, which the 8-byte stores of
	 * the other events' seq cannot forward to) */
	uint64_t span = e->next_span++;
	struct katra_payload pl;
	uint32_t domain;
	uint64_t res_id = begin_calls(e, sc, &pl, &domain);
	uint64_t seq = e->next_seq;
	uint32_t kind = katra_syscall_kind_of(sc), nr = katra_syscall_trace_nr(sc);

	e->next_seq = seq + 2;
	/* the thread as the End leaves it: the span closed, its Begin's
	 * fields kept as emit_syscall_begin() sets them */
	begin_thread(th, sc, span, seq, kind);
	th->last_ts = exit;
	if (sc->exit_ts > e->st.last_key)
		e->st.last_key = sc->exit_ts;
	e->st.events += 2;
	e->st.by_kind[kind] += 2;
	e->error = katra_writer_append_syscall_pair(e->w, seq, span, sc->head.tid, sc->head.tgid,
						    kind, nr, enter, exit, e->start_wall, domain,
						    res_id, sc->ret, &pl);
	return e->error;
}

int emit_syscall_begin(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_syscall *sc = &p->u.sc;
	struct thread_state *th = emit_thread(e, sc->head.tid, sc->head.tgid);
	struct katra_event ev;
	uint64_t causes[2], ucall;
	unsigned n = 0;
	int rc;

	if (emit_late(e, th, sc->head.tid, p->key, 1)) {
		if (e->record_paths)
			ktable_remove(&e->paths, emit_path_key(sc->head.tid, sc->enter_ts));
		return 0;
	}
	rc = emit_running(e, th, sc->head.tid, p->key);
	if (!rc && th && (th->flags & TH_SYSCALL_OPEN))
		rc = emit_close_syscall(e, th, sc->head.tid, p->key);
	if (rc)
		return rc;
	/* the common Begin: no cause (not a thread's first event, not inside a
	 * Wine or Vulkan call), no wineserver pipe, no path, no frame to tag */
	if (th && !th->uc_open && !(th->flags & (TH_FIRST_CAUSE | TH_WINE | TH_WINESERVER)) &&
	    !e->record_paths && !e->frames.count && !e->error)
		return syscall_begin_plain(e, th, sc, p->key);
	emit_base(&ev, &sc->head, KATRA_SCOPE_LINUX, katra_syscall_kind_of(sc),
		  th ? KATRA_PHASE_BEGIN : KATRA_PHASE_INSTANT);
	emit_note_tracked(e, th, causes, &n);
	/* made inside a Wine or Vulkan call: that call caused it */
	if (th && th->uc_open && (ucall = emit_ucall_cause(th)) != UINT64_MAX)
		causes[n++] = ucall;
	ev.causes = (struct katra_u64_vec){ causes, n };
	katra_syscall_payload_of(sc, &ev.payload);
	attach_path(e, sc, &ev.payload);
	syscall_resource(e, sc, &ev.resource);
	if (th && (th->flags & (TH_WINE | TH_WINESERVER)))
		emit_wake_begin(e, th, sc->head.tid, katra_syscall_trace_nr(sc), &ev);
	if (th) {
		ev.span_id = emit_some(e->next_span++);
		th->flags |= TH_SYSCALL_OPEN;
		begin_thread(th, sc, ev.span_id.value, e->next_seq, ev.kind);
	}
	if (th && ev.payload.type == KATRA_PAYLOAD_EXECVE && ev.payload.u.execve.path.present) {
		bool created;
		struct exec_path *xp = ktable_upsert(&e->exec_paths, sc->head.tid, &created);
		if (xp) {
			xp->len = (uint32_t)ev.payload.u.execve.path.value.len;
			memcpy(xp->path, ev.payload.u.execve.path.value.ptr, xp->len);
		}
	}
	rc = emit_write(e, &ev, p->key, th);
	if (e->record_paths) /* after the write: the payload points into the slot */
		ktable_remove(&e->paths, emit_path_key(sc->head.tid, sc->enter_ts));
	return rc;
}

/* Written into the event's payload (cleared by emit_base) field by field:
 * building it in a local and copying the 80-byte union over made the
 * CPU forward four-byte stores into sixteen-byte loads, and that stall was
 * the drain thread's hottest instruction. */
static void syscall_return(struct katra_payload *pl, const struct katra_ev_syscall *sc)
{
	pl->type = KATRA_PAYLOAD_SYSCALL_RETURN;
	pl->u.syscall_return.nr = katra_syscall_trace_nr(sc);
	pl->u.syscall_return.ret = sc->ret;
}

/* A syscall's End (emit_pending_syscall): the common one (its Begin open,
 * its one cause) here, with nothing else in the function, which so saves
 * next to no register; any other a tail call to emit_syscall_end().
 * Called with e->error clear and no names waiting (emit_pending_syscall). */
int emit_syscall_end_common(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_syscall *sc = &p->u.sc;
	struct thread_state *th = e->last_thread;
	uint64_t key = p->key;

	if (e->frames.count || e->generic_events || p->kind != PEND_SYSCALL_END)
		return emit_syscall_end(e, p);
	/* one of the last two threads (emit_thread() without its lookup) */
	if (!th || e->last_tid != sc->head.tid) {
		if (!e->prev_thread || e->prev_tid != sc->head.tid)
			return emit_syscall_end(e, p);
		th = emit_thread(e, sc->head.tid, sc->head.tgid);
	}
	/* in time (emit_late), on the CPU (emit_running), its Begin open, no
	 * overlapped read it may complete, no wineserver pipe */
	if (!th->last_ts || emit_rel(e, key) < th->last_ts ||
	    (th->flags & (TH_OFFCPU_OPEN | TH_WINE | TH_WINESERVER)) ||
	    !(th->flags & TH_SYSCALL_OPEN) || th->sc_enter_key != sc->enter_ts ||
	    (th->sc_buf && sc->ret >= 0 && (th->uc_open || e->asyncs.count)))
		return emit_syscall_end(e, p);
	th->flags &= ~TH_SYSCALL_OPEN;
	uint32_t domain;
	uint64_t res_id = syscall_resource_id(e, sc, &domain);
	return emit_write_syscall_end(e, th, &sc->head, key, domain, res_id,
				      katra_syscall_trace_nr(sc), sc->ret);
}

int emit_syscall_end(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_syscall *sc = &p->u.sc;
	struct thread_state *th = emit_thread(e, sc->head.tid, sc->head.tgid);
	struct katra_event ev;
	uint64_t causes[3], done;
	unsigned n = 0;
	int rc;

	if (emit_late(e, th, sc->head.tid, p->key, 1))
		return 0;
	rc = emit_running(e, th, sc->head.tid, p->key);
	if (rc)
		return rc;
	if (p->kind == PEND_SYSCALL_END && th && (th->flags & TH_SYSCALL_OPEN) &&
	    th->sc_enter_key == sc->enter_ts) {
		th->flags &= ~TH_SYSCALL_OPEN;
		causes[n++] = th->sc_seq;
		/* the data of a pending overlapped read landed: it completes it */
		if (th->sc_buf && sc->ret >= 0 && (th->uc_open || e->asyncs.count) &&
		    (done = emit_async_completion(e, th)) != UINT64_MAX)
			causes[n++] = done;
		uint32_t domain;
		uint64_t res_id = syscall_resource_id(e, sc, &domain);
		/* what the wineserver or its client wrote into this pipe */
		if ((th->flags & (TH_WINE | TH_WINESERVER)) && emit_stream_resource(domain) &&
		    (done = emit_wake_end(e, th, sc->head.tid, th->sc_nr, sc->ret, res_id)) !=
			    UINT64_MAX)
			causes[n++] = done;
		/* the common End: its Begin its one cause, no frame to tag */
		if (n == 1 && !e->frames.count && !e->error)
			return emit_write_syscall_end(e, th, &sc->head, p->key, domain, res_id,
						      katra_syscall_trace_nr(sc), sc->ret);
		emit_base(&ev, &sc->head, KATRA_SCOPE_LINUX, th->sc_kind, KATRA_PHASE_END);
		ev.span_id = emit_some(th->sc_span);
		ev.resource = (struct katra_resource){ domain, res_id };
		ev.causes = (struct katra_u64_vec){ causes, n };
		syscall_return(&ev.payload, sc);
		return emit_write(e, &ev, p->key, th);
	}
	if (th && (th->flags & TH_EXEC_ENDED) && sc->enter_ts == th->sc_enter_key) {
		th->flags &= ~TH_EXEC_ENDED; /* ended at the exec already */
		return 0;
	}
	/* its Begin was never seen (in flight at start) or could not be kept */
	emit_base(&ev, &sc->head, KATRA_SCOPE_LINUX, katra_syscall_kind_of(sc), KATRA_PHASE_INSTANT);
	emit_note_tracked(e, th, causes, &n);
	ev.causes = (struct katra_u64_vec){ causes, n };
	syscall_return(&ev.payload, sc);
	syscall_resource(e, sc, &ev.resource);
	return emit_write(e, &ev, p->key, th);
}
