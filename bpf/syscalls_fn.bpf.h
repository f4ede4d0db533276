/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-syscall attach for -e: fentry/fexit programs on the __x64_sys_*
 * function of each selected syscall, so an unselected syscall runs no probe
 * at all (the raw tracepoints put every syscall of every task on the
 * tracepoint slow path).  The bodies are syscalls.bpf.c's own: the same
 * slot, flush and record logic, so the records mean the same.  The loader
 * retargets these two programs to the first selected function and loads one
 * copy of each per other function (user/record/kernel/probes_fn.c); the
 * syscall number comes from the user registers' orig_ax, as on the raw
 * tracepoints.  32-bit (int $0x80) calls enter through __ia32_sys_* and are
 * not seen here.  Included at the end of syscalls.bpf.c: one object (two
 * objects using the same weak kfunc do not link with bpftool 7.1).
 * fentry/fexit programs run with migration off but, unlike the tracepoint
 * and kprobe ones, preemptible: on a kernel with full preemption a switch
 * in the middle of one could meet a half-written CPU slot.  Debian's
 * kernels (voluntary preemption) never preempt BPF code; a full-preemption
 * kernel would want bpf_preempt_disable() (6.10) here. */

/* the target is a placeholder: the loader sets the real one before load */
SEC("fentry/__x64_sys_getpid")
int BPF_PROG(fn_sys_enter, struct pt_regs *regs)
{
	return sys_enter(regs, regs->orig_ax, true, false);
}

SEC("fexit/__x64_sys_getpid")
int BPF_PROG(fn_sys_exit, struct pt_regs *regs, long ret)
{
	return sys_exit(regs, ret, true, false);
}

/* A new thread or process returns from clone/fork through ret_from_fork,
 * never through the function's fexit: its return (0, no enter here) is
 * written as the child's sys_exit tracepoint writes it.  schedule_tail is
 * the first thing every new task runs; io_uring workers and kernel threads
 * (no user syscall: orig_ax is none of these) are let go. */
#define NR_clone_ 56
#define NR_fork_  57
#define NR_vfork_ 58
SEC("fentry/schedule_tail")
int BPF_PROG(fn_child_return, struct task_struct *prev)
{
	struct pt_regs *regs = (struct pt_regs *)katra_user_regs(katra_current_stack());
	long nr = BPF_CORE_READ(regs, orig_ax);

	if (nr != NR_clone_ && nr != NR_fork_ && nr != NR_vfork_ && nr != NR_clone3)
		return 0;
	return sys_exit(regs, 0, false, false);
}

/* Kprobes for a selected syscall whose function the kernel's BTF lacks
 * (SYSCALL_DEFINE0 ones such as fork, vfork, rt_sigreturn): the wrapper's
 * argument is the user registers; at the return they are the task's own. */
SEC("kprobe")
int BPF_KPROBE(kp_sys_enter, struct pt_regs *regs)
{
	return sys_enter(regs, BPF_CORE_READ(regs, orig_ax), false, false);
}

SEC("kretprobe")
int BPF_KRETPROBE(kp_sys_exit, long ret)
{
	return sys_exit((struct pt_regs *)katra_user_regs(katra_current_stack()), ret, false, false);
}
