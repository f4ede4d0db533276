/* SPDX-License-Identifier: GPL-2.0-only */
/* Call stacks (--stacks): taken at a traced thread's switch-out, written at
 * its switch-in when it was off the CPU stack_threshold_ns or more
 * (struct katra_stack_rec in wire.h).  Behind the rodata record_stacks: off,
 * the verifier drops all of it, the maps are one entry each and kstacks is
 * not made. */
#ifndef KATRA_STACKS_BPF_H
#define KATRA_STACKS_BPF_H

#include "common.bpf.h"

extern const volatile bool record_stacks;
extern const volatile __u64 stack_threshold_ns;
extern const volatile __u64 stack_wakeup_bytes; /* the loader's: a quarter of stack_ring */
/* The TEB offset of Wine's syscall frame where no entry of wine_frames says
 * it: KATRA_WINE_TEB_SYSCALL_FRAME (tests give another: that only what was
 * read from ntdll.so joins) */
extern const volatile __u32 wine_frame_fallback;
/* Stacks lost: [0] the slot table was full, [1] the stack ring refused one */
extern __u64 stack_drops[2];

/* A slot per thread, by tid: kept from its switch-out to its switch-in.
 * Preallocated (no allocation under the runqueue lock); deleted at the
 * thread's last switch-out. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct katra_stack_rec);
} stack_slots SEC(".maps") __weak;

/* The source of a new slot's first insert (its content is overwritten) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct katra_stack_rec);
} stack_blank SEC(".maps") __weak;

/* A syscall's stack, made here and written to the ring at its exact size */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct katra_stack_rec);
} stack_scratch SEC(".maps") __weak;

/* Its values: KATRA_STACK_KDEPTH frames, or fewer where the sysctl
 * kernel.perf_event_max_stack is lower (the loader sizes it; not made when
 * off: these references are dead code then, poisoned by libbpf) */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, KATRA_STACK_KDEPTH * sizeof(__u64));
} kstacks SEC(".maps") __weak;

/* Where Wine keeps the syscall frame, per process (tgid), as read from the
 * ntdll.so it maps (wire.h: struct katra_wine_frame_offs); written by user
 * space, deleted at the process's exit */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct katra_wine_frame_offs);
} wine_frames SEC(".maps") __weak;

/* Read by user space alone (its own thread); sized by the loader */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} stack_ring SEC(".maps") __weak;

static __always_inline void katra_stack_user(struct katra_stack_rec *s);

/* The reader is woken at once while little is unread: a process's module
 * table is read at its first stack, and a short-lived process is gone 10 ms
 * later (a reader woken only at a quarter full read no table of a 20 ms
 * workload, t_stacks); past stack_wakeup_bytes unread it is awake anyway */
static __always_inline __u64 stack_wakeup(void)
{
	return bpf_ringbuf_query(&stack_ring, BPF_RB_AVAIL_DATA) >= stack_wakeup_bytes
		       ? BPF_RB_NO_WAKEUP
		       : BPF_RB_FORCE_WAKEUP;
}

/* s to the stack ring: its header and the bytes of user stack it holds */
static __always_inline void katra_stack_write(struct katra_stack_rec *s)
{
	__u32 len = katra_bound(s->stack_len + s->pe_len, KATRA_STACK_BYTES * 2 - 1);

	if (len > KATRA_STACK_BYTES)
		len = KATRA_STACK_BYTES;
	if (bpf_ringbuf_output(&stack_ring, s, KATRA_STACK_HEAD_BYTES + len, stack_wakeup()))
		__sync_fetch_and_add(&stack_drops[1], 1);
}

/* ctx's kernel stack into s: its id in kstacks, or, where the map refuses
 * it (another stack holds its hash's bucket: -EEXIST; none free: -ENOMEM),
 * its frames in s->kips.  Any other failure (-EFAULT: no stack to walk, a
 * sample in user code) leaves none. */
