// SPDX-License-Identifier: GPL-2.0-only
/* --sample-hz: a timer sample (perf_event cpu-clock, one event a CPU, all
 * tasks) of the traced thread running when it fires, captured as --stacks
 * captures an off-CPU stack (bpf/stacks.bpf.h) and written to the stack ring
 * at once.  Loaded only with --sample-hz (the loader turns it off else). */
#include "common.bpf.h"
#include "stacks.bpf.h"

const volatile __u64 sample_period_ns;

SEC("perf_event")
int pe_stack_sample(struct bpf_perf_event_data *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct katra_stack_rec *s;
	__u32 zero = 0;

	if (!(pid_tgid >> 32) || !katra_tracked(pid_tgid >> 32))
		return 0;
	/* stack_blank as scratch: its one other user, the switch probe, runs
	 * with interrupts off (this timer's sample cannot land inside it), and
	 * it is the source of a slot whose every field is then written;
	 * stack_scratch is not: a syscall's exit probe may be interrupted */
	s = bpf_map_lookup_elem(&stack_blank, &zero);
	if (!s)
		return 0;
	s->tgid = pid_tgid >> 32;
	s->tid = pid_tgid;
	s->begin_ts = bpf_ktime_get_ns();
	s->end_ts = s->begin_ts + sample_period_ns;
	s->site = KATRA_WSTACK_SAMPLE;
	/* the kernel's stack when the timer fired there (in user code: none) */
	katra_stack_kernel(ctx, s);
	/* the user registers: the interrupted ones in user code, else those
	 * the thread entered the kernel with (both at the top of its stack) */
	katra_stack_user(s);
	katra_stack_write(s);
	return 0;
}
