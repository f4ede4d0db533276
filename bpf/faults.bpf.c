// SPDX-License-Identifier: GPL-2.0-only
/* exceptions:page_fault_user of tracked threads, measured to the return of
 * handle_mm_fault where fexit attaches (see katra_ev_page_fault in wire.h). */
#include "common.bpf.h"

static __always_inline int on_fault(__u64 address, __u64 ip, __u64 error_code)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct fault_start start = { 0 };
	__u32 tid = pid_tgid;
	__u64 ts;

	__u32 cpu;

	if (!katra_tracked(pid_tgid >> 32))
		return 0;
	cpu = katra_busy_tp();
	ts = bpf_ktime_get_ns();
	start.ts = ts;
	start.address = address;
	start.ip = ip;
	start.error_code = error_code;
	if (!fault_exit_live) { /* an instant, staged where this probe owns the CPU */
		katra_emit_fault(cpu, katra_owns_cpu(cpu), pid_tgid, &start, ts, 0);
		goto out;
	}
	/* this thread's previous fault never reached handle_mm_fault's return */
	katra_flush_fault(cpu, pid_tgid, ts);
	/* a full table: the fault is written now, as an instant */
	if (katra_map_put(&fault_starts, &tid, &start, BPF_ANY, KTABLE_FAULTS))
		katra_emit_fault(cpu, false, pid_tgid, &start, ts, 0);
	else if (cpu < KATRA_MAX_CPUS)
		katra_fault_pending(cpu, ts); /* the watermark waits for its Begin */
out:
	katra_idle_tp(cpu); /* a tracepoint's */
	return 0;
}

SEC("tp_btf/page_fault_user")
int BPF_PROG(tpb_page_fault_user, unsigned long address, struct pt_regs *regs,
	     unsigned long error_code)
{
	return on_fault(address, regs->ip, error_code);
}

SEC("raw_tp/page_fault_user")
int BPF_PROG(raw_page_fault_user, unsigned long address, struct pt_regs *regs,
	     unsigned long error_code)
{
	return on_fault(address, BPF_CORE_READ(regs, ip), error_code);
}

/* regs is NULL when handle_mm_fault runs for get_user_pages, not a fault. */
SEC("fexit/handle_mm_fault")
int BPF_PROG(fx_handle_mm_fault, struct vm_area_struct *vma, unsigned long address,
	     unsigned int flags, struct pt_regs *regs, vm_fault_t ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct fault_start *start;
	__u32 tid = pid_tgid;

	__u32 cpu;

	if (!regs || !katra_tracked(pid_tgid >> 32))
		return 0;
	start = bpf_map_lookup_elem(&fault_starts, &tid);
	if (!start || start->address != address)
		return 0;
	cpu = katra_busy();
	katra_emit_fault(cpu, false, pid_tgid, start, bpf_ktime_get_ns(),
			 start->flushed ? KATRA_PF_END : KATRA_PF_MEASURED);
	bpf_map_delete_elem(&fault_starts, &tid);
	katra_idle(cpu);
	return 0;
}

/* The kernel refuses a fault by queueing SIGSEGV or SIGBUS to the faulting
 * thread itself (force_sig_fault): that is where the fault ends.  Still
 * pending (the thread stayed on its CPU): an instant at its own time.  Its
 * Begin written at a switch-out (preempted, or waiting for the mmap lock,
 * inside the kernel's handling before the refusal): the End now, so that the
 * span holds the fault's own time and never what the thread does next (its
 * signal handler, the syscall after it).  A fault pending at a syscall was
 * settled there, so a pending one here is the fault this signal refuses. */
#define KATRA_SIGBUS  7
#define KATRA_SIGSEGV 11

static __always_inline int on_signal(int sig, __u32 task_tid)
{
	__u64 pid_tgid;
	__u32 cpu;

	if ((sig != KATRA_SIGSEGV && sig != KATRA_SIGBUS) || !fault_exit_live)
		return 0;
	pid_tgid = bpf_get_current_pid_tgid();
	if ((__u32)pid_tgid != task_tid || !katra_tracked(pid_tgid >> 32))
		return 0;
	cpu = katra_busy_tp();
	katra_flush_fault(cpu, pid_tgid, bpf_ktime_get_ns());
	katra_idle_tp(cpu);
	return 0;
}

SEC("tp_btf/signal_generate")
int BPF_PROG(tpb_signal_generate, int sig, struct kernel_siginfo *info, struct task_struct *task,
	     int group, int result)
{
	return on_signal(sig, task->pid);
}

SEC("raw_tp/signal_generate")
int BPF_PROG(raw_signal_generate, int sig, struct kernel_siginfo *info, struct task_struct *task,
	     int group, int result)
{
	return on_signal(sig, BPF_CORE_READ(task, pid));
}
