/* SPDX-License-Identifier: GPL-2.0-only */
/* The sweep of dead threads' call states (`ucall_states`, bpf/ucall.bpf.h):
 * its logic over a map reached through callbacks, so that a test can run
 * threads (a dead one's tid reused) between its steps. */
#ifndef KATRA_RECORD_UPROBES_UCALL_SWEEP_H
#define KATRA_RECORD_UPROBES_UCALL_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

struct ucall_sweep_map {
	/* the key after *prev (the first when prev is NULL): 0 or -errno */
	int (*next_key)(void *ctx, const uint64_t *prev, uint64_t *next);
	/* the start time of the thread whose entry `key` is: 0 or -errno */
	int (*start_of)(void *ctx, uint64_t key, uint64_t *start);
	int (*del)(void *ctx, uint64_t key);
	/* whether no thread `tid` exists now */
	bool (*thread_gone)(void *ctx, uint32_t tid);
	void *ctx;
};

#define UCALL_SWEEP_MAX 256 /* entries deleted at most per sweep */

/* The entries of threads that no longer exist go; returns how many. */
unsigned ucall_sweep(const struct ucall_sweep_map *m);

#endif
