// SPDX-License-Identifier: GPL-2.0-only
/* The staging area's flush on user space's request (common.bpf.h,
 * "staging"): never attached; user space runs it on one CPU with
 * BPF_PROG_TEST_RUN (BPF_F_TEST_RUN_ON_CPU: an IPI, or in place on the CPU it
 * runs on) when that CPU's oldest staged record holds the watermark back, and
 * on every CPU at the end of the capture.  A probe it interrupted holds the
 * CPU's busy count: then it does nothing (the next round asks again). */
#include "common.bpf.h"

SEC("raw_tp")
int katra_stage_flush_prog(void *ctx)
{
	__u32 cpu = katra_busy();

	if (katra_owns_cpu(cpu))
		katra_stage_flush(cpu);
	katra_idle(cpu);
	return 0;
}
