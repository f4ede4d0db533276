// SPDX-License-Identifier: GPL-2.0-only
/* Process lifecycle: fork, exec, exit, renames, and the ProcessInfo that
 * names each traced process (at start, on a followed fork, after each exec,
 * when its main thread is renamed). */
#include <errno.h>
#include <string.h>

#include "emit_int.h"
#include "katra/utf8.h"

static size_t comm_len(const char *comm, size_t cap)
{
	size_t n = 0;

	while (n < cap && comm[n])
		n++;
	return n;
}

/* A names table of process tgid, once: a wineserver's request names
 * (handle 0: resource the process, citing its ProcessInfo) or a unix
 * library's call names (resource its handle). */
static int write_names(struct emitter *e, uint64_t key, uint32_t tgid, uint64_t handle,
		       uint64_t cause, const struct katra_str_vec *names, struct thread_state *th)
{
	uint64_t causes[1] = { cause };
	struct katra_wire_head h = { .tid = tgid, .tgid = tgid };
	struct katra_event ev;

	emit_base(&ev, &h, KATRA_SCOPE_WINE_PROTON,
		  handle ? KATRA_KIND_WINE_UNIX_CALL_NAMES : KATRA_KIND_WINE_SERVER_REQUESTS,
		  KATRA_PHASE_INSTANT);
	ev.resource = handle ? (struct katra_resource){ KATRA_RES_WIN_HANDLE, handle } :
			       (struct katra_resource){ KATRA_RES_PROCESS, tgid };
	ev.payload.type = KATRA_PAYLOAD_WINE_SERVER_REQUESTS;
	ev.payload.u.wine_server_requests.names = *names;
	if (cause != UINT64_MAX)
		ev.causes = (struct katra_u64_vec){ causes, 1 };
	return emit_write(e, &ev, key, th);
}

/* thread_id = process_id = the process's id; resource Process. */
static int write_process_info(struct emitter *e, uint64_t key, uint32_t tgid, uint32_t origin,
			      const char *comm, size_t len, const char *path, size_t path_len,
			      const char *image, struct thread_state *th, uint64_t cause)
{
	uint64_t causes[1] = { cause };
	struct katra_wire_head h = { .tid = tgid, .tgid = tgid };
	struct katra_event ev;
	char clean[64], clean_image[256];
	bool created;

	emit_base(&ev, &h, KATRA_SCOPE_KATRA, KATRA_KIND_PROCESS_INFO, KATRA_PHASE_INSTANT);
	ev.resource.domain = KATRA_RES_PROCESS;
	ev.resource.id = tgid;
	ev.payload.type = KATRA_PAYLOAD_PROCESS_INFO;
	ev.payload.u.process_info.comm.len = katra_utf8_sanitize(comm, len, clean, sizeof(clean));
	ev.payload.u.process_info.comm.ptr = clean;
	if (path)
		ev.payload.u.process_info.exe_path =
			(struct katra_opt_str){ true, { path, path_len } };
	if (image)
		ev.payload.u.process_info.windows_image = (struct katra_opt_str){
			true, { clean_image, katra_utf8_sanitize(image, strlen(image), clean_image,
								 sizeof(clean_image)) } };
	ev.payload.u.process_info.origin = origin;
	if (cause != UINT64_MAX) /* the fork or exec that gave it this name */
		ev.causes = (struct katra_u64_vec){ causes, 1 };
	struct proc_state *ps = ktable_upsert(&e->procs, tgid, &created);
	if (ps) {
		if (created)
			ps->origin = origin;
		ps->named = true;
		/* its threads serve wine requests (emit_winewake.c) */
		ps->wineserver = len >= 10 && !memcmp(comm, "wineserver", 10);
		if (ps->wineserver) {
			e->have_wineserver = true;
			struct thread_state *main_th = ktable_get(&e->threads, tgid);
			if (main_th)
				main_th->flags |= TH_WINESERVER;
		}
	}
	if (e->on_named)
		e->on_named(e->names_ctx, tgid, origin, clean, ev.payload.u.process_info.comm.len,
			    image ? clean_image : NULL);
	uint64_t named_seq = e->next_seq;
	if (ps)
		ps->info_seq = named_seq;
	int rc = emit_write(e, &ev, key, th);
	struct katra_str_vec reqs;
	if (rc || !e->server_requests)
		return rc;
	int got = e->server_requests(e->wine_tables_ctx, tgid, clean,
				     ev.payload.u.process_info.comm.len, &reqs);
	if (got == -EAGAIN && e->names_ready) /* written once read */
		e->names_waiting++;
	if (got != 1)
		return rc;
	return write_names(e, key, tgid, 0, named_seq, &reqs, th);
}

