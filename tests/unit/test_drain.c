// SPDX-License-Identifier: GPL-2.0-only
/* The drain's marks (user/record/drain/drain.c) over two fake rings laid out
 * as the kernel lays out a BPF ring (fake_ring_util.h). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fake_ring_util.h"
#include "pipeline_test_util.h"
#include "record/drain/drain.h"

#define SIZE (256u << 10)
#define START 1000000000ull
#define TGID 7u

/* The producers' clock: every record written so far is below it, and no CPU
 * is busy or in a syscall (the slots say nothing older). */
static uint64_t produced_until;

static uint64_t fake_watermark(void *ctx, unsigned ring, uint64_t now, uint64_t prev)
{
	uint64_t until = __atomic_load_n(&produced_until, __ATOMIC_ACQUIRE);

	(void)ctx, (void)ring, (void)now;
	return until > prev ? until : prev;
}

Test(drain, a_backlog_larger_than_the_reorder_budget_is_released_by_its_marks, .timeout = 30)
{
	enum { MARKS = 40, PER_MARK = 50 }; /* records per ring between two marks */
	struct fake_ring f[2];
	struct katra_rings rs;
	struct katra_drain d;
	struct pl_trace t;
	int fds[2];

	for (unsigned r = 0; r < 2; r++) {
		fake_ring_open(&f[r], SIZE);
		fds[r] = f[r].fd;
	}
	cr_assert_eq(katra_rings_open(&rs, fds, 2, SIZE), 0);
	/* a reorder budget of 256 items against 4,000 records in the rings */
	pl_trace_open(&t, 2, START);
	t.pc.max_items = 256;
	pipeline_free(&t.pl);
	cr_assert_eq(pipeline_init(&t.pl, t.w, &t.pc), 0);
	const struct katra_drain_src src = { fake_watermark, NULL, NULL, NULL, NULL, NULL };
	cr_assert_eq(katra_drain_init(&d, &rs, &t.pl, &src, START, 0), 0);

	/* the drain is away (descheduled, or waiting for the writer) while
	 * both CPUs write and the marker takes a mark now and then; three
	 * threads hop between the CPUs, so an item released early would make
	 * its thread's older items on the other ring late */
	uint64_t ts = START;
	for (unsigned m = 0; m < MARKS; m++) {
		for (unsigned j = 0; j < PER_MARK; j++)
			for (unsigned r = 0; r < 2; r++) {
				struct katra_ev_syscall_short gp = {
					.head = { KATRA_EV_SYSCALL_SHORT, r, TGID,
						  100 + (j + r) % 3, ts + 4 },
					.enter_ts = ts, .nr = SYS_getppid,
					.flags = KATRA_SC_ENTER | KATRA_SC_EXIT,
				};
				fake_ring_put(&f[r], &gp, sizeof(gp), 0);
				ts += 5;
			}
		produced_until = ts;
		katra_drain_mark(&d);
	}
	cr_assert_eq(katra_drain_run(&d, UINT64_MAX), 0);
	cr_assert_eq(t.pl.forced, 0, "%lu items written before their mark passed them",
		     (unsigned long)t.pl.forced);
	cr_assert_eq(t.pl.em.st.late, 0);
	cr_assert_eq(t.pl.em.st.events, 2u * 2 * MARKS * PER_MARK,
		     "every syscall's Begin and End released by the marks");
	cr_assert_leq(t.pl.order.item_capacity, 256);
	pl_trace_finish(&t, ts + 10);
	katra_drain_free(&d);
	katra_rings_close(&rs);
	for (unsigned r = 0; r < 2; r++)
		fake_ring_close(&f[r]);
	temp_dir_remove(t.dir);
}

/* ---- the marker's sleep while nothing flows ---- */

static int wake_efd = -1;

/* The probes' wakeup, as the marker's epoll sees it: this eventfd. */
static int watch_efd(void *ctx, int epfd)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET, .data.fd = wake_efd };

	(void)ctx;
	return epoll_ctl(epfd, EPOLL_CTL_ADD, wake_efd, &ev) ? -errno : 0;
}

