/* The recorder's user-space pipeline, without the kernel: ring records in,
 * trace records out.  Records are widened into pending items, reordered by
 * key (order.h), and written in key order by the emitter (emit.h), with the
 * Katra-native records (epochs, counters, drops) merged in by their own
 * timestamps.  No libbpf here: unit tests and the pipeline benchmark feed it
 * wire records directly. */
#ifndef KATRA_RECORD_PIPELINE_H
#define KATRA_RECORD_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emit.h"
#include "order.h"

#define KATRA_PIPELINE_KQ_CAP 512

enum kq_type { KQ_EPOCH, KQ_COUNTER, KQ_DROP };

/* A Katra-native record waiting for the watermark like everything else. */
struct kq_item {
	uint64_t key;
	uint32_t type, kind, instance;
	uint64_t value;
	char name[128];
	uint32_t name_len;
};

struct pipeline {
	struct order order;
	struct emitter em;
	unsigned nrings;
	struct kq_item kq[KATRA_PIPELINE_KQ_CAP];
	size_t kq_head, kq_tail;
	uint64_t next_epoch;
	uint64_t bad_records;
};

struct pipeline_config {
	unsigned nrings;
	size_t fifo_items;      /* pending items per ring */
	uint64_t start_mono, start_wall;
	bool record_paths;
	struct emit_limits limits;
};

int pipeline_init(struct pipeline *pl, struct katra_writer *w, const struct pipeline_config *c);
void pipeline_free(struct pipeline *pl);

/* The ring callback (libbpf's ring_buffer_sample_fn): ctx is the pipeline.
 * Always returns 0; malformed records are counted in bad_records. */
int pipeline_on_record(void *ctx, void *data, size_t size);

/* Writes everything pending whose key is <= limit (UINT64_MAX: all). */
int pipeline_emit_until(struct pipeline *pl, uint64_t limit);

void pipeline_queue_epoch(struct pipeline *pl, uint64_t key, uint32_t kind, const char *name);
/* KATRA_COUNTER_EVENTS_RECORDED takes its value when written. */
void pipeline_queue_counter(struct pipeline *pl, uint64_t key, uint32_t kind, uint32_t instance,
			    uint64_t value);
void pipeline_queue_drop(struct pipeline *pl, uint64_t key, uint32_t ring, uint64_t count);

/* Closes open spans, writes CaptureEnd at end_key and fills *s (its arrays
 * point into storage owned by the caller: kinds[KATRA_KIND_COUNT] and
 * drops[cap_drops]); ring_drops[nrings] are the kernel's loss counts. */
int pipeline_finish(struct pipeline *pl, uint64_t end_key, const uint64_t *ring_drops,
		    struct katra_summary *s, struct katra_kind_count *kinds,
		    struct katra_drop_count *drops, size_t cap_drops);

#endif
