// SPDX-License-Identifier: GPL-2.0-only
/* --drain-policy idle: SCHED_IDLE while the rings keep up, the normal policy
 * while they fill (consumer_sched.h says why and who switches). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "consumer_sched.h"

/* A ring this full sends the drain to the normal policy; below the calm
 * level for CALM_NS it goes back to idle (hysteresis: no flapping). */
#define BOOST_FRACTION 4   /* a quarter */
#define CALM_FRACTION  16
#define CALM_NS        50000000ull
/* producers force a wakeup at a quarter; the drain may have read some since */
#define WATCHDOG_FRACTION 8

static int set_policy(pid_t tid, int policy)
{
	struct sched_param sp = { .sched_priority = 0 };

	return sched_setscheduler(tid, policy, &sp) < 0 ? -errno : 0;
}

static void ask(struct consumer_sched *cs, int policy)
{
	uint64_t one = 1;

	if (__atomic_exchange_n(&cs->want, policy, __ATOMIC_SEQ_CST) == policy)
		return;
	/* a full counter (never: the watchdog reads it) still wakes it */
	if (write(cs->ask_fd, &one, sizeof(one)) < 0)
		return;
}

/* The watchdog: the only thread that changes the drain's policy. */
static void apply(struct consumer_sched *cs)
{
	int want = __atomic_load_n(&cs->want, __ATOMIC_SEQ_CST);

	if (want == cs->applied || set_policy(cs->drain_tid, want))
		return;
	cs->applied = want;
	if (want == SCHED_OTHER)
		cs->boosts++;
}

static void *watchdog_main(void *arg)
{
	struct consumer_sched *cs = arg;
	struct epoll_event ev[8];

	for (;;) {
		int n = epoll_wait(cs->ring_ep, ev, 8, -1);
		bool ring = false;

		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < n; i++) {
			uint64_t v;

			if (ev[i].data.fd == cs->stop_fd)
				return NULL;
			if (ev[i].data.fd == cs->ask_fd) {
				if (read(cs->ask_fd, &v, sizeof(v)) < 0)
					continue; /* EAGAIN: read already */
			} else {
				ring = true;
			}
		}
		/* the fill, not the wakeup alone: epoll also reports a ring
		 * that merely had data when it was added */
		if (ring && katra_rings_max_fill(cs->rings) >= cs->rings->size / WATCHDOG_FRACTION)
			__atomic_store_n(&cs->want, SCHED_OTHER, __ATOMIC_SEQ_CST);
		apply(cs);
	}
	return NULL;
}

static int watch(int ep, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int consumer_sched_start(struct consumer_sched *cs, const struct katra_rings *rs)
{
	sigset_t all, old;
	int err;

	memset(cs, 0, sizeof(*cs));
	cs->ring_ep = cs->stop_fd = cs->ask_fd = -1;
	cs->drain_tid = gettid();
	cs->rings = rs;
	cs->want = cs->applied = SCHED_IDLE;
	cs->ring_ep = epoll_create1(EPOLL_CLOEXEC);
	cs->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	cs->ask_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (cs->ring_ep < 0 || cs->stop_fd < 0 || cs->ask_fd < 0)
		return -errno;
	err = watch(cs->ring_ep, cs->stop_fd);
	if (!err)
		err = watch(cs->ring_ep, cs->ask_fd);
	/* edge-triggered: a ring with unread data is always "readable", and
	 * only a producer's forced wakeup is news */
	if (!err)
		err = katra_rings_epoll_add(rs, cs->ring_ep, EPOLLIN | EPOLLET);
	if (err)
		return err;
	/* created before the drain turns idle: it keeps the normal policy; no
	 * signal is its business (the drain's loop handles them) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = -pthread_create(&cs->watchdog, NULL, watchdog_main, cs);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return err;
	cs->watchdog_running = true;
	/* the drain's own switch, before the watchdog can make any: nothing held */
	return set_policy(cs->drain_tid, SCHED_IDLE);
}

void consumer_sched_update(struct consumer_sched *cs, uint64_t fill, uint64_t ring_size,
			   uint64_t now_ns)
{
	if (fill >= ring_size / BOOST_FRACTION) {
		cs->calm_since_ns = 0;
		ask(cs, SCHED_OTHER);
		return;
	}
	if (fill > ring_size / CALM_FRACTION) {
		cs->calm_since_ns = 0;
		return;
	}
	if (!cs->calm_since_ns)
		cs->calm_since_ns = now_ns;
	if (now_ns - cs->calm_since_ns >= CALM_NS)
		ask(cs, SCHED_IDLE);
}

void consumer_sched_stop(struct consumer_sched *cs)
{
	if (cs->watchdog_running) {
		uint64_t one = 1;

		if (write(cs->stop_fd, &one, sizeof(one)) == sizeof(one))
			pthread_join(cs->watchdog, NULL);
		else
			pthread_cancel(cs->watchdog);
		cs->watchdog_running = false;
	}
	/* the end of the capture (final drain, summary) is not background work */
	if (cs->drain_tid)
		set_policy(cs->drain_tid, SCHED_OTHER);
	if (cs->ring_ep >= 0)
		close(cs->ring_ep);
	if (cs->stop_fd >= 0)
		close(cs->stop_fd);
	if (cs->ask_fd >= 0)
		close(cs->ask_fd);
	cs->ring_ep = cs->stop_fd = cs->ask_fd = -1;
	cs->drain_tid = 0;
}