/* Waits (10 s at most) until *v reads `want`: false if it never did. */
static bool wait_u32(const uint32_t *v, uint32_t want)
{
	for (int i = 0; i < 10000; i++) {
		if (__atomic_load_n(v, __ATOMIC_ACQUIRE) == want)
			return true;
		usleep(1000);
	}
	return false;
}

static bool wait_tail_past(const struct katra_drain *d, uint64_t tail)
{
	for (int i = 0; i < 10000; i++) {
		if (__atomic_load_n(&d->tail, __ATOMIC_ACQUIRE) > tail)
			return true;
		usleep(1000);
	}
	return false;
}

static void put_getppid(struct fake_ring *f, unsigned ring, uint64_t ts)
{
	struct katra_ev_syscall_short gp = {
		.head = { KATRA_EV_SYSCALL_SHORT, ring, TGID, 100, ts + 4 },
		.enter_ts = ts, .nr = SYS_getppid, .flags = KATRA_SC_ENTER | KATRA_SC_EXIT,
	};

	fake_ring_put(f, &gp, sizeof(gp), 0);
	__atomic_store_n(&produced_until, ts + 5, __ATOMIC_RELEASE);
}

Test(drain, the_marker_sleeps_while_nothing_flows_and_the_first_record_wakes_it, .timeout = 30)
{
	struct fake_ring f[2];
	struct katra_rings rs;
	struct katra_drain d;
	struct pl_trace t;
	uint32_t asleep = 0;
	uint64_t one = 1, tail;
	int fds[2];

	for (unsigned r = 0; r < 2; r++) {
		fake_ring_open(&f[r], SIZE);
		fds[r] = f[r].fd;
	}
	wake_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	cr_assert_geq(wake_efd, 0);
	cr_assert_eq(katra_rings_open(&rs, fds, 2, SIZE), 0);
	pl_trace_open(&t, 2, START);
	const struct katra_drain_src src = { fake_watermark, NULL, &asleep, watch_efd, NULL, NULL };
	cr_assert_eq(katra_drain_init(&d, &rs, &t.pl, &src, START, 0), 0);
	cr_assert_eq(katra_drain_start_marker(&d), 0);

	/* a record, then nothing: the marks after it release it, then the
	 * marker sleeps with the flag set */
	put_getppid(&f[0], 0, START + 10);
	cr_assert(wait_u32(&asleep, 1), "the marker never went to sleep");
	cr_assert(katra_drain_dozing(&d));
	cr_assert_eq(d.dozes, 1);
	cr_assert_eq(katra_drain_run(&d, UINT64_MAX), 0);
	cr_assert_eq(t.pl.em.st.events, 2, "the marks before the sleep released the syscall");
	tail = __atomic_load_n(&d.tail, __ATOMIC_ACQUIRE);
	usleep(30000); /* three quiet intervals: asleep, it takes no mark */
	cr_assert_eq(__atomic_load_n(&d.tail, __ATOMIC_ACQUIRE), tail);
	cr_assert_not(katra_drain_nudge(&d), "nothing came: no nudge");

	/* a commit as the probes make it while the flag is set: it clears
	 * the flag and wakes the rings' pollers; the marker marks it */
	put_getppid(&f[1], 1, START + 20);
	__atomic_store_n(&asleep, 0, __ATOMIC_SEQ_CST);
	cr_assert_eq(write(wake_efd, &one, sizeof(one)), sizeof(one));
	cr_assert(wait_tail_past(&d, tail), "the record's wakeup brought no mark");
	cr_assert(wait_u32(&asleep, 1), "the marker never went back to sleep");
	cr_assert_eq(d.dozes, 2);

	/* a record committed with no wakeup (it read the flag before it was
	 * set): the caller's slow tick nudges the marker */
	tail = __atomic_load_n(&d.tail, __ATOMIC_ACQUIRE);
	put_getppid(&f[0], 0, START + 30);
	cr_assert(katra_drain_nudge(&d));
	cr_assert(wait_tail_past(&d, tail), "the nudge brought no mark");

	katra_drain_stop_marker(&d);
	cr_assert_eq(katra_drain_run(&d, UINT64_MAX), 0);
	cr_assert_eq(t.pl.em.st.events, 6);
	pl_trace_finish(&t, START + 100);
	katra_drain_free(&d);
	katra_rings_close(&rs);
	for (unsigned r = 0; r < 2; r++)
		fake_ring_close(&f[r]);
	close(wake_efd);
	temp_dir_remove(t.dir);
}

