// SPDX-License-Identifier: GPL-2.0-only
/* The Katra records queued beside the rings' items (counters and drops,
 * written in key order with them by pipeline_emit_until), and the capture's
 * end: what is left written, the losses, the summary. */
#include <stdio.h>
#include <string.h>

#include "pipeline.h"

void pipeline_queue_counter(struct pipeline *pl, uint64_t key, uint32_t kind, uint32_t instance,
			    uint64_t value)
{
	struct kq_item k = { .key = key, .type = KQ_COUNTER, .kind = kind, .instance = instance,
			     .value = value };

	pipeline_kq_push(pl, &k);
}

void pipeline_queue_drop(struct pipeline *pl, uint64_t key, uint32_t ring, uint64_t count)
{
	struct kq_item k = { .key = key, .type = KQ_DROP, .kind = KATRA_DROP_RING_RESERVE,
			     .instance = ring, .value = count };

	pipeline_kq_push(pl, &k);
}

void pipeline_queue_kernel_drop(struct pipeline *pl, uint64_t key, uint32_t table,
				uint64_t count)
{
	struct kq_item k = { .key = key, .type = KQ_DROP, .kind = KATRA_DROP_KERNEL_TABLE,
			     .instance = table, .value = count };

	pipeline_kq_push(pl, &k);
}

void pipeline_queue_skipped(struct pipeline *pl, uint64_t key, uint32_t probe, uint64_t count)
{
	struct kq_item k = { .key = key, .type = KQ_DROP, .kind = KATRA_DROP_PROGRAM_SKIPPED,
			     .instance = probe, .value = count };

	if (probe >= PIPELINE_SKIPPED_MAX)
		return;
	pl->skipped[probe] += count;
	pipeline_kq_push(pl, &k);
}

void pipeline_queue_stacks_lost(struct pipeline *pl, uint64_t key, uint32_t instance,
				uint64_t count)
{
	struct kq_item k = { .key = key, .type = KQ_DROP, .kind = KATRA_DROP_STACKS,
			     .instance = instance, .value = count };

	if (instance >= 2)
		return;
	pl->stacks_lost[instance] += count;
	pipeline_kq_push(pl, &k);
}

void pipeline_queue_losses(struct pipeline *pl, uint64_t key)
{
	for (uint32_t src = 1; src < KATRA_DROP_SOURCE_COUNT; src++) {
		uint64_t now = pl->em.st.evictions[src];
		if (now == pl->loss_reported[src])
			continue;
		struct kq_item k = { .key = key, .type = KQ_DROP, .kind = src,
				     .value = now - pl->loss_reported[src] };
		pl->loss_reported[src] = now;
		pipeline_kq_push(pl, &k);
	}
	for (uint32_t i = 0; i < pl->nrings; i++)
		if (pl->bad_by_ring[i] != pl->bad_reported[i]) {
			pipeline_queue_drop(pl, key, i, pl->bad_by_ring[i] - pl->bad_reported[i]);
			pl->bad_reported[i] = pl->bad_by_ring[i];
		}
}

int pipeline_finish(struct pipeline *pl, uint64_t end_key, const uint64_t *ring_drops,
		    const uint64_t *ktable_drops, struct katra_summary *s, struct katra_kind_count *kinds,
		    struct katra_drop_count *drops, size_t cap_drops)
{
	struct kq_item end = { .key = end_key, .type = KQ_EPOCH, .kind = KATRA_EPOCH_CAPTURE_END };
	size_t nk = 0, nd = 0;
	int rc;

	rc = pipeline_emit_until(pl, UINT64_MAX);
	if (!rc)
		rc = emit_close_open_spans(&pl->em, end_key);
	/* what was lost on the way, as Drop events before the end */
	pipeline_queue_losses(pl, end_key);
	if (!rc)
		rc = pipeline_emit_until(pl, UINT64_MAX);
	if (!rc) {
		end.name_len = (uint32_t)snprintf(end.name, sizeof(end.name), "capture end");
		rc = pipeline_emit_kq(pl, &end);
	}
	if (rc)
		return rc;

	memset(s, 0, sizeof(*s));
	for (uint32_t k = 0; k < KATRA_KIND_COUNT; k++)
		if (pl->em.st.by_kind[k])
			kinds[nk++] = (struct katra_kind_count){ k, pl->em.st.by_kind[k] };
	for (unsigned i = 0; i < pl->nrings && nd < cap_drops; i++)
		if (ring_drops[i] + pl->bad_by_ring[i])
			drops[nd++] = (struct katra_drop_count){ KATRA_DROP_RING_RESERVE, i,
								 ring_drops[i] + pl->bad_by_ring[i] };
	for (uint32_t src = 1; src < KATRA_DROP_SOURCE_COUNT && nd < cap_drops; src++) {
		if (src == KATRA_DROP_KERNEL_TABLE) {
			for (uint32_t t = 0; ktable_drops && t < KATRA_KTABLE_COUNT && nd < cap_drops; t++)
				if (ktable_drops[t])
					drops[nd++] = (struct katra_drop_count){ src, t, ktable_drops[t] };
			continue;
		}
		if (src == KATRA_DROP_PROGRAM_SKIPPED) {
			for (uint32_t i = 0; i < PIPELINE_SKIPPED_MAX && nd < cap_drops; i++)
				if (pl->skipped[i])
					drops[nd++] = (struct katra_drop_count){ src, i, pl->skipped[i] };
			continue;
		}
		if (src == KATRA_DROP_STACKS) {
			for (uint32_t i = 0; i < 2 && nd < cap_drops; i++)
				if (pl->stacks_lost[i])
					drops[nd++] = (struct katra_drop_count){ src, i,
										 pl->stacks_lost[i] };
			continue;
		}
		if (pl->em.st.evictions[src])
			drops[nd++] = (struct katra_drop_count){ src, 0, pl->em.st.evictions[src] };
	}
	s->event_count = pl->em.st.events;
	s->epoch_count = pl->em.st.epochs;
	s->counter_count = pl->em.st.counters;
	s->duration_ns = end_key > pl->em.start_mono ? end_key - pl->em.start_mono : 0;
	s->events_by_kind = kinds;
	s->events_by_kind_len = nk;
	for (size_t i = 0; i < nd; i++)
		s->dropped_events += drops[i].count;
	s->drops = drops;
	s->drops_len = nd;
	s->inferred_events = pl->em.st.inferred;
	s->processes_seen = pl->em.st.processes_seen;
	s->threads_seen = pl->em.st.threads_seen;
	return 0;
}
