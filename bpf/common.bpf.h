/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by every katra probe: settings, the tracked-tgid filter, the per-CPU
 * rings with batched wakeups, drop counters, and the pending-syscall store.
 *
 * Each bpf/NAME.bpf.c is compiled on its own and linked by `bpftool gen object`;
 * maps are __weak (identical definitions are merged into one map) and
 * globals are defined once (common.bpf.c) and declared extern here. */
#ifndef KATRA_COMMON_BPF_H
#define KATRA_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <katra/wire.h>
#include "core_fixes.bpf.h"

#define KATRA_MAX_CPUS 1024

/* Set by the loader between open and load. */
extern const volatile bool follow_children;
extern const volatile bool record_paths;
extern const volatile __u32 wakeup_bytes;
/* What the running kernel offers, set by the loader from its BTF: reads that
 * depend on them sit behind these, so the other branch is dead code. */
extern const volatile bool exit_has_group_dead;   /* sched_process_exit(p, group_dead): 6.16 */
extern const volatile bool switch_has_prev_state; /* sched_switch(.., prev_state): 5.18 */
extern const volatile bool have_task_btf;         /* bpf_get_current_task_btf(): 5.11 */
extern const volatile bool have_attach_cookie;    /* bpf_get_attach_cookie() in uprobes: 5.15 */
extern const volatile bool have_task_pt_regs;     /* bpf_task_pt_regs(): 5.15 */
extern const volatile __u32 uring_complete_args;  /* io_uring_complete's layout, see there */
extern const volatile bool have_rdonly_cast;      /* the bpf_rdonly_cast() kfunc: 6.2 */
/* task local storage from tracing programs (5.12) with a BTF current (5.11):
 * see pend_tasks */
extern const volatile bool have_task_storage;
/* The kernel never preempts kernel code (preemption model none or
 * voluntary: user/record/kernel/preempt.h): the syscall tracepoints'
 * programs, which a kernel since 6.13 may run preemptibly, cannot be
 * preempted either (katra_idle_tp) */
extern const volatile bool syscall_tp_unpreempted;
/* Weak: where the kernel lacks it libbpf leaves the call unresolved, and the
 * verifier drops it as dead code behind have_rdonly_cast. */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;
/* Syscall numbers whose arguments user space decodes (one bit each); the
 * others get the short record. */
#define KATRA_NR_LIMIT 512
extern const volatile __u64 decoded_nrs[KATRA_NR_LIMIT / 64];
/* Of those, the ones whose decoder reads no argument past the fourth: the
 * mid-sized record (wire.h, katra_ev_syscall_mid) when no aux was read. */
extern const volatile __u64 mid_nrs[KATRA_NR_LIMIT / 64];
/* Event selection (-e): all, or the syscalls in selected_nrs (x86_64 numbers;
 * 32-bit calls are always recorded); record_sched off keeps sched_switch only
 * for flushing pending syscalls. */
extern const volatile bool select_all;
extern const volatile __u64 selected_nrs[KATRA_NR_LIMIT / 64];
extern const volatile bool record_sched;

/* Failed reservations per ring (CPU); user space reads them from .bss. */
extern __u64 ring_drops[KATRA_MAX_CPUS];

/* Tracked processes: one bit per possible pid (PID_MAX_LIMIT on 64-bit), in
 * .bss so the check on every probe is a plain load (a hash lookup costs a
 * helper call and a jhash).  User space sets bits through the mmap'ed .bss. */
#define KATRA_PID_LIMIT (1u << 22)
extern __u64 tracked_bits[KATRA_PID_LIMIT / 64];
/* Children followed by fork: set only here, cleared only by user space, so
 * a plain add sets a bit safely (BPF atomic or needs Linux 5.12; a fork of one
 * child happens once, and atomic and/add never lose each other's bits). */
extern __u64 forked_bits[KATRA_PID_LIMIT / 64];
/* Processes the probes began to track (a fork, a wineserver connect), a
 * line of its own: while it moves, user space reads the rings at once, not
 * after its usual wait, since what it reads of a new process in /proc (its
 * Windows image, its libraries) is gone once a short one exits. */
extern __u64 task_news[8];
/* The consumer's sleep: user space sets consumer_wake[0] before its drain
 * sleeps because nothing flows, and katra_set_tracked() sets it where
 * task_news moves; the first commit to any ring that sees it set clears it
 * and wakes the rings' pollers.  A cache line of its own (the rest is
 * padding): every commit reads it; it is written only when the drain goes
 * to sleep or wakes and when a process begins to be tracked. */
extern __u32 consumer_wake[16];

/* One ring per possible CPU.  The inner template's size and the outer size are
 * set by the loader; it also creates the rings and fills the array. */
