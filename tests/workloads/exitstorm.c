// SPDX-License-Identifier: GPL-2.0-only
/* Workload: processes that die while all their threads are busy in syscalls.
 *
 * usage: exitstorm [--gate FILE] R K
 *
 * R times, one after the other: fork a child whose main thread starts K
 * threads looping on raw getppid() (bursts of 16, then a 50 us nanosleep), waits until every one of them is running,
 * then calls exit_group(0) (the raw syscall: no atexit, no stdio flush) while
 * they are still making calls; the parent waits for it.  The kernel kills the
 * K threads wherever they are, so every thread of every child exits (and ran)
 * exactly once, and one of them last (group_dead).
 *
 * The children write their pid and tids into memory shared with the parent
 * (no extra syscalls).  Prints one JSON line when done:
 * {"workload":"exitstorm","pid":P,"rounds":R,"k":K,
 *  "children":[{"pid":C,"tids":[..K worker tids..]},..]} */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "workload.h"

#define MAX_ROUNDS 10000
#define MAX_K 64

static const char *prog = "exitstorm";

struct round {
	int pid;
	atomic_int started; /* workers that have made their first call */
	int tids[MAX_K];
};

static struct round *cur;

static void *spin(void *arg)
{
	int idx = (int)(intptr_t)arg;

	cur->tids[idx] = wl_gettid();
	syscall(SYS_getppid);
	atomic_fetch_add(&cur->started, 1);
	/* bursts of calls with short sleeps (also a syscall): the kill finds
	 * threads on and off the CPU, and the trace stays small */
	for (;;) {
		for (int i = 0; i < 16; i++)
			syscall(SYS_getppid);
		wl_sleep_ns(50000);
	}
	return NULL;
}

static void child(unsigned long k)
{
	pthread_t th;

	cur->pid = getpid();
	for (unsigned long t = 0; t < k; t++)
		if (pthread_create(&th, NULL, spin, (void *)(intptr_t)t))
			syscall(SYS_exit_group, 3);
	/* exit only once every thread is inside its loop */
	while (atomic_load(&cur->started) < (int)k)
		sched_yield();
	syscall(SYS_exit_group, 0);
}

int main(int argc, char **argv)
{
	const char *gate = NULL;
	unsigned long rounds, k;
	struct round *all;
	int i = 1;

	if (argc > 2 && !strcmp(argv[1], "--gate")) {
		gate = argv[2];
		i = 3;
	}
	if (argc - i != 2)
		wl_die(prog, "usage: exitstorm [--gate FILE] R K");
	rounds = wl_num(prog, "R", argv[i]);
	k = wl_num(prog, "K", argv[i + 1]);
	if (rounds < 1 || rounds > MAX_ROUNDS || k < 1 || k > MAX_K)
		wl_die(prog, "R must be 1..%d and K 1..%d", MAX_ROUNDS, MAX_K);
	all = mmap(NULL, rounds * sizeof(*all), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (all == MAP_FAILED)
		wl_die(prog, "mmap: %s", strerror(errno));

	wl_gate_wait(gate);
	for (unsigned long r = 0; r < rounds; r++) {
		int status;
		pid_t pid;

		cur = &all[r];
		fflush(stdout); /* nothing buffered is inherited */
		pid = fork();
		if (pid < 0)
			wl_die(prog, "fork: %s", strerror(errno));
		if (!pid)
			child(k);
		if (waitpid(pid, &status, 0) != pid)
			wl_die(prog, "waitpid: %s", strerror(errno));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			wl_die(prog, "child %d ended with status %#x", (int)pid, status);
		if (all[r].pid != pid || atomic_load(&all[r].started) != (int)k)
			wl_die(prog, "child %d did not start its %lu threads", (int)pid, k);
	}

	printf("{\"workload\":\"exitstorm\",\"pid\":%d,\"rounds\":%lu,\"k\":%lu,\"children\":[",
	       (int)getpid(), rounds, k);
	for (unsigned long r = 0; r < rounds; r++) {
		printf("%s{\"pid\":%d,\"tids\":[", r ? "," : "", all[r].pid);
		for (unsigned long t = 0; t < k; t++)
			printf("%s%d", t ? "," : "", all[r].tids[t]);
		printf("]}");
	}
	printf("]}\n");
	return 0;
}
