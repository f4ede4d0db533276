/* SPDX-License-Identifier: GPL-2.0-only
 * Windows x64 (PE32+) call stacks, unwound after the capture from a thread's
 * registers and a copy of its stack: the exception directory's (.pdata)
 * RUNTIME_FUNCTION found by binary search, its UNWIND_INFO (versions 1 and
 * 2, every UWOP code, chained entries, frame registers) undone, epilogues
 * recognised by their code (version 1) or their list (version 2), and a
 * function without .pdata taken as a leaf (its return address at [rsp]).
 * Every byte read is bounds-checked (the PE and the stack are the traced
 * program's); a walk is linear and capped.  No libbpf, no libelf, no
 * allocation while unwinding.  Functions return 0 or -errno. */
#ifndef KATRA_RECORD_PEUNWIND_H
#define KATRA_RECORD_PEUNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pe/pe.h"
#include "pe/pesymtab.h"

#define KATRA_PEU_MAX_FRAMES 128
#define KATRA_PEU_CHAIN_MAX 32 /* chained UNWIND_INFO followed per frame */

/* A PE image the unwinder reads: either the file (rva through its sections,
 * the bytes the loader would copy) or the bytes as mapped (rva = offset). */
struct katra_peu_image {
	const struct katra_blob *file; /* the file, or NULL */
	struct katra_pe pe;            /* its headers (file: sections) */
	const uint8_t *mapped;         /* the image as mapped, or NULL */
	size_t mapped_len;
	uint64_t base;       /* where the process loaded it */
	uint32_t size;       /* SizeOfImage */
	uint32_t pdata_rva;  /* the exception directory */
	uint32_t npdata;     /* its RUNTIME_FUNCTION entries */
};

/* From the file b (kept, not copied): 0, -ENOEXEC (no PE32+ x64 file). */
int katra_peu_image_file(const struct katra_blob *b, uint64_t base, struct katra_peu_image *img);
/* From the bytes as mapped (kept, not copied): the same. */
int katra_peu_image_mapped(const uint8_t *p, size_t len, uint64_t base,
			   struct katra_peu_image *img);
/* len bytes at rva, or NULL when any of them is outside the image's bytes */
const uint8_t *katra_peu_bytes(const struct katra_peu_image *img, uint32_t rva, uint32_t len);

/* The .pdata entry holding rva: its begin, end and UNWIND_INFO rva (an
 * indirect entry followed, once).  false when none does. */
bool katra_peu_lookup(const struct katra_peu_image *img, uint32_t rva, uint32_t *begin,
		      uint32_t *end, uint32_t *info);

/* Registers in UWOP order: rax rcx rdx rbx rsp rbp rsi rdi r8..r15 */
enum { KATRA_PEU_RSP = 4, KATRA_PEU_RBP = 5 };
struct katra_peu_regs {
	uint64_t r[16];
	uint64_t rip;
	uint16_t known; /* bit i: r[i] holds the thread's value */
};

/* From the kernel's x86_64 struct pt_regs as is (21 words: r15 r14 r13
 * r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_ax rip cs eflags rsp
 * ss, what a BPF program copies from task_pt_regs): every register known */
void katra_peu_regs_from_pt(const uint64_t pt[21], struct katra_peu_regs *r);

/* The copy of the stack: bytes [sp, sp + len) */
struct katra_peu_stack {
	uint64_t sp;
	const uint8_t *bytes;
	size_t len;
};

/* How one frame was undone */
enum katra_peu_how {
	KATRA_PEU_UNWOUND = 0, /* by its UNWIND_INFO */
	KATRA_PEU_EPILOG = 1,  /* inside an epilogue: by the epilogue's code */
	KATRA_PEU_LEAF = 2,    /* no .pdata entry: the return address at [rsp] */
};

/* Why a walk stopped */
enum katra_peu_stop {
	KATRA_PEU_END = 0,        /* a return address of 0: the outermost frame */
	KATRA_PEU_NO_MODULE = 1,  /* a pc in no image given: unknown code */
	KATRA_PEU_OUT_OF_STACK = 2, /* a read outside the copy: truncated */
	KATRA_PEU_BAD_INFO = 3,   /* UNWIND_INFO unreadable or unknown */
	KATRA_PEU_NO_PROGRESS = 4, /* rsp did not grow: a loop refused */
	KATRA_PEU_TOO_DEEP = 5,   /* KATRA_PEU_MAX_FRAMES reached */
};

/* One step: regs (the frame at regs->rip, in img) becomes its caller's.
 * caller: regs->rip is a return address (every frame but the first): its
 * function is looked up at rip - 1 (a call that is its function's last
 * instruction returns past the function's end).  0, or -ENOENT (a read
 * outside the copy), -EINVAL (bad UNWIND_INFO, a register not known). */
int katra_peu_step(const struct katra_peu_image *img, const struct katra_peu_stack *st,
		   bool caller, struct katra_peu_regs *regs, enum katra_peu_how *how);

struct katra_peu_frame {
	uint64_t pc;     /* the frame's pc (a caller's: its return address;
			  * its call is at pc - 1, what to symbolise) */
	uint32_t module; /* index in the images given, or UINT32_MAX */
	uint32_t how;    /* enum katra_peu_how: how this frame was left */
};

/* Walks from regs through images[0..nimg) (any order) and st: frames
 * innermost first, at most max (<= KATRA_PEU_MAX_FRAMES); *stop says why
 * the walk ended; anything but KATRA_PEU_END is a truncated stack.
 * Returns the number of frames. */
uint32_t katra_peu_walk(const struct katra_peu_image *images, uint32_t nimg,
			const struct katra_peu_stack *st, const struct katra_peu_regs *regs,
			struct katra_peu_frame *out, uint32_t max, enum katra_peu_stop *stop);

/* ---- epilogues (peepilog.c) ---- */

/* Version 1: true when the code at rva, inside the function [begin, end),
 * is the rest of an epilogue (add/lea rsp, pops, then ret, or a jmp out of
 * the function after one of those, or an indirect jmp through memory). */
bool katra_peu_in_epilog(const struct katra_peu_image *img, uint32_t rva, uint32_t begin,
			 uint32_t end, uint32_t frame_reg);
/* Runs that epilogue on regs (from the copy); 0, -ENOENT, -EINVAL. */
int katra_peu_run_epilog(const struct katra_peu_image *img, const struct katra_peu_stack *st,
			 uint32_t rva, uint32_t begin, uint32_t end, struct katra_peu_regs *regs);
/* 8 bytes of the copy at addr: false when they are not all in it */
bool katra_peu_read8(const struct katra_peu_stack *st, uint64_t addr, uint64_t *v);

#endif
