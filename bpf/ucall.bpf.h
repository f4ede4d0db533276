/* SPDX-License-Identifier: GPL-2.0-only */
/* Calls into user-space libraries, by uprobes: the shared part of
 * bpf/wine.bpf.c, bpf/vulkan.bpf.c and bpf/d3d12.bpf.c (struct katra_ev_ucall in wire.h).
 *
 * The uprobes are attached per FILE (pid -1) by user/record/uprobes/uprobes.c: every
 * process that maps the file hits them, and the first thing each program does
 * is the tracked-tgid check.
 *
 * Per thread and layer one call is remembered (`ucall_states`, by tid and
 * layer): the OUTERMOST one (the NT layer keeps a stack of them instead:
 * bpf/ntstack.bpf.h).  An entry with a deeper stack (a lower stack
 * pointer) than the remembered call's is a nested call of the same layer
 * (Wine's NtWaitForSingleObject calls NtWaitForMultipleObjects) and writes
 * nothing; an entry at the same depth or above means the remembered call was
 * left without returning (a longjmp), and it replaces it.  A return matches
 * the remembered call when its stack pointer is the entry's plus 8 (the
 * return address popped).  The ENTER record is written at the entry and the
 * EXIT at the return: each is in time order in its ring, as the watermark
 * protocol needs (katra_busy before the clock read, katra_idle after the
 * commit). */
#ifndef KATRA_UCALL_BPF_H
#define KATRA_UCALL_BPF_H

#include "common.bpf.h"

struct ucall_state {
	__u64 start_time; /* the thread's start: a reused tid is another thread */
	__u64 sp;         /* stack pointer at the outer call's entry */
	__u64 a[4];       /* the ENTER's values, repeated by the EXIT */
	__u64 ptr[3];     /* out-parameters the EXIT reads */
	__u64 enter_ret;  /* what the ENTER carries in its ret (NtReadFile: the buffer) */
	__u32 call;       /* enum katra_ucall */
	__u32 depth;      /* KATRA_UC_LAYER_UNIX: nested dispatcher entries */
	__u32 flags;      /* the ENTER's KATRA_UC_A*_VALID */
	__u32 nt_flags;   /* KATRA_UC_LAYER_NT: NT_FRAME_* (bpf/ntstack.bpf.h) */
	__u64 frame;      /* KATRA_UC_LAYER_NT: the dispatcher's frame (rbp) */
	__u64 disp_ra;    /* KATRA_UC_LAYER_NT: the dispatcher's return address */
};

/* Calls in flight, by (tid << 3 | layer).  Entries leave at the call's
 * return; a full table is counted (KTABLE_UCALLS: the call's two events, its
 * ENTER and its EXIT) and the call not written. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct ucall_state);
} ucall_states SEC(".maps") __weak;

/* A register of the probed context, loaded once: the compiler must not
 * re-read ctx through a computed pointer (the verifier refuses a modified
 * ctx pointer), so each value is pinned in a register. */
#define UREG(ctx, f)                                                                  \
	({                                                                            \
		__u64 __v = (ctx)->f;                                                 \
		asm volatile("" : "+r"(__v));                                         \
		__v;                                                                  \
	})

static __always_inline __u64 ucall_key(__u64 pid_tgid, __u32 layer)
{
	return ((pid_tgid & 0xffffffffull) << 3) | layer;
}

static __always_inline __u64 ucall_task_start(void)
{
	if (have_task_btf)
		return bpf_get_current_task_btf()->start_time;
	return BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), start_time);
}

static __always_inline __u64 ucall_read_u64(__u64 uptr)
{
	__u64 v = 0;

	if (uptr)
		bpf_probe_read_user(&v, sizeof(v), (void *)uptr);
	return v;
}

static __always_inline __u32 ucall_read_u32(__u64 uptr)
{
	__u32 v = 0;

	if (uptr)
		bpf_probe_read_user(&v, sizeof(v), (void *)uptr);
	return v;
}

static __always_inline void ucall_write(__u64 pid_tgid, __u32 cpu, __u64 ts, __u32 call,
					__u32 flags, const __u64 *a, __s64 ret, __u32 nevents)
{
	struct katra_ev_ucall *e;
	void *rb;

	e = katra_reserve(&rb, cpu, sizeof(*e), nevents);
	if (!e)
		return;
	katra_head(&e->head, KATRA_EV_UCALL, cpu, pid_tgid, ts);
	e->call = call;
	e->flags = flags;
	e->a[0] = a[0];
	e->a[1] = a[1];
	e->a[2] = a[2];
	e->a[3] = a[3];
	e->ret = ret;
	katra_submit(rb, e, cpu);
}

/* The entry of an outer call: st is filled by the caller's decoder (a, ptr,
 * flags); remembers it and writes the ENTER.  Returns 0. */
