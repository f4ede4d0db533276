// SPDX-License-Identifier: GPL-2.0-only
/* Wakeups through the wineserver (SPEC section 10, "A wait's release"): a
 * Wine client sends a request by writing its request pipe; the wineserver
 * (one thread) reads it, serves it, and writes what it owes: the reply on
 * the client's reply pipe, and the wake-ups of the threads the request
 * released (an event set, a semaphore released, an async completed) on
 * their wait pipes.  So, by pipe (its file identity):
 *  - a client write (inside a Wine call) remembers its Begin and the call
 *    that made it (the innermost one open: the WineServerCall);
 *  - the wineserver's read of it cites that write (its End) and makes that
 *    call the one being served, until the server's next read of a pipe or
 *    its next epoll_wait/poll (a timer's wake-up is nobody's);
 *  - a wineserver write remembers its Begin and the call being served;
 *  - a client's read of that pipe cites the server's write (its End), and
 *    when the call served was another thread's, the NT call the reader is
 *    in ends citing that call: the NtWait released by an NtSetEvent.
 * Writes are remembered at their Begin: the data can reach the reader
 * before the writer's syscall returns. */
#include "emit_int.h"

#define NR_READ 0
#define NR_WRITE 1
#define NR_POLL 7
#define NR_READV 19
#define NR_WRITEV 20
#define NR_EPOLL_WAIT 232
#define NR_EPOLL_PWAIT 281

static bool wake_thread(const struct thread_state *th)
{
	return th && (th->flags & (TH_WINE | TH_WINESERVER));
}

static struct wine_pipe *pipe_get(struct emitter *e, uint64_t file_id)
{
	struct wine_pipe *p = ktable_get(&e->wine_pipes, file_id);

	return p && p->file_id == file_id ? p : NULL;
}

void emit_wake_begin(struct emitter *e, struct thread_state *th, uint32_t tid, uint32_t nr,
		     const struct katra_event *ev)
{
	struct wine_pipe *p;
	bool created;

	if (!wake_thread(th))
		return;
	if (th->flags & TH_WINESERVER) {
		if (nr == NR_EPOLL_WAIT || nr == NR_EPOLL_PWAIT || nr == NR_POLL)
			th->flags &= ~TH_SERVING;
		else if ((nr == NR_WRITE || nr == NR_WRITEV) &&
			 emit_stream_resource(ev->resource.domain)) {
			p = ktable_upsert(&e->wine_pipes, ev->resource.id, &created);
			if (!p) {
				e->st.evictions[KATRA_DROP_SPAN_TABLE]++;
				return;
			}
			*p = (struct wine_pipe){ .file_id = ev->resource.id,
						 .write_seq = e->next_seq,
						 .cause_seq = (th->flags & TH_SERVING) ? th->srv_cause
									    : UINT64_MAX,
						 .cause_tid = th->srv_cause_tid,
						 .writer_tgid = th->tgid,
						 .from_server = true };
		}
		return;
	}
	/* a client's write: kept only while a wineserver is traced to read it */
	if ((nr != NR_WRITE && nr != NR_WRITEV) || !emit_stream_resource(ev->resource.domain) ||
	    !th->uc_open || !e->have_wineserver)
		return;
	p = ktable_upsert(&e->wine_pipes, ev->resource.id, &created);
	if (!p) {
		e->st.evictions[KATRA_DROP_SPAN_TABLE]++;
		return;
	}
	*p = (struct wine_pipe){ .file_id = ev->resource.id,
				 .write_seq = e->next_seq,
				 .cause_seq = emit_ucall_cause(th),
				 .cause_tid = tid,
				 .writer_tgid = th->tgid };
}

uint64_t emit_wake_end(struct emitter *e, struct thread_state *th, uint32_t tid, uint32_t nr,
		       int64_t ret, uint64_t file_id)
{
	struct wine_pipe *p;

	if (!wake_thread(th) || (nr != NR_READ && nr != NR_READV) || ret <= 0 ||
	    !e->wine_pipes.count)
		return UINT64_MAX;
	p = pipe_get(e, file_id);
	if (th->flags & TH_WINESERVER) {
		/* a read that is no client's request: nothing is being served */
		if (!p || p->from_server) {
			th->flags &= ~TH_SERVING;
			return UINT64_MAX;
		}
		th->flags |= TH_SERVING;
		th->srv_cause = p->cause_seq;
		th->srv_cause_tid = p->cause_tid;
		return p->write_seq;
	}
	if (!p || !p->from_server)
		return UINT64_MAX;
	p->reader_tgid = th->tgid;
	if (p->cause_seq != UINT64_MAX && p->cause_tid != tid &&
	    (th->uc_open & (1u << KATRA_UC_LAYER_NT))) {
		th->flags |= TH_RELEASED;
		th->uc_released = p->cause_seq;
	}
	return p->write_seq;
}

void emit_wake_forget(struct emitter *e, uint32_t tgid)
{
	ktable_each(&e->wine_pipes, i) {
		const struct wine_pipe *p = ktable_value_at(&e->wine_pipes, i);
		if (p->writer_tgid == tgid || p->reader_tgid == tgid)
			ktable_remove(&e->wine_pipes, ktable_key_at(&e->wine_pipes, i));
	}
}
