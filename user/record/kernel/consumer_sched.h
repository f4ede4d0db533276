/* SPDX-License-Identifier: GPL-2.0-only */
/* When the recorder's drain may take a CPU from the traced program.
 *
 * The drain runs at SCHED_IDLE: it gets the time the program leaves idle (a
 * game's frame pacing, a wait on the GPU) instead of preempting a worker
 * mid-frame, which is what lengthens frames.  Idle time can run out (an
 * uncapped frame loop, a syscall storm): then the rings fill, and the drain
 * runs at the normal policy until they are nearly empty again.  Two ways
 * bring it back: the drain itself, whenever it runs and finds a ring a
 * quarter full, and a watchdog thread at the normal policy that sleeps on the
 * rings' forced wakeups (a producer crossing the wakeup threshold), for when
 * the starved drain cannot run to look. */
#ifndef KATRA_RECORD_CONSUMER_SCHED_H
#define KATRA_RECORD_CONSUMER_SCHED_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "rings.h"

struct consumer_sched {
	pid_t drain_tid;
	const struct katra_rings *rings;
	int ring_ep;            /* the rings, edge-triggered: forced wakeups only */
	int stop_fd;            /* eventfd: ends the watchdog */
	pthread_t watchdog;
	bool watchdog_running;
	pthread_mutex_t lock;   /* a change of policy and its flag, together */
	bool boosted;           /* at the normal policy now (under lock) */
	uint64_t calm_since_ns; /* rings below the calm level since (0: not) */
	uint64_t boosts;        /* times the drain went to the normal policy */
};

/* The calling thread is the drain: moves it to SCHED_IDLE and starts the
 * watchdog on the rings.  0 or -errno; consumer_sched_stop() in any case. */
int consumer_sched_start(struct consumer_sched *cs, const struct katra_rings *rs);
/* Called by the drain each round with the fullest ring's unread bytes. */
void consumer_sched_update(struct consumer_sched *cs, uint64_t fill, uint64_t ring_size,
			   uint64_t now_ns);
/* Stops the watchdog and puts the drain back to the normal policy. */
void consumer_sched_stop(struct consumer_sched *cs);

#endif