static __always_inline int ucall_begin_at(__u64 pid_tgid, __u64 key, struct ucall_state *st,
					  __u32 enter_flags)
{
	__u32 cpu;
	__u64 ts;

	/* refused: neither the ENTER nor the EXIT is written */
	if (katra_map_put_n(&ucall_states, &key, st, BPF_ANY, KTABLE_UCALLS, 2))
		return 0;
	cpu = katra_busy();
	ts = bpf_ktime_get_ns();
	if (cpu < KATRA_MAX_CPUS) {
		struct katra_ev_ucall *e;
		void *rb;

		/* a lost ENTER loses its EXIT too: forget the call */
		e = katra_reserve(&rb, cpu, sizeof(*e), 2);
		if (e) {
			katra_head(&e->head, KATRA_EV_UCALL, cpu, pid_tgid, ts);
			e->call = st->call;
			e->flags = KATRA_UC_ENTER | enter_flags | st->flags;
			e->a[0] = st->a[0];
			e->a[1] = st->a[1];
			e->a[2] = st->a[2];
			e->a[3] = st->a[3];
			e->ret = (__s64)st->enter_ret;
			katra_submit(rb, e, cpu);
		} else {
			bpf_map_delete_elem(&ucall_states, &key);
		}
	}
	katra_idle(cpu);
	return 0;
}

static __always_inline int ucall_begin(__u64 pid_tgid, __u32 layer, struct ucall_state *st)
{
	return ucall_begin_at(pid_tgid, ucall_key(pid_tgid, layer), st, 0);
}

/* Whether an entry at stack pointer sp starts an outer call (else it is
 * nested in the remembered one: depth counted for the unix layer). */
static __always_inline bool ucall_is_outer(__u64 pid_tgid, __u32 layer, __u64 sp, __u64 start)
{
	__u64 key = ucall_key(pid_tgid, layer);
	struct ucall_state *old = bpf_map_lookup_elem(&ucall_states, &key);

	if (!old || old->start_time != start || sp >= old->sp)
		return true;
	if (layer == KATRA_UC_LAYER_UNIX)
		old->depth++;
	return false;
}

/* The remembered call of this thread and layer if the return at stack
 * pointer sp (after the return address was popped, i.e. a uretprobe's) is
 * its own; NULL for a nested call's return.  A return from above it means it
 * was left without returning: forgotten. */
static __always_inline struct ucall_state *ucall_returning(__u64 pid_tgid, __u32 layer, __u64 sp)
{
	__u64 key = ucall_key(pid_tgid, layer);
	struct ucall_state *st = bpf_map_lookup_elem(&ucall_states, &key);

	if (!st)
		return NULL;
	if (st->start_time != ucall_task_start() || sp > st->sp + 8) {
		bpf_map_delete_elem(&ucall_states, &key);
		return NULL;
	}
	if (sp < st->sp + 8)
		return NULL;
	return st;
}

/* Writes the EXIT of the remembered call (a[] as decoded by the caller) and
 * forgets it. */
static __always_inline int ucall_end_at(__u64 pid_tgid, __u64 key, const struct ucall_state *st,
					const __u64 *a, __u32 flags, __s64 ret)
{
	__u32 cpu = katra_busy();
	__u64 ts = bpf_ktime_get_ns();

	if (cpu < KATRA_MAX_CPUS)
		ucall_write(pid_tgid, cpu, ts, st->call, KATRA_UC_EXIT | flags, a, ret, 1);
	katra_idle(cpu);
	bpf_map_delete_elem(&ucall_states, &key);
	return 0;
}

static __always_inline int ucall_end(__u64 pid_tgid, __u32 layer, const struct ucall_state *st,
				     const __u64 *a, __u32 flags, __s64 ret)
{
	return ucall_end_at(pid_tgid, ucall_key(pid_tgid, layer), st, a, flags, ret);
}

/* ---- the shape every probed call shares (bpf/wine.bpf.c, bpf/vulkan.bpf.c) ----
 *
 * An entry program reads the registers of its ABI once, first (struct
 * ucall_regs: the stack pointer and the argument registers in the ABI's
 * order), checks that the thread is tracked and that this is an outer call,
 * lets the call's decoder fill the state from the registers, and writes the
 * ENTER; a return program finds the remembered call, lets the layer's
 * decoder read what the call wrote, and writes the EXIT. */
struct ucall_regs {
	__u64 sp;
	__u64 r[6];
	__u32 nregs;     /* arguments passed in registers: 4 (Windows), 6 (System V) */
	__u32 stack_off; /* the first stack argument's offset from sp at entry */
};

/* Windows x64 (Wine's WINAPI functions): rcx, rdx, r8, r9, then the stack;
 * r10 as well (Wine's dispatchers pass a table or handle in it). */
