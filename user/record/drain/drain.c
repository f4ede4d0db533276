// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drain.h"

int katra_drain_init(struct katra_drain *d, struct katra_rings *rings, struct pipeline *pl,
		     const struct katra_drain_src *src, uint64_t start, uint64_t margin)
{
	size_t n;

	memset(d, 0, sizeof(*d));
	d->rings = rings;
	d->pl = pl;
	d->src = *src;
	d->nrings = rings->n;
	d->margin = margin;
	n = d->nrings ? d->nrings : 1;
	d->ring_wm = calloc(n, sizeof(uint64_t));
	d->mark_wm = calloc(DRAIN_MARKS, sizeof(uint64_t));
	d->mark_pos = calloc((size_t)DRAIN_MARKS * n, sizeof(uint64_t));
	if (!d->ring_wm || !d->mark_wm || !d->mark_pos) {
		katra_drain_free(d);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < d->nrings; i++)
		d->ring_wm[i] = start;
	return 0;
}

void katra_drain_free(struct katra_drain *d)
{
	katra_drain_stop_marker(d);
	free(d->ring_wm);
	free(d->mark_wm);
	free(d->mark_pos);
	d->ring_wm = d->mark_wm = d->mark_pos = NULL;
}

static uint64_t *mark_pos(struct katra_drain *d, uint64_t mark)
{
	return &d->mark_pos[(mark % DRAIN_MARKS) * d->nrings];
}

void katra_drain_mark(struct katra_drain *d)
{
	uint64_t tail = d->tail, now, w = UINT64_MAX, *pos;
	struct timespec ts;

	if (tail - __atomic_load_n(&d->head, __ATOMIC_ACQUIRE) == DRAIN_MARKS)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	pos = mark_pos(d, tail);
	for (unsigned i = 0; i < d->nrings; i++) {
		d->ring_wm[i] = d->src.ring_watermark(d->src.ctx, i, now, d->ring_wm[i]);
		/* read after the slot: every record committed before it is below */
		pos[i] = katra_rings_produced(d->rings, i);
		if (d->ring_wm[i] < w)
			w = d->ring_wm[i];
	}
	/* what is younger than the margin waits for a later mark */
	d->mark_wm[tail % DRAIN_MARKS] = w > d->margin ? w - d->margin : 0;
	__atomic_store_n(&d->tail, tail + 1, __ATOMIC_RELEASE);
}

/* Bytes the rings' producers moved since the newest mark. */
static uint64_t flow_since_mark(struct katra_drain *d)
{
	uint64_t *pos, n = 0;

	if (!d->tail)
		return UINT64_MAX;
	pos = mark_pos(d, d->tail - 1);
	for (unsigned i = 0; i < d->nrings; i++)
		n += katra_rings_produced(d->rings, i) - pos[i];
	return n;
}

static void *marker_main(void *arg)
{
	struct katra_drain *d = arg;
	uint64_t wait = DRAIN_MARK_NS, since = 0, flow;

	while (!__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE)) {
		struct timespec ts = { 0, (long)wait };
		nanosleep(&ts, NULL);
		since += wait;
		/* while nothing flows, fewer wakeups and a mark now and then */
		flow = flow_since_mark(d);
		wait = flow < DRAIN_FLOW_BYTES ? DRAIN_QUIET_NS / 2 : DRAIN_MARK_NS;
		if (flow < DRAIN_FLOW_BYTES && since < DRAIN_QUIET_NS)
			continue;
		katra_drain_mark(d);
		since = 0;
	}
	return NULL;
}

int katra_drain_start_marker(struct katra_drain *d)
{
	int err;

	__atomic_store_n(&d->stop, 0, __ATOMIC_RELEASE);
	err = pthread_create(&d->marker, NULL, marker_main, d);
	if (err)
		return -err;
	d->marker_on = true;
	return 0;
}

void katra_drain_stop_marker(struct katra_drain *d)
{
	if (!d->marker_on)
		return;
	__atomic_store_n(&d->stop, 1, __ATOMIC_RELEASE);
	pthread_join(d->marker, NULL);
	d->marker_on = false;
}

int katra_drain_run(struct katra_drain *d, uint64_t max_records)
{
	uint64_t read = 0, n;
	int rc = 0;

	if (!d->marker_on)
		katra_drain_mark(d);
	while (!rc && read < max_records) {
		uint64_t m = d->head;
		if (m == __atomic_load_n(&d->tail, __ATOMIC_ACQUIRE))
			break;
		for (unsigned i = 0; i < d->nrings; i++) {
			/* stops at a record still being written: reserved after
			 * the mark's slot read, so younger than its watermark */
			d->pl->reading_ring = i;
			katra_rings_read(d->rings, i, mark_pos(d, m)[i], UINT64_MAX,
					 pipeline_on_record, d->pl, &n);
			read += n;
		}
		if (d->mark_wm[m % DRAIN_MARKS])
			rc = pipeline_emit_until(d->pl, d->mark_wm[m % DRAIN_MARKS] - 1);
		__atomic_store_n(&d->head, m + 1, __ATOMIC_RELEASE);
	}
	return rc;
}

void katra_drain_rest(struct katra_drain *d)
{
	uint64_t n;

	for (unsigned i = 0; i < d->nrings; i++) {
		d->pl->reading_ring = i;
		katra_rings_read(d->rings, i, katra_rings_produced(d->rings, i), UINT64_MAX,
				 pipeline_on_record, d->pl, &n);
	}
}

uint64_t katra_drain_ring_bytes(const struct katra_drain *d)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < d->nrings; i++)
		n += katra_rings_produced(d->rings, i);
	return n;
}