struct katra_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 21);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct katra_ring);
} rings SEC(".maps") __weak;

/* The per-CPU slots (struct katra_cpu_slot in wire.h): a syscall between
 * its enter and its exit while the thread stays on the CPU (a plain .bss
 * access: a thread cannot leave the CPU without a sched_switch, which moves
 * it into `flushed`, by tid), and the busy count behind the watermark.
 * Declared as words so the skeleton need not know the struct. */
#define SLOT_WORDS (sizeof(struct katra_cpu_slot) / 8)
extern __u64 pend_words[KATRA_MAX_CPUS * 16];
/* An index masked where the verifier sees it: older verifiers (6.1) lose a
 * 32-bit value's range across a stack spill, and clang drops a mask it can
 * prove redundant; the empty asm hides the range from clang. */
static __always_inline __u32 katra_bound(__u32 v, __u32 mask)
{
	asm volatile("" : "+r"(v));
	return v & mask;
}
#define PEND_SLOT(cpu) \
	((struct katra_cpu_slot *)&pend_words[katra_bound(cpu, KATRA_MAX_CPUS - 1) * SLOT_WORDS])
_Static_assert(SLOT_WORDS == 16, "one slot is two cache lines");

/* Entries a kernel map refused (full), by table: user space reads them from
 * .bss and writes them as DropSource::KernelTable (instance = the index). */
#define KTABLE_SYSCALLS 0 /* `flushed` */
#define KTABLE_FAULTS   1 /* `fault_starts` */
#define KTABLE_URING    2 /* `uring_ctxs` */
#define KTABLE_UCALLS   4 /* `ucall_states` (bpf/ucall.bpf.h) */
#define KTABLE_GPU      5 /* `gpu_fences` (bpf/gpu.bpf.c) */
#define KTABLE_GPU_TOTALS 6 /* `gpu_flight`, `gpu_totals` (bpf/gpu_totals.bpf.h) */
#define KTABLE_COUNT    8
extern __u64 ktable_drops[KTABLE_COUNT];

/* Updates a map whose failure would lose something: counted, never silent;
 * `lost` is what a refusal costs (a link, or the events it keeps from being
 * written). */
static __always_inline long katra_map_put_n(void *map, const void *key, const void *value,
					    __u64 flags, __u32 table, __u64 lost)
{
	long err = bpf_map_update_elem(map, key, value, flags);

	if (err && err != -17 /* EEXIST: BPF_NOEXIST on an existing key */ &&
	    table < KTABLE_COUNT)
		__sync_fetch_and_add(&ktable_drops[table], lost);
	return err;
}

/* The common case: a refusal costs one link. */
static __always_inline long katra_map_put(void *map, const void *key, const void *value,
					  __u64 flags, __u32 table)
{
	return katra_map_put_n(map, key, value, flags, table, 1);
}

/* Marks this CPU busy before a probe reads the clock, and idle after it has
 * committed: user space does not move this ring's watermark while it is
 * busy, nor on what it read while a probe entered (wire.h, busy_seq: one add
 * counts the probe in both halves).  Returns the CPU (every record of the
 * probe goes to its ring). */
#define KATRA_BUSY_ENTER ((1ull << 32) | 1)
static __always_inline __u32 katra_busy(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	if (cpu < KATRA_MAX_CPUS)
		__sync_fetch_and_add(&PEND_SLOT(cpu)->busy_seq, KATRA_BUSY_ENTER);
	return cpu;
}

static __always_inline void katra_idle(__u32 cpu)
{
	/* an add of -1 with the result unused is BPF_XADD, which every kernel
	 * has; a fetch-and-sub needs the 5.12 atomics.  busy is at least 1
	 * here: no borrow reaches the entry count */
	if (cpu < KATRA_MAX_CPUS)
		__sync_fetch_and_add(&PEND_SLOT(cpu)->busy_seq, (__u64)-1);
}

