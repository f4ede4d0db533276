/* SPDX-License-Identifier: GPL-2.0-only */
/* Where a function of a PE32+ DLL gives control back to its caller, found
 * by decoding its code (capstone) within the ranges its exception directory
 * (.pdata) gives: every `ret`, and every jump out of those ranges (a tail
 * call, a cold part), unconditional or conditional (`je f`: a tail call
 * taken on a condition), followed into its target's range, except an
 * indirect one (a tail call through an import: jmp *__imp_X; through a
 * function pointer: jmp *0x18(%rax)), which is itself an exit (the call's
 * own work is done; its return value is the callee's).  An indirect jmp
 * through a switch's jump table is no exit: a register loaded from a table
 * whose address a RIP-relative lea gave (`lea T(%rip),%r8; movslq
 * (%r8,%rcx,4),%rax; add %r8,%rax; jmp *%rax`, or `jmp *(%r8,%rcx,8)`),
 * whose first entry's target is inside the function's own .pdata range
 * (the entries are read while they are: that range is decoded anyway).
 * Why: a uretprobe returns through a syscall trampoline (Linux 6.11), which
 * Wine's syscall user dispatch turns into a Windows system call in PE code,
 * and the program dies (SIGILL at the trampoline); a uprobe on the exits
 * needs no trampoline. */
#ifndef KATRA_RECORD_PEXITS_H
#define KATRA_RECORD_PEXITS_H

#include <stdint.h>

#include "winenames.h"

#define KATRA_PE_EXITS_MAX 32   /* exit sites of one function */
#define KATRA_PE_REGIONS_MAX 16 /* ranges followed (tail calls, cold parts) */

enum katra_pe_exit_kind { KATRA_PE_EXIT_RET = 0, KATRA_PE_EXIT_JMP = 1 };

struct katra_pe_exit {
	uint64_t off; /* the instruction's file offset */
	uint32_t kind;
};

/* The exits of the function at file offset fn_off: *n of them in out
 * (at most KATRA_PE_EXITS_MAX).  0, -ENOEXEC (no PE32+ file, or fn_off in
 * no section), -ENOENT (a range reached that .pdata does not cover, or code
 * that does not decode: the exits are unknown), -E2BIG (more exits, ranges
 * or bytes to decode than the bounds), -ENOMEM, -ELIBACC (no capstone to
 * load: it is opened at the first call). */
int katra_pe_exits(const struct katra_blob *dll, uint64_t fn_off, struct katra_pe_exit *out,
		   uint32_t *n);
/* The same, and *work: the bytes decoded and jump table entries read, at
 * most KATRA_PE_DECODE_MAX (capstone decodes about 2.5 MiB a second). */
int katra_pe_exits_counted(const struct katra_blob *dll, uint64_t fn_off,
			   struct katra_pe_exit *out, uint32_t *n, uint64_t *work);
#define KATRA_PE_DECODE_MAX (256u << 10)

#endif
