/* SPDX-License-Identifier: GPL-2.0-only */
/* io_uring: ring creation, request submission and completion.  Rings touched
 * by a tracked process are remembered, so completions posted from another
 * context (io-wq worker, SQPOLL thread, interrupt) are still written.
 *
 * Compiled with the syscall programs (included at the end of
 * syscalls.bpf.c, one object): the completion's in-task check reads the
 * user registers through the bpf_rdonly_cast() kfunc, which fd_identity
 * uses there too, and libbpf 1.1's linker refuses one kfunc's extern in two
 * objects ("failed to resolve size of underlying type"). */
#ifndef KATRA_IO_URING_BPF_H
#define KATRA_IO_URING_BPF_H

#include "common.bpf.h"

#define IORING_SETUP_SQPOLL_ (1u << 1)

/* io_ring_ctx pointer -> owning tgid.  Entries of a process are deleted by
 * user space when it exits; a full table is counted (its completions in other
 * contexts are then not written). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u32);
} uring_ctxs SEC(".maps");

static __always_inline int on_create(__s32 fd, __u64 ctx, __u32 sq, __u32 cq, __u32 flags)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32, cpu;
	struct katra_ev_uring_create *e;
	__u64 ts;
	void *rb;

	if (!katra_tracked(tgid))
		return 0;
	katra_map_put(&uring_ctxs, &ctx, &tgid, BPF_ANY, KTABLE_URING);
	cpu = katra_busy_tp();
	ts = bpf_ktime_get_ns();
	e = katra_reserve(&rb, cpu, sizeof(*e), 1);
	if (!e)
		goto out;
	katra_head(&e->head, KATRA_EV_URING_CREATE, cpu, pid_tgid, ts);
	e->ctx = ctx;
	e->fd = fd;
	e->sq_entries = sq;
	e->cq_entries = cq;
	e->flags = flags;
	katra_submit(rb, e, cpu);
out:
	katra_idle_tp(cpu); /* a tracepoint's (never faultable) */
	return 0;
}

SEC("tp_btf/io_uring_create")
int BPF_PROG(tpb_io_uring_create, int fd, void *rctx, u32 sq, u32 cq, u32 flags)
{
	return on_create(fd, (__u64)rctx, sq, cq, flags);
}

SEC("raw_tp/io_uring_create")
int BPF_PROG(raw_io_uring_create, int fd, void *rctx, u32 sq, u32 cq, u32 flags)
{
	return on_create(fd, (__u64)rctx, sq, cq, flags);
}

/* The submit's ring in the table (its completions in other contexts are
 * then written), without a hash lookup in the common case: per CPU, the
 * ring the last submit there found or put in the table, and the table's
 * generation then (uring_gen, which user space bumps after it deletes
 * entries): a ring seen under the current generation is still there, while
 * after a deletion (a ring freed and another made at its address, or the
 * owner gone with the ring still used by another process) it is looked up
 * and put back.  The generation is read before the lookup: a deletion
 * between them leaves an older generation in the cache, never a newer. */
static __always_inline void known_ring(__u64 key, __u32 tgid, __u32 cpu)
{
	__u64 gen = *(volatile __u64 *)&uring_gen[0];
	__u64 *seen;

	if (cpu >= KATRA_MAX_CPUS)
		return;
	seen = &uring_seen[katra_bound(cpu, KATRA_MAX_CPUS - 1) * 8];
	if (seen[0] == key && seen[1] == gen)
		return;
	if (!bpf_map_lookup_elem(&uring_ctxs, &key) &&
	    katra_map_put(&uring_ctxs, &key, &tgid, BPF_NOEXIST, KTABLE_URING) &&
	    !bpf_map_lookup_elem(&uring_ctxs, &key))
		return; /* a full table: asked again at the next submit */
	seen[0] = key;
	seen[1] = gen;
}

/* A submission made inside the current thread's io_uring_enter, that call
 * still in this CPU's slot (never off the CPU since its enter): room for
 * the call's combined record is taken in the staging area before the first
 * submission's record of each batch (a KATRA_EV_HOLE until sys_exit fills
 * it), so that record comes in key order before what the call stages, not
 * after it (user space then inserted it before them in its FIFO).  Only
 * where the exit writes a mid-sized record (mid_nrs, no flags), and where
 * this probe owns the CPU (the caller's `own`).  Returns the room for the
 * submission's own record, right after the place (one staging call for
 * both), or NULL: no place taken here (it is staged as any other record). */
