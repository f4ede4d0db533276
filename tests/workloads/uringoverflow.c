// SPDX-License-Identifier: GPL-2.0-only
/* Workload: N no-op requests into a ring whose completion queue holds CQ
 * (IORING_SETUP_CQSIZE), submitted 8 at a time with none reaped until all
 * are in: no-ops complete as they are submitted, so the first CQ fill the
 * completion queue and the last N - CQ overflow it (the kernel keeps them
 * on its overflow list and hands them out at the next reap).  Request i has
 * user_data i + 1; every one is then reaped, each once.
 *
 * usage: uringoverflow [--gate FILE] N CQ
 * Prints: {"workload":"uringoverflow","pid":P,"n":N,"cq":CQ,"got":G,
 *          "overflowed":O,"ring_fd":RF}  (O: N - CQ when N > CQ) */
#include <liburing.h>

#include "workload.h"

static const char *prog = "uringoverflow";

int main(int argc, char **argv)
{
	struct io_uring_params par = { .flags = IORING_SETUP_CQSIZE };
	unsigned long n, cq, got = 0, sent = 0;
	const char *gate = NULL;
	struct io_uring ring;
	unsigned char *seen;
	int rc, i;

	for (i = 1; i + 1 < argc && !strcmp(argv[i], "--gate"); i += 2)
		gate = argv[i + 1];
	if (argc - i != 2)
		wl_die(prog, "usage: uringoverflow [--gate FILE] N CQ");
	n = wl_num(prog, "N", argv[i]);
	cq = wl_num(prog, "CQ", argv[i + 1]);
	if (cq < 8)
		wl_die(prog, "CQ must be at least 8 (the submission queue's size)");
	par.cq_entries = (unsigned)cq;
	rc = io_uring_queue_init_params(8, &ring, &par);
	if (rc < 0)
		wl_die(prog, "io_uring_queue_init_params: %s", strerror(-rc));
	if (ring.cq.ring_entries != cq)
		wl_die(prog, "the kernel made %u CQ entries, not %lu (CQ must be a power of 2)",
		       ring.cq.ring_entries, cq);
	seen = calloc(n + 1, 1);
	if (!seen)
		wl_die(prog, "out of memory");

	wl_gate_wait(gate);
	while (sent < n) {
		unsigned batch = 0;

		for (; batch < 8 && sent < n; batch++, sent++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			if (!sqe)
				wl_die(prog, "no free submission entry");
			io_uring_prep_nop(sqe);
			io_uring_sqe_set_data64(sqe, sent + 1);
		}
		rc = io_uring_submit(&ring);
		if (rc != (int)batch)
			wl_die(prog, "io_uring_submit: %d of %u (%s)", rc, batch,
			       rc < 0 ? strerror(-rc) : "short");
	}
	while (got < n) {
		struct io_uring_cqe *cqe;
		uint64_t ud;

		rc = io_uring_wait_cqe(&ring, &cqe);
		if (rc < 0)
			wl_die(prog, "io_uring_wait_cqe: %s", strerror(-rc));
		ud = cqe->user_data;
		if (!ud || ud > n || seen[ud] || cqe->res != 0)
			wl_die(prog, "unexpected completion: user_data %llu res %d",
			       (unsigned long long)ud, cqe->res);
		seen[ud] = 1;
		got++;
		io_uring_cqe_seen(&ring, cqe);
	}

	printf("{\"workload\":\"uringoverflow\",\"pid\":%d,\"n\":%lu,\"cq\":%lu,\"got\":%lu,"
	       "\"overflowed\":%lu,\"ring_fd\":%d}\n",
	       (int)getpid(), n, cq, got, n > cq ? n - cq : 0, ring.ring_fd);
	io_uring_queue_exit(&ring);
	free(seen);
	return 0;
}
