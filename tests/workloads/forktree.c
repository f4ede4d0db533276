// SPDX-License-Identifier: GPL-2.0-only
/* Workload: a fork/exec tree, or an unrelated busy process.
 *
 * usage: forktree [--gate FILE] LEVEL   LEVEL > 0: fork; the child execs this
 *                                       same binary with LEVEL - 1; wait for it
 *        forktree busy SECONDS [BATCH]  getppid() in a loop for SECONDS (0: forever);
 *                                       with BATCH, sleep 1 ms after every BATCH calls
 *
 * `forktree --gate G 3` is a chain of four processes (levels 3, 2, 1, 0), each
 * the child of the previous; every level prints one JSON line (one write(2),
 * so the lines never interleave) after the gate:
 *   {"workload":"forktree","level":L,"pid":P,"ppid":PP}
 * and exits with its child's exit status (0).  busy prints
 *   {"workload":"forktree","mode":"busy","pid":P} first. */
#include <sys/wait.h>

#include "workload.h"

static const char *prog = "forktree";

static int busy(unsigned long seconds, unsigned long batch)
{
	uint64_t end = wl_now_ns() + (uint64_t)seconds * 1000000000ull;
	unsigned long n = batch ? batch : 1000;

	dprintf(STDOUT_FILENO, "{\"workload\":\"forktree\",\"mode\":\"busy\",\"pid\":%d}\n",
		(int)getpid());
	for (;;) {
		for (unsigned long i = 0; i < n; i++)
			syscall(SYS_getppid);
		if (batch)
			wl_sleep_ns(1000000);
		if (seconds && wl_now_ns() >= end)
			return 0;
	}
}

int main(int argc, char **argv)
{
	const char *gate = NULL;
	unsigned long level;
	char next[24];
	pid_t child;
	int status, i = 1;

	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "busy"))
		return busy(wl_num(prog, "SECONDS", argv[2]),
			    argc == 4 ? wl_num(prog, "BATCH", argv[3]) : 0);
	if (argc > 2 && !strcmp(argv[1], "--gate")) {
		gate = argv[2];
		i = 3;
	}
	if (argc - i != 1)
		wl_die(prog, "usage: forktree [--gate FILE] LEVEL | forktree busy SECONDS [BATCH]");
	level = wl_num(prog, "LEVEL", argv[i]);

	wl_gate_wait(gate);
	dprintf(STDOUT_FILENO, "{\"workload\":\"forktree\",\"level\":%lu,\"pid\":%d,\"ppid\":%d}\n",
		level, (int)getpid(), (int)getppid());
	if (!level)
		return 0;
	snprintf(next, sizeof(next), "%lu", level - 1);
	child = fork();
	if (child < 0)
		wl_die(prog, "fork: %s", strerror(errno));
	if (!child) {
		execl("/proc/self/exe", "forktree", next, (char *)NULL);
		wl_die(prog, "exec /proc/self/exe: %s", strerror(errno));
	}
	if (waitpid(child, &status, 0) != child)
		wl_die(prog, "waitpid: %s", strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
