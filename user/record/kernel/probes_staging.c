// SPDX-License-Identifier: GPL-2.0-only
/* User space's side of the probes' staging areas (bpf/common.bpf.h,
 * "staging"): whether the kernel lets us flush one on request, the oldest
 * key one holds (the watermark's bound), and the flush itself. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "katra.skel.h"
#include "probes_int.h"

static const struct katra_ev_batch *stage_of(const struct katra_probes *p, unsigned cpu)
{
	return (const struct katra_ev_batch *)&p->skel->bss
		->stage_words[(size_t)cpu * (sizeof(p->skel->bss->stage_words) / 8 / 1024)];
}

int pk_stage_flush(const struct katra_probes *p, unsigned cpu)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu);

	if (bpf_prog_test_run_opts(bpf_program__fd(p->skel->progs.katra_stage_flush_prog), &opts))
		return -errno;
	return 0;
}

void pk_stage_enable(struct katra_probes *p)
{
	/* only where user space can empty an idle CPU's area: otherwise its
	 * records could hold the watermark back until that CPU runs a probe */
	if (getenv("KATRA_TEST_NO_STAGING") || pk_stage_flush(p, 0))
		return;
	__atomic_store_n(&p->skel->bss->staging_on, 1, __ATOMIC_SEQ_CST);
}

uint64_t pk_staged_key(const struct katra_probes *p, unsigned cpu)
{
	return __atomic_load_n(&stage_of(p, cpu)->head.ts, __ATOMIC_ACQUIRE);
}

void pk_stage_flush_all(const struct katra_probes *p)
{
	for (unsigned i = 0; i < p->nrings; i++)
		if (__atomic_load_n(&stage_of(p, i)->bytes, __ATOMIC_ACQUIRE))
			pk_stage_flush(p, i);
}

/* Not staging, but the same .bss: the processes the probes began to track. */
uint64_t katra_probes_task_news(const struct katra_probes *p)
{
	return __atomic_load_n(&p->skel->bss->task_news[0], __ATOMIC_RELAXED);
}

uint64_t *katra_probes_mark_wake(const struct katra_probes *p)
{
	return (uint64_t *)&p->skel->bss->mark_wake[0];
}
