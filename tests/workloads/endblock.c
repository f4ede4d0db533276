// SPDX-License-Identifier: GPL-2.0-only
/* Workload: threads still inside syscalls when the capture ends.  B threads
 * block in read() on a pipe nobody writes to, and C threads loop on short
 * nanosleeps (each one enters, blocks, and is woken: a thread that leaves its
 * CPU mid-syscall, over and over, while the recorder detaches).  It runs
 * until killed; its ground truth line is printed once every thread is in
 * place.
 *
 * usage: endblock [--gate FILE] B C */
#include <pthread.h>
#include <signal.h>

#include "workload.h"

static int fds[2];
static pid_t tids[256];

static void *blocker(void *arg)
{
	char c;

	tids[(intptr_t)arg] = wl_gettid();
	if (read(fds[0], &c, 1) != 0) /* never returns: nobody writes, nobody closes */
		wl_die("endblock", "read returned");
	return NULL;
}

static void *churner(void *arg)
{
	tids[(intptr_t)arg] = wl_gettid();
	for (;;)
		wl_sleep_ns(20000);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *gate = NULL;
	int b, c, i = 1;
	pthread_t t;

	if (argc > 2 && !strcmp(argv[1], "--gate")) {
		gate = argv[2];
		i = 3;
	}
	if (i + 1 >= argc || (b = atoi(argv[i])) < 1 || (c = atoi(argv[i + 1])) < 0 ||
	    b + c > 256)
		wl_die("endblock", "usage: endblock [--gate FILE] B C (B >= 1, B + C <= 256)");
	if (pipe(fds))
		wl_die("endblock", "pipe: %s", strerror(errno));
	wl_gate_wait(gate);
	for (i = 0; i < b + c; i++)
		if (pthread_create(&t, NULL, i < b ? blocker : churner, (void *)(intptr_t)i))
			wl_die("endblock", "pthread_create");
	wl_sleep_ns(300000000); /* every blocker is in its read by now */
	printf("{\"workload\":\"endblock\",\"pid\":%d,\"blockers\":[", getpid());
	for (i = 0; i < b; i++)
		printf("%s%d", i ? "," : "", tids[i]);
	printf("],\"churners\":[");
	for (i = b; i < b + c; i++)
		printf("%s%d", i > b ? "," : "", tids[i]);
	printf("]}\n");
	fflush(stdout);
	for (;;)
		pause();
}