/* ---- the marker's cadence while records flow ---- */

Test(drain, marks_come_every_512_kib_of_ring_traffic_between_1_and_5_ms, .timeout = 30)
{
	const uint64_t ms = 1000000, kib = 1024, M = DRAIN_MARK_BYTES;

	cr_assert_eq(katra_drain_next_wait(UINT64_MAX, 0, M), ms, "the first mark's rate: unknown");
	cr_assert_eq(katra_drain_next_wait(4096 * kib, ms, M), ms, "a storm: every millisecond");
	cr_assert_eq(katra_drain_next_wait(512 * kib, ms, M), ms);
	cr_assert_eq(katra_drain_next_wait(256 * kib, ms, M), 2 * ms, "half the rate, twice the wait");
	cr_assert_eq(katra_drain_next_wait(512 * kib, 4 * ms, M), 4 * ms);
	cr_assert_eq(katra_drain_next_wait(128 * kib, 2 * ms, M), 5 * ms, "8 ms, capped at 5");
	cr_assert_eq(katra_drain_next_wait(4 * kib, 5 * ms, M), 5 * ms);
	/* whatever the rate, a mark covers at most 512 KiB or one millisecond's */
	for (uint64_t flow = 4 * kib; flow < 64 * 1024 * kib; flow = flow * 3 / 2)
		for (uint64_t since = ms; since <= 5 * ms; since += ms) {
			uint64_t w = katra_drain_next_wait(flow, since, M);
			uint64_t next = flow * w / since; /* at the same rate */
			cr_assert(w >= ms && w <= 5 * ms);
			cr_assert(next <= 512 * kib || w == ms, "%lu bytes a mark at %lu B/%lu ns",
				  (unsigned long)next, (unsigned long)flow, (unsigned long)since);
		}
	/* small rings: an eighth of one between two marks */
	cr_assert_eq(katra_drain_next_wait(64 * kib, 2 * ms, 128 * kib), 4 * ms);
}

/* ---- a mark's wait before the drain reads it ---- */

Test(drain, a_mark_is_due_100_ms_after_it_was_taken_or_once_a_ring_is_a_quarter_full, .timeout = 30)
{
	struct fake_ring f[2];
	struct katra_rings rs;
	struct katra_drain d;
	struct pl_trace t;
	int fds[2];
	uint64_t ts = START;

	for (unsigned r = 0; r < 2; r++) {
		fake_ring_open(&f[r], SIZE);
		fds[r] = f[r].fd;
	}
	cr_assert_eq(katra_rings_open(&rs, fds, 2, SIZE), 0);
	pl_trace_open(&t, 2, START);
	const struct katra_drain_src src = { fake_watermark, NULL, NULL, NULL, NULL, NULL };
	cr_assert_eq(katra_drain_init(&d, &rs, &t.pl, &src, START, 0), 0);
	cr_assert_eq(katra_drain_due(&d), UINT64_MAX, "no mark waits");
	for (unsigned i = 0; i < 10; i++, ts += 5)
		put_getppid(&f[0], 0, ts);
	katra_drain_mark(&d);
	cr_assert_eq(katra_drain_due(&d), 0, "without a marker thread, at once");
	d.marker_on = true; /* as a running marker leaves it (no thread here) */
	cr_assert_eq(katra_drain_due(&d), d.mark_ns[0] + DRAIN_DEFER_NS);
	/* a quarter of a ring unread: due now, whatever the mark's age */
	while (katra_rings_max_fill(&rs) < SIZE / 4) {
		put_getppid(&f[1], 1, ts);
		ts += 5;
	}
	cr_assert_eq(katra_drain_due(&d), 0, "a ring a quarter full");
	d.marker_on = false;
	cr_assert_eq(katra_drain_run(&d, UINT64_MAX), 0);
	cr_assert_eq(katra_drain_due(&d), UINT64_MAX, "every mark read");
	pl_trace_finish(&t, ts + 10);
	katra_drain_free(&d);
	katra_rings_close(&rs);
	for (unsigned r = 0; r < 2; r++)
		fake_ring_close(&f[r]);
	temp_dir_remove(t.dir);
}
