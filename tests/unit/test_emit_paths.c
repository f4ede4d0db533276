// SPDX-License-Identifier: GPL-2.0-only
/* --paths: the emitter's stash of paths waiting for their syscall record. */
#include <criterion/criterion.h>
#include <stdio.h>

#include "format_test_util.h"
#include "katra/wire.h"
#include "record/emit/emit.h"
#include "record/emit/emit_int.h"

#define START 1000000000ull

/* A drain that fell behind (at SCHED_IDLE on a busy machine) hands
 * over more recent paths than the stash holds: one it cannot keep is a path
 * the trace will lack, and it is counted under SpanTable like an eviction
 * (it was dropped without a count). */
Test(emit_paths, a_path_the_full_stash_refuses_is_counted)
{
	struct emit_limits lim = { 64, 16, 16 };
	struct katra_writer *w;
	struct emitter e;
	char dir[64], path[128];
	unsigned n;

	temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/t.ktrc", dir);
	cr_assert_eq(katra_writer_open(&w, path, katra_sample_header(), 0), 0);
	cr_assert_eq(emitter_init(&e, w, START, 0, true, &lim), 0);
	/* all within a second of each other: none old enough to give way */
	for (n = 0; n < KATRA_PATHS_WAITING + 1000; n++) {
		struct katra_ev_path p = {
			.head = { .type = KATRA_EV_PATH, .tid = 100 + n, .tgid = 100 + n,
				  .ts = START + n },
			.enter_ts = START + n, .nr = 257, .len = 4,
		};
		memcpy(p.path, "/a/b", 5);
		emit_stash_path(&e, &p);
		if (e.st.evictions[KATRA_DROP_SPAN_TABLE])
			break;
	}
	cr_assert_eq(n, KATRA_PATHS_WAITING, "%u recent paths stashed before the first refused and counted", n);
	cr_assert_eq(e.st.evictions[KATRA_DROP_SPAN_TABLE], 1, "the first refused path");
	emitter_free(&e);
	katra_writer_close(w);
	temp_dir_remove(dir);
}

/* The emitter remembers the last two threads it looked up (two threads on
 * two CPUs alternate in the merge).  A thread forgotten (its exit) must not
 * come back from that memory: the same tid later is a new thread, with its
 * own process, not the freed state. */
Test(emit_paths, a_forgotten_thread_is_not_remembered_by_the_lookup_cache)
{
	struct emit_limits lim = { 64, 16, 16 };
	struct thread_state *a, *b, *again;
	struct katra_writer *w;
	struct emitter e;
	char dir[64], path[128];

	temp_dir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/t.ktrc", dir);
	cr_assert_eq(katra_writer_open(&w, path, katra_sample_header(), 0), 0);
	cr_assert_eq(emitter_init(&e, w, START, 0, true, &lim), 0);
	a = emit_thread(&e, 101, 100);
	b = emit_thread(&e, 202, 200);
	cr_assert(a && b && a != b);
	cr_assert_eq(emit_thread(&e, 101, 100), a, "the previous thread, from the cache");
	cr_assert_eq(emit_thread(&e, 202, 200), b);
	emit_forget_thread(&e, 101); /* 101 was the one before the last */
	again = emit_thread(&e, 101, 300);
	cr_assert(again);
	cr_assert_eq(again->tgid, 300, "tid 101 after its exit is a new thread of process 300, "
		     "not the forgotten state (tgid %u)", again->tgid);
	cr_assert_eq(ktable_get(&e.threads, 101), again);
	emitter_free(&e);
	katra_writer_close(w);
	temp_dir_remove(dir);
}
