// SPDX-License-Identifier: GPL-2.0-only
/* Workload: two threads, A and B, ping-pong K times over a pipe pair.
 *
 * usage: pingpong [--gate FILE] K
 *
 * A: K times { wait until B is blocked in read(ping); write(ping); read(pong) }
 * B: K times { read(ping); wait until A is blocked in read(pong); write(pong) }
 *
 * "Blocked" is read from /proc/self/task/TID/syscall, which the kernel only
 * fills once the thread is really off the CPU (else it says "running").  So
 * every one of the 2K reads blocks and is woken by the other thread's write:
 * exactly K off-CPU intervals per thread end with a wakeup from the other one,
 * whatever the scheduler does.  A and B never sleep on a timer (a timer
 * wakeup runs in whatever context the interrupt hit, maybe the other thread):
 * the waiting side spins with sched_yield, and only the main thread polls the
 * gate, then starts A and B through a pipe each.
 * Prints: {"workload":"pingpong","pid":P,"tid_a":A,"tid_b":B,"k":K,
 *          "ping_fd":[r,w],"pong_fd":[r,w],"loop_ns":N} */
#define _GNU_SOURCE /* pipe2 */
#include <pthread.h>
#include <sched.h>

#include "workload.h"

static const char *prog = "pingpong";
static const char *gate;
static unsigned long rounds;
static int ping[2], pong[2], start_a[2], start_b[2];
static volatile pid_t tid_a, tid_b;
static uint64_t loop_ns;

/* Spin until thread `tid` is off-CPU inside read(fd, ...). */
static void wait_blocked_in_read(pid_t tid, int fd)
{
	char path[64], want[32], buf[128];
	int pfd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	snprintf(want, sizeof(want), "%d 0x%x ", SYS_read, fd);
	pfd = open(path, O_RDONLY | O_CLOEXEC);
	if (pfd < 0)
		wl_die(prog, "cannot open '%s': %s", path, strerror(errno));
	for (;;) {
		ssize_t n = pread(pfd, buf, sizeof(buf) - 1, 0);

		if (n < 0)
			wl_die(prog, "cannot read '%s': %s", path, strerror(errno));
		buf[n] = 0;
		if (!strncmp(buf, want, strlen(want)))
			break;
		sched_yield();
	}
	close(pfd);
}

static void xread(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		wl_die(prog, "pipe read failed: %s", strerror(errno));
}

static void xwrite(int fd)
{
	char c = 'x';

	if (write(fd, &c, 1) != 1)
		wl_die(prog, "pipe write failed: %s", strerror(errno));
}

static void *thread_a(void *arg)
{
	uint64_t t0;

	(void)arg;
	tid_a = wl_gettid();
	xread(start_a[0]);
	t0 = wl_now_ns();
	for (unsigned long i = 0; i < rounds; i++) {
		wait_blocked_in_read(tid_b, ping[0]);
		xwrite(ping[1]);
		xread(pong[0]);
	}
	loop_ns = wl_now_ns() - t0;
	return NULL;
}

static void *thread_b(void *arg)
{
	(void)arg;
	tid_b = wl_gettid();
	xread(start_b[0]);
	for (unsigned long i = 0; i < rounds; i++) {
		xread(ping[0]);
		wait_blocked_in_read(tid_a, pong[0]);
		xwrite(pong[1]);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;
	int i = 1;

	if (argc > 2 && !strcmp(argv[1], "--gate")) {
		gate = argv[2];
		i = 3;
	}
	if (argc - i != 1)
		wl_die(prog, "usage: pingpong [--gate FILE] K");
	rounds = wl_num(prog, "K", argv[i]);
	if (pipe2(ping, O_CLOEXEC) || pipe2(pong, O_CLOEXEC) || pipe2(start_a, O_CLOEXEC) ||
	    pipe2(start_b, O_CLOEXEC))
		wl_die(prog, "pipe: %s", strerror(errno));
	if (pthread_create(&a, NULL, thread_a, NULL) || pthread_create(&b, NULL, thread_b, NULL))
		wl_die(prog, "pthread_create failed");
	while (!tid_a || !tid_b)
		sched_yield();
	wl_gate_wait(gate);
	xwrite(start_b[1]);
	xwrite(start_a[1]);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("{\"workload\":\"pingpong\",\"pid\":%d,\"tid_a\":%d,\"tid_b\":%d,\"k\":%lu,"
	       "\"ping_fd\":[%d,%d],\"pong_fd\":[%d,%d],\"loop_ns\":%llu}\n",
	       (int)getpid(), (int)tid_a, (int)tid_b, rounds, ping[0], ping[1], pong[0], pong[1],
	       (unsigned long long)loop_ns);
	return 0;
}