int emit_waiting_names(struct emitter *e, uint64_t key)
{
	struct katra_str_vec names;
	uint32_t tgid;
	uint64_t handle;
	int got, rc = 0;

	while (!rc && e->names_waiting &&
	       (got = e->names_ready(e->wine_tables_ctx, &tgid, &handle, &names)) != -EAGAIN) {
		e->names_waiting--;
		struct proc_state *ps = handle ? NULL : ktable_get(&e->procs, tgid);
		if (got == 1)
			rc = write_names(e, key, tgid, handle, ps ? ps->info_seq : UINT64_MAX,
					 &names, NULL);
	}
	return rc;
}

int emit_process_info(struct emitter *e, uint64_t key, uint32_t tgid, uint32_t origin,
		      const char *comm, const char *exe_path, const char *windows_image)
{
	char path[KATRA_PATH_MAX];
	size_t plen = 0;

	if (exe_path)
		plen = katra_utf8_sanitize(exe_path, strlen(exe_path), path, sizeof(path));
	return write_process_info(e, key, tgid, origin, comm, strlen(comm), exe_path ? path : NULL,
				  plen, windows_image, NULL, UINT64_MAX);
}

void emit_process_origin(struct emitter *e, uint32_t tgid, uint32_t origin)
{
	bool created;
	struct proc_state *ps = ktable_upsert(&e->procs, tgid, &created);

	if (ps)
		ps->origin = origin;
}

/* A process joined a traced Wine session (KATRA_FORK_JOINED): no fork, its
 * ProcessInfo (origin WineJoined), its Windows image from its command line. */
static int emit_joined(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_fork *f = &p->u.fork;
	struct thread_state *th = emit_thread(e, f->head.tid, f->head.tgid);
	char image[128];
	bool created, has_image;

	if (emit_late(e, th, f->head.tid, p->key, 1))
		return 0;
	/* its later names (exec, rename) keep this origin */
	struct proc_state *ps = ktable_upsert(&e->procs, f->head.tgid, &created);
	if (ps)
		ps->origin = KATRA_ORIGIN_WINE_JOINED;
	has_image = e->windows_image &&
		    !e->windows_image(e->names_ctx, f->head.tgid, image, sizeof(image));
	return write_process_info(e, p->key, f->head.tgid, KATRA_ORIGIN_WINE_JOINED, f->comm,
				  comm_len(f->comm, sizeof(f->comm)), NULL, 0,
				  has_image ? image : NULL, th, UINT64_MAX);
}

