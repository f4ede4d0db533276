// SPDX-License-Identifier: GPL-2.0-only
/* Workload: an io_uring ring that outlives the process that made it, so its
 * owner is forgotten while it is still used (t_uring_reuse.sh).
 *
 * usage: uringreuse [--gate FILE] --go FILE K
 *   The process pins itself to its first CPU, makes a ring, submits a NOP
 *   (user_data 1), forks a child that shares the ring, prints
 *   {"workload":"uringreuse","pid":P,"child":C,"ring_fd":F,"cpu":N} and
 *   exits.  The child waits until its parent is gone and FILE exists,
 *   submits a NOP (user_data 2) on the same CPU, creates FILE.sub, then
 *   waits (10 s at most) for K completions with user_data 1000..1000+K-1
 *   that another process posts into the ring, prints {"child":C,"got":N}
 *   and exits once FILE.end exists.
 * usage: uringreuse msg PID FD K CPU
 *   On CPU (the child's), takes ring FD of process PID (pidfd_getfd) and
 *   posts K completions into it from here (IORING_OP_MSG_RING, user_data
 *   1000 + i): they complete in this process's context, not the ring's
 *   users'.  Prints {"sent":K}. */
#include <liburing.h>
#include <sched.h>
#include <sys/syscall.h>

#include "workload.h"

static const char *prog = "uringreuse";

#define MSG_DATA 1000u

static void nop(struct io_uring *ring, uint64_t data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int rc;

	if (!sqe)
		wl_die(prog, "no free submission entry");
	io_uring_prep_nop(sqe);
	io_uring_sqe_set_data64(sqe, data);
	rc = io_uring_submit_and_wait(ring, 1);
	if (rc < 0 || (rc = io_uring_wait_cqe(ring, &cqe)) < 0)
		wl_die(prog, "nop: %s", strerror(-rc));
	if (cqe->user_data != data)
		wl_die(prog, "nop completed with user_data %llu", (unsigned long long)cqe->user_data);
	io_uring_cqe_seen(ring, cqe);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		wl_die(prog, "sched_setaffinity: %s", strerror(errno));
}

static int send_msgs(pid_t pid, int fd, unsigned long k, int cpu)
{
	struct io_uring ring;
	int pfd, tfd, rc;

	pin(cpu);
	pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd < 0 || (tfd = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0)) < 0)
		wl_die(prog, "cannot take fd %d of %d: %s", fd, (int)pid, strerror(errno));
	rc = io_uring_queue_init(8, &ring, 0);
	if (rc < 0)
		wl_die(prog, "io_uring_queue_init: %s", strerror(-rc));
	for (unsigned long i = 0; i < k; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct io_uring_cqe *cqe;

		io_uring_prep_msg_ring(sqe, tfd, 0, MSG_DATA + i, 0);
		rc = io_uring_submit_and_wait(&ring, 1);
		if (rc < 0 || (rc = io_uring_wait_cqe(&ring, &cqe)) < 0)
			wl_die(prog, "msg_ring: %s", strerror(-rc));
		if (cqe->res < 0)
			wl_die(prog, "msg_ring refused: %s", strerror(-cqe->res));
		io_uring_cqe_seen(&ring, cqe);
	}
	printf("{\"sent\":%lu}\n", k);
	return 0;
}

static void child(struct io_uring *ring, pid_t parent, const char *go, unsigned long k)
{
	char sub[4096];
	unsigned long got = 0;
	int fd;

	while (getppid() == parent)
		wl_sleep_ns(1000000);
	wl_gate_wait(go);
	nop(ring, 2);
	snprintf(sub, sizeof(sub), "%s.sub", go);
	fd = open(sub, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		wl_die(prog, "cannot create '%s': %s", sub, strerror(errno));
	close(fd);
	while (got < k) {
		struct __kernel_timespec ts = { .tv_sec = 10 };
		struct io_uring_cqe *cqe;

		if (io_uring_wait_cqe_timeout(ring, &cqe, &ts) < 0)
			break;
		if (cqe->user_data >= MSG_DATA && cqe->user_data < MSG_DATA + k)
			got++;
		io_uring_cqe_seen(ring, cqe);
	}
	printf("{\"child\":%d,\"got\":%lu}\n", (int)getpid(), got);
	fflush(stdout);
	/* the capture ends with this process: it stays until told */
	snprintf(sub, sizeof(sub), "%s.end", go);
	wl_gate_wait(sub);
	_exit(got == k ? 0 : 1);
}

int main(int argc, char **argv)
{
	const char *gate = NULL, *go = NULL;
	struct io_uring ring;
	unsigned long k;
	pid_t pid, self;
	int i, rc, cpu;

	if (argc == 6 && !strcmp(argv[1], "msg"))
		return send_msgs((pid_t)wl_num(prog, "PID", argv[2]), (int)wl_num(prog, "FD", argv[3]),
				 wl_num(prog, "K", argv[4]), (int)wl_num(prog, "CPU", argv[5]));
	for (i = 1; i + 1 < argc && argv[i][0] == '-' && argv[i][1] == '-'; i += 2) {
		if (!strcmp(argv[i], "--gate"))
			gate = argv[i + 1];
		else if (!strcmp(argv[i], "--go"))
			go = argv[i + 1];
		else
			wl_die(prog, "unknown option '%s'", argv[i]);
	}
	if (argc - i != 1 || !go)
		wl_die(prog, "usage: uringreuse [--gate FILE] --go FILE K | msg PID FD K CPU");
	k = wl_num(prog, "K", argv[i]);
	wl_gate_wait(gate);
	/* the child's submit runs on the CPU of the parent's: the same per-CPU
	 * state in the probes */
	cpu = sched_getcpu();
	pin(cpu);
	rc = io_uring_queue_init(8, &ring, 0);
	if (rc < 0)
		wl_die(prog, "io_uring_queue_init: %s", strerror(-rc));
	nop(&ring, 1);
	fflush(stdout);
	self = getpid();
	pid = fork();
	if (pid < 0)
		wl_die(prog, "fork: %s", strerror(errno));
	if (!pid)
		child(&ring, self, go, k);
	printf("{\"workload\":\"uringreuse\",\"pid\":%d,\"child\":%d,\"ring_fd\":%d,\"cpu\":%d}\n",
	       (int)getpid(), (int)pid, ring.ring_fd, cpu);
	return 0;
}
