/* SPDX-License-Identifier: GPL-2.0-only */
/* Whether the running kernel never preempts kernel code (preemption model
 * none or voluntary).  Then a tracepoint's BPF program cannot be preempted
 * between two of its instructions on any kernel version: syscall tracepoints
 * became faultable in Linux 6.13, and a kernel may run their programs with
 * preemption on (bpf/common.bpf.h, katra_idle_tp, says what depends on it). */
#ifndef KATRA_RECORD_KERNEL_PREEMPT_H
#define KATRA_RECORD_KERNEL_PREEMPT_H

#include <stdbool.h>

/* From what the kernel says of itself, each NULL where unreadable:
 * debugfs_preempt: /sys/kernel/debug/sched/preempt ("none (voluntary) full
 * lazy": the current model in parentheses); uname_version: uname -v
 * ("PREEMPT", "PREEMPT_RT", "PREEMPT_LAZY", "PREEMPT_DYNAMIC" or none of
 * them: none or voluntary); cmdline: /proc/cmdline (preempt=); config: the
 * kernel's build configuration (its default model).  Unknown: false. */
bool katra_preempt_never(const char *debugfs_preempt, const char *uname_version,
			 const char *cmdline, const char *config);

/* The same for this kernel, its files read. */
bool katra_kernel_preempt_never(void);

#endif
