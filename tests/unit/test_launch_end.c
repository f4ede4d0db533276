// SPDX-License-Identifier: GPL-2.0-only
/* katra_launch_end and katra_proc_ignores (record/targets/targets.h) on real
 * children: a command still running when the capture ends is ended, by
 * SIGTERM or, when it ignores that, by SIGKILL after the grace, and reaped;
 * one that had exited is only reaped; an ignored SIGINT is seen in SigIgn. */
#include <criterion/criterion.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/targets/targets.h"

/* A child that ignores the signals in ign (0: none), then waits to be
 * ended; returned once it says its dispositions are set (a pipe, not a
 * sleep: a loaded machine may not run the child for a while). */
static pid_t child_ignoring(int ign, int ign2)
{
	int ready[2];
	char c;

	cr_assert_eq(pipe(ready), 0);
	pid_t pid = fork();

	if (pid == 0) {
		if (ign)
			signal(ign, SIG_IGN);
		if (ign2)
			signal(ign2, SIG_IGN);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	cr_assert_gt(pid, 0);
	close(ready[1]);
	cr_assert_eq(read(ready[0], &c, 1), 1, "the child never said it was ready");
	close(ready[0]);
	return pid;
}

Test(launch_end, a_running_command_is_ended_with_sigterm_and_reaped)
{
	struct katra_launch l = { child_ignoring(0, 0), -1, NULL };
	int st = -1;

	cr_assert_eq(katra_launch_end(&l, 2000, &st), KATRA_LAUNCH_ENDED_TERM);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	cr_assert_eq(l.pid, -1);
}

Test(launch_end, a_command_ignoring_sigterm_gets_sigkill_after_the_grace)
{
	pid_t pid = child_ignoring(SIGTERM, 0);
	struct katra_launch l = { pid, -1, NULL };
	int st = -1;

	enum katra_launch_end_how how = katra_launch_end(&l, 100, &st);
	int alive = kill(pid, 0) == 0;

	if (alive) /* never left behind by a failing test */
		kill(pid, SIGKILL), waitpid(pid, NULL, 0);
	cr_assert_eq(how, KATRA_LAUNCH_ENDED_KILL);
	cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	cr_assert_eq(l.pid, -1);
	cr_assert_not(alive, "the command is still there");
}

Test(launch_end, a_command_that_had_exited_is_only_reaped)
{
	pid_t pid = fork();
	int st = -1;

	siginfo_t si;

	if (pid == 0)
		_exit(7);
	/* exited and not reaped (WNOWAIT): what the capture's end finds */
	cr_assert_eq(waitid(P_PID, pid, &si, WEXITED | WNOWAIT), 0);
	struct katra_launch l = { pid, -1, NULL };
	cr_assert_eq(katra_launch_end(&l, 2000, &st), KATRA_LAUNCH_HAD_EXITED);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 7);
}

Test(launch_end, an_ignored_sigint_is_read_from_the_process_status)
{
	pid_t ign = child_ignoring(SIGINT, SIGQUIT), plain = child_ignoring(0, 0);
	struct katra_launch a = { ign, -1, NULL }, b = { plain, -1, NULL };
	int st;

	cr_assert(katra_proc_ignores("/proc", ign, SIGINT));
	cr_assert(katra_proc_ignores("/proc", ign, SIGQUIT));
	cr_assert_not(katra_proc_ignores("/proc", ign, SIGTERM));
	cr_assert_not(katra_proc_ignores("/proc", plain, SIGINT));
	cr_assert_not(katra_proc_ignores("/proc", 0, SIGINT));
	katra_launch_end(&a, 2000, &st);
	katra_launch_end(&b, 2000, &st);
}