/* katra_busy() and katra_idle() for a probe that runs with preemption off
 * (a tracepoint's, raw or BTF, whose tracepoint is not faultable; a syscall
 * tracepoint's only where syscall_tp_unpreempted): plain loads and stores of
 * the two halves, not locked adds (a full barrier each, which waits for the
 * stores the kernel made before the tracepoint to drain: a quarter to nearly half
 * of an io_uring probe's run time, bench/results/2026-12-06-intel-busy-tp.md).
 * The entry adds 1 to busy; the exit adds 1 to seq, then takes 1 from busy.
 * Only a probe nested in this one (an interrupt) can run between a load and
 * its store, and that one has ended by then:
 * - in the entry's window it found busy as this one did and put it back, so
 *   the store is still right (its seq increment stands);
 * - in the exit's seq window its seq increment may be lost, but this probe's
 *   busy was visible all along, so no reading of user space that spans it is
 *   trusted, and this probe's own increment still moves seq past every
 *   value read with busy 0 before it entered.
 * Without the barrier the busy store may reach other CPUs after the clock
 * read: for the few microseconds a store can wait in the store buffer
 * (an interrupt or VM exit drains it), which the watermark's millisecond of
 * margin covers.  x86 keeps stores in order (TSO): the records are visible
 * before busy drops, as after the atomic.  A preemptible probe (fexit,
 * uprobe, a faultable syscall tracepoint) must not use these: preempted
 * between a load and its store, it would overwrite the count of a probe that
 * entered meanwhile. */
static __always_inline __u32 katra_busy_tp(void)
{
	__u32 cpu = bpf_get_smp_processor_id();
	volatile __u32 *b;

	if (cpu < KATRA_MAX_CPUS) {
		b = &PEND_SLOT(cpu)->busy;
		*b = *b + 1;
	}
	return cpu;
}

static __always_inline void katra_idle_tp(__u32 cpu)
{
	volatile __u32 *b, *q;

	if (cpu < KATRA_MAX_CPUS) {
		b = &PEND_SLOT(cpu)->busy;
		q = &PEND_SLOT(cpu)->seq;
		*q = *q + 1;
		*b = *b - 1;
	}
}

/* Enters written early (the thread left the CPU mid-syscall), by tid.  A
 * plain hash (an LRU would evict live entries silently): an entry leaves at
 * the syscall's exit or the thread's exit; a full table is counted. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, struct katra_cpu_slot);
} flushed SEC(".maps") __weak;

/* The same, kept with the thread itself (task local storage) where the
 * kernel allows (have_task_storage): a hash update and a delete took a
 * bucket lock and the free list's each, ~200 ns a blocking syscall (bpf_stats,
 * the bench's ping-pong); this is a lookup in the task's own cache.  It holds
 * the current thread's enter only (a task pointer is current's alone here);
 * `flushed` is kept for another thread's and for a refused get.  Where the
 * kernel lacks it the loader makes this a one-entry hash nobody uses (every
 * map a program names must exist to load it). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct katra_cpu_slot);
} pend_tasks SEC(".maps") __weak;

/* The current thread's flushed enter, or NULL (no storage here, or the
 * kernel refused it: a nested probe holds the CPU's storage lock, no memory) */
static __always_inline struct katra_cpu_slot *katra_task_pend(bool create)
{
	if (!have_task_storage)
		return NULL;
	return bpf_task_storage_get(&pend_tasks, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* A page fault between its tracepoint and handle_mm_fault's return, by tid
 * (the handler can sleep and the thread move to another CPU). */
struct fault_start {
	__u64 ts;
	__u64 address;
	__u64 ip;
	__u64 error_code;
	__u32 flushed; /* its Begin was written at a switch-out */
	__u32 ending;  /* its end is being written: a switch-out writes no Begin */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct fault_start);
} fault_starts SEC(".maps") __weak;

/* Set by the loader once fexit/handle_mm_fault is attached (faults are
 * instants until then). */
extern __u32 fault_exit_live;

/* Whether a tracepoint runs in the current task's own context, not in an
 * interrupt that hit it (hardirq, NMI, a softirq being served: timer expiry,
 * I/O completion): the kernel's in_task().  The preempt count that tells it
 * (libbpf's bpf_in_interrupt()) needs the __preempt_count ksym, which a
 * kernel without CONFIG_KALLSYMS_ALL cannot resolve (this one), so it is
 * read from the stack the probe's arguments lie on (args: its ctx; the BPF
 * frame itself may be on a private stack, 6.13):
 * - not current's task->stack: an IRQ, softirq or exception stack (x86_64
 *   moves an interrupt that hits the kernel, and every softirq, there);
 * - the task stack: a syscall (pt_regs->orig_ax is its number), or an
 *   interrupt or exception that came from user mode (x86 does not switch
 *   stacks for those; the entry code sets orig_ax to -1).  So a wakeup a
 *   thread makes in its own page fault, or on its way back to user space
 *   after an interrupt (a fatal signal's exit), also reads as an interrupt.
 * Comparing a pointer with a number is allowed to the privileged programs
 * these are.  THREAD_SIZE is 16 KiB on x86_64 (32 KiB with KASAN, whose
 * deep frames would read as interrupts). */
#define KATRA_THREAD_SIZE 16384
/* FRED (6.9) kernels keep 16 bytes above pt_regs (TOP_OF_KERNEL_STACK_PADDING) */
struct fred_info___katra {
	__u64 edata;
} __attribute__((preserve_access_index));

/* task_pt_regs() of the task whose stack starts at `stack`: the user
 * registers saved at the top of it */
static __always_inline __u64 katra_user_regs(__u64 stack)
{
	return stack + KATRA_THREAD_SIZE - (bpf_core_type_exists(struct fred_info___katra) ? 16 : 0) -
	       bpf_core_type_size(struct pt_regs);
}

static __always_inline __u64 katra_current_stack(void)
{
	if (have_task_btf)
		return (__u64)bpf_get_current_task_btf()->stack;
	return (__u64)BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), stack);
}

