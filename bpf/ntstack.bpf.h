/* SPDX-License-Identifier: GPL-2.0-only */
/* The NT layer's open calls of a thread, as a stack (bpf/wine.bpf.c): a
 * win32u call (table 1) enters the Unix side, which calls back into the
 * Windows side (KeUserModeCallback -> the window procedure), which makes NT
 * calls of its own through a new dispatcher frame below the first one; they
 * return before it does.  So per thread a stack of at most KATRA_NT_DEPTH
 * levels, level n at key nt_key(tid, n) of `ucall_states`, level 0 holding
 * the depth (`depth`).
 *
 * A dispatcher entry (the dispatcher's own probe, or an NT function whose
 * return address is the dispatcher's) names its level by the dispatcher's
 * frame (rbp, KATRA_NT_FILE_FRAME; the frame is the same for every call of
 * one level, whatever its stack arguments take): a lower frame than the
 * open call's is a call of a user callback inside it (pushed), the same or
 * a higher one means the open call was left without returning (NtContinue,
 * an exception unwound out of a callback): popped, unwritten, and user
 * space ends it where the next one of its level begins.  A call that
 * unix-side code makes directly (NtWaitForSingleObject calling
 * NtWaitForMultipleObjects, win32u.so calling ntdll.so) is inside the open
 * call: nothing written.  The ENTER and EXIT carry the level
 * (KATRA_UC_LEVEL). */
#ifndef KATRA_NTSTACK_BPF_H
#define KATRA_NTSTACK_BPF_H

#include "ucall.bpf.h"

#define NT_FRAME_DISPATCHED 1u /* entered from the dispatcher: `frame` names its level */

enum nt_relation { NT_NESTED, NT_INSIDE, NT_STALE };

static __always_inline __u64 nt_key(__u64 pid_tgid, __u32 level)
{
	return ucall_key(pid_tgid, KATRA_UC_LAYER_NT) | ((__u64)level << 40);
}

/* The open calls of this thread (0: none; a dead thread's are forgotten). */
static __always_inline __u32 nt_depth(__u64 pid_tgid, __u64 start)
{
	__u64 k0 = nt_key(pid_tgid, 0);
	struct ucall_state *b = bpf_map_lookup_elem(&ucall_states, &k0);

	if (!b)
		return 0;
	if (b->start_time != start) {
		bpf_map_delete_elem(&ucall_states, &k0);
		return 0;
	}
	return b->depth < KATRA_NT_DEPTH ? b->depth : KATRA_NT_DEPTH;
}

static __always_inline void nt_set_depth(__u64 pid_tgid, __u32 d)
{
	__u64 k0 = nt_key(pid_tgid, 0);
	struct ucall_state *b;

	if (d && (b = bpf_map_lookup_elem(&ucall_states, &k0)))
		b->depth = d;
}

/* Where an entry (dispatched or not, its frame and stack pointer) stands to
 * the open call t. */
static __always_inline enum nt_relation nt_relation(const struct ucall_state *t, bool dispatched,
						    __u64 frame, __u64 sp)
{
	if (dispatched && (t->nt_flags & NT_FRAME_DISPATCHED))
		return frame < t->frame ? NT_NESTED : NT_STALE;
	if (sp < t->sp)
		return dispatched ? NT_NESTED : NT_INSIDE;
	return NT_STALE;
}

/* An entry at sp (the called function's stack pointer) of a tracked thread:
 * the level its call is written at, after popping the calls left without
 * returning; -1 when nothing is written.  st gets the thread's start, sp,
 * frame, flags and the dispatcher's return address (disp_ra: given for the
 * dispatcher's entries, else learnt from the open calls). */
static __always_inline int nt_enter(__u64 pid_tgid, struct ucall_state *st, bool dispatched,
				    __u64 frame, __u64 sp, __u64 disp_ra)
{
	__u64 start = ucall_task_start();
	__u32 d = nt_depth(pid_tgid, start);

	/* the dispatcher's return address, the same for every call of the
	 * thread: from the open call on top, once, before the walk (the
	 * verifier then has no state of it to keep apart per level) */
	if (!disp_ra && d > 0) {
		__u64 k = nt_key(pid_tgid, d - 1);
		struct ucall_state *t = bpf_map_lookup_elem(&ucall_states, &k);

		if (t && t->start_time == start)
			disp_ra = t->disp_ra;
	}
	if (!dispatched && disp_ra)
		dispatched = ucall_read_u64(sp) == disp_ra;
	st->start_time = start;
	st->sp = sp;
	st->frame = frame;
	st->disp_ra = disp_ra;
	for (int i = 0; i < KATRA_NT_DEPTH && d > 0; i++) {
		__u64 k = nt_key(pid_tgid, d - 1);
		struct ucall_state *t = bpf_map_lookup_elem(&ucall_states, &k);

		if (t && t->start_time == start) {
			enum nt_relation rel = nt_relation(t, dispatched, frame, sp);
			if (rel == NT_INSIDE)
				return -1;
			if (rel == NT_NESTED)
				break;
		}
		bpf_map_delete_elem(&ucall_states, &k);
		d--;
	}
	if (d >= KATRA_NT_DEPTH) {
		/* too deep: its ENTER and EXIT are counted, not written */
		__sync_fetch_and_add(&ktable_drops[KTABLE_UCALLS], 2);
		return -1;
	}
	st->nt_flags = dispatched ? NT_FRAME_DISPATCHED : 0;
	nt_set_depth(pid_tgid, d);
	return (int)d;
}

