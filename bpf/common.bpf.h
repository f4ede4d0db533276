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

#define KATRA_MAX_CPUS 1024

/* Set by the loader between open and load. */
extern const volatile bool follow_children;
extern const volatile bool record_paths;
extern const volatile __u32 wakeup_bytes;
/* Syscall numbers whose arguments user space decodes (one bit each); the
 * others get the short record. */
#define KATRA_NR_LIMIT 512
extern const volatile __u64 decoded_nrs[KATRA_NR_LIMIT / 64];

/* Failed reservations per ring (CPU); user space reads them from .bss. */
extern __u64 ring_drops[KATRA_MAX_CPUS];

/* Tracked processes: one bit per possible pid (PID_MAX_LIMIT on 64-bit), in
 * .bss so the check on every probe is a plain load (a hash lookup costs a
 * helper call and a jhash).  User space sets bits through the mmap'ed .bss. */
#define KATRA_PID_LIMIT (1u << 22)
extern __u64 tracked_bits[KATRA_PID_LIMIT / 64];

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

/* A syscall between its enter and its exit.  While the thread stays on the
 * CPU it sits in that CPU's slot (a plain .bss access): a thread cannot leave
 * the CPU without a sched_switch, which moves it into `flushed` (by tid). */
#define PEND_ACTIVE (1u << 0) /* an enter is stored and its exit not seen */

struct sc_pending {
	__u64 enter_ts;
	__u64 args[6];
	__u64 dev;
	__u64 ino;
	__u64 aux;
	__u32 nr;
	__u32 sc_flags; /* KATRA_SC_FILE / KATRA_SC_AUX */
	__u32 state;    /* PEND_* */
	__u32 tid;
	__u64 wake_avail; /* ring fill seen at the last wakeup check (katra_submit) */
	__u64 nsubmit;    /* records submitted on this CPU */
	__u64 pad[2];     /* one slot = two cache lines: no sharing between CPUs */
};

/* Declared as words so the skeleton need not know struct sc_pending. */
#define PEND_WORDS (sizeof(struct sc_pending) / 8)
extern __u64 pend_words[KATRA_MAX_CPUS * 16];
#define PEND_SLOT(cpu) ((struct sc_pending *)&pend_words[(cpu) * PEND_WORDS])
_Static_assert(sizeof(struct sc_pending) == 128, "one slot is two cache lines");

/* Enters written early (the thread left the CPU mid-syscall), by tid. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct sc_pending);
} flushed SEC(".maps") __weak;

/* A page fault between its tracepoint and handle_mm_fault's return, by tid
 * (the handler can sleep and the thread move to another CPU). */
struct fault_start {
	__u64 ts;
	__u64 address;
	__u64 ip;
	__u64 error_code;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct fault_start);
} fault_starts SEC(".maps") __weak;

/* Set by the loader once fexit/handle_mm_fault is attached (faults are
 * instants until then). */
extern __u32 fault_exit_live;

static __always_inline bool katra_tracked(__u32 tgid)
{
	/* tgid < PID_MAX_LIMIT (4M on 64-bit); the mask is for the verifier */
	__u32 i = (tgid >> 6) & (KATRA_PID_LIMIT / 64 - 1);

	return tracked_bits[i] & (1ull << (tgid & 63));
}

static __always_inline void katra_set_tracked(__u32 tgid, bool on)
{
	__u32 i = (tgid >> 6) & (KATRA_PID_LIMIT / 64 - 1);

	if (on)
		__sync_fetch_and_or(&tracked_bits[i], 1ull << (tgid & 63));
	else
		__sync_fetch_and_and(&tracked_bits[i], ~(1ull << (tgid & 63)));
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
		__sync_fetch_and_add(&ring_drops[cpu], nevents);
	return NULL;
}

/* Submit without waking the consumer, except when the ring's unread data has
 * crossed wakeup_bytes since the last check; the fill is sampled every 16
 * records (bpf_ringbuf_query costs a helper call), and the consumer also polls
 * on a timer. */
static __always_inline void katra_submit(void *rb, void *e, __u32 cpu)
{
	__u64 flags = BPF_RB_NO_WAKEUP, avail;
	struct sc_pending *s;

	if (cpu < KATRA_MAX_CPUS) {
		s = PEND_SLOT(cpu);
		if (!(++s->nsubmit & 15)) {
			avail = bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA);
			if (avail >= wakeup_bytes && s->wake_avail < wakeup_bytes)
				flags = BPF_RB_FORCE_WAKEUP;
			s->wake_avail = avail;
		}
	}
	bpf_ringbuf_submit(e, flags);
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

/* Write the current thread's pending enter as its own ENTER-only record (it is
 * leaving the CPU or the process) and move it to `flushed` for its exit. */
static __always_inline void katra_flush_pending(__u64 pid_tgid, __u32 cpu, __u64 ts)
{
	struct katra_ev_syscall *e;
	struct sc_pending *p;
	__u32 tid = pid_tgid;
	void *rb;

	if (cpu >= KATRA_MAX_CPUS)
		return;
	p = PEND_SLOT(cpu);
	if (!(p->state & PEND_ACTIVE) || p->tid != tid)
		return;
	p->state = 0;
	bpf_map_update_elem(&flushed, &tid, p, BPF_ANY);
	e = katra_reserve(&rb, cpu, sizeof(*e), 1);
	if (!e)
		return;
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
	katra_submit(rb, e, cpu);
}

/* Writes a page fault: measured (enter_ts .. end_ts) or an instant. */
static __always_inline void katra_emit_fault(__u64 pid_tgid, const struct fault_start *s,
					     __u64 end_ts, __u32 flags)
{
	struct katra_ev_page_fault *e;
	__u32 cpu = bpf_get_smp_processor_id();
	void *rb;

	/* a measured fault is a Begin and an End */
	e = katra_reserve(&rb, cpu, sizeof(*e), flags & KATRA_PF_MEASURED ? 2 : 1);
	if (!e)
		return;
	katra_head(&e->head, KATRA_EV_PAGE_FAULT, cpu, pid_tgid, end_ts);
	e->address = s->address;
	e->ip = s->ip;
	e->error_code = s->error_code;
	e->enter_ts = flags & KATRA_PF_MEASURED ? s->ts : end_ts;
	e->flags = flags;
	e->pad = 0;
	katra_submit(rb, e, cpu);
}

/* A fault of this thread still waiting for its fexit (it never came: the
 * fault was refused before handle_mm_fault) is written as an instant. */
static __always_inline void katra_flush_fault(__u64 pid_tgid, __u64 ts)
{
	__u32 tid = pid_tgid;
	struct fault_start *s = bpf_map_lookup_elem(&fault_starts, &tid);

	if (!s)
		return;
	katra_emit_fault(pid_tgid, s, ts, 0);
	bpf_map_delete_elem(&fault_starts, &tid);
}

#endif /* KATRA_COMMON_BPF_H */
