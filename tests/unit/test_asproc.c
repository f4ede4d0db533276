// SPDX-License-Identifier: GPL-2.0-only
/* A helper run with no more power than a process has
 * (record/uprobes/asproc.h): /bin/sh, run as a process, prints its own
 * /proc/self/status; every capability set is empty, no_new_privs is on, the
 * ids are the process's; a process already gone is refused, with the step. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/uprobes/asproc.h"

/* Runs "grep ^(Uid|Gid|Groups|Cap|NoNewPrivs) /proc/self/status" as pid;
 * its output into out. */
static void status_as(pid_t pid, char *out, size_t cap)
{
	char *const argv[] = { "sh", "-c", "grep -E '^(Uid|Gid|Groups|Cap|NoNewPrivs)' "
				   "/proc/self/status", NULL };
	char *const envp[] = { "PATH=/usr/bin:/bin", NULL };
	struct katra_asproc a;
	char why[160];
	int pfd[2], exe, errfd, st;
	size_t len = 0;
	pid_t child;
	ssize_t got;

	cr_assert_eq(katra_asproc_open((uint32_t)pid, &a, why, sizeof(why)), 0, "%s", why);
	exe = open("/bin/sh", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(exe, 0);
	cr_assert_eq(pipe2(pfd, O_CLOEXEC), 0);
	cr_assert_eq(katra_asproc_spawn(&a, exe, argv, envp, pfd[1], 10000, &child, &errfd, why,
					sizeof(why)), 0, "%s", why);
	close(pfd[1]);
	close(exe);
	while (len + 1 < cap && (got = read(pfd[0], out + len, cap - 1 - len)) > 0)
		len += (size_t)got;
	out[len] = 0;
	close(pfd[0]);
	cr_assert_eq(waitpid(child, &st, 0), child);
	cr_assert(!katra_asproc_failed(errfd, why, sizeof(why)), "could not run: %s", why);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x: %s", st, out);
	katra_asproc_close(&a);
}

static void expect_line(const char *out, const char *line)
{
	cr_expect_not_null(strstr(out, line), "no '%s' in:\n%s", line, out);
}

static void expect_powerless(const char *out)
{
	expect_line(out, "CapInh:\t0000000000000000\n");
	expect_line(out, "CapPrm:\t0000000000000000\n");
	expect_line(out, "CapEff:\t0000000000000000\n");
	expect_line(out, "CapAmb:\t0000000000000000\n");
	expect_line(out, "NoNewPrivs:\t1\n");
}

Test(asproc, runs_with_our_ids_and_no_capability)
{
	char out[4096], want[64];

	status_as(getpid(), out, sizeof(out));
	expect_powerless(out);
	if (!geteuid()) /* root: uid 0 without capabilities, none to gain by exec */
		expect_line(out, "CapBnd:\t0000000000000000\n");
	snprintf(want, sizeof(want), "Uid:\t%u\t%u\t%u\t", getuid(), geteuid(), geteuid());
	expect_line(out, want);
}

Test(asproc, runs_as_another_owner_with_its_groups)
{
	int go[2];
	char out[4096], c;

	if (geteuid())
		cr_skip_test("not root: no process of another owner to make");
	cr_assert_eq(pipe(go), 0);
	pid_t pid = fork();
	if (pid == 0) {
		gid_t groups[] = { 65534, 5 };
		if (setgroups(2, groups) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534) || write(go[1], "", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	cr_assert_gt(pid, 0);
	close(go[1]);
	cr_assert_eq(read(go[0], &c, 1), 1, "the target did not change owner");
	close(go[0]);
	status_as(pid, out, sizeof(out));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	expect_powerless(out);
	expect_line(out, "Uid:\t65534\t65534\t65534\t65534\n");
	expect_line(out, "Gid:\t65534\t65534\t65534\t65534\n");
	cr_expect(strstr(out, "Groups:\t5 65534") || strstr(out, "Groups:\t65534 5"),
		  "not the target's groups:\n%s", out);
}

Test(asproc, a_process_gone_is_refused_with_the_step)
{
	struct katra_asproc a;
	char why[160];
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	cr_assert_gt(pid, 0);
	waitpid(pid, NULL, 0);
	cr_assert_eq(katra_asproc_open((uint32_t)pid, &a, why, sizeof(why)), -ESRCH);
	cr_expect_str_eq(why, "pidfd_open: No such process");
	katra_asproc_close(&a);
}