/* The current thread's user registers as a BTF pointer (plain loads, not a
 * helper call each), or NULL where the kernel lacks bpf_task_pt_regs. */
static __always_inline struct pt_regs *katra_current_pt_regs(void)
{
	if (!have_task_pt_regs || !have_task_btf)
		return NULL;
	return (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
}

/* katra_in_task() where the caller has current's task->stack (lo).  cast
 * (a constant; only in syscalls.bpf.c's object, the one that may name the
 * bpf_rdonly_cast() kfunc, see io_uring.bpf.h): the user registers are read
 * where the range check assumes them, at the top of that KATRA_THREAD_SIZE
 * stack (katra_user_regs: task_pt_regs() there), as a BTF pointer the
 * verifier makes with a register move, so orig_ax is one inline load (the
 * top of a live task's stack is always mapped), not a bpf_task_pt_regs()
 * helper call. */
static __always_inline bool katra_in_task_of(__u64 lo, const void *args, bool cast)
{
	__u64 hi = lo + KATRA_THREAD_SIZE, at = (__u64)args;
	struct pt_regs *regs;
	long orig_ax = -1;

	/* two comparisons, never arithmetic on the pointer (which the verifier
	 * refuses): the empty asm keeps clang from folding them into one */
	asm volatile("" : "+r"(hi));
	if (!(at >= lo && at < hi))
		return false;
	if (cast && have_rdonly_cast) {
		regs = bpf_rdonly_cast((void *)katra_user_regs(lo),
				       bpf_core_type_id_kernel(struct pt_regs));
		return (long)regs->orig_ax != -1;
	}
	regs = katra_current_pt_regs();
	if (regs)
		return (long)regs->orig_ax != -1;
	bpf_probe_read_kernel(&orig_ax, sizeof(orig_ax),
			      (void *)(katra_user_regs(lo) + bpf_core_field_offset(struct pt_regs, orig_ax)));
	return orig_ax != -1;
}

static __always_inline bool katra_in_task(const void *args)
{
	return katra_in_task_of(katra_current_stack(), args, false);
}

static __always_inline bool katra_tracked(__u32 tgid)
{
	/* tgid < PID_MAX_LIMIT (4M on 64-bit); the mask is for the verifier */
	__u32 i = (tgid >> 6) & (KATRA_PID_LIMIT / 64 - 1);

	return (tracked_bits[i] | forked_bits[i]) & (1ull << (tgid & 63));
}

static __always_inline void katra_set_tracked(__u32 tgid, bool on)
{
	__u32 i = (tgid >> 6) & (KATRA_PID_LIMIT / 64 - 1);

	__u64 bit = 1ull << (tgid & 63);

	if (on && !(forked_bits[i] & bit)) {
		__sync_fetch_and_add(&forked_bits[i], bit);
		__sync_fetch_and_add(&task_news[0], 1);
		/* the next commit wakes the capture loop, which then reads at
		 * once (a short process's /proc is gone soon) */
		consumer_wake[0] = 1;
	}
	/* untracking is user space's (after the process's last exit) */
}

/* Reserve a record of `size` bytes in this CPU's ring; on failure counts the
 * `nevents` trace events the record would have become (a combined syscall is
 * a Begin and an End), so that events written + events lost = what happened.
 * *rbp receives the ring for katra_submit(). */
static __always_inline void *katra_reserve(void **rbp, __u32 cpu, __u64 size, __u32 nevents)
{
	void *rb, *e;

	rb = bpf_map_lookup_elem(&rings, &cpu);
	if (!rb)
		goto drop;
	e = bpf_ringbuf_reserve(rb, size, 0);
	if (!e)
		goto drop;
	*rbp = rb;
	return e;
drop:
	if (cpu < KATRA_MAX_CPUS)
		__sync_fetch_and_add(&ring_drops[katra_bound(cpu, KATRA_MAX_CPUS - 1)], nevents);
	return NULL;
}

static __always_inline __u64 katra_wake_flags(void *rb, __u32 cpu, __u32 every);

/* Submit without waking the consumer, except when the ring's unread data has
 * crossed wakeup_bytes since the last check (the fill is sampled every 16
 * records: bpf_ringbuf_query costs a helper call) or the consumer sleeps for
 * want of records (consumer_wake); else the consumer polls on a timer. */
static __always_inline void katra_submit(void *rb, void *e, __u32 cpu)
{
	bpf_ringbuf_submit(e, katra_wake_flags(rb, cpu, 15));
}

/* ---- staging: the frequent records of the tracepoint probes (a syscall's
 * combined record, a switch) are written into their CPU's staging area with
 * plain stores and moved into the ring as one batch record (struct
 * katra_ev_batch, one bpf_ringbuf_output for many records).
 *
 * Who may write it: the probe that holds the CPU's busy count alone (it read
 * busy == 1 after its own increment).  A probe nested in it (an interrupt),
 * or one that runs while a preemptible probe (uprobe, fexit) holds busy,
 * reads more and writes into the ring directly (katra_put); the ring's FIFO in
 * user space sorts by key, so a batch may follow records younger than it.
 * This needs no atomic fetch (5.12): a nested probe has undone its increment
 * before the outer one reads.
 *
 * Ordering and the watermark: the batch's head.ts is the smallest key staged,
 * published (with the records) before busy is dropped; user space's
 * watermark for the CPU is at most that, so nothing staged is released, nor
 * anything after it, before it is in the ring (SPEC §10).
 *
 * When it moves into the ring: when the next record does not fit; when its
 * oldest record is KATRA_STAGE_AGE_NS old at the next staging; at a switch
 * to the idle task or to a thread not traced (a switch between two traced
 * threads keeps staging: see on_switch); and when user
 * space asks (katra_stage_flush_prog, run on that CPU by BPF_PROG_TEST_RUN,
 * for a CPU whose oldest staged key holds the watermark back, and at the end
 * of the capture).  Loss counting: a batch the ring refuses counts its
 * `events` in ring_drops[cpu], as the records would have one by one.
 * staging_on is set by user space after load once it has run the flush
 * program on a CPU: a kernel that cannot (no test run of raw_tp on a CPU,
 * before 5.10) keeps every record on the direct path. */
#define KATRA_STAGE_BYTES  2048 /* a batch, header included, at most */
#define KATRA_STAGE_STRIDE 2304 /* per CPU: the slack keeps every write in bounds */
#define KATRA_STAGE_AGE_NS 1000000ull
/* The batch's size here, set by the loader: KATRA_STAGE_BYTES, or a quarter
 * of a smaller ring's (--buffer-size 4K: 1024).  A batch leaves as one
 * bpf_ringbuf_output (the ring's lock, the copy, a query): a 1 KiB batch
 * left every 3 rounds of benchwl uring (256 bytes a round), 2 KiB every 7.
 * Not more: .bss is one array map value, which Linux 5.10 caps at
 * KMALLOC_MAX_SIZE (4 MiB: E2BIG), and the staging areas of 1,024 possible
 * CPUs are most of it (2.3 of 3.4 MiB).  At least 1024, so that the largest
 * room asked (place_call's) fits an empty batch. */
extern const volatile __u32 stage_limit;
extern __u64 stage_words[KATRA_MAX_CPUS * (KATRA_STAGE_STRIDE / 8)];
extern __u32 staging_on;
#define STAGE_OF(cpu)                                                                          \
	((struct katra_ev_batch *)&stage_words[katra_bound(cpu, KATRA_MAX_CPUS - 1) *          \
					       (KATRA_STAGE_STRIDE / 8)])

/* After katra_busy(): whether this probe alone holds the CPU (may stage). */
static __always_inline bool katra_owns_cpu(__u32 cpu)
{
	if (cpu >= KATRA_MAX_CPUS || !staging_on)
		return false;
	return *(volatile __u32 *)&PEND_SLOT(cpu)->busy == 1;
}

/* io_uring (io_uring.bpf.h, known_ring): the ring table's generation,
 * bumped by user space after it deletes entries (a line of its own, read by
 * every submit), and per CPU (8 words each, a line) the ring its last
 * submit found in the table and the generation then (words 0, 1); words
 * 2-4 (PLACE_OF): the place taken in the staging area for the combined
 * record of the io_uring_enter under way on this CPU (io_uring.bpf.h,
 * place_call): offset + 1 (0: none), the STAGE_GEN then, its enter time. */
extern __u64 uring_gen[8];
extern __u64 uring_seen[KATRA_MAX_CPUS * 8];
#define KATRA_NR_IO_URING_ENTER 426
#define PLACE_OF(cpu) (&uring_seen[katra_bound(cpu, KATRA_MAX_CPUS - 1) * 8 + 2])

/* Per CPU (a cache line each): the producer position of its ring at which
 * the consumer's marker wants its wakeup, 0 for none; set by the marker at
 * each mark, cleared by the commit that wakes it (drain/drain.h). */
extern __u64 mark_wake[KATRA_MAX_CPUS * 8];
#define MARK_WAKE_OF(cpu) (&mark_wake[katra_bound(cpu, KATRA_MAX_CPUS - 1) * 8])

/* The wakeup flags for a commit to ring rb of this CPU (see katra_submit). */
static __always_inline __u64 katra_wake_flags(void *rb, __u32 cpu, __u32 every)
{
	struct katra_cpu_slot *s;
	__u64 flags = BPF_RB_NO_WAKEUP, avail, at;

	if (*(volatile __u32 *)&consumer_wake[0]) {
		consumer_wake[0] = 0;
		return BPF_RB_FORCE_WAKEUP;
	}
	if (cpu < KATRA_MAX_CPUS) {
		s = PEND_SLOT(cpu);
		if (!(++s->nsubmit & every)) {
			avail = bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA);
			if (avail >= wakeup_bytes && s->wake_avail < wakeup_bytes)
				flags = BPF_RB_FORCE_WAKEUP;
			s->wake_avail = avail;
			at = *(volatile __u64 *)MARK_WAKE_OF(cpu);
			if (at && bpf_ringbuf_query(rb, BPF_RB_PROD_POS) >= at) {
				*MARK_WAKE_OF(cpu) = 0;
				flags = BPF_RB_FORCE_WAKEUP;
			}
		}
	}
	return flags;
}

