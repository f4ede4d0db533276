/* SPDX-License-Identifier: GPL-2.0-only */
/* Names for the numbers a trace carries: syscall numbers (x86_64 and i386
 * tables generated from the kernel headers: syscall_table_x86_64.c and
 * syscall_table_i386.c beside this file), task states (SwitchPayload.prev_state) and errno values. */
#ifndef KATRA_REPLAY_SYSNAMES_H
#define KATRA_REPLAY_SYSNAMES_H

#include <stdint.h>

/* SyscallPayload.nr / SyscallReturnPayload.nr: bit 31 marks a syscall made
 * through the i386 ABI (int 0x80 or a 32-bit process); 0xffffffff is a
 * number the probe could not read. */
#define KR_NR_I386 0x80000000u
#define KR_NR_UNKNOWN 0xffffffffu
#define KR_SYSNAME_BUF 32

extern const char *const kr_syscalls_x86_64[];
extern const unsigned kr_syscalls_x86_64_len;
extern const char *const kr_syscalls_i386[];
extern const unsigned kr_syscalls_i386_len;

/* "read"; "i386:read" for the i386 table; "unknown" for 0xffffffff;
 * "syscall_N" ("i386:syscall_N") for a number the tables do not name.
 * Returns a constant or buf. */
const char *kr_syscall_name(uint32_t nr, char buf[KR_SYSNAME_BUF]);

/* A task state as the kernel's __task_state_index() reports it (what ps and
 * the sched_switch tracepoint's text print), from the raw task->__state that
 * SwitchPayload.prev_state holds:
 *   'R' 0 (runnable: the thread was preempted), 'S' TASK_INTERRUPTIBLE,
 *   'D' TASK_UNINTERRUPTIBLE (also with WAKEKILL = killable, FREEZABLE...),
 *   'T' stopped, 't' traced, 'X' dead (EXIT_DEAD or TASK_DEAD), 'Z' zombie,
 *   'P' parked, 'I' idle (TASK_IDLE = D|NOLOAD, a kernel thread's wait).
 * The low 7 bits of the raw state are the report bits; higher bits are
 * modifiers (0x100 WAKEKILL, 0x400 NOLOAD, 0x2000 FREEZABLE...), so 0x102
 * (TASK_KILLABLE) is 'D'.  Unlike the tracepoint's text, 0x80 is TASK_DEAD
 * here, not the report encoding's 'I'. */
char kr_task_state(uint64_t prev_state);
/* "preempted", "sleeping", "uninterruptible", "stopped", "traced", "dead",
 * "zombie", "parked", "idle"; "?" for anything else. */
const char *kr_task_state_word(char state);

/* "ENOENT" for 2, NULL when the number has no name. */
const char *kr_errno_name(int64_t e);

#endif