int emit_fork(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_fork *f = &p->u.fork;

	if (f->flags & KATRA_FORK_JOINED)
		return emit_joined(e, p);

	struct thread_state *th;
	bool is_thread = f->flags & KATRA_FORK_THREAD;
	struct katra_event ev;
	uint64_t causes[1], fork_seq;
	unsigned n = 0;
	bool created;
	int rc;

	th = emit_thread(e, f->head.tid, f->head.tgid);
	if (emit_late(e, th, f->head.tid, p->key, 1))
		return 0;
	rc = emit_running(e, th, f->head.tid, p->key);
	if (rc)
		return rc;
	emit_base(&ev, &f->head, KATRA_SCOPE_LINUX, KATRA_KIND_TASK_FORK, KATRA_PHASE_INSTANT);
	emit_note_tracked(e, th, causes, &n);
	ev.causes = (struct katra_u64_vec){ causes, n };
	ev.resource.domain = is_thread ? KATRA_RES_THREAD : KATRA_RES_PROCESS;
	ev.resource.id = is_thread ? f->child_tid : f->child_tgid;
	ev.payload.type = KATRA_PAYLOAD_TASK_FORK;
	ev.payload.u.task_fork.parent_pid = f->head.tgid;
	ev.payload.u.task_fork.parent_tid = f->head.tid;
	ev.payload.u.task_fork.child_pid = f->child_tgid;
	ev.payload.u.task_fork.child_tid = f->child_tid;
	ev.payload.u.task_fork.is_thread = is_thread;
	fork_seq = e->next_seq;
	if (f->flags & KATRA_FORK_TRACKED) {
		/* the process first: its first thread's entry counts in it */
		if (!is_thread) {
			struct proc_state *ps = ktable_upsert(&e->procs, f->child_tgid, &created);
			if (ps) {
				memset(ps, 0, sizeof(*ps));
				ps->has_image = true;
				ps->image_seq = fork_seq;
				ps->origin = KATRA_ORIGIN_FORKED;
			} else {
				e->st.evictions[KATRA_DROP_SPAN_TABLE]++;
			}
		}
		struct thread_state *child = emit_thread(e, f->child_tid, f->child_tgid);
		if (child) {
			child->tgid = f->child_tgid;
			child->flags |= TH_FIRST_CAUSE;
			child->first_cause_seq = fork_seq;
		}
		th = emit_thread(e, f->head.tid, f->head.tgid); /* the cache moved */
	}
	rc = emit_write(e, &ev, p->key, th);
	if (!rc && (f->flags & KATRA_FORK_TRACKED) && !is_thread)
		rc = write_process_info(e, p->key, f->child_tgid, KATRA_ORIGIN_FORKED, f->comm,
					comm_len(f->comm, sizeof(f->comm)), NULL, 0, NULL,
					emit_thread(e, f->child_tid, f->child_tgid), fork_seq);
	return rc;
}

/* A non-leader thread exec'd: it becomes the leader (its tid becomes the
 * tgid).  The old leader has exited; its state gives way to the exec'ing
 * thread's, whose execve span ends here on its old id (a span cannot move
 * between thread ids): its own return is then not written again. */
static int take_over_leader(struct emitter *e, const struct katra_ev_exec *x, uint64_t key)
{
	struct thread_state *old, *leader, moved;
	bool created;
	int rc = 0;

	leader = ktable_get(&e->threads, x->head.tid);
	if (leader) {
		rc = emit_running(e, leader, x->head.tid, key);
		if (!rc && (leader->flags & TH_SYSCALL_OPEN))
			rc = emit_close_syscall(e, leader, x->head.tid, key);
		if (!rc && leader->uc_open)
			rc = emit_ucall_close_all(e, leader, x->head.tid, key);
		emit_forget_thread(e, x->head.tid);
	}
	/* looked up only now: removing the leader's entry can move others */
	old = ktable_get(&e->threads, x->old_tid);
	if (rc || !old)
		return rc;
	if (old->flags & TH_SYSCALL_OPEN) {
		rc = emit_close_syscall(e, old, x->old_tid, key);
		old->flags |= TH_EXEC_ENDED;
	}
	if (!rc && old->uc_open) /* a span cannot move between thread ids */
		rc = emit_ucall_close_all(e, old, x->old_tid, key);
	moved = *old;
	/* the old id keeps a tombstone with its last time: a record of it that
	 * arrives late is then dropped, not written after the exec (the old
	 * leader's final switch-out, under this id, removes it) */
	memset(old, 0, sizeof(*old));
	old->tgid = moved.tgid;
	old->last_ts = moved.last_ts;
	old->flags = TH_EXITED;
	struct thread_state *th = ktable_upsert(&e->threads, x->head.tid, &created);
	if (th)
		*th = moved;
	if (th && created)
		emit_count_thread(e, moved.tgid);
	emit_thread_forget_cache(e);
	return rc;
}

