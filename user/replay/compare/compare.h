/* SPDX-License-Identifier: GPL-2.0-only */
/* `katra-replay compare A B`: are two traces the same run of a
 * deterministic workload, and where do they part?  Both sides are reduced by
 * cmp_trace.h; threads are paired by their renumbered (process, thread), and
 * each pair is aligned (align.h). */
#ifndef KATRA_REPLAY_COMPARE_H
#define KATRA_REPLAY_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cmp_trace.h"

struct kr_cmp_pair {
	uint32_t proc_no, thread_no;
	int64_t a, b;         /* thread index on each side, -1 when absent */
	uint64_t len_a, len_b;
	uint64_t matched;     /* aligned tokens */
	uint64_t prefix;      /* first divergence (token index), when differs */
	bool exact;           /* matched is the longest common subsequence */
	bool differs;         /* the token sequences differ */
	bool causal_differs;  /* the causes[] edges into this thread differ */
};

struct kr_compare {
	const char *path_a, *path_b;
	struct kr_cmp_trace a, b;
	struct kr_cmp_pair *pairs;
	size_t npairs;
	uint64_t matched; /* over all pairs */
	bool exact;       /* every pair aligned exactly */
	bool equivalent;  /* both hashes equal on both sides */
};

/* Loads both traces, aligns, describes first divergences.  0 when the
 * comparison was made (c->equivalent says the answer); 1 when a trace is
 * invalid or truncated; -errno.  Messages on err. */
int kr_compare_run(struct kr_compare *c, const char *path_a, const char *path_b,
		   kr_kindset ignore, FILE *err);
/* As run, for traces already loaded into c->a and c->b (unit tests): pairs
 * and aligns, no second pass.  0 or -ENOMEM. */
int kr_compare_pairs(struct kr_compare *c);
void kr_compare_free(struct kr_compare *c);

/* One --ignore option: its kinds are added to *ignore (which starts as
 * KR_CMP_DEFAULT_IGNORE); "none" (or "") empties it, so that
 * "--ignore none --ignore Futex" ignores Futex alone.  0, or -EINVAL with
 * the unknown item in bad. */
int kr_compare_ignore_option(kr_kindset *ignore, const char *list, char *bad, size_t bad_cap);

/* Matched events over all events, in percent: 2 * matched / (A + B). */
double kr_compare_equivalence(const struct kr_compare *c);

/* A pair's thread for people: its name in the trace (its own, else its
 * process's, side A's else B's: "gzip"), as dump names it; with its
 * renumbered id beside it when another pair has the same name ("gzip
 * p2/t1"); the id alone when the trace names neither ("p2/t0"). */
const char *kr_compare_pair_label(const struct kr_compare *c, const struct kr_cmp_pair *p,
				  char *buf, size_t cap);

void kr_compare_print_text(FILE *out, const struct kr_compare *c);
void kr_compare_print_json(FILE *out, const struct kr_compare *c);

#endif