/* Batches this CPU's staging area has sent: a word in its stride past the
 * KATRA_STAGE_BYTES a batch may use (never a record's, never sent), so a
 * place taken in a batch (KATRA_EV_HOLE) is known to be still there. */
#define STAGE_GEN(cpu) (*(__u64 *)((__u8 *)STAGE_OF(cpu) + KATRA_STAGE_BYTES))
_Static_assert(KATRA_STAGE_BYTES + 8 <= KATRA_STAGE_STRIDE, "the batch count past the batch");

/* Moves this CPU's staged records into its ring (the caller owns the CPU). */
static __always_inline void katra_stage_flush(__u32 cpu)
{
	struct katra_ev_batch *b = STAGE_OF(cpu);
	__u32 bytes = b->bytes;
	void *rb;

	if (!bytes)
		return;
	STAGE_GEN(cpu)++;
	rb = bpf_map_lookup_elem(&rings, &cpu);
	if (!rb || bpf_ringbuf_output(rb, b, sizeof(*b) + katra_bound(bytes, KATRA_STAGE_BYTES - 1),
				      katra_wake_flags(rb, cpu, 0)))
		__sync_fetch_and_add(&ring_drops[katra_bound(cpu, KATRA_MAX_CPUS - 1)], b->events);
	b->bytes = 0;
	b->events = 0;
	b->head.ts = 0;
}

