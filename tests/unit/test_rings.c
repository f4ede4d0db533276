// SPDX-License-Identifier: GPL-2.0-only
/* The ring consumer (user/record/rings.c) over a memfd laid out as the
 * kernel lays out a BPF ring: consumer page, producer page, the data (once:
 * fake_ring_util.h). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fake_ring_util.h"
#include "record/kernel/rings.h"

#define SIZE 4096u
#define BUSY (1u << 31)
#define DISCARD (1u << 30)

static void fake_open(struct fake_ring *f)
{
	fake_ring_open(f, SIZE);
}

/* Appends a record of `len` bytes filled with `fill`; returns its position. */
static uint64_t fake_put(struct fake_ring *f, uint32_t len, uint8_t fill, uint32_t flags)
{
	uint8_t body[256];

	memset(body, fill, len);
	return fake_ring_put(f, body, len, flags);
}

static void fake_set_flags(struct fake_ring *f, uint64_t at, uint32_t len, uint32_t flags)
{
	uint32_t hdr = len | flags;

	fake_ring_put_bytes(f, at, &hdr, sizeof(hdr));
}

static uint8_t seen[64];
static size_t seen_len[64], nseen;

static int on_record(void *ctx, void *data, size_t size)
{
	(void)ctx;
	seen[nseen] = ((uint8_t *)data)[0];
	seen_len[nseen] = size;
	/* the whole record is readable, wrapped or not */
	for (size_t i = 0; i < size; i++)
		cr_assert_eq(((uint8_t *)data)[i], seen[nseen]);
	nseen++;
	return 0;
}

Test(rings, a_drain_stops_at_the_snapshot_at_a_busy_record_and_skips_discarded)
{
	struct fake_ring f;
	struct katra_rings rs;

	fake_open(&f);
	cr_assert_eq(katra_rings_open(&rs, &f.fd, 1, SIZE), 0);
	fake_put(&f, 24, 1, 0);
	fake_put(&f, 10, 2, DISCARD);
	fake_put(&f, 13, 3, 0);
	katra_rings_snapshot(&rs, 0);
	fake_put(&f, 16, 4, 0); /* after the snapshot: left for the next round */
	nseen = 0;
	cr_assert_eq(katra_rings_drain(&rs, on_record, NULL, 0), 2);
	cr_assert_eq(nseen, 2);
	cr_assert_eq(seen[0], 1);
	cr_assert_eq(seen_len[0], 24);
	cr_assert_eq(seen[1], 3, "the discarded record is skipped");
	cr_assert_eq(seen_len[1], 13);
	uint64_t cons;
	memcpy(&cons, f.all, sizeof(cons));
	cr_assert_eq(cons, 32 + 24 + 24, "the consumer position is handed back");

	/* a record still being written stops the drain, even to the end */
	uint64_t busy = fake_put(&f, 8, 5, BUSY);
	fake_put(&f, 8, 6, 0);
	nseen = 0;
	cr_assert_eq(katra_rings_drain(&rs, on_record, NULL, 1), 1);
	cr_assert_eq(seen[0], 4);
	fake_set_flags(&f, busy, 8, 0); /* committed */
	nseen = 0;
	cr_assert_eq(katra_rings_drain(&rs, on_record, NULL, 1), 2);
	cr_assert_eq(seen[0], 5);
	cr_assert_eq(seen[1], 6);
	katra_rings_close(&rs);
	fake_ring_close(&f);
}

Test(rings, a_record_that_wraps_is_read_whole)
{
	struct fake_ring f;
	struct katra_rings rs;
	uint64_t n = 0;

	fake_open(&f);
	cr_assert_eq(katra_rings_open(&rs, &f.fd, 1, SIZE), 0);
	/* fill and drain round the ring a few times with records that straddle
	 * its end now and then */
	for (unsigned round = 0; round < 200; round++) {
		fake_put(&f, 100 + round % 60, (uint8_t)(round + 1), 0);
		katra_rings_snapshot(&rs, 0);
		nseen = 0;
		n += katra_rings_drain(&rs, on_record, NULL, 0);
		cr_assert_eq(nseen, 1);
		cr_assert_eq(seen[0], (uint8_t)(round + 1));
		cr_assert_eq(seen_len[0], 100 + round % 60);
	}
	cr_assert_eq(n, 200);
	cr_assert_gt(f.prod, 4 * SIZE, "the ring wrapped");
	katra_rings_close(&rs);
	fake_ring_close(&f);
}

Test(rings, a_size_that_is_not_a_power_of_two_is_refused)
{
	struct katra_rings rs;
	int fd = -1;

	cr_assert_eq(katra_rings_open(&rs, &fd, 1, 3000), -EINVAL);
	katra_rings_close(&rs);
}