static __always_inline void *place_call(__u32 cpu, __u64 pid_tgid, __u64 ts)
{
	struct katra_cpu_slot *p = PEND_SLOT(cpu);
	__u64 *w = PLACE_OF(cpu), enter = p->enter_ts;
	struct katra_ev_syscall_mid *h;
	__u32 off;

	if (!(p->state & KATRA_SLOT_ACTIVE) || p->tid != (__u32)pid_tgid ||
	    p->nr != KATRA_NR_IO_URING_ENTER || p->sc_flags ||
	    !(mid_nrs[KATRA_NR_IO_URING_ENTER >> 6] & (1ull << (KATRA_NR_IO_URING_ENTER & 63))))
		return NULL;
	if (w[0] && w[2] == enter && w[1] == STAGE_GEN(cpu))
		return NULL; /* taken in this batch already */
	/* room asked for a completion too, so that a batch leaving between the
	 * submission and the exit seldom makes the place a hole; it is given
	 * back, for the completion to take.  The batch's key is the enter's
	 * (before the submission's own) */
	off = katra_stage_room(cpu, sizeof(*h) + 2 * sizeof(struct katra_ev_uring_submit), 1,
			       enter, ts);
	STAGE_OF(cpu)->bytes = off + sizeof(*h) + sizeof(struct katra_ev_uring_submit);
	h = (void *)((__u8 *)STAGE_OF(cpu) + sizeof(struct katra_ev_batch) +
		     katra_bound(off, KATRA_STAGE_BYTES - 1));
	/* user space reads a hole's type alone (it skips its size); the exit
	 * that fills the place writes the whole head */
	h->head.type = KATRA_EV_HOLE;
	w[0] = off + 1;
	w[1] = STAGE_GEN(cpu);
	w[2] = enter;
	return h + 1;
}

/* btf: req is a BTF pointer (tp_btf: its fields are plain loads, not a
 * helper call each), else a raw one (raw_tp). */
static __always_inline int on_submit(struct io_kiocb *req, bool btf)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32, cpu;
	struct katra_ev_uring_submit *e, scratch;
	struct io_ring_ctx *ctx;
	__u64 ts, key;
	bool own;

	if (!katra_tracked(tgid))
		return 0;
	ctx = btf ? req->ctx : BPF_CORE_READ(req, ctx);
	key = (__u64)ctx;
	cpu = katra_busy_tp();
	known_ring(key, tgid, cpu);
	own = katra_owns_cpu(cpu);
	ts = bpf_ktime_get_ns();
	e = own ? place_call(cpu, pid_tgid, ts) : NULL;
	/* staged when this probe owns the CPU (common.bpf.h), else the ring */
	if (!e)
		e = katra_put(&scratch, cpu, own, sizeof(*e), 1, ts, ts);
	katra_head(&e->head, KATRA_EV_URING_SUBMIT, cpu, pid_tgid, ts);
	e->ctx = key;
	e->req = (__u64)req;
	if (btf && bpf_core_field_exists(req->cqe)) {
		e->user_data = req->cqe.user_data;
		e->req_flags = req->flags;
		e->opcode = req->opcode;
		e->sq_thread = ctx->flags & IORING_SETUP_SQPOLL_ ? 1 : 0;
	} else {
		e->user_data = katra_req_user_data(req);
		e->req_flags = BPF_CORE_READ(req, flags);
		e->opcode = BPF_CORE_READ(req, opcode);
		e->sq_thread = BPF_CORE_READ(ctx, flags) & IORING_SETUP_SQPOLL_ ? 1 : 0;
	}
	katra_put_done(e, cpu, own, sizeof(*e), 1);
	katra_idle_tp(cpu); /* a tracepoint's (never faultable) */
	return 0;
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(tpb_io_uring_submit_req, struct io_kiocb *req)
{
	return on_submit(req, true);
}

SEC("raw_tp/io_uring_submit_req")
int BPF_PROG(raw_io_uring_submit_req, struct io_kiocb *req)
{
	return on_submit(req, false);
}

/* Older kernels (6.1) name it io_uring_submit_sqe(req, force_nonblock) (the
 * loader keeps it only where submit_req is absent and its first argument is
 * the request; 5.10's submit_sqe has no request to pair on). */
SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(tpb_io_uring_submit_sqe, struct io_kiocb *req)
{
	return on_submit(req, true);
}

SEC("raw_tp/io_uring_submit_sqe")
int BPF_PROG(raw_io_uring_submit_sqe, struct io_kiocb *req)
{
	return on_submit(req, false);
}

