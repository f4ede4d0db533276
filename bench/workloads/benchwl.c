// SPDX-License-Identifier: GPL-2.0-only
/* Bench workloads with exact ground truth, one program, one loop per KIND.
 *
 * usage: benchwl KIND [--gate FILE] [--threads T] N
 *   sys       per thread: N x { pread64(fd, buf, 1, off) ; getppid() }
 *   storm     per thread: N x getppid(), nothing else (the loss storm)
 *   pingpong  2 threads over two pipes, N rounds: A writes ping, reads pong;
 *             B reads ping, writes pong (4N syscalls); both on the last CPU,
 *             so each round is two context switches, not two idle wakeups
 *   pagefault N first touches of anonymous pages (N user page faults), a
 *             1024-page window dropped by madvise(DONTNEED) between passes
 *   uring     N one-byte io_uring reads, one io_uring_enter each
 *
 * Every thread waits at the gate (FILE exists, polled every 1 ms), then times
 * ONLY its loop.  Ground truth counts tracepoint hits inside the loops:
 * sys_enter/sys_exit from the loop's own syscalls, sched_switch and
 * sched_waking from the threads' context-switch counts (getrusage around the
 * loop: every voluntary switch in these loops is a blocking read that one
 * wakeup ends), page_fault_user from the minor-fault count.  Prints one line:
 * {"workload":K,"pid":P,"threads":T,"n":N,"elapsed_ns":MAX_LOOP,
 *  "syscalls":S,"events":{...},"total":E,"calls":[...]}
 * "calls" is each thread's own account of its loop, for checking a trace
 * against (bench/tools/spancount): its tid, the CLOCK_MONOTONIC window of the
 * loop (no syscall of the thread's but the loop's falls inside it), the
 * syscalls it made there by number, its page faults (getrusage) and io_uring
 * requests submitted and completed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 16

struct worker {
	pthread_t th;
	int idx;
	pid_t tid;
	uint64_t t0, t1; /* the loop's window, CLOCK_MONOTONIC ns */
	uint64_t loop_ns, syscalls, vcsw, ivcsw, minflt;
	uint64_t nr_calls[2][2]; /* up to two syscall numbers: {nr, calls} */
	uint64_t uring_ops;      /* io_uring reads submitted (each completed) */
};

static const char *kind, *gate;
static unsigned long n;
static int nthreads = 1, data_fd, ping[2], pong[2];

