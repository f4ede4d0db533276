// SPDX-License-Identifier: GPL-2.0-only
/* Workload: many threads blocking in syscalls on one CPU.
 *
 * usage: blockring [--gate FILE] THREADS K
 *
 * THREADS threads, all pinned to one CPU (set before they start), pass one
 * token K times around a ring of pipes: thread i reads a byte from pipe i
 * (blocking until thread i-1 writes it) and writes it to pipe i+1.  All but
 * one thread are always blocked in read(), and each one's CPU slot is taken
 * by the others' syscalls in between: every thread makes exactly K reads of
 * its pipe and K writes, each read blocks.
 * Prints: {"workload":"blockring","pid":P,"k":K,"tids":[...],"fds":[...]} */
#define _GNU_SOURCE

#include "pinned.h"

#define MAX_THREADS 64

static const char *prog = "blockring";
static unsigned long k, nthreads;
static int pipes[MAX_THREADS][2];
static pid_t tids[MAX_THREADS];

static void *ring_thread(void *arg)
{
	unsigned long i = (unsigned long)arg;
	char c;

	tids[i] = wl_gettid();
	for (unsigned long r = 0; r < k; r++) {
		if (read(pipes[i][0], &c, 1) != 1)
			wl_die(prog, "read: %s", strerror(errno));
		if (write(pipes[(i + 1) % nthreads][1], &c, 1) != 1)
			wl_die(prog, "write: %s", strerror(errno));
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	const char *gate = NULL;
	pthread_attr_t attr;
	int i = 1;

	if (argc > 2 && !strcmp(argv[1], "--gate")) {
		gate = argv[2];
		i = 3;
	}
	if (argc != i + 2)
		wl_die(prog, "usage: blockring [--gate FILE] THREADS K");
	nthreads = wl_num(prog, "THREADS", argv[i]);
	k = wl_num(prog, "K", argv[i + 1]);
	if (nthreads < 2 || nthreads > MAX_THREADS)
		wl_die(prog, "THREADS must be 2..%d", MAX_THREADS);
	for (unsigned long t = 0; t < nthreads; t++)
		if (pipe(pipes[t]))
			wl_die(prog, "pipe: %s", strerror(errno));
	wl_pinned_attr(prog, &attr);
	wl_gate_wait(gate);
	for (unsigned long t = 0; t < nthreads; t++)
		if (pthread_create(&th[t], &attr, ring_thread, (void *)t))
			wl_die(prog, "pthread_create failed");
	if (write(pipes[0][1], "x", 1) != 1)
		wl_die(prog, "write: %s", strerror(errno));
	for (unsigned long t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	printf("{\"workload\":\"blockring\",\"pid\":%d,\"k\":%lu,\"tids\":[", (int)getpid(), k);
	for (unsigned long t = 0; t < nthreads; t++)
		printf("%s%d", t ? "," : "", (int)tids[t]);
	printf("],\"fds\":[");
	for (unsigned long t = 0; t < nthreads; t++)
		printf("%s%d", t ? "," : "", pipes[t][0]);
	printf("]}\n");
	return 0;
}