static __always_inline int on_complete(const void *args, __u64 ctx, __u64 req, __u64 user_data, __s32 res,
				       __u32 cflags)
{
	/* the task once (one helper call): its ids and its stack are loads */
	struct task_struct *cur = have_task_btf ? bpf_get_current_task_btf() : NULL;
	__u64 pid_tgid = cur ? (__u64)cur->tgid << 32 | (__u32)cur->pid : bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32, owner, cpu, *o;
	struct katra_ev_uring_complete *e, scratch;
	/* a traced thread completing in its own context (an interrupt's
	 * completion is not the running thread's: t_uring_irq).  Not asked of
	 * the CPU slot (the thread inside its io_uring_enter), which would save
	 * the registers' load but is not exact: an enter whose exit was not
	 * seen (sys_exit is detached before sys_enter) stays there until the
	 * thread's next syscall or switch-out, and an interrupt taken from
	 * user space meanwhile would be blamed on the thread */
	bool mine = katra_tracked(tgid) &&
		    katra_in_task_of(cur ? (__u64)cur->stack : katra_current_stack(), args, true);
	bool own;
	__u64 ts;

	/* its own completion is written without the table (a hash lookup on
	 * every inline completion); the table says whose the others are */
	if (mine)
		owner = tgid;
	else if ((o = bpf_map_lookup_elem(&uring_ctxs, &ctx)))
		owner = *o;
	else
		return 0;
	cpu = katra_busy_tp();
	own = katra_owns_cpu(cpu);
	ts = bpf_ktime_get_ns();
	e = katra_put(&scratch, cpu, own, sizeof(*e), 1, ts, ts);
	/* completed in an untracked context (interrupt, another process): say
	 * "outside the traced set" rather than blame whoever was running */
	katra_head(&e->head, KATRA_EV_URING_COMPLETE, cpu, mine ? pid_tgid : 0, ts);
	e->ctx = ctx;
	e->req = req;
	e->user_data = user_data;
	e->res = res;
	e->cflags = cflags;
	e->owner_tgid = owner;
	e->pad = 0;
	katra_put_done(e, cpu, own, sizeof(*e), 1);
	katra_idle_tp(cpu); /* a tracepoint's (never faultable) */
	return 0;
}

/* io_uring_complete's arguments (the loader reads them from BTF):
 *   3: (ctx, req, cqe)                                      Linux 6.4+
 *   7: (ctx, req, user_data, res, cflags, extra1, extra2)   Linux 5.19 - 6.3
 *      (before the tracepoint took the CQE itself)
 *   other layouts (5.10: no request pointer to pair on): not loaded. */
static __always_inline int complete_args(__u64 *ctx, bool btf)
{
	if (uring_complete_args == 3) {
		struct io_uring_cqe *cqe = (void *)ctx[2];

		if (btf) /* a BTF pointer: plain loads */
			return on_complete(ctx, ctx[0], ctx[1], cqe->user_data, cqe->res,
					   cqe->flags);
		return on_complete(ctx, ctx[0], ctx[1], BPF_CORE_READ(cqe, user_data),
				   BPF_CORE_READ(cqe, res), BPF_CORE_READ(cqe, flags));
	}
	return on_complete(ctx, ctx[0], ctx[1], ctx[2], (__s32)ctx[3], (__u32)ctx[4]);
}

SEC("tp_btf/io_uring_complete")
int tpb_io_uring_complete(__u64 *ctx)
{
	return complete_args(ctx, true);
}

SEC("raw_tp/io_uring_complete")
int raw_io_uring_complete(__u64 *ctx)
{
	return complete_args(ctx, false);
}

/* io_uring_cqe_overflow(ctx, user_data, res, cflags, ocqe) (Linux 5.19+):
 * a completion that did not fit the CQ ring, posted instead of
 * io_uring_complete; ocqe is NULL when the kernel could not keep it. */
static __always_inline int overflow_args(__u64 *ctx)
{
	__u32 cflags = (__u32)ctx[3] | KATRA_URING_CQE_OVERFLOW;

	if (!ctx[4])
		cflags |= KATRA_URING_CQE_LOST;
	return on_complete(ctx, ctx[0], 0, ctx[1], (__s32)ctx[2], cflags);
}

SEC("tp_btf/io_uring_cqe_overflow")
int tpb_io_uring_cqe_overflow(__u64 *ctx)
{
	return overflow_args(ctx);
}

SEC("raw_tp/io_uring_cqe_overflow")
int raw_io_uring_cqe_overflow(__u64 *ctx)
{
	return overflow_args(ctx);
}

#endif /* KATRA_IO_URING_BPF_H */
