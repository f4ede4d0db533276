/* SPDX-License-Identifier: GPL-2.0-only */
/* The drain: reads the per-CPU rings and releases their records in time
 * order, with a reorder storage that stays bounded however far behind the
 * drain is.
 *
 * A mark is a release limit W and, per ring, the producer position taken
 * right after that ring's CPU slot was read for W: every record with a key
 * below W lies before that position (SPEC section 10, "Order").  A mark's
 * items are released, up to W, once every ring has been read up to its
 * position; what lies beyond waits in the ring.
 *
 * Why a queue of marks, taken by a thread of their own: with one mark per
 * round, taken by the drain itself, everything produced while the drain was
 * away (descheduled on CPUs a syscall storm keeps busy, or waiting for the
 * writer's output thread) came under one mark and had to be read in whole
 * before anything was released: 100,000-180,000 records a round in a
 * 4-thread getppid storm against a budget of 87,381 items, so items were
 * written early and their threads' older items dropped as late (2.5-2.9 %).
 * The marker thread takes a mark every DRAIN_MARK_BYTES of ring traffic
 * (DRAIN_MARK_NS to DRAIN_QUIET_NS / 2 apart; a few cache lines per CPU),
 * whatever the drain is doing, so the storage
 * holds what came in one such interval (plus the clock margin) and a
 * backlog waits in the rings, which are sized for it. */
#ifndef KATRA_RECORD_DRAIN_H
#define KATRA_RECORD_DRAIN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "record/kernel/rings.h"
#include "record/pipeline/pipeline.h"

#define DRAIN_MARKS 1024u            /* marks queued at most (then the newest covers more) */
#define DRAIN_MARK_NS 1000000ull     /* between marks at the fastest flows */
/* While records flow, a mark every DRAIN_MARK_BYTES of ring traffic (about
 * 10,000 records, an eighth of the reorder budget; an eighth of a ring at
 * most: what lies past the newest mark waits in its ring), at the rate of
 * the last interval, but never more often than DRAIN_MARK_NS nor less often
 * than DRAIN_QUIET_NS / 2, what a flow that starts from nothing already
 * waits for its first mark: a jump to the fastest flow costs no more than
 * then. */
#define DRAIN_MARK_BYTES (512ull << 10)
#define DRAIN_QUIET_NS 10000000ull   /* between marks while they do not */
#define DRAIN_FLOW_BYTES 4096ull     /* "records flow": this much in an interval */
/* while records flow and the rings wake the marker at a mark's traffic
 * (katra_drain_src.mark_wake), a mark at least this often */
#define DRAIN_FLOW_WAIT_NS 50000000ull
/* marks taken with nothing new before them, DRAIN_QUIET_NS apart, before the
 * marker sleeps: the last one released what came before (the margin and the
 * staging's age are below DRAIN_QUIET_NS) */
#define DRAIN_STILL_MARKS 2u
/* Marks wait this long before the drain reads them, while every ring is
 * less than a quarter full (where the probes wake the loop) and fewer than
 * DRAIN_MARKS / 4 wait: a burst that fits the rings is read after it, not
 * on the CPUs its threads run on (ftrace's readers wait for buffer_percent,
 * half a buffer, by default).  The reorder storage still holds one mark's
 * interval: the backlog waits in the rings, which are sized for it. */
#define DRAIN_DEFER_NS 100000000ull

struct katra_drain_src {
	/* the lowest key a record not yet committed in `ring` can carry, read
	 * after `now`, CLOCK_MONOTONIC (its CPU slot; prev while a probe is
	 * busy there, or when probes kept entering while it was read) */
	uint64_t (*ring_watermark)(void *ctx, unsigned ring, uint64_t now, uint64_t prev);
	void *ctx;
	/* The marker sleeps while nothing flows (NULL asleep or watch: never):
	 * it sets *asleep, and the first record committed then clears it and
	 * wakes the fds `watch` added to the marker's epoll (the rings, edge-
	 * triggered); 0 or -errno.  `staged` (NULL: none): whether records
	 * wait outside the rings (the probes' staging areas), which a mark
	 * moves in. */
	uint32_t *asleep;
	int (*watch)(void *ctx, int epfd);
	bool (*staged)(void *ctx);
	/* NULL or, per ring (8 words apart), the producer position at which
	 * its next commit wakes the watched fds, once; 0 for none.  While
	 * records flow the marker sleeps until then (a mark's share of
	 * DRAIN_MARK_BYTES in one ring) or DRAIN_FLOW_WAIT_NS, not on a timer
	 * alone. */
	uint64_t *mark_wake;
};

