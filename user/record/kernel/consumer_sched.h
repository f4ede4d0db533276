/* SPDX-License-Identifier: GPL-2.0-only */
/* --drain-policy idle: when the recorder's drain may take a CPU from the
 * traced program.  (The default is the normal policy: measured with two CPU
 * hogs, an idle drain got no CPU for tens of seconds and the capture lost
 * events and paths; README, "The drain".)
 *
 * The drain runs at SCHED_IDLE: it gets the time the program leaves idle (a
 * game's frame pacing, a wait on the GPU) instead of preempting a worker
 * mid-frame.  Idle time can run out (an uncapped frame loop, a syscall storm,
 * any other busy process): then the rings fill, and the drain runs at the
 * normal policy until they are nearly empty again.  Two ways bring it back:
 * the drain itself, whenever it runs and finds a ring a quarter full, and a
 * watchdog thread at the normal policy that sleeps on the rings' forced
 * wakeups (a producer crossing the wakeup threshold), for when the starved
 * drain cannot run to look.  Only the watchdog changes the drain's policy
 * once it runs (the drain asks it through an eventfd): the drain never holds
 * anything while it turns itself idle, so the watchdog never waits on the
 * thread it is there to rescue. */
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
	int ring_ep;            /* the rings (edge-triggered: forced wakeups), stop_fd, ask_fd */
	int stop_fd;            /* eventfd: ends the watchdog */
	int ask_fd;             /* eventfd: the drain asks for the policy in `want` */
	pthread_t watchdog;
	bool watchdog_running;
	int want;               /* SCHED_IDLE or SCHED_OTHER (atomic: drain and watchdog) */
	int applied;            /* the drain's policy now (the watchdog's own) */
	uint64_t calm_since_ns; /* rings below the calm level since (0: not; the drain's own) */
	uint64_t boosts;        /* times the drain went to the normal policy (the
				 * watchdog's own; read after consumer_sched_stop) */
};

/* The calling thread is the drain: starts the watchdog on the rings and moves
 * the drain to SCHED_IDLE.  0 or -errno; consumer_sched_stop() in any case. */
int consumer_sched_start(struct consumer_sched *cs, const struct katra_rings *rs);
/* Called by the drain each round with the fullest ring's unread bytes. */
void consumer_sched_update(struct consumer_sched *cs, uint64_t fill, uint64_t ring_size,
			   uint64_t now_ns);
/* Stops the watchdog and puts the drain back to the normal policy. */
void consumer_sched_stop(struct consumer_sched *cs);

#endif