/* Remembers st at level and writes its ENTER. */
static __always_inline int nt_begin(__u64 pid_tgid, int level, struct ucall_state *st)
{
	__u32 lv = (__u32)level & (KATRA_NT_DEPTH - 1);

	st->depth = 1;
	ucall_begin_at(pid_tgid, nt_key(pid_tgid, lv), st, lv << KATRA_UC_LEVEL_SHIFT);
	nt_set_depth(pid_tgid, lv + 1);
	return 0;
}

/* The open call that a return returns from (the dispatcher's, by its
 * frame; a function's, by sp after its return address was popped), its
 * level in *level; NULL for a call not written (one made directly, one too
 * deep, one of a number left to its own probe).  Calls left without
 * returning above it are popped. */
static __always_inline struct ucall_state *nt_returning(__u64 pid_tgid, bool dispatcher,
							__u64 frame, __u64 sp, __u32 *level)
{
	__u64 start = ucall_task_start();
	__u32 d = nt_depth(pid_tgid, start);

	for (int i = 0; i < KATRA_NT_DEPTH && d > 0; i++) {
		__u64 k = nt_key(pid_tgid, d - 1);
		struct ucall_state *t = bpf_map_lookup_elem(&ucall_states, &k);

		if (t && t->start_time == start) {
			bool own = dispatcher == (t->call == KATRA_UC_NT_SYSCALL);
			if (dispatcher && (t->nt_flags & NT_FRAME_DISPATCHED)) {
				if (frame < t->frame)
					return NULL;
				if (frame == t->frame && own) {
					*level = d - 1;
					nt_set_depth(pid_tgid, d);
					return t;
				}
			} else if (sp == t->sp + 8) {
				if (!own)
					return NULL;
				*level = d - 1;
				nt_set_depth(pid_tgid, d);
				return t;
			} else if (sp < t->sp + 8) {
				return NULL;
			}
		}
		bpf_map_delete_elem(&ucall_states, &k);
		d--;
	}
	return NULL;
}

/* Writes the EXIT of the call at level and pops it. */
static __always_inline int nt_end(__u64 pid_tgid, __u32 level, const struct ucall_state *st,
				  const __u64 *a, __u32 flags, __s64 ret)
{
	__u32 lv = level & (KATRA_NT_DEPTH - 1);

	ucall_end_at(pid_tgid, nt_key(pid_tgid, lv), st, a, flags | lv << KATRA_UC_LEVEL_SHIFT,
		     ret);
	nt_set_depth(pid_tgid, lv);
	return 0;
}

/* The entry program up_NAME of NT function `call`: `decode(&st, &regs)`
 * fills the ENTER's values and what the return reads. */
#define NT_ENTRY_PROBE(name, abi, nt_call, decode)                                 \
	UPROBE_TWINS("uprobe", up_##name)                                       \
	{                                                                       \
		struct ucall_regs regs = abi(ctx);                              \
		__u64 frame = UREG(ctx, bp);                                    \
		__u64 pid_tgid = bpf_get_current_pid_tgid();                    \
		struct ucall_state st = {};                                     \
		int level;                                                      \
		if (!katra_tracked(pid_tgid >> 32))                             \
			return 0;                                               \
		level = nt_enter(pid_tgid, &st, false, frame, regs.sp, 0);      \
		if (level < 0)                                                  \
			return 0;                                               \
		st.call = nt_call;                                               \
		decode(&st, &regs);                                             \
		return nt_begin(pid_tgid, level, &st);                          \
	}

/* The return program NAME of the NT functions (one uretprobe for all):
 * `decode(st, a, &flags)` reads the out-parameters by the remembered call. */
#define NT_RETURN_PROBE(name, decode)                                           \
	UPROBE_TWINS("uretprobe", name)                                         \
	{                                                                       \
		__u64 pid_tgid = bpf_get_current_pid_tgid();                    \
		__u64 sp = UREG(ctx, sp), ax = UREG(ctx, ax);                   \
		struct ucall_state *st;                                         \
		__u32 flags, level = 0;                                         \
		__u64 a[4];                                                     \
		if (!katra_tracked(pid_tgid >> 32))                             \
			return 0;                                               \
		st = nt_returning(pid_tgid, false, 0, sp, &level);              \
		if (!st)                                                        \
			return 0;                                               \
		UCALL_RETURN_VALUES(st, a, flags, decode);                      \
		return nt_end(pid_tgid, level, st, a, flags, (__s32)ax);        \
	}

#endif