#define UCALL_ABI_MS(ctx)                                                       \
	((struct ucall_regs){ UREG(ctx, sp),                                    \
			      { UREG(ctx, cx), UREG(ctx, dx), UREG(ctx, r8),    \
				UREG(ctx, r9), UREG(ctx, r10), 0 },             \
			      4, 40 })
/* System V (the Vulkan driver, Wine 10's NT functions): rdi, rsi, rdx, rcx,
 * r8, r9, then the stack above the return address. */
#define UCALL_ABI_SYSV(ctx)                                                     \
	((struct ucall_regs){ UREG(ctx, sp),                                    \
			      { UREG(ctx, di), UREG(ctx, si), UREG(ctx, dx),    \
				UREG(ctx, cx), UREG(ctx, r8), UREG(ctx, r9) },  \
			      6, 8 })

/* Whether an entry at sp of this tracked thread starts an outer call of
 * `layer`: then *st holds its thread's start, its stack pointer and `call`. */
static __always_inline bool ucall_enter(__u64 pid_tgid, __u32 layer, __u32 call, __u64 sp,
					struct ucall_state *st)
{
	__u64 start;

	if (!katra_tracked(pid_tgid >> 32))
		return false;
	start = ucall_task_start();
	if (!ucall_is_outer(pid_tgid, layer, sp, start))
		return false;
	st->start_time = start;
	st->sp = sp;
	st->call = call;
	st->depth = 1;
	return true;
}

/* A uprobe program NAME (SEC kind: "uprobe", "uretprobe"; one perf-event
 * link per probe) and its twin NAME_multi (kind ".multi": uprobe_multi links,
 * one per program and file, Linux 6.6), from one body.  A program loaded as
 * the one cannot be attached as the other (its expected_attach_type
 * differs): user/record/kernel/probes_kernel.c autoloads only the one in
 * use.  Followed by the body, with ctx in scope. */
#define UPROBE_TWINS(kind, name)                                                \
	static __always_inline int name##_body(struct pt_regs *ctx);            \
	SEC(kind)                                                               \
	int name(struct pt_regs *ctx)                                           \
	{                                                                       \
		return name##_body(ctx);                                        \
	}                                                                       \
	SEC(kind ".multi")                                                      \
	int name##_multi(struct pt_regs *ctx)                                   \
	{                                                                       \
		return name##_body(ctx);                                        \
	}                                                                       \
	static __always_inline int name##_body(struct pt_regs *ctx)

/* The entry program up_NAME of call `call` in `layer`: `decode(&st, &regs)`
 * fills the ENTER's values and what the return reads. */
#define UCALL_ENTRY_PROBE(name, abi, layer, call, decode)                       \
	UPROBE_TWINS("uprobe", up_##name)                                       \
	{                                                                       \
		struct ucall_regs regs = abi(ctx);                              \
		__u64 pid_tgid = bpf_get_current_pid_tgid();                    \
		struct ucall_state st = {};                                     \
		if (!ucall_enter(pid_tgid, layer, call, regs.sp, &st))          \
			return 0;                                               \
		decode(&st, &regs);                                             \
		return ucall_begin(pid_tgid, layer, &st);                       \
	}

/* The return program NAME of `layer` (one uretprobe for all its calls): the
 * EXIT repeats the ENTER's values and flags, and `decode(st, a, &flags)`
 * reads the out-parameters by the remembered call. */
/* A return's values: the four the ENTER kept, its flags, and what `decode`
 * reads by the remembered call (the layers' and the NT levels' returns). */
#define UCALL_RETURN_VALUES(st, a, flags, decode)                               \
	do {                                                                    \
		a[0] = st->a[0];                                                \
		a[1] = st->a[1];                                                \
		a[2] = st->a[2];                                                \
		a[3] = st->a[3];                                                \
		flags = st->flags;                                              \
		decode(st, a, &flags);                                          \
	} while (0)

#define UCALL_RETURN_PROBE(name, layer, decode)                                 \
	UPROBE_TWINS("uretprobe", name)                                         \
	{                                                                       \
		__u64 pid_tgid = bpf_get_current_pid_tgid();                    \
		__u64 sp = UREG(ctx, sp), ax = UREG(ctx, ax);                   \
		struct ucall_state *st;                                         \
		__u32 flags;                                                    \
		__u64 a[4];                                                     \
		if (!katra_tracked(pid_tgid >> 32))                             \
			return 0;                                               \
		st = ucall_returning(pid_tgid, layer, sp);                      \
		if (!st)                                                        \
			return 0;                                               \
		UCALL_RETURN_VALUES(st, a, flags, decode);                      \
		return ucall_end(pid_tgid, layer, st, a, flags, (__s32)ax);     \
	}

#endif
