/* SPDX-License-Identifier: GPL-2.0-only */
/* katra wire contract, its call stacks' part (included by wire.h, whose
 * rules hold here). */
#ifndef KATRA_WIRE_STACKS_H
#define KATRA_WIRE_STACKS_H

/* ---- call stacks (--stacks): not a ring record; the stack ring's own.
 *
 * At a traced thread's switch-out its user registers (task_pt_regs, the
 * kernel's x86_64 struct pt_regs as is), its kernel stack (an id in the
 * kstacks map) and a copy of its user stack (whole pages from the page of
 * sp up, KATRA_STACK_PAGES at most, stopping at the first page that cannot
 * be read) are kept in a slot by tid; at its switch-in, when the interval
 * off the CPU lasted stack_threshold_ns or more, the slot is written to the
 * stack ring (the header and stack_len bytes of data).  A syscall that took
 * stack_threshold_ns or more writes the same at its exit (its user stack is
 * still the enter's).  Nothing is unwound here: user space does it after the
 * capture.
 *
 * The kernel stack is an id in kstacks; where the map refuses it (-EEXIST:
 * its hash's bucket holds another stack, the map keeping the first; -ENOMEM:
 * no entry free) its frames travel in the record instead (knr of kips), so
 * no interval loses its kernel half to another stack's bucket.
 *
 * A Wine thread (its gs base a TEB whose Self is itself) also has its
 * Windows half: Wine's syscall frame (the registers its PE code had at
 * __wine_syscall_dispatcher, saved on entry; pe_frame, the frame's first
 * KATRA_STACK_PE_WORDS words, or only the words the join uses, each from
 * its place in the frame as the process's ntdll.so lays it out) and a copy of its Windows stack from the
 * frame's rsp page (pe_len bytes at data + stack_len, pe_base its user
 * address); its own stack's copy is then at most KATRA_STACK_PAGES / 2
 * pages, the Windows stack's the rest.  pe_len 0: none (not a Wine
 * thread, or a frame not read). */
#define KATRA_STACK_PAGES 4
#define KATRA_STACK_BYTES (KATRA_STACK_PAGES * 4096)
#define KATRA_STACK_REGS  21 /* x86_64 struct pt_regs: r15 .. ss, 168 bytes */
#define KATRA_STACK_KDEPTH 127 /* the kstacks map's frames (PERF_MAX_STACK_DEPTH) */
/* Wine x86_64 (7 to 10): NtCurrentTeb()->Tib.Self, the TEB's offset of
 * amd64_thread_data()->syscall_frame, and struct syscall_frame's words:
 * rax rbx rcx rdx rsi rdi r8..r15 rip cs eflags rsp ss rbp */
#define KATRA_WINE_TEB_SELF 0x30
#define KATRA_WINE_TEB_SYSCALL_FRAME 0x328
#define KATRA_STACK_PE_WORDS 20
enum { KATRA_WF_RBX = 1, KATRA_WF_RSI = 4, KATRA_WF_RDI = 5, KATRA_WF_R12 = 10,
       KATRA_WF_RIP = 14, KATRA_WF_RSP = 17, KATRA_WF_RBP = 19 };
/* Where a process's Wine keeps them, as read from the ntdll.so it maps
 * (user/record/uprobes/wineframe.c; the wine_frames map, by tgid): the
 * TEB's offset of the frame pointer (0: no Windows half for this process)
 * and the byte offsets in the frame of the words the join uses, in the
 * order of KATRA_WF_SLOT_WORDS; copied to those words of pe_frame.  A
 * process without an entry: the constants above. */
#define KATRA_WF_SLOTS 10
#define KATRA_WF_SLOT_WORDS                                                            \
	{ KATRA_WF_RIP, KATRA_WF_RSP, KATRA_WF_RBP, KATRA_WF_RBX, KATRA_WF_RSI,          \
	  KATRA_WF_RDI, KATRA_WF_R12, KATRA_WF_R12 + 1, KATRA_WF_R12 + 2, KATRA_WF_R12 + 3 }
#define KATRA_WF_SLOT_MAX 0x1000 /* a slot's offset is below this */
struct katra_wine_frame_offs {
	__u32 teb_frame;
	__u16 slot[KATRA_WF_SLOTS];
};
enum katra_wire_stack_site {
	KATRA_WSTACK_OFF_CPU = 0, /* begin_ts: the switch-out, end_ts: the switch-in */
	KATRA_WSTACK_SYSCALL = 1, /* begin_ts: its enter, end_ts: its exit; taken at
				   * the exit (the user stack is the enter's); no
				   * kernel stack (kstack_id < 0) */
	KATRA_WSTACK_SAMPLE = 2,  /* a timer sample of a running thread (--sample-hz):
				   * begin_ts its time, end_ts begin_ts + the
				   * sampling period; the kernel stack when the
				   * timer fired in the kernel */
};
struct katra_stack_rec {
	__u32 tgid;
	__u32 tid;
	__u64 begin_ts;    /* the OffCpu span's Begin (its switch record's ts) */
	__u64 end_ts;      /* its End */
	__s64 kstack_id;   /* in kstacks, or < 0 (-errno): none */
	__u64 regs[KATRA_STACK_REGS];
	__u64 stack_base;  /* user address of data[0] (sp's page) */
	__u32 stack_len;   /* bytes of data read (whole pages) */
	__u32 site;        /* enum katra_wire_stack_site */
	__u64 pe_base;     /* user address of data[stack_len] (the Windows stack) */
	__u32 pe_len;      /* bytes of it (whole pages); 0: no Windows half */
	__u32 pe_pad;
	__u64 pe_frame[KATRA_STACK_PE_WORDS]; /* Wine's syscall frame */
	__u32 knr;         /* frames in kips: the kernel stack kstacks refused */
	__u32 kpad;
	__u64 kips[KATRA_STACK_KDEPTH];
	__u8 data[KATRA_STACK_BYTES];
};
#define KATRA_STACK_HEAD_BYTES __builtin_offsetof(struct katra_stack_rec, data)

#endif /* KATRA_WIRE_STACKS_H */
