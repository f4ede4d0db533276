// SPDX-License-Identifier: GPL-2.0-only
/* The sweep of dead threads' call states (user/record/uprobes/ucall_sweep.c)
 * over a fake map: the entries of threads gone go, and a thread that reuses
 * a dead one's tid while the sweep runs keeps its own (its call would
 * otherwise have a Begin and no End). */
#include <errno.h>

#include <criterion/criterion.h>

#include "record/uprobes/ucall_sweep.h"

#define NKEYS 8

struct fake_map {
	uint64_t key[NKEYS], start[NKEYS];
	bool used[NKEYS];
	uint32_t live[NKEYS]; /* threads that exist, 0: none */
	/* a new thread takes tid `reuse_tid` (start `reuse_start`) and enters
	 * a call: when the sweep asks whether that tid is gone, or when its
	 * scan of the keys ends */
	uint32_t reuse_tid;
	uint64_t reuse_start;
	bool reuse_at_ask, reuse_at_end, reused;
};

static int find(const struct fake_map *f, uint64_t key)
{
	for (int i = 0; i < NKEYS; i++)
		if (f->used[i] && f->key[i] == key)
			return i;
	return -1;
}

static void put(struct fake_map *f, uint64_t key, uint64_t start)
{
	int i = find(f, key);

	for (int j = 0; i < 0 && j < NKEYS; j++)
		if (!f->used[j])
			i = j;
	cr_assert_geq(i, 0);
	f->used[i] = true, f->key[i] = key, f->start[i] = start;
}

static void reuse(struct fake_map *f)
{
	if (f->reused)
		return;
	f->reused = true;
	for (int i = 0; i < NKEYS; i++)
		if (!f->live[i]) {
			f->live[i] = f->reuse_tid;
			break;
		}
	/* ucall_begin_at: its entry replaces the dead thread's (BPF_ANY) */
	put(f, (uint64_t)f->reuse_tid << 3 | 1, f->reuse_start);
}

static int next_key(void *ctx, const uint64_t *prev, uint64_t *next)
{
	struct fake_map *f = ctx;
	int i = prev ? find(f, *prev) + 1 : 0;

	for (; i < NKEYS; i++)
		if (f->used[i]) {
			*next = f->key[i];
			return 0;
		}
	if (f->reuse_at_end)
		reuse(f);
	return -ENOENT;
}

static int start_of(void *ctx, uint64_t key, uint64_t *start)
{
	struct fake_map *f = ctx;
	int i = find(f, key);

	if (i < 0)
		return -ENOENT;
	*start = f->start[i];
	return 0;
}

static int del(void *ctx, uint64_t key)
{
	struct fake_map *f = ctx;
	int i = find(f, key);

	if (i < 0)
		return -ENOENT;
	f->used[i] = false;
	return 0;
}

static bool thread_gone(void *ctx, uint32_t tid)
{
	struct fake_map *f = ctx;

	for (int i = 0; i < NKEYS; i++)
		if (f->live[i] == tid)
			return false;
	if (f->reuse_at_ask && tid == f->reuse_tid)
		reuse(f); /* born right after the answer */
	return true;
}

static unsigned sweep(struct fake_map *f)
{
	const struct ucall_sweep_map m = { next_key, start_of, del, thread_gone, f };

	return ucall_sweep(&m);
}

/* tid 40 died inside a call (start 1000); tid 41 lives (start 2000). */
static void two_threads(struct fake_map *f)
{
	put(f, 40 << 3 | 1, 1000);
	put(f, (40ull << 3 | 2) | (1ull << 40), 1000); /* the NT layer, level 1 */
	put(f, 41 << 3 | 1, 2000);
	f->live[0] = 41;
}

Test(ucall_sweep, the_entries_of_a_dead_thread_go_a_live_ones_stay)
{
	struct fake_map f = { 0 };

	two_threads(&f);
	cr_expect_eq(sweep(&f), 2);
	cr_expect_lt(find(&f, 40 << 3 | 1), 0);
	cr_expect_lt(find(&f, (40ull << 3 | 2) | (1ull << 40)), 0);
	cr_expect_geq(find(&f, 41 << 3 | 1), 0);
}

/* Sweeps f (two_threads, tid 40 reused as f says): the new thread's entry
 * stays, with its own start time. */
static void sweep_keeps_new_thread(struct fake_map *f)
{
	int i;

	two_threads(f);
	sweep(f);
	i = find(f, 40 << 3 | 1);
	cr_expect_geq(i, 0, "the new thread 40's call state was deleted");
	cr_expect_eq(i >= 0 ? f->start[i] : 0, 5000);
}

Test(ucall_sweep, a_tid_reused_after_the_scan_keeps_its_entry)
{
	struct fake_map f = { .reuse_tid = 40, .reuse_start = 5000, .reuse_at_end = true };

	sweep_keeps_new_thread(&f);
	/* the dead thread's other entry still goes */
	cr_expect_lt(find(&f, (40ull << 3 | 2) | (1ull << 40)), 0);
}

Test(ucall_sweep, a_tid_reused_as_it_is_found_gone_keeps_its_entry)
{
	struct fake_map f = { .reuse_tid = 40, .reuse_start = 5000, .reuse_at_ask = true };

	sweep_keeps_new_thread(&f);
}