static __always_inline void katra_stack_kernel(void *ctx, struct katra_stack_rec *s)
{
	long n;

	s->knr = 0;
	s->kstack_id = bpf_get_stackid(ctx, &kstacks, 0);
	if (s->kstack_id != -17 /* EEXIST */ && s->kstack_id != -12 /* ENOMEM */)
		return;
	n = bpf_get_stack(ctx, s->kips, sizeof(s->kips), 0);
	if (n > 0)
		s->knr = n / sizeof(s->kips[0]);
}

/* The leaving thread (current): its registers, kernel stack and user stack
 * into its slot.  ctx: the tracepoint's (bpf_get_stackid walks from it). */
static __always_inline void katra_stack_out(void *ctx, __u64 pid_tgid, __u64 ts, bool dead)
{
	__u32 tid = pid_tgid, zero = 0;
	struct katra_stack_rec *s;

	if (dead) {
		bpf_map_delete_elem(&stack_slots, &tid);
		return;
	}
	s = bpf_map_lookup_elem(&stack_slots, &tid);
	if (!s) {
		void *blank = bpf_map_lookup_elem(&stack_blank, &zero);

		if (!blank)
			return;
		if (bpf_map_update_elem(&stack_slots, &tid, blank, BPF_NOEXIST) &&
		    !bpf_map_lookup_elem(&stack_slots, &tid)) {
			__sync_fetch_and_add(&stack_drops[0], 1);
			return;
		}
		s = bpf_map_lookup_elem(&stack_slots, &tid);
		if (!s)
			return;
	}
	s->tgid = pid_tgid >> 32;
	s->tid = tid;
	s->begin_ts = ts;
	s->end_ts = 0;
	s->site = KATRA_WSTACK_OFF_CPU;
	katra_stack_kernel(ctx, s);
	katra_stack_user(s);
}

/* A Wine thread's syscall frame, from its TEB (the gs base; its Self word
 * is itself) at the offset its process's ntdll.so gives (o), else at the
 * fallback: the frame's address, or 0 */
static __always_inline __u64 katra_wine_frame(const struct katra_wine_frame_offs *o)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	__u64 teb = BPF_CORE_READ(t, thread.gsbase), self = 0, frame = 0;
	__u32 off = o ? o->teb_frame : wine_frame_fallback;

	if (!teb || !off || bpf_probe_read_user(&self, 8, (void *)(teb + KATRA_WINE_TEB_SELF)) ||
	    self != teb || bpf_probe_read_user(&frame, 8, (void *)(teb + (off & 0xffff))))
		return 0;
	return frame;
}

/* The frame's words into s->pe_frame: as laid out by the constants (no o),
 * else each word the join uses from its slot; 0 when read */
static __always_inline int katra_wine_frame_words(struct katra_stack_rec *s, __u64 frame,
						  const struct katra_wine_frame_offs *o)
{
	if (!o)
		return bpf_probe_read_user(s->pe_frame, sizeof(s->pe_frame), (void *)frame);
	/* in the order of KATRA_WF_SLOT_WORDS; constant indexes for the verifier */
#define WF_READ(i, word)                                                                 \
	bpf_probe_read_user(&s->pe_frame[word], 8,                                       \
			    (void *)(frame + (o->slot[i] & (KATRA_WF_SLOT_MAX - 1))))
	return WF_READ(0, KATRA_WF_RIP) || WF_READ(1, KATRA_WF_RSP) || WF_READ(2, KATRA_WF_RBP) ||
	       WF_READ(3, KATRA_WF_RBX) || WF_READ(4, KATRA_WF_RSI) || WF_READ(5, KATRA_WF_RDI) ||
	       WF_READ(6, KATRA_WF_R12) || WF_READ(7, KATRA_WF_R12 + 1) ||
	       WF_READ(8, KATRA_WF_R12 + 2) || WF_READ(9, KATRA_WF_R12 + 3);
#undef WF_READ
}

/* The current thread's user registers and a copy of its user stack into s;
 * a Wine thread's Windows half too (wire.h) */