int emit_exec(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_exec *x = &p->u.exec;
	struct thread_state *th;
	struct exec_path *xp = NULL;
	struct katra_event ev;
	uint64_t causes[2];
	unsigned n = 0;
	bool created;
	int rc = 0;

	if (x->old_tid != x->head.tid)
		rc = take_over_leader(e, x, p->key);
	if (rc)
		return rc;
	th = emit_thread(e, x->head.tid, x->head.tgid);
	if (emit_late(e, th, x->head.tid, p->key, 1))
		return 0;
	/* the old image's calls end with it */
	if (th && th->uc_open && (rc = emit_ucall_close_all(e, th, x->head.tid, p->key)))
		return rc;
	if (e->frames.count) /* and so do its frames */
		emit_frames_forget(e, x->head.tgid);
	emit_base(&ev, &x->head, KATRA_SCOPE_LINUX, KATRA_KIND_TASK_EXEC, KATRA_PHASE_INSTANT);
	emit_note_tracked(e, th, causes, &n);
	struct proc_state *ps = ktable_upsert(&e->procs, x->head.tgid, &created);
	if (ps && ps->has_image && !(n == 1 && causes[0] == ps->image_seq))
		causes[n++] = ps->image_seq;
	ev.causes = (struct katra_u64_vec){ causes, n };
	ev.resource.domain = KATRA_RES_PROCESS;
	ev.resource.id = x->head.tgid;
	ev.payload.type = KATRA_PAYLOAD_TASK_EXEC;
	ev.payload.u.task_exec.old_tid = x->old_tid;
	if (e->record_paths) {
		xp = ktable_get(&e->exec_paths, x->old_tid);
		if (xp)
			ev.payload.u.task_exec.path =
				(struct katra_opt_str){ true, { xp->path, xp->len } };
	}
	if (ps) {
		ps->has_image = true;
		ps->image_seq = e->next_seq;
	}
	uint64_t exec_seq = e->next_seq;
	rc = emit_write(e, &ev, p->key, th);
	/* a Wine program's name, from its command line (read now: its latest) */
	char image[128];
	bool has_image = e->windows_image &&
			 !e->windows_image(e->names_ctx, x->head.tgid, image, sizeof(image));
	if (!rc)
		rc = write_process_info(e, p->key, x->head.tgid,
					ps ? ps->origin : KATRA_ORIGIN_FORKED, x->comm,
					comm_len(x->comm, sizeof(x->comm)), xp ? xp->path : NULL,
					xp ? xp->len : 0, has_image ? image : NULL, th, exec_seq);
	if (xp)
		ktable_remove(&e->exec_paths, x->old_tid);
	return rc;
}