/* Room for a record of `size` bytes that sorts at `key`, in this CPU's
 * staging area (the caller owns the CPU); `now` is the probe's clock.
 * Returns the record's offset after the batch header.  A global function
 * (defined in common.bpf.c): the verifier checks it once per program, where
 * inlined it was checked at every call site and on every path reaching one
 * (a switch's program went from ~2,000 instructions verified to ~5,800 with
 * its second staged record, ~20 ms more before a capture is live). */
__u32 katra_stage_room(__u32 cpu, __u32 size, __u32 nevents, __u64 key, __u64 now);

static __always_inline void *katra_stage(__u32 cpu, __u32 size, __u32 nevents, __u64 key,
					 __u64 now)
{
	__u32 off = katra_stage_room(cpu, size, nevents, key, now);

	return (__u8 *)STAGE_OF(cpu) + sizeof(struct katra_ev_batch) +
	       katra_bound(off, KATRA_STAGE_BYTES - 1);
}

/* A record of `size` bytes (a constant) sorting at `key`: in the staging
 * area when this probe owns the CPU, else in `scratch` (zeroed), which
 * katra_put_done() then copies into the ring (bpf_ringbuf_output: no
 * reservation for the verifier to pair with a submit on every path).  Never
 * NULL.  Every record's size is a multiple of 8 (wire.h). */
static __always_inline void *katra_put(void *scratch, __u32 cpu, bool own, __u64 size,
				       __u32 nevents, __u64 key, __u64 now)
{
	if (own)
		return katra_stage(cpu, size, nevents, key, now);
	__builtin_memset(scratch, 0, size);
	return scratch;
}

