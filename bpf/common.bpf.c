// SPDX-License-Identifier: GPL-2.0-only
/* The one definition of the globals shared by every katra probe object. */
#include "common.bpf.h"

const volatile bool follow_children = true;
const volatile bool record_paths = false;
const volatile __u32 wakeup_bytes = 1 << 19;
const volatile __u32 stage_limit = KATRA_STAGE_BYTES;
const volatile __u64 decoded_nrs[KATRA_NR_LIMIT / 64];
const volatile __u64 mid_nrs[KATRA_NR_LIMIT / 64];
const volatile bool select_all = true;
const volatile __u64 selected_nrs[KATRA_NR_LIMIT / 64];
const volatile bool record_sched = true;

__u64 ring_drops[KATRA_MAX_CPUS];
__u32 fault_exit_live;
__u64 tracked_bits[KATRA_PID_LIMIT / 64];
__u64 forked_bits[KATRA_PID_LIMIT / 64];
__u64 pend_words[KATRA_MAX_CPUS * 16];
__u64 stage_words[KATRA_MAX_CPUS * (KATRA_STAGE_STRIDE / 8)];
__u32 staging_on;
__u32 consumer_wake[16] __attribute__((aligned(64)));
__u64 task_news[8] __attribute__((aligned(64)));
__u64 uring_gen[8] __attribute__((aligned(64)));
__u64 uring_seen[KATRA_MAX_CPUS * 8] __attribute__((aligned(64)));
__u64 mark_wake[KATRA_MAX_CPUS * 8] __attribute__((aligned(64)));
__u64 ktable_drops[KTABLE_COUNT];
const volatile bool exit_has_group_dead;
const volatile bool switch_has_prev_state = true;
const volatile bool have_task_btf = true;
const volatile bool have_attach_cookie = true;
const volatile bool have_task_pt_regs;
const volatile __u32 uring_complete_args = 3;
const volatile bool have_rdonly_cast;
const volatile bool have_task_storage;
const volatile bool syscall_tp_unpreempted;

/* common.bpf.h: katra_stage() */

__noinline __u32 katra_stage_room(__u32 cpu, __u32 size, __u32 nevents, __u64 key, __u64 now)
{
	struct katra_ev_batch *b = STAGE_OF(cpu);
	__u32 used = b->bytes;

	if (used && (used + size > stage_limit - sizeof(*b) ||
		     now - b->head.ts > KATRA_STAGE_AGE_NS)) {
		katra_stage_flush(cpu);
		used = 0;
	}
	if (!used) {
		b->head.type = KATRA_EV_BATCH;
		b->head.cpu = cpu;
		b->head.tgid = 0;
		b->head.tid = 0;
		b->head.ts = key;
		b->events = 0;
	} else if (key < b->head.ts) {
		b->head.ts = key;
	}
	b->bytes = used + size;
	b->events += nevents;
	return used;
}

char LICENSE[] SEC("license") = "GPL";
