/* SPDX-License-Identifier: GPL-2.0-only */
/* The recorder's user-space pipeline, without the kernel: ring records in,
 * trace records out.  Records are widened into pending items, reordered by
 * key (order.h), and written in key order by the emitter (emit.h), with the
 * Katra-native records (epochs, counters, drops) merged in by their own
 * timestamps.  No libbpf here: unit tests and the pipeline benchmark feed it
 * wire records directly.
 *
 * Ordering contract: the caller passes pipeline_emit_until() a limit below
 * which every record has been drained (the watermark: the minimum over the
 * rings of what their CPU slots say, read before the drain, SPEC section
 * 10).  Nothing is then written out of time order.  Only when the reorder
 * budget (config.max_items) is exhausted is the oldest item written early;
 * an item that would then go back in time on its thread is dropped and
 * counted (DropSource::Reorder). */
#ifndef KATRA_RECORD_PIPELINE_H
#define KATRA_RECORD_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/emit/emit.h"
#include "order.h"

enum kq_type { KQ_EPOCH, KQ_COUNTER, KQ_DROP };

/* A Katra-native record waiting for the watermark like everything else. */
struct kq_item {
	uint64_t key;
	uint32_t type, kind, instance; /* KQ_DROP: kind = the DropSource */
	uint64_t value;
	char name[128];
	uint32_t name_len;
};

/* Probes whose skipped runs are counted (DropSource::ProgramSkipped): the
 * instance is the probe's index in the summary's probes_attached. */
#define PIPELINE_SKIPPED_MAX 64

struct pipeline {
	struct order order;
	struct emitter em;
	unsigned nrings;
	struct kq_item *kq;     /* a FIFO in key order, grown with need */
	size_t kq_cap, kq_head, kq_tail;
	uint64_t bad_records;
	/* malformed records by the ring they were read from (reading_ring, set
	 * by the drain): lost, counted as RingReserve drops of that ring */
	uint32_t reading_ring;
	uint64_t *bad_by_ring, *bad_reported;
	uint64_t forced;        /* items written before the watermark passed them */
	uint64_t loss_reported[KATRA_DROP_SOURCE_COUNT]; /* evictions already in Drop events */
	uint64_t skipped[PIPELINE_SKIPPED_MAX]; /* program runs the kernel skipped, by probe */
	uint64_t stacks_lost[2]; /* call stacks lost (DropSource::Stacks), by instance */
	/* a traced process mapped a file executable (mmap with PROT_EXEC and a
	 * file identity): the recorder looks for libraries to probe (uprobes.c) */
	void (*on_exec_map)(void *ctx, uint32_t tgid, uint64_t kdev, uint64_t ino);
	void *map_ctx;
	uint64_t end_key;       /* pipeline_end_at: nothing later is written */
	/* tests: a combined syscall's End always goes back through the merge,
	 * never written in place, and io_uring records are queued by
	 * on_record_any() (the bytes must not differ) */
	bool generic_order;
	uint64_t ends_in_place; /* combined syscalls' Ends written without the merge */
	uint64_t uring_in_pair; /* io_uring items written between such a Begin and End */
	uint64_t begins_apart;  /* Begins written in a run, their End behind another ring's head */
};

/* How long past a display event delivered the release waits for the next
 * record of its CPU (emit_gpu.c links the delivery to the out-fence
 * signalled right after it): far longer than the kernel's few instructions
 * between the two, which a virtual CPU may spread over a host's time slice. */
#define PIPELINE_DELIVERY_HOLD_NS 50000000ull

struct pipeline_config {
	unsigned nrings;
	size_t fifo_items;      /* pending items per ring at first */
	size_t max_items;       /* reorder budget: pending item slots in all */
	uint64_t start_mono, start_wall;
	bool record_paths;
	struct emit_limits limits;
};

int pipeline_init(struct pipeline *pl, struct katra_writer *w, const struct pipeline_config *c);
void pipeline_free(struct pipeline *pl);

/* The ring callback (rings.h's katra_ring_fn): ctx is the pipeline.
 * Always returns 0; malformed records are counted in bad_records and, by
 * pl->reading_ring (ring 0 where unset), as RingReserve drops. */
int pipeline_on_record(void *ctx, void *data, size_t size);

/* The capture ends at key: the items stamped later (a probe that passed its
 * tracked check just before the end) are not written; a syscall begun before
 * it and ended after is written as its Begin (its End is inferred at the
 * end, as for every span still open). */
void pipeline_end_at(struct pipeline *pl, uint64_t key);

/* Writes everything pending whose key is <= limit (UINT64_MAX: all). */
int pipeline_emit_until(struct pipeline *pl, uint64_t limit);

void pipeline_queue_epoch(struct pipeline *pl, uint64_t key, uint32_t kind, const char *name);
/* A Katra record into the queue, in key order (what the calls below use),
 * and one written now. */
void pipeline_kq_push(struct pipeline *pl, const struct kq_item *k);
int pipeline_emit_kq(struct pipeline *pl, const struct kq_item *k);
/* KATRA_COUNTER_EVENTS_RECORDED takes its value when written. */
void pipeline_queue_counter(struct pipeline *pl, uint64_t key, uint32_t kind, uint32_t instance,
			    uint64_t value);
void pipeline_queue_drop(struct pipeline *pl, uint64_t key, uint32_t ring, uint64_t count);
/* Queues Drop events for what user space lost since the last call (state
 * tables full, reorder, malformed ring records). */
void pipeline_queue_losses(struct pipeline *pl, uint64_t key);
/* Queues runs of probe `probe`'s program that the kernel skipped (it was
 * already running on that CPU: DropSource::ProgramSkipped); the summary
 * holds their totals. */
void pipeline_queue_skipped(struct pipeline *pl, uint64_t key, uint32_t probe, uint64_t count);
/* Queues call stacks the probe could not keep (DropSource::Stacks; instance
 * 0 the thread-slot table full, 1 the stack ring full); the summary holds
 * their totals. */
void pipeline_queue_stacks_lost(struct pipeline *pl, uint64_t key, uint32_t instance,
				uint64_t count);
/* Queues a kernel map's refused entries (DropSource::KernelTable). */
void pipeline_queue_kernel_drop(struct pipeline *pl, uint64_t key, uint32_t table,
				uint64_t count);

/* Closes open spans, writes CaptureEnd at end_key and fills *s (its arrays
 * point into storage owned by the caller: kinds[KATRA_KIND_COUNT] and
 * drops[cap_drops]); ring_drops[nrings] are the kernel's loss counts (the malformed records
 * read from each ring are added),
 * ktable_drops[KATRA_KTABLE_COUNT] its maps' (NULL: none). */
int pipeline_finish(struct pipeline *pl, uint64_t end_key, const uint64_t *ring_drops,
		    const uint64_t *ktable_drops,
		    struct katra_summary *s, struct katra_kind_count *kinds,
		    struct katra_drop_count *drops, size_t cap_drops);

#endif