/* A record katra_put() gave: staged, it is there already; else into the
 * ring now, its `nevents` counted lost if the ring refuses it. */
static __always_inline void katra_put_done(void *e, __u32 cpu, bool own, __u64 size,
					   __u32 nevents)
{
	void *rb;

	if (own)
		return;
	rb = bpf_map_lookup_elem(&rings, &cpu);
	if (!rb || bpf_ringbuf_output(rb, e, size, katra_wake_flags(rb, cpu, 15))) {
		if (cpu < KATRA_MAX_CPUS)
			__sync_fetch_and_add(&ring_drops[katra_bound(cpu, KATRA_MAX_CPUS - 1)],
					     nevents);
	}
}

static __always_inline void katra_head(struct katra_wire_head *h, __u32 type, __u32 cpu,
				       __u64 pid_tgid, __u64 ts)
{
	h->type = type;
	h->cpu = cpu;
	h->tgid = pid_tgid >> 32;
	h->tid = (__u32)pid_tgid;
	h->ts = ts;
}

/* Write the enter in CPU slot p as its own ENTER-only record, under the ids
 * of thread `pid_tgid` (whose it is), and keep it for its exit: with the
 * thread when it is the current one (`current`), else in `flushed`.  Staged
 * when this probe owns the CPU (it sorts at its enter). */
static __always_inline void katra_flush_slot(struct katra_cpu_slot *p, __u64 pid_tgid, __u32 cpu,
					     bool own, bool current, __u64 ts)
{
	struct katra_cpu_slot *t = current ? katra_task_pend(true) : NULL;
	struct katra_ev_syscall *e, scratch;
	__u32 tid = pid_tgid;

	p->state = 0;
	if (t) {
		__builtin_memcpy(t, p, sizeof(*t));
		t->state = KATRA_SLOT_ACTIVE;
	} else {
		/* if the table is full the exit is written without its enter
		 * (an instant), and the loss is counted */
		katra_map_put(&flushed, &tid, p, BPF_ANY, KTABLE_SYSCALLS);
	}
	e = katra_put(&scratch, cpu, own, sizeof(*e), 1, p->enter_ts, ts);
	katra_head(&e->head, KATRA_EV_SYSCALL, cpu, pid_tgid, ts);
	e->enter_ts = p->enter_ts;
	e->exit_ts = 0;
	e->ret = 0;
	__builtin_memcpy(e->args, p->args, sizeof(e->args));
	e->dev = p->dev;
	e->ino = p->ino;
	e->aux = p->aux;
	e->nr = p->nr;
	e->flags = KATRA_SC_ENTER | p->sc_flags;
	katra_put_done(e, cpu, own, sizeof(*e), 1);
}

/* Write the current thread's pending enter (it is leaving the CPU or the
 * process), if this CPU's slot holds one. */
static __always_inline void katra_flush_pending(__u64 pid_tgid, __u32 cpu, bool own, __u64 ts)
{
	struct katra_cpu_slot *p;

	if (cpu >= KATRA_MAX_CPUS)
		return;
	p = PEND_SLOT(cpu);
	if (!(p->state & KATRA_SLOT_ACTIVE) || p->tid != (__u32)pid_tgid)
		return;
	katra_flush_slot(p, pid_tgid, cpu, own, true, ts);
}

/* A fault starts on this CPU: the watermark waits for it (records may
 * still sort at its time), and the slot's state says it is pending. */
static __always_inline void katra_fault_pending(__u32 cpu, __u64 ts)
{
	struct katra_cpu_slot *p = PEND_SLOT(cpu);

	p->fault_ts = ts;
	p->state |= KATRA_SLOT_FAULT;
}

/* The fault that started at ts is written (or its Begin is): nothing more
 * sorts at its time. */
static __always_inline void katra_fault_settled(__u32 cpu, __u64 ts)
{
	struct katra_cpu_slot *p = PEND_SLOT(cpu);

	if (p->fault_ts == ts) {
		p->fault_ts = 0;
		p->state &= ~KATRA_SLOT_FAULT;
	}
}

/* Writes a page fault: measured (enter_ts .. end_ts) or an instant.  Its end
 * (the fexit, preemptible on a preemptible kernel) first marks the fault as
 * ending, then asks whether a switch-out wrote its Begin: a switch-out of
 * this thread before the mark wrote it (then this is the End), one after it
 * writes nothing (then this is Begin and End); both run on this thread's CPU
 * (the fexit cannot migrate), so one of the two, never both, writes it. */
static __always_inline void katra_emit_fault(__u32 cpu, bool own, __u64 pid_tgid,
					     struct fault_start *s, __u64 end_ts, __u32 flags)
{
	struct katra_ev_page_fault *e, scratch;
	__u32 nevents;
	__u64 start;

