// SPDX-License-Identifier: GPL-2.0-only
/* The drain's marks (user/record/drain/drain.c) over two fake rings laid out
 * as the kernel lays out a BPF ring (fake_ring_util.h). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <sys/syscall.h>

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
	(void)ctx, (void)ring, (void)now;
	return produced_until > prev ? produced_until : prev;
}

Test(drain, a_backlog_larger_than_the_reorder_budget_is_released_by_its_marks)
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
	const struct katra_drain_src src = { fake_watermark, NULL };
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
