// SPDX-License-Identifier: GPL-2.0-only
/* Workload: R reads of a file through io_uring (liburing), one at a time,
 * request i with user_data = i + 1, reading 1 byte at offset i % size.
 *
 * usage: uring [--gate FILE] [--file PATH] R
 * Prints: {"workload":"uring","pid":P,"tid":T,"r":R,"fd":F,"ring_fd":RF,
 *          "file_dev":D,"file_ino":I,"file_size":S,"loop_ns":N} */
#include <liburing.h>

#include "workload.h"

static const char *prog = "uring";

int main(int argc, char **argv)
{
	const char *gate = NULL, *path = NULL;
	unsigned long reads;
	struct io_uring ring;
	struct stat st;
	uint64_t t0, loop_ns;
	int fd, rc, i;

	for (i = 1; i + 1 < argc && argv[i][0] == '-' && argv[i][1] == '-'; i += 2) {
		if (!strcmp(argv[i], "--gate"))
			gate = argv[i + 1];
		else if (!strcmp(argv[i], "--file"))
			path = argv[i + 1];
		else
			wl_die(prog, "unknown option '%s'", argv[i]);
	}
	if (argc - i != 1)
		wl_die(prog, "usage: uring [--gate FILE] [--file PATH] R");
	reads = wl_num(prog, "R", argv[i]);
	fd = wl_data_file(prog, path, 4096, &st);
	rc = io_uring_queue_init(8, &ring, 0);
	if (rc < 0)
		wl_die(prog, "io_uring_queue_init: %s", strerror(-rc));

	wl_gate_wait(gate);
	t0 = wl_now_ns();
	for (unsigned long r = 0; r < reads; r++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct io_uring_cqe *cqe;
		char buf[1];

		if (!sqe)
			wl_die(prog, "no free submission entry");
		io_uring_prep_read(sqe, fd, buf, 1, r % (uint64_t)st.st_size);
		io_uring_sqe_set_data64(sqe, r + 1);
		rc = io_uring_submit_and_wait(&ring, 1);
		if (rc < 0)
			wl_die(prog, "io_uring_submit_and_wait: %s", strerror(-rc));
		rc = io_uring_wait_cqe(&ring, &cqe);
		if (rc < 0)
			wl_die(prog, "io_uring_wait_cqe: %s", strerror(-rc));
		if (cqe->user_data != r + 1 || cqe->res != 1)
			wl_die(prog, "request %lu completed with user_data %llu res %d", r + 1,
			       (unsigned long long)cqe->user_data, cqe->res);
		io_uring_cqe_seen(&ring, cqe);
	}
	loop_ns = wl_now_ns() - t0;

	printf("{\"workload\":\"uring\",\"pid\":%d,\"tid\":%d,\"r\":%lu,\"fd\":%d,\"ring_fd\":%d,"
	       "\"file_dev\":%llu,\"file_ino\":%llu,\"file_size\":%llu,\"loop_ns\":%llu}\n",
	       (int)getpid(), (int)wl_gettid(), reads, fd, ring.ring_fd,
	       (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
	       (unsigned long long)st.st_size, (unsigned long long)loop_ns);
	io_uring_queue_exit(&ring);
	return 0;
}
