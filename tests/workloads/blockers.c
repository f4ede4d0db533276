// SPDX-License-Identifier: GPL-2.0-only
/* Workload: N threads blocked in read() on one pipe at the same time, then
 * released together: N syscalls in flight off-CPU at once (the kernel map
 * exhaustion test runs it against a table smaller than N).
 *
 * usage: blockers [--gate FILE] N */
#include <pthread.h>

#include "workload.h"

static int fds[2];

static void *blocker(void *arg)
{
	char c;

	(void)arg;
	if (read(fds[0], &c, 1) != 1)
		wl_die("blockers", "read: %s", strerror(errno));
	return NULL;
}

int main(int argc, char **argv)
{
	const char *gate = NULL;
	int n, i = 1;
	pthread_t t[256];

	if (argc > 2 && !strcmp(argv[1], "--gate")) {
		gate = argv[2];
		i = 3;
	}
	if (i >= argc || (n = atoi(argv[i])) < 1 || n > 256)
		wl_die("blockers", "usage: blockers [--gate FILE] N (1..256)");
	if (pipe(fds))
		wl_die("blockers", "pipe: %s", strerror(errno));
	wl_gate_wait(gate);
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, blocker, NULL))
			wl_die("blockers", "pthread_create");
	wl_sleep_ns(300000000); /* every thread is in its read by now */
	char buf[256];
	memset(buf, 'x', sizeof(buf));
	if (write(fds[1], buf, (size_t)n) != n)
		wl_die("blockers", "write");
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("{\"workload\":\"blockers\",\"pid\":%d,\"threads\":%d}\n", getpid(), n);
	return 0;
}
