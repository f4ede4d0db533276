// SPDX-License-Identifier: GPL-2.0-only
/* Workload: a completion posted while the thread runs in user space.  A
 * no-op (user_data 2k + 2) completes inside the io_uring_enter that submits
 * it; a 20 ms timeout (user_data 2k + 1) submitted with it expires while
 * the thread spins in user space with no syscall (clock_gettime is the
 * vDSO's), so its completion is posted on the way back to user space from
 * an interrupt (the timer's, or the kick of the task work), never inside a
 * syscall of the thread.  The spin ends once that completion is in the CQ
 * ring (read without a syscall) or after 2 s.  Attempt k = 0, 1, ...: one
 * whose timeout was already in the CQ ring when io_uring_enter returned
 * (the thread kept off the CPU inside it for 20 ms) is done again, up to 5.
 *
 * usage: uringirq [--gate FILE]
 * Prints: {"workload":"uringirq","pid":P,"tid":T,"attempt":K,"in_spin":1,
 *          "timeout_res":-62,"nop_res":0}  (in_spin 1: attempt K's timeout
 *          completed during its spin) */
#include <liburing.h>
#include <time.h>

#include "workload.h"

static const char *prog = "uringirq";

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Whether the CQ ring holds user_data ud (no syscall) */
static int in_ring(struct io_uring *ring, uint64_t ud)
{
	struct io_uring_cqe *cqe;
	unsigned head;

	io_uring_for_each_cqe(ring, head, cqe)
		if (cqe->user_data == ud)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = 20000000 };
	int rc, i, k, early = 1, in_spin = 0, tres = 1, nres = 1;
	const char *gate = NULL;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	uint64_t end;

	for (i = 1; i + 1 < argc && !strcmp(argv[i], "--gate"); i += 2)
		gate = argv[i + 1];
	if (argc != i)
		wl_die(prog, "usage: uringirq [--gate FILE]");
	rc = io_uring_queue_init(8, &ring, 0);
	if (rc < 0)
		wl_die(prog, "io_uring_queue_init: %s", strerror(-rc));

	wl_gate_wait(gate);
	for (k = 0; early && k < 5; k++) {
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_timeout(sqe, &ts, 0, 0);
		io_uring_sqe_set_data64(sqe, 2 * k + 1);
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_nop(sqe);
		io_uring_sqe_set_data64(sqe, 2 * k + 2);
		rc = io_uring_submit(&ring);
		if (rc != 2)
			wl_die(prog, "io_uring_submit: %d (%s)", rc,
			       rc < 0 ? strerror(-rc) : "short");
		early = in_ring(&ring, 2 * k + 1);
		for (end = now_ns() + 2000000000ull; !early && !in_spin && now_ns() < end;)
			in_spin = in_ring(&ring, 2 * k + 1);
		for (i = 0; i < 2; i++) {
			rc = io_uring_wait_cqe(&ring, &cqe);
			if (rc < 0)
				wl_die(prog, "io_uring_wait_cqe: %s", strerror(-rc));
			if (cqe->user_data == (uint64_t)(2 * k + 1))
				tres = cqe->res;
			else if (cqe->user_data == (uint64_t)(2 * k + 2))
				nres = cqe->res;
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	printf("{\"workload\":\"uringirq\",\"pid\":%d,\"tid\":%d,\"attempt\":%d,\"in_spin\":%d,"
	       "\"timeout_res\":%d,\"nop_res\":%d}\n",
	       (int)getpid(), (int)syscall(SYS_gettid), k - 1, in_spin, tres, nres);
	io_uring_queue_exit(&ring);
	return 0;
}
