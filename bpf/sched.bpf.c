// SPDX-License-Identifier: GPL-2.0-only
/* Scheduler and process lifecycle: sched_switch, sched_waking,
 * sched_wakeup_new, sched_process_fork / exec / exit.  Each probe has a tp_btf
 * and a raw_tp flavour; the loader turns one of them off before load. */
#include "common.bpf.h"
#include "stacks.bpf.h"

const volatile bool record_stacks;
const volatile __u64 stack_threshold_ns;
const volatile __u32 wine_frame_fallback = KATRA_WINE_TEB_SYSCALL_FRAME;
const volatile __u64 stack_wakeup_bytes = 1 << 22;
__u64 stack_drops[2];

/* btf: next is a trusted pointer (tp_btf: direct loads, no helper calls, on
 * the hottest unfiltered probe), else raw (raw_tp). */
static __always_inline int on_switch(void *ctx, bool preempt, struct task_struct *next, __u64 prev_state,
				     bool btf)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(); /* current == prev */
	__u32 next_tgid = btf ? next->tgid : BPF_CORE_READ(next, tgid);
	struct katra_ev_switch *e, scratch;
	__u32 flags = 0, cpu, nevents;
	bool own;
	__u64 ts;

	if (pid_tgid >> 32 && katra_tracked(pid_tgid >> 32))
		flags |= KATRA_SW_PREV_TRACKED;
	if (next_tgid && katra_tracked(next_tgid))
		flags |= KATRA_SW_NEXT_TRACKED;
	if (!flags)
		return 0;
	if (!record_sched) {
		/* -e without sched: here only to flush what the leaving thread
		 * has in progress; without it, nothing to mark or time */
		struct katra_cpu_slot *s;

		if (!(flags & KATRA_SW_PREV_TRACKED))
			return 0;
		cpu = bpf_get_smp_processor_id();
		if (cpu >= KATRA_MAX_CPUS)
			return 0;
		s = PEND_SLOT(cpu);
		if (!((s->state & KATRA_SLOT_ACTIVE) && s->tid == (__u32)pid_tgid) &&
		    !(fault_exit_live && s->fault_ts) && !STAGE_OF(cpu)->bytes)
			return 0;
	}
	cpu = katra_busy_tp();
	own = katra_owns_cpu(cpu);
	ts = bpf_ktime_get_ns();
	/* --stacks: the same ts as the switch record (the OffCpu Begin's) */
	if (record_stacks && record_sched)
		katra_stacks_switch(ctx, pid_tgid, btf ? next->pid : BPF_CORE_READ(next, pid),
				    flags | ((prev_state & 0x80) ? KATRA_STACK_PREV_DEAD : 0), ts);
	/* one event per tracked side: the leaving thread's and the coming one's;
	 * staged (the batch goes out below unless a traced thread comes in) */
	if (record_sched) { /* -e without sched: here only for the flushes below */
		nevents = !!(flags & KATRA_SW_PREV_TRACKED) + !!(flags & KATRA_SW_NEXT_TRACKED);
		e = katra_put(&scratch, cpu, own, sizeof(*e), nevents, ts, ts);
		katra_head(&e->head, KATRA_EV_SWITCH, cpu, pid_tgid, ts);
		e->prev_state = prev_state;
		e->next_tgid = next_tgid;
		e->next_tid = btf ? next->pid : BPF_CORE_READ(next, pid);
		e->flags = flags | (preempt ? KATRA_SW_PREEMPT : 0);
		e->pad = 0;
		katra_put_done(e, cpu, own, sizeof(*e), nevents);
	}
	/* a syscall or a fault in progress: its Begin must not wait for the
	 * thread's return.  After the switch's record, not before: each of
	 * these forks the verifier's paths (own or not, kept with the thread or
	 * in the table), and what follows a fork is verified once a path (user
	 * space sorts a ring's records by key, not by their place in it) */
	if (flags & KATRA_SW_PREV_TRACKED) {
		katra_flush_fault_begin(cpu, pid_tgid, ts);
		katra_flush_pending(pid_tgid, cpu, own, ts);
	}
	/* what this CPU staged goes into the ring when the CPU goes idle or to
	 * a thread not traced: nothing of ours may run there to flush it.  A
	 * traced thread coming in keeps staging (a batch a switch, in a
	 * ping-pong between two traced threads, was a ring record per switch);
	 * its batch goes out when full, at age KATRA_STAGE_AGE_NS, or on user
	 * space's request when it holds the watermark back */
	if (own && !(flags & KATRA_SW_NEXT_TRACKED))
		katra_stage_flush(cpu);
	katra_idle_tp(cpu); /* a tracepoint's */
	return 0;
}

/* prev_state became an argument in Linux 5.18 (the commit "sched/tracing:
 * Don't re-read p->state when emitting sched_switch event"); before, the
 * task's state is read (as that tracepoint did). */
