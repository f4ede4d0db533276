/* SPDX-License-Identifier: GPL-2.0-only */
/* Reads whose place changed between kernels, one helper per difference (in
 * the style of libbpf-tools' core_fixes.bpf.h).  Each names the kernel change;
 * the `___old` flavours are the layouts before it.  bpf_core_field_exists()
 * is resolved at load time, so the branch not taken is dead code and never
 * verified. */
#ifndef KATRA_CORE_FIXES_BPF_H
#define KATRA_CORE_FIXES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>

/* task_struct::state became __state in Linux 5.14 (commit 2f064a59a11f,
 * "sched: Change task_struct::state"). */
struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

static __always_inline __u64 katra_task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___old *)t, state);
}

/* The CPU of a task: thread_info.cpu on x86 since Linux 5.16 (the commit
 * "sched: move CPU field back into thread_info if THREAD_INFO_IN_TASK=y"),
 * task_struct::cpu before. */
struct task_struct___cpu_old {
	unsigned int cpu;
} __attribute__((preserve_access_index));

static __always_inline __u32 katra_task_cpu(struct task_struct *t)
{
	if (bpf_core_field_exists(t->thread_info.cpu))
		return BPF_CORE_READ(t, thread_info.cpu);
	return BPF_CORE_READ((struct task_struct___cpu_old *)t, cpu);
}

/* io_kiocb::user_data moved into io_kiocb::cqe (struct io_cqe) in Linux 5.19
 * (the io_uring CQE rework of that release, for big CQEs). */
struct io_kiocb___old {
	__u64 user_data;
} __attribute__((preserve_access_index));

static __always_inline __u64 katra_req_user_data(struct io_kiocb *req)
{
	if (bpf_core_field_exists(req->cqe))
		return BPF_CORE_READ(req, cqe.user_data);
	return BPF_CORE_READ((struct io_kiocb___old *)req, user_data);
}

#endif
