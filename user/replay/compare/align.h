/* SPDX-License-Identifier: GPL-2.0-only */
/* Alignment of two token sequences (one thread's events on each side of a
 * compare): how many tokens a common subsequence keeps, and where the two
 * first differ.
 *
 * The common prefix and suffix are matched first (that is always optimal).
 * The middle is aligned with Myers' O((N+M)D) greedy algorithm, which only
 * needs the furthest point reached on each diagonal: memory O(D) on top of
 * the sequences themselves, and exact (the longest common subsequence) as
 * long as the edit distance D stays within max_d and the work within budget.
 * Past that, it goes on as GNU diff's heuristic does: it runs a search of at
 * most step_d edits from where it stands, keeps the furthest-reaching path
 * found, and starts again from its end.  That stays linear in time
 * (O((N+M) step_d)) and in memory, and gives a common subsequence that is a
 * lower bound of the longest one (exact = false). */
#ifndef KATRA_REPLAY_ALIGN_H
#define KATRA_REPLAY_ALIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kr_align_limits {
	uint64_t max_d;  /* largest edit distance searched exactly */
	uint64_t budget; /* comparisons allowed for the exact search */
	uint64_t step_d; /* edits per step of the bounded search (>= 1) */
};

/* The defaults: max_d 65536, budget 1 << 28 (about a second), step_d 32. */
extern const struct kr_align_limits kr_align_default_limits;

struct kr_align_result {
	uint64_t matched; /* tokens in the common subsequence found */
	uint64_t prefix;  /* the common prefix: index of the first divergence */
	bool exact;       /* matched is the longest common subsequence */
};

/* 0, or -ENOMEM (nothing was aligned). */
int kr_align(const uint16_t *a, size_t n, const uint16_t *b, size_t m,
	     const struct kr_align_limits *lim, struct kr_align_result *out);

#endif
