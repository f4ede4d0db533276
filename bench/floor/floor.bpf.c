// SPDX-License-Identifier: GPL-2.0-only
/* The floor: the same attach points as katra-record, nothing else.
 * FLOOR_RINGBUF=0 (floor-noop): each program returns right after the
 * tracked-tgid check.  FLOOR_CLOCK=1 (floor-clock): it also reads the clock
 * once (bpf_ktime_get_ns, as every katra probe and floor-ringbuf do), kept
 * in a per-CPU line: what that read costs on this host, beside the rest.
 * FLOOR_RINGBUF=1 (floor-ringbuf): each also writes a
 * fixed 48-byte record into ONE BPF ring buffer, no wakeup (user space polls
 * on a timer and only counts).  The check is a .bss bitmap load, as katra's. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define PID_LIMIT (1u << 22)

__u64 tracked_bits[PID_LIMIT / 64];
__u64 drops;
#if FLOOR_CLOCK
__u64 clock_sink[64 * 8]; /* a 64-byte line per CPU (CPU mod 64) */
#endif

struct rec {
	__u32 type, cpu;
	__u64 pid_tgid, ts, a, b, c;
};
_Static_assert(sizeof(struct rec) == 48, "48-byte record");

#if FLOOR_RINGBUF
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 21); /* the loader sets the size */
} ring SEC(".maps");
#endif

static __always_inline int hit(__u32 type, __u64 a)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32, i = (tgid >> 6) & (PID_LIMIT / 64 - 1);

	if (!(tracked_bits[i] & (1ull << (tgid & 63))))
		return 0;
#if FLOOR_CLOCK
	clock_sink[(bpf_get_smp_processor_id() & 63) * 8] = bpf_ktime_get_ns();
#endif
#if FLOOR_RINGBUF
	struct rec *r = bpf_ringbuf_reserve(&ring, sizeof(*r), 0);

	if (!r) {
		__sync_fetch_and_add(&drops, 1);
		return 0;
	}
	r->type = type;
	r->cpu = bpf_get_smp_processor_id();
	r->pid_tgid = pid_tgid;
	r->ts = bpf_ktime_get_ns();
	r->a = a;
	r->b = 0;
	r->c = 0;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
#endif
	return 0;
}

#define FLOOR_TP(name, id)                                              \
	SEC("tp_btf/" #name)                                            \
	int BPF_PROG(f_##name, __u64 a0)                                \
	{                                                               \
		return hit(id, a0);                                     \
	}

FLOOR_TP(sys_enter, 1)
FLOOR_TP(sys_exit, 2)
FLOOR_TP(sched_switch, 3)
FLOOR_TP(sched_waking, 4)
FLOOR_TP(sched_wakeup_new, 5)
FLOOR_TP(sched_process_fork, 6)
FLOOR_TP(sched_process_exec, 7)
FLOOR_TP(sched_process_exit, 8)
FLOOR_TP(page_fault_user, 9)
FLOOR_TP(io_uring_create, 10)
FLOOR_TP(io_uring_submit_req, 11)
FLOOR_TP(io_uring_complete, 12)

char LICENSE[] SEC("license") = "GPL";