	if (flags & (KATRA_PF_MEASURED | KATRA_PF_END)) {
		s->ending = 1;
		asm volatile("" ::: "memory");
		flags = (flags & ~(KATRA_PF_MEASURED | KATRA_PF_END)) |
			(*(volatile __u32 *)&s->flushed ? KATRA_PF_END : KATRA_PF_MEASURED);
	}
	/* a measured fault is a Begin and an End; staged when the caller owns
	 * the CPU, sorting at its start (no later than any event it becomes) */
	nevents = flags & KATRA_PF_MEASURED ? 2 : 1;
	start = flags & (KATRA_PF_MEASURED | KATRA_PF_BEGIN | KATRA_PF_END) ? s->ts : end_ts;
	e = katra_put(&scratch, cpu, own, sizeof(*e), nevents, start, end_ts);
	katra_head(&e->head, KATRA_EV_PAGE_FAULT, cpu, pid_tgid, end_ts);
	e->address = s->address;
	e->ip = s->ip;
	e->error_code = s->error_code;
	e->enter_ts = start;
	e->flags = flags;
	e->pad = 0;
	katra_put_done(e, cpu, own, sizeof(*e), nevents);
	/* written (a Begin too): nothing more sorts at its time */
	katra_fault_settled(cpu, s->ts);
}

/* A fault of this thread still waiting for its fexit, which never came: the
 * kernel refused it before handle_mm_fault (a bad address, a write to a
 * read-only page: SIGSEGV).  The thread is past it (it faults again, makes a
 * syscall, exits), so it is written as an instant at its own time (the
 * watermark waited for it); one whose Begin went out at a switch-out is
 * ended here. */
static __always_inline void katra_flush_fault(__u32 cpu, __u64 pid_tgid, __u64 ts)
{
	__u32 tid = pid_tgid;
	struct fault_start *s = bpf_map_lookup_elem(&fault_starts, &tid);

	if (!s)
		return;
	if (s->flushed)
		katra_emit_fault(cpu, false, pid_tgid, s, ts, KATRA_PF_END);
	else
		katra_emit_fault(cpu, false, pid_tgid, s, s->ts, 0);
	bpf_map_delete_elem(&fault_starts, &tid);
}

/* Whether the current thread, leaving the CPU with fault s pending, is no
 * longer inside it: its user registers have moved on (a signal frame, an
 * emulated instruction), or the fault's SIGSEGV/SIGBUS is queued (it is
 * preempted on its way back to user space).  Inside handle_mm_fault neither
 * holds: ip is still the faulting instruction. */
#define KATRA_SIGBUS_BIT  (1ull << (7 - 1))
#define KATRA_SIGSEGV_BIT (1ull << (11 - 1))

static __always_inline bool katra_fault_refused(const struct fault_start *s)
{
	struct pt_regs *regs = katra_current_pt_regs();
	__u64 ip = 0, sig;

	if (regs)
		ip = regs->ip;
	else
		bpf_probe_read_kernel(&ip, sizeof(ip), (void *)(katra_user_regs(katra_current_stack()) +
							  bpf_core_field_offset(struct pt_regs, ip)));
	if (ip != s->ip)
		return true;
	if (have_task_btf)
		sig = bpf_get_current_task_btf()->pending.signal.sig[0];
	else
		sig = BPF_CORE_READ((struct task_struct *)bpf_get_current_task(),
				    pending.signal.sig[0]);
	return sig & (KATRA_SIGBUS_BIT | KATRA_SIGSEGV_BIT);
}

/* The thread leaves the CPU with a fault pending.  Inside a measured fault
 * (handle_mm_fault sleeps): its Begin now, so that it comes before the
 * thread's OffCpu (the End follows at the return).  Past a refused one: the
 * instant at its own time, never a span over the time off the CPU. */
static __always_inline void katra_flush_fault_begin(__u32 cpu, __u64 pid_tgid, __u64 ts)
{
	__u32 tid = pid_tgid;
	struct fault_start *s;

	if (!fault_exit_live)
		return;
	s = bpf_map_lookup_elem(&fault_starts, &tid);
	if (!s || s->flushed || s->ending)
		return;
	if (katra_fault_refused(s)) {
		katra_emit_fault(cpu, false, pid_tgid, s, s->ts, 0);
		bpf_map_delete_elem(&fault_starts, &tid);
		return;
	}
	katra_emit_fault(cpu, false, pid_tgid, s, ts, KATRA_PF_BEGIN);
	s->flushed = 1;
}

#endif /* KATRA_COMMON_BPF_H */
