/* SPDX-License-Identifier: GPL-2.0-only */
/* Where Wine's syscall dispatcher keeps a thread's syscall frame, read from
 * the Unix-side ntdll.so a process maps (no libbpf, no libelf; bounded:
 * a few hundred bytes of code decoded, fuzzed with the other ELF readers).
 *
 * Wine 7 to 10 (x86_64) enter the dispatcher with
 *   mov %gs:DISP32,%REG        (65 48|4c 8b modrm 25 disp32: the TEB's
 *                               syscall_frame pointer)
 * then save the caller's registers into that frame: `pop DISP(%REG)` (its
 * return address, the PE caller's rip), `mov %rbx,DISP(%REG)`, ... .  The
 * dispatcher is found by its dynamic symbol: __wine_syscall_dispatcher
 * (Wine 10), else __wine_syscall_dispatcher_prolog_end (Wine 8, whose
 * dispatcher itself is not exported: the load is in the 64 bytes before
 * that label).  Functions return 0 or -errno. */
#ifndef KATRA_RECORD_WINEFRAME_H
#define KATRA_RECORD_WINEFRAME_H

#include <stdint.h>

#include <katra/wire.h>

#include "pe/pe.h"

/* Bytes decoded from the frame pointer's load on */
#define KATRA_WINE_FRAME_CODE 256

struct katra_wine_frame {
	struct katra_wine_frame_offs offs; /* wire.h: the TEB offset and the slots */
	uint64_t load_vaddr; /* the `mov %gs:...` */
	uint64_t dispatcher; /* the dispatcher's symbol (either name) */
	const char *symbol;  /* that symbol's name (static) */
	uint64_t call_ret;   /* after its `call *(%r10,%rax,8)` (41 ff 14 c2) within
			      * KATRA_WINE_CALL_WINDOW bytes of the load: the return
			      * address of the NT function it calls; 0: not found */
};
#define KATRA_WINE_CALL_WINDOW 1024

/* so: ntdll.so read whole.  -ENOENT (*why: a static sentence) when the
 * dispatcher, its load of the frame pointer or a store of one of the
 * KATRA_WF_SLOT_WORDS registers into the frame is not found. */
int katra_wine_frame_read(const struct katra_blob *so, struct katra_wine_frame *out,
			  const char **why);
/* The frame layout the constants of wire.h describe (Wine 7 to 10 as
 * built by Debian and Proton) */
void katra_wine_frame_default(struct katra_wine_frame_offs *o);
/* Whether o is that layout */
int katra_wine_frame_is_default(const struct katra_wine_frame_offs *o);

#endif
