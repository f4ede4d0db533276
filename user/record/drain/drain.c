// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

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
	d->mark_bytes = rings->size / 8 < DRAIN_MARK_BYTES ? rings->size / 8 : DRAIN_MARK_BYTES;
	d->wake_bytes = d->mark_bytes / (rings->n ? rings->n : 1);
	if (d->wake_bytes < DRAIN_FLOW_BYTES)
		d->wake_bytes = DRAIN_FLOW_BYTES;
	d->ep = d->kick_fd = -1;
	pthread_mutex_init(&d->mark_lock, NULL);
	n = d->nrings ? d->nrings : 1;
	d->ring_wm = calloc(n, sizeof(uint64_t));
	d->mark_wm = calloc(DRAIN_MARKS, sizeof(uint64_t));
	d->mark_pos = calloc((size_t)DRAIN_MARKS * n, sizeof(uint64_t));
	d->mark_ns = calloc(DRAIN_MARKS, sizeof(uint64_t));
	if (!d->ring_wm || !d->mark_wm || !d->mark_pos || !d->mark_ns) {
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
	if (d->ep >= 0)
		close(d->ep);
	if (d->kick_fd >= 0)
		close(d->kick_fd);
	d->ep = d->kick_fd = -1;
	pthread_mutex_destroy(&d->mark_lock);
	free(d->ring_wm);
	free(d->mark_wm);
	free(d->mark_pos);
	free(d->mark_ns);
	d->ring_wm = d->mark_wm = d->mark_pos = d->mark_ns = NULL;
}

static uint64_t *mark_pos(struct katra_drain *d, uint64_t mark)
{
	return &d->mark_pos[(mark % DRAIN_MARKS) * d->nrings];
}

static void take_mark(struct katra_drain *d)
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
	d->mark_ns[tail % DRAIN_MARKS] = now;
	__atomic_store_n(&d->tail, tail + 1, __ATOMIC_RELEASE);
}

void katra_drain_mark(struct katra_drain *d)
{
	pthread_mutex_lock(&d->mark_lock);
	take_mark(d);
	pthread_mutex_unlock(&d->mark_lock);
}

/* Bytes the rings' producers moved since the newest mark. */
static uint64_t flow_since_mark(struct katra_drain *d)
{
	uint64_t *pos, n = 0;
	uint64_t tail = __atomic_load_n(&d->tail, __ATOMIC_ACQUIRE);

	if (!tail)
		return UINT64_MAX;
	pos = mark_pos(d, tail - 1);
	for (unsigned i = 0; i < d->nrings; i++)
		n += katra_rings_produced(d->rings, i) - pos[i];
	return n;
}

/* Sleeps until a record is committed (the probes clear *asleep and wake the
 * watched fds), a nudge or the stop; false, at once, when it may not: marks
 * still have records to move (staged ones) or one came in the meantime. */
static bool doze(struct katra_drain *d)
{
	struct epoll_event ev[8];
	uint64_t v;

	if (d->ep < 0 || (d->src.staged && d->src.staged(d->src.ctx)))
		return false;
	__atomic_store_n(d->src.asleep, 1, __ATOMIC_SEQ_CST);
	/* committed before the flag was set: no wakeup comes for it */
	if (flow_since_mark(d)) {
		__atomic_store_n(d->src.asleep, 0, __ATOMIC_SEQ_CST);
		return false;
	}
	__atomic_store_n(&d->dozing, 1, __ATOMIC_SEQ_CST);
	d->dozes++;
	while (__atomic_load_n(d->src.asleep, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE)) {
		/* a stale edge (a ring's earlier wakeup) comes back at once */
		int n = epoll_wait(d->ep, ev, 8, -1);

		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < n; i++) {
			if (ev[i].data.fd != d->kick_fd)
				continue;
			ssize_t got = read(d->kick_fd, &v, sizeof(v)); /* the kick taken */
			(void)got;
		}
	}
	__atomic_store_n(d->src.asleep, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&d->dozing, 0, __ATOMIC_SEQ_CST);
	return true;
}

