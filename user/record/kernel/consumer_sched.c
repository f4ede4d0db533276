// SPDX-License-Identifier: GPL-2.0-only
/* The drain's CPU policy: SCHED_IDLE while the rings keep up, the normal
 * policy while they fill (consumer_sched.h says why). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
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

static void boost(struct consumer_sched *cs)
{
	pthread_mutex_lock(&cs->lock);
	if (!cs->boosted && !set_policy(cs->drain_tid, SCHED_OTHER)) {
		cs->boosted = true;
		cs->boosts++;
	}
	pthread_mutex_unlock(&cs->lock);
}

static void *watchdog_main(void *arg)
{
	struct consumer_sched *cs = arg;
	struct epoll_event ev[8];

	for (;;) {
		int n = epoll_wait(cs->ring_ep, ev, 8, -1);

		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < n; i++) {
			if (ev[i].data.fd == cs->stop_fd)
				return NULL;
		}
		/* the fill, not the wakeup alone: epoll also reports a ring
		 * that merely had data when it was added */
		if (n > 0 && katra_rings_max_fill(cs->rings) >= cs->rings->size / WATCHDOG_FRACTION)
			boost(cs);
	}
	return NULL;
}

int consumer_sched_start(struct consumer_sched *cs, const struct katra_rings *rs)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int err;

	memset(cs, 0, sizeof(*cs));
	cs->ring_ep = cs->stop_fd = -1;
	cs->drain_tid = gettid();
	cs->rings = rs;
	pthread_mutex_init(&cs->lock, NULL);
	cs->ring_ep = epoll_create1(EPOLL_CLOEXEC);
	cs->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (cs->ring_ep < 0 || cs->stop_fd < 0)
		return -errno;
	ev.data.fd = cs->stop_fd;
	if (epoll_ctl(cs->ring_ep, EPOLL_CTL_ADD, cs->stop_fd, &ev) < 0)
		return -errno;
	/* edge-triggered: a ring with unread data is always "readable", and
	 * only a producer's forced wakeup is news */
	err = katra_rings_epoll_add(rs, cs->ring_ep, EPOLLIN | EPOLLET);
	if (err)
		return err;
	/* created before the drain turns idle: it keeps the normal policy */
	err = -pthread_create(&cs->watchdog, NULL, watchdog_main, cs);
	if (err)
		return err;
	cs->watchdog_running = true;
	return set_policy(cs->drain_tid, SCHED_IDLE);
}

void consumer_sched_update(struct consumer_sched *cs, uint64_t fill, uint64_t ring_size,
			   uint64_t now_ns)
{
	if (fill >= ring_size / BOOST_FRACTION) {
		cs->calm_since_ns = 0;
		boost(cs);
		return;
	}
	if (fill > ring_size / CALM_FRACTION) {
		cs->calm_since_ns = 0;
		return;
	}
	if (!cs->calm_since_ns)
		cs->calm_since_ns = now_ns;
	if (now_ns - cs->calm_since_ns < CALM_NS)
		return;
	pthread_mutex_lock(&cs->lock);
	if (cs->boosted && !set_policy(cs->drain_tid, SCHED_IDLE))
		cs->boosted = false;
	pthread_mutex_unlock(&cs->lock);
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
	cs->ring_ep = cs->stop_fd = -1;
	pthread_mutex_destroy(&cs->lock);
}
