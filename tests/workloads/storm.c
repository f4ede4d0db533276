// SPDX-License-Identifier: GPL-2.0-only
/* Workload: a syscall storm.  T threads each make exactly N raw getppid()
 * calls, all at once (they start together once every thread exists and the
 * gate is open), to fill the recorder's rings as fast as the CPUs allow.
 *
 * usage: storm [--gate FILE] T N
 *
 * Only the T worker threads call getppid; the main thread starts them and
 * joins.  Prints one JSON line when done:
 * {"workload":"storm","pid":P,"ppid":PP,"threads":T,"n":N,"tids":[..],
 *  "loop_ns":L}   (ppid: what every measured getppid returned) */
#include <pthread.h>

#include "workload.h"

#define MAX_THREADS 256

static const char *prog = "storm";

struct worker {
	pthread_t thread;
	pid_t tid;
	long ppid;
	int mismatch;
};

static const char *gate;
static unsigned long n_calls;
static pthread_barrier_t start;

static void *run(void *arg)
{
	struct worker *w = arg;

	w->tid = wl_gettid();
	/* every thread exists before any of them starts: one burst */
	pthread_barrier_wait(&start);
	w->ppid = -1;
	for (unsigned long i = 0; i < n_calls; i++) {
		/* raw syscall: exactly one getppid each, whatever libc does */
		long r = syscall(SYS_getppid);

		if (w->ppid != -1 && r != w->ppid)
			w->mismatch = 1;
		w->ppid = r;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static struct worker workers[MAX_THREADS];
	unsigned long threads;
	uint64_t t0;
	int i = 1;

	if (argc > 2 && !strcmp(argv[1], "--gate")) {
		gate = argv[2];
		i = 3;
	}
	if (argc - i != 2)
		wl_die(prog, "usage: storm [--gate FILE] T N");
	threads = wl_num(prog, "T", argv[i]);
	n_calls = wl_num(prog, "N", argv[i + 1]);
	if (threads < 1 || threads > MAX_THREADS)
		wl_die(prog, "T must be 1..%d", MAX_THREADS);

	if (pthread_barrier_init(&start, NULL, (unsigned)threads + 1))
		wl_die(prog, "pthread_barrier_init failed");
	for (unsigned long t = 0; t < threads; t++)
		if (pthread_create(&workers[t].thread, NULL, run, &workers[t]))
			wl_die(prog, "pthread_create failed");
	wl_gate_wait(gate);
	t0 = wl_now_ns();
	pthread_barrier_wait(&start);
	for (unsigned long t = 0; t < threads; t++)
		pthread_join(workers[t].thread, NULL);
	t0 = wl_now_ns() - t0;
	for (unsigned long t = 0; t < threads; t++)
		if (workers[t].mismatch || (n_calls && workers[t].ppid != workers[0].ppid))
			wl_die(prog, "getppid returned different values");

	printf("{\"workload\":\"storm\",\"pid\":%d,\"ppid\":%ld,\"threads\":%lu,\"n\":%lu,"
	       "\"tids\":[", (int)getpid(), workers[0].ppid, threads, n_calls);
	for (unsigned long t = 0; t < threads; t++)
		printf("%s%d", t ? "," : "", (int)workers[t].tid);
	printf("],\"loop_ns\":%llu}\n", (unsigned long long)t0);
	return 0;
}
