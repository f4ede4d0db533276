// SPDX-License-Identifier: GPL-2.0-only
/* Workload: exactly N pread64(fd, buf, 1, i % size) of a known file, then
 * exactly M getppid(), on each of T threads (T = 1: the main thread does it).
 *
 * usage: syscalls [--gate FILE] [--threads T] [--file PATH] [--size BYTES]
 *                 [--extra-pread-after K] N M
 *
 * --extra-pread-after K adds one pread64 (1 byte at offset 0) after the K-th
 * getppid (0: before the first), on every thread: a run that differs from the
 * plain one by exactly one syscall at a known place (katra-replay compare).
 *
 * Without --file it reads an unlinked temporary file of --size bytes (default
 * 4096).  Prints one JSON line when done:
 * {"workload":"syscalls","pid":P,"ppid":PP,"tid":T0,"tids":[..],"fd":F,
 *  "file_dev":D,"file_ino":I,"file_size":S,"n":N,"m":M,"threads":T,
 *  "loop_ns":[..]}   (loop_ns: each thread's measured loop, for benchmarks) */
#include <pthread.h>

#include "workload.h"

#define MAX_THREADS 64

static const char *prog = "syscalls";

struct worker {
	pthread_t thread;
	pid_t tid;
	long ppid; /* what the measured getppid calls returned */
	uint64_t loop_ns;
	int failed;
};

static const char *gate;
static int data_fd;
static uint64_t file_size;
static unsigned long n_reads, n_getppid;
static long extra_pread_after = -1; /* -1: none */
static int check_data;

static void *run(void *arg)
{
	struct worker *w = arg;
	unsigned char buf[1];
	uint64_t t0;

	w->tid = wl_gettid();
	wl_gate_wait(gate);
	t0 = wl_now_ns();
	for (unsigned long i = 0; i < n_reads; i++) {
		/* raw syscalls: exactly one pread64 / getppid each, whatever libc does */
		long r = syscall(SYS_pread64, data_fd, buf, 1, (off_t)(i % file_size));

		if (r != 1 || (check_data && buf[0] != (unsigned char)((i % file_size) & 0xff)))
			w->failed = 1;
	}
	w->ppid = -1;
	for (unsigned long i = 0; i <= n_getppid; i++) {
		if ((long)i == extra_pread_after && syscall(SYS_pread64, data_fd, buf, 1, 0) != 1)
			w->failed = 1;
		if (i < n_getppid)
			w->ppid = syscall(SYS_getppid);
	}
	w->loop_ns = wl_now_ns() - t0;
	return NULL;
}

int main(int argc, char **argv)
{
	static struct worker workers[MAX_THREADS];
	const char *path = NULL;
	unsigned long threads = 1, size = 4096;
	struct stat st;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i += 2) {
		if (i + 1 >= argc)
			wl_die(prog, "option %s needs a value", argv[i]);
		if (!strcmp(argv[i], "--gate"))
			gate = argv[i + 1];
		else if (!strcmp(argv[i], "--threads"))
			threads = wl_num(prog, "thread count", argv[i + 1]);
		else if (!strcmp(argv[i], "--file"))
			path = argv[i + 1];
		else if (!strcmp(argv[i], "--size"))
			size = wl_num(prog, "size", argv[i + 1]);
		else if (!strcmp(argv[i], "--extra-pread-after"))
			extra_pread_after = (long)wl_num(prog, "getppid index", argv[i + 1]);
		else
			wl_die(prog, "unknown option '%s'", argv[i]);
	}
	if (argc - i != 2 || threads < 1 || threads > MAX_THREADS || size < 1)
		wl_die(prog, "usage: syscalls [--gate FILE] [--threads 1..%d] [--file PATH] "
			     "[--size BYTES] [--extra-pread-after K] N M", MAX_THREADS);
	n_reads = wl_num(prog, "N", argv[i]);
	n_getppid = wl_num(prog, "M", argv[i + 1]);
	if (extra_pread_after > (long)n_getppid)
		wl_die(prog, "--extra-pread-after %ld: there are only %lu getppid calls",
		       extra_pread_after, n_getppid);
	data_fd = wl_data_file(prog, path, size, &st);
	file_size = (uint64_t)st.st_size;
	check_data = !path; /* only our own file has the known byte pattern */

	for (unsigned long t = 1; t < threads; t++)
		if (pthread_create(&workers[t].thread, NULL, run, &workers[t]))
			wl_die(prog, "pthread_create failed");
	run(&workers[0]);
	for (unsigned long t = 1; t < threads; t++)
		pthread_join(workers[t].thread, NULL);

	for (unsigned long t = 0; t < threads; t++)
		if (workers[t].failed)
			wl_die(prog, "a pread returned the wrong data");

	/* no getppid() here: it would be an extra traced call */
	printf("{\"workload\":\"syscalls\",\"pid\":%d,\"ppid\":%ld,\"tid\":%d,\"tids\":[",
	       (int)getpid(), workers[0].ppid, (int)workers[0].tid);
	for (unsigned long t = 0; t < threads; t++)
		printf("%s%d", t ? "," : "", (int)workers[t].tid);
	printf("],\"fd\":%d,\"file_dev\":%llu,\"file_ino\":%llu,\"file_size\":%llu,"
	       "\"n\":%lu,\"m\":%lu,\"threads\":%lu,\"loop_ns\":[",
	       data_fd, (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
	       (unsigned long long)file_size, n_reads, n_getppid, threads);
	for (unsigned long t = 0; t < threads; t++)
		printf("%s%llu", t ? "," : "", (unsigned long long)workers[t].loop_ns);
	printf("]}\n");
	return 0;
}
