// SPDX-License-Identifier: GPL-2.0-only
/* katra_target_descendants (record/targets/targets.h) on a real tree: this
 * process's children and grandchildren, exactly, and none of its own
 * ancestors or unrelated processes; the roots themselves are left out, and a
 * count beyond cap is still counted. */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/targets/targets.h"

/* A child that forks `grandchildren` and then waits on its pipe; their pids
 * come back through it. */
static pid_t spawn(int grandchildren, const int *hold, const int *report, pid_t *gc)
{
	pid_t pid = fork();

	if (pid == 0) {
		char b;
		close(hold[1]); /* the test's alone: its close ends every read */
		for (int i = 0; i < grandchildren; i++) {
			pid_t g = fork();
			if (g == 0) {
				(void)!read(hold[0], &b, 1); /* until the test closes it */
				_exit(0);
			}
			(void)!write(report[1], &g, sizeof(g));
		}
		(void)!read(hold[0], &b, 1);
		_exit(0);
	}
	for (int i = 0; i < grandchildren; i++)
		cr_assert_eq(read(report[0], &gc[i], sizeof(gc[i])), (ssize_t)sizeof(gc[i]));
	return pid;
}

static bool has(const uint32_t *v, int n, uint32_t x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

Test(descendants, children_and_grandchildren_exactly)
{
	int hold[2], report[2];
	pid_t a, b, gca[3], gcb[2];
	uint32_t me = (uint32_t)getpid(), out[64], few[2];

	cr_assert_eq(pipe(hold), 0);
	cr_assert_eq(pipe(report), 0);
	a = spawn(3, hold, report, gca);
	b = spawn(2, hold, report, gcb);
	int n = katra_target_descendants(&me, 1, out, 64);
	cr_expect_eq(n, 7, "descendants of %u: %d, expected 7", me, n);
	cr_expect(has(out, n, (uint32_t)a) && has(out, n, (uint32_t)b));
	for (int i = 0; i < 3; i++)
		cr_expect(has(out, n, (uint32_t)gca[i]), "grandchild %d missing", (int)gca[i]);
	for (int i = 0; i < 2; i++)
		cr_expect(has(out, n, (uint32_t)gcb[i]), "grandchild %d missing", (int)gcb[i]);
	cr_expect(!has(out, n, me), "the root itself listed");
	cr_expect(!has(out, n, (uint32_t)getppid()), "an ancestor listed");
	/* rooted at a child: its own grandchildren only */
	uint32_t root_a = (uint32_t)a;
	n = katra_target_descendants(&root_a, 1, out, 64);
	cr_expect_eq(n, 3);
	/* beyond cap: counted, not written past it */
	few[1] = 0xdeadbeef;
	n = katra_target_descendants(&me, 1, few, 1);
	cr_expect_eq(n, 7);
	cr_expect_eq(few[1], 0xdeadbeef);
	close(hold[1]); /* everyone's read returns 0: they exit */
	while (wait(NULL) > 0 || errno == EINTR)
		;
	close(hold[0]);
	close(report[0]);
	close(report[1]);
}

/* A child is its forking thread's: one forked by a thread other than the
 * root's main thread, still running, is found too (the look that skips the
 * listing of /proc for childless roots reads every thread's children; when
 * a thread exits its children move to the main thread). */
struct forker {
	int hold[2];   /* the child waits on it */
	int report[2]; /* the child's pid */
	int stay[2];   /* the thread waits on it */
};

static void *fork_from_thread(void *arg)
{
	struct forker *f = arg;
	pid_t pid = fork();
	char b;

	if (pid == 0) {
		/* only the test's copies of the write ends: their close ends reads */
		close(f->hold[1]);
		close(f->stay[1]);
		close(f->report[1]);
		(void)!read(f->hold[0], &b, 1);
		_exit(0);
	}
	(void)!write(f->report[1], &pid, sizeof(pid));
	(void)!read(f->stay[0], &b, 1); /* alive while the test looks */
	return NULL;
}

Test(descendants, a_child_of_another_thread_and_none_for_a_childless_root)
{
	struct forker f;
	pthread_t t;
	pid_t child;
	uint32_t me = (uint32_t)getpid(), out[8];

	cr_assert_eq(pipe(f.hold), 0);
	cr_assert_eq(pipe(f.report), 0);
	cr_assert_eq(pipe(f.stay), 0);
	cr_assert_eq(pthread_create(&t, NULL, fork_from_thread, &f), 0);
	cr_assert_eq(read(f.report[0], &child, sizeof(child)), (ssize_t)sizeof(child));
	int n = katra_target_descendants(&me, 1, out, 8);
	cr_expect_eq(n, 1, "descendants of %u: %d, expected 1", me, n);
	cr_expect(has(out, n, (uint32_t)child), "the thread's child missing");
	/* the child itself has none */
	uint32_t c = (uint32_t)child;
	cr_expect_eq(katra_target_descendants(&c, 1, out, 8), 0);
	close(f.stay[1]);
	cr_assert_eq(pthread_join(t, NULL), 0);
	close(f.hold[1]);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	close(f.hold[0]);
	close(f.report[0]);
	close(f.report[1]);
	close(f.stay[0]);
}