struct katra_drain {
	struct katra_rings *rings;
	struct pipeline *pl;
	struct katra_drain_src src;
	unsigned nrings;
	uint64_t margin;     /* CPUs' clocks may disagree by this much */
	uint64_t mark_bytes; /* ring traffic between two marks (DRAIN_MARK_BYTES) */
	uint64_t wake_bytes; /* one ring's share of it: where mark_wake is set */
	uint64_t *ring_wm;   /* per ring, never decreasing (the marker's) */
	uint64_t *mark_wm;   /* per mark: its release limit (items below it) */
	uint64_t *mark_pos;  /* per mark, per ring: the producer position */
	uint64_t *mark_ns;   /* per mark: when it was taken, CLOCK_MONOTONIC */
	/* a single-producer (the marker), single-consumer queue, oldest at head */
	uint64_t head, tail;
	pthread_t marker;
	pthread_mutex_t mark_lock; /* marks: the marker's, or the caller's while it sleeps */
	bool marker_on;
	int stop;            /* the marker's stop flag (atomic) */
	int ep, kick_fd;     /* the marker's sleep: the watched fds and a kick (-1: none) */
	int dozing;          /* the marker sleeps for want of records (atomic) */
	uint64_t dozes;      /* how often it went to sleep */
};

/* start: every ring's first watermark (the capture's start). */
int katra_drain_init(struct katra_drain *d, struct katra_rings *rings, struct pipeline *pl,
		     const struct katra_drain_src *src, uint64_t start, uint64_t margin);
/* Stops the marker if it runs. */
void katra_drain_free(struct katra_drain *d);
/* Takes a mark now (none while DRAIN_MARKS are queued): the marker's, or
 * the caller's where no marker runs or while it sleeps (katra_drain_dozing). */
void katra_drain_mark(struct katra_drain *d);
/* Starts the marker thread (it inherits the caller's signal mask) and stops
 * it: 0 or -errno. */
int katra_drain_start_marker(struct katra_drain *d);
void katra_drain_stop_marker(struct katra_drain *d);
/* Whether the marker sleeps for want of records: no mark comes until a
 * record is committed, so the caller's loop may sleep as long. */
bool katra_drain_dozing(const struct katra_drain *d);
/* The backstop of that sleep, for the caller's slow tick: a record committed
 * while the marker went to sleep may have come without its wakeup; if
 * records came since the newest mark, the marker is woken (true). */
bool katra_drain_nudge(struct katra_drain *d);
/* Whether marks wait to be drained (katra_drain_run stopped at max_records). */
bool katra_drain_backlog(const struct katra_drain *d);
/* When the oldest waiting mark is due to be read (DRAIN_DEFER_NS after it
 * was taken, at once where a ring is a quarter full, many marks wait or no
 * marker runs); UINT64_MAX when none waits. */
uint64_t katra_drain_due(const struct katra_drain *d);
/* The marker's next sleep after a mark that found `flow` bytes of ring
 * traffic `since` ns after the one before, for a mark every `mark_bytes`
 * (DRAIN_MARK_BYTES). */
uint64_t katra_drain_next_wait(uint64_t flow, uint64_t since, uint64_t mark_bytes);
/* Reads the rings up to the oldest mark, releases its items, and so on
 * (a mark taken first where no marker runs); returns once no mark is left or after about max_records records.  0 or the
 * writer's -errno. */
int katra_drain_run(struct katra_drain *d, uint64_t max_records);
/* Reads whatever the rings hold now, up to a record still being written,
 * releasing nothing (the end of the capture, once no probe runs). */
void katra_drain_rest(struct katra_drain *d);
/* Bytes the probes wrote into all rings since they were made (each record
 * with its 8-byte ring header): the capture's ring traffic. */
uint64_t katra_drain_ring_bytes(const struct katra_drain *d);

#endif
