// SPDX-License-Identifier: GPL-2.0-only
/* task:task_rename of tracked threads: prctl(PR_SET_NAME), a write to
 * /proc/PID/task/TID/comm (pthread_setname_np, Wine's SetThreadDescription),
 * but not an exec's new name (sched_process_exec carries that one). */
#include "common.bpf.h"

/* An exec renames the task while it holds its signal->cred_guard_mutex (from
 * prepare_bprm_creds to setup_new_exec, around begin_new_exec's
 * __set_task_comm); prctl and /proc comm writes do not take it.  The owner
 * word is the task pointer with flag bits in its low three bits. */
static __always_inline bool in_exec(struct task_struct *cur)
{
	long owner;

	/* PREEMPT_RT's mutex is an rt_mutex (no owner word here): its exec
	 * renames are then written too */
	if (!bpf_core_field_exists(cur->signal->cred_guard_mutex.owner))
		return false;
	owner = BPF_CORE_READ(cur, signal, cred_guard_mutex.owner.counter);
	return (owner & ~0x07L) == (long)cur;
}

static __always_inline int on_rename(struct task_struct *task, const char *comm, bool btf)
{
	__u32 tgid = btf ? task->tgid : BPF_CORE_READ(task, tgid);
	struct task_struct *cur = (void *)bpf_get_current_task();
	struct katra_ev_task_rename *e;
	__u32 cpu;
	__u64 ts;
	void *rb;

	if (!katra_tracked(tgid) || in_exec(cur))
		return 0;
	cpu = katra_busy_tp();
	ts = bpf_ktime_get_ns();
	e = katra_reserve(&rb, cpu, sizeof(*e), 1);
	if (!e)
		goto out;
	katra_head(&e->head, KATRA_EV_TASK_RENAME, cpu, bpf_get_current_pid_tgid(), ts);
	e->tid = btf ? task->pid : BPF_CORE_READ(task, pid);
	e->pad = 0;
	if (bpf_probe_read_kernel_str(e->comm, sizeof(e->comm), comm) < 0)
		e->comm[0] = 0;
	katra_submit(rb, e, cpu);
out:
	katra_idle_tp(cpu); /* a tracepoint's */
	return 0;
}

SEC("tp_btf/task_rename")
int BPF_PROG(tpb_task_rename, struct task_struct *task, const char *comm)
{
	return on_rename(task, comm, true);
}

SEC("raw_tp/task_rename")
int BPF_PROG(raw_task_rename, struct task_struct *task, const char *comm)
{
	return on_rename(task, comm, false);
}
