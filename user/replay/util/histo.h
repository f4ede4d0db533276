/* SPDX-License-Identifier: GPL-2.0-only */
/* Log-linear histogram of durations in ns: values below 64 are exact, above
 * that each power of two is split into 32 buckets (relative error <= 1/32).
 * Fixed size, so percentiles cost no memory per sample. */
#ifndef KATRA_REPLAY_HISTO_H
#define KATRA_REPLAY_HISTO_H

#include <stdint.h>

#define KR_HISTO_SUB_BITS 5
#define KR_HISTO_SUB (1u << KR_HISTO_SUB_BITS)
#define KR_HISTO_BUCKETS (2 * KR_HISTO_SUB + (64 - KR_HISTO_SUB_BITS - 1) * KR_HISTO_SUB)

struct kr_histo {
	uint64_t count;
	uint64_t total; /* saturates at UINT64_MAX */
	uint64_t min, max;
	uint64_t buckets[KR_HISTO_BUCKETS];
};

void kr_histo_add(struct kr_histo *h, uint64_t v);
/* Nearest-rank percentile (permille: 500 = p50, 990 = p99) as the middle of
 * its bucket, clamped to [min, max]; the first and last ranks give min and
 * max exactly; 0 when empty. */
uint64_t kr_histo_percentile(const struct kr_histo *h, unsigned permille);

#endif
