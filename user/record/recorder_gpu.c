// SPDX-License-Identifier: GPL-2.0-only
/* The GPU layer's counts of other processes' work (bpf/gpu_totals.bpf.h)
 * written as Counter records: the kernel's table read whole, and per fence
 * context each kind that changed since it was last written, so that a
 * trace's counters are a series over the capture (one per counter tick)
 * whose last values are the capture's totals. */
#include <stdio.h>
#include <string.h>

#include "recorder_run.h"

#define GPU_CONTEXTS 4096 /* as many as the kernel's table holds */

struct gpu_q {
	struct recorder *r;
	uint64_t at;
};

static void queue_context(void *ctx, uint32_t context, const struct katra_gpu_totals *t)
{
	const struct gpu_q *q = ctx;
	struct ktable *last = &q->r->gpu_last;
	struct katra_gpu_totals *was = last->max_items ? ktable_get(last, context) : NULL;
	const uint64_t v[] = {
		[KATRA_COUNTER_GPU_OTHER_FENCES - KATRA_COUNTER_GPU_OTHER_FENCES] = t->fences,
		[KATRA_COUNTER_GPU_OTHER_FENCE_NS - KATRA_COUNTER_GPU_OTHER_FENCES] = t->fence_ns,
		[KATRA_COUNTER_GPU_OTHER_BUSY_NS - KATRA_COUNTER_GPU_OTHER_FENCES] = t->busy_ns,
		[KATRA_COUNTER_GPU_OTHER_JOBS - KATRA_COUNTER_GPU_OTHER_FENCES] = t->jobs,
		[KATRA_COUNTER_GPU_OTHER_RING_BUSY_NS - KATRA_COUNTER_GPU_OTHER_FENCES] = t->ring_busy_ns,
		[KATRA_COUNTER_GPU_TIMELINE_BUSY_NS - KATRA_COUNTER_GPU_OTHER_FENCES] = t->all_busy_ns,
		[KATRA_COUNTER_GPU_RING_BUSY_NS - KATRA_COUNTER_GPU_OTHER_FENCES] =
			t->all_ring_busy_ns,
	};
	const uint64_t w[] = {
		was ? was->fences : 0, was ? was->fence_ns : 0, was ? was->busy_ns : 0,
		was ? was->jobs : 0, was ? was->ring_busy_ns : 0, was ? was->all_busy_ns : 0,
		was ? was->all_ring_busy_ns : 0,
	};
	bool created;

	_Static_assert(sizeof(v) == sizeof(w), "one previous value per kind");
	for (uint32_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (v[i] != w[i])
			pipeline_queue_counter(&q->r->pl, q->at, KATRA_COUNTER_GPU_OTHER_FENCES + i,
					       context, v[i]);
	/* a full table: this context's kinds are written again next time */
	if (!was && last->max_items)
		was = ktable_upsert(last, context, &created);
	if (was)
		*was = *t;
}

void recorder_gpu_counters(struct recorder *r, uint64_t now)
{
	struct gpu_q q = { r, now };
	int n;

	if (!r->gpu_last.max_items &&
	    ktable_init(&r->gpu_last, GPU_CONTEXTS, sizeof(struct katra_gpu_totals)))
		memset(&r->gpu_last, 0, sizeof(r->gpu_last)); /* no memory: every kind each time */
	n = katra_probes_gpu_totals(r->probes, queue_context, &q);
	if (n < 0 && now == r->end) /* said once, at the end */
		fprintf(stderr, "katra-record: cannot read the GPU layer's counts: %s\n", strerror(-n));
}
