// SPDX-License-Identifier: GPL-2.0-only
/* Workload: wakeups that come from an interrupt while a traced thread is on
 * the CPU.
 *
 * usage: irqwake [--gate FILE] K
 *
 * Two threads made pinned to one CPU (the first the process may use): a
 * spinner that loops without syscalls until the sleeper is done, and a
 * sleeper that makes K clock_nanosleep(1 ms) calls.  Each sleep ends when its
 * hrtimer expires, in the timer interrupt, which finds the spinner (or the
 * idle task) current on that CPU: the waker of every one of the K wakeups is
 * the interrupt, never the spinner.  Both threads are created with their
 * affinity already set (a thread that moves itself is woken by the migration
 * thread), so the sleeper's wakeups are its creation and the K timers.
 * Prints: {"workload":"irqwake","pid":P,"sleeper":S,"spinner":X,"k":K,"cpu":C} */
#define _GNU_SOURCE
#include <stdatomic.h>

#include "pinned.h"

static const char *prog = "irqwake";
static unsigned long k;
static atomic_int done, spinning;
static _Atomic pid_t sleeper_tid, spinner_tid;

static void *spinner(void *arg)
{
	(void)arg;
	spinner_tid = wl_gettid();
	atomic_store(&spinning, 1);
	while (!atomic_load(&done))
		;
	return NULL;
}

static void *sleeper(void *arg)
{
	struct timespec ms = { 0, 1000000 };

	(void)arg;
	sleeper_tid = wl_gettid();
	for (unsigned long i = 0; i < k; i++)
		if (clock_nanosleep(CLOCK_MONOTONIC, 0, &ms, NULL))
			wl_die(prog, "clock_nanosleep failed");
	atomic_store(&done, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *gate = NULL;
	pthread_attr_t attr;
	pthread_t sp, sl;
	int i = 1, cpu;

	if (argc > 2 && !strcmp(argv[1], "--gate")) {
		gate = argv[2];
		i = 3;
	}
	if (argc != i + 1)
		wl_die(prog, "usage: irqwake [--gate FILE] K");
	k = wl_num(prog, "K", argv[i]);
	cpu = wl_pinned_attr(prog, &attr);
	wl_gate_wait(gate);
	if (pthread_create(&sp, &attr, spinner, NULL))
		wl_die(prog, "pthread_create failed");
	while (!atomic_load(&spinning))
		sched_yield();
	if (pthread_create(&sl, &attr, sleeper, NULL))
		wl_die(prog, "pthread_create failed");
	pthread_join(sl, NULL);
	pthread_join(sp, NULL);
	printf("{\"workload\":\"irqwake\",\"pid\":%d,\"sleeper\":%d,\"spinner\":%d,\"k\":%lu,"
	       "\"cpu\":%d}\n", (int)getpid(), (int)sleeper_tid, (int)spinner_tid, k, cpu);
	return 0;
}