uint64_t katra_drain_next_wait(uint64_t flow, uint64_t since, uint64_t mark_bytes)
{
	uint64_t w;

	if (flow == UINT64_MAX || flow * DRAIN_MARK_NS >= mark_bytes * since)
		return DRAIN_MARK_NS; /* at least mark_bytes a DRAIN_MARK_NS */
	w = mark_bytes * since / (flow ? flow : 1);
	return w < DRAIN_QUIET_NS / 2 ? w : DRAIN_QUIET_NS / 2;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Each ring wakes the watched fds once it has moved wake_bytes past its
 * position now (the probes, mark_wake); false where they cannot. */
static bool arm_flow_wake(struct katra_drain *d)
{
	if (!d->src.mark_wake || d->ep < 0)
		return false;
	for (unsigned i = 0; i < d->nrings; i++)
		__atomic_store_n(&d->src.mark_wake[(size_t)i * 8],
				 katra_rings_produced(d->rings, i) + d->wake_bytes, __ATOMIC_RELAXED);
	return true;
}

/* Sleeps until a ring's wakeup (its traffic since arm_flow_wake(), a
 * quarter fill), a kick or DRAIN_FLOW_WAIT_NS, but DRAIN_MARK_NS at least
 * (an edge left from before comes back at once); the ns it slept. */
static uint64_t flow_sleep(struct katra_drain *d)
{
	struct epoll_event ev[8];
	uint64_t t0 = mono_ns(), slept, v;
	int n = epoll_wait(d->ep, ev, 8, (int)(DRAIN_FLOW_WAIT_NS / 1000000));

	for (int i = 0; i < n; i++) {
		if (ev[i].data.fd != d->kick_fd)
			continue;
		ssize_t got = read(d->kick_fd, &v, sizeof(v)); /* the kick taken */
		(void)got;
	}
	slept = mono_ns() - t0;
	if (slept < DRAIN_MARK_NS) {
		struct timespec ts = { 0, (long)(DRAIN_MARK_NS - slept) };
		nanosleep(&ts, NULL);
		slept = DRAIN_MARK_NS;
	}
	return slept;
}

static void *marker_main(void *arg)
{
	struct katra_drain *d = arg;
	uint64_t wait = DRAIN_MARK_NS, since = 0, flow;
	unsigned still = 0; /* marks in a row with nothing new before them */
	bool by_flow = false; /* the next sleep ends at the rings' traffic */

	while (!__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE)) {
		if (by_flow) {
			since += flow_sleep(d);
		} else {
			struct timespec ts = { 0, (long)wait };
			nanosleep(&ts, NULL);
			since += wait;
		}
		by_flow = false;
		/* while nothing flows, fewer wakeups and a mark now and then;
		 * once nothing new came for DRAIN_STILL_MARKS marks, none */
		flow = flow_since_mark(d);
		wait = flow < DRAIN_FLOW_BYTES ? DRAIN_QUIET_NS / 2
					       : katra_drain_next_wait(flow, since, d->mark_bytes);
		if (flow < DRAIN_FLOW_BYTES && since < DRAIN_QUIET_NS)
			continue;
		if (!flow && still >= DRAIN_STILL_MARKS && doze(d)) {
			since = still = 0;
			wait = DRAIN_MARK_NS;
			continue;
		}
		still = flow ? 0 : still + 1;
		katra_drain_mark(d);
		since = 0;
		/* a slow flow: the next mark once a ring has moved its share of
		 * a mark's traffic, as at the fastest flows, not on a timer that
		 * must stay short in case the flow jumps */
		if (flow >= DRAIN_FLOW_BYTES && wait >= DRAIN_QUIET_NS / 2)
			by_flow = arm_flow_wake(d);
	}
	return NULL;
}

static void kick(struct katra_drain *d)
{
	uint64_t one = 1;

	if (d->kick_fd >= 0 && write(d->kick_fd, &one, sizeof(one)) < 0)
		return; /* a kick is pending already (the counter is full) */
}

bool katra_drain_dozing(const struct katra_drain *d)
{
	return __atomic_load_n(&d->dozing, __ATOMIC_ACQUIRE) && d->src.asleep &&
	       __atomic_load_n(d->src.asleep, __ATOMIC_ACQUIRE);
}

bool katra_drain_nudge(struct katra_drain *d)
{
	if (!__atomic_load_n(&d->dozing, __ATOMIC_ACQUIRE))
		return false;
	/* woken by a record whose edge the marker's epoll did not report (the
	 * ring read empty by then), or a record without its wakeup */
	if (__atomic_load_n(d->src.asleep, __ATOMIC_ACQUIRE) && !flow_since_mark(d))
		return false;
	__atomic_store_n(d->src.asleep, 0, __ATOMIC_SEQ_CST);
	kick(d);
	return true;
}

bool katra_drain_backlog(const struct katra_drain *d)
{
	return __atomic_load_n(&d->head, __ATOMIC_ACQUIRE) !=
	       __atomic_load_n(&d->tail, __ATOMIC_ACQUIRE);
}

uint64_t katra_drain_due(const struct katra_drain *d)
{
	uint64_t head = __atomic_load_n(&d->head, __ATOMIC_ACQUIRE);
	uint64_t tail = __atomic_load_n(&d->tail, __ATOMIC_ACQUIRE);

	if (head == tail)
		return UINT64_MAX;
	if (!d->marker_on || tail - head >= DRAIN_MARKS / 4 ||
	    katra_rings_max_fill(d->rings) >= d->rings->size / 4)
		return 0;
	return d->mark_ns[head % DRAIN_MARKS] + DRAIN_DEFER_NS;
}

int katra_drain_start_marker(struct katra_drain *d)
{
	int err;

	__atomic_store_n(&d->stop, 0, __ATOMIC_RELEASE);
	if (d->ep < 0 && d->src.asleep && d->src.watch) {
		struct epoll_event ev = { .events = EPOLLIN };

		d->ep = epoll_create1(EPOLL_CLOEXEC);
		d->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		ev.data.fd = d->kick_fd;
		if (d->ep < 0 || d->kick_fd < 0 ||
		    epoll_ctl(d->ep, EPOLL_CTL_ADD, d->kick_fd, &ev) < 0 ||
		    d->src.watch(d->src.ctx, d->ep)) { /* the marker never sleeps */
			if (d->ep >= 0)
				close(d->ep);
			d->ep = -1;
		}
	}
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
	kick(d);
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