static void die(const char *what)
{
	fprintf(stderr, "benchwl: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void gate_wait(void)
{
	struct timespec ms = { 0, 1000000 };

	while (gate && access(gate, F_OK))
		nanosleep(&ms, NULL);
}

static void loop_sys(struct worker *w)
{
	unsigned char b;

	for (unsigned long i = 0; i < n; i++) {
		if (syscall(SYS_pread64, data_fd, &b, 1, (off_t)(i & 63)) != 1)
			die("pread64");
		syscall(SYS_getppid);
	}
	w->syscalls = 2 * n;
	w->nr_calls[0][0] = SYS_pread64;
	w->nr_calls[0][1] = n;
	w->nr_calls[1][0] = SYS_getppid;
	w->nr_calls[1][1] = n;
}

static void loop_storm(struct worker *w)
{
	for (unsigned long i = 0; i < n; i++)
		syscall(SYS_getppid);
	w->syscalls = n;
	w->nr_calls[0][0] = SYS_getppid;
	w->nr_calls[0][1] = n;
}

static void loop_pingpong(struct worker *w)
{
	char c = 'x';

	for (unsigned long i = 0; i < n; i++) {
		if (w->idx == 0) {
			if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
				die("pipe");
		} else {
			if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
				die("pipe");
		}
	}
	w->syscalls = 2 * n;
	w->nr_calls[0][0] = SYS_write;
	w->nr_calls[0][1] = n;
	w->nr_calls[1][0] = SYS_read;
	w->nr_calls[1][1] = n;
}

static volatile char *pf_map;
static size_t pf_page;

/* Touches a PF_CHUNK-page window again and again, dropping it with one
 * madvise(MADV_DONTNEED) in between, so memory stays small. */
#define PF_CHUNK 1024ul

static void loop_pagefault(struct worker *w)
{
	w->syscalls = 0;
	for (unsigned long i = 0; i < n; i++) {
		if (i && i % PF_CHUNK == 0) {
			if (madvise((void *)pf_map, PF_CHUNK * pf_page, MADV_DONTNEED))
				die("madvise");
			w->syscalls++;
		}
		pf_map[(i % PF_CHUNK) * pf_page] = 1;
	}
	w->nr_calls[0][0] = SYS_madvise;
	w->nr_calls[0][1] = w->syscalls;
}

static void loop_uring(struct worker *w, struct io_uring *ring)
{
	struct io_uring_cqe *cqe;
	char b;

	for (unsigned long i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		io_uring_prep_read(sqe, data_fd, &b, 1, i & 63);
		/* one io_uring_enter; a page-cache read completes inline */
		if (io_uring_submit_and_wait(ring, 1) != 1 || io_uring_peek_cqe(ring, &cqe) ||
		    cqe->res != 1)
			die("io_uring read");
		io_uring_cqe_seen(ring, cqe);
	}
	w->syscalls = n;
	w->nr_calls[0][0] = SYS_io_uring_enter;
	w->nr_calls[0][1] = n;
	w->uring_ops = n;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	struct rusage r0, r1;
	struct io_uring ring;
	uint64_t t0;

	if (!strcmp(kind, "uring") && io_uring_queue_init(8, &ring, 0))
		die("io_uring_queue_init");
	w->tid = (pid_t)syscall(SYS_gettid);
	gate_wait();
	getrusage(RUSAGE_THREAD, &r0);
	t0 = w->t0 = now_ns();
	if (!strcmp(kind, "sys"))
		loop_sys(w);
	else if (!strcmp(kind, "storm"))
		loop_storm(w);
	else if (!strcmp(kind, "pingpong"))
		loop_pingpong(w);
	else if (!strcmp(kind, "uring"))
		loop_uring(w, &ring);
	else
		loop_pagefault(w);
	w->t1 = now_ns();
	w->loop_ns = w->t1 - t0;
	getrusage(RUSAGE_THREAD, &r1);
	w->vcsw = r1.ru_nvcsw - r0.ru_nvcsw;
	w->ivcsw = r1.ru_nivcsw - r0.ru_nivcsw;
	w->minflt = r1.ru_minflt - r0.ru_minflt;
	return NULL;
}

int main(int argc, char **argv)
{
	static struct worker w[MAX_THREADS];
	uint64_t sc = 0, vcsw = 0, ivcsw = 0, flt = 0, maxns = 0, sub = 0;
	char tmpl[] = "/tmp/katra-bench-XXXXXX", buf[64];
	int i;

	if (argc < 3)
		goto usage;
	kind = argv[1];
	for (i = 2; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
		if (!strcmp(argv[i], "--gate"))
			gate = argv[i + 1];
		else if (!strcmp(argv[i], "--threads"))
			nthreads = atoi(argv[i + 1]);
		else
			goto usage;
	}
	if (i != argc - 1 || nthreads < 1 || nthreads > MAX_THREADS)
		goto usage;
	n = strtoul(argv[i], NULL, 10);
	if (!strcmp(kind, "pingpong")) {
		cpu_set_t one;

		nthreads = 2;
		CPU_ZERO(&one);
		CPU_SET(sysconf(_SC_NPROCESSORS_ONLN) - 1, &one);
		if (sched_setaffinity(0, sizeof(one), &one)) /* threads inherit it */
			die("sched_setaffinity");
	}
	else if (strcmp(kind, "sys") && strcmp(kind, "storm"))
		nthreads = 1;
	data_fd = mkstemp(tmpl);
	if (data_fd < 0)
		die("mkstemp");
	unlink(tmpl);
	memset(buf, 'k', sizeof(buf));
	if (write(data_fd, buf, sizeof(buf)) != sizeof(buf) || pipe(ping) || pipe(pong))
		die("setup");
	if (!strcmp(kind, "pagefault")) {
		/* mapped before the gate: only the first touches are in the loop */
		pf_page = (size_t)sysconf(_SC_PAGESIZE);
		pf_map = mmap(NULL, PF_CHUNK * pf_page, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (pf_map == MAP_FAILED ||
		    madvise((void *)pf_map, PF_CHUNK * pf_page, MADV_NOHUGEPAGE))
			die("mmap");
	}

	for (int t = 0; t < nthreads; t++) {
		w[t].idx = t;
		if (t && pthread_create(&w[t].th, NULL, run, &w[t]))
			die("pthread_create");
	}
	run(&w[0]);
	for (int t = 1; t < nthreads; t++)
		pthread_join(w[t].th, NULL);
	for (int t = 0; t < nthreads; t++) {
		sc += w[t].syscalls;
		vcsw += w[t].vcsw;
		ivcsw += w[t].ivcsw;
		flt += w[t].minflt;
		if (w[t].loop_ns > maxns)
			maxns = w[t].loop_ns;
	}
	if (!strcmp(kind, "uring"))
		sub = n;
	/* pingpong: each blocking read (a voluntary switch) is ended by one
	 * sched_waking from the other thread */
	printf("{\"workload\":\"%s\",\"pid\":%d,\"threads\":%d,\"n\":%lu,\"elapsed_ns\":%llu,"
	       "\"syscalls\":%llu,\"events\":{\"sys_enter\":%llu,\"sys_exit\":%llu,"
	       "\"sched_switch\":%llu,\"sched_waking\":%llu,\"page_fault_user\":%llu,"
	       "\"io_uring_submit_req\":%llu,\"io_uring_complete\":%llu},\"total\":%llu,\"calls\":[",
	       kind, (int)getpid(), nthreads, n, (unsigned long long)maxns,
	       (unsigned long long)sc, (unsigned long long)sc, (unsigned long long)sc,
	       (unsigned long long)(vcsw + ivcsw),
	       (unsigned long long)(!strcmp(kind, "pingpong") ? vcsw : 0),
	       (unsigned long long)flt, (unsigned long long)sub, (unsigned long long)sub,
	       (unsigned long long)(2 * sc + vcsw + ivcsw +
				    (!strcmp(kind, "pingpong") ? vcsw : 0) + flt + 2 * sub));
	for (int t = 0; t < nthreads; t++) {
		printf("%s{\"tid\":%d,\"start_mono_ns\":%llu,\"end_mono_ns\":%llu,\"syscalls\":{",
		       t ? "," : "", (int)w[t].tid, (unsigned long long)w[t].t0,
		       (unsigned long long)w[t].t1);
		for (int k = 0, first = 1; k < 2; k++) {
			if (!w[t].nr_calls[k][1])
				continue;
			printf("%s\"%llu\":%llu", first ? "" : ",",
			       (unsigned long long)w[t].nr_calls[k][0],
			       (unsigned long long)w[t].nr_calls[k][1]);
			first = 0;
		}
		printf("},\"faults\":%llu,\"uring_submit\":%llu,\"uring_complete\":%llu}",
		       (unsigned long long)w[t].minflt, (unsigned long long)w[t].uring_ops,
		       (unsigned long long)w[t].uring_ops);
	}
	printf("]}\n");
	return 0;
usage:
	fprintf(stderr, "usage: benchwl sys|storm|pingpong|pagefault|uring [--gate FILE] "
			"[--threads T] N\n");
	return 2;
}