int emit_exit(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_exit *x = &p->u.exit;
	struct thread_state *th = emit_thread(e, x->head.tid, x->head.tgid);
	struct proc_state *ps;
	struct katra_event ev;
	uint64_t causes[1];
	unsigned n = 0;
	bool group_dead = x->flags & KATRA_EXIT_GROUP_DEAD;
	int rc;

	if (emit_late(e, th, x->head.tid, p->key, 1))
		return 0;
	rc = emit_running(e, th, x->head.tid, p->key);
	/* exit/exit_group never return: their Begin is closed here */
	if (!rc && th && (th->flags & TH_SYSCALL_OPEN))
		rc = emit_close_syscall(e, th, x->head.tid, p->key);
	if (!rc && th && th->uc_open)
		rc = emit_ucall_close_all(e, th, x->head.tid, p->key);
	if (!rc && th)
		rc = emit_gpu_close(e, th, x->head.tid, p->key);
	if (rc)
		return rc;
	/* without the tracepoint's own group_dead two threads exiting at once can
	 * both look last: the first one written is */
	ps = ktable_get(&e->procs, x->head.tgid);
	if (group_dead && ps && ps->group_dead)
		group_dead = false;
	emit_base(&ev, &x->head, KATRA_SCOPE_LINUX, KATRA_KIND_TASK_EXIT, KATRA_PHASE_INSTANT);
	emit_note_tracked(e, th, causes, &n);
	ev.causes = (struct katra_u64_vec){ causes, n };
	ev.resource.domain = KATRA_RES_THREAD;
	ev.resource.id = x->head.tid;
	ev.payload.type = KATRA_PAYLOAD_TASK_EXIT;
	ev.payload.u.task_exit.exit_code = (int32_t)x->exit_code;
	ev.payload.u.task_exit.group_dead = group_dead;
	rc = emit_write(e, &ev, p->key, th);
	if (th)
		th->flags |= TH_EXITED; /* forgotten at its final switch-out */
	if (group_dead) {
		ps = ktable_get(&e->procs, x->head.tgid);
		if (ps)
			ps->group_dead = true;
		emit_async_forget(e, x->head.tgid);
		emit_frames_forget(e, x->head.tgid);
		emit_wake_forget(e, x->head.tgid);
		if (e->on_process_exit)
			e->on_process_exit(e->cb_ctx, x->head.tgid);
	}
	return rc;
}

/* A thread's new name: a TaskRename on the thread that renamed it; when the
 * main thread is renamed, the process is too: a ProcessInfo citing it (Wine's
 * loader names a process after its program this way, after it started). */
int emit_task_rename(struct emitter *e, const struct pending *p)
{
	const struct katra_ev_task_rename *r = &p->u.rn;
	struct thread_state *th = emit_thread(e, r->head.tid, r->head.tgid);
	size_t len = comm_len(r->comm, sizeof(r->comm));
	struct katra_event ev;
	uint64_t causes[1], rename_seq;
	unsigned n = 0;
	char clean[64];
	int rc;

	if (emit_late(e, th, r->head.tid, p->key, 1))
		return 0;
	rc = emit_running(e, th, r->head.tid, p->key);
	if (rc)
		return rc;
	emit_base(&ev, &r->head, KATRA_SCOPE_LINUX, KATRA_KIND_TASK_RENAME, KATRA_PHASE_INSTANT);
	emit_note_tracked(e, th, causes, &n);
	ev.causes = (struct katra_u64_vec){ causes, n };
	ev.resource = (struct katra_resource){ KATRA_RES_THREAD, r->tid };
	ev.payload.type = KATRA_PAYLOAD_TASK_RENAME;
	ev.payload.u.task_rename.comm =
		(struct katra_str){ clean, katra_utf8_sanitize(r->comm, len, clean, sizeof(clean)) };
	rename_seq = e->next_seq;
	rc = emit_write(e, &ev, p->key, th);
	if (rc || r->tid != r->head.tgid)
		return rc;
	/* another thread may have renamed the main one (/proc/PID/task/TID/comm) */
	struct thread_state *main_th = r->head.tid == r->tid ? th : ktable_get(&e->threads, r->tid);
	if (main_th != th && emit_late(e, main_th, r->tid, p->key, 1))
		return 0;
	struct proc_state *ps = ktable_get(&e->procs, r->head.tgid);
	uint32_t origin = ps ? ps->origin : KATRA_ORIGIN_FORKED;
	/* a Wine program's name, from its command line (read again: its latest) */
	char image[128];
	bool has_image = e->windows_image &&
			 !e->windows_image(e->names_ctx, r->head.tgid, image, sizeof(image));
	return write_process_info(e, p->key, r->head.tgid, origin, r->comm, len, NULL, 0,
				  has_image ? image : NULL, main_th, rename_seq);
}