static __always_inline __u64 switch_prev_state(__u64 *ctx, struct task_struct *prev)
{
	if (switch_has_prev_state)
		return (unsigned int)ctx[3];
	return katra_task_state(prev);
}

SEC("tp_btf/sched_switch")
int tpb_sched_switch(__u64 *ctx)
{
	struct task_struct *prev = (void *)ctx[1], *next = (void *)ctx[2];

	return on_switch(ctx, (bool)ctx[0], next, switch_prev_state(ctx, prev), true);
}

SEC("raw_tp/sched_switch")
int raw_sched_switch(__u64 *ctx)
{
	struct task_struct *prev = (void *)ctx[1], *next = (void *)ctx[2];

	return on_switch(ctx, (bool)ctx[0], next, switch_prev_state(ctx, prev), false);
}

/* args: the tracepoint's (the probe's ctx), which tell interrupt context */
static __always_inline int on_waking(const void *args, struct task_struct *t, __u32 wk_flags,
				     bool btf)
{
	__u32 tgid = btf ? t->tgid : BPF_CORE_READ(t, tgid);
	struct katra_ev_waking *e, scratch;
	__u32 cpu;
	bool own;
	__u64 ts;

	if (!katra_tracked(tgid))
		return 0;
	cpu = katra_busy_tp();
	own = katra_owns_cpu(cpu);
	ts = bpf_ktime_get_ns();
	/* staged when this probe owns the CPU (a wakeup from task context, or
	 * from an interrupt that hit no probe), else into the ring now */
	e = katra_put(&scratch, cpu, own, sizeof(*e), 1, ts, ts);
	/* an untracked waker, or an interrupt (a timer, an I/O completion) that
	 * hit whichever thread was running, is written as 0: "outside the
	 * traced set", never the bystander.  An interrupt is flagged; an
	 * untracked task that woke it in its own context is named by its ids
	 * and its process's name */
	__u64 waker = bpf_get_current_pid_tgid();
	bool tracked = katra_tracked(waker >> 32);
	e->out_tgid = e->out_tid = 0;
	if (!katra_in_task(args)) {
		wk_flags |= KATRA_WK_INTERRUPT;
		waker = 0;
	} else if (!tracked) {
		struct task_struct *cur = (void *)bpf_get_current_task();
		struct task_struct *leader = BPF_CORE_READ(cur, group_leader);

		e->out_tgid = waker >> 32;
		e->out_tid = (__u32)waker;
		bpf_core_read(e->out_comm, sizeof(e->out_comm), &leader->comm);
		waker = 0;
	}
	katra_head(&e->head, KATRA_EV_WAKING, cpu, waker, ts);
	e->target_tgid = tgid;
	e->target_tid = btf ? t->pid : BPF_CORE_READ(t, pid);
	/* a BTF task: a plain load where the field is in thread_info (5.16) */
	e->target_cpu = btf && bpf_core_field_exists(t->thread_info.cpu) ? t->thread_info.cpu
									 : katra_task_cpu(t);
	e->flags = wk_flags;
	katra_put_done(e, cpu, own, sizeof(*e), 1);
	katra_idle_tp(cpu); /* a tracepoint's */
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(tpb_sched_waking, struct task_struct *t)
{
	return on_waking(ctx, t, 0, true);
}

SEC("raw_tp/sched_waking")
int BPF_PROG(raw_sched_waking, struct task_struct *t)
{
	return on_waking(ctx, t, 0, false);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(tpb_sched_wakeup_new, struct task_struct *t)
{
	return on_waking(ctx, t, KATRA_WK_NEW, true);
}

SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(raw_sched_wakeup_new, struct task_struct *t)
{
	return on_waking(ctx, t, KATRA_WK_NEW, false);
}

static __always_inline int on_fork(struct task_struct *child)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid(); /* current == parent */
	__u32 child_tgid = BPF_CORE_READ(child, tgid);
	__u32 ptgid = pid_tgid >> 32, flags = 0, cpu;
	struct katra_ev_fork *e;
	__u64 ts;
	void *rb;

	if (!katra_tracked(ptgid))
		return 0;
	if (child_tgid == ptgid) {
		flags = KATRA_FORK_THREAD | KATRA_FORK_TRACKED;
	} else if (follow_children) {
		/* before the record: the child's first event is tracked */
		katra_set_tracked(child_tgid, true);
		flags = KATRA_FORK_TRACKED;
	}
	cpu = katra_busy_tp();
	ts = bpf_ktime_get_ns();
	e = katra_reserve(&rb, cpu, sizeof(*e), 1);
	if (e) {
		katra_head(&e->head, KATRA_EV_FORK, cpu, pid_tgid, ts);
		e->child_tgid = child_tgid;
		e->child_tid = BPF_CORE_READ(child, pid);
		e->flags = flags;
		e->pad = 0;
		bpf_get_current_comm(e->comm, sizeof(e->comm));
		katra_submit(rb, e, cpu);
	}
	katra_idle_tp(cpu); /* a tracepoint's */
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(tpb_sched_process_fork, struct task_struct *parent, struct task_struct *child)
{
	return on_fork(child);
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(raw_sched_process_fork, struct task_struct *parent, struct task_struct *child)
{
	return on_fork(child);
}

/* A non-leader thread that execs becomes the leader (it takes the tgid as its
 * tid, the kernel's de_thread): its pending execve moves to the new tid, so
 * its exit finds it. */
static __always_inline void move_pending(__u32 cpu, __u64 pid_tgid, __u32 old_tid, __u64 ts)
{
	struct katra_cpu_slot *f;
	__u32 tid = pid_tgid;

	/* its Begin goes out now, under the id it had when it entered (user space
	 * ends that span at the exec); its exit then finds it under the new id */
	katra_flush_pending((pid_tgid & ~0xffffffffull) | old_tid, cpu, false, ts);
	f = bpf_map_lookup_elem(&flushed, &old_tid);
	if (f) {
		katra_map_put(&flushed, &tid, f, BPF_ANY, KTABLE_SYSCALLS);
		bpf_map_delete_elem(&flushed, &old_tid);
	}
}

static __always_inline int on_exec(__u32 old_tid)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct katra_ev_exec *e;
	__u32 cpu;
	__u64 ts;
	void *rb;

	if (!katra_tracked(pid_tgid >> 32))
		return 0;
	cpu = katra_busy_tp();
	if (cpu >= KATRA_MAX_CPUS)
		return 0;
	ts = bpf_ktime_get_ns();
	if (old_tid != (__u32)pid_tgid)
		move_pending(cpu, pid_tgid, old_tid, ts);
	e = katra_reserve(&rb, cpu, sizeof(*e), 1);
	if (e) {
		katra_head(&e->head, KATRA_EV_EXEC, cpu, pid_tgid, ts);
		e->old_tid = old_tid;
		e->pad = 0;
		bpf_get_current_comm(e->comm, sizeof(e->comm));
		katra_submit(rb, e, cpu);
	}
	katra_idle_tp(cpu); /* a tracepoint's */
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(tpb_sched_process_exec, struct task_struct *p, pid_t old_pid)
{
	return on_exec(old_pid);
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(raw_sched_process_exec, struct task_struct *p, pid_t old_pid)
{
	return on_exec(old_pid);
}

/* The exiting task is current.  A pending exit/exit_group enter is flushed
 * here.  The tgid stays tracked (user space untracks it after reading the
 * group_dead record), so every thread's exit is seen. */
static __always_inline int on_exit(struct task_struct *t, bool group_dead)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32, tid = pid_tgid, cpu;
	struct katra_ev_exit *e;
	__u64 ts;
	void *rb;

	if (!katra_tracked(tgid))
		return 0;
	cpu = katra_busy_tp();
	ts = bpf_ktime_get_ns();
	katra_flush_pending(pid_tgid, cpu, false, ts);
	katra_flush_fault(cpu, pid_tgid, ts); /* e.g. the fault that killed it */
	e = katra_reserve(&rb, cpu, sizeof(*e), 1);
	if (e) {
		katra_head(&e->head, KATRA_EV_EXIT, cpu, pid_tgid, ts);
		e->exit_code = BPF_CORE_READ(t, exit_code);
		e->flags = group_dead ? KATRA_EXIT_GROUP_DEAD : 0;
		katra_submit(rb, e, cpu);
	}
	/* a thread killed while blocked in a syscall never exits it */
	bpf_map_delete_elem(&flushed, &tid);
	katra_idle_tp(cpu); /* a tracepoint's */
	return 0;
}

/* group_dead is a tracepoint argument since Linux 6.16 (commit "sched: Add
 * group_dead to the sched_process_exit tracepoint"); before, signal->live
 * read here can already be 0 for two threads exiting at once.  The loader
 * sets exit_has_group_dead from BTF, so the ctx[1] read is dead code (never
 * verified) on older kernels. */
static __always_inline bool exit_group_dead(__u64 *ctx, struct task_struct *t)
{
	if (exit_has_group_dead)
		return (bool)ctx[1];
	return BPF_CORE_READ(t, signal, live.counter) == 0;
}

SEC("tp_btf/sched_process_exit")
int tpb_sched_process_exit(__u64 *ctx)
{
	struct task_struct *t = (struct task_struct *)ctx[0];

	return on_exit(t, exit_group_dead(ctx, t));
}

SEC("raw_tp/sched_process_exit")
int raw_sched_process_exit(__u64 *ctx)
{
	struct task_struct *t = (struct task_struct *)ctx[0];

	return on_exit(t, exit_group_dead(ctx, t));
}