static __always_inline void katra_stack_user(struct katra_stack_rec *s)
{
	__u32 tgid = s->tgid;
	const struct katra_wine_frame_offs *o = bpf_map_lookup_elem(&wine_frames, &tgid);
	__u64 sp, base, frame = katra_wine_frame(o), pe_sp;
	int own = frame ? KATRA_STACK_PAGES / 2 : KATRA_STACK_PAGES;

	s->pe_len = 0;
	s->pe_base = 0;
	if (bpf_probe_read_kernel(s->regs, sizeof(s->regs),
				  (void *)katra_user_regs(katra_current_stack()))) {
		s->stack_len = 0;
		s->stack_base = 0;
		return;
	}
	sp = s->regs[19]; /* pt_regs.sp */
	base = sp & ~4095ull;
	s->stack_base = base;
	s->stack_len = 0;
	/* whole pages, each read or not (a read that fails leaves zeros): the
	 * first one that fails ends the copy (the stack's top, a page out) */
	for (int i = 0; i < KATRA_STACK_PAGES; i++) {
		if (i >= own || bpf_probe_read_user(&s->data[i * 4096], 4096,
						     (void *)(base + i * 4096ull)))
			break;
		s->stack_len = (i + 1) * 4096;
	}
	if (!frame || katra_wine_frame_words(s, frame, o))
		return;
	pe_sp = s->pe_frame[KATRA_WF_RSP] & ~4095ull;
	/* the Windows stack after the thread's own: the frame's rsp may be
	 * stale (the thread in its PE code now), user space checks */
	for (int i = 0; i < KATRA_STACK_PAGES; i++) {
		if (i * 4096 < s->stack_len)
			continue;
		if (bpf_probe_read_user(&s->data[i * 4096], 4096,
					(void *)(pe_sp + i * 4096ull - s->stack_len)))
			break;
		s->pe_base = pe_sp;
		s->pe_len = (i + 1) * 4096 - s->stack_len;
	}
}

/* The coming thread: its slot to the stack ring when it was off long enough */
static __always_inline void katra_stack_in(__u32 next_tid, __u64 ts)
{
	struct katra_stack_rec *s = bpf_map_lookup_elem(&stack_slots, &next_tid);

	if (!s || !s->begin_ts || s->end_ts)
		return;
	s->end_ts = ts;
	if (ts - s->begin_ts < stack_threshold_ns)
		return;
	katra_stack_write(s);
}

/* A syscall of the current thread that took stack_threshold_ns or more:
 * its stack to the ring now (out of line: sys_exit's paths stay its own) */
static __noinline int katra_stack_syscall(__u64 pid_tgid, __u64 enter_ts, __u64 exit_ts)
{
	__u32 zero = 0;
	struct katra_stack_rec *s = bpf_map_lookup_elem(&stack_scratch, &zero);

	if (!s)
		return 0;
	s->tgid = pid_tgid >> 32;
	s->tid = pid_tgid;
	s->begin_ts = enter_ts;
	s->end_ts = exit_ts;
	s->site = KATRA_WSTACK_SYSCALL;
	s->kstack_id = -2; /* -ENOENT: the exit's kernel stack says nothing */
	s->knr = 0;
	katra_stack_user(s);
	katra_stack_write(s);
	return 0;
}

/* Both sides of a switch, out of line (the switch probe's paths stay its
 * own).  flags: KATRA_SW_*, and bit 31 for the leaving thread's last
 * switch-out. */
#define KATRA_STACK_PREV_DEAD (1u << 31)
static __noinline int katra_stacks_switch(void *ctx, __u64 pid_tgid, __u32 next_tid, __u32 flags,
					  __u64 ts)
{
	if (flags & KATRA_SW_PREV_TRACKED)
		katra_stack_out(ctx, pid_tgid, ts, flags & KATRA_STACK_PREV_DEAD);
	if (flags & KATRA_SW_NEXT_TRACKED)
		katra_stack_in(next_tid, ts);
	return 0;
}

#endif
